//! Semantic model of a program unit: symbols with types (explicit or by IMPLICIT rules),
//! arrays with evaluated bounds, PARAMETER constants, COMMON blocks and their layout,
//! EQUIVALENCE aliasing, DATA, ALLOCATABLE, intrinsic vs external procedures, statement
//! functions, and the array-element / function-call distinction.

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::source::SourceMap;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Const {
    Int(i64),
    Real(f64),
    Logical(bool),
    Str(String),
}

impl Const {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Const::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Const::Int(i) => Some(*i as f64),
            Const::Real(r) => Some(*r),
            _ => None,
        }
    }
}

/// One declared dimension with its bounds evaluated when they are constant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dim {
    pub lo: Option<i64>,
    pub hi: Option<i64>,
    /// `*` or `:` upper bound.
    pub assumed: bool,
    /// `*`: the last dimension of an assumed-size dummy (`ubound` does not exist).
    #[serde(skip)]
    pub star: bool,
    #[serde(skip)]
    pub lo_expr: Option<Expr>,
    #[serde(skip)]
    pub hi_expr: Option<Expr>,
}

impl Dim {
    pub fn extent(&self) -> Option<i64> {
        Some((self.hi? - self.lo? + 1).max(0))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Symbol {
    pub name: Name,
    pub ty: TypeSpec,
    pub explicit_type: bool,
    pub dims: Option<Vec<Dim>>,
    pub param: Option<Const>,
    /// COMMON block name ("" = blank COMMON) and position in it.
    pub common: Option<(Name, usize)>,
    /// Position in the dummy argument list.
    pub dummy: Option<usize>,
    pub allocatable: bool,
    pub external: bool,
    pub intrinsic: bool,
    pub save: bool,
    pub data_init: bool,
    /// Other names sharing storage through EQUIVALENCE.
    pub aliases: BTreeSet<Name>,
    /// POINTER: may point into any TARGET (or other pointer) of its type.
    pub pointer: bool,
    /// TARGET: pointers may point into it.
    pub target: bool,
    /// Line of the first declaration (or first use for implicit ones).
    pub line: u32,
}

impl Symbol {
    pub fn is_array(&self) -> bool {
        self.dims.is_some()
    }
    /// An assumed-size dummy (`Y(*)`, `Y(N,*)`): its size is not known.
    pub fn is_assumed_size(&self) -> bool {
        self.dims.as_ref().and_then(|d| d.last()).is_some_and(|d| d.star)
    }
    /// Its size is not known from its declaration: assumed-size (`B(*)`), or a dummy whose
    /// last dimension has one element (`B(1)`, the F77 way of saying "any size").
    pub fn size_unknown(&self) -> bool {
        self.is_assumed_size()
            || (self.dummy.is_some() && self.dims.as_ref().and_then(|d| d.last()).is_some_and(|d| d.extent() == Some(1)))
    }
    pub fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, |d| d.len())
    }
    /// Number of elements when all bounds are known.
    pub fn elements(&self) -> Option<u64> {
        match &self.dims {
            None => Some(1),
            Some(ds) => ds
                .iter()
                .try_fold(1u64, |acc, d| acc.checked_mul(d.extent()? as u64)),
        }
    }
    pub fn bounds(&self) -> Vec<Option<(i64, i64)>> {
        self.dims.as_ref().map_or(vec![], |ds| {
            ds.iter().map(|d| Some((d.lo?, d.hi?))).collect()
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommonMember {
    pub name: Name,
    /// Byte offset in the block when all earlier members have known sizes.
    pub offset: Option<u64>,
    pub bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct UnitSema {
    pub symbols: BTreeMap<Name, Symbol>,
    pub implicit_none: bool,
    /// A USE without ONLY: names may come from modules we do not model.
    pub uses_modules: bool,
    pub commons: BTreeMap<Name, Vec<CommonMember>>,
    /// Names this unit gets by USE from a module among the analyzed files (name -> module),
    /// when the unit does not declare them itself. Module variables are not analyzed yet:
    /// this lets the analysis say so instead of calling them external procedures.
    pub module_vars: BTreeMap<Name, Name>,
    /// Statement function definitions (they look like assignments).
    pub stmt_functions: BTreeMap<Name, StmtId>,
    #[serde(skip)]
    implicit: HashMap<char, TypeSpec>,
    /// Names an internal or module procedure gets from its host (the host's variables, not
    /// declared again here): their values outlive the procedure's execution.
    #[serde(skip)]
    pub host_assoc: BTreeSet<Name>,
    /// COMMON scalars whose values are these linear forms everywhere in this unit (set once by
    /// the program before the unit runs: `crate::facts`).
    #[serde(skip)]
    pub facts: BTreeMap<Name, crate::affine::Lin>,
    /// Dummy arrays that some call gives storage of another dummy of this unit (`CALL
    /// FFTXYZ(-1, XNT, XNT, ...)`): dummy -> that other dummy (`interproc::shared_dummies`).
    /// The analysis takes dummies to be distinct; what keeps copies per name (an
    /// accelerator's) must not.
    #[serde(skip)]
    pub shared_dummies: BTreeMap<Name, Name>,
}

/// What a `name(args)` reference is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    ArrayElement,
    Intrinsic,
    StmtFunction,
    /// A function defined in the given files or external.
    Function,
}

pub const INTRINSIC_FUNCTIONS: &[&str] = &[
    "abs",
    "command_argument_count",
    "iabs",
    "dabs",
    "cabs",
    "sqrt",
    "dsqrt",
    "csqrt",
    "exp",
    "dexp",
    "cexp",
    "log",
    "alog",
    "dlog",
    "clog",
    "log10",
    "alog10",
    "dlog10",
    "sin",
    "dsin",
    "csin",
    "cos",
    "dcos",
    "ccos",
    "tan",
    "dtan",
    "asin",
    "dasin",
    "acos",
    "dacos",
    "atan",
    "datan",
    "atan2",
    "datan2",
    "sinh",
    "dsinh",
    "cosh",
    "dcosh",
    "tanh",
    "dtanh",
    "max",
    "min",
    "max0",
    "min0",
    "amax1",
    "amin1",
    "dmax1",
    "dmin1",
    "amax0",
    "amin0",
    "max1",
    "min1",
    "mod",
    "amod",
    "dmod",
    "modulo",
    "sign",
    "isign",
    "dsign",
    "int",
    "ifix",
    "idint",
    "nint",
    "idnint",
    "anint",
    "dnint",
    "aint",
    "dint",
    "real",
    "float",
    "sngl",
    "dble",
    "dfloat",
    "cmplx",
    "dcmplx",
    "conjg",
    "aimag",
    "dimag",
    "char",
    "ichar",
    "achar",
    "iachar",
    "len",
    "len_trim",
    "index",
    "trim",
    "adjustl",
    "adjustr",
    "size",
    "shape",
    "lbound",
    "ubound",
    "sum",
    "product",
    "maxval",
    "minval",
    "maxloc",
    "minloc",
    "dot_product",
    "matmul",
    "transpose",
    "huge",
    "tiny",
    "epsilon",
    "kind",
    "floor",
    "ceiling",
    "iand",
    "ior",
    "ieor",
    "not",
    "ishft",
    "ishftc",
    "btest",
    "ibset",
    "ibclr",
    "present",
    "allocated",
    "associated",
    "merge",
    "count",
    "any",
    "all",
    "reshape",
    "spread",
    "pack",
    "unpack",
    "dim",
    "idim",
    "ddim",
    "dprod",
    "lge",
    "lgt",
    "lle",
    "llt",
    "selected_real_kind",
    "selected_int_kind",
    "precision",
    "range",
    "digits",
    "radix",
    "exponent",
    "fraction",
    "nearest",
    "spacing",
    "scale",
    "repeat",
    "scan",
    "verify",
    "cshift",
    "eoshift",
    "bit_size",
    "new_line",
    "storage_size",
    "norm2",
    "hypot",
    "erf",
    "erfc",
    "gamma",
    "log_gamma",
    "bessel_j0",
    "bessel_j1",
    // F77 specific names of the complex and hyperbolic families, GNU extensions common in
    // legacy codes (DCONJG, DREAL, CDABS, ZSQRT, LSHIFT, AND, IARGC), and the F95/F2008
    // generics not listed above
    "cdabs",
    "zabs",
    "cdsqrt",
    "zsqrt",
    "cdexp",
    "zexp",
    "cdlog",
    "zlog",
    "cdsin",
    "zsin",
    "cdcos",
    "zcos",
    "asinh",
    "acosh",
    "atanh",
    "dasinh",
    "dacosh",
    "datanh",
    "dreal",
    "dconjg",
    "imag",
    "imagpart",
    "realpart",
    "findloc",
    "ibits",
    "selected_char_kind",
    "rrspacing",
    "set_exponent",
    "minexponent",
    "maxexponent",
    "erf_scaled",
    "bessel_jn",
    "bessel_y0",
    "bessel_y1",
    "bessel_yn",
    "transfer",
    "logical",
    "null",
    "leadz",
    "trailz",
    "popcnt",
    "poppar",
    "maskl",
    "maskr",
    "shifta",
    "shiftl",
    "shiftr",
    "iall",
    "iany",
    "iparity",
    "parity",
    "bge",
    "bgt",
    "ble",
    "blt",
    "dshiftl",
    "dshiftr",
    "merge_bits",
    "is_contiguous",
    "lshift",
    "rshift",
    "and",
    "or",
    "xor",
    "iargc",
    "c_loc",
    "c_funloc",
    "c_sizeof",
    "c_associated",
    "is_iostat_end",
    "is_iostat_eor",
    "extends_type_of",
    "same_type_as",
];

/// Intrinsic subroutines and which arguments they write.
pub const INTRINSIC_SUBROUTINES: &[(&str, &[usize])] = &[
    ("random_number", &[0]),
    ("random_seed", &[]),
    ("cpu_time", &[0]),
    ("system_clock", &[0, 1, 2]),
    ("date_and_time", &[0, 1, 2, 3]),
    ("get_command_argument", &[1, 2, 3]),
    ("get_environment_variable", &[1, 2, 3]),
    ("move_alloc", &[0, 1]),
    ("mvbits", &[3]),
    ("get_command", &[0, 1, 2]),
    ("execute_command_line", &[2, 3, 4]),
    ("random_init", &[]),
    // GNU extensions common in legacy codes
    ("getarg", &[1]),
    ("getenv", &[1]),
];

pub fn is_intrinsic_function(name: &str) -> bool {
    INTRINSIC_FUNCTIONS.contains(&name)
}

impl UnitSema {
    /// The symbols the values of `facts` are made of (COMMON scalars and elements the program
    /// keeps from where it sets them): what tests over the whole run may use.
    pub fn fact_symbols(&self) -> BTreeSet<String> {
        self.facts.values().flat_map(|l| l.vars().cloned()).collect()
    }

    /// Whether `name` here is its host's (an internal procedure's view): not declared again in
    /// this unit (no symbol of its own, or the one host association gives).
    pub fn is_hosts(&self, name: &str) -> bool {
        self.symbol(name).is_none() || self.host_assoc.contains(name)
    }

    /// Whether `name`'s value can be seen outside this unit's execution: a dummy argument, in
    /// COMMON, SAVEd or DATA-initialized, a module variable, or the host's variable.
    pub fn visible_outside(&self, name: &str) -> bool {
        self.host_assoc.contains(name)
            || self.module_vars.contains_key(name)
            || self.symbol(name).is_some_and(|s| s.common.is_some() || s.dummy.is_some() || s.save || s.data_init)
    }

    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.get(name)
    }
    pub fn is_array(&self, name: &str) -> bool {
        self.symbols.get(name).is_some_and(|s| s.is_array())
    }
    pub fn param(&self, name: &str) -> Option<&Const> {
        self.symbols.get(name).and_then(|s| s.param.as_ref())
    }
    /// Classify `name(args)`.
    /// `s(i:j)`: a substring of a CHARACTER scalar (its one argument is a range), not a call.
    pub fn is_substring(&self, name: &str, args: &[Arg]) -> bool {
        matches!(args, [Arg::Range(..)])
            && self
                .symbols
                .get(name)
                .is_some_and(|s| s.ty.base == BaseType::Character && !s.is_array() && !s.external && !s.intrinsic)
    }
    pub fn ref_kind(&self, name: &str) -> RefKind {
        match self.symbols.get(name) {
            Some(s) if s.is_array() => RefKind::ArrayElement,
            _ if self.stmt_functions.contains_key(name) => RefKind::StmtFunction,
            Some(s) if s.external => RefKind::Function,
            Some(s) if s.intrinsic => RefKind::Intrinsic,
            _ if is_intrinsic_function(name) => RefKind::Intrinsic,
            _ => RefKind::Function,
        }
    }
    /// Type of a name by declaration or implicit rules.
    pub fn type_of(&self, name: &str) -> TypeSpec {
        if let Some(s) = self.symbols.get(name) {
            return s.ty.clone();
        }
        self.implicit_type(name).unwrap_or(TypeSpec {
            base: BaseType::Real,
            kind: None,
        })
    }
    fn implicit_type(&self, name: &str) -> Option<TypeSpec> {
        let c = name.chars().next()?.to_ascii_lowercase();
        if let Some(t) = self.implicit.get(&c) {
            return Some(t.clone());
        }
        if self.implicit_none {
            return None;
        }
        Some(if ('i'..='n').contains(&c) {
            TypeSpec {
                base: BaseType::Integer,
                kind: None,
            }
        } else {
            TypeSpec {
                base: BaseType::Real,
                kind: None,
            }
        })
    }
    /// Evaluate a constant expression (PARAMETERs, literals, simple intrinsics).
    pub fn eval(&self, e: &Expr) -> Option<Const> {
        eval_const(e, &|n| self.param(n).cloned())
    }
    pub fn eval_int(&self, e: &Expr) -> Option<i64> {
        self.eval(e)?.as_int()
    }
}

/// Constant folding with a lookup for named constants.
pub fn eval_const(e: &Expr, lookup: &dyn Fn(&str) -> Option<Const>) -> Option<Const> {
    use Const::*;
    Some(match e {
        Expr::Int(i) => Int(*i),
        Expr::Real(r) => Real(*r),
        Expr::Logical(b) => Logical(*b),
        Expr::Str(s) => Str(s.clone()),
        Expr::Var(n) => lookup(n)?,
        Expr::Unary(op, x) => match (op, eval_const(x, lookup)?) {
            (UnOp::Neg, Int(i)) => Int(i.checked_neg()?),
            (UnOp::Neg, Real(r)) => Real(-r),
            (UnOp::Plus, v) => v,
            (UnOp::Not, Logical(b)) => Logical(!b),
            _ => return None,
        },
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval_const(a, lookup)?, eval_const(b, lookup)?);
            match (a, b) {
                (Int(x), Int(y)) => match op {
                    BinOp::Add => Int(x.checked_add(y)?),
                    BinOp::Sub => Int(x.checked_sub(y)?),
                    BinOp::Mul => Int(x.checked_mul(y)?),
                    BinOp::Div => Int(x.checked_div(y)?),
                    BinOp::Pow => Int(x.checked_pow(u32::try_from(y).ok()?)?),
                    BinOp::Eq => Logical(x == y),
                    BinOp::Ne => Logical(x != y),
                    BinOp::Lt => Logical(x < y),
                    BinOp::Le => Logical(x <= y),
                    BinOp::Gt => Logical(x > y),
                    BinOp::Ge => Logical(x >= y),
                    _ => return None,
                },
                (Logical(x), Logical(y)) => match op {
                    BinOp::And => Logical(x && y),
                    BinOp::Or => Logical(x || y),
                    BinOp::Eqv => Logical(x == y),
                    BinOp::Neqv => Logical(x != y),
                    _ => return None,
                },
                (Str(x), Str(y)) if *op == BinOp::Concat => Str(x + &y),
                (x, y) => {
                    let (x, y) = (x.as_f64()?, y.as_f64()?);
                    match op {
                        BinOp::Add => Real(x + y),
                        BinOp::Sub => Real(x - y),
                        BinOp::Mul => Real(x * y),
                        BinOp::Div => Real(x / y),
                        BinOp::Pow => Real(x.powf(y)),
                        BinOp::Lt => Logical(x < y),
                        BinOp::Gt => Logical(x > y),
                        _ => return None,
                    }
                }
            }
        }
        Expr::Ref(f, args) => {
            let vals: Option<Vec<Const>> = args
                .iter()
                .map(|a| a.expr().and_then(|e| eval_const(e, lookup)))
                .collect();
            let vals = vals?;
            let ints: Option<Vec<i64>> = vals.iter().map(|v| v.as_int()).collect();
            match (f.as_str(), ints) {
                ("max" | "max0", Some(v)) if !v.is_empty() => Int(*v.iter().max()?),
                ("min" | "min0", Some(v)) if !v.is_empty() => Int(*v.iter().min()?),
                ("mod", Some(v)) if v.len() == 2 && v[1] != 0 => Int(v[0] % v[1]),
                ("abs" | "iabs", Some(v)) if v.len() == 1 => Int(v[0].checked_abs()?),
                ("int", Some(v)) if v.len() == 1 => Int(v[0]),
                ("int" | "nint", None) if vals.len() == 1 => {
                    let r = vals[0].as_f64()?;
                    Int(if f == "int" {
                        r.trunc() as i64
                    } else {
                        r.round() as i64
                    })
                }
                ("real" | "float" | "dble", _) if vals.len() == 1 => Real(vals[0].as_f64()?),
                ("sqrt", _) if vals.len() == 1 => Real(vals[0].as_f64()?.sqrt()),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Build the semantic model of one unit. `known_units` maps program unit names to their kind
/// (for the function-vs-array decision and EXTERNAL).
pub fn analyze_unit(
    unit: &Unit,
    map: &SourceMap,
    host: Option<&UnitSema>,
    diags: &mut Vec<Diagnostic>,
) -> UnitSema {
    let mut s = UnitSema::default();
    // Host association: internal procedures see the host's symbols.
    if let Some(h) = host {
        s.symbols = h.symbols.clone();
        s.implicit = h.implicit.clone();
        s.implicit_none = h.implicit_none;
        s.host_assoc = h.symbols.values().filter(|x| x.param.is_none()).map(|x| x.name.clone()).collect();
    }
    let loc = |st: &Stmt| map.location(st.span.file, st.span.line, st.span.col);
    for (i, p) in unit.params.iter().enumerate() {
        if p == "*" {
            continue;
        }
        let sym = declare(&mut s, p, unit.span.line);
        sym.dummy = Some(i);
    }
    if let (Some(r), Some(t)) = (&unit.result, &unit.fn_type) {
        let sym = get_or_implicit(&mut s, r, unit.span.line);
        sym.ty = t.clone();
        sym.explicit_type = true;
    }
    let mut first_exec = true;
    let mut pending_dims: Vec<(Name, Vec<DimDecl>, u32)> = vec![];
    for st in &unit.stmts {
        let line = st.span.line;
        match &st.kind {
            StmtKind::Implicit(None) => {
                s.implicit_none = true;
                s.implicit.clear();
            }
            StmtKind::Implicit(Some(rules)) => {
                for (t, ranges) in rules {
                    for (a, b) in ranges {
                        for c in *a..=*b {
                            s.implicit.insert(c, t.clone());
                        }
                    }
                }
                // names already known (dummy arguments, the function's name) that have no
                // type statement take the rule too: it holds for the whole unit
                let implicit = s.implicit.clone();
                for sym in s.symbols.values_mut().filter(|x| !x.explicit_type) {
                    if let Some(t) = sym.name.chars().next().and_then(|c| implicit.get(&c.to_ascii_lowercase())) {
                        sym.ty = t.clone();
                    }
                }
            }
            StmtKind::TypeDecl {
                ty,
                attrs,
                entities,
            } => {
                for e in entities {
                    let sym = declare(&mut s, &e.name, line);
                    sym.ty = ty.clone();
                    sym.explicit_type = true;
                    for a in attrs {
                        apply_attr(sym, a);
                    }
                    if let Some(d) = &e.dims {
                        pending_dims.push((e.name.clone(), d.clone(), line));
                    }
                    if let Some(init) = &e.init {
                        if attrs.iter().any(|a| a == "parameter") {
                            let v = s.eval(init);
                            if v.is_none() {
                                diags.push(Diagnostic::warning(
                                    codes::BAD_PARAMETER,
                                    format!("cannot evaluate PARAMETER {}", e.name),
                                    Some(loc(st)),
                                ));
                            }
                            let sym = s.symbols.get_mut(&e.name).expect("inserted above");
                            sym.param = v.map(|v| coerce(v, &sym.ty));
                        } else {
                            s.symbols
                                .get_mut(&e.name)
                                .expect("inserted above")
                                .data_init = true;
                        }
                    }
                }
                resolve_dims(&mut s, &mut pending_dims);
            }
            StmtKind::Dimension(ents) => {
                for e in ents {
                    declare(&mut s, &e.name, line);
                    if let Some(d) = &e.dims {
                        pending_dims.push((e.name.clone(), d.clone(), line));
                    }
                }
                resolve_dims(&mut s, &mut pending_dims);
            }
            StmtKind::AttrStmt { attr, entities } => {
                if entities.is_empty() && attr == "save" {
                    for sym in s.symbols.values_mut() {
                        sym.save = true;
                    }
                }
                for e in entities {
                    let sym = declare(&mut s, &e.name, line);
                    apply_attr(sym, attr);
                    if let Some(d) = &e.dims {
                        pending_dims.push((e.name.clone(), d.clone(), line));
                    }
                }
                resolve_dims(&mut s, &mut pending_dims);
            }
            StmtKind::Common(blocks) => {
                for (block, ents) in blocks {
                    for e in ents {
                        let members = s.commons.entry(block.clone()).or_default();
                        let idx = members.len();
                        members.push(CommonMember {
                            name: e.name.clone(),
                            offset: None,
                            bytes: None,
                        });
                        let sym = declare(&mut s, &e.name, line);
                        sym.common = Some((block.clone(), idx));
                        if let Some(d) = &e.dims {
                            pending_dims.push((e.name.clone(), d.clone(), line));
                        }
                    }
                }
                resolve_dims(&mut s, &mut pending_dims);
            }
            StmtKind::Parameter(ps) => {
                for (n, e) in ps {
                    let v = s.eval(e);
                    if v.is_none() {
                        diags.push(Diagnostic::warning(
                            codes::BAD_PARAMETER,
                            format!("cannot evaluate PARAMETER {n}"),
                            Some(loc(st)),
                        ));
                    }
                    let sym = get_or_implicit(&mut s, n, line);
                    sym.param = v.map(|v| coerce(v, &sym.ty));
                }
                resolve_dims(&mut s, &mut pending_dims);
            }
            StmtKind::Use { only, .. } => match only {
                None => s.uses_modules = true,
                Some(names) => {
                    for n in names {
                        get_or_implicit(&mut s, n, line).explicit_type = true;
                    }
                }
            },
            StmtKind::Data(objs) => {
                for o in objs {
                    let mut names = vec![];
                    o.walk(&mut |x| {
                        if let Some(n) = x.base_name() {
                            names.push(n.to_string());
                        }
                    });
                    if let Some(n) = names.first() {
                        get_or_implicit(&mut s, n, line).data_init = true;
                    }
                }
            }
            StmtKind::Equivalence(sets) => {
                for set in sets {
                    let names: Vec<Name> = set
                        .iter()
                        .filter_map(|e| e.base_name().map(|n| n.to_string()))
                        .collect();
                    for n in &names {
                        get_or_implicit(&mut s, n, line);
                    }
                    for a in &names {
                        for b in &names {
                            if a != b {
                                s.symbols
                                    .get_mut(a)
                                    .expect("inserted")
                                    .aliases
                                    .insert(b.clone());
                            }
                        }
                    }
                }
            }
            StmtKind::Assign {
                lhs: Expr::Ref(name, args),
                rhs,
            } if first_exec
                && !s.is_array(name)
                && args.iter().all(|a| matches!(a, Arg::Expr(Expr::Var(_)))) =>
            {
                // a statement function may use only those defined before it: one that names
                // itself (or a later one) would never end
                let mut bad = None;
                rhs.walk(&mut |x| {
                    if let Expr::Ref(n, _) = x {
                        if n == name {
                            bad = Some(n.clone());
                        }
                    }
                });
                if let Some(n) = bad {
                    diags.push(Diagnostic::error(
                        codes::SYNTAX,
                        format!("statement function `{n}` refers to itself (an array `{n}` that is not declared?)"),
                        Some(loc(st)),
                    ));
                } else {
                    s.stmt_functions.insert(name.clone(), st.id);
                }
            }
            k if k.is_executable() => first_exec = false,
            _ => {}
        }
    }
    resolve_dims(&mut s, &mut pending_dims);
    // Transitive closure of EQUIVALENCE aliasing.
    let names: Vec<Name> = s.symbols.keys().cloned().collect();
    loop {
        let mut changed = false;
        for n in &names {
            let al: Vec<Name> = s.symbols[n].aliases.iter().cloned().collect();
            for a in al {
                let more: Vec<Name> = s
                    .symbols
                    .get(&a)
                    .map(|x| x.aliases.iter().filter(|m| *m != n).cloned().collect())
                    .unwrap_or_default();
                let sym = s.symbols.get_mut(n).expect("exists");
                for m in more {
                    changed |= sym.aliases.insert(m);
                }
            }
        }
        if !changed {
            break;
        }
    }
    // COMMON layout.
    for members in s.commons.values_mut() {
        let mut off = Some(0u64);
        for m in members.iter_mut() {
            let sym = &s.symbols[&m.name];
            m.bytes = sym.elements().map(|e| e * sym.ty.bytes());
            m.offset = off;
            off = match (off, m.bytes) {
                (Some(o), Some(b)) => Some(o + b),
                _ => None,
            };
        }
    }
    s
}

fn coerce(v: Const, ty: &TypeSpec) -> Const {
    match (&ty.base, v) {
        (BaseType::Integer, Const::Real(r)) => Const::Int(r.trunc() as i64),
        (BaseType::Real | BaseType::DoublePrecision, Const::Int(i)) => Const::Real(i as f64),
        (_, v) => v,
    }
}

fn apply_attr(sym: &mut Symbol, attr: &str) {
    match attr {
        "allocatable" => sym.allocatable = true,
        "pointer" => {
            sym.allocatable = true;
            sym.pointer = true;
        }
        "target" => sym.target = true,
        "external" => sym.external = true,
        "intrinsic" => sym.intrinsic = true,
        "save" => sym.save = true,
        _ => {}
    }
}

/// A name a declaration of this unit names: no longer the host's (see `host_assoc`), and a
/// new entity: nothing of the host's symbol (ALLOCATABLE, COMMON, bounds, SAVE) carries over.
fn declare<'a>(s: &'a mut UnitSema, name: &str, line: u32) -> &'a mut Symbol {
    if s.host_assoc.remove(name) {
        s.symbols.remove(name);
    }
    get_or_implicit(s, name, line)
}

fn get_or_implicit<'a>(s: &'a mut UnitSema, name: &str, line: u32) -> &'a mut Symbol {
    if !s.symbols.contains_key(name) {
        let ty = s.implicit_type(name).unwrap_or(TypeSpec {
            base: BaseType::Real,
            kind: None,
        });
        s.symbols.insert(
            name.to_string(),
            Symbol {
                name: name.to_string(),
                ty,
                explicit_type: false,
                dims: None,
                param: None,
                common: None,
                dummy: None,
                allocatable: false,
                external: false,
                intrinsic: false,
                save: false,
                data_init: false,
                aliases: BTreeSet::new(),
                pointer: false,
                target: false,
                line,
            },
        );
    }
    s.symbols.get_mut(name).expect("just inserted")
}

fn resolve_dims(s: &mut UnitSema, pending: &mut Vec<(Name, Vec<DimDecl>, u32)>) {
    for (name, decls, _) in pending.drain(..) {
        let dims: Vec<Dim> = decls
            .iter()
            .map(|d| {
                let lo = match &d.lo {
                    Some(e) => s.eval_int(e),
                    None => Some(1),
                };
                let hi = d.hi.as_ref().and_then(|e| s.eval_int(e));
                Dim {
                    lo,
                    hi,
                    assumed: d.assumed,
                    star: d.star,
                    lo_expr: d.lo.clone(),
                    hi_expr: d.hi.clone(),
                }
            })
            .collect();
        if let Some(sym) = s.symbols.get_mut(&name) {
            sym.dims = Some(dims);
        }
    }
}

/// Report names used but not declared in IMPLICIT NONE units.
pub fn check_undeclared(
    unit: &Unit,
    sema: &UnitSema,
    known_units: &BTreeSet<Name>,
    map: &SourceMap,
    diags: &mut Vec<Diagnostic>,
) {
    if !sema.implicit_none || sema.uses_modules {
        return;
    }
    let mut reported = BTreeSet::new();
    let mut check = |name: &str, call: bool, st: &Stmt, reported: &mut BTreeSet<Name>| {
        if sema.symbols.contains_key(name) || known_units.contains(name) || reported.contains(name)
        {
            return;
        }
        if call && (is_intrinsic_function(name) || sema.stmt_functions.contains_key(name)) {
            return;
        }
        reported.insert(name.to_string());
        diags.push(Diagnostic::error(
            codes::UNDECLARED,
            format!(
                "`{name}` is not declared (IMPLICIT NONE is in effect in {})",
                unit.name
            ),
            Some(map.location(st.span.file, st.span.line, st.span.col)),
        ));
    };
    for st in &unit.stmts {
        let mut visit = |e: &Expr, st: &Stmt, reported: &mut BTreeSet<Name>| {
            e.walk(&mut |x| match x {
                Expr::Var(n) => check(n, false, st, reported),
                Expr::Ref(n, _) => check(n, true, st, reported),
                _ => {}
            });
        };
        for e in stmt_exprs(&st.kind) {
            visit(e, st, &mut reported);
        }
        if let StmtKind::Do { var, .. } = &st.kind {
            check(var, false, st, &mut reported);
        }
    }
}

/// Report array references whose number of subscripts is not the array's rank (`A(I)` for a
/// 2-D `A`), as gfortran does: the analysis would otherwise read them as something else.
pub fn check_ranks(unit: &Unit, sema: &UnitSema, map: &SourceMap, diags: &mut Vec<Diagnostic>) {
    let mut reported = BTreeSet::new();
    for st in &unit.stmts {
        for e in stmt_exprs(&st.kind) {
            e.walk(&mut |x| {
                let Expr::Ref(n, args) = x else { return };
                let Some(sym) = sema.symbol(n) else { return };
                if !sym.is_array() || sym.ty.base == BaseType::Character || sym.rank() == args.len() {
                    return;
                }
                if reported.insert((n.clone(), st.span.line)) {
                    diags.push(Diagnostic::error(
                        codes::RANK_MISMATCH,
                        format!(
                            "`{n}` has rank {} but is referenced with {} subscript{}",
                            sym.rank(),
                            args.len(),
                            if args.len() == 1 { "" } else { "s" }
                        ),
                        Some(map.location(st.span.file, st.span.line, st.span.col)),
                    ));
                }
            });
        }
    }
}

/// Expressions directly contained in an executable statement (not descending into a logical IF's
/// inner statement: callers handle that).
pub fn stmt_exprs(k: &StmtKind) -> Vec<&Expr> {
    match k {
        StmtKind::Assign { lhs, rhs } => vec![lhs, rhs],
        StmtKind::Do { lo, hi, step, .. } => {
            let mut v = vec![lo, hi];
            if let Some(s) = step {
                v.push(s);
            }
            v
        }
        StmtKind::DoWhile { cond: Some(c), .. } | StmtKind::IfThen(c) | StmtKind::ElseIf(c) => {
            vec![c]
        }
        StmtKind::LogicalIf(c, inner) => {
            let mut v = vec![c];
            v.extend(stmt_exprs(&inner.kind));
            v
        }
        StmtKind::ArithIf(e, _) | StmtKind::ComputedGoto(_, e) => vec![e],
        StmtKind::Call { args, .. } => args.iter().filter_map(|a| a.expr()).collect(),
        StmtKind::Io { reads, writes, .. } => reads.iter().chain(writes.iter()).collect(),
        StmtKind::Allocate(es) | StmtKind::Deallocate(es) => es.iter().collect(),
        _ => vec![],
    }
}
