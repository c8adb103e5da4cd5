//! Print the DVM expert's schemes for the given files (a debugging aid).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let procs: u32 = std::env::var("PROCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let files: Vec<std::path::PathBuf> = args.iter().map(Into::into).collect();
    let a = analyzer::report::analyze(&files, &Default::default());
    let r = experts::dvm::run(
        &a,
        &experts::machine::MachineModel {
            processes: procs,
            ..Default::default()
        },
    );
    for n in &r.notes {
        println!("note: {n}");
    }
    for (i, s) in r.schemes.iter().enumerate() {
        println!(
            "{} {} total {:.6} comp {:.6} comm {:.6} grid {:?}",
            if i == r.chosen { "*" } else { " " },
            s.name,
            s.estimate.total,
            s.estimate.computation,
            s.estimate.communication,
            s.estimate.grid
        );
        for n in &s.notes {
            println!("    note: {n}");
        }
        for l in &s.loops {
            println!("    line {} ({}) on {:?} shadow {:?} across {:?} remote {:?} red {:?} private {:?}", l.line, l.vars.join(","), l.on.as_ref().map(|o| &o.array), l.shadow_renew.iter().map(|w| (&w.array, &w.widths, w.corner)).collect::<Vec<_>>(), l.across.iter().map(|w| (&w.array, &w.widths)).collect::<Vec<_>>(), l.remote_access.iter().map(|r| &r.array).collect::<Vec<_>>(), l.reductions.iter().map(|r| format!("{}:{}", r.op, r.var)).collect::<Vec<_>>(), l.private);
        }
        for r in &s.remote {
            println!("    remote at line {}: {:?}", r.line, r.refs);
        }
    }
}
