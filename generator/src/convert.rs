//! Scheme items turned into the analyzer's structured directives ([`DirectiveKind`]), so that
//! the text we print is the canonical text the front end reads back.

use crate::GenError;
use analyzer::directives::{
    self as d, BinOp, Clause, DExpr, DirectiveKind, DistFormat, Reduction, ReductionOp, ShadowSpec,
    Subscript,
};
use experts::scheme::{
    ActualKind, Actualization, AlignSub, Alignment, ArrayRef, ArrayWidths, Bound, Distribution,
    Format, Inherit, ParallelLoop, Template, ReductionSpec, RefSub, Region, RegionUse, RemoteAccess, Shadow,
    SubRange, VarPart,
};

/// Where a scheme item belongs, for error messages.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub file: &'a str,
    pub line: u32,
}

impl At<'_> {
    fn bad(&self, message: impl Into<String>) -> GenError {
        GenError::BadScheme {
            file: self.file.to_string(),
            line: self.line,
            message: message.into(),
        }
    }
}

/// Is `s` a Fortran name (a letter, then letters, digits and underscores)?
pub fn is_fortran_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic())
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// A name checked and put in lower case (the structured form's convention).
fn name(s: &str, at: At) -> Result<String, GenError> {
    let t = s.trim();
    if is_fortran_name(t) {
        Ok(t.to_ascii_lowercase())
    } else {
        Err(GenError::BadName {
            file: at.file.to_string(),
            line: at.line,
            name: s.to_string(),
        })
    }
}

/// An integer as the parser produces it: `-5` is `Neg(Int(5))`.
fn int(v: i64, at: At) -> Result<DExpr, GenError> {
    if v >= 0 {
        Ok(DExpr::Int(v))
    } else {
        v.checked_neg()
            .map(|n| DExpr::Neg(Box::new(DExpr::Int(n))))
            .ok_or_else(|| at.bad(format!("integer {v} is out of range")))
    }
}

fn plus_offset(e: DExpr, off: i64, at: At) -> Result<DExpr, GenError> {
    Ok(match off {
        0 => e,
        o if o > 0 => DExpr::Bin(Box::new(e), BinOp::Add, Box::new(DExpr::Int(o))),
        o => {
            let n = o
                .checked_neg()
                .ok_or_else(|| at.bad(format!("offset {o} is out of range")))?;
            DExpr::Bin(Box::new(e), BinOp::Sub, Box::new(DExpr::Int(n)))
        }
    })
}

/// `coeff*var + offset`, shaped the way the directive parser reads `-2*I+1`.
fn linear(var: &str, coeff: i64, offset: i64, at: At) -> Result<DExpr, GenError> {
    let v = DExpr::Name(var.to_string());
    let e = match coeff {
        0 => return int(offset, at),
        1 => v,
        -1 => DExpr::Neg(Box::new(v)),
        c if c > 0 => DExpr::Bin(Box::new(DExpr::Int(c)), BinOp::Mul, Box::new(v)),
        c => {
            let n = c
                .checked_neg()
                .ok_or_else(|| at.bad(format!("coefficient {c} is out of range")))?;
            DExpr::Neg(Box::new(DExpr::Bin(
                Box::new(DExpr::Int(n)),
                BinOp::Mul,
                Box::new(v),
            )))
        }
    };
    plus_offset(e, offset, at)
}

fn widths(w: &[(u32, u32)]) -> Vec<(Option<DExpr>, Option<DExpr>)> {
    w.iter()
        .map(|&(lo, hi)| {
            (
                Some(DExpr::Int(i64::from(lo))),
                Some(DExpr::Int(i64::from(hi))),
            )
        })
        .collect()
}

fn shadow_spec(a: &ArrayWidths, at: At) -> Result<ShadowSpec, GenError> {
    Ok(ShadowSpec {
        name: name(&a.array, at)?,
        widths: widths(&a.widths),
        corner: a.corner,
    })
}

