//! Variable accesses of statements: which scalars and array elements each statement reads and
//! writes, including the effects of calls mapped from the callee's summary onto the actual
//! arguments and COMMON members of the caller.

use crate::ast::*;
use crate::sema::{RefKind, UnitSema, INTRINSIC_SUBROUTINES};
use std::collections::{BTreeMap, BTreeSet};

/// One read or write of a variable. `subs == None` means the whole variable (a scalar, or
/// every element of an array); a `Range(None, None, None)` subscript means a whole dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub name: Name,
    pub subs: Option<Vec<Arg>>,
    pub write: bool,
    pub stmt: StmtId,
    pub line: u32,
    /// The procedure through which the access happens (a CALL or a function reference).
    pub via_call: Option<Name>,
    /// Implied-DO variables bounding this access: (var, lo, hi).
    pub implied: Vec<(Name, Expr, Expr)>,
    /// Conditions `e >= 0`, in the caller's terms where the statement runs, under which
    /// `subs` names the elements (an element given to an assumed-size dummy reaches only its
    /// own column when the callee's reach fits in it: `AccessCtx::column_map_if`). Empty:
    /// unconditional. Only `AccessCtx::stmt_accesses_conditional` leaves such accesses;
    /// elsewhere they are "somewhere in the array".
    pub needs: Vec<Expr>,
}

impl Access {
    /// Make an access known only under conditions "somewhere in the array"; whether it was
    /// one.
    pub fn drop_conditions(&mut self) -> bool {
        if self.needs.is_empty() {
            return false;
        }
        self.subs = None;
        self.needs.clear();
        true
    }
}

/// What a procedure does to one dummy argument or COMMON member, in the callee's terms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effect {
    pub read: Vec<Option<Vec<Arg>>>,
    pub write: Vec<Option<Vec<Arg>>>,
    /// Sections (`lo:hi` per dimension, portable like the subscripts) that every execution
    /// of the procedure writes; empty when none is known.
    pub must_write: Vec<Vec<Arg>>,
    /// Every element the procedure reads of it was written by the procedure itself before
    /// (the call defines the array's values rather than using them).
    pub own_reads: bool,
    /// For a COMMON work array that is not `own_reads`: what executing the procedure with
    /// the values a call gives it showed (`concrete::owned_scratch`), an element read before
    /// it was written: "executed with the values its call at line 62 gives it (L = 3, N =
    /// 16), HALF reads W(9) at line 106 before writing it".
    pub read_first: Option<String>,
}

/// Mod/ref summary of a procedure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub name: Name,
    /// Effects per dummy argument position.
    pub args: BTreeMap<usize, Effect>,
    /// Effects on COMMON members: (block, member position).
    pub commons: BTreeMap<(Name, usize), Effect>,
    /// Names of the COMMON members in the callee, for messages.
    pub common_names: BTreeMap<(Name, usize), Name>,
    /// Declared bounds of the COMMON members the callee uses (None where not constant): its
    /// sections of a member map onto a caller's member of the same name only when the caller
    /// declares the same bounds.
    pub common_bounds: BTreeMap<(Name, usize), Vec<Option<(i64, i64)>>>,
    pub has_io: bool,
    pub has_stop: bool,
    /// Writes SAVEd or DATA-initialized locals: state kept between calls.
    pub keeps_state: bool,
    /// Calls procedures whose bodies are not available (transitively).
    pub unknown_calls: BTreeSet<Name>,
    /// Part of a recursive cycle: effects are not precise.
    pub recursive: bool,
    /// Declared bounds (lo, hi) of each dummy array, in portable form (`#k` = actual k).
    pub arg_dims: BTreeMap<usize, Vec<(Option<Expr>, Option<Expr>)>>,
    /// Bytes of one element of each dummy array: an actual of another element size (a DOUBLE
    /// COMPLEX array given to a DOUBLE PRECISION dummy, NPB FT's TMP) does not have the
    /// dummy's elements, so neither its accesses nor its `must_write` sections map onto it.
    pub arg_bytes: BTreeMap<usize, u64>,
    /// In summaries made under quiet flags (`interproc::Quiet`): the flags whose value left
    /// statements of this procedure or of what it calls out.
    pub guards: BTreeSet<(Name, usize)>,
}

impl Summary {
    /// Whether the procedure (or what it calls) may write member `idx` of COMMON block `block`
    /// through the block itself (not through an argument).
    pub fn writes_common(&self, block: &str, idx: usize) -> bool {
        self.commons.iter().any(|((b, i), e)| b == block && (*i == idx || *i == usize::MAX) && !e.write.is_empty())
    }

