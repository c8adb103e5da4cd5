//! Rectangular array sections with symbolic (affine) bounds, for the question "is every
//! element this iteration reads written earlier in the same iteration?" (work-array
//! privatization) when loop bounds are not constants: `do i = 1, n1` writes `T(1:N1)`, and
//! `do i = 2, n1-1` reads `T(I-1)`, `T(I+1)`, that is `T(1:N1-2)` and `T(3:N1)`, both inside.
//!
//! A [`SymRect`] is a product of closed intervals `[lo, hi]` whose bounds are affine forms
//! over scalars that keep their value while the rectangle is known (the caller drops the
//! rectangles that mention a scalar when it is assigned). An interval may be empty (`hi < lo`
//! for some values of the symbols): every operation here stays exact or errs on the side of
//! "not covered" in that case.

use crate::affine::Lin;

/// One dimension: the closed interval `[lo, hi]`.
pub type Interval = (Lin, Lin);

/// A rectangular section: one interval per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymRect(pub Vec<Interval>);

/// `b - a` when it is a constant.
fn diff(a: &Lin, b: &Lin) -> Option<i64> {
    b.add(a, -1)?.as_const()
}

/// `a <= b` for every value of the symbols (known only when the difference is constant).
fn le(a: &Lin, b: &Lin) -> bool {
    diff(a, b).is_some_and(|d| d >= 0)
}

/// `[lo1, hi1]` lies inside `[lo2, hi2]` for every value of the symbols.
fn within((lo1, hi1): &Interval, (lo2, hi2): &Interval) -> bool {
    le(lo2, lo1) && le(hi1, hi2)
}

/// An interval inside the union of two, as large as can be shown: when they overlap or touch
/// (`lo1 <= lo2 <= hi1 + 1`), `[lo1, max(hi1, hi2)]`; where the larger upper bound is not
/// known, `[lo1, hi2]`, which is inside the union for every value of the symbols (an element
/// above `hi1` is at least `lo2`), so `T(1:5) + T(6:N)` is `T(1:N)`.
fn join(a: &Interval, b: &Interval) -> Option<Interval> {
    // (`lo1 <= lo2` only makes the result as large as can be: whenever `lo2 <= hi1 + 1`, an
    // element of `[lo1, hi2]` above `hi1` is at least `lo2`; `T(0:N-1) + T(N:N)` is `T(0:N)`)
    let ordered = |(lo1, hi1): &Interval, (lo2, hi2): &Interval, largest: bool| -> Option<Interval> {
        let next = hi1.add(&Lin::constant(1), 1)?;
        if !(le(lo2, &next) && (!largest || le(lo1, lo2))) {
            return None;
        }
        let hi = if le(hi2, hi1) { hi1 } else { hi2 };
        Some((lo1.clone(), hi.clone()))
    };
    if within(a, b) {
        return Some(b.clone());
    }
    if within(b, a) {
        return Some(a.clone());
    }
    ordered(a, b, true)
        .or_else(|| ordered(b, a, true))
        .or_else(|| ordered(a, b, false))
        .or_else(|| ordered(b, a, false))
}

impl SymRect {
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// `self` lies inside `other` for every value of the symbols.
    pub fn within(&self, other: &SymRect) -> bool {
        self.rank() == other.rank() && self.0.iter().zip(&other.0).all(|(a, b)| within(a, b))
    }

    /// Whether a bound mentions the scalar `v`.
    pub fn mentions(&self, v: &str) -> bool {
        self.0.iter().any(|(lo, hi)| lo.coeff(v) != 0 || hi.coeff(v) != 0)
    }

    /// The union of two rectangles when it is a rectangle: equal in every dimension but one,
    /// where the intervals join.
    fn join(&self, other: &SymRect) -> Option<SymRect> {
        if self.rank() != other.rank() {
            return None;
        }
        let differing: Vec<usize> = (0..self.rank()).filter(|&d| self.0[d] != other.0[d]).collect();
        match differing[..] {
            [] => Some(self.clone()),
            [d] => {
                let j = join(&self.0[d], &other.0[d])?;
                let mut r = self.clone();
                r.0[d] = j;
                Some(r)
            }
            _ => None,
        }
    }

