//! C ABI over the device layer and the actuality tracker, called by the Fortran that the
//! converter writes for `REGION`s (docs/gpu.md, "Regions in converted programs").
//!
//! The accelerator is chosen at start-up from `SAPFOR_DEVICES` (`host`, `emu`, `cuda`;
//! `sapfor run --devices`), so one executable runs with or without an accelerator. Without
//! one every call here returns at once and the host versions of the loops run.
//!
//! Variables are named by their host address: the first `sapfor_gpu_use` of an array
//! registers it with the tracker (bounds and element size); a later use with the same address
//! and shape finds it again. A registration whose storage overlaps a new one of another shape
//! (a dummy argument seen with other bounds) is brought back to the host and dropped first;
//! `sapfor_gpu_forget` drops registrations of storage that is gone (automatic locals at
//! procedure entry, ALLOCATE) without copying. Scalars stay on the host: kernels receive them
//! by value and reduction results are folded into the host variables (see below for when).
//!
//! State is per thread (the master thread makes every call). Errors stop the program with a
//! message naming the source line (`crate::abort_at`).
//!
//! Sequence for one region (arguments in the order of `runtime::kernel::Kernel::params`):
//! ```text
//! sapfor_gpu_use(a, name, access, handle, rank, alo, ahi, lo, hi, elem)   per array
//! sapfor_gpu_region_enter(src)
//!   if (sapfor_gpu_active() /= 0):
//!     sapfor_gpu_arg_array(a, ty, written) / _arg_i32 / _i64 / _f32 / _f64 / _arg_loop
//!     sapfor_gpu_get_scalar(x)          scalars passed by value that may hold a result below
//!     sapfor_gpu_arg_red(op, ty, x, keep) [sapfor_gpu_arg_red_loc(i) ...]
//!     sapfor_gpu_launch(name, bx, by, bz, single, src)
//!   if (sapfor_gpu_host_loop() /= 0): the host loop (no accelerator, or --compare)
//!   sapfor_gpu_loop_done(src)                              (--compare: compare, keep host)
//!   sapfor_gpu_host_uses(a, writes)       before host statements of the region touching a
//! sapfor_gpu_region_exit(src)
//! ```
//!
//! Reduction results: with one process (no combine across processes), no split and no
//! `--compare`, the result of a reduction on a variable that lives as long as the program
//! stays on the accelerator; the host variable keeps its value from before the loop until
//! `sapfor_gpu_get_scalar` (`GET_ACTUAL`, a host statement of a region or a loop on the host
//! reading it, a kernel taking it by value), `sapfor_gpu_all(1)` or the next reduction on it
//! fetches and combines it; `sapfor_gpu_put_scalar` (`ACTUAL`, a host assignment) drops it.
//! Otherwise results are fetched right after the kernel.

use crate::actual::{Access, RegionUse, Stats, Tracker, VarId, HOST};
use crate::compare::{self, ElemTy, Tolerance};
use crate::device::reduce::{combine, fold_on_device, RedOp, RedValue};
use crate::device::{self, DevPtr, DeviceKind, KArg, ProgId};
use crate::pcs::{Pcs, Rect};
use crate::layout::Layout;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_char, CStr};

const ACC: usize = 1;

/// A registered host variable.
struct Reg {
    var: VarId,
    bytes: usize,
    bounds: Rect,
    name: String,
    /// Written by host code inside a region: the accelerator's copy must be refreshed before
    /// the next kernel and at the region's end.
    dirty: bool,
}

#[derive(Clone)]
struct Red {
    op: RedOp,
    ty: i32,
    host: *mut u8,
    /// The variable lives as long as the program: its result may stay on the accelerator.
    keep: bool,
    locs: Vec<*mut i32>,
    buf: DevPtr,
    loc_bufs: Vec<DevPtr>,
}

/// A reduction under `--compare`: host variable, type, the accelerator's result (value
/// bytes), the index variables and the accelerator's indices.
type CmpRed = (*mut u8, i32, Vec<u8>, Vec<*mut i32>, Vec<i32>);

/// What `--compare` keeps between the launch and `sapfor_gpu_loop_done`.
struct Cmp {
    /// Arrays of the kernel.
    arrays: Vec<ArgArray>,
    /// Reductions: host variable, type, the accelerator's result (value, then indices).
    reds: Vec<CmpRed>,
    kernel: String,
}

/// Counters of one region (or of everything outside regions).
#[derive(Clone, Debug, Default)]
struct RegionStat {
    runs: u64,
    d: Stats,
}

struct Open {
    src: i64,
    exit: Vec<RegionUse>,
    before: Stats,
}

#[derive(Default)]
struct Gpu {
    tracker: Option<Tracker>,
    compare: Option<Tolerance>,
    source: Option<String>,
    prog: Option<ProgId>,
    /// Registrations by host start address.
    regs: BTreeMap<usize, Reg>,
    /// Clause items given since the last region entry: (entry use, exit use).
    pending: Vec<(RegionUse, RegionUse)>,
    open: Option<Open>,
    args: Vec<KArg>,
    arg_arrays: Vec<ArgArray>,
    trips: Vec<i64>,
    reds: Vec<Red>,
    cmp: Option<Cmp>,
    regions: BTreeMap<i64, RegionStat>,
    compared: u64,
    differing: u64,
    /// `--devices host,emu|cuda`: relative speeds (host, accelerator) of the static split.
    split: Option<(f64, f64)>,
    /// Position in `args` of the outermost mapped loop's bounds (set by the first
    /// `sapfor_gpu_arg_loop` of a launch).
    first_loop: Option<usize>,
    /// `SAPFOR_GPU_DEBUG`: say how each split launch divided its loop.
    debug: bool,
    /// The arrays' slabs of the last split launch, marked when the host part is done.
    split_done: Option<SplitDone>,
    /// Reduction results may stay on the accelerator until the host reads the variable (one
    /// process, no split, no `--compare`): there is no combine across processes that needs
    /// them at once.
    defer: bool,
    /// Reduction results kept on the accelerator, by the host variable's address.
    deferred: BTreeMap<usize, Deferred>,
}

/// A reduction result folded on the accelerator and not yet fetched: the host variable keeps
/// the value it had before the loop (`init`, `init_locs`) until `settle` combines it with the
/// accelerator's result.
struct Deferred {
    red: Red,
    init: Vec<u8>,
    init_locs: Vec<i32>,
    src: i64,
}

/// Along which dimension a loop's references to an array follow the outermost mapped loop
/// variable `v` (`A(.., v + c, ..)`), with the range of offsets `c` (`dim` 0: the loop has
/// no such references); None: not known.
#[derive(Clone, Copy, Debug)]
struct Slab {
    dim: usize,
    lo: i64,
    hi: i64,
}

impl Slab {
    /// From the ABI's code: `dim` > 0 a dimension, -1 no references, 0 not known.
    fn new(dim: i32, lo: i64, hi: i64) -> Option<Slab> {
        match dim {
            d if d > 0 => Some(Slab {
                dim: d as usize,
                lo,
                hi,
            }),
            -1 => Some(Slab {
                dim: 0,
                lo: 0,
                hi: 0,
            }),
            _ => None,
        }
    }
    /// The elements of `whole` that iterations `from..=to` touch (none when the range is
    /// empty; all when not known).
    fn part(s: Option<Slab>, whole: &Pcs, from: i64, to: i64) -> Pcs {
        if to < from {
            return Pcs::empty(whole.rank());
        }
        match s {
            Some(s) if s.dim == 0 => Pcs::empty(whole.rank()),
            Some(s) if to >= from => {
                let Some(h) = whole.hull() else {
                    return whole.clone();
                };
                let mut r = h.clone();
                if s.dim > r.len() {
                    return whole.clone();
                }
                r[s.dim - 1] = (from + s.lo, to + s.hi);
                whole.intersect(&Pcs::from_rect(&r))
            }
            Some(_) => Pcs::empty(whole.rank()),
            None => whole.clone(),
        }
    }
}