    /// Whether the procedure (or what it calls) may use COMMON block `block` through the block
    /// itself, or reaches procedures without a body (which might).
    pub fn uses_common(&self, block: &str) -> bool {
        !self.unknown_calls.is_empty() || self.names_common(block)
    }
    /// `uses_common`, where the procedures without a body it reaches that are functions of
    /// the C sources given with the program (`c_idents`) reach the block only if those
    /// sources name it.
    pub fn uses_common_beside_c(&self, block: &str, c_idents: &BTreeSet<String>) -> bool {
        let in_c = |n: &str| crate::flow::in_c_sources(c_idents, n);
        let unknown = !self.unknown_calls.is_empty() && (!self.unknown_calls.iter().all(|n| in_c(n)) || in_c(block));
        unknown || self.names_common(block)
    }
    /// Whether the procedure (or one it calls) reads or writes a member of COMMON `block`.
    fn names_common(&self, block: &str) -> bool {
        self.commons.iter().any(|((b, _), e)| b == block && (!e.write.is_empty() || !e.read.is_empty()))
    }
}

/// Context for access extraction.
pub struct AccessCtx<'a> {
    pub unit: &'a Unit,
    pub sema: &'a UnitSema,
    pub summaries: &'a BTreeMap<Name, Summary>,
}

/// A call site found while extracting accesses.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    pub name: Name,
    pub stmt: StmtId,
    pub line: u32,
    /// No body available (and not intrinsic).
    pub unknown: bool,
}

impl<'a> AccessCtx<'a> {
    fn is_const(&self, n: &str) -> bool {
        self.sema.param(n).is_some()
    }

    /// All accesses of one statement (for a logical IF, its inner statement too).
    ///
    /// A vector given whole to a matrix dummy (`matrix_of`) is the whole vector here too: its
    /// element form over a callee's ranges (`Access::implied` on an access through a call) is
    /// for the loop analysis's tables (`interproc::stmt_accesses`), which split it.
    pub fn stmt_accesses(&self, st: &Stmt, out: &mut Vec<Access>, calls: &mut Vec<CallSite>) {
        let start = out.len();
        self.kind_accesses(st, &st.kind, out, calls);
        for a in &mut out[start..] {
            a.drop_conditions();
            if a.via_call.is_some() && !a.implied.is_empty() {
                a.subs = None;
                a.implied.clear();
            }
        }
    }

    /// `stmt_accesses`, but an access whose elements are known only under conditions keeps
    /// them (`Access::needs`).
    pub fn stmt_accesses_conditional(&self, st: &Stmt, out: &mut Vec<Access>, calls: &mut Vec<CallSite>) {
        self.kind_accesses(st, &st.kind, out, calls);
    }

    fn kind_accesses(
        &self,
        st: &Stmt,
        kind: &StmtKind,
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        let r = |e: &Expr, out: &mut Vec<Access>, calls: &mut Vec<CallSite>| {
            self.reads(st, e, &[], out, calls)
        };
        match kind {
            StmtKind::Assign { lhs, rhs } => {
                if let Expr::Ref(n, _) = lhs {
                    if self.sema.stmt_functions.get(n) == Some(&st.id) {
                        return;
                    }
                }
                r(rhs, out, calls);
                self.target(st, lhs, &[], out, calls);
            }
            StmtKind::Do {
                var, lo, hi, step, ..
            } => {
                r(lo, out, calls);
                r(hi, out, calls);
                if let Some(s) = step {
                    r(s, out, calls);
                }
                out.push(self.scalar(st, var, false));
                out.push(self.scalar(st, var, true));
            }
            StmtKind::DoWhile { cond: Some(c), .. }
            | StmtKind::IfThen(c)
            | StmtKind::ElseIf(c)
            | StmtKind::ArithIf(c, _)
            | StmtKind::ComputedGoto(_, c) => r(c, out, calls),
            StmtKind::LogicalIf(c, inner) => {
                r(c, out, calls);
                self.kind_accesses(st, &inner.kind, out, calls);
            }
            StmtKind::Call { name, args } => self.call(st, name, args, out, calls),
            StmtKind::Io { reads, writes, .. } => {
                for e in reads {
                    r(e, out, calls);
                }
                for e in writes {
                    self.target(st, e, &[], out, calls);
                }
            }
            StmtKind::Unsupported { names, .. } => {
                // Unknown effects: every variable it names may be read and written, whole.
                for n in names {
                    if self.sema.symbol(n).is_some_and(|s| s.param.is_none())
                        || (self.sema.symbol(n).is_none()
                            && !crate::sema::is_intrinsic_function(n)
                            && self.summaries.get(n).is_none())
                    {
                        out.push(self.scalar(st, n, false));
                        out.push(self.scalar(st, n, true));
                    }
                }
            }
            StmtKind::Allocate(es) | StmtKind::Deallocate(es) => {
                for e in es {
                    if let Expr::Opaque(_) = e {
                        // SOURCE= / MOLD=: read
                        self.reads(st, e, &[], out, calls);
                        continue;
                    }
                    if let Expr::Ref(_, bounds) = e {
                        // the bounds of an allocation (a STAT= element's subscripts) are read
                        for a in bounds {
                            self.arg_reads(st, a, &[], out, calls);
                        }
                    }
                    if let Some(n) = e.base_name() {
                        out.push(Access {
                            name: n.to_string(),
                            subs: None,
                            write: true,
                            stmt: st.id,
                            line: st.span.line,
                            via_call: None,
                            implied: vec![],
                            needs: vec![],
                        });
                    }
                }
            }
            _ => {}
        }
    }

