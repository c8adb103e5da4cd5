//! Where directives go in the user's file: the end of a unit's specification part, the line of
//! a DO statement, the line of a statement. Positions are lines of the ORIGINAL file.

use crate::GenError;
use analyzer::ast::{Stmt, StmtKind, Unit};
use analyzer::program::Program;
use analyzer::source::{include_target, FileId, SourceForm};
use std::collections::BTreeSet;
use std::path::Path;

/// Where a unit's declaration directives go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeclAnchor {
    /// Insert before this (1-based, original) line; it may be one past the last line.
    pub before: u32,
    /// The line whose indentation the directives copy (free form).
    pub indent_line: u32,
}

/// Statements that belong to the specification part although the analyzer does not model them.
fn spec_like_unsupported(what: &str) -> bool {
    let w = what.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "namelist",
        "enum",
        "import",
        "private",
        "public",
        "protected",
        "volatile",
        "asynchronous",
        "bind",
        "value",
        "intent",
        "optional",
        "allocatable",
        "pointer statement",
        "target",
        "contiguous",
        "interface",
        "common",
        "equivalence",
        "dimension",
        "parameter",
        "implicit",
        "external",
        "intrinsic",
        "save",
        "data",
        "automatic",
        "static",
        "structure",
        "record",
        "include",
    ];
    w.contains("definition") || w.contains("declaration") || WORDS.iter().any(|k| w.starts_with(k))
}

/// An executable statement (ends the specification part).
pub(crate) fn is_exec(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Unsupported { what, .. } => !spec_like_unsupported(what),
        k => k.is_executable(),
    }
}

fn is_spec(s: &Stmt) -> bool {
    !is_exec(s) && !matches!(s.kind, StmtKind::Format)
}

fn fixed_comment(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.is_empty()
        || matches!(line.chars().next(), Some('c' | 'C' | '*' | '!'))
        || (t.starts_with('!') && line.len() - t.len() != 5)
}

fn fixed_continuation(line: &str) -> bool {
    let c: Vec<char> = line.chars().take(6).collect();
    if c.first() == Some(&'\t') {
        return matches!(c.get(1), Some('1'..='9'));
    }
    c.len() == 6 && c[..5].iter().all(|&x| x == ' ') && c[5] != ' ' && c[5] != '0'
}

/// The last line of the statement that starts on `start` (continuation lines followed).
pub(crate) fn statement_end(lines: &[&str], start: u32, fixed: bool) -> u32 {
    let get = |n: u32| lines.get((n as usize).wrapping_sub(1)).copied();
    let mut end = start;
    if fixed {
        let mut n = start + 1;
        while let Some(l) = get(n) {
            if fixed_continuation(l) {
                end = n;
            } else if !fixed_comment(l) {
                break;
            }
            n += 1;
        }
    } else {
        while let Some(l) = get(end) {
            let code = match analyzer::source::comment_start(l) {
                Some(p) => &l[..p],
                None => l,
            };
            if !code.trim_end().ends_with('&') {
                break;
            }
            // The next line that is not blank or a comment continues the statement.
            let mut n = end + 1;
            while get(n).is_some_and(|x| {
                let t = x.trim_start();
                t.is_empty() || t.starts_with('!')
            }) {
                n += 1;
            }
            if get(n).is_none() {
                break;
            }
            end = n;
        }
    }
    end
}

/// INCLUDE lines of a file: (1-based line, the included file it names, if it was read).
fn include_lines(program: &Program, fid: FileId) -> Vec<(u32, Option<FileId>)> {
    let f = program.map.file(fid);
    let lines: Vec<&str> = f.text.lines().collect();
    include_lines_in(program, fid, &lines, 1, lines.len() as u32)
}

/// INCLUDE lines among lines `lo..=hi` (1-based) of a file already split into `lines`.
fn include_lines_in(
    program: &Program,
    fid: FileId,
    lines: &[&str],
    lo: u32,
    hi: u32,
) -> Vec<(u32, Option<FileId>)> {
    let f = program.map.file(fid);
    let dir = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let lo = (lo.max(1) as usize - 1).min(lines.len());
    let hi = (hi as usize).clamp(lo, lines.len());
    lines[lo..hi]
        .iter()
        .enumerate()
        .map(|(i, l)| (i + lo, l))
        .filter_map(|(i, l)| {
            // Fixed form: comment lines are never INCLUDE lines.
            if f.form == SourceForm::Fixed && fixed_comment(l) {
                return None;
            }
            let (name, _) = include_target(l)?;
            let direct = dir.join(&name);
            let files = &program.map.files;
            let target = files
                .iter()
                .position(|g| g.included && g.path == direct)
                .or_else(|| {
                    files
                        .iter()
                        .position(|g| g.included && g.path.ends_with(Path::new(&name)))
                })
                .map(|k| FileId(k as u32));
            Some((i as u32 + 1, target))
        })
        .collect()
}

