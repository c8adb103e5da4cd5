//! `sapfor build` and `sapfor run`: compile Fortran-DVMH with the bundled runtime and run it
//! with MPI processes and OpenMP threads (logic in the `runtime` crate).

use anyhow::{bail, Result};
use runtime::driver::{self, BuildError, BuildOptions, RunOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct BuildArgs {
    /// Fortran-DVMH source files (fixed or free form, any extension).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Executable to write (default: the first file's name without extension).
    #[arg(short = 'o', value_name = "EXE")]
    pub output: Option<PathBuf>,
    /// Directory to search for INCLUDE files.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Treat all files as fixed form.
    #[arg(long, conflicts_with = "free_form")]
    pub fixed_form: bool,
    /// Treat all files as free form.
    #[arg(long)]
    pub free_form: bool,
    /// Fortran compiler flags, space-separated (default "-O2 -fvect-cost-model=cheap").
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub fflags: Option<String>,
    /// Checked mode: bounds checks on every array access (non-local reads are caught).
    #[arg(long)]
    pub check: bool,
    /// Also write the converted Fortran into this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Iteration-order mode: every PARALLEL loop runs its iterations in reverse order or in
    /// a seeded random permutation (reverse, shuffle, shuffle=SEED) inside each process;
    /// ACROSS and MAXLOC/MINLOC loops keep their order. `sapfor run` compares the output
    /// with a run in the original order and names the loop that changes it; an executable
    /// of `sapfor build --order` takes the mode from SAPFOR_ORDER.
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = "reverse")]
    pub order: Option<String>,
    /// Say what the converter did to the program's loops beyond their directives, each with
    /// its file and line: PARALLEL loops run as one, ACROSS nests in wavefront strips, time
    /// loops in blocks of steps; and why two PARALLEL loops in a row run apart, an ACROSS nest
    /// runs as written, or a DO loop around loops run as one keeps its steps in order.
    #[arg(long)]
    pub explain: bool,
    /// For the host only: the program's REGION, ACTUAL and GET_ACTUAL directives are left
    /// out, so the loops inside regions also run as one and in blocks of time steps on the
    /// host. `sapfor run` builds so unless --devices names an accelerator or --compare is on;
    /// an executable built so runs its regions on the host whatever SAPFOR_DEVICES says.
    #[arg(long)]
    pub host_only: bool,
}

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Number of MPI processes.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub np: usize,
    /// OpenMP threads per process.
    #[arg(long, default_value_t = 1, value_name = "T")]
    pub threads: usize,
    /// Process grid, e.g. 2x2 (default: chosen from the distributions).
    #[arg(long, value_name = "AxB")]
    pub grid: Option<String>,
    /// Write a performance report to this file (default sapfor-profile.txt).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "sapfor-profile.txt")]
    pub profile: Option<PathBuf>,
    /// Where regions run: host (default), emu (the emulated accelerator: the same CUDA C
    /// kernels compiled for the CPU), cuda (a GPU; without a CUDA driver: the host, with a
    /// note).
    #[arg(long, value_name = "DEVICES", value_parser = ["host", "emu", "cuda", "host,emu", "host,cuda"])]
    pub devices: Option<String>,
    /// Comparative debugging: every loop of a region runs on the accelerator and on the host
    /// from the same inputs; differing results are reported and the host's are kept.
    #[arg(long)]
    pub compare: bool,
    /// --compare: absolute tolerance for REAL and DOUBLE PRECISION values.
    #[arg(long, default_value_t = 0.0, value_name = "X", requires = "compare")]
    pub atol: f64,
    /// --compare: relative tolerance for REAL and DOUBLE PRECISION values.
    #[arg(long, default_value_t = 1e-12, value_name = "X", requires = "compare")]
    pub rtol: f64,
    /// With --devices host,X: relative speeds of the host and the accelerator; the outermost
    /// loop of every region loop is split in this proportion (default 1,1).
    #[arg(long, value_name = "H,A")]
    pub weights: Option<String>,
}