    fn scalar(&self, st: &Stmt, n: &str, write: bool) -> Access {
        Access {
            name: n.to_string(),
            subs: None,
            write,
            stmt: st.id,
            line: st.span.line,
            via_call: None,
            implied: vec![],
            needs: vec![],
        }
    }

    /// An assignment target or input item.
    fn target(
        &self,
        st: &Stmt,
        e: &Expr,
        implied: &[(Name, Expr, Expr)],
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        match e {
            Expr::Var(n) => out.push(Access {
                name: n.clone(),
                subs: None,
                write: true,
                stmt: st.id,
                line: st.span.line,
                via_call: None,
                implied: implied.to_vec(),
                needs: vec![],
            }),
            Expr::Ref(n, args) => {
                for a in args {
                    self.arg_reads(st, a, implied, out, calls);
                }
                out.push(self.part_access(st, n, args, true, implied));
            }
            Expr::ImpliedDo { .. } => self.implied_do(st, e, implied, true, out, calls),
            other => self.reads(st, other, implied, out, calls),
        }
    }

    /// `n(args)`: an element of an array, or a substring, which is a part of the scalar `n`
    /// (the access names the whole scalar).
    fn part_access(&self, st: &Stmt, n: &Name, args: &[Arg], write: bool, implied: &[(Name, Expr, Expr)]) -> Access {
        let substring = self.sema.is_substring(n, args);
        Access {
            name: n.clone(),
            subs: if substring { None } else { Some(args.to_vec()) },
            write,
            stmt: st.id,
            line: st.span.line,
            via_call: None,
            implied: implied.to_vec(),
            needs: vec![],
        }
    }

    fn arg_reads(
        &self,
        st: &Stmt,
        a: &Arg,
        implied: &[(Name, Expr, Expr)],
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        match a {
            Arg::Expr(e) | Arg::Keyword(_, e) => self.reads(st, e, implied, out, calls),
            Arg::Range(x, y, z) => {
                for e in [x, y, z].into_iter().flatten() {
                    self.reads(st, e, implied, out, calls);
                }
            }
        }
    }

    /// An implied-DO list: its bounds are read, its variable written, and its items are
    /// assigned (`write`, in a READ) or read, bounded by the implied variable's range.
    fn implied_do(
        &self,
        st: &Stmt,
        e: &Expr,
        implied: &[(Name, Expr, Expr)],
        write: bool,
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        let Expr::ImpliedDo {
            items,
            var,
            lo,
            hi,
            step,
        } = e
        else {
            return;
        };
        self.reads(st, lo, implied, out, calls);
        self.reads(st, hi, implied, out, calls);
        if let Some(s) = step {
            self.reads(st, s, implied, out, calls);
        }
        let mut imp = implied.to_vec();
        imp.push((var.clone(), (**lo).clone(), (**hi).clone()));
        out.push(self.scalar(st, var, true));
        for i in items {
            if write {
                self.target(st, i, &imp, out, calls);
            } else {
                self.reads(st, i, &imp, out, calls);
            }
        }
    }

    /// Reads of an expression (and effects of function references in it).
    pub fn reads(
        &self,
        st: &Stmt,
        e: &Expr,
        implied: &[(Name, Expr, Expr)],
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        match e {
            Expr::Var(n) => {
                if !self.is_const(n) {
                    out.push(Access {
                        name: n.clone(),
                        subs: None,
                        write: false,
                        stmt: st.id,
                        line: st.span.line,
                        via_call: None,
                        implied: implied.to_vec(),
                        needs: vec![],
                    });
                }
            }
            Expr::Ref(n, args) if self.sema.is_substring(n, args) || self.sema.ref_kind(n) == RefKind::ArrayElement => {
                for a in args {
                    self.arg_reads(st, a, implied, out, calls);
                }
                out.push(self.part_access(st, n, args, false, implied));
            }
            Expr::Ref(n, args) => match self.sema.ref_kind(n) {
                // read by the arm above
                RefKind::ArrayElement => {}
                RefKind::Intrinsic => {
                    for a in args {
                        // Inquiry intrinsics do not read array values.
                        if matches!(
                            n.as_str(),
                            "size"
                                | "lbound"
                                | "ubound"
                                | "shape"
                                | "allocated"
                                | "present"
                                | "kind"
                                | "len"
                        ) {
                            continue;
                        }
                        self.arg_reads(st, a, implied, out, calls);
                    }
                }
                RefKind::StmtFunction => {
                    for a in args {
                        self.arg_reads(st, a, implied, out, calls);
                    }
                    // The statement function body reads host variables too (a chain of
                    // statement functions is finite: each uses only earlier ones; the depth
                    // guard keeps an invalid program from recursing for ever).
                    let depth = STMT_FN_DEPTH.with(|d| d.get());
                    if depth > 64 {
                        return;
                    }
                    STMT_FN_DEPTH.with(|d| d.set(depth + 1));
                    let _restore = Restore(depth);
                    if let Some(def) = self.sema.stmt_functions.get(n) {
                        if let StmtKind::Assign {
                            rhs,
                            lhs: Expr::Ref(_, dummies),
                        } = &self.unit.stmt(*def).kind
                        {
                            let dn: BTreeSet<&str> = dummies
                                .iter()
                                .filter_map(|d| d.expr().and_then(|e| e.base_name()))
                                .collect();
                            let mut tmp = vec![];
                            self.reads(st, rhs, implied, &mut tmp, calls);
                            out.extend(tmp.into_iter().filter(|a| !dn.contains(a.name.as_str())));
                        }
                    }
                }
                RefKind::Function => self.call(st, n, args, out, calls),
            },
            Expr::ImpliedDo { .. } => self.implied_do(st, e, implied, false, out, calls),
            Expr::Unary(_, x) => self.reads(st, x, implied, out, calls),
            Expr::Binary(_, a, b) => {
                self.reads(st, a, implied, out, calls);
                self.reads(st, b, implied, out, calls);
            }
            Expr::Opaque(es) => {
                for x in es {
                    self.reads(st, x, implied, out, calls);
                }
            }
            _ => {}
        }
    }

