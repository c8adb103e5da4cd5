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