fn options(b: &BuildArgs, host_only: bool) -> Result<BuildOptions> {
    let analyzer = crate::commands::cli_options(&b.include, b.fixed_form, b.free_form, None)?;
    Ok(BuildOptions {
        files: b.files.clone(),
        analyzer,
        fflags: b
            .fflags
            .as_deref()
            .map(|s| s.split_whitespace().map(|x| x.to_string()).collect())
            .unwrap_or_default(),
        check: b.check,
        keep: b.keep.clone(),
        order: b.order.is_some(),
        host_only,
    })
}

/// `host_only`: build for the host only (`--host-only`, or `sapfor run` without an
/// accelerator).
fn do_build(b: &BuildArgs, host_only: bool) -> Result<Option<PathBuf>> {
    if let Some(m) = &b.order {
        if let Err(e) = driver::parse_order(m) {
            bail!("--order: {e}");
        }
    }
    let opts = options(b, host_only)?;
    let render = |ds: &[analyzer::diag::Diagnostic]| {
        let map = analyzer::program::load(&opts.files, &opts.analyzer).map;
        for d in ds {
            let line = d.location.as_ref().and_then(|l| {
                map.files
                    .iter()
                    .find(|f| f.display_path() == l.file)
                    .and_then(|f| f.line(l.line))
            });
            eprintln!("{}", d.render(line));
        }
    };
    match driver::build_with_notes(&opts) {
        Ok((exe, warnings, notes)) => {
            render(&warnings);
            if b.explain {
                if notes.is_empty() {
                    eprintln!("sapfor: the converter did nothing to the loops beyond their directives");
                }
                render(&notes);
            }
            Ok(Some(exe))
        }
        Err(BuildError::Diagnostics(ds)) => {
            render(&ds);
            Ok(None)
        }
        Err(BuildError::Other(m)) => bail!("{m}"),
    }
}