/// One array argument of a kernel.
struct ArgArray {
    start: usize,
    ty: ElemTy,
    written: bool,
    write: Option<Slab>,
    read: Option<Slab>,
}

struct SplitDone {
    arrays: Vec<(VarId, Option<Slab>, Vec<Pcs>)>,
    dev: (i64, i64),
    host: (i64, i64),
}

/// The host's part of the outermost loop of the last split launch (read by the host loop's
/// DO bounds, possibly from OpenMP threads); the full range when nothing is split.
static HOST_LO: std::sync::atomic::AtomicI64 =
    std::sync::atomic::AtomicI64::new(i32::MIN as i64 + 1);
static HOST_HI: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(i32::MAX as i64);

fn set_host_part(lo: i64, hi: i64) {
    use std::sync::atomic::Ordering::SeqCst;
    HOST_LO.store(lo, SeqCst);
    HOST_HI.store(hi, SeqCst);
}

/// Lower bound of the host's part of the outermost loop of a split launch (a very small
/// number when nothing is split).
#[no_mangle]
pub extern "C" fn sapfor_gpu_hlo() -> i64 {
    HOST_LO.load(std::sync::atomic::Ordering::SeqCst)
}

/// Upper bound of the host's part (a very large number when nothing is split).
#[no_mangle]
pub extern "C" fn sapfor_gpu_hhi() -> i64 {
    HOST_HI.load(std::sync::atomic::Ordering::SeqCst)
}

thread_local! {
    static GPU: RefCell<Gpu> = RefCell::new(Gpu::default());
    static ACTIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn with<R>(f: impl FnOnce(&mut Gpu) -> R) -> R {
    GPU.with(|g| f(&mut g.borrow_mut()))
}

fn active() -> bool {
    ACTIVE.with(|a| a.get())
}

unsafe fn rect(rank: i64, lo: *const i64, hi: *const i64) -> Rect {
    (0..rank.max(0) as usize)
        .map(|d| (*lo.add(d), *hi.add(d)))
        .collect()
}

unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn elem_of(ty: i32) -> usize {
    match ty {
        2 | 4 => 8,
        _ => 4,
    }
}

fn fail(src: i64, msg: impl std::fmt::Display) -> ! {
    crate::abort_at(src, &format!("accelerator: {msg}"))
}

impl Gpu {
    fn t(&mut self) -> &mut Tracker {
        self.tracker.as_mut().expect("accelerator started")
    }
    /// The registration holding address `p` exactly at its start.
    fn reg_at(&self, p: usize) -> Option<&Reg> {
        self.regs.get(&p)
    }
    /// Every registered variable whose storage overlaps the array named at address `a` with
    /// declared bounds `decl`, and the elements of it that the box `bx` (in the name's own
    /// indices) covers. When the name is the registered array itself this is the box; for
    /// another name (a dummy argument associated with an element or column of the array, of
    /// any rank and bounds) the box's elements are found by their storage offsets. A big
    /// array may overlap several registrations: after regions on dummies given its
    /// elements (`CALL FACE(T(1,1,1,IE))` for each IE) each such part has its own.
    fn locate(&self, a: usize, decl: &Rect, bx: &Rect, esize: usize) -> Vec<(usize, VarId, Pcs)> {
        let Some(t) = self.tracker.as_ref() else {
            return vec![];
        };
        let extent = |b: &[(i64, i64)]| -> Vec<i64> { b.iter().map(|(l, h)| (h - l + 1).max(0)).collect() };
        let holder = self.regs.range(..=a).next_back().filter(|(&s, r)| a < s + r.bytes.max(1));
        if let Some((&start, r)) = holder {
            if a == start && extent(decl) == extent(&r.bounds) {
                let set: Rect = bx
                    .iter()
                    .zip(decl.iter().zip(r.bounds.iter()))
                    .map(|(&(l, h), (&(dl, _), &(rl, _)))| (l - dl + rl, h - dl + rl))
                    .collect();
                return vec![(start, r.var, Pcs::from_rect(&set).intersect(&t.whole(r.var)))];
            }
        }
        // an assumed-size dummy (`Y(*)`): the converter passes `huge` as the last upper bound;
        // the array then reaches to the end of the registered array that holds it (and is
        // nothing the accelerator has when no registration holds its start)
        let clipped: (Rect, Rect);
        let (decl, bx) = match decl.last() {
            Some(&(llo, lhi)) if lhi >= i64::MAX / 4 => {
                let Some((&start, r)) = holder else {
                    return vec![];
                };
                let elem = t.elem(r.var).max(1);
                let left = ((start + r.bytes - a) / elem) as i64;
                let stride: i64 = extent(&decl[..decl.len() - 1]).iter().product::<i64>().max(1);
                let hi = llo + (left + stride - 1) / stride - 1;
                let (mut d, mut b) = (decl.clone(), bx.clone());
                d.last_mut().unwrap().1 = hi;
                let last = b.last_mut().unwrap();
                last.1 = last.1.min(hi);
                clipped = (d, b);
                (&clipped.0, &clipped.1)
            }
            _ => (decl, bx),
        };
        // the name's element size is the caller's (a registration of another element size
        // is not this name's); nothing to do (and no storage runs to list: a section has one
        // per column) when no registration overlaps the name's storage. It was guessed from
        // the first registration within 16 bytes per element: NPB UA's INTEGER EMO(2,8,2000)
        // then reached into the DOUBLE arrays after it, 16,000 runs per ACTUAL, and declared
        // their elements current on the host
        let elem = esize.max(1);
        let n_decl = extent(decl).iter().product::<i64>().max(0) as usize;
        let from = holder.map(|(&s, _)| s).unwrap_or(a);
        let cands: Vec<(usize, &Reg)> = self
            .regs
            .range(from..a + n_decl * elem)
            .filter(|(&start, r)| {
                start + r.bytes.max(1) > a && t.elem(r.var).max(1) == elem && start.abs_diff(a) % elem == 0
            })
            .map(|(&s, r)| (s, r))
            .collect();
        if cands.is_empty() {
            return vec![];
        }
        let runs = storage_runs(decl, bx);
        let mut out = vec![];
        for (start, r) in cands {
            // the registration's first element as an offset in the name's storage, and the
            // runs that meet it (sorted and disjoint: found by bisection)
            let base = (start as i64 - a as i64) / elem as i64;
            let rext = extent(&r.bounds);
            let total: i64 = rext.iter().product();
            let rlo: Vec<i64> = r.bounds.iter().map(|b| b.0).collect();
            let mut rects = vec![];
            let first = runs.partition_point(|&(_, e)| e < base);
            for &(s, e) in runs[first..].iter().take_while(|&&(s, _)| s - base < total) {
                let (s, e) = ((s - base).max(0), (e - base).min(total - 1));
                if s <= e {
                    linear_boxes(&rlo, &rext, s, e, &mut rects);
                }
            }
            if !rects.is_empty() {
                out.push((start, r.var, Pcs::from_rects(r.bounds.len(), &rects)));
            }
        }
        out
    }
    /// Drop registrations overlapping `[start, start + bytes)`; with `flush` bring their
    /// data back to the host first.
    fn drop_overlapping(&mut self, start: usize, bytes: usize, flush: bool, src: i64) {
        let end = start + bytes.max(1);
        let hits: Vec<usize> = self
            .regs
            .range(..end)
            .filter(|(&s, r)| s + r.bytes.max(1) > start)
            .map(|(&s, _)| s)
            .collect();
        for s in hits {
            let r = self.regs.remove(&s).unwrap();
            let t = self.t();
            if flush {
                let whole = t.whole(r.var);
                if let Err(e) = t.get_actual(r.var, &whole) {
                    fail(src, e);
                }
            }
            t.drop_var(r.var);
        }
    }
    /// Find or make the registration of the array at `ptr`.
    fn register(&mut self, ptr: *mut u8, bounds: Rect, elem: usize, name: &str, src: i64) -> usize {
        let start = ptr as usize;
        let n: usize = bounds
            .iter()
            .map(|(l, h)| (h - l + 1).max(0) as usize)
            .product();
        let bytes = n * elem;
        if let Some(r) = self.regs.get(&start) {
            if r.bounds == bounds && r.bytes == bytes {
                return start;
            }
        }
        self.drop_overlapping(start, bytes, true, src);
        let var = unsafe { self.t().register(name, ptr, &bounds, elem) };
        self.regs.insert(
            start,
            Reg {
                var,
                bytes,
                bounds,
                name: name.to_string(),
                dirty: false,
            },
        );
        start
    }
    /// The part of a registration the accelerator holds (its representative's box).
    fn rep_part(&self, r: &Reg) -> Option<Pcs> {
        let t = self.tracker.as_ref()?;
        let rep = t.rep(r.var, ACC)?;
        Some(Pcs::from_rect(&rep.bounds).intersect(&t.whole(r.var)))
    }
    /// Push the host's values of a dirty registration to the accelerator.
    fn refresh(&mut self, start: usize, src: i64) {
        let Some(r) = self.regs.get(&start) else {
            return;
        };
        if !r.dirty {
            return;
        }
        let var = r.var;
        let part = self.rep_part(r);
        if let Some(part) = part {
            if let Err(e) = self.t().actualize(var, ACC, &part) {
                fail(src, e);
            }
        }
        self.regs.get_mut(&start).unwrap().dirty = false;
    }
    fn program(&mut self, src: i64) -> ProgId {
        if let Some(p) = self.prog {
            return p;
        }
        let Some(code) = self.source.clone() else {
            fail(src, "no kernels were loaded (converter bug)");
        };
        match self.t().device(ACC).load_program(&code) {
            Ok(p) => {
                self.prog = Some(p);
                p
            }
            Err(e) => fail(src, format!("the kernels do not compile: {e}")),
        }
    }
}

/// Start-up (called by `sapfor_init`): the accelerator named by `SAPFOR_DEVICES`
/// (`host` = none, the default; `emu`; `cuda`, which falls back to the host with one line
/// when no CUDA driver is present) and `SAPFOR_COMPARE=atol,rtol` for comparative debugging.
/// Returns an error message for a bad setting.
pub fn init_from_env(rank: usize, size: usize) -> Result<(), String> {
    let devs = std::env::var("SAPFOR_DEVICES").unwrap_or_default();
    let devs = devs.trim().to_ascii_lowercase();
    let kind = match devs.as_str() {
        "" | "host" => None,
        "emu" | "host,emu" | "emu,host" => Some(DeviceKind::Emu),
        "cuda" | "host,cuda" | "cuda,host" => Some(DeviceKind::Cuda),
        other => {
            return Err(format!(
                "SAPFOR_DEVICES={other}: expected host, emu, cuda, host,emu or host,cuda"
            ))
        }
    };
    let split = if devs.contains("host,") || devs.contains(",host") {
        let w = std::env::var("SAPFOR_WEIGHTS").unwrap_or_default();
        if w.trim().is_empty() {
            Some((1.0, 1.0))
        } else {
            let v: Vec<Option<f64>> = w.split(',').map(|x| x.trim().parse().ok()).collect();
            match v.as_slice() {
                [Some(h), Some(a)] if *h >= 0.0 && *a >= 0.0 && h + a > 0.0 => Some((*h, *a)),
                _ => {
                    return Err(format!(
                        "SAPFOR_WEIGHTS={w}: expected HOST,ACCELERATOR relative speeds"
                    ))
                }
            }
        }
    } else {
        None
    };
    let compare = match std::env::var("SAPFOR_COMPARE") {
        Ok(s) if !s.trim().is_empty() => {
            let v: Vec<Option<f64>> = s.split(',').map(|x| x.trim().parse().ok()).collect();
            match v.as_slice() {
                [Some(a), Some(r)] if *a >= 0.0 && *r >= 0.0 => {
                    Some(Tolerance { atol: *a, rtol: *r })
                }
                _ => return Err(format!("SAPFOR_COMPARE={s}: expected ATOL,RTOL")),
            }
        }
        _ => None,
    };
    init(kind, compare, rank);
    with(|g| {
        if g.tracker.as_ref().is_some_and(|t| t.device_count() > 1) {
            g.split = split;
        }
        g.debug = std::env::var_os("SAPFOR_GPU_DEBUG").is_some();
        g.defer = size == 1 && g.split.is_none() && g.compare.is_none();
    });
    Ok(())
}

/// Start the accelerator `kind` (None: regions on the host) with optional comparative
/// debugging; `rank` 0 prints the fallback note when CUDA is not there.
pub fn init(kind: Option<DeviceKind>, compare: Option<Tolerance>, rank: usize) {
    let mut accs: Vec<Box<dyn device::Device>> = vec![];
    if let Some(k) = kind {
        let (d, note) = device::open(k);
        if let Some(n) = note {
            if rank == 0 {
                say!("{n}");
            }
        }
        if d.kind() != DeviceKind::Host {
            accs.push(d);
        }
    }
    let on = !accs.is_empty();
    if compare.is_some() && !on && rank == 0 {
        say!(
            "sapfor: --compare needs an accelerator (--devices emu or cuda); nothing is compared"
        );
    }
    with(|g| {
        *g = Gpu::default();
        g.tracker = Some(Tracker::new(accs));
        g.compare = if on { compare } else { None };
    });
    ACTIVE.with(|a| a.set(on));
}

/// The kernels of the program (CUDA C, NUL-terminated); compiled at the first launch.
///
/// # Safety
/// `src` must be a NUL-terminated string or null.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_program(src: *const c_char) {
    if !active() {
        return;
    }
    let s = cstr(src);
    with(|g| g.source = Some(s));
}

