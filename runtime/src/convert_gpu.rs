//! Regions on accelerators (issue 7, docs/gpu.md "Regions in converted programs"): what the
//! converter adds for `REGION` / `END REGION`, `GET_ACTUAL` / `ACTUAL`, the parallel loops
//! inside a region (a kernel launch next to the host loop, chosen at run time) and the host
//! statements inside a region. The accelerator itself is chosen when the program starts
//! (`SAPFOR_DEVICES`), so every converted program runs with or without one.

use super::{labelled, Cx, ParLoop};
use crate::kernel::{self, CTy, Kernel, NestSpec, Param};
use crate::text;
use analyzer::ast::Expr;
use analyzer::ast::{Node, Stmt, StmtId, StmtKind, UnitKind};
use analyzer::directives::{
    ArrayRef, Clause, Directive, DirectiveKind, RegionClauseKind, Subscript,
};
use analyzer::source::FileId;
use std::collections::{BTreeMap, BTreeSet};

/// A build for the host only (`sapfor build --host-only`, what `sapfor run` builds unless
/// `--devices` names an accelerator): the program's `REGION`, `END REGION`, `ACTUAL` and
/// `GET_ACTUAL` directives are left out. On the host they mean nothing (a region's loops run
/// there as the same loops outside a region would, its data is always actual), and without
/// them the loops inside regions get the host's transformations: loops run as one, time
/// loops in blocks of steps, wavefront strips, threads. True when any was left out.
pub fn strip_regions(p: &mut analyzer::program::Program) -> bool {
    let mut any = false;
    for ds in p.directives.values_mut() {
        let n = ds.len();
        ds.retain(|d| !matches!(d.kind, DirectiveKind::Region { .. } | DirectiveKind::EndRegion | DirectiveKind::Actual(_) | DirectiveKind::GetActual(_)));
        any |= ds.len() != n;
    }
    any
}

/// One `REGION ... END REGION` of a unit.
pub(super) struct Region {
    pub file: FileId,
    pub line: u32,
    pub end: u32,
    /// Arrays (lower case) that statements of the region mention.
    pub arrays: BTreeSet<String>,
}

/// The COMMON slots (block, position) of the reduction variables of every unit, or None when
/// the program has no region (then no result is ever kept on an accelerator). Computed once
/// per program (`Cx::reduced_slots`).
pub(super) fn reduced_common_slots(p: &analyzer::program::Program) -> Option<BTreeSet<(String, usize)>> {
    let any_region = p
        .directives
        .values()
        .flatten()
        .any(|d| matches!(d.kind, DirectiveKind::Region { .. }));
    if !any_region {
        return None;
    }
    let mut slots = BTreeSet::new();
    for (fid, ds) in &p.directives {
        for d in ds {
            let Some(u) = p.unit_at(*fid, d.line) else {
                continue;
            };
            for v in reduction_names(&p.semas[u], std::slice::from_ref(d)) {
                if let Some(c) = p.semas[u].symbol(&v).and_then(|s| s.common.clone()) {
                    slots.insert(c);
                }
            }
        }
    }
    Some(slots)
}

/// Scalars of unit `ui` that may hold a reduction result kept on the accelerator (see
/// [`deferrable`]): reduction variables of its PARALLEL loops, and its COMMON scalars in the
/// slot of a reduction variable of any unit; none when the program has no region. Host code
/// fetches them before reading them (`sapfor_gpu_get_scalar`) and drops the accelerator's
/// result before assigning them (`sapfor_gpu_put_scalar`), see [`host_statements`].
fn guarded_scalars(cx: &Cx, ui: usize, dirs: &[Directive]) -> BTreeSet<String> {
    let Some(slots) = &cx.reduced_slots else {
        return BTreeSet::new();
    };
    let sema = &cx.p.semas[ui];
    let mut out = reduction_names(sema, dirs);
    out.extend(
        sema.symbols
            .iter()
            .filter(|(_, s)| !s.is_array() && s.common.as_ref().is_some_and(|c| slots.contains(c)))
            .map(|(n, _)| n.clone()),
    );
    out
}

