//! Converter: Fortran-DVMH (as read by the analyzer) -> free-form Fortran that calls the
//! sapfor runtime. See docs/runtime.md for the scheme; in short:
//!
//! - every distributed array becomes an allocatable in the generated module `sapfor_data`
//!   (locals renamed per unit, COMMON members removed from their COMMON block in every unit)
//!   allocated with global-index bounds: owned block plus shadow edges;
//! - parallel loops iterate over the owned part of their ON array (DO bounds clipped),
//!   with shadow renewal, ACROSS pipeline steps and reductions around them, and an OpenMP
//!   `PARALLEL DO` for the threads of a process;
//! - outside parallel loops, assignments to distributed elements run on the owner, reads of
//!   distributed elements are broadcast from the owner, I/O runs on process 0 with
//!   distributed arrays gathered (output) or scattered (input) and values read broadcast.
//!
//! Statements are rewritten as text (free form, continuations joined); untouched lines are
//! kept, and `# line "file"` markers keep gfortran's messages on the original positions.

use crate::text;
use analyzer::affine::Lin;
use analyzer::ast::{Expr, IoKind, Node, Stmt, StmtId, StmtKind, Unit, UnitKind};
use analyzer::diag::{codes, Diagnostic};
use analyzer::directives::{
    Clause, DExpr, Directive, DirectiveKind, DistFormat, ReductionOp, ShadowSpec, Subscript,
};
use analyzer::program::Program;
use analyzer::sema::UnitSema;
use analyzer::source::{FileId, SourceForm};
use std::collections::{BTreeMap, BTreeSet};

#[path = "convert_gpu.rs"]
mod gpu;
pub use gpu::strip_regions;
#[path = "convert_tp.rs"]
mod tp;
#[path = "convert_wave.rs"]
mod wave;
#[path = "convert_fuse.rs"]
mod fuse;
#[path = "convert_skew.rs"]
mod skew;
#[path = "convert_swap.rs"]
mod swap;

/// One generated source file.
pub struct OutFile {
    pub name: String,
    pub text: String,
}

pub struct Converted {
    /// In compilation order: runtime interfaces, data module, the program files, then the C
    /// file holding the kernels' text.
    pub files: Vec<OutFile>,
    pub warnings: Vec<Diagnostic>,
    /// What the converter did to loops beyond their directives (loops run as one, nests in
    /// wavefront strips, time loops in blocks of steps): notes `sapfor build --explain` shows.
    pub notes: Vec<Diagnostic>,
    /// The CUDA C text of the kernels of the program's regions (empty without regions).
    pub kernel_source: String,
    /// The generated names of the user's arrays (`sd_<key>`, `sf_<key>`) and the user's own
    /// names: gfortran's run-time messages (bounds checks) are translated back with them.
    pub names: Vec<(String, String)>,
    /// C sources of a mixed program (compiled with cc and linked in as they are).
    pub foreign: Vec<std::path::PathBuf>,
}

#[derive(Clone, Debug)]
enum Mapping {
    /// `DISTRIBUTE`: per dimension true = BLOCK.
    Dist(Vec<bool>),
    /// `ALIGN ... WITH target`: per dimension (target dimension 1-based or 0, offset).
    Align(String, Vec<(i32, i64)>),
    /// `INHERIT`: a dummy argument (at position `pos` of its procedure) that takes the
    /// distribution of its actual argument. `actual` is the key of one of the actual
    /// arguments (every call passes a distributed array of the same bounds and split
    /// dimensions). Its handle `sh_<key>` is set by the caller before each call, and the
    /// dummy is declared with the actual's allocated bounds (`sapfor_alo/ahi`).
    Inherit { actual: String, pos: usize },
}

#[derive(Clone, Debug)]
struct DArray {
    key: String,
    /// Unit name for locals, None for COMMON members.
    unit: Option<String>,
    common: Option<(String, usize)>,
    name: String,
    ty: String,
    bounds: Vec<(i64, i64)>,
    map: Mapping,
    shadow: Vec<(i64, i64)>,
    /// Shadow edges allocated beyond `shadow` (as wide below as above) for the planes that
    /// blocks of time steps compute past a process's own (convert_skew.rs); never renewed
    /// but by them. Empty: none.
    ghosts: Vec<i64>,
    /// Whether a full-size copy is needed (I/O, REMOTE_ACCESS in loops).
    full: bool,
    temps: usize,
    /// Position of the directive, for messages.
    file: FileId,
    line: u32,
    /// For an INHERIT dummy: the keys of every actual argument its calls pass.
    actuals: Vec<String>,
    /// A `TEMPLATE`: an index space with a distribution and no data. Parallel loops map onto
    /// it (`ON T(K)`) and arrays may be aligned with it; it has no storage of its own.
    template: bool,
    /// Declared TARGET by the program (pointers may be associated with it): its storage is
    /// declared TARGET too. Only then: gfortran reloads a TARGET array's bounds and strides
    /// from memory at every reference of a loop that stores to another one (NPB LU's JACLD
    /// took 1.6 times the sequential time at `--np 1`).
    target: bool,
    /// For its `WGT_BLOCK(W, NB)` and `GEN_BLOCK(M)` dimensions: the calls that hand the
    /// runtime W or M before the array is set up (`sapfor_dim_weights`).
    weighted: Vec<String>,
    /// An INHERIT dummy that is a vector given arrays of higher rank (`bounds` are theirs):
    /// its subscripts run over their elements in storage order (`reshaped_check`,
    /// `reshaped_subs`).
    reshaped: bool,
}

impl DArray {
    /// Whether it has storage of its own in `sapfor_data` (`sd_<key>`): not an INHERIT dummy
    /// (the actual argument's) nor a template (none).
    fn own_storage(&self) -> bool {
        !self.template && !matches!(self.map, Mapping::Inherit { .. })
    }
}

struct Cx<'a> {
    p: &'a Program,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    notes: Vec<Diagnostic>,
    arrays: BTreeMap<String, DArray>,
    /// Normalized lines of every file.
    lines: Vec<Vec<String>>,
    /// Edits: replacement of a line (None = blank it), insertions before/after a line.
    replace: BTreeMap<(u32, u32), Option<Vec<String>>>,
    /// Lines holding several statements (`A = B(1); CALL S(I)`): per (file, line), each
    /// statement's column and text, in order (`shared_lines`). A statement of such a line is
    /// read and replaced alone (`seg_replace`, by file, line and column); the line is then
    /// written one statement per line.
    shared: BTreeMap<(u32, u32), Vec<(u32, String)>>,
    seg_replace: BTreeMap<(u32, u32, u32), Vec<String>>,
    /// Lines of statements separated by `;` that cannot be rewritten one by one
    /// (`shared_lines`).
    crowded: BTreeSet<(u32, u32)>,
    before: BTreeMap<(u32, u32), Vec<String>>,
    after: BTreeMap<(u32, u32), Vec<String>>,
    /// Loops over full copies written twice (`emit_file`), by (file, first line): the loop on
    /// the arrays themselves where one process holds them whole, and the loop over the copies.
    versions: BTreeMap<(u32, u32), Version>,
    /// PARALLEL loops run as one (convert_fuse.rs), by (file, the first loop's first line).
    fusions: BTreeMap<(u32, u32), fuse::Fusion>,
    /// Time loops around fused loops run in blocks of steps (convert_skew.rs), by (file, the
    /// time loop's first line).
    skews: BTreeMap<(u32, u32), skew::Skew>,
    /// Per unit: the next label no statement of it defines (`Version::labels`).
    fresh_labels: BTreeMap<usize, u32>,
    /// Per unit and END IF statement: the IF blocks nested into its construct by ELSE IFs
    /// that read distributed elements (`sequential`), each closed there.
    extra_endif: BTreeMap<(usize, analyzer::ast::StmtId), usize>,
    naxes: usize,
    /// Kernels of the parallel loops inside regions (convert_gpu.rs).
    kernels: Vec<crate::kernel::Kernel>,
    /// Scalars of the current unit that may hold a reduction result kept on the accelerator
    /// (convert_gpu.rs, `guarded_scalars`).
    guarded: std::collections::BTreeSet<String>,    /// COMMON slots of every reduction variable of the program, None without regions
    /// (convert_gpu.rs, `reduced_common_slots`).
    reduced_slots: Option<BTreeSet<(String, usize)>>,
    /// Iteration-order mode (`--order`): PARALLEL loops take their indices from
    /// `sapfor_order_index` (runtime/rtlib/src/order.rs).
    order: bool,
    /// The program's regions were left out (a build for the host only).
    host_only: bool,
    /// Sequential statements (unit, statement) whose element reads of these arrays go to the
    /// full copy that `sapfor_fetch` filled before their loop nest (`read_caches`).
    fetched: BTreeMap<(usize, StmtId), BTreeSet<String>>,
    /// The arrays of `fetched` for the statement `sequential` rewrites now.
    fetch_now: BTreeSet<String>,
    /// Sequential statements (unit, statement) of a loop nest that works on the full copies
    /// of these arrays (`copy_nests`): every reference goes to the copy.
    copied: BTreeMap<(usize, StmtId), BTreeSet<String>>,
    /// COMMON blocks private to each thread (convert_tp.rs).
    tp_blocks: BTreeSet<String>,
    /// The directives of each unit (by unit index; see `Program::unit_at`).
    unit_dirs: Vec<Vec<Directive>>,
    /// (unit, array) of each `!$SPF OWNED(array)`: the unit's parallel loops keep each
    /// process's copy of the array instead of merging what they write.
    owned: BTreeSet<(usize, String)>,
    /// Reduction groups (`REDUCTION_GROUP RG`) of each unit: the reductions its loops add
    /// (`REDUCTION(RG: ...)`), combined at `REDUCTION_START RG`.
    red_groups: BTreeMap<(usize, String), RedGroup>,
    /// Task parallelism (`tasks`): the PROCESSORS arrangements and TASK arrays of each unit
    /// (unit, lower-case name), and the PARALLEL directives of loops over tasks (`PARALLEL (I)
    /// ON MB(I)`: file, line), which run as written.
    procs: BTreeSet<(usize, String)>,
    tasks: BTreeSet<(usize, String)>,
    task_loops: BTreeSet<(u32, u32)>,
    /// Whether no OPEN of the program changes how list-directed output looks (RECL=, DELIM=,
    /// DECIMAL=, SIGN=, ROUND=, ENCODING=): `ld_whole`, asked once.
    ld_plain: Option<bool>,
}

/// A reduction group's members (operation code, type code, variable) and the ON array and
/// divided dimensions of the loop that computes them (None: a loop without ON, whose
/// reductions each process computes whole).
#[derive(Default)]
struct RedGroup {
    items: Vec<(i32, i32, String)>,
    on: Option<Option<(String, i32)>>,
}

/// A loop divided on a template over full copies, written twice (`emit_file`): where one
/// process holds every array it copies whole (`sapfor_alone`), it runs on the arrays
/// themselves, which are then the whole arrays, without the copies' traffic; else over the
/// copies. The loop's lines are the copies' (`sf_<array>`); `back` names each copy's array.
struct Version {
    /// The loop's last line (its first is the key of `Cx::versions`).
    last: u32,
    /// The run-time test of the first version.
    cond: String,
    /// The loop's lines before and after it: of the arrays themselves, of the copies.
    direct_pre: Vec<String>,
    direct_post: Vec<String>,
    copy_pre: Vec<String>,
    copy_post: Vec<String>,
    /// (copy, array)
    back: Vec<(String, String)>,
    /// The labels the loop's lines define, and the fresh ones of the first version; how many
    /// DO statements name one (`relabel`).
    labels: BTreeMap<u32, u32>,
    label_dos: usize,
}

/// What a loop over full copies needs to run on the arrays themselves where one process
/// holds them whole (`Version`).
#[derive(Default)]
struct Direct {
    back: Vec<(String, String)>,
    /// the lines of `pre` and `post` that only the copies need
    copy_lines: BTreeSet<String>,
    cond: Vec<String>,
    /// before and after the loop on the arrays: the host's bookkeeping of accelerator copies
    /// (what the copies' fetch and return do)
    touch_pre: Vec<String>,
    touch_post: Vec<String>,
}

impl Direct {
    /// Array `x` (distributed as `key`) of the loop, on itself where one process holds it.
    fn array(&mut self, key: &str, x: &str, written: bool) {
        self.back.push((format!("sf_{key}"), x.to_string()));
        self.cond.push(format!("sapfor_alone(sh_{key}) /= 0"));
        self.touch_pre.push(format!("call sapfor_host_whole(sh_{key}, {x}, 0)"));
        if written {
            self.touch_post.push(format!("call sapfor_host_whole(sh_{key}, {x}, 1)"));
        }
    }
}

/// The OpenMP clauses of a parallel loop.
struct Omp {
    /// the loop's counted work (`sapfor_team`), None: a team always
    work: Option<String>,
    copyin: Vec<String>,
    /// private scalars; private arrays (firstprivate)
    scalars: Vec<String>,
    arrays: Vec<String>,
    /// `reduction(op:var)`
    reds: Vec<String>,
}

impl Omp {
    /// The directive `start` with these clauses.
    fn line(&self, start: &str) -> String {
        let mut omp = start.to_string();
        if let Some(work) = &self.work {
            omp.push_str(&format!(" if(sapfor_team({work}) /= 0)"));
        }
        for c in &self.copyin {
            omp.push_str(&format!(" {c}"));
        }
        if !self.scalars.is_empty() {
            omp.push_str(&format!(" private({})", self.scalars.join(",")));
        }
        if !self.arrays.is_empty() {
            omp.push_str(&format!(" firstprivate({})", self.arrays.join(",")));
        }
        for r in &self.reds {
            omp.push_str(&format!(" {r}"));
        }
        omp
    }
}

/// `SIZE(n)` or `SIZE(n, k)` / `LBOUND(n, k)` (`what`: "size" or "lbound", `dim`: None for
/// the whole array) as Fortran text: a literal where the declared bounds are constants, else
/// the intrinsic, which a unit may hide under a variable of the same name (NPB EP's
/// `character*15 size`): None then.
fn intrinsic_of(sema: &UnitSema, what: &str, n: &str, dim: Option<usize>) -> Option<String> {
    let sym = sema.symbol(n)?;
    let b = sym.bounds();
    let known: Option<Vec<(i64, i64)>> = b.iter().copied().collect();
    if let Some(k) = known.filter(|k| !k.is_empty()) {
        return Some(match (what, dim) {
            ("lbound", Some(d)) => format!("{}", k.get(d - 1)?.0),
            ("size", Some(d)) => format!("{}", k.get(d - 1).map(|x| x.1 - x.0 + 1)?),
            _ => format!("{}_c_int64_t", k.iter().map(|x| (x.1 - x.0 + 1).max(0)).product::<i64>()),
        });
    }
    if sema.symbol(what).is_some() {
        return None;
    }
    Some(match dim {
        Some(d) => format!("{what}({n}, {d})"),
        None => format!("{what}({n}, kind=c_int64_t)"),
    })
}

/// The value of a directive's integer expression, PARAMETER names included.
fn dexpr_int(e: &DExpr, sema: &UnitSema) -> Option<i64> {
    e.eval_int(&|n| sema.param(n).and_then(|c| c.as_int()))
}

impl<'a> Cx<'a> {
    fn err(&mut self, file: FileId, line: u32, msg: impl Into<String>) {
        self.errors.push(Diagnostic::error(
            codes::UNSUPPORTED,
            msg.into(),
            Some(self.p.map.location(file, line, 1)),
        ));
    }
    fn warn(&mut self, file: FileId, line: u32, msg: impl Into<String>) {
        self.warnings.push(Diagnostic::warning(
            codes::UNSUPPORTED,
            msg.into(),
            Some(self.p.map.location(file, line, 1)),
        ));
    }
    /// A note on what the converter did at `line` of `file` (`sapfor build --explain`).
    fn note(&mut self, file: FileId, line: u32, msg: impl Into<String>) {
        self.notes.push(Diagnostic::note(codes::TRANSFORMED, msg.into(), Some(self.p.map.location(file, line, 1))));
    }
    /// The statement's own text on a line it shares with others.
    fn segment(&self, s: &Stmt) -> Option<&String> {
        let g = self.shared.get(&(s.span.file.0, s.span.line))?;
        g.iter().find(|(c, _)| *c == s.span.col).map(|(_, t)| t)
    }
    fn stmt_text(&self, s: &Stmt) -> String {
        if let Some(t) = self.segment(s) {
            return t.clone();
        }
        let f = &self.lines[s.span.file.0 as usize];
        let lo = s.span.line as usize - 1;
        let hi = (s.span.end_line as usize).min(f.len());
        let ls: Vec<&str> = f[lo..hi].iter().map(|x| x.as_str()).collect();
        text::join(&ls)
    }
    /// The text of statement `s` as rewritten so far: its replacement lines, or its own text.
    fn current_lines(&self, s: &Stmt) -> Vec<String> {
        if self.segment(s).is_some() {
            return self.seg_replace.get(&(s.span.file.0, s.span.line, s.span.col)).cloned().unwrap_or_else(|| vec![self.stmt_text(s)]);
        }
        match self.replace.get(&(s.span.file.0, s.span.line)) {
            Some(Some(v)) => v.clone(),
            _ => vec![self.stmt_text(s)],
        }
    }
    /// Replace the lines of statement `s` by `new` (first line) and blanks.
    fn replace_stmt(&mut self, s: &Stmt, new: Vec<String>) {
        let f = s.span.file.0;
        if self.segment(s).is_some() {
            self.seg_replace.insert((f, s.span.line, s.span.col), new);
            return;
        }
        if self.crowded.contains(&(f, s.span.line)) {
            // rewriting the line would lose the other statements on it
            self.err(s.span.file, s.span.line, "this line holds several statements separated by `;`, one of which continues on the next line, and the runtime must rewrite one of them: put that statement on a line of its own");
            return;
        }
        self.replace.insert((f, s.span.line), Some(new));
        for l in s.span.line + 1..=s.span.end_line {
            self.replace.insert((f, l), None);
        }
    }
    fn src(&self, file: FileId, line: u32) -> i64 {
        (file.0 as i64 + 1) * 1_000_000 + line as i64
    }
}


/// `var`, `var + c`, `var - c`, `c + var`: the offset c.
fn var_offset(e: &DExpr, var: &str, sema: &UnitSema) -> Option<i64> {
    use analyzer::directives::BinOp::*;
    match e {
        DExpr::Name(n) if n.eq_ignore_ascii_case(var) => Some(0),
        DExpr::Bin(a, Add, b) => match (&**a, &**b) {
            (DExpr::Name(n), c) if n.eq_ignore_ascii_case(var) => dexpr_int(c, sema),
            (c, DExpr::Name(n)) if n.eq_ignore_ascii_case(var) => dexpr_int(c, sema),
            _ => None,
        },
        DExpr::Bin(a, Sub, b) => match &**a {
            DExpr::Name(n) if n.eq_ignore_ascii_case(var) => dexpr_int(b, sema).map(|v| -v),
            _ => None,
        },
        _ => None,
    }
}

fn mentions(e: &DExpr, var: &str) -> bool {
    match e {
        DExpr::Name(n) => n.eq_ignore_ascii_case(var),
        DExpr::Neg(x) => mentions(x, var),
        DExpr::Bin(a, _, b) => mentions(a, var) || mentions(b, var),
        DExpr::Call(_, xs) => xs.iter().any(|x| mentions(x, var)),
        DExpr::Int(_) => false,
    }
}

fn type_code(ty: &analyzer::ast::TypeSpec) -> Option<i32> {
    use analyzer::ast::BaseType::*;
    match (&ty.base, ty.kind) {
        (Integer, None | Some(4)) => Some(1),
        (Integer, Some(8)) => Some(2),
        (Real, None | Some(4)) => Some(3),
        (Real, Some(8)) | (DoublePrecision, _) => Some(4),
        (Logical, None | Some(4)) => Some(5),
        _ => None,
    }
}

/// `type_code` for a reduction of operation `op` (`red_op`): COMPLEX (6) and DOUBLE COMPLEX
/// (7) too, in a SUM or a PRODUCT (NPB FT's checksum `CSUM = CSUM + U(II,JI,KI)`).
fn red_type_code(ty: &analyzer::ast::TypeSpec, op: i32) -> Option<i32> {
    use analyzer::ast::BaseType::*;
    match (&ty.base, ty.kind) {
        (Complex, None | Some(4)) if op <= 2 => Some(6),
        (Complex, Some(8)) | (DoubleComplex, _) if op <= 2 => Some(7),
        _ => type_code(ty),
    }
}

fn i64list(v: &[i64]) -> String {
    format!(
        "[integer(c_int64_t) :: {}]",
        v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
    )
}

/// What the statements of unit `ui` read and write (through calls too, by the summaries).
fn access_ctx(p: &Program, ui: usize) -> analyzer::access::AccessCtx<'_> {
    analyzer::access::AccessCtx {
        unit: &p.units[ui],
        sema: &p.semas[ui],
        summaries: &p.summaries,
    }
}

/// A variable that holds one value at a time and nothing else can reach: not an array, a
/// PARAMETER, a pointer, in an EQUIVALENCE, or EXTERNAL.
fn plain_scalar(sema: &UnitSema, v: &str) -> bool {
    sema.symbol(v)
        .is_some_and(|s| !s.is_array() && s.param.is_none() && !s.pointer && s.aliases.is_empty() && !s.external)
}

/// What loop nest `n` of unit `ui` does: the names it may change (DO variables included, and
/// what the procedures it calls change), every access of its statements, and whether it
/// calls a procedure whose effects are unknown.
struct NestAccesses {
    written: BTreeSet<String>,
    accesses: Vec<analyzer::access::Access>,
    unknown_calls: bool,
}

fn nest_accesses(p: &Program, ui: usize, n: &Node) -> NestAccesses {
    let acc = access_ctx(p, ui);
    let mut out = NestAccesses {
        written: BTreeSet::new(),
        accesses: vec![],
        unknown_calls: false,
    };
    analyzer::ast::for_each_stmt(&p.units[ui], std::slice::from_ref(n), &mut |st| {
        let (mut a, mut calls) = (vec![], vec![]);
        acc.stmt_accesses(st, &mut a, &mut calls);
        out.unknown_calls |= unknown_effects(p, &calls);
        out.written.extend(a.iter().filter(|x| x.write).map(|x| x.name.clone()));
        out.accesses.extend(a);
    });
    out
}

fn last_line(u: &Unit, n: &Node) -> u32 {
    match n {
        Node::Stmt(id) => u.stmt(*id).span.end_line,
        Node::Do { header, body, end } => match end {
            Some(e) => u.stmt(*e).span.end_line,
            None => body
                .last()
                .map(|b| last_line(u, b))
                .unwrap_or(u.stmt(*header).span.end_line),
        },
        Node::If { arms, end } => match end {
            Some(e) => u.stmt(*e).span.end_line,
            None => arms.last().map(|a| u.stmt(a.0).span.end_line).unwrap_or(0),
        },
    }
}

fn collect_stmts(u: &Unit, n: &Node, out: &mut BTreeSet<StmtId>) {
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |s| {
        out.insert(s.id);
        if let StmtKind::LogicalIf(_, inner) = &s.kind {
            out.insert(inner.id);
        }
    });
}

/// All DO nodes of a node list, outermost first.
fn all_dos<'b>(nodes: &'b [Node], out: &mut Vec<&'b Node>) {
    for n in nodes {
        match n {
            Node::Do { body, .. } => {
                out.push(n);
                all_dos(body, out);
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    all_dos(b, out);
                }
            }
            Node::Stmt(_) => {}
        }
    }
}

/// Convert a whole program. Errors: diagnostics naming file:line.
pub fn convert(p: &Program) -> Result<Converted, Vec<Diagnostic>> {
    convert_with(p, false, false)
}

/// Convert a whole program; `order`: every PARALLEL loop (but ACROSS and MAXLOC/MINLOC
/// loops, whose order is part of their meaning) runs its iterations in the order the
/// runtime chooses at start-up (`SAPFOR_ORDER`: in order, reverse, shuffled);
/// `host_only`: the program's regions were left out (`gpu::strip_regions`), and the
/// executable says so when SAPFOR_DEVICES names an accelerator.
pub fn convert_with(p: &Program, order: bool, host_only: bool) -> Result<Converted, Vec<Diagnostic>> {
    let lines: Vec<Vec<String>> = p
        .map
        .files
        .iter()
        .map(|f| {
            let ls: Vec<&str> = f.text.lines().collect();
            match f.form {
                // free form from here on: blanks inside tokens (`. eq.`, `0.5E - 7`) go
                SourceForm::Fixed => analyzer::source::normalize_fixed(&ls)
                    .iter()
                    .map(|l| analyzer::source::squeeze_fixed_blanks(l))
                    .collect(),
                SourceForm::Free => ls.iter().map(|l| l.to_string()).collect(),
            }
        })
        .collect();
    let mut cx = Cx {
        p,
        errors: vec![],
        warnings: vec![],
        notes: vec![],
        arrays: BTreeMap::new(),
        lines,
        replace: BTreeMap::new(),
        shared: BTreeMap::new(),
        seg_replace: BTreeMap::new(),
        crowded: BTreeSet::new(),
        before: BTreeMap::new(),
        after: BTreeMap::new(),
        versions: BTreeMap::new(),
        fusions: BTreeMap::new(),
        skews: BTreeMap::new(),
        fresh_labels: BTreeMap::new(),
        extra_endif: BTreeMap::new(),
        naxes: 0,
        kernels: vec![],
        guarded: Default::default(),
        reduced_slots: gpu::reduced_common_slots(p),
        order,
        host_only,
        fetched: BTreeMap::new(),
        fetch_now: BTreeSet::new(),
        copied: BTreeMap::new(),
        tp_blocks: BTreeSet::new(),
        unit_dirs: vec![vec![]; p.units.len()],
        owned: BTreeSet::new(),
        red_groups: BTreeMap::new(),
        procs: BTreeSet::new(),
        tasks: BTreeSet::new(),
        task_loops: BTreeSet::new(),
        ld_plain: None,
    };
    (cx.shared, cx.crowded) = shared_lines(p, &cx.lines);
    tasks(&mut cx);
    for (fid, ds) in &p.directives {
        for d in ds {
            if let Some(ui) = p.unit_at(*fid, d.line) {
                if !cx.task_loops.contains(&(fid.0, d.line)) {
                    cx.unit_dirs[ui].push(d.clone());
                }
            }
        }
    }
    if p.has_errors() {
        return Err(p
            .diags
            .iter()
            .filter(|d| d.severity == analyzer::diag::Severity::Error)
            .cloned()
            .collect());
    }
    declarations(&mut cx);
    if cx.errors.is_empty() {
        tp::plan(&mut cx);
    }
    if cx.errors.is_empty() {
        for ui in 0..p.units.len() {
            unit(&mut cx, ui);
        }
    }
    if !cx.errors.is_empty() {
        return Err(cx.errors);
    }
    let mut files = vec![
        OutFile { name: "sapfor_rt.f90".into(), text: crate::fortran::RT_MODULE.to_string() },
        OutFile { name: "sapfor_data.f90".into(), text: data_module(&cx) },
    ];
    // the DVM system's timer, where the program has no procedure of that name
    if !p.units.iter().any(|u| u.name.eq_ignore_ascii_case("dvtime")) {
        files.push(OutFile { name: "sapfor_dvm.f90".into(), text: crate::fortran::DVTIME.to_string() });
    }
    // (a user's file of a generated file's name gets another: `sapfor_rt_2.f90`)
    let mut used_names: BTreeSet<String> = files.iter().map(|f| f.name.clone()).collect();
    for (i, f) in p.map.files.iter().enumerate() {
        if f.included {
            continue;
        }
        let stem = f
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| format!("file{i}"));
        let mut name = format!("{stem}.f90");
        let mut k = 1;
        while !used_names.insert(name.clone()) {
            k += 1;
            name = format!("{stem}_{k}.f90");
        }
        let mut out = String::new();
        emit_file(&cx, FileId(i as u32), &mut out, &mut vec![]);
        files.push(OutFile { name, text: out });
    }
    let kernel_source = gpu::kernel_source(&cx.kernels);
    files.push(OutFile { name: "sapfor_kernels.c".into(), text: gpu::kernels_file(&kernel_source) });
    let names = cx
        .arrays
        .values()
        .flat_map(|a| {
            let user = a.name.to_ascii_lowercase();
            [(format!("sd_{}", a.key), user.clone()), (format!("sf_{}", a.key), user)]
        })
        .collect();
    // (the notes in the order of the program's files and lines)
    let mut notes = cx.notes;
    notes.sort_by(|a, b| a.location.as_ref().map(|l| (&l.file, l.line)).cmp(&b.location.as_ref().map(|l| (&l.file, l.line))));
    Ok(Converted { files, warnings: cx.warnings, notes, kernel_source, names, foreign: p.foreign.clone() })
}

/// Lines holding several statements separated by `;` (each statement on one line): per
/// (file, line), each statement's column and its text (the line split at `;` outside
/// parentheses and strings, empty parts left out). Second: the lines whose statements are
/// separated by `;` but cannot be split so (one continues on the next line): a statement there
/// is not rewritten (`replace_stmt` refuses it), since its line holds others too.
#[allow(clippy::type_complexity)]
fn shared_lines(p: &Program, lines: &[Vec<String>]) -> (BTreeMap<(u32, u32), Vec<(u32, String)>>, BTreeSet<(u32, u32)>) {
    let mut on: BTreeMap<(u32, u32), Vec<(u32, bool)>> = BTreeMap::new();
    for u in &p.units {
        for st in &u.stmts {
            on.entry((st.span.file.0, st.span.line)).or_default().push((st.span.col, st.span.end_line == st.span.line));
        }
    }
    let mut out = BTreeMap::new();
    let mut crowded = BTreeSet::new();
    for ((f, l), mut g) in on {
        g.sort();
        g.dedup();
        if g.len() < 2 {
            continue;
        }
        let Some(text) = lines.get(f as usize).and_then(|ls| ls.get(l as usize - 1)) else { continue };
        let code = match analyzer::source::comment_start(text) {
            Some(k) => &text[..k],
            None => text.as_str(),
        };
        let parts: Vec<String> = text::split_top(code, ';').into_iter().map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
        if parts.len() < 2 {
            continue;
        }
        if parts.len() != g.len() || g.iter().any(|(_, single)| !single) {
            crowded.insert((f, l));
            continue;
        }
        out.insert((f, l), g.iter().map(|x| x.0).zip(parts).collect());
    }
    (out, crowded)
}

/// Write file `id` with its edits, inlining INCLUDE files (their form may differ).
fn emit_file(cx: &Cx, id: FileId, out: &mut String, stack: &mut Vec<u32>) {
    stack.push(id.0);
    marker(cx, id, out, 1);
    let n = cx.lines[id.0 as usize].len() as u32;
    emit_lines(cx, id, 1, n, out, stack, true);
    stack.pop();
}

/// Write lines `a..=b` of file `id` with their edits, without what is added before `a` and
/// after `b` (a time loop written twice, convert_skew.rs).
fn emit_range_inner(cx: &Cx, id: FileId, a: u32, b: u32, out: &mut String, stack: &mut Vec<u32>) {
    let mut synced = false;
    if a == b {
        emit_line(cx, id, a, out, stack, &mut synced, true, true);
        return;
    }
    emit_line(cx, id, a, out, stack, &mut synced, true, false);
    if a + 1 < b {
        emit_lines(cx, id, a + 1, b - 1, out, stack, synced);
    }
    let mut synced = false;
    emit_line(cx, id, b, out, stack, &mut synced, false, true);
}

/// Write lines `a..=b` of file `id` with their edits and what is added around each, time
/// loops in blocks, fused loops and loops over full copies as such (`synced`: whether the
/// output is in step with the source).
fn emit_lines(cx: &Cx, id: FileId, a: u32, b: u32, out: &mut String, stack: &mut Vec<u32>, mut synced: bool) {
    let lines = &cx.lines[id.0 as usize];
    let mut i = a as usize - 1;
    while i < (b as usize).min(lines.len()) {
        let ln = i as u32 + 1;
        let key = (id.0, ln);
        if let Some(s) = cx.skews.get(&key) {
            skew::emit(cx, id, ln, s, out, stack);
            synced = false;
            i = s.last as usize;
            continue;
        }
        if let Some(f) = cx.fusions.get(&key) {
            fuse::emit(cx, id, ln, f, out, stack);
            synced = false;
            i = f.last as usize;
            continue;
        }
        if let Some(v) = cx.versions.get(&key) {
            // a loop over full copies, twice: on the arrays themselves where one process
            // holds them whole, else over the copies (`Version`)
            push_lines(out, cx.before.get(&key).map_or(&[][..], |b| &b[..]));
            let mut copies = String::new();
            let mut s = false;
            for j in ln..=v.last.min(lines.len() as u32) {
                emit_line(cx, id, j, &mut copies, stack, &mut s, j == ln, j == v.last);
            }
            let mut direct = copies.clone();
            for (sf, x) in &v.back {
                direct = rename(&direct, sf, x);
            }
            match relabel(&direct, &v.labels, v.label_dos) {
                Some(direct) => {
                    out.push_str(&format!("if ({}) then\n", v.cond));
                    push_lines(out, &v.direct_pre);
                    out.push_str(&direct);
                    push_lines(out, &v.direct_post);
                    out.push_str("else\n");
                    push_lines(out, &v.copy_pre);
                    out.push_str(&copies);
                    push_lines(out, &v.copy_post);
                    out.push_str("end if\n");
                }
                // (labels not found where the statements put them: the copies alone)
                None => {
                    push_lines(out, &v.copy_pre);
                    out.push_str(&copies);
                    push_lines(out, &v.copy_post);
                }
            }
            push_lines(out, cx.after.get(&(id.0, v.last)).map_or(&[][..], |a| &a[..]));
            synced = false;
            i = v.last as usize;
            continue;
        }
        emit_line(cx, id, ln, out, stack, &mut synced, false, false);
        i += 1;
    }
}

/// Lines `t` with the labels of `map` renumbered where lines define them and where DO
/// statements name them: None unless every label defined is found once and `dos` DO
/// statements name one (a continuation line starting with a number, say).
fn relabel(t: &str, map: &BTreeMap<u32, u32>, dos: usize) -> Option<String> {
    if map.is_empty() {
        return Some(t.to_string());
    }
    let (mut defs, mut named) = (0, 0);
    let mut out = String::new();
    let mut continued = false;
    for l in t.lines() {
        let code = l.trim_start();
        let comment = code.starts_with('#') || code.starts_with('!');
        if comment || continued {
            if !comment {
                continued = l.trim_end().ends_with('&');
            }
            out.push_str(l);
            out.push('\n');
            continue;
        }
        continued = l.trim_end().ends_with('&');
        let (label, rest) = text::split_label(l);
        let (head, body) = match label.as_deref() {
            Some(x) => {
                let lab = match x.parse::<u32>().ok().and_then(|n| map.get(&n)) {
                    Some(m) => {
                        defs += 1;
                        m.to_string()
                    }
                    None => x.to_string(),
                };
                (format!("{lab} "), rest)
            }
            None => (String::new(), l.to_string()),
        };
        let mut line = format!("{head}{body}");
        if let Some((a, b, new)) = text::do_label(&line).and_then(|(a, b, n)| map.get(&n).map(|m| (a, b, *m))) {
            named += 1;
            line.replace_range(a..b, &new.to_string());
        }
        out.push_str(&line);
        out.push('\n');
    }
    (defs == map.len() && named == dos).then_some(out)
}