    /// Effects of calling `name(args)` from this statement.
    fn call(
        &self,
        st: &Stmt,
        name: &str,
        args: &[Arg],
        out: &mut Vec<Access>,
        calls: &mut Vec<CallSite>,
    ) {
        let line = st.span.line;
        let mk = |n: &str, subs: Option<Vec<Arg>>, write: bool| Access {
            name: n.to_string(),
            subs,
            write,
            stmt: st.id,
            line,
            via_call: Some(name.to_string()),
            implied: vec![],
            needs: vec![],
        };
        // Argument values are evaluated (read) in any case.
        let mut arg_reads = vec![];
        for a in args {
            match a.expr() {
                Some(Expr::Var(_)) | None => {}
                Some(Expr::Ref(n, sub)) if self.sema.is_array(n) => {
                    for s in sub {
                        self.arg_reads(st, s, &[], &mut arg_reads, calls);
                    }
                }
                Some(e) => self.reads(st, e, &[], &mut arg_reads, calls),
            }
        }
        out.extend(arg_reads);
        if let Some((_, written)) = INTRINSIC_SUBROUTINES.iter().find(|(n, _)| *n == name) {
            calls.push(CallSite {
                name: name.to_string(),
                stmt: st.id,
                line,
                unknown: false,
            });
            for (i, a) in args.iter().enumerate() {
                if let Some(e) = a.expr() {
                    if let Some(n) = e.base_name() {
                        let subs = match e {
                            Expr::Ref(_, s) if self.sema.is_array(n) => Some(s.clone()),
                            _ => None,
                        };
                        out.push(mk(n, subs, written.contains(&i)));
                    }
                }
            }
            return;
        }
        let Some(sum) = self.summaries.get(name) else {
            // No body: any variable argument may be read and written, whole.
            calls.push(CallSite {
                name: name.to_string(),
                stmt: st.id,
                line,
                unknown: true,
            });
            for a in args {
                if let Some(n) = a.expr().and_then(|e| e.base_name()) {
                    if self.sema.symbol(n).is_some_and(|s| s.param.is_none())
                        && self.sema.ref_kind(n) != RefKind::Function
                    {
                        out.push(mk(n, None, false));
                        out.push(mk(n, None, true));
                    }
                }
            }
            return;
        };
        calls.push(CallSite {
            name: name.to_string(),
            stmt: st.id,
            line,
            unknown: !sum.unknown_calls.is_empty(),
        });
        let start = out.len();
        self.summary_effects(args, sum, &mk, out);
        // A callee's many element accesses often map to the same caller access (every element
        // of a 5x5 dummy given `LHS(1,1,AA,I)` is the whole of LHS): one each is enough, and
        // the dependence test is quadratic in the accesses of a loop (NPB BT's x_solve with
        // solve_subs.f: 52 s -> well under a second in a debug build).
        let mut seen: Vec<Access> = Vec::with_capacity(out.len() - start);
        for a in out.drain(start..).collect::<Vec<_>>() {
            if !seen.contains(&a) {
                seen.push(a);
            }
        }
        out.extend(seen);
    }

