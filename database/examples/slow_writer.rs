//! Store an analysis of FILE... in the project database DB, touching MARKER when everything is
//! written but not yet committed. With `--sleep SECS` it then waits that long before the
//! commit: the crash-safety test kills it there and checks the database. `--copies N` stores
//! every unit N times, for a transaction larger than SQLite's page cache (so that it spills
//! into the write-ahead log before the commit).
//!
//! `cargo run -p database --example slow_writer -- DB MARKER [--sleep SECS] [--copies N] FILE...`

use database::{AnalysisRecord, Db};
use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str| -> Option<f64> {
        let i = args.iter().position(|a| a == name)?;
        let v = args.get(i + 1).and_then(|s| s.parse().ok());
        let v = v.unwrap_or_else(|| panic!("{name} needs a number"));
        args.drain(i..i + 2);
        Some(v)
    };
    let sleep = option("--sleep").map(Duration::from_secs_f64);
    let copies = option("--copies").map_or(1, |n| n as usize).max(1);
    if args.len() < 3 {
        eprintln!("usage: slow_writer DB MARKER [--sleep SECS] FILE...");
        std::process::exit(2);
    }
    let db_path = PathBuf::from(&args[0]);
    let marker = PathBuf::from(&args[1]);
    let files: Vec<PathBuf> = args[2..].iter().map(PathBuf::from).collect();
    let mut db = Db::open(&db_path).unwrap_or_else(|e| {
        eprintln!("slow_writer: {e}");
        std::process::exit(1)
    });
    let analysis = analyzer::report::analyze(&files, &Default::default());
    let mut rec = AnalysisRecord::from_analysis(&analysis, &db);
    let units = rec.units.clone();
    for _ in 1..copies {
        rec.units.extend(units.iter().cloned());
    }
    let key = rec.key("slow_writer");
    let mut hook = || {
        std::fs::write(&marker, b"in transaction\n").expect("writing the marker file");
        if let Some(d) = sleep {
            std::thread::sleep(d);
        }
    };
    match db.store_analysis_with_hook(&key, &rec, &mut hook) {
        Ok(id) => println!("stored analysis #{id}"),
        Err(e) => {
            eprintln!("slow_writer: {e}");
            std::process::exit(1);
        }
    }
}
