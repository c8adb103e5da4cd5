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
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitRef {
    pub file: String,
    pub unit: String,
}

/// `!DVM$ DISTRIBUTE array(formats)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub at: UnitRef,
    pub array: String,
    pub formats: Vec<Format>,
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
    pub reductions: Vec<ReductionSpec>,
    pub shadow_renew: Vec<ArrayWidths>,
    pub across: Vec<ArrayWidths>,
    pub remote_access: Vec<ArrayRef>,
}

/// A standalone `!DVM$ REMOTE_ACCESS (refs)` before a sequential statement at `line`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteAccess {
    pub at: UnitRef,
    pub line: u32,
    pub refs: Vec<ArrayRef>,
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
}

/// A whole scheme.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scheme {
    /// Which expert produced it ("dvm", "dvmh").
    pub expert: String,
    /// Short name, e.g. "(BLOCK,BLOCK)" or "replicated".
    pub name: String,
    pub distributions: Vec<Distribution>,
    pub alignments: Vec<Alignment>,
    pub shadows: Vec<Shadow>,
    pub loops: Vec<ParallelLoop>,
    pub remote: Vec<RemoteAccess>,
    pub estimate: Estimate,
    /// Why arrays stay replicated, loops stay sequential, etc.
    pub notes: Vec<String>,
}
