//! The DVMH target end to end: `sapfor --auto` writes regions and actualization directives;
//! each generated program matches its golden file, compiles and runs sequentially with the
//! original program's output, and passes the actuality checker (`sapfor verify`); removing a
//! needed directive makes the checker fail. Regenerate the golden files with
//! `UPDATE_GOLDEN=1 cargo test -p shell-gui --test dvmh`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn sapfor() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sapfor"))
}

fn scratch(tag: &str) -> Scratch {
    Scratch::new("dvmh", tag)
}

/// Compile as plain Fortran and run in `dir`; stdout.
fn run_sequential(dir: &Path, src: &Path, fixed: bool) -> String {
    let exe = dir.join(format!(
        "prog-{}",
        src.file_name().unwrap().to_string_lossy()
    ));
    let lang = if fixed { "f77" } else { "f95" };
    let out = Command::new("gfortran")
        // a MODULE writes its .mod file into the working directory
        .current_dir(dir)
        .args(["-O1", "-w", "-x", lang])
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gfortran is required (scripts/setup.sh installs it)");
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

fn verify(file: &Path) -> (bool, String) {
    let out = sapfor().arg("verify").arg(file).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// `--auto` on `src` (copied into a scratch dir); returns (dir, generated text, stdout).
fn auto(tag: &str, src: &Path, extra: &[&str]) -> (Scratch, PathBuf, String, String) {
    let dir = scratch(tag);
    let name = src.file_name().unwrap();
    let input = dir.join(name);
    std::fs::copy(src, &input).unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .arg("--auto")
        .arg(name)
        .arg("--no-db")
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "sapfor --auto failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fdv = input.with_extension("fdv");
    let text = std::fs::read_to_string(&fdv).unwrap();
    (dir, fdv, text, stdout)
}

/// Golden file, same output as the original, checker passes.
fn check_program(tag: &str, src: &Path, extra: &[&str]) -> (Scratch, PathBuf, String, String) {
    let (dir, fdv, text, stdout) = auto(tag, src, extra);
    let golden = root().join("shell-gui/tests/golden/dvmh").join(format!("{tag}.fdv"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
    } else {
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("missing {}", golden.display()));
        assert_eq!(text, want, "{tag}: generated text differs from {}", golden.display());
    }
    let fixed = src.extension().is_some_and(|e| e == "f");
    let want = run_sequential(&dir, src, fixed);
    let got = run_sequential(&dir, &fdv, fixed);
    assert_eq!(got, want, "{tag}: the DVMH program prints something else");
    let (ok, msg) = verify(&fdv);
    assert!(ok, "{tag}: checker failed:\n{msg}");
    // --auto on its own output gives the same text.
    let again = dir.join("again").join(src.file_name().unwrap());
    std::fs::create_dir_all(again.parent().unwrap()).unwrap();
    std::fs::copy(&fdv, &again).unwrap();
    let (_, _, text2, _) = auto(&format!("{tag}-again"), &again, extra);
    assert_eq!(text2, text, "{tag}: --auto on its own output is not idempotent");
    (dir, fdv, text, stdout)
}

fn lines_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The line right after the one containing `needle` (first occurrence).
fn after<'a>(text: &'a str, needle: &str) -> &'a str {
    let l = lines_of(text);
    let k = l.iter().position(|x| x.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in\n{text}"));
    l[k + 1]
}

#[test]
fn jacobi_two_regions_and_exactly_two_get_actuals() {
    let (_dir, fdv, text, _) = check_program("jacobi", &root().join("samples/jacobi/jac.f"), &["--procs", "100"]);
    let regions: Vec<&str> = text.lines().filter(|l| l.starts_with("CDVM$ REGION")).collect();
    assert_eq!(regions.len(), 2, "{text}");
    assert_eq!(text.matches("CDVM$ END REGION").count(), 2);
    assert_eq!(regions[0], "CDVM$ REGION OUT(A,B)");
    // Region 2 starts with EPS = 0. (run inside it) and holds both loops of the time step.
    assert_eq!(after(&text, "CDVM$ REGION IN(A)"), "         EPS = 0.");
    assert!(text.contains("OUT(A(2:L-1,2:L-1),EPS)"), "{text}");
    assert!(text.contains("INOUT(B(2:L-1,2:L-1))"), "{text}");
    let gets: Vec<&str> = text.lines().filter(|l| l.contains("ACTUAL")).collect();
    assert_eq!(gets, ["CDVM$ GET_ACTUAL(EPS)", "CDVM$ GET_ACTUAL(B)"], "{text}");
    assert_eq!(after(&text, "GET_ACTUAL(EPS)"), "         PRINT 200, IT, EPS");
    assert_eq!(after(&text, "GET_ACTUAL(B)"), "      WRITE (3,*) B");
    // The END REGION of the time step comes right before the GET_ACTUAL(EPS).
    assert_eq!(after(&text, "B(I, J) = (A(I-1, J)").trim(), "*                    A(I+1, J) + A(I, J+1)) / 4");
    // A missing GET_ACTUAL is found.
    let bad = fdv.with_file_name("bad.fdv");
    std::fs::write(&bad, text.replace("CDVM$ GET_ACTUAL(EPS)\n", "")).unwrap();
    let (ok, msg) = verify(&bad);
    assert!(!ok && msg.contains(":39: reads EPS") && msg.contains("missing GET_ACTUAL"), "{msg}");
    // So is an input the region does not declare.
    std::fs::write(&bad, text.replace("CDVM$ REGION IN(A), ", "CDVM$ REGION ")).unwrap();
    let (ok, msg) = verify(&bad);
    assert!(!ok && msg.contains("the region reads A") && msg.contains("does not declare it IN"), "{msg}");
    // And a write it does not declare.
    std::fs::write(&bad, text.replace("CDVM$ REGION OUT(A,B)", "CDVM$ REGION OUT(A)")).unwrap();
    let (ok, msg) = verify(&bad);
    assert!(!ok && msg.contains("writes B"), "{msg}");
}

#[test]
fn host_writes_the_border_between_regions_then_reads_the_interior() {
    let src = root().join("shell-gui/tests/data/dvmh/border.f90");
    let (_dir, fdv, text, _) = check_program("border", &src, &[]);
    assert_eq!(text.matches("!DVM$ REGION").count(), 2, "{text}");
    // The borders go back to the accelerator after the host loops that write them...
    assert!(text.contains("!DVM$ ACTUAL(A(2:N,1),A(2:N,N))"), "{text}");
    assert!(text.contains("!DVM$ ACTUAL(A(1,2:N-1),A(N,2:N-1))"), "{text}");
    // ...and only the interior comes back, before the host loop that reads it.
    assert_eq!(after(&text, "!DVM$ GET_ACTUAL(A(2:N-1,2:N-1))").trim(), "do j = 2, n - 1");
    let bad = fdv.with_file_name("bad.f90");
    std::fs::write(&bad, text.replace("  !DVM$ ACTUAL(A(1,2:N-1),A(N,2:N-1))\n", "")).unwrap();
    let (ok, msg) = verify(&bad);
    assert!(!ok && msg.contains("the region reads A(1,2:N-1)"), "{msg}");
    std::fs::write(&bad, text.replace("  !DVM$ GET_ACTUAL(A(2:N-1,2:N-1))\n", "")).unwrap();
    let (ok, msg) = verify(&bad);
    assert!(!ok && msg.contains("missing GET_ACTUAL"), "{msg}");
}

#[test]
fn loop_nest_with_private_temporaries() {
    let src = root().join("shell-gui/tests/data/dvmh/private_tmp.f90");
    let (_dir, _, text, _) = check_program("private_tmp", &src, &[]);
    assert!(text.contains("PRIVATE(K,T)"), "{text}");
    // T and K are private: not in the region's clauses; X and Y are dead after it.
    let region = text.lines().find(|l| l.contains("!DVM$ REGION")).unwrap();
    assert_eq!(region.trim(), "!DVM$ REGION OUT(TOTAL), LOCAL(X,Y)");
    assert_eq!(after(&text, "!DVM$ GET_ACTUAL(TOTAL)").trim(), "print '(a, f20.8)', ' total =', total");
}

#[test]
fn a_loop_calling_a_subroutine_is_not_a_region() {
    let src = root().join("shell-gui/tests/data/dvmh/calls.f90");
    let (_dir, _, text, stdout) = check_program("calls", &src, &[]);
    assert!(stdout.contains("loop 11 is not a region: calls `SCALE`"), "{stdout}");
    let l = lines_of(&text);
    let call = l.iter().position(|x| x.contains("call scale")).unwrap();
    let last_region = l.iter().take(call).rposition(|x| x.contains("REGION"));
    assert!(last_region.is_none_or(|k| l[k].contains("END REGION")), "{text}");
    // The next loop reads what the host computed: it is a region with those inputs.
    assert!(text.contains("!DVM$ REGION IN(A,B), OUT(S)") || text.contains("!DVM$ REGION IN(B)"), "{text}");
}

#[test]
fn host_only_procedures_carry_no_directives_and_their_callers_declare_the_writes() {
    let src = root().join("analyzer/test_data/host_only_callees.f");
    let (dir, fdv, text, _) = check_program("host_only", &src, &[]);
    let l = lines_of(&text);
    let body_of = |name: &str| -> Vec<&str> {
        let k = l.iter().position(|x| x.contains(name)).unwrap();
        l[k..].iter().take_while(|x| x.trim() != "END").copied().collect()
    };
    let dvmh = |x: &&str| x.starts_with("CDVM$") && (x.contains("ACTUAL") || x.contains("REGION"));
    // BUMP writes only its dummy: no data movement inside (it ran an ACTUAL after every
    // assignment before); its caller declares the writes after the loop of calls.
    let bump: Vec<&str> = body_of("SUBROUTINE BUMP").into_iter().filter(dvmh).collect();
    assert!(bump.is_empty(), "BUMP has DVMH directives: {bump:?}\n{text}");
    let next_directive = |needle: &str| {
        let k = l.iter().position(|x| x.contains(needle)).unwrap();
        l[k..].iter().find(|x| x.starts_with("CDVM$")).copied().unwrap_or_default()
    };
    assert_eq!(next_directive("   20    CONTINUE"), "CDVM$ ACTUAL(A)", "{text}");
    // SETB writes COMMON /W/, which the region uses: it declares its writes itself, once,
    // before its loop, and its caller does not.
    let setb = body_of("SUBROUTINE SETB");
    let own: Vec<&str> = setb.iter().copied().filter(dvmh).collect();
    assert_eq!(own, ["CDVM$ ACTUAL(B(4:N))"], "{text}");
    let k = setb.iter().position(|x| x.starts_with("CDVM$ ACTUAL")).unwrap();
    assert!(setb[k + 1].trim_start().starts_with("DO 10"), "{text}");
    assert!(next_directive("CALL SETB(IT)").starts_with("CDVM$ REGION"), "{text}");
    assert!(text.contains("CDVM$ REGION IN(B), INOUT(A)"), "{text}");
    // Without either ACTUAL the region would read the accelerator's old copy: the checker
    // says so.
    for act in ["CDVM$ ACTUAL(A)", "CDVM$ ACTUAL(B(4:N))"] {
        let bad = dir.join(format!("bad-{}.fdv", &act[13..14]));
        let k = l.iter().position(|x| *x == act).unwrap();
        let cut: Vec<&str> = l.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, x)| *x).collect();
        std::fs::write(&bad, cut.join("\n") + "\n").unwrap();
        let (ok, msg) = verify(&bad);
        assert!(!ok, "the checker accepts {} without `{act}`:\n{msg}", fdv.display());
        assert!(msg.contains("missing ACTUAL"), "{msg}");
    }
}

