//! Control-flow graph of a unit with large vertices ("blocks", SPEC section 4): a block is a
//! run of statements entered at its top; control may leave it after any of its items (a
//! conditional GOTO or a DO test), so each edge records how many items were executed before
//! leaving. A DO nest with no I/O, no exits and a perfectly nested or innermost body is one
//! item of its own block. Every block records the scalars and array sections it reads and
//! writes. Liveness and reaching definitions are computed on this graph, item by item.

use crate::access::{Access, AccessCtx, CallSite, Summary};
use crate::affine::linearize;
use crate::flow::{member_flows, CommonFlow};
use crate::ast::*;
use crate::sections::{DimSet, Section, SectionSet};
use crate::sema::UnitSema;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

impl std::fmt::Display for BlockId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "block{}", self.0 + 1)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Stmt(StmtId),
    /// A whole collapsed DO nest, by its header statement.
    Nest(StmtId),
    /// The test and increment of an expanded DO / DO WHILE loop.
    LoopTest(StmtId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Fallthrough,
    Jump,
    Branch,
    LoopExit,
    Back,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeInfo {
    /// Number of items of the source block executed before leaving.
    pub at: usize,
    pub kind: EdgeKind,
}

/// Read or written variables of a block: name -> section set (rank 0 for scalars).
pub type VarSets = BTreeMap<Name, SectionSet>;

#[derive(Clone, Debug)]
pub struct Block {
    pub id: BlockId,
    pub items: Vec<Item>,
    /// Original lines of the statements in the block.
    pub lines: BTreeSet<u32>,
    pub reads: VarSets,
    pub writes: VarSets,
    /// Per item: names read and (may-)written, and names surely written (killed).
    pub item_use: Vec<BTreeSet<Name>>,
    pub item_def: Vec<BTreeSet<Name>>,
    pub item_kill: Vec<BTreeSet<Name>>,
}

pub struct Cfg {
    pub blocks: Vec<Block>,
    pub graph: DiGraph<BlockId, EdgeInfo>,
    pub nodes: Vec<NodeIndex>,
    pub entry: Option<BlockId>,
    /// Header block of every expanded loop, by header statement.
    pub loop_header: BTreeMap<StmtId, BlockId>,
    /// Block and item index of every statement or nest item.
    pub item_of: BTreeMap<StmtId, (BlockId, usize)>,
    /// Labels that no statement carries.
    pub missing_labels: Vec<(u32, StmtId)>,
    pub live_in: Vec<BTreeSet<Name>>,
    /// Loop variable of each expanded DO loop's header block.
    pub header_var: BTreeMap<BlockId, Name>,
    pub live_out: Vec<BTreeSet<Name>>,
    /// Names live where control leaves the unit (RETURN, STOP, the end): what the caller or
    /// a later call can see (dummy arguments, COMMON, SAVE and DATA variables, module
    /// variables, the function result, and their EQUIVALENCE aliases); none in a main program.
    pub exit_live: BTreeSet<Name>,
    /// COMMON arrays of `exit_live` that are live there only because units read them first
    /// where run-time tests fail: those tests (`flow::member_flows_unless`).
    pub exit_unless: BTreeMap<Name, Vec<crate::affine::Lin>>,
    /// Reaching definitions at block entry: (variable, defining statement); computed for
    /// the large-block graph only (empty without `collapse`).
    pub reach_in: Vec<BTreeSet<(Name, StmtId)>>,
}

/// A loop-context entry while building.
struct LoopCx {
    name: Option<Name>,
    header_block: BlockId,
    exits: Vec<(BlockId, usize, EdgeKind)>,
}

struct Builder<'a> {
    unit: &'a Unit,
    collapse: bool,
    can_collapse: &'a dyn Fn(&Node) -> bool,
    targets: BTreeSet<u32>,
    blocks: Vec<Vec<Item>>,
    edges: Vec<(BlockId, BlockId, EdgeInfo)>,
    jumps: Vec<(BlockId, usize, u32, StmtId, EdgeKind)>,
    labels: BTreeMap<u32, BlockId>,
    cur: Option<BlockId>,
    pending: Vec<(BlockId, usize, EdgeKind)>,
    loops: Vec<LoopCx>,
    loop_header: BTreeMap<StmtId, BlockId>,
    item_of: BTreeMap<StmtId, (BlockId, usize)>,
}

impl<'a> Builder<'a> {
    fn new_block(&mut self) -> BlockId {
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(vec![]);
        if let Some(c) = self.cur.take() {
            let at = self.blocks[c.0 as usize].len();
            self.edges.push((
                c,
                id,
                EdgeInfo {
                    at,
                    kind: EdgeKind::Fallthrough,
                },
            ));
        }
        for (b, at, kind) in std::mem::take(&mut self.pending) {
            self.edges.push((b, id, EdgeInfo { at, kind }));
        }
        self.cur = Some(id);
        id
    }
    fn ensure(&mut self) -> BlockId {
        match self.cur {
            Some(c) => c,
            None => self.new_block(),
        }
    }
    fn push_item(&mut self, item: Item, id: StmtId) -> (BlockId, usize) {
        let b = self.ensure();
        let v = &mut self.blocks[b.0 as usize];
        v.push(item);
        let pos = (b, v.len());
        self.item_of.insert(id, (b, v.len() - 1));
        pos
    }
    fn jump(&mut self, from: (BlockId, usize), label: u32, st: StmtId, kind: EdgeKind) {
        self.jumps.push((from.0, from.1, label, st, kind));
    }

