//! Loop analysis: for every DO loop, its bounds and iteration count, the classification of
//! the scalars it writes (private, reduction, induction, loop-carried), privatizable work
//! arrays, array dependences (kind, distance per level, source and sink lines) from the
//! dependence tests, and the verdict (`parallel`, `across`, `sequential`) with every blocker.

use crate::access::{Access, AccessCtx, CallSite, Summary};
use crate::affine::{linearize, linearize_with, Lin};
use crate::ast::*;
use crate::cfg::{self, Cfg, EdgeKind};
use crate::deptest::{self, Affine, DepProblem, DepResult, Dir, LoopRange, Subscript};
use crate::symsec::{Interval, RectSet, SymRect};
use crate::sema::UnitSema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Parallel,
    Across,
    Sequential,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Parallel => "parallel",
            Verdict::Across => "across",
            Verdict::Sequential => "sequential",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedOp {
    Sum,
    Product,
    Max,
    Min,
    And,
    Or,
    Eqv,
    Neqv,
    MaxLoc,
    MinLoc,
}

impl RedOp {
    pub fn as_str(&self) -> &'static str {
        match self {
            RedOp::Sum => "sum",
            RedOp::Product => "product",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::And => "and",
            RedOp::Or => "or",
            RedOp::Eqv => "eqv",
            RedOp::Neqv => "neqv",
            RedOp::MaxLoc => "maxloc",
            RedOp::MinLoc => "minloc",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Reduction {
    pub op: RedOp,
    pub var: Name,
    /// MAXLOC/MINLOC: the scalars that record where the extremum was found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loc: Vec<Name>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    Flow,
    Anti,
    Output,
}

impl DepKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Dependence {
    pub array: Name,
    pub kind: DepKind,
    /// Distance per loop level from this loop inward (None = not constant).
    pub distance: Vec<Option<i64>>,
    pub source_line: u32,
    pub sink_line: u32,
}

/// Stable blocker codes (see docs/analysis.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockerCode {
    Io,
    Stop,
    Exit,
    Call,
    Dep,
    Scalar,
    Alias,
    While,
    Unsupported,
    /// The user asserted the loop is sequential.
    User,
}

impl BlockerCode {
    pub fn as_str(&self) -> &'static str {
        match self {
            BlockerCode::Io => "io",
            BlockerCode::Stop => "stop",
            BlockerCode::Exit => "exit",
            BlockerCode::Call => "call",
            BlockerCode::Dep => "dep",
            BlockerCode::Scalar => "scalar",
            BlockerCode::Alias => "alias",
            BlockerCode::While => "while",
            BlockerCode::Unsupported => "unsupported",
            BlockerCode::User => "user",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Blocker {
    pub code: BlockerCode,
    pub message: String,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoopInfo {
    #[serde(skip)]
    pub header: StmtId,
    pub line: u32,
    pub end_line: u32,
    /// Loop variable (empty for DO WHILE).
    pub var: Name,
    /// 1 = outermost loop of its unit.
    pub depth: u32,
    pub lower: Option<i64>,
    pub upper: Option<i64>,
    pub step: Option<i64>,
    pub trip_count: Option<u64>,
    /// When the trip count is not known: at most this many iterations, from the declared
    /// extents of the arrays the loop variable indexes (`DO K = 1, GP(3)-2` over
    /// `U(5,0:11,0:11,0:11)` runs at most 12 times), or, where `trip_counted`, the iterations
    /// per iteration of the enclosing loop that executing the procedure with its calls'
    /// values counts (`concrete::trip_estimates`). Cost estimates use it.
    pub trip_estimate: Option<u64>,
    /// `trip_estimate` was counted by executing the procedure, not bounded by extents.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trip_counted: bool,
    pub verdict: Verdict,
    pub private: Vec<Name>,
    /// Private arrays an iteration may read where it wrote nothing first (elements no
    /// iteration writes): each private copy must start with the values from before the loop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_in: Vec<Name>,
    pub reductions: Vec<Reduction>,
    pub dependences: Vec<Dependence>,
    pub blockers: Vec<Blocker>,
    /// The user refinements (database overrides or `!$SPF` hints) that changed this result.
    pub overridden_by: Vec<String>,
    /// Those refinements as the `!$SPF` hints that say as much (`PARALLEL`, or what the user
    /// called private and reductions: `ANALYSIS(PRIVATE(SCR))`), for the generated program.
    #[serde(skip)]
    pub assertions: Vec<crate::directives::SpfHint>,
    /// Index (in the unit's loop list) of the enclosing loop.
    #[serde(skip)]
    pub parent: Option<usize>,
    /// A sequential loop that is parallel whenever tests the program can make where the loop
    /// starts hold (NPB SP's `X_SOLVE` sweep when the grid has 3 points or more): the
    /// generated program may run it in parallel under those tests and as it is otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versioned: Option<Versioned>,
    /// What the report says beside the verdict (the value variable an extremum search that
    /// records only the index is given, `crate::search`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What makes a loop parallel at run time: every condition of `when` (Fortran logical
/// expressions over variables the unit never assigns, evaluated where the loop starts), and
/// the private variables and reductions it then has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Versioned {
    pub when: Vec<String>,
    pub private: Vec<Name>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_in: Vec<Name>,
    pub reductions: Vec<Reduction>,
    /// The tests as linear forms `d` meaning `d >= 0` (what `when` writes after the flags).
    #[serde(skip)]
    pub tests: Vec<Lin>,
    /// Logical variables the loop never assigns, with the value each must have (`when`
    /// starts with them: `.NOT. TIMERS_ENABLED`): what runs only under the other value is
    /// left out of the loop then.
    #[serde(skip)]
    pub flags: Vec<(Name, bool)>,
    /// Scalars carried from one iteration to the next only by statements that update them
    /// from themselves and values the loop does not change (NPB MG's seed `X0` of
    /// `RDUMMY = RANDLC(X0, A2)`): the generated program computes their value at the start
    /// of every iteration first, in a sequential copy of the loop made of those statements
    /// alone, and the parallel loop starts each iteration from it (`Recurrence`). Empty:
    /// none. `when` may then be empty: the loop is parallel after that split, without tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Recurrence>,
}

/// `X0 is computed ahead` / `X0, X1 are computed ahead`: the notes' and the dialog's words
/// for a recurrence's scalars (upper-case names).
pub fn computed_ahead(vars: &[String]) -> String {
    format!("{} {} computed ahead", vars.join(", "), if vars.len() == 1 { "is" } else { "are" })
}

/// A scalar recurrence a loop's iterations can start from once it is computed ahead
/// (`Versioned::split`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recurrence {
    /// The scalars it carries, with their declared types (`DOUBLE PRECISION`).
    pub vars: Vec<(Name, String)>,
    /// The lines of its statements, directly in the loop's body, in order.
    pub lines: Vec<u32>,
    #[serde(skip)]
    pub stmts: Vec<StmtId>,
}

impl Versioned {
    /// Whether an IF's condition implies every test: a conjunction (`.AND.`) that has, for
    /// each test `d >= 0`, a comparison `a .GE. b` (or `.LE.`, `.GT.`) with `a - b` the same
    /// form but for a constant no smaller (`N .GE. 4` implies `N .GE. 3`). `sapfor verify`
    /// trusts a PARALLEL directive on such a loop inside `IF (tests) THEN`.
    pub fn implied_by(&self, cond: &Expr, sema: &UnitSema) -> bool {
        fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            match e {
                Expr::Binary(crate::ast::BinOp::And, a, b) => {
                    conjuncts(a, out);
                    conjuncts(b, out);
                }
                other => out.push(other),
            }
        }
        let mut cs = vec![];
        conjuncts(cond, &mut cs);
        // (array elements with constant subscripts are named as `Analyzer::lin` names them)
        let opaque = |e: &Expr| match e {
            Expr::Ref(n, args) if sema.is_array(n) && args.iter().all(|a| matches!(a, Arg::Expr(Expr::Int(_)))) => Some(format!("{e:?}")),
            _ => None,
        };
        let lin = |e: &Expr| linearize_with(e, &const_lin(sema), &opaque);
        let diff = |a: &Expr, b: &Expr, less: i64| lin(a)?.add(&lin(b)?, -1)?.add(&Lin::constant(less), -1);
        let have: Vec<Lin> = cs
            .iter()
            .filter_map(|c| match c {
                Expr::Binary(crate::ast::BinOp::Ge, a, b) => diff(a, b, 0),
                Expr::Binary(crate::ast::BinOp::Le, a, b) => diff(b, a, 0),
                Expr::Binary(crate::ast::BinOp::Gt, a, b) => diff(a, b, 1),
                Expr::Binary(crate::ast::BinOp::Lt, a, b) => diff(b, a, 1),
                _ => None,
            })
            .collect();
        let flag = |x: &Name, v: bool| {
            cs.iter().any(|c| match c {
                Expr::Var(y) => v && y == x,
                Expr::Unary(crate::ast::UnOp::Not, inner) => !v && matches!(&**inner, Expr::Var(y) if y == x),
                _ => false,
            })
        };
        self.flags.iter().all(|(x, v)| flag(x, *v)) && self.tests.iter().all(|f| have.iter().any(|g| g.terms == f.terms && g.constant <= f.constant))
    }
}

/// A statement of a loop body with the loops (inside the analyzed loop) that enclose it.
struct BodyStmt<'a> {
    st: &'a Stmt,
    /// Loop headers from the analyzed loop (first) down to the innermost enclosing one.
    nest: Vec<StmtId>,
}

/// Iteration spaces up to this many points are enumerated exactly by the dependence test.
const ENUM_POINTS: u128 = 4096;

pub struct UnitLoops {
    pub loops: Vec<LoopInfo>,
}

/// Analyze every loop of a unit.
pub fn analyze_unit(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    refinements: &BTreeMap<u32, LoopRefinement>,
    flow: &crate::flow::CommonFlow,
    bound_extents: &BTreeMap<Name, Vec<Option<i64>>>,
    quiet: &crate::interproc::Quiet,
) -> UnitLoops {
    let fine = cfg::build_with_flow(unit, sema, summaries, false, flow);
    let targets = cfg::jump_sources(unit);
    let (acc, acc_if) = access_tables(unit, sema, summaries);
    // the tables under quiet flags, where the unit calls a procedure they change
    let guarded = acc.iter().flat_map(|(_, c)| c).any(|c| quiet.summaries.get(&c.name).is_some_and(|s| !s.guards.is_empty()));
    let quiet_acc = guarded.then(|| access_tables(unit, sema, &quiet.summaries));
    let mut out = vec![];
    let cx = Analyzer {
        unit,
        sema,
        sums: std::cell::Cell::new(summaries),
        quiet: quiet_acc.as_ref().map(|(a, c)| QuietTables { summaries: &quiet.summaries, flags: &quiet.flags, acc: a, acc_if: c.as_deref() }),
        fine: Some(&fine),
        targets: &targets,
        refinements,
        acc: std::cell::Cell::new(&acc),
        acc_if: acc_if.as_deref(),
        written: acc.iter().flat_map(|(a, _)| a.iter().filter(|a| a.write).map(|a| a.name.clone())).collect(),
        assume: Default::default(),
        stable_only: Default::default(),
        strided: Default::default(),
        matrices: Default::default(),
        bound_extents,
    };
    cx.walk(&unit.body, 0, None, &mut vec![], &mut out);
    UnitLoops { loops: out }
}

/// What a procedure does to its arrays on every execution that returns: the elements it
/// surely writes (rectangles in its own names; none when control may leave the body other
/// than through its end, RETURN, STOP, GO TO..., or a jump target makes the walk forget), and
/// the arrays of which it may read an element it has not written itself first.
pub fn unit_must_writes(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    acc: &[(Vec<Access>, Vec<CallSite>)],
) -> Option<(BTreeMap<Name, RectSet>, BTreeSet<Name>)> {
    walker(unit, sema, summaries, acc, |an, targets| {
        let body = body_to_end(unit);
        // (with jumps, what is read first is still known: a statement jumped to forgets what was
        // written before it; what is surely written is not)
        let sure = targets.is_empty() && !an.leaves_early(body);
        an.matrices.replace(an.unit_matrices());
        let mut st = Exposure::default();
        an.expose_nodes(body, &mut st);
        Some((if sure { st.must_arr } else { BTreeMap::new() }, st.exposed_arr))
    })
}

/// A unit's body without the RETURN statements that end it (a RETURN that ends the body is
/// its end).
fn body_to_end(unit: &Unit) -> &[Node] {
    let mut body: &[Node] = &unit.body;
    while let [rest @ .., Node::Stmt(last)] = body {
        if !matches!(unit.stmt(*last).kind, StmtKind::Return) {
            break;
        }
        body = rest;
    }
    body
}

/// The arrays a unit may read before writing them (`unit_must_writes`'s second part) when the
/// coverage of its reads may take tests over the symbols `stable` (values the whole program
/// keeps), with those tests; None when that is not known.
pub fn unit_exposed_assuming(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    acc: &[(Vec<Access>, Vec<CallSite>)],
    stable: &BTreeSet<String>,
) -> Option<(BTreeSet<Name>, Vec<Lin>)> {
    walker(unit, sema, summaries, acc, |an, _| {
        let body = body_to_end(unit);
        *an.assume.borrow_mut() = Some(vec![]);
        *an.stable_only.borrow_mut() = Some(stable.clone());
        an.matrices.replace(an.unit_matrices());
        let mut st = Exposure::default();
        an.expose_nodes(body, &mut st);
        let tests = an.assume.borrow_mut().take().unwrap_or_default();
        Some((st.exposed_arr, tests))
    })
}

/// An analyzer of a whole unit without loop refinements or a statement CFG, for the walks of
/// `unit_must_writes` and `arrays_read_after`; `f` also gets the unit's jump targets.
fn walker<R>(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    acc: &[(Vec<Access>, Vec<CallSite>)],
    f: impl FnOnce(&Analyzer, &BTreeMap<u32, usize>) -> R,
) -> R {
    let targets = cfg::jump_sources(unit);
    let refinements = BTreeMap::new();
    let bound_extents = BTreeMap::new();
    let an = Analyzer {
        unit,
        sema,
        sums: std::cell::Cell::new(summaries),
        quiet: None,
        fine: None,
        targets: &targets,
        refinements: &refinements,
        acc: std::cell::Cell::new(acc),
        acc_if: None,
        written: acc.iter().flat_map(|(a, _)| a.iter().filter(|a| a.write).map(|a| a.name.clone())).collect(),
        assume: Default::default(),
        stable_only: Default::default(),
        strided: Default::default(),
        matrices: Default::default(),
        bound_extents: &bound_extents,
    };
    f(&an, &targets)
}

/// The arrays a unit's code after statement `at` may read before overwriting them (to the
/// unit's end, not beyond); None when that is not known (backward jumps).
pub fn arrays_read_after(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    acc: &[(Vec<Access>, Vec<CallSite>)],
    at: StmtId,
) -> Option<BTreeSet<Name>> {
    walker(unit, sema, summaries, acc, |an, _| an.exposed_after(at))
}

struct Analyzer<'a> {
    unit: &'a Unit,
    sema: &'a UnitSema,
    /// The procedures' summaries (`summaries()`): the quiet ones while a loop is analyzed
    /// again under quiet flags (`versioned`).
    sums: std::cell::Cell<&'a BTreeMap<Name, Summary>>,
    /// Where the unit calls procedures that quiet flags change (`interproc::Quiet`): the
    /// summaries and access tables under them.
    quiet: Option<QuietTables<'a>>,
    /// The statement-level CFG (None for the whole-unit pass of `unit_must_writes`, which
    /// asks nothing of it).
    fine: Option<&'a Cfg>,
    /// Jump targets, with the number of jumps to each.
    targets: &'a BTreeMap<u32, usize>,
    refinements: &'a BTreeMap<u32, LoopRefinement>,
    /// Accesses and call sites of every statement, by statement id (computed once): the
    /// table without conditional accesses, but `acc_if` while a loop is analyzed again for a
    /// run-time test.
    acc: std::cell::Cell<&'a [(Vec<Access>, Vec<CallSite>)]>,
    /// The table with accesses known only under conditions (`Access::needs`), where there
    /// are some.
    acc_if: Option<&'a [(Vec<Access>, Vec<CallSite>)]>,
    /// Every name some statement of the unit assigns (through calls too).
    written: BTreeSet<Name>,
    /// While a loop is analyzed again for a run-time test (`versioned`): what the coverage
    /// of reads needed so far, as forms `d` meaning `d >= 0` over names the unit never
    /// changes. None otherwise: coverage is shown for every value of the symbols, or not.
    assume: std::cell::RefCell<Option<Vec<Lin>>>,
    /// While `assume` is set for a whole unit's walk (`unit_exposed_assuming`): the only
    /// symbols tests may use.
    stable_only: std::cell::RefCell<Option<BTreeSet<String>>>,
    /// While a loop body's exposure is worked out (`exposure`): arrays whose subscripts in
    /// some dimension are all `c*v + r` with the body's loop variables' coefficients multiples
    /// of `c` and the rest `r0` plus multiples of c (MG's `X1(2*J1-D1-1)`, read at `X1(I1+1)`
    /// with `I1 = 2*J1-D1`), by dimension: (c, r0). Sections of them are in the coordinate
    /// `(i - r0) / c` then, so that every c-th element is a dense range.
    strided: std::cell::RefCell<BTreeMap<Name, Vec<Option<(i64, Lin)>>>>,
    /// While a loop body's exposure is worked out (or a whole unit's, `unit_matrices`):
    /// one-dimensional arrays laid out by hand as matrices or higher arrays there
    /// (`split_matrix`), with their strides: their sections are in the parts `(f0, f1, ...)`
    /// of `A(f0 + S1*(f1 + ...))`.
    matrices: std::cell::RefCell<BTreeMap<Name, Vec<Lin>>>,
    /// Dummy arrays every call binds to one array (`Program::bindings`): that array's
    /// declared extents, by dimension, where the dummy's own are not known (`V(LDX, LDY, *)`
    /// bound to `RSD(5,12,12,12)`). Trip estimates use them.
    bound_extents: &'a BTreeMap<Name, Vec<Option<i64>>>,
}

/// A unit's accesses when the program's quiet flags have their values (`interproc::Quiet`).
struct QuietTables<'a> {
    summaries: &'a BTreeMap<Name, Summary>,
    flags: &'a BTreeMap<(Name, usize), bool>,
    acc: &'a [(Vec<Access>, Vec<CallSite>)],
    acc_if: Option<&'a [(Vec<Access>, Vec<CallSite>)]>,
}

/// The accesses of every statement of a unit as the loop analysis sees them (by statement
/// id): conditions (`Access::needs`) that the code before an access shows to hold are
/// discharged, so the access is exact; under the others it is "somewhere in the array".
pub fn known_accesses(unit: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>) -> crate::interproc::StmtTable {
    access_tables(unit, sema, summaries).0
}

/// A statement table, and the same without conditional accesses (a copy only where there
/// are some): (the plain table, the conditional one where it differs). Where calls reach
/// sections, `discharged` refines the table first.
fn access_tables(unit: &Unit, sema: &UnitSema, summaries: &BTreeMap<Name, Summary>) -> (Vec<(Vec<Access>, Vec<CallSite>)>, Option<Vec<(Vec<Access>, Vec<CallSite>)>>) {
    let acc_if = crate::interproc::stmt_accesses_conditional(unit, sema, summaries);
    // (conditions the code before an access shows to hold are no conditions; sections of calls
    // that end at scalars the unit assigns are widened to what the code shows)
    let conditional = acc_if.iter().any(|(a, _)| a.iter().any(|x| !x.needs.is_empty()));
    let sections = acc_if.iter().flat_map(|(a, _)| a).any(|a| a.via_call.is_some() && a.subs.iter().flatten().any(|s| matches!(s, Arg::Range(Some(l), Some(h), None) if !matches!((l, h), (Expr::Int(_), Expr::Int(_))))));
    if conditional || sections {
        discharged(unit, sema, summaries, acc_if)
    } else {
        (acc_if, None)
    }
}

/// A conditional statement table (`access_tables`) with its calls' sections widened
/// (`widen_call_sections`) and without the conditions that hold where their statements run
/// (`Analyzer::holds_at`): the plain table and the conditional one (None when no condition
/// is left).
#[allow(clippy::type_complexity)]
fn discharged(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    mut table: Vec<(Vec<Access>, Vec<CallSite>)>,
) -> (Vec<(Vec<Access>, Vec<CallSite>)>, Option<Vec<(Vec<Access>, Vec<CallSite>)>>) {
    // (one walk over the table: the conditions' walks read only which names statements
    // assign, which widening leaves alone)
    let (wider, kept) = walker(unit, sema, summaries, &table, |an, _| (widened_call_sections(an, &table), an.conditions_left(&table)));
    for (si, ai, k, arg) in wider {
        if let Some(subs) = table[si].0[ai].subs.as_mut() {
            subs[k] = arg;
        }
    }
    for (si, ai, needs) in kept {
        table[si].0[ai].needs = needs;
    }
    if table.iter().any(|(a, _)| a.iter().any(|x| !x.needs.is_empty())) {
        let mut copy = table.clone();
        crate::interproc::unconditional(&mut copy);
        (copy, Some(table))
    } else {
        (table, None)
    }
}

/// The sections calls reach (`Access::via_call`) whose ends use scalars the unit assigns
/// (`A(1:LDA, JB:JE)` with `JE = MIN(JB + 7, N)`), widened to bounds over the loops' variables
/// and names the unit never changes where the code before shows them (`Analyzer::bound_at`):
/// `A(1:LDA, JB:JB+7)`, which another iteration of the loop over JB does not meet, as
/// (statement, access, dimension, new subscript). (What a call surely writes comes from its
/// own sections, `Effect::must_write`: a wider may-set claims nothing.)
fn widened_call_sections(an: &Analyzer, table: &[(Vec<Access>, Vec<CallSite>)]) -> Vec<(usize, usize, usize, Arg)> {
    // (a form over plain names as Fortran)
    let render = |l: &Lin| -> Option<Expr> {
        let terms = l.terms.iter().map(|(v, c)| render_symbol(v).filter(|r| *r == v.to_ascii_uppercase()).map(|_| (*c, Expr::Var(v.clone())))).collect::<Option<Vec<_>>>()?;
        Some(crate::interproc::linear_sum(terms, l.constant))
    };
    let unstable = |e: &Expr| an.lin(e).is_some_and(|l| l.vars().any(|v| an.written.contains(v) && !an.unchanged_in_unit(&Expr::Var(v.clone()))));
    let mut out = vec![];
    for (si, (accs, _)) in table.iter().enumerate() {
        let at = StmtId(si as u32);
        for (ai, a) in accs.iter().enumerate().filter(|(_, a)| a.via_call.is_some()) {
            for (k, sub) in a.subs.iter().flatten().enumerate() {
                let Arg::Range(Some(lo), Some(hi), None) = sub else { continue };
                if !unstable(lo) && !unstable(hi) {
                    continue;
                }
                let lo2 = if unstable(lo) { an.bound_at(lo, at, false).and_then(|l| render(&l)) } else { Some(lo.clone()) };
                let hi2 = if unstable(hi) { an.bound_at(hi, at, true).and_then(|l| render(&l)) } else { Some(hi.clone()) };
                if let (Some(l), Some(h)) = (lo2, hi2) {
                    out.push((si, ai, k, Arg::Range(Some(l), Some(h), None)));
                }
            }
        }
    }
    out
}

/// Marks a refinement note whose assertion the analysis could not use.
pub const NOT_APPLIED: &str = "NOT applied";

/// What the user asserted about one loop (by the line of its DO statement).
#[derive(Clone, Debug, Default)]
pub struct LoopRefinement {
    /// Each assertion carries its description, reported with the results it changed.
    pub verdict: Option<(Verdict, String)>,
    pub private: BTreeMap<Name, String>,
    pub reductions: Vec<(RedOp, Name, String)>,
}

