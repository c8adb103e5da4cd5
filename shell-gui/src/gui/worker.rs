//! Background work: applying a refinement, re-running the analysis and the experts and reading
//! the database back happen in one worker thread per request, so the window keeps drawing.
//! The worker owns its own database connection (SQLite in WAL mode); it reports progress and
//! the result through a channel and asks egui to repaint.

use super::model::{load, Change, Project};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, TryRecvError};

pub enum Msg {
    Progress(String),
    Done(Box<Result<Project, String>>),
}

/// A request in flight.
pub struct Job {
    rx: Receiver<Msg>,
    /// What it is doing now (for the progress indicator).
    pub step: String,
    pub started: std::time::Instant,
}

impl Job {
    pub fn spawn(db: PathBuf, change: Change, ctx: Option<egui::Context>) -> Job {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("sapfor-gui-worker".into())
            .spawn(move || {
                let repaint = || {
                    if let Some(c) = &ctx {
                        c.request_repaint();
                    }
                };
                let progress = |s: &str| {
                    let _ = tx.send(Msg::Progress(s.to_string()));
                    repaint();
                };
                // A panic in the analysis must not take the window down: report it.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    load(&db, &change, &progress).map_err(|e| format!("{e:#}"))
                }))
                .unwrap_or_else(|p| {
                    let what = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    Err(format!("internal error while analyzing: {what}"))
                });
                let _ = tx.send(Msg::Done(Box::new(r)));
                repaint();
            })
            .expect("spawning a thread");
        Job {
            rx,
            step: "starting".into(),
            started: std::time::Instant::now(),
        }
    }

    /// The result, once the worker is done; progress messages update `step`.
    pub fn poll(&mut self) -> Option<Result<Project, String>> {
        loop {
            match self.rx.try_recv() {
                Ok(Msg::Progress(s)) => self.step = s,
                Ok(Msg::Done(r)) => return Some(*r),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    return Some(Err("the background worker stopped unexpectedly".into()))
                }
            }
        }
    }
}
