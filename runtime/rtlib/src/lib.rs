//! sapfor-rt: the runtime library that programs converted by `sapfor build` link.
//!
//! A `staticlib` with a C ABI, called from the generated Fortran through `BIND(C)`
//! interfaces (module `sapfor_rt`, written by the converter, see `runtime/src/fortran.rs`).
//! Every function is called by the master thread only (outside OpenMP parallel regions), so
//! the state lives in a thread-local. MPI comes from rsmpi.
//!
//! Model (docs/runtime.md): a Cartesian process grid with `k` axes is made at start-up.
//! A distributed array maps its j-th `BLOCK` dimension onto grid axis j (arrays with fewer
//! BLOCK dimensions are replicated along the other axes). Each process stores its owned
//! block plus shadow edges in an ordinary Fortran allocatable whose bounds are the global
//! indices, so subscripts are never rewritten. All data movement here is byte-wise: the
//! runtime only needs the element size, the allocated bounds and the owned bounds.

use mpi::collective::{CommunicatorCollectives, Root};
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, CStr};
use std::io::Write;
use std::time::Instant;

/// A line on standard error written with one `write`: `eprintln!` writes each piece of its
/// format separately (standard error is unbuffered), and under `mpirun` another process's
/// message, or Open MPI's own, could land between the pieces.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let mut line = format!($($t)*);
        line.push('\n');
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }};
}

mod layout;
pub mod order;
mod order_mode;
pub mod actual;
pub mod cache_trim;
pub mod compare;
pub mod device;
pub mod gpu_abi;
pub mod omp;
pub mod pcs;
mod stdout_relay;
pub use layout::{factor_grid, Layout};

const MAX_RANK: usize = 7;

struct Stat {
    count: u64,
    secs: f64,
    bytes: u64,
}

/// Whether this process writes a profile (`SAPFOR_PROFILE`): only then are the times of
/// communications and element reads measured (two clock reads each; NPB CG's set-up reads
/// 5.8 million single elements at class A, `Rt::clock`).
static PROFILING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Stat {
    fn new() -> Stat {
        Stat { count: 0, secs: 0.0, bytes: 0 }
    }
    fn add(&mut self, t: Instant, bytes: u64) {
        self.count += 1;
        if PROFILING.load(std::sync::atomic::Ordering::Relaxed) {
            self.secs += t.elapsed().as_secs_f64();
        }
        self.bytes += bytes;
    }
}

/// One parallel loop's profile on this process.
#[derive(Default)]
struct LoopStat {
    count: u64,
    secs: f64,
    /// Communication inside the loop (shadow renewals, ACROSS messages, reductions...),
    /// synchronization included, and synchronization alone.
    comm: f64,
    sync: f64,
    /// Iterations split between processes (an ON clause); otherwise every process runs all.
    split: bool,
    /// The blocks of time steps it ran in (`sapfor_loop_runs`), each counted as its steps.
    blocks: u64,
    /// The loop run as one with it (`sapfor_loop_with`), whose time its own includes.
    with: Option<i64>,
}

struct Red {
    op: i32,
    ty: i32,
    /// Number of index variables (MAXLOC/MINLOC).
    nlocs: usize,
    /// Number of elements: 1 for a scalar, the array's size for an array reduction.
    count: usize,
}

struct Rt {
    /// `None` in single-process mode (`SAPFOR_NO_MPI=1`, see `sapfor_init`): MPI is never
    /// initialized and every collective operation is a local no-op.
    _universe: Option<mpi::environment::Universe>,
    world: Option<SimpleCommunicator>,
    rank: usize,
    size: usize,
    grid: Vec<usize>,
    coords: Vec<usize>,
    /// Layouts by handle (shared: an element read borrows one while the caches change).
    arrays: Vec<std::rc::Rc<Layout>>,
    files: BTreeMap<i64, String>,
    reds: Vec<Red>,
    /// `sapfor_dim_weights` for the next `sapfor_distribute`: (1-based dimension, (weights or
    /// sizes, whether sizes)).
    next_weights: Vec<(usize, (Vec<f64>, bool))>,
    /// Values handed over by `sapfor_red_put` (then the results, read by `sapfor_red_get`),
    /// in registration order, and the read position.
    red_vals: Vec<u8>,
    red_pos: usize,
    /// After `sapfor_red_end`: item sizes and the next item `sapfor_red_get` returns.
    red_done: Option<(Vec<usize>, usize)>,
    /// Copies of replicated arrays taken before a parallel loop writes them.
    /// Open merges: the array's address and length, and its bytes before the loop (none on
    /// one process).
    merges: Vec<(usize, usize, Vec<u8>)>,
    start: Instant,
    loops: BTreeMap<i64, LoopStat>,
    /// The parallel loop running now: its source position, whether its iterations are split
    /// between processes, when it started, and the communication and synchronization totals
    /// then (what the loop adds to them is its own).
    loop_t: Option<(i64, bool, Instant, f64, f64)>,
    /// `--profile` (`SAPFOR_PROFILE` set): collective operations first wait for every
    /// process at a barrier, timed as synchronization, so that communication and waiting
    /// for slower processes are told apart in the report.
    profiling: bool,
    /// The record of list-directed output `sapfor_ld_gather` made (on the I/O process).
    ld_text: Vec<u8>,
    /// Copies of arrays' local blocks (`sapfor_block_save`), by handle.
    saved_blocks: BTreeMap<i64, Vec<u8>>,
    /// Time in those barriers.
    sync: Stat,
    /// Under `--profile`: element reads of distributed arrays outside parallel loops by
    /// statement (source position): reads, messages they cost (cache misses or single
    /// elements), seconds.
    reads_at: BTreeMap<i64, (u64, u64, f64)>,
    shadow: Stat,
    across: Stat,
    reduce: Stat,
    remote: Stat,
    /// Element reads served from a read cache (`sapfor_cache_begin`), without a message.
    cached: Stat,
    /// Sections fetched into full copies for sequential loop nests (`sapfor_fetch`).
    fetch: Stat,
    /// Read caches of distributed arrays, by handle (see `sapfor_cache_begin`).
    caches: BTreeMap<i64, ReadCache>,
    /// Boxes that the shadow exchanges and ACROSS messages of an array are limited to while a
    /// parallel loop that reads only that box runs (`sapfor_limit`), by handle: lower and upper
    /// global bounds per dimension (`i64::MIN`/`i64::MAX` where a dimension is not limited).
    limits: BTreeMap<i64, (Vec<i64>, Vec<i64>)>,
    /// Arrays held unchanged while a sequential loop runs (`sapfor_shadow_hold`), by handle:
    /// the nesting depth of the holds, and the widths per dimension the whole array's shadow
    /// edges were renewed with since (empty: none yet).
    held: BTreeMap<i64, (u32, Vec<i64>, Vec<i64>)>,
    /// Renewals skipped because a held array's edges were already renewed that wide.
    held_skips: Stat,
    gather: Stat,
    /// Communications started so far by this process that may wait for others (every use of
    /// `comm()`: receives and collective operations, and sends other than a pipeline's).
    comms: std::cell::Cell<u64>,
    /// The pipelined ACROSS loop running now (`sapfor_across_start` to `_finish`).
    across_now: Option<AcrossNow>,
    /// By (array, tiled dimension): `comms` when this process last finished such a loop, and
    /// how many executions in a row before it had found no communication since the one
    /// before them (see `sapfor_across_tile_size`).
    across_seen: BTreeMap<(i64, i32), (u64, u32)>,
    /// Whether this process has communicated nothing since it last finished the ACROSS loop
    /// running now (when it heads the pipeline: its tiles depend on it).
    across_quiet: bool,
    /// The tag of this ACROSS loop's messages: 1 when its tiles are the whole owned extent
    /// (a stream, see `sapfor_across_tile_size`), else 0.
    across_tag: i32,
    /// Message buffers kept between exchanges of full copies' slices (`pooled`).
    pool: Vec<Vec<u8>>,
    finalized: bool,
}

/// A message buffer of `n` bytes from `pool` (the smallest that holds them, else the largest,
/// grown): one reused from an earlier exchange has its pages already, where a fresh buffer of
/// megabytes is faulted in and zeroed by the kernel at every use (NPB FT's transposition at
/// class A, 34 MB each way a call: a tenth of its run in page clearing). Its bytes are what
/// it last held.
fn pooled(pool: &mut Vec<Vec<u8>>, n: usize) -> Vec<u8> {
    let fit = pool.iter().enumerate().filter(|(_, b)| b.capacity() >= n).min_by_key(|(_, b)| b.capacity()).map(|(k, _)| k);
    let largest = pool.iter().enumerate().max_by_key(|(_, b)| b.capacity()).map(|(k, _)| k);
    let mut v = fit.or(largest).map(|k| pool.swap_remove(k)).unwrap_or_default();
    if v.len() < n {
        v.resize(n, 0);
    }
    v.truncate(n);
    v
}

/// Give message buffers back to `pool`, which keeps the 8 largest.
fn unpool(pool: &mut Vec<Vec<u8>>, bufs: impl IntoIterator<Item = Vec<u8>>) {
    pool.extend(bufs);
    pool.sort_by_key(|b| std::cmp::Reverse(b.capacity()));
    pool.truncate(8);
}

/// A pipelined ACROSS loop between `sapfor_across_start` and `sapfor_across_finish`: its
/// array's handle, the clause's widths per dimension (low, high) and the directions its
/// loops run in (what `sapfor_across_tile_size`, which is not given them, needs).
#[derive(Clone)]
struct AcrossNow {
    h: i64,
    wlo: Vec<i64>,
    whi: Vec<i64>,
    dirs: Vec<i64>,
}

/// Boxes of a distributed array fetched from their owners while the program runs code that
/// reads the array element by element and never writes it (the converter brackets such
/// loop nests with `sapfor_cache_begin/end`). Every process calls `sapfor_get` with the
/// same indices in the same order, so the caches, hits and misses are the same everywhere.
#[derive(Default)]
struct ReadCache {
    /// By (owner rank, box key): the box (as a whole-array layout of its bounds, for
    /// offsets) and its elements in column-major order.
    boxes: std::collections::HashMap<(usize, Vec<i64>), (Layout, Vec<u8>)>,
    bytes: usize,
    /// The box the last read came from (its key and bounds): a sweep reads one box about
    /// 2,000 times in a row, and finds it here without computing the owner's block.
    last: Option<((usize, Vec<i64>), Vec<i64>, Vec<i64>)>,
}

impl ReadCache {
    /// The last box read, when it holds `idx`.
    fn last_box(&self, idx: &[i64]) -> Option<&(Layout, Vec<u8>)> {
        let (k, lo, hi) = self.last.as_ref()?;
        let inside = idx.iter().zip(lo.iter().zip(hi)).all(|(i, (a, b))| i >= a && i <= b);
        self.boxes.get(k).filter(|_| inside)
    }
}

/// Elements per fetched box, and the bytes a cache may hold before it starts over.
const CACHE_BOX_ELEMS: i64 = 2048;
const CACHE_MAX_BYTES: usize = 256 << 20;

/// The box of the owner's block that a miss at `idx` fetches: the leading dimensions whole
/// (as far as their product stays within `CACHE_BOX_ELEMS`), then an aligned stretch of the
/// next one, the remaining dimensions at `idx`. Returns (key, lo, hi).
fn cache_box(own_lo: &[i64], own_hi: &[i64], idx: &[i64]) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let r = idx.len();
    let (mut lo, mut hi) = (idx.to_vec(), idx.to_vec());
    let mut size = 1i64;
    let mut key = vec![];
    for d in 0..r {
        let ext = own_hi[d] - own_lo[d] + 1;
        if size * ext <= CACHE_BOX_ELEMS {
            lo[d] = own_lo[d];
            hi[d] = own_hi[d];
            size *= ext;
            continue;
        }
        let m = (CACHE_BOX_ELEMS / size).max(1);
        let t = (idx[d] - own_lo[d]) / m;
        lo[d] = own_lo[d] + t * m;
        hi[d] = (lo[d] + m - 1).min(own_hi[d]);
        key.push(t);
        key.extend_from_slice(&idx[d + 1..]);
        break;
    }
    (key, lo, hi)
}

/// Owned ranges of every array, readable from any thread: DO bounds of OpenMP loops are
/// evaluated by the worker threads too.
static OWNED: std::sync::RwLock<Vec<(Vec<i64>, Vec<i64>)>> = std::sync::RwLock::new(Vec::new());

fn publish(l: &Layout) {
    if let Ok(mut v) = OWNED.write() {
        v.push((l.own_lo.clone(), l.own_hi.clone()));
    }
}

fn owned(h: i64, d: i32, hi: bool) -> i64 {
    let v = OWNED.read().ok();
    let r = v
        .as_ref()
        .and_then(|v| v.get(h as usize))
        .and_then(|(lo, up)| if hi { up.get(d as usize - 1) } else { lo.get(d as usize - 1) }).copied();
    match r {
        Some(x) => x,
        None => {
            say!("sapfor runtime: bad array handle {h} or dimension {d} (converter bug)");
            std::process::exit(3);
        }
    }
}

thread_local! {
    static RT: RefCell<Option<Rt>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut Rt) -> R) -> R {
    RT.with(|c| {
        let mut b = c.borrow_mut();
        match b.as_mut() {
            Some(rt) => f(rt),
            None => {
                say!("sapfor runtime: called before sapfor_init (converter bug)");
                std::process::exit(3);
            }
        }
    })
}

/// A process that ends without `sapfor_finalize` (a Fortran runtime error such as a bounds
/// check of `--check`, an `exit` from a library) would otherwise leave the others waiting for
/// it for ever, and its own `MPI_Finalize` (run when the runtime's state is dropped at exit)
/// would wait for them too: stop every process instead.
impl Drop for Rt {
    fn drop(&mut self) {
        if self.finalized || self.size <= 1 {
            return;
        }
        if let Some(w) = &self.world {
            say!(
                "sapfor: process {} of {} ended before the end of the program (see the message above); stopping all processes",
                self.rank,
                self.size
            );
            stdout_relay::drain();
            w.abort(2);
        }
    }
}

impl Rt {
    fn where_(&self, src: i64) -> String {
        if src <= 0 {
            return "?".into();
        }
        let file = self
            .files
            .get(&(src / 1_000_000))
            .cloned()
            .unwrap_or_else(|| "?".into());
        format!("{file}:{}", src % 1_000_000)
    }
    fn fail(&self, src: i64, msg: &str) -> ! {
        say!(
            "sapfor: runtime error at {} (process {} of {}): {msg}",
            self.where_(src),
            self.rank,
            self.size
        );
        let _ = std::io::stderr().flush();
        // (every process runs the code between parallel loops alike: process 0, which does the
        // program's output, most often finds the same error a moment later, forwards its
        // output and stops the others itself. Stopped by mpirun instead, its SIGTERM handler
        // had too little time on a loaded machine: a CI run lost all 300 lines of
        // outofrange.fdv that process 0 had printed)
        if self.rank != 0 {
            std::thread::sleep(std::time::Duration::from_millis(1000));
        }
        abort(self.world.as_ref(), 2)
    }
    /// The box the exchanges of array `h` are limited to while the loop running now reads only
    /// that box (`sapfor_limit`; an empty box, left by `sapfor_unlimit`, is no limit).
    fn limit(&self, h: i64) -> Option<(Vec<i64>, Vec<i64>)> {
        self.limits.get(&h).filter(|(lo, _)| !lo.is_empty()).cloned()
    }
    /// Seconds spent communicating so far: every kind of message, and the profiling barriers.
    fn comm_secs(&self) -> f64 {
        self.shadow.secs + self.across.secs + self.reduce.secs + self.remote.secs + self.fetch.secs + self.gather.secs + self.sync.secs
    }
    /// Before a collective operation, under `--profile`: wait for every process, timed as
    /// synchronization (the time this process waits for slower ones). Returns the moment the
    /// operation itself starts, for its own timing (communication without the wait).
    fn sync_point(&mut self) -> Instant {
        if self.profiling && self.size > 1 {
            let t = Instant::now();
            self.comm().barrier();
            self.sync.add(t, 0);
        }
        self.clock()
    }
    /// The time a `Stat` counts from: now where the profile measures it, else any instant
    /// (`Stat::add` then reads no clock).
    fn clock(&self) -> Instant {
        if self.profiling {
            Instant::now()
        } else {
            self.start
        }
    }
    /// The MPI communicator; only reached with more than one process (there are no
    /// neighbours to talk to otherwise), so single-process mode never gets here.
    fn comm(&self) -> &SimpleCommunicator {
        self.comms.set(self.comms.get() + 1);
        self.comm_to_send()
    }
    /// `comm`, for a pipeline's sends: they do not count in `comms` (a send does not wait
    /// for the receiver to catch up, but over the transport's eager limit, where it waits
    /// for the receiver to take the message).
    fn comm_to_send(&self) -> &SimpleCommunicator {
        match &self.world {
            Some(w) => w,
            None => self.fail(0, "MPI call in single-process mode (runtime bug)"),
        }
    }
    /// Broadcast `buf` from process `root` (nothing to do on one process).
    fn bcast(&self, root: usize, buf: &mut [u8]) {
        if self.size > 1 {
            self.comm().process_at_rank(root as i32).broadcast_into(buf);
        }
    }
    /// Every process's `mine` (all of the same length), in rank order, on every process.
    fn all_gather(&self, mine: &[u8]) -> Vec<u8> {
        if self.size == 1 {
            return mine.to_vec();
        }
        let mut all = vec![0u8; mine.len() * self.size];
        self.comm().all_gather_into(mine, &mut all[..]);
        all
    }
    fn layout(&self, h: i64) -> &Layout {
        self.layout_rc(h)
    }
    fn layout_rc(&self, h: i64) -> &std::rc::Rc<Layout> {
        match self.arrays.get(h as usize) {
            Some(l) if h >= 0 => l,
            _ => self.fail(0, &format!("unknown array handle {h} (converter bug)")),
        }
    }
    fn rank_of(&self, coords: &[usize]) -> usize {
        // axis 0 varies fastest
        let mut r = 0;
        for a in (0..self.grid.len()).rev() {
            r = r * self.grid[a] + coords[a];
        }
        r
    }
}

/// Stop every process over an error found by all of them at start-up, which process 0
/// alone reports: the others wait for its abort, so that `mpirun` forwards the message
/// before anything ends the job (an abort by another process first could cut it off).
fn abort_at_init(world: Option<&SimpleCommunicator>, rank: usize, code: i32) -> ! {
    if rank != 0 {
        std::thread::sleep(std::time::Duration::from_secs(10));
    }
    abort(world, code)
}

