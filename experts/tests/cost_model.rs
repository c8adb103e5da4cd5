//! The DVM expert on the Jacobi sample (SPEC section 5): the variants, the loop mapping, and
//! the ranking claims of the cost model.

use experts::dvm;
use experts::machine::MachineModel;
use experts::scheme::{Format, RefSub, Scheme};
use std::path::Path;

fn jacobi() -> analyzer::report::Analysis {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/jacobi/jac.f");
    analyzer::report::analyze(&[p], &Default::default())
}

fn by_name<'a>(r: &'a dvm::DvmResult, name: &str) -> &'a Scheme {
    r.schemes
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no variant {name}: {:?}",
                r.schemes.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        })
}

#[test]
fn jacobi_variants_and_mapping() {
    let a = jacobi();
    let r = dvm::run(
        &a,
        &MachineModel {
            processes: 100,
            ..Default::default()
        },
    );
    let mut names: Vec<&str> = r.schemes.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        vec!["(*,BLOCK)", "(BLOCK,*)", "(BLOCK,BLOCK)", "replicated"]
    );
    let bb = by_name(&r, "(BLOCK,BLOCK)");
    assert_eq!(bb.distributions.len(), 1);
    assert_eq!(bb.distributions[0].array, "a");
    assert_eq!(
        bb.distributions[0].formats,
        vec![Format::Block, Format::Block]
    );
    assert_eq!(bb.alignments.len(), 1);
    assert_eq!(
        (
            bb.alignments[0].array.as_str(),
            bb.alignments[0].target.as_str()
        ),
        ("b", "a")
    );
    assert!(bb.shadows.is_empty(), "width 1 is the default");
    let lines: Vec<u32> = bb.loops.iter().map(|l| l.line).collect();
    assert_eq!(lines, vec![5, 18, 24]);
    let l18 = &bb.loops[1];
    assert_eq!(l18.vars, vec!["j", "i"]);
    assert_eq!(l18.reductions.len(), 1);
    assert_eq!(
        (
            l18.reductions[0].op.as_str(),
            l18.reductions[0].var.as_str()
        ),
        ("max", "eps")
    );
    let l24 = &bb.loops[2];
    let on = l24.on.as_ref().unwrap();
    assert_eq!(on.array, "b", "the stencil loop runs where B(I,J) lives");
    assert_eq!(
        on.subs,
        vec![
            RefSub::Var {
                var: "i".into(),
                offset: 0
            },
            RefSub::Var {
                var: "j".into(),
                offset: 0
            }
        ]
    );
    assert_eq!(l24.shadow_renew.len(), 1);
    assert_eq!(l24.shadow_renew[0].array, "a");
    assert_eq!(l24.shadow_renew[0].widths, vec![(1, 1), (1, 1)]);
    assert!(
        !l24.shadow_renew[0].corner,
        "the 5-point stencil needs no corners"
    );
    assert!(bb.remote.is_empty());
}

#[test]
fn jacobi_on_100_processes_prefers_block_block() {
    let a = jacobi();
    let r = dvm::run(
        &a,
        &MachineModel {
            processes: 100,
            ..Default::default()
        },
    );
    let chosen = &r.schemes[r.chosen];
    assert_eq!(chosen.name, "(BLOCK,BLOCK)");
    assert_eq!(chosen.estimate.grid, vec![10, 10]);
    let t = |n: &str| by_name(&r, n).estimate.total;
    assert!(t("(BLOCK,BLOCK)") < t("(BLOCK,*)"));
    assert!(t("(BLOCK,BLOCK)") < t("(*,BLOCK)"));
    assert!(t("(BLOCK,*)") < t("replicated"));
    // The difference is communication: the computation is split the same way.
    let (bb, b1) = (
        &by_name(&r, "(BLOCK,BLOCK)").estimate,
        &by_name(&r, "(BLOCK,*)").estimate,
    );
    assert!(bb.communication < b1.communication);
    assert!((bb.computation - b1.computation).abs() / b1.computation < 0.05);
}

#[test]
fn jacobi_on_one_process_prefers_nothing_distributed() {
    let a = jacobi();
    let r = dvm::run(
        &a,
        &MachineModel {
            processes: 1,
            ..Default::default()
        },
    );
    assert_eq!(r.schemes[r.chosen].name, "replicated");
    for s in &r.schemes {
        assert_eq!(
            s.estimate.communication, 0.0,
            "{} on one process sends nothing",
            s.name
        );
    }
}

