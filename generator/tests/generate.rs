//! The generator end to end: golden outputs for a fixed-form and a free-form Jacobi program,
//! byte-identity of every other line, column limits, reparsing, idempotence, gfortran
//! compiling and running the output, COMMON arrays in several units, INCLUDE files, CRLF.
//!
//! Golden files live under `tests/golden/`; regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p generator --test generate` and review the diff.

use analyzer::directives::{self, DirectiveKind};
use analyzer::program::{load, Options, Program};
use analyzer::source::SourceForm;
use experts::scheme::*;
use generator::{generate, strip_dvm, GenError, GeneratedFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn data(name: &str) -> PathBuf {
    manifest().join("tests/data").join(name)
}

fn jac_f() -> PathBuf {
    manifest().join("../samples/jacobi/jac.f")
}

fn load_one(p: &Path) -> Program {
    let prog = load(&[p.to_path_buf()], &Options::default());
    assert!(
        !prog.has_errors(),
        "{} does not load cleanly: {:?}",
        p.display(),
        prog.diags
    );
    prog
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

fn at(file: &Path, unit: &str) -> UnitRef {
    UnitRef {
        file: path_str(file),
        unit: unit.into(),
    }
}

fn scheme() -> Scheme {
    Scheme {
        expert: "test".into(),
        name: "hand-built".into(),
        templates: vec![],
        distributions: vec![],
        alignments: vec![],
        inherits: vec![],
        owned: vec![],
        shadows: vec![],
        loops: vec![],
        remote: vec![],
        estimate: Estimate::default(),
        notes: vec![],
        regions: vec![],
        actualizations: vec![],
    }
}

fn dist(file: &Path, unit: &str, array: &str, formats: &[Format]) -> Distribution {
    Distribution {
        at: at(file, unit),
        array: array.into(),
        formats: formats.to_vec(),
    }
}

/// `ALIGN array(I,J,..) WITH target(I,J,..)` (identity alignment).
fn align_id(file: &Path, unit: &str, array: &str, target: &str, dims: usize) -> Alignment {
    let names = ["i", "j", "k"];
    Alignment {
        at: at(file, unit),
        array: array.into(),
        source: names[..dims].iter().map(|s| s.to_string()).collect(),
        target: target.into(),
        subs: (0..dims)
            .map(|d| AlignSub::Linear {
                dummy: d,
                coeff: 1,
                offset: 0,
            })
            .collect(),
    }
}

fn shadow(file: &Path, unit: &str, array: &str, w: &[(u32, u32)]) -> Shadow {
    Shadow {
        at: at(file, unit),
        array: array.into(),
        widths: w.to_vec(),
    }
}

fn var(v: &str) -> RefSub {
    RefSub::Var {
        var: v.into(),
        offset: 0,
    }
}

fn aref(array: &str, subs: Vec<RefSub>) -> ArrayRef {
    ArrayRef {
        array: array.into(),
        subs,
    }
}

fn widths(array: &str, w: &[(u32, u32)], corner: bool) -> ArrayWidths {
    ArrayWidths {
        array: array.into(),
        widths: w.to_vec(),
        corner,
    }
}

fn red(op: &str, v: &str) -> ReductionSpec {
    ReductionSpec {
        op: op.into(),
        var: v.into(),
        loc: vec![],
    }
}

fn par(file: &Path, unit: &str, line: u32, vars: &[&str], on: Option<ArrayRef>) -> ParallelLoop {
    ParallelLoop {
        at: at(file, unit),
        line,
        vars: vars.iter().map(|s| s.to_string()).collect(),
        on,
        private: vec![],
        copy_in: vec![],
        reductions: vec![],
        shadow_renew: vec![],
        across: vec![],
        remote_access: vec![],
        shadow_compute: None,
        asserted: vec![],
        assertions: vec![],
        when: vec![],
        split: None,
        end_line: 0,
        part: vec![],
    }
}

/// The scheme of the Jacobi sample (samples/jacobi/jac.f, or a copy of it at `file`).
fn jacobi_scheme(file: &Path) -> Scheme {
    let mut s = scheme();
    s.distributions
        .push(dist(file, "jac", "a", &[Format::Block, Format::Block]));
    s.alignments.push(align_id(file, "jac", "b", "a", 2));
    s.shadows.push(shadow(file, "jac", "a", &[(1, 1), (1, 1)]));
    let on_a = || Some(aref("a", vec![var("i"), var("j")]));
    s.loops.push(par(file, "jac", 5, &["j", "i"], on_a()));
    let mut l18 = par(file, "jac", 18, &["j", "i"], on_a());
    l18.reductions.push(red("max", "eps"));
    s.loops.push(l18);
    let mut l24 = par(
        file,
        "jac",
        24,
        &["j", "i"],
        Some(aref("b", vec![var("i"), var("j")])),
    );
    l24.shadow_renew.push(widths("a", &[(1, 1), (1, 1)], false));
    s.loops.push(l24);
    s
}

/// The PARALLEL directives the Jacobi scheme must give: (original DO line, canonical text).
const JACOBI_PARALLEL: &[(u32, &str)] = &[
    (5, "PARALLEL (J,I) ON A(I,J)"),
    (18, "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))"),
    (24, "PARALLEL (J,I) ON B(I,J), SHADOW_RENEW(A(1:1,1:1))"),
];

/// The scheme of tests/data/jac2d.f90 (at `file`): one loop has a clause list longer than a
/// free-form line.
fn jac2d_scheme(file: &Path) -> Scheme {
    let u = "jac2d";
    let mut s = scheme();
    s.distributions
        .push(dist(file, u, "a", &[Format::Block, Format::Block]));
    s.alignments.push(align_id(file, u, "b", "a", 2));
    s.alignments.push(align_id(file, u, "c", "a", 2));
    s.shadows.push(shadow(file, u, "a", &[(1, 1), (1, 1)]));
    let on = |a: &str| Some(aref(a, vec![var("i"), var("j")]));
    s.loops.push(par(file, u, 10, &["j", "i"], on("a")));
    let mut l26 = par(file, u, 26, &["j", "i"], on("a"));
    l26.reductions.push(red("max", "eps"));
    s.loops.push(l26);
    let mut l32 = par(file, u, 32, &["j", "i"], on("b"));
    l32.private.push("t".into());
    l32.reductions.push(red("sum", "s"));
    l32.reductions.push(red("min", "xmin"));
    l32.shadow_renew.push(widths("a", &[(1, 1), (1, 1)], true));
    l32.remote_access
        .push(aref("a", vec![RefSub::Const(1), RefSub::Const(1)]));
    s.loops.push(l32);
    s
}

const JAC2D_PARALLEL: &[(u32, &str)] = &[
    (10, "PARALLEL (J,I) ON A(I,J)"),
    (26, "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))"),
    (
        32,
        "PARALLEL (J,I) ON B(I,J), PRIVATE(T), REDUCTION(SUM(S),MIN(XMIN)), SHADOW_RENEW(A(1:1,1:1)(CORNER)), REMOTE_ACCESS(A(1,1))",
    ),
];

fn only(files: Vec<GeneratedFile>) -> GeneratedFile {
    assert_eq!(files.len(), 1, "one top-level file");
    files.into_iter().next().unwrap()
}

fn golden(name: &str, got: &str) {
    let path = manifest().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden file {}", path.display()));
    assert!(
        got == want,
        "generated text differs from {}:\n--- got ---\n{got}\n--- want ---\n{want}",
        path.display()
    );
}

/// Lines with their line endings.
fn raw_lines(t: &str) -> Vec<&str> {
    t.split_inclusive('\n').collect()
}

/// (b) A line-by-line diff of input and output: walking both, every output line is either the
/// next input line byte for byte, or a line listed in `inserted` that is a DVM directive line;
/// input DVM lines may be dropped. Returns the map original line -> output line.
fn check_only_insertions(input: &str, g: &GeneratedFile, fixed: bool) -> BTreeMap<u32, u32> {
    let inp = raw_lines(input);
    let out = raw_lines(&g.text);
    let mut map = BTreeMap::new();
    let (mut i, mut o) = (0usize, 0usize);
    let mut removed = 0;
    while i < inp.len() || o < out.len() {
        let ins = g.inserted.contains(&(o as u32 + 1));
        if ins {
            let l = out[o].trim_end_matches(['\n', '\r']);
            assert!(
                generator::is_dvm_line(l, fixed),
                "inserted line {} is not a DVM line: {l:?}",
                o + 1
            );
            o += 1;
            continue;
        }
        assert!(
            i < inp.len(),
            "output line {} has no input line: {:?}",
            o + 1,
            out[o]
        );
        if generator::is_dvm_line(inp[i].trim_end_matches(['\n', '\r']), fixed) {
            removed += 1;
            i += 1;
            continue;
        }
        assert!(
            o < out.len(),
            "input line {} is missing from the output",
            i + 1
        );
        assert_eq!(
            inp[i].as_bytes(),
            out[o].as_bytes(),
            "input line {} differs from output line {}",
            i + 1,
            o + 1
        );
        map.insert(i as u32 + 1, o as u32 + 1);
        i += 1;
        o += 1;
    }
    assert_eq!(removed, g.removed, "removed line count");
    map
}

/// (c) No fixed-form line past column 72; no free-form line past 132.
fn check_columns(g: &GeneratedFile, fixed: bool) {
    let limit = if fixed { 72 } else { 132 };
    for (k, l) in g.text.lines().enumerate() {
        if g.inserted.contains(&(k as u32 + 1)) {
            assert!(
                l.chars().count() <= limit,
                "line {} is longer than {limit} columns: {l:?}",
                k + 1
            );
        }
    }
}

/// (d) The output reads back without directive errors; its PARALLEL directives are exactly
/// the line before the named DO statements, with the expected text; the declarations come
/// after the last specification statement and before the first executable one.
fn check_reparse(
    g: &GeneratedFile,
    fixed: bool,
    map: &BTreeMap<u32, u32>,
    parallel: &[(u32, &str)],
) -> Vec<directives::Directive> {
    let lines: Vec<&str> = g.text.lines().collect();
    let mut dirs = vec![];
    for r in directives::scan(&lines, fixed) {
        match r {
            Ok(d) => dirs.push(d),
            Err(e) => panic!("directive error in the output: {e}"),
        }
    }
    let mut got: Vec<(u32, String)> = dirs
        .iter()
        .filter(|d| matches!(d.kind, DirectiveKind::Parallel { .. }))
        .map(|d| (d.end_line, d.kind.to_string()))
        .collect();
    got.sort();
    let mut want: Vec<(u32, String)> = parallel
        .iter()
        .map(|&(l, t)| (map[&l] - 1, t.to_string()))
        .collect();
    want.sort();
    assert_eq!(got, want, "PARALLEL directives (last line, text)");
    for (l, _) in &want {
        let next = lines[*l as usize].trim_start().to_ascii_lowercase();
        let next = next
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        assert!(
            next.starts_with("do"),
            "line after a PARALLEL is not a DO: {next}"
        );
    }
    dirs
}

/// (e) Stripping the output gives back the input; generating over the output (the scheme's
/// lines moved with the inserted lines) gives the output again; generating twice is stable.
fn check_idempotent(
    input: &str,
    g: &GeneratedFile,
    fixed: bool,
    scheme: &Scheme,
    map: &BTreeMap<u32, u32>,
    file_name: &str,
) {
    check_idempotent_with(input, g, fixed, scheme, map, file_name, &[])
}

/// [`check_idempotent`] with INCLUDE files copied next to the generated file.
fn check_idempotent_with(
    input: &str,
    g: &GeneratedFile,
    fixed: bool,
    scheme: &Scheme,
    map: &BTreeMap<u32, u32>,
    file_name: &str,
    companions: &[PathBuf],
) {
    let (stripped, n) = strip_dvm(&g.text, fixed);
    assert_eq!(n, g.inserted.len());
    assert_eq!(
        strip_dvm(input, fixed).0,
        stripped,
        "strip_dvm(output) != input"
    );

    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(file_name);
    std::fs::write(&p, &g.text).unwrap();
    for c in companions {
        std::fs::copy(c, dir.path().join(c.file_name().unwrap())).unwrap();
    }
    let prog = load_one(&p);
    let mut s2 = scheme.clone();
    let old = &scheme.distributions.first().unwrap().at.file;
    let new = path_str(&p);
    let fix = |u: &mut UnitRef| {
        if &u.file == old {
            u.file = new.clone();
        }
    };
    s2.distributions.iter_mut().for_each(|x| fix(&mut x.at));
    s2.alignments.iter_mut().for_each(|x| fix(&mut x.at));
    s2.shadows.iter_mut().for_each(|x| fix(&mut x.at));
    for l in s2.loops.iter_mut() {
        fix(&mut l.at);
        l.line = map[&l.line];
    }
    for r in s2.remote.iter_mut() {
        fix(&mut r.at);
        r.line = map[&r.line];
    }
    let again = only(generate(&prog, &s2).unwrap());
    assert_eq!(again.text, g.text, "generating over the output changes it");
    assert_eq!(again.inserted, g.inserted);
    assert_eq!(again.removed, g.inserted.len());
}

fn gfortran_available() -> bool {
    match Command::new("gfortran").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            if std::env::var_os("SAPFOR_NO_GFORTRAN").is_some() {
                eprintln!("gfortran not found; skipped (SAPFOR_NO_GFORTRAN is set)");
                false
            } else {
                panic!("gfortran is needed by this test (set SAPFOR_NO_GFORTRAN=1 to skip)")
            }
        }
    }
}

