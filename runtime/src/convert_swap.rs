//! A PARALLEL loop moved innermost where it runs along the arrays' columns (docs/runtime.md
//! "Loops moved innermost").
//!
//! Fortran keeps a matrix by columns: in `A(J,K)` consecutive J are neighbours in memory,
//! consecutive K a whole column apart. A nest written with the row index outside,
//!
//! ```text
//! !DVM$ PARALLEL (J) ON A(J,*)
//!       DO J = I+1, N
//!          DO K = I+1, N+1
//!             A(J,K) = A(J,K) - A(J,I) * A(I,K) / A(I,I)
//! ```
//!
//! (the DVM system's Gaussian elimination), touches one element of each column in its
//! innermost loop: every access a cache line of its own, nothing for the vector unit. Its
//! directive says that the iterations of J depend on none of each other, so J may run
//! innermost: for one J the K iterations keep their order, and iterations of two different J
//! need no order at all. Each element is computed from the same values by the same
//! operations, so the results are the same to the last bit.
//!
//! A loop's score is the number of references whose first dimension it indexes less the
//! number of those whose other dimensions it indexes (but not the first). The loop of the
//! directive with the highest score moves innermost where that is higher than the innermost
//! loop's (a matrix product written `DO I`, `DO J`, `DO K`, `C(I,J) = C(I,J) + A(I,K) *
//! B(K,J)` runs `DO J`, `DO K`, `DO I`: for each element of C the products still add up in
//! the order of K), and: the nest is perfect (every loop but the innermost holds only the
//! next one), the loops it passes have bounds free of its variable and it has bounds free of
//! theirs, the innermost body has only assignments (and logical IFs and IF constructs that
//! assign array elements), no call of a program procedure, no storage two names share, no private array,
//! no reduction whose value the order could change (a sum of reals, MAXLOC: MAX, MIN, the
//! logical ones and integer sums may stay), and every scalar it assigns, reductions aside,
//! is assigned before it is read (an iteration carries nothing to the next through a
//! scalar). Not inside a REGION, an ACROSS nest, the
//! iteration-order mode or a loop that runs with the next one. Where the moved loop was the
//! outermost and the new outermost is not a loop of the directive, the threads of a process
//! share the moved loop's iterations (`sapfor_tpipe_part`) inside one OpenMP region instead
//! of `!$omp parallel do` on the outermost loop. `--explain` names each moved loop, and says
//! why a nest that one would run along more references stays as written. `SAPFOR_SWAP=0` at
//! conversion keeps every nest as written.

use super::{access_ctx, aliased, do_vars, names_in, order_free, red_op, Cx, Omp, ParLoop};
use analyzer::ast::{Expr, Node, Stmt, StmtKind};
use analyzer::directives::Clause;
use std::collections::{BTreeMap, BTreeSet};

/// Whether `SAPFOR_SWAP` leaves the transformation on (unset or anything but 0).
fn enabled() -> bool {
    std::env::var("SAPFOR_SWAP").map_or(true, |v| v.trim() != "0")
}

/// The decision for a nest: the position (in `all`) of the loop that moves innermost, how
/// many references index their first dimension by it and by the innermost loop, of how many.
struct Move {
    from: usize,
    unit: usize,
    inner: usize,
    total: usize,
}

