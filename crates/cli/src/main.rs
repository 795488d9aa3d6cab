//! The `warpcheck` command: the only place that prints and chooses exit codes.

mod cycle;
mod graphs;
mod ltl;
mod memory;
mod progress;
mod report;
mod scc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use warpcheck_dve::DveModel;
use warpcheck_explore::{explore_parallel, Checks, ExploreError, Invariant, Options, Order, Report};
use warpcheck_gpu::{GpuError, GpuOptions, GpuReport};
use warpcheck_model::Overflow;
use warpcheck_store::MemoryBudget;

/// Exit statuses, one table for the whole binary.
mod exit {
    /// The property holds (or the exploration finished).
    pub const HOLDS: u8 = 0;
    /// A property is violated; a counterexample was printed.
    pub const VIOLATED: u8 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: u8 = 2;
    /// A resource limit (memory, state table) was reached.
    pub const RESOURCE: u8 = 3;
}

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
  warpcheck explore model.dve --backend gpu        # on the GPU (default: GPU when present)
  warpcheck explore model.dve --graph-out model.wcg   # write the state graph
  warpcheck scc model.dve --algorithm fb --json   # strongly connected components
  warpcheck generate rmat g.wcg --vertices 1000000   # a synthetic graph
  warpcheck cycle-mean graph.d --max --ratio --json   # optimal cycle ratio

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
    Explore {
        #[command(flatten)]
        run: RunArgs,
        /// Write the state graph to FILE (.aut, .edges/.txt, .wcg) instead of running
        /// the parallel engine: a sequential exploration that keeps every edge.
        #[arg(long, value_name = "FILE")]
        graph_out: Option<PathBuf>,
    },
    /// Check deadlocks, assertions and invariants (shortest counterexample); or, in a
    /// model with a property process and no other check named, its LTL property
    /// (lasso counterexample).
    #[command(after_help = EXAMPLES)]
    Check {
        #[command(flatten)]
        run: RunArgs,
        /// Report states without successors.
        #[arg(long)]
        deadlock: bool,
        /// Check the model's `assert` clauses.
        #[arg(long = "assert")]
        assertions: bool,
        /// A DVE expression that must hold in every reachable state (repeatable).
        #[arg(long = "invariant", value_name = "EXPR")]
        invariants: Vec<String>,
        /// Explore everything and count every violation instead of stopping at the first.
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        search: ltl::SearchArgs,
        #[command(flatten)]
        formula: ltl::FormulaArgs,
    },
    /// Decompose a model's state graph or a graph file into strongly connected components.
    #[command(after_help = EXAMPLES)]
    Scc(scc::SccArgs),
    /// Minimum or maximum cycle mean or cycle ratio, exactly, with a critical cycle.
    CycleMean(cycle::CycleArgs),
    /// Write a synthetic graph (Erdős–Rényi, R-MAT, SSCA#2) of the SCC papers.
    Generate(graphs::GenerateArgs),
}

#[derive(Args)]
struct RunArgs {
    /// A DVE model (`.dve`).
    model: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    threads: Option<usize>,
    /// Memory for the state table, e.g. 512M or 8G (default: on the CPU, half of the
    /// available memory, the table starting small and growing as needed up to it; on
    /// the GPU, 90% of the free device memory).
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    memory: Option<u64>,
    /// Where to explore: `cpu`, `gpu` (CUDA; an error without one) or `auto` (the GPU
    /// when one is present and the order is breadth first, else the CPU; LTL: the CPU).
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// GPU: also time successor generation alone (one extra launch per level), to
    /// show where the time goes.
    #[arg(long)]
    profile: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress line.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Exploration order: `bfs` (level by level, shortest counterexamples) or `dfs`.
    #[arg(long, value_enum, default_value_t = OrderArg::Bfs)]
    order: OrderArg,
    /// Out-of-range assignments: `error` (an evaluation error, as in DiVinE 2.4) or
    /// `wrap` (wrap around as in C, as DiVinE's compiled models run by LTSmin do).
    #[arg(long, value_enum, default_value_t = OverflowArg::Error)]
    overflow: OverflowArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OverflowArg {
    Error,
    Wrap,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BackendArg {
    Cpu,
    Gpu,
    Auto,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OrderArg {
    Bfs,
    Dfs,
}

/// Reads and loads the model of `args`, printing a diagnostic on failure.
fn load(args: &RunArgs) -> Result<DveModel, ExitCode> {
    let mut dve = read_model(&args.model)?;
    dve.model.overflow = match args.overflow {
        OverflowArg::Error => Overflow::Error,
        OverflowArg::Wrap => Overflow::Wrap,
    };
    Ok(dve)
}

/// Reads and loads a DVE model, printing a diagnostic on failure.
fn read_model(path: &Path) -> Result<DveModel, ExitCode> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", path.display());
        ExitCode::from(exit::BAD_INPUT)
    })?;
    warpcheck_dve::load(&source).map_err(|d| {
        eprint!("{}", d.render(&path.display().to_string(), &source));
        ExitCode::from(exit::BAD_INPUT)
    })
}

