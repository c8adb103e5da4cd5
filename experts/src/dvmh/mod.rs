//! The DVMH expert (SPEC section 6): from a DVM scheme, decide which parallel loops run in
//! computational regions on the accelerator, merge them, compute each region's
//! `IN`/`OUT`/`INOUT`/`LOCAL`/`INLOCAL` clauses from the read/write sections and liveness, place
//! `GET_ACTUAL` before host code that reads what a region may have changed and `ACTUAL` after
//! host code that writes what the accelerator may hold, and keep on the host the regions whose
//! transfers cost more than they save.
//!
//! Conventions shared with the checker ([`check`]) and the runtime (docs/dvmh.md):
//! - a directive line belongs to the statement after it: it runs whenever that statement runs,
//!   also when a jump reaches the statement's label;
//! - on entry to a procedure and after a call, the host copy of every variable the procedure
//!   can see is actual, and a device copy the runtime believes actual is actual: a procedure
//!   requests (`GET_ACTUAL`) before a call and before it returns what its regions changed;
//! - a procedure that runs no region, itself or through calls ("host-only"), has no
//!   directive of its own: to its callers a call of it is a host statement that reads and
//!   writes what the procedure's summary says, so they request its inputs before the call
//!   and declare its outputs actual after it (once per call, or once after a host loop of
//!   calls, instead of after every assignment inside it). The checker also accepts
//!   hand-written host-only procedures that keep the first convention (directives of their
//!   own, returning with every copy consistent).

pub mod check;
pub mod effects;
mod render;
pub mod walk;

use crate::dvm::{find_nests, parallel_loop, versioned_nests};
use crate::machine::MachineModel;
use crate::scheme::*;
use analyzer::ast::*;
use analyzer::report::Analysis;
use analyzer::sections::SectionSet;
use analyzer::sema::UnitSema;
use effects::{add, intersect, minus, minus_in, union, union_in, Eff, EffCx, VarSets};
use std::collections::{BTreeMap, BTreeSet};
use walk::{Group, Hooks, Item, State, Walk};

/// A region being planned: nodes `start..start+len` of one node list of unit `unit`.
#[derive(Clone, Debug)]
struct Plan {
    unit: usize,
    /// First statement of the first node (identifies the list position).
    first: StmtId,
    len: usize,
    nodes: Vec<Node>,
    loops: Vec<u32>,
    /// Variables not listed: loop variables and private variables of the loops inside.
    skip: BTreeSet<Name>,
    /// Clause sets: in (copied to the device on entry), out, local.
    ins: VarSets,
    outs: VarSets,
    locals: VarSets,
    clauses: Vec<(RegionUse, Vec<VarPart>)>,
    host_s: f64,
    device_s: f64,
    executions: f64,
    on_device: bool,
    notes: Vec<String>,
    first_line: u32,
    last_line: u32,
}

/// The DVMH expert: `base` is a DVM scheme (any variant, `replicated` included). Returns the
/// scheme with regions, actualizations, PARALLEL loops without ON for parallel nests that touch
/// no distributed array (so that they can run in regions), and the estimate with transfers.
pub fn run(analysis: &Analysis, base: &Scheme, machine: &MachineModel) -> Scheme {
    Expert::new(analysis, machine).run(base)
}

/// The DVMH expert for one analysis and machine; [`Expert::run`] on each DVM variant shares
/// the per-unit effects (computed once).
pub struct Expert<'a> {
    analysis: &'a Analysis,
    machine: MachineModel,
    nests: Vec<crate::dvm::Nest>,
    /// Nests parallel under run-time tests (`versioned_nests`).
    versioned: Vec<crate::dvm::Nest>,
    cxs: Vec<EffCx<'a>>,
    vars: Vec<Vec<Name>>,
}

impl<'a> Expert<'a> {
    pub fn new(analysis: &'a Analysis, machine: &MachineModel) -> Self {
        let prog = &analysis.program;
        let cxs: Vec<EffCx<'a>> = prog
            .units
            .iter()
            .enumerate()
            .map(|(ui, u)| EffCx::new(u, &prog.semas[ui], &prog.summaries).with_constants(prog))
            .collect();
        let vars = cxs.iter().map(effects::unit_vars).collect();
        Expert {
            analysis,
            machine: machine.clone(),
            nests: find_nests(analysis, machine),
            versioned: versioned_nests(analysis, machine),
            cxs,
            vars,
        }
    }

    /// The DVMH scheme of one DVM variant.
    pub fn run(&self, base: &Scheme) -> Scheme {
        run_with(self, base)
    }
}

