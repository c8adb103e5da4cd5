//! sapfor's static analyzer: Fortran front end (tree-sitter-fortran plus a fixed-form
//! normalizer), semantic model, control-flow graph with array sections, loop dependence
//! analysis and interprocedural summaries. It does no I/O besides reading source files and
//! never touches the database.

pub mod access;
pub mod affine;
pub mod ast;
pub mod cfg;
pub mod concrete;
pub mod deptest;
pub mod diag;
pub mod directives;
pub mod facts;
pub mod flow;
pub mod interproc;
pub mod loops;
pub mod lower;
pub mod overrides;
pub mod program;
pub mod relabel;
pub mod report;
pub mod search;
pub mod sections;
pub mod sema;
pub mod source;
pub mod symsec;
