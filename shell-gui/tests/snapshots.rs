//! Rendered snapshots of the main views on the Jacobi sample (wgpu on the CPU Vulkan driver).
//! `cargo test -p shell-gui --features gui-snapshots --test snapshots`; after an intended
//! change of the look, regenerate with `UPDATE_SNAPSHOTS=1` and review the PNGs in
//! `tests/snapshots/` in the diff.
#![cfg(feature = "gui-snapshots")]

mod common;

use common::{click, dep_label, harness_with, jacobi, settle};
use egui_kittest::Harness;
use shell_gui::gui::App;
use std::path::PathBuf;

#[test]
fn main_views() {
    let p = jacobi();
    let builder = Harness::builder().with_size([1280.0, 800.0]).wgpu();
    let mut h = harness_with(builder, App::new(p.db.clone(), vec![p.src.clone()], None));
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    // The temporary directory must not show in the pictures.
    h.state_mut().db_path = PathBuf::from("sapfor.db");
    h.state_mut().save_path = "jac.fdv".into();

    click(&mut h, "S   16");
    let dep = dep_label(&h, 16, 0);
    click(&mut h, &dep);
    h.step();
    h.snapshot("source_loop_selected");

    click(&mut h, "Loops");
    h.snapshot("loops");

    click(&mut h, "Schemes");
    h.snapshot("schemes");

    click(&mut h, "Program");
    h.snapshot("program");
}

/// A project of the size of a real one (21 files, over 200 loops): the big loop selected, one
/// group of its dependences open, the refinement form above them; and the loop table.
#[test]
fn real_sized_project() {
    let (p, files) = common::big_project(21);
    let builder = Harness::builder().with_size([1280.0, 800.0]).wgpu();
    let mut h = harness_with(builder, App::new(p.db.clone(), files, None));
    settle(&mut h);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    h.state_mut().db_path = PathBuf::from("sapfor.db");
    let big = h
        .state()
        .loop_at("sub01.f", common::line_of(&p, "sub01.f", "DO 80 J"))
        .unwrap();
    h.state_mut().show_loop(big);
    h.step();
    let deps = h.state().project.as_ref().unwrap().loops[big].deps.clone();
    let g = &shell_gui::gui::model::dep_groups(&deps)[0];
    click(&mut h, &g.title());
    h.step();
    h.snapshot("big_project_loop");
    click(&mut h, "Loops");
    h.snapshot("big_project_loops");
}
