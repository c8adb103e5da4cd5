//! Property tests of the PCS set algebra against a brute-force model (a set of index tuples).
use proptest::prelude::*;
use sapfor_rt::pcs::{Pcs, Rect};
use std::collections::BTreeSet;

const LO: i64 = -3;
const HI: i64 = 6;

fn model(rank: usize, rs: &[Rect]) -> BTreeSet<Vec<i64>> {
    let mut s = BTreeSet::new();
    for r in rs {
        for e in Pcs::from_rect(r).elements() {
            s.insert(e);
        }
    }
    let _ = rank;
    s
}

fn to_set(p: &Pcs) -> BTreeSet<Vec<i64>> {
    let el = p.elements();
    let s: BTreeSet<Vec<i64>> = el.iter().cloned().collect();
    assert_eq!(s.len(), el.len(), "boxes of a canonical set overlap: {p}");
    s
}

fn rect(rank: usize) -> impl Strategy<Value = Rect> {
    proptest::collection::vec((LO..=HI, LO..=HI), rank).prop_map(|v| {
        v.into_iter()
            .map(|(a, b)| if a <= b { (a, b) } else { (b, a) })
            .collect()
    })
}

fn rects(rank: usize) -> impl Strategy<Value = Vec<Rect>> {
    proptest::collection::vec(rect(rank), 0..5)
}

fn case() -> impl Strategy<Value = (usize, Vec<Rect>, Vec<Rect>)> {
    (1usize..=3).prop_flat_map(|r| (Just(r), rects(r), rects(r)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn algebra_matches_model((rank, a, b) in case()) {
        let (pa, pb) = (Pcs::from_rects(rank, &a), Pcs::from_rects(rank, &b));
        let (ma, mb) = (model(rank, &a), model(rank, &b));
        prop_assert_eq!(to_set(&pa), ma.clone());
        prop_assert_eq!(pa.count() as usize, ma.len());
        let u = pa.union(&pb);
        prop_assert_eq!(to_set(&u), ma.union(&mb).cloned().collect::<BTreeSet<_>>());
        let i = pa.intersect(&pb);
        prop_assert_eq!(to_set(&i), ma.intersection(&mb).cloned().collect::<BTreeSet<_>>());
        let d = pa.minus(&pb);
        prop_assert_eq!(to_set(&d), ma.difference(&mb).cloned().collect::<BTreeSet<_>>());
        prop_assert_eq!(pa.is_subset(&pb), ma.is_subset(&mb));
        prop_assert_eq!(u.count() as usize, ma.union(&mb).count());
        // canonical: equal sets have equal representations, however they were built
        let rebuilt = Pcs::from_rects(rank, &d.boxes().iter().rev().cloned().collect::<Vec<_>>()).union(&i);
        prop_assert_eq!(rebuilt, pa.clone());
        prop_assert_eq!(pb.union(&pa), u);
        for e in ma.iter() {
            prop_assert!(pa.contains(e));
        }
    }
}
