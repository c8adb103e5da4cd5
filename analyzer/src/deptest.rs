//! Data dependence tests for affine subscripts: GCD, Banerjee bounds with direction-vector refinement, and an exact solver for small bounded systems.
//!
//! # Model
//!
//! Two references to the same array are compared: `src`, executed in a nest of
//! loops `L1..Ls` (outermost first), and `dst`, executed in a nest `L1..Ld`.
//! The first `common` loops are shared by both references. Every loop has been
//! normalized by the caller to step `+1` with integer bounds `lower..=upper`,
//! either of which may be unknown (`None` = unbounded on that side).
//!
//! A dependence exists iff there are integer iteration vectors `i` (src nest)
//! and `j` (dst nest), each inside its loop bounds, such that in every array
//! dimension `src_sub(i) == dst_sub(j)`. Symbols (`N`, ...) denote unknown,
//! loop-invariant integers that have the same value in both references.
//!
//! # Strategy
//!
//! 1. Each dimension becomes a linear equation `a·i - b·j + r·N = c`, where
//!    `r` are the symbolic coefficients that do not cancel. Non-affine
//!    subscripts give no information.
//! 2. Redundant equations (sums, differences, variable eliminations and
//!    "level-uniformizing" combinations of pairs of dimensions) are added; they
//!    let the per-equation tests see through coupled subscripts such as
//!    `A(I,J)` vs `A(J,I)`.
//! 3. When every bound is a known constant and each iteration space has at most
//!    [`ENUM_LIMIT`] points, the system is solved exactly by enumeration (a
//!    hash join on subscript values), which yields the exact set of direction
//!    vectors and distances.
//! 4. Otherwise: uniform equations (strong SIV and its multi-index
//!    generalization, where `a == b` on common levels) determine constant
//!    distances by propagation (ZIV and SIV conflicts prove independence);
//!    then direction vectors are refined hierarchically from all-`Star`,
//!    outermost level first, pruning every candidate with the GCD test and the
//!    Banerjee inequalities evaluated under the direction (and distance)
//!    constraints. Banerjee bounds are computed exactly per loop level as the
//!    extreme values of a linear function over a (possibly unbounded) 2-D
//!    polygon, so unknown bounds simply give infinite bounds.
//!
//! All arithmetic is done in `i128` with checked operations; any overflow makes
//! the affected test give up conservatively (it never yields independence).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Maximum number of points of one reference's iteration space for which the
/// exact enumeration solver is used.
pub const ENUM_LIMIT: u128 = 20_000;
/// Maximum number of (src, dst) common-level index pairs the exact solver
/// examines before falling back to the inexact tests.
const PAIR_BUDGET: u128 = 400_000;
/// Maximum number of nodes of the direction-vector refinement tree.
const NODE_BUDGET: usize = 50_000;
/// Maximum number of derived (redundant) equations.
const MAX_DERIVED: usize = 64;

/// An affine subscript expression `Σ coeffs[k]·I_k + Σ syms[s]·s + constant`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affine {
    /// One coefficient per loop of this reference's nest, outermost first
    /// (missing trailing entries are zero).
    pub coeffs: Vec<i64>,
    /// Unknown loop-invariant symbols (e.g. `N` read at run time) with their
    /// coefficients.
    pub syms: BTreeMap<String, i64>,
    pub constant: i64,
}

impl Affine {
    /// Affine expression without symbolic terms.
    pub fn new(coeffs: Vec<i64>, constant: i64) -> Self {
        Affine {
            coeffs,
            syms: BTreeMap::new(),
            constant,
        }
    }

    /// Adds `coeff·name` to the expression.
    pub fn with_sym(mut self, name: impl Into<String>, coeff: i64) -> Self {
        let e = self.syms.entry(name.into()).or_insert(0);
        *e = e.saturating_add(coeff);
        self
    }
}

/// Normalized loop bounds `lower..=upper` (step +1); `None` = unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoopRange {
    pub lower: Option<i64>,
    pub upper: Option<i64>,
}

impl LoopRange {
    /// Loop with both bounds known.
    pub fn new(lower: i64, upper: i64) -> Self {
        LoopRange {
            lower: Some(lower),
            upper: Some(upper),
        }
    }

    /// Loop with both bounds unknown.
    pub fn unknown() -> Self {
        LoopRange {
            lower: None,
            upper: None,
        }
    }
}

/// Subscript of one array dimension.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Subscript {
    Affine(Affine),
    /// Non-affine subscript (e.g. `A(IDX(I))`): no information.
    Unknown,
}

/// A dependence question between two references to the same array.
#[derive(Clone, Copy, Debug)]
pub struct DepProblem<'a> {
    /// Subscripts of the source reference, one per dimension.
    pub src: &'a [Subscript],
    /// Subscripts of the destination reference, one per dimension.
    pub dst: &'a [Subscript],
    pub src_loops: &'a [LoopRange],
    pub dst_loops: &'a [LoopRange],
    /// Number of outermost loops shared by both references.
    pub common: usize,
}

/// Relation of the src iteration to the dst iteration at one common level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dir {
    /// `i_src < i_dst`: src executes in an earlier iteration.
    Lt,
    /// `i_src == i_dst`.
    Eq,
    /// `i_src > i_dst`.
    Gt,
    /// Any relation (not refined).
    Star,
}

impl Dir {
    /// The direction seen from the other reference.
    pub fn reversed(self) -> Dir {
        match self {
            Dir::Lt => Dir::Gt,
            Dir::Gt => Dir::Lt,
            d => d,
        }
    }

    /// True when `self` admits the relation `other` (`Star` admits anything).
    pub fn covers(self, other: Dir) -> bool {
        self == Dir::Star || self == other
    }
}

/// One direction vector over the common loops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepVector {
    /// One direction per common level (outermost first).
    pub dirs: Vec<Dir>,
    /// `i_dst - i_src` per common level when it is the same constant for every
    /// solution with this direction vector.
    pub distance: Vec<Option<i64>>,
}

/// Outcome of [`test`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DepResult {
    /// Proven: no iteration pair touches the same element.
    Independent,
    /// Possibly dependent. `vectors` contains every direction vector that has a
    /// solution (and possibly some that could not be disproved); `exact` means
    /// each listed vector is proven to have a solution and `None` distances are
    /// genuinely non-constant.
    Dependent {
        vectors: Vec<DepVector>,
        exact: bool,
    },
}

impl DepResult {
    pub fn is_independent(&self) -> bool {
        matches!(self, DepResult::Independent)
    }

    /// The listed direction vectors (empty when independent).
    pub fn vectors(&self) -> &[DepVector] {
        match self {
            DepResult::Independent => &[],
            DepResult::Dependent { vectors, .. } => vectors,
        }
    }
}

/// True when the dependence described by `vectors` may be carried by the
/// common loop `level` (0 = outermost): some vector has `Eq` (or `Star`, which
/// may be `Eq`) at every level `< level` and `Lt`, `Gt` or `Star` at `level`.
///
/// A `Gt` at the first non-`Eq` level means the dependence actually runs from
/// the dst reference to the src reference (the reversed dependence, whose
/// vector is obtained with [`Dir::reversed`]); it is still carried by that
/// loop, so it counts.
pub fn loop_carried_at(vectors: &[DepVector], level: usize) -> bool {
    vectors.iter().any(|v| {
        level < v.dirs.len()
            && v.dirs[..level]
                .iter()
                .all(|d| matches!(d, Dir::Eq | Dir::Star))
            && matches!(v.dirs[level], Dir::Lt | Dir::Gt | Dir::Star)
    })
}

/// Runs the dependence tests on `p`. Never panics; sound for every input
/// (missing information never produces `Independent`).
pub fn test(p: &DepProblem) -> DepResult {
    test_with_limit(p, ENUM_LIMIT)
}

