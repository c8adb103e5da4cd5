fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_fortran::LANGUAGE.into()).unwrap();
    let t = p.parse(&src, None).unwrap();
    fn walk(n: tree_sitter::Node, src: &str, depth: usize) {
        let txt = &src[n.byte_range()];
        let short: String = txt.chars().take(50).collect::<String>().replace('\n', "\\n");
        let f = n.start_position();
        println!("{}{}{} [{}:{}] {:?}", "  ".repeat(depth), n.kind(), if n.is_named() {""} else {"(anon)"}, f.row+1, f.column+1, short);
        let mut c = n.walk();
        for (i, ch) in n.children(&mut c).enumerate() {
            let _ = i;
            walk(ch, src, depth + 1);
        }
    }
    walk(t.root_node(), &src, 0);
}
