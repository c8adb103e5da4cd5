//! Build and run driver logic: convert, compile with gfortran, link the runtime staticlib and
//! MPI, cache the executable by content, and launch it with Open MPI's `mpirun`.

use crate::convert;
use analyzer::diag::Diagnostic;
use analyzer::program::{self, Options};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../rtlib/src/order_mode.rs"]
mod order_mode;
pub use order_mode::{parse_mode as parse_order, Mode as OrderMode};

#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub files: Vec<PathBuf>,
    pub analyzer: Options,
    /// Fortran compiler flags (default `-O2`).
    pub fflags: Vec<String>,
    /// `--check`: bounds checking of every array access (local blocks included).
    pub check: bool,
    /// Keep the generated Fortran in this directory too.
    pub keep: Option<PathBuf>,
    /// Iteration-order mode: PARALLEL loops run in the order `SAPFOR_ORDER` says at run time.
    pub order: bool,
    /// For the host only: the program's regions are left out (`convert::strip_regions`).
    pub host_only: bool,
}

#[derive(Debug)]
pub enum BuildError {
    /// Problems in the input, with file:line.
    Diagnostics(Vec<Diagnostic>),
    /// Anything else (missing tools, compiler errors).
    Other(String),
}

impl From<String> for BuildError {
    fn from(s: String) -> Self {
        BuildError::Other(s)
    }
}

pub fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

pub const INSTALL_HINT: &str =
    "install them with: apt-get install gfortran libopenmpi-dev openmpi-bin (or run scripts/setup.sh)";

/// The runtime staticlib: `$SAPFOR_RT`, or `libsapfor_rt.a` next to the running executable
/// (or one directory up, for test binaries in `target/*/deps`).
pub fn runtime_lib() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("SAPFOR_RT") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        return Err(format!("SAPFOR_RT={} is not a file", p.display()));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut tried = vec![];
    let mut dir = exe.parent().map(|d| d.to_path_buf());
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let c = d.join("libsapfor_rt.a");
        if c.is_file() {
            return Ok(c);
        }
        tried.push(c);
        dir = d.parent().map(|x| x.to_path_buf());
    }
    Err(format!(
        "the sapfor runtime library is missing (looked for {}); build it with `cargo build -p sapfor-rt` \
         (add --release for a release sapfor) or point SAPFOR_RT at libsapfor_rt.a",
        tried
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Linker flags for MPI from the wrapper compiler.
fn mpi_link_flags() -> Vec<String> {
    for args in [&["-showme:link"][..], &["-link_info"][..], &["-show"][..]] {
        if let Ok(o) = Command::new("mpicc").args(args).output() {
            if o.status.success() {
                let s = String::from_utf8_lossy(&o.stdout).to_string();
                let v: Vec<String> = s
                    .split_whitespace()
                    .filter(|w| w.starts_with("-L") || w.starts_with("-l") || w.starts_with("-Wl"))
                    .map(|w| w.to_string())
                    .collect();
                if v.iter().any(|w| w.starts_with("-lmpi")) {
                    return v;
                }
            }
        }
    }
    vec!["-lmpi".into()]
}

fn cache_root() -> PathBuf {
    if let Some(p) = std::env::var_os("SAPFOR_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("sapfor");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache").join("sapfor");
    }
    std::env::temp_dir().join("sapfor-cache")
}

/// Convert only: the generated files (for `--keep` and tests).
pub fn convert_files(opts: &BuildOptions) -> Result<convert::Converted, BuildError> {
    let mut prog = program::load(&opts.files, &opts.analyzer);
    let stripped = opts.host_only && convert::strip_regions(&mut prog);
    convert::convert_with(&prog, opts.order, stripped).map_err(BuildError::Diagnostics)
}

/// The runtime library without its debug information (made once per runtime build, beside
/// the cache's programs), or None when `strip` is not there.
fn stripped_runtime(rt: &Path) -> Option<PathBuf> {
    let m = std::fs::metadata(rt).ok()?;
    let stamp = format!(
        "{}-{}",
        m.len(),
        m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos()
    );
    let out = cache_root().join(format!("rt-nodebug-{stamp}.a"));
    if out.is_file() {
        return Some(out);
    }
    std::fs::create_dir_all(cache_root()).ok()?;
    let tmp = cache_root().join(format!("rt-nodebug-{stamp}.a.tmp{}", std::process::id()));
    let ok = Command::new("strip")
        .arg("--strip-debug")
        .arg(rt)
        .arg("-o")
        .arg(&tmp)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok || std::fs::rename(&tmp, &out).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    // the copies of earlier runtime builds are not needed any more
    for e in std::fs::read_dir(cache_root()).into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("rt-nodebug-") && n.ends_with(".a") && e.path() != out {
            let _ = std::fs::remove_file(e.path());
        }
    }
    Some(out)
}

