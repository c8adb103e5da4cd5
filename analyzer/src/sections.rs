//! Array sections: per-dimension lists of points/ranges and unions of rectangular sections, with exact union / intersection / difference.
//!
//! * [`DimSet`] is a set of integer indices along one dimension, stored as sorted, disjoint,
//!   non-adjacent closed ranges. The whole dimension (`*`) is the single range
//!   `(i64::MIN, i64::MAX)`.
//! * [`Section`] is a rectangular section: the product of one `DimSet` per dimension.
//! * [`SectionSet`] is a finite union of pairwise-disjoint non-empty sections of one rank,
//!   always kept in a *canonical* form, so that derived `==`/`Hash` are set equality / set
//!   hashing, and the order of parts and the printed form are deterministic.
//!
//! None of the types implement `Ord` (it would shadow the inherent `clamp` methods); parts are
//! ordered by [`Section::canonical_cmp`].
//!
//! # Canonical form
//!
//! The canonical decomposition of a rank-`r` set `S` (`r >= 1`) slices `S` along its *last*
//! dimension (the outermost one in Fortran's column-major order). For every index `j` the slice
//! `S_j = { (i_1..i_{r-1}) : (i_1..i_{r-1}, j) ∈ S }` is a rank `r-1` set. For each distinct
//! non-empty slice `C`, let `D_C = { j : S_j = C }` (a `DimSet`, possibly with several ranges);
//! the canonical parts of `S` are `p × D_C` for every canonical part `p` of `C`, sorted.
//! Rank 0 sets are either empty or the single scalar `()`.
//! This form is unique for a given element set and its parts are pairwise disjoint.
//!
//! For example the union of the Jacobi stencil reads `A(I-1,J)`, `A(I,J-1)`, `A(I+1,J)`,
//! `A(I,J+1)` for `I,J` in `2..=1999` is `A(1:2000,2:1999) + A(2:1999,1|2000)`.
//!
//! All operations are exact, never panic, and are safe at `i64::MIN` / `i64::MAX`.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

// ---------------------------------------------------------------------------------------------
// DimSet
// ---------------------------------------------------------------------------------------------

/// A set of integer indices along one dimension: sorted, disjoint, non-adjacent closed ranges.
/// The whole dimension (`*`) is the single range (i64::MIN, i64::MAX).
///
/// Serialized as the list of its ranges, e.g. `[[1,3],[7,7]]`; deserialization normalizes.
///
/// (`Ord` is deliberately not implemented: `Ord::clamp` would shadow [`DimSet::clamp`].)
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<(i64, i64)>", into = "Vec<(i64, i64)>")]
pub struct DimSet {
    ranges: Vec<(i64, i64)>,
}

impl From<Vec<(i64, i64)>> for DimSet {
    fn from(v: Vec<(i64, i64)>) -> Self {
        DimSet::from_ranges(v)
    }
}

impl From<DimSet> for Vec<(i64, i64)> {
    fn from(d: DimSet) -> Self {
        d.ranges
    }
}

/// Appends `(lo, hi)` (with `lo <= hi`, `lo >= last.lo`) to a normalized list, merging with the
/// last range when overlapping or adjacent.
fn push_range(out: &mut Vec<(i64, i64)>, (lo, hi): (i64, i64)) {
    if let Some(last) = out.last_mut() {
        if lo <= last.1.saturating_add(1) {
            if hi > last.1 {
                last.1 = hi;
            }
            return;
        }
    }
    out.push((lo, hi));
}

impl DimSet {
    /// The whole dimension `*`.
    pub fn all() -> Self {
        DimSet {
            ranges: vec![(i64::MIN, i64::MAX)],
        }
    }

    /// The empty set.
    pub fn empty() -> Self {
        DimSet { ranges: Vec::new() }
    }

    /// The single index `i`.
    pub fn point(i: i64) -> Self {
        DimSet {
            ranges: vec![(i, i)],
        }
    }

    /// The closed range `lo..=hi`; empty if `lo > hi`.
    pub fn range(lo: i64, hi: i64) -> Self {
        if lo > hi {
            DimSet::empty()
        } else {
            DimSet {
                ranges: vec![(lo, hi)],
            }
        }
    }

    /// Builds a set from arbitrary closed ranges: drops empty ones (`lo > hi`), sorts, and merges
    /// overlapping and adjacent ranges.
    pub fn from_ranges(ranges: impl IntoIterator<Item = (i64, i64)>) -> Self {
        let mut v: Vec<(i64, i64)> = ranges.into_iter().filter(|&(l, h)| l <= h).collect();
        v.sort_unstable();
        let mut out = Vec::with_capacity(v.len());
        for r in v {
            push_range(&mut out, r);
        }
        DimSet { ranges: out }
    }

    /// The normalized ranges (sorted, disjoint, non-adjacent, each `lo <= hi`).
    pub fn ranges(&self) -> &[(i64, i64)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether this is the whole dimension `*`.
    pub fn is_all(&self) -> bool {
        self.ranges.len() == 1 && self.ranges[0] == (i64::MIN, i64::MAX)
    }

    /// `Some(i)` if the set is exactly the single index `i`.
    pub fn as_point(&self) -> Option<i64> {
        match self.ranges.as_slice() {
            [(l, h)] if l == h => Some(*l),
            _ => None,
        }
    }

    /// Smallest and largest element, `None` if empty.
    pub fn bounds(&self) -> Option<(i64, i64)> {
        match (self.ranges.first(), self.ranges.last()) {
            (Some(f), Some(l)) => Some((f.0, l.1)),
            _ => None,
        }
    }

    pub fn contains(&self, i: i64) -> bool {
        let k = self.ranges.partition_point(|r| r.1 < i);
        k < self.ranges.len() && self.ranges[k].0 <= i
    }

    pub fn union(&self, other: &Self) -> Self {
        if other.ranges.is_empty() {
            return self.clone();
        }
        if self.ranges.is_empty() {
            return other.clone();
        }
        let (a, b) = (&self.ranges, &other.ranges);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let take_a = j >= b.len() || (i < a.len() && a[i].0 <= b[j].0);
            if take_a {
                push_range(&mut out, a[i]);
                i += 1;
            } else {
                push_range(&mut out, b[j]);
                j += 1;
            }
        }
        DimSet { ranges: out }
    }

    pub fn intersect(&self, other: &Self) -> Self {
        let (a, b) = (&self.ranges, &other.ranges);
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let lo = a[i].0.max(b[j].0);
            let hi = a[i].1.min(b[j].1);
            if lo <= hi {
                out.push((lo, hi));
            }
            if a[i].1 < b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        DimSet { ranges: out }
    }

