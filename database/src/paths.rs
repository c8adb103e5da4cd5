//! Stored paths: relative to the project root (the database file's directory) with `/`
//! separators, so that a project directory can be moved or copied as a whole.

use std::path::{Component, Path, PathBuf};

/// `p` made absolute (against the current directory) without touching the file system.
pub fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Lexically remove `.` and resolve `..` components of an absolute path.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = vec![];
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

fn join_slash<'a>(parts: impl Iterator<Item = Component<'a>>) -> String {
    let v: Vec<String> = parts
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if v.is_empty() {
        ".".to_string()
    } else {
        v.join("/")
    }
}

/// `path` relative to `base` (both absolute, normalized): `a/b`, or `../../a/b` when outside;
/// `None` when they share no root (different Windows drives).
fn diff(base: &Path, path: &Path) -> Option<String> {
    let b: Vec<Component> = base.components().collect();
    let p: Vec<Component> = path.components().collect();
    if b.first() != p.first() {
        return None;
    }
    let common = b.iter().zip(&p).take_while(|(x, y)| x == y).count();
    let ups = b.len() - common;
    let mut parts: Vec<String> = vec!["..".to_string(); ups];
    parts.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// The path to store for `p` in a project rooted at `root`. Relative `p` are taken against the
/// current directory. Symbolic links are only resolved when the plain paths are unrelated
/// (e.g. `/tmp/x` vs `/private/tmp/x`). Absolute only when no relative form exists.
pub fn relative_to(root: &Path, p: &Path) -> String {
    let root = normalize(&absolute(root));
    let abs = normalize(&absolute(p));
    if let Ok(r) = abs.strip_prefix(&root) {
        return join_slash(r.components());
    }
    let canon = (root.canonicalize(), abs.canonicalize());
    if let (Ok(cr), Ok(cp)) = &canon {
        if let Ok(r) = cp.strip_prefix(cr) {
            return join_slash(r.components());
        }
        if let Some(d) = diff(cr, cp) {
            return d;
        }
    }
    if let Some(d) = diff(&root, &abs) {
        return d;
    }
    abs.to_string_lossy().replace('\\', "/")
}

/// The file a stored path names under `root`.
pub fn resolve_under(root: &Path, rel: &str) -> PathBuf {
    let p = Path::new(rel);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    normalize(&root.join(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_forms() {
        let root = Path::new("/proj/a");
        assert_eq!(relative_to(root, Path::new("/proj/a/src/x.f")), "src/x.f");
        assert_eq!(relative_to(root, Path::new("/proj/a")), ".");
        assert_eq!(relative_to(root, Path::new("/proj/b/y.f")), "../b/y.f");
        assert_eq!(relative_to(root, Path::new("/proj/a/./s/../x.f")), "x.f");
        assert_eq!(
            resolve_under(root, "../b/y.f"),
            PathBuf::from("/proj/b/y.f")
        );
        assert_eq!(
            resolve_under(root, "src/x.f"),
            PathBuf::from("/proj/a/src/x.f")
        );
        assert_eq!(resolve_under(root, "/abs/z.f"), PathBuf::from("/abs/z.f"));
    }
}
