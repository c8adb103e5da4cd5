//! Files that are not ours are refused and left byte-identical: a database from a newer
//! sapfor, garbage, a truncated file, another application's SQLite database. Empty files and
//! empty SQLite databases are initialized.

use database::{Db, DbError, APPLICATION_ID, SCHEMA_VERSION};
use std::path::Path;

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

fn no_sidecars(p: &Path) {
    for ext in ["-wal", "-journal"] {
        let side = format!("{}{ext}", p.display());
        let len = std::fs::metadata(&side).map(|m| m.len()).unwrap_or(0);
        assert_eq!(len, 0, "{side} was written");
    }
}

#[test]
fn too_new_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE future (x INTEGER); INSERT INTO future VALUES (1);")
            .unwrap();
        c.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
    }
    let before = bytes(&path);
    let err = Db::open(&path).unwrap_err();
    match &err {
        DbError::TooNew {
            found, supported, ..
        } => {
            assert_eq!(*found, 99);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        e => panic!("expected TooNew, got {e:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(
        msg.contains("newer sapfor (schema 99)") && msg.contains("up to 3"),
        "{msg}"
    );
    assert_eq!(bytes(&path), before);
    no_sidecars(&path);
}

/// Also when it is in WAL mode with the newer version only in the log (never checkpointed).
#[test]
fn too_new_in_wal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    drop(Db::open(&path).unwrap());
    let c = rusqlite::Connection::open(&path).unwrap();
    c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    c.pragma_update(None, "user_version", 7).unwrap();
    let before = bytes(&path);
    let err = Db::open(&path).unwrap_err();
    assert!(matches!(err, DbError::TooNew { found: 7, .. }), "{err:?}");
    assert_eq!(bytes(&path), before);
    drop(c);
}

#[test]
fn garbage_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        (
            "garbage.db",
            b"this is not a database at all, just some text\n".repeat(100),
        ),
        ("short.db", b"SQLite format 3\0tiny".to_vec()),
        ("header-only.db", {
            let mut v = b"SQLite format 3\0".to_vec();
            v.extend(std::iter::repeat_n(0xA5u8, 4096 - 16));
            v
        }),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &content).unwrap();
        let err = Db::open(&path).unwrap_err();
        assert!(
            matches!(err, DbError::NotADatabase { .. }),
            "{name}: {err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(&path.display().to_string()) && msg.contains("is not a SQLite database"),
            "{msg}"
        );
        assert_eq!(bytes(&path), content, "{name} was modified");
        no_sidecars(&path);
    }
}

#[test]
fn a_directory_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let err = Db::open(dir.path()).unwrap_err();
    assert!(matches!(err, DbError::NotADatabase { .. }), "{err:?}");
}

#[test]
fn foreign_sqlite_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // Another application's database: its own table, application_id 0.
    let path = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE contacts (name TEXT, phone TEXT);
             INSERT INTO contacts VALUES ('ada', '123');",
        )
        .unwrap();
    }
    let before = bytes(&path);
    let err = Db::open(&path).unwrap_err();
    assert!(matches!(err, DbError::Foreign { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert_eq!(bytes(&path), before);
    no_sidecars(&path);

    // Another application's id, even without tables.
    let path = dir.path().join("tagged.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.pragma_update(None, "application_id", 0x1234_5678)
            .unwrap();
    }
    let before = bytes(&path);
    let err = Db::open(&path).unwrap_err();
    assert!(matches!(err, DbError::Foreign { .. }), "{err:?}");
    assert!(err.to_string().contains("0x12345678"), "{err}");
    assert_eq!(bytes(&path), before);
}

#[test]
fn empty_files_are_initialized() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let db = Db::open(&empty).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    drop(db);
    // An empty SQLite database (no tables, no id) is ours to initialize too.
    let blank = dir.path().join("blank.db");
    {
        let c = rusqlite::Connection::open(&blank).unwrap();
        c.execute_batch("VACUUM").unwrap();
    }
    let db = Db::open(&blank).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    let c = rusqlite::Connection::open(&blank).unwrap();
    let id: i32 = c
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, APPLICATION_ID);
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // A missing directory is an error, not a panic.
    let err = Db::open(&dir.path().join("no/such/dir/sapfor.db")).unwrap_err();
    assert!(matches!(err, DbError::Io { .. }), "{err:?}");
}

/// A header changed by hand (schema version 1 over the tables of the current schema, or -1),
/// and pages overwritten in the middle of the file: each is refused with what is wrong and
/// what to do, and the file is left as it was (issue 15: these gave "table runs already
/// exists", "Integer -1 out of range", or nothing at all).
#[test]
fn damaged_headers_and_pages_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.db");
    drop(Db::open(&good).unwrap()); // the schema alone fills a few dozen pages
    for (name, version) in [("v1.db", 1i64), ("vneg.db", -1)] {
        let p = dir.path().join(name);
        std::fs::copy(&good, &p).unwrap();
        {
            let c = rusqlite::Connection::open(&p).unwrap();
            c.pragma_update(None, "user_version", version).unwrap();
        }
        let before = bytes(&p);
        let err = Db::open(&p).unwrap_err();
        assert!(matches!(err, DbError::Damaged { .. }), "{name}: {err}");
        let msg = err.to_string();
        assert!(msg.contains("is damaged") && msg.contains("restore it from a backup"), "{msg}");
        assert_eq!(bytes(&p), before, "{name} was modified");
    }
    let p = dir.path().join("pages.db");
    std::fs::copy(&good, &p).unwrap();
    let mut b = bytes(&p);
    assert!(b.len() > 4 * 4096, "{} bytes", b.len());
    for x in &mut b[3 * 4096..3 * 4096 + 256] {
        *x = 0xde;
    }
    std::fs::write(&p, &b).unwrap();
    let err = Db::open(&p).unwrap_err();
    assert!(matches!(err, DbError::Damaged { .. }), "{err}");
    assert_eq!(bytes(&p), b);
}