/// Lines `v`, each ended by a newline.
fn push_lines(out: &mut String, v: &[String]) {
    for x in v {
        out.push_str(x);
        out.push('\n');
    }
}

/// `# line "file"`: the source position of the next line written.
fn marker(cx: &Cx, id: FileId, out: &mut String, line: u32) {
    let path = cx.p.map.file(id).path.display().to_string().replace('"', "");
    out.push_str(&format!("# {line} \"{path}\"\n"));
}

/// Write line `ln` of file `id` with its edits (the lines before and after it unless told
/// not to), and a line marker first where the output is out of step with the source.
#[allow(clippy::too_many_arguments)]
fn emit_line(cx: &Cx, id: FileId, ln: u32, out: &mut String, stack: &mut Vec<u32>, synced: &mut bool, no_before: bool, no_after: bool) {
    let f = cx.p.map.file(id);
    let l = &cx.lines[id.0 as usize][ln as usize - 1];
    let key = (id.0, ln);
    if let Some(b) = cx.before.get(&key).filter(|_| !no_before) {
        push_lines(out, b);
        *synced = false;
    }
    if !*synced {
        marker(cx, id, out, ln);
        *synced = true;
    }
    let split = cx.shared.get(&key).filter(|g| !cx.replace.contains_key(&key) && g.iter().any(|(c, _)| cx.seg_replace.contains_key(&(id.0, ln, *c))));
    if let Some(g) = split {
        // one statement per line, each as rewritten
        for (c, t) in g {
            match cx.seg_replace.get(&(id.0, ln, *c)) {
                Some(new) => push_lines(out, new),
                None => {
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
        *synced = false;
    } else {
        match cx.replace.get(&key) {
            Some(Some(new)) => {
                for (k, x) in new.iter().enumerate() {
                    out.push_str(x);
                    out.push('\n');
                    if k > 0 {
                        *synced = false;
                    }
                }
            }
            Some(None) => out.push('\n'),
            None => {
                if let Some((name, _)) = analyzer::source::include_target(l) {
                    let dir = f.path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
                    let found = cx.p.map.files.iter().position(|g| {
                        g.included
                            && (g.path == dir.join(&name)
                                || g.path.file_name().map(|x| x.to_string_lossy().to_string())
                                    == std::path::Path::new(&name)
                                        .file_name()
                                        .map(|x| x.to_string_lossy().to_string()))
                    });
                    match found {
                        Some(j) if !stack.contains(&(j as u32)) => {
                            out.push_str(&format!("! sapfor: {}\n", l.trim()));
                            emit_file(cx, FileId(j as u32), out, stack);
                            *synced = false;
                        }
                        _ => {
                            out.push_str(l);
                            out.push('\n');
                        }
                    }
                } else {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
    }
    if let Some(a) = cx.after.get(&key).filter(|_| !no_after) {
        push_lines(out, a);
        *synced = false;
    }
}

/// Task parallelism (`PROCESSORS`, `TASK`, `MAP`, `TASK_REGION`, `ON` ... `END ON`, loops
/// `PARALLEL (I) ON MB(I)`): the runtime maps every distributed array on all processes of its
/// grid, so each task runs in its place in the program on all of them, its parallel loops
/// divided between them as everywhere else (the tasks' results are the sequential program's;
/// docs/runtime.md). Collects the units' arrangements and task arrays, the loops over tasks,
/// and checks that the regions nest.
fn tasks(cx: &mut Cx) {
    let p = cx.p;
    let mut errs: Vec<(FileId, u32, String)> = vec![];
    for (fid, ds) in &p.directives {
        for d in ds {
            let Some(ui) = p.unit_at(*fid, d.line) else { continue };
            match &d.kind {
                DirectiveKind::Processors { name, .. } => {
                    cx.procs.insert((ui, name.to_ascii_lowercase()));
                }
                DirectiveKind::Task(v) => {
                    for t in v {
                        if t.subs.len() != 1 {
                            errs.push((*fid, d.line, format!("TASK {}: a task array has one dimension", t.name.to_uppercase())));
                        }
                        cx.tasks.insert((ui, t.name.to_ascii_lowercase()));
                    }
                }
                _ => {}
            }
        }
    }
    for (fid, ds) in &p.directives {
        // (unit, task array) of the open TASK_REGION; whether an ON block is open in it
        let mut region: Option<(usize, String, u32)> = None;
        let mut on: Option<u32> = None;
        for d in ds {
            let Some(ui) = p.unit_at(*fid, d.line) else { continue };
            if region.as_ref().is_some_and(|r| r.0 != ui) {
                let r = region.take().unwrap();
                errs.push((*fid, r.2, format!("TASK_REGION {} has no END TASK_REGION in its unit", r.1.to_uppercase())));
                on = None;
            }
            let is_task = |n: &str| cx.tasks.contains(&(ui, n.to_ascii_lowercase()));
            match &d.kind {
                DirectiveKind::Map { task, onto } => {
                    if !is_task(&task.name) {
                        errs.push((*fid, d.line, format!("MAP {}: not a TASK array of unit {}", task.name.to_uppercase(), p.units[ui].name.to_uppercase())));
                    }
                    if !cx.procs.contains(&(ui, onto.name.to_ascii_lowercase())) {
                        errs.push((*fid, d.line, format!("MAP ... ONTO {}: not a PROCESSORS arrangement of unit {}", onto.name.to_uppercase(), p.units[ui].name.to_uppercase())));
                    }
                }
                DirectiveKind::TaskRegion { name, clauses } => {
                    if region.is_some() {
                        errs.push((*fid, d.line, "TASK_REGION inside another TASK_REGION".to_string()));
                    } else if !is_task(name) {
                        errs.push((*fid, d.line, format!("TASK_REGION {}: not a TASK array of unit {}", name.to_uppercase(), p.units[ui].name.to_uppercase())));
                    }
                    if let Some(c) = clauses.iter().find(|c| !matches!(c, Clause::Reduction(_))) {
                        errs.push((*fid, d.line, format!("TASK_REGION clause {c} is not supported by the runtime yet")));
                    }
                    region = Some((ui, name.to_ascii_lowercase(), d.line));
                    on = None;
                }
                DirectiveKind::On(t) => match &region {
                    None => errs.push((*fid, d.line, "ON outside a TASK_REGION".to_string())),
                    Some(r) if on.is_some() => errs.push((*fid, d.line, format!("ON {} inside another ON block (END ON missing)", r.1.to_uppercase()))),
                    Some(r) if r.1 != t.name.to_ascii_lowercase() => {
                        errs.push((*fid, d.line, format!("ON {}: the TASK_REGION is of {}", t.name.to_uppercase(), r.1.to_uppercase())))
                    }
                    Some(_) => on = Some(d.line),
                },
                DirectiveKind::EndOn => {
                    if on.take().is_none() {
                        errs.push((*fid, d.line, "END ON without its ON".to_string()));
                    }
                }
                DirectiveKind::EndTaskRegion => {
                    if let Some(l) = on.take() {
                        errs.push((*fid, l, "ON block without END ON before END TASK_REGION".to_string()));
                    }
                    if region.take().is_none() {
                        errs.push((*fid, d.line, "END TASK_REGION without its TASK_REGION".to_string()));
                    }
                }
                DirectiveKind::Parallel { on: Some(t), clauses, .. } if is_task(&t.name) => {
                    if !region.as_ref().is_some_and(|r| r.1 == t.name.to_ascii_lowercase()) || on.is_some() {
                        errs.push((*fid, d.line, format!("a loop over the tasks of {} must be in a TASK_REGION of {} (outside its ON blocks)", t.name.to_uppercase(), t.name.to_uppercase())));
                    }
                    if let Some(c) = clauses.first() {
                        errs.push((*fid, d.line, format!("clause {c} of a loop over tasks is not supported by the runtime yet")));
                    }
                    cx.task_loops.insert((fid.0, d.line));
                }
                _ => {}
            }
        }
        if let Some(r) = region {
            errs.push((*fid, r.2, format!("TASK_REGION {} has no END TASK_REGION", r.1.to_uppercase())));
        }
    }
    for (f, l, m) in errs {
        cx.err(f, l, m);
    }
}

/// Pass 1: the distributed arrays of the whole program.
fn declarations(cx: &mut Cx) {
    let p = cx.p;
    let mut pending_align = vec![];
    let mut pending_inherit: Vec<(usize, FileId, u32, String)> = vec![];
    let mut shadows: Vec<(usize, FileId, u32, ShadowSpec)> = vec![];
    templates(cx);
    // REDISTRIBUTE: each array's formats there (unit, array), and the arrays each unit's
    // DISTRIBUTE directives name
    let mut redist: BTreeMap<(usize, String), Vec<(u32, Vec<DistFormat>)>> = BTreeMap::new();
    let mut distributed: BTreeSet<(usize, String)> = BTreeSet::new();
    for (fid, dirs) in &p.directives {
        for d in dirs {
            let Some(ui) = p.unit_at(*fid, d.line) else { continue };
            match &d.kind {
                DirectiveKind::Redistribute { arrays, formats, .. } => {
                    for a in arrays {
                        redist.entry((ui, a.to_ascii_lowercase())).or_default().push((d.line, formats.clone()));
                    }
                }
                DirectiveKind::Distribute { arrays, .. } => distributed.extend(arrays.iter().map(|a| (ui, a.to_ascii_lowercase()))),
                _ => {}
            }
        }
    }
    for (fid, dirs) in &p.directives {
        for d in dirs {
            let Some(ui) = p.unit_at(*fid, d.line) else {
                if !matches!(d.kind, DirectiveKind::Spf(_)) {
                    cx.err(*fid, d.line, "directive outside any program unit");
                }
                continue;
            };
            let sema = &p.semas[ui];
            match &d.kind {
                DirectiveKind::Distribute { arrays, formats, onto, .. } => {
                    // ONTO an arrangement: the runtime's process grid (`--grid`) holds every
                    // distributed array
                    if let Some(o) = onto.as_ref().filter(|o| !cx.procs.contains(&(ui, o.to_ascii_lowercase()))) {
                        cx.err(*fid, d.line, format!("DISTRIBUTE ... ONTO {}: not a PROCESSORS arrangement of unit {}", o.to_uppercase(), p.units[ui].name.to_uppercase()));
                        continue;
                    }
                    // the REDISTRIBUTE directives of these arrays: the same formats as here
                    // (or, for `DISTRIBUTE :: A`, whose formats they give, each array's the
                    // same in all of its own); arrays grouped by their formats
                    let mut groups: Vec<(Vec<String>, Vec<DistFormat>)> = vec![];
                    for a in arrays {
                        let mut fa = formats.clone();
                        let mut bad = false;
                        for (line, f) in redist.get(&(ui, a.to_ascii_lowercase())).into_iter().flatten() {
                            if fa.is_empty() {
                                fa = f.clone();
                            } else if *f != fa {
                                cx.err(*fid, *line, format!("REDISTRIBUTE {} with other formats than its distribution ({}) is not supported by the runtime yet: it keeps one distribution of each array for the whole run", a.to_uppercase(), fa.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")));
                                bad = true;
                            }
                        }
                        if bad {
                            continue;
                        }
                        if fa.is_empty() {
                            cx.err(*fid, d.line, format!("DISTRIBUTE :: {}: a distribution without formats needs a REDISTRIBUTE of the array in unit {}", a.to_uppercase(), p.units[ui].name.to_uppercase()));
                            continue;
                        }
                        match groups.iter_mut().find(|g| g.1 == fa) {
                            Some(g) => g.0.push(a.clone()),
                            None => groups.push((vec![a.clone()], fa)),
                        }
                    }
                    for (arrays, formats) in &groups {
                        let mut fm = vec![];
                        // (dimension, array of weights or sizes, its element count, whether sizes:
                        // GEN_BLOCK)
                        let mut weighted: Vec<(usize, String, String, bool)> = vec![];
                        for (k, f) in formats.iter().enumerate() {
                            match f {
                                DistFormat::Block => fm.push(true),
                                DistFormat::Star => fm.push(false),
                                DistFormat::WgtBlock(w, nb) => {
                                    fm.push(true);
                                    weighted.push((k + 1, w.to_ascii_lowercase(), nb.to_string().to_ascii_lowercase(), false));
                                }
                                DistFormat::GenBlock(m) => {
                                    fm.push(true);
                                    weighted.push((k + 1, m.to_ascii_lowercase(), format!("size({})", m.to_ascii_lowercase()), true));
                                }
                                other => {
                                    cx.err(*fid, d.line, format!("distribution format {other:?} is not supported by the runtime yet (only BLOCK, WGT_BLOCK, GEN_BLOCK and *)"));
                                }
                            }
                        }
                        // the weights or sizes: a 1-D array of the unit, of a type the runtime reads
                        let mut calls = vec![];
                        for (k, w, n, sizes) in &weighted {
                            let ty = sema.symbol(w).filter(|s| s.rank() == 1).map(|s| (s.ty.base.clone(), s.ty.kind));
                            use analyzer::ast::BaseType as B;
                            // (`sapfor_dim_weights`'s kinds)
                            let code = match (ty, sizes) {
                                (Some((B::DoublePrecision, _) | (B::Real, Some(8))), false) => 1,
                                (Some((B::Real, None | Some(4))), false) => 2,
                                (Some((B::Integer, None | Some(4))), false) => 3,
                                (Some((B::Integer, None | Some(4))), true) => 4,
                                _ => {
                                    cx.err(*fid, d.line, format!("{}: {} must be a one-dimensional {} array of unit {}", if *sizes { "GEN_BLOCK" } else { "WGT_BLOCK" }, w.to_uppercase(), if *sizes { "INTEGER" } else { "REAL, DOUBLE PRECISION or INTEGER" }, p.units[ui].name.to_uppercase()));
                                    continue;
                                }
                            };
                            calls.push(format!("call sapfor_dim_weights({k}, {code}, {w}, int({n}, c_int64_t))"));
                        }
                        cx.naxes = cx.naxes.max(fm.iter().filter(|b| **b).count());
                        for a in arrays {
                            let tkey = key_of(cx, ui, &a.to_ascii_lowercase()).unwrap_or_default();
                            if let Some(t) = cx.arrays.get_mut(&tkey).filter(|t| t.template) {
                                if t.bounds.len() != fm.len() {
                                    let msg = format!("DISTRIBUTE {a}: {} formats for a template of rank {}", fm.len(), t.bounds.len());
                                    cx.err(*fid, d.line, msg);
                                } else if matches!(&t.map, Mapping::Dist(f) if f.iter().any(|b| *b)) {
                                    cx.err(*fid, d.line, format!("template {a} is distributed twice"));
                                } else {
                                    t.map = Mapping::Dist(fm.clone());
                                }
                                continue;
                            }
                            if let Some(mut arr) = new_array(cx, ui, a, Mapping::Dist(fm.clone()), *fid, d.line) {
                                if arr.bounds.len() != fm.len() {
                                    cx.err(*fid, d.line, format!("DISTRIBUTE {a}: {} formats for an array of rank {}", fm.len(), arr.bounds.len()));
                                    continue;
                                }
                                if !calls.is_empty() && arr.common.is_some() {
                                    // (its set-up may run in another unit, which has no W)
                                    cx.err(*fid, d.line, format!("DISTRIBUTE {a}: WGT_BLOCK and GEN_BLOCK are supported for arrays of one unit, not of a COMMON block"));
                                    continue;
                                }
                                arr.weighted = calls.clone();
                                cx.arrays.insert(arr.key.clone(), arr);
                            }
                        }
                    }
                }
                DirectiveKind::Align { arrays, source, target } => {
                    pending_align.push((ui, *fid, d.line, arrays.clone(), source.clone(), target.clone()));
                }
                DirectiveKind::Inherit(names) => {
                    for n in names {
                        pending_inherit.push((ui, *fid, d.line, n.clone()));
                    }
                }
                DirectiveKind::Shadow(specs) => {
                    for s in specs {
                        shadows.push((ui, *fid, d.line, s.clone()));
                    }
                }
                DirectiveKind::Parallel { .. }
                | DirectiveKind::Template { .. }
                | DirectiveKind::RemoteAccess { .. }
                | DirectiveKind::Region { .. }
                | DirectiveKind::EndRegion
                | DirectiveKind::GetActual(_)
                | DirectiveKind::Actual(_)
                | DirectiveKind::Interval(_)
                | DirectiveKind::EndInterval => {}
                DirectiveKind::Spf(hints) => {
                    for h in hints {
                        if let analyzer::directives::SpfHint::Owned(names) = h {
                            for n in names.iter().map(|n| n.to_ascii_lowercase()) {
                                if !sema.is_array(&n) {
                                    cx.err(*fid, d.line, format!("OWNED {}: not an array of unit {}", n.to_uppercase(), p.units[ui].name.to_uppercase()));
                                }
                                cx.owned.insert((ui, n));
                            }
                        }
                    }
                }
                // tasks run in their place on every process (`tasks`); REMOTE_ACCESS groups are
                // fetched at each loop of theirs; a REDISTRIBUTE keeps the array's one
                // distribution (checked with its DISTRIBUTE above)
                DirectiveKind::Processors { .. }
                | DirectiveKind::Dynamic(_)
                | DirectiveKind::Task(_)
                | DirectiveKind::Map { .. }
                | DirectiveKind::TaskRegion { .. }
                | DirectiveKind::EndTaskRegion
                | DirectiveKind::On(_)
                | DirectiveKind::EndOn
                | DirectiveKind::RemoteGroup(_)
                | DirectiveKind::Prefetch(_)
                | DirectiveKind::Reset(_) => {}
                DirectiveKind::Redistribute { arrays, onto, .. } => {
                    for a in arrays.iter().filter(|a| !distributed.contains(&(ui, a.to_ascii_lowercase()))) {
                        cx.err(*fid, d.line, format!("REDISTRIBUTE {}: no DISTRIBUTE of it in unit {} (the runtime redistributes only arrays of the unit that distributes them)", a.to_uppercase(), p.units[ui].name.to_uppercase()));
                    }
                    if let Some(o) = onto.as_ref().filter(|o| {
                        let n = o.name.to_ascii_lowercase();
                        !cx.procs.contains(&(ui, n.clone())) && !cx.tasks.contains(&(ui, n))
                    }) {
                        cx.err(*fid, d.line, format!("REDISTRIBUTE ... ONTO {}: not a PROCESSORS arrangement or TASK array of unit {}", o.name.to_uppercase(), p.units[ui].name.to_uppercase()));
                    }
                }
                // DEBUG ... ENDDEBUG: the DVM system's debugging regions; the statements run
                DirectiveKind::Unknown { keyword, text }
                    if keyword.starts_with("debug") || keyword.starts_with("enddebug") || (keyword == "end" && text.starts_with("debug")) => {}
                // (done where they stand: `async_groups`)
                DirectiveKind::ShadowGroup { .. }
                | DirectiveKind::ShadowStart(_)
                | DirectiveKind::ShadowWait(_)
                | DirectiveKind::ReductionGroup(_)
                | DirectiveKind::ReductionStart(_)
                | DirectiveKind::ReductionWait(_) => {}
                DirectiveKind::Barrier => {
                    cx.before.entry((fid.0, d.line)).or_default().push("call sapfor_barrier()".into());
                }
                other => {
                    let what = match other {
                        // kept as text by the parser: its own keyword (TASK, INHERIT, ...)
                        // (fixed form runs the keyword into the next name: INHERITA)
                        DirectiveKind::Unknown { keyword, .. } => {
                            const KNOWN: &[&str] = &[
                                "TASK_REGION", "END_TASK_REGION", "TASK", "MAP", "INHERIT", "NEW_VALUE",
                                "PREFETCH", "RESET", "ASYNCHRONOUS", "ASYNCWAIT", "HOST_SECTION", "REDISTRIBUTE",
                                "REALIGN", "CONSISTENT", "INDIRECT_GROUP", "REMOTE_GROUP", "ON",
                            ];
                            let k = keyword.trim_start_matches('!').to_uppercase();
                            KNOWN.iter().find(|n| k.starts_with(*n)).map(|n| n.to_string()).unwrap_or(k)
                        }
                        _ => format!("{other:?}").split(['(', ' ', '{']).next().unwrap_or("").to_uppercase(),
                    };
                    cx.err(*fid, d.line, format!("directive {what} is not supported by the runtime yet"));
                }
            }
            let _ = sema;
        }
    }
    // ALIGN: targets may be aligned themselves; resolve in passes.
    let mut left = pending_align;
    for _ in 0..8 {
        let mut next = vec![];
        for (ui, fid, line, arrays, source, target) in left {
            let Some(tkey) = key_of(cx, ui, &target.name) else {
                next.push((ui, fid, line, arrays, source, target));
                continue;
            };
            let sema = &p.semas[ui];
            let mut m = vec![];
            let mut bad = false;
            for s in &source {
                if s == "*" {
                    m.push((0, 0));
                    continue;
                }
                let mut found = None;
                for (td, sub) in target.subs.iter().enumerate() {
                    if let Subscript::Expr(e) = sub {
                        if let Some(off) = var_offset(e, s, sema) {
                            found = Some((td as i32 + 1, off));
                        } else if mentions(e, s) {
                            bad = true;
                        }
                    }
                }
                m.push(found.unwrap_or((0, 0)));
            }
            // a constant subscript (`ALIGN X(I) WITH A(I,N+1)`, the DVM system's Gauss example)
            // picks one index of a target dimension that is not split: the array is laid out
            // as with `*` there; in a split dimension it would live on one slice of the
            // processes, which is not supported
            let split = split_dims(cx, &tkey);
            let mut fixed_in_split = None;
            for (td, sub) in target.subs.iter().enumerate() {
                if let Subscript::Expr(e) = sub {
                    if !source.iter().any(|s| mentions(e, s)) {
                        match dexpr_int(e, sema) {
                            Some(c) if !split.get(td).copied().unwrap_or(false) => {
                                if let Some(&(lo, hi)) = cx.arrays[&tkey].bounds.get(td) {
                                    if c < lo || c > hi {
                                        cx.err(fid, line, format!("ALIGN: subscript {c} of {} is outside its bounds {lo}:{hi} in dimension {}", target.name.to_uppercase(), td + 1));
                                        bad = true;
                                    }
                                }
                            }
                            Some(_) => fixed_in_split = Some(td + 1),
                            None => bad = true,
                        }
                    }
                }
            }
            if let Some(td) = fixed_in_split {
                cx.err(fid, line, format!("ALIGN: a constant subscript in dimension {td} of {}, which is distributed, is not supported (the array would live on one slice of the processes)", target.name.to_uppercase()));
                continue;
            }
            if bad {
                cx.err(fid, line, "ALIGN: only target subscripts `dummy`, `dummy + c`, `dummy - c` and `*` are supported");
                continue;
            }
            for a in arrays {
                if let Some(arr) = new_array(cx, ui, &a, Mapping::Align(tkey.clone(), m.clone()), fid, line) {
                    if arr.bounds.len() != source.len() {
                        cx.err(fid, line, format!("ALIGN {a}: {} align dummies for an array of rank {}", source.len(), arr.bounds.len()));
                        continue;
                    }
                    cx.arrays.insert(arr.key.clone(), arr);
                }
            }
        }
        left = next;
        if left.is_empty() {
            break;
        }
    }
    for (_, fid, line, _, _, target) in left {
        cx.err(fid, line, format!("ALIGN target {} is not a distributed array", target.name));
    }
    inherits(cx, pending_inherit);
    // default shadow widths: 1 on split dimensions
    let keys: Vec<String> = cx.arrays.keys().cloned().collect();
    for k in &keys {
        let split = split_dims(cx, k);
        let a = cx.arrays.get_mut(k).unwrap();
        let w = if a.template { 0 } else { 1 };
        a.shadow = split.iter().map(|&s| if s { (w, w) } else { (0, 0) }).collect();
    }
    for (ui, fid, line, s) in shadows {
        widen(cx, ui, fid, line, &s, true);
    }
    // widths used by SHADOW_RENEW / ACROSS
    for (fid, dirs) in &p.directives {
        for d in dirs {
            if let DirectiveKind::Parallel { clauses, .. } = &d.kind {
                let Some(ui) = p.unit_at(*fid, d.line) else { continue };
                for c in clauses {
                    // (SHADOW_COMPUTE: the iterations past the owned part read the ON array
                    // there, so its edges reach as far)
                    if let Clause::ShadowRenew(v) | Clause::Across(v) | Clause::ShadowCompute(v) = c {
                        for s in v {
                            widen(cx, ui, *fid, d.line, s, false);
                        }
                    }
                }
            }
        }
    }
    // an INHERIT dummy lives in its actual's storage: both need the widest shadow either uses
    let links: Vec<(String, String)> = cx
        .arrays
        .values()
        .flat_map(|a| a.actuals.iter().map(|k| (a.key.clone(), k.clone())))
        .collect();
    loop {
        let mut changed = false;
        for (dk, ak) in &links {
            let (d, a) = (cx.arrays[dk].shadow.clone(), cx.arrays[ak].shadow.clone());
            let w: Vec<(i64, i64)> = d.iter().zip(&a).map(|(x, y)| (x.0.max(y.0), x.1.max(y.1))).collect();
            if w != d || w != a {
                changed = true;
                cx.arrays.get_mut(dk).unwrap().shadow = w.clone();
                cx.arrays.get_mut(ak).unwrap().shadow = w;
            }
        }
        if !changed {
            break;
        }
    }
}

/// `TEMPLATE T(N, 0:M)`: an index space of constant bounds in its unit, distributed by a
/// later `DISTRIBUTE T(BLOCK)` (replicated without one). It has no data: parallel loops map
/// onto it and arrays align with it, which is how a loop over no distributed array (NPB EP's
/// batches) has its iterations divided between processes.
fn templates(cx: &mut Cx) {
    let p = cx.p;
    for (fid, dirs) in &p.directives {
        for d in dirs {
            let DirectiveKind::Template { name, dims } = &d.kind else { continue };
            let Some(ui) = p.unit_at(*fid, d.line) else { continue };
            let (u, sema) = (&p.units[ui], &p.semas[ui]);
            let lname = name.to_ascii_lowercase();
            if sema.symbol(&lname).is_some() {
                cx.err(*fid, d.line, format!("TEMPLATE {}: {} is also a variable of {}", name.to_uppercase(), name.to_uppercase(), u.name.to_uppercase()));
                continue;
            }
            let mut bounds = vec![];
            for sub in dims {
                let b = match sub {
                    Subscript::Expr(e) => dexpr_int(e, sema).map(|n| (1, n)),
                    Subscript::Range(Some(l), Some(h)) => dexpr_int(l, sema).zip(dexpr_int(h, sema)),
                    _ => None,
                };
                match b {
                    Some((l, h)) if l <= h => bounds.push((l, h)),
                    _ => {
                        cx.err(*fid, d.line, format!("TEMPLATE {}: the bounds of a template must be constants (PARAMETERs), lower not above upper", name.to_uppercase()));
                        break;
                    }
                }
            }
            if bounds.len() != dims.len() || bounds.is_empty() {
                continue;
            }
            let key = format!("{}_{}", u.name, lname);
            if cx.arrays.contains_key(&key) {
                cx.err(*fid, d.line, format!("TEMPLATE {} is declared twice", name.to_uppercase()));
                continue;
            }
            let r = bounds.len();
            cx.arrays.insert(
                key.clone(),
                DArray {
                    key,
                    unit: Some(u.name.clone()),
                    common: None,
                    name: lname,
                    ty: String::new(),
                    bounds,
                    map: Mapping::Dist(vec![false; r]),
                    shadow: vec![],
                    ghosts: vec![],
                    full: false,
                    temps: 0,
                    file: *fid,
                    line: d.line,
                    actuals: vec![],
                    template: true,
                    target: false,
                    weighted: vec![],
                    reshaped: false,
                },
            );
        }
    }
}

/// The calls of procedure `name` in the whole program: (calling unit, statement).
fn calls_of<'p>(p: &'p Program, name: &str) -> Vec<(usize, &'p Stmt)> {
    let mut v = vec![];
    for (ui, u) in p.units.iter().enumerate() {
        for s in &u.stmts {
            let inner = match &s.kind {
                StmtKind::LogicalIf(_, inner) => inner.as_ref(),
                _ => s,
            };
            if let StmtKind::Call { name: n, .. } = &inner.kind {
                if n.eq_ignore_ascii_case(name) {
                    v.push((ui, s));
                }
            }
        }
    }
    v
}

/// `INHERIT` dummies: each takes the distribution of the distributed arrays its procedure's
/// calls pass in its place. Resolved in passes, since the actual may itself be an INHERIT
/// dummy of the caller.
fn inherits(cx: &mut Cx, mut left: Vec<(usize, FileId, u32, String)>) {
    let p = cx.p;
    for _ in 0..=left.len() {
        let mut next = vec![];
        let pending: BTreeSet<(usize, String)> = left.iter().map(|x| (x.0, x.3.to_ascii_lowercase())).collect();
        for (ui, fid, line, name) in std::mem::take(&mut left) {
            let u = &p.units[ui];
            let sema = &p.semas[ui];
            let (uname, dname) = (u.name.to_ascii_uppercase(), name.to_ascii_uppercase());
            let Some(sym) = sema.symbol(&name) else {
                cx.err(fid, line, format!("INHERIT {dname}: {dname} is not declared in {}", uname));
                continue;
            };
            let Some(pos) = sym.dummy.filter(|_| sym.is_array()) else {
                cx.err(fid, line, format!("INHERIT {dname}: {dname} is not a dummy array of {}", uname));
                continue;
            };
            if u.kind != UnitKind::Subroutine {
                cx.err(fid, line, format!("INHERIT {dname}: only dummy arguments of subroutines may inherit a distribution (not of a {})", format!("{:?}", u.kind).to_lowercase()));
                continue;
            }
            let sites = calls_of(p, &u.name);
            if sites.is_empty() {
                cx.err(fid, line, format!("INHERIT {dname}: {} is never called, so {dname} has no distribution to inherit", uname));
                continue;
            }
            let mut actuals: Vec<(String, FileId, u32)> = vec![];
            let mut wait = false;
            let mut bad = false;
            for (cu, s) in &sites {
                let inner = match &s.kind {
                    StmtKind::LogicalIf(_, inner) => inner.as_ref(),
                    _ => s,
                };
                let StmtKind::Call { args, .. } = &inner.kind else { continue };
                let actual = match args.get(pos) {
                    Some(analyzer::ast::Arg::Expr(Expr::Var(n))) => n.clone(),
                    _ => {
                        cx.err(s.span.file, s.span.line, format!("the call of {} passes no whole array for its INHERIT dummy argument {dname} (argument {}): only a whole distributed array can be passed there", uname, pos + 1));
                        bad = true;
                        continue;
                    }
                };
                match key_of(cx, *cu, &actual) {
                    Some(k) => actuals.push((k, s.span.file, s.span.line)),
                    None if pending.contains(&(*cu, actual.to_ascii_lowercase())) => wait = true,
                    None => {
                        cx.err(s.span.file, s.span.line, format!("{} is passed to the INHERIT dummy argument {dname} of {uname}, but it is not a distributed array", actual.to_ascii_uppercase()));
                        bad = true;
                    }
                }
            }
            if bad {
                continue;
            }
            if wait {
                next.push((ui, fid, line, name));
                continue;
            }
            let (first, _, _) = actuals[0].clone();
            let (fb, fs) = (cx.arrays[&first].bounds.clone(), split_dims(cx, &first));
            let mut ok = true;
            // a vector given arrays of higher rank whole (NPB FT's XOUT((N1+1)*N2*N3)): its
            // elements are theirs in storage order
            let reshaped = sym.rank() == 1 && fb.len() > 1;
            for (k, f, l) in &actuals {
                let a = &cx.arrays[k];
                if reshaped && a.bounds.len() > 1 {
                    if a.bounds != fb || split_dims(cx, k) != fs {
                        let fa = &cx.arrays[&first];
                        cx.err(*f, *l, format!("the calls of {} pass {} and {} for the INHERIT dummy argument {dname}: their bounds or distributions differ", uname, fa.name.to_ascii_uppercase(), a.name.to_ascii_uppercase()));
                        ok = false;
                    }
                } else if a.bounds.len() != sym.rank() {
                    cx.err(*f, *l, format!("{} (rank {}) is passed to the INHERIT dummy argument {dname} of {} (rank {})", a.name.to_ascii_uppercase(), a.bounds.len(), uname, sym.rank()));
                    ok = false;
                } else if a.bounds != fb || split_dims(cx, k) != fs {
                    let fa = &cx.arrays[&first];
                    cx.err(*f, *l, format!("the calls of {} pass {} and {} for the INHERIT dummy argument {dname}: their bounds or distributions differ", uname, fa.name.to_ascii_uppercase(), a.name.to_ascii_uppercase()));
                    ok = false;
                }
            }
            if !ok {
                continue;
            }
            if reshaped {
                // each process's part must be one run of the vector: the arrays' dimensions
                // before the last are not divided
                if fs[..fs.len() - 1].iter().any(|d| *d) {
                    cx.err(fid, line, format!("INHERIT {dname}: {dname} is a vector given {} whole, which is divided in a dimension before its last: each process's part of it is not one run of the vector (distribute only the last dimension)", cx.arrays[&first].name.to_ascii_uppercase()));
                    continue;
                }
                let dlo = sym.dims.as_ref().and_then(|d| d.first()).and_then(|d| d.lo);
                if dlo.is_some_and(|l| l != 1) {
                    cx.err(fid, line, format!("INHERIT {dname}: a vector given an array of higher rank must start at 1"));
                    continue;
                }
            }
            if let Some(mut arr) = new_array(cx, ui, &name, Mapping::Inherit { actual: first.clone(), pos }, fid, line) {
                arr.bounds = fb;
                arr.reshaped = reshaped;
                let ty = cx.arrays[&first].ty.clone();
                if !same_storage(&arr.ty, &ty) {
                    cx.err(fid, line, format!("INHERIT {dname}: {dname} is {} in {}, its actual argument {} is {ty}", arr.ty, uname, cx.arrays[&first].name.to_ascii_uppercase()));
                    continue;
                }
                let mut ks: Vec<String> = actuals.into_iter().map(|x| x.0).collect();
                ks.sort();
                ks.dedup();
                arr.actuals = ks;
                cx.arrays.insert(arr.key.clone(), arr);
            }
        }
        left = next;
        if left.is_empty() {
            return;
        }
    }
    for (_, fid, line, name) in left {
        cx.err(fid, line, format!("INHERIT {}: its actual arguments are INHERIT dummies of each other in a cycle", name.to_ascii_uppercase()));
    }
}


/// Whether two type names the converter writes (`TypeSpec::name`) are one storage:
/// `double precision` and `real*8`, `double complex` and `complex*16`, `real` and `real*4`.
fn same_storage(a: &str, b: &str) -> bool {
    let norm = |t: &str| {
        let t = t.trim().to_ascii_lowercase();
        match t.as_str() {
            "double precision" => "real*8".to_string(),
            "double complex" => "complex*16".to_string(),
            "integer" | "real" | "logical" => format!("{t}*4"),
            "complex" => "complex*8".to_string(),
            _ => t,
        }
    };
    norm(a) == norm(b)
}

/// The distributed array (or template) and its dimension that dimension `d` (from 0) of
/// array `key` is divided with, through its alignments; None where it is not divided.
fn divided_with(cx: &Cx, key: &str, d: usize) -> Option<(String, usize)> {
    match &cx.arrays.get(key)?.map {
        Mapping::Dist(f) => f.get(d).copied().unwrap_or(false).then(|| (key.to_string(), d)),
        Mapping::Inherit { actual, .. } => divided_with(cx, actual, d),
        Mapping::Align(t, m) => match m.get(d)? {
            (td, _) if *td >= 1 => divided_with(cx, t, *td as usize - 1),
            _ => None,
        },
    }
}

/// The arrays among `accesses` (upper case, each once) with a dimension divided as dimension
/// `d` of array `key` is (the array itself, those aligned with it there).
fn divided_along(cx: &Cx, vis: &BTreeMap<String, String>, accesses: &[analyzer::access::Access], key: &str, d: usize) -> Vec<String> {
    let Some(root) = divided_with(cx, key, d) else { return vec![] };
    let mut out: Vec<String> = vec![];
    for a in accesses {
        let Some(k) = vis.get(&a.name.to_ascii_lowercase()) else { continue };
        let rank = cx.arrays.get(k).map_or(0, |x| x.bounds.len());
        let up = a.name.to_uppercase();
        if !out.contains(&up) && (0..rank).any(|e| divided_with(cx, k, e).as_ref() == Some(&root)) {
            out.push(up);
        }
    }
    out
}

fn split_dims(cx: &Cx, key: &str) -> Vec<bool> {
    match &cx.arrays[key].map {
        Mapping::Dist(f) => f.clone(),
        Mapping::Inherit { actual, .. } => split_dims(cx, actual),
        Mapping::Align(t, m) => {
            let ts = split_dims(cx, t);
            m.iter()
                .map(|&(td, _)| td >= 1 && ts.get(td as usize - 1).copied().unwrap_or(false))
                .collect()
        }
    }
}

/// Shadow widths of a spec (empty = the array's current widths).
fn spec_widths(cx: &Cx, ui: usize, key: &str, s: &ShadowSpec) -> Option<Vec<(i64, i64)>> {
    let sema = &cx.p.semas[ui];
    if s.widths.is_empty() {
        return Some(cx.arrays[key].shadow.clone());
    }
    s.widths
        .iter()
        .map(|(l, h)| {
            let l = l.as_ref().map(|e| dexpr_int(e, sema)).unwrap_or(Some(0))?;
            let h = h.as_ref().map(|e| dexpr_int(e, sema)).unwrap_or(Some(l))?;
            Some((l, h))
        })
        .collect()
}

/// `spec_widths` as the lower and the upper widths per dimension.
fn spec_bounds(cx: &Cx, ui: usize, key: &str, s: &ShadowSpec) -> Option<(Vec<i64>, Vec<i64>)> {
    let w = spec_widths(cx, ui, key, s)?;
    Some((w.iter().map(|x| x.0).collect(), w.iter().map(|x| x.1).collect()))
}

fn widen(cx: &mut Cx, ui: usize, fid: FileId, line: u32, s: &ShadowSpec, set: bool) {
    let Some(key) = key_of(cx, ui, &s.name) else {
        cx.err(fid, line, format!("{} is not a distributed array", s.name));
        return;
    };
    if cx.arrays[&key].template {
        cx.err(fid, line, format!("{} is a TEMPLATE: it has no data, so no shadow edges (name an array aligned with it)", s.name.to_uppercase()));
        return;
    }
    let Some(w) = spec_widths(cx, ui, &key, s) else {
        cx.err(fid, line, format!("shadow widths of {} must be constant", s.name));
        return;
    };
    let split = split_dims(cx, &key);
    let a = cx.arrays.get_mut(&key).unwrap();
    if w.len() != a.shadow.len() {
        let msg = format!("{}: {} shadow widths for an array of rank {}", s.name, w.len(), a.shadow.len());
        cx.err(fid, line, msg);
        return;
    }
    for d in 0..w.len() {
        if !split[d] {
            continue;
        }
        if set {
            a.shadow[d] = w[d];
        } else {
            a.shadow[d] = (a.shadow[d].0.max(w[d].0), a.shadow[d].1.max(w[d].1));
        }
    }
}

/// The key of distributed array `name` as seen from unit `ui`.
fn key_of(cx: &Cx, ui: usize, name: &str) -> Option<String> {
    let u = &cx.p.units[ui];
    let k = format!("{}_{}", u.name, name);
    if cx.arrays.contains_key(&k) {
        return Some(k);
    }
    let sym = cx.p.semas[ui].symbol(name)?;
    if let Some((b, _)) = &sym.common {
        let k = format!("c_{}_{}", b.trim_matches('/'), name);
        if cx.arrays.contains_key(&k) {
            return Some(k);
        }
    }
    // internal procedures see their host's arrays
    if let Some(host) = &u.parent {
        let k = format!("{host}_{name}");
        if cx.arrays.contains_key(&k) && cx.p.semas[ui].is_hosts(name) {
            return Some(k);
        }
    }
    None
}

fn new_array(cx: &mut Cx, ui: usize, name: &str, map: Mapping, fid: FileId, line: u32) -> Option<DArray> {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let Some(sym) = sema.symbol(name) else {
        cx.err(fid, line, format!("{name} is not declared in {}", u.name));
        return None;
    };
    if !sym.is_array() {
        cx.err(fid, line, format!("{name} is not an array"));
        return None;
    }
    let inherit = matches!(map, Mapping::Inherit { .. });
    if sym.dummy.is_some() && !inherit {
        cx.err(fid, line, format!("{name} is a dummy argument: distribute the actual argument and declare the dummy `INHERIT {name}`"));
        return None;
    }
    if sym.data_init || !sym.aliases.is_empty() {
        cx.err(fid, line, format!("{name}: distributed arrays that are DATA-initialized or in EQUIVALENCE are not supported by the runtime yet"));
        return None;
    }
    // an ALLOCATABLE one the main program allocates once with constant bounds has them
    // (`program::load`); any other has none: say which condition it misses
    if sym.allocatable && sym.bounds().iter().any(|b| b.is_none()) {
        let why = analyzer::program::allocated_once(&p.units, &p.semas, ui, name).err().unwrap_or_default();
        cx.err(fid, line, format!("{name}: a distributed ALLOCATABLE array is supported when {why}"));
        return None;
    }
    let mut bounds = vec![];
    for b in sym.bounds() {
        match b {
            Some(x) => bounds.push(x),
            None if inherit => bounds.push((1, 1)),
            None => {
                cx.err(fid, line, format!("{name}: the bounds of a distributed array must be constants (PARAMETERs)"));
                return None;
            }
        }
    }
    let ty = match type_code(&sym.ty) {
        Some(_) => sym.ty.name(),
        None => match sym.ty.base {
            analyzer::ast::BaseType::Complex | analyzer::ast::BaseType::DoubleComplex => sym.ty.name(),
            _ => {
                cx.err(fid, line, format!("{name}: distributed arrays of type {} are not supported", sym.ty.name()));
                return None;
            }
        },
    };
    let (key, unit, common) = match &sym.common {
        Some((b, idx)) => {
            let b = b.trim_matches('/').to_string();
            (format!("c_{b}_{name}"), None, Some((b, *idx)))
        }
        None => (format!("{}_{}", u.name, name), Some(u.name.clone()), None),
    };
    if let Some(prev) = cx.arrays.get(&key) {
        // a COMMON member may be distributed in every unit that declares the block, alike
        if common.is_some() && format!("{:?}", prev.map) == format!("{map:?}") && prev.bounds == bounds {
            if sym.target {
                if let Some(a) = cx.arrays.get_mut(&key) {
                    a.target = true;
                }
            }
            return None;
        }
        cx.err(fid, line, format!("{name} is distributed twice, differently"));
        return None;
    }
    Some(DArray {
        key,
        unit,
        common,
        name: name.to_string(),
        ty,
        bounds,
        map,
        shadow: vec![],
        ghosts: vec![],
        full: false,
        temps: 0,
        file: fid,
        line,
        actuals: vec![],
        template: false,
        target: sym.target,
        weighted: vec![],
        reshaped: false,
    })
}

/// Distributed arrays visible in unit `ui`: name -> key.
fn visible(cx: &mut Cx, ui: usize) -> BTreeMap<String, String> {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let mut v = BTreeMap::new();
    for a in cx.arrays.values() {
        if a.unit.as_deref() == Some(u.name.as_str()) {
            v.insert(a.name.clone(), a.key.clone());
        }
    }
    // a procedure the unit contains sees the host's arrays it does not declare again
    if let Some(host) = &u.parent {
        for a in cx.arrays.values() {
            if a.unit.as_deref() == Some(host.as_str()) && sema.is_hosts(&a.name) {
                v.entry(a.name.clone()).or_insert_with(|| a.key.clone());
            }
        }
    }
    let mut errs = vec![];
    for (block, members) in &sema.commons {
        let b = block.trim_matches('/');
        for a in cx.arrays.values() {
            if let Some((cb, idx)) = &a.common {
                if cb == b {
                    match members.get(*idx) {
                        Some(m) if m.name == a.name => {
                            v.insert(a.name.clone(), a.key.clone());
                        }
                        _ => errs.push(format!(
                            "COMMON /{b}/ in {} does not have the distributed array {} at the same position as {}:{}",
                            u.name,
                            a.name,
                            p.map.file(a.file).display_path(),
                            a.line
                        )),
                    }
                }
            }
        }
    }
    for e in errs {
        cx.err(u.file, u.span.line, e);
    }
    v
}

struct ParLoop {
    outer: usize, // index into dos
    dir_line: u32,
    dir_end: u32,
    vars: Vec<String>,
    on: Option<analyzer::directives::ArrayRef>,
    clauses: Vec<Clause>,
}

/// The PARALLEL directives of unit `ui` with their loops (`dos`: the unit's loops, see
/// `all_dos`); Err: (line, message) for a directive without its loop.
fn par_loops(p: &Program, ui: usize, dos: &[&Node], dirs: &[Directive]) -> Vec<Result<ParLoop, (u32, &'static str)>> {
    let u = &p.units[ui];
    let fid = u.file;
    let mut out = vec![];
    for d in dirs {
        let DirectiveKind::Parallel { vars, on, clauses } = &d.kind else { continue };
        let header_line = |n: &Node| match n {
            Node::Do { header, .. } => Some(u.stmt(*header).span).filter(|s| s.file == fid && s.line > d.end_line).map(|s| s.line),
            _ => None,
        };
        let next = dos.iter().enumerate().filter_map(|(i, n)| header_line(n).map(|l| (l, i))).min();
        let Some((hl, i)) = next else {
            out.push(Err((d.line, "PARALLEL directive is not followed by a DO loop")));
            continue;
        };
        // no executable statement between the directive and the loop
        if u.stmts.iter().any(|s| s.span.file == fid && s.span.line > d.end_line && s.span.line < hl && s.kind.is_executable()) {
            out.push(Err((d.line, "PARALLEL directive must be followed immediately by its DO loop")));
            continue;
        }
        out.push(Ok(ParLoop { outer: i, dir_line: d.line, dir_end: d.end_line, vars: vars.clone(), on: on.clone(), clauses: clauses.clone() }));
    }
    out
}

/// Pass 2: rewrite one program unit.
fn unit(cx: &mut Cx, ui: usize) {
    let p = cx.p;
    let u = &p.units[ui];
    if matches!(u.kind, UnitKind::Module | UnitKind::BlockData) {
        let vis = visible(cx, ui);
        if !vis.is_empty() {
            cx.err(u.file, u.span.line, "distributed arrays in modules or BLOCK DATA are not supported by the runtime yet");
        }
        return;
    }
    let sema = &p.semas[ui];
    let vis = visible(cx, ui);
    let fid = u.file;

    // --- unit header: USE sapfor_data (top-level units only)
    let toplevel = u.parent.is_none();
    let header_end = {
        let f = &cx.lines[fid.0 as usize];
        let mut l = u.span.line;
        while (l as usize) <= f.len() {
            let t = &f[l as usize - 1];
            let t = match analyzer::source::comment_start(t) {
                Some(k) => &t[..k],
                None => t.as_str(),
            };
            if t.trim_end().ends_with('&') {
                l += 1;
            } else {
                break;
            }
        }
        l
    };
    let first_line_text = cx.lines[fid.0 as usize]
        .get(u.span.line as usize - 1)
        .cloned()
        .unwrap_or_default();
    let has_header = {
        let t = first_line_text.to_ascii_lowercase();
        t.contains("program") || t.contains("subroutine") || t.contains("function")
    };
    if toplevel {
        let mut uses = String::from("use sapfor_data");
        for (name, key) in &vis {
            // an INHERIT dummy stays the dummy (its storage is the actual argument's)
            if cx.arrays[key].own_storage() {
                uses.push_str(&format!(", {name} => sd_{key}"));
            }
        }
        // the main program's own arrays in static storage, as in the sequential build:
        // -fopenmp (implying -frecursive) would put its local arrays on the stack, and big
        // ones (NPB's, 64 MB) overflow it. SAVE changes nothing else for the main program
        // (its variables are SAVEd implicitly in F2008). Arrays only: a static scalar whose
        // address is taken (an I/O list, a runtime call) is read and written in memory at every
        // iteration of a loop that stores through a pointer (a distributed array), where a
        // local one stays in a register (Gauss-Seidel's EPS = MAX(EPS, ...) ran 1.5 times
        // slower). It goes where the specification part ends (before the first DATA,
        // statement function or executable statement: after every IMPLICIT, also one from an
        // INCLUDE file), and only when the program has no SAVE of its own
        if u.kind == UnitKind::Program && has_header {
            let sema = &cx.p.semas[ui];
            let static_arrays: Vec<&str> = sema
                .symbols
                .values()
                .filter(|s| {
                    s.is_array()
                        && s.param.is_none()
                        && s.common.is_none()
                        && s.dummy.is_none()
                        && !s.external
                        && !vis.contains_key(&s.name.to_ascii_lowercase())
                        && s.aliases.iter().all(|a| sema.symbol(a).is_some_and(|x| x.common.is_none()))
                })
                .map(|s| s.name.as_str())
                .collect();
            let saves = sema.symbols.values().any(|s| s.save)
                || u.stmts.iter().any(|s| matches!(&s.kind, StmtKind::AttrStmt { attr, .. } if attr == "save"));
            let end_of_spec = u
                .stmts
                .iter()
                .find(|s| s.span.file == fid && (s.kind.is_executable() || matches!(s.kind, StmtKind::Data(_))))
                .map(|s| s.span.line);
            if let (false, Some(l), false) = (saves, end_of_spec, static_arrays.is_empty()) {
                // after the last line of the specification part (a declaration, or an
                // INCLUDE, whose file is inlined there), before the runtime's start-up calls
                let lines = &cx.lines[fid.0 as usize];
                let last_spec = (u.span.line..l)
                    .rev()
                    .find(|&k| lines.get(k as usize - 1).is_some_and(|t| !t.trim().is_empty() && !t.trim_start().starts_with('!')))
                    .unwrap_or(header_end);
                cx.after.entry((fid.0, last_spec)).or_default().push(format!("save {}", static_arrays.join(", ")));
            }
        }
        if has_header {
            cx.after.entry((fid.0, header_end)).or_default().insert(0, uses);
        } else {
            cx.before
                .entry((fid.0, u.span.line))
                .or_default()
                .push(format!("program sapfor_main\n{uses}"));
        }
    } else if !vis.is_empty() {
        // internal procedures: the host's USE covers locals; COMMON members need renames too
        let mut uses = String::from("use sapfor_data");
        for (name, key) in &vis {
            if cx.arrays[key].own_storage() {
                uses.push_str(&format!(", {name} => sd_{key}"));
            }
        }
        cx.after.entry((fid.0, header_end)).or_default().push(uses);
    }

    // --- remove declarations of distributed arrays; an INHERIT dummy is declared again with
    // the allocated bounds of its actual argument (set by the caller)
    let mut redeclared: BTreeSet<String> = BTreeSet::new();
    for s in &u.stmts {
        let names: Vec<&str> = match &s.kind {
            StmtKind::TypeDecl { entities, .. }
            | StmtKind::Dimension(entities)
            | StmtKind::AttrStmt { entities, .. } => entities.iter().map(|e| e.name.as_str()).collect(),
            StmtKind::Common(blocks) => blocks
                .iter()
                .flat_map(|(_, es)| es.iter().map(|e| e.name.as_str()))
                .collect(),
            StmtKind::Data(_) | StmtKind::Equivalence(_) => {
                let t = cx.stmt_text(s);
                let hit = vis.keys().find(|n| !text::idents(&t, n).is_empty()).cloned();
                if let Some(n) = hit {
                    cx.err(s.span.file, s.span.line, format!("distributed array {n} in DATA or EQUIVALENCE is not supported"));
                }
                vec![]
            }
            _ => vec![],
        };
        if names.iter().any(|n| vis.contains_key(*n)) {
            let t = cx.stmt_text(s);
            let mut again = vec![];
            for n in &names {
                if let Some(a) = vis.get(*n).map(|k| &cx.arrays[k]) {
                    if matches!(a.map, Mapping::Inherit { .. }) && redeclared.insert(a.name.clone()) {
                        let k = &a.key;
                        let dims = if a.reshaped {
                            // the run of the vector this process's block holds (its edges too)
                            let r = a.bounds.len();
                            let (lo, p) = (a.bounds[r - 1].0, strides(a)[r - 1]);
                            format!("1 + (sapfor_alo(sh_{k}, {r}) - ({lo})) * {p}:(sapfor_ahi(sh_{k}, {r}) - ({lo}) + 1) * {p}")
                        } else {
                            (1..=a.bounds.len()).map(|d| format!("sapfor_alo(sh_{k}, {d}):sapfor_ahi(sh_{k}, {d})")).collect::<Vec<_>>().join(", ")
                        };
                        again.push(format!("{} :: {}({dims})", a.ty, a.name));
                    }
                }
            }
            match remove_entities(&t, &vis, matches!(s.kind, StmtKind::Common(_))) {
                Ok(Some(new)) => cx.replace_stmt(s, std::iter::once(new).chain(again).collect()),
                Ok(None) if again.is_empty() => cx.replace_stmt(s, vec![String::new()]),
                Ok(None) => cx.replace_stmt(s, again),
                Err(m) => cx.err(s.span.file, s.span.line, m),
            }
        }
    }

    // --- first executable statement: init (main) and array set-up
    let first_exec = u
        .stmts
        .iter()
        .position(|s| s.kind.is_executable() && !sema.stmt_functions.values().any(|&id| id == s.id) && !matches!(s.kind, StmtKind::Format | StmtKind::Data(_)));
    let dirs: Vec<Directive> = cx.unit_dirs[ui].clone();
    let regions = gpu::regions(cx, ui, &vis, &dirs);
    let mut setup = vec![];
    if u.kind == UnitKind::Program {
        setup.push(format!("call sapfor_init({})", cx.naxes));
        // one OpenMP thread per process unless OMP_NUM_THREADS says otherwise (`sapfor run
        // --threads T` sets it): `mpirun -np N ./prog` must not start N x cores threads
        setup.push("!$ if (sapfor_threads_unset() /= 0) call omp_set_num_threads(1)".into());
        for (i, f) in p.map.files.iter().enumerate() {
            let name = f.path.file_name().map(|x| x.to_string_lossy().to_string()).unwrap_or_default().replace('\'', "");
            setup.push(format!("call sapfor_file_name({}, '{}'//c_null_char)", i + 1, name));
        }
        setup.push("call sapfor_gpu_program(sapfor_kernels())".into());
        if cx.host_only {
            setup.push("call sapfor_gpu_host_only()".into());
        }
    }
    for key in vis.values() {
        // the weights of WGT_BLOCK / GEN_BLOCK dimensions, read when the array is set up
        for call in &cx.arrays[key].weighted {
            setup.push(format!("if (sh_{key} < 0) {call}"));
        }
        setup.push(format!("call sapfor_setup_{key}()"));
        if let Some(check) = inherit_check(cx, ui, key) {
            setup.push(check);
        }
    }
    setup.extend(gpu::entry_forgets(cx, ui, &regions));
    gpu::allocations(cx, ui, &regions);
    if !setup.is_empty() {
        match first_exec.map(|i| &u.stmts[i]) {
            // right before the first executable statement (ahead of any loop prologue)
            Some(st) if st.span.file == fid => {
                // a REGION / GET_ACTUAL / ACTUAL directive before it is code too
                let line = dirs
                    .iter()
                    .filter(|d| matches!(d.kind, DirectiveKind::Region { .. } | DirectiveKind::GetActual(_) | DirectiveKind::Actual(_)))
                    .map(|d| d.line)
                    .filter(|&l| l < st.span.line)
                    .min()
                    .unwrap_or(st.span.line);
                let v = cx.before.entry((fid.0, line)).or_default();
                v.splice(0..0, setup);
            }
            // no executable statement in this file (or it comes from an INCLUDE): after the
            // last specification statement of the unit's own file
            _ => {
                let last_spec = u
                    .stmts
                    .iter()
                    .filter(|x| x.span.file == fid && !x.kind.is_executable())
                    .map(|x| x.span.end_line)
                    .max()
                    .unwrap_or(header_end)
                    .max(header_end);
                cx.after.entry((fid.0, last_spec)).or_default().extend(setup);
            }
        }
    }

    // --- parallel loops
    let mut dos = vec![];
    all_dos(&u.body, &mut dos);
    for d in &dirs {
        // directive lines go away (their code, if any, is inserted elsewhere)
        for l in d.line..=d.end_line {
            cx.replace.insert((fid.0, l), None);
        }
    }
    // (loops over tasks run as written)
    for d in p.directives.get(&fid).into_iter().flatten().filter(|d| cx.task_loops.contains(&(fid.0, d.line)) && p.unit_at(fid, d.line) == Some(ui)) {
        for l in d.line..=d.end_line {
            cx.replace.insert((fid.0, l), None);
        }
    }
    let mut par: Vec<ParLoop> = vec![];
    for r in par_loops(p, ui, &dos, &dirs) {
        match r {
            Ok(pl) => par.push(pl),
            Err((l, msg)) => cx.err(fid, l, msg),
        }
    }
    let mut in_par: BTreeSet<StmtId> = BTreeSet::new();
    for pl in &par {
        collect_stmts(u, dos[pl.outer], &mut in_par);
    }
    for d in &dirs {
        if let DirectiveKind::ReductionGroup(names) = &d.kind {
            for n in names {
                cx.red_groups.entry((ui, n.to_ascii_lowercase())).or_default();
            }
        }
    }
    // (a loop and the next may run as one: convert_fuse.rs)
    let mut k = 0;
    while k < par.len() {
        let pl = &par[k];
        let mut why = None;
        let Some((next, plan)) = par.get(k + 1).and_then(|nx| fuse::plan(cx, ui, &dos, pl, nx, &regions, &mut why).map(|x| (nx, x))) else {
            // (two loops with nothing but constants between them: why they run apart)
            if let Some((file, line, msg)) = why {
                cx.note(file, line, msg);
            }
            parallel_loop(cx, ui, &vis, &dos, pl, &regions, false);
            k += 1;
            continue;
        };
        let Some(h1) = parallel_loop(cx, ui, &vis, &dos, pl, &regions, true) else {
            k += 1;
            continue;
        };
        match parallel_loop(cx, ui, &vis, &dos, next, &regions, true) {
            Some(h2) => {
                fuse::place(cx, ui, &dos, pl, next, h1, h2, &plan);
                // (and the time loop around them in blocks of steps: convert_skew.rs)
                skew::plan(cx, ui, &dos, pl, next, &vis);
            }
            None => fuse::place_one(cx, ui, &dos, pl, h1),
        }
        k += 2;
    }
    async_groups(cx, ui, &vis, &dirs);
    copy_nests(cx, ui, &vis, &in_par, &u.body);
    read_caches(cx, ui, &vis, &in_par, &u.body, &BTreeSet::new());
    let mut renews: BTreeMap<StmtId, BTreeSet<String>> = BTreeMap::new();
    for pl in &par {
        if let Node::Do { header, .. } = dos[pl.outer] {
            for c in &pl.clauses {
                if let Clause::ShadowRenew(specs) = c {
                    renews.entry(*header).or_default().extend(specs.iter().map(|x| x.name.to_ascii_lowercase()));
                }
            }
        }
    }
    shadow_holds(cx, ui, &vis, &in_par, &renews, &u.body, &BTreeSet::new());

    // --- sequential statements
    let do_labels: BTreeSet<u32> = u
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Do { label: Some(l), .. } | StmtKind::DoWhile { label: Some(l), .. } => Some(*l),
            _ => None,
        })
        .collect();
    for s in &u.stmts {
        if in_par.contains(&s.id) {
            if let StmtKind::Io { .. } = &s.kind {
                cx.err(s.span.file, s.span.line, "I/O inside a parallel loop is not supported");
            }
            let inner = match &s.kind {
                StmtKind::LogicalIf(_, inner) => inner.as_ref(),
                _ => s,
            };
            if let StmtKind::Call { name, .. } = &inner.kind {
                if !inherit_dummies(cx, name).is_empty() {
                    cx.err(s.span.file, s.span.line, format!("{} has INHERIT dummy arguments: it cannot be called inside a parallel loop", name.to_ascii_uppercase()));
                }
            }
            continue;
        }
        sequential(cx, ui, &vis, s, &do_labels);
    }
    gpu::host_statements(cx, ui, &regions, &in_par, &do_labels);

    // --- end of the main program: finalize (before CONTAINS when it has internal
    // procedures: execution ends there)
    let contains_line = (u.kind == UnitKind::Program)
        .then(|| {
            let first_internal = cx
                .p
                .units
                .iter()
                .filter(|o| o.parent.as_deref() == Some(u.name.as_str()) && o.file == fid)
                .map(|o| o.span.line)
                .min()?;
            let lines = &cx.lines[fid.0 as usize];
            (u.span.line..first_internal).rev().find(|&l| {
                lines
                    .get(l as usize - 1)
                    .is_some_and(|t| t.trim().to_ascii_lowercase().split(|c: char| !c.is_ascii_alphanumeric()).next() == Some("contains"))
            })
        })
        .flatten();
    if let Some(cl) = contains_line {
        cx.before.entry((fid.0, cl)).or_default().push("call sapfor_finalize()".into());
    } else if u.kind == UnitKind::Program {
        let endl = u.end_line;
        let t = cx.lines[fid.0 as usize].get(endl as usize - 1).cloned().unwrap_or_default();
        let (label, rest) = text::split_label(&t);
        let mut v = vec![];
        if let Some(l) = label {
            v.push(format!("{l} continue"));
        }
        v.push("call sapfor_finalize()".into());
        v.push(rest);
        cx.replace.insert((fid.0, endl), Some(v));
    }
}

/// The INHERIT dummies of procedure `name`: argument position -> key.
fn inherit_dummies(cx: &Cx, name: &str) -> BTreeMap<usize, String> {
    cx.arrays
        .values()
        .filter_map(|a| match &a.map {
            Mapping::Inherit { pos, .. } if a.unit.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(name)) => Some((*pos, a.key.clone())),
            _ => None,
        })
        .collect()
}

/// The entry check of an INHERIT dummy in its own procedure: the caller set the handle, and
/// the declared bounds (those that are integer expressions we can print) equal the actual's.
fn inherit_check(cx: &Cx, ui: usize, key: &str) -> Option<String> {
    let a = &cx.arrays[key];
    if !matches!(a.map, Mapping::Inherit { .. }) || a.unit.as_deref() != Some(cx.p.units[ui].name.as_str()) {
        return None;
    }
    let sym = cx.p.semas[ui].symbol(&a.name)?;
    let dims = sym.dims.clone()?;
    if a.reshaped {
        return Some(reshaped_check(cx, a, sym));
    }
    let (mut lo, mut hi, mut known) = (vec![], vec![], vec![]);
    for (k, d) in dims.iter().enumerate() {
        let l = match &d.lo_expr {
            None => Some("1".to_string()),
            Some(e) => fexpr(e),
        };
        // the last dimension of an assumed-size dummy, or of one declared (..., 1) in the
        // F77 manner, is any size
        let any_size = k + 1 == dims.len() && sym.size_unknown();
        let h = if d.star || d.assumed || any_size { None } else { d.hi_expr.as_ref().and_then(fexpr) };
        known.push(if l.is_some() { "1" } else { "0" });
        known.push(if h.is_some() { "1" } else { "0" });
        lo.push(format!("int({}, c_int64_t)", l.unwrap_or_else(|| "0".into())));
        hi.push(format!("int({}, c_int64_t)", h.unwrap_or_else(|| "0".into())));
    }
    Some(format!(
        "call sapfor_inherit_check(sh_{key}, {}, [{}], [{}], [integer(c_int) :: {}], '{}'//c_null_char, {}_8)",
        dims.len(),
        lo.join(", "),
        hi.join(", "),
        known.join(", "),
        a.name.to_ascii_uppercase(),
        cx.src(a.file, a.line)
    ))
}

/// Elements of array `a` (global bounds) before each dimension's next index: 1, the first
/// extent, the product of the first two, ... (column order).
fn strides(a: &DArray) -> Vec<i64> {
    let mut out = vec![];
    let mut p = 1i64;
    for (lo, hi) in &a.bounds {
        out.push(p);
        p *= hi - lo + 1;
    }
    out
}

/// The entry check of a vector dummy given arrays of higher rank (`DArray::reshaped`): its
/// declared size, where printable, is theirs, and this process's block holds every index of
/// the dimensions before the last (so that the block is one run of the vector).
fn reshaped_check(cx: &Cx, a: &DArray, sym: &analyzer::sema::Symbol) -> String {
    let k = &a.key;
    let r = a.bounds.len();
    let total: i64 = a.bounds.iter().map(|(l, h)| h - l + 1).product();
    let mut bad: Vec<String> = (1..r).map(|d| format!("sapfor_alo(sh_{k}, {d}) /= {} .or. sapfor_ahi(sh_{k}, {d}) /= {}", a.bounds[d - 1].0, a.bounds[d - 1].1)).collect();
    let d = sym.dims.as_ref().and_then(|d| d.first());
    if let Some(h) = d.filter(|d| !d.star && !d.assumed && !sym.size_unknown()).and_then(|d| d.hi_expr.as_ref()).and_then(fexpr) {
        bad.push(format!("int({h}, c_int64_t) /= {total}_c_int64_t"));
    }
    let name = a.name.to_ascii_uppercase();
    format!(
        "if ({}) call sapfor_error({}_8, '{name}: a vector given a distributed array of rank {r} must hold its {total} elements, and the array may be divided only in its last dimension, without shadow edges in the others'//c_null_char)",
        bad.join(" .or. "),
        cx.src(a.file, a.line)
    )
}

/// Subscripts of the element of a vector dummy given arrays of higher rank
/// (`DArray::reshaped`) at index `e` of the vector: `lo1 + mod(e-1, n1)`, `lo2 + mod((e-1)/n1,
/// n2)`, ..., `lo_r + (e-1)/(n1*...*n_{r-1})`.
fn reshaped_subs(a: &DArray, e: &str) -> Vec<String> {
    let st = strides(a);
    let r = a.bounds.len();
    (0..r)
        .map(|d| {
            let (lo, hi) = a.bounds[d];
            let q = if st[d] == 1 { format!("(({e}) - 1)") } else { format!("((({e}) - 1) / {})", st[d]) };
            if d + 1 == r {
                format!("{lo} + {q}")
            } else {
                format!("{lo} + mod({q}, {})", hi - lo + 1)
            }
        })
        .collect()
}

/// Fortran text of the number of elements of array `n`, from its first one, that the
/// assignments `N(...) = ...` inside loop `nest` may reach: each subscript linear in the DO
/// variables of the nest (bounds free of other DO variables, positive or negative constant
/// steps) and in names the nest does not assign; its largest value over the ranges, then the
/// element's position in column order (strides are positive: the largest subscripts give the
/// last element). None when some assignment does not fit.
fn merge_extent(u: &Unit, sema: &UnitSema, nest: &Node, n: &str) -> Option<String> {
    use analyzer::affine::{linearize, Lin};
    let cl = |x: &str| sema.param(x).and_then(|c| c.as_int());
    let mut assigned: BTreeSet<String> = BTreeSet::new();
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(nest), &mut |st| match st.kind.action() {
        StmtKind::Assign { lhs: Expr::Var(v), .. } => {
            assigned.insert(v.clone());
        }
        StmtKind::Do { var, .. } => {
            assigned.insert(var.clone());
        }
        StmtKind::Call { .. } | StmtKind::Io { .. } => {
            assigned.insert("*".into());
        }
        _ => {}
    });
    // text of a linear form, with the DO variables at their end that makes it largest
    fn largest(l: &Lin, ranges: &BTreeMap<String, (String, String)>, assigned: &BTreeSet<String>) -> Option<String> {
        let mut t = l.constant.to_string();
        for (v, c) in &l.terms {
            let x = match ranges.get(v) {
                Some((lo, hi)) => if *c > 0 { hi.clone() } else { lo.clone() },
                None if !assigned.contains(v) && !assigned.contains("*") && v.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') => v.clone(),
                None => return None,
            };
            t = format!("{t} + ({c}) * ({x})");
        }
        Some(format!("({t})"))
    }
    fn walk(
        u: &Unit,
        nodes: &[Node],
        n: &str,
        ranges: &mut BTreeMap<String, (String, String)>,
        cl: &dyn Fn(&str) -> Option<i64>,
        assigned: &BTreeSet<String>,
        dims: &[(String, String)],
        out: &mut Option<Vec<String>>,
    ) {
        for node in nodes {
            if out.is_none() {
                return;
            }
            match node {
                Node::Stmt(id) => {
                    let st = u.stmt(*id);
                    if let StmtKind::Assign { lhs: Expr::Ref(name, subs), .. } = st.kind.action() {
                        if name != n {
                            continue;
                        }
                        let last: Option<Vec<String>> = (subs.len() == dims.len())
                            .then(|| subs.iter().map(|a| largest(&linearize(a.expr()?, cl)?, ranges, assigned)).collect::<Option<Vec<String>>>())
                            .flatten();
                        match (last, out.as_mut()) {
                            (Some(ds), Some(o)) => {
                                // column order: (s1 - l1) + e1 * ((s2 - l2) + e2 * (...)), plus one
                                let mut t = String::new();
                                for (x, (lb, sz)) in ds.iter().zip(dims).rev() {
                                    t = if t.is_empty() { format!("({x} - {lb})") } else { format!("({x} - {lb} + {sz} * {t})") };
                                }
                                o.push(format!("({t} + 1)"));
                            }
                            _ => *out = None,
                        }
                    }
                }
                Node::Do { header, body, .. } => {
                    let StmtKind::Do { var, lo, hi, step, .. } = &u.stmt(*header).kind else {
                        *out = None;
                        return;
                    };
                    let step = match step {
                        None => Some(1),
                        Some(e) => linearize(e, cl).and_then(|l| l.as_const()),
                    };
                    let text = |e: &Expr| fexpr(e).filter(|_| {
                        linearize(e, cl).is_some_and(|l| l.vars().all(|v| !ranges.contains_key(v) && !assigned.contains(v)))
                    });
                    let (Some(s), Some(a), Some(b)) = (step.filter(|s| *s != 0), text(lo), text(hi)) else {
                        *out = None;
                        return;
                    };
                    let r = if s > 0 { (a, b) } else { (b, a) };
                    ranges.insert(var.clone(), r);
                    walk(u, body, n, ranges, cl, assigned, dims, out);
                    ranges.remove(var);
                }
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        walk(u, b, n, ranges, cl, assigned, dims, out);
                    }
                }
            }
        }
    }
    // per dimension: LBOUND and SIZE as text
    let dims: Vec<(String, String)> = (1..=sema.symbol(n)?.rank())
        .map(|k| Some((intrinsic_of(sema, "lbound", n, Some(k))?, intrinsic_of(sema, "size", n, Some(k))?)))
        .collect::<Option<_>>()?;
    let mut out = Some(vec![]);
    walk(u, std::slice::from_ref(nest), n, &mut BTreeMap::new(), &cl, &assigned, &dims, &mut out);
    let parts = out.filter(|v| !v.is_empty())?;
    Some(if parts.len() == 1 { parts[0].clone() } else { format!("max({})", parts.join(", ")) })
}

/// Fortran text of an integer specification expression (names, constants, + - * / **,
/// function references); None for anything else.
fn fexpr(e: &Expr) -> Option<String> {
    use analyzer::ast::{BinOp, UnOp};
    Some(match e {
        Expr::Int(i) => i.to_string(),
        Expr::Var(n) => n.clone(),
        Expr::Ref(n, args) => {
            let xs: Option<Vec<String>> = args.iter().map(|a| match a {
                analyzer::ast::Arg::Expr(x) => fexpr(x),
                _ => None,
            }).collect();
            format!("{n}({})", xs?.join(", "))
        }
        Expr::Unary(UnOp::Neg, x) => format!("(-{})", fexpr(x)?),
        Expr::Unary(UnOp::Plus, x) => fexpr(x)?,
        Expr::Binary(op, x, y) => {
            let o = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Pow => "**",
                _ => return None,
            };
            format!("({} {o} {})", fexpr(x)?, fexpr(y)?)
        }
        _ => return None,
    })
}