/// The program was converted for the host only (`sapfor build --host-only`, what `sapfor
/// run` builds unless `--devices` names an accelerator): its regions were left out, so an
/// accelerator SAPFOR_DEVICES names has nothing to run; process 0 says so once and the
/// program runs on the host.
#[no_mangle]
pub extern "C" fn sapfor_gpu_host_only() {
    if !active() {
        return;
    }
    let rank = crate::sapfor_rank() as usize;
    if rank == 0 {
        say!(
            "sapfor: this executable was built for the host only (sapfor build --host-only): \
             its regions run on the host, not on the accelerator SAPFOR_DEVICES names; \
             build it without --host-only to run them there"
        );
    }
    // (started again without an accelerator, as for SAPFOR_DEVICES=host)
    init(None, None, rank);
}

/// 1 when regions run on an accelerator.
#[no_mangle]
pub extern "C" fn sapfor_gpu_active() -> i32 {
    active() as i32
}

/// 1 when the host version of a region's loop must run: no accelerator, `--compare`, or a
/// loop split between the host and the accelerator (the host loop then runs over
/// `sapfor_gpu_hlo() .. sapfor_gpu_hhi()` of its outermost loop).
#[no_mangle]
pub extern "C" fn sapfor_gpu_host_loop() -> i32 {
    if !active() {
        return 1;
    }
    with(|g| g.compare.is_some() || g.split_done.as_ref().is_some_and(|d| d.host.1 >= d.host.0))
        as i32
}

