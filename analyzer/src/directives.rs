//! Fortran-DVMH directives (!DVM$, CDVM$, *DVM$) and sapfor hints (!$SPF): recognition in source lines, continuation joining, parsing into a structured form, and printing back.
//!
//! Conventions of the structured form:
//! - names (arrays, variables, templates, processor arrangements, targets) are
//!   kept in lower case;
//! - `Display` prints the canonical directive body in upper case without the
//!   sentinel; a line made of the sentinel ([`DirectiveKind::sentinel`]) and
//!   that body parses back to an equal [`DirectiveKind`];
//! - [`DExpr::Int`] produced by the parser is never negative: `-5` is
//!   `Neg(Int(5))`;
//! - text kept without being understood ([`DirectiveKind::Unknown`],
//!   [`Clause::Other`], [`DistFormat::Derived`]) is normalized: lower case
//!   outside quotes, blanks kept only between two identifier characters;
//! - an unknown `!$SPF` hint gives `Unknown { keyword: "!$spf", text: <whole body> }`
//!   (see [`SPF_UNKNOWN_KEYWORD`]);
//! - valid DVM constructs the structured form cannot hold are kept as text
//!   rather than rejected: `REDISTRIBUTE ... ONTO P` becomes
//!   `Unknown { keyword: "redistribute", .. }`, a clause with a group name other
//!   than a reduction's (`REMOTE_ACCESS(GR: B(I))`) becomes [`Clause::Other`]
//!   (`REDUCTION(RG: SUM(S))` is [`Clause::GroupReduction`]), `!$SPF PARALLEL(...)`
//!   becomes an unknown SPF hint.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `Unknown::keyword` of an `!$SPF` line whose hints we do not know; its
/// `text` is then the whole directive body.
pub const SPF_UNKNOWN_KEYWORD: &str = "!$spf";

/// A malformed directive: where (in the original file) and why.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct DirectiveError {
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column (in characters) in that line.
    pub col: u32,
    pub message: String,
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for DirectiveError {}

/// One directive, possibly continued over several lines.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// First line (1-based).
    pub line: u32,
    /// Last continuation line (1-based); equal to `line` when not continued.
    pub end_line: u32,
    pub kind: DirectiveKind,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Integer expression inside a directive (bounds, offsets, widths).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum DExpr {
    Int(i64),
    Name(String),
    Neg(Box<DExpr>),
    Bin(Box<DExpr>, BinOp, Box<DExpr>),
    /// `MAX(N,1)`, `NUMBER_OF_PROCESSORS()`, or an array element inside an expression.
    Call(String, Vec<DExpr>),
}

impl DExpr {
    /// The integer value, with `val` giving the value of a (lower-case) name; None when a name
    /// has no value, for calls, division by zero and overflow.
    pub fn eval_int(&self, val: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        Some(match self {
            DExpr::Int(v) => *v,
            DExpr::Name(n) => val(&n.to_ascii_lowercase())?,
            DExpr::Neg(a) => a.eval_int(val)?.checked_neg()?,
            DExpr::Bin(a, op, b) => {
                let (a, b) = (a.eval_int(val)?, b.eval_int(val)?);
                match op {
                    BinOp::Add => a.checked_add(b)?,
                    BinOp::Sub => a.checked_sub(b)?,
                    BinOp::Mul => a.checked_mul(b)?,
                    BinOp::Div => a.checked_div(b)?,
                }
            }
            DExpr::Call(..) => return None,
        })
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum Subscript {
    Expr(DExpr),
    /// `a:b`, `:`, `a:`, `:b`.
    Range(Option<DExpr>, Option<DExpr>),
    Star,
}

/// `A(I,J)`, `B(:,1)`, or a whole variable (`A`, `EPS`) when `subs` is empty.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ArrayRef {
    pub name: String,
    pub subs: Vec<Subscript>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum DistFormat {
    Block,
    Star,
    /// `WGT_BLOCK(W, N)`.
    WgtBlock(String, DExpr),
    /// `GEN_BLOCK(M)`.
    GenBlock(String),
    /// `INDIRECT(MAP)`.
    Indirect(String),
    /// `DERIVED(...)`: the text between the parentheses, normalized.
    Derived(String),
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    Sum,
    Product,
    Max,
    Min,
    And,
    Or,
    Eqv,
    Neqv,
    MaxLoc,
    MinLoc,
}

impl ReductionOp {
    /// The operation named `name` (any case): sum, product, max, min, and, or, eqv, neqv,
    /// maxloc, minloc.
    pub fn from_name(name: &str) -> Option<ReductionOp> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "sum" => ReductionOp::Sum,
            "product" => ReductionOp::Product,
            "max" => ReductionOp::Max,
            "min" => ReductionOp::Min,
            "and" => ReductionOp::And,
            "or" => ReductionOp::Or,
            "eqv" => ReductionOp::Eqv,
            "neqv" => ReductionOp::Neqv,
            "maxloc" => ReductionOp::MaxLoc,
            "minloc" => ReductionOp::MinLoc,
            _ => return None,
        })
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    pub op: ReductionOp,
    pub var: String,
    /// `MAXLOC(var, locarray[, n])`: the extra arguments; empty for the other operations.
    pub loc: Vec<DExpr>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ShadowSpec {
    pub name: String,
    /// Per dimension low:high; a single width `w` is `(w, w)`; empty = default widths.
    pub widths: Vec<(Option<DExpr>, Option<DExpr>)>,
    /// `A(CORNER)` or `A(1:1,1:1)(CORNER)`.
    pub corner: bool,
}

/// A clause of `PARALLEL`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    Reduction(Vec<Reduction>),
    ShadowRenew(Vec<ShadowSpec>),
    Across(Vec<ShadowSpec>),
    RemoteAccess(Vec<ArrayRef>),
    Private(Vec<String>),
    CudaBlock(Vec<DExpr>),
    Tie(Vec<ArrayRef>),
    /// `REDUCTION(RG : SUM(S), ...)`: reductions of the group RG, combined at its
    /// `REDUCTION_START`.
    GroupReduction(String, Vec<Reduction>),
    /// `SHADOW_START SG`: the shadow group SG is renewed from the values the loop leaves.
    ShadowStart(String),
    /// `SHADOW_WAIT SG`: the loop reads the shadow edges of group SG.
    ShadowWait(String),
    /// `SHADOW_COMPUTE(A(0:0,1:1))`: the loop's iterations reach this far past the ON
    /// array's owned part (widths per dimension of the ON array, which it names), and the
    /// replicated arrays it writes are each process's own work arrays, not merged (an
    /// extension of ours: NPB LU's FLUX, computed one plane past the block by each process,
    /// docs/runtime.md).
    ShadowCompute(Vec<ShadowSpec>),
    /// `REMOTE_ACCESS(GR : B(I+1))`: remote references kept in the group GR (`PREFETCH GR`).
    GroupRemoteAccess(String, Vec<ArrayRef>),
    /// A clause we do not model, normalized text including its keyword (`stage(2)`).
    Other(String),
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegionClauseKind {
    In,
    Out,
    InOut,
    Local,
    InLocal,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum DirectiveKind {
    /// `DISTRIBUTE (BLOCK,*) :: A, B` or `DISTRIBUTE A(BLOCK,*) [ONTO P]`.
    Distribute {
        arrays: Vec<String>,
        formats: Vec<DistFormat>,
        onto: Option<String>,
        dynamic: bool,
    },
    /// `ALIGN B(I,J) WITH A(I,J)` or `ALIGN (I,J) WITH A(I,J) :: B, C`;
    /// `source` holds the align dummies (`"*"` for `*`).
    Align {
        arrays: Vec<String>,
        source: Vec<String>,
        target: ArrayRef,
    },
    /// `SHADOW A(1:1, 2:2), B(1)`.
    Shadow(Vec<ShadowSpec>),
    Template {
        name: String,
        dims: Vec<Subscript>,
    },
    Processors {
        name: String,
        dims: Vec<DExpr>,
    },
    Dynamic(Vec<String>),
    /// `INHERIT A, B`: dummy arguments that take the distribution of their actual arguments.
    Inherit(Vec<String>),
    /// `REDISTRIBUTE A(*,BLOCK) [ONTO MB(1)]`: ONTO a processor arrangement, a section of
    /// one, or an element of a TASK array.
    Redistribute {
        arrays: Vec<String>,
        formats: Vec<DistFormat>,
        onto: Option<ArrayRef>,
    },
    /// `TASK MB(2)[, ...]`: arrays of tasks (task parallelism).
    Task(Vec<ArrayRef>),
    /// `MAP MB(1) ONTO P(LP(1):HP(1))`: the processors a task runs on.
    Map {
        task: ArrayRef,
        onto: ArrayRef,
    },
    /// `TASK_REGION MB [, REDUCTION(...)]`: a region whose `ON MB(i)` blocks (or a loop
    /// `PARALLEL (I) ON MB(I)`) are tasks of MB.
    TaskRegion {
        name: String,
        clauses: Vec<Clause>,
    },
    /// `END TASK_REGION`.
    EndTaskRegion,
    /// `ON MB(1)`: the statements up to `END ON` are task MB(1).
    On(ArrayRef),
    /// `END ON`.
    EndOn,
    /// `REMOTE_GROUP GR[, ...]`: names of groups of remote accesses (`REMOTE_ACCESS(GR : ...)`).
    RemoteGroup(Vec<String>),
    /// `PREFETCH GR`: the group's remote elements may be fetched from here on.
    Prefetch(String),
    /// `RESET GR`: the group's fetched elements are stale from here on.
    Reset(String),
    Realign {
        arrays: Vec<String>,
        source: Vec<String>,
        target: ArrayRef,
    },
    /// `PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), ...`; `ON` is optional.
    Parallel {
        vars: Vec<String>,
        on: Option<ArrayRef>,
        clauses: Vec<Clause>,
    },
    Region {
        clauses: Vec<(RegionClauseKind, Vec<ArrayRef>)>,
        targets: Vec<String>,
        async_: bool,
    },
    EndRegion,
    /// Empty list: all variables.
    GetActual(Vec<ArrayRef>),
    /// Empty list: all variables.
    Actual(Vec<ArrayRef>),
    /// Standalone `REMOTE_ACCESS([group:] refs)`.
    RemoteAccess {
        group: Option<String>,
        refs: Vec<ArrayRef>,
    },
    Interval(Option<DExpr>),
    EndInterval,
    /// `BARRIER`: every process waits for all others here.
    Barrier,
    /// `SHADOW_GROUP SG(A, B(1:1))`: a named set of arrays whose shadow edges are renewed
    /// together (`SHADOW_START SG`, `SHADOW_WAIT SG`).
    ShadowGroup {
        name: String,
        arrays: Vec<ShadowSpec>,
    },
    /// `SHADOW_START SG` as a statement: renew the group's edges here.
    ShadowStart(String),
    /// `SHADOW_WAIT SG` as a statement.
    ShadowWait(String),
    /// `REDUCTION_GROUP RG[, ...]`: names of reduction groups.
    ReductionGroup(Vec<String>),
    /// `REDUCTION_START RG`: combine the group's reductions across processes.
    ReductionStart(String),
    /// `REDUCTION_WAIT RG`: the group's combined values are needed from here on.
    ReductionWait(String),
    /// `!$SPF` hints of one line.
    Spf(Vec<SpfHint>),
    /// A directive with a keyword we do not know: kept, not an error.
    Unknown {
        keyword: String,
        text: String,
    },
}

/// A sapfor hint (`!$SPF ...`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub enum SpfHint {
    Parallel,
    Sequential,
    Private(Vec<String>),
    Reduction(Vec<Reduction>),
    NoDistribute(Vec<String>),
    Distribute {
        array: String,
        formats: Vec<DistFormat>,
    },
    /// `OWNED(A, ...)`, a declaration of the unit: each element of these non-distributed
    /// arrays is only ever accessed by parallel-loop iterations of the process that owns it,
    /// so the copies need not agree and the runtime does not merge what a loop writes
    /// (written by the DVM expert where it proves it; DVM itself never merges such arrays).
    Owned(Vec<String>),
}

impl DirectiveKind {
    /// The free-form sentinel that must precede the printed body: `!$SPF` for
    /// hints (and unknown hints), `!DVM$` otherwise.
    pub fn sentinel(&self) -> &'static str {
        match self {
            DirectiveKind::Spf(_) => "!$SPF",
            DirectiveKind::Unknown { keyword, .. } if keyword == SPF_UNKNOWN_KEYWORD => "!$SPF",
            _ => "!DVM$",
        }
    }
}

// ---------------------------------------------------------------------------
// Line recognition and continuation joining
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    line: u32,
    col: u32,
}