/// End every process with `code`: `MPI_Abort` under MPI, a plain exit in single-process mode.
fn abort(world: Option<&SimpleCommunicator>, code: i32) -> ! {
    stdout_relay::drain();
    match world {
        Some(w) => w.abort(code),
        None => std::process::exit(code),
    }
}

/// Single-process mode: `sapfor run --np 1` starts the program itself (no `mpirun`) with
/// `SAPFOR_NO_MPI=1`, and the runtime then never initializes MPI (MPI start-up with Open MPI
/// costs 0.1-0.3 s). Any sign of an MPI launcher (Open MPI, PMIx, PMI/Hydra) wins over the
/// variable, so an executable started by `mpirun` always joins its MPI job.
pub fn single_process_mode(var: impl Fn(&str) -> Option<String>) -> bool {
    let on = matches!(var("SAPFOR_NO_MPI").as_deref().map(str::trim), Some("1"));
    on && !LAUNCHER_VARS.iter().any(|k| var(k).is_some())
}

/// Variables that MPI launchers set in the processes they start.
pub const LAUNCHER_VARS: [&str; 5] = [
    "OMPI_COMM_WORLD_SIZE",
    "PMIX_RANK",
    "PMI_RANK",
    "PMI_SIZE",
    "MPI_LOCALNRANKS",
];

fn coords_of(rank: usize, grid: &[usize]) -> Vec<usize> {
    let mut r = rank;
    grid.iter()
        .map(|&g| {
            let c = r % g;
            r /= g;
            c
        })
        .collect()
}

unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

/// 1 when `OMP_NUM_THREADS` is not set: the converted main program then runs one OpenMP
/// thread per process (libgomp would otherwise start one per core in every process).
#[no_mangle]
pub extern "C" fn sapfor_threads_unset() -> i32 {
    std::env::var_os("OMP_NUM_THREADS").is_none_or(|v| v.is_empty()) as i32
}

/// Let the message buffers of each exchange come from memory the process already has: glibc
/// gives every allocation of more than 128 KiB fresh pages (`mmap`), which the kernel zeroes
/// and faults in at every use, and returns the heap's free top above 128 KiB at once; a loop
/// that fetches megabytes of planes per execution (NPB SP's z_solve over copies) spent a
/// fifth of its exchange time in page faults that way. Allocations up to 64 MiB now come
/// from the heap, whose free top is kept up to 256 MiB.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread
    // of the runtime exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

/// Put the block of a distributed array (or its full copy) of `n` bytes at `x`, just
/// allocated and not yet touched, on transparent huge pages (`madvise(MADV_HUGEPAGE)` on the
/// 2 MiB pages inside it; the kernel's default, `madvise`, gives them only to memory that
/// asks). The stencils of 3-D programs walk planes far apart in memory, and with 4 KiB pages
/// miss the TLB at every plane: a 160^3 heat program at `--np 1`, five alternating rounds,
/// took 2.72-3.32 s (median 2.95) against 2.39-3.16 s (median 2.69) with its two arrays on
/// huge pages (the sequential build 2.91-3.37 s, median 3.04). Arrays
/// smaller than two huge pages are left as they are; `SAPFOR_HUGE_PAGES=0` leaves all.
///
/// # Safety
/// `x` must point to an allocation of at least `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn sapfor_huge_pages(x: *mut u8, n: i64) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let n = n.max(0) as usize;
        if n < 2 * HUGE || !*ON.get_or_init(|| std::env::var("SAPFOR_HUGE_PAGES").map_or(true, |v| v.trim() != "0")) {
            return;
        }
        let start = (x as usize).div_ceil(HUGE) * HUGE;
        let end = (x as usize + n) / HUGE * HUGE;
        if end > start {
            // (advice: a kernel without THP says no, and the array stays as it is)
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (x, n);
}

/// Start MPI and build the process grid with `naxes` axes (the largest number of BLOCK
/// dimensions of any distributed array). `SAPFOR_GRID=AxB...` forces the grid shape.
#[no_mangle]
pub extern "C" fn sapfor_init(naxes: i32) {
    order::init();
    keep_freed_memory();
    let (universe, world) = if single_process_mode(|k| std::env::var(k).ok()) {
        (None, None)
    } else {
        let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
            say!("sapfor runtime: MPI is already initialized");
            std::process::exit(3);
        };
        let world = universe.world();
        (Some(universe), Some(world))
    };
    let (rank, size) = match &world {
        Some(w) => (w.rank() as usize, w.size() as usize),
        None => (0, 1),
    };
    if rank == 0 && size > 1 {
        // process 0 does the program's I/O: its output reaches mpirun in batches
        stdout_relay::start();
    }
    let naxes = naxes.clamp(0, MAX_RANK as i32) as usize;
    let grid = match std::env::var("SAPFOR_GRID") {
        Ok(g) if !g.trim().is_empty() && naxes > 0 => {
            let parsed: Option<Vec<usize>> = g
                .split(['x', 'X', ','])
                .map(|s| s.trim().parse::<usize>().ok().filter(|&v| v > 0))
                .collect();
            match parsed {
                Some(v) if v.len() == naxes && v.iter().product::<usize>() == size => v,
                _ => {
                    if rank == 0 {
                        say!(
                            "sapfor: --grid {g} does not fit: the program needs a grid with {naxes} \
                             axes whose product is the number of processes ({size})"
                        );
                    }
                    abort_at_init(world.as_ref(), rank, 2);
                }
            }
        }
        _ => factor_grid(size, naxes),
    };
    let coords = if grid.is_empty() { vec![] } else { coords_of(rank, &grid) };
    if let Err(m) = gpu_abi::init_from_env(rank, size) {
        if rank == 0 {
            say!("sapfor: {m}");
        }
        abort_at_init(world.as_ref(), rank, 2);
    }
    let rt = Rt {
        _universe: universe,
        world,
        rank,
        size,
        grid,
        coords,
        arrays: vec![],
        files: BTreeMap::new(),
        reds: vec![],
        next_weights: vec![],
        red_vals: vec![],
        red_pos: 0,
        red_done: None,
        merges: vec![],
        start: Instant::now(),
        loops: BTreeMap::new(),
        loop_t: None,
        profiling: std::env::var("SAPFOR_PROFILE").is_ok_and(|p| !p.is_empty()),
        saved_blocks: BTreeMap::new(),
        ld_text: Vec::new(),
        sync: Stat::new(),
        reads_at: BTreeMap::new(),
        shadow: Stat::new(),
        across: Stat::new(),
        reduce: Stat::new(),
        remote: Stat::new(),
        cached: Stat::new(),
        fetch: Stat::new(),
        caches: BTreeMap::new(),
        held: BTreeMap::new(),
        held_skips: Stat::new(),
        limits: BTreeMap::new(),
        gather: Stat::new(),
        comms: std::cell::Cell::new(0),
        across_now: None,
        across_seen: BTreeMap::new(),
        across_quiet: false,
        across_tag: 0,
        pool: vec![],
        finalized: false,
    };
    PROFILING.store(rt.profiling, std::sync::atomic::Ordering::Relaxed);
    RT.with(|c| *c.borrow_mut() = Some(rt));
}

/// Name of source file number `idx` (for messages and the profile).
///
/// # Safety
/// `name` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sapfor_file_name(idx: i32, name: *const c_char) {
    let s = CStr::from_ptr(name).to_string_lossy().into_owned();
    with(|rt| {
        rt.files.insert(idx as i64, s);
    });
}

/// `BARRIER`: every process waits here for all the others (nothing to wait for on one).
#[no_mangle]
pub extern "C" fn sapfor_barrier() {
    with(|rt| {
        if rt.size > 1 {
            use mpi::collective::CommunicatorCollectives;
            rt.comm().barrier();
        }
    })
}

/// `dvtime()`, the DVM system's timer for Fortran-DVMH programs: wall-clock seconds (double
/// precision) since an arbitrary moment, the same moment on every call of one process. The
/// converter's `sapfor_dvm.f90` defines DVTIME through it unless the program has a procedure
/// of that name (a sequential version of a DVM example brings its own: the runtime's
/// `dvtime_` clashed with it at the link).
#[no_mangle]
pub extern "C" fn sapfor_dvtime() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

#[no_mangle]
pub extern "C" fn sapfor_finalize() {
    let rt = RT.with(|c| c.borrow_mut().take());
    if let Some(mut rt) = rt {
        if rt.finalized {
            return;
        }
        rt.finalized = true;
        // this process's time: waiting for the others below is idle time in the profile
        let total = rt.start.elapsed().as_secs_f64();
        if rt.size > 1 {
            rt.comm().barrier();
        }
        if let Ok(path) = std::env::var("SAPFOR_PROFILE") {
            if !path.is_empty() {
                write_profile(&rt, &path, total);
            }
        }
        gpu_abi::finish(rt.rank, rt.size);
        order::finish(rt.rank, |s| rt.where_(s));
        let _ = std::io::stdout().flush();
        stdout_relay::drain();
        drop(rt); // drops the Universe: MPI_Finalize
    }
}

#[no_mangle]
pub extern "C" fn sapfor_rank() -> i32 {
    with(|rt| rt.rank as i32)
}

#[no_mangle]
pub extern "C" fn sapfor_nprocs() -> i32 {
    with(|rt| rt.size as i32)
}

/// `FILE:LINE` of a source position (`src` = file number x 10^6 + line), for messages.
pub(crate) fn where_src(src: i64) -> String {
    RT.with(|c| match c.borrow().as_ref() {
        Some(rt) => rt.where_(src),
        None => "?".into(),
    })
}

/// Stop every process with a runtime error at source position `src` (0: unknown).
pub(crate) fn abort_at(src: i64, msg: &str) -> ! {
    let done = RT.with(|c| c.try_borrow().map(|b| b.is_some()).unwrap_or(false));
    if done {
        with(|rt| rt.fail(src, msg))
    }
    say!("sapfor: runtime error: {msg}");
    std::process::exit(2)
}

/// A runtime error raised by generated code (message is NUL-terminated).
///
/// # Safety
/// `msg` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn sapfor_error(src: i64, msg: *const c_char) {
    let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
    with(|rt| rt.fail(src, &s))
}

/// Create the layout of a distributed array. `fmt[d]` is 1 for BLOCK, 0 for `*`;
/// `slo/shi` are the shadow widths. Returns the handle.
///
/// # Safety
/// The array arguments must hold `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_distribute(
    rank: i32,
    esize: i64,
    glo: *const i64,
    ghi: *const i64,
    fmt: *const i32,
    slo: *const i64,
    shi: *const i64,
) -> i64 {
    let r = rank as usize;
    let (glo, ghi, fmt, slo, shi) = (
        slice(glo, r),
        slice(ghi, r),
        slice(fmt, r),
        slice(slo, r),
        slice(shi, r),
    );
    with(|rt| {
        let mut axis = vec![None; r];
        let mut next = 0;
        for d in 0..r {
            if fmt[d] == 1 {
                axis[d] = Some(next);
                next += 1;
            }
        }
        if next > rt.grid.len() {
            rt.fail(0, "array has more BLOCK dimensions than the process grid (converter bug)");
        }
        let mut dims: Vec<layout::Dim> = (0..r)
            .map(|d| layout::Dim {
                glo: glo[d],
                ghi: ghi[d],
                axis: axis[d],
                tlo: glo[d],
                thi: ghi[d],
                off: 0,
                slo: slo[d].max(0),
                shi: shi[d].max(0),
                cuts: None,
            })
            .collect();
        // WGT_BLOCK / GEN_BLOCK dimensions (`sapfor_dim_weights` before this call)
        for (d, w) in std::mem::take(&mut rt.next_weights) {
            let Some(dim) = dims.get_mut(d.wrapping_sub(1)) else { continue };
            let Some(ax) = dim.axis else { continue };
            let sizes: Option<Vec<i64>> = w.1.then(|| w.0.iter().map(|&x| x as i64).collect());
            match layout::weighted_cuts(dim.tlo, dim.thi, rt.grid[ax], &w.0, sizes.as_deref()) {
                Ok(c) => dim.cuts = Some(std::sync::Arc::new(c)),
                Err(m) => rt.fail(0, &m),
            }
        }
        let l = Layout::new(esize as usize, dims, &rt.grid, &rt.coords);
        publish(&l);
        rt.arrays.push(std::rc::Rc::new(l));
        (rt.arrays.len() - 1) as i64
    })
}

/// Create the layout of an array aligned with array `target`: dimension d of the new array
/// follows dimension `tdim[d]` (1-based, 0 = not aligned: the whole dimension is local) of
/// the target with `new(i) lives with target(i + off[d])`.
///
/// # Safety
/// The array arguments must hold `rank` elements.
#[no_mangle]
pub unsafe extern "C" fn sapfor_align(
    target: i64,
    rank: i32,
    esize: i64,
    glo: *const i64,
    ghi: *const i64,
    tdim: *const i32,
    off: *const i64,
    slo: *const i64,
    shi: *const i64,
) -> i64 {
    let r = rank as usize;
    let (glo, ghi, tdim, off, slo, shi) = (
        slice(glo, r),
        slice(ghi, r),
        slice(tdim, r),
        slice(off, r),
        slice(slo, r),
        slice(shi, r),
    );
    with(|rt| {
        let t = rt.layout(target).clone();
        let dims = (0..r)
            .map(|d| {
                let td = tdim[d];
                if td >= 1 && (td as usize) <= t.dims.len() && t.dims[td as usize - 1].axis.is_some() {
                    let tdm = &t.dims[td as usize - 1];
                    layout::Dim {
                        glo: glo[d],
                        ghi: ghi[d],
                        axis: tdm.axis,
                        tlo: tdm.tlo,
                        thi: tdm.thi,
                        off: off[d] + tdm.off,
                        slo: slo[d].max(0),
                        shi: shi[d].max(0),
                        cuts: tdm.cuts.clone(),
                    }
                } else {
                    layout::Dim {
                        glo: glo[d],
                        ghi: ghi[d],
                        axis: None,
                        tlo: glo[d],
                        thi: ghi[d],
                        off: 0,
                        slo: 0,
                        shi: 0,
                        cuts: None,
                    }
                }
            })
            .collect();
        let l = Layout::new(esize as usize, dims, &rt.grid, &rt.coords);
        publish(&l);
        rt.arrays.push(std::rc::Rc::new(l));
        (rt.arrays.len() - 1) as i64
    })
}

/// Lowest owned global index of dimension `d` (1-based).
#[no_mangle]
pub extern "C" fn sapfor_lb(h: i64, d: i32) -> i64 {
    owned(h, d, false)
}

/// Highest owned global index of dimension `d` (1-based); below `sapfor_lb` when empty.
#[no_mangle]
pub extern "C" fn sapfor_ub(h: i64, d: i32) -> i64 {
    owned(h, d, true)
}

/// Allocated bounds (owned part plus shadows, clipped to the global bounds).
#[no_mangle]
pub extern "C" fn sapfor_alb(h: i64, d: i32) -> i64 {
    with(|rt| rt.layout(h).alo[d as usize - 1])
}

#[no_mangle]
pub extern "C" fn sapfor_aub(h: i64, d: i32) -> i64 {
    with(|rt| rt.layout(h).ahi[d as usize - 1])
}

/// The entry check of a procedure whose dummy array takes the distribution of its actual
/// argument (`INHERIT`): the caller set handle `h` (-1: nothing was passed, the procedure was
/// reached by a call the converter did not see), and the dummy's declared bounds, where
/// `known` says they could be evaluated (`known[2d]` lower, `known[2d+1]` upper), must be
/// the actual's global bounds: the dummy is declared with the actual's allocated bounds, so
/// another shape would silently index other elements.
///
/// # Safety
/// `lo`, `hi` hold `rank` elements, `known` 2 x `rank`; `name` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn sapfor_inherit_check(h: i64, rank: i32, lo: *const i64, hi: *const i64, known: *const i32, name: *const c_char, src: i64) {
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    with(|rt| {
        if h < 0 || rt.arrays.get(h as usize).is_none() {
            rt.fail(src, &format!("the INHERIT dummy argument {name} was given no distributed array (a call the converter did not see, e.g. through a procedure argument)"));
        }
        let l = rt.layout(h);
        let r = rank as usize;
        if l.dims.len() != r {
            rt.fail(src, &format!("the INHERIT dummy argument {name} has rank {r}, its actual argument rank {}", l.dims.len()));
        }
        let (lo, hi, known) = (slice(lo, r), slice(hi, r), slice(known, 2 * r));
        for d in 0..r {
            let g = &l.dims[d];
            let bad_lo = known[2 * d] != 0 && lo[d] != g.glo;
            let bad_hi = known[2 * d + 1] != 0 && hi[d] != g.ghi;
            if bad_lo || bad_hi {
                let show = |k: i32, v: i64| if k != 0 { v.to_string() } else { "*".to_string() };
                rt.fail(
                    src,
                    &format!(
                        "the INHERIT dummy argument {name} is declared {}:{} in dimension {}, its distributed actual argument is {}:{} (the shapes must be equal)",
                        show(known[2 * d], lo[d]),
                        show(known[2 * d + 1], hi[d]),
                        d + 1,
                        g.glo,
                        g.ghi
                    ),
                );
            }
        }
    })
}

/// A loop mapped on a template (`ON T(K + c)`) must stay inside it: iterations outside the
/// template's bounds belong to no process and would silently not run. `first`/`last` are the
/// template indices of the loop's bounds, `step` its step (an empty loop is never refused);
/// stops the program naming the loop otherwise.
#[no_mangle]
pub extern "C" fn sapfor_template_range(h: i64, d: i32, first: i64, last: i64, step: i64, src: i64) {
    with(|rt| {
        let g = &rt.layout(h).dims[d as usize - 1];
        let runs = if step > 0 { first <= last } else { first >= last };
        let (lo, hi) = (first.min(last), first.max(last));
        if runs && (lo < g.glo || hi > g.ghi) {
            rt.fail(
                src,
                &format!(
                    "the loop mapped on a TEMPLATE runs over indices {lo}:{hi} of its dimension {d}, outside the template's {}:{}",
                    g.glo, g.ghi
                ),
            );
        }
    })
}

/// True (1) if this process owns the element (every replica of it does).
///
/// # Safety
/// `idx` must hold one index per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_own(h: i64, idx: *const i64, src: i64) -> i32 {
    with(|rt| {
        let l = rt.layout(h);
        let idx = slice(idx, l.dims.len());
        check_global(rt, l, idx, src);
        l.owns(idx) as i32
    })
}