/// One array of a region (a clause item, or an array the region uses without a clause, then
/// INOUT as a whole): `access` 1 IN, 2 OUT, 3 INOUT, 4 LOCAL, 5 INLOCAL; `h` the distributed
/// array's handle or -1; `alo..ahi` the bounds of the host array (for a distributed array
/// its allocated block, global indices); `lo..hi` the item's section. The elements a region
/// reads are the section within the host array (shadow edges included); those it writes,
/// for a distributed array, the section within the owned block.
///
/// # Safety
/// `a` is the array's storage; the bound arrays hold `rank` elements; `name` is
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_use(
    a: *mut u8,
    name: *const c_char,
    access: i32,
    h: i64,
    rank: i64,
    alo: *const i64,
    ahi: *const i64,
    lo: *const i64,
    hi: *const i64,
    elem: i64,
    src: i64,
) {
    if !active() {
        return;
    }
    let access = match access {
        1 => Access::In,
        2 => Access::Out,
        3 => Access::InOut,
        4 => Access::Local,
        5 => Access::InLocal,
        a => fail(src, format!("bad access code {a} (converter bug)")),
    };
    let alloc = rect(rank, alo, ahi);
    let sect = rect(rank, lo, hi);
    if alloc.iter().any(|(l, h)| h < l) {
        return; // nothing here (a process that owns no block)
    }
    let name = cstr(name);
    let read = Pcs::from_rect(&sect).intersect(&Pcs::from_rect(&alloc));
    let mut write = read.clone();
    if h >= 0 {
        let own: Rect = (1..=rank as i32)
            .map(|d| (crate::sapfor_lb(h, d), crate::sapfor_ub(h, d)))
            .collect();
        write = write.intersect(&Pcs::from_rect(&own));
    }
    with(|g| {
        let start = g.register(a, alloc, elem.max(1) as usize, &name, src);
        let var = g.regs[&start].var;
        g.pending.push((
            RegionUse {
                var,
                access,
                part: read,
            },
            RegionUse {
                var,
                access,
                part: write,
            },
        ));
    })
}

/// Region entry: representatives cover every item, inputs are made actual on the
/// accelerator (only stale elements move).
#[no_mangle]
pub extern "C" fn sapfor_gpu_region_enter(src: i64) {
    if !active() {
        return;
    }
    with(|g| {
        if g.open.is_some() {
            // left by a jump out of the previous region: close it first
            close(g);
        }
        let items = std::mem::take(&mut g.pending);
        let enter: Vec<RegionUse> = items.iter().map(|x| x.0.clone()).collect();
        let exit: Vec<RegionUse> = items.into_iter().map(|x| x.1).collect();
        let before = g.t().totals();
        // split between host and accelerator: each launch makes current what its part reads
        let ensure: Vec<RegionUse> = if g.split.is_some() {
            enter
                .into_iter()
                .map(|u| RegionUse {
                    access: Access::Out,
                    ..u
                })
                .collect()
        } else {
            enter
        };
        if let Err(e) = g.t().region_enter(ACC, &ensure) {
            fail(src, e);
        }
        g.open = Some(Open { src, exit, before });
    })
}

fn close(g: &mut Gpu) {
    let Some(o) = g.open.take() else { return };
    // Outputs were marked by each kernel as it ran (its part, when a loop is split with
    // the host) and by host code as it wrote; what is left is forgetting LOCAL data.
    for r in g.regs.values_mut() {
        r.dirty = false;
    }
    let locals: Vec<RegionUse> = o
        .exit
        .iter()
        .filter(|u| u.access.local())
        .cloned()
        .collect();
    g.t().region_exit(ACC, &locals);
    let after = g.t().totals();
    let st = g.regions.entry(o.src).or_default();
    st.runs += 1;
    st.d.add(&after.minus(&o.before));
}

/// Region exit: LOCAL items are forgotten (the outputs were marked as the kernels ran) and
/// the region's counters are taken. `_src` is the region's position, as at its entry.
#[no_mangle]
pub extern "C" fn sapfor_gpu_region_exit(_src: i64) {
    if !active() {
        return;
    }
    with(close)
}

/// Host code inside a region (a statement, or a loop that has no kernel) is about to use the
/// array at `a`: its host copy is made current; with `writes` the host's values become the
/// newest and reach the accelerator before its next kernel.
///
/// # Safety
/// `a` is the array's storage.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_host_uses(a: *const u8, writes: i32, src: i64) {
    if !active() {
        return;
    }
    with(|g| {
        let start = a as usize;
        let Some(r) = g.reg_at(start) else { return };
        let var = r.var;
        let t = g.t();
        let whole = t.whole(var);
        if let Err(e) = t.get_actual(var, &whole) {
            fail(src, e);
        }
        if writes != 0 {
            t.declare_actual(var, &whole);
            let in_region = g.open.is_some();
            g.regs.get_mut(&start).unwrap().dirty = in_region;
        }
    })
}

/// Kernel argument: the array at `a` (its representative's pointer, then `lo, hi` per
/// dimension); `ty` its element type (as in `sapfor_gpu_arg_red`), `written` 1 when the loop
/// assigns it. `wdim, wlo, whi` / `rdim, rlo, rhi`: the dimension its written / read
/// elements follow the outermost loop variable in (`A(.., v + c, ..)`, c in lo..hi), 0 when
/// not known, -1 when the loop has no such references (for splitting the loop between host
/// and accelerator).
///
/// # Safety
/// `a` is the array's storage.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sapfor_gpu_arg_array(
    a: *const u8,
    ty: i32,
    written: i32,
    src: i64,
    wdim: i32,
    wlo: i64,
    whi: i64,
    rdim: i32,
    rlo: i64,
    rhi: i64,
) {
    with(|g| {
        let start = a as usize;
        g.refresh(start, src);
        let Some(r) = g.reg_at(start) else {
            fail(
                src,
                "an array of the loop is not known to the region (converter bug)",
            );
        };
        let (var, name) = (r.var, r.name.clone());
        let Some(rep) = g.t().rep(var, ACC).cloned() else {
            fail(
                src,
                format!("{name} has no copy on the accelerator (not in the region's clauses)"),
            );
        };
        g.args.push(KArg::Ptr(rep.ptr));
        for (l, h) in rep.bounds {
            g.args.push(KArg::I64(l));
            g.args.push(KArg::I64(h));
        }
        let ty = ElemTy::from_code(ty).unwrap_or(ElemTy::Int);
        g.arg_arrays.push(ArgArray {
            start,
            ty,
            written: written != 0,
            write: Slab::new(wdim, wlo, whi),
            read: Slab::new(rdim, rlo, rhi),
        });
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
        if g.first_loop.is_none() {
            g.first_loop = Some(g.args.len());
        }
        g.args.extend([KArg::I64(lo), KArg::I64(hi), KArg::I64(st)]);
        g.trips.push(if st == 0 {
            0
        } else {
            ((hi - lo + st) / st).max(0)
        });
    })
}

fn red_op(op: i32) -> Option<RedOp> {
    Some(match op {
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
        _ => return None,
    })
}

fn iterations(g: &Gpu) -> i64 {
    g.trips.iter().product::<i64>().max(1)
}

/// A reduction of the next kernel: `op` 1 SUM, 2 PRODUCT, 3 MAX, 4 MIN, 5 AND, 6 OR, 7 EQV,
/// 8 NEQV, 9 MAXLOC, 10 MINLOC; `ty` 1 INTEGER, 2 INTEGER(8), 3 REAL, 4 DOUBLE PRECISION,
/// 5 LOGICAL; `x` the variable (value before the loop in, result out); `keep` 1 when the
/// variable lives as long as the program (main program, COMMON, SAVE), so that with one
/// process its result may stay on the accelerator until the host reads it
/// (`sapfor_gpu_get_scalar`, `GET_ACTUAL`). Pushes the partial buffer; MAXLOC/MINLOC index
/// variables follow with `sapfor_gpu_arg_red_loc`.
///
/// # Safety
/// `x` must stay valid until the launch.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_arg_red(op: i32, ty: i32, x: *mut u8, keep: i32, src: i64) {
    let Some(op) = red_op(op) else {
        fail(src, format!("bad reduction code {op} (converter bug)"));
    };
    with(|g| {
        // the loop starts from the variable's current value
        settle(g, x as usize);
        let n = iterations(g) as usize;
        let buf = match g.t().device(ACC).alloc(n * elem_of(ty)) {
            Ok(b) => b,
            Err(e) => fail(src, e),
        };
        g.args.push(KArg::Ptr(buf));
        g.reds.push(Red {
            op,
            ty,
            host: x,
            keep: keep != 0,
            locs: vec![],
            buf,
            loc_bufs: vec![],
        });
    })
}

