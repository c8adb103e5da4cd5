//! Device layer: where representatives of variables live and where kernels run.
//!
//! Device 0 is always the host (the program's own Fortran arrays). Accelerators implement
//! [`Device`]: allocate a representative (a column-major array with its own bounds), copy a
//! box of elements between a host array and a representative (each with its own bounds), and
//! launch a kernel of a program (CUDA C source, see `docs/gpu.md`) by name.
//!
//! * [`host::HostDevice`]: plain host memory (used as the fallback; kernels do not run there,
//!   the host version of a loop is the Fortran loop itself);
//! * [`emu::EmuDevice`]: the emulated accelerator: separate allocations and the same CUDA C
//!   source compiled for the CPU with g++ and `runtime/cuda/sapfor_emu.h`;
//! * [`cuda::CudaDevice`]: a real GPU through cudarc, kernels compiled by NVRTC at run time.
//!
//! [`open`] picks one by [`DeviceKind`] and falls back to the host with one informational
//! line when CUDA is not available.

pub mod cuda;
pub mod emu;
pub mod host;
pub mod nvrtc;
pub mod reduce;

use std::fmt;

/// Bounds of a column-major array: `(lo, hi)` inclusive per dimension (rank 0 = a scalar).
pub type Bounds = [(i64, i64)];

/// A host array: address and bounds (column-major).
#[derive(Clone, Debug)]
pub struct HostArray {
    pub ptr: *mut u8,
    pub bounds: Vec<(i64, i64)>,
}

/// An allocation on a device (opaque; for the emulator and the host it is an address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevPtr(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    Host,
    Emu,
    Cuda,
}

