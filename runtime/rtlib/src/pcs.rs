//! PCS: piecewise-rectangular element sets of a multi-dimensional index space.
//!
//! A set is a union of boxes (inclusive `i64` bounds per dimension). Every set is kept in a
//! canonical form, so `==` is set equality: the boxes are disjoint and form the coarsest
//! slab decomposition along dimension 0, then (inside each slab) along dimension 1, and so
//! on, with slabs whose cross-sections are equal merged. Two sets with the same elements
//! therefore have exactly the same list of boxes.
//!
//! Rank 0 (scalars) is allowed: the set is either empty or the one element.

/// One box: `(lo, hi)` inclusive per dimension. A box with `lo > hi` in any dimension is empty.
pub type Rect = Vec<(i64, i64)>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pcs {
    rank: usize,
    boxes: Vec<Rect>,
}

fn rect_empty(r: &[(i64, i64)]) -> bool {
    r.iter().any(|&(l, h)| l > h)
}

/// Number of elements of a box (0 when empty); saturates at `u64::MAX`.
pub fn rect_count(r: &[(i64, i64)]) -> u64 {
    let mut n: u64 = 1;
    for &(l, h) in r {
        if l > h {
            return 0;
        }
        n = n.saturating_mul((h as i128 - l as i128 + 1).min(u64::MAX as i128) as u64);
    }
    n
}

fn rect_intersect(a: &[(i64, i64)], b: &[(i64, i64)]) -> Option<Rect> {
    let r: Rect = a
        .iter()
        .zip(b)
        .map(|(&(l1, h1), &(l2, h2))| (l1.max(l2), h1.min(h2)))
        .collect();
    if rect_empty(&r) {
        None
    } else {
        Some(r)
    }
}

/// `a \ b` as disjoint boxes (at most 2 per dimension).
fn rect_minus(a: &[(i64, i64)], b: &[(i64, i64)], out: &mut Vec<Rect>) {
    let Some(_) = rect_intersect(a, b) else {
        out.push(a.to_vec());
        return;
    };
    let mut rest: Rect = a.to_vec();
    for d in 0..a.len() {
        let (l, h) = rest[d];
        let (bl, bh) = b[d];
        if l < bl {
            let mut p = rest.clone();
            p[d] = (l, bl - 1);
            out.push(p);
        }
        if h > bh {
            let mut p = rest.clone();
            p[d] = (bh + 1, h);
            out.push(p);
        }
        rest[d] = (l.max(bl), h.min(bh));
    }
}

/// Canonical decomposition of the union of `boxes` over dimensions `d..rank`; the result
/// boxes have `rank - d` dimensions.
fn canon(boxes: &[&[(i64, i64)]], d: usize, rank: usize) -> Vec<Rect> {
    if boxes.is_empty() {
        return vec![];
    }
    if d == rank {
        return vec![vec![]];
    }
    let mut pts: Vec<i128> = Vec::with_capacity(boxes.len() * 2);
    for b in boxes {
        pts.push(b[d].0 as i128);
        pts.push(b[d].1 as i128 + 1);
    }
    pts.sort_unstable();
    pts.dedup();
    // (lo, hi, cross-section)
    let mut slabs: Vec<(i64, i64, Vec<Rect>)> = vec![];
    // a sweep along dimension d: the boxes that start at or before a slab and have not ended
    // cover all of it (every start and end is a slab boundary); a filter over every box for
    // every slab made many boxes quadratic (NPB UA's sections on the emulator)
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_unstable_by_key(|&i| boxes[i][d].0);
    let (mut next, mut active) = (0, Vec::<usize>::new());
    for w in pts.windows(2) {
        let p = w[0];
        while next < order.len() && (boxes[order[next]][d].0 as i128) <= p {
            active.push(order[next]);
            next += 1;
        }
        active.retain(|&i| (boxes[i][d].1 as i128) >= p);
        let cover: Vec<&[(i64, i64)]> = active.iter().map(|&i| &boxes[i][d + 1..]).collect();
        let cs = canon(&cover, 0, rank - d - 1);
        if cs.is_empty() {
            continue;
        }
        let (lo, hi) = (p as i64, (w[1] - 1) as i64);
        if let Some(last) = slabs.last_mut() {
            if last.1 as i128 + 1 == p && last.2 == cs {
                last.1 = hi;
                continue;
            }
        }
        slabs.push((lo, hi, cs));
    }
    let mut out = vec![];
    for (lo, hi, cs) in slabs {
        for r in cs {
            let mut b = Vec::with_capacity(rank - d);
            b.push((lo, hi));
            b.extend(r);
            out.push(b);
        }
    }
    out
}