/// Compile `src` (named `name`) with gfortran in `dir`, run it there; returns its stdout
/// and the files it wrote.
fn compile_and_run(dir: &Path, name: &str, src: &str, extra: &[&str]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, src).unwrap();
    let exe = dir.join(format!("{name}.exe"));
    let out = Command::new("gfortran")
        .args(["-O0", "-Wall", "-o"])
        .arg(&exe)
        .arg(&p)
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gfortran failed on {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).current_dir(dir).output().unwrap();
    assert!(run.status.success(), "{name} failed to run");
    String::from_utf8(run.stdout).unwrap()
}

// ---------------------------------------------------------------------------
// (a)-(e): the fixed-form Jacobi sample and the free-form Jacobi program
// ---------------------------------------------------------------------------

#[test]
fn fixed_form_jacobi_golden_and_checks() {
    let p = jac_f();
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let s = jacobi_scheme(&p);
    let g = only(generate(&prog, &s).unwrap());
    assert_eq!(g.path, p);
    golden("jac.f", &g.text);

    let map = check_only_insertions(&input, &g, true);
    check_columns(&g, true);
    let dirs = check_reparse(&g, true, &map, JACOBI_PARALLEL);
    // Declarations: in order, right after the REAL statement (line 3), before line 4.
    let decl: Vec<(u32, String)> = dirs
        .iter()
        .filter(|d| !matches!(d.kind, DirectiveKind::Parallel { .. }))
        .map(|d| (d.line, d.kind.to_string()))
        .collect();
    assert_eq!(
        decl,
        vec![
            (4, "DISTRIBUTE A(BLOCK,BLOCK)".to_string()),
            (5, "ALIGN B(I,J) WITH A(I,J)".to_string()),
            (6, "SHADOW A(1:1,1:1)".to_string()),
        ]
    );
    assert_eq!(map[&3], 3);
    assert_eq!(map[&4], 7);
    // The reduction + shadow_renew loop of the brief wraps in fixed form.
    let mut s2 = s.clone();
    s2.loops[1]
        .shadow_renew
        .push(widths("a", &[(1, 1), (1, 1)], false));
    let g2 = only(generate(&prog, &s2).unwrap());
    golden("jac_wrap.f", &g2.text);
    let at = map[&18] - 1;
    let l1 = g2.text.lines().nth(at as usize - 1).unwrap();
    let l2 = g2.text.lines().nth(at as usize).unwrap();
    assert!(
        l1.starts_with("CDVM$ PARALLEL") && l2.starts_with("CDVM$*"),
        "{l1}\n{l2}"
    );
    check_columns(&g2, true);
    let mut want = JACOBI_PARALLEL.to_vec();
    want[1].1 = "PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS)), SHADOW_RENEW(A(1:1,1:1))";
    let map2 = check_only_insertions(&input, &g2, true);
    check_reparse(&g2, true, &map2, &want);

    check_idempotent(&input, &g, true, &s, &map, "jac.f");
    check_idempotent(&input, &g2, true, &s2, &map2, "jac.f");
    // Generating twice from the same program gives the same text.
    assert_eq!(only(generate(&prog, &s).unwrap()), g);
}

