//! Integer values the program computes where the analysis runs, and COMMON work arrays a
//! procedure fills before it reads them with the values its calls give it.
//!
//! NPB FT's SWARZTRAUBER reads its COMMON scratch array SCR only where it wrote it first in the
//! same call, but only because its N is 2**M: the subscripts come from recurrences
//! (`LJ = 2 * LK`, `LI = LI / 2`) that no section algebra follows. Every call in the program
//! passes values the analysis can compute: `M = ILOG2(N1)` and `N = N1`, with FFTXYZ's `N1`
//! the PARAMETER `NX` at each of its calls. With those values the procedure's integer code is
//! executed here, element by element: each element of the array it reads must have been
//! written before in the same call. A loop whose bounds are not known (the rows `DO J = 1,
//! VLEN` with VLEN an argument nothing in the procedure changes) is executed once with its
//! variable standing for the whole range, when every write of the array inside it names that
//! variable as a subscript (so the elements written are the range, empty when the loop is).
//!
//! `owned_scratch` gives the (procedure, COMMON member) pairs so proven for every call of the
//! program; the summaries then count their reads as the procedure's own (`Effect::own_reads`).

use crate::access::{Access, CallSite, Summary};
use crate::ast::{
    for_each_stmt, Arg, BaseType, BinOp, Expr, Name, Node, StmtId, StmtKind, UnOp, Unit, UnitKind,
};
use crate::interproc::CallGraph;
use crate::sema::UnitSema;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// A value known here: an integer, a logical, or the variable of a loop executed once for its
/// whole range (the slot of that loop).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i64),
    Bool(bool),
    Range(usize),
}

/// The known values of a unit's integer and logical scalars (a name missing: not known).
type Env = HashMap<Name, Val>;

/// One subscript of an element: a value, or the whole range of a loop (by its bounds' text).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Sub {
    At(i64),
    Over(String),
}

/// Statements executed in all (a bound on the work of one program's pass).
const BUDGET: u64 = 2_000_000;
/// The same for counting iterations (`trip_estimates`; NPB FT class A: about 200,000).
const COUNT_BUDGET: u64 = 500_000;
/// Statements one call's execution may take (NPB FT's SWARZTRAUBER at class A: about 3,000).
const RUN_LIMIT: u64 = 200_000;
/// Counting iterations (`trip_estimates`), loops longer than this run only three of theirs.
const SAMPLED: i64 = 8;
/// Calls followed up the call graph for a value.
const DEPTH: u32 = 6;

type Table = Rc<Vec<(Vec<Access>, Vec<CallSite>)>>;

struct Ctx<'a> {
    units: &'a [Unit],
    semas: &'a [UnitSema],
    summaries: &'a BTreeMap<Name, Summary>,
    index: BTreeMap<Name, usize>,
    /// The CALL statements of each procedure: (unit, statement).
    sites: BTreeMap<Name, Vec<(usize, StmtId)>>,
    /// The number of places each procedure is called from (CALL statements and function
    /// references).
    calls: BTreeMap<Name, usize>,
    tables: RefCell<HashMap<usize, Table>>,
    /// The names each unit's statements may assign (through calls too), by unit.
    assigned: RefCell<HashMap<usize, Rc<HashSet<Name>>>>,
    /// What each unit's scalar arguments are where it starts, when every call agrees (None
    /// while being computed).
    entries: RefCell<HashMap<usize, Option<Env>>>,
    spent: Cell<u64>,
    /// Statements this pass may execute in all.
    budget: u64,
}

/// How a walk over statements ended.
enum Flow {
    Next,
    Return,
    /// The statement looked for (`Run::target`) is next: the values are those before it.
    Reached,
    Fail,
}

/// The elements of the watched array written so far, and the loops executed once for their
/// whole range.
struct Watch {
    name: Name,
    /// The COMMON block as accesses name it where a callee touches it as a whole
    /// (`/block/`): the array's elements are then not known.
    block: Name,
    written: HashSet<Vec<Sub>>,
    /// Per slot of `Val::Range`: the range's text.
    ranges: Vec<String>,
    /// Slots of the loops executed once that enclose the statement.
    active: Vec<usize>,
    /// The element read before it was written, and the line.
    first: Option<(Vec<Sub>, u32)>,
}

struct Run<'c, 'a> {
    cx: &'c Ctx<'a>,
    ui: usize,
    env: Env,
    target: Option<StmtId>,
    /// Execute loops whose bounds are known (else forget what they assign).
    precise: bool,
    watch: Option<Watch>,
    depth: u32,
    steps: u64,
    /// Per DO loop executed with known bounds (and DO WHILE loop): (executions, iterations),
    /// when counting (`trip_estimates`).
    trips: Option<HashMap<StmtId, (u64, u64)>>,
}