/// Like `sapfor_own`, for an owner-only update that reads the element it writes: where this
/// process owns it, its host copy is made current first (it may have been computed on an
/// accelerator).
///
/// # Safety
/// `idx` must hold one index per dimension; `a` is the local block of array `h`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_own_read(h: i64, a: *const u8, idx: *const i64, src: i64) -> i32 {
    with(|rt| {
        let l = rt.layout(h);
        let idx = slice(idx, l.dims.len());
        check_global(rt, l, idx, src);
        let own = l.owns(idx);
        if own {
            gpu_abi::host_needs(a, l, idx, idx);
        }
        own as i32
    })
}

fn check_global(rt: &Rt, l: &Layout, idx: &[i64], src: i64) {
    for (d, (&i, dim)) in idx.iter().zip(&l.dims).enumerate() {
        if i < dim.glo || i > dim.ghi {
            rt.fail(
                src,
                &format!(
                    "index {i} of dimension {} is outside the array bounds {}:{}",
                    d + 1,
                    dim.glo,
                    dim.ghi
                ),
            );
        }
    }
}

/// Read one element of a distributed array on every process: the owner sends it to all.
///
/// # Safety
/// `a` is the local block of array `h`, `out` has room for one element.
#[no_mangle]
pub unsafe extern "C" fn sapfor_get(h: i64, a: *const u8, idx: *const i64, out: *mut u8, src: i64) {
    with(|rt| {
        if !rt.profiling {
            return get_element(rt, h, a, idx, out, src);
        }
        // the profile counts the reads, and the messages they cost, by statement
        let (t, m) = (Instant::now(), rt.remote.count);
        get_element(rt, h, a, idx, out, src);
        let e = rt.reads_at.entry(src).or_default();
        e.0 += 1;
        e.1 += rt.remote.count - m;
        e.2 += t.elapsed().as_secs_f64();
    })
}

unsafe fn get_element(rt: &mut Rt, h: i64, a: *const u8, idx: *const i64, out: *mut u8, src: i64) {
    let t = rt.clock();
    let l = rt.layout_rc(h).clone();
    let idx = slice(idx, l.dims.len());
    check_global(rt, &l, idx, src);
    let es = l.esize;
    let buf = std::slice::from_raw_parts_mut(out, es);
    // one process: its block is the whole array, no cache or owner to go through (NPB CG's
    // set-up reads 5.8 million elements one by one at class A)
    if rt.size == 1 {
        gpu_abi::host_needs(a, &l, idx, idx);
        let off = l.offset(idx) * es;
        buf.copy_from_slice(slice(a.add(off), es));
        rt.remote.add(t, es as u64);
        return;
    }
    if let Some((bl, data)) = rt.caches.get(&h).and_then(|c| c.last_box(idx)) {
        box_element(bl, data, idx, buf);
        rt.cached.add(t, 0);
        return;
    }
    let oc = l.owner_coords(idx, &rt.grid);
    let owner = rt.rank_of(&oc);
    if rt.caches.contains_key(&h) {
        cached_get(rt, h, &l, a, idx, &oc, owner, buf);
        return;
    }
    let t = rt.sync_point();
    if owner == rt.rank {
        gpu_abi::host_needs(a, &l, idx, idx);
        let off = l.offset(idx) * es;
        buf.copy_from_slice(slice(a.add(off), es));
    }
    rt.bcast(owner, buf);
    rt.remote.add(t, es as u64);
}

/// Element `idx` of a cached box (`bl` its layout, `data` its elements) into `out`.
fn box_element(bl: &Layout, data: &[u8], idx: &[i64], out: &mut [u8]) {
    let off = bl.offset(idx) * out.len();
    out.copy_from_slice(&data[off..off + out.len()]);
}

/// One element through the read cache of array `h`: from a cached box, or the owner sends
/// the box around it to every process first.
unsafe fn cached_get(rt: &mut Rt, h: i64, l: &Layout, a: *const u8, idx: &[i64], oc: &[usize], owner: usize, out: &mut [u8]) {
    let t = rt.clock();
    let es = l.esize;
    let ol = l.for_coords(oc, &rt.grid);
    let (key, lo, hi) = cache_box(&ol.own_lo, &ol.own_hi, idx);
    let k = (owner, key);
    if let Some(c) = rt.caches.get_mut(&h) {
        if let Some((bl, data)) = c.boxes.get(&k) {
            box_element(bl, data, idx, out);
            c.last = Some((k, lo, hi));
            rt.cached.add(t, 0);
            return;
        }
    }
    let t = rt.sync_point();
    let mut data = if owner == rt.rank { l.pack(a, &lo, &hi) } else { vec![0u8; l.count(&lo, &hi) * es] };
    rt.bcast(owner, &mut data);
    let bl = Layout::whole(es, &lo, &hi);
    box_element(&bl, &data, idx, out);
    rt.remote.add(t, data.len() as u64);
    let c = rt.caches.entry(h).or_default();
    if c.bytes + data.len() > CACHE_MAX_BYTES {
        c.boxes.clear();
        c.bytes = 0;
    }
    c.bytes += data.len();
    c.last = Some((k.clone(), lo, hi));
    c.boxes.insert(k, (bl, data));
}

/// Start caching the elements of array `h` that `sapfor_get` fetches: the code until
/// `sapfor_cache_end(h)` reads the array and never writes it (the converter checks), so a
/// fetched box stays valid. Every process calls it at the same point.
/// `SAPFOR_READ_CACHE=0` turns the caches off (every read one message, for comparisons).
#[no_mangle]
pub extern "C" fn sapfor_cache_begin(h: i64) {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let off = *OFF.get_or_init(|| turned_off("SAPFOR_READ_CACHE"));
    with(|rt| {
        rt.layout(h);
        if !off {
            rt.caches.insert(h, ReadCache::default());
        }
    })
}

/// Whether environment variable `var` is set to 0 (a switch for comparisons).
pub(crate) fn turned_off(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v.trim() == "0")
}

/// Stop caching array `h` (the cached boxes are dropped).
#[no_mangle]
pub extern "C" fn sapfor_cache_end(h: i64) {
    with(|rt| {
        rt.caches.remove(&h);
    })
}

/// Renew the shadow edges of array `h` with widths `wlo/whi` (corners included).
///
/// # Safety
/// `a` is the local block of array `h`; `wlo/whi` hold one width per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_shadow_renew(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64) {
    with(|rt| {
        let r = rt.layout(h).dims.len();
        if let Some((_, dlo, dhi)) = rt.held.get(&h) {
            // held unchanged: edges renewed whole once serve every later renewal as wide
            // (the same decision on every process: they renew alike)
            let (wlo, whi) = (slice(wlo, r), slice(whi, r));
            if !dlo.is_empty() && (0..r).all(|d| wlo[d] <= dlo[d] && whi[d] <= dhi[d]) {
                rt.held_skips.count += 1;
                return;
            }
        }
        let (mut wlo, mut whi) = (slice(wlo, r).to_vec(), slice(whi, r).to_vec());
        let mut lim = rt.limit(h);
        if let Some((_, dlo, dhi)) = rt.held.get_mut(&h) {
            for d in 0..r {
                wlo[d] = wlo[d].max(*dlo.get(d).unwrap_or(&0));
                whi[d] = whi[d].max(*dhi.get(d).unwrap_or(&0));
            }
            lim = None;
            (*dlo, *dhi) = (wlo.clone(), whi.clone());
        }
        let t = rt.sync_point();
        let l = rt.layout(h).clone();
        let mut bytes = 0;
        for d in 0..r {
            bytes += exchange(rt, &l, a, d, wlo[d], whi[d], lim.as_ref());
        }
        rt.shadow.add(t, bytes);
    })
}

/// Whether renewing the shadow edges of array `h` with widths `wlo/whi` leaves every element
/// of its planes `lo..hi` along dimension `d` (from 1) as it is: those planes are this
/// process's own, and no other dimension with an edge renewed is divided between processes
/// (whose edges lie inside every plane). Two PARALLEL loops run as one with the renewal
/// between them (convert_fuse.rs) run the second loop's planes that read only such planes
/// before the renewal; 0 keeps them all after it, in the original order.
///
/// # Safety
/// `wlo/whi` hold one width per dimension of the array.
#[no_mangle]
pub unsafe extern "C" fn sapfor_renews_outside(h: i64, d: i32, lo: i64, hi: i64, wlo: *const i64, whi: *const i64) -> i32 {
    with(|rt| {
        let l = rt.layout(h);
        let r = l.dims.len();
        let (wlo, whi) = (slice(wlo, r), slice(whi, r));
        let d = (d as usize).wrapping_sub(1);
        if d >= r {
            return 0;
        }
        let divided = |e: usize| l.dims[e].axis.is_some_and(|ax| rt.grid[ax] > 1);
        let others = (0..r).all(|e| e == d || (wlo[e] <= 0 && whi[e] <= 0) || !divided(e));
        let own = lo > hi || !divided(d) || (l.own_lo[d] <= lo && hi <= l.own_hi[d]);
        (others && own) as i32
    })
}

/// A sequential loop that writes array `h` nowhere (no assignment, input or called procedure
/// writes it, checked by the converter) starts: until `sapfor_shadow_free`, the first renewal
/// of its shadow edges renews them whole (not only the box of a `sapfor_limit`), and a later
/// one no wider is skipped. NPB LU's SSOR renews plane K of U in JACLD for every K; U changes
/// only after the K loop. Holds nest; a negative handle (an array not set up yet) is ignored.
/// `SAPFOR_HOLDS=0` (forwarded by `sapfor run`) ignores every hold (for comparisons).
#[no_mangle]
pub extern "C" fn sapfor_shadow_hold(h: i64) {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if h < 0 || *OFF.get_or_init(|| turned_off("SAPFOR_HOLDS")) {
        return;
    }
    with(|rt| rt.held.entry(h).or_insert((0, vec![], vec![])).0 += 1)
}

/// The end of the loop of `sapfor_shadow_hold(h)`: later renewals exchange again.
#[no_mangle]
pub extern "C" fn sapfor_shadow_free(h: i64) {
    with(|rt| {
        if let Some(e) = rt.held.get_mut(&h) {
            e.0 -= 1;
            if e.0 == 0 {
                rt.held.remove(&h);
            }
        }
    })
}

/// The next shadow renewals and ACROSS messages of array `h` carry only the box `lo..hi` in
/// the dimensions whose bit is set in `mask` (bit 0 for the first dimension), until
/// `sapfor_unlimit`: what a parallel loop does with the array lies in that box (its references
/// index such a dimension by one value the loop does not change, plus constants: NPB LU's
/// `JACLD(K)` reads plane K of U, whose shadow edges along a divided I used to travel whole).
/// The box is the same on every process, so the messages stay paired (a message may become
/// empty).
///
/// # Safety
/// `lo`/`hi` hold one bound per dimension of the array.
#[no_mangle]
pub unsafe extern "C" fn sapfor_limit(h: i64, mask: i64, lo: *const i64, hi: *const i64) {
    with(|rt| {
        let r = rt.layout(h).dims.len();
        let (lo, hi) = (slice(lo, r), slice(hi, r));
        let limited = |d: usize| mask >> d & 1 == 1;
        // (the box's vectors are kept between loops: a loop run many times allocates nothing)
        let (blo, bhi) = rt.limits.entry(h).or_default();
        blo.clear();
        bhi.clear();
        blo.extend((0..r).map(|d| if limited(d) { lo[d] } else { i64::MIN }));
        bhi.extend((0..r).map(|d| if limited(d) { hi[d] } else { i64::MAX }));
    })
}

/// The end of the loop `sapfor_limit` was called for: exchanges of `h` carry whole planes again
/// (an empty box is no limit).
#[no_mangle]
pub extern "C" fn sapfor_unlimit(h: i64) {
    with(|rt| {
        if let Some((lo, hi)) = rt.limits.get_mut(&h) {
            lo.clear();
            hi.clear();
        }
    })
}

/// A section's bounds `lo..hi` narrowed to a limit box (see `sapfor_limit`) in every dimension
/// but `d` (the one the message crosses). The section may become empty.
fn clip(lim: Option<&(Vec<i64>, Vec<i64>)>, d: usize, lo: &mut [i64], hi: &mut [i64]) {
    if let Some((llo, lhi)) = lim {
        for k in (0..lo.len()).filter(|&k| k != d) {
            lo[k] = lo[k].max(llo[k]);
            hi[k] = hi[k].min(lhi[k]);
        }
    }
}

/// Exchange along dimension `d`: the low shadow (width wl) is filled from the low
/// neighbour, the high shadow (width wh) from the high neighbour, within the limit box `lim`
/// in the other dimensions. Returns bytes received.
unsafe fn exchange(rt: &Rt, l: &Layout, a: *mut u8, d: usize, wl: i64, wh: i64, lim: Option<&(Vec<i64>, Vec<i64>)>) -> u64 {
    let Some(axis) = l.dims[d].axis else { return 0 };
    if l.empty() {
        return 0;
    }
    let (wl_req, wh_req) = (wl, wh);
    let wl = wl.min(l.own_lo[d] - l.alo[d]).max(0);
    let wh = wh.min(l.ahi[d] - l.own_hi[d]).max(0);
    let c = rt.coords[axis];
    // the other processes along the axis whose blocks are within reach of a shadow edge
    // (mine or theirs: widths are requested alike on every process): usually only the two
    // neighbours, but a shadow wider than a block reaches further (small arrays on many
    // processes), and each process then sends the part of the edge it owns. Blocks follow
    // the coordinates in order, and the empty ones come last.
    let reach = wl_req.max(wh_req).max(0);
    let mut others: Vec<(usize, Layout)> = vec![];
    for dir in [-1i64, 1] {
        let mut nc = c as i64 + dir;
        while nc >= 0 && nc < rt.grid[axis] as i64 {
            let mut cc = rt.coords.clone();
            cc[axis] = nc as usize;
            let nl = l.for_coords(&cc, &rt.grid);
            let gap = if dir < 0 { l.own_lo[d] - nl.own_hi[d] } else { nl.own_lo[d] - l.own_hi[d] } - 1;
            if nl.empty() || gap >= reach {
                break;
            }
            others.push((rt.rank_of(&cc), nl));
            nc += dir;
        }
    }
    // my own edges, below and above
    let my_low = if wl > 0 { (l.own_lo[d] - wl, l.own_lo[d] - 1) } else { (1, 0) };
    let my_high = if wh > 0 { (l.own_hi[d] + 1, l.own_hi[d] + wh) } else { (1, 0) };
    // What I send to another process: the planes of mine that fall into its shadow edge on
    // my side (widths are requested alike on every process, clipped to each one's allocated
    // range). A contiguous slab travels straight from and into the block; any other one
    // through a buffer. Between two processes at most one message goes each way.
    let es = l.esize;
    let mut sends: Vec<(usize, Slab)> = vec![];
    let mut recvs: Vec<(usize, Slab)> = vec![];
    let slab = |from: i64, to: i64, fill: bool| -> Slab {
        let mut lo = l.alo.clone();
        let mut hi = l.ahi.clone();
        lo[d] = from;
        hi[d] = to;
        clip(lim, d, &mut lo, &mut hi);
        match l.contiguous(&lo, &hi) {
            Some((off, n)) => {
                if fill {
                    // (pack does this for the other slabs)
                    gpu_abi::host_needs(a, l, &lo, &hi);
                }
                Slab {
                    ptr: a.add(off * es),
                    len: n * es,
                    buf: None,
                    sect: (lo, hi),
                }
            }
            None => {
                let mut b = if fill {
                    l.pack(a, &lo, &hi)
                } else {
                    vec![0u8; l.count(&lo, &hi) * es]
                };
                Slab {
                    ptr: b.as_mut_ptr(),
                    len: b.len(),
                    buf: Some((lo.clone(), hi.clone(), b)),
                    sect: (lo, hi),
                }
            }
        }
    };
    for (nr, nl) in &others {
        let below = nl.own_hi[d] < l.own_lo[d];
        // its shadow edge facing me, and mine facing it
        let (theirs, mine) = if below {
            let nwh = wh_req.min(nl.ahi[d] - nl.own_hi[d]).max(0);
            ((nl.own_hi[d] + 1, nl.own_hi[d] + nwh), my_low)
        } else {
            let nwl = wl_req.min(nl.own_lo[d] - nl.alo[d]).max(0);
            ((nl.own_lo[d] - nwl, nl.own_lo[d] - 1), my_high)
        };
        let (slo, shi) = (theirs.0.max(l.own_lo[d]), theirs.1.min(l.own_hi[d]));
        if slo <= shi {
            sends.push((*nr, slab(slo, shi, true)));
        }
        let (rlo, rhi) = (mine.0.max(nl.own_lo[d]), mine.1.min(nl.own_hi[d]));
        if rlo <= rhi {
            recvs.push((*nr, slab(rlo, rhi, false)));
        }
    }
    if sends.is_empty() && recvs.is_empty() {
        return 0;
    }
    // Non-blocking exchange: post all receives and sends, then wait. The slabs do not
    // overlap: sends are owned planes, receives shadow planes.
    let world = rt.comm();
    mpi::request::scope(|scope| {
        let mut rreqs = vec![];
        for (nr, s) in recvs.iter() {
            let buf = std::slice::from_raw_parts_mut(s.ptr, s.len);
            let p = world.process_at_rank(*nr as i32);
            rreqs.push(p.immediate_receive_into(scope, buf));
        }
        let mut sreqs = vec![];
        for (nr, s) in sends.iter() {
            let buf: &[u8] = std::slice::from_raw_parts(s.ptr, s.len);
            let p = world.process_at_rank(*nr as i32);
            sreqs.push(p.immediate_send(scope, buf));
        }
        for r in rreqs {
            r.wait();
        }
        for s in sreqs {
            s.wait();
        }
    });
    let mut bytes = 0u64;
    for (_, s) in recvs.iter() {
        match &s.buf {
            Some((lo, hi, buf)) => l.unpack(a, lo, hi, buf),
            // (unpack does this for the other slabs)
            None => gpu_abi::host_wrote(a, l, &s.sect.0, &s.sect.1),
        }
        bytes += s.len as u64;
    }
    bytes
}

/// A section of a block to send or receive: `len` bytes at `ptr`, either in the block itself
/// (contiguous) or in `buf` (packed; for a receive, the section to unpack it into).
struct Slab {
    ptr: *mut u8,
    len: usize,
    buf: Option<(Vec<i64>, Vec<i64>, Vec<u8>)>,
    /// The section (global indices): the accelerator's copy is kept in step with it.
    sect: (Vec<i64>, Vec<i64>),
}