impl RedOp {
    pub fn parse(s: &str) -> Option<RedOp> {
        Some(match s.to_ascii_lowercase().as_str() {
            "sum" => RedOp::Sum,
            "product" => RedOp::Product,
            "max" => RedOp::Max,
            "min" => RedOp::Min,
            "and" => RedOp::And,
            "or" => RedOp::Or,
            "eqv" => RedOp::Eqv,
            "neqv" => RedOp::Neqv,
            "maxloc" => RedOp::MaxLoc,
            "minloc" => RedOp::MinLoc,
            _ => return None,
        })
    }
}

fn const_lin(sema: &UnitSema) -> impl Fn(&str) -> Option<i64> + '_ {
    move |n: &str| sema.param(n).and_then(|c| c.as_int())
}

impl<'a> Analyzer<'a> {
    fn summaries(&self) -> &'a BTreeMap<Name, Summary> {
        self.sums.get()
    }

    fn walk(
        &self,
        nodes: &[Node],
        depth: u32,
        parent: Option<usize>,
        outer: &mut Vec<StmtId>,
        out: &mut Vec<LoopInfo>,
    ) {
        for n in nodes {
            match n {
                Node::Do { header, body, end } => {
                    let idx = out.len();
                    let mut info = self.analyze_loop(*header, body, *end, depth + 1, parent, outer);
                    // (a versioned loop is written twice as it is: no extremum search in it is
                    // written anew with a value variable, `crate::search`)
                    info.versioned = self.versioned(&info, *header, body, *end, depth + 1, parent, outer).filter(|v| {
                        let values: Vec<Name> = crate::search::searches_in(self.unit, self.sema, *header, body).into_iter().map(|s| s.value).collect();
                        !v.reductions.iter().any(|r| values.contains(&r.var))
                    });
                    out.push(info);
                    // Only a chain of counted DO loops gives outer levels to the dependence test.
                    let counted = matches!(self.unit.stmt(*header).kind, StmtKind::Do { .. });
                    let saved = std::mem::take(outer);
                    if counted {
                        outer.extend(saved.iter().copied());
                        outer.push(*header);
                    }
                    self.walk(body, depth + 1, Some(idx), outer, out);
                    *outer = saved;
                }
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        self.walk(b, depth, parent, outer, out);
                    }
                }
                Node::Stmt(_) => {}
            }
        }
    }

    /// A sequential loop analyzed again, taking as true what reads of work arrays need to be
    /// covered (`covers`): when it is then parallel, the tests that makes (see `Versioned`).
    /// Only for loops whose blockers are all dependences or calls, without the user's verdict.
    #[allow(clippy::too_many_arguments)]
    fn versioned(
        &self,
        info: &LoopInfo,
        header: StmtId,
        body: &[Node],
        end: Option<StmtId>,
        depth: u32,
        parent: Option<usize>,
        outer: &[StmtId],
    ) -> Option<Versioned> {
        let fixable = |b: &Blocker| matches!(b.code, BlockerCode::Dep | BlockerCode::Call | BlockerCode::Io | BlockerCode::Scalar);
        if info.verdict != Verdict::Sequential
            || info.var.is_empty()
            || info.blockers.is_empty()
            || !info.blockers.iter().all(fixable)
            || self.refinements.get(&info.line).is_some_and(|r| r.verdict.is_some())
        {
            return None;
        }
        // blockers under `IF (FLAG)` on a logical the loop never changes (NPB EP's `IF
        // (TIMERS_ENABLED) CALL TIMER_START(3)`): the loop is analyzed without those
        // statements, taking the flag to have the value that skips them
        let mut flags: Vec<(Name, bool)> = vec![];
        let pruned = self.without_guarded(info, body, &mut flags)?;
        let body = pruned.as_deref().unwrap_or(body);
        // calls of procedures with statements under logical COMMON flags (NPB FT's
        // SWARZTRAUBER: `IF (TIMERS_ENABLED) CALL TIMER_START(4)`): the loop is analyzed with
        // their quiet summaries, the flags (by this unit's names) having the values that skip
        // those statements, when nothing in the loop then sets them
        let quiet = self.quiet.as_ref().filter(|_| info.blockers.iter().any(|b| b.code == BlockerCode::Call)).and_then(|q| {
            let mut keys: BTreeSet<(Name, usize)> = BTreeSet::new();
            for_each_stmt(self.unit, body, &mut |st| {
                for c in &q.acc[st.id.0 as usize].1 {
                    if let Some(s) = q.summaries.get(&c.name) {
                        keys.extend(s.guards.iter().cloned());
                    }
                }
            });
            let add = keys
                .iter()
                .map(|k| Some((self.sema.symbols.iter().find(|(_, s)| s.common.as_ref() == Some(k))?.0.clone(), *q.flags.get(k)?)))
                .collect::<Option<Vec<(Name, bool)>>>()?;
            let mut sets = false;
            for_each_stmt(self.unit, body, &mut |st| sets |= q.acc[st.id.0 as usize].0.iter().any(|a| a.write && add.iter().any(|(x, _)| *x == a.name)));
            (!add.is_empty() && !sets).then_some((q, add))
        });
        if pruned.is_none() && quiet.is_none() && info.blockers.iter().any(|b| b.code == BlockerCode::Io) {
            return None;
        }
        if let Some((_, add)) = &quiet {
            for (x, v) in add {
                match flags.iter().find(|(y, _)| y == x) {
                    Some((_, w)) if w != v => return None,
                    Some(_) => {}
                    None => flags.push((x.clone(), *v)),
                }
            }
        }
        // scalar recurrences computed ahead: the loop is analyzed without their statements
        let split = self.recurrence(header, body);
        if split.is_none() && info.blockers.iter().any(|b| b.code == BlockerCode::Scalar) {
            return None;
        }
        let unsplit: Vec<Node>;
        let body = match &split {
            Some((r, _)) => {
                unsplit = body.iter().filter(|n| !matches!(n, Node::Stmt(id) if r.stmts.contains(id))).cloned().collect();
                &unsplit[..]
            }
            None => body,
        };
        *self.assume.borrow_mut() = Some(vec![]);
        // (accesses through calls known only under conditions count as known, and the
        // conditions of those the body makes become tests)
        let (plain, plain_sums) = (self.acc.get(), self.summaries());
        let (table, table_if) = match &quiet {
            Some((q, _)) => {
                self.sums.set(q.summaries);
                (q.acc, q.acc_if)
            }
            None => (plain, self.acc_if),
        };
        self.acc.set(table_if.unwrap_or(table));
        let again = self.analyze_loop(header, body, end, depth, parent, outer);
        self.acc.set(plain);
        self.sums.set(plain_sums);
        let mut need = self.assume.borrow_mut().take().unwrap_or_default();
        if again.verdict != Verdict::Parallel {
            return None;
        }
        if let Some(t) = table_if {
            let mut known = true;
            for_each_stmt(self.unit, body, &mut |st| {
                for e in t[st.id.0 as usize].0.iter().flat_map(|a| &a.needs) {
                    match self.test_form(e, st.id) {
                        Some(f) => need.push(f),
                        // (a condition on variables the code sets, in terms of what it sets
                        // them from: `JB - 1 >= 0` in `DO JB = 1, N, NB` is `N - 1 >= 0`)
                        None => match self.lin(e).and_then(|f| self.testable_at(f, st.id)) {
                            Some(fs) => need.extend(fs),
                            None => known = false,
                        },
                    }
                }
            });
            if !known {
                return None;
            }
        }
        if need.is_empty() && flags.is_empty() && split.is_none() {
            return None;
        }
        // (the recurrence's scalars, and the others its statements set, are the iteration's
        // own in the parallel loop: it sets them first)
        let mut private = again.private;
        let split = split.map(|(r, dead)| {
            for v in r.vars.iter().map(|(v, _)| v).chain(&dead) {
                if !private.contains(v) {
                    private.push(v.clone());
                }
            }
            r
        });
        // the weakest form of each set of forms that differ by a constant is implied by the
        // strongest (`GP - 4 >= 0` gives `GP - 3 >= 0`)
        let mut kept: Vec<Lin> = vec![];
        for f in need {
            let c = f.constant;
            let same = |g: &Lin| g.terms == f.terms;
            match kept.iter_mut().find(|g| same(g)) {
                Some(g) => g.constant = g.constant.min(c),
                None => kept.push(f),
            }
        }
        let mut when: Vec<String> = flags.iter().map(|(x, v)| if *v { x.to_uppercase() } else { format!(".NOT. {}", x.to_uppercase()) }).collect();
        when.extend(kept.iter().map(render_condition).collect::<Option<Vec<String>>>()?);
        Some(Versioned { when, private, copy_in: again.copy_in, reductions: again.reductions, tests: kept, flags, split })
    }

    /// A scalar recurrence of the DO loop at `header` with body `body` that can be computed
    /// ahead (`Versioned::split`), and the other scalars its statements set: statements
    /// directly in the body (assignments and calls, every iteration runs them: nothing leaves
    /// the body early) that alone write some local scalars S, reading only S, the loop's
    /// variable and what the loop never changes, writing besides S only scalars nothing in
    /// the loop reads and nothing after it uses, and calling only procedures without I/O,
    /// STOP, SAVEd state or unknown callees; some other statement reads S, and the rest of
    /// the body has a loop or a call (work worth dividing beside the recurrence). The parallel loop
    /// keeps the statements (they update the iteration's own copy of S from the value it
    /// starts with), so every statement sees the values it sees in the sequential loop. The loop's step is
    /// 1 and nothing in it changes what its bounds use.
    fn recurrence(&self, header: StmtId, body: &[Node]) -> Option<(Recurrence, Vec<Name>)> {
        let StmtKind::Do { var, lo, hi, step, label } = &self.unit.stmt(header).kind else { return None };
        if step.as_ref().is_some_and(|e| self.sema.eval_int(e) != Some(1)) || self.leaves_early(body) {
            return None;
        }
        // (code after the loop runs right after its last iteration: no other loop ends on
        // its terminal statement)
        let shared = |l: u32| self.unit.stmts.iter().filter(|st| matches!(&st.kind, StmtKind::Do { label: Some(m), .. } | StmtKind::DoWhile { label: Some(m), .. } if *m == l)).count() > 1;
        if label.is_some_and(shared) {
            return None;
        }
        let acc = self.acc.get();
        let names = |n: &Node, write: bool| -> BTreeSet<Name> {
            let mut out = BTreeSet::new();
            for_each_stmt(self.unit, std::slice::from_ref(n), &mut |st| {
                out.extend(acc[st.id.0 as usize].0.iter().filter(|a| a.write == write).map(|a| a.name.clone()));
            });
            out
        };
        let reads: Vec<BTreeSet<Name>> = body.iter().map(|n| names(n, false)).collect();
        let writes: Vec<BTreeSet<Name>> = body.iter().map(|n| names(n, true)).collect();
        let written: BTreeSet<&Name> = writes.iter().flatten().collect();
        // (not a dummy argument, COMMON, SAVE or module variable: a procedure the loop calls
        // could reach the storage another way, and would not see the iteration's copy)
        let local_scalar = |v: &str| {
            v != var.as_str()
                && !self.sema.is_array(v)
                && !self.sema.visible_outside(v)
                && self.sema.symbol(v).is_some_and(|s| s.aliases.is_empty() && s.param.is_none() && !s.pointer && !s.external)
        };
        // candidate statements: assignments and calls directly in the body
        let simple = |n: &Node| match n {
            Node::Stmt(id) => matches!(self.unit.stmt(*id).kind, StmtKind::Assign { .. } | StmtKind::Call { .. }),
            _ => false,
        };
        // S: local scalars some candidate writes and that every writer of is a candidate,
        // carried (a statement reads one no later than the first that writes it: one that
        // does both, a call, is taken to read first)
        let mut vars: BTreeSet<Name> = BTreeSet::new();
        for (k, n) in body.iter().enumerate() {
            if !simple(n) {
                continue;
            }
            for v in &writes[k] {
                let only_here = body.iter().enumerate().all(|(j, m)| !writes[j].contains(v) || simple(m));
                let first_write = (0..body.len()).find(|&j| writes[j].contains(v)).unwrap_or(k);
                let carried = (0..=first_write).any(|j| reads[j].contains(v));
                if local_scalar(v) && only_here && carried {
                    vars.insert(v.clone());
                }
            }
        }
        if vars.is_empty() {
            return None;
        }
        // the recurrence's statements: (position in the body, statement)
        let rec: Vec<(usize, StmtId)> = body
            .iter()
            .enumerate()
            .filter_map(|(k, n)| match n {
                Node::Stmt(id) if simple(n) && writes[k].iter().any(|v| vars.contains(v)) => Some((k, *id)),
                _ => None,
            })
            .collect();
        let in_rec = |k: usize| rec.iter().any(|(j, _)| *j == k);
        let live = self.live_after(header);
        let mut dead: Vec<Name> = vec![];
        for &(k, id) in &rec {
            // what it calls: no I/O, STOP, SAVEd state, recursion or procedure without a body
            for c in &acc[id.0 as usize].1 {
                if c.unknown {
                    return None;
                }
                if let Some(sum) = self.summaries().get(&c.name) {
                    if sum.has_io || sum.has_stop || sum.keeps_state || sum.recursive || !sum.unknown_calls.is_empty() {
                        return None;
                    }
                }
            }
            for v in &writes[k] {
                if vars.contains(v) {
                    continue;
                }
                // another scalar it sets: nothing in the loop reads it, nothing after uses it
                if !local_scalar(v) || reads.iter().any(|r| r.contains(v)) || live.contains(v) {
                    return None;
                }
                if !dead.contains(v) {
                    dead.push(v.clone());
                }
            }
            if reads[k].iter().any(|v| v != var && !vars.contains(v) && written.contains(v)) {
                return None;
            }
        }
        // some other statement reads S (else the recurrence is all the loop does with S:
        // nothing to gain); wherever it stands, it sees what it sees in the sequential loop,
        // since the parallel loop runs the recurrence's statements too, from the value the
        // iteration starts with
        if !(0..body.len()).any(|k| !in_rec(k) && reads[k].iter().any(|v| vars.contains(v))) {
            return None;
        }
        // and the rest of the body does work worth dividing beside the recurrence, which the
        // split runs twice (a loop or a call: a prefix sum `S = S + A(I); C(I) = S` is all
        // recurrence)
        let heavy = |n: &Node| {
            let mut calls = false;
            for_each_stmt(self.unit, std::slice::from_ref(n), &mut |st| calls |= !acc[st.id.0 as usize].1.is_empty());
            matches!(n, Node::Do { .. }) || calls
        };
        if !(0..body.len()).any(|k| !in_rec(k) && heavy(&body[k])) {
            return None;
        }
        // the bounds are the same for the copy of the loop
        if [lo, hi].iter().any(|e| written.iter().any(|v| mentions(e, v))) {
            return None;
        }
        let mut typed = vec![];
        for v in &vars {
            typed.push((v.clone(), crate::search::decl_of(self.sema, v)?));
        }
        // what the generator writes again must be writable (`generator::recurrence`): the
        // bounds as Fortran text, the statements and the DO statement on lines of their own in
        // the unit's file, the statements without labels
        if crate::search::expr_text(lo).is_none() || crate::search::expr_text(hi).is_none() {
            return None;
        }
        let alone = |st: &crate::ast::Stmt| st.span.file == self.unit.file && !self.unit.shares_a_line(st);
        let mut first_stmt = None;
        for_each_stmt(self.unit, &body[..1], &mut |st| first_stmt = first_stmt.or(Some(st.id)));
        let hs = self.unit.stmt(header);
        if !alone(hs) || !first_stmt.is_some_and(|f| alone(self.unit.stmt(f)) && self.unit.stmt(f).span.line > hs.span.end_line) {
            return None;
        }
        if rec.iter().any(|(_, id)| self.unit.stmt(*id).label.is_some() || !alone(self.unit.stmt(*id))) {
            return None;
        }
        let stmts: Vec<StmtId> = rec.iter().map(|(_, id)| *id).collect();
        let lines = stmts.iter().map(|id| self.unit.stmt(*id).span.line).collect();
        Some((Recurrence { vars: typed, lines, stmts }, dead))
    }

    /// Condition `e >= 0` where statement `at` runs as a form the program can test where a
    /// loop around it starts: over names the unit never changes (values set once before are
    /// substituted, `lin_at`). None when it is not, or is false.
    fn test_form(&self, e: &Expr, at: StmtId) -> Option<Lin> {
        let f = self.lin_at(e, at)?;
        let stable = self.stable_only.borrow();
        let ok = f.terms.iter().all(|(v, _)| !self.written.contains(v) && render_symbol(v).is_some() && stable.as_ref().is_none_or(|s| s.contains(v)));
        (ok && (!f.terms.is_empty() || f.constant >= 0)).then_some(f)
    }

    /// A loop body without the statements that blockers of `info` lie in (or calls, or I/O:
    /// one blocker stands for all the calls that write the same variable) and that run only
    /// under a logical test of one variable the loop never assigns (`IF (X) CALL T`, `IF
    /// (.NOT. X) THEN ... END IF`, either arm of a two-arm block IF), with the value each such
    /// variable must have for them to be skipped added to `flags`. Some(None) when there is
    /// no such statement; None when two tests want one variable both ways.
    fn without_guarded(&self, info: &LoopInfo, body: &[Node], flags: &mut Vec<(Name, bool)>) -> Option<Option<Vec<Node>>> {
        let lines: BTreeSet<u32> = info.blockers.iter().map(|b| b.line).collect();
        let mut written: BTreeSet<&str> = BTreeSet::new();
        for_each_stmt(self.unit, body, &mut |st| {
            written.extend(self.acc.get()[st.id.0 as usize].0.iter().filter(|a| a.write).map(|a| a.name.as_str()));
        });
        // `X` or `.NOT. X` on a plain logical scalar the loop never assigns: (X, the value that
        // makes it true); `skip`: a value of one such flag that makes the test false (`X`,
        // `.NOT. X`, or a conjunct of an `.AND.`: `IF (DEBUG .AND. K .LE. 3) WRITE ...` is
        // skipped when DEBUG is false)
        let accepts = |x: &Name| self.sema.symbol(x).is_some_and(crate::interproc::plain_logical) && !written.contains(x.as_str());
        let guard = |e: &Expr| flag_test(e).filter(|(x, _)| accepts(x)).map(|(x, v)| (x.clone(), v));
        let skip = |e: &Expr| crate::interproc::skipping_value(e, &accepts).map(|(x, v)| (x.clone(), v));
        let blocked = |nodes: &[Node]| {
            let mut hit = false;
            for_each_stmt(self.unit, nodes, &mut |st| {
                hit |= (st.span.line..=st.span.end_line).any(|l| lines.contains(&l))
                    || !self.acc.get()[st.id.0 as usize].1.is_empty()
                    || matches!(st.kind.action(), StmtKind::Io { .. })
            });
            hit
        };
        let mut conflict = false;
        let mut take = |flags: &mut Vec<(Name, bool)>, x: Name, v: bool| match flags.iter().find(|(y, _)| *y == x) {
            Some((_, w)) => conflict |= *w != v,
            None => flags.push((x, v)),
        };
        type Test<'t> = &'t dyn Fn(&Expr) -> Option<(Name, bool)>;
        #[allow(clippy::too_many_arguments)]
        fn go(
            an: &Analyzer,
            nodes: &[Node],
            guard: Test,
            skip: Test,
            blocked: &dyn Fn(&[Node]) -> bool,
            take: &mut dyn FnMut(&mut Vec<(Name, bool)>, Name, bool),
            flags: &mut Vec<(Name, bool)>,
        ) -> Vec<Node> {
            let mut out = vec![];
            for n in nodes {
                match n {
                    Node::Stmt(id) => {
                        if let StmtKind::LogicalIf(c, _) = &an.unit.stmt(*id).kind {
                            if let Some((x, v)) = skip(c).filter(|_| blocked(std::slice::from_ref(n))) {
                                take(flags, x, v);
                                continue;
                            }
                        }
                        out.push(n.clone());
                    }
                    Node::Do { header, body, end } => out.push(Node::Do { header: *header, body: go(an, body, guard, skip, blocked, take, flags), end: *end }),
                    Node::If { arms, end } => {
                        let cond = if_else_test(an.unit, arms);
                        let empty = vec![];
                        let other = arms.get(1).map_or(&empty, |(_, b)| b);
                        match (cond.and_then(skip), cond.and_then(guard)) {
                            (Some((x, v)), _) if blocked(&arms[0].1) && !blocked(other) => {
                                take(flags, x, v);
                                out.extend(go(an, other, guard, skip, blocked, take, flags));
                            }
                            (_, Some((x, v))) if arms.len() == 2 && blocked(other) && !blocked(&arms[0].1) => {
                                take(flags, x, v);
                                out.extend(go(an, &arms[0].1, guard, skip, blocked, take, flags));
                            }
                            _ => out.push(Node::If { arms: arms.iter().map(|(s, b)| (*s, go(an, b, guard, skip, blocked, take, flags))).collect(), end: *end }),
                        }
                    }
                }
            }
            out
        }
        let before = flags.len();
        let pruned = go(self, body, &guard, &skip, &blocked, &mut take, flags);
        if conflict {
            return None;
        }
        Some((flags.len() > before).then_some(pruned))
    }

    fn body_stmts<'b>(
        &'b self,
        header: StmtId,
        body: &'b [Node],
        end: Option<StmtId>,
    ) -> Vec<BodyStmt<'b>> {
        fn go<'b>(
            u: &'b Unit,
            nodes: &'b [Node],
            nest: &mut Vec<StmtId>,
            out: &mut Vec<BodyStmt<'b>>,
        ) {
            for n in nodes {
                match n {
                    Node::Stmt(id) => out.push(BodyStmt {
                        st: u.stmt(*id),
                        nest: nest.clone(),
                    }),
                    Node::Do { header, body, end } => {
                        out.push(BodyStmt {
                            st: u.stmt(*header),
                            nest: nest.clone(),
                        });
                        nest.push(*header);
                        go(u, body, nest, out);
                        if let Some(e) = end {
                            out.push(BodyStmt {
                                st: u.stmt(*e),
                                nest: nest.clone(),
                            });
                        }
                        nest.pop();
                    }
                    Node::If { arms, end } => {
                        for (h, b) in arms {
                            out.push(BodyStmt {
                                st: u.stmt(*h),
                                nest: nest.clone(),
                            });
                            go(u, b, nest, out);
                        }
                        if let Some(e) = end {
                            out.push(BodyStmt {
                                st: u.stmt(*e),
                                nest: nest.clone(),
                            });
                        }
                    }
                }
            }
        }
        let mut v = vec![];
        let mut nest = vec![header];
        go(self.unit, body, &mut nest, &mut v);
        if let Some(e) = end {
            v.push(BodyStmt {
                st: self.unit.stmt(e),
                nest: vec![header],
            });
        }
        v
    }

    fn analyze_loop(
        &self,
        header: StmtId,
        body: &[Node],
        end: Option<StmtId>,
        depth: u32,
        parent: Option<usize>,
        outer: &[StmtId],
    ) -> LoopInfo {
        let hs = self.unit.stmt(header);
        let mut end_line = end
            .map(|e| self.unit.stmt(e).span.end_line)
            .unwrap_or(hs.span.end_line);
        for_each_stmt(self.unit, body, &mut |s| {
            end_line = end_line.max(s.span.end_line)
        });
        let mut info = LoopInfo {
            header,
            line: hs.span.line,
            end_line,
            var: String::new(),
            depth,
            lower: None,
            upper: None,
            step: None,
            trip_count: None,
            trip_estimate: None,
            trip_counted: false,
            verdict: Verdict::Sequential,
            private: vec![],
            copy_in: vec![],
            reductions: vec![],
            dependences: vec![],
            blockers: vec![],
            overridden_by: vec![],
            assertions: vec![],
            parent,
            versioned: None,
            notes: vec![],
        };
        let (var, lo, hi, step) = match &hs.kind {
            StmtKind::Do {
                var, lo, hi, step, ..
            } => (var.clone(), lo, hi, step.as_ref()),
            k => {
                let message = if matches!(k, StmtKind::DoWhile { concurrent: true, .. }) {
                    "DO CONCURRENT loop: not analyzed yet (sapfor keeps it as it is, sequential)"
                } else {
                    "DO WHILE loop: the number of iterations is not known when the loop starts"
                };
                info.blockers.push(Blocker {
                    code: BlockerCode::While,
                    message: message.into(),
                    line: hs.span.line,
                });
                return info;
            }
        };
        info.var = var.clone();
        // a bound may be a scalar set to a constant before the loop (NPB EP's `np = nn`,
        // then `do k = 1, np`): its value where the DO statement reads it
        info.lower = self.sema.eval_int(lo).or_else(|| self.lin_at(lo, header)?.as_const());
        info.upper = self.sema.eval_int(hi).or_else(|| self.lin_at(hi, header)?.as_const());
        info.step = match step {
            None => Some(1),
            Some(s) => self.sema.eval_int(s),
        };
        if let (Some(l), Some(h), Some(s)) = (info.lower, info.upper, info.step) {
            if s != 0 {
                info.trip_count = Some(((h - l + s) / s).max(0) as u64);
            }
        }
        let stmts = self.body_stmts(header, body, end);
        let mut accesses: Vec<(&Access, usize)> = vec![];
        let mut calls: Vec<CallSite> = vec![];
        // Index variables: this loop's and the inner loops'; implied-DO variables.
        let mut index_vars: BTreeSet<Name> = BTreeSet::new();
        index_vars.insert(var.clone());
        for (k, bs) in stmts.iter().enumerate() {
            let (acc, c) = &self.acc.get()[bs.st.id.0 as usize];
            calls.extend(c.iter().cloned());
            if let StmtKind::Do { var, .. } = &bs.st.kind {
                index_vars.insert(var.clone());
            }
            for a in acc {
                for (v, _, _) in &a.implied {
                    index_vars.insert(v.clone());
                }
            }
            accesses.extend(acc.iter().map(|a| (a, k)));
        }
        if info.trip_count.is_none() {
            info.trip_estimate = self.trip_estimate(&var, info.step, &accesses);
            // compressed rows `DO K = P(J), P(J+1) - 1`: the rows share those elements
            if let (Some(t), Some(rows)) = (info.trip_estimate, self.csr_rows(lo, hi)) {
                info.trip_estimate = Some((t / rows).max(1));
            }
        }
        // Also the loop's own header: its bounds are read once, not per iteration.
        self.control_blockers(&stmts, body, &mut info);
        self.call_blockers(&calls, &mut info);

        // Scalars.
        let written_scalars: BTreeSet<Name> = accesses
            .iter()
            .filter(|(a, _)| {
                a.write
                    && !index_vars.contains(&a.name)
                    && !self.sema.is_array(&a.name)
                    && !a.name.starts_with('/')
            })
            .map(|(a, _)| a.name.clone())
            .collect();
        let (exposed, must_arrays_ok, copy_in, exposed_at) = self.exposure(body, &info.var);
        let live_after = self.live_after(header);
        // extremum searches that keep the last of equal values: (extremum, locations, line)
        let mut last_wins = vec![];
        let red = self.reductions(header, &stmts, body, &written_scalars, &accesses, &mut last_wins, &mut info.notes);
        let loc_vars: BTreeSet<Name> = red.iter().flat_map(|r| r.loc.iter().cloned()).collect();
        let refine = self
            .refinements
            .get(&info.line)
            .cloned()
            .unwrap_or_default();
        let mut used_notes: BTreeSet<String> = BTreeSet::new();
        for v in &written_scalars {
            if let Some(note) = refine.private.get(v) {
                if let Some(r) = red.iter().find(|r| &r.var == v || r.loc.contains(v)) {
                    used_notes.insert(format!(
                        "{note}: {NOT_APPLIED}: {} is a {} reduction of the loop (its value is combined after it)",
                        v.to_uppercase(),
                        r.op.as_str()
                    ));
                    continue;
                }
                info.private.push(v.clone());
                let anyway = !exposed.contains(v)
                    && !live_after.contains(v)
                    && !accesses
                        .iter()
                        .any(|(a, _)| &a.name == v && a.via_call.is_some());
                if !anyway {
                    used_notes.insert(note.clone());
                }
                continue;
            }
            if let Some((op, _, note)) = refine.reductions.iter().find(|(_, n, _)| n == v) {
                info.reductions.push(Reduction {
                    op: *op,
                    var: v.clone(),
                    loc: vec![],
                });
                used_notes.insert(note.clone());
                continue;
            }
            let line_of = |w: bool| {
                accesses
                    .iter()
                    .find(|(a, _)| &a.name == v && a.write == w)
                    .map(|(a, _)| a.line)
                    .unwrap_or(info.line)
            };
            // A module's variable this unit does not declare: its reads elsewhere in the unit
            // look like calls of an unknown function, so nothing here can show it private
            if let Some(m) = self.sema.module_vars.get(v) {
                info.blockers.push(Blocker {
                    code: BlockerCode::Call,
                    message: format!(
                        "{} at line {} is a variable of module {} (USE {}): variables of modules are not analyzed yet",
                        v.to_uppercase(),
                        line_of(true),
                        m.to_uppercase(),
                        m.to_uppercase()
                    ),
                    line: line_of(true),
                });
                continue;
            }
            // A call that updates a local scalar the iteration has already set (`X = S(K);
            // CALL STEP(X)`) works on this iteration's value: the scalar can be private. Not
            // for storage the callee might also reach another way (COMMON, a dummy argument,
            // EQUIVALENCE, SAVE, a module or host variable).
            let plain_local = !self.sema.visible_outside(v) && self.sema.symbol(v).is_some_and(|s| s.aliases.is_empty());
            if let Some((a, _)) = accesses
                .iter()
                .find(|(a, _)| &a.name == v && a.write && a.via_call.is_some())
                .filter(|_| !plain_local || exposed.contains(v))
            {
                info.blockers.push(call_writes(a, &format!("{}, which other iterations also use", v.to_uppercase())));
                continue;
            }
            if red.iter().any(|r| &r.var == v) || loc_vars.contains(v) {
                continue;
            }
            if let Some((m, ks, l)) = last_wins.iter().find(|(m, ks, _)| m == v || ks.contains(v)) {
                if m == v {
                    let ks: Vec<String> = ks.iter().map(|k| k.to_uppercase()).collect();
                    info.blockers.push(Blocker {
                        code: BlockerCode::Scalar,
                        message: format!(
                            "the search for the extremum {} at line {l} keeps the last of equal values in {} (.GE./.LE.): a combined MAXLOC/MINLOC keeps the first, so the loop stays sequential (with .GT./.LT. it would be a reduction)",
                            m.to_uppercase(),
                            ks.join(", ")
                        ),
                        line: *l,
                    });
                }
                continue;
            }
            if !exposed.contains(v) {
                if live_after.contains(v) {
                    info.blockers.push(Blocker { code: BlockerCode::Scalar, message: format!("{} is assigned in the loop (line {}) and its last value is used after the loop{}", v.to_uppercase(), line_of(true), if self.fine.is_some_and(|f| f.exit_live.contains(v)) { " (or after the procedure returns: a dummy argument, COMMON, SAVE, module or host variable)" } else { "" }), line: line_of(true) });
                } else {
                    info.private.push(v.clone());
                }
                continue;
            }
            let induction = stmts.iter().find_map(|bs| match &bs.st.kind {
                StmtKind::Assign {
                    lhs: Expr::Var(x),
                    rhs,
                } if x == v && is_induction_update(v, rhs, self.sema) => Some(bs.st.span.line),
                _ => None,
            });
            match induction {
                Some(l) => info.blockers.push(Blocker { code: BlockerCode::Scalar, message: format!("induction variable {} (incremented at line {l}) carries a value from one iteration to the next", v.to_uppercase()), line: l }),
                None => info.blockers.push(Blocker {
                    code: BlockerCode::Scalar,
                    message: format!("{} is read (line {}) before it is assigned in an iteration and assigned in the loop (line {}): its value flows between iterations", v.to_uppercase(), line_of(false), line_of(true)),
                    line: line_of(false),
                }),
            }
        }
        // COMMON blocks this unit does not declare, written by a called procedure (directly or
        // further down the call graph): every iteration changes the same storage.
        let mut hidden: BTreeSet<(&str, u32)> = BTreeSet::new();
        for (a, _) in &accesses {
            if let Some(block) = a.name.strip_prefix('/').and_then(|b| b.strip_suffix('/')) {
                if a.write && hidden.insert((block, a.line)) {
                    info.blockers.push(call_writes(
                        a,
                        &format!(
                            "COMMON /{}/, which {} does not declare: every iteration changes the same variables",
                            block.to_uppercase(),
                            self.unit.name.to_uppercase()
                        ),
                    ));
                }
            }
        }
        info.reductions.extend(red);
        info.reductions.sort();
        // Arrays: privatizable work arrays, aliasing, dependences.
        let arrays: BTreeSet<Name> = accesses
            .iter()
            .filter(|(a, _)| self.sema.is_array(&a.name))
            .map(|(a, _)| a.name.clone())
            .collect();
        let mut private_arrays = BTreeSet::new();
        // work arrays (written first in the text, indexed alike in every iteration) with a
        // read not shown inside what the iteration wrote before it: (line of that read,
        // whether `sapfor refine private` would do: no later code needs their last values)
        let mut uncovered: BTreeMap<Name, (u32, bool)> = BTreeMap::new();
        // arrays each iteration writes before it reads them, whose values after the loop
        // are used (private copies would lose them)
        let mut kept_after: BTreeSet<Name> = BTreeSet::new();
        let later: std::cell::OnceCell<UsedAfter> = std::cell::OnceCell::new();
        for x in arrays.iter() {
            if let Some(note) = refine.private.get(x) {
                private_arrays.insert(x.clone());
                info.private.push(x.clone());
                used_notes.insert(note.clone());
            }
        }
        for x in &arrays {
            let accs: Vec<&Access> = accesses
                .iter()
                .filter(|(a, _)| &a.name == x)
                .map(|(a, _)| *a)
                .collect();
            // (through calls too: what a call reads is checked against what was surely written
            // before it, unless the call defines the array, see `call_defines`; a callee may
            // reach the array through its COMMON block: each process has its own copy, and
            // threads one of the block each, THREADPRIVATE, see the runtime's converter)
            if !accs.iter().any(|a| a.write) {
                continue;
            }
            let fixed_var = |v: &Name| v != &var && (index_vars.contains(v) || !written_scalars.contains(v));
            let fixed = |e: &Expr, at: StmtId| match self.lin_at(e, at) {
                Some(l) => l.vars().all(fixed_var),
                // (a vector laid out by hand as a matrix, `A(f + S*g)`)
                None => crate::affine::split_strides(e, &const_lin(self.sema), &|n| !self.sema.is_array(n)).is_some_and(|(parts, strides)| {
                    strides.iter().all(|s| s.vars().all(fixed_var))
                        && parts.iter().all(|f| self.lin_at(&f.to_expr(), at).is_some_and(|f| f.vars().all(fixed_var)))
                }),
            };
            let invariant = accs.iter().all(|a| match &a.subs {
                None => a.via_call.is_some(),
                Some(subs) => subs.iter().all(|s| match s {
                    Arg::Range(lo, hi, st) if a.via_call.is_some() => {
                        [lo, hi, st].iter().all(|p| p.as_ref().is_none_or(|e| fixed(e, a.stmt)))
                    }
                    _ => s.expr().is_some_and(|e| fixed(e, a.stmt)),
                }),
            });
            // (only for candidates: the look after the loop scans the rest of the unit, once
            // for all of them; that walk alone: the name-level liveness at the exit of the
            // inner loop of a nest sharing its terminal label said dead an array the unit's
            // end keeps)
            let used_after = invariant && {
                let after = later.get_or_init(|| self.used_after(header));
                after.here(x) || (after.outlives(x) && !self.dead_at_exit_assuming(x))
            };
            if invariant && must_arrays_ok.contains(x) && used_after {
                kept_after.insert(x.clone());
            }
            if invariant && must_arrays_ok.contains(x) && !used_after {
                private_arrays.insert(x.clone());
                info.private.push(x.clone());
                if copy_in.contains(x) {
                    info.copy_in.push(x.clone());
                }
            } else if invariant {
                // a work array the iteration writes before it reads it (in the order of the
                // text) but for reads the analysis cannot show covered (NPB's UE read at
                // UE(2,M) after UE(0:GP(1)-1) was written): say which read, and when no later
                // code needs its last values, that the user may know better
                let first = accs.iter().map(|a| a.line).min();
                if first.is_some_and(|f| !accs.iter().any(|a| a.line == f && !a.write)) {
                    if let Some(l) = exposed_at.get(x) {
                        uncovered.insert(x.clone(), (*l, !used_after));
                    }
                }
            }
        }
        for x in &arrays {
            let sym = self.sema.symbol(x);
            let Some(sym) = sym else { continue };
            for al in &sym.aliases {
                let touched = accesses.iter().any(|(a, _)| &a.name == al);
                let writes = accesses
                    .iter()
                    .any(|(a, _)| (&a.name == al || &a.name == x) && a.write);
                if touched && writes && x < al {
                    let l = accesses
                        .iter()
                        .find(|(a, _)| &a.name == al || &a.name == x)
                        .map(|(a, _)| a.line)
                        .unwrap_or(info.line);
                    info.blockers.push(Blocker {
                        code: BlockerCode::Alias,
                        message: format!(
                            "{} and {} share storage (EQUIVALENCE) and are both used in the loop",
                            x.to_uppercase(),
                            al.to_uppercase()
                        ),
                        line: l,
                    });
                }
            }
        }
        // POINTER arrays may point into any TARGET or other pointer: when the loop uses a
        // pointer and another such array, and writes one of them, the two names may be one
        // storage (`q => a(2:n)`: `a(i) = q(i)` reads what the next iteration writes)
        let is_pointer = |x: &Name| self.sema.symbol(x).is_some_and(|s| s.pointer);
        let pointed: Vec<&Name> = arrays
            .iter()
            .filter(|x| self.sema.symbol(x).is_some_and(|s| s.pointer || s.target))
            .collect();
        let pointer = pointed.iter().copied().find(|x| is_pointer(x));
        let other = pointed.iter().copied().find(|x| Some(*x) != pointer);
        let written = accesses.iter().find(|(a, _)| a.write && pointed.contains(&&a.name));
        if let (Some(p), Some(other), Some((w, _))) = (pointer, other, written) {
            info.blockers.push(Blocker {
                code: BlockerCode::Alias,
                message: format!(
                    "{} is a POINTER and may point into {} ({}); both are used in the loop and {} is written",
                    p.to_uppercase(),
                    other.to_uppercase(),
                    if is_pointer(other) { "a POINTER" } else { "a TARGET" },
                    w.name.to_uppercase()
                ),
                line: w.line,
            });
        }
        // Array reductions: every statement of the loop that touches X updates one element
        // with the same operator (`RMS(M) = RMS(M) + D**2`, `Q(L) = Q(L) + 1`) and nothing
        // else reads it. Only when that carries a dependence between the loop's iterations is
        // X combined after the loop (not for loop M of `RMS(M)`, whose iterations update
        // different elements). An asserted reduction is taken as it is.
        let mut reduced = private_arrays.clone();
        let mut candidates: Vec<(Name, RedOp)> = vec![];
        for x in &arrays {
            if private_arrays.contains(x) {
                continue;
            }
            if let Some((op, _, note)) = refine.reductions.iter().find(|(_, n, _)| n == x) {
                if accesses.iter().any(|(a, _)| &a.name == x && a.write) {
                    info.reductions.push(Reduction { op: *op, var: x.clone(), loc: vec![] });
                    used_notes.insert(note.clone());
                    reduced.insert(x.clone());
                }
                continue;
            }
            if let Some(op) = self.array_reduction(&stmts, &accesses, x) {
                candidates.push((x.clone(), op));
            }
        }
        let before = info.blockers.len();
        self.dependences(
            outer,
            &stmts,
            &accesses,
            &arrays,
            &reduced,
            &written_scalars,
            &index_vars,
            &mut info,
        );
        // a candidate that carries a dependence (on its own: it is read nowhere else) is
        // combined instead: its dependences and its blocker go
        for (x, op) in candidates {
            let head = dep_blocker_head(&x);
            let mine = |b: &Blocker| b.code == BlockerCode::Dep && b.message.starts_with(&head);
            let carried = info.dependences.iter().any(|d| d.array == x) || info.blockers[before..].iter().any(mine);
            if carried {
                info.dependences.retain(|d| d.array != x);
                let kept: Vec<Blocker> = info.blockers.drain(before..).filter(|b| !mine(b)).collect();
                info.blockers.extend(kept);
                info.reductions.push(Reduction { op, var: x, loc: vec![] });
            }
        }
        info.reductions.sort();
        // say what would make a work array private, where that is all that blocks it
        for (x, (line, refine)) in &uncovered {
            let head = dep_blocker_head(x);
            for b in info.blockers.iter_mut().filter(|b| b.code == BlockerCode::Dep && b.message.starts_with(&head)) {
                b.message.push_str(&format!(
                    "; {X} is indexed alike in every iteration and written before it is read, but the read at line {line} is not shown inside what the iteration wrote before it (a bound or subscript the analysis cannot compare: for instance one that holds only on a large enough grid)",
                    X = x.to_uppercase()
                ));
                // (an uncovered read makes a COMMON array read where its unit starts, so live
                // where any unit ends: "used after" may stem from the same read)
                let and_after = if *refine { "" } else { " and no code after the loop reads the values it leaves" };
                b.message.push_str(&format!(
                    ": if each element an iteration reads of it was written earlier in the same iteration{and_after}, `sapfor refine private` on this loop with {} makes it private",
                    x.to_uppercase()
                ));
            }
        }
        for x in &kept_after {
            let head = dep_blocker_head(x);
            let after = later.get().expect("set where kept_after is");
            let out = if after.outlives(x) && !after.here(x) {
                "after the unit returns (another unit, or the next call, may read it first)"
            } else {
                "after the loop"
            };
            for b in info.blockers.iter_mut().filter(|b| b.code == BlockerCode::Dep && b.message.starts_with(&head)) {
                b.message.push_str(&format!(
                    "; every iteration writes what it reads of {} first, but what the last one leaves there may be read {out}: private copies would lose it",
                    x.to_uppercase()
                ));
            }
        }
        info.private.sort();
        info.private.dedup();
        info.blockers
            .sort_by(|a, b| (a.line, a.code, &a.message).cmp(&(b.line, b.code, &b.message)));
        info.blockers.dedup();
        info.verdict = if !info.blockers.is_empty() {
            Verdict::Sequential
        } else if !info.dependences.is_empty() {
            Verdict::Across
        } else {
            Verdict::Parallel
        };
        if let Some((v, note)) = &refine.verdict {
            let v = *v;
            if v != info.verdict {
                if v == Verdict::Parallel && !info.blockers.is_empty() {
                    let found: Vec<String> = info
                        .blockers
                        .iter()
                        .map(|b| format!("{}: {}", b.code.as_str(), b.message))
                        .collect();
                    used_notes.insert(format!(
                        "{note} (the analysis had found: {})",
                        found.join("; ")
                    ));
                    info.blockers.clear();
                } else {
                    used_notes.insert(note.clone());
                }
                if v == Verdict::Sequential {
                    info.blockers.push(Blocker {
                        code: BlockerCode::User,
                        message: "the user asserted that this loop is sequential".into(),
                        line: info.line,
                    });
                }
                info.verdict = v;
            }
        }
        // a refinement about a variable the loop does not assign changes nothing: say so
        // (`sapfor refine` then refuses to record it)
        for (v, note) in &refine.private {
            if !written_scalars.contains(v) && !arrays.contains(v) && !index_vars.contains(v) {
                used_notes.insert(format!("{note}: {NOT_APPLIED}: {} is not assigned in the loop", v.to_uppercase()));
            }
        }
        for (_, v, note) in &refine.reductions {
            if !written_scalars.contains(v) && !accesses.iter().any(|(a, _)| &a.name == v && a.write && self.sema.is_array(v)) {
                used_notes.insert(format!("{note}: {NOT_APPLIED}: {} is not assigned in the loop", v.to_uppercase()));
            }
        }
        // (what the user asserted, as hints: the verdict, else the private variables and
        // reductions whose notes stand)
        if let Some((Verdict::Parallel, note)) = &refine.verdict {
            if used_notes.iter().any(|n| n.starts_with(note.as_str())) {
                info.assertions.push(crate::directives::SpfHint::Parallel);
            }
        }
        if info.assertions.is_empty() {
            let stands = |note: &String| used_notes.contains(note);
            let private: Vec<String> = refine.private.iter().filter(|(_, n)| stands(n)).map(|(v, _)| v.to_ascii_lowercase()).collect();
            if !private.is_empty() {
                info.assertions.push(crate::directives::SpfHint::Private(private));
            }
            let reductions: Vec<crate::directives::Reduction> = refine
                .reductions
                .iter()
                .filter(|(_, _, n)| stands(n))
                .filter_map(|(op, v, _)| Some(crate::directives::Reduction { op: crate::directives::ReductionOp::from_name(op.as_str())?, var: v.to_ascii_lowercase(), loc: vec![] }))
                .collect();
            if !reductions.is_empty() {
                info.assertions.push(crate::directives::SpfHint::Reduction(reductions));
            }
        }
        info.overridden_by = used_notes.into_iter().collect();
        info
    }

    fn control_blockers(&self, stmts: &[BodyStmt], body: &[Node], info: &mut LoopInfo) {
        let inside = cfg::labels_within(self.unit, body);
        let own_name = stmts
            .first()
            .and_then(|b| b.nest.first())
            .and_then(|h| self.unit.stmt(*h).name.as_ref());
        let inner_names: BTreeSet<&Name> = stmts
            .iter()
            .filter(|b| matches!(b.st.kind, StmtKind::Do { .. } | StmtKind::DoWhile { .. }))
            .filter_map(|b| b.st.name.as_ref())
            .collect();
        for bs in stmts {
            let st = bs.st;
            let line = st.span.line;
            let mut check = |k: &StmtKind| match k {
                StmtKind::Io { kind, .. } => info.blockers.push(Blocker {
                    code: BlockerCode::Io,
                    message: format!("{} statement at line {line}", io_name(kind)),
                    line,
                }),
                StmtKind::Stop => info.blockers.push(Blocker {
                    code: BlockerCode::Stop,
                    message: format!("STOP at line {line}"),
                    line,
                }),
                StmtKind::Return => info.blockers.push(Blocker {
                    code: BlockerCode::Stop,
                    message: format!("RETURN at line {line} leaves the procedure"),
                    line,
                }),
                StmtKind::Exit(None) if bs.nest.len() == 1 => info.blockers.push(Blocker {
                    code: BlockerCode::Exit,
                    message: format!("EXIT at line {line} leaves the loop"),
                    line,
                }),
                StmtKind::Exit(Some(n)) | StmtKind::Cycle(Some(n))
                    if !inner_names.contains(n)
                        && !(matches!(k, StmtKind::Cycle(_)) && own_name == Some(n)) =>
                {
                    let what = if matches!(k, StmtKind::Exit(_)) {
                        "EXIT"
                    } else {
                        "CYCLE"
                    };
                    info.blockers.push(Blocker {
                        code: BlockerCode::Exit,
                        message: format!(
                            "{what} {} at line {line} leaves the loop",
                            n.to_uppercase()
                        ),
                        line,
                    })
                }
                StmtKind::Goto(l) if !inside.contains(l) => info.blockers.push(Blocker {
                    code: BlockerCode::Exit,
                    message: format!("GOTO {l} at line {line} jumps out of the loop"),
                    line,
                }),
                StmtKind::ArithIf(_, ls) if ls.iter().any(|l| !inside.contains(l)) => {
                    info.blockers.push(Blocker {
                        code: BlockerCode::Exit,
                        message: format!("arithmetic IF at line {line} jumps out of the loop"),
                        line,
                    })
                }
                StmtKind::ComputedGoto(ls, _) if ls.iter().any(|l| !inside.contains(l)) => {
                    info.blockers.push(Blocker {
                        code: BlockerCode::Exit,
                        message: format!("computed GOTO at line {line} may jump out of the loop"),
                        line,
                    })
                }
                StmtKind::Unsupported { what, .. } => info.blockers.push(Blocker {
                    code: BlockerCode::Unsupported,
                    message: format!("unsupported construct ({what}) at line {line}"),
                    line,
                }),
                StmtKind::Error => info.blockers.push(Blocker {
                    code: BlockerCode::Unsupported,
                    message: format!("syntax error at line {line}"),
                    line,
                }),
                _ => {}
            };
            check(&st.kind);
            if let StmtKind::LogicalIf(_, inner) = &st.kind {
                check(&inner.kind);
            }
        }
    }

    fn call_blockers(&self, calls: &[CallSite], info: &mut LoopInfo) {
        for c in calls {
            let n = c.name.to_uppercase();
            match self.summaries().get(&c.name) {
                None if c.unknown => {
                    let message = match self.sema.module_vars.get(&c.name) {
                        Some(m) => format!(
                            "{n} at line {} is a variable of module {} (USE {}): variables of modules are not analyzed yet",
                            c.line,
                            m.to_uppercase(),
                            m.to_uppercase()
                        ),
                        None => format!("call to external procedure {n} at line {}: its body is not among the analyzed files", c.line),
                    };
                    info.blockers.push(Blocker { code: BlockerCode::Call, message, line: c.line })
                }
                None => {}
                Some(s) => {
                    if s.has_io {
                        info.blockers.push(Blocker { code: BlockerCode::Io, message: format!("call to {n} at line {} performs I/O", c.line), line: c.line });
                    }
                    if s.has_stop {
                        info.blockers.push(Blocker { code: BlockerCode::Stop, message: format!("call to {n} at line {} may STOP", c.line), line: c.line });
                    }
                    if s.keeps_state {
                        info.blockers.push(Blocker { code: BlockerCode::Call, message: format!("call to {n} at line {} changes SAVEd state kept between calls", c.line), line: c.line });
                    }
                    if s.recursive {
                        info.blockers.push(Blocker { code: BlockerCode::Call, message: format!("call to recursive procedure {n} at line {}", c.line), line: c.line });
                    } else if !s.unknown_calls.is_empty() {
                        let names: Vec<String> = s.unknown_calls.iter().map(|x| x.to_uppercase()).collect();
                        info.blockers.push(Blocker { code: BlockerCode::Call, message: format!("call to {n} at line {} reaches external procedures without a body ({})", c.line, names.join(", ")), line: c.line });
                    }
                }
            }
        }
    }

    /// While a loop is analyzed for a run-time test: whether array `x`, live where the unit
    /// ends only because other units read it first where tests fail (`Cfg::exit_unless`),
    /// is dead there once the loop takes those tests as its own (their symbols are values
    /// this unit also takes from the program's facts, so it can test them).
    fn dead_at_exit_assuming(&self, x: &str) -> bool {
        let Some(tests) = self.fine.and_then(|f| f.exit_unless.get(x)) else { return false };
        let mut assume = self.assume.borrow_mut();
        let Some(need) = assume.as_mut() else { return false };
        let stable = self.sema.fact_symbols();
        let ok = tests.iter().all(|t| t.vars().all(|v| stable.contains(v) && !self.written.contains(v)))
            && tests.iter().all(|t| need.iter().chain(tests.iter()).all(|g| !t.contradicts(g)));
        if ok {
            take_tests(need, tests);
        }
        ok
    }

    /// Names live when the loop exits normally (from the statement-level CFG).
    fn live_after(&self, header: StmtId) -> BTreeSet<Name> {
        let mut live = BTreeSet::new();
        let Some(fine) = self.fine else { return live };
        if let Some(h) = fine.loop_header.get(&header) {
            for (t, e) in fine.succs(*h) {
                // (the inner loop of a nest sharing its terminal label leaves by the outer
                // loop's back edge: that is its exit too)
                if e.kind == EdgeKind::LoopExit || (e.kind == EdgeKind::Back && t != *h) {
                    // a DO right after the loop assigns its variable before reading it
                    live.extend(fine.entering(t, &e));
                }
            }
        }
        live
    }

    /// What the code after the loop at `header` may read of the arrays the loop leaves (see
    /// `UsedAfter`).
    fn used_after(&self, header: StmtId) -> UsedAfter<'_> {
        UsedAfter {
            here: self.exposed_after(header),
            exit_live: self.fine.map(|f| &f.exit_live),
        }
    }

    /// The arrays the code after statement (or loop) `at` may read before overwriting them,
    /// to the unit's end: a structured walk over the rest of each enclosing body, the next
    /// iteration of each enclosing loop, and what follows it; None where the unit jumps
    /// backward.
    fn exposed_after(&self, at: StmtId) -> Option<BTreeSet<Name>> {
        if cfg::jumps_backward(self.unit) {
            return None;
        }
        let mut path: Vec<(&[Node], usize)> = vec![];
        if !find_path(&self.unit.body, at, &mut path) {
            return None;
        }
        let saved_matrices = self.matrices.replace(self.unit_matrices());
        let mut st = Exposure::default();
        // Innermost level first: the siblings after the loop, then outward.
        for level in (0..path.len()).rev() {
            let (nodes, i) = path[level];
            self.expose_nodes(&nodes[i + 1..], &mut st);
            if level > 0 {
                let (pnodes, pi) = path[level - 1];
                if let Node::Do { body, .. } = &pnodes[pi] {
                    let saved = (st.must.clone(), st.must_arr.clone());
                    self.expose_nodes(body, &mut st);
                    st.must = saved.0;
                    st.must_arr = saved.1;
                }
            }
        }
        self.matrices.replace(saved_matrices);
        Some(st.exposed_arr)
    }

    /// Scalars read before being surely written in an iteration; the arrays whose every read
    /// is covered by earlier sure writes in the same iteration, or reads elements no iteration
    /// writes (see `may_covered`); and of those, the ones with such reads (a private copy of
    /// them must start with the values from before the loop).
    ///
    /// Also, per array with a read not shown covered, the line of the first such read.
    #[allow(clippy::type_complexity)]
    fn exposure(&self, body: &[Node], var: &str) -> (BTreeSet<Name>, BTreeSet<Name>, BTreeSet<Name>, BTreeMap<Name, u32>) {
        let saved = self.strided.replace(self.strided_dims(body));
        let saved_matrices = self.matrices.replace(self.matrices_in(body, var));
        let mut st = Exposure { may: self.may_writes(body), ..Default::default() };
        self.expose_nodes(body, &mut st);
        self.strided.replace(saved);
        self.matrices.replace(saved_matrices);
        let ok: BTreeSet<Name> = st
            .written_arr
            .iter()
            .filter(|k| !st.exposed_arr.contains(*k))
            .cloned()
            .collect();
        let copy_in = st.pristine.intersection(&ok).cloned().collect();
        (st.exposed, ok, copy_in, st.exposed_at)
    }

    /// The arrays of `body` whose subscripts in a dimension all step by a multiple of some
    /// c >= 2 over the body's loops (see `Analyzer::strided`), when every access of the array
    /// in the body is an element with linear subscripts over those loops' variables and names
    /// the body does not assign.
    fn strided_dims(&self, body: &[Node]) -> BTreeMap<Name, Vec<Option<(i64, Lin)>>> {
        let mut loop_vars: BTreeSet<Name> = BTreeSet::new();
        let mut assigned: BTreeSet<Name> = BTreeSet::new();
        let mut forms: BTreeMap<Name, Option<Vec<Vec<Lin>>>> = BTreeMap::new();
        for_each_stmt(self.unit, body, &mut |st| {
            if let StmtKind::Do { var, .. } = &st.kind {
                loop_vars.insert(var.clone());
            }
            for a in &self.acc.get()[st.id.0 as usize].0 {
                if a.write && !self.sema.is_array(&a.name) {
                    assigned.insert(a.name.clone());
                }
                if !self.sema.is_array(&a.name) {
                    continue;
                }
                let rank = self.sema.symbol(&a.name).map_or(0, |s| s.rank());
                let entry = forms.entry(a.name.clone()).or_insert_with(|| Some(vec![]));
                let Some(list) = entry.as_mut() else { continue };
                let one = match &a.subs {
                    Some(subs) if subs.len() == rank && a.via_call.is_none() && a.implied.is_empty() => {
                        subs.iter().map(|s| match s {
                            Arg::Expr(e) => self.lin_at(e, a.stmt),
                            _ => None,
                        }).collect::<Option<Vec<Lin>>>()
                    }
                    _ => None,
                };
                match one {
                    Some(f) => list.push(f),
                    None => *entry = None,
                }
            }
        });
        let mut out = BTreeMap::new();
        for (x, list) in forms {
            let Some(list) = list.filter(|l| !l.is_empty()) else { continue };
            let rank = list[0].len();
            let dims: Vec<Option<(i64, Lin)>> = (0..rank)
                .map(|d| {
                    let c = list.iter().flat_map(|f| f[d].terms.iter().filter(|(v, _)| loop_vars.contains(*v)).map(|(_, k)| *k)).fold(0, gcd);
                    if c < 2 {
                        return None;
                    }
                    let rest = |f: &Lin| -> Lin {
                        let mut r = f.clone();
                        r.terms.retain(|v, _| !loop_vars.contains(v));
                        r
                    };
                    let r0 = rest(&list[0][d]);
                    let fits = list.iter().all(|f| {
                        let r = rest(&f[d]);
                        r.vars().all(|v| !assigned.contains(v))
                            && r.add(&r0, -1).is_some_and(|g| g.constant % c == 0 && g.terms.values().all(|k| k % c == 0))
                    });
                    fits.then_some((c, r0))
                })
                .collect();
            if dims.iter().any(|d| d.is_some()) {
                out.insert(x, dims);
            }
        }
        out
    }

    /// The one-dimensional arrays of `body` laid out by hand as matrices (`split_matrix`
    /// over all their accesses in the body, with a stride the body does not assign), with
    /// their strides.
    fn matrices_in(&self, body: &[Node], var: &str) -> BTreeMap<Name, Vec<Lin>> {
        self.matrices_over(body, var, &self.scalars_written(body))
    }

    /// `matrices_in` over the whole unit, where the stride may change between accesses
    /// (`kill_scalar` then forgets what was written in its terms).
    fn unit_matrices(&self) -> BTreeMap<Name, Vec<Lin>> {
        self.matrices_over(&self.unit.body, "", &BTreeSet::new())
    }

    /// The vectors of `nodes` with an access that is not linear whose accesses there all split
    /// (`split_matrix`) with strides over names neither in `written` nor DO variables (of
    /// `nodes`, or `var`).
    fn matrices_over(&self, nodes: &[Node], var: &str, written: &BTreeSet<Name>) -> BTreeMap<Name, Vec<Lin>> {
        let mut by_array: BTreeMap<Name, Vec<&Access>> = BTreeMap::new();
        let mut index_vars: BTreeSet<Name> = [var.to_string()].into_iter().filter(|v| !v.is_empty()).collect();
        let table = self.acc.get();
        for_each_stmt(self.unit, nodes, &mut |st| {
            if let StmtKind::Do { var, .. } = &st.kind {
                index_vars.insert(var.clone());
            }
            for a in &table[st.id.0 as usize].0 {
                if self.sema.symbol(&a.name).is_some_and(|s| s.rank() == 1) {
                    by_array.entry(a.name.clone()).or_default().push(a);
                }
            }
        });
        by_array
            .into_iter()
            .filter(|(_, accs)| accs.iter().any(|a| matches!(a.subs.as_deref(), Some([Arg::Expr(e)]) if self.lin(e).is_none())))
            .filter_map(|(x, accs)| Some((x, self.split_matrix(&accs, written, &index_vars)?.0)))
            .collect()
    }

    /// Every element of each array that an iteration of a loop with this body may write, as
    /// rectangles in terms of scalars the body does not change (the loops inside widened over
    /// their ranges); None for an array some write of which cannot be bounded so (a write
    /// through a call, a subscript that is not linear, a scalar the body assigns).
    fn may_writes(&self, body: &[Node]) -> BTreeMap<Name, Option<Vec<SymRect>>> {
        let written = self.scalars_written(body);
        let mut out: BTreeMap<Name, Option<Vec<SymRect>>> = BTreeMap::new();
        self.may_nodes(body, &mut vec![], &written, &mut out);
        out
    }

    fn may_nodes(
        &self,
        nodes: &[Node],
        around: &mut Vec<Option<(Name, Lin, Lin)>>,
        written: &BTreeSet<Name>,
        out: &mut BTreeMap<Name, Option<Vec<SymRect>>>,
    ) {
        let stmt = |id: StmtId, around: &[Option<(Name, Lin, Lin)>], out: &mut BTreeMap<Name, Option<Vec<SymRect>>>| {
            for a in self.acc.get()[id.0 as usize].0.iter().filter(|a| a.write && self.sema.is_array(&a.name)) {
                let mut rect = if a.via_call.is_some() { None } else { self.sym_rect(a) };
                for r in around.iter().rev() {
                    rect = match (rect, r) {
                        (Some(x), Some((v, lo, hi))) => x.widen_over(v, lo, hi),
                        (Some(x), None) => Some(x),
                        (None, _) => None,
                    };
                }
                // (a DO whose range is unknown leaves its variable in the rectangle)
                let rect = rect.filter(|x| !written.iter().any(|w| x.mentions(w)));
                let e = out.entry(a.name.clone()).or_insert_with(|| Some(vec![]));
                match (e.as_mut(), rect) {
                    (Some(v), Some(x)) => v.push(x),
                    _ => *e = None,
                }
            }
        };
        for n in nodes {
            match n {
                Node::Stmt(id) => stmt(*id, around, out),
                Node::Do { header, body, .. } => {
                    stmt(*header, around, out);
                    around.push(self.do_span(*header).map(|(v, lo, hi, _)| (v, lo, hi)));
                    self.may_nodes(body, around, written, out);
                    around.pop();
                }
                Node::If { arms, .. } => {
                    for (h, b) in arms {
                        stmt(*h, around, out);
                        self.may_nodes(b, around, written, out);
                    }
                }
            }
        }
    }

    /// The values a DO loop's variable takes: (variable, lowest, highest, step) for a constant
    /// step other than 0, the bounds in the terms subscripts use (`lin_at`: a scalar set to a
    /// linear form before stands for that form, `ISIZE` for `GP(1)-1`). None for DO WHILE.
    fn do_span(&self, header: StmtId) -> Option<(Name, Lin, Lin, i64)> {
        let StmtKind::Do { var, lo, hi, step, .. } = &self.unit.stmt(header).kind else { return None };
        let step = match step {
            None => 1,
            Some(e) => linearize(e, &const_lin(self.sema))?.as_const()?,
        };
        let (lo, hi) = (self.lin_at(lo, header)?, self.lin_at(hi, header)?);
        match step {
            0 => None,
            s if s > 0 => Some((var.clone(), lo, hi, s)),
            s => Some((var.clone(), hi, lo, s)),
        }
    }

    /// A read of `x` not covered by what the iteration surely wrote before it: it still sees no
    /// other iteration's value when everything any iteration may write of `x` has surely been
    /// written earlier in this one (what it reads outside that, no iteration writes: the
    /// values from before the loop). NPB BT's `UE(I+2,M)` at `I = 1` after `UE(0:GP-1,1:5)`:
    /// covered only when GP >= 4, and otherwise never written.
    fn may_covered(&self, s: &Exposure, x: &str) -> bool {
        let (Some(Some(may)), Some(set)) = (s.may.get(x), s.must_arr.get(x)) else { return false };
        let decl = self.decl_bounds(x);
        may.iter().all(|r| self.covers(set, r, &decl))
    }

    /// `set.covers_within(r, decl)`, or, while a loop is analyzed for a run-time test
    /// (`assume`), what would make it so, recorded there: forms over names the unit never
    /// changes (so their values where the loop starts are those everywhere in the unit) that
    /// the program can test (`render_symbol`), each saying that a size is large enough.
    fn covers(&self, set: &RectSet, r: &SymRect, decl: &[Option<(i64, i64)>]) -> bool {
        if set.covers_within(r, decl) {
            return true;
        }
        let mut assume = self.assume.borrow_mut();
        let Some(need) = assume.as_mut() else { return false };
        // (only that sizes are large enough: every coefficient positive, `GP(1) - 4 >= 0`)
        let stable = self.stable_only.borrow();
        let ok = |f: &Lin| {
            f.terms.iter().all(|(v, k)| *k > 0 && !self.written.contains(v) && render_symbol(v).is_some() && stable.as_ref().is_none_or(|s| s.contains(v)))
        };
        match set.assumptions_to_cover(r, decl, &ok, need) {
            Some(more) => {
                take_tests(need, &more);
                true
            }
            None => false,
        }
    }

    /// The declared bounds of an array, where constant (the last one of an assumed-size array
    /// is not, nor the last one of a dummy `B(1)` used as assumed-size).
    fn decl_bounds(&self, x: &str) -> Vec<Option<(i64, i64)>> {
        let strided = self.strided.borrow();
        let compressed = |k: usize| strided.get(x).is_some_and(|d| d.get(k).is_some_and(|s| s.is_some()));
        if let Some(strides) = self.matrices.borrow().get(x) {
            return vec![None; strides.len() + 1];
        }
        match self.sema.symbol(x) {
            Some(sym) => {
                let ds = sym.dims.as_deref().unwrap_or(&[]);
                let unknown_last = sym.size_unknown();
                ds.iter()
                    .enumerate()
                    .map(|(k, d)| if d.assumed || d.star || (unknown_last && k + 1 == ds.len()) || compressed(k) { None } else { Some((d.lo?, d.hi?)) })
                    .collect()
            }
            None => vec![],
        }
    }

    /// The elements an access names, with symbolic bounds: a point per subscript, a range
    /// for a section with stride 1, the declared bounds for the whole array. For a read,
    /// implied-DO variables are widened over their ranges; for a write they must not occur.
    fn sym_rect(&self, a: &Access) -> Option<SymRect> {
        let sym = self.sema.symbol(&a.name)?;
        let dims = sym.dims.as_ref()?;
        let lin = |e: &Expr| self.lin(e);
        let decl = |d: &crate::sema::Dim| -> Option<Interval> {
            if d.assumed || d.star {
                return None;
            }
            let lo = match (&d.lo_expr, d.lo) {
                (Some(e), _) => lin(e)?,
                (None, Some(c)) => Lin::constant(c),
                (None, None) => Lin::constant(1),
            };
            let hi = match (&d.hi_expr, d.hi) {
                (Some(e), _) => lin(e)?,
                (None, Some(c)) => Lin::constant(c),
                (None, None) => return None,
            };
            Some((lo, hi))
        };
        let lin = |e: &Expr| self.lin_at(e, a.stmt);
        let mut rect = vec![];
        if let Some(strides) = self.matrices.borrow().get(&a.name) {
            // (the parts of a vector laid out as a matrix: `matrices`)
            let [Arg::Expr(e)] = a.subs.as_deref()? else { return None };
            let (parts, ss) = match crate::affine::split_strides(e, &const_lin(self.sema), &|n| strides.iter().any(|s| s.coeff(n) != 0)) {
                Some(x) => x,
                None => (crate::affine::linear_parts(&linearize(e, &const_lin(self.sema))?, strides)?, strides.clone()),
            };
            if ss != *strides {
                return None;
            }
            for f in parts {
                let f = lin(&f.to_expr())?;
                rect.push((f.clone(), f));
            }
        }
        match &a.subs {
            _ if !rect.is_empty() => {}
            None => {
                for d in dims {
                    rect.push(decl(d)?);
                }
            }
            Some(subs) if subs.len() == dims.len() => {
                for (s, d) in subs.iter().zip(dims) {
                    rect.push(match s {
                        Arg::Expr(e) | Arg::Keyword(_, e) => {
                            let l = lin(e)?;
                            (l.clone(), l)
                        }
                        Arg::Range(lo, hi, stride) => {
                            if stride.as_ref().is_some_and(|k| lin(k).and_then(|k| k.as_const()) != Some(1)) {
                                return None;
                            }
                            let whole = || decl(d);
                            let lo = match lo {
                                Some(e) => lin(e)?,
                                None => whole()?.0,
                            };
                            let hi = match hi {
                                Some(e) => lin(e)?,
                                None => whole()?.1,
                            };
                            (lo, hi)
                        }
                    });
                }
            }
            Some(_) => return None,
        }
        // (every c-th element as a dense range: `Analyzer::strided`)
        if let Some(dims) = self.strided.borrow().get(&a.name).filter(|_| rect.len() == dims.len()) {
            for (d, s) in dims.iter().enumerate() {
                let Some((c, r0)) = s else { continue };
                let (lo, hi) = &rect[d];
                if lo != hi {
                    return None;
                }
                let q = lo.add(r0, -1)?;
                if q.constant % c != 0 || q.terms.values().any(|k| k % c != 0) {
                    return None;
                }
                let mut p = Lin::constant(q.constant / c);
                for (v, k) in &q.terms {
                    p = p.add(&Lin::var(v).scale(k / c)?, 1)?;
                }
                rect[d] = (p.clone(), p);
            }
        }
        let mut r = SymRect(rect);
        for (v, lo, hi) in &a.implied {
            if a.write {
                return None;
            }
            r = r.widen_over(v, &lin(lo)?, &lin(hi)?)?;
        }
        Some(r)
    }

    /// Whether every element a read names was surely written before it in this iteration:
    /// inside one rectangle of what was written, as a point of the current iteration of the
    /// enclosing loops, or else over all their iterations (innermost first). A widened read
    /// no longer mentions the loop variable, so it can only fall inside rectangles that do
    /// not depend on it either (`T(I+1)` is never covered by this iteration's `T(I)`).
    fn read_covered(&self, s: &Exposure, a: &Access) -> bool {
        let Some(set) = s.must_arr.get(&a.name) else { return false };
        let Some(mut r) = self.sym_rect(a) else { return false };
        let decl = self.decl_bounds(&a.name);
        if set.covers_within(&r, &decl) {
            return true;
        }
        let mut widened = vec![r.clone()];
        for (v, lo, hi) in s.bound.iter().rev() {
            match r.widen_over(v, lo, hi) {
                Some(w) => r = w,
                None => break,
            }
            if set.covers_within(&r, &decl) {
                return true;
            }
            widened.push(r.clone());
        }
        // (a run-time test only where nothing is shown for every value: the point of the
        // current iteration first, then widened over the loops around it)
        widened.iter().any(|r| self.covers(set, r, &decl))
    }

    /// A scalar was assigned: what was known in terms of it (or of what shares its storage)
    /// no longer names the same elements.
    fn kill_scalar(&self, s: &mut Exposure, v: &str) {
        let mut names = vec![v.to_string()];
        if let Some(sym) = self.sema.symbol(v) {
            names.extend(sym.aliases.iter().cloned());
        }
        for set in s.must_arr.values_mut() {
            for n in &names {
                set.kill(n);
            }
        }
        // (what a vector laid out as a matrix holds is in terms of its stride)
        for (x, strides) in self.matrices.borrow().iter() {
            if strides.iter().any(|s| names.iter().any(|n| s.coeff(n) != 0)) {
                s.must_arr.remove(x);
            }
        }
    }

    /// Scalars a list of nodes may assign (DO variables and writes through calls included).
    fn scalars_written(&self, nodes: &[Node]) -> BTreeSet<Name> {
        let mut out = BTreeSet::new();
        for_each_stmt(self.unit, nodes, &mut |st| {
            for a in self.acc.get()[st.id.0 as usize].0.iter().filter(|a| a.write && !self.sema.is_array(&a.name)) {
                out.insert(a.name.clone());
            }
        });
        out
    }

    /// Whether control may leave a list of nodes other than by falling through its end
    /// (EXIT, CYCLE, GO TO, RETURN, STOP, arithmetic IF): then what its end knows may not
    /// hold after every iteration.
    fn leaves_early(&self, nodes: &[Node]) -> bool {
        let mut leaves = false;
        for_each_stmt(self.unit, nodes, &mut |st| leaves |= st.kind.action().leaves());
        leaves
    }

    /// What a CALL statement surely does to the caller's arrays passed whole to it (from the
    /// callee's `Effect::must_write` / `own_reads`): the rectangles it surely writes, in the
    /// caller's terms where the statement runs, and the arrays whose reads through the call
    /// are only of elements the callee wrote first. Only arrays passed once (whole, or an
    /// element starting a column), not sharing storage, and not in a COMMON block the callee
    /// reaches (it could reach them another way).
    fn call_defines(&self, st: &Stmt) -> BTreeMap<Name, (Vec<SymRect>, bool)> {
        let mut out: BTreeMap<Name, (Vec<SymRect>, bool)> = BTreeMap::new();
        let StmtKind::Call { name, args } = &st.kind else { return out };
        let Some(sum) = self.summaries().get(name) else { return out };
        if sum.recursive || !sum.unknown_calls.is_empty() {
            return out;
        }
        let cx = AccessCtx { unit: self.unit, sema: self.sema, summaries: self.summaries() };
        for (&k, eff) in &sum.args {
            let Some(actual) = args.get(k).and_then(|a| a.expr()) else { continue };
            let Some(x) = actual.base_name().map(|n| n.to_string()) else { continue };
            // (in COMMON: only when the callee, or what it calls, never touches that block)
            let Some(sym) = self.sema.symbol(&x).filter(|y| {
                y.is_array()
                    && y.aliases.is_empty()
                    && y.common.as_ref().is_none_or(|(block, _)| !sum.commons.keys().any(|(b, _)| b == block))
            }) else {
                continue;
            };
            let passes = args.iter().filter(|a| a.expr().and_then(|e| e.base_name()) == Some(x.as_str())).count();
            if passes != 1 || eff.must_write.is_empty() || matches!(sym.ty.base, BaseType::Derived(_)) {
                continue;
            }
            let mut rects = vec![];
            if sum.arg_bytes.get(&k) != Some(&sym.ty.bytes()) {
                // a 1-D array given whole to a 1-D dummy whose elements are a whole fraction of
                // its own (DOUBLE COMPLEX TMP given to DOUBLE PRECISION Y(2*N1), NPB FT's initial
                // conditions): the caller's elements the callee's section covers entirely
                if let Some(r) = self.whole_elements(&x, actual, eff, sum.arg_bytes.get(&k).copied(), args, sum, st.id) {
                    out.insert(x, (vec![r], false));
                }
                continue;
            }
            for r in &eff.must_write {
                // the whole array passed: the callee's section in the caller's names; an element
                // passed to an array dummy: that stretch of the column, or those planes
                // (sequence association, see `AccessCtx::column_map`)
                let mapped: Option<Vec<Arg>> = match actual {
                    Expr::Var(_) if r.len() == sym.rank() => Some(r.iter().map(|d| cx.map_arg(d, args, sum)).collect()),
                    Expr::Ref(_, asubs) => {
                        let ends: Option<Vec<(Arg, Arg)>> = r
                            .iter()
                            .map(|d| match d {
                                Arg::Range(Some(lo), Some(hi), None) => Some((Arg::Expr(lo.clone()), Arg::Expr(hi.clone()))),
                                Arg::Expr(e) => Some((Arg::Expr(e.clone()), Arg::Expr(e.clone()))),
                                _ => None,
                            })
                            .collect();
                        ends.and_then(|ends| {
                            let (los, his): (Vec<Arg>, Vec<Arg>) = ends.into_iter().unzip();
                            let a = cx.column_map(&x, asubs, &los, sum.arg_dims.get(&k), args, sum)?;
                            let b = cx.column_map(&x, asubs, &his, sum.arg_dims.get(&k), args, sum)?;
                            let mut m = vec![];
                            for d in 0..r.len() {
                                m.push(Arg::Range(Some(a.get(d)?.expr()?.clone()), Some(b.get(d)?.expr()?.clone()), None));
                            }
                            m.extend(a[r.len()..].iter().cloned());
                            Some(m)
                        })
                    }
                    _ => None,
                };
                let Some(mapped) = mapped.filter(|m| m.len() == sym.rank()) else { continue };
                let mut rect = vec![];
                for d in &mapped {
                    let (lo, hi) = match d {
                        Arg::Range(Some(lo), Some(hi), None) => (lo, hi),
                        Arg::Expr(e) => (e, e),
                        _ => break,
                    };
                    let (Some(lo), Some(hi)) = (self.lin_at(lo, st.id), self.lin_at(hi, st.id)) else { break };
                    rect.push((lo, hi));
                }
                if rect.len() == mapped.len() {
                    rects.push(SymRect(rect));
                }
            }
            if !rects.is_empty() {
                out.insert(x, (rects, eff.own_reads));
            }
        }
        // COMMON arrays the callee (or what it calls) surely writes through the block, named
        // alike and declared with the same constant bounds in both units (SP's LHSINIT zeroing
        // the edge planes of LHS): the sections in the caller's names, the callee's dummies
        // replaced by the actual arguments
        for ((block, idx), eff) in &sum.commons {
            if eff.must_write.is_empty() {
                continue;
            }
            let Some(member) = self.sema.commons.get(block).and_then(|m| m.get(*idx)) else { continue };
            let x = member.name.clone();
            let Some(sym) = self.sema.symbol(&x).filter(|y| {
                y.is_array() && y.aliases.is_empty() && !matches!(y.ty.base, BaseType::Derived(_))
            }) else {
                continue;
            };
            let bounds = sym.bounds();
            if sum.common_names.get(&(block.clone(), *idx)) != Some(&x)
                || sum.common_bounds.get(&(block.clone(), *idx)) != Some(&bounds)
                || bounds.iter().any(|b| b.is_none())
                || args.iter().any(|a| a.expr().and_then(|e| e.base_name()) == Some(x.as_str()))
            {
                continue;
            }
            let mut rects = vec![];
            for r in eff.must_write.iter().filter(|r| r.len() == sym.rank()) {
                let rect: Option<Vec<(Lin, Lin)>> = r
                    .iter()
                    .map(|d| match cx.map_arg(d, args, sum) {
                        Arg::Range(Some(lo), Some(hi), None) => Some((self.lin_at(&lo, st.id)?, self.lin_at(&hi, st.id)?)),
                        _ => None,
                    })
                    .collect();
                if let Some(rect) = rect {
                    rects.push(SymRect(rect));
                }
            }
            if !rects.is_empty() {
                out.insert(x, (rects, eff.own_reads));
            }
        }
        out
    }

    /// For `call_defines`: what a callee surely writes of the 1-D array `x`, given whole to a
    /// 1-D dummy of `dummy_bytes`-byte elements when `x`'s elements are M times as large: of its
    /// sections `LO:HI` (in the dummy's elements), the caller's elements both ends of which
    /// lie inside, `(LO-1)/M+1 : HI/M` when M divides `LO-1` and `HI` (ends not a multiple
    /// leave the section unmapped). Only for callees that do not read the dummy.
    #[allow(clippy::too_many_arguments)]
    fn whole_elements(&self, x: &str, actual: &Expr, eff: &crate::access::Effect, dummy_bytes: Option<u64>, args: &[Arg], sum: &Summary, at: StmtId) -> Option<SymRect> {
        let sym = self.sema.symbol(x)?;
        let db = dummy_bytes.filter(|&b| b > 0)?;
        let m = i64::try_from(sym.ty.bytes() / db).ok()?;
        if !matches!(actual, Expr::Var(_)) || sym.rank() != 1 || m < 2 || sym.ty.bytes() % db != 0 || !eff.read.is_empty() {
            return None;
        }
        let cx = AccessCtx { unit: self.unit, sema: self.sema, summaries: self.summaries() };
        let divide = |l: &Lin| -> Option<Lin> {
            (l.constant % m == 0 && l.terms.values().all(|c| c % m == 0)).then(|| Lin {
                terms: l.terms.iter().map(|(v, c)| (v.clone(), c / m)).collect(),
                constant: l.constant / m,
            })
        };
        eff.must_write.iter().filter(|r| r.len() == 1).find_map(|r| {
            let Arg::Range(Some(lo), Some(hi), None) = cx.map_arg(&r[0], args, sum) else { return None };
            let (lo, hi) = (self.lin_at(&lo, at)?, self.lin_at(&hi, at)?);
            let lo = divide(&lo.add(&Lin::constant(1), -1)?)?.add(&Lin::constant(1), 1)?;
            Some(SymRect(vec![(lo, divide(&hi)?)]))
        })
    }

    /// The reads of one statement against what is surely written so far.
    fn expose_reads(&self, id: StmtId, s: &mut Exposure, skip: &BTreeSet<Name>) {
        for a in self.acc.get()[id.0 as usize].0.iter().filter(|a| !a.write) {
            if a.via_call.is_some() && (skip.contains(&a.name) || self.callee_owns_common(a)) && self.sema.is_array(&a.name) {
                // a callee reading only what it wrote itself first
                continue;
            }
            if self.sema.is_array(&a.name) {
                if self.read_covered(s, a) {
                } else if self.may_covered(s, &a.name) {
                    s.pristine.insert(a.name.clone());
                } else {
                    s.exposed_at.entry(a.name.clone()).or_insert(a.line);
                    s.exposed_arr.insert(a.name.clone());
                }
            } else if !s.must.contains(&a.name) && !skip.contains(&a.name) {
                s.exposed.insert(a.name.clone());
            }
        }
    }

    /// A read through a call of a COMMON array the callee reads only where it wrote first
    /// (`Effect::own_reads` of the callee's summary, the member named alike there).
    fn callee_owns_common(&self, a: &Access) -> bool {
        let Some(callee) = a.via_call.as_ref().and_then(|c| self.summaries().get(c)).filter(|s| !s.recursive) else { return false };
        let Some(key) = self.sema.symbol(&a.name).filter(|s| s.aliases.is_empty()).and_then(|s| s.common.clone()) else { return false };
        callee.commons.get(&key).is_some_and(|e| e.own_reads) && callee.common_names.get(&key) == Some(&a.name)
    }

    /// Whether procedure `callee` writes COMMON array `x` (of this unit, named alike there)
    /// and reads it where the analysis does not show it wrote first (not `own_reads`), while
    /// this unit declares the block but touches `x` nowhere itself: a scratch array of the
    /// callee that only the user can call private.
    fn callee_scratch(&self, callee: &str, x: &str) -> bool {
        let Some(s) = self.summaries().get(callee).filter(|s| !s.recursive) else { return false };
        let Some(key) = self.sema.symbol(x).filter(|s| s.aliases.is_empty() && s.is_array()).and_then(|s| s.common.clone()) else { return false };
        let mine = self.acc.get().iter().flat_map(|(a, _)| a).any(|a| a.name == x && a.via_call.is_none());
        !mine && s.common_names.get(&key).is_some_and(|n| n == x) && s.commons.get(&key).is_some_and(|e| !e.write.is_empty() && !e.read.is_empty() && !e.own_reads)
    }

    /// A statement a jump may arrive at: what is surely assigned there is what was on the way
    /// in and at every jump to it, when all those jumps were met earlier in this walk
    /// (forward jumps, NPB EP's `GOTO 130` out of its seed loop); otherwise nothing. What was
    /// known of arrays is forgotten in any case.
    fn arrive(&self, st: &Stmt, s: &mut Exposure) {
        let Some((l, sources)) = st.label.and_then(|l| self.targets.get(&l).map(|n| (l, *n))) else { return };
        let seen = s.jumps.remove(&l).unwrap_or_default();
        if seen.len() == sources {
            for m in seen {
                s.must = s.must.intersection(&m).cloned().collect();
            }
        } else {
            s.must.clear();
        }
        s.must_arr.clear();
    }

    /// At a GO TO (plain, in a logical IF, arithmetic IF or computed): what is surely
    /// assigned when it jumps, for the statement it jumps to (see `arrive`).
    fn record_jumps(&self, st: &Stmt, s: &mut Exposure) {
        for l in cfg::jump_labels(&st.kind) {
            s.jumps.entry(l).or_default().push(s.must.clone());
        }
    }

    fn expose_nodes(&self, nodes: &[Node], s: &mut Exposure) {
        let none = BTreeSet::new();
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    let st = self.unit.stmt(*id);
                    self.arrive(st, s);
                    self.record_jumps(st, s);
                    let defines = self.call_defines(st);
                    let own: BTreeSet<Name> = defines.iter().filter(|(_, (_, o))| *o).map(|(x, _)| x.clone()).collect();
                    self.expose_reads(*id, s, &own);
                    let sure = matches!(
                        st.kind,
                        StmtKind::Assign { .. }
                            | StmtKind::Io {
                                kind: IoKind::Read,
                                ..
                            }
                    );
                    for a in self.acc.get()[id.0 as usize].0.iter().filter(|a| a.write) {
                        if self.sema.is_array(&a.name) {
                            s.written_arr.insert(a.name.clone());
                            if a.via_call.is_some() && defines.contains_key(&a.name) {
                                // what the call surely writes is added below; anything else it
                                // may write is checked where it is read
                                continue;
                            }
                            let rect = (sure && a.via_call.is_none())
                                .then(|| self.sym_rect(a))
                                .flatten();
                            // (a write whose elements are not known adds nothing: what is
                            // surely written stays this iteration's, and every read is checked)
                            if let Some(r) = rect {
                                s.must_arr.entry(a.name.clone()).or_default().add(r);
                            }
                        } else {
                            self.kill_scalar(s, &a.name);
                            if sure && a.subs.is_none() && a.via_call.is_none() {
                                s.must.insert(a.name.clone());
                            }
                        }
                    }
                    let changed: Vec<&Name> =
                        self.acc.get()[id.0 as usize].0.iter().filter(|a| a.write && !self.sema.is_array(&a.name)).map(|a| &a.name).collect();
                    for (x, (rects, _)) in defines {
                        for r in rects.into_iter().filter(|r| !changed.iter().any(|c| r.mentions(c))) {
                            s.must_arr.entry(x.clone()).or_default().add(r);
                        }
                    }
                }
                Node::Do { header, body, .. } => {
                    let hs = self.unit.stmt(*header);
                    let var = match &hs.kind {
                        StmtKind::Do { var, .. } => Some(var.clone()),
                        _ => None,
                    };
                    self.arrive(hs, s);
                    // the bounds are read before the loop starts; the DO variable itself is
                    // not a read
                    let skip: BTreeSet<Name> = var.iter().cloned().collect();
                    self.expose_reads(*header, s, &skip);
                    let mut killed = self.scalars_written(body);
                    killed.extend(var.iter().cloned());
                    for k in &killed {
                        self.kill_scalar(s, k);
                    }
                    // the range of the DO variable, when the step is 1 or -1 and the bounds
                    // keep their values through the loop
                    let range = self
                        .do_span(*header)
                        .filter(|(_, lo, hi, step)| step.abs() == 1 && !lo.vars().chain(hi.vars()).any(|v| killed.contains(v)))
                        .map(|(_, lo, hi, _)| (lo, hi));
                    let runs = range
                        .as_ref()
                        .is_some_and(|(lo, hi)| hi.add(lo, -1).and_then(|d| d.as_const()).is_some_and(|d| d >= 0));
                    let saved = (s.must.clone(), s.must_arr.clone());
                    let pushed = match (&var, &range) {
                        (Some(v), Some((lo, hi))) => {
                            s.bound.push((v.clone(), lo.clone(), hi.clone()));
                            true
                        }
                        _ => false,
                    };
                    self.expose_nodes(body, s);
                    if pushed {
                        s.bound.pop();
                    }
                    let early = self.leaves_early(body);
                    if !runs || early {
                        s.must = saved.0;
                    }
                    // what every iteration wrote, in terms of the DO variable, over the whole
                    // range; what does not depend on it, only when the loop surely runs
                    let mut after = saved.1;
                    if !early {
                        let matrices = self.matrices.borrow();
                        let restrided = |x: &Name| matrices.get(x).is_some_and(|ss| ss.iter().any(|s| s.vars().any(|v| killed.contains(v))));
                        for (name, set) in std::mem::take(&mut s.must_arr).into_iter().filter(|(x, _)| !restrided(x)) {
                            for r in set.0 {
                                let w = match (&var, &range) {
                                    (Some(v), Some((lo, hi))) => r.widen_exact(v, lo, hi, runs),
                                    _ => None,
                                };
                                if let Some(w) = w.filter(|w| !killed.iter().any(|k| w.mentions(k))) {
                                    after.entry(name.clone()).or_default().add(w);
                                }
                            }
                        }
                    }
                    s.must_arr = after;
                }
                Node::If { arms, .. } => {
                    if let Some((h, _)) = arms.first() {
                        self.arrive(self.unit.stmt(*h), s);
                    }
                    let start = (s.must.clone(), s.must_arr.clone());
                    let mut ends: Vec<(BTreeSet<Name>, BTreeMap<Name, RectSet>)> = vec![];
                    let has_else = arms
                        .iter()
                        .any(|(h, _)| matches!(self.unit.stmt(*h).kind, StmtKind::Else));
                    for (h, b) in arms {
                        s.must = start.0.clone();
                        s.must_arr = start.1.clone();
                        self.expose_reads(*h, s, &none);
                        self.expose_nodes(b, s);
                        ends.push((s.must.clone(), s.must_arr.clone()));
                    }
                    if !has_else {
                        ends.push(start.clone());
                    }
                    let mut must = ends[0].0.clone();
                    let mut must_arr = ends[0].1.clone();
                    for (m, ma) in &ends[1..] {
                        must = must.intersection(m).cloned().collect();
                        must_arr = must_arr
                            .iter()
                            .filter_map(|(k, v)| ma.get(k).map(|o| (k.clone(), v.intersect(o))))
                            .collect();
                    }
                    s.must = must;
                    s.must_arr = must_arr;
                }
            }
        }
    }

    fn reductions(
        &self,
        header: StmtId,
        stmts: &[BodyStmt],
        body: &[Node],
        written: &BTreeSet<Name>,
        accesses: &[(&Access, usize)],
        last_wins: &mut Vec<(Name, Vec<Name>, u32)>,
        notes: &mut Vec<String>,
    ) -> Vec<Reduction> {
        let mut out = vec![];
        // MAXLOC / MINLOC: IF (X .GT. M) THEN; M = X; K = ...; END IF
        let mut loc_stmts: BTreeMap<StmtId, Name> = BTreeMap::new();
        let mut locs: Vec<LocSearch> = vec![];
        find_loc_patterns(self.unit, body, &mut locs);
        if let StmtKind::Do {
            label: Some(term), ..
        } = &self.unit.stmt(header).kind
        {
            find_skip_patterns(self.unit, body, *term, &mut locs);
        }
        for l in locs.iter().filter(|l| !l.strict) {
            last_wins.push((l.value.clone(), l.locs.clone(), l.line));
        }
        // searches that record only the index (`IF (X(K) .LT. X(M)) M = K`): a MINLOC of a
        // value variable the generated program keeps X(M) in (`crate::search`), when the loop
        // leaves the array alone and touches the index only there
        let hidden_writes = accesses.iter().any(|(a, _)| a.write && a.name.starts_with('/'));
        for sr in crate::search::searches_in(self.unit, self.sema, header, body) {
            let ids: BTreeSet<StmtId> = sr.stmts.iter().copied().collect();
            let array_alone = !hidden_writes
                && self.sema.symbol(&sr.array).is_some_and(|x| x.aliases.is_empty())
                && !accesses.iter().any(|(a, _)| a.name == sr.array && a.write);
            let index_here = !accesses
                .iter()
                .any(|(a, k)| a.name == sr.index && (a.via_call.is_some() || !ids.contains(&stmts[*k].st.id)))
                && self.sema.symbol(&sr.index).is_some_and(|x| x.aliases.is_empty());
            if array_alone && index_here && written.contains(&sr.index) {
                notes.push(format!(
                    "the search at line {} records only where the {} is; {} is a variable the generated program adds to keep {} in (set before the loop), so the loop is a {} reduction",
                    sr.lines.0,
                    if sr.op == RedOp::MinLoc { "minimum" } else { "maximum" },
                    sr.value.to_uppercase(),
                    sr.best,
                    sr.op.as_str().to_uppercase()
                ));
                out.push(Reduction {
                    op: sr.op,
                    var: sr.value.clone(),
                    loc: vec![sr.index.clone()],
                });
            }
        }
        locs.retain(|l| l.strict);
        for l in &locs {
            for id in &l.stmts {
                loc_stmts.insert(*id, l.value.clone());
            }
        }
        for v in written {
            // Which statements touch v?
            let touching: BTreeSet<usize> = accesses
                .iter()
                .filter(|(a, _)| &a.name == v)
                .map(|(_, k)| *k)
                .collect();
            if accesses
                .iter()
                .any(|(a, _)| &a.name == v && a.via_call.is_some())
            {
                continue;
            }
            if let Some(LocSearch { op, locs: ks, stmts: ids, .. }) = locs.iter().find(|l| &l.value == v) {
                let idset: BTreeSet<StmtId> = ids.iter().copied().collect();
                let others_touch = |name: &Name| {
                    accesses
                        .iter()
                        .any(|(a, k)| &a.name == name && !idset.contains(&stmts[*k].st.id))
                };
                if !others_touch(v) && ks.iter().all(|k| !others_touch(k)) {
                    out.push(Reduction {
                        op: *op,
                        var: v.clone(),
                        loc: ks.clone(),
                    });
                }
                continue;
            }
            let mut op: Option<RedOp> = None;
            let mut ok = !touching.is_empty();
            for k in &touching {
                match reduction_op(&stmts[*k].st.kind, v) {
                    Some(o) if op.is_none() || op == Some(o) => op = Some(o),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if let (true, Some(o)) = (ok, op) {
                out.push(Reduction {
                    op: o,
                    var: v.clone(),
                    loc: vec![],
                });
            }
        }
        out.sort();
        out
    }

    /// The operator of an array reduction: every access to `x` in the loop is in a statement
    /// that updates one element of it with that operator (see `reduction_op`), none through
    /// a call. MAXLOC/MINLOC patterns are scalar-only.
    fn array_reduction(&self, stmts: &[BodyStmt], accesses: &[(&Access, usize)], x: &str) -> Option<RedOp> {
        let mut op = None;
        for (a, k) in accesses.iter().filter(|(a, _)| a.name == x) {
            if a.via_call.is_some() || a.subs.is_none() {
                return None;
            }
            let o = reduction_op(&stmts[*k].st.kind, x)?;
            if op.is_some_and(|p| p != o) {
                return None;
            }
            op = Some(o);
        }
        op
    }

    #[allow(clippy::too_many_arguments)]
    fn dependences(
        &self,
        outer: &[StmtId],
        stmts: &[BodyStmt],
        accesses: &[(&Access, usize)],
        arrays: &BTreeSet<Name>,
        private: &BTreeSet<Name>,
        written_scalars: &BTreeSet<Name>,
        index_vars: &BTreeSet<Name>,
        info: &mut LoopInfo,
    ) {
        let p = outer.len();
        let mut all_index = index_vars.clone();
        for h in outer {
            if let StmtKind::Do { var, .. } = &self.unit.stmt(*h).kind {
                all_index.insert(var.clone());
            }
        }
        let nest_cache: BTreeMap<StmtId, NormLoop> = stmts
            .iter()
            .flat_map(|b| b.nest.iter().copied())
            .chain(outer.iter().copied())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter_map(|h| self.norm_loop(h).map(|n| (h, n)))
            .collect();
        // The analyzed loop and those around it evaluate their bounds once for all the
        // iterations compared here: a lower bound that is not linear (`DO K = IA(J), ...`, CSR
        // rows) is a symbol of its own. Not for loops inside: their bounds may change between
        // the analyzed loop's iterations.
        let mut nest_cache = nest_cache;
        for h in outer.iter().chain(stmts.first().and_then(|b| b.nest.first())) {
            if nest_cache.contains_key(h) {
                continue;
            }
            if let StmtKind::Do { var, step, .. } = &self.unit.stmt(*h).kind {
                let step = match step {
                    None => Some(1),
                    Some(e) => self.sema.eval_int(e),
                };
                // (a step not known where the loop is around the analyzed one: only the same
                // iteration of it is compared, so any numbering of its iterations will do)
                let around = outer.contains(h);
                if let Some(step) = step.filter(|s| *s != 0).or(around.then_some(1)) {
                    nest_cache.insert(*h, NormLoop { var: var.clone(), lo: Lin::var(&format!("#lo{}", h.0)), step, upper: None });
                }
            }
        }
        let full_nest = |bs: &BodyStmt| -> Vec<StmtId> {
            outer.iter().chain(bs.nest.iter()).copied().collect()
        };
        let mut deps: BTreeSet<Dependence> = BTreeSet::new();
        // Per array: the (kind, source line, sink line) of conflicts that are not regular.
        let mut irregular: BTreeMap<Name, BTreeSet<(DepKind, u32, u32)>> = BTreeMap::new();
        let mut call_conflicts: BTreeMap<(Name, Name, u32), BTreeSet<u32>> = BTreeMap::new();
        for x in arrays.iter().filter(|x| !private.contains(*x)) {
            let mut accs: Vec<(&Access, &BodyStmt)> = accesses
                .iter()
                .filter(|(a, _)| &a.name == x)
                .map(|(a, k)| (*a, &stmts[*k]))
                .collect();
            if !accs.iter().any(|(a, _)| a.write) {
                continue;
            }
            let mut rank = self.sema.symbol(x).map_or(1, |s| s.rank());
            // (a vector laid out by hand as a matrix: its elements in a subscript per part)
            let split = if rank == 1 {
                let plain: Vec<&Access> = accs.iter().map(|(a, _)| *a).collect();
                self.split_matrix(&plain, written_scalars, &all_index)
            } else {
                None
            };
            if let Some((strides, split)) = &split {
                accs = split.iter().zip(accs.iter().map(|(_, b)| *b)).collect();
                rank = strides.len() + 1;
            }
            let nests: Vec<Vec<StmtId>> = accs.iter().map(|(_, bs)| full_nest(bs)).collect();
            let prepared: Vec<(Vec<Subscript>, Vec<LoopRange>)> = accs
                .iter()
                .zip(&nests)
                .map(|((a, _), n)| {
                    self.prepare(a, n, rank, &nest_cache, written_scalars, &all_index)
                })
                .collect();
            let mut points: BTreeMap<usize, Option<Vec<(Vec<i64>, Vec<i64>)>>> = BTreeMap::new();
            for i in 0..accs.len() {
                for j in i..accs.len() {
                    let (a, b) = (accs[i].0, accs[j].0);
                    if !a.write && !b.write {
                        continue;
                    }
                    let orders: &[(usize, usize)] =
                        if i == j { &[(i, i)] } else { &[(i, j), (j, i)] };
                    for &(s, d) in orders {
                        let (sa, sb) = (&accs[s], &accs[d]);
                        // (red-black sweeps: `DO I = MOD(J,2)+1, N, 2` writes only the points
                        // of one colour and reads only the other's)
                        if self.residues_apart((sa.0, &nests[s]), (sb.0, &nests[d]), p, written_scalars, index_vars) {
                            continue;
                        }
                        let common = nests[s]
                            .iter()
                            .zip(&nests[d])
                            .take_while(|(x, y)| x == y)
                            .count();
                        let problem = DepProblem {
                            src: &prepared[s].0,
                            dst: &prepared[d].0,
                            src_loops: &prepared[s].1,
                            dst_loops: &prepared[d].1,
                            common,
                        };
                        let triangular = prepared[s]
                            .1
                            .iter()
                            .chain(&prepared[d].1)
                            .any(|r| r.upper.is_none());
                        let mut vectors = None;
                        if triangular {
                            for k in [s, d] {
                                points.entry(k).or_insert_with(|| {
                                    self.enumerate(accs[k].0, &nests[k], &nest_cache)
                                });
                            }
                            if let (Some(Some(ps)), Some(Some(pd))) =
                                (points.get(&s), points.get(&d))
                            {
                                vectors = exact_vectors(ps, pd, common);
                            }
                        }
                        let vectors = match vectors {
                            Some(v) => v,
                            None => match deptest::test_with_limit(&problem, ENUM_POINTS) {
                                DepResult::Dependent { vectors, .. } => vectors,
                                DepResult::Independent => continue,
                            },
                        };
                        for v in vectors {
                            if v.dirs.len() <= p
                                || !v.dirs[..p].iter().all(|d| matches!(d, Dir::Eq | Dir::Star))
                                || !matches!(v.dirs[p], Dir::Lt | Dir::Star)
                            {
                                continue;
                            }
                            let kind = match (sa.0.write, sb.0.write) {
                                (true, true) => DepKind::Output,
                                (true, false) => DepKind::Flow,
                                _ => DepKind::Anti,
                            };
                            let dist: Vec<Option<i64>> = v.distance[p..].to_vec();
                            let d0 = dist.first().copied().flatten();
                            let regular = v.dirs[p] == Dir::Lt
                                && d0.is_some()
                                && problem
                                    .src
                                    .iter()
                                    .chain(problem.dst)
                                    .all(|s| matches!(s, Subscript::Affine(_)));
                            deps.insert(Dependence {
                                array: x.clone(),
                                kind,
                                distance: dist,
                                source_line: sa.0.line,
                                sink_line: sb.0.line,
                            });
                            let via =
                                sa.0.via_call
                                    .as_ref()
                                    .map(|c| (c, sa.0.line, sb.0.line))
                                    .or(sb.0.via_call.as_ref().map(|c| (c, sb.0.line, sa.0.line)));
                            if let Some((c, call_line, other)) = via {
                                call_conflicts
                                    .entry((c.clone(), x.clone(), call_line))
                                    .or_default()
                                    .insert(other);
                            } else if !regular {
                                irregular
                                    .entry(x.clone())
                                    .or_default()
                                    .insert((kind, sa.0.line, sb.0.line));
                            }
                        }
                    }
                }
            }
        }
        for ((c, x, line), others) in call_conflicts {
            let plural = if others.len() > 1 { "lines" } else { "line" };
            let mut message = format!(
                "call to {} at line {line} accesses {} in a way that conflicts between iterations (with {plural} {})",
                c.to_uppercase(),
                x.to_uppercase(),
                line_runs(&others)
            );
            // a COMMON work array of the callee alone (NPB FT's SCR in SWARZTRAUBER): what
            // the analysis could not show is that each call writes what it reads first
            let scratch = others.iter().all(|l| *l == line) && self.callee_scratch(&c, &x);
            let shown = self.summaries().get(&c).filter(|_| scratch).and_then(|s| {
                let key = s.common_names.iter().find(|(_, n)| *n == &x).map(|(k, _)| k)?;
                s.commons.get(key)?.read_first.clone()
            });
            if let Some(why) = shown {
                // (executed with the program's values, a call read an element it had not
                // written: the values flow from one call to the next)
                message.push_str(&format!("; {} reads elements of {} it did not write first in the same call: {why}", c.to_uppercase(), x.to_uppercase()));
            } else if scratch {
                message.push_str(&format!(
                    "; {C} writes {X} and reads elements of it the analysis does not show it wrote first in the same call: if every call writes what it reads of {X} first and no code after the loop reads what it leaves, `sapfor refine private` on this loop with {X} makes it private",
                    C = c.to_uppercase(),
                    X = x.to_uppercase()
                ));
            }
            info.blockers.push(Blocker { code: BlockerCode::Call, message, line });
        }
        for (x, conflicts) in irregular {
            let kinds: BTreeSet<&str> = conflicts.iter().map(|(k, _, _)| k.as_str()).collect();
            let pairs: Vec<String> = conflicts
                .iter()
                .map(|(_, a, b)| format!("{a}->{b}"))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let line = conflicts
                .iter()
                .map(|(_, a, _)| *a)
                .min()
                .unwrap_or(info.line);
            info.blockers.push(Blocker {
                code: BlockerCode::Dep,
                message: format!(
                    "{} with a distance that is not constant ({} dependence, lines {})",
                    dep_blocker_head(&x),
                    kinds.into_iter().collect::<Vec<_>>().join("/"),
                    pairs.join(", ")
                ),
                line,
            });
        }
        info.dependences = deps.into_iter().collect();
    }

    /// Every iteration of an access's nest (iteration numbers per level) with the element it
    /// touches, when the nest is small and all bounds and subscripts are computable.
    fn enumerate(
        &self,
        a: &Access,
        nest: &[StmtId],
        cache: &BTreeMap<StmtId, NormLoop>,
    ) -> Option<Vec<(Vec<i64>, Vec<i64>)>> {
        const LIMIT: usize = 20_000;
        let f = const_lin(self.sema);
        let subs: Vec<Lin> = a
            .subs
            .as_ref()?
            .iter()
            .map(|s| s.expr().and_then(|e| linearize(e, &f)))
            .collect::<Option<_>>()?;
        let loops: Vec<(&NormLoop, Lin)> = nest
            .iter()
            .map(|h| {
                let nl = cache.get(h)?;
                let StmtKind::Do { hi, .. } = &self.unit.stmt(*h).kind else {
                    return None;
                };
                Some((nl, linearize(hi, &f)?))
            })
            .collect::<Option<_>>()?;
        let eval = |l: &Lin, vals: &BTreeMap<&str, i64>| -> Option<i64> {
            let mut v = l.constant as i128;
            for (n, c) in &l.terms {
                v += *c as i128 * *vals.get(n.as_str())? as i128;
            }
            i64::try_from(v).ok()
        };
        let mut out = vec![];
        let mut vals: BTreeMap<&str, i64> = BTreeMap::new();
        let mut ks: Vec<i64> = vec![];
        fn rec<'n>(
            d: usize,
            loops: &'n [(&'n NormLoop, Lin)],
            subs: &[Lin],
            vals: &mut BTreeMap<&'n str, i64>,
            ks: &mut Vec<i64>,
            out: &mut Vec<(Vec<i64>, Vec<i64>)>,
            eval: &dyn Fn(&Lin, &BTreeMap<&str, i64>) -> Option<i64>,
        ) -> Option<()> {
            if d == loops.len() {
                if out.len() >= 20_000 {
                    return None;
                }
                let e: Vec<i64> = subs.iter().map(|s| eval(s, vals)).collect::<Option<_>>()?;
                out.push((ks.clone(), e));
                return Some(());
            }
            let (nl, hi) = &loops[d];
            let lo = eval(&nl.lo, vals)?;
            let hi = eval(hi, vals)?;
            let mut v = lo;
            let mut k = 0;
            while (nl.step > 0 && v <= hi) || (nl.step < 0 && v >= hi) {
                vals.insert(nl.var.as_str(), v);
                ks.push(k);
                rec(d + 1, loops, subs, vals, ks, out, eval)?;
                ks.pop();
                v += nl.step;
                k += 1;
                if k as usize > 20_000 {
                    return None;
                }
            }
            vals.remove(nl.var.as_str());
            Some(())
        }
        rec(0, &loops, &subs, &mut vals, &mut ks, &mut out, &eval)?;
        (out.len() <= LIMIT).then_some(out)
    }

    /// Normalized form of a loop of the nest: var = lo + step * k, k in [0, upper].
    fn norm_loop(&self, header: StmtId) -> Option<NormLoop> {
        let StmtKind::Do {
            var, lo, hi, step, ..
        } = &self.unit.stmt(header).kind
        else {
            return None;
        };
        let step = match step {
            None => 1,
            Some(s) => self.sema.eval_int(s)?,
        };
        if step == 0 {
            return None;
        }
        // a bound like `G(1) - 3` (NPB's grid_points) is a symbol of its own when nothing in
        // the unit changes what it reads
        let lo_l = self.lin(lo)?;
        let hi_l = self.lin(hi);
        // a bound the unit computes (a blocked loop's `DO J = JB, JE` after `JE = MIN(JB + 7,
        // N)`): the code before the DO statement bounds it by a form over the loops around
        // (`JB + 7`), which bounds the trip count (more iterations than the loop makes only
        // add conflicts to a test of may-accesses). Only a bound that reads a variable the
        // unit assigns can come out otherwise than it stands (the walk starts by finding the
        // DO statement's path: not for every `DO I = 1, N`)
        let assigned = hi_l.as_ref().is_some_and(|h| h.vars().any(|v| self.written.contains(v)));
        let reach = || {
            if !assigned {
                return None;
            }
            let far = self.bound_at(hi, header, step > 0)?;
            far.add(&lo_l, -1)?.as_const()
        };
        let upper = hi_l
            .and_then(|h| h.add(&lo_l, -1))
            .and_then(|d| d.as_const())
            .or_else(reach)
            .map(|c| {
                if (step > 0 && c < 0) || (step < 0 && c > 0) {
                    -1
                } else {
                    c / step
                }
            });
        Some(NormLoop {
            var: var.clone(),
            lo: lo_l,
            step,
            upper,
        })
    }

    /// Whether accesses `a` and `b` (each with its loop nest, the first `p` loops around the
    /// analyzed one, shared) can never touch one element, by residues: a DO loop with a
    /// constant step `s` (|s| > 1) keeps its variable congruent to its first value modulo s
    /// (`DO I = MOD(J,2)+1, N, 2`: I = J + 1 mod 2, a `MOD(e, k)` with s dividing k being e
    /// modulo s), and when no residues of the variables modulo the steps' least common multiple
    /// satisfy those congruences and make every subscript of `a` equal to `b`'s, no iterations
    /// do (an integer solution would give residues that do).
    fn residues_apart(&self, (a, na): (&Access, &[StmtId]), (b, nb): (&Access, &[StmtId]), p: usize, written: &BTreeSet<Name>, index_vars: &BTreeSet<Name>) -> bool {
        let (Some(sa), Some(sb)) = (&a.subs, &b.subs) else { return false };
        if sa.len() != sb.len() || !a.implied.is_empty() || !b.implied.is_empty() {
            return false;
        }
        // (only loops with a constant step other than 1 or -1 give congruences)
        let step_of = |h: &StmtId| match &self.unit.stmt(*h).kind {
            StmtKind::Do { step: Some(step), .. } => self.sema.eval_int(step).map(i64::abs).filter(|s| *s > 1 && *s <= 8),
            _ => None,
        };
        if !na.iter().chain(nb).any(|h| step_of(h).is_some()) {
            return false;
        }
        // the loop variables of a side, renamed apart beyond the shared loops
        let side = |nest: &[StmtId], tag: &str| -> BTreeMap<Name, String> {
            nest.iter()
                .enumerate()
                .filter_map(|(k, h)| match &self.unit.stmt(*h).kind {
                    StmtKind::Do { var, .. } => Some((var.clone(), if k < p { var.clone() } else { format!("{var}'{tag}") })),
                    _ => None,
                })
                .collect()
        };
        let (ra, rb) = (side(na, "a"), side(nb, "b"));
        // a form over this side's loop variables and names the loop does not change
        let rename = |l: &Lin, r: &BTreeMap<Name, String>| -> Option<Lin> {
            let mut out = Lin::constant(l.constant);
            for (v, c) in &l.terms {
                let name = match r.get(v) {
                    Some(n) => n.clone(),
                    None if written.contains(v) || index_vars.contains(v) => return None,
                    None => v.clone(),
                };
                out = out.add(&Lin::var(&name).scale(*c)?, 1)?;
            }
            Some(out)
        };
        // congruences (variable, modulus, first value)
        let mut facts: Vec<(String, i64, Lin)> = vec![];
        for (nest, r) in [(na, &ra), (nb, &rb)] {
            for (k, h) in nest.iter().enumerate() {
                let (StmtKind::Do { var, lo, .. }, Some(s)) = (&self.unit.stmt(*h).kind, step_of(h)) else { continue };
                // (the first value may use the variables of the loops around this one only)
                let around: BTreeMap<Name, String> = nest[..k]
                    .iter()
                    .filter_map(|o| match &self.unit.stmt(*o).kind {
                        StmtKind::Do { var, .. } => Some((var.clone(), r[var].clone())),
                        _ => None,
                    })
                    .collect();
                if let Some(first) = self.lin_mod(lo, s).and_then(|l| rename(&l, &around)) {
                    let f = (r[var].clone(), s, first);
                    if !facts.contains(&f) {
                        facts.push(f);
                    }
                }
            }
        }
        if facts.is_empty() {
            return false;
        }
        let m = facts.iter().fold(1i64, |m, (_, s, _)| m / gcd(m, *s) * s);
        let mut eqs: Vec<Lin> = vec![];
        for (x, y) in sa.iter().zip(sb) {
            let (Some(x), Some(y)) = (x.expr(), y.expr()) else { continue };
            let (Some(lx), Some(ly)) = (self.lin_at(x, a.stmt), self.lin_at(y, b.stmt)) else { continue };
            if let Some(d) = rename(&lx, &ra).zip(rename(&ly, &rb)).and_then(|(x, y)| x.add(&y, -1)) {
                eqs.push(d);
            }
        }
        if eqs.is_empty() {
            return false;
        }
        let mut vars: BTreeSet<String> = BTreeSet::new();
        for l in eqs.iter().chain(facts.iter().map(|(_, _, l)| l)) {
            vars.extend(l.vars().cloned());
        }
        vars.extend(facts.iter().map(|(v, _, _)| v.clone()));
        let vars: Vec<String> = vars.into_iter().collect();
        if (m as f64).powi(vars.len() as i32) > 65536.0 {
            return false;
        }
        let value = |l: &Lin, at: &[i64]| -> i64 { l.constant + l.terms.iter().map(|(v, c)| c * at[vars.binary_search(v).unwrap_or(0)]).sum::<i64>() };
        let mut at = vec![0i64; vars.len()];
        loop {
            let ok = facts.iter().all(|(v, s, first)| (at[vars.binary_search(v).unwrap_or(0)] - value(first, &at)).rem_euclid(*s) == 0)
                && eqs.iter().all(|d| value(d, &at).rem_euclid(m) == 0);
            if ok {
                return false;
            }
            // the next assignment of residues
            let mut k = 0;
            while k < at.len() {
                at[k] += 1;
                if at[k] < m {
                    break;
                }
                at[k] = 0;
                k += 1;
            }
            if k == at.len() {
                return true;
            }
        }
    }

    /// An integer expression modulo `s` as a linear form, where `MOD(e, k)` with `s` dividing
    /// `k` is `e` (congruent to it modulo s).
    fn lin_mod(&self, e: &Expr, s: i64) -> Option<Lin> {
        use crate::ast::{BinOp, UnOp};
        match e {
            Expr::Ref(f, args) if f == "mod" && args.len() == 2 && self.sema.symbol(f).is_none_or(|x| x.intrinsic || !x.explicit_type) && !self.summaries().contains_key(f) => {
                let k = self.sema.eval_int(args[1].expr()?)?;
                if k == 0 || k % s != 0 {
                    return None;
                }
                self.lin_mod(args[0].expr()?, s)
            }
            Expr::Binary(op @ (BinOp::Add | BinOp::Sub), x, y) => self.lin_mod(x, s)?.add(&self.lin_mod(y, s)?, if *op == BinOp::Add { 1 } else { -1 }),
            Expr::Binary(BinOp::Mul, x, y) => match (self.sema.eval_int(x), self.sema.eval_int(y)) {
                (Some(c), _) => self.lin_mod(y, s)?.scale(c),
                (_, Some(c)) => self.lin_mod(x, s)?.scale(c),
                _ => None,
            },
            Expr::Unary(UnOp::Neg, x) => self.lin_mod(x, s)?.scale(-1),
            Expr::Unary(UnOp::Plus, x) => self.lin_mod(x, s),
            _ => self.lin(e),
        }
    }

    /// The linear form of an integer expression, PARAMETERs folded, with what the unit never
    /// changes (`G(1)`, NPB's `grid_points(1)`) as symbols of their own.
    fn lin(&self, e: &Expr) -> Option<Lin> {
        let opaque = |e: &Expr| self.unchanged_in_unit(e).then(|| format!("{e:?}"));
        linearize_with(e, &const_lin(self.sema), &opaque)
    }

    /// The fewest elements of a declared dimension that loop variable `var` indexes (with
    /// coefficient 1 or -1) in the loop's accesses, divided by the step: a bound on the trip
    /// count of a loop whose bounds are not known (a legal program stays inside its arrays).
    fn trip_estimate(&self, var: &str, step: Option<i64>, accesses: &[(&Access, usize)]) -> Option<u64> {
        let cl = const_lin(self.sema);
        let mut best: Option<i64> = None;
        for (a, _) in accesses.iter().filter(|(a, _)| a.via_call.is_none() && a.implied.is_empty()) {
            let (Some(subs), Some(dims)) = (&a.subs, self.sema.symbol(&a.name).and_then(|s| s.dims.as_ref())) else {
                continue;
            };
            if subs.len() != dims.len() {
                continue;
            }
            let unknown = self.sema.symbol(&a.name).is_some_and(|s| s.size_unknown());
            let bound = self.bound_extents.get(&a.name).filter(|b| b.len() == dims.len());
            for (k, (sub, d)) in subs.iter().zip(dims).enumerate() {
                // `A(*)`, or `A(1)` in a dummy: the last dimension bounds nothing (an
                // assumed-size dimension is often walked in sub-ranges, CG's `COLIDX(*)`); a
                // dimension with bounds the unit does not know (`V(LDX, LDY, *)`) is bounded by
                // the array every call binds the dummy to
                let extent = if unknown && k + 1 == dims.len() { None } else { d.extent().or_else(|| bound.and_then(|b| b[k])) };
                let Some(l) = sub.expr().and_then(|e| linearize(e, &cl)) else { continue };
                if l.coeff(var).abs() != 1 {
                    continue;
                }
                if let Some(x) = extent.filter(|x| *x > 0) {
                    best = Some(best.map_or(x, |b| b.min(x)));
                }
            }
        }
        let step = step.filter(|s| *s != 0).unwrap_or(1).abs();
        best.map(|b| ((b + step - 1) / step) as u64)
    }

    /// The rows of a compressed-row loop `DO K = P(J), P(J+1) - 1` (a row pointer array P of
    /// constant extent): its extent less one. The arrays K indexes hold every row's
    /// elements, so one row has about their extent divided by this (NPB CG's
    /// `DO K = ROWSTR(J), ROWSTR(J+1)-1` over COLIDX(K): 1.8 million elements in 7,000
    /// rows, not 1.8 million a row).
    fn csr_rows(&self, lo: &Expr, hi: &Expr) -> Option<u64> {
        let Expr::Ref(p, a) = lo else { return None };
        let Expr::Binary(crate::ast::BinOp::Sub, x, one) = hi else { return None };
        if !matches!(**one, Expr::Int(1)) {
            return None;
        }
        let Expr::Ref(p2, b) = &**x else { return None };
        if p != p2 || a.len() != 1 || b.len() != 1 || !self.sema.is_array(p) {
            return None;
        }
        let cl = const_lin(self.sema);
        let (la, lb) = (linearize(a[0].expr()?, &cl)?, linearize(b[0].expr()?, &cl)?);
        if la.terms != lb.terms || lb.constant != la.constant + 1 || la.terms.is_empty() {
            return None;
        }
        // (a dummy's row pointers: the extent of the array every call binds it to)
        let extent = self.sema.symbol(p)?.dims.as_ref()?.first()?.extent().or_else(|| *self.bound_extents.get(p)?.first()?)?;
        (extent > 1).then(|| (extent - 1) as u64)
    }

    /// `lin` where statement `at` evaluates the expression: a scalar assigned a linear form
    /// earlier in the iteration (`ip1 = i + 1`, `i = 1`) stands for that form.
    fn lin_at(&self, e: &Expr, at: StmtId) -> Option<Lin> {
        let mut l = self.lin(e)?;
        let assigned: Vec<Name> = l.vars().filter(|v| self.written.contains(*v)).cloned().collect();
        for v in assigned {
            if let Some(by) = self.forward_value(at, &v) {
                l = l.substitute(&v, &by)?;
            }
        }
        // COMMON scalars the program set once before this unit runs (`crate::facts`)
        let known: Vec<Name> = l.vars().filter(|v| self.sema.facts.contains_key(*v) && !self.written.contains(*v)).cloned().collect();
        for v in known {
            l = l.substitute(&v, &self.sema.facts[&v])?;
        }
        Some(l)
    }

    /// The conditions of the accesses of `table` (`Access::needs`) that the code before their
    /// statements does not show to hold (`holds_at`), as (statement, access, conditions left).
    fn conditions_left(&self, table: &[(Vec<Access>, Vec<CallSite>)]) -> Vec<(usize, usize, Vec<Expr>)> {
        let mut out = vec![];
        for (si, (accs, _)) in table.iter().enumerate() {
            for (ai, a) in accs.iter().enumerate().filter(|(_, a)| !a.needs.is_empty()) {
                out.push((si, ai, a.needs.iter().filter(|n| !self.holds_at(n, StmtId(si as u32))).cloned().collect()));
            }
        }
        out
    }

    /// Whether `e >= 0` holds where statement `at` runs, shown by walking back from it along
    /// the structure (`lower_bounds`; the blocked-loop idiom: `DO JB = 1, N, 8`, `JE =
    /// MIN(JB + 7, N)`, `CALL KERN(A(1,JB), LDA, JE - JB + 1)` stays inside A's N columns).
    fn holds_at(&self, e: &Expr, at: StmtId) -> bool {
        self.lin(e).is_some_and(|f| self.holds_lin(f, at))
    }

    /// `holds_at` for a linear form.
    fn holds_lin(&self, f: Lin, at: StmtId) -> bool {
        let Some(path) = self.path_to(at) else { return false };
        self.lower_bound_sets(f, &path, at, &|g: &Lin| g.terms.is_empty()).iter().any(|set| set.iter().all(|g| g.constant >= 0))
    }

    /// The accesses of a one-dimensional array laid out by hand as a matrix or a higher array
    /// (NPB FT's `PLANE(J-BLS+1+BLKP*(I-1))`, the classic `A(I+LDA*(J-1))`) with a subscript
    /// per part, `(f0, f1, ...)` for `A(f0 + S1*(f1 + ...))` (`affine::split_strides`): when
    /// every access is an element with such a subscript, all with the same strides, over
    /// scalars the loop does not assign, and the code shows every part but the last inside
    /// one window `c..c+S-1` of its stride where its statement runs (c = 1 or 0; while a loop
    /// is analyzed for a run-time test, what the program can test for it). Elements are then
    /// equal exactly when all parts are. The strides and the accesses; None otherwise.
    fn split_matrix(&self, accs: &[&Access], written: &BTreeSet<Name>, index_vars: &BTreeSet<Name>) -> Option<(Vec<Lin>, Vec<Access>)> {
        let stride_ok = |n: &str| {
            !written.contains(n) && !index_vars.contains(n) && self.sema.symbol(n).is_some_and(|s| s.rank() == 0 && s.ty.base == crate::ast::BaseType::Integer)
        };
        let mut strides: Option<Vec<Lin>> = None;
        let mut split = vec![];
        for a in accs {
            if !a.needs.is_empty() {
                return None;
            }
            let [Arg::Expr(e)] = a.subs.as_deref()? else { return None };
            match crate::affine::split_strides(e, &const_lin(self.sema), &stride_ok) {
                Some((p, ss)) => {
                    if *strides.get_or_insert_with(|| ss.clone()) != ss {
                        return None;
                    }
                    split.push(Some(p));
                }
                None => split.push(None),
            }
        }
        let strides = strides?;
        let parts: Vec<Vec<Lin>> = accs
            .iter()
            .zip(split)
            .map(|(a, p)| p.or_else(|| crate::affine::linear_parts(&linearize(a.subs.as_deref()?.first()?.expr()?, &const_lin(self.sema))?, &strides)))
            .collect::<Option<_>>()?;
        // (a variable over a range, `Access::implied`, at the end of the range that makes the
        // form smallest)
        let lowest = |f: Lin, a: &Access| -> Option<Lin> {
            let mut f = f;
            for (v, lo, hi) in &a.implied {
                let k = f.coeff(v);
                if k != 0 {
                    f = f.substitute(v, &self.lin_at(if k > 0 { lo } else { hi }, a.stmt)?)?;
                }
            }
            Some(f)
        };
        // (shown, or while a loop is analyzed for a run-time test, what the program can test
        // that makes it so: `testable_at`)
        let testing = self.assume.borrow().is_some();
        let shown = |g: Option<Lin>, at: StmtId, tests: &mut Vec<Lin>| match g {
            Some(g) if self.holds_lin(g.clone(), at) => true,
            Some(g) if testing => self.testable_at(g, at).map(|t| tests.extend(t)).is_some(),
            _ => false,
        };
        // (each part but the last inside its stride's window, at the same c everywhere)
        let inside = |level: usize, c: i64| -> Option<Vec<Lin>> {
            let s = &strides[level];
            let mut tests = vec![];
            for (a, p) in accs.iter().zip(&parts) {
                let f = &p[level];
                let low = f.add(&Lin::constant(c), -1).and_then(|l| lowest(l, a));
                let high = s.add(&Lin::constant(c - 1), 1).and_then(|h| h.add(f, -1)).and_then(|h| lowest(h, a));
                if !shown(low, a.stmt, &mut tests) || !shown(high, a.stmt, &mut tests) {
                    return None;
                }
            }
            Some(tests)
        };
        let mut tests = vec![];
        for level in 0..strides.len() {
            tests.extend([1, 0].into_iter().find_map(|c| inside(level, c))?);
        }
        if let Some(need) = self.assume.borrow_mut().as_mut() {
            take_tests(need, &tests);
        }
        Some((
            strides,
            accs.iter()
                .zip(parts)
                .map(|(a, p)| {
                    let mut b = (*a).clone();
                    b.subs = Some(p.iter().map(|f| Arg::Expr(f.to_expr())).collect());
                    b
                })
                .collect(),
        ))
    }

    /// `find_path` from the unit's body to statement `at`.
    fn path_to(&self, at: StmtId) -> Option<Vec<(&'a [Node], usize)>> {
        let mut path = vec![];
        find_path(&self.unit.body, at, &mut path).then_some(path)
    }

    /// A bound of `e` where statement `at` runs (above when `upper`, else below) over the DO
    /// variables of the loops around it and names the unit never changes, preferring the one
    /// with the most DO variables (the section a blocked loop's iteration reaches: `JB..JE`
    /// with `JE = MIN(JB + 7, N)` is inside `JB..JB+7`).
    fn bound_at(&self, e: &Expr, at: StmtId, upper: bool) -> Option<Lin> {
        let f = self.lin(e)?;
        let path = self.path_to(at)?;
        let dos = path_do_vars(self.unit, &path);
        let stable = |g: &Lin| g.vars().all(|v| dos.contains(v) || self.unchanged_in_unit(&Expr::Var(v.clone())));
        let start = if upper { f.scale(-1)? } else { f };
        let best = self.lower_bounds(start, &path, at, &stable).into_iter().max_by_key(|g| g.vars().filter(|v| dos.contains(v)).count())?;
        if upper {
            best.scale(-1)
        } else {
            Some(best)
        }
    }

    /// Forms g with `f >= g` where statement `at` runs, over names `stable` accepts, found
    /// walking back from it along the structure (`path`, from `path_to`; a few alternatives at
    /// most). Each earlier
    /// statement of the same code that assigns a variable of the form puts its value there
    /// (the form is then what holds before it); `V = MIN(a, b)` bounds V above (by a or b)
    /// where its coefficient is negative, `MAX` below where positive, and `IF (V .GT. b) V =
    /// b` after it bounds V by b or by its value before. At the top of a DO loop's body its
    /// variable lies between the loop's bounds (a constant step), and nothing the body assigns
    /// may be left (earlier iterations set it). A jump target, or any other statement that
    /// assigns the form's variables, ends the walk with nothing.
    fn lower_bounds(&self, f: Lin, path: &[(&[Node], usize)], at: StmtId, stable: &dyn Fn(&Lin) -> bool) -> Vec<Lin> {
        self.lower_bound_sets(f, path, at, stable).into_iter().filter(|g| g.len() == 1).flatten().collect()
    }

    /// `lower_bounds`, where a DO loop whose step is not known bounds its variable by both of
    /// its bounds (`DO JB = 1, N, NB`: whatever the sign of NB, JB lies between 1 and N): sets
    /// of forms, `f >= 0` holding where all of a set's forms are `>= 0`.
    fn lower_bound_sets(&self, f: Lin, path: &[(&[Node], usize)], at: StmtId, stable: &dyn Fn(&Lin) -> bool) -> Vec<Vec<Lin>> {
        let Some(&(_, j)) = path.last().filter(|_| !self.unit.stmt(at).label.is_some_and(|l| self.targets.contains_key(&l))) else {
            return vec![];
        };
        let mut out = vec![];
        self.bounds_from(f, path, path.len() - 1, j, stable, &mut out, &mut 32);
        out
    }

    /// Forms over symbols the program can test where a loop starts (`test_form`'s), all `>= 0`
    /// only where `f >= 0` holds at statement `at` (`lower_bound_sets`); constants that hold
    /// are left out (none: `f >= 0` holds). None when no such set is found.
    fn testable_at(&self, f: Lin, at: StmtId) -> Option<Vec<Lin>> {
        let path = self.path_to(at)?;
        let stable_only = self.stable_only.borrow();
        let testable = |g: &Lin| g.terms.keys().all(|v| !self.written.contains(v) && render_symbol(v).is_some() && stable_only.as_ref().is_none_or(|s| s.contains(v)));
        self.lower_bound_sets(f, &path, at, &testable)
            .into_iter()
            .filter(|set| set.iter().all(|g| !g.terms.is_empty() || g.constant >= 0))
            .map(|set| set.into_iter().filter(|g| !g.terms.is_empty()).collect::<Vec<Lin>>())
            .min_by_key(|set| set.len())
    }

    #[allow(clippy::too_many_arguments)]
    fn bounds_from(&self, mut f: Lin, path: &[(&[Node], usize)], mut level: usize, mut j: usize, stable: &dyn Fn(&Lin) -> bool, out: &mut Vec<Vec<Lin>>, budget: &mut u32) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let targeted = |st: &Stmt| st.label.is_some_and(|l| self.targets.contains_key(&l));
        let writes = |st: &Stmt, f: &Lin| self.acc.get()[st.id.0 as usize].0.iter().any(|a| a.write && f.terms.contains_key(&a.name));
        let touches = |nodes: &[Node], f: &Lin| {
            let mut hit = false;
            for_each_stmt(self.unit, nodes, &mut |st| hit |= targeted(st) || writes(st, f));
            hit
        };
        loop {
            if stable(&f) {
                out.push(vec![f]);
                return;
            }
            if j == 0 {
                // the top of this statement list: of a DO loop's body, or an IF's arm
                if level == 0 {
                    return;
                }
                let (ls, k) = path[level - 1];
                if let Node::Do { header, body, .. } = &ls[k] {
                    let hs = self.unit.stmt(*header);
                    if targeted(hs) {
                        return;
                    }
                    if let StmtKind::Do { var, lo, hi, step, .. } = &hs.kind {
                        if let Some(&c) = f.terms.get(var) {
                            let up = match step {
                                None => true,
                                Some(x) => match self.sema.eval_int(x) {
                                    Some(k) if k != 0 => k > 0,
                                    Some(_) => return,
                                    None => {
                                        // a step of either sign: the variable lies between
                                        // the bounds, so f is at least the smaller of its
                                        // values at them (both must be shown)
                                        let at_bound = |b: &Expr| self.lin(b).and_then(|l| f.substitute(var, &l)).filter(|g| !touches(body, g));
                                        let (Some(a), Some(b)) = (at_bound(lo), at_bound(hi)) else { return };
                                        let (mut xs, mut ys) = (vec![], vec![]);
                                        self.bounds_from(a, path, level - 1, k, stable, &mut xs, budget);
                                        self.bounds_from(b, path, level - 1, k, stable, &mut ys, budget);
                                        for x in xs.iter().take(4) {
                                            for y in ys.iter().take(4) {
                                                out.push(x.iter().chain(y).cloned().collect());
                                            }
                                        }
                                        return;
                                    }
                                },
                            };
                            let bound = if (c > 0) == up { lo } else { hi };
                            match self.lin(bound).and_then(|l| f.substitute(var, &l)) {
                                Some(g) => f = g,
                                None => return,
                            }
                        }
                    }
                    if touches(body, &f) {
                        return;
                    }
                }
                level -= 1;
                j = k;
                continue;
            }
            j -= 1;
            let node = &path[level].0[j];
            let Node::Stmt(d) = node else {
                if touches(std::slice::from_ref(node), &f) {
                    return;
                }
                continue;
            };
            let st = self.unit.stmt(*d);
            if targeted(st) {
                return;
            }
            if !writes(st, &f) {
                continue;
            }
            // the forms before the statement (several: a bound by either side)
            let mut before: Vec<Lin> = vec![];
            match &st.kind {
                StmtKind::Assign { lhs: Expr::Var(v), rhs } if !self.sema.is_array(v) => {
                    let c = f.terms.get(v).copied().unwrap_or(0);
                    match rhs {
                        Expr::Ref(m, args) if (m == "min" && c < 0 || m == "max" && c > 0) && self.sema.symbol(m).is_none_or(|x| x.intrinsic || !x.explicit_type) => {
                            before.extend(args.iter().filter_map(|a| f.substitute(v, &self.lin(a.expr()?)?)));
                        }
                        _ => before.extend(self.lin(rhs).and_then(|l| f.substitute(v, &l))),
                    }
                }
                // `IF (V .GT. B) V = B` (MIN) where V counts negatively, `.LT.` (MAX) positively
                StmtKind::LogicalIf(Expr::Binary(op, x, y), inner) => {
                    if let (Expr::Var(v), StmtKind::Assign { lhs: Expr::Var(w), rhs }) = (&**x, &inner.kind) {
                        let c = f.terms.get(v).copied().unwrap_or(0);
                        let clamps = matches!(op, BinOp::Gt | BinOp::Ge) && c < 0 || matches!(op, BinOp::Lt | BinOp::Le) && c > 0;
                        if v == w && clamps && self.lin(y).is_some() && self.lin(y) == self.lin(rhs) {
                            before.extend(self.lin(y).and_then(|l| f.substitute(v, &l)));
                            before.push(f.clone());
                        }
                    }
                }
                _ => {}
            }
            for g in before {
                self.bounds_from(g, path, level, j, stable, out, budget);
            }
            return;
        }
    }

    /// The value of scalar `v` where statement `at` reads it, as a linear form, when the
    /// assignment that sets it is found walking back along the structure: the nearest
    /// earlier statement that assigns `v` is `v = <linear form>` over names the unit never
    /// changes and the variables of DO loops around both; nothing between (no jump target,
    /// no other assignment, no loop body that assigns `v` on its way round) can change it.
    fn forward_value(&self, at: StmtId, v: &str) -> Option<Lin> {
        let sym = self.sema.symbol(v)?;
        if self.sema.is_array(v) || !sym.aliases.is_empty() {
            return None;
        }
        let mut path: Vec<(&[Node], usize)> = vec![];
        if !find_path(&self.unit.body, at, &mut path) {
            return None;
        }
        let targeted = |st: &Stmt| st.label.is_some_and(|l| self.targets.contains_key(&l));
        // (whether the nodes assign `v`, whether a jump may arrive among them)
        let scan = |nodes: &[Node]| {
            let (mut assigns, mut jump) = (false, false);
            for_each_stmt(self.unit, nodes, &mut |st| {
                assigns |= self.acc.get()[st.id.0 as usize].0.iter().any(|a| a.write && a.name == v);
                jump |= targeted(st);
            });
            (assigns, jump)
        };
        let (list, i) = *path.last()?;
        if matches!(list[i], Node::Stmt(_)) && targeted(self.unit.stmt(at)) {
            return None;
        }
        // the nodes between the assignment found and `at` (what may run between them)
        let mut passed: Vec<&[Node]> = vec![];
        for level in (0..path.len()).rev() {
            let (list, i) = path[level];
            for j in (0..i).rev() {
                let (t, jump) = scan(std::slice::from_ref(&list[j]));
                if !t {
                    passed.push(std::slice::from_ref(&list[j]));
                }
                if t {
                    let Node::Stmt(d) = &list[j] else { return None };
                    let StmtKind::Assign { lhs: Expr::Var(x), rhs } = &self.unit.stmt(*d).kind else {
                        return None;
                    };
                    if x != v || jump {
                        return None;
                    }
                    let l = self.lin(rhs)?;
                    // the DO variables of the loops around the assignment (they enclose `at`)
                    let around = path_do_vars(self.unit, &path[..level]);
                    // (a scalar no statement between assigns keeps its value: MG's `I1 = 2*J1 -
                    // D1` read at `X1(I1-1)`, D1 set before the loops by an IF)
                    let kept = |n: &Name| {
                        n != v
                            && !self.sema.is_array(n)
                            && self.sema.symbol(n).is_some_and(|s| s.aliases.is_empty() && s.param.is_none())
                            && passed.iter().all(|ns| {
                                let mut assigns = false;
                                for_each_stmt(self.unit, ns, &mut |st| assigns |= self.acc.get()[st.id.0 as usize].0.iter().any(|a| a.write && &a.name == n));
                                !assigns
                            })
                    };
                    let ok = l.vars().all(|n| around.contains(n) || self.unchanged_in_unit(&Expr::Var(n.clone())) || kept(n));
                    return ok.then_some(l);
                }
                if jump {
                    return None;
                }
            }
            // leaving a loop body upwards: the rest of the body runs before the next read
            if level > 0 {
                let (ls, k) = path[level - 1];
                if let Node::Do { header, body, .. } = &ls[k] {
                    let hs = self.unit.stmt(*header);
                    // the DO statement sets its own variable
                    let own = matches!(&hs.kind, StmtKind::Do { var, .. } if var == v);
                    if own || scan(body).0 || targeted(hs) {
                        return None;
                    }
                    passed.push(body);
                }
            }
        }
        None
    }

    /// Whether an expression reads only constants, and variables and array elements that no
    /// statement of the unit assigns (directly or through a call).
    fn unchanged_in_unit(&self, e: &Expr) -> bool {
        match e {
            Expr::Int(_) | Expr::Real(_) | Expr::Logical(_) => true,
            Expr::Var(n) => !self.written.contains(n),
            Expr::Ref(n, args) => {
                self.sema.is_array(n)
                    && !self.written.contains(n)
                    && args.iter().all(|a| match a {
                        Arg::Expr(x) => self.unchanged_in_unit(x),
                        _ => false,
                    })
            }
            Expr::Unary(_, x) => self.unchanged_in_unit(x),
            Expr::Binary(_, a, b) => self.unchanged_in_unit(a) && self.unchanged_in_unit(b),
            _ => false,
        }
    }

    /// Subscripts in normalized iteration variables, and the loop ranges of the access's nest.
    fn prepare(
        &self,
        a: &Access,
        nest: &[StmtId],
        rank: usize,
        nests: &BTreeMap<StmtId, NormLoop>,
        written: &BTreeSet<Name>,
        index_vars: &BTreeSet<Name>,
    ) -> (Vec<Subscript>, Vec<LoopRange>) {
        let loops: Vec<Option<&NormLoop>> = nest.iter().map(|h| nests.get(h)).collect();
        let ranges: Vec<LoopRange> = loops
            .iter()
            .map(|l| LoopRange {
                lower: Some(0),
                upper: l.and_then(|l| l.upper),
            })
            .collect();
        let vars: Vec<Option<&Name>> = nest
            .iter()
            .map(|h| match &self.unit.stmt(*h).kind {
                StmtKind::Do { var, .. } => Some(var),
                _ => None,
            })
            .collect();
        let mut ranges = ranges;
        let subs = match &a.subs {
            None => vec![Subscript::Unknown; rank],
            Some(s) if s.len() != rank => vec![Subscript::Unknown; rank],
            Some(s) => s
                .iter()
                .map(|arg| match arg {
                    // a section a call reaches whose width is a constant (a blocked loop's
                    // `A(1:LDA, JB:JB+7)`): its start plus the counter of a loop of its own,
                    // after the nest's, over the width
                    Arg::Range(Some(lo), Some(hi), None) if a.via_call.is_some() => {
                        let at = |e: &Expr| self.subscript(&Arg::Expr(e.clone()), &loops, &vars, written, index_vars, &a.implied, a.stmt);
                        match (at(lo), at(hi)) {
                            (Subscript::Affine(l), Subscript::Affine(h)) => {
                                let pad = |c: &[i64], n: usize| -> Vec<i64> { (0..n).map(|k| c.get(k).copied().unwrap_or(0)).collect() };
                                let n = l.coeffs.len().max(h.coeffs.len());
                                let w = h.constant - l.constant;
                                if pad(&l.coeffs, n) != pad(&h.coeffs, n) || l.syms != h.syms || w < 0 {
                                    return Subscript::Unknown;
                                }
                                let mut coeffs = pad(&l.coeffs, ranges.len());
                                coeffs.push(1);
                                ranges.push(LoopRange { lower: Some(0), upper: Some(w) });
                                Subscript::Affine(Affine { coeffs, syms: l.syms, constant: l.constant })
                            }
                            _ => Subscript::Unknown,
                        }
                    }
                    _ => self.subscript(arg, &loops, &vars, written, index_vars, &a.implied, a.stmt),
                })
                .collect(),
        };
        (subs, ranges)
    }

    #[allow(clippy::too_many_arguments)]
    fn subscript(
        &self,
        arg: &Arg,
        loops: &[Option<&NormLoop>],
        vars: &[Option<&Name>],
        written: &BTreeSet<Name>,
        index_vars: &BTreeSet<Name>,
        implied: &[(Name, Expr, Expr)],
        stmt: StmtId,
    ) -> Subscript {
        let Some(e) = arg.expr() else {
            return Subscript::Unknown;
        };
        let Some(mut l) = self.lin(e) else {
            return Subscript::Unknown;
        };
        // A scalar assigned a linear form of the loop variables earlier in the iteration
        // (`i1 = i + 1` before `rhs(m,i1,j,k)`), or a constant before the loop (`nl1 = 1`),
        // stands for that form.
        let assigned: Vec<Name> = l
            .vars()
            .filter(|v| (written.contains(*v) || self.written.contains(*v)) && !index_vars.contains(*v))
            .cloned()
            .collect();
        for v in assigned {
            if let Some(by) = self.forward_value(stmt, &v) {
                match l.substitute(&v, &by) {
                    Some(x) => l = x,
                    None => return Subscript::Unknown,
                }
            }
        }
        // Substitute loop variables, innermost first: v = lo + step * #k.
        for (d, nl) in loops.iter().enumerate().rev() {
            let Some(nl) = nl else {
                // a loop whose bounds are not linear (`DO I = G(1)-2, 0, -1` with G assigned in
                // the unit): only subscripts that use its variable are unknown
                match vars.get(d).copied().flatten() {
                    Some(v) if l.coeff(v) == 0 => continue,
                    _ => return Subscript::Unknown,
                }
            };
            if l.coeff(&nl.var) != 0 {
                let by = match Lin::var(&format!("#k{d}"))
                    .scale(nl.step)
                    .and_then(|k| k.add(&nl.lo, 1))
                {
                    Some(b) => b,
                    None => return Subscript::Unknown,
                };
                l = match l.substitute(&nl.var, &by) {
                    Some(x) => x,
                    None => return Subscript::Unknown,
                };
            }
        }
        let mut coeffs = vec![0i64; loops.len()];
        let mut syms = BTreeMap::new();
        for (v, c) in &l.terms {
            if let Some(d) = v.strip_prefix("#k").and_then(|x| x.parse::<usize>().ok()) {
                coeffs[d] = *c;
            } else if written.contains(v)
                || implied.iter().any(|(iv, _, _)| iv == v)
                || (index_vars.contains(v) && !loops.iter().flatten().any(|nl| &nl.var == v))
            {
                return Subscript::Unknown;
            } else {
                syms.insert(v.clone(), *c);
            }
        }
        Subscript::Affine(Affine {
            coeffs,
            syms,
            constant: l.constant,
        })
    }
}

