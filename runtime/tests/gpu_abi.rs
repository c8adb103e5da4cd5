//! The C ABI of the accelerator runtime (sapfor_rt::gpu_abi), driven the way generated
//! Fortran will drive it: kernels from a .cu file, REGION clause items, arguments pushed in
//! the order of `Kernel::params`, reductions (with MAXLOC/MINLOC) folded into host variables.
use analyzer::sema::Const;
use runtime::kernel::{self, Kernel, NestSpec};
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

fn load(ks: &[Kernel], dir: &Path) -> i64 {
    let refs: Vec<&Kernel> = ks.iter().collect();
    let f = dir.join("kernels.cu");
    std::fs::write(&f, kernel::program_source(&refs)).unwrap();
    let c = CString::new(f.to_str().unwrap()).unwrap();
    let p = unsafe { sapfor_gpu_load(c.as_ptr()) };
    assert!(p >= 0);
    p
}

fn launch(prog: i64, k: &Kernel) {
    let name = CString::new(k.name.clone()).unwrap();
    let rc = unsafe {
        sapfor_gpu_launch(
            prog,
            name.as_ptr(),
            k.block[0] as i32,
            k.block[1] as i32,
            k.block[2] as i32,
            k.single_thread as i32,
        )
    };
    assert_eq!(rc, 0);
}

#[test]
fn reductions_sample_maxloc_minloc_through_the_c_abi() {
    let dir = tempfile::tempdir().unwrap();
    let ks = kernels("red.fdv");
    assert_eq!(ks.len(), 2);
    assert_eq!(sapfor_gpu_init(1), 1);
    let prog = load(&ks, dir.path());
    let m = 400i64;
    let mut b = vec![0f64; (m * m) as usize];
    let (lo, hi) = ([1i64, 1], [m, m]);
    let vb =
        unsafe { sapfor_gpu_register(b.as_mut_ptr() as *mut u8, 2, lo.as_ptr(), hi.as_ptr(), 8) };
    // region OUT(B): b(i,j) = mod(((i-1)*m+j)*7907, 160009) * 1e-2
    unsafe { sapfor_gpu_use(vb, 2, 2, lo.as_ptr(), hi.as_ptr()) };
    assert_eq!(sapfor_gpu_region_enter(), 0);
    assert_eq!(sapfor_gpu_arg_array(vb), 0);
    sapfor_gpu_arg_loop(1, m, 1);
    sapfor_gpu_arg_loop(1, m, 1);
    launch(prog, &ks[0]);
    assert_eq!(sapfor_gpu_region_exit(), 0);
    // REMOTE_ACCESS(B(1,1)) on the host: GET_ACTUAL of one element
    assert_eq!(
        unsafe { sapfor_gpu_get_actual(vb, 2, [1i64, 1].as_ptr(), [1i64, 1].as_ptr()) },
        8
    );
    let (mut bmax, mut ibmax, mut jbmax) = (b[0], 1i32, 1i32);
    let (mut bmin, mut ibmin, mut jbmin) = (b[0], 1i32, 1i32);
    // region IN(B): the MAXLOC/MINLOC nest
    unsafe { sapfor_gpu_use(vb, 1, 2, lo.as_ptr(), hi.as_ptr()) };
    assert_eq!(sapfor_gpu_region_enter(), 0);
    assert_eq!(sapfor_gpu_arg_array(vb), 0);
    sapfor_gpu_arg_loop(1, m, 1);
    sapfor_gpu_arg_loop(1, m, 1);
    unsafe {
        let l1 = [&mut ibmax as *mut i32, &mut jbmax as *mut i32];
        assert_eq!(
            sapfor_gpu_arg_red(9, 4, &mut bmax as *mut f64 as *mut u8, 2, l1.as_ptr()),
            0
        );
        let l2 = [&mut ibmin as *mut i32, &mut jbmin as *mut i32];
        assert_eq!(
            sapfor_gpu_arg_red(10, 4, &mut bmin as *mut f64 as *mut u8, 2, l2.as_ptr()),
            0
        );
    }
    launch(prog, &ks[1]);
    assert_eq!(sapfor_gpu_region_exit(), 0);
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
    sapfor_gpu_report();
    sapfor_gpu_finalize();
}

#[test]
fn cuda_request_without_a_driver_runs_on_the_host() {
    // no GPU here: the CUDA kind falls back (one line on stderr) and regions run on the host
    assert_eq!(sapfor_gpu_init(2), 0);
    let mut x = [1.0f64, 2.0, 3.0];
    let v = unsafe {
        sapfor_gpu_register(
            x.as_mut_ptr() as *mut u8,
            1,
            [1i64].as_ptr(),
            [3i64].as_ptr(),
            8,
        )
    };
    unsafe { sapfor_gpu_use(v, 3, 1, [1i64].as_ptr(), [3i64].as_ptr()) };
    assert_eq!(sapfor_gpu_region_enter(), 0);
    assert_eq!(sapfor_gpu_region_exit(), 0);
    assert_eq!(
        unsafe { sapfor_gpu_get_actual(v, 1, [1i64].as_ptr(), [3i64].as_ptr()) },
        0
    );
    sapfor_gpu_finalize();
}