#[test]
fn shadow_message_arithmetic_matches_the_model() {
    // SPEC figures: Tstart 7 us, Tbyte 0.004 us, 4-byte elements, L = 2000, 100 processes.
    let a = jacobi();
    let m = MachineModel {
        processes: 100,
        tstart_us: 7.0,
        tbyte_us: 0.004,
        ..Default::default()
    };
    let r = dvm::run(&a, &m);
    let comm_per_exec = |name: &str| by_name(&r, name).estimate.communication / 20.0; // loop 24 runs ITMAX=20 times
                                                                                      // (BLOCK,*) on 100x1: 2 messages of 2000 elements per process: 2 * (7 + 8000*0.004) = 78 us;
                                                                                      // plus the reduction of loop 18: 7 steps * (7 + 8*0.004) us.
    let red = 7.0 * (7.0 + 8.0 * 0.004) * 1e-6;
    assert!(
        (comm_per_exec("(BLOCK,*)") - (78e-6 + red)).abs() < 1e-9,
        "{}",
        comm_per_exec("(BLOCK,*)")
    );
    // (BLOCK,BLOCK) on 10x10: 4 messages of 200 elements: 4 * (7 + 800*0.004) = 40.8 us.
    assert!(
        (comm_per_exec("(BLOCK,BLOCK)") - (40.8e-6 + red)).abs() < 1e-9,
        "{}",
        comm_per_exec("(BLOCK,BLOCK)")
    );
}

#[test]
fn grid_shapes_are_all_factorizations() {
    let g = dvm::grids(12, 2);
    assert_eq!(g.len(), 6);
    assert!(g.contains(&vec![3, 4]) && g.contains(&vec![12, 1]));
    assert_eq!(dvm::grids(8, 3).len(), 10);
    assert_eq!(dvm::grids(7, 1), vec![vec![7]]);
}

#[test]
fn starting_the_processes_counts_against_every_distributed_scheme() {
    let a = jacobi();
    let free = dvm::run(&a, &MachineModel::default());
    assert_ne!(free.schemes[free.chosen].name, "replicated");
    let slow = dvm::run(
        &a,
        &MachineModel {
            startup_s: 10.0,
            ..Default::default()
        },
    );
    assert_eq!(slow.schemes[slow.chosen].name, "replicated");
    for (f, s) in free.schemes.iter().zip(&slow.schemes) {
        let d = s.estimate.total - f.estimate.total;
        let want = if f.name == "replicated" { 0.0 } else { 10.0 };
        assert!((d - want).abs() < 1e-9, "{}: {d}", f.name);
    }
}

