//! Reading and writing: analyses (normalized into the fact tables), user refinements,
//! schemes, artifacts, runs, and the JSON export.

use crate::records::*;
use crate::{At, Db, DbError, SCHEMA_VERSION, TOOL_VERSION};
use analyzer::overrides::{LoopRef, Override};
use analyzer::sections::SectionSet;
use rusqlite::types::{Type, Value as SqlValue, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

fn to_json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("records always serialize")
}

/// A JSON column.
fn json_col<T: DeserializeOwned>(r: &Row, i: usize) -> rusqlite::Result<T> {
    let s: String = r.get(i)?;
    serde_json::from_str(&s).map_err(|e| {
        let column = r.as_ref().column_name(i).map(str::to_string).unwrap_or_else(|_| format!("#{i}"));
        rusqlite::Error::FromSqlConversionFailure(i, Type::Text, Box::new(crate::ColumnJson { column, error: e }))
    })
}

/// A u64 column (INTEGER when it fits in i64, TEXT otherwise).
fn u64_sql(v: Option<u64>) -> SqlValue {
    match v {
        None => SqlValue::Null,
        Some(x) => match i64::try_from(x) {
            Ok(i) => SqlValue::Integer(i),
            Err(_) => SqlValue::Text(x.to_string()),
        },
    }
}

fn u64_col(r: &Row, i: usize) -> rusqlite::Result<Option<u64>> {
    let bad =
        |t: Type| rusqlite::Error::FromSqlConversionFailure(i, t, "not an unsigned integer".into());
    match r.get_ref(i)? {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(x) => u64::try_from(x).map(Some).map_err(|_| bad(Type::Integer)),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse().ok())
            .map(Some)
            .ok_or_else(|| bad(Type::Text)),
        _ => Err(bad(Type::Blob)),
    }
}

/// A REAL column where NULL stands for NaN (SQLite stores NaN as NULL).
fn f64_col(r: &Row, i: usize) -> rusqlite::Result<f64> {
    Ok(r.get::<_, Option<f64>>(i)?.unwrap_or(f64::NAN))
}

fn usize_opt(v: Option<usize>) -> Option<i64> {
    v.map(|x| x as i64)
}

const LOOP_COLS: &str = "l.line, l.end_line, l.var, l.depth, l.lower, l.upper, l.step, \
     l.iterations, l.verdict, l.private, l.reductions, l.overridden_by";

/// A loop from [`LOOP_COLS`] starting at column `b` (dependences and blockers left empty).
fn loop_row(r: &Row, b: usize) -> rusqlite::Result<LoopRecord> {
    Ok(LoopRecord {
        line: r.get(b)?,
        end_line: r.get(b + 1)?,
        var: r.get(b + 2)?,
        depth: r.get(b + 3)?,
        lower: r.get(b + 4)?,
        upper: r.get(b + 5)?,
        step: r.get(b + 6)?,
        iterations: u64_col(r, b + 7)?,
        verdict: r.get(b + 8)?,
        private: json_col(r, b + 9)?,
        reductions: json_col(r, b + 10)?,
        dependences: vec![],
        blockers: vec![],
        overridden_by: json_col(r, b + 11)?,
    })
}

fn dep_row(r: &Row, b: usize) -> rusqlite::Result<DependenceRecord> {
    Ok(DependenceRecord {
        array: r.get(b)?,
        kind: r.get(b + 1)?,
        distance: json_col(r, b + 2)?,
        source_line: r.get(b + 3)?,
        sink_line: r.get(b + 4)?,
    })
}

fn blocker_row(r: &Row, b: usize) -> rusqlite::Result<BlockerRecord> {
    Ok(BlockerRecord {
        code: r.get(b)?,
        message: r.get(b + 1)?,
        line: r.get(b + 2)?,
    })
}

fn not_found_analysis(id: i64) -> DbError {
    DbError::NotFound(format!("no analysis #{id} in the project database"))
}

