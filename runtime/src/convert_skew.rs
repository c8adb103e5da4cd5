//! Blocks of time steps (docs/runtime.md "Blocks of time steps").
//!
//! A time loop whose steps each run two fused PARALLEL loops (convert_fuse.rs: the 3-D heat
//! program's stencil `U = f(V)` and copy `V = U`) streams both arrays through memory once a
//! step. The loop runs its steps in blocks of `W` (chosen at run time, `sapfor_skew_plan`: as
//! many as keep a wave within a third of the cache, at most `SAPFOR_SKEW`, default 32): a
//! wave `w` runs, for each step `s` of the block, the fused planes `w - s*D`, so a plane the
//! first step has just written is still in the cache when the later steps of the block come
//! to it. `D` (the skew) is one more than the farthest a step's planes reach into what the
//! previous step's planes touch (the 3-D heat program: 3), so every dependence between steps
//! points to an earlier wave, between steps m apart at least m waves back: each thread of the
//! fused loop's region runs consecutive steps of the block and starts a wave once the thread
//! before it has finished the wave before (`sapfor_tpipe_wait/post`). Each plane computes
//! what it computed before from the same values, and each step's planes run in the order
//! they ran: every result (reductions of reals too) is the sequential program's.
//!
//! On several processes that divide only the dimension of the planes, each step also
//! computes the neighbours' planes that the later steps of the block read: step `s` of `n`
//! the second loop's planes `(n-1-s)*R` past its own and the first loop's `r2` more, where
//! `r1` and `r2` are how far past its plane each loop reads and `R = r1 + r2`; the block
//! starts by renewing `W*R` planes of every array of the loops (shadow edges allocated that
//! wide for `W` up to 16), and the planes past a process's own count in no reduction (the
//! step's scalars as before the plane); each step's reductions are combined between
//! processes after the block. The neighbours' planes are computed from the same values as
//! the neighbour computes them, so each process's own planes hold what they would hold.
//!
//! The scalars a step assigns (constants before its loops, the loops' reductions) are kept
//! per step of the block (`sapfor_sk_x`) and set again before each of its planes; what
//! follows the loops in the step (output of those scalars, as `IF (MOD(IT,10) == 0) PRINT`)
//! runs for each step of the block in order after it. A last `IF (cond) EXIT` (or GO TO out
//! of the loop) on scalars: the arrays the loops write are kept at each block's start, the
//! steps' conditions tried after the block, and where one holds the arrays are put back and
//! the block computed again up to that step. One IF construct after the loops that does
//! more than output (`IF (MOD(IT, NPRINT) == 0) THEN` around a checksum loop and its PRINT),
//! its condition reading the time variable and names the step does not write: a block ends
//! at the first step where the condition holds (`do while` over the blocks), so the
//! construct's statements run after the block on the arrays as that step left them; they
//! are assignments, DO and IF constructs and output, write nothing the loops touch but their
//! DO variables, no kept scalar, and call nothing (a last IF that leaves the loop may
//! follow). Conditions: the time loop's body is
//! assignments of constants to scalars, the two fused loops, then only PRINT and WRITE (no
//! control list beyond unit and format), FORMAT and IF constructs of them that read the time
//! variable, those scalars and names the step does not write, no function of the program; a
//! step-1 DO with an INTEGER variable, no other jump; every array reference of the loops
//! indexes one dimension by the outermost loop's variable; loop bounds read nothing the step
//! writes; nothing the runtime adds around the loops but renewals, reductions and the
//! profile. On several processes also: every reference of a distributed array indexes one
//! dimension, the same for the array, by the variable plus a constant, 0 where it writes,
//! and no other dimension by it; no array in the loops' bounds. The loop is written twice:
//! in blocks where the width is 2 or more on every process (the arrays larger together than
//! half the process's share of the cache, and the shadow edges wide enough), as before
//! elsewhere. `SAPFOR_SKEW` at conversion sets the largest `W` (0 or 1: off).

use super::{fuse, names_in, plain_scalar, Cx, Omp, ParLoop};
use analyzer::access::Access;
use analyzer::ast::{BaseType, Expr, IoKind, Node, Stmt, StmtKind, Unit};
use analyzer::directives::Clause;
use std::collections::{BTreeMap, BTreeSet};

/// Scalars a step may keep (two 64-bit slots each, `sapfor_sk_x`).
const SLOTS: usize = 16;

/// The most steps a block runs on several processes: the shadow edges allocated for them
/// are as many times as wide as a step reads past its planes.
const GHOST_STEPS: i64 = 16;

/// A loop that may leave at any step copies its arrays once for a group of this many blocks
/// (at most `GROUP_STEPS` steps, the slots of `sapfor_sk_x`), and computes again up to the
/// step that leaves from the group's start: the copy is a pass over the arrays, as much as a
/// block of 3 steps of the DVM system's 3-D Jacobi at 256^3 on 2 processes (copied at every
/// block, `--profile` put 0.53-0.65 s of its run in sequential parts against 0.05-0.31 s
/// without its exit), and the steps computed again are at most the group's, once.
const GROUP_BLOCKS: i64 = 4;
const GROUP_STEPS: i64 = 64;

/// A time loop run in blocks of steps, by (file, the loop's first line) in `Cx::skews`.
pub(super) struct Skew {
    /// the loop's last line, its DO variable and bounds (text)
    pub last: u32,
    var: String,
    lo: String,
    hi: String,
    /// the fused loops' first line (`Cx::fusions`)
    fused: u32,
    /// lines of the step's assignments of constants (before and between the loops)
    consts: Vec<(u32, u32)>,
    /// the lines after the loops up to the terminal statement (excluded)
    tail: (u32, u32),
    /// the scalars kept per step
    kept: Vec<String>,
    /// the skew and the block's largest width (the run time chooses it, `sapfor_skew_plan`)
    skew: i64,
    width: i64,
    /// the arrays' bytes; the planes past its own a process may compute (`sapfor_skew_ghosts`
    /// of each array, 2^40 where it is the process's whole block, 0 where not on one
    /// process); how far past its planes each loop reads
    bytes: String,
    ghosts: String,
    reach: (i64, i64),
    /// the arrays (key, name, rank, the dimension of the planes) whose shadow edges a block
    /// renews at its start; the loops' bounds as written (first, last of each); whether
    /// they have reductions
    renew: Vec<(String, String, usize, usize)>,
    glob: Vec<String>,
    reds: bool,
    /// the condition on which the step's last statement leaves the loop, and the arrays the
    /// loops write (key, name), kept at the start of each block to compute it again up to
    /// the step that leaves
    leave: Option<String>,
    saved: Vec<(String, String)>,
    /// the arrays the loops write that need no copy (`rewritten_first`)
    fresh: Vec<String>,
    /// the condition of a block IF after the loops whose statements do more than output
    /// (`IF (MOD(IT, NPRINT) == 0) THEN` around a checksum loop): a block ends at a step
    /// where it holds, so that they run on the arrays as that step left them
    cut: Option<String>,
    /// the lines of FORMAT statements among the output (not written in the blocks)
    formats: Vec<(u32, u32)>,
    /// the labels the loops' lines define and those of the blocks' copy; how many DO
    /// statements name one (`super::relabel`)
    labels: BTreeMap<u32, u32>,
    label_dos: usize,
}