/// An index variable of the last MAXLOC/MINLOC reduction (default INTEGER).
///
/// # Safety
/// `x` must stay valid until the launch.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_arg_red_loc(x: *mut i32, src: i64) {
    with(|g| {
        let n = iterations(g) as usize;
        let buf = match g.t().device(ACC).alloc(n * 4) {
            Ok(b) => b,
            Err(e) => fail(src, e),
        };
        g.args.push(KArg::Ptr(buf));
        let Some(r) = g.reds.last_mut() else {
            fail(
                src,
                "an index variable without its reduction (converter bug)",
            );
        };
        r.locs.push(x);
        r.loc_bufs.push(buf);
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

/// Fetches the folded result of `r` (and its MAXLOC/MINLOC indices) and combines it into the
/// host variables; returns the bytes moved.
fn fetch_fold(dev: &mut dyn device::Device, r: &Red, src: i64) -> u64 {
    let one = [(1i64, 1i64)];
    let sz = elem_of(r.ty);
    let mut part = [0u8; 8];
    let mut locs = vec![0i32; r.loc_bufs.len()];
    // SAFETY: the destinations are local buffers of the copied sizes
    let ok = unsafe {
        dev.to_host(part.as_mut_ptr(), &one, r.buf, &one, sz, &one).is_ok()
            && r.loc_bufs.iter().zip(locs.iter_mut()).all(|(b, l)| {
                dev.to_host(l as *mut i32 as *mut u8, &one, *b, &one, 4, &one).is_ok()
            })
    };
    if !ok {
        fail(src, "cannot fetch a reduction result");
    }
    // SAFETY: `r.host` and `r.locs` are the program's variables registered by
    // `sapfor_gpu_arg_red`: fetched right after the launch, or (kept results) variables that
    // live as long as the program (`keep`)
    unsafe {
        match r.ty {
            1 | 5 => fold_into::<i32>(r, &part, &locs),
            2 => fold_into::<i64>(r, &part, &locs),
            3 => fold_into::<f32>(r, &part, &locs),
            _ => fold_into::<f64>(r, &part, &locs),
        }
    }
    (sz + 4 * locs.len()) as u64
}

fn free_red(dev: &mut dyn device::Device, r: &Red) {
    dev.free(r.buf);
    for b in &r.loc_bufs {
        dev.free(*b);
    }
}

/// The host is about to read (or the next loop starts from) the variable at `addr`: a
/// reduction result kept on the accelerator is fetched and combined with the value the
/// variable had before its loop.
fn settle(g: &mut Gpu, addr: usize) {
    // the variable itself, or one of its MAXLOC/MINLOC index variables
    let key = if g.deferred.contains_key(&addr) {
        addr
    } else {
        match g.deferred.iter().find(|(_, d)| d.red.locs.iter().any(|&l| l as usize == addr)) {
            Some((&k, _)) => k,
            None => return,
        }
    };
    let Some(d) = g.deferred.remove(&key) else {
        return;
    };
    // SAFETY: as in `fetch_fold`
    unsafe {
        std::ptr::copy_nonoverlapping(d.init.as_ptr(), d.red.host, d.init.len());
        for (&l, v) in d.red.locs.iter().zip(&d.init_locs) {
            *l = *v;
        }
    }
    let t = g.t();
    let bytes = fetch_fold(t.device(ACC), &d.red, d.src);
    free_red(t.device(ACC), &d.red);
    t.note_transfer(ACC, 0, bytes);
}

/// Drops the result kept on the accelerator for the variable at `addr` (the host's value is
/// the newest); false when there is none.
fn discard(g: &mut Gpu, addr: usize) -> bool {
    let Some(d) = g.deferred.remove(&addr) else {
        return false;
    };
    free_red(g.t().device(ACC), &d.red);
    true
}

/// Every reduction result kept on the accelerator: fetched (`get`), or dropped because the
/// host's value is the newest (`ACTUAL`).
fn settle_all(g: &mut Gpu, get: bool) {
    let addrs: Vec<usize> = g.deferred.keys().copied().collect();
    for a in addrs {
        if get {
            settle(g, a);
        } else {
            discard(g, a);
        }
    }
}

/// `GET_ACTUAL` of a scalar (or a host statement of a region, or a loop on the host, that
/// reads it): a reduction result of the accelerator not yet fetched is fetched now.
///
/// # Safety
/// Only the address is used.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_get_scalar(x: *const u8) {
    if active() {
        with(|g| settle(g, x as usize));
    }
}

/// Before a CALL outside regions: every reduction result kept on the accelerator is fetched
/// (the procedure may read the variables through COMMON or its arguments).
#[no_mangle]
pub extern "C" fn sapfor_gpu_get_scalars() {
    if active() {
        with(|g| settle_all(g, true));
    }
}

/// `ACTUAL` of a scalar (or a host statement of a region that assigns it without reading
/// it): the host's value is the newest; a result kept on the accelerator is dropped.
///
/// # Safety
/// Only the address is used.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_put_scalar(x: *const u8) {
    if !active() {
        return;
    }
    with(|g| {
        if !discard(g, x as usize) {
            // an index variable of a MAXLOC/MINLOC assigned alone: the value keeps its result
            settle(g, x as usize);
        }
    })
}

/// Launch kernel `name` (NUL-terminated) with the pushed arguments; block `bx*by*bz`;
/// `single` = 1 for single-thread (ACROSS) kernels. Reductions are folded on the device and
/// combined into the host variables. With `--compare` the arrays of the kernel are made
/// equal on both sides first, and the accelerator's reduction results are kept aside (the
/// host variables are restored for the host loop).
///
/// # Safety
/// `name` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_launch(
    name: *const c_char,
    bx: i32,
    by: i32,
    bz: i32,
    single: i32,
    src: i64,
) {
    let name = cstr(name);
    with(|g| {
        let prog = g.program(src);
        let mut args = std::mem::take(&mut g.args);
        let mut trips = std::mem::take(&mut g.trips);
        let reds = std::mem::take(&mut g.reds);
        let arrays = std::mem::take(&mut g.arg_arrays);
        let first_loop = g.first_loop.take();
        let comparing = g.compare.is_some();
        if let (Some(w), Some(pos), false, 0) = (g.split, first_loop, comparing, single) {
            split_launch(g, w, pos, &arrays, &mut args, &mut trips, src);
        } else if g.split.is_some() {
            // not split (ACROSS, compare): the accelerator does all, from current data
            for x in &arrays {
                let r = &g.regs[&x.start];
                let var = r.var;
                if let Some(part) = g.rep_part(r) {
                    if let Err(e) = g.t().actualize(var, ACC, &part) {
                        fail(src, e);
                    }
                }
            }
        }
        if comparing {
            // same inputs on both sides: every element of the kernel's arrays that the
            // accelerator holds is made current there and on the host
            for x in &arrays {
                let r = &g.regs[&x.start];
                let var = r.var;
                if let Some(part) = g.rep_part(r) {
                    let t = g.t();
                    if let Err(e) = t
                        .get_actual(var, &part)
                        .and_then(|_| t.actualize(var, ACC, &part))
                    {
                        fail(src, e);
                    }
                }
            }
        }
        let saved: Vec<(Vec<u8>, Vec<i32>)> = reds
            .iter()
            .map(|r| {
                let sz = elem_of(r.ty);
                (
                    std::slice::from_raw_parts(r.host, sz).to_vec(),
                    r.locs.iter().map(|&l| *l).collect(),
                )
            })
            .collect();
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
        let keep = g.defer && !comparing && g.split_done.is_none() && iters > 0;
        let t = g.tracker.as_mut().expect("accelerator started");
        let t0 = std::time::Instant::now();
        let dev = t.device(ACC);
        if iters > 0 {
            if let Err(e) = dev
                .launch(prog, &name, grid, block, &args)
                .and_then(|_| dev.sync())
            {
                fail(src, format!("kernel {name}: {e}"));
            }
        }
        t.note_kernel(ACC, t0.elapsed().as_secs_f64());
        if !reds.is_empty() {
            let bufs: Vec<DevPtr> = reds
                .iter()
                .flat_map(|r| std::iter::once(r.buf).chain(r.loc_bufs.iter().copied()))
                .collect();
            let dev = t.device(ACC);
            if iters > 0 {
                if let Err(e) = fold_on_device(dev, prog, &format!("{name}_red"), iters, &bufs) {
                    fail(src, format!("kernel {name}_red: {e}"));
                }
            }
            // with `keep`, a result the host reads later (GET_ACTUAL, a host statement, the
            // next loop that uses it) or never stays on the accelerator until then
            let mut fetched = 0u64;
            for (r, (init, init_locs)) in reds.iter().zip(saved.iter().cloned()) {
                if keep && r.keep {
                    let red = r.clone();
                    g.deferred.insert(r.host as usize, Deferred { red, init, init_locs, src });
                    continue;
                }
                if iters > 0 {
                    fetched += fetch_fold(t.device(ACC), r, src);
                }
                free_red(t.device(ACC), r);
            }
            t.note_transfer(ACC, 0, fetched);
        }
        if comparing {
            let mut cr = vec![];
            for (r, (val, locs)) in reds.iter().zip(saved) {
                let sz = elem_of(r.ty);
                let dev_val = std::slice::from_raw_parts(r.host, sz).to_vec();
                let dev_locs: Vec<i32> = r.locs.iter().map(|&l| *l).collect();
                std::ptr::copy_nonoverlapping(val.as_ptr(), r.host, sz);
                for (&l, v) in r.locs.iter().zip(locs) {
                    *l = v;
                }
                cr.push((r.host, r.ty, dev_val, r.locs.clone(), dev_locs));
            }
            g.cmp = Some(Cmp {
                arrays,
                reds: cr,
                kernel: name,
            });
        } else if g.split_done.is_none() {
            // the kernel wrote its arrays on the accelerator: their output items (within the
            // owned block) are newest there from now on, so that host code of the region
            // (shadow edges and pipeline planes sent, statements) fetches them
            let written: Vec<usize> = arrays
                .iter()
                .filter(|x| x.written)
                .map(|x| x.start)
                .collect();
            for (var, part) in out_parts(g, &written) {
                g.t().mark_written(var, ACC, &part);
            }
        }
    })
}

