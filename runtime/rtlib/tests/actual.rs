//! Actuality tracking on the emulated accelerator: exact traffic of the Jacobi pattern and of
//! "host writes the border, then reads the interior", with values checked against the host.
use sapfor_rt::actual::{Access, RegionUse, Tracker, HOST};
use sapfor_rt::device::{emu::EmuDevice, KArg, ProgId};
use sapfor_rt::pcs::Pcs;

const ACC: usize = 1;

// Hand-written kernels (the generated ones are tested in the converter crate). Arrays are
// passed as pointer + bounds of the representative, indices are global.
const JACOBI: &str = r#"
#define AT(p, lo1, hi1, lo2, i, j) p[((i) - (lo1)) + ((hi1) - (lo1) + 1) * ((j) - (lo2))]
extern "C" __global__ void init(float *a, long long alo1, long long ahi1, long long alo2,
                                float *b, long long blo1, long long bhi1, long long blo2, long long l) {
    long long i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > l || j > l) return;
    AT(a, alo1, ahi1, alo2, i, j) = 0.0f;
    AT(b, blo1, bhi1, blo2, i, j) = (i == 1 || j == 1 || i == l || j == l) ? 0.0f : (1.0f + i + j);
}
extern "C" __global__ void step(float *a, long long alo1, long long ahi1, long long alo2,
                                float *b, long long blo1, long long bhi1, long long blo2, float *eps, long long l) {
    float e = 0.0f;
    for (long long j = 2; j <= l - 1; ++j)
        for (long long i = 2; i <= l - 1; ++i) {
            float d = fabsf(AT(b, blo1, bhi1, blo2, i, j) - AT(a, alo1, ahi1, alo2, i, j));
            e = e > d ? e : d;
            AT(a, alo1, ahi1, alo2, i, j) = AT(b, blo1, bhi1, blo2, i, j);
        }
    for (long long j = 2; j <= l - 1; ++j)
        for (long long i = 2; i <= l - 1; ++i)
            AT(b, blo1, bhi1, blo2, i, j) = (AT(a, alo1, ahi1, alo2, i - 1, j) + AT(a, alo1, ahi1, alo2, i, j - 1)
                + AT(a, alo1, ahi1, alo2, i + 1, j) + AT(a, alo1, ahi1, alo2, i, j + 1)) / 4;
    *eps = e;
}
"#;

fn arr_args(t: &Tracker, v: usize) -> Vec<KArg> {
    let r = t.rep(v, ACC).expect("representative");
    vec![
        KArg::Ptr(r.ptr),
        KArg::I64(r.bounds[0].0),
        KArg::I64(r.bounds[0].1),
        KArg::I64(r.bounds[1].0),
    ]
}

fn host_jacobi(l: usize, iters: usize) -> (Vec<f32>, Vec<f32>) {
    let ix = |i: usize, j: usize| (i - 1) + l * (j - 1);
    let mut a = vec![0f32; l * l];
    let mut b = vec![0f32; l * l];
    for j in 1..=l {
        for i in 1..=l {
            b[ix(i, j)] = if i == 1 || j == 1 || i == l || j == l {
                0.0
            } else {
                1.0 + i as f32 + j as f32
            };
        }
    }
    let mut epss = vec![];
    for _ in 0..iters {
        let mut e = 0f32;
        for j in 2..l {
            for i in 2..l {
                e = e.max((b[ix(i, j)] - a[ix(i, j)]).abs());
                a[ix(i, j)] = b[ix(i, j)];
            }
        }
        for j in 2..l {
            for i in 2..l {
                b[ix(i, j)] =
                    (a[ix(i - 1, j)] + a[ix(i, j - 1)] + a[ix(i + 1, j)] + a[ix(i, j + 1)]) / 4.0;
            }
        }
        epss.push(e);
    }
    (b, epss)
}

