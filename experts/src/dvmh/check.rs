//! The actuality checker: replays a Fortran-DVMH program (as read back from its text) with a
//! model of which copy of every variable is actual, on the host and on the accelerator, and
//! of what the runtime believes, and reports every place where the program could read stale
//! data: a host statement reading what a region changed without a GET_ACTUAL before it, a
//! region reading what is not actual on the accelerator (missing IN, or an ACTUAL missing
//! after a host write), a region writing something it does not declare OUT or LOCAL, an
//! ACTUAL declaring stale host data actual, a call or a return with data still on the
//! accelerator.
//!
//! It shares nothing with the placement but the access sections and the control-flow walk:
//! it trusts no clause, it checks them against the statements.
//!
//! Model per variable (element sets): `fh`/`fd` the host / device copy surely holds the
//! newest values; `bh`/`bd` the runtime may believe the host / device copy actual (`_must`:
//! surely believes). The runtime copies an element only where it does not believe it actual,
//! from where it does; a directive runs when control falls through to the statement after it
//! (a jump to that statement's label skips it).

use super::effects::{add, intersect, minus, minus_in, replace_on_in, union, union_in, EffCx, VarSets};
use super::walk::{Group, Hooks, Item, State, Walk};
use super::{effects, nonlocal};
use analyzer::ast::*;
use analyzer::directives::{DExpr, DirectiveKind, RegionClauseKind, Subscript};
use analyzer::program::Program;
use analyzer::sections::{DimSet, Section, SectionSet};
use analyzer::sema::UnitSema;
use std::collections::{BTreeMap, BTreeSet};

/// A place where the program may use stale data.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// Element sets; all "surely" sets except `bh_may` / `bd_may`.
#[derive(Clone, PartialEq, Default, Debug)]
struct CState {
    /// The host copy holds the newest value.
    fh: VarSets,
    /// The device copy holds the newest value.
    fd: VarSets,
    /// The copy the runtime would use for the device is fresh: (bd -> fd) and (not bd -> fh).
    gd: VarSets,
    /// The copy the runtime would use for the host is fresh: (bh -> fh) and (not bh -> fd).
    gh: VarSets,
    bh_may: VarSets,
    bh_must: VarSets,
    bd_may: VarSets,
    bd_must: VarSets,
}

impl State for CState {
    fn join(&mut self, o: &Self) {
        self.fh = intersect(&self.fh, &o.fh);
        self.fd = intersect(&self.fd, &o.fd);
        self.gd = intersect(&self.gd, &o.gd);
        self.gh = intersect(&self.gh, &o.gh);
        self.bh_may = union(&self.bh_may, &o.bh_may);
        self.bh_must = intersect(&self.bh_must, &o.bh_must);
        self.bd_may = union(&self.bd_may, &o.bd_may);
        self.bd_must = intersect(&self.bd_must, &o.bd_must);
    }
}

impl CState {
    /// The runtime now takes `s` as actual on one side only (the host for ACTUAL, the device
    /// for a region's OUT).
    fn believe_only(&mut self, s: &VarSets, on_device: bool) {
        let (yes_may, yes_must, no_may, no_must) = if on_device {
            (&mut self.bd_may, &mut self.bd_must, &mut self.bh_may, &mut self.bh_must)
        } else {
            (&mut self.bh_may, &mut self.bh_must, &mut self.bd_may, &mut self.bd_must)
        };
        *yes_may = union(yes_may, s);
        *yes_must = union(yes_must, s);
        *no_may = minus(no_may, s);
        *no_must = minus(no_must, s);
    }
}


struct RegionText {
    line: u32,
    end: u32,
    ins: VarSets,
    outs: VarSets,
    locals: VarSets,
    private: BTreeSet<Name>,
}

enum Act {
    Get(Option<VarSets>),
    Actual(Option<VarSets>),
}

struct Checker<'a> {
    cx: EffCx<'a>,
    file: String,
    main: bool,
    regions: Vec<RegionText>,
    /// Directives by the statement they stand before (line order).
    before: BTreeMap<StmtId, Vec<(u32, Act)>>,
    /// Directives at the end of a list closed by the statement (None: the unit's end).
    at_end: BTreeMap<Option<StmtId>, Vec<(u32, Act)>>,
    findings: BTreeSet<Finding>,
    vars: Vec<Name>,
    /// Host loops checked whole (no region, directive or call inside).
    whole: BTreeSet<StmtId>,
    /// Procedures that run regions (themselves or through calls).
    region_procs: BTreeSet<Name>,
    /// Procedures that return with every copy consistent: those that run regions, and
    /// host-only ones with GET_ACTUAL/ACTUAL directives of their own. A call of any other
    /// procedure is a host statement: its caller declares what it writes actual.
    consistent_procs: BTreeSet<Name>,
}


