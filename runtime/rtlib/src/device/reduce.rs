//! Final combination of the per-iteration partial results that generated kernels write
//! (see `docs/gpu.md`): the host folds them in iteration order, starting from the value the
//! reduction variable had before the loop. Sums and products thus add in the sequential
//! order; MAXLOC/MINLOC replace only on a strictly better value (first occurrence wins).

/// Reduction operations, numbered as in the SPEC / REDUCTION clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Sum,
    Product,
    Max,
    Min,
    And,
    Or,
    Eqv,
    Neqv,
    MaxLoc,
    MinLoc,
}

/// Values a reduction can have (LOGICAL is `i32`, nonzero = true).
pub trait RedValue: Copy + PartialOrd {
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn truth(self) -> bool;
    fn from_bool(b: bool) -> Self;
}

macro_rules! red_value {
    ($t:ty, $one:expr, $zero:expr) => {
        impl RedValue for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn truth(self) -> bool {
                self != $zero
            }
            fn from_bool(b: bool) -> Self {
                if b {
                    $one
                } else {
                    $zero
                }
            }
        }
    };
}
red_value!(f64, 1.0, 0.0);
red_value!(f32, 1.0, 0.0);
red_value!(i32, 1, 0);
red_value!(i64, 1, 0);

/// Fold `partials` (and, for MAXLOC/MINLOC, `locs`: `nloc` index buffers of the same length
/// as `partials`, one after the other) into `value` / `loc`, in order.
pub fn combine<T: RedValue>(
    op: RedOp,
    value: &mut T,
    loc: &mut [i32],
    partials: &[T],
    locs: &[Vec<i32>],
) {
    for (k, &p) in partials.iter().enumerate() {
        let v = *value;
        *value = match op {
            RedOp::Sum => v.add(p),
            RedOp::Product => v.mul(p),
            RedOp::Max => {
                if p > v {
                    p
                } else {
                    v
                }
            }
            RedOp::Min => {
                if p < v {
                    p
                } else {
                    v
                }
            }
            RedOp::And => T::from_bool(v.truth() && p.truth()),
            RedOp::Or => T::from_bool(v.truth() || p.truth()),
            RedOp::Eqv => T::from_bool(v.truth() == p.truth()),
            RedOp::Neqv => T::from_bool(v.truth() != p.truth()),
            RedOp::MaxLoc | RedOp::MinLoc => {
                let better = if op == RedOp::MaxLoc { p > v } else { p < v };
                if better {
                    for (l, buf) in loc.iter_mut().zip(locs) {
                        *l = buf[k];
                    }
                    p
                } else {
                    v
                }
            }
        };
    }
}

/// Fold the per-iteration partial buffers on the device with the kernel's companion
/// `NAME_red` (generated with it): two launches, `chunk` iterations per thread, then one
/// thread over the chunk results. Afterwards element 0 of every buffer holds the loop's
/// contribution (value and MAXLOC/MINLOC indices); the caller copies those few bytes to the
/// host and [`combine`]s them with the value the variable had before the loop.
pub fn fold_on_device(
    dev: &mut dyn super::Device,
    prog: super::ProgId,
    combine_kernel: &str,
    iterations: i64,
    bufs: &[super::DevPtr],
) -> Result<(), super::DevError> {
    use super::KArg;
    if iterations <= 1 {
        return Ok(());
    }
    let chunk: i64 = 256;
    let threads = (iterations + chunk - 1) / chunk;
    let block = 128u32;
    let mut args = vec![KArg::I64(iterations), KArg::I64(1), KArg::I64(chunk)];
    args.extend(bufs.iter().map(|&b| KArg::Ptr(b)));
    dev.launch(
        prog,
        combine_kernel,
        [((threads + block as i64 - 1) / block as i64) as u32, 1, 1],
        [block, 1, 1],
        &args,
    )?;
    if threads > 1 {
        args[0] = KArg::I64(threads);
        args[1] = KArg::I64(chunk);
        args[2] = KArg::I64(threads);
        dev.launch(prog, combine_kernel, [1, 1, 1], [1, 1, 1], &args)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn first_occurrence_and_order() {
        let mut v = 1.0f64;
        let mut l = [7, 7];
        combine(
            RedOp::MaxLoc,
            &mut v,
            &mut l,
            &[0.5, 3.0, 2.0, 3.0],
            &[vec![1, 2, 3, 4], vec![9, 8, 7, 6]],
        );
        assert_eq!((v, l), (3.0, [2, 8]));
        let mut s = 0.1f64;
        combine(RedOp::Sum, &mut s, &mut [], &[0.2, 0.3], &[]);
        assert_eq!(s, (0.1 + 0.2) + 0.3);
        let mut e = 1i32;
        combine(RedOp::Eqv, &mut e, &mut [], &[0, 0, 1], &[]);
        assert_eq!(e, 1);
        let mut n = 0i32;
        combine(RedOp::Neqv, &mut n, &mut [], &[1, 1, 1], &[]);
        assert_eq!(n, 1);
    }
}