/// Remove distributed arrays from a declaration / COMMON statement. None: nothing left.
fn remove_entities(t: &str, vis: &BTreeMap<String, String>, common: bool) -> Result<Option<String>, String> {
    let (label, t) = text::split_label(t);
    let lab = label.map(|l| format!("{l} ")).unwrap_or_default();
    let is_dist = |item: &str| vis.contains_key(&text::leading_name(item));
    if common {
        // COMMON /B/ list  (one block per statement)
        let Some(rest) = text::strip_kw(&t, "common") else { return Err("cannot read this COMMON statement".into()) };
        let rest = rest.trim();
        let (blk, list) = if let Some(r) = rest.strip_prefix('/') {
            let k = r.find('/').ok_or("cannot read this COMMON statement")?;
            (format!("/{}/", &r[..k]), r[k + 1..].to_string())
        } else {
            (String::new(), rest.to_string())
        };
        if list.contains('/') {
            return Err("a COMMON statement with a distributed array must declare one block only".into());
        }
        let items: Vec<String> = text::split_top(&list, ',').into_iter().filter(|i| !is_dist(i)).collect();
        if items.is_empty() {
            return Ok(None);
        }
        return Ok(Some(format!("{lab}common {blk} {}", items.iter().map(|s| s.trim()).collect::<Vec<_>>().join(", "))));
    }
    let (prefix, items) = if let Some(k) = t.find("::") {
        (t[..k + 2].to_string(), text::split_top(&t[k + 2..], ','))
    } else {
        let st = type_prefix_len(&t).ok_or("cannot read this declaration")?;
        (t[..st].to_string(), text::split_top(&t[st..], ','))
    };
    let kept: Vec<String> = items.into_iter().filter(|i| !is_dist(i)).map(|s| s.trim().to_string()).collect();
    if kept.is_empty() {
        return Ok(None);
    }
    Ok(Some(format!("{lab}{} {}", prefix.trim_end(), kept.join(", "))))
}

