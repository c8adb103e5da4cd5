//! The accesses a call contributes to its caller: each element of a 5x5 dummy given an element
//! LHS(1,1,K,I) is that element of the block, and accesses that map to the same caller access
//! are kept once (test_data/block_solver_calls.f, in the shape of NPB BT's x_solve calling the
//! 5x5 block routines of solve_subs.f).

use analyzer::access::AccessCtx;
use analyzer::ast::StmtKind;
use analyzer::report::analyze;
use std::path::PathBuf;

#[test]
fn a_call_contributes_each_caller_access_once() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/block_solver_calls.f");
    let a = analyze(&[path], &Default::default());
    let p = &a.program;
    let u = p.units.iter().position(|u| u.name == "blksol").unwrap();
    let unit = &p.units[u];
    let call = unit
        .stmts
        .iter()
        .find(|s| matches!(&s.kind, StmtKind::Call { .. }))
        .expect("the CALL of MATMUL");
    let ctx = AccessCtx {
        unit,
        sema: &p.semas[u],
        summaries: &p.summaries,
    };
    let (mut out, mut calls) = (vec![], vec![]);
    ctx.stmt_accesses(call, &mut out, &mut calls);
    let lhs: Vec<_> = out.iter().filter(|x| x.name == "lhs").collect();
    // each element of a 5x5 dummy is one element of LHS here (LHS(1,1,K,I) starts a 5x5
    // block of LHS(5,5,3,N)): the callee writes the 25 of C = LHS(:,:,3,I) and reads those 25
    // and the 50 of A = LHS(:,:,1,I-1) and B = LHS(:,:,2,I), each kept once
    let writes: Vec<_> = lhs.iter().filter(|x| x.write).collect();
    let reads: Vec<_> = lhs.iter().filter(|x| !x.write).collect();
    assert_eq!(writes.len(), 25, "{lhs:#?}");
    assert_eq!(reads.len(), 75, "{lhs:#?}");
    assert!(lhs.iter().all(|x| x.via_call.as_deref() == Some("matmul")));
    let plane = |x: &analyzer::access::Access| match x.subs.as_deref() {
        Some([_, _, k, i]) => Some((k.expr().cloned(), i.expr().cloned())),
        _ => None,
    };
    let int = |k: i64| Some(analyzer::ast::Expr::Int(k));
    for w in &writes {
        let (k, _) = plane(w).expect("an element of LHS");
        assert_eq!(k, int(3), "{w:?}");
    }
    for k in 1..=3 {
        assert_eq!(reads.iter().filter(|r| plane(r).is_some_and(|(p, _)| p == int(k))).count(), 25, "plane {k}: {reads:#?}");
    }
    let via: Vec<_> = out.iter().filter(|x| x.via_call.is_some()).collect();
    for (i, x) in via.iter().enumerate() {
        assert!(!via[i + 1..].contains(x), "{x:?} twice");
    }
}

/// A call defines a work array only in the callee's elements: a DOUBLE COMPLEX actual given
/// to a DOUBLE PRECISION dummy that the callee fills as Y(1:2*NK) has NK of its elements
/// written, so it is not private to the loop around the call; the DOUBLE PRECISION one is.
#[test]
fn a_work_array_of_another_element_size_is_not_defined_by_the_call() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/multi");
    let a = analyze(&[dir.join("work_main.f"), dir.join("work_fill.f")], &Default::default());
    assert!(!a.program.has_errors());
    let u = a.program.units.iter().position(|u| u.name == "wmain").expect("the main program");
    let at = |line: u32| a.loops[u].iter().find(|l| l.line == line).unwrap_or_else(|| panic!("no loop at {line}"));
    let real = at(16);
    assert_eq!(real.verdict, analyzer::loops::Verdict::Parallel, "{real:#?}");
    assert!(real.private.contains(&"x".to_string()), "{real:#?}");
    let complex = at(22);
    assert_eq!(complex.verdict, analyzer::loops::Verdict::Sequential, "{complex:#?}");
    assert!(!complex.private.contains(&"z".to_string()), "{complex:#?}");
    assert!(complex.blockers.iter().any(|b| b.message.contains("FILL") && b.message.contains('Z')), "{complex:#?}");
}