fn run_with(ex: &Expert, base: &Scheme) -> Scheme {
    let analysis = ex.analysis;
    let machine = &ex.machine;
    let prog = &analysis.program;
    let mut s = base.clone();
    s.expert = "dvmh".into();
    let nests = &ex.nests;
    let procs: f64 = base.estimate.grid.iter().map(|g| *g as f64).product::<f64>().max(1.0);
    // Lookups by unit and line, made once (a program has thousands of units and loops).
    let units = unit_index(prog);
    let unit_of = |at: &UnitRef| units.get(at).copied();
    let scheme_loops: BTreeMap<(usize, u32), bool> = s
        .loops
        .iter()
        .filter_map(|l| unit_of(&l.at).map(|u| ((u, l.line), l.on.is_some())))
        .collect();
    let distributed_in = distributed_by_unit(&units, &s);
    // Parallel loops: the scheme's plus ON-less ones for nests on replicated data only.
    let mut added: Vec<ParallelLoop> = vec![];
    // (loops parallel under run-time tests the scheme maps: the copy for the ELSE branch has
    // no directives, so nothing inside them gets one)
    let written_twice: Vec<(usize, u32, u32)> =
        s.loops.iter().filter(|l| !l.when.is_empty()).filter_map(|l| Some((unit_of(&l.at)?, l.line, l.end_line))).collect();
    for n in nests {
        if scheme_loops.contains_key(&(n.unit, n.line)) || written_twice.iter().any(|(u, a, b)| n.unit == *u && n.line > *a && n.line <= *b) {
            continue;
        }
        let none = BTreeSet::new();
        let distributed = distributed_in.get(&n.unit).unwrap_or(&none);
        // ACROSS nests need ON (the runtime pipelines them over a distribution).
        if n.across || n.accesses.iter().any(|a| distributed.contains(&a.array)) {
            continue;
        }
        added.push(parallel_loop(prog, n, None));
    }
    // A loop in a procedure that some parallel loop calls (directly or further down) runs
    // inside that loop's iterations: it keeps no directive of its own (a PARALLEL loop started
    // on a thread of another one; the runtime is the outer loop's)
    let inside = inside_parallel(analysis, &unit_of, &s.loops, &added, &ex.versioned);
    added.retain(|l| unit_of(&l.at).is_none_or(|u| !inside.contains(&u)));
    // (and so does a loop the base scheme maps on a template there)
    crate::dvm::drop_nested_loops(analysis, &mut s, &added, &ex.versioned);
    let mut all_loops = s.loops.clone();
    all_loops.extend(added.iter().cloned());
    let mut notes = vec![];
    let mut plans: Vec<Plan> = vec![];
    // (a loop ON a template of its own that references distributed arrays runs over full
    // copies of them, which the runtime fetches and sends back on the host: no region)
    let any_nest: BTreeMap<(usize, u32), &crate::dvm::Nest> = nests.iter().chain(&ex.versioned).map(|n| ((n.unit, n.line), n)).collect();
    let over_copies = |u: usize, l: &ParallelLoop| -> bool {
        let Some(on) = l.on.as_ref().filter(|on| s.templates.iter().any(|t| t.at == l.at && t.name.eq_ignore_ascii_case(&on.array))) else { return false };
        let none = BTreeSet::new();
        let distributed = distributed_in.get(&u).unwrap_or(&none);
        let aligned_with_it = |a: &str| s.alignments.iter().any(|x| x.at == l.at && x.array.eq_ignore_ascii_case(a) && x.target.eq_ignore_ascii_case(&on.array));
        any_nest.get(&(u, l.line)).is_some_and(|n| n.accesses.iter().any(|a| distributed.contains(&a.array) && !aligned_with_it(&a.array)))
    };
    let mut par_of: BTreeMap<usize, BTreeMap<u32, &ParallelLoop>> = BTreeMap::new();
    for l in &all_loops {
        if let Some(u) = unit_of(&l.at) {
            if over_copies(u, l) {
                notes.push(format!("{}:{}: loop {} is not a region: it runs over full copies of distributed arrays (fetched and sent back on the host)", l.at.unit, l.line, l.line));
                continue;
            }
            par_of.entry(u).or_default().insert(l.line, l);
        }
    }
    for (ui, unit) in prog.units.iter().enumerate() {
        let Some(par) = par_of.get(&ui).filter(|p| !p.is_empty()) else {
            continue;
        };
        form_regions(&ex.cxs[ui], ui, &unit.body, par, &mut plans, &mut notes, false);
    }
    let nest_at: BTreeMap<(usize, u32), &crate::dvm::Nest> = nests.iter().map(|n| ((n.unit, n.line), n)).collect();
    // Costs of the nests of each region.
    for p in plans.iter_mut() {
        let mut host = 0.0;
        let mut launches = 0.0;
        let mut times: Option<f64> = None;
        for line in &p.loops {
            if let Some(n) = nest_at.get(&(p.unit, *line)) {
                let distributed = scheme_loops.get(&(p.unit, *line)) == Some(&true);
                host += n.work_s / if distributed { procs } else { 1.0 };
                launches += 1.0;
                times = Some(times.map_or(n.times, |t: f64| t.max(n.times)));
            }
        }
        if p.len > p.loops.len() {
            launches += 1.0; // the absorbed statements run as one single-thread kernel
        }
        p.host_s = host;
        p.device_s = host / machine.device_speedup + launches * machine.kernel_launch_us * 1e-6;
        p.executions = times.unwrap_or(1.0);
        p.on_device = machine.gpus_per_node > 0;
    }
    if machine.gpus_per_node == 0 && !plans.is_empty() {
        notes.push("the machine has no accelerator (gpus_per_node = 0): every loop stays on the host".into());
    }
    // Regions whose kernels alone are no faster than the host stay there; then, while some
    // region on the device loses once its transfers are counted, those stay on the host and
    // the placement is redone (a few rounds: each round only removes regions).
    for p in plans.iter_mut().filter(|p| p.on_device && p.device_s >= p.host_s) {
        p.on_device = false;
        p.notes.push(format!(
            "stays on the host: accelerator {:.3} ms >= host {:.3} ms per execution",
            p.device_s * 1e3,
            p.host_s * 1e3
        ));
    }
    let mut placed;
    loop {
        placed = place_all(ex, &plans, &s, procs);
        let losers: Vec<usize> = plans
            .iter()
            .enumerate()
            .filter(|(k, p)| p.on_device && p.device_s + placed.transfer[*k].1 >= p.host_s)
            .map(|(k, _)| k)
            .collect();
        if losers.is_empty() {
            break;
        }
        for k in losers {
            let t = placed.transfer[k].1;
            let p = &mut plans[k];
            p.on_device = false;
            p.notes.push(format!(
                "stays on the host: accelerator {:.3} ms + transfers {:.3} ms per execution >= host {:.3} ms",
                p.device_s * 1e3,
                t * 1e3,
                p.host_s * 1e3
            ));
        }
    }
    // The scheme.
    let used: BTreeSet<(String, u32)> = plans
        .iter()
        .filter(|p| p.on_device)
        .flat_map(|p| {
            let u = crate::dvm::unit_ref(prog, p.unit);
            p.loops.iter().map(move |l| (u.file.clone(), *l)).collect::<Vec<_>>()
        })
        .collect();
    // Loops on replicated data kept on the host carry PARALLEL without ON too when each
    // execution is long enough that starting the loop's threads costs little beside it
    // (`thread_start_us` 10 times over): `--threads` then divides them (NPB BT's x_solve),
    // while short loops run many times (LU's 5-iteration M loops) stay ordinary code.
    let threads_worth: BTreeSet<(usize, u32)> = nests
        .iter()
        .filter(|n| n.work_s >= 10.0 * machine.thread_start_us * 1e-6)
        .map(|n| (n.unit, n.line))
        .collect();
    for l in added {
        let heavy = unit_of(&l.at).is_some_and(|u| threads_worth.contains(&(u, l.line)));
        if used.contains(&(l.at.file.clone(), l.line)) || heavy {
            s.loops.push(l);
        }
    }
    // Loops parallel only under run-time tests: on replicated data kept on the host and long
    // enough for threads (as above), with nothing else of the scheme inside them (the copy
    // the generator writes for the ELSE branch has no directives: PARALLEL loops without ON
    // inside give way to the outer loop) and in no region on the accelerator.
    let inside_calls = inside;
    for v in ex.versioned.iter().filter(|v| !scheme_loops.contains_key(&(v.unit, v.line))) {
        let none = BTreeSet::new();
        let distributed = distributed_in.get(&v.unit).unwrap_or(&none);
        if v.accesses.iter().any(|a| distributed.contains(&a.array)) || v.with_calls_s < 10.0 * machine.thread_start_us * 1e-6 {
            continue;
        }
        let at = crate::dvm::unit_ref(prog, v.unit);
        let inside = |u: &UnitRef, line: u32| *u == at && line >= v.line && line <= v.end_line;
        // (why not, for the report: the user may prefer the other choice)
        let why = if s.loops.iter().any(|l| l.on.is_some() && inside(&l.at, l.line)) {
            Some("a loop inside it is mapped on distributed data")
        } else if plans.iter().any(|p| p.on_device && p.unit == v.unit && p.first_line <= v.end_line && p.last_line >= v.line) {
            Some("loops inside it run in regions on the accelerator (with `gpus_per_node = 0` in the machine file, as `sapfor calibrate` writes it on a machine without one, it would run on threads)")
        } else if s.remote.iter().any(|r| inside(&r.at, r.line)) || placed.actualizations.iter().any(|a| a.at == at && a.before > v.line && a.before <= v.end_line) {
            Some("statements inside it need directives of their own")
        } else if inside_calls.contains(&v.unit) {
            Some("its procedure is called inside another parallel loop")
        } else {
            None
        };
        let head = format!("{}:{} (unit {}): {}", at.file, v.line, at.unit.to_uppercase(), crate::dvm::parallel_when(v));
        if let Some(why) = why {
            notes.push(format!("{head}, but runs as it is: {why}"));
            continue;
        }
        s.loops.retain(|l| !inside(&l.at, l.line));
        s.loops.push(parallel_loop(prog, v, None));
        if v.when.is_empty() {
            notes.push(head);
        } else {
            notes.push(format!("{head} (tested where the loop starts; the loop runs as it is otherwise)"));
        }
    }
    s.loops.sort_by(|a, b| (&a.at.file, a.line).cmp(&(&b.at.file, b.line)));
    let mut comp_delta = 0.0;
    let mut transfers = 0.0;
    for (k, p) in plans.iter().enumerate() {
        let (in_b, out_b, t) = (placed.transfer[k].0, placed.transfer[k].2, placed.transfer[k].1);
        if p.on_device {
            comp_delta += (p.device_s - p.host_s) * p.executions;
            transfers += t * p.executions;
        }
        s.regions.push(Region {
            at: crate::dvm::unit_ref(prog, p.unit),
            first_line: p.first_line,
            last_line: p.last_line,
            loops: p.loops.clone(),
            clauses: p.clauses.clone(),
            estimate: RegionEstimate {
                executions: p.executions,
                host_s: p.host_s,
                device_s: p.device_s,
                in_bytes: in_b,
                out_bytes: out_b,
                transfer_s: t,
                on_device: p.on_device,
            },
            notes: p.notes.clone(),
        });
    }
    s.actualizations = placed.actualizations;
    s.estimate.computation += comp_delta;
    s.estimate.transfers += transfers;
    s.estimate.total = s.estimate.computation + s.estimate.communication + s.estimate.transfers;
    let on = plans.iter().filter(|p| p.on_device).count();
    s.estimate.notes.push(format!(
        "DVMH: {on} region(s) on the accelerator, {} kept on the host; transfers {:.3} ms",
        plans.len() - on,
        transfers * 1e3
    ));
    s.notes.extend(notes);
    s
}

