//! C ABI over the device layer and the actuality tracker, for the generated Fortran
//! (`BIND(C)` interfaces; the converter does not emit these calls yet, see docs/gpu.md).
//!
//! State is per thread (the master thread makes every call). One accelerator (device 1) at
//! most for now. Every function returns 0 / a non-negative id on success and a negative
//! value after printing a message on error; nothing panics across the boundary.
//!
//! Sequence for one region (the arguments of a kernel are pushed in the order of
//! `runtime::kernel::Kernel::params`):
//! ```text
//! sapfor_gpu_use(var, access, rank, lo, hi)      per REGION clause item (part of the variable)
//! sapfor_gpu_region_enter()
//!   sapfor_gpu_arg_array(var) / _arg_i32 / _arg_i64 / _arg_f32 / _arg_f64 / _arg_loop(lo,hi,st)
//!   sapfor_gpu_arg_red(op, ty, host_ptr, nloc, loc_ptrs)
//!   sapfor_gpu_launch(prog, name, bx, by, bz, single_thread)
//! sapfor_gpu_region_exit()
//! ```

use crate::actual::{Access, RegionUse, Tracker, VarId, HOST};
use crate::device::reduce::{combine, fold_on_device, RedOp, RedValue};
use crate::device::{self, DevPtr, DeviceKind, KArg, ProgId};
use crate::pcs::Pcs;
use std::cell::RefCell;
use std::ffi::{c_char, CStr};

const ACC: usize = 1;

struct Red {
    op: RedOp,
    ty: i32,
    host: *mut u8,
    locs: Vec<*mut i32>,
    buf: DevPtr,
    loc_bufs: Vec<DevPtr>,
}

#[derive(Default)]
struct Gpu {
    tracker: Option<Tracker>,
    progs: Vec<ProgId>,
    pending: Vec<RegionUse>,
    args: Vec<KArg>,
    trips: Vec<i64>,
    reds: Vec<Red>,
}

thread_local! {
    static GPU: RefCell<Gpu> = RefCell::new(Gpu::default());
}

fn fail(msg: impl std::fmt::Display) -> i64 {
    eprintln!("sapfor runtime (accelerator): {msg}");
    -1
}

unsafe fn rect(rank: i64, lo: *const i64, hi: *const i64) -> Vec<(i64, i64)> {
    (0..rank.max(0) as usize)
        .map(|d| (*lo.add(d), *hi.add(d)))
        .collect()
}

fn elem_of(ty: i32) -> usize {
    match ty {
        2 | 4 => 8,
        _ => 4,
    }
}

fn with<R>(f: impl FnOnce(&mut Gpu) -> R) -> R {
    GPU.with(|g| f(&mut g.borrow_mut()))
}

/// Start the accelerator: `kind` 0 = none (host only), 1 = emulator, 2 = CUDA (falls back to
/// the host with one line when unavailable). Returns the kind in use.
#[no_mangle]
pub extern "C" fn sapfor_gpu_init(kind: i32) -> i32 {
    let k = match kind {
        1 => Some(DeviceKind::Emu),
        2 => Some(DeviceKind::Cuda),
        _ => None,
    };
    let (devs, used): (Vec<Box<dyn device::Device>>, i32) = match k {
        None => (vec![], 0),
        Some(k) => {
            let d = device::open_verbose(k);
            match d.kind() {
                DeviceKind::Host => (vec![], 0),
                DeviceKind::Emu => (vec![d], 1),
                DeviceKind::Cuda => (vec![d], 2),
            }
        }
    };
    with(|g| {
        *g = Gpu::default();
        g.tracker = Some(Tracker::new(devs));
    });
    used
}

fn tracker(g: &mut Gpu) -> Result<&mut Tracker, i64> {
    g.tracker
        .as_mut()
        .ok_or_else(|| fail("sapfor_gpu_init was not called"))
}

