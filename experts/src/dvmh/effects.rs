//! Read and write sets of statements and statement lists, as array sections, for the DVMH
//! expert and its checker: what a piece of code may write, what it surely writes (every
//! element, on every path), and what it reads before writing ("exposed" reads).
//!
//! Sections come from the analyzer ([`analyzer::cfg::access_section`]) over the ranges of the
//! enclosing loop variables, so a statement inside a loop covers all its iterations. A write
//! is a *must* write only when it happens on every path and its subscripts are constants or
//! distinct variables of loops that run in full inside the summarized code (`exact` loops:
//! step 1, bounds constant there); inside a conditional it is a may write. Exposed reads are
//! conservative: writes inside a loop never cover reads of the same loop.

use analyzer::access::{Access, AccessCtx, CallSite};
use analyzer::affine::linearize;
use analyzer::ast::*;
use analyzer::cfg::{access_section, interval, Env};
use analyzer::sections::SectionSet;
use analyzer::sema::UnitSema;
use std::collections::{BTreeMap, BTreeSet};

pub type VarSets = BTreeMap<Name, SectionSet>;

/// Add `set` to `name`'s entry.
pub fn add(v: &mut VarSets, name: &str, set: &SectionSet) {
    if set.is_empty() {
        return;
    }
    match v.get_mut(name) {
        Some(s) => *s = s.union(set),
        None => {
            v.insert(name.to_string(), set.clone());
        }
    }
}

/// `a ∪= b`, touching only `b`'s variables.
pub fn union_in(a: &mut VarSets, b: &VarSets) {
    for (k, s) in b {
        add(a, k, s);
    }
}

/// `a −= b`, touching only `b`'s variables.
pub fn minus_in(a: &mut VarSets, b: &VarSets) {
    for (k, t) in b {
        if let Some(s) = a.get_mut(k) {
            let d = s.difference(t);
            if d.is_empty() {
                a.remove(k);
            } else {
                *s = d;
            }
        }
    }
}

/// `a` keeps its elements outside `of` and takes `new`'s inside `of` (only `of`'s variables
/// are touched).
pub fn replace_on_in(a: &mut VarSets, of: &VarSets, new: &VarSets) {
    for (k, o) in of {
        let outside = a.get(k).map(|s| s.difference(o));
        let inside = new.get(k).map(|n| n.intersect(o));
        let mut r = outside.unwrap_or_else(|| SectionSet::empty(o.rank()));
        if let Some(i) = inside {
            r = r.union(&i);
        }
        if r.is_empty() {
            a.remove(k);
        } else {
            a.insert(k.clone(), r);
        }
    }
}

pub fn union(a: &VarSets, b: &VarSets) -> VarSets {
    let mut r = a.clone();
    for (k, s) in b {
        add(&mut r, k, s);
    }
    r
}

/// Elements of `a` not in `b`.
pub fn minus(a: &VarSets, b: &VarSets) -> VarSets {
    let mut r = VarSets::new();
    for (k, s) in a {
        let d = match b.get(k) {
            Some(t) => s.difference(t),
            None => s.clone(),
        };
        add(&mut r, k, &d);
    }
    r
}

pub fn intersect(a: &VarSets, b: &VarSets) -> VarSets {
    let mut r = VarSets::new();
    for (k, s) in a {
        if let Some(t) = b.get(k) {
            add(&mut r, k, &s.intersect(t));
        }
    }
    r
}

/// Effects of a piece of code.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Eff {
    /// Read before any surely-preceding write (may).
    pub reads: VarSets,
    /// May be written (by the code itself; see `call_may`).
    pub may: VarSets,
    /// May be written by called procedures, by callee. A procedure that runs regions keeps
    /// host and device consistent itself; a host-only one leaves that to its callers (see the
    /// conventions in `dvmh/mod.rs`, and [`Eff::host_writes`]).
    pub call_may: BTreeMap<Name, VarSets>,
    /// Surely written, every element, on every path.
    pub must: VarSets,
    /// Procedures called (CALL statements and user function references).
    pub calls: Vec<CallSite>,
    /// The exposed reads one by one: (variable, subscripts as written, section).
    pub rkeys: Vec<(Name, String, SectionSet)>,
    /// References surely assigned, by their subscripts as written (same iteration).
    pub wkeys: BTreeSet<(Name, String)>,
}

