//! Analyses survive the trip through the normalized tables: every sample program and a few
//! analyzer fixtures are analyzed, stored and loaded back equal.

mod common;

use common::*;
use database::{AnalysisRecord, Db};
use std::path::PathBuf;

fn programs() -> Vec<Vec<PathBuf>> {
    let mut v = sample_programs();
    for f in [
        "include_common.f",
        "common_subroutines.f",
        "equivalence_alias.f",
        "spf_hints.f90",
        "reductions_nest.f90",
        "maxloc_goto_skip.f",
        "io_in_loop_sequential.f",
        "do_while_labelled.f",
        "arithmetic_if.f",
        "parameter_expr_bounds.f",
    ] {
        v.push(vec![fixture(f)]);
    }
    v
}

#[test]
fn every_sample_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(&dir.path().join("sapfor.db")).unwrap();
    let (mut loops, mut blocks, mut symbols, mut commons, mut calls, mut includes) =
        (0, 0, 0, 0, 0, 0);
    for files in programs() {
        let (a, rec, key) = record(&db, &files);
        assert_eq!(rec.report, a.to_json());
        let id = db.store_analysis(&key, &rec).unwrap();
        assert_eq!(db.find_analysis(&key).unwrap(), Some(id));
        let back = db.load_analysis(id).unwrap();
        assert_eq!(back, rec, "round trip of {files:?}");
        assert_eq!(db.report_json(id).unwrap(), a.to_json());
        let (latest, latest_rec) = db.latest_analysis().unwrap().unwrap();
        assert_eq!(latest, id);
        assert_eq!(latest_rec, rec);

        // The loop records are exactly the report's loop objects, unit by unit.
        let report = a.to_json();
        let units = report["units"].as_array().unwrap();
        assert_eq!(units.len(), back.units.len());
        for (u, ju) in back.units.iter().zip(units) {
            assert_eq!(ju["name"], u.name.as_str());
            assert_eq!(ju["kind"], u.kind.as_str());
            assert_eq!(ju["line"], u.line);
            assert_eq!(serde_json::to_value(&u.loops).unwrap(), ju["loops"]);
        }
        assert_eq!(
            serde_json::Value::from(back.diagnostics.clone()),
            report["diagnostics"]
        );

        // The stored inputs are the analyzed files, relative to the project root.
        let inputs = db.analysis_inputs(id).unwrap();
        assert_eq!(inputs.len(), a.program.map.files.len());
        for ((path, hash, included), f) in inputs.iter().zip(&a.program.map.files) {
            assert_eq!(*included, f.included);
            let bytes = std::fs::read(db.resolve(path)).unwrap();
            assert_eq!(*hash, database::content_hash(&bytes), "{path}");
            includes += *included as usize;
        }
        for u in &back.units {
            loops += u.loops.len();
            blocks += u.blocks.len();
            symbols += u.symbols.len();
            commons += u.commons.len();
            calls += u.calls.len();
        }
    }
    // The round trips above were not of empty records.
    assert!(
        loops > 30 && blocks > 30 && symbols > 30,
        "{loops} {blocks} {symbols}"
    );
    assert!(
        commons > 0 && calls > 0 && includes > 0,
        "{commons} {calls} {includes}"
    );
    assert_eq!(db.integrity_check().unwrap(), "ok");
}

#[test]
fn diagnostics_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.f90");
    std::fs::write(
        &src,
        "program bad\n  implicit none\n  integer :: i\n  include 'missing.inc'\n  do i = 1, 10\n    x = i\n  end do\nend program bad\n",
    )
    .unwrap();
    let mut db = Db::open(&dir.path().join("sapfor.db")).unwrap();
    let (a, rec, key) = record(&db, &[src]);
    assert!(
        !rec.diagnostics.is_empty(),
        "the fixture should produce diagnostics"
    );
    assert_eq!(rec.files[0].path, "bad.f90");
    assert_eq!(rec.units[0].file, "bad.f90");
    let id = db.store_analysis(&key, &rec).unwrap();
    assert_eq!(db.load_analysis(id).unwrap(), rec);
    assert_eq!(db.report_json(id).unwrap(), a.to_json());
}

