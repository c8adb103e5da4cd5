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
