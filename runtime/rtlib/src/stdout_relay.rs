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
//! error stops the processes, and at `exit` (Fortran `STOP`). Output written in the last
//! [`BATCH`] before the process is killed by a signal (a crash) may be lost; set
//! `SAPFOR_STDOUT_BATCH=0` to have every line forwarded at once.

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

extern "C" fn drain_at_exit() {
    drain();
}

/// Starts the relay when standard output is a terminal or a pipe (what `mpirun` gives its
/// processes), unless `SAPFOR_STDOUT_BATCH=0`. Best effort: on any failure output stays as
/// it was.
pub fn start() {
    if std::env::var("SAPFOR_STDOUT_BATCH").is_ok_and(|v| v.trim() == "0") {
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
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("sapfor-stdout".into())
            .spawn(move || {
                forward(rd, orig);
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
    }
}

/// The thread: reads what the program wrote and writes it to the real output, then lets the
/// next output collect for [`BATCH`]; ends at end of file (fd 1 given back by [`drain`]).
fn forward(rd: i32, orig: i32) {
    let mut buf = vec![0u8; 1 << 16];
    loop {
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
        let mut rest = &buf[..n as usize];
        while !rest.is_empty() {
            // SAFETY: writes bytes of `rest`
            let w = unsafe { libc::write(orig, rest.as_ptr().cast(), rest.len()) };
            if w < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                // the reader is gone: keep draining so that the program does not block
                rest = &[];
            } else {
                rest = &rest[w as usize..];
            }
        }
        std::thread::sleep(BATCH);
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
