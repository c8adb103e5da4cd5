//! Plain records: what the database stores and returns. They carry no SQL and no connection;
//! [`AnalysisRecord::from_analysis`] turns an [`analyzer::report::Analysis`] into one.

use analyzer::cfg::{self, EdgeKind};
use analyzer::report::Analysis;
use analyzer::sections::SectionSet;
use analyzer::sema::Const;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Lower-case hexadecimal SHA-256 of the bytes.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest.iter() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// What identifies the inputs of an analysis: files (relative path, content hash) in the order
/// given, and an options string (anything else that changes results). Two keys are the same
/// key only when every file, the order and the options are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisKey {
    pub files: Vec<(String, String)>,
    pub options: String,
}

impl AnalysisKey {
    /// The digest stored and indexed for the key (sha256 of its canonical JSON).
    pub fn digest(&self) -> String {
        content_hash(self.canonical().as_bytes())
    }
    pub(crate) fn canonical(&self) -> String {
        serde_json::to_string(self).expect("a key always serializes")
    }
}

/// One stored analysis, everything in it relative to the project root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalysisRecord {
    /// `sapfor X.Y.Z` of the build that stored it.
    pub tool_version: String,
    /// Every file read, top-level and INCLUDEd, in the analyzer's order.
    pub files: Vec<FileRecord>,
    pub units: Vec<UnitRecord>,
    /// Diagnostics exactly as in the JSON report.
    pub diagnostics: Vec<Value>,
    /// The rendered JSON report (`Analysis::to_json`), kept verbatim for fast re-runs.
    pub report: Value,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Relative to the project root with `/` separators (`../x` outside it).
    pub path: String,
    /// [`content_hash`] of the file's bytes as read.
    pub hash: String,
    /// `fixed` or `free`.
    pub form: String,
    pub included: bool,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitRecord {
    /// Lower case.
    pub name: String,
    /// program | subroutine | function | module | block data
    pub kind: String,
    /// Relative path of the unit's file (one of [`AnalysisRecord::files`]).
    pub file: String,
    pub line: u32,
    pub end_line: u32,
    pub loops: Vec<LoopRecord>,
    pub blocks: Vec<BlockRecord>,
    pub symbols: Vec<SymbolRecord>,
    pub commons: Vec<CommonRecord>,
    /// (callee, line) of every call site in the unit.
    pub calls: Vec<(String, u32)>,
    /// The mod/ref summary of a procedure (None for a main program or module):
    /// `{"has_io", "has_stop", "keeps_state", "recursive", "unknown_calls": [..],
    ///   "args": [{"position", "read", "written", "whole"}],
    ///   "commons": [{"block", "member", "name", "read", "written", "whole"}]}`.
    pub summary: Option<serde_json::Value>,
}