    /// Every element of `self` over all values of the loop variable `v` in `[lo, hi]`
    /// (step 1), as a rectangle that may be larger (for reads: an over-approximation).
    pub fn widen_over(&self, v: &str, lo: &Lin, hi: &Lin) -> Option<SymRect> {
        let mut out = Vec::with_capacity(self.rank());
        for (a, b) in &self.0 {
            let at = |x: &Lin, low: bool| -> Option<Lin> {
                let c = x.coeff(v);
                let end = if (c > 0) == low { lo } else { hi };
                x.substitute(v, end)
            };
            out.push((at(a, true)?, at(b, false)?));
        }
        Some(SymRect(out))
    }

    /// Exactly the elements of `self` over all values of `v` in `[lo, hi]` (step 1), where
    /// that union is a rectangle: `v` appears in one dimension only, as a point `[v+c, v+c]`
    /// or `[c-v, c-v]`, or as an upper bound `[a, v+c]` with `a` free of `v` when the loop
    /// surely runs (`runs`). None otherwise (for writes: nothing is surely written).
    pub fn widen_exact(&self, v: &str, lo: &Lin, hi: &Lin, runs: bool) -> Option<SymRect> {
        let dims: Vec<usize> = (0..self.rank())
            .filter(|&d| self.0[d].0.coeff(v) != 0 || self.0[d].1.coeff(v) != 0)
            .collect();
        let [d] = dims[..] else {
            return if dims.is_empty() && runs { Some(self.clone()) } else { None };
        };
        let (a, b) = &self.0[d];
        let (ca, cb) = (a.coeff(v), b.coeff(v));
        let ok = (a == b && ca.abs() == 1) || (ca == 0 && cb == 1 && runs);
        if !ok {
            return None;
        }
        self.widen_over(v, lo, hi)
    }
}

/// A union of rectangles, each surely written: merged whenever two form one rectangle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RectSet(pub Vec<SymRect>);

impl RectSet {
    pub fn add(&mut self, r: SymRect) {
        // every rectangle joined from two pieces is added too, the pieces staying when it is
        // smaller than one of them for some values of the symbols (`T(0:0) + T(1:N-1)` is
        // `T(0:N-1)`, empty when N < 1), and it may join a third in turn (`T(0:N-1) + T(N:N)`:
        // SP's LHSINIT writes the two edge planes, the loop after it those between)
        let mut todo = vec![r];
        let mut steps = 0;
        while let Some(r) = todo.pop() {
            steps += 1;
            if steps > 256 || self.0.iter().any(|o| r.within(o)) {
                continue;
            }
            self.0.retain(|o| !o.within(&r));
            for o in &self.0 {
                if let Some(j) = o.join(&r).filter(|j| !j.within(o) && !j.within(&r)) {
                    todo.push(j);
                }
            }
            self.0.push(r);
        }
    }

    /// `r` lies inside one of the rectangles.
    pub fn covers(&self, r: &SymRect) -> bool {
        self.0.iter().any(|o| r.within(o))
    }

    /// `r` (elements a legal program reads) lies inside one of the rectangles, where a
    /// rectangle's bound that reaches the array's declared bound (`decl`, per dimension when
    /// constant) covers every index on that side: a read outside the declared bounds would be
    /// an error of the program. `UE(0:GP-1)` written covers the read `UE(GP-5)` in an array
    /// declared `UE(0:12)`, whatever GP is.
    pub fn covers_within(&self, r: &SymRect, decl: &[Option<(i64, i64)>]) -> bool {
        self.0.iter().any(|o| {
            o.rank() == r.rank()
                && o.0.iter().zip(&r.0).enumerate().all(|(d, ((olo, ohi), (rlo, rhi)))| {
                    let bound = decl.get(d).copied().flatten();
                    let lo_ok = le(olo, rlo) || bound.zip(olo.as_const()).is_some_and(|((dlo, _), c)| c <= dlo);
                    let hi_ok = le(rhi, ohi) || bound.zip(ohi.as_const()).is_some_and(|((_, dhi), c)| c >= dhi);
                    lo_ok && hi_ok
                })
        })
    }