fn eval(e: &DExpr, sema: &UnitSema) -> Option<i64> {
    e.eval_int(&|n| sema.param(n).and_then(|c| c.as_int()))
}

/// The elements a directive's reference names.
fn ref_set(r: &analyzer::directives::ArrayRef, sema: &UnitSema) -> SectionSet {
    let whole = effects::whole(sema, &r.name);
    if r.subs.is_empty() || whole.rank() != r.subs.len() {
        return whole;
    }
    let bounds = sema.symbol(&r.name).map(|s| s.bounds()).unwrap_or_default();
    let dims = r
        .subs
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let b = bounds.get(k).copied().flatten();
            match s {
                Subscript::Expr(e) => eval(e, sema).map_or(DimSet::all(), DimSet::point),
                Subscript::Star => DimSet::all(),
                Subscript::Range(lo, hi) => {
                    let lo = lo.as_ref().map_or(b.map(|x| x.0), |e| eval(e, sema));
                    let hi = hi.as_ref().map_or(b.map(|x| x.1), |e| eval(e, sema));
                    match (lo, hi) {
                        (Some(l), Some(h)) => DimSet::range(l, h),
                        _ => DimSet::all(),
                    }
                }
            }
        })
        .collect();
    SectionSet::from_section(Section::new(dims)).clamp(&bounds)
}

fn list(refs: &[analyzer::directives::ArrayRef], sema: &UnitSema) -> Option<VarSets> {
    if refs.is_empty() {
        return None;
    }
    let mut v = VarSets::new();
    for r in refs {
        add(&mut v, &r.name, &ref_set(r, sema));
    }
    Some(v)
}

