//! Two PARALLEL loops run as one (docs/runtime.md "Fused loops").
//!
//! Iterative solvers alternate a sweep that computes new values from old ones and a sweep
//! that copies them back and measures the change (Jacobi: `B = stencil(A)`, then
//! `EPS = MAX(EPS, ABS(B - A)); A = B`). Each sweep streams its arrays through memory, and on
//! arrays larger than the caches that traffic is the time. Run together, plane by plane of
//! their outermost loop, the second sweep finds in the cache what the first has just touched:
//! the second loop's plane `j` runs right after the first loop's plane `j + d`, where `d` (the
//! lag) is the farthest the first loop reaches ahead along that dimension into what the second
//! writes, or reads of what the first writes (`V(I,J,K+1)` read by a stencil, `V(I,J,K)` then
//! written by the copy: `d` = 1). The original order put every plane of the first loop before
//! every plane of the second; the fused order keeps that for every pair of planes that touch
//! the same elements, which is what `plan` proves from the subscripts.
//!
//! Threads share the fused loop's planes in consecutive parts (`sapfor_tpipe_part`). A plane
//! of the second loop that a neighbour's planes of the first loop may touch (within the lag of
//! the part's ends) waits for a second pass after a barrier; the others run in the first pass.
//! Processes need nothing more: each runs its own planes, and reads what others own from its
//! shadow edges, renewed before the fused loop as before the first loop, and which neither
//! loop writes.
//!
//! A renewal before the second loop of what the first writes (Jacobi: `A = B`, then
//! `B = stencil(A)` after `SHADOW_RENEW(A)`) runs between the passes, by one thread: every
//! plane of the first loop is done by then, and the second loop's planes that read edges
//! wait for the second pass. The first pass runs the second loop's planes that read only
//! the thread's part of the renewed arrays, where the renewal changes nothing there: asked at
//! run time (`sapfor_renews_outside`), since a grid dividing another dimension of the array
//! renews edges inside every plane; then every plane of the second loop waits.
//!
//! Only plain pairs are fused: ON arrays of one rank with the outermost loops on the same
//! dimension, step 1, nothing between them but assignments of constants to scalars that the
//! first loop does not use (moved before it), a renewal before the second loop only of arrays
//! the first writes and the second does not, indexed by the outermost variables, no ACROSS,
//! REMOTE_ACCESS, procedure calls, jumps, replicated arrays written (merged), accelerator
//! regions or iteration-order mode, at most one of the two with reductions (scalar, of an
//! OpenMP operator; no sum of reals in the second where it reads planes behind its own),
//! scalars of one loop untouched by the other but for DO variables, no
//! storage two names share, and every pair of references to an array that one of them
//! writes indexed by both outermost variables in one dimension. `SAPFOR_FUSE=0` at
//! conversion keeps every loop apart (for comparisons).

use super::{gpu, names_in, offset, one_dim, order_free, plain_scalar, red_op, shares_terminal, Cx, Omp, ParLoop};
use analyzer::access::Access;
use analyzer::ast::{Expr, Node, Stmt, StmtKind};
use analyzer::directives::Clause;
use std::collections::BTreeSet;

impl Omp {
    /// The clauses of a region running both loops.
    fn join(a: &Omp, b: &Omp) -> Omp {
        let union = |x: &[String], y: &[String], extra: &[&str]| -> Vec<String> {
            let mut v: Vec<String> = x.to_vec();
            for s in y.iter().map(String::as_str).chain(extra.iter().copied()) {
                if !v.iter().any(|o| o == s) {
                    v.push(s.to_string());
                }
            }
            v
        };
        Omp {
            work: match (&a.work, &b.work) {
                (Some(x), Some(y)) => Some(format!("({x}) + ({y})")),
                _ => None,
            },
            copyin: union(&a.copyin, &b.copyin, &[]),
            scalars: union(&a.scalars, &b.scalars, &["sapfor_fu_a", "sapfor_fu_b", "sapfor_fu_k", "sapfor_fu_j", "sapfor_fu_p"]),
            arrays: union(&a.arrays, &b.arrays, &[]),
            reds: union(&a.reds, &b.reds, &[]),
        }
    }
}