/// Length of the type specifier (or attribute keyword) that starts a declaration without `::`.
fn type_prefix_len(t: &str) -> Option<usize> {
    let lower = t.to_ascii_lowercase();
    let kws = [
        "double precision", "doubleprecision", "double complex", "doublecomplex", "integer", "real",
        "logical", "complex", "character", "dimension", "save", "target", "byte",
    ];
    let kw = kws.iter().find(|k| lower.starts_with(*k))?;
    let typed = !matches!(*kw, "dimension" | "save" | "target");
    let b = t.as_bytes();
    let mut i = kw.len();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i] == b' ' {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if typed && i < b.len() && b[i] == b'*' {
        i += 1;
        skip_ws(&mut i);
        if i < b.len() && b[i] == b'(' {
            i = text::matching_paren(t, i)? + 1;
        } else {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    } else if typed && i < b.len() && b[i] == b'(' {
        i = text::matching_paren(t, i)? + 1;
    }
    Some(i)
}

fn red_op(op: ReductionOp) -> (i32, Option<&'static str>) {
    match op {
        ReductionOp::Sum => (1, Some("+")),
        ReductionOp::Product => (2, Some("*")),
        ReductionOp::Max => (3, Some("max")),
        ReductionOp::Min => (4, Some("min")),
        ReductionOp::And => (5, Some(".and.")),
        ReductionOp::Or => (6, Some(".or.")),
        ReductionOp::Eqv => (7, Some(".eqv.")),
        ReductionOp::Neqv => (8, Some(".neqv.")),
        ReductionOp::MaxLoc => (9, None),
        ReductionOp::MinLoc => (10, None),
    }
}

/// Convert PARALLEL loop `pl`. With `hold`, a loop that `fuse` may run together with the next
/// one is not placed: its lines before and after it and its OpenMP clauses are returned
/// instead (None: placed, or not convertible).
fn parallel_loop(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, dos: &[&Node], pl: &ParLoop, regions: &[gpu::Region], hold: bool) -> Option<fuse::Held> {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let fid = u.file;
    let line = pl.dir_line;
    // a vector given arrays of higher rank is read and written in parallel loops only where
    // its elements are local (its references keep the vector's subscripts); no directive
    // may name it
    let mut named: Vec<&str> = pl.on.iter().map(|o| o.name.as_str()).collect();
    for c in &pl.clauses {
        match c {
            Clause::ShadowRenew(v) | Clause::Across(v) | Clause::ShadowCompute(v) => named.extend(v.iter().map(|x| x.name.as_str())),
            Clause::RemoteAccess(v) | Clause::GroupRemoteAccess(_, v) | Clause::Tie(v) => named.extend(v.iter().map(|x| x.name.as_str())),
            _ => {}
        }
    }
    if let Some(n) = named.iter().find(|n| vis.get(&n.to_ascii_lowercase()).is_some_and(|k| cx.arrays[k].reshaped)) {
        cx.err(fid, line, format!("PARALLEL ({}): {} is a vector given a distributed array of higher rank (INHERIT): a PARALLEL directive cannot name it (map the loop on the array of its shape)", pl.vars.join(","), n.to_ascii_uppercase()));
        return None;
    }
    // the loop nest
    let mut nest: Vec<&Node> = vec![dos[pl.outer]];
    while nest.len() < pl.vars.len() {
        let Node::Do { body, .. } = nest[nest.len() - 1] else { break };
        let inner: Vec<&Node> = body.iter().filter(|n| matches!(n, Node::Do { .. })).collect();
        let others = body.iter().filter(|n| match n {
            Node::Stmt(id) => !matches!(u.stmt(*id).kind, StmtKind::Continue),
            _ => !matches!(n, Node::Do { .. }),
        });
        if inner.len() != 1 || others.count() != 0 {
            cx.err(fid, line, format!("PARALLEL ({}): the loops must be tightly nested", pl.vars.join(",")));
            return None;
        }
        nest.push(inner[0]);
    }
    let headers: Vec<&Stmt> = nest
        .iter()
        .map(|n| match n {
            Node::Do { header, .. } => u.stmt(*header),
            _ => unreachable!(),
        })
        .collect();
    for (h, v) in headers.iter().zip(&pl.vars) {
        match &h.kind {
            StmtKind::Do { var, step, .. } => {
                if !var.eq_ignore_ascii_case(v) {
                    cx.err(fid, line, format!("PARALLEL: loop variable {var} does not match {v} of the directive"));
                    return None;
                }
                if let Some(st) = step {
                    // (a loop without ON keeps its own bounds: any step; with ON, a constant
                    // step: clip_header finds the first local iteration)
                    let k = sema.eval_int(st);
                    if pl.on.is_some() && matches!(k, None | Some(0)) {
                        cx.err(h.span.file, h.span.line, "parallel loops with a step that is not a constant are not supported by the runtime yet");
                        return None;
                    }
                    let across = pl.clauses.iter().any(|c| matches!(c, Clause::Across(_)));
                    if across && !matches!(k, Some(1) | Some(-1)) {
                        cx.err(h.span.file, h.span.line, "ACROSS loops with a step other than 1 or -1 are not supported by the runtime yet (the pipeline runs one index after the other, upwards or downwards)");
                        return None;
                    }
                }
            }
            _ => {
                cx.err(fid, line, "PARALLEL must be followed by counted DO loops");
                return None;
            }
        }
    }
    let src = cx.src(fid, headers[0].span.line);
    // split: the ON clause divides the iterations between processes (the profile counts an
    // ON-less loop, which every process runs whole, as insufficient parallelism)
    let mut pre: Vec<String> = vec![format!("call sapfor_loop_begin({src}_8, {})", pl.on.is_some() as i32)];
    // the outermost loop's bounds are evaluated once, on every process, before the loop: a
    // distributed element they read is fetched from its owner first (`sapfor_get`, every
    // process takes part), not read from a shadow edge nobody renewed (a loop ON ROWSTR(J)
    // over `DO K = ROWSTR(J), ROWSTR(J+1)-1` ran no iteration for a row J that ended a block)
    {
        let h = headers[0];
        let t = cx.current_lines(h).swap_remove(0);
        if vis.keys().any(|n| !text::idents(&t, n).is_empty()) {
            let mut calls = vec![];
            match hoist_reads(cx, vis, &t, src, &mut calls) {
                Ok(x) => {
                    cx.replace_stmt(h, vec![x]);
                    pre.extend(calls);
                }
                Err(m) => {
                    cx.err(h.span.file, h.span.line, m);
                    return None;
                }
            }
        }
    }
    let mut post: Vec<String> = vec![];
    let mut omp_ok = true;
    // (nothing but ACROSS keeps the loop off threads: a tiled ACROSS loop may run as a
    // pipeline between the threads of a process)
    let mut omp_other = true;
    let mut omp_red: Vec<String> = vec![];
    let mut private: BTreeSet<String> = BTreeSet::new();
    let mut red_vars: BTreeSet<String> = BTreeSet::new();
    // ON: clip the bounds. `on_split`: the ON array and its dimensions that divide the
    // iterations between processes (for combining reductions: see sapfor_red_end)
    let mut on_split: (String, i32) = (String::new(), 0);
    // ON subscripts that no loop of the tuple indexes (`ON A(I, J, K)` inside a sequential
    // loop over K, `ON A(I, J, 1)`): the iterations run on the processes owning that index
    let mut guards: Vec<String> = vec![];
    if let Some(on) = &pl.on {
        let Some(key) = vis.get(&on.name.to_ascii_lowercase()).cloned() else {
            cx.err(fid, line, format!("PARALLEL ON {}: not a distributed array", on.name));
            return None;
        };
        let split = split_dims(cx, &key);
        on_split.0 = key.clone();
        if on.subs.len() != split.len() {
            cx.err(fid, line, format!("PARALLEL ON {}: wrong number of subscripts", on.name));
            return None;
        }
        // SHADOW_COMPUTE(A(lo:hi, ...)): how far past the owned part of each dimension of the
        // ON array the iterations reach
        let mut compute: Option<Vec<(i64, i64)>> = None;
        for c in &pl.clauses {
            let Clause::ShadowCompute(specs) = c else { continue };
            let [spec] = &specs[..] else {
                cx.err(fid, line, "SHADOW_COMPUTE names one array, the loop's ON array");
                return None;
            };
            if !spec.name.eq_ignore_ascii_case(&on.name) || spec.widths.is_empty() {
                cx.err(fid, line, format!("SHADOW_COMPUTE({}): name the ON array {} with a width for each dimension", spec.name.to_uppercase(), on.name.to_uppercase()));
                return None;
            }
            let Some(w) = spec_widths(cx, ui, &key, spec).filter(|w| w.len() == split.len() && w.iter().all(|(a, b)| *a >= 0 && *b >= 0)) else {
                cx.err(fid, line, format!("SHADOW_COMPUTE({}): the widths must be constants, one pair for each dimension", spec.name.to_uppercase()));
                return None;
            };
            compute = Some(w);
        }
        for (d, sub) in on.subs.iter().enumerate() {
            // a divided dimension the ON clause leaves to `*`: every process along it runs
            // each iteration, and a reference to the ON array, or to an array aligned with it
            // there, reaches elements the others own (a wrong program, for the DVM system
            // too; out of the process's block it corrupted memory before any message)
            // (arrays the loop names in REMOTE_ACCESS are read from their buffers)
            if matches!(sub, Subscript::Star) && split[d] {
                let remote: Vec<String> = pl.clauses.iter().filter_map(|c| if let Clause::RemoteAccess(v) | Clause::GroupRemoteAccess(_, v) = c { Some(v) } else { None }).flatten().map(|r| r.name.to_uppercase()).collect();
                let mut refs = divided_along(cx, vis, &nest_accesses(p, ui, dos[pl.outer]).accesses, &key, d);
                refs.retain(|x| !remote.contains(x));
                if !refs.is_empty() {
                    let nm = on.name.to_uppercase();
                    cx.warn(
                        fid,
                        line,
                        format!("PARALLEL ON {nm}(...): dimension {} of {nm} is divided between processes, and `*` makes every process along it run each iteration: the loop's references to {} reach elements other processes own (map the loop on that dimension too, or leave it undivided; `--check` stops at the first such reference)", d + 1, refs.join(", ")),
                    );
                }
            }
            match sub {
                Subscript::Star => {}
                Subscript::Expr(e) => {
                    let mut done = false;
                    for (k, v) in pl.vars.iter().enumerate() {
                        if let Some(c) = var_offset(e, v, sema) {
                            if cx.arrays[&key].template {
                                // the loop's whole range must lie in the template (outside
                                // it no process would run those iterations)
                                if let StmtKind::Do { lo, hi, step, .. } = &headers[k].kind {
                                    let st = step.as_ref().and_then(|e| sema.eval_int(e)).unwrap_or(1);
                                    match (fexpr(lo), fexpr(hi)) {
                                        (Some(l), Some(h)) => pre.push(format!(
                                            "call sapfor_template_range(sh_{key}, {}, int(({l}) + ({c}), c_int64_t), int(({h}) + ({c}), c_int64_t), {st}_8, {}_8)",
                                            d + 1,
                                            cx.src(fid, headers[k].span.line)
                                        )),
                                        _ => {
                                            cx.err(headers[k].span.file, headers[k].span.line, "cannot read the bounds of this DO statement");
                                            return None;
                                        }
                                    }
                                }
                            }
                            if split[d] {
                                on_split.1 |= 1 << d;
                                let h = headers[k];
                                // (as rewritten so far: the outermost loop's bounds may read
                                // fetched elements)
                                let t = cx.current_lines(h).swap_remove(0);
                                let step = match &h.kind {
                                    StmtKind::Do { step: Some(st), .. } => sema.eval_int(st).unwrap_or(1),
                                    _ => 1,
                                };
                                let ext = compute.as_ref().map_or((0, 0), |w| w[d]);
                                if ext != (0, 0) && step != 1 {
                                    cx.err(fid, line, "SHADOW_COMPUTE: the loop over that dimension must have step 1");
                                    return None;
                                }
                                match clip_header(&t, &key, d + 1, c, step, ext) {
                                    Some(new) => cx.replace_stmt(h, vec![new]),
                                    None => {
                                        cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                                        return None;
                                    }
                                }
                            }
                            done = true;
                        } else if mentions(e, v) {
                            cx.err(fid, line, "PARALLEL ON: only subscripts `var`, `var + c`, `var - c` and `*` are supported");
                            return None;
                        }
                    }
                    if !done && split[d] {
                        guards.push(format!("sapfor_on(sh_{key}, {}, ({e}))", d + 1));
                        on_split.1 |= 1 << d;
                    }
                }
                Subscript::Range(..) => {
                    cx.err(fid, line, "PARALLEL ON: ranges are not allowed");
                    return None;
                }
            }
        }
    }
    if !guards.is_empty() {
        // the outermost loop is empty on the other processes (its upper bound moved below
        // the lower one): the host loop, the kernel and OpenMP all take these bounds
        let h = headers[0];
        let step = match &h.kind {
            StmtKind::Do { step: Some(st), .. } => sema.eval_int(st).unwrap_or(1),
            _ => 1,
        };
        let t = cx.current_lines(h).swap_remove(0);
        match guard_header(&t, &guards.join(" * "), step) {
            Some(new) => cx.replace_stmt(h, vec![new]),
            None => {
                cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                return None;
            }
        }
    }
    // the direction of each loop of the tuple (1 upwards, -1 downwards; checked above)
    let ldirs: Vec<i64> = headers
        .iter()
        .map(|h| match &h.kind {
            StmtKind::Do { step: Some(st), .. } => sema.eval_int(st).map_or(1, |k| k.signum()),
            _ => 1,
        })
        .collect();
    let dirs = match across_direction(cx, ui, vis, pl, &ldirs, dos[pl.outer]) {
        Ok(d) => d,
        Err(m) => {
            cx.err(fid, line, m);
            return None;
        }
    };
    let tile = tile_dim(cx, ui, vis, pl, &headers, &nest, &dirs);
    // reduction items (variables, then their index variables) in registration order
    let mut red_items: Vec<String> = vec![];
    // array reductions, in registration order after the scalar items
    let mut red_arrays: Vec<String> = vec![];
    let mut tiled: Option<(String, String, Vec<i64>, Vec<i64>, Vec<i64>, usize)> = None;
    let outer_free = tile.is_some_and(|t| t.outer_free);
    // arrays whose exchanges this loop limits to the box it references (`limit_box`), and the
    // nest's accesses that tells (walked once, for the first such array)
    let mut limited: Vec<String> = vec![];
    let mut nest_acc: Option<NestAccesses> = None;
    for c in &pl.clauses {
        match c {
            Clause::ShadowRenew(specs) | Clause::Across(specs) => {
                let across = matches!(c, Clause::Across(_));
                if across {
                    omp_ok = false;
                }
                for s in specs {
                    let Some(key) = vis.get(&s.name.to_ascii_lowercase()).cloned() else {
                        cx.err(fid, line, format!("{}: not a distributed array", s.name));
                        return None;
                    };
                    let Some((lo, hi)) = spec_bounds(cx, ui, &key, s) else { return None };
                    let nm = &s.name;
                    let dl = dirs.get(&s.name.to_ascii_lowercase()).cloned().unwrap_or_else(|| vec![1; lo.len()]);
                    let na = nest_acc.get_or_insert_with(|| nest_accesses(p, ui, dos[pl.outer]));
                    if let Some((mask, blo, bhi)) = limit_box(cx, ui, vis, na, nm, lo.len()) {
                        if !limited.contains(&key) {
                            pre.push(format!("call sapfor_limit(sh_{key}, {mask}_c_int64_t, [{}], [{}])", blo.join(", "), bhi.join(", ")));
                            post.push(format!("call sapfor_unlimit(sh_{key})"));
                            limited.push(key.clone());
                        }
                    }
                    if across && tile.is_some() {
                        tiled = Some((key.clone(), nm.to_string(), lo.clone(), hi.clone(), dl, tile.unwrap().dim));
                    } else if across {
                        pre.push(format!("call sapfor_across_begin(sh_{key}, {nm}, {}, {}, {})", i64list(&lo), i64list(&hi), i64list(&dl)));
                        // before any collective of the epilogue: the successors wait for it
                        post.insert(0, format!("call sapfor_across_end(sh_{key}, {nm}, {}, {}, {})", i64list(&lo), i64list(&hi), i64list(&dl)));
                    } else {
                        pre.push(renew_line(&key, nm, &lo, &hi));
                    }
                }
            }
            Clause::Reduction(reds) => {
                for r in reds {
                    let (op, omp) = red_op(r.op);
                    let var = r.var.to_ascii_lowercase();
                    let Some(tc) = red_type_code(&sema.type_of(&var), op) else {
                        cx.err(fid, line, format!("REDUCTION variable {} must be INTEGER, REAL, DOUBLE PRECISION or LOGICAL, or COMPLEX in a SUM or PRODUCT", r.var));
                        return None;
                    };
                    if sema.is_array(&var) {
                        // an array reduction: combined element by element (whole array)
                        if op >= 9 {
                            cx.err(fid, line, format!("{}: MAXLOC/MINLOC of an array is not supported (name a scalar and its index variables)", r.var));
                            return None;
                        }
                        if sema.symbol(&var).is_some_and(|s| s.is_assumed_size()) {
                            cx.err(fid, line, format!("REDUCTION on {}: an assumed-size array has no known size (declare its extent)", r.var));
                            return None;
                        }
                        if vis.contains_key(&var) {
                            cx.err(fid, line, format!("REDUCTION on {}: a distributed array cannot be a reduction variable", r.var));
                            return None;
                        }
                        let Some(count) = intrinsic_of(sema, "size", &var, None) else {
                            cx.err(fid, line, format!("REDUCTION on {}: its size is not constant and SIZE is a variable of this unit", r.var));
                            return None;
                        };
                        pre.push(format!("call sapfor_red_arr({op}, {tc}, {var}, {count})"));
                        red_arrays.push(var.clone());
                        red_vars.insert(var.clone());
                        if let Some(o) = omp {
                            omp_red.push(format!("reduction({o}:{var})"));
                        }
                        continue;
                    }
                    if op >= 9 && tc == 5 {
                        cx.err(fid, line, "MAXLOC/MINLOC of a LOGICAL value");
                        return None;
                    }
                    pre.push(format!("call sapfor_red_var({op}, {tc}, {var})"));
                    red_items.push(var.clone());
                    red_vars.insert(var.clone());
                    match omp {
                        Some(o) => omp_red.push(format!("reduction({o}:{var})")),
                        None => {
                            omp_ok = false;
                            omp_other = false;
                            // MAXLOC(var, i, j, ...) or the DVM form MAXLOC(var, locarray, n)
                            let locs: Vec<String> = match r.loc.as_slice() {
                                [DExpr::Name(a), n] if sema.is_array(&a.to_ascii_lowercase()) => {
                                    let Some(n) = dexpr_int(n, sema) else {
                                        cx.err(fid, line, "MAXLOC/MINLOC: the number of indices must be a constant");
                                        return None;
                                    };
                                    (1..=n).map(|k| format!("{a}({k})")).collect()
                                }
                                xs => {
                                    let mut v = vec![];
                                    for x in xs {
                                        match x {
                                            DExpr::Name(n) => v.push(n.clone()),
                                            _ => {
                                                cx.err(fid, line, "MAXLOC/MINLOC: index arguments must be variables");
                                                return None;
                                            }
                                        }
                                    }
                                    v
                                }
                            };
                            for l in &locs {
                                let base = l.split('(').next().unwrap_or("").to_ascii_lowercase();
                                if type_code(&sema.type_of(&base)) != Some(1) {
                                    cx.err(fid, line, format!("MAXLOC/MINLOC index {l} must be a default INTEGER"));
                                    return None;
                                }
                                pre.push(format!("call sapfor_red_loc({l})"));
                                red_items.push(l.clone());
                            }
                        }
                    }
                }
            }
            Clause::Private(v) => {
                for x in v {
                    private.insert(x.to_ascii_lowercase());
                }
            }
            Clause::RemoteAccess(refs) | Clause::GroupRemoteAccess(_, refs) => {
                // the whole array is gathered on every process and the loop reads the copy
                let mut body_ids = BTreeSet::new();
                collect_stmts(u, dos[pl.outer], &mut body_ids);
                for r in refs {
                    let nm = r.name.to_ascii_lowercase();
                    let Some(key) = vis.get(&nm).cloned().filter(|k| !cx.arrays[k].template) else {
                        cx.err(fid, line, format!("REMOTE_ACCESS: {} is not a distributed array", r.name));
                        return None;
                    };
                    let written = u.stmts.iter().filter(|s| body_ids.contains(&s.id)).any(|s| match &s.kind {
                        StmtKind::Assign { lhs, .. } => lhs.base_name() == Some(nm.as_str()),
                        _ => false,
                    });
                    // a loop that also writes the array (the DVM system's Gauss example:
                    // ON A(J,*), REMOTE_ACCESS(A(I,:)), writing A(J,K) for J > I): only the
                    // references of the clause's form read the copy, when no write can reach
                    // what they read and every other reference is the ON element's row
                    let partial = if written {
                        match remote_apart(cx, ui, dos[pl.outer], pl, r, &key) {
                            Ok(pattern) => Some(pattern),
                            Err(why) => {
                                cx.err(fid, line, format!("REMOTE_ACCESS to {} which the loop also writes: {why}", r.name));
                                return None;
                            }
                        }
                    } else {
                        None
                    };
                    cx.arrays.get_mut(&key).unwrap().full = true;
                    // the section the clause names where every reference that reads the
                    // copy lies in it, else the whole array
                    match remote_box(cx, ui, &body_ids, r, &nm, partial.is_some()) {
                        Some((lo, hi)) => pre.push(format!("call sapfor_fetch(sh_{key}, {nm}, sf_{key}, [integer(c_int64_t) :: {lo}], [integer(c_int64_t) :: {hi}])")),
                        None => pre.push(format!("call sapfor_gather(sh_{key}, {nm}, sf_{key}, 1)")),
                    }
                    for s in u.stmts.iter().filter(|s| body_ids.contains(&s.id)) {
                        if headers.iter().any(|h| h.id == s.id) {
                            continue;
                        }
                        let t = cx.stmt_text(s);
                        if text::idents(&t, &nm).is_empty() {
                            continue;
                        }
                        let new = match &partial {
                            Some(pattern) => rename_matching(&t, &nm, pattern, &format!("sf_{key}")),
                            None => rename(&t, &nm, &format!("sf_{key}")),
                        };
                        if s.span.line != s.span.end_line || cx.replace.contains_key(&(s.span.file.0, s.span.line)) {
                            // multi-line statements are joined; fine
                        }
                        cx.replace_stmt(s, vec![new]);
                    }
                }
            }
            Clause::GroupReduction(g, reds) => {
                // the partial values stay in each process until REDUCTION_START combines them
                let gk = (ui, g.to_ascii_lowercase());
                if !cx.red_groups.contains_key(&gk) {
                    cx.err(fid, line, format!("REDUCTION({}: ...): no REDUCTION_GROUP {} in unit {}", g.to_uppercase(), g.to_uppercase(), u.name.to_uppercase()));
                    return None;
                }
                let mut items = vec![];
                for r in reds {
                    let (op, omp) = red_op(r.op);
                    let var = r.var.to_ascii_lowercase();
                    let tc = red_type_code(&sema.type_of(&var), op);
                    let (Some(tc), Some(o), false) = (tc, omp, sema.is_array(&var)) else {
                        cx.err(fid, line, format!("REDUCTION({}: ...) of {}: a group takes scalar SUM, PRODUCT, MAX, MIN, AND, OR, EQV and NEQV reductions", g.to_uppercase(), r.var.to_uppercase()));
                        return None;
                    };
                    if cx.red_groups.iter().any(|((gu, _), rg)| *gu == ui && rg.items.iter().any(|(_, _, v)| *v == var)) {
                        cx.err(fid, line, format!("REDUCTION({}: ...): {} is already in a reduction group's loop", g.to_uppercase(), r.var.to_uppercase()));
                        return None;
                    }
                    if pl.on.is_some() {
                        pre.push(format!("call sapfor_red_identity({op}, {tc}, {var})"));
                    }
                    omp_red.push(format!("reduction({o}:{var})"));
                    red_vars.insert(var.clone());
                    items.push((op, tc, var));
                }
                let on = pl.on.as_ref().map(|_| on_split.clone());
                let rg = cx.red_groups.get_mut(&gk).unwrap();
                if rg.on.as_ref().is_some_and(|o| *o != on) {
                    cx.err(fid, line, format!("REDUCTION({}: ...): the group's loops are mapped differently (one ON array and division for a group)", g.to_uppercase()));
                    return None;
                }
                rg.on = Some(on);
                rg.items.extend(items);
            }
            Clause::ShadowStart(g) | Clause::ShadowWait(g) => {
                let Some(specs) = shadow_group(cx, ui, g) else {
                    cx.err(fid, line, format!("{}: no SHADOW_GROUP {} in unit {}", if matches!(c, Clause::ShadowStart(_)) { "SHADOW_START" } else { "SHADOW_WAIT" }, g.to_uppercase(), u.name.to_uppercase()));
                    return None;
                };
                if gpu::region_at(regions, fid, line).is_some() {
                    cx.err(fid, line, "SHADOW_START and SHADOW_WAIT are not supported in a loop inside a REGION");
                    return None;
                }
                // (renewed at once: the edges are complete when the loop has written the array)
                if matches!(c, Clause::ShadowStart(_)) {
                    for s in &specs {
                        let Some(call) = renew_call(cx, ui, vis, fid, line, s) else { return None };
                        post.push(call);
                    }
                }
            }
            Clause::CudaBlock(_) | Clause::Tie(_) => {}
            // (read with the ON clause above)
            Clause::ShadowCompute(_) => {
                if pl.on.is_none() {
                    cx.err(fid, line, "SHADOW_COMPUTE needs an ON clause: it widens the loop past the owned part of its ON array");
                    return None;
                }
            }
            Clause::Other(t) => {
                cx.err(fid, line, format!("clause {t} is not supported by the runtime yet"));
                return None;
            }
        }
    }
    // A PARALLEL without ON runs every iteration on every process (only the threads of a
    // process share them): its reductions are complete in each process, not combined.
    if pl.on.is_none() {
        pre.retain(|l| {
            !l.starts_with("call sapfor_red_var(") && !l.starts_with("call sapfor_red_loc(") && !l.starts_with("call sapfor_red_arr(")
        });
        red_items.clear();
        red_arrays.clear();
    }
    // reductions: values are handed over and read back as arguments (see sapfor_red_var);
    // the runtime registered the scalars' items first, then the arrays
    if !red_items.is_empty() || !red_arrays.is_empty() {
        // registration order: scalars (with their indices) were pushed as they came; put the
        // array registrations after them so that the items line up
        let arr_regs: Vec<String> = pre.iter().filter(|l| l.starts_with("call sapfor_red_arr(")).cloned().collect();
        pre.retain(|l| !l.starts_with("call sapfor_red_arr("));
        pre.extend(arr_regs);
        for x in &red_items {
            post.push(format!("call sapfor_red_put({x})"));
        }
        for x in &red_arrays {
            post.push(format!("call sapfor_red_put_arr({x})"));
        }
        post.push(format!("call sapfor_red_end(sh_{}, {})", on_split.0, on_split.1));
        for x in &red_items {
            post.push(format!("call sapfor_red_get({x})"));
        }
        for x in &red_arrays {
            post.push(format!("call sapfor_red_get_arr({x})"));
        }
    }
    // pipelined ACROSS: a tile loop along dimension td (the tiled loop's, `tile_dim`) around the nest;
    // outside regions and the iteration-order mode, in an OpenMP region whose threads share
    // the outermost loop's iterations and keep the pipeline's order between them
    // (`sapfor_tpipe_*`, runtime/rtlib/src/omp.rs) where no process pipeline feeds the tiles
    // (there the region has one thread, which makes the tile messages)
    let threadable = tiled.is_some() && omp_other && !cx.order && gpu::region_at(regions, fid, line).is_none();
    // (the index in `pre` of the region's first line, written once its clauses are known)
    let mut tpipe_at: Option<usize> = None;
    if let Some((key, nm, lo, hi, dl, td)) = &tiled {
        let d = td + 1;
        let (wl, wh, wd) = (i64list(lo), i64list(hi), i64list(dl));
        pre.push(format!("call sapfor_across_start(sh_{key}, {nm}, {wl}, {wh}, {wd}, {d})"));
        let h0 = headers[0];
        let t0 = cx.current_lines(h0).swap_remove(0);
        let outer = if threadable { text::do_parts(&t0).filter(|(_, p)| p.len() == 2 || p.len() == 3) } else { None };
        // (`--explain`: tiles along the loop around the innermost, threads that need not wait)
        let vars: Vec<String> = do_vars(&headers).iter().map(|v| v.to_uppercase()).collect();
        let mut how = vec![];
        if let Some(t) = tile.filter(|t| t.header + 1 < vars.len()) {
            how.push(format!("its pipeline's tiles divide the loop on {}, so that the rows along {} stay whole", vars[t.header], vars[vars.len() - 1]));
        }
        if outer.is_some() && outer_free {
            how.push(format!("the threads sharing its loop on {} do not wait for each other: no reference reads another index of {} than the one it writes", vars[0], vars[0]));
        }
        if !how.is_empty() {
            cx.note(h0.span.file, h0.span.line, format!("this ACROSS nest: {}", how.join("; ")));
        }
        if let Some((eq, parts)) = outer {
            // (the nest's counted work: threads only where each tile of the pipeline pays)
            let work = team_work(cx, ui, &nest, &headers).unwrap_or_else(|| "-1_c_int64_t".to_string());
            // (1: the outermost loop carries no dependence, the threads need not wait)
            let free = i32::from(outer_free);
            pre.push(format!("sapfor_tile_t = sapfor_tpipe_threads(sh_{key}, {d}, {work}, {free})"));
            pre.push(format!("sapfor_tile_s = int(sapfor_tpipe_tile_size(sh_{key}, {d}, sapfor_tile_t))"));
            tpipe_at = Some(pre.len());
            pre.push(TPIPE_BEGIN.to_string());
            let step = parts.get(2).map_or("1", |s| s.trim()).to_string();
            pre.push(format!(
                "call sapfor_tpipe_part(int({}, c_int64_t), int({}, c_int64_t), int({step}, c_int64_t), sapfor_tp_f, sapfor_tp_l)",
                parts[0].trim(),
                parts[1].trim()
            ));
            let with_step = if parts.len() == 3 { format!(", {step}") } else { String::new() };
            cx.replace_stmt(h0, vec![format!("{}= sapfor_tp_f, sapfor_tp_l{with_step}", &t0[..eq])]);
            pre.push("sapfor_tile_k = 0".to_string());
        } else {
            pre.push(format!("sapfor_tile_s = int(sapfor_across_tile_size(sh_{key}, {d}))"));
        }
        // the tiles in the innermost loop's order: downwards from the last tile's start
        // (every process of the pipeline cuts its owned extent at the same points)
        if dl[*td] < 0 {
            pre.push(format!(
                "do sapfor_tile_i = sapfor_lo(sh_{key}, {d}) + ((sapfor_hi(sh_{key}, {d}) - sapfor_lo(sh_{key}, {d})) / sapfor_tile_s) * sapfor_tile_s, sapfor_lo(sh_{key}, {d}), -sapfor_tile_s"
            ));
        } else {
            pre.push(format!("do sapfor_tile_i = sapfor_lo(sh_{key}, {d}), sapfor_hi(sh_{key}, {d}), sapfor_tile_s"));
        }
        let tile_call = |send: i32| format!("call sapfor_across_tile(sh_{key}, {nm}, {wl}, {wh}, {wd}, {d}, int(sapfor_tile_i, c_int64_t), int(sapfor_tile_i + sapfor_tile_s - 1, c_int64_t), {send})");
        if tpipe_at.is_some() {
            pre.push("sapfor_tile_k = sapfor_tile_k + 1".to_string());
            pre.push(format!("if (sapfor_tile_t == 1) {}", tile_call(0)));
            pre.push("if (sapfor_tile_t > 1) call sapfor_tpipe_wait(sapfor_tile_k)".to_string());
            post.splice(
                0..0,
                [
                    "if (sapfor_tile_t > 1) call sapfor_tpipe_post(sapfor_tile_k)".to_string(),
                    format!("if (sapfor_tile_t == 1) {}", tile_call(1)),
                    "end do".to_string(),
                    TPIPE_END.to_string(),
                    format!("call sapfor_across_finish(sh_{key}, {nm}, {wl}, {wh}, {wd}, {d})"),
                ],
            );
        } else {
            pre.push(tile_call(0));
            post.splice(0..0, [tile_call(1), "end do".to_string(), format!("call sapfor_across_finish(sh_{key}, {nm}, {wl}, {wh}, {wd}, {d})")]);
        }
        // the tiled loop (the innermost or the one around it) runs over the current tile only
        let h = headers[tile.map_or(headers.len() - 1, |t| t.header)];
        let t = cx.current_lines(h).swap_remove(0);
        match tile_header(&t) {
            Some(new) => cx.replace_stmt(h, vec![new]),
            None => {
                cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                return None;
            }
        }
    }
    // replicated (non-distributed) arrays written by a distributed loop: each process
    // writes the elements of its iterations; merge them afterwards so every copy is whole
    let mut owned_written = false;
    let mut direct: Option<Direct> = None;
    if pl.on.is_some() {
        let mut body = BTreeSet::new();
        collect_stmts(u, dos[pl.outer], &mut body);
        // (assigned here, or by a procedure called here: `CALL FILL(B(1,J))` writes B's
        // column J on the process running iteration J only)
        let acx = access_ctx(p, ui);
        let mut written: BTreeSet<String> = BTreeSet::new();
        for st in u.stmts.iter().filter(|x| body.contains(&x.id) && x.kind.is_executable()) {
            let (mut accs, mut calls) = (vec![], vec![]);
            acx.stmt_accesses(st, &mut accs, &mut calls);
            for a in accs.iter().filter(|a| a.write) {
                let n = &a.name;
                if sema.is_array(n) && !vis.contains_key(n) && !private.contains(n) && !red_vars.contains(n) {
                    written.insert(n.clone());
                }
            }
        }
        // (arrays the unit declares OWNED: each process keeps its copy, whose elements only
        // its own iterations touch)
        // (and a SHADOW_COMPUTE loop's work arrays: each process computes what it reads)
        let computes = pl.clauses.iter().any(|c| matches!(c, Clause::ShadowCompute(_)));
        let (owned, merged): (Vec<String>, Vec<String>) = written.into_iter().partition(|n| computes || cx.owned.contains(&(ui, n.clone())));
        owned_written = !owned.is_empty();
        for n in merged {
            // up to the last element the loop may write (a dummy may be declared larger than
            // its actual argument: NPB LU's TV(5,LDMX/2*2+1,LDMY) given TV(5*ISIZ1*ISIZ2);
            // the whole dummy would overrun the caller's array)
            let Some(whole) = intrinsic_of(sema, "size", &n, None) else {
                cx.err(fid, line, format!("{}: written in a distributed loop, its size is not constant and SIZE is a variable of this unit", n.to_uppercase()));
                return None;
            };
            let count = match merge_extent(u, sema, dos[pl.outer], &n) {
                Some(last) => format!("max(0_c_int64_t, min({whole}, int({last}, c_int64_t)))"),
                None => whole,
            };
            let bytes = format!("int(storage_size({n}), c_int64_t) / 8 * {count}");
            pre.insert(1, format!("call sapfor_merge_begin({n}, {bytes})"));
            let at = post.iter().position(|x| x.starts_with("call sapfor_red_put")).unwrap_or(post.len());
            post.insert(at, format!("call sapfor_merge_end({n}, {bytes})"));
        }
        copies_on_template(cx, ui, vis, dos[pl.outer], pl, &mut pre, &mut post, &mut direct);
    }
    // an ACROSS nest's two innermost loops in wavefront strips (convert_wave.rs)
    let across = pl.clauses.iter().any(|c| matches!(c, Clause::Across(_)));
    let wave = if across && direct.is_none() && gpu::region_at(regions, fid, line).is_none() && !shares_terminal(u, headers[0].id) {
        wave::strips(cx, ui, pl, &headers, &nest)
    } else {
        vec![]
    };
    // OpenMP: scalars assigned in the body are private unless they are reductions
    let mut body_ids = BTreeSet::new();
    collect_stmts(u, dos[pl.outer], &mut body_ids);
    for s in u.stmts.iter().filter(|s| body_ids.contains(&s.id)) {
        if let StmtKind::Assign { lhs: Expr::Var(v), .. } = &s.kind {
            if !red_vars.contains(v) && !sema.is_array(v) {
                private.insert(v.clone());
            }
        }
        if let StmtKind::Do { var, .. } = &s.kind {
            private.insert(var.clone());
        }
        if let StmtKind::LogicalIf(_, inner) = &s.kind {
            if let StmtKind::Assign { lhs: Expr::Var(v), .. } = &inner.kind {
                if !red_vars.contains(v) && !sema.is_array(v) {
                    private.insert(v.clone());
                }
            }
        }
    }
    for v in &red_vars {
        private.remove(v);
    }
    // inside a region: the kernel launch, chosen at run time next to the host loop
    if let Some(r) = gpu::region_at(regions, fid, line) {
        let host_only = if owned_written || pre.iter().any(|l| l.starts_with("call sapfor_merge_begin")) {
            Some("it writes a non-distributed array while its iterations are distributed")
        } else if pl.clauses.iter().any(|c| matches!(c, Clause::RemoteAccess(_) | Clause::GroupRemoteAccess(..))) {
            Some("REMOTE_ACCESS reads a gathered copy")
        } else if red_vars.iter().any(|v| sema.is_array(v)) {
            Some("it combines an array reduction")
        } else if pl.clauses.iter().any(|c| matches!(c, Clause::GroupReduction(..))) {
            Some("it adds to a reduction group")
        } else {
            None
        };
        gpu::parallel_loop(cx, ui, pl, dos[pl.outer], &headers, r, host_only, &mut pre, &mut post);
    } else {
        pre.extend(gpu::host_loop_scalars(cx, ui, dos[pl.outer]));
    }
    let mut copyin = vec![];
    if omp_ok {
        match tp::loop_clauses(cx, ui, dos[pl.outer], &mut private, &red_vars) {
            Ok(c) => copyin = c,
            Err(why) => {
                omp_ok = false;
                cx.warn(fid, line, format!("this loop runs on one thread per process: {why}"));
            }
        }
    }
    // (and where `pre` has the directive, for a loop `fuse` holds)
    let mut clauses: Option<(Omp, usize)> = None;
    if omp_ok {
        // a private array starts each thread with the values from before the loop, as each
        // process's copy does: an iteration may read elements no iteration writes (NPB BT's
        // UE(I+2,M) at I = 1 when GP < 4)
        let (arrays, scalars): (Vec<String>, Vec<String>) = private.iter().cloned().partition(|v| sema.is_array(v));
        let c = Omp { work: team_work(cx, ui, &nest, &headers), copyin, scalars, arrays, reds: omp_red.clone() };
        pre.push(c.line("!$omp parallel do schedule(static)"));
        clauses = Some((c, pre.len() - 1));
    }
    // the threads of a tiled ACROSS loop: the region's clauses as a parallel loop's, with the
    // tile loop's variables private; where threadprivate COMMON blocks forbid threads, one
    // thread (the region's lines go)
    if let Some(at) = tpipe_at {
        let end = post.iter().position(|l| l == TPIPE_END).expect("the region's end follows its start");
        match tp::loop_clauses(cx, ui, dos[pl.outer], &mut private, &red_vars) {
            Ok(copyin) => {
                let (arrays, mut scalars): (Vec<String>, Vec<String>) = private.iter().cloned().partition(|v| sema.is_array(v));
                scalars.extend(["sapfor_tile_i", "sapfor_tile_k", "sapfor_tp_f", "sapfor_tp_l"].map(String::from));
                scalars.extend(wave.iter().cloned());
                let c = Omp { work: None, copyin, scalars, arrays, reds: omp_red.clone() };
                pre[at] = c.line("!$omp parallel num_threads(sapfor_tile_t)");
                post[end] = "!$omp end parallel".to_string();
            }
            Err(why) => {
                cx.warn(fid, line, format!("this loop runs on one thread per process: {why}"));
                pre[at - 2] = "sapfor_tile_t = 1".to_string();
                pre.remove(at);
                post.remove(end);
            }
        }
    }
    // iteration-order mode: each loop of the tuple counts its iterations in sapfor_okN and
    // takes its index from the runtime; loops whose order is part of their meaning (ACROSS,
    // MAXLOC/MINLOC: the ones OpenMP may not split either) keep it
    if cx.order && omp_ok {
        let mut counters = vec![];
        for (k, h) in headers.iter().enumerate().take(7) {
            let t = cx.current_lines(h).swap_remove(0);
            let Some((new, set_var)) = ordered_header(&t, k + 1, src) else { continue };
            cx.replace_stmt(h, vec![new]);
            let at = cx.after.entry((h.span.file.0, h.span.end_line)).or_default();
            at.insert(0, set_var);
            counters.push(format!("sapfor_ok{}", k + 1));
        }
        if let Some(omp) = pre.last_mut().filter(|l| l.starts_with("!$omp parallel do") && !counters.is_empty()) {
            // the loop variables are private already; the counters of inner loops too
            if let Some(p) = omp.find(" private(") {
                omp.insert_str(p + 9, &format!("{},", counters.join(",")));
            } else {
                omp.push_str(&format!(" private({})", counters.join(",")));
            }
        }
    }
    post.push(format!("call sapfor_loop_end({src}_8)"));
    // STOP statements inside the loop: every process stops after it, together
    match loop_stops(cx, ui, dos[pl.outer]) {
        Ok(v) => post.extend(v),
        Err((f, l, m)) => {
            cx.err(f, l, m);
            return None;
        }
    }
    let _ = pl.dir_end;
    let h0 = headers[0];
    let end = last_line(u, dos[pl.outer]);
    // (a loop `fuse` may run with the next: only the plain forms, placed by `fuse`)
    // (nor where a replicated array it writes is merged or kept by its owners: the other
    // loop might read what other processes wrote)
    let merges = owned_written || pre.iter().any(|l| l.starts_with("call sapfor_merge_begin"));
    if hold && !merges && direct.is_none() && tiled.is_none() && guards.is_empty() && !cx.order && gpu::region_at(regions, fid, line).is_none() && !shares_terminal(u, h0.id) {
        let omp = clauses.map(|(c, at)| {
            pre.remove(at);
            c
        });
        return Some(fuse::Held { pre, post, omp });
    }
    // a loop running along the arrays' rows with its column loop inside: that loop innermost
    // (convert_swap.rs)
    if tiled.is_none() && wave.is_empty() && gpu::region_at(regions, fid, line).is_none() && !shares_terminal(u, h0.id) {
        swap::innermost(cx, ui, pl, &headers, &nest, &private, clauses.as_mut(), &mut pre, &mut post);
    }
    // a loop ending at the terminal statement of an enclosing DO (`DO 10 K` around `DO 10 J`)
    // has its DO statements naming that label made block DOs closed before the statement, and
    // what follows the loop goes there, inside the enclosing loop (after the shared statement
    // it ran once after the enclosing loop: reductions failed, copies were lost)
    if shares_terminal(u, h0.id) {
        let mut inside = BTreeSet::new();
        collect_stmts(u, dos[pl.outer], &mut inside);
        let StmtKind::Do { label: Some(l), .. } = h0.kind else { unreachable!("shares_terminal: a labelled DO") };
        let doers: Vec<&Stmt> = u.stmts.iter().filter(|s| inside.contains(&s.id) && matches!(s.kind, StmtKind::Do { label: Some(m), .. } if m == l)).collect();
        let term = u.stmts.iter().find(|s| inside.contains(&s.id) && s.label == Some(l));
        let Some(term) = term else {
            cx.err(h0.span.file, h0.span.line, format!("cannot find the statement labelled {l} that ends this loop"));
            return None;
        };
        for h in &doers {
            let mut t = cx.current_lines(h);
            match text::do_label(&t[0]) {
                Some((a, b, _)) => {
                    // (and the comma of `DO 10, I = ...`)
                    let to = t[0][b..].trim_start().strip_prefix(',').map_or(b, |r| t[0].len() - r.len());
                    t[0].replace_range(a..to, "");
                    cx.replace_stmt(h, t);
                }
                None => {
                    cx.err(h.span.file, h.span.line, "cannot read this DO statement");
                    return None;
                }
            }
        }
        let mut t = cx.current_lines(term);
        let (lab, rest) = text::split_label(&t[0]);
        if lab.as_deref() != Some(&l.to_string()) {
            cx.err(term.span.file, term.span.line, format!("cannot rewrite the statement labelled {l} that ends a PARALLEL loop and the DO loop around it (give the PARALLEL loop its own CONTINUE)"));
            return None;
        }
        t[0] = rest;
        if matches!(term.kind, StmtKind::Continue) && t.len() == 1 {
            t.clear();
        }
        t.extend(doers.iter().map(|_| "end do".to_string()));
        t.extend(post);
        t.push(format!("{l} continue"));
        cx.replace_stmt(term, t);
        cx.before.entry((h0.span.file.0, h0.span.line)).or_default().extend(pre);
        return None;
    }
    // a loop over full copies runs on the arrays themselves where one process holds them
    // whole: written twice (outside regions and pipelines, where `written_twice` allows)
    let first = h0.span.line;
    let twice = if direct.is_some() && tiled.is_none() && gpu::region_at(regions, fid, line).is_none() { written_twice(cx, ui, dos[pl.outer]) } else { None };
    if let (Some(d), Some((labels, label_dos))) = (direct, twice) {
        // (the profile's loop_begin and loop_end around both)
        let begin = pre.remove(0);
        let finish = post.pop().expect("loop_end");
        let keep = |v: &[String]| v.iter().filter(|l| !d.copy_lines.contains(*l)).cloned().collect::<Vec<_>>();
        let mut direct_pre = d.touch_pre.clone();
        direct_pre.extend(keep(&pre));
        let mut direct_post = keep(&post);
        direct_post.extend(d.touch_post.iter().cloned());
        let v = Version { last: end, cond: d.cond.join(" .and. "), direct_pre, direct_post, copy_pre: pre, copy_post: post, back: d.back, labels, label_dos };
        cx.before.entry((fid.0, first)).or_default().push(begin);
        cx.after.entry((fid.0, end)).or_default().insert(0, finish);
        cx.versions.insert((fid.0, first), v);
        return None;
    }
    cx.before.entry((h0.span.file.0, h0.span.line)).or_default().extend(pre);
    cx.after.entry((fid.0, end)).or_default().splice(0..0, post);
    None
}

/// Whether the lines of loop nest `n` of unit `ui` may be written twice (`Version`): they hold
/// no statement of another construct (`END IF; DO ...`), and no GO TO, arithmetic IF, I/O,
/// FORMAT or statement not modelled; the new labels of the first version for those the lines
/// define (None past 99999), and how many DO statements name one.
fn written_twice(cx: &mut Cx, ui: usize, n: &Node) -> Option<(BTreeMap<u32, u32>, usize)> {
    let u = &cx.p.units[ui];
    let Node::Do { header, .. } = n else { return None };
    let (first, end) = (u.stmt(*header).span.line, last_line(u, n));
    let mut nest = BTreeSet::new();
    collect_stmts(u, n, &mut nest);
    let on_lines: Vec<&Stmt> = u.stmts.iter().filter(|s| s.span.file == u.file && s.span.line <= end && s.span.end_line >= first).collect();
    let jumps = on_lines.iter().any(|s| !analyzer::cfg::jump_labels(&s.kind).is_empty() || analyzer::cfg::stmt_is(&s.kind, &|k| matches!(k, StmtKind::Io { .. } | StmtKind::Format | StmtKind::Unsupported { .. })));
    if jumps || on_lines.iter().any(|s| !nest.contains(&s.id)) || u.stmt(*header).span.file != u.file {
        return None;
    }
    // (a label of the lines that a statement elsewhere names: an outer loop ending at the
    // same CONTINUE, `DO 10 IT` around `DO 10 J`, would end inside the IF)
    let defined: BTreeSet<u32> = on_lines.iter().filter_map(|s| s.label).collect();
    let do_label = |s: &Stmt| match s.kind {
        StmtKind::Do { label, .. } | StmtKind::DoWhile { label, .. } => label,
        _ => None,
    };
    let named_elsewhere = u.stmts.iter().filter(|s| !nest.contains(&s.id)).any(|s| do_label(s).into_iter().chain(analyzer::cfg::jump_labels(&s.kind)).any(|l| defined.contains(&l)));
    let ends_elsewhere = on_lines.iter().filter_map(|s| do_label(s)).any(|l| !defined.contains(&l));
    if named_elsewhere || ends_elsewhere {
        return None;
    }
    let label_dos = on_lines.iter().filter(|s| do_label(s).is_some()).count();
    let mut labels: BTreeMap<u32, u32> = BTreeMap::new();
    let next = cx.fresh_labels.entry(ui).or_insert_with(|| u.stmts.iter().filter_map(|s| s.label).max().unwrap_or(0) + 1);
    for l in on_lines.iter().filter_map(|s| s.label) {
        labels.insert(l, *next);
        *next += 1;
    }
    labels.values().all(|l| *l <= 99_999).then_some((labels, label_dos))
}

/// The direction the ACROSS pipeline runs in each dimension of each ACROSS array (by lower-case
/// name; 1: new values flow from lower to higher indices, -1: from higher to lower): that of
/// the loop whose variable indexes the dimension (`ldirs`: the tuple's loops' directions,
/// outer first), 1 where no loop of the tuple does. Err: a reference the pipeline cannot
/// serve. In the nest's order (each loop's own direction), a reference that reads a value
/// written in an earlier iteration must not be ahead in a distributed dimension's flow (like
/// `A(I+1,J-1)` with both loops upwards and J outer), nor one not yet updated behind it: those
/// would need the opposite flow there; and the loops indexing one dimension must run one way.
fn across_direction(
    cx: &Cx,
    ui: usize,
    vis: &BTreeMap<String, String>,
    pl: &ParLoop,
    ldirs: &[i64],
    outer: &Node,
) -> Result<BTreeMap<String, Vec<i64>>, String> {
    let u = &cx.p.units[ui];
    let mut body = BTreeSet::new();
    collect_stmts(u, outer, &mut body);
    let vars: Vec<String> = pl.vars.iter().map(|v| v.to_ascii_lowercase()).collect();
    let mut out = BTreeMap::new();
    for c in &pl.clauses {
        let Clause::Across(specs) = c else { continue };
        for sp in specs {
            let name = sp.name.to_ascii_lowercase();
            let Some(key) = vis.get(&name) else { continue };
            let split = split_dims(cx, key);
            let mut refs: Vec<Vec<Option<(String, i64)>>> = vec![];
            let mut msg: Option<String> = None;
            // (which of `refs` are left-hand sides)
            let on_lhs = std::cell::Cell::new(false);
            let mut writes: Vec<usize> = vec![];
            let mut gather = |e: &Expr| {
                let Expr::Ref(n, args) = e else { return };
                if n != &name || msg.is_some() {
                    return;
                }
                // a constant in a dimension that is not split orders nothing (`C(I,J,2)`)
                let subs: Vec<Option<(String, i64)>> = args
                    .iter()
                    .enumerate()
                    .map(|(d, a)| {
                        let e = a.expr()?;
                        affine(e).or_else(|| (matches!(e, Expr::Int(_)) && !split.get(d).copied().unwrap_or(true)).then(|| (String::new(), 0)))
                    })
                    .collect();
                if subs.iter().any(|x| x.is_none()) || subs.len() != split.len() {
                    msg = Some(format!("ACROSS array {} is indexed by something other than `loop variable + constant`; the runtime cannot pipeline it", sp.name));
                    return;
                }
                if on_lhs.replace(false) {
                    writes.push(refs.len());
                }
                refs.push(subs);
            };
            for st in u.stmts.iter().filter(|x| body.contains(&x.id)) {
                match &st.kind {
                    StmtKind::Assign { lhs, rhs } => {
                        on_lhs.set(matches!(lhs, Expr::Ref(n, _) if *n == name));
                        lhs.walk(&mut gather);
                        on_lhs.set(false);
                        rhs.walk(&mut gather);
                    }
                    StmtKind::IfThen(c) | StmtKind::ElseIf(c) => c.walk(&mut gather),
                    StmtKind::LogicalIf(c, inner) => {
                        c.walk(&mut gather);
                        if let StmtKind::Assign { lhs, rhs } = &inner.kind {
                            lhs.walk(&mut gather);
                            rhs.walk(&mut gather);
                        }
                    }
                    _ => {}
                }
            }
            if let Some(m) = msg {
                return Err(m);
            }
            // each dimension's flow: the direction of the loop indexing it
            let level_dir = |v: &str| vars.iter().position(|x| x == v).map(|k| ldirs[k]);
            let mut dirs: Vec<Option<i64>> = vec![None; split.len()];
            for subs in &refs {
                for (d, (v, _)) in subs.iter().flatten().enumerate() {
                    if let Some(ld) = level_dir(v) {
                        if dirs[d].is_some_and(|x| x != ld) {
                            return Err(format!(
                                "ACROSS: dimension {} of {} is indexed by loops that run in opposite directions; the runtime cannot pipeline it",
                                d + 1,
                                sp.name
                            ));
                        }
                        dirs[d] = Some(ld);
                    }
                }
            }
            let dirs: Vec<i64> = dirs.iter().map(|x| x.unwrap_or(1)).collect();
            // offsets from the iteration that writes the element: relative to each write of the
            // array (`C(I,J-1,K)` read where `C(I,J,K-1)` is written comes from J-1 and K+1),
            // and to the iteration itself
            let zero: Vec<Option<(String, i64)>> = vec![None; split.len()];
            let bases: Vec<&Vec<Option<(String, i64)>>> = writes.iter().filter_map(|&k| refs.get(k)).chain(std::iter::once(&zero)).collect();
            for (subs, base) in refs.iter().flat_map(|r| bases.iter().map(move |b| (r, *b))) {
                let rel = |d: usize| -> i64 {
                    match (&subs[d], &base[d]) {
                        (Some((v, c)), Some((w, c2))) if v == w => c - c2,
                        // (the iteration's own position is only along the tuple's loops: a
                        // dimension another variable indexes, `E(I+2,J-1)` in a loop over I
                        // inside one over J, lies in the one plane the iteration works in)
                        (Some((v, c)), None) if vars.contains(v) => *c,
                        _ => 0,
                    }
                };
                // offsets in the nest's order (negative: an earlier iteration), by loop depth
                let mut by_depth = vec![0i64; vars.len()];
                for (d, sub) in subs.iter().enumerate() {
                    if let Some((v, _)) = sub {
                        if let Some(k) = vars.iter().position(|x| x == v) {
                            by_depth[k] = rel(d) * ldirs[k];
                        }
                    }
                }
                let sign = by_depth.iter().find(|&&c| c != 0).map(|c| c.signum()).unwrap_or(0);
                for (d, _) in subs.iter().enumerate() {
                    // the offset along the dimension's flow
                    let cd = rel(d) * dirs[d];
                    if split[d] && ((sign < 0 && cd > 0) || (sign > 0 && cd < 0)) {
                        return Err(format!(
                            "ACROSS: a reference to {} reads a value {} at a {} index of distributed dimension {}; the runtime pipelines only in the direction of the loop indexing that dimension (not supported yet)",
                            sp.name,
                            if sign < 0 { "computed in an earlier iteration" } else { "not yet updated" },
                            if (sign < 0) == (dirs[d] > 0) { "higher" } else { "lower" },
                            d + 1
                        ));
                    }
                }
            }
            out.insert(name, dirs);
        }
    }
    Ok(out)
}

/// Placeholders for the first and last lines of a tiled ACROSS loop's thread region, replaced
/// once its clauses are known.
const TPIPE_BEGIN: &str = "!$sapfor tpipe begin";
const TPIPE_END: &str = "!$sapfor tpipe end";

/// `DO var = lo, hi` (or `DO var = hi, lo, -1`) -> the same bounds intersected with the
/// current ACROSS tile.
fn tile_header(t: &str) -> Option<String> {
    let (eq, parts) = text::do_parts(t)?;
    match parts.len() {
        2 => Some(format!(
            "{}= max({}, sapfor_tile_i), min({}, sapfor_tile_i + sapfor_tile_s - 1)",
            &t[..eq],
            parts[0].trim(),
            parts[1].trim()
        )),
        3 if parts[2].replace(' ', "") == "-1" => Some(format!(
            "{}= min({}, sapfor_tile_i + sapfor_tile_s - 1), max({}, sapfor_tile_i), -1",
            &t[..eq],
            parts[0].trim(),
            parts[1].trim()
        )),
        _ => None,
    }
}

/// What `--explain`'s notes say of a nest `plain_nest` refuses (convert_fuse.rs,
/// convert_wave.rs).
const NOT_PLAIN: &str = "a statement beyond assignments, DO and IF constructs (a jump, a call, I/O)";
/// What they say of a nest whose accesses are `aliased`.
const SHARED_STORAGE: &str = "two of their names may share storage (EQUIVALENCE, or one call gives two dummies the same array)";

/// Whether nest `n` of unit `u` holds only assignments and DO and IF constructs (no jump,
/// CYCLE or EXIT, call, I/O or statement not modelled): what the loop transformations
/// (convert_fuse.rs, convert_wave.rs) may reorder.
fn plain_nest(u: &Unit, n: &Node) -> bool {
    let mut plain = true;
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
        let kind = match &st.kind {
            StmtKind::LogicalIf(_, inner) => &inner.kind,
            k => k,
        };
        plain &= matches!(kind, StmtKind::Assign { .. } | StmtKind::Do { .. } | StmtKind::EndDo | StmtKind::IfThen(_) | StmtKind::ElseIf(_) | StmtKind::Else | StmtKind::EndIf | StmtKind::Continue);
    });
    plain
}