impl Eff {
    /// `self` followed by `next`. Inside a loop body (`keyed`) a read is covered only by an
    /// earlier assignment to the same reference (same subscripts, same iteration): a section
    /// written over the whole loop is not yet written when a later iteration's read happens.
    pub fn then(&mut self, next: Eff, keyed: bool) {
        for (n, k, sec) in next.rkeys {
            if self.wkeys.contains(&(n.clone(), k.clone())) {
                continue;
            }
            let sec = match self.must.get(&n) {
                Some(m) if !keyed => sec.difference(m),
                _ => sec,
            };
            if sec.is_empty() {
                continue;
            }
            add(&mut self.reads, &n, &sec);
            self.rkeys.push((n, k, sec));
        }
        self.may = union(&self.may, &next.may);
        union_calls(&mut self.call_may, &next.call_may);
        self.must = union(&self.must, &next.must);
        self.wkeys.extend(next.wkeys);
        self.calls.extend(next.calls);
    }
}

impl Eff {
    /// What the host may write here that its caller must declare actual: the statements'
    /// own writes and those of the procedures called that are not in `consistent` (the
    /// procedures that return with host and device consistent).
    pub fn host_writes(&self, consistent: &BTreeSet<Name>) -> VarSets {
        let mut w = self.may.clone();
        for (callee, sets) in &self.call_may {
            if !consistent.contains(callee) {
                // (a COMMON block the unit does not declare, `/NAME/`, cannot be named here:
                // a procedure writing one that a region uses keeps itself consistent)
                let named: VarSets = sets.iter().filter(|(k, _)| !k.starts_with('/')).map(|(k, v)| (k.clone(), v.clone())).collect();
                union_in(&mut w, &named);
            }
        }
        w
    }

    /// Is `v` written by a called procedure?
    pub fn call_writes(&self, v: &str) -> bool {
        self.call_may.values().any(|m| m.contains_key(v))
    }
}

fn union_calls(a: &mut BTreeMap<Name, VarSets>, b: &BTreeMap<Name, VarSets>) {
    for (callee, sets) in b {
        union_in(a.entry(callee.clone()).or_default(), sets);
    }
}

fn key(subs: &Option<Vec<Arg>>) -> String {
    format!("{subs:?}")
}

/// The whole of a variable: its declared bounds, or every index when they are not known.
pub fn whole(sema: &UnitSema, name: &str) -> SectionSet {
    match sema.symbol(name) {
        Some(s) if s.rank() > 0 => SectionSet::all(s.rank()).clamp(&s.bounds()),
        _ => SectionSet::all(0),
    }
}

/// Is `name` a variable whose values the DVMH data movement tracks (not a constant, not a
/// procedure)?
pub fn is_variable(sema: &UnitSema, name: &str) -> bool {
    match sema.symbol(name) {
        Some(s) => s.param.is_none() && !s.external && !s.intrinsic,
        // An implicitly typed variable that is never declared.
        None => !analyzer::sema::is_intrinsic_function(name),
    }
}

pub struct EffCx<'a> {
    pub unit: &'a Unit,
    pub sema: &'a UnitSema,
    pub acc: AccessCtx<'a>,
    pub envs: BTreeMap<StmtId, Env>,
    /// Effects of statements and whole nodes with no exact loop around them, by first statement.
    stmt_cache: std::cell::RefCell<std::collections::HashMap<StmtId, Eff>>,
    node_cache: std::cell::RefCell<std::collections::HashMap<StmtId, Eff>>,
    nest_cache: std::cell::RefCell<std::collections::HashMap<(StmtId, bool), Eff>>,
    /// Statements referring to each variable (read, written, or passed to a call).
    users: std::cell::OnceCell<BTreeMap<Name, BTreeSet<StmtId>>>,
}