impl Checker<'_> {
    fn sema(&self) -> &UnitSema {
        self.cx.sema
    }

    fn report(&mut self, line: u32, message: String) {
        self.findings.insert(Finding {
            file: self.file.clone(),
            line,
            message,
        });
    }

    fn show(&self, v: &str, s: &SectionSet) -> String {
        let parts = super::render::parts(self.cx.unit, self.sema(), v, s);
        parts.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(",")
    }

    fn all_of(&self, sets: &Option<VarSets>) -> VarSets {
        match sets {
            Some(v) => v.clone(),
            None => self
                .vars
                .iter()
                .map(|v| (v.clone(), effects::whole(self.sema(), v)))
                .collect(),
        }
    }

    fn apply(&mut self, line: u32, act: &Act, st: &mut CState) {
        match act {
            Act::Get(sets) => {
                let s = self.all_of(sets);
                // The host ends with its own value where it is believed, the device's value
                // elsewhere: exactly what `gh` says is fresh.
                { let n = st.gh.clone(); replace_on_in(&mut st.fh, &s, &n); }
                union_in(&mut st.bh_may, &s);
                union_in(&mut st.bh_must, &s);
                { let n = st.fh.clone(); replace_on_in(&mut st.gh, &s, &n); }
            }
            Act::Actual(sets) => {
                let s = self.all_of(sets);
                let stale = minus(&s, &st.fh);
                for (v, x) in &stale {
                    let m = format!(
                        "ACTUAL({}) declares the host values actual, but {} may be stale on the host",
                        v.to_uppercase(),
                        self.show(v, x)
                    );
                    self.report(line, m);
                }
                st.believe_only(&s, false);
                { let n = st.fh.clone(); replace_on_in(&mut st.gd, &s, &n); }
                { let n = st.fh.clone(); replace_on_in(&mut st.gh, &s, &n); }
            }
        }
    }

    /// Host copies of what a procedure can see are actual and believed, device beliefs true.
    fn consistent(&mut self, line: u32, vars: &BTreeSet<Name>, st: &CState, what: &str) {
        for v in vars {
            let w = effects::whole(self.sema(), v);
            let empty = SectionSet::empty(w.rank());
            let fh = st.fh.get(v).unwrap_or(&empty);
            let bh = st.bh_must.get(v).unwrap_or(&empty);
            let stale = w.difference(&fh.intersect(bh));
            if !stale.is_empty() {
                let m = format!("{what}, but {} may be stale on the host (missing GET_ACTUAL)", self.show(v, &stale));
                self.report(line, m);
            }
            let bad = w.difference(st.gd.get(v).unwrap_or(&empty));
            if !bad.is_empty() {
                let m = format!(
                    "{what}, but the runtime may still take {} on the accelerator as actual after a host write (missing ACTUAL)",
                    self.show(v, &bad)
                );
                self.report(line, m);
            }
        }
    }

    /// After a call that may run regions (`callees`) and whose procedures all return with
    /// every copy consistent (`consistent`; otherwise the call's writes were applied as host
    /// writes, which the caller must declare).
    fn after_call(&self, callees: bool, consistent: bool, vars: &BTreeSet<Name>, st: &mut CState) {
        for v in vars {
            let w = effects::whole(self.sema(), v);
            if consistent {
                for set in [&mut st.fh, &mut st.bh_may, &mut st.bh_must, &mut st.gd, &mut st.gh] {
                    set.insert(v.clone(), w.clone());
                }
                st.fd.remove(v);
                st.bd_must.remove(v);
            }
            if callees {
                st.bd_may.insert(v.clone(), w.clone());
            }
        }
    }

    fn region(&mut self, nodes: &[Node], st: &mut CState) {
        let unit = self.cx.unit;
        let first = unit.stmt(super::first_stmt(&nodes[0])).span.line;
        let Some(k) = self.regions.iter().position(|r| r.line < first && first < r.end) else {
            return;
        };
        let (rline, ins, outs, locals, private) = {
            let r = &self.regions[k];
            (r.line, r.ins.clone(), r.outs.clone(), r.locals.clone(), r.private.clone())
        };
        // Entry: the device ends with its own value where it is believed, the host's
        // elsewhere: exactly what `gd` says is fresh.
        { let n = st.gd.clone(); replace_on_in(&mut st.fd, &ins, &n); }
        union_in(&mut st.bd_may, &ins);
        union_in(&mut st.bd_must, &ins);
        // Body.
        let mut skip = private;
        for_each_stmt(unit, nodes, &mut |s| {
            if let StmtKind::Do { var, .. } = &s.kind {
                skip.insert(var.clone());
            }
        });
        let mut eff = self.cx.nodes(nodes, &BTreeSet::new());
        for v in &skip {
            eff.reads.remove(v);
            eff.may.remove(v);
            eff.must.remove(v);
        }
        for c in &eff.calls {
            let m = format!("region calls `{}`", c.name.to_uppercase());
            self.report(c.line, m);
        }
        for (v, x) in &minus(&eff.reads, &ins) {
            let m = format!("the region reads {} but does not declare it IN", self.show(v, x));
            self.report(rline, m);
        }
        let there = intersect(&st.fd, &st.bd_must);
        let missing = minus(&eff.reads, &there);
        for (v, x) in &missing {
            let m = format!(
                "the region reads {} that may not be actual on the accelerator (missing IN, or ACTUAL after a host write)",
                self.show(v, x)
            );
            self.report(rline, m);
        }
        union_in(&mut st.fd, &eff.must);
        minus_in(&mut st.fh, &eff.may);
        let undeclared = minus(&eff.may, &union(&outs, &locals));
        for (v, x) in &undeclared {
            let m = format!("the region writes {} but does not declare it OUT or LOCAL", self.show(v, x));
            self.report(rline, m);
        }
        let produced = intersect(&union(&there, &eff.must), &st.fd);
        let unproduced = minus(&outs, &produced);
        for (v, x) in &unproduced {
            let m = format!(
                "OUT declares {} but the accelerator may not hold its newest values",
                self.show(v, x)
            );
            self.report(rline, m);
        }
        // Exit: OUT actual on the device only; LOCAL forgotten on the device.
        st.believe_only(&outs, true);
        minus_in(&mut st.bd_may, &locals);
        minus_in(&mut st.bd_must, &locals);
        // Good copies: OUT -> the device value; LOCAL -> the host value (for the device);
        // other written elements: the host copy is stale where the host is believed.
        { let n = st.fd.clone(); replace_on_in(&mut st.gd, &outs, &n); }
        { let n = st.fd.clone(); replace_on_in(&mut st.gh, &outs, &n); }
        { let n = st.fh.clone(); replace_on_in(&mut st.gd, &locals, &n); }
        let rest = minus(&eff.may, &outs);
        let gh_rest = minus(&intersect(&rest, &st.fd), &st.bh_may);
        replace_on_in(&mut st.gh, &rest, &gh_rest);
    }

    fn visible(&self, e: &effects::Eff) -> BTreeSet<Name> {
        self.vars
            .iter()
            .filter(|v| {
                nonlocal(self.sema(), v)
                    || e.reads.contains_key(*v)
                    || e.may.contains_key(*v)
                    || e.call_writes(v)
            })
            .cloned()
            .collect()
    }
}

