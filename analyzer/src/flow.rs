//! Which COMMON storage carries values from one unit to another. A loop that assigns a
//! COMMON scalar in a subroutine must keep its last value for whoever reads it next, unless
//! no unit ever reads that storage before writing it itself: then the value dies with the
//! unit (NPB BT's TMP1..TMP3 work scalars, in COMMON and set before every use).
//!
//! Storage carries values between units when some unit may read it before writing it: it is
//! live where the unit starts, or right after a statement that calls a procedure (the callee
//! may have set it). A call to an external procedure without a body may read any COMMON
//! storage, so every block then carries values; a function of a C source given with the
//! program (`wtime.c`) is assumed not to read Fortran COMMON blocks.

use crate::access::{CallSite, Summary};
use crate::ast::Name;
use crate::cfg;
use crate::program::Program;
use std::collections::{BTreeMap, BTreeSet};

/// Byte ranges `[lo, hi)` per COMMON block.
pub type BlockRanges = BTreeMap<Name, Vec<(u64, u64)>>;

/// The COMMON storage that carries values between units (`None`: all of it).
#[derive(Clone, Debug, Default)]
pub struct Flows {
    /// Storage some unit may read where it starts, before writing it: whatever unit wrote
    /// it last, its value is used.
    pub any: BlockRanges,
    /// Storage a unit reads right after a call, where the callee may have written it: live
    /// where the callee (or a procedure it calls) ends, not where the caller does (SP's
    /// X_SOLVE reads the LHS planes LHSINIT wrote: LHSINIT's values are used, X_SOLVE's last
    /// ones are not). By callee name.
    pub from_callee: BTreeMap<Name, BlockRanges>,
    /// Storage a procedure that runs at most once (`runs_once`) reads where it starts,
    /// before writing it, by procedure: what any other unit leaves there may be used, what
    /// the procedure itself leaves is not (it never starts again). NPB SP's EXACT_RHS reads
    /// its work array UE first where the analysis cannot show it written.
    pub once: BTreeMap<Name, BlockRanges>,
    /// Storage a unit reads first only where tests on values the whole program keeps (COMMON
    /// elements and scalars set once, `crate::facts`) fail: (block, byte range, tests `d >=
    /// 0`). Counted as live like `any`; a loop parallel under run-time tests may take them
    /// as its own (`member_flows_unless`). NPB SP's Y_SOLVE reads LHS at `J = 2` first only
    /// when `GRID_POINTS(2) < 3`.
    pub unless: Vec<(Name, (u64, u64), Vec<crate::affine::Lin>)>,
}

pub type CommonFlow = Option<Flows>;

/// Whether member `idx` of block `block` in unit `unit` (offset and size as that unit
/// declares them) may carry a value from that unit to another.
pub fn member_flows(flow: &CommonFlow, unit: &str, block: &str, offset: Option<u64>, bytes: Option<u64>) -> bool {
    // (it carries none only when no entry, conditional or not, meets it)
    member_flows_unless(flow, unit, block, offset, bytes).is_none_or(|tests| !tests.is_empty())
}

/// Under which tests member `idx` of `block` carries no value out of `unit`: None when it may
/// carry one whatever the tests, else the union of the tests of the `Flows::unless` entries
/// it meets (empty: it carries none; the entries' tests are never empty).
pub fn member_flows_unless(flow: &CommonFlow, unit: &str, block: &str, offset: Option<u64>, bytes: Option<u64>) -> Option<Vec<crate::affine::Lin>> {
    let f = flow.as_ref()?;
    let (lo, n) = (offset?, bytes?);
    let hit = |r: &BlockRanges| r.get(block).is_some_and(|rs| rs.iter().any(|&(a, b)| a < lo + n && lo < b));
    if hit(&f.any) || f.from_callee.get(unit).is_some_and(hit) || f.once.iter().any(|(r, ranges)| r != unit && hit(ranges)) {
        return None;
    }
    let mut tests = vec![];
    for (_, _, t) in f.unless.iter().filter(|(b, (a, z), _)| b == block && *a < lo + n && lo < *z) {
        for x in t {
            if !tests.contains(x) {
                tests.push(x.clone());
            }
        }
    }
    Some(tests)
}