pub fn build(b: BuildArgs) -> Result<ExitCode> {
    let Some(exe) = do_build(&b, b.host_only)? else { return Ok(ExitCode::from(1)) };
    let out = b.output.clone().unwrap_or_else(|| {
        let stem = b.files[0].file_stem().map(|s| s.to_os_string()).unwrap_or_default();
        PathBuf::from(stem)
    });
    let mut guard = crate::outputs::Guard::new();
    for f in &b.files {
        guard.protect(f, "a source file of the program");
    }
    guard.claim(&out, None)?;
    let bytes = std::fs::read(&exe)?;
    crate::commands::write_atomically(&out, &bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755))?;
    }
    eprintln!("sapfor: wrote {} (run it with: mpirun -np N {})", out.display(), out.display());
    // regions kept on a machine without an accelerator: say what --host-only would change
    if !b.host_only && !Path::new("/dev/nvidia0").exists() {
        if let Some(f) = b.files.iter().find(|f| has_region(f, &b)) {
            eprintln!(
                "sapfor: {} has REGIONs and this machine has no accelerator (/dev/nvidia0): the executable keeps them (run on the host, or on an accelerator SAPFOR_DEVICES names); `--host-only` leaves them out, so that their loops may also run as one and in blocks of time steps, as `sapfor run` builds without --devices",
                f.display()
            );
        }
    }
    if b.order.is_some() {
        eprintln!("sapfor: its PARALLEL loops run in the order SAPFOR_ORDER says: none (default), reverse, shuffle or shuffle=SEED");
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether source file `f` has a REGION directive (the analyzer's directive scanner, the
/// form as `--fixed-form`/`--free-form` say or as the file's name and text do).
fn has_region(f: &Path, b: &BuildArgs) -> bool {
    use analyzer::source::SourceForm;
    std::fs::read_to_string(f).is_ok_and(|t| {
        let fixed = if b.fixed_form || b.free_form { b.fixed_form } else { analyzer::source::detect_form(f, &t) == SourceForm::Fixed };
        let lines: Vec<&str> = t.lines().collect();
        analyzer::directives::scan(&lines, fixed).into_iter().any(|d| d.is_ok_and(|d| matches!(d.kind, analyzer::directives::DirectiveKind::Region { .. })))
    })
}

/// The processes `sapfor run` starts inherit a stack limit raised to the hard limit: with
/// -fopenmp (which implies -frecursive) gfortran puts every local array on the stack, where
/// the sequential build keeps big ones in static storage, so a subroutine's big local array
/// must not end the run that the sequential program survives.
fn raise_stack_limit() {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct RLimit {
            cur: u64,
            max: u64,
        }
        extern "C" {
            fn getrlimit(resource: i32, rlim: *mut RLimit) -> i32;
            fn setrlimit(resource: i32, rlim: *const RLimit) -> i32;
        }
        const RLIMIT_STACK: i32 = 3;
        let mut r = RLimit { cur: 0, max: 0 };
        // SAFETY: plain system calls on a local struct of the kernel's layout (two rlim_t)
        unsafe {
            if getrlimit(RLIMIT_STACK, &mut r) == 0 && r.cur < r.max {
                r.cur = r.max;
                setrlimit(RLIMIT_STACK, &r);
            }
        }
    }
}

pub fn run(r: RunArgs) -> Result<ExitCode> {
    if r.np == 0 || r.threads == 0 {
        bail!("--np and --threads must be at least 1");
    }
    raise_stack_limit();
    // regions matter only where an accelerator runs them (or --compare checks them)
    let accelerator = r.devices.as_deref().is_some_and(|d| d != "host");
    if r.build.host_only && (accelerator || r.compare) {
        bail!("--host-only leaves the regions out: it cannot go with --devices {} or --compare", r.devices.as_deref().unwrap_or("host"));
    }
    let Some(exe) = do_build(&r.build, !accelerator && !r.compare)? else { return Ok(ExitCode::from(1)) };
    let ro = RunOptions {
        np: r.np,
        threads: r.threads,
        grid: r.grid.clone(),
        profile: r.profile.as_ref().map(|p| crate::commands::absolute(p)),
        devices: r.devices.clone(),
        compare: r.compare.then_some((r.atol, r.rtol)),
        weights: r.weights.clone(),
    };
    if let Some(w) = &r.weights {
        let ok = matches!(
            w.split(',').map(|x| x.trim().parse::<f64>().ok().filter(|v| *v >= 0.0)).collect::<Vec<_>>().as_slice(),
            [Some(h), Some(a)] if h + a > 0.0
        );
        if !ok {
            bail!("--weights {w}: expected two non-negative relative speeds, e.g. 1,3 (host, accelerator)");
        }
        if !r.devices.as_deref().is_some_and(|d| d.starts_with("host,")) {
            bail!("--weights needs --devices host,emu or host,cuda");
        }
    }
    if r.compare && r.devices.as_deref().is_none_or(|d| d == "host") {
        bail!("--compare needs an accelerator: add --devices emu (or cuda)");
    }
    if !(r.atol >= 0.0 && r.rtol >= 0.0) {
        bail!("--atol and --rtol must be non-negative numbers");
    }
    if let Some(mode) = &r.build.order {
        return run_ordered(&exe, &ro, mode);
    }
    // one process: the executable itself, without mpirun and MPI (single-process mode)
    let mut cmd = driver::run_command(&exe, &ro).map_err(|e| anyhow::anyhow!(e))?;
    // standard error passes through a relay that gives the user's array names back to
    // gfortran's run-time messages (standard output goes straight to the terminal)
    let names = driver::UserNames::for_program(&exe);
    cmd.stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    let relay = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            use std::io::{BufRead, Write};
            let mut r = std::io::BufReader::new(err);
            let mut line = vec![];
            while r.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let text = names.translate(&String::from_utf8_lossy(&line));
                let mut e = std::io::stderr().lock();
                let _ = e.write_all(text.as_bytes());
                let _ = e.flush();
                line.clear();
            }
        })
    });
    let status = child.wait().map_err(|e| anyhow::anyhow!("cannot run {}: {e}", exe.display()))?;
    if let Some(t) = relay {
        let _ = t.join();
    }
    if let Some(p) = &ro.profile {
        if status.success() {
            eprintln!("sapfor: performance report written to {}", p.display());
            if let Ok(text) = std::fs::read_to_string(p) {
                let summary = profile_summary(&text);
                // the estimates of the scheme that wrote the program, when the project
                // database holds it: appended to the report and shown
                let loops: Vec<crate::measured::Measured> = summary["loops"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| {
                        let f = Path::new(l["file"].as_str()?).file_name()?.to_string_lossy().into_owned();
                        let with = l["with"]["line"].as_u64().map(|x| x as u32);
                        Some(crate::measured::Measured { file: f, line: l["line"].as_u64()? as u32, with, seconds: l["seconds"].as_f64()? })
                    })
                    .collect();
                let wall = summary["wall_seconds"].as_f64().unwrap_or(0.0);
                if let Some(t) = crate::measured::table(&r.build.files, &loops, wall, r.np as u32) {
                    eprint!("{t}");
                    let _ = std::fs::write(p, format!("{text}{t}"));
                }
                // One machine-readable line for tools (the GUI's Run page).
                eprintln!("SAPFOR-PROFILE {summary}");
            }
        }
    }
    if !status.success() {
        eprintln!(
            "sapfor: the program failed ({}); all processes were stopped",
            status
                .code()
                .map(|c| format!("exit status {c}"))
                .unwrap_or_else(|| "killed by a signal".into())
        );
        return Ok(ExitCode::from(status.code().unwrap_or(1).clamp(1, 255) as u8));
    }
    Ok(ExitCode::SUCCESS)
}

