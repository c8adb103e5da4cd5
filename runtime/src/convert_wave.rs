//! ACROSS loops run in strips of columns along wavefronts (docs/runtime.md "Wavefront
//! strips").
//!
//! A Gauss-Seidel sweep `A(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) / 4` reads the
//! value its previous iteration has just written: every iteration waits for the one before
//! (a store, a load, three additions and a multiplication in a chain), and the processor
//! runs one iteration at a time however many it could start. Taken in strips of W
//! consecutive columns J, the point `(I, J + k)` runs right after `(I + 1, J + k - 1)` (the
//! strip's points on one anti-diagonal `I + J` after the other, along the strip from its
//! first column): W points in a row that depend on none of each other, whose chains the
//! processor overlaps. Each point computes what it computed before from the same values, so
//! the results are the same to the last bit (a 2000x2000 sweep: 2 to 3 times faster).
//!
//! The new order keeps every dependence of the old one where every pair of references to an
//! array the loop writes (one of them a write) is `v(I + a, J + b)` in two fixed dimensions,
//! anything in the others: the iterations touching one element lie `(dJ, dI) = (b1 - b2,
//! a1 - a2)` apart, and the later one in the old order still comes later when `dJ = 0` or
//! `dI >= -dJ` (the strip's order is by `I + J`, then `J`). A reference reading two rows ahead
//! in the previous column (`A(I+2,J-1)`) keeps the loop as it is. Also required: the two
//! innermost loops of the directive, step 1 or -1 (offsets count along each loop's direction),
//! bounds the strips evaluate again (the inner loop's, the outer loop's last) that read
//! nothing the nest writes, the inner one's bounds free of the outer one's
//! variable, default-INTEGER loop variables (the strips' own are: see `strips`), only assignments and DO and IF constructs inside (no jump, call or I/O),
//! reductions whose order cannot show (MAX, MIN, logical ones, integer sums and products),
//! no storage two names share, and a dependence the innermost loop carries (two references
//! in one column and different rows, one a write): where its points wait for none of each
//! other, the nest as written runs them in a row already, and strips only scatter its
//! accesses (the sweeps of the DVM system's `adi.fdv` along J and K ran 1.6 and 2.8 times
//! slower in strips, the one along I 1.5 times faster). `SAPFOR_WAVE` at conversion sets W (default 8; 0 or 1 keeps
//! every loop as written).

use super::{names_in, offset, one_dim, order_free, red_op, Cx, ParLoop};
use analyzer::ast::{BaseType, Node, Stmt, StmtKind};
use analyzer::directives::Clause;
use std::collections::{BTreeMap, BTreeSet};

/// The strip width from `SAPFOR_WAVE` (None: off).
fn width() -> Option<i64> {
    match std::env::var("SAPFOR_WAVE") {
        Ok(v) => v.trim().parse::<i64>().ok().filter(|w| *w > 1),
        Err(_) => Some(8),
    }
}

/// The step of DO statement `h`, 1 or -1 (None: another or not constant).
fn unit_step(cx: &Cx, ui: usize, h: &Stmt) -> Option<i64> {
    let StmtKind::Do { step, .. } = &h.kind else { return None };
    match step {
        None => Some(1),
        Some(s) => cx.p.semas[ui].eval_int(s).filter(|k| k.abs() == 1),
    }
}

