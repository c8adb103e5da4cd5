//! What a program establishes once about COMMON scalars and never changes: NPB LU's `DOMAIN`
//! sets `IST = 2` and `IEND = NX - 1` once, called once from the main program before anything
//! that reads them; every unit called after it may take `IEND` for `NX - 1` (so the reads
//! `FLUX(M, I+1)` for `I = IST..IEND` lie inside the `FLUX(:, 1:NX)` the iteration wrote).
//!
//! A fact `V = e` holds in unit U when
//! - V is a COMMON scalar (named alike in every unit that declares its block, not in
//!   EQUIVALENCE, DATA or SAVE) written in exactly one statement of the program: `V = e` at the
//!   top level of a subprogram D (not inside a loop or IF), and never passed as an argument
//!   (a callee could write it);
//! - e is linear in constants and COMMON scalars W written only in D's top level before it;
//! - D is called exactly once, from a top-level statement of the main program;
//! - U is not D or the main program, D does not reach U, and every top-level statement of the
//!   main program that reaches U comes after the call of D.

use crate::access::AccessCtx;
use crate::access::Summary;
use crate::affine::Lin;
use crate::ast::{for_each_stmt, Expr, Name, Node, StmtId, StmtKind, Unit, UnitKind};
use crate::sema::UnitSema;
use std::collections::{BTreeMap, BTreeSet};

type Key = (Name, usize);