/// The DO statements of the perfect nest that starts with the directive's loops `nest`
/// (those loops, then the single loops each innermost one holds) and the innermost body's
/// statements in their order, each with whether it is inside an IF construct; None where a
/// loop holds more than the next one.
pub(super) fn perfect<'a>(u: &'a analyzer::ast::Unit, nest: &[&'a Node]) -> Option<(Vec<&'a Stmt>, Vec<(&'a Stmt, bool)>)> {
    let mut loops: Vec<&Node> = nest.to_vec();
    let mut headers: Vec<&Stmt> = vec![];
    loop {
        let Node::Do { header, body, .. } = loops[headers.len()] else { return None };
        headers.push(u.stmt(*header));
        if headers.len() < loops.len() {
            continue;
        }
        let inner: Vec<&Node> = body.iter().filter(|n| matches!(n, Node::Do { .. })).collect();
        let others: Vec<&Node> = body.iter().filter(|n| !matches!(n, Node::Do { .. })).collect();
        match inner[..] {
            [] => {
                // (the innermost body: statements and IF constructs, whose statements the
                // caller checks)
                let mut stmts = vec![];
                for n in others {
                    let cond = matches!(n, Node::If { .. });
                    analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| stmts.push((st, cond)));
                }
                return Some((headers, stmts));
            }
            [d] if others.iter().all(|n| matches!(n, Node::Stmt(id) if matches!(u.stmt(*id).kind, StmtKind::Continue))) => loops.push(d),
            _ => return None,
        }
    }
}

