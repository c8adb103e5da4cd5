//! A parallelization scheme: what an expert decided (data distribution, alignment, shadow
//! widths, the mapping of every loop nest) and what it is estimated to cost. Schemes are
//! stored in the project database as JSON and turned into Fortran-DVMH by the generator.

use serde::{Deserialize, Serialize};

/// One dimension of a distribution: `BLOCK` or `*` (not distributed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Format {
    Block,
    Star,
}

impl Format {
    pub fn as_str(&self) -> &'static str {
        match self {
            Format::Block => "BLOCK",
            Format::Star => "*",
        }
    }
}

/// Where a declaration directive belongs: the program unit (lower-case name) and the file
/// (as stored in the database: relative to the project root, or as given).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct UnitRef {
    pub file: String,
    pub unit: String,
}

/// A variant an expert considered and did not keep, with every reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    pub expert: String,
    /// The variant's name, as a scheme would have it: `(BLOCK,*)`.
    pub name: String,
    pub reasons: Vec<Reason>,
}

/// Why a variant was rejected: a loop nest that cannot be mapped (the unit and the line of its
/// outermost DO statement), or something that holds for the whole program (no place).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub at: Option<UnitRef>,
    pub line: Option<u32>,
    pub text: String,
}

impl Reason {
    /// `file:line (unit U): text`, or the text alone.
    pub fn describe(&self) -> String {
        match (&self.at, self.line) {
            (Some(at), Some(line)) => {
                format!("{}:{line} (unit {}): {}", short_file(&at.file), at.unit.to_uppercase(), self.text)
            }
            (Some(at), None) => format!("{} (unit {}): {}", short_file(&at.file), at.unit.to_uppercase(), self.text),
            _ => self.text.clone(),
        }
    }
}

/// The file name of a stored path (many files of a project share line numbers; their
/// directories rarely matter in a message).
pub fn short_file(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// `!DVM$ DISTRIBUTE array(formats)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub at: UnitRef,
    pub array: String,
    pub formats: Vec<Format>,
}

/// `!DVM$ TEMPLATE name(lo:hi, ...)`: an index space with no data, declared in a unit so that
/// a parallel loop over no distributed array can be mapped on it (`ON name(K)`) and its
/// iterations divided between processes. Its `DISTRIBUTE` is one of the scheme's
/// distributions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub at: UnitRef,
    pub name: String,
    pub bounds: Vec<(i64, i64)>,
}

/// `!DVM$ INHERIT array`: a dummy argument that takes the distribution of the array every
/// call passes in its place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inherit {
    pub at: UnitRef,
    pub array: String,
}

/// `!$SPF OWNED(array)`: a non-distributed array of the unit that parallel loops write, whose
/// every element only the process owning it ever accesses (each access is made by an
/// iteration that the same owner runs, in every loop and every call): the runtime keeps each
/// process's copy as it is instead of merging what a loop wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owned {
    pub at: UnitRef,
    pub array: String,
}

/// A subscript of the target of an ALIGN: `a*I + b` over one align-dummy, a constant, or `*`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AlignSub {
    /// coefficient * dummy + offset, dummy named by its position in `source`.
    Linear {
        dummy: usize,
        coeff: i64,
        offset: i64,
    },
    Const(i64),
    /// Replicated along this template dimension.
    Star,
}

/// `!DVM$ ALIGN array(source...) WITH target(subs...)`; `source` are the align-dummy names
/// (one per dimension of `array`, `*` for a collapsed dimension).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alignment {
    pub at: UnitRef,
    pub array: String,
    pub source: Vec<String>,
    pub target: String,
    pub subs: Vec<AlignSub>,
}

/// `!DVM$ SHADOW array(lo:hi, ...)` (widths per dimension).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shadow {
    pub at: UnitRef,
    pub array: String,
    pub widths: Vec<(u32, u32)>,
}

/// An array with shadow widths per dimension, as used in SHADOW_RENEW and ACROSS clauses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayWidths {
    pub array: String,
    pub widths: Vec<(u32, u32)>,
    /// Corner elements are needed (a stencil reads diagonal neighbours).
    pub corner: bool,
}

