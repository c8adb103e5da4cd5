//! The one rule for every file sapfor writes (`docs/files.md`): never onto a file the run
//! reads (an input, an INCLUDE file), the project database (or its SQLite side files), or
//! another output of the same run. Paths are compared after resolving symbolic links and
//! `..`, and by device and inode where the file exists, so `sub/../prog.f`, a link to the
//! directory, or a hard link all name the file they are.

use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Result};

/// What a run must not write onto, and what it has written so far.
#[derive(Default)]
pub struct Guard {
    protected: Vec<(Place, String)>,
    written: Vec<(Place, Option<PathBuf>)>,
}

#[derive(Clone, PartialEq, Eq)]
struct Place {
    path: PathBuf,
    inode: Option<(u64, u64)>,
}

impl Place {
    fn of(p: &Path) -> Place {
        Place {
            path: resolved(p),
            inode: inode(p),
        }
    }
    fn same(&self, o: &Place) -> bool {
        self.path == o.path || (self.inode.is_some() && self.inode == o.inode)
    }
}

#[cfg(unix)]
fn inode(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_: &Path) -> Option<(u64, u64)> {
    None
}

/// `p` with symbolic links and `..` resolved as far as it exists, the rest appended
/// lexically (an output need not exist yet).
pub fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    if let Ok(c) = std::fs::canonicalize(&abs) {
        return c;
    }
    // the longest existing prefix, canonicalized, then the remaining components
    let comps: Vec<Component> = abs.components().collect();
    for k in (1..comps.len()).rev() {
        let head: PathBuf = comps[..k].iter().collect();
        if let Ok(mut c) = std::fs::canonicalize(&head) {
            for x in &comps[k..] {
                match x {
                    Component::ParentDir => {
                        c.pop();
                    }
                    Component::CurDir => {}
                    other => c.push(other.as_os_str()),
                }
            }
            return c;
        }
    }
    abs
}

impl Guard {
    pub fn new() -> Guard {
        Guard::default()
    }

    /// `what` describes the file in the refusal ("an input of the program").
    pub fn protect(&mut self, p: &Path, what: &str) {
        self.protected.push((Place::of(p), what.to_string()));
    }

    /// The project database and the files SQLite keeps beside it.
    pub fn protect_db(&mut self, db: &Path) {
        self.protect(db, "the project database");
        for side in ["-wal", "-shm", "-journal"] {
            let mut s = db.as_os_str().to_os_string();
            s.push(side);
            self.protect(Path::new(&s), "a file of the project database");
        }
    }

    /// May `dest` be written (made `from` an input, when it is)? Records it as an output of
    /// this run when it may.
    pub fn claim(&mut self, dest: &Path, from: Option<&Path>) -> Result<()> {
        let place = Place::of(dest);
        if let Some((_, what)) = self.protected.iter().find(|(p, _)| p.same(&place)) {
            bail!(
                "refusing to write {}: it is {what} (choose another name with -o or --out-dir)",
                dest.display()
            );
        }
        if let Some((_, first)) = self.written.iter().find(|(p, _)| p.same(&place)) {
            let whose = match (first, from) {
                (Some(a), Some(b)) => format!(" (from {} and from {})", a.display(), b.display()),
                _ => String::new(),
            };
            bail!(
                "refusing to write {} twice in one run{whose}: the outputs would replace each other; write them to separate directories (run once per directory)",
                dest.display()
            );
        }
        self.written.push((place, from.map(Path::to_path_buf)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_protected_file_is_refused() {
        let d = std::env::temp_dir().join(format!("sapfor-guard-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("jac.f"), "x").unwrap();
        std::fs::write(d.join("s.db"), "x").unwrap();
        let mut g = Guard::new();
        g.protect(&d.join("jac.f"), "an input of the program");
        g.protect_db(&d.join("s.db"));
        let e = g.claim(&d.join("sub/../jac.f"), None).unwrap_err().to_string();
        assert!(e.contains("it is an input of the program"), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&d, d.join("here")).unwrap();
            assert!(g.claim(&d.join("here/jac.f"), None).is_err());
            std::fs::hard_link(d.join("jac.f"), d.join("hard.f")).unwrap();
            assert!(g.claim(&d.join("hard.f"), None).is_err());
            assert!(g.claim(&d.join("here/sub/../s.db-wal"), None).is_err());
        }
        assert!(g.claim(&d.join("s.db"), None).unwrap_err().to_string().contains("project database"));
        // outputs: a new name is fine once, not twice
        g.claim(&d.join("new/jac.fdv"), Some(Path::new("a/jac.f"))).unwrap();
        let e = g.claim(&d.join("sub/../new/./jac.fdv"), Some(Path::new("b/jac.f"))).unwrap_err().to_string();
        assert!(e.contains("twice in one run (from a/jac.f and from b/jac.f)"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
