//! OpenMP parallel regions of one thread without a team.
//!
//! The converted program is compiled with `-fopenmp`, and every PARALLEL loop becomes an
//! OpenMP `parallel do`: gfortran outlines the loop body and calls libgomp's `GOMP_parallel`.
//! With one thread per process (`sapfor run` without `--threads`, the usual case under MPI)
//! libgomp still builds a team for each region, frees it at the end and wakes the team's
//! barrier with a futex system call: about 0.5 us per loop start measured on NPB LU class A,
//! where a nest run in order starts 3.9 million loops per run (that nest took 4.9 s at one
//! process against 2.6 s in the sequential program, 2.9 s with this; docs/runtime.md). With
//! threads, a loop whose counted work is small asks for one thread through its `if` clause
//! (`sapfor_team` below) and comes here the same way.
//!
//! The program's references to `GOMP_parallel` resolve to the definition here (the runtime's
//! archive comes before libgomp on the link line). When the region would get one thread
//! (its `num_threads` clause says 1, or it has none and the process's thread count is 1)
//! and no region encloses it, the outlined body is called directly: `omp_get_num_threads()`
//! is 1 and `omp_get_thread_num()` 0 outside a region too, so a static schedule gives that
//! thread every iteration, reductions and firstprivate copies work as in a team of one, and
//! the loop runs the same code it runs in a one-thread team. Everything else goes to
//! libgomp's own `GOMP_parallel` (found with `dlsym(RTLD_NEXT)`). `SAPFOR_OMP_TEAMS=0`
//! turns the shortcut off (every region through libgomp, for comparisons).

use std::ffi::{c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

type Body = unsafe extern "C" fn(*mut c_void);
type Parallel = unsafe extern "C" fn(Body, *mut c_void, c_uint, c_uint);
type Query = unsafe extern "C" fn() -> c_int;

/// libgomp's functions this needs, looked up at the first region (the runtime's archive is
/// also linked into programs and tests without libgomp, which never call them).
struct Gomp {
    parallel: Parallel,
    max_threads: Query,
    level: Query,
    thread_num: Query,
    num_threads: Query,
    /// `SAPFOR_OMP_TEAMS=0`: every region through libgomp (for comparisons)
    teams_always: bool,
}

fn gomp() -> &'static Gomp {
    static G: OnceLock<Gomp> = OnceLock::new();
    G.get_or_init(|| {
        let find = |h: *mut c_void, name: &CStr| -> usize {
            // SAFETY: a lookup by a NUL-terminated name
            let p = unsafe { libc::dlsym(h, name.as_ptr()) } as usize;
            if p == 0 {
                eprintln!("sapfor runtime: libgomp's {} not found (the program must be linked with -fopenmp)", name.to_string_lossy());
                std::process::abort();
            }
            p
        };
        // SAFETY: the addresses of libgomp's functions, whose signatures these are
        unsafe {
            Gomp {
                // the next definition after this one: libgomp's
                parallel: std::mem::transmute::<usize, Parallel>(find(libc::RTLD_NEXT, c"GOMP_parallel")),
                max_threads: std::mem::transmute::<usize, Query>(find(libc::RTLD_DEFAULT, c"omp_get_max_threads")),
                level: std::mem::transmute::<usize, Query>(find(libc::RTLD_DEFAULT, c"omp_get_level")),
                thread_num: std::mem::transmute::<usize, Query>(find(libc::RTLD_DEFAULT, c"omp_get_thread_num")),
                num_threads: std::mem::transmute::<usize, Query>(find(libc::RTLD_DEFAULT, c"omp_get_num_threads")),
                teams_always: crate::turned_off("SAPFOR_OMP_TEAMS"),
            }
        }
    })
}

/// Regions run without a team and regions given to libgomp (for the profile report).
static WITHOUT_TEAM: AtomicU64 = AtomicU64::new(0);
static WITH_TEAM: AtomicU64 = AtomicU64::new(0);

/// (regions of one thread run without a team, regions run by libgomp) so far.
pub(crate) fn counts() -> (u64, u64) {
    (WITHOUT_TEAM.load(Ordering::Relaxed), WITH_TEAM.load(Ordering::Relaxed))
}

/// The entry gfortran calls for `!$omp parallel` (GCC 4.9 and later).
///
/// # Safety
/// As libgomp's: `body` is the region's outlined function and `data` its argument block.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel(body: Body, data: *mut c_void, num_threads: c_uint, flags: c_uint) {
    let g = gomp();
    if !g.teams_always && (num_threads == 1 || (num_threads == 0 && (g.max_threads)() == 1)) && (g.level)() == 0 {
        WITHOUT_TEAM.fetch_add(1, Ordering::Relaxed);
        body(data);
        return;
    }
    WITH_TEAM.fetch_add(1, Ordering::Relaxed);
    (g.parallel)(body, data, num_threads, flags)
}