/// Load (compile, cached) the CUDA C file `path` (NUL-terminated). Returns a program id.
///
/// # Safety
/// `path` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_load(path: *const c_char) -> i64 {
    let path = CStr::from_ptr(path).to_string_lossy().to_string();
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => return fail(format!("{path}: {e}")),
    };
    with(|g| {
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        if t.device_count() < 2 {
            return fail("no accelerator");
        }
        match t.device(ACC).load_program(&src) {
            Ok(p) => {
                g.progs.push(p);
                g.progs.len() as i64 - 1
            }
            Err(e) => fail(e),
        }
    })
}

/// Register a host variable (column-major, bounds `lo..hi` per dimension, `elem` bytes).
///
/// # Safety
/// `ptr` must stay valid; `lo`/`hi` must have `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_register(
    ptr: *mut u8,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
    elem: i64,
) -> i64 {
    let b = rect(rank, lo, hi);
    with(|g| match tracker(g) {
        Ok(t) => t.register("", ptr, &b, elem as usize) as i64,
        Err(e) => e,
    })
}

/// One REGION clause item: `access` 1 IN, 2 OUT, 3 INOUT, 4 LOCAL, 5 INLOCAL; the box
/// `lo..hi` of variable `var` (rank 0 for scalars).
///
/// # Safety
/// `lo`/`hi` must have `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_use(
    var: i64,
    access: i32,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
) -> i64 {
    let access = match access {
        1 => Access::In,
        2 => Access::Out,
        3 => Access::InOut,
        4 => Access::Local,
        5 => Access::InLocal,
        a => return fail(format!("bad access code {a}")),
    };
    let part = Pcs::from_rect(&rect(rank, lo, hi));
    with(|g| {
        g.pending.push(RegionUse {
            var: var as VarId,
            access,
            part,
        });
        0
    })
}

#[no_mangle]
pub extern "C" fn sapfor_gpu_region_enter() -> i64 {
    with(|g| {
        let uses = g.pending.clone();
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let d = if t.device_count() > 1 { ACC } else { HOST };
        match t.region_enter(d, &uses) {
            Ok(()) => 0,
            Err(e) => fail(e),
        }
    })
}

#[no_mangle]
pub extern "C" fn sapfor_gpu_region_exit() -> i64 {
    with(|g| {
        let uses = std::mem::take(&mut g.pending);
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let d = if t.device_count() > 1 { ACC } else { HOST };
        t.region_exit(d, &uses);
        0
    })
}

/// Kernel argument: array `var` (its representative's pointer, then `lo, hi` per dimension).
#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_array(var: i64) -> i64 {
    with(|g| {
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let Some(r) = t.rep(var as VarId, ACC).cloned() else {
            return fail("array argument without a representative (not in the region's clauses)");
        };
        g.args.push(KArg::Ptr(r.ptr));
        for (l, h) in r.bounds {
            g.args.push(KArg::I64(l));
            g.args.push(KArg::I64(h));
        }
        0
    })
}

#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_i32(v: i32) {
    with(|g| g.args.push(KArg::I32(v)))
}
#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_i64(v: i64) {
    with(|g| g.args.push(KArg::I64(v)))
}
#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_f32(v: f32) {
    with(|g| g.args.push(KArg::F32(v)))
}
#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_f64(v: f64) {
    with(|g| g.args.push(KArg::F64(v)))
}

/// Bounds and step of a mapped loop (the local part), outermost loop first.
#[no_mangle]
pub extern "C" fn sapfor_gpu_arg_loop(lo: i64, hi: i64, st: i64) {
    with(|g| {
        g.args.extend([KArg::I64(lo), KArg::I64(hi), KArg::I64(st)]);
        g.trips.push(if st == 0 {
            0
        } else {
            ((hi - lo + st) / st).max(0)
        });
    })
}