#[test]
fn free_form_jacobi_golden_and_checks() {
    let p = data("jac2d.f90");
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let s = jac2d_scheme(&p);
    let g = only(generate(&prog, &s).unwrap());
    golden("jac2d.f90", &g.text);
    let map = check_only_insertions(&input, &g, false);
    check_columns(&g, false);
    check_reparse(&g, false, &map, JAC2D_PARALLEL);
    check_idempotent(&input, &g, false, &s, &map, "jac2d.f90");

    let lines: Vec<&str> = g.text.lines().collect();
    // Declarations indented like the first executable statement, after the last declaration.
    let k = lines.iter().position(|l| l.contains("DISTRIBUTE")).unwrap();
    assert_eq!(lines[k - 1], "  integer :: i, j, it");
    assert_eq!(lines[k], "  !DVM$ DISTRIBUTE A(BLOCK,BLOCK)");
    assert_eq!(lines[k + 1], "  !DVM$ ALIGN B(I,J) WITH A(I,J)");
    assert_eq!(lines[k + 2], "  !DVM$ ALIGN C(I,J) WITH A(I,J)");
    assert_eq!(lines[k + 3], "  !DVM$ SHADOW A(1:1,1:1)");
    assert_eq!(lines[k + 4], "");
    // The long clause list wraps with `&` / `!DVM$&`, indented like its DO.
    let do32 = map[&32] as usize - 1;
    assert!(
        lines[do32 - 1].starts_with("    !DVM$&"),
        "{}",
        lines[do32 - 1]
    );
    assert!(lines[do32 - 2].ends_with('&'), "{}", lines[do32 - 2]);
    assert!(lines[do32 - 2].starts_with("    !DVM$ PARALLEL (J,I) ON B(I,J)"));
    // The !$SPF hint stays, the PARALLEL goes between it and the DO.
    let do26 = map[&26] as usize - 1;
    assert_eq!(
        lines[do26 - 1].trim(),
        "!DVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))"
    );
    assert_eq!(
        lines[do26 - 2].trim(),
        "!$SPF ANALYSIS(REDUCTION(MAX(EPS)))"
    );
}

