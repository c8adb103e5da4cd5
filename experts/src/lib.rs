//! Experts: they build parallelization schemes (data distribution, loop mapping,
//! communication) and estimate each one with the cost model; the best is chosen.

pub mod dvm;
pub mod dvmh;
pub mod machine;
pub mod scheme;
pub mod tuples;
