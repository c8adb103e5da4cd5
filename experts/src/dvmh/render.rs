//! Section sets as Fortran subarrays (`A(2:L-1,2:L-1)`): at most a few boxes per variable,
//! bounds written with the PARAMETER names of the declaration where they match.

use crate::scheme::{Bound, SubRange, VarPart};
use analyzer::ast::*;
use analyzer::sections::{DimSet, Section, SectionSet};
use analyzer::sema::UnitSema;

/// More boxes than this for one variable are replaced by their hull.
const MAX_BOXES: usize = 4;

/// Declared dimensions of `name` in the unit's declarations, if written there.
fn decl_dims(unit: &Unit, name: &str) -> Option<Vec<DimDecl>> {
    let find = |ents: &[Entity]| {
        ents.iter()
            .find(|e| e.name == name && e.dims.is_some())
            .and_then(|e| e.dims.clone())
    };
    unit.stmts.iter().find_map(|s| match &s.kind {
        StmtKind::TypeDecl { entities, .. }
        | StmtKind::Dimension(entities)
        | StmtKind::AttrStmt { entities, .. } => find(entities),
        StmtKind::Common(blocks) => blocks.iter().find_map(|(_, es)| find(es)),
        _ => None,
    })
}

/// The boxes covering `set`: its own parts split into boxes, or their hull when too many.
pub fn boxes(set: &SectionSet) -> Vec<Section> {
    let mut out: Vec<Section> = vec![];
    for p in set.parts() {
        let mut acc: Vec<Vec<DimSet>> = vec![vec![]];
        for d in &p.dims {
            let rs: Vec<DimSet> = if d.ranges().is_empty() {
                vec![d.clone()]
            } else {
                d.ranges().iter().map(|&(a, b)| DimSet::range(a, b)).collect()
            };
            acc = acc
                .into_iter()
                .flat_map(|pre| {
                    rs.iter().map(move |r| {
                        let mut v = pre.clone();
                        v.push(r.clone());
                        v
                    })
                })
                .collect();
            if acc.len() > MAX_BOXES * 4 {
                break;
            }
        }
        out.extend(acc.into_iter().map(Section::new));
        if out.len() > MAX_BOXES {
            return vec![set.hull()];
        }
    }
    // A set that fills nearly all of its hull (an array minus its corners) is written whole.
    if out.len() > 1 {
        let hull = set.hull();
        if let (Some(n), Some(h)) = (set.count(), hull.count()) {
            if h > 0 && n as f64 >= 0.99 * h as f64 {
                return vec![hull];
            }
        }
    }
    out
}

/// The set the rendered boxes cover (a superset of `set`).
pub fn covered(set: &SectionSet) -> SectionSet {
    if set.rank() == 0 {
        return set.clone();
    }
    SectionSet::from_sections(set.rank(), boxes(set))
}

fn bound(v: i64, decl: Option<&Expr>, decl_val: Option<i64>) -> Bound {
    if let (Some(Expr::Var(p)), Some(dv)) = (decl, decl_val) {
        let off = v - dv;
        if (-9..=9).contains(&off) {
            return Bound {
                name: Some(p.clone()),
                offset: off,
            };
        }
    }
    Bound {
        name: None,
        offset: v,
    }
}

/// `name` restricted to `set`, as subarrays (`[]` when `set` is empty).
pub fn parts(unit: &Unit, sema: &UnitSema, name: &str, set: &SectionSet) -> Vec<VarPart> {
    if set.is_empty() {
        return vec![];
    }
    let whole = super::effects::whole(sema, name);
    if set.rank() == 0 || whole.is_subset(set) {
        return vec![VarPart {
            var: name.to_string(),
            subs: vec![],
        }];
    }
    let decl = decl_dims(unit, name);
    let bounds = sema.symbol(name).map(|s| s.bounds()).unwrap_or_default();
    boxes(set)
        .into_iter()
        .map(|b| VarPart {
            var: name.to_string(),
            subs: b
                .dims
                .iter()
                .enumerate()
                .map(|(k, d)| {
                    let db = bounds.get(k).copied().flatten();
                    let dd = decl.as_ref().and_then(|v| v.get(k));
                    match (d.bounds(), db) {
                        (Some((a, b)), Some((lo, hi))) if a <= lo && b >= hi => SubRange::All,
                        (Some((a, b)), _) if a > i64::MIN / 2 && b < i64::MAX / 2 => {
                            let lo_e = dd.and_then(|x| x.lo.as_ref());
                            let hi_e = dd.and_then(|x| x.hi.as_ref());
                            let mk = |v: i64| {
                                let from_hi = bound(v, hi_e, db.map(|x| x.1));
                                if from_hi.name.is_some() {
                                    from_hi
                                } else {
                                    bound(v, lo_e, db.map(|x| x.0))
                                }
                            };
                            if a == b {
                                SubRange::Point(mk(a))
                            } else {
                                SubRange::Range {
                                    lo: mk(a),
                                    hi: mk(b),
                                }
                            }
                        }
                        _ => SubRange::All,
                    }
                })
                .collect(),
        })
        .collect()
}
