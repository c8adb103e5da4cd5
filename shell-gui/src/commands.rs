//! The CLI subcommands: analysis (with the project database as a cache and a record),
//! `show`, `refine`, `schemes` and `export`.

use crate::DbArgs;
use analyzer::diag::{self, Location, Severity};
use analyzer::overrides::{LoopRef, Override, REDUCTION_OPS};
use analyzer::program::Options;
use analyzer::source::SourceForm;
use anyhow::{bail, Context, Result};
use database::records::{content_hash, AnalysisKey, AnalysisRecord};
use database::Db;
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// Fortran source files (fixed or free form; detected from extension and content).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Directory searched for INCLUDE files (after the including file's directory).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Print the versioned JSON report instead of the human one.
    #[arg(long)]
    json: bool,
    /// Print an internal representation: cfg, dataflow, loops or deps.
    #[arg(long, value_name = "WHAT", value_parser = ["cfg", "dataflow", "loops", "deps"])]
    dump: Option<String>,
    /// Treat all files as fixed form.
    #[arg(long, conflicts_with = "free_form")]
    fixed_form: bool,
    /// Treat all files as free form.
    #[arg(long)]
    free_form: bool,
    /// Project database to write the results into (its directory is the project root).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "sapfor.db",
        conflicts_with = "no_db"
    )]
    db: PathBuf,
    /// Do not read or write a project database.
    #[arg(long)]
    no_db: bool,
}

#[derive(clap::Subcommand)]
pub enum ShowWhat {
    /// Everything stored about the loop whose DO statement is at FILE:LINE.
    Loop {
        /// FILE:LINE (FILE may be a path suffix, e.g. jac.f:18).
        at: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Subcommand)]
pub enum RefineWhat {
    /// The loop at FILE:LINE has no loop-carried dependence: treat it as parallel.
    Parallel { at: String },
    /// Keep the loop at FILE:LINE sequential.
    Sequential { at: String },
    /// These variables are private in the loop at FILE:LINE.
    Private {
        at: String,
        #[arg(required = true)]
        vars: Vec<String>,
    },
    /// Reductions in the loop at FILE:LINE, as OP:VAR (op: sum product max min and or eqv neqv maxloc minloc).
    Reduction {
        at: String,
        #[arg(required = true)]
        reductions: Vec<String>,
    },
    /// The array must not be distributed.
    NoDistribute { array: String },
    /// Distribute the array this way, e.g. `"(BLOCK,*)"`.
    Distribute { array: String, format: String },
    /// A machine-description parameter: KEY=VALUE.
    Machine { assignment: String },
    /// List the recorded refinements.
    List,
    /// Remove a refinement by its number.
    Remove { id: i64 },
}

pub fn open_db(path: &Path) -> Result<Db> {
    Db::open(path).map_err(|e| anyhow::anyhow!("{e}"))
}

fn form_name(f: Option<SourceForm>) -> &'static str {
    match f {
        Some(SourceForm::Fixed) => "fixed",
        Some(SourceForm::Free) => "free",
        None => "auto",
    }
}

/// The options part of an analysis key: everything besides file contents that changes results.
fn options_key(db: &Db, opts: &Options) -> String {
    json!({
        "tool": env!("CARGO_PKG_VERSION"),
        // (the analysis and expert sources of this build, `build.rs`: a build with other
        // analysis code does not reuse what another stored)
        "build": env!("SAPFOR_ANALYSIS_DIGEST"),
        "include": opts.include_dirs.iter().map(|d| db.relative(&absolute(d))).collect::<Vec<_>>(),
        "form": form_name(opts.force_form),
        "overrides": opts.overrides,
    })
    .to_string()
}

/// A path as the user would write it from the current directory (relative when below it).
pub fn near(p: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) => p
            .strip_prefix(&cwd)
            .map(|r| r.to_path_buf())
            .unwrap_or_else(|_| p.to_path_buf()),
        Err(_) => p.to_path_buf(),
    }
}

