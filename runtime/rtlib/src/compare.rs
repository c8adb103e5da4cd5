//! Comparative debugging (`sapfor run --compare`, SPEC section 7): the outputs of a region
//! computed on the host and on an accelerator are compared element by element: integers and
//! logicals exactly, reals within `|a - b| <= atol + rtol * max(|a|, |b|)`. The first
//! difference (in column-major order of each box of the compared set) is reported with its
//! global indices; the caller continues with the host's values.

use crate::device::{offset, Bounds};
use crate::pcs::Pcs;

/// Element types, as in the reduction ABI: 1 INTEGER, 2 INTEGER(8), 3 REAL, 4 DOUBLE
/// PRECISION, 5 LOGICAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemTy {
    Int,
    Long,
    Float,
    Double,
    Logical,
}

impl ElemTy {
    pub fn from_code(c: i32) -> Option<ElemTy> {
        Some(match c {
            1 => ElemTy::Int,
            2 => ElemTy::Long,
            3 => ElemTy::Float,
            4 => ElemTy::Double,
            5 => ElemTy::Logical,
            _ => return None,
        })
    }
    pub fn bytes(self) -> usize {
        match self {
            ElemTy::Long | ElemTy::Double => 8,
            _ => 4,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Global indices of the first differing element.
    pub index: Vec<i64>,
    pub host: String,
    pub device: String,
    /// How many elements of the set differ.
    pub count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            atol: 0.0,
            rtol: 1e-12,
        }
    }
}

fn close(a: f64, b: f64, t: Tolerance) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= t.atol + t.rtol * a.abs().max(b.abs())
}

/// Element `k` of an array of `ty` at `p`, as text.
///
/// # Safety
/// `p` must hold at least `k + 1` elements of `ty`.
pub unsafe fn element_text(ty: ElemTy, p: *const u8, k: usize) -> String {
    match ty {
        ElemTy::Int => (*(p as *const i32).add(k)).to_string(),
        ElemTy::Logical => (*(p as *const i32).add(k) != 0).to_string(),
        ElemTy::Long => (*(p as *const i64).add(k)).to_string(),
        ElemTy::Float => (*(p as *const f32).add(k)).to_string(),
        ElemTy::Double => (*(p as *const f64).add(k)).to_string(),
    }
}

/// Whether element `i` at `a` and element `j` at `b` agree: integers and logicals exactly,
/// reals within the tolerance.
///
/// # Safety
/// Both pointers must hold those elements of `ty`.
pub unsafe fn agree(
    ty: ElemTy,
    a: *const u8,
    i: usize,
    b: *const u8,
    j: usize,
    tol: Tolerance,
) -> bool {
    match ty {
        ElemTy::Int => *(a as *const i32).add(i) == *(b as *const i32).add(j),
        ElemTy::Logical => (*(a as *const i32).add(i) != 0) == (*(b as *const i32).add(j) != 0),
        ElemTy::Long => *(a as *const i64).add(i) == *(b as *const i64).add(j),
        ElemTy::Float => close(
            *(a as *const f32).add(i) as f64,
            *(b as *const f32).add(j) as f64,
            tol,
        ),
        ElemTy::Double => close(*(a as *const f64).add(i), *(b as *const f64).add(j), tol),
    }
}

/// Compare `set` of two column-major arrays with bounds `host_b` / `dev_b` (the device copy
/// already fetched to host memory). None when they agree.
///
/// # Safety
/// Both pointers must cover their bounds with elements of `ty`.
pub unsafe fn compare(
    ty: ElemTy,
    host: *const u8,
    host_b: &Bounds,
    dev: *const u8,
    dev_b: &Bounds,
    set: &Pcs,
    tol: Tolerance,
) -> Option<Difference> {
    let mut first: Option<Difference> = None;
    let mut count = 0u64;
    for idx in set.elements() {
        let (h, d) = (offset(host_b, &idx), offset(dev_b, &idx));
        if !agree(ty, host, h, dev, d, tol) {
            count += 1;
            if first.is_none() {
                first = Some(Difference {
                    index: idx.clone(),
                    host: element_text(ty, host, h),
                    device: element_text(ty, dev, d),
                    count: 0,
                });
            }
        }
    }
    first.map(|mut f| {
        f.count = count;
        f
    })
}

/// The report line of a difference: region, variable, first indices, both values.
pub fn report(region: &str, var: &str, d: &Difference) -> String {
    let idx: Vec<String> = d.index.iter().map(|i| i.to_string()).collect();
    format!(
        "sapfor compare: region {region}: {var}({}) host {} accelerator {} ({} element(s) differ); continuing with the host values",
        idx.join(","),
        d.host,
        d.device,
        d.count
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_with_global_indices() {
        let b = [(0i64, 3), (5, 6)];
        let h: Vec<f64> = (0..8).map(|k| k as f64).collect();
        let mut d = h.clone();
        d[6] += 1e-13; // (2,6): within rtol
        d[5] += 0.5; // (1,6)
        d[7] = -1.0; // (3,6)
        let all = Pcs::from_rect(&b);
        let r = unsafe {
            compare(
                ElemTy::Double,
                h.as_ptr() as *const u8,
                &b,
                d.as_ptr() as *const u8,
                &b,
                &all,
                Tolerance::default(),
            )
        }
        .unwrap();
        assert_eq!(r.index, vec![1, 6]);
        assert_eq!(r.count, 2);
        assert!(report("jac.f:17", "B", &r).contains("B(1,6) host 5 accelerator 5.5"));
        let loose = Tolerance {
            atol: 10.0,
            rtol: 0.0,
        };
        assert!(unsafe {
            compare(
                ElemTy::Double,
                h.as_ptr() as *const u8,
                &b,
                d.as_ptr() as *const u8,
                &b,
                &all,
                loose,
            )
        }
        .is_none());
        // integers are exact; a device copy with other bounds is addressed by global index
        let hi: Vec<i32> = (0..8).collect();
        let di: Vec<i32> = vec![4, 5, 6, 7];
        let db = [(0i64, 3), (6, 6)];
        let part = Pcs::from_rect(&db);
        assert!(unsafe {
            compare(
                ElemTy::Int,
                hi.as_ptr() as *const u8,
                &b,
                di.as_ptr() as *const u8,
                &db,
                &part,
                Tolerance::default(),
            )
        }
        .is_none());
    }
}
