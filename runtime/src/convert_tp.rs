//! COMMON blocks private to each thread (docs/runtime.md "Threads and COMMON work arrays").
//!
//! A parallel loop may have a private COMMON array that a procedure it calls reaches through
//! the block itself (NPB SP's X_SOLVE: `PRIVATE(LHS)` while LHSINIT zeroes planes of LHS in
//! `/WORK_LHS/`). Each process has its own copy of every COMMON block, so processes need
//! nothing; but an OpenMP `firstprivate(lhs)` copy is the caller's alone, and the callee would
//! write the one shared block from every thread. Such a block becomes `THREADPRIVATE` in every
//! unit that declares it: each thread has its own block, the master thread's being the one
//! sequential code uses. Every threaded loop that reaches a member of such a block then starts
//! with `copyin(/b/)` (each thread's copy starts with the master's values, as a private copy
//! starts with the values from before the loop), and runs on one thread when it writes a
//! member that is not private to it (the write would stay in one thread's copy) or cannot
//! name the block (a unit that does not declare it calls a procedure that does).

use super::{all_dos, collect_stmts, par_loops, Cx};
use analyzer::access::{Access, AccessCtx, CallSite};
use analyzer::ast::{Node, StmtKind};
use analyzer::directives::Clause;
use std::collections::{BTreeMap, BTreeSet};

/// Accesses of the statements of a loop nest, calls' effects included (in the unit's names:
/// members of a COMMON block the unit does not declare appear as `/block/`).
fn nest_accesses(cx: &Cx, ui: usize, outer: &Node) -> Vec<Access> {
    let p = cx.p;
    let u = &p.units[ui];
    let acx = AccessCtx { unit: u, sema: &p.semas[ui], summaries: &p.summaries };
    let mut ids = BTreeSet::new();
    collect_stmts(u, outer, &mut ids);
    let mut out = vec![];
    let mut calls: Vec<CallSite> = vec![];
    for st in u.stmts.iter().filter(|s| ids.contains(&s.id) && s.kind.is_executable()) {
        acx.stmt_accesses(st, &mut out, &mut calls);
    }
    out
}

/// Chooses the THREADPRIVATE blocks of the program (`Cx::tp_blocks`) and writes the
/// directive after the last COMMON statement of each in every unit declaring it.
pub(super) fn plan(cx: &mut Cx) {
    let p = cx.p;
    // block -> the loops that need it (for messages)
    let mut wanted: BTreeMap<String, Vec<(analyzer::source::FileId, u32)>> = BTreeMap::new();
    for ui in 0..p.units.len() {
        let sema = &p.semas[ui];
        let u = &p.units[ui];
        let mut dos = vec![];
        all_dos(&u.body, &mut dos);
        for d in par_loops(p, ui, &dos, &cx.unit_dirs[ui]).into_iter().flatten() {
            let private: BTreeSet<String> = d
                .clauses
                .iter()
                .flat_map(|c| match c {
                    Clause::Private(v) => v.iter().map(|x| x.to_ascii_lowercase()).collect(),
                    _ => vec![],
                })
                .collect();
            for a in nest_accesses(cx, ui, dos[d.outer]) {
                if a.via_call.is_none() || !private.contains(&a.name) {
                    continue;
                }
                let Some((block, _)) = sema.symbol(&a.name).and_then(|s| s.common.clone()) else { continue };
                // (a callee given the array as an argument works on the thread's copy: only
                // one that reaches the block itself needs the block private to each thread)
                let through_block = a.via_call.as_ref().is_none_or(|c| p.summaries.get(c).is_none_or(|s| s.uses_common(&block)));
                if through_block {
                    let e = wanted.entry(block).or_default();
                    if !e.contains(&(u.file, d.dir_line)) {
                        e.push((u.file, d.dir_line));
                    }
                }
            }
        }
    }
    for (block, loops) in wanted {
        match insertion_points(cx, &block) {
            Ok(points) => {
                for (f, l) in points {
                    let text = format!("!$omp threadprivate(/{block}/)");
                    let at = cx.after.entry((f, l)).or_default();
                    if !at.contains(&text) {
                        at.push(text);
                    }
                }
                cx.tp_blocks.insert(block);
            }
            Err(why) => {
                for (f, l) in loops {
                    cx.warn(f, l, format!("this loop runs on one thread per process: a procedure it calls uses its private COMMON /{}/ array, and that block cannot be private to each thread ({why})", block.to_uppercase()));
                }
            }
        }
    }
}

