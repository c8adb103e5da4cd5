//! The DVM expert (SPEC section 5): chooses the arrays worth distributing and their alignment
//! with a template array, enumerates the distribution variants (every BLOCK / `*` combination
//! over the template's dimensions, plus "nothing distributed"), maps every parallel loop nest
//! onto the distributed data (`PARALLEL ... ON`, REDUCTION, PRIVATE, SHADOW_RENEW with exact
//! widths, ACROSS, REMOTE_ACCESS), and estimates each variant with the cost model over every
//! process-grid shape. All variants are returned; the cheapest is marked by the caller.

use crate::machine::MachineModel;
use crate::scheme::*;
use analyzer::access::{Access, AccessCtx};
use analyzer::affine::{linearize, Lin};
use analyzer::ast::{for_each_stmt, Expr, Name, Node, StmtId, StmtKind, Unit};
use analyzer::loops::{LoopInfo, RedOp, Verdict, NOT_APPLIED};
use analyzer::overrides::Override;
use analyzer::report::Analysis;
use analyzer::sema::UnitSema;
use std::collections::{BTreeMap, BTreeSet};

/// How one subscript of an array reference inside a nest relates to the nest's variables.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SubForm {
    /// coeff * var + offset, var one of the nest's (mapped) loop variables.
    Var {
        var: Name,
        coeff: i64,
        offset: i64,
    },
    Const(i64),
    /// `var + offset`, var a scalar the nest does not change (an enclosing loop's variable,
    /// say): the same element in every iteration of one execution of the nest.
    Invariant {
        var: Name,
        offset: i64,
    },
    Other,
}

#[derive(Clone, Debug)]
pub(crate) struct Acc {
    pub(crate) array: Name,
    pub(crate) write: bool,
    /// None: the whole array.
    pub(crate) subs: Option<Vec<SubForm>>,
    pub(crate) line: u32,
    pub(crate) via_call: bool,
}

/// The index in `prog.units` of `unit`, a unit of the program (by its place in memory, not its
/// name: a lookup for every statement must not scan the units).
fn unit_index_of(prog: &analyzer::program::Program, unit: &analyzer::ast::Unit) -> Option<usize> {
    let size = std::mem::size_of::<analyzer::ast::Unit>().max(1);
    let off = (unit as *const analyzer::ast::Unit as usize).checked_sub(prog.units.as_ptr() as usize)?;
    let ui = off / size;
    (off % size == 0 && ui < prog.units.len() && std::ptr::eq(&prog.units[ui], unit)).then_some(ui)
}

/// `AccessCtx::stmt_accesses` for the expert: the element accesses of a vector dummy given
/// whole arrays of higher rank (`Program::reshaped`, NPB FT's XOUT) are accesses of the whole
/// array here, since their subscripts are the vector's, not the array's dimensions (the
/// runtime names such an element by its place in the array: `reshaped_subs` in the
/// converter).
fn stmt_accs(prog: &analyzer::program::Program, cx: &AccessCtx, st: &analyzer::ast::Stmt, acc: &mut Vec<Access>, calls: &mut Vec<analyzer::access::CallSite>) {
    stmt_accs_if(prog, cx, st, acc, calls, false);
}

/// `stmt_accs`; an access known only under conditions (`Access::needs`) is exact where the
/// code shows them to hold (as the loop analysis has it: `Program::known_accesses`) and, with
/// `tested`, everywhere: the statement is inside a loop parallel under run-time tests
/// (`LoopInfo::versioned`), whose tests cover the conditions the analysis did not discharge
/// (NPB FT's `CALL SWARZTRAUBER(..., X(BLS,1,K), N1+1, ...)` reaches `X(BLS:BLE,1:N2,K)` when
/// `BLS >= 1` and `BLE <= N1+1`). Elsewhere it is an access of the whole array.
fn stmt_accs_if(prog: &analyzer::program::Program, cx: &AccessCtx, st: &analyzer::ast::Stmt, acc: &mut Vec<Access>, calls: &mut Vec<analyzer::access::CallSite>, tested: bool) {
    let from = acc.len();
    cx.stmt_accesses_conditional(st, acc, calls);
    let ui = || unit_index_of(prog, cx.unit);
    if !tested && acc[from..].iter().any(|a| !a.needs.is_empty()) {
        if let Some(ui) = ui() {
            let (known, _) = &prog.known_accesses(ui)[st.id.0 as usize];
            acc.truncate(from);
            acc.extend(known.iter().cloned());
        }
    }
    let reshaped = if prog.reshaped.is_empty() { None } else { ui() };
    for a in &mut acc[from..] {
        if tested {
            a.needs.clear();
        } else {
            a.drop_conditions();
        }
        // (a vector given whole to a matrix dummy is the whole vector, as `stmt_accesses` has it)
        if a.via_call.is_some() && !a.implied.is_empty() {
            a.subs = None;
            a.implied.clear();
        }
        if reshaped.is_some_and(|ui| prog.reshaped.contains(&(ui, a.name.clone()))) {
            a.subs = None;
        }
    }
}

/// A mapped nest: the outermost parallel loop and the tightly nested parallel loops under it.
#[derive(Clone, Debug)]
pub(crate) struct Nest {
    pub(crate) unit: usize,
    pub(crate) line: u32,
    pub(crate) vars: Vec<Name>,
    pub(crate) levels: Vec<LoopInfo>,
    /// Times the nest is executed (product of the trip counts of enclosing loops).
    pub(crate) times: f64,
    /// Iterations of the mapped levels.
    pub(crate) iterations: f64,
    /// Estimated seconds of one execution of the whole nest on one process.
    pub(crate) work_s: f64,
    /// `work_s` with the bodies of the procedures its CALL statements call (`with_calls_cost`):
    /// whether a loop carries enough work to divide. The totals count those bodies with their
    /// own nests (`unit_counts`).
    pub(crate) with_calls_s: f64,
    pub(crate) accesses: Vec<Acc>,
    /// Loop variables of loops inside the nest that are not mapped (they must be private).
    pub(crate) inner_vars: BTreeSet<Name>,
    pub(crate) across: bool,
    /// Arrays with a carried dependence (ACROSS candidates).
    pub(crate) dep_arrays: BTreeSet<Name>,
    /// Run-time tests under which the nest is parallel (`LoopInfo::versioned`): empty for
    /// loops the analysis calls parallel outright.
    pub(crate) when: Vec<String>,
    /// The logical flags among those tests, with their values (`Versioned::flags`): what runs
    /// only under the other values is not part of the nest.
    pub(crate) flags: Vec<(Name, bool)>,
    /// A scalar recurrence computed ahead of the loop (`Versioned::split`).
    pub(crate) split: Option<crate::scheme::Split>,
    /// Seconds one execution of the nest spends computing that recurrence ahead: its
    /// statements once per iteration, in the sequential copy every process runs whole.
    pub(crate) ahead_s: f64,
    /// Last line of the outermost loop.
    pub(crate) end_line: u32,
    /// A loop that fills work arrays later loops read at neighbouring indices
    /// (`with_inner`, `computed_arrays`): (template dimension, how far below and above the
    /// owned part its iterations reach). The loop gets `SHADOW_COMPUTE` and no merge.
    pub(crate) compute: Option<(usize, u32, u32)>,
    /// One part of a nest split by statements (`fission`): the first and last lines of the
    /// statements of the innermost body it keeps. Empty: the whole nest.
    pub(crate) part: Vec<(u32, u32)>,
}

/// What makes a nest of `versioned_nests` parallel, for notes: `parallel when TESTS`,
/// `parallel once X0 is computed ahead of it`, or both.
pub(crate) fn parallel_when(n: &Nest) -> String {
    let ahead = n.split.as_ref().map(|sp| {
        let vars: Vec<String> = sp.vars.iter().map(|(v, _)| v.to_uppercase()).collect();
        format!("once {} of it", analyzer::loops::computed_ahead(&vars))
    });
    match (n.when.is_empty(), ahead) {
        (true, Some(a)) => format!("parallel {a}"),
        (false, Some(a)) => format!("parallel when {}, {a}", n.when.join(" .AND. ")),
        (_, None) => format!("parallel when {}", n.when.join(" .AND. ")),
    }
}

/// An array that may be distributed: its storage (identity across units for COMMON members,
/// and for dummy arguments bound to one array, `Program::bindings`).
type ArrayId = analyzer::interproc::ArrayRoot;

/// Result of the DVM expert.
pub struct DvmResult {
    pub schemes: Vec<Scheme>,
    /// Index of the cheapest scheme.
    pub chosen: usize,
    /// Explanations that hold for every variant (why arrays stay replicated...).
    pub notes: Vec<String>,
    /// The variants considered and rejected, each with every reason.
    pub rejected: Vec<Rejected>,
}

fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// `machine` with the machine refinements of the analysis applied, and a note for each.
pub fn refined_machine(analysis: &Analysis, machine: &MachineModel) -> (MachineModel, Vec<String>) {
    let mut machine = machine.clone();
    let mut notes = vec![];
    for o in &analysis.hints {
        if let Override::Machine { key, value } = o {
            match machine.set(key, value) {
                Ok(()) => notes.push(format!("machine parameter {key} = {value} (refinement)")),
                Err(e) => notes.push(format!("ignored machine refinement {key} = {value}: {e}")),
            }
        }
    }
    (machine, notes)
}

/// Run the DVM expert over an analysis, for `machine` with the analysis's machine refinements.
pub fn run(analysis: &Analysis, machine: &MachineModel) -> DvmResult {
    let (machine, notes) = refined_machine(analysis, machine);
    run_for(analysis, &machine, notes)
}

/// Run the DVM expert for exactly `machine` (the refinements are not applied again: what-if
/// estimates start from the refined machine and change it).
pub fn run_exactly(analysis: &Analysis, machine: &MachineModel) -> DvmResult {
    run_for(analysis, machine, vec![])
}

fn run_for(analysis: &Analysis, machine: &MachineModel, mut notes: Vec<String>) -> DvmResult {
    let machine = machine.clone();
    let prog = &analysis.program;
    let counts = unit_counts(analysis, &machine);
    let nests = nests_with(analysis, &machine, &counts);
    // a scheme that divides the work runs several processes on a node, which share its
    // memory bandwidth: its nests cost what `memref_busy_ns` says (the replicated program
    // runs on one process)
    let busy_machine = machine.busy();
    let busy_nests = busy_machine.as_ref().map(|b| nests_with(analysis, b, &counts));
    let (dnests, dmachine) = match (&busy_nests, &busy_machine) {
        (Some(n), Some(b)) => (n, b),
        _ => (&nests, &machine),
    };
    // loops parallel under run-time tests (NPB SP's solvers: `DO K` over lines whose work
    // arrays are private when the grid has three points a side at least)
    let versioned = versioned_nests(analysis, dmachine);
    let inner = inner_nests(analysis, dmachine, dnests.iter().chain(&versioned));
    let candidates = candidate_arrays(analysis, &nests, &versioned, &mut notes);
    // each candidate's weight: the iterations of the nests that touch it
    let mut weight: BTreeMap<ArrayId, f64> = BTreeMap::new();
    for n in &nests {
        for a in &n.accesses {
            if let Some(id) = array_id(prog, n.unit, &a.array) {
                if candidates.contains_key(&id) {
                    *weight.entry(id).or_default() += n.times * n.iterations;
                }
            }
        }
    }
    // The template: the heaviest candidate of the highest rank; where every variant of it is
    // rejected, the next heaviest of that rank (three at most; NPB CG: the nonzeros A, whose
    // only variant a setup loop rejects, then the vectors). Not with a distribution
    // refinement, which names its template.
    let mut order: Vec<(ArrayId, usize)> = candidates.iter().map(|(id, r)| (id.clone(), *r)).collect();
    order.sort_by(|(a, ra), (b, rb)| {
        rb.cmp(ra)
            .then(weight.get(b).unwrap_or(&0.0).total_cmp(weight.get(a).unwrap_or(&0.0)))
            .then(a.cmp(b))
    });
    let replicated = replicated_scheme(analysis, &nests, &machine);
    let Some(&(_, trank)) = order.first() else {
        notes.push("no array is worth distributing: nothing distributed".into());
        for o in distribute_overrides(analysis) {
            notes.push(format!("{o}: {NOT_APPLIED}: no array of the program is worth distributing (see the notes above)"));
        }
        // loops over replicated data alone may still divide their iterations, mapped on
        // templates (NPB EP's batches)
        let mut schemes = vec![replicated];
        if let Some(t) = template_scheme(analysis, dnests, dmachine, &mut notes) {
            schemes.push(t);
        }
        let chosen = (0..schemes.len()).min_by(|a, b| schemes[*a].estimate.total.total_cmp(&schemes[*b].estimate.total)).unwrap_or(0);
        return DvmResult {
            schemes,
            chosen,
            notes,
            rejected: vec![],
        };
    };
    let tries: Vec<(ArrayId, usize)> = order.iter().filter(|(_, r)| *r == trank).take(if distribute_overrides(analysis).next().is_some() { 1 } else { 3 }).cloned().collect();
    let mut schemes = vec![];
    let mut rejected: Vec<Rejected> = vec![];
    let mut forced: Option<Vec<Format>> = None;
    for (attempt, (tid, trank)) in tries.iter().enumerate() {
        let (tid, trank) = (tid.clone(), *trank);
        let mut tnotes: Vec<String> = vec![];
        let mut trejected: Vec<Rejected> = vec![];
        let tname = name_of(prog, &tid);
        tnotes.push(format!("template: array {} (rank {trank})", upper(&tname)));
        // Alignment of the other candidates with the template.
        let aligns = alignments(analysis, &nests, &candidates, &tid, &mut tnotes);
        // Distribution overrides restrict the variants.
        forced = analysis.hints.iter().find_map(|o| match o {
            Override::Distribute { array, formats } if *array == tname && formats.len() == trank => {
                Some(
                    formats
                        .iter()
                        .map(|f| {
                            if f.trim() == "*" {
                                Format::Star
                            } else {
                                Format::Block
                            }
                        })
                        .collect(),
                )
            }
            _ => None,
        });
        // distribution refinements the variants below cannot honour
        for o in distribute_overrides(analysis) {
            let Override::Distribute { array, formats } = o else { continue };
            if *array != tname {
                let why = match candidates.iter().find(|(id, _)| name_of(prog, id) == *array) {
                    Some(_) => format!("the distribution follows the template {}: {} is aligned with it (refine the template instead)", upper(&tname), upper(array)),
                    None => format!("{} is not a candidate for distribution (see the notes above)", upper(array)),
                };
                tnotes.push(format!("{o}: {NOT_APPLIED}: {why}"));
            } else if formats.len() != trank {
                tnotes.push(format!("{o}: {NOT_APPLIED}: {} has rank {trank}, the refinement gives {} format(s)", upper(array), formats.len()));
            }
        }
        // a template whose twins cannot be aligned with it (one is declared where the
        // template is not): its dummies would inherit its distribution at one call and get a
        // replicated array at another, which the runtime refuses; no variant of it can run
        let unaligned_twin = prog.twins.iter().find(|g| g.contains(&tid)).and_then(|g| g.iter().find(|r| !aligns.contains_key(*r)));
        for mask in 1u32..(1 << trank) {
            let formats: Vec<Format> = (0..trank)
                .map(|d| {
                    if mask & (1 << d) != 0 {
                        Format::Block
                    } else {
                        Format::Star
                    }
                })
                .collect();
            let name = format!("({})", formats.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(","));
            // (a variant rejected as a whole, for one reason)
            let whole = |text: String| Rejected { expert: "dvm".into(), name: name.clone(), reasons: vec![Reason { at: None, line: None, text }] };
            if let Some(f) = forced.as_ref().filter(|f| **f != formats) {
                let want = f.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(",");
                trejected.push(whole(format!("not considered: a refinement distributes {} as ({want})", upper(&tname))));
                continue;
            }
            if let Some(r) = unaligned_twin {
                trejected.push(whole(format!("{} is a twin of the template {} (one dummy gets both) and cannot be aligned with it", upper(&name_of(prog, r)), upper(&tname))));
                continue;
            }
            match variant(analysis, dnests, &versioned, &inner, &tid, &formats, &aligns, dmachine, &counts) {
                Ok(s) => schemes.push(s),
                Err(reasons) => {
                    let more = match reasons.len() {
                        1 => String::new(),
                        n => format!(" (and {} more: `sapfor schemes`)", n - 1),
                    };
                    tnotes.push(format!("variant {name} rejected: {}{more}", reasons[0].describe()));
                    trejected.push(Rejected {
                        expert: "dvm".into(),
                        name,
                        reasons,
                    });
                }
            }
        }
        if !schemes.is_empty() || attempt + 1 == tries.len() {
            notes.extend(tnotes);
            rejected.extend(trejected);
            break;
        }
        let tname = upper(&name_of(prog, &tid));
        notes.push(format!("template {tname}: every variant is rejected (`sapfor schemes`); the next candidate is tried"));
        rejected.extend(trejected.into_iter().map(|mut r| {
            r.name = format!("{} of {tname}", r.name);
            r
        }));
    }
    if forced.is_none() {
        // (nests over replicated data divided over templates may beat every distribution:
        // offered when that saves a twentieth of the replicated estimate at least, not for a
        // near tie; why a nest is not mapped so is said only where nothing is distributed)
        let templates = template_scheme(analysis, dnests, dmachine, &mut vec![]).filter(|t| t.estimate.total < 0.95 * replicated.estimate.total);
        schemes.push(replicated);
        schemes.extend(templates);
    }
    if schemes.is_empty() {
        notes.push("every variant was rejected: nothing distributed".into());
        for o in distribute_overrides(analysis) {
            if let Some(r) = rejected.iter().find(|r| r.reasons.iter().all(|x| x.at.is_some())) {
                let first = r.reasons.first().map(|x| x.describe()).unwrap_or_default();
                notes.push(format!("{o}: {NOT_APPLIED}: variant {} is rejected: {first}", r.name));
            }
        }
        schemes.push(replicated_scheme(analysis, &nests, &machine));
    }
    let chosen = schemes
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.estimate.total.total_cmp(&b.1.estimate.total))
        .map(|(i, _)| i)
        .unwrap_or(0);
    DvmResult {
        schemes,
        chosen,
        notes,
        rejected,
    }
}

/// The `distribute` refinements of the analysis.
fn distribute_overrides(analysis: &Analysis) -> impl Iterator<Item = &Override> {
    analysis.hints.iter().filter(|o| matches!(o, Override::Distribute { .. }))
}

fn name_of(prog: &analyzer::program::Program, id: &ArrayId) -> Name {
    match id {
        ArrayId::Local { name, .. } => name.clone(),
        ArrayId::Common { block, index } => prog
            .semas
            .iter()
            .find_map(|s| {
                s.commons
                    .get(block)
                    .and_then(|m| m.get(*index))
                    .map(|m| m.name.clone())
            })
            .unwrap_or_default(),
    }
}

fn array_id(prog: &analyzer::program::Program, unit: usize, name: &str) -> Option<ArrayId> {
    if let Some(r) = prog.bindings.get(&(unit, name.to_string())) {
        return Some(r.clone());
    }
    let sym = prog.semas[unit].symbol(name)?;
    Some(match &sym.common {
        Some((block, index)) => ArrayId::Common {
            block: block.clone(),
            index: *index,
        },
        None => ArrayId::Local {
            unit,
            name: name.to_string(),
        },
    })
}

/// Name of an array identity inside a unit (COMMON members may be named differently).
fn name_in(prog: &analyzer::program::Program, unit: usize, id: &ArrayId) -> Option<Name> {
    match id {
        ArrayId::Local { unit: u, name } => (*u == unit).then(|| name.clone()),
        ArrayId::Common { block, index } => prog.semas[unit]
            .commons
            .get(block)
            .and_then(|m| m.get(*index))
            .map(|m| m.name.clone()),
    }
}

/// The constant bounds of each dimension of an array identity, as the first unit that
/// declares it gives them (empty when none does).
fn declared_bounds(prog: &analyzer::program::Program, id: &ArrayId) -> Vec<Option<(i64, i64)>> {
    (0..prog.units.len())
        .find_map(|u| name_in(prog, u, id).map(|nm| (u, nm)))
        .and_then(|(u, nm)| prog.semas[u].symbol(&nm).map(|s| s.bounds().to_vec()))
        .unwrap_or_default()
}

/// Name of an array identity inside a unit, also as a dummy argument bound to it (the unit's
/// loops over that dummy work on the array).
fn seen_name_in(prog: &analyzer::program::Program, unit: usize, id: &ArrayId) -> Option<Name> {
    name_in(prog, unit, id).or_else(|| bound_dummy(prog, unit, id))
}

/// The dummy argument of `unit` bound to array `id`, if any (the first of them).
fn bound_dummy(prog: &analyzer::program::Program, unit: usize, id: &ArrayId) -> Option<Name> {
    // (one of the array's own shape before a vector laid out as it: FFTXYZ's X before XOUT)
    bound_dummies(prog, unit, id).min_by_key(|n| prog.reshaped.contains(&(unit, n.clone())))
}

/// The dummy arguments of `unit` bound to array `id` (two where twins are given in two
/// places: `CALL TW3(C, HC)`, `CALL TW3(HC, C)`).
fn bound_dummies<'a>(prog: &'a analyzer::program::Program, unit: usize, id: &'a ArrayId) -> impl Iterator<Item = Name> + 'a {
    prog.bindings.range((unit, Name::new())..(unit + 1, Name::new())).filter(move |(_, r)| *r == id).map(|((_, n), _)| n.clone())
}

/// A unit declaring array `id` itself, and its name there (a COMMON member: the first unit
/// declaring the block).
fn home_of(prog: &analyzer::program::Program, id: &ArrayId) -> Option<(usize, Name)> {
    match id {
        ArrayId::Local { unit, name } => Some((*unit, name.clone())),
        ArrayId::Common { .. } => (0..prog.units.len()).find_map(|u| name_in(prog, u, id).map(|n| (u, n))),
    }
}

fn loop_map(analysis: &Analysis, unit: usize) -> BTreeMap<StmtId, &LoopInfo> {
    analysis.loops[unit].iter().map(|l| (l.header, l)).collect()
}

/// A loop's trip count for the costs: exact, else bounded by the arrays it indexes, else the
/// machine file's default.
pub(crate) fn trips(l: &LoopInfo, m: &MachineModel) -> f64 {
    l.trip_count.or(l.trip_estimate).unwrap_or(m.unknown_trip_count) as f64
}

/// Operations of an expression: (arithmetic operations, memory references).
fn ops(e: &Expr, sema: &UnitSema) -> (f64, f64) {
    let (mut f, mut m) = (0.0, 0.0);
    e.walk(&mut |x| match x {
        Expr::Binary(..) | Expr::Unary(..) => f += 1.0,
        Expr::Ref(n, _) if sema.is_array(n) => m += 1.0,
        Expr::Ref(..) => f += 4.0, // an intrinsic or function
        Expr::Var(n) if sema.param(n).is_none() => m += 0.25, // scalars mostly live in registers
        _ => {}
    });
    (f, m)
}

fn stmt_cost(st: &analyzer::ast::Stmt, sema: &UnitSema, m: &MachineModel) -> f64 {
    let (mut f, mut r) = (0.0, 0.0);
    for e in analyzer::sema::stmt_exprs(&st.kind) {
        let (a, b) = ops(e, sema);
        f += a;
        r += b;
    }
    (f * m.flop_ns + r * m.memref_ns) * 1e-9
}

/// `nodes_cost` of unit `ui`'s `nodes` with, for each CALL statement, the cost of one
/// execution of the called procedure's body, to `depth` levels of calls.
fn with_calls_cost(analysis: &Analysis, index: &BTreeMap<Name, usize>, ui: usize, nodes: &[Node], m: &MachineModel, depth: u32) -> f64 {
    let prog = &analysis.program;
    let call = |st: &analyzer::ast::Stmt| match st.kind.action() {
        StmtKind::Call { name, .. } if depth > 0 => index
            .get(name)
            .filter(|c| **c != ui)
            .map_or(0.0, |&c| with_calls_cost(analysis, index, c, &prog.units[c].body, m, depth - 1)),
        _ => 0.0,
    };
    nodes_cost_with(&prog.units[ui], &prog.semas[ui], &loop_map(analysis, ui), nodes, m, &call)
}

