//! `sapfor build` / `sapfor run` end to end with real gfortran and real `mpirun`: every sample
//! goes through `sapfor --auto` and then runs on 1, 2 and 4 processes (4 oversubscribes a
//! 2-core machine) and with 2 threads, printing what the sequential gfortran build prints;
//! hand-written Fortran-DVMH tests (runtime/tests/data) cover each directive and clause;
//! failures (checked mode, unsupported directives, missing runtime) give clear messages.
//!
//! Needs gfortran, Open MPI and the runtime staticlib; the latter is built here with
//! `cargo build -p sapfor-rt` (a no-op when up to date).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Build the runtime staticlib next to the sapfor binary, once per test process.
fn runtime_built() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let exe_dir = Path::new(env!("CARGO_BIN_EXE_sapfor")).parent().unwrap().to_path_buf();
        let mut c = Command::new(env!("CARGO"));
        c.current_dir(root()).args(["build", "-q", "-p", "sapfor-rt"]);
        // the same profile as the sapfor binary under test
        if exe_dir.file_name().is_some_and(|n| n == "release") {
            c.arg("--release");
        }
        let out = c.output().expect("cargo");
        assert!(
            out.status.success(),
            "cargo build -p sapfor-rt failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(exe_dir.join("libsapfor_rt.a").is_file(), "no libsapfor_rt.a in {}", exe_dir.display());
    });
}

fn sapfor(dir: &Path) -> Command {
    runtime_built();
    let mut c = Command::new(env!("CARGO_BIN_EXE_sapfor"));
    c.current_dir(dir)
        // one cache for every run of the tests, in the target directory; the driver keeps it
        // under its size limit
        .env("SAPFOR_CACHE", Path::new(env!("CARGO_TARGET_TMPDIR")).join("sapfor-run-cache"));
    c
}

fn scratch(tag: &str) -> Scratch {
    Scratch::new("run", tag)
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Compile `src` as plain Fortran (the directives are comments) and run it in `dir`.
fn sequential(dir: &Path, src: &Path, fixed: bool) -> String {
    let exe = dir.join("seq");
    // in the scratch directory: a program with a module writes its .mod file there
    let out = Command::new("gfortran")
        .current_dir(dir)
        .args(["-O2", "-w", "-x", if fixed { "f77" } else { "f95" }])
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gfortran is required (scripts/setup.sh installs it)");
    assert!(out.status.success(), "gfortran: {}", text(&out));
    let run = Command::new(&exe).current_dir(dir).output().unwrap();
    assert!(run.status.success(), "sequential run: {}", text(&run));
    String::from_utf8(run.stdout).unwrap()
}

/// Outputs equal: text and integers exactly, reals within a relative 1e-12.
fn same_output(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (ta, tb): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || (x.contains('.') && y.contains('.')) && match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => (p - q).abs() <= 1e-12 * p.abs().max(q.abs()),
                    _ => false,
                }
        })
}

/// Run a Fortran-DVMH file with `sapfor run` in a fresh copy of `dir` and compare stdout (and
/// the listed output files) with the sequential ones.
fn run_and_compare(dir: &Path, fdv: &str, want: &str, files: &[&str], args: &[&str]) {
    let tag = args.join("_").replace('-', "");
    let rd = dir.join(format!("run{tag}"));
    std::fs::create_dir_all(&rd).unwrap();
    let out = sapfor(&rd)
        .args(["run", &format!("../{fdv}")])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "sapfor run {fdv} {args:?}: {}", text(&out));
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(
        same_output(&got, want),
        "sapfor run {fdv} {args:?} printed something else.\n--- want\n{want}\n--- got\n{got}"
    );
    for f in files {
        let a = std::fs::read_to_string(dir.join(f)).unwrap();
        let b = std::fs::read_to_string(rd.join(f)).unwrap_or_default();
        assert!(same_output(&a, &b), "{f} written by {fdv} {args:?} differs from the sequential one");
    }
}

/// The last one runs every PARALLEL loop in a shuffled order (`--order`): a directive that is
/// wrong changes the output and makes the run fail, naming the loop.
const CONFIGS: &[&[&str]] = &[&["--np", "1"], &["--np", "2"], &["--np", "4"], &["--threads", "2"], &["--np", "2", "--order", "shuffle=3"]];

/// Regions on the emulated accelerator (the generated CUDA C kernels compiled for the CPU,
/// with memory of its own), alone, with processes and threads, and comparing every loop of a
/// region with the host's version.
/// `host,emu` splits the outermost loop of every region loop between the host and the
/// accelerator.
const GPU_CONFIGS: &[&[&str]] = &[
    &["--devices", "emu"],
    &["--devices", "emu", "--np", "2"],
    &["--devices", "emu", "--np", "2", "--threads", "2"],
    &["--devices", "emu", "--compare"],
    &["--devices", "host,emu"],
    &["--devices", "host,emu", "--weights", "1,3", "--np", "2"],
];

