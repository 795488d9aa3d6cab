//! `warpcheck check MODEL` on a model with a property process (`system ... property
//! P;`, BEEM's `.propN.dve` files) and no other check named, or `warpcheck check MODEL
//! --ltl FORMULA` (the negated formula's Büchi automaton made the model's property
//! process): LTL model checking, with a lasso counterexample (stem, then cycle) when
//! the property is violated.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use warpcheck_dve::DveModel;
use warpcheck_explore::{Lasso, TraceStep};
use warpcheck_gpu::ltl::{check_gpu, GpuAlgorithm, GpuLtl};
use warpcheck_gpu::GpuOptions;
use warpcheck_ltl::cndfs::MAX_WORKERS;
use warpcheck_ltl::formula::render_at;
use warpcheck_ltl::propositions::{parse_argument, parse_file, Definition};
use warpcheck_ltl::{
    check, formula_model, Algorithm, FormulaError, FormulaModel, LtlError, Options, Outcome, PropositionError,
};
use warpcheck_model::Model;

use crate::{exit, gpu_error, progress, report, threads_used, BackendArg, RunArgs};

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
    /// Atomic propositions of --ltl from a file: BEEM's model.xml (its <ap> elements),
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

fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(exit::BAD_INPUT)
}

/// The definitions of `--ap-file` then `--ap`.
fn definitions(f: &FormulaArgs) -> Result<Vec<Definition>, ExitCode> {
    let mut definitions = Vec::new();
    for path in &f.ap_files {
        let text =
            std::fs::read_to_string(path).map_err(|e| bad_input(format!("cannot read `{}`: {e}", path.display())))?;
        definitions.extend(parse_file(&path.display().to_string(), &text).map_err(bad_input)?);
    }
    for a in &f.aps {
        definitions.push(parse_argument(a).map_err(bad_input)?);
    }
    Ok(definitions)
}

/// `check MODEL --ltl FORMULA`: translates the negated formula, attaches its automaton
/// as the property process, and checks it like a property file. `others` is set when
/// another check (`--deadlock`, ...) was named too.
pub fn run_formula(
    args: &RunArgs,
    dve: &DveModel,
    f: &FormulaArgs,
    others: bool,
    search: &SearchArgs,
) -> Result<ExitCode, ExitCode> {
    let Some(text) = &f.ltl else {
        return Err(bad_input("--ap and --ap-file define the atomic propositions of --ltl, which is missing"));
    };
    if others {
        return Err(bad_input(
            "--ltl checks an LTL formula; it cannot be combined with --deadlock, --assert, --invariant or --all",
        ));
    }
    let definitions = definitions(f)?;
    let ready = formula_model(&dve.model, text, &definitions, |e| dve.expression(e)).map_err(|e| {
        match &e {
            FormulaError::Parse(p) => eprint!("{}", p.render(text).replacen("error: ", "error: in --ltl: ", 1)),
            FormulaError::Proposition(PropositionError::Unknown { span, .. }) => {
                eprint!("{}", render_at(text, span.clone(), &e.to_string()))
            }
            FormulaError::Compile { proposition, error } => {
                eprintln!("error: atomic proposition {} ({}) is not a valid DVE expression", proposition.written, proposition.origin);
                eprint!("{}", error.render(&format!("proposition {}", proposition.written), &proposition.expression));
                if proposition.expression.contains("myloop(") {
                    eprintln!("note: `myloop` is one of BEEM's m4 macros, expanded per instance by BEEM's tools; define this proposition with --ap for the instance");
                }
            }
            _ => eprintln!("error: {e}"),
        }
        ExitCode::from(exit::BAD_INPUT)
    })?;
    check_model(args, &ready.model, search, Some((text, &ready)))
}

/// Checks the model's property; exit status 0 holds, 1 violated, 2 bad usage, 3 too
/// many states. `--backend gpu` runs OWCTY (default) or MAP on the GPU; `auto` runs on
/// the CPU (nested DFS, the fastest on violated properties, needs no graph).
pub fn run(args: &RunArgs, dve: &DveModel, search: &SearchArgs) -> Result<ExitCode, ExitCode> {
    check_model(args, &dve.model, search, None)
}

