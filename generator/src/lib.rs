//! Fortran-DVMH text from a scheme: directive lines inserted into the user's text, every other line byte-identical.
//!
//! [`generate`] takes the analyzed program and a [`Scheme`] and gives, for every top-level
//! (non-INCLUDEd) file of the program, the file's text with:
//! - every existing DVM directive line (`!DVM$`, `CDVM$`, `*DVM$`, with its continuation
//!   lines) removed, so that generating again over generated text gives the same text;
//! - the scheme's directives inserted as comment lines:
//!   `DISTRIBUTE`, then `ALIGN`, then `SHADOW` at the end of each unit's specification part
//!   (after its last specification statement, or after the INCLUDE line that brings that
//!   statement in, or after the header when there is none; always before the first executable
//!   statement); a standalone `REMOTE_ACCESS` before the statement of its line; `PARALLEL`
//!   on the line right before its DO statement.
//!
//! Every other line is kept byte for byte, line endings included (an inserted line takes the
//! line ending most of the file uses). `!$SPF` hints are kept.
//!
//! Directive text is never written by hand: each scheme item becomes an
//! [`analyzer::directives::DirectiveKind`] whose `Display` gives the canonical body, and every
//! laid-out directive is read back with [`analyzer::directives::scan`] and must give the same
//! value ([`GenError::Roundtrip`] otherwise). Fixed form: `CDVM$ ` in columns 1-6, continuation
//! lines `CDVM$*`, nothing past column 72. Free form: `!DVM$ ` indented like the line it
//! precedes, continued with `&` / `!DVM$&` within 132 columns.

mod convert;
pub mod layout;
mod place;

use analyzer::directives::{self, DirectiveKind};
use analyzer::program::Program;
use analyzer::source::{FileId, SourceForm};
use experts::scheme::{Scheme, UnitRef};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use convert::is_fortran_name;
pub use layout::{is_dvm_line, layout_directive};

/// One generated file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedFile {
    /// The source file this text replaces (as the program was loaded with it).
    pub path: PathBuf,
    pub text: String,
    /// 1-based lines of `text` that are inserted directive lines (ascending).
    pub inserted: Vec<u32>,
    /// Existing `!DVM$` directive lines (continuation lines included) removed.
    pub removed: usize,
    /// Lines of the original file written anew (an extremum search that records only the
    /// index, `analyzer::search`): the lines that replace them are among `inserted`.
    #[serde(default)]
    pub dropped: Vec<u32>,
}

/// Why a scheme could not be written into the program. Each names the file (as the scheme
/// gives it, or as the program was loaded) and, where there is one, the line of the original
/// file.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum GenError {
    #[error("the scheme names file `{0}`, which is not a file of the program")]
    UnknownFile(String),
    #[error("the scheme puts directives into `{0}`, which is an INCLUDE file; only the files that include it can be changed")]
    IncludeFile(String),
    #[error("{file}: the scheme names program unit `{unit}`, which is not defined in this file")]
    UnknownUnit { file: String, unit: String },
    #[error("{file}:{line}: the scheme puts a PARALLEL directive here, but no DO statement of the unit starts on this line")]
    NoLoopAt { file: String, line: u32 },
    #[error("{file}:{line}: the scheme puts a REMOTE_ACCESS directive here, but no executable statement of the unit starts on this line")]
    NoStatementAt { file: String, line: u32 },
    #[error("{file}:{line}: `{name}` is not a Fortran name")]
    BadName {
        file: String,
        line: u32,
        name: String,
    },
    #[error("{file}:{line}: {message}")]
    BadScheme {
        file: String,
        line: u32,
        message: String,
    },
    #[error("{file}:{line}: {what}")]
    Duplicate {
        file: String,
        line: u32,
        what: String,
    },
    #[error("{file}:{line}: {message}")]
    Placement {
        file: String,
        line: u32,
        message: String,
    },
    #[error("{file}:{line}: the directive `{text}` does not read back as written: {message}")]
    Roundtrip {
        file: String,
        line: u32,
        text: String,
        message: String,
    },
}

/// Remove the DVM directive lines (`!DVM$`, `CDVM$`, `*DVM$`, continuation lines included)
/// from a text; every other line (including `!$SPF` hints) stays byte-identical. Returns the
/// text and the number of lines removed.
pub fn strip_dvm(text: &str, fixed_form: bool) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut removed = 0;
    for l in layout::split_lines(text) {
        if is_dvm_line(l.content, fixed_form) {
            removed += 1;
        } else {
            out.push_str(l.content);
            out.push_str(l.eol);
        }
    }
    (out, removed)
}

/// One directive to insert into a file.
struct Insertion {
    /// Before this original line (may be one past the last line).
    before: u32,
    /// DISTRIBUTE 0, ALIGN 1, SHADOW 2, END REGION 3, ACTUAL (of the statement before) 4,
    /// GET_ACTUAL 5, ACTUAL (of the statement after) 6, REGION 7, REMOTE_ACCESS 8, PARALLEL 9.
    cat: u8,
    seq: usize,
    kind: DirectiveKind,
    /// Free form: the line whose indentation the directive copies.
    indent_line: u32,
    /// Fortran lines written as they are instead of the directive (a versioned loop's `IF`,
    /// and its `ELSE` branch); `kind` is then not written.
    raw: Vec<String>,
}

