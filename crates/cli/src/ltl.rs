//! `warpcheck check MODEL` on a model with a property process (`system ... property
//! P;`, BEEM's `.propN.dve` files) and no other check named, or `warpcheck check MODEL
//! --ltl FORMULA` (the negated formula's Büchi automaton made the model's property):
//! LTL model checking on the CPU (nested DFS, CNDFS, OWCTY, MAP) or the GPU (OWCTY,
//! MAP), generic over the model, with a lasso counterexample (stem, then cycle) when
//! the property is violated; its text and JSON ([`crate::json::LtlReport`]).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use warpcheck_explore::gpu::GpuOptions;
use warpcheck_explore::{Lasso, ProgressHook};
use warpcheck_liveness::cndfs::MAX_WORKERS;
use warpcheck_liveness::gpu::{check_gpu, check_gpu_partitioned, GpuAlgorithm, GpuLtl};
use warpcheck_liveness::{check, Algorithm, Options, Outcome};
use warpcheck_ltl::propositions::{parse_argument, parse_file, Definition};
use warpcheck_model::{CudaModel, Product};

use crate::backend::{Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::explore::RunArgs;
use crate::frontend::{Loaded, WithFormula};
use crate::json::{FormulaKeys, LtlGpu, LtlReport, TraceEntry};
use crate::{memory, progress, report};

/// The accepting-cycle algorithm of `check` on a model with a property.
#[derive(Clone, Copy, ValueEnum)]
pub enum AlgorithmArg {
    /// Nested depth-first search on the fly (sequential; stops at the first cycle).
    Ndfs,
    /// Parallel nested depth-first search on the fly (CNDFS) on all threads (at most
    /// 28); stops at the first cycle.
    Cndfs,
    /// OWCTY on the explicit product graph (built on all threads), on all threads.
    Owcty,
    /// OWCTY, sequential.
    OwctySeq,
    /// MAP (maximal accepting predecessors) on the explicit state graph, on all threads.
    Map,
    /// MAP, sequential.
    MapSeq,
    /// Nested depth-first search with the product's states on disk (in `--disk DIR`,
    /// default the system's temporary directory): they are enumerated breadth first
    /// there, then searched with two bits per state in memory, indexed by a minimal
    /// perfect hash (about five bits per state in all). For products larger than
    /// memory.
    SemiExternal,
}

/// How `check` searches for an accepting cycle.
#[derive(Args, Default)]
pub struct SearchArgs {
    /// LTL (a model with a property process): the accepting-cycle algorithm
    /// (default: cndfs on more than one thread, else ndfs).
    #[arg(long, value_enum)]
    pub algorithm: Option<AlgorithmArg>,
    /// LTL with owcty or map on the CPU: build the product in breadth-first prefixes,
    /// the first of STATES states (`--incremental=STATES`, default 1000000), each next
    /// one 8 times larger, and stop at the first prefix with an accepting cycle. Finds
    /// violations without the whole product; a property that holds is decided on the
    /// whole product.
    #[arg(
        long,
        value_name = "STATES",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "1000000",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub incremental: Option<u64>,
    /// LTL on the CPU: follow each state's successors in a random order fixed by N,
    /// instead of the model's: nested DFS (every cndfs worker its own order), or, with
    /// owcty and map, the depth-first prefixes of the product they check (the first of
    /// `--incremental` STATES, default 1000000, each next one 8 times larger) instead of
    /// breadth-first ones. A search that spends long in a region without accepting
    /// cycles may finish at once in another order; the same N repeats the search.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Algorithm {
        match a {
            AlgorithmArg::Ndfs => Algorithm::Ndfs,
            AlgorithmArg::Cndfs => Algorithm::Cndfs,
            AlgorithmArg::Owcty => Algorithm::Owcty,
            AlgorithmArg::OwctySeq => Algorithm::OwctySequential,
            AlgorithmArg::Map => Algorithm::Map,
            AlgorithmArg::MapSeq => Algorithm::MapSequential,
            AlgorithmArg::SemiExternal => Algorithm::SemiExternal,
        }
    }
}