/// The procedures that run at most once in an execution: called from exactly one statement
/// of the program, a statement at the top level of the main program (not inside a loop or
/// an IF block), whose body does not jump backward.
pub fn runs_once(program: &Program) -> BTreeSet<Name> {
    let mains: Vec<usize> = (0..program.units.len()).filter(|&i| program.units[i].kind == crate::ast::UnitKind::Program).collect();
    let [main] = mains[..] else { return BTreeSet::new() };
    let m = &program.units[main];
    if cfg::jumps_backward(m) {
        return BTreeSet::new();
    }
    let top_lines: BTreeSet<u32> = m
        .body
        .iter()
        .filter_map(|n| match n {
            crate::ast::Node::Stmt(id) => Some(m.stmt(*id).span.line),
            _ => None,
        })
        .collect();
    let mut sites: BTreeMap<&Name, Vec<(usize, u32)>> = BTreeMap::new();
    for (c, callee, line) in &program.call_graph.edges {
        sites.entry(callee).or_default().push((*c, *line));
    }
    sites
        .into_iter()
        .filter(|(_, v)| matches!(v[..], [(c, line)] if c == main && top_lines.contains(&line)))
        .map(|(n, _)| n.clone())
        .filter(|n| program.units.iter().filter(|u| &u.name == n).count() == 1)
        .collect()
}

/// The procedures a call of each procedure may run: itself and, transitively, what it calls
/// (computed on demand, once per callee).
pub struct Reach {
    callees: BTreeMap<Name, BTreeSet<Name>>,
    memo: BTreeMap<Name, BTreeSet<Name>>,
}

impl Reach {
    pub fn new(program: &Program) -> Reach {
        let mut callees: BTreeMap<Name, BTreeSet<Name>> = BTreeMap::new();
        for (c, callee, _) in &program.call_graph.edges {
            callees.entry(program.units[*c].name.clone()).or_default().insert(callee.clone());
        }
        Reach { callees, memo: BTreeMap::new() }
    }

    pub fn of(&mut self, name: &str) -> &BTreeSet<Name> {
        if !self.memo.contains_key(name) {
            let mut out = BTreeSet::new();
            let mut todo = vec![name.to_string()];
            while let Some(n) = todo.pop() {
                if let Some(cs) = self.callees.get(&n) {
                    todo.extend(cs.iter().filter(|c| !out.contains(*c)).cloned());
                }
                out.insert(n);
            }
            self.memo.insert(name.to_string(), out);
        }
        &self.memo[name]
    }
}