/// The first and last lines of each of `loops`, by unit (a loop the analysis does not list
/// reaches the end of its unit).
pub(crate) fn loop_ranges<'a>(analysis: &Analysis, unit_of: &dyn Fn(&UnitRef) -> Option<usize>, loops: impl Iterator<Item = &'a ParallelLoop>) -> BTreeMap<usize, Vec<(u32, u32)>> {
    let mut by_unit: BTreeMap<usize, Vec<(u32, u32)>> = BTreeMap::new();
    for l in loops {
        let Some(u) = unit_of(&l.at) else { continue };
        let last = analysis.loops.get(u).and_then(|ls| ls.iter().find(|x| x.line == l.line)).map_or(u32::MAX, |x| x.end_line);
        by_unit.entry(u).or_default().push((l.line, last));
    }
    by_unit
}

/// The units (by index) that a call inside a loop that may carry a PARALLEL directive
/// reaches, directly or through other procedures: the scheme's loops, the ON-less ones added
/// (`added`) and the loops parallel under run-time tests (`versioned`).
pub(crate) fn inside_parallel(
    analysis: &Analysis,
    unit_of: &dyn Fn(&UnitRef) -> Option<usize>,
    loops: &[ParallelLoop],
    added: &[ParallelLoop],
    versioned: &[crate::dvm::Nest],
) -> BTreeSet<usize> {
    let prog = &analysis.program;
    let index = analyzer::interproc::unit_index(&prog.units);
    let mut reach = analyzer::flow::Reach::new(prog);
    let mut by_unit = loop_ranges(analysis, unit_of, loops.iter().chain(added));
    for n in versioned {
        by_unit.entry(n.unit).or_default().push((n.line, n.end_line));
    }
    let mut out = BTreeSet::new();
    for (caller, callee, line) in &prog.call_graph.edges {
        if by_unit.get(caller).is_some_and(|rs| rs.iter().any(|&(first, last)| *line > first && *line <= last)) {
            out.extend(reach.of(callee).iter().filter_map(|n| index.get(n).copied()));
        }
    }
    out
}

/// The arrays each unit (by index; `units` maps a unit's reference to it) distributes or
/// aligns in scheme `s`.
fn distributed_by_unit(units: &BTreeMap<UnitRef, usize>, s: &Scheme) -> BTreeMap<usize, BTreeSet<Name>> {
    let mut out: BTreeMap<usize, BTreeSet<Name>> = BTreeMap::new();
    for (at, array) in s
        .distributions
        .iter()
        .map(|d| (&d.at, &d.array))
        .chain(s.alignments.iter().map(|a| (&a.at, &a.array)))
        .chain(s.inherits.iter().map(|a| (&a.at, &a.array)))
    {
        if let Some(u) = units.get(at) {
            out.entry(*u).or_default().insert(array.to_ascii_lowercase());
        }
    }
    out
}

/// Each unit's reference, with its index.
pub(crate) fn unit_index(prog: &analyzer::program::Program) -> BTreeMap<UnitRef, usize> {
    (0..prog.units.len()).map(|ui| (crate::dvm::unit_ref(prog, ui), ui)).collect()
}

fn first_stmt(n: &Node) -> StmtId {
    match n {
        Node::Stmt(id) => *id,
        Node::Do { header, .. } => *header,
        Node::If { arms, .. } => arms[0].0,
    }
}

/// Last line of a node (its END DO / END IF, or the terminal statement).
fn last_line(unit: &Unit, n: &Node) -> u32 {
    let mut last = unit.stmt(first_stmt(n)).span.end_line;
    for_each_stmt(unit, std::slice::from_ref(n), &mut |s| {
        last = last.max(s.span.end_line)
    });
    last
}

/// Can a statement run inside a region? A scalar assignment from scalars, constants and
/// intrinsic functions.
fn absorbable(cx: &EffCx, st: &Stmt) -> bool {
    match &st.kind {
        StmtKind::Continue => true,
        StmtKind::Assign { lhs: Expr::Var(v), rhs } => {
            if cx.sema.is_array(v) || !effects::is_variable(cx.sema, v) {
                return false;
            }
            let mut ok = true;
            rhs.walk(&mut |e| match e {
                Expr::Ref(n, _) => {
                    ok &= cx.sema.ref_kind(n) == analyzer::sema::RefKind::Intrinsic
                }
                Expr::Var(n) => ok &= !cx.sema.is_array(n),
                Expr::Str(_) | Expr::ImpliedDo { .. } | Expr::Opaque(_) => ok = false,
                _ => {}
            });
            ok
        }
        _ => false,
    }
}