/// Per unit (in `units` order): the COMMON scalars whose values are these linear forms there.
/// `c_idents`: the identifiers of the C sources given with the program (their functions are
/// taken not to touch Fortran COMMON blocks); a call of any other procedure without a body
/// could change every block, and then nothing is known.
pub fn common_facts(
    units: &[Unit],
    semas: &[UnitSema],
    summaries: &BTreeMap<Name, Summary>,
    c_idents: &BTreeSet<String>,
) -> Vec<BTreeMap<Name, Lin>> {
    let mut out = vec![BTreeMap::new(); units.len()];
    let mains: Vec<usize> = (0..units.len()).filter(|&i| units[i].kind == UnitKind::Program).collect();
    let [main] = mains[..] else { return out };
    // COMMON scalars by block and position, with the one name every unit gives them
    // (arrays too, declared with the same constant bounds everywhere: an element with
    // constant subscripts may make up a value, NPB SP's `NX2 = GRID_POINTS(1) - 2`)
    let mut name_of: BTreeMap<Key, Option<(Name, Vec<Option<(i64, i64)>>)>> = BTreeMap::new();
    for sema in semas {
        for (n, s) in &sema.symbols {
            let Some(key) = s.common.clone() else { continue };
            let bounds = s.bounds();
            let ok = s.aliases.is_empty() && !s.data_init && !s.save && bounds.iter().all(|b| b.is_some());
            let here = Some((n.clone(), bounds));
            let e = name_of.entry(key).or_insert_with(|| here.clone());
            if !ok || *e != here {
                *e = None;
            }
        }
    }
    let key_of = |ui: usize, n: &str| semas[ui].symbol(n).and_then(|s| s.common.clone()).filter(|k| name_of.get(k).is_some_and(|x| x.is_some()));
    // every write of each, and the calls of every unit
    let mut writes: BTreeMap<Key, Vec<(usize, StmtId)>> = BTreeMap::new();
    let mut spoiled: BTreeSet<Key> = BTreeSet::new();
    let mut callees: Vec<BTreeSet<Name>> = vec![BTreeSet::new(); units.len()];
    let mut calls_at: Vec<BTreeMap<StmtId, BTreeSet<Name>>> = vec![BTreeMap::new(); units.len()];
    for (ui, u) in units.iter().enumerate() {
        let cx = AccessCtx { unit: u, sema: &semas[ui], summaries };
        for st in u.stmts.iter().filter(|s| s.kind.is_executable()) {
            let (mut acc, mut calls) = (vec![], vec![]);
            cx.stmt_accesses(st, &mut acc, &mut calls);
            if crate::flow::calls_unknown(&calls, summaries, c_idents) {
                return out;
            }
            for c in &calls {
                callees[ui].insert(c.name.clone());
                calls_at[ui].entry(st.id).or_default().insert(c.name.clone());
            }
            for a in acc.iter().filter(|a| a.write) {
                let Some(key) = key_of(ui, &a.name) else { continue };
                match &a.via_call {
                    None => writes.entry(key).or_default().push((ui, st.id)),
                    // a callee's own write of the block is counted where it is; through an
                    // argument, the variable changes where no statement says so
                    Some(c) => {
                        let by_block = summaries.get(c).is_some_and(|sum| sum.writes_common(&key.0, key.1));
                        if !by_block || passed(&st.kind, &a.name) {
                            spoiled.insert(key);
                        }
                    }
                }
            }
        }
    }
    let index: BTreeMap<&str, usize> = units.iter().enumerate().map(|(i, u)| (u.name.as_str(), i)).collect();
    let reach = |from: &BTreeSet<Name>| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<usize> = from.iter().filter_map(|n| index.get(n.as_str()).copied()).collect();
        while let Some(u) = todo.pop() {
            if seen.insert(u) {
                todo.extend(callees[u].iter().filter_map(|n| index.get(n.as_str()).copied()));
            }
        }
        seen
    };
    // the units each top-level node of the main program reaches
    let main_nodes: Vec<BTreeSet<usize>> = units[main]
        .body
        .iter()
        .map(|n| {
            let mut names = BTreeSet::new();
            for_each_stmt(&units[main], std::slice::from_ref(n), &mut |st| {
                if let Some(c) = calls_at[main].get(&st.id) {
                    names.extend(c.iter().cloned());
                }
            });
            reach(&names)
        })
        .collect();
    let top_pos = |ui: usize, id: StmtId| units[ui].body.iter().position(|n| matches!(n, Node::Stmt(s) if *s == id));
    // the top-level node of a unit holding a statement (inside an IF or a loop too)
    let node_pos = |ui: usize, id: StmtId| {
        units[ui].body.iter().position(|n| {
            let mut found = false;
            for_each_stmt(&units[ui], std::slice::from_ref(n), &mut |st| found |= st.id == id);
            found
        })
    };
    for (key, sites) in &writes {
        let [(d, s)] = sites[..] else { continue };
        if spoiled.contains(key) {
            continue;
        }
        let Some(pos) = top_pos(d, s) else { continue };
        let StmtKind::Assign { lhs: Expr::Var(v), rhs } = &units[d].stmts[s.0 as usize].kind else { continue };
        // (a unit jumping backward may run a statement again after a later one)
        if semas[d].is_array(v) || crate::cfg::jumps_backward(&units[d]) {
            continue;
        }
        let sema = &semas[d];
        // elements of COMMON arrays with constant subscripts are symbols of their own, named
        // as the loop analysis names an expression it cannot take apart (`Analyzer::lin`)
        let elements: std::cell::RefCell<BTreeMap<String, Name>> = Default::default();
        let opaque = |e: &Expr| -> Option<String> {
            let Expr::Ref(a, subs) = e else { return None };
            let constant = subs.iter().all(|x| x.expr().is_some_and(|x| sema.eval_int(x).is_some()));
            (constant && sema.is_array(a) && key_of(d, a).is_some()).then(|| {
                let n = format!("{e:?}");
                elements.borrow_mut().insert(n.clone(), a.clone());
                n
            })
        };
        let Some(value) = crate::affine::linearize_with(rhs, &|n: &str| sema.param(n).and_then(|c| c.as_int()), &opaque) else { continue };
        let elements = elements.into_inner();
        let name_in = |w: &str| -> Name { elements.get(w).cloned().unwrap_or_else(|| w.to_string()) };
        // what it is made of keeps its value from there on: written in D only, before
        // (scalars at the top level, arrays anywhere in the nodes before it)
        let stable = value.vars().all(|w| {
            let arr = elements.contains_key(w);
            key_of(d, &name_in(w)).is_some_and(|k| {
                !spoiled.contains(&k)
                    && writes.get(&k).is_some_and(|ws| {
                        ws.iter().all(|&(wu, ws)| wu == d && if arr { node_pos(d, ws) } else { top_pos(d, ws) }.is_some_and(|p| p < pos))
                    })
            })
        });
        if !stable {
            continue;
        }
        // D is the main program, or called once, from a top-level statement of it
        let (call_pos, from_d) = if d == main {
            (pos, BTreeSet::new())
        } else {
            let sites_of_d: Vec<(usize, StmtId)> = (0..units.len())
                .flat_map(|ui| calls_at[ui].iter().filter(|(_, c)| c.contains(&units[d].name)).map(move |(id, _)| (ui, *id)))
                .collect();
            let [(cu, cs)] = sites_of_d[..] else { continue };
            let Some(call_pos) = top_pos(cu, cs).filter(|_| cu == main) else { continue };
            (call_pos, reach(&callees[d]))
        };
        for (ui, fo) in out.iter_mut().enumerate() {
            if ui == main || ui == d || from_d.contains(&ui) {
                continue;
            }
            let reached_at: Vec<usize> = (0..main_nodes.len()).filter(|&t| main_nodes[t].contains(&ui)).collect();
            if reached_at.is_empty() || reached_at.iter().any(|&t| t <= call_pos) {
                continue;
            }
            // named alike here, with what it is made of
            let here = |n: &str| key_of(ui, n).is_some_and(|k| key_of(d, n) == Some(k));
            if here(v) && value.vars().all(|w| here(&name_in(w))) {
                fo.insert(v.clone(), value.clone());
            }
        }
    }
    out
}

/// Whether a CALL statement passes variable `n` itself as an actual argument.
fn passed(kind: &StmtKind, n: &str) -> bool {
    match kind.action() {
        StmtKind::Call { args, .. } => args.iter().any(|a| matches!(a.expr(), Some(Expr::Var(v)) if v == n)),
        _ => false,
    }
}