/// A subscript in an ON clause or a REMOTE_ACCESS reference: a loop variable plus an offset,
/// a constant, or `:` (a whole dimension).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefSub {
    Var { var: String, offset: i64 },
    Const(i64),
    All,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayRef {
    pub array: String,
    pub subs: Vec<RefSub>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReductionSpec {
    /// sum, product, max, min, and, or, eqv, neqv, maxloc, minloc
    pub op: String,
    pub var: String,
    /// MAXLOC/MINLOC: the location variables.
    pub loc: Vec<String>,
}

/// `!DVM$ PARALLEL (vars) ON on, clauses` placed before the DO statement at `line`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParallelLoop {
    pub at: UnitRef,
    /// Line of the outermost DO statement of the mapped nest, in `at.file`.
    pub line: u32,
    /// Loop variables of the mapped nest, outermost first.
    pub vars: Vec<String>,
    /// None: a parallel loop without ON (no distribution; threads/GPU only).
    pub on: Option<ArrayRef>,
    pub private: Vec<String>,
    /// Private arrays an iteration may read where nothing was written first (elements no
    /// iteration writes): each copy must start with the values from before the loop, which
    /// threads and processes do and kernels do not (the loop stays out of regions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_in: Vec<String>,
    pub reductions: Vec<ReductionSpec>,
    pub shadow_renew: Vec<ArrayWidths>,
    pub across: Vec<ArrayWidths>,
    pub remote_access: Vec<ArrayRef>,
    /// The ON array with how far past its owned part the iterations reach
    /// (`SHADOW_COMPUTE`): the loop fills a work array that the loops after it read at
    /// neighbouring indices, and each process computes those neighbours itself instead of
    /// receiving them; the replicated arrays it writes are not merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow_compute: Option<ArrayWidths>,
    /// Lines of the tuple's DO statements whose parallelism a user refinement asserted (the
    /// analysis alone calls them sequential or across): the generator writes `!$SPF
    /// PARALLEL` before each, so that `sapfor verify` of the program trusts them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asserted: Vec<u32>,
    /// For lines of `asserted`: the hints that say what the user asserted there when that
    /// was less than the loop's parallelism (`ANALYSIS(PRIVATE(SCR))`); a line not listed
    /// gets `PARALLEL`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<(u32, Vec<analyzer::directives::SpfHint>)>,
    /// Run-time tests (Fortran logical expressions) under which the loop is parallel: the
    /// generator writes `IF (tests) THEN`, the directive and the loop, `ELSE`, the loop as it
    /// is, `END IF` (the loop's last line is `end_line`). Empty: the loop is parallel always.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
    /// A scalar recurrence the generator computes ahead of the loop
    /// (`analyzer::loops::Versioned::split`): the loop's last line is `end_line` then too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub end_line: u32,
    /// The loop is one part of a nest split by statements (loop fission): the first and last
    /// lines of the statements of its innermost body that this part keeps. The generator
    /// writes the nest once per part, in the scheme's order, each copy with only its own
    /// statements (NPB LU's dissipation at the J boundaries, `RSD(M,I,2,K) = ...` and
    /// `RSD(M,I,3,K) = ...` in one loop over I, each plane's owner running its own
    /// statement). Empty: the loop is written as it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub part: Vec<(u32, u32)>,
}

/// What the generator needs of a scalar recurrence computed ahead of a parallel loop: the
/// scalars with their declaration types, and the lines of the statements that update them
/// (directly in the loop's body).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    pub vars: Vec<(String, String)>,
    pub lines: Vec<u32>,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

/// A standalone `!DVM$ REMOTE_ACCESS (refs)` before a sequential statement at `line`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteAccess {
    pub at: UnitRef,
    pub line: u32,
    pub refs: Vec<ArrayRef>,
    /// Estimated executions of the statement (the trip counts of the loops around it).
    #[serde(default = "one")]
    pub times: u64,
    /// The reads go through the runtime's read cache (the statement is in a DO loop nest that
    /// does not write the arrays it reads).
    #[serde(default)]
    pub cached: bool,
}

fn one() -> u64 {
    1
}

/// Estimated time of a scheme, in seconds, broken down.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub computation: f64,
    pub communication: f64,
    pub transfers: f64,
    pub total: f64,
    /// Process grid the estimate was made for (one extent per distributed dimension).
    pub grid: Vec<u32>,
    /// Human-readable lines explaining the figures (per loop, per exchange).
    pub notes: Vec<String>,
    /// Each loop nest's share of the figures, by its file and the line of its outermost DO
    /// (what the dialog shows next to measured times and as each loop's share).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nests: Vec<NestEstimate>,
}

/// The estimated time of one loop nest over the whole run (computation and communication,
/// on the slowest process), in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NestEstimate {
    /// The file of the nest's unit, as the analysis names it.
    pub file: String,
    pub line: u32,
    pub seconds: f64,
}

/// How a region uses a variable (SPEC section 3): `In` actual values are needed on entry;
/// `Out` changed and used later; `Local` changed, not used later; `InOut`, `InLocal` both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegionUse {
    In,
    Out,
    InOut,
    Local,
    InLocal,
}

impl RegionUse {
    pub fn as_str(&self) -> &'static str {
        match self {
            RegionUse::In => "IN",
            RegionUse::Out => "OUT",
            RegionUse::InOut => "INOUT",
            RegionUse::Local => "LOCAL",
            RegionUse::InLocal => "INLOCAL",
        }
    }
}

