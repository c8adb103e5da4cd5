//! Linear (affine) forms of integer expressions over named variables, with PARAMETERs folded:
//! `2*I + J - 1` becomes {i: 2, j: 1} + (-1). Used for subscripts and loop bounds.

use crate::ast::{BinOp, Expr, UnOp};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lin {
    pub terms: BTreeMap<String, i64>,
    pub constant: i64,
}

impl Lin {
    pub fn constant(c: i64) -> Self {
        Lin {
            terms: BTreeMap::new(),
            constant: c,
        }
    }
    pub fn var(n: &str) -> Self {
        let mut terms = BTreeMap::new();
        terms.insert(n.to_string(), 1);
        Lin { terms, constant: 0 }
    }
    pub fn as_const(&self) -> Option<i64> {
        if self.terms.is_empty() {
            Some(self.constant)
        } else {
            None
        }
    }
    /// Whether `self >= 0` and `other >= 0` cannot both hold: their sum is a negative
    /// constant (`GP - 4 >= 0` against `2 - GP >= 0`).
    pub fn contradicts(&self, other: &Lin) -> bool {
        self.add(other, 1).and_then(|s| s.as_const()).is_some_and(|c| c < 0)
    }
    pub fn coeff(&self, v: &str) -> i64 {
        self.terms.get(v).copied().unwrap_or(0)
    }
    pub fn add(&self, o: &Lin, sign: i64) -> Option<Lin> {
        let mut r = self.clone();
        for (k, v) in &o.terms {
            let e = r.terms.entry(k.clone()).or_insert(0);
            *e = e.checked_add(v.checked_mul(sign)?)?;
        }
        r.terms.retain(|_, v| *v != 0);
        r.constant = r.constant.checked_add(o.constant.checked_mul(sign)?)?;
        Some(r)
    }
    pub fn scale(&self, k: i64) -> Option<Lin> {
        let mut r = Lin::constant(self.constant.checked_mul(k)?);
        if k != 0 {
            for (n, v) in &self.terms {
                r.terms.insert(n.clone(), v.checked_mul(k)?);
            }
        }
        Some(r)
    }
    /// Replace variable `v` by a linear form.
    pub fn substitute(&self, v: &str, by: &Lin) -> Option<Lin> {
        let c = self.coeff(v);
        if c == 0 {
            return Some(self.clone());
        }
        let mut base = self.clone();
        base.terms.remove(v);
        base.add(&by.scale(c)?, 1)
    }
    pub fn vars(&self) -> impl Iterator<Item = &String> {
        self.terms.keys()
    }
}

/// Linear form of an integer expression; `constant_of` folds named constants.
pub fn linearize(e: &Expr, constant_of: &dyn Fn(&str) -> Option<i64>) -> Option<Lin> {
    linearize_with(e, constant_of, &|_| None)
}

/// Like [`linearize`], but a part that is not linear (an array element `G(1)`, a product of
/// names) becomes one variable of its own when `opaque` names it: `G(1) - 3` is
/// {"G(1)": 1} + (-3). The caller vouches that the part keeps its value wherever the form
/// is used.
pub fn linearize_with(
    e: &Expr,
    constant_of: &dyn Fn(&str) -> Option<i64>,
    opaque: &dyn Fn(&Expr) -> Option<String>,
) -> Option<Lin> {
    linear_part(e, constant_of, opaque).or_else(|| opaque(e).map(|n| Lin::var(&n)))
}

