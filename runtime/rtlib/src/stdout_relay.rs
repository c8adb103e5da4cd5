//! Process 0's standard output under `mpirun`, forwarded in batches.
//!
//! Under `mpirun` a process's standard output is a pseudo-terminal (or a pipe) read by
//! `mpirun`, and gfortran writes every PRINT at once. A program that prints a line per
//! iteration (a residual, an error norm: common in legacy codes) then wakes `mpirun` once per
//! line, and on a machine whose cores all run processes of the program each wake-up takes a
//! core from one of them: the Jacobi benchmark with 2 processes printed 2000 lines in about
//! 0.1-0.2 s of its 3 s (bench/README.md). So process 0 (the only one that does the program's
//! I/O) writes into a pipe of its own instead, and a thread forwards what has collected there
//! to the real output at most every [`BATCH`]: the same bytes in the same order, a few large
//! writes instead of thousands of small ones.
//!
//! Everything is forwarded before the process ends: at `sapfor_finalize`, before a runtime
//! error stops the processes, at `exit` (Fortran `STOP`), and when `mpirun` stops the process
//! because another one failed (it sends SIGTERM first: the handler has the thread forward
//! what is waiting, then the signal takes its course). Only a crash of process 0 itself (or
//! SIGKILL) can lose the output of its last [`BATCH`]; set `SAPFOR_STDOUT_BATCH=0` to have
//! every line forwarded at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

/// How long the thread lets output collect after forwarding some.
pub const BATCH: Duration = Duration::from_millis(20);

struct Relay {
    /// The real standard output (a duplicate of what fd 1 was).
    orig: i32,
    /// Signalled by the thread when it has forwarded everything (end of file).
    done: mpsc::Receiver<()>,
}

static RELAY: Mutex<Option<Relay>> = Mutex::new(None);
/// Write end of the thread's wake-up pipe (for the SIGTERM handler), or -1.
static WAKE: AtomicI32 = AtomicI32::new(-1);
/// Set by the thread once it has forwarded everything after a wake-up.
static FORWARDED: AtomicBool = AtomicBool::new(false);

/// SIGTERM (how `mpirun` stops the other processes when one fails): wake the thread, give it
/// up to half a second to forward what is waiting, then end as SIGTERM would have. Only
/// async-signal-safe calls.
extern "C" fn on_term(sig: libc::c_int) {
    let w = WAKE.load(Ordering::SeqCst);
    if w >= 0 {
        FORWARDED.store(false, Ordering::SeqCst);
        // SAFETY: async-signal-safe calls on a descriptor this module owns
        unsafe {
            libc::write(w, b"x".as_ptr().cast(), 1);
            let ms = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            for _ in 0..500 {
                if FORWARDED.load(Ordering::SeqCst) {
                    break;
                }
                libc::nanosleep(&ms, std::ptr::null_mut());
            }
        }
    }
    // SAFETY: back to the default action, then the same signal again
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn drain_at_exit() {
    drain();
}

/// Starts the relay when standard output is a terminal or a pipe (what `mpirun` gives its
/// processes), unless `SAPFOR_STDOUT_BATCH=0`. Best effort: on any failure output stays as
/// it was.
pub fn start() {
    if crate::turned_off("SAPFOR_STDOUT_BATCH") {
        return;
    }
    let mut slot = RELAY.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_some() {
        return;
    }
    // SAFETY: plain POSIX calls on file descriptors this function owns or fd 1
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) != 0 {
            return;
        }
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFIFO && libc::isatty(1) != 1 {
            return;
        }
        let orig = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if orig < 0 {
            return;
        }
        let mut p = [0i32; 2];
        if libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            libc::close(orig);
            return;
        }
        // room for a burst of output while the thread waits (best effort)
        libc::fcntl(p[1], libc::F_SETPIPE_SZ, 1 << 20);
        if libc::dup2(p[1], 1) < 0 {
            libc::close(p[0]);
            libc::close(p[1]);
            libc::close(orig);
            return;
        }
        libc::close(p[1]);
        let rd = p[0];
        let mut wake = [0i32; 2];
        if libc::pipe2(wake.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) != 0 {
            wake = [-1, -1];
        }
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("sapfor-stdout".into())
            .spawn(move || {
                // SIGTERM goes to another thread: its handler waits for this one
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGTERM);
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                forward(rd, orig, wake[0]);
                let _ = tx.send(());
            });
        if spawned.is_err() {
            libc::dup2(orig, 1);
            libc::close(rd);
            libc::close(orig);
            return;
        }
        *slot = Some(Relay { orig, done: rx });
        libc::atexit(drain_at_exit);
        if wake[1] >= 0 {
            WAKE.store(wake[1], Ordering::SeqCst);
            // only where the program has not chosen its own handling of SIGTERM
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_DFL
            {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_term as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(libc::SIGTERM, &act, std::ptr::null_mut());
            }
        }
    }
}