/// One character of a directive body with its place in the original file.
#[derive(Clone, Copy, Debug)]
struct PChar {
    c: char,
    pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sentinel {
    Dvm,
    Spf,
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r'
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn err_at(pos: Pos, message: impl Into<String>) -> DirectiveError {
    DirectiveError {
        line: pos.line,
        col: pos.col,
        message: message.into(),
    }
}

fn eq_ci(chars: &[char], s: &str) -> bool {
    chars.len() == s.len()
        && chars
            .iter()
            .zip(s.chars())
            .all(|(a, b)| a.to_ascii_uppercase() == b)
}

/// The sentinel of a line and the index of the first character after it.
fn sentinel_at(chars: &[char], fixed: bool) -> Option<(Sentinel, usize)> {
    let rest = if fixed {
        if !matches!(chars.first(), Some('c' | 'C' | '*' | '!')) {
            return None;
        }
        chars.get(1..5)?
    } else {
        let s = chars.iter().position(|&c| !is_blank(c))?;
        if chars.get(s) != Some(&'!') {
            return None;
        }
        chars.get(s + 1..s + 5)?
    };
    let sentinel = if eq_ci(rest, "DVM$") {
        Sentinel::Dvm
    } else if eq_ci(rest, "$SPF") {
        Sentinel::Spf
    } else {
        return None;
    };
    let after = if fixed {
        5
    } else {
        chars.iter().position(|&c| !is_blank(c)).unwrap_or(0) + 5
    };
    Some((sentinel, after))
}

/// Does this line carry a directive sentinel (`!DVM$`, `CDVM$`, `*DVM$`,
/// `!$SPF`, ...)? Continuation lines count too.
pub fn is_directive_line(line: &str, fixed_form: bool) -> bool {
    let t = if fixed_form {
        line
    } else {
        line.trim_start_matches(is_blank)
    };
    let head: Vec<char> = t.chars().take(5).collect();
    (fixed_form || head.first() == Some(&'!')) && sentinel_at(&head, true).is_some()
}

/// A directive line taken apart.
struct LineInfo {
    sentinel: Sentinel,
    line: u32,
    /// Fixed form: column 6 holds a continuation mark.
    fixed_cont: bool,
    /// Free form: the body starts with `&`.
    lead_amp: Option<Pos>,
    /// Free form: the body ends with `&` (removed from `body`).
    trail_amp: Option<Pos>,
    body: Vec<PChar>,
    /// The quote still open at the end of the line.
    end_quote: Option<char>,
    /// Where "end of directive" is when the body is empty.
    empty_pos: Pos,
}

/// Cut a `!` comment (outside quotes) off a body.
/// `quote`: the character context open at the start of the line (a quoted
/// string continued from the previous line); returns the one open at its end.
fn strip_comment(body: &mut Vec<PChar>, mut quote: Option<char>) -> Option<char> {
    for (k, p) in body.iter().enumerate() {
        match quote {
            Some(q) => {
                if p.c == q {
                    quote = None;
                }
            }
            None => match p.c {
                '\'' | '"' => quote = Some(p.c),
                '!' => {
                    body.truncate(k);
                    return None;
                }
                _ => {}
            },
        }
    }
    quote
}

/// `carry`: the quote open at the end of the directive this line may continue.
fn classify(line: &str, fixed: bool, lineno: u32, carry: Option<char>) -> Option<LineInfo> {
    let chars: Vec<char> = line.chars().collect();
    let (sentinel, start) = sentinel_at(&chars, fixed)?;
    let pc = |k: usize| PChar {
        c: chars[k],
        pos: Pos {
            line: lineno,
            col: to_u32(k + 1),
        },
    };
    if fixed {
        let limit = chars.len().min(72);
        let fixed_cont = matches!(chars.get(5), Some(&c) if !is_blank(c) && c != '0');
        let mut body: Vec<PChar> = (6.min(limit)..limit).map(pc).collect();
        let carry = if fixed_cont { carry } else { None };
        let end_quote = strip_comment(&mut body, carry);
        // Blanks are insignificant in fixed form, except inside quotes.
        let mut quote = carry;
        body.retain(|p| match quote {
            Some(q) => {
                if p.c == q {
                    quote = None;
                }
                true
            }
            None => {
                if p.c == '\'' || p.c == '"' {
                    quote = Some(p.c);
                }
                !is_blank(p.c)
            }
        });
        Some(LineInfo {
            sentinel,
            line: lineno,
            fixed_cont,
            lead_amp: None,
            trail_amp: None,
            body,
            end_quote,
            empty_pos: Pos {
                line: lineno,
                col: to_u32(limit.max(5) + 1),
            },
        })
    } else {
        let mut k = start;
        while chars.get(k).is_some_and(|&c| is_blank(c)) {
            k += 1;
        }
        let (lead_amp, body_start) = if chars.get(k) == Some(&'&') {
            (Some(pc(k).pos), k + 1)
        } else {
            (None, start)
        };
        let mut body: Vec<PChar> = (body_start..chars.len()).map(pc).collect();
        let end_quote = strip_comment(&mut body, carry);
        let mut trail_amp = None;
        if let Some(last) = body.iter().rposition(|p| !is_blank(p.c)) {
            if body[last].c == '&' {
                trail_amp = Some(body[last].pos);
                body.truncate(last);
            }
        }
        Some(LineInfo {
            sentinel,
            line: lineno,
            fixed_cont: false,
            lead_amp,
            trail_amp,
            body,
            end_quote,
            empty_pos: Pos {
                line: lineno,
                col: to_u32(start + 1),
            },
        })
    }
}

/// A directive's lines joined, not parsed yet.
struct Raw {
    sentinel: Sentinel,
    fixed: bool,
    first: u32,
    last: u32,
    body: Vec<PChar>,
    end_quote: Option<char>,
    empty_pos: Pos,
}

impl Raw {
    fn new(info: LineInfo, fixed: bool) -> Raw {
        Raw {
            sentinel: info.sentinel,
            fixed,
            first: info.line,
            last: info.line,
            body: info.body,
            end_quote: info.end_quote,
            empty_pos: info.empty_pos,
        }
    }

    fn append(&mut self, info: LineInfo) {
        self.last = info.line;
        self.body.extend(info.body);
        self.end_quote = info.end_quote;
        self.empty_pos = info.empty_pos;
    }

    fn finish(self) -> Result<Directive, DirectiveError> {
        let end = self.body.last().map_or(self.empty_pos, |p| Pos {
            line: p.pos.line,
            col: p.pos.col.saturating_add(1),
        });
        let mut p = Parser {
            s: &self.body,
            i: 0,
            glued: self.fixed,
            end,
            depth: 0,
        };
        let kind = match self.sentinel {
            Sentinel::Dvm => p.parse_dvm()?,
            Sentinel::Spf => p.parse_spf()?,
        };
        Ok(Directive {
            line: self.first,
            end_line: self.last,
            kind,
        })
    }
}

/// A line that may sit between a directive and its continuation.
fn is_blank_or_comment(line: &str, fixed: bool) -> bool {
    let t = line.trim_start_matches(is_blank);
    if t.is_empty() {
        return true;
    }
    if fixed {
        matches!(line.chars().next(), Some('c' | 'C' | '*' | '!'))
    } else {
        t.starts_with('!')
    }
}

/// Scan the original source lines of one file (no newline characters) for
/// directive comments, join continuations, parse.
///
/// Fixed form: sentinel `CDVM$`, `cDVM$`, `*DVM$`, `!DVM$` (or `C$SPF`,
/// `*$SPF`, `!$SPF`) in column 1; a continuation has a non-blank, non-`0`
/// character in column 6; text after column 72 is ignored; blanks are
/// insignificant. Free form: `!DVM$` / `!$SPF` possibly after leading
/// blanks; a line ending with `&` continues on the next directive line, which
/// may start with `&` after the sentinel. Blank lines and ordinary comments
/// may sit between a directive and its continuation. A `!` outside quotes
/// starts a comment inside a directive.
pub fn scan(lines: &[&str], fixed_form: bool) -> Vec<Result<Directive, DirectiveError>> {
    let mut out = Vec::new();
    let mut cur: Option<Raw> = None;
    // Free form: the directive in `cur` ended with this `&`.
    let mut pending_amp: Option<Pos> = None;
    for (idx, line) in lines.iter().enumerate() {
        let lineno = to_u32(idx + 1);
        // A quoted string may go on in a continuation line.
        let carry = match &cur {
            Some(r) if fixed_form || pending_amp.is_some() => r.end_quote,
            _ => None,
        };
        let info = classify(line, fixed_form, lineno, carry);
        if fixed_form {
            match info {
                None => {
                    if !is_blank_or_comment(line, true) {
                        if let Some(r) = cur.take() {
                            out.push(r.finish());
                        }
                    }
                }
                Some(info) if info.fixed_cont => match cur.as_mut() {
                    Some(r) if r.sentinel == info.sentinel => r.append(info),
                    _ => {
                        if let Some(r) = cur.take() {
                            out.push(r.finish());
                        }
                        out.push(Err(err_at(
                            Pos {
                                line: lineno,
                                col: 6,
                            },
                            "continuation line without a directive line to continue",
                        )));
                    }
                },
                Some(info) => {
                    if let Some(r) = cur.take() {
                        out.push(r.finish());
                    }
                    cur = Some(Raw::new(info, true));
                }
            }
            continue;
        }
        let mut info = info;
        if let Some(amp) = pending_amp {
            let continues = matches!((&info, &cur), (Some(i), Some(r)) if i.sentinel == r.sentinel);
            if continues {
                if let (Some(i), Some(r)) = (info.take(), cur.as_mut()) {
                    pending_amp = i.trail_amp;
                    r.append(i);
                }
                if pending_amp.is_none() {
                    if let Some(r) = cur.take() {
                        out.push(r.finish());
                    }
                }
                continue;
            }
            if info.is_none() && is_blank_or_comment(line, false) {
                continue;
            }
            out.push(Err(err_at(
                amp,
                "the directive continues with '&' but the next line is not a continuation of it",
            )));
            cur = None;
            pending_amp = None;
            if carry.is_some() {
                info = classify(line, false, lineno, None);
            }
        }
        if let Some(i) = info {
            if let Some(p) = i.lead_amp {
                out.push(Err(err_at(
                    p,
                    "continuation '&' without a preceding directive line ending with '&'",
                )));
                continue;
            }
            pending_amp = i.trail_amp;
            let r = Raw::new(i, false);
            if pending_amp.is_some() {
                cur = Some(r);
            } else {
                out.push(r.finish());
            }
        }
    }
    if let Some(amp) = pending_amp {
        out.push(Err(err_at(
            amp,
            "the directive continues with '&' but the file ends",
        )));
    } else if let Some(r) = cur.take() {
        out.push(r.finish());
    }
    out
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

type PResult<T> = Result<T, DirectiveError>;

/// Nesting limit for expressions, so that hostile input cannot overflow the stack.
const MAX_DEPTH: u32 = 64;

const DVM_KEYWORDS: &[&str] = &[
    "SHADOW_GROUP",
    "SHADOW_START",
    "SHADOW_WAIT",
    "REDUCTION_GROUP",
    "REDUCTION_START",
    "REDUCTION_WAIT",
    "REDISTRIBUTE",
    "DISTRIBUTE",
    "REALIGN",
    "ALIGN",
    "SHADOW",
    "TEMPLATE",
    "PROCESSORS",
    "TASK_REGION",
    "TASK",
    "MAP",
    "REMOTE_GROUP",
    "PREFETCH",
    "RESET",
    "DYNAMIC",
    "INHERIT",
    "PARALLEL",
    "REGION",
    "GET_ACTUAL",
    "ACTUAL",
    "REMOTE_ACCESS",
    "INTERVAL",
    "ENDREGION",
    "ENDINTERVAL",
    "BARRIER",
    "END",
    "ON",
];

const SPF_KEYWORDS: &[&str] = &[
    "ANALYSIS",
    "PARALLEL",
    "SEQUENTIAL",
    "NODISTRIBUTE",
    "DISTRIBUTE",
    "OWNED",
];

/// Lower case outside quotes; blanks kept only between two identifier characters.
fn normalize(s: &[PChar]) -> String {
    let mut out = String::new();
    let mut pending_blank = false;
    let mut quote: Option<char> = None;
    for p in s {
        let c = p.c;
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        if is_blank(c) {
            pending_blank = true;
            continue;
        }
        if pending_blank && is_ident_char(c) && out.chars().last().is_some_and(is_ident_char) {
            out.push(' ');
        }
        pending_blank = false;
        if c == '\'' || c == '"' {
            quote = Some(c);
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Upper case outside quotes (the inverse of `normalize`'s case folding).
fn upper_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                }
                out.push(c);
            }
            None => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                out.push(c.to_ascii_uppercase());
            }
        }
    }
    out
}

struct DistParts {
    arrays: Vec<String>,
    formats: Vec<DistFormat>,
    onto: Option<String>,
    dynamic: bool,
}

struct Parser<'a> {
    s: &'a [PChar],
    i: usize,
    /// Fixed form: blanks removed, keywords may run into names (`ONA(I)`).
    glued: bool,
    end: Pos,
    depth: u32,
}