impl<'a> EffCx<'a> {
    pub fn new(
        unit: &'a Unit,
        sema: &'a UnitSema,
        summaries: &'a BTreeMap<Name, analyzer::access::Summary>,
    ) -> Self {
        EffCx {
            unit,
            sema,
            acc: AccessCtx {
                unit,
                sema,
                summaries,
            },
            envs: analyzer::cfg::statement_envs(unit, sema),
            stmt_cache: Default::default(),
            node_cache: Default::default(),
            nest_cache: Default::default(),
            users: Default::default(),
        }
    }

    /// Integer scalars of this unit that hold one constant wherever they are defined: assigned
    /// by a single statement whose right-hand side is a constant expression (`C = N / 2`),
    /// never a DO variable, never read into, never passed to a procedure, not in COMMON,
    /// EQUIVALENCE or DATA, not a dummy argument, in a unit without internal procedures or
    /// USE. Their value joins every statement's environment, so that `U(C,C,C)` is one
    /// element, not the whole array (before the assignment the variable is undefined, so the
    /// value holds wherever it may be read).
    pub fn with_constants(mut self, prog: &analyzer::program::Program) -> Self {
        let unit = self.unit;
        let sema = self.sema;
        if unit.parent.is_some()
            || prog.is_host(&unit.name)
            || unit.stmts.iter().any(|s| matches!(s.kind, StmtKind::Use { .. }))
        {
            return self;
        }
        let mut defs: BTreeMap<Name, Vec<Option<i64>>> = BTreeMap::new();
        let mut banned: BTreeSet<Name> = BTreeSet::new();
        for st in &unit.stmts {
            let k = st.kind.action();
            match k {
                StmtKind::Assign { lhs: Expr::Var(v), rhs } => {
                    defs.entry(v.clone()).or_default().push(sema.eval_int(rhs));
                }
                StmtKind::Do { var, .. } => {
                    banned.insert(var.clone());
                }
                StmtKind::Io { writes, .. } => {
                    for e in writes {
                        e.walk(&mut |x| {
                            if let Expr::Var(n) | Expr::Ref(n, _) = x {
                                banned.insert(n.clone());
                            }
                        });
                    }
                }
                StmtKind::Call { args, .. } => {
                    for a in args.iter().filter_map(|a| a.expr()) {
                        a.walk(&mut |x| {
                            if let Expr::Var(n) = x {
                                banned.insert(n.clone());
                            }
                        });
                    }
                }
                _ => {}
            }
            // a variable passed to a function may be changed by it
            for e in analyzer::sema::stmt_exprs(&st.kind) {
                e.walk(&mut |x| {
                    if let Expr::Ref(f, args) = x {
                        if !sema.is_array(f) && sema.ref_kind(f) != analyzer::sema::RefKind::Intrinsic {
                            for a in args.iter().filter_map(|a| a.expr()) {
                                if let Expr::Var(n) = a {
                                    banned.insert(n.clone());
                                }
                            }
                        }
                    }
                });
            }
        }
        let mut consts = Env::new();
        for (v, d) in defs {
            let [Some(c)] = d.as_slice() else { continue };
            let Some(sym) = sema.symbol(&v) else { continue };
            let integer = matches!(sym.ty.base, analyzer::ast::BaseType::Integer);
            if integer
                && !banned.contains(&v)
                && !sym.is_array()
                && sym.param.is_none()
                && sym.dummy.is_none()
                && sym.common.is_none()
                && sym.aliases.is_empty()
                && !sym.data_init
                && unit.result.as_deref() != Some(v.as_str())
            {
                consts.insert(v, (*c, *c));
            }
        }
        if !consts.is_empty() {
            for env in self.envs.values_mut() {
                for (k, v) in &consts {
                    env.entry(k.clone()).or_insert(*v);
                }
            }
        }
        self
    }