    /// The accesses of a call to a procedure with summary `sum`, mapped onto the caller.
    fn summary_effects(
        &self,
        args: &[Arg],
        sum: &Summary,
        mk: &dyn Fn(&str, Option<Vec<Arg>>, bool) -> Access,
        out: &mut Vec<Access>,
    ) {
        // Substitution of the callee's dummy scalars by actual argument expressions.
        let actual_of = |i: usize| args.get(i).and_then(|a| a.expr());
        for (&i, eff) in &sum.args {
            let Some(actual) = actual_of(i) else { continue };
            let Some(n) = actual.base_name() else {
                continue;
            };
            if self.sema.param(n).is_some()
                || (matches!(actual, Expr::Ref(..)) && !self.sema.is_array(n))
            {
                continue;
            }
            // a dummy array whose elements are not the actual's (DOUBLE COMPLEX given to
            // DOUBLE PRECISION): only "somewhere in the array"
            let other_size = sum
                .arg_bytes
                .get(&i)
                .is_some_and(|b| self.sema.symbol(n).is_some_and(|s| s.ty.bytes() != *b || matches!(s.ty.base, BaseType::Derived(_))));
            let dummy_array = sum.arg_dims.contains_key(&i);
            for (subs_list, write) in [(&eff.read, false), (&eff.write, true)] {
                for subs in subs_list {
                    let mapped = match (actual, subs) {
                        _ if other_size => None,
                        // Whole array passed: callee subscripts map through when ranks agree.
                        (Expr::Var(_), Some(cs))
                            if self.sema.symbol(n).map(|s| s.rank()) == Some(cs.len()) =>
                        {
                            Some(cs.iter().map(|a| self.map_arg(a, args, sum)).collect())
                        }
                        // A vector given to a matrix dummy `X(LD, N)` (NPB FT's PLANE given to
                        // SWARZTRAUBER's X(BLKP, N)): its elements laid out by hand,
                        // `A(f + LD*g)`, with a variable per callee range (`Access::implied`)
                        (Expr::Var(_), Some(cs)) if sum.arg_dims.get(&i).is_some_and(|d| d.len() == 2) => {
                            match self.matrix_of(n, cs, sum.arg_dims.get(&i), args, sum) {
                                Some((e, implied)) => {
                                    let mut a = mk(n, Some(vec![Arg::Expr(e)]), write);
                                    a.implied = implied;
                                    out.push(a);
                                    continue;
                                }
                                None => None,
                            }
                        }
                        (Expr::Var(_), _) => None,
                        // An element passed to a scalar dummy: exactly that element (to an
                        // array dummy used whole: from there on, not known how far).
                        (Expr::Ref(_, asubs), None) if !dummy_array => Some(asubs.clone()),
                        (Expr::Ref(_, _), None) => None,
                        // An element passed to a 1-D array dummy (sequence association, e.g. a
                        // column `A(1,J)`): mapped when the dummy provably stays in that column.
                        (Expr::Ref(_, asubs), Some(cs)) => {
                            match self.column_map_if(n, asubs, cs, sum.arg_dims.get(&i), args, sum) {
                                Some((m, needs)) if !needs.is_empty() => {
                                    let mut a = mk(n, Some(m), write);
                                    a.needs = needs;
                                    out.push(a);
                                    continue;
                                }
                                other => other.map(|(m, _)| m),
                            }
                        }
                        _ => None,
                    };
                    out.push(mk(n, mapped, write));
                }
            }
        }
        for ((block, idx), eff) in &sum.commons {
            let Some(members) = self.sema.commons.get(block) else {
                // The caller does not declare the block: the effect is invisible here except
                // through other calls; keep it as a pseudo-variable so conflicts are still seen.
                let pseudo = format!("/{block}/");
                if !eff.write.is_empty() {
                    out.push(mk(&pseudo, None, true));
                }
                if !eff.read.is_empty() {
                    out.push(mk(&pseudo, None, false));
                }
                continue;
            };
            let Some(member) = members.get(*idx) else {
                for m in members {
                    out.push(mk(&m.name, None, !eff.write.is_empty()));
                }
                continue;
            };
            // the callee's member at this position is this unit's only when it has the same
            // name and the same declared bounds (a block laid out otherwise there, or an array
            // declared with other bounds, puts other storage under the same position or
            // subscripts): otherwise any member of the block may be touched, whole
            let key = (block.clone(), *idx);
            let same_shape = sum.common_names.get(&key) == Some(&member.name)
                && self.sema.symbol(&member.name).is_some_and(|s| sum.common_bounds.get(&key) == Some(&s.bounds()));
            if !same_shape {
                for m in members {
                    if !eff.write.is_empty() {
                        out.push(mk(&m.name, None, true));
                    }
                    if !eff.read.is_empty() {
                        out.push(mk(&m.name, None, false));
                    }
                }
                continue;
            }
            for (subs_list, write) in [(&eff.read, false), (&eff.write, true)] {
                for subs in subs_list {
                    let mapped = match subs {
                        Some(cs)
                            if self.sema.symbol(&member.name).map(|s| s.rank())
                                    == Some(cs.len()) =>
                        {
                            Some(cs.iter().map(|a| self.map_arg(a, args, sum)).collect())
                        }
                        Some(_) => None,
                        None => None,
                    };
                    out.push(mk(&member.name, mapped, write));
                }
            }
        }
    }

    /// `A(s1, s2, ...)` passed to a 1-D dummy `D(lo:hi)`: callee `D(e)` is `A(s1 + e - lo, s2, ...)`
    /// when `s1 + (hi - lo)` stays within A's first dimension. A k-D dummy `D(l1:h1, ..., lk:hk)`
    /// maps alike when its first k-1 extents are A's and the element starts those dimensions
    /// (NPB BT's `LHS(1,1,BB,I)` passed to `LHS(5,5)`): callee `D(e1, ..., ek)` is
    /// `A(e1 - l1 + s1, ..., ek - lk + sk, s(k+1), ...)`.
    pub(crate) fn column_map(
        &self,
        array: &str,
        asubs: &[Arg],
        cs: &[Arg],
        dims: Option<&Vec<(Option<Expr>, Option<Expr>)>>,
        args: &[Arg],
        sum: &Summary,
    ) -> Option<Vec<Arg>> {
        self.column_map_if(array, asubs, cs, dims, args, sum).filter(|(_, needs)| needs.is_empty()).map(|(m, _)| m)
    }