struct NormLoop {
    var: Name,
    lo: Lin,
    step: i64,
    upper: Option<i64>,
}

/// What the code after a loop may read of the arrays the loop leaves: the rest of the unit
/// (`Analyzer::exposed_after`; None: anything), and, where an array is live at the unit's end
/// (`Cfg::exit_live`: a COMMON block another unit reads first, a dummy argument, a SAVE
/// variable), what outlives the unit.
struct UsedAfter<'c> {
    here: Option<BTreeSet<Name>>,
    exit_live: Option<&'c BTreeSet<Name>>,
}

impl UsedAfter<'_> {
    fn here(&self, x: &str) -> bool {
        self.here.as_ref().is_none_or(|e| e.contains(x))
    }
    fn outlives(&self, x: &str) -> bool {
        self.exit_live.is_some_and(|l| l.contains(x))
    }
}

#[derive(Default)]
struct Exposure {
    /// Scalars surely assigned so far in the iteration.
    must: BTreeSet<Name>,
    /// Elements of arrays surely written so far in the iteration.
    must_arr: BTreeMap<Name, RectSet>,
    /// Arrays written at all.
    written_arr: BTreeSet<Name>,
    exposed: BTreeSet<Name>,
    exposed_arr: BTreeSet<Name>,
    /// What an iteration of the loop analyzed may write of each array (`may_writes`; empty
    /// outside that analysis).
    may: BTreeMap<Name, Option<Vec<SymRect>>>,
    /// Arrays read where only `may_covered` shows the read sees no other iteration's value.
    pristine: BTreeSet<Name>,
    /// The line of the first read of each array of `exposed_arr`.
    exposed_at: BTreeMap<Name, u32>,
    /// The DO loops of the walk around the current node, outermost first: (variable, lowest
    /// value, highest value).
    bound: Vec<(Name, Lin, Lin)>,
    /// Per label: what was surely assigned at each jump to it met so far.
    jumps: BTreeMap<u32, Vec<BTreeSet<Name>>>,
}


