//! Shared helpers of the database tests.
#![allow(dead_code)]

use analyzer::report::Analysis;
use database::{AnalysisKey, AnalysisRecord, Db};
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn is_fortran(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("f" | "f90" | "for" | "f77" | "fdv")
    )
}

/// The Fortran files of every sample program: one program per directory of samples/.
pub fn sample_programs() -> Vec<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let progs: Vec<Vec<PathBuf>> = dirs
        .iter()
        .map(|d| {
            let mut v: Vec<PathBuf> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| is_fortran(p))
                .collect();
            v.sort();
            v
        })
        .filter(|v| !v.is_empty())
        .collect();
    assert!(
        progs.len() >= 5,
        "expected the sample programs, found {progs:?}"
    );
    progs
}

/// An analyzer fixture.
pub fn fixture(name: &str) -> PathBuf {
    let p = repo().join("analyzer/test_data").join(name);
    assert!(p.is_file(), "missing analyzer fixture {}", p.display());
    p
}

pub fn analyze(files: &[PathBuf]) -> Analysis {
    analyzer::report::analyze(files, &Default::default())
}

/// Analyze `files` and make the record and key for `db`.
pub fn record(db: &Db, files: &[PathBuf]) -> (Analysis, AnalysisRecord, AnalysisKey) {
    let a = analyze(files);
    let rec = AnalysisRecord::from_analysis(&a, db);
    let key = rec.key("test-options");
    (a, rec, key)
}

pub fn jacobi() -> PathBuf {
    repo().join("samples/jacobi/jac.f")
}

pub fn gauss_seidel() -> PathBuf {
    repo().join("samples/gauss_seidel/gs.f")
}