/// Runs the engine the arguments choose; with the GPU, also returns its timings.
fn run(
    args: &RunArgs,
    model: &DveModel,
    checks: Checks,
    stop_at_first: bool,
    traces: bool,
) -> Result<(Report, Option<GpuReport>), ExitCode> {
    let gpu = match args.backend {
        BackendArg::Cpu => false,
        BackendArg::Gpu if args.order == OrderArg::Dfs => {
            eprintln!("error: the GPU engine explores breadth first only; use --order bfs or --backend cpu");
            return Err(ExitCode::from(exit::BAD_INPUT));
        }
        BackendArg::Gpu => true,
        BackendArg::Auto => args.order == OrderArg::Bfs && warpcheck_gpu::device_available(),
    };
    if gpu {
        match run_gpu(args, model, checks.clone(), stop_at_first) {
            Ok(mut r) => return Ok((std::mem::take(&mut r.report), Some(r))),
            // `auto` falls back to the CPU when the GPU cannot take the model at all.
            Err(e @ (GpuError::Unsupported(_) | GpuError::Compile(_) | GpuError::NoDevice(_)))
                if args.backend == BackendArg::Auto =>
            {
                eprintln!("warning: {e}; exploring on the CPU");
            }
            Err(e) => return Err(gpu_error(e)),
        }
    }
    run_cpu(args, model, checks, stop_at_first, traces).map(|r| (r, None))
}

/// Reports a failed GPU run; its exit status (2 bad input, 3 a resource limit or a
/// device failure).
pub(crate) fn gpu_error(e: GpuError) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(match e {
        GpuError::NoDevice(_) | GpuError::Unsupported(_) | GpuError::NoProperty => exit::BAD_INPUT,
        GpuError::Full { .. } | GpuError::EdgesFull { .. } | GpuError::Cuda(_) | GpuError::Compile(_) => exit::RESOURCE,
    })
}

/// Runs the GPU engine.
fn run_gpu(args: &RunArgs, model: &DveModel, checks: Checks, stop_at_first: bool) -> Result<GpuReport, GpuError> {
    let progress = progress::ProgressLine::new(args.quiet || args.json);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    let options = GpuOptions {
        device: args.device,
        memory: args.memory,
        checks,
        stop_at_first,
        profile: args.profile,
        progress: Some(&update),
    };
    let result = warpcheck_gpu::explore_gpu(&model.model, &options);
    progress.finish();
    result
}

/// Runs the parallel CPU engine as the arguments say.
fn run_cpu(
    args: &RunArgs,
    model: &DveModel,
    checks: Checks,
    stop_at_first: bool,
    traces: bool,
) -> Result<Report, ExitCode> {
    let threads = thread_count(args.threads);
    let table = Options::table_for(MemoryBudget::or_default(args.memory), traces);
    let progress = progress::ProgressLine::new(args.quiet || args.json);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    let options = Options {
        threads,
        table,
        checks,
        stop_at_first,
        traces,
        progress: Some(&update),
        order: match args.order {
            OrderArg::Bfs => Order::Bfs,
            OrderArg::Dfs => Order::Dfs,
        },
    };
    let result = explore_parallel(&model.model, &options);
    progress.finish();
    result.map_err(|e| match e {
        ExploreError::TableFull { .. } => {
            eprintln!("error: {e}");
            ExitCode::from(exit::RESOURCE)
        }
    })
}