/// The pairs (procedure, COMMON block and member position) whose every call in the program
/// writes each element of the member it reads before reading it (see the module's text),
/// with None; and with the element read first, those where a call's execution read one.
pub fn owned_scratch(
    units: &[Unit],
    semas: &[UnitSema],
    summaries: &BTreeMap<Name, Summary>,
    graph: &CallGraph,
) -> crate::interproc::Owned {
    let index = crate::interproc::unit_index(units);
    let mut out = BTreeMap::new();
    // the candidates first (most programs have none, and then nothing else is done)
    let mut cands: Vec<(usize, Name, (Name, usize))> = vec![];
    for (name, s) in summaries {
        if s.recursive {
            continue;
        }
        let Some(&ui) = index.get(name) else { continue };
        for (key, e) in &s.commons {
            if e.own_reads || e.write.is_empty() || e.read.is_empty() || key.1 == usize::MAX {
                continue;
            }
            let Some(x) = s.common_names.get(key) else {
                continue;
            };
            // (and the first statement that touches it writes it without reading it: a
            // work array filled before it is used)
            let plain = semas[ui].symbol(x).is_some_and(|y| y.is_array() && y.aliases.is_empty() && y.common.as_ref() == Some(key));
            if plain && writes_first(&units[ui], &semas[ui], summaries, x) {
                cands.push((ui, x.clone(), key.clone()));
            }
        }
    }
    if cands.is_empty() {
        return out;
    }
    let cx = Ctx::new(units, semas, summaries, graph);
    for (ui, x, key) in cands {
        if cx.spent.get() >= cx.budget {
            break;
        }
        let name = &units[ui].name;
        let Some(sites) = cx.all_sites(name) else {
            continue;
        };
        let mut all = true;
        for &(ci, st) in &sites {
            match cx.fills_first(ui, &x, &key, ci, st) {
                Ok(()) => {}
                Err(why) => {
                    all = false;
                    if let Some(w) = why {
                        out.insert((name.clone(), key.clone()), Some(w));
                        break;
                    }
                }
            }
        }
        if all {
            out.insert((name.clone(), key), None);
        }
    }
    out
}

/// Per unit (in `units` order), the average number of iterations of each DO loop whose
/// bounds are not constants, where executing the procedure with the values each of its calls
/// gives it (as `owned_scratch` does) counts them: NPB FT's SWARZTRAUBER, whose `DO I = 0,
/// LI - 1` runs `2**M / 2**L` times in pass L. A loop inside another counts its iterations
/// per iteration of that loop, so that the product along a nest is the iterations the nest
/// runs even where the trip counts vary together (`LI * LK` is constant over the passes) or
/// the loop runs in some iterations only (an IF around it); an outermost loop counts them per
/// execution. What an execution counted before a value it needed was not known still counts;
/// loops of the main program get nothing.
pub fn trip_estimates(units: &[Unit], semas: &[UnitSema], summaries: &BTreeMap<Name, Summary>, graph: &CallGraph) -> Vec<BTreeMap<StmtId, u64>> {
    let mut out = vec![BTreeMap::new(); units.len()];
    // the procedures with such loops
    let wanted: Vec<usize> = (0..units.len())
        .filter(|&ui| units[ui].kind != UnitKind::Program && summaries.get(&units[ui].name).is_some_and(|s| !s.recursive))
        .filter(|&ui| {
            units[ui].stmts.iter().any(|st| match &st.kind {
                StmtKind::Do { lo, hi, step, .. } => {
                    semas[ui].eval_int(lo).is_none() || semas[ui].eval_int(hi).is_none() || step.as_ref().is_some_and(|e| semas[ui].eval_int(e).is_none())
                }
                StmtKind::DoWhile { cond: Some(_), concurrent: false, .. } => true,
                _ => false,
            })
        })
        .collect();
    if wanted.is_empty() {
        return out;
    }
    let mut cx = Ctx::new(units, semas, summaries, graph);
    cx.budget = COUNT_BUDGET;
    for ui in wanted {
        if cx.spent.get() >= cx.budget {
            break;
        }
        let Some(sites) = cx.all_sites(&units[ui].name) else { continue };
        let mut sum: HashMap<StmtId, (u64, u64)> = HashMap::new();
        for (ci, st) in sites {
            let Some(env) = cx.entry_of_call(ui, ci, st) else { continue };
            let mut run = Run::new(&cx, ui, env, None, true, 1);
            run.trips = Some(HashMap::new());
            // (what a run counted before it stopped was counted exactly: it stays)
            run.nodes(&units[ui].body);
            for (h, (e, i)) in run.trips.unwrap_or_default() {
                let t = sum.entry(h).or_default();
                t.0 += e;
                t.1 += i;
            }
        }
        let mut parent = HashMap::new();
        enclosing_loops(&units[ui].body, None, &mut parent);
        let per = |h: &StmtId, e: u64| match parent.get(h).and_then(|p| sum.get(p)) {
            Some(&(_, pi)) if pi > 0 => pi,
            _ => e,
        };
        out[ui] = sum
            .iter()
            .filter(|(_, (e, _))| *e > 0)
            .map(|(h, &(e, i))| {
                let d = per(h, e);
                // (a loop that runs at all counts at least once)
                (*h, ((i + d / 2) / d).max(u64::from(i > 0)))
            })
            .collect();
    }
    out
}