/// One step of the ACROSS pipeline of array `h`: along every dimension `dims` admits that has
/// a flow dependence, receive the predecessor's boundary planes (`send` false) or send ours
/// on. A dimension's flow follows the loop indexing it: `dirs[d]` = 1 when that loop runs
/// upwards (new values flow from lower to higher indices; the low width `wlo[d]` says how far
/// behind a reference reads), -1 when it runs downwards (from higher to lower; the high width
/// `whi[d]`). `t`: one tile (see `pipe_in`).
#[allow(clippy::too_many_arguments)]
unsafe fn across_step(
    h: i64,
    a: *mut u8,
    wlo: *const i64,
    whi: *const i64,
    dirs: *const i64,
    send: bool,
    dims: impl Fn(usize) -> bool,
    t: Option<(usize, i64, i64)>,
) {
    with(|rt| {
        let start = Instant::now();
        let l = rt.layout(h).clone();
        let r = l.dims.len();
        let (wlo, whi, dirs) = (slice(wlo, r), slice(whi, r), slice(dirs, r));
        let lim = rt.limit(h);
        let mut bytes = 0;
        for d in (0..r).filter(|&d| dims(d)) {
            let (dir, w) = flow_side(d, wlo, whi, dirs);
            if w > 0 {
                bytes += pipe_in(rt, &l, a, d, w, dir, send, t, lim.as_ref());
            }
        }
        rt.across.add(start, bytes);
    })
}

/// Start of an ACROSS loop: renew the shadows against the flow (old values), then wait for the new boundary
/// values of the predecessors along every dimension with a flow dependence (the low
/// neighbour's where the loop runs upwards, the high neighbour's where it runs downwards).
///
/// # Safety
/// As `sapfor_shadow_renew`; `dirs` holds one element per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_across_begin(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64) {
    renew_against_flow(h, a, wlo, whi, dirs);
    across_step(h, a, wlo, whi, dirs, false, |_| true, None);
}

/// The shadow renewal at the start of an ACROSS loop: the edges against each dimension's flow
/// only (old values read ahead: the high edge where the loop runs upwards). The edges on the
/// flow's side are what the pipeline's messages fill, over the same box, before any
/// iteration reads them; renewing them too cost a message that, over the eager limit of the
/// shared-memory transport (NPB LU-like planes of a few kilobytes), waited for the successor
/// to take it, so each process waited for the next one to finish its previous plane and the
/// planes of consecutive loops did not overlap (a 400x400x200 sweep at `--np 2` with the
/// whole plane as one tile took as long as one process).
unsafe fn renew_against_flow(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64) {
    let r = with(|rt| rt.layout(h).dims.len());
    let (mut lo, mut hi) = (slice(wlo, r).to_vec(), slice(whi, r).to_vec());
    for (d, dir) in slice(dirs, r).iter().enumerate() {
        if *dir < 0 {
            hi[d] = 0;
        } else {
            lo[d] = 0;
        }
    }
    // (nothing against the flow, the usual case: no renewal, and under `--profile` no barrier
    // before it that would make the processes wait for each other as the run without it
    // does not; an ACROSS array is written by its loop, so no hold counts on this renewal)
    if lo.iter().chain(&hi).all(|w| *w == 0) {
        return;
    }
    sapfor_shadow_renew(h, a, lo.as_ptr(), hi.as_ptr());
}

/// End of an ACROSS loop: send the new boundary planes to the successors.
///
/// # Safety
/// As `sapfor_across_begin`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_across_end(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64) {
    across_step(h, a, wlo, whi, dirs, true, |_| true, None);
}

/// The process a pipeline step along dimension `d` in direction `dir` talks to (the next one
/// in the flow's direction when sending, the previous one when receiving) and its block;
/// none where `d` is not divided, at the grid's edge, or where either block is empty.
fn pipe_peer(rt: &Rt, l: &Layout, d: usize, dir: i64, send: bool) -> Option<(i32, Layout)> {
    let axis = l.dims[d].axis?;
    if l.empty() {
        return None;
    }
    let c = rt.coords[axis] as i64 + if send { dir } else { -dir };
    if c < 0 || c >= rt.grid[axis] as i64 {
        return None;
    }
    let mut cc = rt.coords.clone();
    cc[axis] = c as usize;
    let nl = l.for_coords(&cc, &rt.grid);
    (!nl.empty()).then(|| (rt.rank_of(&cc) as i32, nl))
}

/// Dimension `d`'s flow in an ACROSS loop: its direction (1 upwards, -1 downwards) and the
/// width of the dependence on the predecessor's side (the low width upwards, the high one
/// downwards).
fn flow_side(d: usize, wlo: &[i64], whi: &[i64], dirs: &[i64]) -> (i64, i64) {
    if dirs[d] < 0 {
        (-1, whi[d])
    } else {
        (1, wlo[d])
    }
}

/// The width of the predecessor's planes a pipeline step along `d` receives: `w`, as far as
/// this process's shadow edge on the predecessor's side reaches.
fn received_width(l: &Layout, d: usize, w: i64, dir: i64) -> i64 {
    w.min(if dir > 0 { l.own_lo[d] - l.alo[d] } else { l.ahi[d] - l.own_hi[d] })
}

/// The first predecessor this process receives a pipelined ACROSS loop's tiles from (along a
/// dimension other than the tiled one, `td`, with a flow dependence and a shadow edge on the
/// predecessor's side); none for the process that heads the pipeline.
fn pipe_predecessor(rt: &Rt, l: &Layout, td: usize, (wlo, whi, dirs): (&[i64], &[i64], &[i64])) -> Option<i32> {
    (0..l.dims.len()).filter(|&d| d != td).find_map(|d| {
        let (dir, w) = flow_side(d, wlo, whi, dirs);
        if received_width(l, d, w, dir) <= 0 {
            return None;
        }
        pipe_peer(rt, l, d, dir, false).map(|(nr, _)| nr)
    })
}

/// One pipeline step along dimension d in direction `dir` (1: from lower to higher indices,
/// -1: from higher to lower): `send` = give my last `w` planes in that direction (the
/// highest ones upwards, the lowest downwards) to the next neighbour; otherwise receive the
/// previous neighbour's into my shadow on its side. `t` restricts dimension `t.0` to the
/// global range t.1..=t.2 (one tile; the first and last tiles extend over the shadow edges
/// so corners travel too); `lim` narrows the other dimensions (see `sapfor_limit`).
#[allow(clippy::too_many_arguments)]
unsafe fn pipe_in(
    rt: &Rt,
    l: &Layout,
    a: *mut u8,
    d: usize,
    w: i64,
    dir: i64,
    send: bool,
    t: Option<(usize, i64, i64)>,
    lim: Option<&(Vec<i64>, Vec<i64>)>,
) -> u64 {
    let Some((nr, nl)) = pipe_peer(rt, l, d, dir, send) else { return 0 };
    let mut lo = l.alo.clone();
    let mut hi = l.ahi.clone();
    if let Some((td, tlo, thi)) = t {
        if tlo > l.own_lo[td] {
            lo[td] = tlo;
        }
        if thi < l.own_hi[td] {
            hi[td] = thi;
        }
        if hi[td] < lo[td] {
            return 0;
        }
    }
    clip(lim, d, &mut lo, &mut hi);
    if send {
        // as far as the receiver's shadow on my side reaches
        let w = received_width(&nl, d, w, dir);
        if w <= 0 {
            return 0;
        }
        // a width larger than my block reaches into my shadow on the predecessor's side,
        // which already holds its final planes (received before I computed mine)
        if dir > 0 {
            lo[d] = l.own_hi[d] - w + 1;
            hi[d] = l.own_hi[d];
        } else {
            lo[d] = l.own_lo[d];
            hi[d] = l.own_lo[d] + w - 1;
        }
        if lo[d] < l.alo[d] || hi[d] > l.ahi[d] {
            rt.fail(0, "an ACROSS width is larger than the array's shadow edge (converter bug)");
        }
        let buf = l.pack(a, &lo, &hi);
        rt.comm_to_send().process_at_rank(nr).send_with_tag(&buf[..], rt.across_tag);
        buf.len() as u64
    } else {
        let w = received_width(l, d, w, dir);
        if w <= 0 {
            return 0;
        }
        if dir > 0 {
            lo[d] = l.own_lo[d] - w;
            hi[d] = l.own_lo[d] - 1;
        } else {
            lo[d] = l.own_hi[d] + 1;
            hi[d] = l.own_hi[d] + w;
        }
        let mut buf = vec![0u8; l.count(&lo, &hi) * l.esize];
        rt.comm().process_at_rank(nr).receive_into(&mut buf[..]);
        l.unpack(a, &lo, &hi, &buf);
        buf.len() as u64
    }
}

/// Tiled ACROSS (pipelined): start. Renews the shadows against the flow (old values) and waits for the
/// predecessor along the tiled dimension `tdim` (1-based) when it has a flow dependence.
///
/// # Safety
/// As `sapfor_across_begin`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_across_start(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64, tdim: i32) {
    with(|rt| {
        let r = rt.layout(h).dims.len();
        rt.across_now = Some(AcrossNow { h, wlo: slice(wlo, r).to_vec(), whi: slice(whi, r).to_vec(), dirs: slice(dirs, r).to_vec() });
        rt.across_tag = 0;
        rt.across_quiet = false;
    });
    renew_against_flow(h, a, wlo, whi, dirs);
    let td = tdim as usize - 1;
    across_step(h, a, wlo, whi, dirs, false, |d| d == td, None);
}

/// One tile (global range tlo..=thi of dimension `tdim`) of a pipelined ACROSS loop:
/// `send` = 0 before computing it (receive the predecessors' boundary planes of this tile
/// along every other dimension with a flow dependence), 1 after (send ours on).
///
/// # Safety
/// As `sapfor_across_begin`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sapfor_across_tile(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64, tdim: i32, tlo: i64, thi: i64, send: i32) {
    let td = tdim as usize - 1;
    across_step(h, a, wlo, whi, dirs, send != 0, |d| d != td, Some((td, tlo, thi)));
}

/// Tiled ACROSS: end; send the boundary along the tiled dimension to its successor.
///
/// # Safety
/// As `sapfor_across_begin`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_across_finish(h: i64, a: *mut u8, wlo: *const i64, whi: *const i64, dirs: *const i64, tdim: i32) {
    let td = tdim as usize - 1;
    across_step(h, a, wlo, whi, dirs, true, |d| d == td, None);
    with(|rt| {
        let run = if rt.across_quiet { rt.across_seen.get(&(h, tdim)).map_or(0, |s| s.1) + 1 } else { 0 };
        let seen = rt.comms.get();
        rt.across_seen.insert((h, tdim), (seen, run));
        rt.across_now = None;
        rt.across_quiet = false;
        rt.across_tag = 0;
    });
}

/// Tile size of a pipelined ACROSS loop along dimension `tdim`: `SAPFOR_ACROSS_TILE` if set;
/// else the whole owned extent when no other dimension of the array with a flow dependence
/// is divided between processes (no pipeline: tiles would only cut the loop into short
/// pieces; Gauss-Seidel 2000^2 on one process ran 1.5 times slower with 16 tiles, the DVM
/// system's `adi.fdv` sweeps along I and J, whose planes of K are divided, 2 times slower on
/// two processes); else, for a loop that runs in
/// a stream, the whole owned extent too; else the owned extent / 16 (at least 1).
///
/// A stream: the process heading the pipeline (it receives no tiles) has communicated
/// nothing since it last finished this loop (same array and tiled dimension), nor between
/// the `STREAM_AFTER` executions before, so nothing made it wait for the processes after
/// it: it runs on to the loop's next execution while
/// they compute this one, and they start one execution behind instead of one tile (NPB LU's
/// BLTS and BUTS, called for each plane K between loops that only read held arrays: 13
/// messages per plane and loop at class A with tiles of 5, one with the whole extent). The
/// head decides; its tile messages carry the decision in their tag, and each process after
/// it waits here for its predecessor's first tile message and cuts the tiles it says (the
/// same everywhere: every process of a pipeline has the same owned extent in that
/// dimension).
#[no_mangle]
pub extern "C" fn sapfor_across_tile_size(h: i64, tdim: i32) -> i64 {
    across_tile_size(h, tdim, 1)
}

/// `sapfor_across_tile_size` for a loop run on `threads` threads (a pipeline between them,
/// `omp::sapfor_tpipe_tile_size`): on more than one, the owned extent cut into 8 tiles a
/// thread (the pipeline fills in threads - 1 tiles: 16 tiles on 2 threads keep 94% of the
/// work overlapped).
fn across_tile_size(h: i64, tdim: i32, threads: i32) -> i64 {
    let lo = owned(h, tdim, false);
    let hi = owned(h, tdim, true);
    let ext = (hi - lo + 1).max(1);
    match std::env::var("SAPFOR_ACROSS_TILE").ok().and_then(|v| v.trim().parse::<i64>().ok()) {
        Some(t) if t > 0 => t,
        _ if threads > 1 => {
            let tiles = 8 * threads as i64;
            ((ext + tiles - 1) / tiles).max(1)
        }
        _ if !across_pipeline(h, tdim) => ext,
        _ if across_stream(h, tdim) => ext,
        _ => ((ext + 15) / 16).max(1),
    }
}

/// Whether a pipeline of processes feeds the tiles of an ACROSS loop over array `h` tiled
/// along dimension `tdim`: another dimension of the array is divided between processes, one
/// with a flow dependence in the ACROSS loop running now (`sapfor_across_start`; any divided
/// one outside it).
fn across_pipeline(h: i64, tdim: i32) -> bool {
    with(|rt| {
        let l = rt.layout(h);
        let now = rt.across_now.as_ref().filter(|n| n.h == h);
        l.dims.iter().enumerate().any(|(d, dim)| {
            d + 1 != tdim as usize
                && dim.axis.is_some_and(|ax| rt.grid.get(ax).is_some_and(|&n| n > 1))
                && now.is_none_or(|n| flow_side(d, &n.wlo, &n.whi, &n.dirs).1 > 0)
        })
    })
}

/// Quiet executions in a row (none communicated since the one before) after which the next
/// quiet one streams: a stream costs its successors one execution's wait where it ends (the
/// head then waits for them to finish theirs), which two or three sweeps in a row (a
/// symmetric relaxation before a convergence test) would pay without gaining from it.
const STREAM_AFTER: u32 = 2;

/// Whether this execution of the pipelined ACROSS loop over array `h` runs as a stream (see
/// `sapfor_across_tile_size`); sets the tag of the tile messages this process sends.
fn across_stream(h: i64, tdim: i32) -> bool {
    with(|rt| {
        let Some(AcrossNow { wlo, whi, dirs, .. }) = rt.across_now.clone().filter(|n| n.h == h) else { return false };
        let l = rt.layout_rc(h).clone();
        let stream = match pipe_predecessor(rt, &l, tdim as usize - 1, (&wlo, &whi, &dirs)) {
            Some(nr) => {
                // (the wait for the predecessor's first tile, timed as the pipeline's)
                let t = Instant::now();
                let tag = rt.comm().process_at_rank(nr).probe().tag();
                rt.across.secs += t.elapsed().as_secs_f64();
                tag == 1
            }
            None => {
                let seen = rt.across_seen.get(&(h, tdim)).copied();
                rt.across_quiet = seen.is_some_and(|(c, _)| c == rt.comms.get());
                rt.across_quiet && seen.is_some_and(|(_, run)| run >= STREAM_AFTER)
            }
        };
        rt.across_tag = stream as i32;
        stream
    })
}

/// A parallel loop is about to write elements of a replicated (non-distributed) array: keep
/// a copy, so that `sapfor_merge_end` can find what each process changed. Every process
/// first takes process 0's values, so that all start from the same bytes: elements never
/// defined may hold different garbage on each process, and a byte that a process writes
/// with the value its own garbage had would otherwise look unchanged and keep another
/// process's garbage.
///
/// # Safety
/// `x` must point to `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn sapfor_merge_begin(x: *mut u8, n: i64) {
    with(|rt| {
        let n = n.max(0) as usize;
        let mut b = vec![];
        if rt.size > 1 && n > 0 {
            // the copies are usually equal already (replicated code keeps them so): then a
            // hash of each says so, without sending the array
            let h = fx_hash(slice(x, n)).to_ne_bytes();
            let all = rt.all_gather(&h);
            if all.chunks(8).any(|c| c != h) {
                rt.bcast(0, std::slice::from_raw_parts_mut(x, n));
            }
            b = slice(x, n).to_vec();
        }
        rt.merges.push((x as usize, n, b));
    })
}