/// [`test`] with a smaller or larger bound on the iteration spaces that are enumerated
/// exactly (0 = never enumerate). The analyzer uses a small bound to keep large programs fast.
pub fn test_with_limit(p: &DepProblem, enum_limit: u128) -> DepResult {
    if let Some(r) = separable_uniform(p) {
        return r;
    }
    analyze(p, enum_limit.min(ENUM_LIMIT))
}

/// Fast path for the common case (stencils): every dimension uses at most one common loop
/// level, with the same coefficient in both references, no level appears in two dimensions,
/// symbolic parts cancel and nothing depends on non-common levels. Then each constrained
/// level has one exact distance (strong SIV) and the others are unconstrained.
fn separable_uniform(p: &DepProblem) -> Option<DepResult> {
    if p.src.len() != p.dst.len() {
        return None;
    }
    let mut dist: Vec<Option<i64>> = vec![None; p.common];
    for (s, d) in p.src.iter().zip(p.dst) {
        let (Subscript::Affine(s), Subscript::Affine(d)) = (s, d) else {
            return None;
        };
        let syms = |a: &Affine| {
            a.syms
                .iter()
                .filter(|(_, c)| **c != 0)
                .map(|(k, c)| (k.clone(), *c))
                .collect::<Vec<_>>()
        };
        if syms(s) != syms(d) {
            return None;
        }
        let coef = |a: &Affine, k: usize| a.coeffs.get(k).copied().unwrap_or(0);
        let levels = s.coeffs.len().max(d.coeffs.len());
        let used: Vec<usize> = (0..levels)
            .filter(|k| coef(s, *k) != 0 || coef(d, *k) != 0)
            .collect();
        match used.as_slice() {
            [] => {
                if s.constant != d.constant {
                    return Some(DepResult::Independent);
                }
            }
            [k] if *k < p.common && coef(s, *k) == coef(d, *k) => {
                if dist[*k].is_some() {
                    return None; // the level is constrained twice: leave it to the full test
                }
                let a = coef(s, *k) as i128;
                let diff = s.constant as i128 - d.constant as i128;
                if diff % a != 0 {
                    return Some(DepResult::Independent);
                }
                let dd = i64::try_from(diff / a).ok()?;
                // j = i + d with i in the src range and j in the dst range.
                let (rs, rd) = (p.src_loops.get(*k)?, p.dst_loops.get(*k)?);
                if let (Some(ld), Some(hs)) = (rd.lower, rs.upper) {
                    if (dd as i128) < ld as i128 - hs as i128 {
                        return Some(DepResult::Independent);
                    }
                }
                if let (Some(hd), Some(ls)) = (rd.upper, rs.lower) {
                    if (dd as i128) > hd as i128 - ls as i128 {
                        return Some(DepResult::Independent);
                    }
                }
                dist[*k] = Some(dd);
            }
            _ => return None,
        }
    }
    // Unconstrained levels are refined by the full test.
    if dist.iter().any(|d| d.is_none()) {
        return None;
    }
    let empty = p
        .src_loops
        .iter()
        .chain(p.dst_loops)
        .any(|r| matches!((r.lower, r.upper), (Some(l), Some(h)) if h < l));
    if empty {
        return Some(DepResult::Independent);
    }
    let dirs: Vec<Dir> = dist
        .iter()
        .map(|d| match d {
            Some(x) if *x > 0 => Dir::Lt,
            Some(0) => Dir::Eq,
            Some(_) => Dir::Gt,
            None => Dir::Star,
        })
        .collect();
    // Exact when every common level is constrained and every bound is known.
    let exact = dist.iter().all(|d| d.is_some())
        && p.src_loops
            .iter()
            .chain(p.dst_loops)
            .all(|r| r.lower.is_some() && r.upper.is_some());
    Some(DepResult::Dependent {
        vectors: vec![DepVector {
            dirs,
            distance: dist,
        }],
        exact,
    })
}

// ---------------------------------------------------------------------------
// Internal representation
// ---------------------------------------------------------------------------

/// Integer interval with optional (infinite) ends.
type Iv = (Option<i128>, Option<i128>);

const STAR: Iv = (None, None);
const LT: Iv = (Some(1), None);
const EQ: Iv = (Some(0), Some(0));
const GT: Iv = (None, Some(-1));

fn intersect(x: Iv, y: Iv) -> Iv {
    let lo = match (x.0, y.0) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let hi = match (x.1, y.1) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    (lo, hi)
}

fn nonempty(x: Iv) -> bool {
    match x {
        (Some(l), Some(h)) => l <= h,
        _ => true,
    }
}

fn contains(x: Iv, v: i128) -> bool {
    x.0.is_none_or(|l| l <= v) && x.1.is_none_or(|h| v <= h)
}

fn point(x: Iv) -> Option<i128> {
    match x {
        (Some(l), Some(h)) if l == h => Some(l),
        _ => None,
    }
}

fn class(x: Iv) -> Dir {
    if x.0.is_some_and(|l| l >= 1) {
        Dir::Lt
    } else if x.1.is_some_and(|h| h <= -1) {
        Dir::Gt
    } else if point(x) == Some(0) {
        Dir::Eq
    } else {
        Dir::Star
    }
}

fn gcd_u(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn add_opt(x: Option<i128>, y: Option<i128>) -> Option<i128> {
    x?.checked_add(y?)
}

/// One dimension as the equation `Σ a[k]·i[k] - Σ b[k]·j[k] + Σ r[s]·s = c`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Eqn {
    a: Vec<i128>,
    b: Vec<i128>,
    r: BTreeMap<String, i128>,
    c: i128,
}

impl Eqn {
    /// `l·self + m·other`, `None` on overflow.
    fn combine(&self, l: i128, other: &Eqn, m: i128) -> Option<Eqn> {
        let lin = |x: i128, y: i128| l.checked_mul(x)?.checked_add(m.checked_mul(y)?);
        let a = self
            .a
            .iter()
            .zip(&other.a)
            .map(|(&x, &y)| lin(x, y))
            .collect::<Option<Vec<_>>>()?;
        let b = self
            .b
            .iter()
            .zip(&other.b)
            .map(|(&x, &y)| lin(x, y))
            .collect::<Option<Vec<_>>>()?;
        let mut r = BTreeMap::new();
        let names: BTreeSet<&String> = self.r.keys().chain(other.r.keys()).collect();
        for n in names {
            let v = lin(*self.r.get(n).unwrap_or(&0), *other.r.get(n).unwrap_or(&0))?;
            if v != 0 {
                r.insert(n.clone(), v);
            }
        }
        let c = lin(self.c, other.c)?;
        Some(Eqn { a, b, r, c })
    }

    /// Sign-normalized copy (first nonzero coefficient positive), for dedup.
    fn normalized(mut self) -> Option<Eqn> {
        let first = self
            .a
            .iter()
            .chain(self.b.iter())
            .chain(self.r.values())
            .copied()
            .find(|&v| v != 0)
            .unwrap_or(0);
        if first < 0 {
            for v in self
                .a
                .iter_mut()
                .chain(self.b.iter_mut())
                .chain(self.r.values_mut())
            {
                *v = v.checked_neg()?;
            }
            self.c = self.c.checked_neg()?;
        }
        Some(self)
    }

    fn is_trivial(&self) -> bool {
        self.c == 0
            && self.r.is_empty()
            && self.a.iter().all(|&v| v == 0)
            && self.b.iter().all(|&v| v == 0)
    }
}

enum DimInfo {
    /// Fully informative equation (symbols cancel).
    Full(Eqn),
    /// Equation with residual symbols; `u128` = gcd of their coefficients.
    Sym(Eqn, u128),
    /// No information.
    NoInfo,
}