/// A loop, with exactly the fields of a loop object of the JSON report: `serde_json::to_value`
/// of a record equals the report's object. Its file is its unit's file (loops are referenced
/// as `unit file : DO line`, as the analyzer matches refinements).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopRecord {
    pub line: u32,
    pub end_line: u32,
    /// Empty for DO WHILE.
    pub var: String,
    pub depth: u32,
    pub lower: Option<i64>,
    pub upper: Option<i64>,
    pub step: Option<i64>,
    pub iterations: Option<u64>,
    /// parallel | across | sequential
    pub verdict: String,
    pub private: Vec<String>,
    pub reductions: Vec<ReductionRecord>,
    pub dependences: Vec<DependenceRecord>,
    pub blockers: Vec<BlockerRecord>,
    pub overridden_by: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReductionRecord {
    pub op: String,
    pub var: String,
    /// MAXLOC/MINLOC location variables; absent from the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loc: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependenceRecord {
    pub array: String,
    /// flow | anti | output
    pub kind: String,
    /// Per loop level from the loop inward; `None` = not constant.
    pub distance: Vec<Option<i64>>,
    pub source_line: u32,
    pub sink_line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockerRecord {
    pub code: String,
    pub message: String,
    pub line: u32,
}

/// A block of the unit's control-flow graph (the collapsed-nest graph of `--dump cfg`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockRecord {
    /// 1-based, as in the dumps.
    pub num: u32,
    pub lines: Vec<u32>,
    pub reads: BTreeMap<String, SectionSet>,
    pub writes: BTreeMap<String, SectionSet>,
    pub succs: Vec<EdgeRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeRecord {
    /// Target block number (1-based).
    pub to: u32,
    /// Items of the source block executed before leaving.
    pub at: u32,
    /// fallthrough | jump | branch | loop_exit | back
    pub kind: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolRecord {
    pub name: String,
    /// Type name: `integer`, `real*8`, `double precision`, ...
    pub ty: String,
    /// 0 for scalars.
    pub rank: u32,
    /// Declared (lower, upper) per dimension when constant.
    pub bounds: Vec<Option<(i64, i64)>>,
    /// COMMON block name ("" = blank COMMON) and position in it.
    pub common: Option<(String, usize)>,
    /// Position in the dummy argument list.
    pub dummy: Option<usize>,
    /// PARAMETER value as Fortran text (`2000`, `0.5`, `.true.`, `'abc'`).
    pub param: Option<String>,
    /// Other names sharing storage through EQUIVALENCE.
    pub aliases: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommonRecord {
    /// Block name ("" = blank COMMON).
    pub block: String,
    /// (member, byte offset, bytes), offsets and sizes when known.
    pub members: Vec<(String, Option<u64>, Option<u64>)>,
}

/// A parallelization scheme with its estimate (filled by the experts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeRecord {
    pub expert: String,
    pub name: String,
    pub distribution: Value,
    pub alignment: Value,
    pub loops: Value,
    pub regions: Value,
    pub machine: Value,
    pub cost_computation: f64,
    pub cost_communication: f64,
    pub cost_transfers: f64,
    pub total: f64,
    pub chosen: bool,
}

/// A variant an expert considered and rejected, with every reason (`reasons`: JSON, see
/// `experts::scheme::Reason`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RejectedRecord {
    pub expert: String,
    pub name: String,
    pub reasons: Value,
}

/// A generated program or other text produced from a scheme.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactRecord {
    pub kind: String,
    /// Relative path where it was written, if it was.
    pub path: Option<String>,
    pub text: String,
}

/// One measured run of an artifact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub command: String,
    pub processes: u32,
    pub threads: u32,
    pub wall_seconds: f64,
    pub loops: Value,
    pub communication: Value,
}

/// What [`crate::Db::find_loop`] returns: a loop of the current analysis with its unit, file
/// and the control-flow block holding its DO statement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopDetail {
    pub analysis_id: i64,
    /// Unit name (lower case).
    pub unit: String,
    /// Relative path of the unit's file.
    pub file: String,
    #[serde(rename = "loop")]
    pub loop_: LoopRecord,
    pub block: Option<BlockView>,
}

/// A block as shown to people: variables mapped to their rendered sections (`A(2:1999,*)`,
/// `EPS` for scalars), successor block numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockView {
    pub num: u32,
    pub lines: Vec<u32>,
    pub reads: BTreeMap<String, String>,
    pub writes: BTreeMap<String, String>,
    pub next: Vec<u32>,
}

/// Edge kind as stored.
pub fn edge_kind_name(k: EdgeKind) -> &'static str {
    match k {
        EdgeKind::Fallthrough => "fallthrough",
        EdgeKind::Jump => "jump",
        EdgeKind::Branch => "branch",
        EdgeKind::LoopExit => "loop_exit",
        EdgeKind::Back => "back",
    }
}

/// A PARAMETER value as Fortran text.
pub fn const_text(c: &Const) -> String {
    match c {
        Const::Int(i) => i.to_string(),
        Const::Real(r) => format!("{r:?}"),
        Const::Logical(b) => if *b { ".true." } else { ".false." }.to_string(),
        Const::Str(s) => format!("'{}'", s.replace('\'', "''")),
    }
}

