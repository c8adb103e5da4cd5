//! A whole program: every given file read, parsed, lowered into units, with the semantic model
//! of each unit, directives, interprocedural summaries and all diagnostics.

use crate::access::Summary;
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::directives::{self, Directive};
use crate::interproc::{self, CallGraph};
use crate::sema::{self, UnitSema};
use crate::source::{self, FileId, LoadOptions, SourceForm, SourceMap};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub include_dirs: Vec<PathBuf>,
    pub force_form: Option<SourceForm>,
    /// User refinements from the project database (source hints are read from the files).
    pub overrides: Vec<crate::overrides::Override>,
}

pub struct Program {
    pub map: SourceMap,
    pub units: Vec<Unit>,
    pub semas: Vec<UnitSema>,
    pub summaries: BTreeMap<Name, Summary>,
    /// The summaries when logical COMMON flags that guard calls or I/O skip them
    /// (`interproc::Quiet`).
    pub quiet: crate::interproc::Quiet,
    pub call_graph: CallGraph,
    /// Dummy arrays of subroutines that every call passes the same whole array for
    /// (`interproc::dummy_bindings`): they can inherit its distribution.
    pub bindings: BTreeMap<(usize, Name), crate::interproc::ArrayRoot>,
    /// Arrays given to one bound dummy at different calls (`interproc::Bindings::twins`):
    /// a distribution treats each group alike.
    pub twins: Vec<std::collections::BTreeSet<crate::interproc::ArrayRoot>>,
    /// Bound dummies that are vectors given whole arrays of higher rank
    /// (`interproc::Bindings::reshaped`): (subroutine, dummy).
    pub reshaped: std::collections::BTreeSet<(usize, Name)>,
    /// Each unit's `loops::known_accesses`, made when first asked for (`known_accesses`).
    pub known: Vec<std::sync::OnceLock<crate::interproc::StmtTable>>,
    /// Directives found in every file (including INCLUDE files).
    pub directives: BTreeMap<FileId, Vec<Directive>>,
    pub diags: Vec<Diagnostic>,
    /// C sources given with the program (a mixed program such as NPB's `wtime.c`): not
    /// analyzed; `sapfor build` and `run` compile them with cc and link them in.
    pub foreign: Vec<PathBuf>,
    /// The identifiers of those C sources (lower case): their functions are taken not to touch
    /// Fortran COMMON blocks (`flow::calls_unknown`).
    pub c_idents: BTreeSet<String>,
    /// Where the units lie in their files, to find the unit of a line without scanning every
    /// unit (`unit_at`; programs of thousands of units).
    pub unit_lines: UnitLines,
}

/// The units of each file by their first line: `(first line, last line, unit)` sorted, and the
/// names of the units that contain internal or module procedures.
#[derive(Clone, Debug, Default)]
pub struct UnitLines {
    by_file: BTreeMap<FileId, Vec<(u32, u32, usize)>>,
    hosts: BTreeSet<Name>,
    /// The first unit of each name in each file.
    by_name: std::collections::HashMap<(FileId, Name), usize>,
}

impl UnitLines {
    pub fn new(units: &[Unit]) -> UnitLines {
        let mut by_file: BTreeMap<FileId, Vec<(u32, u32, usize)>> = BTreeMap::new();
        let mut by_name = std::collections::HashMap::new();
        for (i, u) in units.iter().enumerate() {
            by_file.entry(u.file).or_default().push((u.span.line, u.end_line, i));
            by_name.entry((u.file, u.name.clone())).or_insert(i);
        }
        for v in by_file.values_mut() {
            v.sort();
        }
        let hosts = units.iter().filter_map(|u| u.parent.clone()).collect();
        UnitLines { by_file, hosts, by_name }
    }
}

/// Whether `p` names a C source (by its extension): part of a mixed program, not Fortran.
pub fn is_c_source(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "c")
}

impl Program {
    /// The accesses of every statement of unit `ui` as the loop analysis sees them
    /// (`loops::known_accesses`: conditions the code shows to hold discharged), made once.
    pub fn known_accesses(&self, ui: usize) -> &crate::interproc::StmtTable {
        self.known[ui].get_or_init(|| crate::loops::known_accesses(&self.units[ui], &self.semas[ui], &self.summaries))
    }