    /// Whether the two sets share at least one element (no allocation).
    pub fn intersects(&self, other: &Self) -> bool {
        let (a, b) = (&self.ranges, &other.ranges);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].0.max(b[j].0) <= a[i].1.min(b[j].1) {
                return true;
            }
            if a[i].1 < b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        false
    }

    pub fn difference(&self, other: &Self) -> Self {
        if other.ranges.is_empty() || self.ranges.is_empty() {
            return self.clone();
        }
        let b = &other.ranges;
        let mut out = Vec::new();
        let mut j = 0;
        for &(lo, hi) in &self.ranges {
            while j < b.len() && b[j].1 < lo {
                j += 1;
            }
            let mut cur = lo;
            let mut covered = false;
            let mut k = j;
            while k < b.len() && b[k].0 <= hi {
                let (bl, bh) = b[k];
                if bl > cur {
                    // bl > cur >= i64::MIN, so bl - 1 cannot overflow.
                    out.push((cur, bl - 1));
                }
                if bh >= hi {
                    covered = true;
                    break;
                }
                // bh < hi <= i64::MAX, so bh + 1 cannot overflow.
                cur = bh + 1;
                k += 1;
            }
            if !covered {
                out.push((cur, hi));
            }
        }
        DimSet { ranges: out }
    }

    pub fn is_subset(&self, other: &Self) -> bool {
        let b = &other.ranges;
        let mut j = 0;
        for &(lo, hi) in &self.ranges {
            while j < b.len() && b[j].1 < lo {
                j += 1;
            }
            // Ranges of `other` are non-adjacent, so a contiguous range must lie in one of them.
            if j >= b.len() || b[j].0 > lo || b[j].1 < hi {
                return false;
            }
        }
        true
    }

    /// Number of elements, `None` if unbounded (contains `i64::MIN` or `i64::MAX`); saturating.
    pub fn count(&self) -> Option<u64> {
        let (lo, hi) = match self.bounds() {
            None => return Some(0),
            Some(b) => b,
        };
        if lo == i64::MIN || hi == i64::MAX {
            return None;
        }
        let total: u128 = self
            .ranges
            .iter()
            .map(|&(l, h)| (h as i128 - l as i128 + 1) as u128)
            .sum();
        Some(u64::try_from(total).unwrap_or(u64::MAX))
    }

    /// Clamp to `[lo, hi]` (declared bounds); empty if `lo > hi`.
    pub fn clamp(&self, lo: i64, hi: i64) -> Self {
        self.intersect(&DimSet::range(lo, hi))
    }

    /// Renders the set: `*` for the whole dimension or exactly the declared `bound`,
    /// `5` for a point, `2:1999` for a range, `1:3|7|9:10` for several ranges; an unbounded end
    /// is left out (`:5`, `3:`). The empty set renders as the empty string.
    pub fn display_with(&self, bound: Option<(i64, i64)>) -> String {
        if self.is_all() {
            return "*".to_string();
        }
        if let Some((lo, hi)) = bound {
            if lo <= hi && self.ranges.len() == 1 && self.ranges[0] == (lo, hi) {
                return "*".to_string();
            }
        }
        let mut s = String::new();
        for (k, &(lo, hi)) in self.ranges.iter().enumerate() {
            if k > 0 {
                s.push('|');
            }
            if lo == hi {
                s.push_str(&lo.to_string());
            } else {
                if lo != i64::MIN {
                    s.push_str(&lo.to_string());
                }
                s.push(':');
                if hi != i64::MAX {
                    s.push_str(&hi.to_string());
                }
            }
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------
// Section
// ---------------------------------------------------------------------------------------------

/// A rectangular section: the product of one DimSet per dimension (rank = dims.len(); rank 0 = a scalar).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Section {
    pub dims: Vec<DimSet>,
}

impl Section {
    pub fn new(dims: Vec<DimSet>) -> Self {
        Section { dims }
    }

    /// The whole array of rank `rank` (`*` in every dimension).
    pub fn all(rank: usize) -> Self {
        Section {
            dims: vec![DimSet::all(); rank],
        }
    }

    /// The single element `idx`.
    pub fn point(idx: &[i64]) -> Self {
        Section {
            dims: idx.iter().map(|&i| DimSet::point(i)).collect(),
        }
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Empty if any dimension is empty (a rank-0 section is the non-empty scalar).
    pub fn is_empty(&self) -> bool {
        self.dims.iter().any(DimSet::is_empty)
    }

    /// Product of the per-dimension intersections. Sections of different ranks have no common
    /// element: the result is then an empty section of the larger rank.
    pub fn intersect(&self, other: &Self) -> Section {
        if self.dims.len() != other.dims.len() {
            return Section {
                dims: vec![DimSet::empty(); self.dims.len().max(other.dims.len())],
            };
        }
        Section {
            dims: self
                .dims
                .iter()
                .zip(&other.dims)
                .map(|(a, b)| a.intersect(b))
                .collect(),
        }
    }

    /// Whether the two sections share an element (no allocation).
    pub fn intersects(&self, other: &Self) -> bool {
        self.dims.len() == other.dims.len()
            && self
                .dims
                .iter()
                .zip(&other.dims)
                .all(|(a, b)| a.intersects(b))
    }

    /// Whether every element of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        if self.is_empty() {
            return true;
        }
        self.dims.len() == other.dims.len()
            && self
                .dims
                .iter()
                .zip(&other.dims)
                .all(|(a, b)| a.is_subset(b))
    }

    /// Whether `idx` (of length `rank`) is an element.
    pub fn contains(&self, idx: &[i64]) -> bool {
        idx.len() == self.dims.len() && self.dims.iter().zip(idx).all(|(d, &i)| d.contains(i))
    }

    /// Number of elements: `Some(0)` if empty, `None` if non-empty and unbounded; saturating.
    pub fn count(&self) -> Option<u64> {
        if self.is_empty() {
            return Some(0);
        }
        let mut total: u64 = 1;
        for d in &self.dims {
            total = total.saturating_mul(d.count()?);
        }
        Some(total)
    }

    /// The order of the parts of a [`SectionSet`]: lexicographic over dimensions, each dimension
    /// compared by its list of ranges.
    pub fn canonical_cmp(&self, other: &Self) -> Ordering {
        cmp_dims(&self.dims, &other.dims)
    }

    /// Renders as `name(d1,d2,...)` (see [`DimSet::display_with`]); rank 0 renders as `name`.
    pub fn display_with(&self, name: &str, bounds: &[Option<(i64, i64)>]) -> String {
        if self.dims.is_empty() {
            return name.to_string();
        }
        let dims: Vec<String> = self
            .dims
            .iter()
            .enumerate()
            .map(|(k, d)| d.display_with(bounds.get(k).copied().flatten()))
            .collect();
        format!("{}({})", name, dims.join(","))
    }
}

// ---------------------------------------------------------------------------------------------
// Canonicalizing set algebra on lists of boxes
// ---------------------------------------------------------------------------------------------

/// A list of boxes, each given by its per-dimension sets.
type Parts = Vec<Vec<DimSet>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Union,
    Intersect,
    Difference,
}

impl Op {
    fn apply(self, x: bool, y: bool) -> bool {
        match self {
            Op::Union => x || y,
            Op::Intersect => x && y,
            Op::Difference => x && !y,
        }
    }
}

/// The order of canonical parts: lexicographic over dimensions, each dimension compared by its
/// list of ranges.
fn cmp_dims(a: &[DimSet], b: &[DimSet]) -> Ordering {
    a.iter()
        .map(DimSet::ranges)
        .cmp(b.iter().map(DimSet::ranges))
}