    fn stmt(&mut self, id: StmtId) {
        let st = self.unit.stmt(id);
        if let Some(l) = st.label {
            if self.targets.contains(&l) {
                // A jump target starts a block, unless the current block is still empty.
                let empty = self
                    .cur
                    .is_some_and(|c| self.blocks[c.0 as usize].is_empty());
                if !empty {
                    self.new_block();
                }
                let b = self.ensure();
                self.labels.insert(l, b);
            }
        }
        let pos = self.push_item(Item::Stmt(id), id);
        self.control(&st.kind, pos, id, false);
    }

    /// Control transfers of a statement; `conditional` for the inner statement of a logical IF.
    fn control(&mut self, kind: &StmtKind, pos: (BlockId, usize), id: StmtId, conditional: bool) {
        match kind {
            StmtKind::Goto(l) => {
                self.jump(pos, *l, id, EdgeKind::Jump);
                if !conditional {
                    self.cur = None;
                }
            }
            StmtKind::ArithIf(_, ls) => {
                for l in ls {
                    self.jump(pos, *l, id, EdgeKind::Branch);
                }
                if !conditional {
                    self.cur = None;
                }
            }
            StmtKind::ComputedGoto(ls, _) => {
                for l in ls {
                    self.jump(pos, *l, id, EdgeKind::Branch);
                }
            }
            StmtKind::Return | StmtKind::Stop => {
                if !conditional {
                    self.cur = None;
                }
            }
            StmtKind::Exit(name) => {
                let target = match name {
                    Some(n) => self
                        .loops
                        .iter_mut()
                        .rev()
                        .find(|l| l.name.as_ref() == Some(n)),
                    None => self.loops.last_mut(),
                };
                if let Some(lc) = target {
                    lc.exits.push((pos.0, pos.1, EdgeKind::Jump));
                }
                if !conditional {
                    self.cur = None;
                }
            }
            StmtKind::Cycle(name) => {
                let target = match name {
                    Some(n) => self.loops.iter().rev().find(|l| l.name.as_ref() == Some(n)),
                    None => self.loops.last(),
                };
                if let Some(h) = target.map(|l| l.header_block) {
                    self.edges.push((
                        pos.0,
                        h,
                        EdgeInfo {
                            at: pos.1,
                            kind: EdgeKind::Back,
                        },
                    ));
                }
                if !conditional {
                    self.cur = None;
                }
            }
            StmtKind::LogicalIf(_, inner) => self.control(&inner.kind, pos, id, true),
            _ => {}
        }
    }

    fn nodes(&mut self, nodes: &[Node]) {
        for n in nodes {
            self.node(n);
        }
    }

