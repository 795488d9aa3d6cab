//! `warpcheck explore MODEL` and `warpcheck check MODEL`: the arguments they share
//! ([`RunArgs`]), and the exploration with checks (deadlocks, assertions, invariants)
//! on the parallel CPU engine or the GPU engine, generic over the loaded model. A
//! model with a property process, or `--ltl`, goes to [`crate::ltl`].

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use warpcheck_explore::gpu::{GpuOptions, GpuReport, GpuStore};
use warpcheck_explore::{explore_parallel, Checks, Invariant, Options, Order, Report, ViolationKind};
use warpcheck_model::CudaModel;
use warpcheck_native::Native;
use warpcheck_store::MemoryBudget;

use crate::backend::{Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::frontend::network::NetworkArgs;
use crate::frontend::{self, FormatArg, Input, LoadOptions, Loaded, ModelCommand, OverflowArg, Reads};
use crate::{graphs, ltl, markov, memory, pctl, progress, report};

/// The arguments of `explore` and `check`.
#[derive(Args)]
pub struct RunArgs {
    /// A model: DVE (`.dve`), a network of LTSs (`.exp`, `.gpf`), a labelled LTS
    /// (`.aut`); for `explore` also a Markov model: PRISM (`.prism`, `.pm`, `.nm`,
    /// `.sm`), Storm's `.drn` or PRISM's explicit `.tra`.
    pub model: PathBuf,
    /// The model's format, instead of its extension's.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Memory for the state table, e.g. 512M or 8G (default: on the CPU, grow as
    /// needed up to half of the available memory; on the GPU, 90% of the free device
    /// memory).
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    pub memory: Option<u64>,
    /// Keep the states on disk, in a fresh directory inside DIR (removed at the end):
    /// `explore` then searches breadth first on the CPU with delayed duplicate
    /// detection, memory holding a successor buffer (half of `--memory`, default an
    /// eighth of the available memory, at most 4 GiB); LTL with `--algorithm
    /// semi-external` keeps its state files there (default: the system's temporary
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub disk: Option<PathBuf>,
    /// Where to run: `cpu`; `gpu` (an error without a CUDA device, or for what has no
    /// GPU version: depth-first order, `--graph-out`, LTL with ndfs, cndfs, the
    /// sequential variants or `--incremental`); `auto` (the GPU when one is present and
    /// what is asked runs there, else the CPU with a note). LTL without `--algorithm`:
    /// `auto` checks on the CPU (nested DFS), `gpu` runs owcty.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// The CUDA device to use (the first of `--gpus`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// GPUs to explore on, from `--device` on: a number or `all` (default: all; one with
    /// `--gpu-store compressed`). The state store is partitioned over them by a hash of
    /// the state, so that its room grows with the GPUs. `check --ltl` uses one GPU
    /// unless `--gpus` or `--partitions` says more (then the product's graph and the
    /// cycle detection are on the first); the graph commands use `--device` alone.
    #[arg(long, value_name = "N|all", value_parser = parse_gpus)]
    pub gpus: Option<Gpus>,
    /// Partitions of the GPU state store, spread round robin over the GPUs (default:
    /// one per GPU). More partitions than GPUs run the multi-GPU exchange on fewer.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub partitions: Option<u32>,
    /// The GPU's state store (one GPU): `flat` (whole states, fastest), `compressed`
    /// (tree-compressed states: far fewer bytes per state on wide states, slower; past
    /// device memory, part of it in host memory, slower still), `auto` (flat,
    /// and when it fills, the search again compressed).
    #[arg(long, value_enum, default_value_t = GpuStoreArg::Auto)]
    pub gpu_store: GpuStoreArg,
    /// GPU: also time successor generation alone (one extra launch per level), to
    /// show where the time goes.
    #[arg(long)]
    pub profile: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Write the progress to standard error as plain lines, one every SECONDS seconds,
    /// even with `--json` or `--quiet` and when standard error is not a terminal (logs
    /// of long runs)
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub progress_every: Option<f64>,
    /// Exploration order: `bfs` (level by level, shortest counterexamples) or `dfs`.
    #[arg(long, value_enum, default_value_t = OrderArg::Bfs)]
    pub order: OrderArg,
    /// CPU successor code: `closures` (built in); `native` (the model's generated C
    /// compiled with the system C++ compiler, `$CXX` or `c++`, cached on disk; an
    /// error without a compiler); `auto` (native when a compiler is present and the
    /// model's tables are small, else the closures with a note).
    #[arg(long, value_enum, default_value_t = SuccessorCode::Auto, env = "WARPCHECK_SUCCESSORS")]
    pub successors: SuccessorCode,
    /// Out-of-range assignments: `error` (an evaluation error, as in DiVinE 2.4) or
    /// `wrap` (wrap around as in C, as DiVinE's compiled models run by LTSmin do).
    #[arg(long, value_enum, default_value_t = OverflowArg::Error)]
    pub overflow: OverflowArg,
    #[command(flatten)]
    pub network: NetworkArgs,
    /// PDDL problems: the domain file (default: `<problem>-domain.pddl`,
    /// `domain_<problem>.pddl` or `domain.pddl` beside the problem).
    #[arg(long, value_name = "FILE")]
    pub domain: Option<PathBuf>,
}

/// `--gpus`: a count, or every GPU from `--device` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gpus {
    Count(u32),
    All,
}