    /// The executable statements that refer to each variable.
    pub fn users(&self) -> &BTreeMap<Name, BTreeSet<StmtId>> {
        self.users.get_or_init(|| {
            let mut m: BTreeMap<Name, BTreeSet<StmtId>> = BTreeMap::new();
            for s in self.unit.stmts.iter().filter(|s| s.kind.is_executable()) {
                let e = self.stmt(s, &BTreeSet::new());
                for k in e.reads.keys().chain(e.may.keys()).chain(e.call_may.values().flat_map(|m| m.keys())) {
                    m.entry(k.clone()).or_default().insert(s.id);
                }
            }
            m
        })
    }

    fn section(&self, a: &Access) -> SectionSet {
        let no = Env::new();
        access_section(self.sema, a, self.envs.get(&a.stmt).unwrap_or(&no))
    }

    /// Is this write access surely complete over its section, given the exact loop variables?
    fn exact(&self, a: &Access, exact: &BTreeSet<Name>) -> bool {
        if a.via_call.is_some() || !a.implied.is_empty() {
            return false;
        }
        let Some(subs) = &a.subs else { return true };
        let mut used = BTreeSet::new();
        let f = |n: &str| self.sema.param(n).and_then(|c| c.as_int());
        subs.iter().all(|s| match s {
            Arg::Expr(e) => match linearize(e, &f) {
                Some(l) if l.terms.is_empty() => true,
                Some(l) if l.terms.len() == 1 => {
                    let (v, c) = l.terms.iter().next().expect("one term");
                    c.abs() == 1 && exact.contains(v) && used.insert(v.clone())
                }
                _ => false,
            },
            _ => false,
        })
    }

    /// Effects of one statement. Writes of a logical IF's statement are may writes.
    pub fn stmt(&self, st: &Stmt, exact: &BTreeSet<Name>) -> Eff {
        if exact.is_empty() {
            if let Some(e) = self.stmt_cache.borrow().get(&st.id) {
                return e.clone();
            }
            let e = self.stmt_uncached(st, exact);
            self.stmt_cache.borrow_mut().insert(st.id, e.clone());
            return e;
        }
        self.stmt_uncached(st, exact)
    }

    fn stmt_uncached(&self, st: &Stmt, exact: &BTreeSet<Name>) -> Eff {
        let mut acc = vec![];
        let mut calls = vec![];
        if st.kind.is_executable() {
            self.acc.stmt_accesses(st, &mut acc, &mut calls);
        }
        let conditional = matches!(st.kind, StmtKind::LogicalIf(..));
        let mut e = Eff {
            calls,
            ..Eff::default()
        };
        for a in acc.iter().filter(|a| !a.write) {
            if is_variable(self.sema, &a.name) {
                let sec = self.section(a);
                add(&mut e.reads, &a.name, &sec);
                e.rkeys.push((a.name.clone(), key(&a.subs), sec));
            }
        }
        for a in acc.iter().filter(|a| a.write) {
            if !is_variable(self.sema, &a.name) {
                continue;
            }
            let s = self.section(a);
            if let Some(callee) = &a.via_call {
                add(e.call_may.entry(callee.clone()).or_default(), &a.name, &s);
                continue;
            }
            add(&mut e.may, &a.name, &s);
            let direct = matches!(
                &st.kind,
                StmtKind::Assign { .. } | StmtKind::Do { .. } | StmtKind::Io { .. }
            );
            if direct && !conditional && self.exact(a, exact) {
                add(&mut e.must, &a.name, &s);
            }
            if direct && !conditional && a.via_call.is_none() && a.implied.is_empty() {
                e.wkeys.insert((a.name.clone(), key(&a.subs)));
            }
        }
        e
    }