/// The variables of the counted DO loops on a path of `find_path` (the loops around its end).
fn path_do_vars<'u>(unit: &'u Unit, path: &[(&[Node], usize)]) -> BTreeSet<&'u Name> {
    path.iter()
        .filter_map(|(ls, k)| match &ls[*k] {
            Node::Do { header, .. } => match &unit.stmt(*header).kind {
                StmtKind::Do { var, .. } => Some(var),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The chain of (node list, index) from `nodes` down to the node of this statement (a DO or IF
/// node for its header); for an IF, the arm's node list is a level of its own.
fn find_path<'n>(nodes: &'n [Node], header: StmtId, path: &mut Vec<(&'n [Node], usize)>) -> bool {
    for (i, n) in nodes.iter().enumerate() {
        path.push((nodes, i));
        match n {
            Node::Do { header: h, .. } if *h == header => return true,
            Node::Stmt(x) if *x == header => return true,
            Node::If { arms, .. } if arms.iter().any(|(h, _)| *h == header) => return true,
            Node::Do { body, .. } => {
                if find_path(body, header, path) {
                    return true;
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    if find_path(b, header, path) {
                        return true;
                    }
                }
            }
            Node::Stmt(_) => {}
        }
        path.pop();
    }
    false
}

/// Direction vectors (with constant distances) from enumerated iteration points of two
/// accesses; None when the pair budget is exceeded.
fn exact_vectors(
    src: &[(Vec<i64>, Vec<i64>)],
    dst: &[(Vec<i64>, Vec<i64>)],
    common: usize,
) -> Option<Vec<deptest::DepVector>> {
    let mut by_elem: std::collections::HashMap<&[i64], Vec<&[i64]>> =
        std::collections::HashMap::new();
    for (k, e) in dst {
        by_elem.entry(e.as_slice()).or_default().push(k.as_slice());
    }
    let mut found: BTreeMap<Vec<Dir>, Option<Vec<i64>>> = BTreeMap::new();
    let mut varying: BTreeMap<Vec<Dir>, Vec<bool>> = BTreeMap::new();
    let mut pairs = 0usize;
    for (ks, e) in src {
        let Some(ds) = by_elem.get(e.as_slice()) else {
            continue;
        };
        for kd in ds {
            pairs += 1;
            if pairs > 400_000 {
                return None;
            }
            let dirs: Vec<Dir> = (0..common)
                .map(|l| match ks[l].cmp(&kd[l]) {
                    std::cmp::Ordering::Less => Dir::Lt,
                    std::cmp::Ordering::Equal => Dir::Eq,
                    std::cmp::Ordering::Greater => Dir::Gt,
                })
                .collect();
            let dist: Vec<i64> = (0..common).map(|l| kd[l] - ks[l]).collect();
            match found.get(&dirs) {
                None => {
                    varying.insert(dirs.clone(), vec![false; common]);
                    found.insert(dirs, Some(dist));
                }
                Some(Some(prev)) => {
                    let var = varying.get_mut(&dirs).expect("inserted with found");
                    for l in 0..common {
                        if prev[l] != dist[l] {
                            var[l] = true;
                        }
                    }
                }
                Some(None) => {}
            }
        }
    }
    Some(
        found
            .into_iter()
            .map(|(dirs, dist)| {
                let var = &varying[&dirs];
                let distance = dist
                    .map(|d| {
                        (0..d.len())
                            .map(|l| if var[l] { None } else { Some(d[l]) })
                            .collect()
                    })
                    .unwrap_or_default();
                deptest::DepVector { dirs, distance }
            })
            .collect(),
    )
}

fn io_name(k: &IoKind) -> &'static str {
    match k {
        IoKind::Read => "READ",
        IoKind::Write => "WRITE",
        IoKind::Print => "PRINT",
        IoKind::Open => "OPEN",
        IoKind::Close => "CLOSE",
        IoKind::Inquire => "INQUIRE",
        IoKind::Rewind => "REWIND",
        IoKind::Backspace => "BACKSPACE",
        IoKind::Endfile => "ENDFILE",
        IoKind::Flush => "FLUSH",
    }
}

/// Whether `e` names `v` (a variable, or an array or function).
pub(crate) fn mentions(e: &Expr, v: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Var(n) | Expr::Ref(n, _) = x {
            if n == v {
                found = true;
            }
        }
    });
    found
}

fn is_var(e: &Expr, v: &str) -> bool {
    matches!(e, Expr::Var(n) if n == v)
}

/// Terms of an associative operator tree: `a + b - c` -> [a, b, c] for Add/Sub.
fn flatten_op<'e>(e: &'e Expr, ops: &[BinOp], out: &mut Vec<(&'e Expr, bool)>, negated: bool) {
    match e {
        Expr::Binary(op, a, b) if ops.contains(op) => {
            flatten_op(a, ops, out, negated);
            let inv = matches!(op, BinOp::Sub | BinOp::Div);
            flatten_op(b, ops, out, negated ^ inv);
        }
        _ => out.push((e, negated)),
    }
}

/// How the `dep` blocker of an array starts (its dependences whose distance is not constant);
/// array reductions and the work-array hint find an array's blocker by it.
fn dep_blocker_head(x: &str) -> String {
    format!("{} is accessed in different iterations", x.to_uppercase())
}

/// The reduction operator a statement applies to `v`, if it is a reduction update of `v`.
///
/// `v` is a scalar (`S = S + X`) or an array updated element-wise (`Q(L) = Q(L) + 1`): the
/// element on the left appears once on the right, with the same subscripts, and nothing
/// else on the right (the subscripts included) mentions `v`.
fn reduction_op(k: &StmtKind, v: &str) -> Option<RedOp> {
    let is_target = |lhs: &Expr| match lhs {
        Expr::Var(n) => n == v,
        Expr::Ref(n, args) => {
            n == v && args.iter().all(|a| matches!(a, Arg::Expr(e) if !mentions(e, v)))
        }
        _ => false,
    };
    match k {
        StmtKind::Assign { lhs, rhs } if is_target(lhs) => {
            let is_var = |e: &Expr, _: &str| e == lhs;
            let try_ops: [(&[BinOp], RedOp); 6] = [
                (&[BinOp::Add, BinOp::Sub], RedOp::Sum),
                (&[BinOp::Mul, BinOp::Div], RedOp::Product),
                (&[BinOp::And], RedOp::And),
                (&[BinOp::Or], RedOp::Or),
                (&[BinOp::Eqv], RedOp::Eqv),
                (&[BinOp::Neqv], RedOp::Neqv),
            ];
            for (ops, op) in try_ops {
                if !matches!(rhs, Expr::Binary(o, _, _) if ops.contains(o)) {
                    continue;
                }
                let mut terms = vec![];
                flatten_op(rhs, ops, &mut terms, false);
                let selfs: Vec<&(&Expr, bool)> =
                    terms.iter().filter(|(t, _)| is_var(t, v)).collect();
                if selfs.len() == 1
                    && !selfs[0].1
                    && terms
                        .iter()
                        .filter(|(t, _)| !is_var(t, v))
                        .all(|(t, _)| !mentions(t, v))
                {
                    return Some(op);
                }
            }
            if let Expr::Ref(f, args) = rhs {
                let op = match f.as_str() {
                    "max" | "amax1" | "dmax1" | "max0" | "amax0" | "max1" => RedOp::Max,
                    "min" | "amin1" | "dmin1" | "min0" | "amin0" | "min1" => RedOp::Min,
                    _ => return None,
                };
                let es: Vec<&Expr> = args.iter().filter_map(|a| a.expr()).collect();
                let selfs = es.iter().filter(|e| is_var(e, v)).count();
                if selfs == 1 && es.iter().filter(|e| !is_var(e, v)).all(|e| !mentions(e, v)) {
                    return Some(op);
                }
            }
            None
        }
        StmtKind::LogicalIf(cond, inner) if !mentions(cond, v) => reduction_op(&inner.kind, v),
        StmtKind::LogicalIf(cond, inner) => {
            let StmtKind::Assign { lhs, rhs } = &inner.kind else {
                return None;
            };
            if !is_var(lhs, v) || mentions(rhs, v) {
                return None;
            }
            compare_op(cond, v, rhs)
        }
        _ => None,
    }
}

/// `IF (X .GT. V) V = X` is max; `IF (X .LT. V) V = X` is min (either operand order).
fn compare_op(cond: &Expr, v: &str, val: &Expr) -> Option<RedOp> {
    let Expr::Binary(op, a, b) = cond else {
        return None;
    };
    let (gt_when_first_is_val, val_first) = if is_var(b, v) && **a == *val {
        (true, true)
    } else if is_var(a, v) && **b == *val {
        (true, false)
    } else {
        return None;
    };
    let _ = gt_when_first_is_val;
    // Normalize to "val OP v".
    let op = if val_first { *op } else { flip(*op)? };
    match op {
        BinOp::Gt | BinOp::Ge => Some(RedOp::Max),
        BinOp::Lt | BinOp::Le => Some(RedOp::Min),
        _ => None,
    }
}

/// `a .GT. b` or `a .LT. b`: equal values do not satisfy the comparison.
fn strict(cond: &Expr) -> bool {
    matches!(cond, Expr::Binary(BinOp::Gt | BinOp::Lt, _, _))
}

fn flip(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        _ => return None,
    })
}

