//! `warpcheck cycle-mean INPUT`: the minimum or maximum cycle mean or cycle ratio of a
//! weighted graph (`.d`, Dasdan's DIMACS-like format) or of a model's state graph
//! weighted by DVE expressions, exactly, with a critical cycle.
//!
//! Weights of a model: `--weight EXPR` is evaluated on the *target* state of each
//! transition (so every transition into a state costs the same: the cost of being
//! in, or arriving at, that state), `--time EXPR` likewise (default 1). Target rather
//! than source, because a transition's effect is visible in its target state (a
//! counter that a step increments, the process's new control state). The error state
//! of a model, which has no successors and so lies on no cycle, weighs 0.
//!
//! The GPU: `--algorithm howard-gpu` (with `--device N`) runs Howard's policy
//! iteration on a CUDA device ([`warpcheck_cycle::gpu`]), exact like the others (a
//! certificate per component, the CPU Howard where it fails); without a device it is
//! an error (exit 2), never a silent CPU run. An algorithm rather than a `--backend`,
//! because only Howard has a GPU version.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use warpcheck_cycle::gpu::{GpuHoward, GpuHowardError, GpuHowardOptions, GpuHowardReport};
use warpcheck_cycle::{dimacs, solve, Algorithm, CycleError, Options, Problem, Sense, Solution, WeightedGraph};
use warpcheck_dve::DveModel;
use warpcheck_explore::{state_graph_with_states, StateGraphError};

use crate::{cuda_error, exit, OverflowArg};

#[derive(Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// Howard's policy iteration (sequential).
    Howard,
    /// Howard's policy iteration, components and improvement steps in parallel.
    HowardPar,
    /// Young–Tarjan–Orlin parametric shortest paths (sequential).
    Yto,
    /// Karp's O(nm) algorithm (sequential; cycle means only).
    Karp,
    /// Howard's policy iteration on a CUDA GPU, all components at once (an error
    /// without a GPU).
    HowardGpu,
}

/// Arguments of `cycle-mean`.
#[derive(Args)]
pub struct CycleArgs {
    /// A weighted graph (`.d`: `p name n m`, `a u v weight time`) or a DVE model
    /// (`.dve`, explored first; needs `--weight`).
    input: PathBuf,
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
    /// Worker threads of `howard-par`, and of the SCC decomposition and certificates of
    /// `howard-gpu` (default: all cores).
    #[arg(long, short = 't')]
    threads: Option<usize>,
    /// `howard-gpu`: the CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// Also report the optimum of every strongly connected component with a cycle.
    #[arg(long)]
    per_scc: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Model: the weight of a transition, a DVE expression evaluated on its target state.
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

fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(exit::BAD_INPUT)
}

/// The input: the weighted graph, and for a model the model and its states.
struct Input {
    graph: WeightedGraph,
    model: Option<(DveModel, Vec<u32>)>,
}

fn is_model(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "dve")
}

fn load(args: &CycleArgs) -> Result<Input, ExitCode> {
    if !is_model(&args.input) {
        if args.weight.is_some() || args.time.is_some() {
            return Err(bad_input("--weight and --time apply to models (.dve); a .d file carries its own"));
        }
        let d = dimacs::read(&args.input).map_err(bad_input)?;
        return Ok(Input { graph: d.graph, model: None });
    }
    let Some(weight) = &args.weight else {
        return Err(bad_input("a model needs --weight EXPR (a DVE expression evaluated on each transition's target)"));
    };
    let mut dve = crate::read_model(&args.input)?;
    dve.model.overflow = args.overflow.into();
    let compile = |what: &str, source: &str| {
        dve.expression(source).map_err(|d| {
            eprint!("{}", d.render(what, source));
            ExitCode::from(exit::BAD_INPUT)
        })
    };
    let weight_expr = compile("--weight", weight)?;
    let time_expr = args.time.as_deref().map(|t| compile("--time", t)).transpose()?;
    let (sg, states) = state_graph_with_states(&dve.model, None).map_err(|e: StateGraphError| {
        eprintln!("error: {e}");
        ExitCode::from(exit::RESOURCE)
    })?;
    let words = dve.model.state_words();
    let real = states.len() / words.max(1);
    let ev = dve.model.evaluator(&mut []);
    let per_state = |expr: &warpcheck_dve::ir::Expr, what: &str| -> Result<Vec<i64>, ExitCode> {
        let mut out = Vec::with_capacity(sg.graph.vertices());
        for v in 0..real {
            let state = &states[v * words..(v + 1) * words];
            let x = ev.eval(expr, state).map_err(|e| {
                let described = dve.model.describe_state(state).join(", ");
                bad_input(format!("evaluating {what} on state {v} ({described}): {e}"))
            })?;
            out.push(x as i64);
        }
        out.resize(sg.graph.vertices(), 0); // the error state
        Ok(out)
    };
    let weights_of = per_state(&weight_expr, "--weight")?;
    let times_of = match &time_expr {
        Some(t) => per_state(t, "--time")?,
        None => vec![1; sg.graph.vertices()],
    };
    let csr = sg.graph.forward();
    let weights = csr.targets().iter().map(|&t| weights_of[t as usize]).collect();
    let times = csr.targets().iter().map(|&t| times_of[t as usize]).collect();
    let graph = WeightedGraph::from_csr(csr, weights, times).map_err(|e| bad_input(format!("--time: {e}")))?;
    Ok(Input { graph, model: Some((dve, states)) })
}

