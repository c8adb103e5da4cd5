//! A writer killed (SIGKILL) in the middle of storing an analysis leaves a sound database whose
//! current analysis is the previous complete one. The writer is the `slow_writer` example.

mod common;

use common::*;
use database::Db;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `slow_writer` example binary next to this test's directory (`cargo test` builds the
/// examples of the package); built on demand when only this test target was built.
fn slow_writer() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let bin = profile_dir
        .join("examples")
        .join(format!("slow_writer{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "-q", "-p", "database", "--example", "slow_writer"])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        if let Some(target) = profile_dir.parent() {
            cmd.env("CARGO_TARGET_DIR", target);
        }
        let status = cmd
            .status()
            .expect("running cargo to build the slow_writer example");
        assert!(status.success(), "building the slow_writer example failed");
    }
    assert!(bin.exists(), "no slow_writer example at {}", bin.display());
    bin
}

/// Kills the child if the test fails before it does.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn killed_writer_leaves_the_previous_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sapfor.db");
    let marker = dir.path().join("in-transaction");
    let mut db = Db::open(&path).unwrap();
    let (_, jac, kj) = record(&db, &[jacobi()]);
    let (_, gs, kg) = record(&db, &[gauss_seidel()]);
    let before = db.store_analysis(&kj, &jac).unwrap();
    drop(db);

    let mut guard = KillOnDrop(
        Command::new(slow_writer())
            .arg(&path)
            .arg(&marker)
            .args(["--sleep", "60", "--copies", "600"])
            .arg(gauss_seidel())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut guard.0;
    let t = Instant::now();
    while !marker.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("slow_writer exited before its commit ({status}): {err}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "slow_writer never reached its commit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The transaction really wrote into the log before it was killed.
    let wal = std::fs::metadata(format!("{}-wal", path.display()))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(wal > 16 * 1024, "only {wal} bytes in the write-ahead log");
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(!status.success());

    let mut db = Db::open(&path).unwrap();
    assert_eq!(db.integrity_check().unwrap(), "ok");
    let (id, rec) = db.latest_analysis().unwrap().unwrap();
    assert_eq!(id, before);
    assert_eq!(rec, jac);
    assert_eq!(db.find_analysis(&kg.clone()).unwrap(), None);
    // Still writable; without --sleep the example commits.
    let out = Command::new(slow_writer())
        .arg(&path)
        .arg(&marker)
        .arg(gauss_seidel())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, rec) = db.latest_analysis().unwrap().unwrap();
    assert_eq!(rec.units, gs.units);
    let again = db.store_analysis(&kj, &jac).unwrap();
    assert_eq!(db.latest_analysis().unwrap().unwrap(), (again, jac));
}
