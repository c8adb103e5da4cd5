//! Interprocedural analysis: the call graph over all given files and bottom-up mod/ref
//! summaries of every procedure on its dummy arguments and COMMON members.

use crate::access::{Access, AccessCtx, CallSite, Effect, Summary};
use crate::ast::*;
use crate::sema::UnitSema;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    /// (caller unit index, callee name, line) for every call site.
    pub edges: Vec<(usize, Name, u32)>,
}

/// Unit index by (lower-case) name: the first unit wins when a name repeats.
pub fn unit_index(units: &[Unit]) -> BTreeMap<Name, usize> {
    let mut m = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        m.entry(u.name.clone()).or_insert(i);
    }
    m
}

/// Accesses and call sites of each statement of a unit, by statement index.
pub fn stmt_accesses(unit: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>) -> Vec<(Vec<Access>, Vec<CallSite>)> {
    let mut acc = stmt_accesses_conditional(unit, sema, summaries);
    unconditional(&mut acc);
    acc
}

/// Accesses and call sites of every statement of a unit, by statement id.
pub type StmtTable = Vec<(Vec<Access>, Vec<CallSite>)>;

/// `stmt_accesses` with the accesses known only under conditions (`Access::needs`) kept.
pub fn stmt_accesses_conditional(unit: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>) -> Vec<(Vec<Access>, Vec<CallSite>)> {
    let cx = AccessCtx { unit, sema, summaries };
    unit.stmts
        .iter()
        .map(|st| {
            let (mut a, mut c) = (vec![], vec![]);
            if st.kind.is_executable() {
                cx.stmt_accesses_conditional(st, &mut a, &mut c);
            }
            (a, c)
        })
        .collect()
}

/// Accesses known only under conditions made "somewhere in the array" (what
/// `stmt_accesses` gives); whether there was one.
pub fn unconditional(acc: &mut [(Vec<Access>, Vec<CallSite>)]) -> bool {
    let mut any = false;
    for a in acc.iter_mut().flat_map(|(a, _)| a.iter_mut()) {
        any |= a.drop_conditions();
    }
    any
}

/// Accesses and call sites of every statement of a unit.
pub fn unit_accesses(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
) -> (Vec<Access>, Vec<CallSite>) {
    let cx = AccessCtx {
        unit,
        sema,
        summaries,
    };
    let mut acc = vec![];
    let mut calls = vec![];
    for st in &unit.stmts {
        if st.kind.is_executable() {
            cx.stmt_accesses(st, &mut acc, &mut calls);
        }
    }
    (acc, calls)
}

/// Compute summaries bottom-up over the call graph (callees first; recursive cycles are
/// marked imprecise).
pub fn summarize(units: &[Unit], semas: &[UnitSema]) -> (BTreeMap<Name, Summary>, CallGraph) {
    summarize_with(units, semas, &BTreeMap::new(), &BTreeMap::new())
}

/// What executing procedures with the values the program gives them showed of their COMMON
/// work arrays (`concrete::owned_scratch`), by (procedure, block and member): None where
/// each call writes what it reads first, else the element one reads first.
pub type Owned = BTreeMap<(Name, (Name, usize)), Option<String>>;

/// What `owned` says of procedure `s`'s COMMON members: reads its own, or the element read first.
fn own(s: &mut Summary, owned: &Owned) {
    for ((p, key), why) in owned {
        if p == &s.name {
            if let Some(e) = s.commons.get_mut(key) {
                match why {
                    None => e.own_reads = true,
                    Some(w) => e.read_first = Some(w.clone()),
                }
            }
        }
    }
}

/// The elements read first of `owned` (refutations only) written into the summaries.
pub fn note_read_first(summaries: &mut BTreeMap<Name, Summary>, owned: &Owned) {
    for s in summaries.values_mut() {
        own(s, owned);
    }
}

/// `summarize`, the reads of `owned`'s members counted as their procedures' own
/// (`Effect::own_reads`) where each call writes them first.
pub fn summarize_owning(units: &[Unit], semas: &[UnitSema], owned: &Owned) -> (BTreeMap<Name, Summary>, CallGraph) {
    summarize_with(units, semas, &BTreeMap::new(), owned)
}

/// Logical COMMON scalars that guard calls or I/O (`IF (TIMERS_ENABLED) CALL TIMER_START(4)`
/// in NPB FT's SWARZTRAUBER, `IF (DEBUG) WRITE ...`), each with the value that skips what it
/// guards, and the procedures' summaries when each has that value (`summarize` with those
/// statements left out; `Summary::guards` says which flags left something out). A loop that
/// calls such a procedure may be parallel when the flags have those values where it starts
/// (`loops::Versioned::flags`), the flags being what nothing in it changes.
#[derive(Clone, Debug, Default)]
pub struct Quiet {
    pub flags: BTreeMap<(Name, usize), bool>,
    pub summaries: BTreeMap<Name, Summary>,
}

