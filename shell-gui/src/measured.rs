//! Estimated against measured time per loop: the figures of the scheme a Fortran-DVMH program
//! was generated from, next to what a profiled run (`sapfor run --profile`) measured. The
//! dialog's Run page shows the same; `sapfor run` appends the table to its report when the
//! project database in the program's directory holds the scheme that wrote the files.

use crate::commands::open_db;
use experts::scheme::Scheme;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each loop nest's estimated seconds in `scheme`, by the file (as `name` gives it from the
/// analysis's file name) and line of its outermost DO. Schemes stored before the per-nest
/// figures existed have only notes, which give lines: their file is "" (any file).
pub fn nest_times(scheme: &Scheme, name: &dyn Fn(&str) -> String) -> BTreeMap<(String, u32), f64> {
    let mut out = BTreeMap::new();
    if !scheme.estimate.nests.is_empty() {
        for n in &scheme.estimate.nests {
            *out.entry((name(&n.file), n.line)).or_insert(0.0) += n.seconds;
        }
        return out;
    }
    for n in &scheme.estimate.notes {
        let Some(rest) = n.strip_prefix("loop at line ") else {
            continue;
        };
        let Some((line, rest)) = rest.split_once(':') else {
            continue;
        };
        let nums: Vec<f64> = rest
            .split([',', ' ', '('])
            .filter_map(|w| w.parse::<f64>().ok())
            .collect();
        if let (Ok(line), [c, m, ..]) = (line.trim().parse::<u32>(), nums.as_slice()) {
            *out.entry((String::new(), line)).or_insert(0.0) += c + m;
        }
    }
    out
}

/// The estimate of the nest at `file:line` in `times` (from [`nest_times`]).
pub fn nest_time(times: &BTreeMap<(String, u32), f64>, file: &str, line: u32) -> Option<f64> {
    times
        .get(&(file.to_string(), line))
        .or_else(|| times.get(&(String::new(), line)))
        .copied()
}

/// The estimate of the loop at `file:line` and, where `with` names the loop run as one with
/// it (whose time the measured one includes), of both together.
pub fn pair_time(times: &BTreeMap<(String, u32), f64>, file: &str, line: u32, with: Option<u32>) -> Option<f64> {
    let e = nest_time(times, file, line)?;
    match with {
        Some(l2) => nest_time(times, file, l2).map(|x| e + x),
        None => Some(e),
    }
}

/// For each line of a generated file (index 0 = line 1), the line of `original` it came from:
/// none for the directive lines the generator inserted; `!DVM$` lines of the original that
/// the generator removed (it replaces them) have no generated line.
pub fn line_map(original: &str, g: &generator::GeneratedFile) -> Vec<Option<u32>> {
    let is_dvm = |l: &str| {
        let t = l.trim_start().to_ascii_uppercase();
        (l.len() - l.trim_start().len() == 0 && (t.starts_with("CDVM$") || t.starts_with("*DVM$")))
            || t.starts_with("!DVM$")
    };
    let orig: Vec<&str> = original.lines().collect();
    let mut o = 0;
    let mut out = vec![];
    for (i, _) in g.text.lines().enumerate() {
        if g.inserted.contains(&(i as u32 + 1)) {
            out.push(None);
            continue;
        }
        // (directive lines the generator removed, and lines it wrote anew: an extremum
        // search that records only the index, whose new lines are among the inserted ones)
        while o < orig.len() && ((g.removed > 0 && is_dvm(orig[o])) || g.dropped.contains(&(o as u32 + 1))) {
            o += 1;
        }
        out.push((o < orig.len()).then_some(o as u32 + 1));
        o += 1;
    }
    out
}

/// One parallel loop of a profiled run: the file name of the generated program and the line
/// of its DO, the slowest process's seconds, and the line of the loop run as one with it
/// (its time included), if any.
pub struct Measured {
    pub file: String,
    pub line: u32,
    pub with: Option<u32>,
    pub seconds: f64,
}