/// A reduction of the next kernel: `op` 1 SUM, 2 PRODUCT, 3 MAX, 4 MIN, 5 AND, 6 OR, 7 EQV,
/// 8 NEQV, 9 MAXLOC, 10 MINLOC; `ty` 1 INTEGER, 2 INTEGER(8), 3 REAL, 4 DOUBLE PRECISION,
/// 5 LOGICAL; `host` the variable (value before the loop in, result out); `locs` the
/// MAXLOC/MINLOC index variables. Pushes the partial buffers (after the loop arguments).
///
/// # Safety
/// `host` and the `nloc` pointers of `locs` must be valid.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_arg_red(
    op: i32,
    ty: i32,
    host: *mut u8,
    nloc: i32,
    locs: *const *mut i32,
) -> i64 {
    let op = match op {
        1 => RedOp::Sum,
        2 => RedOp::Product,
        3 => RedOp::Max,
        4 => RedOp::Min,
        5 => RedOp::And,
        6 => RedOp::Or,
        7 => RedOp::Eqv,
        8 => RedOp::Neqv,
        9 => RedOp::MaxLoc,
        10 => RedOp::MinLoc,
        o => return fail(format!("bad reduction code {o}")),
    };
    let locs: Vec<*mut i32> = (0..nloc.max(0) as usize).map(|k| *locs.add(k)).collect();
    with(|g| {
        let n: i64 = g.trips.iter().product::<i64>().max(1);
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let dev = t.device(ACC);
        let buf = match dev.alloc(n as usize * elem_of(ty)) {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        let mut loc_bufs = vec![];
        for _ in &locs {
            match dev.alloc(n as usize * 4) {
                Ok(b) => loc_bufs.push(b),
                Err(e) => return fail(e),
            }
        }
        g.args.push(KArg::Ptr(buf));
        g.args.extend(loc_bufs.iter().map(|&b| KArg::Ptr(b)));
        g.reds.push(Red {
            op,
            ty,
            host,
            locs,
            buf,
            loc_bufs,
        });
        0
    })
}

unsafe fn fold_into<T: RedValue>(r: &Red, part: &[u8], locs: &[i32]) {
    let p: T = std::ptr::read_unaligned(part.as_ptr() as *const T);
    let mut v: T = std::ptr::read_unaligned(r.host as *const T);
    let mut loc: Vec<i32> = r.locs.iter().map(|&l| *l).collect();
    let lb: Vec<Vec<i32>> = locs.iter().map(|&x| vec![x]).collect();
    combine(r.op, &mut v, &mut loc, &[p], &lb);
    std::ptr::write_unaligned(r.host as *mut T, v);
    for (dst, l) in r.locs.iter().zip(loc) {
        **dst = l;
    }
}

/// Launch kernel `name` (NUL-terminated) of program `prog` with the pushed arguments; block
/// `bx*by*bz`; `single` = 1 for single-thread (ACROSS) kernels. Folds and fetches the
/// reductions (companion kernel `<name>_red`) into the host variables.
///
/// # Safety
/// `name` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_launch(
    prog: i64,
    name: *const c_char,
    bx: i32,
    by: i32,
    bz: i32,
    single: i32,
) -> i64 {
    let name = CStr::from_ptr(name).to_string_lossy().to_string();
    with(|g| {
        let args = std::mem::take(&mut g.args);
        let trips = std::mem::take(&mut g.trips);
        let reds = std::mem::take(&mut g.reds);
        let Some(&p) = g.progs.get(prog as usize) else {
            return fail(format!("no program {prog}"));
        };
        let t = match tracker(g) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let block = [bx.max(1) as u32, by.max(1) as u32, bz.max(1) as u32];
        let (grid, block) = if single != 0 {
            ([1, 1, 1], [1, 1, 1])
        } else {
            (device::grid_for(&trips, block), block)
        };
        let iters: i64 = if single != 0 {
            1
        } else {
            trips.iter().product()
        };
        let t0 = std::time::Instant::now();
        let dev = t.device(ACC);
        if let Err(e) = dev
            .launch(p, &name, grid, block, &args)
            .and_then(|_| dev.sync())
        {
            return fail(e);
        }
        t.note_kernel(ACC, t0.elapsed().as_secs_f64());
        let dev = t.device(ACC);
        let mut rc = 0;
        if !reds.is_empty() {
            let bufs: Vec<DevPtr> = reds
                .iter()
                .flat_map(|r| std::iter::once(r.buf).chain(r.loc_bufs.iter().copied()))
                .collect();
            if let Err(e) = fold_on_device(dev, p, &format!("{name}_red"), iters, &bufs) {
                rc = fail(e);
            }
            let one = [(1i64, 1i64)];
            let mut fetched = 0u64;
            for r in &reds {
                let sz = elem_of(r.ty);
                let mut part = [0u8; 8];
                let mut locs = vec![0i32; r.loc_bufs.len()];
                if rc == 0 && iters > 0 {
                    let ok = dev
                        .to_host(part.as_mut_ptr(), &one, r.buf, &one, sz, &one)
                        .is_ok()
                        && r.loc_bufs.iter().zip(locs.iter_mut()).all(|(b, l)| {
                            dev.to_host(l as *mut i32 as *mut u8, &one, *b, &one, 4, &one)
                                .is_ok()
                        });
                    if !ok {
                        rc = fail("cannot fetch a reduction result");
                    } else {
                        fetched += (sz + 4 * locs.len()) as u64;
                        match r.ty {
                            1 | 5 => fold_into::<i32>(r, &part, &locs),
                            2 => fold_into::<i64>(r, &part, &locs),
                            3 => fold_into::<f32>(r, &part, &locs),
                            _ => fold_into::<f64>(r, &part, &locs),
                        }
                    }
                }
                dev.free(r.buf);
                for b in &r.loc_bufs {
                    dev.free(*b);
                }
            }
            t.note_transfer(ACC, 0, fetched);
        }
        rc
    })
}