/// A number of seconds: finite and not negative.
fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("`{text}`: expected a number of seconds, 0 or more")),
    }
}

fn parse_gpus(text: &str) -> Result<Gpus, String> {
    match text {
        "all" => Ok(Gpus::All),
        _ => match text.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Gpus::Count(n)),
            _ => Err(format!("expected a number of GPUs (1 or more) or `all`, found `{text}`")),
        },
    }
}

/// `--gpu-store`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GpuStoreArg {
    Auto,
    Flat,
    Compressed,
}

/// `--successors`: how the CPU engine computes successors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuccessorCode {
    Closures,
    Native,
    Auto,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    Bfs,
    Dfs,
}

impl RunArgs {
    /// Loads the model and runs `command` on it.
    pub fn with_model<C: ModelCommand>(&self, reads: &Reads, command: C) -> Result<C::Output, CliError> {
        let Input::Model(front_end) = frontend::resolve(&self.model, self.format, reads)? else {
            return Err(CliError::Input(format!("{} reads models only", reads.command)));
        };
        let options =
            LoadOptions { overflow: self.overflow, network: self.network.clone(), domain: self.domain.clone() };
        frontend::with_model(front_end, &self.model, options, command)
    }

    pub fn threads(&self) -> usize {
        crate::thread_count(self.threads)
    }

    pub fn path(&self) -> String {
        self.model.display().to_string()
    }
}

/// `explore`.
#[derive(Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Write the state graph to FILE (.aut, .edges/.txt, .wcg) instead of running the
    /// parallel engine: a sequential exploration on the CPU that keeps every edge.
    #[arg(long, value_name = "FILE")]
    pub graph_out: Option<PathBuf>,
    #[command(flatten)]
    pub markov: markov::MarkovArgs,
    /// Markov models: write the model as Storm's DRN (`.drn`) or PRISM's explicit files
    /// (`.tra`, with `.lab`, `.sta`, `.srew`, `.trew` beside it); gzipped for a name
    /// ending in `.gz`.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
}