/// The program's quiet flags and its summaries under them (`Quiet`); empty when no logical
/// COMMON scalar guards a call or I/O statement.
pub fn quiet(units: &[Unit], semas: &[UnitSema], owned: &Owned) -> Quiet {
    let flags = quiet_flags(units, semas);
    if flags.is_empty() {
        return Quiet::default();
    }
    let (summaries, _) = summarize_with(units, semas, &flags, owned);
    Quiet { flags, summaries }
}

/// The value of a logical test that makes it false, on one variable `ok` accepts: `X`
/// (false), `.NOT. X` (true), or a conjunct of an `.AND.`.
pub(crate) fn skipping_value<'e>(e: &'e Expr, ok: &dyn Fn(&Name) -> bool) -> Option<(&'e Name, bool)> {
    match e {
        Expr::Binary(BinOp::And, a, b) => skipping_value(a, ok).or_else(|| skipping_value(b, ok)),
        _ => crate::loops::flag_test(e).filter(|(x, _)| ok(x)).map(|(x, v)| (x, !v)),
    }
}

/// A logical scalar a run-time test can read as a flag: not an array, PARAMETER, EXTERNAL,
/// pointer or EQUIVALENCEd.
pub(crate) fn plain_logical(s: &crate::sema::Symbol) -> bool {
    s.ty.base == BaseType::Logical && !s.is_array() && s.param.is_none() && !s.external && s.aliases.is_empty() && !s.pointer
}

/// A COMMON member every unit that declares it has as a plain logical scalar, by the flags
/// (block, position) that guard a call or I/O statement somewhere (a logical IF, or a block
/// IF without ELSE): each with the value that skips them; a flag some guard wants one way and
/// another the other way is left out.
fn quiet_flags(units: &[Unit], semas: &[UnitSema]) -> BTreeMap<(Name, usize), bool> {
    let mut votes: BTreeMap<(Name, usize), Option<bool>> = BTreeMap::new();
    fn effects(unit: &Unit, nodes: &[Node]) -> bool {
        let mut hit = false;
        for_each_stmt(unit, nodes, &mut |st| hit |= matches!(st.kind.action(), StmtKind::Call { .. } | StmtKind::Io { .. }));
        hit
    }
    for (u, sema) in units.iter().zip(semas) {
        let mut guards: Vec<&Expr> = vec![];
        fn collect<'u>(unit: &'u Unit, nodes: &'u [Node], out: &mut Vec<&'u Expr>) {
            for n in nodes {
                match n {
                    Node::Stmt(id) => {
                        if let StmtKind::LogicalIf(c, inner) = &unit.stmt(*id).kind {
                            if matches!(inner.kind, StmtKind::Call { .. } | StmtKind::Io { .. }) {
                                out.push(c);
                            }
                        }
                    }
                    Node::Do { body, .. } => collect(unit, body, out),
                    Node::If { arms, .. } => {
                        if let (1, Some(c)) = (arms.len(), crate::loops::if_else_test(unit, arms)) {
                            if effects(unit, &arms[0].1) {
                                out.push(c);
                            }
                        }
                        for (_, b) in arms {
                            collect(unit, b, out);
                        }
                    }
                }
            }
        }
        collect(u, &u.body, &mut guards);
        for c in guards {
            let Some((x, v)) = skipping_value(c, &|_| true) else { continue };
            let Some(key) = sema.symbol(x).and_then(|s| s.common.clone()) else { continue };
            let vote = votes.entry(key).or_insert(Some(v));
            if *vote != Some(v) {
                *vote = None;
            }
        }
    }
    // (every unit that declares the member has it as a plain logical scalar)
    for sema in semas {
        for s in sema.symbols.values() {
            if let Some(key) = &s.common {
                if votes.contains_key(key) && !plain_logical(s) {
                    votes.insert(key.clone(), None);
                }
            }
        }
    }
    votes.into_iter().filter_map(|(k, v)| Some((k, v?))).collect()
}