fn cmp_parts(a: &[Vec<DimSet>], b: &[Vec<DimSet>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match cmp_dims(x, y) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    a.len().cmp(&b.len())
}

/// The sorted distinct starts of the elementary intervals of dimension `k` of the boxes: every
/// range start, and every range end + 1.
fn cuts(a: &[&[DimSet]], b: &[&[DimSet]], k: usize) -> Vec<i64> {
    let mut cuts: Vec<i64> = Vec::new();
    for bx in a.iter().chain(b.iter()) {
        for &(lo, hi) in bx[k].ranges() {
            cuts.push(lo);
            if hi < i64::MAX {
                cuts.push(hi + 1);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// The union of dimension 0 of the covering boxes `cover[*].1` of `boxes`, using `buf` as scratch.
fn union_dim0(boxes: &[&[DimSet]], cover: &[(usize, usize)], buf: &mut Vec<(i64, i64)>) -> DimSet {
    if let [(_, only)] = cover {
        return boxes[*only][0].clone();
    }
    buf.clear();
    for &(_, bi) in cover {
        buf.extend_from_slice(boxes[bi][0].ranges());
    }
    buf.sort_unstable();
    let mut out = Vec::with_capacity(buf.len());
    for &r in buf.iter() {
        push_range(&mut out, r);
    }
    DimSet { ranges: out }
}

/// [`combine`] specialized to rank 2 (the common case), with fewer allocations.
fn combine2(a: &[&[DimSet]], b: &[&[DimSet]], op: Op) -> Vec<Vec<DimSet>> {
    let cuts = cuts(a, b, 1);
    let ca_all = cover(&cuts, a, 1);
    let cb_all = cover(&cuts, b, 1);
    let mut buf = Vec::new();
    let mut slabs: Vec<(DimSet, (i64, i64))> = Vec::new();
    let (mut ia, mut ib) = (0, 0);
    for (n, &start) in cuts.iter().enumerate() {
        let end = cuts.get(n + 1).map_or(i64::MAX, |&next| next - 1);
        let sa = ia;
        while ia < ca_all.len() && ca_all[ia].0 == n {
            ia += 1;
        }
        let sb = ib;
        while ib < cb_all.len() && cb_all[ib].0 == n {
            ib += 1;
        }
        let (ca, cb) = (&ca_all[sa..ia], &cb_all[sb..ib]);
        let r = match op {
            Op::Union | Op::Difference if cb.is_empty() => {
                if ca.is_empty() {
                    continue;
                }
                union_dim0(a, ca, &mut buf)
            }
            Op::Union if ca.is_empty() => union_dim0(b, cb, &mut buf),
            Op::Intersect | Op::Difference if ca.is_empty() => continue,
            Op::Intersect if cb.is_empty() => continue,
            _ => {
                let ua = union_dim0(a, ca, &mut buf);
                let ub = union_dim0(b, cb, &mut buf);
                match op {
                    Op::Union => ua.union(&ub),
                    Op::Intersect => ua.intersect(&ub),
                    Op::Difference => ua.difference(&ub),
                }
            }
        };
        if !r.is_empty() {
            slabs.push((r, (start, end)));
        }
    }
    slabs.sort_unstable_by(|x, y| x.0.ranges().cmp(y.0.ranges()).then(x.1.cmp(&y.1)));
    let mut out: Vec<Vec<DimSet>> = Vec::new();
    let mut i = 0;
    while i < slabs.len() {
        let mut j = i + 1;
        while j < slabs.len() && slabs[j].0 == slabs[i].0 {
            j += 1;
        }
        let d = DimSet::from_ranges(slabs[i..j].iter().map(|s| s.1));
        out.push(vec![std::mem::take(&mut slabs[i].0), d]);
        i = j;
    }
    out.sort_by(|x, y| cmp_dims(x, y));
    out
}

/// For boxes whose dimension `k` ranges all start at a cut and end just before a cut (or at
/// `i64::MAX`), the sorted pairs `(interval index, box index)` of the elementary intervals
/// covered by each box.
fn cover(cuts: &[i64], boxes: &[&[DimSet]], k: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (bi, bx) in boxes.iter().enumerate() {
        for &(lo, hi) in bx[k].ranges() {
            let s = cuts.partition_point(|&c| c < lo);
            let e = if hi == i64::MAX {
                cuts.len()
            } else {
                cuts.partition_point(|&c| c <= hi)
            };
            out.extend((s..e).map(|n| (n, bi)));
        }
    }
    out.sort_unstable();
    out
}

/// Canonical parts (see the module doc) of `(∪ a) op (∪ b)`, where `a` and `b` are lists of
/// non-empty boxes of rank `rank` (each box is a slice of exactly `rank` DimSets; boxes may
/// overlap). The result is sorted, its boxes pairwise disjoint and non-empty.
fn combine(rank: usize, a: &[&[DimSet]], b: &[&[DimSet]], op: Op) -> Vec<Vec<DimSet>> {
    match op {
        Op::Union => {
            if b.is_empty() && a.len() == 1 {
                // A single non-empty box is canonical.
                return vec![a[0].to_vec()];
            }
            if a.is_empty() && b.len() == 1 {
                return vec![b[0].to_vec()];
            }
        }
        Op::Intersect => {
            if a.is_empty() || b.is_empty() {
                return Vec::new();
            }
        }
        Op::Difference => {
            if a.is_empty() {
                return Vec::new();
            }
            if b.is_empty() {
                return combine(rank, a, b, Op::Union);
            }
        }
    }
    if rank == 0 {
        return if op.apply(!a.is_empty(), !b.is_empty()) {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    }
    if rank == 1 {
        let ua = DimSet::from_ranges(a.iter().flat_map(|x| x[0].ranges().iter().copied()));
        let ub = DimSet::from_ranges(b.iter().flat_map(|x| x[0].ranges().iter().copied()));
        let r = match op {
            Op::Union => ua.union(&ub),
            Op::Intersect => ua.intersect(&ub),
            Op::Difference => ua.difference(&ub),
        };
        return if r.is_empty() {
            Vec::new()
        } else {
            vec![vec![r]]
        };
    }

    if rank == 2 {
        return combine2(a, b, op);
    }

    // Slice along the last dimension into elementary intervals `[cuts[n], cuts[n+1] - 1]` on
    // which the set of boxes covering the interval is constant.
    let k = rank - 1;
    let cuts = cuts(a, b, k);
    let ca_all = cover(&cuts, a, k);
    let cb_all = cover(&cuts, b, k);

    let mut slabs: Vec<(Parts, (i64, i64))> = Vec::new();
    let mut ca: Vec<&[DimSet]> = Vec::new();
    let mut cb: Vec<&[DimSet]> = Vec::new();
    let (mut ia, mut ib) = (0, 0);
    for (n, &start) in cuts.iter().enumerate() {
        // cuts[n + 1] > start >= i64::MIN, so the subtraction cannot overflow.
        let end = cuts.get(n + 1).map_or(i64::MAX, |&next| next - 1);
        ca.clear();
        cb.clear();
        while ia < ca_all.len() && ca_all[ia].0 == n {
            ca.push(&a[ca_all[ia].1][..k]);
            ia += 1;
        }
        while ib < cb_all.len() && cb_all[ib].0 == n {
            cb.push(&b[cb_all[ib].1][..k]);
            ib += 1;
        }
        let inner = combine(k, &ca, &cb, op);
        if !inner.is_empty() {
            slabs.push((inner, (start, end)));
        }
    }

    // Group the intervals by their (canonical) slice.
    slabs.sort_by(|x, y| cmp_parts(&x.0, &y.0).then(x.1.cmp(&y.1)));
    let mut out: Vec<Vec<DimSet>> = Vec::new();
    let mut i = 0;
    while i < slabs.len() {
        let mut j = i + 1;
        while j < slabs.len() && slabs[j].0 == slabs[i].0 {
            j += 1;
        }
        let d = DimSet::from_ranges(slabs[i..j].iter().map(|s| s.1));
        for p in &slabs[i].0 {
            let mut dims = Vec::with_capacity(rank);
            dims.extend_from_slice(p);
            dims.push(d.clone());
            out.push(dims);
        }
        i = j;
    }
    out.sort_by(|x, y| cmp_dims(x, y));
    out
}

// ---------------------------------------------------------------------------------------------
// SectionSet
// ---------------------------------------------------------------------------------------------

/// A union of pairwise-disjoint non-empty sections of the same rank, kept normalized.
///
/// The normal form is canonical (see the module doc): `==` and `Hash` are those of the
/// element set, and the order of [`parts`](SectionSet::parts) is deterministic (sorted by
/// [`Section::canonical_cmp`]).
///
/// Operations between sets of different ranks treat them as having no common element
/// (union and difference return `self`, intersection is empty).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "SectionSetRepr")]
pub struct SectionSet {
    rank: usize,
    parts: Vec<Section>,
}

/// Unchecked serialized shape of a [`SectionSet`]; normalized on deserialization.
#[derive(Deserialize)]
struct SectionSetRepr {
    rank: usize,
    parts: Vec<Section>,
}

impl From<SectionSetRepr> for SectionSet {
    fn from(r: SectionSetRepr) -> Self {
        SectionSet::from_sections(r.rank, r.parts)
    }
}

impl SectionSet {
    pub fn empty(rank: usize) -> Self {
        SectionSet {
            rank,
            parts: Vec::new(),
        }
    }

    /// The whole array of rank `rank`.
    pub fn all(rank: usize) -> Self {
        SectionSet {
            rank,
            parts: vec![Section::all(rank)],
        }
    }

    /// The set of the elements of one section (rank = `s.dims.len()`).
    pub fn from_section(s: Section) -> Self {
        let rank = s.dims.len();
        if s.is_empty() {
            SectionSet::empty(rank)
        } else {
            // A single non-empty box is already canonical.
            SectionSet {
                rank,
                parts: vec![s],
            }
        }
    }

    /// The union of arbitrary (possibly overlapping or empty) sections of rank `rank`;
    /// sections of another rank are ignored.
    pub fn from_sections(rank: usize, sections: impl IntoIterator<Item = Section>) -> Self {
        let boxes: Vec<Section> = sections
            .into_iter()
            .filter(|s| s.dims.len() == rank && !s.is_empty())
            .collect();
        let a: Vec<&[DimSet]> = boxes.iter().map(|s| s.dims.as_slice()).collect();
        Self::from_canonical(rank, combine(rank, &a, &[], Op::Union))
    }

    fn from_canonical(rank: usize, parts: Vec<Vec<DimSet>>) -> Self {
        SectionSet {
            rank,
            parts: parts.into_iter().map(|dims| Section { dims }).collect(),
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The canonical, pairwise-disjoint, non-empty, sorted parts.
    pub fn parts(&self) -> &[Section] {
        &self.parts
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Whether `idx` (of length `rank`) is an element.
    pub fn contains(&self, idx: &[i64]) -> bool {
        idx.len() == self.rank && self.parts.iter().any(|p| p.contains(idx))
    }

    fn boxes(&self) -> Vec<&[DimSet]> {
        self.parts.iter().map(|p| p.dims.as_slice()).collect()
    }

    fn overlaps(&self, other: &Self) -> bool {
        self.parts
            .iter()
            .any(|p| other.parts.iter().any(|q| p.intersects(q)))
    }

    /// Cheap sufficient test for `self ⊆ other` (same rank): every part lies inside a single part
    /// of `other`.
    fn boxwise_subset(&self, other: &Self) -> bool {
        self.parts
            .iter()
            .all(|p| other.parts.iter().any(|q| p.is_subset(q)))
    }

    pub fn union(&self, other: &Self) -> Self {
        if self.rank != other.rank || other.boxwise_subset(self) {
            return self.clone();
        }
        if self.boxwise_subset(other) {
            return other.clone();
        }
        Self::from_canonical(
            self.rank,
            combine(self.rank, &self.boxes(), &other.boxes(), Op::Union),
        )
    }

    pub fn intersect(&self, other: &Self) -> Self {
        if self.rank != other.rank || !self.overlaps(other) {
            return SectionSet::empty(self.rank);
        }
        if self.boxwise_subset(other) {
            return self.clone();
        }
        if other.boxwise_subset(self) {
            return other.clone();
        }
        Self::from_canonical(
            self.rank,
            combine(self.rank, &self.boxes(), &other.boxes(), Op::Intersect),
        )
    }

    pub fn difference(&self, other: &Self) -> Self {
        if self.rank != other.rank || !self.overlaps(other) {
            return self.clone();
        }
        if self.boxwise_subset(other) {
            return SectionSet::empty(self.rank);
        }
        Self::from_canonical(
            self.rank,
            combine(self.rank, &self.boxes(), &other.boxes(), Op::Difference),
        )
    }

    /// Whether every element of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        if self.is_empty() {
            return true;
        }
        if self.rank != other.rank {
            return false;
        }
        if self.boxwise_subset(other) {
            return true;
        }
        Self::from_canonical(
            self.rank,
            combine(self.rank, &self.boxes(), &other.boxes(), Op::Difference),
        )
        .is_empty()
    }

    /// Number of elements, `None` if unbounded; saturating.
    pub fn count(&self) -> Option<u64> {
        let mut total: u64 = 0;
        for p in &self.parts {
            total = total.saturating_add(p.count()?);
        }
        Some(total)
    }

    /// Clamp every dimension to declared bounds (lo,hi) per dim (None = unknown, leave as is).
    pub fn clamp(&self, bounds: &[Option<(i64, i64)>]) -> Self {
        if self.rank == 0 || bounds.iter().take(self.rank).all(Option::is_none) {
            return self.clone();
        }
        let clamped = self.parts.iter().map(|p| Section {
            dims: p
                .dims
                .iter()
                .enumerate()
                .map(|(k, d)| match bounds.get(k).copied().flatten() {
                    Some((lo, hi)) => d.clamp(lo, hi),
                    None => d.clone(),
                })
                .collect(),
        });
        SectionSet::from_sections(self.rank, clamped)
    }

    /// Bounding box (per-dim hull) of the set. For an empty set of rank >= 1 every dimension is
    /// empty (an empty rank-0 set has no empty box form: it gives the scalar section).
    pub fn hull(&self) -> Section {
        let mut dims = Vec::with_capacity(self.rank);
        for k in 0..self.rank {
            let mut lo = i64::MAX;
            let mut hi = i64::MIN;
            for p in &self.parts {
                if let Some((l, h)) = p.dims.get(k).and_then(DimSet::bounds) {
                    lo = lo.min(l);
                    hi = hi.max(h);
                }
            }
            dims.push(DimSet::range(lo, hi));
        }
        Section { dims }
    }

    /// Render with declared bounds: a dim equal to the whole dimension or covering exactly its declared bounds prints `*`;
    /// a single point prints `5`, a range `2:1999`, a dim with several ranges `1:3|7|9:10`.
    /// Parts are joined with " + ", e.g. `A(1:2000,2:1999) + A(2:1999,1|2000)`; the empty set
    /// prints `{}`; rank 0 prints just the name.
    pub fn display_with(&self, name: &str, bounds: &[Option<(i64, i64)>]) -> String {
        if self.parts.is_empty() {
            return "{}".to_string();
        }
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|p| p.display_with(name, bounds))
            .collect();
        parts.join(" + ")
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    const MIN: i64 = i64::MIN;
    const MAX: i64 = i64::MAX;

    fn ds(r: &[(i64, i64)]) -> DimSet {
        DimSet::from_ranges(r.iter().copied())
    }

    fn sec(dims: &[&[(i64, i64)]]) -> Section {
        Section::new(dims.iter().map(|r| ds(r)).collect())
    }

    fn set(rank: usize, boxes: &[&[&[(i64, i64)]]]) -> SectionSet {
        boxes.iter().fold(SectionSet::empty(rank), |acc, b| {
            acc.union(&SectionSet::from_section(sec(b)))
        })
    }

    // ----- DimSet -----

    #[test]
    fn dimset_constructors() {
        assert!(DimSet::empty().is_empty());
        assert!(DimSet::all().is_all());
        assert!(!DimSet::range(0, MAX).is_all());
        assert_eq!(DimSet::point(5).ranges(), &[(5, 5)]);
        assert_eq!(DimSet::point(5).as_point(), Some(5));
        assert_eq!(DimSet::range(1, 2).as_point(), None);
        assert!(DimSet::range(3, 2).is_empty());
        assert_eq!(DimSet::range(MIN, MAX), DimSet::all());
        assert_eq!(
            ds(&[
                (7, 9),
                (1, 3),
                (4, 4),
                (10, 10),
                (20, 19),
                (15, 16),
                (16, 18)
            ])
            .ranges(),
            &[(1, 4), (7, 10), (15, 18)]
        );
        assert_eq!(ds(&[(5, 6), (1, 4), (7, 7)]).ranges(), &[(1, 7)]);
        assert_eq!(ds(&[(MIN, 0), (1, MAX)]), DimSet::all());
        assert_eq!(
            ds(&[(MAX, MAX), (MIN, MIN)]).ranges(),
            &[(MIN, MIN), (MAX, MAX)]
        );
        assert_eq!(ds(&[(0, MAX), (5, 6), (MAX, MAX)]).ranges(), &[(0, MAX)]);
        assert_eq!(ds(&[(1, 5), (3, 4)]).ranges(), &[(1, 5)]);
        assert_eq!(ds(&[(3, 9)]).bounds(), Some((3, 9)));
        assert_eq!(DimSet::empty().bounds(), None);
    }

    #[test]
    fn dimset_contains() {
        let d = ds(&[(1, 3), (7, 7), (9, 10)]);
        let inside: Vec<i64> = (-1..12).filter(|&i| d.contains(i)).collect();
        assert_eq!(inside, vec![1, 2, 3, 7, 9, 10]);
        assert!(DimSet::all().contains(MIN) && DimSet::all().contains(MAX));
        assert!(!DimSet::empty().contains(0));
        assert!(ds(&[(MAX, MAX)]).contains(MAX));
        assert!(!ds(&[(MAX, MAX)]).contains(MAX - 1));
    }

    #[test]
    fn dimset_union_intersect_difference() {
        let a = ds(&[(1, 3), (7, 7), (9, 10)]);
        let b = ds(&[(4, 6), (10, 12)]);
        assert_eq!(a.union(&b).ranges(), &[(1, 7), (9, 12)]);
        assert_eq!(a.intersect(&b).ranges(), &[(10, 10)]);
        assert_eq!(a.difference(&b).ranges(), &[(1, 3), (7, 7), (9, 9)]);
        assert_eq!(b.difference(&a).ranges(), &[(4, 6), (11, 12)]);
        assert!(a.intersects(&b));
        assert!(!ds(&[(1, 3)]).intersects(&ds(&[(4, 6)])));
        assert_eq!(
            DimSet::range(0, 20)
                .difference(&ds(&[(2, 3), (5, 5), (18, 30)]))
                .ranges(),
            &[(0, 1), (4, 4), (6, 17)]
        );
        assert_eq!(
            DimSet::all().difference(&DimSet::point(0)).ranges(),
            &[(MIN, -1), (1, MAX)]
        );
        assert_eq!(
            DimSet::all()
                .difference(&ds(&[(MIN, MIN), (MAX, MAX)]))
                .ranges(),
            &[(MIN + 1, MAX - 1)]
        );
        assert!(DimSet::all().difference(&DimSet::all()).is_empty());
        assert_eq!(
            ds(&[(MIN, -1), (1, MAX)]).union(&DimSet::point(0)),
            DimSet::all()
        );
        assert_eq!(
            DimSet::all()
                .intersect(&ds(&[(MIN, MIN), (MAX, MAX)]))
                .ranges(),
            &[(MIN, MIN), (MAX, MAX)]
        );
        // a range of `other` spanning several ranges of `self`
        assert!(ds(&[(1, 2), (5, 6)])
            .difference(&DimSet::range(0, 9))
            .is_empty());
        assert_eq!(
            ds(&[(1, 2), (5, 6), (9, 12)])
                .difference(&DimSet::range(2, 10))
                .ranges(),
            &[(1, 1), (11, 12)]
        );
    }

    #[test]
    fn dimset_subset_count_clamp() {
        let a = ds(&[(1, 3), (7, 7)]);
        assert!(a.is_subset(&DimSet::range(1, 7)));
        assert!(a.is_subset(&DimSet::range(1, 7).difference(&DimSet::point(5))));
        assert!(!a.is_subset(&DimSet::range(1, 7).difference(&DimSet::point(2))));
        assert!(a.is_subset(&ds(&[(0, 3), (6, 8)])));
        assert!(!a.is_subset(&ds(&[(0, 2), (6, 8)])));
        assert!(DimSet::empty().is_subset(&DimSet::empty()));
        assert!(!DimSet::point(1).is_subset(&DimSet::empty()));
        assert!(DimSet::all().is_subset(&DimSet::all()));
        assert!(!DimSet::all().is_subset(&DimSet::range(MIN, MAX - 1)));

        assert_eq!(a.count(), Some(4));
        assert_eq!(DimSet::empty().count(), Some(0));
        assert_eq!(DimSet::all().count(), None);
        assert_eq!(DimSet::range(MIN, 0).count(), None);
        assert_eq!(DimSet::range(0, MAX).count(), None);
        assert_eq!(DimSet::range(0, MAX - 1).count(), Some(MAX as u64));
        // The largest bounded DimSet has 2^64 - 2 elements: a DimSet count never saturates.
        assert_eq!(DimSet::range(MIN + 1, MAX - 1).count(), Some(u64::MAX - 1));
        assert_eq!(
            ds(&[(MIN + 1, -1), (1, MAX - 1)]).count(),
            Some(u64::MAX - 2)
        );

        assert_eq!(DimSet::all().clamp(1, 2000), DimSet::range(1, 2000));
        assert_eq!(
            ds(&[(-5, 3), (7, 7), (1999, 2500)]).clamp(1, 2000).ranges(),
            &[(1, 3), (7, 7), (1999, 2000)]
        );
        assert!(DimSet::all().clamp(2, 1).is_empty());
    }

    #[test]
    fn dimset_display() {
        assert_eq!(DimSet::all().display_with(None), "*");
        assert_eq!(DimSet::range(1, 2000).display_with(Some((1, 2000))), "*");
        assert_eq!(DimSet::range(1, 2000).display_with(None), "1:2000");
        assert_eq!(
            DimSet::range(2, 1999).display_with(Some((1, 2000))),
            "2:1999"
        );
        assert_eq!(DimSet::point(5).display_with(Some((5, 5))), "*");
        assert_eq!(DimSet::point(5).display_with(None), "5");
        assert_eq!(
            ds(&[(1, 3), (7, 7), (9, 10)]).display_with(None),
            "1:3|7|9:10"
        );
        assert_eq!(ds(&[(MIN, 3), (7, MAX)]).display_with(None), ":3|7:");
        assert_eq!(DimSet::point(-4).display_with(None), "-4");
    }

    // ----- Section -----

    #[test]
    fn section_basics() {
        let s = sec(&[&[(1, 10)], &[(5, 5)]]);
        assert_eq!(s.rank(), 2);
        assert!(!s.is_empty());
        assert!(s.contains(&[3, 5]));
        assert!(!s.contains(&[3, 6]));
        assert!(!s.contains(&[3]));
        assert_eq!(s.count(), Some(10));
        let t = sec(&[&[(8, 20)], &[(1, 9)]]);
        assert_eq!(s.intersect(&t), sec(&[&[(8, 10)], &[(5, 5)]]));
        assert!(s.intersects(&t));
        assert!(s.intersect(&sec(&[&[(11, 20)], &[(5, 5)]])).is_empty());
        assert!(s.intersect(&sec(&[&[(1, 10)]])).is_empty());
        assert!(Section::point(&[1, 5]).is_subset(&s));
        assert!(!Section::point(&[1, 4]).is_subset(&s));
        assert!(sec(&[&[(3, 2)], &[(9, 9)]]).is_subset(&s));
        assert!(!s.is_subset(&sec(&[&[(1, 10)]])));
        assert!(!Section::all(0).is_empty());
        assert_eq!(Section::all(0).count(), Some(1));
        assert!(Section::all(0).contains(&[]));
        assert_eq!(Section::all(2).count(), None);
        // empty wins over unbounded
        assert_eq!(sec(&[&[(MIN, MAX)], &[(3, 2)]]).count(), Some(0));
        // saturating product
        assert_eq!(
            sec(&[&[(0, 1 << 40)], &[(0, 1 << 40)]]).count(),
            Some(u64::MAX)
        );
        assert_eq!(s.display_with("A", &[None, Some((1, 9))]), "A(1:10,5)");
        assert_eq!(Section::all(0).display_with("X", &[]), "X");
    }

    // ----- SectionSet -----

    const JACOBI_BOUNDS: [Option<(i64, i64)>; 2] = [Some((1, 2000)), Some((1, 2000))];

    fn jacobi_reads() -> SectionSet {
        // A(I-1,J), A(I,J-1), A(I+1,J), A(I,J+1) for I, J in 2..=1999.
        set(
            2,
            &[
                &[&[(1, 1998)], &[(2, 1999)]],
                &[&[(2, 1999)], &[(1, 1998)]],
                &[&[(3, 2000)], &[(2, 1999)]],
                &[&[(2, 1999)], &[(3, 2000)]],
            ],
        )
    }

    #[test]
    fn jacobi_stencil_union() {
        let r = jacobi_reads();
        // Element analysis: columns J=1 and J=2000 hold rows 2..1999; columns 2..1999 hold all
        // rows 1..2000. Slicing along the last dimension groups J=1 and J=2000 together.
        assert_eq!(
            r.display_with("A", &[None, None]),
            "A(1:2000,2:1999) + A(2:1999,1|2000)"
        );
        assert_eq!(
            r.display_with("A", &JACOBI_BOUNDS),
            "A(*,2:1999) + A(2:1999,1|2000)"
        );
        assert_eq!(r.count(), Some(2000 * 2000 - 4));
        assert!(!r.contains(&[1, 1]) && !r.contains(&[2000, 2000]) && !r.contains(&[1, 2000]));
        assert!(r.contains(&[1, 2]) && r.contains(&[2, 1]) && r.contains(&[1000, 1000]));
        // Any order of the reads gives the same value.
        let rev = set(
            2,
            &[
                &[&[(2, 1999)], &[(3, 2000)]],
                &[&[(3, 2000)], &[(2, 1999)]],
                &[&[(2, 1999)], &[(1, 1998)]],
                &[&[(1, 1998)], &[(2, 1999)]],
            ],
        );
        assert_eq!(r, rev);
        // The form of the brief is the same set.
        let other_form = set(
            2,
            &[
                &[&[(1, 2000)], &[(2, 1999)]],
                &[&[(2, 1999)], &[(1, 1)]],
                &[&[(2, 1999)], &[(2000, 2000)]],
            ],
        );
        assert_eq!(r, other_form);
        // Reads minus writes is the boundary ring without corners.
        let w = SectionSet::from_section(sec(&[&[(2, 1999)], &[(2, 1999)]]));
        let ring = r.difference(&w);
        assert_eq!(
            ring.display_with("A", &JACOBI_BOUNDS),
            "A(1|2000,2:1999) + A(2:1999,1|2000)"
        );
        assert_eq!(ring.count(), Some(4 * 1998));
        assert!(w.is_subset(&r));
        assert!(!r.is_subset(&w));
        assert_eq!(r.intersect(&w), w);
        assert_eq!(ring.union(&w), r);
        // Clamped whole array prints as `*`.
        let all = SectionSet::all(2).clamp(&JACOBI_BOUNDS);
        assert_eq!(all.display_with("A", &JACOBI_BOUNDS), "A(*,*)");
        assert_eq!(all.display_with("A", &[None, None]), "A(1:2000,1:2000)");
        assert_eq!(all.difference(&r).count(), Some(4));
        assert_eq!(
            all.difference(&r).display_with("A", &JACOBI_BOUNDS),
            "A(1|2000,1|2000)"
        );
        assert_eq!(r.hull(), sec(&[&[(1, 2000)], &[(1, 2000)]]));
    }

    #[test]
    fn set_basics_and_rank0() {
        let e = SectionSet::empty(2);
        assert!(e.is_empty());
        assert_eq!(e.count(), Some(0));
        assert_eq!(e.display_with("A", &[]), "{}");
        assert_eq!(e.hull(), sec(&[&[], &[]]));
        assert_eq!(SectionSet::from_section(sec(&[&[(1, 2)], &[(3, 2)]])), e);
        assert_eq!(SectionSet::all(2).count(), None);
        assert!(SectionSet::all(2).contains(&[MIN, MAX]));
        assert!(!SectionSet::all(2).contains(&[0]));

        let s0 = SectionSet::all(0);
        let e0 = SectionSet::empty(0);
        assert_eq!(s0.rank(), 0);
        assert!(s0.contains(&[]));
        assert!(!e0.contains(&[]));
        assert_eq!(s0.count(), Some(1));
        assert_eq!(s0.display_with("X", &[]), "X");
        assert_eq!(e0.display_with("X", &[]), "{}");
        assert_eq!(s0.union(&e0), s0);
        assert_eq!(e0.union(&s0), s0);
        assert_eq!(s0.union(&s0), s0);
        assert_eq!(s0.intersect(&s0), s0);
        assert_eq!(s0.intersect(&e0), e0);
        assert_eq!(s0.difference(&s0), e0);
        assert_eq!(s0.difference(&e0), s0);
        assert!(e0.is_subset(&s0) && !s0.is_subset(&e0));
        assert_eq!(SectionSet::from_section(Section::all(0)), s0);
        assert_eq!(s0.clamp(&[]), s0);
    }

    #[test]
    fn set_rank_mismatch_does_not_panic() {
        let a = set(1, &[&[&[(1, 5)]]]);
        let b = set(2, &[&[&[(1, 5)], &[(1, 5)]]]);
        assert_eq!(a.union(&b), a);
        assert_eq!(a.difference(&b), a);
        assert_eq!(a.intersect(&b), SectionSet::empty(1));
        assert!(!a.is_subset(&b));
        assert!(SectionSet::empty(1).is_subset(&b));
        assert!(!a.contains(&[1, 1]));
        assert_eq!(
            SectionSet::from_sections(1, vec![sec(&[&[(1, 2)]]), sec(&[&[(1, 2)], &[(1, 2)]])]),
            set(1, &[&[&[(1, 2)]]])
        );
        // bounds shorter or longer than the rank
        assert_eq!(b.clamp(&[Some((2, 3))]).count(), Some(10));
        assert_eq!(
            b.clamp(&[None, Some((2, 3)), Some((0, 0))]).count(),
            Some(10)
        );
        assert_eq!(b.display_with("B", &[]), "B(1:5,1:5)");
    }

    #[test]
    fn set_rank1_is_one_dimset() {
        let s = set(
            1,
            &[&[&[(1, 3)]], &[&[(7, 7)]], &[&[(4, 5)]], &[&[(9, 10)]]],
        );
        assert_eq!(s.parts().len(), 1);
        assert_eq!(s.display_with("V", &[Some((1, 10))]), "V(1:5|7|9:10)");
        assert_eq!(s.count(), Some(8));
        let t = s.union(&set(1, &[&[&[(6, 6)]], &[&[(8, 8)]]]));
        assert_eq!(t.display_with("V", &[Some((1, 10))]), "V(*)");
        assert_eq!(t.display_with("V", &[Some((0, 10))]), "V(1:10)");
    }

    #[test]
    fn set_coalescing_examples() {
        // Column-by-column writes A(1:N, J), J = 1..4 coalesce into one box.
        let cols = (1..=4).fold(SectionSet::empty(2), |acc, j| {
            acc.union(&SectionSet::from_section(sec(&[&[(1, 100)], &[(j, j)]])))
        });
        assert_eq!(cols.display_with("A", &[None, None]), "A(1:100,1:4)");
        // Row-by-row: also one box (same element set, same canonical form).
        let rows = (1..=100).fold(SectionSet::empty(2), |acc, i| {
            acc.union(&SectionSet::from_section(sec(&[&[(i, i)], &[(1, 4)]])))
        });
        assert_eq!(rows, cols);
        // L-shape: canonical slicing along the last dimension.
        let l = set(2, &[&[&[(1, 2)], &[(1, 5)]], &[&[(3, 6)], &[(1, 2)]]]);
        assert_eq!(
            l.display_with("A", &[None, None]),
            "A(1:2,3:5) + A(1:6,1:2)"
        );
        let l2 = set(2, &[&[&[(1, 6)], &[(1, 2)]], &[&[(1, 2)], &[(3, 5)]]]);
        assert_eq!(l, l2);
        // Non-contiguous strips with equal slices share one part.
        let strips = set(
            2,
            &[
                &[&[(1, 9)], &[(1, 1)]],
                &[&[(1, 9)], &[(5, 5)]],
                &[&[(1, 9)], &[(9, 9)]],
            ],
        );
        assert_eq!(strips.display_with("A", &[None, None]), "A(1:9,1|5|9)");
        // Rank 3.
        let cube = SectionSet::from_section(sec(&[&[(0, 2)], &[(0, 2)], &[(0, 2)]]));
        let hole = cube.difference(&SectionSet::from_section(Section::point(&[1, 1, 1])));
        assert_eq!(hole.count(), Some(26));
        assert_eq!(
            hole.display_with("C", &[None, None, None]),
            "C(0|2,1,1) + C(0:2,0|2,1) + C(0:2,0:2,0|2)"
        );
        assert_eq!(
            hole.union(&SectionSet::from_section(Section::point(&[1, 1, 1]))),
            cube
        );
    }

    #[test]
    fn set_extreme_values() {
        let all = SectionSet::all(2);
        let p = SectionSet::from_section(Section::point(&[MIN, MAX]));
        let d = all.difference(&p);
        assert!(!d.contains(&[MIN, MAX]));
        assert!(
            d.contains(&[MIN, MAX - 1]) && d.contains(&[MAX, MAX]) && d.contains(&[MIN + 1, MAX])
        );
        assert_eq!(d.union(&p), all);
        assert_eq!(
            d.display_with("A", &[None, None]),
            "A(*,:9223372036854775806) + A(-9223372036854775807:,9223372036854775807)"
        );
        assert_eq!(d.count(), None);
        assert_eq!(d.intersect(&p), SectionSet::empty(2));
        assert!(p.is_subset(&all) && !all.is_subset(&d));
        let corners = SectionSet::from_sections(
            2,
            vec![
                Section::point(&[MIN, MIN]),
                Section::point(&[MAX, MAX]),
                Section::point(&[MIN, MAX]),
                Section::point(&[MAX, MIN]),
            ],
        );
        assert_eq!(corners.count(), None); // unbounded: contains i64::MIN
        assert!(corners.contains(&[MIN, MAX]) && corners.contains(&[MAX, MIN]));
        assert!(!corners.contains(&[MIN, MIN + 1]));
        assert_eq!(corners.parts().len(), 1);
        assert_eq!(corners.hull(), Section::all(2));
        let half = corners.clamp(&[Some((0, MAX)), None]);
        assert_eq!(
            half,
            SectionSet::from_sections(
                2,
                vec![Section::point(&[MAX, MIN]), Section::point(&[MAX, MAX])]
            )
        );
        assert_eq!(
            half.clamp(&[None, Some((MIN + 1, MAX - 1))]),
            SectionSet::empty(2)
        );
    }

    #[test]
    fn set_count_saturates_and_order() {
        let big = sec(&[&[(0, 1 << 40)], &[(0, 1 << 40)]]);
        let far = sec(&[&[(0, 1 << 40)], &[(1 << 41, 1 << 42)]]);
        let s = SectionSet::from_sections(2, vec![big.clone(), far.clone()]);
        assert_eq!(s.count(), Some(u64::MAX));
        assert_eq!(
            SectionSet::from_section(sec(&[&[(1, 2)], &[(0, 1 << 40)]])).count(),
            Some(2 << 40 | 2)
        );
        assert_eq!(big.canonical_cmp(&far), Ordering::Less);
        assert_eq!(far.canonical_cmp(&big), Ordering::Greater);
        assert_eq!(big.canonical_cmp(&big), Ordering::Equal);
        // dimension 0 decides first; a point list [(0,0),(2,2)] sorts before the range [(0,2)]
        assert_eq!(
            sec(&[&[(0, 0), (2, 2)], &[(9, 9)]]).canonical_cmp(&sec(&[&[(0, 2)], &[(1, 1)]])),
            Ordering::Less
        );
    }

    #[test]
    fn set_clamp_and_hull() {
        let s = set(
            2,
            &[
                &[&[(MIN, 5)], &[(3, 4)]],
                &[&[(8, MAX)], &[(3, 4)]],
                &[&[(0, 0)], &[(10, 20)]],
            ],
        );
        let c = s.clamp(&[Some((1, 10)), None]);
        assert_eq!(
            c.display_with("A", &[Some((1, 10)), None]),
            "A(1:5|8:10,3:4)"
        );
        let c2 = s.clamp(&[Some((1, 10)), Some((1, 10))]);
        assert_eq!(c2.display_with("A", &[None, None]), "A(1:5|8:10,3:4)");
        // After clamping two slices become equal and merge: canonical form is recomputed.
        let t = set(2, &[&[&[(0, 5)], &[(1, 1)]], &[&[(1, 5)], &[(2, 2)]]]);
        assert_eq!(t.parts().len(), 2);
        let tc = t.clamp(&[Some((1, 9)), None]);
        assert_eq!(tc, SectionSet::from_section(sec(&[&[(1, 5)], &[(1, 2)]])));
        assert_eq!(tc.parts().len(), 1);
        assert_eq!(t.hull(), sec(&[&[(0, 5)], &[(1, 2)]]));
        assert!(t.clamp(&[Some((6, 9)), None]).is_empty());
    }

    #[test]
    fn serde_roundtrip_normalizes() {
        let r = jacobi_reads();
        let json = serde_json::to_string(&r).unwrap();
        let back: SectionSet = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        let d: DimSet = serde_json::from_str("[[5,9],[1,4],[20,10]]").unwrap();
        assert_eq!(d, DimSet::range(1, 9));
        assert_eq!(serde_json::to_string(&d).unwrap(), "[[1,9]]");
        // Overlapping, unsorted parts are normalized.
        let s: SectionSet = serde_json::from_str(
            r#"{"rank":1,"parts":[{"dims":[[[3,5]]]},{"dims":[[[1,4]]]},{"dims":[[[1,1]],[[1,1]]]}]}"#,
        )
        .unwrap();
        assert_eq!(s, SectionSet::from_section(sec(&[&[(1, 5)]])));
    }

    // ----- property tests against a brute-force model -----

    type Raw = Vec<Vec<Vec<(i64, i64)>>>; // boxes -> dims -> raw ranges
    type Model = BTreeSet<Vec<i64>>;

    fn raw_dim() -> impl Strategy<Value = Vec<(i64, i64)>> {
        prop::collection::vec(
            (0i64..6, 0i64..4).prop_map(|(lo, len)| (lo, (lo + len).min(5))),
            1..=2,
        )
    }

    fn raw_set(rank: usize) -> impl Strategy<Value = Raw> {
        prop::collection::vec(prop::collection::vec(raw_dim(), rank), 0..=4)
    }

    fn build(rank: usize, raw: &Raw) -> SectionSet {
        raw.iter().fold(SectionSet::empty(rank), |acc, b| {
            acc.union(&SectionSet::from_section(Section::new(
                b.iter()
                    .map(|r| DimSet::from_ranges(r.iter().copied()))
                    .collect(),
            )))
        })
    }

    fn product(dims: &[BTreeSet<i64>]) -> Vec<Vec<i64>> {
        let mut out = vec![Vec::new()];
        for d in dims {
            let mut next = Vec::new();
            for p in &out {
                for &i in d {
                    let mut q = p.clone();
                    q.push(i);
                    next.push(q);
                }
            }
            out = next;
        }
        out
    }

    /// Model of a raw box list, computed without the code under test.
    fn model(raw: &Raw) -> Model {
        let mut m = Model::new();
        for b in raw {
            let dims: Vec<BTreeSet<i64>> = b
                .iter()
                .map(|rs| rs.iter().flat_map(|&(l, h)| l..=h).collect())
                .collect();
            m.extend(product(&dims));
        }
        m
    }

    /// Enumerates a set part by part, checking the structural invariants on the way.
    fn enumerate(s: &SectionSet) -> Model {
        let mut m = Model::new();
        let mut total = 0usize;
        for w in s.parts().windows(2) {
            assert!(
                w[0].canonical_cmp(&w[1]) == Ordering::Less,
                "parts not strictly sorted: {:?}",
                s
            );
        }
        for p in s.parts() {
            assert_eq!(p.rank(), s.rank());
            assert!(!p.is_empty());
            let dims: Vec<BTreeSet<i64>> = p
                .dims
                .iter()
                .map(|d| {
                    let r = d.ranges();
                    for x in r {
                        assert!(x.0 <= x.1);
                    }
                    for w in r.windows(2) {
                        assert!(w[0].1 < w[1].0 - 1, "dimset not normalized: {:?}", d);
                    }
                    r.iter().flat_map(|&(l, h)| l..=h).collect()
                })
                .collect();
            let pts = product(&dims);
            total += pts.len();
            m.extend(pts);
        }
        assert_eq!(total, m.len(), "parts not pairwise disjoint: {:?}", s);
        m
    }

    /// Rebuilds a set point by point (in the given order): a different path to the same set.
    fn from_points<'a>(rank: usize, pts: impl Iterator<Item = &'a Vec<i64>>) -> SectionSet {
        pts.fold(SectionSet::empty(rank), |acc, p| {
            acc.union(&SectionSet::from_section(Section::point(p)))
        })
    }

    fn hash_of(s: &SectionSet) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    fn check_canonical(s: &SectionSet, m: &Model) -> Result<(), TestCaseError> {
        let fwd = from_points(s.rank(), m.iter());
        let bwd = from_points(s.rank(), m.iter().rev());
        prop_assert_eq!(&fwd, s);
        prop_assert_eq!(&bwd, s);
        prop_assert_eq!(hash_of(&fwd), hash_of(s));
        // Also through the bulk constructor.
        let bulk = SectionSet::from_sections(s.rank(), m.iter().map(|p| Section::point(p)));
        prop_assert_eq!(&bulk, s);
        Ok(())
    }

    fn grid(rank: usize) -> Vec<Vec<i64>> {
        let axis: BTreeSet<i64> = (-1..=6).collect();
        product(&vec![axis; rank])
    }

    fn sets() -> impl Strategy<Value = (usize, Raw, Raw)> {
        (1usize..=3).prop_flat_map(|rank| (Just(rank), raw_set(rank), raw_set(rank)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn prop_ops_match_model((rank, ra, rb) in sets()) {
            let (a, b) = (build(rank, &ra), build(rank, &rb));
            let (ma, mb) = (model(&ra), model(&rb));
            prop_assert_eq!(&enumerate(&a), &ma);
            prop_assert_eq!(&enumerate(&b), &mb);

            let u = a.union(&b);
            let i = a.intersect(&b);
            let d = a.difference(&b);
            let mu: Model = ma.union(&mb).cloned().collect();
            let mi: Model = ma.intersection(&mb).cloned().collect();
            let md: Model = ma.difference(&mb).cloned().collect();
            prop_assert_eq!(&enumerate(&u), &mu);
            prop_assert_eq!(&enumerate(&i), &mi);
            prop_assert_eq!(&enumerate(&d), &md);
            prop_assert_eq!(u.rank(), rank);
            prop_assert_eq!(i.rank(), rank);
            prop_assert_eq!(d.rank(), rank);

            prop_assert_eq!(a.is_subset(&b), ma.is_subset(&mb));
            prop_assert_eq!(b.is_subset(&a), mb.is_subset(&ma));
            prop_assert!(i.is_subset(&a) && a.is_subset(&u));
            prop_assert_eq!(a == b, ma == mb);
            prop_assert_eq!(u == b.union(&a), true);
            prop_assert_eq!(&i, &b.intersect(&a));

            for s in [&a, &u, &i, &d] {
                prop_assert_eq!(s.count(), Some(enumerate(s).len() as u64));
                prop_assert_eq!(s.is_empty(), enumerate(s).is_empty());
            }
            for p in grid(rank) {
                prop_assert_eq!(u.contains(&p), mu.contains(&p));
                prop_assert_eq!(i.contains(&p), mi.contains(&p));
                prop_assert_eq!(d.contains(&p), md.contains(&p));
                prop_assert_eq!(a.contains(&p), ma.contains(&p));
            }
            check_canonical(&u, &mu)?;
            check_canonical(&i, &mi)?;
            check_canonical(&d, &md)?;
            check_canonical(&a, &ma)?;
        }

        #[test]
        fn prop_clamp_hull_display((rank, ra, _rb) in sets(),
                                   bounds in prop::collection::vec(prop::option::of((0i64..6, 0i64..6)), 3)) {
            let a = build(rank, &ra);
            let ma = model(&ra);
            let c = a.clamp(&bounds);
            let mc: Model = ma
                .iter()
                .filter(|p| p.iter().zip(&bounds).all(|(&x, b)| b.is_none_or(|(lo, hi)| lo <= x && x <= hi)))
                .cloned()
                .collect();
            prop_assert_eq!(&enumerate(&c), &mc);
            check_canonical(&c, &mc)?;

            let h = a.hull();
            prop_assert_eq!(h.rank(), rank);
            for k in 0..rank {
                let lo = ma.iter().map(|p| p[k]).min();
                let hi = ma.iter().map(|p| p[k]).max();
                match (lo, hi) {
                    (Some(lo), Some(hi)) => prop_assert_eq!(&h.dims[k], &DimSet::range(lo, hi)),
                    _ => prop_assert!(h.dims[k].is_empty()),
                }
            }

            // Display is a function of the element set, and distinguishes different sets.
            let shown = a.display_with("A", &[None, None, None]);
            prop_assert_eq!(&from_points(rank, ma.iter().rev()).display_with("A", &[None, None, None]), &shown);
            prop_assert_eq!(shown == "{}", ma.is_empty());
            if !ma.is_empty() {
                prop_assert_eq!(shown.matches(" + ").count() + 1, a.parts().len());
            }
        }

        #[test]
        fn prop_dimset_matches_model(ra in prop::collection::vec((-3i64..9, -3i64..9), 0..5),
                                     rb in prop::collection::vec((-3i64..9, -3i64..9), 0..5)) {
            let (a, b) = (DimSet::from_ranges(ra.clone()), DimSet::from_ranges(rb.clone()));
            let m = |r: &[(i64, i64)]| -> BTreeSet<i64> { r.iter().flat_map(|&(l, h)| l..=h).collect() };
            let (ma, mb) = (m(&ra), m(&rb));
            let e = |d: &DimSet| -> BTreeSet<i64> {
                for w in d.ranges().windows(2) { assert!(w[0].1 + 1 < w[1].0); }
                for x in d.ranges() { assert!(x.0 <= x.1); }
                m(d.ranges())
            };
            prop_assert_eq!(e(&a), ma.clone());
            prop_assert_eq!(e(&a.union(&b)), ma.union(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(e(&a.intersect(&b)), ma.intersection(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(e(&a.difference(&b)), ma.difference(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(a.is_subset(&b), ma.is_subset(&mb));
            prop_assert_eq!(a.intersects(&b), !ma.is_disjoint(&mb));
            prop_assert_eq!(a.count(), Some(ma.len() as u64));
            prop_assert_eq!(a == b, ma == mb);
            prop_assert_eq!(e(&a.clamp(0, 4)), ma.iter().copied().filter(|&x| (0..=4).contains(&x)).collect::<BTreeSet<_>>());
            for x in -5..11 {
                prop_assert_eq!(a.contains(x), ma.contains(&x));
            }
        }

        #[test]
        fn prop_extreme_values_identities(
            (rank, ra, rb) in (1usize..=3).prop_flat_map(|rank| {
                let v = prop::sample::select(vec![MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX]);
                let dim = prop::collection::vec((v.clone(), v), 1..=2);
                let bx = prop::collection::vec(dim, rank);
                (Just(rank), prop::collection::vec(bx.clone(), 0..=3), prop::collection::vec(bx, 0..=3))
            })
        ) {
            let (a, b) = (build(rank, &ra), build(rank, &rb));
            let u = a.union(&b);
            let i = a.intersect(&b);
            let d = a.difference(&b);
            prop_assert!(d.intersect(&b).is_empty());
            prop_assert_eq!(&d.union(&i), &a);
            prop_assert_eq!(&u.difference(&b), &d);
            prop_assert_eq!(&u, &b.union(&a));
            prop_assert_eq!(&u, &d.union(&b));
            prop_assert!(a.is_subset(&u) && b.is_subset(&u) && i.is_subset(&a) && i.is_subset(&b));
            prop_assert_eq!(a.is_subset(&b), d.is_empty());
            prop_assert_eq!(&u.difference(&u), &SectionSet::empty(rank));
            prop_assert_eq!(&SectionSet::all(rank).difference(&SectionSet::all(rank).difference(&a)), &a);
            // Membership of the extreme corners agrees with the model of the raw boxes.
            let vals = [MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX];
            let axis: BTreeSet<i64> = vals.iter().copied().collect();
            for p in product(&vec![axis; rank]) {
                let in_raw = |raw: &Raw| raw.iter().any(|bx| bx.iter().zip(&p).all(|(rs, &x)| rs.iter().any(|&(l, h)| l <= x && x <= h)));
                prop_assert_eq!(a.contains(&p), in_raw(&ra));
                prop_assert_eq!(u.contains(&p), in_raw(&ra) || in_raw(&rb));
                prop_assert_eq!(d.contains(&p), in_raw(&ra) && !in_raw(&rb));
            }
            // Parts disjoint: pairwise intersections are empty; counts add up (saturating).
            for (x, p) in u.parts().iter().enumerate() {
                for q in &u.parts()[x + 1..] {
                    prop_assert!(p.intersect(q).is_empty());
                }
            }
            if let (Some(ca), Some(cd), Some(ci)) = (a.count(), d.count(), i.count()) {
                if ca < u64::MAX {
                    prop_assert_eq!(ca, cd + ci);
                }
            }
        }
    }
}