/// An extremum search: `IF (X .GT. M) THEN; M = X; K = I; END IF` and its F77 form.
struct LocSearch {
    /// MAXLOC or MINLOC.
    op: RedOp,
    /// The extremum (M).
    value: Name,
    /// Where it was found (K, ...).
    locs: Vec<Name>,
    /// The statements of the search.
    stmts: Vec<StmtId>,
    /// The update needs a strictly better value, so the first of equal extrema is kept: what
    /// the combined reduction gives. With `.GE.`/`.LE.` the last one is kept.
    strict: bool,
    /// The comparison's line.
    line: u32,
}

impl LocSearch {
    fn new(op: RedOp, value: Name, locs: Vec<Name>, stmts: Vec<StmtId>, strict: bool, line: u32) -> Self {
        let op = if op == RedOp::Max { RedOp::MaxLoc } else { RedOp::MinLoc };
        LocSearch { op, value, locs, stmts, strict, line }
    }
}

/// Block-IF extremum searches: `IF (X .GT. M) THEN; M = X; K = I; END IF`.
fn find_loc_patterns(
    unit: &Unit,
    nodes: &[Node],
    out: &mut Vec<LocSearch>,
) {
    for n in nodes {
        match n {
            Node::If { arms, end } if arms.len() == 1 => {
                let (h, body) = &arms[0];
                let StmtKind::IfThen(cond) = &unit.stmt(*h).kind else {
                    continue;
                };
                let assigns: Vec<(&Name, &Expr, StmtId)> = body
                    .iter()
                    .filter_map(|b| match b {
                        Node::Stmt(id) => match &unit.stmt(*id).kind {
                            StmtKind::Assign {
                                lhs: Expr::Var(x),
                                rhs,
                            } => Some((x, rhs, *id)),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                if assigns.len() != body.len() || assigns.len() < 2 {
                    find_loc_patterns(unit, body, out);
                    continue;
                }
                let found = assigns
                    .iter()
                    .find_map(|(m, val, _)| compare_op(cond, m, val).map(|op| (op, (*m).clone())));
                // only a strict comparison keeps the first of equal extrema, which is what
                // the combined reduction gives; with `.GE.`/`.LE.` the last one wins
                if let Some((op, m)) = found {
                    let ks: Vec<Name> = assigns
                        .iter()
                        .filter(|(x, _, _)| **x != m)
                        .map(|(x, _, _)| (*x).clone())
                        .collect();
                    if ks
                        .iter()
                        .all(|k| assigns.iter().all(|(_, val, _)| !mentions(val, k)))
                    {
                        let mut ids: Vec<StmtId> = assigns.iter().map(|(_, _, id)| *id).collect();
                        ids.push(*h);
                        if let Some(e) = end {
                            ids.push(*e);
                        }
                        out.push(LocSearch::new(op, m, ks, ids, strict(cond), unit.stmt(*h).span.line));
                    }
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    find_loc_patterns(unit, b, out);
                }
            }
            Node::Do { header, body, .. } => {
                if let StmtKind::Do {
                    label: Some(term), ..
                } = &unit.stmt(*header).kind
                {
                    find_skip_patterns(unit, body, *term, out);
                }
                find_loc_patterns(unit, body, out)
            }
            _ => {}
        }
    }
}

/// The F77 form of an extremum search in a label-terminated loop:
/// `IF (X .LE. M) GOTO 10; M = X; K = I; 10 CONTINUE` (update only when X > M).
fn find_skip_patterns(
    unit: &Unit,
    body: &[Node],
    term: u32,
    out: &mut Vec<LocSearch>,
) {
    let stmt_of = |n: &Node| match n {
        Node::Stmt(id) => Some(unit.stmt(*id)),
        _ => None,
    };
    let Some(last) = body.last().and_then(stmt_of) else {
        return;
    };
    if last.label != Some(term) || !matches!(last.kind, StmtKind::Continue) {
        return;
    }
    for i in 0..body.len().saturating_sub(1) {
        let Some(st) = stmt_of(&body[i]) else {
            continue;
        };
        let StmtKind::LogicalIf(cond, inner) = &st.kind else {
            continue;
        };
        if !matches!(inner.kind, StmtKind::Goto(l) if l == term) {
            continue;
        }
        let rest = &body[i + 1..body.len() - 1];
        let assigns: Vec<(&Name, &Expr, StmtId)> = rest
            .iter()
            .filter_map(|n| match stmt_of(n).map(|s| (&s.kind, s.id)) {
                Some((
                    StmtKind::Assign {
                        lhs: Expr::Var(x),
                        rhs,
                    },
                    id,
                )) => Some((x, rhs, id)),
                _ => None,
            })
            .collect();
        if assigns.len() != rest.len() || assigns.len() < 2 {
            continue;
        }
        // The skip condition is the negation of the update condition.
        let Expr::Binary(op, a, b) = cond else {
            continue;
        };
        let update_op = match op {
            BinOp::Le => BinOp::Gt,
            BinOp::Ge => BinOp::Lt,
            BinOp::Lt => BinOp::Ge,
            BinOp::Gt => BinOp::Le,
            _ => continue,
        };
        let update = Expr::Binary(update_op, a.clone(), b.clone());
        let found = assigns
            .iter()
            .find_map(|(m, val, _)| compare_op(&update, m, val).map(|op| (op, (*m).clone())));
        if let Some((op, m)) = found {
            let ks: Vec<Name> = assigns
                .iter()
                .filter(|(x, _, _)| **x != m)
                .map(|(x, _, _)| (*x).clone())
                .collect();
            if ks
                .iter()
                .all(|k| assigns.iter().all(|(_, val, _)| !mentions(val, k)) && !mentions(cond, k))
            {
                let mut ids: Vec<StmtId> = assigns.iter().map(|(_, _, id)| *id).collect();
                ids.push(st.id);
                out.push(LocSearch::new(op, m, ks, ids, strict(&update), st.span.line));
            }
        }
    }
}

fn is_induction_update(v: &str, rhs: &Expr, sema: &UnitSema) -> bool {
    let Some(l) = linearize(rhs, &|n| sema.param(n).and_then(|c| c.as_int())) else {
        return false;
    };
    l.coeff(v) == 1 && l.terms.len() == 1
}
/// `call to P at line L writes WHAT`: a procedure called in the loop writes storage that the
/// iterations share.
fn call_writes(a: &Access, what: &str) -> Blocker {
    Blocker {
        code: BlockerCode::Call,
        message: format!(
            "call to {} at line {} writes {what}",
            a.via_call.as_deref().unwrap_or("?").to_uppercase(),
            a.line
        ),
        line: a.line,
    }
}


/// `X` or `.NOT. X`: (X, the value of X that makes the test true).
pub(crate) fn flag_test(e: &Expr) -> Option<(&Name, bool)> {
    match e {
        Expr::Var(x) => Some((x, true)),
        Expr::Unary(crate::ast::UnOp::Not, inner) => match &**inner {
            Expr::Var(x) => Some((x, false)),
            _ => None,
        },
        _ => None,
    }
}

/// The test of a block IF with no ELSE IF (`IF (c) THEN ... [ELSE ...] END IF`).
pub(crate) fn if_else_test<'u>(unit: &'u Unit, arms: &[(StmtId, Vec<Node>)]) -> Option<&'u Expr> {
    match (arms.len(), &unit.stmt(arms.first()?.0).kind, arms.get(1).map(|(e, _)| &unit.stmt(*e).kind)) {
        (1 | 2, StmtKind::IfThen(c), None | Some(StmtKind::Else)) => Some(c),
        _ => None,
    }
}

/// Loop `node` as it runs when each logical variable of `flags` has its value there: the
/// statements under `IF (X)` / `IF (.NOT. X)` that the value skips left out, and a block IF
/// whose first arm's test it decides reduced to the arm that runs (`Versioned::flags`).
pub fn under_flags(unit: &Unit, node: &Node, flags: &[(Name, bool)]) -> Node {
    under_flags_nodes(unit, std::slice::from_ref(node), flags).pop().unwrap_or_else(|| node.clone())
}

/// `under_flags` of a sequence of nodes.
pub fn under_flags_nodes(unit: &Unit, nodes: &[Node], flags: &[(Name, bool)]) -> Vec<Node> {
    fn value(e: &Expr, flags: &[(Name, bool)]) -> Option<bool> {
        use crate::ast::BinOp::{And, Or};
        match e {
            Expr::Binary(op @ (And | Or), a, b) => match (value(a, flags), value(b, flags), op) {
                (Some(false), _, And) | (_, Some(false), And) => Some(false),
                (Some(true), _, Or) | (_, Some(true), Or) => Some(true),
                (Some(x), Some(y), _) => Some(if *op == And { x && y } else { x || y }),
                _ => None,
            },
            _ => {
                let (x, positive) = flag_test(e)?;
                flags.iter().find(|(y, _)| y == x).map(|(_, v)| *v == positive)
            }
        }
    }
    let value = |e: &Expr| value(e, flags);
    fn go(unit: &Unit, nodes: &[Node], value: &dyn Fn(&Expr) -> Option<bool>) -> Vec<Node> {
        let mut out = vec![];
        for n in nodes {
            match n {
                Node::Stmt(id) => match &unit.stmt(*id).kind {
                    StmtKind::LogicalIf(c, _) if value(c) == Some(false) => {}
                    _ => out.push(n.clone()),
                },
                Node::Do { header, body, end } => out.push(Node::Do { header: *header, body: go(unit, body, value), end: *end }),
                Node::If { arms, end } => {
                    let decided = if_else_test(unit, arms).and_then(value);
                    match decided {
                        Some(true) => out.extend(go(unit, &arms[0].1, value)),
                        Some(false) => {
                            if let Some((_, b)) = arms.get(1) {
                                out.extend(go(unit, b, value));
                            }
                        }
                        None => out.push(Node::If { arms: arms.iter().map(|(s, b)| (*s, go(unit, b, value))).collect(), end: *end }),
                    }
                }
            }
        }
        out
    }
    go(unit, nodes, &value)
}

/// Add `more` to the tests `need` a loop takes, each once.
fn take_tests(need: &mut Vec<Lin>, more: &[Lin]) {
    for f in more {
        if !need.contains(f) {
            need.push(f.clone());
        }
    }
}

/// A symbol of a linear form as Fortran: a variable's name, or an array element with constant
/// subscripts (named by its expression's `Debug` text, see `Analyzer::lin`); None otherwise.
fn render_symbol(v: &str) -> Option<String> {
    let ident = |t: &str| !t.is_empty() && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident(v) {
        return Some(v.to_ascii_uppercase());
    }
    // `Ref("gp", [Expr(Int(1)), Expr(Int(2))])`
    let rest = v.strip_prefix("Ref(\"")?;
    let (name, rest) = rest.split_once("\", [")?;
    let args = rest.strip_suffix("])")?;
    if !ident(name) {
        return None;
    }
    let mut subs = vec![];
    for a in args.split(", ") {
        let n = a.strip_prefix("Expr(Int(")?.strip_suffix("))")?;
        subs.push(n.parse::<i64>().ok()?.to_string());
    }
    Some(format!("{}({})", name.to_ascii_uppercase(), subs.join(",")))
}

/// `f >= 0` as a Fortran condition: the terms with positive coefficients on the left, the
/// others and the constant on the right (`GRID_POINTS(1) .GE. 4`).
fn render_condition(f: &Lin) -> Option<String> {
    let term = |k: i64, v: &str| -> Option<String> {
        let s = render_symbol(v)?;
        Some(if k == 1 { s } else { format!("{k}*{s}") })
    };
    let side = |positive: bool| -> Option<Vec<String>> {
        f.terms.iter().filter(|(_, k)| (**k > 0) == positive).map(|(v, k)| term(k.abs(), v)).collect()
    };
    let (mut left, mut right) = (side(true)?, side(false)?);
    match f.constant {
        c if c < 0 => right.push((-c).to_string()),
        c if c > 0 => left.push(c.to_string()),
        _ => {}
    }
    let join = |v: Vec<String>| if v.is_empty() { "0".to_string() } else { v.join(" + ") };
    Some(format!("{} .GE. {}", join(std::mem::take(&mut left)), join(std::mem::take(&mut right))))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Line numbers as a list with runs of consecutive lines joined: `12, 18-203, 210`.
pub fn line_runs(lines: &BTreeSet<u32>) -> String {
    let mut out: Vec<String> = vec![];
    let mut run: Option<(u32, u32)> = None;
    let flush = |r: (u32, u32), out: &mut Vec<String>| out.push(if r.0 == r.1 { r.0.to_string() } else if r.1 == r.0 + 1 { format!("{}, {}", r.0, r.1) } else { format!("{}-{}", r.0, r.1) });
    for &l in lines {
        run = match run {
            Some((a, b)) if l == b + 1 => Some((a, l)),
            Some(r) => {
                flush(r, &mut out);
                Some((l, l))
            }
            None => Some((l, l)),
        };
    }
    if let Some(r) = run {
        flush(r, &mut out);
    }
    out.join(", ")
}