/// A 64-bit hash of `b`, a word at a time.
fn fx_hash(b: &[u8]) -> u64 {
    let mut h: u64 = b.len() as u64;
    let mut it = b.chunks_exact(8);
    for c in &mut it {
        h = (h.rotate_left(5) ^ u64::from_ne_bytes(c.try_into().unwrap())).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    for &c in it.remainder() {
        h = (h.rotate_left(5) ^ c as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    h
}

/// After the loop: every process gets every element that some process changed (each
/// iteration ran on one process, so each element was written by one process, or by replicas
/// with the same value). Byte-wise: a byte that differs from the common copy on some process
/// takes that process's value (the highest rank's where several changed it, the same on
/// every process); a byte no process changed keeps the copy's value, which is also what a
/// writer wrote there. Each process sends only the runs of words it changed.
///
/// # Safety
/// As `sapfor_merge_begin`, same `x` and `n`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_merge_end(x: *mut u8, n: i64) {
    with(|rt| {
        let t = rt.sync_point();
        let n = n.max(0) as usize;
        let Some(pos) = rt.merges.iter().rposition(|(p, m, _)| *p == x as usize && *m == n) else {
            rt.fail(0, "sapfor_merge_end without sapfor_merge_begin (converter bug)");
        };
        let (_, _, old) = rt.merges.remove(pos);
        if rt.size == 1 || n == 0 {
            return;
        }
        let out = std::slice::from_raw_parts_mut(x, n);
        let mine = changed_runs(&old, out);
        let all = gather_bytes(rt, &mine);
        for v in &all {
            apply_runs(&old, out, v);
        }
        rt.reduce.add(t, all.iter().map(|v| v.len() as u64).sum());
    })
}

/// The bytes of `new` that differ from `old`, in runs of whole 8-byte words: for each run its
/// offset and length (u64 each) and its bytes.
fn changed_runs(old: &[u8], new: &[u8]) -> Vec<u8> {
    const W: usize = 8;
    let n = new.len();
    let differs = |k: usize| {
        let e = (k + W).min(n);
        if e - k == W {
            u64::from_ne_bytes(old[k..e].try_into().unwrap()) != u64::from_ne_bytes(new[k..e].try_into().unwrap())
        } else {
            old[k..e] != new[k..e]
        }
    };
    let mut out = vec![];
    let mut k = 0;
    while k < n {
        if !differs(k) {
            k += W;
            continue;
        }
        let start = k;
        while k < n && differs(k) {
            k += W;
        }
        let end = k.min(n);
        out.extend_from_slice(&(start as u64).to_ne_bytes());
        out.extend_from_slice(&((end - start) as u64).to_ne_bytes());
        out.extend_from_slice(&new[start..end]);
    }
    out
}

/// Apply one process's runs (`changed_runs`) to `out`: the bytes that differ from `old`.
fn apply_runs(old: &[u8], out: &mut [u8], runs: &[u8]) {
    let mut p = 0;
    while p + 16 <= runs.len() {
        let off = u64::from_ne_bytes(runs[p..p + 8].try_into().unwrap()) as usize;
        let len = u64::from_ne_bytes(runs[p + 8..p + 16].try_into().unwrap()) as usize;
        let data = &runs[p + 16..p + 16 + len];
        let (o, w) = (&old[off..off + len], &mut out[off..off + len]);
        let words = len / 8 * 8;
        for k in (0..words).step_by(8) {
            let v = u64::from_ne_bytes(data[k..k + 8].try_into().unwrap());
            let d = v ^ u64::from_ne_bytes(o[k..k + 8].try_into().unwrap());
            if d == 0 {
                continue;
            }
            // 0xFF in every byte where v differs from old: bit 0 of each byte gathers its
            // eight bits
            let mut t = d | (d >> 4);
            t |= t >> 2;
            t |= t >> 1;
            let mask = (t & 0x0101_0101_0101_0101).wrapping_mul(0xFF);
            let cur = u64::from_ne_bytes(w[k..k + 8].try_into().unwrap());
            w[k..k + 8].copy_from_slice(&((cur & !mask) | (v & mask)).to_ne_bytes());
        }
        for k in words..len {
            if data[k] != o[k] {
                w[k] = data[k];
            }
        }
        p += 16 + len;
    }
}

/// Every process's `mine` (of any length), in rank order, on every process.
fn gather_bytes(rt: &Rt, mine: &[u8]) -> Vec<Vec<u8>> {
    let lens: Vec<usize> = rt
        .all_gather(&(mine.len() as u64).to_ne_bytes())
        .chunks(8)
        .map(|c| u64::from_ne_bytes(c.try_into().unwrap()) as usize)
        .collect();
    let maxl = *lens.iter().max().unwrap_or(&0);
    if maxl == 0 {
        return vec![vec![]; rt.size];
    }
    let mut padded = mine.to_vec();
    padded.resize(maxl, 0);
    let all = rt.all_gather(&padded);
    (0..rt.size).map(|p| all[p * maxl..p * maxl + lens[p]].to_vec()).collect()
}

/// Gather the owned parts of array `h` into `full` (global shape) on process 0, or on every
/// process when `all` is 1.
///
/// # Safety
/// `a` is the local block; `full` holds the whole array where it is gathered to.
#[no_mangle]
pub unsafe extern "C" fn sapfor_gather(h: i64, a: *const u8, full: *mut u8, all: i32) {
    with(|rt| {
        let t = rt.sync_point();
        let l = rt.layout(h).clone();
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let full_l = Layout::whole(l.esize, &glo, &ghi);
        let primary = |coords: &[usize]| primary_copy(&l, coords);
        let mut bytes = 0u64;
        if rt.rank == 0 {
            for r in 0..rt.size {
                let cc = coords_of(r, &rt.grid);
                if !primary(&cc) {
                    continue;
                }
                let rl = l.for_coords(&cc, &rt.grid);
                if rl.empty() {
                    continue;
                }
                let (lo, hi) = (rl.own_lo.clone(), rl.own_hi.clone());
                let buf = if r == 0 {
                    l.pack(a as *mut u8, &lo, &hi)
                } else {
                    let mut b = vec![0u8; l.count(&lo, &hi) * l.esize];
                    rt.comm().process_at_rank(r as i32).receive_into(&mut b[..]);
                    b
                };
                bytes += buf.len() as u64;
                full_l.unpack(full, &lo, &hi, &buf);
            }
        } else if primary(&rt.coords) && !l.empty() {
            let buf = l.pack(a as *mut u8, &l.own_lo.clone(), &l.own_hi.clone());
            rt.comm().process_at_rank(0).send(&buf[..]);
        }
        if all != 0 {
            let n = full_l.count(&glo, &ghi) * l.esize;
            let fb = std::slice::from_raw_parts_mut(full, n);
            rt.bcast(0, fb);
        }
        rt.gather.add(t, bytes);
    })
}

/// Whether the process at grid `coords` holds the copy of its block of an array laid out as
/// `l` that is sent around (one copy of each block): coordinate 0 on the axes the array's
/// distribution does not use.
fn primary_copy(l: &Layout, coords: &[usize]) -> bool {
    coords.iter().enumerate().all(|(ax, &c)| c == 0 || l.dims.iter().any(|d| d.axis == Some(ax)))
}

/// Fetch the box `lo..hi` (global indices, clipped to the array's bounds; nothing when empty)
/// of distributed array `h` into its full-size copy `full` on every process: each block's
/// owner sends its part of the box to all. A sequential loop nest that reads the array and
/// never writes it then reads the copy directly, instead of asking for each element (the
/// converter emits one call per section the nest reads, before the nest). Every process
/// calls it at the same point with the same box.
///
/// # Safety
/// `a` is the local block of array `h`, `full` has the array's global shape; `lo` and `hi`
/// hold one index per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_fetch(h: i64, a: *const u8, full: *mut u8, lo: *const i64, hi: *const i64) {
    with(|rt| {
        let t = rt.sync_point();
        let l = rt.layout_rc(h).clone();
        let r = l.dims.len();
        let (lo, hi) = (slice(lo, r), slice(hi, r));
        let blo: Vec<i64> = lo.iter().zip(&l.dims).map(|(&x, d)| x.max(d.glo)).collect();
        let bhi: Vec<i64> = hi.iter().zip(&l.dims).map(|(&x, d)| x.min(d.ghi)).collect();
        if blo.iter().zip(&bhi).any(|(a, b)| a > b) {
            return;
        }
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let full_l = Layout::whole(l.esize, &glo, &ghi);
        if rt.size == 1 {
            // the whole array is this process's block: one copy, no buffer
            gpu_abi::host_needs(a, &l, &blo, &bhi);
            l.copy_to(a, &full_l, full, &blo, &bhi);
            // (the copy's elements an accelerator holds, as parts of it given to procedures
            // with regions, are older now)
            gpu_abi::host_wrote(full, &full_l, &blo, &bhi);
            rt.fetch.add(t, 0);
            return;
        }
        let mut bytes = 0u64;
        for p in 0..rt.size {
            let cc = coords_of(p, &rt.grid);
            if !primary_copy(&l, &cc) {
                continue;
            }
            let pl = l.for_coords(&cc, &rt.grid);
            if pl.empty() {
                continue;
            }
            let ilo: Vec<i64> = pl.own_lo.iter().zip(&blo).map(|(a, b)| *a.max(b)).collect();
            let ihi: Vec<i64> = pl.own_hi.iter().zip(&bhi).map(|(a, b)| *a.min(b)).collect();
            if ilo.iter().zip(&ihi).any(|(a, b)| a > b) {
                continue;
            }
            let mut buf = if p == rt.rank {
                l.pack(a, &ilo, &ihi)
            } else {
                vec![0u8; l.count(&ilo, &ihi) * l.esize]
            };
            rt.bcast(p, &mut buf);
            if p != rt.rank {
                bytes += buf.len() as u64;
            }
            full_l.unpack(full, &ilo, &ihi, &buf);
        }
        rt.fetch.add(t, bytes);
    })
}

/// The boxes of a loop divided on a template over full copies (docs/runtime.md): each process
/// names its own box `lo..hi` (global indices, clipped to the array's bounds; empty when some
/// `lo > hi`), the planes of its iterations. `back == 0`: fetch that box of distributed array
/// `h` into the full copy `full` (each block's owner sends each process the part of its box it
/// owns: `full` holds current values there). `back != 0`: return the box, which this process
/// computed in `full`, to the owners (each process sends each owner the part of its box that
/// owner's block holds; the owners store it in their blocks `a`). Every process calls it at
/// the same point; the boxes may differ.
///
/// # Safety
/// `a` is the local block of array `h`, `full` has the array's global shape; `lo` and `hi`
/// hold one index per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_slices(h: i64, a: *mut u8, full: *mut u8, lo: *const i64, hi: *const i64, back: i32) {
    with(|rt| {
        let t = rt.sync_point();
        let l = rt.layout_rc(h).clone();
        let r = l.dims.len();
        let (lo, hi) = (slice(lo, r), slice(hi, r));
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let full_l = Layout::whole(l.esize, &glo, &ghi);
        let mut mine: Vec<u8> = vec![];
        for (k, x) in lo.iter().chain(hi.iter()).enumerate() {
            let v = if k < r { (*x).max(glo[k]) } else { (*x).min(ghi[k - r]) };
            mine.extend_from_slice(&v.to_le_bytes());
        }
        let all = rt.all_gather(&mine);
        let word = |p: usize, k: usize| i64::from_le_bytes(all[(p * 2 * r + k) * 8..(p * 2 * r + k + 1) * 8].try_into().expect("8 bytes"));
        let box_of = |p: usize| -> (Vec<i64>, Vec<i64>) { ((0..r).map(|k| word(p, k)).collect(), (0..r).map(|k| word(p, r + k)).collect()) };
        let meet = |alo: &[i64], ahi: &[i64], blo: &[i64], bhi: &[i64]| -> Option<(Vec<i64>, Vec<i64>)> {
            let ilo: Vec<i64> = alo.iter().zip(blo).map(|(x, y)| *x.max(y)).collect();
            let ihi: Vec<i64> = ahi.iter().zip(bhi).map(|(x, y)| *x.min(y)).collect();
            ilo.iter().zip(&ihi).all(|(x, y)| x <= y).then_some((ilo, ihi))
        };
        let block_of = |p: usize| -> (Vec<i64>, Vec<i64>, bool) {
            let cc = coords_of(p, &rt.grid);
            let pl = l.for_coords(&cc, &rt.grid);
            (pl.own_lo.clone(), pl.own_hi.clone(), !pl.empty() && primary_copy(&l, &cc))
        };
        let me = rt.rank;
        let (mlo, mhi, mprimary) = block_of(me);
        let (blo, bhi) = box_of(me);
        // what this process sends each other one and receives from it (one message each way
        // a pair at most), and the part it copies itself
        let mut sends: Vec<(usize, Vec<i64>, Vec<i64>)> = vec![];
        let mut recvs: Vec<(usize, Vec<i64>, Vec<i64>)> = vec![];
        for p in 0..rt.size {
            let (plo, phi, pprimary) = block_of(p);
            let (xlo, xhi) = box_of(p);
            if back == 0 {
                // p's box from the owners (primary copies) of its parts
                if let Some((ilo, ihi)) = meet(&mlo, &mhi, &xlo, &xhi).filter(|_| mprimary) {
                    if p == me {
                        gpu_abi::host_needs(a, &l, &ilo, &ihi);
                        l.copy_to(a, &full_l, full, &ilo, &ihi);
                        gpu_abi::host_wrote(full, &full_l, &ilo, &ihi);
                    } else {
                        sends.push((p, ilo, ihi));
                    }
                }
                if let Some((ilo, ihi)) = meet(&plo, &phi, &blo, &bhi).filter(|_| pprimary && p != me) {
                    recvs.push((p, ilo, ihi));
                }
            } else {
                // every process's box, returned to the blocks that hold its parts (every copy)
                let theirs = !l.for_coords(&coords_of(p, &rt.grid), &rt.grid).empty();
                if let Some((ilo, ihi)) = meet(&blo, &bhi, &plo, &phi).filter(|_| theirs) {
                    if p == me {
                        full_l.copy_to(full, &l, a, &ilo, &ihi);
                        gpu_abi::host_wrote(a, &l, &ilo, &ihi);
                    } else {
                        sends.push((p, ilo, ihi));
                    }
                }
                if let Some((ilo, ihi)) = meet(&xlo, &xhi, &mlo, &mhi).filter(|_| !l.empty() && p != me) {
                    recvs.push((p, ilo, ihi));
                }
            }
        }
        // all messages at once: both directions of a pair overlap (buffers from the pool)
        let mut pool = std::mem::take(&mut rt.pool);
        let out: Vec<(usize, Vec<u8>)> = sends
            .iter()
            .map(|(p, lo, hi)| {
                let mut b = pooled(&mut pool, l.count(lo, hi) * l.esize);
                if back == 0 {
                    l.pack_into(a, lo, hi, &mut b);
                } else {
                    full_l.pack_into(full, lo, hi, &mut b);
                }
                (*p, b)
            })
            .collect();
        let mut inb: Vec<Vec<u8>> = recvs.iter().map(|(_, lo, hi)| pooled(&mut pool, l.count(lo, hi) * l.esize)).collect();
        if !out.is_empty() || !inb.is_empty() {
            exchange_all(rt, &out, &recvs, &mut inb);
        }
        let mut bytes = 0u64;
        for ((_, lo, hi), b) in recvs.iter().zip(&inb) {
            bytes += b.len() as u64;
            if back == 0 {
                full_l.unpack(full, lo, hi, b);
            } else {
                l.unpack(a, lo, hi, b);
            }
        }
        unpool(&mut pool, out.into_iter().map(|(_, b)| b).chain(inb));
        rt.pool = pool;
        rt.fetch.add(t, bytes);
    })
}

/// Send each `(process, bytes)` of `out` and receive from each process of `recvs` into the
/// buffer of `inb` beside it, all at once (one message each way a pair at most).
fn exchange_all(rt: &Rt, out: &[(usize, Vec<u8>)], recvs: &[(usize, Vec<i64>, Vec<i64>)], inb: &mut [Vec<u8>]) {
    let world = rt.comm();
    mpi::request::scope(|scope| {
        let rreqs: Vec<_> = recvs.iter().zip(inb.iter_mut()).map(|((p, _, _), b)| world.process_at_rank(*p as i32).immediate_receive_into(scope, &mut b[..])).collect();
        let sreqs: Vec<_> = out.iter().map(|(p, b)| world.process_at_rank(*p as i32).immediate_send(scope, &b[..])).collect();
        for r in rreqs {
            r.wait();
        }
        for r in sreqs {
            r.wait();
        }
    });
}

/// Keep this process's part of the box `lo..hi` (global indices, clipped to the array's
/// bounds) of the full copy `full` of distributed array `h`: its allocated block (owned
/// elements and shadow edges) takes the copy's values there. No message: a sequential loop
/// nest that every process ran on identical full copies (`sapfor_fetch` before it; it passes
/// the array's elements to procedures, which work on the copy) has left the same values in
/// every copy, and each owner takes its own.
///
/// # Safety
/// `a` is the local block of array `h`, `full` has the array's global shape; `lo` and `hi`
/// hold one index per dimension.
#[no_mangle]
pub unsafe extern "C" fn sapfor_keep(h: i64, a: *mut u8, full: *const u8, lo: *const i64, hi: *const i64) {
    with(|rt| {
        let l = rt.layout_rc(h).clone();
        if l.empty() {
            return;
        }
        let r = l.dims.len();
        let (lo, hi) = (slice(lo, r), slice(hi, r));
        let blo: Vec<i64> = lo.iter().zip(&l.alo).map(|(&x, a)| x.max(*a)).collect();
        let bhi: Vec<i64> = hi.iter().zip(&l.ahi).map(|(&x, a)| x.min(*a)).collect();
        if blo.iter().zip(&bhi).any(|(a, b)| a > b) {
            return;
        }
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let full_l = Layout::whole(l.esize, &glo, &ghi);
        full_l.copy_to(full, &l, a, &blo, &bhi);
        gpu_abi::host_wrote(a, &l, &blo, &bhi);
    })
}

/// Whether this process holds distributed array `h` whole, declared over exactly its global
/// bounds (one process): a loop divided over full copies of it may run on the array itself,
/// which is then laid out as its copy (the converter writes such loops twice).
/// `SAPFOR_ALONE=0` (forwarded by `sapfor run`) keeps every such loop on the copies (for
/// comparisons).
#[no_mangle]
pub extern "C" fn sapfor_alone(h: i64) -> i32 {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *OFF.get_or_init(|| turned_off("SAPFOR_ALONE")) {
        return 0;
    }
    with(|rt| {
        let l = rt.layout(h);
        let whole = |lo: &[i64], hi: &[i64]| l.dims.iter().zip(lo.iter().zip(hi)).all(|(d, (a, b))| *a == d.glo && *b == d.ghi);
        i32::from(rt.size == 1 && whole(&l.own_lo, &l.own_hi) && whole(&l.alo, &l.ahi))
    })
}

/// The bytes of array `h`'s local block (owned part and shadow edges).
fn block_bytes(l: &Layout) -> usize {
    l.alo.iter().zip(&l.ahi).map(|(a, b)| (b - a + 1).max(0) as usize).product::<usize>() * l.esize
}

/// The bytes of array `h`'s local block (`block_bytes`).
#[no_mangle]
pub extern "C" fn sapfor_block_bytes(h: i64) -> i64 {
    with(|rt| block_bytes(rt.layout(h)) as i64)
}

/// The bytes of the last-level cache a process's threads share (`SAPFOR_SKEW_CACHE` sets it,
/// in bytes; else the largest cache of CPU 0 that sysfs describes, else 32 MB): a time loop
/// runs in blocks of steps only where its arrays do not fit in it (convert_skew.rs; inside
/// the cache the blocks only add their bookkeeping).
#[no_mangle]
pub extern "C" fn sapfor_cache_bytes() -> i64 {
    static BYTES: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        if let Some(v) = std::env::var("SAPFOR_SKEW_CACHE").ok().and_then(|v| v.trim().parse::<i64>().ok()) {
            return v;
        }
        let mut best = 0i64;
        for i in 0..8 {
            let Ok(t) = std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{i}/size")) else { continue };
            let t = t.trim();
            let (num, mult) = match t.chars().last() {
                Some('K') => (&t[..t.len() - 1], 1024),
                Some('M') => (&t[..t.len() - 1], 1024 * 1024),
                _ => (t, 1),
            };
            if let Ok(n) = num.parse::<i64>() {
                best = best.max(n * mult);
            }
        }
        if best > 0 {
            best
        } else {
            32 << 20
        }
    })
}