    /// The innermost unit of `file` whose lines (its first to its last) hold `line`.
    pub fn unit_at(&self, file: FileId, line: u32) -> Option<usize> {
        let v = self.unit_lines.by_file.get(&file)?;
        // units nest or are disjoint: of those starting at or before the line, the last one
        // (in start order) that still holds it is the innermost
        let k = v.partition_point(|(start, _, _)| *start <= line);
        v[..k].iter().rev().find(|(_, end, _)| line <= *end).map(|(_, _, ui)| *ui)
    }
    /// The first unit named `name` (lower case) in `file`.
    pub fn unit_in(&self, file: FileId, name: &str) -> Option<usize> {
        self.unit_lines.by_name.get(&(file, name.to_string())).copied()
    }
    /// Whether unit `name` contains internal or module procedures.
    pub fn is_host(&self, name: &str) -> bool {
        self.unit_lines.hosts.contains(name)
    }
    pub fn unit_by_name(&self, name: &str) -> Option<usize> {
        self.units.iter().position(|u| u.name == name)
    }
    pub fn has_errors(&self) -> bool {
        self.diags
            .iter()
            .any(|d| d.severity == crate::diag::Severity::Error)
    }
}

/// The bounds of ALLOCATABLE array `name` of unit `ui`, when the runtime can lay it out where
/// the program starts: `ui` is the main program, one ALLOCATE statement of it (at the top level
/// of its statements, not inside a DO, IF or a procedure it contains) allocates the array,
/// with constant bounds and without SOURCE= or MOLD=, and nothing asks whether it is
/// allocated (ALLOCATED, MOVE_ALLOC).
/// Such an array has those bounds wherever it is used (`load` gives its symbol them, also
/// in the procedures the program contains): the analysis and the experts treat it as an
/// array of constant bounds, and the runtime lays it out where the program starts (its
/// ALLOCATE then only sets the STAT= variable, its DEALLOCATE does nothing). Err: the
/// condition unmet, as the end of a sentence "... is supported when ...".
pub fn allocated_once(units: &[Unit], semas: &[UnitSema], ui: usize, name: &str) -> Result<Vec<(i64, i64)>, String> {
    let u = &units[ui];
    let sema = &semas[ui];
    if u.kind != UnitKind::Program {
        return Err("it belongs to the main program".into());
    }
    // the main program and the procedures it contains (they see its arrays)
    let scope: Vec<usize> = (0..units.len()).filter(|&k| k == ui || units[k].parent.as_deref() == Some(u.name.as_str())).collect();
    let mut allocs = vec![];
    for &k in &scope {
        for st in &units[k].stmts {
            let own = k == ui || semas[k].is_hosts(name);
            let kind = st.kind.action();
            if let StmtKind::Allocate(items) = kind {
                if own && items.iter().any(|e| matches!(e, Expr::Ref(n, _) | Expr::Var(n) if n == name)) {
                    allocs.push((k, st));
                }
            }
            let mut asked = false;
            for e in sema::stmt_exprs(&st.kind) {
                e.walk(&mut |x| {
                    if let Expr::Ref(f, args) = x {
                        if (f == "allocated" || f == "move_alloc") && args.iter().any(|a| a.expr().and_then(|e| e.base_name()) == Some(name)) {
                            asked = true;
                        }
                    }
                });
            }
            if let StmtKind::Call { name: f, args } = kind {
                if f == "move_alloc" && args.iter().any(|a| a.expr().and_then(|e| e.base_name()) == Some(name)) {
                    asked = true;
                }
            }
            if own && asked {
                return Err(format!("nothing asks whether it is allocated (line {})", st.span.line));
            }
        }
    }
    let [(k, st)] = allocs[..] else {
        return Err(format!("one ALLOCATE statement allocates it (there are {})", allocs.len()));
    };
    let top = k == ui && u.body.iter().any(|n| matches!(n, Node::Stmt(id) if *id == st.id));
    if !top || !matches!(st.kind, StmtKind::Allocate(_)) {
        return Err(format!("its ALLOCATE is a statement of the main program itself, not inside a DO, an IF or a contained procedure (line {})", st.span.line));
    }
    let StmtKind::Allocate(items) = &st.kind else { unreachable!() };
    if items.iter().any(|e| matches!(e, Expr::Opaque(_))) {
        // (the values SOURCE= gives would be lost with the allocation)
        return Err(format!("its ALLOCATE has no SOURCE= or MOLD= (line {})", st.span.line));
    }
    let Some(Expr::Ref(_, dims)) = items.iter().find(|e| matches!(e, Expr::Ref(n, _) if n == name)) else {
        return Err(format!("its ALLOCATE gives its bounds (line {})", st.span.line));
    };
    let int = |e: &Expr| sema.eval_int(e);
    let mut out = vec![];
    for d in dims {
        let b = match d {
            Arg::Expr(h) => int(h).map(|h| (1, h)),
            Arg::Range(Some(l), Some(h), None) => int(l).zip(int(h)),
            _ => None,
        };
        match b {
            Some(b) => out.push(b),
            None => return Err(format!("its ALLOCATE gives constant bounds (line {})", st.span.line)),
        }
    }
    Ok(out)
}