    /// What must hold for `r` to lie inside one of the rectangles, where `covers_within`
    /// cannot show it for every value of the symbols: forms `d` meaning `d >= 0`, each
    /// accepted by `ok` (the caller's test that `d` can be checked when the loop starts).
    /// The rectangle needing the fewest forms not in `have` (what was taken already), none
    /// contradicting `have` or each other (`d >= 0` and `e >= 0` where `d + e` is a negative
    /// constant); None when every one needs a form `ok` refuses, or a contradiction.
    /// `UE(3:3)` inside `UE(0:GP-1)` holds when `GP - 4 >= 0`.
    pub fn assumptions_to_cover(&self, r: &SymRect, decl: &[Option<(i64, i64)>], ok: &dyn Fn(&Lin) -> bool, have: &[Lin]) -> Option<Vec<Lin>> {
        let mut best: Option<Vec<Lin>> = None;
        for o in self.0.iter().filter(|o| o.rank() == r.rank()) {
            let mut need = vec![];
            let mut fits = true;
            for (d, ((olo, ohi), (rlo, rhi))) in o.0.iter().zip(&r.0).enumerate() {
                let bound = decl.get(d).copied().flatten();
                let lo_ok = le(olo, rlo) || bound.zip(olo.as_const()).is_some_and(|((dlo, _), c)| c <= dlo);
                let hi_ok = le(rhi, ohi) || bound.zip(ohi.as_const()).is_some_and(|((_, dhi), c)| c >= dhi);
                for (shown, lo, hi) in [(lo_ok, olo, rlo), (hi_ok, rhi, ohi)] {
                    if shown {
                        continue;
                    }
                    // (a constant difference that is negative never holds)
                    match hi.add(lo, -1).filter(|f| f.as_const().is_none() && ok(f)) {
                        Some(f) => need.push(f),
                        None => fits = false,
                    }
                }
            }
            need.retain(|f| !have.contains(f));
            let all: Vec<&Lin> = have.iter().chain(&need).collect();
            let consistent = all.iter().enumerate().all(|(i, f)| all[i + 1..].iter().all(|g| !f.contradicts(g)));
            if fits && consistent && best.as_ref().is_none_or(|b| need.len() < b.len()) {
                best = Some(need);
            }
        }
        best
    }

    pub fn kill(&mut self, v: &str) {
        self.0.retain(|r| !r.mentions(v));
    }