    /// `column_map`, and where the bounds are not all constant, the same map for a 1-D dummy
    /// under conditions `e >= 0` that keep the callee's reach inside the column (LINPACK's
    /// `CALL SCAL(N, A(K,J), ...)` with `A(LDA,*)` and the dummy `X(*)` used as `X(1:N)`:
    /// `LDA - (K + N - 1) >= 0`). The reach is the callee's access `cs` itself, not the dummy's
    /// declared extent (an assumed-size dummy has none). A 1-D actual array needs no
    /// condition: its elements are the dummy's in order whatever the reach.
    pub(crate) fn column_map_if(
        &self,
        array: &str,
        asubs: &[Arg],
        cs: &[Arg],
        dims: Option<&Vec<(Option<Expr>, Option<Expr>)>>,
        args: &[Arg],
        sum: &Summary,
    ) -> Option<(Vec<Arg>, Vec<Expr>)> {
        if let Some(m) = self.column_map_const(array, asubs, cs, dims, args, sum) {
            return Some((m, vec![]));
        }
        let dims = dims?;
        if dims.len() >= 2 {
            return self.column_map_sym(array, asubs, cs, dims, args, sum);
        }
        if dims.len() != 1 || cs.len() != 1 || asubs.is_empty() {
            return None;
        }
        let sym = self.sema.symbol(array)?;
        let adims = sym.dims.as_ref()?;
        let a = adims.first()?;
        let mapped = |e: &Expr| match self.map_arg(&Arg::Expr(e.clone()), args, sum) {
            Arg::Expr(x) => Some(x),
            _ => None,
        };
        let dlo = match &dims[0].0 {
            Some(e) => self.sema.eval_int(&mapped(e)?)?,
            None => 1,
        };
        let s1 = asubs[0].expr()?.clone();
        let bin = |o: BinOp, x: Expr, y: Expr| Expr::Binary(o, Box::new(x), Box::new(y));
        // callee index e is the actual's s1 + e - dlo
        let at = |e: Expr| {
            let e = bin(BinOp::Add, s1.clone(), e);
            if dlo == 0 {
                e
            } else {
                bin(BinOp::Sub, e, Expr::Int(dlo))
            }
        };
        let (lo, hi, sub) = reach_of(&cs[0], &mapped, &at)?;
        let mut needs = vec![];
        if adims.len() > 1 {
            let alo = match (a.lo, &a.lo_expr) {
                (Some(v), _) => Expr::Int(v),
                (None, Some(e)) => e.clone(),
                _ => return None,
            };
            let ahi = match (a.hi, &a.hi_expr) {
                (Some(v), _) => Expr::Int(v),
                (None, Some(e)) if !a.assumed && !a.star => e.clone(),
                _ => return None,
            };
            for need in [bin(BinOp::Sub, lo, alo), bin(BinOp::Sub, ahi, hi)] {
                match self.sema.eval_int(&need) {
                    Some(v) if v >= 0 => {}
                    Some(_) => return None,
                    None => needs.push(need),
                }
            }
        }
        let mut out = vec![sub];
        out.extend(asubs[1..].iter().cloned());
        Some((out, needs))
    }

