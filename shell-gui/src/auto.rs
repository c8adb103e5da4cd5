//! `sapfor --auto` (analysis, the DVM expert, the generator; everything stored in the project
//! database) and `sapfor generate --scheme ID` (the program of any stored variant).

use crate::commands::{absolute, input_key, open_db, write_atomically};
use anyhow::{bail, Context, Result};
use database::records::{AnalysisRecord, ArtifactRecord, RejectedRecord, SchemeRecord};
use database::Db;
use experts::machine::MachineModel;
use experts::scheme::Scheme;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Default)]
pub struct AutoArgs {
    /// Fortran source files of the program.
    pub files: Vec<PathBuf>,
    /// Output file (one input file only). Default: `<stem>.fdv` beside each input.
    #[arg(short = 'o', value_name = "OUT", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Directory for the generated files (same file names, extension .fdv).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Project database (its directory is the project root).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "sapfor.db",
        conflicts_with = "no_db"
    )]
    pub db: PathBuf,
    /// Do not read or write a project database.
    #[arg(long)]
    pub no_db: bool,
    /// Replace an output that was changed since sapfor wrote it (the project database
    /// records what it wrote).
    #[arg(long)]
    pub force: bool,
    /// Number of processes to estimate for (overrides the machine description).
    #[arg(long, value_name = "N")]
    pub procs: Option<u32>,
    /// Machine description (TOML; see docs/cost-model.md).
    #[arg(long, value_name = "FILE")]
    pub machine: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print the time of each phase on standard error.
    #[arg(long)]
    pub timings: bool,
    /// Directory searched for INCLUDE files.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Treat all files as fixed form.
    #[arg(long, conflicts_with = "free_form")]
    pub fixed_form: bool,
    /// Treat all files as free form.
    #[arg(long)]
    pub free_form: bool,
    /// What to write: `dvmh` (regions and data movement for accelerators, the default) or
    /// `dvm` (cluster only: distribution and parallel loops).
    #[arg(long, value_enum, default_value_t = Target::Dvmh)]
    pub target: Target,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    #[default]
    Dvmh,
    Dvm,
}

/// Every DVM variant, and with the DVMH target each one turned into its DVMH scheme; the
/// index of the cheapest.
pub fn schemes_for(
    analysis: &analyzer::report::Analysis,
    machine: &MachineModel,
    target: Target,
) -> experts::dvm::DvmResult {
    for_target(analysis, experts::dvm::run(analysis, machine), machine, target)
}

/// The DVM expert's result `r` for `target`: unchanged for DVM, each variant turned into its
/// DVMH scheme for DVMH (the GUI's what-if estimates start from another DVM run).
pub fn for_target(
    analysis: &analyzer::report::Analysis,
    mut r: experts::dvm::DvmResult,
    machine: &MachineModel,
    target: Target,
) -> experts::dvm::DvmResult {
    if target == Target::Dvmh {
        let expert = experts::dvmh::Expert::new(analysis, machine);
        r.schemes = r.schemes.iter().map(|s| expert.run(s)).collect();
        // The cheapest; on a tie the DVM expert's choice.
        let dvm_choice = r.chosen;
        r.chosen = r
            .schemes
            .iter()
            .enumerate()
            .min_by(|a, b| {
                a.1.estimate
                    .total
                    .total_cmp(&b.1.estimate.total)
                    .then((a.0 != dvm_choice).cmp(&(b.0 != dvm_choice)))
            })
            .map(|(i, _)| i)
            .unwrap_or(0);
    }
    r
}

/// `--auto` never chooses a variant the runtime refuses: the chosen scheme's program goes
/// through the runtime's converter, and while it is refused the next cheapest is taken (the
/// replicated scheme always converts), with a note naming the refusal.
/// The loops whose trip count the analysis knows neither exactly nor as a bound (every
/// estimate takes `assumed` iterations for each, multiplied through the nests and the calls
/// around them: NPB FT's butterflies in SWARZTRAUBER made its figures millions of seconds),
/// as one line naming the first few; None when there is none.
fn unknown_trips_note(analysis: &analyzer::report::Analysis, assumed: u64) -> Option<String> {
    let files = &analysis.program.map.files;
    let mut at: Vec<String> = vec![];
    for (ui, u) in analysis.program.units.iter().enumerate() {
        let Some(loops) = analysis.loops.get(ui) else { continue };
        let name = files.get(u.file.0 as usize).map_or(String::new(), |f| f.path.display().to_string());
        at.extend(loops.iter().filter(|l| l.trip_count.is_none() && l.trip_estimate.is_none()).map(|l| format!("{name}:{}", l.line)));
    }
    if at.is_empty() {
        return None;
    }
    const SHOWN: usize = 5;
    let more = if at.len() > SHOWN { format!(" and {} more", at.len() - SHOWN) } else { String::new() };
    Some(format!(
        "(the estimates take {assumed} iterations for each of the {} loop(s) whose trip count the analysis does not know: {}{more}; `unknown_trip_count` in a machine file, `--machine`, changes that)",
        at.len(),
        at[..at.len().min(SHOWN)].join(", ")
    ))
}