/// The parts a kernel may write of the arrays at `starts`: their OUT / INOUT / LOCAL items
/// in the open region (within the owned block), or all their items when they have none of
/// those.
fn out_parts(g: &Gpu, starts: &[usize]) -> Vec<(VarId, Pcs)> {
    let Some(open) = g.open.as_ref() else {
        return vec![];
    };
    let mut marks = vec![];
    for start in starts {
        let var = g.regs[start].var;
        let mine: Vec<&RegionUse> = open.exit.iter().filter(|u| u.var == var).collect();
        let outs: Vec<&RegionUse> = mine
            .iter()
            .copied()
            .filter(|u| u.access.writes_out() || u.access.local())
            .collect();
        for u in if outs.is_empty() { mine } else { outs } {
            marks.push((var, u.part.clone()));
        }
    }
    marks
}

/// `--devices host,X`: the outermost loop's iterations are split by the relative speeds;
/// the accelerator takes the first part (so that MAXLOC/MINLOC ties still go to the first
/// occurrence: its result is folded before the host loop continues), the host the rest. Each
/// side first gets current copies of what its iterations read; what each wrote is marked
/// when the host part is done (`sapfor_gpu_loop_done`). A loop whose written elements do not
/// follow the outermost variable is not split.
#[allow(clippy::too_many_arguments)]
fn split_launch(
    g: &mut Gpu,
    w: (f64, f64),
    pos: usize,
    arrays: &[ArgArray],
    args: &mut [KArg],
    trips: &mut [i64],
    src: i64,
) {
    let (KArg::I64(lo), KArg::I64(hi), KArg::I64(st)) = (args[pos], args[pos + 1], args[pos + 2])
    else {
        return;
    };
    let splittable = arrays.iter().all(|x| !x.written || x.write.is_some()) && hi >= lo && st == 1;
    // (the parts as ranges of the outermost variable, low to high; a loop that is not split
    // runs whole on the accelerator with its own bounds, step and trip count: a downward or
    // stepped loop's were taken for an upward one's, and it ran nothing or past its end)
    let ((dlo, dhi), (hlo, hhi)) = if splittable {
        let parts = device::split_iterations(lo, hi, &[w.1, w.0]);
        args[pos] = KArg::I64(parts[0].0);
        args[pos + 1] = KArg::I64(parts[0].1);
        trips[0] = (parts[0].1 - parts[0].0 + 1).max(0);
        (parts[0], parts[1])
    } else {
        ((lo.min(hi), lo.max(hi)), (1, 0))
    };
    // `dev` current on the accelerator and (when the host has a part) `host` on the host
    let current = |t: &mut Tracker, var: VarId, dev: &Pcs, host: &Pcs| {
        let res = t.actualize(var, ACC, dev).and_then(|_| if hhi >= hlo { t.get_actual(var, host) } else { Ok(0) });
        if let Err(e) = res {
            fail(src, e);
        }
    };
    let mut done = vec![];
    for x in arrays {
        let r = &g.regs[&x.start];
        let var = r.var;
        let Some(rep) = g.rep_part(r) else { continue };
        let t = g.t();
        let whole = t.whole(var);
        let dev_reads = Slab::part(x.read, &rep, dlo, dhi);
        let host_reads = Slab::part(x.read, &whole, hlo, hhi);
        current(t, var, &dev_reads, &host_reads);
        if x.written {
            let outs: Vec<Pcs> = out_parts(g, &[x.start])
                .into_iter()
                .map(|(_, p)| p)
                .collect();
            // each side will claim the whole slab of its part of the outermost loop as its
            // newest (`sapfor_gpu_loop_done`), though its iterations may write only some
            // elements of it: the elements they leave must already be current on that side
            let t = g.t();
            for part in &outs {
                current(t, var, &Slab::part(x.write, part, dlo, dhi), &Slab::part(x.write, part, hlo, hhi));
            }
            done.push((var, x.write, outs));
        }
    }
    if g.debug {
        let tot = g.t().totals();
        say!(
            "split {src}: dev {dlo}..{dhi} host {hlo}..{hhi}; h2d so far {}",
            tot.h2d_bytes
        );
    }
    set_host_part(hlo, hhi);
    g.split_done = Some(SplitDone {
        arrays: done,
        dev: (dlo, dhi),
        host: (hlo, hhi),
    });
}