/// STOP statements inside parallel loop `n` (`STOP`, `IF (cond) STOP`, with a code or a
/// message): a process reaching one cannot end the program alone, since the others would run
/// on past the loop, printing what the sequential program never prints, until the run fails.
/// Each becomes `call sapfor_stop_set(k, pos, n)` (k its number in the loop, `pos` the values
/// of the DO variables around it, which order the iterations as the sequential program runs
/// them) and CYCLE, which skips the rest of the iteration (of the innermost DO around it);
/// after the loop every process learns which STOP the first iteration in that order to reach
/// one reached (`sapfor_stop_pending`), and all of them run it (after `sapfor_finalize`, as a
/// STOP outside loops). The lines after the loop, or the
/// file, line and message of a STOP that cannot be rewritten.
fn loop_stops(cx: &mut Cx, ui: usize, n: &Node) -> Result<Vec<String>, (FileId, u32, String)> {
    let u = &cx.p.units[ui];
    // each STOP with the DO loops around it in the nest, outermost first: (variable, whether
    // it counts downwards)
    fn walk<'u>(u: &'u Unit, sema: &UnitSema, nodes: &'u [Node], dos: &mut Vec<(String, bool)>, out: &mut Vec<(&'u Stmt, Vec<(String, bool)>)>) {
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    let st = u.stmt(*id);
                    let inner = match &st.kind {
                        StmtKind::LogicalIf(_, inner) => inner.as_ref(),
                        _ => st,
                    };
                    if matches!(inner.kind, StmtKind::Stop) {
                        out.push((st, dos.clone()));
                    }
                }
                Node::Do { header, body, .. } => {
                    let pushed = match &u.stmt(*header).kind {
                        StmtKind::Do { var, step, .. } => {
                            let down = step.as_ref().and_then(|e| sema.eval_int(e)).is_some_and(|k| k < 0);
                            dos.push((var.to_ascii_lowercase(), down));
                            true
                        }
                        _ => false,
                    };
                    walk(u, sema, body, dos, out);
                    if pushed {
                        dos.pop();
                    }
                }
                Node::If { arms, .. } => {
                    for (_, b) in arms {
                        walk(u, sema, b, dos, out);
                    }
                }
            }
        }
    }
    let mut stops = vec![];
    walk(u, &cx.p.semas[ui], std::slice::from_ref(n), &mut vec![], &mut stops);
    if stops.is_empty() {
        return Ok(vec![]);
    }
    // (the STOP statements' texts, one number for equal ones)
    let mut texts: Vec<String> = vec![];
    for (st, around) in stops {
        // (where the iteration stands in the sequential order: the DO variables, outermost
        // first, those counting downwards negated; the first 8)
        let pos = around.iter().take(8).map(|(v, down)| if *down { format!("-int({v}, c_int64_t)") } else { format!("int({v}, c_int64_t)") }).collect::<Vec<_>>();
        let set = |k: usize| format!("call sapfor_stop_set({k}, [integer(c_int64_t) :: {}], {})", pos.join(", "), pos.len());
        let t = cx.current_lines(st);
        let bad = || (st.span.file, st.span.line, "cannot read this STOP statement inside a PARALLEL loop".to_string());
        if t.len() != 1 {
            return Err(bad());
        }
        let (label, body) = text::split_label(&t[0]);
        // (a logical IF ending a DO loop stays one: nothing of the iteration follows it)
        let terminal = st.label.is_some_and(|l| u.stmts.iter().any(|d| matches!(d.kind, StmtKind::Do { label: Some(m), .. } if m == l)));
        let label = label.map(|l| format!("{l} ")).unwrap_or_default();
        let (cond, stop) = match &st.kind {
            StmtKind::LogicalIf(..) => {
                let rest = text::strip_kw(&body, "if").ok_or_else(bad)?;
                let open = body.len() - rest.len() + rest.find('(').ok_or_else(bad)?;
                let close = text::matching_paren(&body, open).ok_or_else(bad)?;
                (Some(body[open..=close].to_string()), body[close + 1..].trim().to_string())
            }
            _ => (None, body.clone()),
        };
        if text::strip_kw(&stop, "stop").is_none() {
            return Err(bad());
        }
        let k = match texts.iter().position(|x| x.eq_ignore_ascii_case(&stop)) {
            Some(i) => i + 1,
            None => {
                texts.push(stop);
                texts.len()
            }
        };
        let lines = match cond {
            Some(c) if terminal => vec![format!("{label}if {c} {}", set(k))],
            Some(c) => vec![format!("{label}if {c} then"), set(k), "cycle".into(), "end if".into()],
            None => vec![format!("{label}{}", set(k)), "cycle".into()],
        };
        cx.replace_stmt(st, lines);
    }
    let mut post = vec!["sapfor_stop_k = sapfor_stop_pending()".to_string()];
    for (k, t) in texts.iter().enumerate() {
        // (its message and code from the I/O process alone, as the sequential program's once)
        post.push(if texts.len() == 1 { "if (sapfor_stop_k /= 0) then".to_string() } else { format!("if (sapfor_stop_k == {}) then", k + 1) });
        post.extend(["if (sapfor_io()) then".to_string(), "call sapfor_finalize()".into(), t.clone(), "end if".into(), "call sapfor_finalize()".into(), "stop".into(), "end if".into()]);
    }
    Ok(post)
}

/// Whether some access of `accs` goes through a procedure or to storage two names share (an
/// EQUIVALENCE, two dummies one call gives the same array): what the subscripts alone do
/// not show.
fn aliased(sema: &UnitSema, accs: &[analyzer::access::Access]) -> bool {
    accs.iter().any(|a| a.via_call.is_some() || sema.shared_dummies.contains_key(&a.name) || sema.symbol(&a.name).is_some_and(|s| !s.aliases.is_empty()))
}

/// The offset of `v` in subscript `a` (`v`, `v + c`, `v - c`).
fn offset(a: &analyzer::ast::Arg, v: &str) -> Option<i64> {
    let (x, c) = affine(a.expr()?)?;
    x.eq_ignore_ascii_case(v).then_some(c)
}

/// The one dimension every reference of `refs` (each with its variable) indexes by its
/// variable plus a constant (the first such subscript of each); None where a reference has
/// none, no subscripts, or they disagree.
fn one_dim<'a>(refs: impl Iterator<Item = (&'a analyzer::access::Access, &'a str)>) -> Option<usize> {
    let mut dim = None;
    for (a, v) in refs {
        let at = a.subs.as_ref()?.iter().position(|s| offset(s, v).is_some())?;
        if dim.is_some_and(|d| d != at) {
            return None;
        }
        dim = Some(at);
    }
    dim
}

/// The names expressions `es` read (variables and arrays or functions), lowercase.
fn names_in(es: &[&Expr]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in es {
        e.walk(&mut |x| {
            if let Expr::Var(n) | Expr::Ref(n, _) = x {
                out.insert(n.to_ascii_lowercase());
            }
        });
    }
    out
}

/// Whether reduction `r` gives the same value in any order of its iterations (MAX, MIN, the
/// logical ones, sums and products of integers): what a loop transformation may reorder on
/// one process without changing the sequential program's last digits.
fn order_free(sema: &UnitSema, r: &analyzer::directives::Reduction) -> bool {
    use analyzer::directives::ReductionOp::*;
    match r.op {
        Max | Min | And | Or | Eqv | Neqv => true,
        Sum | Product => matches!(sema.type_of(&r.var.to_ascii_lowercase()).base, analyzer::ast::BaseType::Integer),
        MaxLoc | MinLoc => false,
    }
}

/// `v + c` for an affine subscript of one variable (None otherwise).
fn affine(e: &Expr) -> Option<(String, i64)> {
    use analyzer::ast::BinOp;
    match e {
        Expr::Var(v) => Some((v.clone(), 0)),
        Expr::Binary(BinOp::Add, a, b) => match (&**a, &**b) {
            (Expr::Var(v), Expr::Int(c)) | (Expr::Int(c), Expr::Var(v)) => Some((v.clone(), *c)),
            _ => None,
        },
        Expr::Binary(BinOp::Sub, a, b) => match (&**a, &**b) {
            (Expr::Var(v), Expr::Int(c)) => Some((v.clone(), -*c)),
            _ => None,
        },
        _ => None,
    }
}

/// How a pipelined ACROSS loop is cut into tiles (`tile_dim`).
#[derive(Clone, Copy)]
struct Tile {
    /// the array's dimension the tiles divide (0-based)
    dim: usize,
    /// the loop of the nest (its index in the headers) that runs over one tile
    header: usize,
    /// the outermost loop carries no dependence (see `tile_dim`)
    outer_free: bool,
}

