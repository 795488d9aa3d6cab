//! `warpcheck cycle-mean INPUT`: the minimum or maximum cycle mean or cycle ratio of a
//! weighted graph (`.d`, Dasdan's DIMACS-like format) or of a model's state graph
//! weighted by expressions, exactly, with a critical cycle; the reports are in
//! [`output`].
//!
//! Weights of a model: `--weight EXPR` is evaluated on the *target* state of each
//! transition, `--time EXPR` likewise (default 1): the state graph with these values
//! per state is `warpcheck_explore::state_graph_valued`, its edges weighted by their
//! targets `warpcheck_cycle::WeightedGraph::by_target`. The error state of a model,
//! which has no successors and so lies on no cycle, weighs 0.
//!
//! The GPU: `--backend gpu` runs Howard's policy iteration on a CUDA device
//! (`warpcheck_explore::gpu::howard`), exact like the others (a certificate per component,
//! the CPU Howard where it fails); the other algorithms run on the CPU only. `-a
//! howard-gpu`, the older spelling of `--backend gpu -a howard`, still works (with a
//! warning) and still names the GPU Howard in reports.

mod output;

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use warpcheck_cycle::gpu::{GpuHoward, GpuHowardOptions};
use warpcheck_cycle::{dimacs, solve, Algorithm, Options, Problem, Sense, WeightedGraph};
use warpcheck_explore::{state_graph_valued, ValuedGraphError};
use warpcheck_model::{Describe, Model};

use crate::backend::{Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::frontend::{self, FormatArg, Input, LoadOptions, Loaded, ModelCommand, OverflowArg};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AlgorithmArg {
    /// Howard's policy iteration (sequential on the CPU; all components at once on
    /// the GPU).
    Howard,
    /// Howard's policy iteration, components and improvement steps in parallel.
    HowardPar,
    /// Young–Tarjan–Orlin parametric shortest paths (sequential).
    Yto,
    /// Karp's O(nm) algorithm (sequential; cycle means only).
    Karp,
    /// Deprecated: `--backend gpu -a howard`.
    #[value(hide = true)]
    HowardGpu,
}

/// Arguments of `cycle-mean`.
#[derive(Args)]
pub struct CycleArgs {
    /// A weighted graph (`.d`: `p name n m`, `a u v weight time`) or a model (`.dve`,
    /// explored first; needs `--weight`).
    input: PathBuf,
    /// The input's format, instead of its extension's.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// The maximum instead of the minimum.
    #[arg(long)]
    max: bool,
    /// The cycle ratio (weight over transit time) instead of the mean (weight per edge).
    #[arg(long)]
    ratio: bool,
    /// The algorithm; several, comma-separated, run one after another on the same
    /// input (one report each; with `--json`, one JSON object per line).
    #[arg(long, short = 'a', value_enum, value_delimiter = ',', default_value = "howard")]
    algorithm: Vec<AlgorithmArg>,
    /// Where to solve: `cpu`, `gpu` (Howard; an error without a CUDA device or for
    /// another algorithm) or `auto` (Howard on the GPU when one is present, the others
    /// on the CPU). Default: the CPU.
    #[arg(long, value_enum)]
    backend: Option<Backend>,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// Worker threads of `howard-par`, and of the SCC decomposition and certificates of
    /// Howard on the GPU (default: all cores).
    #[arg(long, short = 't')]
    threads: Option<usize>,
    /// Also report the optimum of every strongly connected component with a cycle.
    #[arg(long)]
    per_scc: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Model: the weight of a transition, an expression evaluated on its target state.
    #[arg(long, value_name = "EXPR")]
    weight: Option<String>,
    /// Model: the transit time of a transition (for `--ratio`), evaluated on its target
    /// state (default 1).
    #[arg(long, value_name = "EXPR")]
    time: Option<String>,
    /// Out-of-range assignments in a model: `error` or `wrap` (as for `explore`).
    #[arg(long, value_enum, default_value_t = OverflowArg::Error)]
    overflow: OverflowArg,
}

/// One run of an algorithm: what and where.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Planned {
    algorithm: Algorithm,
    placement: Placement,
}