// ---------------------------------------------------------------------------
// (f): gfortran compiles the output; the program prints the same
// ---------------------------------------------------------------------------

#[test]
fn gfortran_compiles_fixed_form_output_and_results_match() {
    if !gfortran_available() {
        return;
    }
    let src = std::fs::read_to_string(jac_f()).unwrap();
    let small = src.replace("L=2000, ITMAX=20", "L=40, ITMAX=3");
    assert_ne!(small, src, "the sample's PARAMETER line changed");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jac.f");
    std::fs::write(&p, &small).unwrap();
    let prog = load_one(&p);
    let g = only(generate(&prog, &jacobi_scheme(&p)).unwrap());
    assert!(g.inserted.len() >= 6);

    let d1 = dir.path().join("orig");
    let d2 = dir.path().join("dvmh");
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    let out1 = compile_and_run(&d1, "jac.f", &small, &[]);
    let out2 = compile_and_run(&d2, "jac.f", &g.text, &[]);
    assert!(out1.contains("IT =    3"), "{out1}");
    assert_eq!(out1, out2);
    let dat1 = std::fs::read(d1.join("JAC.DAT")).unwrap();
    let dat2 = std::fs::read(d2.join("JAC.DAT")).unwrap();
    assert!(!dat1.is_empty());
    assert_eq!(dat1, dat2);
}