/// Seconds of one execution of a node list (loops multiply their bodies by their trip count).
fn nodes_cost(
    unit: &Unit,
    sema: &UnitSema,
    loops: &BTreeMap<StmtId, &LoopInfo>,
    nodes: &[Node],
    m: &MachineModel,
) -> f64 {
    nodes_cost_with(unit, sema, loops, nodes, m, &|_| 0.0)
}

/// `nodes_cost`, each statement costing `call`'s seconds more (what it calls).
fn nodes_cost_with(
    unit: &Unit,
    sema: &UnitSema,
    loops: &BTreeMap<StmtId, &LoopInfo>,
    nodes: &[Node],
    m: &MachineModel,
    call: &dyn Fn(&analyzer::ast::Stmt) -> f64,
) -> f64 {
    let stmt = |id: StmtId| {
        let st = unit.stmt(id);
        stmt_cost(st, sema, m) + call(st)
    };
    let mut t = 0.0;
    for n in nodes {
        match n {
            Node::Stmt(id) => t += stmt(*id),
            Node::Do { header, body, .. } => {
                let k = loops
                    .get(header)
                    .map_or(m.unknown_trip_count as f64, |l| trips(l, m));
                t += k * (nodes_cost_with(unit, sema, loops, body, m, call) + 2.0 * m.flop_ns * 1e-9);
            }
            Node::If { arms, .. } => {
                for (h, b) in arms {
                    t += stmt(*h) + nodes_cost_with(unit, sema, loops, b, m, call);
                }
            }
        }
    }
    t
}

pub(crate) fn find_nests(analysis: &Analysis, m: &MachineModel) -> Vec<Nest> {
    nests_with(analysis, m, &unit_counts(analysis, m))
}

