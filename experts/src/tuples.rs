//! The parallel-loop check of `sapfor verify`: a PARALLEL directive asserts that every loop
//! of its tuple carries no dependence except those its ACROSS clause names, and that the
//! scalars the loops combine are declared REDUCTION. The analysis of the same text says
//! which loops are `sequential` (a carried dependence, a scalar that flows between
//! iterations, a call with unknown effects, ...), which are `across` (constant-distance
//! dependences on arrays) and which reductions they hold. A tuple that contradicts it is a
//! wrong parallel program unless the user asserted otherwise (`!$SPF PARALLEL`, `!$SPF
//! REDUCTION`, ... before the loop, or `sapfor refine` in the project database): the loop's
//! result then names that refinement and is trusted.

use std::collections::BTreeSet;

use analyzer::directives::{Clause, DirectiveKind};
use analyzer::loops::{LoopInfo, Verdict};
use analyzer::report::Analysis;

use crate::dvmh::check::{directives_by_unit, Finding};

/// Findings for every PARALLEL directive of the program whose tuple the analysis refutes.
pub fn check(analysis: &Analysis) -> Vec<Finding> {
    let prog = &analysis.program;
    let mut out = vec![];
    let by_unit = directives_by_unit(prog);
    for (ui, unit) in prog.units.iter().enumerate() {
        let Some(loops) = analysis.loops.get(ui) else { continue };
        let file = prog.map.file(unit.file).display_path();
        for d in by_unit[ui].iter().copied() {
            let DirectiveKind::Parallel { vars, clauses, .. } = &d.kind else { continue };
            let Some(next) = unit.next_stmt_after(d.end_line) else { continue };
            // the tuple's loops, outermost first (the converter reports a tuple that does
            // not match the nest)
            let mut tuple: Vec<(usize, &LoopInfo)> = vec![];
            for v in vars {
                let found = loops.iter().enumerate().find(|(_, l)| {
                    l.var.eq_ignore_ascii_case(v)
                        && match tuple.last() {
                            None => l.header == next.id,
                            Some((p, _)) => l.parent == Some(*p),
                        }
                });
                match found {
                    Some(x) => tuple.push(x),
                    None => break,
                }
            }
            // the arrays its ACROSS clauses name and the variables its REDUCTION clauses name
            let (mut across, mut reduced) = (BTreeSet::new(), BTreeSet::new());
            for c in clauses {
                match c {
                    Clause::Across(specs) => across.extend(specs.iter().map(|s| s.name.to_ascii_lowercase())),
                    Clause::Reduction(rs) => reduced.extend(rs.iter().map(|r| r.var.to_ascii_lowercase())),
                    _ => {}
                }
            }
            let head = format!("PARALLEL ({})", vars.join(",").to_ascii_uppercase());
            let mut say = |message: String| {
                out.push(Finding {
                    file: file.clone(),
                    line: d.line,
                    message,
                })
            };
            for (_, l) in &tuple {
                if !l.overridden_by.is_empty() {
                    continue; // the user's refinement decides
                }
                let var = l.var.to_ascii_uppercase();
                // a loop parallel under run-time tests, written inside `IF (tests) THEN`
                let versioned = l.versioned.as_ref().filter(|v| guard_of(unit, &prog.semas[ui], l.header).is_some_and(|c| v.implied_by(c, &prog.semas[ui])));
                if let Some(v) = versioned {
                    for r in v.reductions.iter().filter(|r| !reduced.contains(&r.var.to_ascii_lowercase())) {
                        say(format!(
                            "{head}: loop {var} (line {}) combines {} ({}) in every iteration, which no REDUCTION clause names",
                            l.line,
                            r.var.to_ascii_uppercase(),
                            r.op.as_str()
                        ));
                    }
                    continue;
                }
                match l.verdict {
                    Verdict::Sequential => {
                        let why = l
                            .blockers
                            .first()
                            .map(|b| format!("{} (line {})", b.message, b.line))
                            .or_else(|| {
                                l.dependences.first().map(|x| {
                                    format!(
                                        "{} depends on itself between iterations (lines {} and {})",
                                        x.array.to_ascii_uppercase(),
                                        x.source_line,
                                        x.sink_line
                                    )
                                })
                            })
                            .unwrap_or_else(|| "a dependence between iterations".into());
                        let tests = l.versioned.as_ref().map_or(String::new(), |v| {
                            format!("; it is parallel when {}: inside `IF ({}) THEN` the directive is right", v.when.join(" .AND. "), v.when.join(" .AND. "))
                        });
                        say(format!(
                            "{head}: loop {var} (line {}) is not parallel: {why}{tests}; if it is, say so with `!$SPF PARALLEL` before it or `sapfor refine`",
                            l.line
                        ));
                    }
                    Verdict::Across => {
                        let missing: BTreeSet<String> = l
                            .dependences
                            .iter()
                            .map(|x| x.array.to_ascii_lowercase())
                            .filter(|a| !across.contains(a))
                            .collect();
                        for a in missing {
                            let x = l.dependences.iter().find(|x| x.array.eq_ignore_ascii_case(&a)).expect("listed");
                            say(format!(
                                "{head}: loop {var} (line {}) carries a dependence on {} (lines {} and {}) that no ACROSS clause names",
                                l.line,
                                a.to_ascii_uppercase(),
                                x.source_line,
                                x.sink_line
                            ));
                        }
                    }
                    Verdict::Parallel => {}
                }
                if l.verdict != Verdict::Sequential {
                    for r in l.reductions.iter().filter(|r| !reduced.contains(&r.var.to_ascii_lowercase())) {
                        say(format!(
                            "{head}: loop {var} (line {}) combines {} ({}) in every iteration, which no REDUCTION clause names",
                            l.line,
                            r.var.to_ascii_uppercase(),
                            r.op.as_str()
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The condition of the IF block whose first statement is the DO loop `header` (the guard the
/// generator writes around a loop parallel under run-time tests), if there is one.
fn guard_of<'u>(unit: &'u analyzer::ast::Unit, sema: &analyzer::sema::UnitSema, header: analyzer::ast::StmtId) -> Option<&'u analyzer::ast::Expr> {
    use analyzer::ast::{Node, StmtKind};
    // the statements before the loop in the IF's arm (a recurrence computed ahead of it,
    // `analyzer::loops::Recurrence`) leave what the condition names alone: assignments,
    // ALLOCATEs and DO loops not assigning it, calling nothing that is given it
    let keeps = |before: &[Node], cond: &analyzer::ast::Expr| {
        let mut names: Vec<String> = vec![];
        cond.walk(&mut |x| {
            if let analyzer::ast::Expr::Var(n) | analyzer::ast::Expr::Ref(n, _) = x {
                names.push(n.clone());
            }
        });
        let named = |e: &analyzer::ast::Expr| {
            let mut hit = false;
            e.walk(&mut |x| hit |= matches!(x, analyzer::ast::Expr::Var(n) | analyzer::ast::Expr::Ref(n, _) if names.contains(n)));
            hit
        };
        let passes = |e: &analyzer::ast::Expr| {
            let mut bad = false;
            e.walk(&mut |x| {
                if let analyzer::ast::Expr::Ref(f, args) = x {
                    if !sema.is_array(f) && args.iter().any(|a| a.expr().is_some_and(named)) {
                        bad = true;
                    }
                }
            });
            bad
        };
        let mut ok = true;
        analyzer::ast::for_each_stmt(unit, before, &mut |st| {
            ok &= match &st.kind {
                StmtKind::Assign { lhs, rhs } => lhs.base_name().is_none_or(|b| !names.iter().any(|n| n == b)) && !passes(lhs) && !passes(rhs),
                StmtKind::Do { var, lo, hi, step, .. } => !names.contains(var) && !passes(lo) && !passes(hi) && step.as_ref().is_none_or(|e| !passes(e)),
                StmtKind::EndDo | StmtKind::Continue => true,
                StmtKind::Allocate(es) => es.iter().all(|e| e.base_name().is_none_or(|b| !names.iter().any(|n| n == b))),
                _ => false,
            };
        });
        ok
    };
    fn find(unit: &analyzer::ast::Unit, nodes: &[Node], header: analyzer::ast::StmtId, keeps: &dyn Fn(&[Node], &analyzer::ast::Expr) -> bool) -> Option<analyzer::ast::StmtId> {
        for n in nodes {
            match n {
                Node::Do { body, .. } => {
                    if let Some(x) = find(unit, body, header, keeps) {
                        return Some(x);
                    }
                }
                Node::If { arms, .. } => {
                    if let Some((h, first)) = arms.first() {
                        let at = first.iter().position(|n| matches!(n, Node::Do { header: d, .. } if *d == header));
                        if let (Some(k), StmtKind::IfThen(c)) = (at, &unit.stmt(*h).kind) {
                            if keeps(&first[..k], c) {
                                return Some(*h);
                            }
                        }
                    }
                    for (_, b) in arms {
                        if let Some(x) = find(unit, b, header, keeps) {
                            return Some(x);
                        }
                    }
                }
                Node::Stmt(_) => {}
            }
        }
        None
    }
    match &unit.stmt(find(unit, &unit.body, header, &keeps)?).kind {
        StmtKind::IfThen(c) => Some(c),
        _ => None,
    }
}