/// The innermost loop around each loop of `nodes` (`outer` around them all).
fn enclosing_loops(nodes: &[Node], outer: Option<StmtId>, out: &mut HashMap<StmtId, StmtId>) {
    for n in nodes {
        match n {
            Node::Do { header, body, .. } => {
                if let Some(o) = outer {
                    out.insert(*header, o);
                }
                enclosing_loops(body, Some(*header), out);
            }
            Node::If { arms, .. } => arms.iter().for_each(|(_, b)| enclosing_loops(b, outer, out)),
            Node::Stmt(_) => {}
        }
    }
}

impl<'a> Ctx<'a> {
    fn new(units: &'a [Unit], semas: &'a [UnitSema], summaries: &'a BTreeMap<Name, Summary>, graph: &CallGraph) -> Ctx<'a> {
        let mut sites: BTreeMap<Name, Vec<(usize, StmtId)>> = BTreeMap::new();
        for (ui, u) in units.iter().enumerate() {
            for st in &u.stmts {
                if let StmtKind::Call { name, .. } = st.kind.action() {
                    sites.entry(name.clone()).or_default().push((ui, st.id));
                }
            }
        }
        let mut calls: BTreeMap<Name, usize> = BTreeMap::new();
        for (_, c, _) in &graph.edges {
            *calls.entry(c.clone()).or_default() += 1;
        }
        Ctx {
            units,
            semas,
            summaries,
            index: crate::interproc::unit_index(units),
            sites,
            calls,
            tables: Default::default(),
            assigned: Default::default(),
            entries: Default::default(),
            spent: Cell::new(0),
            budget: BUDGET,
        }
    }

    /// The values procedure `ui` starts with when statement `st` of unit `ci` calls it.
    fn entry_of_call(&self, ui: usize, ci: usize, st: StmtId) -> Option<Env> {
        Some(self.bind(ui, &self.actuals_at(ci, st, 0)?))
    }

    /// The values of the actual arguments of the CALL at statement `st` of unit `ci` (None
    /// where not known); None when the values before the statement are not known.
    fn actuals_at(&self, ci: usize, st: StmtId, depth: u32) -> Option<Vec<Option<Val>>> {
        let StmtKind::Call { args, .. } = self.units[ci].stmt(st).kind.action() else { return None };
        let at = self.env_at(ci, st, depth)?;
        // (functions in the actuals are followed from level 1 on, or the caller's own)
        let mut caller = Run::new(self, ci, at, None, true, depth.max(1));
        Some(args.iter().map(|a| a.expr().and_then(|e| caller.eval(e)).filter(|v| !matches!(v, Val::Range(_)))).collect())
    }

    /// The CALL statements of procedure `name`, when they are all the places it is called
    /// from.
    fn all_sites(&self, name: &str) -> Option<Vec<(usize, StmtId)>> {
        self.sites
            .get(name)
            .filter(|s| !s.is_empty() && Some(&s.len()) == self.calls.get(name))
            .cloned()
    }

    fn table(&self, ui: usize) -> Table {
        self.tables
            .borrow_mut()
            .entry(ui)
            .or_insert_with(|| {
                Rc::new(crate::interproc::stmt_accesses(
                    &self.units[ui],
                    &self.semas[ui],
                    self.summaries,
                ))
            })
            .clone()
    }

    /// The names unit `ui`'s statements may assign (through calls too).
    fn assigned(&self, ui: usize) -> Rc<HashSet<Name>> {
        if let Some(a) = self.assigned.borrow().get(&ui) {
            return a.clone();
        }
        let a: Rc<HashSet<Name>> = Rc::new(self.table(ui).iter().flat_map(|(a, _)| a).filter(|a| a.write).map(|a| a.name.clone()).collect());
        self.assigned.borrow_mut().insert(ui, a.clone());
        a
    }

    /// Whether the call at statement `st` of unit `ci` of procedure `ui` writes every element
    /// of `x` (member `key`) it reads first: Err(Some(the element it read first)) where its
    /// execution shows one, Err(None) where the values are not known.
    fn fills_first(
        &self,
        ui: usize,
        x: &Name,
        key: &(Name, usize),
        ci: usize,
        st: StmtId,
    ) -> Result<(), Option<String>> {
        let StmtKind::Call { args, .. } = self.units[ci].stmt(st).kind.action() else {
            return Err(None);
        };
        // an actual argument that is the member itself would name it twice
        let csema = &self.semas[ci];
        let mut names = vec![];
        for a in args {
            if let Some(e) = a.expr() {
                names_in(e, &mut names);
            }
        }
        if names.iter().any(|n| {
            csema
                .symbol(n)
                .is_some_and(|s| s.common.as_ref() == Some(key) || !s.aliases.is_empty())
        }) {
            return Err(None);
        }
        let Some(env) = self.entry_of_call(ui, ci, st) else {
            return Err(None);
        };
        let mut run = Run::new(self, ui, env.clone(), None, true, 1);
        run.watch = Some(Watch {
            name: x.clone(),
            block: format!("/{}/", key.0),
            written: HashSet::new(),
            ranges: vec![],
            active: vec![],
            first: None,
        });
        match run.nodes(&self.units[ui].body) {
            Flow::Next | Flow::Return => Ok(()),
            _ => Err(run.watch.and_then(|w| w.first).map(|(e, line)| {
                let mut given: Vec<String> = env
                    .iter()
                    .filter_map(|(n, v)| match v {
                        Val::Int(i) => Some(format!("{} = {i}", n.to_uppercase())),
                        Val::Bool(b) => Some(format!("{} = .{}.", n.to_uppercase(), if *b { "TRUE" } else { "FALSE" })),
                        Val::Range(_) => None,
                    })
                    .collect();
                given.sort();
                let subs: Vec<String> = e
                    .iter()
                    .map(|s| match s {
                        Sub::At(i) => i.to_string(),
                        Sub::Over(r) => r.clone(),
                    })
                    .collect();
                format!(
                    "executed with the values its call at line {} gives it{}, {} reads {}({}) at line {line} before writing it",
                    self.units[ci].stmt(st).span.line,
                    if given.is_empty() { String::new() } else { format!(" ({})", given.join(", ")) },
                    self.units[ui].name.to_uppercase(),
                    x.to_uppercase(),
                    subs.join(",")
                )
            })),
        }
    }

    /// The scalar dummies of unit `ui` bound to the known actual values.
    fn bind(&self, ui: usize, actuals: &[Option<Val>]) -> Env {
        let mut env = Env::new();
        for (n, s) in &self.semas[ui].symbols {
            if let Some(v) = s
                .dummy
                .filter(|_| !s.is_array())
                .and_then(|k| actuals.get(k).copied().flatten())
            {
                env.insert(n.clone(), v);
            }
        }
        env
    }

    /// The values where unit `ui` starts: its scalar dummies that every call of it gives the
    /// same known value.
    fn entry(&self, ui: usize, depth: u32) -> Env {
        if let Some(e) = self.entries.borrow().get(&ui) {
            return e.clone().unwrap_or_default();
        }
        if depth > DEPTH || self.units[ui].kind == UnitKind::Program {
            return Env::new();
        }
        self.entries.borrow_mut().insert(ui, None);
        let mut agreed: Option<Vec<Option<Val>>> = None;
        let sites = self.all_sites(&self.units[ui].name).unwrap_or_default();
        for (ci, st) in sites {
            let StmtKind::Call { args, .. } = self.units[ci].stmt(st).kind.action() else {
                continue;
            };
            let vals = self.actuals_at(ci, st, depth + 1).unwrap_or_else(|| vec![None; args.len()]);
            agreed = Some(match agreed {
                None => vals,
                Some(prev) => prev
                    .iter()
                    .zip(vals.iter().chain(std::iter::repeat(&None)))
                    .map(|(a, b)| if a == b { *a } else { None })
                    .collect(),
            });
        }
        let env = self.bind(ui, &agreed.unwrap_or_default());
        self.entries.borrow_mut().insert(ui, Some(env.clone()));
        env
    }

    /// The values right before statement `st` of unit `ui`, each time it runs.
    fn env_at(&self, ui: usize, st: StmtId, depth: u32) -> Option<Env> {
        // (a jump back could bring other values to it: the walk follows the statements' order)
        if !crate::cfg::jump_sources(&self.units[ui]).is_empty() {
            return None;
        }
        let env = self.entry(ui, depth);
        let mut run = Run::new(self, ui, env, Some(st), false, depth);
        match run.nodes(&self.units[ui].body) {
            Flow::Reached => Some(run.env),
            _ => None,
        }
    }

    /// The value of integer function `fi` for these arguments.
    fn call_function(&self, fi: usize, actuals: &[Option<Val>], depth: u32) -> Option<Val> {
        let u = &self.units[fi];
        if u.kind != UnitKind::Function
            || depth > DEPTH
            || self.summaries.get(&u.name).is_none_or(|s| s.recursive)
        {
            return None;
        }
        let result = u.result.clone().unwrap_or_else(|| u.name.clone());
        let mut run = Run::new(self, fi, self.bind(fi, actuals), None, true, depth);
        match run.nodes(&u.body) {
            Flow::Next | Flow::Return => run.env.get(&result).copied(),
            _ => None,
        }
    }
}

/// Whether the first statement of unit `u` (in source order) that touches array `x` writes
/// it and does not read it.
fn writes_first(u: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>, x: &str) -> bool {
    let cx = crate::access::AccessCtx { unit: u, sema, summaries };
    for st in u.stmts.iter().filter(|s| s.kind.is_executable()) {
        let (mut acc, mut calls) = (vec![], vec![]);
        cx.stmt_accesses(st, &mut acc, &mut calls);
        let mine: Vec<&Access> = acc.iter().filter(|a| a.name == x).collect();
        if !mine.is_empty() {
            return mine.iter().all(|a| a.write);
        }
    }
    false
}

/// The names an expression mentions (variables, arrays and functions).
fn names_in(e: &Expr, out: &mut Vec<Name>) {
    e.walk(&mut |x| {
        if let Expr::Var(n) | Expr::Ref(n, _) = x {
            out.push(n.clone());
        }
    });
}

/// Whether an expression has an array element or a function reference in it.
fn refs_in(e: &Expr) -> bool {
    let mut hit = false;
    e.walk(&mut |x| hit |= matches!(x, Expr::Ref(..) | Expr::ImpliedDo { .. } | Expr::Opaque(_)));
    hit
}

/// Whether `nodes` hold statement `id`.
fn holds(u: &Unit, nodes: &[Node], id: StmtId) -> bool {
    let mut hit = false;
    for_each_stmt(u, nodes, &mut |s| hit |= s.id == id);
    hit
}

impl<'c, 'a> Run<'c, 'a> {
    fn new(
        cx: &'c Ctx<'a>,
        ui: usize,
        env: Env,
        target: Option<StmtId>,
        precise: bool,
        depth: u32,
    ) -> Self {
        Run {
            cx,
            ui,
            env,
            target,
            precise,
            watch: None,
            depth,
            steps: 0,
            trips: None,
        }
    }