/// One run of an executable built with --order, in `mode` for the loops `only` (all when
/// None): its exit status, standard output and standard error.
fn ordered_once(
    exe: &std::path::Path,
    ro: &RunOptions,
    mode: &str,
    only: Option<&[i64]>,
    log: Option<&std::path::Path>,
) -> Result<(std::process::ExitStatus, Vec<u8>, Vec<u8>)> {
    let mut cmd = driver::run_command(exe, ro).map_err(|e| anyhow::anyhow!(e))?;
    cmd.env("SAPFOR_ORDER", mode);
    cmd.env_remove("SAPFOR_ORDER_LOOPS");
    cmd.env_remove("SAPFOR_ORDER_LOG");
    if let Some(ids) = only {
        cmd.env("SAPFOR_ORDER_LOOPS", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    }
    if let Some(l) = log {
        cmd.env("SAPFOR_ORDER_LOG", l);
    }
    cmd.stdin(std::process::Stdio::null());
    let out = cmd
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    Ok((out.status, out.stdout, out.stderr))
}

/// `sapfor run --order MODE`: the program runs in the original order, then with its
/// PARALLEL loops in MODE (that run's output is what is printed). When the two differ, the
/// loops are narrowed down (each alone, or halves of the set) to the ones whose order
/// changes the output, and each is named: its directive is wrong.
fn run_ordered(exe: &std::path::Path, ro: &RunOptions, mode: &str) -> Result<ExitCode> {
    use std::io::Write;
    let log = tempfile_path("sapfor-order-log");
    let (s0, out0, _) = ordered_once(exe, ro, "none", None, None)?;
    let (s1, out1, err1) = ordered_once(exe, ro, mode, None, Some(&log))?;
    let _ = std::io::stdout().write_all(&out1);
    let _ = std::io::stderr().write_all(driver::UserNames::for_program(exe).translate(&String::from_utf8_lossy(&err1)).as_bytes());
    // `id FILE:LINE` per loop that changed its order (runtime/rtlib/src/order.rs)
    let names: std::collections::BTreeMap<i64, String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (id, place) = l.trim().split_once(' ')?;
            Some((id.parse().ok()?, place.to_string()))
        })
        .collect();
    let ids: Vec<i64> = names.keys().copied().collect();
    let _ = std::fs::remove_file(&log);
    if !s1.success() {
        eprintln!(
            "sapfor: the program failed with --order {mode} ({})",
            s1.code().map(|c| format!("exit status {c}")).unwrap_or_else(|| "killed by a signal".into())
        );
        return Ok(ExitCode::from(s1.code().unwrap_or(1).clamp(1, 255) as u8));
    }
    if s0.success() && out0 == out1 {
        eprintln!("sapfor: --order {mode}: {} PARALLEL loop(s) ran in another order; the output is the same as in the original order", ids.len());
        return Ok(ExitCode::SUCCESS);
    }
    // narrow the difference down to single loops, on one thread per process: with several,
    // a loop whose iterations depend on each other also races between the threads, and the
    // output of every run (the reference one too) would depend on timing
    let ro1 = RunOptions { threads: 1, ..ro.clone() };
    let (sb, base, _) = if ro.threads > 1 { ordered_once(exe, &ro1, "none", None, None)? } else { (s0, out0.clone(), vec![]) };
    let differs = |set: &[i64]| -> Result<bool> {
        let (s, o, _) = ordered_once(exe, &ro1, mode, Some(set), None)?;
        Ok(!s.success() || !sb.success() || o != base)
    };
    if ro.threads > 1 && !differs(&ids)? {
        eprintln!("sapfor: --order {mode}: the output differs from the run in the original order, but not on one thread: threads of a PARALLEL loop race (its iterations are not independent); run with --threads 1 --order {mode} to name the loop");
        return Ok(ExitCode::from(1));
    }
    let mut culprits: Vec<Vec<i64>> = vec![];
    let mut todo: Vec<Vec<i64>> = vec![ids];
    while let Some(set) = todo.pop() {
        if set.len() <= 1 {
            culprits.push(set);
            continue;
        }
        let (a, b) = set.split_at(set.len() / 2);
        let (da, db) = (differs(a)?, differs(b)?);
        if da {
            todo.push(a.to_vec());
        }
        if db {
            todo.push(b.to_vec());
        }
        if !da && !db {
            culprits.push(set); // only together
        }
    }
    let name = |id: &i64| names.get(id).cloned().unwrap_or_else(|| format!("loop id {id}"));
    eprintln!("sapfor: --order {mode}: the output differs from the run in the original order");
    for c in &culprits {
        match c.as_slice() {
            [] if ro.devices.as_deref().is_some_and(|d| d.contains("emu")) => eprintln!(
                "sapfor: --order {mode}: the difference comes from kernels on the emulated accelerator, whose threads ran in another order; `sapfor run --devices emu --compare` names the loop"
            ),
            [] => eprintln!("sapfor: --order {mode}: no single PARALLEL loop is to blame (the difference is not reproducible)"),
            [one] => eprintln!(
                "sapfor: --order {mode}: the PARALLEL loop at {} gives another result when its iterations run in another order: its iterations are not independent (a dependence its directive does not declare)",
                name(one)
            ),
            many => eprintln!(
                "sapfor: --order {mode}: the PARALLEL loops at {} give another result only when their orders change together",
                many.iter().map(name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    Ok(ExitCode::from(1))
}

fn tempfile_path(stem: &str) -> PathBuf {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("{stem}-{}-{n}", std::process::id()))
}

/// The performance report of the runtime (one block per process) summarized as JSON: the
/// longest total time, and per parallel loop and per communication kind the longest time of
/// any process (the processes wait for the slowest).
pub fn profile_summary(report: &str) -> serde_json::Value {
    use std::collections::BTreeMap;
    let mut wall = 0.0f64;
    let mut loops: BTreeMap<(String, u32), f64> = BTreeMap::new();
    // (a loop run as one with the next: the place of that loop, whose time it includes)
    let mut with: BTreeMap<(String, u32), (String, u32)> = BTreeMap::new();
    let mut comm: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    let secs = |t: &str| -> Option<f64> {
        let k = t.find("time ")?;
        t[k + 5..].split_whitespace().next()?.parse().ok()
    };
    for l in report.lines().map(str::trim) {
        if let Some(rest) = l.strip_prefix("total ") {
            if let Some(v) = rest.split_whitespace().next().and_then(|x| x.parse::<f64>().ok()) {
                wall = wall.max(v);
            }
        } else if let Some(rest) = l.strip_prefix("parallel loop at ") {
            let place = rest.split_whitespace().next().unwrap_or("");
            if let (Some((file, line)), Some(t)) = (place.rsplit_once(':'), secs(rest)) {
                if let Ok(line) = line.parse::<u32>() {
                    let e = loops.entry((file.to_string(), line)).or_default();
                    *e = e.max(t);
                    let other = rest.split("run as one with the loop at ").nth(1).and_then(|x| x.split_whitespace().next()?.rsplit_once(':'));
                    if let Some((f2, Ok(l2))) = other.map(|(f, l)| (f, l.parse::<u32>())) {
                        with.insert((file.to_string(), line), (f2.to_string(), l2));
                    }
                }
            }
        } else if let Some(k) = l.find(" count ") {
            let kind = l[..k].trim().to_string();
            let bytes = l
                .find("bytes ")
                .and_then(|b| l[b + 6..].split_whitespace().next()?.parse::<u64>().ok())
                .unwrap_or(0);
            if let Some(t) = secs(l) {
                let e = comm.entry(kind).or_default();
                e.0 = e.0.max(t);
                e.1 = e.1.max(bytes);
            }
        }
    }
    serde_json::json!({
        "wall_seconds": wall,
        "loops": loops
            .iter()
            .map(|((f, l), t)| match with.get(&(f.clone(), *l)) {
                Some((f2, l2)) => serde_json::json!({"file": f, "line": l, "seconds": t, "with": {"file": f2, "line": l2}}),
                None => serde_json::json!({"file": f, "line": l, "seconds": t}),
            })
            .collect::<Vec<_>>(),
        "communication": comm.iter().map(|(k, (t, b))| serde_json::json!({"kind": k, "seconds": t, "bytes": b})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn profile_summary_takes_the_slowest_process() {
        let r = "sapfor performance report\nprocess 0 of 2 (grid [2], coordinates [0])\n  total 1.500000 s, in parallel loops 1.000000 s, sequential parts 0.500000 s\n  parallel loop at jac.f:18               runs       20  time 0.600000 s\n  shadow renewals        count       20  time 0.100000 s  bytes 64000\nprocess 1 of 2 (grid [2], coordinates [1])\n  total 1.600000 s, in parallel loops 1.100000 s, sequential parts 0.500000 s\n  parallel loop at jac.f:18               runs       20  time 0.700000 s\n  shadow renewals        count       20  time 0.050000 s  bytes 64000\n";
        let v = super::profile_summary(r);
        assert_eq!(v["wall_seconds"], 1.6);
        assert_eq!(v["loops"][0]["file"], "jac.f");
        assert_eq!(v["loops"][0]["line"], 18);
        assert_eq!(v["loops"][0]["seconds"], 0.7);
        assert_eq!(v["communication"][0]["kind"], "shadow renewals");
        assert_eq!(v["communication"][0]["seconds"], 0.1);
        assert_eq!(v["communication"][0]["bytes"], 64000);
        assert!(v["loops"][0].get("with").is_none());
        // a loop run as one with the next names it
        let r = "process 0 of 1 (grid [1], coordinates [0])\n  total 1.000000 s, in parallel loops 0.900000 s, sequential parts 0.100000 s\n  parallel loop at heat.fdv:26              runs      200  time 0.900000 s  communication 0.000000 s  run as one with the loop at heat.fdv:34  blocks of time steps 23\n";
        let v = super::profile_summary(r);
        assert_eq!(v["loops"][0]["line"], 26);
        assert_eq!(v["loops"][0]["with"]["file"], "heat.fdv");
        assert_eq!(v["loops"][0]["with"]["line"], 34);
    }
}