impl Pcs {
    pub fn empty(rank: usize) -> Pcs {
        Pcs {
            rank,
            boxes: vec![],
        }
    }
    /// The set of one box (empty if the box is empty).
    pub fn from_rect(r: &[(i64, i64)]) -> Pcs {
        if rect_empty(r) {
            Pcs::empty(r.len())
        } else {
            Pcs {
                rank: r.len(),
                boxes: vec![r.to_vec()],
            }
        }
    }
    /// The union of any boxes (overlapping allowed).
    pub fn from_rects(rank: usize, rs: &[Rect]) -> Pcs {
        let v: Vec<&[(i64, i64)]> = rs
            .iter()
            .filter(|r| {
                assert_eq!(r.len(), rank, "box rank");
                !rect_empty(r)
            })
            .map(|r| r.as_slice())
            .collect();
        if let [one] = v[..] {
            // one box is its own canonical decomposition
            return Pcs { rank, boxes: vec![one.to_vec()] };
        }
        Pcs {
            rank,
            boxes: canon(&v, 0, rank),
        }
    }
    /// The element set of a scalar (rank 0): one element.
    pub fn scalar() -> Pcs {
        Pcs {
            rank: 0,
            boxes: vec![vec![]],
        }
    }
    pub fn rank(&self) -> usize {
        self.rank
    }
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }
    /// The disjoint boxes of the canonical form.
    pub fn boxes(&self) -> &[Rect] {
        &self.boxes
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Rect> {
        self.boxes.iter()
    }
    /// Number of elements.
    pub fn count(&self) -> u64 {
        self.boxes
            .iter()
            .map(|b| rect_count(b))
            .fold(0u64, |a, b| a.saturating_add(b))
    }
    /// Smallest box containing the set (None when empty).
    pub fn hull(&self) -> Option<Rect> {
        let mut it = self.boxes.iter();
        let mut h = it.next()?.clone();
        for b in it {
            for (x, y) in h.iter_mut().zip(b) {
                x.0 = x.0.min(y.0);
                x.1 = x.1.max(y.1);
            }
        }
        Some(h)
    }
    fn check(&self, o: &Pcs) {
        assert_eq!(self.rank, o.rank, "PCS operation on sets of different rank");
    }
    /// Every box of `o` lies inside one box of `self`: a sufficient test for `o ⊆ self` that
    /// allocates nothing (the tracker's common case, a small write inside a whole array).
    fn holds_boxes_of(&self, o: &Pcs) -> bool {
        o.boxes.iter().all(|b| {
            self.boxes
                .iter()
                .any(|a| a.iter().zip(b).all(|(&(l1, h1), &(l2, h2))| l1 <= l2 && h2 <= h1))
        })
    }
    /// Whether some box of `self` meets some box of `o`.
    pub fn meets(&self, o: &Pcs) -> bool {
        self.boxes
            .iter()
            .any(|a| o.boxes.iter().any(|b| a.iter().zip(b).all(|(&(l1, h1), &(l2, h2))| l1.max(l2) <= h1.min(h2))))
    }
    pub fn union(&self, o: &Pcs) -> Pcs {
        self.check(o);
        if o.is_empty() || self.holds_boxes_of(o) {
            return self.clone();
        }
        if self.is_empty() || o.holds_boxes_of(self) {
            return o.clone();
        }
        let v: Vec<&[(i64, i64)]> = self
            .boxes
            .iter()
            .chain(&o.boxes)
            .map(|r| r.as_slice())
            .collect();
        Pcs {
            rank: self.rank,
            boxes: canon(&v, 0, self.rank),
        }
    }
    pub fn intersect(&self, o: &Pcs) -> Pcs {
        self.check(o);
        if o.holds_boxes_of(self) {
            return self.clone();
        }
        if self.holds_boxes_of(o) {
            return o.clone();
        }
        let mut v = vec![];
        for a in &self.boxes {
            for b in &o.boxes {
                if let Some(r) = rect_intersect(a, b) {
                    v.push(r);
                }
            }
        }
        Pcs::from_rects(self.rank, &v)
    }
    /// `self \ o`.
    pub fn minus(&self, o: &Pcs) -> Pcs {
        self.check(o);
        if o.is_empty() || self.is_empty() || !self.meets(o) {
            return self.clone();
        }
        if o.holds_boxes_of(self) {
            return Pcs::empty(self.rank);
        }
        let mut cur: Vec<Rect> = self.boxes.clone();
        for b in &o.boxes {
            let mut next = vec![];
            for a in &cur {
                rect_minus(a, b, &mut next);
            }
            cur = next;
            if cur.is_empty() {
                break;
            }
        }
        Pcs::from_rects(self.rank, &cur)
    }
    pub fn is_subset(&self, o: &Pcs) -> bool {
        self.minus(o).is_empty()
    }
    pub fn contains(&self, idx: &[i64]) -> bool {
        self.boxes
            .iter()
            .any(|b| b.iter().zip(idx).all(|(&(l, h), &i)| l <= i && i <= h))
    }
    /// Every element (column-major order inside each box). For tests and small sets.
    pub fn elements(&self) -> Vec<Vec<i64>> {
        let mut out = vec![];
        for b in &self.boxes {
            let mut idx: Vec<i64> = b.iter().map(|x| x.0).collect();
            loop {
                out.push(idx.clone());
                let mut d = 0;
                loop {
                    if d == b.len() {
                        break;
                    }
                    if idx[d] < b[d].1 {
                        idx[d] += 1;
                        break;
                    }
                    idx[d] = b[d].0;
                    d += 1;
                }
                if d == b.len() {
                    break;
                }
            }
        }
        out
    }
}

