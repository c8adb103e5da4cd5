//! User refinements, schemes, artifacts, runs, the export, and a project directory moved as a
//! whole.

mod common;

use analyzer::overrides::{LoopRef, Override};
use common::*;
use database::{ArtifactRecord, Db, DbError, RunRecord, SchemeRecord};
use serde_json::json;

fn at(file: &str, line: u32) -> LoopRef {
    LoopRef {
        file: file.into(),
        line,
    }
}

fn every_kind() -> Vec<Override> {
    vec![
        Override::Parallel {
            at: at("jac.f", 16),
        },
        Override::Sequential {
            at: at("samples/jacobi/jac.f", 18),
        },
        Override::Private {
            at: at("jac.f", 16),
            var: "eps".into(),
        },
        Override::Reduction {
            at: at("jac.f", 16),
            op: "max".into(),
            var: "eps".into(),
        },
        Override::NoDistribute { array: "b".into() },
        Override::Distribute {
            array: "a".into(),
            formats: vec!["BLOCK".into(), "*".into()],
        },
        Override::Machine {
            key: "tstart_us".into(),
            value: "7".into(),
        },
    ]
}

#[test]
fn overrides_add_list_remove() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let mut db = Db::open(&path).unwrap();
    assert!(db.overrides().unwrap().is_empty());
    let all = every_kind();
    let ids: Vec<i64> = all.iter().map(|o| db.add_override(o).unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), all.len(), "distinct ids");
    let listed = db.overrides().unwrap();
    assert_eq!(
        listed,
        ids.iter()
            .copied()
            .zip(all.iter().cloned())
            .collect::<Vec<_>>()
    );
    // The same refinement twice is recorded once.
    assert_eq!(db.add_override(&all[2]).unwrap(), ids[2]);
    assert_eq!(db.overrides().unwrap().len(), all.len());
    // Notes.
    assert_eq!(db.override_note(ids[0]).unwrap(), None);
    assert_eq!(
        db.add_override_with_note(&all[0], "seen in the profile")
            .unwrap(),
        ids[0]
    );
    assert_eq!(
        db.override_note(ids[0]).unwrap().as_deref(),
        Some("seen in the profile")
    );
    assert!(matches!(db.override_note(12345), Err(DbError::NotFound(_))));
    // Remove.
    assert!(db.remove_override(ids[1]).unwrap());
    assert!(!db.remove_override(ids[1]).unwrap());
    let left: Vec<Override> = db
        .overrides()
        .unwrap()
        .into_iter()
        .map(|(_, o)| o)
        .collect();
    assert_eq!(left.len(), all.len() - 1);
    assert!(!left.contains(&all[1]));
    // Ids are never reused: the last one removed and added again gets a new id.
    let last = *ids.last().unwrap();
    assert!(db.remove_override(last).unwrap());
    let again = db.add_override(all.last().unwrap()).unwrap();
    assert!(again > last, "{again} reuses an id <= {last}");
    drop(db);

    // Stored as the tagged JSON of the Override, one row per kind, loop refs in columns.
    let raw = rusqlite::Connection::open(&path).unwrap();
    let mut st = raw
        .prepare("SELECT kind, file, line, body FROM overrides ORDER BY id")
        .unwrap();
    let rows: Vec<(String, Option<String>, Option<u32>, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    for ((kind, file, line, body), o) in rows.iter().zip(left.iter()) {
        assert_eq!(kind, o.kind());
        assert_eq!(file.as_deref(), o.loop_ref().map(|a| a.file.as_str()));
        assert_eq!(*line, o.loop_ref().map(|a| a.line));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v, serde_json::to_value(o).unwrap());
        assert_eq!(serde_json::from_value::<Override>(v).unwrap(), *o);
    }
    // Reopened, they are still there.
    let db = Db::open(&path).unwrap();
    assert_eq!(db.overrides().unwrap().len(), all.len() - 1);
}

fn scheme(name: &str, total: f64, chosen: bool) -> SchemeRecord {
    SchemeRecord {
        expert: "dvm".into(),
        name: name.into(),
        distribution: json!({"a": ["BLOCK", "BLOCK"], "b": ["BLOCK", "*"]}),
        alignment: json!([{"array": "b", "with": "a", "rule": "B(i,j) with A(i,j)"}, {"note": 1}]),
        loops: json!([{"line": 18, "on": "A(I,J)", "reduction": ["max:eps"]}]),
        regions: json!([]),
        machine: json!({"processes": [2, 2], "tstart_us": 7.25}),
        cost_computation: total * 0.8,
        cost_communication: total * 0.15,
        cost_transfers: 0.1 + 0.2,
        total,
        chosen,
    }
}