impl Checker<'_> {
    fn host(&mut self, line: u32, eff: effects::Eff, st: &mut CState) {
        {
            {
                let stale = minus(&eff.reads, &st.fh);
                for (v, x) in &stale {
                    let m = format!(
                        "reads {} whose newest values may be on the accelerator (missing GET_ACTUAL)",
                        self.show(v, x)
                    );
                    self.report(line, m);
                }
                if !eff.calls.is_empty() {
                    let vis = self.visible(&eff);
                    let what = format!("calls `{}`", eff.calls[0].name.to_uppercase());
                    self.consistent(line, &vis, st, &what);
                }
                let may = eff.host_writes(&self.consistent_procs);
                union_in(&mut st.fh, &eff.must);
                minus_in(&mut st.fd, &may);
                // Written elements: the device copy is stale, so each copy the runtime would
                // use is good only where it is the host's and the host's is fresh.
                let gd = minus(&intersect(&may, &st.fh), &st.bd_may);
                let gh = intersect(&intersect(&may, &st.bh_must), &st.fh);
                replace_on_in(&mut st.gd, &may, &gd);
                replace_on_in(&mut st.gh, &may, &gh);
                if !eff.calls.is_empty() {
                    let vis = self.visible(&eff);
                    let with_regions = eff.calls.iter().any(|c| self.region_procs.contains(&c.name));
                    let consistent = eff.calls.iter().all(|c| self.consistent_procs.contains(&c.name));
                    self.after_call(with_regions, consistent, &vis, st);
                }
            }
        }
    }
}

impl Hooks<CState> for Checker<'_> {
    fn group(&mut self, list: &[Node], i: usize) -> Group {
        let unit = self.cx.unit;
        let line = |n: &Node| unit.stmt(super::first_stmt(n)).span.line;
        let l = line(&list[i]);
        if let Some(r) = self.regions.iter().find(|r| r.line < l && l < r.end) {
            let (a, b) = (r.line, r.end);
            let inside = |n: &Node| {
                let x = line(n);
                a < x && x < b
            };
            if i > 0 && inside(&list[i - 1]) {
                return Group::Descend; // not reached: a region is taken whole
            }
            let len = list[i..].iter().take_while(|n| inside(n)).count();
            let last = super::last_line(unit, &list[i + len - 1]);
            if last > b {
                self.report(a, "REGION ... END REGION does not enclose whole statements of one block".into());
            }
            return Group::Region(len);
        }
        if let Node::Do { header, .. } = &list[i] {
            if self.whole.contains(header) {
                return Group::Whole;
            }
        }
        Group::Descend
    }

    fn item(&mut self, item: Item, st: &mut CState) {
        match item {
            Item::Region(nodes) => self.region(nodes, st),
            Item::Loop(n) => {
                let line = self.cx.unit.stmt(super::first_stmt(n)).span.line;
                let eff = self.cx.node(n, &BTreeSet::new());
                self.host(line, eff, st);
            }
            Item::Stmt(id) => {
                let s = self.cx.unit.stmt(id);
                let line = s.span.line;
                let eff = self.cx.stmt(s, &BTreeSet::new());
                self.host(line, eff, st);
            }
        }
    }
    fn exit(&mut self, at: Option<StmtId>, st: &CState) {
        if self.main {
            return;
        }
        let line = at.map_or(self.cx.unit.end_line, |id| self.cx.unit.stmt(id).span.line);
        let vars: BTreeSet<Name> = self.vars.iter().filter(|v| nonlocal(self.sema(), v)).cloned().collect();
        let st = st.clone();
        self.consistent(line, &vars, &st, "returns to the caller");
    }

    fn before(&mut self, id: StmtId, st: &mut CState) {
        if let Some(acts) = self.before.remove(&id) {
            for (l, a) in &acts {
                self.apply(*l, a, st);
            }
            self.before.insert(id, acts);
        }
    }

    fn list_end(&mut self, closer: Option<StmtId>, st: &mut CState) {
        if let Some(acts) = self.at_end.remove(&closer) {
            for (l, a) in &acts {
                self.apply(*l, a, st);
            }
            self.at_end.insert(closer, acts);
        }
    }
}

