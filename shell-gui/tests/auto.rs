//! `sapfor --auto` end to end on every sample, with the real binary and gfortran: the
//! generated Fortran-DVMH matches its golden file, compiles sequentially and prints exactly the
//! sample's expected output, reads back with the same directives, and regenerating it is
//! idempotent. Regenerate the golden files with `UPDATE_GOLDEN=1 cargo test -p shell-gui --test auto`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn sapfor() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sapfor"))
}

fn scratch(tag: &str) -> Scratch {
    Scratch::new("auto", tag)
}

fn have_gfortran() -> bool {
    Command::new("gfortran")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A scratch directory `tag` holding `shell-gui/tests/data/<fixture>` as `name`, and what
/// `sapfor --auto name -o out` printed there (it must succeed).
fn auto_on(tag: &str, fixture: &str, name: &str, out: &str) -> (Scratch, String) {
    let dir = scratch(tag);
    std::fs::copy(root().join("shell-gui/tests/data").join(fixture), dir.join(name)).unwrap();
    let o = sapfor().current_dir(&dir).args(["--auto", name, "-o", out]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (dir, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// A scratch directory holding the file `fixture` (relative to the repository) as `name`, and
/// `m.toml`: a machine whose loops start their threads at almost no cost, without accelerators.
fn with_cheap_threads(tag: &str, fixture: &str, name: &str) -> Scratch {
    let dir = scratch(tag);
    std::fs::copy(root().join(fixture), dir.join(name)).unwrap();
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    dir
}

/// `with_cheap_threads`, then `sapfor --auto NAME -o auto.fdv` on that machine: the directory
/// and the report (standard output and error).
fn auto_cheap(tag: &str, fixture: &str, name: &str) -> (Scratch, String) {
    let dir = with_cheap_threads(tag, fixture, name);
    let out = sapfor().current_dir(&dir).args(["--auto", name, "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (dir, report)
}

/// Compile a Fortran-DVMH file as plain Fortran and run it in `dir`; return its stdout.
fn run_sequential(dir: &Path, src: &Path, fixed: bool) -> String {
    let exe = dir.join("prog");
    let lang = if fixed { "f77" } else { "f95" };
    let out = Command::new("gfortran")
        // a MODULE writes its .mod file into the working directory
        .current_dir(dir)
        .args(["-O2", "-w", "-x", lang])
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gfortran failed on {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).current_dir(dir).output().unwrap();
    assert!(run.status.success(), "{} failed", exe.display());
    String::from_utf8(run.stdout).unwrap()
}

fn check_sample(name: &str, file: &str, procs: &str) {
    assert!(
        have_gfortran(),
        "gfortran is required (scripts/setup.sh installs it)"
    );
    let dir = scratch(name);
    let src = root().join("samples").join(name).join(file);
    let input = dir.join(file);
    std::fs::copy(&src, &input).unwrap();
    let fixed = file.ends_with(".f");
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", file, "--procs", procs])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sapfor --auto failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(summary.contains("chosen:"), "{summary}");
    let fdv_path = input.with_extension("fdv");
    let fdv = std::fs::read_to_string(&fdv_path).unwrap();
    // Golden file.
    let golden = root()
        .join("shell-gui/tests/golden")
        .join(format!("{name}.fdv"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &fdv).unwrap();
    } else {
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("missing {}", golden.display()));
        assert_eq!(
            fdv,
            want,
            "generated program for {name} differs from {}",
            golden.display()
        );
    }
    // Every original line is still there, in order, byte-identical; only directive lines were added.
    let original = std::fs::read_to_string(&input).unwrap();
    let kept: Vec<&str> = fdv
        .lines()
        .filter(|l| !analyzer::directives::is_directive_line(l, fixed))
        .collect();
    assert_eq!(
        kept,
        original.lines().collect::<Vec<_>>(),
        "{name}: non-directive lines changed"
    );
    if fixed {
        assert!(
            fdv.lines()
                .all(|l| l.chars().count() <= 72
                    || !analyzer::directives::is_directive_line(l, true)),
            "a directive line passes column 72"
        );
    }
    // The sequential program still prints the same.
    let want =
        std::fs::read_to_string(root().join("samples").join(name).join("expected.out")).unwrap();
    assert_eq!(
        run_sequential(&dir, &fdv_path, fixed),
        want,
        "{name}: the generated program prints something else"
    );
    // The directives read back without errors, each PARALLEL right before a DO statement.
    let p = analyzer::program::load(&[fdv_path.clone()], &Default::default());
    assert!(!p.has_errors(), "{name}: {:?}", p.diags);
    let dirs = &p.directives[&analyzer::source::FileId(0)];
    let lines: Vec<&str> = fdv.lines().collect();
    let mut parallel = 0;
    for d in dirs {
        if let analyzer::directives::DirectiveKind::Parallel { .. } = d.kind {
            parallel += 1;
            let next = lines[d.end_line as usize].trim_start();
            let stmt = next
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start()
                .to_ascii_uppercase();
            assert!(
                stmt.starts_with("DO"),
                "{name}: PARALLEL at line {} is not followed by a DO statement: {next}",
                d.line
            );
        }
    }
    let summary_loops = summary
        .lines()
        .filter(|l| l.contains("): parallel") || l.contains("): across"))
        .count();
    assert!(
        parallel > 0
            || summary_loops == 0
            || summary.contains("* ") && summary.contains("replicated"),
        "{name}: no PARALLEL directive"
    );
    // Regenerating from the generated program gives the same text.
    let again = dir.join("again.fdv");
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto"])
        .arg(&fdv_path)
        .arg("-o")
        .arg(&again)
        .args(["--procs", procs, "--no-db"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        fdv,
        "{name}: --auto on its own output is not idempotent"
    );
    // The database holds the variants and the chosen one's program.
    let out = sapfor()
        .current_dir(&dir)
        .args(["schemes", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chosen: Vec<&serde_json::Value> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["scheme"]["chosen"] == true)
        .collect();
    assert_eq!(chosen.len(), 1, "{name}: exactly one chosen scheme");
}

#[test]
fn jacobi() {
    // SPEC section 5: on 100 processes the (BLOCK,BLOCK) variant wins.
    check_sample("jacobi", "jac.f", "100");
    let g = std::fs::read_to_string(root().join("shell-gui/tests/golden/jacobi.fdv")).unwrap();
    // SPEC section 5: the three loop mappings of the chosen (BLOCK,BLOCK) variant.
    assert!(g.contains("CDVM$ DISTRIBUTE A(BLOCK,BLOCK)"));
    assert!(g.contains("CDVM$ ALIGN B(I,J) WITH A(I,J)"));
    assert!(g.contains("CDVM$ PARALLEL (J,I) ON A(I,J)\n      DO J = 1, L"));
    assert!(
        g.contains("CDVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))\n         DO J = 2, L-1")
    );
    assert!(g.contains("CDVM$ PARALLEL (J,I) ON B(I,J), SHADOW_RENEW(A(1:1,1:1))"));
}

#[test]
fn heat3d() {
    check_sample("heat3d", "heat3d.f90", "4");
}

#[test]
fn gauss_seidel_across() {
    check_sample("gauss_seidel", "gs.f", "4");
    let g =
        std::fs::read_to_string(root().join("shell-gui/tests/golden/gauss_seidel.fdv")).unwrap();
    assert!(
        g.contains("ACROSS(A("),
        "the Gauss-Seidel sweep is an ACROSS loop"
    );
}

#[test]
fn legacy() {
    check_sample("legacy", "legacy.f", "4");
}

#[test]
fn reductions() {
    check_sample("reductions", "red.f90", "4");
}

#[test]
fn nothing_to_parallelize_still_succeeds_and_explains() {
    let dir = scratch("seq");
    let f = dir.join("s.f90");
    std::fs::write(&f, "program s\n  integer :: i\n  real :: x(10)\n  x(1) = 1.0\n  do i = 2, 10\n    x(i) = x(i-1) * 0.5 + sqrt(x(i-1))\n    print *, x(i)\n  end do\nend program\n").unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "s.f90", "--no-db"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("sequential") && text.contains("io: PRINT"),
        "{text}"
    );
    assert!(text.contains("chosen: replicated"), "{text}");
}

#[test]
fn refuses_to_overwrite_the_input_and_reports_bad_arguments() {
    let dir = scratch("args");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("j.fdv")).unwrap();
    let before = std::fs::read(dir.join("j.fdv")).unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "j.fdv", "--no-db"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("refusing to write j.fdv: it is an input of the program"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.join("j.fdv")).unwrap(), before);
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "j.fdv", "--no-db", "--procs", "0", "-o", "x.fdv"])
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--procs"));
    std::fs::write(dir.join("m.toml"), "procesess = 4\n").unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args([
            "--auto",
            "j.fdv",
            "--no-db",
            "--machine",
            "m.toml",
            "-o",
            "x.fdv",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("m.toml") && err.contains("procesess"),
        "{err}"
    );
}

#[test]
fn generate_any_stored_variant() {
    let dir = scratch("gen");
    std::fs::copy(root().join("samples/gauss_seidel/gs.f"), dir.join("gs.f")).unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "gs.f", "--procs", "4"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = sapfor()
        .current_dir(&dir)
        .args(["schemes", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let other = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scheme"]["chosen"] == false && s["scheme"]["name"] != "replicated")
        .expect("a non-chosen variant");
    let id = other["id"].as_i64().unwrap();
    let name = other["scheme"]["name"].as_str().unwrap().to_string();
    let out = sapfor()
        .current_dir(&dir)
        .args(["generate", "--scheme", &id.to_string(), "-o", "other.fdv"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("other.fdv")).unwrap();
    assert!(
        text.contains(&format!("DISTRIBUTE A{name}")),
        "{name}: {text}"
    );
    assert_eq!(
        run_sequential(&dir, &dir.join("other.fdv"), true),
        std::fs::read_to_string(root().join("samples/gauss_seidel/expected.out")).unwrap()
    );
    let out = sapfor()
        .current_dir(&dir)
        .args(["generate", "--scheme", "999", "-o", "x.fdv"])
        .output()
        .unwrap();
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no scheme #999")
    );
}

/// A program in two files sharing a COMMON block: the distribution is declared consistently
/// in both units, the call in the time loop needs no REMOTE_ACCESS (the callee's loops are
/// mapped in the callee), B is aligned with A without offset, and the program still prints
/// the same.
#[test]
fn several_files_with_common() {
    assert!(have_gfortran());
    let dir = scratch("multi");
    for f in ["main.f", "sub.f"] {
        std::fs::copy(
            root().join("shell-gui/tests/data/multi").join(f),
            dir.join(f),
        )
        .unwrap();
    }
    let out = sapfor()
        .current_dir(&dir)
        .args([
            "--auto",
            "main.f",
            "sub.f",
            "--procs",
            "4",
            "--out-dir",
            "par",
            "--no-db",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let main = std::fs::read_to_string(dir.join("par/main.fdv")).unwrap();
    let sub = std::fs::read_to_string(dir.join("par/sub.fdv")).unwrap();
    for text in [&main, &sub] {
        assert!(text.contains("CDVM$ DISTRIBUTE A("), "{text}");
        assert!(text.contains("CDVM$ ALIGN B(I,J) WITH A(I,J)"), "{text}");
    }
    assert!(!main.contains("REMOTE_ACCESS"), "{main}");
    assert!(sub.contains("SHADOW_RENEW(A("), "{sub}");
    let exe = dir.join("seq");
    assert!(Command::new("gfortran")
        .args(["-w", "main.f", "sub.f", "-o"])
        .arg(&exe)
        .current_dir(&dir)
        .status()
        .unwrap()
        .success());
    let want = Command::new(&exe).output().unwrap().stdout;
    let par = dir.join("par/p");
    assert!(Command::new("gfortran")
        .args(["-w", "-x", "f77", "par/main.fdv", "par/sub.fdv", "-o"])
        .arg(&par)
        .current_dir(&dir)
        .status()
        .unwrap()
        .success());
    assert_eq!(Command::new(&par).output().unwrap().stdout, want);
}

/// A rejected variant's reason names the file and the unit of the loop (projects have many
/// files with the same line numbers).
#[test]
fn rejected_variants_name_the_file_and_unit() {
    let dir = scratch("rejected");
    std::fs::copy(root().join("shell-gui/tests/data/rejected/sor9.f"), dir.join("sor9.f")).unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "sor9.f", "--procs", "4"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    let rejected: Vec<&str> = said.lines().filter(|l| l.contains(" rejected: ")).collect();
    assert_eq!(rejected.len(), 2, "{said}");
    for l in rejected {
        assert!(l.contains(" rejected: sor9.f:12 (unit SOR9): the loop at line 12 "), "{l}");
        assert!(l.ends_with("(and 1 more: `sapfor schemes`)"), "{l}");
    }
    // every reason of every rejected variant is in the database: `sapfor schemes` lists them
    // after the schemes, `--json` as {"rejected": {expert, name, reasons}} entries
    let out = sapfor().current_dir(&dir).args(["schemes"]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    for v in ["(*,BLOCK)", "(BLOCK,BLOCK)"] {
        let row = table.lines().position(|l| l.contains(v) && l.contains("rejected: 2 reasons")).unwrap_or_else(|| panic!("{v}:\n{table}"));
        let lines: Vec<&str> = table.lines().skip(row + 1).take(2).collect();
        assert!(lines[0].trim().starts_with("sor9.f:12 (unit SOR9): the loop at line 12 cannot be aligned"), "{table}");
        assert!(lines[1].trim().starts_with("sor9.f:18 (unit SOR9): the loop at line 18 cannot be aligned"), "{table}");
    }
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rej: Vec<&serde_json::Value> = v.as_array().unwrap().iter().filter_map(|e| e.get("rejected")).collect();
    let names: Vec<&str> = rej.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["(*,BLOCK)", "(BLOCK,BLOCK)"]);
    for r in &rej {
        let at: Vec<(String, u64)> = r["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (x["at"]["file"].as_str().unwrap().to_string(), x["line"].as_u64().unwrap()))
            .collect();
        assert_eq!(at, [("sor9.f".to_string(), 12), ("sor9.f".to_string(), 18)]);
    }
    // a refinement that forces one distribution: the others are rejected, and say why
    assert!(sapfor().current_dir(&dir).args(["refine", "distribute", "a", "(BLOCK,*)"]).output().unwrap().status.success());
    assert!(sapfor().current_dir(&dir).args(["--auto", "sor9.f", "--procs", "4"]).output().unwrap().status.success());
    let out = sapfor().current_dir(&dir).args(["schemes"]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(table.matches("not considered: a refinement distributes A as (BLOCK,*)").count(), 2, "{table}");
    assert!(!table.contains("replicated"), "{table}");
}

/// Every analyzer fixture through `--auto` with communication made free (so that most of
/// them get a distribution and the generator writes DISTRIBUTE/ALIGN/SHADOW/PARALLEL/
/// REMOTE_ACCESS for many shapes of code): the generated program compiles, prints exactly
/// what the original prints, and reads back without errors.
#[test]
fn every_fixture_survives_auto_with_free_communication() {
    assert!(have_gfortran());
    let dir = scratch("fixtures");
    let data = root().join("analyzer/test_data");
    for e in std::fs::read_dir(&data).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "inc") {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(
        dir.join("free.toml"),
        "processes = 4\ntstart_us = 0\ntbyte_us = 0\nloop_overhead_us = 0\nmemref_ns = 0\n",
    )
    .unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|x| x.to_str()), Some("f" | "f90")))
        .collect();
    files.sort();
    let mut distributed = 0;
    for src in &files {
        let name = src.file_name().unwrap().to_str().unwrap().to_string();
        let fixed = name.ends_with(".f");
        std::fs::copy(src, dir.join(&name)).unwrap();
        let want = run_sequential(&dir, &dir.join(&name), fixed);
        let out = sapfor()
            .current_dir(&dir)
            .args([
                "--auto",
                &name,
                "--no-db",
                "--machine",
                "free.toml",
                "-o",
                "out.fdv",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let fdv = std::fs::read_to_string(dir.join("out.fdv")).unwrap();
        if fdv.contains("DISTRIBUTE") {
            distributed += 1;
        }
        assert_eq!(
            run_sequential(&dir, &dir.join("out.fdv"), fixed),
            want,
            "{name}: the generated program prints something else"
        );
        let p = analyzer::program::load(&[dir.join("out.fdv")], &Default::default());
        assert!(
            !p.diags
                .iter()
                .any(|d| d.code == analyzer::diag::codes::BAD_DIRECTIVE),
            "{name}: {:?}",
            p.diags
        );
    }
    assert!(
        files.len() >= 30 && distributed >= 20,
        "{} fixtures, {distributed} distributed",
        files.len()
    );
}

/// A DVMH scheme whose data placement the actuality checker refutes (here: the heat sample's
/// scheme with its GET_ACTUAL/ACTUAL directives removed) is not an error: the regions using
/// the variables the checker names are kept on the host, the scheme's notes say so, and the
/// program written passes the checker.
#[test]
fn a_scheme_the_checker_refutes_falls_back_to_the_host_with_a_note() {
    let src = root().join("samples/heat3d/heat3d.f90");
    let a = analyzer::report::analyze(&[src], &Default::default());
    assert!(!a.program.has_errors());
    let machine = experts::machine::MachineModel::default();
    let res = shell_gui::auto::schemes_for(&a, &machine, shell_gui::auto::Target::Dvmh);
    let mut scheme = res.schemes[res.chosen].clone();
    assert!(scheme.regions.iter().any(|r| r.estimate.on_device), "the sample runs regions on the accelerator");
    let (_, same) = shell_gui::auto::generate_settled(&a, &scheme).unwrap();
    assert_eq!(same, scheme, "a correct scheme is written as it is");
    assert!(!scheme.actualizations.is_empty());
    scheme.actualizations.clear();
    let (files, settled) = shell_gui::auto::generate_settled(&a, &scheme).unwrap();
    assert!(settled.regions.iter().any(|r| !r.estimate.on_device), "{:?}", settled.regions);
    let note = settled.notes.iter().find(|n| n.contains("run on the host")).expect("a note says what was given up");
    assert!(note.contains("heat3d.f90:") && note.contains("missing"), "{note}");
    assert!(shell_gui::auto::verify_actuality(&a.program, &files).unwrap().is_empty());
}

/// A nest no reference of which fits a distribution (the diagonal S(I) = A(I,I) under
/// A(BLOCK,BLOCK)) runs on every process over the distributed data instead of rejecting the
/// variant; the scheme says so with file:line and estimates it (issue 17 cause 4). The
/// program's output on processes and devices is checked with the other analyzer fixtures
/// (run.rs).
#[test]
fn a_nest_that_does_not_fit_the_distribution_runs_on_every_process_instead_of_rejecting_it() {
    let dir = scratch("host-nests");
    let f = "host_nests_over_distributed_data.f";
    std::fs::copy(root().join("analyzer/test_data").join(f), dir.join(f)).unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", f, "--no-db", "-o", "h.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("chosen: (BLOCK,BLOCK)"), "{said}");
    assert!(said.contains(&format!("{f}:36 (unit HOSTFB): not a parallel loop in this variant, it runs on every process over the distributed data")), "{said}");
    let text = std::fs::read_to_string(dir.join("h.fdv")).unwrap();
    // the other nests stay parallel; the diagonal loop has no PARALLEL directive
    assert_eq!(text.matches("CDVM$ PARALLEL").count(), 4, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let diag = lines.iter().position(|l| l.contains("S(I) = A(I,I) * 2.0")).unwrap();
    assert!(!lines[diag - 2].contains("PARALLEL"), "{text}");
}

/// An array read beside the template only at J-1 and J+1 (a stencil) aligns with it at J:
/// aligned at a neighbour (as the heaviest single offset chose before), the nest writing it
/// beside another array aligned at J rejected the only variant. NPB SP's SQUARE, read at
/// I+-1, J+-1 and K+-1 in the flux nests, rejected every variant that way.
#[test]
fn an_array_read_at_symmetric_offsets_aligns_at_the_centre() {
    let dir = scratch("stencil-align");
    let f = "stencil_reads_at_offsets_only.f";
    std::fs::copy(root().join("analyzer/test_data").join(f), dir.join(f)).unwrap();
    std::fs::write(dir.join("free.toml"), "processes = 4\ntstart_us = 0\ntbyte_us = 0\nloop_overhead_us = 0\nmemref_ns = 0\n").unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", f, "--no-db", "--machine", "free.toml", "-o", "s.fdv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("chosen: (*,BLOCK)"), "{said}");
    assert!(!said.contains("neighbour's element"), "{said}");
    let text = std::fs::read_to_string(dir.join("s.fdv")).unwrap();
    assert!(text.contains("CDVM$ ALIGN SQ(I,J) WITH U(I,J)"), "{text}");
    assert!(text.contains("SHADOW_RENEW(SQ(0:0,1:1))"), "{text}");
}

/// An ACROSS nest ON a plane it does not iterate over (`V(I,J,K)` with K an argument, V
/// distributed along K: NPB LU's blts) is mapped in the `(*,*,BLOCK)` variant, which runs
/// like the sequential program on 2 and 3 processes, with threads and on the emulated
/// accelerator. (Session 16's guard against a constant plane subscript, which the runtime
/// refuses, also rejected this variant and every `(*,*,*,BLOCK)` variant of LU.)
#[test]
fn an_across_nest_on_an_invariant_plane_is_mapped() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("across-plane", "across_plane.f", "plane.f", "auto.fdv");
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scheme"]["name"] == "(*,*,BLOCK)")
        .and_then(|s| s["id"].as_i64())
        .unwrap_or_else(|| panic!("no (*,*,BLOCK) variant: {}", String::from_utf8_lossy(&out.stdout)));
    let out = sapfor().current_dir(&dir).args(["generate", "--scheme", &id.to_string(), "-o", "plane.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("plane.fdv")).unwrap();
    assert!(text.contains("CDVM$ PARALLEL (J,I) ON V(I,J,K), ACROSS(V(1:0,1:0,0:0))"), "{text}");
    let want = run_sequential(&dir, &dir.join("plane.f"), true);
    for cfg in [&["--np", "2"][..], &["--np", "3"], &["--np", "2", "--threads", "2"], &["--devices", "emu", "--np", "2"]] {
        let out = sapfor().current_dir(&dir).args(["run", "plane.fdv"]).args(cfg).output().unwrap();
        assert!(out.status.success(), "{cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{cfg:?}");
    }
}

/// `--auto` on a fixed-form test fixture: the report must choose `chosen`, the program must
/// hold every line of `wants`; then it runs in each configuration (with a profile, for
/// `inspect`) and prints what the sequential program prints.
fn auto_then_runs(tag: &str, fixture: &str, chosen: &str, wants: &[&str], inspect: impl Fn(&[&str], &str)) {
    assert!(have_gfortran());
    let (dir, report) = auto_on(tag, fixture, "p.f", "p.fdv");
    assert!(report.contains(&format!("chosen: {chosen}")), "{report}");
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    for want in wants {
        assert!(text.contains(want), "missing `{want}`:\n{text}");
    }
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    for cfg in [&["--np", "2"][..], &["--np", "3"], &["--np", "4", "--threads", "2"], &["--devices", "emu", "--np", "2"]] {
        let out = sapfor().current_dir(&dir).args(["run", "p.fdv", "--profile", "prof.txt"]).args(cfg).output().unwrap();
        assert!(out.status.success(), "{cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
        let got = String::from_utf8_lossy(&out.stdout);
        assert!(same_lines(&got, &want), "{cfg:?}: {got}\nwant:\n{want}");
        inspect(cfg, &std::fs::read_to_string(dir.join("prof.txt")).unwrap());
    }
}

/// NPB EP's shape: no array is worth distributing, yet the batch loop (a work array in COMMON
/// filled by a call, a histogram and two sums) divides its iterations between processes,
/// mapped on a template over its bounds (a scalar set once from a PARAMETER); the program
/// prints what the sequential one prints with processes, threads and on the emulator.
#[test]
fn a_parallel_loop_over_replicated_data_is_mapped_on_a_template() {
    let wants = ["CDVM$ TEMPLATE SFTK1(1:96)", "CDVM$ DISTRIBUTE SFTK1(BLOCK)", "CDVM$ PARALLEL (K) ON SFTK1(K), PRIVATE(I,L,T,X),", "REDUCTION(SUM(Q),SUM(SX),SUM(SY))"];
    auto_then_runs("template-batches", "batches.f", "templates", &wants, |cfg, prof| {
        // the batch loop is split between the processes (not run whole by each)
        let line = prof.lines().find(|l| l.contains("loop p.fdv:")).unwrap_or_else(|| panic!("{prof}"));
        assert!(!line.contains("not split"), "{cfg:?}: {prof}");
    });
}

/// Next to a distributed grid, the batch loop touches no distributed array: in the
/// distributed variant it is mapped on a template of its own instead of running whole on
/// every process, and the program prints what the sequential one prints.
#[test]
fn a_loop_touching_no_distributed_array_is_mapped_on_a_template_in_a_distributed_variant() {
    let wants = ["CDVM$ DISTRIBUTE G(*,BLOCK)", "CDVM$ TEMPLATE SFTK1(1:96)", "CDVM$ DISTRIBUTE SFTK1(BLOCK)", "CDVM$ PARALLEL (K) ON SFTK1(K),"];
    auto_then_runs("template-grid", "batches_grid.f", "(*,BLOCK)", &wants, |_, _| {});
}

/// A COMMON work array filled by a called procedure through its block (NPB SP's LHS and
/// LHSINIT) is private to the solver's K loop, which is then parallel; each thread gets its
/// own block (THREADPRIVATE): a firstprivate copy of the caller's would not be the one the
/// callee fills, and the program printed NaN.
#[test]
fn a_common_work_array_filled_by_a_callee_is_private_to_the_loop() {
    let wants = ["CDVM$ PARALLEL (K) ON R(0,*,K), PRIVATE(CV,I,J,LHS)"];
    auto_then_runs("common-work", "common_work.f", "(*,*,BLOCK)", &wants, |_, _| {});
}

/// The same words, numbers within 1e-12 relative (a reduction adds in another order on
/// several processes).
fn same_lines(a: &str, b: &str) -> bool {
    let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
    wa.len() == wb.len()
        && wa.iter().zip(&wb).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => (p - q).abs() <= 1e-12 * p.abs().max(q.abs()),
                    _ => false,
                }
        })
}

/// A loop parallel only on a large enough grid (a size read at run time) is written twice:
/// `IF (N .GE. 3) THEN`, the PARALLEL loop, `ELSE`, the loop as it is. Both sizes print what
/// the sequential program prints with threads, processes and on the emulator; with N = 2 the
/// parallel loop alone printed another F(0,998) (a value carried between iterations).
#[test]
fn a_loop_parallel_only_on_a_large_grid_is_tested_at_run_time() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("versioned", "versioned.f", "p.f", "p.fdv");
    assert!(report.contains("parallel when N .GE. 3"), "{report}");
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| *l == "      IF ((N .GE. 3)) THEN").unwrap_or_else(|| panic!("no test:\n{text}"));
    // (F is distributed by columns: the loop takes their distribution under the test)
    assert_eq!(lines[at + 1], "CDVM$ PARALLEL (J) ON F(0,J), PRIVATE(I,T)", "{text}");
    assert_eq!(lines[at + 2].trim(), "DO J = 1, 998", "{text}");
    let els = lines.iter().position(|l| *l == "      ELSE").unwrap_or_else(|| panic!("no ELSE:\n{text}"));
    assert_eq!(lines[els + 1].trim(), "DO J = 1, 998", "{text}");
    assert!(!lines[els..].iter().take_while(|l| **l != "      END IF").any(|l| l.starts_with("CDVM$")), "{text}");
    // `sapfor verify` trusts the directive under the test, and only under a test that implies it
    let out = sapfor().current_dir(&dir).args(["verify", "p.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("weak.fdv"), text.replace("IF ((N .GE. 3)) THEN", "IF (N .GE. 2) THEN")).unwrap();
    let out = sapfor().current_dir(&dir).args(["verify", "weak.fdv"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && said.contains("it is parallel when N .GE. 3"), "{said}");
    for n in ["40", "2"] {
        std::fs::write(dir.join("grid.dat"), format!("{n}\n")).unwrap();
        let want = run_sequential(&dir, &dir.join("p.f"), true);
        for cfg in [&["--threads", "2"][..], &["--np", "2"], &["--np", "3", "--threads", "2"], &["--devices", "emu"]] {
            let out = sapfor().current_dir(&dir).args(["run", "p.fdv"]).args(cfg).output().unwrap();
            assert!(out.status.success(), "{cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            let got = String::from_utf8_lossy(&out.stdout);
            assert!(same_lines(&got, &want), "N = {n}, {cfg:?}: {got}\nwant:\n{want}");
        }
    }
}

/// Batches whose timer calls run only when a flag file exists (NPB EP's shape): the batch loop
/// is parallel when `.NOT. TIMING` holds, and `--auto` maps it on a template of its own under
/// that test; the ELSE copy of the loop defines its labels anew (a jump out of a search loop, a
/// nest sharing its terminal statement, an arithmetic IF). With and without the flag file the
/// program prints what the sequential one prints, on processes and threads.
#[test]
fn a_loop_parallel_unless_timers_are_on_divides_its_batches_under_that_test() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("flagged-batches", "flagged_batches.f", "p.f", "p.fdv");
    assert!(report.contains("parallel when .NOT. TIMING, private(KK,L,T,X), reduction(sum:Q,sum:SX)"), "{report}");
    assert!(report.contains("chosen: templates"), "{report}");
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    assert!(text.contains("      IF ((.NOT. TIMING)) THEN\nCDVM$ PARALLEL (K) ON SFTK1(K), PRIVATE(I,J,KK,L,T,X),\nCDVM$* REDUCTION(SUM(Q),SUM(SX))\n      DO 150 K = 1, NB\n"), "{text}");
    let els = text.find("      ELSE\n      DO 151 ").unwrap_or_else(|| panic!("no ELSE:\n{text}"));
    let copy = &text[els..text[els..].find("      END IF").unwrap() + els];
    for want in ["DO 151 K = 1, NB", "DO 121 I = 1, 20", "GOTO 131", "  121    CONTINUE", "  131    CONTINUE", "DO 141 J", "DO 141 I", "IF (L - 5) 137, 138, 138", "  137          Q(L)", "GOTO 141", "  138          SX", "  151 CONTINUE"] {
        assert!(copy.contains(want), "{want}:\n{copy}");
    }
    assert!(!copy.contains("CDVM$") && !copy.contains(" 150 ") && !copy.contains("GOTO 130"), "{copy}");
    flag_tested(&dir, &text, "TIMING", "timing.flag", "timer calls");
}

/// `p.fdv` in `dir` (its text `text`) runs a loop under `IF ((.NOT. FLAG)) THEN`: `verify`
/// accepts it, and refuses it under `IF (FLAG) THEN`; without and with the file `file` (which
/// sets the flag) the program prints what the sequential `p.f` prints (`mark` only with the
/// flag), on processes and threads, every loop on its threads.
fn flag_tested(dir: &Path, text: &str, flag: &str, file: &str, mark: &str) {
    let out = sapfor().current_dir(dir).args(["verify", "p.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("weak.fdv"), text.replace(&format!("IF ((.NOT. {flag})) THEN"), &format!("IF ({flag}) THEN"))).unwrap();
    let out = sapfor().current_dir(dir).args(["verify", "weak.fdv"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && said.contains(&format!("it is parallel when .NOT. {flag}")), "{said}");
    for on in [false, true] {
        if on {
            std::fs::write(dir.join(file), "").unwrap();
        }
        let want = run_sequential(dir, &dir.join("p.f"), true);
        assert_eq!(want.contains(mark), on, "{want}");
        for cfg in [&["--np", "2"][..], &["--threads", "2"], &["--np", "3", "--threads", "2"]] {
            let out = sapfor().current_dir(dir).args(["run", "p.fdv"]).args(cfg).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{cfg:?}: {err}");
            // (every loop runs on its threads: no block private to each thread is needed)
            assert!(!err.contains("runs on one thread"), "{cfg:?}: {err}");
            let got = String::from_utf8_lossy(&out.stdout);
            assert!(same_lines(&got, &want), "flag {on}, {cfg:?}: {got}\nwant:\n{want}");
        }
    }
}

/// Columns given to a procedure that times itself under a logical flag in COMMON (NPB FT's
/// SWARZTRAUBER: `IF (TIMERS_ENABLED) CALL TIMER_START(4)` inside the procedure, not in the
/// loop). The timer calls count in COMMON and write lines, so the column loop is parallel only
/// when `.NOT. TIMERS` holds where it starts: `--auto` writes it under that test, `verify`
/// accepts it there and refuses it under the opposite test, and with and without the flag file
/// the program prints what the sequential one prints, on threads and processes. Under that
/// test each call reaches only its own column, so A is distributed by columns (before session
/// 43 the elements given inside a loop parallel only under tests kept A replicated); the loop
/// as it is, when the flag is set, runs over a full copy of A.
#[test]
fn a_loop_calling_a_procedure_that_times_itself_under_a_common_flag_is_parallel_under_that_test() {
    assert!(have_gfortran());
    let dir = scratch("timed-columns");
    std::fs::copy(root().join("shell-gui/tests/data/timed_columns.f"), dir.join("p.f")).unwrap();
    // (cheap loops and no accelerator: the loop is worth its threads)
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "p.fdv", "--machine", "m.toml"]).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("p.f:31: loop J (depth 2): sequential") && report.contains("parallel when .NOT. TIMERS: the program can test this"), "{report}");
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    assert!(text.contains("      IF ((.NOT. TIMERS)) THEN\nCDVM$ PARALLEL (J) ON A(*,J)\n         DO J = 1, M\n            CALL SMOOTH(A(1, J), N, J)\n"), "{text}");
    flag_tested(&dir, &text, "TIMERS", "timers.flag", "timer calls         192         192");
}

/// The estimates count a recurrence computed ahead (`Versioned::split`) on every process: with
/// six updates of the seed and two rows beside them, the variant dividing the columns costs
/// more than the replicated program (the copy ahead runs whole everywhere, and each process
/// runs its columns' updates again); with one update and 64 rows it costs a third of it.
#[test]
fn a_recurrence_computed_ahead_is_paid_for_by_every_process_in_the_estimates() {
    let dir = scratch("ahead-costs");
    let heavy = std::fs::read_to_string(root().join("shell-gui/tests/data/ahead_costs.f")).unwrap();
    let light: String = heavy
        .replace("N = 2, M = 4000", "N = 64, M = 4000")
        .lines()
        .filter(|l| !l.starts_with("         X0 = MOD") || l.contains("48271 + 11"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(light.matches("X0 = MOD").count(), 1, "{light}");
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    let total = |report: &str, name: &str| -> f64 {
        let line = report.lines().find(|l| l.trim_start_matches([' ', '*']).starts_with(name)).unwrap_or_else(|| panic!("no {name}:\n{report}"));
        line.split_whitespace().skip_while(|w| *w != "total").nth(1).and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    for (name, text, dearer) in [("heavy.f", &heavy, true), ("light.f", &light, false)] {
        std::fs::write(dir.join(name), text).unwrap();
        let out = sapfor().current_dir(&dir).args(["--auto", name, "-o", "out.fdv", "--no-db", "--force", "--machine", "m.toml"]).output().unwrap();
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
        assert!(report.contains("parallel once split, private(X0)"), "{report}");
        let (columns, replicated) = (total(&report, "(*,BLOCK)"), total(&report, "replicated"));
        assert_eq!(columns > replicated, dearer, "{name}: (*,BLOCK) {columns} s, replicated {replicated} s\n{report}");
        if !dearer {
            assert!(columns < replicated / 3.0, "{report}");
        }
    }
}

/// A parallel loop calls a procedure whose own loop is long enough for threads too: that
/// loop runs inside an iteration of the caller's and gets no directive (the program stopped
/// with "called before sapfor_init" when a thread of the outer loop started it as a PARALLEL
/// loop of its own); with threads the program prints what the sequential one prints. Every
/// stored variant is checked: the replicated one runs loop K on threads, `(*,BLOCK)` divides
/// it `ON A(*,K)` (ROW gets the column `A(1,K)`), the others run it on every process.
#[test]
fn a_loop_in_a_procedure_a_parallel_loop_calls_has_no_directive_of_its_own() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("nested-call", "nested_call.f", "p.f", "p.fdv");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut parallel_k = vec![];
    for id in v.as_array().unwrap().iter().filter_map(|s| s["id"].as_i64()) {
        let name = format!("v{id}.fdv");
        let out = sapfor().current_dir(&dir).args(["generate", "--scheme", &id.to_string(), "-o", &name]).output().unwrap();
        assert!(out.status.success(), "#{id}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let k = text.find("      DO K = 1, 16\n         CALL ROW").expect(&text);
        if text[..k].lines().last().is_some_and(|l| l.starts_with("CDVM$ PARALLEL (K)")) {
            parallel_k.push(text[..k].lines().last().unwrap().to_string());
            let row = text.find("SUBROUTINE ROW").unwrap();
            assert!(!text[row..].contains("CDVM$"), "{text}");
        }
        for cfg in [&["--threads", "2"][..], &["--np", "2", "--threads", "2"]] {
            let out = sapfor().current_dir(&dir).args(["run", &name]).args(cfg).output().unwrap();
            assert!(out.status.success(), "#{id} {cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(same_lines(&String::from_utf8_lossy(&out.stdout), &want), "#{id} {cfg:?}");
        }
    }
    assert!(parallel_k.contains(&"CDVM$ PARALLEL (K) PRIVATE(I)".to_string()), "{parallel_k:?}");
    assert!(parallel_k.contains(&"CDVM$ PARALLEL (K) ON A(*,K), PRIVATE(I)".to_string()), "{parallel_k:?}");
}

/// Without `--machine`, `--auto` chooses for the default machine, which has an accelerator:
/// on a machine without one (no /dev/nvidia0) the report says that the regions it placed there
/// run on the host here, and how to describe this machine instead; with a machine file, or on
/// a machine with a GPU, it says nothing of the kind.
#[test]
fn the_default_machine_s_accelerator_is_named_where_this_machine_has_none() {
    let dir = scratch("default-accelerator");
    std::fs::copy(root().join("shell-gui/tests/data/versioned.f"), dir.join("p.f")).unwrap();
    let note = "so they run on the host here";
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "p.fdv", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("on the accelerator"), "{report}");
    let gpu_here = std::path::Path::new("/dev/nvidia0").exists();
    let said = report.lines().any(|l| l.contains(note) && l.contains("sapfor calibrate -o machine.toml"));
    assert_eq!(said, !gpu_here, "{report}");
    std::fs::write(dir.join("m.toml"), "gpus_per_node = 1\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "q.fdv", "--no-db", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains(note), "{report}");
}

/// Where another choice wins over a loop parallel under run-time tests, the report says so,
/// with the reason. Here the loop steps by 2 over F's columns: a variant distributing F's
/// rows can neither map it nor divide it over copies, and maps the loop inside it instead.
#[test]
fn a_loop_parallel_under_tests_that_another_choice_keeps_sequential_is_explained() {
    let dir = scratch("versioned-explained");
    let text = std::fs::read_to_string(root().join("shell-gui/tests/data/versioned.f")).unwrap();
    let loop_head = "      DO J = 1, 998\n         DO I = 0, N - 1\n";
    assert!(text.contains(loop_head));
    std::fs::write(dir.join("p.f"), text.replace(loop_head, "      DO J = 1, 998, 2\n         DO I = 0, N - 1\n")).unwrap();
    std::fs::write(dir.join("gpu.toml"), "device_speedup = 1000.0\nkernel_launch_us = 0.001\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "p.fdv", "--machine", "gpu.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("(unit FILL): parallel when N .GE. 3, but runs as it is in this variant: the loop at line 36 cannot be aligned with the distribution (no reference indexes every distributed dimension by a loop variable), and its iterations cannot be divided over full copies"), "{report}");
}

/// The configurations each variant runs in: processes, threads and the emulator.
const VARIANT_RUNS: [&[&str]; 4] = [&["--np", "2"], &["--np", "3"], &["--np", "2", "--threads", "2"], &["--devices", "emu", "--np", "2"]];

/// Every variant `--auto` stored in `dir`'s project database (at least `min` of them),
/// written with `sapfor generate --scheme K`, handed to `inspect` (id, text), then run with
/// processes, threads and the emulator: each must print `want`.
fn every_variant_prints(dir: &Path, want: &str, min: usize, mut inspect: impl FnMut(i64, &str)) {
    variants_print(dir, want, min, &VARIANT_RUNS, |id, text| {
        inspect(id, text);
        true
    });
}

/// As `every_variant_prints`, in the configurations `runs`, for the variants `pick` (id,
/// text) keeps.
fn variants_print(dir: &Path, want: &str, min: usize, runs: &[&[&str]], mut pick: impl FnMut(i64, &str) -> bool) {
    let out = sapfor().current_dir(dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<i64> = v.as_array().unwrap().iter().filter_map(|s| s["id"].as_i64()).collect();
    assert!(ids.len() >= min, "the distributed variants and replicated: {v}");
    for id in ids {
        let name = format!("v{id}.fdv");
        let out = sapfor().current_dir(dir).args(["generate", "--scheme", &id.to_string(), "-o", &name]).output().unwrap();
        assert!(out.status.success(), "#{id}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        if !pick(id, &text) {
            continue;
        }
        for cfg in runs {
            let out = sapfor().current_dir(dir).args(["run", &name]).args(*cfg).output().unwrap();
            assert!(out.status.success(), "#{id} {cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "#{id} {cfg:?}:\n{text}");
        }
    }
}

/// Extremum searches with ties: each process keeps the first of equal extrema in its part,
/// and the runtime tells the parts' results apart by their location variables, then by the
/// processes' order. A downward search, and a 2-D search that records only the inner index,
/// run as ordinary code in the variants that would divide them (the report says why); the
/// 2-D search recording both indices is divided in every variant; a search with `.GE.` keeps
/// the last of equal values and is sequential. Every stored variant prints what the
/// sequential program prints with processes, threads and the emulator (before, variant
/// (*,BLOCK) printed other indices at `--np 2`).
#[test]
fn every_variant_keeps_the_first_of_equal_extrema_in_the_loop_s_order() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("extremum-order", "extremum_order.f", "e.f", "auto.fdv");
    for want in [
        "e.f:20 (unit EXTORD): not a parallel loop in this variant, it runs on every process over the distributed data: the loop at line 20 searches for an extremum (MINLOC(XM)) in loop J, which does not step upwards",
        "e.f:39 (unit EXTORD): not a parallel loop in this variant, it runs on every process over the distributed data: the loop at line 39 searches for an extremum (MAXLOC(VM)) and would be divided along loop J, which its location (IV) does not record outermost first",
        "the search for the extremum WM at line 57 keeps the last of equal values in JW (.GE./.LE.)",
    ] {
        assert!(report.contains(want), "missing `{want}`:\n{report}");
    }
    let want = run_sequential(&dir, &dir.join("e.f"), true);
    let mut divided = 0;
    every_variant_prints(&dir, &want, 4, |_, text| {
        if text.contains("CDVM$ PARALLEL (J,I) ON B(I,J), REDUCTION(MAXLOC(YM,IY,JY))") {
            divided += 1;
        }
    });
    assert_eq!(divided, 3, "the search recording both indices is divided in every distributed variant");
}

/// Extremum searches that record only the index (Livermore kernel 24: `IF (X(K) .LT. X(M)) M
/// = K`) are MINLOC/MAXLOC reductions of a value variable the generated program adds: it is
/// declared, set to `X(M)` before the loop when the loop runs (fetched where X is
/// distributed), and the search is written anew with it (a labelled terminal IF gets its
/// label on a CONTINUE after it). On a machine where threads cost nothing every variant maps
/// the searches; each prints what the sequential program prints with processes, threads and
/// the emulator, and `sapfor verify` accepts it.
#[test]
fn a_search_that_records_only_the_index_becomes_a_minloc_of_a_new_variable() {
    assert!(have_gfortran());
    let dir = scratch("index-search");
    std::fs::copy(root().join("shell-gui/tests/data/index_search.f"), dir.join("s.f")).unwrap();
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "s.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("s.f:23: loop K (depth 1): parallel, reduction(minloc:SFVM1)"), "{report}");
    assert!(report.contains("SFVM1 is a variable the generated program adds to keep X(M) in"), "{report}");
    let want = run_sequential(&dir, &dir.join("s.f"), true);
    let mut labelled = false;
    let mut mapped = 0;
    every_variant_prints(&dir, &want, 4, |id, text| {
        // (a variant may leave the search as it is: X has a copy on every process of an
        // axis of a (BLOCK,BLOCK) grid, say)
        if text.contains("REDUCTION(MINLOC(SFVM1,M))") {
            mapped += 1;
            for want in ["      DOUBLE PRECISION SFVM1\n", "      IF (2 .LE. N) SFVM1 = X(M)\n", "         IF (X(K) .LT. SFVM1) THEN\n            SFVM1 = X(K)\n            M = K\n         END IF\n   24 CONTINUE\n"] {
                assert!(text.contains(want), "#{id}: missing `{want}`:\n{text}");
            }
            assert!(!text.contains("IF (X(K) .LT. X(M))"), "#{id}: the search as it was:\n{text}");
        } else {
            assert!(text.contains("         IF (X(K) .LT. X(M)) M = K\n") && !text.contains("SFVM1"), "#{id}:\n{text}");
        }
        labelled |= text.contains("      IF (Y(K) .GT. SFVL1) THEN\n         SFVL1 = Y(K)\n         L = K\n      END IF\n   30 CONTINUE\n");
        let out = sapfor().current_dir(&dir).args(["verify", &format!("v{id}.fdv")]).output().unwrap();
        assert!(out.status.success(), "#{id} verify: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    });
    assert!(labelled, "the labelled terminal search written anew in some variant");
    assert!(mapped >= 2, "the first search a reduction in the replicated and a distributed variant");
}

/// A symmetric Gauss-Seidel (a sweep upwards, then one downwards): the downward sweep is an
/// ACROSS loop like the upward one in every distributed variant (it used to stay out of any
/// PARALLEL directive and run on every process over the distributed array, which made every
/// distributed variant cost more than the replicated program), and every stored variant
/// prints what the sequential program prints.
#[test]
fn a_sweep_downwards_is_an_across_loop_in_every_distributed_variant() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("sgs-down", "sgs_down.f", "s.f", "auto.fdv");
    let want = run_sequential(&dir, &dir.join("s.f"), true);
    let mut distributed = 0;
    every_variant_prints(&dir, &want, 4, |id, text| {
        if text.contains("CDVM$ DISTRIBUTE A(") {
            distributed += 1;
            let sweeps = text.matches("CDVM$ PARALLEL (J,I) ON A(I,J), ACROSS(A(1:1,1:1))").count();
            assert_eq!(sweeps, 2, "#{id}: both sweeps pipelined\n{text}");
        }
    });
    assert_eq!(distributed, 3, "(BLOCK,*), (*,BLOCK), (BLOCK,BLOCK)");
}

/// A replicated array that a procedure writes inside a divided loop (`CALL FILL(B(1,J), M,
/// J)` in a loop `ON A(1,J)`): each process runs the calls of its iterations, and B is merged
/// after the loop like an array the loop assigns itself. Before, only assigned arrays were
/// merged and `(BLOCK,*)` printed another sum at `--np 2` (B's columns stayed zero on the
/// processes that do not own row 1). Every stored variant prints the sequential output.
#[test]
fn a_replicated_array_a_called_procedure_writes_in_a_divided_loop_is_merged() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("call-writes-copy", "call_writes_copy.f", "c.f", "auto.fdv");
    let want = run_sequential(&dir, &dir.join("c.f"), true);
    let mut divided = 0;
    every_variant_prints(&dir, &want, 4, |_, text| {
        if text.contains("PARALLEL (J) ON A(1,J)") && text.contains("CALL FILL(B(1,J), M, J)") {
            divided += 1;
        }
    });
    assert!(divided >= 2, "the call loop is divided in the distributed variants");
}

/// Elements of distributed arrays given to procedures (issue 17 cause 3): a column `A(1,J)`
/// given to `X(M)` in a loop over columns, and `C(1,I,J)` given to `X(5)` in a sweep along J
/// inside a loop over I. Those arrays are distributed now (before, "passed to a procedure"
/// kept them replicated). Where the variant divides the calls' loop, each process calls the
/// procedures on its own columns; where it cannot (SWEEP's loop with J divided), the nest is
/// divided on a template of its own over full copies of C (fetched before it, merged after
/// it), or, where the grid's first axis is not split, it runs on every process over a full
/// copy, each process keeping its own part after it. Every stored variant prints what the
/// sequential program prints with processes, threads and the emulator.
#[test]
fn elements_of_distributed_arrays_are_given_to_procedures() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("column-calls", "column_calls.f", "c.f", "auto.fdv");
    assert!(!report.contains("stays replicated: it is passed to a procedure"), "{report}");
    assert!(report.contains("c.f:49 (unit SWEEP): not a parallel loop in this variant, it runs on every process over the distributed data"), "{report}");
    assert!(report.contains("c.f:49 (unit SWEEP): divided on TEMPLATE SFTI1(1:60) over full copies of C (fetched before it; what it writes of C sent back to the owners after it)"), "{report}");
    let want = run_sequential(&dir, &dir.join("c.f"), true);
    let (mut sweep_divided, mut smooth_divided, mut sweep_on_copies) = (0, 0, 0);
    every_variant_prints(&dir, &want, 6, |_, text| {
        sweep_divided += usize::from(text.contains("PARALLEL (I) ON C(*,I,*)"));
        smooth_divided += usize::from(text.contains("PARALLEL (J) ON A(1,J)\n         DO J = 2, N-1\n            CALL SMOOTH"));
        sweep_on_copies += usize::from(text.contains("PARALLEL (I) ON SFTI1(I), PRIVATE(J)\n      DO I = 1, M"));
    });
    assert!(sweep_divided >= 1 && smooth_divided >= 1 && sweep_on_copies >= 2, "{sweep_divided} {smooth_divided} {sweep_on_copies}");
}

/// Planes of a distributed 3-D array given to a procedure as 2-D arrays whose sizes it gets as
/// arguments (`CALL PLANE(A(1,1,K), N1, N2, K)`, `A(N1,N2,N3)`, `X(M1,M2)`): the dummy's leading
/// extent is the actual's, so the call reaches plane K only, the loop over K is parallel, and
/// `(*,*,BLOCK)` divides it `ON A(*,*,K)` (each call's plane is its owner's). Every stored
/// variant prints what the sequential program prints with processes, threads and the emulator.
#[test]
fn planes_given_to_procedures_as_2d_arrays_of_symbolic_size_are_divided() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("plane-calls", "plane_calls.f", "c.f", "auto.fdv");
    assert!(report.contains("c.f:30: loop K (depth 1): parallel") && report.contains("c.f:33: loop K (depth 1): parallel"), "{report}");
    assert!(!report.contains("stays replicated: it is passed to a procedure"), "{report}");
    let want = run_sequential(&dir, &dir.join("c.f"), true);
    let mut divided = 0;
    every_variant_prints(&dir, &want, 2, |_, text| {
        divided += usize::from(text.contains("CDVM$ PARALLEL (K) ON A(*,*,K)\n      DO 10 K = 1, N3\n         CALL PLANE(A(1, 1, K), N1, N2, K)"));
    });
    assert!(divided >= 1, "no variant divides the planes");
}

/// Cache blocking: blocks of NB columns given to a procedure (`JE = MIN(JB + NB - 1, N)` or
/// `JE = JB + NB - 1` then `IF (JE .GT. N) JE = N`, and `CALL KERN(A(1,JB), LDA, JE - JB + 1)`):
/// the code before the call bounds each block by `JB..JB+NB-1` and by N, so the blocks are
/// disjoint and the two loops over JB run on threads; the look-alike whose blocks overlap by a
/// column, and the one that may pass N, stay in order. The program (the analyzer's fixture,
/// 304 columns) prints what the sequential one prints on threads and processes.
#[test]
fn blocks_of_columns_given_to_a_procedure_are_divided() {
    assert!(have_gfortran());
    let dir = scratch("blocked-calls");
    let text = std::fs::read_to_string(root().join("analyzer/test_data/blocked_calls.f")).unwrap();
    assert!(text.contains("PARAMETER (LDA = 6, N = 40)"));
    std::fs::write(dir.join("c.f"), text.replace("PARAMETER (LDA = 6, N = 40)", "PARAMETER (LDA = 60, N = 304)")).unwrap();
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "c.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fdv = std::fs::read_to_string(dir.join("auto.fdv")).unwrap();
    for (label, divided) in [("10", true), ("20", true), ("30", false), ("40", false)] {
        let at = fdv.find(&format!("      DO {label} JB = 1, N, NB")).unwrap_or_else(|| panic!("no loop {label}:\n{fdv}"));
        assert_eq!(fdv[..at].ends_with("CDVM$ PARALLEL (JB) PRIVATE(JE)\n"), divided, "loop {label}:\n{fdv}");
    }
    let out = sapfor().current_dir(&dir).args(["verify", "auto.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let want = run_sequential(&dir, &dir.join("c.f"), true);
    for cfg in [&["--threads", "2"][..], &["--np", "2"], &["--np", "3", "--threads", "2"]] {
        let out = sapfor().current_dir(&dir).args(["run", "auto.fdv"]).args(cfg).output().unwrap();
        assert!(out.status.success(), "{cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{cfg:?}");
    }
}

/// Loops blocked by hand inline (`JE = MIN(JB + NB - 1, N)`, `DO J = JB, JE`): the loop over
/// JB is parallel without an array reduction of A (before: `REDUCTION` of the whole array, or
/// sequential with the clamp `IF (JE .GT. N) JE = N`). The replicated variant divides JB, the
/// distributed ones the loops inside; every stored variant prints what the sequential
/// program prints (N = 45 is no multiple of the blocks: the last one is short).
#[test]
fn loops_blocked_by_hand_inline_are_divided_by_blocks() {
    assert!(have_gfortran());
    let dir = with_cheap_threads("inline-blocked", "analyzer/test_data/inline_blocked.f", "b.f");
    let out = sapfor().current_dir(&dir).args(["--auto", "b.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = run_sequential(&dir, &dir.join("b.f"), true);
    let mut by_blocks = 0;
    every_variant_prints(&dir, &want, 3, |_, text| {
        assert!(!text.contains("REDUCTION(SUM(A))"), "{text}");
        by_blocks += usize::from(text.contains("CDVM$ PARALLEL (JB) PRIVATE(I,J,JE)\n      DO 10 JB = 1, N, NB"));
        by_blocks += usize::from(text.contains("CDVM$ PARALLEL (JB) PRIVATE(I,J,JE)\n      DO 20 JB = 1, N, 4"));
        assert!(!text.contains("CDVM$ PARALLEL (JB) PRIVATE(I,J,JE)\n      DO 30"), "{text}");
        assert!(!text.contains("CDVM$ PARALLEL (JB) PRIVATE(I,J,JE)\n      DO 40"), "{text}");
    });
    assert!(by_blocks >= 2, "{by_blocks}");
}

/// Vectors laid out by hand as matrices with the leading dimension in a variable
/// (`W(J-JB+1+LD*(I-1))`, NPB FT's PLANE), filled and read inline or through a matrix dummy
/// `V(LD,N)`: W is private in the loop over planes, which some variant divides; where rows
/// overlap unless one block holds every column, the loop is parallel under that test. Every
/// stored variant prints what the sequential program prints.
#[test]
fn vectors_laid_out_by_hand_as_matrices_are_private_in_the_loop_over_planes() {
    assert!(have_gfortran());
    let dir = with_cheap_threads("hand-matrix", "analyzer/test_data/hand_matrix.f", "h.f");
    let out = sapfor().current_dir(&dir).args(["--auto", "h.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = run_sequential(&dir, &dir.join("h.f"), true);
    let (mut inline, mut by_call, mut tested) = (0, 0, 0);
    every_variant_prints(&dir, &want, 3, |_, text| {
        inline += usize::from(text.contains("PRIVATE(I,J,JB,JE,W)\n      do k = 1, n3"));
        by_call += usize::from(text.contains("PRIVATE(I,J,JB,JE,LEN,W)\n      do k = 1, n3"));
        // (rows that overlap unless one block holds all of N2: parallel only under that test,
        // true in the second call of TIGHT)
        tested += usize::from(text.contains("      IF ((NB .GE. N2 + 1) .AND. (NB .GE. 2)) THEN\nCDVM$ PARALLEL (K"));
    });
    assert!(inline >= 1 && by_call >= 1 && tested >= 1, "{inline} {by_call} {tested}");
}

/// A procedure's COMMON scratch array that the analysis cannot show is written before it is
/// read in each call (NPB FT's SCR in SWARZTRAUBER; here BFLY's stages keep LI * LJ = N, with
/// a number of stages the analysis does not compute):
/// the loop calling it is sequential, and the note says which refinement makes SCR private.
/// A refinement at a line where no loop starts is refused (before, it was recorded and did
/// nothing); at the loop's line it makes the loop parallel, and every stored variant prints
/// what the sequential program prints.
#[test]
fn a_callee_s_scratch_array_is_made_private_by_the_refinement_its_note_names() {
    assert!(have_gfortran());
    let dir = with_cheap_threads("callee-scratch", "shell-gui/tests/data/callee_scratch.f", "p.f");
    let out = sapfor().current_dir(&dir).args(["analyze", "p.f"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    let at = report.find("p.f:21: loop K (depth 1): sequential").unwrap_or_else(|| panic!("{report}"));
    let note = &report[at..report[at..].find("\np.f:").map_or(report.len(), |e| at + e)];
    assert!(note.contains("BFLY writes SCR and reads elements of it the analysis does not show it wrote first in the same call"), "{note}");
    assert!(note.contains("`sapfor refine private` on this loop with SCR makes it private"), "{note}");
    let out = sapfor().current_dir(&dir).args(["refine", "private", "p.f:22", "SCR"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no DO loop at p.f:22"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = sapfor().current_dir(&dir).args(["refine", "list"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("no refinements recorded"), "{}", String::from_utf8_lossy(&out.stdout));
    let out = sapfor().current_dir(&dir).args(["refine", "private", "p.f:21", "SCR"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("p.f:21: loop K (depth 1): parallel, private(SCR)"), "{}", String::from_utf8_lossy(&out.stdout));
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut private = 0;
    every_variant_prints(&dir, &want, 2, |_, text| {
        // (the directive, then what the user asserted as a hint: SCR private, not the whole
        // loop parallel)
        let at = text.find("      DO 20 K = 1, M").unwrap_or_else(|| panic!("{text}"));
        let mut before = text[..at].trim_end().rsplit('\n');
        let (hint, directive) = (before.next().unwrap_or(""), before.next().unwrap_or(""));
        if directive.starts_with("CDVM$ PARALLEL (K") {
            assert!(directive.contains("PRIVATE(SCR)") && hint == "C$SPF ANALYSIS(PRIVATE(SCR))", "{text}");
            private += 1;
        }
    });
    assert!(private >= 1, "{private}");
    // `sapfor verify` takes the hint (and refutes the loop without it)
    let text = std::fs::read_to_string(dir.join("auto.fdv")).unwrap();
    let out = sapfor().current_dir(&dir).args(["verify", "auto.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}\n{text}", String::from_utf8_lossy(&out.stdout));
    std::fs::write(dir.join("bare.fdv"), text.replace("C$SPF ANALYSIS(PRIVATE(SCR))\n", "")).unwrap();
    let out = sapfor().current_dir(&dir).args(["verify", "bare.fdv"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stdout).contains("is not parallel"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// A COMMON work array a procedure fills before reading it only for the values the program
/// gives it (NPB FT's SCR; here STAGES, whose passes write W(1:2**L) and read W(1:N) back,
/// called with L = LG2(N)): the analysis executes the procedure's integer code with those
/// values and sees each call write what it reads of W first, so the loop calling it is
/// parallel with W private, and every stored variant prints what the sequential program
/// prints. The look-alike HALF, given L - 1, reads W(9) before writing it: its loop stays
/// sequential, and the note says which element and line.
#[test]
fn a_work_array_filled_first_for_the_program_s_values_is_private() {
    assert!(have_gfortran());
    let dir = with_cheap_threads("scratch-values", "shell-gui/tests/data/scratch_values.f", "p.f");
    let out = sapfor().current_dir(&dir).args(["analyze", "p.f"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("p.f:25: loop K (depth 1): parallel, private(W)\n"), "{report}");
    let at = report.find("p.f:61: loop K (depth 1): sequential").unwrap_or_else(|| panic!("{report}"));
    let note = &report[at..report[at..].find("\np.f:").map_or(report.len(), |e| at + e)];
    assert!(
        note.contains("executed with the values its call at line 62 gives it (L = 3, N = 16), HALF reads W(9) at line 106 before writing it"),
        "{note}"
    );
    let out = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut private = 0;
    every_variant_prints(&dir, &want, 1, |_, text| {
        assert!(!text.contains("PRIVATE(W)\n      DO 20 K = 1, M\n         CALL HALF"), "{text}");
        private += usize::from(text.contains("CDVM$ PARALLEL (K) PRIVATE(W)\n      DO 20 K = 1, M\n         CALL STAGES(X(1, K), N, L)"));
    });
    assert!(private >= 1, "{private}");
}

/// A sweep reading the previous row at the next plane (`C(I,J,K-1) = C(I,J-1,K)`): the value
/// read at K+1 was written in an earlier iteration of J, against the pipeline's flow in K. The
/// variants that divide K keep J in order outside the PARALLEL tuple (before, they pipelined J
/// across the planes with `ACROSS(C(0:0,1:0,0:1))` and printed another checksum at np 2, a
/// fuzzer's find), and every stored variant prints what the sequential program prints.
#[test]
fn a_sweep_reading_the_next_plane_of_the_previous_row_is_not_pipelined_against_the_flow() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("across-against", "across_against.f", "p.f", "auto.fdv");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut kept_in_order = 0;
    every_variant_prints(&dir, &want, 8, |_, text| {
        assert!(!text.contains("PARALLEL (J,K,I)"), "{text}");
        kept_in_order += usize::from(text.contains("      DO 110 J = 3, 11\nCDVM$ PARALLEL (K,I) ON C(I,J,K-1), SHADOW_RENEW(C(0:0,0:0,0:1))"));
    });
    assert!(kept_in_order >= 2, "{kept_in_order}");
}

/// Loops parallel only under run-time tests (NPB SP's solvers: work arrays in COMMON private
/// when a line has three points at least) are mapped in the distributed variants: XSOLVE's
/// loop over K on R's distributed last dimension, ZSOLVE's loop over J divided over copies;
/// the work array is not distributed (it is private). Every stored variant prints what the
/// sequential program prints with processes, threads and the emulator, on a grid where the
/// tests hold; with two points a side the loops run as they are, over the distributed data.
#[test]
fn loops_parallel_under_run_time_tests_are_mapped_on_distributed_data() {
    assert!(have_gfortran());
    let dir = scratch("line-solvers");
    std::fs::copy(root().join("shell-gui/tests/data/line_solvers.f"), dir.join("p.f")).unwrap();
    std::fs::write(dir.join("grid.dat"), "20 20 20\n").unwrap();
    let o = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "auto.fdv"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("array LHS stays replicated: it is private in the loop at"), "{report}");
    assert!(!report.contains("(*,*,BLOCK) rejected"), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let (mut on_k, mut on_copies) = (vec![], vec![]);
    every_variant_prints(&dir, &want, 8, |id, text| {
        if text.contains("      IF ((NX .GE. 3) .AND. (NZ .GE. 3)) THEN\nCDVM$ PARALLEL (K) ON R(*,*,K), PRIVATE(I,J,LHS)\n      DO K = 1, NZ") {
            on_k.push(id);
        }
        if text.contains("      IF ((NZ .GE. 3) .AND. (NX .GE. 3)) THEN\nCDVM$ PARALLEL (J) ON SFTJ1(J), PRIVATE(I,K,LHS)\n      DO J = 1, NY") {
            on_copies.push(id);
        }
    });
    assert!(!on_k.is_empty() && !on_copies.is_empty(), "{on_k:?} {on_copies:?}");
    // the tests fail: the copies of the loops in the ELSE branches run over the distributed data
    std::fs::write(dir.join("grid.dat"), "2 20 2\n").unwrap();
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    for id in on_k.iter().chain(&on_copies) {
        for cfg in [&["--np", "2"][..], &["--np", "3", "--threads", "2"], &["--devices", "emu", "--np", "2"]] {
            let out = sapfor().current_dir(&dir).args(["run", &format!("v{id}.fdv")]).args(cfg).output().unwrap();
            assert!(out.status.success(), "#{id} {cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "#{id} {cfg:?}");
        }
    }
}

/// A loop parallel under a run-time test over an INHERIT dummy (the subroutine gets E whole):
/// where E's rows are divided no reference fits it, and it is divided on a template of its
/// own over a full copy of the dummy (before, such loops ran as they are: the runtime kept no
/// copy of a dummy, and reading the local block at global indices printed another checksum at
/// `--np 2`). Every stored variant prints the sequential output.
#[test]
fn a_loop_over_an_inherited_dummy_is_divided_over_its_copy() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("dummy-on-copies", "dummy_on_copies.f", "p.f", "p.fdv");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut rows = 0;
    every_variant_prints(&dir, &want, 4, |_, text| {
        if text.contains("DISTRIBUTE E(BLOCK,*)") {
            rows += 1;
            let wsa = text.find("SUBROUTINE WSA").expect(text);
            assert!(text[wsa..].contains("PARALLEL (J) ON SFTJ1(J)"), "{text}");
        }
    });
    assert_eq!(rows, 1);
}

/// The passes of an FFT (tests/data/fft_passes.f, NPB FT's FFTXYZ in small): in place along x
/// and y, then along z into XOUT, a vector laid out by hand as the 3-D array, given U and V
/// and, in one call, U for both dummies. XOUT is bound to them (reshaped), U and V are twins,
/// and the variant dividing the last dimension runs the z pass on a template over full copies
/// (the planes move between the processes: a transposition); the variants dividing another
/// dimension are rejected with the reason, and the loops using both dummies are no
/// accelerator regions (their copies there are kept per name: the emulator failed on them).
/// Every stored variant prints the sequential output with processes, threads and the
/// emulator.
#[test]
fn fft_passes_with_a_vector_laid_out_as_the_array_are_distributed() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("fft-passes", "fft_passes.f", "p.f", "p.fdv");
    assert!(report.contains("variant (BLOCK,*,*) rejected: p.f (unit PASSES): the dummy XOUT of PASSES is a vector laid out as the array U"), "{report}");
    assert!(report.contains("loop 50 is not a region: uses X, which a call gives the same array as XOUT"), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut last = 0;
    every_variant_prints(&dir, &want, 2, |_, text| {
        if text.contains("DISTRIBUTE U(*,*,BLOCK)") {
            last += 1;
            let passes = text.find("SUBROUTINE PASSES").expect(text);
            assert!(text[passes..].contains("INHERIT XOUT") && text[passes..].contains("ON SFTJ1(J)"), "{text}");
        }
    });
    assert_eq!(last, 1);
}

/// One subroutine called with different arrays of the same shape (FILL and SMOOTH get A, B
/// and C; before, each of them stayed replicated: "whose dummy the calls do not all bind to
/// one array"): every distributed variant aligns B and C with A, the dummies inherit, and
/// every stored variant prints the sequential output with processes, threads and the
/// emulator.
#[test]
fn arrays_given_to_one_dummy_at_different_calls_are_distributed_alike() {
    assert!(have_gfortran());
    let dir = scratch("twin-dummies");
    std::fs::copy(root().join("analyzer/test_data/twin_dummies.f"), dir.join("p.f")).unwrap();
    let o = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "p.fdv"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(!report.contains("stays replicated"), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut alike = 0;
    every_variant_prints(&dir, &want, 4, |_, text| {
        if text.contains("DISTRIBUTE A(") {
            assert!(text.contains("ALIGN B(I,J) WITH A(I,J)") && text.contains("ALIGN C(I,J) WITH A(I,J)"), "{text}");
            let smooth = text.find("SUBROUTINE SMOOTH").expect(text);
            assert!(text[smooth..].contains("INHERIT X"), "{text}");
            let blend = text.find("SUBROUTINE BLEND").expect(text);
            assert!(text[blend..].contains("INHERIT X") && text[blend..].contains("INHERIT Y"), "{text}");
            alike += 1;
        }
    });
    assert_eq!(alike, 3);
}

/// R goes with the template U on every dimension the nests name together: the frequent nests
/// over K and J (their loops over I below a work array's loop) agree with the sweep along I
/// on J and K, and add their weight to its correspondence (alone they outweighed it, R was
/// aligned `R(*,J,K)`, and every variant dividing I was rejected: "carries a dependence on R,
/// which is not distributed"). Every stored variant prints the sequential output.
#[test]
fn nests_naming_fewer_dimensions_agree_with_the_fuller_alignment() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("partial-align", "partial_align.f", "p.f", "p.fdv");
    assert!(!report.contains("rejected"), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut aligned = 0;
    every_variant_prints(&dir, &want, 8, |_, text| aligned += usize::from(text.contains("ALIGN R(I,J,K) WITH U(I,J,K)")));
    assert_eq!(aligned, 7);
}

/// A note every distributed variant carries (a loop over an array that is never indexed with
/// the distributed ones runs on every process) is printed once, under "in every distributed
/// variant", not under each of them; a note of one variant only stays under it; no note line
/// is printed twice.
#[test]
fn a_note_every_variant_shares_is_printed_once() {
    let (_dir, out) = auto_on("shared_notes", "shared_notes.f", "shn.f", "shn.fdv");
    let schemes = &out[out.find("schemes estimated").expect(&out)..out.find("\nchosen:").expect(&out)];
    let shared = "loop at SHN:27 touches no distributed array: it runs on every process";
    assert_eq!(schemes.matches(shared).count(), 1, "{schemes}");
    let head = schemes.find("  in every distributed variant:").expect(schemes);
    let first_variant = schemes.find("#1 ").or_else(|| schemes.find("(BLOCK")).expect(schemes);
    let at = schemes.find(shared).unwrap();
    assert!(head < at && at < first_variant, "the shared note is not under its heading:\n{schemes}");
    // (the W fill at line 6 is aligned with A's first dimension in (BLOCK,*) only)
    assert!(schemes[first_variant..].contains("loop at SHN:6 touches no distributed array"), "{schemes}");
    let mut seen = std::collections::BTreeSet::new();
    for l in out.lines().filter(|l| l.starts_with("        ") || l.starts_with("note:")) {
        assert!(l.contains("region ") || seen.insert(l), "printed twice: {l}\n{out}");
    }
}

/// An array aligned along one of the dimensions a loop divides (E(I,*) WITH C(I,*,*)) and
/// written in that loop beside B(I,J): on a grid that divides the loop along J, only one of
/// E's copies along that axis would be written (fuzzer seed 71006 printed another E and B at
/// `--np 2` on a 1x2 grid). The loop runs as ordinary code in such variants, the report says
/// why, and every stored variant prints what the sequential program prints, on 1x2 too.
#[test]
fn a_loop_is_not_divided_along_an_axis_where_an_array_it_writes_has_copies() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("row-copy", "row_copy.f90", "r.f90", "auto.fdv");
    // (on the default grid of 4x1 the nest is divided on a template of its own over full
    // copies of B and E instead, sent back to the owners after it)
    let why = "r.f90:8 (unit ROWCOPY): divided on TEMPLATE SFTJ1(1:9) over full copies of B, E (fetched before it; what it writes of B, E sent back to the owners after it): line 11: E is written in the loop at line 8, which divides its iterations along template dimension 2, but E has a copy on every process along that dimension";
    assert!(report.contains(why), "{report}");
    let want = run_sequential(&dir, &dir.join("r.f90"), false);
    let mut both = vec![];
    every_variant_prints(&dir, &want, 4, |id, text| {
        if text.contains("DISTRIBUTE C(BLOCK,BLOCK,*)") && text.contains("ALIGN E(I,*) WITH C(I,*,*)") {
            both.push(format!("v{id}.fdv"));
        }
    });
    assert_eq!(both.len(), 1, "the (BLOCK,BLOCK,*) variant with E aligned along I only");
    let out = sapfor().current_dir(&dir).args(["run", &both[0], "--np", "2", "--grid", "1x2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// Plane sweeps in NPB LU's shape: a sequential loop over K calls a procedure whose loop reads
/// plane K of U next to each point, and a lower-triangular sweep over plane K (ACROSS, with a
/// constant first subscript `V(1,I-1,J,K)` and plane K-1). Each such loop exchanges only the
/// planes it references (`sapfor_limit`; before, the whole face of U and V travelled at every
/// call), and the sweep is pipelined in tiles (before, the constant subscript kept it whole:
/// each process waited for the previous one to finish its plane). Every stored variant prints
/// what the sequential program prints with processes, threads and the emulator.
#[test]
fn loops_over_one_plane_exchange_that_plane_and_sweeps_pipeline() {
    assert!(have_gfortran());
    let (dir, _) = auto_on("plane-sweeps", "plane_sweeps.f", "p.f", "auto.fdv");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut on_i = vec![];
    every_variant_prints(&dir, &want, 4, |id, text| {
        if text.contains("CDVM$ DISTRIBUTE U(*,BLOCK,*,*)") {
            on_i.push(id);
        }
    });
    assert_eq!(on_i.len(), 1, "{on_i:?}");
    // the converted program of the (*,BLOCK,*,*) variant
    let name = format!("v{}", on_i[0]);
    let keep = dir.join("keep");
    let out = sapfor().current_dir(&dir).args(["build", &format!("{name}.fdv"), "-o", &name, "--keep"]).arg(&keep).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let f90 = std::fs::read_to_string(keep.join(format!("{name}.f90"))).unwrap();
    for want in [
        "call sapfor_limit(sh_c_fld_u, 8_c_int64_t, [0_c_int64_t, 0_c_int64_t, 0_c_int64_t, int(k + (0), c_int64_t)], [0_c_int64_t, 0_c_int64_t, 0_c_int64_t, int(k + (0), c_int64_t)])",
        "call sapfor_limit(sh_lower_v, 8_c_int64_t, [0_c_int64_t, 0_c_int64_t, 0_c_int64_t, int(k + (-1), c_int64_t)], [0_c_int64_t, 0_c_int64_t, 0_c_int64_t, int(k + (0), c_int64_t)])",
        "call sapfor_across_tile(sh_lower_v,",
    ] {
        assert!(f90.contains(want), "missing `{want}`:\n{f90}");
    }
}

/// A parallel loop over K whose iterations touch every I (its loops over I keep the work array
/// F to one I each, NPB LU's eta-direction fluxes): a variant that divides I runs the K loop in
/// order on every process and maps the loops over I inside it on the distributed data, with
/// no message, instead of dividing K over full copies of R and U (each execution moved half
/// of them between the processes). Every stored variant prints what the sequential program
/// prints with processes, threads and the emulator.
#[test]
fn a_loop_whose_iterations_span_a_divided_dimension_maps_the_loops_inside_it() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("inner-loops", "inner_loops.f", "p.f", "auto.fdv");
    let note = "p.f:20 (unit ETA): runs in order on every process (its iterations touch every index of a distributed dimension), and the parallel loops inside it at lines 21, 34 are mapped on the distributed data";
    assert!(report.contains(note), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut inner = vec![];
    every_variant_prints(&dir, &want, 8, |id, text| {
        if text.contains("         do k = 2, n - 1\nCDVM$ PARALLEL (I) ON R(*,I,*,K), PRIVATE(F,J,M)\n            do i = 2, n - 1\n") {
            inner.push(id);
        }
    });
    assert!(!inner.is_empty());
}

/// A matrix in CSR form (NPB CG's shape): the nonzeros A are the heaviest array, but a loop
/// that shifts them along a row carries a dependence on COLIDX, which stays replicated, so
/// every variant of A is rejected; the next candidate, the vector R, is tried and its
/// variant divides the vectors with the row pointers ROWSTR along them. Sequential loops over
/// a row take their bounds from ROWSTR (fetched from the owner before the DO), and a loop
/// mapped ON ROWSTR(J) has bounds reading ROWSTR(J+1), fetched before it too (read from an
/// unrenewed shadow edge, it ran no iteration for the last row of a block: the program
/// printed another X at `--np 2`). Every stored variant prints what the sequential program
/// prints.
#[test]
fn the_next_template_is_tried_when_every_variant_of_the_first_is_rejected() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("csr-rows", "csr_rows.f", "p.f", "auto.fdv");
    for want in ["note: template A: every variant is rejected (`sapfor schemes`); the next candidate is tried", "note: template: array R (rank 1)"] {
        assert!(report.contains(want), "missing `{want}`:\n{report}");
    }
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let mut on_r = 0;
    every_variant_prints(&dir, &want, 2, |_, text| {
        if text.contains("CDVM$ DISTRIBUTE R(BLOCK)") && text.contains("CDVM$ ALIGN ROWSTR(I) WITH R(I)") && text.contains("CDVM$ PARALLEL (K) ON ROWSTR(J)") {
            on_r += 1;
        }
    });
    assert_eq!(on_r, 1);
}

/// Work arrays that a procedure sees with another shape (NPB LU's TV, SSOR's 1-D array that
/// BUTS declares TV(5,LDX,LDY)): SWEEP writes TV in one parallel loop and reads it in the
/// next at the iteration's own (I,J), so where a variant divides J each element is only ever
/// touched by its owner and the copies are not merged (`!$SPF OWNED(TV)`); SMOOTH reads TW
/// at I+1 and J+1, elements other processes write, and its copies are merged. Where a variant
/// divides M instead, TW is owned too (every access of an M is on M's owner). Every stored
/// variant prints what the sequential program prints with processes, threads and the
/// emulator; OWNED(TW) added by hand to the variant that divides J makes `--np 2` print
/// another sum (575939.59 against 576119.49), so these runs can tell a wrong OWNED.
#[test]
fn work_arrays_only_their_owners_touch_are_not_merged() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("owned-work", "owned_work.f", "p.f", "auto.fdv");
    let note = |u: &str, a: &str| format!("{u}: array {a} is written by parallel loops, and each element only by the process owning the iterations that use it: no merge of the copies (OWNED)");
    assert!(report.contains(&note("SWEEP", "TV")), "{report}");
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    let (mut on_j, mut on_m) = (vec![], vec![]);
    every_variant_prints(&dir, &want, 8, |id, text| {
        if text.contains("CDVM$ DISTRIBUTE V(*,*,BLOCK,*)\n") {
            assert!(text.contains("CDVM$ INHERIT V\nC$SPF OWNED(TV)\n"), "{text}");
            assert!(!text.contains("OWNED(TW)"), "{text}");
            on_j.push(id);
        }
        if text.contains("CDVM$ DISTRIBUTE V(BLOCK,*,*,*)\n") {
            assert!(text.contains("C$SPF OWNED(TW)\n"), "{text}");
            on_m.push(id);
        }
    });
    assert_eq!((on_j.len(), on_m.len()), (1, 1), "{on_j:?} {on_m:?}");
    // the converted program of the (*,*,BLOCK,*) variant merges TW and not TV
    let name = format!("v{}", on_j[0]);
    let keep = dir.join("keep");
    let out = sapfor().current_dir(&dir).args(["build", &format!("{name}.fdv"), "-o", &name, "--keep"]).arg(&keep).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let f90 = std::fs::read_to_string(keep.join(format!("{name}.f90"))).unwrap();
    assert!(f90.contains("call sapfor_merge_begin(tw,"), "{f90}");
    assert!(!f90.contains("call sapfor_merge_begin(tv,"), "{f90}");
    // OWNED names arrays of its unit
    let bad = std::fs::read_to_string(dir.join(format!("{name}.fdv"))).unwrap().replace("OWNED(TV)", "OWNED(K)");
    std::fs::write(dir.join("bad.fdv"), bad).unwrap();
    let out = sapfor().current_dir(&dir).args(["run", "bad.fdv", "--np", "2"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("OWNED K: not an array of unit SWEEP"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// NPB FT's initial conditions in small (the analyzer's `multi/cwork_main.f` with `cwork_fill.f`): a
/// DOUBLE COMPLEX row that FILL writes as DOUBLE PRECISION Y(2*N1) is private to each plane,
/// so the loop over planes is parallel; the sum of the complex array is a REDUCTION the
/// runtime combines (before, `sapfor run` refused a COMPLEX reduction variable that `--auto`
/// had written). Every stored variant prints what the sequential program prints.
#[test]
fn a_complex_row_filled_through_a_real_dummy_is_private_and_complex_sums_combine() {
    assert!(have_gfortran());
    let dir = scratch("complex-rows");
    for (from, to) in [("cwork_main.f", "c.f"), ("cwork_fill.f", "fill.f")] {
        std::fs::copy(root().join("analyzer/test_data/multi").join(from), dir.join(to)).unwrap();
    }
    let out = sapfor().current_dir(&dir).args(["--auto", "c.f", "fill.f", "--out-dir", "gen"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("c.f:20: loop K (depth 1): parallel, private(TMP,X0)"), "{report}");
    let seq = Command::new("gfortran").current_dir(&dir).args(["-O2", "-w", "c.f", "fill.f", "-o", "seq"]).output().unwrap();
    assert!(seq.status.success(), "{}", String::from_utf8_lossy(&seq.stderr));
    let want = String::from_utf8_lossy(&Command::new(dir.join("seq")).output().unwrap().stdout).into_owned();
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<i64> = v.as_array().unwrap().iter().filter_map(|s| s["id"].as_i64()).collect();
    assert!(ids.len() >= 4, "{v}");
    let mut planes = 0;
    for id in ids {
        let gen = format!("v{id}");
        let out = sapfor().current_dir(&dir).args(["generate", "--scheme", &id.to_string(), "--out-dir", &gen]).output().unwrap();
        assert!(out.status.success(), "#{id}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(dir.join(&gen).join("c.fdv")).unwrap();
        let on_planes = text.contains("CDVM$ DISTRIBUTE U(*,*,BLOCK)\n");
        if on_planes {
            assert!(text.contains("CDVM$ PARALLEL (K) ON U(*,*,K), PRIVATE(I,J,TMP,X0)\n"), "{text}");
            assert!(text.contains("REDUCTION(SUM(S))"), "{text}");
            planes += 1;
        }
        let configs: &[&[&str]] = if on_planes {
            &[&["--np", "2"], &["--np", "3"], &["--np", "2", "--threads", "2"], &["--devices", "emu", "--np", "2"]]
        } else {
            &[&["--np", "2"]]
        };
        for cfg in configs {
            let out = sapfor().current_dir(&dir).args(["run", &format!("{gen}/c.fdv"), &format!("{gen}/fill.fdv")]).args(*cfg).output().unwrap();
            assert!(out.status.success(), "#{id} {cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "#{id} {cfg:?}:\n{text}");
        }
    }
    assert_eq!(planes, 1);
}

/// The report says which loops the estimates take the machine's `unknown_trip_count`
/// iterations for (NPB FT's figures were millions of seconds without a word why), and that a
/// machine file changes it: the figure follows the file's value. A program whose loops all
/// have known trip counts gets no such line.
#[test]
fn the_report_names_the_loops_whose_trip_count_is_assumed() {
    let dir = scratch("unknown-trips");
    let src = "      PROGRAM T\n      INTEGER N, I\n      DOUBLE PRECISION S\n      READ (*, *) N\n      S = 0\n      DO 10 I = 1, N\n         S = S + I\n   10 CONTINUE\n      PRINT *, S\n      END\n";
    std::fs::write(dir.join("t.f"), src).unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "t.f", "-o", "t.fdv", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("(the estimates take 100 iterations for each of the 1 loop(s) whose trip count the analysis does not know: t.f:6;"), "{report}");
    std::fs::write(dir.join("m.toml"), "unknown_trip_count = 7\n").unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "t.f", "-o", "t2.fdv", "--no-db", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("take 7 iterations for each of the 1 loop(s)"), "{}", String::from_utf8_lossy(&out.stdout));
    let known = src.replace("      READ (*, *) N\n", "      N = 10\n").replace("INTEGER N, I", "INTEGER N, I\n      PARAMETER (M = 1)");
    std::fs::write(dir.join("k.f"), known.replace("DO 10 I = 1, N", "DO 10 I = 1, 10")).unwrap();
    let out = sapfor().current_dir(&dir).args(["--auto", "k.f", "-o", "k.fdv", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("whose trip count the analysis does not know"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Columns filled from a random-number seed each column leaves to the next (NPB MG's ZRAN3
/// shape, `X0 = MOD(X0 * A2, P)` at the end of each column): the loop over J is parallel once
/// the seed every column starts from is computed ahead, in a sequential copy of the loop made
/// of that statement alone, and the columns are divided with U. The generated program keeps
/// the seeds in an array it declares, starts each iteration from its own, and leaves X0 as
/// the sequential loop would; `sapfor verify` accepts it, and every stored variant prints the
/// sequential output with processes, threads and the emulator. Without the first statement
/// of the body (`X0 = SFRX01(J)`), `--np 2` and `--threads 2` printed other values. A second
/// loop updates its seed first and fills the column from the new one.
#[test]
fn a_seed_carried_between_columns_is_computed_ahead_and_the_columns_divided() {
    assert!(have_gfortran());
    let (dir, report) = auto_on("recurrence-columns", "recurrence_columns.f", "p.f", "p.fdv");
    assert!(report.contains("p.f:14: loop J (depth 1): sequential, private(X1)"), "{report}");
    assert!(report.contains("parallel once split, private(X1,X0): X0 is carried from one iteration to the next only by the statement(s) at line(s) 20"), "{report}");
    assert!(report.contains("p.f:14 (unit SEEDS): parallel once X0 is computed ahead of it"), "{report}");
    // (the seed updated first: the loop runs the update too, and the column reads the new one)
    assert!(report.contains("p.f:24 (unit SEEDS): parallel once Y0 is computed ahead of it"), "{report}");
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    let want_text = "      INTEGER*8, ALLOCATABLE :: SFRX01(:)\n";
    assert!(text.contains(want_text), "{text}");
    let split = "      ALLOCATE (SFRX01(1:MAX(M,1-1)+1))
      DO J = 1, M
         SFRX01(J) = X0
         X0 = MOD(X0 * A2, P)
      END DO
      SFRX01(MAX(M,1-1)+1) = X0
CDVM$ PARALLEL (J) ON U(*,J), PRIVATE(I,X0,X1)
      DO J = 1, M
         X0 = SFRX01(J)
         X1 = X0
";
    assert!(text.contains(split), "{text}");
    assert!(text.contains("         X0 = MOD(X0 * A2, P)\n      END DO\n      X0 = SFRX01(MAX(M,1-1)+1)\n      DEALLOCATE (SFRX01)\n"), "{text}");
    let out = sapfor().current_dir(&dir).args(["verify", "p.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let want = run_sequential(&dir, &dir.join("p.f"), true);
    every_variant_prints(&dir, &want, 3, |_, _| {});
}

/// Rows filled by a procedure from a seed a function advances after each row (ZRAN3's
/// `CALL VRANLC(D1, XX, A, Z(2,I2,I3))` and `RDUMMY = RANDLC(X0, A2)`): each call reaches
/// `Z(2:D1+1,I2)`, inside its column when `N1 .GE. D1 + 1`, and the seed is computed ahead.
/// On replicated data with threads (the machine file has no accelerator; the `templates`
/// scheme) the loop runs in parallel under that test, with the computation ahead inside `IF
/// (test) THEN`, and as it is otherwise; `sapfor verify` trusts the directive there. Since
/// session 43 the variants that distribute Z are stored too (under the test each call reaches
/// its own column only). With D1 = 40, 63 (the column's last row) and 70 (every call spills
/// into the next column: the test fails) every stored variant prints what the sequential
/// program prints.
#[test]
fn a_seed_carried_between_rows_given_to_a_procedure_is_computed_ahead_under_a_test() {
    assert!(have_gfortran());
    let dir = scratch("recurrence-rows");
    std::fs::copy(root().join("shell-gui/tests/data/recurrence_rows.f"), dir.join("p.f")).unwrap();
    std::fs::write(dir.join("m.toml"), "loop_overhead_us = 0.0001\nthread_start_us = 0.0001\ngpus_per_node = 0\n").unwrap();
    std::fs::write(dir.join("rows.dat"), "40\n").unwrap();
    let o = sapfor().current_dir(&dir).args(["--auto", "p.f", "-o", "auto.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("parallel when N1 .GE. D1 + 1, private(X1,X0,R), once split"), "{report}");
    assert!(report.contains("p.f:36 (unit FILL): parallel when N1 .GE. D1 + 1, once X0 is computed ahead of it (tested where the loop starts"), "{report}");
    // the scheme on replicated data
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v.as_array().unwrap().iter().find(|s| s["scheme"]["name"] == "templates").and_then(|s| s["id"].as_i64()).expect("a templates scheme");
    let out = sapfor().current_dir(&dir).args(["generate", "--scheme", &id.to_string(), "-o", "p.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    let split = "      IF ((N1 .GE. D1 + 1)) THEN
      ALLOCATE (SFRX01(1:MAX(N2,1-1)+1))
      DO I2 = 1, N2
         SFRX01(I2) = X0
         R = NEXT(X0)
      END DO
      SFRX01(MAX(N2,1-1)+1) = X0
CDVM$ PARALLEL (I2) PRIVATE(R,X0,X1)
      DO I2 = 1, N2
         X0 = SFRX01(I2)
";
    assert!(text.contains(split), "{text}");
    assert!(text.contains("      X0 = SFRX01(MAX(N2,1-1)+1)\n      DEALLOCATE (SFRX01)\n      ELSE\n      DO I2 = 1, N2\n         X1 = X0\n"), "{text}");
    let out = sapfor().current_dir(&dir).args(["verify", "p.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let configs: [&[&str]; 4] = [&["--threads", "2"], &["--np", "2"], &["--np", "3", "--threads", "2"], &["--devices", "emu", "--np", "2"]];
    for d in ["40", "63", "70"] {
        std::fs::write(dir.join("rows.dat"), format!("{d}\n")).unwrap();
        let want = run_sequential(&dir, &dir.join("p.f"), true);
        if d != "70" {
            variants_print(&dir, &want, 3, &configs, |_, _| true);
            continue;
        }
        // (at 70 the program prints Z(71,900) of a Z(64,900): a distributed Z stops there with
        // the line and the index, as `sapfor run` does for every element outside the bounds)
        for cfg in configs {
            let out = sapfor().current_dir(&dir).args(["run", "p.fdv"]).args(cfg).output().unwrap();
            assert!(out.status.success(), "D1 = {d} {cfg:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "D1 = {d} {cfg:?}");
        }
    }
}

/// NPB LU's eta-direction fluxes (RHS's nest over K): in the variants that divide J, the nest
/// runs in order on every process and each loop over J inside it is divided; the loops that
/// fill the COMMON work array FLUX reach one index past each block (SHADOW_COMPUTE), so that
/// FLUX is not merged after each of them (before, the nest was divided over full copies of U
/// and RSD, moved between the processes at every execution). A second work array FLX has a
/// filler divided one behind that reaches nowhere past its block, after one that does. Every
/// variant with SHADOW_COMPUTE prints what the sequential program prints with processes,
/// threads and the emulator.
#[test]
fn work_arrays_read_at_neighbouring_indices_are_filled_past_each_block() {
    assert!(have_gfortran());
    let (dir, report) = auto_cheap("eta-fluxes", "shell-gui/tests/data/eta_fluxes.f", "e.f");
    assert!(
        report.contains("e.f:62 (unit RHS): the work array(s) FLUX, FLX are filled past each process's block by the loops at lines 64 (reaching 1 below and 1 above), 77 (reaching 1 below and 1 above), 97 (reaching 0 below and 1 above), 100 (reaching 0 below and 0 above) (SHADOW_COMPUTE)"),
        "{report}"
    );
    let want = run_sequential(&dir, &dir.join("e.f"), true);
    let mut computed = 0;
    variants_print(&dir, &want, 2, &VARIANT_RUNS, |id, text| {
        if !text.contains("SHADOW_COMPUTE(") {
            return false;
        }
        // the two filling loops, with the edges of U their reach needs
        assert!(text.contains("SHADOW_RENEW(U(0:0,0:0,1:1,0:0)),\nCDVM$* SHADOW_COMPUTE(U(0:0,0:0,1:1,0:0))\n            DO 20 J = 1, NY"), "#{id}:\n{text}");
        assert!(text.contains("SHADOW_RENEW(U(0:0,0:0,2:1,0:0)),\nCDVM$* SHADOW_COMPUTE(U(0:0,0:0,1:1,0:0))\n            DO 30 J = 2, NY"), "#{id}:\n{text}");
        // (a filler of FLX that reaches nowhere past its block does not merge it either: with
        // the merge, which first makes every copy process 0's, `--np 2` printed another sum)
        assert!(text.contains("CDVM$ PARALLEL (J) ON U(1,I,J-1,K), SHADOW_COMPUTE(U(0:0,0:0,0:0,0:0))\n            DO 40 J = 2, NY"), "#{id}:\n{text}");
        computed += 1;
        true
    });
    assert!(computed >= 2, "{computed} variants with SHADOW_COMPUTE");
}

/// NPB LU's fourth-order dissipation next to the boundaries of the divided dimension: one
/// loop over I updates planes J = 2 and 3 together (and another the two planes before the
/// last, `NY-2` and `NY-1` of a PARAMETER), and no one ON plane maps both statements. In the
/// variants that divide J the loop is split by statements into one parallel loop per plane
/// (its copy of the nest keeps only its own statement), inside the nest over K that runs in
/// order; a loop outside any other that sets both boundary planes is split the same way. At
/// `--np 4` the first block holds J = 1..2 only, so planes 2 and 3 live on two processes:
/// one loop on plane 2's owner writing plane 3 printed other sums there. Every variant split
/// so prints what the sequential program prints.
#[test]
fn a_loop_writing_two_planes_of_a_divided_dimension_is_split_by_statements() {
    assert!(have_gfortran());
    let (dir, report) = auto_cheap("boundary-planes", "shell-gui/tests/data/boundary_planes.f", "b.f");
    for want in [
        "b.f:41 (unit BPLANE): no one ON reference maps the loop, so it is split by statements into 2 loops, each running where the elements its statements write live (statements at lines 43; 45)",
        "b.f:50 (unit BPLANE): no one ON reference maps the loop, so it is split by statements into 2 loops, each running where the elements its statements write live (statements at lines 52; 55)",
        "b.f:24 (unit BPLANE): no one ON reference maps the loop, so it is split by statements into 2 loops, each running where the elements its statements write live (statements at lines 27; 28)",
    ] {
        assert!(report.contains(want), "missing `{want}`:\n{report}");
    }
    let want = run_sequential(&dir, &dir.join("b.f"), true);
    let mut split = 0;
    let runs: Vec<&[&str]> = VARIANT_RUNS.iter().copied().chain([&["--np", "4"][..]]).collect();
    variants_print(&dir, &want, 2, &runs, |id, text| {
        if !text.contains("ON R(M,I,3,K)") || split == 3 {
            return false;
        }
        // each part's copy of the nest holds its own statement only
        assert!(text.contains("CDVM$ PARALLEL (I,M) ON R(M,I,2,K), SHADOW_RENEW(U(0:0,0:0,0:2,0:0))\n            do i = 1, nx\n               do m = 1, 4\n                  r(m,i,2,k) = r(m,i,2,k) - 0.25d0 * (5.0d0*u(m,i,2,k)\n     >                 - 4.0d0*u(m,i,3,k) + u(m,i,4,k))\n               end do\n            end do\nCDVM$ PARALLEL (I,M) ON R(M,I,3,K), SHADOW_RENEW(U(0:0,0:0,1:2,0:0))\n            do i = 1, nx\n               do m = 1, 4\n                  r(m,i,3,k) = "), "#{id}:\n{text}");
        assert!(text.contains("ON U(M,I,1,K), SHADOW_RENEW(U(0:0,0:0,0:1,0:0))\n         do k = 1, nz\n            do i = 1, nx\n               do m = 1, 4\n                  u(m,i,1,k) = 0.5d0 * u(m,i,2,k)\n               end do"), "#{id}:\n{text}");
        assert_eq!(text.matches("r(m,i,ny-1,k) = r(m,i,ny-1,k)").count(), 1, "#{id}:\n{text}");
        split += 1;
        true
    });
    assert!(split >= 2, "{split} variants split the loops");
}
