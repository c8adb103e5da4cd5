//! sapfor never writes onto a file the run reads, the project database, or another output
//! of the same run, however the path is spelled (issue 15): each command of the issue is
//! refused with a message naming the file and what it is, exit status 1, and the file is
//! unchanged.

use std::path::Path;
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch;

fn sapfor(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn no_command_writes_onto_an_input_an_include_the_database_or_another_output() {
    let d = scratch::Scratch::new("outputs", "rule");
    let jac = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f")).unwrap();
    std::fs::write(d.join("jac.f"), &jac).unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    for x in ["a", "b"] {
        std::fs::create_dir_all(d.join(x)).unwrap();
        std::fs::write(d.join(x).join("x.f"), &jac).unwrap();
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(".", d.join("here")).unwrap();
    std::fs::write(d.join("m.f"), "      PROGRAM M\n      INCLUDE 'd.inc'\n      X = 1\n      PRINT *, X\n      END\n").unwrap();
    std::fs::write(d.join("d.inc"), "      REAL X\n").unwrap();
    // a project database with a scheme, for generate and export
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
    assert_eq!(rc, 0, "{out}");
    let db_before = std::fs::read(d.join("s.db")).unwrap();
    let refused: &[(&[&str], &str)] = &[
        (&["--auto", "jac.f", "--no-db", "-o", "sub/../jac.f"], "refusing to write sub/../jac.f: it is an input of the program"),
        #[cfg(unix)]
        (&["--auto", "jac.f", "--no-db", "-o", "here/jac.f"], "refusing to write here/jac.f: it is an input of the program"),
        (&["generate", "--scheme", "1", "--db", "s.db", "-o", "sub/../jac.f"], "it is an input of the program"),
        (&["--auto", "jac.f", "--db", "s.db", "-o", "s.db"], "refusing to write s.db: it is the project database"),
        (&["export", "--json", "--db", "s.db", "-o", "s.db"], "refusing to write s.db: it is the project database"),
        (&["--auto", "m.f", "--no-db", "-o", "d.inc"], "refusing to write d.inc: it is an INCLUDE file the program reads"),
        (
            &["--auto", "a/x.f", "b/x.f", "--no-db", "--out-dir", "par"],
            "refusing to write par/x.fdv twice in one run (from a/x.f and from b/x.f)",
        ),
    ];
    for (args, want) in refused {
        let (rc, out) = sapfor(&d, args);
        assert_eq!(rc, 1, "sapfor {args:?}: {out}");
        assert!(out.contains(want), "sapfor {args:?}: wanted `{want}` in:\n{out}");
    }
    assert_eq!(std::fs::read(d.join("jac.f")).unwrap(), jac);
    assert_eq!(std::fs::read_to_string(d.join("d.inc")).unwrap(), "      REAL X\n");
    assert_eq!(std::fs::read(d.join("s.db")).unwrap(), db_before);
    assert!(!d.join("par").exists(), "nothing is written when one output is refused");
    // each in a directory of its own is fine
    let (rc, out) = sapfor(&d, &["--auto", "a/x.f", "--no-db", "--out-dir", "pa"]);
    assert_eq!(rc, 0, "{out}");
    let (rc, out) = sapfor(&d, &["--auto", "b/x.f", "--no-db", "--out-dir", "pb"]);
    assert_eq!(rc, 0, "{out}");
    assert!(d.join("pa/x.fdv").is_file() && d.join("pb/x.fdv").is_file());
}

/// Inputs deeper than the main thread's stack (an expression of 15,000 terms, IF blocks
/// nested 5,000 deep) are parallelized like any other; a reader that closes the pipe early
/// ends sapfor quietly, without a panic (issue 15).
#[test]
fn deep_inputs_work_and_a_closed_pipe_ends_quietly() {
    let d = scratch::Scratch::new("outputs", "deep");
    let terms = vec!["1.0"; 15_000].join(" + ");
    std::fs::write(d.join("long.f90"), format!("program long\n  real :: x\n  x = {terms}\n  print *, x\nend program\n")).unwrap();
    let mut deep = String::from("program deep\n  integer :: i\n  i = 0\n");
    for k in 0..5000 {
        deep += &format!("  if (i < {}) then\n", k + 1);
    }
    deep += "  i = i + 1\n";
    deep += &"  end if\n".repeat(5000);
    deep += "  print *, i\nend program\n";
    std::fs::write(d.join("deep.f90"), deep).unwrap();
    for f in ["long.f90", "deep.f90"] {
        let (rc, out) = sapfor(&d, &["--auto", f, "--no-db", "-o", &format!("{f}.fdv")]);
        assert_eq!(rc, 0, "{f}: {out}");
        assert!(d.join(format!("{f}.fdv")).is_file());
    }
    // 4,000 loops: more lines than a pipe holds, so the writer meets the closed end
    let mut many = String::from("program many\n  integer :: i\n  real :: a(10)\n");
    for _ in 0..4000 {
        many += "  do i = 1, 10\n    a(i) = i\n  end do\n";
    }
    many += "  print *, a(1)\nend program\n";
    std::fs::write(d.join("many.f90"), many).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .current_dir(&d)
        .args(["analyze", "many.f90"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(out.status.success() || out.status.signal() == Some(13), "{:?}: {err}", out.status);
    }
}

/// Six `--auto` runs at once on one project database all succeed (issue 15: two of six
/// failed with "no analysis #5 in the project database", one run's store deleting the
/// analysis another had just stored, before its schemes).
#[test]
fn concurrent_auto_runs_on_one_database_all_succeed() {
    let d = scratch::Scratch::new("outputs", "concurrent");
    let jac = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f")).unwrap();
    std::fs::write(d.join("jac.f"), &jac).unwrap();
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "c.db", "-o", "j0.fdv"]);
    assert_eq!(rc, 0, "{out}");
    for round in 0..2 {
        let runs: Vec<_> = (1..=6)
            .map(|i| {
                let dir = d.path().to_path_buf();
                std::thread::spawn(move || {
                    let procs = (i + 1).to_string();
                    let o = format!("j{i}.fdv");
                    sapfor(&dir, &["--auto", "jac.f", "--db", "c.db", "-o", &o, "--procs", &procs])
                })
            })
            .collect();
        for (i, r) in runs.into_iter().enumerate() {
            let (rc, out) = r.join().unwrap();
            assert_eq!(rc, 0, "round {round}, run {}: {out}", i + 1);
        }
    }
}

/// A program sapfor wrote and the user edited afterwards is not replaced by the next
/// `--auto` or `generate` without `--force` (the project database records what sapfor wrote).
#[test]
fn an_edited_program_is_replaced_only_with_force() {
    let d = scratch::Scratch::new("outputs", "edited");
    let jac = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f")).unwrap();
    std::fs::write(d.join("jac.f"), &jac).unwrap();
    for _ in 0..2 {
        // unchanged since written: replaced silently
        let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
        assert_eq!(rc, 0, "{out}");
    }
    let mut edited = std::fs::read_to_string(d.join("jac.fdv")).unwrap();
    edited.push_str("C my note\n");
    std::fs::write(d.join("jac.fdv"), &edited).unwrap();
    for args in [&["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"][..], &["generate", "--scheme", "5", "--db", "s.db", "-o", "jac.fdv"]] {
        let (rc, out) = sapfor(&d, args);
        assert_eq!(rc, 1, "{args:?}: {out}");
        assert!(out.contains("refusing to replace jac.fdv: it was changed since sapfor wrote it; use --force"), "{out}");
        assert_eq!(std::fs::read_to_string(d.join("jac.fdv")).unwrap(), edited);
    }
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv", "--force"]);
    assert_eq!(rc, 0, "{out}");
    assert!(!std::fs::read_to_string(d.join("jac.fdv")).unwrap().contains("my note"));
}

/// The database records a program before the file is written: a run killed between the two
/// leaves the previous program on disk, and the next run replaces it without --force (it is a
/// text sapfor wrote), while a user's edit is still refused.
#[test]
fn a_program_left_by_a_run_killed_after_its_commit_is_replaced() {
    let d = scratch::Scratch::new("outputs", "killed");
    let jac = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f")).unwrap();
    std::fs::write(d.join("jac.f"), &jac).unwrap();
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
    assert_eq!(rc, 0, "{out}");
    let first = std::fs::read_to_string(d.join("jac.fdv")).unwrap();
    // the program changes; this run's commit records a new text
    std::fs::write(d.join("jac.f"), jac.replace("PROGRAM JAC", "PROGRAM JAC\nC changed")).unwrap();
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
    assert_eq!(rc, 0, "{out}");
    let second = std::fs::read_to_string(d.join("jac.fdv")).unwrap();
    assert_ne!(first, second);
    // as if killed after the commit, before the file was replaced
    std::fs::write(d.join("jac.fdv"), &first).unwrap();
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
    assert_eq!(rc, 0, "{out}");
    assert_eq!(std::fs::read_to_string(d.join("jac.fdv")).unwrap(), second);
    std::fs::write(d.join("jac.fdv"), format!("{first}C my note\n")).unwrap();
    let (rc, out) = sapfor(&d, &["--auto", "jac.f", "--db", "s.db", "-o", "jac.fdv"]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("changed since sapfor wrote it"), "{out}");
}
