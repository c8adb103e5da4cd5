//! Reading the profile that `sapfor run --profile` prints: besides the report file it writes
//! one line `SAPFOR-PROFILE <json>` on standard error (`shell-gui/src/run.rs`,
//! `profile_summary`: per loop and per communication kind the slowest process's time).
//! Everything here that depends on that format is in this file.
//!
//! Accepted: the output line `SAPFOR-PROFILE <json>` (or a line that is such a JSON
//! object by itself) with the fields of the database's `RunRecord`:
//! `{"wall_seconds": 1.2, "loops": [{"file": "jac.f", "line": 18, "seconds": 0.4}, ...],
//!   "communication": [{"kind": "shadow", "seconds": 0.1}, ...]}`.

use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    pub wall_seconds: Option<f64>,
    /// (file, DO line, seconds)
    pub loops: Vec<(String, u32, f64)>,
    /// (kind, seconds)
    pub communication: Vec<(String, f64)>,
    /// Loops run as one with the next: (file, DO line) -> the next loop's DO line (the loop's
    /// seconds are both loops').
    pub with: std::collections::BTreeMap<(String, u32), u32>,
}

pub const MARKER: &str = "SAPFOR-PROFILE";

/// The last profile report found in the output lines, if any.
pub fn parse(lines: &[String]) -> Option<Profile> {
    lines.iter().rev().find_map(|l| {
        let t = l.trim();
        let json = t.strip_prefix(MARKER).map(str::trim).unwrap_or(t);
        if !json.starts_with('{') {
            return None;
        }
        let v: Value = serde_json::from_str(json).ok()?;
        if !v.get("loops").is_some_and(Value::is_array) {
            return None;
        }
        Some(from_json(&v))
    })
}

fn from_json(v: &Value) -> Profile {
    Profile {
        wall_seconds: v["wall_seconds"].as_f64(),
        loops: v["loops"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| {
                (
                    l["file"].as_str().unwrap_or("").to_string(),
                    l["line"].as_u64().unwrap_or(0) as u32,
                    l["seconds"].as_f64().unwrap_or(0.0),
                )
            })
            .collect(),
        communication: v["communication"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                (
                    c["kind"].as_str().unwrap_or("?").to_string(),
                    c["seconds"].as_f64().unwrap_or(0.0),
                )
            })
            .collect(),
        with: v["loops"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| Some(((l["file"].as_str()?.to_string(), l["line"].as_u64()? as u32), l["with"]["line"].as_u64()? as u32)))
            .collect(),
    }
}

/// The database record of a profiled run.
pub fn run_record(p: &Profile, command: &str, processes: u32, threads: u32) -> database::RunRecord {
    database::RunRecord {
        command: command.to_string(),
        processes,
        threads,
        wall_seconds: p.wall_seconds.unwrap_or(0.0),
        loops: serde_json::Value::Array(
            p.loops
                .iter()
                .map(|(f, l, s)| serde_json::json!({"file": f, "line": l, "seconds": s}))
                .collect(),
        ),
        communication: serde_json::Value::Array(
            p.communication
                .iter()
                .map(|(k, s)| serde_json::json!({"kind": k, "seconds": s}))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_report_among_program_output() {
        let lines: Vec<String> = [
            " IT =    1   EPS =  0.1",
            "SAPFOR-PROFILE {\"wall_seconds\": 2.5, \"loops\": [{\"file\": \"jac.f\", \"line\": 18, \"seconds\": 1.5}], \"communication\": [{\"kind\": \"shadow\", \"seconds\": 0.25}]}",
            "done",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let p = parse(&lines).unwrap();
        assert_eq!(p.wall_seconds, Some(2.5));
        assert_eq!(p.loops, vec![("jac.f".to_string(), 18, 1.5)]);
        assert_eq!(p.communication, vec![("shadow".to_string(), 0.25)]);
        assert!(p.with.is_empty());
        assert_eq!(parse(&lines[..1]), None);
        let two = "SAPFOR-PROFILE {\"wall_seconds\": 1.0, \"loops\": [{\"file\": \"h.fdv\", \"line\": 26, \"seconds\": 0.9, \"with\": {\"file\": \"h.fdv\", \"line\": 34}}], \"communication\": []}";
        let p = parse(&[two.to_string()]).unwrap();
        assert_eq!(p.with.get(&("h.fdv".to_string(), 26)), Some(&34));
        assert_eq!(parse(&["{\"no\": 1}".to_string()]), None);
    }
}
