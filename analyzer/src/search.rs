//! Extremum searches that record only where the extremum is (Livermore kernel 24):
//!
//! ```fortran
//!       DO 24 K = 2, N
//!          IF (X(K) .LT. X(M)) M = K
//!    24 CONTINUE
//! ```
//!
//! Every iteration reads `X(M)`, an element another iteration chose, so the loop is not
//! parallel as written; with a variable that holds `X(M)` it is a MINLOC reduction. The
//! analysis reports such a loop parallel with `REDUCTION(MINLOC(SFVM1, M))`, naming the
//! value variable it introduces ([`IndexSearch::value`]); the generator declares it, sets it
//! to `X(M)` before the loop (when the loop runs at all) and writes the search with it:
//!
//! ```fortran
//!       IF (2 .LE. N) SFVM1 = X(M)
//!       DO 24 K = 2, N
//!          IF (X(K) .LT. SFVM1) THEN
//!             SFVM1 = X(K)
//!             M = K
//!          END IF
//!    24 CONTINUE
//! ```
//!
//! Both find the searches with [`index_searches`], so they agree on the statements and the
//! name. Recognised: a logical IF, or a block IF with no ELSE and that one assignment,
//! directly in the loop's body; a strict comparison (`.LT.`/`.GT.`, either operand order:
//! equal values keep the first, as a combined MINLOC does) of one array at the loop's
//! variable and at the index, the other subscripts alike and free of both; a loop whose
//! step is a constant. Whether the array is left alone by the loop and the index touched only
//! here is the loop analysis's part (`loops.rs`).

use crate::ast::{Arg, BaseType, BinOp, Expr, Name, Node, StmtId, StmtKind, UnOp, Unit};
use crate::loops::{mentions, RedOp};
use crate::sema::UnitSema;

/// One search `IF (A(..K..) op A(..M..)) M = K` in a loop over K.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexSearch {
    /// MINLOC or MAXLOC.
    pub op: RedOp,
    /// The index variable (M).
    pub index: Name,
    /// The loop's variable (K).
    pub var: Name,
    /// The value variable the rewritten loop keeps `A(..M..)` in (`sfvm1`).
    pub value: Name,
    /// Its declaration's type (`DOUBLE PRECISION`).
    pub decl: String,
    /// The array searched.
    pub array: Name,
    /// `A(..K..)` and `A(..M..)` as Fortran text.
    pub cand: String,
    pub best: String,
    /// The comparison as written, with the value variable for `A(..M..)`:
    /// `X(K) .LT. SFVM1`.
    pub test: String,
    /// The statements of the search (the IF, and for a block IF its assignment and END IF).
    pub stmts: Vec<StmtId>,
    /// Its first and last lines, and the label of its first statement.
    pub lines: (u32, u32),
    pub label: Option<u32>,
    /// `lo .LE. hi` (`.GE.` for a negative step): whether the loop runs at all.
    pub runs: String,
}

/// Fortran text of a subscript-like expression (integers, names, array elements and function
/// calls, + - * /, unary minus), parenthesized; None for anything else.
pub fn expr_text(e: &Expr) -> Option<String> {
    Some(match e {
        Expr::Int(v) if *v >= 0 => v.to_string(),
        Expr::Int(v) => format!("({v})"),
        Expr::Var(n) => n.to_uppercase(),
        Expr::Ref(n, args) => {
            let mut parts = vec![];
            for a in args {
                match a {
                    Arg::Expr(x) => parts.push(expr_text(x)?),
                    _ => return None,
                }
            }
            format!("{}({})", n.to_uppercase(), parts.join(","))
        }
        Expr::Unary(UnOp::Neg, x) => format!("(-{})", expr_text(x)?),
        Expr::Binary(op, a, b) => {
            let o = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                _ => return None,
            };
            format!("({}{o}{})", expr_text(a)?, expr_text(b)?)
        }
        _ => return None,
    })
}

/// The value variable's name for index `m`: `sfv<m><n>`, the first `n` from 1 that the unit
/// neither declares nor names in any statement (implicitly typed variables have no
/// declaration).
pub fn value_name(unit: &Unit, sema: &UnitSema, m: &str) -> Name {
    let used: String = unit.stmts.iter().map(|st| format!("{:?}", st.kind)).collect();
    (1..)
        .map(|n| format!("sfv{m}{n}"))
        .find(|c| sema.symbol(c).is_none() && !used.contains(&format!("\"{c}\"")))
        .expect("a free name")
}

/// Whether `var`, a reduction variable of the DO loop `node`, is the value variable of one of
/// its index searches (the generated program adds it).
pub fn is_search_value(unit: &Unit, sema: &UnitSema, node: &Node, var: &str) -> bool {
    var.starts_with("sfv") && index_searches(unit, sema, node).iter().any(|s| s.value == var)
}

/// The declaration type of a variable holding a value of `array` (an element of it, or the
/// scalar itself): INTEGER, REAL or DOUBLE PRECISION (with a kind).
pub(crate) fn decl_of(sema: &UnitSema, array: &str) -> Option<String> {
    let s = sema.symbol(array)?;
    Some(match (&s.ty.base, s.ty.kind) {
        (BaseType::Integer, None) => "INTEGER".into(),
        (BaseType::Integer, Some(k)) => format!("INTEGER*{k}"),
        (BaseType::Real, None) => "REAL".into(),
        (BaseType::Real, Some(k)) => format!("REAL*{k}"),
        (BaseType::DoublePrecision, _) => "DOUBLE PRECISION".into(),
        _ => return None,
    })
}