/// The table of estimated against measured seconds for a profiled run of `files` on `np`
/// processes, `loops` being the run's parallel loops and `wall` its time; a loop run as one
/// with the next is set against the sum of both estimates. None when no project database
/// (`sapfor.db` in the working directory, else in the first file's) holds a scheme that
/// wrote one of these files as they are.
pub fn table(files: &[PathBuf], loops: &[Measured], wall: f64, np: u32) -> Option<String> {
    let first = files.first()?;
    let dirs = [PathBuf::from("."), first.parent().map(Path::to_path_buf).unwrap_or_default()];
    let db_path = dirs.iter().map(|d| d.join("sapfor.db")).find(|p| p.is_file())?;
    let db = open_db(&db_path).ok()?;
    let aid = db.current_analysis().ok()??;
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| Some((f.file_name()?.to_string_lossy().into_owned(), std::fs::read_to_string(f).ok()?)))
        .collect();
    // the scheme one of whose stored programs is one of these files, as it is now
    let schemes = db.schemes(aid).ok()?;
    let (sid, rec) = schemes.iter().find(|(id, _)| {
        db.artifacts(*id).is_ok_and(|arts| arts.iter().any(|(_, a)| texts.iter().any(|(_, t)| *t == a.text)))
    })?;
    let scheme: Scheme = crate::auto::scheme_from_record(rec).ok()?;
    let (_, inputs, opts) = crate::commands::stored_inputs(&db, aid).ok()?;
    let analysis = analyzer::report::analyze(&inputs, &opts);
    let generated = crate::auto::generate_checked(&analysis, &scheme).ok()?;
    // each generated file run here: its lines back to the original's
    let mut back: BTreeMap<String, (String, Vec<Option<u32>>)> = BTreeMap::new();
    for g in &generated {
        let Some((name, _)) = texts.iter().find(|(_, t)| *t == g.text) else { continue };
        // (a generated file carries the path of the file it was made from)
        let Ok(original) = std::fs::read_to_string(&g.path) else { continue };
        let Some(shown) = analysis.program.map.files.iter().find(|f| f.path == g.path).map(|f| f.display_path()) else { continue };
        back.insert(name.clone(), (shown, line_map(&original, g)));
    }
    let est = nest_times(&scheme, &|f| f.to_string());
    let machine: Option<experts::machine::MachineModel> = serde_json::from_value(rec.machine["model"].clone()).ok();
    let procs = machine.map(|m| m.processes);
    let mut out = format!("estimated against measured (scheme #{sid} {}", scheme.name);
    if let Some(p) = procs {
        out.push_str(&format!(", estimated for {p} process{}", if p == 1 { "" } else { "es" }));
        if p != np {
            out.push_str(&format!("; this run has {np}"));
        }
    }
    out.push_str("):\n");
    out.push_str(&format!("  {:<34} {:>12} {:>12} {:>8}\n", "loop (source line)", "estimated", "measured", "ratio"));
    let (mut sum_e, mut sum_m) = (0.0, 0.0);
    let mut rows = 0;
    for m in loops {
        let secs = &m.seconds;
        let Some((src, map)) = back.get(&m.file) else { continue };
        let Some(Some(at)) = map.get(m.line as usize - 1) else { continue };
        let with = m.with.and_then(|l| *map.get((l as usize).checked_sub(1)?)?);
        let e = pair_time(&est, src, *at, with);
        let place = match with {
            Some(at2) => format!("{src}:{at} and {at2}, as one"),
            None => format!("{src}:{at}"),
        };
        match e {
            Some(e) => {
                sum_e += e;
                sum_m += secs;
                let ratio = if e > 0.0 { format!("{:.2}", secs / e) } else { "-".into() };
                out.push_str(&format!("  {place:<34} {e:>10.6} s {secs:>10.6} s {ratio:>8}\n"));
            }
            None => out.push_str(&format!("  {place:<34} {:>12} {secs:>10.6} s {:>8}\n", "(inside)", "-")),
        }
        rows += 1;
    }
    if rows == 0 {
        return None;
    }
    out.push_str(&format!("  {:<34} {sum_e:>10.6} s {sum_m:>10.6} s\n", "loops above"));
    // (a DVMH scheme's total counts its regions on the accelerator; the loops' figures are
    // the host's)
    let whole = if scheme.regions.iter().any(|r| r.estimate.on_device) { "whole program (regions on the accelerator)" } else { "whole program" };
    out.push_str(&format!("  {whole:<34} {:>10.6} s {wall:>10.6} s\n", scheme.estimate.total));
    Some(out)
}
