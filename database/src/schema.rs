//! The DDL of every schema version. A fresh database runs every step from version 0; an
//! older one runs the steps from its `user_version` on. Steps are never edited once released:
//! a change is a new step (and a new [`crate::SCHEMA_VERSION`]).

/// Version 1: the initial schema.
pub const V1_DDL: &str = include_str!("schema_v1.sql");
/// Version 1 -> 2: the `runs` table, `overrides.note` and `units.summary`.
pub const V1_TO_V2: &str = include_str!("schema_v2.sql");
/// Version 2 -> 3: the `rejected_variants` table.
pub const V2_TO_V3: &str = include_str!("schema_v3.sql");

/// `MIGRATIONS[v]` brings a database from `user_version` v to v + 1.
pub const MIGRATIONS: &[&str] = &[V1_DDL, V1_TO_V2, V2_TO_V3];

const _: () = assert!(MIGRATIONS.len() == crate::SCHEMA_VERSION as usize);