/// After the host version of a region's loop: with `--compare`, the accelerator's results
/// (arrays the loop writes, reduction values) are compared with the host's, differences are
/// reported with the region, the variable and the first differing indices, and the program
/// goes on with the host's values (copied to the accelerator too).
#[no_mangle]
pub extern "C" fn sapfor_gpu_loop_done(src: i64) {
    if !active() {
        return;
    }
    with(|g| {
        if let Some(sd) = g.split_done.take() {
            set_host_part(i32::MIN as i64 + 1, i32::MAX as i64);
            let t = g.t();
            for (var, slab, outs) in &sd.arrays {
                for part in outs {
                    t.mark_written(*var, ACC, &Slab::part(*slab, part, sd.dev.0, sd.dev.1));
                    t.mark_written(*var, HOST, &Slab::part(*slab, part, sd.host.0, sd.host.1));
                }
            }
            return;
        }
        let Some(c) = g.cmp.take() else { return };
        let Some(tol) = g.compare else { return };
        let region = match &g.open {
            Some(o) => crate::where_src(o.src),
            None => "?".into(),
        };
        let place = format!(
            "{region} (loop {}, kernel {})",
            crate::where_src(src),
            c.kernel
        );
        let mut differs = false;
        for x in c.arrays.iter().filter(|x| x.written) {
            let (start, ty) = (&x.start, x.ty);
            let r = &g.regs[start];
            let (var, name) = (r.var, r.name.clone());
            let Some(part) = g.rep_part(r) else { continue };
            let t = g.t();
            let rep = t.rep(var, ACC).cloned().unwrap();
            let elem = t.elem(var);
            let host_b = t.host_bounds(var).to_vec();
            let mut buf = vec![0u8; device::elements(&rep.bounds) * elem];
            let dev = t.device(ACC);
            if let Err(e) = unsafe {
                dev.to_host(
                    buf.as_mut_ptr(),
                    &rep.bounds,
                    rep.ptr,
                    &rep.bounds,
                    elem,
                    &rep.bounds,
                )
            } {
                fail(src, e);
            }
            let host_ptr = *start as *const u8;
            if let Some(d) = unsafe {
                compare::compare(ty, host_ptr, &host_b, buf.as_ptr(), &rep.bounds, &part, tol)
            } {
                say!("{}", compare::report(&place, &name, &d));
                differs = true;
            }
            // continue with the host's values, on both sides
            t.declare_actual(var, &part);
            if let Err(e) = t.actualize(var, ACC, &part) {
                fail(src, e);
            }
        }
        for (host, ty, dev_val, locs, dev_locs) in &c.reds {
            let ty = ElemTy::from_code(*ty).unwrap_or(ElemTy::Double);
            let (hp, dp) = (*host as *const u8, dev_val.as_ptr());
            let hl: Vec<i32> = locs.iter().map(|&l| unsafe { *l }).collect();
            if !unsafe { compare::agree(ty, hp, 0, dp, 0, tol) } || hl != *dev_locs {
                let loc = |v: &[i32]| {
                    if v.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " at ({})",
                            v.iter()
                                .map(|x| x.to_string())
                                .collect::<Vec<_>>()
                                .join(",")
                        )
                    }
                };
                say!(
                    "sapfor compare: region {place}: reduction result host {}{} accelerator {}{}; continuing with the host values",
                    unsafe { compare::element_text(ty, hp, 0) },
                    loc(&hl),
                    unsafe { compare::element_text(ty, dp, 0) },
                    loc(dev_locs)
                );
                differs = true;
            }
        }
        g.compared += 1;
        if differs {
            g.differing += 1;
        }
    })
}

/// `GET_ACTUAL` of the box `lo..hi` of the array named at `a` with declared bounds
/// `dlo..dhi` (nothing when its storage was never in a region). The name may be the registered
/// array itself or another name for part of its storage: a dummy argument given an element
/// or column of it (`CALL S(E(1,J))`), whatever its rank and bounds.
///
/// # Safety
/// The bound arrays hold `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_get_actual(
    a: *const u8,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
    dlo: *const i64,
    dhi: *const i64,
    src: i64,
    esize: i64,
) {
    if !active() {
        return;
    }
    let (bx, decl) = (rect(rank, lo, hi), rect(rank, dlo, dhi));
    with(|g| {
        for (_, var, set) in g.locate(a as usize, &decl, &bx, esize as usize) {
            if let Err(e) = g.t().get_actual(var, &set) {
                fail(src, e);
            }
        }
    })
}

/// `ACTUAL` of the box `lo..hi` of the array named at `a` with declared bounds `dlo..dhi`:
/// the host copy is the newest there (any name for the storage, as for GET_ACTUAL).
///
/// # Safety
/// The bound arrays hold `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_actual(
    a: *const u8,
    rank: i64,
    lo: *const i64,
    hi: *const i64,
    dlo: *const i64,
    dhi: *const i64,
    esize: i64,
) {
    if !active() {
        return;
    }
    let (bx, decl) = (rect(rank, lo, hi), rect(rank, dlo, dhi));
    with(|g| {
        let in_region = g.open.is_some();
        for (start, var, set) in g.locate(a as usize, &decl, &bx, esize as usize) {
            if let Some(r) = g.regs.get_mut(&start) {
                r.dirty |= in_region;
            }
            g.t().declare_actual(var, &set);
        }
    })
}

/// `GET_ACTUAL` / `ACTUAL` without a list: every variable.
#[no_mangle]
pub extern "C" fn sapfor_gpu_all(get: i32, src: i64) {
    if !active() {
        return;
    }
    with(|g| {
        settle_all(g, get != 0);
        let vars: Vec<VarId> = g.regs.values().map(|r| r.var).collect();
        let in_region = g.open.is_some();
        for r in g.regs.values_mut() {
            if get == 0 {
                r.dirty |= in_region;
            }
        }
        let t = g.t();
        for v in vars {
            let whole = t.whole(v);
            if get != 0 {
                if let Err(e) = t.get_actual(v, &whole) {
                    fail(src, e);
                }
            } else {
                t.declare_actual(v, &whole);
            }
        }
    })
}

/// The storage `[a, a + bytes)` is new (an automatic array at procedure entry, an
/// ALLOCATE): registrations of storage that was there before are dropped without copying.
///
/// # Safety
/// Only the address is used.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gpu_forget(a: *const u8, bytes: i64) {
    if !active() {
        return;
    }
    with(|g| g.drop_overlapping(a as usize, bytes.max(0) as usize, false, 0))
}

/// Called by the runtime before it reads the box `lo..hi` of a host array laid out as `l`
/// (sending shadow edges or pipeline planes, gathering for I/O, a remote element read): the
/// host copy is made current. Nothing for arrays never used in a region.
pub(crate) fn host_needs(a: *const u8, l: &Layout, lo: &[i64], hi: &[i64]) {
    with_box(a, l, lo, hi, |g, var, set| {
        g.t().get_actual(var, &set).map(|_| ())
    });
}

/// Called by the runtime after it wrote the box `lo..hi` of a host array laid out as `l`
/// (received shadow edges or planes, scattered input): the host copy is the newest there;
/// inside a region the accelerator gets the new values right away (its kernels come next).
pub(crate) fn host_wrote(a: *const u8, l: &Layout, lo: &[i64], hi: &[i64]) {
    with_box(a, l, lo, hi, |g, var, set| {
        let in_region = g.open.is_some();
        let t = g.t();
        t.declare_actual(var, &set);
        match t.rep(var, ACC) {
            Some(rep) if in_region => {
                let rep = Pcs::from_rect(&rep.bounds);
                t.actualize(var, ACC, &set.intersect(&rep)).map(|_| ())
            }
            _ => Ok(()),
        }
    });
}

/// The elements of the box `bx` of an array declared `decl` (column-major) as runs of
/// consecutive storage offsets `(first, last)`, adjacent runs merged.
fn storage_runs(decl: &Rect, bx: &Rect) -> Vec<(i64, i64)> {
    let rank = decl.len();
    if bx.iter().any(|(l, h)| h < l) {
        return vec![];
    }
    let ext: Vec<i64> = decl.iter().map(|(l, h)| (h - l + 1).max(1)).collect();
    let offset = |idx: &[i64]| -> i64 {
        let (mut off, mut stride) = (0, 1);
        for d in 0..rank {
            off += (idx[d] - decl[d].0) * stride;
            stride *= ext[d];
        }
        off
    };
    if rank == 0 {
        return vec![(0, 0)];
    }
    let mut runs: Vec<(i64, i64)> = vec![];
    let mut idx: Vec<i64> = bx.iter().map(|b| b.0).collect();
    loop {
        let s = offset(&idx);
        let e = s + (bx[0].1 - bx[0].0);
        match runs.last_mut() {
            Some(last) if last.1 + 1 == s => last.1 = e,
            _ => runs.push((s, e)),
        }
        // the next run: odometer over dimensions 2..rank
        let mut d = 1;
        loop {
            if d == rank {
                return runs;
            }
            if idx[d] < bx[d].1 {
                idx[d] += 1;
                break;
            }
            idx[d] = bx[d].0;
            d += 1;
        }
    }
}

