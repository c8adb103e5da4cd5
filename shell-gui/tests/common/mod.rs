//! Shared by the GUI test files: a temporary project with the Jacobi sample, a harness that
//! drives `App::show`, and waiting for the background work.
#![allow(dead_code)]

use egui_kittest::kittest::Queryable;
use egui_kittest::{Harness, HarnessBuilder};
use shell_gui::gui::App;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct Project {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    pub src: PathBuf,
}

/// A temporary project with a copy of the Jacobi sample.
pub fn jacobi() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("jac.f");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f"),
        &src,
    )
    .unwrap();
    let db = dir.path().join("sapfor.db");
    Project { dir, db, src }
}

/// A harness drawing `app` with `builder` (size, renderer).
pub fn harness_with(builder: HarnessBuilder<App>, app: App) -> Harness<'static, App> {
    builder.build_ui_state(|ui, app: &mut App| app.show(ui), app)
}

/// Step until the background work (and a running program) is over, then draw twice more.
pub fn settle(h: &mut Harness<'static, App>) {
    let t = Instant::now();
    loop {
        h.step();
        let running = h.state().run.as_ref().is_some_and(|r| r.end().is_none());
        if !h.state().busy() && !running {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "the GUI did not settle"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    h.step();
    h.step();
}

/// Open the window on `p`'s database (analyzing `files` first) and wait for it.
pub fn open(p: &Project, files: Vec<PathBuf>) -> Harness<'static, App> {
    let builder = Harness::builder().with_size([1400.0, 1000.0]);
    let mut h = harness_with(builder, App::new(p.db.clone(), files, None));
    settle(&mut h);
    h
}

pub fn open_jacobi() -> (Project, Harness<'static, App>) {
    let p = jacobi();
    let h = open(&p, vec![p.src.clone()]);
    (p, h)
}

pub fn loop_index(h: &Harness<'static, App>, line: u32) -> usize {
    h.state()
        .project
        .as_ref()
        .unwrap()
        .loops
        .iter()
        .position(|l| l.line == line)
        .unwrap()
}

pub fn verdict(h: &Harness<'static, App>, line: u32) -> String {
    let i = loop_index(h, line);
    h.state().project.as_ref().unwrap().loops[i].verdict.clone()
}

/// Click the widget labelled `label` and draw until the click shows.
pub fn click(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).click();
    h.step();
    h.step();
}

/// The label of the `i`-th dependence of the loop at `line`, as the loop panel shows it.
pub fn dep_label(h: &Harness<'static, App>, line: u32, i: usize) -> String {
    let l = loop_index(h, line);
    let d = h.state().project.as_ref().unwrap().loops[l].deps[i].clone();
    format!(
        "{} {} ({}) line {} -> line {}",
        d.array.to_uppercase(),
        d.kind,
        d.distance,
        d.source_line,
        d.sink_line
    )
}

/// An executable shell script standing in for `sapfor` in the Run action.
pub fn fake_sapfor(p: &Project, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.dir.path().join("fake-sapfor");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
