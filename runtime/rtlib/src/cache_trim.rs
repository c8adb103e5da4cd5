//! Size limit of the build caches: the converted programs' executables (`runtime`'s build
//! driver) and the emulator's compiled kernels (`device::emu`). Both caches are keyed by
//! content and grow with every program or kernel text ever built, so after each new entry the
//! least recently used entries are removed until the cache fits its limit.
//!
//! This file is shared by the two crates (the driver includes it with `#[path]`), so it uses
//! the standard library only.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The limit in bytes: `SAPFOR_CACHE_MAX_MB` (mebibytes; 0 keeps nothing but the newest entry)
/// or `default_mb`.
pub fn limit_bytes(default_mb: u64) -> u64 {
    std::env::var("SAPFOR_CACHE_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(default_mb)
        .saturating_mul(1 << 20)
}

/// After `entry` was added to the cache `dir`: trim the cache to its limit
/// (`SAPFOR_CACHE_MAX_MB` or `default_mb`), least recently used first, sparing `entry`, the
/// entries named in `skip` and anything used in the last two minutes (another process may be
/// building it or about to start it).
pub fn after_store(dir: &Path, default_mb: u64, entry: &Path, skip: &[&str]) {
    trim(dir, limit_bytes(default_mb), entry, skip, Duration::from_secs(120));
}

/// Marks `entry` (a file or a directory) as just used by setting its modification time, so
/// that trimming keeps it longest. Opened for reading only: a running executable cannot be
/// opened for writing.
pub fn touch(entry: &Path) {
    if let Ok(f) = std::fs::File::open(entry) {
        let _ = f.set_modified(SystemTime::now());
    }
}

fn size_of(p: &Path) -> u64 {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|rd| rd.flatten().map(|e| size_of(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

fn last_use(p: &Path) -> SystemTime {
    std::fs::symlink_metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Removes the least recently used entries of `dir` (files and directories) until the rest
/// fits `max_bytes`. `keep` (the entry just built or used) is never removed, nor are the
/// entries named in `skip` (another cache living inside this one) or anything changed in the
/// last `busy` (a build of another process in progress, or a program about to start). An
/// entry's last use is its modification time (see [`touch`]). Returns the bytes removed.
pub fn trim(dir: &Path, max_bytes: u64, keep: &Path, skip: &[&str], busy: Duration) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = rd
        .flatten()
        .filter(|e| !skip.iter().any(|s| e.file_name() == *s))
        .map(|e| {
            let p = e.path();
            (last_use(&p), size_of(&p), p)
        })
        .collect();
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    if total <= max_bytes {
        return 0;
    }
    entries.sort_by_key(|e| e.0);
    let mut removed = 0;
    for (used, size, p) in entries {
        if total <= max_bytes {
            break;
        }
        if p == keep || now.duration_since(used).map_or(true, |age| age < busy) {
            continue;
        }
        let gone = if p.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        if gone.is_ok() {
            total -= size;
            removed += size;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: &Path, name: &str, bytes: usize, age_s: u64) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, vec![0u8; bytes]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_s))
            .unwrap();
        p
    }

    #[test]
    fn least_recently_used_go_first_and_kept_busy_and_skipped_stay() {
        let d = std::env::temp_dir().join(format!(
            "sapfor-trim-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("emu")).unwrap();
        std::fs::write(d.join("emu").join("k.so"), vec![0u8; 5000]).unwrap();
        let oldest = entry(&d, "a", 1000, 5000);
        let kept = entry(&d, "b", 1000, 4000);
        let old = entry(&d, "c", 1000, 3000);
        let recent = entry(&d, "d", 1000, 2000);
        let busy = entry(&d, "e", 1000, 10);
        // a directory entry: its own time counts, its files' sizes are summed
        std::fs::create_dir(d.join("f")).unwrap();
        std::fs::write(d.join("f").join("prog"), vec![0u8; 1000]).unwrap();
        touch(&d.join("f"));
        let removed = trim(&d, 3000, &kept, &["emu"], Duration::from_secs(60));
        let left: Vec<bool> = [&oldest, &kept, &old, &recent, &busy]
            .iter()
            .map(|p| p.exists())
            .collect();
        // 6000 bytes in 6 entries, limit 3000: the three oldest that may go (a, c, d) go;
        // b is kept, e and f are younger than the busy time
        assert_eq!(left, [false, true, false, false, true], "removed {removed}");
        assert_eq!(removed, 3000);
        assert!(d.join("f").join("prog").exists() && d.join("emu").join("k.so").exists());
        // under the limit: nothing goes
        assert_eq!(trim(&d, 1 << 20, &kept, &["emu"], Duration::ZERO), 0);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