pub fn settle_runnable(analysis: &analyzer::report::Analysis, result: &mut experts::dvm::DvmResult) -> Result<()> {
    let mut refused: BTreeSet<usize> = BTreeSet::new();
    loop {
        let s = &result.schemes[result.chosen];
        if s.distributions.is_empty() && s.inherits.is_empty() {
            return Ok(());
        }
        let (files, _) = generate_settled(analysis, s)?;
        let why = runtime_refusals(&analysis.program, &files)?;
        if why.is_empty() {
            return Ok(());
        }
        refused.insert(result.chosen);
        let Some(next) = (0..result.schemes.len())
            .filter(|i| !refused.contains(i))
            .min_by(|a, b| result.schemes[*a].estimate.total.total_cmp(&result.schemes[*b].estimate.total))
        else {
            return Ok(());
        };
        result.notes.push(format!(
            "variant {} is the cheapest but the runtime refuses its program ({}{}): {} is chosen instead",
            result.schemes[result.chosen].name,
            why[0],
            if why.len() > 1 { format!(" and {} more", why.len() - 1) } else { String::new() },
            result.schemes[next].name
        ));
        result.chosen = next;
    }
}

pub fn machine_model(path: Option<&Path>, procs: Option<u32>) -> Result<MachineModel> {
    let mut m = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the machine description {}", p.display()))?;
            MachineModel::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
        }
        None => MachineModel::default(),
    };
    if let Some(n) = procs {
        if n == 0 {
            bail!("--procs must be at least 1");
        }
        m.processes = n;
    }
    Ok(m)
}

/// Where the generated text of `input` goes.
fn output_path(input: &Path, output: Option<&Path>, out_dir: Option<&Path>) -> PathBuf {
    if let Some(o) = output {
        return o.to_path_buf();
    }
    let name = Path::new(input.file_name().unwrap_or_default()).with_extension("fdv");
    match out_dir {
        Some(d) => d.join(name),
        None => input.with_extension("fdv"),
    }
}

pub fn scheme_record(s: &Scheme, chosen: bool, m: &MachineModel) -> SchemeRecord {
    SchemeRecord {
        expert: s.expert.clone(),
        name: s.name.clone(),
        distribution: json!({"distributions": s.distributions, "shadows": s.shadows, "inherits": s.inherits, "templates": s.templates, "owned": s.owned}),
        alignment: json!(s.alignments),
        loops: json!({"loops": s.loops, "remote": s.remote}),
        regions: json!({"regions": s.regions, "actualizations": s.actualizations}),
        machine: json!({"model": m, "grid": s.estimate.grid, "estimate_notes": s.estimate.notes, "estimate_nests": s.estimate.nests, "scheme_notes": s.notes}),
        cost_computation: s.estimate.computation,
        cost_communication: s.estimate.communication,
        cost_transfers: s.estimate.transfers,
        total: s.estimate.total,
        chosen,
    }
}