pub fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Print diagnostics of a JSON report to standard error; true if any is an error.
pub fn print_json_diagnostics(report: &Value, stderr: &mut impl std::io::Write) -> bool {
    let mut errors = false;
    for d in report["diagnostics"].as_array().into_iter().flatten() {
        let severity = match d["severity"].as_str() {
            Some("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => Severity::Note,
        };
        errors |= severity == Severity::Error;
        let loc = d["location"].as_object().map(|l| Location {
            file: l
                .get("file")
                .and_then(|x| x.as_str())
                .unwrap_or("?")
                .to_string(),
            line: l.get("line").and_then(|x| x.as_u64()).unwrap_or(0) as u32,
            col: l.get("col").and_then(|x| x.as_u64()).unwrap_or(0) as u32,
        });
        let line_text = loc.as_ref().and_then(|l| {
            std::fs::read_to_string(&l.file).ok().and_then(|t| {
                t.lines()
                    .nth(l.line.saturating_sub(1) as usize)
                    .map(|s| s.to_string())
            })
        });
        let notes: Vec<String> = d["notes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(|s| s.to_string()))
            .collect();
        let _ = write!(
            stderr,
            "{}",
            diag::render(
                severity,
                d["code"].as_str().unwrap_or("?"),
                d["message"].as_str().unwrap_or(""),
                loc.as_ref(),
                &notes,
                line_text.as_deref()
            )
        );
    }
    errors
}

fn emit_report(report: &Value, as_json: bool) -> Result<bool> {
    let mut stderr = std::io::stderr().lock();
    let errors = if as_json {
        report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["severity"] == "error")
    } else {
        print_json_diagnostics(report, &mut stderr)
    };
    let text = if as_json {
        serde_json::to_string_pretty(report)? + "\n"
    } else {
        analyzer::report::human_from_json(report)
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing the report")?;
    Ok(errors)
}

/// Analysis options from the command line, with the refinements recorded in the database.
pub fn cli_options(
    include: &[PathBuf],
    fixed_form: bool,
    free_form: bool,
    db: Option<&Db>,
) -> Result<Options> {
    let force_form = if fixed_form {
        Some(SourceForm::Fixed)
    } else if free_form {
        Some(SourceForm::Free)
    } else {
        None
    };
    let overrides = match db {
        Some(db) => db
            .overrides()
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .into_iter()
            .map(|(_, o)| o)
            .collect(),
        None => vec![],
    };
    Ok(Options {
        include_dirs: include.to_vec(),
        force_form,
        overrides,
    })
}

pub fn analyze(a: AnalyzeArgs) -> Result<ExitCode> {
    let db = if a.no_db { None } else { Some(open_db(&a.db)?) };
    let opts = cli_options(&a.include, a.fixed_form, a.free_form, db.as_ref())?;
    // Re-use a stored analysis of exactly these inputs.
    let key = db.as_ref().and_then(|db| input_key(db, &a.files, &opts));
    if let (Some(db), Some(key), None) = (&db, &key, &a.dump) {
        if let Some(id) = db.find_analysis(key).map_err(|e| anyhow::anyhow!("{e}"))? {
            if includes_unchanged(db, id)? {
                let report = db.report_json(id).map_err(|e| anyhow::anyhow!("{e}"))?;
                let errors = emit_report(&report, a.json)?;
                return Ok(if errors {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                });
            }
        }
    }
    let analysis = analyzer::report::analyze(&a.files, &opts);
    let report = analysis.to_json();
    if let Some(what) = &a.dump {
        let mut stderr = std::io::stderr().lock();
        print_json_diagnostics(&report, &mut stderr);
        std::io::stdout()
            .lock()
            .write_all(analysis.dump(what).unwrap_or_default().as_bytes())?;
    } else {
        emit_report(&report, a.json)?;
    }
    if let (Some(mut db), Some(key)) = (db, key) {
        let rec = AnalysisRecord::from_analysis(&analysis, &db);
        db.store_analysis(&key, &rec)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let errors = analysis
        .diagnostics()
        .iter()
        .any(|d| d.severity == Severity::Error);
    Ok(if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The key of the given top-level files (None if one cannot be read: the analysis reports it).
pub fn input_key(db: &Db, files: &[PathBuf], opts: &Options) -> Option<AnalysisKey> {
    let mut v = vec![];
    for f in files {
        let bytes = std::fs::read(f).ok()?;
        v.push((db.relative(&absolute(f)), content_hash(&bytes)));
    }
    Some(AnalysisKey {
        files: v,
        options: options_key(db, opts),
    })
}

/// INCLUDE files of a stored analysis still have the stored contents.
fn includes_unchanged(db: &Db, id: i64) -> Result<bool> {
    for (path, hash, included) in db.analysis_inputs(id).map_err(|e| anyhow::anyhow!("{e}"))? {
        if included {
            match std::fs::read(db.resolve(&path)) {
                Ok(bytes) if content_hash(&bytes) == hash => {}
                _ => return Ok(false),
            }
        }
    }
    Ok(true)
}

pub fn show(what: ShowWhat, dbargs: &DbArgs) -> Result<ExitCode> {
    let ShowWhat::Loop { at, json } = what;
    let at = LoopRef::parse(&at).map_err(|e| anyhow::anyhow!(e))?;
    let db = open_db(&dbargs.db)?;
    let found = db
        .find_loop(&at.file, at.line)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if found.is_empty() {
        bail!("no loop starts at {at} in the stored analysis of {} (run `sapfor analyze` on the program first)", dbargs.db.display());
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(ExitCode::SUCCESS);
    }
    for d in &found {
        let l = serde_json::to_value(&d.loop_)?;
        println!("{}", analyzer::report::human_line(&d.file, &l));
        println!("  unit: {}", d.unit.to_uppercase());
        println!(
            "  lines {}-{}, iterations {}",
            d.loop_.line,
            d.loop_.end_line,
            d.loop_
                .iterations
                .map_or("unknown".into(), |t| t.to_string())
        );
        for dep in &d.loop_.dependences {
            let dist: Vec<String> = dep
                .distance
                .iter()
                .map(|x| x.map_or("*".into(), |v| v.to_string()))
                .collect();
            println!(
                "  dependence: {} {} distance ({}) from line {} to line {}",
                dep.array.to_uppercase(),
                dep.kind,
                dist.join(","),
                dep.source_line,
                dep.sink_line
            );
        }
        if let Some(b) = &d.block {
            println!(
                "  block {} (lines {}):",
                b.num,
                analyzer::cfg::fmt_lines(&b.lines.iter().copied().collect())
            );
            let fmt = |m: &std::collections::BTreeMap<String, String>| {
                m.iter()
                    .map(|(n, s)| {
                        if s.is_empty() {
                            n.to_uppercase()
                        } else {
                            s.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            println!("    writes: {}", fmt(&b.writes));
            println!("    reads: {}", fmt(&b.reads));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_reduction(at: &LoopRef, s: &str) -> Result<Override> {
    let (op, var) = s
        .split_once(':')
        .with_context(|| format!("expected OP:VAR, got `{s}`"))?;
    let op = op.to_ascii_lowercase();
    if !REDUCTION_OPS.contains(&op.as_str()) {
        bail!(
            "unknown reduction operator `{op}` (expected one of: {})",
            REDUCTION_OPS.join(", ")
        );
    }
    check_name(var)?;
    Ok(Override::Reduction {
        at: at.clone(),
        op,
        var: var.to_ascii_lowercase(),
    })
}

pub fn check_name(n: &str) -> Result<()> {
    let ok = n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        bail!("`{n}` is not a Fortran name");
    }
    Ok(())
}

pub fn parse_formats(s: &str) -> Result<Vec<String>> {
    let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
    let v: Vec<String> = inner
        .split(',')
        .map(|x| x.trim().to_ascii_uppercase())
        .collect();
    if v.is_empty() || v.iter().any(|f| f != "BLOCK" && f != "*") {
        bail!("expected a distribution like (BLOCK,*), with BLOCK or * per dimension; got `{s}`");
    }
    Ok(v)
}

pub fn refine(what: RefineWhat, dbargs: &DbArgs) -> Result<ExitCode> {
    let mut db = open_db(&dbargs.db)?;
    let loop_at = |s: &str| LoopRef::parse(s).map_err(|e| anyhow::anyhow!(e));
    let new: Vec<Override> = match what {
        RefineWhat::List => {
            let all = db.overrides().map_err(|e| anyhow::anyhow!("{e}"))?;
            if all.is_empty() {
                println!("no refinements recorded in {}", dbargs.db.display());
            }
            for (id, o) in all {
                println!("#{id}: {o}");
            }
            return Ok(ExitCode::SUCCESS);
        }
        RefineWhat::Remove { id } => {
            if !db.remove_override(id).map_err(|e| anyhow::anyhow!("{e}"))? {
                bail!("no refinement #{id} in {}", dbargs.db.display());
            }
            println!("removed refinement #{id}");
            reanalyze(&mut db, None)?;
            return Ok(ExitCode::SUCCESS);
        }
        RefineWhat::Parallel { at } => vec![Override::Parallel { at: loop_at(&at)? }],
        RefineWhat::Sequential { at } => vec![Override::Sequential { at: loop_at(&at)? }],
        RefineWhat::Private { at, vars } => {
            let at = loop_at(&at)?;
            let mut v = vec![];
            for n in vars {
                check_name(&n)?;
                v.push(Override::Private {
                    at: at.clone(),
                    var: n.to_ascii_lowercase(),
                });
            }
            v
        }
        RefineWhat::Reduction { at, reductions } => {
            let at = loop_at(&at)?;
            reductions
                .iter()
                .map(|r| parse_reduction(&at, r))
                .collect::<Result<_>>()?
        }
        RefineWhat::NoDistribute { array } => {
            check_name(&array)?;
            vec![Override::NoDistribute {
                array: array.to_ascii_lowercase(),
            }]
        }
        RefineWhat::Distribute { array, format } => {
            check_name(&array)?;
            vec![Override::Distribute {
                array: array.to_ascii_lowercase(),
                formats: parse_formats(&format)?,
            }]
        }
        RefineWhat::Machine { assignment } => {
            let (k, v) = assignment
                .split_once('=')
                .with_context(|| format!("expected KEY=VALUE, got `{assignment}`"))?;
            if k.trim().is_empty() || v.trim().is_empty() {
                bail!("expected KEY=VALUE, got `{assignment}`");
            }
            vec![Override::Machine {
                key: k.trim().to_string(),
                value: v.trim().to_string(),
            }]
        }
    };
    let focus = new.first().and_then(|o| o.loop_ref().cloned());
    // the machine and kind of the current schemes: distribution refinements re-run the experts
    // for the same
    let previous = match db.current_analysis().map_err(|e| anyhow::anyhow!("{e}"))? {
        Some(id) => db.schemes(id).map_err(|e| anyhow::anyhow!("{e}"))?,
        None => vec![],
    };
    let mut ids = vec![];
    for o in &new {
        let id = db.add_override(o).map_err(|e| anyhow::anyhow!("{e}"))?;
        println!("recorded refinement #{id}: {o}");
        ids.push(id);
    }
    // only what this command asserted (a refinement recorded earlier keeps its own note)
    let asserted: Vec<String> = new.iter().map(|o| o.to_string()).collect();
    let (notes, current, focus_found) = reanalyze(&mut db, focus.as_ref())?;
    let mut refused: Vec<String> = notes
        .into_iter()
        .filter(|n| asserted.iter().any(|a| n.starts_with(a.as_str())))
        .collect();
    // (a loop refinement at a line where no DO loop starts would be kept and change nothing)
    if let (Some(f), Some(_), false) = (&focus, &current, focus_found) {
        refused.push(format!("there is no DO loop at {f} in the program the project database holds"));
    }
    if refused.is_empty() && new.iter().any(|o| matches!(o, Override::Distribute { .. })) {
        // what the experts make of it: the schemes now distribute the array so, or why not
        let machine = crate::auto::machine_of(&previous).unwrap_or_default();
        let target = crate::auto::target_of(&previous).unwrap_or_default();
        if let Some((aid, analysis)) = current {
            let result = crate::auto::schemes_for(&analysis, &machine, target);
            for n in result.notes.iter().filter(|n| asserted.iter().any(|a| n.starts_with(a.as_str()))) {
                println!("    {n}");
                if n.contains(analyzer::loops::NOT_APPLIED) {
                    refused.push(n.clone());
                }
            }
            if refused.is_empty() {
                crate::auto::store_expert_result(&mut db, aid, &result, &machine)?;
                let names: Vec<&str> = result.schemes.iter().map(|s| s.name.as_str()).collect();
                println!("    applied: the schemes are now {}", names.join(", "));
            }
        }
    }
    if !refused.is_empty() {
        // an assertion the analysis cannot use is not kept: it would look applied
        for id in ids {
            db.remove_override(id).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        reanalyze_stored(&mut db)?;
        bail!("the refinement was not recorded: {}", refused.join("; "));
    }
    Ok(ExitCode::SUCCESS)
}

/// What one refinement did on the re-run that followed it (the dialog shows it; `sapfor
/// refine` prints the same notes).
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// The refinement, as `sapfor refine list` prints it.
    pub refinement: String,
    /// Why the analysis or the experts could not use it (it is then not kept); `None`: applied.
    pub refused: Option<String>,
    /// What it changed, or that it changed nothing.
    pub notes: Vec<String>,
    /// The loop it is about (loop refinements).
    pub at: Option<LoopRef>,
}

/// The effects of the refinements `new` after a re-run: `report` is the new analysis's JSON
/// report; `experts` the experts' notes and the names of the schemes they made, when they ran
/// (distribution and machine refinements need them).
pub fn refinement_effects(
    new: &[Override],
    report: &Value,
    experts: Option<(&[String], &[String])>,
) -> Vec<Effect> {
    let refusal = |notes: &[String]| {
        notes.iter().find_map(|n| {
            n.find(analyzer::loops::NOT_APPLIED)
                .map(|i| n[i + analyzer::loops::NOT_APPLIED.len()..].trim_start_matches(':').trim().to_string())
        })
    };
    new.iter()
        .enumerate()
        .map(|(i, o)| {
            let asserted = o.to_string();
            let mine = |notes: &mut dyn Iterator<Item = &str>| -> Vec<String> {
                notes.filter(|n| n.starts_with(asserted.as_str())).map(str::to_string).collect()
            };
            let (refused, notes) = match o.loop_ref() {
                Some(at) => {
                    let found = report["units"].as_array().into_iter().flatten().find_map(|u| {
                        let file = u["file"].as_str().unwrap_or("?");
                        u["loops"].as_array().into_iter().flatten().find(|l| {
                            l["line"].as_u64() == Some(at.line as u64) && at.matches_file(file)
                        }).map(|l| (file, l))
                    });
                    match found {
                        None => (Some(format!("there is no DO loop at {at}")), vec![]),
                        Some((file, l)) => {
                            let notes = mine(&mut l["overridden_by"].as_array().into_iter().flatten().filter_map(|n| n.as_str()));
                            match refusal(&notes) {
                                Some(why) => (Some(why), notes),
                                None => {
                                    let now = analyzer::report::human_line(file, l);
                                    let first = now.lines().next().unwrap_or("").to_string();
                                    let said = if notes.is_empty() {
                                        format!("changed nothing (the analysis had found this already): {first}")
                                    } else {
                                        format!("now {first}")
                                    };
                                    (None, vec![said])
                                }
                            }
                        }
                    }
                }
                None => match experts {
                    None => (None, vec!["recorded: the experts honour it when they run".to_string()]),
                    Some((notes, schemes)) => {
                        let mut notes = mine(&mut notes.iter().map(String::as_str));
                        match refusal(&notes) {
                            Some(why) => (Some(why), notes),
                            None => {
                                // said once, after the last such refinement of the change
                                if !new[i + 1..].iter().any(|o| o.loop_ref().is_none()) {
                                    notes.push(format!("the schemes are now {}", schemes.join(", ")));
                                }
                                (None, notes)
                            }
                        }
                    }
                },
            };
            Effect { refinement: asserted, refused, notes, at: o.loop_ref().cloned() }
        })
        .collect()
}

/// The inputs of a stored analysis: its key, the top-level files (as the user would name them
/// from here) and the options, with the refinements recorded now.
pub fn stored_inputs(db: &Db, id: i64) -> Result<(AnalysisKey, Vec<PathBuf>, Options)> {
    let key = db.analysis_key(id).map_err(|e| anyhow::anyhow!("{e}"))?;
    let stored: Value = serde_json::from_str(&key.options).unwrap_or(Value::Null);
    let files: Vec<PathBuf> = key
        .files
        .iter()
        .map(|(p, _)| near(&db.resolve(p)))
        .collect();
    let include_dirs: Vec<PathBuf> = stored["include"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str())
        .map(|p| db.resolve(p))
        .collect();
    let force_form = match stored["form"].as_str() {
        Some("fixed") => Some(SourceForm::Fixed),
        Some("free") => Some(SourceForm::Free),
        _ => None,
    };
    let overrides = db
        .overrides()
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .into_iter()
        .map(|(_, o)| o)
        .collect();
    Ok((
        key,
        files,
        Options {
            include_dirs,
            force_form,
            overrides,
        },
    ))
}

/// Re-run the latest stored analysis with the current refinements and store it. Returns the
/// new analysis and its id, or None when the database holds no analysis yet.
pub fn reanalyze_stored(db: &mut Db) -> Result<Option<(i64, analyzer::report::Analysis)>> {
    let Some((id, _)) = db.latest_analysis().map_err(|e| anyhow::anyhow!("{e}"))? else {
        return Ok(None);
    };
    let (_, files, opts) = stored_inputs(db, id)?;
    analyze_and_store(db, &files, &opts).map(Some)
}

/// Analyze `files` and store the analysis (the GUI, `refine`): its id and the analysis. A stored
/// analysis of exactly these inputs (files, INCLUDE files, options, refinements) is made
/// current again instead of storing a copy, so its schemes and programs stay with it.
pub fn analyze_and_store(
    db: &mut Db,
    files: &[PathBuf],
    opts: &Options,
) -> Result<(i64, analyzer::report::Analysis)> {
    let analysis = analyzer::report::analyze(files, opts);
    let Some(new_key) = input_key(db, files, opts) else {
        bail!("the analyzed files are no longer readable; run `sapfor analyze` again");
    };
    if let Some(id) = db
        .find_analysis(&new_key)
        .map_err(|e| anyhow::anyhow!("{e}"))?
    {
        if includes_unchanged(db, id)? {
            db.set_current(id).map_err(|e| anyhow::anyhow!("{e}"))?;
            return Ok((id, analysis));
        }
    }
    let rec = AnalysisRecord::from_analysis(&analysis, db);
    let aid = db
        .store_analysis(&new_key, &rec)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((aid, analysis))
}

/// Re-run the stored analysis with the refinements and print the loops they touch (the loop
/// at `focus`, or every overridden loop); the notes of refinements the analysis could not
/// apply, the new analysis with its id, and whether a loop starts at `focus`.
fn reanalyze(
    db: &mut Db,
    focus: Option<&LoopRef>,
) -> Result<(Vec<String>, Option<(i64, analyzer::report::Analysis)>, bool)> {
    let Some((aid, analysis)) = reanalyze_stored(db)? else {
        println!("(no stored analysis yet: the refinement applies to the next `sapfor analyze`)");
        return Ok((vec![], None, false));
    };
    let mut refused = vec![];
    let mut focus_found = false;
    let report = analysis.to_json();
    for u in report["units"].as_array().into_iter().flatten() {
        let file = u["file"].as_str().unwrap_or("?");
        for l in u["loops"].as_array().into_iter().flatten() {
            let line = l["line"].as_u64().unwrap_or(0) as u32;
            let show = match focus {
                Some(f) => f.line == line && f.matches_file(file),
                None => l["overridden_by"].as_array().is_some_and(|a| !a.is_empty()),
            };
            focus_found |= show && focus.is_some();
            if show {
                println!("{}", analyzer::report::human_line(file, l));
                if focus.is_some() {
                    refused.extend(
                        l["overridden_by"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|n| n.as_str())
                            .filter(|n| n.contains(analyzer::loops::NOT_APPLIED))
                            .map(str::to_string),
                    );
                }
            }
        }
    }
    Ok((refused, Some((aid, analysis)), focus_found))
}

pub fn schemes(as_json: bool, dbargs: &DbArgs) -> Result<ExitCode> {
    let db = open_db(&dbargs.db)?;
    let Some((id, _)) = db.latest_analysis().map_err(|e| anyhow::anyhow!("{e}"))? else {
        bail!(
            "{} holds no analysis yet: run `sapfor analyze` (and the experts) first",
            dbargs.db.display()
        );
    };
    let schemes = db.schemes(id).map_err(|e| anyhow::anyhow!("{e}"))?;
    let rejected = db.rejected(id).map_err(|e| anyhow::anyhow!("{e}"))?;
    if as_json {
        // the schemes, then the rejected variants (`{"rejected": {expert, name, reasons}}`)
        let v: Vec<Value> = schemes
            .iter()
            .map(|(sid, s)| json!({"id": sid, "scheme": s}))
            .chain(rejected.iter().map(|r| json!({"rejected": r})))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    if schemes.is_empty() {
        println!("no schemes yet: the experts (`sapfor --auto`) produce them");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:>4}  {:<8} {:<24} {:>12} {:>12} {:>12} {:>12}",
        "id", "expert", "scheme", "total s", "compute s", "comm s", "transfer s"
    );
    for (sid, s) in &schemes {
        println!(
            "{:>4}{} {:<8} {:<24} {:>12.6} {:>12.6} {:>12.6} {:>12.6}",
            sid,
            if s.chosen { "*" } else { " " },
            s.expert,
            s.name,
            s.total,
            s.cost_computation,
            s.cost_communication,
            s.cost_transfers
        );
        // DVMH schemes: each region with its clauses and estimate.
        let regions: Vec<experts::scheme::Region> = s
            .regions
            .get("regions")
            .and_then(|r| serde_json::from_value(r.clone()).ok())
            .unwrap_or_default();
        for r in &regions {
            println!("        {}", crate::auto::region_line(r));
        }
    }
    println!("(* = chosen)");
    for r in &rejected {
        let reasons = crate::auto::reasons_of(r);
        println!(
            "   -  {:<8} {:<24} rejected: {} reason{}",
            r.expert,
            r.name,
            reasons.len(),
            if reasons.len() == 1 { "" } else { "s" }
        );
        for why in &reasons {
            println!("        {}", why.describe());
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn export(as_json: bool, output: Option<PathBuf>, dbargs: &DbArgs) -> Result<ExitCode> {
    if !as_json {
        bail!("`sapfor export` needs --json (the only export format)");
    }
    let db = open_db(&dbargs.db)?;
    let v = db.export_json().map_err(|e| anyhow::anyhow!("{e}"))?;
    let text = serde_json::to_string_pretty(&v)? + "\n";
    match output {
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
        Some(p) => {
            let mut guard = crate::outputs::Guard::new();
            guard.protect_db(&dbargs.db);
            guard.claim(&p, None)?;
            write_atomically(&p, text.as_bytes())?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write a file through a temporary sibling and a rename, so readers never see half a file
/// and an existing file is only replaced by a complete one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("replacing {}", path.display()))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}
