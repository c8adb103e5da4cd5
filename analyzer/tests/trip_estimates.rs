//! Trip counts of loops with unknown bounds, bounded by the declared extents of the arrays
//! the loop variable indexes (test_data/trip_estimates.f).

use analyzer::report::analyze;
use std::path::PathBuf;

#[test]
fn unknown_trip_counts_are_bounded_by_the_extents_the_loop_indexes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test_data/trip_estimates.f");
    let a = analyze(&[path], &Default::default());
    let p = &a.program;
    let unit = |name: &str| p.units.iter().position(|u| u.name == name).unwrap();
    let main = &a.loops[unit("trips")];
    let by_var = |v: &str| main.iter().find(|l| l.var == v).unwrap();
    // K indexes the third dimension (0:5), I the first (0:11)
    assert_eq!((by_var("k").trip_count, by_var("k").trip_estimate), (None, Some(6)));
    assert_eq!((by_var("i").trip_count, by_var("i").trip_estimate), (None, Some(12)));
    // compressed rows: 60 elements of V over the 10 rows IA(1..11) describes
    assert_eq!((by_var("kk").trip_count, by_var("kk").trip_estimate), (None, Some(6)));
    // B(1) in FILL bounds nothing
    let fill = &a.loops[unit("fill")];
    assert_eq!((fill[0].trip_count, fill[0].trip_estimate), (None, None));
    // X(0:LD-1, ...) in SCALE: the call binds it to U, 12 elements along I
    let scale = &a.loops[unit("scale")];
    assert_eq!((scale[0].trip_count, scale[0].trip_estimate), (None, Some(12)));
}

/// Loops whose bounds come from recurrences over a procedure's arguments: executed with the
/// values each call gives (`concrete::trip_estimates`), STAGES (L = 4, N = 16) runs its loop
/// over passes 4 times; its loop over I LI = 8, 4, 2, 1 times (4 on average, 15/4 rounded),
/// and the loop over K inside, run 15 times, LK = 1, 2, 4, 8 times in the passes: 32
/// iterations, about 2 an execution, so that 4 x 4 x 2 is the 32 the passes run. HALF
/// (L = 3): 3 passes, LI = 4, 2, 1 (7/3: 2).
#[test]
fn loops_over_recurrences_count_the_iterations_the_calls_values_give() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shell-gui/tests/data/scratch_values.f");
    let a = analyze(&[path], &Default::default());
    let p = &a.program;
    let unit = |name: &str| p.units.iter().position(|u| u.name == name).unwrap();
    let at = |u: &str, line: u32| {
        let l = a.loops[unit(u)].iter().find(|l| l.line == line).unwrap();
        (l.trip_count, l.trip_estimate)
    };
    assert_eq!(at("stages", 72), (None, Some(4)));
    assert_eq!(at("stages", 76), (None, Some(4)));
    assert_eq!(at("stages", 77), (None, Some(2)));
    assert_eq!(at("half", 94), (None, Some(3)));
    assert_eq!(at("half", 98), (None, Some(2)));
}

/// Counted iterations come before the bound the arrays give, and a loop inside another counts
/// per iteration of that loop (tests/data/trip_counted.f).
#[test]
fn counted_iterations_multiply_along_the_nest_to_what_it_runs() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/trip_counted.f");
    let a = analyze(&[path], &Default::default());
    let p = &a.program;
    let u = p.units.iter().position(|u| u.name == "passes").unwrap();
    let at = |line: u32| {
        let l = a.loops[u].iter().find(|l| l.line == line).unwrap();
        (l.trip_count, l.trip_estimate, l.trip_counted)
    };
    // 6 passes; I: 63 iterations over them (10.5, rounded up); K: 192 over the 63 of I
    // (3.05), not the 64 columns of X it indexes
    assert_eq!(at(28), (None, Some(6), true));
    assert_eq!(at(32), (None, Some(11), true));
    assert_eq!(at(35), (None, Some(3), true));
    let nest: u64 = [28, 32, 35].iter().map(|&l| at(l).1.unwrap()).product();
    assert!((180..=210).contains(&nest), "{nest} iterations for the 192 the nest runs");
    // the copies: 64 iterations in one pass of six (10.7 a pass), 64 in five of six (53.3)
    assert_eq!(at(41), (None, Some(11), true));
    assert_eq!(at(46), (None, Some(53), true));
}
