//! The CLI with the project database: results stored and reused, refinements recorded,
//! honoured and reported, bad databases refused without being touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(tag: &str) -> Scratch {
    Scratch::new("dbcli", tag)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn analysis_is_stored_reused_and_shown() {
    let dir = scratch("store");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let first = run(&dir, &["analyze", "jac.f"]);
    assert!(first.status.success(), "{}", text(&first));
    assert!(dir.join("sapfor.db").exists());
    let again = run(&dir, &["analyze", "jac.f"]);
    assert_eq!(
        first.stdout, again.stdout,
        "the stored report is printed unchanged"
    );
    let export: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["export", "--json"]).stdout).unwrap();
    assert_eq!(export["format"], "sapfor-export");
    let show = run(&dir, &["show", "loop", "jac.f:18"]);
    let s = text(&show);
    assert!(
        show.status.success()
            && s.contains("parallel, reduction(max:EPS)")
            && s.contains("B(2:1999,2:1999)"),
        "{s}"
    );
    // A changed file is analyzed again.
    let src = std::fs::read_to_string(dir.join("jac.f"))
        .unwrap()
        .replace("ITMAX=20", "ITMAX=10");
    std::fs::write(dir.join("jac.f"), src).unwrap();
    let changed = run(&dir, &["analyze", "jac.f", "--dump", "loops"]);
    assert!(
        text(&changed).contains("bounds 1..10"),
        "{}",
        text(&changed)
    );
    let missing = run(&dir, &["show", "loop", "jac.f:99"]);
    assert!(!missing.status.success() && text(&missing).contains("jac.f:99"));
}