#[test]
fn element_reads_in_a_print_loop_are_costed_per_read() {
    // a distributed array printed element by element: every read goes through the read
    // cache (docs/runtime.md), 250,000 of them
    let dir = std::env::temp_dir().join(format!("sapfor-cost-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("pr.f");
    std::fs::write(
        &f,
        "      PROGRAM PR\n      PARAMETER (N = 500)\n      DOUBLE PRECISION A(N,N)\n\
         \x20     DO 10 J = 1, N\n      DO 10 I = 1, N\n         A(I,J) = I + J\n   10 CONTINUE\n\
         \x20     DO 20 J = 1, N\n      DO 20 I = 1, N\n         WRITE (*, *) A(I,J)\n   20 CONTINUE\n\
         \x20     END\n",
    )
    .unwrap();
    let a = analyzer::report::analyze(&[f], &Default::default());
    let _ = std::fs::remove_dir_all(&dir);
    let m = MachineModel::default();
    let r = dvm::run(&a, &m);
    let dist: Vec<&Scheme> = r.schemes.iter().filter(|s| s.name != "replicated").collect();
    assert!(!dist.is_empty());
    for s in dist {
        let ra = s.remote.iter().find(|x| x.line == 10).unwrap_or_else(|| panic!("{}: {:?}", s.name, s.remote));
        assert_eq!(ra.times, 250_000, "{}", s.name);
        assert!(s.estimate.communication >= 250_000.0 * m.cached_read_us * 1e-6, "{}: {:?}", s.name, s.estimate);
    }
    // the reads cost more than distributing the first loop saves
    assert_eq!(r.schemes[r.chosen].name, "replicated");
}

/// Arrays passed whole to subroutines (analyzer/test_data/inherit_dummies.f): the dummies
/// every call binds to A and B are INHERIT in their subroutines and the subroutines' loops
/// are mapped on them; C, passed as an element to a procedure whose dummy is not bound,
/// stays replicated with the reason.
#[test]
fn dummies_bound_to_one_array_inherit_its_distribution() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../analyzer/test_data/inherit_dummies.f");
    let a = analyzer::report::analyze(&[p], &Default::default());
    let b = |u: &str, d: &str| a.program.bindings.get(&(a.program.unit_by_name(u).unwrap(), d.to_string())).cloned();
    let root = |n: &str| Some(analyzer::interproc::ArrayRoot::Local { unit: a.program.unit_by_name("inhdum").unwrap(), name: n.into() });
    assert_eq!(b("init", "x"), root("a"));
    assert_eq!(b("init", "y"), root("b"));
    assert_eq!(b("sweep", "u"), root("a"));
    assert_eq!(b("total", "x"), root("a"), "assumed-size X(M, *) binds");
    assert_eq!(b("zero", "w"), root("c"));
    assert_eq!(b("twice", "w"), root("c"));
    assert_eq!(b("scale2", "w"), None, "called with ZERO's W and with C(3)");
    let r = dvm::run(&a, &MachineModel { processes: 4, tstart_us: 0.0, tbyte_us: 0.0, ..Default::default() });
    let s = by_name(&r, "(BLOCK,*)");
    assert_eq!(s.distributions.len(), 1);
    assert_eq!((s.distributions[0].at.unit.as_str(), s.distributions[0].array.as_str()), ("inhdum", "a"));
    let mut inh: Vec<(String, String)> = s.inherits.iter().map(|i| (i.at.unit.clone(), i.array.clone())).collect();
    inh.sort();
    let want: Vec<(String, String)> =
        [("init", "x"), ("init", "y"), ("sweep", "u"), ("sweep", "v"), ("total", "x")].iter().map(|(u, d)| (u.to_string(), d.to_string())).collect();
    assert_eq!(inh, want);
    let on: Vec<(String, u32, String)> = s.loops.iter().map(|l| (l.at.unit.clone(), l.line, l.on.as_ref().map(|o| o.array.clone()).unwrap_or_default())).collect();
    for (u, arr) in [("init", "x"), ("sweep", "v"), ("sweep", "u"), ("total", "x")] {
        assert!(on.iter().any(|(lu, _, la)| lu == u && la == arr), "no loop of {u} on {arr}: {on:?}");
    }
    // the note names each call that keeps C replicated, with file:line and what it passes
    assert!(
        r.notes.iter().any(|n| n.starts_with("array C stays replicated: it is passed to a procedure in INHDUM: ") && n.ends_with("inherit_dummies.f:19 passes the element C(3) to SCALE2")),
        "{:?}",
        r.notes
    );
}

/// Arrays given to one dummy at different calls (analyzer/test_data/twin_dummies.f: FILL and
/// SMOOTH get A, B and C, C only through them; BLEND gets B and C in both places) are twins:
/// the dummies are bound to A, every distributed variant distributes B and C exactly as A
/// (aligned with it, identity), and the dummies inherit (both of BLEND's). Arrays of other shapes at the calls bind nothing, and one twin that must
/// stay replicated keeps them all replicated, each with the reason.
#[test]
fn twins_given_to_one_dummy_are_distributed_alike() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../analyzer/test_data/twin_dummies.f");
    let text = std::fs::read_to_string(&p).unwrap();
    let a = analyzer::report::analyze(&[p], &Default::default());
    let main = a.program.unit_by_name("twins").unwrap();
    let root = |n: &str| analyzer::interproc::ArrayRoot::Local { unit: main, name: n.into() };
    let b = |u: &str, d: &str| a.program.bindings.get(&(a.program.unit_by_name(u).unwrap(), d.to_string())).cloned();
    assert_eq!(b("fill", "x"), Some(root("a")));
    assert_eq!(b("smooth", "x"), Some(root("a")));
    assert_eq!(b("smooth", "y"), Some(root("w")));
    assert_eq!((b("blend", "x"), b("blend", "y")), (Some(root("a")), Some(root("a"))), "B and C in both places");
    assert_eq!(a.program.twins, vec![[root("a"), root("b"), root("c")].into_iter().collect()]);
    let r = dvm::run(&a, &MachineModel { processes: 4, tstart_us: 0.0, tbyte_us: 0.0, ..Default::default() });
    for name in ["(BLOCK,*)", "(*,BLOCK)", "(BLOCK,BLOCK)"] {
        let s = by_name(&r, name);
        assert_eq!(s.distributions.iter().map(|d| d.array.as_str()).collect::<Vec<_>>(), ["a"], "{name}");
        for twin in ["b", "c", "w"] {
            let al = s.alignments.iter().find(|x| x.array == twin).unwrap_or_else(|| panic!("{name}: {twin} not aligned: {:?}", s.alignments));
            assert_eq!((al.target.as_str(), format!("{:?}", al.subs)), ("a", format!("{:?}", s.alignments.iter().find(|x| x.array == "w").unwrap().subs)), "{name}");
        }
        let mut inh: Vec<(String, String)> = s.inherits.iter().map(|i| (i.at.unit.clone(), i.array.clone())).collect();
        inh.sort();
        assert_eq!(inh, [("blend", "x"), ("blend", "y"), ("fill", "x"), ("smooth", "x"), ("smooth", "y")].map(|(u, d)| (u.to_string(), d.to_string())), "{name}");
    }
    assert!(!r.notes.iter().any(|n| n.contains("stays replicated")), "{:?}", r.notes);
    assert!(r.notes.iter().any(|n| n == "arrays A, B, C are aligned alike with the template A: the dummy X of FILL gets them all"), "{:?}", r.notes);
    // C one column wider, FILL's X assumed-size: the calls give FILL arrays of two shapes
    let analyze = |tag: &str, t: &str| {
        let dir = std::env::temp_dir().join(format!("sapfor-twins-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.f");
        std::fs::write(&f, t).unwrap();
        let a = analyzer::report::analyze(&[f], &Default::default());
        let _ = std::fs::remove_dir_all(&dir);
        a
    };
    let wide = text.replace("C(N, N), W", "C(N, N+1), W").replace("      DOUBLE PRECISION X(M, M), F", "      DOUBLE PRECISION X(M, *), F");
    assert_ne!(wide, text);
    let a = analyze("wide", &wide);
    let fill = a.program.unit_by_name("fill").unwrap();
    assert_eq!(a.program.bindings.get(&(fill, "x".to_string())), None);
    let r = dvm::run(&a, &MachineModel::default());
    assert!(r.notes.iter().any(|n| n.starts_with("array A stays replicated: it is passed to a procedure in TWINS: ") && n.contains("passes the whole array A to FILL, whose dummy the calls do not all bind to one array")), "{:?}", r.notes);
    // BLEND's REAL*8 dummies take the DOUBLE PRECISION actuals (one storage); REAL ones do not
    assert!(text.contains("      REAL*8 X(M, M), Y(M, M)"));
    let single = text.replace("      REAL*8 X(M, M), Y(M, M)", "      REAL X(M, M), Y(M, M)");
    let a = analyze("single", &single);
    let blend = a.program.unit_by_name("blend").unwrap();
    assert_eq!(a.program.bindings.get(&(blend, "x".to_string())), None);
    // B also given whole to a vector of all its elements: the vector is B laid out in order
    // (reshaped), bound like any dummy
    let peek = |k: &str| {
        text.replace("      CALL FILL(C, N, 3.0D0)\n", &format!("      CALL FILL(C, N, 3.0D0)\n      CALL PEEK(B, {k})\n"))
            + "\n      SUBROUTINE PEEK(V, K)\n      INTEGER K\n      DOUBLE PRECISION V(K)\n      V(K) = V(1)\n      END\n"
    };
    let a = analyze("peek-all", &peek("N * N"));
    let pk = a.program.unit_by_name("peek").unwrap();
    assert_eq!(a.program.bindings.get(&(pk, "v".to_string())), Some(&root("a")));
    assert!(a.program.reshaped.contains(&(pk, "v".to_string())));
    // a vector handed on whole to another vector dummy is the array laid out in order there too
    let a = analyze(
        "peek-on",
        &(peek("N * N").replace("      V(K) = V(1)\n      END\n", "      V(K) = V(1)\n      CALL POKE(V, K)\n      END\n")
            + "\n      SUBROUTINE POKE(W, K)\n      INTEGER K\n      DOUBLE PRECISION W(K)\n      W(1) = W(K)\n      END\n"),
    );
    let po = a.program.unit_by_name("poke").unwrap();
    assert_eq!(a.program.bindings.get(&(po, "w".to_string())), Some(&root("a")));
    assert!(a.program.reshaped.contains(&(po, "w".to_string())));
    // ... and to a vector of fewer elements: not bound, B stays replicated, and with it A and C
    let a = analyze("peek", &peek("N * N - 1"));
    let pk = a.program.unit_by_name("peek").unwrap();
    assert_eq!(a.program.bindings.get(&(pk, "v".to_string())), None);
    let r = dvm::run(&a, &MachineModel::default());
    for s in &r.schemes {
        for d in s.distributions.iter().map(|d| &d.array).chain(s.alignments.iter().map(|d| &d.array)) {
            assert!(!["a", "b", "c"].contains(&d.as_str()), "{}: {d} distributed", s.name);
        }
    }
    assert!(r.notes.iter().any(|n| n.starts_with("array B stays replicated: it is passed to a procedure in TWINS: ") && n.contains("passes the whole array B to PEEK")), "{:?}", r.notes);
    for t in ["A", "C"] {
        assert!(r.notes.iter().any(|n| *n == format!("array {t} stays replicated: the dummy X of FILL also gets B, which stays replicated (the arrays one dummy gets are distributed alike)")), "{:?}", r.notes);
    }
}

/// Twins declared in different units (experts/tests/data/twin_elsewhere.f: A of the main
/// program and B of OTHER, both given to FILL): neither can be aligned with the other where
/// it is not declared, so every variant of either template is rejected with the reason, and
/// no scheme distributes one of them alone (before, the variants of A distributed A and left
/// B replicated: the runtime refused them, "B is passed to the INHERIT dummy argument X of
/// FILL, but it is not a distributed array").
#[test]
fn twins_declared_in_different_units_reject_the_template() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/twin_elsewhere.f");
    let a = analyzer::report::analyze(&[p], &Default::default());
    assert_eq!(a.program.twins.len(), 1);
    let r = dvm::run(&a, &MachineModel::default());
    for s in &r.schemes {
        for d in s.distributions.iter().map(|d| &d.array).chain(s.alignments.iter().map(|d| &d.array)) {
            assert!(!["a", "b"].contains(&d.as_str()), "{}: {d} distributed", s.name);
        }
        assert!(s.inherits.is_empty(), "{}: {:?}", s.name, s.inherits);
    }
    assert!(
        r.rejected.iter().any(|x| x.reasons.iter().any(|y| y.text == "B is a twin of the template A (one dummy gets both) and cannot be aligned with it")),
        "{:?}",
        r.rejected
    );
}