    /// What both sets surely contain: the rectangles of each that lie inside the other.
    pub fn intersect(&self, other: &RectSet) -> RectSet {
        let mut out = RectSet::default();
        for r in self.0.iter().filter(|r| other.covers(r)) {
            out.add(r.clone());
        }
        for r in other.0.iter().filter(|r| self.covers(r)) {
            out.add(r.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(c: i64, terms: &[(&str, i64)]) -> Lin {
        let mut l = Lin::constant(c);
        for (v, k) in terms {
            l.terms.insert(v.to_string(), *k);
        }
        l
    }
    fn pt(l: Lin) -> Interval {
        (l.clone(), l)
    }

    #[test]
    fn a_loop_over_one_to_n_writes_what_a_shifted_loop_reads() {
        // do i = 1, n: t(i) = ...   -> T(1:N)
        let w = SymRect(vec![pt(lin(0, &[("i", 1)]))]);
        let w = w.widen_exact("i", &lin(1, &[]), &lin(0, &[("n", 1)]), false).unwrap();
        assert_eq!(w.0[0], (lin(1, &[]), lin(0, &[("n", 1)])));
        // do i = 2, n-1: ... t(i-1) ... t(i+1)
        let (lo, hi) = (lin(2, &[]), lin(-1, &[("n", 1)]));
        let r1 = SymRect(vec![pt(lin(-1, &[("i", 1)]))]).widen_over("i", &lo, &hi).unwrap();
        let r2 = SymRect(vec![pt(lin(1, &[("i", 1)]))]).widen_over("i", &lo, &hi).unwrap();
        assert!(r1.within(&w) && r2.within(&w));
        // t(i+2) reaches N+1: not inside
        let r3 = SymRect(vec![pt(lin(2, &[("i", 1)]))]).widen_over("i", &lo, &hi).unwrap();
        assert!(!r3.within(&w));
        // a read in terms of another symbol is never inside
        let r4 = SymRect(vec![pt(lin(0, &[("m", 1)]))]);
        assert!(!r4.within(&w));
    }

    #[test]
    fn touching_pieces_join_whatever_the_symbols() {
        // W(0:0) and W(N:N) from a call, then W(1:N-1) from the loop: W(0:N) is written
        let n = |c: i64| lin(c, &[("n", 1)]);
        let mut set = RectSet::default();
        set.add(SymRect(vec![pt(lin(0, &[]))]));
        set.add(SymRect(vec![pt(n(0))]));
        set.add(SymRect(vec![(lin(1, &[]), n(-1))]));
        assert!(set.covers(&SymRect(vec![(lin(0, &[]), n(0))])), "{set:?}");
        assert!(set.covers(&SymRect(vec![(lin(1, &[]), n(0))])), "{set:?}");
        // a gap stays a gap: W(0:0) and W(2:N) do not cover W(1)
        let mut gap = RectSet::default();
        gap.add(SymRect(vec![pt(lin(0, &[]))]));
        gap.add(SymRect(vec![(lin(2, &[]), n(0))]));
        assert!(!gap.covers(&SymRect(vec![pt(lin(1, &[]))])), "{gap:?}");
        // nor do pieces in other symbols: W(0:N-1) and W(M:M)
        let mut other = RectSet::default();
        other.add(SymRect(vec![(lin(0, &[]), n(-1))]));
        other.add(SymRect(vec![pt(lin(0, &[("m", 1)]))]));
        assert!(!other.covers(&SymRect(vec![(lin(0, &[]), n(0))])), "{other:?}");
    }

    #[test]
    fn what_must_hold_for_a_read_to_be_covered() {
        // UE(0:GP-1) written; UE(3) read: covered when GP - 4 >= 0
        let mut set = RectSet::default();
        set.add(SymRect(vec![(lin(0, &[]), lin(-1, &[("gp", 1)]))]));
        let any = |_: &Lin| true;
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![pt(lin(3, &[]))]), &[], &any, &[]), Some(vec![lin(-4, &[("gp", 1)])]));
        // what is shown needs nothing; UE(0) needs the part written not to be empty
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![(lin(1, &[]), lin(-2, &[("gp", 1)]))]), &[], &any, &[]), Some(vec![]));
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![pt(lin(0, &[]))]), &[], &any, &[]), Some(vec![lin(-1, &[("gp", 1)])]));
        // below the written part for every GP: never
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![pt(lin(-1, &[]))]), &[], &any, &[]), None);
        // a form the caller cannot check (the loop variable) is refused
        let no_i = |f: &Lin| f.coeff("i") == 0;
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![pt(lin(1, &[("i", 1)]))]), &[], &no_i, &[]), None);
        // nor what contradicts what was taken: GP <= 2 after GP >= 4
        let taken = [lin(-4, &[("gp", 1)])];
        let mut point = RectSet::default();
        point.add(SymRect(vec![pt(lin(1, &[]))]));
        assert_eq!(point.assumptions_to_cover(&SymRect(vec![pt(lin(-1, &[("gp", 1)]))]), &[], &any, &taken), None);
        // what was taken costs nothing
        assert_eq!(set.assumptions_to_cover(&SymRect(vec![pt(lin(3, &[]))]), &[], &any, &taken), Some(vec![]));
    }

    #[test]
    fn the_current_iterations_point_does_not_cover_its_neighbour() {
        let w = SymRect(vec![pt(lin(0, &[("i", 1)]))]);
        assert!(SymRect(vec![pt(lin(0, &[("i", 1)]))]).within(&w));
        assert!(!SymRect(vec![pt(lin(1, &[("i", 1)]))]).within(&w));
        assert!(!SymRect(vec![pt(lin(0, &[("i", -1)]))]).within(&w));
    }

    #[test]
    fn element_wise_writes_merge_into_a_block() {
        // fjac(1..2, 1..2, i) written element by element
        let mut s = RectSet::default();
        for a in 1..=2 {
            for b in 1..=2 {
                s.add(SymRect(vec![pt(lin(a, &[])), pt(lin(b, &[])), pt(lin(0, &[("i", 1)]))]));
            }
        }
        assert_eq!(s.0.len(), 1, "{s:?}");
        let block = SymRect(vec![(lin(1, &[]), lin(2, &[])), (lin(1, &[]), lin(2, &[])), pt(lin(0, &[("i", 1)]))]);
        assert!(s.covers(&block));
        // two halves of one range with symbolic bounds: T(1:5) + T(6:N) = T(1:N)
        let mut h = RectSet::default();
        h.add(SymRect(vec![(lin(1, &[]), lin(5, &[]))]));
        h.add(SymRect(vec![(lin(6, &[]), lin(0, &[("n", 1)]))]));
        assert!(h.covers(&SymRect(vec![(lin(1, &[]), lin(0, &[("n", 1)]))])));
        // a gap is not closed: T(1:5) + T(7:N)
        let mut g = RectSet::default();
        g.add(SymRect(vec![(lin(1, &[]), lin(5, &[]))]));
        g.add(SymRect(vec![(lin(7, &[]), lin(0, &[("n", 1)]))]));
        assert!(!g.covers(&SymRect(vec![(lin(1, &[]), lin(0, &[("n", 1)]))])));
    }

    #[test]
    fn exact_widening_refuses_what_is_not_a_rectangle() {
        let (lo, hi) = (lin(1, &[]), lin(0, &[("n", 1)]));
        // the diagonal t(i, i)
        let diag = SymRect(vec![pt(lin(0, &[("i", 1)])), pt(lin(0, &[("i", 1)]))]);
        assert!(diag.widen_exact("i", &lo, &hi, true).is_none());
        // t(2*i)
        assert!(SymRect(vec![pt(lin(0, &[("i", 2)]))]).widen_exact("i", &lo, &hi, true).is_none());
        // t(1:i) only when the loop surely runs
        let pre = SymRect(vec![(lin(1, &[]), lin(0, &[("i", 1)]))]);
        assert!(pre.widen_exact("i", &lo, &hi, false).is_none());
        assert_eq!(pre.widen_exact("i", &lo, &hi, true).unwrap().0[0].1, lin(0, &[("n", 1)]));
        // t(5), written in a loop that may not run
        let five = SymRect(vec![pt(lin(5, &[]))]);
        assert!(five.widen_exact("i", &lo, &hi, false).is_none());
        assert!(five.widen_exact("i", &lo, &hi, true).is_some());
        // t(n+1-i) over i in 1..n is T(1:N)
        let rev = SymRect(vec![pt(lin(1, &[("n", 1), ("i", -1)]))]);
        let w = rev.widen_exact("i", &lo, &hi, false).unwrap();
        assert_eq!(w.0[0], (lin(1, &[]), lin(0, &[("n", 1)])));
    }

    #[test]
    fn intersection_keeps_what_both_arms_wrote() {
        let a = SymRect(vec![(lin(1, &[]), lin(0, &[("n", 1)]))]);
        let b = SymRect(vec![(lin(2, &[]), lin(-1, &[("n", 1)]))]);
        let c = SymRect(vec![pt(lin(0, &[("k", 1)]))]);
        let mut x = RectSet::default();
        x.add(a.clone());
        x.add(c.clone());
        let mut y = RectSet::default();
        y.add(b.clone());
        let i = x.intersect(&y);
        assert!(i.covers(&b) && !i.covers(&a) && !i.covers(&c));
    }
}