fn build_dim(x: &Subscript, y: &Subscript, s: usize, d: usize) -> DimInfo {
    let (Subscript::Affine(x), Subscript::Affine(y)) = (x, y) else {
        return DimInfo::NoInfo;
    };
    // Coefficients for loops outside the nest: malformed, give no information.
    if x.coeffs.iter().skip(s).any(|&v| v != 0) || y.coeffs.iter().skip(d).any(|&v| v != 0) {
        return DimInfo::NoInfo;
    }
    let a: Vec<i128> = (0..s)
        .map(|k| x.coeffs.get(k).copied().unwrap_or(0) as i128)
        .collect();
    let b: Vec<i128> = (0..d)
        .map(|k| y.coeffs.get(k).copied().unwrap_or(0) as i128)
        .collect();
    let mut r = BTreeMap::new();
    let names: BTreeSet<&String> = x.syms.keys().chain(y.syms.keys()).collect();
    for n in names {
        let v = *x.syms.get(n).unwrap_or(&0) as i128 - *y.syms.get(n).unwrap_or(&0) as i128;
        if v != 0 {
            r.insert(n.clone(), v);
        }
    }
    let c = y.constant as i128 - x.constant as i128;
    if r.is_empty() {
        DimInfo::Full(Eqn { a, b, r, c })
    } else {
        let g = r.values().fold(0u128, |g, &v| gcd_u(g, v.unsigned_abs()));
        DimInfo::Sym(Eqn { a, b, r, c }, g)
    }
}

struct Ctx {
    s: usize,
    d: usize,
    common: usize,
    src: Vec<Iv>,
    dst: Vec<Iv>,
    dims: Vec<DimInfo>,
    /// True when every dimension pair was translated into a `Full` equation.
    all_full: bool,
    /// Base informative equations plus derived redundant ones.
    eqs: Vec<Eqn>,
    /// Common levels whose indices appear in no equation.
    unconstrained: Vec<bool>,
}

fn to_iv(l: &LoopRange) -> Iv {
    (l.lower.map(i128::from), l.upper.map(i128::from))
}