    fn node(&mut self, n: &Node) {
        match n {
            Node::Stmt(id) => self.stmt(*id),
            Node::Do { header, body, end } => {
                let hs = self.unit.stmt(*header);
                let is_target = hs.label.is_some_and(|l| self.targets.contains(&l));
                if self.collapse && (self.can_collapse)(n) {
                    let b = self.new_block();
                    if is_target {
                        self.labels.insert(hs.label.expect("checked"), b);
                    }
                    self.push_item(Item::Nest(*header), *header);
                    // Statements inside the nest map to the nest item.
                    let pos = self.item_of[header];
                    crate::ast::for_each_stmt(self.unit, body, &mut |s| {
                        self.item_of.insert(s.id, pos);
                    });
                    if let Some(e) = end {
                        self.item_of.insert(*e, pos);
                    }
                    self.cur = None;
                    self.pending.push((b, 1, EdgeKind::Fallthrough));
                    return;
                }
                let h = self.new_block();
                if is_target {
                    self.labels.insert(hs.label.expect("checked"), h);
                }
                self.loop_header.insert(*header, h);
                self.push_item(Item::LoopTest(*header), *header);
                self.loops.push(LoopCx {
                    name: hs.name.clone(),
                    header_block: h,
                    exits: vec![(h, 1, EdgeKind::LoopExit)],
                });
                self.nodes(body);
                if let Some(e) = end {
                    if self.cur.is_some() || !self.pending.is_empty() {
                        let es = self.unit.stmt(*e);
                        if es.label.is_some_and(|l| self.targets.contains(&l)) {
                            self.stmt(*e);
                        } else {
                            self.push_item(Item::Stmt(*e), *e);
                        }
                    }
                }
                if let Some(c) = self.cur.take() {
                    let at = self.blocks[c.0 as usize].len();
                    self.edges.push((
                        c,
                        h,
                        EdgeInfo {
                            at,
                            kind: EdgeKind::Back,
                        },
                    ));
                }
                for (b, at, _) in std::mem::take(&mut self.pending) {
                    self.edges.push((
                        b,
                        h,
                        EdgeInfo {
                            at,
                            kind: EdgeKind::Back,
                        },
                    ));
                }
                let lc = self.loops.pop().expect("pushed above");
                self.pending = lc.exits;
            }
            Node::If { arms, end } => {
                let mut joins: Vec<(BlockId, usize, EdgeKind)> = vec![];
                let mut false_edge: Option<(BlockId, usize)> = None;
                let last = arms.len() - 1;
                for (i, (h, body)) in arms.iter().enumerate() {
                    let hs = self.unit.stmt(*h);
                    if i > 0 {
                        self.cur = None;
                        if let Some((b, at)) = false_edge.take() {
                            self.pending.push((b, at, EdgeKind::Branch));
                        }
                        self.new_block();
                        if let Some(l) = hs.label.filter(|l| self.targets.contains(l)) {
                            let b = self.ensure();
                            self.labels.insert(l, b);
                        }
                    }
                    if matches!(hs.kind, StmtKind::Else) {
                        let b = self.ensure();
                        let len = self.blocks[b.0 as usize].len();
                        self.item_of.insert(*h, (b, len));
                    } else if i == 0 {
                        self.stmt(*h);
                        let (b, k) = self.item_of[h];
                        false_edge = Some((b, k + 1));
                    } else {
                        let pos = self.push_item(Item::Stmt(*h), *h);
                        false_edge = Some(pos);
                    }
                    self.nodes(body);
                    if let Some(c) = self.cur.take() {
                        joins.push((c, self.blocks[c.0 as usize].len(), EdgeKind::Fallthrough));
                    }
                    joins.append(&mut self.pending);
                    if i == last {
                        if let Some((b, at)) = false_edge.take() {
                            joins.push((b, at, EdgeKind::Branch));
                        }
                    }
                }
                self.pending = joins;
                if let Some(e) = end {
                    let es = self.unit.stmt(*e);
                    if es.label.is_some_and(|l| self.targets.contains(&l)) {
                        self.stmt(*e);
                    }
                }
            }
        }
    }
}

/// For a collapsed nest: the loop variables surely defined by it (the outermost always; inner
/// ones when every enclosing loop of the nest surely runs), and for every loop variable the
/// statements inside its own loop (where a read of it is not a use of the nest).
fn nest_kill_and_private_vars(
    unit: &Unit,
    sema: &UnitSema,
    n: &Node,
    kill: &mut BTreeSet<Name>,
    vars: &mut BTreeMap<Name, BTreeSet<StmtId>>,
) {
    fn go(
        unit: &Unit,
        sema: &UnitSema,
        n: &Node,
        sure: bool,
        kill: &mut BTreeSet<Name>,
        vars: &mut BTreeMap<Name, BTreeSet<StmtId>>,
    ) {
        let Node::Do { header, body, end } = n else {
            return;
        };
        let StmtKind::Do {
            var, lo, hi, step, ..
        } = &unit.stmt(*header).kind
        else {
            return;
        };
        if sure {
            kill.insert(var.clone());
        }
        let runs = {
            let st = step.as_ref().map_or(Some(1), |x| sema.eval_int(x));
            matches!((sema.eval_int(lo), sema.eval_int(hi), st), (Some(l), Some(h), Some(k)) if (k > 0 && h >= l) || (k < 0 && h <= l))
        };
        let set = vars.entry(var.clone()).or_default();
        set.insert(*header);
        for_each_stmt(unit, body, &mut |s| {
            set.insert(s.id);
        });
        if let Some(e) = end {
            set.insert(*e);
        }
        for b in body {
            go(unit, sema, b, sure && runs, kill, vars);
        }
    }
    go(unit, sema, n, true, kill, vars);
}

/// Whether a DO loop can be written a second time in its unit's text (the generated program's
/// copy for a run-time test, `relabel::loop_copy`, its labels renumbered): `text` is the
/// unit's file as lines, `fixed` whether it is fixed form.
pub fn loop_copyable(unit: &Unit, node: &Node, text: &[&str], fixed: bool) -> bool {
    crate::relabel::loop_copy(unit, node, text, fixed, &mut BTreeSet::new()).is_some()
}

/// Whether some GO TO of the unit jumps to a label at or before itself (a statement may then
/// run again after a later one).
pub fn jumps_backward(unit: &Unit) -> bool {
    unit.stmts
        .iter()
        .any(|st| jump_labels(&st.kind).iter().any(|l| unit.stmts.iter().any(|o| o.label == Some(*l) && o.id < st.id)))
}

/// Labels that are jump targets in a unit.
pub fn jump_targets(unit: &Unit) -> BTreeSet<u32> {
    jump_sources(unit).into_keys().collect()
}

/// Per jump target of a unit: how many jumps name it (each label of an arithmetic IF or a
/// computed GO TO counts once per occurrence).
pub fn jump_sources(unit: &Unit) -> BTreeMap<u32, usize> {
    let mut t = BTreeMap::new();
    for s in &unit.stmts {
        for l in jump_labels(&s.kind) {
            *t.entry(l).or_insert(0) += 1;
        }
    }
    t
}

