//! Several connections on one file: a reader never sees half an analysis while a writer
//! stores them; a writer waits (busy timeout) for another writer instead of failing.

mod common;

use analyzer::overrides::{LoopRef, Override};
use common::*;
use database::{Db, DbError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[test]
fn reader_always_sees_a_complete_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let db = Db::open(&path).unwrap();
    let (_, jac, kj) = record(&db, &[jacobi()]);
    let (_, gs, kg) = record(&db, &[gauss_seidel()]);
    drop(db);
    let expected = [jac.clone(), gs.clone()];
    let done = Arc::new(AtomicBool::new(false));
    // The writer starts when the reader has read once.
    let (started_tx, started_rx) = mpsc::channel::<()>();

    let writer = {
        let (path, done, gs) = (path.clone(), done.clone(), gs.clone());
        std::thread::spawn(move || {
            let mut db = Db::open(&path).unwrap();
            started_rx.recv().unwrap();
            for i in 0..30 {
                let (k, r) = if i % 2 == 0 { (&kj, &jac) } else { (&kg, &gs) };
                db.store_analysis(k, r).unwrap();
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let reader = {
        let path = path.clone();
        std::thread::spawn(move || {
            let db = Db::open(&path).unwrap();
            let (mut reads, mut seen_some) = (0, 0);
            loop {
                let finished = done.load(Ordering::SeqCst);
                if let Some((id, rec)) = db.latest_analysis().unwrap() {
                    assert!(expected.contains(&rec), "a torn analysis #{id}");
                    seen_some += 1;
                }
                // The report and the facts of one snapshot belong together.
                db.snapshot(|db| {
                    if let Some((id, rec)) = db.latest_analysis()? {
                        assert_eq!(db.report_json(id)?, rec.report);
                        assert_eq!(db.load_analysis(id)?, rec);
                    }
                    Ok(())
                })
                .unwrap();
                reads += 1;
                if reads == 1 {
                    started_tx.send(()).unwrap();
                }
                if finished {
                    break;
                }
            }
            (reads, seen_some)
        })
    };
    writer.join().unwrap();
    let (reads, seen) = reader.join().unwrap();
    assert!(
        reads > 2 && seen >= 3,
        "{reads} reads, {seen} with an analysis"
    );
    let db = Db::open(&path).unwrap();
    assert_eq!(db.latest_analysis().unwrap().unwrap().1, gs);
    assert_eq!(db.integrity_check().unwrap(), "ok");
}

/// Holds the write lock for `hold` inside a store, signalling when it has it.
fn hold_write_lock(
    path: &std::path::Path,
    hold: Duration,
) -> (std::thread::JoinHandle<()>, mpsc::Receiver<()>) {
    let (tx, rx) = mpsc::channel();
    let path = path.to_path_buf();
    let h = std::thread::spawn(move || {
        let mut db = Db::open(&path).unwrap();
        let (_, rec, key) = record(&db, &[jacobi()]);
        db.store_analysis_with_hook(&key, &rec, &mut || {
            tx.send(()).unwrap();
            std::thread::sleep(hold);
        })
        .unwrap();
    });
    (h, rx)
}

#[test]
fn a_second_writer_waits_for_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let mut db = Db::open(&path).unwrap();
    let (h, rx) = hold_write_lock(&path, Duration::from_millis(1000));
    rx.recv().unwrap();
    let t = Instant::now();
    let o = Override::Sequential {
        at: LoopRef {
            file: "jac.f".into(),
            line: 16,
        },
    };
    let id = db.add_override(&o).unwrap();
    let waited = t.elapsed();
    h.join().unwrap();
    assert!(
        waited >= Duration::from_millis(500),
        "did not wait for the lock: {waited:?}"
    );
    assert_eq!(db.overrides().unwrap(), vec![(id, o)]);
    assert!(db.latest_analysis().unwrap().is_some());
}

#[test]
fn busy_after_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let mut db = Db::open(&path).unwrap();
    db.set_busy_timeout(Duration::from_millis(100)).unwrap();
    let (h, rx) = hold_write_lock(&path, Duration::from_millis(1500));
    rx.recv().unwrap();
    let err = db
        .add_override(&Override::NoDistribute { array: "a".into() })
        .unwrap_err();
    assert!(matches!(err, DbError::Busy { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    // Readers are not blocked by the writer.
    assert!(db.overrides().unwrap().is_empty());
    h.join().unwrap();
    db.add_override(&Override::NoDistribute { array: "a".into() })
        .unwrap();
}