/// The shadow edges to allocate for blocks of time steps on several processes
/// (convert_skew.rs asks for `want` planes of `plane` bytes): as many as an eighth of the
/// cache holds, at most `want` (planes too large for a block to pay need no edges: a 512^3
/// array of doubles gets 2 planes, not 16 of 2 MB each); `want` where the cache is taken as
/// empty (`SAPFOR_SKEW_CACHE=0`).
#[no_mangle]
pub extern "C" fn sapfor_ghost_width(want: i64, plane: i64) -> i64 {
    ghost_width(sapfor_cache_bytes(), want, plane)
}

fn ghost_width(cache: i64, want: i64, plane: i64) -> i64 {
    if cache <= 0 {
        return want.max(0);
    }
    (cache / 8 / plane.max(1)).clamp(0, want.max(0))
}

/// How many planes past its own a process may compute array `h`'s elements in a block of
/// time steps on several processes (convert_skew.rs): its dimension `d` (from 1; the one the
/// loops' planes index) may be divided between processes, none other; the shadow edges
/// allocated there, as wide below as above, hold what the neighbours computed at the block's
/// start. Unbounded (2^40) where the array is this process's whole block, or `d` is not
/// divided; 0 where another dimension is divided, this process owns nothing, or `d` is 0
/// (one process only).
#[no_mangle]
pub extern "C" fn sapfor_skew_ghosts(h: i64, d: i32) -> i64 {
    const ALL: i64 = 1 << 40;
    if sapfor_alone(h) != 0 {
        return ALL;
    }
    with(|rt| {
        let l = rt.layout(h);
        let split = |e: usize| l.dims[e].axis.is_some_and(|a| rt.grid[a] > 1);
        let d = d as usize;
        // (a process owning nothing has no edges to compute into)
        if d == 0 || d > l.dims.len() || l.empty() || (0..l.dims.len()).any(|e| e != d - 1 && split(e)) {
            return 0;
        }
        if !split(d - 1) {
            return ALL;
        }
        l.dims[d - 1].slo.min(l.dims[d - 1].shi).max(0)
    })
}

/// The width of the blocks a time loop runs its steps in (convert_skew.rs), the same on
/// every process, 0 for none: the loops' arrays (`bytes` on this process, over `planes`
/// planes) larger than half this process's share of the cache, as many steps as
/// `skew_width` gives and the shadow edges allow (`ghosts` planes past a process's
/// own, each step reaching `reach` planes further), at least 2; none with more than 256
/// threads (their waits' counters). Every process asks: the smallest answer is everyone's.
#[no_mangle]
pub extern "C" fn sapfor_skew_plan(bytes: i64, planes: i64, skew: i64, most: i64, ghosts: i64, reach: i64) -> i64 {
    let cache = sapfor_cache_bytes();
    with(|rt| {
        // (processes of one machine share its cache: Open MPI says how many run on it)
        let here = std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE").ok().and_then(|v| v.trim().parse::<i64>().ok()).unwrap_or(1).max(1);
        let share = if cache <= 0 { cache } else { cache / here };
        // (a step reading no plane past its own needs no edges: any width where the other
        // dimensions are whole; the threads' waits count up to 256 threads)
        let edges = if reach > 0 { ghosts / reach } else if ghosts > 0 { i64::MAX } else { 0 };
        let mut w = if (share > 0 && bytes <= share / 2) || !omp::pipeline_fits() { 0 } else { skew_width(share, bytes, planes, skew, most).min(edges) };
        if w < 2 {
            w = 0;
        }
        if rt.size > 1 {
            let all = rt.all_gather(&w.to_ne_bytes());
            w = all.chunks(8).map(|c| i64::from_ne_bytes(c.try_into().unwrap())).min().unwrap_or(0);
        }
        w
    })
}

/// The STOP that the first iteration, in the sequential program's order, of the parallel
/// loop now running to reach one reached on this process: (the iteration's position, the
/// STOP's number in its loop from 1). Any thread may set it.
static STOP_AT: std::sync::Mutex<Option<([i64; 8], i32)>> = std::sync::Mutex::new(None);

/// A STOP inside a parallel loop (convert.rs `loop_stops`): an iteration at position `pos`
/// (`n` values: the DO variables around the STOP, outermost first, negated where the loop
/// counts downwards, so that the sequential order is their lexicographic order) reached STOP
/// number `k` of its loop; the loop runs on, skipping the rest of each such iteration, and
/// every process stops after it (`sapfor_stop_pending`).
///
/// # Safety
/// `pos` holds `n` values.
#[no_mangle]
pub unsafe extern "C" fn sapfor_stop_set(k: i32, pos: *const i64, n: i32) {
    let mut at = [i64::MIN; 8];
    for (d, x) in at.iter_mut().enumerate().take(n.clamp(0, 8) as usize) {
        *x = *pos.add(d);
    }
    let mut g = STOP_AT.lock().unwrap_or_else(|e| e.into_inner());
    if g.as_ref().is_none_or(|(p, _)| at < *p) {
        *g = Some((at, k.max(1)));
    }
}

/// After a parallel loop holding STOP statements, on every process: the number of the STOP
/// that the first iteration (in the sequential order) to reach one reached on any process (0:
/// none), the same everywhere, so that all processes stop there together (the loop's other
/// processes might otherwise run on past it and print what the sequential program never
/// prints).
#[no_mangle]
pub extern "C" fn sapfor_stop_pending() -> i32 {
    let mine = STOP_AT.lock().unwrap_or_else(|e| e.into_inner()).take();
    let mut bytes = Vec::with_capacity(80);
    let (pos, k) = mine.unwrap_or(([i64::MAX; 8], 0));
    for x in pos {
        bytes.extend_from_slice(&x.to_ne_bytes());
    }
    bytes.extend_from_slice(&(k as i64).to_ne_bytes());
    let all = with(|rt| rt.all_gather(&bytes));
    let mut best: Option<([i64; 8], i32)> = None;
    for c in all.chunks(72) {
        let v: Vec<i64> = c.chunks(8).map(|b| i64::from_ne_bytes(b.try_into().unwrap())).collect();
        let k = v[8] as i32;
        let p: [i64; 8] = v[..8].try_into().unwrap();
        if k > 0 && best.as_ref().is_none_or(|(q, _)| p < *q) {
            best = Some((p, k));
        }
    }
    best.map_or(0, |(_, k)| k)
}

/// How many steps a block of a time loop runs (`sapfor_skew_plan`, convert_skew.rs) with a
/// last-level cache of `cache` bytes: the arrays' `bytes` over
/// `planes` planes, each step `skew` planes behind the one before. A wave touches about
/// `skew` planes of every array for each step of the block, and what a step wrote must still
/// be in the cache when the next step comes to it: as many steps as keep a wave within a third
/// of the last-level cache (the 3-D heat program's 160x160 planes: 9; a 2-D program's
/// columns: `most`), at least 2 and at most `most`; `most` where the cache is taken as empty
/// (`SAPFOR_SKEW_CACHE=0`, which also puts every such loop in blocks: the tests' widths).
fn skew_width(cache: i64, bytes: i64, planes: i64, skew: i64, most: i64) -> i64 {
    if cache <= 0 {
        return most.max(2);
    }
    let per_step = (bytes / planes.max(1)).max(1).saturating_mul(skew.max(1));
    (cache / 3 / per_step).clamp(2, most.max(2))
}

/// Copy `n` bytes of scalar `src` into `dst`: a step of a block of time steps keeps its
/// scalars so (convert_skew.rs; `TRANSFER(x, 0_c_int64_t, 2)`, whose result gfortran
/// allocates on the heap, took 2% of the 2-D Jacobi's time in `malloc` and `free`).
///
/// # Safety
/// `dst` and `src` hold `n` bytes each.
#[no_mangle]
pub unsafe extern "C" fn sapfor_keep_bytes(dst: *mut u8, src: *const u8, n: i64) {
    std::ptr::copy_nonoverlapping(src, dst, n.max(0) as usize);
}

/// Keep a copy of the local block of array `h` (at `a`): a time loop run in blocks of steps
/// that may leave the loop at any step of a block (convert_skew.rs) computes the block again
/// from it, up to that step (`sapfor_block_restore`).
///
/// # Safety
/// `a` is the local block of array `h`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_block_save(h: i64, a: *const u8) {
    with(|rt| {
        let n = block_bytes(rt.layout(h));
        let buf = rt.saved_blocks.entry(h).or_default();
        buf.clear();
        // (a copy as large as the block, on huge pages as the block is: a 256^3 block of
        // REAL copied 15 times took 0.113 s into 4 KiB pages, 0.068 s into huge pages)
        if buf.capacity() < n {
            *buf = Vec::with_capacity(n);
            sapfor_huge_pages(buf.as_mut_ptr(), n as i64);
        }
        buf.extend_from_slice(std::slice::from_raw_parts(a, n));
    })
}

/// The width gfortran gives one item of list-directed output of type `code` (1 INTEGER, 2
/// INTEGER*8, 3 REAL, 4 DOUBLE PRECISION): every item of the type takes it, blanks included.
fn ld_width(code: i32) -> usize {
    match code {
        1 => 12,
        2 => 21,
        3 => 17,
        _ => 26,
    }
}

/// `WRITE (U, *) A` of a whole distributed array (convert.rs `io_stmt`): each process writes
/// the text of its own elements (`items`, the Fortran side's `sapfor_ld_items`: gfortran's own
/// list-directed formatting of a run of items, whose texts one after the other are the record
/// of the array, as a test of gfortran's output over every value kind showed byte for byte;
/// the process's threads format parts of it), and
/// the I/O process puts the texts in the array's order (`sapfor_ld_len`, `sapfor_ld_take`): the
/// formatting, most of such a statement's time, is divided between the processes. The texts
/// travel as the elements do in `sapfor_gather` (primary copies only).
///
/// # Safety
/// `a` is the local block of array `h`, whose elements are of type `code`; `items` is
/// `sapfor_ld_items`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_ld_gather(h: i64, a: *const u8, code: i32, items: Option<unsafe extern "C" fn(i32, *const u8, i64, *mut u8)>) {
    let Some(items) = items else { return };
    let w = ld_width(code);
    with(|rt| {
        let t = rt.sync_point();
        let l = rt.layout(h).clone();
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let text_l = Layout::whole(w, &glo, &ghi);
        let es = l.esize;
        // (in parts of at most CHUNK items, one formatted WRITE each; the process's threads
        // take consecutive parts)
        const CHUNK: usize = 16384;
        let format = |raw: &[u8]| -> Vec<u8> {
            let n = raw.len() / es.max(1);
            let mut out = vec![b' '; n * w];
            let run = |raw: &[u8], out: &mut [u8]| {
                for (r, o) in raw.chunks(CHUNK * es).zip(out.chunks_mut(CHUNK * w)) {
                    items(code, r.as_ptr(), (r.len() / es) as i64, o.as_mut_ptr());
                }
            };
            let threads = omp::max_threads().min(n.div_ceil(CHUNK)).max(1);
            if threads == 1 {
                run(raw, &mut out);
            } else {
                let per = n.div_ceil(threads);
                std::thread::scope(|s| {
                    for (r, o) in raw.chunks(per * es).zip(out.chunks_mut(per * w)) {
                        s.spawn(move || run(r, o));
                    }
                });
            }
            out
        };
        let primary = |coords: &[usize]| primary_copy(&l, coords);
        let mut bytes = 0u64;
        if rt.size == 1 && l.own_lo == glo && l.own_hi == ghi {
            // (the whole array here: its packed elements are the record's order)
            rt.ld_text = format(&l.pack(a as *mut u8, &glo, &ghi));
        } else if rt.rank == 0 {
            let mut full = vec![b' '; text_l.count(&glo, &ghi) * w];
            for r in 0..rt.size {
                let cc = coords_of(r, &rt.grid);
                if !primary(&cc) {
                    continue;
                }
                let rl = l.for_coords(&cc, &rt.grid);
                if rl.empty() {
                    continue;
                }
                let (lo, hi) = (rl.own_lo.clone(), rl.own_hi.clone());
                let buf = if r == 0 {
                    format(&l.pack(a as *mut u8, &lo, &hi))
                } else {
                    let mut b = vec![0u8; l.count(&lo, &hi) * w];
                    rt.comm().process_at_rank(r as i32).receive_into(&mut b[..]);
                    b
                };
                bytes += buf.len() as u64;
                text_l.unpack(full.as_mut_ptr(), &lo, &hi, &buf);
            }
            rt.ld_text = full;
        } else if primary(&rt.coords) && !l.empty() {
            let buf = format(&l.pack(a as *mut u8, &l.own_lo.clone(), &l.own_hi.clone()));
            rt.comm().process_at_rank(0).send(&buf[..]);
        }
        rt.gather.add(t, bytes);
    })
}

/// Whether `sapfor_ld_gather` divides the formatting of array `h` as type `code`
/// (several processes or threads): on one thread of one process the statement runs as
/// written on the array's full copy, which formats straight into the unit; so it does where
/// the array's elements are not of the type's size (a flag such as `-fdefault-real-8`).
#[no_mangle]
pub extern "C" fn sapfor_ld_pays(h: i64, code: i32) -> i32 {
    let size = match code {
        1 | 3 => 4,
        _ => 8,
    };
    with(|rt| ((rt.size > 1 || omp::max_threads() > 1) && rt.layout(h).esize == size) as i32)
}

/// The length of the record `sapfor_ld_gather` made (on the I/O process).
#[no_mangle]
pub extern "C" fn sapfor_ld_len() -> i64 {
    with(|rt| rt.ld_text.len() as i64)
}

/// Copy the record `sapfor_ld_gather` made into `buf` (`sapfor_ld_len` bytes) and drop it.
///
/// # Safety
/// `buf` holds `sapfor_ld_len()` bytes.
#[no_mangle]
pub unsafe extern "C" fn sapfor_ld_take(buf: *mut u8) {
    with(|rt| {
        let t = std::mem::take(&mut rt.ld_text);
        std::ptr::copy_nonoverlapping(t.as_ptr(), buf, t.len());
    })
}

/// Put back the copy `sapfor_block_save` kept of array `h`'s local block.
///
/// # Safety
/// `a` is the local block of array `h`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_block_restore(h: i64, a: *mut u8) {
    with(|rt| {
        let n = block_bytes(rt.layout(h));
        match rt.saved_blocks.get(&h) {
            Some(buf) if buf.len() == n => std::ptr::copy_nonoverlapping(buf.as_ptr(), a, n),
            _ => {
                say!("sapfor runtime: sapfor_block_restore without sapfor_block_save (converter bug)");
                std::process::exit(3);
            }
        }
    })
}

/// A loop ran on the whole of distributed array `h` itself in place of its full copy
/// (`sapfor_alone`): before it (`wrote == 0`) the host copy is made current, as fetching the
/// copy makes it; after it (`wrote != 0`) the host copy is the newest, as returning the copy
/// makes it. Nothing for arrays never used in a region.
///
/// # Safety
/// `a` is the local block of array `h`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_host_whole(h: i64, a: *mut u8, wrote: i32) {
    with(|rt| {
        let l = rt.layout_rc(h).clone();
        if wrote == 0 {
            gpu_abi::host_needs(a, &l, &l.alo, &l.ahi);
        } else {
            gpu_abi::host_wrote(a, &l, &l.alo, &l.ahi);
        }
    })
}

/// Scatter: `full` (global shape, valid on process 0) is sent to every process, which copies
/// its allocated part (owned block and shadows) into `a`.
///
/// # Safety
/// `full` must hold the whole array on every process; `a` is the local block.
#[no_mangle]
pub unsafe extern "C" fn sapfor_scatter(h: i64, a: *mut u8, full: *mut u8) {
    with(|rt| {
        let t = rt.sync_point();
        let l = rt.layout(h).clone();
        let glo: Vec<i64> = l.dims.iter().map(|d| d.glo).collect();
        let ghi: Vec<i64> = l.dims.iter().map(|d| d.ghi).collect();
        let full_l = Layout::whole(l.esize, &glo, &ghi);
        let n = full_l.count(&glo, &ghi) * l.esize;
        let fb = std::slice::from_raw_parts_mut(full, n);
        rt.bcast(0, fb);
        if !l.empty() {
            let buf = full_l.pack(full, &l.alo, &l.ahi);
            l.unpack(a, &l.alo.clone(), &l.ahi.clone(), &buf);
        }
        rt.gather.add(t, n as u64);
    })
}

/// Broadcast `n` bytes from process 0 (values read by the I/O process).
///
/// # Safety
/// `x` must point to `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn sapfor_bcast(x: *mut u8, n: i64) {
    with(|rt| {
        if n > 0 {
            let b = std::slice::from_raw_parts_mut(x, n as usize);
            rt.bcast(0, b);
        }
    })
}

/// `sapfor_bcast` for arrays (a separate symbol for the Fortran interface).
///
/// # Safety
/// `x` must point to `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn sapfor_bcast_arr(x: *mut u8, n: i64) {
    sapfor_bcast(x, n)
}

/// Broadcast one default integer from process 0 (IOSTAT values and the like).
///
/// # Safety
/// `x` must point to an i32.
#[no_mangle]
pub unsafe extern "C" fn sapfor_bcast_i4(x: *mut i32) {
    sapfor_bcast(x as *mut u8, 4)
}

// Reduction type codes (see fortran.rs): 1 integer*4, 2 integer*8, 3 real*4, 4 real*8,
// 5 logical*4. Operations: 1 sum, 2 product, 3 max, 4 min, 5 and, 6 or, 7 eqv, 8 neqv,
// 9 maxloc, 10 minloc.

/// Register a reduction variable of the next parallel loop. Processes other than 0 start
/// from the operation's identity (for sum, product, eqv and neqv), so the initial value is
/// counted once.
///
/// After the loop the generated code hands every value over with `sapfor_red_put` (variable,
/// then its index variables, in registration order), calls `sapfor_red_end`, and reads the
/// results back with `sapfor_red_get`. Values always travel as arguments: the Fortran
/// compiler may keep a variable in a register across calls that do not name it, so the
/// runtime never reads or writes through a pointer kept from an earlier call.
///
/// # Safety
/// `x` points to a variable of type `ty`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_var(op: i32, ty: i32, x: *mut u8) {
    with(|rt| {
        if rt.rank != 0 {
            set_identity(op, ty, x);
        }
        rt.reds.push(Red { op, ty, nlocs: 0, count: 1 });
    })
}