/// The labels a statement may jump to (GO TO, in a logical IF too, arithmetic IF, computed
/// GO TO), once per occurrence.
pub fn jump_labels(k: &StmtKind) -> Vec<u32> {
    match k {
        StmtKind::Goto(l) => vec![*l],
        StmtKind::ArithIf(_, ls) => ls.to_vec(),
        StmtKind::ComputedGoto(ls, _) => ls.clone(),
        StmtKind::LogicalIf(_, inner) => jump_labels(&inner.kind),
        _ => vec![],
    }
}

/// Can this GOTO / arithmetic IF / computed GOTO jump to a label not in `inside`?
pub fn jumps_out(k: &StmtKind, inside: &BTreeSet<u32>) -> bool {
    match k {
        StmtKind::Goto(l) => !inside.contains(l),
        StmtKind::ArithIf(_, ls) => ls.iter().any(|l| !inside.contains(l)),
        StmtKind::ComputedGoto(ls, _) => ls.iter().any(|l| !inside.contains(l)),
        _ => false,
    }
}

/// Does a statement (or the inner statement of a logical IF) satisfy `pred`?
pub fn stmt_is(k: &StmtKind, pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    pred(k) || matches!(k, StmtKind::LogicalIf(_, inner) if pred(&inner.kind))
}

/// Labels defined inside a node list (including nested).
pub fn labels_within(unit: &Unit, nodes: &[Node]) -> BTreeSet<u32> {
    let mut s = BTreeSet::new();
    for_each_stmt(unit, nodes, &mut |st| {
        if let Some(l) = st.label {
            s.insert(l);
        }
    });
    s
}

/// The default collapsing rule: a DO loop (not DO WHILE) whose body has no I/O, STOP, RETURN,
/// EXIT or jump out, calls nothing that does I/O or STOP, and whose body is either free of
/// loops or exactly one collapsible loop (CONTINUE statements aside).
pub fn collapsible(unit: &Unit, summaries: &BTreeMap<Name, Summary>, n: &Node) -> bool {
    let Node::Do { header, body, .. } = n else {
        return false;
    };
    if !matches!(unit.stmt(*header).kind, StmtKind::Do { .. }) {
        return false;
    }
    let inside = labels_within(unit, body);
    let mut ok = true;
    for_each_stmt(unit, body, &mut |st| {
        let bad = stmt_is(&st.kind, &|k| match k {
            StmtKind::Io { .. }
            | StmtKind::Stop
            | StmtKind::Return
            | StmtKind::Exit(_)
            | StmtKind::Cycle(Some(_))
            | StmtKind::DoWhile { .. }
            | StmtKind::Error
            | StmtKind::Unsupported { .. } => true,
            StmtKind::Goto(..) | StmtKind::ArithIf(..) | StmtKind::ComputedGoto(..) => {
                jumps_out(k, &inside)
            }
            StmtKind::Call { name, .. } => {
                summaries.get(name).is_none_or(|s| s.has_io || s.has_stop)
            }
            _ => false,
        });
        ok &= !bad;
    });
    if !ok {
        return false;
    }
    let loops: Vec<&Node> = body
        .iter()
        .filter(|b| matches!(b, Node::Do { .. }))
        .collect();
    let others = body
        .iter()
        .filter(|b| {
            !matches!(b, Node::Do { .. })
                && !matches!(b, Node::Stmt(id) if matches!(unit.stmt(*id).kind, StmtKind::Continue))
        })
        .count();
    match loops.len() {
        0 => true,
        1 if others == 0 => collapsible(unit, summaries, loops[0]),
        _ => false,
    }
}

/// Range of values of loop variables visible at a statement: name -> (lo, hi).
pub type Env = BTreeMap<Name, (i64, i64)>;

/// Evaluate the set of elements an access touches, given ranges of the variables in scope.
pub fn access_section(sema: &UnitSema, a: &Access, env: &Env) -> SectionSet {
    let sym = sema.symbol(&a.name);
    let rank = sym.map_or(0, |s| s.rank());
    let bounds = sym.map(|s| s.bounds()).unwrap_or_default();
    if rank == 0 {
        return SectionSet::all(0);
    }
    let mut env = env.clone();
    for (v, lo, hi) in &a.implied {
        let r = (interval(sema, lo, &env), interval(sema, hi, &env));
        if let (Some((l, _)), Some((_, h))) = r {
            env.insert(v.clone(), (l, h));
        } else {
            env.remove(v);
        }
    }
    let dims: Vec<DimSet> = match &a.subs {
        None => vec![DimSet::all(); rank],
        Some(subs) if subs.len() == rank => subs
            .iter()
            .map(|s| match s {
                Arg::Expr(e) | Arg::Keyword(_, e) => match (
                    linearize(e, &|n| sema.param(n).and_then(|c| c.as_int())),
                    interval(sema, e, &env),
                ) {
                    (Some(l), Some((lo, hi)))
                        if l.terms.len() <= 1 && l.terms.values().all(|c| c.abs() == 1) =>
                    {
                        DimSet::range(lo, hi)
                    }
                    (_, Some((lo, hi))) => DimSet::range(lo, hi),
                    _ => DimSet::all(),
                },
                Arg::Range(lo, hi, _) => {
                    let l = lo
                        .as_ref()
                        .map_or(Some((i64::MIN, i64::MIN)), |e| interval(sema, e, &env));
                    let h = hi
                        .as_ref()
                        .map_or(Some((i64::MAX, i64::MAX)), |e| interval(sema, e, &env));
                    match (l, h) {
                        (Some((l, _)), Some((_, h))) => DimSet::range(l, h),
                        _ => DimSet::all(),
                    }
                }
            })
            .collect(),
        Some(_) => vec![DimSet::all(); rank],
    };
    SectionSet::from_section(Section::new(dims)).clamp(&bounds)
}

