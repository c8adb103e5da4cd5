//! `sapfor gui` in a build without the `gui` feature says how to get the window.
#![cfg(not(feature = "gui"))]

#[test]
fn gui_without_the_feature_explains_how_to_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sapfor"))
        .args(["gui", "--db"])
        .arg(dir.path().join("sapfor.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built without the desktop dialog"), "{err}");
    assert!(err.contains("--features gui"), "{err}");
}