/// Vertex names as the input numbers them: 1-based for `.d`, state ids for models.
fn vertex_name(input: &Input, v: u32) -> u64 {
    if input.model.is_some() {
        v as u64
    } else {
        v as u64 + 1
    }
}

fn cycle_json(input: &Input, c: &warpcheck_cycle::CriticalCycle) -> (Value, Value) {
    let g = &input.graph;
    let vertices: Vec<u64> = c.vertices.iter().map(|&v| vertex_name(input, v)).collect();
    let edges: Vec<Value> = c
        .edges
        .iter()
        .map(|&e| {
            json!({"source": vertex_name(input, g.source(e)), "target": vertex_name(input, g.target(e)),
                   "weight": g.weight(e), "time": g.time(e)})
        })
        .collect();
    (json!(vertices), json!(edges))
}

fn cycle_error(e: CycleError) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(match e {
        CycleError::Overflow | CycleError::Internal(_) => exit::RESOURCE,
        _ => exit::BAD_INPUT,
    })
}

/// Runs `cycle-mean`: every algorithm named, one after another, on the input loaded once.
pub fn run(args: CycleArgs) -> Result<ExitCode, ExitCode> {
    let problem = if args.ratio { Problem::Ratio } else { Problem::Mean };
    let sense = if args.max { Sense::Max } else { Sense::Min };
    let core = |a: AlgorithmArg| match a {
        AlgorithmArg::Howard | AlgorithmArg::HowardGpu => Algorithm::Howard,
        AlgorithmArg::HowardPar => Algorithm::HowardPar,
        AlgorithmArg::Yto => Algorithm::Yto,
        AlgorithmArg::Karp => Algorithm::Karp,
    };
    if args.algorithm.iter().any(|&a| !core(a).supports(problem)) {
        return Err(bad_input("karp computes cycle means only; use howard, howard-par, howard-gpu or yto for --ratio"));
    }
    let threads = crate::thread_count(args.threads);
    let pool = crate::thread_pool(threads)?;
    // The device first: no GPU is an error before any input is read.
    let on_gpu = |a: AlgorithmArg| matches!(a, AlgorithmArg::HowardGpu);
    let device = match args.algorithm.iter().any(|&a| on_gpu(a)) {
        true => Some(GpuHoward::new(args.device).map_err(cuda_error)?),
        false => None,
    };
    let start = Instant::now();
    let input = load(&args)?;
    let load_seconds = start.elapsed().as_secs_f64();
    let what =
        format!("{} cycle {}", if args.max { "maximum" } else { "minimum" }, if args.ratio { "ratio" } else { "mean" });
    for (i, &a) in args.algorithm.iter().enumerate() {
        let algorithm = core(a);
        let options = Options { problem, sense, algorithm };
        let (solution, gpu) = match (&device, on_gpu(a)) {
            (Some(device), true) => {
                let gpu_options = GpuHowardOptions { device: args.device, ..Default::default() };
                let report =
                    pool.install(|| device.solve(&input.graph, &options, &gpu_options)).map_err(|e| match e {
                        GpuHowardError::Cycle(e) => cycle_error(e),
                        GpuHowardError::Cuda(e) => cuda_error(e),
                        e @ GpuHowardError::TooLarge(_) => {
                            eprintln!("error: {e}");
                            ExitCode::from(exit::RESOURCE)
                        }
                    })?;
                (report.solution.clone(), Some(report))
            }
            _ => (pool.install(|| solve(&input.graph, &options)).map_err(cycle_error)?, None),
        };
        let threads_used = if algorithm == Algorithm::HowardPar || on_gpu(a) { threads } else { 1 };
        let name = if on_gpu(a) { "howard-gpu" } else { algorithm.name() };
        let run = Run { name, threads: threads_used, what: &what, load_seconds, gpu: gpu.as_ref() };
        if args.json {
            print_json(&args, &input, &solution, &run);
        } else {
            if i > 0 {
                println!();
            }
            print_text(&args, &input, &solution, &run);
        }
    }
    Ok(ExitCode::from(exit::HOLDS))
}

/// How the solution was computed, for the report.
struct Run<'a> {
    name: &'a str,
    threads: usize,
    what: &'a str,
    load_seconds: f64,
    gpu: Option<&'a GpuHowardReport>,
}

