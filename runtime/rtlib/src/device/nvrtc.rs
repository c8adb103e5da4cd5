//! NVRTC (run-time compilation of CUDA C to PTX), loaded with `dlopen`.
//!
//! The library is looked for, in order: `$SAPFOR_NVRTC` (a path to `libnvrtc.so*`), the
//! dynamic loader's search path (`libnvrtc.so.12`, `.so.13`, `libnvrtc.so`), a CUDA toolkit's
//! `lib64` (`$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`), then the `nvidia-cuda-nvrtc-cu12` wheel in Python's site-packages (found by asking `python3`), so
//! nobody has to put the wheel's directory on `LD_LIBRARY_PATH`. The builtins library next
//! to it is loaded first (`RTLD_GLOBAL`) so that NVRTC finds it by name.
//! Compiled PTX is cached in memory and on disk per program (SHA-256 of source and options).

use super::{err, DevError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

type NvrtcProgram = *mut std::ffi::c_void;
type CreateFn = unsafe extern "C" fn(
    *mut NvrtcProgram,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(NvrtcProgram, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int;
type GetFn = unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut NvrtcProgram) -> c_int;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;

pub const ARCH: &str = "compute_80";

pub struct Nvrtc {
    _builtins: Option<libloading::os::unix::Library>,
    lib: libloading::Library,
    pub path: String,
}

unsafe impl Send for Nvrtc {}
unsafe impl Sync for Nvrtc {}

/// Where pip put a wheel's package directory `nvidia/<pkg>` (None if python3 or it is absent).
pub fn wheel_dir(pkg: &str) -> Option<PathBuf> {
    let code = format!("import nvidia.{pkg} as m; print(list(m.__path__)[0])");
    let py = std::env::var("SAPFOR_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(py)
        .args(["-c", &code])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    p.is_dir().then_some(p)
}

fn find_in(dir: &Path, prefix: &str) -> Option<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    v.sort();
    v.into_iter().next()
}

fn open_lib() -> Result<Nvrtc, String> {
    if let Some(p) = std::env::var_os("SAPFOR_NVRTC") {
        let lib = unsafe { libloading::Library::new(&p) }
            .map_err(|e| format!("SAPFOR_NVRTC={}: {e}", p.to_string_lossy()))?;
        return Ok(Nvrtc {
            _builtins: None,
            lib,
            path: p.to_string_lossy().into(),
        });
    }
    for name in ["libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so"] {
        if let Ok(lib) = unsafe { libloading::Library::new(name) } {
            return Ok(Nvrtc {
                _builtins: None,
                lib,
                path: name.into(),
            });
        }
    }
    // a CUDA toolkit not on the loader's path ($CUDA_HOME, /usr/local/cuda), then the wheel
    let toolkit = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain([PathBuf::from("/usr/local/cuda")])
        .flat_map(|d| [d.join("lib64"), d.join("targets/x86_64-linux/lib")])
        .find(|d| find_in(d, "libnvrtc.so").is_some());
    let dir = match toolkit {
        Some(d) => d,
        None => wheel_dir("cuda_nvrtc").map(|d| d.join("lib")).ok_or(
            "libnvrtc.so not on the library path, in $CUDA_HOME or /usr/local/cuda, and no nvidia-cuda-nvrtc-cu12 wheel found by python3 (run scripts/setup.sh)",
        )?,
    };
    let main = find_in(&dir, "libnvrtc.so")
        .ok_or_else(|| format!("no libnvrtc.so* in {}", dir.display()))?;
    let builtins = match find_in(&dir, "libnvrtc-builtins.so") {
        Some(b) => Some(
            unsafe {
                libloading::os::unix::Library::open(
                    Some(&b),
                    libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
                )
            }
            .map_err(|e| format!("{}: {e}", b.display()))?,
        ),
        None => None,
    };
    let lib = unsafe { libloading::Library::new(&main) }
        .map_err(|e| format!("{}: {e}", main.display()))?;
    Ok(Nvrtc {
        _builtins: builtins,
        lib,
        path: main.display().to_string(),
    })
}

/// The NVRTC library, loaded once per process.
pub fn get() -> Result<&'static Nvrtc, DevError> {
    static LIB: OnceLock<Result<Nvrtc, String>> = OnceLock::new();
    LIB.get_or_init(open_lib)
        .as_ref()
        .map_err(|e| DevError(e.clone()))
}

/// `ptxas` from the `nvidia-cuda-nvcc-cu12` wheel (or `$SAPFOR_PTXAS`, or on PATH).
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SAPFOR_PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Some(d) = wheel_dir("cuda_nvcc") {
        let p = d.join("bin").join("ptxas");
        if p.exists() {
            return Some(p);
        }
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("ptxas"))
            .find(|p| p.exists())
    })
}

