//! Actuality tracking: where the current value of every element of every variable is.
//!
//! Per variable and per device (device 0 = the host, whose representative is the program's
//! own array) the tracker keeps the representative (an allocation with its bounds, a box of
//! the variable's index space) and the [`Pcs`] of the elements that hold the last assigned
//! value there. Everything is built on one primitive, the *actualization request*
//! ([`Tracker::actualize`]): make a set of elements actual on a device, copying only the
//! elements that are stale there, from a device where they are actual (accelerator to
//! accelerator goes through the host). Region entry/exit, `GET_ACTUAL` and `ACTUAL` are
//! expressed with it (see `docs/gpu.md`). Bytes moved per direction and requests that needed
//! no copy are counted per device.

use crate::compare::ElemTy;
use crate::device::reduce::{combine, RedOp, RedValue};
use crate::device::{Bounds, DevError, DevPtr, Device, HostArray};
use crate::pcs::{Pcs, Rect};
use std::collections::BTreeMap;
use std::time::Instant;

/// Boxes a copy's actual set may have before it drops what a writer also holds.
const FRAGMENTED: usize = 16;

pub type VarId = usize;
/// Index of a device in the tracker: 0 is the host.
pub type DevId = usize;
pub const HOST: DevId = 0;

#[derive(Clone, Debug)]
pub struct Rep {
    pub ptr: DevPtr,
    pub bounds: Rect,
}

struct Var {
    name: String,
    elem: usize,
    host: HostArray,
    /// Per device (index 0 unused: the host representative is `host`).
    reps: Vec<Option<Rep>>,
    actual: Vec<Pcs>,
}

/// Traffic and request counters of one device (index 0: host-side counters).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Bytes copied host -> this device, and how many box copies.
    pub h2d_bytes: u64,
    pub h2d_copies: u64,
    /// Bytes copied this device -> host, and how many box copies.
    pub d2h_bytes: u64,
    pub d2h_copies: u64,
    /// Seconds spent copying (both directions).
    pub copy_secs: f64,
    /// Actualization requests made for this device, and those satisfied without any copy.
    pub requests: u64,
    pub requests_no_copy: u64,
    /// Bytes moved inside the device when a representative was extended.
    pub extend_bytes: u64,
    /// Kernel launches on this device and seconds spent in them (synchronised).
    pub kernels: u64,
    pub kernel_secs: f64,
}

impl Stats {
    /// Add `b`'s counters.
    pub fn add(&mut self, b: &Stats) {
        self.h2d_bytes += b.h2d_bytes;
        self.h2d_copies += b.h2d_copies;
        self.d2h_bytes += b.d2h_bytes;
        self.d2h_copies += b.d2h_copies;
        self.copy_secs += b.copy_secs;
        self.requests += b.requests;
        self.requests_no_copy += b.requests_no_copy;
        self.extend_bytes += b.extend_bytes;
        self.kernels += b.kernels;
        self.kernel_secs += b.kernel_secs;
    }

    /// What was counted since `before` (an earlier reading of the same counters).
    pub fn minus(&self, before: &Stats) -> Stats {
        Stats {
            h2d_bytes: self.h2d_bytes - before.h2d_bytes,
            h2d_copies: self.h2d_copies - before.h2d_copies,
            d2h_bytes: self.d2h_bytes - before.d2h_bytes,
            d2h_copies: self.d2h_copies - before.d2h_copies,
            copy_secs: self.copy_secs - before.copy_secs,
            requests: self.requests - before.requests,
            requests_no_copy: self.requests_no_copy - before.requests_no_copy,
            extend_bytes: self.extend_bytes - before.extend_bytes,
            kernels: self.kernels - before.kernels,
            kernel_secs: self.kernel_secs - before.kernel_secs,
        }
    }

    /// The counters as one line of the performance report.
    pub fn summary(&self) -> String {
        format!(
            "kernels {} {:.6} s; host->device {} B in {} copies, device->host {} B in {} copies, {:.6} s; {} of {} actualization requests without a copy",
            self.kernels,
            self.kernel_secs,
            self.h2d_bytes,
            self.h2d_copies,
            self.d2h_bytes,
            self.d2h_copies,
            self.copy_secs,
            self.requests_no_copy,
            self.requests
        )
    }
}

