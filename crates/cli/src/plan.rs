//! `warpcheck plan DOMAIN.pddl PROBLEM.pddl`: a cost-optimal plan of a PDDL task
//! (parse, ground by relaxed reachability, A* with LM-cut or h_max, or a blind
//! breadth-first or cost-layered search), printed
//! only after the validator replayed it on the lifted task; exit 1 when the reachable
//! states are exhausted without reaching the goal.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use warpcheck_pddl::{Diagnostic, FileKind, Heuristic, SearchError, SearchOptions};

use crate::error::{CliError, Verdict};
use crate::json;

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
    /// otherwise; default: three quarters of the available memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    pub memory: Option<u64>,
    /// Stop with exit status 3 when the search has run this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// The search: A* with `lmcut` (LM-cut, the strongest) or `hmax` (h_max), or `blind`
    /// (breadth-first when every action costs 1, uniform-cost otherwise). All are optimal.
    #[arg(long, value_enum, default_value_t = HeuristicArg::Lmcut)]
    pub heuristic: HeuristicArg,
    /// Threads computing the heuristic values of each expansion's new states (default:
    /// all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--heuristic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeuristicArg {
    Lmcut,
    Hmax,
    Blind,
}

impl HeuristicArg {
    fn heuristic(self) -> Heuristic {
        match self {
            HeuristicArg::Lmcut => Heuristic::LmCut,
            HeuristicArg::Hmax => Heuristic::Hmax,
            HeuristicArg::Blind => Heuristic::Blind,
        }
    }

    fn name(self) -> &'static str {
        match self {
            HeuristicArg::Lmcut => "lmcut",
            HeuristicArg::Hmax => "hmax",
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
    expanded: u64,
    generated: u64,
    /// Distinct states stored.
    states: usize,
    /// The grounded task's facts and actions.
    facts: usize,
    actions: usize,
    /// `astar`, or without a heuristic `breadth-first` (every action costs 1) or
    /// `uniform-cost`.
    search: &'static str,
    /// `lmcut`, `hmax` or `blind`.
    heuristic: &'static str,
    seconds: f64,
}

fn read(path: &PathBuf) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))
}

/// Runs `plan`.
pub fn run(args: PlanArgs) -> Result<Verdict, CliError> {
    let start = Instant::now();
    let domain_text = read(&args.domain)?;
    let problem_text = read(&args.problem)?;
    let rendered = |d: Diagnostic| {
        let (path, text) = match d.file {
            FileKind::Domain => (&args.domain, &domain_text),
            FileKind::Problem => (&args.problem, &problem_text),
        };
        CliError::Rendered(d.render(&path.display().to_string(), text))
    };
    let domain = warpcheck_pddl::parse_domain(&domain_text).map_err(rendered)?;
    let problem = warpcheck_pddl::parse_problem(&problem_text, &domain).map_err(rendered)?;
    let task = warpcheck_pddl::ground(&domain, &problem).map_err(rendered)?;
    // The state in the arena and in the table, its table slot's id, parent, action,
    // g-value and closed flag, rounded up; with A* and uniform-cost search, its h, the
    // g of its expansion and its open-list or bucket entries.
    let heuristic = args.heuristic.heuristic();
    let astar = heuristic != Heuristic::Blind;
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
    let threads = crate::thread_count(args.threads);
    let options = SearchOptions { max_states, deadline, heuristic, threads };
    let outcome =
        crate::thread_pool(threads)?.install(|| warpcheck_pddl::search(&task, &options)).map_err(|e| match e {
            SearchError::StateLimit { .. } => CliError::Resource(format!("{e} with --max-states or --memory")),
            SearchError::TimeLimit { .. } => CliError::Resource(format!("{e} (--time-limit)")),
        })?;
    // A net-benefit task's plan ends with the soft goals' end phase (actions named
    // `(:...)`, see `warpcheck_pddl::ground`): the plan is what comes before.
    let plan: Option<Vec<String>> = outcome
        .plan
        .as_ref()
        .map(|p| p.iter().map(|&a| task.actions[a].name.clone()).filter(|name| !name.starts_with("(:")).collect());
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
        expanded: outcome.expanded,
        generated: outcome.generated,
        states: outcome.stored,
        facts: task.facts.len(),
        actions: task.actions.len(),
        search: match (astar, task.unit_cost()) {
            (true, _) => "astar",
            (false, true) => "breadth-first",
            (false, false) => "uniform-cost",
        },
        heuristic: args.heuristic.name(),
        seconds: start.elapsed().as_secs_f64(),
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
    println!("expanded:  {}", report.expanded);
    println!("generated: {}", report.generated);
    let search = if astar { format!("A* with {}", report.heuristic) } else { format!("{} search", report.search) };
    println!("states:    {} ({search})", report.states);
    println!("task:      {} facts, {} actions", report.facts, report.actions);
    println!("seconds:   {:.3}", report.seconds);
    Ok(verdict)
}
