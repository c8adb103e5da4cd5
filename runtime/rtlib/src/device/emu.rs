//! The emulated accelerator: a device with its own memory (separate allocations, so a
//! missing copy gives a wrong answer) that runs the very CUDA C source NVRTC compiles, built
//! for the CPU by g++ with `runtime/cuda/sapfor_emu.h` force-included.
//!
//! For every `extern "C" __global__ void NAME(params)` of the source a launcher
//! `sapfor_emu_launch_NAME(grid, block, args)` is appended (after the unchanged kernel text);
//! it unpacks the argument array the way `cuLaunchKernel` does and runs the grid as loops.
//! Shared objects are cached by the SHA-256 of header, source and flags in
//! `$SAPFOR_CACHE_DIR/emu` (default `$XDG_CACHE_HOME/sapfor/emu`, `~/.cache/sapfor/emu`).

use super::host::{copy_box, Mem};
use super::{err, Bounds, DevError, DevPtr, Device, DeviceKind, KArg, ProgId};
use sha2::{Digest, Sha256};
use std::ffi::c_void;
use std::path::PathBuf;
use std::process::Command;

pub const EMU_HEADER: &str = include_str!("../../../cuda/sapfor_emu.h");
const CXXFLAGS: &[&str] = &[
    "-std=c++17",
    "-O2",
    "-shared",
    "-fPIC",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-w",
    "-Wl,-Bsymbolic",
];

/// Default size limit of the compiled kernels' cache (`SAPFOR_CACHE_MAX_MB` changes it).
const EMU_CACHE_MAX_MB: u64 = 256;

pub fn cache_dir() -> PathBuf {
    let base = if let Some(d) = std::env::var_os("SAPFOR_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        PathBuf::from(d).join("sapfor")
    } else if let Some(h) = std::env::var_os("HOME") {
        PathBuf::from(h).join(".cache").join("sapfor")
    } else {
        std::env::temp_dir().join("sapfor-cache")
    };
    base.join("emu")
}

/// `(name, parameter types)` of every `__global__` function of a source.
pub fn kernel_signatures(src: &str) -> Result<Vec<(String, Vec<String>)>, DevError> {
    let mut out = vec![];
    let mut rest = src;
    while let Some(k) = rest.find("__global__") {
        let after = &rest[k + "__global__".len()..];
        let open = after
            .find('(')
            .ok_or_else(|| DevError("__global__ without parameter list".into()))?;
        let head = after[..open].trim();
        let name = head
            .rsplit(|c: char| c.is_whitespace() || c == '*')
            .next()
            .unwrap_or("")
            .to_string();
        let close = after[open..]
            .find(')')
            .ok_or_else(|| DevError("unclosed parameter list".into()))?
            + open;
        let params = after[open + 1..close].trim();
        let mut tys = vec![];
        if !params.is_empty() && params != "void" {
            for p in params.split(',') {
                let p = p.trim();
                let cut = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .ok_or_else(|| {
                        DevError(format!("kernel {name}: cannot read parameter `{p}`"))
                    })?;
                let ty = p[..=cut]
                    .trim()
                    .replace("__restrict__", "")
                    .trim()
                    .to_string();
                tys.push(ty);
            }
        }
        out.push((name, tys));
        rest = &after[close..];
    }
    Ok(out)
}

/// The full translation unit compiled for the emulator: the kernel text unchanged, then the
/// launchers.
pub fn emu_unit(src: &str) -> Result<String, DevError> {
    let mut s = String::from(src);
    s.push_str(
        "\n\n// ---- sapfor emulator launchers (appended; the kernel text above is unchanged)\n",
    );
    for (name, tys) in kernel_signatures(src)? {
        let args: Vec<String> = tys
            .iter()
            .enumerate()
            .map(|(i, t)| format!("*({t}*)a[{i}]"))
            .collect();
        s.push_str(&format!(
            "extern \"C\" void sapfor_emu_launch_{name}(const unsigned int *g, const unsigned int *b, void **a) {{\n    sapfor_emu_run(g, b, [&]() {{ {name}({}); }});\n}}\n",
            args.join(", ")
        ));
    }
    Ok(s)
}