#[test]
fn jacobi_moves_only_eps_each_iteration_and_b_once() {
    let l: i64 = 16;
    let iters = 20;
    let n = (l * l) as usize;
    let mut a = vec![-7f32; n];
    let mut b = vec![-7f32; n];
    let mut eps = -7f32;
    let whole = [(1, l), (1, l)];
    let interior = Pcs::from_rect(&[(2, l - 1), (2, l - 1)]);
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let (va, vb, ve) = unsafe {
        (
            t.register("a", a.as_mut_ptr() as *mut u8, &whole, 4),
            t.register("b", b.as_mut_ptr() as *mut u8, &whole, 4),
            t.register("eps", &mut eps as *mut f32 as *mut u8, &[], 4),
        )
    };
    let p: ProgId = t.device(ACC).load_program(JACOBI).unwrap();
    let all = Pcs::from_rect(&whole);

    // region: OUT(A, B)
    let r0 = [
        RegionUse {
            var: va,
            access: Access::Out,
            part: all.clone(),
        },
        RegionUse {
            var: vb,
            access: Access::Out,
            part: all.clone(),
        },
    ];
    t.region_enter(ACC, &r0).unwrap();
    let mut args = arr_args(&t, va);
    args.extend(arr_args(&t, vb));
    args.push(KArg::I64(l));
    t.device(ACC)
        .launch(p, "init", [4, 4, 1], [4, 4, 1], &args)
        .unwrap();
    t.region_exit(ACC, &r0);
    assert_eq!(t.total_bytes(), (0, 0), "OUT-only region copies nothing");

    let (b_ref, eps_ref) = host_jacobi(l as usize, iters);
    for it in 0..iters {
        // region: IN(A) INOUT(B(2:L-1,2:L-1)) OUT(A(2:L-1,2:L-1), EPS)
        let r = [
            RegionUse {
                var: va,
                access: Access::In,
                part: all.clone(),
            },
            RegionUse {
                var: vb,
                access: Access::InOut,
                part: interior.clone(),
            },
            RegionUse {
                var: va,
                access: Access::Out,
                part: interior.clone(),
            },
            RegionUse {
                var: ve,
                access: Access::Out,
                part: Pcs::scalar(),
            },
        ];
        t.region_enter(ACC, &r).unwrap();
        let mut args = arr_args(&t, va);
        args.extend(arr_args(&t, vb));
        args.push(KArg::Ptr(t.rep(ve, ACC).unwrap().ptr));
        args.push(KArg::I64(l));
        t.device(ACC)
            .launch(p, "step", [1, 1, 1], [1, 1, 1], &args)
            .unwrap();
        t.region_exit(ACC, &r);
        // GET_ACTUAL(EPS)
        assert_eq!(t.get_actual(ve, &Pcs::scalar()).unwrap(), 4);
        assert_eq!(eps, eps_ref[it], "EPS of iteration {}", it + 1);
        // the host has not seen A or B since the start: its copies are stale
        assert!(b.iter().all(|&x| x == -7.0));
    }
    // GET_ACTUAL(B)
    assert_eq!(t.get_actual(vb, &all).unwrap(), 4 * n as u64);
    assert_eq!(b, b_ref);
    let s = t.stats(ACC).clone();
    assert_eq!(s.h2d_bytes, 0, "no copy to the device at all");
    assert_eq!(
        s.d2h_bytes,
        4 * iters as u64 + 4 * n as u64,
        "EPS every iteration, B once"
    );
    assert_eq!(s.d2h_copies, iters as u64 + 1);
    // every IN request on the accelerator was satisfied without a copy
    assert_eq!(s.requests, 2 * iters as u64);
    assert_eq!(s.requests_no_copy, 2 * iters as u64);
    // a second GET_ACTUAL moves nothing
    assert_eq!(t.get_actual(vb, &all).unwrap(), 0);
    assert_eq!(t.stats(HOST).requests_no_copy, 1);
    drop(t);
    assert_eq!(a.len(), n);
}