    /// `column_map_if` for a k-D dummy (k >= 2) with extents that need not be constant: the
    /// element `A(S1,S2,...)` given to `X(M1,M2)` (`CALL PLANE(A(1,1,K), N1, N2)` with
    /// `A(N1,N2,N3)`). Every dimension of the dummy but its last must have the actual's
    /// extent (the same linear form once the call's arguments are put in); callee index `e`
    /// of dimension d is then the actual's `Sd + e - lo_d` when it stays inside the actual's
    /// bounds of that dimension: conditions that a linear form decides, or that are kept
    /// (`Access::needs`). A reach that is the whole dummy dimension takes its declared bounds.
    fn column_map_sym(
        &self,
        array: &str,
        asubs: &[Arg],
        cs: &[Arg],
        dims: &[(Option<Expr>, Option<Expr>)],
        args: &[Arg],
        sum: &Summary,
    ) -> Option<(Vec<Arg>, Vec<Expr>)> {
        let k = dims.len();
        if cs.len() != k || asubs.len() < k {
            return None;
        }
        let adims = self.sema.symbol(array)?.dims.as_ref()?;
        if adims.len() < k {
            return None;
        }
        let mapped = |e: &Expr| match self.map_arg(&Arg::Expr(e.clone()), args, sum) {
            Arg::Expr(x) => Some(x),
            _ => None,
        };
        let bin = |o: BinOp, x: Expr, y: Expr| Expr::Binary(o, Box::new(x), Box::new(y));
        let lin = |e: &Expr| crate::affine::linearize(e, &|n| self.sema.param(n).and_then(|c| c.as_int()));
        let mut out = vec![];
        let mut needs = vec![];
        for d in 0..k {
            let a = &adims[d];
            let alo = a.lo.map(Expr::Int).or_else(|| a.lo_expr.clone())?;
            let ahi = a.hi.map(Expr::Int).or_else(|| a.hi_expr.clone().filter(|_| !a.assumed && !a.star));
            let dlo = match &dims[d].0 {
                Some(e) => mapped(e)?,
                None => Expr::Int(1),
            };
            let dhi = dims[d].1.as_ref().and_then(mapped);
            if d + 1 < k {
                // the dummy's extent is the actual's
                let same = lin(&bin(BinOp::Sub, bin(BinOp::Sub, dhi.clone()?, dlo.clone()), bin(BinOp::Sub, ahi.clone()?, alo.clone())))?;
                if !same.terms.is_empty() || same.constant != 0 {
                    return None;
                }
            }
            let sd = asubs[d].expr()?.clone();
            // callee index e is the actual's sd + e - dlo
            let at = |e: Expr| bin(BinOp::Sub, bin(BinOp::Add, sd.clone(), e), dlo.clone());
            let (lo, hi, sub) = match &cs[d] {
                Arg::Range(None, None, None) => {
                    let (l, h) = (sd.clone(), at(dhi.clone()?));
                    (l.clone(), h.clone(), Arg::Range(Some(l), Some(h), None))
                }
                c => reach_of(c, &mapped, &at)?,
            };
            // inside the actual's bounds of that dimension (the last one of an assumed-size
            // actual has no upper bound to keep)
            let last_assumed = ahi.is_none() && d + 1 == adims.len();
            let mut conds = vec![bin(BinOp::Sub, lo, alo)];
            match ahi {
                Some(ahi) => conds.push(bin(BinOp::Sub, ahi, hi)),
                None if last_assumed => {}
                None => return None,
            }
            for need in conds {
                match lin(&need) {
                    Some(f) if f.terms.is_empty() => {
                        if f.constant < 0 {
                            return None;
                        }
                    }
                    _ => needs.push(need),
                }
            }
            out.push(sub);
        }
        out.extend(asubs[k..].iter().cloned());
        Some((out, needs))
    }

    fn column_map_const(
        &self,
        array: &str,
        asubs: &[Arg],
        cs: &[Arg],
        dims: Option<&Vec<(Option<Expr>, Option<Expr>)>>,
        args: &[Arg],
        sum: &Summary,
    ) -> Option<Vec<Arg>> {
        let dims = dims?;
        let k = dims.len();
        if k == 0 || cs.len() != k || asubs.len() < k {
            return None;
        }
        let sym = self.sema.symbol(array)?;
        let adims = sym.dims.as_ref()?;
        let eval = |e: &Expr| -> Option<i64> {
            match self.map_arg(&Arg::Expr(e.clone()), args, sum) {
                Arg::Expr(x) => self.sema.eval_int(&x),
                _ => None,
            }
        };
        let mut out = vec![];
        for d in 0..k {
            let a = adims.get(d)?;
            let (alo, ahi) = (a.lo?, a.hi?);
            let dlo = match &dims[d].0 {
                Some(e) => eval(e)?,
                None => 1,
            };
            let dhi = eval(dims[d].1.as_ref()?)?;
            let s1 = self.sema.eval_int(asubs[d].expr()?)?;
            let inner = d + 1 < k;
            if inner && (s1 != alo || dhi - dlo != ahi - alo) {
                return None;
            }
            if s1 < alo || s1 + (dhi - dlo) > ahi {
                return None;
            }
            let off = s1 - dlo;
            let plus = |e: Expr| {
                if off == 0 {
                    e
                } else {
                    Expr::Binary(BinOp::Add, Box::new(e), Box::new(Expr::Int(off)))
                }
            };
            out.push(match self.map_arg(&cs[d], args, sum) {
                Arg::Expr(e) => Arg::Expr(plus(e)),
                _ => Arg::Range(Some(Expr::Int(s1)), Some(Expr::Int(s1 + dhi - dlo)), None),
            });
        }
        out.extend(asubs[k..].iter().cloned());
        Some(out)
    }

