//! The `warpcheck` command: the only place that prints and chooses exit codes.
//!
//! Exit codes: 0 property holds (or exploration finished), 1 property violated,
//! 2 bad input or usage, 3 resource limit reached.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use warpcheck_explore::{explore, BfsOptions};

/// Exit status for bad input or usage.
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(name = "warpcheck", version, about = "A model checker and state-space analysis toolkit")]
#[command(after_help = "Examples:\n  warpcheck explore examples/peterson.dve\n  warpcheck explore model.dve --json")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore the whole state space and report its size.
    Explore {
        /// A DVE model (`.dve`).
        model: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Stop after this many states.
        #[arg(long)]
        max_states: Option<u64>,
    },
}

/// Reads and loads a DVE model, printing a diagnostic on failure.
fn load(path: &Path) -> Result<warpcheck_dve::DveModel, ExitCode> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", path.display());
        ExitCode::from(EXIT_BAD_INPUT)
    })?;
    warpcheck_dve::load(&source).map_err(|d| {
        eprint!("{}", d.render(&path.display().to_string(), &source));
        ExitCode::from(EXIT_BAD_INPUT)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Explore { model, json, max_states } => {
            let dve = match load(&model) {
                Ok(m) => m,
                Err(code) => return code,
            };
            let start = Instant::now();
            let stats = explore(&dve.model, &BfsOptions { max_states });
            let seconds = start.elapsed().as_secs_f64();
            let m = &dve.model;
            if json {
                let report = serde_json::json!({
                    "model": model.display().to_string(),
                    "states": stats.states,
                    "transitions": stats.transitions,
                    "deadlocks": stats.deadlocks,
                    "levels": stats.levels,
                    "accepting": stats.accepting,
                    "error_transitions": stats.error_transitions,
                    "assertion_violations": stats.assertion_violations,
                    "complete": !stats.truncated,
                    "seconds": seconds,
                    "state_words": m.state_words(),
                });
                println!("{report}");
            } else {
                println!("states:       {}", stats.states);
                println!("transitions:  {}", stats.transitions);
                println!("deadlocks:    {}", stats.deadlocks);
                println!("levels:       {}", stats.levels);
                if m.property.is_some() {
                    println!("accepting:    {}", stats.accepting);
                }
                if let Some((_, e)) = &stats.first_error {
                    println!("errors:       {} steps raise an evaluation error (first: {})", stats.error_transitions, m.describe_error(e));
                }
                if stats.assertion_violations > 0 {
                    println!("assertions:   violated in {} states", stats.assertion_violations);
                }
                if stats.truncated {
                    println!("incomplete:   stopped at the state limit");
                }
                println!("time:         {seconds:.2} s ({:.0} states/s)", stats.states as f64 / seconds.max(1e-9));
            }
            ExitCode::SUCCESS
        }
    }
}