const BORDER: &str = r#"
extern "C" __global__ void fill(int *a, long long lo1, long long hi1, long long lo2, long long l) {
    long long i = threadIdx.x + 1, j = threadIdx.y + 1;
    a[(i - lo1) + (hi1 - lo1 + 1) * (j - lo2)] = 100 * (int)i + (int)j;
}
extern "C" __global__ void add_border(int *a, long long lo1, long long hi1, long long lo2, long long l) {
    long long i = threadIdx.x + 1, j = threadIdx.y + 1;
    if (i < 2 || j < 2 || i > l - 1 || j > l - 1) return;
    long long n1 = hi1 - lo1 + 1;
    a[(i - lo1) + n1 * (j - lo2)] += a[(1 - lo1) + n1 * (j - lo2)];
}
"#;

#[test]
fn host_border_write_moves_only_border_in_and_interior_out() {
    let l = 10i64;
    let whole = [(1, l), (1, l)];
    let mut a = vec![0i32; 100];
    let all = Pcs::from_rect(&whole);
    let interior = Pcs::from_rect(&[(2, l - 1), (2, l - 1)]);
    let border = all.minus(&interior);
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let va = unsafe { t.register("a", a.as_mut_ptr() as *mut u8, &whole, 4) };
    let p = t.device(ACC).load_program(BORDER).unwrap();
    let r1 = [RegionUse {
        var: va,
        access: Access::Out,
        part: all.clone(),
    }];
    t.region_enter(ACC, &r1).unwrap();
    let mut args = arr_args(&t, va);
    args.push(KArg::I64(l));
    t.device(ACC)
        .launch(p, "fill", [1, 1, 1], [10, 10, 1], &args)
        .unwrap();
    t.region_exit(ACC, &r1);
    // host writes the border, then ACTUAL(border)
    for (k, x) in a.iter_mut().enumerate() {
        let (i, j) = (k as i64 % l + 1, k as i64 / l + 1);
        if border.contains(&[i, j]) {
            *x = -1;
        }
    }
    t.declare_actual(va, &border);
    assert_eq!(t.actual_on(va, ACC), &interior);
    // region IN(A) INOUT(A interior): only the border goes to the device
    let r2 = [
        RegionUse {
            var: va,
            access: Access::In,
            part: all.clone(),
        },
        RegionUse {
            var: va,
            access: Access::InOut,
            part: interior.clone(),
        },
    ];
    t.region_enter(ACC, &r2).unwrap();
    assert_eq!(t.stats(ACC).h2d_bytes, 36 * 4);
    t.device(ACC)
        .launch(p, "add_border", [1, 1, 1], [10, 10, 1], &args)
        .unwrap();
    t.region_exit(ACC, &r2);
    // host reads the interior: GET_ACTUAL(interior) fetches exactly it
    assert_eq!(t.get_actual(va, &interior).unwrap(), 64 * 4);
    assert_eq!(t.stats(ACC).d2h_bytes, 64 * 4);
    for (k, x) in a.iter().enumerate() {
        let (i, j) = (k as i64 % l + 1, k as i64 / l + 1);
        let want = if border.contains(&[i, j]) {
            -1
        } else {
            (100 * i + j - 1) as i32
        };
        assert_eq!(*x, want, "a({i},{j})");
    }
    assert_eq!(t.actual_on(va, HOST), &all);
}