/// How a region uses a variable (the REGION clauses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    In,
    Out,
    InOut,
    Local,
    InLocal,
}

impl Access {
    pub fn reads(self) -> bool {
        matches!(self, Access::In | Access::InOut | Access::InLocal)
    }
    pub fn writes_out(self) -> bool {
        matches!(self, Access::Out | Access::InOut)
    }
    pub fn local(self) -> bool {
        matches!(self, Access::Local | Access::InLocal)
    }
}

/// One clause item of a region: variable, access, and the elements concerned (for a
/// distributed array: the part the executing device works on, shadows included for reads).
#[derive(Clone, Debug)]
pub struct RegionUse {
    pub var: VarId,
    pub access: Access,
    pub part: Pcs,
}

/// A reduction result left on an accelerator: element 0 of `buf` holds the loop's
/// contribution (after `fold_on_device`); the host variable holds the value before the loop.
/// It is fetched and combined only when the host asks for the variable (GET_ACTUAL), and
/// dropped when the host assigns the variable first (ACTUAL). Only for reductions without
/// MAXLOC/MINLOC indices.
#[derive(Clone, Debug)]
pub struct PendingReduction {
    pub dev: DevId,
    pub op: RedOp,
    pub ty: ElemTy,
    pub buf: DevPtr,
}

pub struct Tracker {
    /// Accelerators; device id `k` is `devices[k - 1]`.
    devices: Vec<Box<dyn Device>>,
    vars: Vec<Var>,
    stats: Vec<Stats>,
    pending: BTreeMap<VarId, PendingReduction>,
}

unsafe fn fold_scalar<T: RedValue>(op: RedOp, host: *mut u8, part: &[u8]) {
    let p: T = std::ptr::read_unaligned(part.as_ptr() as *const T);
    let mut v: T = std::ptr::read_unaligned(host as *const T);
    combine(op, &mut v, &mut [], &[p], &[]);
    std::ptr::write_unaligned(host as *mut T, v);
}

fn full(b: &Bounds) -> Pcs {
    Pcs::from_rect(b)
}

impl Tracker {
    pub fn new(accelerators: Vec<Box<dyn Device>>) -> Tracker {
        let n = accelerators.len() + 1;
        Tracker {
            devices: accelerators,
            vars: vec![],
            stats: vec![Stats::default(); n],
            pending: BTreeMap::new(),
        }
    }
    pub fn device_count(&self) -> usize {
        self.devices.len() + 1
    }
    pub fn device(&mut self, d: DevId) -> &mut dyn Device {
        assert!(d != HOST, "device 0 is the host");
        self.devices[d - 1].as_mut()
    }
    pub fn stats(&self, d: DevId) -> &Stats {
        &self.stats[d]
    }
    pub fn reset_stats(&mut self) {
        for s in &mut self.stats {
            *s = Stats::default();
        }
    }
    /// Total bytes host -> devices and devices -> host.
    pub fn total_bytes(&self) -> (u64, u64) {
        self.stats
            .iter()
            .fold((0, 0), |(a, b), s| (a + s.h2d_bytes, b + s.d2h_bytes))
    }

    /// Register a host variable: `ptr` is its storage (column-major, bounds `bounds`, rank 0 for
    /// scalars). Initially every element is actual on the host only.
    ///
    /// # Safety
    /// `ptr` must stay valid (and not move) while the tracker may copy to or from it.
    pub unsafe fn register(
        &mut self,
        name: &str,
        ptr: *mut u8,
        bounds: &Bounds,
        elem: usize,
    ) -> VarId {
        let n = self.device_count();
        let mut actual = vec![Pcs::empty(bounds.len()); n];
        actual[HOST] = full(bounds);
        self.vars.push(Var {
            name: name.into(),
            elem,
            host: HostArray {
                ptr,
                bounds: bounds.to_vec(),
            },
            reps: vec![None; n],
            actual,
        });
        self.vars.len() - 1
    }
    pub fn name(&self, v: VarId) -> &str {
        &self.vars[v].name
    }
    pub fn host_bounds(&self, v: VarId) -> &Bounds {
        &self.vars[v].host.bounds
    }
    /// The whole variable as a set.
    pub fn whole(&self, v: VarId) -> Pcs {
        full(&self.vars[v].host.bounds)
    }
    pub fn actual_on(&self, v: VarId, d: DevId) -> &Pcs {
        &self.vars[v].actual[d]
    }
    /// The representative of `v` on accelerator `d` (for kernel arguments).
    pub fn rep(&self, v: VarId, d: DevId) -> Option<&Rep> {
        self.vars[v].reps[d].as_ref()
    }

