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
    h.state().project.as_ref().unwrap().loops[l].deps[i].label()
}

/// An executable shell script standing in for `sapfor` in the Run action.
pub fn fake_sapfor(p: &Project, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.dir.path().join("fake-sapfor");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A generated multi-file project the size of a real one (issue 19): a main program and
/// `files - 1` subroutine files of ten loops each (parallel nests, reductions, recurrences,
/// stencils, private scalars), sharing a COMMON block. `SUB01` also has a loop with
/// dependences between many statements (a big loop) and one whose two scalars are live after
/// it, so that only asserting both private makes it parallel. Returns the project and its
/// files (the main program first).
pub fn big_project(files: usize) -> (Project, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let decl = "      INTEGER N\n      PARAMETER (N = 40)\n      REAL A(N,N), B(N,N), C(N)\n      COMMON /FLD/ A, B, C\n";
    let mut paths = vec![];
    let mut main = String::from("      PROGRAM BIG\n");
    main.push_str(decl);
    main.push_str("      REAL S\n      INTEGER I, J\n");
    main.push_str("      DO 10 J = 1, N\n      DO 10 I = 1, N\n         A(I,J) = I + J\n         B(I,J) = I - J\n   10 CONTINUE\n");
    main.push_str("      DO 20 I = 1, N\n         C(I) = I\n   20 CONTINUE\n");
    for k in 1..files {
        main.push_str(&format!("      CALL SUB{k:02}(S)\n      PRINT *, {k}, S\n"));
    }
    main.push_str("      END\n");
    let p = dir.path().join("big.f");
    std::fs::write(&p, main).unwrap();
    paths.push(p);
    for k in 1..files {
        let mut s = format!("      SUBROUTINE SUB{k:02}(S)\n{decl}      REAL S, T, U\n      INTEGER I, J\n");
        s.push_str(&format!(
            "      DO 10 J = 1, N\n      DO 10 I = 1, N\n         A(I,J) = B(I,J) * {k}\n   10 CONTINUE\n"
        ));
        s.push_str("      S = 0.\n      DO 20 J = 2, N-1\n      DO 20 I = 2, N-1\n         S = S + A(I,J)\n   20 CONTINUE\n");
        s.push_str("      DO 30 J = 2, N\n      DO 30 I = 1, N\n         B(I,J) = B(I,J-1) * 0.5 + A(I,J)\n   30 CONTINUE\n");
        s.push_str("      DO 40 I = 2, N\n         C(I) = C(I-1) * 0.5 + C(I)\n   40 CONTINUE\n");
        s.push_str("      DO 50 J = 2, N-1\n      DO 50 I = 2, N-1\n         B(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) * 0.25\n   50 CONTINUE\n");
        s.push_str("      DO 60 I = 1, N\n         T = C(I) * 2\n         C(I) = T + 1\n   60 CONTINUE\n");
        s.push_str("      DO 70 J = 1, N\n         DO 70 I = 1, N\n            A(I,J) = A(I,J) + C(J)\n   70 CONTINUE\n");
        if k == 1 {
            // the big loop: a Gauss-Seidel sweep over two arrays in many statements
            s.push_str("      DO 80 J = 2, N-1\n      DO 80 I = 2, N-1\n");
            for m in 0..8 {
                s.push_str(&format!(
                    "         A(I,J) = A(I-1,J) + A(I,J-1) + B(I+1,J) * {m}.\n         B(I,J) = B(I,J+1) + A(I+1,J) - B(I-1,J)\n"
                ));
            }
            s.push_str("   80 CONTINUE\n");
            // T and U are read after the loop: parallel only if the user says both are private
            s.push_str("      DO 90 I = 1, N\n         T = C(I) + 1\n         U = T * 2\n         C(I) = U\n   90 CONTINUE\n      S = S + T + U\n");
        }
        s.push_str("      END\n");
        let p = dir.path().join(format!("sub{k:02}.f"));
        std::fs::write(&p, s).unwrap();
        paths.push(p);
    }
    let db = dir.path().join("sapfor.db");
    let src = paths[0].clone();
    (Project { dir, db, src }, paths)
}

/// The line (1-based) of the first line of `file` in `p`'s directory that contains `needle`.
pub fn line_of(p: &Project, file: &str, needle: &str) -> u32 {
    let text = std::fs::read_to_string(p.dir.path().join(file)).unwrap();
    text.lines().position(|l| l.contains(needle)).expect(needle) as u32 + 1
}