/// Whether a block that may leave the loop needs no copy of array `x` (lower case) to be
/// computed again up to the step that leaves: the first loop is a perfect nest whose
/// innermost statements, none inside an IF construct, are assignments, one of them to an
/// element of `x` reading nothing of `x`, the others reading `x` only where they give a value
/// to a variable of the loop's reductions (values the block keeps from its first
/// computation); the second loop does not write `x`. Then every value of `x` a step reads
/// (but for its reductions) is one its first loop wrote before, or one no step writes: the
/// values the block left in `x` serve as well as a copy of those at its start. `a2`: the
/// second loop's accesses.
fn rewritten_first(cx: &Cx, ui: usize, n1: &Node, pl1: &ParLoop, a2: &[Access], x: &str) -> bool {
    if a2.iter().any(|a| a.write && a.name.eq_ignore_ascii_case(x)) {
        return false;
    }
    let u = &cx.p.units[ui];
    let Some((_, body)) = super::swap::perfect(u, &[n1]) else { return false };
    let reds: BTreeSet<String> = pl1.clauses.iter().filter_map(|c| if let Clause::Reduction(r) = c { Some(r) } else { None }).flatten().map(|r| r.var.to_ascii_lowercase()).collect();
    let acx = super::access_ctx(cx.p, ui);
    let mut writes = false;
    for (st, cond) in body {
        let StmtKind::Assign { lhs, .. } = &st.kind else {
            if matches!(st.kind, StmtKind::Continue) {
                continue;
            }
            return false;
        };
        let (mut accs, mut calls) = (vec![], vec![]);
        acx.stmt_accesses(st, &mut accs, &mut calls);
        let of_x = |w: bool| accs.iter().any(|a| a.write == w && a.name.eq_ignore_ascii_case(x));
        if cond || !calls.is_empty() || accs.iter().any(|a| a.via_call.is_some()) {
            return false;
        }
        if of_x(true) {
            if of_x(false) || !matches!(lhs, Expr::Ref(..)) {
                return false;
            }
            writes = true;
        } else if of_x(false) && !lhs.base_name().is_some_and(|n| reds.contains(&n.to_ascii_lowercase())) {
            return false;
        }
    }
    writes
}

/// The DO loop whose body holds `n`.
fn parent<'n>(nodes: &'n [Node], n: &Node) -> Option<&'n Node> {
    for x in nodes {
        match x {
            Node::Do { body, .. } => {
                if body.iter().any(|b| std::ptr::eq(b, n)) {
                    return Some(x);
                }
                if let Some(p) = parent(body, n) {
                    return Some(p);
                }
            }
            Node::If { arms, .. } => {
                if let Some(p) = arms.iter().find_map(|(_, b)| parent(b, n)) {
                    return Some(p);
                }
            }
            Node::Stmt(_) => {}
        }
    }
    None
}

/// An assignment of a constant to a plain scalar, unlabelled: its variable.
fn const_assign(cx: &Cx, ui: usize, n: &Node) -> Option<String> {
    let u = &cx.p.units[ui];
    let Node::Stmt(id) = n else { return None };
    let s = u.stmt(*id);
    let StmtKind::Assign { lhs: Expr::Var(v), rhs } = &s.kind else { return None };
    let constant = matches!(rhs, Expr::Int(_) | Expr::Real(_) | Expr::Logical(_)) || matches!(rhs, Expr::Unary(_, x) if matches!(**x, Expr::Int(_) | Expr::Real(_)));
    (s.label.is_none() && constant && (cx.p.semas[ui].symbol(v).is_none() || plain_scalar(&cx.p.semas[ui], v)) && cx.segment(s).is_none()).then(|| v.to_ascii_lowercase())
}

/// Whether I/O statement `s` has no END=, ERR=, IOSTAT= or other control beyond unit and
/// format (no jump, nothing set).
fn unit_and_format_only(cx: &Cx, s: &Stmt) -> bool {
    let t = cx.stmt_text(s).to_ascii_lowercase().replace(' ', "");
    let controls = ["end=", "err=", "eor=", "iostat=", "iomsg=", "advance=", "rec=", "size=", "pos=", "id=", "asynchronous="];
    !controls.iter().any(|c| t.contains(c))
}

