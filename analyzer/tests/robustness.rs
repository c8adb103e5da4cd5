//! The analyzer never panics: random and mutated Fortran (from the fixtures) goes through the
//! whole pipeline (front end, semantic model, CFG, loop analysis, reports).

use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn fixture_texts() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data");
    let mut v = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if let Some(ext @ ("f" | "f90")) = p.extension().and_then(|e| e.to_str()) {
            v.push((ext.to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    v.sort();
    v
}

fn run(ext: &str, text: &[u8]) {
    // one directory per thread (tests run in parallel), removed afterwards
    let thread = format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let dir = std::env::temp_dir().join(format!("sapfor-robust-{}-{thread}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(format!("m.{ext}"));
    std::fs::write(&p, text).unwrap();
    let a = analyzer::report::analyze(&[p.clone()], &Default::default());
    let _ = a.human();
    let _ = a.to_json();
    for w in ["cfg", "loops", "deps"] {
        let _ = a.dump(w);
    }
    for d in a.diagnostics() {
        let _ = d.render(d.location.as_ref().and_then(|l| a.program.map.line_text(l)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const TOKENS: &[&str] = &[
    "DO",
    "10",
    "I",
    "=",
    "1",
    ",",
    "N",
    "END",
    "DO",
    "IF",
    "(",
    ")",
    "THEN",
    "ELSE",
    "ENDIF",
    "GOTO",
    "CONTINUE",
    "A(I)",
    "A(I-1,J)",
    "+",
    "*",
    "CALL",
    "S(A)",
    "COMMON",
    "/B/",
    "X",
    "PRINT",
    "WRITE(*,*)",
    "\n",
    "\n      ",
    "\n     &",
    "&",
    "!",
    "'",
    "EXIT",
    "CYCLE",
    "RETURN",
    "STOP",
    "SUBROUTINE",
    "FUNCTION",
    "PROGRAM",
    "INCLUDE 'x.inc'",
    "PARAMETER",
    "REAL",
    "INTEGER",
    "DIMENSION",
    "EQUIVALENCE",
    "DATA",
    "/1.0/",
    "!DVM$ PARALLEL",
    "CDVM$",
    ".EQ.",
    ".AND.",
    "**",
    ":",
    "MAX(",
    "\t",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(96), ..ProptestConfig::default() })]

    #[test]
    fn random_token_soup_never_panics(toks in proptest::collection::vec(0..TOKENS.len(), 0..80), fixed in any::<bool>()) {
        let text: String = toks.iter().map(|i| TOKENS[*i]).collect::<Vec<_>>().join(" ");
        run(if fixed { "f" } else { "f90" }, text.as_bytes());
    }

    #[test]
    fn mutated_fixtures_never_panic(which in 0usize..64, cuts in proptest::collection::vec((0usize..400, 0usize..3, 0usize..TOKENS.len()), 1..6)) {
        let fx = fixture_texts();
        let (ext, text) = &fx[which % fx.len()];
        let mut lines: Vec<String> = text.lines().map(|l| l.to_string()).collect();
        for (at, op, tok) in cuts {
            if lines.is_empty() { break; }
            let i = at % lines.len();
            match op {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                _ => { let l = &mut lines[i]; let cut = (at % (l.len() + 1)).min(l.len()); let cut = (0..=cut).rev().find(|c| l.is_char_boundary(*c)).unwrap_or(0); l.insert_str(cut, TOKENS[tok]); }
            }
        }
        run(ext, lines.join("\n").as_bytes());
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        run("f", &bytes);
    }
}