/// Whether an ACROSS loop can be pipelined in tiles, along which dimension and loop. Needs:
/// one ACROSS array, the ON array itself; the tiled loop's variable indexes a dimension of
/// it exactly (offset 0); every reference to the array in the body is affine in the loop
/// variables, and none reads "ahead" in the tiled dimension and "behind" in another (like
/// A(I+1,J-1)): then running the tiles one after the other (tile loop outermost) keeps
/// every dependence of the original order. The tiled loop is the innermost one, or in a nest
/// of three or more loops whose innermost runs along the array's first (contiguous)
/// dimension the one around it where that is allowed and no dependence runs along its
/// dimension: tiles of the contiguous dimension
/// leave short pieces of rows (the DVM system's `adi.fdv`, its sweep along K on two
/// processes: 2.4 times the time of one process with tiles of I, 0.5 with tiles of J).
/// Also whether the outermost loop carries no dependence: its variable indexes a dimension
/// of the array in which every reference reads the ON reference's plane (offset 0), so the
/// threads that share its iterations need not wait for each other (`sapfor_tpipe_threads`).
fn tile_dim(
    cx: &Cx,
    ui: usize,
    vis: &BTreeMap<String, String>,
    pl: &ParLoop,
    headers: &[&Stmt],
    nest: &[&Node],
    dirs: &BTreeMap<String, Vec<i64>>,
) -> Option<Tile> {
    let u = &cx.p.units[ui];
    let on = pl.on.as_ref()?;
    let specs: Vec<&ShadowSpec> = pl
        .clauses
        .iter()
        .filter_map(|c| if let Clause::Across(v) = c { Some(v) } else { None })
        .flatten()
        .collect();
    let n = headers.len();
    if specs.len() != 1 || n < 2 || !specs[0].name.eq_ignore_ascii_case(&on.name) {
        return None;
    }
    let name = on.name.to_ascii_lowercase();
    let key = vis.get(&name)?;
    spec_widths(cx, ui, key, specs[0])?;
    let dl = dirs.get(&name).cloned().unwrap_or_default();
    // the ON subscript that is exactly the variable of loop `h`
    let dim_of = |h: usize| {
        let StmtKind::Do { var, .. } = &headers[h].kind else { return None };
        on.subs.iter().position(|s| matches!(s, Subscript::Expr(DExpr::Name(n)) if n.eq_ignore_ascii_case(var)))
    };
    let inner = dim_of(n - 1)?;
    let loop_vars: BTreeSet<String> = do_vars(headers).into_iter().collect();
    // each ON subscript as a variable plus an offset (`ON C(I,J+1,K+1)`): the references'
    // offsets count from these
    let sema = &cx.p.semas[ui];
    let on_aff: Vec<Option<(String, i64)>> = on
        .subs
        .iter()
        .map(|s| match s {
            Subscript::Expr(DExpr::Name(n)) => Some((n.to_ascii_lowercase(), 0)),
            Subscript::Expr(e) => loop_vars.iter().find_map(|v| var_offset(e, v, sema).map(|c| (v.clone(), c))),
            _ => None,
        })
        .collect();
    let on_var = |d: usize| on_aff[d].as_ref().map(|x| x.0.as_str());
    let on_off = |d: usize| on_aff[d].as_ref().map_or(0, |x| x.1);
    // the array's references: each subscript a variable and an offset (a constant subscript:
    // no variable)
    let mut refs: Vec<Vec<(String, i64)>> = vec![];
    let mut ok = true;
    let mut body = BTreeSet::new();
    collect_stmts(u, nest[0], &mut body);
    let mut check = |e: &Expr| {
        if let Expr::Ref(nm, args) = e {
            if nm == &name {
                let subs: Option<Vec<(String, i64)>> = args
                    .iter()
                    .map(|a| match a.expr() {
                        Some(Expr::Int(c)) => Some((String::new(), *c)),
                        e => e.and_then(affine),
                    })
                    .collect();
                // (the ON reference has the array's rank: checked where the loop is read);
                // every subscript names the ON reference's variable of its dimension
                match subs {
                    Some(subs)
                        if subs.len() == on_aff.len()
                            && subs.iter().enumerate().all(|(d, (v, _))| on_var(d).is_none_or(|w| w.eq_ignore_ascii_case(v))) =>
                    {
                        refs.push(subs)
                    }
                    _ => ok = false,
                }
            }
        }
    };
    for st in u.stmts.iter().filter(|s| body.contains(&s.id)) {
        match &st.kind {
            StmtKind::Assign { lhs, rhs } => {
                lhs.walk(&mut check);
                rhs.walk(&mut check);
            }
            StmtKind::Do { .. } | StmtKind::EndDo | StmtKind::Continue => {}
            StmtKind::IfThen(c) | StmtKind::ElseIf(c) => c.walk(&mut check),
            StmtKind::Else | StmtKind::EndIf => {}
            _ => return None,
        }
    }
    if !ok {
        return None;
    }
    // (offsets along each dimension's flow, from the ON reference's: a downward loop's tiles
    // run downwards; `C(I+1,J,K+1)` in a loop ON C(I,J+1,K+1) reads one behind in J and one
    // ahead in I, from the iteration j-1 whose tile of I comes later)
    let dir = |d: usize| dl.get(d).copied().unwrap_or(1);
    let off = |r: &[(String, i64)], d: usize| (r[d].1 - on_off(d)) * dir(d);
    // (only the dimensions the nest's loops run along have an order: a constant subscript,
    // `V(1,I+1,J,K)` in NPB LU's BUTS, or a plane the nest does not change, its K, is the
    // same for every iteration)
    let ordered = |d: usize| on_var(d).is_some_and(|w| loop_vars.contains(w));
    // each process runs its tiles one after the other, whole: an iteration of a later tile
    // (higher in the tiled dimension) that came earlier in the loop's order (lower in another
    // dimension) now runs later, so no reference may read ahead in the tiled dimension and
    // behind in another (its value would not be computed yet), nor behind and ahead (it
    // would be computed already, where the loop read the old value)
    let legal = |td: usize| {
        refs.iter().all(|r| {
            let ct = off(r, td);
            (0..r.len()).all(|d| d == td || !ordered(d) || !((ct > 0 && off(r, d) < 0) || (ct < 0 && off(r, d) > 0)))
        })
    };
    // (the dimension the outermost loop runs along; none: its iterations may meet)
    let outer_free = dim_of(0).is_some_and(|od| refs.iter().all(|r| off(r, od) == 0));
    // (the loop around the innermost where no reference reads another plane of its
    // dimension: tiles along a dimension the dependences run along would make the
    // processes along it wait for each other's whole part)
    let mut candidates = vec![];
    if n >= 3 && inner == 0 {
        if let Some(d) = dim_of(n - 2).filter(|&d| refs.iter().all(|r| off(r, d) == 0)) {
            candidates.push((d, n - 2));
        }
    }
    candidates.push((inner, n - 1));
    candidates.into_iter().find(|&(d, _)| legal(d)).map(|(dim, header)| Tile { dim, header, outer_free })
}

/// `DO [label] var = lo, hi` -> bounds clipped to the owned part of dimension d of `key`.
/// `ext` (SHADOW_COMPUTE, step 1 only): the range reaches `ext.0` below and `ext.1` above the
/// owned part, within the allocated block (`sapfor_xlo`/`sapfor_xhi`; an empty block stays
/// empty).
fn clip_header(t: &str, key: &str, d: usize, c: i64, step: i64, ext: (i64, i64)) -> Option<String> {
    let (eq, parts) = text::do_parts(t)?;
    let (lo, hi) = if ext == (0, 0) {
        (format!("sapfor_lo(sh_{key}, {d})"), format!("sapfor_hi(sh_{key}, {d})"))
    } else {
        (format!("sapfor_xlo(sh_{key}, {d}, {})", ext.0), format!("sapfor_xhi(sh_{key}, {d}, {})", ext.1))
    };
    // (in the loop variable's terms: the ON subscript is `var + c`)
    let shift = |b: String| match c {
        0 => b,
        c if c > 0 => format!("{b} - {c}"),
        c => format!("{b} + {}", -c),
    };
    let (lo, hi) = (shift(lo), shift(hi));
    let (first, last) = (parts[0].trim(), parts[1].trim());
    Some(match step {
        1 => format!("{}= max({first}, {lo}), min({last}, {hi})", &t[..eq]),
        // the first of first, first + step, ... at or above the local lower bound: the
        // iterations keep their values, only the ones of other processes are left out
        // (a function of the runtime module: gfortran 12 fails (ICE in gfc_trans_omp_do) on
        // some such expressions written out in the bounds of an OpenMP loop)
        s if s > 1 => format!("{}= sapfor_first_up(({first}), {lo}, {s}), min({last}, {hi}), {s}", &t[..eq]),
        // downwards: the first at or below the local upper bound
        s => format!("{}= sapfor_first_down(({first}), {hi}, {}), max({last}, {lo}), {s}", &t[..eq], -s),
    })
}

/// `DO [label] var = lo, hi [, step]` -> the same loop where `on` (an integer expression, 1
/// or 0) is 1, no iteration elsewhere: the last bound becomes one step before the first.
/// A function of the runtime module computes it: gfortran 12 fails (an internal compiler
/// error in gfc_trans_omp_do) on such arithmetic, or a MERGE, written out in the bounds of
/// an OpenMP loop.
fn guard_header(t: &str, on: &str, step: i64) -> Option<String> {
    let (eq, parts) = text::do_parts(t)?;
    let (first, last) = (parts[0].trim(), parts[1].trim());
    let rest = parts.get(2).map(|x| format!(", {}", x.trim())).unwrap_or_default();
    Some(format!("{}= {first}, sapfor_on_last(({first}), ({last}), {step}, {on}){rest}", &t[..eq]))
}

/// The variables of DO statements (lower case), in order.
fn do_vars(headers: &[&Stmt]) -> Vec<String> {
    headers
        .iter()
        .filter_map(|h| match &h.kind {
            StmtKind::Do { var, .. } => Some(var.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The work of one execution of a parallel loop, as a Fortran expression evaluated where it
/// starts: its tuple's iterations (the product of its loops' trip counts, from their headers
/// as rewritten, so a process counts its own) times the assignments of the body, each
/// weighed by the trip counts of the constant loops inside the tuple around it. The OpenMP
/// region takes a team only when `sapfor_team` says the work pays for the threads' fork and
/// join; otherwise the runtime runs it on the calling thread (rtlib/src/omp.rs). NPB LU's
/// eta-direction nest run in order starts loops of 62 iterations of a few statements 3.9
/// million times per run: 11 s on two threads, 2.9 s on one. None (a team as before) where
/// the work cannot be counted before the loop: an inner loop of the tuple bounded by an
/// outer one's variable, a step that is not a constant, a loop inside the tuple whose trip
/// count is not a constant, a call of a procedure, an array section or whole array, or I/O.
fn team_work(cx: &Cx, ui: usize, nest: &[&Node], headers: &[&Stmt]) -> Option<String> {
    let u = &cx.p.units[ui];
    let sema = &cx.p.semas[ui];
    let vars = do_vars(headers);
    let mut trips = vec![];
    // a DO's step when it is a constant other than 0
    fn const_step(sema: &UnitSema, step: &Option<Expr>) -> Option<i64> {
        step.as_ref().map_or(Some(1), |e| sema.eval_int(e).filter(|v| *v != 0))
    }
    for (k, h) in headers.iter().enumerate() {
        let StmtKind::Do { step, .. } = &h.kind else { return None };
        let st = const_step(sema, step)?;
        let t = cx.current_lines(h).swap_remove(0);
        let (_, parts) = text::do_parts(&t)?;
        let (lo, hi) = (parts[0].trim(), parts[1].trim());
        if vars[..k].iter().any(|v| !text::idents(lo, v).is_empty() || !text::idents(hi, v).is_empty()) {
            return None;
        }
        trips.push(format!("max(0_c_int64_t, (int({hi}, c_int64_t) - int({lo}, c_int64_t) + ({st})) / ({st}))"));
    }
    fn weight(u: &Unit, sema: &UnitSema, nodes: &[Node], mult: i64) -> Option<i64> {
        let mut w = 0i64;
        // (a function of the program, or an array section or whole array, which one
        // assignment stands for: not counted)
        let mut uncounted = false;
        let mut check = |e: &Expr| {
            e.walk(&mut |x| match x {
                Expr::Ref(n, args) => {
                    uncounted |= matches!(sema.ref_kind(n), analyzer::sema::RefKind::Function) || args.iter().any(|a| matches!(a, analyzer::ast::Arg::Range(..)));
                }
                Expr::Var(n) => uncounted |= sema.is_array(n),
                _ => {}
            })
        };
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    // (a logical IF counts as the statement it guards)
                    let kind = match &u.stmt(*id).kind {
                        StmtKind::LogicalIf(c, inner) => {
                            check(c);
                            &inner.kind
                        }
                        k => k,
                    };
                    match kind {
                        StmtKind::Assign { lhs, rhs } => {
                            check(lhs);
                            check(rhs);
                            w += mult;
                        }
                        StmtKind::Call { .. } | StmtKind::Io { .. } => return None,
                        _ => {}
                    }
                }
                Node::Do { header, body, .. } => {
                    let StmtKind::Do { lo, hi, step, .. } = &u.stmt(*header).kind else { return None };
                    let st = const_step(sema, step)?;
                    let trip = ((sema.eval_int(hi)? - sema.eval_int(lo)? + st) / st).max(0);
                    w += weight(u, sema, body, mult.saturating_mul(trip))?;
                }
                Node::If { arms, .. } => {
                    for (h, b) in arms {
                        if let StmtKind::IfThen(c) | StmtKind::ElseIf(c) = &u.stmt(*h).kind {
                            check(c);
                        }
                        w += weight(u, sema, b, mult)?;
                    }
                }
            }
        }
        (!uncounted).then_some(w)
    }
    let Node::Do { body, .. } = nest.last()? else { return None };
    let w = weight(u, sema, body, 1)?.max(1);
    Some(format!("{} * {w}_c_int64_t", trips.join(" * ")))
}

/// `do [label] var = lo, hi [, step]` -> (`do [label] sapfor_okN = a, b`, the statement that
/// sets `var` from sapfor_okN at the top of the body). With step 1 the counter runs over
/// lo..hi and the runtime permutes it there; otherwise it counts the iterations from 0 and
/// `var = lo + step * (permuted count)`, so every iteration keeps its value.
fn ordered_header(t: &str, n: usize, src: i64) -> Option<(String, String)> {
    let (eq, parts) = text::do_parts(t)?;
    let head = t[..eq].trim_end();
    let start = head.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))? + 1;
    let var = head[start..].to_string();
    if var.is_empty() || var.chars().next()?.is_ascii_digit() {
        return None;
    }
    let (lo, hi) = (parts[0].trim(), parts[1].trim());
    let i64 = |e: &str| format!("int({e}, c_int64_t)");
    let permuted = |a: &str, b: &str| format!("sapfor_order_index(int(sapfor_ok{n}, c_int64_t), {}, {}, {src}_8)", i64(a), i64(b));
    match parts.get(2).map(|s| s.trim()) {
        None | Some("1") => Some((
            format!("{}sapfor_ok{n} = {lo}, {hi}", &head[..start]),
            format!("{var} = {}", permuted(lo, hi)),
        )),
        Some(step) => {
            // Fortran's trip count: max(0, (hi - lo + step) / step)
            let last = format!("(({hi}) - ({lo}) + ({step})) / ({step}) - 1");
            Some((
                format!("{}sapfor_ok{n} = 0, {last}", &head[..start]),
                format!("{var} = ({lo}) + ({step}) * {}", permuted("0", &last)),
            ))
        }
    }
}

/// The arrays of `SHADOW_GROUP g` in unit `ui`.
fn shadow_group(cx: &Cx, ui: usize, g: &str) -> Option<Vec<ShadowSpec>> {
    cx.unit_dirs[ui].iter().find_map(|d| match &d.kind {
        DirectiveKind::ShadowGroup { name, arrays } if name.eq_ignore_ascii_case(g) => Some(arrays.clone()),
        _ => None,
    })
}

/// The call that renews the shadow edges `s` names (its widths, or the array's).
fn renew_call(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, fid: FileId, line: u32, s: &ShadowSpec) -> Option<String> {
    let Some(key) = vis.get(&s.name.to_ascii_lowercase()).cloned().filter(|k| !cx.arrays[k].template) else {
        cx.err(fid, line, format!("{}: not a distributed array", s.name.to_uppercase()));
        return None;
    };
    let (lo, hi) = spec_bounds(cx, ui, &key, s)?;
    Some(renew_line(&key, &s.name.to_ascii_lowercase(), &lo, &hi))
}

/// `sapfor_shadow_renew` of array `name` (handle `sh_<key>`) with widths `lo`/`hi`.
fn renew_line(key: &str, name: &str, lo: &[i64], hi: &[i64]) -> String {
    format!("call sapfor_shadow_renew(sh_{key}, {name}, {}, {})", i64list(lo), i64list(hi))
}

/// The asynchronous groups' statements of unit `ui`, done at once where they stand (the
/// DVM system starts and awaits them in the background; the values are the same):
/// `SHADOW_START SG` renews the group's edges, `REDUCTION_START RG` combines the partial
/// values the group's loop left in each process, and the WAITs check their group.
fn async_groups(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, dirs: &[Directive]) {
    let p = cx.p;
    let u = &p.units[ui];
    let fid = u.file;
    for d in dirs {
        let mut lines = vec![];
        match &d.kind {
            DirectiveKind::ShadowStart(g) | DirectiveKind::ShadowWait(g) => {
                let Some(specs) = shadow_group(cx, ui, g) else {
                    cx.err(fid, d.line, format!("no SHADOW_GROUP {} in unit {}", g.to_uppercase(), u.name.to_uppercase()));
                    continue;
                };
                if matches!(d.kind, DirectiveKind::ShadowStart(_)) {
                    for s in &specs {
                        lines.extend(renew_call(cx, ui, vis, fid, d.line, s));
                    }
                }
            }
            DirectiveKind::ReductionStart(g) | DirectiveKind::ReductionWait(g) => {
                let Some(rg) = cx.red_groups.get(&(ui, g.to_ascii_lowercase())) else {
                    cx.err(fid, d.line, format!("no REDUCTION_GROUP {} in unit {}", g.to_uppercase(), u.name.to_uppercase()));
                    continue;
                };
                if let (DirectiveKind::ReductionStart(_), Some(Some((h, split)))) = (&d.kind, &rg.on) {
                    for (op, tc, v) in &rg.items {
                        lines.push(format!("call sapfor_red_var_keep({op}, {tc}, {v})"));
                    }
                    lines.extend(rg.items.iter().map(|(_, _, v)| format!("call sapfor_red_put({v})")));
                    lines.push(format!("call sapfor_red_end(sh_{h}, {split})"));
                    lines.extend(rg.items.iter().map(|(_, _, v)| format!("call sapfor_red_get({v})")));
                }
            }
            _ => {}
        }
        if !lines.is_empty() {
            cx.before.entry((fid.0, d.line)).or_default().extend(lines);
        }
    }
}

/// The subscripts of a reference as normalized text (lower case, no blanks), per dimension.
fn norm_subs(args: &str) -> Vec<String> {
    text::split_top(args, ',').iter().map(|a| a.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase()).collect()
}

/// A REMOTE_ACCESS reference's subscripts as `norm_subs` text (None for `:` or `*`).
fn pattern_of(r: &analyzer::directives::ArrayRef) -> Option<Vec<Option<String>>> {
    r.subs
        .iter()
        .map(|s| match s {
            Subscript::Expr(e) => Some(Some(norm_subs(&e.to_string()).concat())),
            Subscript::Range(None, None) | Subscript::Star => Some(None),
            Subscript::Range(..) => None,
        })
        .collect()
}

/// The reference whose name ends at byte `b` of `t`: the position of its closing
/// parenthesis and its subscripts as `norm_subs` text; None for a name without subscripts.
fn ref_subs(t: &str, b: usize) -> Option<(usize, Vec<String>)> {
    let rest = &t[b..];
    let open = b + rest.find(|c: char| !c.is_whitespace()).filter(|&i| rest[i..].starts_with('('))?;
    let close = text::matching_paren(t, open)?;
    Some((close, norm_subs(&t[open + 1..close])))
}

/// Whether subscripts (`norm_subs`) have `pattern`'s where it has one (the others any).
fn of_pattern(subs: &[String], pattern: &[Option<String>]) -> bool {
    subs.len() == pattern.len() && subs.iter().zip(pattern).all(|(x, p)| p.as_ref().is_none_or(|p| p == x))
}

/// Every reference `name(...)` of `t` of `pattern`'s form (`of_pattern`) renamed `to`.
fn rename_matching(t: &str, name: &str, pattern: &[Option<String>], to: &str) -> String {
    let mut s = t.to_string();
    for (a, b) in text::idents(t, name).into_iter().rev() {
        if ref_subs(t, b).is_some_and(|(_, subs)| of_pattern(&subs, pattern)) {
            s.replace_range(a..b, to);
        }
    }
    s
}

/// The box a REMOTE_ACCESS reference `r` to array `nm` names, as the bounds of each dimension
/// (Fortran expressions, evaluated before the loop whose statements are `body`): its
/// subscript where that is an expression of scalars the loop neither assigns nor runs a DO
/// over, the whole dimension for `:`, `*` or a subscript that moves with the loop. None
/// (gather the whole array) where a subscript is a section with bounds, the loop calls a
/// procedure (which might assign the scalars), or, unless only the references of the clause's
/// form read the copy (`partial`, `remote_apart`), a reference of the array in the loop is
/// not of the clause's form. The DVM system's Gauss example, `REMOTE_ACCESS(A(I,:))` in the
/// elimination's loop over rows, fetched the whole 1500x1501 matrix for each of its 1499
/// steps: 1.8 s more than the sequential program on one process, 4.8 s on two.
fn remote_box(cx: &Cx, ui: usize, body: &BTreeSet<StmtId>, r: &analyzer::directives::ArrayRef, nm: &str, partial: bool) -> Option<(String, String)> {
    let u = &cx.p.units[ui];
    let sema = &cx.p.semas[ui];
    let pattern = pattern_of(r)?;
    let stmts: Vec<&Stmt> = u.stmts.iter().filter(|s| body.contains(&s.id)).collect();
    // (what the loop assigns, its DO variables among them: a DO statement's accesses write
    // its variable)
    let acx = access_ctx(cx.p, ui);
    let (mut accs, mut calls) = (vec![], vec![]);
    for st in &stmts {
        acx.stmt_accesses(st, &mut accs, &mut calls);
    }
    if !calls.is_empty() {
        return None;
    }
    let assigned: BTreeSet<String> = accs.iter().filter(|a| a.write).map(|a| a.name.to_ascii_lowercase()).collect();
    if !partial {
        for st in &stmts {
            let t = cx.stmt_text(st);
            for (_, b) in text::idents(&t, nm) {
                if !ref_subs(&t, b).is_some_and(|(_, subs)| of_pattern(&subs, &pattern)) {
                    return None;
                }
            }
        }
    }
    const ALL: (&str, &str) = ("-huge(0_c_int64_t)", "huge(0_c_int64_t)");
    let (mut lo, mut hi) = (vec![], vec![]);
    for sub in &r.subs {
        let (a, b) = match sub {
            Subscript::Expr(e) => {
                let t = e.to_string();
                // (names only, no function or array: `I`, `J+1`, `N-K`)
                let names: Vec<String> = t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic())).map(|w| w.to_ascii_lowercase()).collect();
                if t.contains('(') || names.iter().any(|n| sema.is_array(n)) {
                    return None;
                }
                if names.iter().any(|n| assigned.contains(n)) {
                    (ALL.0.to_string(), ALL.1.to_string())
                } else {
                    (format!("int({t}, c_int64_t)"), format!("int({t}, c_int64_t)"))
                }
            }
            _ => (ALL.0.to_string(), ALL.1.to_string()),
        };
        lo.push(a);
        hi.push(b);
    }
    Some((lo.join(", "), hi.join(", ")))
}

/// For a loop that writes the array of its REMOTE_ACCESS reference `r` (key `key`): the
/// reference's pattern (see `rename_matching`) when (1) the loop is ON that array, (2) every
/// reference of the array in the loop either has the pattern's subscripts (it reads the copy
/// gathered before the loop) or the ON reference's subscripts in each distributed dimension (a
/// local element), (3) no reference of the pattern's form is written, and (4) in some
/// dimension where the pattern has an expression E, every write's subscript is a DO variable
/// of the nest (plus a constant) whose range provably excludes E (`DO J = I+1, N` against
/// `A(I,:)`), or E plus a nonzero constant. Err: why not.
fn remote_apart(cx: &Cx, ui: usize, nest: &Node, pl: &ParLoop, r: &analyzer::directives::ArrayRef, key: &str) -> Result<Vec<Option<String>>, String> {
    let p = cx.p;
    let u = &p.units[ui];
    let sema = &p.semas[ui];
    let nm = r.name.to_ascii_lowercase();
    let pattern = pattern_of(r).filter(|v| v.iter().any(|x| x.is_some())).ok_or("its clause names no single row, column or element")?;
    let on = pl.on.as_ref().filter(|o| o.name.eq_ignore_ascii_case(&nm)).ok_or("the loop is not ON that array")?;
    let on_subs: Vec<Option<String>> = pattern_of(on).ok_or("its ON reference has a section")?;
    let split = split_dims(cx, key);
    if pattern.len() != split.len() || on_subs.len() != split.len() {
        return Err("the clause's or the ON reference's rank differs from the array's".into());
    }
    // (2) and (3), on the text of the statements
    let mut ids = BTreeSet::new();
    collect_stmts(u, nest, &mut ids);
    for st in u.stmts.iter().filter(|s| ids.contains(&s.id)) {
        let t = cx.stmt_text(st);
        let lhs_end = match &st.kind {
            StmtKind::Assign { .. } => text::assign_eq(&t).unwrap_or(0),
            _ => 0,
        };
        for (a, b) in text::idents(&t, &nm) {
            let (close, subs) = ref_subs(&t, b).ok_or("a whole-array reference")?;
            let remote = of_pattern(&subs, &pattern);
            let local = subs.len() == split.len() && (0..split.len()).all(|d| !split[d] || on_subs[d].as_ref() == Some(&subs[d]));
            if remote && a < lhs_end {
                return Err(format!("it writes {} of the clause's form", t[a..=close].trim()));
            }
            if !remote && !local {
                return Err(format!("{} is neither of the clause's form nor the ON element's", t[a..=close].trim()));
            }
        }
    }
    // (4): a dimension that keeps the writes apart from the clause's reference
    let consts = |n: &str| sema.param(n).and_then(|_| sema.eval_int(&Expr::Var(n.to_string())));
    let lin = |e: &Expr| analyzer::affine::linearize(e, &consts);
    let mut ranges: BTreeMap<String, (Option<Lin>, Option<Lin>, i64)> = BTreeMap::new();
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(nest), &mut |st| {
        if let StmtKind::Do { var, lo, hi, step, .. } = &st.kind {
            let stp = step.as_ref().map_or(Some(1), |e| sema.eval_int(e)).unwrap_or(0);
            ranges.insert(var.to_ascii_lowercase(), (lin(lo), lin(hi), stp));
        }
    });
    let writes: Vec<&Expr> = u
        .stmts
        .iter()
        .filter(|s| ids.contains(&s.id))
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { lhs, .. } if lhs.base_name() == Some(nm.as_str()) => Some(lhs),
            _ => None,
        })
        .collect();
    fn dlin(e: &DExpr, consts: &dyn Fn(&str) -> Option<i64>) -> Option<Lin> {
        use analyzer::directives::BinOp as B;
        Some(match e {
            DExpr::Int(v) => Lin::constant(*v),
            DExpr::Name(n) => {
                let n = n.to_ascii_lowercase();
                consts(&n).map_or_else(|| Lin::var(&n), Lin::constant)
            }
            DExpr::Neg(a) => dlin(a, consts)?.scale(-1)?,
            DExpr::Bin(a, op, b) => {
                let (a, b) = (dlin(a, consts)?, dlin(b, consts)?);
                match op {
                    B::Add => a.add(&b, 1)?,
                    B::Sub => a.add(&b, -1)?,
                    B::Mul => match (a.as_const(), b.as_const()) {
                        (Some(k), _) => b.scale(k)?,
                        (_, Some(k)) => a.scale(k)?,
                        _ => return None,
                    },
                    B::Div => return None,
                }
            }
            DExpr::Call(..) => return None,
        })
    }
    let apart = |d: usize| -> bool {
        let Some(Subscript::Expr(e)) = r.subs.get(d) else { return false };
        let Some(el) = dlin(e, &consts) else { return false };
        writes.iter().all(|w| {
            let Expr::Ref(_, args) = w else { return false };
            let Some(wl) = args.get(d).and_then(|a| a.expr()).and_then(|x| lin(x)) else { return false };
            let diff = |a: &Lin, b: &Lin| a.add(b, -1).and_then(|x| x.as_const());
            if diff(&wl, &el).is_some_and(|c| c != 0) {
                return true;
            }
            // W = V + c for a DO variable V of the nest: V's range shifted by c misses E
            let Some((v, c)) = wl.terms.iter().find(|(_, &k)| k == 1).map(|(v, _)| (v.clone(), wl.add(&Lin::var(v), -1))) else { return false };
            let Some(c) = c.and_then(|c| c.as_const()) else { return false };
            let Some((Some(lo), Some(hi), step)) = ranges.get(&v.to_ascii_lowercase()) else { return false };
            let (first, last) = if *step > 0 { (lo, hi) } else if *step < 0 { (hi, lo) } else { return false };
            diff(first, &el).is_some_and(|k| k + c > 0) || diff(&el, last).is_some_and(|k| k - c > 0)
        })
    };
    if !(0..split.len()).any(apart) {
        return Err("the analysis cannot show that its writes miss the elements the clause names".into());
    }
    Ok(pattern)
}

fn rename(t: &str, name: &str, to: &str) -> String {
    let mut s = t.to_string();
    for (a, b) in text::idents(t, name).into_iter().rev() {
        s.replace_range(a..b, to);
    }
    s
}

/// Replace reads of distributed elements in `t` by temporaries fetched from their owners
/// (calls appended to `calls`). Errors for whole-array or section references.
fn hoist_reads(cx: &mut Cx, vis: &BTreeMap<String, String>, t: &str, src: i64, calls: &mut Vec<String>) -> Result<String, String> {
    let mut s = t.to_string();
    loop {
        // rightmost occurrence of any distributed array
        let mut best: Option<(usize, usize, String)> = None;
        for name in vis.keys() {
            for (a, b) in text::idents(&s, name) {
                if best.as_ref().map(|x| a > x.0).unwrap_or(true) {
                    best = Some((a, b, name.clone()));
                }
            }
        }
        let Some((a, b, name)) = best else { return Ok(s) };
        let key = vis[&name].clone();
        let rest = &s[b..];
        let ws = rest.len() - rest.trim_start().len();
        if !rest.trim_start().starts_with('(') {
            return Err(format!("the whole distributed array {name} is used outside a parallel loop; only single elements (and whole arrays in I/O lists) are supported"));
        }
        let open = b + ws;
        let close = text::matching_paren(&s, open).ok_or("unbalanced parentheses")?;
        let subs = text::split_top(&s[open + 1..close], ',');
        if subs.iter().any(|x| !text::split_top(x, ':').len().eq(&1)) {
            return Err(format!("array section of distributed array {name} outside a parallel loop is not supported"));
        }
        let idx = index_list(&cx.arrays[&key], &subs)?;
        let arr = cx.arrays.get_mut(&key).unwrap();
        if cx.fetch_now.contains(&name) {
            // the section is in the full copy already (fetched before the loop nest)
            s.replace_range(a..b, &format!("sf_{key}"));
            continue;
        }
        arr.temps += 1;
        let tmp = format!("st_{key}_{}", arr.temps);
        calls.push(format!("call sapfor_get(sh_{key}, {name}, {idx}, {tmp}, {src}_8)"));
        s.replace_range(a..close + 1, &tmp);
    }
}

/// Whether array `key` is aligned with `target` (directly or through other alignments): a
/// loop on that template reads and writes it where its iterations own it.
fn aligned_with(cx: &Cx, key: &str, target: &str) -> bool {
    let mut k = key;
    for _ in 0..64 {
        match cx.arrays.get(k).map(|a| &a.map) {
            Some(Mapping::Align(t, _)) if t == target => return true,
            Some(Mapping::Align(t, _)) => k = t,
            _ => return false,
        }
    }
    false
}

/// The whole of distributed array `key` for `sapfor_fetch` / `sapfor_keep` (its global
/// bounds, as `[lo...]` and `[hi...]` index lists); its full-size copy is declared.
fn whole_copy(cx: &mut Cx, key: &str) -> (String, String) {
    let arr = cx.arrays.get_mut(key).unwrap();
    arr.full = true;
    let v = |f: &dyn Fn(&(i64, i64)) -> i64| format!("[{}]", arr.bounds.iter().map(|b| format!("{}_c_int64_t", f(b))).collect::<Vec<_>>().join(", "));
    (v(&|b| b.0), v(&|b| b.1))
}