/// The nests the generated program may run in parallel under run-time tests: the outermost
/// sequential loops the analysis calls parallel when tests hold (`LoopInfo::versioned`),
/// outside every parallel nest, each a one-level nest with the tests in `when`. Only loops the
/// generator can write twice (`IF (tests) THEN` the parallel loop `ELSE` the loop as it is
/// `END IF`): no statement label inside (a copy would define it twice) and no construct name.
pub(crate) fn versioned_nests(analysis: &Analysis, m: &MachineModel) -> Vec<Nest> {
    let prog = &analysis.program;
    let mut out = vec![];
    // (the units' execution counts only for a program that has such a loop: the templates
    // scheme asks for these nests on every program)
    if !analysis.loops.iter().flatten().any(|l| l.versioned.is_some()) {
        return out;
    }
    let counts = unit_counts(analysis, m);
    for (ui, unit) in prog.units.iter().enumerate() {
        if !analysis.loops[ui].iter().any(|l| l.versioned.is_some()) {
            continue;
        }
        let loops = loop_map(analysis, ui);
        let text: Vec<&str> = prog.map.file(unit.file).text.lines().collect();
        walk_versioned(analysis, ui, unit, &loops, &text, &unit.body, counts[ui], m, &mut out);
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn walk_versioned(
    analysis: &Analysis,
    ui: usize,
    unit: &Unit,
    loops: &BTreeMap<StmtId, &LoopInfo>,
    text: &[&str],
    nodes: &[Node],
    times: f64,
    m: &MachineModel,
    out: &mut Vec<Nest>,
) {
    for n in nodes {
        match n {
            Node::Do { header, body, .. } => {
                let Some(info) = loops.get(header) else { continue };
                if info.verdict != Verdict::Sequential {
                    continue;
                }
                let Some(v) = info.versioned.as_ref().filter(|_| !info.var.is_empty() && analyzer::cfg::loop_copyable(unit, n, text, analysis.program.map.files[unit.file.0 as usize].form == analyzer::source::SourceForm::Fixed)) else {
                    walk_versioned(analysis, ui, unit, loops, text, body, times * trips(info, m), m, out);
                    continue;
                };
                let mut level = (*info).clone();
                level.verdict = Verdict::Parallel;
                level.blockers.clear();
                level.dependences.clear();
                level.private = v.private.clone();
                level.copy_in = v.copy_in.clone();
                level.reductions = v.reductions.clone();
                // (what runs under the tests: statements a flag's value skips left out)
                let runs = analyzer::loops::under_flags(unit, n, &v.flags);
                let mut nest = make_nest(analysis, ui, unit, loops, &runs, vec![level], times, m);
                nest.with_calls_s = with_calls_cost(analysis, &analyzer::interproc::unit_index(&analysis.program.units), ui, std::slice::from_ref(n), m, 4);
                nest.when = v.when.clone();
                nest.flags = v.flags.clone();
                nest.split = v.split.as_ref().map(|r| crate::scheme::Split { vars: r.vars.clone(), lines: r.lines.clone() });
                let sema = &analysis.program.semas[ui];
                // (by the lines of its statements: a stored analysis has no statement ids)
                let at_lines = |r: &analyzer::loops::Recurrence| -> f64 {
                    let mut t = 0.0;
                    analyzer::ast::for_each_stmt(unit, body, &mut |st| {
                        if r.lines.contains(&st.span.line) {
                            t += stmt_cost(st, sema, m);
                        }
                    });
                    t
                };
                nest.ahead_s = v.split.as_ref().map_or(0.0, |r| trips(info, m) * at_lines(r));
                out.push(nest);
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    walk_versioned(analysis, ui, unit, loops, text, b, times, m, out);
                }
            }
            Node::Stmt(_) => {}
        }
    }
}

/// The nests, each executed `counts[unit]` times its loops' trip counts.
fn nests_with(analysis: &Analysis, m: &MachineModel, counts: &[f64]) -> Vec<Nest> {
    let prog = &analysis.program;
    let mut out = vec![];
    for (ui, unit) in prog.units.iter().enumerate() {
        let loops = loop_map(analysis, ui);
        walk_nests(analysis, ui, unit, &loops, &unit.body, counts[ui], m, &mut out);
    }
    out
}

/// Estimated executions of every unit: the main program (and any unit nobody calls) once, a
/// procedure as often as its call sites run (the trip counts of the loops around each call,
/// times the caller's own executions). A call that closes a cycle (recursion) adds nothing.
pub(crate) fn unit_counts(analysis: &Analysis, m: &MachineModel) -> Vec<f64> {
    let prog = &analysis.program;
    let n = prog.units.len();
    let index = analyzer::interproc::unit_index(&prog.units);
    // (callee, executions of the call per execution of the caller) for every unit
    let mut sites: Vec<Vec<(usize, f64)>> = vec![vec![]; n];
    let mut called = vec![false; n];
    for (ui, unit) in prog.units.iter().enumerate() {
        let cx = AccessCtx {
            unit,
            sema: &prog.semas[ui],
            summaries: &prog.summaries,
        };
        let mut times: Option<BTreeMap<StmtId, (f64, Option<StmtId>)>> = None;
        for st in &unit.stmts {
            if !st.kind.is_executable() {
                continue;
            }
            let (mut acc, mut calls) = (vec![], vec![]);
            stmt_accs(prog, &cx, st, &mut acc, &mut calls);
            for c in calls {
                let Some(&callee) = index.get(&c.name) else { continue };
                if callee == ui {
                    continue;
                }
                let t = times.get_or_insert_with(|| stmt_times(analysis, ui, m));
                let k = t.get(&st.id).map_or(1.0, |x| x.0);
                sites[ui].push((callee, k));
                called[callee] = true;
            }
        }
    }
    // callers before callees: a depth-first post-order from the roots, reversed
    let mut order = vec![];
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    fn visit(u: usize, sites: &[Vec<(usize, f64)>], state: &mut [u8], order: &mut Vec<usize>) {
        state[u] = 1;
        for &(c, _) in &sites[u] {
            if state[c] == 0 {
                visit(c, sites, state, order);
            }
        }
        state[u] = 2;
        order.push(u);
    }
    let roots: Vec<usize> = (0..n).filter(|&u| !called[u] || prog.units[u].kind == analyzer::ast::UnitKind::Program).collect();
    for &r in &roots {
        if state[r] == 0 {
            visit(r, &sites, &mut state, &mut order);
        }
    }
    for u in 0..n {
        if state[u] == 0 {
            visit(u, &sites, &mut state, &mut order);
        }
    }
    order.reverse();
    let pos: Vec<usize> = {
        let mut p = vec![0; n];
        for (i, &u) in order.iter().enumerate() {
            p[u] = i;
        }
        p
    };
    let mut counts = vec![0.0f64; n];
    for &r in &roots {
        counts[r] = 1.0;
    }
    for &u in &order {
        if counts[u] == 0.0 {
            // reached only through a cycle: once
            counts[u] = 1.0;
        }
        for &(c, k) in &sites[u] {
            // a call back up the order (recursion) adds nothing
            if pos[c] > pos[u] {
                counts[c] = (counts[c] + counts[u] * k).min(1e15);
            }
        }
    }
    counts
}

/// Whether the runtime can combine every reduction variable of a loop: not an array of
/// unknown size (an assumed-size dummy: `ROWSTR(*)`, whose copies it could not allocate);
/// such a loop runs as it is.
fn reductions_combinable(l: &LoopInfo, sema: &UnitSema) -> bool {
    l.reductions
        .iter()
        .all(|r| !sema.symbol(&r.var).is_some_and(|s| s.is_array() && s.size_unknown()))
}

/// Whether inner loop `l` is parallel only through an array reduction the loops around it
/// (`levels`) do not have: each of their iterations adds up its own elements over `l`
/// (a matrix product's `C(I,J) = C(I,J) + A(I,K) * B(K,J)` over K inside I and J). Such a
/// loop stays inside the nest, in order: as a level of the PARALLEL directive it would make
/// every process and thread keep and combine a copy of the whole array (a 512x512 product
/// took 0.46 s on one process so, 0.05 s with K inside and I innermost), and its elements
/// would add up in another order than the sequential program's.
fn accumulates_alone(l: &LoopInfo, levels: &[LoopInfo], sema: &UnitSema) -> bool {
    l.reductions.iter().any(|r| sema.symbol(&r.var).is_some_and(|s| s.is_array()) && !levels.iter().any(|o| o.reductions.iter().any(|x| x.var == r.var)))
}

#[allow(clippy::too_many_arguments)]
fn walk_nests(
    analysis: &Analysis,
    ui: usize,
    unit: &Unit,
    loops: &BTreeMap<StmtId, &LoopInfo>,
    nodes: &[Node],
    times: f64,
    m: &MachineModel,
    out: &mut Vec<Nest>,
) {
    for n in nodes {
        match n {
            Node::Do { header, body, .. } => {
                let Some(info) = loops.get(header) else {
                    continue;
                };
                // the loop runs in order: the nests inside it are mapped on their own
                let descend = |out: &mut Vec<Nest>| {
                    walk_nests(analysis, ui, unit, loops, body, times * trips(info, m), m, out)
                };
                let sema = &analysis.program.semas[ui];
                if info.verdict == Verdict::Sequential || info.var.is_empty() || !reductions_combinable(info, sema) {
                    descend(out);
                    continue;
                }
                // Tightly nested parallel levels.
                let mut levels = vec![(*info).clone()];
                let mut cur_body = body;
                loop {
                    let inner: Vec<&Node> = cur_body.iter().filter(|b| !matches!(b, Node::Stmt(id) if matches!(unit.stmt(*id).kind, StmtKind::Continue))).collect();
                    match inner.as_slice() {
                        [Node::Do {
                            header: h2,
                            body: b2,
                            ..
                        }] if loops.get(h2).is_some_and(|l| {
                            l.verdict != Verdict::Sequential && !l.var.is_empty() && reductions_combinable(l, sema) && !accumulates_alone(l, &levels, sema)
                        }) =>
                        {
                            levels.push((*loops[h2]).clone());
                            cur_body = b2;
                        }
                        _ => break,
                    }
                }
                let nest = make_nest(analysis, ui, unit, loops, n, levels.clone(), times, m);
                match first_unnameable_level(&nest) {
                    None => out.push(nest),
                    // the outermost loop carries a dependence no ACROSS clause can name
                    Some(0) => descend(out),
                    Some(k) => {
                        levels.truncate(k);
                        out.push(make_nest(analysis, ui, unit, loops, n, levels, times, m));
                    }
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    walk_nests(analysis, ui, unit, loops, b, times, m, out);
                }
            }
            Node::Stmt(_) => {}
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn make_nest(
    analysis: &Analysis,
    ui: usize,
    unit: &Unit,
    loops: &BTreeMap<StmtId, &LoopInfo>,
    node: &Node,
    levels: Vec<LoopInfo>,
    times: f64,
    m: &MachineModel,
) -> Nest {
    let prog = &analysis.program;
    let sema = &prog.semas[ui];
    let vars: Vec<Name> = levels.iter().map(|l| l.var.clone()).collect();
    let iterations: f64 = levels.iter().map(|l| trips(l, m)).product();
    let work_s = nodes_cost(unit, sema, loops, std::slice::from_ref(node), m);
    let Node::Do { body, .. } = node else {
        unreachable!("nests are DO nodes")
    };
    let cx = AccessCtx {
        unit,
        sema,
        summaries: &prog.summaries,
    };
    // extremum searches that record only the index (analyzer::search): the generated loop
    // reads its value variable instead of the element the index names
    // (only a one-location MAXLOC/MINLOC of a variable named as the analysis names them can be
    // one: most nests have none and skip the walk)
    let reduced: BTreeSet<&Name> = levels
        .iter()
        .flat_map(|l| &l.reductions)
        .filter(|r| matches!(r.op, RedOp::MaxLoc | RedOp::MinLoc) && r.loc.len() == 1 && r.var.starts_with("sfv"))
        .map(|r| &r.var)
        .collect();
    let mut searched: Vec<analyzer::search::IndexSearch> = vec![];
    fn dos<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
        match n {
            Node::Do { body, .. } => {
                out.push(n);
                body.iter().for_each(|b| dos(b, out));
            }
            Node::If { arms, .. } => arms.iter().flat_map(|(_, b)| b).for_each(|b| dos(b, out)),
            Node::Stmt(_) => {}
        }
    }
    let mut loops_in = vec![];
    if !reduced.is_empty() {
        dos(node, &mut loops_in);
    }
    for l in loops_in {
        searched.extend(analyzer::search::index_searches(unit, sema, l).into_iter().filter(|s| reduced.contains(&s.value)));
    }
    let mut raw: Vec<Access> = vec![];
    let mut calls = vec![];
    let mut inner_vars = BTreeSet::new();
    for_each_stmt(unit, body, &mut |s| {
        if s.kind.is_executable() {
            stmt_accs_if(prog, &cx, s, &mut raw, &mut calls, levels[0].versioned.is_some());
        }
        if let StmtKind::Do { var, .. } = &s.kind {
            if !vars.contains(var) {
                inner_vars.insert(var.clone());
            }
        }
    });
    let f = |n: &str| sema.param(n).and_then(|c| c.as_int());
    // scalars the nest writes (also through calls): not invariant
    let written: BTreeSet<&str> = raw.iter().filter(|a| a.write).map(|a| a.name.as_str()).collect();
    let best_read = |a: &Access| {
        searched.iter().any(|s| {
            !a.write
                && a.name == s.array
                && a.line == s.lines.0
                && a.subs.as_ref().is_some_and(|subs| {
                    subs.iter().any(|x| {
                        let mut hit = false;
                        if let Some(e) = x.expr() {
                            e.walk(&mut |y| hit |= matches!(y, Expr::Var(v) if *v == s.index));
                        }
                        hit
                    })
                })
        })
    };
    let accesses = raw
        .iter()
        .filter(|a| sema.is_array(&a.name) && !best_read(a))
        .map(|a| Acc {
            array: a.name.clone(),
            write: a.write,
            line: a.line,
            via_call: a.via_call.is_some(),
            subs: a.subs.as_ref().map(|subs| {
                subs.iter()
                    .map(|s| match s.expr().and_then(|e| linearize(e, &f)) {
                        Some(l) if l.terms.is_empty() => SubForm::Const(l.constant),
                        Some(l) if l.terms.len() == 1 => {
                            let (v, c) = l.terms.iter().next().expect("one term");
                            if vars.contains(v) {
                                SubForm::Var {
                                    var: v.clone(),
                                    coeff: *c,
                                    offset: l.constant,
                                }
                            } else if *c == 1 && !written.contains(v.as_str()) && !sema.is_array(v) && sema.param(v).is_none() {
                                SubForm::Invariant {
                                    var: v.clone(),
                                    offset: l.constant,
                                }
                            } else {
                                SubForm::Other
                            }
                        }
                        _ => SubForm::Other,
                    })
                    .collect()
            }),
        })
        .collect();
    let across = levels.iter().any(|l| l.verdict == Verdict::Across);
    let levels_end = levels[0].end_line;
    let dep_arrays = levels
        .iter()
        .flat_map(|l| l.dependences.iter().map(|d| d.array.clone()))
        .collect();
    Nest {
        unit: ui,
        line: levels[0].line,
        vars,
        levels,
        times,
        iterations,
        work_s,
        with_calls_s: work_s,
        accesses,
        inner_vars,
        across,
        dep_arrays,
        when: vec![],
        flags: vec![],
        split: None,
        ahead_s: 0.0,
        end_line: levels_end,
        compute: None,
        part: vec![],
    }
}

/// Arrays that may be distributed, with their rank; the reasons others may not are noted.
fn candidate_arrays(
    analysis: &Analysis,
    nests: &[Nest],
    versioned: &[Nest],
    notes: &mut Vec<String>,
) -> BTreeMap<ArrayId, usize> {
    let prog = &analysis.program;
    let no_dist: BTreeSet<&str> = analysis
        .hints
        .iter()
        .filter_map(|o| {
            if let Override::NoDistribute { array } = o {
                Some(array.as_str())
            } else {
                None
            }
        })
        .collect();
    // Arrays passed to procedures anywhere (by unit and name), but for a whole array given
    // to a dummy bound to it (`Program::bindings`: the dummy inherits the distribution) by
    // a call that no loop which may run in parallel encloses (the runtime sets the callee's
    // handle before the call, which threads cannot do)
    let index = analyzer::interproc::unit_index(&prog.units);
    // each unit's nests, by their first and last lines
    let mut nest_ranges: BTreeMap<usize, Vec<(u32, u32)>> = BTreeMap::new();
    for x in nests.iter().chain(versioned) {
        nest_ranges.entry(x.unit).or_default().push((x.line, x.end_line));
    }
    // (unit, array) -> each call that passes it: (line, what is passed, to what)
    let mut passed: Passed = BTreeMap::new();
    for (ui, u) in prog.units.iter().enumerate() {
        let in_loops = inside_parallel_candidates(analysis, ui);
        let sema = &prog.semas[ui];
        for st in &u.stmts {
            // what an actual argument gives the callee
            let how = |e: &Expr| match e {
                Expr::Var(n) => format!("the whole array {}", upper(n)),
                Expr::Ref(n, args) if args.iter().any(|a| !matches!(a, analyzer::ast::Arg::Expr(_))) => format!("a section of {}", upper(n)),
                Expr::Ref(n, _) => format!("the element {}", analyzer::search::expr_text(e).unwrap_or_else(|| upper(n))),
                _ => "an expression".to_string(),
            };
            let line = st.span.line;
            let mut note = |n: &str, what: String| {
                let calls = passed.entry((ui, n.to_string())).or_default();
                if !calls.iter().any(|(l, w)| *l == line && *w == what) {
                    calls.push((line, what));
                }
            };
            if let StmtKind::Call { name, args } = st.kind.action() {
                if let Some(&ci) = index.get(name).filter(|_| !in_loops.contains(&st.id)) {
                    let inherits = |pos: usize| prog.semas[ci].symbols.values().any(|s| s.dummy == Some(pos) && prog.bindings.contains_key(&(ci, s.name.clone())));
                    for (pos, a) in args.iter().enumerate() {
                        match a.expr() {
                            Some(Expr::Var(n)) if sema.is_array(n) && inherits(pos) => {}
                            Some(e) => {
                                if let Some(n) = e.base_name().filter(|n| sema.is_array(n)) {
                                    let what = match e {
                                        Expr::Var(_) => format!("{} to {}, whose dummy the calls do not all bind to one array", how(e), upper(name)),
                                        _ => format!("{} to {}", how(e), upper(name)),
                                    };
                                    note(n, what);
                                }
                            }
                            None => {}
                        }
                    }
                    for e in analyzer::sema::stmt_exprs(st.kind.action()) {
                        e.walk(&mut |x| {
                            if let Expr::Ref(f, args) = x {
                                if sema.ref_kind(f) == analyzer::sema::RefKind::Function {
                                    for a in args.iter().filter_map(|a| a.expr()) {
                                        if let Some(n) = a.base_name().filter(|n| sema.is_array(n)) {
                                            note(n, format!("{} to the function {}", how(a), upper(f)));
                                        }
                                    }
                                }
                            }
                        });
                    }
                    continue;
                }
            }
            let in_loop = in_loops.contains(&st.id);
            // An element given to a procedure inside a loop nest that may be divided, where the
            // callee provably stays in what that element starts (a column `A(1,J)` given to
            // `X(M)`, an element given to a scalar): the callee works on the iteration's own
            // part of the array, which a parallel loop mapped with its iterations' owners
            // keeps local (map_nest checks that per variant).
            let element_ok = |e: &Expr| -> bool {
                let Expr::Ref(n, subs) = e else { return false };
                if !in_loop || subs.iter().any(|a| !matches!(a, analyzer::ast::Arg::Expr(_))) {
                    return false;
                }
                let line = st.span.line;
                if !nest_ranges.get(&ui).is_some_and(|rs| rs.iter().any(|(a, b)| *a <= line && line <= *b)) {
                    return false;
                }
                let acx = AccessCtx { unit: u, sema, summaries: &prog.summaries };
                let (mut accs, mut calls) = (vec![], vec![]);
                let tested = versioned.iter().any(|v| v.unit == ui && v.line <= line && line <= v.end_line);
                stmt_accs_if(prog, &acx, st, &mut accs, &mut calls, tested);
                let mine: Vec<&Access> = accs.iter().filter(|a| a.name == *n && a.via_call.is_some()).collect();
                !mine.is_empty() && mine.iter().all(|a| a.subs.is_some())
            };
            let mut mark = |e: &Expr, to: &str, has_body: bool| {
                if let Some(n) = e.base_name() {
                    if sema.is_array(n) && !(has_body && element_ok(e)) {
                        let why = if in_loop { " (in a loop that may run in parallel)" } else { "" };
                        note(n, format!("{} to {to}{why}", how(e)));
                    }
                }
            };
            let kind = st.kind.action();
            if let StmtKind::Call { name, args } = kind {
                let to = if index.contains_key(name) { upper(name) } else { format!("{}, which has no body here", upper(name)) };
                for a in args.iter().filter_map(|a| a.expr()) {
                    mark(a, &to, index.contains_key(name));
                }
            }
            for e in analyzer::sema::stmt_exprs(kind) {
                e.walk(&mut |x| {
                    if let Expr::Ref(f, args) = x {
                        if sema.ref_kind(f) == analyzer::sema::RefKind::Function {
                            for a in args.iter().filter_map(|a| a.expr()) {
                                mark(a, &format!("the function {}", upper(f)), false);
                            }
                        }
                    }
                });
            }
        }
    }
    // Arrays combined by a REDUCTION of some nest (by unit and name, with the nest's line):
    // every process holds the whole array and adds its part.
    let mut reduced: BTreeMap<ArrayId, (usize, u32)> = BTreeMap::new();
    for n in nests {
        for r in n.levels.iter().flat_map(|l| &l.reductions) {
            if let Some(id) = array_id(prog, n.unit, &r.var).filter(|_| prog.semas[n.unit].is_array(&r.var)) {
                reduced.entry(id).or_insert((n.unit, n.line));
            }
        }
    }
    // Work arrays private to the iterations of some nest (or of a loop parallel under
    // run-time tests): each process and thread has its own copy (SP's LHS, which a solver
    // along K fills as `LHS(K)`, would otherwise be aligned with the K dimension)
    let mut private: BTreeMap<ArrayId, (usize, u32)> = BTreeMap::new();
    for n in nests.iter().chain(versioned) {
        for v in n.levels.iter().flat_map(|l| &l.private) {
            if let Some(id) = array_id(prog, n.unit, v).filter(|_| prog.semas[n.unit].is_array(v)) {
                private.entry(id).or_insert((n.unit, n.line));
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut seen = BTreeSet::new();
    // what the units sharing an array say of it, once per array (a COMMON block may be in
    // thousands of units)
    let mut shared: BTreeMap<ArrayId, Option<String>> = BTreeMap::new();
    // why array `id`, seen in `unit` as `array`, stays replicated (None: it may be
    // distributed), with its name where it is declared and its rank
    let mut why_of = |unit: usize, array: &Name, id: &ArrayId| -> Option<(Name, Option<String>, usize)> {
        // a dummy bound to an array is that array: its checks are the array's
        let (hu, hname) = match prog.bindings.get(&(unit, array.clone())).and_then(|r| home_of(prog, r)) {
            Some(h) => h,
            None => (unit, array.clone()),
        };
        let sema = &prog.semas[hu];
        let sym = sema.symbol(&hname)?;
        let why: Option<String> = if no_dist.contains(array.as_str()) {
            Some("the user asked not to distribute it".into())
        } else if let Some((unit, line)) = reduced.get(&id) {
            Some(format!(
                "it is a reduction variable of the loop at {}:{line} (every process combines its own copy)",
                prog.map.file(prog.units[*unit].file).display_path()
            ))
        } else if let Some((unit, line)) = private.get(&id) {
            Some(format!(
                "it is private in the loop at {}:{line} (every process and thread has its own copy)",
                prog.map.file(prog.units[*unit].file).display_path()
            ))
        } else if sym.dummy.is_some() {
            Some(format!(
                "it is a dummy argument of {}",
                upper(&prog.units[unit].name)
            ))
        } else if sym.allocatable && sym.bounds().iter().any(|b| b.is_none()) {
            // (one the main program allocates once with constant bounds has those bounds)
            let why = analyzer::program::allocated_once(&prog.units, &prog.semas, hu, &hname).err().unwrap_or_default();
            Some(format!("it is ALLOCATABLE, and a distributed ALLOCATABLE array is supported when {why}"))
        } else if sym.data_init {
            Some("it is initialized by DATA (the runtime cannot distribute such an array yet)".into())
        } else if matches!(sym.ty.base, analyzer::ast::BaseType::Character | analyzer::ast::BaseType::Derived(_)) {
            Some("it is of CHARACTER or derived type (the runtime distributes numeric and logical arrays)".into())
        } else if sym.bounds().iter().any(|b| b.is_none()) {
            Some("its bounds are not constant".into())
        } else if sema.host_assoc.contains(array) {
            // the host's array: a directive here would describe another array
            Some(format!(
                "{} uses it by host association (a variable of {})",
                upper(&prog.units[unit].name),
                upper(prog.units[unit].parent.as_deref().unwrap_or("its host"))
            ))
        } else if let Some(v) = prog.units.iter().enumerate().find(|(v, u)| {
            u.parent.as_deref() == Some(prog.units[unit].name.as_str()) && prog.semas[*v].host_assoc.contains(array)
        }) {
            Some(format!("{} uses it by host association", upper(&v.1.name)))
        } else if !sym.aliases.is_empty() {
            Some("it is in an EQUIVALENCE".into())
        } else if sym.target {
            Some("it is a TARGET (pointers may point into it)".into())
        } else if let Some(why) = shared
            .entry(id.clone())
            .or_insert_with(|| shared_reason(prog, id, &passed))
            .clone()
        {
            Some(why)
        } else {
            None
        };
        Some((hname, why, sym.rank()))
    };
    for n in nests {
        for a in &n.accesses {
            if !seen.insert((n.unit, a.array.clone())) {
                continue;
            }
            let Some(id) = array_id(prog, n.unit, &a.array) else {
                continue;
            };
            let Some((hname, why, rank)) = why_of(n.unit, &a.array, &id) else {
                continue;
            };
            match why {
                Some(w) => notes.push(format!("array {} stays replicated: {w}", upper(&hname))),
                None => {
                    out.insert(id, rank);
                }
            }
        }
    }
    // Arrays given to one dummy at different calls (twins) are distributed alike or not at
    // all: the dummy inherits the same distribution at every call. A twin no nest touches
    // under its own name has its own checks here.
    for g in &prog.twins {
        if !g.iter().any(|r| out.contains_key(r)) {
            continue;
        }
        let mut blocked: Option<Name> = None;
        let missing: Vec<&ArrayId> = g.iter().filter(|r| !out.contains_key(*r)).collect();
        for r in missing {
            let home = home_of(prog, r);
            match home.as_ref().and_then(|(hu, hname)| why_of(*hu, hname, r)) {
                Some((_, None, rank)) => {
                    out.insert(r.clone(), rank);
                }
                Some((hname, Some(w), _)) => {
                    if !seen.iter().any(|(_, a)| *a == hname) {
                        notes.push(format!("array {} stays replicated: {w}", upper(&hname)));
                    }
                    blocked = Some(hname);
                    break;
                }
                None => {
                    blocked = Some(name_of(prog, r));
                    break;
                }
            }
        }
        if let Some(b) = blocked {
            let dummy = twin_dummy(prog, g);
            for r in g {
                if out.remove(r).is_some() || name_of(prog, r) != b {
                    notes.push(format!("array {} stays replicated: {dummy} also gets {}, which stays replicated (the arrays one dummy gets are distributed alike)", upper(&name_of(prog, r)), upper(&b)));
                }
            }
        }
    }
    out
}

/// A dummy argument bound to a group of twins, for the notes: "the dummy X of SMOOTH".
fn twin_dummy(prog: &analyzer::program::Program, g: &BTreeSet<ArrayId>) -> String {
    prog.bindings
        .iter()
        .find(|(_, r)| g.contains(*r))
        .map(|((u, d), _)| format!("the dummy {} of {}", upper(d), upper(&prog.units[*u].name)))
        .unwrap_or_else(|| "a dummy".into())
}

/// The statements of unit `ui` inside a loop that may run in parallel (any verdict but
/// sequential), at any depth.
fn inside_parallel_candidates(analysis: &Analysis, ui: usize) -> BTreeSet<StmtId> {
    fn walk(u: &Unit, nodes: &[Node], loops: &BTreeMap<StmtId, &LoopInfo>, inside: bool, out: &mut BTreeSet<StmtId>) {
        for n in nodes {
            match n {
                Node::Do { header, body, .. } => {
                    if inside {
                        out.insert(*header);
                    }
                    // (a loop parallel under run-time tests may run in parallel too)
                    let par = loops.get(header).is_some_and(|l| l.verdict != Verdict::Sequential || l.versioned.is_some());
                    walk(u, body, loops, inside || par, out);
                }
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        walk(u, b, loops, inside, out);
                    }
                }
                Node::Stmt(id) => {
                    if inside {
                        out.insert(*id);
                    }
                }
            }
        }
    }
    let u = &analysis.program.units[ui];
    let loops = loop_map(analysis, ui);
    let mut out = BTreeSet::new();
    walk(u, &u.body, &loops, false, &mut out);
    out
}

/// The calls that pass arrays to procedures, by (unit, array): (line, what is passed to what).
type Passed = BTreeMap<(usize, Name), Vec<(u32, String)>>;

/// Why array `id` must stay replicated because of the units that share it: passed to a
/// procedure in one of them, or a COMMON member with different shapes in different units.
fn shared_reason(
    prog: &analyzer::program::Program,
    id: &ArrayId,
    passed: &Passed,
) -> Option<String> {
    let units = units_sharing(prog, id);
    if let Some((u, calls)) = units
        .iter()
        .find_map(|u| seen_name_in(prog, *u, id).and_then(|nm| passed.get(&(*u, nm))).map(|c| (*u, c)))
    {
        // every call, with file:line and what it passes (up to 4)
        let file = prog.map.file(prog.units[u].file).display_path();
        let mut each: Vec<String> = calls.iter().take(4).map(|(l, what)| format!("{file}:{l} passes {what}")).collect();
        if calls.len() > 4 {
            each.push(format!("and {} more", calls.len() - 4));
        }
        return Some(format!(
            "it is passed to a procedure in {}: {}",
            upper(&prog.units[u].name),
            each.join("; ")
        ));
    }
    let ArrayId::Common { block, index } = id else {
        return None;
    };
    // DATA in any unit declaring the block (BLOCK DATA): the runtime cannot distribute it
    if let Some(u) = units.iter().find(|u| {
        prog.semas[**u]
            .commons
            .get(block)
            .and_then(|m| m.get(*index))
            .and_then(|m| prog.semas[**u].symbol(&m.name))
            .is_some_and(|s| s.data_init)
    }) {
        return Some(format!(
            "{} initializes it by DATA (the runtime cannot distribute such an array yet)",
            upper(&prog.units[*u].name)
        ));
    }
    // Every unit declaring the block must see the same shape at that position.
    let shapes: BTreeSet<Vec<Option<(i64, i64)>>> = units
        .into_iter()
        .filter_map(|u| {
            prog.semas[u]
                .commons
                .get(block)
                .and_then(|m| m.get(*index))
                .and_then(|m| prog.semas[u].symbol(&m.name))
                .map(|s| s.bounds())
        })
        .collect();
    (shapes.len() > 1).then(|| {
        format!(
            "COMMON /{}/ declares it with different shapes in different units",
            upper(block)
        )
    })
}

fn units_sharing(prog: &analyzer::program::Program, id: &ArrayId) -> Vec<usize> {
    let mut v: Vec<usize> = match id {
        ArrayId::Local { unit, .. } => vec![*unit],
        ArrayId::Common { block, .. } => (0..prog.units.len())
            .filter(|u| prog.semas[*u].commons.contains_key(block))
            .collect(),
    };
    // and the units whose dummies are bound to it
    v.extend(prog.bindings.iter().filter(|(_, r)| *r == id).map(|((u, _), _)| *u));
    v.sort_unstable();
    v.dedup();
    v
}

/// How an array is aligned with the template: for each of its dimensions, the template
/// dimension and offset (template index = array index + offset), or None (collapsed).
type AlignMap = Vec<Option<(usize, i64)>>;

fn alignments(
    analysis: &Analysis,
    nests: &[Nest],
    candidates: &BTreeMap<ArrayId, usize>,
    tid: &ArrayId,
    notes: &mut Vec<String>,
) -> BTreeMap<ArrayId, AlignMap> {
    let prog = &analysis.program;
    let trank = candidates[tid];
    // Votes per array: which template dimension each of its dimensions goes with (weighted
    // by the work of the nests that index them together), and for each such correspondence
    // the offsets seen per dimension.
    type Offsets = Vec<Vec<(i64, f64)>>;
    let mut votes: BTreeMap<ArrayId, BTreeMap<Vec<Option<usize>>, (f64, Offsets)>> = BTreeMap::new();
    for n in nests {
        let Some(tn) = seen_name_in(prog, n.unit, tid) else {
            continue;
        };
        let t_accs: Vec<&Vec<SubForm>> = n
            .accesses
            .iter()
            .filter(|a| a.array == tn)
            .filter_map(|a| a.subs.as_ref())
            .collect();
        let w = n.times * n.iterations;
        for a in &n.accesses {
            let Some(id) = array_id(prog, n.unit, &a.array) else {
                continue;
            };
            if &id == tid || !candidates.contains_key(&id) {
                continue;
            }
            let Some(subs) = &a.subs else { continue };
            for ts in &t_accs {
                let mut dims: Vec<Option<usize>> = vec![None; subs.len()];
                let mut offs: Vec<i64> = vec![0; subs.len()];
                let mut used = BTreeSet::new();
                for (d, s) in subs.iter().enumerate() {
                    if let SubForm::Var {
                        var,
                        coeff: 1,
                        offset,
                    } = s
                    {
                        for (e, t) in ts.iter().enumerate() {
                            if let SubForm::Var {
                                var: v2,
                                coeff: 1,
                                offset: o2,
                            } = t
                            {
                                if v2 == var && !used.contains(&e) {
                                    dims[d] = Some(e);
                                    offs[d] = o2 - offset;
                                    used.insert(e);
                                    break;
                                }
                            }
                        }
                    }
                }
                if dims.iter().any(|x| x.is_some()) {
                    let v = votes
                        .entry(id.clone())
                        .or_default()
                        .entry(dims)
                        .or_insert_with(|| (0.0, vec![Vec::new(); subs.len()]));
                    v.0 += w;
                    for (d, o) in offs.into_iter().enumerate() {
                        v.1[d].push((o, w));
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    out.insert(tid.clone(), (0..trank).map(|d| Some((d, 0))).collect());
    // The heaviest correspondence of dimensions; each dimension's offset is the one nearest
    // to all offsets seen (weighted), the smallest among equals: an array read at I-1 and I+1
    // as often as at I, or only at I-1 and I+1 (a stencil), aligns at I; one read at I+1
    // everywhere aligns at I+1.
    // A correspondence that names fewer dimensions and agrees on those it names adds its
    // weight to the fuller one (NPB LU's flux nests over K and J index RSD(M,I,J,K) with the
    // inner I not a nest variable: alone they would align RSD with U on J and K only, and
    // the pipelines along I could not run on RSD).
    let agrees = |part: &[Option<usize>], full: &[Option<usize>]| part.iter().zip(full).all(|(p, f)| p.is_none() || p == f);
    let tbounds = declared_bounds(prog, tid);
    let mut unaligned = vec![];
    for (id, _) in candidates.iter().filter(|(id, _)| *id != tid) {
        let best = votes.get(id).and_then(|v| {
            let score = |dims: &[Option<usize>]| -> (f64, usize) {
                (v.iter().filter(|(d, _)| agrees(d, dims)).map(|(_, (w, _))| w).sum(), dims.iter().flatten().count())
            };
            v.keys().max_by(|a, b| {
                let (sa, sb) = (score(a), score(b));
                sa.0.total_cmp(&sb.0).then(sa.1.cmp(&sb.1))
            })
        });
        match best {
            Some(dims) => {
                let v = &votes[id];
                let bounds = declared_bounds(prog, id);
                let map: AlignMap = dims
                    .iter()
                    .enumerate()
                    .map(|(d, e)| {
                        e.map(|e| {
                            let seen: Vec<(i64, f64)> = v.iter().filter(|(k, _)| agrees(k, dims) && k[d] == Some(e)).flat_map(|(_, (_, offs))| offs[d].iter().copied()).collect();
                            // (an alignment maps the array into the template where it fits,
                            // as DVM requires: a block past the template's end would leave a
                            // process with none of the array and its shadow edges, which the
                            // runtime does not give an empty block; fuzz seed 40, B(I) WITH
                            // C(I-3) of extent 6 at `--np 2`, read B(1) in a shadow there)
                            let off = central_offset(&seen);
                            let off = match (bounds.get(d).copied().flatten(), tbounds.get(e).copied().flatten()) {
                                (Some((lo, hi)), Some((tlo, thi))) if hi - lo <= thi - tlo => off.clamp(tlo - lo, thi - hi),
                                _ => off,
                            };
                            (e, off)
                        })
                    })
                    .collect();
                out.insert(id.clone(), map);
            }
            None => unaligned.push(id),
        }
    }
    // Twins (arrays one dummy gets at different calls) take one alignment: the template's
    // where it is one of them, else the first aligned twin's (they have the same bounds).
    // Each must be declared where the template is (an aligned array of a unit without the
    // template stays replicated there, and the dummy would inherit no distribution).
    for g in &prog.twins {
        if !g.iter().any(|r| candidates.contains_key(r)) {
            continue;
        }
        let lead = if g.contains(tid) { Some(tid.clone()) } else { g.iter().find(|r| out.contains_key(*r)).cloned() };
        let homeless = g.iter().find(|r| match r {
            ArrayId::Local { unit, .. } => name_in(prog, *unit, tid).is_none(),
            ArrayId::Common { block, .. } => (0..prog.units.len()).any(|u| prog.semas[u].commons.contains_key(block) && name_in(prog, u, tid).is_none()),
        });
        match (lead.and_then(|l| out.get(&l).cloned()), homeless) {
            (Some(map), None) => {
                for r in g {
                    out.insert(r.clone(), map.clone());
                }
                let names: Vec<String> = g.iter().map(|r| upper(&name_of(prog, r))).collect();
                notes.push(format!("arrays {} are aligned alike with the template {}: {} gets them all", names.join(", "), upper(&name_of(prog, tid)), twin_dummy(prog, g)));
            }
            (_, why) => {
                for r in g.iter().filter(|r| *r != tid) {
                    out.remove(r);
                }
                let why = match why {
                    Some(h) => format!("{} is declared where the template {} is not", upper(&name_of(prog, h)), upper(&name_of(prog, tid))),
                    None => format!("none of them is indexed together with the template {}", upper(&name_of(prog, tid))),
                };
                let names: Vec<String> = g.iter().map(|r| upper(&name_of(prog, r))).collect();
                notes.push(format!("arrays {} stay replicated: {} gets them all, and {why}", names.join(", "), twin_dummy(prog, g)));
            }
        }
    }
    let twins: BTreeSet<&ArrayId> = prog.twins.iter().flatten().collect();
    for id in unaligned.into_iter().filter(|id| !out.contains_key(*id) && !twins.contains(id)) {
        notes.push(format!(
            "array {} stays replicated: it is never indexed together with the template {}",
            upper(&name_of(prog, id)),
            upper(&name_of(prog, tid))
        ));
    }
    out
}

/// The offset that minimizes the weighted distance to the offsets seen; among equals the
/// one nearest to 0.
fn central_offset(seen: &[(i64, f64)]) -> i64 {
    let cost = |c: i64| -> f64 { seen.iter().map(|(o, w)| (o - c).abs() as f64 * w).sum() };
    seen.iter()
        .map(|(o, _)| *o)
        .chain(std::iter::once(0))
        .min_by(|a, b| cost(*a).total_cmp(&cost(*b)).then(a.abs().cmp(&b.abs())).then(a.cmp(b)))
        .unwrap_or(0)
}

const DUMMIES: [&str; 7] = ["I", "J", "K", "L", "M", "N", "O"];

/// Grids: every ordered factorization of `p` into `k` factors.
pub fn grids(p: u32, k: usize) -> Vec<Vec<u32>> {
    if k == 0 {
        return vec![vec![]];
    }
    if k == 1 {
        return vec![vec![p]];
    }
    let mut out = vec![];
    for d in 1..=p {
        if p % d == 0 {
            for mut rest in grids(p / d, k - 1) {
                rest.insert(0, d);
                out.push(rest);
            }
        }
    }
    out
}

/// Mapping of one nest in one variant.
struct Mapped {
    on: ArrayRef,
    /// For each distributed template dim: (nest var, template index = var + shift); a
    /// variable the nest does not change (`ON A(I, J, K)` in a sequential loop over K: the
    /// iterations of one execution run where plane K lives), or "" and the constant.
    owner: BTreeMap<usize, (Name, i64)>,
    shadow: Vec<ArrayWidths>,
    across: Vec<ArrayWidths>,
    remote: Vec<ArrayRef>,
}

fn ref_subs(subs: &[SubForm]) -> Vec<RefSub> {
    subs.iter()
        .map(|s| match s {
            SubForm::Var {
                var,
                coeff: 1,
                offset,
            } => RefSub::Var {
                var: var.clone(),
                offset: *offset,
            },
            SubForm::Const(c) => RefSub::Const(*c),
            SubForm::Invariant { var, offset } => RefSub::Var {
                var: var.clone(),
                offset: *offset,
            },
            _ => RefSub::All,
        })
        .collect()
}

/// Why a nest cannot be mapped onto a distribution.
enum Unfit {
    /// No reference indexes every distributed dimension by a loop variable.
    Unalignable(String),
    Other(String),
}

/// Whether alignment `map` places a dimension on a template dimension `dist` distributes.
fn split_by(map: &AlignMap, dist: &BTreeSet<usize>) -> bool {
    map.iter().flatten().any(|(d, _)| dist.contains(d))
}

/// The alignment of array `name` of unit `unit` when the variant (`dist`) distributes it.
fn distributed_map<'a>(
    prog: &analyzer::program::Program,
    unit: usize,
    name: &str,
    dist: &BTreeSet<usize>,
    aligns: &'a BTreeMap<ArrayId, AlignMap>,
) -> Option<&'a AlignMap> {
    let m = aligns.get(&array_id(prog, unit, name)?)?;
    split_by(m, dist).then_some(m)
}

/// Whether nest `n` can run as ordinary code on every process when this distribution does
/// not fit it: the procedures it calls touch distributed arrays only through elements it
/// gives them (whose reach is known: it then works on full copies), it assigns no whole
/// distributed array, and it does not both read and write one distributed array when its
/// loops carry a dependence (a Gauss-Seidel sweep would fetch element by element: the
/// variant is rejected). What it reads comes from the owners (through the runtime's read
/// caches, or one broadcast an element of an array it also writes), what it writes the
/// owners store; the cost model weighs it.
fn host_runnable(
    prog: &analyzer::program::Program,
    n: &Nest,
    dist: &BTreeSet<usize>,
    aligns: &BTreeMap<ArrayId, AlignMap>,
) -> bool {
    let touched: Vec<&Acc> = n
        .accesses
        .iter()
        .filter(|a| distributed_map(prog, n.unit, &a.array, dist, aligns).is_some())
        .collect();
    // (an element given to a procedure: the nest runs on a full copy of the array, which
    // the runtime keeps for arrays with storage of their own, not for a dummy bound to one)
    // (a vector laid out as the array: the runtime names each element it reads or stores
    // by its place in the array, `reshaped_subs` in the converter)
    let reshaped = |a: &Acc| !a.via_call && prog.reshaped.contains(&(n.unit, a.array.clone()));
    touched.iter().all(|a| a.subs.is_some() || (!a.write && !a.via_call) || reshaped(a))
        && touched.iter().all(|a| !a.via_call || (!prog.bindings.contains_key(&(n.unit, a.array.clone())) && passed_elements_only(prog, n, &a.array)))
        && !(n.across
            && touched
                .iter()
                .any(|a| a.write && touched.iter().any(|b| !b.write && b.array == a.array)))
}

/// Whether nest `n` reaches array `array` through the procedures it calls only by giving
/// them elements of it (CALL arguments, whose reach the analysis mapped): it passes one, and
/// no procedure it calls uses the COMMON block that holds the array (a callee working on the
/// block itself would see another copy, or run the runtime's collective element reads on
/// some processes only).
fn passed_elements_only(prog: &analyzer::program::Program, n: &Nest, array: &str) -> bool {
    let (u, sema) = (&prog.units[n.unit], &prog.semas[n.unit]);
    let block = match array_id(prog, n.unit, array) {
        Some(ArrayId::Common { block, .. }) => Some(block),
        _ => None,
    };
    // (a nest parallel where flags have their quiet values, `Nest::flags`, calls procedures
    // as they run then: NPB FT's SWARZTRAUBER without its timer calls)
    let sums = if n.flags.is_empty() { &prog.summaries } else { &prog.quiet.summaries };
    let uses_block = |callee: &str| block.as_ref().is_some_and(|b| sums.get(callee).is_none_or(|s| s.uses_common(b)));
    let (mut passed, mut clash) = (false, false);
    for st in u.stmts.iter().filter(|s| s.kind.is_executable() && n.line <= s.span.line && s.span.line <= n.end_line) {
        if let StmtKind::Call { name, args } = st.kind.action() {
            passed |= args.iter().any(|a| matches!(a.expr(), Some(Expr::Ref(x, subs)) if x == array && subs.iter().all(|g| g.expr().is_some())));
            clash |= uses_block(name);
        }
        for e in analyzer::sema::stmt_exprs(st.kind.action()) {
            e.walk(&mut |x| {
                if let Expr::Ref(f, _) = x {
                    if sema.ref_kind(f) == analyzer::sema::RefKind::Function {
                        clash |= uses_block(f);
                    }
                }
            });
        }
    }
    passed && !clash
}

/// The distributed arrays nest `n` touches.
fn touched_distributed<'a>(prog: &analyzer::program::Program, n: &'a Nest, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> BTreeSet<&'a Name> {
    n.accesses.iter().filter(|a| distributed_map(prog, n.unit, &a.array, dist, aligns).is_some()).map(|a| &a.array).collect()
}

/// Whether a nest that runs as ordinary code over distributed data (no distribution of the
/// variant fits it) may still have its outermost loop divided between processes, each
/// process running its iterations over full copies of the distributed arrays (fetched whole
/// before it; what it writes of them sent back to the owners, of replicated arrays merged, after it): the loop
/// is parallel with step 1, carries no ACROSS dependence, has no reductions and does no I/O.
/// The template range: the loop's constant bounds, else the declared bounds of a dimension
/// that an access indexes by the loop variable alone (NPB BT's z_solve, `DO J = 1,
/// GRID_POINTS(2)-2` over `RHS(M,I,J,K)`: RHS's second dimension).
fn copy_template_range(prog: &analyzer::program::Program, n: &Nest) -> Option<(i64, i64)> {
    let outer = &n.levels[0];
    if n.across || outer.step.is_some_and(|s| s != 1) || n.levels.iter().any(|l| !l.reductions.is_empty()) {
        return None;
    }
    loc_order(prog, n, &std::iter::once(&n.vars[0]).collect()).ok()?;
    let unit = &prog.units[n.unit];
    let node = analyzer::cfg::node_of(&unit.body, outer.header)?;
    let mut io = false;
    for_each_stmt(unit, std::slice::from_ref(node), &mut |st| io |= matches!(st.kind.action(), StmtKind::Io { .. }));
    if io {
        return None;
    }
    if let (Some(lo), Some(hi)) = (outer.lower, outer.upper) {
        return (hi > lo).then_some((lo, hi));
    }
    let sema = &prog.semas[n.unit];
    n.accesses.iter().find_map(|a| {
        let subs = a.subs.as_ref()?;
        let d = subs.iter().position(|x| matches!(x, SubForm::Var { var, coeff: 1, offset: 0 } if *var == n.vars[0]))?;
        // (a dummy bound to an array has its bounds: `X(N1+1,N2,N3)` given U(17,12,10))
        let bounds = match prog.bindings.get(&(n.unit, a.array.clone())) {
            Some(id) => declared_bounds(prog, id),
            None => sema.symbol(&a.array)?.bounds().to_vec(),
        };
        bounds.get(d).copied().flatten().filter(|(lo, hi)| hi > lo)
    })
}

/// The distributed arrays whose elements nest `n` gives to procedures: run as ordinary code,
/// it works on full copies of them (the runtime's copy nests).
fn copied_arrays<'a>(prog: &analyzer::program::Program, n: &'a Nest, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> BTreeSet<&'a Name> {
    n.accesses
        .iter()
        .filter(|a| a.via_call && distributed_map(prog, n.unit, &a.array, dist, aligns).is_some())
        .map(|a| &a.array)
        .collect()
}

/// Map a nest onto the distribution `dist` (template dims that are BLOCK). Err: why not.
fn map_nest(
    prog: &analyzer::program::Program,
    n: &Nest,
    dist: &BTreeSet<usize>,
    aligns: &BTreeMap<ArrayId, AlignMap>,
) -> Result<Option<Mapped>, Unfit> {
    // Distributed arrays touched by the nest with their alignment.
    let dist_of = |name: &str| distributed_map(prog, n.unit, name, dist, aligns);
    let touched: Vec<&Acc> = n
        .accesses
        .iter()
        .filter(|a| dist_of(&a.array).is_some())
        .collect();
    if touched.is_empty() {
        return Ok(None);
    }
    // (a procedure may be given an element of a distributed array: what it reads and writes
    // through it must be known, and be the iteration's own part or, read, its shadow edge)
    if let Some(a) = touched.iter().find(|a| a.via_call && (a.subs.is_none() || !passed_elements_only(prog, n, &a.array))) {
        return Err(Unfit::Other(format!("line {}: a procedure called in the parallel loop at line {} accesses the distributed array {} (it would see only the local part)", a.line, n.line, upper(&a.array))));
    }
    // Owner candidates: accesses whose subscripts on every distributed template dim are
    // distinct nest variables with coefficient 1, covering all distributed dims.
    // Second choice (issue 17 cause 4): a distributed dimension indexed by a scalar the nest
    // does not change or by a constant: one execution of the nest runs on the processes
    // owning that index (a nest inside a sequential loop over the distributed dimension).
    let owner_with = |a: &Acc, invariant: bool| -> Option<BTreeMap<usize, (Name, i64)>> {
        let m = dist_of(&a.array)?;
        let subs = a.subs.as_ref()?;
        let mut own = BTreeMap::new();
        for (d, slot) in m.iter().enumerate() {
            if let Some((t, off)) = slot {
                if dist.contains(t) {
                    match subs.get(d)? {
                        SubForm::Var {
                            var,
                            coeff: 1,
                            offset,
                        } => {
                            own.insert(*t, (var.clone(), offset + off));
                        }
                        SubForm::Invariant { var, offset } if invariant => {
                            own.insert(*t, (var.clone(), offset + off));
                        }
                        SubForm::Const(c) if invariant => {
                            own.insert(*t, (format!("#{t}"), c + off));
                        }
                        _ => return None,
                    }
                }
            }
        }
        // (a dimension that is not distributed may be indexed by anything: an outer
        // sequential loop's variable, say; ON names it `*`)
        let vars: BTreeSet<&Name> = own.values().map(|(v, _)| v).collect();
        (own.len() == dist.len() && vars.len() == own.len()).then_some(own)
    };
    let choose = |inv: bool| {
        touched
            .iter()
            .filter(|a| a.write)
            .find_map(|a| owner_with(a, inv).map(|o| (*a, o)))
            .or_else(|| touched.iter().find_map(|a| owner_with(a, inv).map(|o| (*a, o))))
    };
    let plain = choose(false);
    // an ON with invariant subscripts that does not fit the nest's other references leaves
    // the nest unalignable (it may still run as ordinary code, costed)
    let via_invariant = plain.is_none();
    let unalignable = format!("the loop at line {} cannot be aligned with the distribution (no reference indexes every distributed dimension by a loop variable)", n.line);
    let unfit = |text: String| if via_invariant { Unfit::Unalignable(unalignable.clone()) } else { Unfit::Other(text) };
    let best = plain.or_else(|| choose(true));
    let Some((on_acc, owner)) = best else {
        return Err(Unfit::Unalignable(unalignable));
    };
    // the runtime pipelines an ACROSS loop only where the ON array's distributed dimensions
    // are indexed by variables: a constant there is refused (`C(I,9,3) = C(I+1,9,3)` with C
    // distributed along its second dimension), a plane the nest does not iterate over is
    // not (NPB LU's blts: `V(M,I,J,K)` with K distributed, K an argument)
    if n.across && owner.values().any(|(v, _)| v.starts_with('#')) {
        return Err(unfit(format!(
            "the pipelined (ACROSS) loop at line {} indexes a distributed dimension of its ON array by a constant",
            n.line
        )));
    }
    let split: BTreeSet<&Name> = owner.values().map(|(v, _)| v).filter(|v| n.vars.contains(v)).collect();
    // (such a nest still runs as ordinary code over the distributed data)
    loc_order(prog, n, &split).map_err(|why| Unfit::Unalignable(format!("the loop at line {} {why}", n.line)))?;
    let mut shadow: BTreeMap<Name, (Vec<(u32, u32)>, bool)> = BTreeMap::new();
    let mut remote: Vec<ArrayRef> = vec![];
    for a in &touched {
        let m = dist_of(&a.array).expect("touched");
        let Some(subs) = &a.subs else {
            // (a vector laid out as the array, written at elements the expert does not place:
            // the nest may run over full copies)
            if a.write && prog.reshaped.contains(&(n.unit, a.array.clone())) {
                return Err(Unfit::Unalignable(format!("the loop at line {} writes {}, a vector laid out as the distributed array, at elements no distribution places", n.line, upper(&a.array))));
            }
            if a.write {
                return Err(unfit(format!(
                    "line {}: the whole array {} is written inside the parallel loop at line {}",
                    a.line,
                    upper(&a.array),
                    n.line
                )));
            }
            remote.push(ArrayRef {
                array: a.array.clone(),
                subs: vec![RefSub::All; m.len()],
            });
            continue;
        };
        // an array replicated along a distributed template dimension the ON reference indexes
        // (aligned with `*` there) has a copy on every process of that axis: written only
        // where the ON plane lives, or by the one process each iteration runs on, the others'
        // copies would go stale
        if a.write {
            if let Some((t, (v, _))) = owner.iter().find(|(t, _)| !m.iter().flatten().any(|(x, _)| x == *t)) {
                let (name, t) = (upper(&a.array), t + 1);
                return Err(if n.vars.contains(v) {
                    // (such a nest still runs as ordinary code over the distributed data:
                    // every copy written)
                    Unfit::Unalignable(format!(
                        "line {}: {name} is written in the loop at line {}, which divides its iterations along template dimension {t}, but {name} has a copy on every process along that dimension",
                        a.line, n.line
                    ))
                } else {
                    unfit(format!(
                        "line {}: {name} is written in the loop at line {}, which runs where one index of template dimension {t} lives, but it has a copy on every process along that dimension",
                        a.line, n.line
                    ))
                });
            }
        }
        let mut shifts = vec![0i64; subs.len()];
        let mut local = true;
        for (d, slot) in m.iter().enumerate() {
            let Some((t, off)) = slot else { continue };
            let Some((ov, oshift)) = owner.get(t) else {
                continue;
            };
            match &subs[d] {
                SubForm::Var {
                    var,
                    coeff: 1,
                    offset,
                } if var == ov => shifts[d] = offset + off - oshift,
                SubForm::Invariant { var, offset } if var == ov => shifts[d] = offset + off - oshift,
                SubForm::Const(c) if *ov == format!("#{t}") => shifts[d] = c + off - oshift,
                _ => local = false,
            }
        }
        if !local {
            if a.via_call {
                return Err(unfit(format!("line {}: a procedure called in the loop at line {} is given elements of the distributed array {} that the iteration does not own", a.line, n.line, upper(&a.array))));
            }
            if a.write {
                return Err(unfit(format!("line {}: {} is written at an element that is not owned by the iteration (loop at line {})", a.line, upper(&a.array), n.line)));
            }
            remote.push(ArrayRef {
                array: a.array.clone(),
                subs: ref_subs(subs),
            });
            continue;
        }
        if shifts.iter().all(|s| *s == 0) {
            continue;
        }
        let invariant_shift = shifts.iter().enumerate().any(|(d, s)| {
            *s != 0 && m[d].is_some_and(|(t, _)| owner.get(&t).is_some_and(|(v, _)| !n.vars.contains(v)))
        });
        if invariant_shift && n.across {
            return Err(unfit(format!(
                "line {}: {} is read at another index of a distributed dimension the pipelined (ACROSS) loop at line {} does not iterate over",
                a.line,
                upper(&a.array),
                n.line
            )));
        }
        if a.write {
            return Err(unfit(format!("line {}: {} is written at a neighbour's element (shift {:?}) in the loop at line {}", a.line, upper(&a.array), shifts, n.line)));
        }
        let e = shadow
            .entry(a.array.clone())
            .or_insert_with(|| (vec![(0, 0); subs.len()], false));
        for (d, s) in shifts.iter().enumerate() {
            if *s < 0 {
                e.0[d].0 = e.0[d].0.max((-s) as u32);
            } else if *s > 0 {
                e.0[d].1 = e.0[d].1.max(*s as u32);
            }
        }
        if shifts.iter().filter(|s| **s != 0).count() >= 2 {
            e.1 = true;
        }
    }
    let mut across = vec![];
    let mut renew = vec![];
    let mut local_across = across_local_widths(n, &|a: &str| dist_of(a).cloned(), dist).map_err(unfit)?;
    for (array, (widths, corner)) in shadow {
        let mut aw = ArrayWidths {
            array: array.clone(),
            widths,
            corner,
        };
        if n.across && n.dep_arrays.contains(&array) {
            if let Some(local) = local_across.remove(&array) {
                for (w, l) in aw.widths.iter_mut().zip(local) {
                    w.0 = w.0.max(l.0);
                    w.1 = w.1.max(l.1);
                }
            }
            across.push(aw);
        } else {
            renew.push(aw);
        }
    }
    for (array, widths) in local_across {
        across.push(ArrayWidths {
            array,
            widths,
            corner: false,
        });
    }
    remote.sort_by(|a, b| a.array.cmp(&b.array));
    remote.dedup();
    // a REMOTE_ACCESS reads a copy fetched before the loop: of an array the loop also writes,
    // it could be stale; the runtime reads the copy in the clause's references only and takes
    // such a loop where its writes provably miss what they read (`remote_apart`, Gaussian
    // elimination's `ON A(J,*), REMOTE_ACCESS(A(I,:))` over the rows J > I): one reference
    // of such an array, `:` where its references differ (the pivot A(I,I) and the row A(I,K))
    let written: BTreeSet<&Name> = touched.iter().filter(|a| a.write).map(|a| &a.array).collect();
    let mut one: Vec<ArrayRef> = vec![];
    for r in remote {
        match one.iter_mut().find(|m| m.array == r.array && written.contains(&r.array)) {
            Some(m) => {
                for (x, y) in m.subs.iter_mut().zip(&r.subs) {
                    if x != y {
                        *x = RefSub::All;
                    }
                }
            }
            None => one.push(r),
        }
    }
    let remote = one;
    for r in remote.iter().filter(|r| written.contains(&r.array)) {
        let edges = renew.iter().chain(&across).any(|w| w.array == r.array);
        if let Err(why) = remote_apart(prog, n, r, &on_acc.array, &touched, edges) {
            return Err(unfit(format!(
                "the loop at line {} reads elements of {} other processes own and also writes {}: {why}",
                n.line,
                upper(&r.array),
                upper(&r.array)
            )));
        }
    }
    Ok(Some(Mapped {
        on: ArrayRef {
            array: on_acc.array.clone(),
            subs: ref_subs(on_acc.subs.as_ref().expect("owner has subs")),
        },
        owner,
        shadow: renew,
        across,
        remote,
    }))
}

/// Whether a loop that writes array `r.array` may read it through REMOTE_ACCESS `r` (the
/// runtime's `remote_apart`, runtime/src/convert.rs): the loop is ON that array (`on`), reads
/// no neighbour's edge of it (`edges`), and in some dimension where `r` names one index E (a
/// scalar the nest does not change plus a constant, or a constant), every write's subscript
/// is E plus a nonzero constant, or a DO variable of the nest plus a constant whose range
/// provably misses E (`DO J = I+1, N` against `A(I,:)`). Err: why not.
fn remote_apart(prog: &analyzer::program::Program, n: &Nest, r: &ArrayRef, on: &str, touched: &[&Acc], edges: bool) -> Result<(), String> {
    if r.array != on {
        return Err("the loop is not ON it".into());
    }
    if edges {
        return Err("the loop also reads neighbours' elements of it".into());
    }
    let unit = &prog.units[n.unit];
    let sema = &prog.semas[n.unit];
    let consts = |x: &str| sema.param(x).and_then(|_| sema.eval_int(&Expr::Var(x.to_string())));
    let lin = |e: &Expr| linearize(e, &consts);
    // the DO loops inside the nest's lines: each variable's first and last value
    let (first, last) = (n.line, n.levels.first().map_or(n.line, |l| l.end_line));
    let mut ranges: BTreeMap<Name, (Lin, Lin)> = BTreeMap::new();
    for st in unit.stmts.iter().filter(|st| (first..=last).contains(&st.span.line)) {
        if let StmtKind::Do { var, lo, hi, step, .. } = &st.kind {
            let stp = step.as_ref().map_or(Some(1), |e| sema.eval_int(e));
            if let (Some(a), Some(b), Some(k)) = (lin(lo), lin(hi), stp) {
                match k.signum() {
                    1 => ranges.insert(var.to_ascii_lowercase(), (a, b)),
                    -1 => ranges.insert(var.to_ascii_lowercase(), (b, a)),
                    _ => None,
                };
            }
        }
    }
    let nest_var = |v: &str| n.vars.iter().chain(&n.inner_vars).any(|x| x.eq_ignore_ascii_case(v));
    let writes: Vec<&Vec<SubForm>> = touched.iter().filter(|a| a.write && a.array == r.array).filter_map(|a| a.subs.as_ref()).collect();
    let apart = |d: usize| -> bool {
        let e = match &r.subs[d] {
            RefSub::Var { var, offset } if !nest_var(var) => Lin::var(&var.to_ascii_lowercase()).add(&Lin::constant(*offset), 1),
            RefSub::Const(c) => Some(Lin::constant(*c)),
            _ => None,
        };
        let Some(e) = e else { return false };
        let diff = |a: &Lin, b: &Lin| a.add(b, -1).and_then(|x| x.as_const());
        writes.iter().all(|w| match w.get(d) {
            Some(SubForm::Invariant { var, offset }) => Lin::var(&var.to_ascii_lowercase()).add(&Lin::constant(*offset), 1).and_then(|x| diff(&x, &e)).is_some_and(|c| c != 0),
            Some(SubForm::Const(c)) => diff(&Lin::constant(*c), &e).is_some_and(|c| c != 0),
            Some(SubForm::Var { var, coeff: 1, offset }) => ranges.get(&var.to_ascii_lowercase()).is_some_and(|(lo, hi)| {
                diff(lo, &e).is_some_and(|k| k + offset > 0) || diff(&e, hi).is_some_and(|k| k - offset > 0)
            }),
            _ => false,
        })
    };
    if (0..r.subs.len()).any(apart) {
        Ok(())
    } else {
        Err("the analysis cannot show that its writes miss the elements the reference names".into())
    }
}

/// Elements of array `name` of `unit`: as declared, or for a dummy of adjustable size that
/// every call binds to one array (`Program::bindings`: NPB FT's U0 in
/// COMPUTE_INITIAL_CONDITIONS, XNT of 256x256x128 at class A) that array's; 1,000 when
/// neither is known.
fn array_elements(prog: &analyzer::program::Program, unit: usize, name: &str) -> f64 {
    let Some(s) = prog.semas[unit].symbol(name) else { return 1000.0 };
    let bound = || {
        let root = prog.bindings.get(&(unit, name.to_string()))?;
        let (u, n) = home_of(prog, root)?;
        prog.semas[u].symbol(&n)?.elements()
    };
    s.elements().or_else(bound).unwrap_or(1000).max(1) as f64
}

/// Bytes of array `name` of `unit` (`array_elements`).
fn array_bytes(prog: &analyzer::program::Program, unit: usize, name: &str) -> f64 {
    array_elements(prog, unit, name) * prog.semas[unit].symbol(name).map_or(8, |s| s.ty.bytes()) as f64
}

/// Replicated arrays a nest assigns (not distributed in this variant, not private, not
/// reductions), with their size in bytes (`array_bytes`): a distributed loop merges them
/// after it.
fn merged_arrays(prog: &analyzer::program::Program, n: &Nest, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> Vec<(Name, f64)> {
    let sema = &prog.semas[n.unit];
    let private: BTreeSet<&Name> = n.levels.iter().flat_map(|l| l.private.iter()).collect();
    let reduced: BTreeSet<&Name> = n.levels.iter().flat_map(|l| l.reductions.iter().map(|r| &r.var)).collect();
    let mut out: Vec<(Name, f64)> = vec![];
    for a in n.accesses.iter().filter(|a| a.write) {
        if distributed_map(prog, n.unit, &a.array, dist, aligns).is_some() || private.contains(&a.array) || reduced.contains(&a.array) || out.iter().any(|(x, _)| *x == a.array) {
            continue;
        }
        if sema.symbol(&a.array).is_none() {
            continue;
        }
        out.push((a.array.clone(), array_bytes(prog, n.unit, &a.array)));
    }
    out
}

/// The dimensions of `array` along which an ACROSS clause can name a dependence carried by
/// loop `var`: every reference to the array in the nest indexes the dimension as
/// `var + constant`, and the constants differ.
fn across_dims(n: &Nest, array: &str, var: &str) -> Vec<usize> {
    let refs: Vec<&Acc> = n.accesses.iter().filter(|a| a.array == array).collect();
    let Some(rank) = refs.iter().find_map(|a| a.subs.as_ref().map(|s| s.len())) else {
        return vec![];
    };
    (0..rank)
        .filter(|&k| {
            let offsets: Option<Vec<i64>> = refs
                .iter()
                .map(|a| match a.subs.as_ref().and_then(|s| s.get(k)) {
                    Some(SubForm::Var {
                        var: v,
                        coeff: 1,
                        offset,
                    }) if v == var => Some(*offset),
                    _ => None,
                })
                .collect();
            offsets.is_some_and(|o| o.iter().any(|x| *x != o[0]))
        })
        .collect()
}

/// The first level of the nest (0-based) whose carried dependences an ACROSS clause cannot
/// name (a dependence on an array that no dimension indexed by the level's variable
/// carries): such a level must stay out of the PARALLEL tuple (issue 14).
fn first_unnameable_level(n: &Nest) -> Option<usize> {
    let unnameable = n.levels.iter().position(|l| {
        l.verdict == Verdict::Across
            && l.dependences
                .iter()
                .any(|d| across_dims(n, &d.array, &l.var).is_empty())
    });
    [unnameable, first_unpipelinable_level(n)].into_iter().flatten().min()
}

/// The runtime's ACROSS pipeline sends new values along each distributed dimension in the
/// direction of the loop indexing it (upwards or downwards, one index at a time). A reference
/// to an ACROSS array that reads a value of an earlier iteration (in the nest's order, each
/// loop in its own direction) ahead in a dimension's flow, or one not yet updated behind it,
/// would need the other direction there (the converter refuses it when that dimension is
/// distributed). Any dimension may be distributed in some variant, so the level that orders
/// such a reference (its first loop variable with a non-zero offset) stays out of the tuple:
/// inside it, the reference is an ordinary neighbour read. So do loops with a step other
/// than 1 or -1, and the first of loops running in opposite directions that index one
/// dimension of an ACROSS array in different references.
fn first_unpipelinable_level(n: &Nest) -> Option<usize> {
    if !n.levels.iter().any(|l| l.verdict == Verdict::Across) {
        return None;
    }
    let arrays: BTreeSet<&str> = n
        .levels
        .iter()
        .filter(|l| l.verdict == Verdict::Across)
        .flat_map(|l| l.dependences.iter().map(|d| d.array.as_str()))
        .collect();
    let dir = |k: usize| n.levels.get(k).and_then(|l| l.step).map_or(1, |s| s.signum());
    let mut cut: Option<usize> = n.levels.iter().position(|l| l.step.is_some_and(|s| s != 1 && s != -1));
    let mut cut_at = |k: usize| cut = Some(cut.map_or(k, |c: usize| c.min(k)));
    // (array, dimension) -> the levels indexing it
    let mut by_dim: BTreeMap<(&str, usize), BTreeSet<usize>> = BTreeMap::new();
    for a in n.accesses.iter().filter(|a| arrays.contains(a.array.as_str())) {
        let Some(subs) = &a.subs else { continue };
        let level = |s: &SubForm| match s {
            SubForm::Var { var, coeff: 1, offset } => n.vars.iter().position(|v| v == var).map(|k| (k, *offset)),
            _ => None,
        };
        for (d, s) in subs.iter().enumerate() {
            if let Some((k, _)) = level(s) {
                by_dim.entry((a.array.as_str(), d)).or_default().insert(k);
            }
        }
        // offsets in the nest's order from the iteration that writes the element: negative =
        // an earlier iteration. Relative to each write of the array (`C(I,J-1,K)` read where
        // `C(I,J,K-1)` is written comes from J-1 and K+1: against K's flow), and to the
        // iteration itself (a write at the loop variables).
        let plain: Vec<SubForm> = subs.iter().map(|s| match s {
            SubForm::Var { var, coeff: 1, .. } => SubForm::Var { var: var.clone(), coeff: 1, offset: 0 },
            other => other.clone(),
        }).collect();
        let writes: Vec<&Vec<SubForm>> = n.accesses.iter().filter(|w| w.write && w.array == a.array).filter_map(|w| w.subs.as_ref()).chain(std::iter::once(&plain)).collect();
        for w in writes {
            let by_level: Vec<(usize, i64)> = subs
                .iter()
                .zip(w)
                .filter_map(|(s, t)| match (level(s), level(t)) {
                    (Some((k, c)), Some((k2, c2))) if k == k2 => Some((k, (c - c2) * dir(k))),
                    _ => None,
                })
                .collect();
            let Some(&(first, c0)) = by_level
                .iter()
                .filter(|(_, c)| *c != 0)
                .min_by_key(|(k, _)| *k)
            else {
                continue;
            };
            if by_level.iter().any(|&(_, c)| c != 0 && c.signum() != c0.signum()) {
                cut_at(first);
            }
        }
    }
    for levels in by_dim.values() {
        if let Some(&first) = levels.first().filter(|&&f| levels.iter().any(|&k| dir(k) != dir(f))) {
            cut_at(first);
        }
    }
    cut
}

/// ACROSS widths along the dimensions that are not distributed in this variant, for every
/// array with a dependence carried by a level of the nest: `lo` = how far a reference reads
/// (or writes) behind a write, `hi` = how far ahead. A PARALLEL tuple asserts that its loops
/// carry no dependence its ACROSS clause does not name, whatever the distribution; the
/// runtime runs ACROSS nests in order inside each process. Err: a carried dependence on an
/// array that is not distributed here (the runtime pipelines only distributed arrays).
fn across_local_widths(
    n: &Nest,
    dist_of: &dyn Fn(&str) -> Option<AlignMap>,
    dist: &BTreeSet<usize>,
) -> Result<BTreeMap<Name, Vec<(u32, u32)>>, String> {
    let mut out: BTreeMap<Name, Vec<(u32, u32)>> = BTreeMap::new();
    for l in n.levels.iter().filter(|l| l.verdict == Verdict::Across) {
        for d in &l.dependences {
            let Some(m) = dist_of(&d.array) else {
                return Err(format!(
                    "the loop {} at line {} carries a dependence on {}, which is not distributed in this variant (ACROSS needs a distributed array)",
                    upper(&l.var),
                    l.line,
                    upper(&d.array)
                ));
            };
            for k in across_dims(n, &d.array, &l.var) {
                if m.get(k)
                    .copied()
                    .flatten()
                    .is_some_and(|(t, _)| dist.contains(&t))
                {
                    continue; // the shadow widths relative to the ON reference name it
                }
                let offs: Vec<(bool, i64)> = n
                    .accesses
                    .iter()
                    .filter(|a| a.array == d.array)
                    .filter_map(|a| match a.subs.as_ref()?.get(k)? {
                        SubForm::Var { offset, .. } => Some((a.write, *offset)),
                        _ => None,
                    })
                    .collect();
                let w = out
                    .entry(d.array.clone())
                    .or_insert_with(|| vec![(0, 0); m.len()]);
                for (_, wo) in offs.iter().filter(|(w, _)| *w) {
                    for (_, ro) in &offs {
                        let diff = ro - wo;
                        if diff < 0 {
                            w[k].0 = w[k].0.max((-diff) as u32);
                        } else if diff > 0 {
                            w[k].1 = w[k].1.max(diff as u32);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

pub(crate) fn unit_ref(prog: &analyzer::program::Program, unit: usize) -> UnitRef {
    let u = &prog.units[unit];
    UnitRef {
        file: prog.map.file(u.file).display_path(),
        unit: u.name.clone(),
    }
}

pub(crate) fn parallel_loop(
    prog: &analyzer::program::Program,
    n: &Nest,
    on: Option<ArrayRef>,
) -> ParallelLoop {
    let mut private: BTreeSet<Name> = n
        .levels
        .iter()
        .flat_map(|l| l.private.iter().cloned())
        .collect();
    private.extend(n.inner_vars.iter().cloned());
    for v in &n.vars {
        private.remove(v);
    }
    // every level's reductions: a level with one iteration (`DO K = 3, 3`) carries no
    // dependence and lists none, while the loops inside it reduce (a fuzzed histogram lost
    // its REDUCTION that way and summed only one process's part)
    let mut reductions: Vec<ReductionSpec> = vec![];
    for r in n.levels.iter().flat_map(|l| &l.reductions) {
        if !reductions.iter().any(|x| x.var == r.var) {
            reductions.push(ReductionSpec {
                op: r.op.as_str().to_string(),
                var: r.var.clone(),
                loc: r.loc.clone(),
            });
        }
    }
    for r in &reductions {
        private.remove(&r.var);
        for l in &r.loc {
            private.remove(l);
        }
    }
    // the levels a user refinement made parallel (or across)
    let asserted: Vec<&LoopInfo> = n.levels.iter().filter(|l| !l.overridden_by.is_empty() && l.verdict != Verdict::Sequential).collect();
    ParallelLoop {
        at: unit_ref(prog, n.unit),
        line: n.line,
        vars: n.vars.clone(),
        on,
        copy_in: n.levels.iter().flat_map(|l| l.copy_in.iter()).filter(|x| private.contains(*x)).cloned().collect::<BTreeSet<_>>().into_iter().collect(),
        private: private.into_iter().collect(),
        reductions,
        shadow_renew: vec![],
        across: vec![],
        remote_access: vec![],
        shadow_compute: None,
        asserted: asserted.iter().map(|l| l.line).collect(),
        assertions: asserted
            .iter()
            .filter(|l| !l.assertions.is_empty() && !l.assertions.contains(&analyzer::directives::SpfHint::Parallel))
            .map(|l| (l.line, l.assertions.clone()))
            .collect(),
        when: n.when.clone(),
        split: n.split.clone(),
        end_line: if n.when.is_empty() && n.split.is_none() && n.part.is_empty() { 0 } else { n.end_line },
        part: n.part.clone(),
    }
}

/// A parallel nest over replicated data mapped on a template of its own: the template, the
/// loop, and the nest's estimated computation and reduction seconds over the run on `p`
/// processes. Err: why the nest cannot be mapped so; Ok(None): dividing its iterations saves
/// less than combining its reductions costs.
struct OnTemplate {
    template: Template,
    pl: ParallelLoop,
    comp: f64,
    comm: f64,
    note: String,
}

/// Whether a nest with a MAXLOC/MINLOC reduction may divide its iterations between
/// processes along `split` (its loop variables that index a distributed dimension). Each
/// process keeps the first of equal extrema in its part; the runtime combines the parts'
/// results telling equal extrema apart by their location variables (the last one most
/// significant), then by the processes' order. That finds the loop's first (what the
/// sequential search keeps) when the location variables, last first, record the nest's loop
/// variables outermost first (`IY = I`, `JY = J` in `DO J / DO I`, listed `IY, JY`), every
/// divided loop is among them, and those loops step upwards. Err: why not.
fn loc_order(prog: &analyzer::program::Program, n: &Nest, split: &BTreeSet<&Name>) -> Result<(), String> {
    let Some(r) = n.levels.iter().flat_map(|l| &l.reductions).find(|r| matches!(r.op, RedOp::MaxLoc | RedOp::MinLoc)) else {
        return Ok(());
    };
    if split.is_empty() {
        return Ok(());
    }
    let what = format!("searches for an extremum ({}({}))", r.op.as_str().to_uppercase(), upper(&r.var));
    // the loop variable each location variable records, the most significant first
    let unit = &prog.units[n.unit];
    let node = analyzer::cfg::node_of(&unit.body, n.levels[0].header);
    let recorded = |l: &Name| {
        let mut vals: BTreeSet<Option<&Name>> = BTreeSet::new();
        if let Some(node) = node {
            for_each_stmt(unit, std::slice::from_ref(node), &mut |st| {
                if let StmtKind::Assign { lhs: Expr::Var(x), rhs } = st.kind.action() {
                    if x == l {
                        vals.insert(match rhs {
                            Expr::Var(v) => Some(v),
                            _ => None,
                        });
                    }
                }
            });
        }
        match vals.into_iter().collect::<Vec<_>>()[..] {
            [Some(v)] => Some(v.clone()),
            _ => None,
        }
    };
    let prefix = r.loc.iter().rev().zip(&n.vars).take_while(|(l, v)| recorded(l).as_ref() == Some(*v)).count();
    if let Some(v) = split.iter().find(|v| !n.vars[..prefix].contains(**v)) {
        let locs: Vec<String> = r.loc.iter().map(|l| upper(l)).collect();
        return Err(format!(
            "{what} and would be divided along loop {}, which its location ({}) does not record outermost first: of equal extrema in several processes' parts, another than the loop's first could be kept",
            upper(v),
            locs.join(", ")
        ));
    }
    if let Some(l) = n.levels[..prefix].iter().find(|l| !l.step.is_some_and(|s| s > 0)) {
        return Err(format!(
            "{what} in loop {}, which does not step upwards: of equal extrema in several processes' parts, another than the loop's first could be kept",
            upper(&l.var)
        ));
    }
    Ok(())
}

fn template_mapping(prog: &analyzer::program::Program, n: &Nest, p: f64, m: &MachineModel, taken: &[Template]) -> Result<Option<OnTemplate>, String> {
    let at = unit_ref(prog, n.unit);
    let outer = &n.levels[0];
    if n.across {
        return Err("it carries a dependence (ACROSS needs distributed data)".into());
    }
    loc_order(prog, n, &std::iter::once(&n.vars[0]).collect())?;
    let (Some(lo), Some(hi), Some(st)) = (outer.lower, outer.upper, outer.step) else {
        return Err("the bounds of its outermost loop are not constants".into());
    };
    if st == 0 || (hi - lo) / st + 1 < 2 {
        return Err("its outermost loop has fewer than 2 iterations".into());
    }
    let mut pl = parallel_loop(prog, n, None);
    let mine: BTreeSet<String> = pl.private.iter().chain(pl.reductions.iter().map(|r| &r.var)).map(|v| v.to_ascii_lowercase()).collect();
    if let Some(a) = n.accesses.iter().find(|a| a.write && !mine.contains(&a.array.to_ascii_lowercase())) {
        return Err(format!("it writes {}, which is neither private nor a reduction variable", upper(&a.array)));
    }
    let unit = &prog.units[n.unit];
    let Some(node) = analyzer::cfg::node_of(&unit.body, outer.header) else {
        return Err("its loop is not found".into());
    };
    // (as it runs under the nest's flags: I/O only when debugging is asked for does not count)
    let runs = analyzer::loops::under_flags(unit, node, &n.flags);
    let mut io = None;
    for_each_stmt(unit, std::slice::from_ref(&runs), &mut |st| {
        if io.is_none() && matches!(st.kind.action(), StmtKind::Io { .. }) {
            io = Some(st.span.line);
        }
    });
    if let Some(l) = io {
        return Err(format!("it does I/O (line {l})"));
    }
    // the iterations split over the processes; each execution combines the reductions
    // (arrays element by element) in one message
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let sema = &prog.semas[n.unit];
    let whole = n.work_s * n.times;
    let trips = ((hi - lo) / st.abs() + 1) as f64;
    let share = (trips / p).ceil() / trips;
    let red_bytes: f64 = pl
        .reductions
        .iter()
        .map(|r| sema.symbol(&r.var).map_or(8.0, |s| s.elements().unwrap_or(1) as f64 * s.ty.bytes() as f64))
        .sum();
    let msg = if red_bytes > 0.0 && p > 1.0 { p.log2().ceil() * m.message_s(red_bytes) } else { 0.0 };
    // (a recurrence computed ahead runs whole on every process)
    let ahead = n.ahead_s * n.times;
    if whole * (1.0 - share) <= msg * n.times + ahead {
        return Ok(None);
    }
    // a template of the unit over the same range serves again; else a name no symbol of the
    // unit has, from the loop variable and the templates before it in the unit (not the line:
    // --auto on its own output must name it alike)
    let name = match taken.iter().find(|t| t.at == at && t.bounds == [(lo, hi)]) {
        Some(t) => t.name.clone(),
        None => {
            let mut k = taken.iter().filter(|t| t.at == at).count() + 1;
            let mut name = format!("sft{}{k}", n.vars[0]);
            while sema.symbol(&name).is_some() || taken.iter().any(|t| t.at == at && t.name == name) {
                k += 1;
                name = format!("sft{}{k}", n.vars[0]);
            }
            name
        }
    };
    pl.on = Some(ArrayRef { array: name.clone(), subs: vec![RefSub::Var { var: n.vars[0].clone(), offset: 0 }] });
    Ok(Some(OnTemplate {
        note: format!(
            "loop at line {} on template {}({lo}:{hi}): computation {:.6} s{}, reductions {:.6} s ({} executions)",
            n.line,
            upper(&name),
            whole * share + ahead,
            if n.split.is_some() { format!(" ({ahead:.6} s of it computing the recurrence ahead, on every process)") } else { String::new() },
            msg * n.times,
            n.times
        ),
        template: Template { at, name, bounds: vec![(lo, hi)] },
        pl,
        comp: whole * share + ahead,
        comm: msg * n.times,
    }))
}

/// Add a template-mapped nest to scheme `s` (and its template, unless the unit has it).
fn add_on_template(s: &mut Scheme, t: OnTemplate) {
    if !s.templates.contains(&t.template) {
        s.distributions.push(Distribution { at: t.template.at.clone(), array: t.template.name.clone(), formats: vec![Format::Block] });
        s.templates.push(t.template);
    }
    s.loops.push(t.pl);
}

/// "Templates": no array is distributed, but each parallel nest that writes only its private
/// and reduction variables (NPB EP's batches: a work array filled by a call, a histogram and
/// two sums) is mapped on a template of its own over its outermost loop's iterations
/// (`TEMPLATE SFTK1(1:4096)`, `DISTRIBUTE SFTK1(BLOCK)`, `PARALLEL (K) ON SFTK1(K)`), so
/// the processes divide the iterations and combine the reductions. Other nests run as in the
/// replicated scheme. None when no nest qualifies; why a heavy nest does not is noted.
/// Drop the loops of `loops` mapped on a template of `templates` (or with no ON at all) that
/// lie in a procedure some parallel loop calls (a loop of `loops` or `more`, or a nest of
/// `versioned`, directly or further down): such a loop runs inside an iteration of the
/// caller's, on the processes and the thread running it, and dividing it again would start a
/// parallel loop inside another (a wrong sum on a template, or "called before sapfor_init"
/// on a thread). It runs as it is.
/// A template no loop is mapped on any more (nor an array aligned with) goes too: its set-up
/// would run on the caller's thread.
pub(crate) fn drop_nested_loops(analysis: &Analysis, s: &mut Scheme, more: &[ParallelLoop], versioned: &[Nest]) {
    let prog = &analysis.program;
    let units = crate::dvmh::unit_index(prog);
    let unit_of = |at: &UnitRef| units.get(at).copied();
    let inside = crate::dvmh::inside_parallel(analysis, &unit_of, &s.loops, more, versioned);
    if inside.is_empty() {
        return;
    }
    let templates = s.templates.clone();
    let is_template = |at: &UnitRef, name: &str| templates.iter().any(|t| t.at == *at && t.name.eq_ignore_ascii_case(name));
    s.loops.retain(|l| {
        let on_template = l.on.as_ref().is_none_or(|on| is_template(&l.at, &on.array));
        !on_template || unit_of(&l.at).is_none_or(|u| !inside.contains(&u))
    });
    let (loops, alignments) = (&s.loops, &s.alignments);
    s.templates.retain(|t| {
        loops.iter().any(|l| l.at == t.at && l.on.as_ref().is_some_and(|on| on.array.eq_ignore_ascii_case(&t.name)))
            || alignments.iter().any(|a| a.at == t.at && a.target.eq_ignore_ascii_case(&t.name))
    });
    let kept = s.templates.clone();
    s.distributions.retain(|d| !is_template(&d.at, &d.array) || kept.iter().any(|t| t.at == d.at && t.name.eq_ignore_ascii_case(&d.array)));
}

fn template_scheme(analysis: &Analysis, nests: &[Nest], m: &MachineModel, notes: &mut Vec<String>) -> Option<Scheme> {
    let prog = &analysis.program;
    let p = m.processes.max(1) as f64;
    let mut s = replicated_scheme(analysis, nests, m);
    s.name = "templates".into();
    let (mut comp, mut comm) = (0.0, 0.0);
    let mut per_nest = vec![];
    let mut est_notes = vec![];
    let total: f64 = nests.iter().map(|n| n.work_s * n.times).sum();
    // loops parallel under run-time tests (EP's batch loop, whose timer calls run only when
    // timing is asked for) are mapped too, instead of the parallel nests inside them; the
    // generated program runs them on every process when the tests fail (all data replicated)
    let mut outer: Vec<(usize, u32, u32)> = vec![];
    for v in versioned_nests(analysis, m) {
        if let Ok(Some(t)) = template_mapping(prog, &v, p, m, &s.templates) {
            let at = unit_ref(prog, v.unit);
            comp += t.comp;
            comm += t.comm;
            per_nest.push(NestEstimate { file: at.file.clone(), line: v.line, seconds: t.comp + t.comm });
            est_notes.push(format!("{} ({})", t.note, parallel_when(&v)));
            add_on_template(&mut s, t);
            outer.push((v.unit, v.line, v.end_line));
        }
    }
    for n in nests {
        if outer.iter().any(|(u, a, b)| n.unit == *u && n.line >= *a && n.line <= *b) {
            continue;
        }
        let whole = n.work_s * n.times;
        let at = unit_ref(prog, n.unit);
        match template_mapping(prog, n, p, m, &s.templates) {
            Ok(Some(t)) => {
                comp += t.comp;
                comm += t.comm;
                per_nest.push(NestEstimate { file: at.file.clone(), line: n.line, seconds: t.comp + t.comm });
                est_notes.push(t.note.clone());
                add_on_template(&mut s, t);
            }
            other => {
                if let Err(why) = other {
                    // the heavy nests left out are named, with the reason
                    if whole > 0.05 * total {
                        notes.push(format!("{}:{} (unit {}): not mapped on a template: {why}", short_file(&at.file), n.line, upper(&at.unit)));
                    }
                }
                comp += whole;
                per_nest.push(NestEstimate { file: at.file.clone(), line: n.line, seconds: whole });
            }
        }
    }
    drop_nested_loops(analysis, &mut s, &[], &[]);
    if s.templates.is_empty() {
        return None;
    }
    if p > 1.0 {
        comm += m.startup_s;
    }
    s.estimate = Estimate {
        computation: comp,
        communication: comm,
        transfers: 0.0,
        total: comp + comm,
        grid: vec![m.processes.max(1)],
        notes: est_notes,
        nests: per_nest,
    };
    Some(s)
}

/// "Nothing distributed": every process runs every loop in full.
fn replicated_scheme(analysis: &Analysis, nests: &[Nest], _m: &MachineModel) -> Scheme {
    let computation: f64 = nests.iter().map(|n| n.work_s * n.times).sum();
    let per_nest = nests
        .iter()
        .map(|n| NestEstimate {
            file: unit_ref(&analysis.program, n.unit).file,
            line: n.line,
            seconds: n.work_s * n.times,
        })
        .collect();
    Scheme {
        expert: "dvm".into(),
        name: "replicated".into(),
        templates: vec![],
        distributions: vec![],
        alignments: vec![],
        inherits: vec![],
        owned: vec![],
        shadows: vec![],
        loops: vec![],
        remote: vec![],
        estimate: Estimate {
            computation,
            communication: 0.0,
            transfers: 0.0,
            total: computation,
            grid: vec![],
            notes: vec!["every process runs every loop on the whole data".into()],
            nests: per_nest,
        },
        notes: {
            let _ = analysis;
            vec![]
        },
        regions: vec![],
        actualizations: vec![],
    }
}

#[allow(clippy::too_many_arguments)]
fn variant(
    analysis: &Analysis,
    nests: &[Nest],
    versioned: &[Nest],
    inner: &InnerNests,
    tid: &ArrayId,
    formats: &[Format],
    aligns: &BTreeMap<ArrayId, AlignMap>,
    m: &MachineModel,
    counts: &[f64],
) -> Result<Scheme, Vec<Reason>> {
    // nests run in order with the loops inside them mapped (`with_inner`) trade the
    // movement of full copies for a loop start per execution of each loop inside: the cost
    // model weighs each such nest both ways, leaving out one at a time while that lowers the
    // estimate (NPB LU's eta-direction nest, J divided: 3,844 executions of four loops over J
    // per call of RHS, measured slower than full copies), up to `TRIED` nests
    const TRIED: usize = 8;
    let mut taken = vec![];
    let mut skip = BTreeSet::new();
    let mut best = variant_with(analysis, nests, versioned, (inner, &skip, &mut taken), tid, formats, aligns, m, counts);
    let mut declined = vec![];
    let total = |r: &Result<Scheme, Vec<Reason>>| r.as_ref().map_or(f64::INFINITY, |s| s.estimate.total);
    for &t in taken.iter().take(TRIED) {
        skip.insert(t);
        let other = variant_with(analysis, nests, versioned, (inner, &skip, &mut vec![]), tid, formats, aligns, m, counts);
        if total(&other) < total(&best) {
            declined.push((t, total(&best), total(&other)));
            best = other;
        } else {
            skip.remove(&t);
        }
    }
    if let Ok(s) = best.as_mut() {
        for ((u, l), a, b) in declined {
            s.notes.push(format!(
                "{}:{l} (unit {}): runs as it is: run in order with the loops inside it mapped, the variant was estimated to take {:.6} s more",
                unit_ref(&analysis.program, u).file,
                upper(&unit_ref(&analysis.program, u).unit),
                a - b
            ));
        }
    }
    best
}

/// `variant`, with the nests `with_inner` maps inside but for those listed to skip (the nests
/// it took are added to the list).
#[allow(clippy::too_many_arguments)]
fn variant_with(
    analysis: &Analysis,
    nests: &[Nest],
    versioned: &[Nest],
    (inner, skip, taken): (&InnerNests, &BTreeSet<(usize, u32)>, &mut Vec<(usize, u32)>),
    tid: &ArrayId,
    formats: &[Format],
    aligns: &BTreeMap<ArrayId, AlignMap>,
    m: &MachineModel,
    counts: &[f64],
) -> Result<Scheme, Vec<Reason>> {
    let prog = &analysis.program;
    let dist: BTreeSet<usize> = formats
        .iter()
        .enumerate()
        .filter(|(_, f)| **f == Format::Block)
        .map(|(d, _)| d)
        .collect();
    let mut versioned_notes = vec![];
    let nests = &with_versioned(prog, nests, versioned, &dist, aligns, &mut versioned_notes);
    let nests = &with_inner(prog, nests, inner, skip, &dist, aligns, &mut versioned_notes, taken);
    let nests = &with_fission(prog, nests, &dist, aligns, &mut versioned_notes);
    let tname_any = name_of(prog, tid);
    let name = format!(
        "({})",
        formats
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut scheme = Scheme {
        expert: "dvm".into(),
        name,
        templates: vec![],
        distributions: vec![],
        alignments: vec![],
        inherits: vec![],
        owned: vec![],
        shadows: vec![],
        loops: vec![],
        remote: vec![],
        estimate: Estimate::default(),
        notes: versioned_notes,
        regions: vec![],
        actualizations: vec![],
    };
    // Declarations in every unit that declares a distributed array.
    let mut max_shadow: BTreeMap<(usize, Name), Vec<(u32, u32)>> = BTreeMap::new();
    let mut mapped: Vec<(usize, Option<Mapped>)> = vec![];
    // every nest that cannot be mapped is a reason (the user fixes them one by one)
    let mut reasons = vec![];
    // a vector given the array whole (`Program::reshaped`, NPB FT's XOUT) holds each
    // process's block as one run of it only when the array is divided in its last dimension
    // alone (the runtime refuses the others)
    for (u, d) in &prog.reshaped {
        if distributed_map(prog, *u, d, &dist, aligns).is_some_and(|m| m.iter().rev().skip(1).flatten().any(|(t, _)| dist.contains(t))) {
            let at = unit_ref(prog, *u);
            reasons.push(Reason {
                line: None,
                text: format!("the dummy {} of {} is a vector laid out as the array {}: each process's part of it is one run of the vector only when the array is divided in its last dimension alone", upper(d), upper(&at.unit), upper(&name_of(prog, &array_id(prog, *u, d).expect("bound")))),
                at: Some(at),
            });
        }
    }
    // nests no reference of which can be aligned with this distribution run as ordinary
    // code on every process over the distributed data (the runtime fetches what they read,
    // the owners store what they write), weighed by the cost model, instead of rejecting
    // the variant for one such loop (issue 17 cause 4)
    let mut host: BTreeMap<usize, String> = BTreeMap::new();
    for (i, n) in nests.iter().enumerate() {
        match map_nest(prog, n, &dist, aligns) {
            Err(Unfit::Unalignable(text)) if host_runnable(prog, n, &dist, aligns) => {
                host.insert(i, text);
            }
            Ok(Some(mp)) => {
                let mp = match n.compute {
                    Some(c) => computed_reach(prog, n, mp, c, &dist, aligns),
                    None => mp,
                };
                for w in mp.shadow.iter().chain(&mp.across) {
                    // a dummy's shadow is its array's (declared where the array is)
                    let key = match prog.bindings.get(&(n.unit, w.array.clone())).and_then(|r| home_of(prog, r)) {
                        Some(h) => h,
                        None => (n.unit, w.array.clone()),
                    };
                    let e = max_shadow
                        .entry(key)
                        .or_insert_with(|| vec![(0, 0); w.widths.len()]);
                    for (d, (lo, hi)) in w.widths.iter().enumerate() {
                        e[d].0 = e[d].0.max(*lo);
                        e[d].1 = e[d].1.max(*hi);
                    }
                }
                mapped.push((i, Some(mp)));
            }
            Ok(None) => mapped.push((i, None)),
            Err(Unfit::Unalignable(text) | Unfit::Other(text)) => reasons.push(Reason {
                at: Some(unit_ref(prog, n.unit)),
                line: Some(n.line),
                text,
            }),
        }
    }
    if !reasons.is_empty() {
        return Err(reasons);
    }
    // twins share a dummy's shadow edges: each is declared as wide as all of them need
    for g in &prog.twins {
        let homes: Vec<(usize, Name)> = g.iter().filter_map(|r| home_of(prog, r)).collect();
        let mut widest: Option<Vec<(u32, u32)>> = None;
        for h in &homes {
            if let Some(w) = max_shadow.get(h) {
                let e = widest.get_or_insert_with(|| vec![(0, 0); w.len()]);
                for (d, (lo, hi)) in w.iter().enumerate() {
                    if let Some(x) = e.get_mut(d) {
                        x.0 = x.0.max(*lo);
                        x.1 = x.1.max(*hi);
                    }
                }
            }
        }
        if let Some(w) = widest {
            for h in homes {
                max_shadow.insert(h, w.clone());
            }
        }
    }
    for (ui, u) in prog.units.iter().enumerate() {
        let at = unit_ref(prog, ui);
        // dummies bound to the template or to an array distributed by alignment with it
        // take their actual's distribution
        for (id, _) in aligns.iter().filter(|(id, map)| *id == tid || split_by(map, &dist)) {
            if name_in(prog, ui, id).is_none() {
                // (every dummy bound to it: twins given in two places bind two dummies)
                for d in bound_dummies(prog, ui, id) {
                    scheme.inherits.push(Inherit { at: at.clone(), array: d });
                }
            }
        }
        let Some(tname) = name_in(prog, ui, tid) else {
            // Aligned arrays of this unit need the template declared here too.
            if aligns
                .keys()
                .any(|id| id != tid && name_in(prog, ui, id).is_some())
            {
                for id in aligns.keys().filter(|id| *id != tid) {
                    if let Some(nm) = name_in(prog, ui, id) {
                        scheme.notes.push(format!("{}: array {} is aligned with {}, which {} does not declare: it stays replicated there", upper(&u.name), upper(&nm), upper(&tname_any), upper(&u.name)));
                    }
                }
            }
            continue;
        };
        scheme.distributions.push(Distribution {
            at: at.clone(),
            array: tname.clone(),
            formats: formats.to_vec(),
        });
        // an array aligned only with dimensions this variant does not distribute is not
        // aligned at all: as an ordinary replicated array the runtime keeps every copy
        // current when a parallel loop writes it (aligned, each process would update only
        // the iterations it runs)
        for (id, map) in aligns
            .iter()
            .filter(|(id, map)| *id != tid && split_by(map, &dist))
        {
            let Some(nm) = name_in(prog, ui, id) else {
                continue;
            };
            let source: Vec<String> = map
                .iter()
                .enumerate()
                .map(|(d, s)| {
                    if s.is_some() {
                        DUMMIES[d.min(6)].to_string()
                    } else {
                        "*".into()
                    }
                })
                .collect();
            let trank = aligns[tid].len();
            let subs: Vec<AlignSub> = (0..trank)
                .map(
                    |t| match map.iter().position(|s| s.is_some_and(|(e, _)| e == t)) {
                        Some(d) => AlignSub::Linear {
                            dummy: d,
                            coeff: 1,
                            offset: map[d].expect("some").1,
                        },
                        None => AlignSub::Star,
                    },
                )
                .collect();
            scheme.alignments.push(Alignment {
                at: at.clone(),
                array: nm,
                source,
                target: tname.clone(),
                subs,
            });
        }
        for ((uu, array), widths) in &max_shadow {
            // Width 1 on distributed dimensions is the default; declare only what differs.
            if *uu == ui && widths.iter().any(|(lo, hi)| *lo > 1 || *hi > 1) {
                scheme.shadows.push(Shadow {
                    at: at.clone(),
                    array: array.clone(),
                    widths: widths.clone(),
                });
            }
        }
    }
    let mut untouched = vec![];
    for (i, mp) in &mapped {
        let n = &nests[*i];
        match mp {
            Some(mp) => {
                let mut pl = parallel_loop(prog, n, Some(mp.on.clone()));
                pl.shadow_compute = n.compute.and_then(|(t, lo, hi)| {
                    let map = distributed_map(prog, n.unit, &mp.on.array, &dist, aligns)?;
                    Some(ArrayWidths {
                        array: mp.on.array.clone(),
                        widths: map.iter().map(|s| if s.is_some_and(|(x, _)| x == t) { (lo, hi) } else { (0, 0) }).collect(),
                        corner: false,
                    })
                });
                pl.shadow_renew = mp.shadow.clone();
                pl.across = mp.across.clone();
                pl.remote_access = mp.remote.clone();
                scheme.loops.push(pl);
            }
            None => untouched.push(*i),
        }
    }
    // host nests whose iterations may still be divided between processes, each working on
    // full copies of the distributed arrays (`copy_template_range`), with the template range
    let divisible: BTreeMap<usize, (i64, i64)> = host.keys().filter_map(|i| copy_template_range(prog, &nests[*i]).map(|r| (*i, r))).collect();
    // the host nests' statements are ordinary code: their reads of distributed elements
    // are remote accesses like those of any sequential statement
    let parallel: Vec<Nest> = nests
        .iter()
        .enumerate()
        .filter(|(i, _)| !host.contains_key(i))
        .map(|(_, n)| n.clone())
        .collect();
    // (a host nest that gives procedures elements of a distributed array works on a full
    // copy of it, fetched once per execution: no element-wise reads of that array)
    let copies: Vec<(usize, u32, u32, BTreeSet<Name>)> = host
        .keys()
        .map(|i| {
            let n = &nests[*i];
            let arrays = if divisible.contains_key(i) {
                touched_distributed(prog, n, &dist, aligns)
            } else {
                copied_arrays(prog, n, &dist, aligns)
            };
            (n.unit, n.line, n.end_line, arrays.into_iter().cloned().collect())
        })
        .collect();
    scheme.remote = sequential_remote(analysis, &parallel, &copies, &dist, aligns, m, counts);
    // (the procedures that a parallel loop of this variant calls: their nests run inside
    // that loop's iterations, on the processes that own them)
    let units = crate::dvmh::unit_index(prog);
    let unit_of = |at: &UnitRef| units.get(at).copied();
    let inside = crate::dvmh::inside_parallel(analysis, &unit_of, &scheme.loops, &[], &[]);
    // work arrays only their owners ever touch: not merged
    let owned = owned_arrays(prog, nests, &mapped, &inside, &dist, aligns);
    for (ui, a) in &owned {
        scheme.owned.push(Owned { at: unit_ref(prog, *ui), array: a.clone() });
        scheme.notes.push(format!(
            "{}: array {} is written by parallel loops, and each element only by the process owning the iterations that use it: no merge of the copies (OWNED)",
            upper(&prog.units[*ui].name),
            upper(a)
        ));
    }
    // arrays held around mapped nests: renewed once per execution of the holding loop
    let mut loop_w: BTreeMap<(usize, usize), BTreeSet<ArrayId>> = BTreeMap::new();
    let mut holds: BTreeMap<(usize, Name), f64> = BTreeMap::new();
    let mut sites: BTreeMap<&str, Vec<(usize, u32)>> = BTreeMap::new();
    for (caller, callee, line) in &prog.call_graph.edges {
        sites.entry(callee.as_str()).or_default().push((*caller, *line));
    }
    for (i, mp) in &mapped {
        for w in mp.iter().flat_map(|mp| &mp.shadow) {
            let f = hold_factor(analysis, m, &nests[*i], &w.array, &sites, &mut loop_w);
            if f > 1.0 {
                holds.insert((*i, w.array.clone()), f);
            }
        }
    }
    // (the work arrays of SHADOW_COMPUTE loops are not merged either)
    let mut no_merge = owned.clone();
    for (i, _) in mapped.iter().filter(|(i, mp)| mp.is_some() && nests[*i].compute.is_some()) {
        no_merge.extend(merged_arrays(prog, &nests[*i], &dist, aligns).into_iter().map(|(a, _)| (nests[*i].unit, a)));
    }
    scheme.estimate = estimate(prog, nests, &mapped, &dist, aligns, tid, &scheme.remote, &no_merge, &holds, m);
    // nests that touch no distributed array divide their iterations over a template of their
    // own where that pays (the estimate counted their whole work on every process); a 1-D
    // template is divided along the grid's first axis, and copied along the others
    let p: f64 = scheme.estimate.grid.first().map_or(1.0, |g| *g as f64).max(1.0);
    // (not in a procedure that a parallel loop of this variant calls: such a nest runs
    // inside that loop's iterations, on the processes that own them)
    for &i in &untouched {
        let n = &nests[i];
        let mapping = if inside.contains(&n.unit) { Ok(None) } else { template_mapping(prog, n, p, m, &scheme.templates) };
        match mapping {
            Ok(Some(t)) => {
                let whole = n.work_s * n.times;
                scheme.estimate.computation += t.comp - whole;
                scheme.estimate.communication += t.comm;
                scheme.estimate.total += t.comp + t.comm - whole;
                let file = unit_ref(prog, n.unit).file;
                if let Some(e) = scheme.estimate.nests.iter_mut().find(|e| e.file == file && e.line == n.line) {
                    e.seconds = t.comp + t.comm;
                }
                scheme.estimate.notes.push(t.note.clone());
                add_on_template(&mut scheme, t);
            }
            _ => scheme.notes.push(format!(
                "loop at {}:{} touches no distributed array: it runs on every process",
                upper(&prog.units[n.unit].name),
                n.line
            )),
        }
    }
    // what the host nests cost: their whole work on every process, and the distributed
    // elements they read, through the runtime's read caches (boxes of about 2,048 elements
    // broadcast by their owners)
    let procs: f64 = scheme.estimate.grid.iter().map(|g| *g as f64).product::<f64>().max(1.0);
    let hops = procs.log2().ceil().max(1.0);
    for (i, why) in &host {
        let n = &nests[*i];
        let at = unit_ref(prog, n.unit);
        // divided on a template over full copies (along the grid's first axis)
        if let Some(&(lo, hi)) = divisible.get(i).filter(|_| p > 1.0 && !inside.contains(&n.unit)) {
            let sema = &prog.semas[n.unit];
            let all = touched_distributed(prog, n, &dist, aligns);
            let written: BTreeSet<&Name> = n.accesses.iter().filter(|a| a.write && all.contains(&a.array)).map(|a| &a.array).collect();
            let replicated_written: f64 = merged_arrays(prog, n, &dist, aligns).iter().map(|(_, b)| b).sum();
            let trips = (hi - lo + 1).max(1) as f64;
            let share = (trips / p).ceil() / trips;
            let whole = n.work_s * n.times;
            let comp = whole * share;
            // an array every reference indexes in one dimension by the loop variable plus a
            // constant (written only at the variable itself) moves as slices: each process
            // receives the planes of its iterations from their owners and sends back what it
            // wrote, `(p-1)/p` of a `1/p` share (the runtime's `sapfor_slices`); a vector laid out
            // as the array is taken to split so too (the converter checks its strides); the
            // others move whole
            let sliced = |a: &Name| {
                prog.reshaped.contains(&(n.unit, a.clone()))
                    || (0..sema.symbol(a).map_or(0, |x| x.rank())).any(|d| {
                        n.accesses.iter().filter(|x| x.array == *a).all(|x| {
                            matches!(x.subs.as_ref().and_then(|s| s.get(d)), Some(SubForm::Var { var, coeff: 1, offset }) if *var == n.vars[0] && (!x.write || *offset == 0))
                        })
                    })
            };
            let moved = |names: &BTreeSet<&Name>| -> f64 {
                names
                    .iter()
                    .filter(|a| sema.symbol(a).is_some())
                    .map(|a| {
                        let b = array_bytes(prog, n.unit, a);
                        if sliced(a) { (p - 1.0) * m.message_s(b / (p * p)) } else { hops * m.message_s(b) }
                    })
                    .sum()
            };
            let comm = n.times * (moved(&all) + moved(&written) + hops * m.message_s(replicated_written));
            let name = {
                let mut k = scheme.templates.iter().filter(|t| t.at == at).count() + 1;
                let mut name = format!("sft{}{k}", n.vars[0]);
                while sema.symbol(&name).is_some() || scheme.templates.iter().any(|t| t.at == at && t.name == name) {
                    k += 1;
                    name = format!("sft{}{k}", n.vars[0]);
                }
                name
            };
            let mut pl = parallel_loop(prog, n, None);
            pl.on = Some(ArrayRef { array: name.clone(), subs: vec![RefSub::Var { var: n.vars[0].clone(), offset: 0 }] });
            let list = |xs: &BTreeSet<&Name>| xs.iter().map(|x| upper(x)).collect::<Vec<_>>().join(", ");
            scheme.notes.push(format!(
                "{}:{} (unit {}): divided on TEMPLATE {}({lo}:{hi}) over full copies of {} (fetched before it{}): {why}",
                at.file,
                n.line,
                upper(&prog.units[n.unit].name),
                upper(&name),
                list(&all),
                if written.is_empty() { String::new() } else { format!("; what it writes of {} sent back to the owners after it", list(&written)) }
            ));
            add_on_template(&mut scheme, OnTemplate { note: String::new(), template: Template { at: at.clone(), name, bounds: vec![(lo, hi)] }, pl, comp, comm });
            scheme.estimate.computation += comp;
            scheme.estimate.communication += comm;
            scheme.estimate.total += comp + comm;
            scheme.estimate.nests.push(NestEstimate { file: at.file.clone(), line: n.line, seconds: comp + comm });
            continue;
        }
        scheme.notes.push(format!(
            "{}:{} (unit {}): not a parallel loop in this variant, it runs on every process over the distributed data: {why}",
            at.file,
            n.line,
            upper(&prog.units[n.unit].name)
        ));
        // arrays whose elements the nest gives to procedures: it runs on full copies of
        // them, fetched whole before each execution (the runtime's copy nests)
        let copied = copied_arrays(prog, n, &dist, aligns);
        let fetch_bytes: f64 = copied
            .iter()
            .filter(|a| prog.semas[n.unit].symbol(a).is_some())
            .map(|a| array_bytes(prog, n.unit, a))
            .sum();
        // reads of arrays the nest does not write come through the read cache (a box of
        // about 2,048 elements a message), the others one broadcast each
        let dist_reads = |written: bool| {
            n.accesses
                .iter()
                .filter(|a| {
                    !a.write
                        && !copied.contains(&a.array)
                        && distributed_map(prog, n.unit, &a.array, &dist, aligns).is_some()
                        && n.accesses.iter().any(|b| b.write && b.array == a.array) == written
                })
                .count() as f64
                * n.iterations
                * n.times
        };
        let (cached, single) = (dist_reads(false), dist_reads(true));
        let fetches = if fetch_bytes > 0.0 && procs > 1.0 { n.times * hops * m.message_s(fetch_bytes) } else { 0.0 };
        let comm = (cached / 2048.0).ceil() * hops * m.message_s(2048.0 * 8.0) + single * hops * m.message_s(8.0) + fetches;
        let comp = n.work_s * n.times;
        scheme.estimate.computation += comp;
        scheme.estimate.communication += comm;
        scheme.estimate.total += comp + comm;
        scheme.estimate.notes.push(format!(
            "loop at line {} on every process: computation {:.6} s, communication {:.6} s ({} executions)",
            n.line, comp, comm, n.times
        ));
        scheme.estimate.nests.push(NestEstimate {
            file: unit_ref(prog, n.unit).file,
            line: n.line,
            seconds: comp + comm,
        });
    }
    // the nests of procedures that only the scheme's parallel loops call run inside their
    // iterations: each process runs its share of them, not all of them as counted above
    // (NPB FT's SWARZTRAUBER, called from the three FFT passes)
    if p > 1.0 {
        let within = called_only_inside(analysis, &scheme.loops, &unit_of);
        for &i in &untouched {
            let n = &nests[i];
            if !within.contains(&n.unit) {
                continue;
            }
            let saved = n.work_s * n.times * (1.0 - 1.0 / p);
            scheme.estimate.computation -= saved;
            scheme.estimate.total -= saved;
            let file = unit_ref(prog, n.unit).file;
            if let Some(e) = scheme.estimate.nests.iter_mut().find(|e| e.file == file && e.line == n.line) {
                e.seconds -= saved;
            }
        }
    }
    // (a nest divided over copies may call procedures whose loops were put on templates)
    drop_nested_loops(analysis, &mut scheme, &[], &[]);
    Ok(scheme)
}

/// The units every call of which comes from inside a loop of `loops` (or from a unit that is
/// itself such): what they run is divided between the processes with those loops'
/// iterations.
fn called_only_inside(analysis: &Analysis, loops: &[ParallelLoop], unit_of: &dyn Fn(&UnitRef) -> Option<usize>) -> BTreeSet<usize> {
    let prog = &analysis.program;
    let ranges = crate::dvmh::loop_ranges(analysis, unit_of, loops.iter());
    let index = analyzer::interproc::unit_index(&prog.units);
    let mut callers: BTreeMap<usize, Vec<(usize, u32)>> = BTreeMap::new();
    for (caller, callee, line) in &prog.call_graph.edges {
        if let Some(&c) = index.get(callee.as_str()) {
            callers.entry(c).or_default().push((*caller, *line));
        }
    }
    let mut out: BTreeSet<usize> = BTreeSet::new();
    loop {
        let before = out.len();
        for (&u, sites) in &callers {
            if out.contains(&u) || sites.is_empty() {
                continue;
            }
            let inside = |(c, line): &(usize, u32)| out.contains(c) || ranges.get(c).is_some_and(|rs| rs.iter().any(|&(a, b)| *line > a && *line <= b));
            if sites.iter().all(inside) {
                out.insert(u);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The nests a variant maps: `nests`, where a loop parallel under run-time tests
/// (`versioned`) takes the place of the nests inside it when this distribution fits it: a
/// reference indexes every distributed dimension by its loop variable (NPB SP's x_solve,
/// `DO K` over `RHS(M,I,J,K)` with `(*,*,*,BLOCK)`), or it may be divided over full copies
/// (`copy_template_range`: its z_solve's `DO J`). The generated program tests where the loop
/// starts and runs the loop as it is, over the distributed data, when the tests fail.
/// Elsewhere the nests inside keep their own mappings.
/// Why the others that touch distributed data are not taken goes to `notes`.
fn with_versioned(prog: &analyzer::program::Program, nests: &[Nest], versioned: &[Nest], dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>, notes: &mut Vec<String>) -> Vec<Nest> {
    let mut taken: Vec<&Nest> = vec![];
    for v in versioned {
        let why = match map_nest(prog, v, dist, aligns) {
            Ok(Some(_)) => None,
            Ok(None) => continue,
            Err(Unfit::Unalignable(_)) if host_runnable(prog, v, dist, aligns) && copy_template_range(prog, v).is_some() => None,
            Err(Unfit::Unalignable(text)) => Some(format!("{text}, and its iterations cannot be divided over full copies (a step other than 1, ACROSS, a reduction, I/O, or a distributed array it reaches through a dummy or a procedure's argument)")),
            Err(Unfit::Other(text)) => Some(text),
        };
        match why {
            None => taken.push(v),
            Some(why) => {
                let at = unit_ref(prog, v.unit);
                notes.push(format!("{}:{} (unit {}): {}, but runs as it is in this variant: {why}", at.file, v.line, upper(&at.unit), parallel_when(v)));
            }
        }
    }
    if taken.is_empty() {
        return nests.to_vec();
    }
    let mut out: Vec<Nest> = nests.iter().filter(|n| !taken.iter().any(|v| v.unit == n.unit && v.line <= n.line && n.line <= v.end_line)).cloned().collect();
    out.extend(taken.into_iter().cloned());
    out.sort_by_key(|n| (n.unit, n.line));
    out
}

/// The nests inside a nest's outermost loop, as the nest finder sees them when that loop runs
/// in order, by (unit, line) of the nest; the same for each of those, two levels down.
type InnerNests = BTreeMap<(usize, u32), Vec<Nest>>;

fn inner_nests<'a>(analysis: &Analysis, m: &MachineModel, nests: impl Iterator<Item = &'a Nest>) -> InnerNests {
    // the DO nodes of a unit by the line of their header
    fn dos<'n>(unit: &Unit, nodes: &'n [Node], out: &mut BTreeMap<u32, &'n Node>) {
        for n in nodes {
            match n {
                Node::Do { header, body, .. } => {
                    out.entry(unit.stmt(*header).span.line).or_insert(n);
                    dos(unit, body, out);
                }
                Node::If { arms, .. } => arms.iter().for_each(|(_, b)| dos(unit, b, out)),
                Node::Stmt(_) => {}
            }
        }
    }
    let prog = &analysis.program;
    // (per unit, once: its loops and its DO nodes)
    let mut units: BTreeMap<usize, (BTreeMap<StmtId, &LoopInfo>, BTreeMap<u32, &Node>)> = BTreeMap::new();
    let mut out = InnerNests::new();
    let mut todo: Vec<(Nest, usize)> = nests.map(|n| (n.clone(), 0)).collect();
    while let Some((n, depth)) = todo.pop() {
        if out.contains_key(&(n.unit, n.line)) {
            continue;
        }
        let unit = &prog.units[n.unit];
        let (loops, at) = units.entry(n.unit).or_insert_with(|| {
            let mut at = BTreeMap::new();
            dos(unit, &unit.body, &mut at);
            (loop_map(analysis, n.unit), at)
        });
        let Some(Node::Do { body, .. }) = at.get(&n.line) else { continue };
        let mut found = vec![];
        walk_nests(analysis, n.unit, unit, loops, body, n.times * trips(&n.levels[0], m), m, &mut found);
        if depth < 2 {
            todo.extend(found.iter().map(|f| (f.clone(), depth + 1)));
        }
        out.insert((n.unit, n.line), found);
    }
    out
}

/// The nests a variant maps, where a nest no reference of which fits this distribution
/// (`Unfit::Unalignable`) runs in order on every process instead and the parallel loops
/// inside it are mapped on the distributed data: NPB LU's eta-direction fluxes in RHS, `DO K`
/// around loops over I that a `(*,BLOCK,*,*)` variant divides (the K loop's iterations touch
/// every I, and over full copies each execution moved half of U, RHO_I and QS between the
/// processes). Taken only when every nest inside (two levels down at most) is mapped with no
/// pipeline or remote access, or touches no distributed array (no reduction either: each
/// execution would combine the processes' results), and the nest touches distributed data
/// nowhere else (that would be ordinary code). A nest inside may renew the shadow edges only of
/// arrays the nest never writes, and only where the runtime holds them around it
/// (`loop_holds`), and may merge only replicated arrays `computed_arrays` shows each process
/// can fill for itself (the writing loops then get `Nest::compute`). Elsewhere the nest stays
/// as it is (divided over full copies or run as ordinary code). The notes say which were
/// taken.
#[allow(clippy::too_many_arguments)]
fn with_inner(prog: &analyzer::program::Program, nests: &[Nest], inner: &InnerNests, skip: &BTreeSet<(usize, u32)>, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>, notes: &mut Vec<String>, taken: &mut Vec<(usize, u32)>) -> Vec<Nest> {
    /// `held`: the runtime holds what `top` never writes (its outer DO has no label and is
    /// left only at its end), so a nest inside may renew the edges of such an array: once per
    /// execution of `top`. `cands`: the replicated arrays the nests taken merge, which
    /// `computed_arrays` must show to be work arrays each process can compute for itself.
    #[allow(clippy::too_many_arguments)]
    fn expand(prog: &analyzer::program::Program, top: &Nest, held: bool, n: &Nest, inner: &InnerNests, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>, cands: &mut BTreeSet<Name>, split: &mut Vec<String>) -> Option<Vec<Nest>> {
        let alts = inner.get(&(n.unit, n.line)).filter(|a| !a.is_empty())?;
        let mut out = vec![];
        let mut mapped = false;
        let written = |array: &str| top.accesses.iter().any(|x| x.write && x.array == array);
        let fits = |a: &Nest, mp: &Mapped| {
            (mp.shadow.is_empty() || held)
                && mp.shadow.iter().all(|w| !written(&w.array))
                && mp.across.is_empty()
                && mp.remote.is_empty()
                && a.levels.iter().all(|l| l.reductions.is_empty())
        };
        for a in alts {
            let mapping = map_nest(prog, a, dist, aligns);
            // (a nest no one ON reference maps may map split by statements)
            let parts = match &mapping {
                Err(_) => fission(prog, a, dist, aligns).and_then(|ps| mapped_parts(prog, ps, dist, aligns)).filter(|ps| ps.iter().all(|(p, mp)| fits(p, mp))),
                _ => None,
            };
            if let Some(parts) = parts {
                split.push(fission_note(prog, a, parts.iter().map(|(p, _)| p)));
                for (p, _) in parts {
                    cands.extend(merged_arrays(prog, &p, dist, aligns).into_iter().map(|(w, _)| w));
                    out.push(p);
                }
                mapped = true;
                continue;
            }
            match mapping {
                Ok(Some(mp)) if fits(a, &mp) => {
                    cands.extend(merged_arrays(prog, a, dist, aligns).into_iter().map(|(w, _)| w));
                    out.push(a.clone());
                    mapped = true;
                }
                Ok(None) => out.push(a.clone()),
                Err(Unfit::Unalignable(_)) => {
                    out.extend(expand(prog, top, held, a, inner, dist, aligns, cands, split)?);
                    mapped = true;
                }
                _ => return None,
            }
        }
        mapped.then_some(out)
    }
    let mut out = vec![];
    for n in nests {
        // (a nest with no nest inside keeps its mapping, which `variant` finds)
        let has_inner = inner.get(&(n.unit, n.line)).is_some_and(|a| !a.is_empty());
        if has_inner && !skip.contains(&(n.unit, n.line)) && matches!(map_nest(prog, n, dist, aligns), Err(Unfit::Unalignable(_))) {
            // (what the nest does with distributed data outside the loops inside it would be
            // ordinary code: element reads one at a time, or refused, `CALL ROW(A(1,K))`)
            let inside = |l: u32, list: &[Nest]| list.iter().any(|x| x.line <= l && l <= x.end_line);
            let covered = |list: &Vec<Nest>| n.accesses.iter().filter(|a| distributed_map(prog, n.unit, &a.array, dist, aligns).is_some()).all(|a| !a.via_call && inside(a.line, list));
            let held = n.levels.first().is_some_and(|l| loop_holds(prog, n.unit, l));
            let mut cands = BTreeSet::new();
            let mut split = vec![];
            let list = expand(prog, n, held, n, inner, dist, aligns, &mut cands, &mut split).filter(covered);
            let computed = match &list {
                Some(list) if !cands.is_empty() => computed_arrays(prog, n, list, &cands, dist, aligns),
                _ => Some(BTreeMap::new()),
            };
            if let (Some(mut list), Some(computed)) = (list, computed) {
                let at = unit_ref(prog, n.unit);
                let mut lines: Vec<String> = list.iter().map(|x| x.line.to_string()).collect();
                lines.dedup();
                notes.push(format!(
                    "{}:{} (unit {}): runs in order on every process (its iterations touch every index of a distributed dimension), and the parallel loops inside it at lines {} are mapped on the distributed data",
                    at.file,
                    n.line,
                    upper(&at.unit),
                    lines.join(", ")
                ));
                notes.extend(split);
                if !computed.is_empty() {
                    let arrays: Vec<String> = cands.iter().map(|w| upper(w)).collect();
                    let fill: Vec<String> = computed.iter().map(|(l, (_, lo, hi))| format!("{l} (reaching {lo} below and {hi} above)")).collect();
                    notes.push(format!(
                        "{}:{} (unit {}): the work array(s) {} are filled past each process's block by the loops at lines {} (SHADOW_COMPUTE), so each process computes the neighbours it reads: no merge",
                        at.file,
                        n.line,
                        upper(&at.unit),
                        arrays.join(", "),
                        fill.join(", ")
                    ));
                    for x in list.iter_mut() {
                        x.compute = computed.get(&x.line).copied();
                    }
                }
                out.extend(list);
                taken.push((n.unit, n.line));
                continue;
            }
        }
        out.push(n.clone());
    }
    out
}

/// The nest split by statements (loop fission) so that each part maps on the distribution:
/// NPB LU's dissipation at the J boundaries, `DO I / DO M` with `RSD(M,I,2,K) = ...` and
/// `RSD(M,I,3,K) = ...`, J divided. No one ON plane maps both statements (the second would
/// be written at a neighbour's element), while each alone runs where its own plane lives. The
/// assignments of the innermost body are grouped by where, along the distributed template
/// dimensions, the element each writes lies; each group becomes a part, a copy of the nest
/// with only those statements (`Nest::part`), in the order of the groups' first statements.
/// None unless:
/// - the nest runs in parallel outright (no run-time tests, no recurrence computed ahead, no
///   reduction, no pipeline, no user refinement), and its innermost body holds only CONTINUE statements and
///   assignments to elements of distributed arrays (no label, no line shared), in two groups
///   or more;
/// - no statement calls a procedure or a function, so each writes its element only;
/// - statements of different groups touch no common element: where one writes an array that
///   the other references, some dimension has two different constant subscripts, or the same
///   scalar the nest does not change plus two different constants (`NY-2`, `NY-1`); and the
///   loops' bounds read no array a statement writes. Then no dependence links two groups in
///   either direction, and running each group's iterations after the previous group's
///   computes what the nest computes.
fn fission(prog: &analyzer::program::Program, n: &Nest, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> Option<Vec<Nest>> {
    // (the user's assertions travel with the loop's DO statement, which each part repeats)
    if !n.when.is_empty() || n.split.is_some() || n.compute.is_some() || n.across || !n.part.is_empty() || n.levels.iter().any(|l| !l.reductions.is_empty() || !l.overridden_by.is_empty()) {
        return None;
    }
    let unit = &prog.units[n.unit];
    let sema = &prog.semas[n.unit];
    let Node::Do { body, .. } = analyzer::cfg::node_of(&unit.body, n.levels.last()?.header)? else {
        return None;
    };
    let cx = AccessCtx { unit, sema, summaries: &prog.summaries };
    // per assignment: first and last line, and where its element lies (template dimension,
    // variable, coefficient, constant)
    type Key = Vec<(usize, Option<Name>, i64, i64)>;
    let mut stmts: Vec<(u32, u32, Key)> = vec![];
    for b in body {
        let Node::Stmt(id) = b else { return None };
        let st = unit.stmt(*id);
        match &st.kind {
            StmtKind::Continue => continue,
            StmtKind::Assign { .. } if st.label.is_none() && !unit.shares_a_line(st) => {}
            _ => return None,
        }
        let (mut raw, mut calls) = (vec![], vec![]);
        stmt_accs(prog, &cx, st, &mut raw, &mut calls);
        let writes: Vec<&Access> = raw.iter().filter(|a| a.write).collect();
        if !calls.is_empty() || raw.iter().any(|a| a.via_call.is_some()) || writes.len() != 1 || !sema.is_array(&writes[0].name) {
            return None;
        }
        let (first, last) = (st.span.line, st.span.end_line);
        let w = n.accesses.iter().find(|a| a.write && a.line >= first && a.line <= last)?;
        let map = distributed_map(prog, n.unit, &w.array, dist, aligns)?;
        let subs = w.subs.as_ref()?;
        let mut key = vec![];
        for (d, slot) in map.iter().enumerate() {
            let Some((t, off)) = slot.filter(|(t, _)| dist.contains(t)) else { continue };
            key.push(match subs.get(d)? {
                SubForm::Var { var, coeff, offset } => (t, Some(var.clone()), *coeff, offset + off),
                SubForm::Invariant { var, offset } => (t, Some(var.clone()), 1, offset + off),
                SubForm::Const(c) => (t, None, 0, c + off),
                SubForm::Other => return None,
            });
        }
        stmts.push((first, last, key));
    }
    let mut keys: Vec<&Key> = vec![];
    for (_, _, k) in &stmts {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    if keys.len() < 2 {
        return None;
    }
    let group_of = |line: u32| {
        let (_, _, k) = stmts.iter().find(|(f, l, _)| *f <= line && line <= *l)?;
        keys.iter().position(|x| *x == k)
    };
    for a in n.accesses.iter().filter(|a| a.write) {
        let ga = group_of(a.line)?;
        for b in n.accesses.iter().filter(|b| b.array == a.array) {
            // (a loop bound reading what a statement writes would change between the parts)
            let gb = group_of(b.line)?;
            let apart = match (&a.subs, &b.subs) {
                (Some(x), Some(y)) => x.iter().zip(y).any(|p| match p {
                    (SubForm::Const(c), SubForm::Const(e)) => c != e,
                    (SubForm::Invariant { var, offset }, SubForm::Invariant { var: v, offset: o }) => var == v && offset != o,
                    _ => false,
                }),
                _ => false,
            };
            if ga != gb && !apart {
                return None;
            }
        }
    }
    let total = stmts.len() as f64;
    let parts = keys
        .iter()
        .enumerate()
        .map(|(g, k)| {
            let spans: Vec<(u32, u32)> = stmts.iter().filter(|s| s.2 == **k).map(|s| (s.0, s.1)).collect();
            let mut p = n.clone();
            p.accesses.retain(|a| group_of(a.line).is_none_or(|x| x == g));
            let share = spans.len() as f64 / total;
            p.work_s *= share;
            p.with_calls_s *= share;
            p.part = spans;
            p
        })
        .collect();
    Some(parts)
}

/// The parts of a nest split by `fission` with their mappings, when each of them maps on the
/// distribution.
fn mapped_parts(prog: &analyzer::program::Program, parts: Vec<Nest>, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> Option<Vec<(Nest, Mapped)>> {
    parts
        .into_iter()
        .map(|p| match map_nest(prog, &p, dist, aligns) {
            Ok(Some(mp)) => Some((p, mp)),
            _ => None,
        })
        .collect()
}

/// Nests that map on this distribution only split by statements (`fission`, `mapped_parts`)
/// are replaced by their parts; a note names each.
fn with_fission(prog: &analyzer::program::Program, nests: &[Nest], dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>, notes: &mut Vec<String>) -> Vec<Nest> {
    let mut out = vec![];
    for n in nests {
        // (the split first: it gives up at once on most nests, mapping a nest costs more)
        let parts = fission(prog, n, dist, aligns).filter(|_| map_nest(prog, n, dist, aligns).is_err()).and_then(|ps| mapped_parts(prog, ps, dist, aligns));
        if let Some(parts) = parts {
            notes.push(fission_note(prog, n, parts.iter().map(|(p, _)| p)));
            out.extend(parts.into_iter().map(|(p, _)| p));
        } else {
            out.push(n.clone());
        }
    }
    out
}

/// What the notes say of a nest split by statements into `parts`.
fn fission_note<'a>(prog: &analyzer::program::Program, n: &Nest, parts: impl Iterator<Item = &'a Nest>) -> String {
    let at = unit_ref(prog, n.unit);
    let lists: Vec<String> = parts.map(|p| p.part.iter().map(|(f, _)| f.to_string()).collect::<Vec<_>>().join(" and ")).collect();
    format!(
        "{}:{} (unit {}): no one ON reference maps the loop, so it is split by statements into {} loops, each running where the elements its statements write live (statements at lines {})",
        at.file,
        n.line,
        upper(&at.unit),
        lists.len(),
        lists.join("; ")
    )
}

/// A loop of `computed_arrays` reaches `lo` below and `hi` above the owned part along
/// template dimension `t`: the distributed arrays it reads need shadow edges that much wider
/// in the dimension aligned with `t` (renewed before it, held around the nest outside).
fn computed_reach(prog: &analyzer::program::Program, n: &Nest, mut mp: Mapped, (t, lo, hi): (usize, u32, u32), dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> Mapped {
    if (lo, hi) == (0, 0) {
        return mp;
    }
    let read: BTreeSet<&Name> = n.accesses.iter().filter(|a| !a.write).map(|a| &a.array).collect();
    for array in read {
        let Some(map) = distributed_map(prog, n.unit, array, dist, aligns) else { continue };
        let Some(d) = map.iter().position(|s| s.is_some_and(|(x, _)| x == t)) else { continue };
        let k = match mp.shadow.iter().position(|w| w.array == *array) {
            Some(k) => k,
            None => {
                mp.shadow.push(ArrayWidths { array: array.clone(), widths: vec![(0, 0); map.len()], corner: false });
                mp.shadow.len() - 1
            }
        };
        let w = &mut mp.shadow[k];
        w.widths[d] = (w.widths[d].0 + lo, w.widths[d].1 + hi);
        w.corner |= w.widths.iter().enumerate().any(|(x, (a, b))| x != d && (*a > 0 || *b > 0));
    }
    mp
}

/// Whether the runtime holds, around loop `l` of unit `unit`, the arrays it never writes
/// (docs/runtime.md, holds; `convert::shadow_holds`): its DO statement has no label, shares no
/// terminal statement, and control leaves it only at its end.
fn loop_holds(prog: &analyzer::program::Program, unit: usize, l: &LoopInfo) -> bool {
    let u = &prog.units[unit];
    let h = u.stmt(l.header);
    let leaves = l.blockers.iter().any(|b| matches!(b.code, analyzer::loops::BlockerCode::Exit | analyzer::loops::BlockerCode::Stop));
    let shares = match &h.kind {
        StmtKind::Do { label: Some(t), .. } => u.stmts.iter().any(|o| o.id != l.header && matches!(&o.kind, StmtKind::Do { label: Some(x), .. } if x == t)),
        _ => false,
    };
    !(leaves || shares || h.label.is_some())
}

/// The replicated arrays `cands` that the nests of `list` (the loops inside `top` mapped on
/// the distributed data, `with_inner`) write and merge, shown to be work arrays that each
/// process can fill for itself past its block (NPB LU's FLUX in RHS's eta-direction nest:
/// `FLUX(M,J) = ...` over J, then `FLUX(M,J+1) - FLUX(M,J-1)` over J, J divided). Each loop
/// that writes one then reaches as far past the owned part as the reads need: (template
/// dimension, below, above) by the loop's line. None when some candidate is not such an
/// array: the nest is not taken. For each array W of `cands`:
/// - `top`'s outermost loop has W private (nothing reads what `top` leaves in it, which
///   differs between the processes after it);
/// - every access of W in `top` is in a nest of `list` that is mapped, not through a call,
///   and indexes one dimension of W by the variable the nest divides along one template
///   dimension T plus a constant (the same dimension and T throughout); the nests divide the
///   other template dimensions alike (the same invariant plane) and no other along a loop;
/// - the writes of one nest put the element of index X at one position of T (its home: `X - c
///   + shift`), and a nest that writes W reads it only at the elements its iterations write;
/// - a nest that writes W writes no distributed array and merges only such arrays.
///
/// Every writer of W reaches past its block as far as every read of W needs, counted from
/// the positions the reading loop runs (a fixed point: a reading loop may itself reach past
/// its block). Then each process's copy of W there holds what the sequential program has at
/// that point (each such iteration computes from the same values: renewed edges of arrays
/// `top` never writes, `expand`). Every writer is in the result, also one with no reach: a
/// merge of W there would first make every copy process 0's.
fn computed_arrays(prog: &analyzer::program::Program, top: &Nest, list: &[Nest], cands: &BTreeSet<Name>, dist: &BTreeSet<usize>, aligns: &BTreeMap<ArrayId, AlignMap>) -> Option<BTreeMap<u32, (usize, u32, u32)>> {
    let outer_private = top.levels.first().map_or(&[][..], |l| &l.private[..]);
    let dist_of = |unit: usize, name: &str| distributed_map(prog, unit, name, dist, aligns).is_some();
    // the template dimension the loops divide
    let mut along_t: Option<usize> = None;
    // per array: its writing loops (line, home: the position of element X is X + home) and
    // its reads (line, c - shift: the element read is that far from the iteration's
    // position, plus the home of the loop that wrote it)
    let mut arrays: Vec<(Vec<(u32, i64)>, Vec<(u32, i64)>)> = vec![];
    // each nest of the list that touches a candidate, mapped once: the template dimension it
    // divides along a loop, its variable and shift there, and its other owners
    type Divides<'n> = (&'n Nest, usize, Name, i64, BTreeMap<usize, (Name, i64)>);
    let mut mapped: Vec<Divides> = vec![];
    for x in list.iter().filter(|x| x.accesses.iter().any(|a| cands.contains(&a.array))) {
        let Ok(Some(mp)) = map_nest(prog, x, dist, aligns) else { return None };
        let rest: BTreeMap<usize, (Name, i64)> = mp.owner.iter().filter(|(_, (v, _))| !x.vars.contains(v)).map(|(t, o)| (*t, o.clone())).collect();
        let divided: Vec<(usize, &(Name, i64))> = mp.owner.iter().filter(|(_, (v, _))| x.vars.contains(v)).map(|(t, o)| (*t, o)).collect();
        let [(t, (var, shift))] = divided[..] else { return None };
        mapped.push((x, t, var.clone(), *shift, rest));
    }
    for w in cands {
        if !outer_private.contains(w) {
            return None;
        }
        // every access of W in `top` inside a nest of the list
        let nests: Vec<&Divides> = mapped.iter().filter(|(x, ..)| x.accesses.iter().any(|a| a.array == *w)).collect();
        if top.accesses.iter().filter(|a| a.array == *w).any(|a| a.via_call || !nests.iter().any(|(x, ..)| x.line <= a.line && a.line <= x.end_line)) {
            return None;
        }
        let mut dim_w: Option<usize> = None;
        let mut others: Option<&BTreeMap<usize, (Name, i64)>> = None;
        let (mut writers, mut reads) = (vec![], vec![]);
        for &&(x, t, ref var, shift, ref rest) in &nests {
            if *others.get_or_insert(rest) != rest || *along_t.get_or_insert(t) != t {
                return None;
            }
            let writes = x.accesses.iter().any(|a| a.array == *w && a.write);
            // (a loop that runs past the block writes nothing that is distributed, and merges
            // only work arrays)
            if writes && (x.accesses.iter().any(|a| a.write && dist_of(x.unit, &a.array)) || merged_arrays(prog, x, dist, aligns).iter().any(|(m, _)| !cands.contains(m))) {
                return None;
            }
            let mut home: Option<i64> = None;
            for a in x.accesses.iter().filter(|a| a.array == *w) {
                let subs = a.subs.as_ref().filter(|_| !a.via_call)?;
                let dims: Vec<(usize, i64)> = subs
                    .iter()
                    .enumerate()
                    .filter_map(|(d, s)| match s {
                        SubForm::Var { var: v, coeff: 1, offset } if v == var => Some((d, *offset)),
                        _ => None,
                    })
                    .collect();
                let [(d, c)] = dims[..] else { return None };
                if *dim_w.get_or_insert(d) != d {
                    return None;
                }
                if a.write {
                    if *home.get_or_insert(shift - c) != shift - c {
                        return None;
                    }
                } else {
                    reads.push((x.line, c - shift));
                }
            }
            if let Some(h) = home {
                writers.push((x.line, h));
                // (a loop that writes W reads it only at its iterations' own elements)
                if reads.iter().any(|(l, d)| *l == x.line && d + h != 0) {
                    return None;
                }
            }
        }
        arrays.push((writers, reads));
    }
    let t = along_t?;
    // How far each writing loop reaches below and above the block. A read at distance d from
    // its iteration's position (its `c - shift` plus the writer's home) needs every writer of
    // W to reach that far beyond the positions the reading loop runs: its own block, or, for a
    // loop that itself reaches past it, that reach too. A fixed point: reaches only grow, and
    // a loop reading what it writes does so at distance 0.
    let mut reach: BTreeMap<u32, (i64, i64)> = arrays.iter().flat_map(|(ws, _)| ws.iter().map(|(l, _)| (*l, (0, 0)))).collect();
    for _ in 0..64 {
        let mut changed = false;
        for (writers, reads) in &arrays {
            for (line, cs) in reads {
                let (a, b) = reach.get(line).copied().unwrap_or((0, 0));
                for (wl, home) in writers {
                    let d = cs + home;
                    let e = reach.get_mut(wl).expect("a writer");
                    let next = (e.0.max(a - d), e.1.max(b + d));
                    if next != *e {
                        *e = next;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            // (every writer, also one that reaches nowhere past its block: none may merge W,
            // whose copies differ between the processes once one writer has not merged it;
            // a merge starts by making every copy process 0's)
            return Some(reach.into_iter().map(|(l, (a, b))| (l, (t, a as u32, b as u32))).collect());
        }
    }
    None
}

/// Estimated executions of every statement of a unit (the product of the trip counts of the
/// loops around it), and the outermost DO loop around it.
fn stmt_times(analysis: &Analysis, ui: usize, m: &MachineModel) -> BTreeMap<StmtId, (f64, Option<StmtId>)> {
    type Out = BTreeMap<StmtId, (f64, Option<StmtId>)>;
    fn walk(nodes: &[Node], times: f64, outer: Option<StmtId>, loops: &BTreeMap<StmtId, &LoopInfo>, m: &MachineModel, out: &mut Out) {
        for n in nodes {
            match n {
                Node::Do { header, body, .. } => {
                    out.insert(*header, (times, outer));
                    let t = loops.get(header).map_or(m.unknown_trip_count as f64, |l| trips(l, m));
                    walk(body, times * t, outer.or(Some(*header)), loops, m, out);
                }
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        walk(b, times, outer, loops, m, out);
                    }
                }
                Node::Stmt(id) => {
                    out.insert(*id, (times, outer));
                }
            }
        }
    }
    let loops = loop_map(analysis, ui);
    let mut out = BTreeMap::new();
    walk(&analysis.program.units[ui].body, 1.0, None, &loops, m, &mut out);
    out
}

/// How many executions of a mapped nest share one renewal of `array`'s shadow edges. The
/// runtime holds an array that a sequential DO loop around the nest (or around the call of
/// its procedure) never writes: it renews the edges once, whole, and skips the nest's later
/// renewals (docs/runtime.md, holds; `convert::shadow_holds`). The factor is the product of
/// the trip counts of those loops, outward from the nest until a loop that writes the array
/// (an assignment, input, or a call whose summary writes it), that control may leave early,
/// that carries a statement label or shares its terminal statement. Past the procedure's
/// first statement the walk goes on at its call site when there is exactly one and the caller
/// sees the array too (its COMMON block, the array itself, or a dummy bound to it). 1 when no
/// loop holds it.
/// `sites`: each procedure's call sites, (caller, line).
fn hold_factor(
    analysis: &Analysis,
    m: &MachineModel,
    n: &Nest,
    array: &str,
    sites: &BTreeMap<&str, Vec<(usize, u32)>>,
    writes: &mut BTreeMap<(usize, usize), BTreeSet<ArrayId>>,
) -> f64 {
    let prog = &analysis.program;
    let Some(id) = array_id(prog, n.unit, array) else { return 1.0 };
    let mut unit = n.unit;
    let Some(own) = analysis.loops[unit].iter().position(|l| l.line == n.line) else { return 1.0 };
    let mut cur = analysis.loops[unit][own].parent;
    let mut factor = 1.0;
    for _ in 0..64 {
        while let Some(li) = cur {
            let l = &analysis.loops[unit][li];
            if !loop_holds(prog, unit, l) {
                return factor;
            }
            let w = writes.entry((unit, li)).or_insert_with(|| loop_writes(prog, unit, l));
            if w.contains(&id) || matches!(&id, ArrayId::Common { block, .. } if w.contains(&ArrayId::Common { block: block.clone(), index: usize::MAX })) {
                return factor;
            }
            factor *= trips(l, m);
            cur = l.parent;
        }
        // the procedure's only call site, for storage its caller names too
        let Some(&[(caller, line)]) = sites.get(prog.units[unit].name.as_str()).map(|v| &v[..]) else { return factor };
        if caller == unit || seen_name_in(prog, caller, &id).is_none() {
            return factor;
        }
        unit = caller;
        cur = analysis.loops[unit].iter().enumerate().filter(|(_, l)| l.line < line && line <= l.end_line).max_by_key(|(_, l)| l.depth).map(|(i, _)| i);
    }
    factor
}

/// The storage a loop writes: its statements' writes (calls mapped by the summaries), and
/// the COMMON members its calls write through their blocks (`index == usize::MAX`: a whole
/// block).
fn loop_writes(prog: &analyzer::program::Program, unit: usize, l: &LoopInfo) -> BTreeSet<ArrayId> {
    let u = &prog.units[unit];
    let cx = AccessCtx { unit: u, sema: &prog.semas[unit], summaries: &prog.summaries };
    let mut out = BTreeSet::new();
    for st in u.stmts.iter().filter(|s| s.span.line >= l.line && s.span.line <= l.end_line && s.kind.is_executable()) {
        let (mut acc, mut calls) = (vec![], vec![]);
        stmt_accs(prog, &cx, st, &mut acc, &mut calls);
        out.extend(acc.iter().filter(|a| a.write).filter_map(|a| array_id(prog, unit, &a.name)));
        for c in &calls {
            let Some(sum) = prog.summaries.get(&c.name) else { continue };
            for ((block, index), e) in &sum.commons {
                if !e.write.is_empty() {
                    out.insert(ArrayId::Common { block: block.clone(), index: *index });
                }
            }
        }
    }
    out
}

/// Standalone REMOTE_ACCESS for element reads of distributed arrays outside mapped nests.
fn sequential_remote(
    analysis: &Analysis,
    nests: &[Nest],
    copies: &[(usize, u32, u32, BTreeSet<Name>)],
    dist: &BTreeSet<usize>,
    aligns: &BTreeMap<ArrayId, AlignMap>,
    m: &MachineModel,
    counts: &[f64],
) -> Vec<RemoteAccess> {
    let prog = &analysis.program;
    let mut out = vec![];
    // each unit's nests and copies, gathered once (thousands of units)
    let mut unit_nests: Vec<Vec<(u32, u32)>> = vec![vec![]; prog.units.len()];
    for n in nests {
        unit_nests[n.unit].push((n.line, n.levels[0].end_line));
    }
    let mut unit_copies: Vec<Vec<&(usize, u32, u32, BTreeSet<Name>)>> = vec![vec![]; prog.units.len()];
    for c in copies {
        if let Some(v) = unit_copies.get_mut(c.0) {
            v.push(c);
        }
    }
    for (ui, unit) in prog.units.iter().enumerate() {
        let sema = &prog.semas[ui];
        // executions and outermost DO loop of each statement, and the arrays each outermost
        // loop writes (assignments, input, calls by their summaries): the runtime caches reads
        // only in a loop that does not write the array. Once per unit that needs them.
        type Places = (BTreeMap<StmtId, (f64, Option<StmtId>)>, BTreeMap<StmtId, BTreeSet<Name>>);
        let mut places: Option<Places> = None;
        let nest_lines = &unit_nests[ui];
        let cx = AccessCtx {
            unit,
            sema,
            summaries: &prog.summaries,
        };
        for (si, st) in unit.stmts.iter().enumerate() {
            if !st.kind.is_executable()
                || nest_lines
                    .iter()
                    .any(|(a, b)| st.span.line >= *a && st.span.line <= *b)
            {
                continue;
            }
            let mut acc = vec![];
            let mut calls = vec![];
            stmt_accs(prog, &cx, st, &mut acc, &mut calls);
            let mut refs = vec![];
            // Reads inside called procedures are handled there (their own loops are mapped).
            let line = st.span.line;
            let on_copy = |a: &Access| unit_copies[ui].iter().any(|(_, lo, hi, arrays)| *lo <= line && line <= *hi && arrays.contains(&a.name));
            for a in acc.iter().filter(|a| !a.write && a.via_call.is_none() && !on_copy(a)) {
                let Some(id) = array_id(prog, ui, &a.name) else {
                    continue;
                };
                let Some(map) = aligns.get(&id) else { continue };
                if !split_by(map, dist) {
                    continue;
                }
                let Some(subs) = &a.subs else { continue }; // whole-array I/O: gathered by the runtime
                let f = |n: &str| sema.param(n).and_then(|c| c.as_int());
                let rs: Vec<RefSub> = subs
                    .iter()
                    .map(|s| match s.expr().and_then(|e| linearize(e, &f)) {
                        Some(l) if l.terms.is_empty() => RefSub::Const(l.constant),
                        // A scalar subscript is evaluated where the directive stands.
                        Some(l) if l.terms.len() == 1 && l.terms.values().all(|c| *c == 1) => {
                            RefSub::Var {
                                var: l.terms.keys().next().expect("one term").clone(),
                                offset: l.constant,
                            }
                        }
                        _ => RefSub::All,
                    })
                    .collect();
                let r = ArrayRef {
                    array: a.name.clone(),
                    subs: rs,
                };
                if !refs.contains(&r) {
                    refs.push(r);
                }
            }
            if !refs.is_empty() {
                let (times, written) = places.get_or_insert_with(|| {
                    let times = stmt_times(analysis, ui, m);
                    let mut written: BTreeMap<StmtId, BTreeSet<Name>> = BTreeMap::new();
                    for (id, (_, o)) in &times {
                        // (an outermost DO statement itself writes only its variable)
                        if let Some(h) = o {
                            let (mut acc, mut calls) = (vec![], vec![]);
                            stmt_accs(prog, &cx, unit.stmt(*id), &mut acc, &mut calls);
                            written.entry(*h).or_default().extend(acc.into_iter().filter(|a| a.write).map(|a| a.name));
                        }
                    }
                    (times, written)
                });
                let (n, outer) = times.get(&StmtId(si as u32)).copied().unwrap_or((1.0, None));
                let n = n * counts[ui];
                let cached = outer.is_some_and(|h| written.get(&h).is_none_or(|w| refs.iter().all(|r| !w.contains(&r.array))));
                out.push(RemoteAccess {
                    at: unit_ref(prog, ui),
                    line: st.span.line,
                    refs,
                    times: n.round().max(1.0) as u64,
                    cached,
                });
            }
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn estimate(
    prog: &analyzer::program::Program,
    nests: &[Nest],
    mapped: &[(usize, Option<Mapped>)],
    dist: &BTreeSet<usize>,
    aligns: &BTreeMap<ArrayId, AlignMap>,
    tid: &ArrayId,
    remote: &[RemoteAccess],
    owned: &BTreeSet<(usize, Name)>,
    holds: &BTreeMap<(usize, Name), f64>,
    m: &MachineModel,
) -> Estimate {
    let dims: Vec<usize> = dist.iter().copied().collect();
    let tbounds: Vec<i64> = declared_bounds(prog, tid).iter().map(|b| b.map_or(1, |(lo, hi)| hi - lo + 1)).collect();
    let mut best: Option<Estimate> = None;
    let all = grids(m.processes, dims.len());
    let fixed: Vec<Vec<u32>> = all.iter().filter(|g| **g == m.grid).cloned().collect();
    for grid in if fixed.is_empty() { all } else { fixed } {
        let p: f64 = grid.iter().map(|g| *g as f64).product();
        let extent = |d: usize| tbounds.get(d).copied().unwrap_or(1) as f64;
        let local = |d: usize| -> f64 {
            match dims.iter().position(|x| *x == d) {
                Some(k) => (extent(d) / grid[k] as f64).ceil(),
                None => extent(d),
            }
        };
        let (mut comp, mut comm) = (0.0, 0.0);
        let mut notes = vec![];
        let mut per_nest = vec![];
        for (i, mp) in mapped {
            let n = &nests[*i];
            let (comp0, comm0) = (comp, comm);
            let Some(mp) = mp else {
                let whole = n.work_s * n.times;
                comp += whole;
                per_nest.push(NestEstimate {
                    file: unit_ref(prog, n.unit).file,
                    line: n.line,
                    seconds: whole,
                });
                continue;
            };
            // Computation: the iterations of the distributed dimensions are split over the grid.
            // A dimension the nest does not iterate over (ON A(I, J, K) inside a sequential
            // loop over K) splits the executions instead: each process runs those of its
            // planes, concurrently only when nothing synchronizes the processes at every
            // execution (shadow renewal, a pipeline, reduction, gather or merge); otherwise
            // the others wait for the owner and the dimension saves nothing.
            let mut merged = merged_arrays(prog, n, dist, aligns);
            merged.retain(|(a, _)| !owned.contains(&(n.unit, a.clone())));
            let sema = &prog.semas[n.unit];
            let synchronized = !mp.shadow.is_empty()
                || !mp.across.is_empty()
                || !mp.remote.is_empty()
                || !merged.is_empty()
                || n.levels.iter().any(|l| !l.reductions.is_empty());
            let split: f64 = mp
                .owner
                .iter()
                .filter(|(_, (v, _))| n.vars.contains(v) || !synchronized)
                .map(|(t, _)| {
                    let k = dims
                        .iter()
                        .position(|x| x == t)
                        .expect("owner dims are distributed");
                    (extent(*t) / grid[k] as f64).ceil() / extent(*t)
                })
                .product();
            let c = n.work_s * split * n.times + n.ahead_s * n.times + m.loop_overhead_us * 1e-6 * n.times;
            comp += c;
            let mut msg_time = 0.0;
            let mut pack = 0.0;
            // Shadow exchanges: per process, one message per neighbour side with the face.
            for (k, w) in mp.shadow.iter().chain(&mp.across).enumerate() {
                // (an array a sequential loop around the nest holds: one renewal of the whole
                // face per `factor` executions, docs/runtime.md)
                let factor = if k < mp.shadow.len() { holds.get(&(*i, w.array.clone())).copied().unwrap_or(1.0) } else { 1.0 };
                let Some(id) = array_id(prog, n.unit, &w.array) else {
                    continue;
                };
                let Some(map) = aligns.get(&id) else { continue };
                let elem = prog.semas[n.unit]
                    .symbol(&w.array)
                    .map_or(4, |s| s.ty.bytes()) as f64;
                for (d, (lo, hi)) in w.widths.iter().enumerate() {
                    let Some((t, _)) = map.get(d).copied().flatten() else {
                        continue;
                    };
                    let Some(k) = dims.iter().position(|x| *x == t) else {
                        continue;
                    };
                    if grid[k] <= 1 {
                        continue;
                    }
                    // (a dimension the nest's references index by one value, a plane it does
                    // not change: the runtime exchanges that plane only, `sapfor_limit`)
                    let face: f64 = (0..tbounds.len())
                        .filter(|x| *x != t)
                        .map(|x| {
                            let narrowed = map.iter().enumerate().find(|(_, s)| s.is_some_and(|(tx, _)| tx == x)).and_then(|(dd, _)| limited_extent(n, &w.array, dd));
                            narrowed.filter(|_| factor <= 1.0).map_or(local(x), |e| e.min(local(x)))
                        })
                        .product();
                    // A face across any but the last (outermost in memory) dimension is
                    // strided: it is packed and unpacked in runs as long as the block's
                    // dimensions before it (one element across the first), each run in lines
                    // (and pages) of its own (`strided_ns`).
                    // A process between two others packs what it sends to each side and
                    // unpacks what it gets from each; of two processes, each sends one side and
                    // gets the other.
                    let run: f64 = (0..t).map(local).product::<f64>().max(1.0);
                    let copies = if grid[k] == 2 { 1.0 } else { 2.0 };
                    for wd in [*lo, *hi] {
                        if wd > 0 {
                            msg_time += m.message_s(face * wd as f64 * elem) / factor;
                            if t + 1 < tbounds.len() {
                                pack += copies * face * wd as f64 * (m.memref_ns + m.strided_ns / run) * 1e-9 / factor;
                            }
                        }
                    }
                }
                if w.corner && dims.len() >= 2 {
                    let wmax = w
                        .widths
                        .iter()
                        .map(|(a, b)| (*a).max(*b))
                        .max()
                        .unwrap_or(1) as f64;
                    msg_time += 4.0 * m.message_s(wmax * wmax * elem);
                }
            }
            // ACROSS: the pipeline fills over the grid before every process works.
            if !mp.across.is_empty() {
                let stages: f64 = grid.iter().map(|g| (*g as f64) - 1.0).sum();
                let per_block = n.work_s * split / m.across_blocks as f64;
                msg_time += stages * per_block + (m.across_blocks as f64 - 1.0) * m.message_s(0.0);
            }
            // Reductions: a tree over the processes.
            // (an array reduction carries the whole array: its declared size, 8 bytes an
            // element; one of unknown size counts as 1,000 elements)
            let mut seen_red = BTreeSet::new();
            let nred: f64 = n
                .levels
                .iter()
                .flat_map(|l| &l.reductions)
                .filter(|r| seen_red.insert(r.var.clone()))
                .map(|r| match sema.symbol(&r.var).filter(|s| s.is_array()) {
                    Some(_) => array_elements(prog, n.unit, &r.var),
                    None => 1.0,
                })
                .sum();
            // Replicated arrays the distributed loop writes: every process gets the others'
            // elements after it (sapfor_merge_begin/end), the whole array each execution
            for (name, bytes) in &merged {
                let _ = name;
                if p > 1.0 {
                    msg_time += p.log2().ceil() * m.message_s(*bytes);
                }
            }
            if nred > 0.0 && p > 1.0 {
                msg_time += p.log2().ceil() * m.message_s(8.0 * nred);
            }
            // Remote accesses inside the loop: one gather per execution.
            for r in &mp.remote {
                let elem = prog.semas[n.unit]
                    .symbol(&r.array)
                    .map_or(4, |s| s.ty.bytes()) as f64;
                let count: f64 = r
                    .subs
                    .iter()
                    .enumerate()
                    .map(|(d, s)| match s {
                        // (one index: a constant, or a scalar the nest does not change, the
                        // pivot row I of Gaussian elimination; the runtime fetches that
                        // section, `sapfor_fetch`)
                        RefSub::Const(_) => 1.0,
                        RefSub::Var { var, .. } if !n.vars.contains(var) && !n.inner_vars.contains(var) => 1.0,
                        _ => local(d).max(1.0),
                    })
                    .product();
                msg_time += p.log2().ceil().max(1.0) * m.message_s(count * elem);
            }
            comm += msg_time * n.times;
            comp += pack * n.times;
            let held: Vec<String> = mp
                .shadow
                .iter()
                .filter_map(|w| holds.get(&(*i, w.array.clone())).map(|f| format!("; the edges of {} renewed whole once per {f} executions (held by the loops around it)", upper(&w.array))))
                .collect();
            notes.push(format!(
                "loop at line {}: computation {:.6} s, communication {:.6} s ({} executions){}",
                n.line,
                c,
                msg_time * n.times,
                n.times,
                held.concat()
            ));
            per_nest.push(NestEstimate {
                file: unit_ref(prog, n.unit).file,
                line: n.line,
                seconds: (comp - comp0) + (comm - comm0),
            });
        }
        // Element reads outside parallel loops: one broadcast a read, or, in a loop nest that
        // does not write the array, through the runtime's read cache, which fetches a box of
        // about 2,048 elements a message (docs/runtime.md)
        let bcast = |bytes: f64| p.log2().ceil().max(1.0) * m.message_s(bytes);
        for r in remote {
            let times = r.times as f64;
            let per_ref = if !r.cached {
                times * bcast(8.0)
            } else {
                times * m.cached_read_us * 1e-6 + (times / 2048.0).ceil() * bcast(2048.0 * 8.0)
            };
            comm += r.refs.len() as f64 * per_ref;
        }
        // Starting the processes (a distributed scheme; the replicated one runs on one)
        if p > 1.0 {
            comm += m.startup_s;
        }
        let total = comp + comm;
        if best.as_ref().is_none_or(|b| total < b.total) {
            best = Some(Estimate {
                computation: comp,
                communication: comm,
                transfers: 0.0,
                total,
                grid: grid.clone(),
                notes,
                nests: per_nest,
            });
        }
    }
    best.unwrap_or_default()
}

/// How many indices of dimension `d` of `array` the nest references, where every reference
/// indexes it by one value the nest does not change (plus constants) or by constants: the
/// runtime then limits the array's shadow exchanges for the nest to that range (`sapfor_limit`;
/// NPB LU's `JACLD(K)` exchanges one plane of U, not the whole face). None otherwise.
fn limited_extent(n: &Nest, array: &str, d: usize) -> Option<f64> {
    let mut form: Option<(Option<&Name>, i64, i64)> = None;
    for a in n.accesses.iter().filter(|a| a.array == array) {
        if a.via_call {
            return None;
        }
        let (var, c) = match a.subs.as_ref()?.get(d)? {
            SubForm::Invariant { var, offset } => (Some(var), *offset),
            SubForm::Const(c) => (None, *c),
            _ => return None,
        };
        form = match form {
            None => Some((var, c, c)),
            Some((v, lo, hi)) if v == var => Some((v, lo.min(c), hi.max(c))),
            Some(_) => return None,
        };
    }
    form.map(|(_, lo, hi)| (hi - lo + 1) as f64)
}

/// The loops of a unit, by line, that no variant maps (for reports): nests with a reason.
pub fn describe_nests(analysis: &Analysis, m: &MachineModel) -> Vec<(usize, u32, Vec<Name>)> {
    find_nests(analysis, m)
        .into_iter()
        .map(|n| (n.unit, n.line, n.vars))
        .collect()
}

/// Non-distributed arrays that mapped nests write whose merges are not needed (`!$SPF
/// OWNED`): every element is only ever accessed by iterations that the process owning it
/// runs, so each process's copy is right where it is read, and no process reads another's
/// elements. NPB LU's TV: SSOR's work array, given to BUTS only, which writes it in one
/// parallel loop and reads and updates it in the next, always at the iteration's own (I, J).
///
/// For array `a` of unit `u` (unit, name in the result):
/// - every statement of `u` that refers to `a` lies in a nest this variant maps (not under
///   run-time tests), whose every access to `a` is direct, and on every distributed template
///   dimension the nest's owner is a loop variable of the nest that some subscript of the
///   access carries with coefficient 1: the template index of the owner is that subscript
///   plus a constant, and these (dimension, subscript, constant) agree across all accesses;
/// - `a` has no other storage association: not COMMON, SAVE, DATA, EQUIVALENCE, POINTER or
///   TARGET, and not in a unit that parallel loops call;
/// - a dummy argument: `u` is a subroutine, each call passes a bare local array of the
///   caller in that place that the caller refers to nowhere else (no other call, no other
///   statement), and the dummy's bounds evaluate to the same constants at every call (so an
///   element of the dummy is always the same storage).
fn owned_arrays(
    prog: &analyzer::program::Program,
    nests: &[Nest],
    mapped: &[(usize, Option<Mapped>)],
    inside: &BTreeSet<usize>,
    dist: &BTreeSet<usize>,
    aligns: &BTreeMap<ArrayId, AlignMap>,
) -> BTreeSet<(usize, Name)> {
    let mut cands: BTreeSet<(usize, Name)> = BTreeSet::new();
    for (i, mp) in mapped {
        if mp.is_some() {
            let n = &nests[*i];
            cands.extend(merged_arrays(prog, n, dist, aligns).into_iter().map(|(a, _)| (n.unit, a)));
        }
    }
    let plain = |s: &analyzer::sema::Symbol| s.is_array() && s.common.is_none() && !s.save && !s.data_init && s.aliases.is_empty() && !s.pointer && !s.target;
    // does statement `st` of unit `ui` refer to `name`
    let refers = |ui: usize, st: &analyzer::ast::Stmt, name: &str| {
        let cx = AccessCtx {
            unit: &prog.units[ui],
            sema: &prog.semas[ui],
            summaries: &prog.summaries,
        };
        let (mut accs, mut calls) = (vec![], vec![]);
        stmt_accs(prog, &cx, st, &mut accs, &mut calls);
        accs.iter().any(|a| a.name == name)
    };
    // each unit's mapped nests
    let mut mapped_in: BTreeMap<usize, Vec<(&Nest, &Mapped)>> = BTreeMap::new();
    for (i, mp) in mapped {
        if let Some(mp) = mp {
            mapped_in.entry(nests[*i].unit).or_default().push((&nests[*i], mp));
        }
    }
    let mut out = BTreeSet::new();
    'cand: for (ui, a) in cands {
        let u = &prog.units[ui];
        let sema = &prog.semas[ui];
        let Some(sym) = sema.symbol(&a) else { continue };
        if inside.contains(&ui) || !plain(sym) {
            continue;
        }
        // the nests of the unit that refer to it
        let here: Vec<(&Nest, &Mapped)> = mapped_in
            .get(&ui)
            .into_iter()
            .flatten()
            .copied()
            .filter(|(n, _)| n.accesses.iter().any(|x| x.array == a))
            .collect();
        let mut sig: Option<Vec<(usize, usize, i64)>> = None;
        for (n, mp) in &here {
            if !n.when.is_empty() {
                continue 'cand;
            }
            for x in n.accesses.iter().filter(|x| x.array == a) {
                let Some(subs) = x.subs.as_ref().filter(|_| !x.via_call) else { continue 'cand };
                let mut s = vec![];
                for (t, (v, shift)) in &mp.owner {
                    if !n.vars.contains(v) {
                        continue 'cand;
                    }
                    let Some((p, c)) = subs.iter().enumerate().find_map(|(p, f)| match f {
                        SubForm::Var { var, coeff: 1, offset } if var == v => Some((p, *offset)),
                        _ => None,
                    }) else {
                        continue 'cand;
                    };
                    s.push((*t, p, shift - c));
                }
                match &sig {
                    Some(g) if *g != s => continue 'cand,
                    _ => sig = Some(s),
                }
            }
        }
        if sig.is_none() {
            continue;
        }
        // no reference outside those nests
        for st in u.stmts.iter().filter(|s| s.kind.is_executable()) {
            let line = st.span.line;
            if st.span.file == u.file && here.iter().any(|(n, _)| n.line <= line && line <= n.end_line) {
                continue;
            }
            if refers(ui, st, &a) {
                continue 'cand;
            }
        }
        if let Some(pos) = sym.dummy {
            if u.kind != analyzer::ast::UnitKind::Subroutine {
                continue;
            }
            let mut sites = 0;
            let mut bounds: Option<Vec<Option<(i64, i64)>>> = None;
            for (ci, cu) in prog.units.iter().enumerate() {
                let csema = &prog.semas[ci];
                for st in cu.stmts.iter().filter(|s| s.kind.is_executable()) {
                    let StmtKind::Call { name, args } = st.kind.action() else { continue };
                    if *name != u.name {
                        continue;
                    }
                    sites += 1;
                    let Some(analyzer::ast::Arg::Expr(Expr::Var(x))) = args.get(pos) else { continue 'cand };
                    let once = args.iter().filter(|g| {
                        let mut hit = false;
                        if let Some(e) = g.expr() {
                            e.walk(&mut |y| hit |= matches!(y, Expr::Var(v) | Expr::Ref(v, _) if v == x));
                        }
                        hit
                    });
                    if once.count() != 1 || inside.contains(&ci) || !csema.symbol(x).is_some_and(|s| plain(s) && s.dummy.is_none()) {
                        continue 'cand;
                    }
                    // the caller refers to it nowhere else
                    for other in cu.stmts.iter().filter(|s| s.kind.is_executable()) {
                        let this_call = matches!(other.kind.action(), StmtKind::Call { name, args } if *name == u.name && matches!(args.get(pos), Some(analyzer::ast::Arg::Expr(Expr::Var(y))) if y == x));
                        if !this_call && refers(ci, other, x) {
                            continue 'cand;
                        }
                    }
                    // the dummy's bounds at this call
                    let lookup = |nm: &str| -> Option<analyzer::sema::Const> {
                        if let Some(c) = sema.param(nm) {
                            return Some(c.clone());
                        }
                        let q = sema.symbol(nm)?.dummy?;
                        csema.eval(args.get(q)?.expr()?)
                    };
                    let ev = |e: &Option<Expr>, c: Option<i64>| c.or_else(|| analyzer::sema::eval_const(e.as_ref()?, &lookup)?.as_int());
                    // (lower, upper) of each dimension; no upper for an assumed size
                    let mut b: Vec<Option<(i64, i64)>> = vec![];
                    for d in sym.dims.iter().flatten() {
                        let lo = if d.lo.is_none() && d.lo_expr.is_none() { Some(1) } else { ev(&d.lo_expr, d.lo) };
                        let Some(lo) = lo else { continue 'cand };
                        match ev(&d.hi_expr, d.hi) {
                            Some(hi) => b.push(Some((lo, hi))),
                            None if d.star => b.push(None),
                            None => continue 'cand,
                        }
                    }
                    match &bounds {
                        Some(g) if *g != b => continue 'cand,
                        _ => bounds = Some(b),
                    }
                }
            }
            if sites == 0 {
                continue;
            }
        }
        out.insert((ui, a));
    }
    out
}