/// `summarize`, the statements that `flags` (quiet flags, `Quiet`) skip left out.
fn summarize_with(units: &[Unit], semas: &[UnitSema], flags: &BTreeMap<(Name, usize), bool>, owned: &Owned) -> (BTreeMap<Name, Summary>, CallGraph) {
    let index = unit_index(units);
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..units.len()).map(|i| g.add_node(i)).collect();
    let empty = BTreeMap::new();
    let mut cg = CallGraph::default();
    let mut self_loops = BTreeSet::new();
    for (i, u) in units.iter().enumerate() {
        let (_, calls) = unit_accesses(u, &semas[i], &empty);
        for c in calls {
            cg.edges.push((i, c.name.clone(), c.line));
            if let Some(&j) = index.get(&c.name) {
                if i == j {
                    self_loops.insert(i);
                }
                g.update_edge(nodes[i], nodes[j], ());
            }
        }
    }
    let mut summaries: BTreeMap<Name, Summary> = BTreeMap::new();
    for scc in petgraph::algo::tarjan_scc(&g) {
        let recursive = scc.len() > 1 || self_loops.contains(&g[scc[0]]);
        for &n in &scc {
            let i = g[n];
            let u = &units[i];
            if index.get(&u.name) != Some(&i)
                || matches!(
                    u.kind,
                    UnitKind::Program | UnitKind::Module | UnitKind::BlockData
                )
            {
                continue;
            }
            let mut s = summarize_unit(u, &semas[i], &summaries, flags);
            own(&mut s, owned);
            if recursive {
                s.recursive = true;
                s.unknown_calls.insert(u.name.clone());
            }
            summaries.insert(u.name.clone(), s);
        }
    }
    (summaries, cg)
}