/// `check`.
#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Report states without successors.
    #[arg(long)]
    pub deadlock: bool,
    /// Check the model's `assert` clauses.
    #[arg(long = "assert")]
    pub assertions: bool,
    /// A state predicate (in the model's language) that must hold in every reachable
    /// state (repeatable).
    #[arg(long = "invariant", value_name = "EXPR")]
    pub invariants: Vec<String>,
    /// Explore everything and count every violation instead of stopping at the first.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub search: ltl::SearchArgs,
    #[command(flatten)]
    pub formula: ltl::FormulaArgs,
    #[command(flatten)]
    pub markov: markov::MarkovArgs,
    #[command(flatten)]
    pub pctl: pctl::PctlArgs,
}

/// Runs `explore`.
pub fn explore(args: ExploreArgs) -> Result<Verdict, CliError> {
    let run = &args.run;
    let input = frontend::resolve(&run.model, run.format, &frontend::EXPLORE)?;
    if run.disk.is_some() && (args.graph_out.is_some() || matches!(input, Input::Markov(_))) {
        return Err(CliError::input(
            "--disk explores a model's states on disk: not with --graph-out or a Markov model",
        ));
    }
    if let Input::Markov(format) = input {
        if args.graph_out.is_some() {
            return Err(CliError::Input("--graph-out: a Markov model is written with --export FILE.drn|.tra".into()));
        }
        let gpu_path = match format {
            frontend::MarkovFormat::Prism => Ok(()),
            _ => Err("explicit Markov files are read on the CPU".into()),
        };
        // The GPU builder runs when asked for: `auto` builds on the CPU.
        let placement = run.backend.place(run.device, gpu_path)?;
        let builder = match run.backend {
            Backend::Gpu => markov::Builder::of(placement, run.device, format),
            _ => markov::Builder::Cpu,
        };
        let export = args.export.as_ref();
        return markov::explore(&run.model, format, &args.markov, export, run.threads(), run.json, builder);
    }
    if args.export.is_some() || !args.markov.constants.is_empty() || args.markov.model_type.is_some() {
        return Err(CliError::Input(format!(
            "--export, --const and --type are for Markov models (PRISM, .drn, .tra), not {}",
            run.model.display()
        )));
    }
    match &args.graph_out {
        Some(out) => args.run.with_model(&frontend::EXPLORE, graphs::GraphOut { run: &args.run, out }),
        None => args.run.with_model(&frontend::EXPLORE, Explore(&args.run)),
    }
}

struct Explore<'a>(&'a RunArgs);

impl ModelCommand for Explore<'_> {
    type Output = Verdict;
    fn run<L: Loaded>(self, loaded: L) -> Result<Verdict, CliError> {
        let args = self.0;
        let model = loaded.model();
        if let Some(dir) = &args.disk {
            crate::disk::explore(args, model, dir)?;
            return Ok(Verdict::Holds);
        }
        let (report, gpu, native) = run(args, model, Checks::default(), false, false)?;
        let engine = report::Engine { threads: args.threads(), gpu: gpu.as_ref(), native };
        if args.json {
            report::print_stats_json(args.path(), model, &report, &engine);
        } else {
            report::print_stats(model, &report, &engine);
        }
        Ok(Verdict::Holds)
    }
}

/// Runs `check`.
pub fn check(args: CheckArgs) -> Result<Verdict, CliError> {
    let run = &args.run;
    // Markov models are checked against quantitative properties (`--property`).
    if let Ok(Input::Markov(format)) = frontend::resolve(&run.model, run.format, &frontend::EXPLORE) {
        let placement = run.backend.place(run.device, args.pctl.gpu_path())?;
        let auto = run.backend == Backend::Auto;
        let place = pctl::Where { placement, auto, device: run.device, sweeps: args.pctl.sweeps };
        return pctl::run(&run.model, format, &args.markov, &args.pctl, run.threads(), run.json, place);
    }
    if args.pctl.given() || !args.markov.constants.is_empty() || args.markov.model_type.is_some() {
        return Err(CliError::Input(format!(
            "--property, --properties, --values, --exact, --sweeps, --const and --type are for Markov models (PRISM, .drn, .tra), not {}",
            run.model.display()
        )));
    }
    args.run.with_model(&frontend::CHECK, Check(&args))
}

