//! sapfor's runtime side, host part: the converter from Fortran-DVMH to standard Fortran
//! with calls into the runtime library (`runtime/rtlib`, crate `sapfor-rt`), and the
//! build/run driver logic used by `sapfor build` and `sapfor run`.

#[path = "../rtlib/src/cache_trim.rs"]
mod cache_trim;
pub mod convert;
pub mod driver;
pub mod fortran;
pub mod kernel;
pub mod text;