fn summarize_unit(unit: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>, flags: &BTreeMap<(Name, usize), bool>) -> Summary {
    // per statement (the must-write walk below uses them so), then all together
    let mut per_stmt = stmt_accesses(unit, sema, summaries);
    // under quiet flags: the statements their values skip do nothing (and which flags did so)
    let mut guards: BTreeSet<(Name, usize)> = BTreeSet::new();
    let mut dead: BTreeSet<StmtId> = BTreeSet::new();
    if !flags.is_empty() {
        let ids = |nodes: &[Node]| {
            let mut v = BTreeSet::new();
            for_each_stmt(unit, nodes, &mut |st| {
                v.insert(st.id);
            });
            v
        };
        let all = ids(&unit.body);
        let local: Vec<(Name, (Name, usize), bool)> =
            sema.symbols.iter().filter_map(|(n, s)| s.common.as_ref().and_then(|k| Some((n.clone(), k.clone(), *flags.get(k)?)))).collect();
        for (n, key, v) in &local {
            let gone: BTreeSet<StmtId> = all.difference(&ids(&crate::loops::under_flags_nodes(unit, &unit.body, &[(n.clone(), *v)]))).copied().collect();
            if !gone.is_empty() {
                guards.insert(key.clone());
                dead.extend(gone);
            }
        }
        for id in &dead {
            per_stmt[id.0 as usize] = (vec![], vec![]);
        }
    }
    let accesses: Vec<Access> = per_stmt.iter().flat_map(|(a, _)| a.iter().cloned()).collect();
    let calls: Vec<CallSite> = per_stmt.iter().flat_map(|(_, c)| c.iter().cloned()).collect();
    let mut s = Summary {
        name: unit.name.clone(),
        ..Default::default()
    };
    let written: BTreeSet<&str> = accesses
        .iter()
        .filter(|a| a.write)
        .map(|a| a.name.as_str())
        .collect();
    // Dummy scalars that keep their value throughout the callee can be substituted by actuals.
    let portable_var = |v: &str| -> Option<Expr> {
        let sym = sema.symbol(v)?;
        if let Some(c) = sym.param.as_ref().and_then(|c| c.as_int()) {
            return Some(Expr::Int(c));
        }
        match sym.dummy {
            Some(k) if !sym.is_array() && !written.contains(v) => Some(Expr::Var(format!("#{k}"))),
            _ => None,
        }
    };
    // the counted DO loops around each statement, outermost first
    let mut around: Vec<Vec<StmtId>> = vec![vec![]; unit.stmts.len()];
    fn enclose(nodes: &[Node], outer: &mut Vec<StmtId>, unit: &Unit, around: &mut [Vec<StmtId>]) {
        for n in nodes {
            match n {
                Node::Stmt(id) => around[id.0 as usize] = outer.clone(),
                Node::Do { header, body, end } => {
                    around[header.0 as usize] = outer.clone();
                    let counted = matches!(unit.stmt(*header).kind, StmtKind::Do { .. });
                    if counted {
                        outer.push(*header);
                    }
                    enclose(body, outer, unit, around);
                    if let Some(e) = end {
                        around[e.0 as usize] = outer.clone();
                    }
                    if counted {
                        outer.pop();
                    }
                }
                Node::If { arms, end } => {
                    for (h, b) in arms {
                        around[h.0 as usize] = outer.clone();
                        enclose(b, outer, unit, around);
                    }
                    if let Some(e) = end {
                        around[e.0 as usize] = outer.clone();
                    }
                }
            }
        }
    }
    enclose(&unit.body, &mut vec![], unit, &mut around);
    // a subscript over the DO variables of loops around the statement, widened over their
    // ranges (`Y(I)` in `DO I = 1, N` is `Y(1:#0)` where N is dummy 0)
    let widen = |e: &Expr, at: StmtId| -> Option<Arg> {
        let loops: Vec<(&Name, &Expr, &Expr, i64)> = around.get(at.0 as usize)?
            .iter()
            .filter_map(|h| match &unit.stmt(*h).kind {
                StmtKind::Do { var, lo, hi, step, .. } => {
                    let step = match step {
                        None => 1,
                        Some(x) => crate::affine::linearize(x, &|n| sema.param(n).and_then(|c| c.as_int()))?.as_const()?,
                    };
                    Some((var, lo, hi, step))
                }
                _ => None,
            })
            .collect();
        let l = crate::affine::linearize(e, &|n| sema.param(n).and_then(|c| c.as_int()))?;
        let (mut lo, mut hi) = (vec![], vec![]);
        for (v, k) in &l.terms {
            // the innermost loop of that variable (a name is one DO's variable at a time)
            match loops.iter().rev().find(|(x, ..)| *x == v) {
                Some((_, a, b, step)) => {
                    if *step == 0 {
                        return None;
                    }
                    let (a, b) = (portable(a, &portable_var)?, portable(b, &portable_var)?);
                    // the variable's values lie between the first and the last bound
                    let (small, large) = if *step > 0 { (a, b) } else { (b, a) };
                    let (at_lo, at_hi) = if *k > 0 { (small, large) } else { (large, small) };
                    lo.push((*k, at_lo));
                    hi.push((*k, at_hi));
                }
                None => {
                    let x = portable_var(v)?;
                    lo.push((*k, x.clone()));
                    hi.push((*k, x));
                }
            }
        }
        Some(Arg::Range(Some(linear_sum(lo, l.constant)), Some(linear_sum(hi, l.constant)), None))
    };
    let port = |a: &Access| -> Option<Vec<Arg>> {
        let subs = a.subs.as_ref()?;
        Some(
            subs.iter()
                .map(|x| match x {
                    Arg::Expr(e) => portable(e, &portable_var)
                        .map(Arg::Expr)
                        .or_else(|| if a.implied.is_empty() { widen(e, a.stmt) } else { None })
                        .unwrap_or(Arg::Range(None, None, None)),
                    _ => Arg::Range(None, None, None),
                })
                .collect(),
        )
    };
    for a in &accesses {
        if Some(&a.name) == unit.result.as_ref() && unit.kind == UnitKind::Function {
            continue;
        }
        let push = |eff: &mut Effect| {
            if a.write {
                eff.write.push(port(a));
            } else {
                eff.read.push(port(a));
            }
        };
        if let Some(block) = a.name.strip_prefix('/').and_then(|b| b.strip_suffix('/')) {
            push(
                s.commons
                    .entry((block.to_string(), usize::MAX))
                    .or_default(),
            );
            continue;
        }
        let Some(sym) = sema.symbol(&a.name) else {
            continue;
        };
        if let Some(k) = sym.dummy {
            push(s.args.entry(k).or_default());
        } else if let Some((block, idx)) = &sym.common {
            s.common_names.insert((block.clone(), *idx), a.name.clone());
            s.common_bounds.insert((block.clone(), *idx), sym.bounds());
            push(s.commons.entry((block.clone(), *idx)).or_default());
        } else if a.write && (sym.save || sym.data_init) {
            s.keeps_state = true;
        }
    }
    for (name, sym) in &sema.symbols {
        if let (Some(k), Some(dims)) = (sym.dummy, &sym.dims) {
            let _ = name;
            let d = dims
                .iter()
                .map(|d| {
                    (
                        d.lo_expr.as_ref().and_then(|e| portable(e, &portable_var)),
                        d.hi_expr.as_ref().and_then(|e| portable(e, &portable_var)),
                    )
                })
                .collect();
            s.arg_dims.insert(k, d);
            if !matches!(sym.ty.base, BaseType::Derived(_)) {
                s.arg_bytes.insert(k, sym.ty.bytes());
            }
        }
    }
    for e in s.args.values_mut().chain(s.commons.values_mut()) {
        e.read.dedup();
        e.write.dedup();
    }
    // What every execution surely writes of each dummy array (NPB's EXACT_SOLUTION fills
    // DTEMP(1:5), VRANLC fills Y(1:N)): the caller's work array passed to it is then defined
    // by the call, and may be private to a loop around it.
    if let Some((must, exposed)) = crate::loops::unit_must_writes(unit, sema, summaries, &per_stmt) {
        let lin_expr = |l: &crate::affine::Lin| -> Option<Expr> {
            let terms = l.terms.iter().map(|(v, c)| Some((*c, portable_var(v)?))).collect::<Option<Vec<_>>>()?;
            Some(linear_sum(terms, l.constant))
        };
        for (name, rects) in &must {
            let Some(sym) = sema.symbol(name).filter(|x| x.is_array() && !matches!(x.ty.base, BaseType::Derived(_))) else {
                continue;
            };
            // a dummy array, or a COMMON array the unit names alone (its sections then map
            // onto the caller's member of the same name: SP's LHSINIT zeroes planes of LHS)
            let eff = match (sym.dummy, &sym.common) {
                (Some(k), _) => s.args.entry(k).or_default(),
                (None, Some((block, idx))) if sym.aliases.is_empty() => match s.commons.get_mut(&(block.clone(), *idx)) {
                    Some(e) => e,
                    None => continue,
                },
                _ => continue,
            };
            for r in &rects.0 {
                let dims: Option<Vec<Arg>> =
                    r.0.iter().map(|(lo, hi)| Some(Arg::Range(Some(lin_expr(lo)?), Some(lin_expr(hi)?), None))).collect();
                if let Some(d) = dims {
                    eff.must_write.push(d);
                }
            }
            if sym.dummy.is_some() {
                eff.own_reads = !exposed.contains(name);
            }
        }
        // COMMON arrays too: a caller's read of one through this call is then no use of the
        // value it holds (NPB BT's FJAC, filled by X_SOLVE before it reads it)
        for (name, sym) in &sema.symbols {
            let Some((block, idx)) = sym.common.clone().filter(|_| sym.is_array() && sym.aliases.is_empty()) else { continue };
            if let Some(eff) = s.commons.get_mut(&(block, idx)) {
                eff.own_reads = !exposed.contains(name);
            }
        }
    }
    for st in unit.stmts.iter().filter(|st| !dead.contains(&st.id)) {
        let k = st.kind.action();
        match k {
            StmtKind::Io { .. } => s.has_io = true,
            StmtKind::Stop => s.has_stop = true,
            _ => {}
        }
    }
    for c in &calls {
        if c.unknown && !summaries.contains_key(&c.name) {
            s.unknown_calls.insert(c.name.clone());
        }
        if let Some(cs) = summaries.get(&c.name) {
            s.has_io |= cs.has_io;
            s.has_stop |= cs.has_stop;
            s.keeps_state |= cs.keeps_state;
            s.unknown_calls.extend(cs.unknown_calls.iter().cloned());
            guards.extend(cs.guards.iter().cloned());
        }
    }
    s.guards = guards;
    s
}