    /// Make sure the representative of `v` on `d` covers `need`, extending it (to the hull of
    /// the old extent and `need`) and moving the elements that are actual in it.
    pub fn ensure_rep(&mut self, v: VarId, d: DevId, need: &Pcs) -> Result<(), DevError> {
        if d == HOST || need.is_empty() {
            return Ok(());
        }
        let var = &self.vars[v];
        let elem = var.elem;
        let old = var.reps[d].clone();
        let want = match &old {
            Some(r) => {
                if need.is_subset(&Pcs::from_rect(&r.bounds)) {
                    return Ok(());
                }
                Pcs::from_rect(&r.bounds).union(need).hull().unwrap()
            }
            None => need.hull().unwrap(),
        };
        let dev = self.devices[d - 1].as_mut();
        let bytes = crate::device::elements(&want) * elem;
        let ptr = dev.alloc(bytes)?;
        if let Some(r) = old {
            let keep = self.vars[v].actual[d].intersect(&Pcs::from_rect(&r.bounds));
            for b in keep.boxes() {
                dev.copy_within(ptr, &want, r.ptr, &r.bounds, elem, b)?;
                self.stats[d].extend_bytes += crate::pcs::rect_count(b) * elem as u64;
            }
            dev.free(r.ptr);
        }
        self.vars[v].reps[d] = Some(Rep { ptr, bounds: want });
        Ok(())
    }

    fn copy(&mut self, v: VarId, from: DevId, to: DevId, part: &Pcs) -> Result<(), DevError> {
        let t = Instant::now();
        let var = &self.vars[v];
        let elem = var.elem;
        let host = var.host.clone();
        if from == HOST {
            let rep = var.reps[to].clone().expect("representative ensured");
            let dev = self.devices[to - 1].as_mut();
            for b in part.boxes() {
                let n = unsafe {
                    dev.to_device(rep.ptr, &rep.bounds, host.ptr, &host.bounds, elem, b)?
                };
                self.stats[to].h2d_bytes += n;
                self.stats[to].h2d_copies += 1;
            }
            self.stats[to].copy_secs += t.elapsed().as_secs_f64();
        } else if to == HOST {
            let rep = var.reps[from]
                .clone()
                .expect("actual elements have a representative");
            let dev = self.devices[from - 1].as_mut();
            for b in part.boxes() {
                let n =
                    unsafe { dev.to_host(host.ptr, &host.bounds, rep.ptr, &rep.bounds, elem, b)? };
                self.stats[from].d2h_bytes += n;
                self.stats[from].d2h_copies += 1;
            }
            self.stats[from].copy_secs += t.elapsed().as_secs_f64();
        } else {
            // accelerator to accelerator: through the host, which then holds them too
            self.copy(v, from, HOST, part)?;
            self.vars[v].actual[HOST] = self.vars[v].actual[HOST].union(part);
            self.copy(v, HOST, to, part)?;
        }
        Ok(())
    }

    /// Count a transfer made outside the tracker's variables (reduction results, buffers)
    /// against accelerator `d`, so that reports show all traffic.
    pub fn note_transfer(&mut self, d: DevId, h2d: u64, d2h: u64) {
        let s = &mut self.stats[d];
        if h2d > 0 {
            s.h2d_bytes += h2d;
            s.h2d_copies += 1;
        }
        if d2h > 0 {
            s.d2h_bytes += d2h;
            s.d2h_copies += 1;
        }
    }