/// Where the check ran, for the report.
enum Engine<'a> {
    Cpu { algorithm: Algorithm, threads: usize },
    Gpu { algorithm: GpuAlgorithm, run: &'a GpuLtl },
}

impl Engine<'_> {
    fn algorithm(&self) -> &'static str {
        match self {
            Engine::Cpu { algorithm, .. } => algorithm.name(),
            Engine::Gpu { algorithm, .. } => algorithm.name(),
        }
    }
}

/// An LTL formula to check instead of a property process.
#[derive(Args, Default)]
pub struct FormulaArgs {
    /// Check this LTL formula: `G F X U R W`, `! && || -> <->`, `true`, `false`
    /// (also `[]`, `<>`); atomic propositions are names defined by --ap/--ap-file or
    /// DVE expressions in double quotes, e.g. 'G ("P_0.wait" -> F "P_0.CS")'.
    #[arg(long, value_name = "FORMULA")]
    pub ltl: Option<String>,
    /// Define an atomic proposition of --ltl: NAME=EXPR, EXPR a DVE expression
    /// (repeatable; a later definition of a name wins).
    #[arg(long = "ap", value_name = "NAME=EXPR")]
    pub aps: Vec<String>,
    /// Atomic propositions of --ltl from a file: BEEM's model.xml (its `<ap>` elements),
    /// or one `NAME = EXPR` per line (`#` comments). Repeatable; --ap wins.
    #[arg(long = "ap-file", value_name = "FILE")]
    pub ap_files: Vec<PathBuf>,
}

impl FormulaArgs {
    /// Whether any formula option was given.
    pub fn given(&self) -> bool {
        self.ltl.is_some() || !self.aps.is_empty() || !self.ap_files.is_empty()
    }
}

/// The definitions of `--ap-file` then `--ap`.
fn definitions(f: &FormulaArgs) -> Result<Vec<Definition>, CliError> {
    let mut definitions = Vec::new();
    for path in &f.ap_files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::Input(format!("cannot read `{}`: {e}", path.display())))?;
        definitions.extend(parse_file(&path.display().to_string(), &text).map_err(CliError::input)?);
    }
    for a in &f.aps {
        definitions.push(parse_argument(a).map_err(CliError::input)?);
    }
    Ok(definitions)
}

/// `check MODEL --ltl FORMULA`: the model with the negated formula's automaton as its
/// property, checked like a property process. `others` is set when another check
/// (`--deadlock`, ...) was named too.
pub fn run_formula<L: Loaded>(
    args: &RunArgs,
    mut loaded: L,
    f: &FormulaArgs,
    others: bool,
    search: &SearchArgs,
) -> Result<Verdict, CliError> {
    let Some(text) = &f.ltl else {
        return Err(CliError::input("--ap and --ap-file define the atomic propositions of --ltl, which is missing"));
    };
    if others {
        return Err(CliError::input(
            "--ltl checks an LTL formula; it cannot be combined with --deadlock, --assert, --invariant or --all",
        ));
    }
    let ready = loaded.formula(text, &definitions(f)?)?;
    let summary = crate::frontend::summary(&ready.automaton, "the negated formula");
    let product = Product::new(loaded.model(), ready.automaton.clone());
    check_model(args, &product, &summary, search, Some((text, &ready)))
}

/// Checks the property of `model` (`summary` says what it is); `--backend gpu` runs
/// OWCTY (default) or MAP on the GPU; `auto` without `--algorithm` runs on the CPU
/// (nested DFS, the fastest on violated properties, needs no graph).
pub fn run<M: CudaModel>(args: &RunArgs, model: &M, summary: String, search: &SearchArgs) -> Result<Verdict, CliError> {
    check_model(args, model, &summary, search, None)
}

