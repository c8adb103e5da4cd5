fn main() {
    if std::env::var("TS").is_ok() {
        let s = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
        let t = analyzer::lower::parse_tree(&s).unwrap();
        println!("{}", t.root_node().to_sexp());
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let a = analyzer::report::analyze(&[args[1].clone().into()], &Default::default());
    for d in a.diagnostics() {
        eprint!(
            "{}",
            d.render(d.location.as_ref().and_then(|l| a.program.map.line_text(l)))
        );
    }
    print!(
        "{}",
        a.dump(args.get(2).map(|s| s.as_str()).unwrap_or("loops"))
            .unwrap()
    );
}
