//! The C ABI of the accelerator runtime (sapfor_rt::gpu_abi), driven the way converted
//! Fortran drives it (convert_gpu.rs): the program's kernel text, REGION clause items by
//! address, arguments pushed in the order of `Kernel::params`, reductions (with
//! MAXLOC/MINLOC) folded into host variables. Converted programs are tested end to end in
//! shell-gui/tests/gpu_run.rs.
use analyzer::sema::Const;
use runtime::kernel::{self, Kernel, NestSpec};
use sapfor_rt::device::DeviceKind;
use sapfor_rt::gpu_abi::*;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::path::Path;

fn kernels(file: &str) -> Vec<Kernel> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(file);
    let p = analyzer::program::load(&[path], &Default::default());
    kernel::parallel_nests(&p)
        .into_iter()
        .enumerate()
        .map(|(k, (ui, _, nest, vars, clauses))| {
            kernel::generate(&NestSpec {
                program: &p,
                unit: ui,
                nest,
                vars,
                clauses,
                name: format!("k{k}"),
                param_overrides: BTreeMap::<String, Const>::new(),
            })
            .unwrap()
        })
        .collect()
}

fn load(ks: &[Kernel]) {
    let refs: Vec<&Kernel> = ks.iter().collect();
    let c = CString::new(kernel::program_source(&refs)).unwrap();
    unsafe { sapfor_gpu_program(c.as_ptr()) };
}

fn launch(k: &Kernel) {
    let name = CString::new(k.name.clone()).unwrap();
    unsafe {
        sapfor_gpu_launch(
            name.as_ptr(),
            k.block[0] as i32,
            k.block[1] as i32,
            k.block[2] as i32,
            k.single_thread as i32,
            0,
        )
    };
}

/// One clause item over the whole array `b` (m x m, not distributed).
fn use_b(b: &mut [f64], access: i32, m: i64) {
    let (lo, hi) = ([1i64, 1], [m, m]);
    let name = CString::new("b").unwrap();
    unsafe {
        sapfor_gpu_use(
            b.as_mut_ptr() as *mut u8,
            name.as_ptr(),
            access,
            -1,
            2,
            lo.as_ptr(),
            hi.as_ptr(),
            lo.as_ptr(),
            hi.as_ptr(),
            8,
            0,
        )
    };
}

#[test]
fn reductions_sample_maxloc_minloc_through_the_c_abi() {
    let ks = kernels("red.fdv");
    assert_eq!(ks.len(), 2);
    init(Some(DeviceKind::Emu), None, 0);
    assert_eq!(sapfor_gpu_active(), 1);
    assert_eq!(sapfor_gpu_host_loop(), 0);
    load(&ks);
    let m = 400i64;
    let mut b = vec![0f64; (m * m) as usize];
    let bp = b.as_ptr() as *const u8;
    // region OUT(B): b(i,j) = mod(((i-1)*m+j)*7907, 160009) * 1e-2
    use_b(&mut b, 2, m);
    sapfor_gpu_region_enter(0);
    unsafe { sapfor_gpu_arg_array(bp, 4, 1, 0, 2, 0, 0, 0, 0, 0) };
    sapfor_gpu_arg_loop(1, m, 1);
    sapfor_gpu_arg_loop(1, m, 1);
    launch(&ks[0]);
    sapfor_gpu_region_exit(0);
    // REMOTE_ACCESS(B(1,1)) on the host: GET_ACTUAL of one element
    unsafe {
        sapfor_gpu_get_actual(bp, 2, [1i64, 1].as_ptr(), [1i64, 1].as_ptr(), [1i64, 1].as_ptr(), [m, m].as_ptr(), 0, 8)
    };
    let (mut bmax, mut ibmax, mut jbmax) = (b[0], 1i32, 1i32);
    let (mut bmin, mut ibmin, mut jbmin) = (b[0], 1i32, 1i32);
    // region IN(B): the MAXLOC/MINLOC nest
    use_b(&mut b, 1, m);
    sapfor_gpu_region_enter(0);
    unsafe { sapfor_gpu_arg_array(bp, 4, 0, 0, 0, 0, 0, 2, 0, 0) };
    sapfor_gpu_arg_loop(1, m, 1);
    sapfor_gpu_arg_loop(1, m, 1);
    unsafe {
        sapfor_gpu_arg_red(9, 4, &mut bmax as *mut f64 as *mut u8, 0, 0);
        sapfor_gpu_arg_red_loc(&mut ibmax, 0);
        sapfor_gpu_arg_red_loc(&mut jbmax, 0);
        sapfor_gpu_arg_red(10, 4, &mut bmin as *mut f64 as *mut u8, 0, 0);
        sapfor_gpu_arg_red_loc(&mut ibmin, 0);
        sapfor_gpu_arg_red_loc(&mut jbmin, 0);
    }
    launch(&ks[1]);
    sapfor_gpu_region_exit(0);
    let line = format!(
        " maxloc b ={bmax:12.4}{ibmax:5}{jbmax:5}  minloc b ={bmin:12.4}{ibmin:5}{jbmin:5}"
    );
    let want = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/reductions/expected.out"),
    )
    .unwrap();
    assert_eq!(line, want.lines().nth(6).unwrap());
    let (mut h2d, mut d2h, mut req, mut nocopy) = (0i64, 0i64, 0i64, 0i64);
    unsafe { sapfor_gpu_traffic(&mut h2d, &mut d2h, &mut req, &mut nocopy) };
    // one element of B, then two reduction results with two indices each
    assert_eq!((h2d, d2h), (0, 8 + 2 * (8 + 8)));
    assert_eq!((req, nocopy), (2, 1));
    // the host copy of B was never needed: it still holds zeros except B(1,1)
    assert!(b[1..].iter().all(|&x| x == 0.0));
    let report = report_lines(&|s| format!("src{s}"));
    assert!(
        report
            .iter()
            .any(|l| l.starts_with("region src0: runs 2; kernels 2")),
        "{report:?}"
    );
    finish(0, 1);
    assert_eq!(sapfor_gpu_active(), 0);
}

#[test]
fn cuda_request_without_a_driver_runs_on_the_host() {
    // no GPU here: the CUDA kind falls back (one line on stderr) and regions run on the host
    init(Some(DeviceKind::Cuda), None, 0);
    assert_eq!(sapfor_gpu_active(), 0);
    assert_eq!(sapfor_gpu_host_loop(), 1);
    let mut x = [1.0f64, 2.0, 3.0];
    let name = CString::new("x").unwrap();
    unsafe {
        sapfor_gpu_use(
            x.as_mut_ptr() as *mut u8,
            name.as_ptr(),
            3,
            -1,
            1,
            [1i64].as_ptr(),
            [3i64].as_ptr(),
            [1i64].as_ptr(),
            [3i64].as_ptr(),
            8,
            0,
        )
    };
    sapfor_gpu_region_enter(0);
    sapfor_gpu_region_exit(0);
    let (mut h2d, mut d2h) = (-1i64, -1i64);
    unsafe {
        sapfor_gpu_traffic(
            &mut h2d,
            &mut d2h,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!((h2d, d2h), (0, 0));
    assert_eq!(x, [1.0, 2.0, 3.0]);
    finish(0, 1);
}