    /// Leave the result of a reduction into scalar `v` on its accelerator (see
    /// [`PendingReduction`]); the buffer then belongs to the tracker.
    pub fn defer_reduction(&mut self, v: VarId, p: PendingReduction) -> Result<(), DevError> {
        if self.pending.contains_key(&v) {
            self.resolve(v)?;
        }
        for a in self.vars[v].actual.iter_mut() {
            *a = Pcs::empty(a.rank());
        }
        self.pending.insert(v, p);
        Ok(())
    }

    /// Fetch and combine a pending reduction result into the host variable.
    fn resolve(&mut self, v: VarId) -> Result<(), DevError> {
        let Some(p) = self.pending.remove(&v) else {
            return Ok(());
        };
        let sz = p.ty.bytes();
        let mut part = [0u8; 8];
        let one = [(1i64, 1i64)];
        let t = Instant::now();
        let dev = self.devices[p.dev - 1].as_mut();
        let r = unsafe { dev.to_host(part.as_mut_ptr(), &one, p.buf, &one, sz, &one) };
        dev.free(p.buf);
        r?;
        self.stats[p.dev].d2h_bytes += sz as u64;
        self.stats[p.dev].d2h_copies += 1;
        self.stats[p.dev].copy_secs += t.elapsed().as_secs_f64();
        let host = self.vars[v].host.ptr;
        unsafe {
            match p.ty {
                ElemTy::Int | ElemTy::Logical => fold_scalar::<i32>(p.op, host, &part),
                ElemTy::Long => fold_scalar::<i64>(p.op, host, &part),
                ElemTy::Float => fold_scalar::<f32>(p.op, host, &part),
                ElemTy::Double => fold_scalar::<f64>(p.op, host, &part),
            }
        }
        self.vars[v].actual[HOST] = self.whole(v);
        Ok(())
    }

    /// Count a kernel run on accelerator `d` (for `--profile`).
    pub fn note_kernel(&mut self, d: DevId, secs: f64) {
        self.stats[d].kernels += 1;
        self.stats[d].kernel_secs += secs;
    }

    /// One line per accelerator for the performance report.
    pub fn report(&self) -> Vec<String> {
        (1..self.device_count())
            .map(|d| format!("accelerator {d} ({}): {}", self.devices[d - 1].describe(), self.stats[d].summary()))
            .collect()
    }

    /// The actualization request: make `set` (clipped to the variable) actual on `d`, copying
    /// only stale elements from where they are actual (the host first, then accelerators).
    /// Elements actual nowhere (never assigned) are not copied. Returns bytes copied to `d`.
    pub fn actualize(&mut self, v: VarId, d: DevId, set: &Pcs) -> Result<u64, DevError> {
        let set = set.intersect(&self.whole(v));
        if !set.is_empty() && self.pending.contains_key(&v) {
            let before = self.moved(d);
            self.resolve(v)?;
            if d == HOST {
                self.stats[d].requests += 1;
                return Ok(self.moved(d) - before);
            }
        }
        self.stats[d].requests += 1;
        let mut need = set.minus(&self.vars[v].actual[d]);
        if need.is_empty() {
            self.stats[d].requests_no_copy += 1;
            return Ok(0);
        }
        self.ensure_rep(v, d, &set)?;
        let before = self.moved(d);
        let order: Vec<DevId> = std::iter::once(HOST)
            .chain(1..self.device_count())
            .filter(|&s| s != d)
            .collect();
        for s in order {
            if need.is_empty() {
                break;
            }
            let part = need.intersect(&self.vars[v].actual[s]);
            if part.is_empty() {
                continue;
            }
            self.copy(v, s, d, &part)?;
            need = need.minus(&part);
        }
        let have = self.vars[v].actual[d].union(&set.minus(&need));
        self.vars[v].actual[d] = have;
        Ok(self.moved(d) - before)
    }

    fn moved(&self, d: DevId) -> u64 {
        if d == HOST {
            self.stats.iter().map(|s| s.d2h_bytes).sum()
        } else {
            self.stats[d].h2d_bytes
        }
    }

