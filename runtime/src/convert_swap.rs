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
use analyzer::ast::{BaseType, Expr, Node, Stmt, StmtKind};
use analyzer::directives::Clause;
use std::collections::BTreeSet;

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

/// How many of the array references among `accs` index their first (contiguous) dimension
/// by `v`, and how many index another dimension by it but not the first: a loop's score is
/// the first less the second. A reference without subscripts counts in neither.
fn along_across<'a>(sema: &analyzer::sema::UnitSema, accs: impl IntoIterator<Item = &'a analyzer::access::Access>, v: &str) -> (usize, usize) {
    let (mut along, mut across) = (0, 0);
    for a in accs.into_iter().filter(|a| sema.is_array(&a.name)) {
        let Some(subs) = &a.subs else { continue };
        let first: Vec<&Expr> = subs.first().and_then(|s| s.expr()).into_iter().collect();
        let rest: Vec<&Expr> = subs.iter().skip(1).filter_map(|s| s.expr()).collect();
        if names_in(&first).contains(v) {
            along += 1;
        } else if names_in(&rest).contains(v) {
            across += 1;
        }
    }
    (along, across)
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
    // how many index another dimension by it but not the first (every reference with an
    // index as its first subscript)
    let arrays: Vec<&analyzer::access::Access> = accs.iter().filter(|a| sema.is_array(&a.name)).collect();
    if arrays.iter().any(|a| a.subs.as_ref().and_then(|subs| subs.first()).and_then(|s| s.expr()).is_none()) {
        return Err(None);
    }
    let total = arrays.len();
    let counts: Vec<(usize, usize)> = vars.iter().map(|v| along_across(sema, arrays.iter().copied(), v)).collect();
    // (a loop's score: the references it would run along, less those it would stride across)
    let count = |k: usize| counts[k].0;
    let score = |k: usize| counts[k].0 as i64 - counts[k].1 as i64;
    let here = score(n - 1);
    let from = (0..tuple.min(n - 1)).filter(|&k| count(k) > 0 && score(k) > here).max_by_key(|&k| (score(k), k)).ok_or(None)?;
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
    Ok(Move { from, unit: count(from), inner: count(n - 1), total })
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
    let Some((all, body)) = perfect(u, nest) else {
        if headers.len() == 1 {
            expand(cx, ui, pl, nest[0], private, omp, pre, post);
        }
        return;
    };
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

/// The statement that ends DO loop `n`: its END DO, or the labelled statement that ends it
/// and the loops inside it that share it.
fn terminal<'a>(u: &'a analyzer::ast::Unit, n: &Node) -> Option<&'a Stmt> {
    let Node::Do { end, body, .. } = n else { return None };
    match (end, body.last()) {
        (Some(e), _) => Some(u.stmt(*e)),
        (None, Some(Node::Stmt(id))) => Some(u.stmt(*id)),
        (None, Some(d @ Node::Do { .. })) => terminal(u, d),
        _ => None,
    }
}

/// Text `t` with every reference to the scalars `vars` made element `var` of their arrays
/// (`sapfor_xs_<name>(var)`).
fn expanded_text(t: &str, vars: &[String], var: &str) -> String {
    let mut out = t.to_string();
    let mut at: Vec<(usize, usize, &str)> = vec![];
    for v in vars {
        at.extend(crate::text::idents(t, v).into_iter().map(|(a, b)| (a, b, v.as_str())));
    }
    at.sort();
    for (a, b, v) in at.into_iter().rev() {
        out.replace_range(a..b, &format!("sapfor_xs_{v}({var})"));
    }
    out
}

