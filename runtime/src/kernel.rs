//! CUDA C kernels from parallel loop nests (issue 7; conventions in `docs/gpu.md`).
//!
//! [`generate`] turns one `PARALLEL` nest (an analyzer unit, the `Node::Do` of the nest, the
//! directive's loop variables, PRIVATE, REDUCTION, CUDA_BLOCK and ACROSS) into one
//! `extern "C" __global__` function:
//!
//! * one thread per iteration of the mapped loops; x covers the innermost mapped loop, y the
//!   next one, z all the others together (row of the outer loops, outermost slowest); the
//!   bounds and steps of the mapped loops are kernel arguments (the local part);
//! * arrays are passed as a pointer plus the allocated bounds of the representative, and
//!   addressed with global indices in column-major order;
//! * scalars that the nest only reads are passed by value, PARAMETERs are constants,
//!   variables assigned in the nest (PRIVATE, inner loop indices) are locals;
//! * each REDUCTION variable is a local initialised to the identity of its operation; at the
//!   end the thread stores it (and the MAXLOC/MINLOC indices) at its linear iteration number
//!   in a partial-result buffer; the runtime combines the buffer in iteration order with the
//!   value the variable had before the loop (host side, `sapfor_rt::device::reduce`), so sums
//!   add in the sequential order and MAXLOC/MINLOC keep the first occurrence;
//! * a nest with ACROSS (dependences between iterations) becomes a single-thread kernel that
//!   runs the mapped loops in order.
//!
//! The argument order: arrays (pointer, then `lo_d, hi_d` for every dimension) in order of
//! first appearance, read-only scalars by value (sorted by name), `lo, hi, step` of every
//! mapped loop (outermost first), then per reduction the value buffer and, for
//! MAXLOC/MINLOC, one `int` buffer per index variable. [`Kernel::params`] lists them.

use analyzer::ast::{Arg, BaseType, BinOp, Expr, Node, Stmt, StmtKind, TypeSpec, UnOp, Unit};
use analyzer::directives::{Clause, DExpr, ReductionOp};
use analyzer::program::Program;
use analyzer::sema::{Const, UnitSema};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// C types of Fortran values in kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CTy {
    /// LOGICAL (4 bytes, 0 / 1)
    Logical,
    /// INTEGER(4)
    Int,
    /// INTEGER(8)
    Long,
    /// REAL(4)
    Float,
    /// REAL(8), DOUBLE PRECISION
    Double,
}

impl CTy {
    pub fn c(self) -> &'static str {
        match self {
            CTy::Logical | CTy::Int => "int",
            CTy::Long => "long long",
            CTy::Float => "float",
            CTy::Double => "double",
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            CTy::Logical | CTy::Int | CTy::Float => 4,
            CTy::Long | CTy::Double => 8,
        }
    }
    pub fn is_real(self) -> bool {
        matches!(self, CTy::Float | CTy::Double)
    }
    pub fn of(t: &TypeSpec) -> Option<CTy> {
        Some(match (&t.base, t.kind) {
            (BaseType::Integer, None | Some(4)) => CTy::Int,
            (BaseType::Integer, Some(8)) => CTy::Long,
            (BaseType::Real, None | Some(4)) => CTy::Float,
            (BaseType::Real, Some(8)) | (BaseType::DoublePrecision, _) => CTy::Double,
            (BaseType::Logical, None | Some(4)) => CTy::Logical,
            _ => return None,
        })
    }
}

/// One kernel parameter, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// Pointer to the representative of an array.
    Array {
        name: String,
        ty: CTy,
        rank: usize,
    },
    /// Allocated lower / upper bound of dimension `dim` (1-based) of an array (`long long`).
    Lo {
        array: String,
        dim: usize,
    },
    Hi {
        array: String,
        dim: usize,
    },
    /// A scalar the nest reads, by value.
    Scalar {
        name: String,
        ty: CTy,
    },
    /// Bounds and step of a mapped loop (`long long`): the local part.
    LoopLo {
        var: String,
    },
    LoopHi {
        var: String,
    },
    LoopStep {
        var: String,
    },
    /// Partial results of a reduction: one value per iteration (`ty *`).
    RedValues {
        var: String,
        op: ReductionOp,
        ty: CTy,
    },
    /// MAXLOC/MINLOC: the `k`-th index variable per iteration (`int *`).
    RedLoc {
        var: String,
        loc: String,
        k: usize,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct MappedLoop {
    pub var: String,
    pub lo: Expr,
    pub hi: Expr,
    pub step: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelReduction {
    pub op: ReductionOp,
    pub var: String,
    pub ty: CTy,
    /// MAXLOC/MINLOC index variables.
    pub locs: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// The `__global__` function alone (see [`program_source`] for a compilable unit).
    pub text: String,
    pub params: Vec<Param>,
    pub loops: Vec<MappedLoop>,
    pub reductions: Vec<KernelReduction>,
    pub block: [u32; 3],
    /// ACROSS nest: one thread runs all iterations in order (launch grid 1x1x1, block 1x1x1).
    pub single_thread: bool,
    /// Arrays in parameter order with their element types.
    pub arrays: Vec<(String, CTy)>,
    pub scalars: Vec<(String, CTy)>,
    /// Arrays the nest assigns.
    pub written: BTreeSet<String>,
    /// The companion kernel that folds the partial results on the device (None without
    /// REDUCTION): `NAME_red(long long n, long long stride, long long chunk, <the reduction
    /// buffers in the order of the main kernel>)`. Thread `t` folds elements
    /// `t*chunk .. min(n, (t+1)*chunk)` (element `k` at index `k*stride`) into the first of
    /// them, in order. Run it with `n` = iterations, `stride` 1, then with
    /// `n = ceil(n/chunk)`, `stride = chunk`, `chunk = n` on one thread: slot 0 then holds
    /// the loop's contribution (see `sapfor_rt::device::reduce::fold_on_device`).
    pub combine: Option<String>,
}

/// What the converter knows about one parallel nest.
pub struct NestSpec<'a> {
    pub program: &'a Program,
    pub unit: usize,
    /// The `Node::Do` right after the PARALLEL directive.
    pub nest: &'a Node,
    /// PARALLEL (J, I): the mapped loop variables, outermost first.
    pub vars: Vec<String>,
    pub clauses: Vec<Clause>,
    /// Kernel name (a C identifier).
    pub name: String,
    /// Values to use for PARAMETERs instead of the declared ones (tests run nests on small
    /// data); empty for the converter.
    pub param_overrides: BTreeMap<String, Const>,
}

/// An error with its place: `file:line: message`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}
impl std::error::Error for KernelError {}

/// Helpers shared by every kernel; compiled by NVRTC and by g++ alike.
pub const PREAMBLE: &str = r#"// sapfor generated kernels (CUDA C); see docs/gpu.md for the conventions
#ifndef SAPFOR_KERNEL_HELPERS
#define SAPFOR_KERNEL_HELPERS
template <class T> __device__ __forceinline__ T sapfor_max(T a, T b) { return a > b ? a : b; }
template <class T> __device__ __forceinline__ T sapfor_min(T a, T b) { return a < b ? a : b; }
template <class T> __device__ __forceinline__ T sapfor_iabs(T a) { return a < 0 ? -a : a; }
template <class T> __device__ __forceinline__ T sapfor_sign(T a, T b) { T m = a < 0 ? -a : a; return b >= 0 ? m : -m; }
template <class T> __device__ __forceinline__ T sapfor_ipow(T b, long long e) {
    if (e < 0) { if (b == 1) return 1; if (b == -1) return (e % 2) ? -1 : 1; return 0; }
    T r = 1; while (e) { if (e & 1) r *= b; b *= b; e >>= 1; } return r;
}
template <class T> __device__ __forceinline__ T sapfor_powi(T b, long long e) {
    bool neg = e < 0; unsigned long long n = neg ? -(unsigned long long)e : (unsigned long long)e;
    T r = 1; while (n) { if (n & 1) r *= b; n >>= 1; if (n) b *= b; } return neg ? (T)1 / r : r;
}
__device__ __forceinline__ long long sapfor_trip(long long lo, long long hi, long long st) {
    long long t = (hi - lo + st) / st; return t > 0 ? t : 0;
}
#endif
"#;

/// A compilable program of kernels: the helpers, then every kernel.
pub fn program_source(kernels: &[&Kernel]) -> String {
    let mut s = String::from(PREAMBLE);
    for k in kernels {
        s.push('\n');
        s.push_str(&k.text);
    }
    s
}

struct Gen<'a> {
    p: &'a Program,
    u: &'a Unit,
    sema: &'a UnitSema,
    file: String,
    overrides: &'a BTreeMap<String, Const>,
    arrays: Vec<(String, CTy)>,
    /// scalar locals: name -> type
    locals: BTreeMap<String, CTy>,
    /// PRIVATE arrays: a copy per thread with the declared (constant) bounds
    private_arrays: BTreeMap<String, (CTy, Vec<(i64, i64)>)>,
    scalars_read: BTreeMap<String, CTy>,
    params_used: BTreeMap<String, (CTy, Const)>,
    reductions: Vec<KernelReduction>,
    mapped: Vec<String>,
    written: BTreeSet<String>,
    /// real literals spelled with a D exponent (or `_8`) in the current statement
    dlits: Vec<f64>,
    out: String,
    err: Option<KernelError>,
    /// depth of C loops opened for inner sequential DO loops
    loop_depth: usize,
    /// inner sequential DO loops open around the current statement
    inner_loops: usize,
    single: bool,
}

