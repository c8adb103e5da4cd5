//! The accesses a call contributes to its caller: a callee's many element accesses that map to
//! the same caller access are kept once (test_data/block_solver_calls.f, in the shape of NPB
//! BT's x_solve calling the 5x5 block routines of solve_subs.f).

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
    // every element of the 5x5 dummies is the whole of LHS here: one read, one write (the
    // callee reads 75 elements and writes 25)
    assert_eq!(lhs.iter().filter(|x| x.write).count(), 1, "{lhs:#?}");
    assert_eq!(lhs.iter().filter(|x| !x.write).count(), 1, "{lhs:#?}");
    assert!(lhs.iter().all(|x| x.subs.is_none() && x.via_call.as_deref() == Some("matmul")));
    let via: Vec<_> = out.iter().filter(|x| x.via_call.is_some()).collect();
    for (i, x) in via.iter().enumerate() {
        assert!(!via[i + 1..].contains(x), "{x:?} twice");
    }
}
