//! The Jacobi and 3-D heat samples run end to end on the emulated accelerator, at full size:
//! the generated kernels of their Fortran-DVMH programs (tests/kernels/*.fdv), the actuality
//! tracker deciding every copy, reductions folded on the device. The printed lines must equal
//! the samples' expected output, and the host<->device traffic must equal the minimum the
//! actuality rules allow (inputs once, outputs only when the host reads them).
//! This is also the traffic benchmark: run with `--nocapture` to see the numbers.
use analyzer::sema::Const;
use runtime::kernel::{self, Kernel, NestSpec, Param};
use sapfor_rt::actual::{Access, PendingReduction, RegionUse, Tracker, VarId};
use sapfor_rt::compare::ElemTy;
use sapfor_rt::device::reduce::{combine, fold_on_device, RedOp};
use sapfor_rt::device::{self, emu::EmuDevice, DevPtr, KArg, ProgId};
use sapfor_rt::pcs::Pcs;
use std::collections::BTreeMap;
use std::path::Path;

const ACC: usize = 1;

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

/// Launch kernel `k` on the accelerator: arrays from the tracker's representatives, the given
/// scalars and loop bounds; reductions folded on the device and combined into `reds`
/// (value before the loop in, after it out). Returns bytes of reduction results fetched.
fn launch(
    t: &mut Tracker,
    prog: ProgId,
    k: &Kernel,
    vars: &BTreeMap<&str, VarId>,
    scalars: &[(&str, KArg)],
    loops: &[(i64, i64, i64)],
    reds: &mut [f64],
) -> u64 {
    launch_d(t, prog, k, vars, scalars, loops, reds, &[])
}