/// A file `--keep` wrote: the runtime's modules and kernels say so on their first line, a
/// converted source starts with the line marker of the Fortran-DVMH file it came from.
fn written_by_sapfor(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 64];
    let n = std::fs::File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    let head = String::from_utf8_lossy(&head[..n]);
    head.starts_with("! Generated by sapfor") || head.starts_with("/* Generated by sapfor") || head.starts_with("# 1 \"")
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Run a compiler in `dir`; `hint` says how to install it, `failed` starts the message
/// (followed by the compiler's standard error) when it fails.
fn tool(mut c: Command, dir: &Path, hint: &str, failed: &str) -> Result<(), BuildError> {
    let name = c.get_program().to_string_lossy().into_owned();
    let out = c.current_dir(dir).output().map_err(|e| format!("cannot run {name}: {e}; {hint}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(BuildError::Other(format!("{failed}:\n{}", String::from_utf8_lossy(&out.stderr))))
    }
}

/// Convert and compile; returns the executable in the content-addressed cache.
pub fn build(opts: &BuildOptions) -> Result<PathBuf, BuildError> {
    build_with_warnings(opts).map(|(exe, _)| exe)
}

/// As [`build`], with the converter's warnings (e.g. a loop of a region that runs on the host).
pub fn build_with_warnings(opts: &BuildOptions) -> Result<(PathBuf, Vec<Diagnostic>), BuildError> {
    build_with_notes(opts).map(|(exe, warnings, _)| (exe, warnings))
}

/// As [`build_with_warnings`], with the converter's notes on what it did to loops beyond
/// their directives (`sapfor build --explain`).
pub fn build_with_notes(opts: &BuildOptions) -> Result<(PathBuf, Vec<Diagnostic>, Vec<Diagnostic>), BuildError> {
    let conv = convert_files(opts)?;
    let (warnings, notes) = (conv.warnings.clone(), conv.notes.clone());
    build_converted(opts, conv).map(|exe| (exe, warnings, notes))
}

/// The user's flags, plus `-fvect-cost-model=cheap` when they optimize at `-O2` (the last
/// `-O` flag) and say nothing of vectorization: the sequential program built with the same
/// `-O2` has constant loop bounds that gcc's "very cheap" model vectorizes, ours clipped
/// ones that it does not (2-D Jacobi at `--np 1`: 1.25 times the sequential time without
/// it, the same time with it). At `-O3` gcc's own model is better and is kept.
fn with_cost_model(user: &[String]) -> Vec<String> {
    let mut f = user.to_vec();
    let at_o2 = user.iter().rev().find(|x| x.starts_with("-O")).is_some_and(|x| x == "-O2");
    let says_vect = user.iter().any(|x| x.starts_with("-fvect-cost-model") || x.contains("tree-vectorize") || x.contains("tree-loop-vectorize"));
    if at_o2 && !says_vect {
        f.push("-fvect-cost-model=cheap".into());
    }
    f
}

fn build_converted(opts: &BuildOptions, conv: convert::Converted) -> Result<PathBuf, BuildError> {
    if which("gfortran").is_none() {
        return Err(BuildError::Other(format!("gfortran not found; {INSTALL_HINT}")));
    }
    if which("mpicc").is_none() && which("mpirun").is_none() {
        return Err(BuildError::Other(format!("Open MPI not found (no mpicc/mpirun); {INSTALL_HINT}")));
    }
    let rt = runtime_lib()?;
    // -O2 plus gcc's "cheap" vectorizer cost model: at plain -O2 gcc 12 vectorizes only
    // loops whose trip count is a known multiple of the vector length, which clipped
    // (run-time) loop bounds never are; the sequential program with constant bounds is
    // vectorized. See docs/runtime.md.
    // -g always: a crash (an integer division by zero, a signal) prints a backtrace with the
    // user's file and line (the converted sources carry line markers); it does not change
    // the generated code
    let mut fflags = if opts.fflags.is_empty() {
        vec!["-O2".to_string(), "-fvect-cost-model=cheap".to_string(), "-g".to_string()]
    } else {
        with_cost_model(&opts.fflags)
    };
    if opts.check {
        fflags.push("-fcheck=bounds".into());
        if !fflags.iter().any(|f| f == "-g") {
            fflags.push("-g".into());
        }
    }
    let mut h = Sha256::new();
    // bump when the way programs are compiled or linked changes
    h.update(b"sapfor-build-8\0");
    for f in &conv.files {
        h.update(f.name.as_bytes());
        h.update([0]);
        h.update(f.text.as_bytes());
        h.update([0]);
    }
    for f in &fflags {
        h.update(f.as_bytes());
        h.update([0]);
    }
    // the C sources of a mixed program, by content
    let mut c_sources = vec![];
    for c in &conv.foreign {
        let text = std::fs::read(c).map_err(|e| format!("cannot read {}: {e}", c.display()))?;
        h.update(c.file_name().unwrap_or_default().as_encoded_bytes());
        h.update([0]);
        h.update(&text);
        h.update([0]);
        // and the local headers it includes (`#include "wtime.h"`), so that editing one rebuilds
        let dir = c.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        for line in String::from_utf8_lossy(&text).lines() {
            let l = line.trim_start();
            if let Some(rest) = l.strip_prefix('#').map(str::trim_start).and_then(|r| r.strip_prefix("include")) {
                if let Some(name) = rest.trim().strip_prefix('"').and_then(|r| r.split('"').next()) {
                    h.update(name.as_bytes());
                    h.update(std::fs::read(dir.join(name)).unwrap_or_default());
                    h.update([0]);
                }
            }
        }
        c_sources.push((c.clone(), text));
    }
    // --check: the debug information names the sources relative to the current directory
    // (see the compile step), so the directory is part of what was built
    let cwd = std::env::current_dir().unwrap_or_default();
    if opts.check {
        h.update(cwd.as_os_str().as_encoded_bytes());
        h.update([0]);
    }
    if let Ok(m) = std::fs::metadata(&rt) {
        h.update(format!("{}:{:?}", m.len(), m.modified().ok()).as_bytes());
    }
    let hash: String = h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect();
    let dir = cache_root().join(&hash);
    let exe = dir.join("prog");
    if let Some(k) = &opts.keep {
        std::fs::create_dir_all(k).map_err(|e| format!("cannot create {}: {e}", k.display()))?;
        // a file there is replaced only when an earlier --keep wrote it: never the user's
        // own source of the same name, nor an input
        for f in &conv.files {
            let p = k.join(&f.name);
            if p.exists() && !written_by_sapfor(&p) {
                return Err(format!(
                    "refusing to write {}: the file exists and sapfor did not write it (--keep writes the converted sources {}; choose a directory of their own)",
                    p.display(),
                    conv.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
                )
                .into());
            }
        }
        for f in &conv.files {
            write_file(&k.join(&f.name), f.text.as_bytes())?;
        }
    }
    if exe.is_file() {
        crate::cache_trim::touch(&dir);
        return Ok(exe);
    }
    // build in a private directory and rename it into place: two builds of the same program
    // at once (two `sapfor run`s) must not share module files
    let final_dir = dir;
    let dir = cache_root().join(format!("{hash}.tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut srcs = vec![];
    for f in &conv.files {
        let p = dir.join(&f.name);
        write_file(&p, f.text.as_bytes())?;
        srcs.push(p);
    }
    // the generated names of the user's arrays, for translating run-time messages
    let names: String = conv.names.iter().map(|(g, u)| format!("{g} {u}\n")).collect();
    write_file(&dir.join(NAMES_FILE), names.as_bytes())?;
    let tmp_exe = dir.join(format!("prog.tmp{}", std::process::id()));
    // compile (preprocessing only for the line markers; -undef keeps names like `linux`
    // intact), then link separately (-undef must not reach the link step)
    let mut objs = vec![];
    for src in &srcs {
        let obj = src.with_extension("o");
        if src.extension().is_some_and(|e| e == "c") {
            // the kernels' text (convert_gpu.rs): a string constant
            let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
            let mut c = Command::new(&cc);
            c.args(["-c", "-O0"]).arg(src).arg("-o").arg(&obj);
            tool(c, &dir, "install gcc", &format!("{cc} failed on the kernels' file (kept in {})", dir.display()))?;
        } else {
            let mut c = Command::new("gfortran");
            c.args(["-c", "-cpp", "-undef", "-ffree-form", "-ffree-line-length-none", "-fopenmp"])
                .args(&fflags);
            // backtraces name the user's files (the line markers give their paths as the
            // user wrote them), not the build directory, which is renamed afterwards; only
            // --check programs depend on the directory they were built from
            if opts.check {
                c.arg(format!("-fdebug-prefix-map={}={}", dir.display(), cwd.display()));
            } else {
                c.arg(format!("-fdebug-prefix-map={}=.", dir.display()));
            }
            c.arg("-J").arg(&dir).arg(src).arg("-o").arg(&obj);
            tool(c, &dir, INSTALL_HINT, &format!("gfortran failed on the converted program (kept in {})", dir.display()))?;
        }
        objs.push(obj);
    }
    // the C sources of a mixed program (NPB's wtime.c): compiled as they are, with the
    // optimization level of the Fortran flags
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    for (k, (path, text)) in c_sources.iter().enumerate() {
        let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let src = dir.join(format!("user_{k}_{stem}.c"));
        write_file(&src, text)?;
        let obj = src.with_extension("o");
        let mut c = Command::new(&cc);
        c.arg("-c").args(fflags.iter().filter(|f| f.starts_with("-O") || *f == "-g"));
        // its own directory first (`#include "wtime.h"` next to `wtime.c`, which is compiled
        // from a copy in the build directory), also when it was named without one
        let d = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        c.arg("-I").arg(std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()));
        c.arg(&src).arg("-o").arg(&obj);
        tool(c, &dir, "install gcc", &format!("{cc} failed on {}", path.display()))?;
        objs.push(obj);
    }
    let mut c = Command::new("gfortran");
    c.arg("-fopenmp").args(&fflags);
    // drop the runtime's unused functions and (unless --check asks for a debuggable program)
    // its debug information: 3 MB instead of 39 MB per program in the cache. The program's
    // own line tables stay, so a crash's backtrace names the user's file and line.
    c.arg("-Wl,--gc-sections");
    let mut rt_link = rt.clone();
    if !opts.check {
        match stripped_runtime(&rt) {
            Some(p) => rt_link = p,
            None => {
                c.arg("-Wl,--strip-debug");
            }
        }
    }
    c.args(&objs)
        .arg(&rt_link)
        .args(mpi_link_flags())
        .args(["-lpthread", "-ldl", "-lm", "-lgcc_s", "-lutil", "-lrt"])
        .arg("-o")
        .arg(&tmp_exe);
    tool(c, &dir, INSTALL_HINT, &format!("linking the converted program failed (in {})", dir.display()))?;
    std::fs::rename(&tmp_exe, dir.join("prog")).map_err(|e| format!("cannot write {}: {e}", exe.display()))?;
    // the cache keeps the generated sources (to read) and the executable, not the objects
    for o in &objs {
        let _ = std::fs::remove_file(o);
    }
    if std::fs::rename(&dir, &final_dir).is_err() {
        // another build finished first (or an incomplete directory is in the way)
        if !exe.is_file() {
            let _ = std::fs::remove_dir_all(&final_dir);
            std::fs::rename(&dir, &final_dir).map_err(|e| format!("cannot write {}: {e}", final_dir.display()))?;
        } else {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    trim_cache(&final_dir);
    Ok(exe)
}

/// Beside a built program in the cache: one line `generated user` per renamed array.
const NAMES_FILE: &str = "names";

/// Translates the generated names of the user's arrays in the run-time messages of a program
/// built by `build` (gfortran's bounds checks name `sd_<unit>_<array>`) back to the user's
/// names. Programs built elsewhere (no names file beside them) translate nothing.
pub struct UserNames(std::collections::HashMap<String, String>);

impl UserNames {
    pub fn for_program(exe: &Path) -> UserNames {
        let text = exe.parent().map(|d| std::fs::read_to_string(d.join(NAMES_FILE)).unwrap_or_default()).unwrap_or_default();
        UserNames(
            text.lines()
                .filter_map(|l| l.split_once(' '))
                .map(|(g, u)| (g.to_string(), u.to_string()))
                .collect(),
        )
    }

    /// `text` with every identifier that is a generated name replaced by the user's.
    pub fn translate(&self, text: &str) -> String {
        if self.0.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while !rest.is_empty() {
            let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let n = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
            if n == 0 {
                let c = rest.chars().next().unwrap();
                out.push(c);
                rest = &rest[c.len_utf8()..];
                continue;
            }
            let word = &rest[..n];
            out.push_str(self.0.get(&word.to_ascii_lowercase()).map(String::as_str).unwrap_or(word));
            rest = &rest[n..];
        }
        out
    }
}

/// Default size limit of the program cache (`SAPFOR_CACHE_MAX_MB` changes it); the kernels of
/// the emulator and of CUDA (`emu/` and `ptx/`, inside it by default) have their own.
const CACHE_MAX_MB: u64 = 1024;

/// Keeps the program cache under its limit after `built` was added: least recently used
/// programs go first (a program built or run in the last two minutes stays: another `sapfor
/// run` may be about to start it).
fn trim_cache(built: &Path) {
    crate::cache_trim::after_store(&cache_root(), CACHE_MAX_MB, built, &["emu", "ptx"]);
}

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub np: usize,
    pub threads: usize,
    pub grid: Option<String>,
    pub profile: Option<PathBuf>,
    /// `--devices`: where regions run (`host`, `emu`, `cuda`); None = host.
    pub devices: Option<String>,
    /// `--compare`: absolute and relative tolerance of comparative debugging.
    pub compare: Option<(f64, f64)>,
    /// `--weights H,A`: relative speeds of the host and the accelerator (`--devices host,X`).
    pub weights: Option<String>,
}

/// Open MPI (and hwloc) settings for runs on one machine (see `mpirun_command`): ob1
/// messaging over shared memory, and no PCI device discovery by hwloc (reading the PCI
/// configuration space is slow in virtual machines: 30 ms of every start of 2 processes here;
/// the device list only matters for choosing network cards).
pub const LOCAL_MCA: [(&str, &str); 3] = [
    ("OMPI_MCA_pml", "ob1"),
    ("OMPI_MCA_btl", "self,vader"),
    ("HWLOC_COMPONENTS", "-pci,-linuxio"),
];

/// The directory under which this `sapfor` process's `mpirun`s keep their Open MPI session
/// directories: one per `sapfor` process. Open MPI 4 puts every job of a user under one
/// shared `/tmp/ompi.HOST.UID`, and one job removing it at its end while another creates it
/// fails the second one's start (`mkdir ... File exists`, seen with concurrent runs). Open
/// MPI removes its own session directories; the empty directories of `sapfor` processes that
/// have ended are removed here. Not those of running ones: a directory is empty between its
/// creation and its `mpirun`'s start, and removing it then failed that start (`mkdir
/// /tmp/sapfor-ompi/PID/ompi.vm.0: No such file or directory`, seen in CI and the fuzzer).
fn session_base() -> PathBuf {
    let root = std::env::temp_dir().join("sapfor-ompi");
    let proc_fs = Path::new("/proc/self").exists();
    if let (true, Ok(rd)) = (proc_fs, std::fs::read_dir(&root)) {
        for e in rd.flatten() {
            let pid = e.file_name().to_string_lossy().to_string();
            let ended = pid.parse::<u32>().is_ok() && !Path::new("/proc").join(&pid).exists();
            if ended {
                // only empty directories go (remove_dir refuses the others)
                let _ = std::fs::remove_dir(e.path());
            }
        }
    }
    let dir = root.join(std::process::id().to_string());
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The `mpirun` command line for an executable.
pub fn mpirun_command(exe: &Path, r: &RunOptions) -> Result<Command, String> {
    let Some(mpirun) = which("mpirun") else {
        return Err(format!("mpirun not found; {INSTALL_HINT}"));
    };
    let mut c = Command::new(mpirun);
    c.env("OMPI_MCA_orte_tmpdir_base", session_base());
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("OMP_NUM_THREADS", r.threads.max(1).to_string())
        .env("SAPFOR_GRID", r.grid.clone().unwrap_or_default())
        .env(
            "SAPFOR_PROFILE",
            r.profile
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        )
        .args(["--bind-to", "none", "-np"])
        .arg(r.np.max(1).to_string())
        .env("SAPFOR_DEVICES", r.devices.clone().unwrap_or_default())
        .env(
            "SAPFOR_COMPARE",
            r.compare.map(|(a, t)| format!("{a},{t}")).unwrap_or_default(),
        )
        .args(["-x", "OMP_NUM_THREADS", "-x", "SAPFOR_GRID", "-x", "SAPFOR_PROFILE"])
        .env("SAPFOR_WEIGHTS", r.weights.clone().unwrap_or_default())
        .args(["-x", "SAPFOR_DEVICES", "-x", "SAPFOR_COMPARE", "-x", "SAPFOR_WEIGHTS"]);
    for v in ["SAPFOR_CACHE_DIR", "SAPFOR_CXX", "SAPFOR_NVRTC", "SAPFOR_PYTHON", "SAPFOR_NO_CUDA", "SAPFOR_ACROSS_TILE", "SAPFOR_READ_CACHE", "SAPFOR_HOLDS", "SAPFOR_OMP_TEAMS", "SAPFOR_TEAM_MIN", "SAPFOR_HUGE_PAGES", "SAPFOR_ALONE", "SAPFOR_SKEW_CACHE"] {
        if std::env::var_os(v).is_some() {
            c.args(["-x", v]);
        }
    }
    // `sapfor run` starts the processes on this machine: Open MPI's ob1 messaging over shared
    // memory starts in about 0.15 s instead of 0.35 s with the default (UCX) selection, and
    // 0.12 s without hwloc's PCI discovery. Settings of the user's own are kept.
    for (k, v) in LOCAL_MCA {
        if std::env::var_os(k).is_none() {
            c.env(k, v);
        }
    }
    if let Some((k, v)) = wait_policy(r.np, r.threads, cores()).filter(|_| std::env::var_os("OMP_WAIT_POLICY").is_none()) {
        c.env(k, v).args(["-x", k]);
    }
    // every local array of a procedure is on the stack (-fopenmp implies -frecursive): `sapfor
    // run` raises the main thread's stack limit, and the other threads get THREAD_STACK
    // (libgomp's default follows that limit, 2 MB when it is unlimited: NPB CG class A at
    // `--threads 2` ended on a signal). Not over the user's own OMP_STACKSIZE.
    if r.threads > 1 && std::env::var_os("OMP_STACKSIZE").is_none() {
        c.env("OMP_STACKSIZE", THREAD_STACK).args(["-x", "OMP_STACKSIZE"]);
    }
    c.arg(exe);
    Ok(c)
}

/// The stack of each OpenMP thread but the first (`OMP_STACKSIZE`): address space, which the
/// pages a thread does not touch do not occupy.
const THREAD_STACK: &str = "256M";

/// The cores this process may run on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// OpenMP's wait policy for `np` processes of `threads` threads each on `cores` cores: when
/// they are more than the cores, threads waiting at the end of a loop sleep instead of
/// spinning (spinning, they take the cores from the other processes' threads, which they wait
/// for: NPB SP class W at `--np 2 --threads 2` on 2 cores took 176 s spinning and 1.9 s
/// passive, while another job ran beside it). None: libgomp's default (spin a while first).
fn wait_policy(np: usize, threads: usize, cores: usize) -> Option<(&'static str, &'static str)> {
    (np.max(1) * threads.max(1) > cores).then_some(("OMP_WAIT_POLICY", "PASSIVE"))
}

/// The command that runs an executable for `sapfor run`: with one process, the executable
/// itself in single-process mode (`SAPFOR_NO_MPI=1`: no `mpirun`, no MPI start-up; the
/// runtime does every communication locally), with the environment `mpirun_command` would
/// give it; otherwise `mpirun_command`.
pub fn run_command(exe: &Path, r: &RunOptions) -> Result<Command, String> {
    let m = mpirun_command(exe, r)?;
    if r.np > 1 {
        return Ok(m);
    }
    let mut c = Command::new(exe);
    for (k, v) in m.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.env("SAPFOR_NO_MPI", "1");
    Ok(c)
}

#[cfg(test)]
mod tests {

    /// A running `sapfor`'s session directory is empty until its `mpirun` starts: another
    /// `sapfor` must not remove it then (CI saw the start fail so); an ended one's goes.
    #[test]
    fn session_directories_of_running_processes_are_kept() {
        if !std::path::Path::new("/proc/self").exists() {
            return;
        }
        let root = std::env::temp_dir().join("sapfor-ompi");
        let mut live = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let mut done = std::process::Command::new("true").spawn().unwrap();
        done.wait().unwrap();
        let (l, d) = (root.join(live.id().to_string()), root.join(done.id().to_string()));
        std::fs::create_dir_all(&l).unwrap();
        std::fs::create_dir_all(&d).unwrap();
        let mine = super::session_base();
        let (kept, gone) = (l.exists(), !d.exists());
        let _ = live.kill();
        let _ = live.wait();
        let _ = std::fs::remove_dir(&l);
        assert!(mine.exists() && kept && gone, "mine {} kept {kept} gone {gone}", mine.display());
    }

    /// Threads sleep while they wait only when processes times threads exceed the cores.
    #[test]
    fn threads_wait_passively_only_beyond_the_cores() {
        use super::wait_policy;
        assert_eq!(wait_policy(2, 2, 2), Some(("OMP_WAIT_POLICY", "PASSIVE")));
        assert_eq!(wait_policy(3, 1, 2), Some(("OMP_WAIT_POLICY", "PASSIVE")));
        assert_eq!(wait_policy(1, 2, 2), None);
        assert_eq!(wait_policy(2, 1, 2), None);
        assert_eq!(wait_policy(2, 8, 16), None);
        assert_eq!(wait_policy(0, 0, 1), None);
    }

    use super::with_cost_model;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn o2_gets_the_cheap_vectorizer_cost_model_and_nothing_else_changes() {
        assert_eq!(with_cost_model(&v("-O2 -g")), v("-O2 -g -fvect-cost-model=cheap"));
        assert_eq!(with_cost_model(&v("-O3 -O2")), v("-O3 -O2 -fvect-cost-model=cheap"));
        for kept in ["-O3 -march=native", "-O2 -O3", "-O2 -fvect-cost-model=dynamic", "-O2 -fno-tree-vectorize", "-O1", "-g"] {
            assert_eq!(with_cost_model(&v(kept)), v(kept), "{kept}");
        }
    }
}