/// The unit (index in `program.units`) a scheme item is attached to.
fn resolve(program: &Program, at: &UnitRef) -> Result<usize, GenError> {
    let files = &program.map.files;
    let matches: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.display_path() == at.file)
        .map(|(k, _)| k)
        .collect();
    let matches = if matches.is_empty() {
        files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.path.as_path() == Path::new(&at.file))
            .map(|(k, _)| k)
            .collect()
    } else {
        matches
    };
    let fid = match matches.iter().find(|&&k| !files[k].included) {
        Some(&k) => FileId(k as u32),
        None if matches.is_empty() => return Err(GenError::UnknownFile(at.file.clone())),
        None => return Err(GenError::IncludeFile(at.file.clone())),
    };
    let unit = at.unit.trim().to_ascii_lowercase();
    program.unit_in(fid, &unit).ok_or_else(|| GenError::UnknownUnit {
        file: at.file.clone(),
        unit: at.unit.clone(),
    })
}

/// Write the scheme's directives into the program's text. One entry per top-level
/// (non-INCLUDEd) file of the program, in the order of `program.map.files`; a file the scheme
/// does not touch comes back with its existing DVM directives removed only.
pub fn generate(program: &Program, scheme: &Scheme) -> Result<Vec<GeneratedFile>, GenError> {
    let files = &program.map.files;
    let texts: Vec<Vec<&str>> = files.iter().map(|f| f.text.lines().collect()).collect();
    let mut plan: Vec<Vec<Insertion>> = (0..files.len()).map(|_| Vec::new()).collect();
    let mut anchors: BTreeMap<usize, place::DeclAnchor> = BTreeMap::new();
    let path_of = |ui: usize| files[program.units[ui].file.0 as usize].display_path();

    let mut anchor = |ui: usize| -> Result<place::DeclAnchor, GenError> {
        if let Some(a) = anchors.get(&ui) {
            return Ok(*a);
        }
        let u = &program.units[ui];
        let a = place::decl_anchor(program, u, &texts[u.file.0 as usize])?;
        anchors.insert(ui, a);
        Ok(a)
    };

    // Declarations: one of each per array and unit; an array is distributed or aligned.
    let mut mapped: BTreeMap<(usize, String), &'static str> = BTreeMap::new();
    let mut shadowed: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut decl =
        |ui: usize, array: &str, what: &'static str, line: u32| -> Result<(), GenError> {
            let key = (ui, array.trim().to_ascii_lowercase());
            let unit = &program.units[ui].name;
            let clash = if what == "SHADOW" {
                (!shadowed.insert(key.clone())).then(|| "two SHADOW directives".to_string())
            } else {
                match mapped.get(&key) {
                    Some(&prev) if prev == what => Some(format!("two {what} directives")),
                    Some(&prev) => Some(format!("both {prev} and {what} directives")),
                    None => {
                        mapped.insert(key.clone(), what);
                        None
                    }
                }
            };
            match clash {
                Some(c) => Err(GenError::Duplicate {
                    file: path_of(ui),
                    line,
                    what: format!("array `{}` of unit `{unit}` has {c}", key.1),
                }),
                None => Ok(()),
            }
        };

    // (the value variables of extremum searches first: declarations before the directives)
    let mut dropped = index_searches(program, scheme, &texts, &mut plan, &mut anchor)?;
    // (and the arrays of recurrences computed ahead: the text for each such loop, by its
    // position in the scheme)
    let mut splits: BTreeMap<usize, SplitText> = BTreeMap::new();
    let mut split_names: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for (seq, x) in scheme.loops.iter().enumerate() {
        let Some(sp) = &x.split else { continue };
        let ui = resolve(program, &x.at)?;
        let k = program.units[ui].file.0 as usize;
        let a = anchor(ui)?;
        let text = recurrence(program, ui, x, sp, &texts[k], &path_of(ui), &mut split_names)?;
        plan[k].push(Insertion { before: a.before, cat: 0, seq: 0, kind: DirectiveKind::Spf(vec![]), indent_line: a.indent_line, raw: text.decls.clone() });
        splits.insert(seq, text);
    }

    // TEMPLATE, DISTRIBUTE, ALIGN and SHADOW of a unit go to its declaration anchor, in that
    // order. `$array` names the array each item declares (checked for duplicates); `$seq`
    // orders the items of a category.
    macro_rules! declarations {
        ($items:expr, $cat:expr, $what:expr, $convert:path, $array:expr, $seq:expr) => {
            for (k, x) in $items.iter().enumerate() {
                let ui = resolve(program, &x.at)?;
                let a = anchor(ui)?;
                let path = path_of(ui);
                let at = convert::At {
                    file: &path,
                    line: a.before,
                };
                let kind = $convert(x, at)?;
                if let Some(array) = $array(x) {
                    decl(ui, &array, $what, a.before)?;
                }
                plan[program.units[ui].file.0 as usize].push(Insertion {
                    before: a.before,
                    cat: $cat,
                    seq: $seq(k),
                    kind,
                    indent_line: a.indent_line,
                    raw: vec![],
                });
            }
        };
    }
    // TEMPLATEs first (all seq 0: a template's DISTRIBUTE must come after it); a template is
    // no array of the unit
    declarations!(scheme.templates, 0, "TEMPLATE", convert::template, |_: &experts::scheme::Template| None::<String>, |_| 0);
    declarations!(scheme.distributions, 0, "DISTRIBUTE", convert::distribute, |x: &experts::scheme::Distribution| Some(x.array.clone()), |k| k);
    declarations!(scheme.inherits, 0, "INHERIT", convert::inherit, |x: &experts::scheme::Inherit| Some(x.array.clone()), |k| k);
    declarations!(scheme.alignments, 1, "ALIGN", convert::align, |x: &experts::scheme::Alignment| Some(x.array.clone()), |k| k);
    declarations!(scheme.shadows, 2, "SHADOW", convert::shadow, |x: &experts::scheme::Shadow| Some(x.array.clone()), |k| k);
    declarations!(scheme.owned, 2, "OWNED", convert::owned, |_: &experts::scheme::Owned| None::<String>, |k| 10_000 + k);

    for (seq, x) in scheme.remote.iter().enumerate() {
        let ui = resolve(program, &x.at)?;
        let unit = &program.units[ui];
        let path = path_of(ui);
        let on_line = place::stmts_on_line(unit, x.line);
        match on_line.first() {
            Some(s) if place::is_exec(s) => {}
            _ => {
                return Err(GenError::NoStatementAt {
                    file: path,
                    line: x.line,
                })
            }
        }
        let at = convert::At {
            file: &path,
            line: x.line,
        };
        let kind = convert::remote_access(x, at)?;
        plan[unit.file.0 as usize].push(Insertion {
            before: x.line,
            cat: 8,
            seq,
            kind,
            indent_line: x.line,
            raw: vec![],
        });
    }

    // Regions (those kept on the host are not written) and actualizations.
    for (seq, x) in scheme.regions.iter().enumerate() {
        if !x.estimate.on_device {
            continue;
        }
        let ui = resolve(program, &x.at)?;
        let unit = &program.units[ui];
        let path = path_of(ui);
        let first_ok = place::stmts_on_line(unit, x.first_line)
            .first()
            .is_some_and(|s| place::is_exec(s));
        if !first_ok || x.last_line < x.first_line || x.last_line >= unit.end_line {
            return Err(GenError::Placement {
                file: path,
                line: x.first_line,
                message: format!(
                    "the scheme puts a region on lines {}-{}, which do not hold executable statements of unit `{}`",
                    x.first_line, x.last_line, unit.name
                ),
            });
        }
        let at = convert::At {
            file: &path,
            line: x.first_line,
        };
        let kind = convert::region(x, at)?;
        plan[unit.file.0 as usize].push(Insertion {
            before: x.first_line,
            cat: 7,
            seq,
            kind,
            indent_line: x.first_line,
            raw: vec![],
        });
        plan[unit.file.0 as usize].push(Insertion {
            before: x.last_line + 1,
            cat: 3,
            seq,
            kind: DirectiveKind::EndRegion,
            indent_line: x.first_line,
            raw: vec![],
        });
    }
    for (seq, x) in scheme.actualizations.iter().enumerate() {
        let ui = resolve(program, &x.at)?;
        let unit = &program.units[ui];
        let path = path_of(ui);
        if x.before <= unit.span.line || x.before > unit.end_line {
            return Err(GenError::Placement {
                file: path,
                line: x.before,
                message: format!(
                    "an actualization ({:?} of {} for: {}) outside unit `{}` (lines {}-{})",
                    x.kind,
                    x.vars.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
                    x.reason,
                    unit.name,
                    unit.span.line,
                    unit.end_line
                ),
            });
        }
        let at = convert::At {
            file: &path,
            line: x.before,
        };
        let kind = convert::actualization(x, at)?;
        let cat = match (x.kind, x.late) {
            (experts::scheme::ActualKind::Actual, false) => 4,
            (experts::scheme::ActualKind::GetActual, _) => 5,
            (experts::scheme::ActualKind::Actual, true) => 6,
        };
        plan[unit.file.0 as usize].push(Insertion {
            before: x.before,
            cat,
            seq,
            kind,
            indent_line: x.before,
            raw: vec![],
        });
    }

    let mut loop_lines: BTreeSet<(FileId, u32)> = BTreeSet::new();
    // the DO lines of nests split by statements (one PARALLEL directive per part)
    let mut part_lines: BTreeSet<(FileId, u32)> = BTreeSet::new();
    // the first statements each loop with a recurrence computed ahead gets in its body:
    // (file, before line, lines, the loop's line)
    let mut starts: Vec<(usize, u32, Vec<String>, u32)> = vec![];
    // (file, first line, last line) of each loop written twice
    let mut versioned_ranges: Vec<(usize, u32, u32)> = vec![];
    // labels the ELSE copies of versioned loops took, by unit
    let mut relabelled: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
    for (seq, x) in scheme.loops.iter().enumerate() {
        let ui = resolve(program, &x.at)?;
        let unit = &program.units[ui];
        let path = path_of(ui);
        let on_line = place::stmts_on_line(unit, x.line);
        let is_do = |s: &&analyzer::ast::Stmt| {
            matches!(
                s.kind,
                analyzer::ast::StmtKind::Do { .. } | analyzer::ast::StmtKind::DoWhile { .. }
            )
        };
        match on_line.iter().position(is_do) {
            None => {
                return Err(GenError::NoLoopAt {
                    file: path,
                    line: x.line,
                })
            }
            Some(0) => {}
            Some(_) => {
                return Err(GenError::Placement {
                    file: path,
                    line: x.line,
                    message: "another statement precedes the DO statement on its line".into(),
                })
            }
        }
        let another_part = !x.part.is_empty() && !part_lines.insert((unit.file, x.line)) && loop_lines.contains(&(unit.file, x.line));
        if !loop_lines.insert((unit.file, x.line)) && !another_part {
            return Err(GenError::Duplicate {
                file: path,
                line: x.line,
                what: "two PARALLEL directives for one DO statement".into(),
            });
        }
        let at = convert::At {
            file: &path,
            line: x.line,
        };
        let kind = convert::parallel(x, at)?;
        let split = splits.remove(&seq);
        // lines before and after the loop: `IF (tests) THEN` and the ELSE copy of a versioned
        // loop, and inside them the computation ahead of a recurrence and the restore
        let (mut before, mut after) = if x.when.is_empty() {
            (vec![], vec![])
        } else {
            versioned_ranges.push((unit.file.0 as usize, x.line, x.end_line));
            versioned(program, ui, x, &texts[unit.file.0 as usize], &path, relabelled.entry(ui).or_default())?
        };
        if let Some(sp) = split {
            starts.push((unit.file.0 as usize, sp.first_body_line, sp.start, x.line));
            before.extend(sp.before);
            after.splice(0..0, sp.after);
        }
        if !x.part.is_empty() {
            // the directive, then this part's copy of the nest, where the nest starts (its own
            // lines are dropped)
            let k = unit.file.0 as usize;
            let (copy, last) = fission_copy(program, ui, x, &texts[k], &path, another_part, relabelled.entry(ui).or_default())?;
            versioned_ranges.push((k, x.line, last));
            dropped[k].extend(x.line..=last);
            plan[k].push(Insertion { before: x.line, cat: 9, seq, kind: kind.clone(), indent_line: x.line, raw: vec![] });
            plan[k].push(Insertion { before: x.line, cat: 9, seq, kind, indent_line: x.line, raw: copy });
            continue;
        }
        if !before.is_empty() {
            plan[unit.file.0 as usize].push(Insertion { before: x.line, cat: 8, seq: usize::MAX, kind: kind.clone(), indent_line: x.line, raw: before });
            plan[unit.file.0 as usize].push(Insertion { before: x.end_line + 1, cat: 0, seq: 0, kind: kind.clone(), indent_line: x.line, raw: after });
        }
        plan[unit.file.0 as usize].push(Insertion {
            before: x.line,
            cat: 9,
            seq,
            kind,
            indent_line: x.line,
            raw: vec![],
        });
        // the user's assertions travel with the program (`!$SPF PARALLEL` before each
        // asserted DO statement of the tuple, or only what the user asserted there:
        // `!$SPF ANALYSIS(PRIVATE(SCR))`; unless the source says something already)
        let lines = &texts[unit.file.0 as usize];
        for &l in &x.asserted {
            let said = l >= 2
                && lines.get(l as usize - 2).is_some_and(|t| {
                    let t = t.trim_start().to_ascii_uppercase();
                    t.starts_with("!$SPF") || t.starts_with("C$SPF") || t.starts_with("*$SPF")
                });
            if !said {
                plan[unit.file.0 as usize].push(Insertion {
                    before: l,
                    cat: 10,
                    seq,
                    kind: DirectiveKind::Spf(
                        x.assertions.iter().find(|(m, _)| *m == l).map_or_else(|| vec![analyzer::directives::SpfHint::Parallel], |(_, h)| h.clone()),
                    ),
                    indent_line: l,
                    raw: vec![],
                });
            }
        }
    }

    // the ELSE branch is the loop as it is: nothing else may be written inside it
    for &(k, first, last) in &versioned_ranges {
        if let Some(x) = plan[k].iter().find(|x| x.before > first && x.before <= last) {
            return Err(GenError::Placement {
                file: files[k].display_path(),
                line: x.before,
                message: format!("the scheme puts `{}` inside the loop at line {first}, which the generated program writes more than once (a loop parallel only under run-time tests, or one split by statements)", x.kind),
            });
        }
    }
    // (inside the loop: after the check above, which keeps the ELSE copies as they are)
    for (k, before, raw, line) in starts {
        plan[k].push(Insertion { before, cat: 12, seq: 0, kind: DirectiveKind::Spf(vec![]), indent_line: line, raw });
    }
    let mut out = Vec::new();
    for (k, f) in files.iter().enumerate() {
        if f.included {
            continue;
        }
        let mut list = std::mem::take(&mut plan[k]);
        list.sort_by_key(|x| (x.before, x.cat, x.seq));
        out.push(write_file(
            &f.display_path(),
            &f.path,
            &f.text,
            f.form == SourceForm::Fixed,
            &texts[k],
            &list,
            &dropped[k],
        )?);
    }
    Ok(out)
}