/// A sample through `sapfor --auto`, then `sapfor run` in every configuration.
fn sample(name: &str, file: &str, edit: Option<(&str, &str)>, files: &[&str]) {
    let dir = scratch(name);
    let mut src = std::fs::read_to_string(root().join("samples").join(name).join(file)).unwrap();
    if let Some((a, b)) = edit {
        assert!(src.contains(a));
        src = src.replace(a, b);
    }
    std::fs::write(dir.join(file), &src).unwrap();
    let fixed = file.ends_with(".f");
    let want = sequential(&dir, &dir.join(file), fixed);
    if edit.is_none() {
        let expected = std::fs::read_to_string(root().join("samples").join(name).join("expected.out")).unwrap();
        assert_eq!(want, expected, "the sequential build of {name} does not print expected.out");
    }
    let out = sapfor(&dir).args(["--auto", file, "--procs", "4", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "sapfor --auto: {}", text(&out));
    let stem = Path::new(file).file_stem().unwrap().to_string_lossy().to_string();
    let fdv = format!("{stem}.fdv");
    assert!(dir.join(&fdv).is_file());
    for args in CONFIGS.iter().chain(GPU_CONFIGS) {
        run_and_compare(&dir, &fdv, &want, files, args);
    }
}

#[test]
fn sample_jacobi() {
    // 300x300 instead of 2000x2000 to keep CI short (4 runs + the sequential one)
    sample("jacobi", "jac.f", Some(("L=2000", "L=300")), &["JAC.DAT"]);
}

#[test]
fn sample_gauss_seidel() {
    sample("gauss_seidel", "gs.f", None, &[]);
}

#[test]
fn sample_heat3d() {
    sample("heat3d", "heat3d.f90", None, &[]);
}

#[test]
fn sample_legacy() {
    sample("legacy", "legacy.f", None, &[]);
}

#[test]
fn sample_reductions() {
    sample("reductions", "red.f90", None, &[]);
}

/// A hand-written Fortran-DVMH test: its sequential meaning is the same file compiled by
/// gfortran with the directives as comments.
fn handwritten(name: &str, extra: &[&[&str]]) {
    let dir = scratch(name);
    let src = root().join("runtime/tests/data").join(format!("{name}.fdv"));
    let fdv = format!("{name}.fdv");
    std::fs::copy(&src, dir.join(&fdv)).unwrap();
    let fixed = analyzer::source::detect_form_by_content(&std::fs::read_to_string(&src).unwrap())
        == analyzer::source::SourceForm::Fixed;
    let want = sequential(&dir, &dir.join(&fdv), fixed);
    for args in CONFIGS.iter().chain(extra) {
        run_and_compare(&dir, &fdv, &want, &[], args);
    }
}

/// REDUCTION on arrays (sum, max, count in COMMON, logical OR, a histogram, a dummy argument
/// in a loop without ON), on grids that replicate a 1-D loop's copies, in checked mode and in
/// a region on the emulated accelerator (the loop then runs on the host).
#[test]
fn array_reductions_combine_element_by_element() {
    handwritten(
        "array_reductions",
        &[
            &["--np", "4", "--grid", "2x2"],
            &["--np", "6", "--grid", "3x2"],
            &["--np", "3", "--threads", "2"],
            &["--np", "4", "--check"],
            &["--devices", "emu", "--np", "2"],
            &["--devices", "host,emu", "--np", "2"],
        ],
    );
}

#[test]
fn regions_with_host_statements_fallback_loops_maxloc_sections_and_local_arrays() {
    handwritten("regions", &[GPU_CONFIGS, &[&["--devices", "emu", "--np", "3", "--compare"], &["--devices", "emu", "--np", "4"]]].concat());
    // the loops that cannot be kernels are named, with the reason
    let dir = scratch("regions-warn");
    std::fs::copy(root().join("runtime/tests/data/regions.fdv"), dir.join("r.fdv")).unwrap();
    let out = sapfor(&dir).args(["build", "r.fdv", "-o", "r"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("r.fdv:22") && err.contains("writes a non-distributed array"), "{}", text(&out));
    assert!(err.contains("r.fdv:32") && err.contains("function call DAMP"), "{}", text(&out));
}

#[test]
fn actual_of_an_unregistered_name_declares_nothing_of_another_type() {
    handwritten("actual_other_type", &[&["--devices", "emu"], &["--devices", "emu", "--compare"]]);
}

#[test]
fn reduction_results_stay_on_the_accelerator_until_the_host_reads_them() {
    handwritten("deferred", &[GPU_CONFIGS, &[&["--devices", "emu", "--np", "3", "--threads", "2"]]].concat());
    // One process: fetched are S when the next reduction, or the kernel taking it by value,
    // starts from it (8 x 8 B), M and IM for the host statement reading them every time
    // (4 x 12 B), Z only at the GET_ACTUAL after the loop (8 B, not 4 x 8 B), A at that
    // GET_ACTUAL (200 x 8 B), M with IM when IM alone is printed (12 B), S reduced and then
    // reset by the host: not at all, S reduced again at its GET_ACTUAL (8 B), T at its first
    // GET_ACTUAL (8 B; the second result is dropped by the host's assignment and ACTUAL), Q of
    // a subroutine at once (8 B, its storage ends with the call), Z before the IF THEN whose
    // ELSE IF reads it (8 B), S before each of the 8 evaluations of a DO WHILE condition after
    // the first (8 x 8 B): 1828 B in 27 copies. With 2 processes every result is fetched at
    // once (the processes combine them): Z 3, S 1 and T 1 more, and each process its half of
    // A.
    let dir = scratch("deferred-traffic");
    std::fs::copy(root().join("runtime/tests/data/deferred.fdv"), dir.join("d.fdv")).unwrap();
    let prof = accelerator_report(&dir, "d.fdv", &["--devices", "emu"]);
    assert!(prof.contains("host->device 0 B in 0 copies, device->host 1828 B in 27 copies"), "{prof}");
    let prof = accelerator_report(&dir, "d.fdv", &["--devices", "emu", "--np", "2"]);
    let p0 = prof.lines().skip_while(|l| !l.starts_with("process 0")).find(|l| l.contains("accelerator total:")).unwrap();
    assert!(p0.contains(&format!("device->host {} B in 32 copies", 228 + 5 * 8 + 100 * 8)), "{prof}");
}

/// `--profile` of a run on the emulated accelerator: the accelerator's lines.
fn accelerator_report(dir: &Path, fdv: &str, args: &[&str]) -> String {
    let out = sapfor(dir).args(["run", fdv, "--profile", "prof.txt"]).args(args).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    std::fs::read_to_string(dir.join("prof.txt")).unwrap()
}

#[test]
fn jacobi_on_the_emulator_moves_only_what_the_host_reads() {
    // SPEC section 7 and issue 7: initialised on the device, no copy of A or B between
    // iterations; each iteration the host reads EPS (4 bytes), and B once for the output file
    let l = 300u64;
    let dir = scratch("jac-traffic");
    let src = std::fs::read_to_string(root().join("samples/jacobi/jac.f")).unwrap().replace("L=2000", "L=300");
    std::fs::write(dir.join("jac.f"), src).unwrap();
    let out = sapfor(&dir).args(["--auto", "jac.f", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let prof = accelerator_report(&dir, "jac.fdv", &["--devices", "emu"]);
    let total = prof.lines().find(|l| l.contains("accelerator total:")).unwrap_or_else(|| panic!("{prof}"));
    let want = format!("host->device 0 B in 0 copies, device->host {} B in 21 copies", 20 * 4 + l * l * 4);
    assert!(total.contains(&want), "want {want}\n{prof}");
    // the iteration region runs 20 times and moves nothing: EPS stays on the accelerator
    // until the GET_ACTUAL before the PRINT (outside the region) fetches it
    let region = prof.lines().find(|l| l.contains("region jac.fdv:") && l.contains("runs 20")).unwrap_or_else(|| panic!("{prof}"));
    assert!(region.contains("host->device 0 B in 0 copies, device->host 0 B in 0 copies"), "{prof}");
    let outside = prof.lines().find(|l| l.contains("outside regions:")).unwrap_or_else(|| panic!("{prof}"));
    assert!(outside.contains(&format!("device->host {} B in 21 copies", 20 * 4 + l * l * 4)), "{prof}");
    assert!(prof.contains("kernels 41"), "one kernel per parallel loop run: {prof}");
    // 2 processes (the columns are split, process 0 owns 1..150): besides EPS and its half
    // of B, process 0 moves only shadow columns. In: the column of A received every
    // iteration (20 x 300 x 4 B), and at the first entry of the iteration region the shadow
    // columns its clauses name (A whole: 300 elements; B(2:L-1,2:L-1): 298). Out: its last
    // column of A for the neighbour every iteration: all 300 rows the first time (the
    // initialisation wrote them on the device), then rows 2..299 (what the region writes).
    let prof = accelerator_report(&dir, "jac.fdv", &["--devices", "emu", "--np", "2"]);
    let p0 = prof.lines().skip_while(|l| !l.starts_with("process 0")).find(|l| l.contains("accelerator total:")).unwrap();
    let h2d = 20 * l * 4 + l * 4 + (l - 2) * 4;
    let d2h = 20 * 4 + l * 4 + 19 * (l - 2) * 4 + l * (l / 2) * 4;
    let want = format!("host->device {h2d} B in 22 copies, device->host {d2h} B in 41 copies");
    assert!(p0.contains(&want), "want {want}\n{prof}");
    // host and accelerator sharing the columns 1:1 (150 each): every iteration one column of
    // A (rows 2..299) crosses each way for the stencil, and EPS comes back; at the end the
    // host fetches the accelerator's half of B. Before the split initialisation loop the
    // accelerator gets its half of A and of B (2 x 150 columns): each side claims whole
    // columns of its part as newest afterwards, and the runtime does not know that the loop
    // writes every element of them (a loop writing part of a column must find the rest
    // current: analyzer/test_data/split_partial_writes.f)
    let prof = accelerator_report(&dir, "jac.fdv", &["--devices", "host,emu"]);
    let total = prof.lines().find(|l| l.contains("accelerator total:")).unwrap();
    // (all 300 rows of that column the first time: the initialisation wrote them)
    let h2d = 2 * l * (l / 2) * 4 + l * 4 + 19 * (l - 2) * 4;
    let d2h = 20 * 4 + l * 4 + 19 * (l - 2) * 4 + l * (l / 2) * 4;
    let want = format!("host->device {h2d} B in 22 copies, device->host {d2h} B in 41 copies");
    assert!(total.contains(&want), "want {want}\n{prof}");
}

#[test]
fn heat3d_on_the_emulator_moves_the_minimum() {
    // what the host reads: 4 checksums and the 4 MAXDIFFs printed with them (8 B each; the
    // other 16 MAXDIFFs stay on the accelerator, reset by the host's assignment), and the
    // three probed elements of U (8 B each)
    let dir = scratch("heat-traffic");
    let src = std::fs::read_to_string(root().join("samples/heat3d/heat3d.f90")).unwrap().replace("n = 120", "n = 40");
    std::fs::write(dir.join("heat3d.f90"), src).unwrap();
    let out = sapfor(&dir).args(["--auto", "heat3d.f90", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let want = sequential(&dir, &dir.join("heat3d.f90"), false);
    let out = sapfor(&dir).args(["run", "heat3d.fdv", "--devices", "emu", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(same_output(&String::from_utf8_lossy(&out.stdout), &want), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    let total = prof.lines().find(|l| l.contains("accelerator total:")).unwrap_or_else(|| panic!("{prof}"));
    assert!(total.contains("host->device 0 B in 0 copies, device->host 88 B in 11 copies"), "{prof}");
}

#[test]
fn compare_finds_a_wrongly_parallel_loop_and_keeps_the_host_values() {
    let dir = scratch("compare");
    std::fs::copy(root().join("runtime/tests/data/wrong_parallel.fdv"), dir.join("w.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("w.fdv"), false);
    let out = sapfor(&dir).args(["run", "w.fdv", "--devices", "emu", "--compare"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    // region, loop, variable, first differing indices (column-major order), both values
    assert!(
        // the emulator runs the threads shuffled under --compare: A(2,3) reads A(3,2) before
        // the thread of A(3,2) wrote it (host 4+1+1+1 = 7, accelerator 3+2+1 = 6)
        err.contains("sapfor compare: region w.fdv:17 (loop w.fdv:19, kernel ") && err.contains("): a(2,3) host 7 accelerator 6"),
        "{}",
        text(&out)
    );
    // the loop's SUM over what it computed differs too
    assert!(err.contains("): reduction result host 343329 accelerator "), "{}", text(&out));
    assert!(err.contains("2 loops ran on the accelerator and on the host, 1 with differences"), "{}", text(&out));
    // --compare without an accelerator is refused with a message
    let out = sapfor(&dir).args(["run", "w.fdv", "--compare"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compare needs an accelerator"), "{}", text(&out));
}

#[test]
fn cuda_without_a_driver_runs_regions_on_the_host_with_one_note() {
    let dir = scratch("cuda");
    std::fs::copy(root().join("runtime/tests/data/regions.fdv"), dir.join("r.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("r.fdv"), false);
    let out = sapfor(&dir).args(["run", "r.fdv", "--devices", "cuda", "--np", "2"]).env("SAPFOR_NO_CUDA", "1").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("sapfor: no CUDA device").count(), 1, "{}", text(&out));
    assert!(err.contains("regions run on the host"), "{}", text(&out));
}

#[test]
fn across_1d_with_remote_access() {
    handwritten("across1d", &[&["--np", "3"]]);
}

/// Arrays divided along their last dimension only: the pipeline tiles the undivided first
/// dimension (Gauss-Seidel on `(*,BLOCK)` ran one process after the other before), except
/// where a reference reads ahead in the tiled dimension and behind in another or the other
/// way round (tiles would reorder those reads).
#[test]
fn across_tiles_along_an_undivided_dimension() {
    handwritten("across_tiles", &[&["--np", "3"], &["--np", "4", "--threads", "2"]]);
}

/// Tiled ACROSS loops on the threads of a process (a pipeline between the threads: each takes
/// a part of the outermost loop and starts a tile once the thread before it has finished
/// it): forward and backward sweeps, a 3-D sweep, an outer loop of two iterations on four
/// threads, a MAX reduction with a private scalar; at one process (every array) and at
/// several (C, divided along the tiled dimension only). Integer values: a thread that ran
/// ahead of its predecessor prints other sums (with the wait removed, 3 of the 4
/// configurations below printed other sums).
#[test]
fn across_loops_run_as_pipelines_between_threads() {
    handwritten(
        "across_threads",
        &[&["--threads", "3"], &["--threads", "4"], &["--np", "2", "--threads", "2"], &["--np", "3", "--threads", "3"], &["--threads", "2", "--order", "reverse"]],
    );
}

/// A pass along the distributed dimension inside a procedure (an FFT along z): the dummies
/// inherit `(*,*,BLOCK)` and the loop over the second dimension runs on a template over full
/// copies of them (each process fetches the planes of its iterations from their owners and
/// sends what it wrote back). The calls pass A and B, B and A, and A for both dummies. With
/// the dummies' references left on their local blocks (the converter's old gap) the program
/// failed at `--np 2`.
#[test]
fn passes_along_the_distributed_dimension_run_over_copies_of_inherit_dummies() {
    handwritten("transpose_dummy", &[&["--np", "3"], &["--np", "4"], &["--np", "2", "--threads", "2"], &["--threads", "3"]]);
}

/// A vector dummy given 3-D arrays whole (INHERIT; each process's block, divided in the last
/// dimension, is one run of the vector): written in a loop ON the 3-D dummy at the element of
/// the same place, updated by its owner, read element by element and in a sequential loop,
/// printed, and written on a template over full copies; the calls pass A and B, then A for
/// both dummies. With the element's place in the array miscounted, or the run's bounds off
/// by one, the program printed other values at every process count.
#[test]
fn a_vector_dummy_given_a_distributed_array_holds_its_elements_in_order() {
    handwritten("reshaped_dummy", &[&["--np", "3"], &["--np", "4"], &["--np", "2", "--threads", "2"], &["--threads", "3"]]);
}

/// PARALLEL loops that end at the terminal statement of a DO loop around them (`DO 10 K`
/// around `DO 10 J`, F77's shared labels): a reduction in each sweep, shadow edges renewed in
/// each sweep with an assignment as the terminal statement, `DO 25, I`, and a loop on a
/// template over full copies inside a procedure. What follows such a loop was written after
/// the shared statement, so it ran once after the enclosing loop: the reduction stopped the
/// program ("sapfor_red_end: values missing"), the copies' updates of all but the last sweep
/// were lost.
#[test]
fn parallel_loops_sharing_the_terminal_statement_of_an_enclosing_loop() {
    handwritten("shared_terminal", &[&["--np", "3"], &["--np", "2", "--threads", "2"], &["--devices", "emu", "--np", "2"]]);
}

/// Pairs of PARALLEL loops run as one, plane by plane (runtime/src/convert_fuse.rs): a 3-D
/// stencil and its copy back (lag 1), two planes ahead and behind over other ranges (lag 2),
/// planes of an undivided dimension, two Jacobis with a renewal between their loops (one on
/// `(BLOCK,BLOCK)`, whose renewal on a 2x2 grid keeps every plane of the stencil waiting);
/// beside a pair that must not be fused (a plane every iteration of the second reads). With every loop on threads
/// (`SAPFOR_TEAM_MIN=0`) the planes near the ends of each thread's part wait for the second
/// pass. Every run prints what the sequential program prints, and so does the program with
/// the loops apart (`SAPFOR_FUSE=0`). A build that ran the second loop without its lag, or
/// every plane in the first pass, printed other values at np 1, 2 and on 2 and 3 threads; one
/// without the renewal between the Jacobis' passes, or with the run-time check always true,
/// other sums at np 2 and on the 2x1 and 2x2 grids.
#[test]
fn pairs_of_parallel_loops_run_as_one() {
    runs_as_sequential("fused_loops", "SAPFOR_FUSE", &[
        (&["--np", "1"][..], "1"),
        (&["--np", "2"], "1"),
        (&["--np", "3"], "1"),
        (&["--np", "4"], "1"),
        // (grids dividing the first dimension: the 2-D Jacobis' renewals write edges
        // inside every plane of P, and of A on 2x1)
        (&["--np", "2", "--grid", "2x1"], "1"),
        (&["--np", "4", "--grid", "2x2"], "1"),
        (&["--np", "4", "--grid", "2x2", "--threads", "2"], "1"),
        (&["--threads", "2"], "1"),
        (&["--threads", "3"], "1"),
        (&["--np", "2", "--threads", "2"], "1"),
        (&["--np", "3", "--threads", "3"], "1"),
        (&["--np", "2", "--order", "shuffle=3"], "1"),
        (&["--devices", "emu", "--np", "2"], "1"),
        (&["--np", "2", "--threads", "2"], "0"),
    ]);
}

/// Time loops around fused loops in blocks of steps (runtime/src/convert_skew.rs) print what
/// the sequential program prints, in blocks of 8, 2 and 3 steps and as fused loops only
/// (`SAPFOR_SKEW=0`), on threads (which share each block's steps) and on processes (where the
/// loops run as converted before); on one process the very same digits, sums of reals
/// included (each step's planes run in their order). The fixture's arrays fit in any cache:
/// `SAPFOR_SKEW_CACHE=0` runs them in blocks. Builds whose skew was one plane short printed
/// other values on 2 threads, two planes short on one; without the threads' wait, on 2 and 3
/// threads; without putting the arrays back, where a step leaves the loop.
#[test]
fn time_loops_in_blocks_of_steps_keep_the_sequential_results() {
    let configs: &[(&[&str], &str)] = &[
        (&["--np", "1"][..], "8"),
        (&["--np", "1"], "2"),
        (&["--np", "1"], "3"),
        (&["--threads", "2"], "8"),
        (&["--threads", "3"], "2"),
        (&["--threads", "2"], "0"),
        (&["--np", "2"], "8"),
        (&["--np", "3", "--threads", "2"], "3"),
        (&["--devices", "emu", "--np", "2"], "8"),
    ];
    // (and in procedures: INHERIT dummies, a distributed COMMON array)
    for name in ["time_blocks", "time_blocks_calls"] {
        let dir = scratch(name);
        let fdv = format!("{name}.fdv");
        std::fs::copy(root().join("runtime/tests/data").join(&fdv), dir.join(&fdv)).unwrap();
        let want = sequential(&dir, &dir.join(&fdv), true);
        for (args, value) in configs {
            let out = sapfor(&dir).env("SAPFOR_TEAM_MIN", "0").env("SAPFOR_SKEW_CACHE", "0").env("SAPFOR_SKEW", value).args(["run", &fdv]).args(*args).output().unwrap();
            assert!(out.status.success(), "{name} {args:?} SAPFOR_SKEW={value}: {}", text(&out));
            let got = String::from_utf8_lossy(&out.stdout);
            assert!(same_output(&got, &want), "{name} {args:?} SAPFOR_SKEW={value}: {}", text(&out));
            // (one process, in blocks: the same digits, on threads too)
            if (!args.contains(&"--np") || args == &["--np", "1"]) && *value != "0" {
                assert_eq!(got, want, "{name} {args:?} SAPFOR_SKEW={value}");
            }
        }
    }
    // the profile counts each step as a run of the loop (the heat program's 11 steps, in one
    // block)
    let dir = scratch("time_blocks_profile");
    std::fs::copy(root().join("runtime/tests/data/time_blocks.fdv"), dir.join("time_blocks.fdv")).unwrap();
    let out = sapfor(&dir).env("SAPFOR_SKEW_CACHE", "0").args(["run", "time_blocks.fdv", "--np", "1", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    let heat = prof.lines().find(|l| l.contains("parallel loop at time_blocks.fdv:31 ")).unwrap_or_else(|| panic!("{prof}"));
    assert_eq!(heat.split_whitespace().nth(5), Some("11"), "{heat}");
    assert!(heat.ends_with("blocks of time steps 1"), "{heat}");
    // the heat program with a checksum every fourth step in an IF construct: blocks end at
    // steps 4 and 8 (3 blocks for 11 steps), the checksum loop runs twice
    let cut = prof.lines().find(|l| l.contains("parallel loop at time_blocks.fdv:177 ")).unwrap_or_else(|| panic!("{prof}"));
    assert_eq!(cut.split_whitespace().nth(5), Some("11"), "{cut}");
    assert!(cut.ends_with("run as one with the loop at time_blocks.fdv:185  blocks of time steps 3"), "{cut}");
    let sum = prof.lines().find(|l| l.contains("parallel loop at time_blocks.fdv:194 ")).unwrap_or_else(|| panic!("{prof}"));
    assert_eq!(sum.split_whitespace().nth(5), Some("2"), "{sum}");
    // and a Jacobi with such an IF that leaves at step 10: blocks 1-4, 5-8 and 9-12, then
    // 9-10 again (14 steps run), the maximum at steps 4 and 8
    let jac = prof.lines().find(|l| l.contains("parallel loop at time_blocks.fdv:229 ")).unwrap_or_else(|| panic!("{prof}"));
    assert_eq!(jac.split_whitespace().nth(5), Some("14"), "{jac}");
    assert!(jac.ends_with("blocks of time steps 4"), "{jac}");
    let max = prof.lines().find(|l| l.contains("parallel loop at time_blocks.fdv:244 ")).unwrap_or_else(|| panic!("{prof}"));
    assert_eq!(max.split_whitespace().nth(5), Some("2"), "{max}");
    // on two processes too, in blocks of 8: each process's line says 2 blocks (11 steps); as
    // converted, none
    for (width, blocks) in [("8", Some("blocks of time steps 2")), ("0", None)] {
        let out = sapfor(&dir).env("SAPFOR_SKEW_CACHE", "0").env("SAPFOR_SKEW", width).args(["run", "time_blocks.fdv", "--np", "2", "--profile", "prof2.txt"]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let prof = std::fs::read_to_string(dir.join("prof2.txt")).unwrap();
        let heat: Vec<&str> = prof.lines().filter(|l| l.contains("parallel loop at time_blocks.fdv:31 ")).collect();
        assert_eq!(heat.len(), 2, "{prof}");
        for l in heat {
            assert_eq!(l.split_whitespace().nth(5), Some("11"), "{l}");
            assert_eq!(blocks.is_some_and(|b| l.ends_with(b)), blocks.is_some(), "{width}: {prof}");
            assert!(blocks.is_some() || !l.contains("blocks of time steps"), "{l}");
        }
    }
    // more threads than the waits' counters (256): as converted, the sequential output
    let want = sequential(&dir, &dir.join("time_blocks.fdv"), true);
    let out = sapfor(&dir).env("SAPFOR_SKEW_CACHE", "0").env("SAPFOR_TEAM_MIN", "0").args(["run", "time_blocks.fdv", "--threads", "260", "--profile", "prof3.txt"]).output().unwrap();
    assert!(out.status.success() && same_output(&String::from_utf8_lossy(&out.stdout), &want), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof3.txt")).unwrap();
    assert!(prof.contains("parallel loop at time_blocks.fdv:31 ") && !prof.contains("blocks of time steps"), "{prof}");
}

/// `sapfor build --explain` says what the converter did to the loops beyond their
/// directives, with file and line: loops run as one, a time loop in blocks of steps (with its
/// skew), an ACROSS nest in wavefront strips; nothing without the flag, and a sentence where
/// it did nothing.
/// `--auto` writes regions (the default machine has an accelerator); on the host they mean
/// nothing, and `sapfor run` without an accelerator builds without them, so the loops inside
/// them run as one and the time loop around them in blocks of steps, as in the same program
/// without regions. With an accelerator the regions stay.
#[test]
fn auto_output_runs_its_region_loops_as_one_and_in_blocks_on_the_host() {
    let dir = scratch("auto-regions-host");
    let src = "      PROGRAM HEAT
      PARAMETER (N=80, NSTEPS=11)
      DOUBLE PRECISION U(N,N,N), V(N,N,N), S, EPS
      DO 10 K = 1, N
      DO 10 J = 1, N
      DO 10 I = 1, N
         U(I,J,K) = 0.D0
         V(I,J,K) = 0.D0
         IF (K.EQ.1) V(I,J,K) = 1.D0 + I * 0.01D0 + J * 0.001D0
   10 CONTINUE
      DO 50 IT = 1, NSTEPS
         DO 20 K = 2, N-1
         DO 20 J = 2, N-1
         DO 20 I = 2, N-1
            U(I,J,K) = (V(I-1,J,K) + V(I+1,J,K) + V(I,J-1,K)
     &                + V(I,J+1,K) + V(I,J,K-1) + V(I,J,K+1)) / 6.D0
   20    CONTINUE
         EPS = 0.D0
         DO 30 K = 2, N-1
         DO 30 J = 2, N-1
         DO 30 I = 2, N-1
            EPS = MAX(EPS, ABS(U(I,J,K) - V(I,J,K)))
            V(I,J,K) = U(I,J,K)
   30    CONTINUE
         PRINT 100, IT, EPS
   50 CONTINUE
      S = 0.D0
      DO 60 K = 1, N
      DO 60 J = 1, N
      DO 60 I = 1, N
         S = S + V(I,J,K) * (I + 2 * J + 3 * K)
   60 CONTINUE
      PRINT 110, S
  100 FORMAT (' IT =', I5, '   EPS =', E24.16)
  110 FORMAT (' CHECKSUM =', E24.16)
      END
";
    std::fs::write(dir.join("heat.f"), src).unwrap();
    let want = sequential(&dir, &dir.join("heat.f"), true);
    let out = sapfor(&dir).args(["--auto", "heat.f", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let fdv = std::fs::read_to_string(dir.join("heat.fdv")).unwrap();
    assert!(fdv.contains("REGION") && fdv.contains("GET_ACTUAL"), "{fdv}");
    // on the host: loops run as one, the time loop in blocks; one process prints the
    // sequential program's digits
    let out = sapfor(&dir).env("SAPFOR_SKEW_CACHE", "0").args(["run", "heat.fdv", "--explain", "--profile", "p1.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this time loop runs its steps in blocks of up to 32") && err.contains("run as one loop over the planes of K"), "{err}");
    assert!(!err.contains("in a region"), "{err}");
    let prof = std::fs::read_to_string(dir.join("p1.txt")).unwrap();
    assert!(prof.contains("blocks of time steps 1") && !prof.contains("region heat.fdv"), "{prof}");
    // two processes and threads: blocks again
    for args in [&["--np", "2"][..], &["--np", "2", "--threads", "2"]] {
        let out = sapfor(&dir).env("SAPFOR_SKEW_CACHE", "0").env("SAPFOR_TEAM_MIN", "0").args(["run", "heat.fdv", "--profile", "p2.txt"]).args(args).output().unwrap();
        assert!(out.status.success() && same_output(&String::from_utf8_lossy(&out.stdout), &want), "{args:?}: {}", text(&out));
        let prof = std::fs::read_to_string(dir.join("p2.txt")).unwrap();
        assert_eq!(prof.matches("blocks of time steps 1").count(), 2, "{args:?}: {prof}");
    }
    // on the emulated accelerator the regions run there (and the loops apart)
    let out = sapfor(&dir).args(["run", "heat.fdv", "--devices", "emu", "--np", "2", "--explain", "--profile", "pe.txt"]).output().unwrap();
    assert!(out.status.success() && same_output(&String::from_utf8_lossy(&out.stdout), &want), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("they are in a region"), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("pe.txt")).unwrap();
    assert!(prof.contains("region heat.fdv:") && !prof.contains("blocks of time steps"), "{prof}");
    // --host-only with an accelerator is refused; an executable built so runs on the host,
    // saying once that SAPFOR_DEVICES is not followed
    let out = sapfor(&dir).args(["run", "heat.fdv", "--host-only", "--devices", "emu"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--host-only leaves the regions out"), "{}", text(&out));
    let out = sapfor(&dir).args(["build", "heat.fdv", "--host-only", "-o", "hh"]).output().unwrap();
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("has REGIONs"), "{}", text(&out));
    // (built with its regions on a machine without an accelerator: a hint names --host-only)
    let out = sapfor(&dir).args(["build", "heat.fdv", "-o", "hr"]).output().unwrap();
    let hint = String::from_utf8_lossy(&out.stderr).contains("heat.fdv has REGIONs and this machine has no accelerator (/dev/nvidia0)");
    assert!(out.status.success() && hint != Path::new("/dev/nvidia0").exists(), "{}", text(&out));
    let run = Command::new(dir.join("hh")).current_dir(&dir).env("SAPFOR_NO_MPI", "1").env("SAPFOR_DEVICES", "emu").output().unwrap();
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
    assert_eq!(String::from_utf8_lossy(&run.stderr).matches("built for the host only").count(), 1, "{}", text(&run));
}

#[test]
fn explain_names_the_loops_the_converter_transformed() {
    let dir = scratch("explain");
    for f in ["time_blocks.fdv", "wave_strips.fdv", "threads.fdv", "fused_loops.fdv", "adi_sweeps.fdv", "inner_rows.fdv"] {
        std::fs::copy(root().join("runtime/tests/data").join(f), dir.join(f)).unwrap();
    }
    // ACROSS nests: tiles along the loop around the innermost, threads that need not wait
    let out = sapfor(&dir).args(["build", "adi_sweeps.fdv", "--explain", "-o", "adi"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let (tiles, free) = ("its pipeline's tiles divide the loop on J, so that the rows along I stay whole", "the threads sharing its loop on K do not wait for each other: no reference reads another index of K than the one it writes");
    for (line, what) in [(23, format!("{tiles}; {free}")), (29, free.to_string()), (37, tiles.to_string()), (44, tiles.to_string())] {
        assert!(err.contains(&format!("this ACROSS nest: {what}\n  --> adi_sweeps.fdv:{line}:1")), "{line}: {err}");
    }
    assert_eq!(err.matches("this ACROSS nest: ").count(), 4, "{err}");
    // loops moved innermost: which, inside which loops, and why
    let out = sapfor(&dir).args(["build", "inner_rows.fdv", "--explain", "-o", "ir"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let moved = "this nest runs its loop on I innermost, inside the loop";
    let none = "by I, none by J";
    for (line, what) in [(20, format!(" on J: 1 of the 1 array references in its body index their first (contiguous) dimension {none}")), (26, format!(" on J: 4 of the 4 array references in its body index their first (contiguous) dimension {none}")), (42, format!("s on K, J: 2 of the 2 array references in its body index their first (contiguous) dimension {none}")), (53, format!(" on J: 5 of the 5 array references in its body index their first (contiguous) dimension {none}")), (77, format!(" on J: 5 of the 5 array references in its body index their first (contiguous) dimension {none}")), (87, format!(" on J: 7 of the 7 array references in its body index their first (contiguous) dimension {none}")), (119, "s on J, K: 3 of the 4 array references in its body index their first (contiguous) dimension by I, 1 by K".to_string())] {
        assert!(err.contains(&format!("{moved}{what} (the directive's iterations are independent: the same values as written; SAPFOR_SWAP=0 at conversion keeps the nest as written)\n  --> inner_rows.fdv:{line}:1")), "{line}: {err}");
    }
    assert_eq!(err.matches(moved).count(), 7, "{err}");
    // and why the nests along the rows that stay were not moved
    let kept = "this nest runs along the rows of its arrays as written: its loop on I would run along more of its references innermost than its loop on J, but ";
    for (line, why) in [(62, "the reduction of X would add up in another order (a sum or product of reals, MAXLOC/MINLOC or an array)"), (70, "the bounds of the loop on J read I"), (101, "T is assigned inside an IF construct")] {
        assert!(err.contains(&format!("{kept}{why}\n  --> inner_rows.fdv:{line}:1")), "{line}: {err}");
    }
    assert_eq!(err.matches(kept).count(), 3, "{err}");
    let out = sapfor(&dir).args(["build", "time_blocks.fdv", "--explain", "-o", "tb"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let at = |line: u32| err.find(&format!("--> time_blocks.fdv:{line}:1")).unwrap_or_else(|| panic!("line {line}: {err}"));
    // (in the order of the lines: the heat program's time loop, then its loops)
    let (time, fused) = (at(27), at(31));
    assert!(time < fused, "{err}");
    assert!(err[..time].contains("this time loop runs its steps in blocks of up to 32 (as many as keep a wave of the block within a third of the cache), each step 3 planes behind the one before"), "{err}");
    assert!(err[time..fused].contains("this PARALLEL loop and the one at line 39 run as one loop over the planes of K: plane K of the second right after plane K + 1 of the first"), "{err}");
    // (a loop that leaves: the arrays copied once for a group of blocks, the relaxation's A
    // too; the Jacobi's and heat's first arrays, which their first loop writes before
    // reading, not; blocks that an IF construct ends copy at each block)
    assert!(err.contains("where a step leaves the loop, the group of up to 4 blocks (64 steps at most) is computed again from a copy of the arrays up to that step"), "{err}");
    assert!(err.contains("where a step leaves the loop, the group of up to 4 blocks (64 steps at most) is computed again up to that step from a copy of B made at its start (A needs none: the first loop gives it every value a step reads of it before reading it, but in its reductions, whose values the first computation keeps)"), "{err}");
    assert!(err.contains("where a step leaves the loop, the group of up to 4 blocks (64 steps at most) is computed again up to that step from a copy of V made at its start (U needs none"), "{err}");
    assert!(err.contains("where a step leaves the loop, the block is computed again up to that step from a copy of B made at its start (A needs none"), "{err}");
    assert!(err.contains("the second loop's renewal runs between two passes"), "{err}");
    // and why a DO loop around fused loops runs its steps in order
    let order = "this loop runs its steps in order, not in blocks of steps: ";
    assert!(err.contains(&format!("{order}the statements after the loops read B, which the loops write\n  --> time_blocks.fdv:143:1")), "{err}");
    assert!(err.contains(&format!("{order}the reduction of ISUM is not given a constant before the loops each step: it runs on from step to step\n  --> time_blocks.fdv:159:1")), "{err}");
    // an IF construct after the loops whose condition reads the time variable alone ends
    // blocks; one that writes an array of the loops keeps the steps in order
    assert!(err.contains("; a block ends at a step where the condition of the IF construct at line 191 holds, whose statements then run on the arrays as that step left them (the same values as in order; SAPFOR_SKEW=0 at conversion keeps the steps in order)\n  --> time_blocks.fdv:175:1"), "{err}");
    assert!(err.contains(&format!("{order}the IF construct at line 220 writes V, which the loops or the step use\n  --> time_blocks.fdv:206:1")), "{err}");
    // why two PARALLEL loops with nothing between them run apart (fused_loops.fdv's pair
    // whose second loop reads the last plane the first writes)
    let out = sapfor(&dir).args(["build", "fused_loops.fdv", "--explain", "-o", "fl"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this PARALLEL loop and the one at line 141 run one after the other, not as one loop over the planes: a reference of one loop and one of the other to an array one of them writes (Y) do not both index one dimension by the outermost variables (the second loop may read planes the first writes later)\n  --> fused_loops.fdv:136:1"), "{err}");
    assert_eq!(err.matches("run one after the other").count(), 1, "{err}");
    let out = sapfor(&dir).args(["build", "wave_strips.fdv", "--explain", "-o", "ws"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("of this ACROSS nest run in wavefront strips of 8 columns J"), "{err}");
    // and why a nest runs as written: a reference two rows ahead in the column before, a
    // sum of reals
    let as_written = "this ACROSS nest runs as written, not in wavefront strips: ";
    assert!(err.contains(&format!("{as_written}an iteration reads or writes an element of C that an iteration 1 column(s) before and 2 row(s) further touched: the strips would reverse them\n  --> wave_strips.fdv:77:1")), "{err}");
    assert!(err.contains(&format!("{as_written}a reduction whose value depends on the order of the iterations (a sum or product of reals, MAXLOC/MINLOC)\n  --> wave_strips.fdv:115:1")), "{err}");
    for line in [100, 106] {
        assert!(err.contains(&format!("{as_written}its loop on I carries no dependence: the points along I do not wait for each other as written\n  --> wave_strips.fdv:{line}:1")), "{err}");
    }
    // without the flag, no notes; where nothing was done, a sentence says so
    let out = sapfor(&dir).args(["build", "time_blocks.fdv", "-o", "tb"]).output().unwrap();
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("N0015"), "{}", text(&out));
    let out = sapfor(&dir).args(["build", "threads.fdv", "--explain", "-o", "th"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the converter did nothing to the loops beyond their directives") && !err.contains("N0015"), "{err}");
}

/// Runs fixture `name`.fdv of runtime/tests/data in each configuration, with `var` set as
/// given and every loop on threads (`SAPFOR_TEAM_MIN=0`): each prints what the sequential
/// program prints.
fn runs_as_sequential(name: &str, var: &str, configs: &[(&[&str], &str)]) {
    let dir = scratch(name);
    let fdv = format!("{name}.fdv");
    std::fs::copy(root().join("runtime/tests/data").join(&fdv), dir.join(&fdv)).unwrap();
    let want = sequential(&dir, &dir.join(&fdv), true);
    for (args, value) in configs {
        let out = sapfor(&dir).env("SAPFOR_TEAM_MIN", "0").env(var, value).args(["run", &fdv]).args(*args).output().unwrap();
        assert!(out.status.success(), "{args:?} {var}={value}: {}", text(&out));
        assert!(same_output(&String::from_utf8_lossy(&out.stdout), &want), "{args:?} {var}={value}: {}", text(&out));
    }
}

/// ACROSS nests in wavefront strips (runtime/src/convert_wave.rs) print what the sequential
/// program prints on processes, grids and threads, in strips of 8 and 3 columns and as
/// written (`SAPFOR_WAVE=0`). Builds whose strips ran a column's points before the previous
/// column's (the strip reversed), or that put the sweep reading two rows ahead in the column
/// before in strips, printed other values.
#[test]
fn across_nests_in_wavefront_strips_keep_the_sequential_results() {
    runs_as_sequential("wave_strips", "SAPFOR_WAVE", &[
        (&["--np", "1"][..], "8"),
        (&["--np", "2"], "8"),
        (&["--np", "3"], "8"),
        (&["--np", "4", "--grid", "2x2"], "8"),
        (&["--threads", "2"], "8"),
        (&["--threads", "3"], "8"),
        (&["--np", "2", "--threads", "2"], "8"),
        (&["--np", "3"], "3"),
        (&["--threads", "2"], "3"),
        (&["--np", "2"], "0"),
    ]);
}

/// Alternating-direction sweeps on a 3-D array divided in every dimension (the DVM system's
/// ADI example's shape): tiles along J where the sweep runs along I or K (the contiguous
/// dimension's rows whole), along I where it runs along J; threads sharing the planes of K
/// that need not wait for each other in the sweeps along I and J, and do in those along K.
/// Each configuration prints what the sequential program prints: on grids dividing each
/// dimension, with threads, with tiles of 2 and 4 (`SAPFOR_ACROSS_TILE`). Integer values: a
/// sweep along K whose threads did not wait, or tiles run out of order, print other sums.
#[test]
fn adi_sweeps_tile_the_rows_and_run_free_threads_where_no_dependence_crosses_them() {
    runs_as_sequential("adi_sweeps", "SAPFOR_ACROSS_TILE", &[
        (&["--np", "1"][..], ""),
        (&["--np", "2"], ""),
        (&["--np", "3"], ""),
        (&["--np", "2", "--grid", "2x1x1"], ""),
        (&["--np", "2", "--grid", "1x2x1"], ""),
        (&["--np", "4", "--grid", "2x1x2"], ""),
        (&["--threads", "2"], ""),
        (&["--threads", "3"], ""),
        (&["--np", "2", "--threads", "2"], ""),
        (&["--threads", "3"], "2"),
        (&["--np", "2", "--grid", "2x1x1"], "4"),
        (&["--np", "3", "--grid", "1x1x3"], "2"),
    ]);
}

/// Parallel loops written along the rows run the loop indexing the first dimension innermost
/// (runtime/src/convert_swap.rs): on processes, 2-D grids and threads (where the directive's
/// outermost loop moved in, each thread takes its part of that loop's iterations), and as
/// written (`SAPFOR_SWAP=0`), each prints what the sequential program prints. With the
/// check that the loops it passes do not read its variable in their bounds removed, or with
/// a scalar assigned inside an IF construct allowed, the fixture printed other values.
#[test]
fn loops_along_rows_run_their_first_dimension_innermost_with_the_sequential_results() {
    runs_as_sequential("inner_rows", "SAPFOR_SWAP", &[
        (&["--np", "1"][..], ""),
        (&["--np", "2"], ""),
        (&["--np", "3"], ""),
        (&["--np", "4", "--grid", "2x2"], ""),
        (&["--threads", "2"], ""),
        (&["--threads", "3"], ""),
        (&["--np", "2", "--threads", "2"], ""),
        (&["--np", "2"], "0"),
    ]);
}

/// Loops on I around statements, a nest along the rows and statements again, run in three
/// parts with the scalars kept per I (`expand` in runtime/src/convert_swap.rs): on
/// processes, threads (each taking its part of I for the three loops), both, the emulated
/// accelerator and as written (`SAPFOR_SWAP=0`), each prints the sequential program's digits
/// exactly (for each I the same operations in the same order). Builds that kept a scalar set
/// before the nest and read in it (S, W) one per thread, or that ended the loop on I before
/// an assignment ending the nest (`40 S = S + ...`), printed other values.
#[test]
fn loops_around_row_nests_run_in_three_parts_with_the_sequential_digits() {
    let dir = scratch("rows_expand");
    std::fs::copy(root().join("runtime/tests/data/rows_expand.fdv"), dir.join("rows_expand.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("rows_expand.fdv"), true);
    for (args, swap) in [
        (&["--np", "1"][..], "1"),
        (&["--np", "2"], "1"),
        (&["--np", "3"], "1"),
        (&["--threads", "2"], "1"),
        (&["--threads", "3"], "1"),
        (&["--np", "2", "--threads", "2"], "1"),
        (&["--devices", "emu", "--np", "2"], "1"),
        (&["--np", "2"], "0"),
    ] {
        let out = sapfor(&dir).env("SAPFOR_TEAM_MIN", "0").env("SAPFOR_SWAP", swap).args(["run", "rows_expand.fdv"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?} SAPFOR_SWAP={swap}: {}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?} SAPFOR_SWAP={swap}");
    }
}

/// `WRITE (U, *) A` of a whole distributed array (list_output.fdv, `ld_whole` in convert.rs,
/// `sapfor_ld_gather`): the processes and threads format their own elements and the I/O
/// process writes the record; the file and the standard output are the sequential program's
/// byte for byte, values from 1e-38 to 1e38 of every sign, INTEGER*8 past 2^31 included.
#[test]
fn list_directed_output_of_whole_arrays_is_formatted_by_every_process() {
    let dir = scratch("list_output");
    std::fs::copy(root().join("runtime/tests/data/list_output.fdv"), dir.join("list_output.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("list_output.fdv"), true);
    let file = std::fs::read(dir.join("LDW.DAT")).unwrap();
    assert_eq!(std::str::from_utf8(&file).unwrap().lines().count(), 3);
    for args in [&["--np", "1"][..], &["--threads", "2"], &["--np", "2"], &["--np", "3"], &["--np", "4", "--grid", "2x2"], &["--np", "2", "--threads", "2"]] {
        std::fs::remove_file(dir.join("LDW.DAT")).unwrap();
        let out = sapfor(&dir).args(["run", "list_output.fdv"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
        assert!(std::fs::read(dir.join("LDW.DAT")).unwrap() == file, "{args:?}: LDW.DAT differs");
    }
    let kept = dir.join("kept");
    let out = sapfor(&dir).args(["build", "--host-only", "list_output.fdv", "-o", "lo", "--keep"]).arg(&kept).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let f90 = std::fs::read_to_string(kept.join("list_output.f90")).unwrap();
    assert_eq!(f90.matches("call sapfor_ld_gather(").count(), 5, "{f90}");
}

/// STOP inside parallel loops (loop_stop.fdv, `loop_stops` in convert.rs): every process stops
/// after the loop, at the STOP the sequential program reaches first, with its output, its
/// message and its exit status; before, the process that reached it ended alone and the
/// others printed on (`after 1`) until the run failed with status 2.
#[test]
fn stop_inside_parallel_loops_stops_every_process_where_the_sequential_program_stops() {
    let src = std::fs::read_to_string(root().join("runtime/tests/data/loop_stop.fdv")).unwrap();
    for kase in 0..=4 {
        let dir = scratch(&format!("loop_stop{kase}"));
        std::fs::write(dir.join("loop_stop.fdv"), src.replacen("KASE=0)", &format!("KASE={kase})"), 1)).unwrap();
        let c = Command::new("gfortran").current_dir(&dir).args(["-O2", "-w", "-x", "f77", "loop_stop.fdv", "-o", "seq"]).output().unwrap();
        assert!(c.status.success(), "{}", text(&c));
        let seq = Command::new(dir.join("seq")).current_dir(&dir).output().unwrap();
        let (want, code) = (String::from_utf8_lossy(&seq.stdout).to_string(), seq.status.code());
        let message = String::from_utf8_lossy(&seq.stderr).trim().to_string();
        assert_eq!(want.lines().count(), [5, 1, 2, 3, 4][kase], "KASE={kase}: {want}");
        for args in [&["--np", "1"][..], &["--np", "2"], &["--np", "3"], &["--np", "4"], &["--threads", "2"], &["--np", "2", "--threads", "2"]] {
            let out = sapfor(&dir).args(["run", "loop_stop.fdv"]).args(args).output().unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "KASE={kase} {args:?}: {}", text(&out));
            assert_eq!(out.status.code(), code, "KASE={kase} {args:?}: {}", text(&out));
            let err = String::from_utf8_lossy(&out.stderr);
            if !message.is_empty() {
                assert!(err.contains(&message), "KASE={kase} {args:?}: {err}");
            }
            assert!(!err.contains("low column") || message.contains("low column"), "KASE={kase} {args:?}: {err}");
        }
    }
}

/// Task parallelism as the DVM system's examples write it (tasks.fdv: PROCESSORS, TASK, MAP,
/// REDISTRIBUTE onto a task for arrays distributed `DISTRIBUTE :: X`, a TASK_REGION of ON
/// blocks, a loop over the tasks, a REMOTE_ACCESS group, a DEBUG region): every task runs in
/// its place on all processes, and every run prints what the sequential program prints.
#[test]
fn task_regions_print_what_the_sequential_program_prints() {
    let dir = scratch("tasks");
    std::fs::copy(root().join("runtime/tests/data/tasks.fdv"), dir.join("tasks.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("tasks.fdv"), true);
    assert!(want.contains(" X IT =  9") && want.contains(" TASK 2  MAX ="), "{want}");
    for args in [&["--np", "1"][..], &["--np", "2"], &["--np", "3"], &["--np", "4"], &["--np", "2", "--threads", "2"], &["--devices", "emu", "--np", "2"]] {
        let out = sapfor(&dir).args(["run", "tasks.fdv"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
}

/// One process holds every array whole: a loop divided over full copies runs on the arrays
/// themselves (nothing fetched; also in the iteration-order mode and on 3 threads), while 2 and
/// 3 processes fetch their slices; every run prints what the sequential program prints. The
/// loops are written twice: `transpose_dummy` renumbers the labels of its F77 DO loops in
/// the second version (a duplicated label does not compile).
#[test]
fn one_process_runs_loops_over_full_copies_on_the_arrays_themselves() {
    for name in ["transpose_dummy", "reshaped_dummy"] {
        let dir = scratch(&format!("{name}-alone"));
        let fdv = format!("{name}.fdv");
        std::fs::copy(root().join("runtime/tests/data").join(&fdv), dir.join(&fdv)).unwrap();
        let want = sequential(&dir, &dir.join(&fdv), true);
        // (`SAPFOR_ALONE=0`: the copies on one process too)
        for (args, fetched, alone) in [
            (&["--np", "1"][..], false, "1"),
            (&["--order", "reverse"], false, "1"),
            (&["--threads", "3"], false, "1"),
            (&["--np", "1"], true, "0"),
            (&["--np", "2"], true, "1"),
            (&["--np", "3"], true, "1"),
        ] {
            let out = sapfor(&dir).env("SAPFOR_ALONE", alone).args(["run", &fdv, "--profile", "prof.txt"]).args(args).output().unwrap();
            assert!(out.status.success(), "{name} {args:?}: {}", text(&out));
            assert!(same_output(&String::from_utf8_lossy(&out.stdout), &want), "{name} {args:?}: {}", text(&out));
            let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
            assert_eq!(profile_count(&prof, "section fetches") > 0, fetched, "{name} {args:?}:\n{prof}");
        }
    }
}

/// The count of a line of the `--profile` report (`section fetches  count  9  time ...`).
fn profile_count(prof: &str, what: &str) -> u64 {
    let l = prof.lines().find(|l| l.trim_start().starts_with(what)).unwrap_or_else(|| panic!("no `{what}` in\n{prof}"));
    let w: Vec<&str> = l.split_whitespace().collect();
    let k = w.iter().position(|x| *x == "count").unwrap_or_else(|| panic!("{l}"));
    w[k + 1].parse().unwrap_or_else(|_| panic!("{l}"))
}

/// ACROSS loops that run downwards (and a nest whose outer loop runs upwards, its inner one
/// downwards): the pipeline carries new values from higher to lower indices there, tiled or
/// as whole blocks, one and two planes wide, in 1-D, 2-D and 3-D.
#[test]
fn across_downwards_pipelines_from_higher_to_lower_indices() {
    handwritten(
        "across_down",
        &[
            &["--np", "3"],
            &["--np", "4", "--grid", "4x1x1"],
            &["--np", "8"],
            &["--np", "6", "--grid", "1x3x2"],
            &["--np", "3", "--threads", "2"],
            &["--devices", "emu", "--np", "2"],
            &["--devices", "host,emu", "--np", "2"],
        ],
    );
}

/// Pipelines called plane by plane (NPB LU's BLTS and BUTS): while nothing between two
/// executions makes the process heading the pipeline wait, it sends each plane as one tile
/// and its successors, told by its messages, cut the same tiles; after a reduction the next
/// plane is tiled again. Same output on 1-D and 2-D grids, with threads; and the stream shows
/// in the profile: process 0 takes far fewer pipeline steps than with the tiles forced.
#[test]
fn across_loops_called_plane_by_plane_run_as_a_stream() {
    handwritten(
        "across_stream",
        &[&["--np", "3"], &["--np", "4", "--grid", "2x2"], &["--np", "6", "--grid", "2x3"], &["--np", "3", "--threads", "2"]],
    );
    let dir = scratch("across_stream_steps");
    std::fs::copy(root().join("runtime/tests/data/across_stream.fdv"), dir.join("across_stream.fdv")).unwrap();
    let steps = |tile: Option<&str>| {
        let mut cmd = sapfor(&dir);
        cmd.args(["run", "across_stream.fdv", "--np", "2", "--profile", "prof.txt"]);
        if let Some(t) = tile {
            cmd.env("SAPFOR_ACROSS_TILE", t);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
        let line = prof.lines().skip_while(|l| !l.starts_with("process 0")).find(|l| l.contains("ACROSS pipeline")).unwrap_or_else(|| panic!("{prof}"));
        line.split_whitespace().skip_while(|w| *w != "count").nth(1).and_then(|c| c.parse::<u64>().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    // (37 rows: the tiles of 3 that the runtime cuts outside a stream)
    let (stream, tiled) = (steps(None), steps(Some("3")));
    assert!(stream * 2 < tiled, "pipeline steps of process 0: {stream} by default, {tiled} with tiles of 3");
}

/// A process of one thread runs each parallel loop's OpenMP region without a team (the
/// runtime's `GOMP_parallel`): outputs equal to the sequential program's with processes,
/// threads and shuffled iterations, and the profile counts every region of the fixture (one
/// for the first loop, 12 x 46 for the loop started from the nest in order, one for the
/// last; the MINLOC loop has none) as run without a team on one thread. With `--threads 2`
/// only the first and the last loop's work (3,840: iterations times assignments) pays for a
/// team (`sapfor_team`, from 2,000 by default), the loop started from the nest (38 x 9)
/// runs without one; `SAPFOR_TEAM_MIN=0` gives every region a team, `SAPFOR_OMP_TEAMS=0`
/// sends every region through libgomp.
#[test]
fn regions_of_one_thread_run_without_a_team() {
    handwritten("one_thread_regions", &[&["--np", "3"], &["--np", "2", "--threads", "2"]]);
    let dir = scratch("one_thread_regions_counts");
    std::fs::copy(root().join("runtime/tests/data/one_thread_regions.fdv"), dir.join("r.fdv")).unwrap();
    let regions = |args: &[&str], env: Option<(&str, &str)>| -> String {
        let mut cmd = sapfor(&dir);
        cmd.args(["run", "r.fdv", "--profile", "prof.txt"]).args(args);
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
        let line = prof.lines().find(|l| l.contains("OpenMP regions")).unwrap_or_else(|| panic!("{prof}"));
        line.split_whitespace().filter(|w| w.parse::<u64>().is_ok()).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(regions(&["--np", "1"], None), "554 0");
    assert_eq!(regions(&["--np", "2"], None), "554 0");
    assert_eq!(regions(&["--np", "1", "--threads", "2"], None), "552 2");
    assert_eq!(regions(&["--np", "2", "--threads", "2"], Some(("SAPFOR_TEAM_MIN", "0"))), "0 554");
    assert_eq!(regions(&["--np", "1"], Some(("SAPFOR_OMP_TEAMS", "0"))), "0 554");
}

#[test]
fn across_3d_block_block_block() {
    handwritten("across3d", &[&["--np", "8"], &["--np", "4", "--grid", "1x2x2"]]);
}

#[test]
fn shadow_widths_block_star_align_offset_remote_maxloc() {
    handwritten("shadows", &[&["--np", "3", "--check"]]);
}

/// An integer division by zero on every process (without --check): the backtrace names the
/// user's file and line (programs keep their line tables), sapfor stops every process and
/// exits non-zero (issue 15: the frames were `???`).
#[test]
fn a_division_by_zero_names_the_line() {
    let dir = scratch("divzero");
    std::fs::copy(root().join("runtime/tests/data/divzero.fdv"), dir.join("dz.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "dz.fdv", "--np", "2"]).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SIGFPE") && err.contains("dz.fdv:7"), "{}", text(&out));
}

/// `sapfor build --keep DIR` replaces only files an earlier --keep wrote: the user's own
/// heat3d.f90 beside heat3d.fdv is refused and kept (issue 15).
#[test]
fn build_keep_never_replaces_a_users_file() {
    let dir = scratch("keep");
    let src = std::fs::read(root().join("samples/heat3d/heat3d.f90")).unwrap();
    std::fs::write(dir.join("heat3d.f90"), &src).unwrap();
    let out = sapfor(&dir).args(["--auto", "heat3d.f90", "--no-db", "-o", "heat3d.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = sapfor(&dir).args(["build", "heat3d.fdv", "--keep", ".", "-o", "hx"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("refusing to write ./heat3d.f90: the file exists and sapfor did not write it"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read(dir.join("heat3d.f90")).unwrap(), src);
    // a directory of their own, twice: the second build replaces what the first wrote
    for _ in 0..2 {
        let out = sapfor(&dir).args(["build", "heat3d.fdv", "--keep", "kept", "-o", "hx"]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    assert!(dir.join("kept/heat3d.f90").is_file() && dir.join("kept/sapfor_rt.f90").is_file());
    let out = sapfor(&dir).args(["build", "heat3d.fdv", "-o", "heat3d.fdv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it is a source file of the program"), "{}", text(&out));
}

/// Parallel loops with steps other than 1 (up, down, not dividing a block) over distributed
/// dimensions, also shuffled and reversed (the order mode counts their iterations).
#[test]
fn region_loops_downwards_or_stepped_run_whole_on_the_accelerator_beside_the_host() {
    handwritten("region_steps", GPU_CONFIGS);
}

#[test]
fn stepped_parallel_loops_run_exactly_their_iterations() {
    handwritten(
        "steps",
        &[&["--np", "3"], &["--np", "3", "--threads", "2", "--order", "reverse"], &["--np", "4", "--check"]],
    );
}

/// Shadow edges wider than a block (9 elements on up to 9 processes): the edge is filled from
/// every process whose block it meets, corners included.
#[test]
fn shadow_edges_wider_than_a_block_come_from_several_processes() {
    handwritten(
        "wide_shadows",
        &[&["--np", "6", "--grid", "3x2"], &["--np", "8"], &["--np", "9", "--grid", "9x1"], &["--np", "5", "--grid", "1x5", "--threads", "2"]],
    );
}

/// Reductions of loops that run replicated along some axes of the grid count each iteration
/// once (before the fix, a sum on 4 processes was doubled).
#[test]
fn reductions_of_loops_replicated_along_an_axis_count_each_iteration_once() {
    handwritten(
        "replicated_reductions",
        &[&["--np", "6", "--grid", "3x2"], &["--np", "4", "--grid", "1x4"], &["--np", "4", "--devices", "emu"]],
    );
}

/// BARRIER and NEW (the DVM system's examples use them), and the DVM timer `dvtime()`.
#[test]
fn barrier_new_and_dvtime_of_the_dvm_examples() {
    handwritten("barrier_new", &[&["--np", "4", "--grid", "2x2"], &["--np", "3", "--threads", "2"]]);
    let dir = scratch("dvtime");
    std::fs::write(
        dir.join("t.fdv"),
        "program t\n  double precision :: dvtime, t0, t1\n  t0 = dvtime()\n  t1 = dvtime()\n  if (t1 >= t0 .and. t0 >= 0) print *, 'ok'\nend program t\n",
    )
    .unwrap();
    for np in ["1", "2"] {
        let out = sapfor(&dir).args(["run", "t.fdv", "--np", np]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok", "{}", text(&out));
    }
    // a program with a DVTIME of its own (a sequential version of a DVM example), in a file
    // named as the converter's timer file: its function, not the runtime's (the link failed
    // with "multiple definition of `dvtime_'" before)
    std::fs::write(dir.join("u.fdv"), "program u
  double precision :: dvtime
  print *, int(dvtime())
end program u
").unwrap();
    std::fs::write(dir.join("sapfor_dvm.f90"), "double precision function dvtime()
  dvtime = 42
end function dvtime
").unwrap();
    for np in ["1", "2"] {
        let out = sapfor(&dir).args(["run", "u.fdv", "sapfor_dvm.f90", "--np", np]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42", "{}", text(&out));
    }
}

#[test]
fn owner_computes_and_io_of_distributed_arrays() {
    handwritten("owner", &[&["--np", "4", "--grid", "4x1"], &["--np", "2", "--threads", "2"]]);
}

#[test]
fn checked_mode_reports_a_non_local_read_with_its_line_and_stops_all_ranks() {
    let dir = scratch("badread");
    std::fs::copy(root().join("runtime/tests/data/badread.fdv"), dir.join("badread.fdv")).unwrap();
    let t = std::time::Instant::now();
    let out = sapfor(&dir).args(["run", "badread.fdv", "--np", "2", "--check"]).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("badread.fdv") && err.contains("line 16"), "{}", text(&out));
    assert!(err.contains("all processes were stopped"), "{}", text(&out));
    assert!(t.elapsed().as_secs() < 60);
}

/// gfortran's bounds check names the user's array, never the converted program's name for it
/// (`sd_<unit>_<array>`), on one process and on several, and in the order mode.
#[test]
fn bounds_errors_name_the_users_array() {
    let dir = scratch("boundsnames");
    std::fs::copy(root().join("runtime/tests/data/boundsnames.fdv"), dir.join("b.fdv")).unwrap();
    for args in [&["--np", "1"][..], &["--np", "2"], &["--np", "2", "--order", "reverse"]] {
        let out = sapfor(&dir).args(["run", "b.fdv", "--check"]).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("of array 'flux' above upper bound"), "{args:?}: {}", text(&out));
        assert!(err.contains("At line 21 of file b.fdv"), "{args:?}: {}", text(&out));
        assert!(!err.contains("sd_") && !err.contains("sf_"), "{args:?}: {}", text(&out));
    }
}

#[test]
fn a_process_ending_early_stops_all_and_output_of_process_0_arrives() {
    let dir = scratch("abortother");
    std::fs::copy(root().join("runtime/tests/data/abortother.fdv"), dir.join("x.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "x.fdv", "--np", "2", "--check"]).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    // gfortran's bounds check ends process 1 (an exit, not a runtime error of ours): the
    // runtime stops the others instead of leaving them waiting
    assert!(err.contains("At line 22 of file x.fdv"), "{}", text(&out));
    // its backtrace names the user's file, not the build directory of the cache
    assert!(err.contains(&format!("{}/x.fdv:22", dir.display())), "{}", text(&out));
    assert!(err.contains("process 1 of 2 ended before the end of the program"), "{}", text(&out));
    assert!(err.contains("all processes were stopped"), "{}", text(&out));
    // all 200 lines, in order (process 0 may have printed B(5) too before it was stopped)
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().to_string()).collect();
    let want: Vec<String> = (1..=200).map(|i| format!("line {i}")).collect();
    assert!(lines.len() >= 200 && lines.len() <= 201 && lines[..200] == want[..], "{}", text(&out));
}

#[test]
fn unsupported_directive_is_an_error_with_file_and_line() {
    let dir = scratch("unsup");
    std::fs::copy(root().join("runtime/tests/data/unsupported.fdv"), dir.join("u.fdv")).unwrap();
    let out = sapfor(&dir).args(["build", "u.fdv", "-o", "u"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("u.fdv:3") && err.contains("directive REALIGN is not supported"), "{}", text(&out));
    assert!(!err.contains("panicked"));
    assert!(!dir.join("u").exists());
    // directives of the DVM system the runtime does not have are named by their keyword,
    // also in fixed form where the keyword runs into the next name (`ASYNCHRONOUSAS`), and a
    // REDISTRIBUTE onto what is neither a task nor an arrangement is named too
    std::fs::write(
        dir.join("k.fdv"),
        "      PROGRAM K\n      REAL A(10)\nCDVM$ ASYNCHRONOUS AS\nCDVM$ DISTRIBUTE :: A\nCDVM$ REDISTRIBUTE A(BLOCK) ONTO MB(1)\n      A(2) = 2\n      END\n      SUBROUTINE S(A)\n      REAL A(10)\nCDVM$ CONSISTENT A\n      A(1) = 1\n      END\n",
    )
    .unwrap();
    let out = sapfor(&dir).args(["build", "k.fdv", "-o", "k"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    for want in ["k.fdv:3", "directive ASYNCHRONOUS is not supported", "k.fdv:5", "REDISTRIBUTE ... ONTO MB: not a PROCESSORS arrangement or TASK array of unit K", "k.fdv:10", "directive CONSISTENT is not supported"] {
        assert!(err.contains(want), "{want}: {}", text(&out));
    }
}

/// Distributed arrays passed to procedures whose dummies are declared `INHERIT`: parallel
/// loops, shadow renewal, reductions, element reads, owner-computes writes and output of the
/// dummies, a dummy passed on, calls in a logical IF; in every configuration.
#[test]
fn inherit_dummies_take_the_distribution_of_their_actual_arguments() {
    handwritten(
        "inherit",
        &[
            &["--np", "6", "--grid", "3x2"],
            &["--np", "3", "--check"],
            &["--devices", "emu", "--np", "2"],
        ],
    );
}

/// PARALLEL loops whose ON subscript in a distributed dimension is not one of their loop
/// variables (inside a sequential loop over that dimension, a constant plane, downwards,
/// with a reduction, a shadow edge and a replicated array written): each execution runs on
/// the processes owning that index.
#[test]
fn parallel_loops_on_an_invariant_plane_run_where_it_lives() {
    handwritten(
        "on_invariant",
        &[
            &["--np", "5"],
            &["--np", "3", "--check"],
            &["--devices", "emu", "--np", "2"],
        ],
    );
}

/// Holds (`sapfor_shadow_hold`): a sweep that calls a plane loop for each K renews the edges of
/// U, which it never writes, whole once and skips the other renewals; V, which it writes, is
/// renewed every time; a sweep that a GOTO leaves holds nothing. A hold on V, or one left in
/// force by the GOTO, printed other sums at np 2 and 3.
#[test]
fn arrays_a_sweep_never_writes_have_their_edges_renewed_once() {
    handwritten(
        "held_shadows",
        &[&["--np", "3", "--threads", "2"], &["--np", "4", "--check"], &["--devices", "emu", "--np", "2"], &["--devices", "host,emu", "--np", "3"]],
    );
}

/// SHADOW_COMPUTE (NPB LU's eta fluxes in small): loops over the distributed dimension inside
/// sequential loops fill a COMMON work array one index past each block and the loops after
/// them read it at J-1 and J+1, with no merge of it. Widths one short (0:0, or 1:0) leave
/// stale neighbours in each process's copy and print other sums: the clause does take the
/// merge away, and the widths matter.
#[test]
fn shadow_compute_loops_fill_work_arrays_past_the_block_without_a_merge() {
    handwritten(
        "shadow_compute",
        &[&["--np", "3", "--threads", "2"], &["--np", "4", "--check"], &["--np", "5"], &["--devices", "emu", "--np", "2"]],
    );
    let dir = scratch("shadow_compute-short");
    let src = std::fs::read_to_string(root().join("runtime/tests/data/shadow_compute.fdv")).unwrap();
    let want = {
        std::fs::write(dir.join("s.fdv"), &src).unwrap();
        sequential(&dir, &dir.join("s.fdv"), true)
    };
    for short in ["U(0:0, 0:0, 0:0)", "U(0:0, 1:0, 0:0)"] {
        let bad = src.replace("SHADOW_COMPUTE(U(0:0, 1:1, 0:0))", &format!("SHADOW_COMPUTE({short})"));
        assert_ne!(bad, src);
        std::fs::write(dir.join("b.fdv"), &bad).unwrap();
        let out = sapfor(&dir).args(["run", "b.fdv", "--np", "2"]).output().unwrap();
        assert!(out.status.success(), "{short}: {}", text(&out));
        assert!(!same_output(&String::from_utf8_lossy(&out.stdout), &want), "{short}: the sequential output with widths one short");
    }
    // misuse is named with file and line
    let bad = src.replace("SHADOW_COMPUTE(U(0:0, 1:1, 0:0))", "SHADOW_COMPUTE(R(0:0, 1:1, 0:0))");
    std::fs::write(dir.join("m.fdv"), &bad).unwrap();
    let out = sapfor(&dir).args(["build", "m.fdv", "-o", "m"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("m.fdv:30") && text(&out).contains("name the ON array U"), "{}", text(&out));
}

/// Work arrays of a COMMON block private to a distributed loop (NPB BT's x_solve): set whole
/// by a call, 5x5 blocks passed to calls, an element read that no iteration writes (each copy,
/// a thread's too, starts with the values from before the loop; with OpenMP `private` this
/// printed other numbers), a replicated array written in the loop and merged.
#[test]
fn private_work_arrays_start_with_the_values_from_before_the_loop() {
    handwritten(
        "private_work_blocks",
        &[&["--np", "3", "--threads", "2"], &["--np", "4", "--check"], &["--devices", "emu", "--np", "2"]],
    );
}

/// What INHERIT cannot take is refused with the file and line: a dummy declared with another
/// shape (at run time, by the entry check), a non-distributed actual, a call inside a
/// parallel loop, a distributed element passed to a procedure.
#[test]
fn inherit_misuse_is_named_with_file_and_line() {
    let dir = scratch("inherit-bad");
    let head = "      PROGRAM P\n      DOUBLE PRECISION A(20), C(20)\nCDVM$ DISTRIBUTE A(BLOCK)\n";
    let sub = "      SUBROUTINE F(X, M)\n      INTEGER M\n      DOUBLE PRECISION X(M)\nCDVM$ INHERIT X\nCDVM$ PARALLEL (I) ON X(I)\n      DO 10 I = 1, M\n   10 X(I) = I\n      END\n";
    let cases: &[(&str, &str, &[&str])] = &[
        // another shape: found when F starts (the caller's file:line is not known there)
        ("shape", "      CALL F(A, 10)\n      PRINT *, A(3)\n      END\n", &["b.fdv:10", "INHERIT dummy argument X is declared 1:10 in dimension 1, its distributed actual argument is 1:20"]),
        ("notdist", "      CALL F(A, 20)\n      CALL F(C, 20)\n      END\n", &["b.fdv:5", "C is passed to the INHERIT dummy argument X of F, but it is not a distributed array"]),
        (
            "inloop",
            "CDVM$ PARALLEL (I) ON A(I)\n      DO 5 I = 1, 20\n      A(I) = 1\n    5 CALL F(A, 20)\n      END\n",
            &["b.fdv:7", "F has INHERIT dummy arguments: it cannot be called inside a parallel loop"],
        ),
        ("element", "      CALL F(A, 20)\n      CALL G(A(2))\n      END\n", &["b.fdv:5", "passing distributed array A (or its elements) to G is not supported"]),
    ];
    for (tag, body, want) in cases {
        let src = format!("{head}{body}{sub}      SUBROUTINE G(Y)\n      DOUBLE PRECISION Y\n      Y = 0\n      END\n");
        std::fs::write(dir.join("b.fdv"), &src).unwrap();
        let out = sapfor(&dir).args(["run", "b.fdv", "--np", "2"]).output().unwrap();
        let t = text(&out);
        assert!(!out.status.success(), "{tag}: {t}");
        assert!(!t.contains("panicked"), "{tag}: {t}");
        for w in *want {
            assert!(t.contains(w), "{tag}: wanted `{w}` in {t}");
        }
    }
}

#[test]
fn build_writes_an_executable_that_mpirun_launches_and_profile_reports() {
    let dir = scratch("build");
    std::fs::copy(root().join("runtime/tests/data/across1d.fdv"), dir.join("a.fdv")).unwrap();
    let out = sapfor(&dir).args(["build", "a.fdv", "-o", "a.out", "--fflags", "-O1"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let want = sequential(&dir, &dir.join("a.fdv"), false);
    // any mpirun, 1 or 2 processes; SAPFOR_NO_MPI (what `sapfor run --np 1` sets) passed on
    // by mpirun must not make the processes run alone (each would print everything)
    for (np, no_mpi) in [("1", false), ("2", false), ("2", true)] {
        let mut c = Command::new("mpirun");
        c.current_dir(&dir)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .args(["--bind-to", "none", "-np", np]);
        if no_mpi {
            c.env("SAPFOR_NO_MPI", "1").args(["-x", "SAPFOR_NO_MPI"]);
        }
        let run = c.arg("./a.out").output().unwrap();
        assert!(run.status.success(), "np {np}: {}", text(&run));
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            want,
            "np {np}, SAPFOR_NO_MPI {no_mpi}"
        );
    }
    // started without mpirun: a singleton MPI process
    let run = Command::new("./a.out").current_dir(&dir).output().unwrap();
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
    // refuses to overwrite its input
    let out = sapfor(&dir).args(["build", "a.fdv", "-o", "a.fdv"]).output().unwrap();
    assert!(!out.status.success());
    // --profile: times of the loops, shadow renewals, reductions, remote accesses, I/O
    let out = sapfor(&dir).args(["run", "a.fdv", "--np", "2", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    for w in ["process 0 of 2", "process 1 of 2", "parallel loop at a.fdv:", "ACROSS pipeline", "reductions", "remote accesses", "I/O gathers"] {
        assert!(prof.contains(w), "profile lacks {w}:\n{prof}");
    }
    // ... and one machine-readable summary line on stderr (what the GUI's Run page reads)
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find_map(|l| l.strip_prefix("SAPFOR-PROFILE ")).unwrap_or_else(|| panic!("no summary line:\n{err}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert!(v["wall_seconds"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["loops"].as_array().unwrap().iter().any(|l| l["file"] == "a.fdv"), "{v}");
}

#[test]
fn np_1_runs_the_program_itself_without_mpirun_or_mpi() {
    // an `mpirun` that only fails: `--np 1` must not start it (and `--np 2` does)
    let dir = scratch("nompi");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("mpirun");
    std::fs::write(&fake, "#!/bin/sh\necho fake mpirun started >&2\nexit 97\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::fs::copy(
        root().join("runtime/tests/data/owner.fdv"),
        dir.join("o.fdv"),
    )
    .unwrap();
    let want = sequential(&dir, &dir.join("o.fdv"), false);
    for args in [
        &["--np", "1"][..],
        &["--threads", "2", "--profile", "p.txt"][..],
    ] {
        let out = sapfor(&dir)
            .env("PATH", &path)
            .args(["run", "o.fdv"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(
            same_output(&String::from_utf8_lossy(&out.stdout), &want),
            "{args:?}: {}",
            text(&out)
        );
    }
    // the runtime says in its profile that it did not start MPI
    let prof = std::fs::read_to_string(dir.join("p.txt")).unwrap();
    assert!(
        prof.contains("process 0 of 1") && prof.contains("MPI not started"),
        "{prof}"
    );
    let out = sapfor(&dir)
        .env("PATH", &path)
        .args(["run", "o.fdv", "--np", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(97), "{}", text(&out));
    // a runtime error in single-process mode still names file:line and fails
    std::fs::write(
        dir.join("bad.fdv"),
        "program bad\n  integer a(10), i, k\n!DVM$ DISTRIBUTE A(BLOCK)\n!DVM$ PARALLEL (I) ON A(I)\n  do i = 1, 10\n    a(i) = i\n  end do\n  k = 11\n  a(k) = 3\n  print *, a(1)\nend\n",
    )
    .unwrap();
    let out = sapfor(&dir)
        .env("PATH", &path)
        .args(["run", "bad.fdv", "--np", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runtime error at bad.fdv:9 (process 0 of 1)"),
        "{}",
        text(&out)
    );
    assert!(!err.contains("fake mpirun"), "{}", text(&out));
}

#[test]
fn several_files_include_and_distributed_common() {
    // main.fdv (fixed form) distributes COMMON /FIELD/ members declared in field.inc;
    // sub.fdv (free form, same INCLUDE) has parallel loops on them
    let dir = scratch("multi");
    for f in ["main.fdv", "sub.fdv", "field.inc"] {
        std::fs::copy(root().join("runtime/tests/data/multi").join(f), dir.join(f)).unwrap();
    }
    std::fs::copy(dir.join("main.fdv"), dir.join("main.f")).unwrap();
    std::fs::copy(dir.join("sub.fdv"), dir.join("sub.f90")).unwrap();
    let exe = dir.join("seq");
    let out = Command::new("gfortran")
        .current_dir(&dir)
        .args(["-w", "main.f", "sub.f90", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let want = String::from_utf8(Command::new(&exe).output().unwrap().stdout).unwrap();
    for np in ["1", "2", "4"] {
        let out = sapfor(&dir)
            .args(["run", "main.fdv", "sub.fdv", "--np", np])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "np {np}");
    }
}

#[test]
fn output_of_process_0_arrives_complete_and_in_order_with_stop() {
    handwritten("output", &[&["--np", "3", "--threads", "2"]]);
}

#[test]
fn runtime_error_names_the_line_and_stops_all_processes() {
    let dir = scratch("oor");
    std::fs::copy(root().join("runtime/tests/data/outofrange.fdv"), dir.join("o.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "o.fdv", "--np", "2"]).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sapfor: runtime error at o.fdv:21") && err.contains("outside the array bounds"),
        "{}",
        text(&out)
    );
    // what process 0 printed before the error has reached the output (it goes to mpirun in
    // batches: they are forwarded before the processes are stopped; when process 1 finds the
    // error first, mpirun stops process 0 with SIGTERM, whose handler forwards them)
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().to_string()).collect();
    let want: Vec<String> = (1..=300).map(|i| format!("line {i}")).collect();
    assert_eq!(lines, want, "{}", text(&out));
}

#[test]
fn missing_compiler_says_how_to_install() {
    let dir = scratch("notools");
    std::fs::copy(root().join("runtime/tests/data/across1d.fdv"), dir.join("a.fdv")).unwrap();
    let empty = dir.join("emptybin");
    std::fs::create_dir_all(&empty).unwrap();
    let out = sapfor(&dir).env("PATH", &empty).args(["run", "a.fdv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gfortran not found") && err.contains("apt-get install gfortran libopenmpi-dev openmpi-bin"), "{}", text(&out));
    let out = sapfor(&dir).args(["run", "a.fdv", "--np", "2", "--grid", "3x1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--grid 3x1 does not fit"), "{}", text(&out));
}

/// Outputs equal up to single-precision reordering (REAL sums reduced in another order).
fn same_output_real4(a: &str, b: &str) -> bool {
    let (ta, tb): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || (x.contains('.') && y.contains('.'))
                    && match (x.parse::<f64>(), y.parse::<f64>()) {
                        (Ok(p), Ok(q)) => (p - q).abs() <= 2e-6 * p.abs().max(q.abs()),
                        _ => false,
                    }
        })
}

/// NPB BT's x_solve shape (analyzer/test_data/block_solver_private.f) when communication is
/// free: `--auto` maps the solver's loop over J (threads) and, before this was fixed, also
/// mapped loops of the 5x5 block routines that loop calls on templates of their own: on a
/// thread of the outer loop the program stopped ("called before sapfor_init"), and in a
/// distributed variant each process summed only part of a block. Such loops run as they are
/// inside the caller's iterations: no TEMPLATE is left in those routines, and the program
/// prints the sequential result with threads, processes and both.
#[test]
fn loops_of_procedures_a_parallel_loop_calls_are_not_divided_again() {
    let dir = scratch("nested-templates");
    std::fs::copy(root().join("analyzer/test_data/block_solver_private.f"), dir.join("b.f")).unwrap();
    std::fs::write(dir.join("free.toml"), "processes = 4\ntstart_us = 0\ntbyte_us = 0\nloop_overhead_us = 0\nmemref_ns = 0\n").unwrap();
    let want = sequential(&dir, &dir.join("b.f"), true);
    let out = sapfor(&dir).args(["--auto", "b.f", "--db", "b.db", "--machine", "free.toml", "-o", "b.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = sapfor(&dir).args(["schemes", "--db", "b.db", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<i64> = v.as_array().unwrap().iter().filter_map(|s| s["id"].as_i64()).collect();
    assert!(ids.len() >= 2, "{v}");
    for id in ids {
        let name = format!("v{id}.fdv");
        let out = sapfor(&dir).args(["generate", "--db", "b.db", "--scheme", &id.to_string(), "-o", &name]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let fdv = std::fs::read_to_string(dir.join(&name)).unwrap();
        let mvs = fdv.find("SUBROUTINE MVS").expect(&fdv);
        assert!(!fdv[mvs..].contains("CDVM$"), "#{id}:\n{fdv}");
        for cfg in [&["--threads", "2"][..], &["--np", "2"], &["--np", "2", "--threads", "2"]] {
            let out = sapfor(&dir).args(["run", &name]).args(cfg).output().unwrap();
            assert!(out.status.success(), "#{id} {cfg:?}: {}", text(&out));
            assert!(same_output_real4(&String::from_utf8_lossy(&out.stdout), &want), "#{id} {cfg:?}: {}", text(&out));
        }
    }
}

#[test]
fn every_analyzer_fixture_through_auto_then_run_on_2_processes() {
    // What `--auto` writes for every analyzer fixture when communication is free (so it
    // distributes as much as it can): run on 2 processes it prints what the sequential
    // program prints (REAL sums may differ in the last digits: the reduction adds in
    // another order), or the converter refuses it with a message naming what is not
    // supported yet.
    // (prefix_sum_across.f was refused until a stepped loop stayed out of ACROSS tuples)
    const REFUSED: &[(&str, &str)] = &[];
    let dir = scratch("fixtures");
    let data = root().join("analyzer/test_data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&data).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for p in &files {
        if p.extension().is_some_and(|x| x == "inc") {
            std::fs::copy(p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(dir.join("free.toml"), "processes = 4\ntstart_us = 0\ntbyte_us = 0\nloop_overhead_us = 0\nmemref_ns = 0\n").unwrap();
    std::fs::write(
        dir.join("gpu.toml"),
        "processes = 2\ntstart_us = 0\ntbyte_us = 0\ndevice_tstart_us = 0\ndevice_tbyte_us = 0\nkernel_launch_us = 0\n",
    )
    .unwrap();
    let mut checked = 0;
    let mut with_regions = 0;
    let mut kernels_checked = 0;
    for src in files.iter().filter(|p| matches!(p.extension().and_then(|x| x.to_str()), Some("f" | "f90"))) {
        let name = src.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(src, dir.join(&name)).unwrap();
        let want = sequential(&dir, &dir.join(&name), name.ends_with(".f"));
        let fdv = format!("{name}.fdv");
        let out = sapfor(&dir).args(["--auto", &name, "--no-db", "--machine", "free.toml", "-o", &fdv]).output().unwrap();
        assert!(out.status.success(), "{name}: --auto: {}", text(&out));
        let out = sapfor(&dir).args(["run", &fdv, "--np", "2"]).output().unwrap();
        if let Some((_, why)) = REFUSED.iter().find(|(n, _)| *n == name) {
            assert_eq!(out.status.code(), Some(1), "{name}: {}", text(&out));
            assert!(String::from_utf8_lossy(&out.stderr).contains(why), "{name}: {}", text(&out));
            continue;
        }
        assert!(out.status.success(), "{name}: sapfor run: {}", text(&out));
        let got = String::from_utf8_lossy(&out.stdout);
        assert!(same_output_real4(&got, &want), "{name}: printed something else.\n--- want\n{want}\n--- got\n{got}");
        checked += 1;
        // with accelerators that cost nothing to use, --auto puts the loops into regions:
        // on the emulated accelerator, alone and sharing the loops with the host, the
        // program prints the same
        let gfdv = format!("{name}.gpu.fdv");
        let out = sapfor(&dir).args(["--auto", &name, "--no-db", "--machine", "gpu.toml", "-o", &gfdv]).output().unwrap();
        assert!(out.status.success(), "{name}: --auto: {}", text(&out));
        if std::fs::read_to_string(dir.join(&gfdv)).unwrap().contains("REGION") {
            // the kernels the converter ships compile with NVRTC and assemble with ptxas
            let conv = runtime::driver::convert_files(&runtime::driver::BuildOptions {
                files: vec![dir.join(&gfdv)],
                ..Default::default()
            })
            .unwrap_or_else(|_| panic!("{name}: the converter refused {gfdv}"));
            if !conv.kernel_source.is_empty() {
                if let Ok(lib) = sapfor_rt::device::nvrtc::get() {
                    let ptx = lib
                        .compile(&conv.kernel_source, sapfor_rt::device::nvrtc::ARCH)
                        .unwrap_or_else(|e| panic!("{name}: NVRTC: {e}\n{}", conv.kernel_source));
                    if let Some(ptxas) = sapfor_rt::device::nvrtc::find_ptxas() {
                        sapfor_rt::device::nvrtc::assemble(&ptxas, &ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
                        kernels_checked += 1;
                    }
                }
            }
            for args in [&["--devices", "emu"][..], &["--devices", "emu", "--np", "2"], &["--devices", "host,emu"], &["--devices", "emu", "--compare"]] {
                let out = sapfor(&dir).args(["run", &gfdv]).args(args).output().unwrap();
                assert!(out.status.success(), "{name} {args:?}: {}", text(&out));
                let got = String::from_utf8_lossy(&out.stdout);
                assert!(same_output_real4(&got, &want), "{name} {args:?}: printed something else.\n--- want\n{want}\n--- got\n{got}");
            }
            with_regions += 1;
        }
    }
    assert!(checked >= 30, "only {checked} fixtures ran");
    assert!(with_regions >= 30, "only {with_regions} fixtures have regions");
    if sapfor_rt::device::nvrtc::get().is_err() || sapfor_rt::device::nvrtc::find_ptxas().is_none() {
        eprintln!("SKIPPED (NVRTC/ptxas part): not installed; run scripts/setup.sh");
    } else {
        assert!(kernels_checked >= 30, "only {kernels_checked} programs' kernels were compiled");
    }
}

#[test]
fn the_program_cache_stays_under_its_limit_least_recently_used_first() {
    let dir = scratch("cache");
    let cache = dir.join("cache");
    for (name, value) in [("a.f90", 1), ("b.f90", 2)] {
        std::fs::write(dir.join(name), format!("program p\n  print *, {value}\nend program p\n")).unwrap();
    }
    // programs (the runtime library without debug information, kept beside them, is not one)
    let entries = || -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("rt-nodebug-"))
            .collect();
        v.sort();
        v
    };
    let run = |file: &str, want: &str| {
        let out = sapfor(&dir)
            .env("SAPFOR_CACHE", &cache)
            .env("SAPFOR_CACHE_MAX_MB", "0")
            .args(["run", file])
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}: {}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want, "{}", text(&out));
    };
    run("a.f90", "1");
    let first = entries();
    assert_eq!(first.len(), 1, "{first:?}");
    // the cache keeps the sources and the executable (stripped of debug information), not
    // the objects
    let exe = first[0].join("prog");
    let size = std::fs::metadata(&exe).unwrap().len();
    assert!(size < 16 << 20, "{} is {size} bytes", exe.display());
    assert!(
        std::fs::read_dir(&first[0]).unwrap().flatten().all(|e| e.path().extension().is_none_or(|x| x != "o")),
        "objects left in {}",
        first[0].display()
    );
    // a's program was last used an hour ago: building b (limit 0) removes it
    std::fs::File::open(&first[0])
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    run("b.f90", "2");
    let second = entries();
    assert_eq!(second.len(), 1, "{second:?}");
    assert_ne!(second, first);
    // b was used within the last two minutes: building a again keeps it (another run may be
    // about to start it), and a is built anew
    run("a.f90", "1");
    let third = entries();
    assert_eq!(third.len(), 2, "{third:?}");
    assert!(third.contains(&first[0]) && third.contains(&second[0]));
}

/// Issue 14's two reproducers of wrong parallel programs: a recurrence along a dimension the
/// expert does not distribute (the ACROSS clause must still name it), and a callee that
/// counts its calls in a COMMON block the caller does not declare (the loop is not parallel).
/// Through `--auto` for both targets, every configuration prints what gfortran's build prints.
#[test]
fn the_known_wrong_parallel_programs_print_the_sequential_output() {
    // the issue's size: with 2 threads the race shows
    let r1 = std::fs::read_to_string(root().join("analyzer/test_data/across_undistributed_dim.f"))
        .unwrap()
        .replace("PARAMETER (N=60)", "PARAMETER (N=400)");
    assert!(r1.contains("N=400"));
    let c10 = std::fs::read_to_string(root().join("analyzer/test_data/common_hidden_in_callee.f"))
        .unwrap();
    let dir = scratch("holes");
    for (name, src) in [("r1.f", r1.as_str()), ("c10.f", c10.as_str())] {
        std::fs::write(dir.join(name), src).unwrap();
        auto_and_compare(&dir, name, |target, prog| {
            if name == "r1.f" {
                // the J loop carries A(I,J-1) -> A(I,J): a tuple with J names it in ACROSS
                let lines: Vec<&str> = prog.lines().collect();
                let at = lines.iter().position(|l| l.contains("DO J=2,N-1")).unwrap();
                let dir_line = lines[..at]
                    .iter()
                    .rev()
                    .find(|l| l.contains("PARALLEL"))
                    .unwrap();
                assert!(
                    dir_line.contains("PARALLEL (J,I)")
                        && dir_line.contains("ACROSS(A(")
                        && dir_line.ends_with(",1:1))"),
                    "{target}: {dir_line}\n{prog}"
                );
            }
        });
    }
}

/// `name` (in `dir`) through `sapfor --auto` for both targets (`inspect` sees each parallel
/// program), then run with threads, processes, and the emulated accelerator (with
/// --compare, and shuffled): every output is the sequential program's.
fn auto_and_compare(dir: &Path, name: &str, inspect: impl Fn(&str, &str)) {
    let want = sequential(dir, &dir.join(name), name.ends_with(".f"));
    for target in ["dvmh", "dvm"] {
        let fdv = format!("{name}.{target}.fdv");
        let out = sapfor(dir)
            .args(["--auto", name, "--no-db", "--target", target, "-o", &fdv])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: --auto: {}", text(&out));
        inspect(target, &std::fs::read_to_string(dir.join(&fdv)).unwrap());
        let mut configs: Vec<&[&str]> = vec![
            &["--np", "1", "--threads", "2"],
            &["--np", "2"],
            &["--np", "4", "--threads", "2"],
        ];
        if target == "dvmh" {
            configs.extend([
                &["--devices", "emu"][..],
                &["--devices", "emu", "--compare"],
                &["--devices", "emu", "--np", "2", "--order", "shuffle=3"],
            ]);
        }
        for args in configs {
            run_and_compare(dir, &fdv, &want, &[], args);
        }
    }
}

/// The fuzzer's regression fixtures (shell-gui/tests/data/fuzz: programs it found wrong or
/// failing, reduced; each says what it caught) print the sequential output everywhere.
#[test]
fn the_fuzzer_regressions_print_the_sequential_output() {
    let data = root().join("shell-gui/tests/data/fuzz");
    let mut names: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".f") || n.ends_with(".f90"))
        .collect();
    names.sort();
    assert!(!names.is_empty());
    let dir = scratch("fuzzfix");
    for name in &names {
        std::fs::copy(data.join(name), dir.join(name)).unwrap();
        auto_and_compare(&dir, name, |_, _| {});
    }
}

/// A PARALLEL directive written by hand on a recurrence is reported each time, naming the
/// loop: by the iteration-order mode (reverse and shuffled, with processes and threads) and
/// by --compare (the emulator runs the kernel's threads shuffled).
#[test]
fn a_wrong_parallel_directive_is_named_by_the_order_mode_and_by_compare() {
    let dir = scratch("order");
    std::fs::copy(root().join("runtime/tests/data/recurrence_parallel.fdv"), dir.join("rec.fdv")).unwrap();
    let want = sequential(&dir, &dir.join("rec.fdv"), false);
    // in order, one process: the sequential result (by luck)
    run_and_compare(&dir, "rec.fdv", &want, &[], &["--np", "1"]);
    for args in [
        &["--order"][..],
        &["--order", "shuffle=3", "--np", "2"],
        &["--order", "shuffle=11", "--threads", "2"],
        &["--order", "reverse", "--np", "4"],
    ] {
        let out = sapfor(&dir).args(["run", "rec.fdv"]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("the output differs from the run in the original order"), "{args:?}: {}", text(&out));
        assert!(
            err.contains("the PARALLEL loop at rec.fdv:18 gives another result when its iterations run in another order"),
            "{args:?}: {}",
            text(&out)
        );
        // only the wrong loop is named
        assert_eq!(err.matches("the PARALLEL loop at").count(), 1, "{args:?}: {}", text(&out));
    }
    let out = sapfor(&dir).args(["run", "rec.fdv", "--devices", "emu", "--compare"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sapfor compare: region rec.fdv:16 (loop rec.fdv:18, kernel "), "{}", text(&out));
    assert!(err.contains("2 loops ran on the accelerator and on the host, 1 with differences"), "{}", text(&out));
    // the host's values are kept: the printed result is the sequential one
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    // a wrong mode is refused with a message
    let out = sapfor(&dir).args(["run", "rec.fdv", "--order", "sideways"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected none, reverse, shuffle or shuffle=SEED"), "{}", text(&out));
}

/// A program of Fortran and C files (NPB's `wtime.c`): `analyze` and `--auto` take the C file
/// with a warning that it is not analyzed, `sapfor run` compiles it with cc and links it in,
/// and the parallel program prints what gfortran's build of both files prints. The C file
/// includes a header from its own directory, named without one (`tick.c`, as `wtime.c`).
#[test]
fn mixed_fortran_and_c_programs_build_and_run() {
    let dir = scratch("mixed");
    for f in ["main.f", "tick.c", "tick.h"] {
        std::fs::copy(root().join("shell-gui/tests/data/mixed").join(f), dir.join(f)).unwrap();
    }
    let seq = Command::new("gfortran").current_dir(&dir).args(["-O2", "main.f", "tick.c", "-o", "seq"]).output().unwrap();
    assert!(seq.status.success(), "{}", text(&seq));
    let want = String::from_utf8_lossy(&Command::new(dir.join("seq")).output().unwrap().stdout).to_string();
    let out = sapfor(&dir).args(["analyze", "main.f", "tick.c", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("W0014") && text(&out).contains("tick.c is a C source"), "{}", text(&out));
    let out = sapfor(&dir).args(["--auto", "main.f", "tick.c", "--no-db", "-o", "main.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(!dir.join("tick.fdv").exists());
    for args in [&["--np", "2"][..], &["--np", "1", "--devices", "emu"]] {
        let out = sapfor(&dir).args(["run", "main.fdv", "tick.c"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(same_output(&String::from_utf8_lossy(&out.stdout), &want), "{args:?}: {}\nwant {want}", text(&out));
    }
}

/// `shell-gui/tests/data/<fixture>` in a scratch directory `tag`, through `sapfor --auto
/// --target T` for each target: the directory, what the sequential build prints, and per
/// target the generated file's name and `--auto`'s report.
fn auto_targets(tag: &str, fixture: &str, targets: &[&str]) -> (Scratch, String, Vec<(String, String)>) {
    let dir = scratch(tag);
    let ext = Path::new(fixture).extension().unwrap().to_string_lossy().to_string();
    let src = format!("p.{ext}");
    std::fs::copy(root().join("shell-gui/tests/data").join(fixture), dir.join(&src)).unwrap();
    let want = sequential(&dir, &dir.join(&src), ext == "f");
    let mut out = vec![];
    for target in targets {
        let fdv = format!("p_{target}.fdv");
        let o = sapfor(&dir).args(["--auto", &src, "--no-db", "--target", target, "-o", &fdv]).output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        out.push((fdv, text(&o)));
    }
    (dir, want, out)
}

/// A main program with CONTAINS and big local arrays, in it and in a subroutine (NPB's
/// shape): the runtime ends before CONTAINS, and the arrays do not overflow the stack
/// (-fopenmp puts local arrays there; the sequential build does not).
#[test]
fn main_programs_with_contains_and_big_local_arrays_run() {
    let (dir, want, gen) = auto_targets("contains", "contains_big_locals.f90", &["dvmh", "dvm"]);
    for (fdv, _) in &gen {
        for args in [&["--np", "1"][..], &["--np", "2"], &["--devices", "emu"]] {
            run_and_compare(&dir, fdv, &want, &[], args);
        }
    }
}

/// ALLOCATE and DEALLOCATE with STAT=, ERRMSG= and SOURCE= (every PolyBench/Fortran program
/// allocates its arrays `allocate(A(N,N), STAT=I)`): `--auto` took `STAT` for an undeclared
/// variable and refused the program; now the statement sets the STAT variable and reads
/// SOURCE=, and the program runs as the sequential one does.
#[test]
fn allocate_with_stat_errmsg_and_source_goes_through() {
    let (dir, want, gen) = auto_targets("alloc-stat", "alloc_stat.f90", &["dvmh", "dvm"]);
    assert!(want.contains("stat after deallocate:  0"), "{want}");
    assert!(std::fs::read_to_string(dir.join(&gen[0].0)).unwrap().contains("PARALLEL"), "no parallel loop");
    // its ALLOCATEs have bounds that are not constant (N = 200 is a variable): the arrays
    // stay replicated, and the notes say why
    assert!(gen[1].1.contains("array A stays replicated: it is ALLOCATABLE") && gen[1].1.contains("constant bounds"), "{}", gen[1].1);
    for (fdv, _) in &gen {
        for args in [&["--np", "1"][..], &["--np", "2"], &["--threads", "2"], &["--devices", "emu"]] {
            run_and_compare(&dir, fdv, &want, &[], args);
        }
    }
}

/// The shape of PolyBench/Fortran: the main program allocates its arrays with constant
/// bounds (`allocate(A(N,N), STAT=I); call check_err(I)`, two statements on a line) and hands
/// them to kernels with explicit-shape dummies. `--auto` distributes them (they were
/// "ALLOCATABLE (bounds unknown here)") and every configuration prints what the sequential
/// program prints.
#[test]
fn allocatable_arrays_of_the_main_program_are_distributed_by_auto() {
    let (dir, want, gen) = auto_targets("alloc-kernel", "alloc_kernel.f90", &["dvm", "dvmh"]);
    for (fdv, report) in &gen {
        let text = std::fs::read_to_string(dir.join(fdv)).unwrap();
        assert!(text.contains("!DVM$ DISTRIBUTE A(*,BLOCK)") && text.contains("!DVM$ INHERIT A"), "{fdv}: {report}\n{text}");
        let mut configs: Vec<&[&str]> = vec![&["--np", "1"], &["--np", "2"], &["--np", "3"], &["--np", "2", "--threads", "2"]];
        if fdv.contains("dvmh") {
            configs.push(&["--devices", "emu", "--np", "2"]);
        }
        for args in configs {
            run_and_compare(&dir, fdv, &want, &[], args);
        }
    }
}

/// Distributed ALLOCATABLE arrays of the main program (allocated once, with constant bounds,
/// among a replicated one, with STAT=), given to a procedure (INHERIT) and used by a procedure
/// the program contains (a parallel loop over the host's array and an element read).
#[test]
fn distributed_allocatable_arrays_run_everywhere() {
    handwritten("allocatable", &[&["--np", "3"], &["--np", "4", "--threads", "2"], &["--devices", "emu", "--np", "2"]]);
}

/// Statements sharing a line (`X = A(5); Y = X + A(N-2); K = 3`) that read and write
/// distributed elements: each is rewritten alone and keeps its place (the rewrite of one
/// replaced the whole line: A(3) and A(N) were never written), free and fixed form.
#[test]
fn statements_separated_by_semicolons_are_rewritten_one_by_one() {
    handwritten("semicolons", &[&["--np", "3"]]);
    handwritten("semicolons_fixed", &[&["--np", "3"]]);
}

/// Sequential loops reading distributed arrays element by element: every configuration
/// prints what the sequential program prints (also after parallel loops changed the arrays,
/// and where a nest writes the array or is left by GOTO), and the runtime fetches the
/// sections a nest reads once, or boxes around the elements, instead of one message per
/// element.
#[test]
fn sequential_element_reads_go_through_read_caches() {
    handwritten("readcache", &[&["--np", "3"], &["--np", "4", "--threads", "2"]]);
    let dir = scratch("readcache-profile");
    std::fs::copy(root().join("runtime/tests/data/readcache.fdv"), dir.join("readcache.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "readcache.fdv", "--np", "2", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    let count = |what: &str| profile_count(&prof, what);
    // About 33,000 element reads. The nests whose sections are known before them read a
    // fetched copy (per round: A's rows, U's sparse and full reads, B transposed: 8 fetches);
    // the 48 reads of the output statements go through the caches (4 messages); the 5,880 of
    // the nest that writes A and the few of the nest left by GOTO go one by one.
    let (remote, cached) = (count("remote accesses"), count("remote reads from the cache"));
    assert_eq!(count("section fetches"), 8, "{prof}");
    assert!((40..=48).contains(&cached), "{prof}");
    assert!(remote < 6_500, "{prof}");
    // the summary lists the reads by statement: they add up to the totals, the statement
    // costing most messages first
    let rows: Vec<(u64, u64)> = prof
        .lines()
        .skip_while(|l| !l.contains("element-wise reads of distributed arrays outside parallel loops"))
        .skip(1)
        .take_while(|l| l.starts_with("    ") && l.contains("readcache.fdv:"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[1].parse().unwrap(), w[2].parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 2, "{prof}");
    assert_eq!(rows.iter().map(|r| r.0).sum::<u64>(), remote + cached, "{prof}");
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), remote, "{prof}");
    assert!(rows.windows(2).all(|w| w[0].1 >= w[1].1), "{prof}");
}

/// Sequential nests that read distributed arrays read a copy of their sections fetched before
/// the nest: every configuration prints what the sequential program prints (fresh values
/// after parallel loops, descending and strided loops, offsets, bounds from array elements, a
/// (BLOCK,BLOCK) array read transposed; nests whose sections are not known before them read
/// element by element; an update reading only its own element runs on the owner alone), and
/// replicated arrays of 1-, 2- and 4-byte elements written in distributed loops merge
/// correctly where blocks end inside a word.
#[test]
fn sequential_nests_read_sections_fetched_once() {
    handwritten(
        "fetch_sections",
        &[&["--np", "3"], &["--np", "4", "--threads", "2"], &["--np", "4", "--grid", "2x2"], &["--np", "3", "--check"], &["--devices", "emu", "--np", "2"]],
    );
    let dir = scratch("fetch-profile");
    std::fs::copy(root().join("runtime/tests/data/fetch_sections.fdv"), dir.join("f.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "f.fdv", "--np", "2", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    let line = prof.lines().find(|l| l.trim_start().starts_with("section fetches")).unwrap_or_else(|| panic!("{prof}"));
    // per round: two sections for the offsets nest, three for the descending one (A(I,J),
    // A(I,KK), A(I+1,J)), one for B read transposed; the triangular, shrinking and labelled
    // nests fetch nothing; after the rounds, the checksum of the updated A (the updates
    // themselves write A: no fetch)
    assert!(line.split_whitespace().collect::<Vec<_>>().windows(2).any(|w| w == ["count", "19"]), "{prof}");
    // their element reads are the ones left: the triangle (820), the shrinking nest (80) and
    // the restarted one (90) per round; then the update reading a neighbour (2 x 29 x 40) and
    // the one calling a function (29 x 13). The update that reads only its own element (line
    // 113) reads nothing element-wise: its owner evaluates it
    assert!(!prof.contains("f.fdv:113 "), "{prof}");
    let reads: u64 = prof
        .lines()
        .skip_while(|l| !l.contains("element-wise reads of distributed arrays outside parallel loops"))
        .skip(1)
        .take_while(|l| l.starts_with("    ") && l.contains("f.fdv:"))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(reads, 3 * (820 + 80 + 90) + 2 * 29 * 40 + 29 * 13, "{prof}");
}

/// TEMPLATE (NPB EP's shape): a batch loop over no distributed array, mapped on a template,
/// with a private work array in COMMON written through a call, an array reduction and sums;
/// an array aligned with the template; a 2-D template carrying a stencil's arrays aligned
/// with an offset (the shadow read two planes away). Checked mode names any read outside the
/// block and its shadow.
#[test]
fn loops_mapped_on_templates_divide_their_iterations() {
    handwritten(
        "templates",
        &[&["--np", "3"], &["--np", "3", "--check"], &["--np", "4", "--threads", "2"], &["--devices", "emu", "--np", "2"]],
    );
    // a loop running past its template would leave iterations to no process: the program
    // stops naming the loop instead
    let dir = scratch("template-range");
    std::fs::write(
        dir.join("r.fdv"),
        "program r\n  integer :: k, n, s\n  !DVM$ TEMPLATE T(10)\n  !DVM$ DISTRIBUTE T(BLOCK)\n  n = 12\n  s = 0\n  !DVM$ PARALLEL (K) ON T(K), REDUCTION(SUM(S))\n  do k = 1, n\n    s = s + k\n  end do\n  print *, s\nend program\n",
    )
    .unwrap();
    let out = sapfor(&dir).args(["run", "r.fdv", "--np", "2"]).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("r.fdv:8") && err.contains("indices 1:12") && err.contains("outside the template's 1:10"), "{}", text(&out));
}

#[test]
fn a_built_program_runs_one_thread_per_process_unless_told_otherwise() {
    // `mpirun -np N ./prog` on an N-core node must not start N x N OpenMP threads: without
    // OMP_NUM_THREADS each process has one; with it, or with sapfor run --threads, as many as
    // asked.
    let dir = scratch("threads");
    std::fs::copy(root().join("runtime/tests/data/threads.fdv"), dir.join("t.fdv")).unwrap();
    let out = sapfor(&dir).args(["build", "t.fdv", "-o", "t"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let run = |threads: Option<&str>| {
        let mut c = Command::new(dir.join("t"));
        c.current_dir(&dir).env("SAPFOR_NO_MPI", "1").env_remove("OMP_NUM_THREADS");
        if let Some(t) = threads {
            c.env("OMP_NUM_THREADS", t);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert!(run(None).starts_with("threads 1 "), "{}", run(None));
    assert!(run(Some("3")).starts_with("threads 3 "), "{}", run(Some("3")));
    let out = sapfor(&dir).args(["run", "t.fdv", "--threads", "2"]).env_remove("OMP_NUM_THREADS").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ").starts_with("threads 2 "), "{}", text(&out));
}

#[test]
fn calibrate_measures_this_machine_into_a_description_the_experts_read() {
    let dir = scratch("calibrate");
    let out = sapfor(&dir).args(["calibrate", "-o", "m.toml", "--quick"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let m = experts::machine::MachineModel::from_toml(&std::fs::read_to_string(dir.join("m.toml")).unwrap()).unwrap();
    for (k, v) in [("tstart_us", m.tstart_us), ("tbyte_us", m.tbyte_us), ("flop_ns", m.flop_ns), ("memref_ns", m.memref_ns)] {
        assert!(v.is_finite() && v > 0.0, "{k} = {v}");
    }
    // measured on one machine: the same figures inside and between nodes, all cores one node
    assert_eq!(m.tstart_us, m.tstart_intra_us);
    assert_eq!(m.processes, m.processes_per_node);
    // starting several processes takes time (one starts without mpirun)
    assert_eq!(m.startup_s > 0.0, m.processes > 1, "startup_s = {}", m.startup_s);
    // a parallel loop's start measured with the runtime (a program sapfor built), on one
    // thread cheaper than the fork and join of two (or the default's 20 us on one core)
    let said = String::from_utf8_lossy(&out.stdout);
    let toml = std::fs::read_to_string(dir.join("m.toml")).unwrap();
    assert!(said.contains("a parallel loop's start") && !toml.contains("could not be built"), "{}\n{toml}", text(&out));
    assert!(m.loop_overhead_us > 0.0 && m.loop_overhead_us < m.thread_start_us, "{toml}");
    // not replaced without --force
    let out = sapfor(&dir).args(["calibrate", "-o", "m.toml", "--quick"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("use --force"), "{}", text(&out));
    // --auto estimates for it
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    let out = sapfor(&dir).args(["--auto", "jac.f", "--machine", "m.toml", "--no-db", "-o", "jac.fdv"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("estimated for {} processes", m.processes)), "{said}");
}

/// `sapfor run --profile` on a program `--auto` wrote puts the scheme's estimate of each
/// parallel loop (by the user's source line) next to the measured time, in the report and on
/// standard error; a program changed since it was written gets no estimates.
#[test]
fn a_profile_of_a_generated_program_shows_the_estimates_of_its_scheme() {
    let dir = scratch("profile-estimates");
    std::fs::copy(root().join("samples/jacobi/jac.f"), dir.join("jac.f")).unwrap();
    std::fs::write(dir.join("m.toml"), "processes = 2\ngpus_per_node = 0\n").unwrap();
    let out = sapfor(&dir).args(["--auto", "jac.f", "-o", "j.fdv", "--machine", "m.toml"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = sapfor(&dir).args(["run", "j.fdv", "--np", "2", "--profile", "p.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let at = err.find("estimated against measured (scheme #").unwrap_or_else(|| panic!("{err}"));
    let table = &err[at..err[at..].find("SAPFOR-PROFILE").map_or(err.len(), |e| at + e)];
    assert!(table.contains("estimated for 2 processes):"), "{table}");
    let report = std::fs::read_to_string(dir.join("p.txt")).unwrap();
    // the sweep's loops, by their lines in jac.f, run as one (the copy, then the stencil):
    // one row with the sum of their estimates, a measured time and their ratio
    let row = table.lines().find(|l| l.trim_start().starts_with("jac.f:18 and 24, as one ")).unwrap_or_else(|| panic!("{table}"));
    let secs: Vec<f64> = row.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(secs.len() == 3 && secs[0] > 0.0 && secs[1] > 0.0, "{row}");
    assert!(!table.contains("jac.f:24 "), "{table}");
    assert!(report.lines().any(|l| l.contains("parallel loop at j.fdv:") && l.contains("run as one with the loop at j.fdv:")), "{report}");
    assert!(table.contains("whole program"), "{table}");
    assert!(report.ends_with(table), "{report}");
    // the program as someone changed it: not what the scheme wrote, no estimates
    let fdv = std::fs::read_to_string(dir.join("j.fdv")).unwrap();
    std::fs::write(dir.join("j.fdv"), format!("{fdv}! changed\n")).unwrap();
    let out = sapfor(&dir).args(["run", "j.fdv", "--np", "2", "--profile", "p.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("estimated against measured"), "{}", text(&out));
}

/// ACROSS in one plane of a distributed dimension (a loop over I inside a sequential loop
/// over J, every reference at J-1): the converter refused it (fuzzer seed 181013).
#[test]
fn across_in_one_plane_of_a_distributed_dimension() {
    handwritten("across_in_plane", &[&["--np", "3"], &["--devices", "emu", "--np", "2"]]);
}

#[test]
fn across_with_a_constant_subscript_in_a_dimension_that_is_not_split() {
    handwritten("across_const_subscript", &[&["--np", "3"], &["--devices", "emu", "--np", "2"]]);
}

/// The number after `label` in a profile summary line.
fn profile_figure(text: &str, label: &str) -> f64 {
    let k = text.find(label).unwrap_or_else(|| panic!("{label} not in the profile:\n{text}"));
    text[k + label.len()..].trim_start().split([' ', '%']).next().unwrap().parse().unwrap()
}

#[test]
fn profile_summary_splits_lost_time_like_the_dvm_performance_analyzer() {
    // all the work of the parallel loop is in process 1's half: process 0 waits for it
    let dir = scratch("profile-summary");
    std::fs::copy(root().join("runtime/tests/data/imbalance.fdv"), dir.join("imbalance.fdv")).unwrap();
    let out = sapfor(&dir).args(["run", "imbalance.fdv", "--np", "2", "--profile", "prof.txt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let want = sequential(&dir, &dir.join("imbalance.fdv"), true);
    assert!(same_output(&String::from_utf8_lossy(&out.stdout), &want), "{}\nwant {want}", text(&out));
    let prof = std::fs::read_to_string(dir.join("prof.txt")).unwrap();
    let summary = prof.split("process 0 of 2").next().unwrap();
    let all = profile_figure(summary, "processes x execution time");
    let texec = profile_figure(summary, "execution time");
    assert!((all - 2.0 * texec).abs() < 1e-5, "{summary}");
    // the parts add up to processes x execution time
    let parts: f64 = ["productive time", "insufficient parallelism", "communication", "idle"]
        .iter()
        .map(|l| profile_figure(summary, l))
        .sum();
    assert!((parts - all).abs() < 1e-4, "{parts} against {all}:\n{summary}");
    let eff = profile_figure(summary, "parallel efficiency");
    assert!(eff > 0.0 && eff <= 100.0, "{summary}");
    // process 0 computed (almost) nothing of the loop and waited for process 1
    assert!(profile_figure(summary, "load imbalance in parallel loops (potential loss)") > 0.0, "{summary}");
    assert!(profile_figure(summary, "(synchronization") > 0.0, "{summary}");
    assert!(summary.contains("loop imbalance.fdv:10"), "{summary}");
    for w in ["per process:", "sequential parts", "idle"] {
        assert!(summary.contains(w), "{w}:\n{summary}");
    }
    // the per-process part is unchanged for tools that read it (the GUI's summary line)
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find_map(|l| l.strip_prefix("SAPFOR-PROFILE ")).unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert!((v["wall_seconds"].as_f64().unwrap() - texec).abs() < 1e-5, "{v}\n{summary}");
}

/// ELSE IF conditions reading distributed elements (a fuzzed program's variant was refused:
/// "uses distributed array D in a way the runtime does not support yet").
#[test]
fn else_if_conditions_read_distributed_elements() {
    handwritten("elseif_remote", &[&["--np", "3"]]);
}

/// Each iteration of a parallel loop calls a function whose local work array takes 6 MB of
/// the thread's stack (-fopenmp puts every local array there). `sapfor run` raises the main
/// thread's stack limit, and libgomp's other threads then got 2 MB: the run ended on a signal
/// at `--threads 2` (NPB CG class A did). They get `OMP_STACKSIZE` 256M now.
#[test]
fn threads_have_room_for_big_local_arrays() {
    handwritten("big_stack", &[&["--np", "2", "--threads", "2"]]);
}

/// A parallel loop `ON C(K,2)` whose bounds read the distributed IDX: they are fetched before
/// the loop on every process (before, the bounds clipped to the owned part kept the text that
/// read IDX locally, from a shadow edge nobody renewed: the fuzzer's `rows` piece printed
/// another checksum at `--np 2`).
#[test]
fn parallel_loop_bounds_read_distributed_elements_from_their_owners() {
    handwritten("bounds_from_distributed", &[&["--np", "3"]]);
}

/// An ACROSS loop ON C(I,J+1,K+1) that reads C(I+1,J,K+1): one behind in the pipelined J and
/// one ahead in I, counted from the ON subscripts. It may not run in tiles of I (before, the
/// tiling check compared the raw offsets and tiled it: the fuzzer's seed 111013 printed
/// another checksum at `--np 2`, and this fixture `c 177556` instead of `c 839222`).
#[test]
fn a_sweep_that_reads_ahead_in_the_tiled_dimension_is_not_tiled() {
    handwritten("across_ahead_in_tile", &[&["--np", "3"], &["--np", "2", "--threads", "2"]]);
}

/// `ALIGN X(I) WITH A(I,N+1)`, a constant subscript in a dimension of the target that is not
/// distributed (the DVM system's Gauss example): X is divided like A's rows (before, the
/// runtime refused every constant in an ALIGN target).
#[test]
fn an_array_aligned_with_one_column_of_a_matrix_is_divided_like_its_rows() {
    handwritten("align_constant", &[&["--np", "3"], &["--np", "4", "--threads", "2"]]);
}

/// Gaussian elimination by rows (the DVM system's Gauss example): each step's loop is ON
/// A(J,*) with REMOTE_ACCESS(A(I,:)) and updates the rows J > I. The references of the
/// clause's form read the copy gathered before the loop, the others the local rows (before,
/// a loop writing its REMOTE_ACCESS array was refused; reading every reference from the copy
/// would lose the updates).
#[test]
fn a_loop_may_update_the_rows_its_remote_access_does_not_name() {
    handwritten("gauss_rows", &[&["--np", "3"], &["--np", "4"], &["--np", "2", "--threads", "2"]]);
}

/// A sequential Gaussian elimination through `sapfor --auto`: the expert divides the rows and
/// reads the pivot row through `REMOTE_ACCESS(A(I,:))` in the loop that updates the rows
/// below it (it rejected every distribution before: "reads elements of A other processes own
/// and also writes A"); every configuration prints what the sequential program prints.
#[test]
fn auto_divides_gaussian_elimination_reading_the_pivot_row_remotely() {
    let dir = scratch("gauss_elim");
    std::fs::copy(root().join("shell-gui/tests/data/gauss_elim.f"), dir.join("gauss_elim.f")).unwrap();
    let want = sequential(&dir, &dir.join("gauss_elim.f"), true);
    let out = sapfor(&dir).args(["--auto", "gauss_elim.f", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let fdv = std::fs::read_to_string(dir.join("gauss_elim.fdv")).unwrap();
    assert!(fdv.contains("CDVM$ DISTRIBUTE A(BLOCK,*)"), "{fdv}");
    assert!(fdv.contains("CDVM$ PARALLEL (J,K) ON A(J,K), REMOTE_ACCESS(A(I,:))"), "{fdv}");
    for args in CONFIGS.iter().chain(&[&["--np", "3"][..], &["--threads", "3"], &["--np", "2", "--threads", "2"]]) {
        run_and_compare(&dir, "gauss_elim.fdv", &want, &[], args);
    }
}

/// A matrix product written I, J, K through `sapfor --auto`: K, which only adds up each
/// element of C, stays inside the nest in order (it was a level of the directive with an
/// array reduction of the whole of C: `PARALLEL (I,J,K) ..., REDUCTION(SUM(C))`), and the
/// build for the host runs I innermost; every configuration prints what the sequential
/// program prints.
#[test]
fn auto_keeps_a_product_loop_inside_and_the_runtime_runs_the_rows_innermost() {
    let dir = scratch("gemm_ijk");
    std::fs::copy(root().join("shell-gui/tests/data/gemm_ijk.f"), dir.join("gemm_ijk.f")).unwrap();
    let want = sequential(&dir, &dir.join("gemm_ijk.f"), true);
    let out = sapfor(&dir).args(["--auto", "gemm_ijk.f", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let fdv = std::fs::read_to_string(dir.join("gemm_ijk.fdv")).unwrap();
    assert!(fdv.contains("CDVM$ PARALLEL (I,J) ON C(I,J), PRIVATE(K)"), "{fdv}");
    assert!(!fdv.contains("REDUCTION(SUM(C))"), "{fdv}");
    let out = sapfor(&dir).args(["build", "gemm_ijk.fdv", "--host-only", "--explain", "-o", "g"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("this nest runs its loop on I innermost, inside the loops on J, K: 3 of the 4 array references in its body index their first (contiguous) dimension by I, 1 by K"), "{}", text(&out));
    for args in CONFIGS.iter().chain(&[&["--np", "3"][..], &["--threads", "3"], &["--np", "2", "--threads", "2"]]) {
        run_and_compare(&dir, "gemm_ijk.fdv", &want, &[], args);
    }
}

/// REMOTE_ACCESS clauses fetch the section they name (a row; the whole dimension where the
/// subscript is a scalar the loop assigns), and the whole array where a reference of another
/// form reads the copy too. With the section fetched for every clause, every configuration
/// (one process too) printed another checksum.
#[test]
fn remote_access_fetches_the_section_its_clause_names() {
    handwritten("remote_rows", &[&["--np", "3"], &["--np", "4"], &["--np", "2", "--threads", "2"], &["--threads", "3"]]);
}

/// The DVM system's asynchronous groups (SHADOW_GROUP with SHADOW_START in a loop's clause and
/// as a statement, SHADOW_WAIT; REDUCTION_GROUP with a maximum and a sum combined at
/// REDUCTION_START), done where they stand: every configuration prints the sequential
/// program's values (without the renewal at SHADOW_START the iterations print others).
#[test]
fn asynchronous_shadow_and_reduction_groups_give_the_sequential_values() {
    handwritten("async_groups", &[&["--np", "4"], &["--np", "3"], &["--np", "2", "--threads", "2"]]);
}

/// Rows divided by weight (WGT_BLOCK, the DVM system's `gauswh` example's format): a stencil
/// through the shadow edges, an ACROSS sweep pipelined over blocks of unequal size, an aligned
/// array and reductions give the sequential values, also on more processes than parts (7: the
/// last block empty) and in checked mode.
#[test]
fn blocks_divided_by_weight_give_the_sequential_values() {
    handwritten("weighted_blocks", &[&["--np", "3"], &["--np", "4", "--check"], &["--np", "7"], &["--np", "2", "--threads", "2"]]);
}

/// The blocks of distributed arrays ask for transparent huge pages (`sapfor_huge_pages`): a
/// program with two 8 MiB distributed arrays reads its own `/proc/self/smaps_rollup` (process
/// 0) and prints AnonHugePages. Where the kernel gives huge pages on request (`madvise`, the
/// usual setting), at least the arrays' aligned 2 MiB pages are huge, and none with
/// `SAPFOR_HUGE_PAGES=0`; its sums equal the sequential program's either way. A kernel that
/// gives none (`never`) or gives them to all memory (`always`) cannot show the difference:
/// then only the sums are compared, and the test says so.
#[test]
fn distributed_blocks_ask_for_huge_pages() {
    let dir = scratch("huge_pages");
    std::fs::copy(root().join("runtime/tests/data/huge_pages.fdv"), dir.join("h.fdv")).unwrap();
    let seq = sequential(&dir, &dir.join("h.fdv"), true);
    let sums = |out: &str| out.lines().filter(|l| l.starts_with("SUM")).collect::<Vec<_>>().join("\n");
    assert!(!sums(&seq).is_empty(), "{seq}");
    let huge_kb = |np: &str, env: Option<&str>| -> u64 {
        let mut cmd = sapfor(&dir);
        cmd.args(["run", "h.fdv", "--np", np]);
        if let Some(v) = env {
            cmd.env("SAPFOR_HUGE_PAGES", v);
        }
        let out = cmd.output().unwrap();
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        assert_eq!(sums(&t), sums(&seq), "{t}");
        let line = t.lines().find(|l| l.starts_with("AnonHugePages:")).unwrap_or_else(|| panic!("no AnonHugePages line:\n{t}"));
        line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let (on1, off1, on2) = (huge_kb("1", None), huge_kb("1", Some("0")), huge_kb("2", None));
    if !mode.contains("[madvise]") {
        eprintln!("transparent huge pages are `{}` here: only the sums were compared", mode.trim());
        return;
    }
    // one process: both arrays whole, 8 MiB each (with shadow columns), 3 aligned huge pages
    // each at least; two processes: process 0's halves, 1 each at least
    assert!(on1 >= 2 * 3 * 2048, "{on1} kB on huge pages");
    assert_eq!(off1, 0, "SAPFOR_HUGE_PAGES=0");
    assert!(on2 >= 2 * 2048, "{on2} kB on huge pages at np 2");
}

/// READ until END=, OPEN with ERR=, ERR= on a bad value, IOSTAT= beside END=, EOR= with
/// SIZE= (spaces around every `=`): process 0 runs each statement, every process takes its
/// branch. Before, process 0 jumped to the END= label alone and the others waited for a
/// value it never sent: the run hung after the last line of output.
#[test]
fn io_branches_are_taken_by_every_process() {
    handwritten("read_to_end", &[&["--np", "3"]]);
}

/// A READ with END= but no ERR= that meets a bad value: the sequential program stops with
/// gfortran's message; the parallel one stops every process with process 0's message and
/// the statement's file and line, and a non-zero status (before: a hang).
#[test]
fn an_io_error_without_err_stops_every_process_with_its_line() {
    let dir = scratch("io_error");
    std::fs::write(dir.join("in.txt"), "1\n2\nthree\n4\n").unwrap();
    std::fs::write(
        dir.join("e.fdv"),
        "      PROGRAM E\n      INTEGER K, V\n      K = 0\n      OPEN (9, FILE = 'in.txt', STATUS = 'OLD')\n   10 READ (9, *, END = 20) V\n      K = K + V\n      GO TO 10\n   20 PRINT *, K\n      END\n",
    )
    .unwrap();
    for np in ["1", "2"] {
        let out = sapfor(&dir).args(["run", "e.fdv", "--np", np]).output().unwrap();
        let t = text(&out);
        assert!(!out.status.success(), "--np {np}: {t}");
        assert!(t.contains("e.fdv:5") && t.contains("READ: Bad integer"), "--np {np}: {t}");
    }
}