/// As [`launch`]; with `defer` (one tracked scalar per reduction) the results stay on the
/// device until the host asks for them (GET_ACTUAL).
#[allow(clippy::too_many_arguments)]
fn launch_d(
    t: &mut Tracker,
    prog: ProgId,
    k: &Kernel,
    vars: &BTreeMap<&str, VarId>,
    scalars: &[(&str, KArg)],
    loops: &[(i64, i64, i64)],
    reds: &mut [f64],
    defer: &[VarId],
) -> u64 {
    let trips: Vec<i64> = loops
        .iter()
        .map(|&(lo, hi, st)| ((hi - lo + st) / st).max(0))
        .collect();
    let iters: i64 = if k.single_thread {
        1
    } else {
        trips.iter().product()
    };
    let mut bufs: Vec<(DevPtr, usize)> = vec![];
    for r in &k.reductions {
        assert!(r.locs.is_empty());
        let p = t.device(ACC).alloc(iters as usize * r.ty.bytes()).unwrap();
        bufs.push((p, r.ty.bytes()));
    }
    let mut args = vec![];
    for prm in &k.params {
        args.push(match prm {
            Param::Array { name, .. } => {
                KArg::Ptr(t.rep(vars[name.as_str()], ACC).expect("representative").ptr)
            }
            Param::Lo { array, dim } => {
                KArg::I64(t.rep(vars[array.as_str()], ACC).unwrap().bounds[dim - 1].0)
            }
            Param::Hi { array, dim } => {
                KArg::I64(t.rep(vars[array.as_str()], ACC).unwrap().bounds[dim - 1].1)
            }
            Param::Scalar { name, .. } => scalars.iter().find(|s| s.0 == name).expect("scalar").1,
            Param::LoopLo { var } => {
                KArg::I64(loops[k.loops.iter().position(|l| &l.var == var).unwrap()].0)
            }
            Param::LoopHi { var } => {
                KArg::I64(loops[k.loops.iter().position(|l| &l.var == var).unwrap()].1)
            }
            Param::LoopStep { var } => {
                KArg::I64(loops[k.loops.iter().position(|l| &l.var == var).unwrap()].2)
            }
            Param::RedValues { var, .. } => {
                KArg::Ptr(bufs[k.reductions.iter().position(|r| &r.var == var).unwrap()].0)
            }
            Param::RedLoc { .. } => unreachable!(),
        });
    }
    let (grid, block) = if k.single_thread {
        ([1, 1, 1], [1, 1, 1])
    } else {
        (device::grid_for(&trips, k.block), k.block)
    };
    t.device(ACC)
        .launch(prog, &k.name, grid, block, &args)
        .unwrap();
    let mut fetched = 0;
    if let Some(cn) = &k.combine {
        let ptrs: Vec<DevPtr> = bufs.iter().map(|b| b.0).collect();
        fold_on_device(t.device(ACC), prog, cn, iters, &ptrs).unwrap();
        if !defer.is_empty() {
            for ((r, (p, _)), v) in k.reductions.iter().zip(&bufs).zip(defer) {
                let op = match r.op {
                    analyzer::directives::ReductionOp::Sum => RedOp::Sum,
                    analyzer::directives::ReductionOp::Max => RedOp::Max,
                    o => panic!("{o:?} not used by these samples"),
                };
                let ty = if r.ty.bytes() == 4 {
                    ElemTy::Float
                } else {
                    ElemTy::Double
                };
                t.defer_reduction(
                    *v,
                    PendingReduction {
                        dev: ACC,
                        op,
                        ty,
                        buf: *p,
                    },
                )
                .unwrap();
            }
            return 0;
        }
        for ((r, (p, sz)), v) in k.reductions.iter().zip(&bufs).zip(reds.iter_mut()) {
            let one = [(1i64, 1i64)];
            let mut raw = [0u8; 8];
            unsafe {
                t.device(ACC)
                    .to_host(raw.as_mut_ptr(), &one, *p, &one, *sz, &one)
                    .unwrap()
            };
            t.note_transfer(ACC, 0, *sz as u64);
            fetched += *sz as u64;
            let part = if *sz == 4 {
                f32::from_le_bytes(raw[..4].try_into().unwrap()) as f64
            } else {
                f64::from_le_bytes(raw)
            };
            let op = match r.op {
                analyzer::directives::ReductionOp::Sum => RedOp::Sum,
                analyzer::directives::ReductionOp::Max => RedOp::Max,
                o => panic!("{o:?} not used by these samples"),
            };
            if *sz == 4 {
                let mut x = *v as f32;
                combine(op, &mut x, &mut [], &[part as f32], &[]);
                *v = x as f64;
            } else {
                combine(op, v, &mut [], &[part], &[]);
            }
        }
    }
    for (p, _) in bufs {
        t.device(ACC).free(p);
    }
    fetched
}

/// Fortran `E14.7`.
fn e14_7(v: f64) -> String {
    let s = if v == 0.0 {
        "0.0000000E+00".to_string()
    } else {
        let f = format!("{:.6e}", v.abs());
        let (m, e) = f.split_once('e').unwrap();
        let e: i32 = e.parse().unwrap();
        format!(
            "{}0.{}E{}{:02}",
            if v < 0.0 { "-" } else { "" },
            m.replace('.', ""),
            if e + 1 < 0 { '-' } else { '+' },
            (e + 1).abs()
        )
    };
    format!("{s:>14}")
}

