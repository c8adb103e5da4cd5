//! A digest of the analysis and expert sources this binary is built from
//! (`SAPFOR_ANALYSIS_DIGEST`): part of the key under which the project database keeps an
//! analysis, so that a build with other analysis code analyzes again instead of reusing
//! what an older one stored for the same files (the version number alone does not change
//! between builds from the repository).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut files = vec![];
    for d in ["analyzer/src", "experts/src"] {
        let dir = root.join(d);
        println!("cargo:rerun-if-changed={}", dir.display());
        walk(&dir, &mut files);
    }
    files.sort();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in &files {
        f.strip_prefix(&root).unwrap_or(f).hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    let digest = if files.is_empty() { "unknown".to_string() } else { format!("{:016x}", h.finish()) };
    println!("cargo:rustc-env=SAPFOR_ANALYSIS_DIGEST={digest}");
}