/// Why a parallel nest cannot be (part of) a region, if it cannot.
fn region_blocker(cx: &EffCx, n: &Node, summaries: &BTreeMap<Name, analyzer::access::Summary>) -> Option<String> {
    let eff = cx.node(n, &BTreeSet::new());
    if let Some(c) = eff.calls.first() {
        return Some(format!(
            "calls `{}` (line {}): procedures are not called inside regions",
            c.name.to_uppercase(),
            c.line
        ));
    }
    // names sharing storage: the copies on the accelerator are kept per name
    for v in eff.reads.keys().chain(eff.may.keys()) {
        if let Some(other) = cx.sema.shared_dummies.get(v) {
            return Some(format!("uses {}, which a call gives the same array as {} (the copies on the accelerator are kept per name)", v.to_uppercase(), other.to_uppercase()));
        }
        if let Some(other) = cx.sema.symbol(v).and_then(|s| s.aliases.iter().next()) {
            return Some(format!(
                "uses {}, which shares storage with {} (EQUIVALENCE)",
                v.to_uppercase(),
                other.to_uppercase()
            ));
        }
        if cx.sema.symbol(v).is_some_and(|s| s.size_unknown()) {
            return Some(format!(
                "uses {}, an assumed-size array (last bound `*`, or `1` in a dummy argument): its size is unknown, so it cannot be copied to the accelerator",
                v.to_uppercase()
            ));
        }
        // kernels have no complex or character arithmetic (runtime/src/kernel.rs): such a loop
        // would run on the host inside a region that still copies its arrays in and out
        if let Some(s) = cx.sema.symbol(v).filter(|s| {
            matches!(s.ty.base, analyzer::ast::BaseType::Complex | analyzer::ast::BaseType::DoubleComplex | analyzer::ast::BaseType::Character | analyzer::ast::BaseType::Derived(_))
        }) {
            return Some(format!("uses {}, of type {} (kernels compute with integer, real and logical scalars and arrays only)", v.to_uppercase(), s.ty.name().to_uppercase()));
        }
        if cx.sema.symbol(v).is_some_and(|s| s.pointer || s.target) {
            return Some(format!(
                "uses {}, a {} (pointers and their targets stay on the host)",
                v.to_uppercase(),
                if cx.sema.symbol(v).is_some_and(|s| s.pointer) { "POINTER" } else { "TARGET" }
            ));
        }
    }
    if !analyzer::cfg::collapsible(cx.unit, summaries, n) && !cx.runs_through(std::slice::from_ref(n)) {
        return Some("has I/O, STOP or a jump out of the loop".into());
    }
    let mut bad = None;
    for_each_stmt(cx.unit, std::slice::from_ref(n), &mut |s| {
        if bad.is_none() && analyzer::cfg::stmt_is(&s.kind, &|k| matches!(k, StmtKind::Io { .. } | StmtKind::Stop | StmtKind::Return)) {
            bad = Some(format!("line {} is I/O, STOP or RETURN", s.span.line));
        }
    });
    bad
}