/// A converted loop not yet placed: its lines before and after it (the first `pre` line
/// starts the profile's loop, the last `post` line ends it) and its OpenMP clauses (None: one
/// thread).
pub(super) struct Held {
    pub pre: Vec<String>,
    pub post: Vec<String>,
    pub omp: Option<Omp>,
}

/// How two loops run together (`plan`).
pub(super) struct Plan {
    /// the second loop's plane j runs after the first loop's plane j + lag
    lag: i64,
    /// how far below its plane the second loop touches the first loop's planes
    behind: i64,
    /// the arrays the second loop's SHADOW_RENEW names (all written by the first loop) and
    /// the dimension (from 0) that both loops' references index by their outermost variables
    renewed: Vec<(String, usize)>,
}

/// Two fused loops as written (`emit`), by the first loop's first line in `Cx::fusions`.
pub(super) struct Fusion {
    /// the first loop's last line, whether an END IF follows it there (a labelled DO's
    /// terminal statement stays), the second loop's first and last lines
    pub last1: u32,
    close1: bool,
    pub first2: u32,
    pub last: u32,
    close2: bool,
    pre: Vec<String>,
    post: Vec<String>,
    /// what blocks of time steps need (convert_skew.rs): the lines setting the loops' local
    /// bounds, the profile's begin and end lines, the region's clauses, the lag and how far
    /// behind, and whether every line before and after the loops is one of those the blocks
    /// replace (renewals, reductions, the passes)
    pub bounds: Vec<String>,
    pub begin: String,
    pub end: String,
    /// the profile's line naming the second loop as run with the first
    pub with: Option<String>,
    pub omp: Option<Omp>,
    pub lag: i64,
    pub behind: i64,
    pub known: bool,
}

impl Fusion {
    /// The loops' reductions (blocks of steps on several processes combine each step's): the
    /// lines naming their variables before the loops, and those combining them between
    /// processes after.
    pub fn reductions(&self) -> (Vec<&String>, Vec<&String>) {
        (self.pre.iter().filter(|l| l.starts_with(KNOWN[3])).collect(), self.post.iter().filter(|l| KNOWN[4..].iter().any(|k| l.starts_with(k))).collect())
    }
}

/// A renewal the runtime adds before a loop.
const RENEW: &str = "call sapfor_shadow_renew(";
/// The lines the runtime adds around loops that blocks of time steps replace
/// (convert_skew.rs): the profile's, renewals, reductions.
const KNOWN: [&str; 7] = ["call sapfor_loop_begin(", "call sapfor_loop_end(", RENEW, "call sapfor_red_var(", "call sapfor_red_put(", "call sapfor_red_end(", "call sapfor_red_get("];

fn header<'u>(u: &'u analyzer::ast::Unit, n: &Node) -> Option<&'u Stmt> {
    match n {
        Node::Do { header, .. } => Some(u.stmt(*header)),
        _ => None,
    }
}