/// NPB FT's initial conditions (multi/cwork_main.f, cwork_fill.f): FILL writes all of its
/// DOUBLE PRECISION Y(1:2*N1), so a DOUBLE COMPLEX TMP(N1) given to it is defined whole by the
/// call and private to the loop over planes. Given N1 reals only, FILL writes W(1:N1/2): the
/// read of W(N1) is the previous iteration's value and that loop stays sequential (taking the
/// callee's section in the caller's elements without dividing by two makes it parallel).
#[test]
fn a_complex_row_defined_through_a_real_dummy_is_private_where_the_call_covers_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/multi");
    let a = analyze(&[dir.join("cwork_main.f"), dir.join("cwork_fill.f")], &Default::default());
    assert!(!a.program.has_errors());
    let u = a.program.units.iter().position(|u| u.name == "cwork").expect("the main program");
    let at = |line: u32| a.loops[u].iter().find(|l| l.line == line).unwrap_or_else(|| panic!("no loop at {line}"));
    let planes = at(20);
    assert_eq!(planes.verdict, analyzer::loops::Verdict::Parallel, "{planes:#?}");
    assert_eq!(planes.private, vec!["tmp".to_string(), "x0".to_string()], "{planes:#?}");
    let rows = at(23);
    assert_eq!(rows.verdict, analyzer::loops::Verdict::Sequential, "{rows:#?}");
    assert!(rows.blockers.iter().all(|b| b.message.contains("X0")), "{rows:#?}");
    let half = at(36);
    assert_eq!(half.verdict, analyzer::loops::Verdict::Sequential, "{half:#?}");
    assert!(!half.private.contains(&"w".to_string()), "{half:#?}");
}

/// The accesses a callee makes through a dummy of another element size are not mapped element
/// by element: `SETRE(Z, J)` writes the J-th DOUBLE PRECISION of a DOUBLE COMPLEX Z, which is
/// half of `Z((J+1)/2)`, not `Z(J)`; the loop reading `Z(J)` after it must stay sequential
/// (mapped as `Z(J)`, it looked parallel).
#[test]
fn accesses_through_a_dummy_of_another_element_size_name_the_whole_array() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/multi");
    let a = analyze(&[dir.join("pun_main.f"), dir.join("pun_set.f")], &Default::default());
    assert!(!a.program.has_errors());
    let u = a.program.units.iter().position(|u| u.name == "pun").expect("the main program");
    let l = a.loops[u].iter().find(|l| l.line == 16).expect("the loop calling SETRE");
    assert_eq!(l.verdict, analyzer::loops::Verdict::Sequential, "{l:#?}");
}

/// Where a callee's sure writes do not cover a read (EDGE0 sets only W0(0); the read
/// W0(I+1) at I = N2 is another iteration's value), the loop's `dep` blocker names the line of
/// the first read not shown covered (test_data/common_work_through_callee.f, SOLVE0).
#[test]
fn an_uncovered_read_of_a_work_array_is_named_by_its_line() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/common_work_through_callee.f");
    let a = analyze(&[f], &Default::default());
    let u = a.program.units.iter().position(|u| u.name == "solve0").expect("SOLVE0");
    let k = a.loops[u].iter().find(|l| l.line == 77).expect("the K loop of SOLVE0");
    assert_eq!(k.verdict, analyzer::loops::Verdict::Sequential, "{k:#?}");
    let dep = k.blockers.iter().find(|b| b.message.starts_with("W0 is accessed")).unwrap_or_else(|| panic!("{k:#?}"));
    assert!(dep.message.contains("the read at line 85 is not shown inside what the iteration wrote before it"), "{}", dep.message);
    assert!(dep.message.contains("`sapfor refine private` on this loop with W0"), "{}", dep.message);
}

