//! `warpcheck plan DOMAIN.pddl PROBLEM.pddl`: a cost-optimal plan of a PDDL task
//! (parse, ground by relaxed reachability, A* with
//! LM-cut or h_max, or a blind
//! breadth-first or cost-layered search; on the GPU, breadth first through the
//! exploration engine with the goal as a violated invariant when every action costs 1,
//! else the GPU's cost-layered search `warpcheck_pddl::search::gpu`), printed only
//! after the validator replayed it on the lifted task; exit 1 when the reachable states
//! are exhausted without reaching the goal.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use warpcheck_pddl::{Heuristic, SearchError, SearchOptions};

use crate::backend::{Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::json;
use warpcheck_explore::gpu::{explore_gpu, GpuOptions};
use warpcheck_explore::{Checks, Invariant, Trace, ViolationKind};
use warpcheck_pddl::model::{PlanningModel, UNSOLVED};
use warpcheck_pddl::search::gpu::{uniform_cost_gpu, GpuSearchError, GpuSearchOptions};
use warpcheck_pddl::{SearchOutcome, Task};

/// `plan`.
#[derive(Args)]
pub struct PlanArgs {
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// Stop with exit status 3 when more than this many states would be stored.
    #[arg(long, value_name = "N")]
    pub max_states: Option<usize>,
    /// Stop with exit status 3 when the stored states would take more than this, e.g.
    /// 4G (counted as twice the state's words plus 40 bytes per state breadth first, 72
    /// otherwise; default: three quarters of the available memory). On the GPU: the
    /// device memory (default: 90% of the free device memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    pub memory: Option<u64>,
    /// Stop with exit status 3 when the search has run this many seconds (on the GPU:
    /// its uniform-cost search, checked between batches of rounds).
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// The search: A* with `lmcut` (LM-cut, the strongest per state), `hmax` (h_max),
    /// `pdb` (pattern databases, computed once: a table lookup per state) or `max` (the
    /// larger of `pdb` and `lmcut`), or `blind` (breadth-first when every action costs
    /// 1, uniform-cost otherwise). All are optimal. Default: `lmcut` on the CPU, `blind`
    /// on the GPU (which runs `blind` and `pdb`).
    #[arg(long, value_enum)]
    pub heuristic: Option<HeuristicArg>,
    /// Threads of the search: blind search expands states on all of them, A* a batch
    /// of states of the least f at a time, their new states evaluated on all of them
    /// (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Where to search: `cpu`; `gpu` (on the device: blind search breadth first when
    /// every action costs 1, by cost layers otherwise, or A* with `--heuristic pdb`);
    /// `auto` (the GPU when a device is present and the search asked for runs there,
    /// else the CPU).
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--heuristic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeuristicArg {
    Lmcut,
    Hmax,
    Pdb,
    Max,
    Blind,
}

impl HeuristicArg {
    fn heuristic(self) -> Heuristic {
        match self {
            HeuristicArg::Lmcut => Heuristic::LmCut,
            HeuristicArg::Hmax => Heuristic::Hmax,
            HeuristicArg::Pdb => Heuristic::Pdb,
            HeuristicArg::Max => Heuristic::Max,
            HeuristicArg::Blind => Heuristic::Blind,
        }
    }

    fn name(self) -> &'static str {
        match self {
            HeuristicArg::Lmcut => "lmcut",
            HeuristicArg::Hmax => "hmax",
            HeuristicArg::Pdb => "pdb",
            HeuristicArg::Max => "max",
            HeuristicArg::Blind => "blind",
        }
    }
}

/// The `--json` report of `plan`.
#[derive(Serialize)]
struct PlanReport {
    /// Whether a plan exists (false: the reachable states were exhausted).
    solvable: bool,
    /// The plan's steps, `(action objects...)`; `null` when unsolvable.
    plan: Option<Vec<String>>,
    cost: Option<u64>,
    length: Option<usize>,
    /// Net-benefit tasks: the penalties of the soft goals the plan misses, and the net
    /// benefit (the metric's constant less the cost and the penalties); else `null`.
    penalty: Option<u64>,
    net_benefit: Option<i64>,
    /// States expanded; `null` on the GPU's breadth-first search, which expands whole
    /// levels without counting them.
    expanded: Option<u64>,
    generated: u64,
    /// Distinct states stored.
    states: usize,
    /// The grounded task's facts and actions.
    facts: usize,
    actions: usize,
    /// The grounded task's numeric fluents (32-bit integers) and the range proven for
    /// each (`null` bounds: none proven).
    numeric: Vec<NumericReport>,
    /// The states hold the numeric fluents in units of `1 / numeric_scale` (1 when
    /// every value is an integer).
    numeric_scale: i64,
    /// `astar`, or without a heuristic `breadth-first` (every action costs 1) or
    /// `uniform-cost`.
    search: &'static str,
    /// `lmcut`, `hmax`, `pdb` or `blind`.
    heuristic: &'static str,
    /// `cpu` or `gpu`, and the CUDA device (`null` on the CPU).
    backend: &'static str,
    device: Option<usize>,
    /// Seconds in all (reading, grounding, searching, validating), in the search
    /// (setting up included), in its setting up (the heuristic's tables and, on the
    /// GPU, the device opened, its kernels compiled and its memory allocated), and in
    /// building the heuristic's tables (on the GPU, while it compiles).
    seconds: f64,
    search_seconds: f64,
    setup_seconds: f64,
    heuristic_seconds: f64,
}

/// A numeric fluent in the `--json` report.
#[derive(Serialize)]
struct NumericReport {
    name: String,
    /// The proven range, exact: a JSON integer or, for values that are not, a float.
    lower: Option<serde_json::Number>,
    upper: Option<serde_json::Number>,
    /// The same as text (decimals or fractions, exact).
    #[serde(skip)]
    text: (Option<String>, Option<String>),
}

/// Runs `plan`.
pub fn run(args: PlanArgs) -> Result<Verdict, CliError> {
    let start = Instant::now();
    let (domain, problem, task) = crate::frontend::pddl::read_task(&args.domain, &args.problem)?;
    let placement = args.backend.place(args.device, gpu_path(&args, &task))?;
    let chosen = args.heuristic.unwrap_or(match placement {
        Placement::Gpu => HeuristicArg::Blind,
        Placement::Cpu => HeuristicArg::Lmcut,
    });
    let heuristic = chosen.heuristic();
    let astar = heuristic != Heuristic::Blind;
    // The state in the arena and in the table, its table slot's id, parent, action,
    // g-value and closed flag, rounded up; with A* and uniform-cost search, its h, the
    // g of its expansion and its open-list or bucket entries.
    let breadth_first = !astar && task.unit_cost();
    let bytes_per_state = task.words as u64 * 8 + if breadth_first { 40 } else { 72 };
    let memory = args.memory.or_else(|| warpcheck_store::memory::available().map(|m| m / 4 * 3));
    let by_memory = memory.map(|m| usize::try_from(m / bytes_per_state).unwrap_or(usize::MAX));
    let max_states = match (args.max_states, by_memory) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let deadline = match args.time_limit {
        Some(s) if s.is_finite() && s >= 0.0 => Some(start + std::time::Duration::from_secs_f64(s)),
        Some(s) => return Err(CliError::Input(format!("--time-limit {s}: expected a non-negative number of seconds"))),
        None => None,
    };
    let search_start = Instant::now();
    let outcome = match placement {
        Placement::Gpu => search_gpu(&task, &args, astar, deadline)?,
        Placement::Cpu => {
            let threads = crate::thread_count(args.threads);
            let options = SearchOptions { max_states, deadline, heuristic, threads };
            crate::thread_pool(threads)?.install(|| warpcheck_pddl::search(&task, &options)).map_err(|e| match e {
                SearchError::StateLimit { .. } => CliError::Resource(format!("{e} with --max-states or --memory")),
                SearchError::TimeLimit { .. } => CliError::Resource(format!("{e} (--time-limit)")),
                SearchError::OutOfRange { .. } => CliError::Resource(e.to_string()),
            })?
        }
    };
    let search_seconds = search_start.elapsed().as_secs_f64();
    // A net-benefit task's plan ends with the soft goals' end phase: the plan is what
    // comes before.
    let plan: Option<Vec<String>> = outcome.plan.as_ref().map(|p| task.plan_names(p));
    let invalid = |e: warpcheck_pddl::ValidationError| {
        CliError::Input(format!("internal error: the plan found fails validation: {e}"))
    };
    let (mut cost, mut penalty, mut net_benefit) = (outcome.cost, None, None);
    if let Some(steps) = &plan {
        let (replayed, missed) = match problem.net_benefit {
            Some(_) => warpcheck_pddl::validate_net_benefit(&domain, &problem, steps).map_err(invalid)?,
            None => (warpcheck_pddl::validate(&domain, &problem, steps).map_err(invalid)?, 0),
        };
        if Some(replayed + missed) != outcome.cost {
            return Err(CliError::Input(format!(
                "internal error: the plan found costs {replayed} and misses soft goals worth {missed} when \
                 replayed, the search says {:?} in all",
                outcome.cost
            )));
        }
        if let Some(nb) = problem.net_benefit {
            (cost, penalty) = (Some(replayed), Some(missed));
            net_benefit = Some(nb.constant.saturating_sub(i64::try_from(replayed + missed).unwrap_or(i64::MAX)));
        }
    }
    let report = PlanReport {
        solvable: plan.is_some(),
        length: plan.as_ref().map(Vec::len),
        plan,
        cost,
        penalty,
        net_benefit,
        expanded: (placement == Placement::Cpu || astar || !task.unit_cost()).then_some(outcome.expanded),
        generated: outcome.generated,
        states: outcome.stored,
        facts: task.facts.len(),
        actions: task.actions.len(),
        numeric: task
            .numeric
            .iter()
            .map(|v| {
                let number = |b: i64| match task.scale {
                    1 => Some(serde_json::Number::from(b)),
                    s => serde_json::Number::from_f64(b as f64 / s as f64),
                };
                NumericReport {
                    name: v.name.clone(),
                    lower: v.lower.and_then(number),
                    upper: v.upper.and_then(number),
                    text: (v.lower.map(|b| task.value(b)), v.upper.map(|b| task.value(b))),
                }
            })
            .collect(),
        numeric_scale: task.scale,
        search: match (astar, task.unit_cost()) {
            (true, _) => "astar",
            (false, true) => "breadth-first",
            (false, false) => "uniform-cost",
        },
        heuristic: chosen.name(),
        backend: placement.name(),
        device: (placement == Placement::Gpu).then_some(args.device),
        seconds: start.elapsed().as_secs_f64(),
        search_seconds,
        setup_seconds: outcome.setup.as_secs_f64(),
        heuristic_seconds: outcome.heuristic.as_secs_f64(),
    };
    let verdict = Verdict::of(!report.solvable);
    if args.json {
        json::print(&report);
        return Ok(verdict);
    }
    match &report.plan {
        Some(steps) => {
            for s in steps {
                println!("{s}");
            }
        }
        None => println!("unsolvable: the goal is not reachable"),
    }
    if let (Some(cost), Some(length)) = (report.cost, report.length) {
        println!("cost:      {cost}");
        println!("length:    {length}");
    }
    if let (Some(penalty), Some(nb), Some(metric)) = (report.penalty, report.net_benefit, problem.net_benefit) {
        println!("penalty:   {penalty} (the soft goals the plan misses)");
        println!("benefit:   {nb} ({} less the cost and the penalty: the largest net benefit)", metric.constant);
    }
    if let Some(expanded) = report.expanded {
        println!("expanded:  {expanded}");
    }
    println!("generated: {}", report.generated);
    let search = match placement {
        Placement::Gpu if astar => format!("A* with {} on GPU {}", report.heuristic, args.device),
        Placement::Gpu => format!("{} search on GPU {}", report.search, args.device),
        Placement::Cpu if astar => format!("A* with {}", report.heuristic),
        Placement::Cpu => format!("{} search", report.search),
    };
    println!("states:    {} ({search})", report.states);
    println!("task:      {} facts, {} actions", report.facts, report.actions);
    if !report.numeric.is_empty() {
        println!("numeric:   {}", numeric_summary(&report.numeric, report.numeric_scale));
    }
    println!(
        "seconds:   {:.3} ({:.3} searching, {:.3} of it setting up)",
        report.seconds, report.search_seconds, report.setup_seconds
    );
    Ok(verdict)
}

/// The numeric fluents in a line: each with its proven range when there are few, else
/// how many have one.
fn numeric_summary(numeric: &[NumericReport], scale: i64) -> String {
    let unit_text = |scale: i64| match scale {
        1 => "32-bit integers".to_string(),
        s => format!("32-bit integers of 1/{s}"),
    };
    let bound = |b: &Option<String>, none: &str| b.clone().unwrap_or(none.to_string());
    if numeric.len() <= 3 {
        let each: Vec<String> = numeric
            .iter()
            .map(|v| format!("{} in [{}, {}]", v.name, bound(&v.text.0, "-inf"), bound(&v.text.1, "inf")))
            .collect();
        return format!("{} ({})", each.join(", "), unit_text(scale));
    }
    let proven = numeric.iter().filter(|v| v.lower.is_some() && v.upper.is_some()).count();
    format!("{} fluents as {}, {proven} with a proven range", numeric.len(), unit_text(scale))
}

/// Whether the search asked for runs on the GPU: blind or with pattern databases,
/// without a bound on states, and with a time limit only where the GPU does not search
/// breadth first (else the reason).
fn gpu_path(args: &PlanArgs, task: &Task) -> Result<(), String> {
    if let Some(h) = args.heuristic.filter(|&h| !matches!(h, HeuristicArg::Blind | HeuristicArg::Pdb)) {
        return Err(format!(
            "A* with {} runs on the CPU only (the GPU searches blind or with --heuristic pdb)",
            h.name()
        ));
    }
    if args.max_states.is_some() {
        return Err("--max-states bounds the CPU search only (on the GPU, --memory bounds the states)".into());
    }
    if args.time_limit.is_some() && task.unit_cost() && args.heuristic != Some(HeuristicArg::Pdb) {
        return Err("--time-limit bounds the GPU's cost-layered search, and this task's actions all cost 1: the \
                    GPU searches it breadth first, without a time limit"
            .into());
    }
    Ok(())
}

/// The GPU's search: A* with pattern databases, or blind: breadth first for unit costs
/// ([`search_gpu_breadth_first`]), else by cost layers.
fn search_gpu(task: &Task, args: &PlanArgs, astar: bool, deadline: Option<Instant>) -> Result<SearchOutcome, CliError> {
    if task.unit_cost() && !astar {
        return search_gpu_breadth_first(task, args);
    }
    let options = GpuSearchOptions { device: args.device, memory: args.memory, deadline, astar };
    uniform_cost_gpu(task, &options).map_err(|e| match e {
        GpuSearchError::NoDevice(_) => CliError::NoGpu(e.to_string()),
        GpuSearchError::Unsupported(_) => CliError::Input(e.to_string()),
        GpuSearchError::TimeLimit { .. } => CliError::Resource(format!("{e} (--time-limit)")),
        _ => CliError::Resource(e.to_string()),
    })
}

/// The CPU search's error for the numeric value out of range that ends `trace`,
/// computed again on its last state.
fn out_of_range(task: &Task, trace: &Trace) -> String {
    let state = trace.steps.last().map_or(&trace.initial, |step| &step.state);
    let action = trace.error_step.as_ref().and_then(|(step, _)| task.actions.iter().position(|a| &a.name == step));
    if let Some(a) = action {
        if let Err(e) = task.actions[a].apply(state, &mut Vec::new()) {
            return SearchError::out_of_range(task, a as u32, e).to_string();
        }
    }
    "a numeric fluent would leave the range of 32-bit integers that the search's states hold".into()
}

/// Breadth-first search on the GPU: the exploration engine with `unsolved` as an
/// invariant stops at the first level holding a goal state, and its shortest
/// counterexample is a plan of fewest actions, optimal at unit costs.
fn search_gpu_breadth_first(task: &Task, args: &PlanArgs) -> Result<SearchOutcome, CliError> {
    let model = PlanningModel::new(task.clone());
    let unsolved = Invariant { text: "the goal is not reached".into(), label: UNSOLVED };
    let checks = Checks { invariants: vec![unsolved], ..Checks::default() };
    let options =
        GpuOptions { device: args.device, memory: args.memory, checks, stop_at_first: true, ..GpuOptions::default() };
    let run = explore_gpu(&model, &options)?;
    let setup = std::time::Duration::from_secs_f64(run.compile_seconds + run.setup_seconds);
    let report = run.report;
    // The only evaluation error of a planning task: a numeric value out of range.
    if let Some(v) = report.violations.iter().find(|v| matches!(v.kind, ViolationKind::EvalError(_))) {
        let trace = v.trace.as_ref().expect("the GPU engine rebuilds every counterexample");
        return Err(CliError::Resource(out_of_range(task, trace)));
    }
    let names = report.violations.first().map(|v| {
        let trace = v.trace.as_ref().expect("the GPU engine rebuilds every counterexample");
        trace.steps.iter().map(|s| s.step.clone()).collect::<Vec<String>>()
    });
    let plan = names.map(|names| {
        names.iter().map(|n| task.actions.iter().position(|a| &a.name == n).expect("a step names an action")).collect()
    });
    Ok(SearchOutcome {
        cost: plan.as_ref().map(|p: &Vec<usize>| p.len() as u64),
        plan,
        generated: report.transitions,
        stored: report.states as usize,
        setup,
        ..SearchOutcome::default()
    })
}
