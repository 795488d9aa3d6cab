//! `warpcheck-bench`: the benchmarks of warpcheck, run through one or more `warpcheck`
//! binaries as subprocesses (`--json --quiet` output), side by side in one run on one
//! machine, each subcommand printing a markdown table headed by the date, the machine
//! (by its hardware), the commit and the exact command line.
//!
//! Performance is measured here, never asserted in tests. Each subcommand puts
//! warpcheck beside a baseline: another binary (`--binary new=... --binary old=...`),
//! the CPU beside the GPU, or the peers' published figures.
//!
//! Exit status: 0 when all went well; 1 when binaries disagree (states, transitions,
//! verdicts, SCC counts, cycle values), a count differs from the reference, or a run
//! failed (timeouts are results, not failures); 2 on bad usage or input; 3 when
//! `--budget` left measurements not run (run the same command with `--resume` again).

// Measurements are kept in arrays indexed by binary (and algorithm), filled and read
// in the same loops that run the binaries by index.
#![allow(clippy::needless_range_loop)]

mod common;
mod cpu_set;
mod cycle_mean;
mod explore;
mod gpu_set;
mod ltl;
mod machine;
mod reference;
mod runner;
mod scc;
mod small;
mod stats;
mod table;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

const EXAMPLES: &str = "\
Examples (from the repository root, after `cargo build --release -p warpcheck -p warpcheck-bench`):
  warpcheck-bench small
  warpcheck-bench cpu-set --threads 1,2 --runs 3 --out benches/results/cpu-set-2core.md
  warpcheck-bench cpu-set --binary new=target/release/warpcheck --binary old=/tmp/old/target/release/warpcheck
  warpcheck-bench gpu-set --runs 3
  warpcheck-bench explore --min-states 1000000 --threads 1,2 -- --memory 8G
  warpcheck-bench explore examples/peterson.dve --runs 5
  warpcheck-bench scc --threads 2 --runs 1 --timeout 150
  warpcheck-bench cycle-mean --threads 2
  warpcheck-bench ltl elevator2.3.prop4 --algorithms owcty,map,gpu:owcty,gpu:map

Exit status: 0 all agree, 1 a disagreement or a failed run, 2 bad usage or input,
3 measurements left not run by --budget (run the same command with --resume again).";

#[derive(Parser)]
#[command(
    name = "warpcheck-bench",
    version,
    about = "Benchmarks of warpcheck binaries, side by side, as markdown tables"
)]
#[command(after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The CPU set of benchmarks.md on the CPU engine beside the peers' figures.
    CpuSet(cpu_set::Args),
    /// The GPU set of benchmarks.md on the GPU engine beside the CPU engine.
    GpuSet(gpu_set::Args),
    /// `warpcheck explore` on any models, or the BEEM instances of a size range,
    /// counts checked against reference.csv.
    Explore(explore::Args),
    /// Start-up cost on a small model: default table sizing against a tiny table.
    Small(small::Args),
    /// SCC algorithms on BEEM state graphs and synthetic graphs.
    Scc(scc::Args),
    /// Optimal cycle mean and ratio algorithms on Dasdan's graphs, weighted BEEM
    /// state graphs and random graphs.
    CycleMean(cycle_mean::Args),
    /// LTL model checking of BEEM property files with several algorithms (CPU, GPU),
    /// verdicts checked against ltl-reference.csv.
    Ltl(ltl::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::CpuSet(a) => cpu_set::run(a),
        Command::GpuSet(a) => gpu_set::run(a),
        Command::Explore(a) => explore::run(a),
        Command::Small(a) => small::run(a),
        Command::Scc(a) => scc::run(a),
        Command::CycleMean(a) => cycle_mean::run(a),
        Command::Ltl(a) => ltl::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