/// Insert one analysis and all its facts; returns its id.
fn insert_analysis(
    tx: &Connection,
    p: &Path,
    key: &AnalysisKey,
    rec: &AnalysisRecord,
) -> Result<i64, DbError> {
    let seq: i64 = tx
        .query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM analyses", [], |r| {
            r.get(0)
        })
        .at(p)?;
    tx.execute(
        "INSERT INTO analyses (seq, tool_version, key_digest, key_files, key_options, report)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            seq,
            rec.tool_version,
            key.digest(),
            to_json(&key.files),
            key.options,
            to_json(&rec.report)
        ],
    )
    .at(p)?;
    let aid = tx.last_insert_rowid();

    let mut file_ids: HashMap<&str, i64> = HashMap::new();
    {
        let mut st = tx
            .prepare_cached(
                "INSERT INTO files (analysis_id, ord, path, hash, form, included, text)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .at(p)?;
        for (i, f) in rec.files.iter().enumerate() {
            st.execute(params![
                aid, i as i64, f.path, f.hash, f.form, f.included, f.text
            ])
            .at(p)?;
            file_ids
                .entry(f.path.as_str())
                .or_insert(tx.last_insert_rowid());
        }
    }

    let mut ins_unit = tx
        .prepare_cached(
            "INSERT INTO units (analysis_id, ord, name, kind, file_id, line, end_line, summary)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .at(p)?;
    let mut ins_loop = tx
        .prepare_cached(
            "INSERT INTO loops (unit_id, file_id, ord, line, end_line, var, depth, lower, upper,
                 step, iterations, verdict, private, reductions, overridden_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )
        .at(p)?;
    let mut ins_dep = tx
        .prepare_cached(
            "INSERT INTO dependences (loop_id, ord, array, kind, distance, source_line, sink_line)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .at(p)?;
    let mut ins_blocker = tx
        .prepare_cached(
            "INSERT INTO blockers (loop_id, ord, code, message, line) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .at(p)?;
    let mut ins_block = tx
        .prepare_cached("INSERT INTO blocks (unit_id, num) VALUES (?1, ?2)")
        .at(p)?;
    let mut ins_line = tx
        .prepare_cached("INSERT INTO block_lines (block_id, line) VALUES (?1, ?2)")
        .at(p)?;
    let mut ins_var = tx
        .prepare_cached(
            "INSERT INTO block_vars (block_id, access, name, rank, section, display)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .at(p)?;
    let mut ins_edge = tx
        .prepare_cached(
            "INSERT INTO edges (from_block, ord, to_block, at, kind) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .at(p)?;
    let mut ins_sym = tx
        .prepare_cached(
            "INSERT INTO symbols (unit_id, ord, name, ty, rank, bounds, common_block, common_pos,
                 dummy, param, aliases)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )
        .at(p)?;
    let mut ins_common = tx
        .prepare_cached("INSERT INTO commons (unit_id, ord, block) VALUES (?1, ?2, ?3)")
        .at(p)?;
    let mut ins_member = tx
        .prepare_cached(
            "INSERT INTO common_members (common_id, ord, name, offset, bytes)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .at(p)?;
    let mut ins_call = tx
        .prepare_cached("INSERT INTO calls (unit_id, ord, callee, line) VALUES (?1, ?2, ?3, ?4)")
        .at(p)?;

    for (ui, u) in rec.units.iter().enumerate() {
        let Some(&fid) = file_ids.get(u.file.as_str()) else {
            return Err(DbError::NotFound(format!(
                "unit `{}` is in file {}, which is not among the analysis' files",
                u.name, u.file
            )));
        };
        ins_unit
            .execute(params![
                aid,
                ui as i64,
                u.name,
                u.kind,
                fid,
                u.line,
                u.end_line,
                u.summary.as_ref().map(|v| v.to_string())
            ])
            .at(p)?;
        let uid = tx.last_insert_rowid();
        for (li, l) in u.loops.iter().enumerate() {
            ins_loop
                .execute(params![
                    uid,
                    fid,
                    li as i64,
                    l.line,
                    l.end_line,
                    l.var,
                    l.depth,
                    l.lower,
                    l.upper,
                    l.step,
                    u64_sql(l.iterations),
                    l.verdict,
                    to_json(&l.private),
                    to_json(&l.reductions),
                    to_json(&l.overridden_by)
                ])
                .at(p)?;
            let lid = tx.last_insert_rowid();
            for (di, d) in l.dependences.iter().enumerate() {
                ins_dep
                    .execute(params![
                        lid,
                        di as i64,
                        d.array,
                        d.kind,
                        to_json(&d.distance),
                        d.source_line,
                        d.sink_line
                    ])
                    .at(p)?;
            }
            for (bi, b) in l.blockers.iter().enumerate() {
                ins_blocker
                    .execute(params![lid, bi as i64, b.code, b.message, b.line])
                    .at(p)?;
            }
        }
        let bounds = |n: &str| {
            u.symbols
                .iter()
                .find(|s| s.name == n)
                .map(|s| s.bounds.clone())
                .unwrap_or_default()
        };
        let mut block_ids: HashMap<u32, i64> = HashMap::new();
        for b in &u.blocks {
            ins_block.execute(params![uid, b.num]).at(p)?;
            let bid = tx.last_insert_rowid();
            block_ids.insert(b.num, bid);
            for line in &b.lines {
                ins_line.execute(params![bid, line]).at(p)?;
            }
            for (access, vars) in [("read", &b.reads), ("write", &b.writes)] {
                for (name, set) in vars {
                    ins_var
                        .execute(params![
                            bid,
                            access,
                            name,
                            set.rank() as i64,
                            to_json(set),
                            set.display_with(&name.to_uppercase(), &bounds(name))
                        ])
                        .at(p)?;
                }
            }
        }
        for b in &u.blocks {
            let from = block_ids[&b.num];
            for (ei, e) in b.succs.iter().enumerate() {
                let Some(&to) = block_ids.get(&e.to) else {
                    return Err(DbError::NotFound(format!(
                        "unit `{}`: block {} has an edge to block {}, which does not exist",
                        u.name, b.num, e.to
                    )));
                };
                ins_edge
                    .execute(params![from, ei as i64, to, e.at, e.kind])
                    .at(p)?;
            }
        }
        for (si, s) in u.symbols.iter().enumerate() {
            ins_sym
                .execute(params![
                    uid,
                    si as i64,
                    s.name,
                    s.ty,
                    s.rank,
                    to_json(&s.bounds),
                    s.common.as_ref().map(|c| c.0.as_str()),
                    s.common.as_ref().map(|c| c.1 as i64),
                    usize_opt(s.dummy),
                    s.param,
                    to_json(&s.aliases)
                ])
                .at(p)?;
        }
        for (ci, c) in u.commons.iter().enumerate() {
            ins_common.execute(params![uid, ci as i64, c.block]).at(p)?;
            let cid = tx.last_insert_rowid();
            for (mi, (name, offset, bytes)) in c.members.iter().enumerate() {
                ins_member
                    .execute(params![
                        cid,
                        mi as i64,
                        name,
                        u64_sql(*offset),
                        u64_sql(*bytes)
                    ])
                    .at(p)?;
            }
        }
        for (ci, (callee, line)) in u.calls.iter().enumerate() {
            ins_call
                .execute(params![uid, ci as i64, callee, line])
                .at(p)?;
        }
    }

    let mut ins_diag = tx
        .prepare_cached(
            "INSERT INTO diagnostics (analysis_id, ord, code, severity, message, file, line, col, json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .at(p)?;
    for (i, d) in rec.diagnostics.iter().enumerate() {
        let loc = &d["location"];
        ins_diag
            .execute(params![
                aid,
                i as i64,
                d["code"].as_str(),
                d["severity"].as_str(),
                d["message"].as_str(),
                loc["file"].as_str(),
                loc["line"].as_i64(),
                loc["col"].as_i64(),
                to_json(d)
            ])
            .at(p)?;
    }
    Ok(aid)
}

/// Rebuild an analysis record from the fact tables.
fn load_analysis_in(conn: &Connection, p: &Path, id: i64) -> Result<AnalysisRecord, DbError> {
    let (tool_version, report): (String, String) = conn
        .query_row(
            "SELECT tool_version, report FROM analyses WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .at(p)?
        .ok_or_else(|| not_found_analysis(id))?;
    let report: Value = serde_json::from_str(&report).map_err(|e| bad_report(p, id, e))?;

    let mut file_path: HashMap<i64, String> = HashMap::new();
    let mut files = vec![];
    {
        let mut st = conn
            .prepare_cached(
                "SELECT id, path, hash, form, included, text FROM files
                 WHERE analysis_id = ?1 ORDER BY ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let fid: i64 = r.get(0).at(p)?;
            let f = FileRecord {
                path: r.get(1).at(p)?,
                hash: r.get(2).at(p)?,
                form: r.get(3).at(p)?,
                included: r.get(4).at(p)?,
                text: r.get(5).at(p)?,
            };
            file_path.insert(fid, f.path.clone());
            files.push(f);
        }
    }

    let mut units: Vec<UnitRecord> = vec![];
    let mut unit_idx: HashMap<i64, usize> = HashMap::new();
    {
        let mut st = conn
            .prepare_cached(
                "SELECT id, name, kind, file_id, line, end_line, summary FROM units
                 WHERE analysis_id = ?1 ORDER BY ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let uid: i64 = r.get(0).at(p)?;
            let fid: i64 = r.get(3).at(p)?;
            unit_idx.insert(uid, units.len());
            units.push(UnitRecord {
                name: r.get(1).at(p)?,
                kind: r.get(2).at(p)?,
                file: file_path.get(&fid).cloned().unwrap_or_default(),
                line: r.get(4).at(p)?,
                end_line: r.get(5).at(p)?,
                loops: vec![],
                blocks: vec![],
                symbols: vec![],
                commons: vec![],
                calls: vec![],
                summary: {
                    let t: Option<String> = r.get(6).at(p)?;
                    t.and_then(|t| serde_json::from_str(&t).ok())
                },
            });
        }
    }

    // Loops, their dependences and blockers.
    let mut loop_idx: HashMap<i64, (usize, usize)> = HashMap::new();
    {
        let sql = format!(
            "SELECT l.id, l.unit_id, {LOOP_COLS} FROM loops l JOIN units u ON l.unit_id = u.id
             WHERE u.analysis_id = ?1 ORDER BY u.ord, l.ord"
        );
        let mut st = conn.prepare_cached(&sql).at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let lid: i64 = r.get(0).at(p)?;
            let ui = unit_idx[&r.get::<_, i64>(1).at(p)?];
            loop_idx.insert(lid, (ui, units[ui].loops.len()));
            units[ui].loops.push(loop_row(r, 2).at(p)?);
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT d.loop_id, d.array, d.kind, d.distance, d.source_line, d.sink_line
                 FROM dependences d JOIN loops l ON d.loop_id = l.id JOIN units u ON l.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY d.loop_id, d.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, li) = loop_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].loops[li].dependences.push(dep_row(r, 1).at(p)?);
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT b.loop_id, b.code, b.message, b.line
                 FROM blockers b JOIN loops l ON b.loop_id = l.id JOIN units u ON l.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY b.loop_id, b.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, li) = loop_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].loops[li].blockers.push(blocker_row(r, 1).at(p)?);
        }
    }

    // Control-flow graphs.
    let mut block_idx: HashMap<i64, (usize, usize)> = HashMap::new();
    {
        let mut st = conn
            .prepare_cached(
                "SELECT b.id, b.unit_id, b.num FROM blocks b JOIN units u ON b.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY u.ord, b.num",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let bid: i64 = r.get(0).at(p)?;
            let ui = unit_idx[&r.get::<_, i64>(1).at(p)?];
            block_idx.insert(bid, (ui, units[ui].blocks.len()));
            units[ui].blocks.push(BlockRecord {
                num: r.get(2).at(p)?,
                lines: vec![],
                reads: BTreeMap::new(),
                writes: BTreeMap::new(),
                succs: vec![],
            });
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT bl.block_id, bl.line FROM block_lines bl
                 JOIN blocks b ON bl.block_id = b.id JOIN units u ON b.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY bl.block_id, bl.line",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, bi) = block_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].blocks[bi].lines.push(r.get(1).at(p)?);
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT v.block_id, v.access, v.name, v.section FROM block_vars v
                 JOIN blocks b ON v.block_id = b.id JOIN units u ON b.unit_id = u.id
                 WHERE u.analysis_id = ?1",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, bi) = block_idx[&r.get::<_, i64>(0).at(p)?];
            let access: String = r.get(1).at(p)?;
            let name: String = r.get(2).at(p)?;
            let set: SectionSet = json_col(r, 3).at(p)?;
            let b = &mut units[ui].blocks[bi];
            if access == "write" {
                b.writes.insert(name, set);
            } else {
                b.reads.insert(name, set);
            }
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT e.from_block, t.num, e.at, e.kind FROM edges e
                 JOIN blocks t ON e.to_block = t.id
                 JOIN blocks b ON e.from_block = b.id JOIN units u ON b.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY e.from_block, e.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, bi) = block_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].blocks[bi].succs.push(EdgeRecord {
                to: r.get(1).at(p)?,
                at: r.get(2).at(p)?,
                kind: r.get(3).at(p)?,
            });
        }
    }

    // Symbols, COMMON blocks, calls.
    {
        let mut st = conn
            .prepare_cached(
                "SELECT s.unit_id, s.name, s.ty, s.rank, s.bounds, s.common_block, s.common_pos,
                        s.dummy, s.param, s.aliases
                 FROM symbols s JOIN units u ON s.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY u.ord, s.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let ui = unit_idx[&r.get::<_, i64>(0).at(p)?];
            let block: Option<String> = r.get(5).at(p)?;
            let pos: Option<i64> = r.get(6).at(p)?;
            let dummy: Option<i64> = r.get(7).at(p)?;
            units[ui].symbols.push(SymbolRecord {
                name: r.get(1).at(p)?,
                ty: r.get(2).at(p)?,
                rank: r.get(3).at(p)?,
                bounds: json_col(r, 4).at(p)?,
                common: block.map(|b| (b, pos.unwrap_or(0) as usize)),
                dummy: dummy.map(|d| d as usize),
                param: r.get(8).at(p)?,
                aliases: json_col(r, 9).at(p)?,
            });
        }
    }
    {
        let mut common_idx: HashMap<i64, (usize, usize)> = HashMap::new();
        let mut st = conn
            .prepare_cached(
                "SELECT c.id, c.unit_id, c.block FROM commons c JOIN units u ON c.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY u.ord, c.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let cid: i64 = r.get(0).at(p)?;
            let ui = unit_idx[&r.get::<_, i64>(1).at(p)?];
            common_idx.insert(cid, (ui, units[ui].commons.len()));
            units[ui].commons.push(CommonRecord {
                block: r.get(2).at(p)?,
                members: vec![],
            });
        }
        drop(rows);
        let mut st = conn
            .prepare_cached(
                "SELECT m.common_id, m.name, m.offset, m.bytes FROM common_members m
                 JOIN commons c ON m.common_id = c.id JOIN units u ON c.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY m.common_id, m.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let (ui, ci) = common_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].commons[ci].members.push((
                r.get(1).at(p)?,
                u64_col(r, 2).at(p)?,
                u64_col(r, 3).at(p)?,
            ));
        }
    }
    {
        let mut st = conn
            .prepare_cached(
                "SELECT c.unit_id, c.callee, c.line FROM calls c JOIN units u ON c.unit_id = u.id
                 WHERE u.analysis_id = ?1 ORDER BY u.ord, c.ord",
            )
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            let ui = unit_idx[&r.get::<_, i64>(0).at(p)?];
            units[ui].calls.push((r.get(1).at(p)?, r.get(2).at(p)?));
        }
    }

    let mut diagnostics = vec![];
    {
        let mut st = conn
            .prepare_cached("SELECT json FROM diagnostics WHERE analysis_id = ?1 ORDER BY ord")
            .at(p)?;
        let mut rows = st.query([id]).at(p)?;
        while let Some(r) = rows.next().at(p)? {
            diagnostics.push(json_col::<Value>(r, 0).at(p)?);
        }
    }

    Ok(AnalysisRecord {
        tool_version,
        files,
        units,
        diagnostics,
        report,
    })
}