/// Interval of an integer expression over the environment (None: unknown).
pub fn interval(sema: &UnitSema, e: &Expr, env: &Env) -> Option<(i64, i64)> {
    let l = linearize(e, &|n| sema.param(n).and_then(|c| c.as_int()))?;
    let (mut lo, mut hi) = (l.constant as i128, l.constant as i128);
    for (v, c) in &l.terms {
        let (a, b) = *env.get(v)?;
        let (x, y) = (*c as i128 * a as i128, *c as i128 * b as i128);
        lo += x.min(y);
        hi += x.max(y);
    }
    Some((i64::try_from(lo).ok()?, i64::try_from(hi).ok()?))
}

/// Loop variable ranges of every statement: the DO loops enclosing it (all of them).
pub fn statement_envs(unit: &Unit, sema: &UnitSema) -> BTreeMap<StmtId, Env> {
    fn go(
        unit: &Unit,
        sema: &UnitSema,
        nodes: &[Node],
        env: &Env,
        out: &mut BTreeMap<StmtId, Env>,
    ) {
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    out.insert(*id, env.clone());
                }
                Node::Do { header, body, end } => {
                    out.insert(*header, env.clone());
                    let mut inner = env.clone();
                    if let StmtKind::Do { var, lo, hi, .. } = &unit.stmt(*header).kind {
                        match (interval(sema, lo, env), interval(sema, hi, env)) {
                            (Some((l1, l2)), Some((h1, h2))) => {
                                let (a, b) = (l1.min(h1), l2.max(h2));
                                inner.insert(var.clone(), (a, b));
                            }
                            _ => {
                                inner.remove(var);
                            }
                        }
                    }
                    go(unit, sema, body, &inner, out);
                    if let Some(e) = end {
                        out.insert(*e, inner.clone());
                    }
                }
                Node::If { arms, end } => {
                    for (h, b) in arms {
                        out.insert(*h, env.clone());
                        go(unit, sema, b, env, out);
                    }
                    if let Some(e) = end {
                        out.insert(*e, env.clone());
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    go(unit, sema, &unit.body, &Env::new(), &mut out);
    out
}

/// The DO node whose header is `header`, anywhere in `nodes`.
pub fn node_of<'a>(nodes: &'a [Node], header: StmtId) -> Option<&'a Node> {
    for n in nodes {
        match n {
            Node::Do {
                header: h, body, ..
            } => {
                if *h == header {
                    return Some(n);
                }
                if let Some(x) = node_of(body, header) {
                    return Some(x);
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    if let Some(x) = node_of(b, header) {
                        return Some(x);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Names whose values outlive the unit's execution (see [`Cfg::exit_live`]); COMMON members
/// only where `flow` says their storage carries values between units.
fn exit_live(unit: &Unit, sema: &UnitSema, flow: &CommonFlow) -> BTreeSet<Name> {
    if unit.kind == UnitKind::Program {
        return BTreeSet::new();
    }
    // a COMMON member that is nothing else, in storage no unit reads before writing, is not
    let quiet_common = |s: &crate::sema::Symbol| plain_common(sema, s).is_some_and(|(block, offset, bytes)| !member_flows(flow, &unit.name, block, offset, bytes));
    let mut out: BTreeSet<Name> = sema
        .symbols
        .values()
        .filter(|s| s.param.is_none() && sema.visible_outside(&s.name) && !quiet_common(s))
        .map(|s| s.name.clone())
        .collect();
    out.extend(sema.module_vars.keys().cloned());
    out.extend(unit.result.iter().cloned());
    let aliases: Vec<Name> = out
        .iter()
        .filter_map(|n| sema.symbols.get(n))
        .flat_map(|s| s.aliases.iter().cloned())
        .collect();
    out.extend(aliases);
    out
}

/// A COMMON member that is nothing else (no dummy argument, SAVE, DATA or host variable): its
/// block, offset and size.
fn plain_common<'s>(sema: &'s UnitSema, s: &'s crate::sema::Symbol) -> Option<(&'s str, Option<u64>, Option<u64>)> {
    let (block, idx) = s.common.as_ref()?;
    if s.dummy.is_some() || s.save || s.data_init || sema.host_assoc.contains(&s.name) {
        return None;
    }
    let m = sema.commons.get(block).and_then(|ms| ms.get(*idx));
    Some((block, m.and_then(|m| m.offset), m.and_then(|m| m.bytes)))
}

/// The COMMON arrays of `exit_live` live there only through `flow::Flows::unless`, with the
/// tests that make them dead.
fn exit_unless(unit: &Unit, sema: &UnitSema, flow: &CommonFlow, exit_live: &BTreeSet<Name>) -> BTreeMap<Name, Vec<crate::affine::Lin>> {
    let mut out = BTreeMap::new();
    if flow.as_ref().is_none_or(|f| f.unless.is_empty()) {
        return out;
    }
    for n in exit_live {
        let Some(s) = sema.symbol(n).filter(|s| s.is_array() && s.aliases.is_empty()) else { continue };
        let Some((block, offset, bytes)) = plain_common(sema, s) else { continue };
        if let Some(t) = crate::flow::member_flows_unless(flow, &unit.name, block, offset, bytes).filter(|t| !t.is_empty()) {
            out.insert(n.clone(), t);
        }
    }
    out
}

/// Build the CFG of a unit. `collapse` selects large blocks (nests as single items) with their
/// read/write sections; without it every loop is expanded (statement-level items) and only
/// names are tracked, which is what the loop analysis needs for liveness after a loop.
pub fn build(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    collapse: bool,
) -> Cfg {
    build_with_flow(unit, sema, summaries, collapse, &None)
}

/// [`build`], with what is known of the COMMON storage that carries values between units
/// (`crate::flow`): the rest of COMMON is not live where the unit ends.
pub fn build_with_flow(
    unit: &Unit,
    sema: &UnitSema,
    summaries: &BTreeMap<Name, Summary>,
    collapse: bool,
    flow: &CommonFlow,
) -> Cfg {
    let can = |n: &Node| collapsible(unit, summaries, n);
    let mut b = Builder {
        unit,
        collapse,
        can_collapse: &can,
        targets: jump_targets(unit),
        blocks: vec![],
        edges: vec![],
        jumps: vec![],
        labels: BTreeMap::new(),
        cur: None,
        pending: vec![],
        loops: vec![],
        loop_header: BTreeMap::new(),
        item_of: BTreeMap::new(),
    };
    b.nodes(&unit.body);
    // edges still waiting for a block (a loop that ends the unit exits to its end): one empty
    // block for the end of the unit, where the names of `exit_live` are live
    if !b.pending.is_empty() {
        b.new_block();
    }
    let mut missing = vec![];
    for (from, at, label, st, kind) in std::mem::take(&mut b.jumps) {
        match b.labels.get(&label) {
            Some(&to) => b.edges.push((from, to, EdgeInfo { at, kind })),
            None => missing.push((label, st)),
        }
    }
    // Drop empty blocks that nothing enters and nothing leaves (e.g. after a final GOTO).
    let mut graph = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..b.blocks.len())
        .map(|i| graph.add_node(BlockId(i as u32)))
        .collect();
    b.edges.sort_by_key(|(f, t, e)| (f.0, t.0, e.at));
    b.edges.dedup_by_key(|(f, t, e)| (f.0, t.0, e.at));
    for (f, t, e) in &b.edges {
        graph.add_edge(nodes[f.0 as usize], nodes[t.0 as usize], *e);
    }
    let exit_live = exit_live(unit, sema, flow);
    let exit_unless = exit_unless(unit, sema, flow, &exit_live);
    // Per-block facts.
    let envs = statement_envs(unit, sema);
    let cx = AccessCtx {
        unit,
        sema,
        summaries,
    };
    let mut blocks = vec![];
    for (i, items) in b.blocks.iter().enumerate() {
        let mut blk = Block {
            id: BlockId(i as u32),
            items: items.clone(),
            lines: BTreeSet::new(),
            reads: VarSets::new(),
            writes: VarSets::new(),
            item_use: vec![],
            item_def: vec![],
            item_kill: vec![],
        };
        for it in items {
            let mut acc: Vec<Access> = vec![];
            let mut calls: Vec<CallSite> = vec![];
            let mut kill = BTreeSet::new();
            // Loop variables of a collapsed nest are defined by their DO before any read
            // inside their loop: those reads are not uses of the item.
            let mut nest_vars: BTreeMap<Name, BTreeSet<StmtId>> = BTreeMap::new();
            match it {
                Item::Stmt(id) => {
                    let st = unit.stmt(*id);
                    blk.lines.insert(st.span.line);
                    cx.stmt_accesses(st, &mut acc, &mut calls);
                    if let StmtKind::Assign {
                        lhs: Expr::Var(v), ..
                    } = &st.kind
                    {
                        kill.insert(v.clone());
                    }
                }
                Item::LoopTest(id) => {
                    let st = unit.stmt(*id);
                    blk.lines.insert(st.span.line);
                    cx.stmt_accesses(st, &mut acc, &mut calls);
                }
                Item::Nest(id) => {
                    if let Some(n) = node_of(&unit.body, *id) {
                        let st = unit.stmt(*id);
                        blk.lines.insert(st.span.line);
                        let mut last = st.span.end_line;
                        if let Node::Do { body, end, .. } = n {
                            nest_kill_and_private_vars(unit, sema, n, &mut kill, &mut nest_vars);
                            cx.stmt_accesses(st, &mut acc, &mut calls);
                            for_each_stmt(unit, body, &mut |s| {
                                last = last.max(s.span.end_line);
                                if s.kind.is_executable() {
                                    cx.stmt_accesses(s, &mut acc, &mut calls);
                                }
                            });
                            if let Some(e) = end {
                                last = last.max(unit.stmt(*e).span.end_line);
                            }
                        }
                        blk.lines.extend(st.span.line..=last);
                    }
                }
            }
            let (mut u, mut d) = (BTreeSet::new(), BTreeSet::new());
            let no_env = Env::new();
            for a in &acc {
                let sid = a.stmt;
                // The statement-level graph serves liveness only: no sections there.
                if collapse {
                    let env = envs.get(&sid).unwrap_or(&no_env);
                    let set = access_section(sema, a, env);
                    let target = if a.write {
                        &mut blk.writes
                    } else {
                        &mut blk.reads
                    };
                    match target.get_mut(&a.name) {
                        Some(s) => *s = s.union(&set),
                        None => {
                            target.insert(a.name.clone(), set);
                        }
                    }
                }
                if a.write {
                    d.insert(a.name.clone());
                } else if !nest_vars
                    .get(&a.name)
                    .is_some_and(|inside| inside.contains(&a.stmt))
                {
                    u.insert(a.name.clone());
                }
                // Multi-line statements
                let st = unit.stmt(sid);
                if st.span.end_line > st.span.line && matches!(it, Item::Stmt(_)) {
                    blk.lines.extend(st.span.line..=st.span.end_line);
                }
            }
            if let Item::Stmt(id) = it {
                if matches!(unit.stmt(*id).kind.action(), StmtKind::Return | StmtKind::Stop) {
                    u.extend(exit_live.iter().cloned());
                }
            }
            blk.item_use.push(u);
            blk.item_def.push(d);
            blk.item_kill.push(kill);
        }
        blocks.push(blk);
    }
    let mut cfg = Cfg {
        entry: if blocks.is_empty() {
            None
        } else {
            Some(BlockId(0))
        },
        blocks,
        graph,
        nodes,
        loop_header: b.loop_header,
        item_of: b.item_of,
        missing_labels: missing,
        live_in: vec![],
        header_var: BTreeMap::new(),
        live_out: vec![],
        exit_live,
        exit_unless,
        reach_in: vec![],
    };
    for (h, b) in &cfg.loop_header {
        if let StmtKind::Do { var, .. } = &unit.stmt(*h).kind {
            cfg.header_var.insert(*b, var.clone());
        }
    }
    cfg.compute_liveness();
    if collapse {
        cfg.compute_reaching(unit);
    }
    cfg
}

impl Cfg {
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.0 as usize]
    }
    /// Successor edges of a block: (target, info).
    pub fn succs(&self, id: BlockId) -> Vec<(BlockId, EdgeInfo)> {
        let mut v: Vec<(BlockId, EdgeInfo)> = self
            .graph
            .edges_directed(self.nodes[id.0 as usize], Direction::Outgoing)
            .map(|e| (self.graph[e.target()], *e.weight()))
            .collect();
        v.sort_by_key(|(b, e)| (b.0, e.at));
        v
    }
    pub fn preds(&self, id: BlockId) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = self
            .graph
            .edges_directed(self.nodes[id.0 as usize], Direction::Incoming)
            .map(|e| self.graph[e.source()])
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Names live at item position `pos` of a block (before item `pos`; `pos == len` = end).
    pub fn live_at(&self, b: BlockId, pos: usize) -> BTreeSet<Name> {
        let blk = self.block(b);
        let succs = self.succs(b);
        let n = blk.items.len();
        let mut live: BTreeSet<Name> = BTreeSet::new();
        // a block nothing follows ends the unit (RETURN, STOP, the end of the body)
        if succs.is_empty() {
            live.extend(self.exit_live.iter().cloned());
        }
        for (s, e) in &succs {
            if e.at >= n {
                live.extend(self.entering(*s, e));
            }
        }
        for k in (pos..n).rev() {
            for x in &blk.item_kill[k] {
                live.remove(x);
            }
            live.extend(blk.item_use[k].iter().cloned());
            for (s, e) in &succs {
                if e.at == k {
                    live.extend(self.entering(*s, e));
                }
            }
        }
        live
    }

    /// Names live along an edge into `s`: entering a loop header other than by its back edge
    /// initializes the loop variable, so that variable is not live along the edge.
    pub fn entering(&self, s: BlockId, e: &EdgeInfo) -> BTreeSet<Name> {
        let live = &self.live_in[s.0 as usize];
        match (self.header_var.get(&s), e.kind) {
            (Some(v), k) if k != EdgeKind::Back => {
                live.iter().filter(|n| *n != v).cloned().collect()
            }
            _ => live.clone(),
        }
    }

    fn compute_liveness(&mut self) {
        let n = self.blocks.len();
        self.live_in = vec![BTreeSet::new(); n];
        self.live_out = vec![BTreeSet::new(); n];
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..n).rev() {
                let b = BlockId(i as u32);
                let li = self.live_at(b, 0);
                if li != self.live_in[i] {
                    self.live_in[i] = li;
                    changed = true;
                }
            }
        }
        for i in 0..n {
            let b = BlockId(i as u32);
            let len = self.blocks[i].items.len();
            self.live_out[i] = self.live_at(b, len);
        }
    }

    fn compute_reaching(&mut self, unit: &Unit) {
        let n = self.blocks.len();
        // Definitions of each item: (name, defining statement).
        let item_stmt = |it: &Item| match it {
            Item::Stmt(s) | Item::Nest(s) | Item::LoopTest(s) => *s,
        };
        let _ = unit;
        self.reach_in = vec![BTreeSet::new(); n];
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..n {
                let b = BlockId(i as u32);
                // Walk the block, sending the state at each edge's position to its target.
                let mut state = self.reach_in[i].clone();
                let blk = &self.blocks[i];
                let succs = self.succs(b);
                let mut outgoing: Vec<(usize, BTreeSet<(Name, StmtId)>)> = vec![];
                for (s, e) in &succs {
                    if e.at == 0 {
                        outgoing.push((s.0 as usize, state.clone()));
                    }
                }
                for (k, it) in blk.items.iter().enumerate() {
                    let sid = item_stmt(it);
                    for x in &blk.item_kill[k] {
                        state.retain(|(nm, _)| nm != x);
                    }
                    for x in &blk.item_def[k] {
                        state.insert((x.clone(), sid));
                    }
                    for (s, e) in &succs {
                        if e.at == k + 1 || (k + 1 == blk.items.len() && e.at > k + 1) {
                            outgoing.push((s.0 as usize, state.clone()));
                        }
                    }
                }
                for (t, st) in outgoing {
                    let before = self.reach_in[t].len();
                    self.reach_in[t].extend(st);
                    if self.reach_in[t].len() != before {
                        changed = true;
                    }
                }
            }
        }
    }

    /// Stable text dump of liveness and reaching definitions: per block, the variables live
    /// on entry and exit, and the definitions reaching its entry as `NAME@line` (the line of
    /// the defining statement, or of the DO statement of a collapsed nest).
    pub fn dump_dataflow(&self, unit: &Unit) -> String {
        let mut out = String::from("block | live in | live out | reaching definitions\n");
        let names = |s: &BTreeSet<Name>| {
            s.iter()
                .map(|n| n.to_uppercase())
                .collect::<Vec<_>>()
                .join(", ")
        };
        for blk in &self.blocks {
            let i = blk.id.0 as usize;
            let defs: BTreeSet<(String, u32)> = self.reach_in[i]
                .iter()
                .map(|(n, s)| (n.to_uppercase(), unit.stmt(*s).span.line))
                .collect();
            let defs: Vec<String> = defs.into_iter().map(|(n, l)| format!("{n}@{l}")).collect();
            let _ = writeln!(
                out,
                "{} | {} | {} | {}",
                i + 1,
                names(&self.live_in[i]),
                names(&self.live_out[i]),
                defs.join(", ")
            );
        }
        out
    }

    /// Stable text dump: one row per block, as in SPEC section 4.
    pub fn dump(&self, sema: &UnitSema) -> String {
        let mut out = String::from("block | lines | writes | reads | next | prev\n");
        for blk in &self.blocks {
            let lines = fmt_lines(&blk.lines);
            let fmt_sets = |s: &VarSets| -> String {
                s.iter()
                    .map(|(n, set)| {
                        let bounds = sema.symbol(n).map(|x| x.bounds()).unwrap_or_default();
                        set.display_with(&n.to_uppercase(), &bounds)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let next: Vec<String> = {
                let mut v: Vec<u32> = self.succs(blk.id).iter().map(|(b, _)| b.0 + 1).collect();
                v.dedup();
                v.iter().map(|x| x.to_string()).collect()
            };
            let prev: Vec<String> = self
                .preds(blk.id)
                .iter()
                .map(|b| (b.0 + 1).to_string())
                .collect();
            let _ = writeln!(
                out,
                "{} | {} | {} | {} | {} | {}",
                blk.id.0 + 1,
                lines,
                fmt_sets(&blk.writes),
                fmt_sets(&blk.reads),
                next.join(", "),
                prev.join(", ")
            );
        }
        out
    }
}

/// `4`, `5-14`, `16, 17`, `30-33`: consecutive runs as ranges (2-line runs listed).
pub fn fmt_lines(lines: &BTreeSet<u32>) -> String {
    let v: Vec<u32> = lines.iter().copied().collect();
    let mut parts = vec![];
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        match j - i {
            0 => parts.push(v[i].to_string()),
            1 => {
                parts.push(v[i].to_string());
                parts.push(v[j].to_string());
            }
            _ => parts.push(format!("{}-{}", v[i], v[j])),
        }
        i = j + 1;
    }
    parts.join(", ")
}