#[test]
fn schemes_artifacts_runs_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let mut db = Db::open(&path).unwrap();
    let empty = db.export_json().unwrap();
    assert_eq!(empty["format"], "sapfor-export");
    assert_eq!(empty["version"], 1);
    assert!(empty["analysis"].is_null());

    let (a, rec, key) = record(&db, &[jacobi()]);
    let aid = db.store_analysis(&key, &rec).unwrap();
    assert!(matches!(
        db.store_schemes(aid + 100, &[], &[]),
        Err(DbError::NotFound(_))
    ));
    let first = db.store_schemes(aid, &[scheme("old", 9.0, false)], &[]).unwrap();
    let s = vec![
        scheme("rows", 1.0 / 3.0, true),
        scheme("cols", 2.5e-7, false),
    ];
    let rejected = vec![database::RejectedRecord {
        expert: "dvm".into(),
        name: "(BLOCK,BLOCK)".into(),
        reasons: serde_json::json!([{"at": {"file": "jac.f", "unit": "jac"}, "line": 12, "text": "cannot be aligned"}]),
    }];
    let ids = db.store_schemes(aid, &s, &rejected).unwrap();
    assert_eq!(ids.len(), 2);
    assert!(!ids.contains(&first[0]));
    assert_eq!(db.rejected(aid).unwrap(), rejected);
    assert_eq!(db.export_json().unwrap()["rejected"], serde_json::json!(rejected));
    let back = db.schemes(aid).unwrap();
    assert_eq!(
        back,
        ids.iter()
            .copied()
            .zip(s.iter().cloned())
            .collect::<Vec<_>>()
    );
    // The derived alignment rows.
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        let n: i64 = raw
            .query_row(
                "SELECT count(*) FROM alignments WHERE scheme_id = ?1 AND array = 'b'",
                [ids[0]],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1);
        let n: i64 = raw
            .query_row("SELECT count(*) FROM alignments", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 4);
    }

    let art = ArtifactRecord {
        kind: "fdv".into(),
        path: Some("out/jac.fdv".into()),
        text: "!DVM$ DISTRIBUTE A(BLOCK,BLOCK)\n".into(),
    };
    assert!(matches!(
        db.store_artifact(999, &art),
        Err(DbError::NotFound(_))
    ));
    let art_id = db.store_artifact(ids[0], &art).unwrap();
    assert_eq!(db.artifacts(ids[0]).unwrap(), vec![(art_id, art.clone())]);
    assert!(db.artifacts(ids[1]).unwrap().is_empty());
    let run = RunRecord {
        command: "mpirun -np 4 ./jac".into(),
        processes: 4,
        threads: 2,
        wall_seconds: 1.234_567_890_123,
        loops: json!([{"line": 18, "seconds": 0.5}]),
        communication: json!({"shadow_renew": 12, "bytes": 1.5e9}),
    };
    assert!(matches!(db.store_run(999, &run), Err(DbError::NotFound(_))));
    let run_id = db.store_run(art_id, &run).unwrap();
    assert_eq!(db.runs(art_id).unwrap(), vec![(run_id, run.clone())]);
    let o = Override::NoDistribute { array: "b".into() };
    let oid = db.add_override_with_note(&o, "too small").unwrap();

    let doc = db.export_json().unwrap();
    assert_eq!(doc["format"], "sapfor-export");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["schema_version"], 3);
    assert_eq!(doc["analysis"]["id"], aid);
    assert_eq!(doc["analysis"]["report"], a.to_json());
    assert_eq!(
        doc["analysis"]["units"],
        serde_json::to_value(&rec.units).unwrap()
    );
    assert_eq!(doc["analysis"]["key"], serde_json::to_value(&key).unwrap());
    assert_eq!(doc["files"], serde_json::to_value(&rec.files).unwrap());
    assert!(doc["files"][0]["text"]
        .as_str()
        .unwrap()
        .contains("PROGRAM JAC"));
    assert_eq!(
        doc["overrides"],
        json!([{"id": oid, "note": "too small", "override": o}])
    );
    assert_eq!(doc["schemes"].as_array().unwrap().len(), 2);
    assert_eq!(
        doc["schemes"][0]["scheme"],
        serde_json::to_value(&s[0]).unwrap()
    );
    assert_eq!(
        doc["schemes"][0]["artifacts"][0]["artifact"],
        serde_json::to_value(&art).unwrap()
    );
    assert_eq!(
        doc["schemes"][0]["artifacts"][0]["runs"][0]["run"],
        serde_json::to_value(&run).unwrap()
    );
    // The export is plain JSON text and reads back the same.
    let text = serde_json::to_string(&doc).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        doc
    );

    // Replacing the schemes drops their artifacts and runs.
    db.store_schemes(aid, &[], &[]).unwrap();
    assert!(db.schemes(aid).unwrap().is_empty());
    assert!(db.rejected(aid).unwrap().is_empty());
    assert!(db.artifacts(ids[0]).unwrap().is_empty());
    assert!(db.runs(art_id).unwrap().is_empty());
    assert_eq!(db.integrity_check().unwrap(), "ok");
}

