//! Runs the analyzer on every fixture in `test_data/` and checks each `EXPECT:` line against
//! the loop on the next line (format: test_data/README.md).

use analyzer::loops::Verdict;
use analyzer::report::analyze;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
struct Expect {
    verdict: String,
    private: BTreeSet<String>,
    reductions: BTreeSet<String>,
    blockers: BTreeSet<String>,
    /// `when[c1; c2]`: the run-time tests of a versioned loop (none: not versioned).
    when: Option<Vec<String>>,
    /// `vprivate(...)`: its private variables under those tests.
    vprivate: BTreeSet<String>,
    /// `split(...)`: the scalars of a recurrence computed ahead of it.
    split: BTreeSet<String>,
}

fn parse_list(s: &str, key: &str) -> Option<BTreeSet<String>> {
    let start = s.find(&format!("{key}("))? + key.len() + 1;
    let end = start + s[start..].find(')')?;
    Some(
        s[start..end]
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
    )
}

fn parse_expect(text: &str) -> Option<Expect> {
    let i = text.find("EXPECT:")?;
    let rest = text[i + 7..].trim();
    Some(Expect {
        verdict: rest.split_whitespace().next()?.to_string(),
        private: parse_list(rest, "private").unwrap_or_default(),
        reductions: parse_list(rest, "reduction").unwrap_or_default(),
        blockers: parse_list(rest, "blockers").unwrap_or_default(),
        when: rest.find("when[").and_then(|i| {
            let body = &rest[i + 5..];
            Some(body[..body.find(']')?].split(';').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect())
        }),
        vprivate: parse_list(rest, "vprivate").unwrap_or_default(),
        split: parse_list(rest, "split").unwrap_or_default(),
    })
}

fn check_file(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let a = analyze(&[path.to_path_buf()], &Default::default());
    let mut failures = vec![];
    for d in a.diagnostics() {
        if d.severity == analyzer::diag::Severity::Error {
            failures.push(format!(
                "{}: unexpected error diagnostic: {} {:?}",
                path.display(),
                d.message,
                d.location
            ));
        }
    }
    let root_file = a
        .program
        .map
        .files
        .iter()
        .position(|f| f.path == path)
        .unwrap();
    let mut checked = 0;
    for (i, line) in text.lines().enumerate() {
        let Some(exp) = parse_expect(line) else {
            continue;
        };
        let do_line = i as u32 + 2;
        let found = a
            .program
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.file.0 as usize == root_file)
            .flat_map(|(ui, _)| a.loops[ui].iter())
            .find(|l| l.line == do_line);
        let Some(l) = found else {
            failures.push(format!(
                "{}:{do_line}: no loop found for EXPECT",
                path.display()
            ));
            continue;
        };
        checked += 1;
        let got_priv: BTreeSet<String> = l.private.iter().cloned().collect();
        let got_red: BTreeSet<String> = l
            .reductions
            .iter()
            .map(|r| format!("{}:{}", r.op.as_str(), r.var))
            .collect();
        let got_block: BTreeSet<String> = l
            .blockers
            .iter()
            .map(|b| b.code.as_str().to_string())
            .collect();
        let mut bad = vec![];
        if l.verdict.as_str() != exp.verdict {
            bad.push(format!(
                "verdict {} (want {})",
                l.verdict.as_str(),
                exp.verdict
            ));
        }
        if l.verdict != Verdict::Sequential || exp.verdict != "sequential" {
            if got_priv != exp.private {
                bad.push(format!("private {got_priv:?} (want {:?})", exp.private));
            }
            if got_red != exp.reductions {
                bad.push(format!(
                    "reductions {got_red:?} (want {:?})",
                    exp.reductions
                ));
            }
        }
        let got_when = l.versioned.as_ref().map(|v| v.when.clone());
        if got_when != exp.when {
            bad.push(format!("versioned when {got_when:?} (want {:?})", exp.when));
        }
        let got_vpriv: BTreeSet<String> = l.versioned.iter().flat_map(|v| v.private.iter().cloned()).collect();
        if got_vpriv != exp.vprivate {
            bad.push(format!("versioned private {got_vpriv:?} (want {:?})", exp.vprivate));
        }
        let got_split: BTreeSet<String> = l.versioned.iter().flat_map(|v| v.split.iter().flat_map(|r| r.vars.iter().map(|(x, _)| x.clone()))).collect();
        if got_split != exp.split {
            bad.push(format!("split {got_split:?} (want {:?})", exp.split));
        }
        if got_block != exp.blockers {
            bad.push(format!("blockers {got_block:?} (want {:?})", exp.blockers));
        }
        if !bad.is_empty() {
            let msgs: Vec<String> = l
                .blockers
                .iter()
                .map(|b| format!("{}: {}", b.code.as_str(), b.message))
                .collect();
            failures.push(format!(
                "{}:{do_line}: {}\n      blockers said: {}",
                path.display(),
                bad.join("; "),
                msgs.join(" | ")
            ));
        }
    }
    if checked == 0 {
        failures.push(format!("{}: no EXPECT lines checked", path.display()));
    }
    failures
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("f" | "f90")))
        .collect();
    v.sort();
    v
}

#[test]
fn every_fixture_matches_its_expectations() {
    let files = fixtures();
    assert!(files.len() >= 30, "fixtures missing: {}", files.len());
    let mut failures = vec![];
    for f in &files {
        failures.extend(check_file(f));
    }
    if !failures.is_empty() {
        panic!(
            "{} expectation failures:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
