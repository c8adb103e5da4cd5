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
    static MIN: OnceLock<i64> = OnceLock::new();
    let min = *MIN.get_or_init(|| std::env::var("SAPFOR_TEAM_MIN").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(2000));
    (work >= min) as c_int
}