/// Hash of the file as the analyzer read it: the bytes on disk when they still decode to the
/// analyzed text, else the text itself (the file changed or vanished since).
fn file_hash(path: &Path, text: &str) -> String {
    match std::fs::read(path) {
        Ok(bytes) if String::from_utf8_lossy(&bytes) == text => content_hash(&bytes),
        _ => content_hash(text.as_bytes()),
    }
}

impl AnalysisRecord {
    /// Everything the database keeps about an analysis, paths relative to `db`'s root.
    pub fn from_analysis(a: &Analysis, db: &crate::Db) -> AnalysisRecord {
        Self::from_analysis_at(a, db.root())
    }

    /// As [`from_analysis`](Self::from_analysis), relative to the given project root.
    pub fn from_analysis_at(a: &Analysis, root: &Path) -> AnalysisRecord {
        let p = &a.program;
        let rel: Vec<String> = p
            .map
            .files
            .iter()
            .map(|f| crate::paths::relative_to(root, &f.path))
            .collect();
        let files = p
            .map
            .files
            .iter()
            .zip(&rel)
            .map(|(f, r)| FileRecord {
                path: r.clone(),
                hash: file_hash(&f.path, &f.text),
                form: match f.form {
                    analyzer::source::SourceForm::Fixed => "fixed".into(),
                    analyzer::source::SourceForm::Free => "free".into(),
                },
                included: f.included,
                text: f.text.clone(),
            })
            .collect();
        let units = p
            .units
            .iter()
            .enumerate()
            .map(|(ui, u)| {
                let sema = &p.semas[ui];
                let g = cfg::build(u, sema, &p.summaries, true);
                let blocks = g
                    .blocks
                    .iter()
                    .map(|b| BlockRecord {
                        num: b.id.0 + 1,
                        lines: b.lines.iter().copied().collect(),
                        reads: b.reads.clone(),
                        writes: b.writes.clone(),
                        succs: g
                            .succs(b.id)
                            .into_iter()
                            .map(|(to, e)| EdgeRecord {
                                to: to.0 + 1,
                                at: e.at as u32,
                                kind: edge_kind_name(e.kind).into(),
                            })
                            .collect(),
                    })
                    .collect();
                let symbols = sema
                    .symbols
                    .values()
                    .map(|s| SymbolRecord {
                        name: s.name.clone(),
                        ty: s.ty.name(),
                        rank: s.rank() as u32,
                        bounds: s.bounds(),
                        common: s.common.clone(),
                        dummy: s.dummy,
                        param: s.param.as_ref().map(const_text),
                        aliases: s.aliases.iter().cloned().collect(),
                    })
                    .collect();
                let commons = sema
                    .commons
                    .iter()
                    .map(|(block, ms)| CommonRecord {
                        block: block.clone(),
                        members: ms
                            .iter()
                            .map(|m| (m.name.clone(), m.offset, m.bytes))
                            .collect(),
                    })
                    .collect();
                let calls = p
                    .call_graph
                    .edges
                    .iter()
                    .filter(|(caller, _, _)| *caller == ui)
                    .map(|(_, callee, line)| (callee.clone(), *line))
                    .collect();
                UnitRecord {
                    name: u.name.clone(),
                    kind: u.kind.as_str().into(),
                    file: rel[u.file.0 as usize].clone(),
                    line: u.span.line,
                    end_line: u.end_line,
                    loops: a.loops[ui].iter().map(LoopRecord::from_info).collect(),
                    blocks,
                    symbols,
                    commons,
                    calls,
                    summary: p
                        .summaries
                        .get(&u.name)
                        .filter(|_| p.units.iter().position(|x| x.name == u.name) == Some(ui))
                        .map(summary_json),
                }
            })
            .collect();
        AnalysisRecord {
            tool_version: crate::TOOL_VERSION.to_string(),
            files,
            units,
            diagnostics: p
                .diags
                .iter()
                .map(|d| serde_json::to_value(d).unwrap_or(Value::Null))
                .collect(),
            report: a.to_json(),
        }
    }