#[test]
fn representatives_grow_and_keep_actual_data() {
    let mut x: Vec<f64> = (0..20).map(|k| k as f64).collect();
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let v = unsafe { t.register("x", x.as_mut_ptr() as *mut u8, &[(1, 20)], 8) };
    t.actualize(v, ACC, &Pcs::from_rect(&[(5, 8)])).unwrap();
    assert_eq!(t.rep(v, ACC).unwrap().bounds, vec![(5, 8)]);
    t.actualize(v, ACC, &Pcs::from_rect(&[(15, 16)])).unwrap();
    assert_eq!(t.rep(v, ACC).unwrap().bounds, vec![(5, 16)]);
    assert_eq!(t.stats(ACC).extend_bytes, 4 * 8);
    assert_eq!(t.stats(ACC).h2d_bytes, 6 * 8);
    // the device copy is now newer for 5:8; host copy changes are not seen there
    t.mark_written(v, ACC, &Pcs::from_rect(&[(5, 8)]));
    for y in x.iter_mut() {
        *y = -1.0;
    }
    t.declare_actual(v, &Pcs::from_rect(&[(1, 4)]));
    t.get_actual(v, &Pcs::from_rect(&[(1, 20)])).unwrap();
    assert_eq!(&x[3..9], &[-1.0, 4.0, 5.0, 6.0, 7.0, -1.0]);
    // LOCAL: forgotten on the device, fetched again next time
    assert_eq!(
        t.actual_on(v, ACC),
        &Pcs::from_rects(1, &[vec![(5, 8)], vec![(15, 16)]])
    );
    t.forget(v, ACC, &Pcs::from_rect(&[(15, 16)]));
    assert_eq!(t.actual_on(v, ACC), &Pcs::from_rect(&[(5, 8)]));
    let before = t.stats(ACC).h2d_bytes;
    t.actualize(v, ACC, &Pcs::from_rect(&[(14, 16)])).unwrap();
    assert_eq!(t.stats(ACC).h2d_bytes - before, 3 * 8);
}

const STENCIL: &str = r#"
extern "C" __global__ void smooth(double *y, long long ylo, double *x, long long xlo, long long lo, long long hi) {
    long long i = lo + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > hi) return;
    y[i - ylo] = 0.25 * x[i - 1 - xlo] + 0.5 * x[i - xlo] + 0.25 * x[i + 1 - xlo];
}
"#;

#[test]
fn a_loop_split_between_host_and_emulator_exchanges_only_the_boundaries() {
    // y(i) = (x(i-1) + 2 x(i) + x(i+1)) / 4 for i = 2..n-1, then x = y; 10 steps; the
    // iterations are split host:accelerator = 1:3, shadow elements move through actualization.
    let n = 1000i64;
    let steps = 10;
    let parts = sapfor_rt::device::split_iterations(2, n - 1, &[1.0, 3.0]);
    assert_eq!(parts, vec![(2, 251), (252, 999)]);
    let init: Vec<f64> = (1..=n).map(|i| ((i * 37) % 101) as f64).collect();
    let mut x = init.clone();
    let mut y = init.clone();
    let b = [(1, n)];
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let vx = unsafe { t.register("x", x.as_mut_ptr() as *mut u8, &b, 8) };
    let vy = unsafe { t.register("y", y.as_mut_ptr() as *mut u8, &b, 8) };
    let p = t.device(ACC).load_program(STENCIL).unwrap();
    let (vs, vd) = (vx, vy);
    let mut cur = (vs, vd);
    for _ in 0..steps {
        let (src, dst) = cur;
        for (dev, &(lo, hi)) in [(HOST, &parts[0]), (ACC, &parts[1])] {
            let uses = [
                RegionUse {
                    var: src,
                    access: Access::In,
                    part: Pcs::from_rect(&[(lo - 1, hi + 1)]),
                },
                RegionUse {
                    var: dst,
                    access: Access::Out,
                    part: Pcs::from_rect(&[(lo, hi)]),
                },
            ];
            t.region_enter(dev, &uses).unwrap();
            if dev == HOST {
                // the host version of the loop
                let (s, d) = if src == vx {
                    (&x, &mut y)
                } else {
                    (&y, &mut x)
                };
                let s = s.clone();
                for i in lo..=hi {
                    let k = (i - 1) as usize;
                    d[k] = 0.25 * s[k - 1] + 0.5 * s[k] + 0.25 * s[k + 1];
                }
            } else {
                let (rd, rs) = (
                    t.rep(dst, ACC).unwrap().clone(),
                    t.rep(src, ACC).unwrap().clone(),
                );
                let grid = sapfor_rt::device::grid_for(&[hi - lo + 1], [128, 1, 1]);
                t.device(ACC)
                    .launch(
                        p,
                        "smooth",
                        grid,
                        [128, 1, 1],
                        &[
                            KArg::Ptr(rd.ptr),
                            KArg::I64(rd.bounds[0].0),
                            KArg::Ptr(rs.ptr),
                            KArg::I64(rs.bounds[0].0),
                            KArg::I64(lo),
                            KArg::I64(hi),
                        ],
                    )
                    .unwrap();
            }
            t.region_exit(dev, &uses);
        }
        // the fixed boundary elements 1 and n are copied by the host (ACTUAL)
        let (s, d) = if src == vx {
            (&x, &mut y)
        } else {
            (&y, &mut x)
        };
        d[0] = s[0];
        d[(n - 1) as usize] = s[(n - 1) as usize];
        t.declare_actual(dst, &Pcs::from_rects(1, &[vec![(1, 1)], vec![(n, n)]]));
        cur = (dst, src);
    }
    let res = cur.0;
    t.get_actual(res, &Pcs::from_rect(&b)).unwrap();
    let got = if res == vx { x.clone() } else { y.clone() };
    // reference: the whole loop on the host
    let mut rx = init.clone();
    for _ in 0..steps {
        let mut ry = rx.clone();
        for i in 2..n {
            let k = (i - 1) as usize;
            ry[k] = 0.25 * rx[k - 1] + 0.5 * rx[k] + 0.25 * rx[k + 1];
        }
        rx = ry;
    }
    assert_eq!(got, rx);
    let s = t.stats(ACC);
    // first step: the accelerator's part of x (251..1000) goes over once; afterwards, per step,
    // one shadow element each way (x(251) to the device, x(252) to the host), plus the
    // boundary element n that the host rewrites (ACTUAL) and the device reads next step;
    // at the end the device's part of the result comes back.
    eprintln!(
        "split: h2d {} B in {} copies, d2h {} B in {} copies",
        s.h2d_bytes, s.h2d_copies, s.d2h_bytes, s.d2h_copies
    );
    assert_eq!(s.h2d_bytes, 8 * (750 + (steps as u64 - 1) * 2));
    assert_eq!(s.d2h_bytes, 8 * ((steps as u64 - 1) + 748));
}