/// Assemble PTX for `sm_80` with `ptxas` (the check that what NVRTC wrote is accepted by the
/// assembler a GPU run would use).
pub fn assemble(ptxas: &std::path::Path, ptx: &str) -> Result<(), DevError> {
    let dir = std::env::temp_dir().join(format!("sapfor-ptxas-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).map_err(|e| DevError(e.to_string()))?;
    let pf = dir.join("k.ptx");
    std::fs::write(&pf, ptx).map_err(|e| DevError(e.to_string()))?;
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_80", "-o"])
        .arg(dir.join("k.cubin"))
        .arg(&pf)
        .output()
        .map_err(|e| DevError(format!("cannot run {}: {e}", ptxas.display())));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    if out.status.success() {
        Ok(())
    } else {
        Err(DevError(format!("ptxas: {}", String::from_utf8_lossy(&out.stderr))))
    }
}

impl Nvrtc {
    pub fn version(&self) -> Result<(i32, i32), DevError> {
        let f: libloading::Symbol<VersionFn> =
            unsafe { self.lib.get(b"nvrtcVersion") }.map_err(|e| DevError(e.to_string()))?;
        let (mut a, mut b) = (0, 0);
        unsafe { f(&mut a, &mut b) };
        Ok((a, b))
    }

    /// Compile CUDA C `src` to PTX for `arch` (e.g. `compute_80`).
    pub fn compile(&self, src: &str, arch: &str) -> Result<String, DevError> {
        let sym = |n: &[u8]| -> Result<*const (), DevError> {
            unsafe { self.lib.get::<*const ()>(n) }
                .map(|s| *s)
                .map_err(|e| DevError(format!("NVRTC: {e}")))
        };
        unsafe {
            let create: CreateFn = std::mem::transmute(sym(b"nvrtcCreateProgram")?);
            let compile: CompileFn = std::mem::transmute(sym(b"nvrtcCompileProgram")?);
            let log_size: SizeFn = std::mem::transmute(sym(b"nvrtcGetProgramLogSize")?);
            let get_log: GetFn = std::mem::transmute(sym(b"nvrtcGetProgramLog")?);
            let ptx_size: SizeFn = std::mem::transmute(sym(b"nvrtcGetPTXSize")?);
            let get_ptx: GetFn = std::mem::transmute(sym(b"nvrtcGetPTX")?);
            let destroy: DestroyFn = std::mem::transmute(sym(b"nvrtcDestroyProgram")?);
            let csrc = CString::new(src).map_err(|_| DevError("NUL in kernel source".into()))?;
            let name = CString::new("sapfor_kernels.cu").unwrap();
            let mut prog: NvrtcProgram = std::ptr::null_mut();
            let rc = create(
                &mut prog,
                csrc.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if rc != 0 {
                return err(format!("nvrtcCreateProgram failed ({rc})"));
            }
            let opts: Vec<CString> = [
                format!("--gpu-architecture={arch}"),
                "--fmad=false".into(),
                "--std=c++17".into(),
            ]
            .into_iter()
            .map(|o| CString::new(o).unwrap())
            .collect();
            let optp: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
            let rc = compile(prog, optp.len() as c_int, optp.as_ptr());
            let mut n = 0usize;
            log_size(prog, &mut n);
            let mut log = vec![0u8; n.max(1)];
            get_log(prog, log.as_mut_ptr() as *mut c_char);
            let log = String::from_utf8_lossy(&log)
                .trim_end_matches('\0')
                .trim()
                .to_string();
            if rc != 0 {
                destroy(&mut prog);
                return err(format!("NVRTC compilation failed:\n{log}"));
            }
            let mut n = 0usize;
            ptx_size(prog, &mut n);
            let mut ptx = vec![0u8; n];
            get_ptx(prog, ptx.as_mut_ptr() as *mut c_char);
            destroy(&mut prog);
            Ok(String::from_utf8_lossy(&ptx)
                .trim_end_matches('\0')
                .to_string())
        }
    }
}

/// PTX of `src` for `arch`, compiled once per program (memory and disk cache).
/// Default size limit of the PTX cache (`SAPFOR_CACHE_MAX_MB` changes it).
const PTX_CACHE_MAX_MB: u64 = 64;

pub fn compile_cached(src: &str, arch: &str) -> Result<String, DevError> {
    static MEM: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let mut h = Sha256::new();
    h.update(src.as_bytes());
    h.update([0]);
    h.update(arch.as_bytes());
    let key: String = h
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mem = MEM.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(p) = mem.lock().unwrap().get(&key) {
        return Ok(p.clone());
    }
    let dir = super::emu::cache_dir().with_file_name("ptx");
    let file = dir.join(format!("{key}.ptx"));
    let ptx = match std::fs::read_to_string(&file) {
        Ok(p) => {
            crate::cache_trim::touch(&file);
            p
        }
        Err(_) => {
            let p = get()?.compile(src, arch)?;
            if std::fs::create_dir_all(&dir).is_ok() {
                // per process and thread: two threads storing the same key must not write
                // one temporary file
                let tmp = dir.join(format!("{key}.{}.{:?}.tmp", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
                if std::fs::write(&tmp, &p).is_ok() && std::fs::rename(&tmp, &file).is_ok() {
                    crate::cache_trim::after_store(&dir, PTX_CACHE_MAX_MB, &file, &[]);
                }
            }
            p
        }
    };
    mem.lock().unwrap().insert(key, ptx.clone());
    Ok(ptx)
}