impl Planned {
    /// The name reports give it: the GPU Howard is `howard-gpu`.
    fn name(self) -> &'static str {
        match self.placement {
            Placement::Gpu => "howard-gpu",
            Placement::Cpu => self.algorithm.name(),
        }
    }
}

/// Where each algorithm named runs (each distinct one placed once, so a note is not
/// repeated).
fn plan(args: &CycleArgs, problem: Problem) -> Result<Vec<Planned>, CliError> {
    let backend = args.backend.unwrap_or(Backend::Cpu);
    if args.algorithm.contains(&AlgorithmArg::HowardGpu) {
        if args.backend == Some(Backend::Cpu) {
            return Err(CliError::input("-a howard-gpu runs on the GPU, --backend cpu on the CPU: choose one"));
        }
        eprintln!("warning: `-a howard-gpu` is deprecated: use `--backend gpu -a howard`");
    }
    let core = |a: AlgorithmArg| match a {
        AlgorithmArg::Howard | AlgorithmArg::HowardGpu => Algorithm::Howard,
        AlgorithmArg::HowardPar => Algorithm::HowardPar,
        AlgorithmArg::Yto => Algorithm::Yto,
        AlgorithmArg::Karp => Algorithm::Karp,
    };
    let gpu_path = |algorithm: Algorithm| match algorithm {
        Algorithm::Howard => Ok(()),
        a => Err(format!("{} runs on the CPU only (the GPU runs howard)", a.name())),
    };
    // Usage errors first, before any device is asked.
    for &a in &args.algorithm {
        if !core(a).supports(problem) {
            return Err(CliError::input("karp computes cycle means only; use howard, howard-par or yto for --ratio"));
        }
        if let (Backend::Gpu, Err(why)) = (backend, gpu_path(core(a))) {
            return Err(CliError::Input(format!("{why}; use --backend cpu or auto")));
        }
    }
    let mut placed: Vec<(AlgorithmArg, Planned)> = Vec::new();
    let mut runs = Vec::with_capacity(args.algorithm.len());
    for &a in &args.algorithm {
        if let Some(&(_, p)) = placed.iter().find(|(b, _)| *b == a) {
            runs.push(p);
            continue;
        }
        let backend = if a == AlgorithmArg::HowardGpu { Backend::Gpu } else { backend };
        let p = Planned { algorithm: core(a), placement: backend.place(args.device, gpu_path(core(a)))? };
        placed.push((a, p));
        runs.push(p);
    }
    Ok(runs)
}

/// Runs `cycle-mean`: every algorithm named, one after another, on the input loaded once.
pub fn run(args: CycleArgs) -> Result<Verdict, CliError> {
    let problem = if args.ratio { Problem::Ratio } else { Problem::Mean };
    let input = frontend::resolve(&args.input, args.format, &frontend::CYCLE_MEAN)?;
    let runs = plan(&args, problem)?;
    // The device first: a device that fails fails before any input is read.
    let device = match runs.iter().any(|r| r.placement == Placement::Gpu) {
        true => Some(GpuHoward::new(args.device)?),
        false => None,
    };
    let solver = Solver { args: &args, runs, device };
    match input {
        Input::Weighted => {
            if args.weight.is_some() || args.time.is_some() {
                return Err(CliError::input("--weight and --time apply to models (.dve); a .d file carries its own"));
            }
            let start = Instant::now();
            let d = dimacs::read(&args.input)?;
            solver.solve(&d.graph, start.elapsed().as_secs_f64(), None)
        }
        Input::Model(front_end) => {
            let options = LoadOptions { overflow: args.overflow, ..LoadOptions::default() };
            frontend::with_model(front_end, &args.input, options, solver)
        }
        Input::Graph(_) | Input::Markov(_) => Err(CliError::input("cycle-mean reads weighted graphs (.d) and models")),
    }
}