/// A call whose effects conflict with many others names them by runs of lines (a main loop
/// calling hundreds of drivers listed every line before), and the list helper joins runs.
#[test]
fn conflicting_calls_are_named_by_runs_of_lines() {
    use std::collections::BTreeSet;
    let runs = |v: &[u32]| analyzer::loops::line_runs(&v.iter().copied().collect::<BTreeSet<u32>>());
    assert_eq!(runs(&[7]), "7");
    assert_eq!(runs(&[3, 4]), "3, 4");
    assert_eq!(runs(&[3, 4, 5, 9, 11, 12, 13, 14]), "3-5, 9, 11-14");
    let dir = std::env::temp_dir().join(format!("sapfor-runs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runs.f");
    let mut src = String::from("      program p\n      common /c/ a(10)\n      do it = 1, 3\n");
    for k in 1..=5 {
        src += &format!("      call s{k}\n");
    }
    src += "      end do\n      print *, a(1)\n      end\n";
    for k in 1..=5 {
        src += &format!("      subroutine s{k}\n      common /c/ a(10)\n      a(1) = a(1) + {k}\n      end\n");
    }
    std::fs::write(&path, src).unwrap();
    let a = analyze(&[path], &Default::default());
    let main = a.program.units.iter().position(|u| u.name == "p").unwrap();
    let lp = &a.loops[main][0];
    let msgs: Vec<&str> = lp.blockers.iter().map(|b| b.message.as_str()).collect();
    let first = msgs.iter().find(|m| m.starts_with("call to S1 at line 4 accesses A")).unwrap_or_else(|| panic!("{msgs:#?}"));
    assert!(first.ends_with("(with lines 4-8)"), "{first}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `ALLOCATE(A(N,N), STAT=IERR, ERRMSG=MSG)` sets IERR and MSG and reads N; `SOURCE=E` reads E;
/// `DEALLOCATE(A, STAT=IERR)` sets IERR. (`STAT` was taken for a variable: "`stat` is not
/// declared" under IMPLICIT NONE, and every PolyBench/Fortran program was refused.)
#[test]
fn allocate_keywords_set_and_read_what_they_name() {
    let dir = std::env::temp_dir().join(format!("sapfor-alloc-kw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.f90");
    std::fs::write(
        &path,
        "program p\n  implicit none\n  real, allocatable :: a(:,:), v(:)\n  real :: e(4)\n  integer :: ierr, n\n  character(len=40) :: msg\n  n = 3\n  e = 1.0\n  allocate(a(n, n+1), STAT=ierr, ERRMSG=msg)\n  allocate(v, source=e)\n  deallocate(a, stat=ierr)\n  print *, ierr, sum(v)\nend program\n",
    )
    .unwrap();
    let a = analyze(&[path], &Default::default());
    assert!(!a.program.has_errors(), "{:?}", a.program.diags);
    let p = &a.program;
    let unit = &p.units[0];
    let ctx = AccessCtx { unit, sema: &p.semas[0], summaries: &p.summaries };
    let of = |k: usize| {
        let st = unit.stmts.iter().filter(|s| matches!(s.kind, StmtKind::Allocate(_) | StmtKind::Deallocate(_))).nth(k).unwrap();
        let (mut out, mut calls) = (vec![], vec![]);
        ctx.stmt_accesses(st, &mut out, &mut calls);
        let mut v: Vec<(String, bool)> = out.iter().map(|x| (x.name.clone(), x.write)).collect();
        v.sort();
        v.dedup();
        v
    };
    let s = |n: &str, w: bool| (n.to_string(), w);
    assert_eq!(of(0), vec![s("a", true), s("ierr", true), s("msg", true), s("n", false)]);
    assert_eq!(of(1), vec![s("e", false), s("v", true)]);
    assert_eq!(of(2), vec![s("a", true), s("ierr", true)]);
    let _ = std::fs::remove_dir_all(&dir);
}
