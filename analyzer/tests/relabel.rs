//! The second copy of a loop (the ELSE branch of a loop parallel under run-time tests) defines
//! its labels anew and its jumps follow them; a loop naming its labels where the renumbering
//! does not read them is refused.

use analyzer::ast::Node;
use analyzer::program::{load, Options};
use analyzer::source::SourceForm;
use std::collections::BTreeSet;

/// The copy of each outermost DO loop of the first unit of `src` (file `name`).
fn copies(name: &str, src: &str) -> Vec<Option<Vec<String>>> {
    let dir = std::env::temp_dir().join(format!("sapfor-relabel-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, src).unwrap();
    let p = load(&[path], &Options::default());
    assert!(!p.has_errors(), "{:?}", p.diags);
    let unit = &p.units[0];
    let fixed = p.map.files[unit.file.0 as usize].form == SourceForm::Fixed;
    let text: Vec<&str> = src.lines().collect();
    let mut taken = BTreeSet::new();
    unit.body.iter().filter(|n| matches!(n, Node::Do { .. })).map(|n| analyzer::relabel::loop_copy(unit, n, &text, fixed, &mut taken)).collect()
}

#[test]
fn fixed_form_jumps_follow_their_new_labels() {
    let src = "\
      PROGRAM P
      INTEGER I, J, K, L
      DOUBLE PRECISION S
      S = 0
      DO 20 K = 1, 10
         DO 10 I = 1, 5
            IF (I .GT. K) GO TO 15
            GOTO (11, 12) MOD(I, 2) + 1
   11       S = S + 1
            GO TO 10
   12       IF (S - 3) 13, 10, 10
   13       S = S + 10
   10    CONTINUE
   15    L = 10
         DO 20 J = 1, 2
            S = S + L + 20
   20 CONTINUE
      DO K = 1, 3
         S = S + 30
      END DO
      PRINT *, S
      END
";
    let c = copies("p.f", src);
    let first = c[0].as_ref().expect("the labelled loop is copied");
    // (11 -> 14, 12 -> 16, 13 -> 17, 10 -> 18, 15 -> 19, 20 -> 21: the next number of as many
    // digits that no statement of the unit defines and no earlier label of the copy took)
    let want = [
        "      DO 21 K = 1, 10",
        "         DO 18 I = 1, 5",
        "            IF (I .GT. K) GO TO 19",
        "            GOTO (14, 16) MOD(I, 2) + 1",
        "   14       S = S + 1",
        "            GO TO 18",
        "   16       IF (S - 3) 17, 18, 18",
        "   17       S = S + 10",
        "   18    CONTINUE",
        "   19    L = 10",
        "         DO 21 J = 1, 2",
        "            S = S + L + 20",
        "   21 CONTINUE",
    ]
    .join("\n");
    assert_eq!(first.join("\n"), want);
    // (constants equal to a label stay: `L = 10`, `+ 20`; a loop without labels is as it is)
    assert_eq!(c[1].as_ref().unwrap().join("\n"), "      DO K = 1, 3\n         S = S + 30\n      END DO");
}

#[test]
fn free_form_labels_are_renumbered_in_place() {
    let src = "\
program q
  integer :: i, k
  real :: s
  s = 0
  do 30 k = 1, 4
    do 40 i = 1, 3
      if (i == k) goto 40
      s = s + i
40  continue
30 continue
  print *, s
end program q
";
    let c = copies("q.f90", src);
    assert_eq!(c[0].as_ref().unwrap().join("\n"), "  do 31 k = 1, 4\n    do 41 i = 1, 3\n      if (i == k) goto 41\n      s = s + i\n41  continue\n31 continue");
}

#[test]
fn a_loop_jumped_into_from_outside_is_refused() {
    // (`GO TO 10` would jump into the IF block that holds the original loop)
    let src = "\
      PROGRAM J
      INTEGER K, N
      N = 0
   10 DO 20 K = 1, 3
         N = N + K
   20 CONTINUE
      IF (N .LT. 20) GO TO 10
      PRINT *, N
      END
";
    assert_eq!(copies("j.f", src), vec![None]);
}

#[test]
fn a_label_named_by_io_inside_the_loop_is_refused() {
    let src = "\
      PROGRAM R
      INTEGER K, N
      DO 10 K = 1, 3
         READ (5, *, ERR=10) N
         WRITE (*, 100) N
  100    FORMAT (I5)
   10 CONTINUE
      END
";
    assert_eq!(copies("r.f", src), vec![None]);
}