impl Ctx {
    fn new(p: &DepProblem) -> Ctx {
        let s = p.src_loops.len();
        let d = p.dst_loops.len();
        let common = p.common.min(s).min(d);
        let src: Vec<Iv> = p.src_loops.iter().map(to_iv).collect();
        let dst: Vec<Iv> = p.dst_loops.iter().map(to_iv).collect();
        let ndims = p.src.len().min(p.dst.len());
        let dims: Vec<DimInfo> = (0..ndims)
            .map(|k| build_dim(&p.src[k], &p.dst[k], s, d))
            .collect();
        let all_full =
            p.src.len() == p.dst.len() && dims.iter().all(|x| matches!(x, DimInfo::Full(_)));

        let base: Vec<Eqn> = dims
            .iter()
            .filter_map(|x| match x {
                DimInfo::Full(e) | DimInfo::Sym(e, _) => Some(e.clone()),
                DimInfo::NoInfo => None,
            })
            .collect();
        let mut eqs = base.clone();
        let mut seen: BTreeSet<Eqn> = base.iter().filter_map(|e| e.clone().normalized()).collect();
        let mut derived = 0usize;
        'outer: for p1 in 0..base.len() {
            for p2 in p1 + 1..base.len() {
                let (e1, e2) = (&base[p1], &base[p2]);
                let mut mults: Vec<(i128, i128)> = vec![(1, 1), (1, -1)];
                // Eliminate each variable shared by both equations.
                let pairs =
                    e1.a.iter()
                        .zip(&e2.a)
                        .chain(e1.b.iter().zip(&e2.b))
                        .map(|(&x, &y)| (x, y))
                        .chain(
                            e1.r.iter()
                                .filter_map(|(n, &x)| e2.r.get(n).map(|&y| (x, y))),
                        );
                for (x, y) in pairs {
                    if x != 0 && y != 0 {
                        let g = gcd_u(x.unsigned_abs(), y.unsigned_abs()) as i128;
                        mults.push((y / g, -(x / g)));
                    }
                }
                // Make one common level uniform (a == b), exposing distances.
                for k in 0..common {
                    let (u1, u2) =
                        match (e1.a[k].checked_sub(e1.b[k]), e2.a[k].checked_sub(e2.b[k])) {
                            (Some(u1), Some(u2)) => (u1, u2),
                            _ => continue,
                        };
                    if u1 != 0 && u2 != 0 {
                        let g = gcd_u(u1.unsigned_abs(), u2.unsigned_abs()) as i128;
                        mults.push((u2 / g, -(u1 / g)));
                    }
                }
                for (l, m) in mults {
                    let Some(e) = e1.combine(l, e2, m).and_then(Eqn::normalized) else {
                        continue;
                    };
                    if e.is_trivial() || !seen.insert(e.clone()) {
                        continue;
                    }
                    eqs.push(e);
                    derived += 1;
                    if derived >= MAX_DERIVED {
                        break 'outer;
                    }
                }
            }
        }
        let unconstrained = (0..common)
            .map(|k| eqs.iter().all(|e| e.a[k] == 0 && e.b[k] == 0))
            .collect();
        Ctx {
            s,
            d,
            common,
            src,
            dst,
            dims,
            all_full,
            eqs,
            unconstrained,
        }
    }

    fn any_loop_empty(&self) -> bool {
        self.src
            .iter()
            .chain(self.dst.iter())
            .any(|&iv| !nonempty(iv))
    }

    fn all_bounds_known(&self) -> bool {
        self.src
            .iter()
            .chain(self.dst.iter())
            .all(|iv| iv.0.is_some() && iv.1.is_some())
    }

    /// Possible values of `j[k] - i[k]` allowed by the bounds alone.
    fn level_range(&self, k: usize) -> Iv {
        let lo = match (self.dst[k].0, self.src[k].1) {
            (Some(l), Some(u)) => l.checked_sub(u),
            _ => None,
        };
        let hi = match (self.dst[k].1, self.src[k].0) {
            (Some(u), Some(l)) => u.checked_sub(l),
            _ => None,
        };
        (lo, hi)
    }

    fn eff(&self, node: &[Iv], k: usize) -> Iv {
        intersect(node[k], self.level_range(k))
    }

    fn feasible(&self, node: &[Iv]) -> bool {
        if !(0..self.common).all(|k| nonempty(self.eff(node, k))) {
            return false;
        }
        self.eqs
            .iter()
            .all(|e| self.gcd_ok(e, node) && self.banerjee_ok(e, node))
    }

    /// GCD test under the distance constraints of `node`: levels with a
    /// single possible distance `δ` merge `i` and `j = i + δ`.
    fn gcd_ok(&self, e: &Eqn, node: &[Iv]) -> bool {
        let mut g = 0u128;
        let mut c = e.c;
        for k in 0..self.s {
            if k < self.common {
                if let Some(delta) = point(self.eff(node, k)) {
                    let Some(coef) = e.a[k].checked_sub(e.b[k]) else {
                        return true;
                    };
                    let Some(nc) = e.b[k].checked_mul(delta).and_then(|v| c.checked_add(v)) else {
                        return true;
                    };
                    c = nc;
                    g = gcd_u(g, coef.unsigned_abs());
                    continue;
                }
                g = gcd_u(g, e.b[k].unsigned_abs());
            }
            g = gcd_u(g, e.a[k].unsigned_abs());
        }
        for k in self.common..self.d {
            g = gcd_u(g, e.b[k].unsigned_abs());
        }
        for v in e.r.values() {
            g = gcd_u(g, v.unsigned_abs());
        }
        if g == 0 {
            c == 0
        } else {
            c.unsigned_abs().is_multiple_of(g)
        }
    }

    /// Banerjee inequalities: `min(lhs) <= c <= max(lhs)` over the region.
    fn banerjee_ok(&self, e: &Eqn, node: &[Iv]) -> bool {
        if !e.r.is_empty() {
            return true; // unbounded symbolic terms
        }
        let mut lo = Some(0i128);
        let mut hi = Some(0i128);
        for k in 0..self.common {
            let Some(q) = e.b[k].checked_neg() else {
                return true;
            };
            let dr = self.eff(node, k);
            hi = add_opt(hi, pair_max(e.a[k], q, self.src[k], self.dst[k], dr));
            lo = add_opt(lo, pair_min(e.a[k], q, self.src[k], self.dst[k], dr));
            if lo.is_none() && hi.is_none() {
                return true;
            }
        }
        for k in self.common..self.s {
            hi = add_opt(hi, interval_max(e.a[k], self.src[k]));
            lo = add_opt(lo, interval_min(e.a[k], self.src[k]));
        }
        for k in self.common..self.d {
            let Some(q) = e.b[k].checked_neg() else {
                return true;
            };
            hi = add_opt(hi, interval_max(q, self.dst[k]));
            lo = add_opt(lo, interval_min(q, self.dst[k]));
        }
        lo.is_none_or(|l| l <= e.c) && hi.is_none_or(|h| e.c <= h)
    }

    /// An equation is uniform when it only involves common levels with equal
    /// coefficients on both sides: `Σ a[k]·(j[k]-i[k]) = -c`.
    fn uniform(&self, e: &Eqn) -> bool {
        e.r.is_empty()
            && (0..self.common).all(|k| e.a[k] == e.b[k])
            && e.a[self.common..].iter().all(|&v| v == 0)
            && e.b[self.common..].iter().all(|&v| v == 0)
    }

    /// Propagates constant distances from uniform equations (strong SIV and
    /// its generalization). `Err(())` = proven independent.
    fn derive_distances(&self) -> Result<Vec<Option<i128>>, ()> {
        let mut known: Vec<Option<i128>> = vec![None; self.common];
        loop {
            let mut changed = false;
            for e in self.eqs.iter().filter(|e| self.uniform(e)) {
                let Some(mut rhs) = e.c.checked_neg() else {
                    continue;
                };
                let mut unknown = Vec::new();
                let mut overflow = false;
                for (k, (&a, &kn)) in e.a.iter().zip(&known).enumerate() {
                    if a == 0 {
                        continue;
                    }
                    match kn {
                        Some(dk) => match a.checked_mul(dk).and_then(|v| rhs.checked_sub(v)) {
                            Some(v) => rhs = v,
                            None => overflow = true,
                        },
                        None => unknown.push(k),
                    }
                }
                if overflow {
                    continue;
                }
                match unknown[..] {
                    [] if rhs != 0 => return Err(()),
                    [k] => {
                        let a = e.a[k];
                        let (Some(rem), Some(delta)) = (rhs.checked_rem(a), rhs.checked_div(a))
                        else {
                            continue;
                        };
                        if rem != 0 {
                            return Err(());
                        }
                        if !contains(self.level_range(k), delta) {
                            return Err(());
                        }
                        known[k] = Some(delta);
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                return Ok(known);
            }
        }
    }

    fn refine(
        &self,
        node: &mut Vec<Iv>,
        out: &mut Vec<Vec<Iv>>,
        budget: &mut usize,
        cut: &mut bool,
    ) {
        if !self.feasible(node) {
            return;
        }
        if *budget == 0 {
            *cut = true;
            out.push(node.clone());
            return;
        }
        *budget -= 1;
        let level = (0..self.common).find(|&k| {
            let e = self.eff(node, k);
            class(e) == Dir::Star
                && !(self.unconstrained[k]
                    && [LT, EQ, GT].iter().all(|&c| nonempty(intersect(e, c))))
        });
        match level {
            None => out.push(node.clone()),
            Some(k) => {
                let saved = node[k];
                for c in [LT, EQ, GT] {
                    node[k] = intersect(saved, c);
                    if nonempty(self.eff(node, k)) {
                        self.refine(node, out, budget, cut);
                    }
                }
                node[k] = saved;
            }
        }
    }

    fn vector_of(&self, node: &[Iv]) -> DepVector {
        let mut dirs = Vec::with_capacity(self.common);
        let mut distance = Vec::with_capacity(self.common);
        for k in 0..self.common {
            let e = self.eff(node, k);
            dirs.push(class(e));
            distance.push(point(e).and_then(|v| i64::try_from(v).ok()));
        }
        DepVector { dirs, distance }
    }
}

/// Maximum of `p·x` for `x` in `r` (`None` = +infinity or overflow).
fn interval_max(p: i128, r: Iv) -> Option<i128> {
    match p.cmp(&0) {
        std::cmp::Ordering::Equal => Some(0),
        std::cmp::Ordering::Greater => p.checked_mul(r.1?),
        std::cmp::Ordering::Less => p.checked_mul(r.0?),
    }
}

/// Minimum of `p·x` for `x` in `r` (`None` = -infinity or overflow).
fn interval_min(p: i128, r: Iv) -> Option<i128> {
    interval_max(p.checked_neg()?, r)?.checked_neg()
}

/// Maximum of `p·x + q·y` over `{x ∈ xr, y ∈ yr, y - x ∈ dr}` (assumed
/// nonempty); `None` = unbounded (or overflow).
///
/// The polygon is clipped by a box of half-width `M` that contains a point of
/// every minimal face; the value is then the maximum over the clipped
/// polygon's vertices. Clipping with `2M` gives a larger value iff the
/// function is unbounded.
fn pair_max(p: i128, q: i128, xr: Iv, yr: Iv, dr: Iv) -> Option<i128> {
    if p == 0 && q == 0 {
        return Some(0);
    }
    let big = [xr.0, xr.1, yr.0, yr.1, dr.0, dr.1]
        .iter()
        .flatten()
        .map(|v| v.unsigned_abs())
        .max()
        .unwrap_or(0);
    if big > (1u128 << 100) {
        return None;
    }
    let m = 2 * big as i128 + 4;
    let v1 = poly_max(p, q, xr, yr, dr, m)?;
    let v2 = poly_max(p, q, xr, yr, dr, 2 * m)?;
    if v2 > v1 {
        None
    } else {
        Some(v1)
    }
}

fn pair_min(p: i128, q: i128, xr: Iv, yr: Iv, dr: Iv) -> Option<i128> {
    pair_max(p.checked_neg()?, q.checked_neg()?, xr, yr, dr)?.checked_neg()
}

fn poly_max(p: i128, q: i128, xr: Iv, yr: Iv, dr: Iv, m: i128) -> Option<i128> {
    // Constraints nx·x + ny·y <= r.
    let mut cons: Vec<(i128, i128, i128)> = vec![
        (1, 0, xr.1.unwrap_or(m).min(m)),
        (-1, 0, -(xr.0.unwrap_or(-m).max(-m))),
        (0, 1, yr.1.unwrap_or(m).min(m)),
        (0, -1, -(yr.0.unwrap_or(-m).max(-m))),
    ];
    if let Some(h) = dr.1 {
        cons.push((-1, 1, h));
    }
    if let Some(l) = dr.0 {
        cons.push((1, -1, -l));
    }
    let mut best: Option<i128> = None;
    for u in 0..cons.len() {
        for v in u + 1..cons.len() {
            let (a1, b1, r1) = cons[u];
            let (a2, b2, r2) = cons[v];
            let det = a1 * b2 - b1 * a2;
            if det == 0 {
                continue;
            }
            // det is ±1 for these normals: the vertex is integral.
            let x = (r1 * b2 - r2 * b1) / det;
            let y = (a1 * r2 - a2 * r1) / det;
            if cons.iter().all(|&(nx, ny, r)| nx * x + ny * y <= r) {
                let val = p.checked_mul(x)?.checked_add(q.checked_mul(y)?)?;
                best = Some(best.map_or(val, |b: i128| b.max(val)));
            }
        }
    }
    best
}

// ---------------------------------------------------------------------------
// Exact solver for small constant-bound systems
// ---------------------------------------------------------------------------

/// Enumerates the iteration points of a nest with known bounds.
fn for_each_point(bounds: &[(i128, i128)], mut f: impl FnMut(&[i128]) -> bool) -> bool {
    let mut cur: Vec<i128> = bounds.iter().map(|b| b.0).collect();
    loop {
        if !f(&cur) {
            return false;
        }
        let mut k = bounds.len();
        loop {
            if k == 0 {
                return true;
            }
            k -= 1;
            if cur[k] < bounds[k].1 {
                cur[k] += 1;
                break;
            }
            cur[k] = bounds[k].0;
        }
    }
}

fn space_size(bounds: &[(i128, i128)]) -> Option<u128> {
    bounds.iter().try_fold(1u128, |acc, &(l, u)| {
        let n = u.checked_sub(l)?.checked_add(1)?;
        acc.checked_mul(u128::try_from(n).ok()?)
    })
}

#[derive(Clone, Copy)]
enum DistAcc {
    One(i128),
    Many,
}

/// Exact enumeration; `None` when not applicable (unknown bounds, too large).
fn enumerate(ctx: &Ctx, limit: u128) -> Option<DepResult> {
    if !ctx.all_bounds_known() {
        return None;
    }
    let sb: Vec<(i128, i128)> = ctx
        .src
        .iter()
        .map(|iv| (iv.0.unwrap_or(0), iv.1.unwrap_or(0)))
        .collect();
    let db: Vec<(i128, i128)> = ctx
        .dst
        .iter()
        .map(|iv| (iv.0.unwrap_or(0), iv.1.unwrap_or(0)))
        .collect();
    if space_size(&sb)? > limit || space_size(&db)? > limit {
        return None;
    }
    // Key components: (equation, modulus) with modulus 0 = exact value.
    let keys: Vec<(&Eqn, u128)> = ctx
        .dims
        .iter()
        .filter_map(|x| match x {
            DimInfo::Full(e) => Some((e, 0)),
            DimInfo::Sym(e, g) => Some((e, *g)),
            DimInfo::NoInfo => None,
        })
        .collect();
    let reduce = |v: i128, g: u128| -> Option<i128> {
        if g == 0 {
            Some(v)
        } else {
            // g <= 2^64, so it fits in i128.
            Some(v.rem_euclid(i128::try_from(g).ok()?))
        }
    };
    let common = ctx.common;
    let mut src_map: HashMap<Vec<i128>, BTreeSet<Vec<i128>>> = HashMap::new();
    let ok = for_each_point(&sb, |pt| {
        let mut key = Vec::with_capacity(keys.len());
        for &(e, g) in &keys {
            let mut v = 0i128;
            for (c, x) in e.a.iter().zip(pt) {
                match c.checked_mul(*x).and_then(|t| v.checked_add(t)) {
                    Some(n) => v = n,
                    None => return false,
                }
            }
            match reduce(v, g) {
                Some(v) => key.push(v),
                None => return false,
            }
        }
        src_map
            .entry(key)
            .or_default()
            .insert(pt[..common].to_vec());
        true
    });
    if !ok {
        return None;
    }
    let mut dst_map: HashMap<Vec<i128>, BTreeSet<Vec<i128>>> = HashMap::new();
    let ok = for_each_point(&db, |pt| {
        let mut key = Vec::with_capacity(keys.len());
        for &(e, g) in &keys {
            let mut v = e.c;
            for (c, x) in e.b.iter().zip(pt) {
                match c.checked_mul(*x).and_then(|t| v.checked_add(t)) {
                    Some(n) => v = n,
                    None => return false,
                }
            }
            match reduce(v, g) {
                Some(v) => key.push(v),
                None => return false,
            }
        }
        if src_map.contains_key(&key) {
            dst_map
                .entry(key)
                .or_default()
                .insert(pt[..common].to_vec());
        }
        true
    });
    if !ok {
        return None;
    }
    let mut work = 0u128;
    for (k, ds) in &dst_map {
        let n = src_map.get(k).map_or(0, |s| s.len()) as u128;
        work = work.saturating_add(n.saturating_mul(ds.len() as u128));
    }
    if work > PAIR_BUDGET {
        return None;
    }
    let mut found: BTreeMap<Vec<Dir>, Vec<DistAcc>> = BTreeMap::new();
    for (k, ds) in &dst_map {
        let Some(ss) = src_map.get(k) else { continue };
        for i in ss {
            for j in ds {
                let dirs: Vec<Dir> = (0..common)
                    .map(|l| match i[l].cmp(&j[l]) {
                        std::cmp::Ordering::Less => Dir::Lt,
                        std::cmp::Ordering::Equal => Dir::Eq,
                        std::cmp::Ordering::Greater => Dir::Gt,
                    })
                    .collect();
                let dist: Vec<i128> = (0..common).map(|l| j[l] - i[l]).collect();
                match found.get_mut(&dirs) {
                    None => {
                        found.insert(dirs, dist.into_iter().map(DistAcc::One).collect());
                    }
                    Some(acc) => {
                        for (a, dv) in acc.iter_mut().zip(dist) {
                            if let DistAcc::One(x) = *a {
                                if x != dv {
                                    *a = DistAcc::Many;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    if found.is_empty() {
        return Some(DepResult::Independent);
    }
    let vectors = found
        .into_iter()
        .map(|(dirs, acc)| DepVector {
            dirs,
            distance: acc
                .into_iter()
                .map(|a| match a {
                    DistAcc::One(v) => i64::try_from(v).ok(),
                    DistAcc::Many => None,
                })
                .collect(),
        })
        .collect();
    Some(DepResult::Dependent {
        vectors,
        exact: ctx.all_full,
    })
}

// ---------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------

fn analyze(p: &DepProblem, enum_limit: u128) -> DepResult {
    let ctx = Ctx::new(p);
    if ctx.any_loop_empty() {
        return DepResult::Independent; // one reference never executes
    }
    // The cheap tests first: a proof of independence or an exact answer ends it; only
    // otherwise is a small bounded system enumerated for the exact vectors.
    let cheap = inexact(&ctx);
    match &cheap {
        DepResult::Independent | DepResult::Dependent { exact: true, .. } => cheap,
        DepResult::Dependent { .. } => {
            if enum_limit > 0 {
                if let Some(r) = enumerate(&ctx, enum_limit) {
                    return r;
                }
            }
            cheap
        }
    }
}

fn inexact(ctx: &Ctx) -> DepResult {
    let Ok(known) = ctx.derive_distances() else {
        return DepResult::Independent;
    };
    let mut node: Vec<Iv> = known
        .iter()
        .map(|k| k.map_or(STAR, |v| (Some(v), Some(v))))
        .collect();
    let mut nodes = Vec::new();
    let mut budget = NODE_BUDGET;
    let mut cut = false;
    ctx.refine(&mut node, &mut nodes, &mut budget, &mut cut);
    if nodes.is_empty() {
        return DepResult::Independent;
    }
    let vectors: Vec<DepVector> = nodes.iter().map(|n| ctx.vector_of(n)).collect();
    // Exact when every dimension is a uniform equation whose levels all got a
    // constant distance and every bound is known: each listed vector then
    // combines per-level choices that are independently realizable.
    let exact = !cut
        && ctx.all_full
        && ctx.all_bounds_known()
        && ctx.dims.iter().all(|x| match x {
            DimInfo::Full(e) => {
                ctx.uniform(e) && (0..ctx.common).all(|k| e.a[k] == 0 || known[k].is_some())
            }
            _ => false,
        });
    DepResult::Dependent { vectors, exact }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn aff(coeffs: &[i64], c: i64) -> Subscript {
        Subscript::Affine(Affine::new(coeffs.to_vec(), c))
    }

    fn vecs(r: &DepResult) -> Vec<(Vec<Dir>, Vec<Option<i64>>)> {
        let mut v: Vec<_> = r
            .vectors()
            .iter()
            .map(|v| (v.dirs.clone(), v.distance.clone()))
            .collect();
        v.sort();
        v
    }

    fn run(
        src: &[Subscript],
        dst: &[Subscript],
        sl: &[LoopRange],
        dl: &[LoopRange],
        common: usize,
    ) -> DepResult {
        test(&DepProblem {
            src,
            dst,
            src_loops: sl,
            dst_loops: dl,
            common,
        })
    }

    fn run_inexact(
        src: &[Subscript],
        dst: &[Subscript],
        sl: &[LoopRange],
        dl: &[LoopRange],
        common: usize,
    ) -> DepResult {
        analyze(
            &DepProblem {
                src,
                dst,
                src_loops: sl,
                dst_loops: dl,
                common,
            },
            0,
        )
    }

    fn is_exact(r: &DepResult) -> bool {
        matches!(r, DepResult::Dependent { exact: true, .. })
    }

    use Dir::{Eq as E, Gt as G, Lt as L, Star as S};

    /// Jacobi-like: DO J=2,99; DO I=2,99: write A(I,J), read A(I-1,J).
    /// Nest is (J outer, I inner); src = write A(I,J), dst = read A(I-1,J).
    /// Write at (j,i) = read at (j', i') iff i = i'-1, j = j': the read happens
    /// one I-iteration later: vector (=,<), distance (0,1), carried by I.
    #[test]
    fn jacobi_stencil() {
        let w = [aff(&[0, 1], 0), aff(&[1, 0], 0)];
        let r = [aff(&[0, 1], -1), aff(&[1, 0], 0)];
        let lp = [LoopRange::new(2, 99), LoopRange::new(2, 99)];
        let expect = vec![(vec![E, L], vec![Some(0), Some(1)])];
        for res in [run(&w, &r, &lp, &lp, 2), run_inexact(&w, &r, &lp, &lp, 2)] {
            assert_eq!(vecs(&res), expect);
            assert!(is_exact(&res));
            assert!(!loop_carried_at(res.vectors(), 0));
            assert!(loop_carried_at(res.vectors(), 1));
        }
        // Unknown bounds: same vector, but not claimed exact.
        let ul = [
            LoopRange::unknown(),
            LoopRange {
                lower: Some(2),
                upper: None,
            },
        ];
        let res = run(&w, &r, &ul, &ul, 2);
        assert_eq!(vecs(&res), expect);
        assert!(!is_exact(&res));
        // Reversed roles (read as src): anti direction (=,>), distance (0,-1).
        let res = run(&r, &w, &lp, &lp, 2);
        assert_eq!(vecs(&res), vec![(vec![E, G], vec![Some(0), Some(-1)])]);
        assert!(loop_carried_at(res.vectors(), 1));
        // One-iteration inner loop: distance 1 impossible.
        let one = [LoopRange::new(2, 99), LoopRange::new(5, 5)];
        assert!(run(&w, &r, &one, &one, 2).is_independent());
        assert!(run_inexact(&w, &r, &one, &one, 2).is_independent());
    }

    #[test]
    fn strong_siv_distance_and_range() {
        // A(I+1) written, A(I) read: distance 1, Lt.
        let lp = [LoopRange::new(1, 1000)];
        let res = run(&[aff(&[1], 1)], &[aff(&[1], 0)], &lp, &lp, 1);
        assert_eq!(vecs(&res), vec![(vec![L], vec![Some(1)])]);
        assert!(is_exact(&res));
        // Distance 10 in a loop of 5 iterations: independent.
        let lp = [LoopRange::new(1, 5)];
        assert!(run_inexact(&[aff(&[1], 10)], &[aff(&[1], 0)], &lp, &lp, 1).is_independent());
        assert!(run(&[aff(&[1], 10)], &[aff(&[1], 0)], &lp, &lp, 1).is_independent());
        // Non-integer distance: A(2I) vs A(2I+3)... also GCD.
        assert!(run_inexact(
            &[aff(&[2], 0)],
            &[aff(&[2], 3)],
            &[LoopRange::unknown()],
            &[LoopRange::unknown()],
            1
        )
        .is_independent());
    }

    #[test]
    fn symbolic_offset() {
        // A(I) = A(I+N): nothing known about N, all directions possible.
        let un = [LoopRange::unknown()];
        let src = [aff(&[1], 0)];
        let dst = [Subscript::Affine(Affine::new(vec![1], 0).with_sym("N", 1))];
        for res in [
            run(&src, &dst, &un, &un, 1),
            run(
                &src,
                &dst,
                &[LoopRange::new(1, 10)],
                &[LoopRange::new(1, 10)],
                1,
            ),
        ] {
            assert!(!res.is_independent());
            assert!(!is_exact(&res));
            for d in [L, E, G] {
                assert!(
                    res.vectors().iter().any(|v| v.dirs[0].covers(d)),
                    "{d:?} missing in {res:?}"
                );
            }
        }
        // A(I+N) vs A(I+N+1): symbols cancel, distance -1 (dst reads earlier).
        let s2 = [Subscript::Affine(Affine::new(vec![1], 0).with_sym("N", 1))];
        let d2 = [Subscript::Affine(Affine::new(vec![1], 1).with_sym("N", 1))];
        let lp = [LoopRange::new(1, 10)];
        let res = run(&s2, &d2, &lp, &lp, 1);
        assert_eq!(vecs(&res), vec![(vec![G], vec![Some(-1)])]);
        assert!(is_exact(&res));
        // A(2I) vs A(2I+2N+1): parity differs for every N -> GCD proves independence.
        let s3 = [aff(&[2], 0)];
        let d3 = [Subscript::Affine(Affine::new(vec![2], 1).with_sym("N", 2))];
        assert!(run(&s3, &d3, &un, &un, 1).is_independent());
        assert!(run(&s3, &d3, &lp, &lp, 1).is_independent());
    }

    #[test]
    fn gcd_independence() {
        // A(2*I) vs A(2*I+1), and A(2*I) vs A(4*J+1) in different loops.
        for lp in [
            [LoopRange::unknown()],
            [LoopRange::new(1, 100_000)],
            [LoopRange::new(0, 10)],
        ] {
            assert!(run(&[aff(&[2], 0)], &[aff(&[2], 1)], &lp, &lp, 1).is_independent());
            assert!(run(&[aff(&[2], 0)], &[aff(&[4], 1)], &lp, &lp, 0).is_independent());
        }
        // ZIV: A(3) vs A(4).
        assert!(run(
            &[aff(&[0], 3)],
            &[aff(&[0], 4)],
            &[LoopRange::unknown()],
            &[LoopRange::unknown()],
            1
        )
        .is_independent());
        // Sanity: A(2*I) vs A(2*I+2) is dependent.
        let un = [LoopRange::unknown()];
        assert!(!run(&[aff(&[2], 0)], &[aff(&[2], 2)], &un, &un, 1).is_independent());
    }

    /// DO I=1,N; DO J=I+1,N: write A(I,J), read A(J,I). The J loop's bounds
    /// are unknown after normalization, so nothing may be proven independent
    /// (the test does not know J > I).
    #[test]
    fn triangular_unknown_bounds_conservative() {
        let sl = [
            LoopRange {
                lower: Some(1),
                upper: None,
            },
            LoopRange::unknown(),
        ];
        let src = [aff(&[1, 0], 0), aff(&[0, 1], 0)];
        let dst = [aff(&[0, 1], 0), aff(&[1, 0], 0)];
        let res = run(&src, &dst, &sl, &sl, 2);
        assert!(!res.is_independent());
        assert!(!is_exact(&res));
        // The transposed pairs with i1 = j2, i2 = j1 (e.g. i=(1,5), j=(5,1)).
        assert!(res
            .vectors()
            .iter()
            .any(|v| v.dirs[0].covers(L) && v.dirs[1].covers(G)));
        // Strided inner loop with unknown bounds: A(J) vs A(J-1).
        let res = run(&[aff(&[0, 1], 0)], &[aff(&[0, 1], -1)], &sl, &sl, 2);
        assert!(!res.is_independent());
        // The I level is unconstrained (Star); J has distance exactly 1.
        assert!(res
            .vectors()
            .iter()
            .all(|v| v.dirs[1] == L && v.distance[1] == Some(1)));
        assert!(res.vectors().iter().any(|v| v.dirs[0].covers(E)));
        assert!(loop_carried_at(res.vectors(), 0));
        assert!(loop_carried_at(res.vectors(), 1));
    }

    /// DO I; DO J: A(I,J) = A(J,I). i = (i1,i2), j = (j1,j2) with
    /// i1 = j2, i2 = j1: i1 < j1 <=> i2 > j2, hence (<,>), (=,=), (>,<).
    #[test]
    fn transposition() {
        let src = [aff(&[1, 0], 0), aff(&[0, 1], 0)];
        let dst = [aff(&[0, 1], 0), aff(&[1, 0], 0)];
        let expect = vec![
            (vec![L, G], vec![None, None]),
            (vec![E, E], vec![Some(0), Some(0)]),
            (vec![G, L], vec![None, None]),
        ];
        let small = [LoopRange::new(1, 10), LoopRange::new(1, 10)];
        let res = run(&src, &dst, &small, &small, 2);
        assert_eq!(vecs(&res), expect);
        assert!(is_exact(&res));
        // Large and unknown bounds: the coupled subscripts are still resolved
        // through the combined equation (i1-j1)+(i2-j2) = 0.
        for lp in [
            [LoopRange::new(1, 1000), LoopRange::new(1, 1000)],
            [LoopRange::unknown(), LoopRange::unknown()],
        ] {
            let res = run(&src, &dst, &lp, &lp, 2);
            assert_eq!(vecs(&res), expect);
            assert!(!is_exact(&res));
            assert!(loop_carried_at(res.vectors(), 0));
            assert!(!loop_carried_at(res.vectors(), 1));
        }
    }

    #[test]
    fn coupled_siv_conflict() {
        // A(I,I) vs A(I+1,I+2): distances 1 and 2 at the same level conflict.
        let un = [LoopRange::unknown()];
        assert!(run(
            &[aff(&[1], 1), aff(&[1], 2)],
            &[aff(&[1], 0), aff(&[1], 0)],
            &un,
            &un,
            1
        )
        .is_independent());
        // A(I+J, J) vs A(I+J+1, J): distances (-1, 0)... derived through J.
        let un2 = [LoopRange::unknown(), LoopRange::unknown()];
        let res = run(
            &[aff(&[1, 1], 0), aff(&[0, 1], 0)],
            &[aff(&[1, 1], 1), aff(&[0, 1], 0)],
            &un2,
            &un2,
            2,
        );
        assert_eq!(vecs(&res), vec![(vec![G, E], vec![Some(-1), Some(0)])]);
    }

    #[test]
    fn unknown_subscript_and_unused_levels() {
        // A(IDX(I)) vs A(I): no information; every direction possible.
        let un = [LoopRange::unknown()];
        let res = run(&[Subscript::Unknown], &[aff(&[1], 0)], &un, &un, 1);
        assert_eq!(vecs(&res), vec![(vec![S], vec![None])]);
        assert!(!is_exact(&res));
        assert!(loop_carried_at(res.vectors(), 0));
        // A(J) vs A(J) in (I, J) nest with large bounds: I unconstrained -> Star.
        let lp = [LoopRange::new(1, 1000), LoopRange::new(1, 1000)];
        let res = run(&[aff(&[0, 1], 0)], &[aff(&[0, 1], 0)], &lp, &lp, 2);
        assert_eq!(vecs(&res), vec![(vec![S, E], vec![None, Some(0)])]);
        assert!(is_exact(&res));
        assert!(loop_carried_at(res.vectors(), 0));
        assert!(!loop_carried_at(res.vectors(), 1));
        // Empty loop: never executes.
        let empty = [LoopRange::new(5, 4)];
        assert!(run(&[aff(&[1], 0)], &[aff(&[1], 0)], &empty, &empty, 1).is_independent());
    }

    #[test]
    fn loop_carried_helper() {
        let v = |d: Vec<Dir>| DepVector {
            distance: vec![None; d.len()],
            dirs: d,
        };
        assert!(!loop_carried_at(&[v(vec![L, G])], 1));
        assert!(loop_carried_at(&[v(vec![L, G])], 0));
        assert!(loop_carried_at(&[v(vec![E, G])], 1));
        assert!(loop_carried_at(&[v(vec![S, L])], 1));
        assert!(!loop_carried_at(&[v(vec![E, E])], 0));
        assert!(!loop_carried_at(&[v(vec![E, E])], 2));
        assert!(!loop_carried_at(&[], 0));
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let big = [
            aff(&[i64::MAX, i64::MIN], i64::MIN),
            Subscript::Affine(Affine::new(vec![i64::MIN], i64::MAX).with_sym("N", i64::MIN)),
        ];
        let big2 = [
            aff(&[i64::MIN, i64::MAX], i64::MAX),
            aff(&[i64::MAX, 1, 7], -1),
        ];
        let loops = [
            [LoopRange::new(i64::MIN, i64::MAX), LoopRange::unknown()],
            [
                LoopRange {
                    lower: Some(i64::MAX - 1),
                    upper: None,
                },
                LoopRange::new(i64::MIN, i64::MIN + 3),
            ],
        ];
        for sl in &loops {
            for dl in &loops {
                for common in 0..4 {
                    let r = run(&big, &big2, sl, dl, common);
                    let _ = run_inexact(&big, &big2, sl, dl, common);
                    // x·MAX + ... with unbounded loops: nothing can be proven here.
                    if sl[1] == LoopRange::unknown() && dl[1] == LoopRange::unknown() {
                        assert!(!r.is_independent());
                    }
                }
            }
        }
        // Mismatched ranks and coefficient lists must not panic either.
        // (The extra coefficients make dimension 1 uninformative.)
        let r = run(
            &[aff(&[1, 2, 3], 0)],
            &[aff(&[], 0), aff(&[1], 0)],
            &[LoopRange::new(0, 3)],
            &[],
            5,
        );
        assert_eq!(vecs(&r), vec![(vec![], vec![])]);
    }

    // ---------------- property tests against brute force ----------------

    #[derive(Clone, Debug)]
    struct Case {
        src: Vec<Subscript>,
        dst: Vec<Subscript>,
        sl: Vec<LoopRange>,
        dl: Vec<LoopRange>,
        common: usize,
    }

    /// dirs -> set of distance tuples of all brute-force solutions.
    type Brute = BTreeMap<Vec<Dir>, BTreeSet<Vec<i64>>>;

    fn eval(s: &Subscript, it: &[i64], n: i64) -> Option<i64> {
        match s {
            Subscript::Unknown => None,
            Subscript::Affine(a) => Some(
                a.coeffs.iter().zip(it).map(|(c, x)| c * x).sum::<i64>()
                    + a.syms.values().map(|c| c * n).sum::<i64>()
                    + a.constant,
            ),
        }
    }

    fn points(b: &[(i64, i64)]) -> Vec<Vec<i64>> {
        let mut out = vec![vec![]];
        for &(l, u) in b {
            out = out
                .into_iter()
                .flat_map(|p| {
                    (l..=u).map(move |x| {
                        let mut q = p.clone();
                        q.push(x);
                        q
                    })
                })
                .collect();
        }
        out
    }

    fn brute(c: &Case, sb: &[(i64, i64)], db: &[(i64, i64)], syms: &[i64]) -> Brute {
        let mut out = Brute::new();
        let (ps, pd) = (points(sb), points(db));
        for &n in syms {
            for i in &ps {
                for j in &pd {
                    let all = c.src.iter().zip(&c.dst).all(|(x, y)| {
                        match (eval(x, i, n), eval(y, j, n)) {
                            (Some(a), Some(b)) => a == b,
                            _ => true,
                        }
                    });
                    if all {
                        let dirs = (0..c.common)
                            .map(|k| match i[k].cmp(&j[k]) {
                                std::cmp::Ordering::Less => L,
                                std::cmp::Ordering::Equal => E,
                                std::cmp::Ordering::Greater => G,
                            })
                            .collect();
                        let dist = (0..c.common).map(|k| j[k] - i[k]).collect();
                        out.entry(dirs).or_default().insert(dist);
                    }
                }
            }
        }
        out
    }

    fn covers(v: &DepVector, dirs: &[Dir], dist: &[i64]) -> bool {
        v.dirs.len() == dirs.len()
            && v.dirs.iter().zip(dirs).all(|(a, b)| a.covers(*b))
            && v.distance
                .iter()
                .zip(dist)
                .all(|(a, b)| a.is_none_or(|x| x == *b))
    }

    /// Checks soundness (and exactness claims when `check_exact`).
    fn check(res: &DepResult, bf: &Brute, check_exact: bool) -> Result<(), TestCaseError> {
        match res {
            DepResult::Independent => prop_assert!(bf.is_empty(), "false independence: {:?}", bf),
            DepResult::Dependent { vectors, exact } => {
                for (dirs, dists) in bf {
                    for dist in dists {
                        prop_assert!(
                            vectors.iter().any(|v| covers(v, dirs, dist)),
                            "solution {:?} {:?} not covered by {:?}",
                            dirs,
                            dist,
                            vectors
                        );
                    }
                }
                if *exact && check_exact {
                    for v in vectors {
                        let sols: Vec<&Vec<i64>> = bf
                            .iter()
                            .filter(|(d, _)| v.dirs.iter().zip(d.iter()).all(|(a, b)| a.covers(*b)))
                            .flat_map(|(_, s)| s.iter())
                            .collect();
                        prop_assert!(!sols.is_empty(), "exact vector {:?} has no solution", v);
                        for (k, dk) in v.distance.iter().enumerate() {
                            let distinct: BTreeSet<i64> = sols.iter().map(|s| s[k]).collect();
                            match dk {
                                Some(x) => prop_assert!(
                                    distinct.len() == 1 && distinct.contains(x),
                                    "distance {:?} vs {:?}",
                                    v,
                                    distinct
                                ),
                                None => prop_assert!(
                                    distinct.len() > 1,
                                    "exact None distance but constant: {:?} {:?}",
                                    v,
                                    distinct
                                ),
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn sub_strategy(n: usize, unknown_ok: bool) -> BoxedStrategy<Subscript> {
        let affine = (proptest::collection::vec(-2i64..=2, n), -3i64..=3)
            .prop_map(|(c, k)| Subscript::Affine(Affine::new(c, k)));
        if unknown_ok {
            prop_oneof![12 => affine, 1 => Just(Subscript::Unknown)].boxed()
        } else {
            affine.boxed()
        }
    }

    /// Nests of 1-2 levels, 1-2 dims; `bound` generates one loop range.
    fn case_strategy(
        bound: BoxedStrategy<LoopRange>,
        unknown_ok: bool,
    ) -> impl Strategy<Value = Case> {
        (1usize..=2, 1usize..=2, 1usize..=2)
            .prop_flat_map(move |(s, d, dims)| {
                let bound = bound.clone();
                (
                    Just(s),
                    Just(d),
                    0..=s.min(d),
                    proptest::collection::vec(bound.clone(), s),
                    proptest::collection::vec(bound, d),
                    proptest::collection::vec(sub_strategy(s, unknown_ok), dims),
                    proptest::collection::vec(sub_strategy(d, unknown_ok), dims),
                    0u8..4,
                )
            })
            .prop_map(|(_, _, common, sl, mut dl, src, dst, same)| {
                // Common loops are the same loop (mostly: differing bounds are
                // still well defined and exercise the asymmetric code paths).
                if same != 0 {
                    dl[..common].copy_from_slice(&sl[..common]);
                }
                Case {
                    src,
                    dst,
                    sl,
                    dl,
                    common,
                }
            })
    }

    fn small_bound() -> BoxedStrategy<LoopRange> {
        // Bounds within 0..6; occasionally empty.
        prop_oneof![
            15 => (0i64..=5, 0i64..=5).prop_map(|(l, u)| LoopRange::new(l.min(u), l.max(u))),
            1 => (1i64..=5).prop_map(|l| LoopRange::new(l, l - 1)),
        ]
        .boxed()
    }

    fn open_bound() -> BoxedStrategy<LoopRange> {
        let side = prop_oneof![Just(None), (-3i64..=3).prop_map(Some)];
        (side.clone(), side)
            .prop_map(|(lower, upper)| match (lower, upper) {
                (Some(l), Some(u)) if l > u => LoopRange::new(u, l),
                _ => LoopRange { lower, upper },
            })
            .boxed()
    }

    fn problem(c: &Case) -> DepProblem<'_> {
        DepProblem {
            src: &c.src,
            dst: &c.dst,
            src_loops: &c.sl,
            dst_loops: &c.dl,
            common: c.common,
        }
    }

    fn boxed(l: &[LoopRange]) -> Vec<(i64, i64)> {
        l.iter()
            .map(|r| (r.lower.unwrap_or(-10), r.upper.unwrap_or(10)))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

        /// Constant small bounds: exact solver and inexact tests against brute force.
        #[test]
        fn prop_constant_bounds(c in case_strategy(small_bound(), true)) {
            let bf = brute(&c, &boxed(&c.sl), &boxed(&c.dl), &[0]);
            let exact_res = test(&problem(&c));
            check(&exact_res, &bf, true)?;
            // With all-affine subscripts the enumeration result is exact.
            if c.src.iter().chain(&c.dst).all(|s| matches!(s, Subscript::Affine(_))) {
                prop_assert!(exact_res.is_independent() || is_exact(&exact_res));
            }
            check(&analyze(&problem(&c), 0), &bf, true)?;
        }

        /// Unknown bounds: soundness on the finite box -10..10.
        #[test]
        fn prop_unknown_bounds(c in case_strategy(open_bound(), true)) {
            let bf = brute(&c, &boxed(&c.sl), &boxed(&c.dl), &[0]);
            check(&test(&problem(&c)), &bf, false)?;
            check(&analyze(&problem(&c), 0), &bf, false)?;
            // Exactness claims only hold under known bounds.
            prop_assert!(!is_exact(&test(&problem(&c))) || c.sl.iter().chain(&c.dl).all(|r| r.lower.is_some() && r.upper.is_some()));
        }

        /// A symbol N with a random coefficient on either side: soundness
        /// against brute force over N in -8..=8.
        #[test]
        fn prop_symbolic(c in case_strategy(small_bound(), false), ks in -2i64..=2, kd in -2i64..=2, dim in 0usize..2) {
            let mut c = c;
            let dim = dim % c.src.len();
            if let Subscript::Affine(a) = &mut c.src[dim] { a.syms.insert("N".into(), ks); }
            if let Subscript::Affine(a) = &mut c.dst[dim] { a.syms.insert("N".into(), kd); }
            let syms: Vec<i64> = (-8..=8).collect();
            let bf = brute(&c, &boxed(&c.sl), &boxed(&c.dl), &syms);
            check(&test(&problem(&c)), &bf, ks == kd)?;
            check(&analyze(&problem(&c), 0), &bf, ks == kd)?;
        }

        /// Larger constant bounds (beyond the enumeration limit for 2-level
        /// nests) with only the inexact path; still sound.
        #[test]
        fn prop_inexact_wider(c in case_strategy((-20i64..=20, 0i64..=14).prop_map(|(l, n)| LoopRange::new(l, l + n)).boxed(), false)) {
            let bf = brute(&c, &boxed(&c.sl), &boxed(&c.dl), &[0]);
            check(&analyze(&problem(&c), 0), &bf, true)?;
        }
    }
}
