//! Golden dumps: the CFG block table and the loop report of selected programs, compared with
//! files under `test_data/golden/`. Regenerate with `UPDATE_GOLDEN=1 cargo test -p analyzer
//! --test golden` and review the diff.

use analyzer::report::analyze;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn check(input: &Path, what: &str, golden: &str) {
    let a = analyze(&[input.to_path_buf()], &Default::default());
    let base = root().parent().unwrap().to_path_buf();
    let got = a
        .dump(what)
        .unwrap()
        .replace(&format!("{}/", base.display()), "");
    let path = root().join("test_data/golden").join(golden);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden file {}", path.display()));
    assert_eq!(
        got,
        want,
        "dump {what} of {} differs from {}",
        input.display(),
        path.display()
    );
}

fn sample(p: &str) -> PathBuf {
    root().parent().unwrap().join(p)
}

/// The block table of SPEC section 4 with exact edges: 3->4 and 3->7 (the DO test), 6->3
/// (next iteration) and 6->7 (GOTO 3), and block 3 reading IT.
#[test]
fn jacobi_block_table() {
    check(&sample("samples/jacobi/jac.f"), "cfg", "jacobi.cfg");
    let text = std::fs::read_to_string(root().join("test_data/golden/jacobi.cfg")).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(" | ").collect())
        .collect();
    assert_eq!(rows.len(), 7, "seven blocks");
    let col = |b: usize, c: usize| rows[b - 1][c].trim().to_string();
    assert_eq!(col(1, 1), "4");
    assert_eq!(col(2, 1), "5-14");
    assert_eq!(col(3, 1), "16, 17");
    assert_eq!(col(4, 1), "18-23");
    assert_eq!(col(5, 1), "24-29");
    assert_eq!(col(6, 1), "30-33");
    assert_eq!(col(7, 1), "34-36");
    assert_eq!(col(3, 4), "4, 7");
    assert_eq!(col(6, 4), "3, 7");
    assert_eq!(col(3, 5), "2, 6");
    assert_eq!(col(7, 5), "3, 6");
    assert!(col(3, 3).contains("IT"), "block 3 reads IT");
    assert_eq!(col(2, 2), "A(*,*), B(*,*), I, J");
    assert_eq!(col(7, 3), "B(*,*)");
}

#[test]
fn jacobi_loops() {
    check(&sample("samples/jacobi/jac.f"), "loops", "jacobi.loops");
}

#[test]
fn gauss_seidel_loops_and_deps() {
    check(
        &sample("samples/gauss_seidel/gs.f"),
        "loops",
        "gauss_seidel.loops",
    );
    check(
        &sample("samples/gauss_seidel/gs.f"),
        "deps",
        "gauss_seidel.deps",
    );
}

#[test]
fn control_flow_shapes() {
    for f in [
        "arithmetic_if.f",
        "exit_statement_sequential.f90",
        "labelled_do_shared_label.f",
        "cycle_goto_continue_parallel.f",
    ] {
        let name = f.split('.').next().unwrap();
        check(
            &root().join("test_data").join(f),
            "cfg",
            &format!("{name}.cfg"),
        );
    }
}

/// Liveness and reaching definitions on the Jacobi CFG.
#[test]
fn jacobi_dataflow() {
    check(
        &sample("samples/jacobi/jac.f"),
        "dataflow",
        "jacobi.dataflow",
    );
    let text = std::fs::read_to_string(root().join("test_data/golden/jacobi.dataflow")).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(" | ").map(|c| c.to_string()).collect())
        .collect();
    let has = |b: usize, col: usize, what: &str| rows[b - 1][col].split(", ").any(|x| x == what);
    // IT is initialized by the DO at line 16: not live before the loop, live around it.
    assert!(!has(2, 2, "IT") && has(3, 1, "IT") && has(6, 2, "IT"));
    // EPS is set at line 17 before any read: not live into block 3, live out of it.
    assert!(!has(3, 1, "EPS") && has(3, 2, "EPS") && has(6, 1, "EPS"));
    // Only B is live at the final block (the WRITE).
    assert_eq!(rows[6][1], "B");
    // The reductions of block 4 and the EPS = 0. of block 3 both reach the PRINT block.
    assert!(has(6, 3, "EPS@17") && has(6, 3, "EPS@18"));
    // Block 4 (the nest at 18) redefines I and J: block 5 sees only those.
    assert!(has(5, 3, "I@18") && !has(5, 3, "I@5"));
}