struct Check<'a>(&'a CheckArgs);

impl ModelCommand for Check<'_> {
    type Output = Verdict;
    fn run<L: Loaded>(self, mut loaded: L) -> Result<Verdict, CliError> {
        let args = self.0;
        let none_named = !args.deadlock && !args.assertions && args.invariants.is_empty();
        if args.formula.given() {
            return ltl::run_formula(&args.run, loaded, &args.formula, !none_named || args.all, &args.search);
        }
        if none_named && !args.all {
            if let Some(automaton) = loaded.property() {
                let summary = frontend::summary(automaton, &automaton.name);
                return ltl::run(&args.run, loaded.model(), summary, &args.search);
            }
        }
        if args.run.disk.is_some() {
            return Err(CliError::input(
                "--disk keeps the states on disk for `explore` and for LTL with --algorithm semi-external; \
                 deadlocks, assertions and invariants are checked in memory",
            ));
        }
        if args.search.algorithm.is_some() || args.search.incremental.is_some() || args.search.seed.is_some() {
            return Err(CliError::input(
                "--algorithm, --incremental and --seed choose how an LTL property is checked: each needs a model \
                 with a property process and no --deadlock, --assert, --invariant or --all",
            ));
        }
        let mut checks = Checks {
            deadlock: args.deadlock || none_named,
            assertions: args.assertions || none_named,
            invariants: vec![],
        };
        for text in &args.invariants {
            let label = loaded.add_invariant(text)?;
            checks.invariants.push(Invariant { text: text.clone(), label });
        }
        let model = loaded.model();
        let (report, gpu, native) = run(&args.run, model, checks.clone(), !args.all, true)?;
        let engine = report::Engine { threads: args.run.threads(), gpu: gpu.as_ref(), native };
        if args.run.json {
            let stats = report::stats(args.run.path(), model, &report, &engine);
            crate::json::print(&report::check_json(model, &checks, &report, stats));
        } else {
            print_check(model, &checks, &report, &engine);
        }
        Ok(Verdict::of(!report.violations.is_empty()))
    }
}

fn print_check<M: CudaModel>(model: &M, checks: &Checks, report: &Report, engine: &report::Engine<'_>) {
    report::print_stats(model, report, engine);
    let mut checked = Vec::new();
    if checks.deadlock {
        checked.push("deadlock".to_string());
    }
    if checks.assertions {
        checked.push(format!("{} assertion(s)", model.assertion_labels().len()));
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
        println!("violated: {} ({} time(s))", v.kind.describe(model, checks), v.count);
        if let Some(t) = &v.trace {
            report::print_trace(model, t);
        }
    }
}

