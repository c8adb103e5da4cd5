//! Device layer: the emulated accelerator runs CUDA C kernels from its own memory; the CUDA
//! device falls back to the host when there is no driver library (there is no GPU here).
use sapfor_rt::device::{self, emu, nvrtc, Device, DeviceKind, KArg};

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(double *y, const double *x, double a, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void total(const double *x, double *out, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}
"#;

#[test]
fn emulator_runs_kernels_in_its_own_memory() {
    let mut d = emu::EmuDevice::new();
    saxpy_and_total(&mut d);
    assert_eq!(d.live_allocations(), 0);
}

/// Runs only where a GPU and its driver are (the build machines have neither: SKIPPED there);
/// `bench/gpu_check.sh` runs it on a lent GPU machine.
#[test]
fn cuda_runs_kernels_on_a_gpu() {
    let mut d = match device::cuda::CudaDevice::open() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("SKIPPED: no GPU ({e})");
            return;
        }
    };
    eprintln!("running on {}", d.describe());
    saxpy_and_total(&mut d);
    box_copies(&mut d);
    // a kernel that does not compile says why; one that is not in the program too
    let e = d.load_program("extern \"C\" __global__ void bad(int *x) { x[0] = undefined_name; }").unwrap_err();
    assert!(e.0.contains("undefined_name"), "{e}");
}

/// y = 2x + y and the sum of x by atomics on 1,000 doubles, copies in both directions and
/// a part of an array copied back.
fn saxpy_and_total(d: &mut dyn Device) {
    let n = 1000i64;
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut y: Vec<f64> = vec![1.0; n as usize];
    let b = [(1i64, n)];
    let dx = d.alloc(8 * n as usize).unwrap();
    let dy = d.alloc(8 * n as usize).unwrap();
    let dout = d.alloc(8).unwrap();
    unsafe {
        assert_eq!(
            d.to_device(dx, &b, x.as_ptr() as *const u8, &b, 8, &b)
                .unwrap(),
            8 * n as u64
        );
        d.to_device(dy, &b, y.as_ptr() as *const u8, &b, 8, &b)
            .unwrap();
    }
    let p = d.load_program(SAXPY).unwrap();
    let grid = device::grid_for(&[n], [128, 1, 1]);
    assert_eq!(grid, [8, 1, 1]);
    d.launch(
        p,
        "saxpy",
        grid,
        [128, 1, 1],
        &[KArg::Ptr(dy), KArg::Ptr(dx), KArg::F64(2.0), KArg::I64(n)],
    )
    .unwrap();
    // the host copy is untouched until copied back
    assert!(y.iter().all(|&v| v == 1.0));
    unsafe {
        d.to_host(y.as_mut_ptr() as *mut u8, &b, dy, &b, 8, &[(10, 12)])
            .unwrap()
    };
    assert_eq!(&y[8..13], &[1.0, 19.0, 21.0, 23.0, 1.0]);
    d.launch(
        p,
        "total",
        grid,
        [128, 1, 1],
        &[KArg::Ptr(dx), KArg::Ptr(dout), KArg::I64(n)],
    )
    .unwrap();
    let mut t = [0.0f64];
    unsafe {
        d.to_host(
            t.as_mut_ptr() as *mut u8,
            &[(1, 1)],
            dout,
            &[(1, 1)],
            8,
            &[(1, 1)],
        )
        .unwrap()
    };
    assert_eq!(t[0], (n * (n - 1) / 2) as f64);
    // loading the same source again reuses the program
    assert_eq!(d.load_program(SAXPY).unwrap(), p);
    assert!(d.launch(p, "nosuch", grid, [1, 1, 1], &[]).is_err());
    for q in [dx, dy, dout] {
        d.free(q);
    }
}

#[test]
fn emulator_reports_compile_errors() {
    let mut d = emu::EmuDevice::new();
    let e = d
        .load_program("extern \"C\" __global__ void bad(int *x) { x[0] = undefined_name; }")
        .unwrap_err();
    assert!(e.0.contains("undefined_name"), "{e}");
}

#[test]
fn box_copies_between_different_bounds() {
    box_copies(&mut emu::EmuDevice::new());
}

fn box_copies(d: &mut dyn Device) {
    // host array A(0:5, 1:4), device representative covering (1:4, 2:3)
    let hb = [(0i64, 5), (1, 4)];
    let db = [(1i64, 4), (2, 3)];
    let host: Vec<i32> = (0..24).collect();
    let p = d.alloc(4 * 8).unwrap();
    unsafe {
        d.to_device(
            p,
            &db,
            host.as_ptr() as *const u8,
            &hb,
            4,
            &[(2, 3), (2, 3)],
        )
        .unwrap()
    };
    let mut back = vec![-1i32; 24];
    let n = unsafe {
        d.to_host(
            back.as_mut_ptr() as *mut u8,
            &hb,
            p,
            &db,
            4,
            &[(2, 3), (2, 3)],
        )
        .unwrap()
    };
    assert_eq!(n, 16);
    for j in 1..=4i64 {
        for i in 0..=5i64 {
            let k = device::offset(&hb, &[i, j]);
            let inside = (2..=3).contains(&i) && (2..=3).contains(&j);
            assert_eq!(back[k], if inside { host[k] } else { -1 });
        }
    }
}