#[test]
fn gfortran_compiles_free_form_output_and_results_match() {
    if !gfortran_available() {
        return;
    }
    let src = std::fs::read_to_string(data("jac2d.f90")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jac2d.f90");
    std::fs::write(&p, &src).unwrap();
    let prog = load_one(&p);
    let g = only(generate(&prog, &jac2d_scheme(&p)).unwrap());
    let d1 = dir.path().join("orig");
    let d2 = dir.path().join("dvmh");
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    let out1 = compile_and_run(&d1, "jac2d.f90", &src, &[]);
    let out2 = compile_and_run(&d2, "jac2d.f90", &g.text, &[]);
    assert!(out1.contains("it =    5"), "{out1}");
    assert_eq!(out1, out2);
}

// ---------------------------------------------------------------------------
// (g) COMMON arrays in two units, labelled DO lines
// ---------------------------------------------------------------------------

#[test]
fn common_array_distributed_in_both_units() {
    let p = data("common.f");
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let mut s = scheme();
    let bb = [Format::Block, Format::Block];
    s.distributions.push(dist(&p, "main", "A", &bb));
    s.distributions.push(dist(&p, "INIT", "a", &bb));
    let mut l9 = par(
        &p,
        "main",
        9,
        &["j", "i"],
        Some(aref("a", vec![var("i"), var("j")])),
    );
    l9.reductions.push(red("sum", "s"));
    s.loops.push(l9);
    // The DO on line 21 carries a statement label in columns 1-5.
    s.loops.push(par(
        &p,
        "init",
        21,
        &["j", "i"],
        Some(aref("a", vec![var("i"), var("j")])),
    ));
    let g = only(generate(&prog, &s).unwrap());
    let map = check_only_insertions(&input, &g, true);
    check_columns(&g, true);
    let dirs = check_reparse(
        &g,
        true,
        &map,
        &[
            (9, "PARALLEL (J,I) ON A(I,J), REDUCTION(SUM(S))"),
            (21, "PARALLEL (J,I) ON A(I,J)"),
        ],
    );
    let dist_lines: Vec<u32> = dirs
        .iter()
        .filter(|d| matches!(d.kind, DirectiveKind::Distribute { .. }))
        .map(|d| d.line)
        .collect();
    // After `INTEGER I, J` of each unit (lines 6 and 20), before its first executable line.
    assert_eq!(dist_lines, vec![map[&6] + 1, map[&20] + 1]);
    assert_eq!(map[&7], map[&6] + 2);
    let lines: Vec<&str> = g.text.lines().collect();
    assert_eq!(
        lines[map[&21] as usize - 2],
        "CDVM$ PARALLEL (J,I) ON A(I,J)"
    );
    assert_eq!(lines[map[&21] as usize - 1], "   15 DO 20 J = 1, N");
    check_idempotent(&input, &g, true, &s, &map, "common.f");
    if gfortran_available() {
        let dir = tempfile::tempdir().unwrap();
        let a = compile_and_run(dir.path(), "orig.f", &input, &[]);
        let b = compile_and_run(dir.path(), "dvmh.f", &g.text, &[]);
        assert_eq!(a, b);
    }
}

// ---------------------------------------------------------------------------
// Placement: INCLUDE files, units without declarations or executable statements
// ---------------------------------------------------------------------------

#[test]
fn declarations_after_the_include_line_and_in_odd_units() {
    let p = data("inct.f");
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let mut s = scheme();
    s.distributions
        .push(dist(&p, "inct", "a", &[Format::Block]));
    s.distributions
        .push(dist(&p, "nospec", "x", &[Format::Block]));
    s.distributions
        .push(dist(&p, "onlydc", "x", &[Format::Block]));
    s.distributions
        .push(dist(&p, "empty", "y", &[Format::Star]));
    s.loops
        .push(par(&p, "inct", 5, &["i"], Some(aref("a", vec![var("i")]))));
    let g = only(generate(&prog, &s).unwrap());
    let map = check_only_insertions(&input, &g, true);
    let lines: Vec<&str> = g.text.lines().collect();
    let after = |orig: u32| lines[map[&orig] as usize];
    // The last declaration is inside decl.inc: right after the INCLUDE line.
    assert_eq!(after(3), "CDVM$ DISTRIBUTE A(BLOCK)");
    assert_eq!(lines[map[&4] as usize - 1], "C     the executable part");
    // No declarations: after the header.
    assert_eq!(after(11), "CDVM$ DISTRIBUTE X(BLOCK)");
    // No executable statements: after the declarations, before END.
    assert_eq!(after(16), "CDVM$ DISTRIBUTE X(BLOCK)");
    assert_eq!(lines[map[&17] as usize - 1], "      END");
    assert_eq!(map[&17], map[&16] + 2);
    // Neither: after the header, before END.
    assert_eq!(after(19), "CDVM$ DISTRIBUTE Y(*)");
    assert_eq!(map[&20], map[&19] + 2);
    assert_eq!(lines[map[&5] as usize - 2], "CDVM$ PARALLEL (I) ON A(I)");
    check_reparse(&g, true, &map, &[(5, "PARALLEL (I) ON A(I)")]);
    check_idempotent_with(&input, &g, true, &s, &map, "inct.f", &[data("decl.inc")]);
}

#[test]
fn free_form_header_continuation_and_shared_lines() {
    let p = data("place.f90");
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let mut s = scheme();
    s.distributions
        .push(dist(&p, "bare", "a", &[Format::Block]));
    s.distributions
        .push(dist(&p, "long_header", "a", &[Format::Block]));
    s.loops.push(par(
        &p,
        "long_header",
        6,
        &["i"],
        Some(aref("a", vec![var("i")])),
    ));
    let g = only(generate(&prog, &s).unwrap());
    let map = check_only_insertions(&input, &g, false);
    let lines: Vec<&str> = g.text.lines().collect();
    // Header over two lines; no declarations: after the header's last line, indented like
    // the first executable statement.
    assert_eq!(lines[map[&12] as usize], "  !DVM$ DISTRIBUTE A(BLOCK)");
    assert_eq!(lines[map[&13] as usize - 1], "  ! no declarations at all");
    assert_eq!(lines[map[&4] as usize], "  !DVM$ DISTRIBUTE A(BLOCK)");
    assert_eq!(lines[map[&6] as usize - 2], "  !DVM$ PARALLEL (I) ON A(I)");
    check_reparse(&g, false, &map, &[(6, "PARALLEL (I) ON A(I)")]);

    // A statement sharing its line with another cannot take a directive.
    let mut bad = scheme();
    bad.remote.push(RemoteAccess {
        at: at(&p, "long_header"),
        line: 5,
        refs: vec![aref("b", vec![var("i")])],
        times: 1,
        cached: false,
    });
    assert!(
        generate(&prog, &bad).is_ok(),
        "REMOTE_ACCESS before the first statement of line 5"
    );
    let mut bad = scheme();
    bad.loops.push(par(&p, "long_header", 5, &["i"], None));
    assert_eq!(
        generate(&prog, &bad),
        Err(GenError::NoLoopAt {
            file: path_str(&p),
            line: 5
        })
    );
    // `a(1) = 0.; do i = 2, 10`: a directive before the line would precede `a(1) = 0.` too.
    let mut bad = scheme();
    bad.loops.push(par(&p, "shared", 20, &["i"], None));
    assert!(
        matches!(
            generate(&prog, &bad),
            Err(GenError::Placement { line: 20, .. })
        ),
        "{:?}",
        generate(&prog, &bad)
    );
}

// ---------------------------------------------------------------------------
// (h) line endings; existing directives replaced
// ---------------------------------------------------------------------------

#[test]
fn crlf_and_missing_final_newline_are_preserved() {
    let src = std::fs::read_to_string(data("jac2d.f90")).unwrap();
    let crlf = src.replace('\n', "\r\n");
    let crlf = crlf.strip_suffix("\r\n").unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jac2d.f90");
    std::fs::write(&p, &crlf).unwrap();
    let prog = load_one(&p);
    let s = jac2d_scheme(&p);
    let g = only(generate(&prog, &s).unwrap());
    let map = check_only_insertions(&crlf, &g, false);
    // Every line ends with CRLF, inserted ones included; no bare LF; no final line ending.
    assert!(!g.text.ends_with('\n'));
    assert_eq!(g.text.matches('\n').count(), g.text.matches("\r\n").count());
    assert_eq!(
        g.text.lines().count(),
        crlf.lines().count() + g.inserted.len()
    );
    // Same directives as with LF.
    let lf = only(
        generate(
            &load_one(&data("jac2d.f90")),
            &jac2d_scheme(&data("jac2d.f90")),
        )
        .unwrap(),
    );
    assert_eq!(
        g.text.replace("\r\n", "\n"),
        lf.text.strip_suffix('\n').unwrap()
    );
    check_reparse(&g, false, &map, JAC2D_PARALLEL);
    check_idempotent(&crlf, &g, false, &s, &map, "jac2d.f90");
    if gfortran_available() {
        let out = compile_and_run(dir.path(), "crlf.f90", &g.text, &[]);
        assert!(out.contains("it =    5"));
    }
}

#[test]
fn existing_directives_are_replaced() {
    let src = std::fs::read_to_string(jac_f()).unwrap();
    // Put stale directives (one continued, one lower-case) and a hint into the input.
    let mut lines: Vec<String> = src.lines().map(String::from).collect();
    lines.insert(17, "CDVM$ PARALLEL (J,I) ON B(I,J),".into());
    lines.insert(18, "cdvm$*  REDUCTION(SUM(S))".into());
    lines.insert(19, "C$SPF ANALYSIS(PRIVATE(T))".into());
    lines.insert(3, "*DVM$ DISTRIBUTE B(*,BLOCK)".into());
    let stale = lines.join("\n") + "\n";
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jac.f");
    std::fs::write(&p, &stale).unwrap();
    let prog = load_one(&p);
    let mut s = jacobi_scheme(&p);
    // Original lines move by the 4 inserted ones: DO lines 5 -> 6, 18 -> 22, 24 -> 28.
    s.loops[0].line = 6;
    s.loops[1].line = 22;
    s.loops[2].line = 28;
    let g = only(generate(&prog, &s).unwrap());
    assert_eq!(g.removed, 3);
    assert!(g.text.contains(
        "C$SPF ANALYSIS(PRIVATE(T))\nCDVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))\n"
    ));
    // Same text as from the clean sample, plus the hint.
    let clean = only(generate(&load_one(&jac_f()), &jacobi_scheme(&jac_f())).unwrap());
    assert_eq!(
        g.text.replace("C$SPF ANALYSIS(PRIVATE(T))\n", ""),
        clean.text
    );
    check_only_insertions(&stale, &g, true);
}

// ---------------------------------------------------------------------------
// Errors name the file and line; nothing panics
// ---------------------------------------------------------------------------

#[test]
fn errors_name_file_and_line() {
    let p = jac_f();
    let prog = load_one(&p);
    let f = path_str(&p);

    let mut s = jacobi_scheme(&p);
    s.loops[1].line = 17;
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::NoLoopAt {
            file: f.clone(),
            line: 17
        })
    );
    let mut s = jacobi_scheme(&p);
    s.loops[1].line = 9999;
    assert!(matches!(
        generate(&prog, &s),
        Err(GenError::NoLoopAt { line: 9999, .. })
    ));

    let mut s = jacobi_scheme(&p);
    s.distributions[0].at.file = "nowhere.f".into();
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::UnknownFile("nowhere.f".into()))
    );
    let mut s = jacobi_scheme(&p);
    s.alignments[0].at.unit = "solve".into();
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::UnknownUnit {
            file: f.clone(),
            unit: "solve".into()
        })
    );
    let mut s = jacobi_scheme(&p);
    s.loops.push(s.loops[0].clone());
    assert!(matches!(
        generate(&prog, &s),
        Err(GenError::Duplicate { line: 5, .. })
    ));
    let mut s = jacobi_scheme(&p);
    s.alignments[0].array = "a".into();
    assert!(matches!(
        generate(&prog, &s),
        Err(GenError::Duplicate { .. })
    ));
    let mut s = jacobi_scheme(&p);
    s.loops[0].vars[0] = "j)".into();
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::BadName {
            file: f.clone(),
            line: 5,
            name: "j)".into()
        })
    );
    let mut s = jacobi_scheme(&p);
    s.loops[1].reductions[0].op = "avg".into();
    assert!(matches!(
        generate(&prog, &s),
        Err(GenError::BadScheme { line: 18, .. })
    ));
    let mut s = jacobi_scheme(&p);
    s.alignments[0].subs[1] = AlignSub::Linear {
        dummy: 7,
        coeff: 1,
        offset: 0,
    };
    assert!(matches!(
        generate(&prog, &s),
        Err(GenError::BadScheme { line: 4, .. })
    ));
    let mut s = jacobi_scheme(&p);
    s.remote.push(RemoteAccess {
        at: at(&p, "jac"),
        line: 3,
        refs: vec![aref("a", vec![RefSub::All, RefSub::Const(1)])],
        times: 1,
        cached: false,
    });
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::NoStatementAt {
            file: f.clone(),
            line: 3
        })
    );
    // Messages carry file and line.
    let e = GenError::NoLoopAt {
        file: f.clone(),
        line: 17,
    };
    assert!(e.to_string().starts_with(&format!("{f}:17:")));
}