/// A PARALLEL loop ON a template that references distributed arrays (`--auto` writes one for
/// a nest no distribution fits, NPB BT's z_solve sweeping along RHS's divided dimension):
/// each process runs its iterations over full copies of those arrays. Before the loop
/// `sapfor_fetch` of each whole array into its copy `sf_<array>`; every reference in the loop
/// is to the copy; the copies of arrays the loop writes (also through procedures it calls)
/// are merged after it like replicated arrays (`sapfor_merge_begin/end`: each process sends
/// the words it changed), and each process keeps its own block of them (`sapfor_keep`).
fn copies_on_template(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, outer: &Node, pl: &ParLoop, pre: &mut Vec<String>, post: &mut Vec<String>, direct: &mut Option<Direct>) {
    let p = cx.p;
    let u = &p.units[ui];
    let on_template = pl.on.as_ref().and_then(|o| vis.get(&o.name.to_ascii_lowercase())).is_some_and(|k| cx.arrays[k].template);
    if !on_template {
        return;
    }
    let acc = access_ctx(p, ui);
    let mut body = BTreeSet::new();
    collect_stmts(u, outer, &mut body);
    let (mut used, mut written): (BTreeSet<String>, BTreeSet<String>) = (BTreeSet::new(), BTreeSet::new());
    // for each array and dimension, the offsets `c` of its references `var + c` there, reads
    // and writes (None once a reference indexes the dimension otherwise)
    type Span = Option<(i64, i64)>;
    let tkey = vis[&pl.on.as_ref().expect("on a template").name.to_ascii_lowercase()].clone();
    let var = pl.vars[0].to_ascii_lowercase();
    let sema = &p.semas[ui];
    let konst = |n: &str| sema.param(n).and_then(|c| c.as_int());
    let mut offsets: BTreeMap<String, Vec<(Span, Span)>> = BTreeMap::new();
    // the accesses of the loop's statements
    let table: Vec<(&Stmt, Vec<analyzer::access::Access>)> = u
        .stmts
        .iter()
        .filter(|x| body.contains(&x.id))
        .map(|st| {
            let (mut a, mut calls) = (vec![], vec![]);
            acc.stmt_accesses(st, &mut a, &mut calls);
            (st, a)
        })
        .collect();
    // scalars the loop assigns (DO variables too): no stride of a vector laid out by hand
    let mut assigned: BTreeSet<String> = BTreeSet::new();
    if vis.values().any(|k| cx.arrays[k].reshaped) {
        for (st, a) in &table {
            match &st.kind {
                StmtKind::Do { var, .. } => {
                    assigned.insert(var.clone());
                }
                k => {
                    if let StmtKind::Assign { lhs: Expr::Var(v), .. } = k.action() {
                        assigned.insert(v.clone());
                    }
                }
            }
            assigned.extend(a.iter().filter(|x| x.write && x.subs.is_none() && !sema.is_array(&x.name)).map(|x| x.name.clone()));
        }
    }
    let mut stride_checks: BTreeSet<String> = BTreeSet::new();
    for (_, a) in table.iter().filter(|(st, _)| st.kind.is_executable()) {
        for x in a.iter().filter(|x| vis.get(&x.name).is_some_and(|k| !cx.arrays[k].template && !aligned_with(cx, k, &tkey))) {
            used.insert(x.name.clone());
            if x.write {
                written.insert(x.name.clone());
            }
            let arr = &cx.arrays[&vis[&x.name]];
            let rank = arr.bounds.len();
            // a vector given arrays of higher rank: its subscript `F0 + S1*(F1 + S2*F2)`, where
            // the strides are the arrays' leading extents (checked where the loop starts), is
            // the element (lo1 + F0 - 1, lo2 + F1, lo3 + F2) (NPB FT's XOUT(J+(N1+1)*(K-1+N2*I)))
            let parts: Option<Vec<analyzer::affine::Lin>> = if arr.reshaped {
                let g = x.subs.as_ref().filter(|s| s.len() == 1).and_then(|s| s[0].expr());
                g.and_then(|g| analyzer::affine::split_strides(g, &konst, &|n| n != var && !assigned.contains(n))).and_then(|(parts, strides)| {
                    if parts.len() != rank {
                        return None;
                    }
                    for (d, st) in strides.iter().enumerate() {
                        let (lo, hi) = arr.bounds[d];
                        stride_checks.insert(format!("({}) /= {}", fexpr(&st.to_expr())?, hi - lo + 1));
                    }
                    Some(parts.iter().enumerate().map(|(d, f)| f.add(&analyzer::affine::Lin::constant(arr.bounds[d].0 - i64::from(d == 0)), 1)).collect::<Option<Vec<_>>>()?)
                })
            } else {
                None
            };
            let none = Some((i64::MAX, i64::MIN));
            let e = offsets.entry(x.name.clone()).or_insert_with(|| vec![(none, none); rank]);
            for (d, (all, writes)) in e.iter_mut().enumerate() {
                let c = match &parts {
                    Some(p) => p.get(d).cloned(),
                    None => x.subs.as_ref().and_then(|subs| subs.get(d)).and_then(|g| g.expr()).and_then(|g| analyzer::affine::linearize(g, &konst)),
                };
                let c = c.filter(|l| l.terms.len() == 1 && l.terms.get(&var) == Some(&1)).map(|l| l.constant);
                let add = |span: Span| match (span, c) {
                    (Some((lo, hi)), Some(c)) => Some((lo.min(c), hi.max(c))),
                    _ => None,
                };
                *all = add(*all);
                if x.write {
                    *writes = add(*writes);
                }
            }
        }
    }

    if used.is_empty() {
        return;
    }
    for st in u.stmts.iter().filter(|x| body.contains(&x.id)) {
        let lines = cx.current_lines(st);
        let renamed: Vec<String> = lines
            .iter()
            .map(|l| used.iter().fold(l.clone(), |t, x| rename(&t, x, &format!("sf_{}", vis[x]))))
            .collect();
        if renamed != lines {
            cx.replace_stmt(st, renamed);
        }
    }
    let at = post.iter().position(|x| x.starts_with("call sapfor_red_put")).unwrap_or(post.len());
    let mut after = vec![];
    let pre_had = pre.clone();
    let mut d = Direct::default();
    for x in &used {
        let key = vis[x].clone();
        let (lo, hi) = whole_copy(cx, &key);
        let sf = format!("sf_{key}");
        // (one process: the array itself, declared over the whole array as its copy is, so
        // that procedures given its elements see them in the same order)
        d.array(&key, x, written.contains(x));
        // A dimension every reference indexes by the loop variable plus a constant, written
        // only at the variable itself: each process fetches the planes its iterations read
        // (its block of the template, widened by the offsets) and returns the planes they
        // write to their owners (`sapfor_slices`), instead of whole copies and a merge.
        let one_dim = cx.arrays[&tkey].bounds.len() == 1;
        let sliced = offsets[x].iter().enumerate().filter(|_| one_dim).find_map(|(d, (all, w))| match (all, w) {
            (Some(r), Some((0, 0))) if written.contains(x) => Some((d, *r)),
            (Some(r), _) if !written.contains(x) => Some((d, *r)),
            _ => None,
        });
        if let Some((d, (cl, ch))) = sliced {
            let b = cx.arrays[&key].bounds.clone();
            let planes = |from: i64, to: i64| -> (String, String) {
                let side = |edge: String, upper: bool| {
                    let v: Vec<String> = b.iter().enumerate().map(|(j, (l, h))| if j == d { edge.clone() } else { format!("{}_c_int64_t", if upper { h } else { l }) }).collect();
                    format!("[{}]", v.join(", "))
                };
                (side(format!("int(sapfor_lo(sh_{tkey}, 1) + ({from}), c_int64_t)"), false), side(format!("int(sapfor_hi(sh_{tkey}, 1) + ({to}), c_int64_t)"), true))
            };
            let (flo, fhi) = planes(cl, ch);
            let fetch = format!("call sapfor_slices(sh_{key}, {x}, {sf}, {flo}, {fhi}, 0)");
            let (wlo, whi) = planes(0, 0);
            let back = written.contains(x).then(|| format!("call sapfor_slices(sh_{key}, {x}, {sf}, {wlo}, {whi}, 1)"));
            if cx.arrays[&key].reshaped {
                // (a vector laid out as the array moves as slices where its strides are the
                // array's leading extents, else whole: fetched, and merged where written)
                let ok = if stride_checks.is_empty() { ".true.".to_string() } else { format!(".not. ({})", stride_checks.iter().cloned().collect::<Vec<_>>().join(" .or. ")) };
                let bytes = format!("int(storage_size({sf}), c_int64_t) / 8 * size({sf}, kind=c_int64_t)");
                let mut whole = vec![format!("call sapfor_fetch(sh_{key}, {x}, {sf}, {lo}, {hi})")];
                if written.contains(x) {
                    whole.push(format!("call sapfor_merge_begin({sf}, {bytes})"));
                }
                pre.insert(1, format!("if ({ok}) then\n{fetch}\nelse\n{}\nend if", whole.join("\n")));
                if let Some(back) = back {
                    after.push(format!("if ({ok}) then\n{back}\nelse\ncall sapfor_merge_end({sf}, {bytes})\ncall sapfor_keep(sh_{key}, {x}, {sf}, {lo}, {hi})\nend if"));
                }
                continue;
            }
            pre.insert(1, fetch);
            if let Some(back) = back {
                after.push(back);
            }
            continue;
        }
        if written.contains(x) {
            let bytes = format!("int(storage_size({sf}), c_int64_t) / 8 * size({sf}, kind=c_int64_t)");
            pre.insert(1, format!("call sapfor_merge_begin({sf}, {bytes})"));
            after.push(format!("call sapfor_merge_end({sf}, {bytes})"));
            after.push(format!("call sapfor_keep(sh_{key}, {x}, {sf}, {lo}, {hi})"));
        }
        pre.insert(1, format!("call sapfor_fetch(sh_{key}, {x}, {sf}, {lo}, {hi})"));
    }
    d.copy_lines.extend(pre.iter().filter(|l| !pre_had.contains(l)).cloned());
    d.copy_lines.extend(after.iter().cloned());
    post.splice(at..at, after);
    *direct = Some(d);
}

/// Whether statement `st` of a loop nest (whose labels are `inside`) may leave it other than by
/// running to its end: RETURN, EXIT, STOP-like errors, a CYCLE of a named loop, a jump to a
/// label outside, or I/O with END=/ERR=/EOR= (not in the statement model: anywhere).
fn leaves_nest(cx: &Cx, st: &Stmt, inside: &BTreeSet<u32>) -> bool {
    let jumps = analyzer::cfg::stmt_is(&st.kind, &|k| match k {
        StmtKind::Return | StmtKind::Exit(_) | StmtKind::Error | StmtKind::Unsupported { .. } => true,
        StmtKind::Cycle(name) => name.is_some(),
        k => analyzer::cfg::jumps_out(k, inside),
    });
    jumps
        || matches!(st.kind.action(), StmtKind::Io { .. }) && {
            let t: String = cx.stmt_text(st).to_ascii_uppercase().chars().filter(|c| !c.is_whitespace()).collect();
            ["END=", "ERR=", "EOR="].iter().any(|k| t.contains(&format!(",{k}")) || t.contains(&format!("({k}")))
        }
}

/// Whether one of `calls` has effects not known here (no body, or a callee that calls one).
fn unknown_effects(p: &Program, calls: &[analyzer::access::CallSite]) -> bool {
    calls.iter().any(|c| c.unknown || p.summaries.get(&c.name).is_none_or(|s| !s.unknown_calls.is_empty()))
}

/// Sequential loop nests that give procedures elements of distributed arrays (`CALL
/// BINVCRHS(..., RHS(1,I,J,K))` in a sweep along RHS's distributed dimension, which no
/// distribution divides): the whole nest runs on every process over a full copy of each such
/// array, fetched before it (`sapfor_fetch`); every reference in the nest, and every element
/// given to a procedure, is to the copy; after it each process keeps its own block of the
/// copy (`sapfor_keep`), since every process computed the same values. The nest is the
/// outermost DO around such calls that contains no parallel loop, that control leaves only by
/// running to its end, and that calls no procedure without a body here; elsewhere the call
/// is refused as before (`sequential`).
fn copy_nests(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, in_par: &BTreeSet<StmtId>, nodes: &[Node]) {
    let p = cx.p;
    let u = &p.units[ui];
    let acc = access_ctx(p, ui);
    for n in nodes {
        match n {
            Node::Do { header, body, .. } if !in_par.contains(header) => {
                let mut passed: BTreeSet<String> = BTreeSet::new();
                let mut callees: BTreeSet<String> = BTreeSet::new();
                let (mut has_par, mut unknown_call, mut leaves) = (false, false, false);
                let inside = analyzer::cfg::labels_within(u, std::slice::from_ref(n));
                analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
                    has_par |= in_par.contains(&st.id);
                    if let StmtKind::Call { args, .. } = st.kind.action() {
                        for a in args {
                            if let Some(Expr::Ref(x, subs)) = a.expr() {
                                if vis.contains_key(x) && subs.iter().all(|g| g.expr().is_some()) {
                                    passed.insert(x.clone());
                                }
                            }
                        }
                    }
                    let (mut a, mut calls) = (vec![], vec![]);
                    acc.stmt_accesses(st, &mut a, &mut calls);
                    // (C functions of the program's C sources, NPB's WTIME under TIMER_START, see
                    // no Fortran array they are not given)
                    unknown_call |= analyzer::flow::calls_unknown(&calls, &p.summaries, &p.c_idents);
                    callees.extend(calls.into_iter().map(|c| c.name));
                    leaves |= leaves_nest(cx, st, &inside);
                });
                // (a procedure using the array's COMMON block itself would not see the copy:
                // an INHERIT dummy's is its actual arguments')
                passed.retain(|x| {
                    cx.arrays.get(&vis[x]).is_some_and(|a| {
                        let blocks: Vec<&String> = match &a.map {
                            Mapping::Inherit { .. } => a.actuals.iter().filter_map(|k| cx.arrays.get(k)).filter_map(|b| b.common.as_ref().map(|(b, _)| b)).collect(),
                            _ => a.common.iter().map(|(b, _)| b).collect(),
                        };
                        !a.template && blocks.iter().all(|b| callees.iter().all(|c| p.summaries.get(c).is_some_and(|s| !s.uses_common_beside_c(b, &p.c_idents))))
                    })
                });
                let h = u.stmt(*header);
                if passed.is_empty() || has_par || unknown_call || leaves || h.label.is_some() || shares_terminal(u, *header) {
                    // (inside, a smaller nest may qualify)
                    copy_nests(cx, ui, vis, in_par, body);
                    continue;
                }
                let end = last_line(u, n);
                // (written twice where it may be: on the arrays themselves where one process
                // holds them whole, `Version`)
                let twice = written_twice(cx, ui, n);
                let (mut d, mut fetches, mut keeps) = (Direct::default(), vec![], vec![]);
                for x in &passed {
                    let key = vis[x].clone();
                    let (lo, hi) = whole_copy(cx, &key);
                    fetches.push(format!("call sapfor_fetch(sh_{key}, {x}, sf_{key}, {lo}, {hi})"));
                    keeps.insert(0, format!("call sapfor_keep(sh_{key}, {x}, sf_{key}, {lo}, {hi})"));
                    d.array(&key, x, true);
                }
                match twice {
                    Some((labels, label_dos)) => {
                        let v = Version { last: end, cond: d.cond.join(" .and. "), direct_pre: d.touch_pre, direct_post: d.touch_post, copy_pre: fetches, copy_post: keeps, back: d.back, labels, label_dos };
                        cx.versions.insert((h.span.file.0, h.span.line), v);
                    }
                    None => {
                        cx.before.entry((h.span.file.0, h.span.line)).or_default().extend(fetches);
                        cx.after.entry((h.span.file.0, end)).or_default().splice(0..0, keeps);
                    }
                }
                analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
                    cx.copied.entry((ui, st.id)).or_default().extend(passed.iter().cloned());
                });
                // ACTUAL / GET_ACTUAL of such an array inside the nest are of its copy (what
                // the nest writes and the procedures' regions work on)
                let (fid, first) = (h.span.file.0, h.span.line);
                for lines in cx.before.range_mut((fid, first)..=(fid, end)).map(|(_, v)| v) {
                    for t in lines.iter_mut().filter(|t| t.starts_with("call sapfor_gpu_actual(") || t.starts_with("call sapfor_gpu_get_actual(")) {
                        for x in &passed {
                            *t = rename(t, x, &format!("sf_{}", vis[x]));
                        }
                    }
                }
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    copy_nests(cx, ui, vis, in_par, b);
                }
            }
            _ => {}
        }
    }
}

/// What a DO nest does with the distributed arrays `vis`, for `read_caches` and `shadow_holds`.
struct NestUse {
    /// Arrays whose elements statements outside parallel loops read.
    read: BTreeSet<String>,
    /// Arrays something in the nest writes: an assignment, input, a called procedure (by its
    /// summary), or a full copy kept back after the nest.
    written: BTreeSet<String>,
    /// A call of unknown effects (no body, or a callee that makes one).
    unknown_call: bool,
    /// A call of a procedure of the program.
    calls_ours: bool,
    /// Control may leave the nest other than through its end.
    leaves: bool,
    stmts: Vec<StmtId>,
}

fn nest_use(cx: &Cx, ui: usize, vis: &BTreeMap<String, String>, in_par: &BTreeSet<StmtId>, n: &Node) -> NestUse {
    let p = cx.p;
    let u = &p.units[ui];
    let acc = access_ctx(p, ui);
    let inside = analyzer::cfg::labels_within(u, std::slice::from_ref(n));
    let mut r = NestUse { read: BTreeSet::new(), written: BTreeSet::new(), unknown_call: false, calls_ours: false, leaves: false, stmts: vec![] };
    analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
        let (mut a, mut calls) = (vec![], vec![]);
        acc.stmt_accesses(st, &mut a, &mut calls);
        let copied = cx.copied.get(&(ui, st.id));
        for x in a.iter().filter(|x| vis.contains_key(&x.name)) {
            // (a nest on a full copy fetches it itself)
            if x.write || copied.is_some_and(|c| c.contains(&x.name)) {
                r.written.insert(x.name.clone());
            } else if !in_par.contains(&st.id) && x.subs.is_some() {
                r.read.insert(x.name.clone());
            }
        }
        r.unknown_call |= unknown_effects(p, &calls);
        r.calls_ours |= calls.iter().any(|c| p.summaries.contains_key(&c.name));
        r.leaves |= leaves_nest(cx, st, &inside);
        r.stmts.push(st.id);
    });
    r
}

/// Read caches for sequential loop nests: a DO nest outside parallel loops whose sequential
/// statements read elements of a distributed array that nothing in the nest writes (no
/// assignment, no input, no parallel loop or called procedure writing it) and that control
/// leaves only by running to its end is bracketed with `sapfor_cache_begin/end`, so the
/// runtime fetches each element's neighbourhood from its owner once (a box of about two
/// thousand elements) instead of one message per element read. Each array is cached at the
/// outermost such nest; `done` holds the arrays cached by an enclosing one.
fn read_caches(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, in_par: &BTreeSet<StmtId>, nodes: &[Node], done: &BTreeSet<String>) {
    let p = cx.p;
    let u = &p.units[ui];
    for n in nodes {
        match n {
            Node::Do { header, body, .. } if !in_par.contains(header) => {
                let NestUse { read, written, unknown_call, leaves, .. } = nest_use(cx, ui, vis, in_par, n);
                let mut here = done.clone();
                if !leaves && !shares_terminal(u, *header) {
                    for name in read.difference(&written) {
                        let key = &vis[name];
                        let common = cx.arrays.get(key).is_some_and(|a| a.common.is_some());
                        if done.contains(name) || (common && unknown_call) {
                            continue;
                        }
                        let h = u.stmt(*header);
                        // the sections the nest reads, fetched once into the full copy
                        if !unknown_call && h.label.is_none() {
                            if let Some(boxes) = fetch_boxes(cx, ui, vis, in_par, n, name) {
                                for (lo, hi) in &boxes {
                                    let v = |x: &[String]| format!("[{}]", x.iter().map(|e| format!("int({e}, c_int64_t)")).collect::<Vec<_>>().join(", "));
                                    cx.before.entry((h.span.file.0, h.span.line)).or_default().push(format!(
                                        "call sapfor_fetch(sh_{key}, {name}, sf_{key}, {}, {})",
                                        v(lo),
                                        v(hi)
                                    ));
                                }
                                cx.arrays.get_mut(key).unwrap().full = true;
                                analyzer::ast::for_each_stmt(u, std::slice::from_ref(n), &mut |st| {
                                    if !in_par.contains(&st.id) {
                                        cx.fetched.entry((ui, st.id)).or_default().insert(name.clone());
                                    }
                                });
                            }
                        }
                        cx.before.entry((h.span.file.0, h.span.line)).or_default().push(format!("call sapfor_cache_begin(sh_{key})"));
                        let end = last_line(u, n);
                        cx.after.entry((h.span.file.0, end)).or_default().push(format!("call sapfor_cache_end(sh_{key})"));
                        here.insert(name.clone());
                    }
                }
                read_caches(cx, ui, vis, in_par, body, &here);
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    read_caches(cx, ui, vis, in_par, b, done);
                }
            }
            _ => {}
        }
    }
}

/// Whether a DO shares its terminal label with an enclosing one: it ends where that one does,
/// so nothing can go right after it.
fn shares_terminal(u: &Unit, header: StmtId) -> bool {
    match &u.stmt(header).kind {
        StmtKind::Do { label: Some(l), .. } => u.stmts.iter().filter(|o| o.id < header).any(|o| matches!(&o.kind, StmtKind::Do { label: Some(m), .. } if m == l)),
        _ => false,
    }
}

/// Holds for sequential loops (`sapfor_shadow_hold/free`, docs/runtime.md): a DO nest outside
/// parallel loops, without a label, that control leaves only by running to its end and in
/// which nothing writes a distributed array (no assignment, input, parallel loop, full copy
/// or called procedure: the summaries tell), while a parallel loop in it renews the array's
/// shadow edges or it calls a procedure of the program (whose loops may). The runtime then
/// renews the edges whole the first time and skips the later renewals no wider: NPB LU's
/// JACLD(K) renews plane K of U for each K of SSOR's sweep, and U changes only after it.
/// Code outside the program (C) cannot change a distributed array: it never sees more than a
/// process's block. Each array is held at the outermost such nest; `done` holds the arrays
/// an enclosing one holds. `renews`: the names each parallel loop of the unit renews, by its
/// DO statement.
fn shadow_holds(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, in_par: &BTreeSet<StmtId>, renews: &BTreeMap<StmtId, BTreeSet<String>>, nodes: &[Node], done: &BTreeSet<String>) {
    let p = cx.p;
    let u = &p.units[ui];
    for n in nodes {
        match n {
            Node::Do { header, body, .. } if !in_par.contains(header) => {
                let NestUse { written, calls_ours, leaves, stmts, .. } = nest_use(cx, ui, vis, in_par, n);
                let renewed: BTreeSet<String> = stmts.iter().filter_map(|s| renews.get(s)).flatten().cloned().collect();
                let h = u.stmt(*header);
                let mut here = done.clone();
                if !leaves && !shares_terminal(u, *header) && h.label.is_none() {
                    let candidates: Vec<String> = if calls_ours { vis.keys().cloned().collect() } else { renewed.into_iter().collect() };
                    for name in candidates.iter().filter(|x| !written.contains(*x) && !done.contains(*x)) {
                        let key = &vis[name];
                        cx.before.entry((h.span.file.0, h.span.line)).or_default().push(format!("call sapfor_shadow_hold(sh_{key})"));
                        cx.after.entry((h.span.file.0, last_line(u, n))).or_default().push(format!("call sapfor_shadow_free(sh_{key})"));
                        here.insert(name.clone());
                    }
                }
                shadow_holds(cx, ui, vis, in_par, renews, body, &here);
            }
            Node::If { arms, .. } => {
                for (_, b) in arms {
                    shadow_holds(cx, ui, vis, in_par, renews, b, done);
                }
            }
            _ => {}
        }
    }
}

/// An assignment to a distributed element whose right-hand side reads distributed data only
/// at that same element (`RSD(M,I,J,K) = RSD(M,I,J,K) - T * F(M,J+1)`) and calls no function
/// (nothing with side effects that every process must see) is evaluated by the owner alone,
/// from its own block, with no message: the index list for `sapfor_owns`, or None.
#[allow(clippy::too_many_arguments)]
fn owner_only(cx: &Cx, ui: usize, vis: &BTreeMap<String, String>, lbase: &str, l: &str, r: &str, rhs: &Expr) -> Option<String> {
    let sema = &cx.p.semas[ui];
    let mut calls = false;
    rhs.walk(&mut |e| {
        if let Expr::Ref(n, _) = e {
            calls |= matches!(sema.ref_kind(n), analyzer::sema::RefKind::Function | analyzer::sema::RefKind::StmtFunction);
        }
    });
    if calls {
        return None;
    }
    let norm = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    // the subscripts after the name at `b`
    let subs_at = |t: &str, b: usize| -> Option<String> {
        let rest = &t[b..];
        let open = b + rest.len() - rest.trim_start().len();
        if !t[open..].starts_with('(') {
            return None;
        }
        let close = text::matching_paren(t, open)?;
        Some(t[open + 1..close].to_string())
    };
    let lt = l.trim();
    let (_, lb) = *text::idents(lt, lbase).first()?;
    let inside = subs_at(lt, lb)?;
    let subs = text::split_top(&inside, ',');
    if subs.iter().any(|x| text::split_top(x, ':').len() != 1) {
        return None;
    }
    for name in vis.keys() {
        for (_, b) in text::idents(r, name) {
            if name != lbase || subs_at(r, b).map(|x| norm(&x)) != Some(norm(&inside)) {
                return None;
            }
        }
    }
    index_list(&cx.arrays[vis.get(lbase)?], &subs).ok()
}

/// The index list `[int(s1, c_int64_t), ...]` of an element of distributed array `a` for the
/// runtime's element calls; a vector given arrays of higher rank (`DArray::reshaped`) names
/// the element by its place in them (`reshaped_subs`).
fn index_list(a: &DArray, subs: &[String]) -> Result<String, String> {
    let v: Vec<String> = if a.reshaped && subs.len() == 1 {
        reshaped_subs(a, subs[0].trim())
    } else if subs.len() == a.bounds.len() {
        subs.iter().map(|x| x.trim().to_string()).collect()
    } else {
        return Err(format!("{}: wrong number of subscripts", a.name.to_ascii_uppercase()));
    };
    Ok(format!("[{}]", v.iter().map(|x| format!("int({x}, c_int64_t)")).collect::<Vec<_>>().join(", ")))
}

