//! The CLI with the project database: results stored and reused, refinements recorded,
//! honoured and reported, bad databases refused without being touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(tag: &str) -> Scratch {
    Scratch::new("dbcli", tag)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn analysis_is_stored_reused_and_shown() {
    let dir = scratch("store");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let first = run(&dir, &["analyze", "jac.f"]);
    assert!(first.status.success(), "{}", text(&first));
    assert!(dir.join("sapfor.db").exists());
    let again = run(&dir, &["analyze", "jac.f"]);
    assert_eq!(
        first.stdout, again.stdout,
        "the stored report is printed unchanged"
    );
    let export: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["export", "--json"]).stdout).unwrap();
    assert_eq!(export["format"], "sapfor-export");
    let show = run(&dir, &["show", "loop", "jac.f:18"]);
    let s = text(&show);
    assert!(
        show.status.success()
            && s.contains("parallel, reduction(max:EPS)")
            && s.contains("B(2:1999,2:1999)"),
        "{s}"
    );
    // A changed file is analyzed again.
    let src = std::fs::read_to_string(dir.join("jac.f"))
        .unwrap()
        .replace("ITMAX=20", "ITMAX=10");
    std::fs::write(dir.join("jac.f"), src).unwrap();
    let changed = run(&dir, &["analyze", "jac.f", "--dump", "loops"]);
    assert!(
        text(&changed).contains("bounds 1..10"),
        "{}",
        text(&changed)
    );
    let missing = run(&dir, &["show", "loop", "jac.f:99"]);
    assert!(!missing.status.success() && text(&missing).contains("jac.f:99"));
}

#[test]
fn refinements_change_verdicts_and_say_so() {
    let dir = scratch("refine");
    std::fs::copy(
        root().join("analyzer/test_data/nonconstant_distance_dep.f"),
        dir.join("n.f"),
    )
    .unwrap();
    let before = text(&run(&dir, &["analyze", "n.f"]));
    let line = before
        .lines()
        .find(|l| l.contains(": sequential"))
        .expect("a sequential loop")
        .to_string();
    let at = line.split(": loop").next().unwrap().to_string(); // n.f:LINE
    let r = run(&dir, &["refine", "parallel", &at]);
    let out = text(&r);
    assert!(r.status.success(), "{out}");
    assert!(
        out.contains("recorded refinement #1")
            && out.contains(&format!("{at}: loop"))
            && out.contains("parallel"),
        "{out}"
    );
    let after = text(&run(&dir, &["analyze", "n.f"]));
    let changed = after
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{at}:")))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        changed.contains("parallel") && changed.contains("overridden: loop at"),
        "{changed}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["analyze", "n.f", "--json"]).stdout).unwrap();
    let l = json["units"][0]["loops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| format!("n.f:{}", l["line"]) == at)
        .unwrap()
        .clone();
    assert_eq!(l["verdict"], "parallel");
    assert!(!l["overridden_by"].as_array().unwrap().is_empty());
    let list = text(&run(&dir, &["refine", "list"]));
    assert!(list.contains("#1: loop at"), "{list}");
    assert!(run(&dir, &["refine", "remove", "1"]).status.success());
    let back = text(&run(&dir, &["analyze", "n.f"]));
    assert_eq!(
        back, before,
        "removing the refinement restores the analysis"
    );
    // Bad refinements are refused with a message.
    for bad in [
        vec!["refine", "reduction", &at, "foo:x"],
        vec!["refine", "private", "n.f", "x"],
        vec!["refine", "distribute", "a", "(CYCLIC)"],
        vec!["refine", "remove", "42"],
    ] {
        let o = run(&dir, &bad);
        assert!(
            !o.status.success() && text(&o).contains("error"),
            "{bad:?}: {}",
            text(&o)
        );
    }
}

#[test]
fn foreign_or_corrupt_databases_are_refused_untouched() {
    let dir = scratch("bad");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    std::fs::write(dir.join("notes.db"), b"my precious notes, not a database\n").unwrap();
    let o = run(&dir, &["analyze", "jac.f", "--db", "notes.db"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("notes.db") && text(&o).contains("not a SQLite database"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read(dir.join("notes.db")).unwrap(),
        b"my precious notes, not a database\n"
    );
    let o = run(&dir, &["analyze", "jac.f", "--no-db"]);
    assert!(o.status.success());
    assert!(
        !dir.join("sapfor.db").exists(),
        "--no-db writes no database"
    );
}