    /// The key of exactly the files of this record (top-level and INCLUDEd) with `options`.
    pub fn key(&self, options: &str) -> AnalysisKey {
        AnalysisKey {
            files: self
                .files
                .iter()
                .map(|f| (f.path.clone(), f.hash.clone()))
                .collect(),
            options: options.to_string(),
        }
    }
}

impl LoopRecord {
    pub fn from_info(l: &analyzer::loops::LoopInfo) -> LoopRecord {
        LoopRecord {
            line: l.line,
            end_line: l.end_line,
            var: l.var.clone(),
            depth: l.depth,
            lower: l.lower,
            upper: l.upper,
            step: l.step,
            iterations: l.trip_count,
            verdict: l.verdict.as_str().into(),
            private: l.private.clone(),
            reductions: l
                .reductions
                .iter()
                .map(|r| ReductionRecord {
                    op: r.op.as_str().into(),
                    var: r.var.clone(),
                    loc: r.loc.clone(),
                })
                .collect(),
            dependences: l
                .dependences
                .iter()
                .map(|d| DependenceRecord {
                    array: d.array.clone(),
                    kind: d.kind.as_str().into(),
                    distance: d.distance.clone(),
                    source_line: d.source_line,
                    sink_line: d.sink_line,
                })
                .collect(),
            blockers: l
                .blockers
                .iter()
                .map(|b| BlockerRecord {
                    code: b.code.as_str().into(),
                    message: b.message.clone(),
                    line: b.line,
                })
                .collect(),
            overridden_by: l.overridden_by.clone(),
        }
    }
}

impl BlockRecord {
    /// The block as shown to people, sections rendered with the unit's declared bounds.
    pub fn view(&self, symbols: &[SymbolRecord]) -> BlockView {
        let render = |m: &BTreeMap<String, SectionSet>| -> BTreeMap<String, String> {
            m.iter()
                .map(|(n, s)| {
                    let bounds = symbols
                        .iter()
                        .find(|x| &x.name == n)
                        .map(|x| x.bounds.clone())
                        .unwrap_or_default();
                    (n.clone(), s.display_with(&n.to_uppercase(), &bounds))
                })
                .collect()
        };
        let mut next: Vec<u32> = self.succs.iter().map(|e| e.to).collect();
        next.dedup();
        BlockView {
            num: self.num,
            lines: self.lines.clone(),
            reads: render(&self.reads),
            writes: render(&self.writes),
            next,
        }
    }
}

/// JSON form of a procedure's mod/ref summary (see [`UnitRecord::summary`]).
fn summary_json(s: &analyzer::access::Summary) -> serde_json::Value {
    let eff = |e: &analyzer::access::Effect| {
        serde_json::json!({
            "read": !e.read.is_empty(),
            "written": !e.write.is_empty(),
            "whole": e.read.iter().chain(&e.write).any(|x| x.is_none()),
        })
    };
    let args: Vec<serde_json::Value> = s
        .args
        .iter()
        .map(|(k, e)| {
            let mut v = eff(e);
            v["position"] = serde_json::json!(k);
            v
        })
        .collect();
    let commons: Vec<serde_json::Value> = s
        .commons
        .iter()
        .map(|((block, member), e)| {
            let mut v = eff(e);
            v["block"] = serde_json::json!(block);
            v["member"] = if *member == usize::MAX {
                serde_json::Value::Null
            } else {
                serde_json::json!(member)
            };
            v["name"] = serde_json::json!(s.common_names.get(&(block.clone(), *member)));
            v
        })
        .collect();
    serde_json::json!({
        "has_io": s.has_io,
        "has_stop": s.has_stop,
        "keeps_state": s.keeps_state,
        "recursive": s.recursive,
        "unknown_calls": s.unknown_calls,
        "args": args,
        "commons": commons,
    })
}