impl<'a> Parser<'a> {
    // ----- character level -----

    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|p| is_blank(p.c)) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.s.get(self.i).map(|p| p.c)
    }

    /// The non-blank character after the next one.
    fn peek2(&mut self) -> Option<char> {
        self.skip_ws();
        let mut j = self.i + 1;
        while self.s.get(j).is_some_and(|p| is_blank(p.c)) {
            j += 1;
        }
        self.s.get(j).map(|p| p.c)
    }

    fn here(&mut self) -> Pos {
        self.skip_ws();
        self.s.get(self.i).map_or(self.end, |p| p.pos)
    }

    fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn eat_dcolon(&mut self) -> bool {
        if self.peek() == Some(':') && self.peek2() == Some(':') {
            self.eat(':');
            self.eat(':');
            true
        } else {
            false
        }
    }

    fn run_len(&self, from: usize) -> usize {
        self.s
            .get(from..)
            .map_or(0, |r| r.iter().take_while(|p| is_ident_char(p.c)).count())
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.s
            .get(from..to)
            .map(|r| r.iter().map(|p| p.c).collect())
            .unwrap_or_default()
    }

    /// Is keyword `kw` (upper case) next? Free form needs a word boundary
    /// after it; fixed form only refuses a following `_` (`SHADOW_RENEW` is
    /// not `SHADOW`), since names may follow without a blank.
    fn is_kw(&mut self, kw: &str) -> bool {
        self.skip_ws();
        for (k, b) in kw.chars().enumerate() {
            match self.s.get(self.i + k) {
                Some(p) if p.c.to_ascii_uppercase() == b => {}
                _ => return false,
            }
        }
        let next = self.s.get(self.i + kw.len()).map(|p| p.c);
        if self.glued {
            next != Some('_')
        } else {
            !next.is_some_and(is_ident_char)
        }
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += kw.len();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, kw: &str, ctx: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error_here(&format!("expected {kw} {ctx}")))
        }
    }

    fn peek_ident(&mut self) -> bool {
        self.skip_ws();
        self.s.get(self.i).is_some_and(|p| is_ident_start(p.c))
    }

    fn ident(&mut self) -> Option<String> {
        if !self.peek_ident() {
            return None;
        }
        let n = self.run_len(self.i);
        let t = self.text(self.i, self.i + n).to_ascii_lowercase();
        self.i += n;
        Some(t)
    }

    /// A name that, in fixed form, stops before one of the `stops` keywords
    /// (`ALIGNBWITHA` is `ALIGN B WITH A`).
    fn ident_stop(&mut self, stops: &[&str]) -> Option<String> {
        if !self.glued {
            return self.ident();
        }
        if !self.peek_ident() {
            return None;
        }
        let n = self.run_len(self.i);
        let run = self.text(self.i, self.i + n).to_ascii_uppercase();
        let mut cut = n;
        for s in stops {
            if let Some(k) = run.get(1..).and_then(|r| r.find(s)) {
                cut = cut.min(k + 1);
            }
        }
        let t = run.get(..cut).unwrap_or_default().to_ascii_lowercase();
        self.i += cut;
        Some(t)
    }

    fn expect_ident(&mut self, what: &str) -> PResult<String> {
        match self.ident() {
            Some(t) => Ok(t),
            None => Err(self.error_here(&format!("expected {what}"))),
        }
    }

    fn describe(&mut self) -> String {
        self.skip_ws();
        match self.s.get(self.i) {
            None => "the end of the directive".to_string(),
            Some(p) if is_ident_char(p.c) => {
                let n = self.run_len(self.i).min(24);
                format!("'{}'", self.text(self.i, self.i + n))
            }
            Some(p) => format!("'{}'", p.c),
        }
    }

    fn error_here(&mut self, msg: &str) -> DirectiveError {
        let found = self.describe();
        let pos = self.here();
        err_at(pos, format!("{msg}, found {found}"))
    }

    fn expect(&mut self, c: char, ctx: &str) -> PResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error_here(&format!("expected '{c}' {ctx}")))
        }
    }

    fn finish(&mut self) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error_here("expected the end of the directive"))
        }
    }

    fn comma_list<T>(&mut self, mut f: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut v = vec![f(self)?];
        while self.eat(',') {
            v.push(f(self)?);
        }
        Ok(v)
    }

    fn paren_list<T>(
        &mut self,
        ctx: &str,
        f: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.expect('(', ctx)?;
        let v = self.comma_list(f)?;
        self.expect(')', "to close the list")?;
        Ok(v)
    }

    /// Every `(` closed, every `)` opened (outside quotes).
    fn check_parens(&self) -> PResult<()> {
        let mut stack: Vec<Pos> = Vec::new();
        let mut quote: Option<char> = None;
        for p in self.s {
            if let Some(q) = quote {
                if p.c == q {
                    quote = None;
                }
                continue;
            }
            match p.c {
                '\'' | '"' => quote = Some(p.c),
                '(' => stack.push(p.pos),
                ')' if stack.pop().is_none() => {
                    return Err(err_at(
                        p.pos,
                        "unbalanced parentheses: ')' without a matching '('",
                    ));
                }
                _ => {}
            }
        }
        match stack.last() {
            Some(&pos) => Err(err_at(
                pos,
                "unbalanced parentheses: this '(' is never closed",
            )),
            None => Ok(()),
        }
    }

    /// The characters between a `(` and its matching `)`, consuming both.
    fn raw_group(&mut self) -> PResult<&'a [PChar]> {
        let open = self.here();
        if !self.eat('(') {
            return Err(self.error_here("expected '('"));
        }
        let s = self.s;
        let start = self.i;
        let mut depth = 1usize;
        let mut quote: Option<char> = None;
        for (j, p) in s.iter().enumerate().skip(start) {
            if let Some(q) = quote {
                if p.c == q {
                    quote = None;
                }
                continue;
            }
            match p.c {
                '\'' | '"' => quote = Some(p.c),
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i = j + 1;
                        return Ok(&s[start..j]);
                    }
                }
                _ => {}
            }
        }
        Err(err_at(
            open,
            "unbalanced parentheses: this '(' is never closed",
        ))
    }

    /// After a `(`: does a group name (`GRP:`) come first?
    fn group_prefix(&mut self) -> bool {
        let save = self.i;
        let r = self.ident().is_some() && self.peek() == Some(':') && self.peek2() != Some(':');
        self.i = save;
        r
    }

    // ----- expressions -----

    fn expr(&mut self) -> PResult<DExpr> {
        let mut lhs = if self.eat('-') {
            DExpr::Neg(Box::new(self.term()?))
        } else {
            self.eat('+');
            self.term()?
        };
        loop {
            let op = match self.peek() {
                Some('+') => BinOp::Add,
                Some('-') => BinOp::Sub,
                _ => break,
            };
            self.i += 1;
            let rhs = self.term()?;
            lhs = DExpr::Bin(Box::new(lhs), op, Box::new(rhs));
        }
        Ok(lhs)
    }

    fn term(&mut self) -> PResult<DExpr> {
        let mut lhs = self.factor()?;
        loop {
            let op = match self.peek() {
                Some('*') => BinOp::Mul,
                Some('/') => BinOp::Div,
                _ => break,
            };
            self.i += 1;
            if op == BinOp::Mul && self.s.get(self.i).is_some_and(|p| p.c == '*') {
                return Err(err_at(
                    self.s[self.i - 1].pos,
                    "'**' is not supported in directive expressions",
                ));
            }
            let rhs = self.factor()?;
            lhs = DExpr::Bin(Box::new(lhs), op, Box::new(rhs));
        }
        Ok(lhs)
    }

    fn factor(&mut self) -> PResult<DExpr> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error_here("expression nested too deeply"));
        }
        self.depth += 1;
        let r = if self.eat('-') {
            // `A*-B`: not standard Fortran, accepted.
            self.factor().map(|e| DExpr::Neg(Box::new(e)))
        } else if self.eat('+') {
            self.factor()
        } else {
            self.primary()
        };
        self.depth -= 1;
        r
    }

    fn primary(&mut self) -> PResult<DExpr> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                let mut j = self.i;
                while self.s.get(j).is_some_and(|p| p.c.is_ascii_digit()) {
                    j += 1;
                }
                let digits = self.text(start, j);
                match digits.parse::<i64>() {
                    Ok(v) => {
                        self.i = j;
                        Ok(DExpr::Int(v))
                    }
                    Err(_) => Err(err_at(
                        self.s[start].pos,
                        format!("integer {digits} is too large"),
                    )),
                }
            }
            Some(c) if is_ident_start(c) => {
                let name = self.ident().unwrap_or_default();
                if self.peek() == Some('(') {
                    self.i += 1;
                    let args = if self.eat(')') {
                        Vec::new()
                    } else {
                        let a = self.comma_list(|p| p.expr())?;
                        self.expect(')', "to close the argument list")?;
                        a
                    };
                    Ok(DExpr::Call(name, args))
                } else {
                    Ok(DExpr::Name(name))
                }
            }
            Some('(') => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(')', "to close the parenthesized expression")?;
                Ok(e)
            }
            _ => Err(self.error_here("expected an expression")),
        }
    }

    fn opt_bound(&mut self) -> PResult<Option<DExpr>> {
        match self.peek() {
            Some(',') | Some(')') | None => Ok(None),
            _ => self.expr().map(Some),
        }
    }

    fn subscript(&mut self) -> PResult<Subscript> {
        if self.peek() == Some('*') && matches!(self.peek2(), Some(',') | Some(')')) {
            self.i += 1;
            return Ok(Subscript::Star);
        }
        if self.eat(':') {
            return Ok(Subscript::Range(None, self.opt_bound()?));
        }
        let e = self.expr()?;
        if self.eat(':') {
            Ok(Subscript::Range(Some(e), self.opt_bound()?))
        } else {
            Ok(Subscript::Expr(e))
        }
    }

    fn array_ref(&mut self) -> PResult<ArrayRef> {
        self.array_ref_stop(&[])
    }

    /// An array reference whose name, in fixed form, stops before one of the `stops`
    /// keywords (`MAPMBONTOP`).
    fn array_ref_stop(&mut self, stops: &[&str]) -> PResult<ArrayRef> {
        let name = match self.ident_stop(stops) {
            Some(n) => n,
            None => return Err(self.error_here("expected a variable or array name")),
        };
        let subs = if self.peek() == Some('(') {
            self.paren_list("", |p| p.subscript())?
        } else {
            Vec::new()
        };
        Ok(ArrayRef { name, subs })
    }

    // ----- pieces of directives -----

    fn dist_format(&mut self) -> PResult<DistFormat> {
        if self.eat('*') {
            return Ok(DistFormat::Star);
        }
        let pos = self.here();
        let Some(w) = self.ident() else {
            return Err(self.error_here(
                "expected a distribution format (BLOCK, *, WGT_BLOCK, GEN_BLOCK, INDIRECT, DERIVED)",
            ));
        };
        match w.as_str() {
            "block" => Ok(DistFormat::Block),
            "wgt_block" => {
                self.expect('(', "after WGT_BLOCK")?;
                let a = self.expect_ident("the weight array of WGT_BLOCK")?;
                self.expect(',', "between the arguments of WGT_BLOCK")?;
                let n = self.expr()?;
                self.expect(')', "to close WGT_BLOCK(")?;
                Ok(DistFormat::WgtBlock(a, n))
            }
            "gen_block" | "indirect" => {
                self.expect('(', &format!("after {}", w.to_ascii_uppercase()))?;
                let a = self.expect_ident("an array name")?;
                self.expect(')', &format!("to close {}(", w.to_ascii_uppercase()))?;
                Ok(if w == "gen_block" {
                    DistFormat::GenBlock(a)
                } else {
                    DistFormat::Indirect(a)
                })
            }
            "derived" => {
                if self.peek() != Some('(') {
                    return Err(self.error_here("expected '(' after DERIVED"));
                }
                let raw = self.raw_group()?;
                Ok(DistFormat::Derived(normalize(raw)))
            }
            _ => Err(err_at(
                pos,
                format!("unknown distribution format '{}'", w.to_ascii_uppercase()),
            )),
        }
    }

    fn formats(&mut self) -> PResult<Vec<DistFormat>> {
        self.paren_list("before the distribution formats", |p| p.dist_format())
    }

    fn distribute_body(&mut self) -> PResult<DistParts> {
        let combined =
            matches!(self.peek(), Some('(') | Some(',') | Some(':')) || self.is_kw("ONTO");
        if combined {
            return self.distribute_attrs(false);
        }
        let Some(name) = self.ident_stop(&["ONTO"]) else {
            return Err(
                self.error_here("expected an array name or '(' with the distribution formats")
            );
        };
        let formats = if self.peek() == Some('(') {
            self.formats()?
        } else {
            Vec::new()
        };
        let onto = if self.eat_kw("ONTO") {
            Some(self.expect_ident("a processor arrangement after ONTO")?)
        } else {
            None
        };
        Ok(DistParts {
            arrays: vec![name],
            formats,
            onto,
            dynamic: false,
        })
    }

    /// `[(formats)] [ONTO P] [, DYNAMIC] :: names`.
    fn distribute_attrs(&mut self, mut dynamic: bool) -> PResult<DistParts> {
        let formats = if self.peek() == Some('(') {
            self.formats()?
        } else {
            Vec::new()
        };
        let onto = if self.eat_kw("ONTO") {
            Some(self.expect_ident("a processor arrangement after ONTO")?)
        } else {
            None
        };
        while self.eat(',') {
            if !self.eat_kw("DYNAMIC") {
                return Err(self.error_here("expected DYNAMIC"));
            }
            dynamic = true;
        }
        if !self.eat_dcolon() {
            return Err(self.error_here("expected '::' before the array names"));
        }
        let arrays = self.comma_list(|p| p.expect_ident("an array name"))?;
        Ok(DistParts {
            arrays,
            formats,
            onto,
            dynamic,
        })
    }

    /// `REDISTRIBUTE A(formats) [ONTO X]` or `REDISTRIBUTE (formats) [ONTO X] :: names`, `X` a
    /// processor arrangement, a section of one or an element of a TASK array; the flag says
    /// whether `, DYNAMIC` followed.
    fn redistribute_body(&mut self) -> PResult<(DirectiveKind, bool)> {
        let combined = matches!(self.peek(), Some('(') | Some(':')) || self.is_kw("ONTO");
        if !combined {
            let Some(name) = self.ident_stop(&["ONTO"]) else {
                return Err(self.error_here("expected an array name or '(' with the distribution formats"));
            };
            let (formats, onto) = self.formats_onto()?;
            return Ok((DirectiveKind::Redistribute { arrays: vec![name], formats, onto }, false));
        }
        let (formats, onto) = self.formats_onto()?;
        let mut dynamic = false;
        while self.eat(',') {
            self.expect_kw("DYNAMIC", "after ','")?;
            dynamic = true;
        }
        if !self.eat_dcolon() {
            return Err(self.error_here("expected '::' before the array names"));
        }
        let arrays = self.comma_list(|p| p.expect_ident("an array name"))?;
        Ok((DirectiveKind::Redistribute { arrays, formats, onto }, dynamic))
    }

    /// `[(formats)] [ONTO X]` of a REDISTRIBUTE, `X` an array reference (`MB(1)`).
    fn formats_onto(&mut self) -> PResult<(Vec<DistFormat>, Option<ArrayRef>)> {
        let formats = if self.peek() == Some('(') { self.formats()? } else { Vec::new() };
        let onto = if self.eat_kw("ONTO") { Some(self.array_ref()?) } else { None };
        Ok((formats, onto))
    }

    fn align_dummies(&mut self) -> PResult<Vec<String>> {
        self.paren_list("", |p| {
            if p.eat('*') {
                Ok("*".to_string())
            } else {
                p.expect_ident("an align dummy (a name or '*')")
            }
        })
    }

    /// `B(I,J) WITH A(I,J)` or `(I,J) WITH A(I,J) :: B, C`.
    fn align_body(&mut self) -> PResult<(Vec<String>, Vec<String>, ArrayRef)> {
        if self.peek() == Some('(') || self.is_kw("WITH") {
            let source = if self.peek() == Some('(') {
                self.align_dummies()?
            } else {
                Vec::new()
            };
            self.expect_kw("WITH", "after the align dummies")?;
            let target = self.array_ref()?;
            if !self.eat_dcolon() {
                return Err(self.error_here("expected '::' before the aligned array names"));
            }
            let arrays = self.comma_list(|p| p.expect_ident("an array name"))?;
            return Ok((arrays, source, target));
        }
        let Some(name) = self.ident_stop(&["WITH"]) else {
            return Err(self.error_here("expected an array name or '(' with the align dummies"));
        };
        let source = if self.peek() == Some('(') {
            self.align_dummies()?
        } else {
            Vec::new()
        };
        self.expect_kw("WITH", "after the aligned array")?;
        let target = self.array_ref()?;
        Ok((vec![name], source, target))
    }

    /// `(CORNER)` next? Consumes it if so.
    fn corner_group(&mut self) -> bool {
        let save = self.i;
        if self.eat('(') && self.eat_kw("CORNER") && self.eat(')') {
            true
        } else {
            self.i = save;
            false
        }
    }

    fn shadow_width(&mut self) -> PResult<(Option<DExpr>, Option<DExpr>)> {
        if self.eat(':') {
            return Ok((None, self.opt_bound()?));
        }
        let lo = self.expr()?;
        if self.eat(':') {
            Ok((Some(lo), self.opt_bound()?))
        } else {
            Ok((Some(lo.clone()), Some(lo)))
        }
    }

    fn shadow_spec(&mut self) -> PResult<ShadowSpec> {
        let name = self.expect_ident("an array name")?;
        let mut widths = Vec::new();
        let mut corner = false;
        if self.peek() == Some('(') {
            if self.corner_group() {
                corner = true;
            } else {
                widths = self.paren_list("", |p| p.shadow_width())?;
                if self.peek() == Some('(') {
                    if !self.corner_group() {
                        return Err(self.error_here("expected (CORNER) after the shadow widths"));
                    }
                    corner = true;
                }
            }
        }
        Ok(ShadowSpec {
            name,
            widths,
            corner,
        })
    }

    fn reduction(&mut self) -> PResult<Reduction> {
        let pos = self.here();
        let Some(op_name) = self.ident() else {
            return Err(
                self.error_here("expected a reduction operation such as SUM(S) or MAX(EPS)")
            );
        };
        let op = match ReductionOp::from_name(&op_name) {
            Some(op) => op,
            None => {
                return Err(err_at(
                    pos,
                    format!(
                        "unknown reduction operation '{}'",
                        op_name.to_ascii_uppercase()
                    ),
                ))
            }
        };
        let up = op_name.to_ascii_uppercase();
        self.expect('(', &format!("after {up}"))?;
        let var = self.expect_ident("a reduction variable")?;
        let mut loc = Vec::new();
        if matches!(op, ReductionOp::MaxLoc | ReductionOp::MinLoc) {
            self.expect(',', &format!("and a location array: {up}(VAR, LOC[, N])"))?;
            loc = self.comma_list(|p| p.expr())?;
            self.expect(')', &format!("to close {up}("))?;
        } else {
            self.expect(')', &format!("to close {up}( (it takes one variable)"))?;
        }
        Ok(Reduction { op, var, loc })
    }

    /// A clause kept as text, from `start` (its keyword) through its parentheses.
    fn other_clause(&mut self, start: usize) -> PResult<Clause> {
        self.i = start;
        self.ident();
        if self.peek() == Some('(') {
            self.raw_group()?;
        }
        Ok(Clause::Other(normalize(
            self.s.get(start..self.i).unwrap_or_default(),
        )))
    }

    fn clause(&mut self) -> PResult<Clause> {
        self.skip_ws();
        let start = self.i;
        // `SHADOW_START SG`, `SHADOW_WAIT SG` (fixed form glues the group's name on)
        for (kw, wait) in [("SHADOW_START", false), ("SHADOW_WAIT", true)] {
            if self.eat_kw(kw) {
                let g = self.expect_ident("a shadow group name")?;
                return Ok(if wait { Clause::ShadowWait(g) } else { Clause::ShadowStart(g) });
            }
        }
        let Some(name) = self.ident() else {
            return Err(self.error_here("expected a clause such as REDUCTION(...) or PRIVATE(...)"));
        };
        let known = matches!(
            name.as_str(),
            "reduction"
                | "shadow_renew"
                | "shadow_compute"
                | "across"
                | "remote_access"
                | "private"
                | "new"
                | "cuda_block"
                | "tie"
        );
        // (DVM's SHADOW_COMPUTE without a list stays a clause we do not model)
        if !known || (name == "shadow_compute" && self.peek() != Some('(')) {
            return self.other_clause(start);
        }
        let up = name.to_ascii_uppercase();
        self.expect('(', &format!("after {up}"))?;
        if name == "reduction" && self.group_prefix() {
            let g = self.expect_ident("a reduction group name")?;
            self.expect(':', "after the reduction group's name")?;
            let v = self.comma_list(|p| p.reduction())?;
            self.expect(')', "to close REDUCTION(")?;
            return Ok(Clause::GroupReduction(g, v));
        }
        if name == "remote_access" && self.group_prefix() {
            let g = self.expect_ident("a remote group name")?;
            self.expect(':', "after the remote group's name")?;
            let v = self.comma_list(|p| p.array_ref())?;
            self.expect(')', "to close REMOTE_ACCESS(")?;
            return Ok(Clause::GroupRemoteAccess(g, v));
        }
        if matches!(name.as_str(), "shadow_renew" | "across") && self.group_prefix()
        {
            return self.other_clause(start);
        }
        let clause = match name.as_str() {
            "reduction" => Clause::Reduction(self.comma_list(|p| p.reduction())?),
            "shadow_renew" => Clause::ShadowRenew(self.comma_list(|p| p.shadow_spec())?),
            "shadow_compute" => Clause::ShadowCompute(self.comma_list(|p| p.shadow_spec())?),
            "across" => Clause::Across(self.comma_list(|p| p.shadow_spec())?),
            "remote_access" => Clause::RemoteAccess(self.comma_list(|p| p.array_ref())?),
            // NEW is the older DVM name of PRIVATE
            "private" | "new" => Clause::Private(self.comma_list(|p| p.expect_ident("a variable name"))?),
            "tie" => Clause::Tie(self.comma_list(|p| p.array_ref())?),
            _ => {
                let pos = self.here();
                let v = self.comma_list(|p| p.expr())?;
                if v.len() > 3 {
                    return Err(err_at(pos, "CUDA_BLOCK takes one to three sizes"));
                }
                Clause::CudaBlock(v)
            }
        };
        self.expect(')', &format!("to close {up}("))?;
        Ok(clause)
    }

    /// Items separated by optional commas up to the end of the directive.
    fn item_list<T>(
        &mut self,
        what: &str,
        mut f: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut v = Vec::new();
        loop {
            if self.at_end() {
                return Ok(v);
            }
            if self.eat(',') && self.at_end() {
                return Err(self.error_here(&format!("expected {what} after ','")));
            }
            v.push(f(self)?);
        }
    }

    fn region_body(&mut self) -> PResult<DirectiveKind> {
        let mut clauses = Vec::new();
        let mut targets = Vec::new();
        let mut async_ = false;
        loop {
            if self.at_end() {
                break;
            }
            if self.eat(',') && self.at_end() {
                return Err(self.error_here("expected a REGION clause after ','"));
            }
            let pos = self.here();
            let Some(name) = self.ident() else {
                return Err(self.error_here(
                    "expected a REGION clause (IN, OUT, INOUT, LOCAL, INLOCAL, TARGETS, ASYNC)",
                ));
            };
            let kind = match name.as_str() {
                "in" => RegionClauseKind::In,
                "out" => RegionClauseKind::Out,
                "inout" => RegionClauseKind::InOut,
                "local" => RegionClauseKind::Local,
                "inlocal" => RegionClauseKind::InLocal,
                "targets" => {
                    targets.extend(self.paren_list("after TARGETS", |p| {
                        p.expect_ident("a target such as HOST or CUDA")
                    })?);
                    continue;
                }
                "async" => {
                    async_ = true;
                    continue;
                }
                _ => {
                    return Err(err_at(
                        pos,
                        format!("unknown REGION clause '{}'", name.to_ascii_uppercase()),
                    ))
                }
            };
            let up = name.to_ascii_uppercase();
            let list = self.paren_list(&format!("after {up}"), |p| p.array_ref())?;
            clauses.push((kind, list));
        }
        Ok(DirectiveKind::Region {
            clauses,
            targets,
            async_,
        })
    }

    fn optional_ref_list(&mut self) -> PResult<Vec<ArrayRef>> {
        if self.peek() != Some('(') {
            return Ok(Vec::new());
        }
        self.i += 1;
        if self.eat(')') {
            return Ok(Vec::new());
        }
        let v = self.comma_list(|p| p.array_ref())?;
        self.expect(')', "to close the list")?;
        Ok(v)
    }

    fn unknown_rest(&self, keyword: String, from: usize) -> DirectiveKind {
        DirectiveKind::Unknown {
            keyword,
            text: normalize(self.s.get(from..).unwrap_or_default()),
        }
    }

    // ----- whole directives -----

    fn parse_dvm(&mut self) -> PResult<DirectiveKind> {
        use DirectiveKind as K;
        if self.at_end() {
            return Err(err_at(
                self.end,
                "empty directive: expected a keyword such as PARALLEL or DISTRIBUTE",
            ));
        }
        let Some(kw) = DVM_KEYWORDS.iter().copied().find(|k| self.is_kw(k)) else {
            return match self.ident() {
                Some(word) => Ok(self.unknown_rest(word, self.i)),
                None => Err(self.error_here("expected a directive keyword")),
            };
        };
        self.eat_kw(kw);
        let after_kw = self.i;
        if kw == "END" {
            let kind = if self.eat_kw("REGION") {
                K::EndRegion
            } else if self.eat_kw("INTERVAL") {
                K::EndInterval
            } else if self.eat_kw("TASK_REGION") {
                K::EndTaskRegion
            } else if self.eat_kw("ON") {
                K::EndOn
            } else {
                return Ok(self.unknown_rest("end".to_string(), after_kw));
            };
            self.finish()?;
            return Ok(kind);
        }
        self.check_parens()?;
        let kind = match kw {
            "ENDREGION" => K::EndRegion,
            "ENDINTERVAL" => K::EndInterval,
            "BARRIER" => K::Barrier,
            "SHADOW_GROUP" => {
                let name = self.expect_ident("a shadow group name")?;
                self.expect('(', "after the shadow group's name")?;
                let arrays = self.comma_list(|p| p.shadow_spec())?;
                self.expect(')', "to close SHADOW_GROUP's list")?;
                K::ShadowGroup { name, arrays }
            }
            "SHADOW_START" => K::ShadowStart(self.expect_ident("a shadow group name")?),
            "SHADOW_WAIT" => K::ShadowWait(self.expect_ident("a shadow group name")?),
            "REDUCTION_GROUP" => K::ReductionGroup(self.comma_list(|p| p.expect_ident("a reduction group name"))?),
            "REDUCTION_START" => K::ReductionStart(self.expect_ident("a reduction group name")?),
            "REDUCTION_WAIT" => K::ReductionWait(self.expect_ident("a reduction group name")?),
            "DISTRIBUTE" => {
                let d = self.distribute_body()?;
                K::Distribute {
                    arrays: d.arrays,
                    formats: d.formats,
                    onto: d.onto,
                    dynamic: d.dynamic,
                }
            }
            "REDISTRIBUTE" => {
                let d = self.redistribute_body()?;
                if d.1 {
                    // kept as text: `, DYNAMIC` has no meaning here
                    return Ok(self.unknown_rest("redistribute".to_string(), after_kw));
                }
                d.0
            }
            "TASK" => K::Task(self.comma_list(|p| p.array_ref())?),
            "MAP" => {
                let task = self.array_ref_stop(&["ONTO"])?;
                self.expect_kw("ONTO", "after the task of MAP")?;
                let onto = self.array_ref()?;
                K::Map { task, onto }
            }
            "TASK_REGION" => {
                let name = self.expect_ident("a task array name")?;
                let clauses = if self.eat(',') {
                    self.comma_list(|p| p.clause())?
                } else {
                    Vec::new()
                };
                K::TaskRegion { name, clauses }
            }
            "ON" => K::On(self.array_ref()?),
            "REMOTE_GROUP" => K::RemoteGroup(self.comma_list(|p| p.expect_ident("a remote group name"))?),
            "PREFETCH" => K::Prefetch(self.expect_ident("a remote group name")?),
            "RESET" => K::Reset(self.expect_ident("a remote group name")?),
            "ALIGN" | "REALIGN" => {
                let (arrays, source, target) = self.align_body()?;
                if kw == "ALIGN" {
                    K::Align {
                        arrays,
                        source,
                        target,
                    }
                } else {
                    K::Realign {
                        arrays,
                        source,
                        target,
                    }
                }
            }
            "SHADOW" => K::Shadow(self.comma_list(|p| p.shadow_spec())?),
            "TEMPLATE" => {
                let name = self.expect_ident("a template name")?;
                let dims = if self.peek() == Some('(') {
                    self.paren_list("", |p| p.subscript())?
                } else {
                    Vec::new()
                };
                K::Template { name, dims }
            }
            "PROCESSORS" => {
                let name = self.expect_ident("a processor arrangement name")?;
                let dims = if self.peek() == Some('(') {
                    self.paren_list("", |p| p.expr())?
                } else {
                    Vec::new()
                };
                K::Processors { name, dims }
            }
            "DYNAMIC" => {
                if self.eat(',') {
                    self.expect_kw("DISTRIBUTE", "after DYNAMIC,")?;
                    let d = self.distribute_attrs(true)?;
                    K::Distribute {
                        arrays: d.arrays,
                        formats: d.formats,
                        onto: d.onto,
                        dynamic: d.dynamic,
                    }
                } else {
                    K::Dynamic(self.comma_list(|p| p.expect_ident("an array name"))?)
                }
            }
            "INHERIT" => {
                self.eat_dcolon();
                K::Inherit(self.comma_list(|p| p.expect_ident("a dummy array name"))?)
            }
            "PARALLEL" => {
                if self.peek() != Some('(') {
                    return Err(self.error_here(
                        "PARALLEL needs the list of loop variables, e.g. PARALLEL (I,J)",
                    ));
                }
                let vars = self.paren_list("", |p| p.expect_ident("a loop variable"))?;
                let on = if self.eat_kw("ON") {
                    Some(self.array_ref()?)
                } else {
                    None
                };
                let clauses = self.item_list("a clause", |p| p.clause())?;
                K::Parallel { vars, on, clauses }
            }
            "REGION" => self.region_body()?,
            "GET_ACTUAL" => K::GetActual(self.optional_ref_list()?),
            "ACTUAL" => K::Actual(self.optional_ref_list()?),
            "REMOTE_ACCESS" => {
                self.expect('(', "after REMOTE_ACCESS")?;
                let group = if self.group_prefix() {
                    let g = self.ident();
                    self.eat(':');
                    g
                } else {
                    None
                };
                let refs = self.comma_list(|p| p.array_ref())?;
                self.expect(')', "to close REMOTE_ACCESS(")?;
                K::RemoteAccess { group, refs }
            }
            "INTERVAL" => {
                if self.at_end() {
                    K::Interval(None)
                } else {
                    K::Interval(Some(self.expr()?))
                }
            }
            _ => return Err(err_at(self.end, "internal: unhandled directive keyword")),
        };
        self.finish()?;
        Ok(kind)
    }

    fn spf_unknown(&self) -> DirectiveKind {
        self.unknown_rest(SPF_UNKNOWN_KEYWORD.to_string(), 0)
    }

    fn parse_spf(&mut self) -> PResult<DirectiveKind> {
        if self.at_end() {
            return Err(err_at(
                self.end,
                "empty hint: expected ANALYSIS(...), PARALLEL, SEQUENTIAL, ...",
            ));
        }
        if !SPF_KEYWORDS.iter().any(|k| self.is_kw(k)) {
            return Ok(self.spf_unknown());
        }
        self.check_parens()?;
        let mut hints = Vec::new();
        loop {
            if self.at_end() {
                break;
            }
            if self.eat(',') && self.at_end() {
                return Err(self.error_here("expected a hint after ','"));
            }
            if self.eat_kw("ANALYSIS") {
                self.expect('(', "after ANALYSIS")?;
                loop {
                    if self.eat_kw("PRIVATE") {
                        hints.push(SpfHint::Private(self.paren_list("after PRIVATE", |p| {
                            p.expect_ident("a variable name")
                        })?));
                    } else if self.eat_kw("REDUCTION") {
                        hints.push(SpfHint::Reduction(
                            self.paren_list("after REDUCTION", |p| p.reduction())?,
                        ));
                    } else if self.peek_ident() {
                        return Ok(self.spf_unknown());
                    } else {
                        return Err(self.error_here(
                            "expected PRIVATE(...) or REDUCTION(...) inside ANALYSIS",
                        ));
                    }
                    if !self.eat(',') {
                        break;
                    }
                }
                self.expect(')', "to close ANALYSIS(")?;
            } else if self.eat_kw("PARALLEL") {
                if self.peek() == Some('(') {
                    return Ok(self.spf_unknown());
                }
                hints.push(SpfHint::Parallel);
            } else if self.eat_kw("SEQUENTIAL") {
                hints.push(SpfHint::Sequential);
            } else if self.eat_kw("NODISTRIBUTE") {
                hints.push(SpfHint::NoDistribute(
                    self.paren_list("after NODISTRIBUTE", |p| p.expect_ident("an array name"))?,
                ));
            } else if self.eat_kw("OWNED") {
                hints.push(SpfHint::Owned(self.paren_list("after OWNED", |p| p.expect_ident("an array name"))?));
            } else if self.eat_kw("DISTRIBUTE") {
                let array = self.expect_ident("an array name")?;
                let formats = self.formats()?;
                hints.push(SpfHint::Distribute { array, formats });
            } else if self.peek_ident() {
                return Ok(self.spf_unknown());
            } else {
                return Err(self.error_here("expected a hint"));
            }
        }
        Ok(DirectiveKind::Spf(hints))
    }
}

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