/// Does INCLUDE file `from` bring in `target` (itself, or through nested INCLUDEs)?
fn reaches(program: &Program, from: FileId, target: FileId) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(f) = stack.pop() {
        if f == target {
            return true;
        }
        if !seen.insert(f) {
            continue;
        }
        stack.extend(include_lines(program, f).into_iter().filter_map(|(_, t)| t));
    }
    false
}

/// The line of the unit's own file where statement `k` sits: its own first line, or for a
/// statement from an INCLUDE file the INCLUDE line that brings it in. Returns (first, last).
fn own_position(
    program: &Program,
    unit: &Unit,
    k: usize,
    includes: &[(u32, Option<FileId>)],
) -> Option<(u32, u32)> {
    let s = &unit.stmts[k];
    if s.span.file == unit.file {
        return Some((s.span.line, s.span.end_line.max(s.span.line)));
    }
    // The last own-file position before this statement.
    let after = unit.stmts[..k]
        .iter()
        .rev()
        .find(|t| t.span.file == unit.file)
        .map_or(unit.span.line, |t| t.span.end_line.max(t.span.line));
    let in_unit = |l: u32| l >= after && l <= unit.end_line.max(unit.span.line);
    includes
        .iter()
        .find(|(l, t)| in_unit(*l) && t.is_some_and(|t| reaches(program, t, s.span.file)))
        .or_else(|| includes.iter().find(|(l, _)| in_unit(*l)))
        .map(|&(l, _)| (l, l))
}

/// Where the DISTRIBUTE/ALIGN/SHADOW directives of a unit go: after its last specification
/// statement (or after the INCLUDE line that brings that statement in), or after its header
/// when it has none; always before its first executable statement.
pub(crate) fn decl_anchor(
    program: &Program,
    unit: &Unit,
    lines: &[&str],
) -> Result<DeclAnchor, GenError> {
    let file = program.map.file(unit.file);
    let path = file.display_path();
    let fixed = file.form == SourceForm::Fixed;
    // Only a unit with statements from INCLUDE files needs its INCLUDE lines.
    let includes = if unit.stmts.iter().any(|t| t.span.file != unit.file) {
        include_lines_in(
            program,
            unit.file,
            lines,
            unit.span.line,
            unit.end_line.max(unit.span.line),
        )
    } else {
        vec![]
    };
    let first_exec = unit.stmts.iter().position(is_exec);
    let spec_end = first_exec.unwrap_or(unit.stmts.len());
    let last_spec = unit.stmts[..spec_end].iter().rposition(is_spec);
    let placement = |line: u32, message: String| GenError::Placement {
        file: path.clone(),
        line,
        message,
    };
    let after = match last_spec {
        Some(k) => {
            own_position(program, unit, k, &includes)
                .ok_or_else(|| {
                    placement(
                        unit.stmts[k].span.line,
                        format!(
                        "cannot find the INCLUDE line of unit `{}` that holds its last declaration",
                        unit.name
                    ),
                    )
                })?
                .1
        }
        None => {
            let first_own = unit.stmts.first().filter(|s| s.span.file == unit.file);
            if first_own.is_some_and(|s| s.span.line <= unit.span.line) {
                // A main program without a PROGRAM statement: no header line.
                unit.span.line.saturating_sub(1)
            } else {
                statement_end(lines, unit.span.line, fixed)
            }
        }
    };
    let exec_pos = first_exec.and_then(|k| own_position(program, unit, k, &includes));
    if let Some((line, _)) = exec_pos {
        if line <= after {
            let where_ = if last_spec.is_some_and(|k| unit.stmts[k].span.file != unit.file) {
                "an INCLUDE file holds both the last declaration and executable statements"
            } else {
                "the first executable statement shares a line with the specification part"
            };
            return Err(placement(
                line,
                format!(
                    "no line between the declarations and the executable statements of unit `{}`: {where_}",
                    unit.name
                ),
            ));
        }
    }
    let indent_line = match (exec_pos, last_spec) {
        (Some((l, _)), _) => l,
        (None, Some(_)) => after,
        (None, None) => unit.end_line.max(after + 1),
    };
    Ok(DeclAnchor {
        before: after + 1,
        indent_line,
    })
}

/// The statements of `unit` (in its own file) that start on `line`, leftmost first.
pub(crate) fn stmts_on_line(unit: &Unit, line: u32) -> Vec<&Stmt> {
    let mut v: Vec<&Stmt> = unit
        .stmts
        .iter()
        .filter(|s| s.span.file == unit.file && s.span.line == line)
        .collect();
    v.sort_by_key(|s| s.span.col);
    v
}