#[allow(clippy::too_many_arguments)]
fn form_regions(
    cx: &EffCx,
    ui: usize,
    list: &[Node],
    par: &BTreeMap<u32, &ParallelLoop>,
    plans: &mut Vec<Plan>,
    notes: &mut Vec<String>,
    in_loop: bool,
) {
    let unit = cx.unit;
    let targets = analyzer::cfg::jump_targets(unit);
    let summaries = cx.acc.summaries;
    #[derive(PartialEq, Clone, Copy)]
    enum K {
        R,
        S,
        X,
    }
    let kinds: Vec<K> = list
        .iter()
        .map(|n| match n {
            Node::Do { header, .. } if par.contains_key(&unit.stmt(*header).span.line) => {
                // kernels combine scalar reductions only; an array reduction runs on the host
                let pl = par[&unit.stmt(*header).span.line];
                let array_red = pl.reductions.iter().find(|r| cx.sema.is_array(&r.var)).map(|r| {
                    format!("it combines the array {} (REDUCTION on an array runs on the host)", r.var.to_uppercase())
                });
                let copy_in = pl.copy_in.first().map(|x| {
                    format!(
                        "it may read elements of the private array {} that no iteration writes (each copy must start with the values from before the loop, which a kernel's copy does not)",
                        x.to_uppercase()
                    )
                });
                // a search that records only the index keeps the extremum in a variable the
                // generated program introduces before the loop (analyzer::search): host code
                let searched = pl.reductions.iter().find(|r| analyzer::search::is_search_value(unit, cx.sema, n, &r.var)).map(|r| {
                    format!(
                        "its extremum search keeps the value in {}, a variable the generated program introduces (it runs on the host)",
                        r.var.to_uppercase()
                    )
                });
                // a recurrence computed ahead of the loop (analyzer::loops::Recurrence): the
                // values it starts from are in an array the generated program introduces
                let split = pl.split.as_ref().map(|sp| {
                    let vars: Vec<String> = sp.vars.iter().map(|(v, _)| v.to_uppercase()).collect();
                    format!("each iteration starts from values of {} computed ahead of it in a sequential loop (host code)", vars.join(", "))
                });
                let array_red = array_red.or(copy_in).or(searched).or(split);
                match array_red.or_else(|| region_blocker(cx, n, summaries)) {
                    None => K::R,
                    Some(why) => {
                        notes.push(format!(
                            "{}:{}: loop {} is not a region: {why}",
                            unit.name,
                            unit.stmt(*header).span.line,
                            unit.stmt(*header).span.line
                        ));
                        K::X
                    }
                }
            }
            Node::Stmt(id) => {
                let st = unit.stmt(*id);
                if absorbable(cx, st) && st.label.is_none_or(|l| !targets.contains(&l)) {
                    K::S
                } else {
                    K::X
                }
            }
            _ => K::X,
        })
        .collect();
    let mut i = 0;
    while i < list.len() {
        if kinds[i] != K::R {
            // Recurse into structure.
            match &list[i] {
                Node::Do { body, .. } => form_regions(cx, ui, body, par, plans, notes, true),
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        form_regions(cx, ui, b, par, plans, notes, in_loop)
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        // Extend forward: S* R ... ending at the last R.
        let mut end = i;
        let mut j = i + 1;
        while j < list.len() && kinds[j] != K::X {
            if kinds[j] == K::R {
                end = j;
            }
            j += 1;
        }
        // Absorb preceding scalar assignments the run uses.
        let run_eff = cx.nodes(&list[i..=end], &BTreeSet::new());
        let used: BTreeSet<&Name> = run_eff.reads.keys().chain(run_eff.may.keys()).collect();
        let mut start = i;
        while start > 0 && kinds[start - 1] == K::S {
            let st = match &list[start - 1] {
                Node::Stmt(id) => unit.stmt(*id),
                _ => break,
            };
            let useful = match &st.kind {
                StmtKind::Assign { lhs: Expr::Var(v), .. } => used.contains(v),
                _ => false,
            };
            if !useful {
                break;
            }
            // Absorbed statements must not be already claimed by a previous region.
            if plans.iter().any(|p| p.unit == ui && p.nodes.iter().any(|n| first_stmt(n) == first_stmt(&list[start - 1]))) {
                break;
            }
            start -= 1;
        }
        let nodes: Vec<Node> = list[start..=end].to_vec();
        let first = first_stmt(&nodes[0]);
        let last = last_line(unit, &nodes[nodes.len() - 1]);
        // Where END REGION goes must be a statement no jump reaches, and the region must not
        // end on a terminal statement shared with an enclosing loop.
        let next_stmt = unit.next_stmt_after(last);
        let mut reject = None;
        if let Some(ns) = next_stmt {
            if ns.label.is_some_and(|l| targets.contains(&l)) {
                reject = Some(format!("the statement after it (line {}) is a jump target", ns.span.line));
            }
        }
        if let Node::Do { header, end: None, .. } = &nodes[nodes.len() - 1] {
            if let StmtKind::Do { label: Some(l), .. } = &unit.stmt(*header).kind {
                // loops of the nest itself may share its label (`DO 10 K / DO 10 J / ...
                // 10 CONTINUE`, the common F77 form): END REGION then goes after the shared
                // terminal statement; only a loop outside the region sharing it is a problem
                let first_line = unit.stmt(*header).span.line;
                let shared = unit.stmts.iter().any(|s| {
                    s.span.file == unit.file
                        && (s.span.line < first_line || s.span.line > last)
                        && matches!(&s.kind, StmtKind::Do { label: Some(m), .. } if m == l)
                });
                if shared {
                    reject = Some(format!("its last loop ends on label {l}, shared with an enclosing loop"));
                }
            }
        }
        let mut labels_ok = true;
        let inside = analyzer::cfg::labels_within(unit, &nodes);
        for_each_stmt(unit, &nodes, &mut |s| {
            if s.label.is_some_and(|l| targets.contains(&l)) {
                // Only jumps from inside the region may reach its labels.
                let _ = &inside;
                labels_ok &= jumps_only_from(unit, &nodes, s.label.expect("label"));
            }
        });
        if !labels_ok {
            reject = Some("a jump from outside reaches a label inside".into());
        }
        let loops: Vec<u32> = nodes
            .iter()
            .filter_map(|n| match n {
                Node::Do { header, .. } if par.contains_key(&unit.stmt(*header).span.line) => {
                    Some(unit.stmt(*header).span.line)
                }
                _ => None,
            })
            .collect();
        if let Some(why) = reject {
            notes.push(format!(
                "{}:{}: loops {} are not a region: {why}",
                unit.name,
                unit.stmt(first).span.line,
                loops.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
            ));
            i = end + 1;
            continue;
        }
        let mut skip = BTreeSet::new();
        for_each_stmt(unit, &nodes, &mut |s| {
            if let StmtKind::Do { var, .. } = &s.kind {
                skip.insert(var.clone());
            }
        });
        for l in &loops {
            if let Some(p) = par.get(l) {
                skip.extend(p.private.iter().cloned());
            }
        }
        let mut plan = Plan {
            unit: ui,
            first,
            len: nodes.len(),
            loops: loops.clone(),
            skip,
            ins: VarSets::new(),
            outs: VarSets::new(),
            locals: VarSets::new(),
            clauses: vec![],
            host_s: 0.0,
            device_s: 0.0,
            executions: 1.0,
            on_device: true,
            notes: vec![],
            first_line: unit.stmt(first).span.line,
            last_line: last,
            nodes,
        };
        if loops.len() > 1 {
            plan.notes.push(format!(
                "merged loops {} (adjacent in the same block)",
                loops.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
        let absorbed: Vec<String> = plan
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Stmt(id) if !matches!(unit.stmt(*id).kind, StmtKind::Continue) => {
                    Some(unit.stmt(*id).span.line.to_string())
                }
                _ => None,
            })
            .collect();
        if !absorbed.is_empty() {
            plan.notes.push(format!(
                "runs the scalar assignment(s) at line(s) {} inside the region",
                absorbed.join(", ")
            ));
        }
        clauses(cx, &mut plan, in_loop);
        plans.push(plan);
        i = end + 1;
    }
}

/// Every jump to `label` comes from inside `nodes`.
fn jumps_only_from(unit: &Unit, nodes: &[Node], label: u32) -> bool {
    let mut inside = BTreeSet::new();
    for_each_stmt(unit, nodes, &mut |s| {
        inside.insert(s.id);
    });
    unit.stmts
        .iter()
        .filter(|s| analyzer::cfg::jump_labels(&s.kind).contains(&label))
        .all(|s| inside.contains(&s.id))
}

/// Is `name` visible outside the unit (so its value lives on after the unit)?
/// Module variables and the host's variables (an internal or module procedure's) too.
pub(crate) fn nonlocal(sema: &UnitSema, name: &str) -> bool {
    sema.visible_outside(name)
}

/// The IN/OUT/LOCAL sets and clauses of a region.
fn clauses(cx: &EffCx, p: &mut Plan, in_loop: bool) {
    let unit = cx.unit;
    let eff = cx.nodes(&p.nodes, &BTreeSet::new());
    let mut inside = BTreeSet::new();
    for_each_stmt(unit, &p.nodes, &mut |s| {
        inside.insert(s.id);
    });
    // Names used by executable statements outside the region.
    let users = cx.users();
    let used_outside = |v: &Name| users.get(v).is_some_and(|ids| ids.iter().any(|id| !inside.contains(id)));
    let names: BTreeSet<&Name> = eff.reads.keys().chain(eff.may.keys()).collect();
    let mut by_use: BTreeMap<RegionUse, Vec<VarPart>> = BTreeMap::new();
    let mut order: Vec<RegionUse> = vec![];
    for v in names {
        if p.skip.contains(v) {
            continue;
        }
        let r = eff.reads.get(v).cloned();
        let w = eff.may.get(v).cloned();
        let m = eff.must.get(v).cloned();
        let written = w.as_ref().is_some_and(|w| !w.is_empty());
        let live = used_outside(v)
            || nonlocal(cx.sema, v)
            || (in_loop && r.as_ref().is_some_and(|r| !r.is_empty()));
        let rank = w.as_ref().or(r.as_ref()).map_or(0, |s| s.rank());
        let mut ins = r.unwrap_or_else(|| SectionSet::empty(rank));
        let (mut outs, mut locals) = (SectionSet::empty(rank), SectionSet::empty(rank));
        if written {
            let w = w.expect("written");
            let covered = render::covered(&w);
            let m = m.unwrap_or_else(|| SectionSet::empty(rank));
            if live {
                // Elements declared OUT but not surely written must arrive intact.
                ins = ins.union(&covered.difference(&m));
                outs = covered;
            } else {
                locals = covered;
            }
        }
        let ins = render::covered(&ins);
        add(&mut p.ins, v, &ins);
        add(&mut p.outs, v, &outs);
        add(&mut p.locals, v, &locals);
        let ip = render::parts(unit, cx.sema, v, &ins);
        let op = render::parts(unit, cx.sema, v, &outs);
        let lp = render::parts(unit, cx.sema, v, &locals);
        let mut put = |u: RegionUse, parts: Vec<VarPart>| {
            if parts.is_empty() {
                return;
            }
            if !order.contains(&u) {
                order.push(u);
            }
            by_use.entry(u).or_default().extend(parts);
        };
        match (ip.is_empty(), op.is_empty(), lp.is_empty()) {
            (false, false, _) if ip == op => put(RegionUse::InOut, ip),
            (false, _, false) if ip == lp => put(RegionUse::InLocal, ip),
            _ => {
                put(RegionUse::In, ip);
                put(RegionUse::Out, op);
                put(RegionUse::Local, lp);
            }
        }
    }
    let rank = |u: &RegionUse| match u {
        RegionUse::In => 0,
        RegionUse::InOut => 1,
        RegionUse::Out => 2,
        RegionUse::InLocal => 3,
        RegionUse::Local => 4,
    };
    order.sort_by_key(rank);
    p.clauses = order
        .into_iter()
        .map(|u| (u, by_use.remove(&u).unwrap_or_default()))
        .collect();
}

// ---------------------------------------------------------------------------------------
// Placement of GET_ACTUAL / ACTUAL.

#[derive(Clone, PartialEq, Default, Debug)]
struct PState {
    /// The runtime may believe the device copy actual.
    dev_may: VarSets,
    /// The runtime surely believes the device copy actual (for transfer estimates).
    dev_must: VarSets,
    /// The runtime may believe the host copy stale.
    host_stale: VarSets,
}

impl State for PState {
    fn join(&mut self, o: &Self) {
        self.dev_may = union(&self.dev_may, &o.dev_may);
        self.dev_must = intersect(&self.dev_must, &o.dev_must);
        self.host_stale = union(&self.host_stale, &o.host_stale);
    }
}

struct Placed {
    actualizations: Vec<Actualization>,
    /// Per plan: (bytes in per execution, transfer seconds per execution, bytes out).
    transfer: Vec<(f64, f64, f64)>,
}

/// Where a directive goes: before a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Spot {
    before: u32,
}

struct Placer<'a> {
    cx: &'a EffCx<'a>,
    plans: Vec<(usize, &'a Plan)>,
    main: bool,
    /// Host loops handled whole, by header.
    whole: BTreeSet<StmtId>,
    /// The unit's variables.
    vars: Vec<Name>,
    /// Procedures that run regions (themselves or through calls).
    region_procs: BTreeSet<Name>,
    /// Procedures that return with host and device consistent (`effects::consistent_procedures`).
    consistent: BTreeSet<Name>,
    gets: BTreeMap<Spot, (VarSets, String)>,
    acts: BTreeMap<Spot, (VarSets, String)>,
    acts_late: BTreeMap<Spot, (VarSets, String)>,
    in_bytes: BTreeMap<usize, f64>,
    /// Bytes requested by GET_ACTUAL per spot per execution, with the regions that wrote them.
    times: BTreeMap<StmtId, f64>,
    get_cost: BTreeMap<Spot, f64>,
    elseif_owner: BTreeMap<StmtId, StmtId>,
    /// Terminal statements of label DO loops (nothing can go right after them).
    terminals: BTreeSet<StmtId>,
    targets: BTreeSet<u32>,
    bytes_per_elem: &'a dyn Fn(&str) -> f64,
}

impl Placer<'_> {
    fn unit(&self) -> &Unit {
        self.cx.unit
    }

    fn stmt_spot(&self, id: StmtId) -> Spot {
        let id = *self.elseif_owner.get(&id).unwrap_or(&id);
        Spot {
            before: self.unit().stmt(id).span.line,
        }
    }

    /// After statement `id`, if something can go there (else None).
    fn after_spot(&self, id: StmtId, last_line: u32) -> Option<Spot> {
        if self.terminals.contains(&id) {
            return None;
        }
        let next = self.unit().next_stmt_after(last_line)?;
        if next.label.is_some_and(|l| self.targets.contains(&l)) || matches!(next.kind, StmtKind::ElseIf(_) | StmtKind::Else) {
            return None;
        }
        // Right before the next statement (so that a request for it shares the line).
        Some(Spot {
            before: next.span.line,
        })
    }

    fn record(map: &mut BTreeMap<Spot, (VarSets, String)>, spot: Spot, sets: &VarSets, why: String) -> VarSets {
        let e = map.entry(spot).or_insert_with(|| (VarSets::new(), why));
        e.0 = union(&e.0, sets);
        // What the directive will request: the rendered boxes of everything recorded here.
        e.0 = e.0.iter().map(|(k, v)| (k.clone(), render::covered(v))).collect();
        e.0.clone()
    }

    /// Variables a called procedure can see: non-local ones and the call's arguments.
    fn visible(&self, e: &Eff) -> VarSets {
        let mut v = VarSets::new();
        for k in &self.vars {
            if nonlocal(self.cx.sema, k)
                || e.reads.contains_key(k)
                || e.may.contains_key(k)
                || e.call_writes(k)
            {
                add(&mut v, k, &effects::whole(self.cx.sema, k));
            }
        }
        v
    }

    fn host(&mut self, eff: Eff, st: &mut PState, get_at: Spot, act_at: Option<Spot>, what: String, times: f64) {
        let mut need = intersect(&eff.reads, &st.host_stale);
        let may = eff.host_writes(&self.consistent);
        let act = intersect(&may, &st.dev_may);
        let mut sact = VarSets::new();
        if !act.is_empty() {
            sact = may
                .iter()
                .filter(|(k, _)| act.contains_key(*k))
                .map(|(k, v)| (k.clone(), render::covered(v)))
                .collect();
            let pre = if act_at.is_some() { minus(&sact, &eff.must) } else { sact.clone() };
            need = union(&need, &intersect(&pre, &st.host_stale));
        }
        if !eff.calls.is_empty() {
            let vis = self.visible(&eff);
            need = union(&need, &intersect(&vis, &st.host_stale));
        }
        if !need.is_empty() {
            let got = Self::record(&mut self.gets, get_at, &need, what.clone());
            let bytes: f64 = intersect(&got, &st.host_stale)
                .iter()
                .map(|(k, s)| s.count().unwrap_or(1000) as f64 * (self.bytes_per_elem)(k))
                .sum();
            let c = self.get_cost.entry(get_at).or_default();
            *c = c.max(bytes * times);
            minus_in(&mut st.host_stale, &got);
        }
        if !act.is_empty() {
            // After the statement when something can stand there, else right before it
            // (after its GET_ACTUAL).
            let done = match act_at {
                Some(spot) => Self::record(&mut self.acts, spot, &sact, what),
                None => Self::record(&mut self.acts_late, get_at, &sact, what),
            };
            minus_in(&mut st.host_stale, &done);
            minus_in(&mut st.dev_may, &done);
            minus_in(&mut st.dev_must, &done);
        }
        if eff.calls.iter().any(|c| self.region_procs.contains(&c.name)) {
            let vis = self.visible(&eff);
            union_in(&mut st.dev_may, &vis);
        }
    }
}

impl Hooks<PState> for Placer<'_> {
    fn group(&mut self, list: &[Node], i: usize) -> Group {
        let f = first_stmt(&list[i]);
        if let Some((_, p)) = self.plans.iter().find(|(_, p)| p.first == f) {
            return Group::Region(p.len);
        }
        match &list[i] {
            Node::Do { header, .. } if self.whole.contains(header) => Group::Whole,
            _ => Group::Descend,
        }
    }

    fn item(&mut self, item: Item, st: &mut PState) {
        match item {
            Item::Stmt(id) => {
                let s = self.unit().stmt(id);
                let eff = self.cx.stmt(s, &BTreeSet::new());
                let line = s.span.line;
                let end_line = s.span.end_line;
                let times = *self.times.get(&id).unwrap_or(&1.0);
                let get_at = self.stmt_spot(id);
                let is_while = matches!(s.kind, StmtKind::DoWhile { .. });
                let act_at = if matches!(s.kind, StmtKind::Do { .. } | StmtKind::DoWhile { .. } | StmtKind::IfThen(_) | StmtKind::ElseIf(_)) {
                    None
                } else {
                    self.after_spot(id, end_line)
                };
                // (the state before the request: the request before the header serves the
                // entry only, the one at END DO the iterations after the first)
                let at_header = is_while.then(|| st.clone());
                self.host(eff.clone(), st, get_at, act_at, format!("line {line}"), times);
                if let Some(mut s2) = at_header {
                    // The condition is evaluated again after every iteration.
                    if let Some(end) = self.while_end(id) {
                        self.host(eff, &mut s2, end, None, format!("line {line}"), times);
                    }
                }
            }
            Item::Loop(n) => {
                let h = first_stmt(n);
                let eff = self.cx.node(n, &BTreeSet::new());
                let line = self.unit().stmt(h).span.line;
                let last = last_line(self.unit(), n);
                let act_at = if self.cx.runs_through(std::slice::from_ref(n)) {
                    self.after_spot(h, last).filter(|_| !self.shared_terminal(n))
                } else {
                    None
                };
                let times = *self.times.get(&h).unwrap_or(&1.0);
                self.host(eff, st, Spot { before: line }, act_at, format!("loop at line {line}"), times);
            }
            Item::Region(nodes) => {
                let f = first_stmt(&nodes[0]);
                let Some(&(k, p)) = self.plans.iter().find(|(_, p)| p.first == f) else {
                    return;
                };
                let mut bytes = 0.0;
                for (v, s) in &p.ins {
                    let there = st.dev_must.get(v).cloned().unwrap_or_else(|| SectionSet::empty(s.rank()));
                    bytes += s.difference(&there).count().unwrap_or(1000) as f64 * (self.bytes_per_elem)(v);
                }
                let e = self.in_bytes.entry(k).or_default();
                *e = e.max(bytes);
                union_in(&mut st.dev_may, &p.ins);
                union_in(&mut st.dev_must, &p.ins);
                union_in(&mut st.dev_may, &p.outs);
                union_in(&mut st.dev_must, &p.outs);
                union_in(&mut st.host_stale, &p.outs);
                minus_in(&mut st.dev_may, &p.locals);
                minus_in(&mut st.dev_must, &p.locals);
            }
        }
    }

    fn exit(&mut self, at: Option<StmtId>, st: &PState) {
        if self.main {
            return;
        }
        let mut need = VarSets::new();
        for (k, s) in &st.host_stale {
            if nonlocal(self.cx.sema, k) {
                add(&mut need, k, s);
            }
        }
        if need.is_empty() {
            return;
        }
        let spot = match at {
            Some(id) => self.stmt_spot(id),
            None => Spot {
                before: self.unit().end_line,
            },
        };
        Self::record(&mut self.gets, spot, &need, "return to the caller".into());
    }
}