/// The nodes between `a` and `b` when both are in one list, `a` first.
fn between<'n>(nodes: &'n [Node], a: &Node, b: &Node) -> Option<&'n [Node]> {
    let ia = nodes.iter().position(|n| std::ptr::eq(n, a));
    let ib = nodes.iter().position(|n| std::ptr::eq(n, b));
    if let (Some(x), Some(y)) = (ia, ib) {
        return (x < y).then(|| &nodes[x + 1..y]);
    }
    for n in nodes {
        let found = match n {
            Node::Do { body, .. } => between(body, a, b),
            Node::If { arms, .. } => arms.iter().find_map(|(_, body)| between(body, a, b)),
            Node::Stmt(_) => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn constant(e: &Expr) -> bool {
    match e {
        Expr::Int(_) | Expr::Real(_) | Expr::Logical(_) => true,
        Expr::Unary(_, x) => constant(x),
        _ => false,
    }
}

/// The DO variables of a nest.
fn do_vars(cx: &Cx, ui: usize, n: &Node) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    analyzer::ast::for_each_stmt(&cx.p.units[ui], std::slice::from_ref(n), &mut |s| {
        if let StmtKind::Do { var, .. } = &s.kind {
            out.insert(var.to_ascii_lowercase());
        }
    });
    out
}

/// Whether PARALLEL loops `pl1` and the next one, `pl2`, of unit `ui` may run as one, and how;
/// where two loops with nothing but constants between them may not, `why` is the note that
/// says why (file, line of the first loop, text: `sapfor build --explain`).
pub(super) fn plan(cx: &Cx, ui: usize, dos: &[&Node], pl1: &ParLoop, pl2: &ParLoop, regions: &[gpu::Region], why: &mut Option<(analyzer::source::FileId, u32, String)>) -> Option<Plan> {
    if cx.order || std::env::var("SAPFOR_FUSE").is_ok_and(|v| v == "0") {
        return None;
    }
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let fid = u.file;
    let (n1, n2) = (dos[pl1.outer], dos[pl2.outer]);
    let (h1, h2) = (header(u, n1)?, header(u, n2)?);
    macro_rules! refuse {
        ($($msg:tt)*) => {{
            let msg = format!($($msg)*);
            *why = Some((h1.span.file, h1.span.line, format!("this PARALLEL loop and the one at line {} run one after the other, not as one loop over the planes: {msg}", h2.span.line)));
            return None;
        }};
    }
    // nothing between them but constants given to scalars (moved before the first loop)
    let mid = between(&u.body, n1, n2)?;
    let mut moved = BTreeSet::new();
    for n in mid {
        let Node::Stmt(id) = n else { return None };
        let s = u.stmt(*id);
        let StmtKind::Assign { lhs: Expr::Var(v), rhs } = &s.kind else { return None };
        if s.label.is_some() || !constant(rhs) || !plain_scalar(sema, v) || cx.segment(s).is_some() {
            return None;
        }
        moved.insert(v.to_ascii_lowercase());
    }
    // no other directive between them, no region
    let (end1, end2) = (super::last_line(u, n1), super::last_line(u, n2));
    if cx.unit_dirs[ui].iter().any(|d| d.line > end1 && d.line < pl2.dir_line) {
        refuse!("another directive stands between them");
    }
    // (their first and last lines are theirs alone: the fused loop is written by lines)
    if [h1.span.line, end1, h2.span.line, end2].iter().any(|l| cx.shared.contains_key(&(fid.0, *l))) || h1.span.file != fid || h2.span.file != fid {
        return None;
    }
    if gpu::region_at(regions, fid, pl1.dir_line).is_some() || gpu::region_at(regions, fid, pl2.dir_line).is_some() {
        refuse!("they are in a region, whose loops run apart on the accelerator (a build for the host only leaves regions out: `sapfor run` without --devices, `sapfor build --host-only`)");
    }
    // outermost loops: unlabelled, step 1, not ending another loop, END DO unlabelled
    for (h, n) in [(h1, n1), (h2, n2)] {
        let StmtKind::Do { step, .. } = &h.kind else { return None };
        let l = h.span.line;
        if h.label.is_some() || h.name.is_some() {
            refuse!("the DO statement at line {l} has a label or a name");
        }
        if shares_terminal(u, h.id) {
            refuse!("the outermost DO at line {l} shares its terminal statement with another loop");
        }
        if step.as_ref().is_some_and(|s| sema.eval_int(s) != Some(1)) {
            refuse!("the outermost DO at line {l} has a step other than 1");
        }
        if let Node::Do { end: Some(e), .. } = n {
            if u.stmt(*e).label.is_some() {
                refuse!("the END DO of the loop at line {} is labelled", h.span.line);
            }
        }
    }
    let (StmtKind::Do { var: v1, .. }, StmtKind::Do { var: v2, .. }) = (&h1.kind, &h2.kind) else { return None };
    if !pl1.vars.first().is_some_and(|x| x.eq_ignore_ascii_case(v1)) || !pl2.vars.first().is_some_and(|x| x.eq_ignore_ascii_case(v2)) {
        refuse!("a directive's first variable is not its outermost DO's");
    }
    // ON arrays of one rank (the same or aligned alike: what the fused loop gains comes from
    // each process touching the same planes of both), the outermost loops on one dimension
    let (Some(on1), Some(on2)) = (&pl1.on, &pl2.on) else { refuse!("one of them has no ON clause") };
    if on1.subs.len() != on2.subs.len() {
        refuse!("their ON arrays differ in rank");
    }
    let dim_of = |on: &analyzer::directives::ArrayRef, v: &str| {
        on.subs.iter().position(|s| matches!(s, analyzer::directives::Subscript::Expr(e) if super::var_offset(e, v, sema).is_some()))
    };
    let Some(d1) = dim_of(on1, v1) else { refuse!("the ON clause of the first indexes no dimension by {}", v1.to_uppercase()) };
    if dim_of(on2, v2) != Some(d1) {
        refuse!("their outermost loops run over different dimensions of the ON arrays");
    }
    // clauses
    let mut reducing = 0;
    // (a sum or product of reals in the second loop, whose order one process keeps)
    let mut inexact2 = false;
    let mut renewed_names = BTreeSet::new();
    for (k, pl) in [pl1, pl2].into_iter().enumerate() {
        for c in &pl.clauses {
            match c {
                Clause::ShadowRenew(_) if k == 0 => {}
                Clause::ShadowRenew(specs) => renewed_names.extend(specs.iter().map(|x| x.name.to_ascii_lowercase())),
                Clause::Private(_) | Clause::CudaBlock(_) | Clause::Tie(_) => {}
                Clause::Reduction(reds) => {
                    reducing += 1;
                    if let Some(r) = reds.iter().find(|r| red_op(r.op).1.is_none() || sema.is_array(&r.var.to_ascii_lowercase())) {
                        refuse!("the reduction of {} is of an array or a MAXLOC/MINLOC", r.var.to_uppercase());
                    }
                    inexact2 |= k == 1 && reds.iter().any(|r| !order_free(sema, r));
                }
                _ => refuse!("a clause of the {} loop other than SHADOW_RENEW, PRIVATE and REDUCTION{}", ["first", "second"][k], if k == 0 { " (a renewal before the first loop is fine)" } else { "" }),
            }
        }
    }
    if reducing > 1 {
        refuse!("both have reductions");
    }
    // statements: assignments, DO and IF constructs only (no jump, CYCLE or EXIT that the
    // fused loop would take for its own, no call, I/O or statement not modelled)
    if !super::plain_nest(u, n1) || !super::plain_nest(u, n2) {
        refuse!("a loop holds {}", super::NOT_PLAIN);
    }
    // what each loop touches
    let (Some(a1), Some(a2)) = (touched(cx, ui, n1), touched(cx, ui, n2)) else { refuse!("a loop calls a procedure") };
    // (storage two names share, an EQUIVALENCE or two dummies one call gives the same array,
    // escapes the pairs below)
    if super::aliased(sema, &a1) || super::aliased(sema, &a2) {
        refuse!("{}", super::SHARED_STORAGE);
    }
    let names = |v: &[Access], w: bool| -> BTreeSet<String> { v.iter().filter(|a| !w || a.write).map(|a| a.name.to_ascii_lowercase()).collect() };
    let (r1, w1, r2, w2) = (names(&a1, false), names(&a1, true), names(&a2, false), names(&a2, true));
    if let Some(m) = moved.iter().find(|m| r1.contains(*m)) {
        refuse!("the first loop reads {}, which a statement between them sets", m.to_uppercase());
    }
    // scalars: one loop's are the other's only as DO variables of both
    let (dv1, dv2) = (do_vars(cx, ui, n1), do_vars(cx, ui, n2));
    for x in w1.intersection(&r2).chain(w2.intersection(&r1)) {
        if !sema.is_array(x) && !(dv1.contains(x) && dv2.contains(x)) {
            refuse!("one loop reads the scalar {}, which the other writes", x.to_uppercase());
        }
    }
    // the second loop's bounds are evaluated before the first loop runs
    let StmtKind::Do { lo, hi, .. } = &h2.kind else { return None };
    if let Some(n) = names_in(&[lo, hi]).iter().find(|n| w1.contains(*n)) {
        refuse!("the second loop's bounds read {}, which the first writes", n.to_uppercase());
    }
    // arrays the second loop renews: the first loop's results, which the second does not
    // write (the renewal sends what the first loop left), every reference of both loops
    // indexing one dimension by the outermost variable (the planes the renewal leaves alone)
    let mut renewed = vec![];
    for x in renewed_names {
        if !w1.contains(&x) || w2.contains(&x) {
            refuse!("the second loop renews {}, which the first does not write or the second writes", x.to_uppercase());
        }
        let refs = a1.iter().map(|a| (a, v1.as_str())).chain(a2.iter().map(|a| (a, v2.as_str())));
        let Some(dim) = one_dim(refs.filter(|(a, _)| a.name.eq_ignore_ascii_case(&x))) else {
            refuse!("a reference to {}, which the second loop renews, does not index one dimension by the outermost variable", x.to_uppercase())
        };
        renewed.push((x, dim));
    }
    // arrays: every pair of references, one a write, indexed by both outermost variables in
    // one dimension; the distances between the planes they touch
    let Some((ahead, behind)) = reach(sema, &a1, v1, &a2, v2) else {
        // (the array: the first whose references alone show it)
        let of = |v: &[Access], x: &str| v.iter().filter(|a| a.name.eq_ignore_ascii_case(x)).cloned().collect::<Vec<_>>();
        let x = w1.union(&w2).find(|x| reach(sema, &of(&a1, x), v1, &of(&a2, x), v2).is_none()).map_or(String::new(), |x| format!(" ({})", x.to_uppercase()));
        refuse!("a reference of one loop and one of the other to an array one of them writes{x} do not both index one dimension by the outermost variables (the second loop may read planes the first writes later)")
    };
    // (a plane of the second loop that reads planes behind it runs in the second pass where
    // it starts a thread's part, after the planes above it: on one process and thread its
    // sum of reals would change order, and the sequential program's last digits)
    if inexact2 && behind > 0 {
        refuse!("the second loop sums reals and reads planes behind the first's: its order of summation would change");
    }
    // (beyond a few planes the cache no longer holds what the first loop touched)
    if ahead > 4 || behind > 4 {
        refuse!("the second loop's planes reach more than 4 planes from the first's ({ahead} ahead, {behind} behind)");
    }
    (end2 > end1).then_some(Plan { lag: ahead, behind, renewed })
}

/// Every access of loop nest `n` of unit `ui`; None where it calls a procedure.
pub(super) fn touched(cx: &Cx, ui: usize, n: &Node) -> Option<Vec<Access>> {
    let acx = super::access_ctx(cx.p, ui);
    let (mut accs, mut calls) = (vec![], vec![]);
    analyzer::ast::for_each_stmt(&cx.p.units[ui], std::slice::from_ref(n), &mut |st| acx.stmt_accesses(st, &mut accs, &mut calls));
    calls.is_empty().then_some(accs)
}

/// How far apart the planes of loop `a` (outermost variable `va`) and loop `b` (`vb`) are that
/// touch an element of an array one of them writes: (ahead, behind), both at least 0, where
/// `b`'s plane j meets `a`'s planes j - behind to j + ahead; None where a pair of references
/// does not index one dimension by both variables.
pub(super) fn reach(sema: &analyzer::sema::UnitSema, a: &[Access], va: &str, b: &[Access], vb: &str) -> Option<(i64, i64)> {
    let (mut ahead, mut behind) = (0i64, 0i64);
    for e1 in a.iter().filter(|x| sema.is_array(&x.name.to_ascii_lowercase())) {
        for e2 in b.iter().filter(|x| x.name.eq_ignore_ascii_case(&e1.name) && (x.write || e1.write)) {
            let (Some(s1), Some(s2)) = (&e1.subs, &e2.subs) else { return None };
            let dist = s1.iter().zip(s2).find_map(|(x1, x2)| Some(offset(x2, vb)? - offset(x1, va)?))?;
            // (a's plane k meets b's plane k - dist)
            ahead = ahead.max(dist);
            behind = behind.max(-dist);
        }
    }
    Some((ahead, behind))
}

/// Place a held loop as `parallel_loop` places a loop.
pub(super) fn place_one(cx: &mut Cx, ui: usize, dos: &[&Node], pl: &ParLoop, mut held: Held) {
    let u = &cx.p.units[ui];
    let n = dos[pl.outer];
    let Some(h) = header(u, n) else { return };
    if let Some(omp) = &held.omp {
        held.pre.push(omp.line("!$omp parallel do schedule(static)"));
    }
    let (file, line, end) = (h.span.file.0, h.span.line, super::last_line(u, n));
    cx.before.entry((file, line)).or_default().extend(held.pre);
    cx.after.entry((file, end)).or_default().splice(0..0, held.post);
}

/// Place loops `pl1` and `pl2`, converted and held, as one (see the module's comment).
#[allow(clippy::too_many_arguments)]
pub(super) fn place(cx: &mut Cx, ui: usize, dos: &[&Node], pl1: &ParLoop, pl2: &ParLoop, h1: Held, h2: Held, plan: &Plan) {
    let p = cx.p;
    let u = &p.units[ui];
    let (n1, n2) = (dos[pl1.outer], dos[pl2.outer]);
    let (Some(s1), Some(s2)) = (header(u, n1), header(u, n2)) else { return };
    // the local bounds, as rewritten for the ON array
    let bounds = |s: &Stmt| -> Option<(String, String, String)> {
        let t = cx.current_lines(s);
        let [t] = &t[..] else { return None };
        let (_, parts) = crate::text::do_parts(t)?;
        let StmtKind::Do { var, .. } = &s.kind else { return None };
        (parts.len() == 2).then(|| (var.clone(), parts[0].trim().to_string(), parts[1].trim().to_string()))
    };
    // the second loop's renewals run between the passes; whether they leave alone the planes
    // the first pass reads is asked at run time (the process grid decides)
    let checks: Option<Vec<String>> = h2
        .pre
        .iter()
        .filter_map(|l| l.strip_prefix(RENEW))
        .map(|args| {
            // (sh_KEY, NAME, [lo widths], [hi widths])
            let mut it = args.splitn(3, ", ");
            let (h, name, widths) = (it.next()?, it.next()?, it.next()?.strip_suffix(')')?);
            let (_, d) = plan.renewed.iter().find(|(x, _)| x.eq_ignore_ascii_case(name))?;
            Some(format!(
                "sapfor_fu_r = sapfor_fu_r .and. sapfor_renews_outside({h}, {}_c_int, min(sapfor_fu_l1, sapfor_fu_l2), max(sapfor_fu_h1, sapfor_fu_h2), {widths}) /= 0",
                d + 1
            ))
        })
        .collect();
    // (apart where a header cannot be read, or one loop is threaded and the other not)
    let (Some((v1, lo1, hi1)), Some((v2, lo2, hi2)), true, Some(checks)) = (bounds(s1), bounds(s2), h1.omp.is_some() == h2.omp.is_some(), checks) else {
        place_one(cx, ui, dos, pl1, h1);
        place_one(cx, ui, dos, pl2, h2);
        return;
    };
    let (lag, behind) = (plan.lag, plan.behind);
    let known = h1.pre.iter().chain(&h2.pre).chain(&h1.post).chain(&h2.post).all(|l| KNOWN.iter().any(|k| l.starts_with(k)));
    let begin = h1.pre.first().cloned().unwrap_or_default();
    // (the profile's entry says that the first loop's time is both loops')
    let src = |l: &String| l.strip_prefix(KNOWN[0]).and_then(|x| x.split(',').next()).map(str::to_string);
    let with = src(&begin).zip(h2.pre.first().and_then(src)).map(|(a, b)| format!("call sapfor_loop_with({a}, {b})"));
    let mut pre = h1.pre;
    let (renews, pre2): (Vec<String>, Vec<String>) = h2.pre.into_iter().partition(|l| l.starts_with(RENEW));
    // (one profile entry, the first loop's, for both)
    pre.extend(pre2.into_iter().skip(1));
    let bounds = vec![
        format!("sapfor_fu_l1 = int({lo1}, c_int64_t)"),
        format!("sapfor_fu_h1 = int({hi1}, c_int64_t)"),
        format!("sapfor_fu_l2 = int({lo2}, c_int64_t)"),
        format!("sapfor_fu_h2 = int({hi2}, c_int64_t)"),
    ];
    pre.extend(bounds.iter().cloned());
    if !renews.is_empty() {
        pre.push("sapfor_fu_r = .true.".into());
        pre.extend(checks);
    }
    let omp = match (&h1.omp, &h2.omp) {
        (Some(a), Some(b)) => Some(Omp::join(a, b)),
        _ => None,
    };
    if let Some(o) = &omp {
        pre.push(o.line("!$omp parallel"));
    }
    pre.push("call sapfor_tpipe_part(min(sapfor_fu_l1, sapfor_fu_l2), max(sapfor_fu_h1, sapfor_fu_h2), 1_c_int64_t, sapfor_fu_a, sapfor_fu_b)".into());
    // pass 1: both loops; pass 2, after every thread's pass 1 and the renewals: the second
    // loop's planes near the ends of this thread's part (and every plane where a renewal
    // changes what the first pass would read)
    pre.push("do sapfor_fu_p = 1, 2".into());
    if omp.is_some() || !renews.is_empty() {
        let team = |l: &str| omp.as_ref().map(|_| l.to_string());
        pre.push("if (sapfor_fu_p == 2) then".into());
        pre.extend(team("!$omp barrier"));
        if !renews.is_empty() {
            // (by the thread that called MPI_Init, the others waiting)
            pre.extend(team("!$omp master"));
            pre.extend(renews.iter().cloned());
            pre.extend(team("!$omp end master"));
            pre.extend(team("!$omp barrier"));
        }
        pre.push("end if".into());
    }
    pre.push("do sapfor_fu_k = sapfor_fu_a, sapfor_fu_b".into());
    let mut post = vec!["end do".to_string(), "end do".to_string()];
    if omp.is_some() {
        post.push("!$omp end parallel".into());
    }
    let mut p1 = h1.post;
    let end_profile = p1.pop();
    let mut p2 = h2.post;
    p2.pop();
    post.extend(p1);
    post.extend(p2);
    let end = end_profile.clone().unwrap_or_default();
    post.extend(end_profile);
    post.extend(with.clone());
    cx.replace_stmt(
        s1,
        vec![
            "if (sapfor_fu_p == 1 .and. sapfor_fu_k >= sapfor_fu_l1 .and. sapfor_fu_k <= sapfor_fu_h1) then".into(),
            format!("{v1} = int(sapfor_fu_k, kind({v1}))"),
        ],
    );
    let renewed = if renews.is_empty() { "" } else { "sapfor_fu_r .and. " };
    cx.replace_stmt(
        s2,
        vec![
            format!("sapfor_fu_j = sapfor_fu_k - merge({lag}_c_int64_t, 0_c_int64_t, sapfor_fu_p == 1)"),
            format!(
                "if (sapfor_fu_j >= sapfor_fu_l2 .and. sapfor_fu_j <= sapfor_fu_h2 .and. ((sapfor_fu_p == 1) .eqv. ({renewed}sapfor_fu_j >= sapfor_fu_a + {behind} .and. sapfor_fu_j <= sapfor_fu_b - {lag}))) then"
            ),
            format!("{v2} = int(sapfor_fu_j, kind({v2}))"),
        ],
    );
    // a block DO's END DO closes the IF; a labelled DO's terminal statement stays (it ends
    // the inner loops too, or nothing now) and an END IF follows it
    let mut close = |n: &Node| match n {
        Node::Do { end: Some(e), .. } => {
            let e = u.stmt(*e);
            cx.replace_stmt(e, vec!["end if".into()]);
            false
        }
        _ => true,
    };
    let (close1, close2) = (close(n1), close(n2));
    let known = known && begin.starts_with(KNOWN[0]) && end.starts_with(KNOWN[1]);
    let f = Fusion { last1: super::last_line(u, n1), close1, first2: s2.span.line, last: super::last_line(u, n2), close2, pre, post, bounds, begin, end, with, omp, lag, behind, known };
    cx.fusions.insert((s1.span.file.0, s1.span.line), f);
    let between = if renews.is_empty() { "" } else { "; the second loop's renewal runs between two passes" };
    let (k, k2) = (v1.to_uppercase(), v2.to_uppercase());
    let ahead = if lag == 0 { k.clone() } else { format!("{k} + {lag}") };
    cx.note(
        s1.span.file,
        s1.span.line,
        format!("this PARALLEL loop and the one at line {} run as one loop over the planes of {k}: plane {k2} of the second right after plane {ahead} of the first, so that it finds in the cache what the first has just touched{between} (SAPFOR_FUSE=0 at conversion keeps them apart)", s2.span.line),
    );
}

/// Write fused loops `f` whose first line is `ln` of file `id` (`emit_file`): the statements
/// between the loops, then the loops in one.
pub(super) fn emit(cx: &Cx, id: analyzer::source::FileId, ln: u32, f: &Fusion, out: &mut String, stack: &mut Vec<u32>) {
    super::push_lines(out, cx.before.get(&(id.0, ln)).map_or(&[][..], |b| &b[..]));
    let mut synced = false;
    for j in f.last1 + 1..f.first2 {
        super::emit_line(cx, id, j, out, stack, &mut synced, false, false);
    }
    super::push_lines(out, &f.pre);
    body(cx, id, ln, f, out, stack);
    super::push_lines(out, &f.post);
    super::push_lines(out, cx.after.get(&(id.0, f.last)).map_or(&[][..], |a| &a[..]));
}

/// The lines of fused loops `f` (first line `ln` of file `id`) between what comes before and
/// after them: one plane of each, as `sapfor_fu_k` and the pass choose.
pub(super) fn body(cx: &Cx, id: analyzer::source::FileId, ln: u32, f: &Fusion, out: &mut String, stack: &mut Vec<u32>) {
    let mut synced = false;
    for j in ln..=f.last1 {
        super::emit_line(cx, id, j, out, stack, &mut synced, j == ln, false);
    }
    if f.close1 {
        out.push_str("end if\n");
        synced = false;
    }
    for j in f.first2..=f.last {
        super::emit_line(cx, id, j, out, stack, &mut synced, false, j == f.last);
    }
    if f.close2 {
        out.push_str("end if\n");
    }
}