impl DeviceKind {
    pub fn parse(s: &str) -> Option<DeviceKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "host" => Some(DeviceKind::Host),
            "emu" => Some(DeviceKind::Emu),
            "cuda" => Some(DeviceKind::Cuda),
            _ => None,
        }
    }
    pub fn as_str(&self) -> &'static str {
        match self {
            DeviceKind::Host => "host",
            DeviceKind::Emu => "emu",
            DeviceKind::Cuda => "cuda",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct DevError(pub String);

impl fmt::Display for DevError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for DevError {}

pub fn err<T>(msg: impl Into<String>) -> Result<T, DevError> {
    Err(DevError(msg.into()))
}

/// A kernel argument, in the order of the kernel's parameter list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KArg {
    Ptr(DevPtr),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl KArg {
    /// The argument as the 64-bit slot a kernel parameter pointer refers to (CUDA and the
    /// emulator's launcher read the low bytes of the slot for 32-bit arguments).
    pub fn slot(&self) -> u64 {
        match *self {
            KArg::Ptr(p) => p.0,
            KArg::I32(v) => v as u32 as u64,
            KArg::I64(v) => v as u64,
            KArg::F32(v) => v.to_bits() as u64,
            KArg::F64(v) => v.to_bits(),
        }
    }
}

/// A compiled program (a CUDA C source with one or more kernels) on one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProgId(pub usize);

pub trait Device {
    fn kind(&self) -> DeviceKind;
    /// Human-readable description (for reports).
    fn describe(&self) -> String;
    /// A zero-filled allocation of `bytes` bytes.
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, DevError>;
    fn free(&mut self, p: DevPtr);
    /// Copy the elements of `region` from the host array at `src` (bounds `src_b`) into the
    /// representative `dst` (bounds `dst_b`). `region` must lie inside both. Returns bytes.
    ///
    /// # Safety
    /// `src` must point to a live column-major array with bounds `src_b` of `elem`-byte
    /// elements.
    unsafe fn to_device(
        &mut self,
        dst: DevPtr,
        dst_b: &Bounds,
        src: *const u8,
        src_b: &Bounds,
        elem: usize,
        region: &Bounds,
    ) -> Result<u64, DevError>;
    /// Copy the elements of `region` from the representative `src` into the host array `dst`.
    ///
    /// # Safety
    /// As for [`Device::to_device`], with `dst` writable.
    unsafe fn to_host(
        &mut self,
        dst: *mut u8,
        dst_b: &Bounds,
        src: DevPtr,
        src_b: &Bounds,
        elem: usize,
        region: &Bounds,
    ) -> Result<u64, DevError>;
    /// Copy `region` between two representatives on this device (used when a representative
    /// is extended).
    fn copy_within(
        &mut self,
        dst: DevPtr,
        dst_b: &Bounds,
        src: DevPtr,
        src_b: &Bounds,
        elem: usize,
        region: &Bounds,
    ) -> Result<(), DevError>;
    /// Compile (or find in the cache) a program; kernels of it are then launched by name.
    fn load_program(&mut self, source: &str) -> Result<ProgId, DevError>;
    /// Launch `kernel` of program `prog` on a grid of `grid` blocks of `block` threads.
    fn launch(
        &mut self,
        prog: ProgId,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[KArg],
    ) -> Result<(), DevError>;
    /// Wait for everything launched so far.
    fn sync(&mut self) -> Result<(), DevError> {
        Ok(())
    }
}

/// Linear element offset of `idx` in a column-major array with bounds `b`.
pub fn offset(b: &Bounds, idx: &[i64]) -> usize {
    let mut off: i64 = 0;
    let mut stride: i64 = 1;
    for (d, &(lo, hi)) in b.iter().enumerate() {
        off += (idx[d] - lo) * stride;
        stride *= hi - lo + 1;
    }
    off as usize
}

pub fn elements(b: &Bounds) -> usize {
    b.iter()
        .map(|&(l, h)| (h - l + 1).max(0) as usize)
        .product()
}

/// The contiguous runs of `region` inside two arrays: calls `f(src_off, dst_off, len)` in
/// elements, one call per column (dimension 0 run) of the region.
pub fn for_each_run(
    src_b: &Bounds,
    dst_b: &Bounds,
    region: &Bounds,
    mut f: impl FnMut(usize, usize, usize),
) {
    if region.iter().any(|&(l, h)| l > h) {
        return;
    }
    for (d, r) in region.iter().enumerate() {
        assert!(
            r.0 >= src_b[d].0 && r.1 <= src_b[d].1,
            "copy region {region:?} outside source bounds {src_b:?}"
        );
        assert!(
            r.0 >= dst_b[d].0 && r.1 <= dst_b[d].1,
            "copy region {region:?} outside destination bounds {dst_b:?}"
        );
    }
    if region.is_empty() {
        f(0, 0, 1);
        return;
    }
    let len = (region[0].1 - region[0].0 + 1) as usize;
    let mut idx: Vec<i64> = region.iter().map(|r| r.0).collect();
    loop {
        f(offset(src_b, &idx), offset(dst_b, &idx), len);
        let mut d = 1;
        while d < region.len() {
            if idx[d] < region[d].1 {
                idx[d] += 1;
                break;
            }
            idx[d] = region[d].0;
            d += 1;
        }
        if d >= region.len() {
            break;
        }
    }
}

/// The runs of `region` as [`for_each_run`] gives them, merged where one run ends where the
/// next begins in both arrays (a box that spans whole columns is one run).
pub fn merged_runs(src_b: &Bounds, dst_b: &Bounds, region: &Bounds) -> Vec<(usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = vec![];
    for_each_run(src_b, dst_b, region, |so, d, len| match out.last_mut() {
        Some((ps, pd, pl)) if *ps + *pl == so && *pd + *pl == d => *pl += len,
        _ => out.push((so, d, len)),
    });
    out
}

/// Bytes one more transfer costs, as bytes moved: a transfer between host and GPU memory
/// costs a few microseconds before its first byte moves (3.6-10 us per column measured on an
/// H200 through pageable memory, bench/README.md "On a GPU"), the time of about 16 KiB.
pub const TRANSFER_START_BYTES: usize = 16 << 10;

/// How a box moves between the host and an accelerator's memory: its merged runs (offsets in
/// elements: host array, accelerator array), and `hull`: the accelerator-side span
/// (first element, elements) to move in one transfer instead of one transfer per run, when
/// the runs are many and the span is not much larger than what they hold.
pub struct CopyPlan {
    pub runs: Vec<(usize, usize, usize)>,
    pub hull: Option<(usize, usize)>,
}

impl CopyPlan {
    /// `acc_b` is the accelerator array's bounds; `transfers_per_hull` is 1 for a copy to the
    /// host, 2 for one to the accelerator whose runs leave gaps (the span is read first, so that
    /// the elements between the runs keep their accelerator values).
    pub fn new(host_b: &Bounds, acc_b: &Bounds, region: &Bounds, elem: usize, to_acc: bool) -> CopyPlan {
        let runs = merged_runs(host_b, acc_b, region);
        let hull = match (runs.iter().map(|r| r.1).min(), runs.iter().map(|r| r.1 + r.2).max()) {
            (Some(lo), Some(hi)) if runs.len() > 1 => {
                let held: usize = runs.iter().map(|r| r.2).sum();
                let transfers = if to_acc && held < hi - lo { 2 } else { 1 };
                let per_run = runs.len() * TRANSFER_START_BYTES;
                let hull = transfers * ((hi - lo) * elem + TRANSFER_START_BYTES);
                (hull <= per_run + held * elem).then_some((lo, hi - lo))
            }
            _ => None,
        };
        CopyPlan { runs, hull }
    }

    /// Host array -> accelerator array, with `put(acc_offset, src, bytes)` and
    /// `get(dst, acc_offset, bytes)` moving contiguous bytes (offsets in elements). Returns the
    /// bytes of the box.
    ///
    /// # Safety
    /// `src` holds the host array; `put`/`get` move memory of the accelerator array.
    pub unsafe fn to_acc(
        &self,
        src: *const u8,
        elem: usize,
        mut put: impl FnMut(usize, *const u8, usize) -> Result<(), DevError>,
        mut get: impl FnMut(*mut u8, usize, usize) -> Result<(), DevError>,
    ) -> Result<u64, DevError> {
        let held: usize = self.runs.iter().map(|r| r.2).sum();
        match self.hull {
            None => {
                for &(h, a, len) in &self.runs {
                    put(a, src.add(h * elem), len * elem)?;
                }
            }
            Some((lo, n)) => {
                let mut stage = vec![0u8; n * elem];
                if held < n {
                    get(stage.as_mut_ptr(), lo, n * elem)?;
                }
                for &(h, a, len) in &self.runs {
                    std::ptr::copy_nonoverlapping(src.add(h * elem), stage.as_mut_ptr().add((a - lo) * elem), len * elem);
                }
                put(lo, stage.as_ptr(), n * elem)?;
            }
        }
        Ok((held * elem) as u64)
    }

    /// Accelerator array -> host array (see [`CopyPlan::to_acc`]).
    ///
    /// # Safety
    /// `dst` holds the host array; `get` moves memory of the accelerator array.
    pub unsafe fn to_host(
        &self,
        dst: *mut u8,
        elem: usize,
        mut get: impl FnMut(*mut u8, usize, usize) -> Result<(), DevError>,
    ) -> Result<u64, DevError> {
        match self.hull {
            None => {
                for &(h, a, len) in &self.runs {
                    get(dst.add(h * elem), a, len * elem)?;
                }
            }
            Some((lo, n)) => {
                let mut stage = vec![0u8; n * elem];
                get(stage.as_mut_ptr(), lo, n * elem)?;
                for &(h, a, len) in &self.runs {
                    std::ptr::copy_nonoverlapping(stage.as_ptr().add((a - lo) * elem), dst.add(h * elem), len * elem);
                }
            }
        }
        Ok((self.runs.iter().map(|r| r.2).sum::<usize>() * elem) as u64)
    }
}

/// Grid for a kernel of the generated shape (see `docs/gpu.md`): `trips` are the trip counts
/// of the mapped loops, outermost first; x covers the innermost loop, y the next, z all the
/// others together.
pub fn grid_for(trips: &[i64], block: [u32; 3]) -> [u32; 3] {
    let m = trips.len();
    let t = |k: usize| -> i64 { trips.get(k).copied().unwrap_or(1).max(0) };
    let tx = if m >= 1 { t(m - 1) } else { 1 };
    let ty = if m >= 2 { t(m - 2) } else { 1 };
    let tz: i64 = if m >= 3 {
        trips[..m - 2].iter().map(|&x| x.max(0)).product()
    } else {
        1
    };
    // generated kernels loop (grid-stride) when the grid is smaller than the iterations, so
    // the CUDA limits (x < 2^31, y and z <= 65535 blocks) are simply applied
    let g =
        |n: i64, b: u32, max: i64| -> u32 { ((n + b as i64 - 1) / b as i64).clamp(0, max) as u32 };
    [
        g(tx, block[0], i32::MAX as i64),
        g(ty, block[1], 65535),
        g(tz, block[2], 65535),
    ]
}

/// Static work distribution (SPEC section 7, mode 1): split the iterations `lo..=hi` of a
/// mapped loop between devices in proportion to their relative speeds `weights`, as
/// contiguous ranges in device order (a device may get an empty range `(x, x-1)`).
pub fn split_iterations(lo: i64, hi: i64, weights: &[f64]) -> Vec<(i64, i64)> {
    let n = (hi - lo + 1).max(0);
    let total: f64 = weights.iter().map(|w| w.max(0.0)).sum();
    let mut out = Vec::with_capacity(weights.len());
    let mut acc = 0.0;
    let mut start = lo;
    for (k, w) in weights.iter().enumerate() {
        acc += w.max(0.0);
        let end = if k + 1 == weights.len() || total == 0.0 {
            if k + 1 == weights.len() {
                hi
            } else {
                start - 1
            }
        } else {
            lo + ((n as f64) * acc / total).round() as i64 - 1
        };
        let end = end.max(start - 1).min(hi);
        out.push((start, end));
        start = end + 1;
    }
    out
}

/// The device to run regions on. `Cuda` falls back to the host when no CUDA driver library
/// or no GPU is found: the returned note is the one informational line to print.
pub fn open(kind: DeviceKind) -> (Box<dyn Device>, Option<String>) {
    match kind {
        DeviceKind::Host => (Box::new(host::HostDevice::new()), None),
        DeviceKind::Emu => (Box::new(emu::EmuDevice::new()), None),
        DeviceKind::Cuda => match cuda::CudaDevice::open() {
            Ok(d) => (Box::new(d), None),
            Err(e) => (
                Box::new(host::HostDevice::new()),
                Some(format!(
                    "sapfor: no CUDA device ({e}); regions run on the host"
                )),
            ),
        },
    }
}

/// [`open`], printing the note (if any) on standard error.
pub fn open_verbose(kind: DeviceKind) -> Box<dyn Device> {
    let (d, note) = open(kind);
    if let Some(n) = note {
        say!("{n}");
    }
    d
}