#[test]
fn align_offsets_constants_and_remote_access_read_back() {
    let p = jac_f();
    let prog = load_one(&p);
    let mut s = jacobi_scheme(&p);
    s.alignments[0] = Alignment {
        at: at(&p, "jac"),
        array: "b".into(),
        source: vec!["i".into(), "j".into()],
        target: "a".into(),
        subs: vec![
            AlignSub::Linear {
                dummy: 1,
                coeff: -2,
                offset: -3,
            },
            AlignSub::Linear {
                dummy: 0,
                coeff: -1,
                offset: 1,
            },
        ],
    };
    s.remote.push(RemoteAccess {
        at: at(&p, "jac"),
        line: 30,
        refs: vec![
            aref("a", vec![RefSub::All, RefSub::Const(-1)]),
            aref(
                "b",
                vec![
                    RefSub::Var {
                        var: "it".into(),
                        offset: -1,
                    },
                    RefSub::Var {
                        var: "it".into(),
                        offset: 2,
                    },
                ],
            ),
        ],
        times: 1,
        cached: false,
    });
    s.loops[0]
        .across
        .push(widths("a", &[(0, 1), (2, 0)], false));
    s.loops[0].private = vec!["tmp".into()];
    let mut m = red("maxloc", "eps");
    m.loc = vec!["idx".into(), "2".into()];
    s.loops[0].reductions.push(m);
    let g = only(generate(&prog, &s).unwrap());
    let input = std::fs::read_to_string(&p).unwrap();
    let map = check_only_insertions(&input, &g, true);
    check_columns(&g, true);
    let mut want = JACOBI_PARALLEL.to_vec();
    want[0].1 =
        "PARALLEL (J,I) ON A(I,J), PRIVATE(TMP), REDUCTION(MAXLOC(EPS,IDX,2)), ACROSS(A(0:1,2:0))";
    let dirs = check_reparse(&g, true, &map, &want);
    let texts: Vec<String> = dirs.iter().map(|d| d.kind.to_string()).collect();
    assert!(
        texts.contains(&"ALIGN B(I,J) WITH A(-2*J-3,-I+1)".to_string()),
        "{texts:?}"
    );
    let ra = dirs
        .iter()
        .find(|d| matches!(d.kind, DirectiveKind::RemoteAccess { .. }))
        .unwrap();
    assert_eq!(ra.kind.to_string(), "REMOTE_ACCESS(A(:,-1),B(IT-1,IT+2))");
    assert_eq!(ra.end_line + 1, map[&30]);
}