fn up(s: &str) -> String {
    s.to_ascii_uppercase()
}

fn join<T: fmt::Display>(items: &[T], sep: &str) -> String {
    items
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

fn join_names(names: &[String]) -> String {
    names.iter().map(|n| up(n)).collect::<Vec<_>>().join(",")
}

/// Where an expression is printed, to decide on parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Start of an expression: a leading minus is allowed.
    Top,
    AddRight,
    MulLeft,
    MulRight,
    NegOperand,
}

fn write_expr(e: &DExpr, ctx: Ctx, out: &mut String) {
    let paren = match e {
        DExpr::Int(n) => *n < 0 && ctx != Ctx::Top,
        DExpr::Neg(_) => ctx != Ctx::Top,
        DExpr::Bin(_, BinOp::Add | BinOp::Sub, _) => ctx != Ctx::Top,
        DExpr::Bin(_, BinOp::Mul | BinOp::Div, _) => ctx == Ctx::MulRight,
        _ => false,
    };
    if paren {
        out.push('(');
    }
    match e {
        DExpr::Int(n) => out.push_str(&n.to_string()),
        DExpr::Name(n) => out.push_str(&up(n)),
        DExpr::Neg(x) => {
            out.push('-');
            write_expr(x, Ctx::NegOperand, out);
        }
        DExpr::Bin(a, op, b) => match op {
            BinOp::Add | BinOp::Sub => {
                write_expr(a, Ctx::Top, out);
                out.push(if *op == BinOp::Add { '+' } else { '-' });
                write_expr(b, Ctx::AddRight, out);
            }
            BinOp::Mul | BinOp::Div => {
                write_expr(a, Ctx::MulLeft, out);
                out.push(if *op == BinOp::Mul { '*' } else { '/' });
                write_expr(b, Ctx::MulRight, out);
            }
        },
        DExpr::Call(n, args) => {
            out.push_str(&up(n));
            out.push('(');
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_expr(a, Ctx::Top, out);
            }
            out.push(')');
        }
    }
    if paren {
        out.push(')');
    }
}

impl fmt::Display for DExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_expr(self, Ctx::Top, &mut s);
        f.write_str(&s)
    }
}

fn opt_expr(e: &Option<DExpr>) -> String {
    e.as_ref().map(|e| e.to_string()).unwrap_or_default()
}

impl fmt::Display for Subscript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subscript::Expr(e) => write!(f, "{e}"),
            Subscript::Range(a, b) => write!(f, "{}:{}", opt_expr(a), opt_expr(b)),
            Subscript::Star => f.write_str("*"),
        }
    }
}

impl fmt::Display for ArrayRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&up(&self.name))?;
        if !self.subs.is_empty() {
            write!(f, "({})", join(&self.subs, ","))?;
        }
        Ok(())
    }
}

impl fmt::Display for DistFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistFormat::Block => f.write_str("BLOCK"),
            DistFormat::Star => f.write_str("*"),
            DistFormat::WgtBlock(a, n) => write!(f, "WGT_BLOCK({},{n})", up(a)),
            DistFormat::GenBlock(a) => write!(f, "GEN_BLOCK({})", up(a)),
            DistFormat::Indirect(a) => write!(f, "INDIRECT({})", up(a)),
            DistFormat::Derived(t) => write!(f, "DERIVED({})", upper_text(t)),
        }
    }
}

impl fmt::Display for ReductionOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReductionOp::Sum => "SUM",
            ReductionOp::Product => "PRODUCT",
            ReductionOp::Max => "MAX",
            ReductionOp::Min => "MIN",
            ReductionOp::And => "AND",
            ReductionOp::Or => "OR",
            ReductionOp::Eqv => "EQV",
            ReductionOp::Neqv => "NEQV",
            ReductionOp::MaxLoc => "MAXLOC",
            ReductionOp::MinLoc => "MINLOC",
        })
    }
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}", self.op, up(&self.var))?;
        for e in &self.loc {
            write!(f, ",{e}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for ShadowSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&up(&self.name))?;
        if !self.widths.is_empty() {
            let w: Vec<String> = self
                .widths
                .iter()
                .map(|(a, b)| format!("{}:{}", opt_expr(a), opt_expr(b)))
                .collect();
            write!(f, "({})", w.join(","))?;
        }
        if self.corner {
            f.write_str("(CORNER)")?;
        }
        Ok(())
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clause::Reduction(v) => write!(f, "REDUCTION({})", join(v, ",")),
            Clause::ShadowRenew(v) => write!(f, "SHADOW_RENEW({})", join(v, ",")),
            Clause::ShadowCompute(v) => write!(f, "SHADOW_COMPUTE({})", join(v, ",")),
            Clause::Across(v) => write!(f, "ACROSS({})", join(v, ",")),
            Clause::RemoteAccess(v) => write!(f, "REMOTE_ACCESS({})", join(v, ",")),
            Clause::Private(v) => write!(f, "PRIVATE({})", join_names(v)),
            Clause::CudaBlock(v) => write!(f, "CUDA_BLOCK({})", join(v, ",")),
            Clause::Tie(v) => write!(f, "TIE({})", join(v, ",")),
            Clause::GroupReduction(g, v) => write!(f, "REDUCTION({}:{})", g.to_uppercase(), join(v, ",")),
            Clause::GroupRemoteAccess(g, v) => write!(f, "REMOTE_ACCESS({}:{})", g.to_uppercase(), join(v, ",")),
            Clause::ShadowStart(g) => write!(f, "SHADOW_START {}", g.to_uppercase()),
            Clause::ShadowWait(g) => write!(f, "SHADOW_WAIT {}", g.to_uppercase()),
            Clause::Other(t) => f.write_str(&upper_text(t)),
        }
    }
}

impl fmt::Display for RegionClauseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RegionClauseKind::In => "IN",
            RegionClauseKind::Out => "OUT",
            RegionClauseKind::InOut => "INOUT",
            RegionClauseKind::Local => "LOCAL",
            RegionClauseKind::InLocal => "INLOCAL",
        })
    }
}

impl fmt::Display for SpfHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpfHint::Parallel => f.write_str("PARALLEL"),
            SpfHint::Sequential => f.write_str("SEQUENTIAL"),
            SpfHint::Private(v) => write!(f, "PRIVATE({})", join_names(v)),
            SpfHint::Reduction(v) => write!(f, "REDUCTION({})", join(v, ",")),
            SpfHint::NoDistribute(v) => write!(f, "NODISTRIBUTE({})", join_names(v)),
            SpfHint::Owned(v) => write!(f, "OWNED({})", join_names(v)),
            SpfHint::Distribute { array, formats } => {
                write!(f, "DISTRIBUTE {}({})", up(array), join(formats, ","))
            }
        }
    }
}

fn write_align(
    f: &mut fmt::Formatter<'_>,
    kw: &str,
    arrays: &[String],
    source: &[String],
    target: &ArrayRef,
) -> fmt::Result {
    let src = if source.is_empty() {
        String::new()
    } else {
        format!("({})", join_names(source))
    };
    if arrays.len() == 1 {
        write!(f, "{kw} {}{src} WITH {target}", up(&arrays[0]))
    } else {
        let src = if src.is_empty() {
            src
        } else {
            format!(" {src}")
        };
        write!(f, "{kw}{src} WITH {target} :: {}", join_names(arrays))
    }
}

fn write_distribute(
    f: &mut fmt::Formatter<'_>,
    kw: &str,
    arrays: &[String],
    formats: &[DistFormat],
    onto: &Option<String>,
    dynamic: bool,
) -> fmt::Result {
    let fmts = if formats.is_empty() {
        String::new()
    } else {
        format!("({})", join(formats, ","))
    };
    let onto = onto
        .as_ref()
        .map(|p| format!(" ONTO {}", up(p)))
        .unwrap_or_default();
    if arrays.len() == 1 && !dynamic {
        write!(f, "{kw} {}{fmts}{onto}", up(&arrays[0]))
    } else {
        let fmts = if fmts.is_empty() {
            fmts
        } else {
            format!(" {fmts}")
        };
        let dynamic = if dynamic { ", DYNAMIC" } else { "" };
        write!(f, "{kw}{fmts}{onto}{dynamic} :: {}", join_names(arrays))
    }
}