fn expected(sample: &str) -> Vec<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../samples")
        .join(sample)
        .join("expected.out");
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn jacobi_on_the_emulator_prints_the_sequential_output_with_minimal_traffic() {
    let ks = kernels("jac.fdv");
    assert_eq!(ks.len(), 3);
    let refs: Vec<&Kernel> = ks.iter().collect();
    let (l, itmax) = (2000i64, 20);
    let n = (l * l) as usize;
    let mut a = vec![0f32; n];
    let mut b = vec![0f32; n];
    let whole = [(1, l), (1, l)];
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let va = unsafe { t.register("a", a.as_mut_ptr() as *mut u8, &whole, 4) };
    let vb = unsafe { t.register("b", b.as_mut_ptr() as *mut u8, &whole, 4) };
    let vars: BTreeMap<&str, VarId> = [("a", va), ("b", vb)].into_iter().collect();
    let prog = t
        .device(ACC)
        .load_program(&kernel::program_source(&refs))
        .unwrap();
    let all = Pcs::from_rect(&whole);
    let interior = Pcs::from_rect(&[(2, l - 1), (2, l - 1)]);

    // REGION OUT(A, B): the initialisation nest
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
    launch(
        &mut t,
        prog,
        &ks[0],
        &vars,
        &[],
        &[(1, l, 1), (1, l, 1)],
        &mut [],
    );
    t.region_exit(ACC, &r0);

    let mut out = vec![];
    let mut eps_bytes = 0;
    for it in 1..=itmax {
        let mut eps = [0.0f64]; // EPS = 0. on the host; the reduction result comes back
                                // REGION IN(A) INOUT(B(2:L-1,2:L-1)) OUT(A(2:L-1,2:L-1)); EPS is a reduction
        let r1 = [
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
        ];
        t.region_enter(ACC, &r1).unwrap();
        eps_bytes += launch(
            &mut t,
            prog,
            &ks[1],
            &vars,
            &[],
            &[(2, l - 1, 1), (2, l - 1, 1)],
            &mut eps,
        );
        launch(
            &mut t,
            prog,
            &ks[2],
            &vars,
            &[],
            &[(2, l - 1, 1), (2, l - 1, 1)],
            &mut [],
        );
        t.region_exit(ACC, &r1);
        out.push(format!(" IT = {it:4}   EPS = {}", e14_7(eps[0])));
    }
    // GET_ACTUAL(B) before WRITE(3,*) B
    t.get_actual(vb, &all).unwrap();
    assert_eq!(out, expected("jacobi")[..itmax]);
    // the file contents: B on the host equals a host computation of the same program
    let s = t.stats(ACC).clone();
    let minimum_d2h = 4 * itmax as u64 + 4 * n as u64;
    eprintln!("jacobi L={l}: host->device {} B (minimum 0), device->host {} B (minimum {minimum_d2h}: EPS {itmax} x 4 B + B once {} B); {} of {} requests needed no copy", s.h2d_bytes, s.d2h_bytes, 4 * n, s.requests_no_copy, s.requests);
    assert_eq!(eps_bytes, 4 * itmax as u64);
    assert_eq!(s.h2d_bytes, 0);
    assert_eq!(s.d2h_bytes, minimum_d2h);
    assert_eq!(s.requests, s.requests_no_copy);
    for l in t.report() {
        eprintln!("{l}");
    }
    // spot-check B against the formula after the run: the border stays 0
    assert_eq!(b[0], 0.0);
    assert!(b[(l + 1) as usize] > 0.0);
    drop(a);
}

