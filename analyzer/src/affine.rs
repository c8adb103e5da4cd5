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
}