fn current_id(conn: &Connection, p: &Path) -> Result<Option<i64>, DbError> {
    conn.query_row(
        "SELECT id FROM analyses ORDER BY seq DESC LIMIT 1",
        [],
        |r| r.get(0),
    )
    .optional()
    .at(p)
}

/// The rows of `alignments` derived from a scheme's `alignment` value: one per element of an
/// array (the array named by its `"array"` field, if any), one per entry of an object (the key
/// names the array), nothing for other values.
fn alignment_rows(v: &Value) -> Vec<(Option<String>, Value)> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|x| (x["array"].as_str().map(str::to_string), x.clone()))
            .collect(),
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| (Some(k.clone()), x.clone()))
            .collect(),
        _ => vec![],
    }
}

impl Db {
    fn write_tx(&mut self) -> Result<rusqlite::Transaction<'_>, DbError> {
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&self.path)
    }

    // ----- Analyses ------------------------------------------------------------------------

    /// Id of a stored analysis with exactly this key (the most current one if several).
    pub fn find_analysis(&self, key: &AnalysisKey) -> Result<Option<i64>, DbError> {
        self.conn
            .query_row(
                "SELECT id FROM analyses WHERE key_digest = ?1 AND key_files = ?2 AND key_options = ?3
                 ORDER BY seq DESC LIMIT 1",
                params![key.digest(), to_json(&key.files), key.options],
                |r| r.get(0),
            )
            .optional()
            .at(&self.path)
    }

    /// Store an analysis in ONE transaction; it becomes the current analysis. Older analyses
    /// without schemes are deleted in the same transaction (they can be recomputed); older ones
    /// with schemes are kept, with their schemes, artifacts and runs.
    pub fn store_analysis(
        &mut self,
        key: &AnalysisKey,
        rec: &AnalysisRecord,
    ) -> Result<i64, DbError> {
        self.store_analysis_with_hook(key, rec, &mut || {})
    }

    /// [`store_analysis`](Self::store_analysis), calling `before_commit` when everything is
    /// written but not yet committed (for tools and tests that observe a transaction in flight;
    /// the write lock is held while it runs).
    pub fn store_analysis_with_hook(
        &mut self,
        key: &AnalysisKey,
        rec: &AnalysisRecord,
        before_commit: &mut dyn FnMut(),
    ) -> Result<i64, DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let id = insert_current_analysis(&tx, &path, key, rec)?;
        before_commit();
        tx.commit().at(&path)?;
        Ok(id)
    }

    /// Make a stored analysis the current one again (e.g. one found by key).
    pub fn set_current(&mut self, id: i64) -> Result<(), DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let n = tx
            .execute(
                "UPDATE analyses SET seq = (SELECT MAX(seq) + 1 FROM analyses) WHERE id = ?1",
                [id],
            )
            .at(&path)?;
        if n == 0 {
            return Err(not_found_analysis(id));
        }
        tx.commit().at(&path)
    }

    /// Rebuild a stored analysis from the fact tables.
    pub fn load_analysis(&self, id: i64) -> Result<AnalysisRecord, DbError> {
        self.snapshot(|db| load_analysis_in(&db.conn, &db.path, id))
    }

    /// The current analysis (the latest stored, or the one made current), if any.
    pub fn latest_analysis(&self) -> Result<Option<(i64, AnalysisRecord)>, DbError> {
        self.snapshot(|db| match current_id(&db.conn, &db.path)? {
            None => Ok(None),
            Some(id) => Ok(Some((id, load_analysis_in(&db.conn, &db.path, id)?))),
        })
    }

    /// Id of the current analysis, if any.
    pub fn current_analysis(&self) -> Result<Option<i64>, DbError> {
        current_id(&self.conn, &self.path)
    }

    /// The stored rendered report: the fast path for re-runs.
    pub fn report_json(&self, id: i64) -> Result<Value, DbError> {
        let s: String = self
            .conn
            .query_row("SELECT report FROM analyses WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .at(&self.path)?
            .ok_or_else(|| not_found_analysis(id))?;
        serde_json::from_str(&s).map_err(|e| bad_report(&self.path, id, e))
    }

    /// The key an analysis was stored under.
    pub fn analysis_key(&self, id: i64) -> Result<AnalysisKey, DbError> {
        self.conn
            .query_row(
                "SELECT key_files, key_options FROM analyses WHERE id = ?1",
                [id],
                |r| {
                    Ok(AnalysisKey {
                        files: json_col(r, 0)?,
                        options: r.get(1)?,
                    })
                },
            )
            .optional()
            .at(&self.path)?
            .ok_or_else(|| not_found_analysis(id))
    }

    /// Every file an analysis read: (relative path, content hash, included by INCLUDE).
    pub fn analysis_inputs(&self, id: i64) -> Result<Vec<(String, String, bool)>, DbError> {
        self.snapshot(|db| {
            let exists: Option<i64> = db
                .conn
                .query_row("SELECT id FROM analyses WHERE id = ?1", [id], |r| r.get(0))
                .optional()
                .at(&db.path)?;
            if exists.is_none() {
                return Err(not_found_analysis(id));
            }
            let mut st = db
                .conn
                .prepare_cached(
                    "SELECT path, hash, included FROM files WHERE analysis_id = ?1 ORDER BY ord",
                )
                .at(&db.path)?;
            let v = st
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .at(&db.path)?
                .collect::<Result<Vec<_>, _>>()
                .at(&db.path)?;
            Ok(v)
        })
    }

    /// Loops of the current analysis whose DO statement is at `line` of `file`. `file` is
    /// matched against the stored (relative) unit file paths exactly or as a path suffix
    /// (`jac.f` matches `samples/jacobi/jac.f`); an absolute path is first made relative.
    pub fn find_loop(&self, file: &str, line: u32) -> Result<Vec<LoopDetail>, DbError> {
        let query = if Path::new(file).is_absolute() {
            self.relative(Path::new(file))
        } else {
            file.to_string()
        };
        let want = LoopRef { file: query, line };
        self.snapshot(|db| {
            let (c, p) = (&db.conn, db.path.as_path());
            let Some(aid) = current_id(c, p)? else {
                return Ok(vec![]);
            };
            let mut st = c
                .prepare_cached("SELECT id, path FROM files WHERE analysis_id = ?1 ORDER BY ord")
                .at(p)?;
            let files: Vec<(i64, String)> = st
                .query_map([aid], |r| Ok((r.get(0)?, r.get(1)?)))
                .at(p)?
                .collect::<Result<_, _>>()
                .at(p)?;
            let mut out = vec![];
            for (fid, path) in files.iter().filter(|(_, f)| want.matches_file(f)) {
                let sql = format!(
                    "SELECT l.id, u.id, u.name, {LOOP_COLS} FROM loops l
                     JOIN units u ON l.unit_id = u.id
                     WHERE l.file_id = ?1 AND l.line = ?2 ORDER BY u.ord, l.ord"
                );
                let mut st = c.prepare_cached(&sql).at(p)?;
                let found: Vec<(i64, i64, String, LoopRecord)> = st
                    .query_map(params![fid, line], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, loop_row(r, 3)?))
                    })
                    .at(p)?
                    .collect::<Result<_, _>>()
                    .at(p)?;
                for (lid, uid, unit, mut l) in found {
                    let mut st = c
                        .prepare_cached(
                            "SELECT array, kind, distance, source_line, sink_line
                             FROM dependences WHERE loop_id = ?1 ORDER BY ord",
                        )
                        .at(p)?;
                    l.dependences = st
                        .query_map([lid], |r| dep_row(r, 0))
                        .at(p)?
                        .collect::<Result<_, _>>()
                        .at(p)?;
                    let mut st = c
                        .prepare_cached(
                            "SELECT code, message, line FROM blockers WHERE loop_id = ?1 ORDER BY ord",
                        )
                        .at(p)?;
                    l.blockers = st
                        .query_map([lid], |r| blocker_row(r, 0))
                        .at(p)?
                        .collect::<Result<_, _>>()
                        .at(p)?;
                    let block = block_view_at(c, p, uid, l.line, l.end_line)?;
                    out.push(LoopDetail {
                        analysis_id: aid,
                        unit,
                        file: path.clone(),
                        loop_: l,
                        block,
                    });
                }
            }
            Ok(out)
        })
    }

    // ----- User refinements ----------------------------------------------------------------

    /// Record a refinement; an identical one already recorded keeps its id, which is returned.
    pub fn add_override(&mut self, o: &Override) -> Result<i64, DbError> {
        self.put_override(o, None)
    }

    /// [`add_override`](Self::add_override) with a free-text note (replacing the note of an
    /// identical refinement).
    pub fn add_override_with_note(&mut self, o: &Override, note: &str) -> Result<i64, DbError> {
        self.put_override(o, Some(note))
    }

    fn put_override(&mut self, o: &Override, note: Option<&str>) -> Result<i64, DbError> {
        let path = self.path.clone();
        let body = to_json(o);
        let at = o.loop_ref();
        let tx = self.write_tx()?;
        tx.execute(
            "INSERT INTO overrides (kind, file, line, body, note) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (body) DO UPDATE SET note = COALESCE(excluded.note, overrides.note)",
            params![
                o.kind(),
                at.map(|a| a.file.as_str()),
                at.map(|a| a.line),
                body,
                note
            ],
        )
        .at(&path)?;
        let id: i64 = tx
            .query_row("SELECT id FROM overrides WHERE body = ?1", [&body], |r| {
                r.get(0)
            })
            .at(&path)?;
        tx.commit().at(&path)?;
        Ok(id)
    }

    /// Every recorded refinement, oldest first.
    pub fn overrides(&self) -> Result<Vec<(i64, Override)>, DbError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, body FROM overrides ORDER BY id")
            .at(&self.path)?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .at(&self.path)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.path)?;
        // the user's own data: an unreadable one is named, with how to get rid of it
        rows.into_iter()
            .map(|(id, body)| {
                serde_json::from_str(&body).map(|o| (id, o)).map_err(|e| DbError::BadValue {
                    path: self.path.clone(),
                    what: format!("refinement #{id}"),
                    detail: e.to_string(),
                    advice: format!("Remove it with `sapfor refine remove {id}` and record it again"),
                })
            })
            .collect()
    }

    /// The note of a refinement (None when it has none).
    pub fn override_note(&self, id: i64) -> Result<Option<String>, DbError> {
        self.conn
            .query_row("SELECT note FROM overrides WHERE id = ?1", [id], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()
            .at(&self.path)?
            .ok_or_else(|| DbError::NotFound(format!("no refinement #{id}")))
    }

    /// Remove a refinement; false when there was none with this id.
    pub fn remove_override(&mut self, id: i64) -> Result<bool, DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let n = tx
            .execute("DELETE FROM overrides WHERE id = ?1", [id])
            .at(&path)?;
        tx.commit().at(&path)?;
        Ok(n > 0)
    }

    // ----- Schemes, artifacts, runs -------------------------------------------------------

    /// Replace the schemes of an analysis (with their artifacts and runs) and its rejected
    /// variants in one transaction; returns the new schemes' ids in order.
    pub fn store_schemes(
        &mut self,
        analysis_id: i64,
        schemes: &[SchemeRecord],
        rejected: &[RejectedRecord],
    ) -> Result<Vec<i64>, DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let ids = insert_schemes(&tx, &path, analysis_id, schemes, rejected)?;
        tx.commit().at(&path)?;
        Ok(ids)
    }

    /// [`store_analysis`](Self::store_analysis) and [`store_schemes`](Self::store_schemes) of
    /// it in ONE transaction: another process storing its own analysis at the same time
    /// (which deletes older analyses without schemes) cannot remove this one in between.
    pub fn store_analysis_and_schemes(
        &mut self,
        key: &AnalysisKey,
        rec: &AnalysisRecord,
        schemes: &[SchemeRecord],
        rejected: &[RejectedRecord],
    ) -> Result<(i64, Vec<i64>), DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let id = insert_current_analysis(&tx, &path, key, rec)?;
        let ids = insert_schemes(&tx, &path, id, schemes, rejected)?;
        tx.commit().at(&path)?;
        Ok((id, ids))
    }

    /// The schemes of an analysis, in the order stored.
    pub fn schemes(&self, analysis_id: i64) -> Result<Vec<(i64, SchemeRecord)>, DbError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, expert, name, distribution, alignment, loops, regions, machine,
                        cost_computation, cost_communication, cost_transfers, total, chosen
                 FROM schemes WHERE analysis_id = ?1 ORDER BY ord",
            )
            .at(&self.path)?;
        let v = st
            .query_map([analysis_id], |r| {
                Ok((
                    r.get(0)?,
                    SchemeRecord {
                        expert: r.get(1)?,
                        name: r.get(2)?,
                        distribution: json_col(r, 3)?,
                        alignment: json_col(r, 4)?,
                        loops: json_col(r, 5)?,
                        regions: json_col(r, 6)?,
                        machine: json_col(r, 7)?,
                        cost_computation: f64_col(r, 8)?,
                        cost_communication: f64_col(r, 9)?,
                        cost_transfers: f64_col(r, 10)?,
                        total: f64_col(r, 11)?,
                        chosen: r.get(12)?,
                    },
                ))
            })
            .at(&self.path)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.path)?;
        Ok(v)
    }

    /// The rejected variants of an analysis, in the order stored.
    pub fn rejected(&self, analysis_id: i64) -> Result<Vec<RejectedRecord>, DbError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT expert, name, reasons FROM rejected_variants
                 WHERE analysis_id = ?1 ORDER BY ord",
            )
            .at(&self.path)?;
        let v = st
            .query_map([analysis_id], |r| {
                Ok(RejectedRecord {
                    expert: r.get(0)?,
                    name: r.get(1)?,
                    reasons: json_col(r, 2)?,
                })
            })
            .at(&self.path)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.path)?;
        Ok(v)
    }

    /// Store a generated program (or other text) of a scheme.
    pub fn store_artifact(&mut self, scheme_id: i64, a: &ArtifactRecord) -> Result<i64, DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let exists: Option<i64> = tx
            .query_row("SELECT id FROM schemes WHERE id = ?1", [scheme_id], |r| {
                r.get(0)
            })
            .optional()
            .at(&path)?;
        if exists.is_none() {
            return Err(DbError::NotFound(format!("no scheme #{scheme_id}")));
        }
        tx.execute(
            "INSERT INTO artifacts (scheme_id, kind, path, text) VALUES (?1, ?2, ?3, ?4)",
            params![scheme_id, a.kind, a.path, a.text],
        )
        .at(&path)?;
        let id = tx.last_insert_rowid();
        tx.commit().at(&path)?;
        Ok(id)
    }

    /// The artifacts of a scheme, oldest first.
    pub fn artifacts(&self, scheme_id: i64) -> Result<Vec<(i64, ArtifactRecord)>, DbError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, kind, path, text FROM artifacts WHERE scheme_id = ?1 ORDER BY id",
            )
            .at(&self.path)?;
        let v = st
            .query_map([scheme_id], |r| {
                Ok((
                    r.get(0)?,
                    ArtifactRecord {
                        kind: r.get(1)?,
                        path: r.get(2)?,
                        text: r.get(3)?,
                    },
                ))
            })
            .at(&self.path)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.path)?;
        Ok(v)
    }

    /// Whether the file at `path` (relative to the project root, as artifacts store it) was
    /// changed since sapfor wrote it: sapfor recorded writing there, and none of the texts it
    /// recorded (in any stored scheme) is `text`.
    pub fn changed_since_written(&self, path: &str, text: &str) -> Result<bool, DbError> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM artifacts WHERE path = ?1)
                    AND NOT EXISTS (SELECT 1 FROM artifacts WHERE path = ?1 AND text = ?2)",
                [path, text],
                |r| r.get(0),
            )
            .at(&self.path)
    }

    /// Record a measured run of an artifact.
    pub fn store_run(&mut self, artifact_id: i64, r: &RunRecord) -> Result<i64, DbError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let exists: Option<i64> = tx
            .query_row(
                "SELECT id FROM artifacts WHERE id = ?1",
                [artifact_id],
                |r| r.get(0),
            )
            .optional()
            .at(&path)?;
        if exists.is_none() {
            return Err(DbError::NotFound(format!("no artifact #{artifact_id}")));
        }
        tx.execute(
            "INSERT INTO runs (artifact_id, command, processes, threads, wall_seconds, loops, communication)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                artifact_id,
                r.command,
                r.processes,
                r.threads,
                r.wall_seconds,
                to_json(&r.loops),
                to_json(&r.communication)
            ],
        )
        .at(&path)?;
        let id = tx.last_insert_rowid();
        tx.commit().at(&path)?;
        Ok(id)
    }

    /// The runs of an artifact, oldest first.
    pub fn runs(&self, artifact_id: i64) -> Result<Vec<(i64, RunRecord)>, DbError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, command, processes, threads, wall_seconds, loops, communication
                 FROM runs WHERE artifact_id = ?1 ORDER BY id",
            )
            .at(&self.path)?;
        let v = st
            .query_map([artifact_id], |r| {
                Ok((
                    r.get(0)?,
                    RunRecord {
                        command: r.get(1)?,
                        processes: r.get(2)?,
                        threads: r.get(3)?,
                        wall_seconds: f64_col(r, 4)?,
                        loops: json_col(r, 5)?,
                        communication: json_col(r, 6)?,
                    },
                ))
            })
            .at(&self.path)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.path)?;
        Ok(v)
    }

    // ----- Export --------------------------------------------------------------------------

    /// The whole project as one JSON document, from one snapshot:
    /// `{"format": "sapfor-export", "version": 1, "schema_version", "tool_version", "root",
    /// "files" (of the current analysis, with their text), "analysis" (the current one: id,
    /// created_at, key, tool_version, units with loops/blocks/symbols/commons/calls,
    /// diagnostics, report; null when none), "overrides" ([{id, note, override}]), "schemes"
    /// (of the current analysis: [{id, scheme, artifacts: [{id, artifact, runs: [{id, run}]}]}]),
    /// "rejected" (its rejected variants: [{expert, name, reasons}])}`.
    pub fn export_json(&self) -> Result<Value, DbError> {
        self.snapshot(|db| {
            let (c, p) = (&db.conn, db.path.as_path());
            let mut doc = json!({
                "format": "sapfor-export",
                "version": 1,
                "schema_version": SCHEMA_VERSION,
                "tool_version": TOOL_VERSION,
                "root": db.root.to_string_lossy(),
                "files": [],
                "analysis": null,
                "schemes": [],
            });
            if let Some(aid) = current_id(c, p)? {
                let rec = load_analysis_in(c, p, aid)?;
                let key = db.analysis_key(aid)?;
                let created: String = c
                    .query_row(
                        "SELECT created_at FROM analyses WHERE id = ?1",
                        [aid],
                        |r| r.get(0),
                    )
                    .at(p)?;
                doc["files"] = json!(rec.files);
                doc["analysis"] = json!({
                    "id": aid,
                    "created_at": created,
                    "tool_version": rec.tool_version,
                    "key": key,
                    "units": rec.units,
                    "diagnostics": rec.diagnostics,
                    "report": rec.report,
                });
                let mut schemes = vec![];
                for (sid, s) in db.schemes(aid)? {
                    let mut artifacts = vec![];
                    for (arid, a) in db.artifacts(sid)? {
                        let runs: Vec<Value> = db
                            .runs(arid)?
                            .into_iter()
                            .map(|(rid, r)| json!({"id": rid, "run": r}))
                            .collect();
                        artifacts.push(json!({"id": arid, "artifact": a, "runs": runs}));
                    }
                    schemes.push(json!({"id": sid, "scheme": s, "artifacts": artifacts}));
                }
                doc["schemes"] = json!(schemes);
                doc["rejected"] = json!(db.rejected(aid)?);
            }
            let mut st = c
                .prepare_cached("SELECT id, note, body FROM overrides ORDER BY id")
                .at(p)?;
            let overrides: Vec<Value> = st
                .query_map([], |r| {
                    let id: i64 = r.get(0)?;
                    let note: Option<String> = r.get(1)?;
                    let o: Value = json_col(r, 2)?;
                    Ok(json!({"id": id, "note": note, "override": o}))
                })
                .at(p)?
                .collect::<Result<_, _>>()
                .at(p)?;
            doc["overrides"] = json!(overrides);
            Ok(doc)
        })
    }
}