/// Writes all of `bytes` to `fd` (std's `write_all`, which retries interrupted writes; a
/// reader that has gone away: they are dropped).
fn write_all(fd: i32, bytes: &[u8]) {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is the relay's copy of the real output, closed only by `drain` (a write
    // after that fails and is dropped); ManuallyDrop keeps this File from closing it
    let mut out = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
    let _ = out.write_all(bytes);
}

/// Waits until `fd` is readable or `ms` milliseconds pass (-1: no limit); true if readable.
fn readable(fds: &mut [libc::pollfd], ms: i32) -> bool {
    for f in fds.iter_mut() {
        f.revents = 0;
    }
    // SAFETY: `fds` is a valid array of pollfd
    let r = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    r > 0
}

/// The thread: reads what the program wrote and writes it to the real output, then lets the
/// next output collect for [`BATCH`]; ends at end of file (fd 1 given back by [`drain`]). A
/// byte on `wake` (the SIGTERM handler) makes it forward what is waiting at once.
fn forward(rd: i32, orig: i32, wake: i32) {
    let mut buf = vec![0u8; 1 << 16];
    let pf = |fd: i32| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // forward what can be read without waiting (after a wake-up); false at end of file
    let urgent = |buf: &mut [u8]| -> bool {
        let mut byte = [0u8; 8];
        // SAFETY: empties the (non-blocking) wake-up pipe
        while unsafe { libc::read(wake, byte.as_mut_ptr().cast(), byte.len()) } > 0 {}
        let mut one = [pf(rd)];
        while readable(&mut one, 0) {
            // SAFETY: `buf` has room for the bytes read
            let n = unsafe { libc::read(rd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                FORWARDED.store(true, Ordering::SeqCst);
                return false;
            }
            write_all(orig, &buf[..n as usize]);
        }
        FORWARDED.store(true, Ordering::SeqCst);
        true
    };
    loop {
        let mut both = [pf(rd), pf(wake)];
        readable(&mut both, -1);
        if wake >= 0 && both[1].revents & libc::POLLIN != 0 {
            if !urgent(&mut buf) {
                break;
            }
            continue;
        }
        if both[0].revents == 0 {
            continue;
        }
        // SAFETY: `buf` has room for the bytes read
        let n = unsafe { libc::read(rd, buf.as_mut_ptr().cast(), buf.len()) };
        if n == 0 {
            break;
        }
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        write_all(orig, &buf[..n as usize]);
        // let the next output collect, unless woken
        let mut w = [pf(wake)];
        if wake >= 0 && readable(&mut w, BATCH.as_millis() as i32) && !urgent(&mut buf) {
            break;
        }
        if wake < 0 {
            std::thread::sleep(BATCH);
        }
    }
    // SAFETY: the read end belongs to this thread
    unsafe { libc::close(rd) };
}

/// Forwards everything written so far and gives fd 1 back to the real output. Called at
/// `sapfor_finalize`, before a runtime error stops the program, and at exit; does nothing
/// the second time.
pub fn drain() {
    let relay = RELAY.lock().unwrap_or_else(|e| e.into_inner()).take();
    let Some(r) = relay else { return };
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: fd 1 becomes the real output again, which closes the pipe's only write end
    // (the thread then sees end of file once it has forwarded the rest)
    unsafe {
        libc::dup2(r.orig, 1);
    }
    // a child process still holding the pipe (EXECUTE_COMMAND_LINE in the background) would
    // keep it open: do not wait for ever
    let _ = r.done.recv_timeout(Duration::from_secs(2));
    // SAFETY: `orig` is ours
    unsafe {
        libc::close(r.orig);
    }
}