/// Whether the statements of `nodes` are output and IF constructs of output only, unlabelled,
/// each on lines of its own, collecting the names they read.
fn output_only(cx: &Cx, ui: usize, nodes: &[Node], reads: &mut BTreeSet<String>, formats: &mut Vec<(u32, u32)>) -> bool {
    let u = &cx.p.units[ui];
    let sema = &cx.p.semas[ui];
    let acx = super::access_ctx(cx.p, ui);
    let stmt_ok = |s: &Stmt, reads: &mut BTreeSet<String>| -> bool {
        if s.label.is_some() || cx.segment(s).is_some() {
            return false;
        }
        // (no function of the program: it might read what the loops write)
        let (mut accs, mut calls) = (vec![], vec![]);
        acx.stmt_accesses(s, &mut accs, &mut calls);
        if !calls.is_empty() || accs.iter().any(|a| a.via_call.is_some()) {
            return false;
        }
        let (cond, inner) = match &s.kind {
            StmtKind::LogicalIf(c, inner) => (Some(c), &inner.kind),
            k => (None, k),
        };
        let io = match inner {
            StmtKind::Io { kind: kind @ (IoKind::Print | IoKind::Write), reads: r, writes } if writes.is_empty() => {
                if !unit_and_format_only(cx, s) {
                    return false;
                }
                let names = names_in(&r.iter().collect::<Vec<_>>());
                if *kind == IoKind::Write && names.iter().any(|n| matches!(sema.type_of(n).base, BaseType::Character)) {
                    return false;
                }
                reads.extend(names);
                true
            }
            StmtKind::IfThen(c) | StmtKind::ElseIf(c) => {
                reads.extend(names_in(&[c]));
                true
            }
            StmtKind::Else | StmtKind::EndIf | StmtKind::Continue => true,
            _ => false,
        };
        if let Some(c) = cond {
            reads.extend(names_in(&[c]));
        }
        io
    };
    for n in nodes {
        let ok = match n {
            // (a FORMAT, labelled: not written in the blocks' copy; the loop's own, written
            // as converted, serves both)
            Node::Stmt(id) if matches!(u.stmt(*id).kind, StmtKind::Format) && cx.segment(u.stmt(*id)).is_none() => {
                formats.push((u.stmt(*id).span.line, u.stmt(*id).span.end_line));
                true
            }
            Node::Stmt(id) => stmt_ok(u.stmt(*id), reads),
            Node::If { arms, end } => {
                arms.iter().all(|(h, b)| stmt_ok(u.stmt(*h), reads) && output_only(cx, ui, b, reads, formats)) && end.is_none_or(|e| stmt_ok(u.stmt(e), reads))
            }
            Node::Do { .. } => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether `nodes`, the statements of a block IF that ends blocks of steps, are what it may
/// run after a block: assignments, DO and IF constructs, PRINT and WRITE (control beyond
/// unit and format none), unlabelled but FORMAT (collected), no jump, call or function of
/// the program; the names they write are added to `writes`.
fn cut_body_ok(cx: &Cx, ui: usize, nodes: &[Node], writes: &mut BTreeSet<String>, formats: &mut Vec<(u32, u32)>) -> bool {
    let u = &cx.p.units[ui];
    let acx = super::access_ctx(cx.p, ui);
    let mut ok = true;
    analyzer::ast::for_each_stmt(u, nodes, &mut |st| {
        if cx.segment(st).is_some() {
            ok = false;
            return;
        }
        if matches!(st.kind, StmtKind::Format) {
            formats.push((st.span.line, st.span.end_line));
            return;
        }
        let inner = match &st.kind {
            StmtKind::LogicalIf(_, inner) => &inner.kind,
            k => k,
        };
        let plain = match inner {
            StmtKind::Assign { .. } | StmtKind::EndDo | StmtKind::IfThen(_) | StmtKind::ElseIf(_) | StmtKind::Else | StmtKind::EndIf | StmtKind::Continue => true,
            StmtKind::Do { label, .. } => label.is_none(),
            StmtKind::Io { kind: IoKind::Print | IoKind::Write, writes: w, .. } if w.is_empty() => unit_and_format_only(cx, st),
            _ => false,
        };
        let (mut accs, mut calls) = (vec![], vec![]);
        acx.stmt_accesses(st, &mut accs, &mut calls);
        if !plain || st.label.is_some() || !calls.is_empty() || accs.iter().any(|a| a.via_call.is_some()) {
            ok = false;
            return;
        }
        writes.extend(accs.iter().filter(|a| a.write).map(|a| a.name.to_ascii_lowercase()));
    });
    ok
}

/// Whether the time loop around fused loops `pl1` and `pl2` (convert_fuse.rs, placed
/// already: `Cx::fusions`) may run in blocks of steps, and how; recorded in `Cx::skews`.
/// Where the loops are in a DO loop that may not, a note says why (`sapfor build --explain`).
pub(super) fn plan(cx: &mut Cx, ui: usize, dos: &[&Node], pl1: &ParLoop, pl2: &ParLoop, vis: &BTreeMap<String, String>) {
    let mut why = None;
    if plan_with(cx, ui, dos, pl1, pl2, vis, &mut why).is_none() {
        if let Some((file, line, msg)) = why {
            cx.note(file, line, format!("this loop runs its steps in order, not in blocks of steps: {msg}"));
        }
    }
}

/// `plan`; `why`: (file, line of the DO loop around the fused loops, the reason it runs its
/// steps in order) where a reason is worth telling.
#[allow(clippy::too_many_arguments)]
fn plan_with(cx: &mut Cx, ui: usize, dos: &[&Node], pl1: &ParLoop, pl2: &ParLoop, vis: &BTreeMap<String, String>, why: &mut Option<(analyzer::source::FileId, u32, String)>) -> Option<()> {
    let width = match std::env::var("SAPFOR_SKEW") {
        Ok(v) => v.trim().parse::<i64>().ok()?.min(64),
        Err(_) => 32,
    };
    if width <= 1 {
        return None;
    }
    let p = cx.p;
    let u: &Unit = &p.units[ui];
    let sema = &p.semas[ui];
    let fid = u.file;
    let (n1, n2) = (dos[pl1.outer], dos[pl2.outer]);
    let (Node::Do { header: hd1, .. }, Node::Do { header: hd2, .. }) = (n1, n2) else { return None };
    let (s1, s2) = (u.stmt(*hd1), u.stmt(*hd2));
    let fused = s1.span.line;
    let f = cx.fusions.get(&(fid.0, fused))?;
    if !f.known {
        return None;
    }
    // the time loop: a counted DO of step 1 with an INTEGER variable, its body the fused loops
    // between assignments of constants, then output
    let t = parent(&u.body, n1)?;
    let Node::Do { header, body, end } = t else { return None };
    let h = u.stmt(*header);
    let refuse = |why: &mut Option<_>, msg: String| -> Option<()> {
        *why = Some((h.span.file, h.span.line, msg));
        None
    };
    let StmtKind::Do { label, var, step, .. } = &h.kind else { return None };
    let tvar = var.to_ascii_lowercase();
    if h.label.is_some() || h.name.is_some() || h.span.file != fid || super::shares_terminal(u, h.id) || step.as_ref().is_some_and(|s| sema.eval_int(s) != Some(1)) {
        return refuse(why, "it is not a counted DO of step 1 with a terminal of its own".into());
    }
    // (an implicitly typed variable has no symbol)
    let scalar = |v: &str| sema.symbol(v).is_none() || plain_scalar(sema, v);
    if !scalar(&tvar) || !matches!(sema.type_of(&tvar).base, BaseType::Integer) {
        return refuse(why, format!("its variable {} is not a plain INTEGER", tvar.to_uppercase()));
    }
    let i1 = body.iter().position(|b| std::ptr::eq(b, n1))?;
    let i2 = body.iter().position(|b| std::ptr::eq(b, n2))?;
    let mut kept = BTreeSet::new();
    for b in body[..i1].iter().chain(&body[i1 + 1..i2]) {
        match const_assign(cx, ui, b) {
            Some(v) => kept.insert(v),
            None => return refuse(why, "a statement before the loops does more than give a constant to a scalar".into()),
        };
    }
    // (a labelled DO's terminal statement, a CONTINUE, is not written in the blocks)
    let mut tail = &body[i2 + 1..];
    if label.is_some() {
        let (last, rest) = tail.split_last()?;
        let Node::Stmt(id) = last else { return None };
        if !matches!(u.stmt(*id).kind, StmtKind::Continue) || u.stmt(*id).label != *label {
            return refuse(why, "its terminal statement is not a CONTINUE".into());
        }
        tail = rest;
    } else if end.is_none() {
        return None;
    }
    // (the last statement may leave the loop: `IF (EPS .LT. TOL) EXIT`, or GO TO a label
    // outside it; the condition reads scalars only)
    let mut leave = None;
    if let Some(Node::Stmt(id)) = tail.last() {
        let st = u.stmt(*id);
        if let StmtKind::LogicalIf(c, inner) = &st.kind {
            let out_label = |l: &u32| u.stmts.iter().all(|o| o.label != Some(*l) || o.span.line < h.span.line || o.span.line > super::last_line(u, t));
            if matches!(inner.kind, StmtKind::Exit(None)) || matches!(&inner.kind, StmtKind::Goto(l) if out_label(l)) {
                leave = Some((st, c));
                tail = &tail[..tail.len() - 1];
            }
        }
    }
    let mut tail_reads = BTreeSet::new();
    let mut formats = vec![];
    // (one block IF that does more than output, its condition on the time variable alone:
    // blocks end where it holds, its statements run after the block)
    let mut cut = None;
    let mut cut_writes = BTreeSet::new();
    let mut cut_reads = BTreeSet::new();
    {
        let candidate = tail.iter().position(|n| matches!(n, Node::If { .. }) && !output_only(cx, ui, std::slice::from_ref(n), &mut BTreeSet::new(), &mut vec![]));
        if let Some(i) = candidate {
            let Node::If { arms, end: Some(e) } = &tail[i] else { return None };
            let hd = u.stmt(arms[0].0);
            let body_ok = arms.len() == 1 && hd.label.is_none() && u.stmt(*e).label.is_none() && cx.segment(hd).is_none();
            let StmtKind::IfThen(c) = &hd.kind else { return None };
            let (mut accs, mut calls) = (vec![], vec![]);
            super::access_ctx(p, ui).stmt_accesses(hd, &mut accs, &mut calls);
            if !body_ok || !calls.is_empty() || accs.iter().any(|a| a.via_call.is_some() || a.subs.is_some()) || !cut_body_ok(cx, ui, &arms[0].1, &mut cut_writes, &mut formats) {
                return refuse(why, format!("the IF construct at line {} after the loops does more than assignments, DO and IF constructs and output, or holds a jump, a label, a call or a function of the program", hd.span.line));
            }
            cut_reads = names_in(&[c]);
            let t = cx.stmt_text(hd);
            let open = t.find('(')?;
            let close = crate::text::matching_paren(&t, open)?;
            cut = Some((hd.span.line, t[open + 1..close].trim().to_string()));
            let mut rest = tail.to_vec();
            rest.remove(i);
            if !output_only(cx, ui, &rest, &mut tail_reads, &mut formats) {
                return refuse(why, "after the loops it does more than output (PRINT, WRITE, FORMAT, IF of them, no function of the program), one IF construct on the time variable and a last IF that leaves the loop".into());
            }
        }
    }
    if cut.is_none() && !output_only(cx, ui, tail, &mut tail_reads, &mut formats) {
        return refuse(why, "after the loops it does more than output (PRINT, WRITE, FORMAT, IF of them, no function of the program) and a last IF that leaves the loop".into());
    }
    let mut cond_reads = BTreeSet::new();
    let leave = match leave {
        Some((st, c)) => {
            if st.label.is_some() || cx.segment(st).is_some() {
                return None;
            }
            let (mut accs, mut calls) = (vec![], vec![]);
            super::access_ctx(p, ui).stmt_accesses(st, &mut accs, &mut calls);
            cond_reads = names_in(&[c]);
            if !calls.is_empty() || accs.iter().any(|a| a.via_call.is_some() || a.subs.is_some()) || cond_reads.iter().any(|n| sema.is_array(n)) {
                return refuse(why, "the condition to leave the loop reads an array or calls a function".into());
            }
            // the condition's text, as written: `IF (` cond `)`
            let t = cx.stmt_text(st);
            let open = t.find('(')?;
            let close = crate::text::matching_paren(&t, open)?;
            Some(t[open + 1..close].trim().to_string())
        }
        None => None,
    };
    tail_reads.extend(cond_reads);
    // what the loops touch
    let (a1, a2) = (fuse::touched(cx, ui, n1)?, fuse::touched(cx, ui, n2)?);
    // (a reduction's variable is set by the step before its loop: a sum carried from step to
    // step would need the steps in order)
    for pl in [pl1, pl2] {
        for c in &pl.clauses {
            if let Clause::Reduction(reds) = c {
                if let Some(r) = reds.iter().find(|r| !kept.contains(&r.var.to_ascii_lowercase())) {
                    return refuse(why, format!("the reduction of {} is not given a constant before the loops each step: it runs on from step to step", r.var.to_uppercase()));
                }
            }
        }
    }
    if kept.len() > SLOTS || kept.iter().any(|k| !scalar(k) || matches!(sema.type_of(k).base, BaseType::Character)) {
        return refuse(why, format!("a step sets more than {SLOTS} scalars, or one that is not a plain number or logical"));
    }
    let written: BTreeSet<String> = a1.iter().chain(&a2).filter(|a| a.write).map(|a| a.name.to_ascii_lowercase()).chain(kept.iter().cloned()).chain([tvar.clone()]).collect();
    // the output reads the step's kept scalars and what the step does not write
    if let Some(n) = tail_reads.iter().find(|n| written.contains(*n) && !kept.contains(*n) && **n != tvar) {
        return refuse(why, format!("the statements after the loops read {}, which the loops write", n.to_uppercase()));
    }
    // every DO of the loops: bounds reading nothing the step writes but the loops' own DO
    // variables (their planes are the same each step); labels, renumbered in the copy
    let mut do_vars = BTreeSet::new();
    let mut bound_names = BTreeSet::new();
    let mut defined = vec![];
    let mut label_dos = 0;
    for n in [n1, n2] {
        analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
            if let StmtKind::Do { var, lo, hi, step, label } = &st.kind {
                do_vars.insert(var.to_ascii_lowercase());
                let mut es = vec![lo, hi];
                es.extend(step.as_ref());
                bound_names.extend(names_in(&es));
                // (the outermost DO statements are not written: the fusion replaced them)
                label_dos += usize::from(label.is_some() && st.id != s1.id && st.id != s2.id);
            }
            defined.extend(st.label);
        });
    }
    // the IF that ends blocks: its condition reads the time variable and names nothing in
    // the step writes; its statements write nothing the loops touch, no kept scalar, not the
    // time variable and nothing the condition reads
    if let Some((line, _)) = &cut {
        // (the loops' DO variables are set again before every use)
        let touched: BTreeSet<String> = a1.iter().chain(&a2).map(|a| a.name.to_ascii_lowercase()).filter(|n| !do_vars.contains(n)).collect();
        if let Some(n) = cut_reads.iter().find(|n| **n != tvar && (written.contains(*n) || cut_writes.contains(*n) || sema.is_array(n))) {
            return refuse(why, format!("the condition of the IF construct at line {line} reads {}, which the step writes or which is an array", n.to_uppercase()));
        }
        if let Some(n) = cut_writes.iter().find(|n| touched.contains(*n) || kept.contains(*n) || **n == tvar) {
            return refuse(why, format!("the IF construct at line {line} writes {}, which the loops or the step use", n.to_uppercase()));
        }
    }
    if let Some(n) = bound_names.iter().find(|n| written.contains(*n) && !do_vars.contains(*n)) {
        return refuse(why, format!("a bound of the loops reads {}, which the step writes", n.to_uppercase()));
    }
    // the skew: one more than the farthest a step's planes reach into the planes of the step
    // before (the first loop's plane k runs in wave k + s*D, the second's plane j in wave
    // j + lag + s*D)
    let do_var = |s: &Stmt| match &s.kind {
        StmtKind::Do { var, .. } => Some(var.to_ascii_lowercase()),
        _ => None,
    };
    let (v1, v2) = (do_var(s1)?, do_var(s2)?);
    let lag = f.lag;
    let (Some((r11, _)), Some((r22, _)), Some((r21, _)), Some((r12, _))) =
        (fuse::reach(sema, &a1, &v1, &a1, &v1), fuse::reach(sema, &a2, &v2, &a2, &v2), fuse::reach(sema, &a2, &v2, &a1, &v1), fuse::reach(sema, &a1, &v1, &a2, &v2))
    else {
        return refuse(why, "a pair of references in the loops does not index one dimension by the outermost loop's variable".into());
    };
    let skew = [1, r11 + 1, r22 + 1, r21 + lag + 1, r12 - lag + 1].into_iter().max()?;
    // every distributed array of the loops indexes one dimension by the planes' variable:
    // on several processes, where no other dimension is divided, each step computes its
    // planes and, from shadow edges renewed at the block's start, as many of its neighbours'
    // as the later steps of the block read (each plane the same values the neighbour
    // computes). How far past its planes a step reads: the first loop's reads reach `r1`,
    // the second's `r2`; writes only at the plane itself
    let (mut r1, mut r2) = (0i64, 0i64);
    let mut ghost_ok = true;
    let mut dims: BTreeMap<String, usize> = BTreeMap::new();
    for (accs, v, r) in [(&a1, &v1, &mut r1), (&a2, &v2, &mut r2)] {
        for a in accs.iter() {
            let name = a.name.to_ascii_lowercase();
            if !vis.contains_key(&name) {
                continue;
            }
            let mut at = None;
            for (d, x) in a.subs.iter().flatten().enumerate() {
                match super::offset(x, v) {
                    Some(o) if at.is_none() => at = Some((d, o)),
                    Some(_) => ghost_ok = false,
                    None => ghost_ok &= x.expr().is_none_or(|e| !names_in(&[e]).contains(v.as_str())),
                }
            }
            match at {
                Some((d, o)) if (!a.write || o == 0) && *dims.entry(name).or_insert(d) == d => *r = (*r).max(o.abs()),
                _ => ghost_ok = false,
            }
        }
    }
    // (the loops' bounds as written, which the extended planes stay within)
    let mut glob = vec![];
    for st in [s1, s2] {
        let StmtKind::Do { lo, hi, .. } = &st.kind else { return None };
        ghost_ok &= !names_in(&[lo, hi]).iter().any(|n| sema.is_array(n));
        let (_, parts) = crate::text::do_parts(&cx.stmt_text(st))?;
        glob.push(parts.first()?.trim().to_string());
        glob.push(parts.get(1)?.trim().to_string());
    }
    let reach = r1 + r2;
    let mut ghosts: Vec<String> = vec![];
    let mut saved: Vec<(String, String)> = vec![];
    // (arrays a block computed again needs no copy of)
    let mut fresh: Vec<String> = vec![];
    let mut renew: Vec<(String, String, usize, usize)> = vec![];
    let mut sizes: Vec<String> = vec![];
    for a in a1.iter().chain(&a2) {
        let name = a.name.to_ascii_lowercase();
        if let Some(key) = vis.get(&name) {
            if !sizes.contains(&format!("sapfor_block_bytes(sh_{key})")) {
                sizes.push(format!("sapfor_block_bytes(sh_{key})"));
                let d = dims.get(&name).copied().filter(|_| ghost_ok);
                ghosts.push(format!("sapfor_skew_ghosts(sh_{key}, {}_c_int)", d.map_or(0, |d| d + 1)));
                let rank = cx.arrays.get(key).map_or(0, |x| x.bounds.len());
                if let Some(d) = d.filter(|_| reach > 0 && rank > 0) {
                    renew.push((key.clone(), name.clone(), rank, d));
                }
            }
            if a.write && !saved.iter().any(|(k, _)| k == key) && !fresh.contains(&name) {
                if rewritten_first(cx, ui, n1, pl1, &a2, &name) {
                    fresh.push(name);
                } else {
                    saved.push((key.clone(), name));
                }
            }
        } else if a.write && sema.is_array(&name) {
            return refuse(why, format!("the loops write {}, which is not distributed", name.to_uppercase()));
        }
    }
    if sizes.is_empty() {
        return None;
    }
    // the time loop's bounds as written
    let ht = cx.current_lines(h);
    let [ht] = &ht[..] else { return None };
    let (_, parts) = crate::text::do_parts(ht)?;
    let (lo, hi) = (parts.first()?.trim().to_string(), parts.get(1)?.trim().to_string());
    // lines: nothing added around the time loop's first and last lines, the constants' lines
    // or the fused loops' first lines but what the fusion wrote
    let last = super::last_line(u, t);
    let term = match (end, body.last()) {
        (Some(e), _) => u.stmt(*e).span.line,
        (None, Some(Node::Stmt(id))) => u.stmt(*id).span.line,
        _ => return None,
    };
    let f = cx.fusions.get(&(fid.0, fused))?;
    let consts = vec![(h.span.line + 1, fused - 1), (f.last1 + 1, f.first2 - 1)];
    let tail_lines = (super::last_line(u, n2) + 1, term - 1);
    let added = |m: &BTreeMap<(u32, u32), Vec<String>>, l: u32| m.get(&(fid.0, l)).is_some_and(|v| !v.is_empty());
    let quiet = |l: u32| !added(&cx.before, l) && !added(&cx.after, l);
    if !quiet(fused) || !quiet(f.first2) || added(&cx.after, f.last) || added(&cx.after, h.span.line) || added(&cx.before, term) || term != last {
        return None;
    }
    if consts.iter().any(|(a, b)| (*a..=*b).any(|l| !quiet(l))) {
        return None;
    }
    // (statements on the constants' and output's lines are those of the time loop's body)
    let ids: BTreeSet<analyzer::ast::StmtId> = {
        let mut s = BTreeSet::new();
        for b in body {
            super::collect_stmts(u, b, &mut s);
        }
        s
    };
    let on = |a: u32, b: u32| u.stmts.iter().filter(|s| s.span.file == fid && s.span.line <= b && s.span.end_line >= a).all(|s| ids.contains(&s.id) || s.id == *header);
    if !consts.iter().all(|(a, b)| a > b || on(*a, *b)) || !(tail_lines.0 > tail_lines.1 || on(tail_lines.0, tail_lines.1)) {
        return None;
    }
    // labels of the loops, fresh ones for the copy
    let next = cx.fresh_labels.entry(ui).or_insert_with(|| u.stmts.iter().filter_map(|s| s.label).max().unwrap_or(0) + 1);
    let mut labels = BTreeMap::new();
    for l in defined {
        labels.insert(l, *next);
        *next += 1;
    }
    if labels.values().any(|l| *l > 99_999) {
        return None;
    }
    // the shadow edges the blocks need, allocated (INHERIT dummies: their actual arguments')
    for (key, _, _, d) in &renew {
        let want = width.min(GHOST_STEPS) * reach;
        let mut keys = vec![key.clone()];
        if let Some(x) = cx.arrays.get(key) {
            keys.extend(x.actuals.iter().cloned());
        }
        for k in keys {
            if let Some(x) = cx.arrays.get_mut(&k) {
                x.ghosts.resize(x.bounds.len(), 0);
                if let Some(g) = x.ghosts.get_mut(*d) {
                    *g = (*g).max(want);
                }
            }
        }
    }
    formats.sort();
    let s = Skew {
        last,
        var: tvar,
        lo,
        hi,
        fused,
        consts,
        tail: tail_lines,
        kept: kept.into_iter().collect(),
        skew,
        width,
        bytes: sizes.join(" + "),
        ghosts: format!("min({}, {}_c_int64_t)", ghosts.join(", "), 1_i64 << 40),
        reach: (r1, r2),
        renew,
        glob,
        reds: [pl1, pl2].iter().any(|pl| pl.clauses.iter().any(|c| matches!(c, Clause::Reduction(_)))),
        saved: if leave.is_some() { saved } else { vec![] },
        fresh: if leave.is_some() { fresh } else { vec![] },
        leave,
        cut: cut.as_ref().map(|(_, c)| c.clone()),
        formats,
        labels,
        label_dos,
    };
    let mut leaving = String::new();
    if let Some((line, _)) = &cut {
        leaving.push_str(&format!("; a block ends at a step where the condition of the IF construct at line {line} holds, whose statements then run on the arrays as that step left them"));
    }
    if s.leave.is_some() {
        // (without an IF construct that ends blocks: one copy for a group of blocks)
        let unit = if s.cut.is_none() { format!("group of up to {GROUP_BLOCKS} blocks ({GROUP_STEPS} steps at most)") } else { "block".to_string() };
        if s.fresh.is_empty() {
            leaving.push_str(&format!("; where a step leaves the loop, the {unit} is computed again from a copy of the arrays up to that step"));
        } else {
            let up: Vec<String> = s.fresh.iter().map(|x| x.to_uppercase()).collect();
            let kept: Vec<String> = s.saved.iter().map(|(_, x)| x.to_uppercase()).collect();
            let from = if kept.is_empty() { "as it left its arrays".to_string() } else { format!("from a copy of {} made at its start", kept.join(", ")) };
            let (need, it) = if up.len() == 1 { ("needs", "it") } else { ("need", "each") };
            leaving.push_str(&format!("; where a step leaves the loop, the {unit} is computed again up to that step {from} ({} {need} none: the first loop gives {it} every value a step reads of {it} before reading {it}, but in its reductions, whose values the first computation keeps)", up.join(", ")));
        }
    }
    cx.note(
        fid,
        h.span.line,
        format!("where the arrays of its two loops do not fit in the cache together (on one process, or on processes that divide only the dimension of its planes, each also computing the neighbours' planes that its later steps read), this time loop runs its steps in blocks of up to {width} (as many as keep a wave of the block within a third of the cache), each step {skew} planes behind the one before, so that the later steps find in the cache what the earlier ones wrote{leaving} (the same values as in order; SAPFOR_SKEW=0 at conversion keeps the steps in order)"),
    );
    cx.skews.insert((fid.0, h.span.line), s);
    Some(())
}

/// Write the time loop `s` whose first line is `ln` of file `id` twice: in blocks of steps
/// where every array is this process's whole block (`blocks`), else as converted.
pub(super) fn emit(cx: &Cx, id: analyzer::source::FileId, ln: u32, s: &Skew, out: &mut String, stack: &mut Vec<u32>) {
    super::push_lines(out, cx.before.get(&(id.0, ln)).map_or(&[][..], |b| &b[..]));
    // (labels not found where the statements put them: as converted only)
    let blocks = blocks(cx, id, s, stack);
    if let Some(b) = &blocks {
        // (the width, the same on every process: 0 where the loop runs as converted)
        let f = &cx.fusions[&(id.0, s.fused)];
        let mut o: Vec<String> = f.bounds.clone();
        o.push(format!("sapfor_sk_g = {}", s.ghosts));
        o.push(format!(
            "sapfor_sk_wd = sapfor_skew_plan({}, max(sapfor_fu_h1, sapfor_fu_h2 + {lag}) - min(sapfor_fu_l1, sapfor_fu_l2 + {lag}) + 1, {}_c_int64_t, {}_c_int64_t, sapfor_sk_g, {}_c_int64_t)",
            s.bytes,
            s.skew,
            s.width,
            s.reach.0 + s.reach.1,
            lag = f.lag
        ));
        o.push("if (sapfor_sk_wd >= 2) then".into());
        super::push_lines(out, &o);
        out.push_str(b);
        out.push_str("else\n");
    }
    super::emit_range_inner(cx, id, ln, s.last, out, stack);
    if blocks.is_some() {
        out.push_str("end if\n");
    }
    super::push_lines(out, cx.after.get(&(id.0, s.last)).map_or(&[][..], |a| &a[..]));
}

/// The lines of time loop `s` of file `id` in blocks of steps (None where the fused loops'
/// labels cannot be renumbered).
fn blocks(cx: &Cx, id: analyzer::source::FileId, s: &Skew, stack: &mut Vec<u32>) -> Option<String> {
    let f = cx.fusions.get(&(id.0, s.fused))?;
    let mut loops = String::new();
    fuse::body(cx, id, s.fused, f, &mut loops, stack);
    let mut loops = super::relabel(&loops, &s.labels, s.label_dos)?;
    let mut out = String::new();
    let out = &mut out;
    let lines = |a: u32, b: u32, stack: &mut Vec<u32>| {
        let mut o = String::new();
        let mut synced = false;
        for j in a..=b {
            super::emit_line(cx, id, j, &mut o, stack, &mut synced, false, false);
        }
        o
    };
    // (loops in the output written otherwise: as converted only)
    if (s.tail.0..=s.tail.1).any(|l| [cx.fusions.contains_key(&(id.0, l)), cx.skews.contains_key(&(id.0, l)), cx.versions.contains_key(&(id.0, l))].contains(&true)) {
        return None;
    }
    let consts: String = s.consts.iter().map(|(a, b)| lines(*a, *b, stack)).collect();
    let mut tail = String::new();
    let mut from = s.tail.0;
    for (a, b) in s.formats.iter().copied().chain([(s.tail.1 + 1, s.tail.1)]) {
        if a > from {
            tail.push_str(&lines(from, a - 1, stack));
        }
        from = from.max(b + 1);
    }
    let (d, lag, v) = (s.skew, f.lag, &s.var);
    // (a loop that may leave runs its blocks in groups, `sapfor_sk_m` steps from one copy of
    // its arrays: the waves of each block of the group, `sapfor_sk_q` steps into it, keep
    // their steps' scalars in the group's slots)
    let group = s.leave.is_some() && s.cut.is_none();
    let at_step = if group { "sapfor_sk_q + sapfor_sk_s" } else { "sapfor_sk_s" };
    let save_at = |at: &str| -> Vec<String> { s.kept.iter().enumerate().map(|(i, x)| format!("call sapfor_keep_bytes(sapfor_sk_x({}, {at}), {x}, int(storage_size({x}) / 8, c_int64_t))", 2 * i + 1)).collect() };
    let load_at = |at: &str| -> Vec<String> { s.kept.iter().enumerate().map(|(i, x)| format!("{x} = transfer(sapfor_sk_x({}:{}, {at}), {x})", 2 * i + 1, 2 * i + 2)).collect() };
    let (save, load) = (save_at("sapfor_sk_s"), load_at("sapfor_sk_s"));
    let (save_w, load_w) = (save_at(at_step), load_at(at_step));
    let step = format!("{v} = int(sapfor_sk_b + sapfor_sk_s, kind({v}))");
    let step_w = format!("{v} = int(sapfor_sk_b + {at_step}, kind({v}))");
    // (the steps of a block, or of a group of blocks)
    let steps = if group { "sapfor_sk_m" } else { "sapfor_sk_n" };
    // (on several processes: a plane past the process's own counts in no reduction, the
    // step's scalars as they were before it)
    if s.reds {
        let at = loops.find("sapfor_fu_j = sapfor_fu_k - merge(")?;
        let mut mid = vec!["if (sapfor_fu_k < sapfor_sk_o1 .or. sapfor_fu_k > sapfor_sk_o2) then".to_string()];
        mid.extend(load_w.iter().cloned());
        mid.push("else".into());
        mid.extend(save_w.iter().cloned());
        mid.push("end if".into());
        let mut m = String::new();
        super::push_lines(&mut m, &mid);
        loops.insert_str(at, &m);
        let mut end = vec!["if (sapfor_fu_j < sapfor_sk_o3 .or. sapfor_fu_j > sapfor_sk_o4) then".to_string()];
        end.extend(load_w.iter().cloned());
        end.push("end if".into());
        super::push_lines(&mut loops, &end);
    }
    let (r1, r2) = s.reach;
    let reach = r1 + r2;
    let [gl1, gh1, gl2, gh2] = &s.glob[..] else { return None };
    let mut o: Vec<String> = vec![];
    o.push(format!("sapfor_sk_t0 = int({}, c_int64_t)", s.lo));
    o.push(format!("sapfor_sk_t1 = int({}, c_int64_t)", s.hi));
    o.push("sapfor_fu_p = 1".into());
    o.push("sapfor_fu_r = .true.".into());
    // (the planes of this process: the loops' bounds as the emit's plan set them; every
    // plane passes the second loop's test of the passes)
    o.push("sapfor_sk_o1 = sapfor_fu_l1".into());
    o.push("sapfor_sk_o2 = sapfor_fu_h1".into());
    o.push("sapfor_sk_o3 = sapfor_fu_l2".into());
    o.push("sapfor_sk_o4 = sapfor_fu_h2".into());
    o.push(format!("sapfor_fu_a = min(int({gl1}, c_int64_t), int({gl2}, c_int64_t)) - {}", f.behind));
    o.push(format!("sapfor_fu_b = max(int({gh1}, c_int64_t), int({gh2}, c_int64_t)) + {lag}"));
    if s.leave.is_some() {
        o.push("sapfor_sk_e = 0".into());
    }
    if f.omp.is_some() {
        o.push("sapfor_sk_c = 0".into());
        o.push("call sapfor_tpipe_clear()".into());
    }
    match &s.cut {
        None if group => {
            o.push(format!("sapfor_sk_sw = min({GROUP_STEPS}_c_int64_t, {GROUP_BLOCKS} * sapfor_sk_wd)"));
            o.push("do sapfor_sk_b = sapfor_sk_t0, sapfor_sk_t1, sapfor_sk_sw".into());
            o.push("sapfor_sk_m = min(sapfor_sk_sw, sapfor_sk_t1 - sapfor_sk_b + 1)".into());
        }
        None => {
            o.push("do sapfor_sk_b = sapfor_sk_t0, sapfor_sk_t1, sapfor_sk_wd".into());
            o.push("sapfor_sk_n = min(sapfor_sk_wd, sapfor_sk_t1 - sapfor_sk_b + 1)".into());
        }
        // (the block ends at the first step whose IF holds)
        Some(c) => {
            o.push("sapfor_sk_b = sapfor_sk_t0".into());
            o.push("do while (sapfor_sk_b <= sapfor_sk_t1)".into());
            o.push("sapfor_sk_n = min(sapfor_sk_wd, sapfor_sk_t1 - sapfor_sk_b + 1)".into());
            o.push("do sapfor_sk_s = 0, sapfor_sk_n - 2".into());
            o.push(step.clone());
            o.push(format!("if ({c}) exit"));
            o.push("end do".into());
            o.push("sapfor_sk_n = min(sapfor_sk_n, sapfor_sk_s + 1)".into());
        }
    }
    // (the neighbours' planes the block reads, as they are at its start)
    let widths = |rank: usize, d: usize| (0..rank).map(|e| if e == d { format!("sapfor_sk_wd * {reach}") } else { "0_c_int64_t".into() }).collect::<Vec<_>>().join(", ");
    let renewals: Vec<String> = s.renew.iter().map(|(k, x, rank, d)| format!("call sapfor_shadow_renew(sh_{k}, {x}, [integer(c_int64_t) :: {w}], [integer(c_int64_t) :: {w}])", w = widths(*rank, *d))).collect();
    if !group {
        o.extend(renewals.iter().cloned());
    }
    // (where a step may leave the loop: the arrays kept, the block computed, and again from
    // them up to the first step that leaves)
    if s.leave.is_some() {
        o.extend(s.saved.iter().map(|(k, x)| format!("call sapfor_block_save(sh_{k}, {x})")));
        o.push("do sapfor_sk_r = 1, 2".into());
    }
    // each step's constants
    o.push(format!("do sapfor_sk_s = 0, {steps} - 1"));
    super::push_lines(out, &o);
    o.clear();
    out.push_str(&consts);
    // (on several processes each step's reductions start from the identity but on process 0)
    const VAR: &str = "call sapfor_red_var(";
    let (reds, combine) = f.reductions();
    o.extend(reds.iter().filter_map(|l| l.strip_prefix(VAR)).map(|args| format!("call sapfor_red_identity({args}")));
    o.extend(save.iter().cloned());
    o.push("end do".into());
    // (a group's blocks, each from the neighbours' planes as they are at its start)
    if group {
        o.push("do sapfor_sk_q = 0, sapfor_sk_m - 1, sapfor_sk_wd".into());
        o.push("sapfor_sk_n = min(sapfor_sk_wd, sapfor_sk_m - sapfor_sk_q)".into());
        o.extend(renewals.iter().cloned());
    }
    // the waves' planes: the step that reaches furthest past this process's planes, the
    // first, within the loops' bounds
    let ext = format!("((sapfor_sk_n - 1) * {reach} + {r2})");
    o.push(format!("sapfor_sk_l = max(min(int({gl1}, c_int64_t), int({gl2}, c_int64_t) + {lag}), min(sapfor_sk_o1, sapfor_sk_o3 + {lag}) - {ext})"));
    o.push(format!("sapfor_sk_h = min(max(int({gh1}, c_int64_t), int({gh2}, c_int64_t) + {lag}), max(sapfor_sk_o2, sapfor_sk_o4 + {lag}) + {ext})"));
    o.push(f.begin.clone());
    // the waves; a wave's steps on the region's threads
    let omp = f.omp.as_ref().map(|x| {
        let mut scalars: Vec<String> = x.scalars.iter().filter(|n| !matches!(n.as_str(), "sapfor_fu_a" | "sapfor_fu_b" | "sapfor_fu_p")).cloned().collect();
        for n in s.kept.iter().map(String::as_str).chain([v.as_str(), "sapfor_sk_w", "sapfor_sk_s", "sapfor_sk_p0", "sapfor_sk_p1", "sapfor_fu_l1", "sapfor_fu_h1", "sapfor_fu_l2", "sapfor_fu_h2"]) {
            if !scalars.iter().any(|o| o.eq_ignore_ascii_case(n)) {
                scalars.push(n.to_string());
            }
        }
        Omp { work: x.work.clone(), copyin: x.copyin.clone(), scalars, arrays: x.arrays.clone(), reds: vec![] }
    });
    // (threads: each runs consecutive steps of the block, and a wave once the thread before
    // it has finished the wave before: every dependence runs from a step to a later one in a
    // later wave, at least as many waves later as threads apart)
    if let Some(x) = &omp {
        o.push(x.line("!$omp parallel"));
        o.push("call sapfor_tpipe_part(0_c_int64_t, sapfor_sk_n - 1, 1_c_int64_t, sapfor_sk_p0, sapfor_sk_p1)".into());
    }
    o.push(format!("do sapfor_sk_w = sapfor_sk_l, sapfor_sk_h + (sapfor_sk_n - 1) * {d}"));
    let (first, last) = if omp.is_some() {
        o.push("call sapfor_tpipe_wait(sapfor_sk_c + sapfor_sk_w - sapfor_sk_l)".into());
        ("sapfor_sk_p0, ", "sapfor_sk_p1, ")
    } else {
        ("", "")
    };
    o.push(format!("do sapfor_sk_s = max({first}0_c_int64_t, (sapfor_sk_w - sapfor_sk_h + {}) / {d}), min({last}sapfor_sk_n - 1, (sapfor_sk_w - sapfor_sk_l) / {d})", d - 1));
    o.push(format!("sapfor_fu_k = sapfor_sk_w - sapfor_sk_s * {d}"));
    // (step s computes the planes the steps after it in the block read: the second loop
    // (n-1-s) * reach past this process's, the first r2 more)
    o.push(format!("sapfor_fu_l1 = max(int({gl1}, c_int64_t), sapfor_sk_o1 - (sapfor_sk_n - 1 - sapfor_sk_s) * {reach} - {r2})"));
    o.push(format!("sapfor_fu_h1 = min(int({gh1}, c_int64_t), sapfor_sk_o2 + (sapfor_sk_n - 1 - sapfor_sk_s) * {reach} + {r2})"));
    o.push(format!("sapfor_fu_l2 = max(int({gl2}, c_int64_t), sapfor_sk_o3 - (sapfor_sk_n - 1 - sapfor_sk_s) * {reach})"));
    o.push(format!("sapfor_fu_h2 = min(int({gh2}, c_int64_t), sapfor_sk_o4 + (sapfor_sk_n - 1 - sapfor_sk_s) * {reach})"));
    o.push(step_w.clone());
    o.extend(load_w.iter().cloned());
    super::push_lines(out, &o);
    o.clear();
    out.push_str(&loops);
    o.extend(save_w.iter().cloned());
    o.push("end do".into());
    if omp.is_some() {
        o.push("call sapfor_tpipe_post(sapfor_sk_c + sapfor_sk_w - sapfor_sk_l + 1)".into());
    }
    o.push("end do".into());
    if omp.is_some() {
        o.push("!$omp end parallel".into());
        // (the counters only grow: a block without waves adds none)
        o.push(format!("sapfor_sk_c = sapfor_sk_c + max(0_c_int64_t, sapfor_sk_h + (sapfor_sk_n - 1) * {d} - sapfor_sk_l + 1)"));
    }
    o.push(f.end.clone());
    // (the profile counts each step of the block as a run of the loop)
    let runs = f.end.strip_prefix("call sapfor_loop_end(").and_then(|x| x.strip_suffix(')')).map(|src| format!("call sapfor_loop_runs({src}, sapfor_sk_n)"));
    if group {
        o.extend(runs.iter().cloned());
        o.extend(f.with.clone());
        o.push("end do".into());
    }
    // each step's reductions combined between processes (nothing to do on one)
    if !reds.is_empty() {
        o.push(format!("do sapfor_sk_s = 0, {steps} - 1"));
        o.extend(load.iter().cloned());
        o.extend(reds.iter().filter_map(|l| l.strip_prefix(VAR)).map(|args| format!("call sapfor_red_var_keep({args}")));
        o.extend(combine.iter().map(|l| l.to_string()));
        o.extend(save.iter().cloned());
        o.push("end do".into());
    }
    if !group {
        o.extend(runs);
        o.extend(f.with.clone());
    }
    if let Some(c) = &s.leave {
        o.push("if (sapfor_sk_r == 2) exit".into());
        o.push(format!("do sapfor_sk_s = 0, {steps} - 1"));
        o.push(step.clone());
        o.extend(load.iter().cloned());
        o.push(format!("if ({c}) exit"));
        o.push("end do".into());
        o.push(format!("if (sapfor_sk_s >= {steps}) exit"));
        o.push(format!("{steps} = sapfor_sk_s + 1"));
        o.push("sapfor_sk_e = 1".into());
        o.extend(s.saved.iter().map(|(k, x)| format!("call sapfor_block_restore(sh_{k}, {x})")));
        // (arrays not put back: the steps' scalars of the first computation, which read
        // them, are those of the program)
        if !s.fresh.is_empty() {
            o.push("sapfor_sk_y = sapfor_sk_x".into());
        }
        o.push("end do".into());
        if !s.fresh.is_empty() {
            o.push("if (sapfor_sk_e /= 0) sapfor_sk_x = sapfor_sk_y".into());
        }
    }
    // each step's output, in order
    o.push(format!("do sapfor_sk_s = 0, {steps} - 1"));
    o.push(step);
    o.extend(load.iter().cloned());
    super::push_lines(out, &o);
    o.clear();
    out.push_str(&tail);
    o.push("end do".into());
    // (the step that leaves has left the output's loop: the blocks' loop too, the time
    // variable at that step)
    if s.leave.is_some() {
        o.push("if (sapfor_sk_e /= 0) exit".into());
    }
    if s.cut.is_some() {
        o.push("sapfor_sk_b = sapfor_sk_b + sapfor_sk_n".into());
    }
    o.push("end do".into());
    let last = format!("{v} = int(sapfor_sk_t0 + max(0_c_int64_t, sapfor_sk_t1 - sapfor_sk_t0 + 1), kind({v}))");
    o.push(if s.leave.is_some() { format!("if (sapfor_sk_e == 0) {last}") } else { last });
    super::push_lines(out, &o);
    Some(std::mem::take(out))
}