/// The text of one file with its DVM lines removed and `list` (sorted) inserted.
fn write_file(
    display: &str,
    path: &Path,
    text: &str,
    fixed: bool,
    orig: &[&str],
    list: &[Insertion],
    dropped: &BTreeSet<u32>,
) -> Result<GeneratedFile, GenError> {
    let lines = layout::split_lines(text);
    let eol = layout::dominant_eol(&lines);
    let mut g = GeneratedFile {
        path: path.to_path_buf(),
        text: String::with_capacity(text.len() + 80 * list.len()),
        inserted: Vec::new(),
        removed: 0,
        dropped: dropped.iter().copied().collect(),
    };
    let mut out_line: u32 = 0;
    let emit = |g: &mut GeneratedFile, out_line: &mut u32, x: &Insertion| -> Result<(), GenError> {
        if !x.raw.is_empty() {
            if !g.text.is_empty() && !g.text.ends_with('\n') {
                g.text.push_str(eol);
            }
            for l in &x.raw {
                g.text.push_str(l);
                g.text.push_str(eol);
                *out_line += 1;
                g.inserted.push(*out_line);
            }
            return Ok(());
        }
        let indent = if fixed {
            ""
        } else {
            orig.iter()
                .skip((x.indent_line as usize).saturating_sub(1))
                .find(|l| !l.trim().is_empty())
                .map_or("", |l| layout::indentation(l))
        };
        let body = x.kind.to_string();
        let dl = if matches!(x.kind, DirectiveKind::Spf(_)) {
            vec![format!("{}{} {body}", if fixed { "" } else { indent }, if fixed { "C$SPF" } else { "!$SPF" })]
        } else {
            layout_directive(&body, fixed, indent)
        };
        check_roundtrip(&dl, fixed, &x.kind).map_err(|message| GenError::Roundtrip {
            file: display.to_string(),
            line: x.before,
            text: format!("{} {body}", x.kind.sentinel()),
            message,
        })?;
        if !g.text.is_empty() && !g.text.ends_with('\n') {
            // Only when appending past a last line that has no line ending.
            g.text.push_str(eol);
        }
        for l in dl {
            g.text.push_str(&l);
            g.text.push_str(eol);
            *out_line += 1;
            g.inserted.push(*out_line);
        }
        Ok(())
    };
    let mut next = 0;
    for (n, l) in lines.iter().enumerate() {
        let lineno = n as u64 + 1;
        while next < list.len() && u64::from(list[next].before) <= lineno {
            emit(&mut g, &mut out_line, &list[next])?;
            next += 1;
        }
        if is_dvm_line(l.content, fixed) {
            g.removed += 1;
            continue;
        }
        if dropped.contains(&(lineno as u32)) {
            continue;
        }
        g.text.push_str(l.content);
        g.text.push_str(l.eol);
        out_line += 1;
    }
    for x in &list[next..] {
        emit(&mut g, &mut out_line, x)?;
    }
    Ok(g)
}

