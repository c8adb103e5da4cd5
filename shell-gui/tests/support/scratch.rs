//! Scratch directories of the integration tests (every crate's tests include this file with
//! `#[path]`): created empty under the system's temporary directory, removed when the test
//! passes, kept when it fails (the path is printed) so that its files can be looked at. Tests
//! build and run many programs (a Jacobi writes 68 MB), so nothing may be left behind.

#![allow(dead_code)]

use std::ops::Deref;
use std::path::{Path, PathBuf};

pub struct Scratch(PathBuf);

impl Scratch {
    /// `<tmp>/sapfor-<prefix>-<tag>-<pid>`, emptied first.
    pub fn new(prefix: &str, tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("sapfor-{prefix}-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("cannot create {}: {e}", d.display()));
        Scratch(d)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test files kept in {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