    /// Is this DO loop exact (runs in full: step 1, constant bounds in its environment)?
    fn exact_loop(&self, header: StmtId) -> Option<Name> {
        let st = self.unit.stmt(header);
        let StmtKind::Do { var, lo, hi, step, .. } = &st.kind else {
            return None;
        };
        if let Some(s) = step {
            if self.sema.eval_int(s) != Some(1) {
                return None;
            }
        }
        let no = Env::new();
        let env = self.envs.get(&header).unwrap_or(&no);
        match (interval(self.sema, lo, env), interval(self.sema, hi, env)) {
            (Some((a, b)), Some((c, d))) if a == b && c == d && a <= c => Some(var.clone()),
            _ => None,
        }
    }

    /// Effects of a node list executed once, in order.
    pub fn nodes(&self, nodes: &[Node], exact: &BTreeSet<Name>) -> Eff {
        self.seq(nodes, exact, false)
    }

    pub fn node(&self, n: &Node, exact: &BTreeSet<Name>) -> Eff {
        let key = match n {
            Node::Do { header, .. } if exact.is_empty() => *header,
            _ => return self.node_in(n, exact, false),
        };
        if let Some(e) = self.node_cache.borrow().get(&key) {
            return e.clone();
        }
        let e = self.node_in(n, exact, false);
        self.node_cache.borrow_mut().insert(key, e.clone());
        e
    }

    fn seq(&self, nodes: &[Node], exact: &BTreeSet<Name>, keyed: bool) -> Eff {
        let mut e = Eff::default();
        for n in nodes {
            let x = self.node_in(n, exact, keyed);
            e.then(x, keyed);
        }
        e
    }

    fn node_in(&self, n: &Node, exact: &BTreeSet<Name>, keyed: bool) -> Eff {
        if let (Node::Do { header, .. }, true) = (n, exact.is_empty()) {
            let key = (*header, keyed);
            if let Some(e) = self.nest_cache.borrow().get(&key) {
                return e.clone();
            }
            let e = self.node_uncached(n, exact, keyed);
            self.nest_cache.borrow_mut().insert(key, e.clone());
            return e;
        }
        self.node_uncached(n, exact, keyed)
    }

    fn node_uncached(&self, n: &Node, exact: &BTreeSet<Name>, keyed: bool) -> Eff {
        match n {
            Node::Stmt(id) => self.stmt(self.unit.stmt(*id), exact),
            Node::Do { header, body, .. } => {
                let mut e = self.stmt(self.unit.stmt(*header), exact);
                let mut inner = exact.clone();
                let full = self.exact_loop(*header);
                if let Some(v) = &full {
                    inner.insert(v.clone());
                }
                let mut b = self.seq(body, &inner, true);
                // Assignments of one iteration do not carry to the next; a loop that may not
                // run in full writes nothing surely.
                b.wkeys.clear();
                if full.is_none() || !self.runs_through(body) {
                    b.must.clear();
                }
                e.then(b, keyed);
                e
            }
            Node::If { arms, .. } => {
                let mut e = Eff::default();
                let mut outs: Vec<Eff> = vec![];
                let mut has_else = false;
                for (h, b) in arms {
                    let hs = self.unit.stmt(*h);
                    if matches!(hs.kind, StmtKind::Else) {
                        has_else = true;
                    }
                    let c = self.stmt(hs, exact);
                    e.reads = union(&e.reads, &c.reads);
                    e.rkeys.extend(c.rkeys);
                    outs.push(self.seq(b, exact, keyed));
                }
                let mut must: Option<VarSets> = if has_else { None } else { Some(VarSets::new()) };
                let mut wkeys: Option<BTreeSet<(Name, String)>> =
                    if has_else { None } else { Some(BTreeSet::new()) };
                for o in &outs {
                    wkeys = Some(match wkeys {
                        None => o.wkeys.clone(),
                        Some(w) => w.intersection(&o.wkeys).cloned().collect(),
                    });
                    e.reads = union(&e.reads, &o.reads);
                    e.rkeys.extend(o.rkeys.iter().cloned());
                    e.may = union(&e.may, &o.may);
                    union_calls(&mut e.call_may, &o.call_may);
                    e.calls.extend(o.calls.iter().cloned());
                    must = Some(match must {
                        None => o.must.clone(),
                        Some(m) if exact.is_empty() => intersect(&m, &o.must),
                        // Inside loops only identical sections are kept (see module doc).
                        Some(m) => m
                            .into_iter()
                            .filter(|(k, s)| o.must.get(k) == Some(s))
                            .collect(),
                    });
                }
                e.must = must.unwrap_or_default();
                e.wkeys = wkeys.unwrap_or_default();
                e
            }
        }
    }

