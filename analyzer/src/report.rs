//! The analysis of a whole program and its renderings: the human one-line-per-loop report,
//! the stable versioned JSON report (schema in docs/analysis-json.md), and the text dumps
//! (`cfg`, `loops`, `deps`).

use crate::ast::Name;
use crate::cfg;
use crate::diag::Diagnostic;
use crate::directives::{DirectiveKind, SpfHint};
use crate::loops::{self, LoopInfo};
use crate::loops::{LoopRefinement, RedOp, Verdict};
use crate::overrides::{LoopRef, Override};
use crate::program::{self, Options, Program};
use crate::source::SourceForm;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

pub const JSON_VERSION: u32 = 1;

pub struct Analysis {
    pub program: Program,
    /// Loops of each unit, parallel to `program.units`.
    pub loops: Vec<Vec<LoopInfo>>,
    /// Every refinement in effect: `!$SPF` hints from the sources, then database overrides.
    pub hints: Vec<Override>,
}

/// Run the whole analyzer over the given files.
pub fn analyze(paths: &[PathBuf], opts: &Options) -> Analysis {
    let program = program::load(paths, opts);
    let mut hints = source_hints(&program);
    hints.extend(opts.overrides.iter().cloned());
    let flow = crate::flow::common_flow(&program);
    // iterations of loops over values the calls give (`concrete::trip_estimates`)
    let counted = crate::concrete::trip_estimates(&program.units, &program.semas, &program.summaries, &program.call_graph);
    let loops = program
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let path = program.map.file(u.file).display_path();
            let mut refine: BTreeMap<u32, LoopRefinement> = BTreeMap::new();
            for o in &hints {
                let Some(at) = o.loop_ref() else { continue };
                if !at.matches_file(&path)
                    || at.line < u.span.line
                    || at.line > u.end_line.max(u.span.line)
                {
                    continue;
                }
                let r = refine.entry(at.line).or_default();
                let note = o.to_string();
                match o {
                    Override::Parallel { .. } => r.verdict = Some((Verdict::Parallel, note)),
                    Override::Sequential { .. } => r.verdict = Some((Verdict::Sequential, note)),
                    Override::Private { var, .. } => {
                        r.private.insert(var.to_ascii_lowercase(), note);
                    }
                    Override::Reduction { op, var, .. } => {
                        if let Some(op) = RedOp::parse(op) {
                            r.reductions.push((op, var.to_ascii_lowercase(), note));
                        }
                    }
                    _ => {}
                }
            }
            let mut loops = loops::analyze_unit(u, &program.semas[i], &program.summaries, &refine, &flow, &bound_extents(&program, i), &program.quiet).loops;
            // (iterations counted with the calls' values come before the bound the arrays
            // give: NPB FT's `DO K = 0, LK - 1` indexes a 256-row work array and runs 3
            // times an execution on average)
            for l in loops.iter_mut().filter(|l| l.trip_count.is_none()) {
                if let Some(&t) = counted[i].get(&l.header) {
                    l.trip_estimate = Some(t);
                    l.trip_counted = true;
                }
            }
            loops
        })
        .collect();
    Analysis {
        program,
        loops,
        hints,
    }
}

/// The declared extents of the arrays the dummies of unit `u` are bound to
/// (`Program::bindings`), by dummy name.
fn bound_extents(program: &Program, u: usize) -> BTreeMap<Name, Vec<Option<i64>>> {
    let mut out = BTreeMap::new();
    for ((_, dummy), root) in program.bindings.range((u, String::new())..).take_while(|((v, _), _)| *v == u) {
        let sym = match root {
            crate::interproc::ArrayRoot::Local { unit, name } => program.semas[*unit].symbol(name),
            crate::interproc::ArrayRoot::Common { block, index } => program.semas.iter().find_map(|s| {
                let m = s.commons.get(block)?.get(*index)?;
                s.symbol(&m.name)
            }),
        };
        if let Some(dims) = sym.and_then(|s| s.dims.as_ref()) {
            let unknown = sym.is_some_and(|s| s.size_unknown());
            let ext: Vec<Option<i64>> = dims
                .iter()
                .enumerate()
                .map(|(k, d)| d.extent().filter(|_| !(unknown && k + 1 == dims.len())))
                .collect();
            out.insert(dummy.clone(), ext);
        }
    }
    out
}