impl Placer<'_> {
    fn while_end(&self, header: StmtId) -> Option<Spot> {
        let u = self.unit();
        match analyzer::cfg::node_of(&u.body, header)? {
            Node::Do { end: Some(end), .. } => Some(Spot {
                before: u.stmt(*end).span.line,
            }),
            // `DO 20 WHILE (...)` ... `20 CONTINUE`: before the terminal statement (a jump
            // to its label would skip the request: the checker then refuses the program)
            Node::Do { end: None, .. } => {
                let StmtKind::DoWhile { label: Some(l), .. } = &u.stmt(header).kind else {
                    return None;
                };
                let term = u.stmts.iter().find(|s| s.label == Some(*l) && s.id != header)?;
                Some(Spot { before: term.span.line })
            }
            _ => None,
        }
    }

    fn shared_terminal(&self, n: &Node) -> bool {
        if let Node::Do { header, end: None, .. } = n {
            if let StmtKind::Do { label: Some(l), .. } = &self.unit().stmt(*header).kind {
                return self
                    .unit()
                    .stmts
                    .iter()
                    .filter(|s| matches!(&s.kind, StmtKind::Do { label: Some(m), .. } if m == l))
                    .count()
                    > 1;
            }
        }
        false
    }
}

/// Host loops that can be handled whole: no region statement inside, no call of a procedure
/// that runs regions.
fn whole_loops(unit: &Unit, nodes: &[Node], region_stmts: &BTreeSet<StmtId>, region_procs: &BTreeSet<Name>, cx: &EffCx, out: &mut BTreeSet<StmtId>) {
    for n in nodes {
        match n {
            Node::Do { header, body, .. } => {
                let mut has_region = false;
                let mut has_call = false;
                for_each_stmt(unit, std::slice::from_ref(n), &mut |s| {
                    has_region |= region_stmts.contains(&s.id);
                });
                if !region_procs.is_empty() {
                    has_call = cx
                        .node(n, &BTreeSet::new())
                        .calls
                        .iter()
                        .any(|c| region_procs.contains(&c.name));
                }
                let while_loop = matches!(unit.stmt(*header).kind, StmtKind::DoWhile { .. });
                if !has_region && !has_call && !while_loop {
                    out.insert(*header);
                } else {
                    whole_loops(unit, body, region_stmts, region_procs, cx, out);
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    whole_loops(unit, b, region_stmts, region_procs, cx, out);
                }
            }
            Node::Stmt(_) => {}
        }
    }
}