/// Whether a parallel loop's execution of `work` (its iterations times the assignments of
/// its body, as the converter counts them: `team_work` in runtime/src/convert.rs) pays for
/// starting its threads: 1 from `SAPFOR_TEAM_MIN` (default 2000) on. Below it the region's
/// OpenMP `if` clause is false and the runtime runs it on the calling thread. About 5 to 20
/// ns of work a unit against 1.5 us for the fork and join of two spinning threads here
/// (`sapfor calibrate`); much more when they sleep.
#[no_mangle]
pub extern "C" fn sapfor_team(work: i64) -> c_int {
    (work >= team_min()) as c_int
}

/// `SAPFOR_TEAM_MIN` (default 2000).
fn team_min() -> i64 {
    static MIN: OnceLock<i64> = OnceLock::new();
    *MIN.get_or_init(|| std::env::var("SAPFOR_TEAM_MIN").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(2000))
}

/// Pipelines between the threads of a process: an ACROSS loop tiled along its innermost
/// loop's dimension (docs/runtime.md) where no process pipeline feeds the tiles (no other
/// dimension of the array divided between processes: one process, or a division along the
/// tiled dimension only) runs on the process's threads. Each thread takes a consecutive part
/// of the outermost loop's iterations, in the loop's order (`sapfor_tpipe_part`), runs the
/// tiles in order, and starts tile k once the thread before it has finished its tile k
/// (`sapfor_tpipe_wait`, `sapfor_tpipe_post`): the order the processes of a pipeline keep
/// with messages, kept here through shared memory. The converter tiles only nests whose
/// references to the array read neither ahead in the tiled dimension and behind in another
/// nor the reverse; with those excluded, what a thread reads of its neighbours' parts is
/// what the loop's order gives it (the part before it has finished that tile, the part after
/// it has not started it).
const SLOTS: usize = 256;

/// A thread's last finished tile, one cache line each.
#[repr(align(64))]
struct Slot(std::sync::atomic::AtomicI64);

static PROGRESS: [Slot; SLOTS] = [const { Slot(std::sync::atomic::AtomicI64::new(0)) }; SLOTS];

/// Whether a region of this process's threads may wait on each other's progress: at most
/// `SLOTS` threads (blocks of time steps, convert_skew.rs, run as converted beyond that).
pub(crate) fn pipeline_fits() -> bool {
    // SAFETY: libgomp's query, no arguments
    (unsafe { (gomp().max_threads)() }.max(1) as usize) <= SLOTS
}

/// The threads a region of this process gets (`omp_get_max_threads`).
pub(crate) fn max_threads() -> usize {
    // SAFETY: libgomp's query, no arguments
    (unsafe { (gomp().max_threads)() }).max(1) as usize
}

/// This thread's number in its team and the team's size (0 and 1 outside a region).
fn team() -> (usize, usize) {
    let g = gomp();
    // SAFETY: libgomp's queries, no arguments
    unsafe { ((g.thread_num)().max(0) as usize, (g.num_threads)().max(1) as usize) }
}

/// The threads an ACROSS loop over array `h` tiled along dimension `tdim` runs on: 1 where a
/// pipeline of processes feeds its tiles (`crate::across_pipeline`) or where the nest's
/// counted work (`team_work` in the converter; negative: not counted) is below 16 times
/// `SAPFOR_TEAM_MIN` (each of the 16 tiles of two threads then carries what a parallel loop
/// needs to start a team; NPB LU's plane sweeps at class S, 10x10 points, carry less), else
/// the process's thread count (at most 256). Clears the threads' progress; called before
/// the region.
///
/// `free` (1): the outermost loop, whose iterations the threads share, carries no dependence
/// (the converter's `tile_dim`: every reference reads the plane it writes in that
/// dimension); then the threads do not wait for each other and each runs its part in one
/// tile (the DVM system's `adi.fdv`, sweeps along I and J: on two threads 1.4 times slower
/// than on one as a pipeline of tiles of the contiguous dimension).
#[no_mangle]
pub extern "C" fn sapfor_tpipe_threads(h: i64, tdim: c_int, work: i64, free: c_int) -> c_int {
    // SAFETY: libgomp's query, no arguments
    let n = unsafe { (gomp().max_threads)() }.max(1) as usize;
    let small = work >= 0 && work < 16 * team_min();
    let n = if n == 1 || small || crate::across_pipeline(h, tdim) { 1 } else { n.min(SLOTS) };
    FREE.store(free != 0 && n > 1, Ordering::Relaxed);
    for s in &PROGRESS[..n] {
        s.0.store(0, Ordering::Relaxed);
    }
    n as c_int
}

