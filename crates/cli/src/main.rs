//! The `warpcheck` command: the only place that prints and chooses exit codes.
//!
//! - `main.rs`: the commands (clap) and `main`, which prints a command's error once;
//! - [`error`]: [`error::CliError`] (exit 2 bad input, 3 resource limit) and
//!   [`error::Verdict`] (0 holds, 1 violated), the one exit-code table;
//! - [`backend`]: `--backend cpu|gpu|auto`, one meaning on every command;
//! - [`frontend`]: the registry of input formats (`--format`), the front ends and the
//!   dispatch of a loaded model to the commands' generic code;
//! - [`explore`], [`ltl`], [`scc`], [`cycle`], [`graphs`], [`export`], [`plan`]: the
//!   commands;
//! - [`report`], [`json`]: text reports and the `--json` report types;
//! - [`memory`], [`progress`]: `--memory` sizes and the progress line.

mod backend;
mod cycle;
mod disk;
mod error;
mod explore;
mod export;
mod frontend;
mod graphs;
mod json;
mod ltl;
mod markov;
mod memory;
mod pctl;
mod plan;
mod progress;
mod puzzle;
mod report;
mod scc;
mod solve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

const EXAMPLES: &str = "\
Examples:
  warpcheck explore examples/peterson.dve
  warpcheck explore model.dve --threads 2 --json
  warpcheck check model.dve                       # deadlocks and assertions
  warpcheck check model.dve --invariant 'not (P_0.CS and P_1.CS)'
  warpcheck check model.dve --deadlock --all      # count every violation
  warpcheck check model.prop2.dve                 # the LTL property process: accepting cycles
  warpcheck check model.prop2.dve --algorithm owcty --json
  warpcheck check model.dve --ltl 'G (\"P_0.wait\" -> F \"P_0.CS\")'
  warpcheck check model.dve --ltl 'GF cs0' --ap cs0=P_0.CS    # or --ap-file model.xml
  warpcheck check examples/gamble.nm --const N=3 --property 'Pmax=? [F \"rich\"]'   # Markov: PCTL, CSL
  warpcheck explore model.txt --format dve         # the format by name, not by extension
  warpcheck explore model.dve --graph-out model.wcg   # write the state graph
  warpcheck scc model.dve --algorithm fb --json   # strongly connected components
  warpcheck generate rmat g.wcg --vertices 1000000   # a synthetic graph
  warpcheck cycle-mean graph.d --max --ratio --json   # optimal cycle ratio
  warpcheck explore net.exp --sync free-unmentioned   # a network of LTSs (.exp, .gpf, .aut)
  warpcheck export model.dve --network dir/        # channel-only DVE as a network
  warpcheck explore model.nm --const N=3          # a PRISM model (also .drn, .tra)
  warpcheck mec model.nm --const N=3 --json       # maximal end components
  warpcheck puzzle sliding-tile 3x4               # a puzzle's BFS layers (also top-spin 12,4, pancake 12)
  warpcheck plan domain.pddl problem.pddl --json  # a cost-optimal plan of a PDDL task
  warpcheck solve nine-mens-morris --pieces 4     # a game solved by retrograde analysis

On the GPU (--backend gpu: an error without one; auto: the GPU when present):
  warpcheck explore model.dve --backend gpu       # explore and check: auto by default
  warpcheck check model.prop2.dve --backend gpu --algorithm map
  warpcheck scc model.dve --backend gpu --algorithm fb-coloring
  warpcheck cycle-mean graph.d --backend gpu      # Howard's policy iteration

Exit status: 0 holds, 1 violated, 2 bad input, 3 resource limit reached.";

#[derive(Parser)]
#[command(name = "warpcheck", version, about = "A model checker and state-space analysis toolkit")]
#[command(after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Explore the whole state space and report its size.
    #[command(after_help = EXAMPLES)]
    Explore(explore::ExploreArgs),
    /// Check deadlocks, assertions and invariants (shortest counterexample); or, in a
    /// model with a property process and no other check named, its LTL property
    /// (lasso counterexample).
    #[command(after_help = EXAMPLES)]
    Check(explore::CheckArgs),
    /// Decompose a model's state graph or a graph file into strongly connected components.
    #[command(after_help = EXAMPLES)]
    Scc(scc::SccArgs),
    /// Minimum or maximum cycle mean or cycle ratio, exactly, with a critical cycle.
    #[command(after_help = EXAMPLES)]
    CycleMean(cycle::CycleArgs),
    /// Maximal end components of an MDP, or the bottom SCCs of a DTMC or CTMC.
    #[command(after_help = EXAMPLES)]
    Mec(markov::MecArgs),
    /// Write a DVE model (channel-only) or a network as a network: an `.exp` with its
    /// `.aut` components, or a GPUexplore `.gpf`.
    Export(export::ExportArgs),
    /// The state space of a puzzle (sliding tile, Top-Spin, pancake, peg solitaire,
    /// Frogs-and-Toads, Fore-and-Aft) by breadth-first search over a perfect hash.
    #[command(after_help = EXAMPLES)]
    Puzzle(puzzle::PuzzleArgs),
    /// A cost-optimal plan of a PDDL task (STRIPS, typing, ADL conditions and
    /// effects, action costs, soft goals for net benefit), validated before it is
    /// printed; exit 1 when unsolvable.
    #[command(after_help = EXAMPLES)]
    Plan(plan::PlanArgs),
    /// Solve a game by retrograde analysis: Nine Men's Morris (or the same game with
    /// fewer pieces), the value of the start and of a given position, with its moves.
    #[command(after_help = EXAMPLES)]
    Solve(solve::SolveArgs),
    /// Write a synthetic graph (Erdős–Rényi, R-MAT, SSCA#2) of the SCC papers.
    Generate(graphs::GenerateArgs),
}

/// The threads to use: the requested number, or all cores.
pub fn thread_count(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// A rayon pool of `threads` threads.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::Resource(format!("cannot start {threads} threads: {e}")))
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader of our output goes
    // away (`warpcheck ... | head`) instead of failing to print.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    error::finish(match Cli::parse().command {
        Command::Explore(args) => explore::explore(args),
        Command::Check(args) => explore::check(args),
        Command::Scc(args) => scc::run(args),
        Command::CycleMean(args) => cycle::run(args),
        Command::Generate(args) => graphs::generate(args),
        Command::Export(args) => export::run(args),
        Command::Mec(args) => markov::mec(args),
        Command::Puzzle(args) => puzzle::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Solve(args) => solve::run(args),
    })
}