/// Hand over the weights of dimension `d` (1-based) of the array the next
/// `sapfor_distribute` creates: `WGT_BLOCK(W, N)` with `kind` 1 (DOUBLE PRECISION W), 2 (REAL)
/// or 3 (INTEGER), `GEN_BLOCK(M)` with 4 (INTEGER sizes); `n` elements.
///
/// # Safety
/// `w` points to `n` elements of the kind's type.
#[no_mangle]
pub unsafe extern "C" fn sapfor_dim_weights(d: i32, kind: i32, w: *const u8, n: i64) {
    let n = n.max(0) as usize;
    let v: Vec<f64> = (0..n)
        .map(|k| match kind {
            1 => *(w as *const f64).add(k),
            2 => *(w as *const f32).add(k) as f64,
            _ => *(w as *const i32).add(k) as f64,
        })
        .collect();
    with(|rt| rt.next_weights.push((d.max(0) as usize, (v, kind == 4))))
}

/// The start of a loop adding to a reduction group (`REDUCTION(RG: MAX(EPS))`): processes
/// other than 0 start the variable from the operation's identity, as `sapfor_red_var` does,
/// but nothing is registered: `sapfor_red_var_keep` does that at `REDUCTION_START RG`. Blocks
/// of time steps on several processes (convert_skew.rs) set each step's variables so before
/// its loops and register them with `sapfor_red_var_keep` after the block.
///
/// # Safety
/// `x` points to a variable of type `ty`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_identity(op: i32, ty: i32, x: *mut u8) {
    with(|rt| {
        if rt.rank != 0 {
            set_identity(op, ty, x);
        }
    })
}

/// `REDUCTION_START RG`: register a group's variable holding this process's partial value
/// (no identity: its loop started from it), to be handed over, combined and read back as
/// for `sapfor_red_var`.
///
/// # Safety
/// `x` points to a variable of type `ty`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_var_keep(op: i32, ty: i32, _x: *mut u8) {
    with(|rt| rt.reds.push(Red { op, ty, nlocs: 0, count: 1 }))
}

/// Register an array reduction (`REDUCTION(SUM(RMS))`): as `sapfor_red_var` for each of the
/// array's `n` elements, combined element by element. The array is then handed over and read
/// back whole with `sapfor_red_put_arr` / `sapfor_red_get_arr`.
///
/// # Safety
/// `x` points to `n` contiguous elements of type `ty`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_arr(op: i32, ty: i32, x: *mut u8, n: i64) {
    with(|rt| {
        if !(1..=8).contains(&op) {
            rt.fail(0, "sapfor_red_arr: MAXLOC/MINLOC of an array (converter bug)");
        }
        let n = n.max(0) as usize;
        if rt.rank != 0 {
            let ts = tsize(ty);
            for k in 0..n {
                set_identity(op, ty, x.add(k * ts));
            }
        }
        rt.reds.push(Red { op, ty, nlocs: 0, count: n });
    })
}

/// `sapfor_red_put` for an array registered with `sapfor_red_arr`.
///
/// # Safety
/// As `sapfor_red_arr`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_put_arr(x: *const u8) {
    sapfor_red_put(x)
}

/// `sapfor_red_get` for an array registered with `sapfor_red_arr`.
///
/// # Safety
/// As `sapfor_red_arr`.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_get_arr(x: *mut u8) {
    sapfor_red_get(x)
}

/// Add an index variable (default integer) to the last registered MAXLOC/MINLOC.
///
/// # Safety
/// `x` points to an i32.
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_loc(_x: *mut i32) {
    with(|rt| {
        if let Some(r) = rt.reds.last_mut() {
            r.nlocs += 1;
        }
    })
}

/// Size in bytes of reduction item `k` in the flattened order (value, its indices, ...).
fn red_item_sizes(reds: &[Red]) -> Vec<usize> {
    let mut v = vec![];
    for r in reds {
        v.push(tsize(r.ty) * r.count);
        for _ in 0..r.nlocs {
            v.push(4);
        }
    }
    v
}

/// Hand over the next reduction item's value (see `sapfor_red_var`).
///
/// # Safety
/// `x` points to the item (its registered type).
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_put(x: *const u8) {
    with(|rt| {
        let sizes = red_item_sizes(&rt.reds);
        let k = rt.red_pos;
        let Some(&n) = sizes.get(k) else {
            rt.fail(0, "sapfor_red_put: more items than registered (converter bug)");
        };
        rt.red_vals.extend_from_slice(slice(x, n));
        rt.red_pos += 1;
    })
}

/// Read the next combined reduction item back (after `sapfor_red_end`).
///
/// # Safety
/// `x` points to the item (its registered type).
#[no_mangle]
pub unsafe extern "C" fn sapfor_red_get(x: *mut u8) {
    with(|rt| {
        let Some((sizes, k)) = rt.red_done.as_ref().map(|(s, k)| (s.clone(), *k)) else {
            rt.fail(0, "sapfor_red_get before sapfor_red_end (converter bug)");
        };
        let off: usize = sizes[..k].iter().sum();
        let n = sizes[k];
        std::ptr::copy_nonoverlapping(rt.red_vals[off..off + n].as_ptr(), x, n);
        if k + 1 == sizes.len() {
            rt.red_done = None;
            rt.red_vals.clear();
        } else {
            rt.red_done = Some((sizes, k + 1));
        }
    })
}

unsafe fn set_identity(op: i32, ty: i32, x: *mut u8) {
    match (op, ty) {
        (1, 1) => *(x as *mut i32) = 0,
        (1, 2) => *(x as *mut i64) = 0,
        (1, 3) => *(x as *mut f32) = 0.0,
        (1, 4) => *(x as *mut f64) = 0.0,
        (2, 1) => *(x as *mut i32) = 1,
        (2, 2) => *(x as *mut i64) = 1,
        (2, 3) => *(x as *mut f32) = 1.0,
        (2, 4) => *(x as *mut f64) = 1.0,
        (7, 5) => *(x as *mut i32) = 1,
        (8, 5) => *(x as *mut i32) = 0,
        // COMPLEX and DOUBLE COMPLEX: (re, im)
        (1, 6) => *(x as *mut [f32; 2]) = [0.0, 0.0],
        (1, 7) => *(x as *mut [f64; 2]) = [0.0, 0.0],
        (2, 6) => *(x as *mut [f32; 2]) = [1.0, 0.0],
        (2, 7) => *(x as *mut [f64; 2]) = [1.0, 0.0],
        _ => {}
    }
}

/// Bytes of one reduction value of type code `ty` (1 INTEGER, 2 INTEGER*8, 3 REAL, 4 DOUBLE
/// PRECISION, 5 LOGICAL, 6 COMPLEX, 7 DOUBLE COMPLEX).
fn tsize(ty: i32) -> usize {
    match ty {
        2 | 4 | 6 => 8,
        7 => 16,
        _ => 4,
    }
}

/// Combine every registered reduction over all processes in one message (every process
/// sends its partial values to all; all combine them in rank order, so every process gets
/// bit-identical results).
///
/// `h` is the array the loop is mapped ON and bit `d` of `split` is set when the loop's
/// iterations are divided along its dimension `d + 1`. Processes that differ only in their
/// coordinates on the other axes of the grid ran the same iterations (the array is
/// replicated along those axes, or its subscript there is `*`): only the copy at coordinate 0
/// of those axes is counted, so that a sum is not multiplied by the number of copies.
#[no_mangle]
pub extern "C" fn sapfor_red_end(h: i64, split: i32) {
    with(|rt| {
        let t = rt.sync_point();
        let reds = std::mem::take(&mut rt.reds);
        let sizes = red_item_sizes(&reds);
        rt.red_pos = 0;
        let n: usize = sizes.iter().sum();
        if rt.red_vals.len() != n {
            rt.fail(0, "sapfor_red_end: values missing (converter bug)");
        }
        if n == 0 {
            return;
        }
        let mine = std::mem::take(&mut rt.red_vals);
        let all = rt.all_gather(&mine);
        let l = rt.layout(h);
        let mut counted_axes = vec![false; rt.grid.len()];
        for (d, dim) in l.dims.iter().enumerate() {
            if let Some(ax) = dim.axis {
                if d < 31 && split & (1 << d) != 0 {
                    counted_axes[ax] = true;
                }
            }
        }
        // combine in rank order, starting from process 0's values
        let mut acc = all[..n].to_vec();
        for p in 1..rt.size {
            if coords_of(p, &rt.grid).iter().zip(&counted_axes).any(|(&c, &counted)| c != 0 && !counted) {
                continue;
            }
            let other = &all[p * n..(p + 1) * n];
            let mut pos = 0;
            for r in &reds {
                let ts = tsize(r.ty);
                if r.count != 1 {
                    // an array: element by element (no index variables)
                    for e in 0..r.count {
                        let (a, b) = (pos + e * ts, pos + (e + 1) * ts);
                        combine(r.op, r.ty, ts, &mut acc[a..b], &other[a..b]);
                    }
                    pos += ts * r.count;
                    continue;
                }
                let (a, b) = (pos, pos + ts + 4 * r.nlocs);
                combine(r.op, r.ty, ts, &mut acc[a..b], &other[a..b]);
                pos = b;
            }
        }
        rt.red_vals = acc;
        rt.red_done = Some((sizes, 0));
        rt.reduce.add(t, n as u64);
    })
}

fn num(ty: i32, b: &[u8]) -> f64 {
    match ty {
        1 => i32::from_ne_bytes(b[..4].try_into().unwrap()) as f64,
        2 => i64::from_ne_bytes(b[..8].try_into().unwrap()) as f64,
        3 => f32::from_ne_bytes(b[..4].try_into().unwrap()) as f64,
        _ => f64::from_ne_bytes(b[..8].try_into().unwrap()),
    }
}

/// A complex sum (`op` 1) or product (2) of (re, im) pairs.
fn complex_op(op: i32, x: [f64; 2], y: [f64; 2]) -> [f64; 2] {
    if op == 1 {
        [x[0] + y[0], x[1] + y[1]]
    } else {
        [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]]
    }
}

/// `acc = acc op other` for one reduction item (value followed by its index variables).
fn combine(op: i32, ty: i32, ts: usize, acc: &mut [u8], other: &[u8]) {
    macro_rules! arith {
        ($t:ty, $f:expr) => {{
            let x = <$t>::from_ne_bytes(acc[..ts].try_into().unwrap());
            let y = <$t>::from_ne_bytes(other[..ts].try_into().unwrap());
            let z: $t = $f(x, y);
            acc[..ts].copy_from_slice(&z.to_ne_bytes());
        }};
    }
    match (op, ty) {
        (1, 1) => arith!(i32, |x: i32, y: i32| x.wrapping_add(y)),
        (1, 2) => arith!(i64, |x: i64, y: i64| x.wrapping_add(y)),
        (1, 3) => arith!(f32, |x: f32, y: f32| x + y),
        (1, 4) => arith!(f64, |x: f64, y: f64| x + y),
        (2, 1) => arith!(i32, |x: i32, y: i32| x.wrapping_mul(y)),
        (2, 2) => arith!(i64, |x: i64, y: i64| x.wrapping_mul(y)),
        (2, 3) => arith!(f32, |x: f32, y: f32| x * y),
        (2, 4) => arith!(f64, |x: f64, y: f64| x * y),
        (1 | 2, 6) => {
            let c = |b: &[u8], k: usize| f32::from_ne_bytes(b[4 * k..4 * k + 4].try_into().unwrap()) as f64;
            let z = complex_op(op, [c(acc, 0), c(acc, 1)], [c(other, 0), c(other, 1)]);
            acc[..4].copy_from_slice(&(z[0] as f32).to_ne_bytes());
            acc[4..8].copy_from_slice(&(z[1] as f32).to_ne_bytes());
        }
        (1 | 2, 7) => {
            let c = |b: &[u8], k: usize| f64::from_ne_bytes(b[8 * k..8 * k + 8].try_into().unwrap());
            let z = complex_op(op, [c(acc, 0), c(acc, 1)], [c(other, 0), c(other, 1)]);
            acc[..8].copy_from_slice(&z[0].to_ne_bytes());
            acc[8..16].copy_from_slice(&z[1].to_ne_bytes());
        }
        (3, _) | (4, _) => {
            let (x, y) = (num(ty, acc), num(ty, other));
            if (op == 3 && y > x) || (op == 4 && y < x) {
                acc[..ts].copy_from_slice(&other[..ts]);
            }
        }
        (5..=8, _) => {
            let x = i32::from_ne_bytes(acc[..4].try_into().unwrap()) != 0;
            let y = i32::from_ne_bytes(other[..4].try_into().unwrap()) != 0;
            let z = match op {
                5 => x && y,
                6 => x || y,
                7 => x == y,
                _ => x != y,
            };
            acc[..4].copy_from_slice(&(z as i32).to_ne_bytes());
        }
        (9, _) | (10, _) => {
            let (x, y) = (num(ty, acc), num(ty, other));
            let better = if op == 9 { y > x } else { y < x };
            // ties: the first occurrence in column-major order of the index variables (the
            // last index variable is the most significant), as a sequential scan of the
            // array in storage order would find it
            let tie_first = y == x && {
                let n = (acc.len() - ts) / 4;
                let ix = |b: &[u8], k: usize| i32::from_ne_bytes(b[ts + 4 * k..ts + 4 * k + 4].try_into().unwrap());
                let mut res = false;
                for k in (0..n).rev() {
                    let (a, o) = (ix(acc, k), ix(other, k));
                    if o != a {
                        res = o < a;
                        break;
                    }
                }
                res
            };
            if better || tie_first {
                acc.copy_from_slice(other);
            }
        }
        _ => {}
    }
}

/// Profile: a parallel loop (identified by its source position) starts / ends. `split`: its
/// iterations are divided between processes (it has an ON clause); 0: every process runs
/// them all (counted as insufficient parallelism in the report).
#[no_mangle]
pub extern "C" fn sapfor_loop_begin(src: i64, split: i32) {
    // (only the profile reads the loops' figures: a loop run many times, each over a few
    // iterations, does not pay for clocks otherwise)
    with(|rt| {
        if rt.profiling {
            rt.loop_t = Some((src, split != 0, Instant::now(), rt.comm_secs(), rt.sync.secs))
        }
    })
}

#[no_mangle]
pub extern "C" fn sapfor_loop_end(src: i64) {
    with(|rt| {
        if let Some((_, split, t, c0, s0)) = rt.loop_t.take() {
            let (c, s) = (rt.comm_secs() - c0, rt.sync.secs - s0);
            let e = rt.loops.entry(src).or_default();
            e.count += 1;
            e.secs += t.elapsed().as_secs_f64();
            e.comm += c;
            e.sync += s;
            e.split = split;
        }
    })
}

/// Loop `src` ran `n` times in the run `sapfor_loop_end` has just counted once: the steps of
/// a block of time steps (convert_skew.rs), which the profile counts as runs of the loop.
#[no_mangle]
pub extern "C" fn sapfor_loop_runs(src: i64, n: i64) {
    with(|rt| {
        if let Some(e) = rt.loops.get_mut(&src) {
            e.count += n.max(1) as u64 - 1;
            e.blocks += 1;
        }
    })
}

/// Loop `src`, whose run `sapfor_loop_end` has just counted, ran loop `other` with it as one
/// loop (convert_fuse.rs): its time is both loops' (the profile says so).
#[no_mangle]
pub extern "C" fn sapfor_loop_with(src: i64, other: i64) {
    with(|rt| {
        if let Some(e) = rt.loops.get_mut(&src) {
            e.with = Some(other);
        }
    })
}

/// Every process's text, gathered on every process (rank order).
fn gather_texts(rt: &Rt, mine: &str) -> Vec<String> {
    gather_bytes(rt, mine.as_bytes()).into_iter().map(|b| String::from_utf8_lossy(&b).into_owned()).collect()
}

fn write_profile(rt: &Rt, path: &str, total: f64) {
    // every process reports its own times; process 0 writes them all
    let in_loops: f64 = rt.loops.values().map(|s| s.secs).sum();
    let mut mine = String::new();
    use std::fmt::Write as _;
    let mode = if rt.world.is_none() {
        "; single-process mode, MPI not started"
    } else {
        ""
    };
    let _ = writeln!(
        mine,
        "process {} of {} (grid {:?}, coordinates {:?}{mode})",
        rt.rank, rt.size, rt.grid, rt.coords
    );
    let _ = writeln!(mine, "  total {:.6} s, in parallel loops {:.6} s, sequential parts {:.6} s", total, in_loops, total - in_loops);
    for (src, s) in &rt.loops {
        let blocks = if s.blocks > 0 { format!("  blocks of time steps {}", s.blocks) } else { String::new() };
        let with = s.with.map(|o| format!("  run as one with the loop at {}", rt.where_(o))).unwrap_or_default();
        let _ = writeln!(
            mine,
            "  parallel loop at {:<24} runs {:>8}  time {:.6} s  communication {:.6} s{with}{blocks}",
            rt.where_(*src),
            s.count,
            s.secs,
            s.comm
        );
    }
    for (name, s) in [
        ("shadow renewals", &rt.shadow),
        ("renewals not needed", &rt.held_skips),
        ("ACROSS pipeline", &rt.across),
        ("reductions", &rt.reduce),
        ("remote accesses", &rt.remote),
        ("remote reads from the cache", &rt.cached),
        ("section fetches", &rt.fetch),
        ("I/O gathers/scatters", &rt.gather),
        ("synchronization", &rt.sync),
    ] {
        let _ = writeln!(mine, "  {:<22} count {:>8}  time {:.6} s  bytes {}", name, s.count, s.secs, s.bytes);
    }
    let (alone, teams) = omp::counts();
    let _ = writeln!(mine, "  OpenMP regions         one thread without a team {alone}  through libgomp {teams}");
    for (src, (n, m, t)) in &rt.reads_at {
        let _ = writeln!(mine, "  element reads at {:<24} reads {n:>8}  messages {m:>8}  {t:.6} s", rt.where_(*src));
    }
    for l in gpu_abi::report_lines(&|s| rt.where_(s)) {
        let _ = writeln!(mine, "  {l}");
    }
    // the figures of the summary, as numbers
    let mut figures = format!("{total} {} {}\n", rt.comm_secs(), rt.sync.secs);
    for (src, s) in &rt.loops {
        let _ = writeln!(figures, "{src} {} {} {} {} {}", s.split as u8, s.count, s.secs, s.comm, s.sync);
    }
    let texts = gather_texts(rt, &mine);
    let figures = gather_texts(rt, &figures);
    if rt.rank == 0 {
        let procs: Vec<ProcFigures> = figures.iter().map(|f| ProcFigures::parse(f)).collect();
        let mut out = String::from("sapfor performance report\n");
        out.push_str(&summary(&procs, &|s| rt.where_(s)));
        if !rt.reads_at.is_empty() {
            // every process reads the same elements (they all take part in each read)
            out.push_str("  element-wise reads of distributed arrays outside parallel loops, by statement (most messages first): reads, messages, time\n");
            let mut v: Vec<_> = rt.reads_at.iter().collect();
            v.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
            for (src, (n, m, t)) in v {
                out.push_str(&format!("    {:<28} {n:>10} {m:>10}  {t:.6} s\n", rt.where_(*src)));
            }
        }
        for t in &texts {
            out.push_str(t);
        }
        let tmp = format!("{path}.tmp{}", std::process::id());
        if std::fs::write(&tmp, out).and_then(|_| std::fs::rename(&tmp, path)).is_err() {
            say!("sapfor: cannot write the profile to {path}");
        }
    }
}