/// The block of unit `uid` holding a loop's DO line: one that also holds its last line (the
/// whole nest collapsed into it) if there is one, else the first.
fn block_view_at(
    c: &Connection,
    p: &Path,
    uid: i64,
    line: u32,
    end_line: u32,
) -> Result<Option<BlockView>, DbError> {
    let mut st = c
        .prepare_cached(
            "SELECT b.id, b.num,
                    EXISTS (SELECT 1 FROM block_lines e WHERE e.block_id = b.id AND e.line = ?3)
             FROM blocks b JOIN block_lines bl ON bl.block_id = b.id
             WHERE b.unit_id = ?1 AND bl.line = ?2 ORDER BY b.num",
        )
        .at(p)?;
    let cands: Vec<(i64, u32, bool)> = st
        .query_map(params![uid, line, end_line], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .at(p)?
        .collect::<Result<_, _>>()
        .at(p)?;
    let Some(&(bid, num, _)) = cands.iter().find(|c| c.2).or(cands.first()) else {
        return Ok(None);
    };
    let mut st = c
        .prepare_cached("SELECT line FROM block_lines WHERE block_id = ?1 ORDER BY line")
        .at(p)?;
    let lines: Vec<u32> = st
        .query_map([bid], |r| r.get(0))
        .at(p)?
        .collect::<Result<_, _>>()
        .at(p)?;
    let mut st = c
        .prepare_cached("SELECT access, name, display FROM block_vars WHERE block_id = ?1")
        .at(p)?;
    let mut reads = BTreeMap::new();
    let mut writes = BTreeMap::new();
    let vars: Vec<(String, String, String)> = st
        .query_map([bid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .at(p)?
        .collect::<Result<_, _>>()
        .at(p)?;
    for (access, name, display) in vars {
        if access == "write" {
            writes.insert(name, display);
        } else {
            reads.insert(name, display);
        }
    }
    let mut st = c
        .prepare_cached(
            "SELECT t.num FROM edges e JOIN blocks t ON e.to_block = t.id
             WHERE e.from_block = ?1 ORDER BY e.ord",
        )
        .at(p)?;
    let mut next: Vec<u32> = st
        .query_map([bid], |r| r.get(0))
        .at(p)?
        .collect::<Result<_, _>>()
        .at(p)?;
    next.dedup();
    Ok(Some(BlockView {
        num,
        lines,
        reads,
        writes,
        next,
    }))
}

/// The schemes of analysis `analysis_id` replaced by `schemes` inside `tx`; their new ids.
fn insert_schemes(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    analysis_id: i64,
    schemes: &[SchemeRecord],
    rejected: &[RejectedRecord],
) -> Result<Vec<i64>, DbError> {
    let path = path.to_path_buf();
    let exists: Option<i64> = tx
        .query_row(
            "SELECT id FROM analyses WHERE id = ?1",
            [analysis_id],
            |r| r.get(0),
        )
        .optional()
        .at(&path)?;
    if exists.is_none() {
        return Err(not_found_analysis(analysis_id));
    }
    tx.execute("DELETE FROM schemes WHERE analysis_id = ?1", [analysis_id])
        .at(&path)?;
    tx.execute("DELETE FROM rejected_variants WHERE analysis_id = ?1", [analysis_id])
        .at(&path)?;
    {
        let mut ins = tx
            .prepare_cached(
                "INSERT INTO rejected_variants (analysis_id, ord, expert, name, reasons)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .at(&path)?;
        for (i, r) in rejected.iter().enumerate() {
            ins.execute(params![analysis_id, i as i64, r.expert, r.name, to_json(&r.reasons)])
                .at(&path)?;
        }
    }
    let mut ids = vec![];
    {
        let mut ins = tx
            .prepare_cached(
                "INSERT INTO schemes (analysis_id, ord, expert, name, distribution, alignment,
                     loops, regions, machine, cost_computation, cost_communication,
                     cost_transfers, total, chosen)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .at(&path)?;
        let mut ins_align = tx
            .prepare_cached(
                "INSERT INTO alignments (scheme_id, ord, array, rule) VALUES (?1, ?2, ?3, ?4)",
            )
            .at(&path)?;
        for (i, s) in schemes.iter().enumerate() {
            ins.execute(params![
                analysis_id,
                i as i64,
                s.expert,
                s.name,
                to_json(&s.distribution),
                to_json(&s.alignment),
                to_json(&s.loops),
                to_json(&s.regions),
                to_json(&s.machine),
                s.cost_computation,
                s.cost_communication,
                s.cost_transfers,
                s.total,
                s.chosen
            ])
            .at(&path)?;
            let sid = tx.last_insert_rowid();
            for (ai, (array, rule)) in alignment_rows(&s.alignment).into_iter().enumerate() {
                ins_align
                    .execute(params![sid, ai as i64, array, to_json(&rule)])
                    .at(&path)?;
            }
            ids.push(sid);
        }
    }
    Ok(ids)
}

/// Insert an analysis inside `tx` and delete every older one without schemes (the new one
/// becomes the current analysis); its id.
fn insert_current_analysis(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    key: &AnalysisKey,
    rec: &AnalysisRecord,
) -> Result<i64, DbError> {
    let id = insert_analysis(tx, path, key, rec)?;
    tx.execute(
        "DELETE FROM analyses WHERE id <> ?1
           AND NOT EXISTS (SELECT 1 FROM schemes s WHERE s.analysis_id = analyses.id)",
        [id],
    )
    .at(path)?;
    Ok(id)
}

/// The stored JSON report of analysis `id` does not parse.
fn bad_report(path: &Path, id: i64, e: serde_json::Error) -> DbError {
    DbError::BadValue {
        path: path.to_path_buf(),
        what: format!("the report of analysis #{id}"),
        detail: e.to_string(),
        advice: crate::REDERIVE.into(),
    }
}