/// `A(..K..)` against `A(..M..)`: the same array, subscripts equal but where one has K and
/// the other M (at least one such), the others mentioning neither.
fn pair(cand: &Expr, best: &Expr, k: &str, m: &str) -> bool {
    let (Expr::Ref(a, xs), Expr::Ref(b, ys)) = (cand, best) else {
        return false;
    };
    if a != b || xs.len() != ys.len() {
        return false;
    }
    let mut at = 0;
    for (x, y) in xs.iter().zip(ys) {
        let (Arg::Expr(x), Arg::Expr(y)) = (x, y) else {
            return false;
        };
        match (x, y) {
            (Expr::Var(p), Expr::Var(q)) if p == k && q == m => at += 1,
            _ if x == y && !mentions(x, k) && !mentions(x, m) => {}
            _ => return false,
        }
    }
    at > 0
}

/// The index-only extremum searches directly in the body of the DO loop `node`.
pub fn index_searches(unit: &Unit, sema: &UnitSema, node: &Node) -> Vec<IndexSearch> {
    match node {
        Node::Do { header, body, .. } => searches_in(unit, sema, *header, body),
        _ => vec![],
    }
}

/// [`index_searches`] of the loop with DO statement `header` and `body`.
pub fn searches_in(unit: &Unit, sema: &UnitSema, header: StmtId, body: &[Node]) -> Vec<IndexSearch> {
    let StmtKind::Do { var, lo, hi, step, label: term } = &unit.stmt(header).kind else {
        return vec![];
    };
    // labels a statement of the loop jumps to
    let mut jumped: Vec<u32> = vec![];
    crate::ast::for_each_stmt(unit, body, &mut |st| match st.kind.action() {
        StmtKind::Goto(l) => jumped.push(*l),
        StmtKind::ComputedGoto(ls, _) => jumped.extend(ls),
        StmtKind::ArithIf(_, ls) => jumped.extend(ls),
        _ => {}
    });
    let cmp = match step {
        None => ".LE.",
        Some(Expr::Int(s)) if *s > 0 => ".LE.",
        Some(Expr::Int(s)) if *s < 0 => ".GE.",
        Some(Expr::Unary(UnOp::Neg, x)) if matches!(**x, Expr::Int(s) if s > 0) => ".GE.",
        _ => return vec![],
    };
    let (Some(lo), Some(hi)) = (expr_text(lo), expr_text(hi)) else {
        return vec![];
    };
    let mut out = vec![];
    for n in body {
        // (the IF, its condition, the assignment `M = K`, the statements, the last line)
        let (first, cond, assign, stmts, last) = match n {
            Node::Stmt(id) => {
                let st = unit.stmt(*id);
                let StmtKind::LogicalIf(cond, inner) = &st.kind else { continue };
                (st, cond, &inner.kind, vec![*id], st.span.end_line)
            }
            Node::If { arms, end: Some(end) } if arms.len() == 1 && arms[0].1.len() == 1 => {
                let (h, b) = &arms[0];
                let st = unit.stmt(*h);
                let StmtKind::IfThen(cond) = &st.kind else { continue };
                let Node::Stmt(a) = &b[0] else { continue };
                let e = unit.stmt(*end);
                if e.label.is_some() || unit.stmt(*a).label.is_some() {
                    continue;
                }
                (st, cond, &unit.stmt(*a).kind, vec![*h, *a, *end], e.span.end_line)
            }
            _ => continue,
        };
        // rewritten in place: alone on its lines, in the unit's own file; a label only as the
        // loop's terminal statement that no statement of the loop jumps to (it goes on a
        // CONTINUE after the rewritten search)
        if first.span.file != unit.file
            || unit.stmts.iter().any(|t| t.span.file == unit.file && t.span.line <= last && t.span.end_line >= first.span.line && !stmts.contains(&t.id))
            || first.label.is_some_and(|l| *term != Some(l) || jumped.contains(&l))
        {
            continue;
        }
        let StmtKind::Assign { lhs: Expr::Var(m), rhs: Expr::Var(k) } = assign else { continue };
        if k != var || m == var || sema.is_array(m) {
            continue;
        }
        let Expr::Binary(op @ (BinOp::Lt | BinOp::Gt), a, b) = cond else { continue };
        let (cand, best, cand_first) = if pair(a, b, k, m) {
            (a, b, true)
        } else if pair(b, a, k, m) {
            (b, a, false)
        } else {
            continue;
        };
        // normalized to `candidate op best`
        let smaller = (*op == BinOp::Lt) == cand_first;
        let Expr::Ref(array, _) = &**cand else { continue };
        let (Some(ct), Some(bt), Some(decl)) = (expr_text(cand), expr_text(best), decl_of(sema, array)) else {
            continue;
        };
        if !sema.is_array(array) {
            continue;
        }
        let value = value_name(unit, sema, m);
        let o = if *op == BinOp::Lt { ".LT." } else { ".GT." };
        let v = value.to_uppercase();
        let test = if cand_first { format!("{ct} {o} {v}") } else { format!("{v} {o} {ct}") };
        out.push(IndexSearch {
            op: if smaller { RedOp::MinLoc } else { RedOp::MaxLoc },
            index: m.clone(),
            var: k.clone(),
            value,
            decl,
            array: array.clone(),
            cand: ct,
            best: bt,
            test,
            stmts,
            lines: (first.span.line, last),
            label: first.label,
            runs: format!("{lo} {cmp} {hi}"),
        });
    }
    // two searches with one index are not one reduction
    let dup = |m: &Name| out.iter().filter(|s| &s.index == m).count() > 1;
    let keep: Vec<bool> = out.iter().map(|s| !dup(&s.index)).collect();
    out.into_iter().zip(keep).filter(|(_, k)| *k).map(|(s, _)| s).collect()
}
