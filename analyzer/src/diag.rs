//! Diagnostics: one type with a stable code, a severity, a primary location in the user's
//! original file, notes; rendered for humans (rustc-like, with a source excerpt) or as JSON.

use serde::Serialize;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// A place in a user's original source file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0001`; documented in `docs/diagnostics.md`.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub location: Option<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Diagnostic codes. Keep stable: tools and tests match on them.
pub mod codes {
    pub const IO_ERROR: &str = "E0001";
    pub const SYNTAX: &str = "E0002";
    pub const MISSING_INCLUDE: &str = "E0003";
    pub const INCLUDE_CYCLE: &str = "E0004";
    pub const UNSUPPORTED: &str = "W0005";
    pub const UNDECLARED: &str = "E0006";
    pub const BAD_DIRECTIVE: &str = "E0007";
    pub const DUPLICATE_UNIT: &str = "W0008";
    pub const BAD_PARAMETER: &str = "W0009";
    pub const UNMATCHED_END: &str = "E0010";
    pub const NOT_UTF8: &str = "W0011";
    pub const BAD_LABEL: &str = "E0012";
    pub const RANK_MISMATCH: &str = "E0013";
    pub const FOREIGN_SOURCE: &str = "W0014";
    pub const TRANSFORMED: &str = "N0015";
}

impl Diagnostic {
    pub fn error(
        code: &'static str,
        message: impl Into<String>,
        location: Option<Location>,
    ) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            location,
            notes: vec![],
        }
    }
    pub fn note(code: &'static str, message: impl Into<String>, location: Option<Location>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Note,
            message: message.into(),
            location,
            notes: vec![],
        }
    }
    pub fn warning(
        code: &'static str,
        message: impl Into<String>,
        location: Option<Location>,
    ) -> Self {
        Diagnostic {
            code,
            severity: Severity::Warning,
            message: message.into(),
            location,
            notes: vec![],
        }
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Render like rustc: `error[E0002]: message` / `  --> file:line:col` / excerpt with a caret.
    /// `source_line` is the text of the primary line in the original file, when known.
    pub fn render(&self, source_line: Option<&str>) -> String {
        render(
            self.severity,
            self.code,
            &self.message,
            self.location.as_ref(),
            &self.notes,
            source_line,
        )
    }
}

/// Render a diagnostic from its parts (also used for diagnostics read back from JSON).
pub fn render(
    severity: Severity,
    code: &str,
    message: &str,
    location: Option<&Location>,
    notes: &[String],
    source_line: Option<&str>,
) -> String {
    let sev = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let mut out = format!("{sev}[{code}]: {message}\n");
    if let Some(loc) = location {
        let _ = writeln!(out, "  --> {}:{}:{}", loc.file, loc.line, loc.col);
        if let Some(text) = source_line {
            let num = loc.line.to_string();
            let pad = " ".repeat(num.len());
            let text = text.replace('\t', " ");
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{num} | {text}");
            let caret_col = (loc.col.max(1) as usize - 1).min(text.chars().count());
            let _ = writeln!(out, "{pad} | {}^", " ".repeat(caret_col));
        }
    }
    for n in notes {
        let _ = writeln!(out, "  = note: {n}");
    }
    out
}