/// Whether the ACROSS nest `nest` (its DO statements `headers`) of loop `pl` may run in
/// wavefront strips of its two innermost loops (see the module's comment); where not, why
/// (`sapfor build --explain`; empty: nothing to say).
fn legal(cx: &Cx, ui: usize, pl: &ParLoop, headers: &[&Stmt], nest: &[&Node]) -> Result<(), String> {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let n = headers.len();
    if cx.order {
        return Err(String::new());
    }
    if n < 2 {
        return Err("the nest has one loop".into());
    }
    let (hj, hi) = (headers[n - 2], headers[n - 1]);
    let (StmtKind::Do { var: vj, hi: jhi, .. }, StmtKind::Do { var: vi, lo, hi: up, .. }) = (&hj.kind, &hi.kind) else { return Err(String::new()) };
    // (offsets count along each loop's direction)
    let (Some(sj), Some(si)) = (unit_step(cx, ui, hj), unit_step(cx, ui, hi)) else { return Err("a step of its two innermost loops is not 1 or -1".into()) };
    // (default integers, like the strips' own variables: gfortran reduces the subscripts'
    // arithmetic to one pointer step per point only where no conversion between kinds sits
    // in it; a 2000x2000 sweep took 1.16 s with 64-bit strip variables, 0.76 s without)
    if [vj, vi].iter().any(|v| {
        let t = sema.type_of(&v.to_ascii_lowercase());
        !matches!(t.base, BaseType::Integer) || !matches!(t.kind, None | Some(4))
    }) {
        return Err("a variable of its two innermost loops is not a default INTEGER".into());
    }
    // (a rectangle: the inner bounds do not move with the outer variable)
    if names_in(&[lo, up]).contains(&vj.to_ascii_lowercase()) {
        return Err(format!("the inner loop's bounds read {}: not a rectangle", vj.to_uppercase()));
    }
    // the names the bounds the strips evaluate again read: the inner loop's (once a strip,
    // not once a column) and the outer loop's last (for the last strip's width)
    let bound_names = names_in(&[lo, up, jhi]);
    let mut private: BTreeSet<String> = BTreeSet::new();
    for c in &pl.clauses {
        match c {
            Clause::Private(v) => private.extend(v.iter().map(|x| x.to_ascii_lowercase())),
            Clause::Reduction(reds) if reds.iter().any(|r| !order_free(sema, r) || red_op(r.op).1.is_none()) => {
                return Err("a reduction whose value depends on the order of the iterations (a sum or product of reals, MAXLOC/MINLOC)".into())
            }
            _ => {}
        }
    }
    if !super::plain_nest(u, nest[0]) {
        return Err(format!("the nest holds {}", super::NOT_PLAIN));
    }
    let acx = super::access_ctx(p, ui);
    let (mut accs, mut calls) = (vec![], vec![]);
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(nest[0]), &mut |st| acx.stmt_accesses(st, &mut accs, &mut calls));
    if !calls.is_empty() {
        return Err("the nest calls a function of the program".into());
    }
    if super::aliased(sema, &accs) {
        return Err(super::SHARED_STORAGE.into());
    }
    // (nor does the nest write what they read, but for the DO variables of its own loops,
    // which the outer ones hold while the strips run)
    if let Some(a) = accs.iter().find(|a| a.write && bound_names.contains(&a.name.to_ascii_lowercase()) && !headers.iter().any(|h| h.id == a.stmt)) {
        return Err(format!("the nest writes {}, which the bounds read", a.name.to_uppercase()));
    }
    // every array written (but private ones): its references' (J, I) offsets
    let written: BTreeSet<String> = accs.iter().filter(|a| a.write).map(|a| a.name.to_ascii_lowercase()).filter(|x| sema.is_array(x)).filter(|x| !private.contains(x)).collect();
    let mut refs: BTreeMap<&str, Vec<(i64, i64, bool)>> = BTreeMap::new();
    for x in &written {
        let of = || accs.iter().filter(|a| a.name.eq_ignore_ascii_case(x));
        let not_fixed = || Err(format!("the references to {} do not index two dimensions by {} and {} plus constants", x.to_uppercase(), vj.to_uppercase(), vi.to_uppercase()));
        let (Some(dj), Some(di)) = (one_dim(of().map(|a| (a, vj.as_str()))), one_dim(of().map(|a| (a, vi.as_str())))) else { return not_fixed() };
        if dj == di {
            return not_fixed();
        }
        for a in of() {
            let Some(subs) = &a.subs else { return not_fixed() };
            refs.entry(x).or_default().push((offset(&subs[dj], vj).unwrap_or(0) * sj, offset(&subs[di], vi).unwrap_or(0) * si, a.write));
        }
    }
    // (whether the innermost loop carries a dependence: two references, one a write, in
    // one column and different rows)
    let mut chain = false;
    for (x, v) in &refs {
        for (k, &(b1, a1, w1)) in v.iter().enumerate() {
            for &(b2, a2, w2) in &v[k + 1..] {
                if !(w1 || w2) {
                    continue;
                }
                chain |= b1 == b2 && a1 != a2;
                // (the later iteration in the old order: the distance lexicographically
                // positive in (J, I))
                let (mut dj, mut di) = (b1 - b2, a1 - a2);
                if dj < 0 || (dj == 0 && di < 0) {
                    (dj, di) = (-dj, -di);
                }
                if dj > 0 && di < -dj {
                    return Err(format!("an iteration reads or writes an element of {} that an iteration {dj} column(s) before and {} row(s) further touched: the strips would reverse them", x.to_uppercase(), -di));
                }
            }
        }
    }
    // (points along I that wait for none of each other: see the module's comment)
    if !chain {
        return Err(format!("its loop on {} carries no dependence: the points along {} do not wait for each other as written", vi.to_uppercase(), vi.to_uppercase()));
    }
    Ok(())
}

/// `prefix` (a DO statement up to its `=`) with its variable `var` renamed `new`.
fn rename(prefix: &str, var: &str, new: &str) -> Option<String> {
    let (a, b) = *crate::text::idents(prefix, var).last()?;
    Some(format!("{}{new}{}", &prefix[..a], &prefix[b..]))
}