#[test]
fn every_top_level_file_comes_back_in_order() {
    let a = data("common.f");
    let b = data("jac2d.f90");
    let c = data("inct.f");
    let prog = load(&[a.clone(), b.clone(), c.clone()], &Options::default());
    assert!(
        prog.map.files.iter().any(|f| f.included),
        "decl.inc is read"
    );
    let mut s = jac2d_scheme(&b);
    s.distributions
        .push(dist(&a, "main", "a", &[Format::Block, Format::Star]));
    let out = generate(&prog, &s).unwrap();
    let paths: Vec<&Path> = out.iter().map(|g| g.path.as_path()).collect();
    assert_eq!(paths, vec![a.as_path(), b.as_path(), c.as_path()]);
    assert_eq!(out[2].text, std::fs::read_to_string(&c).unwrap());
    assert!(out[2].inserted.is_empty());
    assert!(out[0].text.contains("CDVM$ DISTRIBUTE A(BLOCK,*)\n"));
    let forms: Vec<SourceForm> = prog.map.files.iter().map(|f| f.form).collect();
    assert_eq!(forms[0], SourceForm::Fixed);
    // Directives cannot go into the INCLUDE file.
    let inc = prog.map.files.iter().find(|f| f.included).unwrap();
    let mut s = scheme();
    s.distributions.push(Distribution {
        at: UnitRef {
            file: inc.display_path(),
            unit: "inct".into(),
        },
        array: "a".into(),
        formats: vec![Format::Block],
    });
    assert_eq!(
        generate(&prog, &s),
        Err(GenError::IncludeFile(inc.display_path()))
    );
}