fn threads_used(args: &RunArgs) -> usize {
    thread_count(args.threads)
}

/// The threads to use: the requested number, or all cores.
fn thread_count(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// A rayon pool of `threads` threads for the graph commands, or the resource exit code.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, ExitCode> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| {
        eprintln!("error: cannot start {threads} threads: {e}");
        ExitCode::from(exit::RESOURCE)
    })
}

fn explore(args: RunArgs) -> Result<ExitCode, ExitCode> {
    let dve = load(&args)?;
    let (report, gpu) = run(&args, &dve, Checks::default(), false, false)?;
    let engine = report::Engine { threads: threads_used(&args), gpu: gpu.as_ref() };
    if args.json {
        println!("{}", report::stats_json(&args.model.display().to_string(), &dve.model, &report, &engine));
    } else {
        report::print_stats(&dve.model, &report, &engine);
    }
    Ok(ExitCode::from(exit::HOLDS))
}

fn check(
    args: RunArgs,
    deadlock: bool,
    assertions: bool,
    invariants: Vec<String>,
    all: bool,
    search: ltl::SearchArgs,
    formula: ltl::FormulaArgs,
) -> Result<ExitCode, ExitCode> {
    let dve = load(&args)?;
    let none_named = !deadlock && !assertions && invariants.is_empty();
    if formula.given() {
        return ltl::run_formula(&args, &dve, &formula, !none_named || all, &search);
    }
    if none_named && !all && dve.model.property.is_some() {
        return ltl::run(&args, &dve, &search);
    }
    if search.algorithm.is_some() || search.incremental.is_some() {
        eprintln!("error: --algorithm and --incremental choose how an LTL property is checked: each needs a model with a property process and no --deadlock, --assert, --invariant or --all");
        return Err(ExitCode::from(exit::BAD_INPUT));
    }
    let mut checks =
        Checks { deadlock: deadlock || none_named, assertions: assertions || none_named, invariants: vec![] };
    for text in invariants {
        match dve.expression(&text) {
            Ok(expr) => checks.invariants.push(Invariant { text, expr }),
            Err(d) => {
                eprint!("{}", d.render("--invariant", &text));
                return Err(ExitCode::from(exit::BAD_INPUT));
            }
        }
    }
    let (report, gpu) = run(&args, &dve, checks.clone(), !all, true)?;
    let engine = report::Engine { threads: threads_used(&args), gpu: gpu.as_ref() };
    let model = &dve.model;
    if args.json {
        let stats = report::stats_json(&args.model.display().to_string(), model, &report, &engine);
        println!("{}", report::check_json(model, &checks, &report, stats));
    } else {
        report::print_stats(model, &report, &engine);
        let mut checked = Vec::new();
        if checks.deadlock {
            checked.push("deadlock".to_string());
        }
        if checks.assertions {
            checked.push(format!("{} assertion(s)", model.assertions.len()));
        }
        if !checks.invariants.is_empty() {
            checked.push(format!("{} invariant(s)", checks.invariants.len()));
        }
        checked.push("evaluation errors".to_string());
        println!("checked:      {}", checked.join(", "));
        if report.violations.is_empty() {
            println!("verdict:      holds");
        }
        for v in &report.violations {
            println!();
            println!("violated: {} ({} time(s))", v.kind.describe(model, &checks), v.count);
            if let Some(t) = &v.trace {
                report::print_trace(model, t);
            }
        }
    }
    Ok(ExitCode::from(if report.violations.is_empty() { exit::HOLDS } else { exit::VIOLATED }))
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader of our output goes
    // away (`warpcheck ... | head`) instead of failing to print.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = match Cli::parse().command {
        Command::Explore { run, graph_out: None } => explore(run),
        Command::Explore { run, graph_out: Some(out) } => {
            graphs::explore_to_file(&run.model, run.overflow.into(), &out, run.json)
        }
        Command::Scc(args) => scc::run(args),
        Command::CycleMean(args) => cycle::run(args),
        Command::Generate(args) => graphs::generate(args),
        Command::Check { run, deadlock, assertions, invariants, all, search, formula } => {
            check(run, deadlock, assertions, invariants, all, search, formula)
        }
    };
    result.unwrap_or_else(|code| code)
}