    /// After `set` of `v` was written on `d`: actual there, stale everywhere else.
    pub fn mark_written(&mut self, v: VarId, d: DevId, set: &Pcs) {
        let set = set.intersect(&self.whole(v));
        if !set.is_empty() && d == HOST {
            // a host assignment replaces a reduction result nobody fetched
            if let Some(p) = self.pending.remove(&v) {
                self.devices[p.dev - 1].free(p.buf);
            }
        }
        let written = self.vars[v].actual[d].union(&set);
        for (k, a) in self.vars[v].actual.iter_mut().enumerate() {
            *a = if k == d {
                written.clone()
            } else {
                let m = a.minus(&set);
                // Host code writing element by element (a callee's dummy argument per
                // statement) cuts the other copies into ever more boxes, and every later
                // operation pays for them. Past a few, a copy keeps only what no writer holds:
                // `d` has the rest, and a later actualization fetches it from there.
                if m.boxes().len() > FRAGMENTED {
                    m.minus(&written)
                } else {
                    m
                }
            };
        }
    }

    /// `set` of `v` is no longer needed on `d` (LOCAL): forgotten there.
    pub fn forget(&mut self, v: VarId, d: DevId, set: &Pcs) {
        let a = &mut self.vars[v].actual[d];
        *a = a.minus(set);
    }

    /// Region entry on device `d`: representatives cover every part, inputs are actualized.
    pub fn region_enter(&mut self, d: DevId, uses: &[RegionUse]) -> Result<(), DevError> {
        for u in uses {
            let part = u.part.intersect(&self.whole(u.var));
            self.ensure_rep(u.var, d, &part)?;
            if u.access.reads() {
                self.actualize(u.var, d, &part)?;
            }
        }
        Ok(())
    }

    /// Region exit on device `d`: outputs actual on `d` only, locals forgotten on `d`.
    pub fn region_exit(&mut self, d: DevId, uses: &[RegionUse]) {
        for u in uses {
            if u.access.writes_out() {
                self.mark_written(u.var, d, &u.part);
            } else if u.access.local() && d != HOST {
                self.forget(u.var, d, &u.part);
            }
        }
    }

    /// `GET_ACTUAL(set)`: the host copy of `set` becomes current.
    pub fn get_actual(&mut self, v: VarId, set: &Pcs) -> Result<u64, DevError> {
        self.actualize(v, HOST, set)
    }

    /// `ACTUAL(set)`: the host wrote `set`; its copy is the newest, other copies are stale.
    pub fn declare_actual(&mut self, v: VarId, set: &Pcs) {
        self.mark_written(v, HOST, set)
    }

    /// Stop tracking `v` (its storage is gone or reused): representatives freed, a pending
    /// reduction dropped, nothing copied. The id stays valid and inert (actual on the host).
    pub fn drop_var(&mut self, v: VarId) {
        if let Some(p) = self.pending.remove(&v) {
            self.devices[p.dev - 1].free(p.buf);
        }
        let whole = self.whole(v);
        let var = &mut self.vars[v];
        for (k, r) in var.reps.iter_mut().enumerate() {
            if let Some(r) = r.take() {
                self.devices[k - 1].free(r.ptr);
            }
        }
        for (k, a) in var.actual.iter_mut().enumerate() {
            *a = if k == HOST { whole.clone() } else { Pcs::empty(whole.rank()) };
        }
    }

    /// Element size of `v` in bytes.
    pub fn elem(&self, v: VarId) -> usize {
        self.vars[v].elem
    }

    /// Counters summed over every device (host-side requests included).
    pub fn totals(&self) -> Stats {
        let mut t = Stats::default();
        for s in &self.stats {
            t.add(s);
        }
        t
    }

    /// Variable ids in registration order.
    pub fn vars(&self) -> std::ops::Range<VarId> {
        0..self.vars.len()
    }

    /// Free every representative on the accelerators.
    pub fn release(&mut self) {
        for (_, p) in std::mem::take(&mut self.pending) {
            self.devices[p.dev - 1].free(p.buf);
        }
        for v in &mut self.vars {
            for (k, r) in v.reps.iter_mut().enumerate() {
                if let Some(r) = r.take() {
                    self.devices[k - 1].free(r.ptr);
                }
            }
        }
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        self.release();
    }
}
