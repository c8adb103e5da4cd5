//! A forward data-flow walk over the structured code of one unit (DO loops to a fixed point,
//! IF arms joined, GOTO / EXIT / CYCLE / RETURN followed through label states), shared by the
//! placement of actualization directives and by the checker. What happens at each piece of
//! code is up to the [`Hooks`]; the walk only moves states along the control flow.

use analyzer::ast::*;
use std::collections::BTreeMap;

/// A data-flow state: joined where control flow meets.
pub trait State: Clone + PartialEq {
    fn join(&mut self, other: &Self);
    /// Give up precision after too many rounds of a loop (must stay sound).
    fn widen(&mut self, other: &Self) {
        self.join(other)
    }
}

/// How the walk treats a node of a list.
pub enum Group {
    /// Nodes `i..i+len` are one computational region.
    Region(usize),
    /// The node is handled as a whole by [`Hooks::item`] (a host loop).
    Whole,
    /// Walk into the node.
    Descend,
}

pub enum Item<'n> {
    /// A statement (its own effect; for DO / IF headers only the header's evaluation).
    Stmt(StmtId),
    /// A whole host loop.
    Loop(&'n Node),
    /// A region: its nodes.
    Region(&'n [Node]),
}

pub trait Hooks<S: State> {
    fn group(&mut self, list: &[Node], i: usize) -> Group;
    fn item(&mut self, item: Item, st: &mut S);
    /// Control leaves the unit (RETURN, or the end of the unit's code).
    fn exit(&mut self, at: Option<StmtId>, st: &S);
    /// Control falls through to statement `id` (not by a jump to its label).
    fn before(&mut self, _id: StmtId, _st: &mut S) {}
    /// Control reaches the end of a statement list closed by `closer` (END DO, the next
    /// ELSE / ELSE IF, END IF; None for the unit's body or a label-terminated DO body).
    fn list_end(&mut self, _closer: Option<StmtId>, _st: &mut S) {}
}

struct LoopCx<S> {
    name: Option<Name>,
    exits: Option<S>,
    cycles: Option<S>,
}

pub struct Walk<'u, 'h, S: State, H: Hooks<S>> {
    unit: &'u Unit,
    hooks: &'h mut H,
    labels: BTreeMap<u32, S>,
    loops: Vec<LoopCx<S>>,
}

fn join_into<S: State>(slot: &mut Option<S>, st: &S) {
    match slot {
        Some(s) => s.join(st),
        None => *slot = Some(st.clone()),
    }
}

const MAX_ROUNDS: usize = 30;

impl<'u, 'h, S: State, H: Hooks<S>> Walk<'u, 'h, S, H> {
    /// Walk the whole unit from `entry` until the states at labels are stable.
    pub fn run(unit: &'u Unit, hooks: &'h mut H, entry: S) {
        let mut w = Walk {
            unit,
            hooks,
            labels: BTreeMap::new(),
            loops: vec![],
        };
        for round in 0.. {
            let before = w.labels.clone();
            let out = w.nodes(&unit.body, Some(entry.clone()), Some(None));
            if let Some(s) = &out {
                w.hooks.exit(None, s);
            }
            if w.labels == before || round >= MAX_ROUNDS {
                break;
            }
        }
    }

    fn jump(&mut self, label: u32, st: &S) {
        match self.labels.get_mut(&label) {
            Some(s) => s.join(st),
            None => {
                self.labels.insert(label, st.clone());
            }
        }
    }

    /// Incoming state of a statement: fallthrough joined with jumps to its label.
    fn arrive(&mut self, id: StmtId, st: Option<S>) -> Option<S> {
        let stmt = self.unit.stmt(id);
        let Some(l) = stmt.label else { return st };
        match (st, self.labels.get(&l)) {
            (Some(mut s), Some(j)) => {
                s.join(j);
                Some(s)
            }
            (None, Some(j)) => Some(j.clone()),
            (s, None) => s,
        }
    }

    fn first_stmt(n: &Node) -> StmtId {
        match n {
            Node::Stmt(id) => *id,
            Node::Do { header, .. } => *header,
            Node::If { arms, .. } => arms[0].0,
        }
    }

    /// `closer`: None for a label-terminated DO body (nothing can stand at its end), Some(None)
    /// for the unit's body, Some(Some(id)) for a list closed by statement `id`.
    fn nodes(&mut self, list: &[Node], mut st: Option<S>, closer: Option<Option<StmtId>>) -> Option<S> {
        let mut i = 0;
        while i < list.len() {
            let n = &list[i];
            if let Some(s) = st.as_mut() {
                self.hooks.before(Self::first_stmt(n), s);
            }
            st = self.arrive(Self::first_stmt(n), st);
            match self.hooks.group(list, i) {
                Group::Region(len) => {
                    if let Some(s) = st.as_mut() {
                        self.hooks.item(Item::Region(&list[i..i + len]), s);
                    }
                    i += len;
                    continue;
                }
                Group::Whole => {
                    if let Some(s) = st.as_mut() {
                        self.hooks.item(Item::Loop(n), s);
                    }
                    // Jumps out of a whole host loop still reach their labels.
                    if let (Some(s), Node::Do { body, .. }) = (&st, n) {
                        let inside = analyzer::cfg::labels_within(self.unit, body);
                        let s = s.clone();
                        for_each_stmt(self.unit, body, &mut |x| {
                            for l in analyzer::cfg::jump_labels(&x.kind) {
                                if !inside.contains(&l) {
                                    self.labels
                                        .entry(l)
                                        .and_modify(|t| t.join(&s))
                                        .or_insert_with(|| s.clone());
                                }
                            }
                        });
                    }
                }
                Group::Descend => st = self.node(n, st),
            }
            i += 1;
        }
        if let (Some(s), Some(c)) = (st.as_mut(), closer) {
            self.hooks.list_end(c, s);
        }
        st
    }

    fn node(&mut self, n: &Node, st: Option<S>) -> Option<S> {
        match n {
            Node::Stmt(id) => self.stmt(*id, st),
            Node::Do { header, body, end } => {
                let hs = self.unit.stmt(*header);
                let is_while = matches!(hs.kind, StmtKind::DoWhile { .. });
                let mut entry = st?;
                if !is_while {
                    self.hooks.item(Item::Stmt(*header), &mut entry);
                }
                let mut head = entry.clone();
                let mut rounds = 0;
                loop {
                    let mut h = head.clone();
                    if is_while {
                        self.hooks.item(Item::Stmt(*header), &mut h);
                    }
                    self.loops.push(LoopCx {
                        name: hs.name.clone(),
                        exits: None,
                        cycles: None,
                    });
                    let mut out = self.nodes(body, Some(h.clone()), end.map(Some));
                    let cx = self.loops.pop().expect("pushed");
                    if let Some(c) = &cx.cycles {
                        join_into(&mut out, c);
                    }
                    let mut next = entry.clone();
                    if let Some(o) = &out {
                        next.join(o);
                    }
                    rounds += 1;
                    if next == head {
                        // Leave: the loop test fails (from the head) or an EXIT.
                        let mut exit = h;
                        if let Some(x) = &cx.exits {
                            exit.join(x);
                        }
                        return Some(exit);
                    }
                    if std::env::var_os("SAPFOR_DEBUG_WALK").is_some() && rounds > 3 {
                        eprintln!("walk: loop at stmt {} round {rounds}", header.0);
                    }
                    if rounds > MAX_ROUNDS {
                        head.widen(&next);
                    } else {
                        head = next;
                    }
                }
            }
            Node::If { arms, end } => {
                let mut cond = st?;
                let mut out: Option<S> = None;
                let mut has_else = false;
                for (k, (h, b)) in arms.iter().enumerate() {
                    if matches!(self.unit.stmt(*h).kind, StmtKind::Else) {
                        has_else = true;
                    }
                    self.hooks.item(Item::Stmt(*h), &mut cond);
                    let closer = arms.get(k + 1).map(|a| a.0).or(*end);
                    let o = self.nodes(b, Some(cond.clone()), Some(closer));
                    if let Some(o) = o {
                        join_into(&mut out, &o);
                    }
                }
                if !has_else {
                    join_into(&mut out, &cond);
                }
                out
            }
        }
    }

    fn stmt(&mut self, id: StmtId, st: Option<S>) -> Option<S> {
        let mut s = st?;
        self.hooks.item(Item::Stmt(id), &mut s);
        let kind = &self.unit.stmt(id).kind;
        let (inner, conditional) = match kind {
            StmtKind::LogicalIf(_, inner) => (&inner.kind, true),
            k => (k, false),
        };
        for l in analyzer::cfg::jump_labels(inner) {
            self.jump(l, &s);
        }
        let leaves = match inner {
            StmtKind::Goto(_) | StmtKind::ArithIf(..) | StmtKind::Stop => true,
            StmtKind::Return => {
                self.hooks.exit(Some(id), &s);
                true
            }
            StmtKind::Exit(name) | StmtKind::Cycle(name) => {
                let exit = matches!(inner, StmtKind::Exit(_));
                let k = match name {
                    Some(n) => self
                        .loops
                        .iter()
                        .rposition(|c| c.name.as_deref() == Some(n.as_str())),
                    None => self.loops.len().checked_sub(1),
                };
                if let Some(k) = k {
                    let cx = &mut self.loops[k];
                    join_into(if exit { &mut cx.exits } else { &mut cx.cycles }, &s);
                }
                true
            }
            _ => false,
        };
        if leaves && !conditional {
            None
        } else {
            Some(s)
        }
    }
}