fn check_model(
    args: &RunArgs,
    model: &Model,
    search: &SearchArgs,
    formula: Option<(&str, &FormulaModel)>,
) -> Result<ExitCode, ExitCode> {
    let incremental = search.incremental;
    let graph_algorithm_on_cpu =
        args.backend != BackendArg::Gpu && search.algorithm.is_some_and(|a| !Algorithm::from(a).on_the_fly());
    if incremental.is_some() && !graph_algorithm_on_cpu {
        return Err(bad_input("--incremental grows the product graph of owcty, owcty-seq, map or map-seq on the CPU: name one with --algorithm (nested DFS stops at the first cycle by itself)"));
    }
    if args.backend == BackendArg::Gpu {
        return run_gpu(args, model, search.algorithm, formula);
    }
    let threads = threads_used(args);
    let default = if threads > 1 { Algorithm::Cndfs } else { Algorithm::Ndfs };
    let algorithm: Algorithm = search.algorithm.map_or(default, Algorithm::from);
    // `--memory` bounds the state store. Nested DFS's: about 4 bytes per state word and
    // 16 of table; CNDFS's and the product graph's (OWCTY, MAP) are sized from it
    // directly.
    let max_states = match algorithm {
        Algorithm::Ndfs => args.memory.map(|bytes| bytes / (4 * model.state_words() as u64 + 16)),
        _ => None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| {
        eprintln!("error: cannot start {threads} threads: {e}");
        ExitCode::from(exit::RESOURCE)
    })?;
    let outcome = pool
        .install(|| check(model, &Options { algorithm, max_states, memory: args.memory, incremental }))
        .map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(match e {
            LtlError::NoProperty => exit::BAD_INPUT,
            LtlError::TooManyStates { .. }
            | LtlError::StoreFull(_)
            | LtlError::TableFull(_)
            | LtlError::StacksFull { .. } => exit::RESOURCE,
        })
    })?;
    let threads = match algorithm {
        Algorithm::Cndfs => threads.min(MAX_WORKERS),
        a if a.parallel() => threads,
        _ => 1,
    };
    Ok(finish(args, model, &Engine::Cpu { algorithm, threads }, &outcome, formula))
}

/// OWCTY or MAP on the GPU, graph and all.
fn run_gpu(
    args: &RunArgs,
    model: &Model,
    algorithm: Option<AlgorithmArg>,
    formula: Option<(&str, &FormulaModel)>,
) -> Result<ExitCode, ExitCode> {
    let algorithm = match algorithm {
        None | Some(AlgorithmArg::Owcty) => GpuAlgorithm::Owcty,
        Some(AlgorithmArg::Map) => GpuAlgorithm::Map,
        Some(other) => {
            let name = Algorithm::from(other).name();
            eprintln!("error: `--algorithm {name}` runs on the CPU only; the GPU runs owcty or map");
            return Err(ExitCode::from(exit::BAD_INPUT));
        }
    };
    let progress = progress::ProgressLine::new(args.quiet || args.json);
    let update = |p: &warpcheck_explore::Progress| progress.update(p);
    let options =
        GpuOptions { device: args.device, memory: args.memory, progress: Some(&update), ..GpuOptions::default() };
    let result = check_gpu(model, algorithm, &options);
    progress.finish();
    let run = result.map_err(gpu_error)?;
    Ok(finish(args, model, &Engine::Gpu { algorithm, run: &run }, &run.outcome, formula))
}

/// Prints the outcome; the exit status.
fn finish(
    args: &RunArgs,
    model: &Model,
    engine: &Engine,
    outcome: &Outcome,
    formula: Option<(&str, &FormulaModel)>,
) -> ExitCode {
    if args.json {
        let mut json = to_json(&args.model.display().to_string(), model, engine, outcome);
        if let Some((text, ready)) = formula {
            json["formula"] = json!(text);
            json["automaton_states"] = json!(ready.automaton.states());
            json["automaton_edges"] = json!(ready.automaton.edges.len());
        }
        println!("{json}");
    } else {
        if let Some((text, ready)) = formula {
            println!("formula:      {text}");
            for p in &ready.propositions {
                if p.origin != "formula" {
                    println!("  {} = {}", p.written, p.expression);
                }
            }
        }
        print(model, engine, outcome, formula.is_some());
    }
    ExitCode::from(if outcome.holds() { exit::HOLDS } else { exit::VIOLATED })
}

