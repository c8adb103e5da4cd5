//! A database written with schema version 1 (committed fixture) is upgraded to version 2 by
//! `Db::open`, keeping its data; a failing step leaves the database at its old version.

use analyzer::overrides::{LoopRef, Override};
use database::{AnalysisKey, Db, RunRecord, SCHEMA_VERSION, V1_DDL};
use std::path::{Path, PathBuf};

const FIXTURE: &str = include_str!("fixtures/schema_v1.sql");

fn v1_database(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("sapfor.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(FIXTURE).unwrap();
    conn.execute_batch(extra).unwrap();
    let v: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 1);
    path
}

fn columns(conn: &rusqlite::Connection, table: &str) -> Vec<String> {
    let mut st = conn
        .prepare(&format!(
            "SELECT name FROM pragma_table_info('{table}') ORDER BY cid"
        ))
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(|x| x.unwrap())
        .collect()
}

fn schema_objects(path: &Path) -> Vec<(String, String, String)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut st = conn
        .prepare("SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect()
}

#[test]
fn fixture_is_the_v1_ddl_plus_rows() {
    assert!(
        FIXTURE.starts_with(V1_DDL),
        "tests/fixtures/schema_v1.sql must start with the crate's v1 DDL (src/schema_v1.sql)"
    );
    assert_eq!(SCHEMA_VERSION, 3);
}

#[test]
fn v1_is_upgraded_and_keeps_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = v1_database(dir.path(), "");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        assert!(!columns(&conn, "overrides").contains(&"note".to_string()));
        assert!(columns(&conn, "runs").is_empty());
    }
    let mut db = Db::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 3);

    // The refinements are still there, and now have notes.
    let ov = db.overrides().unwrap();
    assert_eq!(
        ov,
        vec![
            (
                1,
                Override::Private {
                    at: LoopRef {
                        file: "tiny.f".into(),
                        line: 3
                    },
                    var: "t".into()
                }
            ),
            (
                2,
                Override::Machine {
                    key: "tstart_us".into(),
                    value: "7".into()
                }
            ),
        ]
    );
    assert_eq!(db.override_note(1).unwrap(), None);

    // The analysis is loaded from the v1 tables.
    let (id, rec) = db.latest_analysis().unwrap().unwrap();
    assert_eq!(id, 1);
    assert_eq!(rec.tool_version, "sapfor 0.1.0");
    assert_eq!(rec.files.len(), 1);
    assert_eq!(
        rec.files[0].hash,
        database::content_hash(rec.files[0].text.as_bytes())
    );
    let u = &rec.units[0];
    assert_eq!(
        (u.name.as_str(), u.kind.as_str(), u.file.as_str()),
        ("tiny", "program", "tiny.f")
    );
    assert_eq!(u.loops.len(), 1);
    assert_eq!(u.loops[0].verdict, "across");
    assert_eq!(u.loops[0].iterations, Some(9));
    assert_eq!(u.loops[0].dependences[0].distance, vec![Some(1)]);
    assert_eq!(u.blocks[0].lines, vec![3, 4, 5]);
    assert_eq!(
        u.blocks[0].writes["a"].display_with("A", &[Some((1, 10))]),
        "A(2:10)"
    );
    assert_eq!(u.symbols[0].bounds, vec![Some((1, 10))]);
    // The stored report is the loop, as the table rows say.
    let report = db.report_json(1).unwrap();
    assert_eq!(
        report["units"][0]["loops"][0],
        serde_json::to_value(&u.loops[0]).unwrap()
    );
    let key = AnalysisKey {
        files: vec![("tiny.f".into(), rec.files[0].hash.clone())],
        options: "fixture-options".into(),
    };
    assert_eq!(db.find_analysis(&key).unwrap(), Some(1));
    let found = db.find_loop("tiny.f", 3).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].block.as_ref().unwrap().writes["a"], "A(2:10)");

    // Schemes and artifacts survive; runs (new in v2) can be attached to them.
    let schemes = db.schemes(1).unwrap();
    assert_eq!(schemes.len(), 1);
    assert_eq!(schemes[0].1.total, 1.75);
    assert!(schemes[0].1.chosen);
    let arts = db.artifacts(schemes[0].0).unwrap();
    assert_eq!(arts.len(), 1);
    assert_eq!(arts[0].1.path.as_deref(), Some("tiny.fdv"));
    let run = RunRecord {
        command: "./tiny".into(),
        processes: 4,
        threads: 1,
        wall_seconds: 0.25,
        loops: serde_json::json!([]),
        communication: serde_json::json!({}),
    };
    let rid = db.store_run(arts[0].0, &run).unwrap();
    assert_eq!(db.runs(arts[0].0).unwrap(), vec![(rid, run)]);
    // Rejected variants (new in v3): none were stored by v1; they can be now.
    assert!(db.rejected(1).unwrap().is_empty());
    let nid = db
        .add_override_with_note(
            &Override::Parallel {
                at: LoopRef {
                    file: "tiny.f".into(),
                    line: 3,
                },
            },
            "checked by hand",
        )
        .unwrap();
    assert_eq!(
        db.override_note(nid).unwrap().as_deref(),
        Some("checked by hand")
    );
    assert_eq!(db.integrity_check().unwrap(), "ok");
    drop(db);

    // Reopening is a no-op, and the upgraded schema is the one a new database gets.
    let db = Db::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 3);
    drop(db);
    let fresh = dir.path().join("fresh").join("sapfor.db");
    std::fs::create_dir(fresh.parent().unwrap()).unwrap();
    drop(Db::open(&fresh).unwrap());
    assert_eq!(schema_objects(&path), schema_objects(&fresh));
}

/// A step that fails is rolled back as a whole: the database stays a valid version-1 one.
#[test]
fn a_failing_step_leaves_the_old_version() {
    let dir = tempfile::tempdir().unwrap();
    // Something in the way of the last statement of the v1 -> v2 step.
    let path = v1_database(dir.path(), "ALTER TABLE overrides ADD COLUMN note TEXT;");
    let err = Db::open(&path).unwrap_err();
    // a column of the next version already there: the header does not match the tables
    assert!(matches!(err, database::DbError::Damaged { .. }), "{err:?}");
    assert!(err.to_string().contains("its header says schema version 1"), "{err}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 1);
    // The statements of the step before the failing one were rolled back.
    assert!(columns(&conn, "runs").is_empty());
    let idx: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'runs_artifact'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(idx, 0);
}