/// Reduction variables of the PARALLEL directives `dirs` (lower case), with their
/// MAXLOC/MINLOC index variables (they come back with the value).
fn reduction_names(sema: &analyzer::sema::UnitSema, dirs: &[Directive]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for d in dirs {
        if let DirectiveKind::Parallel { clauses, .. } = &d.kind {
            for c in clauses {
                if let Clause::Reduction(reds) = c {
                    // arrays: their loops run on the host (array reductions are not deferred)
                    for r in reds.iter().filter(|r| !sema.is_array(&r.var.to_ascii_lowercase())) {
                        out.insert(r.var.to_ascii_lowercase());
                        for l in &r.loc {
                            if let analyzer::directives::DExpr::Name(n) = l {
                                let n = n.to_ascii_lowercase();
                                if sema.param(&n).is_none() && !sema.is_array(&n) {
                                    out.insert(n);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether the result of a reduction on scalar `v` of unit `ui` may stay on the accelerator
/// until the host reads it: only when the variable lives as long as the program (the main
/// program's variables, COMMON, SAVE), since the runtime keeps its address; not a dummy
/// argument, an automatic local or a variable sharing storage through EQUIVALENCE.
fn deferrable(cx: &Cx, ui: usize, v: &str) -> bool {
    let Some(s) = cx.p.semas[ui].symbol(v) else {
        return false;
    };
    let lives = s.common.is_some()
        || s.save
        || s.data_init
        || (cx.p.units[ui].kind == UnitKind::Program && s.dummy.is_none());
    lives && s.aliases.is_empty()
}

/// Fetch-before-read calls for the guarded scalars (`cx.guarded`) that statement text `t`
/// mentions; `assigned_only` names a scalar the statement assigns without reading (its result
/// on the accelerator is dropped instead).
fn scalar_calls(cx: &Cx, t: &str, assigned_only: Option<&str>) -> Vec<String> {
    cx.guarded
        .iter()
        .filter(|v| !text::idents(t, v).is_empty())
        .map(|v| {
            if assigned_only == Some(v.as_str()) {
                format!("call sapfor_gpu_put_scalar({v})")
            } else {
                format!("call sapfor_gpu_get_scalar({v})")
            }
        })
        .collect()
}

/// Arrays of unit `ui` (not PARAMETERs) mentioned in statement text `t`.
fn arrays_in(cx: &Cx, ui: usize, t: &str) -> BTreeSet<String> {
    cx.p.semas[ui]
        .symbols
        .iter()
        .filter(|(_, s)| s.is_array() && s.param.is_none())
        .filter(|(n, _)| !text::idents(t, n).is_empty())
        .map(|(n, _)| n.clone())
        .collect()
}

/// `int(x, c_int64_t)` lists of the bounds of array `a` (whole, or the section `subs`).
/// `star`: the last dimension is assumed-size (`Y(*)`), whose upper bound does not exist: the
/// runtime takes the sentinel `huge` there as "to the end of the registered array that holds
/// it" (`gpu_abi::locate`).
fn bounds(a: &str, rank: usize, subs: &[Subscript], star: bool) -> (String, String) {
    let whole = |d: usize, hi: bool| {
        if hi && star && d == rank {
            return "huge(0_c_int64_t)".to_string();
        }
        format!(
            "int({}bound({a},{d}), c_int64_t)",
            if hi { "u" } else { "l" }
        )
    };
    let mut lo = vec![];
    let mut hi = vec![];
    for d in 1..=rank {
        match subs.get(d - 1) {
            Some(Subscript::Expr(e)) => {
                lo.push(format!("int({e}, c_int64_t)"));
                hi.push(format!("int({e}, c_int64_t)"));
            }
            Some(Subscript::Range(l, h)) => {
                lo.push(
                    l.as_ref()
                        .map(|e| format!("int({e}, c_int64_t)"))
                        .unwrap_or_else(|| whole(d, false)),
                );
                hi.push(
                    h.as_ref()
                        .map(|e| format!("int({e}, c_int64_t)"))
                        .unwrap_or_else(|| whole(d, true)),
                );
            }
            Some(Subscript::Star) | None => {
                lo.push(whole(d, false));
                hi.push(whole(d, true));
            }
        }
    }
    (
        format!("[{}]", lo.join(", ")),
        format!("[{}]", hi.join(", ")),
    )
}

/// Pair the REGION / END REGION directives of unit `ui` and emit region entry and exit.
pub(super) fn regions(
    cx: &mut Cx,
    ui: usize,
    vis: &BTreeMap<String, String>,
    dirs: &[Directive],
) -> Vec<Region> {
    let p = cx.p;
    let u = &p.units[ui];
    let fid = u.file;
    let sema = &p.semas[ui];
    let mut out = vec![];
    let mut open: Option<&Directive> = None;
    cx.guarded = guarded_scalars(cx, ui, dirs);
    for d in dirs {
        match &d.kind {
            DirectiveKind::Region { .. } => {
                if let Some(o) = open {
                    cx.err(
                        fid,
                        o.line,
                        "REGION without END REGION (regions do not nest)",
                    );
                }
                open = Some(d);
            }
            DirectiveKind::EndRegion => {
                let Some(o) = open.take() else {
                    cx.err(fid, d.line, "END REGION without REGION");
                    continue;
                };
                let DirectiveKind::Region { clauses, .. } = &o.kind else {
                    continue;
                };
                let src = cx.src(fid, o.line);
                let mut arrays = BTreeSet::new();
                for s in u.stmts.iter().filter(|s| {
                    s.span.file == fid && s.span.line > o.end_line && s.span.line < d.line
                }) {
                    arrays.extend(arrays_in(cx, ui, &cx.stmt_text(s)));
                }
                // an assumed-size array has no size to give the accelerator
                if let Some(a) = arrays
                    .iter()
                    .chain(clauses.iter().flat_map(|(_, refs)| refs.iter().map(|r| &r.name)))
                    .find(|a| sema.symbol(&a.to_ascii_lowercase()).is_some_and(|s| s.size_unknown()))
                {
                    cx.err(fid, o.line, format!("REGION: {} is an assumed-size array (last bound `*`, or `1` in a dummy argument): its size is unknown, so it cannot go to the accelerator", a.to_uppercase()));
                    continue;
                }
                let mut calls = vec![];
                let mut listed = BTreeSet::new();
                let use_call = |a: &str, access: i32, r: &ArrayRef| -> String {
                    let rank = sema.symbol(a).map(|s| s.rank()).unwrap_or(0);
                    let (alo, ahi) = bounds(a, rank, &[], false);
                    let (lo, hi) = bounds(a, rank, &r.subs, false);
                    let h = vis
                        .get(a)
                        .map(|k| format!("sh_{k}"))
                        .unwrap_or_else(|| "-1_c_int64_t".into());
                    format!(
                        "call sapfor_gpu_use({a}, '{a}'//c_null_char, {access}, {h}, {rank}_c_int64_t, {alo}, {ahi}, {lo}, {hi}, int(storage_size({a}), c_int64_t) / 8, {src}_8)"
                    )
                };
                for (kind, refs) in clauses {
                    let access = match kind {
                        RegionClauseKind::In => 1,
                        RegionClauseKind::Out => 2,
                        RegionClauseKind::InOut => 3,
                        RegionClauseKind::Local => 4,
                        RegionClauseKind::InLocal => 5,
                    };
                    for r in refs {
                        let a = r.name.to_ascii_lowercase();
                        if !sema.is_array(&a) {
                            continue; // scalars stay on the host (kernels get them by value)
                        }
                        calls.push(use_call(&a, access, r));
                        listed.insert(a);
                    }
                }
                // arrays the region uses without a clause: INOUT as a whole
                for a in arrays.difference(&listed) {
                    calls.push(use_call(
                        a,
                        3,
                        &ArrayRef {
                            name: a.clone(),
                            subs: vec![],
                        },
                    ));
                }
                arrays.extend(listed);
                calls.push(format!("call sapfor_gpu_region_enter({src}_8)"));
                cx.before.entry((fid.0, o.line)).or_default().extend(calls);
                cx.before
                    .entry((fid.0, d.line))
                    .or_default()
                    .push(format!("call sapfor_gpu_region_exit({src}_8)"));
                out.push(Region {
                    file: fid,
                    line: o.end_line,
                    end: d.line,
                    arrays,
                });
            }
            DirectiveKind::GetActual(refs) | DirectiveKind::Actual(refs) => {
                let get = matches!(d.kind, DirectiveKind::GetActual(_));
                let src = cx.src(fid, d.line);
                let mut calls = vec![];
                if refs.is_empty() {
                    calls.push(format!("call sapfor_gpu_all({}, {src}_8)", get as i32));
                }
                for r in refs {
                    let a = r.name.to_ascii_lowercase();
                    if !sema.is_array(&a) {
                        // a scalar: a reduction result may still be on the accelerator
                        if sema.param(&a).is_none() && sema.symbol(&a).is_some() {
                            let f = if get { "get" } else { "put" };
                            calls.push(format!("call sapfor_gpu_{f}_scalar({a})"));
                        }
                        continue;
                    }
                    let rank = sema.symbol(&a).map(|s| s.rank()).unwrap_or(0);
                    let star = sema.symbol(&a).is_some_and(|s| s.is_assumed_size());
                    let (lo, hi) = bounds(&a, rank, &r.subs, star);
                    // the declared bounds: the runtime finds the elements by storage offset
                    // when the name is a dummy argument over part of a registered array
                    let (dlo, dhi) = bounds(&a, rank, &[], star);
                    // the element size: the runtime matches the name's storage against
                    // registrations of the same element size only
                    let esize = format!("int(storage_size({a}) / 8, c_int64_t)");
                    calls.push(if get {
                        format!(
                            "call sapfor_gpu_get_actual({a}, {rank}_c_int64_t, {lo}, {hi}, {dlo}, {dhi}, {src}_8, {esize})"
                        )
                    } else {
                        format!("call sapfor_gpu_actual({a}, {rank}_c_int64_t, {lo}, {hi}, {dlo}, {dhi}, {esize})")
                    });
                }
                cx.before.entry((fid.0, d.line)).or_default().extend(calls);
            }
            _ => {}
        }
    }
    if let Some(o) = open {
        cx.err(fid, o.line, "REGION without END REGION");
    }
    out
}

pub(super) fn region_at(regions: &[Region], file: FileId, line: u32) -> Option<&Region> {
    regions
        .iter()
        .find(|r| r.file == file && r.line < line && line < r.end)
}

/// Argument/type code of the C ABI: 1 INTEGER, 2 INTEGER(8), 3 REAL, 4 DOUBLE PRECISION,
/// 5 LOGICAL.
fn ty_code(t: CTy) -> i32 {
    match t {
        CTy::Int => 1,
        CTy::Long => 2,
        CTy::Float => 3,
        CTy::Double => 4,
        CTy::Logical => 5,
    }
}

/// `lo`, `hi` and the step (`1` when absent) of a DO statement's text
/// (`[label] DO [label[,]] v = lo, hi[, st]`).
fn do_bounds(t: &str) -> Option<(String, String, String)> {
    let (_, body) = text::split_label(t);
    let rest = text::strip_kw(&body, "do")?.trim_start();
    let rest = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    let eq = text::assign_eq(rest)?;
    let parts = text::split_top(&rest[eq + 1..], ',');
    if parts.len() < 2 {
        return None;
    }
    let step = parts
        .get(2)
        .map(|x| x.trim().to_string())
        .unwrap_or_else(|| "1".into());
    Some((
        parts[0].trim().to_string(),
        parts[1].trim().to_string(),
        step,
    ))
}

/// A parallel loop inside a region: its kernel launch, chosen at run time next to the host
/// loop (`pre` ends right before the host loop's OpenMP line, `post` starts right after the
/// loop). A loop that cannot be a kernel runs on the host with its arrays made current there
/// (a warning says why).
#[allow(clippy::too_many_arguments)]
pub(super) fn parallel_loop(
    cx: &mut Cx,
    ui: usize,
    pl: &ParLoop,
    nest: &Node,
    headers: &[&Stmt],
    region: &Region,
    host_only: Option<&str>,
    pre: &mut Vec<String>,
    post: &mut Vec<String>,
) {
    let p = cx.p;
    let u = &p.units[ui];
    let fid = u.file;
    let src = cx.src(fid, headers[0].span.line);
    let mut body = BTreeSet::new();
    super::collect_stmts(u, nest, &mut body);
    let generated = match host_only {
        Some(why) => Err(why.to_string()),
        None => kernel::generate(&NestSpec {
            program: p,
            unit: ui,
            nest,
            vars: pl.vars.iter().map(|v| v.to_ascii_lowercase()).collect(),
            clauses: pl.clauses.clone(),
            name: format!("sapfor_k{}_{}", cx.kernels.len() + 1, headers[0].span.line),
            param_overrides: BTreeMap::new(),
        })
        .map_err(|e| e.message),
    };
    let k = match generated {
        Ok(k) => k,
        Err(why) => {
            cx.warn(
                fid,
                pl.dir_line,
                format!("this loop of a region runs on the host, not on the accelerator: {why}"),
            );
            let mut w = BTreeSet::new();
            let mut all = BTreeSet::new();
            for s in u.stmts.iter().filter(|s| body.contains(&s.id)) {
                written_arrays(cx, ui, s, &mut w);
                all.extend(arrays_in(cx, ui, &cx.stmt_text(s)));
            }
            for a in all.intersection(&region.arrays) {
                pre.insert(
                    1,
                    format!(
                        "call sapfor_gpu_host_uses({a}, {}, {src}_8)",
                        w.contains(a) as i32
                    ),
                );
            }
            for c in host_loop_scalars(cx, ui, nest) {
                pre.insert(1, c);
            }
            return;
        }
    };
    let header_text = |h: &Stmt| cx.current_lines(h).swap_remove(0);
    let outer = pl.vars[0].to_ascii_lowercase();
    let mut launch = vec!["if (sapfor_gpu_active() /= 0) then".to_string()];
    // scalars the kernel reads by value: a reduction result still on the accelerator first
    for prm in &k.params {
        if let Param::Scalar { name, .. } = prm {
            if cx.guarded.contains(name) {
                launch.push(format!("call sapfor_gpu_get_scalar({name})"));
            }
        }
    }
    let mut loop_k = 0;
    for prm in &k.params {
        match prm {
            Param::Array { name, ty, .. } => {
                let w = slab(u, &body, name, &outer, true);
                let r = slab(u, &body, name, &outer, false);
                launch.push(format!(
                    "call sapfor_gpu_arg_array({name}, {}, {}, {src}_8, {}, {}_8, {}_8, {}, {}_8, {}_8)",
                    ty_code(*ty),
                    k.written.contains(name) as i32,
                    w.0,
                    w.1,
                    w.2,
                    r.0,
                    r.1,
                    r.2
                ))
            }
            Param::Scalar { name, ty } => launch.push(match ty {
                CTy::Logical => {
                    format!("call sapfor_gpu_arg_i32(merge(1_c_int32_t, 0_c_int32_t, {name}))")
                }
                CTy::Int => format!("call sapfor_gpu_arg_i32(int({name}, c_int32_t))"),
                CTy::Long => format!("call sapfor_gpu_arg_i64(int({name}, c_int64_t))"),
                CTy::Float => format!("call sapfor_gpu_arg_f32(real({name}, c_float))"),
                CTy::Double => format!("call sapfor_gpu_arg_f64(real({name}, c_double))"),
            }),
            Param::LoopLo { .. } => {
                let Some(h) = headers.get(loop_k) else {
                    cx.err(
                        fid,
                        pl.dir_line,
                        "kernel loops do not match the nest (converter bug)",
                    );
                    return;
                };
                let Some((lo, hi, st)) = do_bounds(&header_text(h)) else {
                    cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                    return;
                };
                launch.push(format!("call sapfor_gpu_arg_loop(int({lo}, c_int64_t), int({hi}, c_int64_t), int({st}, c_int64_t))"));
                loop_k += 1;
            }
            Param::RedValues { var, op, ty } => {
                let (code, _) = super::red_op(*op);
                launch.push(format!(
                    "call sapfor_gpu_arg_red({code}, {}, {var}, {}, {src}_8)",
                    ty_code(*ty),
                    deferrable(cx, ui, var) as i32
                ));
            }
            Param::RedLoc { loc, .. } => {
                launch.push(format!("call sapfor_gpu_arg_red_loc({loc}, {src}_8)"))
            }
            Param::Lo { .. } | Param::Hi { .. } | Param::LoopHi { .. } | Param::LoopStep { .. } => {
            }
        }
    }
    let [bx, by, bz] = k.block;
    launch.push(format!(
        "call sapfor_gpu_launch('{}'//c_null_char, {bx}, {by}, {bz}, {}, {src}_8)",
        k.name, k.single_thread as i32
    ));
    launch.push("end if".into());
    launch.push("if (sapfor_gpu_host_loop() /= 0) then".into());
    // split between host and accelerator (--devices host,X): the host loop runs over the
    // host's part of the outermost loop
    if !k.single_thread {
        let h = headers[0];
        let t = header_text(h);
        match split_header(&t, &outer) {
            Some(new) => cx.replace_stmt(h, vec![new]),
            None => {
                cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                return;
            }
        }
    }
    pre.extend(launch);
    post.splice(
        0..0,
        [
            "end if".to_string(),
            format!("call sapfor_gpu_loop_done({src}_8)"),
        ],
    );
    cx.kernels.push(k);
}

/// `DO v = lo, hi` -> `DO v = max(lo, <host part lo>), min(hi, <host part hi>)`.
/// A loop that runs on the host (a parallel loop outside regions, its body in OpenMP
/// threads, or a region's loop that cannot be a kernel): the guarded scalars it mentions are
/// fetched before it.
pub(super) fn host_loop_scalars(cx: &Cx, ui: usize, nest: &Node) -> Vec<String> {
    if cx.guarded.is_empty() {
        return vec![];
    }
    let u = &cx.p.units[ui];
    let mut body = BTreeSet::new();
    super::collect_stmts(u, nest, &mut body);
    let texts: Vec<String> = u
        .stmts
        .iter()
        .filter(|s| body.contains(&s.id))
        .map(|s| cx.stmt_text(s))
        .collect();
    scalar_calls(cx, &texts.join("\n"), None)
}

fn split_header(t: &str, v: &str) -> Option<String> {
    let (lo, hi, _) = do_bounds(t)?;
    let (label, body) = text::split_label(t);
    let eq = text::assign_eq(&body)?;
    let rest = &body[eq + 1..];
    let parts = text::split_top(rest, ',');
    let step = if parts.len() > 2 {
        format!(",{}", parts[2..].join(","))
    } else {
        String::new()
    };
    let lab = label.map(|l| format!("{l} ")).unwrap_or_default();
    Some(format!(
        "{lab}{} max({lo}, int(sapfor_gpu_hlo(), kind({v}))), min({hi}, int(sapfor_gpu_hhi(), kind({v}))){step}",
        &body[..=eq]
    ))
}

/// How the references of a loop nest to array `a` follow the outermost loop variable `v`:
/// `(dimension, min offset, max offset)` when every reference (writes: assignment targets;
/// reads: the others) indexes exactly one dimension, the same one, by `v + c`; `(-1, 0, 0)`
/// when there is no such reference; `(0, 0, 0)` otherwise (the runtime then assumes the
/// whole array).
fn slab(
    u: &analyzer::ast::Unit,
    body: &BTreeSet<StmtId>,
    a: &str,
    v: &str,
    writes: bool,
) -> (i64, i64, i64) {
    use analyzer::ast::{Arg, Expr};
    let mut dim: Option<usize> = None;
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    let mut ok = true;
    let mut any = false;
    let mut visit = |args: &[Arg]| {
        any = true;
        let hits: Vec<(usize, i64)> = args
            .iter()
            .enumerate()
            .filter_map(|(k, x)| match x {
                Arg::Expr(e) => super::affine(e)
                    .filter(|(n, _)| n == v)
                    .map(|(_, c)| (k + 1, c)),
                _ => None,
            })
            .collect();
        match hits.as_slice() {
            [(d, c)] if dim.is_none_or(|x| x == *d) => {
                dim = Some(*d);
                lo = lo.min(*c);
                hi = hi.max(*c);
            }
            _ => ok = false,
        }
    };
    for s in u.stmts.iter().filter(|s| body.contains(&s.id)) {
        let k = s.kind.action();
        let lhs = match k {
            StmtKind::Assign { lhs, .. } => Some(lhs),
            _ => None,
        };
        if writes {
            if let Some(Expr::Ref(n, args)) = lhs {
                if n == a {
                    visit(args);
                }
            }
            continue;
        }
        for e in analyzer::sema::stmt_exprs(&s.kind) {
            let top = lhs.is_some_and(|l| std::ptr::eq(l, e));
            e.walk(&mut |x| {
                if let Expr::Ref(n, args) = x {
                    if n == a && !(top && std::ptr::eq(x, e)) {
                        visit(args);
                    }
                }
            });
        }
    }
    match (ok, any, dim) {
        (_, false, _) => (-1, 0, 0),
        (true, true, Some(d)) => (d as i64, lo, hi),
        _ => (0, 0, 0),
    }
}

/// Arrays a statement assigns (assignment targets, READ items, arrays passed to a CALL).
fn written_arrays(cx: &Cx, ui: usize, s: &Stmt, out: &mut BTreeSet<String>) {
    let sema = &cx.p.semas[ui];
    let k = s.kind.action();
    match k {
        StmtKind::Assign { lhs, .. } => {
            if let Some(b) = lhs.base_name() {
                if sema.is_array(b) {
                    out.insert(b.to_string());
                }
            }
        }
        StmtKind::Io { .. } | StmtKind::Call { .. } => {
            // conservative: input lists and actual arguments may be written
            out.extend(arrays_in(cx, ui, &cx.stmt_text(s)));
        }
        _ => {}
    }
}

/// Host statements inside regions: before each statement that mentions arrays of the region,
/// their host copies are made current (and the ones it writes marked newest on the host, to
/// reach the accelerator before its next kernel). A CALL makes every variable current on the
/// host and its host copy the newest. Every host statement (in a region or not) that reads a
/// guarded scalar fetches a reduction result kept on the accelerator first, and one that
/// assigns it without reading it drops that result. The calls for an ELSE IF condition go
/// before its IF THEN, those for a DO WHILE condition before the DO WHILE and before its END
/// DO (a CYCLE skips the latter: there the GET_ACTUAL that DVMH asks for is needed).
pub(super) fn host_statements(
    cx: &mut Cx,
    ui: usize,
    regions: &[Region],
    in_par: &BTreeSet<StmtId>,
    do_labels: &BTreeSet<u32>,
) {
    let u = &cx.p.units[ui];
    let mut moved = BTreeMap::new();
    moved_conditions(u, &u.body, &mut moved);
    for s in &u.stmts {
        if in_par.contains(&s.id) || !s.kind.is_executable() {
            continue;
        }
        let region = region_at(regions, s.span.file, s.span.line);
        if region.is_none() && cx.guarded.is_empty() {
            continue;
        }
        let src = cx.src(s.span.file, s.span.line);
        let mut calls = vec![];
        let is_call = matches!(&s.kind, StmtKind::Call { .. })
            || matches!(&s.kind, StmtKind::LogicalIf(_, i) if matches!(i.kind, StmtKind::Call { .. }));
        let t = cx.stmt_text(s);
        // `x = expression without x`: the host's value replaces a result on the accelerator
        let assigned_only = match &s.kind {
            StmtKind::Assign {
                lhs: Expr::Var(x),
                rhs,
            } => {
                let mut reads = false;
                rhs.walk(&mut |e| reads |= e.base_name() == Some(x.as_str()));
                (!reads).then_some(x.as_str())
            }
            _ => None,
        };
        match region {
            Some(_) if is_call => {
                calls.push(format!("call sapfor_gpu_all(1, {src}_8)"));
                calls.push(format!("call sapfor_gpu_all(0, {src}_8)"));
            }
            Some(r) => {
                calls.extend(scalar_calls(cx, &t, assigned_only));
                let mut w = BTreeSet::new();
                written_arrays(cx, ui, s, &mut w);
                for a in arrays_in(cx, ui, &t) {
                    if r.arrays.contains(&a) {
                        calls.push(format!(
                            "call sapfor_gpu_host_uses({a}, {}, {src}_8)",
                            w.contains(&a) as i32
                        ));
                    }
                }
            }
            // outside regions, the scalars only (arrays follow GET_ACTUAL / ACTUAL): a
            // reduction result kept on the accelerator is fetched before the host reads the
            // variable, and dropped when the host assigns it; a CALL fetches every one (the
            // procedure may read them through COMMON or its arguments)
            None if is_call => calls.push("call sapfor_gpu_get_scalars()".into()),
            None => {
                let plain = matches!(
                    &s.kind,
                    StmtKind::Assign { .. }
                        | StmtKind::LogicalIf(..)
                        | StmtKind::IfThen(_)
                        | StmtKind::ElseIf(_)
                        | StmtKind::DoWhile { .. }
                        | StmtKind::Do { .. }
                        | StmtKind::Io { .. }
                        | StmtKind::ArithIf(..)
                        | StmtKind::ComputedGoto(..)
                );
                if plain {
                    calls.extend(scalar_calls(cx, &t, assigned_only));
                }
            }
        }
        if calls.is_empty() {
            continue;
        }
        // an ELSE IF condition is evaluated right after the IF THEN's (nothing runs between):
        // its calls go before the IF THEN; a DO WHILE condition is evaluated before the first
        // iteration and after each one: the calls go before the DO WHILE and before its END DO
        // (or terminal statement)
        let targets = match moved.get(&s.id) {
            Some(t) => t.clone(),
            None => vec![s.id],
        };
        for t in targets {
            prefix(cx, u.stmt(t), calls.clone(), do_labels);
        }
    }
}

/// Puts `calls` before statement `s` (after its label; before the labelled CONTINUE that
/// ends a DO on it).
fn prefix(cx: &mut Cx, s: &Stmt, calls: Vec<String>, do_labels: &BTreeSet<u32>) {
    let cur = cx.current_lines(s);
    let do_term = s.label.map(|l| do_labels.contains(&l)).unwrap_or(false);
    let (label, first) = text::split_label(&cur[0]);
    let mut lines = calls;
    lines.push(first);
    lines.extend(cur[1..].iter().cloned());
    // a DO-terminating statement already rewritten ends with its labelled CONTINUE
    let relabel = if do_term && cur.len() > 1 {
        None
    } else {
        label
    };
    cx.replace_stmt(s, labelled(relabel, do_term && cur.len() == 1, lines));
}

/// Where the calls for a condition go (see `host_statements`): the IF THEN statement of every
/// ELSE IF, and a DO WHILE itself and its END DO (or terminal statement).
fn moved_conditions(u: &analyzer::ast::Unit, nodes: &[Node], out: &mut BTreeMap<StmtId, Vec<StmtId>>) {
    for n in nodes {
        match n {
            Node::Stmt(_) => {}
            Node::Do { header, body, end } => {
                if matches!(u.stmt(*header).kind, StmtKind::DoWhile { .. }) {
                    let last = end.or(match body.last() {
                        Some(Node::Stmt(t)) => Some(*t),
                        _ => None,
                    });
                    out.insert(*header, std::iter::once(*header).chain(last).collect());
                }
                moved_conditions(u, body, out)
            }
            Node::If { arms, .. } => {
                let head = arms[0].0;
                for (i, (id, body)) in arms.iter().enumerate() {
                    if i > 0 {
                        out.insert(*id, vec![head]);
                    }
                    moved_conditions(u, body, out);
                }
            }
        }
    }
}

/// Automatic local arrays of a procedure used in its regions: their storage is new at every
/// entry, so registrations of what was there before are dropped (no copy).
pub(super) fn entry_forgets(cx: &Cx, ui: usize, regions: &[Region]) -> Vec<String> {
    let u = &cx.p.units[ui];
    if u.kind == UnitKind::Program || regions.is_empty() {
        return vec![];
    }
    let sema = &cx.p.semas[ui];
    let mut names = BTreeSet::new();
    for r in regions {
        names.extend(r.arrays.iter().cloned());
    }
    names
        .into_iter()
        .filter(|n| {
            sema.symbol(n).is_some_and(|s| {
                s.dummy.is_none() && s.common.is_none() && !s.save && !s.data_init && !s.allocatable
            }) && !cx.arrays.keys().any(|k| k.ends_with(&format!("_{n}")))
        })
        .map(|n| format!("call sapfor_gpu_forget({n}, int(storage_size({n}), c_int64_t) / 8 * size({n}, kind=c_int64_t))"))
        .collect()
}

/// ALLOCATE of an array used in a region: the new storage may reuse the address of freed
/// storage the tracker still knows; forget it right after the statement.
pub(super) fn allocations(cx: &mut Cx, ui: usize, regions: &[Region]) {
    let u = &cx.p.units[ui];
    let mut names = BTreeSet::new();
    for r in regions {
        names.extend(r.arrays.iter().cloned());
    }
    if names.is_empty() {
        return;
    }
    for s in &u.stmts {
        let StmtKind::Allocate(items) = &s.kind else {
            continue;
        };
        if s.label.is_some() {
            continue;
        }
        for e in items {
            let Some(n) = e.base_name() else { continue };
            if names.contains(n) {
                cx.after
                    .entry((s.span.file.0, s.span.end_line))
                    .or_default()
                    .push(format!("call sapfor_gpu_forget({n}, int(storage_size({n}), c_int64_t) / 8 * size({n}, kind=c_int64_t))"));
            }
        }
    }
}

/// The kernels' CUDA C text (`sapfor_kernels()` returns it from the C file below, compiled into
/// every converted program); the runtime compiles the text for the accelerator (NVRTC, or g++
/// for the emulator) at the first launch.
pub(super) fn kernel_source(kernels: &[Kernel]) -> String {
    if kernels.is_empty() {
        String::new()
    } else {
        kernel::program_source(&kernels.iter().collect::<Vec<_>>())
    }
}

/// The C file that holds `src` as a string constant.
pub(super) fn kernels_file(src: &str) -> String {
    let mut out = String::from("/* Generated by sapfor: the CUDA C kernels of the program's regions. */\nstatic const char sapfor_kernels_text[] =\n");
    for line in src.split_inclusive('\n') {
        out.push_str("  \"");
        for b in line.bytes() {
            match b {
                b'\\' => out.push_str("\\\\"),
                b'"' => out.push_str("\\\""),
                b'\n' => out.push_str("\\n"),
                b'\t' => out.push_str("\\t"),
                b'?' => out.push_str("\\?"),
                0x20..=0x7e => out.push(b as char),
                _ => out.push_str(&format!("\\{b:03o}")),
            }
        }
        out.push_str("\"\n");
    }
    out.push_str("  \"\";\nconst char *sapfor_kernels(void) { return sapfor_kernels_text; }\n");
    out
}