/// Run the two innermost loops of ACROSS nest `nest` in wavefront strips where `legal`
/// allows (after the pipeline has cut the nest's bounds). Returns the scalars the strips add
/// (private on threads); empty where the nest stays as written.
///
/// `DO J = a, b, sj` / `DO I = c, d, si` become strips of W columns from `a` on; in each, the
/// anti-diagonals `t` of positions along I (`(I - c) * si`, from 0 to `sapfor_wn`) and, on
/// each, the strip's columns from its first (`sapfor_wk`).
pub(super) fn strips(cx: &mut Cx, ui: usize, pl: &ParLoop, headers: &[&Stmt], nest: &[&Node]) -> Vec<String> {
    let Some(w) = width() else { return vec![] };
    if let Err(why) = legal(cx, ui, pl, headers, nest) {
        if let (false, Some(first)) = (why.is_empty(), headers.first()) {
            cx.note(first.span.file, first.span.line, format!("this ACROSS nest runs as written, not in wavefront strips: {why}"));
        }
        return vec![];
    }
    let u = &cx.p.units[ui];
    let n = headers.len();
    let (hj, hi) = (headers[n - 2], headers[n - 1]);
    let (StmtKind::Do { var: vj, .. }, StmtKind::Do { var: vi, label, .. }) = (&hj.kind, &hi.kind) else { return vec![] };
    let (tj, ti) = (cx.current_lines(hj), cx.current_lines(hi));
    let ([tj], [ti]) = (&tj[..], &ti[..]) else { return vec![] };
    let (Some((ej, pj)), Some((ei, pi))) = (crate::text::do_parts(tj), crate::text::do_parts(ti)) else { return vec![] };
    // (the steps as written now: the pipeline's tiles keep them)
    let step = |p: &[String]| match p.get(2).map(|x| x.replace(' ', "")).as_deref() {
        None | Some("1") => Some(1i64),
        Some("-1") => Some(-1),
        _ => None,
    };
    let (Some(sj), Some(si)) = (step(&pj), step(&pi)) else { return vec![] };
    if Some(sj) != unit_step(cx, ui, hj) || Some(si) != unit_step(cx, ui, hi) {
        return vec![];
    }
    let (Some(dj), Some(dt), Some(dk)) = (rename(&tj[..ej], vj, "sapfor_wj"), rename(&ti[..ei], vi, "sapfor_wt"), rename(&ti[..ei], vi, "sapfor_wk")) else { return vec![] };
    // a block DO's END DO closes the strip's inner loop too; a labelled DO's terminal
    // statement ends it (it ends the loops around already)
    let end = match (nest[n - 1], label) {
        (_, Some(_)) => None,
        (Node::Do { end: Some(e), .. }, None) if u.stmt(*e).label.is_none() => Some(u.stmt(*e)),
        _ => return vec![],
    };
    let (ja, jb, ia, ib) = (pj[0].trim(), pj[1].trim(), pi[0].trim(), pi[1].trim());
    let (plus_j, plus_i) = (if sj > 0 { "+" } else { "-" }, if si > 0 { "+" } else { "-" });
    cx.replace_stmt(
        hj,
        vec![
            format!("{dj}= {ja}, {jb}, {}", sj * w),
            format!("sapfor_ww = min({}, (int({jb}) - sapfor_wj) * ({sj}))", w - 1),
            format!("sapfor_wa = int({ia})"),
            format!("sapfor_wn = (int({ib}) - sapfor_wa) * ({si})"),
        ],
    );
    cx.replace_stmt(
        hi,
        vec![
            format!("{dt}= 0, sapfor_wn + sapfor_ww"),
            format!("{dk}= max(0, sapfor_wt - sapfor_wn), min(sapfor_ww, sapfor_wt)"),
            format!("{vi} = sapfor_wa {plus_i} (sapfor_wt - sapfor_wk)"),
            format!("{vj} = sapfor_wj {plus_j} sapfor_wk"),
        ],
    );
    if let Some(e) = end {
        cx.replace_stmt(e, vec!["end do".into(), "end do".into()]);
    }
    let first = headers[0];
    cx.note(
        first.span.file,
        first.span.line,
        format!("the loops on {} and {} of this ACROSS nest run in wavefront strips of {w} columns {}: {w} points at a time that do not wait for each other (the same values as written; SAPFOR_WAVE=0 at conversion keeps the nest as written)", vi.to_uppercase(), vj.to_uppercase(), vj.to_uppercase()),
    );
    ["sapfor_wj", "sapfor_ww", "sapfor_wa", "sapfor_wn", "sapfor_wt", "sapfor_wk"].map(String::from).to_vec()
}