/// The directives inside each unit (not those of units contained in it), by unit index: one
/// pass over the directives (`Program::unit_at`).
pub fn directives_by_unit(prog: &Program) -> Vec<Vec<&analyzer::directives::Directive>> {
    let mut out: Vec<Vec<&analyzer::directives::Directive>> = vec![vec![]; prog.units.len()];
    for (fid, ds) in &prog.directives {
        for d in ds {
            let Some(ui) = prog.unit_at(*fid, d.line) else { continue };
            let unit = &prog.units[ui];
            if d.line > unit.span.line && d.line < unit.end_line {
                out[ui].push(d);
            }
        }
    }
    out
}

/// Check a whole program (read from the generated text).
pub fn check(prog: &Program) -> Vec<Finding> {
    let mut out = BTreeSet::new();
    let any_regions = prog
        .directives
        .values()
        .flatten()
        .any(|d| matches!(d.kind, DirectiveKind::Region { .. }));
    let by_unit = directives_by_unit(prog);
    // (a unit holding an internal procedure with a region counts too, as before)
    let with_regions: BTreeSet<usize> = prog
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| {
            prog.directives.get(&u.file).is_some_and(|ds| {
                let from = ds.partition_point(|d| d.line <= u.span.line);
                ds[from..]
                    .iter()
                    .take_while(|d| d.line < u.end_line)
                    .any(|d| matches!(d.kind, DirectiveKind::Region { .. }))
            })
        })
        .map(|(k, _)| k)
        .collect();
    let region_procs = effects::region_procedures(prog, &with_regions);
    // The COMMON blocks regions use, from their clauses (the same rule as the placement),
    // and the procedures with GET_ACTUAL/ACTUAL of their own: hand-written host-only ones
    // that keep the first convention.
    let mut device_blocks = BTreeSet::new();
    let mut own_directives = BTreeSet::new();
    for (ui, unit) in prog.units.iter().enumerate() {
        for d in by_unit[ui].iter().copied() {
            match &d.kind {
                DirectiveKind::Region { clauses, .. } => {
                    for (_, refs) in clauses {
                        effects::blocks_of(&prog.semas[ui], &list(refs, &prog.semas[ui]).unwrap_or_default(), &mut device_blocks);
                    }
                }
                DirectiveKind::Actual(_) | DirectiveKind::GetActual(_) if unit.kind != UnitKind::Program => {
                    own_directives.insert(unit.name.clone());
                }
                _ => {}
            }
        }
    }
    let mut consistent_procs = effects::consistent_procedures(prog, &region_procs, &device_blocks);
    consistent_procs.extend(own_directives);
    for (ui, unit) in prog.units.iter().enumerate() {
        if matches!(unit.kind, UnitKind::Module | UnitKind::BlockData) {
            continue;
        }
        let sema = &prog.semas[ui];
        let file = prog.map.file(unit.file).display_path();
        let dirs = &by_unit[ui];
        let mut regions = vec![];
        let mut open: Option<RegionText> = None;
        let mut before: BTreeMap<StmtId, Vec<(u32, Act)>> = BTreeMap::new();
        let mut at_end: BTreeMap<Option<StmtId>, Vec<(u32, Act)>> = BTreeMap::new();
        let mut private_by_line: Vec<(u32, Vec<Name>)> = vec![];
        for d in dirs {
            let next = unit.next_stmt_after(d.end_line);
            let act = match &d.kind {
                DirectiveKind::Region { clauses, .. } => {
                    let mut r = RegionText {
                        line: d.line,
                        end: u32::MAX,
                        ins: VarSets::new(),
                        outs: VarSets::new(),
                        locals: VarSets::new(),
                        private: BTreeSet::new(),
                    };
                    for (k, refs) in clauses {
                        let sets = list(refs, sema).unwrap_or_default();
                        use RegionClauseKind as K;
                        if matches!(k, K::In | K::InOut | K::InLocal) {
                            r.ins = union(&r.ins, &sets);
                        }
                        if matches!(k, K::Out | K::InOut) {
                            r.outs = union(&r.outs, &sets);
                        }
                        if matches!(k, K::Local | K::InLocal) {
                            r.locals = union(&r.locals, &sets);
                        }
                    }
                    if open.is_some() {
                        out.insert(Finding { file: file.clone(), line: d.line, message: "REGION inside a region".into() });
                    }
                    open = Some(r);
                    continue;
                }
                DirectiveKind::EndRegion => {
                    match open.take() {
                        Some(mut r) => {
                            r.end = d.line;
                            regions.push(r);
                        }
                        None => {
                            out.insert(Finding { file: file.clone(), line: d.line, message: "END REGION without REGION".into() });
                        }
                    }
                    continue;
                }
                DirectiveKind::Parallel { clauses, .. } => {
                    for c in clauses {
                        if let analyzer::directives::Clause::Private(v) = c {
                            private_by_line.push((d.line, v.clone()));
                        }
                    }
                    continue;
                }
                DirectiveKind::GetActual(refs) => Act::Get(list(refs, sema)),
                DirectiveKind::Actual(refs) => Act::Actual(list(refs, sema)),
                _ => continue,
            };
            match next {
                Some(s) if matches!(s.kind, StmtKind::EndDo | StmtKind::EndIf | StmtKind::Else | StmtKind::ElseIf(_)) => {
                    at_end.entry(Some(s.id)).or_default().push((d.line, act))
                }
                Some(s) => before.entry(s.id).or_default().push((d.line, act)),
                None => at_end.entry(None).or_default().push((d.line, act)),
            }
        }
        if let Some(r) = open {
            out.insert(Finding { file: file.clone(), line: r.line, message: "REGION without END REGION".into() });
        }
        for r in regions.iter_mut() {
            for (l, v) in &private_by_line {
                if *l > r.line && *l < r.end {
                    r.private.extend(v.iter().cloned());
                }
            }
        }
        let vars = effects::unit_vars(&EffCx::new(unit, sema, &prog.summaries).with_constants(prog));
        let main = unit.kind == UnitKind::Program;
        let mut entry = CState::default();
        for v in &vars {
            let w = effects::whole(sema, v);
            entry.fh.insert(v.clone(), w.clone());
            entry.bh_may.insert(v.clone(), w.clone());
            entry.bh_must.insert(v.clone(), w.clone());
            entry.gd.insert(v.clone(), w.clone());
            entry.gh.insert(v.clone(), w.clone());
            if !main && any_regions && consistent_procs.contains(&unit.name) && nonlocal(sema, v) {
                entry.bd_may.insert(v.clone(), w);
            }
        }
        let mut whole = BTreeSet::new();
        {
            let cx = EffCx::new(unit, sema, &prog.summaries).with_constants(prog);
            let mut marked: BTreeSet<u32> = regions.iter().flat_map(|r| [r.line, r.end]).collect();
            marked.extend(dirs.iter().map(|d| d.line));
            fn go(unit: &Unit, nodes: &[Node], cx: &EffCx, marked: &BTreeSet<u32>, rp: &BTreeSet<Name>, out: &mut BTreeSet<StmtId>) {
                for n in nodes {
                    match n {
                        Node::Do { header, body, .. } => {
                            let (a, b) = (unit.stmt(*header).span.line, super::last_line(unit, n));
                            let clean = !marked.iter().any(|l| *l > a && *l < b)
                                && !cx.node(n, &BTreeSet::new()).calls.iter().any(|c| rp.contains(&c.name))
                                && matches!(unit.stmt(*header).kind, StmtKind::Do { .. });
                            if clean {
                                out.insert(*header);
                            } else {
                                go(unit, body, cx, marked, rp, out);
                            }
                        }
                        Node::If { arms, .. } => {
                            for (_, b) in arms {
                                go(unit, b, cx, marked, rp, out);
                            }
                        }
                        Node::Stmt(_) => {}
                    }
                }
            }
            go(unit, &unit.body, &cx, &marked, &region_procs, &mut whole);
        }
        let mut ck = Checker {
            region_procs: region_procs.clone(),
            consistent_procs: consistent_procs.clone(),
            whole,
            cx: EffCx::new(unit, sema, &prog.summaries).with_constants(prog),
            file: file.clone(),
            main,
            regions,
            before,
            at_end,
            findings: BTreeSet::new(),
            vars,
        };
        Walk::run(unit, &mut ck, entry);
        out.extend(ck.findings);
    }
    out.into_iter().collect()
}
