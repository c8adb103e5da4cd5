//! What the dialog shows, loaded from the project database and the in-memory analysis. No egui
//! here: the worker thread builds a [`Project`], the UI only reads it.

use crate::auto::{
    for_target, generate_checked, machine_of, scheme_from_record, schemes_for, store_expert_result,
    target_of, Target,
};
use crate::commands::{
    analyze_and_store, cli_options, open_db, refinement_effects, stored_inputs, Effect,
};
use analyzer::overrides::{LoopRef, Override};
use analyzer::report::Analysis;
use anyhow::{bail, Result};
use database::records::SchemeRecord;
use experts::machine::MachineModel;
use experts::scheme::Scheme;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::measured::{line_map, nest_time, nest_times, pair_time};

/// One source file of the program, as the analysis names it.
pub struct SourceFile {
    /// Relative to the project root (the database's directory), as every view names it.
    pub name: String,
    /// Where it is read from.
    pub path: PathBuf,
    pub text: String,
    pub fixed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dep {
    pub array: String,
    pub kind: String,
    pub distance: String,
    pub source_line: u32,
    pub sink_line: u32,
}

impl Dep {
    /// How the loop panel lists it: `A flow (1,0) line 38 -> line 40`.
    pub fn label(&self) -> String {
        format!(
            "{} {} ({}) line {} -> line {}",
            self.array.to_uppercase(),
            self.kind,
            self.distance,
            self.source_line,
            self.sink_line
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Blocker {
    pub code: String,
    pub message: String,
    pub line: Option<u32>,
}

/// One DO loop of the report (JSON report version 1, `docs/analysis.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct LoopRow {
    pub file: String,
    pub unit: String,
    pub line: u32,
    pub end_line: u32,
    pub var: String,
    pub depth: u32,
    pub verdict: String,
    pub private: Vec<String>,
    /// (operator, variable)
    pub reductions: Vec<(String, String)>,
    pub deps: Vec<Dep>,
    pub blockers: Vec<Blocker>,
    /// Refinements that changed this loop's result (as the analyzer prints them).
    pub overridden_by: Vec<String>,
    /// What makes a sequential loop parallel (`versioned`: run-time tests, a recurrence
    /// computed ahead) and what is private then, as the page shows it.
    pub parallel_when: Option<String>,
    pub iterations: Option<u64>,
    /// Estimated share of the run time of the chosen scheme (the nest headed by this loop).
    pub share: Option<f64>,
}

impl LoopRow {
    pub fn label(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
    pub fn blocker_kinds(&self) -> String {
        let mut v: Vec<&str> = self.blockers.iter().map(|b| b.code.as_str()).collect();
        v.dedup();
        v.join(",")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    pub severity: String,
    pub code: String,
    pub message: String,
    pub location: Option<(String, u32)>,
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.location {
            Some((file, line)) => write!(
                f,
                "{}[{}]: {} ({file}:{line})",
                self.severity, self.code, self.message
            ),
            None => write!(f, "{}[{}]: {}", self.severity, self.code, self.message),
        }
    }
}

/// Everything the dialog shows about one project database.
pub struct Project {
    pub db_path: PathBuf,
    pub analysis_id: i64,
    pub analysis: Arc<Analysis>,
    pub files: Vec<SourceFile>,
    pub loops: Vec<LoopRow>,
    pub diagnostics: Vec<Diag>,
    pub overrides: Vec<(i64, Override)>,
    /// Stored schemes of the analysis (id, record); the cheapest is marked `chosen`.
    pub schemes: Vec<(i64, SchemeRecord)>,
    /// The machine the stored schemes were estimated for.
    pub machine: MachineModel,
    /// DVMH (regions for accelerators, as `sapfor --auto` by default) or DVM: what the stored
    /// schemes are, and what the experts produce when they re-run.
    pub target: Target,
    /// Arrays of the program (lower case, with their rank), for distribution refinements.
    pub arrays: Vec<(String, usize)>,
    /// What the refinements of the change that made this load did (none for other loads).
    pub effects: Vec<Effect>,
    /// The INCLUDE directories of the analysis (the Run action passes them on).
    pub include_dirs: Vec<PathBuf>,
}

impl Project {
    /// The project's name of a file as the analysis names it (its path as analyzed).
    pub fn file_name(&self, analyzed: &str) -> String {
        let abs = crate::commands::absolute(Path::new(analyzed));
        self.files
            .iter()
            .find(|f| f.path.to_string_lossy() == analyzed || crate::commands::absolute(&f.path) == abs)
            .map_or_else(|| analyzed.to_string(), |f| f.name.clone())
    }

    /// The C sources among the project's files (not analyzed; built and linked by `sapfor run`).
    pub fn c_files(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|f| f.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("c")))
            .map(|f| f.path.clone())
            .collect()
    }
}

/// What the worker is asked to do to the database before (re)loading it.
#[derive(Clone, Debug, Default)]
pub struct Change {
    pub add: Vec<Override>,
    pub remove: Vec<i64>,
    /// Files to analyze instead of the stored analysis (`sapfor gui FILE...`).
    pub files: Vec<PathBuf>,
    /// Write this refinement into the source file as a `!$SPF` hint line (instead of the
    /// database) before the DO statement at `line`.
    pub hint: Option<Hint>,
}

/// A refinement to write into a source file as a `!$SPF` hint.
#[derive(Clone, Debug)]
pub struct Hint {
    pub path: PathBuf,
    /// The DO statement the hint line goes before (1-based).
    pub line: u32,
    pub fixed: bool,
    pub refinement: Override,
}

/// Apply `change` to the database at `db_path`, (re)run the analysis and, when the database
/// holds no schemes for it, the experts; then read everything back.
/// `progress` is told what is going on.
pub fn load(db_path: &Path, change: &Change, progress: &dyn Fn(&str)) -> Result<Project> {
    progress("opening the database");
    let mut db = open_db(db_path)?;
    // The machine the current schemes were estimated for: a refined analysis is estimated
    // for the same one (e.g. `sapfor --auto --procs 100`).
    let previous = match db.current_analysis().map_err(|e| anyhow::anyhow!("{e}"))? {
        Some(id) => db.schemes(id).map_err(|e| anyhow::anyhow!("{e}"))?,
        None => vec![],
    };
    let previous_machine = machine_of(&previous);
    let previous_target = target_of(&previous);
    let mut added = vec![];
    for o in &change.add {
        added.push(db.add_override(o).map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    for id in &change.remove {
        if !db
            .remove_override(*id)
            .map_err(|e| anyhow::anyhow!("{e}"))?
        {
            bail!("no refinement #{id} in {}", db_path.display());
        }
    }
    if let Some(h) = &change.hint {
        progress("writing the hint into the source");
        write_hint(h)?;
        let file = db.relative(&crate::commands::absolute(&h.path));
        shift_overrides(&mut db, &file, h.line, 1)?;
    }
    let (files, opts) = if !change.files.is_empty() {
        let opts = cli_options(&[], false, false, Some(&db))?;
        (change.files.clone(), opts)
    } else {
        let Some((id, _)) = db.latest_analysis().map_err(|e| anyhow::anyhow!("{e}"))? else {
            bail!(
                "{} holds no analysis: run `sapfor analyze FILE...` or `sapfor --auto FILE...` first, or open the window with `sapfor gui --db {} FILE...`",
                db_path.display(),
                db_path.display()
            );
        };
        let (_, files, opts) = stored_inputs(&db, id)?;
        (files, opts)
    };
    progress("analyzing");
    let (mut aid, mut analysis) = analyze_and_store(&mut db, &files, &opts)?;
    let mut schemes = db.schemes(aid).map_err(|e| anyhow::anyhow!("{e}"))?;
    let base = machine_of(&schemes)
        .or(previous_machine)
        .unwrap_or_default();
    let target = target_of(&schemes).or(previous_target).unwrap_or_default();
    let has_errors = |a: &Analysis| {
        a.diagnostics()
            .iter()
            .any(|d| d.severity == analyzer::diag::Severity::Error)
    };
    let mut errors = has_errors(&analysis);
    // What each new refinement did; one the analysis or the experts cannot use is not kept
    // (as `sapfor refine`): it would look applied.
    let mut effects = vec![];
    if !change.add.is_empty() && !errors {
        progress("checking the refinements' effect");
        let experts = change
            .add
            .iter()
            .any(|o| o.loop_ref().is_none())
            .then(|| schemes_for(&analysis, &base, target));
        let names: Vec<String> = experts
            .iter()
            .flat_map(|r| r.schemes.iter().map(|s| s.name.clone()))
            .collect();
        effects = refinement_effects(
            &change.add,
            &analysis.to_json(),
            experts.as_ref().map(|r| (r.notes.as_slice(), names.as_slice())),
        );
        let refused: Vec<i64> = effects
            .iter()
            .zip(&added)
            .filter(|(e, _)| e.refused.is_some())
            .map(|(_, id)| *id)
            .collect();
        if !refused.is_empty() {
            progress("analyzing without the refinements that were not applied");
            for id in refused {
                db.remove_override(id).map_err(|e| anyhow::anyhow!("{e}"))?;
            }
            let (_, files, opts) = stored_inputs(&db, aid)?;
            (aid, analysis) = analyze_and_store(&mut db, &files, &opts)?;
            schemes = db.schemes(aid).map_err(|e| anyhow::anyhow!("{e}"))?;
            errors = has_errors(&analysis);
        }
    }
    // A reused analysis keeps its schemes (same inputs and refinements, same estimates).
    if schemes.is_empty() && !errors {
        progress("estimating the schemes");
        let result = schemes_for(&analysis, &base, target);
        store_expert_result(&mut db, aid, &result, &base)?;
        schemes = db.schemes(aid).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    // What the schemes were estimated for: the stored machine with the machine refinements.
    let machine = experts::dvm::refined_machine(&analysis, &base).0;
    progress("reading the results");
    let overrides = db.overrides().map_err(|e| anyhow::anyhow!("{e}"))?;
    let report = analysis.to_json();
    let chosen = schemes
        .iter()
        .find(|(_, s)| s.chosen)
        .and_then(|(_, s)| scheme_from_record(s).ok());
    let mut loops = loops_of(&report);
    for l in &mut loops {
        l.file = db.relative(&crate::commands::absolute(Path::new(&l.file)));
    }
    if let Some(s) = &chosen {
        set_shares(&mut loops, s, &|f| db.relative(&crate::commands::absolute(Path::new(f))));
    }
    let mut files_out: Vec<SourceFile> = vec![];
    for f in &files {
        let name = db.relative(&crate::commands::absolute(f));
        let bytes = std::fs::read(f).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let fixed = opts.force_form.map_or_else(
            || analyzer::source::detect_form(f, &text) == analyzer::source::SourceForm::Fixed,
            |form| form == analyzer::source::SourceForm::Fixed,
        );
        files_out.push(SourceFile {
            name,
            path: f.clone(),
            text,
            fixed,
        });
    }
    let mut arrays = BTreeMap::new();
    for sema in &analysis.program.semas {
        for (name, sym) in &sema.symbols {
            if sym.is_array() {
                arrays.insert(name.to_string(), sym.bounds().len());
            }
        }
    }
    Ok(Project {
        db_path: db_path.to_path_buf(),
        analysis_id: aid,
        diagnostics: diags_of(&report)
            .into_iter()
            .map(|mut d| {
                if let Some((f, _)) = &mut d.location {
                    *f = db.relative(&crate::commands::absolute(Path::new(f.as_str())));
                }
                d
            })
            .collect(),
        analysis: Arc::new(analysis),
        files: files_out,
        loops,
        overrides,
        schemes,
        machine,
        target,
        arrays: arrays.into_iter().collect(),
        effects,
        include_dirs: opts.include_dirs.clone(),
    })
}

/// The dependences of one array and kind in a loop.
#[derive(Clone, Debug, PartialEq)]
pub struct DepGroup {
    pub array: String,
    pub kind: String,
    /// Indices into the loop's dependences, in their order.
    pub members: Vec<usize>,
    /// The lines the dependences run between, as ranges (`20-26, 31`).
    pub lines: String,
}

impl DepGroup {
    /// The group's header in the loop panel: `A flow: 64 (lines 38, 40)`.
    pub fn title(&self) -> String {
        format!("{} {}: {} (lines {})", self.array.to_uppercase(), self.kind, self.members.len(), self.lines)
    }
}

/// `deps` grouped by array and kind, groups in order of their first member.
pub fn dep_groups(deps: &[Dep]) -> Vec<DepGroup> {
    let mut groups: Vec<DepGroup> = vec![];
    for (i, d) in deps.iter().enumerate() {
        match groups.iter_mut().find(|g| g.array == d.array && g.kind == d.kind) {
            Some(g) => g.members.push(i),
            None => groups.push(DepGroup {
                array: d.array.clone(),
                kind: d.kind.clone(),
                members: vec![i],
                lines: String::new(),
            }),
        }
    }
    for g in &mut groups {
        let mut lines: Vec<u32> = g
            .members
            .iter()
            .flat_map(|&i| [deps[i].source_line, deps[i].sink_line])
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let mut ranges: Vec<String> = vec![];
        let mut k = 0;
        while k < lines.len() {
            let mut e = k;
            while e + 1 < lines.len() && lines[e + 1] == lines[e] + 1 {
                e += 1;
            }
            ranges.push(if e == k {
                lines[k].to_string()
            } else {
                format!("{}-{}", lines[k], lines[e])
            });
            k = e + 1;
        }
        g.lines = ranges.join(", ");
    }
    groups
}

/// What differs between two analyses of one loop, in words (verdict, private and reduction
/// variables, blockers): empty when nothing does.
pub fn loop_changes(old: &LoopRow, new: &LoopRow) -> Vec<String> {
    let mut out = vec![];
    if old.verdict != new.verdict {
        out.push(format!("verdict: {} -> {}", old.verdict, new.verdict));
    }
    let diff = |what: &str, a: &[String], b: &[String], out: &mut Vec<String>| {
        let plus: Vec<String> = b.iter().filter(|x| !a.contains(x)).map(|x| x.to_uppercase()).collect();
        let minus: Vec<String> = a.iter().filter(|x| !b.contains(x)).map(|x| x.to_uppercase()).collect();
        if !plus.is_empty() {
            out.push(format!("{what} now: {}", plus.join(", ")));
        }
        if !minus.is_empty() {
            out.push(format!("{what} no longer: {}", minus.join(", ")));
        }
    };
    diff("private", &old.private, &new.private, &mut out);
    let reds = |l: &LoopRow| -> Vec<String> { l.reductions.iter().map(|(op, v)| format!("{op}({v})")).collect() };
    diff("reduction", &reds(old), &reds(new), &mut out);
    if old.blockers.len() != new.blockers.len() {
        out.push(format!("blockers: {} -> {}", old.blockers.len(), new.blockers.len()));
    }
    out
}

/// A line was inserted before line `at` of `file` (relative to the project root): the
/// recorded loop refinements at or below it in that file move down by `by` lines.
fn shift_overrides(db: &mut database::Db, file: &str, at: u32, by: u32) -> Result<()> {
    let here = LoopRef {
        file: file.to_string(),
        line: at,
    };
    for (id, o) in db.overrides().map_err(|e| anyhow::anyhow!("{e}"))? {
        let Some(r) = o.loop_ref() else { continue };
        if r.line >= at && (here.matches_file(&r.file) || r.matches_file(file)) {
            let mut moved = o.clone();
            match &mut moved {
                Override::Parallel { at }
                | Override::Sequential { at }
                | Override::Private { at, .. }
                | Override::Reduction { at, .. } => at.line += by,
                _ => {}
            }
            db.remove_override(id).map_err(|e| anyhow::anyhow!("{e}"))?;
            db.add_override(&moved)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    Ok(())
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// The loops of a JSON report (version 1), in source order.
pub fn loops_of(report: &Value) -> Vec<LoopRow> {
    let mut out = vec![];
    for u in report["units"].as_array().into_iter().flatten() {
        let file = u["file"].as_str().unwrap_or("?").to_string();
        let unit = u["name"].as_str().unwrap_or("?").to_string();
        for l in u["loops"].as_array().into_iter().flatten() {
            let deps = l["dependences"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| Dep {
                    array: d["array"].as_str().unwrap_or("?").to_string(),
                    kind: d["kind"].as_str().unwrap_or("?").to_string(),
                    distance: d["distance"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|x| x.as_i64().map_or("*".into(), |v| v.to_string()))
                        .collect::<Vec<_>>()
                        .join(","),
                    source_line: d["source_line"].as_u64().unwrap_or(0) as u32,
                    sink_line: d["sink_line"].as_u64().unwrap_or(0) as u32,
                })
                .collect();
            let blockers = l["blockers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| Blocker {
                    code: b["code"].as_str().unwrap_or("?").to_string(),
                    message: b["message"].as_str().unwrap_or("").to_string(),
                    line: b["line"].as_u64().map(|x| x as u32),
                })
                .collect();
            let reductions = l["reductions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    (
                        r["op"].as_str().unwrap_or("?").to_string(),
                        r["var"].as_str().unwrap_or("?").to_string(),
                    )
                })
                .collect();
            out.push(LoopRow {
                file: file.clone(),
                unit: unit.clone(),
                line: l["line"].as_u64().unwrap_or(0) as u32,
                end_line: l["end_line"].as_u64().unwrap_or(0) as u32,
                var: l["var"].as_str().unwrap_or("").to_string(),
                depth: l["depth"].as_u64().unwrap_or(0) as u32,
                verdict: l["verdict"].as_str().unwrap_or("?").to_string(),
                private: strs(&l["private"]),
                reductions,
                deps,
                blockers,
                overridden_by: l["overridden_by"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect(),
                parallel_when: l.get("versioned").filter(|v| v.is_object()).map(|v| {
                    let private = strs(&v["private"]).iter().map(|x| x.to_uppercase()).collect::<Vec<_>>().join(",");
                    let private = if private.is_empty() { "none".into() } else { private };
                    // (a recurrence computed ahead: `versioned.split`)
                    let ahead = v.get("split").filter(|x| x.is_object()).map(|x| {
                        let vars: Vec<String> = strs(&x["vars"]).iter().map(|v| v.to_uppercase()).collect();
                        format!("once {}", analyzer::loops::computed_ahead(&vars))
                    });
                    let when = strs(&v["when"]).join(" .AND. ");
                    match (when.is_empty(), ahead) {
                        (true, Some(a)) => format!("Parallel {a} (private {private})"),
                        (false, Some(a)) => format!("Parallel when: {when}, {a} (private {private}) (tested where the loop starts)"),
                        (_, None) => format!("Parallel when: {when} (private {private}) (tested where the loop starts)"),
                    }
                }),
                iterations: l["iterations"].as_u64(),
                share: None,
            });
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

pub fn diags_of(report: &Value) -> Vec<Diag> {
    report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| Diag {
            severity: d["severity"].as_str().unwrap_or("error").to_string(),
            code: d["code"].as_str().unwrap_or("?").to_string(),
            message: d["message"].as_str().unwrap_or("").to_string(),
            location: d["location"].as_object().map(|l| {
                (
                    l.get("file")
                        .and_then(|x| x.as_str())
                        .unwrap_or("?")
                        .to_string(),
                    l.get("line").and_then(|x| x.as_u64()).unwrap_or(0) as u32,
                )
            }),
        })
        .collect()
}

/// Fill [`LoopRow::share`] from the chosen scheme's per-nest figures (each nest's estimated
/// computation and communication over the sum for all nests): a loop's share is that of
/// the nests it contains (its own nest included); a loop inside a nest has the nest's share.
/// A replicated scheme has figures too (every process runs every nest).
fn set_shares(loops: &mut [LoopRow], scheme: &Scheme, name: &dyn Fn(&str) -> String) {
    let times = nest_times(scheme, name);
    // Relative to the sum of the nests' figures: a DVMH scheme's total counts accelerated
    // regions, its per-nest notes are the host figures.
    let total: f64 = times.values().sum();
    if total <= 0.0 {
        return;
    }
    let heads: Vec<(String, u32, u32, f64)> = loops
        .iter()
        .filter_map(|l| nest_time(&times, &l.file, l.line).map(|t| (l.file.clone(), l.line, l.end_line, t)))
        .collect();
    for l in loops.iter_mut() {
        let inside: f64 = heads
            .iter()
            .filter(|(f, line, _, _)| *f == l.file && l.line <= *line && *line <= l.end_line)
            .map(|h| h.3)
            .sum();
        let around = heads
            .iter()
            .filter(|(f, line, end, _)| *f == l.file && *line <= l.line && l.end_line <= *end)
            .max_by_key(|h| h.1)
            .map(|h| h.3);
        let t = if inside > 0.0 { Some(inside) } else { around };
        l.share = t.map(|t| t / total);
    }
}

/// Machine refinements (`sapfor refine machine KEY=VALUE`) for every parameter of `new` that
/// differs from `old` (the grid is a what-if only).
pub fn machine_changes(old: &MachineModel, new: &MachineModel) -> Vec<Override> {
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) =
        (serde_json::to_value(old), serde_json::to_value(new))
    else {
        return vec![];
    };
    b.iter()
        .filter(|(k, v)| k.as_str() != "grid" && a.get(*k) != Some(*v))
        .map(|(k, v)| Override::Machine {
            key: k.clone(),
            value: v.to_string(),
        })
        .collect()
}

/// Re-estimate every variant for another machine (the what-if controls): runs the experts on
/// the in-memory analysis, nothing is stored.
pub fn what_if(
    analysis: &Analysis,
    machine: &MachineModel,
    target: Target,
) -> (Result<Vec<Scheme>, String>, Vec<experts::scheme::Rejected>) {
    if let Err(e) = machine.validate() {
        return (Err(e), vec![]);
    }
    let dvm = experts::dvm::run_exactly(analysis, machine);
    let r = for_target(analysis, dvm, machine, target);
    (Ok(r.schemes), r.rejected)
}

/// Generate the program of `scheme` as `sapfor --auto` does (checked when it has regions).
pub fn generate(
    analysis: &Analysis,
    scheme: &Scheme,
) -> Result<Vec<generator::GeneratedFile>, String> {
    generate_checked(analysis, scheme).map_err(|e| format!("{e:#}"))
}

/// The `!$SPF` line that makes the analyzer read `o` as a source hint (printed by the
/// analyzer's own directive printer); an error for what has no hint form.
pub fn hint_line(o: &Override, fixed: bool) -> Result<String> {
    use analyzer::directives::{DirectiveKind, DistFormat, Reduction, ReductionOp, SpfHint};
    let hint = match o {
        Override::Parallel { .. } => SpfHint::Parallel,
        Override::Sequential { .. } => SpfHint::Sequential,
        Override::Private { var, .. } => SpfHint::Private(vec![var.clone()]),
        Override::Reduction { op, var, .. } => {
            let op = ReductionOp::from_name(op)
                .filter(|o| !matches!(o, ReductionOp::MaxLoc | ReductionOp::MinLoc))
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "a {op} reduction needs its location array: record it in the database"
                    )
                })?;
            SpfHint::Reduction(vec![Reduction {
                op,
                var: var.clone(),
                loc: vec![],
            }])
        }
        Override::NoDistribute { array } => SpfHint::NoDistribute(vec![array.clone()]),
        Override::Distribute { array, formats } => SpfHint::Distribute {
            array: array.clone(),
            formats: formats
                .iter()
                .map(|f| {
                    if f == "BLOCK" {
                        DistFormat::Block
                    } else {
                        DistFormat::Star
                    }
                })
                .collect(),
        },
        Override::Machine { .. } => bail!("machine parameters have no source hint"),
    };
    let body = DirectiveKind::Spf(vec![hint]).to_string();
    Ok(format!("{}{body}", if fixed { "C$SPF " } else { "!$SPF " }))
}

/// Insert the hint line before the DO statement (indented like it in free form).
pub fn write_hint(h: &Hint) -> Result<()> {
    let hint = hint_line(&h.refinement, h.fixed)?;
    let text = std::fs::read_to_string(&h.path)?;
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let idx = (h.line as usize).saturating_sub(1);
    if h.line == 0 || idx >= lines.len() {
        bail!("{} has no line {}", h.path.display(), h.line);
    }
    let indent: String = if h.fixed {
        String::new()
    } else {
        lines[idx]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect()
    };
    let eol = if lines[idx].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let new = format!("{indent}{hint}{eol}");
    lines.insert(idx, &new);
    crate::commands::write_atomically(&h.path, lines.concat().as_bytes())
}