    /// No statement of the list can leave it early (GOTO out, EXIT, CYCLE, RETURN, STOP).
    pub fn runs_through(&self, nodes: &[Node]) -> bool {
        let inside = analyzer::cfg::labels_within(self.unit, nodes);
        let mut ok = true;
        for_each_stmt(self.unit, nodes, &mut |st| {
            ok &= !analyzer::cfg::stmt_is(&st.kind, &|k| match k {
                StmtKind::Stop
                | StmtKind::Return
                | StmtKind::Exit(_)
                | StmtKind::Cycle(_)
                | StmtKind::DoWhile { .. }
                | StmtKind::Error
                | StmtKind::Unsupported { .. } => true,
                k => analyzer::cfg::jumps_out(k, &inside),
            });
        });
        ok
    }
}

/// The variables of a unit: declared ones and implicitly typed ones (known from their uses).
pub fn unit_vars(cx: &EffCx) -> Vec<Name> {
    let mut names: BTreeSet<Name> = cx
        .sema
        .symbols
        .iter()
        .filter(|(_, s)| s.param.is_none() && !s.external && !s.intrinsic)
        .map(|(n, _)| n.clone())
        .collect();
    for_each_stmt(cx.unit, &cx.unit.body, &mut |s| {
        let e = cx.stmt(s, &BTreeSet::new());
        names.extend(e.reads.keys().cloned());
        names.extend(e.may.keys().cloned());
        names.extend(e.call_may.values().flat_map(|m| m.keys().cloned()));
    });
    names.into_iter().collect()
}

/// Procedures that return with host and device consistent (the conventions in
/// `dvmh/mod.rs`): those that run regions (`region_procs`), and host-only ones that write,
/// themselves or through calls, a member of a COMMON block in `device_blocks` (blocks with a
/// member a region moves to or from the accelerator): such a block may not be declared where
/// the procedure is called, so only the procedure can declare its writes actual. Every other
/// procedure leaves that to its callers.
pub fn consistent_procedures(prog: &analyzer::program::Program, region_procs: &BTreeSet<Name>, device_blocks: &BTreeSet<Name>) -> BTreeSet<Name> {
    let mut set = region_procs.clone();
    for u in &prog.units {
        if u.kind == UnitKind::Program {
            continue;
        }
        if let Some(s) = prog.summaries.get(&u.name) {
            if s.commons.iter().any(|((b, _), e)| device_blocks.contains(b) && !e.write.is_empty()) {
                set.insert(u.name.clone());
            }
        }
    }
    set
}

/// The COMMON blocks of the variables in `sets` (as declared in `sema`).
pub fn blocks_of(sema: &UnitSema, sets: &VarSets, out: &mut BTreeSet<Name>) {
    for v in sets.keys() {
        if let Some((b, _)) = sema.symbol(v).and_then(|s| s.common.as_ref()) {
            out.insert(b.clone());
        }
    }
}

/// Procedures that run regions, directly (`direct`, by unit index) or through the
/// procedures they call, by name.
pub fn region_procedures(prog: &analyzer::program::Program, direct: &BTreeSet<usize>) -> BTreeSet<Name> {
    let mut set: BTreeSet<Name> = direct.iter().map(|&u| prog.units[u].name.clone()).collect();
    loop {
        let before = set.len();
        for (caller, callee, _) in &prog.call_graph.edges {
            if set.contains(callee) {
                set.insert(prog.units[*caller].name.clone());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}