/// `!$SPF` hints in the sources, as overrides of the loop whose DO statement follows them
/// (only blank and comment lines may stand between).
pub fn source_hints(program: &Program) -> Vec<Override> {
    let mut out = vec![];
    for (fid, dirs) in &program.directives {
        let file = program.map.file(*fid);
        let path = file.display_path();
        let lines: Vec<&str> = file.text.lines().collect();
        for d in dirs {
            let DirectiveKind::Spf(hints) = &d.kind else {
                continue;
            };
            // The next line that is not blank, a comment or a directive.
            let mut next = d.end_line as usize; // 0-based index of the line after the directive
            while next < lines.len() {
                let t = lines[next].trim_start();
                let is_comment = t.is_empty()
                    || t.starts_with('!')
                    || (file.form == SourceForm::Fixed && lines[next].starts_with(['c', 'C', '*']));
                if !is_comment {
                    break;
                }
                next += 1;
            }
            let at = LoopRef {
                file: path.clone(),
                line: next as u32 + 1,
            };
            for h in hints {
                match h {
                    SpfHint::Parallel => out.push(Override::Parallel { at: at.clone() }),
                    SpfHint::Sequential => out.push(Override::Sequential { at: at.clone() }),
                    SpfHint::Private(vs) => out.extend(vs.iter().map(|v| Override::Private {
                        at: at.clone(),
                        var: v.clone(),
                    })),
                    SpfHint::Reduction(rs) => out.extend(rs.iter().map(|r| Override::Reduction {
                        at: at.clone(),
                        op: r.op.to_string().to_ascii_lowercase(),
                        var: r.var.clone(),
                    })),
                    SpfHint::NoDistribute(arrays) => out.extend(
                        arrays
                            .iter()
                            .map(|a| Override::NoDistribute { array: a.clone() }),
                    ),
                    SpfHint::Distribute { array, formats } => out.push(Override::Distribute {
                        array: array.clone(),
                        formats: formats.iter().map(|f| f.to_string()).collect(),
                    }),
                    // a declaration for the runtime (where the DVM expert proved it), not a
                    // refinement of the analysis
                    SpfHint::Owned(_) => {}
                }
            }
        }
    }
    out
}

