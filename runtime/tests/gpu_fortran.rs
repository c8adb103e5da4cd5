//! The accelerator C ABI called from Fortran (`tests/fortran/gpu_abi_demo.f90`, linked with the
//! runtime staticlib): a region filling an array on the emulated accelerator, a SUM reduction
//! folded on the device, and a partial GET_ACTUAL.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The staticlib: `$SAPFOR_RT`, else built here with `cargo build -p sapfor-rt`.
fn staticlib() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SAPFOR_RT") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?.to_path_buf(); // target/debug
    let target = profile_dir.parent()?.to_path_buf();
    let status = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "sapfor-rt", "--target-dir"])
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    let lib = profile_dir.join("libsapfor_rt.a");
    lib.exists().then_some(lib)
}

fn mpi_link() -> Vec<String> {
    for (cmd, arg) in [
        ("mpif90", "--showme:link"),
        ("mpifort", "--showme:link"),
        ("mpif90", "-link_info"),
    ] {
        if let Ok(o) = Command::new(cmd).arg(arg).output() {
            if o.status.success() {
                let s = String::from_utf8_lossy(&o.stdout).to_string();
                return s
                    .split_whitespace()
                    .filter(|w| w.starts_with("-l") || w.starts_with("-L"))
                    .map(String::from)
                    .collect();
            }
        }
    }
    vec!["-lmpi".into()]
}

#[test]
fn fortran_program_drives_the_accelerator_abi() {
    let Some(lib) = staticlib() else {
        eprintln!("SKIPPED: could not build or find libsapfor_rt.a (set SAPFOR_RT)");
        return;
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fortran");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(src.join("kernels.cu"), dir.path().join("kernels.cu")).unwrap();
    let exe = dir.path().join("demo");
    let out = Command::new("gfortran")
        .arg(src.join("gpu_abi_demo.f90"))
        .arg(&lib)
        .args(mpi_link())
        .args(["-lpthread", "-ldl", "-lm", "-lstdc++", "-o"])
        .arg(&exe)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "link failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).current_dir(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let want = " kind 1  s =   1001000.5\n host x(1), x(6) before GET_ACTUAL:  -1.0  -1.0\n host x(1), x(6) after GET_ACTUAL(X(1:5)):   1.0  -1.0\n traffic h2d d2h requests no-copy:     0    48     2     1\n";
    assert_eq!(stdout, want);
}
