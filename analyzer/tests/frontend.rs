//! Front end and semantic model: units, symbols, PARAMETERs, COMMON layout, EQUIVALENCE,
//! spans mapped to the original file, INCLUDE, directives, and diagnostics on bad input.

use analyzer::ast::{Node, StmtKind, UnitKind};
use analyzer::diag::{codes, Severity};
use analyzer::program::{load, Options};
use analyzer::sema::{Const, RefKind};
use std::path::PathBuf;

fn write(dir: &tempdir::Dir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

mod tempdir {
    use std::path::{Path, PathBuf};
    /// A fresh directory under the system temp dir, removed on drop.
    pub struct Dir(PathBuf);
    impl Dir {
        pub fn new(tag: &str) -> Dir {
            let p = std::env::temp_dir().join(
                format!(
                    "sapfor-test-{tag}-{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                )
                .replace(['(', ')'], ""),
            );
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[test]
fn units_symbols_parameters_and_commons() {
    let d = tempdir::Dir::new("sema");
    let f = write(
        &d,
        "p.f",
        "      PROGRAM MAIN\n\
         \x20     PARAMETER (N=10, M=N*2+1)\n\
         \x20     REAL*8 A(0:M, N), X\n\
         \x20     INTEGER K\n\
         \x20     COMMON /BLK/ A, K, Y(3)\n\
         \x20     EQUIVALENCE (X, Z)\n\
         \x20     DATA X /1.0/\n\
         \x20     CALL SUB(A)\n\
         \x20     Y(1) = F(2.0) + SQRT(X)\n\
         \x20     END\n\
         \x20     SUBROUTINE SUB(B)\n\
         \x20     IMPLICIT DOUBLE PRECISION (B-D)\n\
         \x20     DIMENSION B(*)\n\
         \x20     B(1) = C\n\
         \x20     END\n\
         \x20     REAL FUNCTION F(T)\n\
         \x20     F = T\n\
         \x20     END\n",
    );
    let p = load(&[f], &Options::default());
    assert!(!p.has_errors(), "{:?}", p.diags);
    let names: Vec<(&str, UnitKind)> = p.units.iter().map(|u| (u.name.as_str(), u.kind)).collect();
    assert_eq!(
        names,
        vec![
            ("main", UnitKind::Program),
            ("sub", UnitKind::Subroutine),
            ("f", UnitKind::Function)
        ]
    );
    let s = &p.semas[0];
    assert_eq!(s.param("m"), Some(&Const::Int(21)));
    let a = s.symbol("a").unwrap();
    assert_eq!(a.bounds(), vec![Some((0, 21)), Some((1, 10))]);
    assert_eq!(a.ty.bytes(), 8);
    assert_eq!(s.symbol("k").unwrap().ty.name(), "integer");
    assert_eq!(
        s.symbol("y").unwrap().ty.name(),
        "real",
        "implicit REAL for Y"
    );
    let blk = &s.commons["blk"];
    let layout: Vec<(&str, Option<u64>)> =
        blk.iter().map(|m| (m.name.as_str(), m.offset)).collect();
    assert_eq!(
        layout,
        vec![
            ("a", Some(0)),
            ("k", Some(22 * 10 * 8)),
            ("y", Some(22 * 10 * 8 + 4))
        ]
    );
    assert!(s.symbol("x").unwrap().aliases.contains("z"));
    assert!(s.symbol("x").unwrap().data_init);
    assert_eq!(s.ref_kind("y"), RefKind::ArrayElement);
    assert_eq!(s.ref_kind("sqrt"), RefKind::Intrinsic);
    assert_eq!(s.ref_kind("f"), RefKind::Function);
    let sub = &p.semas[1];
    assert_eq!(
        sub.symbol("c").map(|c| c.ty.name()),
        None,
        "C is never declared, only used"
    );
    assert_eq!(sub.type_of("c").name(), "double precision");
    assert_eq!(sub.symbol("b").unwrap().dummy, Some(0));
    // the dummy argument is known before the IMPLICIT statement; the rule applies to it too
    assert_eq!(sub.symbol("b").unwrap().ty.name(), "double precision");
    assert!(sub.symbol("b").unwrap().dims.as_ref().unwrap()[0].assumed);
    assert_eq!(p.semas[2].symbol("f").unwrap().ty.name(), "real");
    // Interprocedural: SUB writes its first argument.
    assert!(!p.summaries["sub"].args[&0].write.is_empty());
}

#[test]
fn shared_terminal_labels_nest_and_spans_map_to_original_lines() {
    let d = tempdir::Dir::new("labels");
    let f = write(
        &d,
        "l.f",
        "C     comment line\n\
         \x20     PROGRAM L\n\
         \x20     DIMENSION A(5,5)\n\
         \x20     DO 10 J = 1, 5\n\
         \x20     DO 10 I = 1,\n\
         \x20    &          5\n\
         \x20        A(I,J) = 0\n\
         \x20  10 CONTINUE\n\
         \x20     PRINT *, A(1,1)\n\
         \x20     END\n",
    );
    let p = load(&[f], &Options::default());
    assert!(!p.has_errors(), "{:?}", p.diags);
    let u = &p.units[0];
    assert_eq!(u.body.len(), 2);
    let Node::Do { header, body, end } = &u.body[0] else {
        panic!("outer DO expected")
    };
    assert!(end.is_none());
    let hs = u.stmt(*header);
    assert_eq!((hs.span.line, hs.span.col), (4, 7));
    let Node::Do {
        header: inner,
        body: ib,
        ..
    } = &body[0]
    else {
        panic!("inner DO expected")
    };
    let is = u.stmt(*inner);
    assert_eq!(
        (is.span.line, is.span.end_line),
        (5, 6),
        "continued DO spans lines 5-6"
    );
    assert!(matches!(&is.kind, StmtKind::Do { label: Some(10), var, .. } if var == "i"));
    // The terminal CONTINUE belongs to the inner body; both loops close on it.
    assert_eq!(ib.len(), 2);
    assert_eq!(
        u.stmt(match ib[1] {
            Node::Stmt(s) => s,
            _ => panic!(),
        })
        .label,
        Some(10)
    );
}

#[test]
fn include_files_are_found_and_mapped() {
    let d = tempdir::Dir::new("inc");
    std::fs::create_dir_all(d.path().join("inc")).unwrap();
    write(
        &d,
        "inc/defs.h",
        "      PARAMETER (N = 7)\n      COMMON /C/ W(N)\n",
    );
    let f = write(
        &d,
        "m.f",
        "      PROGRAM M\n      INCLUDE 'defs.h'\n      W(1) = N\n      END\n",
    );
    let p = load(
        &[f.clone()],
        &Options {
            include_dirs: vec![d.path().join("inc")],
            ..Default::default()
        },
    );
    assert!(!p.has_errors(), "{:?}", p.diags);
    assert_eq!(p.semas[0].param("n"), Some(&Const::Int(7)));
    assert_eq!(p.semas[0].symbol("w").unwrap().bounds(), vec![Some((1, 7))]);
    // Without -I: a clear error at the INCLUDE line.
    let p = load(&[f], &Options::default());
    let e = p
        .diags
        .iter()
        .find(|d| d.code == codes::MISSING_INCLUDE)
        .expect("missing include diagnostic");
    assert!(e.message.contains("defs.h"));
    let loc = e.location.as_ref().unwrap();
    assert!(
        loc.file.ends_with("m.f") && loc.line == 2 && loc.col == 7,
        "{loc:?}"
    );
}

#[test]
fn syntax_errors_and_undeclared_names_are_reported_with_locations() {
    let d = tempdir::Dir::new("bad");
    let f = write(&d, "bad.f90", "program bad\n  implicit none\n  integer :: i\n  i = (1 +\n  j = 2\n  do i = 1, 3\n    k = i\n  end do\nend program\n");
    let p = load(&[f], &Options::default());
    let syn = p
        .diags
        .iter()
        .find(|d| d.code == codes::SYNTAX)
        .expect("syntax error");
    assert_eq!(syn.severity, Severity::Error);
    assert_eq!(syn.location.as_ref().unwrap().line, 4);
    let und: Vec<&str> = p
        .diags
        .iter()
        .filter(|d| d.code == codes::UNDECLARED)
        .map(|d| d.message.as_str())
        .collect();
    assert!(und.iter().any(|m| m.contains("`k`")), "{und:?}");
    // The loop after the error is still analyzed.
    let a = analyzer::report::analyze(&[d.path().join("bad.f90")], &Options::default());
    assert!(a.loops[0].iter().any(|l| l.line == 6));
}

#[test]
fn unterminated_constructs_and_missing_files() {
    let d = tempdir::Dir::new("unterm");
    let f = write(
        &d,
        "u.f90",
        "program u\n  do i = 1, 3\n    x = i\nend program\n",
    );
    let p = load(&[f, d.path().join("nope.f")], &Options::default());
    assert!(p
        .diags
        .iter()
        .any(|d| d.code == codes::IO_ERROR && d.message.contains("nope.f")));
    assert!(p.has_errors());
}

#[test]
fn directives_in_fixed_and_free_form_are_read() {
    let d = tempdir::Dir::new("dvm");
    let f = write(
        &d,
        "j.fdv",
        "      PROGRAM J\n      REAL A(8,8), B(8,8)\nCDVM$ DISTRIBUTE (BLOCK,BLOCK) :: A\nCDVM$ ALIGN B(I,J) WITH A(I,J)\nCDVM$ PARALLEL (J,I) ON A(I,J),\nCDVM$*  SHADOW_RENEW(B)\n      DO 1 J = 2, 7\n      DO 1 I = 2, 7\n    1 A(I,J) = B(I-1,J)\n      END\n",
    );
    let p = load(&[f], &Options::default());
    assert!(!p.has_errors(), "{:?}", p.diags);
    let src = &p.map.files[0];
    assert_eq!(
        src.form,
        analyzer::source::SourceForm::Fixed,
        ".fdv detected as fixed form"
    );
    let dirs = &p.directives[&analyzer::source::FileId(0)];
    assert_eq!(dirs.len(), 3);
    assert_eq!((dirs[2].line, dirs[2].end_line), (5, 6));
    assert_eq!(
        dirs[2].kind.to_string(),
        "PARALLEL (J,I) ON A(I,J), SHADOW_RENEW(B)"
    );
    let f2 = write(
        &d,
        "bad.fdv",
        "program b\n!dvm$ parallel on a(i)\nend program\n",
    );
    let p = load(&[f2], &Options::default());
    let e = p
        .diags
        .iter()
        .find(|d| d.code == codes::BAD_DIRECTIVE)
        .expect("bad directive reported");
    assert_eq!(e.location.as_ref().unwrap().line, 2);
}

#[test]
fn rank_mismatches_and_empty_files_are_errors_with_their_place() {
    let d = tempdir::Dir::new("rank");
    let f = write(
        &d,
        "rk.f90",
        "program rk\n  real :: a(10,10), b(10,10)\n  character(len=8) :: s\n  integer :: i, j\n  a = 1\n  s = 'abcdefgh'\n  do j = 1, 9\n    do i = 1, 9\n      b(i,j) = a(i) + a(i+1,j)\n    end do\n  end do\n  print *, b(1,1), s(2:3)\nend program\n",
    );
    let p = load(&[f], &Options::default());
    let r: Vec<_> = p.diags.iter().filter(|d| d.code == codes::RANK_MISMATCH).collect();
    assert_eq!(r.len(), 1, "{:?}", p.diags);
    assert_eq!(r[0].severity, Severity::Error);
    assert_eq!(r[0].location.as_ref().unwrap().line, 9);
    assert!(r[0].message.contains("`a` has rank 2 but is referenced with 1 subscript"), "{}", r[0].message);
    for (name, text) in [("e.f", ""), ("c.f", "C only a comment\n\n")] {
        let f = write(&d, name, text);
        let p = load(&[f], &Options::default());
        assert!(
            p.diags.iter().any(|x| x.severity == Severity::Error && x.message.contains("holds no program unit")),
            "{name}: {:?}",
            p.diags
        );
    }
}

#[test]
fn common_mistakes_are_said_plainly() {
    let d = tempdir::Dir::new("plain");
    let cases = [
        ("noend.f90", "program p\n  integer :: i\n  i = 1\n  print *, i\n", codes::UNMATCHED_END, "`program p` has no END statement", 1),
        ("noend.f", "      PROGRAM P\n      I = 1\n      PRINT *, I\n", codes::UNMATCHED_END, "`PROGRAM P` has no END statement", 1),
        ("extra.f90", "program p\n  integer :: i\n  i = 1\n  end do\n  print *, i\nend program\n", codes::UNMATCHED_END, "END DO without a DO", 4),
        ("extraif.f90", "program p\n  integer :: i\n  i = 1\n  end if\n  print *, i\nend program\n", codes::UNMATCHED_END, "END IF without an IF", 4),
        // a fixed-form statement typed past column 72: the parser fails further up, at the DO;
        // the message names the long line and what was cut off
        (
            "long.f",
            "      PROGRAM P\n      DOUBLE PRECISION R(5,5), A(5,5)\n      INTEGER I, M\n      DO I = 1, 5\n         DO M = 1, 5\n            R(M, I) = R(M, I) - A(M, I) * R(M, I) - A(I, M) * R(I, M) * 2.0D0\n         END DO\n      END DO\n      END\n",
            codes::SYNTAX,
            "goes past column 72, and fixed form ignores what follows (`2.0D0` is cut off",
            6,
        ),
        // cut after `/`: the parser stumbles only at the CONTINUE after it; the `4` in column
        // 73 is no card sequence number
        (
            "slash.f",
            "      PROGRAM P\n      DOUBLE PRECISION G(5,5), H(5,5)\n      INTEGER I, J\n      DO 220 J = 2, 4\n      DO 220 I = 2, 4\n            H(I, J) = (G(I-1, J) + G(I+1, J) + G(I, J-1) + G(I, J+1)) / 4\n  220 CONTINUE\n      END\n",
            codes::SYNTAX,
            "goes past column 72, and fixed form ignores what follows (`4` is cut off",
            6,
        ),
    ];
    for (name, text, code, want, line) in cases {
        let f = write(&d, name, text);
        let p = load(&[f], &Options::default());
        assert!(
            p.diags.iter().any(|x| x.code == code && x.message.contains(want) && x.location.as_ref().is_some_and(|l| l.line == line)),
            "{name}: {:?}",
            p.diags
        );
    }
    // DO CONCURRENT is not called DO WHILE
    let f = write(&d, "dc.f90", "program dc\n  integer :: i\n  real :: a(10)\n  do concurrent (i = 1:10)\n    a(i) = i\n  end do\n  print *, a(1)\nend program\n");
    let a = analyzer::report::analyze(&[f], &Options::default());
    let l = &a.loops[0][0];
    assert!(l.blockers.iter().any(|b| b.message.starts_with("DO CONCURRENT loop")), "{:?}", l.blockers);
    assert!(!l.blockers.iter().any(|b| b.message.contains("DO WHILE")), "{:?}", l.blockers);
}

#[test]
fn substrings_and_module_variables_are_not_called_external_procedures() {
    let d = tempdir::Dir::new("subs");
    let f = write(
        &d,
        "sub.f90",
        "module m\n  real :: w(100)\nend module m\nprogram p\n  use m\n  character(len=100) :: s\n  integer :: i, n\n  real :: a(100)\n  s = repeat('ab', 50)\n  n = 0\n  do i = 1, 100\n    if (s(i:i) == 'a') n = n + 1\n  end do\n  do i = 1, 100\n    a(i) = w(i) + 1\n  end do\n  print *, n, a(1)\nend program\n",
    );
    let a = analyzer::report::analyze(&[f], &Options::default());
    let ui = a.program.units.iter().position(|u| u.name == "p").unwrap();
    let loops = &a.loops[ui];
    let sub = loops.iter().find(|l| l.line == 11).unwrap();
    assert_eq!(sub.verdict, analyzer::loops::Verdict::Parallel, "{:?}", sub.blockers);
    let modv = loops.iter().find(|l| l.line == 14).unwrap();
    assert!(
        modv.blockers.iter().any(|b| b.message.contains("W at line 15 is a variable of module M")),
        "{:?}",
        modv.blockers
    );
    assert!(!modv.blockers.iter().any(|b| b.message.contains("external procedure")), "{:?}", modv.blockers);
}

/// A main program's ALLOCATABLE array allocated once, at its top level, with constant bounds
/// has those bounds (also in the procedures it contains, by host association); a procedure
/// that declares the name again has an entity of its own, with nothing of the host's
/// (ALLOCATABLE, COMMON, bounds). Before, a contained procedure's explicit-shape dummy `A(N)`
/// stayed ALLOCATABLE, and a local `X` stayed in the host's COMMON.
#[test]
fn allocated_once_bounds_and_host_names_declared_again() {
    let dir = tempdir::Dir::new("alloc-once");
    let p = write(
        &dir,
        "m.f90",
        "program m\n  integer, parameter :: n = 6\n  real, allocatable :: a(:,:), b(:), c(:)\n  real :: x\n  common /cx/ x\n  integer :: k\n  k = 3\n  allocate(a(n, 0:n-1), c(k))\n  if (k > 0) allocate(b(4))\n  call fill(n, a(:, 0))\n  call show()\ncontains\n  subroutine fill(n, a)\n    integer :: n\n    real :: a(n), x\n    x = 1\n    a = x\n  end subroutine\n  subroutine show()\n    print *, a(1, 0)\n  end subroutine\nend program\n",
    );
    let prog = load(&[p], &Options::default());
    assert!(!prog.has_errors(), "{:?}", prog.diags);
    let unit = |n: &str| prog.units.iter().position(|u| u.name == n).unwrap();
    let (m, fill, show) = (unit("m"), unit("fill"), unit("show"));
    let a = prog.semas[m].symbol("a").unwrap();
    assert!(a.allocatable);
    assert_eq!(a.bounds(), vec![Some((1, 6)), Some((0, 5))]);
    // the host's array seen by host association has them too
    assert_eq!(prog.semas[show].symbol("a").unwrap().bounds(), vec![Some((1, 6)), Some((0, 5))]);
    // inside an IF, or with bounds not constant: not known
    assert_eq!(prog.semas[m].symbol("b").unwrap().bounds(), vec![None]);
    assert_eq!(prog.semas[m].symbol("c").unwrap().bounds(), vec![None]);
    let why = analyzer::program::allocated_once(&prog.units, &prog.semas, m, "b").unwrap_err();
    assert!(why.contains("not inside a DO, an IF"), "{why}");
    // the dummy A of FILL and its local X are its own
    let fa = prog.semas[fill].symbol("a").unwrap();
    assert!(!fa.allocatable && fa.dummy == Some(1), "{fa:?}");
    assert_eq!(fa.rank(), 1);
    let fx = prog.semas[fill].symbol("x").unwrap();
    assert!(fx.common.is_none(), "{fx:?}");
}
