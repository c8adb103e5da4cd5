//! User refinements: facts the user asserts where static analysis cannot know (SPEC section 2).
//! They come from the project database (`sapfor refine`, the GUI) or from `!$SPF` hints in the
//! source, and the analyzer honours them; every loop result changed by one says so.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a loop is: the file as the user names it (matched by suffix against analyzed files)
/// and the line of its DO statement.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoopRef {
    pub file: String,
    pub line: u32,
}

impl fmt::Display for LoopRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

impl LoopRef {
    /// Parse `FILE:LINE`.
    pub fn parse(s: &str) -> Result<LoopRef, String> {
        let (file, line) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("expected FILE:LINE, got `{s}`"))?;
        let line: u32 = line
            .parse()
            .map_err(|_| format!("`{line}` is not a line number (expected FILE:LINE)"))?;
        if file.is_empty() || line == 0 {
            return Err(format!("expected FILE:LINE, got `{s}`"));
        }
        Ok(LoopRef {
            file: file.to_string(),
            line,
        })
    }
    /// Does this reference name `path`? Exact, or `path` ends with `/file`.
    pub fn matches_file(&self, path: &str) -> bool {
        let norm = |p: &str| p.trim_start_matches("./").replace('\\', "/");
        let (a, b) = (norm(path), norm(&self.file));
        a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Override {
    /// The loop has no loop-carried dependence the analysis could not rule out.
    Parallel { at: LoopRef },
    /// The loop must stay sequential.
    Sequential { at: LoopRef },
    /// Variable (lower case) is private in the loop.
    Private { at: LoopRef, var: String },
    /// Variable is a reduction with this operator (sum, product, max, min, and, or, eqv, neqv).
    Reduction {
        at: LoopRef,
        op: String,
        var: String,
    },
    /// The array must not be distributed (read by the experts).
    NoDistribute { array: String },
    /// Distribute the array this way, e.g. ["BLOCK", "*"] (read by the experts).
    Distribute { array: String, formats: Vec<String> },
    /// A machine-description parameter, e.g. `tstart_us = 7` (read by the experts).
    Machine { key: String, value: String },
}

impl Override {
    pub fn loop_ref(&self) -> Option<&LoopRef> {
        match self {
            Override::Parallel { at }
            | Override::Sequential { at }
            | Override::Private { at, .. }
            | Override::Reduction { at, .. } => Some(at),
            _ => None,
        }
    }
    /// Short kind name, as stored and shown.
    pub fn kind(&self) -> &'static str {
        match self {
            Override::Parallel { .. } => "parallel",
            Override::Sequential { .. } => "sequential",
            Override::Private { .. } => "private",
            Override::Reduction { .. } => "reduction",
            Override::NoDistribute { .. } => "no-distribute",
            Override::Distribute { .. } => "distribute",
            Override::Machine { .. } => "machine",
        }
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Override::Parallel { at } => write!(f, "loop at {at} is parallel"),
            Override::Sequential { at } => write!(f, "loop at {at} is sequential"),
            Override::Private { at, var } => {
                write!(f, "{} is private in the loop at {at}", var.to_uppercase())
            }
            Override::Reduction { at, op, var } => write!(
                f,
                "{} is a {op} reduction in the loop at {at}",
                var.to_uppercase()
            ),
            Override::NoDistribute { array } => {
                write!(f, "array {} must not be distributed", array.to_uppercase())
            }
            Override::Distribute { array, formats } => write!(
                f,
                "distribute {} as ({})",
                array.to_uppercase(),
                formats.join(",")
            ),
            Override::Machine { key, value } => write!(f, "machine parameter {key} = {value}"),
        }
    }
}

/// Operators accepted in reduction overrides and hints.
pub const REDUCTION_OPS: &[&str] = &[
    "sum", "product", "max", "min", "and", "or", "eqv", "neqv", "maxloc", "minloc",
];