fn array_ref(r: &ArrayRef, at: At) -> Result<d::ArrayRef, GenError> {
    let subs = r
        .subs
        .iter()
        .map(|s| {
            Ok(match s {
                RefSub::Var { var, offset } => {
                    Subscript::Expr(linear(&name(var, at)?, 1, *offset, at)?)
                }
                RefSub::Const(c) => Subscript::Expr(int(*c, at)?),
                RefSub::All => Subscript::Range(None, None),
            })
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(d::ArrayRef {
        name: name(&r.array, at)?,
        subs,
    })
}

fn reduction(r: &ReductionSpec, at: At) -> Result<Reduction, GenError> {
    let Some(op) = ReductionOp::from_name(&r.op) else {
        return Err(at.bad(format!(
            "unknown reduction operation `{}`",
            r.op.trim().to_ascii_lowercase()
        )));
    };
    let is_loc = matches!(op, ReductionOp::MaxLoc | ReductionOp::MinLoc);
    if is_loc && r.loc.is_empty() {
        return Err(at.bad(format!(
            "{op} reduction of `{}` needs its location variables",
            r.var
        )));
    }
    if !is_loc && !r.loc.is_empty() {
        return Err(at.bad(format!(
            "{op} reduction of `{}` cannot have location variables",
            r.var
        )));
    }
    let loc = r
        .loc
        .iter()
        .map(|l| {
            let t = l.trim();
            match t.parse::<i64>() {
                Ok(n) => int(n, at),
                Err(_) => Ok(DExpr::Name(name(t, at)?)),
            }
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(Reduction {
        op,
        var: name(&r.var, at)?,
        loc,
    })
}

fn non_empty<T>(v: Vec<T>) -> Option<Vec<T>> {
    if v.is_empty() {
        None
    } else {
        Some(v)
    }
}

/// `TEMPLATE T(1:4096)`.
pub fn template(x: &Template, at: At) -> Result<DirectiveKind, GenError> {
    if x.bounds.is_empty() || x.bounds.iter().any(|(l, h)| l > h) {
        return Err(at.bad(format!("template `{}` has no bounds, or a lower bound above the upper", x.name)));
    }
    Ok(DirectiveKind::Template {
        name: name(&x.name, at)?,
        dims: x.bounds.iter().map(|(l, h)| Ok(Subscript::Range(Some(int(*l, at)?), Some(int(*h, at)?)))).collect::<Result<_, GenError>>()?,
    })
}

/// `DISTRIBUTE A(BLOCK,*)`.
pub fn distribute(x: &Distribution, at: At) -> Result<DirectiveKind, GenError> {
    if x.formats.is_empty() {
        return Err(at.bad(format!("distribution of `{}` has no formats", x.array)));
    }
    Ok(DirectiveKind::Distribute {
        arrays: vec![name(&x.array, at)?],
        formats: x
            .formats
            .iter()
            .map(|f| match f {
                Format::Block => DistFormat::Block,
                Format::Star => DistFormat::Star,
            })
            .collect(),
        onto: None,
        dynamic: false,
    })
}

/// `ALIGN B(I,J) WITH A(I,J)`.
pub fn align(x: &Alignment, at: At) -> Result<DirectiveKind, GenError> {
    let source = x
        .source
        .iter()
        .map(|s| {
            if s.trim() == "*" {
                Ok("*".to_string())
            } else {
                name(s, at)
            }
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    if source.is_empty() || x.subs.is_empty() {
        return Err(at.bad(format!(
            "alignment of `{}` needs align-dummies and target subscripts",
            x.array
        )));
    }
    let subs = x
        .subs
        .iter()
        .map(|s| {
            Ok(match s {
                AlignSub::Linear {
                    dummy,
                    coeff,
                    offset,
                } => {
                    let v = source.get(*dummy).filter(|v| v.as_str() != "*").ok_or_else(|| {
                        at.bad(format!(
                            "alignment of `{}` refers to align-dummy #{dummy}, which does not exist",
                            x.array
                        ))
                    })?;
                    Subscript::Expr(linear(v, *coeff, *offset, at)?)
                }
                AlignSub::Const(c) => Subscript::Expr(int(*c, at)?),
                AlignSub::Star => Subscript::Star,
            })
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(DirectiveKind::Align {
        arrays: vec![name(&x.array, at)?],
        source,
        target: d::ArrayRef {
            name: name(&x.target, at)?,
            subs,
        },
    })
}

/// `SHADOW A(1:1,1:1)`.
/// `INHERIT array`.
pub fn inherit(x: &Inherit, at: At) -> Result<DirectiveKind, GenError> {
    Ok(DirectiveKind::Inherit(vec![name(&x.array, at)?]))
}

pub fn owned(x: &experts::scheme::Owned, at: At) -> Result<DirectiveKind, GenError> {
    Ok(DirectiveKind::Spf(vec![analyzer::directives::SpfHint::Owned(vec![name(&x.array, at)?])]))
}

pub fn shadow(x: &Shadow, at: At) -> Result<DirectiveKind, GenError> {
    Ok(DirectiveKind::Shadow(vec![ShadowSpec {
        name: name(&x.array, at)?,
        widths: widths(&x.widths),
        corner: false,
    }]))
}

/// `PARALLEL (J,I) ON A(I,J), PRIVATE(..), REDUCTION(..), SHADOW_RENEW(..), ACROSS(..),
/// REMOTE_ACCESS(..)` (clauses in this order, empty ones left out).
pub fn parallel(x: &ParallelLoop, at: At) -> Result<DirectiveKind, GenError> {
    if x.vars.is_empty() {
        return Err(at.bad("parallel loop without loop variables"));
    }
    let vars = x
        .vars
        .iter()
        .map(|v| name(v, at))
        .collect::<Result<Vec<_>, _>>()?;
    // ON: a dimension the scheme leaves open (not distributed, indexed by something other
    // than the tuple's variables) is `*`
    let on = x
        .on
        .as_ref()
        .map(|r| {
            array_ref(r, at).map(|mut a| {
                for s in &mut a.subs {
                    if matches!(s, Subscript::Range(None, None)) {
                        *s = Subscript::Star;
                    }
                }
                a
            })
        })
        .transpose()?;
    let mut clauses = Vec::new();
    if let Some(v) = non_empty(
        x.private
            .iter()
            .map(|v| name(v, at))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        clauses.push(Clause::Private(v));
    }
    if let Some(v) = non_empty(
        x.reductions
            .iter()
            .map(|r| reduction(r, at))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        clauses.push(Clause::Reduction(v));
    }
    if let Some(v) = non_empty(
        x.shadow_renew
            .iter()
            .map(|a| shadow_spec(a, at))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        clauses.push(Clause::ShadowRenew(v));
    }
    if let Some(v) = non_empty(
        x.across
            .iter()
            .map(|a| shadow_spec(a, at))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        clauses.push(Clause::Across(v));
    }
    if let Some(v) = non_empty(
        x.remote_access
            .iter()
            .map(|r| array_ref(r, at))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        clauses.push(Clause::RemoteAccess(v));
    }
    if let Some(c) = &x.shadow_compute {
        clauses.push(Clause::ShadowCompute(vec![shadow_spec(c, at)?]));
    }
    Ok(DirectiveKind::Parallel { vars, on, clauses })
}

/// Standalone `REMOTE_ACCESS(B(:,1))`.
pub fn remote_access(x: &RemoteAccess, at: At) -> Result<DirectiveKind, GenError> {
    if x.refs.is_empty() {
        return Err(at.bad("REMOTE_ACCESS without references"));
    }
    Ok(DirectiveKind::RemoteAccess {
        group: None,
        refs: x
            .refs
            .iter()
            .map(|r| array_ref(r, at))
            .collect::<Result<Vec<_>, _>>()?,
    })
}

fn bound(b: &Bound, at: At) -> Result<DExpr, GenError> {
    match &b.name {
        None => int(b.offset, at),
        Some(n) => plus_offset(DExpr::Name(name(n, at)?), b.offset, at),
    }
}

/// A variable or subarray of a region clause or an actualization.
fn var_part(v: &VarPart, at: At) -> Result<d::ArrayRef, GenError> {
    Ok(d::ArrayRef {
        name: name(&v.var, at)?,
        subs: v
            .subs
            .iter()
            .map(|s| {
                Ok(match s {
                    SubRange::All => Subscript::Range(None, None),
                    SubRange::Point(b) => Subscript::Expr(bound(b, at)?),
                    SubRange::Range { lo, hi } => {
                        Subscript::Range(Some(bound(lo, at)?), Some(bound(hi, at)?))
                    }
                })
            })
            .collect::<Result<Vec<_>, GenError>>()?,
    })
}

/// `REGION IN(..), OUT(..), ...`.
pub fn region(x: &Region, at: At) -> Result<DirectiveKind, GenError> {
    let clauses = x
        .clauses
        .iter()
        .map(|(u, parts)| {
            let k = match u {
                RegionUse::In => d::RegionClauseKind::In,
                RegionUse::Out => d::RegionClauseKind::Out,
                RegionUse::InOut => d::RegionClauseKind::InOut,
                RegionUse::Local => d::RegionClauseKind::Local,
                RegionUse::InLocal => d::RegionClauseKind::InLocal,
            };
            Ok((
                k,
                parts
                    .iter()
                    .map(|p| var_part(p, at))
                    .collect::<Result<Vec<_>, GenError>>()?,
            ))
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(DirectiveKind::Region {
        clauses,
        targets: vec![],
        async_: false,
    })
}

/// `GET_ACTUAL(..)` or `ACTUAL(..)`.
pub fn actualization(x: &Actualization, at: At) -> Result<DirectiveKind, GenError> {
    if x.vars.is_empty() {
        return Err(at.bad("actualization without variables"));
    }
    let vars = x
        .vars
        .iter()
        .map(|p| var_part(p, at))
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(match x.kind {
        ActualKind::GetActual => DirectiveKind::GetActual(vars),
        ActualKind::Actual => DirectiveKind::Actual(vars),
    })
}