#[test]
fn refinements_change_verdicts_and_say_so() {
    let dir = scratch("refine");
    std::fs::copy(
        root().join("analyzer/test_data/nonconstant_distance_dep.f"),
        dir.join("n.f"),
    )
    .unwrap();
    let before = text(&run(&dir, &["analyze", "n.f"]));
    let line = before
        .lines()
        .find(|l| l.contains(": sequential"))
        .expect("a sequential loop")
        .to_string();
    let at = line.split(": loop").next().unwrap().to_string(); // n.f:LINE
    let r = run(&dir, &["refine", "parallel", &at]);
    let out = text(&r);
    assert!(r.status.success(), "{out}");
    assert!(
        out.contains("recorded refinement #1")
            && out.contains(&format!("{at}: loop"))
            && out.contains("parallel"),
        "{out}"
    );
    let after = text(&run(&dir, &["analyze", "n.f"]));
    let changed = after
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{at}:")))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        changed.contains("parallel") && changed.contains("overridden: loop at"),
        "{changed}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&dir, &["analyze", "n.f", "--json"]).stdout).unwrap();
    let l = json["units"][0]["loops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| format!("n.f:{}", l["line"]) == at)
        .unwrap()
        .clone();
    assert_eq!(l["verdict"], "parallel");
    assert!(!l["overridden_by"].as_array().unwrap().is_empty());
    let list = text(&run(&dir, &["refine", "list"]));
    assert!(list.contains("#1: loop at"), "{list}");
    assert!(run(&dir, &["refine", "remove", "1"]).status.success());
    let back = text(&run(&dir, &["analyze", "n.f"]));
    assert_eq!(
        back, before,
        "removing the refinement restores the analysis"
    );
    // Bad refinements are refused with a message.
    for bad in [
        vec!["refine", "reduction", &at, "foo:x"],
        vec!["refine", "private", "n.f", "x"],
        vec!["refine", "distribute", "a", "(CYCLIC)"],
        vec!["refine", "remove", "42"],
    ] {
        let o = run(&dir, &bad);
        assert!(
            !o.status.success() && text(&o).contains("error"),
            "{bad:?}: {}",
            text(&o)
        );
    }
}

/// A reduction asserted on an array is applied (it used to be recorded and ignored): a call
/// that adds into RMS hides the update from the analysis, the user says it is a sum, and the
/// loop becomes parallel with REDUCTION(SUM(RMS)). One on an array the loop does not assign
/// changes nothing: the command says so, exits non-zero and keeps nothing.
#[test]
fn a_reduction_over_an_array_is_applied_or_refused_with_the_reason() {
    let dir = scratch("refine_array");
    std::fs::write(
        dir.join("r.f"),
        "      program rmsp\n      integer i, m\n      double precision u(5,9), rms(5)\n      do i = 1, 9\n         do m = 1, 5\n            u(m,i) = m + i\n         end do\n      end do\n      rms = 0\n      do i = 1, 9\n         call addsq(rms, u(1,i))\n      end do\n      print *, rms\n      end\n      subroutine addsq(r, x)\n      double precision r(5), x(5)\n      integer m\n      do m = 1, 5\n         r(m) = r(m) + x(m)**2\n      end do\n      end\n",
    )
    .unwrap();
    let o = run(&dir, &["analyze", "r.f"]);
    assert!(text(&o).contains("r.f:10: loop I (depth 1): sequential"), "{}", text(&o));
    let o = run(&dir, &["refine", "reduction", "r.f:10", "sum:rms"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("r.f:10: loop I (depth 1): parallel, reduction(sum:RMS)"), "{}", text(&o));
    let list = text(&run(&dir, &["refine", "list"]));
    assert!(list.contains("#1: RMS is a sum reduction in the loop at r.f:10"), "{list}");
    // an array the loop does not assign
    let o = run(&dir, &["refine", "reduction", "r.f:10", "sum:u"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("U is not assigned in the loop") && text(&o).contains("not recorded"), "{}", text(&o));
    assert!(!text(&run(&dir, &["refine", "list"])).contains("#2"), "nothing else is kept");
}

#[test]
fn foreign_or_corrupt_databases_are_refused_untouched() {
    let dir = scratch("bad");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    std::fs::write(dir.join("notes.db"), b"my precious notes, not a database\n").unwrap();
    let o = run(&dir, &["analyze", "jac.f", "--db", "notes.db"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("notes.db") && text(&o).contains("not a SQLite database"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read(dir.join("notes.db")).unwrap(),
        b"my precious notes, not a database\n"
    );
    let o = run(&dir, &["analyze", "jac.f", "--no-db"]);
    assert!(o.status.success());
    assert!(
        !dir.join("sapfor.db").exists(),
        "--no-db writes no database"
    );
}

/// The key under which an analysis is stored names the analysis code of the build that made it
/// (a digest of its analyzer and expert sources, beside the version): a build with other
/// analysis code finds no stored analysis for the same files and analyzes them again, while
/// the same build reuses its own (the stored report, spoiled here, is printed as it is).
#[test]
fn a_stored_analysis_is_reused_only_by_the_build_that_made_it() {
    let dir = scratch("build-key");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let first = run(&dir, &["analyze", "jac.f"]);
    assert!(first.status.success(), "{}", text(&first));
    let db = dir.join("sapfor.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let options: String = conn.query_row("SELECT key_options FROM analyses", [], |r| r.get(0)).unwrap();
    let key: serde_json::Value = serde_json::from_str(&options).unwrap();
    let build = key["build"].as_str().unwrap_or_default().to_string();
    assert!(build.len() == 16 && build.chars().all(|c| c.is_ascii_hexdigit()), "{options}");
    // the same build: the stored (spoiled) report
    conn.execute_batch("UPDATE analyses SET report = replace(report, '\"parallel\"', '\"sequential\"')").unwrap();
    let again = run(&dir, &["analyze", "jac.f"]);
    assert!(text(&again).contains("sequential") && !text(&again).contains("parallel"), "{}", text(&again));
    // stored under another build's key: analyzed again
    let other = options.replace(&build, "0123456789abcdef");
    let digest = database::AnalysisKey { files: serde_json::from_str(&conn.query_row("SELECT key_files FROM analyses", [], |r| r.get::<_, String>(0)).unwrap()).unwrap(), options: other.clone() }.digest();
    conn.execute("UPDATE analyses SET key_options = ?1, key_digest = ?2", rusqlite::params![other, digest]).unwrap();
    let fresh = run(&dir, &["analyze", "jac.f"]);
    assert_eq!(fresh.stdout, first.stdout, "{}", text(&fresh));
}

/// Values changed by hand (JSON that does not parse, text in an integer column) are named with
/// what to do: derived data is replaced by running `--auto` again, which then works; an
/// unreadable refinement (the user's own data) is named by number, and removing it works.
#[test]
fn unreadable_stored_values_are_named_with_what_to_do() {
    let dir = scratch("badvalue");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let auto = |dir: &Path| run(dir, &["--auto", "jac.f", "--db", "p.db", "-o", "jac.fdv", "--force"]);
    let o = auto(&dir);
    assert!(o.status.success(), "{}", text(&o));
    let db = dir.join("p.db");
    let spoil = |sql: &str| rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap();
    for (sql, want) in [
        ("UPDATE schemes SET loops = '{garbage'", "a stored value (column loops) cannot be read"),
        ("UPDATE loops SET lower = 'one'", "a stored value (column lower) cannot be read"),
        ("UPDATE analyses SET report = '[1,'", "the report of analysis #"),
    ] {
        spoil(sql);
        let o = run(&dir, &["schemes", "--db", "p.db"]);
        assert!(!o.status.success(), "{sql}: {}", text(&o));
        let t = text(&o);
        assert!(t.contains("p.db") && t.contains(want) && t.contains("Run `sapfor --auto`"), "{sql}: {t}");
        let o = auto(&dir);
        assert!(o.status.success(), "{sql}: --auto after: {}", text(&o));
        let o = run(&dir, &["schemes", "--db", "p.db"]);
        assert!(o.status.success(), "{sql}: schemes after --auto: {}", text(&o));
    }
    let o = run(&dir, &["refine", "--db", "p.db", "sequential", "jac.f:18"]);
    assert!(o.status.success(), "{}", text(&o));
    spoil("UPDATE overrides SET body = '{garbage'");
    for args in [&["refine", "list", "--db", "p.db"][..], &["--auto", "jac.f", "--db", "p.db", "-o", "jac.fdv"]] {
        let o = run(&dir, args);
        assert!(!o.status.success(), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("refinement #1 cannot be read") && text(&o).contains("sapfor refine remove 1"), "{args:?}: {}", text(&o));
    }
    let o = run(&dir, &["refine", "remove", "1", "--db", "p.db"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = auto(&dir);
    assert!(o.status.success(), "{}", text(&o));
}

/// Makes a directory unwritable for the test's life: `chmod 555` for an ordinary user, and
/// for root (who writes anyway) the immutable attribute, where the file system has one.
struct Unwritable(PathBuf);

impl Unwritable {
    fn new(dir: &Path) -> Option<Unwritable> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let guard = Unwritable(dir.to_path_buf());
        let probe = dir.join(".probe");
        if std::fs::write(&probe, b"").is_err() {
            return Some(guard);
        }
        let _ = std::fs::remove_file(&probe);
        let ok = Command::new("chattr").arg("+i").arg(dir).output().is_ok_and(|o| o.status.success());
        (ok && std::fs::write(&probe, b"").is_err()).then_some(guard)
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        let _ = Command::new("chattr").arg("-i").arg(&self.0).output();
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
    }
}

/// A project in a directory sapfor cannot write: the message says that the directory must be
/// writable and how to go on (--db elsewhere, --no-db), which then works.
#[test]
fn an_unwritable_project_directory_is_explained() {
    let dir = scratch("readonly");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let Some(_ro) = Unwritable::new(&dir) else {
        eprintln!("skipped: this file system cannot make a directory unwritable for this user");
        return;
    };
    let o = run(&dir, &["analyze", "jac.f"]);
    assert!(!o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("sapfor.db") && t.contains("must be writable") && t.contains("--no-db"), "{t}");
    let o = run(&dir, &["analyze", "jac.f", "--no-db"]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_refinement_that_changes_nothing_is_not_recorded_and_says_why() {
    let dir = scratch("effect");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    assert!(run(&dir, &["--auto", "jac.f", "--procs", "4"]).status.success());
    // (assertion, what the refusal says)
    for (args, why) in [
        (vec!["refine", "reduction", "jac.f:18", "sum:zzz"], "ZZZ is a sum reduction in the loop at jac.f:18: NOT applied: ZZZ is not assigned in the loop"),
        (vec!["refine", "private", "jac.f:18", "qq"], "QQ is private in the loop at jac.f:18: NOT applied: QQ is not assigned in the loop"),
        (vec!["refine", "private", "jac.f:18", "eps"], "EPS is private in the loop at jac.f:18: NOT applied: EPS is a max reduction of the loop"),
        (vec!["refine", "distribute", "b", "(BLOCK,*)"], "distribute B as (BLOCK,*): NOT applied: the distribution follows the template A: B is aligned with it"),
        (vec!["refine", "distribute", "a", "(BLOCK)"], "distribute A as (BLOCK): NOT applied: A has rank 2, the refinement gives 1 format(s)"),
    ] {
        let o = run(&dir, &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(&format!("error: the refinement was not recorded: {why}")), "{args:?}: {}", text(&o));
    }
    let list = text(&run(&dir, &["refine", "list"]));
    assert!(list.contains("no refinements recorded"), "{list}");
    // one the experts honour: said, and the stored schemes follow it
    let o = run(&dir, &["refine", "distribute", "a", "(*,BLOCK)"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("applied: the schemes are now (*,BLOCK)"), "{}", text(&o));
    let table = text(&run(&dir, &["schemes"]));
    assert!(table.lines().any(|l| l.contains("(*,BLOCK)") && l.contains('*') && !l.contains("rejected")), "{table}");
    assert_eq!(table.matches("not considered: a refinement distributes A as (*,BLOCK)").count(), 2, "{table}");
    // a forced variant that cannot be mapped: not recorded, with the loop that stops it
    let dir = scratch("effect-sor");
    std::fs::copy(root().join("shell-gui/tests/data/rejected/sor9.f"), dir.join("sor9.f")).unwrap();
    assert!(run(&dir, &["--auto", "sor9.f", "--procs", "4"]).status.success());
    let o = run(&dir, &["refine", "distribute", "a", "(BLOCK,BLOCK)"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("distribute A as (BLOCK,BLOCK): NOT applied: variant (BLOCK,BLOCK) is rejected: sor9.f:12 (unit SOR9): the loop at line 12 cannot be aligned"), "{}", text(&o));
}