/// Which loop of the perfect nest `all` (its first `tuple` loops the directive's) moves
/// innermost (see the module's comment); `body` the innermost statements. Err(None): none
/// would run along more references than the innermost; Err(Some(why)): one would, and why
/// it may not move (`--explain`).
fn choose(cx: &Cx, ui: usize, pl: &ParLoop, all: &[&Stmt], tuple: usize, body: &[(&Stmt, bool)], private: &BTreeSet<String>) -> Result<Move, Option<String>> {
    let p = cx.p;
    let sema = &p.semas[ui];
    let n = all.len();
    if n < 2 {
        return Err(None);
    }
    let vars = do_vars(all);
    let acx = access_ctx(p, ui);
    let (mut accs, mut calls) = (vec![], vec![]);
    let mut per_stmt = vec![];
    for &(s, _) in body {
        let (mut a, mut c) = (vec![], vec![]);
        acx.stmt_accesses(s, &mut a, &mut c);
        per_stmt.push(a.clone());
        accs.extend(a);
        calls.extend(c);
    }
    // how many array references index their first dimension by each loop's variable, and
    // how many index another dimension by it but not the first
    let mut unit: BTreeMap<&str, usize> = BTreeMap::new();
    let mut strided: BTreeMap<&str, usize> = BTreeMap::new();
    let mut total = 0;
    for a in accs.iter().filter(|a| sema.is_array(&a.name)) {
        let Some(first) = a.subs.as_ref().and_then(|subs| subs.first()).and_then(|s| s.expr()) else { return Err(None) };
        let subs = a.subs.as_ref().expect("subscripts");
        total += 1;
        let head = names_in(&[first]);
        let rest_exprs: Vec<&Expr> = subs[1..].iter().filter_map(|s| s.expr()).collect();
        let rest = names_in(&rest_exprs);
        for v in &vars {
            if head.contains(v) {
                *unit.entry(v).or_default() += 1;
            } else if rest.contains(v) {
                *strided.entry(v).or_default() += 1;
            }
        }
    }
    // (a loop's score: the references it would run along, less those it would stride across)
    let count = |m: &BTreeMap<&str, usize>, k: usize| m.get(vars[k].as_str()).copied().unwrap_or(0);
    let score = |k: usize| count(&unit, k) as i64 - count(&strided, k) as i64;
    let here = score(n - 1);
    let from = (0..tuple.min(n - 1)).filter(|&k| count(&unit, k) > 0 && score(k) > here).max_by_key(|&k| (score(k), k)).ok_or(None)?;
    let up = |v: &str| v.to_uppercase();
    let why = |m: String| {
        Err(Some(format!(
            "this nest runs along the rows of its arrays as written: its loop on {} would run along more of its references innermost than its loop on {}, but {m}",
            up(&vars[from]),
            up(&vars[n - 1])
        )))
    };
    if let Some(v) = private.iter().find(|v| sema.is_array(v)) {
        return why(format!("{} is a private array", up(v)));
    }
    // (a scalar is assigned outside IF constructs only: where a condition skips it, an
    // iteration would read the value another left)
    for &(s, cond) in body {
        match &s.kind {
            StmtKind::Assign { lhs: Expr::Ref(..), .. } | StmtKind::Continue => {}
            StmtKind::Assign { lhs, .. } if cond => return why(format!("{} is assigned inside an IF construct", lhs.base_name().map_or(String::new(), up))),
            StmtKind::Assign { .. } | StmtKind::IfThen(_) | StmtKind::ElseIf(_) | StmtKind::Else | StmtKind::EndIf => {}
            StmtKind::LogicalIf(_, inner) if matches!(&inner.kind, StmtKind::Assign { lhs: Expr::Ref(..), .. }) => {}
            _ => return why(format!("its body holds a statement other than assignments and IFs (line {})", s.span.line)),
        }
    }
    // reductions whose value the order cannot change (MAX, MIN, the logical ones, integer
    // sums and products) of scalars
    let mut reduced: BTreeSet<String> = BTreeSet::new();
    for c in &pl.clauses {
        match c {
            Clause::Reduction(reds) => {
                for r in reds {
                    if !order_free(sema, r) || red_op(r.op).1.is_none() || sema.is_array(&r.var.to_ascii_lowercase()) {
                        return why(format!("the reduction of {} would add up in another order (a sum or product of reals, MAXLOC/MINLOC or an array)", up(&r.var)));
                    }
                    reduced.insert(r.var.to_ascii_lowercase());
                }
            }
            Clause::GroupReduction(..) => return why("it adds to a reduction group".into()),
            _ => {}
        }
    }
    if let Some(c) = calls.first() {
        return why(format!("it calls {}", up(&c.name)));
    }
    if aliased(sema, &accs) {
        return why(super::SHARED_STORAGE.into());
    }
    // (statement by statement: a scalar assigned in the body, but a reduction's, is read
    // only after it)
    let assigned: BTreeSet<String> = accs.iter().filter(|x| x.write && !sema.is_array(&x.name) && !reduced.contains(&x.name.to_ascii_lowercase())).map(|x| x.name.to_ascii_lowercase()).collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    for a in &per_stmt {
        if let Some(x) = a.iter().find(|x| !x.write && assigned.contains(&x.name.to_ascii_lowercase()) && !done.contains(&x.name.to_ascii_lowercase())) {
            return why(format!("{} is read before the body assigns it (an iteration carries it to the next)", up(&x.name)));
        }
        done.extend(a.iter().filter(|x| x.write && !sema.is_array(&x.name)).map(|x| x.name.to_ascii_lowercase()));
    }
    // (a rectangle between the moved loop and those it passes)
    let bounds = |h: &Stmt| match &h.kind {
        StmtKind::Do { lo, hi, step, .. } => {
            let mut es = vec![lo, hi];
            es.extend(step.iter());
            names_in(&es)
        }
        _ => BTreeSet::new(),
    };
    let own = bounds(all[from]);
    for k in from + 1..n {
        if bounds(all[k]).contains(&vars[from]) {
            return why(format!("the bounds of the loop on {} read {}", up(&vars[k]), up(&vars[from])));
        }
        if own.contains(&vars[k]) {
            return why(format!("its bounds read {}", up(&vars[k])));
        }
    }
    Ok(Move { from, unit: count(&unit, from), inner: count(&unit, n - 1), total })
}

/// The DO statement text `t` of loop variable `var` cut before the variable: (`DO 5 `, `J =
/// 1, N`).
fn split_control<'t>(t: &'t str, var: &str) -> Option<(&'t str, &'t str)> {
    let (eq, _) = crate::text::do_parts(t)?;
    let (a, _) = *crate::text::idents(&t[..eq], var).last()?;
    Some((&t[..a], &t[a..]))
}