    fn unit(&self) -> &'a Unit {
        &self.cx.units[self.ui]
    }

    fn sema(&self) -> &'a UnitSema {
        &self.cx.semas[self.ui]
    }

    fn tick(&mut self) -> bool {
        self.steps += 1;
        let spent = self.cx.spent.get() + 1;
        self.cx.spent.set(spent);
        self.steps <= RUN_LIMIT && spent <= self.cx.budget
    }

    fn int(&mut self, e: &Expr) -> Option<i64> {
        match self.eval(e)? {
            Val::Int(i) => Some(i),
            _ => None,
        }
    }

    fn eval(&mut self, e: &Expr) -> Option<Val> {
        let fits = |v: i64| {
            (i32::MIN as i64..=i32::MAX as i64)
                .contains(&v)
                .then_some(Val::Int(v))
        };
        match e {
            Expr::Int(i) => Some(Val::Int(*i)),
            Expr::Logical(b) => Some(Val::Bool(*b)),
            Expr::Var(n) => match self.sema().param(n) {
                Some(c) => match c {
                    crate::sema::Const::Int(i) => Some(Val::Int(*i)),
                    crate::sema::Const::Logical(b) => Some(Val::Bool(*b)),
                    _ => None,
                },
                None => self.env.get(n).copied(),
            },
            Expr::Ref(n, args) => {
                let sema = self.sema();
                if sema.is_array(n) {
                    return None;
                }
                let mut vals = vec![];
                for a in args {
                    vals.push(match a.expr() {
                        Some(e) => self.eval(e),
                        None => None,
                    });
                }
                match sema.ref_kind(n) {
                    crate::sema::RefKind::Intrinsic => {
                        let ints: Option<Vec<i64>> = vals
                            .iter()
                            .map(|v| match v {
                                Some(Val::Int(i)) => Some(*i),
                                _ => None,
                            })
                            .collect();
                        let ints = ints?;
                        match (n.as_str(), &ints[..]) {
                            ("mod", [a, b]) if *b != 0 => Some(Val::Int(a % b)),
                            ("abs" | "iabs", [a]) => fits(a.abs()),
                            ("min" | "min0", [_, ..]) => ints.iter().min().map(|v| Val::Int(*v)),
                            ("max" | "max0", [_, ..]) => ints.iter().max().map(|v| Val::Int(*v)),
                            _ => None,
                        }
                    }
                    crate::sema::RefKind::Function => {
                        let fi = *self.cx.index.get(n)?;
                        if self.cx.semas[fi]
                            .symbol(
                                &self.cx.units[fi]
                                    .result
                                    .clone()
                                    .unwrap_or_else(|| n.clone()),
                            )
                            .is_some_and(|s| s.ty.base != BaseType::Integer)
                        {
                            return None;
                        }
                        let plain: Vec<Option<Val>> = vals
                            .into_iter()
                            .map(|v| v.filter(|v| !matches!(v, Val::Range(_))))
                            .collect();
                        self.cx.call_function(fi, &plain, self.depth + 1)
                    }
                    _ => None,
                }
            }
            Expr::Unary(op, a) => match (op, self.eval(a)?) {
                (UnOp::Neg, Val::Int(i)) => fits(-i),
                (UnOp::Plus, Val::Int(i)) => Some(Val::Int(i)),
                (UnOp::Not, Val::Bool(b)) => Some(Val::Bool(!b)),
                _ => None,
            },
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                match (x, y) {
                    (Val::Int(x), Val::Int(y)) => match op {
                        BinOp::Add => fits(x.checked_add(y)?),
                        BinOp::Sub => fits(x.checked_sub(y)?),
                        BinOp::Mul => fits(x.checked_mul(y)?),
                        BinOp::Div if y != 0 => fits(x / y),
                        BinOp::Pow if (0..64).contains(&y) => fits(x.checked_pow(y as u32)?),
                        BinOp::Eq => Some(Val::Bool(x == y)),
                        BinOp::Ne => Some(Val::Bool(x != y)),
                        BinOp::Lt => Some(Val::Bool(x < y)),
                        BinOp::Le => Some(Val::Bool(x <= y)),
                        BinOp::Gt => Some(Val::Bool(x > y)),
                        BinOp::Ge => Some(Val::Bool(x >= y)),
                        _ => None,
                    },
                    (Val::Bool(x), Val::Bool(y)) => match op {
                        BinOp::And => Some(Val::Bool(x && y)),
                        BinOp::Or => Some(Val::Bool(x || y)),
                        BinOp::Eqv => Some(Val::Bool(x == y)),
                        BinOp::Neqv => Some(Val::Bool(x != y)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Forget what the statements of `nodes` may assign (DO variables included).
    fn forget(&mut self, nodes: &[Node]) {
        let table = self.cx.table(self.ui);
        let u = self.unit();
        let mut gone = vec![];
        for_each_stmt(u, nodes, &mut |s| {
            gone.extend(
                table[s.id.0 as usize]
                    .0
                    .iter()
                    .filter(|a| a.write)
                    .map(|a| a.name.clone()),
            );
            if let StmtKind::Do { var, .. } = &s.kind {
                gone.push(var.clone());
            }
        });
        for n in gone {
            self.env.remove(&n);
        }
    }

    /// Whether executing `nodes` can change no value the walk keeps: no loop, nothing that
    /// leaves, no integer or logical scalar written (through calls neither).
    fn inert(&self, nodes: &[Node]) -> bool {
        let table = self.cx.table(self.ui);
        let sema = self.sema();
        let mut ok = true;
        for_each_stmt(self.unit(), nodes, &mut |s| {
            ok &= !matches!(s.kind, StmtKind::Do { .. } | StmtKind::DoWhile { .. }) && !s.kind.action().leaves();
            ok &= table[s.id.0 as usize].0.iter().filter(|a| a.write).all(|a| {
                sema.symbol(&a.name).is_some_and(|y| y.is_array() || !matches!(y.ty.base, BaseType::Integer | BaseType::Logical))
            });
        });
        ok
    }

    /// Whether `nodes` touch the watched array or may leave the unit or jump.
    fn touches(&self, nodes: &[Node]) -> bool {
        let table = self.cx.table(self.ui);
        let mut hit = false;
        let watched = self.watch.as_ref().map(|w| (w.name.clone(), w.block.clone()));
        for_each_stmt(self.unit(), nodes, &mut |s| {
            hit |= s.kind.action().leaves();
            hit |= watched.as_ref().is_some_and(|(x, b)| {
                table[s.id.0 as usize]
                    .0
                    .iter()
                    .any(|a| &a.name == x || &a.name == b)
            });
        });
        hit
    }

    fn nodes(&mut self, nodes: &[Node]) -> Flow {
        for n in nodes {
            match self.node(n) {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }

    fn node(&mut self, n: &Node) -> Flow {
        if !self.tick() {
            return Flow::Fail;
        }
        let u = self.unit();
        match n {
            Node::Stmt(id) => self.stmt(*id),
            Node::Do { header, body, .. } => {
                if self.target == Some(*header) {
                    return Flow::Reached;
                }
                let inside = self.target.is_some_and(|t| holds(u, body, t));
                match &u.stmt(*header).kind {
                    StmtKind::Do {
                        var, lo, hi, step, ..
                    } => {
                        let (l, h) = (self.int(lo), self.int(hi));
                        let s = match step {
                            Some(e) => self.int(e),
                            None => Some(1),
                        };
                        if inside {
                            // the values of every iteration: what the loop assigns is not known
                            self.forget(body);
                            self.env.remove(var);
                            return self.nodes(body);
                        }
                        match (l, h, s) {
                            (Some(l), Some(h), Some(s)) if s != 0 && self.precise => {
                                let trips = ((h - l + s) / s).max(0);
                                self.tally(*header, 1, trips as u64);
                                if self.trips.is_some() && self.watch.is_none() {
                                    if self.inert(body) {
                                        // (counting: its iterations change nothing the count needs)
                                        self.env.insert(var.clone(), Val::Int(l + trips * s));
                                        return Flow::Next;
                                    }
                                    if trips > SAMPLED && !self.touches(body) {
                                        return self.sample(var, l, trips, s, body);
                                    }
                                }
                                self.count(var, l, h, s, body)
                            }
                            _ if self.watch.is_some() && self.precise => {
                                self.whole_range(var, lo, hi, step.as_ref(), body)
                            }
                            _ => {
                                self.forget(body);
                                self.env.remove(var);
                                if self.touches(body) && self.watch.is_some() {
                                    return Flow::Fail;
                                }
                                Flow::Next
                            }
                        }
                    }
                    StmtKind::DoWhile {
                        cond: Some(c),
                        concurrent: false,
                        ..
                    } => {
                        if inside {
                            self.forget(body);
                            return self.nodes(body);
                        }
                        if !self.precise {
                            self.forget(body);
                            return if self.watch.is_some() && self.touches(body) {
                                Flow::Fail
                            } else {
                                Flow::Next
                            };
                        }
                        self.tally(*header, 1, 0);
                        loop {
                            if !self.tick() {
                                return Flow::Fail;
                            }
                            if self.reads(*header).is_none() {
                                return Flow::Fail;
                            }
                            match self.eval(c) {
                                Some(Val::Bool(true)) => {
                                    self.tally(*header, 0, 1);
                                    match self.nodes(body) {
                                        Flow::Next => {}
                                        other => return other,
                                    }
                                }
                                Some(Val::Bool(false)) => return Flow::Next,
                                _ => return Flow::Fail,
                            }
                        }
                    }
                    _ => {
                        if inside {
                            self.forget(body);
                            return self.nodes(body);
                        }
                        Flow::Fail
                    }
                }
            }
            Node::If { arms, .. } => {
                if let Some((_, body)) = self
                    .target
                    .and_then(|t| arms.iter().find(|(h, b)| *h == t || holds(u, b, t)))
                {
                    if arms.iter().any(|(h, _)| Some(*h) == self.target) {
                        return Flow::Reached;
                    }
                    return self.nodes(body);
                }
                for (k, (h, body)) in arms.iter().enumerate() {
                    if self.reads(*h).is_none() {
                        return Flow::Fail;
                    }
                    let cond = match &u.stmt(*h).kind {
                        StmtKind::IfThen(c) | StmtKind::ElseIf(c) => self.eval(c),
                        _ => Some(Val::Bool(true)),
                    };
                    match cond {
                        Some(Val::Bool(true)) => return self.nodes(body),
                        Some(Val::Bool(false)) => continue,
                        _ => {
                            // any arm from here on may run
                            let rest = &arms[k..];
                            if (self.watch.is_some() || self.precise) && rest.iter().any(|(_, b)| self.touches(b)) {
                                return Flow::Fail;
                            }
                            for (_, b) in rest {
                                self.forget(b);
                            }
                            return Flow::Next;
                        }
                    }
                }
                Flow::Next
            }
        }
    }

    /// Count `entries` executions and `iters` iterations of the loop at `header`, when
    /// counting.
    fn tally(&mut self, header: StmtId, entries: u64, iters: u64) {
        if let Some(t) = self.trips.as_mut() {
            let e = t.entry(header).or_default();
            e.0 += entries;
            e.1 += iters;
        }
    }

    /// Counting a long loop (`trips` > `SAMPLED`): only its first, middle and last
    /// iterations run, each from the values before the loop with what the body assigns
    /// forgotten (a value one iteration leaves the next is then not known, never wrong), and
    /// the loops inside count as if every iteration had run.
    fn sample(&mut self, var: &Name, l: i64, trips: i64, s: i64, body: &[Node]) -> Flow {
        let outer = self.trips.replace(HashMap::new());
        let mut flow = Flow::Next;
        let picks = [0, trips / 2, trips - 1];
        for k in picks {
            self.forget(body);
            self.env.insert(var.clone(), Val::Int(l + k * s));
            match self.nodes(body) {
                Flow::Next => {}
                other => {
                    flow = other;
                    break;
                }
            }
        }
        let inner = std::mem::replace(&mut self.trips, outer).unwrap_or_default();
        let scale = |x: u64| (x as u128 * trips as u128 / picks.len() as u128) as u64;
        for (h, (e, i)) in inner {
            self.tally(h, scale(e), scale(i));
        }
        self.forget(body);
        self.env.insert(var.clone(), Val::Int(l + trips * s));
        flow
    }

    /// A DO loop of known bounds, iteration by iteration.
    fn count(&mut self, var: &Name, l: i64, h: i64, s: i64, body: &[Node]) -> Flow {
        let trips = ((h - l + s) / s).max(0);
        let mut v = l;
        for _ in 0..trips {
            self.env.insert(var.clone(), Val::Int(v));
            match self.nodes(body) {
                Flow::Next => {}
                other => return other,
            }
            if self.env.get(var) != Some(&Val::Int(v)) {
                return Flow::Fail;
            }
            v += s;
        }
        self.env.insert(var.clone(), Val::Int(v));
        Flow::Next
    }

    /// A DO loop of unknown bounds executed once, its variable standing for the whole range:
    /// the bounds must be values or names nothing in the unit changes, the step 1.
    fn whole_range(
        &mut self,
        var: &Name,
        lo: &Expr,
        hi: &Expr,
        step: Option<&Expr>,
        body: &[Node],
    ) -> Flow {
        if step.is_some_and(|s| self.int(s) != Some(1)) {
            return Flow::Fail;
        }
        let text = |r: &mut Self, e: &Expr| -> Option<String> {
            if let Some(Val::Int(i)) = r.eval(e) {
                return Some(i.to_string());
            }
            let mut names = vec![];
            names_in(e, &mut names);
            let assigned = r.cx.assigned(r.ui);
            let sema = r.sema();
            let stable = names.iter().all(|n| {
                sema.symbol(n).is_some_and(|s| {
                    !s.is_array()
                        && s.common.is_none()
                        && s.aliases.is_empty()
                        && s.ty.base == BaseType::Integer
                }) && !assigned.contains(n)
            });
            (stable && !refs_in(e))
                .then(|| crate::search::expr_text(e).unwrap_or_else(|| format!("{e:?}")))
        };
        let (Some(a), Some(b)) = (text(self, lo), text(self, hi)) else {
            return Flow::Fail;
        };
        self.forget(body);
        let w = self.watch.as_mut().expect("watching");
        let slot = w.ranges.len();
        w.ranges.push(format!("{a}:{b}"));
        w.active.push(slot);
        self.env.insert(var.clone(), Val::Range(slot));
        let f = self.nodes(body);
        self.watch.as_mut().expect("watching").active.pop();
        self.forget(body);
        self.env.remove(var);
        match f {
            Flow::Next => Flow::Next,
            _ => Flow::Fail,
        }
    }

    /// The watched array's element an access names; None when some subscript is not known
    /// or a loop's range stands in two of them.
    fn element(&mut self, a: &Access) -> Option<(Vec<Sub>, Vec<usize>)> {
        if a.via_call.is_some() || !a.implied.is_empty() {
            return None;
        }
        let mut subs = vec![];
        let mut slots = vec![];
        for s in a.subs.as_ref()? {
            match s {
                Arg::Expr(e) => match self.eval(e)? {
                    Val::Int(i) => subs.push(Sub::At(i)),
                    Val::Range(k) => {
                        if slots.contains(&k) {
                            return None;
                        }
                        slots.push(k);
                        subs.push(Sub::Over(self.watch.as_ref()?.ranges[k].clone()));
                    }
                    Val::Bool(_) => return None,
                },
                _ => return None,
            }
        }
        Some((subs, slots))
    }

    /// The reads of the watched array by statement `id` (None: one not shown written first).
    fn reads(&mut self, id: StmtId) -> Option<()> {
        let Some(x) = self.watch.as_ref().map(|w| w.name.clone()) else {
            return Some(());
        };
        let table = self.cx.table(self.ui);
        for a in table[id.0 as usize]
            .0
            .iter()
            .filter(|a| a.name == x && !a.write)
        {
            let (e, _) = self.element(a)?;
            if !self.watch.as_ref()?.written.contains(&e) {
                self.watch.as_mut()?.first = Some((e, a.line));
                return None;
            }
        }
        Some(())
    }

    /// Statement `id`: the watched array's reads, then its writes, then the scalars it sets.
    fn stmt(&mut self, id: StmtId) -> Flow {
        if self.target == Some(id) {
            return Flow::Reached;
        }
        let st = self.unit().stmt(id);
        if !st.kind.is_executable() {
            return Flow::Next;
        }
        let table = self.cx.table(self.ui);
        let (acc, _) = &table[id.0 as usize];
        let watched = self.watch.as_ref().map(|w| w.name.clone());
        let block = self.watch.as_ref().map(|w| w.block.clone());
        if block.as_ref().is_some_and(|b| acc.iter().any(|a| &a.name == b)) {
            return Flow::Fail;
        }
        let touched = watched
            .as_ref()
            .is_some_and(|x| acc.iter().any(|a| &a.name == x));
        let mut kind = &st.kind;
        if let StmtKind::LogicalIf(c, inner) = &st.kind {
            match self.eval(c) {
                Some(Val::Bool(true)) => kind = &inner.kind,
                Some(Val::Bool(false)) if !touched => return Flow::Next,
                _ => {
                    if touched || inner.kind.leaves() {
                        return Flow::Fail;
                    }
                    for a in acc.iter().filter(|a| a.write) {
                        self.env.remove(&a.name);
                    }
                    return Flow::Next;
                }
            }
        }
        if touched {
            if self.reads(id).is_none() {
                return Flow::Fail;
            }
            let x = watched.expect("watched");
            for a in acc.iter().filter(|a| a.name == x && a.write) {
                let Some((e, slots)) = self.element(a) else {
                    return Flow::Fail;
                };
                let w = self.watch.as_mut().expect("watching");
                // (a write inside a loop executed once counts only when it names every such
                // loop's variable: otherwise the loop may not run at all)
                let mut need = w.active.clone();
                let mut got = slots.clone();
                need.sort();
                got.sort();
                if need == got {
                    w.written.insert(e);
                }
            }
        }
        // the value of an assignment to a scalar (evaluated before anything is forgotten)
        let set = match kind {
            StmtKind::Assign {
                lhs: Expr::Var(n),
                rhs,
            } => {
                let ty = self
                    .sema()
                    .symbol(n)
                    .filter(|s| !s.is_array() && s.aliases.is_empty())
                    .map(|s| s.ty.base.clone());
                let v = self.eval(rhs);
                match (ty, v) {
                    (Some(BaseType::Integer), Some(Val::Int(i))) => Some((n.clone(), Val::Int(i))),
                    (Some(BaseType::Logical), Some(Val::Bool(b))) => {
                        Some((n.clone(), Val::Bool(b)))
                    }
                    (Some(BaseType::Integer), Some(Val::Range(k))) => {
                        Some((n.clone(), Val::Range(k)))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        for a in acc.iter().filter(|a| a.write) {
            self.env.remove(&a.name);
        }
        if let Some((n, v)) = set {
            self.env.insert(n, v);
        }
        match kind {
            StmtKind::Return | StmtKind::Stop => Flow::Return,
            StmtKind::Goto(_)
            | StmtKind::ArithIf(..)
            | StmtKind::ComputedGoto(..)
            | StmtKind::Cycle(_)
            | StmtKind::Exit(_)
            | StmtKind::Unsupported { .. }
            | StmtKind::Error => Flow::Fail,
            _ => Flow::Next,
        }
    }
}