/// Compile `src` for the emulator (or reuse the cached shared object); returns its path.
pub fn compile(src: &str) -> Result<PathBuf, DevError> {
    let unit = emu_unit(src)?;
    let cxx = std::env::var("SAPFOR_CXX").unwrap_or_else(|_| "g++".into());
    let mut h = Sha256::new();
    h.update(EMU_HEADER.as_bytes());
    h.update([0]);
    h.update(unit.as_bytes());
    h.update([0]);
    h.update(cxx.as_bytes());
    h.update(CXXFLAGS.join(" ").as_bytes());
    let hash: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let dir = cache_dir();
    let so = dir.join(format!("{}.so", &hash[..32]));
    if so.exists() {
        crate::cache_trim::touch(&so);
        return Ok(so);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| DevError(format!("cannot create {}: {e}", dir.display())))?;
    // unique per compilation: two threads of one process compiling the same source (tests
    // run in parallel) shared the header, and the first to finish removed it under the other
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("{}-{seq}-{}", std::process::id(), &hash[..16]);
    let hdr = dir.join(format!("{tag}.h"));
    let cu = dir.join(format!("{tag}.cu"));
    let tmp = dir.join(format!("{tag}.so.tmp"));
    std::fs::write(&hdr, EMU_HEADER).map_err(|e| DevError(e.to_string()))?;
    std::fs::write(&cu, &unit).map_err(|e| DevError(e.to_string()))?;
    let out = Command::new(&cxx)
        .args(CXXFLAGS)
        .arg("-include")
        .arg(&hdr)
        .arg("-x")
        .arg("c++")
        .arg(&cu)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| DevError(format!("cannot run {cxx}: {e}")))?;
    let _ = std::fs::remove_file(&hdr);
    if !out.status.success() {
        return err(format!(
            "emulator: {cxx} failed on the kernel source (kept in {}):\n{}",
            cu.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = std::fs::remove_file(&cu);
    std::fs::rename(&tmp, &so).map_err(|e| DevError(e.to_string()))?;
    // least recently used kernels (and sources kept after failed compilations) go first;
    // anything from the last two minutes stays (another process may be compiling or loading)
    crate::cache_trim::after_store(&dir, EMU_CACHE_MAX_MB, &so, &[]);
    Ok(so)
}

/// The emulator's thread order: `SAPFOR_ORDER` when it names one (reverse, shuffle[=SEED]),
/// else a shuffle under --compare (`SAPFOR_COMPARE`), else in order.
pub fn emu_order() -> crate::order::Mode {
    match crate::order::requested() {
        Some(m) => m,
        None if std::env::var_os("SAPFOR_COMPARE").is_some() => crate::order::Mode::Shuffle(1),
        None => crate::order::Mode::InOrder,
    }
}

type Launcher = unsafe extern "C" fn(*const u32, *const u32, *mut *mut c_void);

#[derive(Default)]
pub struct EmuDevice {
    mem: Mem,
    progs: Vec<(String, libloading::Library)>,
    /// Kernel launches so far.
    pub launches: u64,
}

impl EmuDevice {
    pub fn new() -> EmuDevice {
        EmuDevice::default()
    }
    /// Live allocations (for leak checks in tests).
    pub fn live_allocations(&self) -> usize {
        self.mem.live()
    }
}

impl Device for EmuDevice {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Emu
    }
    fn describe(&self) -> String {
        "emulated accelerator (CUDA C kernels compiled by g++, separate memory)".into()
    }
    super::host::ram_memory_methods!();
    fn load_program(&mut self, source: &str) -> Result<ProgId, DevError> {
        if let Some(i) = self.progs.iter().position(|(s, _)| s == source) {
            return Ok(ProgId(i));
        }
        let so = compile(source)?;
        let lib = unsafe { libloading::Library::new(&so) }
            .map_err(|e| DevError(format!("cannot load {}: {e}", so.display())))?;
        // the order of the threads: SAPFOR_ORDER's, or shuffled under --compare (so that a
        // kernel whose threads depend on each other differs from the host loop)
        type SetOrder = unsafe extern "C" fn(i32, u64);
        if let Ok(set) = unsafe { lib.get::<SetOrder>(b"sapfor_emu_set_order") } {
            let (mode, seed) = match emu_order() {
                crate::order::Mode::InOrder => (0, 0),
                crate::order::Mode::Reverse => (1, 0),
                crate::order::Mode::Shuffle(s) => (2, s),
            };
            unsafe { set(mode, seed) };
        }
        self.progs.push((source.to_string(), lib));
        Ok(ProgId(self.progs.len() - 1))
    }
    fn launch(
        &mut self,
        prog: ProgId,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[KArg],
    ) -> Result<(), DevError> {
        let Some((_, lib)) = self.progs.get(prog.0) else {
            return err("no such program");
        };
        let sym = format!("sapfor_emu_launch_{kernel}");
        let f: libloading::Symbol<Launcher> = unsafe { lib.get(sym.as_bytes()) }
            .map_err(|_| DevError(format!("no kernel {kernel} in the program")))?;
        let mut slots: Vec<u64> = args.iter().map(KArg::slot).collect();
        let mut ptrs: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        unsafe { f(grid.as_ptr(), block.as_ptr(), ptrs.as_mut_ptr()) };
        self.launches += 1;
        Ok(())
    }
}