/// A bound of a subarray: a PARAMETER name plus an offset (`L-1`), or a number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    pub name: Option<String>,
    pub offset: i64,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.name, self.offset) {
            (None, v) => write!(f, "{v}"),
            (Some(n), 0) => write!(f, "{}", n.to_uppercase()),
            (Some(n), v) if v > 0 => write!(f, "{}+{v}", n.to_uppercase()),
            (Some(n), v) => write!(f, "{}{v}", n.to_uppercase()),
        }
    }
}

/// A subscript of a subarray in a region clause or an actualization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SubRange {
    Range { lo: Bound, hi: Bound },
    Point(Bound),
    /// The whole dimension (`:`).
    All,
}

/// A variable or subarray in a region clause or a GET_ACTUAL / ACTUAL list; `subs` is empty
/// for a whole variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VarPart {
    pub var: String,
    pub subs: Vec<SubRange>,
}

impl std::fmt::Display for VarPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.var.to_uppercase())?;
        if self.subs.is_empty() {
            return Ok(());
        }
        let s: Vec<String> = self
            .subs
            .iter()
            .map(|s| match s {
                SubRange::Range { lo, hi } => format!("{lo}:{hi}"),
                SubRange::Point(b) => b.to_string(),
                SubRange::All => ":".into(),
            })
            .collect();
        write!(f, "({})", s.join(","))
    }
}

/// What running one region costs, per execution and over the program (seconds, bytes per
/// process).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionEstimate {
    /// Times the region is entered (product of the trip counts around it).
    pub executions: f64,
    /// Seconds of one execution on the host (per process).
    pub host_s: f64,
    /// Seconds of one execution's computation on the accelerator (kernels, launches).
    pub device_s: f64,
    /// Bytes copied to the accelerator at entry, per execution (what is not there yet).
    pub in_bytes: f64,
    /// Bytes of the region's results the host requests afterwards, per execution.
    pub out_bytes: f64,
    /// Seconds of those transfers per execution.
    pub transfer_s: f64,
    /// The region runs on the accelerator (device_s + transfer_s < host_s); otherwise its
    /// loops stay ordinary host loops and no REGION is written.
    pub on_device: bool,
}

/// `!DVM$ REGION clauses` before the statement at `first_line` ... `!DVM$ END REGION` after
/// the statement ending on `last_line` (lines of `at.file`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub at: UnitRef,
    pub first_line: u32,
    pub last_line: u32,
    /// Lines of the parallel loops (their DO statements) inside.
    pub loops: Vec<u32>,
    pub clauses: Vec<(RegionUse, Vec<VarPart>)>,
    pub estimate: RegionEstimate,
    /// Why the region has this shape (merges, absorbed statements, host decision).
    pub notes: Vec<String>,
}

/// `GET_ACTUAL` (host needs the newest values) or `ACTUAL` (host just wrote them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActualKind {
    GetActual,
    Actual,
}

/// An actualization directive inserted before the line `before` of `at.file`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Actualization {
    pub at: UnitRef,
    pub before: u32,
    pub kind: ActualKind,
    pub vars: Vec<VarPart>,
    /// Why it is there (the statement that needs it).
    pub reason: String,
    /// An ACTUAL for the statement it stands before (which writes the variables), placed
    /// after that statement's GET_ACTUAL on the same line; otherwise an ACTUAL for the
    /// statement before it, placed before any GET_ACTUAL there.
    #[serde(default)]
    pub late: bool,
}

/// A whole scheme.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scheme {
    /// Which expert produced it ("dvm", "dvmh").
    pub expert: String,
    /// Short name, e.g. "(BLOCK,BLOCK)" or "replicated".
    pub name: String,
    /// Templates the scheme declares (a loop mapped on a template, not on an array).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<Template>,
    pub distributions: Vec<Distribution>,
    pub alignments: Vec<Alignment>,
    /// Dummy arguments inheriting the distribution of their actual arguments.
    #[serde(default)]
    pub inherits: Vec<Inherit>,
    /// Arrays whose copies the runtime need not merge after the loops that write them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owned: Vec<Owned>,
    pub shadows: Vec<Shadow>,
    pub loops: Vec<ParallelLoop>,
    pub remote: Vec<RemoteAccess>,
    pub estimate: Estimate,
    /// Why arrays stay replicated, loops stay sequential, etc.
    pub notes: Vec<String>,
    /// Computational regions (DVMH expert); regions kept on the host are listed with
    /// `estimate.on_device == false` and not written.
    #[serde(default)]
    pub regions: Vec<Region>,
    /// GET_ACTUAL / ACTUAL directives (DVMH expert).
    #[serde(default)]
    pub actualizations: Vec<Actualization>,
}