impl fmt::Display for DirectiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DirectiveKind as K;
        match self {
            K::Distribute {
                arrays,
                formats,
                onto,
                dynamic,
            } => write_distribute(f, "DISTRIBUTE", arrays, formats, onto, *dynamic),
            K::Redistribute { arrays, formats, onto } => {
                write_distribute(f, "REDISTRIBUTE", arrays, formats, &onto.as_ref().map(|t| t.to_string()), false)
            }
            K::Task(v) => write!(f, "TASK {}", join(v, ",")),
            K::Map { task, onto } => write!(f, "MAP {task} ONTO {onto}"),
            K::TaskRegion { name, clauses } => {
                write!(f, "TASK_REGION {}", up(name))?;
                for c in clauses {
                    write!(f, ", {c}")?;
                }
                Ok(())
            }
            K::EndTaskRegion => f.write_str("END TASK_REGION"),
            K::On(t) => write!(f, "ON {t}"),
            K::EndOn => f.write_str("END ON"),
            K::RemoteGroup(v) => write!(f, "REMOTE_GROUP {}", join_names(v)),
            K::Prefetch(g) => write!(f, "PREFETCH {}", up(g)),
            K::Reset(g) => write!(f, "RESET {}", up(g)),
            K::Align {
                arrays,
                source,
                target,
            } => write_align(f, "ALIGN", arrays, source, target),
            K::Realign {
                arrays,
                source,
                target,
            } => write_align(f, "REALIGN", arrays, source, target),
            K::Shadow(v) => write!(f, "SHADOW {}", join(v, ",")),
            K::Template { name, dims } => {
                write!(f, "TEMPLATE {}", up(name))?;
                if !dims.is_empty() {
                    write!(f, "({})", join(dims, ","))?;
                }
                Ok(())
            }
            K::Processors { name, dims } => {
                write!(f, "PROCESSORS {}", up(name))?;
                if !dims.is_empty() {
                    write!(f, "({})", join(dims, ","))?;
                }
                Ok(())
            }
            K::Dynamic(v) => write!(f, "DYNAMIC {}", join_names(v)),
            K::Inherit(v) => write!(f, "INHERIT {}", join_names(v)),
            K::Parallel { vars, on, clauses } => {
                write!(f, "PARALLEL ({})", join_names(vars))?;
                if let Some(t) = on {
                    write!(f, " ON {t}")?;
                }
                for (k, c) in clauses.iter().enumerate() {
                    if k == 0 && on.is_none() {
                        write!(f, " {c}")?;
                    } else {
                        write!(f, ", {c}")?;
                    }
                }
                Ok(())
            }
            K::Region {
                clauses,
                targets,
                async_,
            } => {
                let mut parts: Vec<String> = clauses
                    .iter()
                    .map(|(k, v)| format!("{k}({})", join(v, ",")))
                    .collect();
                if !targets.is_empty() {
                    parts.push(format!("TARGETS({})", join_names(targets)));
                }
                if *async_ {
                    parts.push("ASYNC".to_string());
                }
                f.write_str("REGION")?;
                if !parts.is_empty() {
                    write!(f, " {}", parts.join(", "))?;
                }
                Ok(())
            }
            K::EndRegion => f.write_str("END REGION"),
            K::GetActual(v) | K::Actual(v) => {
                f.write_str(if matches!(self, K::GetActual(_)) {
                    "GET_ACTUAL"
                } else {
                    "ACTUAL"
                })?;
                if !v.is_empty() {
                    write!(f, "({})", join(v, ","))?;
                }
                Ok(())
            }
            K::RemoteAccess { group, refs } => {
                let g = group
                    .as_ref()
                    .map(|g| format!("{}:", up(g)))
                    .unwrap_or_default();
                write!(f, "REMOTE_ACCESS({g}{})", join(refs, ","))
            }
            K::Interval(e) => match e {
                Some(e) => write!(f, "INTERVAL {e}"),
                None => f.write_str("INTERVAL"),
            },
            K::EndInterval => f.write_str("END INTERVAL"),
            K::Barrier => f.write_str("BARRIER"),
            K::ShadowGroup { name, arrays } => write!(f, "SHADOW_GROUP {}({})", name.to_uppercase(), join(arrays, ",")),
            K::ShadowStart(g) => write!(f, "SHADOW_START {}", g.to_uppercase()),
            K::ShadowWait(g) => write!(f, "SHADOW_WAIT {}", g.to_uppercase()),
            K::ReductionGroup(v) => write!(f, "REDUCTION_GROUP {}", join_names(v)),
            K::ReductionStart(g) => write!(f, "REDUCTION_START {}", g.to_uppercase()),
            K::ReductionWait(g) => write!(f, "REDUCTION_WAIT {}", g.to_uppercase()),
            K::Spf(hints) => {
                // Consecutive PRIVATE/REDUCTION hints share one ANALYSIS(...).
                let mut parts: Vec<String> = Vec::new();
                let mut analysis: Vec<String> = Vec::new();
                for h in hints {
                    match h {
                        SpfHint::Private(_) | SpfHint::Reduction(_) => analysis.push(h.to_string()),
                        _ => {
                            if !analysis.is_empty() {
                                parts.push(format!("ANALYSIS({})", analysis.join(", ")));
                                analysis.clear();
                            }
                            parts.push(h.to_string());
                        }
                    }
                }
                if !analysis.is_empty() {
                    parts.push(format!("ANALYSIS({})", analysis.join(", ")));
                }
                f.write_str(&parts.join(", "))
            }
            K::Unknown { keyword, text } => {
                if keyword == SPF_UNKNOWN_KEYWORD {
                    f.write_str(&upper_text(text))
                } else if text.is_empty() {
                    f.write_str(&up(keyword))
                } else {
                    write!(f, "{} {}", up(keyword), upper_text(text))
                }
            }
        }
    }
}