/// Where `!$omp threadprivate(/block/)` goes: after the last COMMON statement naming the block
/// in each unit that declares it ((file, last line) of that statement; an INCLUDE file's line
/// serves every unit including it). Err: why the block cannot be THREADPRIVATE.
fn insertion_points(cx: &Cx, block: &str) -> Result<BTreeSet<(u32, u32)>, String> {
    let p = cx.p;
    if block.is_empty() {
        return Err("blank COMMON".into());
    }
    if cx.arrays.values().any(|a| a.common.as_ref().is_some_and(|(b, _)| b == block)) {
        return Err("it has a distributed array".into());
    }
    let mut points = BTreeSet::new();
    let mut per_unit: Vec<Vec<(u32, u32)>> = vec![];
    for (ui, u) in p.units.iter().enumerate() {
        let sema = &p.semas[ui];
        let Some(members) = sema.commons.get(block) else { continue };
        if members.iter().any(|m| sema.symbol(&m.name).is_some_and(|s| !s.aliases.is_empty())) {
            return Err(format!("EQUIVALENCE with a member in {}", u.name.to_uppercase()));
        }
        let stmts: Vec<(u32, u32)> = u
            .stmts
            .iter()
            .filter(|s| matches!(&s.kind, StmtKind::Common(list) if list.iter().any(|(b, _)| b == block)))
            .map(|s| (s.span.file.0, s.span.end_line))
            .collect();
        let Some(last) = stmts.last().copied() else {
            return Err(format!("its COMMON statement in {} was not found", u.name.to_uppercase()));
        };
        points.insert(last);
        per_unit.push(stmts);
    }
    // the directive must follow every COMMON statement of the block in each unit: a point
    // (in an INCLUDE file, say) must be the last in every unit that has it
    for stmts in &per_unit {
        let last = stmts.last();
        for s in stmts {
            if points.contains(s) && Some(s) != last {
                return Err("units declare it in different orders of COMMON statements".into());
            }
        }
    }
    Ok(points)
}

/// For one threaded loop: the `copyin` clauses of the THREADPRIVATE blocks it reaches, after
/// taking their members out of `private` (a THREADPRIVATE variable is private to each thread
/// already). Err: why the loop must run on one thread.
pub(super) fn loop_clauses(cx: &Cx, ui: usize, outer: &Node, private: &mut BTreeSet<String>, reductions: &BTreeSet<String>) -> Result<Vec<String>, String> {
    if cx.tp_blocks.is_empty() {
        return Ok(vec![]);
    }
    let sema = &cx.p.semas[ui];
    let mut touched: BTreeSet<String> = BTreeSet::new();
    for a in nest_accesses(cx, ui, outer) {
        if let Some(b) = a.name.strip_prefix('/').and_then(|b| b.strip_suffix('/')) {
            if cx.tp_blocks.contains(b) {
                return Err(format!("a procedure it calls uses COMMON /{}/, which is private to each thread and not declared here", b.to_uppercase()));
            }
            continue;
        }
        let Some((b, _)) = sema.symbol(&a.name).and_then(|s| s.common.clone()).filter(|(b, _)| cx.tp_blocks.contains(b)) else { continue };
        if reductions.contains(&a.name) {
            return Err(format!("its reduction variable {} is in COMMON /{}/, which is private to each thread", a.name.to_uppercase(), b.to_uppercase()));
        }
        if a.write && !private.contains(&a.name) {
            return Err(format!("it writes {} of COMMON /{}/, which is private to each thread, and {} is not private to the loop", a.name.to_uppercase(), b.to_uppercase(), a.name.to_uppercase()));
        }
        touched.insert(b);
    }
    private.retain(|v| !sema.symbol(v).and_then(|s| s.common.as_ref()).is_some_and(|(b, _)| cx.tp_blocks.contains(b)));
    Ok(touched.iter().map(|b| format!("copyin(/{b}/)")).collect())
}
