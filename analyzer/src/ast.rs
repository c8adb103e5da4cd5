//! The program model built from the syntax tree: program units, statements with spans in the
//! user's original files, expressions, and the structured (DO / IF) shape of executable code.
//! Names are lower case. Nothing here knows tree-sitter.

use crate::source::FileId;
use serde::Serialize;
use std::fmt;

pub type Name = String;

/// A position in the user's original file (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct StmtId(pub u32);

impl fmt::Display for StmtId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stmt{}", self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Eqv,
    Neqv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    Int(i64),
    Real(f64),
    Logical(bool),
    Str(String),
    /// A bare name: scalar, whole array, PARAMETER, or a function name used without arguments.
    Var(Name),
    /// `name(args)`: an array element/section or a function call; sema tells which.
    Ref(Name, Vec<Arg>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `(items, var = lo, hi [, step])` in I/O lists and DATA.
    ImpliedDo {
        items: Vec<Expr>,
        var: Name,
        lo: Box<Expr>,
        hi: Box<Expr>,
        step: Option<Box<Expr>>,
    },
    /// Something we do not model (complex literal, derived-type component...): the
    /// sub-expressions we could lower are kept so that reads are still seen.
    Opaque(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Arg {
    Expr(Expr),
    /// `lo:hi[:stride]`, each part optional.
    Range(Option<Expr>, Option<Expr>, Option<Expr>),
    Keyword(Name, Expr),
}

impl Arg {
    pub fn expr(&self) -> Option<&Expr> {
        match self {
            Arg::Expr(e) | Arg::Keyword(_, e) => Some(e),
            Arg::Range(..) => None,
        }
    }
}

impl Expr {
    /// Visit every sub-expression (pre-order), including range parts of arguments.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Ref(_, args) => {
                for a in args {
                    match a {
                        Arg::Expr(e) | Arg::Keyword(_, e) => e.walk(f),
                        Arg::Range(a, b, c) => {
                            for e in [a, b, c].into_iter().flatten() {
                                e.walk(f)
                            }
                        }
                    }
                }
            }
            Expr::Unary(_, e) => e.walk(f),
            Expr::Binary(_, a, b) => {
                a.walk(f);
                b.walk(f)
            }
            Expr::ImpliedDo {
                items,
                lo,
                hi,
                step,
                ..
            } => {
                for i in items {
                    i.walk(f)
                }
                lo.walk(f);
                hi.walk(f);
                if let Some(s) = step {
                    s.walk(f)
                }
            }
            Expr::Opaque(es) => {
                for e in es {
                    e.walk(f)
                }
            }
            _ => {}
        }
    }

    /// The name at the head of a variable reference (`A` in `A(I,J)` or `A`).
    pub fn base_name(&self) -> Option<&str> {
        match self {
            Expr::Var(n) | Expr::Ref(n, _) => Some(n),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum BaseType {
    Integer,
    Real,
    DoublePrecision,
    Complex,
    DoubleComplex,
    Logical,
    Character,
    Derived(Name),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TypeSpec {
    pub base: BaseType,
    /// Kind or byte size (`REAL*8`, `REAL(8)`), when given as a constant.
    pub kind: Option<i64>,
}

impl TypeSpec {
    pub fn bytes(&self) -> u64 {
        match (&self.base, self.kind) {
            (BaseType::DoublePrecision, _) => 8,
            (BaseType::DoubleComplex, _) => 16,
            (BaseType::Complex, Some(k)) => 2 * k as u64,
            (BaseType::Complex, None) => 8,
            (BaseType::Character, Some(k)) => k.max(1) as u64,
            (BaseType::Character, None) => 1,
            (BaseType::Derived(_), _) => 8,
            (_, Some(k)) if k > 0 => k as u64,
            _ => 4,
        }
    }
    /// The same type with its storage spelled one way: `DOUBLE PRECISION` as `REAL*8`,
    /// `DOUBLE COMPLEX` as `COMPLEX*16`, and the default kinds of INTEGER, REAL, COMPLEX and
    /// LOGICAL written out. Two declarations of one storage (`REAL*8 T(N)` for a `DOUBLE
    /// PRECISION T(N)` actual argument, NPB FT's EVOLVE) compare equal this way.
    pub fn storage(&self) -> TypeSpec {
        let (base, kind) = match (&self.base, self.kind) {
            (BaseType::DoublePrecision, _) => (BaseType::Real, Some(8)),
            (BaseType::DoubleComplex, _) => (BaseType::Complex, Some(16)),
            (b @ (BaseType::Integer | BaseType::Real | BaseType::Logical), None) => (b.clone(), Some(4)),
            (BaseType::Complex, None) => (BaseType::Complex, Some(8)),
            (b, k) => (b.clone(), k),
        };
        TypeSpec { base, kind }
    }
    pub fn name(&self) -> String {
        let b = match &self.base {
            BaseType::Integer => "integer",
            BaseType::Real => "real",
            BaseType::DoublePrecision => "double precision",
            BaseType::Complex => "complex",
            BaseType::DoubleComplex => "double complex",
            BaseType::Logical => "logical",
            BaseType::Character => "character",
            BaseType::Derived(n) => n.as_str(),
        };
        match self.kind {
            Some(k)
                if !matches!(
                    self.base,
                    BaseType::DoublePrecision | BaseType::DoubleComplex
                ) =>
            {
                format!("{b}*{k}")
            }
            _ => b.to_string(),
        }
    }
}

/// One dimension of a declared array: `lo:hi`, `hi` (lo = 1), `lo:*` / `*` (assumed size),
/// `:` (deferred / assumed shape).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DimDecl {
    pub lo: Option<Expr>,
    pub hi: Option<Expr>,
    pub assumed: bool,
    /// `*`: the last dimension of an assumed-size array (no upper bound exists).
    pub star: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entity {
    pub name: Name,
    pub dims: Option<Vec<DimDecl>>,
    pub init: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum IoKind {
    Read,
    Write,
    Print,
    Open,
    Close,
    Inquire,
    Rewind,
    Backspace,
    Endfile,
    Flush,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum StmtKind {
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    /// `DO [label] var = lo, hi [, step]`; `label` is the terminal label of F77 loops.
    Do {
        label: Option<u32>,
        var: Name,
        lo: Expr,
        hi: Expr,
        step: Option<Expr>,
    },
    /// `DO [label] WHILE (cond)` and plain `DO` (cond = None).
    DoWhile {
        label: Option<u32>,
        cond: Option<Expr>,
        /// `DO CONCURRENT (...)`: not analyzed yet, kept as a loop of unknown iterations.
        concurrent: bool,
    },
    EndDo,
    IfThen(Expr),
    ElseIf(Expr),
    Else,
    EndIf,
    LogicalIf(Expr, Box<Stmt>),
    ArithIf(Expr, [u32; 3]),
    Goto(u32),
    ComputedGoto(Vec<u32>, Expr),
    Continue,
    /// `CYCLE [name]`
    Cycle(Option<Name>),
    /// `EXIT [name]`
    Exit(Option<Name>),
    Stop,
    Return,
    Call {
        name: Name,
        args: Vec<Arg>,
    },
    /// I/O: `reads` are expressions evaluated (output items, unit and control values), `writes`
    /// are the input items assigned (READ).
    Io {
        kind: IoKind,
        reads: Vec<Expr>,
        writes: Vec<Expr>,
    },
    Format,
    TypeDecl {
        ty: TypeSpec,
        attrs: Vec<String>,
        entities: Vec<Entity>,
    },
    Dimension(Vec<Entity>),
    /// Attribute statements: `EXTERNAL`, `INTRINSIC`, `ALLOCATABLE`, `SAVE`, `TARGET`...
    AttrStmt {
        attr: String,
        entities: Vec<Entity>,
    },
    Common(Vec<(Name, Vec<Entity>)>),
    Parameter(Vec<(Name, Expr)>),
    /// `IMPLICIT NONE` is `None`.
    Implicit(Option<Vec<(TypeSpec, Vec<(char, char)>)>>),
    Data(Vec<Expr>),
    Equivalence(Vec<Vec<Expr>>),
    /// The objects allocated (deallocated) and the variables `STAT=` and `ERRMSG=` name (all
    /// written); a `SOURCE=` or `MOLD=` expression (read) is wrapped in `Expr::Opaque`.
    Allocate(Vec<Expr>),
    Deallocate(Vec<Expr>),
    /// `USE module [, ONLY: names]`
    Use {
        module: Name,
        only: Option<Vec<Name>>,
    },
    /// A statement kind we do not model; analysis treats it conservatively.
    Unsupported {
        what: String,
        names: Vec<Name>,
    },
    /// A syntax error (already reported as a diagnostic).
    Error,
}

impl StmtKind {
    /// The statement that runs: the inner statement of a logical IF, else itself.
    pub fn action(&self) -> &StmtKind {
        match self {
            StmtKind::LogicalIf(_, inner) => &inner.kind,
            k => k,
        }
    }

    /// Whether control may leave the code around the statement other than at its end:
    /// RETURN, STOP, a GO TO (plain, computed, arithmetic IF), CYCLE, EXIT.
    pub fn leaves(&self) -> bool {
        matches!(
            self,
            StmtKind::Exit(_)
                | StmtKind::Cycle(_)
                | StmtKind::Goto(_)
                | StmtKind::ComputedGoto(..)
                | StmtKind::ArithIf(..)
                | StmtKind::Return
                | StmtKind::Stop
        )
    }

    pub fn is_executable(&self) -> bool {
        !matches!(
            self,
            StmtKind::TypeDecl { .. }
                | StmtKind::Dimension(_)
                | StmtKind::AttrStmt { .. }
                | StmtKind::Common(_)
                | StmtKind::Parameter(_)
                | StmtKind::Implicit(_)
                | StmtKind::Data(_)
                | StmtKind::Equivalence(_)
                | StmtKind::Use { .. }
                | StmtKind::Format
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stmt {
    pub id: StmtId,
    pub label: Option<u32>,
    /// Construct name (`outer: DO ...`).
    pub name: Option<Name>,
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    Program,
    Subroutine,
    Function,
    Module,
    BlockData,
}

impl UnitKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            UnitKind::Program => "program",
            UnitKind::Subroutine => "subroutine",
            UnitKind::Function => "function",
            UnitKind::Module => "module",
            UnitKind::BlockData => "block data",
        }
    }
}

/// Structured executable code.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Node {
    Stmt(StmtId),
    /// A DO or DO WHILE loop; for label-terminated loops the terminal statement is the last
    /// node of `body` (it executes every iteration) and `end` is None.
    Do {
        header: StmtId,
        body: Vec<Node>,
        end: Option<StmtId>,
    },
    /// Block IF: `arms[0]` starts with the IF-THEN statement, then ELSE IF / ELSE arms.
    If {
        arms: Vec<(StmtId, Vec<Node>)>,
        end: Option<StmtId>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unit {
    pub kind: UnitKind,
    pub name: Name,
    pub params: Vec<Name>,
    /// Function result variable name (the function name unless RESULT(...) was given).
    pub result: Option<Name>,
    pub fn_type: Option<TypeSpec>,
    pub file: FileId,
    pub span: Span,
    pub end_line: u32,
    /// Host unit for internal and module procedures.
    pub parent: Option<Name>,
    /// All statements in source order; `stmts[i].id == StmtId(i)`.
    pub stmts: Vec<Stmt>,
    pub body: Vec<Node>,
}

impl Unit {
    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.0 as usize]
    }
    /// Whether another statement stands on one of `st`'s lines (`A = 1; B = 2`): its text is
    /// then not its lines alone, nor are its columns known.
    pub fn shares_a_line(&self, st: &Stmt) -> bool {
        self.stmts.iter().any(|o| o.id != st.id && o.span.file == st.span.file && o.span.line <= st.span.end_line && o.span.end_line >= st.span.line)
    }
    /// The first statement of the unit's own file after line `line` (statements spliced in
    /// from an INCLUDE file carry that file's line numbers and are not candidates).
    pub fn next_stmt_after(&self, line: u32) -> Option<&Stmt> {
        self.stmts.iter().find(|s| s.span.file == self.file && s.span.line > line)
    }
}

/// Visit every statement of a node list in execution (source) order, descending into the
/// statement of a logical IF.
pub fn for_each_stmt<'a>(unit: &'a Unit, nodes: &'a [Node], f: &mut dyn FnMut(&'a Stmt)) {
    for n in nodes {
        match n {
            Node::Stmt(id) => f(unit.stmt(*id)),
            Node::Do { header, body, end } => {
                f(unit.stmt(*header));
                for_each_stmt(unit, body, f);
                if let Some(e) = end {
                    f(unit.stmt(*e));
                }
            }
            Node::If { arms, end } => {
                for (h, b) in arms {
                    f(unit.stmt(*h));
                    for_each_stmt(unit, b, f);
                }
                if let Some(e) = end {
                    f(unit.stmt(*e));
                }
            }
        }
    }
}