/// A formula and the model made of it, for the report.
type Formula<'a> = Option<(&'a str, &'a WithFormula)>;

fn check_model<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    summary: &str,
    search: &SearchArgs,
    formula: Formula<'_>,
) -> Result<Verdict, CliError> {
    let incremental = search.incremental;
    if search.seed.is_some() && matches!(search.algorithm, Some(AlgorithmArg::SemiExternal)) {
        return Err(CliError::input("--seed orders the in-memory searches; semi-external takes none"));
    }
    if let Some(dir) = &args.disk {
        if !matches!(search.algorithm, Some(AlgorithmArg::SemiExternal)) {
            return Err(CliError::input("--disk keeps the state files of LTL with --algorithm semi-external: name it"));
        }
        crate::disk::check_dir(dir)?;
    }
    if incremental.is_some() && search.algorithm.is_none_or(|a| Algorithm::from(a).on_the_fly()) {
        return Err(CliError::input(
            "--incremental grows the product graph of owcty, owcty-seq, map or map-seq on the CPU: name one with \
             --algorithm (nested DFS stops at the first cycle by itself)",
        ));
    }
    let gpu_algorithm = match search.algorithm {
        None | Some(AlgorithmArg::Owcty) => Ok(GpuAlgorithm::Owcty),
        Some(AlgorithmArg::Map) => Ok(GpuAlgorithm::Map),
        Some(other) => Err(format!(
            "`--algorithm {}` runs on the CPU only; the GPU runs owcty or map",
            Algorithm::from(other).name()
        )),
    };
    let gpu_path = match (&gpu_algorithm, incremental) {
        (Err(why), _) => Err(why.clone()),
        (Ok(_), _) if search.seed.is_some() => Err("--seed orders depth-first searches, on the CPU only".to_string()),
        (Ok(_), Some(_)) => Err("--incremental grows the product graph on the CPU only".to_string()),
        (Ok(_), None) => Ok(()),
    };
    // Without an algorithm named, `auto` checks on the CPU: nested DFS needs no graph.
    let placement = match (args.backend, search.algorithm) {
        (Backend::Auto, None) => Placement::Cpu,
        (backend, _) => backend.place(args.device, gpu_path)?,
    };
    if let (Placement::Gpu, Ok(algorithm)) = (placement, gpu_algorithm) {
        match run_gpu(args, model, algorithm) {
            Ok(run) => {
                let engine = Engine::Gpu { algorithm, run: &run };
                return Ok(finish(args, model, summary, &engine, &run.outcome, formula));
            }
            Err(e) if args.backend.falls_back(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let threads = args.threads();
    let default = if threads > 1 { Algorithm::Cndfs } else { Algorithm::Ndfs };
    let algorithm: Algorithm = search.algorithm.map_or(default, Algorithm::from);
    // `--memory` bounds the state store. Nested DFS's: about 4 bytes per state word and
    // 16 of table; CNDFS's and the product graph's (OWCTY, MAP) are sized from it
    // directly.
    let max_states = match algorithm {
        Algorithm::Ndfs => args.memory.map(|bytes| bytes / (4 * model.state_words() as u64 + 16)),
        _ => None,
    };
    let pool = crate::thread_pool(threads)?;
    let line = std::sync::Arc::new(progress::ProgressLine::new(args.quiet || args.json, args.progress_every));
    let shown = line.clone();
    let hook = ProgressHook(std::sync::Arc::new(move |p: &warpcheck_explore::Progress| shown.update(p)));
    let options = Options {
        algorithm,
        max_states,
        memory: args.memory,
        dir: args.disk.clone(),
        incremental,
        seed: search.seed,
        progress: Some(hook),
    };
    let native = crate::explore::native_code(args.successors, model)?;
    let outcome = pool.install(|| match &native {
        Some(native) => check(native, &options),
        None => check(model, &options),
    });
    line.finish();
    let mut outcome = outcome?;
    if native.is_some() {
        // The compiled code's steps carry no groups: name the steps with the model.
        outcome.lasso = outcome.lasso.map(|lasso| lasso.rebuilt(model));
    }
    let threads = match algorithm {
        Algorithm::Cndfs => threads.min(MAX_WORKERS),
        a if a.parallel() => threads,
        _ => 1,
    };
    Ok(finish(args, model, summary, &Engine::Cpu { algorithm, threads }, &outcome, formula))
}

/// OWCTY or MAP on the GPU, graph and all.
fn run_gpu<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    algorithm: GpuAlgorithm,
) -> Result<GpuLtl, warpcheck_explore::gpu::GpuError> {
    let progress = progress::ProgressLine::new(args.quiet || args.json, args.progress_every);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    // One GPU unless `--gpus` or `--partitions` asks for more.
    let visible = || warpcheck_explore::gpu::device_count().map_or(1, |n| n.max(1) as usize);
    let gpus = match args.gpus {
        None => 1,
        Some(crate::explore::Gpus::Count(n)) => n as usize,
        Some(crate::explore::Gpus::All) => visible().saturating_sub(args.device).max(1),
    };
    let partitions = args.partitions.map_or(0, |n| n as usize);
    let options = GpuOptions {
        device: args.device,
        gpus,
        partitions,
        memory: args.memory,
        progress: Some(&update),
        ..GpuOptions::default()
    };
    let result = if gpus > 1 || partitions > 1 {
        check_gpu_partitioned(model, algorithm, &options)
    } else {
        check_gpu(model, algorithm, &options)
    };
    progress.finish();
    result
}

/// Prints the outcome; the verdict.
fn finish<M: CudaModel>(
    args: &RunArgs,
    model: &M,
    summary: &str,
    engine: &Engine,
    outcome: &Outcome,
    formula: Formula<'_>,
) -> Verdict {
    if args.json {
        crate::json::print(&to_json(args.path(), model, engine, outcome, formula));
    } else {
        if let Some((text, ready)) = formula {
            println!("formula:      {text}");
            for d in &ready.definitions {
                println!("  {d}");
            }
        }
        print(model, summary, engine, outcome);
    }
    Verdict::of(!outcome.holds())
}

fn print<M: CudaModel>(model: &M, summary: &str, engine: &Engine, o: &Outcome) {
    println!("property:     {summary}");
    match engine {
        Engine::Cpu { algorithm, threads } => println!("algorithm:    {} ({threads} thread(s))", algorithm.name()),
        Engine::Gpu { algorithm, run } if run.partitions > 1 => println!(
            "algorithm:    {} (GPU: {}; the product in {} partitions on {} GPU(s), its graph on the first)",
            algorithm.name(),
            run.device_name,
            run.partitions,
            run.gpus
        ),
        Engine::Gpu { algorithm, run } => println!("algorithm:    {} (GPU: {})", algorithm.name(), run.device_name),
    }
    if o.partial {
        println!("states:       {} (a breadth-first prefix of the product, where the cycle was found)", o.states);
    } else {
        println!("states:       {} (product states stored)", o.states);
    }
    println!("transitions:  {}", o.transitions);
    if o.error_transitions > 0 {
        println!("error steps:  {} (to the error state, which lies on no cycle)", o.error_transitions);
    }
    match (o.iterations, o.remaining) {
        (Some(iterations), Some(remaining)) => {
            println!("owcty:        {iterations} iteration(s), {remaining} state(s) left")
        }
        (Some(rounds), None) => println!("map:          {rounds} round(s) of propagation"),
        _ => {}
    }
    if let Some(growths @ 1..) = o.table_growths {
        println!("table:        grew {growths} time(s), in place (nothing explored again)");
    }
    if let Some(d) = &o.disk {
        println!(
            "disk:         {} at most; in memory a perfect hash of {} and colours of {} ({:.1} bits per state)",
            memory::format_bytes(d.disk_bytes),
            memory::format_bytes(d.hash_bytes),
            memory::format_bytes(d.colour_bytes),
            (d.hash_bytes + d.colour_bytes) as f64 * 8.0 / o.states.max(1) as f64
        );
    }
    let graph = o.graph_seconds.map_or(String::new(), |g| format!(" (state graph {g:.3} s)"));
    println!("time:         {:.3} s{graph}, {:.0} states/s", o.seconds, o.states as f64 / o.seconds.max(1e-9));
    if let Engine::Gpu { run, .. } = engine {
        println!(
            "gpu:          generation + adjacency {:.3} s, graph {:.3} s, cycle detection {:.3} s (kernels), compile {:.2} s{}",
            run.generate_seconds,
            run.graph_seconds,
            run.cycle_seconds,
            run.compile_seconds,
            if o.lasso.is_some() { format!(", lasso {:.3} s", run.lasso_seconds) } else { String::new() }
        );
    }
    println!("verdict:      {}", if o.holds() { "holds" } else { "violated" });
    if let Some(lasso) = &o.lasso {
        println!();
        print_lasso(model, lasso);
    }
}

/// Prints a lasso: the stem step by step, then the cycle's steps.
fn print_lasso<M: CudaModel>(model: &M, lasso: &Lasso) {
    println!("counterexample ({} steps: stem {}, cycle {}):", lasso.len(), lasso.stem.len(), lasso.cycle.len());
    println!("  initial state: {}", model.describe_state(&lasso.stem.initial).join(", "));
    report::print_steps(&lasso.stem.steps, 1);
    println!("  cycle (back to the state after step {}, forever):", lasso.cycle_start());
    report::print_steps(&lasso.cycle, lasso.cycle_start() + 1);
}

fn to_json<'a, M: CudaModel>(
    path: String,
    model: &M,
    engine: &'a Engine,
    o: &'a Outcome,
    formula: Formula<'a>,
) -> LtlReport<'a> {
    let (backend, threads, gpu) = match engine {
        Engine::Cpu { threads, .. } => ("cpu", Some(*threads), None),
        Engine::Gpu { run, .. } => (
            "gpu",
            None,
            Some(LtlGpu {
                device: &run.device_name,
                compile_seconds: run.compile_seconds,
                generate_seconds: run.generate_seconds,
                graph_seconds: run.graph_seconds,
                cycle_seconds: run.cycle_seconds,
                lasso_seconds: run.lasso_seconds,
                edges: run.edges,
                gpus: run.gpus,
                partitions: run.partitions,
            }),
        ),
    };
    LtlReport {
        model: path,
        property: "ltl",
        algorithm: engine.algorithm(),
        backend,
        threads,
        gpu,
        states: o.states,
        partial: o.partial,
        transitions: o.transitions,
        error_transitions: o.error_transitions,
        owcty_iterations: o.iterations.filter(|_| o.remaining.is_some()),
        owcty_remaining: o.remaining,
        map_rounds: o.iterations.filter(|_| o.remaining.is_none()),
        table_growths: o.table_growths,
        disk_bytes: o.disk.as_ref().map(|d| d.disk_bytes),
        memory_bytes: o.disk.as_ref().map(|d| d.hash_bytes + d.colour_bytes),
        graph_seconds: o.graph_seconds,
        seconds: o.seconds,
        verdict: if o.holds() { "holds" } else { "violated" },
        trace_length: o.lasso.as_ref().map(Lasso::len),
        stem_length: o.lasso.as_ref().map(|l| l.stem.len()),
        cycle_length: o.lasso.as_ref().map(|l| l.cycle.len()),
        cycle_start: o.lasso.as_ref().map(|l| l.cycle_start() + 1),
        trace: o.lasso.as_ref().map(|l| TraceEntry::lasso(model, l)),
        formula: formula.map(|(text, ready)| FormulaKeys {
            formula: text,
            automaton_states: ready.automaton.accepting.len(),
            automaton_edges: ready.automaton.edges.len(),
        }),
    }
}
