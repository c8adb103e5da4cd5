//! The Run action: `sapfor run FILE.fdv --np N --threads T [--profile] [--devices D
//! [--compare]]` as a child process whose
//! standard output and error are streamed line by line into the window. A program that cannot
//! be started or exits with a failure is reported, never a panic.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// Exit status (None: killed by a signal).
    Exited(Option<i32>),
    /// Could not be started at all.
    NotStarted(String),
}

impl End {
    pub fn success(&self) -> bool {
        matches!(self, End::Exited(Some(0)))
    }
}

#[derive(Default)]
struct Shared {
    /// (is standard error, line)
    lines: Vec<(bool, String)>,
    end: Option<End>,
}

/// A running (or finished) child process.
pub struct RunJob {
    pub command: String,
    shared: Arc<Mutex<Shared>>,
    child: Arc<Mutex<Option<Child>>>,
}

/// Where `sapfor run --devices` can run regions (the first: the host only).
pub const DEVICES: [&str; 5] = ["host", "emu", "cuda", "host,emu", "host,cuda"];

/// The arguments of `sapfor run` for these settings: the program's files (Fortran-DVMH and
/// C), its INCLUDE directories, `devices` one of [`DEVICES`], `compare` only with an
/// accelerator.
pub fn run_args(
    files: &[PathBuf],
    include: &[PathBuf],
    np: u32,
    threads: u32,
    profile: bool,
    devices: &str,
    compare: bool,
) -> Vec<String> {
    let mut v = vec!["run".to_string()];
    v.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
    for d in include {
        v.push("-I".into());
        v.push(d.to_string_lossy().into_owned());
    }
    v.extend(["--np".into(), np.to_string(), "--threads".into(), threads.to_string()]);
    if profile {
        v.push("--profile".into());
    }
    if devices != "host" && DEVICES.contains(&devices) {
        v.push("--devices".into());
        v.push(devices.into());
        if compare {
            v.push("--compare".into());
        }
    }
    v
}

/// The files of the Program field: separated by blanks; a name with blanks in double quotes.
pub fn split_files(text: &str) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut cur)));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(PathBuf::from(cur));
    }
    out
}

/// `files` as the Program field shows them (the inverse of [`split_files`]).
pub fn join_files(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| {
            let s = f.display().to_string();
            if s.contains(char::is_whitespace) {
                format!("\"{s}\"")
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn pump(
    r: impl Read + Send + 'static,
    err: bool,
    shared: Arc<Mutex<Shared>>,
    ctx: Option<egui::Context>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            shared.lock().unwrap().lines.push((err, line));
            if let Some(c) = &ctx {
                c.request_repaint();
            }
        }
    })
}

impl RunJob {
    /// Start `exe args` in `dir` (the program's directory: its output files go there).
    pub fn start(exe: &Path, args: &[String], dir: Option<&Path>, ctx: Option<egui::Context>) -> RunJob {
        let command = std::iter::once(exe.display().to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let shared = Arc::new(Mutex::new(Shared::default()));
        let slot: Arc<Mutex<Option<Child>>> = Arc::new(Mutex::new(None));
        let mut cmd = Command::new(exe);
        if let Some(d) = dir.filter(|d| d.is_dir()) {
            cmd.current_dir(d);
        }
        match cmd
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Err(e) => {
                shared.lock().unwrap().end = Some(End::NotStarted(format!(
                    "cannot start {}: {e}",
                    exe.display()
                )));
            }
            Ok(mut child) => {
                let out = child
                    .stdout
                    .take()
                    .map(|o| pump(o, false, shared.clone(), ctx.clone()));
                let err = child
                    .stderr
                    .take()
                    .map(|e| pump(e, true, shared.clone(), ctx.clone()));
                *slot.lock().unwrap() = Some(child);
                let (shared2, slot2) = (shared.clone(), slot.clone());
                std::thread::spawn(move || {
                    let status = loop {
                        let mut guard = slot2.lock().unwrap();
                        let Some(c) = guard.as_mut() else {
                            break None;
                        };
                        match c.try_wait() {
                            Ok(Some(s)) => break Some(s),
                            Ok(None) => {}
                            Err(_) => break None,
                        }
                        drop(guard);
                        std::thread::sleep(Duration::from_millis(30));
                    };
                    for h in [out, err].into_iter().flatten() {
                        let _ = h.join();
                    }
                    shared2.lock().unwrap().end = Some(End::Exited(status.and_then(|s| s.code())));
                    if let Some(c) = &ctx {
                        c.request_repaint();
                    }
                });
            }
        }
        RunJob {
            command,
            shared,
            child: slot,
        }
    }

    pub fn lines(&self) -> Vec<(bool, String)> {
        self.shared.lock().unwrap().lines.clone()
    }

    pub fn end(&self) -> Option<End> {
        self.shared.lock().unwrap().end.clone()
    }

    pub fn stop(&self) {
        if let Some(c) = self.child.lock().unwrap().as_mut() {
            let _ = c.kill();
        }
    }

    /// A one-line account of the outcome, for the status line (None while running).
    pub fn outcome(&self) -> Option<(bool, String)> {
        let end = self.end()?;
        Some(match end {
            End::NotStarted(e) => (false, format!("run failed: {e}")),
            End::Exited(Some(0)) => (true, "the program finished (exit status 0)".into()),
            End::Exited(code) => {
                // The first error line of standard error, else its last line.
                let err: Vec<String> = self
                    .lines()
                    .into_iter()
                    .filter(|(e, l)| *e && !l.trim().is_empty())
                    .map(|(_, l)| l.trim().to_string())
                    .collect();
                let why = err
                    .iter()
                    .find(|l| l.to_ascii_lowercase().starts_with("error"))
                    .or(err.last())
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default();
                let status =
                    code.map_or("killed by a signal".into(), |c| format!("exit status {c}"));
                (false, format!("run failed ({status}){why}"))
            }
        })
    }
}

impl Drop for RunJob {
    fn drop(&mut self) {
        self.stop();
    }
}