fn linear_part(
    e: &Expr,
    constant_of: &dyn Fn(&str) -> Option<i64>,
    opaque: &dyn Fn(&Expr) -> Option<String>,
) -> Option<Lin> {
    let linearize = |e: &Expr, c: &dyn Fn(&str) -> Option<i64>| linearize_with(e, c, opaque);
    match e {
        Expr::Int(i) => Some(Lin::constant(*i)),
        Expr::Var(n) => Some(match constant_of(n) {
            Some(c) => Lin::constant(c),
            None => Lin::var(n),
        }),
        Expr::Unary(UnOp::Neg, x) => linearize(x, constant_of)?.scale(-1),
        Expr::Unary(UnOp::Plus, x) => linearize(x, constant_of),
        Expr::Binary(op, a, b) => {
            let (la, lb) = (linearize(a, constant_of)?, linearize(b, constant_of)?);
            match op {
                BinOp::Add => la.add(&lb, 1),
                BinOp::Sub => la.add(&lb, -1),
                BinOp::Mul => match (la.as_const(), lb.as_const()) {
                    (Some(k), _) => lb.scale(k),
                    (_, Some(k)) => la.scale(k),
                    _ => None,
                },
                BinOp::Div => match (la.as_const(), lb.as_const()) {
                    (Some(x), Some(y)) if y != 0 => Some(Lin::constant(x / y)),
                    _ => None,
                },
                BinOp::Pow => match (la.as_const(), lb.as_const()) {
                    (Some(x), Some(y)) if (0..63).contains(&y) => {
                        x.checked_pow(y as u32).map(Lin::constant)
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// A subscript of a one-dimensional array laid out by hand as a matrix or a higher array,
/// with leading extents that are variables (NPB FT's `PLANE(J-BLS+1+BLKP*(I-1))`, its
/// `XOUT(J+(N1+1)*(K-1+N2*I))`, the classic `A(I+LDA*(J-1))`): the parts `f0, f1, ..., fk`
/// and strides `S1, ..., Sk` of `f0 + S1*(f1 + S2*(... + Sk*fk))`, each part linear and each
/// stride a linear form over names `stride_ok` accepts. Where S1 is one name, the multiples
/// of it left in f0 go to f1 (`J + LD*I - LD` is `J + LD*(I-1)`). None where the expression is
/// linear, or of another shape (two strides at one level, a product of two varying parts).
pub fn split_strides(
    e: &Expr,
    constant_of: &dyn Fn(&str) -> Option<i64>,
    stride_ok: &dyn Fn(&str) -> bool,
) -> Option<(Vec<Lin>, Vec<Lin>)> {
    fn flatten<'e>(e: &'e Expr, sign: i64, out: &mut Vec<(i64, &'e Expr)>) {
        match e {
            Expr::Binary(BinOp::Add, a, b) => {
                flatten(a, sign, out);
                flatten(b, sign, out);
            }
            Expr::Binary(BinOp::Sub, a, b) => {
                flatten(a, sign, out);
                flatten(b, -sign, out);
            }
            Expr::Unary(UnOp::Neg, x) => flatten(x, -sign, out),
            Expr::Unary(UnOp::Plus, x) => flatten(x, sign, out),
            _ => out.push((sign, e)),
        }
    }
    let mut terms = vec![];
    flatten(e, 1, &mut terms);
    let invariant = |x: &Expr| linearize(x, constant_of).filter(|l| !l.terms.is_empty() && l.terms.keys().all(|v| stride_ok(v)));
    let mut f = Lin::constant(0);
    let mut stride: Option<Lin> = None;
    let mut inner: Option<Expr> = None;
    for (sign, t) in terms {
        if let Some(l) = linearize(t, constant_of) {
            f = f.add(&l, sign)?;
            continue;
        }
        let Expr::Binary(BinOp::Mul, a, b) = t else { return None };
        let (s, rest) = match (invariant(a), invariant(b)) {
            (Some(s), _) => (s, b),
            (None, Some(s)) => (s, a),
            _ => return None,
        };
        if *stride.get_or_insert_with(|| s.clone()) != s {
            return None;
        }
        let rest = if sign < 0 { Expr::Unary(UnOp::Neg, rest.clone()) } else { (**rest).clone() };
        inner = Some(match inner {
            None => rest,
            Some(x) => Expr::Binary(BinOp::Add, Box::new(x), Box::new(rest)),
        });
    }
    let (s, inner) = (stride?, inner?);
    let (mut parts, mut strides) = match linearize(&inner, constant_of) {
        Some(g) => (vec![g], vec![]),
        None => split_strides(&inner, constant_of, stride_ok)?,
    };
    // (a stride that is one name: its multiples in f0 belong to f1)
    let (f, k) = take_multiples(&f, &s)?;
    parts[0] = parts[0].add(&Lin::constant(k), 1)?;
    parts.insert(0, f);
    strides.insert(0, s);
    Some((parts, strides))
}

/// `f` without the multiples of stride `s` where `s` is one name (`LD`, not `N1 + 1`), and how
/// many there were (0 otherwise).
fn take_multiples(f: &Lin, s: &Lin) -> Option<(Lin, i64)> {
    match s.terms.iter().next() {
        Some((v, 1)) if s.constant == 0 && s.terms.len() == 1 => {
            let k = f.coeff(v);
            Some((f.add(&Lin::var(v).scale(k)?, -1)?, k))
        }
        _ => Some((f.clone(), 0)),
    }
}

/// A linear subscript of a vector laid out as a matrix with these strides (`split_strides`),
/// as its parts: the first part, less the multiples of a first stride that is one name
/// (which make the second part), the others 0 (`W(I-IB+1)` and `W(I-IB+1+LD)` next to
/// `W(I-IB+1+LD*(K-1))`).
pub fn linear_parts(l: &Lin, strides: &[Lin]) -> Option<Vec<Lin>> {
    let (f, k) = take_multiples(l, strides.first()?)?;
    let mut parts: Vec<Lin> = std::iter::once(f).chain(strides.iter().map(|_| Lin::constant(0))).collect();
    parts[1] = Lin::constant(k);
    Some(parts)
}

impl Lin {
    /// The form as an expression (`2*I + J - 1`); its names are plain variables.
    pub fn to_expr(&self) -> Expr {
        let bin = |o: BinOp, x: Expr, y: Expr| Expr::Binary(o, Box::new(x), Box::new(y));
        let mut out: Option<Expr> = None;
        for (v, &k) in &self.terms {
            let term = match k.abs() {
                1 => Expr::Var(v.clone()),
                a => bin(BinOp::Mul, Expr::Int(a), Expr::Var(v.clone())),
            };
            out = Some(match out {
                None if k < 0 => Expr::Unary(UnOp::Neg, Box::new(term)),
                None => term,
                Some(x) => bin(if k < 0 { BinOp::Sub } else { BinOp::Add }, x, term),
            });
        }
        match out {
            None => Expr::Int(self.constant),
            Some(x) if self.constant == 0 => x,
            Some(x) => bin(if self.constant < 0 { BinOp::Sub } else { BinOp::Add }, x, Expr::Int(self.constant.abs())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn folds_and_combines() {
        let e = Expr::Binary(
            BinOp::Sub,
            Box::new(Expr::Binary(
                BinOp::Mul,
                Box::new(Expr::Int(2)),
                Box::new(Expr::Var("i".into())),
            )),
            Box::new(Expr::Binary(
                BinOp::Sub,
                Box::new(Expr::Var("n".into())),
                Box::new(Expr::Var("j".into())),
            )),
        );
        let l = linearize(&e, &|n| if n == "n" { Some(10) } else { None }).unwrap();
        assert_eq!(l.coeff("i"), 2);
        assert_eq!(l.coeff("j"), 1);
        assert_eq!(l.constant, -10);
        let nonlin = Expr::Binary(
            BinOp::Mul,
            Box::new(Expr::Var("i".into())),
            Box::new(Expr::Var("j".into())),
        );
        assert!(linearize(&nonlin, &|_| None).is_none());
    }

    #[test]
    fn splits_a_hand_laid_matrix_subscript() {
        // J - JB + 1 + LD*(I - 1)
        let v = |n: &str| Box::new(Expr::Var(n.into()));
        let int = |k: i64| Box::new(Expr::Int(k));
        let b = |o, x, y| Box::new(Expr::Binary(o, x, y));
        let e = Expr::Binary(BinOp::Add, b(BinOp::Add, b(BinOp::Sub, v("j"), v("jb")), int(1)), b(BinOp::Mul, v("ld"), b(BinOp::Sub, v("i"), int(1))));
        let (parts, strides) = split_strides(&e, &|_| None, &|n| n == "ld").unwrap();
        assert_eq!(strides, vec![Lin::var("ld")]);
        assert_eq!((parts[0].coeff("j"), parts[0].coeff("jb"), parts[0].constant), (1, -1, 1));
        assert_eq!((parts[1].coeff("i"), parts[1].constant), (1, -1));
        assert_eq!(parts[0].to_expr(), *b(BinOp::Add, b(BinOp::Sub, v("j"), v("jb")), int(1)));
        // J + LD*I - LD: the multiple of LD left outside goes inside
        let e2 = Expr::Binary(BinOp::Sub, b(BinOp::Add, v("j"), b(BinOp::Mul, v("ld"), v("i"))), v("ld"));
        let (parts, _) = split_strides(&e2, &|_| None, &|n| n == "ld").unwrap();
        assert_eq!((parts[0].coeff("ld"), parts[1].coeff("i"), parts[1].constant), (0, 1, -1));
        // two levels: J + (N1+1)*(K-1+N2*I)
        let e3 = Expr::Binary(
            BinOp::Add,
            v("j"),
            b(BinOp::Mul, b(BinOp::Add, v("n1"), int(1)), b(BinOp::Add, b(BinOp::Sub, v("k"), int(1)), b(BinOp::Mul, v("n2"), v("i")))),
        );
        let (parts, strides) = split_strides(&e3, &|_| None, &|n| n.starts_with('n')).unwrap();
        assert_eq!(strides, vec![Lin::var("n1").add(&Lin::constant(1), 1).unwrap(), Lin::var("n2")]);
        assert_eq!((parts[0].coeff("j"), parts[1].coeff("k"), parts[1].constant, parts[2].coeff("i")), (1, 1, -1, 1));
        // a stride the caller does not accept, a linear subscript, a product of two varying
        // parts: no split
        assert!(split_strides(&e, &|_| None, &|n| n == "j").is_none());
        assert!(split_strides(&Expr::Binary(BinOp::Add, v("i"), v("ld")), &|_| None, &|_| true).is_none());
        assert!(split_strides(&Expr::Binary(BinOp::Mul, v("i"), v("j")), &|_| None, &|n| n == "ld").is_none());
    }
}