#[test]
fn deferred_reduction_results_move_only_when_the_host_reads_them() {
    use sapfor_rt::actual::PendingReduction;
    use sapfor_rt::compare::ElemTy;
    use sapfor_rt::device::reduce::RedOp;
    let mut s = Box::new(1.5f64);
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let v = unsafe { t.register("s", &mut *s as *mut f64 as *mut u8, &[], 8) };
    let one = [(1i64, 1i64)];
    let put = |t: &mut Tracker, x: f64| {
        let b = t.device(ACC).alloc(8).unwrap();
        unsafe {
            t.device(ACC)
                .to_device(b, &one, &x as *const f64 as *const u8, &one, 8, &one)
                .unwrap()
        };
        b
    };
    // a result nobody reads is dropped when the host assigns the variable
    let b = put(&mut t, 10.0);
    t.defer_reduction(
        v,
        PendingReduction {
            dev: ACC,
            op: RedOp::Sum,
            ty: ElemTy::Double,
            buf: b,
        },
    )
    .unwrap();
    assert!(t.actual_on(v, HOST).is_empty());
    *s = 0.25;
    t.declare_actual(v, &Pcs::scalar());
    assert_eq!(t.stats(ACC).d2h_bytes, 0);
    // GET_ACTUAL fetches the 8 bytes and combines with the value before the loop
    let b = put(&mut t, 2.0);
    t.defer_reduction(
        v,
        PendingReduction {
            dev: ACC,
            op: RedOp::Sum,
            ty: ElemTy::Double,
            buf: b,
        },
    )
    .unwrap();
    assert_eq!(t.get_actual(v, &Pcs::scalar()).unwrap(), 8);
    assert_eq!(*s, 2.25);
    assert_eq!(t.get_actual(v, &Pcs::scalar()).unwrap(), 0);
    // MAX into a float, then read on the device: fetched, combined, copied back over
    let mut f = Box::new(3.0f32);
    let vf = unsafe { t.register("f", &mut *f as *mut f32 as *mut u8, &[], 4) };
    let b = t.device(ACC).alloc(4).unwrap();
    unsafe {
        t.device(ACC)
            .to_device(b, &one, &7.0f32 as *const f32 as *const u8, &one, 4, &one)
            .unwrap()
    };
    t.defer_reduction(
        vf,
        PendingReduction {
            dev: ACC,
            op: RedOp::Max,
            ty: ElemTy::Float,
            buf: b,
        },
    )
    .unwrap();
    t.actualize(vf, ACC, &Pcs::scalar()).unwrap();
    assert_eq!(*f, 7.0);
    assert_eq!(t.stats(ACC).h2d_bytes, 4);
    drop(t);
}