/// The sections of distributed array `name` that the sequential statements of loop nest `n`
/// read, as the text of their bounds evaluated before the nest (lower, upper per dimension),
/// or None when a read's section is not known there: a subscript that is not a constant, a
/// DO variable of the nest, or a scalar the nest does not change, plus a constant; loop
/// bounds the nest changes or that read distributed data; or a statement whose reads are
/// not rewritten element by element (I/O, calls, DO bounds). A box covers every value its
/// loops take (a superset for steps other than 1); reads that differ only in constant
/// subscripts share one box.
fn fetch_boxes(cx: &Cx, ui: usize, vis: &BTreeMap<String, String>, in_par: &BTreeSet<StmtId>, n: &Node, name: &str) -> Option<Vec<(Vec<String>, Vec<String>)>> {
    use analyzer::affine::linearize;
    use analyzer::ast::{Arg, BinOp};
    let p = cx.p;
    // (a vector given arrays of higher rank: its subscripts are not their dimensions; its
    // elements come through the read cache)
    if vis.get(name).is_some_and(|k| cx.arrays[k].reshaped) {
        return None;
    }
    let (u, sema) = (&p.units[ui], &p.semas[ui]);
    let acc = access_ctx(p, ui);
    // everything the nest may change
    let written = nest_accesses(p, ui, n).written;
    let param = |v: &str| sema.param(v).and_then(|c| c.as_int());
    let scalar = |v: &str| plain_scalar(sema, v);
    // an expression with the same value anywhere in the nest
    fn invariant(e: &Expr, ok_var: &dyn Fn(&str) -> bool, ok_array: &dyn Fn(&str) -> bool, intrinsic: &dyn Fn(&str) -> bool) -> bool {
        let args_ok = |args: &[Arg]| args.iter().all(|a| matches!(a, Arg::Expr(x) if invariant(x, ok_var, ok_array, intrinsic)));
        match e {
            Expr::Int(_) | Expr::Real(_) | Expr::Logical(_) => true,
            Expr::Var(v) => ok_var(v),
            Expr::Ref(f, args) => (ok_array(f) || intrinsic(f)) && args_ok(args),
            Expr::Unary(_, x) => invariant(x, ok_var, ok_array, intrinsic),
            // a division only by a constant: the bound is evaluated where the program may not
            Expr::Binary(BinOp::Div, a, b) => invariant(a, ok_var, ok_array, intrinsic) && matches!(**b, Expr::Int(d) if d != 0),
            Expr::Binary(_, a, b) => invariant(a, ok_var, ok_array, intrinsic) && invariant(b, ok_var, ok_array, intrinsic),
            _ => false,
        }
    }
    let ok_var = |v: &str| param(v).is_some() || (!written.contains(v) && !vis.contains_key(v) && scalar(v));
    let ok_array = |f: &str| {
        !written.contains(f) && !vis.contains_key(f) && sema.symbol(f).is_some_and(|s| s.is_array() && s.aliases.is_empty() && !s.pointer)
    };
    let intrinsic = |f: &str| {
        matches!(f, "min" | "max" | "abs" | "mod" | "min0" | "max0" | "iabs") && matches!(sema.ref_kind(f), analyzer::sema::RefKind::Intrinsic)
    };
    let inv = |e: &Expr| invariant(e, &ok_var, &ok_array, &intrinsic);
    // (text of the bounds, whether a dimension is a constant) of every read
    let mut boxes: Vec<(Vec<(String, String)>, Vec<Option<i64>>)> = vec![];
    type Chain = Vec<(String, Option<(String, String)>)>;
    #[allow(clippy::too_many_arguments)]
    fn walk(
        cx: &Cx,
        u: &Unit,
        nodes: &[Node],
        chain: &mut Chain,
        visit: &mut dyn FnMut(&Stmt, &Chain) -> bool,
        inv: &dyn Fn(&Expr) -> bool,
    ) -> bool {
        for n in nodes {
            match n {
                Node::Stmt(id) => {
                    if !visit(u.stmt(*id), chain) {
                        return false;
                    }
                }
                Node::Do { header, body, end } => {
                    let h = u.stmt(*header);
                    if !visit(h, chain) {
                        return false;
                    }
                    let pushed = match &h.kind {
                        StmtKind::Do { var, lo, hi, step, .. } => {
                            let t = cx.stmt_text(h);
                            let (_, body_t) = text::split_label(&t);
                            let parts = text::assign_eq(&body_t).map(|eq| text::split_top(&body_t[eq + 1..], ',')).unwrap_or_default();
                            let step_c = match step {
                                None => Some(1),
                                Some(Expr::Int(c)) => Some(*c),
                                Some(Expr::Unary(analyzer::ast::UnOp::Neg, x)) => match **x {
                                    Expr::Int(c) => Some(-c),
                                    _ => None,
                                },
                                _ => None,
                            };
                            let range = match step_c {
                                Some(c) if c != 0 && parts.len() >= 2 && inv(lo) && inv(hi) => {
                                    let (a, b) = (parts[0].trim().to_string(), parts[1].trim().to_string());
                                    Some(if c > 0 { (a, b) } else { (b, a) })
                                }
                                _ => None,
                            };
                            chain.push((var.clone(), range));
                            true
                        }
                        _ => false,
                    };
                    let ok = walk(cx, u, body, chain, visit, inv) && end.is_none_or(|e| visit(u.stmt(e), chain));
                    if pushed {
                        chain.pop();
                    }
                    if !ok {
                        return false;
                    }
                }
                Node::If { arms, end } => {
                    for (h, b) in arms {
                        if !visit(u.stmt(*h), chain) || !walk(cx, u, b, chain, visit, inv) {
                            return false;
                        }
                    }
                    if let Some(e) = end {
                        if !visit(u.stmt(*e), chain) {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
    let mut visit = |st: &Stmt, chain: &Chain| -> bool {
        if in_par.contains(&st.id) {
            return true;
        }
        let (mut a, mut calls) = (vec![], vec![]);
        acc.stmt_accesses(st, &mut a, &mut calls);
        let reads: Vec<_> = a.iter().filter(|x| x.name == name && !x.write && x.via_call.is_none()).collect();
        if reads.is_empty() {
            return true;
        }
        let rewritten = match &st.kind {
            StmtKind::Assign { .. } | StmtKind::IfThen(_) | StmtKind::ArithIf(..) => true,
            StmtKind::LogicalIf(_, inner) => matches!(inner.kind, StmtKind::Assign { .. }),
            _ => false,
        };
        if !rewritten {
            return false;
        }
        for r in reads {
            let Some(subs) = &r.subs else { return false };
            let mut dims = vec![];
            let mut consts = vec![];
            for sub in subs {
                let Some(l) = sub.expr().and_then(|e| linearize(e, &param)) else { return false };
                let c = l.constant;
                let plus = |t: &str| match c {
                    0 => t.to_string(),
                    c if c > 0 => format!("({t}) + {c}"),
                    c => format!("({t}) - {}", -c),
                };
                match l.terms.len() {
                    0 => {
                        dims.push((c.to_string(), c.to_string()));
                        consts.push(Some(c));
                    }
                    1 if l.terms.values().all(|k| *k == 1) => {
                        let v = l.terms.keys().next().expect("one term");
                        match chain.iter().rev().find(|(x, _)| x == v) {
                            Some((_, Some((lo, hi)))) => dims.push((plus(lo), plus(hi))),
                            Some((_, None)) => return false,
                            None if !written.contains(v) && scalar(v) => dims.push((plus(v), plus(v))),
                            None => return false,
                        }
                        consts.push(None);
                    }
                    _ => return false,
                }
            }
            boxes.push((dims, consts));
        }
        true
    };
    if !walk(cx, u, std::slice::from_ref(n), &mut vec![], &mut visit, &inv) || boxes.is_empty() {
        return None;
    }
    // reads that differ only in constant subscripts: one box from the least to the greatest
    let mut merged: Vec<(Vec<(String, String)>, Vec<Option<(i64, i64)>>)> = vec![];
    for (dims, consts) in boxes {
        let same = |m: &(Vec<(String, String)>, Vec<Option<(i64, i64)>>)| {
            m.1.iter().zip(&consts).all(|(a, b)| a.is_some() == b.is_some())
                && m.0.iter().zip(&dims).zip(&consts).all(|((x, y), c)| c.is_some() || x == y)
        };
        match merged.iter_mut().find(|m| same(m)) {
            Some(m) => {
                for (k, c) in consts.iter().enumerate() {
                    if let (Some(c), Some((lo, hi))) = (c, &mut m.1[k]) {
                        *lo = (*lo).min(*c);
                        *hi = (*hi).max(*c);
                    }
                }
            }
            None => {
                let cs = consts.iter().map(|c| c.map(|c| (c, c))).collect();
                merged.push((dims, cs));
            }
        }
    }
    Some(
        merged
            .into_iter()
            .map(|(dims, cs)| {
                dims.into_iter()
                    .zip(cs)
                    .map(|((lo, hi), c)| match c {
                        Some((a, b)) => (a.to_string(), b.to_string()),
                        None => (lo, hi),
                    })
                    .unzip()
            })
            .collect(),
    )
}

/// The box a parallel loop nest keeps to in array `name` (rank `rank`), for the limit of its
/// shadow exchanges (`sapfor_limit`): the dimensions that every reference of the nest (`na`,
/// its accesses) indexes by one variable the nest does not change plus constants (`V(M,I,J,K)`
/// and `V(M,I,J,K-1)` in NPB LU's `BLTS(K)`), or by constants only, with their ranges as
/// Fortran text; `None` when no dimension is so indexed, or when a procedure the nest calls
/// may reach the array.
fn limit_box(cx: &Cx, ui: usize, vis: &BTreeMap<String, String>, na: &NestAccesses, name: &str, rank: usize) -> Option<(i64, Vec<String>, Vec<String>)> {
    use analyzer::affine::linearize;
    let sema = &cx.p.semas[ui];
    let written = &na.written;
    let refs: Vec<&analyzer::access::Access> = na.accesses.iter().filter(|x| x.name.eq_ignore_ascii_case(name)).collect();
    if na.unknown_calls || refs.is_empty() || refs.iter().any(|r| r.via_call.is_some() || r.subs.as_ref().is_none_or(|s| s.len() != rank)) {
        return None;
    }
    let param = |v: &str| sema.param(v).and_then(|c| c.as_int());
    let invariant = |v: &str| !written.contains(v) && !vis.contains_key(v) && plain_scalar(sema, v);
    let (mut mask, mut los, mut his) = (0i64, vec![], vec![]);
    for d in 0..rank {
        // (the variable, or none for a constant; the least and greatest constant)
        let mut form: Option<(Option<String>, i64, i64)> = None;
        let mut ok = true;
        for r in &refs {
            let l = r.subs.as_ref().and_then(|s| s[d].expr()).and_then(|e| linearize(e, &param));
            let Some(l) = l else {
                ok = false;
                break;
            };
            let var = match l.terms.len() {
                0 => None,
                1 if l.terms.values().all(|k| *k == 1) => {
                    let v = l.terms.keys().next().expect("one term").to_ascii_lowercase();
                    if !invariant(&v) {
                        ok = false;
                        break;
                    }
                    Some(v)
                }
                _ => {
                    ok = false;
                    break;
                }
            };
            let c = l.constant;
            form = match form {
                None => Some((var, c, c)),
                Some((v0, lo, hi)) if v0 == var => Some((v0, lo.min(c), hi.max(c))),
                Some(_) => {
                    ok = false;
                    break;
                }
            };
        }
        match form {
            Some((v, lo, hi)) if ok => {
                mask |= 1 << d;
                let at = |c: i64| match &v {
                    Some(v) => format!("int({v} + ({c}), c_int64_t)"),
                    None => format!("int({c}, c_int64_t)"),
                };
                los.push(at(lo));
                his.push(at(hi));
            }
            _ => {
                los.push("0_c_int64_t".to_string());
                his.push("0_c_int64_t".to_string());
            }
        }
    }
    (mask != 0).then_some((mask, los, his))
}

/// The END IF statement of the IF construct that has the arm starting with statement `arm`
/// (an ELSE IF), searched through `nodes`.
fn construct_end(nodes: &[analyzer::ast::Node], arm: analyzer::ast::StmtId) -> Option<analyzer::ast::StmtId> {
    use analyzer::ast::Node;
    for n in nodes {
        match n {
            Node::Do { body, .. } => {
                if let Some(e) = construct_end(body, arm) {
                    return Some(e);
                }
            }
            Node::If { arms, end } => {
                if arms.iter().any(|(h, _)| *h == arm) {
                    return *end;
                }
                for (_, b) in arms {
                    if let Some(e) = construct_end(b, arm) {
                        return Some(e);
                    }
                }
            }
            Node::Stmt(_) => {}
        }
    }
    None
}

/// Wrap a rewritten statement: `label` goes on the first line, or on a trailing CONTINUE when
/// it terminates a DO loop.
fn labelled(label: Option<String>, do_term: bool, mut lines: Vec<String>) -> Vec<String> {
    if let Some(l) = label {
        if do_term {
            lines.push(format!("{l} continue"));
        } else if let Some(f) = lines.first_mut() {
            *f = format!("{l} {f}");
        }
    }
    lines
}

fn sequential(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, s: &Stmt, do_labels: &BTreeSet<u32>) {
    let p = cx.p;
    let sema = &p.semas[ui];
    let src = cx.src(s.span.file, s.span.line);
    let mut full = cx.stmt_text(s);
    // a statement of a nest on full copies (`copy_nests`): those arrays are the copies here
    let copied = cx.copied.get(&(ui, s.id)).cloned().unwrap_or_default();
    let only_others: BTreeMap<String, String>;
    let vis = if copied.is_empty() {
        vis
    } else {
        for x in &copied {
            full = rename(&full, x, &format!("sf_{}", vis[x]));
        }
        only_others = vis.iter().filter(|(k, _)| !copied.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        &only_others
    };
    let (label, body) = text::split_label(&full);
    let do_term = s.label.map(|l| do_labels.contains(&l)).unwrap_or(false);
    // a logical IF: rewrite its action inside a block IF when needed
    let (cond, action, inner): (Option<String>, String, &Stmt) = match &s.kind {
        StmtKind::LogicalIf(_, inner) => {
            let Some(r) = text::strip_kw(&body, "if") else { return };
            let r = r.trim_start();
            let off = body.len() - r.len();
            let Some(close) = text::matching_paren(&body, off) else { return };
            (Some(body[off..=close].to_string()), body[close + 1..].trim().to_string(), inner)
        }
        _ => (None, body.clone(), s),
    };
    cx.fetch_now = cx.fetched.get(&(ui, s.id)).cloned().unwrap_or_default();
    let mut calls: Vec<String> = vec![];
    let mut cond_calls: Vec<String> = vec![];
    let mut post: Vec<String> = vec![];
    let mut new_action: Option<String> = None;
    let mut cond_text = cond.clone();
    let err = |cx: &mut Cx, m: String| cx.err(s.span.file, s.span.line, m);
    // distributed references in the condition
    if let Some(c) = &cond {
        if vis.keys().any(|n| !text::idents(c, n).is_empty()) {
            match hoist_reads(cx, vis, c, src, &mut cond_calls) {
                Ok(x) => cond_text = Some(x),
                Err(m) => return err(cx, m),
            }
        }
    }
    match &inner.kind {
        StmtKind::Assign { lhs, rhs } => {
            let Some(eq) = text::assign_eq(&action) else { return };
            let (l, r) = (&action[..eq], &action[eq + 1..]);
            let lbase = lhs.base_name().unwrap_or("").to_string();
            let rhs_dist = vis.keys().any(|n| !text::idents(r, n).is_empty());
            let lhs_dist = vis.contains_key(&lbase);
            let lhs_sub_dist = vis.keys().any(|n| {
                let ids = text::idents(l, n);
                ids.len() > usize::from(lhs_dist && n == &lbase)
            });
            if !rhs_dist && !lhs_dist && !lhs_sub_dist && copied.is_empty() {
                if cond_text == cond {
                    return;
                }
            }
            if lhs_dist && !lhs_sub_dist {
                if let Some(idx) = owner_only(cx, ui, vis, &lbase, l, r, rhs) {
                    // only the owner evaluates it, reading its own block (made current on
                    // the host first where it reads the element)
                    let key = &vis[&lbase];
                    let test = if rhs_dist {
                        format!("sapfor_own_read(sh_{key}, {lbase}, {idx}, {src}_8) /= 0")
                    } else {
                        format!("sapfor_owns(sh_{key}, {idx}, {src}_8)")
                    };
                    new_action = Some(format!("if ({test}) {} = {}", l.trim(), r.trim()));
                }
            }
            let r2 = if new_action.is_some() {
                String::new()
            } else if rhs_dist {
                match hoist_reads(cx, vis, r, src, &mut calls) {
                    Ok(x) => x,
                    Err(m) => return err(cx, m),
                }
            } else {
                r.to_string()
            };
            if new_action.is_some() {
                // owner-only (above)
            } else if lhs_dist {
                let key = vis[&lbase].clone();
                let lt = l.trim();
                let Some(open) = lt.find('(') else {
                    return err(cx, format!("assignment to the whole distributed array {lbase} outside a parallel loop is not supported"));
                };
                let close = text::matching_paren(lt, open).unwrap_or(lt.len() - 1);
                let inside = lt[open + 1..close].to_string();
                let mut sub_calls = vec![];
                let inside2 = match hoist_reads(cx, vis, &inside, src, &mut sub_calls) {
                    Ok(x) => x,
                    Err(m) => return err(cx, m),
                };
                calls.extend(sub_calls);
                let subs = text::split_top(&inside2, ',');
                if subs.iter().any(|x| text::split_top(x, ':').len() != 1) {
                    return err(cx, format!("assignment to a section of distributed array {lbase} outside a parallel loop is not supported"));
                }
                let idx = match index_list(&cx.arrays[&key], &subs) {
                    Ok(x) => x,
                    Err(m) => return err(cx, m),
                };
                // the right-hand side is evaluated by every process (it may have side
                // effects, e.g. a random number generator), the owner stores it
                let arr = cx.arrays.get_mut(&key).unwrap();
                arr.temps += 1;
                let tmp = format!("st_{key}_{}", arr.temps);
                new_action = Some(format!("{tmp} = {}\nif (sapfor_owns(sh_{key}, {idx}, {src}_8)) {lbase}({inside2}) = {tmp}", r2.trim()));
            } else {
                let mut sub_calls = vec![];
                let l2 = match hoist_reads(cx, vis, l, src, &mut sub_calls) {
                    Ok(x) => x,
                    Err(m) => return err(cx, m),
                };
                calls.extend(sub_calls);
                new_action = Some(format!("{} = {}", l2.trim(), r2.trim()));
            }
        }
        StmtKind::Io { kind, writes, reads } => {
            match io_stmt(cx, ui, vis, &action, kind.clone(), reads, writes, src, &mut calls, &mut post) {
                Ok(Some(x)) => new_action = Some(x),
                Ok(None) => {}
                Err(m) => return err(cx, m),
            }
        }
        StmtKind::Stop => {
            new_action = Some(format!("call sapfor_finalize()\n{action}"));
        }
        StmtKind::Call { name: callee, args } => {
            // a whole distributed array given to an INHERIT dummy: the callee's handle is set
            // first; any other use of a distributed array in the call is refused
            let dummies = inherit_dummies(cx, callee);
            let mut passed: BTreeMap<&str, usize> = BTreeMap::new();
            for (i, a) in args.iter().enumerate() {
                if let analyzer::ast::Arg::Expr(Expr::Var(v)) = a {
                    let v = v.to_ascii_lowercase();
                    if let (Some(ak), Some(dk)) = (vis.get(&v), dummies.get(&i)) {
                        calls.push(format!("sh_{dk} = sh_{ak}"));
                        *passed.entry(vis.get_key_value(&v).unwrap().0.as_str()).or_default() += 1;
                    }
                }
            }
            if let Some(n) = vis.keys().find(|n| text::idents(&action, n).len() > passed.get(n.as_str()).copied().unwrap_or(0)) {
                return err(cx, format!("passing distributed array {} (or its elements) to {} is not supported: only a whole distributed array, to a dummy argument declared `INHERIT`", n.to_ascii_uppercase(), callee.to_ascii_uppercase()));
            }
        }
        StmtKind::ElseIf(_) if vis.keys().any(|n| !text::idents(&action, n).is_empty()) => {
            // no statement can stand before an ELSE IF: it becomes `ELSE`, the reads of the
            // distributed elements, and an IF nested in the branch, closed where the
            // construct ends (one more END IF there)
            let x = match hoist_reads(cx, vis, &action, src, &mut calls) {
                Ok(x) => x,
                Err(m) => return err(cx, m),
            };
            let nested = match (text::strip_kw(&x, "else"), text::strip_kw(&x, "elseif")) {
                (Some(r), _) => r.trim().to_string(),
                (None, Some(r)) => format!("if {}", r.trim()),
                _ => return err(cx, "ELSE IF statement not understood".into()),
            };
            let Some(end) = construct_end(&p.units[ui].body, s.id) else {
                return err(cx, "the IF construct of this ELSE IF has no END IF".into());
            };
            let mut lines = vec!["else".to_string()];
            lines.append(&mut calls);
            lines.push(nested);
            cx.replace_stmt(s, labelled(label, false, lines));
            let k = {
                let e = cx.extra_endif.entry((ui, end)).or_default();
                *e += 1;
                *e
            };
            // (the END IF's label stays on the outermost one: a branch to it from anywhere in
            // the construct still lands inside it)
            let es = p.units[ui].stmt(end);
            let (elabel, ebody) = text::split_label(&cx.stmt_text(es));
            let mut closing = vec!["end if".to_string(); k];
            closing.push(match elabel {
                Some(l) => format!("{l} {}", ebody.trim()),
                None => ebody.trim().to_string(),
            });
            cx.replace_stmt(es, closing);
            return;
        }
        // a DO statement's bounds and step are evaluated once, where the loop starts: their
        // reads of distributed elements are fetched just before it (NPB CG's `DO K =
        // ROWSTR(J), ROWSTR(J+1)-1` under a distribution of ROWSTR); not a DO WHILE, whose
        // condition is evaluated at every iteration
        StmtKind::IfThen(_) | StmtKind::ArithIf(..) | StmtKind::Do { .. } => {
            if vis.keys().any(|n| !text::idents(&action, n).is_empty()) {
                match hoist_reads(cx, vis, &action, src, &mut calls) {
                    Ok(x) => new_action = Some(x),
                    Err(m) => return err(cx, m),
                }
            }
        }
        // a distributed ALLOCATABLE array is laid out where the program starts
        // (`allocated_once`): its ALLOCATE sets only the STAT= variable, its DEALLOCATE does
        // nothing; the statement keeps the other objects
        StmtKind::Allocate(_) | StmtKind::Deallocate(_) if vis.keys().any(|n| !text::idents(&action, n).is_empty()) => {
            let kw = if matches!(inner.kind, StmtKind::Allocate(_)) { "allocate" } else { "deallocate" };
            let inside = text::strip_kw(&action, kw).map(|r| r.trim()).filter(|r| r.starts_with('(') && r.ends_with(')'));
            let Some(inside) = inside else {
                return err(cx, format!("cannot read this {} statement", kw.to_uppercase()));
            };
            let items = text::split_top(&inside[1..inside.len() - 1], ',');
            let name_of = text::leading_name;
            let keyword = |i: &str| i.contains('=') && !i.contains('(') || i.split('(').next().is_some_and(|h| h.contains('='));
            let objects: Vec<&String> = items.iter().filter(|i| !keyword(i) && !vis.contains_key(&name_of(i))).collect();
            let stat = items.iter().find(|i| keyword(i) && name_of(i) == "stat").and_then(|i| i.split_once('=').map(|(_, v)| v.trim().to_string()));
            new_action = Some(if !objects.is_empty() {
                let kept: Vec<&str> = items.iter().filter(|i| keyword(i) || !vis.contains_key(&name_of(i))).map(|i| i.trim()).collect();
                format!("{kw}({})", kept.join(", "))
            } else if let Some(v) = stat {
                format!("{v} = 0")
            } else {
                "continue".into()
            });
        }
        StmtKind::TypeDecl { .. }
        | StmtKind::Dimension(_)
        | StmtKind::AttrStmt { .. }
        | StmtKind::Common(_)
        | StmtKind::Parameter(_)
        | StmtKind::Implicit(_)
        | StmtKind::Use { .. }
        | StmtKind::Format
        | StmtKind::Data(_)
        | StmtKind::Equivalence(_) => return,
        _ => {
            if let Some(n) = vis.keys().find(|n| !text::idents(&action, n).is_empty()) {
                if !matches!(inner.kind, StmtKind::LogicalIf(..)) {
                    return err(cx, format!("this statement uses distributed array {n} in a way the runtime does not support yet (outside parallel loops only element reads and writes, and I/O, are supported)"));
                }
            }
        }
    }
    if new_action.is_none() && calls.is_empty() && post.is_empty() && cond_text == cond && copied.is_empty() {
        return;
    }
    let act = new_action.unwrap_or(action);
    let mut lines: Vec<String> = vec![];
    match cond_text {
        Some(c) => {
            // calls for the condition before the IF, the action's own calls inside it
            lines.extend(cond_calls);
            lines.push(format!("if {c} then"));
            lines.extend(calls);
            lines.extend(act.lines().map(|x| x.to_string()));
            lines.extend(post);
            lines.push("end if".into());
        }
        None => {
            lines.extend(calls);
            lines.extend(act.lines().map(|x| x.to_string()));
            lines.extend(post);
        }
    }
    let _ = sema;
    cx.replace_stmt(s, labelled(label, do_term, lines));
}

/// I/O outside parallel loops: run on process 0; distributed arrays in the statement are
/// gathered into their full copy first (output) or scattered from it after (input); values
/// read are broadcast.
#[allow(clippy::too_many_arguments)]
fn io_stmt(
    cx: &mut Cx,
    ui: usize,
    vis: &BTreeMap<String, String>,
    action: &str,
    kind: IoKind,
    reads: &[Expr],
    writes: &[Expr],
    src: i64,
    calls: &mut Vec<String>,
    post: &mut Vec<String>,
) -> Result<Option<String>, String> {
    let sema = &cx.p.semas[ui];
    // internal files (unit is a character variable) are done by every process
    if matches!(kind, IoKind::Read | IoKind::Write) {
        if let Some((_, items)) = io_specifiers(action) {
            let unit = items.first().map(|(item, spec)| match spec {
                Some((k, v)) if k == "unit" => v.as_str(),
                _ => item.as_str(),
            });
            if unit.and_then(base_name).is_some_and(|b| sema.type_of(&b).base == analyzer::ast::BaseType::Character) {
                if vis.keys().any(|n| !text::idents(action, n).is_empty()) {
                    return Err("internal I/O with distributed arrays is not supported".into());
                }
                return Ok(None);
            }
        }
    }
    // END=, ERR= and EOR= branches: process 0 runs the statement for every process, so the
    // branch it would take is taken by all from its status (`io_branches`)
    let (action, branches) = io_branches(action);
    let action = action.as_str();
    let mut a = action.to_string();
    let used: Vec<String> = vis.keys().filter(|n| !text::idents(action, n).is_empty()).cloned().collect();
    // output of single elements (`PRINT *, U(C,C,C)`): each is fetched from its owner
    // instead of gathering the whole array
    let mut elements_only = !matches!(kind, IoKind::Read) && !used.is_empty();
    for e in reads {
        e.walk(&mut |x| match x {
            Expr::Var(n) if used.contains(n) => elements_only = false,
            Expr::Ref(n, args) if used.contains(n) && args.iter().any(|g| g.expr().is_none()) => elements_only = false,
            Expr::ImpliedDo { .. } => {
                let mut inner = vec![];
                collect_bases(x, &mut inner);
                if inner.iter().any(|b| used.contains(b)) {
                    elements_only = false;
                }
            }
            _ => {}
        });
    }
    if elements_only {
        a = hoist_reads(cx, vis, &a, src, calls)?;
        return Ok(Some(format!("if (sapfor_io()) {a}")));
    }
    // a whole distributed array alone in a list-directed WRITE or PRINT: each process
    // formats its own elements, the I/O process writes the record (`sapfor_ld_gather`)
    // (where one thread of one process would format it all, as written: the record's text
    // written again would cost a fifth more)
    if branches.is_none() {
        if let Some((key, n, code, unit)) = ld_whole(cx, ui, vis, action, &kind, reads) {
            cx.arrays.get_mut(&key).unwrap().full = true;
            let put = match unit {
                None => "if (sapfor_io()) call sapfor_ld_put(0, .true.)".to_string(),
                Some(u) => format!("if (sapfor_io()) call sapfor_ld_put({u}, .false.)"),
            };
            let whole = rename(action, &n, &format!("sf_{key}"));
            return Ok(Some(format!(
                "if (sapfor_ld_pays(sh_{key}, {code}_c_int) /= 0) then\ncall sapfor_ld_gather(sh_{key}, {n}, {code}_c_int, c_funloc(sapfor_ld_items))\n{put}\nelse\ncall sapfor_gather(sh_{key}, {n}, sf_{key}, 0)\nif (sapfor_io()) {whole}\nend if"
            )));
        }
    }
    for n in &used {
        let key = vis[n].clone();
        cx.arrays.get_mut(&key).unwrap().full = true;
        a = rename(&a, n, &format!("sf_{key}"));
        if matches!(kind, IoKind::Read) {
            post.push(format!("call sapfor_scatter(sh_{key}, {n}, sf_{key})"));
        } else {
            calls.push(format!("call sapfor_gather(sh_{key}, {n}, sf_{key}, 0)"));
        }
    }
    // values read, and status variables, are broadcast
    let mut bc: BTreeSet<String> = BTreeSet::new();
    if matches!(kind, IoKind::Read) {
        for w in writes {
            let mut names = vec![];
            collect_bases(w, &mut names);
            for b in names {
                if !vis.contains_key(&b) {
                    bc.insert(b);
                }
            }
        }
    }
    // what the statement's specifiers return (spaces around `=` allowed): every INQUIRE
    // specifier but the unit and file; IOSTAT, IOMSG, SIZE and NEWUNIT of the others
    for (k, v) in io_specifiers(action).map(|(_, items)| items).unwrap_or_default().into_iter().filter_map(|i| i.1) {
        let returned = if matches!(kind, IoKind::Inquire) { !matches!(k.as_str(), "unit" | "file") } else { matches!(k.as_str(), "iostat" | "iomsg" | "size" | "newunit") };
        if let Some(base) = base_name(&v).filter(|_| returned) {
            bc.insert(base);
        }
    }
    for v in bc {
        if sema.is_array(&v) {
            post.push(format!("call sapfor_bcast_arr({v}, int(storage_size({v}), c_int64_t) / 8 * size({v}, kind=c_int64_t))"));
        } else {
            post.push(format!("call sapfor_bcast({v}, int(storage_size({v}), c_int64_t) / 8)"));
        }
    }
    if let Some(b) = branches {
        post.extend(b.jumps(src));
    }
    Ok(Some(format!("if (sapfor_io()) {a}")))
}

/// The END=, ERR= and EOR= specifiers of an I/O statement, taken out of its control list
/// (`io_branches`), and the status variable that replaces them.
struct IoBranches {
    /// (specifier, label) in the order written
    labels: Vec<(String, String)>,
    /// IOSTAT's variable: the statement's own, or `sapfor_ios`
    status: String,
    /// `sapfor_ios` was added: a status no branch takes is an error
    added: bool,
    /// IOMSG's variable: the statement's own, or `sapfor_iomsg`
    msg: String,
    /// READ, OPEN, ... (for the message)
    keyword: String,
}

impl IoBranches {
    /// After the status is broadcast: the branches, every process from process 0's status
    /// (EOR before END: both are negative), and, where the statement had no IOSTAT, the
    /// error the statement would have stopped with (its message from process 0).
    fn jumps(&self, src: i64) -> Vec<String> {
        let v = &self.status;
        let mut out = vec![];
        for want in ["eor", "end", "err"] {
            for (spec, label) in self.labels.iter().filter(|(s, _)| s == want) {
                let test = match spec.as_str() {
                    "eor" => format!("is_iostat_eor({v})"),
                    "end" => format!("is_iostat_end({v})"),
                    _ => format!("{v} > 0"),
                };
                out.push(format!("if ({test}) goto {label}"));
            }
        }
        if self.added {
            // (process 0 stops them all with its message; the others wait for it)
            out.push(format!("if ({v} /= 0) then"));
            out.push(format!("if (sapfor_io()) call sapfor_error({src}_8, '{}: '//trim({})//c_null_char)", self.keyword, self.msg));
            out.push("call sapfor_barrier()".into());
            out.push("end if".into());
        }
        out
    }
}

/// The variable a specifier's value names (`ST(1)` -> `st`), lower case; None for a number,
/// a string or an expression that does not start with a name.
fn base_name(v: &str) -> Option<String> {
    let base: String = v.trim().to_ascii_lowercase().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!base.is_empty() && !base.starts_with(|c: char| c.is_ascii_digit())).then_some(base)
}

/// `WRITE (U, *) A` or `PRINT *, A` with A a whole distributed array of INTEGER, INTEGER*8,
/// REAL or DOUBLE PRECISION alone in the list, and nothing in the control list but the unit
/// (a number or a default INTEGER variable, or `*`) and the format `*`, in a program none of
/// whose OPEN statements changes how list-directed output looks: (A's key, its local name,
/// the type code of `sapfor_ld_items`, the unit, None for the default unit).
fn ld_whole(cx: &mut Cx, ui: usize, vis: &BTreeMap<String, String>, action: &str, kind: &IoKind, reads: &[Expr]) -> Option<(String, String, i32, Option<String>)> {
    let p = cx.p;
    let sema = &p.semas[ui];
    use analyzer::ast::BaseType as B;
    let unit = match kind {
        IoKind::Print => {
            // PRINT *, A
            let rest = text::strip_kw(action, "print")?.trim_start().strip_prefix('*')?;
            rest.trim_start().strip_prefix(',')?;
            None
        }
        IoKind::Write => {
            let (_, items) = io_specifiers(action)?;
            let [(u, us), (f, fs)] = items.as_slice() else { return None };
            let u = match us {
                None => u.clone(),
                Some((k, v)) if k == "unit" => v.clone(),
                _ => return None,
            };
            let f = match fs {
                None => f.clone(),
                Some((k, v)) if k == "fmt" => v.clone(),
                _ => return None,
            };
            if f.trim() != "*" {
                return None;
            }
            let u = u.trim().to_string();
            if u == "*" {
                None
            } else if u.chars().all(|c| c.is_ascii_digit()) || (sema.symbol(&u.to_ascii_lowercase()).is_some_and(|s| s.rank() == 0) && matches!(sema.type_of(&u.to_ascii_lowercase()), t if t.base == B::Integer && matches!(t.kind, None | Some(4)))) {
                Some(u)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    // (the statement reads its unit variable too; `UNIT=` and `FMT=` read nothing)
    let items: Vec<&Expr> = reads.iter().filter(|e| !matches!((e, &unit), (Expr::Var(v), Some(u)) if v.eq_ignore_ascii_case(u)) && !matches!(e, Expr::Opaque(v) if v.is_empty())).collect();
    let [Expr::Var(n)] = items.as_slice() else { return None };
    // (constants in the list are read by no one: the list's text must be the array alone)
    let list = match kind {
        IoKind::Print => text::strip_kw(action, "print")?.trim_start().strip_prefix('*')?.trim_start().strip_prefix(',')?.to_string(),
        _ => {
            let t = action.trim_start();
            let ((_, close), _) = io_specifiers(action)?;
            t.get(close + 1..)?.to_string()
        }
    };
    if !list.trim().eq_ignore_ascii_case(n) {
        return None;
    }
    let key = vis.get(n)?.clone();
    let ty = sema.type_of(n);
    let code = match (&ty.base, ty.kind) {
        (B::Integer, None | Some(4)) => 1,
        (B::Integer, Some(8)) => 2,
        (B::Real, None | Some(4)) => 3,
        (B::Real, Some(8)) | (B::DoublePrecision, _) => 4,
        _ => return None,
    };
    if cx.ld_plain.is_none() {
        let mut plain = true;
        for u in &p.units {
            for st in &u.stmts {
                if let StmtKind::Io { kind: IoKind::Open, .. } = &st.kind {
                    let t = cx.stmt_text(st).to_ascii_lowercase().replace(' ', "");
                    if ["recl=", "delim=", "decimal=", "sign=", "round=", "encoding="].iter().any(|k| t.contains(k)) {
                        plain = false;
                    }
                }
            }
        }
        cx.ld_plain = Some(plain);
    }
    cx.ld_plain.unwrap().then(|| (key, n.clone(), code, unit))
}

/// The control list of an I/O statement (`READ (9, *, END = 20) V`): the byte range of its
/// parentheses in the trimmed statement, and each item with its specifier and value where it
/// has one (`("end", "20")`; a positional unit or format has none). None for a statement
/// without a control list (`PRINT *, X`, `READ *, X`).
#[allow(clippy::type_complexity)]
fn io_specifiers(action: &str) -> Option<((usize, usize), Vec<(String, Option<(String, String)>)>)> {
    let t = action.trim_start();
    let kw_len = t.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(t.len());
    let rest = &t[kw_len..];
    let open = kw_len + rest.len() - rest.trim_start().len();
    if !t[open..].starts_with('(') {
        return None;
    }
    let close = text::matching_paren(t, open)?;
    let items = text::split_top(&t[open + 1..close], ',')
        .into_iter()
        .map(|item| {
            let spec = item.split_once('=').and_then(|(k, v)| {
                let k = k.trim().to_ascii_lowercase();
                // (`'a=b'` in a format string, `x == y`: no specifier)
                (!k.is_empty() && k.chars().all(|c| c.is_ascii_alphabetic()) && !v.starts_with('=')).then(|| (k, v.trim().to_string()))
            });
            (item.trim().to_string(), spec)
        })
        .collect();
    Some(((open, close), items))
}

/// Take END=, ERR= and EOR= out of an I/O statement's control list: the statement with an
/// IOSTAT= in their place (its own, or `sapfor_ios` with `sapfor_iomsg`), and the branches
/// to take after it. The statement itself where it has none (or no control list).
fn io_branches(action: &str) -> (String, Option<IoBranches>) {
    let t = action.trim_start();
    let lead = action.len() - t.len();
    let Some(((open, close), items)) = io_specifiers(action) else {
        return (action.to_string(), None);
    };
    let mut labels = vec![];
    let mut kept = vec![];
    let mut status = None;
    let mut msg = None;
    for (item, spec) in items {
        match spec {
            Some((k, v)) if matches!(k.as_str(), "end" | "err" | "eor") => labels.push((k, v)),
            Some((k, v)) => {
                if k == "iostat" {
                    status = Some(v);
                } else if k == "iomsg" {
                    msg = Some(v);
                }
                kept.push(item);
            }
            None => kept.push(item),
        }
    }
    if labels.is_empty() {
        return (action.to_string(), None);
    }
    let added = status.is_none();
    if added {
        kept.push("iostat=sapfor_ios".into());
        if msg.is_none() {
            kept.push("iomsg=sapfor_iomsg".into());
        }
    }
    let stmt = format!("{}{}({}){}", &action[..lead], &t[..open], kept.join(", "), &t[close + 1..]);
    let (status, msg) = (status.unwrap_or_else(|| "sapfor_ios".into()), msg.unwrap_or_else(|| "sapfor_iomsg".into()));
    let keyword = t[..open].trim_end().to_ascii_uppercase();
    (stmt, Some(IoBranches { labels, status, added, msg, keyword }))
}

fn collect_bases(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Var(n) | Expr::Ref(n, _) => out.push(n.clone()),
        Expr::ImpliedDo { .. } | Expr::Opaque(_) => {
            e.walk(&mut |x| {
                if let Expr::Var(n) | Expr::Ref(n, _) = x {
                    out.push(n.clone());
                }
            });
        }
        _ => {}
    }
}

/// The generated module with the distributed arrays and their set-up routines.
fn data_module(cx: &Cx) -> String {
    let mut s = String::from("! Generated by sapfor: distributed arrays of the program.\nmodule sapfor_data\n  use sapfor_rt\n  implicit none\n");
    for a in cx.arrays.values() {
        let r = a.bounds.len();
        let colons = vec![":"; r].join(",");
        let k = &a.key;
        s.push_str(&format!("  integer(c_int64_t) :: sh_{k} = -1\n"));
        if a.own_storage() {
            let target = if a.target { ", target" } else { "" };
            s.push_str(&format!("  {}, allocatable{target} :: sd_{k}({colons})\n", a.ty));
        }
        if a.full {
            // (a vector given arrays of higher rank has its copy as a vector: its references are
            // the vector's)
            let colons = if a.reshaped { ":" } else { colons.as_str() };
            s.push_str(&format!("  {}, allocatable :: sf_{k}({colons})\n", a.ty));
        }
        for t in 1..=a.temps {
            s.push_str(&format!("  {} :: st_{k}_{t}\n", a.ty));
        }
    }
    s.push_str("contains\n");
    for a in cx.arrays.values() {
        let r = a.bounds.len();
        let k = &a.key;
        let glo: Vec<i64> = a.bounds.iter().map(|b| b.0).collect();
        let ghi: Vec<i64> = a.bounds.iter().map(|b| b.1).collect();
        let slo: Vec<i64> = a.shadow.iter().map(|b| b.0).collect();
        let shi: Vec<i64> = a.shadow.iter().map(|b| b.1).collect();
        // (the edges blocks of time steps want, as many planes as the cache makes worth it:
        // `sapfor_ghost_width` of the array's planes' bytes)
        let edges = |w: &[i64]| -> String {
            if !a.ghosts.iter().any(|g| *g > 0) || a.template {
                return i64list(w);
            }
            let items: Vec<String> = w
                .iter()
                .enumerate()
                .map(|(d, x)| match a.ghosts.get(d).copied().unwrap_or(0) {
                    g if g > *x => {
                        let plane: i64 = a.bounds.iter().enumerate().filter(|(e, _)| *e != d).map(|(_, (l, h))| (h - l + 1).max(1)).product();
                        format!("max({x}_c_int64_t, sapfor_ghost_width({g}_c_int64_t, {plane}_c_int64_t * (storage_size(sd_{k}) / 8)))")
                    }
                    _ => x.to_string(),
                })
                .collect();
            format!("[integer(c_int64_t) :: {}]", items.join(", "))
        };
        let zero = if a.ty.starts_with("logical") { ".false." } else { "0" };
        let full_copy = |s: &mut String| {
            let fd = if a.reshaped {
                format!("1:{}", a.bounds.iter().map(|(l, h)| h - l + 1).product::<i64>())
            } else {
                a.bounds.iter().map(|b| format!("{}:{}", b.0, b.1)).collect::<Vec<_>>().join(", ")
            };
            s.push_str(&format!("    allocate(sf_{k}({fd}))\n"));
            s.push_str(&format!("    call sapfor_huge_pages(sf_{k}, size(sf_{k}, kind=c_int64_t) * (storage_size(sf_{k}) / 8))\n"));
            s.push_str(&format!("    sf_{k} = {zero}\n"));
        };
        if matches!(a.map, Mapping::Inherit { .. }) {
            // the caller set the handle; the storage is the actual argument's: only the
            // full copy for I/O is this array's own
            s.push_str(&format!("  subroutine sapfor_setup_{k}()\n"));
            if a.full {
                s.push_str(&format!("    if (allocated(sf_{k})) return\n"));
                full_copy(&mut s);
            }
            s.push_str(&format!("  end subroutine sapfor_setup_{k}\n"));
            continue;
        }
        s.push_str(&format!("  subroutine sapfor_setup_{k}()\n    if (sh_{k} >= 0) return\n"));
        // (a template's elements have no size: 1 byte, nothing is ever sent)
        let esize = if a.template { "1_c_int64_t".to_string() } else { format!("int(storage_size(sd_{k}), c_int64_t) / 8") };
        match &a.map {
            Mapping::Dist(f) => {
                let fm = f.iter().map(|b| if *b { "1" } else { "0" }).collect::<Vec<_>>().join(", ");
                s.push_str(&format!(
                    "    sh_{k} = sapfor_distribute({r}, {esize}, {}, {}, [integer(c_int) :: {fm}], {}, {})\n",
                    i64list(&glo), i64list(&ghi), edges(&slo), edges(&shi)
                ));
            }
            Mapping::Inherit { .. } => unreachable!("handled above"),
            Mapping::Align(t, m) => {
                let td = m.iter().map(|x| x.0.to_string()).collect::<Vec<_>>().join(", ");
                let off: Vec<i64> = m.iter().map(|x| x.1).collect();
                s.push_str(&format!("    call sapfor_setup_{t}()\n"));
                s.push_str(&format!(
                    "    sh_{k} = sapfor_align(sh_{t}, {r}, {esize}, {}, {}, [integer(c_int) :: {td}], {}, {}, {})\n",
                    i64list(&glo), i64list(&ghi), i64list(&off), edges(&slo), edges(&shi)
                ));
            }
        }
        s.push_str(&format!("    call sapfor_owned_bounds(sh_{k}, {r})\n"));
        if a.template {
            s.push_str(&format!("  end subroutine sapfor_setup_{k}\n"));
            continue;
        }
        let dims = (1..=r).map(|d| format!("sapfor_alb(sh_{k}, {d}):sapfor_aub(sh_{k}, {d})")).collect::<Vec<_>>().join(", ");
        s.push_str(&format!("    allocate(sd_{k}({dims}))\n"));
        s.push_str(&format!("    call sapfor_huge_pages(sd_{k}, size(sd_{k}, kind=c_int64_t) * (storage_size(sd_{k}) / 8))\n"));
        s.push_str(&format!("    sd_{k} = {zero}\n"));
        if a.full {
            full_copy(&mut s);
        }
        s.push_str(&format!("  end subroutine sapfor_setup_{k}\n"));
    }
    s.push_str("end module sapfor_data\n");
    s
}