fn exec_times(analysis: &Analysis, ui: usize, m: &MachineModel) -> BTreeMap<StmtId, f64> {
    let unit = &analysis.program.units[ui];
    let trips: BTreeMap<StmtId, f64> = analysis.loops[ui]
        .iter()
        .map(|l| (l.header, crate::dvm::trips(l, m)))
        .collect();
    fn go(unit: &Unit, nodes: &[Node], k: f64, trips: &BTreeMap<StmtId, f64>, out: &mut BTreeMap<StmtId, f64>, m: &MachineModel) {
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    out.insert(*id, k);
                }
                Node::Do { header, body, end } => {
                    out.insert(*header, k);
                    let t = *trips.get(header).unwrap_or(&(m.unknown_trip_count as f64));
                    go(unit, body, k * t, trips, out, m);
                    if let Some(e) = end {
                        out.insert(*e, k * t);
                    }
                }
                Node::If { arms, .. } => {
                    for (h, b) in arms {
                        out.insert(*h, k);
                        go(unit, b, k, trips, out, m);
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    go(unit, &unit.body, 1.0, &trips, &mut out, m);
    out
}

/// Entry state of a unit for the placement.
fn entry_state(sema: &UnitSema, main: bool, any_regions: bool) -> PState {
    let mut st = PState::default();
    if !main && any_regions {
        for (name, s) in sema.symbols.iter() {
            if s.param.is_none() && !s.external && !s.intrinsic && nonlocal(sema, name) {
                add(&mut st.dev_may, name, &effects::whole(sema, name));
            }
        }
    }
    st
}

fn place_all(ex: &Expert, plans: &[Plan], s: &Scheme, procs: f64) -> Placed {
    let analysis = ex.analysis;
    let m = &ex.machine;
    let prog = &analysis.program;
    let any_regions = plans.iter().any(|p| p.on_device);
    let direct: BTreeSet<usize> = plans.iter().filter(|p| p.on_device).map(|p| p.unit).collect();
    let region_procs = effects::region_procedures(prog, &direct);
    let mut device_blocks = BTreeSet::new();
    for p in plans.iter().filter(|p| p.on_device) {
        for sets in [&p.ins, &p.outs, &p.locals] {
            effects::blocks_of(&prog.semas[p.unit], sets, &mut device_blocks);
        }
    }
    let consistent = effects::consistent_procedures(prog, &region_procs, &device_blocks);
    let mut acts: Vec<Actualization> = vec![];
    let mut in_bytes = vec![0.0; plans.len()];
    let mut out_bytes = vec![0.0; plans.len()];
    let distributed_in = distributed_by_unit(&unit_index(prog), s);
    let mut plans_of: BTreeMap<usize, Vec<(usize, &Plan)>> = BTreeMap::new();
    for (k, p) in plans.iter().enumerate().filter(|(_, p)| p.on_device) {
        plans_of.entry(p.unit).or_default().push((k, p));
    }
    for (ui, unit) in prog.units.iter().enumerate() {
        let sema = &prog.semas[ui];
        let uref = crate::dvm::unit_ref(prog, ui);
        let mine: Vec<(usize, &Plan)> = plans_of.remove(&ui).unwrap_or_default();
        if !any_regions || matches!(unit.kind, UnitKind::Module | UnitKind::BlockData) {
            continue;
        }
        let cx = &ex.cxs[ui];
        let main = unit.kind == UnitKind::Program;
        // A unit that runs no region, itself or through calls, needs no directive: nothing
        // is on the device in a main program without regions, and a procedure's callers
        // request what it reads before the call and declare what it writes actual after it
        // (the call is a host statement to them), so it runs on the host copies as they are;
        // except where it writes a COMMON block that regions use (its callers may not
        // declare the block).
        if !consistent.contains(&unit.name) {
            continue;
        }
        let mut region_stmts = BTreeSet::new();
        for (_, p) in &mine {
            for_each_stmt(unit, &p.nodes, &mut |x| {
                region_stmts.insert(x.id);
            });
        }
        let mut whole = BTreeSet::new();
        whole_loops(unit, &unit.body, &region_stmts, &region_procs, cx, &mut whole);
        let mut elseif_owner = BTreeMap::new();
        let mut terminals = BTreeSet::new();
        fn owners(unit: &Unit, nodes: &[Node], o: &mut BTreeMap<StmtId, StmtId>, t: &mut BTreeSet<StmtId>) {
            for n in nodes {
                match n {
                    Node::If { arms, .. } => {
                        for (h, b) in arms.iter().skip(1) {
                            o.insert(*h, arms[0].0);
                            owners(unit, b, o, t);
                        }
                        owners(unit, &arms[0].1, o, t);
                    }
                    Node::Do { body, end, .. } => {
                        if end.is_none() {
                            if let Some(l) = body.last() {
                                t.insert(first_stmt(l));
                            }
                        }
                        owners(unit, body, o, t);
                    }
                    Node::Stmt(_) => {}
                }
            }
        }
        owners(unit, &unit.body, &mut elseif_owner, &mut terminals);
        let none = BTreeSet::new();
        let distributed = distributed_in.get(&ui).unwrap_or(&none);
        let bpe = |v: &str| -> f64 {
            let b = sema.type_of(v).bytes() as f64;
            if distributed.contains(v) {
                b / procs
            } else {
                b
            }
        };
        let mut placer = Placer {
            vars: ex.vars[ui].clone(),
            region_procs: region_procs.clone(),
            consistent: consistent.clone(),
            cx,
            plans: mine.clone(),
            main,
            whole,
            gets: BTreeMap::new(),
            acts: BTreeMap::new(),
            acts_late: BTreeMap::new(),
            in_bytes: BTreeMap::new(),
            times: exec_times(analysis, ui, m),
            get_cost: BTreeMap::new(),
            elseif_owner,
            terminals,
            targets: analyzer::cfg::jump_targets(unit),
            bytes_per_elem: &bpe,
        };
        // Repeat until the recorded directives stop growing (each walk uses what was recorded).
        for _ in 0..10 {
            let snapshot = |p: &Placer| (p.gets.clone(), p.acts.clone(), p.acts_late.clone());
            let before = snapshot(&placer);
            Walk::run(unit, &mut placer, entry_state(sema, main, any_regions));
            if snapshot(&placer) == before {
                break;
            }
        }
        for (k, b) in &placer.in_bytes {
            in_bytes[*k] = *b;
        }
        // GET_ACTUAL bytes are charged to the regions of this unit that write what is fetched.
        // (split equally between them, so that the scheme's total counts each byte once).
        for (spot, (sets, _)) in &placer.gets {
            let cost = placer.get_cost.get(spot).copied().unwrap_or(0.0);
            let writers: Vec<&(usize, &Plan)> = mine
                .iter()
                .filter(|(_, p)| sets.keys().any(|v| p.outs.contains_key(v)) && p.executions > 0.0)
                .collect();
            for (k, p) in &writers {
                out_bytes[*k] += cost / writers.len() as f64 / p.executions;
            }
        }
        for (kind, late, map) in [
            (ActualKind::GetActual, false, &placer.gets),
            (ActualKind::Actual, false, &placer.acts),
            (ActualKind::Actual, true, &placer.acts_late),
        ] {
            for (spot, (sets, why)) in map {
                let vars: Vec<VarPart> = sets
                    .iter()
                    .flat_map(|(v, s)| render::parts(unit, sema, v, s))
                    .collect();
                if vars.is_empty() {
                    continue;
                }
                acts.push(Actualization {
                    at: uref.clone(),
                    before: spot.before,
                    kind,
                    vars,
                    reason: why.clone(),
                    late,
                });
            }
        }
    }
    let rank = |a: &Actualization| match (a.kind, a.late) {
        (ActualKind::Actual, false) => 0,
        (ActualKind::GetActual, _) => 1,
        (ActualKind::Actual, true) => 2,
    };
    acts.sort_by(|a, b| (&a.at.file, a.before, rank(a)).cmp(&(&b.at.file, b.before, rank(b))));
    let transfer = plans
        .iter()
        .enumerate()
        .map(|(k, _)| {
            let t = m.device_copy_s(in_bytes[k]) + m.device_copy_s(out_bytes[k]);
            (in_bytes[k], t, out_bytes[k])
        })
        .collect();
    Placed {
        actualizations: acts,
        transfer,
    }
}