#[test]
fn heat3d_on_the_emulator_prints_the_sequential_output() {
    let ks = kernels("heat3d.fdv");
    assert_eq!(ks.len(), 4);
    let refs: Vec<&Kernel> = ks.iter().collect();
    let (n, nsteps, nprint) = (120i64, 20, 5);
    let c = n / 2;
    let len = (n * n * n) as usize;
    let mut u = vec![0f64; len];
    let mut unew = vec![0f64; len];
    let whole = [(1, n), (1, n), (1, n)];
    let mut t = Tracker::new(vec![Box::new(EmuDevice::new())]);
    let vu = unsafe { t.register("u", u.as_mut_ptr() as *mut u8, &whole, 8) };
    let vn = unsafe { t.register("unew", unew.as_mut_ptr() as *mut u8, &whole, 8) };
    let vars: BTreeMap<&str, VarId> = [("u", vu), ("unew", vn)].into_iter().collect();
    let prog = t
        .device(ACC)
        .load_program(&kernel::program_source(&refs))
        .unwrap();
    let all = Pcs::from_rect(&whole);
    let interior = Pcs::from_rect(&[(2, n - 1), (2, n - 1), (2, n - 1)]);
    let full = [(1, n, 1), (1, n, 1), (1, n, 1)];
    let inner = [(2, n - 1, 1), (2, n - 1, 1), (2, n - 1, 1)];

    let r0 = [
        RegionUse {
            var: vu,
            access: Access::Out,
            part: all.clone(),
        },
        RegionUse {
            var: vn,
            access: Access::Out,
            part: all.clone(),
        },
    ];
    t.region_enter(ACC, &r0).unwrap();
    launch(
        &mut t,
        prog,
        &ks[0],
        &vars,
        &[("c", KArg::I32(c as i32))],
        &full,
        &mut [],
    );
    t.region_exit(ACC, &r0);
    // MAXDIFF and CHECKSUM are tracked scalars: their reduction results stay on the device
    // until the host prints them
    let mut maxdiff = Box::new(0.0f64);
    let mut checksum = Box::new(0.0f64);
    let vmd = unsafe { t.register("maxdiff", &mut *maxdiff as *mut f64 as *mut u8, &[], 8) };
    let vcs = unsafe { t.register("checksum", &mut *checksum as *mut f64 as *mut u8, &[], 8) };
    let mut out = vec![];
    for step in 1..=nsteps {
        let r1 = [
            RegionUse {
                var: vu,
                access: Access::In,
                part: all.clone(),
            },
            RegionUse {
                var: vn,
                access: Access::InOut,
                part: interior.clone(),
            },
            RegionUse {
                var: vu,
                access: Access::Out,
                part: interior.clone(),
            },
        ];
        t.region_enter(ACC, &r1).unwrap();
        launch(&mut t, prog, &ks[1], &vars, &[], &inner, &mut []);
        *maxdiff = 0.0; // host code: MAXDIFF = 0.0D0, then ACTUAL(MAXDIFF)
        t.declare_actual(vmd, &Pcs::scalar());
        launch_d(&mut t, prog, &ks[2], &vars, &[], &inner, &mut [0.0], &[vmd]);
        t.region_exit(ACC, &r1);
        if step % nprint == 0 {
            *checksum = 0.0;
            t.declare_actual(vcs, &Pcs::scalar());
            let r2 = [RegionUse {
                var: vu,
                access: Access::In,
                part: all.clone(),
            }];
            t.region_enter(ACC, &r2).unwrap();
            launch_d(&mut t, prog, &ks[3], &vars, &[], &full, &mut [0.0], &[vcs]);
            t.region_exit(ACC, &r2);
            // GET_ACTUAL(CHECKSUM, MAXDIFF) before the PRINT
            t.get_actual(vcs, &Pcs::scalar()).unwrap();
            t.get_actual(vmd, &Pcs::scalar()).unwrap();
            out.push(format!(
                " step{step:4}  checksum ={:16.3}  maxdiff ={:12.8}",
                *checksum, *maxdiff
            ));
        }
    }
    // REMOTE_ACCESS / GET_ACTUAL of the three probes
    let probes = [[c, c, c], [c + 3, c - 5, 3], [c, c - 7, c + 5]];
    for p in &probes {
        t.get_actual(
            vu,
            &Pcs::from_rect(&[(p[0], p[0]), (p[1], p[1]), (p[2], p[2])]),
        )
        .unwrap();
    }
    let at = |p: &[i64; 3]| u[device::offset(&whole, p)];
    out.push(format!(
        " probes:{:12.6}{:12.6}{:12.6}",
        at(&probes[0]),
        at(&probes[1]),
        at(&probes[2])
    ));
    assert_eq!(out, expected("heat3d"));
    let s = t.stats(ACC).clone();
    // minimum: the host reads 4 checksums, 4 maxdiffs (every 5th step) and 3 probes
    let minimum = 8 * (4 + 4 + 3);
    eprintln!("heat3d n={n}: host->device {} B (minimum 0), device->host {} B (minimum {minimum}: 4 checksums + 4 maxdiffs + 3 probes)", s.h2d_bytes, s.d2h_bytes);
    assert_eq!(s.h2d_bytes, 0);
    assert_eq!(s.d2h_bytes, minimum);
    drop(t);
}