impl fmt::Display for Directive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DirectiveKind as K;

    fn n(s: &str) -> DExpr {
        DExpr::Name(s.to_string())
    }
    fn int(v: i64) -> DExpr {
        DExpr::Int(v)
    }
    fn bin(a: DExpr, op: BinOp, b: DExpr) -> DExpr {
        DExpr::Bin(Box::new(a), op, Box::new(b))
    }
    fn neg(a: DExpr) -> DExpr {
        DExpr::Neg(Box::new(a))
    }
    fn sx(e: DExpr) -> Subscript {
        Subscript::Expr(e)
    }
    fn aref(name: &str, subs: Vec<Subscript>) -> ArrayRef {
        ArrayRef {
            name: name.to_string(),
            subs,
        }
    }
    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }
    fn w(lo: i64, hi: i64) -> (Option<DExpr>, Option<DExpr>) {
        (Some(int(lo)), Some(int(hi)))
    }

    /// Parse a file that must hold exactly one well-formed directive.
    fn one(lines: &[&str], fixed: bool) -> Directive {
        let r = scan(lines, fixed);
        assert_eq!(r.len(), 1, "expected one directive in {lines:?}, got {r:?}");
        match r.into_iter().next() {
            Some(Ok(d)) => d,
            other => panic!("expected a directive from {lines:?}, got {other:?}"),
        }
    }
    fn kind(line: &str) -> DirectiveKind {
        one(&[line], false).kind
    }
    fn kind_fixed(line: &str) -> DirectiveKind {
        one(&[line], true).kind
    }
    /// Parse a file that must give exactly one error.
    fn error(lines: &[&str], fixed: bool) -> DirectiveError {
        let r = scan(lines, fixed);
        assert_eq!(r.len(), 1, "expected one result in {lines:?}, got {r:?}");
        match r.into_iter().next() {
            Some(Err(e)) => e,
            other => panic!("expected an error from {lines:?}, got {other:?}"),
        }
    }
    /// Free and fixed form of the same directive parse alike, and print back to `canon`.
    /// The fixed-form line is cut at column 72 and continued with `*` in column 6.
    fn check(free: &str, fixed: &str, expect: DirectiveKind, canon: &str) {
        let a = kind(free);
        assert_eq!(a, expect, "free form {free}");
        let chars: Vec<char> = fixed.chars().collect();
        let sentinel: String = chars[..5].iter().collect();
        let mut lines = vec![chars[..chars.len().min(72)].iter().collect::<String>()];
        for chunk in chars.get(72..).unwrap_or_default().chunks(66) {
            lines.push(format!("{sentinel}*{}", chunk.iter().collect::<String>()));
        }
        let refs: Vec<&str> = lines.iter().map(|l| l.as_str()).collect();
        let b = one(&refs, true).kind;
        assert_eq!(b, expect, "fixed form {lines:?}");
        assert_eq!(a.to_string(), canon);
        assert_eq!(
            kind(&format!("{} {}", a.sentinel(), canon)),
            expect,
            "reparse of {canon}"
        );
    }

    #[test]
    fn distribute_both_forms() {
        let e = K::Distribute {
            arrays: names(&["a"]),
            formats: vec![DistFormat::Block, DistFormat::Star],
            onto: None,
            dynamic: false,
        };
        check(
            "!DVM$ DISTRIBUTE A(BLOCK,*)",
            "CDVM$ DISTRIBUTE A(BLOCK, *)",
            e.clone(),
            "DISTRIBUTE A(BLOCK,*)",
        );
        assert_eq!(kind("   !DVM$ DISTRIBUTE (BLOCK, *) :: A"), e);
        let multi = K::Distribute {
            arrays: names(&["a", "b"]),
            formats: vec![DistFormat::Block, DistFormat::Block],
            onto: Some("p".into()),
            dynamic: true,
        };
        check(
            "!DVM$ DISTRIBUTE (BLOCK, BLOCK) ONTO P, DYNAMIC :: A, B",
            "*DVM$ DISTRIBUTE(BLOCK,BLOCK)ONTO P,DYNAMIC::A,B",
            multi.clone(),
            "DISTRIBUTE (BLOCK,BLOCK) ONTO P, DYNAMIC :: A,B",
        );
        assert_eq!(
            kind("!DVM$ DYNAMIC, DISTRIBUTE (BLOCK,BLOCK) ONTO P :: A, B"),
            multi
        );
        check(
            "!DVM$ DISTRIBUTE X(BLOCK) ONTO P",
            "CDVM$ DISTRIBUTEX(BLOCK)ONTOP",
            K::Distribute {
                arrays: names(&["x"]),
                formats: vec![DistFormat::Block],
                onto: Some("p".into()),
                dynamic: false,
            },
            "DISTRIBUTE X(BLOCK) ONTO P",
        );
        check(
            "!DVM$ DISTRIBUTE :: A, B",
            "CDVM$ DISTRIBUTE :: A, B",
            K::Distribute {
                arrays: names(&["a", "b"]),
                formats: vec![],
                onto: None,
                dynamic: false,
            },
            "DISTRIBUTE :: A,B",
        );
    }

    #[test]
    fn distribution_formats() {
        let e = K::Distribute {
            arrays: names(&["a"]),
            formats: vec![
                DistFormat::WgtBlock("wt".into(), n("nw")),
                DistFormat::GenBlock("m".into()),
                DistFormat::Indirect("map".into()),
                DistFormat::Derived("nb(k,1)".into()),
            ],
            onto: None,
            dynamic: false,
        };
        check(
            "!DVM$ DISTRIBUTE A(WGT_BLOCK(WT, NW), GEN_BLOCK(M), INDIRECT(MAP), DERIVED( NB(K, 1) ))",
            "CDVM$ DISTRIBUTE A(WGT_BLOCK(WT, NW), GEN_BLOCK(M), INDIRECT(MAP), DERIVED(NB(K,1)))",
            e,
            "DISTRIBUTE A(WGT_BLOCK(WT,NW),GEN_BLOCK(M),INDIRECT(MAP),DERIVED(NB(K,1)))",
        );
        // Derived text keeps a blank only between two name characters (free form).
        let d = kind("!DVM$ DISTRIBUTE (DERIVED((I) WITH ND( I ))) :: B");
        assert_eq!(
            d,
            K::Distribute {
                arrays: names(&["b"]),
                formats: vec![DistFormat::Derived("(i)with nd(i)".into())],
                onto: None,
                dynamic: false
            }
        );
        assert_eq!(d.to_string(), "DISTRIBUTE B(DERIVED((I)WITH ND(I)))");
    }

    #[test]
    fn align_both_forms() {
        let simple = K::Align {
            arrays: names(&["b"]),
            source: names(&["i", "j"]),
            target: aref(
                "a",
                vec![sx(bin(n("i"), BinOp::Add, int(1))), Subscript::Star],
            ),
        };
        check(
            "!DVM$ ALIGN B(I,J) WITH A(I+1,*)",
            "CDVM$ ALIGN B(I,J) WITH A(I + 1, *)",
            simple,
            "ALIGN B(I,J) WITH A(I+1,*)",
        );
        let combined = K::Align {
            arrays: names(&["b", "c"]),
            source: names(&["i", "*"]),
            target: aref("a", vec![sx(n("i"))]),
        };
        check(
            "!DVM$ ALIGN (I,*) WITH A(I) :: B, C",
            "CDVM$ ALIGN(I,*)WITHA(I)::B,C",
            combined,
            "ALIGN (I,*) WITH A(I) :: B,C",
        );
        check(
            "!DVM$ REALIGN B WITH A",
            "CDVM$ REALIGN B WITH A",
            K::Realign {
                arrays: names(&["b"]),
                source: vec![],
                target: aref("a", vec![]),
            },
            "REALIGN B WITH A",
        );
        check(
            "!DVM$ REALIGN B(I,J) WITH A(J,I)",
            "CDVM$ REALIGNB(I,J)WITHA(J,I)",
            K::Realign {
                arrays: names(&["b"]),
                source: names(&["i", "j"]),
                target: aref("a", vec![sx(n("j")), sx(n("i"))]),
            },
            "REALIGN B(I,J) WITH A(J,I)",
        );
    }

    #[test]
    fn shadow_and_declarations() {
        let e = K::Shadow(vec![
            ShadowSpec {
                name: "a".into(),
                widths: vec![w(1, 1), w(2, 2)],
                corner: false,
            },
            ShadowSpec {
                name: "b".into(),
                widths: vec![w(1, 1)],
                corner: false,
            },
            ShadowSpec {
                name: "c".into(),
                widths: vec![],
                corner: false,
            },
        ]);
        check(
            "!DVM$ SHADOW A(1:1, 2:2), B(1), C",
            "CDVM$ SHADOW A(1:1, 2:2), B(1), C",
            e,
            "SHADOW A(1:1,2:2),B(1:1),C",
        );
        check(
            "!DVM$ TEMPLATE T(100, 0:N+1)",
            "CDVM$ TEMPLATE T(100, 0:N+1)",
            K::Template {
                name: "t".into(),
                dims: vec![
                    sx(int(100)),
                    Subscript::Range(Some(int(0)), Some(bin(n("n"), BinOp::Add, int(1)))),
                ],
            },
            "TEMPLATE T(100,0:N+1)",
        );
        check(
            "!DVM$ PROCESSORS P(NUMBER_OF_PROCESSORS())",
            "CDVM$ PROCESSORS P(NUMBER_OF_PROCESSORS())",
            K::Processors {
                name: "p".into(),
                dims: vec![DExpr::Call("number_of_processors".into(), vec![])],
            },
            "PROCESSORS P(NUMBER_OF_PROCESSORS())",
        );
        check(
            "!DVM$ DYNAMIC A, B",
            "CDVM$ DYNAMIC A,B",
            K::Dynamic(names(&["a", "b"])),
            "DYNAMIC A,B",
        );
        check(
            "!DVM$ REDISTRIBUTE A(*, BLOCK)",
            "CDVM$ REDISTRIBUTE A(*,BLOCK)",
            K::Redistribute {
                arrays: names(&["a"]),
                formats: vec![DistFormat::Star, DistFormat::Block],
                onto: None,
            },
            "REDISTRIBUTE A(*,BLOCK)",
        );
        check(
            "!DVM$ REDISTRIBUTE (BLOCK) :: A, B",
            "CDVM$ REDISTRIBUTE (BLOCK) :: A, B",
            K::Redistribute {
                arrays: names(&["a", "b"]),
                formats: vec![DistFormat::Block],
                onto: None,
            },
            "REDISTRIBUTE (BLOCK) :: A,B",
        );
    }

    #[test]
    fn parallel_with_every_clause() {
        let e = K::Parallel {
            vars: names(&["j", "i"]),
            on: Some(aref("a", vec![sx(n("i")), sx(n("j"))])),
            clauses: vec![
                Clause::Reduction(vec![
                    Reduction {
                        op: ReductionOp::Max,
                        var: "eps".into(),
                        loc: vec![],
                    },
                    Reduction {
                        op: ReductionOp::Sum,
                        var: "s".into(),
                        loc: vec![],
                    },
                    Reduction {
                        op: ReductionOp::MaxLoc,
                        var: "x".into(),
                        loc: vec![n("loc"), int(2)],
                    },
                    Reduction {
                        op: ReductionOp::Neqv,
                        var: "l".into(),
                        loc: vec![],
                    },
                ]),
                Clause::ShadowRenew(vec![
                    ShadowSpec {
                        name: "a".into(),
                        widths: vec![],
                        corner: false,
                    },
                    ShadowSpec {
                        name: "b".into(),
                        widths: vec![w(1, 1), w(0, 0)],
                        corner: false,
                    },
                    ShadowSpec {
                        name: "c".into(),
                        widths: vec![],
                        corner: true,
                    },
                    ShadowSpec {
                        name: "d".into(),
                        widths: vec![w(1, 1)],
                        corner: true,
                    },
                ]),
                Clause::Across(vec![ShadowSpec {
                    name: "a".into(),
                    widths: vec![w(1, 0), (None, Some(int(1)))],
                    corner: false,
                }]),
                Clause::RemoteAccess(vec![aref(
                    "b",
                    vec![Subscript::Range(None, None), sx(int(1))],
                )]),
                Clause::Private(names(&["t", "k"])),
                Clause::CudaBlock(vec![int(32), int(4)]),
                Clause::Tie(vec![aref("a", vec![sx(n("i")), sx(n("j"))])]),
                Clause::Other("stage(2)".into()),
            ],
        };
        let canon =
            "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS),SUM(S),MAXLOC(X,LOC,2),NEQV(L)), \
SHADOW_RENEW(A,B(1:1,0:0),C(CORNER),D(1:1)(CORNER)), ACROSS(A(1:0,:1)), REMOTE_ACCESS(B(:,1)), \
PRIVATE(T,K), CUDA_BLOCK(32,4), TIE(A(I,J)), STAGE(2)";
        check(
            "!DVM$ PARALLEL (J, I) ON A(I, J), REDUCTION(MAX(EPS), SUM(S), MAXLOC(X, LOC, 2), NEQV(L)), SHADOW_RENEW(A, B(1:1,0:0), C(CORNER), D(1)(CORNER)), ACROSS(A(1:0, :1)), REMOTE_ACCESS(B(:,1)), PRIVATE(T, K), CUDA_BLOCK(32, 4), TIE(A(I,J)), STAGE(2)",
            "CDVM$ PARALLEL(J,I)ONA(I,J),REDUCTION(MAX(EPS),SUM(S),MAXLOC(X,LOC,2),NEQV(L)),SHADOW_RENEW(A,B(1:1,0:0),C(CORNER),D(1)(CORNER)),ACROSS(A(1:0,:1)),REMOTE_ACCESS(B(:,1)),PRIVATE(T,K),CUDA_BLOCK(32,4),TIE(A(I,J)),STAGE(2)",
            e,
            canon,
        );
    }

    #[test]
    fn shadow_compute_with_widths_is_ours_and_without_them_stays_dvms() {
        let d = kind("!DVM$ PARALLEL (J) ON U(I,J), SHADOW_COMPUTE(U(0:0, 1:2))");
        let DirectiveKind::Parallel { clauses, .. } = &d else { panic!("{d:?}") };
        assert!(matches!(&clauses[..], [Clause::ShadowCompute(v)] if v.len() == 1 && v[0].name == "u" && v[0].widths.len() == 2), "{clauses:?}");
        assert_eq!(d.to_string(), "PARALLEL (J) ON U(I,J), SHADOW_COMPUTE(U(0:0,1:2))");
        let d = kind("!DVM$ PARALLEL (J) ON U(I,J), SHADOW_COMPUTE");
        let DirectiveKind::Parallel { clauses, .. } = &d else { panic!("{d:?}") };
        assert!(matches!(&clauses[..], [Clause::Other(t)] if t == "shadow_compute"), "{clauses:?}");
    }

    #[test]
    fn parallel_examples_from_the_brief_print_exactly() {
        let d =
            kind("!DVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), SHADOW_RENEW(A(1:1,1:1))");
        assert_eq!(
            d.to_string(),
            "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), SHADOW_RENEW(A(1:1,1:1))"
        );
        let d = kind("!dvm$ parallel (i,j,k) reduction(max(eps))");
        assert_eq!(
            d,
            K::Parallel {
                vars: names(&["i", "j", "k"]),
                on: None,
                clauses: vec![Clause::Reduction(vec![Reduction {
                    op: ReductionOp::Max,
                    var: "eps".into(),
                    loc: vec![]
                }])],
            }
        );
        assert_eq!(d.to_string(), "PARALLEL (I,J,K) REDUCTION(MAX(EPS))");
    }

    /// The array reference of `ON X`.
    fn kind_ref(x: &str) -> ArrayRef {
        match kind(&format!("!DVM$ ON {x}")) {
            K::On(r) => r,
            other => panic!("{other:?}"),
        }
    }

    /// Free and fixed form parse alike, print as `canon`, and `canon` parses back the same.
    fn same(free: &str, fixed: &str, canon: &str) -> DirectiveKind {
        let a = kind(free);
        assert_eq!(a, kind_fixed(fixed), "{free} / {fixed}");
        assert_eq!(a.to_string(), canon);
        assert_eq!(kind(&format!("!DVM$ {canon}")), a, "reparse of {canon}");
        a
    }

    #[test]
    fn task_parallelism_directives() {
        let t = same("!DVM$ TASK MB(2), TB(N)", "CDVM$ TASK MB( 2 ),TB(N)", "TASK MB(2),TB(N)");
        assert!(matches!(&t, K::Task(v) if v.len() == 2 && v[1].name == "tb"));
        let m = same("!DVM$ MAP MB(1) ONTO P(LP(1):HP(1))", "CDVM$ MAP MB( 1 ) ONTO P( LP(1) : HP(1))", "MAP MB(1) ONTO P(LP(1):HP(1))");
        assert!(matches!(&m, K::Map { task, onto } if task.name == "mb" && onto.name == "p"));
        let r = same("!DVM$ REDISTRIBUTE A(*, BLOCK) ONTO MB(1)", "CDVM$ REDISTRIBUTE A( *, BLOCK ) ONTO MB( 1 )", "REDISTRIBUTE A(*,BLOCK) ONTO MB(1)");
        let _ = r;
        let r = kind("!DVM$ REDISTRIBUTE A1(*,BLOCK) ONTO MB(1)");
        assert!(matches!(&r, K::Redistribute { arrays, formats, onto: Some(o) }
            if arrays == &names(&["a1"]) && formats == &vec![DistFormat::Star, DistFormat::Block] && o.name == "mb"));
        let r = same("!DVM$ REDISTRIBUTE (BLOCK) ONTO P :: A, B", "CDVM$ REDISTRIBUTE (BLOCK) ONTO P :: A,B", "REDISTRIBUTE (BLOCK) ONTO P :: A,B");
        assert!(matches!(&r, K::Redistribute { arrays, onto: Some(o), .. } if arrays.len() == 2 && o.name == "p"));
        assert_eq!(kind("!DVM$ REDISTRIBUTE A(BLOCK)"), K::Redistribute { arrays: names(&["a"]), formats: vec![DistFormat::Block], onto: None });
        same("!DVM$ TASK_REGION MB", "CDVM$ TASK_REGION MB", "TASK_REGION MB");
        let tr = same("!DVM$ TASK_REGION MB, REDUCTION(MAX(E))", "CDVM$ TASK_REGION MB,REDUCTION(MAX(E))", "TASK_REGION MB, REDUCTION(MAX(E))");
        assert!(matches!(&tr, K::TaskRegion { name, clauses } if name == "mb" && clauses.len() == 1));
        assert_eq!(same("!DVM$ ON MB(2)", "CDVM$ ON MB( 2 )", "ON MB(2)"), K::On(kind_ref("MB(2)")));
        assert_eq!(same("!DVM$ END ON", "CDVM$ END ON", "END ON"), K::EndOn);
        assert_eq!(kind_fixed("CDVM$ ENDON"), K::EndOn);
        assert_eq!(same("!DVM$ END TASK_REGION", "CDVM$ END  TASK_REGION", "END TASK_REGION"), K::EndTaskRegion);
        assert_eq!(same("!DVM$ REMOTE_GROUP BOUND, G2", "CDVM$ REMOTE_GROUP BOUND,G2", "REMOTE_GROUP BOUND,G2"), K::RemoteGroup(names(&["bound", "g2"])));
        assert_eq!(same("!DVM$ PREFETCH BOUND", "CDVM$ PREFETCH   BOUND", "PREFETCH BOUND"), K::Prefetch("bound".into()));
        assert_eq!(same("!DVM$ RESET BOUND", "CDVM$ RESET BOUND", "RESET BOUND"), K::Reset("bound".into()));
        let p = same(
            "!DVM$ PARALLEL (J) ON A1(N1+1, J), REMOTE_ACCESS(BOUND : B2(2, J))",
            "CDVM$ PARALLEL ( J ) ON A1(N1+1, J), REMOTE_ACCESS (BOUND : B2( 2, J ) )",
            "PARALLEL (J) ON A1(N1+1,J), REMOTE_ACCESS(BOUND:B2(2,J))",
        );
        assert!(matches!(&p, K::Parallel { clauses, .. } if clauses == &vec![Clause::GroupRemoteAccess("bound".into(), vec![kind_ref("B2(2,J)")])]));
        // a loop over tasks is a PARALLEL directive whose ON names the task array
        assert!(matches!(kind("!DVM$ PARALLEL (I) ON MB(I)"), K::Parallel { on: Some(o), .. } if o.name == "mb"));
        // errors name the place
        assert!(error(&["!DVM$ MAP MB(1) P(1)"], false).message.contains("ONTO"));
        assert!(error(&["!DVM$ TASK_REGION"], false).message.contains("task array"));
    }

    #[test]
    fn clauses_with_group_names_are_kept_as_text() {
        let d =
            kind("!DVM$ PARALLEL (I) ON A(I), REDUCTION(RG : SUM(S)), REMOTE_ACCESS(GR: B(I+1))");
        let sum = Reduction { op: ReductionOp::Sum, var: "s".into(), loc: vec![] };
        match d {
            K::Parallel { clauses, .. } => assert_eq!(
                clauses,
                vec![
                    Clause::GroupReduction("rg".into(), vec![sum]),
                    Clause::GroupRemoteAccess("gr".into(), vec![kind_ref("B(I+1)")])
                ]
            ),
            other => panic!("{other:?}"),
        }
    }

    /// The asynchronous groups of the DVM system's examples (jacas.fdv), in fixed form where
    /// the group's name is glued to the keyword, print back in free form.
    #[test]
    fn shadow_and_reduction_groups() {
        let max = Reduction { op: ReductionOp::Max, var: "eps".into(), loc: vec![] };
        check("!DVM$ SHADOW_GROUP SA(A, B(1:2))", "CDVM$ SHADOW_GROUPSA(A,B(1:2))", K::ShadowGroup {
            name: "sa".into(),
            arrays: vec![
                ShadowSpec { name: "a".into(), widths: vec![], corner: false },
                ShadowSpec { name: "b".into(), widths: vec![(Some(DExpr::Int(1)), Some(DExpr::Int(2)))], corner: false },
            ],
        }, "SHADOW_GROUP SA(A,B(1:2))");
        check("!DVM$ SHADOW_START SA", "CDVM$ SHADOW_STARTSA", K::ShadowStart("sa".into()), "SHADOW_START SA");
        check("!DVM$ SHADOW_WAIT SA", "CDVM$ SHADOW_WAIT SA", K::ShadowWait("sa".into()), "SHADOW_WAIT SA");
        check("!DVM$ REDUCTION_GROUP REPS", "CDVM$ REDUCTION_GROUPREPS", K::ReductionGroup(vec!["reps".into()]), "REDUCTION_GROUP REPS");
        check("!DVM$ REDUCTION_START REPS", "CDVM$ REDUCTION_START REPS", K::ReductionStart("reps".into()), "REDUCTION_START REPS");
        check("!DVM$ REDUCTION_WAIT REPS", "CDVM$ REDUCTION_WAITREPS", K::ReductionWait("reps".into()), "REDUCTION_WAIT REPS");
        match kind("!DVM$ PARALLEL (J,I) ON A(I,J), SHADOW_START SA, REDUCTION(REPS:MAX(EPS))") {
            K::Parallel { clauses, .. } => assert_eq!(clauses, vec![Clause::ShadowStart("sa".into()), Clause::GroupReduction("reps".into(), vec![max])]),
            other => panic!("{other:?}"),
        }
        match kind("!DVM$ PARALLEL (J,I) ON B(I,J), SHADOW_WAIT SA") {
            K::Parallel { clauses, .. } => assert_eq!(clauses, vec![Clause::ShadowWait("sa".into())]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn region_and_data_directives() {
        let e = K::Region {
            clauses: vec![
                (
                    RegionClauseKind::In,
                    vec![aref("a", vec![]), aref("eps", vec![])],
                ),
                (
                    RegionClauseKind::Out,
                    vec![aref(
                        "b",
                        vec![
                            Subscript::Range(Some(int(2)), Some(bin(n("l"), BinOp::Sub, int(1)))),
                            Subscript::Range(Some(int(2)), Some(bin(n("l"), BinOp::Sub, int(1)))),
                        ],
                    )],
                ),
                (RegionClauseKind::InOut, vec![aref("c", vec![])]),
                (RegionClauseKind::Local, vec![aref("d", vec![])]),
                (RegionClauseKind::InLocal, vec![aref("e", vec![])]),
            ],
            targets: names(&["host", "cuda"]),
            async_: true,
        };
        check(
            "!DVM$ REGION IN(A, EPS), OUT(B(2:L-1, 2:L-1)), INOUT(C), LOCAL(D), INLOCAL(E), TARGETS(HOST, CUDA), ASYNC",
            "CDVM$ REGIONIN(A,EPS),OUT(B(2:L-1,2:L-1)),INOUT(C),LOCAL(D),INLOCAL(E),TARGETS(HOST,CUDA),ASYNC",
            e,
            "REGION IN(A,EPS), OUT(B(2:L-1,2:L-1)), INOUT(C), LOCAL(D), INLOCAL(E), TARGETS(HOST,CUDA), ASYNC",
        );
        check(
            "!DVM$ REGION",
            "CDVM$ REGION",
            K::Region {
                clauses: vec![],
                targets: vec![],
                async_: false,
            },
            "REGION",
        );
        check(
            "!DVM$ END REGION",
            "CDVM$ ENDREGION",
            K::EndRegion,
            "END REGION",
        );
        assert_eq!(kind("!DVM$ ENDREGION"), K::EndRegion);
        check(
            "!DVM$ GET_ACTUAL(A, EPS)",
            "CDVM$ GET_ACTUAL(A,EPS)",
            K::GetActual(vec![aref("a", vec![]), aref("eps", vec![])]),
            "GET_ACTUAL(A,EPS)",
        );
        check(
            "!DVM$ GET_ACTUAL",
            "CDVM$ GET_ACTUAL",
            K::GetActual(vec![]),
            "GET_ACTUAL",
        );
        check(
            "!DVM$ ACTUAL(A(1,:))",
            "CDVM$ ACTUAL(A(1,:))",
            K::Actual(vec![aref(
                "a",
                vec![sx(int(1)), Subscript::Range(None, None)],
            )]),
            "ACTUAL(A(1,:))",
        );
        check("!DVM$ ACTUAL", "CDVM$ ACTUAL", K::Actual(vec![]), "ACTUAL");
        check(
            "!DVM$ REMOTE_ACCESS(GRP: B(:,1))",
            "CDVM$ REMOTE_ACCESS(GRP:B(:,1))",
            K::RemoteAccess {
                group: Some("grp".into()),
                refs: vec![aref("b", vec![Subscript::Range(None, None), sx(int(1))])],
            },
            "REMOTE_ACCESS(GRP:B(:,1))",
        );
        check(
            "!DVM$ REMOTE_ACCESS(B(N))",
            "CDVM$ REMOTE_ACCESS(B(N))",
            K::RemoteAccess {
                group: None,
                refs: vec![aref("b", vec![sx(n("n"))])],
            },
            "REMOTE_ACCESS(B(N))",
        );
        check(
            "!DVM$ INTERVAL 5",
            "CDVM$ INTERVAL 5",
            K::Interval(Some(int(5))),
            "INTERVAL 5",
        );
        check(
            "!DVM$ INTERVAL",
            "CDVM$ INTERVAL",
            K::Interval(None),
            "INTERVAL",
        );
        check(
            "!DVM$ END INTERVAL",
            "CDVM$ END INTERVAL",
            K::EndInterval,
            "END INTERVAL",
        );
        check("!DVM$ BARRIER", "CDVM$ BARRIER", K::Barrier, "BARRIER");
    }

    #[test]
    fn spf_hints() {
        let e = K::Spf(vec![
            SpfHint::Private(names(&["t"])),
            SpfHint::Reduction(vec![Reduction {
                op: ReductionOp::Max,
                var: "e".into(),
                loc: vec![],
            }]),
        ]);
        check(
            "!$SPF ANALYSIS(PRIVATE(T), REDUCTION(MAX(E)))",
            "C$SPF ANALYSIS(PRIVATE(T),REDUCTION(MAX(E)))",
            e,
            "ANALYSIS(PRIVATE(T), REDUCTION(MAX(E)))",
        );
        check(
            "!$SPF PARALLEL",
            "*$SPF PARALLEL",
            K::Spf(vec![SpfHint::Parallel]),
            "PARALLEL",
        );
        check(
            "!$spf sequential",
            "c$spf sequential",
            K::Spf(vec![SpfHint::Sequential]),
            "SEQUENTIAL",
        );
        check(
            "!$SPF NODISTRIBUTE(A, B)",
            "C$SPF NODISTRIBUTE(A,B)",
            K::Spf(vec![SpfHint::NoDistribute(names(&["a", "b"]))]),
            "NODISTRIBUTE(A,B)",
        );
        check(
            "!$SPF OWNED(TV, TW)",
            "C$SPF OWNED(TV,TW)",
            K::Spf(vec![SpfHint::Owned(names(&["tv", "tw"]))]),
            "OWNED(TV,TW)",
        );
        check(
            "!$SPF DISTRIBUTE A(BLOCK,*)",
            "C$SPF DISTRIBUTEA(BLOCK,*)",
            K::Spf(vec![SpfHint::Distribute {
                array: "a".into(),
                formats: vec![DistFormat::Block, DistFormat::Star],
            }]),
            "DISTRIBUTE A(BLOCK,*)",
        );
        assert_eq!(kind("!$SPF PARALLEL").sentinel(), "!$SPF");
        assert_eq!(kind("!DVM$ REGION").sentinel(), "!DVM$");
    }

    #[test]
    fn unknown_keywords_are_kept_not_errors() {
        assert_eq!(kind("!DVM$ INHERIT A, B"), K::Inherit(names(&["a", "b"])));
        assert_eq!(kind("!DVM$ INHERIT :: A"), K::Inherit(names(&["a"])));
        assert_eq!(kind_fixed("CDVM$ INHERIT A"), K::Inherit(names(&["a"])));
        assert_eq!(
            kind("!DVM$ NEW_VALUE A, B"),
            K::Unknown {
                keyword: "new_value".into(),
                text: "a,b".into()
            }
        );
        assert_eq!(
            kind("!DVM$ END HOST_SECTION"),
            K::Unknown {
                keyword: "end".into(),
                text: "host_section".into()
            }
        );
        assert_eq!(
            kind("!DVM$ NEW_VALUE"),
            K::Unknown {
                keyword: "new_value".into(),
                text: "".into()
            }
        );
        // An unknown directive with odd parentheses is still not our business.
        assert_eq!(
            kind("!DVM$ CONSISTENT (("),
            K::Unknown {
                keyword: "consistent".into(),
                text: "((".into()
            }
        );
        let u = kind("!$SPF TRANSFORM(FISSION(I))");
        assert_eq!(
            u,
            K::Unknown {
                keyword: SPF_UNKNOWN_KEYWORD.into(),
                text: "transform(fission(i))".into()
            }
        );
        assert_eq!(u.sentinel(), "!$SPF");
        assert_eq!(u.to_string(), "TRANSFORM(FISSION(I))");
        assert!(matches!(
            kind("!$SPF PARALLEL(SHADOW(A(1:1)))"),
            K::Unknown { .. }
        ));
        assert!(matches!(
            kind("!$SPF ANALYSIS(PROCESS_PRIVATE(X))"),
            K::Unknown { .. }
        ));
        let r = kind("!DVM$ REDISTRIBUTE (BLOCK), DYNAMIC :: A");
        assert_eq!(
            r,
            K::Unknown {
                keyword: "redistribute".into(),
                text: "(block),dynamic::a".into()
            }
        );
        assert_eq!(kind(&format!("!DVM$ {r}")), r);
        // Quoted text keeps its case and blanks.
        let q = kind("!DVM$ IO_MODE 'Keep  This'");
        assert_eq!(
            q,
            K::Unknown {
                keyword: "io_mode".into(),
                text: "'Keep  This'".into()
            }
        );
        assert_eq!(q.to_string(), "IO_MODE 'Keep  This'");
    }

    #[test]
    fn fixed_form_continuation() {
        let lines = [
            "CDVM$ PARALLEL (J,I) ON A(I,J),",
            "CDVM$*  REDUCTION(MAX(EPS)),",
            "cdvm$1  SHADOW_RENEW(A)",
        ];
        let d = one(&lines, true);
        assert_eq!((d.line, d.end_line), (1, 3));
        assert_eq!(
            d.to_string(),
            "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), SHADOW_RENEW(A)"
        );
        // A token split over lines; blanks up to column 72 do not matter.
        let lines = [
            "      X = 1",
            "*DVM$ PARALLEL (I) ON A(I), REDUC",
            "*DVM$&TION(SUM(S))",
            "      Y = 2",
        ];
        let d = one(&lines, true);
        assert_eq!((d.line, d.end_line), (2, 3));
        assert_eq!(d.to_string(), "PARALLEL (I) ON A(I), REDUCTION(SUM(S))");
        // Column 6 '0' or blank starts a new directive.
        let r = scan(&["CDVM$ REGION", "CDVM$0END REGION"], true);
        assert_eq!(
            r,
            vec![
                Ok(Directive {
                    line: 1,
                    end_line: 1,
                    kind: K::Region {
                        clauses: vec![],
                        targets: vec![],
                        async_: false
                    }
                }),
                Ok(Directive {
                    line: 2,
                    end_line: 2,
                    kind: K::EndRegion
                }),
            ]
        );
        // Comment lines may sit between a directive and its continuation.
        let d = one(
            &[
                "CDVM$ DISTRIBUTE A(BLOCK,",
                "C     a comment",
                "CDVM$*BLOCK)",
            ],
            true,
        );
        assert_eq!(d.to_string(), "DISTRIBUTE A(BLOCK,BLOCK)");
        assert_eq!(d.end_line, 3);
    }

    #[test]
    fn free_form_continuation() {
        // `&` at the end, `!DVM$&` on the next line.
        let d = one(
            &[
                "!DVM$ PARALLEL (J,I) ON A(I,J), &",
                "!DVM$& REDUCTION(MAX(EPS))",
            ],
            false,
        );
        assert_eq!((d.line, d.end_line), (1, 2));
        assert_eq!(
            d.to_string(),
            "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))"
        );
        // Plain `!DVM$` on the continuation line, indented, with comments around.
        let d = one(
            &[
                "  x = 1",
                "    !DVM$ REGION IN(A), &  ! inputs",
                "",
                "    ! the outputs",
                "    !DVM$   OUT(B)",
                "  y = 2",
            ],
            false,
        );
        assert_eq!((d.line, d.end_line), (2, 5));
        assert_eq!(d.to_string(), "REGION IN(A), OUT(B)");
        // A keyword split with `&` ... `&`.
        let d = one(
            &["!DVM$ PARALLEL (I) ON A(I), SHADOW_&", "!DVM$&RENEW(A)"],
            false,
        );
        assert_eq!(d.to_string(), "PARALLEL (I) ON A(I), SHADOW_RENEW(A)");
        // SPF hints continue the same way.
        let d = one(
            &["!$SPF ANALYSIS(PRIVATE(T), &", "!$SPF&  REDUCTION(SUM(S)))"],
            false,
        );
        assert_eq!(d.to_string(), "ANALYSIS(PRIVATE(T), REDUCTION(SUM(S)))");
    }

    #[test]
    fn continuation_errors() {
        let e = error(&["!DVM$ PARALLEL (I) ON A(I), &", "      X = 1"], false);
        assert_eq!((e.line, e.col), (1, 29));
        let e = error(&["!DVM$ REGION &"], false);
        assert_eq!((e.line, e.col), (1, 14));
        let e = error(&["x = 1", "  !DVM$& OUT(B)"], false);
        assert_eq!((e.line, e.col), (2, 8));
        let e = error(&["      X = 1", "CDVM$*OUT(B)"], true);
        assert_eq!((e.line, e.col), (2, 6));
        // A DVM directive is not continued by an SPF line.
        let r = scan(&["!DVM$ REGION &", "!$SPF PARALLEL"], false);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0].as_ref().map_err(|e| (e.line, e.col)).err(),
            Some((1, 14))
        );
        assert_eq!(
            r[1].as_ref().map(|d| d.kind.clone()).ok(),
            Some(K::Spf(vec![SpfHint::Parallel]))
        );
    }

    #[test]
    fn case_insensitive_everywhere() {
        let upper = kind("!DVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), PRIVATE(T)");
        for l in [
            "!dvm$ parallel (j,i) on a(i,j), reduction(max(eps)), private(t)",
            "!Dvm$ Parallel (J,i) On a(I,j), Reduction(Max(Eps)), Private(T)",
        ] {
            assert_eq!(kind(l), upper);
        }
        assert_eq!(
            kind_fixed("cdvm$ parallel (j,i) on a(i,j), reduction(max(eps)), private(t)"),
            upper
        );
        assert_eq!(
            kind_fixed("!dvm$ parallel(j,i)ona(i,j),reduction(max(eps)),private(t)"),
            upper
        );
    }

    #[test]
    fn whitespace_rules() {
        let e = kind("!DVM$ PARALLEL(J,I)ON A(I,J),REDUCTION(MAX(EPS))");
        assert_eq!(
            kind("!DVM$   PARALLEL ( J , I )   ON  A ( I , J ) , REDUCTION ( MAX ( EPS ) )"),
            e
        );
        // Free form: blanks separate keywords from names.
        assert!(matches!(
            kind("!DVM$ DISTRIBUTEA(BLOCK)"),
            K::Unknown { .. }
        ));
        // Fixed form: blanks are insignificant everywhere.
        assert_eq!(
            kind_fixed("CDVM$ PARAL LEL (J,I) O N A(I,J), REDUC TION(MAX(E PS))"),
            e
        );
        assert_eq!(
            kind_fixed("CDVM$ SHADOW _RENEW"),
            K::Unknown {
                keyword: "shadow_renew".into(),
                text: "".into()
            }
        );
        let d = kind_fixed("CDVM$ PARALLEL (I) ON A(I), SHADOW _RENEW(A)");
        assert_eq!(d.to_string(), "PARALLEL (I) ON A(I), SHADOW_RENEW(A)");
    }

    #[test]
    fn fixed_form_ignores_text_after_column_72() {
        let mut line = String::from("!DVM$ SHADOW A(1:1)");
        while line.len() < 72 {
            line.push(' ');
        }
        line.push_str(",B(9)  sequence number");
        assert_eq!(
            kind_fixed(&line),
            K::Shadow(vec![ShadowSpec {
                name: "a".into(),
                widths: vec![w(1, 1)],
                corner: false
            }])
        );
        // In free form the same line is an error: the text counts.
        assert!(scan(&[line.as_str()], false)[0].is_err());
    }

    #[test]
    fn trailing_comments_are_ignored() {
        assert_eq!(kind("!DVM$ INTERVAL 7 ! timing"), K::Interval(Some(int(7))));
        assert_eq!(
            kind_fixed("CDVM$ INTERVAL 7 ! timing"),
            K::Interval(Some(int(7)))
        );
    }

    #[test]
    fn quoted_text_goes_on_over_continuation_lines() {
        let expect = K::Unknown {
            keyword: "io_mode".into(),
            text: "'A !B'".into(),
        };
        let d = one(&["CDVM$ IO_MODE 'A !", "CDVM$*B'  ! comment"], true);
        assert_eq!(d.kind, expect);
        let d = one(&["!DVM$ IO_MODE 'A !&", "!DVM$&B' ! comment"], false);
        assert_eq!(d.kind, expect);
        // Without a continuation the quote does not carry over.
        let r = scan(&["CDVM$ IO_MODE 'A !", "CDVM$ INTERVAL ! 'x"], true);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].as_ref().map(|d| d.kind.clone()), Ok(K::Interval(None)));
    }

    #[test]
    fn directive_line_recognition() {
        for (l, fixed, yes) in [
            ("!DVM$ PARALLEL (I)", false, true),
            ("    !dvm$ region", false, true),
            ("\t!$spf parallel", false, true),
            ("! DVM$ PARALLEL", false, false),
            ("!$OMP PARALLEL", false, false),
            ("      X = 1 !DVM$", false, false),
            ("CDVM$ PARALLEL", true, true),
            ("cdvm$*X", true, true),
            ("*DVM$ REGION", true, true),
            ("!DVM$ REGION", true, true),
            ("C$SPF PARALLEL", true, true),
            ("*$spf parallel", true, true),
            (" CDVM$ PARALLEL", true, false),
            ("  !DVM$ PARALLEL", true, false),
            ("C DVM$", true, false),
            ("CDVM", true, false),
            ("", true, false),
            ("", false, false),
        ] {
            assert_eq!(is_directive_line(l, fixed), yes, "{l:?} fixed={fixed}");
        }
        // Ordinary code and comments produce nothing.
        assert!(scan(
            &["      X = 1", "C comment", "! DVM$ not", "!$omp parallel"],
            true
        )
        .is_empty());
    }

    #[test]
    fn error_positions() {
        // Unbalanced parentheses: the '(' that is never closed.
        let e = error(&["!DVM$ PARALLEL (I) ON A(I, REDUCTION(MAX(EPS))"], false);
        assert_eq!((e.line, e.col), (1, 24));
        assert!(e.message.contains("unbalanced"), "{e}");
        // A ')' too many.
        let e = error(&["!DVM$ SHADOW A(1:1))"], false);
        assert_eq!((e.line, e.col), (1, 20));
        // PARALLEL without its variable list.
        let e = error(&["!DVM$ PARALLEL ON A(I)"], false);
        assert_eq!((e.line, e.col), (1, 16));
        assert!(e.message.contains("loop variables"), "{e}");
        // Unknown distribution format.
        let e = error(&["!DVM$ DISTRIBUTE A(BLOCK, CYCLIC)"], false);
        assert_eq!((e.line, e.col), (1, 27));
        assert!(e.message.contains("CYCLIC"), "{e}");
        // Bad clause syntax.
        let e = error(&["!DVM$ PARALLEL (I) ON A(I), REDUCTION(FOO(X))"], false);
        assert_eq!((e.line, e.col), (1, 39));
        let e = error(&["!DVM$ PARALLEL (I) ON A(I), PRIVATE(1)"], false);
        assert_eq!((e.line, e.col), (1, 37));
        let e = error(&["!DVM$ PARALLEL (I) ON A(I),"], false);
        assert_eq!((e.line, e.col), (1, 28));
        let e = error(&["!DVM$ REGION IN(A), SOMEWHERE(B)"], false);
        assert_eq!((e.line, e.col), (1, 21));
        // Junk after a complete directive.
        let e = error(&["!DVM$ END REGION NOW"], false);
        assert_eq!((e.line, e.col), (1, 18));
        // Empty directive: just after the sentinel.
        let e = error(&["  !DVM$"], false);
        assert_eq!((e.line, e.col), (1, 8));
        // Integers that do not fit.
        let e = error(&["!DVM$ INTERVAL 99999999999999999999"], false);
        assert_eq!((e.line, e.col), (1, 16));
    }

    #[test]
    fn error_positions_in_continued_directives() {
        // Free form: the column on the continuation line.
        let e = error(
            &[
                "!DVM$ PARALLEL (J,I) ON A(I,J), &",
                "!DVM$&  REDUCTION(MAX(EPS)), TIE(A(I,J)), BAD(1)(2)",
            ],
            false,
        );
        assert_eq!((e.line, e.col), (2, 49));
        let e = error(
            &[
                "!DVM$ PARALLEL (J,I) ON A(I,J), &",
                "  !DVM$  REDUCTION(AVG(EPS))",
            ],
            false,
        );
        assert_eq!((e.line, e.col), (2, 20));
        // Fixed form with blanks removed: columns still point into the original line.
        let e = error(
            &[
                "CDVM$ PARALLEL (J,I) ON A(I,J),",
                "CDVM$*   REDUCTION ( MAX ( EPS ) ) , PRIVATE ( 7 )",
            ],
            true,
        );
        assert_eq!((e.line, e.col), (2, 48));
        // An unclosed '(' on the first line, reported there.
        let e = error(&["CDVM$ DISTRIBUTE A(BLOCK,", "CDVM$*BLOCK"], true);
        assert_eq!((e.line, e.col), (1, 19));
        // The end of a directive is after its last character.
        let e = error(
            &["CDVM$ PARALLEL (J,I) ON A(I,J),", "CDVM$*REDUCTION"],
            true,
        );
        assert_eq!((e.line, e.col), (2, 16));
    }

    #[test]
    fn several_directives_and_errors_in_order() {
        let lines = [
            "      PROGRAM P",
            "!DVM$ DISTRIBUTE A(BLOCK)",
            "!DVM$ ALIGN B(I) WITH A(I)",
            "!DVM$ PARALLEL I ON A(I)",
            "!DVM$ REGION",
            "!DVM$ END REGION",
        ];
        let r = scan(&lines, false);
        let summary: Vec<String> = r
            .iter()
            .map(|x| match x {
                Ok(d) => format!("{}: {d}", d.line),
                Err(e) => format!("{}:{} error", e.line, e.col),
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                "2: DISTRIBUTE A(BLOCK)",
                "3: ALIGN B(I) WITH A(I)",
                "4:16 error",
                "5: REGION",
                "6: END REGION"
            ]
        );
    }

    #[test]
    fn expressions_print_with_minimal_parentheses() {
        let cases = [
            (bin(n("i"), BinOp::Add, int(1)), "I+1"),
            (
                bin(bin(n("a"), BinOp::Sub, n("b")), BinOp::Sub, n("c")),
                "A-B-C",
            ),
            (
                bin(n("a"), BinOp::Sub, bin(n("b"), BinOp::Sub, n("c"))),
                "A-(B-C)",
            ),
            (
                bin(bin(n("a"), BinOp::Add, n("b")), BinOp::Mul, n("c")),
                "(A+B)*C",
            ),
            (
                bin(n("a"), BinOp::Add, bin(n("b"), BinOp::Mul, n("c"))),
                "A+B*C",
            ),
            (
                bin(n("a"), BinOp::Div, bin(n("b"), BinOp::Mul, n("c"))),
                "A/(B*C)",
            ),
            (
                bin(bin(n("a"), BinOp::Div, n("b")), BinOp::Mul, n("c")),
                "A/B*C",
            ),
            (neg(bin(n("a"), BinOp::Mul, n("b"))), "-A*B"),
            (bin(neg(n("a")), BinOp::Mul, n("b")), "(-A)*B"),
            (bin(neg(n("a")), BinOp::Add, n("b")), "-A+B"),
            (neg(bin(n("a"), BinOp::Add, n("b"))), "-(A+B)"),
            (bin(n("a"), BinOp::Add, neg(n("b"))), "A+(-B)"),
            (neg(neg(int(5))), "-(-5)"),
            (
                DExpr::Call("max".into(), vec![n("n"), neg(int(1))]),
                "MAX(N,-1)",
            ),
        ];
        for (e, s) in cases {
            assert_eq!(e.to_string(), s);
            let d = kind(&format!("!DVM$ INTERVAL {s}"));
            assert_eq!(d, K::Interval(Some(e)), "{s}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("!DVM$ INTERVAL {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(scan(&[deep.as_str()], false)[0].is_err());
        let minus = format!("!DVM$ INTERVAL {}1", "-".repeat(5000));
        assert!(scan(&[minus.as_str()], false)[0].is_err());
    }

    #[test]
    fn serde_round_trip() {
        let d = one(
            &["!DVM$ PARALLEL (I) ON A(I+1), REDUCTION(MINLOC(X,L,1)), SHADOW_RENEW(A(CORNER))"],
            false,
        );
        let json = serde_json::to_string(&d).expect("serializable");
        assert!(json.contains("MinLoc"), "{json}");
        let back: Directive = serde_json::from_str(&json).expect("deserializable");
        assert_eq!(back, d);
    }

    // ----- property tests -----

    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;
    use proptest::strategy::Union;

    const RESERVED: &[&str] = &["on", "onto", "with", "corner", "dynamic"];

    /// `safe`: names and texts that stay unambiguous when blanks are removed
    /// (fixed form).
    fn name_s(safe: bool) -> BoxedStrategy<String> {
        if safe {
            prop::sample::select(vec!["a", "b", "c1", "x", "eps", "grd", "m2", "k", "u_v"])
                .prop_map(String::from)
                .boxed()
        } else {
            "[a-z][a-z0-9_]{0,6}"
                .prop_filter("reserved word", |s| !RESERVED.contains(&s.as_str()))
                .boxed()
        }
    }

    fn expr_s(safe: bool) -> BoxedStrategy<DExpr> {
        let leaf = prop_oneof![
            (0i64..1000).prop_map(DExpr::Int),
            (0i64..=i64::MAX).prop_map(DExpr::Int),
            name_s(safe).prop_map(DExpr::Name),
        ];
        leaf.prop_recursive(4, 24, 3, move |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| DExpr::Neg(Box::new(e))),
                (
                    inner.clone(),
                    prop::sample::select(vec![BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]),
                    inner.clone()
                )
                    .prop_map(|(a, o, b)| DExpr::Bin(Box::new(a), o, Box::new(b))),
                (name_s(safe), vec(inner, 0..3)).prop_map(|(n, a)| DExpr::Call(n, a)),
            ]
        })
        .boxed()
    }

    fn subscript_s(safe: bool) -> BoxedStrategy<Subscript> {
        prop_oneof![
            expr_s(safe).prop_map(Subscript::Expr),
            (option::of(expr_s(safe)), option::of(expr_s(safe)))
                .prop_map(|(a, b)| Subscript::Range(a, b)),
            Just(Subscript::Star),
        ]
        .boxed()
    }

    fn aref_s(safe: bool) -> BoxedStrategy<ArrayRef> {
        (name_s(safe), vec(subscript_s(safe), 0..3))
            .prop_map(|(name, subs)| ArrayRef { name, subs })
            .boxed()
    }

    fn format_s(safe: bool) -> BoxedStrategy<DistFormat> {
        prop_oneof![
            Just(DistFormat::Block),
            Just(DistFormat::Star),
            (name_s(safe), expr_s(safe)).prop_map(|(a, e)| DistFormat::WgtBlock(a, e)),
            name_s(safe).prop_map(DistFormat::GenBlock),
            name_s(safe).prop_map(DistFormat::Indirect),
            prop::sample::select(vec!["(i)witha(i)", "b", "(k)with nb(k,1)", ""])
                .prop_filter("blank", move |t| !safe || !t.contains(' '))
                .prop_map(|t| DistFormat::Derived(t.to_string())),
        ]
        .boxed()
    }

    fn reduction_s(safe: bool) -> BoxedStrategy<Reduction> {
        use ReductionOp::*;
        (
            prop::sample::select(vec![
                Sum, Product, Max, Min, And, Or, Eqv, Neqv, MaxLoc, MinLoc,
            ]),
            name_s(safe),
            vec(expr_s(safe), 1..3),
        )
            .prop_map(|(op, var, loc)| Reduction {
                op,
                var,
                loc: if matches!(op, MaxLoc | MinLoc) {
                    loc
                } else {
                    vec![]
                },
            })
            .boxed()
    }

    fn shadow_s(safe: bool) -> BoxedStrategy<ShadowSpec> {
        (
            name_s(safe),
            vec((option::of(expr_s(safe)), option::of(expr_s(safe))), 0..3),
            any::<bool>(),
        )
            .prop_map(|(name, widths, corner)| ShadowSpec {
                name,
                widths,
                corner,
            })
            .boxed()
    }

    fn clause_s(safe: bool) -> BoxedStrategy<Clause> {
        Union::new(vec![
            vec(reduction_s(safe), 1..3)
                .prop_map(Clause::Reduction)
                .boxed(),
            vec(shadow_s(safe), 1..3)
                .prop_map(Clause::ShadowRenew)
                .boxed(),
            vec(shadow_s(safe), 1..3).prop_map(Clause::Across).boxed(),
            vec(aref_s(safe), 1..3)
                .prop_map(Clause::RemoteAccess)
                .boxed(),
            vec(name_s(safe), 1..3).prop_map(Clause::Private).boxed(),
            vec(expr_s(safe), 1..4).prop_map(Clause::CudaBlock).boxed(),
            vec(aref_s(safe), 1..3).prop_map(Clause::Tie).boxed(),
            prop::sample::select(vec![
                "stage(2)",
                "independent",
                "consistent(a)",
            ])
            .prop_map(|t| Clause::Other(t.to_string()))
            .boxed(),
            (name_s(safe), vec(reduction_s(safe), 1..3))
                .prop_map(|(g, v)| Clause::GroupReduction(g, v))
                .boxed(),
            (name_s(safe), vec(aref_s(safe), 1..3))
                .prop_map(|(g, v)| Clause::GroupRemoteAccess(g, v))
                .boxed(),
            name_s(safe).prop_map(Clause::ShadowStart).boxed(),
            name_s(safe).prop_map(Clause::ShadowWait).boxed(),
        ])
        .boxed()
    }

    fn spf_hint_s(safe: bool) -> BoxedStrategy<SpfHint> {
        prop_oneof![
            Just(SpfHint::Parallel),
            Just(SpfHint::Sequential),
            vec(name_s(safe), 1..3).prop_map(SpfHint::Private),
            vec(reduction_s(safe), 1..3).prop_map(SpfHint::Reduction),
            vec(name_s(safe), 1..3).prop_map(SpfHint::NoDistribute),
            vec(name_s(safe), 1..3).prop_map(SpfHint::Owned),
            (name_s(safe), vec(format_s(safe), 1..3))
                .prop_map(|(array, formats)| SpfHint::Distribute { array, formats }),
        ]
        .boxed()
    }

    fn dummy_s(safe: bool) -> BoxedStrategy<String> {
        prop_oneof![Just("*".to_string()), name_s(safe)].boxed()
    }

    fn kind_s(safe: bool) -> BoxedStrategy<DirectiveKind> {
        let region_kind = prop::sample::select(vec![
            RegionClauseKind::In,
            RegionClauseKind::Out,
            RegionClauseKind::InOut,
            RegionClauseKind::Local,
            RegionClauseKind::InLocal,
        ]);
        let unknown_text = prop::sample::select(vec!["", "(a)", "(a,b)", "gr1", "a(i)=b'Str x'"])
            .prop_filter("glued", move |t| {
                !safe || t.is_empty() || t.starts_with('(')
            });
        let spf_text = prop::sample::select(vec![
            "transform(fission)",
            "parallel(shadow(a(1:1)))",
            "parallel_reg r1",
            "analysis(process_private(x))",
        ])
        .prop_filter("blank", move |t| !safe || !t.contains(' '));
        Union::new(vec![
            (
                vec(name_s(safe), 1..3),
                vec(format_s(safe), 0..3),
                option::of(name_s(safe)),
                any::<bool>(),
            )
                .prop_map(|(arrays, formats, onto, dynamic)| K::Distribute {
                    arrays,
                    formats,
                    onto,
                    dynamic,
                })
                .boxed(),
            (
                vec(name_s(safe), 1..3),
                vec(dummy_s(safe), 0..3),
                aref_s(safe),
            )
                .prop_map(|(arrays, source, target)| K::Align {
                    arrays,
                    source,
                    target,
                })
                .boxed(),
            vec(shadow_s(safe), 1..3).prop_map(K::Shadow).boxed(),
            (name_s(safe), vec(subscript_s(safe), 0..3))
                .prop_map(|(name, dims)| K::Template { name, dims })
                .boxed(),
            (name_s(safe), vec(expr_s(safe), 0..3))
                .prop_map(|(name, dims)| K::Processors { name, dims })
                .boxed(),
            vec(name_s(safe), 1..3).prop_map(K::Dynamic).boxed(),
            vec(name_s(safe), 1..3).prop_map(K::Inherit).boxed(),
            (vec(name_s(safe), 1..3), vec(format_s(safe), 0..3))
                .prop_map(|(arrays, formats)| K::Redistribute { arrays, formats, onto: None })
                .boxed(),
            (vec(name_s(safe), 1..3), vec(format_s(safe), 1..3), aref_s(safe))
                .prop_map(|(arrays, formats, o)| K::Redistribute { arrays, formats, onto: Some(o) })
                .boxed(),
            vec(aref_s(safe), 1..3).prop_map(K::Task).boxed(),
            (aref_s(safe), aref_s(safe)).prop_map(|(task, onto)| K::Map { task, onto }).boxed(),
            (name_s(safe), vec(clause_s(safe), 0..2))
                .prop_map(|(name, clauses)| K::TaskRegion { name, clauses })
                .boxed(),
            Just(K::EndTaskRegion).boxed(),
            aref_s(safe).prop_map(K::On).boxed(),
            Just(K::EndOn).boxed(),
            vec(name_s(safe), 1..3).prop_map(K::RemoteGroup).boxed(),
            name_s(safe).prop_map(K::Prefetch).boxed(),
            name_s(safe).prop_map(K::Reset).boxed(),
            (
                vec(name_s(safe), 1..3),
                vec(dummy_s(safe), 0..3),
                aref_s(safe),
            )
                .prop_map(|(arrays, source, target)| K::Realign {
                    arrays,
                    source,
                    target,
                })
                .boxed(),
            (
                vec(name_s(safe), 1..4),
                option::of(aref_s(safe)),
                vec(clause_s(safe), 0..4),
            )
                .prop_map(|(vars, on, clauses)| K::Parallel { vars, on, clauses })
                .boxed(),
            (
                vec((region_kind, vec(aref_s(safe), 1..3)), 0..3),
                vec(name_s(safe), 0..3),
                any::<bool>(),
            )
                .prop_map(|(clauses, targets, async_)| K::Region {
                    clauses,
                    targets,
                    async_,
                })
                .boxed(),
            Just(K::EndRegion).boxed(),
            vec(aref_s(safe), 0..3).prop_map(K::GetActual).boxed(),
            vec(aref_s(safe), 0..3).prop_map(K::Actual).boxed(),
            (option::of(name_s(safe)), vec(aref_s(safe), 1..3))
                .prop_map(|(group, refs)| K::RemoteAccess { group, refs })
                .boxed(),
            option::of(expr_s(safe)).prop_map(K::Interval).boxed(),
            Just(K::EndInterval).boxed(),
            Just(K::Barrier).boxed(),
            (name_s(safe), vec(shadow_s(safe), 1..3))
                .prop_map(|(name, arrays)| K::ShadowGroup { name, arrays })
                .boxed(),
            name_s(safe).prop_map(K::ShadowStart).boxed(),
            name_s(safe).prop_map(K::ShadowWait).boxed(),
            vec(name_s(safe), 1..3).prop_map(K::ReductionGroup).boxed(),
            name_s(safe).prop_map(K::ReductionStart).boxed(),
            name_s(safe).prop_map(K::ReductionWait).boxed(),
            vec(spf_hint_s(safe), 1..4).prop_map(K::Spf).boxed(),
            (
                prop::sample::select(vec![
                    "new_value",
                    "host_section",
                    "consistent",
                    "io_mode",
                ]),
                unknown_text,
            )
                .prop_map(|(k, t)| K::Unknown {
                    keyword: k.to_string(),
                    text: t.to_string(),
                })
                .boxed(),
            spf_text
                .prop_map(|t| K::Unknown {
                    keyword: SPF_UNKNOWN_KEYWORD.to_string(),
                    text: t.to_string(),
                })
                .boxed(),
        ])
        .boxed()
    }

    fn parse_lines(lines: &[String], fixed: bool) -> Vec<Result<Directive, DirectiveError>> {
        let refs: Vec<&str> = lines.iter().map(|s| s.as_str()).collect();
        scan(&refs, fixed)
    }

    /// Errors point into the file: a real line, a column at most one past its end.
    fn positions_are_valid(
        lines: &[&str],
        r: &[Result<Directive, DirectiveError>],
    ) -> Result<(), String> {
        for x in r {
            match x {
                Err(e) => {
                    let Some(l) = lines.get((e.line as usize).wrapping_sub(1)) else {
                        return Err(format!("error on line {} of {}: {e}", e.line, lines.len()));
                    };
                    let len = l.chars().count() as u32;
                    if e.col < 1 || e.col > len + 1 {
                        return Err(format!("column {} outside line {l:?}: {e}", e.col));
                    }
                }
                Ok(d) => {
                    if d.line < 1 || d.end_line < d.line || d.end_line as usize > lines.len() {
                        return Err(format!("bad line range {}..{}", d.line, d.end_line));
                    }
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        #[test]
        fn print_then_parse_gives_the_same_ast(k in kind_s(false)) {
            let line = format!("{} {}", k.sentinel(), k);
            let r = scan(&[line.as_str()], false);
            prop_assert_eq!(r.len(), 1);
            prop_assert_eq!(r[0].as_ref().map(|d| &d.kind), Ok(&k), "line: {}", line);
        }

        #[test]
        fn fixed_form_lines_cut_anywhere_give_the_same_ast(
            k in kind_s(true),
            cuts in vec(1usize..=66, 1..40),
            lower in any::<bool>(),
            star in any::<bool>(),
        ) {
            let body: Vec<char> = k.to_string().chars().collect();
            let (first, cont) = match (k.sentinel(), lower, star) {
                ("!$SPF", true, _) => ("c$spf ", "c$spf&"),
                ("!$SPF", false, true) => ("*$SPF ", "*$SPF1"),
                ("!$SPF", false, false) => ("!$SPF ", "!$SPF*"),
                (_, true, _) => ("cdvm$ ", "cdvm$*"),
                (_, false, true) => ("*DVM$ ", "*DVM$+"),
                (_, false, false) => ("CDVM$ ", "CDVM$*"),
            };
            let mut lines = Vec::new();
            let mut at = 0;
            let mut c = 0;
            while at < body.len() || lines.is_empty() {
                let n = cuts[c % cuts.len()].min(body.len() - at);
                let chunk: String = body[at..at + n].iter().collect();
                lines.push(format!("{}{}", if lines.is_empty() { first } else { cont }, chunk));
                at += n;
                c += 1;
            }
            let r = parse_lines(&lines, true);
            prop_assert_eq!(r.len(), 1, "{:?}", lines);
            prop_assert_eq!(r[0].as_ref().map(|d| &d.kind), Ok(&k), "lines: {:?}", lines);
            prop_assert_eq!(r[0].as_ref().map(|d| d.end_line as usize).ok(), Some(lines.len()));
        }

        #[test]
        fn free_form_continued_anywhere_gives_the_same_ast(
            k in kind_s(false),
            cuts in vec(1usize..=30, 1..40),
            indent in "[ ]{0,4}",
        ) {
            let body: Vec<char> = k.to_string().chars().collect();
            let sentinel = k.sentinel();
            let mut pieces = Vec::new();
            let mut at = 0;
            let mut c = 0;
            while at < body.len() || pieces.is_empty() {
                let n = cuts[c % cuts.len()].min(body.len() - at);
                pieces.push(body[at..at + n].iter().collect::<String>());
                at += n;
                c += 1;
            }
            let last = pieces.len() - 1;
            let lines: Vec<String> = pieces
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let lead = if i == 0 { format!("{sentinel} ") } else { format!("{sentinel}&") };
                    let amp = if i < last { "&" } else { "" };
                    format!("{indent}{lead}{p}{amp}")
                })
                .collect();
            let r = parse_lines(&lines, false);
            prop_assert_eq!(r.len(), 1, "{:?}", lines);
            prop_assert_eq!(r[0].as_ref().map(|d| &d.kind), Ok(&k), "lines: {:?}", lines);
        }

        #[test]
        fn random_lines_never_panic(lines in vec(".{0,90}", 0..8), fixed in any::<bool>()) {
            let refs: Vec<&str> = lines.iter().map(|s| s.as_str()).collect();
            let r = scan(&refs, fixed);
            prop_assert!(positions_are_valid(&refs, &r).is_ok(), "{:?}", positions_are_valid(&refs, &r));
        }

        #[test]
        fn directive_like_token_soup_never_panics(
            lines in vec(
                (
                    prop::sample::select(vec!["!DVM$ ", "CDVM$ ", "CDVM$*", "!DVM$&", "  !dvm$", "!$SPF ", "C$SPF*", "*DVM$0"]),
                    vec(prop::sample::select(vec![
                        "PARALLEL", "DISTRIBUTE", "ALIGN", "WITH", "ON", "ONTO", "REDUCTION", "MAXLOC", "MAX",
                        "SHADOW_RENEW", "CORNER", "REGION", "IN", "TARGETS", "ASYNC", "END", "ANALYSIS", "PRIVATE",
                        "REMOTE_ACCESS", "DERIVED", "WGT_BLOCK", "BLOCK", "INTERVAL", "GET_ACTUAL", "DYNAMIC",
                        "A", "I", "J", "1", "99999999999999999999", "(", ")", ",", ":", "::", "*", "**", "+", "-", "/",
                        " ", "&", "!", "'", "\"", "é", "\t",
                    ]), 0..25),
                ),
                1..6,
            ),
            fixed in any::<bool>(),
        ) {
            let lines: Vec<String> = lines.into_iter().map(|(s, toks)| format!("{s}{}", toks.concat())).collect();
            let refs: Vec<&str> = lines.iter().map(|s| s.as_str()).collect();
            let r = scan(&refs, fixed);
            prop_assert!(positions_are_valid(&refs, &r).is_ok(), "{:?}", positions_are_valid(&refs, &r));
            // Whatever parses, prints to text that parses back to the same thing.
            // (Unknown text with '&' is the exception: '&' means continuation in free form.)
            for d in r.iter().flatten() {
                if matches!(&d.kind, K::Unknown { text, .. } if text.contains('&')) {
                    continue;
                }
                let line = format!("{} {}", d.kind.sentinel(), d.kind);
                let again = scan(&[line.as_str()], false);
                prop_assert_eq!(again.len(), 1);
                prop_assert_eq!(again[0].as_ref().map(|x| &x.kind), Ok(&d.kind), "{}", line);
            }
        }
    }
}
