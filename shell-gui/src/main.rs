//! `sapfor`: the command-line entry point (analysis now; the GUI, the experts, the generator
//! and the runtime driver attach here as their crates fill in).

use analyzer::diag::Severity;
use analyzer::program::Options;
use analyzer::source::SourceForm;
use clap::{Parser, Subcommand};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "sapfor",
    version,
    about = "Automated parallelization of Fortran programs for clusters (Fortran-DVMH)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Analyze Fortran sources: loops, dependences, private and reduction variables.
    Analyze(AnalyzeArgs),
}

#[derive(clap::Args)]
struct AnalyzeArgs {
    /// Fortran source files (fixed or free form; detected from extension and content).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Directory searched for INCLUDE files (after the including file's directory).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Print the versioned JSON report instead of the human one.
    #[arg(long)]
    json: bool,
    /// Print an internal representation: cfg, dataflow, loops or deps.
    #[arg(long, value_name = "WHAT", value_parser = ["cfg", "dataflow", "loops", "deps"])]
    dump: Option<String>,
    /// Treat all files as fixed form.
    #[arg(long, conflicts_with = "free_form")]
    fixed_form: bool,
    /// Treat all files as free form.
    #[arg(long)]
    free_form: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Analyze(a) => analyze(a),
    }
}

fn analyze(a: AnalyzeArgs) -> ExitCode {
    let opts = Options {
        include_dirs: a.include,
        force_form: if a.fixed_form {
            Some(SourceForm::Fixed)
        } else if a.free_form {
            Some(SourceForm::Free)
        } else {
            None
        },
        overrides: vec![],
    };
    let analysis = analyzer::report::analyze(&a.files, &opts);
    let mut stderr = std::io::stderr().lock();
    let diags = analysis.diagnostics();
    if !a.json {
        for d in diags {
            let line = d
                .location
                .as_ref()
                .and_then(|l| analysis.program.map.line_text(l));
            let _ = write!(stderr, "{}", d.render(line));
        }
    }
    let out = if a.json {
        match serde_json::to_string_pretty(&analysis.to_json()) {
            Ok(s) => s + "\n",
            Err(e) => {
                let _ = writeln!(stderr, "error: cannot encode the report: {e}");
                return ExitCode::from(2);
            }
        }
    } else if let Some(what) = &a.dump {
        analysis.dump(what).unwrap_or_default()
    } else {
        analysis.human()
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(out.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    if diags.iter().any(|d| d.severity == Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