#[test]
fn nested_include_holding_the_last_declaration() {
    // nest.f: INCLUDE 'outer.inc' (N), INCLUDE 'more.inc' (B, then INCLUDE 'inner.inc' (A)).
    let p = data("nest.f");
    let prog = load_one(&p);
    let input = std::fs::read_to_string(&p).unwrap();
    let mut s = scheme();
    s.distributions
        .push(dist(&p, "nest", "a", &[Format::Block]));
    s.alignments.push(align_id(&p, "nest", "b", "a", 1));
    let g = only(generate(&prog, &s).unwrap());
    let map = check_only_insertions(&input, &g, true);
    let lines: Vec<&str> = g.text.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "      PROGRAM NEST",
            "      INCLUDE 'outer.inc'",
            "      INCLUDE 'more.inc'",
            "CDVM$ DISTRIBUTE A(BLOCK)",
            "CDVM$ ALIGN B(I) WITH A(I)",
            "      K = 1",
        ]
    );
    let inc: Vec<PathBuf> = ["outer.inc", "more.inc", "inner.inc"]
        .iter()
        .map(|n| data(n))
        .collect();
    check_idempotent_with(&input, &g, true, &s, &map, "nest.f", &inc);
    if gfortran_available() {
        let dir = tempfile::tempdir().unwrap();
        for c in &inc {
            std::fs::copy(c, dir.path().join(c.file_name().unwrap())).unwrap();
        }
        let a = compile_and_run(dir.path(), "orig.f", &input, &[]);
        let b = compile_and_run(dir.path(), "dvmh.f", &g.text, &[]);
        assert_eq!(a, b);
    }
}

/// A nest split by statements (`ParallelLoop::part`): one directive and one copy of the nest
/// per part, each copy without the other parts' assignments; the first keeps the labels, the
/// second gets new ones (the loops share their terminal statement). The program computes
/// what the original computes. A part that names no assignment of the nest is refused with
/// the file and line.
#[test]
fn a_nest_split_by_statements_is_written_once_per_part() {
    let p = data("split_nest.f");
    let prog = load_one(&p);
    let f = path_str(&p);
    let mut s = scheme();
    for part in [(14, 14), (16, 17)] {
        let mut x = par(&p, "fis", 12, &["i", "m"], None);
        x.end_line = 18;
        x.part = vec![part];
        s.loops.push(x);
    }
    let g = only(generate(&prog, &s).unwrap());
    let want = "\
CDVM$ PARALLEL (I,M)
      do 10 i = 2, n
         do 10 m = 1, 3
            a(m, i) = a(m, i) * 2
c           the second statement
   10 continue
CDVM$ PARALLEL (I,M)
      do 11 i = 2, n
         do 11 m = 1, 3
c           the second statement
            b(m, i) = b(m, i)
     >                + 1
   11 continue
      print";
    assert!(g.text.contains(want), "{}", g.text);
    check_columns(&g, true);
    if gfortran_available() {
        let dir = tempfile::tempdir().unwrap();
        let orig = std::fs::read_to_string(&p).unwrap();
        assert_eq!(compile_and_run(dir.path(), "split.f", &g.text, &[]), compile_and_run(dir.path(), "orig.f", &orig, &[]));
    }
    s.loops[1].part = vec![(15, 15)];
    match generate(&prog, &s) {
        Err(GenError::Placement { file, line: 12, message }) => {
            assert_eq!(file, f);
            assert!(message.contains("no assignment of it spans line 15"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