fn print_json(args: &CycleArgs, input: &Input, s: &Solution, run: &Run) {
    let Run { name, threads, what, load_seconds, gpu } = *run;
    let (cycle, edges) = s.cycle.as_ref().map_or((Value::Null, Value::Null), |c| cycle_json(input, c));
    let mut report = json!({
        "input": args.input.display().to_string(),
        "vertices": input.graph.vertices(),
        "edges": input.graph.edges(),
        "problem": what,
        "algorithm": name,
        "backend": if gpu.is_some() { "gpu" } else { "cpu" },
        "threads": threads,
        "value": s.value.map(|v| v.to_string()),
        "decimal": s.value.map(|v| v.to_f64()),
        "cycle": cycle,
        "cycle_edges": edges,
        "cyclic_sccs": s.components.len(),
        "rounds": s.rounds,
        "seconds": s.seconds,
        "scc_seconds": s.scc_seconds,
        "load_seconds": load_seconds,
    });
    if let Some(g) = gpu {
        report["device"] = json!(g.device_name);
        report["device_rounds"] = json!(g.rounds);
        report["launches"] = json!(g.launches);
        report["kernel_seconds"] = json!(g.kernel_seconds);
        report["device_seconds"] = json!(g.device_seconds);
        report["upload_seconds"] = json!(g.upload_seconds);
        report["setup_seconds"] = json!(g.setup_seconds);
        report["certify_seconds"] = json!(g.certify_seconds);
        report["certificate_fallbacks"] = json!(g.fallbacks);
        report["fallback_rounds"] = json!(g.fallback_rounds);
        report["device_bytes"] = json!(g.device_bytes);
    }
    if let (Some((dve, states)), Some(c)) = (&input.model, &s.cycle) {
        let words = dve.model.state_words();
        let described: Vec<Value> = c
            .vertices
            .iter()
            .map(|&v| match states.get(v as usize * words..(v as usize + 1) * words) {
                Some(state) => json!(dve.model.describe_state(state)),
                None => json!(["error state"]),
            })
            .collect();
        report["states"] = json!(described);
    }
    if args.per_scc {
        let comps: Vec<Value> = s
            .components
            .iter()
            .map(|c| {
                json!({"representative": vertex_name(input, c.representative), "vertices": c.vertices,
                       "edges": c.edges, "value": c.value.to_string(), "decimal": c.value.to_f64(),
                       "cycle": cycle_json(input, &c.cycle).0})
            })
            .collect();
        report["components"] = json!(comps);
    }
    println!("{report}");
}

fn print_text(args: &CycleArgs, input: &Input, s: &Solution, run: &Run) {
    let Run { name, threads, what, load_seconds, gpu } = *run;
    const SHOWN: usize = 40;
    println!("vertices:     {}", input.graph.vertices());
    println!("edges:        {}", input.graph.edges());
    println!("problem:      {what}");
    println!("algorithm:    {name} ({threads} thread(s))");
    match (&s.value, &s.cycle) {
        (Some(v), Some(c)) => {
            println!("value:        {v} ({})", v.decimal(6));
            let names: Vec<String> =
                c.vertices.iter().take(SHOWN).map(|&v| vertex_name(input, v).to_string()).collect();
            let more = if c.vertices.len() > SHOWN { " -> ..." } else { "" };
            let first = vertex_name(input, c.vertices[0]);
            println!("cycle:        {} -> {first}{more}", names.join(" -> "));
            println!("              {} edge(s), weight {}, time {}", c.edges.len(), c.weight, c.time);
            if let Some((dve, states)) = &input.model {
                let words = dve.model.state_words();
                for &v in c.vertices.iter().take(SHOWN) {
                    match states.get(v as usize * words..(v as usize + 1) * words) {
                        Some(state) => println!("  state {v}: {}", dve.model.describe_state(state).join(", ")),
                        None => println!("  state {v}: error state"),
                    }
                }
            }
        }
        _ => println!("value:        none (the graph has no cycle)"),
    }
    println!("cyclic sccs:  {}", s.components.len());
    if name.starts_with("howard") {
        println!("rounds:       {} (policy improvements, all components)", s.rounds);
    }
    println!("time:         {:.3} s ({name}; SCCs {:.3} s, input {load_seconds:.3} s)", s.seconds, s.scc_seconds);
    if let Some(g) = gpu {
        println!(
            "gpu:          {}: {} rounds, kernels {:.3} s, device loop {:.3} s, upload {:.3} s, setup {:.3} s",
            g.device_name, g.rounds, g.kernel_seconds, g.device_seconds, g.upload_seconds, g.setup_seconds
        );
        println!(
            "certificate:  {:.3} s; {} of {} component(s) finished on the CPU ({} rounds)",
            g.certify_seconds,
            g.fallbacks,
            s.components.len(),
            g.fallback_rounds
        );
    }
    if args.per_scc {
        println!("components (representative, vertices, edges, value, decimal):");
        for c in &s.components {
            let r = vertex_name(input, c.representative);
            println!("  {r:>10} {:>10} {:>10}  {}  {}", c.vertices, c.edges, c.value, c.value.decimal(6));
        }
    }
}