/// `load_analysis` reads the fact tables, not the report blob: a fact changed in a table
/// shows up in the loaded record while the stored report stays as rendered.
#[test]
fn load_reads_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let mut db = Db::open(&path).unwrap();
    let (a, rec, key) = record(&db, &[jacobi()]);
    let id = db.store_analysis(&key, &rec).unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();
    let n = raw
        .execute(
            "UPDATE loops SET verdict = 'sequential' WHERE line = 18",
            [],
        )
        .unwrap();
    assert_eq!(n, 1);
    raw.execute("DELETE FROM block_vars WHERE name = 'eps'", [])
        .unwrap();
    drop(raw);
    let back = db.load_analysis(id).unwrap();
    assert_ne!(back, rec);
    let l18 = back.units[0].loops.iter().find(|l| l.line == 18).unwrap();
    assert_eq!(l18.verdict, "sequential");
    assert!(back.units[0]
        .blocks
        .iter()
        .all(|b| !b.reads.contains_key("eps") && !b.writes.contains_key("eps")));
    assert_eq!(db.report_json(id).unwrap(), a.to_json());
}

#[test]
fn find_loop_by_file_suffix_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(&dir.path().join("sapfor.db")).unwrap();
    assert!(
        db.find_loop("jac.f", 18).unwrap().is_empty(),
        "no analysis yet"
    );
    let (_, rec, key) = record(&db, &[jacobi()]);
    let id = db.store_analysis(&key, &rec).unwrap();
    let stored = rec.files[0].path.clone();
    assert!(stored.ends_with("samples/jacobi/jac.f"), "{stored}");
    for query in [
        "jac.f",
        "jacobi/jac.f",
        stored.as_str(),
        jacobi().to_str().unwrap(),
    ] {
        let found = db.find_loop(query, 18).unwrap();
        assert_eq!(found.len(), 1, "{query}");
        let d = &found[0];
        assert_eq!(d.analysis_id, id);
        assert_eq!(d.unit, "jac");
        assert_eq!(d.file, stored);
        let want = rec.units[0].loops.iter().find(|l| l.line == 18).unwrap();
        assert_eq!(&d.loop_, want);
        assert_eq!(d.loop_.var, "j");
        assert_eq!(d.loop_.verdict, "parallel");
        let b = d.block.as_ref().expect("the block holding the loop");
        assert!(b.lines.contains(&18));
        assert_eq!(
            b.writes.get("a").map(String::as_str),
            Some("A(2:1999,2:1999)")
        );
        assert!(b.reads.contains_key("b"), "{b:?}");
        let rb = rec.units[0].blocks.iter().find(|x| x.num == b.num).unwrap();
        assert_eq!(rb.view(&rec.units[0].symbols), *b);
    }
    assert!(
        db.find_loop("ac.f", 18).unwrap().is_empty(),
        "suffix must be whole components"
    );
    assert!(db.find_loop("jac.f", 17).unwrap().is_empty());
    assert!(db.find_loop("gs.f", 18).unwrap().is_empty());
    // A sequential loop: its blockers come back too.
    let it = db.find_loop("jac.f", 16).unwrap();
    assert_eq!(it.len(), 1);
    assert_eq!(it[0].loop_.verdict, "sequential");
    assert!(!it[0].loop_.blockers.is_empty());
}

#[test]
fn a_new_analysis_replaces_older_ones_without_schemes() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(&dir.path().join("sapfor.db")).unwrap();
    let (_, jac, kj) = record(&db, &[jacobi()]);
    let (_, gs, kg) = record(&db, &[gauss_seidel()]);
    let first = db.store_analysis(&kj, &jac).unwrap();
    db.store_schemes(first, &[], &[]).unwrap();
    let second = db.store_analysis(&kg, &gs).unwrap();
    // No schemes: the first one is gone.
    assert!(db.load_analysis(first).is_err());
    assert_eq!(db.find_analysis(&kj).unwrap(), None);
    let third = db.store_analysis(&kj, &jac).unwrap();
    let scheme = serde_json::from_value::<database::SchemeRecord>(serde_json::json!({
        "expert": "dvm", "name": "s", "distribution": {}, "alignment": [], "loops": [],
        "regions": [], "machine": {}, "cost_computation": 1.0, "cost_communication": 0.0,
        "cost_transfers": 0.0, "total": 1.0, "chosen": true
    }))
    .unwrap();
    db.store_schemes(third, &[scheme], &[]).unwrap();
    let fourth = db.store_analysis(&kg, &gs).unwrap();
    assert!(db.load_analysis(second).is_err());
    // With schemes: kept, and can be made current again.
    assert_eq!(db.load_analysis(third).unwrap(), jac);
    assert_eq!(db.find_analysis(&kj).unwrap(), Some(third));
    assert_eq!(db.latest_analysis().unwrap().unwrap().0, fourth);
    db.set_current(third).unwrap();
    assert_eq!(db.latest_analysis().unwrap().unwrap(), (third, jac.clone()));
    assert!(db.set_current(9999).is_err());
    let _ = AnalysisRecord::from_analysis_at(&analyze(&[jacobi()]), db.root());
}