/// `GET_ACTUAL` of the box `lo..hi` of `var`.
///
/// # Safety
/// `lo`/`hi` must have `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_get_actual(
    var: i64,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
) -> i64 {
    let set = Pcs::from_rect(&rect(rank, lo, hi));
    with(|g| match tracker(g) {
        Ok(t) => match t.get_actual(var as VarId, &set) {
            Ok(n) => n as i64,
            Err(e) => fail(e),
        },
        Err(e) => e,
    })
}

/// `ACTUAL` of the box `lo..hi` of `var`: the host copy is the newest.
///
/// # Safety
/// `lo`/`hi` must have `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_actual(
    var: i64,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
) -> i64 {
    let set = Pcs::from_rect(&rect(rank, lo, hi));
    with(|g| match tracker(g) {
        Ok(t) => {
            t.declare_actual(var as VarId, &set);
            0
        }
        Err(e) => e,
    })
}

/// Traffic so far: bytes host->device and device->host, requests and requests without copy
/// (any pointer may be null).
///
/// # Safety
/// Non-null pointers must be writable.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_traffic(
    h2d: *mut i64,
    d2h: *mut i64,
    requests: *mut i64,
    no_copy: *mut i64,
) {
    with(|g| {
        if let Some(t) = g.tracker.as_ref() {
            let (a, b) = t.total_bytes();
            let (mut r, mut n) = (0, 0);
            for d in 0..t.device_count() {
                r += t.stats(d).requests;
                n += t.stats(d).requests_no_copy;
            }
            for (p, v) in [
                (h2d, a as i64),
                (d2h, b as i64),
                (requests, r as i64),
                (no_copy, n as i64),
            ] {
                if !p.is_null() {
                    *p = v;
                }
            }
        }
    })
}

/// Print the accelerator lines of the performance report on standard error.
#[no_mangle]
pub extern "C" fn sapfor_gpu_report() {
    with(|g| {
        if let Some(t) = g.tracker.as_ref() {
            for l in t.report() {
                eprintln!("{l}");
            }
        }
    })
}

/// Release the accelerator's memory.
#[no_mangle]
pub extern "C" fn sapfor_gpu_finalize() {
    with(|g| *g = Gpu::default());
}