/// One process's profile figures, for the summary.
#[derive(Debug, Default, Clone)]
struct ProcFigures {
    total: f64,
    /// Communication (synchronization included), and synchronization alone.
    comm: f64,
    sync: f64,
    /// By loop source position: split, runs, seconds, communication, synchronization.
    loops: BTreeMap<i64, (bool, u64, f64, f64, f64)>,
}

impl ProcFigures {
    fn parse(text: &str) -> ProcFigures {
        let mut lines = text.lines();
        let nums = |l: &str| -> Vec<f64> { l.split_whitespace().filter_map(|x| x.parse().ok()).collect() };
        let mut p = ProcFigures::default();
        if let Some(h) = lines.next() {
            let v = nums(h);
            if v.len() == 3 {
                (p.total, p.comm, p.sync) = (v[0], v[1], v[2]);
            }
        }
        for l in lines {
            let v = nums(l);
            if v.len() == 6 {
                p.loops.insert(v[0] as i64, (v[1] != 0.0, v[2] as u64, v[3], v[4], v[5]));
            }
        }
        p
    }
}

/// The DVM-style summary of a run: for the whole program and for every parallel loop, the
/// execution time (the slowest process), the productive time and the parallel efficiency
/// (productive time over processes x execution time), and the lost time split into
/// insufficient parallelism (work every process repeats: sequential parts and loops whose
/// iterations are not split; one copy, the largest, counts as productive: output done by
/// process 0 alone is productive, the others wait), communication (synchronization
/// included) and idle time (waiting for the slowest process at the end); load imbalance is
/// the potential loss in parallel loops (each process's computing time short of the slowest
/// one's). Figures per process: min, max and mean. The parts add up exactly to processes x
/// execution time.
fn summary(procs: &[ProcFigures], place: &dyn Fn(i64) -> String) -> String {
    use std::fmt::Write as _;
    let np = procs.len().max(1) as f64;
    let texec = procs.iter().map(|p| p.total).fold(0.0, f64::max);
    let mut srcs: BTreeSet<i64> = BTreeSet::new();
    for p in procs {
        srcs.extend(p.loops.keys());
    }
    let loop_of = |p: &ProcFigures, s: i64| p.loops.get(&s).copied().unwrap_or_default();
    let split = |s: i64| procs.iter().any(|p| loop_of(p, s).0);
    // per process: time in loops, communication inside loops, and the repeated work
    let in_loops: Vec<f64> = procs.iter().map(|p| p.loops.values().map(|l| l.2).sum()).collect();
    let repeated: Vec<f64> = procs
        .iter()
        .zip(&in_loops)
        .map(|(p, lt)| {
            let loop_comm: f64 = p.loops.values().map(|l| l.3).sum();
            let seq_work = (p.total - lt) - (p.comm - loop_comm);
            let rep_loops: f64 = p.loops.iter().filter(|(s, _)| !split(**s)).map(|(_, l)| l.2 - l.3).sum();
            seq_work + rep_loops
        })
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let split_work: f64 = procs
        .iter()
        .map(|p| p.loops.iter().filter(|(s, _)| split(**s)).map(|(_, l)| l.2 - l.3).sum::<f64>())
        .sum();
    // work every process does (or only process 0, like output): one copy, the largest, counts
    let most = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let productive = split_work + most(&repeated);
    let insufficient = repeated.iter().sum::<f64>() - most(&repeated);
    let comm: f64 = procs.iter().map(|p| p.comm).sum();
    let sync: f64 = procs.iter().map(|p| p.sync).sum();
    let idle: f64 = procs.iter().map(|p| texec - p.total).sum();
    let all = np * texec;
    let imbalance_of = |s: i64| -> f64 {
        if !split(s) {
            return 0.0;
        }
        let work: Vec<f64> = procs.iter().map(|p| loop_of(p, s)).map(|l| l.2 - l.3).collect();
        let mx = work.iter().copied().fold(f64::MIN, f64::max);
        work.iter().map(|w| mx - w).sum()
    };
    let imbalance: f64 = srcs.iter().map(|s| imbalance_of(*s)).sum();
    let pct = |x: f64, of: f64| if of > 0.0 { 100.0 * x / of } else { 0.0 };
    let mut o = String::new();
    let _ = writeln!(o, "summary of the run ({} process{})", procs.len(), if procs.len() == 1 { "" } else { "es" });
    let _ = writeln!(o, "  execution time {texec:.6} s (the slowest process); processes x execution time {all:.6} s");
    let _ = writeln!(o, "  productive time {productive:.6} s: parallel efficiency {:.1}%", pct(productive, all));
    let _ = writeln!(
        o,
        "  lost time {:.6} s ({:.1}%): insufficient parallelism {insufficient:.6} s, communication {comm:.6} s \
         (synchronization {sync:.6} s), idle {idle:.6} s",
        all - productive,
        pct(all - productive, all)
    );
    let _ = writeln!(o, "  load imbalance in parallel loops (potential loss) {imbalance:.6} s");
    let _ = writeln!(o, "  per process:              min          max         mean");
    let row = |o: &mut String, name: &str, v: Vec<f64>| {
        let mn = v.iter().copied().fold(f64::MAX, f64::min);
        let mx = v.iter().copied().fold(f64::MIN, f64::max);
        let _ = writeln!(o, "    {name:<18} {mn:>10.6} s {mx:>10.6} s {:>10.6} s", mean(&v));
    };
    row(&mut o, "time", procs.iter().map(|p| p.total).collect());
    row(&mut o, "in parallel loops", in_loops.clone());
    row(&mut o, "sequential parts", procs.iter().zip(&in_loops).map(|(p, l)| p.total - l).collect());
    row(&mut o, "communication", procs.iter().map(|p| p.comm).collect());
    row(&mut o, "synchronization", procs.iter().map(|p| p.sync).collect());
    row(&mut o, "idle", procs.iter().map(|p| texec - p.total).collect());
    if !srcs.is_empty() {
        let _ = writeln!(
            o,
            "  intervals (parallel loops): runs, execution time, efficiency, communication, synchronization, load imbalance, insufficient parallelism"
        );
    }
    for s in &srcs {
        let ls: Vec<(bool, u64, f64, f64, f64)> = procs.iter().map(|p| loop_of(p, *s)).collect();
        let t = ls.iter().map(|l| l.2).fold(0.0, f64::max);
        let runs = ls.iter().map(|l| l.1).max().unwrap_or(0);
        let work: Vec<f64> = ls.iter().map(|l| l.2 - l.3).collect();
        let (prod, insuff) = if split(*s) {
            (work.iter().sum::<f64>(), 0.0)
        } else {
            (most(&work), work.iter().sum::<f64>() - most(&work))
        };
        let _ = writeln!(
            o,
            "    loop {:<24} {runs:>8}  {t:.6} s  {:>5.1}%  {:.6} s  {:.6} s  {:.6} s  {insuff:.6} s{}",
            place(*s),
            pct(prod, np * t),
            ls.iter().map(|l| l.3).sum::<f64>(),
            ls.iter().map(|l| l.4).sum::<f64>(),
            imbalance_of(*s),
            if split(*s) { "" } else { "  (not split: every process runs all iterations)" }
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::{apply_runs, changed_runs, combine, ghost_width, pooled, set_identity, single_process_mode, skew_width, tsize, unpool, LAUNCHER_VARS};

    /// Shadow edges for blocks on several processes: what was asked where planes are small
    /// (the 3-D heat program's 160x160 doubles, a 2-D program's columns), fewer where an
    /// eighth of the cache holds fewer (512x512 doubles: 2), none for planes larger than it.
    #[test]
    fn blocks_allocate_edges_an_eighth_of_the_cache_holds() {
        let mb = 1 << 20;
        assert_eq!(ghost_width(32 * mb, 16, 160 * 160 * 8), 16);
        assert_eq!(ghost_width(32 * mb, 16, 2000 * 4), 16);
        assert_eq!(ghost_width(32 * mb, 16, 512 * 512 * 8), 2);
        assert_eq!(ghost_width(32 * mb, 16, 8 * mb), 0);
        assert_eq!(ghost_width(0, 16, 8 * mb), 16);
    }

    /// A block of time steps keeps a wave within a third of the cache: the 3-D heat program's
    /// two 160^3 double arrays (skew 3) in a 32 MB cache take 9 steps, a 2-D program's
    /// 2000-element columns the most allowed; never fewer than 2, also with no planes.
    #[test]
    fn blocks_of_steps_are_as_wide_as_a_third_of_the_cache_holds() {
        let mb = 1 << 20;
        assert_eq!(skew_width(32 * mb, 2 * 160 * 160 * 160 * 8, 160, 3, 32), 9);
        assert_eq!(skew_width(32 * mb, 2 * 2000 * 2000 * 4, 2000, 3, 32), 32);
        assert_eq!(skew_width(32 * mb, 2 * 2000 * 2000 * 4, 2000, 3, 16), 16);
        assert_eq!(skew_width(mb, 2 * 160 * 160 * 160 * 8, 160, 3, 32), 2);
        assert_eq!(skew_width(32 * mb, 1000, 0, 0, 1), 2);
        assert_eq!(skew_width(0, 2 * 160 * 160 * 160 * 8, 160, 3, 8), 8);
    }

    /// Message buffers come back from the pool with the length asked, the smallest that holds
    /// it first (its memory reused, not allocated again); the pool keeps the 8 largest.
    #[test]
    fn pooled_buffers_are_reused_and_the_pool_stays_small() {
        let mut pool = vec![];
        let a = pooled(&mut pool, 1000);
        assert_eq!(a.len(), 1000);
        let (pa, b) = (a.as_ptr(), pooled(&mut pool, 5000));
        let pb = b.as_ptr();
        unpool(&mut pool, [a, b]);
        let c = pooled(&mut pool, 800);
        assert_eq!((c.len(), c.as_ptr()), (800, pa));
        let d = pooled(&mut pool, 4000);
        assert_eq!((d.len(), d.as_ptr()), (4000, pb));
        unpool(&mut pool, [c, d]);
        unpool(&mut pool, (1..=20).map(|k| vec![0u8; k * 100]));
        assert_eq!(pool.len(), 8);
        assert_eq!(pool[0].capacity(), 5000);
        assert!(pool.iter().all(|b| b.capacity() >= 1300));
    }

    /// COMPLEX and DOUBLE COMPLEX reductions: the identities, a sum and a product of two
    /// partial values, both stored as (re, im).
    #[test]
    fn complex_sums_and_products_combine_as_complex_numbers() {
        let pair64 = |re: f64, im: f64| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut id = [0xffu8; 16];
        unsafe { set_identity(2, 7, id.as_mut_ptr()) };
        assert_eq!(id.to_vec(), pair64(1.0, 0.0));
        let mut acc = pair64(1.5, -2.0);
        combine(1, 7, tsize(7), &mut acc, &pair64(0.25, 4.0));
        assert_eq!(acc, pair64(1.75, 2.0));
        let mut acc = pair64(1.0, 2.0);
        combine(2, 7, tsize(7), &mut acc, &pair64(3.0, -1.0));
        assert_eq!(acc, pair64(5.0, 5.0));
        let pair32 = |re: f32, im: f32| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut acc = pair32(0.0, 1.0);
        combine(2, 6, tsize(6), &mut acc, &pair32(0.0, 1.0));
        assert_eq!(acc, pair32(-1.0, 0.0));
        let mut zero = [0xffu8; 8];
        unsafe { set_identity(1, 6, zero.as_mut_ptr()) };
        assert_eq!(zero.to_vec(), pair32(0.0, 0.0));
    }

    /// Merging replicated arrays: processes change disjoint bytes of a common copy (elements
    /// of 1 to 8 bytes, blocks ending inside words, a tail shorter than a word, bytes written
    /// with the value they had); applying every process's runs in rank order gives each
    /// process the same bytes: every change, and the copy's value elsewhere.
    #[test]
    fn merged_runs_carry_every_changed_byte_and_nothing_else() {
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for case in 0..200 {
            let n = 1 + next() % 300;
            let procs = 1 + next() % 4;
            let esize = [1, 2, 4, 8][case % 4];
            let old: Vec<u8> = (0..n).map(|_| next() as u8).collect();
            // each element to one process (or nobody); a changed element may keep some bytes
            let mut copies: Vec<Vec<u8>> = vec![old.clone(); procs];
            let mut want = old.clone();
            for e in 0..n.div_ceil(esize) {
                if next() % 4 == 0 {
                    continue;
                }
                let p = next() % procs;
                for k in e * esize..((e + 1) * esize).min(n) {
                    let v = if next() % 5 == 0 { old[k] } else { next() as u8 };
                    copies[p][k] = v;
                    want[k] = v;
                }
            }
            let runs: Vec<Vec<u8>> = copies.iter().map(|c| changed_runs(&old, c)).collect();
            for (me, c) in copies.iter().enumerate() {
                let mut out = c.clone();
                for r in &runs {
                    apply_runs(&old, &mut out, r);
                }
                assert_eq!(out, want, "case {case}: process {me} of {procs}, {n} bytes, elements of {esize}");
            }
            // what is sent is about what changed, not the array
            let changed = (0..n).filter(|&k| copies.iter().any(|c| c[k] != old[k])).count();
            let sent: usize = runs.iter().map(|r| r.len()).sum();
            assert!(sent <= changed * 8 + 16 * (changed + procs), "case {case}: {sent} bytes sent for {changed} changed");
        }
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    /// A number after `label` in the summary.
    fn figure(text: &str, label: &str) -> f64 {
        let k = text.find(label).unwrap_or_else(|| panic!("{label} not in\n{text}"));
        text[k + label.len()..].trim_start().split(|c: char| c == ' ' || c == '%').next().unwrap().parse().unwrap()
    }

    #[test]
    fn the_summary_splits_lost_time_and_its_parts_add_up() {
        use super::{summary, ProcFigures};
        // process 0: 10 s in all; a split loop (id 1000018) 6 s of which 1 s communication
        // (0.5 s waiting for process 1); a loop every process runs whole (id 1000030) 1 s;
        // 0.2 s of communication outside loops (an I/O gather)
        let p0 = ProcFigures::parse("10 1.2 0.5\n1000018 1 20 6 1 0.5\n1000030 0 5 1 0 0\n");
        // process 1: 9 s; the split loop 6 s with 0.5 s communication (computes 5.5 s)
        let p1 = ProcFigures::parse("9 0.7 0\n1000018 1 20 6 0.5 0\n1000030 0 5 1 0 0\n");
        let t = summary(&[p0, p1], &|s| format!("jac.f:{}", s % 1_000_000));
        // productive: split loop 5 + 5.5; repeated work per process: sequential parts less
        // their communication plus the whole loop: 3 - 0.2 + 1 = 3.8 (process 0) and
        // 2 - 0.2 + 1 = 2.8 (process 1): the largest counts once, the rest is lost
        assert!((figure(&t, "productive time") - (10.5 + 3.8)).abs() < 1e-9, "{t}");
        assert!((figure(&t, "insufficient parallelism") - 2.8).abs() < 1e-9, "{t}");
        assert!((figure(&t, "communication") - 1.9).abs() < 1e-9, "{t}");
        assert!((figure(&t, "(synchronization") - 0.5).abs() < 1e-9, "{t}");
        assert!((figure(&t, "idle") - 1.0).abs() < 1e-9, "{t}");
        // the parts add up to processes x execution time (2 x 10 s)
        let parts = figure(&t, "productive time") + figure(&t, "insufficient parallelism") + figure(&t, "communication") + figure(&t, "idle");
        assert!((parts - 20.0).abs() < 1e-9, "{t}");
        assert!((figure(&t, "parallel efficiency") - 71.5).abs() < 1e-9, "{t}");
        // the split loop: process 0 computes 5 s, process 1 5.5 s: 0.5 s imbalance
        assert!((figure(&t, "load imbalance in parallel loops (potential loss)") - 0.5).abs() < 1e-9, "{t}");
        assert!(t.contains("loop jac.f:18"), "{t}");
        assert!(t.contains("loop jac.f:30") && t.contains("not split"), "{t}");
        assert!((figure(&t, "execution time") - 10.0).abs() < 1e-9, "{t}");
        // one process: everything it computes is productive
        let one = summary(&[ProcFigures::parse("4 0 0\n1000018 1 20 3 0 0\n")], &|s| s.to_string());
        assert!((figure(&one, "parallel efficiency") - 100.0).abs() < 1e-9, "{one}");
    }

    #[test]
    fn single_process_mode_only_when_asked_and_not_under_an_mpi_launcher() {
        assert!(single_process_mode(env(&[("SAPFOR_NO_MPI", "1")])));
        assert!(!single_process_mode(env(&[])));
        assert!(!single_process_mode(env(&[("SAPFOR_NO_MPI", "0")])));
        // started by mpirun (Open MPI, PMIx, Hydra): always MPI, whatever the variable says
        for launcher in LAUNCHER_VARS {
            let vars = [("SAPFOR_NO_MPI", "1"), (launcher, "2")];
            assert!(!single_process_mode(env(&vars)), "{launcher}");
        }
    }
}