/// Store every variant of an expert run for analysis `aid`, the cheapest marked chosen; their ids.
pub fn store_expert_result(
    db: &mut Db,
    aid: i64,
    result: &experts::dvm::DvmResult,
    machine: &MachineModel,
) -> Result<Vec<i64>> {
    db.store_schemes(aid, &scheme_records(result, machine), &rejected_records(result))
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// The machine model stored with a set of schemes (`auto::scheme_record`).
pub fn machine_of(schemes: &[(i64, SchemeRecord)]) -> Option<MachineModel> {
    schemes
        .iter()
        .find_map(|(_, s)| serde_json::from_value(s.machine["model"].clone()).ok())
}

/// What the stored schemes were made for: DVM when all are the DVM expert's.
pub fn target_of(schemes: &[(i64, SchemeRecord)]) -> Option<Target> {
    if schemes.is_empty() {
        None
    } else if schemes.iter().all(|(_, s)| s.expert == "dvm") {
        Some(Target::Dvm)
    } else {
        Some(Target::Dvmh)
    }
}

/// The rejected variants of an expert run, as stored.
pub fn rejected_records(result: &experts::dvm::DvmResult) -> Vec<RejectedRecord> {
    result
        .rejected
        .iter()
        .map(|r| RejectedRecord {
            expert: r.expert.clone(),
            name: r.name.clone(),
            reasons: json!(r.reasons),
        })
        .collect()
}

fn scheme_records(result: &experts::dvm::DvmResult, machine: &MachineModel) -> Vec<SchemeRecord> {
    result
        .schemes
        .iter()
        .enumerate()
        .map(|(i, s)| scheme_record(s, i == result.chosen, machine))
        .collect()
}

/// The reasons of a stored rejected variant (none when they are not readable).
pub fn reasons_of(r: &RejectedRecord) -> Vec<experts::scheme::Reason> {
    serde_json::from_value(r.reasons.clone()).unwrap_or_default()
}

/// Record the program text of scheme `scheme_id` written to `dest`; the artifact id.
pub fn store_program(db: &mut Db, scheme_id: i64, dest: &Path, text: &str) -> Result<i64> {
    let rec = ArtifactRecord {
        kind: "fdv".into(),
        path: Some(db.relative(&absolute(dest))),
        text: text.to_string(),
    };
    db.store_artifact(scheme_id, &rec)
        .map_err(|e| anyhow::anyhow!("{e}"))
}

pub fn scheme_from_record(r: &SchemeRecord) -> Result<Scheme> {
    fn get(v: &Value, k: &str) -> Value {
        v.get(k).cloned().unwrap_or(Value::Null)
    }
    fn de<T: serde::de::DeserializeOwned>(v: Value) -> Result<T> {
        serde_json::from_value(v).context("the stored scheme is not readable by this sapfor")
    }
    Ok(Scheme {
        expert: r.expert.clone(),
        name: r.name.clone(),
        // absent in schemes stored before TEMPLATE existed
        templates: de(get(&r.distribution, "templates")).unwrap_or_default(),
        distributions: de(get(&r.distribution, "distributions"))?,
        shadows: de(get(&r.distribution, "shadows"))?,
        // absent in schemes stored before INHERIT existed
        inherits: de(get(&r.distribution, "inherits")).unwrap_or_default(),
        // absent in schemes stored before OWNED existed
        owned: de(get(&r.distribution, "owned")).unwrap_or_default(),
        alignments: de(r.alignment.clone())?,
        loops: de(get(&r.loops, "loops"))?,
        remote: de(get(&r.loops, "remote"))?,
        estimate: experts::scheme::Estimate {
            computation: r.cost_computation,
            communication: r.cost_communication,
            transfers: r.cost_transfers,
            total: r.total,
            grid: de(get(&r.machine, "grid")).unwrap_or_default(),
            notes: de(get(&r.machine, "estimate_notes")).unwrap_or_default(),
            nests: de(get(&r.machine, "estimate_nests")).unwrap_or_default(),
        },
        notes: de(get(&r.machine, "scheme_notes")).unwrap_or_default(),
        regions: de(get(&r.regions, "regions")).unwrap_or_default(),
        actualizations: de(get(&r.regions, "actualizations")).unwrap_or_default(),
    })
}

/// The program text of `scheme`; a scheme with regions is checked for stale data first (the
/// actuality checker). See `generate_settled`.
pub fn generate_checked(
    analysis: &analyzer::report::Analysis,
    scheme: &Scheme,
) -> Result<Vec<generator::GeneratedFile>> {
    generate_settled(analysis, scheme).map(|(files, _)| files)
}

/// The program text of `scheme`, and the scheme it was generated from. A scheme with regions
/// is checked for stale data (the actuality checker). Where the checker finds a host access
/// whose data the scheme does not keep actual, the regions that use the variables it names
/// are kept on the host (and their actualizations dropped), first those, then, if findings
/// remain, every region: `--auto` always writes a correct program, and the scheme's notes say
/// what was given up and why. Only a program that is wrong without any region is an error.
pub fn generate_settled(
    analysis: &analyzer::report::Analysis,
    scheme: &Scheme,
) -> Result<(Vec<generator::GeneratedFile>, Scheme)> {
    let mut scheme = scheme.clone();
    for round in 0..5 {
        let files = generator::generate(&analysis.program, &scheme).map_err(|e| anyhow::anyhow!("{e}"))?;
        let on_device = scheme.regions.iter().any(|r| r.estimate.on_device);
        if !on_device && scheme.actualizations.is_empty() {
            return Ok((files, scheme));
        }
        let findings = verify_actuality(&analysis.program, &files)?;
        if findings.is_empty() {
            return Ok((files, scheme));
        }
        if std::env::var_os("SAPFOR_DEBUG_CHECK").is_some() {
            for f in &files {
                eprintln!("{}", f.text);
            }
            eprintln!("findings:\n  {}", findings.join("\n  "));
        }
        if !on_device {
            bail!(
                "internal error: the generated program would use stale data (nothing was written):\n  {}",
                findings.join("\n  ")
            );
        }
        // the variables the findings name, among those the regions on the accelerator use
        let used: BTreeSet<String> = scheme
            .regions
            .iter()
            .filter(|r| r.estimate.on_device)
            .flat_map(|r| r.clauses.iter().flat_map(|(_, parts)| parts.iter().map(|p| p.var.to_ascii_uppercase())))
            .collect();
        let mut named: BTreeSet<String> =
            used.iter().filter(|v| findings.iter().any(|f| mentions_word(f, v))).cloned().collect();
        if named.is_empty() || round >= 3 {
            named = used; // all of them
        }
        let why = format!(
            "the regions using {} run on the host: the placement of their data could not be proven ({}{})",
            named.iter().cloned().collect::<Vec<_>>().join(", "),
            findings[0],
            if findings.len() > 1 { format!(" and {} more", findings.len() - 1) } else { String::new() }
        );
        for r in scheme.regions.iter_mut().filter(|r| r.estimate.on_device) {
            if r.clauses.iter().any(|(_, parts)| parts.iter().any(|p| named.contains(&p.var.to_ascii_uppercase()))) {
                r.estimate.on_device = false;
                r.notes.push("kept on the host: the placement of its data could not be proven".into());
            }
        }
        for a in &mut scheme.actualizations {
            a.vars.retain(|p| !named.contains(&p.var.to_ascii_uppercase()));
        }
        scheme.actualizations.retain(|a| !a.vars.is_empty());
        if !scheme.regions.iter().any(|r| r.estimate.on_device) {
            scheme.actualizations.clear();
        }
        scheme.notes.push(why);
    }
    bail!("internal error: the regions of the scheme could not be settled (nothing was written)")
}

/// Whether `text` contains `word` (upper case) as a whole identifier, in any case.
fn mentions_word(text: &str, word: &str) -> bool {
    text.to_ascii_uppercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

/// The program of `scheme`, generated and checked, with where each file goes:
/// (input, destination, directive lines inserted, lines replaced, text). Nothing is written
/// yet: the database records the files first (`write_planned` then writes them), so that a
/// kill between the two leaves files the database knows sapfor wrote.
fn plan_program(
    analysis: &analyzer::report::Analysis,
    scheme: &Scheme,
    output: Option<&Path>,
    out_dir: Option<&Path>,
    db: Option<&Db>,
    force: bool,
) -> Result<(Vec<(PathBuf, PathBuf, usize, usize, String)>, Scheme)> {
    let (files, settled) = generate_settled(analysis, scheme)?;
    if output.is_some() && files.len() > 1 {
        bail!(
            "-o names one output file but the program has {} files: use --out-dir",
            files.len()
        );
    }
    // every destination is checked before anything is written
    let mut guard = crate::outputs::Guard::new();
    for f in &analysis.program.map.files {
        guard.protect(
            &f.path,
            if f.included { "an INCLUDE file the program reads" } else { "an input of the program" },
        );
    }
    if let Some(db) = db {
        guard.protect_db(db.path());
    }
    let dests: Vec<PathBuf> = files.iter().map(|f| output_path(&f.path, output, out_dir)).collect();
    for (f, dest) in files.iter().zip(&dests) {
        guard.claim(dest, Some(&f.path))?;
        // a program sapfor wrote and the user changed since is not replaced without --force
        // (any text sapfor recorded for this path counts as its own: a run killed after its
        // database commit left the previous one there)
        if let (Some(db), false) = (db, force) {
            if let Ok(now) = std::fs::read_to_string(dest) {
                let rel = db.relative(&absolute(dest));
                if db.changed_since_written(&rel, &now).unwrap_or(false) {
                    bail!(
                        "refusing to replace {}: it was changed since sapfor wrote it; use --force to replace it, or -o to write elsewhere",
                        dest.display()
                    );
                }
            }
        }
    }
    let planned = files
        .into_iter()
        .zip(dests)
        .map(|(f, dest)| (f.path.clone(), dest, f.inserted.len(), f.removed, f.text))
        .collect();
    Ok((planned, settled))
}

/// Says on standard error what `generate_settled` gave up in `settled` (its notes beyond
/// those of `scheme`).
fn report_settled(scheme: &Scheme, settled: &Scheme) {
    for n in settled.notes.iter().skip(scheme.notes.len()) {
        eprintln!("note: {n}");
    }
}

/// Write what `plan_program` planned (each file atomically).
fn write_planned(planned: &[(PathBuf, PathBuf, usize, usize, String)], out_dir: Option<&Path>) -> Result<()> {
    if let Some(d) = out_dir {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    for (_, dest, _, _, text) in planned {
        write_atomically(dest, text.as_bytes())?;
    }
    Ok(())
}

/// One line about a region: where, its clauses, its estimate.
pub fn region_line(r: &experts::scheme::Region) -> String {
    let clauses: Vec<String> = r
        .clauses
        .iter()
        .map(|(u, parts)| {
            format!(
                "{}({})",
                u.as_str(),
                parts.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    let e = &r.estimate;
    format!(
        "region {}:{}-{} {} [{}]: {} x (host {:.3} ms, accelerator {:.3} ms + transfers {:.3} ms; in {:.0} B, out {:.0} B){}",
        r.at.file,
        r.first_line,
        r.last_line,
        if e.on_device { "on the accelerator" } else { "kept on the host" },
        clauses.join(", "),
        e.executions,
        e.host_s * 1e3,
        e.device_s * 1e3,
        e.transfer_s * 1e3,
        e.in_bytes,
        e.out_bytes,
        if r.notes.is_empty() { String::new() } else { format!("; {}", r.notes.join("; ")) }
    )
}

/// Read the generated text back (in a scratch directory, INCLUDE files found beside the
/// originals) and run the actuality checker on it.
pub fn verify_actuality(
    program: &analyzer::program::Program,
    files: &[generator::GeneratedFile],
) -> Result<Vec<String>> {
    let reread = read_back(program, files)?;
    let mut out: Vec<String> = experts::dvmh::check::check(&reread)
        .into_iter()
        .map(|f| {
            let file = std::path::Path::new(&f.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or(f.file.clone());
            format!("{file}:{}: {}", f.line, f.message)
        })
        .collect();
    if reread.has_errors() {
        out.push("the generated text does not read back without errors".into());
    }
    Ok(out)
}

/// What the runtime's converter refuses in the generated program (`sapfor build` would stop
/// there), one message per refusal with the generated file's name and line; empty when it
/// converts.
pub fn runtime_refusals(program: &analyzer::program::Program, files: &[generator::GeneratedFile]) -> Result<Vec<String>> {
    let reread = read_back(program, files)?;
    Ok(match runtime::convert::convert(&reread) {
        Ok(_) => vec![],
        Err(diags) => diags
            .iter()
            .map(|d| match &d.location {
                Some(l) => format!("{}:{}: {}", std::path::Path::new(&l.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), l.line, d.message),
                None => d.message.clone(),
            })
            .collect(),
    })
}

/// The generated text read back by the analyzer, as `sapfor build` would read it.
fn read_back(program: &analyzer::program::Program, files: &[generator::GeneratedFile]) -> Result<analyzer::program::Program> {
    let dir = std::env::temp_dir().join(format!("sapfor-check-{}-{}", std::process::id(), READ_BACKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut paths = vec![];
    let mut include_dirs = vec![];
    let mut names = std::collections::BTreeSet::new();
    for (k, f) in files.iter().enumerate() {
        let name = f.path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        // Distinct names even when two inputs share a file name.
        let sub = if names.insert(name.clone()) { dir.clone() } else { dir.join(k.to_string()) };
        std::fs::create_dir_all(&sub)?;
        let p = sub.join(&name);
        std::fs::write(&p, &f.text).with_context(|| format!("cannot write {}", p.display()))?;
        paths.push(p);
    }
    // INCLUDE files are searched beside the original sources, then where they were found
    // (given with -I or not)
    let included = program.map.files.iter().filter(|f| f.included).map(|f| &f.path);
    for p in files.iter().map(|f| &f.path).chain(included) {
        if let Some(d) = p.parent() {
            let d = if d.as_os_str().is_empty() { PathBuf::from(".") } else { d.to_path_buf() };
            if !include_dirs.contains(&d) {
                include_dirs.push(d);
            }
        }
    }
    // (the C sources given with the program, as `sapfor build` gets them: what they name
    // decides which calls of theirs may reach Fortran data)
    paths.extend(program.foreign.iter().cloned());
    let forced = program.map.files.iter().find(|f| !f.included).map(|f| f.form);
    let opts = analyzer::program::Options {
        include_dirs,
        force_form: forced,
        overrides: vec![],
    };
    let reread = analyzer::program::load(&paths, &opts);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(reread)
}

static READ_BACKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A variant that distributes arrays (its name is the distribution, `(*,BLOCK)`).
fn is_distributed(s: &experts::scheme::Scheme) -> bool {
    s.name.starts_with('(')
}

/// The notes every variant carries (when there are at least two), and those every
/// distributed variant carries besides (when there are at least two of them), in the order
/// of the first variant that has them.
fn shared_notes(schemes: &[experts::scheme::Scheme]) -> (Vec<String>, Vec<String>) {
    // (sets: a large program's schemes carry thousands of notes each)
    let common = |group: Vec<&experts::scheme::Scheme>, skip: &[String]| -> Vec<String> {
        if group.len() < 2 {
            return vec![];
        }
        let others: Vec<HashSet<&String>> = group[1..].iter().map(|s| s.notes.iter().collect()).collect();
        let skip: HashSet<&String> = skip.iter().collect();
        let mut seen: HashSet<&String> = HashSet::new();
        group[0]
            .notes
            .iter()
            .filter(|n| !skip.contains(n) && others.iter().all(|o| o.contains(n)) && seen.insert(n))
            .cloned()
            .collect()
    };
    let every = common(schemes.iter().collect(), &[]);
    let dist = common(schemes.iter().filter(|s| is_distributed(s)).collect(), &every);
    (every, dist)
}

fn fmt_s(s: f64) -> String {
    format!("{s:.6} s")
}

pub fn auto(a: AutoArgs) -> Result<ExitCode> {
    if a.files.is_empty() {
        bail!("sapfor --auto needs at least one Fortran file");
    }
    let machine = machine_model(a.machine.as_deref(), a.procs)?;
    let mut db = if a.no_db { None } else { Some(open_db(&a.db)?) };
    let opts = crate::commands::cli_options(&a.include, a.fixed_form, a.free_form, db.as_ref())?;
    let mut phases: Vec<(&str, f64)> = vec![];
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str, phases: &mut Vec<(&str, f64)>| {
        phases.push((name, clock.elapsed().as_secs_f64()));
        clock = std::time::Instant::now();
    };
    let analysis = analyzer::report::analyze(&a.files, &opts);
    let report = analysis.to_json();
    lap("analysis", &mut phases);
    let mut stderr = std::io::stderr().lock();
    let errors = crate::commands::print_json_diagnostics(&report, &mut stderr);
    drop(stderr);
    if errors {
        bail!("the program has errors (see above): no parallel version was generated");
    }
    let mut result = schemes_for(&analysis, &machine, a.target);
    settle_runnable(&analysis, &mut result)?;
    lap("experts", &mut phases);
    let (written, settled) = plan_program(
        &analysis,
        &result.schemes[result.chosen],
        a.output.as_deref(),
        a.out_dir.as_deref(),
        db.as_ref(),
        a.force,
    )?;
    // the scheme as written (regions kept on the host where data placement was not proven)
    report_settled(&result.schemes[result.chosen], &settled);
    result.schemes[result.chosen] = settled;
    lap("generation", &mut phases);
    // Record everything: the analysis, every variant, the generated program.
    let mut stored_ids: Option<(i64, Vec<i64>, i64)> = None;
    if let Some(db) = db.as_mut() {
        if let Some(key) = input_key(db, &a.files, &opts) {
            let rec = AnalysisRecord::from_analysis(&analysis, db);
            // one transaction: a concurrent --auto on the same database cannot delete this
            // analysis between the two
            let (aid, ids) = db
                .store_analysis_and_schemes(&key, &rec, &scheme_records(&result, &machine), &rejected_records(&result))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut art = 0;
            for (_, dest, _, _, text) in &written {
                art = store_program(db, ids[result.chosen], dest, text)?;
            }
            stored_ids = Some((aid, ids, art));
        }
        lap("database", &mut phases);
    }
    // after the database commit (see plan_program)
    write_planned(&written, a.out_dir.as_deref())?;
    if a.timings {
        let total: f64 = phases.iter().map(|(_, t)| t).sum();
        let parts: Vec<String> = phases
            .iter()
            .map(|(n, t)| format!("{n} {t:.3} s"))
            .collect();
        eprintln!(
            "timings: {} (total {total:.3} s, {} variants estimated)",
            parts.join(", "),
            result.schemes.len()
        );
    }
    if a.json {
        let v = json!({
            "version": 1,
            "processes": machine.processes,
            "chosen": result.chosen,
            "schemes": result.schemes.iter().enumerate().map(|(i, s)| json!({
                "id": stored_ids.as_ref().map(|(_, ids, _)| ids[i]),
                "name": s.name, "expert": s.expert, "chosen": i == result.chosen,
                "computation": s.estimate.computation, "communication": s.estimate.communication,
                "transfers": s.estimate.transfers, "total": s.estimate.total, "grid": s.estimate.grid,
                "notes": s.notes,
            })).collect::<Vec<_>>(),
            "notes": result.notes,
            "outputs": written.iter().map(|(i, o, n, r, _)| json!({"input": i, "output": o, "directives": n, "replaced": r})).collect::<Vec<_>>(),
            "report": report,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    // Human summary: the loops, the variants, the outputs.
    print!("{}", analyzer::report::human_from_json(&report));
    println!();
    // (the expert says why an array stays replicated for each nest that uses it: once here)
    let mut said = BTreeSet::new();
    for n in result.notes.iter().filter(|n| said.insert(n.as_str())) {
        println!("note: {n}");
    }
    println!(
        "schemes estimated for {} processes (machine: Tstart {} us, Tbyte {} us):",
        machine.processes, machine.tstart_us, machine.tbyte_us
    );
    if let Some(line) = unknown_trips_note(&analysis, machine.unknown_trip_count) {
        println!("  {line}");
    }
    // a note that every variant (or every distributed one) carries is printed once
    let (every, every_dist) = shared_notes(&result.schemes);
    for (head, notes) in [("every variant", &every), ("every distributed variant", &every_dist)] {
        if !notes.is_empty() {
            println!("  in {head}:");
            for n in notes {
                println!("        {n}");
            }
        }
    }
    let (every_set, every_dist_set): (HashSet<&String>, HashSet<&String>) = (every.iter().collect(), every_dist.iter().collect());
    for (i, s) in result.schemes.iter().enumerate() {
        let id = stored_ids
            .as_ref()
            .map_or(String::new(), |(_, ids, _)| format!("#{} ", ids[i]));
        let grid = if s.estimate.grid.is_empty() {
            String::new()
        } else {
            format!(
                " on grid {}",
                s.estimate
                    .grid
                    .iter()
                    .map(|g| g.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            )
        };
        let transfers = if s.expert == "dvmh" {
            format!(", transfers {}", fmt_s(s.estimate.transfers))
        } else {
            String::new()
        };
        println!(
            "  {}{}{:<16} total {}  (computation {}, communication {}{transfers}){grid}",
            if i == result.chosen { "* " } else { "  " },
            id,
            s.name,
            fmt_s(s.estimate.total),
            fmt_s(s.estimate.computation),
            fmt_s(s.estimate.communication)
        );
        for n in s.notes.iter().filter(|n| !every_set.contains(n) && !(is_distributed(s) && every_dist_set.contains(n))) {
            println!("        {n}");
        }
        if i == result.chosen {
            for r in &s.regions {
                println!("        {}", region_line(r));
            }
        }
    }
    println!("chosen: {}", result.schemes[result.chosen].name);
    // (the default machine has an accelerator; say so where this one has none and the choice
    // counted on it: its regions run on the host here, and a threaded outer loop may be lost)
    let on_device = result.schemes[result.chosen].regions.iter().filter(|r| r.estimate.on_device).count();
    if a.machine.is_none() && machine.gpus_per_node > 0 && on_device > 0 && crate::calibrate::gpus_here() == 0 {
        println!(
            "note: the default machine description has {} accelerator(s) per node, and {on_device} region(s) were placed on it; this machine has none (/dev/nvidia0), so they run on the host here. For this machine, `sapfor calibrate -o machine.toml` writes its description (gpus_per_node = 0) and `--machine machine.toml` chooses for it (loops then stay on the host, on threads where they pay)",
            machine.gpus_per_node
        );
    }
    for (input, dest, n, removed, _) in &written {
        let rep = if *removed > 0 {
            format!(" (replacing {removed} existing directive lines)")
        } else {
            String::new()
        };
        println!(
            "wrote {} from {}: {n} directive lines{rep}",
            dest.display(),
            input.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Scheme number (see `sapfor schemes`).
    #[arg(long, value_name = "ID")]
    pub scheme: i64,
    /// Output file (one input file only). Default: `<stem>.fdv` beside each input.
    #[arg(short = 'o', value_name = "OUT", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Directory for the generated files.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Project database.
    #[arg(long, value_name = "PATH", default_value = "sapfor.db")]
    pub db: PathBuf,
    /// Replace an output that was changed since sapfor wrote it.
    #[arg(long)]
    pub force: bool,
}

pub fn generate(g: GenerateArgs) -> Result<ExitCode> {
    let mut db: Db = open_db(&g.db)?;
    let Some(aid) = db.current_analysis().map_err(|e| anyhow::anyhow!("{e}"))? else {
        bail!(
            "{} holds no analysis: run `sapfor --auto` first",
            g.db.display()
        );
    };
    let schemes = db.schemes(aid).map_err(|e| anyhow::anyhow!("{e}"))?;
    let Some((_, rec)) = schemes.iter().find(|(id, _)| *id == g.scheme) else {
        let ids: Vec<String> = schemes
            .iter()
            .map(|(id, s)| format!("#{id} {}", s.name))
            .collect();
        bail!(
            "no scheme #{} in the current analysis (available: {})",
            g.scheme,
            if ids.is_empty() {
                "none".into()
            } else {
                ids.join(", ")
            }
        );
    };
    let scheme = scheme_from_record(rec)?;
    let (key, files, opts) = crate::commands::stored_inputs(&db, aid)?;
    let Some(now) = input_key(&db, &files, &opts) else {
        bail!("the program's files are no longer readable");
    };
    if now.files != key.files {
        bail!("the program's files changed since the schemes were made: run `sapfor --auto` again");
    }
    let analysis = analyzer::report::analyze(&files, &opts);
    let (written, settled) = plan_program(
        &analysis,
        &scheme,
        g.output.as_deref(),
        g.out_dir.as_deref(),
        Some(&db),
        g.force,
    )?;
    report_settled(&scheme, &settled);
    for (_, dest, _, _, text) in &written {
        store_program(&mut db, g.scheme, dest, text)?;
    }
    write_planned(&written, g.out_dir.as_deref())?;
    for (input, dest, n, _, _) in &written {
        println!(
            "wrote {} from {} with scheme #{} {}: {n} directive lines",
            dest.display(),
            input.display(),
            g.scheme,
            scheme.name
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Fortran-DVMH source files of the program.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Directory searched for INCLUDE files.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Treat all files as fixed form.
    #[arg(long, conflicts_with = "free_form")]
    pub fixed_form: bool,
    /// Treat all files as free form.
    #[arg(long)]
    pub free_form: bool,
}

/// `sapfor verify`: run the actuality checker on Fortran-DVMH files; exit 1 on findings.
pub fn verify(v: VerifyArgs) -> Result<ExitCode> {
    let opts = crate::commands::cli_options(&v.include, v.fixed_form, v.free_form, None)?;
    let analysis = analyzer::report::analyze(&v.files, &opts);
    let prog = &analysis.program;
    let report = json!({"diagnostics": prog.diags.iter().map(|d| serde_json::to_value(d).unwrap_or(Value::Null)).collect::<Vec<_>>()});
    let mut stderr = std::io::stderr().lock();
    let errors = crate::commands::print_json_diagnostics(&report, &mut stderr);
    drop(stderr);
    if errors {
        bail!("the program has errors (see above): not checked");
    }
    let tuples = experts::tuples::check(&analysis);
    let findings = experts::dvmh::check::check(prog);
    for f in tuples.iter().chain(&findings) {
        println!("{f}");
    }
    if findings.is_empty() && tuples.is_empty() {
        println!(
            "ok: every PARALLEL loop is parallel as the analysis sees it, every host read sees actual data and every region's inputs are actual"
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !tuples.is_empty() {
        println!("{} PARALLEL directive problem(s): the loops are not independent as written", tuples.len());
    }
    if !findings.is_empty() {
        println!("{} problem(s) with the data movement", findings.len());
    }
    Ok(ExitCode::from(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use experts::scheme::{Distribution, Format, UnitRef};

    /// The cheapest variant distributes an array the runtime cannot distribute (an
    /// ALLOCATABLE one whose bounds are not constant): `--auto` takes the next cheapest, the
    /// replicated one, and says why.
    #[test]
    fn a_variant_the_runtime_refuses_is_never_chosen() {
        let dir = std::env::temp_dir().join(format!("sapfor-settle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("al.f90");
        std::fs::write(
            &src,
            "program al\n  real, allocatable :: a(:)\n  integer :: i, n\n  n = 100\n  allocate(a(n))\n  do i = 1, 100\n    a(i) = i\n  end do\n  print *, sum(a)\nend program\n",
        )
        .unwrap();
        let analysis = analyzer::report::analyze(&[src.clone()], &Default::default());
        let mut result = schemes_for(&analysis, &MachineModel::default(), Target::Dvm);
        assert_eq!(result.schemes.len(), 1, "only the replicated scheme: {:?}", result.notes);
        let mut bad = result.schemes[0].clone();
        bad.name = "(BLOCK)".into();
        bad.distributions = vec![Distribution {
            at: UnitRef { file: src.display().to_string(), unit: "al".into() },
            array: "a".into(),
            formats: vec![Format::Block],
        }];
        bad.estimate.total = -1.0;
        result.schemes.insert(0, bad);
        result.chosen = 0;
        settle_runnable(&analysis, &mut result).unwrap();
        assert_eq!(result.schemes[result.chosen].name, "replicated");
        let note = result.notes.iter().find(|n| n.contains("variant (BLOCK) is the cheapest but the runtime refuses")).expect("a note");
        assert!(note.contains("al.f90:") && note.contains("ALLOCATABLE") && note.contains("constant bounds"), "{note}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