#[test]
fn time_loop_fetches_only_when_it_prints() {
    let src = root().join("shell-gui/tests/data/dvmh/every_n.f90");
    let (_dir, _, text, _) = check_program("every_n", &src, &[]);
    let l = lines_of(&text);
    let get = l.iter().position(|x| x.contains("!DVM$ GET_ACTUAL")).unwrap();
    assert_eq!(text.matches("!DVM$ GET_ACTUAL").count(), 1, "{text}");
    // Inside the IF that prints, not on every step.
    assert!(l[get - 1].trim_start().starts_with("if (mod(step, nout) == 0) then"), "{text}");
    assert!(l[get..].iter().take(3).any(|x| x.trim_start().starts_with("write")), "{text}");
}

#[test]
fn every_sample_and_a_subroutine_program_run_and_check() {
    for (tag, file) in [
        ("heat3d", "samples/heat3d/heat3d.f90"),
        ("gauss_seidel", "samples/gauss_seidel/gs.f"),
        ("legacy", "samples/legacy/legacy.f"),
        ("reductions", "samples/reductions/red.f90"),
        ("common_sub", "shell-gui/tests/data/dvmh/common_sub.f"),
    ] {
        check_program(tag, &root().join(file), &[]);
    }
}

#[test]
fn target_dvm_and_machines_without_accelerators_write_no_regions() {
    let src = root().join("samples/jacobi/jac.f");
    let (_, _, text, _) = auto("dvm", &src, &["--target", "dvm"]);
    assert!(!text.contains("REGION") && !text.contains("ACTUAL"), "{text}");
    let dir = scratch("nogpu");
    let m = dir.join("m.toml");
    std::fs::write(&m, "gpus_per_node = 0\n").unwrap();
    let (_, _, text, stdout) = auto("nogpu2", &src, &["--machine", m.to_str().unwrap()]);
    assert!(!text.contains("REGION"), "{text}");
    assert!(stdout.contains("gpus_per_node = 0"), "{stdout}");
    // Transfers that cost more than they save keep a region on the host.
    std::fs::write(&m, "device_tbyte_us = 1.0\n").unwrap();
    let (_, _, text, stdout) = auto("slowbus", &src, &["--machine", m.to_str().unwrap()]);
    assert!(stdout.contains("kept on the host"), "{stdout}");
    assert!(text.matches("CDVM$ REGION").count() < 2, "{text}");
}