/// The storage offsets `s..=e` of an array with lower bounds `lo` and extents `ext`
/// (column-major) as boxes of its indices (at most 2 * rank - 1 of them).
fn linear_boxes(lo: &[i64], ext: &[i64], s: i64, e: i64, out: &mut Vec<Rect>) {
    let r = ext.len();
    if r == 0 || s > e {
        return;
    }
    if r == 1 {
        out.push(vec![(lo[0] + s, lo[0] + e)]);
        return;
    }
    let m: i64 = ext[..r - 1].iter().product::<i64>().max(1);
    let (mut sl, mut el) = (s / m, e / m);
    let last = |k: i64, inner: Vec<Rect>, out: &mut Vec<Rect>| {
        for mut b in inner {
            b.push((lo[r - 1] + k, lo[r - 1] + k));
            out.push(b);
        }
    };
    if sl == el {
        let mut inner = vec![];
        linear_boxes(&lo[..r - 1], &ext[..r - 1], s % m, e % m, &mut inner);
        last(sl, inner, out);
        return;
    }
    if s % m != 0 {
        let mut inner = vec![];
        linear_boxes(&lo[..r - 1], &ext[..r - 1], s % m, m - 1, &mut inner);
        last(sl, inner, out);
        sl += 1;
    }
    if e % m != m - 1 {
        let mut inner = vec![];
        linear_boxes(&lo[..r - 1], &ext[..r - 1], 0, e % m, &mut inner);
        last(el, inner, out);
        el -= 1;
    }
    if sl <= el {
        let mut b: Rect = (0..r - 1).map(|d| (lo[d], lo[d] + ext[d] - 1)).collect();
        b.push((lo[r - 1] + sl, lo[r - 1] + el));
        out.push(b);
    }
}

/// `f(state, variable, elements)` for every registration overlapping the box `lo..hi` of
/// the host array at `a` laid out as `l`.
fn with_box(
    a: *const u8,
    l: &Layout,
    lo: &[i64],
    hi: &[i64],
    f: impl Fn(&mut Gpu, VarId, Pcs) -> Result<(), crate::device::DevError>,
) {
    if !active() {
        return;
    }
    let decl: Rect = l.alo.iter().copied().zip(l.ahi.iter().copied()).collect();
    let bx: Rect = lo.iter().copied().zip(hi.iter().copied()).collect();
    with(|g| {
        for (_, var, set) in g.locate(a as usize, &decl, &bx, l.esize) {
            if let Err(e) = f(g, var, set) {
                fail(0, e);
            }
        }
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
            let s = t.totals();
            for (p, v) in [
                (h2d, s.h2d_bytes as i64),
                (d2h, s.d2h_bytes as i64),
                (requests, s.requests as i64),
                (no_copy, s.requests_no_copy as i64),
            ] {
                if !p.is_null() {
                    *p = v;
                }
            }
        }
    })
}

/// The accelerator part of the performance report (`--profile`): the device, totals, one
/// line per region (runs, kernels and their time, transfers in and during the region,
/// requests without a copy) and what moved outside regions (GET_ACTUAL, I/O, shadow edges).
pub fn report_lines(where_: &dyn Fn(i64) -> String) -> Vec<String> {
    with(|g| {
        let mut out = vec![];
        let Some(t) = g.tracker.as_mut() else {
            return out;
        };
        if t.device_count() < 2 {
            return out;
        }
        let total = t.totals();
        let desc = t.device(ACC).describe();
        out.push(format!("accelerator: {desc}"));
        out.push(format!("accelerator total: {}", total.summary()));
        let mut inside = Stats::default();
        for (src, st) in &g.regions {
            inside.add(&st.d);
            out.push(format!(
                "region {}: runs {}; {}",
                where_(*src),
                st.runs,
                st.d.summary()
            ));
        }
        out.push(format!(
            "outside regions: {}",
            total.minus(&inside).summary()
        ));
        if g.compare.is_some() {
            out.push(format!(
                "compare: {} loops compared, {} with differences",
                g.compared, g.differing
            ));
        }
        out
    })
}

/// End of the program: the comparison summary (`--compare`) on standard error, then the
/// accelerator's memory is released.
pub fn finish(rank: usize, size: usize) {
    with(|g| {
        if g.compare.is_some() {
            let what = if g.differing == 0 {
                "no differences".to_string()
            } else {
                format!("{} with differences", g.differing)
            };
            say!(
                "sapfor compare (process {rank} of {size}): {} loops ran on the accelerator and on the host, {what}",
                g.compared
            );
        }
        *g = Gpu::default();
    });
    ACTIVE.with(|a| a.set(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of `bx` (declared `decl`) at storage offset `base` + its offset, as an
    /// index of the array declared `reg`: the brute-force answer `locate` must give.
    fn brute(decl: &Rect, bx: &Rect, reg: &Rect, base: i64) -> Pcs {
        let dext: Vec<i64> = decl.iter().map(|(l, h)| h - l + 1).collect();
        let rext: Vec<i64> = reg.iter().map(|(l, h)| h - l + 1).collect();
        let total: i64 = rext.iter().product();
        let mut rects = vec![];
        for idx in Pcs::from_rect(bx).elements() {
            let (mut off, mut stride) = (0, 1);
            for d in 0..idx.len() {
                off += (idx[d] - decl[d].0) * stride;
                stride *= dext[d];
            }
            let mut lin = base + off;
            if lin >= total {
                continue;
            }
            let mut r = vec![];
            for d in 0..rext.len() {
                r.push((reg[d].0 + lin % rext[d], reg[d].0 + lin % rext[d]));
                lin /= rext[d];
            }
            rects.push(r);
        }
        Pcs::from_rects(reg.len(), &rects)
    }

    fn by_runs(decl: &Rect, bx: &Rect, reg: &Rect, base: i64) -> Pcs {
        let rext: Vec<i64> = reg.iter().map(|(l, h)| h - l + 1).collect();
        let rlo: Vec<i64> = reg.iter().map(|b| b.0).collect();
        let total: i64 = rext.iter().product();
        let mut rects = vec![];
        for (s, e) in storage_runs(decl, bx) {
            let (s, e) = (base + s, (base + e).min(total - 1));
            if s <= e {
                linear_boxes(&rlo, &rext, s, e, &mut rects);
            }
        }
        assert!(rects.len() <= 64, "{} boxes", rects.len());
        Pcs::from_rects(reg.len(), &rects)
    }

    #[test]
    fn a_dummy_over_part_of_an_array_names_exactly_its_elements() {
        // E(7,5,3) with lower bounds (0,1,-1); dummies of rank 1 to 3 at several offsets,
        // boxes of every shape inside them
        let reg: Rect = vec![(0, 6), (1, 5), (-1, 1)];
        let dummies: Vec<Rect> = vec![
            vec![(1, 7)],
            vec![(0, 40)],
            vec![(1, 4), (1, 6)],
            vec![(-2, 2), (1, 3), (1, 2)],
        ];
        let mut checked = 0;
        for decl in &dummies {
            for base in [0i64, 1, 7, 13, 35, 60] {
                let mut boxes: Vec<Rect> = vec![decl.clone()];
                let d0 = decl[0];
                boxes.push(std::iter::once((d0.0 + 1, d0.1 - 1)).chain(decl[1..].iter().copied()).collect());
                boxes.push(decl.iter().map(|&(l, _)| (l, l)).collect());
                boxes.push(decl.iter().map(|&(_, h)| (h, h)).collect());
                boxes.push(decl.iter().map(|&(l, h)| ((l + h) / 2, h)).collect());
                for bx in boxes {
                    let want = brute(decl, &bx, &reg, base);
                    let got = by_runs(decl, &bx, &reg, base);
                    assert!(
                        got.is_subset(&want) && want.is_subset(&got),
                        "decl {decl:?} box {bx:?} base {base}: {} elements, want {}",
                        got.count(),
                        want.count()
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 4 * 6 * 5);
    }

    #[test]
    fn the_array_itself_under_other_bounds_is_translated() {
        // one run for a whole array, and a sub-box of the same shape keeps its shape
        assert_eq!(storage_runs(&vec![(1, 4), (1, 3)], &vec![(1, 4), (1, 3)]), vec![(0, 11)]);
        assert_eq!(storage_runs(&vec![(1, 4), (1, 3)], &vec![(2, 3), (2, 3)]), vec![(5, 6), (9, 10)]);
        let mut out = vec![];
        linear_boxes(&[1, 1], &[4, 3], 2, 9, &mut out);
        assert_eq!(out, vec![vec![(3, 4), (1, 1)], vec![(1, 2), (3, 3)], vec![(1, 4), (2, 2)]]);
    }
}