/// Move the loop of PARALLEL loop `pl` (its loops' DO statements `headers`, nodes `nest`)
/// that runs along the arrays' columns innermost where the module's comment allows; its
/// OpenMP directive (`omp`: the clauses and their line's index in `pre`) becomes a region
/// whose threads share the moved loop where it was the outermost. `fused`: the loop runs with
/// the next one.
pub(super) fn innermost(cx: &mut Cx, ui: usize, pl: &ParLoop, headers: &[&Stmt], nest: &[&Node], private: &BTreeSet<String>, omp: Option<&mut (Omp, usize)>, pre: &mut Vec<String>, post: &mut Vec<String>) {
    if !enabled() || cx.order {
        return;
    }
    let u = &cx.p.units[ui];
    let Some((all, body)) = perfect(u, nest) else { return };
    let m = match choose(cx, ui, pl, &all, headers.len(), &body, private) {
        Ok(m) => m,
        Err(None) => return,
        Err(Some(why)) => {
            let first = all[0];
            cx.note(first.span.file, first.span.line, why);
            return;
        }
    };
    let vars = do_vars(&all);
    // the texts as rewritten so far (bounds cut to the process's part), one line each
    let mut texts = vec![];
    for h in &all {
        match &cx.current_lines(h)[..] {
            [t] => texts.push(t.clone()),
            _ => return,
        }
    }
    let mut parts = vec![];
    for (t, v) in texts.iter().zip(&vars) {
        let Some((a, b)) = split_control(t, v) else { return };
        parts.push((a.to_string(), b.to_string()));
    }
    let n = all.len();
    let mut controls: Vec<String> = parts.iter().map(|(_, c)| c.clone()).collect();
    let moved = controls.remove(m.from);
    // (where the moved loop was the outermost and a loop of the directive becomes the
    // outermost, `!$omp parallel do` shares that one's iterations; else each thread runs
    // its part of the moved loop's)
    let part = m.from == 0 && headers.len() < 2;
    let moved = match (part, omp) {
        (true, Some((c, at))) => {
            let t = &texts[m.from];
            let Some((eq, bp)) = crate::text::do_parts(t) else { return };
            let step = bp.get(2).map_or("1".to_string(), |s| s.trim().to_string());
            c.scalars.extend(["sapfor_tp_f", "sapfor_tp_l"].map(String::from));
            pre[*at] = c.line("!$omp parallel");
            pre.insert(
                *at + 1,
                format!("call sapfor_tpipe_part(int({}, c_int64_t), int({}, c_int64_t), int({step}, c_int64_t), sapfor_tp_f, sapfor_tp_l)", bp[0].trim(), bp[1].trim()),
            );
            post.insert(0, "!$omp end parallel".to_string());
            let with_step = if bp.len() == 3 { format!(", {step}") } else { String::new() };
            format!("{}= sapfor_tp_f, sapfor_tp_l{with_step}", &t[parts[m.from].0.len()..eq])
        }
        _ => moved,
    };
    controls.push(moved);
    for (k, h) in all.iter().enumerate().skip(m.from) {
        cx.replace_stmt(h, vec![format!("{}{}", parts[k].0, controls[k])]);
    }
    let first = all[0];
    let passed: Vec<String> = vars[m.from + 1..n].iter().map(|v| v.to_uppercase()).collect();
    cx.note(
        first.span.file,
        first.span.line,
        format!(
            "this nest runs its loop on {} innermost, inside the loop{} on {}: {} of the {} array references in its body index their first (contiguous) dimension by {}, {} by {} (the directive's iterations are independent: the same values as written; SAPFOR_SWAP=0 at conversion keeps the nest as written)",
            vars[m.from].to_uppercase(),
            if passed.len() > 1 { "s" } else { "" },
            passed.join(", "),
            m.unit,
            m.total,
            vars[m.from].to_uppercase(),
            if m.inner == 0 { "none".to_string() } else { m.inner.to_string() },
            vars[n - 1].to_uppercase()
        ),
    );
}