#[test]
fn nan_costs_survive() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(&dir.path().join("sapfor.db")).unwrap();
    let (_, rec, key) = record(&db, &[jacobi()]);
    let aid = db.store_analysis(&key, &rec).unwrap();
    let mut s = scheme("x", f64::INFINITY, false);
    s.cost_transfers = f64::NAN;
    db.store_schemes(aid, &[s], &[]).unwrap();
    let (_, back) = &db.schemes(aid).unwrap()[0];
    assert!(back.cost_transfers.is_nan());
    assert_eq!(back.total, f64::INFINITY);
}

#[test]
fn moved_project_resolves_under_the_new_root() {
    let outer = tempfile::tempdir().unwrap();
    let proj = outer.path().join("proj");
    std::fs::create_dir_all(proj.join("src/inc")).unwrap();
    std::fs::copy(fixture("include_common.f"), proj.join("src/main.f")).unwrap();
    std::fs::copy(
        fixture("include_common.inc"),
        proj.join("src/include_common.inc"),
    )
    .unwrap();
    let db_path = proj.join("sapfor.db");
    let (key, rec) = {
        let mut db = Db::open(&db_path).unwrap();
        assert_eq!(db.root(), proj.as_path());
        let (_, rec, key) = record(&db, &[proj.join("src/main.f")]);
        let paths: Vec<&str> = rec.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["src/main.f", "src/include_common.inc"]);
        assert_eq!(rec.units[0].file, "src/main.f");
        assert_eq!(db.relative(&proj.join("src/inc/../main.f")), "src/main.f");
        assert_eq!(
            db.relative(&outer.path().join("elsewhere/x.f")),
            "../elsewhere/x.f"
        );
        db.store_analysis(&key, &rec).unwrap();
        (key, rec)
    };
    let moved = outer.path().join("moved/deeper");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&proj, &moved).unwrap();
    assert!(!proj.exists());

    let db = Db::open(&moved.join("sapfor.db")).unwrap();
    assert_eq!(db.root(), moved.as_path());
    let id = db
        .find_analysis(&key)
        .unwrap()
        .expect("the same key after the move");
    assert_eq!(db.load_analysis(id).unwrap(), rec);
    for (path, hash, _) in db.analysis_inputs(id).unwrap() {
        let file = db.resolve(&path);
        assert!(file.starts_with(&moved), "{}", file.display());
        assert_eq!(database::content_hash(&std::fs::read(&file).unwrap()), hash);
    }
    assert_eq!(db.resolve("src/main.f"), moved.join("src/main.f"));
    assert_eq!(db.resolve("../x.f"), outer.path().join("moved/x.f"));
    let found = db
        .find_loop(moved.join("src/main.f").to_str().unwrap(), 10)
        .unwrap();
    assert_eq!(
        found.len(),
        1,
        "loop at main.f:10 found through an absolute path under the new root"
    );
    // Analyzing the moved files gives the same key and record.
    // (The rendered report keeps the paths as the user gave them: absolute ones here.)
    let (_, rec2, key2) = record(&db, &[moved.join("src/main.f")]);
    assert_eq!(key2, key);
    assert_eq!(
        (&rec2.files, &rec2.units, &rec2.diagnostics),
        (&rec.files, &rec.units, &rec.diagnostics)
    );
}