#[test]
fn missing_cuda_library_falls_back_to_the_host() {
    // No GPU and no libcuda.so on the build machines: opening CUDA must not panic.
    if device::cuda::driver_present() {
        eprintln!("SKIPPED: this machine has the CUDA driver (cuda_runs_kernels_on_a_gpu runs instead)");
        return;
    }
    let (d, note) = device::open(DeviceKind::Cuda);
    assert_eq!(d.kind(), DeviceKind::Host);
    let note = note.expect("one informational line");
    assert!(!note.contains('\n'));
    assert!(note.contains("no CUDA") && note.contains("host"), "{note}");
    let (e, none) = device::open(DeviceKind::Emu);
    assert_eq!(e.kind(), DeviceKind::Emu);
    assert!(none.is_none());
}

#[test]
fn nvrtc_compiles_and_ptxas_accepts() {
    let lib = match nvrtc::get() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("SKIPPED: NVRTC not installed ({e}); run scripts/setup.sh");
            return;
        }
    };
    eprintln!("NVRTC {:?} from {}", lib.version().unwrap(), lib.path);
    let ptx = nvrtc::compile_cached(SAXPY, nvrtc::ARCH).unwrap();
    assert!(ptx.contains(".entry saxpy") && ptx.contains(".entry total"));
    let Some(ptxas) = nvrtc::find_ptxas() else {
        eprintln!("SKIPPED: ptxas not installed; run scripts/setup.sh");
        return;
    };
    let dir = tempfile_dir();
    let f = dir.join("k.ptx");
    std::fs::write(&f, &ptx).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_80", "-o"])
        .arg(dir.join("k.cubin"))
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = nvrtc::get()
        .unwrap()
        .compile("__global__ void k() { nope; }", nvrtc::ARCH)
        .unwrap_err();
    assert!(e.0.contains("nope"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sapfor-dev-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Boxes move as merged runs, or as one span whose gaps keep the accelerator's values: every
/// shape of box, both ways, on the emulator (which uses the CUDA device's plan).
#[test]
fn box_copies_by_runs_or_by_span_keep_the_elements_outside_the_box() {
    use device::CopyPlan;
    // the plans: a whole array is one run; the interior of NPB LU's U(5,13,13,12) is one span
    // (110 runs of 55 elements); long columns far apart stay runs
    let u = [(1i64, 5), (1, 13), (1, 13), (1, 12)];
    let p = CopyPlan::new(&u, &u, &u.to_vec(), 8, true);
    assert_eq!((p.runs.len(), p.hull), (1, None));
    let inner = vec![(1i64, 5), (2, 12), (2, 12), (2, 11)];
    let p = CopyPlan::new(&u, &u, &inner, 8, true);
    assert_eq!(p.runs.len(), 11 * 10);
    assert!(p.hull.is_some());
    let big = [(1i64, 100_000), (1, 40)];
    let p = CopyPlan::new(&big, &big, &vec![(1, 100_000), (3, 3)], 8, false);
    assert_eq!((p.runs.len(), p.hull), (1, None));
    let p = CopyPlan::new(&big, &big, &vec![(1, 100_000), (3, 40)], 8, false);
    assert_eq!((p.runs.len(), p.hull), (1, None));
    let p = CopyPlan::new(&big, &big, &vec![(1, 50_000), (1, 40)], 8, false);
    assert_eq!((p.runs.len(), p.hull), (40, None));
    // data: host array H(0:6, 1:5, 2:4), device representative D(1:6, 1:5, 2:4)
    let hb = [(0i64, 6), (1, 5), (2, 4)];
    let db = [(1i64, 6), (1, 5), (2, 4)];
    let boxes: Vec<Vec<(i64, i64)>> = vec![
        vec![(1, 6), (1, 5), (2, 4)],
        vec![(2, 3), (1, 5), (2, 4)],
        vec![(1, 1), (1, 5), (2, 4)],
        vec![(3, 5), (2, 4), (3, 3)],
        vec![(6, 6), (5, 5), (4, 4)],
        vec![(1, 6), (2, 2), (2, 4)],
    ];
    for r in &boxes {
        let mut d = emu::EmuDevice::new();
        let n_dev = device::elements(&db);
        let p = d.alloc(8 * n_dev).unwrap();
        let before: Vec<f64> = (0..n_dev).map(|k| -(k as f64)).collect();
        unsafe { d.to_device(p, &db, before.as_ptr() as *const u8, &db, 8, &db).unwrap() };
        let host: Vec<f64> = (0..device::elements(&hb)).map(|k| k as f64 + 0.5).collect();
        let moved = unsafe { d.to_device(p, &db, host.as_ptr() as *const u8, &hb, 8, r).unwrap() };
        assert_eq!(moved, 8 * device::elements(r) as u64);
        let mut after = vec![0f64; n_dev];
        unsafe { d.to_host(after.as_mut_ptr() as *mut u8, &db, p, &db, 8, &db).unwrap() };
        let mut back = vec![7f64; device::elements(&hb)];
        unsafe { d.to_host(back.as_mut_ptr() as *mut u8, &hb, p, &db, 8, r).unwrap() };
        for k in 2..=4i64 {
            for j in 1..=5i64 {
                for i in 0..=6i64 {
                    let inside = (r[0].0..=r[0].1).contains(&i) && (r[1].0..=r[1].1).contains(&j) && (r[2].0..=r[2].1).contains(&k);
                    let h = device::offset(&hb, &[i, j, k]);
                    assert_eq!(back[h], if inside { host[h] } else { 7.0 }, "{r:?} host ({i},{j},{k})");
                    if i >= 1 {
                        let e = device::offset(&db, &[i, j, k]);
                        assert_eq!(after[e], if inside { host[h] } else { before[e] }, "{r:?} device ({i},{j},{k})");
                    }
                }
            }
        }
    }
}