/// Runs the engine `--backend` chooses; with the GPU, also returns its timings; on the
/// CPU, whether the successor code was native.
fn run<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    checks: Checks,
    stop_at_first: bool,
    traces: bool,
) -> Result<(Report, Option<GpuReport>, bool), CliError> {
    let gpu_path = match args.order {
        OrderArg::Dfs => Err("the GPU engine explores breadth first only (--order dfs)".to_string()),
        OrderArg::Bfs => Ok(()),
    };
    if args.backend.place(args.device, gpu_path)? == Placement::Gpu {
        match run_gpu(args, model, checks.clone(), stop_at_first) {
            Ok(mut r) => return Ok((std::mem::take(&mut r.report), Some(r), false)),
            Err(e) if args.backend.falls_back(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    run_cpu(args, model, checks, stop_at_first, traces).map(|(r, native)| (r, None, native))
}

/// Runs the GPU engine.
fn run_gpu<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    checks: Checks,
    stop_at_first: bool,
) -> Result<GpuReport, warpcheck_explore::gpu::GpuError> {
    let progress = progress::ProgressLine::new(args.quiet || args.json, args.progress_every);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    let visible = || warpcheck_explore::gpu::device_count().map_or(1, |n| n.max(1) as usize);
    let gpus = gpu_count(args.gpus, args.gpu_store, args.device, visible);
    let options = GpuOptions {
        device: args.device,
        gpus,
        partitions: args.partitions.map_or(0, |n| n as usize),
        memory: args.memory,
        checks,
        stop_at_first,
        profile: args.profile,
        progress: Some(&update),
        store: match args.gpu_store {
            GpuStoreArg::Auto => GpuStore::Auto,
            GpuStoreArg::Flat => GpuStore::Flat,
            GpuStoreArg::Compressed => GpuStore::Compressed,
        },
    };
    let result = warpcheck_explore::gpu::explore_gpu(model, &options);
    progress.finish();
    result
}

/// The GPUs to explore on: `--gpus`, by default every visible one from `--device` on
/// (one for the compressed store, which holds its states on one GPU).
fn gpu_count(gpus: Option<Gpus>, store: GpuStoreArg, device: usize, visible: impl Fn() -> usize) -> usize {
    match gpus {
        Some(Gpus::Count(n)) => n as usize,
        None if store == GpuStoreArg::Compressed => 1,
        None | Some(Gpus::All) => visible().saturating_sub(device).max(1),
    }
}

/// Runs the parallel CPU engine; says whether its successor code was native.
fn run_cpu<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    checks: Checks,
    stop_at_first: bool,
    traces: bool,
) -> Result<(Report, bool), CliError> {
    let table = Options::table_for(MemoryBudget::or_default(args.memory), traces);
    let progress = progress::ProgressLine::new(args.quiet || args.json, args.progress_every);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    let options = Options {
        threads: args.threads(),
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
    let native = native_code(args.successors, model)?;
    let is_native = native.is_some();
    let result = match native {
        Some(native) => explore_parallel(&native, &options).map(|mut report| {
            // The compiled code's steps carry no groups: name the steps with the model.
            for v in &mut report.violations {
                let error = match v.kind {
                    ViolationKind::EvalError(e) => Some(e),
                    _ => None,
                };
                v.trace = v.trace.as_ref().map(|trace| trace.rebuilt(model, error));
            }
            report
        }),
        None => explore_parallel(model, &options),
    };
    progress.finish();
    Ok((result?, is_native))
}

/// The model's native successor code, when `--successors` asks for it and it can be
/// built (`auto` falls back to the closures with a note).
pub fn native_code<M: CudaModel>(code: SuccessorCode, model: &M) -> Result<Option<Native<&M>>, CliError> {
    match code {
        SuccessorCode::Closures => Ok(None),
        SuccessorCode::Native => {
            Native::new(model).map(Some).map_err(|e| CliError::Input(format!("--successors native: {e}")))
        }
        SuccessorCode::Auto => match Native::new_within(model, warpcheck_native::QUICK_TABLE_WORDS) {
            Ok(native) => Ok(Some(native)),
            Err(e) => {
                eprintln!("note: using the built-in successor code ({e})");
                Ok(None)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_gpu_from_the_device_on_unless_told_or_compressed() {
        let four = || 4;
        assert_eq!(gpu_count(None, GpuStoreArg::Auto, 0, four), 4);
        assert_eq!(gpu_count(None, GpuStoreArg::Flat, 1, four), 3);
        assert_eq!(gpu_count(None, GpuStoreArg::Compressed, 0, four), 1);
        assert_eq!(gpu_count(Some(Gpus::All), GpuStoreArg::Auto, 3, four), 1);
        assert_eq!(gpu_count(Some(Gpus::All), GpuStoreArg::Auto, 7, four), 1);
        assert_eq!(gpu_count(Some(Gpus::Count(2)), GpuStoreArg::Compressed, 0, four), 2);
        assert_eq!(gpu_count(None, GpuStoreArg::Auto, 0, || 1), 1);
    }
}