/// Read, parse and model every file. Never panics; problems become diagnostics.
pub fn load(paths: &[PathBuf], opts: &Options) -> Program {
    let mut map = SourceMap::default();
    let mut diags = vec![];
    let mut units: Vec<Unit> = vec![];
    let lopts = LoadOptions {
        include_dirs: &opts.include_dirs,
        force_form: opts.force_form,
    };
    let mut foreign = vec![];
    for p in paths {
        if is_c_source(p) {
            if !p.is_file() {
                diags.push(Diagnostic::error(codes::IO_ERROR, format!("cannot read {}: no such file", p.display()), None));
                continue;
            }
            diags.push(Diagnostic::warning(
                codes::FOREIGN_SOURCE,
                format!(
                    "{} is a C source: it is not analyzed (the Fortran program's calls to its functions are calls of unknown effect); `sapfor build` and `sapfor run` compile it with cc",
                    p.display()
                ),
                None,
            ));
            foreign.push(p.clone());
            continue;
        }
        let Some(buf) = source::load(p, &mut map, &lopts, &mut diags) else {
            continue;
        };
        let lowered = crate::lower::lower(&buf, &map, &mut diags);
        if lowered.units.is_empty() && !diags.iter().any(|d| d.severity == crate::diag::Severity::Error) {
            // nothing to parallelize, and nothing the user can have meant
            diags.push(Diagnostic::error(
                codes::SYNTAX,
                format!("{} holds no program unit (no PROGRAM, SUBROUTINE, FUNCTION, MODULE or BLOCK DATA, and no statements)", p.display()),
                None,
            ));
        }
        units.extend(lowered.units);
    }
    for u in units.iter_mut() {
        crate::lower::structure(u, &map, &mut diags);
    }
    // Duplicate unit names.
    let mut seen: BTreeMap<Name, usize> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        if let Some(&first) = seen.get(&u.name) {
            let f = &units[first];
            diags.push(
                Diagnostic::warning(
                    codes::DUPLICATE_UNIT,
                    format!(
                        "program unit `{}` is defined more than once; the first definition is used",
                        u.name
                    ),
                    Some(map.location(u.span.file, u.span.line, u.span.col)),
                )
                .with_note(format!(
                    "first defined at {}:{}",
                    map.file(f.file).display_path(),
                    f.span.line
                )),
            );
        } else {
            seen.insert(u.name.clone(), i);
        }
    }
    // Semantic model; hosts before their internal procedures (they follow them in `units`).
    let mut semas: Vec<UnitSema> = Vec::with_capacity(units.len());
    for u in &units {
        let host = u
            .parent
            .as_ref()
            .and_then(|p| units.iter().position(|x| &x.name == p))
            .filter(|&h| h < semas.len())
            .map(|h| &semas[h]);
        let s = sema::analyze_unit(u, &map, host, &mut diags);
        semas.push(s);
    }
    // names used from modules of the analyzed files
    for ui in 0..units.len() {
        let mut got: BTreeMap<Name, Name> = BTreeMap::new();
        for st in &units[ui].stmts {
            let StmtKind::Use { module, only } = &st.kind else { continue };
            let Some(mi) = units.iter().position(|x| x.kind == UnitKind::Module && &x.name == module) else {
                continue;
            };
            for (n, sym) in &semas[mi].symbols {
                let listed = only.as_ref().is_none_or(|o| o.contains(n));
                if listed && !sym.external && (sym.is_array() || sym.param.is_none()) {
                    got.insert(n.clone(), module.clone());
                }
            }
        }
        let own = &semas[ui];
        got.retain(|n, _| own.symbols.get(n).is_none_or(|s| !s.explicit_type || s.dims.is_none()));
        semas[ui].module_vars = got;
    }
    // ALLOCATABLE arrays of the main program allocated once with constant bounds
    for ui in (0..units.len()).filter(|&k| units[k].kind == UnitKind::Program) {
        let names: Vec<Name> = semas[ui].symbols.values().filter(|s| s.allocatable && s.is_array()).map(|s| s.name.clone()).collect();
        for n in names {
            let Ok(b) = allocated_once(&units, &semas, ui, &n) else { continue };
            let dims: Vec<sema::Dim> = b
                .iter()
                .map(|&(lo, hi)| sema::Dim { lo: Some(lo), hi: Some(hi), assumed: false, star: false, lo_expr: Some(Expr::Int(lo)), hi_expr: Some(Expr::Int(hi)) })
                .collect();
            let scope: Vec<usize> = (0..units.len()).filter(|&k| k == ui || (units[k].parent.as_deref() == Some(units[ui].name.as_str()) && semas[k].host_assoc.contains(&n))).collect();
            for k in scope {
                if let Some(s) = semas[k].symbols.get_mut(&n) {
                    if s.dims.as_ref().is_some_and(|d| d.len() == dims.len()) {
                        s.dims = Some(dims.clone());
                    }
                }
            }
        }
    }
    let known: BTreeSet<Name> = units.iter().map(|u| u.name.clone()).collect();
    for (u, s) in units.iter().zip(&semas) {
        sema::check_undeclared(u, s, &known, &map, &mut diags);
        sema::check_ranks(u, s, &map, &mut diags);
    }
    // Directives of every file.
    let mut dirs = BTreeMap::new();
    for (i, f) in map.files.iter().enumerate() {
        let lines: Vec<&str> = f.text.lines().collect();
        let mut v = vec![];
        for r in directives::scan(&lines, f.form == SourceForm::Fixed) {
            match r {
                Ok(d) => v.push(d),
                Err(e) => diags.push(Diagnostic::error(
                    codes::BAD_DIRECTIVE,
                    e.message.clone(),
                    Some(map.location(FileId(i as u32), e.line, e.col)),
                )),
            }
        }
        dirs.insert(FileId(i as u32), v);
    }
    let (mut summaries, mut call_graph) = interproc::summarize(&units, &semas);
    // what the program sets once before it is read (`facts`); the procedures' summaries
    // (what they surely write, what they read first) are then made again with it
    let c_idents = crate::flow::c_identifiers(&foreign);
    let facts = crate::facts::common_facts(&units, &semas, &summaries, &c_idents);
    if facts.iter().any(|f| !f.is_empty()) {
        for (s, f) in semas.iter_mut().zip(facts) {
            s.facts = f;
        }
        (summaries, call_graph) = interproc::summarize(&units, &semas);
    }
    // COMMON work arrays procedures fill before reading them with the values the program
    // gives them (NPB FT's SCR in SWARZTRAUBER, `concrete`)
    let owned = crate::concrete::owned_scratch(&units, &semas, &summaries, &call_graph);
    if owned.values().any(|why| why.is_none()) {
        (summaries, call_graph) = interproc::summarize_owning(&units, &semas, &owned);
    } else {
        // (only refutations: they change no summary but for the notes)
        interproc::note_read_first(&mut summaries, &owned);
    }
    let interproc::Bindings { bound: bindings, twins, reshaped } = interproc::dummy_bindings(&units, &semas);
    let shared = interproc::shared_dummies(&units, &semas);
    for (s, shared) in semas.iter_mut().zip(shared) {
        s.shared_dummies = shared;
    }
    let unit_lines = UnitLines::new(&units);
    let n_units = units.len();
    let quiet = interproc::quiet(&units, &semas, &owned);
    Program {
        unit_lines,
        map,
        units,
        semas,
        summaries,
        quiet,
        call_graph,
        bindings,
        twins,
        reshaped,
        known: (0..n_units).map(|_| std::sync::OnceLock::new()).collect(),
        directives: dirs,
        diags,
        foreign,
        c_idents,
    }
}