/// The algorithms to run, and the device for those on the GPU.
struct Solver<'a> {
    args: &'a CycleArgs,
    runs: Vec<Planned>,
    device: Option<GpuHoward>,
}

/// Describes vertex `v` of a model's state graph (its state, or the error state).
type DescribeVertex<'a> = &'a dyn Fn(u32) -> Vec<String>;

impl ModelCommand for Solver<'_> {
    type Output = Verdict;

    /// A model: its state graph weighted by `--weight` and `--time` on target states.
    fn run<L: Loaded>(self, loaded: L) -> Result<Verdict, CliError> {
        let start = Instant::now();
        let Some(weight) = &self.args.weight else {
            return Err(CliError::input(
                "a model needs --weight EXPR (an expression evaluated on each transition's target)",
            ));
        };
        let mut functions = vec![loaded.state_function(weight, "--weight")?];
        if let Some(time) = &self.args.time {
            functions.push(loaded.state_function(time, "--time")?);
        }
        let model = loaded.model();
        let refs: Vec<_> = functions.iter().map(|f| f.as_ref()).collect();
        let valued = state_graph_valued(model, None, &refs).map_err(|e| match e {
            ValuedGraphError::Eval { function, vertex, state, error } => CliError::Input(format!(
                "evaluating {} on state {vertex} ({}): {error}",
                ["--weight", "--time"][function],
                model.describe_state(&state).join(", ")
            )),
            e => e.into(),
        })?;
        let csr = valued.graph.graph.forward();
        let graph = WeightedGraph::by_target(csr, &valued.values[0], valued.values.get(1).map(Vec::as_slice))
            .map_err(|e| CliError::Input(format!("--time: {e}")))?;
        let words = model.state_words();
        let describe = |v: u32| match valued.state(v, words) {
            Some(state) => model.describe_state(state),
            None => vec!["error state".to_string()],
        };
        self.solve(&graph, start.elapsed().as_secs_f64(), Some(&describe))
    }
}

impl Solver<'_> {
    /// Runs every algorithm on `graph` and reports each; `describe` names the states of
    /// a model's vertices.
    fn solve(
        &self,
        graph: &WeightedGraph,
        load_seconds: f64,
        describe: Option<DescribeVertex<'_>>,
    ) -> Result<Verdict, CliError> {
        let args = self.args;
        let problem = if args.ratio { Problem::Ratio } else { Problem::Mean };
        let sense = if args.max { Sense::Max } else { Sense::Min };
        let threads = crate::thread_count(args.threads);
        let pool = crate::thread_pool(threads)?;
        let what = format!(
            "{} cycle {}",
            if args.max { "maximum" } else { "minimum" },
            if args.ratio { "ratio" } else { "mean" }
        );
        for (i, &planned) in self.runs.iter().enumerate() {
            let options = Options { problem, sense, algorithm: planned.algorithm };
            let (solution, gpu) = match (&self.device, planned.placement) {
                (Some(device), Placement::Gpu) => {
                    let gpu_options = GpuHowardOptions { device: args.device, ..Default::default() };
                    let report = pool.install(|| device.solve(graph, &options, &gpu_options))?;
                    (report.solution.clone(), Some(report))
                }
                _ => (pool.install(|| solve(graph, &options))?, None),
            };
            let parallel = planned.algorithm == Algorithm::HowardPar || planned.placement == Placement::Gpu;
            let run = output::Run {
                input: &args.input,
                name: planned.name(),
                threads: if parallel { threads } else { 1 },
                what: &what,
                load_seconds,
                gpu: gpu.as_ref(),
                per_scc: args.per_scc,
                describe,
            };
            if args.json {
                output::print_json(graph, &solution, &run);
            } else {
                if i > 0 {
                    println!();
                }
                output::print_text(graph, &solution, &run);
            }
        }
        Ok(Verdict::Holds)
    }
}