impl std::fmt::Display for Pcs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.boxes.is_empty() {
            return write!(f, "{{}}");
        }
        let parts: Vec<String> = self
            .boxes
            .iter()
            .map(|b| {
                let d: Vec<String> = b
                    .iter()
                    .map(|(l, h)| {
                        if l == h {
                            format!("{l}")
                        } else {
                            format!("{l}:{h}")
                        }
                    })
                    .collect();
                format!("({})", d.join(","))
            })
            .collect();
        write!(f, "{}", parts.join(" U "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_equality() {
        // the same L-shape built two ways
        let a = Pcs::from_rects(2, &[vec![(1, 4), (1, 2)], vec![(1, 2), (3, 4)]]);
        let b = Pcs::from_rects(2, &[vec![(1, 2), (1, 4)], vec![(3, 4), (1, 2)]]);
        assert_eq!(a, b);
        assert_eq!(a.count(), 12);
        // adjacent boxes merge
        let c = Pcs::from_rects(2, &[vec![(1, 2), (1, 5)], vec![(3, 7), (1, 5)]]);
        assert_eq!(c.boxes(), &[vec![(1, 7), (1, 5)]]);
    }

    #[test]
    fn border_and_interior() {
        let all = Pcs::from_rect(&[(1, 10), (1, 10)]);
        let interior = Pcs::from_rect(&[(2, 9), (2, 9)]);
        let border = all.minus(&interior);
        assert_eq!(border.count(), 36);
        assert!(border.intersect(&interior).is_empty());
        assert_eq!(border.union(&interior), all);
        assert!(interior.is_subset(&all));
        assert!(!all.is_subset(&interior));
        assert!(border.contains(&[1, 5]) && !border.contains(&[5, 5]));
    }

    #[test]
    fn scalars() {
        let s = Pcs::scalar();
        assert_eq!(s.count(), 1);
        assert!(s.minus(&s).is_empty());
        assert_eq!(Pcs::empty(0).union(&s), s);
        assert_eq!(s.elements(), vec![Vec::<i64>::new()]);
    }

    /// Union, intersection and difference against plain element sets, on random boxes that
    /// often contain each other (the shortcuts' cases) and often overlap partly.
    #[test]
    fn operations_match_element_sets() {
        use std::collections::BTreeSet;
        let mut seed = 12345u64;
        let mut rnd = |n: i64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n as u64) as i64
        };
        let elems = |p: &Pcs| -> BTreeSet<Vec<i64>> { p.elements().into_iter().collect() };
        for _ in 0..400 {
            let mut sets = vec![];
            for _ in 0..2 {
                let k = 1 + rnd(3);
                let boxes: Vec<Rect> = (0..k)
                    .map(|_| {
                        (0..2)
                            .map(|_| {
                                let lo = 1 + rnd(6);
                                (lo, lo + rnd(6 - lo + 1))
                            })
                            .collect()
                    })
                    .collect();
                sets.push(Pcs::from_rects(2, &boxes));
            }
            let (a, b) = (&sets[0], &sets[1]);
            let (ea, eb) = (elems(a), elems(b));
            let canon_of = |e: &BTreeSet<Vec<i64>>| {
                Pcs::from_rects(2, &e.iter().map(|x| x.iter().map(|&v| (v, v)).collect()).collect::<Vec<Rect>>())
            };
            assert_eq!(a.union(b), canon_of(&ea.union(&eb).cloned().collect()), "{a:?} + {b:?}");
            assert_eq!(a.intersect(b), canon_of(&ea.intersection(&eb).cloned().collect()), "{a:?} * {b:?}");
            assert_eq!(a.minus(b), canon_of(&ea.difference(&eb).cloned().collect()), "{a:?} - {b:?}");
            assert_eq!(a.meets(b), !ea.is_disjoint(&eb));
        }
    }
}
