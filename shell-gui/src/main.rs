//! `sapfor`: the command-line entry point. Subcommands analyze Fortran, keep the results in the
//! project database, show them and record the user's refinements; the experts, the generator,
//! the runtime driver and the GUI attach here as their crates fill in.

use clap::{Parser, Subcommand};
use shell_gui::{auto, commands, run, DbArgs};
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc: the analysis and the experts allocate many small objects; with glibc's malloc
/// the time per line of `sapfor --auto` grew with the program (bench/auto_scaling.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "sapfor",
    version,
    about = "Automated parallelization of Fortran programs for clusters (Fortran-DVMH)"
)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct Cli {
    /// Analyze, choose a parallelization scheme and write the Fortran-DVMH program.
    #[arg(long)]
    auto: bool,
    #[command(flatten)]
    auto_args: auto::AutoArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Analyze Fortran sources: loops, dependences, private and reduction variables.
    Analyze(commands::AnalyzeArgs),
    /// Show what the project database holds about something.
    Show {
        #[command(subcommand)]
        what: commands::ShowWhat,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Record a refinement (an override the analysis and the experts honour).
    Refine {
        #[command(subcommand)]
        what: commands::RefineWhat,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List the candidate parallelization schemes with their estimates.
    Schemes {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Write the Fortran-DVMH program of any stored scheme.
    Generate(auto::GenerateArgs),
    /// Open the desktop dialog on a project database (needs a build with `--features gui`).
    Gui {
        /// Fortran files to analyze first (default: the analysis stored in the database).
        files: Vec<PathBuf>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Check a Fortran-DVMH program: every PARALLEL loop is free of dependences its
    /// clauses do not name (as the analysis sees it), every host read sees actual data
    /// (GET_ACTUAL), every region's inputs are declared and actual (IN, ACTUAL).
    Verify(auto::VerifyArgs),
    /// Compile Fortran-DVMH with the sapfor runtime into an MPI executable.
    Build(run::BuildArgs),
    /// Build (cached) and run Fortran-DVMH with MPI processes and threads.
    Run(run::RunArgs),
    /// Measure this machine (messages, operations, memory references) and write the machine
    /// description the cost model estimates for (`--machine FILE`).
    Calibrate(shell_gui::calibrate::CalibrateArgs),
    /// Dump the whole project database for other tools.
    Export {
        /// Print JSON (the only format).
        #[arg(long)]
        json: bool,
        /// Write to this file (atomically) instead of standard output.
        #[arg(short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        db: DbArgs,
    },
}

/// The analysis recurses over expressions and nested statements: a program with an
/// expression of 15,000 terms or IF blocks nested 5,000 deep needs far more than the main
/// thread's 8 MB. Every command but the GUI (whose window must be on the main thread) runs
/// on a thread with this much stack (reserved address space, touched only when used).
const STACK_BYTES: usize = 4 << 30;

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    if matches!(cli.command, Some(Command::Gui { .. })) && !cli.auto {
        return dispatch(cli);
    }
    let worker = std::thread::Builder::new()
        .name("sapfor".into())
        .stack_size(STACK_BYTES)
        .spawn(move || dispatch(cli));
    match worker {
        Ok(h) => h.join().unwrap_or_else(|_| {
            eprintln!("error: internal error (a panic, reported above); please report it with the input that caused it");
            ExitCode::from(101)
        }),
        Err(e) => {
            eprintln!("error: cannot start the worker thread ({e}); the machine is out of memory or threads");
            ExitCode::from(1)
        }
    }
}

/// A closed pipe (`sapfor schemes | head -1`) ends the process quietly, as for other
/// command-line tools, instead of a panic in `println!` (Rust ignores SIGPIPE by default).
fn restore_sigpipe() {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: setting the default disposition of one signal at start-up, before any
        // other thread exists
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}

fn dispatch(cli: Cli) -> ExitCode {
    let command = match (cli.auto, cli.command) {
        (true, _) => {
            return report(auto::auto(cli.auto_args));
        }
        (false, Some(c)) => c,
        (false, None) => {
            if !cli.auto_args.files.is_empty() {
                eprintln!("error: to parallelize {}, use `sapfor --auto FILE...`; to analyze only, `sapfor analyze FILE...`", cli.auto_args.files[0].display());
            } else {
                eprintln!("error: nothing to do: give `--auto FILE...` or a subcommand (see `sapfor --help`)");
            }
            return ExitCode::from(2);
        }
    };
    let result = match command {
        Command::Generate(g) => auto::generate(g),
        Command::Verify(v) => auto::verify(v),
        Command::Analyze(a) => commands::analyze(a),
        Command::Show { what, db } => commands::show(what, &db),
        Command::Refine { what, db } => commands::refine(what, &db),
        Command::Schemes { json, db } => commands::schemes(json, &db),
        Command::Export { json, output, db } => commands::export(json, output, &db),
        Command::Calibrate(c) => shell_gui::calibrate::calibrate(&c),
        Command::Build(b) => run::build(b),
        Command::Run(r) => run::run(r),
        Command::Gui { files, db } => gui(files, db),
    };
    report(result)
}

#[cfg(feature = "gui")]
fn gui(files: Vec<PathBuf>, db: DbArgs) -> anyhow::Result<ExitCode> {
    shell_gui::gui::run_window(db.db, files)
}

#[cfg(not(feature = "gui"))]
fn gui(_files: Vec<PathBuf>, _db: DbArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this sapfor was built without the desktop dialog: rebuild it with \
         `cargo build --release -p shell-gui --features gui` (or `make gui`)"
    )
}

fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