/// Host code writing element by element (a callee's dummy argument, one ACTUAL per
/// statement, as in NPB BT's `binvcrhs`) must not cut the accelerator's copy into one box per
/// element: past a few boxes the copy drops what the host also holds. What only the
/// accelerator holds stays there, and every value is right afterwards.
#[test]
fn element_by_element_host_writes_keep_the_copies_small_and_right() {
    let l = 10i64;
    let whole = [(1, l), (1, l)];
    let all = Pcs::from_rect(&whole);
    let interior = Pcs::from_rect(&[(2, l - 1), (2, l - 1)]);
    let checker = |i: i64, j: i64| (i + j) % 2 == 0;
    for fetched_first in [true, false] {
        let mut a = vec![0i32; 100];
        let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
        let va = unsafe { t.register("a", a.as_mut_ptr() as *mut u8, &whole, 4) };
        let p = t.device(ACC).load_program(BORDER).unwrap();
        let out = [RegionUse { var: va, access: Access::Out, part: all.clone() }];
        t.region_enter(ACC, &out).unwrap();
        let mut args = arr_args(&t, va);
        args.push(KArg::I64(l));
        t.device(ACC).launch(p, "fill", [1, 1, 1], [10, 10, 1], &args).unwrap();
        t.region_exit(ACC, &out);
        if fetched_first {
            t.get_actual(va, &all).unwrap();
        }
        // the host writes a checkerboard, one element and one ACTUAL at a time
        for j in 1..=l {
            for i in 1..=l {
                if checker(i, j) {
                    a[((i - 1) + l * (j - 1)) as usize] = -(i as i32) - 10 * j as i32;
                    t.declare_actual(va, &Pcs::from_rect(&[(i, i), (j, j)]));
                }
            }
        }
        let boxes = t.actual_on(va, ACC).boxes().len();
        if fetched_first {
            // the host holds everything: the accelerator's copy is dropped, not 50 holes
            assert!(boxes <= 16, "{boxes} boxes on the accelerator");
        } else {
            // only the accelerator holds the other half: it keeps exactly that
            let want: Vec<_> = (1..=l)
                .flat_map(|j| (1..=l).map(move |i| (i, j)))
                .filter(|&(i, j)| !checker(i, j))
                .map(|(i, j)| vec![(i, i), (j, j)])
                .collect();
            assert_eq!(t.actual_on(va, ACC), &Pcs::from_rects(2, &want));
        }
        let r2 = [
            RegionUse { var: va, access: Access::In, part: all.clone() },
            RegionUse { var: va, access: Access::InOut, part: interior.clone() },
        ];
        t.region_enter(ACC, &r2).unwrap();
        t.device(ACC).launch(p, "add_border", [1, 1, 1], [10, 10, 1], &args).unwrap();
        t.region_exit(ACC, &r2);
        t.get_actual(va, &all).unwrap();
        for j in 1..=l {
            for i in 1..=l {
                let v = |i: i64, j: i64| if checker(i, j) { -(i as i32) - 10 * j as i32 } else { (100 * i + j) as i32 };
                let want = if interior.contains(&[i, j]) { v(i, j) + v(1, j) } else { v(i, j) };
                assert_eq!(a[((i - 1) + l * (j - 1)) as usize], want, "a({i},{j}), fetched first: {fetched_first}");
            }
        }
    }
}