impl Analysis {
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.program.diags
    }

    fn file_of(&self, unit: usize) -> String {
        self.program
            .map
            .file(self.program.units[unit].file)
            .display_path()
    }

    /// `file:line: loop I (depth 2): parallel, private(T), reduction(max:EPS)` per loop.
    pub fn human(&self) -> String {
        human_from_json(&self.to_json())
    }

    pub fn to_json(&self) -> Value {
        let units: Vec<Value> = self
            .program
            .units
            .iter()
            .enumerate()
            .map(|(ui, u)| {
                json!({
                    "name": u.name,
                    "kind": u.kind.as_str(),
                    "file": self.file_of(ui),
                    "line": u.span.line,
                    "loops": self.loops[ui].iter().map(loop_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "version": JSON_VERSION,
            "units": units,
            "diagnostics": self.program.diags,
        })
    }

    /// Text dumps: `cfg` (block tables), `dataflow` (liveness and reaching definitions per
    /// block), `loops` (full loop facts), `deps` (dependences).
    pub fn dump(&self, what: &str) -> Option<String> {
        let mut out = String::new();
        for (ui, u) in self.program.units.iter().enumerate() {
            let sema = &self.program.semas[ui];
            match what {
                "cfg" => {
                    let g = cfg::build(u, sema, &self.program.summaries, true);
                    let _ = writeln!(
                        out,
                        "{} {} ({})",
                        u.kind.as_str(),
                        u.name.to_uppercase(),
                        self.file_of(ui)
                    );
                    out.push_str(&g.dump(sema));
                    for (l, s) in &g.missing_labels {
                        let _ = writeln!(
                            out,
                            "missing label {l} (referenced at line {})",
                            u.stmt(*s).span.line
                        );
                    }
                    out.push('\n');
                }
                "dataflow" => {
                    let g = cfg::build(u, sema, &self.program.summaries, true);
                    let _ = writeln!(
                        out,
                        "{} {} ({})",
                        u.kind.as_str(),
                        u.name.to_uppercase(),
                        self.file_of(ui)
                    );
                    out.push_str(&g.dump_dataflow(u));
                    out.push('\n');
                }
                "loops" => {
                    let _ = writeln!(
                        out,
                        "{} {} ({})",
                        u.kind.as_str(),
                        u.name.to_uppercase(),
                        self.file_of(ui)
                    );
                    for l in &self.loops[ui] {
                        let _ = writeln!(out, "  {}", human_line(&self.file_of(ui), &loop_json(l)));
                        let bounds = match (l.lower, l.upper, l.step) {
                            (Some(a), Some(b), Some(c)) => format!("{a}..{b} step {c}"),
                            _ => "symbolic".into(),
                        };
                        let _ = writeln!(
                            out,
                            "    lines {}-{}, bounds {bounds}, iterations {}",
                            l.line,
                            l.end_line,
                            match (l.trip_count, l.trip_estimate) {
                                (Some(t), _) => t.to_string(),
                                (None, Some(e)) if l.trip_counted => format!("unknown (about {e}: counted with the values its calls give)"),
                                (None, Some(e)) => format!("unknown (at most {e}: the extents of the arrays it indexes)"),
                                (None, None) => "unknown".into(),
                            }
                        );
                        for d in &l.dependences {
                            let _ = writeln!(out, "    dependence {}", dep_text(d));
                        }
                    }
                }
                "deps" => {
                    for l in &self.loops[ui] {
                        for d in &l.dependences {
                            let _ = writeln!(
                                out,
                                "{}:{}: loop {}: {}",
                                self.file_of(ui),
                                l.line,
                                l.var.to_uppercase(),
                                dep_text(d)
                            );
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(out)
    }
}

pub fn dep_text(d: &loops::Dependence) -> String {
    let dist: Vec<String> = d
        .distance
        .iter()
        .map(|x| x.map_or("*".into(), |v| v.to_string()))
        .collect();
    format!(
        "{} {} distance ({}) from line {} to line {}",
        d.array.to_uppercase(),
        d.kind.as_str(),
        dist.join(","),
        d.source_line,
        d.sink_line
    )
}

/// The human report of a JSON report (fresh or stored in the project database): one line
/// per loop, blockers and refinements indented below.
pub fn human_from_json(report: &Value) -> String {
    let mut out = String::new();
    for u in report["units"].as_array().into_iter().flatten() {
        let file = u["file"].as_str().unwrap_or("?");
        for l in u["loops"].as_array().into_iter().flatten() {
            let _ = writeln!(out, "{}", human_line(file, l));
        }
    }
    out
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(|s| s.to_string()))
        .collect()
}

/// `file:line: loop I (depth 2): parallel, private(T), reduction(max:EPS)` from a JSON loop.
pub fn human_line(file: &str, l: &Value) -> String {
    let var = l["var"].as_str().unwrap_or("");
    let concurrent = l["blockers"]
        .as_array()
        .is_some_and(|b| b.iter().any(|x| x["message"].as_str().is_some_and(|m| m.starts_with("DO CONCURRENT"))));
    let name = if var.is_empty() && concurrent {
        "CONCURRENT".to_string()
    } else if var.is_empty() {
        "WHILE".to_string()
    } else {
        var.to_uppercase()
    };
    let verdict = l["verdict"].as_str().unwrap_or("?");
    let mut s = format!(
        "{file}:{}: loop {name} (depth {}): {verdict}",
        l["line"], l["depth"]
    );
    let private = strs(&l["private"]);
    if !private.is_empty() {
        let _ = write!(
            s,
            ", private({})",
            private
                .iter()
                .map(|x| x.to_uppercase())
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    let reds: Vec<String> = l["reductions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            format!(
                "{}:{}",
                r["op"].as_str().unwrap_or("?"),
                r["var"].as_str().unwrap_or("?").to_uppercase()
            )
        })
        .collect();
    if !reds.is_empty() {
        let _ = write!(s, ", reduction({})", reds.join(","));
    }
    if verdict == "across" {
        let d: std::collections::BTreeSet<String> = l["dependences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| {
                let first = d["distance"]
                    .as_array()
                    .and_then(|a| a.first())
                    .and_then(|x| x.as_i64());
                format!(
                    "{}({})",
                    d["array"].as_str().unwrap_or("?").to_uppercase(),
                    first.map_or("*".into(), |x| x.to_string())
                )
            })
            .collect();
        let _ = write!(
            s,
            ", across {}",
            d.into_iter().collect::<Vec<_>>().join(" ")
        );
    }
    for b in l["blockers"].as_array().into_iter().flatten() {
        let _ = write!(
            s,
            "\n    {}: {}",
            b["code"].as_str().unwrap_or("?"),
            b["message"].as_str().unwrap_or("")
        );
    }
    if let Some(v) = l.get("versioned").filter(|v| v.is_object()) {
        let when = strs(&v["when"]).join(" .AND. ");
        let mut what = vec![];
        let private = strs(&v["private"]);
        if !private.is_empty() {
            what.push(format!("private({})", private.iter().map(|x| x.to_uppercase()).collect::<Vec<_>>().join(",")));
        }
        let reds: Vec<String> = v["reductions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| format!("{}:{}", r["op"].as_str().unwrap_or("?"), r["var"].as_str().unwrap_or("?").to_uppercase()))
            .collect();
        if !reds.is_empty() {
            what.push(format!("reduction({})", reds.join(",")));
        }
        let what = if what.is_empty() { String::new() } else { format!(", {}", what.join(", ")) };
        let split = v.get("split").filter(|x| x.is_object()).map(|x| {
            let vars: Vec<String> = strs(&x["vars"]).iter().map(|v| v.to_uppercase()).collect();
            let lines: Vec<String> = x["lines"].as_array().into_iter().flatten().filter_map(|l| l.as_u64()).map(|l| l.to_string()).collect();
            format!(
                "{} {} only by the statement(s) at line(s) {} from {} and values the loop does not change: the generated program computes {} for every iteration first, in a sequential copy of the loop made of those statements",
                vars.join(", "),
                if vars.len() == 1 { "is carried from one iteration to the next" } else { "are carried from one iteration to the next" },
                lines.join(", "),
                if vars.len() == 1 { "itself" } else { "themselves" },
                if vars.len() == 1 { "its value" } else { "their values" },
            )
        });
        match (when.is_empty(), split) {
            (true, Some(split)) => {
                let _ = write!(s, "\n    parallel once split{what}: {split} (sapfor --auto does so)");
            }
            (false, Some(split)) => {
                let _ = write!(
                    s,
                    "\n    parallel when {when}{what}, once split: the program can test this where the loop starts; {split} (sapfor --auto runs the loop in parallel only then)"
                );
            }
            _ => {
                let _ = write!(
                    s,
                    "\n    parallel when {when}{what}: the program can test this where the loop starts (sapfor --auto runs the loop in parallel only then)"
                );
            }
        }
    }
    for n in strs(&l["notes"]) {
        let _ = write!(s, "\n    note: {n}");
    }
    for o in strs(&l["overridden_by"]) {
        let _ = write!(s, "\n    overridden: {o}");
    }
    s
}

pub fn loop_json(l: &LoopInfo) -> Value {
    let mut out = json!({
        "line": l.line,
        "end_line": l.end_line,
        "var": l.var,
        "depth": l.depth,
        "lower": l.lower,
        "upper": l.upper,
        "step": l.step,
        "iterations": l.trip_count,
        "verdict": l.verdict.as_str(),
        "private": l.private,
        "reductions": l.reductions.iter().map(|r| {
            let mut v = json!({"op": r.op.as_str(), "var": r.var});
            if !r.loc.is_empty() { v["loc"] = json!(r.loc); }
            v
        }).collect::<Vec<_>>(),
        "dependences": l.dependences.iter().map(|d| json!({
            "array": d.array, "kind": d.kind.as_str(), "distance": d.distance,
            "source_line": d.source_line, "sink_line": d.sink_line,
        })).collect::<Vec<_>>(),
        "blockers": l.blockers.iter().map(|b| json!({"code": b.code.as_str(), "message": b.message, "line": b.line})).collect::<Vec<_>>(),
        "overridden_by": l.overridden_by,
    });
    if !l.notes.is_empty() {
        out["notes"] = json!(l.notes);
    }
    if let Some(v) = &l.versioned {
        out["versioned"] = json!({
            "when": v.when,
            "private": v.private,
            "reductions": v.reductions.iter().map(|r| json!({"op": r.op.as_str(), "var": r.var})).collect::<Vec<_>>(),
        });
        if let Some(r) = &v.split {
            out["versioned"]["split"] = json!({
                "vars": r.vars.iter().map(|(v, _)| v).collect::<Vec<_>>(),
                "lines": r.lines,
            });
        }
    }
    out
}