#[test]
fn region_estimates_are_stored_with_the_scheme() {
    let dir = scratch("db");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "jac.f", "--procs", "100"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = sapfor().current_dir(&dir).args(["schemes", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chosen = v
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scheme"]["chosen"] == true)
        .unwrap();
    assert_eq!(chosen["scheme"]["expert"], "dvmh");
    let regions = chosen["scheme"]["regions"]["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    for r in regions {
        let e = &r["estimate"];
        assert_eq!(e["on_device"], true);
        assert!(e["host_s"].as_f64().unwrap() > e["device_s"].as_f64().unwrap());
        assert!(e["in_bytes"].as_f64().is_some() && e["out_bytes"].as_f64().is_some());
    }
    // The time step runs 20 times; the host fetches EPS (4 bytes) after each and B once
    // (2000x2000 4-byte reals on 100 processes: 160000 bytes per process), B split between
    // the two regions that write it: 80000 for the first, 80000 / 20 per execution for the
    // second. Nothing is copied in: A and B are born on the accelerator.
    assert_eq!(regions[1]["estimate"]["executions"], 20.0);
    assert_eq!(regions[0]["estimate"]["out_bytes"], 80000.0);
    assert_eq!(regions[1]["estimate"]["out_bytes"], 4004.0);
    assert_eq!(regions[0]["estimate"]["in_bytes"], 0.0);
    assert_eq!(regions[1]["estimate"]["in_bytes"], 0.0);
    let acts = chosen["scheme"]["regions"]["actualizations"].as_array().unwrap();
    assert_eq!(acts.len(), 2, "{acts:?}");
    let out = sapfor().current_dir(&dir).args(["schemes"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("region jac.f:17-29 on the accelerator"), "{text}");
    // The stored DVMH scheme can be written again.
    let id = chosen["id"].as_i64().unwrap().to_string();
    let out = sapfor()
        .current_dir(&dir)
        .args(["generate", "--scheme", &id, "-o", "again.fdv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.join("again.fdv")).unwrap(),
        std::fs::read_to_string(dir.join("jac.fdv")).unwrap()
    );
}

/// `sapfor verify` refutes a PARALLEL tuple with a loop the analysis calls across (the
/// issue's R1 without its ACROSS clause, a hand-written recurrence) or sequential, naming the
/// directive and the loop, unless the user asserted it: `!$SPF PARALLEL` in the text, or a
/// `sapfor refine parallel` that `--auto` carries into the program it writes.
#[test]
fn verify_refutes_parallel_loops_the_analysis_calls_across_or_sequential() {
    let dir = scratch("tuples");
    // R1 as a hand-written program: J carries A(I,J-1) -> A(I,J), no ACROSS
    let r1 = "      PROGRAM R1\n      PARAMETER (N=40)\n      DOUBLE PRECISION A(N,N)\nCDVM$ DISTRIBUTE A(BLOCK,*)\nCDVM$ PARALLEL (J,I) ON A(I,J)\n      DO J=1,N\n        DO I=1,N\n          A(I,J) = MOD(I*J,7)\n        ENDDO\n      ENDDO\nCDVM$ PARALLEL (J,I) ON A(I,J)\n      DO J=2,N-1\n        DO I=2,N-1\n          A(I,J) = (A(I,J-1)+A(I,J+1))/2\n        ENDDO\n      ENDDO\n      PRINT *, A(N/2,N/2)\n      END\n";
    std::fs::write(dir.join("r1.fdv"), r1).unwrap();
    let (ok, out) = verify(&dir.join("r1.fdv"));
    assert!(!ok, "{out}");
    assert!(
        out.contains("r1.fdv:11: PARALLEL (J,I): loop J (line 12) carries a dependence on A")
            && out.contains("no ACROSS clause names"),
        "{out}"
    );
    assert!(!out.contains("r1.fdv:5:"), "the first nest is parallel: {out}");
    // with the ACROSS clause the nest is right
    std::fs::write(dir.join("r1a.fdv"), r1.replace("CDVM$ PARALLEL (J,I) ON A(I,J)\n      DO J=2", "CDVM$ PARALLEL (J,I) ON A(I,J), ACROSS(A(0:0,1:1))\n      DO J=2")).unwrap();
    let (ok, out) = verify(&dir.join("r1a.fdv"));
    assert!(ok, "{out}");
    // a scalar recurrence under PARALLEL: sequential; `!$SPF PARALLEL` asserts it
    let seq = "program s\n  integer :: i, k, a(10)\n  k = 0\n  !DVM$ PARALLEL (I)\n  do i = 1, 10\n    k = k * 2 + i\n    a(i) = k\n  end do\n  print *, a\nend program\n";
    std::fs::write(dir.join("s.fdv"), seq).unwrap();
    let (ok, out) = verify(&dir.join("s.fdv"));
    assert!(!ok && out.contains("s.fdv:4: PARALLEL (I): loop I (line 5) is not parallel: "), "{out}");
    std::fs::write(dir.join("s2.fdv"), seq.replace("  do i = 1, 10", "  !$SPF PARALLEL\n  do i = 1, 10")).unwrap();
    let (ok, out) = verify(&dir.join("s2.fdv"));
    assert!(ok, "{out}");
    // a refinement in the project database: --auto writes `!$SPF PARALLEL` with the tuple
    let src = "      PROGRAM RF\n      INTEGER N\n      PARAMETER (N = 100)\n      DOUBLE PRECISION A(N)\n      INTEGER I, IX(N)\n      DO I = 1, N\n        A(I) = I\n        IX(I) = N + 1 - I\n      END DO\n      DO I = 1, N\n        A(IX(I)) = A(IX(I)) * 2 + I\n      END DO\n      PRINT *, A(1), A(N)\n      END\n";
    std::fs::write(dir.join("rf.f"), src).unwrap();
    std::fs::write(dir.join("gpu.toml"), "processes = 2\ntstart_us = 0\ntbyte_us = 0\ndevice_tstart_us = 0\ndevice_tbyte_us = 0\nkernel_launch_us = 0\n").unwrap();
    let st = sapfor().current_dir(&dir).args(["refine", "parallel", "rf.f:10"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let st = sapfor().current_dir(&dir).args(["--auto", "rf.f", "--machine", "gpu.toml"]).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let text = std::fs::read_to_string(dir.join("rf.fdv")).unwrap();
    assert!(text.contains("CDVM$ PARALLEL (I)\nC$SPF PARALLEL\n      DO I = 1, N\n        A(IX(I))"), "{text}");
    let (ok, out) = verify(&dir.join("rf.fdv"));
    assert!(ok, "{out}");
    // without the assertion the same program is refuted
    std::fs::write(dir.join("rf2.fdv"), text.replace("C$SPF PARALLEL\n", "")).unwrap();
    let (ok, out) = verify(&dir.join("rf2.fdv"));
    assert!(!ok && out.contains("is not parallel"), "{out}");
}

/// INCLUDE files found through -I in another directory: the generated program is read back
/// (for the actuality check) with the same directories (it failed as "internal error: the
/// generated text does not read back without errors").
#[test]
fn include_files_from_i_directories_are_found_when_the_program_is_checked() {
    let dir = scratch("incdir");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("incs")).unwrap();
    std::fs::write(dir.join("incs/dims.inc"), "      INTEGER N\n      PARAMETER (N = 200)\n      REAL A(N), B(N)\n      COMMON /AB/ A, B\n").unwrap();
    std::fs::write(
        dir.join("src/p.f"),
        "      PROGRAM P\n      INCLUDE 'dims.inc'\n      INTEGER I\n      DO I = 1, N\n        A(I) = I\n      END DO\n      DO I = 2, N\n        B(I) = A(I) + A(I-1)\n      END DO\n      PRINT *, B(N)\n      END\n",
    )
    .unwrap();
    std::fs::write(dir.join("gpu.toml"), "processes = 2\ntstart_us = 0\ntbyte_us = 0\ndevice_tstart_us = 0\ndevice_tbyte_us = 0\nkernel_launch_us = 0\n").unwrap();
    let out = sapfor()
        .current_dir(&dir)
        .args(["--auto", "src/p.f", "-I", "incs", "--no-db", "--machine", "gpu.toml", "-o", "p.fdv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("p.fdv")).unwrap();
    assert!(text.contains("REGION"), "{text}");
}

/// Kernels have no complex arithmetic: a loop on COMPLEX data is not a region (it would run
/// on the host anyway, inside a region that copies its arrays in and out: NPB FT's evolve
/// moved 4.9 GB to an H100 at class A for nothing), and the note says why.
#[test]
fn a_loop_on_complex_data_is_not_a_region() {
    let src = root().join("shell-gui/tests/data/dvmh/complex_data.f90");
    let (_dir, _, text, stdout) = auto("complex", &src, &[]);
    assert!(stdout.contains("loop 13 is not a region: uses Y, of type DOUBLE COMPLEX") || stdout.contains("loop 13 is not a region: uses X, of type DOUBLE COMPLEX"), "{stdout}");
    let l = lines_of(&text);
    let cplx = l.iter().position(|x| x.contains("y(i) = dcmplx")).unwrap();
    let last_region = l.iter().take(cplx).rposition(|x| x.contains("REGION"));
    assert!(last_region.is_none_or(|k| l[k].contains("END REGION")), "{text}");
    // the REAL loop before it is a region
    assert!(text.contains("!DVM$ REGION"), "{text}");
}