/// `c1*x1 + c2*x2 + ... + constant` as an expression (a coefficient 1 and a constant 0 left
/// out).
pub(crate) fn linear_sum(terms: Vec<(i64, Expr)>, constant: i64) -> Expr {
    let mut e: Option<Expr> = None;
    for (c, x) in terms {
        let t = if c == 1 { x } else { Expr::Binary(BinOp::Mul, Box::new(Expr::Int(c)), Box::new(x)) };
        e = Some(match e {
            None => t,
            Some(a) => Expr::Binary(BinOp::Add, Box::new(a), Box::new(t)),
        });
    }
    match e {
        None => Expr::Int(constant),
        Some(a) if constant == 0 => a,
        Some(a) => Expr::Binary(BinOp::Add, Box::new(a), Box::new(Expr::Int(constant))),
    }
}

fn portable(e: &Expr, var: &dyn Fn(&str) -> Option<Expr>) -> Option<Expr> {
    Some(match e {
        Expr::Int(_) => e.clone(),
        Expr::Var(v) => var(v)?,
        Expr::Unary(o, x) => Expr::Unary(*o, Box::new(portable(x, var)?)),
        Expr::Binary(o, a, b) if matches!(o, BinOp::Add | BinOp::Sub | BinOp::Mul) => {
            Expr::Binary(*o, Box::new(portable(a, var)?), Box::new(portable(b, var)?))
        }
        _ => return None,
    })
}