fn ident(n: &str) -> String {
    format!("{n}_")
}

fn lit_f(v: f64, ty: CTy) -> String {
    let mut s = format!("{v:e}");
    if !s.contains('.') {
        if let Some(k) = s.find('e') {
            s.insert_str(k, ".0");
        }
    }
    if ty == CTy::Float {
        s.push('f');
    }
    s
}

/// Real literals of a statement's text written with a D exponent or kind 8.
fn double_literals(text: &str) -> Vec<f64> {
    let b = text.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if (c.is_ascii_digit() || (c == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()))
            && !prev_ident
        {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && b[i] == b'.' {
                // `1.eq.` : an operator, not a fraction
                let mut k = i + 1;
                while k < b.len() && b[k].is_ascii_alphabetic() {
                    k += 1;
                }
                let op = k > i + 1
                    && k < b.len()
                    && b[k] == b'.'
                    && !matches!(b[i + 1], b'd' | b'D' | b'e' | b'E');
                if !op {
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let mut dbl = false;
            if i < b.len() && matches!(b[i], b'd' | b'D' | b'e' | b'E') {
                let mut k = i + 1;
                if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                    k += 1;
                }
                if k < b.len() && b[k].is_ascii_digit() {
                    dbl = matches!(b[i], b'd' | b'D');
                    i = k;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if i + 1 < b.len() && b[i] == b'_' && b[i + 1] == b'8' {
                dbl = true;
            }
            if dbl {
                let t: String = text[start..i]
                    .chars()
                    .map(|c| if c == 'd' || c == 'D' { 'e' } else { c })
                    .collect();
                if let Ok(v) = t.parse::<f64>() {
                    out.push(v);
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

fn promote(a: CTy, b: CTy) -> CTy {
    a.max(b).max(CTy::Int)
}

impl<'a> Gen<'a> {
    fn fail(&mut self, line: u32, msg: impl Into<String>) {
        if self.err.is_none() {
            self.err = Some(KernelError {
                file: self.file.clone(),
                line,
                message: msg.into(),
            });
        }
    }

    fn stmt_text(&self, s: &Stmt) -> String {
        self.p.map.files[s.span.file.0 as usize].lines_text(s.span.line, s.span.end_line)
    }

    fn param_value(&self, n: &str) -> Option<Const> {
        self.overrides
            .get(n)
            .cloned()
            .or_else(|| self.sema.param(n).cloned())
    }

    fn var_ty(&mut self, n: &str, line: u32) -> CTy {
        let t = self.sema.type_of(n);
        match CTy::of(&t) {
            Some(c) => c,
            None => {
                self.fail(
                    line,
                    format!(
                        "variable {} of type {} is not supported in GPU kernels",
                        n.to_uppercase(),
                        t.name()
                    ),
                );
                CTy::Int
            }
        }
    }

    fn array_index(&mut self, n: &str, ty: CTy) -> usize {
        if let Some(i) = self.arrays.iter().position(|(a, _)| a == n) {
            return i;
        }
        self.arrays.push((n.to_string(), ty));
        self.arrays.len() - 1
    }

    /// A scalar name in an expression.
    fn scalar(&mut self, n: &str, line: u32) -> (String, CTy) {
        if let Some(v) = self.param_value(n) {
            let ty = self.var_ty(n, line);
            self.params_used.insert(n.to_string(), (ty, v));
            return (ident(n), ty);
        }
        let ty = self.var_ty(n, line);
        if !self.locals.contains_key(n) && !self.mapped.iter().any(|m| m == n) {
            self.scalars_read.insert(n.to_string(), ty);
        }
        (ident(n), ty)
    }

    fn expr(&mut self, e: &Expr, line: u32) -> (String, CTy) {
        match e {
            Expr::Int(v) => {
                if *v > i32::MAX as i64 || *v < i32::MIN as i64 {
                    (format!("{v}LL"), CTy::Long)
                } else {
                    (format!("{v}"), CTy::Int)
                }
            }
            Expr::Real(v) => {
                // the scanner sees `1.d99` of `-1.d99`; the parser may fold the sign in
                let dbl = self.dlits.iter().any(|d| *d == v.abs());
                let ty = if dbl { CTy::Double } else { CTy::Float };
                (lit_f(*v, ty), ty)
            }
            Expr::Logical(b) => ((*b as i32).to_string(), CTy::Logical),
            Expr::Var(n) => {
                if self.sema.is_array(n) {
                    self.fail(
                        line,
                        format!("whole-array reference {} in a kernel", n.to_uppercase()),
                    );
                    return ("0".into(), CTy::Int);
                }
                self.scalar(n, line)
            }
            Expr::Ref(n, args) => {
                if self.sema.is_array(n) {
                    self.element(n, args, line)
                } else {
                    self.intrinsic(n, args, line)
                }
            }
            Expr::Unary(op, a) => {
                let (s, t) = self.expr(a, line);
                match op {
                    UnOp::Neg => (format!("(-{s})"), t),
                    UnOp::Plus => (s, t),
                    UnOp::Not => (format!("(!{s})"), CTy::Logical),
                }
            }
            Expr::Binary(op, a, b) => {
                let (x, tx) = self.expr(a, line);
                let (y, ty) = self.expr(b, line);
                let t = promote(tx, ty);
                let cast = |s: &str, from: CTy| {
                    if from == t {
                        s.to_string()
                    } else {
                        format!("(({}){s})", t.c())
                    }
                };
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                        let o = match op {
                            BinOp::Add => "+",
                            BinOp::Sub => "-",
                            BinOp::Mul => "*",
                            _ => "/",
                        };
                        (format!("({} {o} {})", cast(&x, tx), cast(&y, ty)), t)
                    }
                    BinOp::Pow => {
                        if !ty.is_real() {
                            if tx.is_real() {
                                if let Expr::Int(2) = **b {
                                    return (format!("({x} * {x})"), tx);
                                }
                                (
                                    format!("sapfor_powi<{}>({x}, (long long)({y}))", tx.c()),
                                    tx,
                                )
                            } else {
                                (
                                    format!(
                                        "sapfor_ipow<{}>({x}, (long long)({y}))",
                                        tx.max(CTy::Int).c()
                                    ),
                                    tx.max(CTy::Int),
                                )
                            }
                        } else if t == CTy::Float {
                            (format!("powf({}, {})", cast(&x, tx), cast(&y, ty)), t)
                        } else {
                            (format!("pow({}, {})", cast(&x, tx), cast(&y, ty)), t)
                        }
                    }
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        let o = match op {
                            BinOp::Eq => "==",
                            BinOp::Ne => "!=",
                            BinOp::Lt => "<",
                            BinOp::Le => "<=",
                            BinOp::Gt => ">",
                            _ => ">=",
                        };
                        (
                            format!("({} {o} {})", cast(&x, tx), cast(&y, ty)),
                            CTy::Logical,
                        )
                    }
                    BinOp::And => (format!("({x} && {y})"), CTy::Logical),
                    BinOp::Or => (format!("({x} || {y})"), CTy::Logical),
                    BinOp::Eqv => (format!("((!{x}) == (!{y}))"), CTy::Logical),
                    BinOp::Neqv => (format!("((!{x}) != (!{y}))"), CTy::Logical),
                    BinOp::Concat => {
                        self.fail(line, "character concatenation in a kernel");
                        ("0".into(), CTy::Int)
                    }
                }
            }
            Expr::Str(_) => {
                self.fail(line, "character data in a kernel");
                ("0".into(), CTy::Int)
            }
            _ => {
                self.fail(line, "expression not supported in a kernel");
                ("0".into(), CTy::Int)
            }
        }
    }

    fn element(&mut self, n: &str, args: &[Arg], line: u32) -> (String, CTy) {
        let ty = self.var_ty(n, line);
        let rank = self.sema.symbol(n).map(|s| s.rank()).unwrap_or(0);
        if args.len() != rank {
            self.fail(
                line,
                format!(
                    "{}: {} subscripts for rank {rank}",
                    n.to_uppercase(),
                    args.len()
                ),
            );
            return ("0".into(), ty);
        }
        if !self.private_arrays.contains_key(n) {
            self.array_index(n, ty);
        }
        let mut terms = vec![];
        for (d, a) in args.iter().enumerate() {
            let Some(e) = (match a {
                Arg::Expr(e) => Some(e),
                _ => None,
            }) else {
                self.fail(
                    line,
                    format!("array section of {} in a kernel", n.to_uppercase()),
                );
                return ("0".into(), ty);
            };
            let (s, t) = self.expr(e, line);
            if t.is_real() || t == CTy::Logical {
                self.fail(
                    line,
                    format!("non-integer subscript of {}", n.to_uppercase()),
                );
            }
            let a = ident(n);
            if d == 0 {
                terms.push(format!("((long long)({s}) - {a}lo1)"));
            } else {
                terms.push(format!(
                    "{a}s{} * ((long long)({s}) - {a}lo{})",
                    d + 1,
                    d + 1
                ));
            }
        }
        (format!("{}[{}]", ident(n), terms.join(" + ")), ty)
    }

    fn intrinsic(&mut self, n: &str, args: &[Arg], line: u32) -> (String, CTy) {
        let mut xs = vec![];
        for a in args {
            match a {
                Arg::Expr(e) => xs.push(self.expr(e, line)),
                _ => {
                    self.fail(
                        line,
                        format!(
                            "argument form of {} not supported in a kernel",
                            n.to_uppercase()
                        ),
                    );
                    return ("0".into(), CTy::Int);
                }
            }
        }
        let want = |k: usize| -> bool { xs.len() == k };
        let real_fn = |f: &str, x: &(String, CTy)| -> (String, CTy) {
            match x.1 {
                CTy::Float => (format!("{f}f({})", x.0), CTy::Float),
                CTy::Double => (format!("{f}({})", x.0), CTy::Double),
                _ => (format!("{f}((double)({}))", x.0), CTy::Double),
            }
        };
        let r = match n {
            "max" | "min" | "max0" | "min0" | "amax1" | "amin1" | "dmax1" | "dmin1" | "max1"
            | "min1" | "amax0" | "amin0"
                if xs.len() >= 2 =>
            {
                let mut t = xs.iter().fold(CTy::Int, |a, x| promote(a, x.1));
                match n {
                    "amax1" | "amin1" | "amax0" | "amin0" => t = CTy::Float,
                    "dmax1" | "dmin1" => t = CTy::Double,
                    _ => {}
                }
                let f = if n.starts_with("max") || n.starts_with("amax") || n.starts_with("dmax") {
                    "sapfor_max"
                } else {
                    "sapfor_min"
                };
                let mut acc = format!("(({}){})", t.c(), xs[0].0);
                for x in &xs[1..] {
                    acc = format!("{f}<{}>({acc}, ({})({}))", t.c(), t.c(), x.0);
                }
                if matches!(n, "max1" | "min1") {
                    return (format!("((int){acc})"), CTy::Int);
                }
                (acc, t)
            }
            "abs" | "iabs" | "dabs" if want(1) => match xs[0].1 {
                CTy::Float => (format!("fabsf({})", xs[0].0), CTy::Float),
                CTy::Double => (format!("fabs({})", xs[0].0), CTy::Double),
                t => (format!("sapfor_iabs<{}>({})", t.c(), xs[0].0), t),
            },
            "sqrt" | "dsqrt" | "exp" | "dexp" | "log" | "alog" | "dlog" | "sin" | "dsin"
            | "cos" | "dcos" | "tan" | "dtan" | "atan" | "datan" | "asin" | "acos" | "sinh"
            | "cosh" | "tanh" | "log10" | "alog10" | "dlog10"
                if want(1) =>
            {
                let base = n.trim_start_matches('d');
                let base = if base == "alog" {
                    "log"
                } else if base == "alog10" {
                    "log10"
                } else {
                    base
                };
                real_fn(base, &xs[0])
            }
            "atan2" | "datan2" if want(2) => {
                let t = promote(xs[0].1, xs[1].1);
                if t == CTy::Float {
                    (format!("atan2f({}, {})", xs[0].0, xs[1].0), t)
                } else {
                    (
                        format!("atan2((double)({}), (double)({}))", xs[0].0, xs[1].0),
                        CTy::Double,
                    )
                }
            }
            "mod" | "amod" | "dmod" if want(2) => {
                let t = promote(xs[0].1, xs[1].1);
                match t {
                    CTy::Float => (format!("fmodf({}, {})", xs[0].0, xs[1].0), t),
                    CTy::Double => (
                        format!("fmod((double)({}), (double)({}))", xs[0].0, xs[1].0),
                        t,
                    ),
                    _ => (format!("(({}) % ({}))", xs[0].0, xs[1].0), t),
                }
            }
            "sign" | "isign" | "dsign" if want(2) => {
                let t = promote(xs[0].1, xs[1].1);
                (
                    format!(
                        "sapfor_sign<{}>(({}){}, ({}){})",
                        t.c(),
                        t.c(),
                        xs[0].0,
                        t.c(),
                        xs[1].0
                    ),
                    t,
                )
            }
            "dble" | "dfloat" if want(1) => (format!("((double)({}))", xs[0].0), CTy::Double),
            "real" | "float" | "sngl" if want(1) => (format!("((float)({}))", xs[0].0), CTy::Float),
            "int" | "ifix" | "idint" if want(1) => (format!("((int)({}))", xs[0].0), CTy::Int),
            "nint" | "idnint" if want(1) => match xs[0].1 {
                CTy::Float => (format!("((int)roundf({}))", xs[0].0), CTy::Int),
                _ => (format!("((int)round((double)({})))", xs[0].0), CTy::Int),
            },
            "huge" if want(1) => match xs[0].1 {
                CTy::Float => ("3.40282347e+38f".into(), CTy::Float),
                CTy::Double => ("1.7976931348623157e+308".into(), CTy::Double),
                CTy::Long => ("9223372036854775807LL".into(), CTy::Long),
                _ => ("2147483647".into(), CTy::Int),
            },
            _ => {
                let what = if self.sema.ref_kind(n) == analyzer::sema::RefKind::Intrinsic {
                    "intrinsic"
                } else {
                    "function call"
                };
                self.fail(
                    line,
                    format!(
                        "{what} {} is not supported in GPU kernels",
                        n.to_uppercase()
                    ),
                );
                ("0".into(), CTy::Int)
            }
        };
        r
    }

    fn ind(&self) -> String {
        "    ".repeat(self.loop_depth + 1 + usize::from(self.single) * self.mapped.len())
    }

    fn emit(&mut self, s: &str) {
        let i = self.ind();
        let _ = writeln!(self.out, "{i}{s}");
    }

    fn assign_target(&mut self, lhs: &Expr, line: u32) -> (String, CTy) {
        match lhs {
            Expr::Var(n) => {
                if self.mapped.iter().any(|m| m == n) {
                    self.fail(
                        line,
                        format!(
                            "assignment to the parallel loop variable {}",
                            n.to_uppercase()
                        ),
                    );
                }
                if self.sema.param(n).is_some() {
                    self.fail(
                        line,
                        format!("assignment to PARAMETER {}", n.to_uppercase()),
                    );
                }
                let ty = self.var_ty(n, line);
                (ident(n), ty)
            }
            Expr::Ref(n, args) if self.sema.is_array(n) => {
                self.written.insert(n.clone());
                self.element(n, args, line)
            }
            _ => {
                self.fail(line, "unsupported assignment target in a kernel");
                ("x".into(), CTy::Int)
            }
        }
    }

    fn simple(&mut self, s: &Stmt) {
        let line = s.span.line;
        self.dlits = double_literals(&self.stmt_text(s));
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let (l, lt) = self.assign_target(lhs, line);
                let (r, rt) = self.expr(rhs, line);
                let r = if lt == rt || (lt == CTy::Logical) {
                    r
                } else {
                    format!("({})({r})", lt.c())
                };
                self.emit(&format!("{l} = {r};"));
            }
            StmtKind::LogicalIf(c, inner) => {
                let (c, _) = self.expr(c, line);
                self.emit(&format!("if ({c}) {{"));
                self.loop_depth += 1;
                self.simple(inner);
                self.loop_depth -= 1;
                self.emit("}");
            }
            StmtKind::Continue => {}
            StmtKind::Cycle(None) => {
                if self.loop_depth_loops() > 0 || self.single {
                    self.emit("continue;");
                } else {
                    self.emit("goto sapfor_next;");
                }
            }
            StmtKind::Exit(None) if self.loop_depth_loops() > 0 => self.emit("break;"),
            StmtKind::Exit(_) => self.fail(line, "EXIT from a parallel loop"),
            StmtKind::Cycle(Some(_)) => self.fail(line, "CYCLE with a construct name in a kernel"),
            StmtKind::Goto(_) | StmtKind::ComputedGoto(..) | StmtKind::ArithIf(..) => {
                self.fail(line, "GOTO in a kernel")
            }
            StmtKind::Call { name, .. } => self.fail(
                line,
                format!(
                    "CALL {} in a kernel (no procedure calls on the accelerator)",
                    name.to_uppercase()
                ),
            ),
            StmtKind::Io { .. } => self.fail(line, "I/O in a kernel"),
            StmtKind::Stop | StmtKind::Return => self.fail(line, "STOP/RETURN in a kernel"),
            _ => self.fail(line, "statement not supported in a kernel"),
        }
    }

    /// Inner C loops currently open (for CYCLE/EXIT).
    fn loop_depth_loops(&self) -> usize {
        self.inner_loops
    }

    fn nodes(&mut self, ns: &[Node]) {
        for n in ns {
            if self.err.is_some() {
                return;
            }
            match n {
                Node::Stmt(id) => {
                    let s = self.u.stmt(*id).clone();
                    self.simple(&s);
                }
                Node::Do { header, body, .. } => {
                    let h = self.u.stmt(*header).clone();
                    let line = h.span.line;
                    self.dlits = double_literals(&self.stmt_text(&h));
                    match &h.kind {
                        StmtKind::Do {
                            var, lo, hi, step, ..
                        } => {
                            let vt = self.var_ty(var, line);
                            if vt.is_real() || vt == CTy::Logical {
                                self.fail(line, "non-integer DO variable in a kernel");
                            }
                            let (l, _) = self.expr(lo, line);
                            let (hh, _) = self.expr(hi, line);
                            let st = match step {
                                Some(s) => self.expr(s, line).0,
                                None => "1".into(),
                            };
                            let v = ident(var);
                            let d = self.loop_depth;
                            self.emit(&format!("{{ long long sapfor_t{d} = sapfor_trip({l}, {hh}, {st}); const long long sapfor_s{d} = {st};"));
                            self.emit(&format!("for ({v} = {l}; sapfor_t{d} > 0; --sapfor_t{d}, {v} += sapfor_s{d}) {{"));
                        }
                        StmtKind::DoWhile { cond: Some(c), .. } => {
                            let (c, _) = self.expr(c, line);
                            self.emit(&format!("{{ while ({c}) {{"));
                        }
                        _ => {
                            self.fail(line, "DO without a condition in a kernel");
                            return;
                        }
                    }
                    self.loop_depth += 1;
                    self.inner_loops += 1;
                    self.nodes(body);
                    self.inner_loops -= 1;
                    self.loop_depth -= 1;
                    self.emit("} }");
                }
                Node::If { arms, .. } => {
                    for (k, (h, body)) in arms.iter().enumerate() {
                        let hs = self.u.stmt(*h).clone();
                        self.dlits = double_literals(&self.stmt_text(&hs));
                        let line = hs.span.line;
                        let head = match &hs.kind {
                            StmtKind::IfThen(c) | StmtKind::ElseIf(c) => {
                                let (c, _) = self.expr(c, line);
                                if k == 0 {
                                    format!("if ({c}) {{")
                                } else {
                                    format!("}} else if ({c}) {{")
                                }
                            }
                            StmtKind::Else => "} else {".into(),
                            _ => {
                                self.fail(line, "unexpected IF arm");
                                return;
                            }
                        };
                        self.emit(&head);
                        self.loop_depth += 1;
                        self.nodes(body);
                        self.loop_depth -= 1;
                    }
                    self.emit("}");
                }
            }
        }
    }
}

/// Scalars assigned anywhere in `ns` (these become locals), and inner DO variables.
fn assigned_scalars(u: &Unit, sema: &UnitSema, ns: &[Node], out: &mut BTreeSet<String>) {
    analyzer::ast::for_each_stmt(u, ns, &mut |s: &Stmt| {
        let mut k = &s.kind;
        if let StmtKind::LogicalIf(_, inner) = k {
            k = &inner.kind;
        }
        match k {
            StmtKind::Assign {
                lhs: Expr::Var(n), ..
            } if !sema.is_array(n) => {
                out.insert(n.clone());
            }
            StmtKind::Do { var, .. } => {
                out.insert(var.clone());
            }
            _ => {}
        }
    });
}

fn identity(op: ReductionOp, ty: CTy) -> String {
    use ReductionOp::*;
    match (op, ty) {
        (Sum | Or | Neqv, _) => "0".into(),
        (Product | And | Eqv, _) => "1".into(),
        (Max | MaxLoc, CTy::Float) => "-3.40282347e+38f".into(),
        (Max | MaxLoc, CTy::Double) => "-1.7976931348623157e+308".into(),
        (Max | MaxLoc, CTy::Long) => "(-9223372036854775807LL - 1)".into(),
        (Max | MaxLoc, _) => "(-2147483647 - 1)".into(),
        (Min | MinLoc, CTy::Float) => "3.40282347e+38f".into(),
        (Min | MinLoc, CTy::Double) => "1.7976931348623157e+308".into(),
        (Min | MinLoc, CTy::Long) => "9223372036854775807LL".into(),
        (Min | MinLoc, _) => "2147483647".into(),
    }
}


/// Generate the kernel of one parallel nest.
pub fn generate(spec: &NestSpec) -> Result<Kernel, KernelError> {
    let p = spec.program;
    let u = &p.units[spec.unit];
    let sema = &p.semas[spec.unit];
    let file = p.map.files[u.file.0 as usize].display_path();
    let fail = |line: u32, m: String| KernelError {
        file: file.clone(),
        line,
        message: m,
    };
    let Node::Do { header, .. } = spec.nest else {
        return Err(fail(
            u.span.line,
            "the PARALLEL directive is not followed by a DO loop".into(),
        ));
    };
    let top_line = u.stmt(*header).span.line;

    // the mapped loops: tightly nested DOs with the directive's variables, outermost first
    let mut loops = vec![];
    let mut cur = spec.nest;
    let vars: Vec<String> = spec.vars.iter().map(|v| v.to_ascii_lowercase()).collect();
    let mut body: &[Node] = &[];
    for (k, v) in vars.iter().enumerate() {
        let Node::Do {
            header, body: b, ..
        } = cur
        else {
            return Err(fail(
                top_line,
                format!("loop of {} not found tightly nested", v.to_uppercase()),
            ));
        };
        let h = u.stmt(*header);
        let StmtKind::Do {
            var, lo, hi, step, ..
        } = &h.kind
        else {
            return Err(fail(
                h.span.line,
                "DO WHILE cannot be a parallel loop".into(),
            ));
        };
        if var != v {
            return Err(fail(
                h.span.line,
                format!(
                    "PARALLEL lists {} but the loop variable is {}",
                    v.to_uppercase(),
                    var.to_uppercase()
                ),
            ));
        }
        // the kernel's grid is rectangular: bounds may not follow an outer mapped variable
        let mut outer_used = None;
        for e in [Some(lo), Some(hi), step.as_ref()].into_iter().flatten() {
            e.walk(&mut |x| {
                if let Expr::Var(n) = x {
                    if vars[..k].contains(n) {
                        outer_used = Some(n.clone());
                    }
                }
            });
        }
        if let Some(o) = outer_used {
            return Err(fail(
                h.span.line,
                format!(
                    "the bounds of loop {} depend on {} (a triangular nest; kernels cover rectangular iteration spaces)",
                    var.to_uppercase(),
                    o.to_uppercase()
                ),
            ));
        }
        loops.push(MappedLoop {
            var: var.clone(),
            lo: lo.clone(),
            hi: hi.clone(),
            step: step.clone(),
        });
        body = b;
        if k + 1 < vars.len() {
            // the next loop, possibly followed by the terminal CONTINUE of a labelled DO
            let mut inner = None;
            for n in b.iter() {
                match n {
                    Node::Do { .. } if inner.is_none() => inner = Some(n),
                    Node::Stmt(id) if matches!(u.stmt(*id).kind, StmtKind::Continue) => {}
                    _ => {
                        return Err(fail(
                            h.span.line,
                            format!(
                                "the loops of {} are not tightly nested",
                                vars.join(",").to_uppercase()
                            ),
                        ))
                    }
                }
            }
            cur = inner.ok_or_else(|| {
                fail(
                    h.span.line,
                    format!("loop of {} not found", vars[k + 1].to_uppercase()),
                )
            })?;
        }
    }
    if loops.is_empty() {
        return Err(fail(top_line, "PARALLEL without loop variables".into()));
    }

    let mut private = BTreeSet::new();
    let mut reds_in: Vec<(ReductionOp, String, Vec<DExpr>)> = vec![];
    let mut cuda_block: Option<Vec<DExpr>> = None;
    let mut across = false;
    for c in &spec.clauses {
        match c {
            Clause::Private(v) => private.extend(v.iter().map(|x| x.to_ascii_lowercase())),
            Clause::Reduction(rs) => reds_in.extend(
                rs.iter()
                    .map(|r| (r.op, r.var.to_ascii_lowercase(), r.loc.clone())),
            ),
            Clause::CudaBlock(b) => cuda_block = Some(b.clone()),
            Clause::Across(_) => across = true,
            _ => {}
        }
    }
    let mut g = Gen {
        p,
        u,
        sema,
        file: file.clone(),
        overrides: &spec.param_overrides,
        arrays: vec![],
        locals: BTreeMap::new(),
        private_arrays: BTreeMap::new(),
        scalars_read: BTreeMap::new(),
        params_used: BTreeMap::new(),
        reductions: vec![],
        mapped: vars.clone(),
        written: BTreeSet::new(),
        dlits: vec![],
        out: String::new(),
        err: None,
        loop_depth: 0,
        single: across,
        inner_loops: 0,
    };
    for (op, var, loc) in &reds_in {
        if sema.is_array(var) {
            return Err(fail(top_line, format!("REDUCTION on the array {}: array reductions run on the host", var.to_uppercase())));
        }
        let ty = g.var_ty(var, top_line);
        let mut locs = vec![];
        if matches!(op, ReductionOp::MaxLoc | ReductionOp::MinLoc) {
            for l in loc {
                match l {
                    DExpr::Name(n) if !sema.is_array(&n.to_ascii_lowercase()) => {
                        let n = n.to_ascii_lowercase();
                        if g.var_ty(&n, top_line) != CTy::Int {
                            return Err(fail(top_line, format!("MAXLOC/MINLOC index {} must be a default INTEGER", n.to_uppercase())));
                        }
                        locs.push(n);
                    }
                    _ => return Err(fail(top_line, "MAXLOC/MINLOC with an index array is not supported in kernels (list the index variables)".into())),
                }
            }
        }
        g.reductions.push(KernelReduction {
            op: *op,
            var: var.clone(),
            ty,
            locs,
        });
    }
    let red_names: BTreeSet<String> = g
        .reductions
        .iter()
        .flat_map(|r| std::iter::once(r.var.clone()).chain(r.locs.iter().cloned()))
        .collect();
    let mut assigned = BTreeSet::new();
    assigned_scalars(u, sema, body, &mut assigned);
    for n in assigned.iter().chain(private.iter()) {
        if vars.contains(n) {
            continue;
        }
        let t = g.var_ty(n, top_line);
        if let Some(sym) = sema.symbol(n).filter(|s| s.is_array()) {
            // a work array of each iteration: a copy per thread, which needs constant bounds
            let b: Option<Vec<(i64, i64)>> = sym.bounds().into_iter().collect();
            let size: i64 = b.iter().flatten().map(|(l, h)| (h - l + 1).max(0)).product();
            match b {
                Some(b) if size <= 4096 => {
                    g.private_arrays.insert(n.clone(), (t, b));
                }
                _ => g.fail(
                    top_line,
                    format!("PRIVATE array {} needs constant bounds and at most 4096 elements in a kernel", n.to_uppercase()),
                ),
            }
            continue;
        }
        g.locals.insert(n.clone(), t);
    }
    for n in &red_names {
        let t = g.var_ty(n, top_line);
        g.locals.insert(n.clone(), t);
    }

    // body first (collects arrays, scalars, parameters), the rest is wrapped around it
    if across {
        g.loop_depth = 0;
    }
    g.nodes(body);
    if let Some(e) = g.err.take() {
        return Err(e);
    }
    let body_text = std::mem::take(&mut g.out);

    let ovr = |n: &str| -> Option<i64> {
        spec.param_overrides
            .get(n)
            .and_then(|c| c.as_int())
            .or_else(|| sema.param(n).and_then(|c| c.as_int()))
    };
    let block: [u32; 3] = if across {
        [1, 1, 1]
    } else if let Some(b) = cuda_block {
        let mut r = [1u32; 3];
        for (k, e) in b.iter().enumerate().take(3) {
            let v = e.eval_int(&ovr)
                .ok_or_else(|| fail(top_line, "CUDA_BLOCK sizes must be constants".into()))?;
            if !(1..=1024).contains(&v) {
                return Err(fail(top_line, format!("CUDA_BLOCK size {v} out of range")));
            }
            r[k] = v as u32;
        }
        if r.iter().product::<u32>() > 1024 {
            return Err(fail(
                top_line,
                "CUDA_BLOCK has more than 1024 threads".into(),
            ));
        }
        r
    } else {
        match loops.len() {
            1 => [256, 1, 1],
            2 => [32, 8, 1],
            _ => [32, 4, 2],
        }
    };

    // parameters
    let mut params = vec![];
    let mut sig = vec![];
    for (a, ty) in &g.arrays {
        let rank = sema.symbol(a).map(|s| s.rank()).unwrap_or(0);
        let name = ident(a);
        params.push(Param::Array {
            name: a.clone(),
            ty: *ty,
            rank,
        });
        sig.push(format!("{} *__restrict__ {name}", ty.c()));
        for d in 1..=rank {
            params.push(Param::Lo {
                array: a.clone(),
                dim: d,
            });
            params.push(Param::Hi {
                array: a.clone(),
                dim: d,
            });
            sig.push(format!("long long {name}lo{d}"));
            sig.push(format!("long long {name}hi{d}"));
        }
    }
    let scalars: Vec<(String, CTy)> = g
        .scalars_read
        .iter()
        .filter(|(n, _)| !g.locals.contains_key(*n))
        .map(|(n, t)| (n.clone(), *t))
        .collect();
    for (n, t) in &scalars {
        params.push(Param::Scalar {
            name: n.clone(),
            ty: *t,
        });
        sig.push(format!("{} {}", t.c(), ident(n)));
    }
    for l in &loops {
        params.push(Param::LoopLo { var: l.var.clone() });
        params.push(Param::LoopHi { var: l.var.clone() });
        params.push(Param::LoopStep { var: l.var.clone() });
        let v = ident(&l.var);
        sig.push(format!("long long {v}lo"));
        sig.push(format!("long long {v}hi"));
        sig.push(format!("long long {v}st"));
    }
    for r in &g.reductions {
        params.push(Param::RedValues {
            var: r.var.clone(),
            op: r.op,
            ty: r.ty,
        });
        sig.push(format!("{} *__restrict__ sapfor_red_{}", r.ty.c(), r.var));
        for (k, l) in r.locs.iter().enumerate() {
            params.push(Param::RedLoc {
                var: r.var.clone(),
                loc: l.clone(),
                k,
            });
            sig.push(format!("int *__restrict__ sapfor_loc_{}_{k}", r.var));
        }
    }

    let mut t = String::new();
    let nest_line = top_line;
    let _ = writeln!(
        t,
        "// {}:{}: PARALLEL ({})",
        file,
        nest_line,
        vars.join(",").to_uppercase()
    );
    let _ = writeln!(
        t,
        "extern \"C\" __global__ void {}({})",
        spec.name,
        sig.join(", ")
    );
    t.push_str("{\n");
    let m = loops.len();
    for l in &loops {
        let v = ident(&l.var);
        let _ = writeln!(
            t,
            "    const long long sapfor_n_{v} = sapfor_trip({v}lo, {v}hi, {v}st);"
        );
    }
    // array strides and PARAMETERs (the same for every iteration); PRIVATE arrays' bounds
    for (a, (_, b)) in &g.private_arrays {
        let n = ident(a);
        for (d, (l, h)) in b.iter().enumerate() {
            let _ = writeln!(t, "    const long long {n}lo{} = {l}, {n}hi{} = {h};", d + 1, d + 1);
        }
    }
    for a in g.arrays.iter().map(|(a, _)| a).chain(g.private_arrays.keys()) {
        let rank = sema.symbol(a).map(|s| s.rank()).unwrap_or(0);
        let n = ident(a);
        for d in 2..=rank {
            let prev = if d == 2 {
                "1".to_string()
            } else {
                format!("{n}s{}", d - 1)
            };
            let _ = writeln!(
                t,
                "    const long long {n}s{d} = {prev} * ({n}hi{} - {n}lo{} + 1);",
                d - 1,
                d - 1
            );
        }
    }
    for (n, (ty, v)) in &g.params_used {
        let val = match (ty, v) {
            (CTy::Float | CTy::Double, c) => lit_f(c.as_f64().unwrap_or(0.0), *ty),
            (CTy::Logical, Const::Logical(b)) => (*b as i32).to_string(),
            (_, c) => match c.as_int() {
                Some(i) => format!("{i}{}", if *ty == CTy::Long { "LL" } else { "" }),
                None => {
                    return Err(fail(
                        top_line,
                        format!("PARAMETER {} has no integer value", n.to_uppercase()),
                    ))
                }
            },
        };
        let _ = writeln!(t, "    const {} {} = {val};", ty.c(), ident(n));
    }
    // the iterations of this thread: normally one; grid-stride loops cover grids that CUDA's
    // limits (65535 blocks in y and z) made smaller than the iteration space
    let tvars: Vec<String> = loops.iter().map(|l| ident(&l.var)).collect();
    let mut closes = 0;
    if !across {
        if m >= 3 {
            let prod: Vec<String> = tvars[..m - 2]
                .iter()
                .map(|v| format!("sapfor_n_{v}"))
                .collect();
            let _ = writeln!(t, "    for (long long sapfor_z = (long long)blockIdx.z * blockDim.z + threadIdx.z; sapfor_z < {}; sapfor_z += (long long)gridDim.z * blockDim.z)", prod.join(" * "));
            closes += 1;
        }
        if m >= 2 {
            let _ = writeln!(t, "    for (long long sapfor_y = (long long)blockIdx.y * blockDim.y + threadIdx.y; sapfor_y < sapfor_n_{}; sapfor_y += (long long)gridDim.y * blockDim.y)", tvars[m - 2]);
            closes += 1;
        }
        let _ = writeln!(t, "    for (long long sapfor_x = (long long)blockIdx.x * blockDim.x + threadIdx.x; sapfor_x < sapfor_n_{}; sapfor_x += (long long)gridDim.x * blockDim.x) {{", tvars[m - 1]);
        closes += 1;
        if m >= 3 {
            let _ = writeln!(t, "    long long sapfor_r = sapfor_z;");
            for k in (0..m - 2).rev() {
                let v = &tvars[k];
                let _ = writeln!(t, "    const long long sapfor_i_{v} = sapfor_r % sapfor_n_{v}; sapfor_r /= sapfor_n_{v};");
            }
        }
        let idx = |k: usize| -> String {
            if k == m - 1 {
                "sapfor_x".into()
            } else if k + 2 == m {
                "sapfor_y".into()
            } else {
                format!("sapfor_i_{}", tvars[k])
            }
        };
        let mut lin = idx(0);
        for k in 1..m {
            lin = format!("({lin}) * sapfor_n_{} + {}", tvars[k], idx(k));
        }
        let _ = writeln!(t, "    const long long sapfor_lin = {lin};");
        for (k, l) in loops.iter().enumerate() {
            let v = ident(&l.var);
            let ty = CTy::of(&sema.type_of(&l.var)).unwrap_or(CTy::Int);
            let _ = writeln!(
                t,
                "    const {} {v} = ({})({v}lo + {} * {v}st);",
                ty.c(),
                ty.c(),
                idx(k)
            );
        }
    } else {
        let _ = writeln!(t, "    if (blockIdx.x + blockIdx.y + blockIdx.z + threadIdx.x + threadIdx.y + threadIdx.z != 0) return;");
        let _ = writeln!(t, "    const long long sapfor_lin = 0;");
        for l in &loops {
            let v = ident(&l.var);
            let ty = CTy::of(&sema.type_of(&l.var)).unwrap_or(CTy::Int);
            let _ = writeln!(t, "    {} {v};", ty.c());
        }
    }
    for (n, (ty, b)) in &g.private_arrays {
        let size: i64 = b.iter().map(|(l, h)| (h - l + 1).max(1)).product();
        let _ = writeln!(t, "    {} {}[{size}];", ty.c(), ident(n));
    }
    for (n, ty) in &g.locals {
        if let Some(r) = g.reductions.iter().find(|r| &r.var == n) {
            let _ = writeln!(t, "    {} {} = {};", ty.c(), ident(n), identity(r.op, r.ty));
        } else if red_names.contains(n) {
            let _ = writeln!(t, "    {} {} = 0;", ty.c(), ident(n));
        } else {
            let _ = writeln!(t, "    {} {};", ty.c(), ident(n));
        }
    }
    if across {
        for (k, l) in loops.iter().enumerate() {
            let v = ident(&l.var);
            let ind = "    ".repeat(k + 1);
            let _ = writeln!(t, "{ind}for (long long sapfor_k{k} = 0; sapfor_k{k} < sapfor_n_{v}; ++sapfor_k{k}) {{ {v} = {v}lo + sapfor_k{k} * {v}st;");
        }
        t.push_str(&body_text);
        for k in (0..m).rev() {
            let _ = writeln!(t, "{}}}", "    ".repeat(k + 1));
        }
    } else {
        t.push_str(&body_text);
        if body_text.contains("goto sapfor_next;") {
            t.push_str("sapfor_next:;\n");
        }
    }
    for r in &g.reductions {
        let _ = writeln!(
            t,
            "    sapfor_red_{}[sapfor_lin] = {};",
            r.var,
            ident(&r.var)
        );
        for (k, l) in r.locs.iter().enumerate() {
            let _ = writeln!(
                t,
                "    sapfor_loc_{}_{k}[sapfor_lin] = {};",
                r.var,
                ident(l)
            );
        }
    }
    if closes > 0 {
        t.push_str("    }\n");
    }
    t.push_str("}\n");
    let combine = if g.reductions.is_empty() {
        None
    } else {
        let cname = format!("{}_red", spec.name);
        let mut sig = vec![
            "long long sapfor_n".to_string(),
            "long long sapfor_stride".into(),
            "long long sapfor_chunk".into(),
        ];
        let mut fold = String::new();
        for r in &g.reductions {
            let v = format!("sapfor_red_{}", r.var);
            sig.push(format!("{} *__restrict__ {v}", r.ty.c()));
            for k in 0..r.locs.len() {
                sig.push(format!("int *__restrict__ sapfor_loc_{}_{k}", r.var));
            }
            use ReductionOp::*;
            let line = match r.op {
                Sum => format!("{v}[d] = {v}[d] + {v}[s];"),
                Product => format!("{v}[d] = {v}[d] * {v}[s];"),
                Max => format!("if ({v}[s] > {v}[d]) {v}[d] = {v}[s];"),
                Min => format!("if ({v}[s] < {v}[d]) {v}[d] = {v}[s];"),
                And => format!("{v}[d] = ({v}[d] && {v}[s]);"),
                Or => format!("{v}[d] = ({v}[d] || {v}[s]);"),
                Eqv => format!("{v}[d] = ((!{v}[d]) == (!{v}[s]));"),
                Neqv => format!("{v}[d] = ((!{v}[d]) != (!{v}[s]));"),
                MaxLoc | MinLoc => {
                    let cmp = if r.op == MaxLoc { ">" } else { "<" };
                    let mut l = format!("if ({v}[s] {cmp} {v}[d]) {{ {v}[d] = {v}[s];");
                    for k in 0..r.locs.len() {
                        let _ = write!(
                            l,
                            " sapfor_loc_{}_{k}[d] = sapfor_loc_{}_{k}[s];",
                            r.var, r.var
                        );
                    }
                    l.push_str(" }");
                    l
                }
            };
            let _ = writeln!(fold, "        {line}");
        }
        let _ = writeln!(
            t,
            "\n// partial results of {} folded in iteration order",
            spec.name
        );
        let _ = writeln!(
            t,
            "extern \"C\" __global__ void {cname}({})\n{{",
            sig.join(", ")
        );
        t.push_str("    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n");
        t.push_str("    const long long k0 = t * sapfor_chunk;\n    if (k0 >= sapfor_n) return;\n");
        t.push_str("    const long long k1 = k0 + sapfor_chunk < sapfor_n ? k0 + sapfor_chunk : sapfor_n;\n");
        t.push_str("    const long long d = k0 * sapfor_stride;\n");
        t.push_str("    for (long long k = k0 + 1; k < k1; ++k) {\n        const long long s = k * sapfor_stride;\n");
        t.push_str(&fold);
        t.push_str("    }\n}\n");
        Some(cname)
    };
    Ok(Kernel {
        combine,
        name: spec.name.clone(),
        text: t,
        params,
        loops,
        reductions: g.reductions.clone(),
        block,
        single_thread: across,
        arrays: g.arrays.clone(),
        scalars,
        written: g.written.clone(),
    })
}

/// `(unit index, directive line, the DO node, PARALLEL variables, clauses)`.
pub type ParallelNest<'a> = (usize, u32, &'a Node, Vec<String>, Vec<Clause>);

/// Every PARALLEL nest of a program: `(unit index, directive line, the DO node, vars,
/// clauses)`, in source order. The converter has its own walk; this one serves tools and tests.
pub fn parallel_nests(p: &Program) -> Vec<ParallelNest<'_>> {
    let mut out = vec![];
    for (ui, u) in p.units.iter().enumerate() {
        let Some(dirs) = p.directives.get(&u.file) else {
            continue;
        };
        let mut dos = vec![];
        fn all<'b>(ns: &'b [Node], out: &mut Vec<&'b Node>) {
            for n in ns {
                match n {
                    Node::Do { body, .. } => {
                        out.push(n);
                        all(body, out);
                    }
                    Node::If { arms, .. } => {
                        for (_, b) in arms {
                            all(b, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        all(&u.body, &mut dos);
        for d in dirs {
            if d.line < u.span.line || d.line > u.end_line {
                continue;
            }
            if let analyzer::directives::DirectiveKind::Parallel { vars, clauses, .. } = &d.kind {
                let next = dos
                    .iter()
                    .filter(|n| matches!(n, Node::Do { header, .. } if u.stmt(*header).span.line > d.end_line))
                    .min_by_key(|n| match n {
                        Node::Do { header, .. } => u.stmt(*header).span.line,
                        _ => u32::MAX,
                    });
                if let Some(n) = next {
                    out.push((
                        ui,
                        d.line,
                        *n,
                        vars.iter().map(|v| v.to_ascii_lowercase()).collect(),
                        clauses.clone(),
                    ));
                }
            }
        }
    }
    out
}