/// The directive's one loop `outer` (on I) whose body is assignments, one perfect nest of
/// loops over assignments and assignments again (`S = 0`, `DO J`, `S = S + A(I,J) * X(J)`,
/// `END DO`, `Y(I) = S`), its nest running along the rows: the loop on I runs three times,
/// over the statements before the nest, innermost in the nest, and over the statements after
/// it, the scalars whose values pass from one part to another (or from one iteration of the
/// nest to the next) kept for each I in an array (`sapfor_xs_<name>`, of this process's
/// iterations, in a BLOCK construct around the loop). For each I the statements run in their
/// order, as before; two I need no order (the directive): the same values. The threads of a
/// process each take a consecutive part of I for all three loops (`sapfor_tpipe_part`).
#[allow(clippy::too_many_arguments)]
fn expand(cx: &mut Cx, ui: usize, pl: &ParLoop, outer: &Node, private: &BTreeSet<String>, omp: Option<&mut (Omp, usize)>, pre: &mut Vec<String>, post: &mut Vec<String>) {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let Node::Do { header, body, end } = outer else { return };
    let hi = u.stmt(*header);
    let StmtKind::Do { var, label: ilabel, .. } = &hi.kind else { return };
    let ivar = var.to_ascii_lowercase();
    if hi.label.is_some() || pl.clauses.iter().any(|c| matches!(c, Clause::Reduction(_) | Clause::GroupReduction(..))) || private.iter().any(|v| sema.is_array(v)) {
        return;
    }
    // the body: statements, one nest, statements (and the terminal CONTINUE of a labelled DO)
    let mut items: Vec<&Node> = body.iter().collect();
    if end.is_none() {
        let Some(Node::Stmt(id)) = items.last() else { return };
        let t = u.stmt(*id);
        if ilabel.is_none() || t.label != *ilabel || !matches!(t.kind, StmtKind::Continue) {
            return;
        }
        items.pop();
    }
    let Some(iterm) = terminal(u, outer) else { return };
    let dos: Vec<usize> = items.iter().enumerate().filter(|(_, n)| matches!(n, Node::Do { .. })).map(|(i, _)| i).collect();
    let [k] = dos[..] else { return };
    let stmt_of = |n: &&Node| match n {
        Node::Stmt(id) => Some(u.stmt(*id)),
        _ => None,
    };
    let (Some(before), Some(after)) = (items[..k].iter().map(stmt_of).collect::<Option<Vec<&Stmt>>>(), items[k + 1..].iter().map(stmt_of).collect::<Option<Vec<&Stmt>>>()) else { return };
    let inner = items[k];
    let Some((jh, jbody)) = perfect(u, &[inner]) else { return };
    let Some(jterm) = terminal(u, inner) else { return };
    // (the innermost loop's terminal: the last statement of its body or its END DO)
    let Some(innermost) = std::iter::successors(Some(inner), |n| match n {
        Node::Do { body, .. } => body.iter().find(|b| matches!(b, Node::Do { .. })),
        _ => None,
    })
    .last() else { return };
    let Some(kterm) = terminal(u, innermost) else { return };
    // (the nest ends at an END DO or CONTINUE, or its innermost loop at a labelled
    // assignment, `40 S = S + A(I,J)`, which stays inside the loop on I)
    let kassign = matches!(kterm.kind, StmtKind::Assign { .. }) && kterm.label.is_some();
    let ends = |t: &Stmt| matches!(t.kind, StmtKind::Continue | StmtKind::EndDo);
    if !(ends(kterm) || kassign) || !(ends(jterm) || kassign && jterm.id == kterm.id) {
        return;
    }
    if jbody.iter().any(|(_, c)| *c) || before.iter().chain(&after).any(|s| !matches!(&s.kind, StmtKind::Assign { .. })) {
        return;
    }
    if jbody.iter().any(|(s, _)| !matches!(&s.kind, StmtKind::Assign { .. } | StmtKind::Continue) || (matches!(s.kind, StmtKind::Continue) && s.id != kterm.id)) {
        return;
    }
    // the accesses of each part, in order
    let acx = access_ctx(p, ui);
    let parts: [Vec<&Stmt>; 3] = [before, jbody.iter().map(|(s, _)| *s).filter(|s| matches!(s.kind, StmtKind::Assign { .. })).collect(), after];
    let mut accs_of: [Vec<Vec<analyzer::access::Access>>; 3] = [vec![], vec![], vec![]];
    let mut all_accs = vec![];
    for (i, part) in parts.iter().enumerate() {
        for s in part {
            let (mut a, mut c) = (vec![], vec![]);
            acx.stmt_accesses(s, &mut a, &mut c);
            if !c.is_empty() || a.iter().any(|x| x.via_call.is_some()) {
                return;
            }
            all_accs.extend(a.iter().cloned());
            accs_of[i].push(a);
        }
    }
    if aliased(sema, &all_accs) {
        return;
    }
    let jvars = do_vars(&jh);
    let scalar = |v: &str| !sema.is_array(v) && (sema.symbol(v).is_none() || super::plain_scalar(sema, v));
    // scalars the parts assign; none of the loops' variables
    let mut any_assigned: BTreeSet<String> = BTreeSet::new();
    for x in accs_of.iter().flatten().flatten().filter(|x| x.write) {
        let n = x.name.to_ascii_lowercase();
        if n == ivar || jvars.contains(&n) || !scalar(&n) && !sema.is_array(&n) {
            return;
        }
        if !sema.is_array(&n) {
            any_assigned.insert(n);
        }
    }
    // (the parts before and after the nest read none of its variables)
    if accs_of[0].iter().chain(&accs_of[2]).flatten().any(|x| jvars.contains(&x.name.to_ascii_lowercase())) {
        return;
    }
    // every scalar assigned before it is read (for each I), and which of them pass a value
    // from one part to another or from one iteration of the nest to the next
    let mut xs: BTreeSet<String> = BTreeSet::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    for a in &accs_of {
        let mut here: BTreeSet<String> = BTreeSet::new();
        for st in a {
            for x in st.iter().filter(|x| !x.write && any_assigned.contains(&x.name.to_ascii_lowercase())) {
                let n = x.name.to_ascii_lowercase();
                if !done.contains(&n) {
                    return;
                }
                if !here.contains(&n) {
                    xs.insert(n);
                }
            }
            for x in st.iter().filter(|x| x.write && !sema.is_array(&x.name)) {
                let n = x.name.to_ascii_lowercase();
                done.insert(n.clone());
                here.insert(n);
            }
        }
    }
    // (types the arrays can have)
    let mut decls = vec![];
    for v in &xs {
        let ty = match sema.type_of(v).base {
            BaseType::Integer => "integer",
            BaseType::Real | BaseType::DoublePrecision => "real",
            BaseType::Complex | BaseType::DoubleComplex => "complex",
            BaseType::Logical => "logical",
            _ => return,
        };
        decls.push(format!("{ty}(kind({v})), allocatable :: sapfor_xs_{v}(:)"));
    }
    // the nest's bounds read neither I nor what the body assigns (a rectangle)
    for h in &jh {
        let StmtKind::Do { lo, hi: up, step, .. } = &h.kind else { return };
        let mut es = vec![lo, up];
        es.extend(step.iter());
        if names_in(&es).iter().any(|n| *n == ivar || any_assigned.contains(n)) {
            return;
        }
    }
    // worth it: the nest's references (the scalars made arrays among them) run along I more
    // than along its innermost loop
    let jin = jvars.last().cloned().unwrap_or_default();
    let score = |v: &str| {
        let (along, across) = along_across(sema, accs_of[1].iter().flatten(), v);
        along as i64 - across as i64
    };
    let made_arrays = accs_of[1].iter().flatten().filter(|x| xs.contains(&x.name.to_ascii_lowercase())).count() as i64;
    if made_arrays + score(&ivar) <= score(&jin) {
        return;
    }
    // the texts, each on one line
    let one = |s: &Stmt| match &cx.current_lines(s)[..] {
        [t] => Some(t.clone()),
        _ => None,
    };
    let Some(ht) = one(hi) else { return };
    let Some((_, control)) = split_control(&ht, &ivar) else { return };
    let Some((eq, bp)) = crate::text::do_parts(&ht) else { return };
    let (lo_t, hi_t) = (bp[0].trim().to_string(), bp[1].trim().to_string());
    let step = bp.get(2).map(|s| s.trim().to_string());
    let vars: Vec<String> = xs.iter().cloned().collect();
    let mut edits: Vec<(&Stmt, Vec<String>)> = vec![];
    for s in parts.iter().flatten().filter(|s| !(kassign && s.id == kterm.id)) {
        let Some(t) = one(s) else { return };
        edits.push((s, vec![expanded_text(&t, &vars, &ivar)]));
    }
    let (Some(j0), Some(jn)) = (jh.first(), jh.last()) else { return };
    let (Some(j0t), Some(jnt), Some(kt), Some(jt)) = (one(j0), one(jn), one(kterm), one(jterm)) else { return };
    // (the innermost loop's end: the loop on I ends before it, or after the assignment that
    // ends it, whose label goes to a CONTINUE)
    let kt_lines: Vec<String> = match kterm.label.filter(|_| kassign) {
        Some(l) => {
            let ex = expanded_text(&kt, &vars, &ivar);
            let Some(rest) = ex.trim_start().strip_prefix(&l.to_string()).filter(|r| r.starts_with(char::is_whitespace)) else { return };
            vec![rest.trim_start().to_string(), "END DO".into(), format!("{l} CONTINUE")]
        }
        None => vec!["END DO".into(), kt],
    };
    // (the arrays over this process's I, allocated before the threads start; the threads'
    // parts of I, or its bounds as converted)
    let alloc: Vec<String> = vars.iter().map(|v| format!("allocate(sapfor_xs_{v}(min({lo_t}, {hi_t}):max({lo_t}, {hi_t})))")).collect();
    let control = match omp {
        Some((c, at)) => {
            let st = step.clone().unwrap_or_else(|| "1".into());
            c.scalars.extend(["sapfor_tp_f", "sapfor_tp_l"].map(String::from));
            pre[*at] = c.line("!$omp parallel");
            pre.insert(*at + 1, format!("call sapfor_tpipe_part(int({lo_t}, c_int64_t), int({hi_t}, c_int64_t), int({st}, c_int64_t), sapfor_tp_f, sapfor_tp_l)"));
            post.insert(0, "!$omp end parallel".to_string());
            let with_step = step.as_ref().map_or(String::new(), |s| format!(", {s}"));
            pre.splice(*at..*at, alloc);
            format!("{}= sapfor_tp_f, sapfor_tp_l{with_step}", &ht[ht.len() - control.len()..eq])
        }
        None => {
            pre.extend(alloc);
            control.to_string()
        }
    };
    let head = format!("DO {control}");
    // (the BLOCK construct inside the profile's calls around the loop, which a loop written
    // twice keeps around both of its versions)
    if !decls.is_empty() {
        let mut open = vec!["block".to_string()];
        open.extend(decls);
        let at = pre.iter().position(|l| l.starts_with("call sapfor_loop_begin(")).map_or(0, |i| i + 1);
        pre.splice(at..at, open);
        let end = post.iter().rposition(|l| l.starts_with("call sapfor_loop_end(")).unwrap_or(post.len());
        post.insert(end, "end block".into());
    }
    cx.replace_stmt(hi, vec![head.clone()]);
    for (s, t) in edits {
        cx.replace_stmt(s, t);
    }
    // the first loop on I closes before the nest, the second runs innermost in it, the third
    // starts after it and ends where the loop ended
    if j0.id == jn.id {
        cx.replace_stmt(j0, vec!["END DO".into(), j0t, head.clone()]);
    } else {
        cx.replace_stmt(j0, vec!["END DO".into(), j0t]);
        cx.replace_stmt(jn, vec![jnt, head.clone()]);
    }
    if kterm.id == jterm.id {
        let mut v = kt_lines;
        v.push(head);
        cx.replace_stmt(kterm, v);
    } else {
        cx.replace_stmt(kterm, kt_lines);
        cx.replace_stmt(jterm, vec![jt, head]);
    }
    cx.replace_stmt(iterm, vec!["END DO".into()]);
    let kept: Vec<String> = vars.iter().map(|v| v.to_uppercase()).collect();
    cx.note(
        hi.span.file,
        hi.span.line,
        format!(
            "this loop on {} runs in three parts, over the statements before the loop on {}, innermost inside {}, and over the statements after it{} (the nest's references run along {} more than along {}; the directive's iterations are independent: the same values as written; SAPFOR_SWAP=0 at conversion keeps the loop as written)",
            ivar.to_uppercase(),
            jvars[0].to_uppercase(),
            if jvars.len() > 1 { "those loops" } else { "it" },
            if kept.is_empty() { String::new() } else { format!(", {} kept for each {} in an array", kept.join(", "), ivar.to_uppercase()) },
            ivar.to_uppercase(),
            jin.to_uppercase()
        ),
    );
}