/// The property automaton's name (or, for `--ltl`, what it is) and size.
fn property_summary(model: &Model, from_formula: bool) -> String {
    let Some(property) = &model.property else { return String::new() };
    let process = &model.processes[property.process as usize];
    let accepting = process.accepting.iter().filter(|&&a| a).count();
    let name = if from_formula { "the negated formula" } else { &process.name };
    format!(
        "{name} (Büchi automaton: {} states, {accepting} accepting, {} edges)",
        process.states.len(),
        property.edges.len()
    )
}

fn print(model: &Model, engine: &Engine, o: &Outcome, from_formula: bool) {
    println!("property:     {}", property_summary(model, from_formula));
    match engine {
        Engine::Cpu { algorithm, threads } => println!("algorithm:    {} ({threads} thread(s))", algorithm.name()),
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
        println!(
            "table:        grew {growths} time(s), {}x each time, in place (nothing explored again)",
            warpcheck_store::budget::GROWTH
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

fn print_steps(steps: &[TraceStep], first: usize) {
    for (i, s) in steps.iter().enumerate() {
        println!("  {:>3}. {}", first + i, s.step);
        if !s.changes.is_empty() {
            println!("       {}", s.changes.join(", "));
        }
    }
}

/// Prints a lasso: the stem step by step, then the cycle's steps.
pub fn print_lasso(model: &Model, lasso: &Lasso) {
    println!("counterexample ({} steps: stem {}, cycle {}):", lasso.len(), lasso.stem.len(), lasso.cycle.len());
    println!("  initial state: {}", model.describe_state(&lasso.stem.initial).join(", "));
    print_steps(&lasso.stem.steps, 1);
    println!("  cycle (back to the state after step {}, forever):", lasso.cycle_start());
    print_steps(&lasso.cycle, lasso.cycle_start() + 1);
}

fn to_json(path: &str, model: &Model, engine: &Engine, o: &Outcome) -> Value {
    let mut trace = Value::Null;
    if let Some(lasso) = &o.lasso {
        let mut steps = report::trace_json(model, &lasso.stem);
        if let Value::Array(items) = &mut steps {
            items.extend(lasso.cycle.iter().map(|s| json!({ "step": s.step, "changes": s.changes })));
        }
        trace = steps;
    }
    let (backend, threads, gpu) = match engine {
        Engine::Cpu { threads, .. } => ("cpu", Some(*threads), Value::Null),
        Engine::Gpu { run, .. } => (
            "gpu",
            None,
            json!({
                "device": run.device_name,
                "compile_seconds": run.compile_seconds,
                "generate_seconds": run.generate_seconds,
                "graph_seconds": run.graph_seconds,
                "cycle_seconds": run.cycle_seconds,
                "lasso_seconds": run.lasso_seconds,
                "edges": run.edges,
            }),
        ),
    };
    json!({
        "model": path,
        "property": "ltl",
        "algorithm": engine.algorithm(),
        "backend": backend,
        "threads": threads,
        "gpu": gpu,
        "states": o.states,
        "partial": o.partial,
        "transitions": o.transitions,
        "error_transitions": o.error_transitions,
        "owcty_iterations": o.iterations.filter(|_| o.remaining.is_some()),
        "owcty_remaining": o.remaining,
        "map_rounds": o.iterations.filter(|_| o.remaining.is_none()),
        "table_growths": o.table_growths,
        "graph_seconds": o.graph_seconds,
        "seconds": o.seconds,
        "verdict": if o.holds() { "holds" } else { "violated" },
        "trace_length": o.lasso.as_ref().map(Lasso::len),
        "stem_length": o.lasso.as_ref().map(|l| l.stem.len()),
        "cycle_length": o.lasso.as_ref().map(|l| l.cycle.len()),
        // `trace[0]` is the initial state, `trace[i]` step i: the cycle is
        // `trace[cycle_start..]`, and returns to the state after `trace[cycle_start - 1]`.
        "cycle_start": o.lasso.as_ref().map(|l| l.cycle_start() + 1),
        "trace": trace,
    })
}