/// A loop that reads one plane of U (`JAC(K)` of the plane-sweeps fixture, called for each K)
/// renews only that plane's shadow edge, as the runtime does (`sapfor_limit`): the model's
/// message carries the face of one plane, 5 x 16 elements, not the local block's whole face
/// (5 x 16 x 16).
#[test]
fn a_loop_over_one_plane_exchanges_that_plane() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shell-gui/tests/data/plane_sweeps.f");
    let a = analyzer::report::analyze(&[p.clone()], &Default::default());
    let m = MachineModel {
        processes: 2,
        ..Default::default()
    };
    let r = dvm::run(&a, &m);
    let s = by_name(&r, "(*,BLOCK,*,*)");
    // JAC's loop (line 45) runs 3 sweeps x 15 planes = 45 times. Nothing in the sweeps writes
    // U, so the runtime holds it around them (docs/runtime.md): one renewal of the whole face
    // (5 x 16 x 16 doubles, width 1 below, on the process with a neighbour there) for the 45
    let comm_of = |s: &Scheme, line: u32| -> (f64, String) {
        let note = s.estimate.notes.iter().find(|n| n.starts_with(&format!("loop at line {line}:"))).expect("JAC's loop").clone();
        (note.split("communication ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap(), note)
    };
    let (comm, note) = comm_of(s, 45);
    let plane = m.message_s(5.0 * 16.0 * 8.0);
    let whole = m.message_s(5.0 * 16.0 * 16.0 * 8.0);
    assert!((comm - whole).abs() < 1e-6 && (45.0 * plane - whole) > 1e-5, "{note}: one plane {plane}, whole face {whole}");
    assert!(note.contains("the edges of U renewed whole once per 45 executions"), "{note}");
    // U changed after each sweep: held by the loop over K only, one renewal a sweep
    let text = std::fs::read_to_string(&p).unwrap().replace(
        "            call lower(v, d, k, n, nk)\n         end do\n",
        "            call lower(v, d, k, n, nk)\n         end do\n         u(1, 1, 1, 1) = u(1, 1, 1, 1) + 1.0d0\n",
    );
    assert!(text.contains("u(1, 1, 1, 1) = u(1, 1, 1, 1) + 1.0d0"));
    let dir = std::env::temp_dir().join(format!("sapfor-holds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let q = dir.join("plane_sweeps.f");
    std::fs::write(&q, text).unwrap();
    let a = analyzer::report::analyze(&[q], &Default::default());
    let r = dvm::run(&a, &m);
    // (JAC's loop one line lower)
    let (comm, note) = comm_of(by_name(&r, "(*,BLOCK,*,*)"), 46);
    assert!((comm - 3.0 * whole).abs() < 1e-6, "{note}: three whole faces {}", 3.0 * whole);
    assert!(note.contains("once per 15 executions"), "{note}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A loop divided on the starting values RS writes a replicated field through a dummy of
/// adjustable size, U(D1,D2,D3), that both calls bind to X(64,64,32) (NPB FT's
/// COMPUTE_INITIAL_CONDITIONS): the merge after each of its two executions carries X's 1 MB,
/// not the 1,000 elements once taken for a size the declaration does not give (FT class A:
/// estimated 0.002 s, measured 3.2 s at `--np 2`, and the variant was chosen).
#[test]
fn a_merge_through_a_bound_dummy_carries_the_whole_array() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/merge_dummy.f");
    let a = analyzer::report::analyze(&[p], &Default::default());
    let m = MachineModel { processes: 4, ..Default::default() };
    let r = dvm::run(&a, &m);
    let s = by_name(&r, "(BLOCK)");
    assert_eq!(s.distributions.iter().map(|d| d.array.as_str()).collect::<Vec<_>>(), vec!["rs"]);
    let bytes = 64.0 * 64.0 * 32.0 * 8.0;
    let least = 2.0 * bytes * m.tbyte_us * 1e-6;
    assert!(s.estimate.communication >= least, "{} < {least}: {:?}", s.estimate.communication, s.estimate.notes);
    assert_eq!(r.schemes[r.chosen].name, "replicated");
}

/// Strided shadow faces (the 3-D heat sample, 120^3, 20 steps, on 2 processes): a face
/// across the first dimension is runs of one element, each paying `strided_ns`; across the
/// second, runs of a 120-element column; across the last, one contiguous piece, no packing.
/// Each of the two processes packs the side it sends and unpacks the side it gets.
#[test]
fn strided_faces_cost_by_the_length_of_their_runs() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/heat3d/heat3d.f90");
    let a = analyzer::report::analyze(&[p], &Default::default());
    let m = MachineModel {
        processes: 2,
        ..Default::default()
    };
    let r = dvm::run(&a, &m);
    let comp = |name: &str| by_name(&r, name).estimate.computation;
    let (first, second, last) = (comp("(BLOCK,*,*)"), comp("(*,BLOCK,*)"), comp("(*,*,BLOCK)"));
    // the stencil's renewal, 20 executions, widths 1 and 1 of a 120 x 120 face
    let face = 120.0 * 120.0;
    let per_run = |run: f64| 20.0 * 2.0 * face * (m.memref_ns + m.strided_ns / run) * 1e-9;
    assert!((first - last - per_run(1.0)).abs() < 1e-9, "{first} - {last} against {}", per_run(1.0));
    assert!((second - last - per_run(120.0)).abs() < 1e-9, "{second} - {last} against {}", per_run(120.0));
    assert!(first > second && second > last);
    // no cost for lone elements: the two strided splits cost the same again
    let flat = MachineModel { strided_ns: 0.0, ..m.clone() };
    let r = dvm::run(&a, &flat);
    let c = |name: &str| by_name(&r, name).estimate.computation;
    assert!((c("(BLOCK,*,*)") - c("(*,BLOCK,*)")).abs() < 1e-12);
}