/// The storage an array name stands for: a unit's own array, or a COMMON member (the same
/// storage in every unit declaring the block, whatever its name there).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum ArrayRoot {
    Local { unit: usize, name: Name },
    Common { block: Name, index: usize },
}

/// The storage of array `name` of unit `u` when it is not a dummy argument.
pub fn own_root(semas: &[UnitSema], u: usize, name: &str) -> Option<ArrayRoot> {
    let sym = semas[u].symbol(name)?;
    if sym.dummy.is_some() || !sym.is_array() {
        return None;
    }
    Some(match &sym.common {
        Some((block, index)) => ArrayRoot::Common { block: block.clone(), index: *index },
        None => ArrayRoot::Local { unit: u, name: name.to_string() },
    })
}

/// Dummy array arguments bound to one array: (subroutine, dummy) -> the storage every call
/// of the subroutine passes whole in that position, directly or through dummies of its
/// callers bound themselves (`CALL INIT(A, N)` from the main program only: INIT's dummy is
/// the main program's A). Such a dummy can take the distribution of that array (`INHERIT`).
///
/// A dummy is bound only when the subroutine is called at least once and every call passes,
/// in that position, a bare array name, of the dummy's rank and type (its storage), and when
/// the dummy's bounds, where they can be evaluated at the call (constants, PARAMETERs, and
/// dummy integers given constants at the call), equal that array's. One call may give the
/// array to two dummies (NPB FT's `CALL FFTXYZ(-1, XNT, XNT, ...)`): the analysis of the
/// callee takes its dummies to be distinct, as the standard requires of dummies it defines.
/// A vector dummy may be given arrays of higher rank whole when it holds exactly their
/// elements (`whole_size`): it is bound to them and `reshaped`. A subroutine that also sees the storage through its COMMON
/// block binds nothing to it. Functions bind nothing (a function reference is an expression:
/// no place to hand the distribution over).
///
/// The calls may pass different arrays (`CALL SMOOTH(A)`, `CALL SMOOTH(B)`) when those have
/// one type and the same constant bounds: such arrays are twins (`Bindings::twins`), which
/// a distribution must treat alike (each takes the distribution of the others, so the dummy
/// inherits the same one at every call), and the dummy is bound to the least of its group.
pub fn dummy_bindings(units: &[Unit], semas: &[UnitSema]) -> Bindings {
    let index = unit_index(units);
    // calls of each subroutine: (caller, args)
    let mut calls: BTreeMap<usize, Vec<(usize, &Vec<Arg>)>> = BTreeMap::new();
    for (ui, u) in units.iter().enumerate() {
        for st in &u.stmts {
            if let StmtKind::Call { name, args } = st.kind.action() {
                if let Some(&ci) = index.get(name) {
                    calls.entry(ci).or_default().push((ui, args));
                }
            }
        }
    }
    let mut out: BTreeMap<(usize, Name), ArrayRoot> = BTreeMap::new();
    let mut twins = Unions::default();
    let mut reshaped: BTreeSet<(usize, Name)> = BTreeSet::new();
    // bindings through dummies of callers need those first: iterate to a fixpoint (the call
    // graph is shallow; a cycle (recursion) just never binds)
    for _ in 0..units.len().min(64) + 1 {
        let mut changed = false;
        for (&ci, sites) in &calls {
            let callee = &units[ci];
            if callee.kind != UnitKind::Subroutine {
                continue;
            }
            let cs = &semas[ci];
            for sym in cs.symbols.values() {
                let Some(pos) = sym.dummy.filter(|_| sym.is_array()) else { continue };
                if out.contains_key(&(ci, sym.name.clone())) {
                    continue;
                }
                let mut roots: BTreeSet<ArrayRoot> = BTreeSet::new();
                let mut ok = true;
                let mut reshapes = false;
                for (caller, args) in sites {
                    let actual = match args.get(pos) {
                        Some(Arg::Expr(Expr::Var(n))) => n,
                        _ => {
                            ok = false;
                            break;
                        }
                    };
                    let r = own_root(semas, *caller, actual).or_else(|| out.get(&(*caller, actual.clone())).cloned());
                    let asym = semas[*caller].symbol(actual);
                    match (r, asym) {
                        (Some(r), Some(a)) if a.ty.storage() == sym.ty.storage() && a.rank() == sym.rank() && same_bounds(semas, *caller, args, a, ci, sym) => {
                            roots.insert(r);
                            // (a vector dummy handed on whole: the array laid out in order still)
                            reshapes |= reshaped.contains(&(*caller, actual.clone()));
                        }
                        // a vector given whole arrays of higher rank (NPB FT's XOUT((N1+1)*N2*N3)
                        // given XNT(NX+1,NY,NZ)): the array itself, laid out in its order
                        (Some(r), Some(a))
                            if a.ty.storage() == sym.ty.storage()
                                && sym.rank() == 1
                                && a.rank() > 1
                                && !out.contains_key(&(*caller, actual.clone()))
                                && whole_size(semas, *caller, args, a, ci, sym) =>
                        {
                            roots.insert(r);
                            reshapes = true;
                        }
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok || roots.is_empty() {
                    continue;
                }
                if roots.iter().any(|r| matches!(r, ArrayRoot::Common { block, .. } if cs.commons.contains_key(block))) {
                    continue;
                }
                // different arrays at different calls: one type, the same constant bounds
                if roots.len() > 1 {
                    let shapes: Vec<Option<(crate::ast::TypeSpec, Vec<(i64, i64)>)>> = roots.iter().map(|r| root_shape(semas, r)).collect();
                    if shapes.iter().any(|x| x.is_none() || *x != shapes[0]) {
                        continue;
                    }
                }
                let mut it = roots.into_iter();
                let first = it.next().expect("one root at least");
                for r in it {
                    twins.union(&first, &r);
                }
                if reshapes {
                    reshaped.insert((ci, sym.name.clone()));
                }
                out.insert((ci, sym.name.clone()), first);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // every dummy bound to a group of twins is bound to the least of them
    let groups = twins.groups();
    let least: BTreeMap<&ArrayRoot, &ArrayRoot> = groups.iter().flat_map(|g| g.iter().map(move |r| (r, g.first().expect("a group has members")))).collect();
    for root in out.values_mut() {
        if let Some(l) = least.get(root) {
            *root = (*l).clone();
        }
    }
    Bindings { bound: out, twins: groups, reshaped }
}

/// For each unit, its dummy arrays that some call gives the storage of another of its dummies
/// (the same array, or an element of it, in two positions): dummy -> the other dummy.
pub fn shared_dummies(units: &[Unit], semas: &[UnitSema]) -> Vec<BTreeMap<Name, Name>> {
    let index = unit_index(units);
    let mut out: Vec<BTreeMap<Name, Name>> = vec![BTreeMap::new(); units.len()];
    for (ui, u) in units.iter().enumerate() {
        for st in &u.stmts {
            let StmtKind::Call { name, args } = st.kind.action() else { continue };
            let Some(&ci) = index.get(name) else { continue };
            let base = |a: &Arg| a.expr().and_then(|e| e.base_name()).filter(|n| semas[ui].is_array(n)).map(|n| n.to_string());
            let bases: Vec<Option<Name>> = args.iter().map(base).collect();
            for (p, bp) in bases.iter().enumerate() {
                for (q, bq) in bases.iter().enumerate() {
                    if p == q || bp.is_none() || bp != bq {
                        continue;
                    }
                    let dummy = |k: usize| semas[ci].symbols.values().find(|s| s.dummy == Some(k) && s.is_array()).map(|s| s.name.clone());
                    if let (Some(dp), Some(dq)) = (dummy(p), dummy(q)) {
                        out[ci].entry(dp).or_insert(dq);
                    }
                }
            }
        }
    }
    out
}

/// What `dummy_bindings` finds.
#[derive(Default)]
pub struct Bindings {
    /// (subroutine, dummy) -> the array it is bound to (the least of its twins).
    pub bound: BTreeMap<(usize, Name), ArrayRoot>,
    /// Groups of two or more arrays given to one dummy at different calls: a distribution
    /// gives them all the same one.
    pub twins: Vec<BTreeSet<ArrayRoot>>,
    /// Bound dummies that are vectors given whole arrays of higher rank (`whole_size`): their
    /// subscripts run over the array's elements in storage order.
    pub reshaped: BTreeSet<(usize, Name)>,
}

/// The type and constant bounds of an array's storage, as the unit declaring it (the first
/// declaring a COMMON block) gives them; None where a bound is not constant.
fn root_shape(semas: &[UnitSema], r: &ArrayRoot) -> Option<(crate::ast::TypeSpec, Vec<(i64, i64)>)> {
    let sym = match r {
        ArrayRoot::Local { unit, name } => semas[*unit].symbol(name)?,
        ArrayRoot::Common { block, index } => semas.iter().find_map(|s| s.symbol(&s.commons.get(block)?.get(*index)?.name))?,
    };
    let bounds: Option<Vec<(i64, i64)>> = sym.bounds().into_iter().collect();
    Some((sym.ty.storage(), bounds?))
}

/// A union of array roots into groups.
#[derive(Default)]
struct Unions {
    parent: BTreeMap<ArrayRoot, ArrayRoot>,
}

impl Unions {
    fn find(&mut self, r: &ArrayRoot) -> ArrayRoot {
        let mut x = r.clone();
        while let Some(p) = self.parent.get(&x).filter(|p| **p != x) {
            x = p.clone();
        }
        x
    }

    fn union(&mut self, a: &ArrayRoot, b: &ArrayRoot) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(hi, lo.clone());
            self.parent.entry(lo.clone()).or_insert(lo);
        }
    }

    fn groups(&mut self) -> Vec<BTreeSet<ArrayRoot>> {
        let keys: Vec<ArrayRoot> = self.parent.keys().cloned().collect();
        let mut by: BTreeMap<ArrayRoot, BTreeSet<ArrayRoot>> = BTreeMap::new();
        for k in keys {
            let r = self.find(&k);
            by.entry(r).or_default().insert(k);
        }
        by.into_values().filter(|g| g.len() > 1).collect()
    }
}

/// The value of a bound expression `e` of unit `ci` at a call from `caller` with `args`
/// (constants, PARAMETERs, and dummy integers the call gives constants); `dflt` without one.
fn at_call(semas: &[UnitSema], caller: usize, args: &[Arg], ci: usize, e: &Option<Expr>, dflt: Option<i64>) -> Option<i64> {
    let cs = &semas[ci];
    let lookup = |n: &str| -> Option<crate::sema::Const> {
        if let Some(c) = cs.param(n) {
            return Some(c.clone());
        }
        let s = cs.symbol(n)?;
        let q = s.dummy?;
        let e = args.get(q)?.expr()?;
        semas[caller].eval(e)
    };
    match e {
        None => dflt,
        Some(e) => crate::sema::eval_const(e, &lookup).and_then(|c| c.as_int()),
    }
}

/// Whether vector dummy `d` (rank 1) given array `a` whole at a call holds exactly its
/// elements: its lower bound is a constant, its extent evaluated at the call equals `a`'s
/// size (or it is assumed-size, `V(*)` or the F77 `V(1)`), and `a`'s bounds are constants.
fn whole_size(semas: &[UnitSema], caller: usize, args: &[Arg], a: &crate::sema::Symbol, ci: usize, d: &crate::sema::Symbol) -> bool {
    let Some(size) = a.bounds().iter().try_fold(1i64, |n, b| b.and_then(|(lo, hi)| n.checked_mul(hi - lo + 1))) else { return false };
    let Some(dd) = d.dims.as_ref().filter(|x| x.len() == 1) else { return false };
    let y = &dd[0];
    let cs = &semas[ci];
    let ev = |e: &Option<Expr>, dflt: Option<i64>| at_call(semas, caller, args, ci, e, dflt);
    let Some(lo) = y.lo_expr.as_ref().map_or(Some(1), |e| crate::sema::eval_const(e, &|n: &str| cs.param(n).cloned()).and_then(|c| c.as_int())) else { return false };
    if y.star || d.size_unknown() {
        return true;
    }
    ev(&y.hi_expr, None).or(y.hi).is_some_and(|hi| hi - lo + 1 == size)
}

/// Whether dummy `d` of unit `ci`, as called with `args` from `caller`, has the bounds of
/// the actual `a` wherever both can be evaluated (an assumed-size last dimension, or a last
/// dimension of 1 in the F77 manner, is any size).
fn same_bounds(semas: &[UnitSema], caller: usize, args: &[Arg], a: &crate::sema::Symbol, ci: usize, d: &crate::sema::Symbol) -> bool {
    let (Some(ad), Some(dd)) = (&a.dims, &d.dims) else { return false };
    let ev = |e: &Option<Expr>, dflt: Option<i64>| at_call(semas, caller, args, ci, e, dflt);
    let r = dd.len();
    for (k, (x, y)) in ad.iter().zip(dd).enumerate() {
        let last = k + 1 == r;
        let (alo, ahi) = (x.lo, x.hi);
        let dlo = ev(&y.lo_expr, Some(1)).or(y.lo);
        if let (Some(p), Some(q)) = (alo, dlo) {
            if p != q {
                return false;
            }
        }
        if y.star || y.assumed {
            if last {
                continue;
            }
            return false;
        }
        let dhi = ev(&y.hi_expr, None).or(y.hi);
        if last && d.size_unknown() {
            continue;
        }
        if let (Some(p), Some(q)) = (ahi, dhi) {
            if p != q {
                return false;
            }
        }
    }
    true
}