/// The laid-out lines must read back as exactly one directive equal to `kind`, spanning them all.
fn check_roundtrip(lines: &[String], fixed: bool, kind: &DirectiveKind) -> Result<(), String> {
    let limit = if fixed {
        layout::FIXED_LIMIT
    } else {
        layout::FREE_LIMIT
    };
    if let Some(l) = lines.iter().find(|l| l.chars().count() > limit) {
        return Err(format!("line longer than {limit} columns: {l}"));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let r = directives::scan(&refs, fixed);
    match r.as_slice() {
        [Ok(d)] if d.kind == *kind && d.line == 1 && d.end_line as usize == lines.len() => Ok(()),
        [Ok(d)] => Err(format!("read back as `{}`", d.kind)),
        [Err(e)] => Err(e.to_string()),
        _ => Err(format!("read back as {} directives", r.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_keeps_spf_and_counts_continuations() {
        let t = "      PROGRAM P\r\nCDVM$ PARALLEL (I) ON A(I),\r\nCDVM$*REDUCTION(SUM(S))\r\nC$SPF ANALYSIS(PRIVATE(X))\r\n      END";
        let (s, n) = strip_dvm(t, true);
        assert_eq!(n, 2);
        assert_eq!(
            s,
            "      PROGRAM P\r\nC$SPF ANALYSIS(PRIVATE(X))\r\n      END"
        );
        let t = "x\n  !DVM$ PARALLEL (I) ON A(I), &\n  !DVM$& REDUCTION(SUM(S))\n!$SPF PARALLEL\n";
        let (s, n) = strip_dvm(t, false);
        assert_eq!((s.as_str(), n), ("x\n!$SPF PARALLEL\n", 2));
    }

    #[test]
    fn long_directives_read_back() {
        use analyzer::directives::*;
        let names: Vec<String> = (0..30).map(|k| format!("array_number_{k}")).collect();
        let kind = DirectiveKind::Parallel {
            vars: vec!["j".into(), "i".into()],
            on: Some(ArrayRef {
                name: "a".into(),
                subs: vec![
                    Subscript::Expr(DExpr::Name("i".into())),
                    Subscript::Expr(DExpr::Name("j".into())),
                ],
            }),
            clauses: vec![
                Clause::Private(names.clone()),
                Clause::ShadowRenew(
                    names
                        .iter()
                        .map(|n| ShadowSpec {
                            name: n.clone(),
                            widths: vec![(Some(DExpr::Int(1)), Some(DExpr::Int(2)))],
                            corner: true,
                        })
                        .collect(),
                ),
            ],
        };
        for fixed in [true, false] {
            for indent in ["", "      ", &" ".repeat(120)] {
                let dl = layout_directive(&kind.to_string(), fixed, indent);
                assert!(dl.len() > 3);
                check_roundtrip(&dl, fixed, &kind).unwrap();
            }
        }
    }
}

/// Extremum searches that record only the index (`IF (X(K) .LT. X(M)) M = K`,
/// `analyzer::search`) in the scheme's parallel loops, whose REDUCTION names the value variable
/// the analysis chose (a name the unit does not declare): its declaration at the unit's
/// declaration anchor, `IF (loop runs) SFVM1 = X(M)` before the loop (with REMOTE_ACCESS when
/// X is distributed), and the search written anew with it. Returns, per file, the original
/// lines written anew.
fn index_searches(
    program: &Program,
    scheme: &Scheme,
    texts: &[Vec<&str>],
    plan: &mut [Vec<Insertion>],
    anchor: &mut dyn FnMut(usize) -> Result<place::DeclAnchor, GenError>,
) -> Result<Vec<BTreeSet<u32>>, GenError> {
    let files = &program.map.files;
    let mut dropped: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); files.len()];
    let mut declared: BTreeSet<(usize, String)> = BTreeSet::new();
    let none = || DirectiveKind::Spf(vec![]);
    for x in &scheme.loops {
        let ui = resolve(program, &x.at)?;
        let unit = &program.units[ui];
        let sema = &program.semas[ui];
        if !x.reductions.iter().any(|r| r.var.starts_with("sfv") && r.loc.len() == 1) {
            continue;
        }
        let k = unit.file.0 as usize;
        let path = files[k].display_path();
        let fixed = files[k].form == SourceForm::Fixed;
        let bad = |message: String| GenError::Placement { file: path.clone(), line: x.line, message };
        let Some(header) = place::stmts_on_line(unit, x.line).first().map(|s| s.id) else { continue };
        let Some(node) = analyzer::cfg::node_of(&unit.body, header) else { continue };
        let searches = analyzer::search::index_searches(unit, sema, node);
        let wanted: Vec<&experts::scheme::ReductionSpec> = x.reductions.iter().filter(|r| searches.iter().any(|s| s.value == r.var)).collect();
        if wanted.is_empty() {
            continue;
        }
        if !x.when.is_empty() {
            return Err(bad("the scheme runs this loop in parallel under run-time tests, but an extremum search in it that records only the index is written anew only in a loop that runs in parallel outright".into()));
        }
        let orig = &texts[k];
        let indent_of = |line: u32| -> String {
            let l = orig.get(line as usize - 1).copied().unwrap_or("");
            if fixed {
                l.chars().skip(6).take_while(|c| *c == ' ').collect()
            } else {
                layout::indentation(l).to_string()
            }
        };
        let write = |text: &str, indent: &str, label: Option<u32>| laid_out(text, indent, fixed, label);
        for r in wanted {
            let sr = searches.iter().find(|s| s.value == r.var).expect("wanted");
            let v = sr.value.to_uppercase();
            if declared.insert((ui, sr.value.clone())) {
                let a = anchor(ui)?;
                plan[k].push(Insertion { before: a.before, cat: 0, seq: 0, kind: none(), indent_line: a.indent_line, raw: write(&format!("{} {v}", sr.decl), &indent_of(a.indent_line), None) });
            }
            let ind = indent_of(x.line);
            let mut raw = vec![];
            let distributed = scheme.distributions.iter().map(|d| (&d.at, &d.array)).chain(scheme.alignments.iter().map(|d| (&d.at, &d.array))).chain(scheme.inherits.iter().map(|d| (&d.at, &d.array))).any(|(at, a)| *at == x.at && a.eq_ignore_ascii_case(&sr.array));
            if distributed {
                let di = if fixed { String::new() } else { ind.clone() };
                raw.extend(layout_directive(&format!("REMOTE_ACCESS ({})", sr.best), fixed, &di));
            }
            raw.extend(write(&format!("IF ({}) {v} = {}", sr.runs, sr.best), &ind, None));
            plan[k].push(Insertion { before: x.line, cat: 6, seq: usize::MAX, kind: none(), indent_line: x.line, raw });
            let (first, last) = sr.lines;
            let si = indent_of(first);
            let deeper = format!("{si}   ");
            let mut raw = write(&format!("IF ({}) THEN", sr.test), &si, None);
            raw.extend(write(&format!("{v} = {}", sr.cand), &deeper, None));
            raw.extend(write(&format!("{} = {}", sr.index.to_uppercase(), sr.var.to_uppercase()), &deeper, None));
            raw.extend(write("END IF", &si, None));
            if let Some(l) = sr.label {
                raw.extend(write("CONTINUE", &si, Some(l)));
            }
            plan[k].push(Insertion { before: first, cat: 11, seq: usize::MAX, kind: none(), indent_line: first, raw });
            dropped[k].extend(first..=last);
        }
    }
    Ok(dropped)
}

/// A statement laid out with `indent` (the blanks after column 6 in fixed form) and a label,
/// continued when it does not fit.
fn laid_out(text: &str, indent: &str, fixed: bool, label: Option<u32>) -> Vec<String> {
    let lead = match (fixed, label) {
        (true, Some(l)) => format!("{:>5} {indent}", l),
        (true, None) => format!("      {indent}"),
        (false, Some(l)) => format!("{indent}{l} "),
        (false, None) => indent.to_string(),
    };
    let one = format!("{lead}{text}");
    if one.chars().count() <= if fixed { layout::FIXED_LIMIT } else { layout::FREE_LIMIT } {
        return vec![one];
    }
    let mut v = layout::statement(text, fixed, indent);
    match label {
        Some(l) if fixed => v[0] = format!("{:>5}{}", l, &v[0][5..]),
        Some(l) => v[0] = format!("{l} {}", v[0]),
        None => {}
    }
    v
}

/// What the generator writes for a scalar recurrence computed ahead of parallel loop `x`
/// (`analyzer::loops::Recurrence`).
struct SplitText {
    /// The declarations of the arrays that keep the values each iteration starts from.
    decls: Vec<String>,
    /// Before the loop: the arrays allocated, and the sequential copy of the loop made of the
    /// recurrence's statements, storing the values; the values after the last iteration
    /// stored last.
    before: Vec<String>,
    /// The body's first statements: the scalars set from the arrays, before this line.
    first_body_line: u32,
    start: Vec<String>,
    /// After the loop: the scalars set to their values after the last iteration, the arrays
    /// freed.
    after: Vec<String>,
}

/// The text of a recurrence computed ahead (see `SplitText`). With the loop
/// `DO I3 = 2, E3` and the recurrence `RDUMMY = RANDLC(X0, A2)`:
///
/// ```fortran
///       DOUBLE PRECISION, ALLOCATABLE :: SFRX01(:)
///       ...
///       ALLOCATE (SFRX01(2:MAX(E3,2-1)+1))
///       DO I3 = 2, E3
///          SFRX01(I3) = X0
///          RDUMMY = RANDLC( X0, A2 )
///       END DO
///       SFRX01(MAX(E3,2-1)+1) = X0
/// !DVM$ PARALLEL ... PRIVATE(..., X0, RDUMMY)
///       DO I3 = 2, E3
///          X0 = SFRX01(I3)
///          ...
///       END DO
///       X0 = SFRX01(MAX(E3,2-1)+1)
///       DEALLOCATE (SFRX01)
/// ```
///
/// The recurrence's statements stay in the parallel loop (they update the iteration's own
/// copies). Refused for a labelled recurrence statement, bounds that cannot be written, or a
/// DO statement or first body statement sharing its line.
fn recurrence(program: &Program, ui: usize, x: &experts::scheme::ParallelLoop, sp: &experts::scheme::Split, orig: &[&str], path: &str, names: &mut BTreeMap<usize, BTreeSet<String>>) -> Result<SplitText, GenError> {
    use analyzer::ast::StmtKind;
    let unit = &program.units[ui];
    let sema = &program.semas[ui];
    let fixed = program.map.files[unit.file.0 as usize].form == SourceForm::Fixed;
    let bad = |message: String| GenError::Placement { file: path.to_string(), line: x.line, message: format!("the scheme runs this loop in parallel once a recurrence is computed ahead of it, but {message}") };
    let header = place::stmts_on_line(unit, x.line).first().copied().ok_or_else(|| bad("no DO statement is here".into()))?;
    let StmtKind::Do { var, lo, hi, .. } = &header.kind else { return Err(bad("no DO statement is here".into())) };
    let text = |e: &analyzer::ast::Expr| analyzer::search::expr_text(e).ok_or_else(|| bad(format!("a bound of the loop cannot be written again (line {})", x.line)));
    let (lo, hi, v) = (text(lo)?, text(hi)?, var.to_uppercase());
    let last = format!("MAX({hi},{lo}-1)+1");
    let node = analyzer::cfg::node_of(&unit.body, header.id).ok_or_else(|| bad("no DO loop starts here".into()))?;
    let analyzer::ast::Node::Do { body, .. } = node else { return Err(bad("no DO loop starts here".into())) };
    let first = body.first().and_then(|n| {
        let mut first = None;
        analyzer::ast::for_each_stmt(unit, std::slice::from_ref(n), &mut |st| first = first.or(Some(st)));
        first
    }).ok_or_else(|| bad("its body is empty".into()))?;
    if first.span.file != unit.file {
        return Err(bad("its body starts with lines of an INCLUDE file".into()));
    }
    if unit.shares_a_line(first) || unit.shares_a_line(header) || header.span.end_line >= first.span.line {
        return Err(bad(format!("the DO statement or the first statement of its body shares its line (line {})", first.span.line)));
    }
    let first = first.span.line;
    let indent = |line: u32| -> String {
        let l = orig.get(line as usize - 1).copied().unwrap_or("");
        if fixed {
            l.chars().skip(6).take_while(|c| *c == ' ').collect()
        } else {
            layout::indentation(l).to_string()
        }
    };
    let (outer, inner) = (indent(x.line), indent(first));
    let write = |t: &str, ind: &str| laid_out(t, ind, fixed, None);
    let taken = names.entry(ui).or_default();
    let used: String = unit.stmts.iter().map(|st| format!("{:?}", st.kind)).collect();
    let mut out = SplitText { decls: vec![], before: vec![], first_body_line: first, start: vec![], after: vec![] };
    let mut arrays = vec![];
    for (s, ty) in &sp.vars {
        let a = (1..)
            .map(|n| format!("sfr{s}{n}"))
            .find(|c| sema.symbol(c).is_none() && !used.contains(&format!("\"{c}\"")) && !taken.contains(c))
            .expect("a free name");
        taken.insert(a.clone());
        let (a, s) = (a.to_uppercase(), s.to_uppercase());
        out.decls.extend(write(&format!("{ty}, ALLOCATABLE :: {a}(:)"), &indent(unit.span.line)));
        out.before.extend(write(&format!("ALLOCATE ({a}({lo}:{last}))"), &outer));
        arrays.push((a, s));
    }
    out.before.extend(write(&format!("DO {v} = {lo}, {hi}"), &outer));
    for (a, s) in &arrays {
        out.before.extend(write(&format!("{a}({v}) = {s}"), &inner));
        out.start.extend(write(&format!("{s} = {a}({v})"), &inner));
    }
    for &l in &sp.lines {
        let st = place::stmts_on_line(unit, l).first().copied().ok_or_else(|| bad(format!("no statement is at line {l}")))?;
        if st.label.is_some() || unit.shares_a_line(st) {
            return Err(bad(format!("the recurrence's statement at line {l} has a label, shares its line or comes from an INCLUDE file")));
        }
        for k in st.span.line..=st.span.end_line {
            out.before.push(orig.get(k as usize - 1).copied().unwrap_or("").to_string());
        }
    }
    out.before.extend(write("END DO", &outer));
    for (a, s) in &arrays {
        out.before.extend(write(&format!("{a}({last}) = {s}"), &outer));
        out.after.extend(write(&format!("{s} = {a}({last})"), &outer));
        out.after.extend(write(&format!("DEALLOCATE ({a})"), &outer));
    }
    Ok(out)
}

/// One part's copy of a nest split by statements (`ParallelLoop::part`): the nest's lines
/// without its DVM lines and without the assignments other parts keep, and the nest's last
/// line. The first part keeps the labels; the others' are renumbered (`analyzer::relabel`,
/// `taken` as for versioned loops). Refused unless the nest runs in parallel outright and
/// each span of the part is an assignment inside it.
fn fission_copy(program: &Program, ui: usize, x: &experts::scheme::ParallelLoop, orig: &[&str], path: &str, relabel: bool, taken: &mut BTreeSet<u32>) -> Result<(Vec<String>, u32), GenError> {
    let unit = &program.units[ui];
    let fixed = program.map.files[unit.file.0 as usize].form == SourceForm::Fixed;
    let bad = |message: String| GenError::Placement { file: path.to_string(), line: x.line, message };
    if !x.when.is_empty() || x.split.is_some() {
        return Err(bad("the scheme splits this loop by statements and also runs it under run-time tests or computes a recurrence ahead of it".into()));
    }
    let header = place::stmts_on_line(unit, x.line).first().map(|s| s.id).ok_or_else(|| bad("no DO statement here".into()))?;
    let node = analyzer::cfg::node_of(&unit.body, header).ok_or_else(|| bad("no DO loop starts here".into()))?;
    let mut last = x.line;
    let mut assigns: Vec<(u32, u32)> = vec![];
    analyzer::ast::for_each_stmt(unit, std::slice::from_ref(node), &mut |st| {
        last = last.max(st.span.end_line);
        if matches!(st.kind, analyzer::ast::StmtKind::Assign { .. }) {
            assigns.push((st.span.line, st.span.end_line));
        }
    });
    if let Some((l, _)) = x.part.iter().find(|p| !assigns.contains(p)) {
        return Err(bad(format!("the scheme splits this loop by statements, but no assignment of it spans line {l} to its part's end")));
    }
    let copy = if relabel {
        analyzer::relabel::loop_copy(unit, node, orig, fixed, taken).ok_or_else(|| bad("the scheme splits this loop by statements, but it cannot be written a second time (`analyzer::relabel` refuses it)".into()))?
    } else {
        orig.get(x.line as usize - 1..last as usize).ok_or_else(|| bad("the loop ends past the file".into()))?.iter().map(|l| l.to_string()).collect()
    };
    let left_out = |line: u32| assigns.iter().any(|(f, l)| *f <= line && line <= *l && !x.part.contains(&(*f, *l)));
    let lines = copy.into_iter().zip(x.line..).filter(|(l, at)| !is_dvm_line(l, fixed) && !left_out(*at)).map(|(l, _)| l).collect();
    Ok((lines, last))
}

/// The lines that write loop `x` twice: `IF (tests) THEN` before its directive, and after its
/// last line `ELSE`, the loop's lines (DVM lines left out, the labels its statements define
/// renumbered, `analyzer::relabel`; `taken` holds the labels earlier copies in the unit
/// took), `END IF`. Refused unless `x.end_line` is the loop's last line and the loop can be
/// copied.
fn versioned(program: &Program, ui: usize, x: &experts::scheme::ParallelLoop, orig: &[&str], path: &str, taken: &mut BTreeSet<u32>) -> Result<(Vec<String>, Vec<String>), GenError> {
    let unit = &program.units[ui];
    let fixed = program.map.files[unit.file.0 as usize].form == SourceForm::Fixed;
    let bad = |message: String| GenError::Placement { file: path.to_string(), line: x.line, message };
    let header = place::stmts_on_line(unit, x.line).first().map(|s| s.id).ok_or_else(|| bad("no DO statement here".into()))?;
    let node = analyzer::cfg::node_of(&unit.body, header).ok_or_else(|| bad("no DO loop starts here".into()))?;
    let mut last = x.line;
    analyzer::ast::for_each_stmt(unit, std::slice::from_ref(node), &mut |st| last = last.max(st.span.end_line));
    let copy = analyzer::relabel::loop_copy(unit, node, orig, fixed, taken);
    let Some(copy) = copy.filter(|_| last == x.end_line) else {
        return Err(bad(format!(
            "the scheme runs this loop in parallel under run-time tests, but it {}",
            if last != x.end_line { format!("ends at line {last}, not {}", x.end_line) } else { "cannot be written a second time (`analyzer::relabel` refuses it: lines of an INCLUDE file, a construct name, a jump into it from outside, a line shared by two statements, a label an I/O statement or CALL inside names, or a line the new labels would push past column 72)".to_string() }
        )));
    };
    let indent = if fixed { "      ".to_string() } else { layout::indentation(orig[x.line as usize - 1]).to_string() };
    let cond = x.when.iter().map(|c| format!("({c})")).collect::<Vec<_>>().join(" .AND. ");
    let first = layout::statement(&format!("IF ({cond}) THEN"), fixed, &indent);
    let mut rest = vec![format!("{indent}ELSE")];
    for l in copy {
        if !is_dvm_line(&l, fixed) {
            rest.push(l);
        }
    }
    rest.push(format!("{indent}END IF"));
    Ok((first, rest))
}