/// Whether the threads of the ACROSS region running now need not wait for each other
/// (`sapfor_tpipe_threads`'s `free`); set before the region, read inside it.
static FREE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Tile size of an ACROSS loop run on `threads` threads (`crate::across_tile_size`; one
/// thread's, the whole extent where no process pipeline feeds the tiles, when the threads
/// need not wait for each other).
#[no_mangle]
pub extern "C" fn sapfor_tpipe_tile_size(h: i64, tdim: c_int, threads: c_int) -> i64 {
    crate::across_tile_size(h, tdim, if FREE.load(Ordering::Relaxed) { 1 } else { threads })
}

/// This thread's part of the iterations `first, first + step, ..., last` (step 1 or -1 in
/// ACROSS loops; any non-zero step works): consecutive, in the loop's order, thread 0 first;
/// an empty part is `first, first - step`.
///
/// # Safety
/// `tfirst` and `tlast` point to writable 8-byte integers.
#[no_mangle]
pub unsafe extern "C" fn sapfor_tpipe_part(first: i64, last: i64, step: i64, tfirst: *mut i64, tlast: *mut i64) {
    let (t, n) = team();
    let (a, b) = part_of(first, last, step, t, n);
    *tfirst = a;
    *tlast = b;
}

/// `sapfor_tpipe_part` for thread `t` of `n`.
fn part_of(first: i64, last: i64, step: i64, t: usize, n: usize) -> (i64, i64) {
    let step = if step == 0 { 1 } else { step };
    let count = if step > 0 { (last - first).div_euclid(step) + 1 } else { (first - last).div_euclid(-step) + 1 }.max(0);
    let (t, n) = (t as i64, n.max(1) as i64);
    let (a, b) = (count * t / n, count * (t + 1) / n);
    if b <= a {
        (first, first - step)
    } else {
        (first + a * step, first + (b - 1) * step)
    }
}

/// Clears the threads' progress before a region whose threads post numbered waves
/// (a time loop in blocks of steps, convert_skew.rs: each thread runs consecutive steps of
/// the block and starts a wave once the thread before it has finished the wave before).
#[no_mangle]
pub extern "C" fn sapfor_tpipe_clear() {
    for s in &PROGRESS[..] {
        s.0.store(0, Ordering::Relaxed);
    }
}

/// Wait until the thread before this one has finished its tile `k` (thread 0 waits for
/// nothing).
#[no_mangle]
pub extern "C" fn sapfor_tpipe_wait(k: i64) {
    let (t, _) = team();
    if t == 0 || t > SLOTS || FREE.load(Ordering::Relaxed) {
        return;
    }
    let p = &PROGRESS[t - 1].0;
    // spin a while (a tile of the thread before takes microseconds), then give the core
    // away: with more threads than free cores the thread waited for may need this one's
    let mut spins = 0u32;
    while p.load(Ordering::Acquire) < k {
        spins += 1;
        if spins < 2000 {
            std::hint::spin_loop();
        } else if spins < 2200 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }
}

/// This thread has finished its tile `k` (its writes are seen by the thread after it once
/// that one's `sapfor_tpipe_wait(k)` returns).
#[no_mangle]
pub extern "C" fn sapfor_tpipe_post(k: i64) {
    let (t, _) = team();
    if t < SLOTS {
        PROGRESS[t].0.store(k, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::part_of;

    #[test]
    fn parts_cover_the_iterations_in_order() {
        for (first, last, step) in [(2, 11, 1), (11, 2, -1), (5, 4, 1), (1, 1, 1), (10, 1, -3), (1, 100, 7)] {
            for n in 1..6 {
                let mut seen = vec![];
                for t in 0..n {
                    let (a, b) = part_of(first, last, step, t, n);
                    let mut i = a;
                    while (step > 0 && i <= b) || (step < 0 && i >= b) {
                        seen.push(i);
                        i += step;
                    }
                }
                let mut want = vec![];
                let mut i = first;
                while (step > 0 && i <= last) || (step < 0 && i >= last) {
                    want.push(i);
                    i += step;
                }
                assert_eq!(seen, want, "{first}, {last}, {step} on {n}");
            }
        }
    }
}