    /// A callee's access `cs` of a two-dimensional dummy `X(L1:H1, L2:H2)` given the whole
    /// one-dimensional array `array` (lower bound 1 or a constant), where `H1 - L1 + 1` is one
    /// variable of the caller once the call's arguments are put in (the stride S): the element
    /// as the expression `A(lo + (a - L1) + S*(b - L2))` over the callee's indices a and b,
    /// each a point or a variable of its own over a range (`%row`, `%col`), with those ranges.
    /// The analysis splits it back into `(f, g)` where it can show that rows stay apart
    /// (`Analyzer::split_matrix`).
    fn matrix_of(
        &self,
        array: &str,
        cs: &[Arg],
        dims: Option<&Vec<(Option<Expr>, Option<Expr>)>>,
        args: &[Arg],
        sum: &Summary,
    ) -> Option<(Expr, Implied)> {
        let dims = dims?;
        let adims = self.sema.symbol(array)?.dims.as_ref()?;
        if dims.len() != 2 || cs.len() != 2 || adims.len() != 1 {
            return None;
        }
        let alo = adims[0].lo?;
        let mapped = |e: &Expr| match self.map_arg(&Arg::Expr(e.clone()), args, sum) {
            Arg::Expr(x) => Some(x),
            _ => None,
        };
        let bin = |o: BinOp, x: Expr, y: Expr| Expr::Binary(o, Box::new(x), Box::new(y));
        let lows: Vec<Expr> = dims.iter().map(|(l, _)| l.as_ref().map_or(Some(Expr::Int(1)), mapped)).collect::<Option<_>>()?;
        let (l1, h1) = (lows[0].clone(), mapped(dims[0].1.as_ref()?)?);
        // the stride: one variable
        let stride = match crate::affine::linearize(&bin(BinOp::Add, bin(BinOp::Sub, h1.clone(), l1.clone()), Expr::Int(1)), &|n| self.sema.param(n).and_then(|c| c.as_int())) {
            Some(l) if l.constant == 0 && l.terms.len() == 1 && l.terms.values().all(|k| *k == 1) => l.terms.keys().next()?.clone(),
            _ => return None,
        };
        if !self.sema.symbol(&stride).is_some_and(|s| s.rank() == 0 && s.ty.base == BaseType::Integer) {
            return None;
        }
        let mut implied = vec![];
        let mut index = |k: usize, c: &Arg| -> Option<Expr> {
            let v = ["%row", "%col"][k];
            let (lo, hi) = match self.map_arg(c, args, sum) {
                Arg::Expr(e) => return Some(e),
                Arg::Range(Some(l), Some(h), None) => (l, h),
                Arg::Range(None, None, None) => (lows[k].clone(), mapped(dims[k].1.as_ref()?)?),
                _ => return None,
            };
            implied.push((v.to_string(), lo, hi));
            Some(Expr::Var(v.to_string()))
        };
        let (a, b) = (index(0, &cs[0])?, index(1, &cs[1])?);
        // alo + (a - L1) + S*(b - L2)
        let row = bin(BinOp::Add, Expr::Int(alo), bin(BinOp::Sub, a, l1));
        let col = bin(BinOp::Mul, Expr::Var(stride), bin(BinOp::Sub, b, lows[1].clone()));
        Some((bin(BinOp::Add, row, col), implied))
    }

    /// Map one callee subscript into caller terms. Callee subscripts in a summary refer only to
    /// dummy positions (`Var("#k")`) and constants; anything else became a whole dimension.
    pub(crate) fn map_arg(&self, a: &Arg, args: &[Arg], _sum: &Summary) -> Arg {
        fn subst(e: &Expr, args: &[Arg]) -> Option<Expr> {
            Some(match e {
                Expr::Var(v) if v.starts_with('#') => {
                    let k: usize = v[1..].parse().ok()?;
                    args.get(k)?.expr()?.clone()
                }
                Expr::Unary(o, x) => Expr::Unary(*o, Box::new(subst(x, args)?)),
                Expr::Binary(o, x, y) => {
                    Expr::Binary(*o, Box::new(subst(x, args)?), Box::new(subst(y, args)?))
                }
                Expr::Int(_) => e.clone(),
                _ => return None,
            })
        }
        match a {
            Arg::Expr(e) => subst(e, args)
                .map(Arg::Expr)
                .unwrap_or(Arg::Range(None, None, None)),
            Arg::Range(x, y, z) => {
                let m = |o: &Option<Expr>| o.as_ref().map(|e| subst(e, args));
                match (m(x), m(y), m(z)) {
                    (Some(None), _, _) | (_, Some(None), _) | (_, _, Some(None)) => {
                        Arg::Range(None, None, None)
                    }
                    (a, b, c) => Arg::Range(a.flatten(), b.flatten(), c.flatten()),
                }
            }
            Arg::Keyword(..) => Arg::Range(None, None, None),
        }
    }
}

thread_local!(static STMT_FN_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });

/// Restores the statement-function expansion depth when an expansion ends.
struct Restore(u32);

impl Drop for Restore {
    fn drop(&mut self) {
        STMT_FN_DEPTH.with(|d| d.set(self.0));
    }
}

/// Variables over ranges and their bounds (`Access::implied`).
type Implied = Vec<(Name, Expr, Expr)>;

/// The reach `(lo, hi, subscript)` of one callee subscript (an index or a range) in the
/// actual's terms: `mapped` puts the call's arguments in, `at` turns a callee index into the
/// actual's (`AccessCtx::column_map_if`).
fn reach_of(c: &Arg, mapped: &dyn Fn(&Expr) -> Option<Expr>, at: &dyn Fn(Expr) -> Expr) -> Option<(Expr, Expr, Arg)> {
    match c {
        Arg::Expr(e) => {
            let x = at(mapped(e)?);
            Some((x.clone(), x.clone(), Arg::Expr(x)))
        }
        Arg::Range(Some(l), Some(h), None) => {
            let (l, h) = (at(mapped(l)?), at(mapped(h)?));
            Some((l.clone(), h.clone(), Arg::Range(Some(l), Some(h), None)))
        }
        _ => None,
    }
}