/// The flow of COMMON storage between the units of `program`.
pub fn common_flow(program: &Program) -> CommonFlow {
    let mut out = Flows::default();
    let mut reach = Reach::new(program);
    let once = runs_once(program);
    for (i, u) in program.units.iter().enumerate() {
        let sema = &program.semas[i];
        // liveness inside the unit alone: COMMON is not live where it ends
        let g = cfg::build_with_flow(u, sema, &program.summaries, false, &Some(Flows::default()));
        // an array stays live across a write of some of its elements: where the unit surely
        // writes what it reads of an array first, that array carries nothing in
        let per_stmt = crate::interproc::stmt_accesses(u, sema, &program.summaries);
        let is_array = |n: &Name| sema.symbol(n).is_some_and(|s| s.is_array());
        let exposed = crate::loops::unit_must_writes(u, sema, &program.summaries, &per_stmt).map(|(_, e)| e);
        // (where the main program starts, no unit has run: nothing reaches it from another)
        let mut live: BTreeSet<Name> = match u.kind {
            crate::ast::UnitKind::Program => BTreeSet::new(),
            _ => g.entry.map(|e| g.live_in[e.0 as usize].clone()).unwrap_or_default(),
        };
        // (or where the summary counts its reads as its own: `concrete::owned_scratch`)
        let own = |n: &Name| {
            let key = sema.symbol(n).and_then(|s| s.common.clone());
            key.is_some_and(|k| program.summaries.get(&u.name).and_then(|s| s.commons.get(&k)).is_some_and(|e| e.own_reads))
        };
        live.retain(|n| !is_array(n) || (!own(n) && exposed.as_ref().is_none_or(|e| e.contains(n))));
        for st in u.stmts.iter().filter(|s| s.kind.is_executable()) {
            let calls = &per_stmt[st.id.0 as usize].1;
            if calls.is_empty() {
                continue;
            }
            if calls_unknown(calls, &program.summaries, &program.c_idents) {
                return None;
            }
            if let Some(&(b, k)) = g.item_of.get(&st.id) {
                let mut after = g.live_at(b, k + 1);
                // an array carries a value from the call when the callee may write it and what
                // follows may read it before writing it (only COMMON members matter here: the
                // walk is done only for them)
                let common_array = |n: &Name| sema.symbol(n).is_some_and(|s| s.is_array() && s.common.is_some());
                if matches!(st.kind.action(), crate::ast::StmtKind::Call { .. }) && after.iter().any(common_array) {
                    let read = crate::loops::arrays_read_after(u, sema, &program.summaries, &per_stmt, st.id);
                    // (as the COMMON member: values a callee writes through an argument do not
                    // pass through the block from one unit to another)
                    let set = |n: &Name| {
                        let Some((block, idx)) = sema.symbol(n).and_then(|s| s.common.clone()) else { return true };
                        calls.iter().any(|c| program.summaries.get(&c.name).is_none_or(|sum| sum.writes_common(&block, idx)))
                    };
                    after.retain(|n| !is_array(n) || (set(n) && read.as_ref().is_none_or(|r| r.contains(n))));
                }
                // what the callees may have set: live where they end
                let mut from: BlockRanges = BTreeMap::new();
                for n in &after {
                    if let Some((block, range)) = member_range(sema, n) {
                        from.entry(block).or_default().push(range);
                    }
                }
                if !from.is_empty() {
                    for c in calls {
                        for r in reach.of(&c.name) {
                            let e = out.from_callee.entry(r.clone()).or_default();
                            for (b, rs) in &from {
                                e.entry(b.clone()).or_default().extend(rs.iter().copied());
                            }
                        }
                    }
                }
            }
        }
        // what it still reads first when sizes the whole program keeps are large enough (the
        // walk made only for a unit that reads a COMMON array first and has facts)
        let assuming = std::cell::OnceCell::new();
        let assuming = |n: &Name| {
            if !is_array(n) || sema.facts.is_empty() {
                return None;
            }
            assuming
                .get_or_init(|| crate::loops::unit_exposed_assuming(u, sema, &program.summaries, &per_stmt, &sema.fact_symbols()))
                .as_ref()
                .filter(|(e, t)| !e.contains(n) && !t.is_empty())
                .map(|(_, t)| t.clone())
        };
        for n in &live {
            if let Some((block, range)) = member_range(sema, n) {
                if let Some(tests) = assuming(n) {
                    out.unless.push((block, range, tests));
                    continue;
                }
                let to = if once.contains(&u.name) { out.once.entry(u.name.clone()).or_default() } else { &mut out.any };
                to.entry(block).or_default().push(range);
            }
        }
        // storage shared through EQUIVALENCE with a COMMON member: the whole block
        for s in sema.symbols.values().filter(|s| s.common.is_some() && !s.aliases.is_empty()) {
            out.any.entry(s.common.clone().unwrap().0).or_default().push((0, u64::MAX));
        }
    }
    Some(out)
}

/// The COMMON block and byte range of member `n` of a unit (the whole block when its place
/// is not known); None when `n` is not in COMMON.
fn member_range(sema: &crate::sema::UnitSema, n: &str) -> Option<(Name, (u64, u64))> {
    let (block, idx) = sema.symbol(n).and_then(|s| s.common.clone())?;
    let m = sema.commons.get(&block).and_then(|ms| ms.get(idx));
    let range = match m.map(|m| (m.offset, m.bytes)) {
        Some((Some(o), Some(b))) => (o, o + b),
        _ => (0, u64::MAX),
    };
    Some((block, range))
}

/// Whether some of these calls reaches a procedure without a body (this one, or one its
/// callee reaches) other than a function of the C sources given with the program (identifiers
/// `c_idents`), which could read or write any COMMON block.
pub fn calls_unknown(calls: &[CallSite], summaries: &BTreeMap<Name, Summary>, c_idents: &BTreeSet<String>) -> bool {
    let in_c = |n: &str| in_c_sources(c_idents, n);
    calls.iter().filter(|c| c.unknown).any(|c| match summaries.get(&c.name) {
        Some(sum) => !sum.unknown_calls.iter().all(|n| in_c(n)),
        None => !in_c(&c.name),
    })
}

/// Whether `name` is an identifier of the C sources given with the program (`c_idents`), as
/// written or with the trailing underscore of a Fortran-callable C function.
pub fn in_c_sources(c_idents: &BTreeSet<String>, name: &str) -> bool {
    c_idents.contains(name) || c_idents.contains(&format!("{name}_"))
}

/// Identifiers of the C sources given with the program (lower case).
pub(crate) fn c_identifiers(foreign: &[std::path::PathBuf]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in foreign {
        let Ok(text) = std::fs::read_to_string(p) else { continue };
        for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !w.is_empty() {
                out.insert(w.to_ascii_lowercase());
            }
        }
    }
    out
}
