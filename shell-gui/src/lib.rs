//! The `sapfor` command-line tool as a library: the subcommands (`commands`, `auto`, `run`) and, with
//! the `gui` cargo feature, the desktop dialog (`gui`). `main.rs` only parses arguments.

pub mod auto;
pub mod calibrate;
pub mod commands;
pub mod measured;
pub mod outputs;
pub mod run;
#[cfg(feature = "gui")]
pub mod gui;

use std::path::PathBuf;

/// Where the project database is.
#[derive(clap::Args, Clone)]
pub struct DbArgs {
    /// Project database (SQLite); its directory is the project root.
    #[arg(long, value_name = "PATH", default_value = "sapfor.db", global = true)]
    pub db: PathBuf,
}
