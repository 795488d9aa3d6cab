//! The grounded task as a model of the waist (`warpcheck_pddl::model`): the CPU
//! exploration engine reaches exactly the reachable states of every hand-checkable task
//! (`tiny-expected.csv`), its invariant check of `unsolved` finds a shortest plan (the
//! optimum of the unit-cost tasks, validated), and the generated C, compiled on the
//! host, gives the CPU's successors, deadlocks and labels on every reachable state of
//! the tiny tasks and of IPC tasks with conditional effects, disjunctions and negative
//! preconditions; and on random tasks: the same, and the invariant search's plans at
//! the optimal cost of A* and breadth-first search.

mod common;

use std::path::Path;

use common::{random_numeric_task, random_task};

use warpcheck_explore::{explore_parallel, Checks, Invariant, Options};
use warpcheck_model::cuda::host::run_on_host;
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::interface::{Model, Successors};
use warpcheck_pddl::model::{PlanningModel, UNSOLVED};
use warpcheck_pddl::{ground, parse_domain, parse_problem, validate, Task};

fn task(domain: &Path, problem: &Path) -> (Task, warpcheck_pddl::ast::Domain, warpcheck_pddl::ast::Problem) {
    let d = parse_domain(&std::fs::read_to_string(domain).unwrap()).unwrap();
    let p = parse_problem(&std::fs::read_to_string(problem).unwrap(), &d).unwrap();
    (ground(&d, &p).unwrap(), d, p)
}

fn options(checks: Checks) -> Options<'static> {
    Options { threads: 2, checks, stop_at_first: true, traces: true, ..Options::default() }
}

/// Every reachable state of `model`, breadth first (the CPU successors).
fn reachable(model: &PlanningModel) -> Vec<Vec<u32>> {
    let mut seen = std::collections::HashSet::new();
    let mut order = vec![model.initial_state()];
    seen.insert(model.initial_state());
    let mut worker = model.successors();
    let mut i = 0;
    while i < order.len() {
        let s = order[i].clone();
        worker.successors(&s, |_, t| {
            let t = t.unwrap().to_vec();
            if seen.insert(t.clone()) {
                order.push(t);
            }
        });
        i += 1;
    }
    order
}

/// The host-compiled C against the CPU on every reachable state: successors (as sets),
/// deadlock, the `unsolved` label as invariant 0; returns the states compared.
fn host_agrees(model: &PlanningModel, name: &str) -> usize {
    let states = reachable(model);
    let source = model.cuda_source(&[UNSOLVED]).unwrap();
    let dir = std::env::temp_dir().join(format!("wc-plan-host-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host = run_on_host(&source, model.state_words(), 1, &states, &dir).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut worker = model.successors();
    for (s, h) in states.iter().zip(&host) {
        let mut cpu: Vec<Vec<u32>> = Vec::new();
        let deadlock = worker.successors(s, |_, t| cpu.push(t.unwrap().to_vec()));
        cpu.sort();
        assert_eq!(h.successors, cpu, "{name}: successors of {:?}", model.task().describe(s));
        assert_eq!(h.deadlock, deadlock, "{name}: deadlock");
        assert_eq!(h.invariants, vec![model.label(s, UNSOLVED).unwrap()], "{name}: unsolved");
        assert!(h.assertion.is_none() && !h.accepting && h.errors == 0, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
    states.len()
}

#[test]
fn the_cpu_engine_explores_and_plans_every_tiny_task() {
    let dir = common::data_dir();
    let mut checked = 0;
    for row in common::csv(&dir.join("results/tiny-expected.csv")) {
        let name = &row["problem"];
        if name == "netbenefit-visit.pddl" {
            continue; // Its states are of a compilation that settles soft goals in any order.
        }
        let (domain, problem) = (dir.join("tiny").join(&row["domain_file"]), dir.join("tiny").join(name));
        let (task, d, p) = task(&domain, &problem);
        let model = PlanningModel::new(task.clone());
        let all = explore_parallel(&model, &Options { stop_at_first: false, ..options(Checks::default()) }).unwrap();
        assert_eq!(all.states, row["reachable_states"].parse::<u64>().unwrap(), "{name}: reachable states");
        let unsolved = Invariant { text: "unsolved".into(), label: UNSOLVED };
        let checked_run =
            explore_parallel(&model, &options(Checks { invariants: vec![unsolved], ..Checks::default() })).unwrap();
        match checked_run.violations.first() {
            None => assert_eq!(row["solvable"], "False", "{name}: no plan found"),
            Some(v) => {
                let trace = v.trace.as_ref().expect("a counterexample");
                let plan: Vec<String> = trace.steps.iter().map(|s| s.step.clone()).collect();
                let cost = validate(&d, &p, &plan).unwrap_or_else(|e| panic!("{name}: {e}"));
                if task.unit_cost() {
                    assert_eq!(cost.to_string(), row["expected_optimal_cost"], "{name}: optimal cost");
                }
                let fewest = row["plan_length"].parse::<usize>().unwrap();
                assert!(plan.len() <= fewest, "{name}: {} steps, an optimal plan has {fewest}", plan.len());
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 9);
}

#[test]
fn the_generated_c_gives_the_cpu_successors_on_the_tiny_tasks() {
    let dir = common::data_dir();
    let mut states = 0;
    for row in common::csv(&dir.join("results/tiny-expected.csv")) {
        let name = &row["problem"];
        let (task, _, _) = task(&dir.join("tiny").join(&row["domain_file"]), &dir.join("tiny").join(name));
        states += host_agrees(&PlanningModel::new(task.clone()), name);
    }
    assert_eq!(states, 379, "states compared (the reachable states of the ten tasks)");
}

/// A task with every ADL construct (`common::SWITCHES`): conditional effects, and
/// disjunctive and quantified conditions left after grounding (the table's postfix
/// code), in preconditions and in the goal.
#[test]
fn the_generated_c_gives_the_cpu_successors_on_adl_constructs() {
    let d = parse_domain(common::SWITCHES).unwrap();
    // A disjunctive goal, and a third light in r1 (flipping one needs either other one
    // on), left as postfix code.
    let problem = common::SWITCHES_PROBLEM
        .replace("(:goal (and (on l3)", "(:goal (and (or (on l3) (not (seen l2)))")
        .replace("l1 l2 l3 - light", "l1 l2 l3 l4 - light")
        .replace("(in l2 r1)", "(in l2 r1) (in l4 r1)");
    let p = parse_problem(&problem, &d).unwrap();
    let task = ground(&d, &p).unwrap();
    assert!(task.goal.rest.is_some(), "the goal keeps its disjunction");
    assert!(task.actions.iter().any(|a| a.precondition.rest.is_some()), "a disjunctive precondition");
    assert!(task.actions.iter().any(|a| !a.conditional.is_empty()), "conditional effects");
    assert!(host_agrees(&PlanningModel::new(task.clone()), "switches") > 20);
}

/// IPC tasks: openstacks ADL with soft goals (conditional effects after the
/// compilation), STRIPS sets with negative preconditions and zero-cost actions.
#[test]
fn the_generated_c_gives_the_cpu_successors_on_ipc_tasks() {
    let nb = common::data_dir().join("ipc2008-netbenefit-opt/openstacks-net-benefit-optimal-adl");
    let (nb_task, _, _) = task(&nb.join("domain.pddl"), &nb.join("instance-1.pddl"));
    assert!(nb_task.actions.iter().any(|a| !a.conditional.is_empty()), "conditional effects");
    assert!(host_agrees(&PlanningModel::new(nb_task), "openstacks-nb-adl") > 100);
    let dir = common::data_dir().join("ipc2008-opt");
    for (set, problem, domain) in [
        ("openstacks-opt08-adl", "p01.pddl", "domain.pddl"),
        ("pegsol-08-strips", "p08.pddl", "domain.pddl"),
        ("elevators-opt08-strips", "p01.pddl", "p01-domain.pddl"),
    ] {
        let folder = dir.join(set);
        let domain = if folder.join(domain).is_file() { folder.join(domain) } else { folder.join("domain.pddl") };
        let (task, _, _) = task(&domain, &folder.join(problem));
        let compared = host_agrees(&PlanningModel::new(task.clone()), set);
        assert!(compared > 100, "{set}: {compared} states");
    }
}

/// The kernels' source of a planning task compiles with NVRTC for sm_90 (no device
/// needed): `LD_LIBRARY_PATH=DIR_OF_LIBNVRTC cargo test -p warpcheck-pddl --test model
/// -- --ignored nvrtc`.
#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn the_generated_c_compiles_with_nvrtc() {
    use warpcheck_explore::gpu::engine::{tuned_source, Tuning};
    assert!(warpcheck_cuda::nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    let dir = common::data_dir().join("ipc2008-opt/openstacks-opt08-adl");
    let (task, _, _) = task(&dir.join("domain.pddl"), &dir.join("p01.pddl"));
    let model = PlanningModel::new(task.clone());
    let tuning = Tuning::from_env();
    for model in [model, PlanningModel::new(random_numeric_task(7))] {
        let source = tuned_source(&model.cuda_source(&[UNSOLVED]).unwrap(), &tuning);
        warpcheck_cuda::nvrtc::compile(&source, 90, &tuning.nvrtc_options()).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Random unit-cost tasks: the plan the exploration engine finds by checking
/// `unsolved` as an invariant (the GPU's search, here on the CPU engine) reaches the
/// goal and has the optimal cost of A* with LM-cut and of blind breadth-first search;
/// unsolvable tasks have none with all three.
#[test]
fn on_random_tasks_the_invariant_search_finds_optimal_plans() {
    use warpcheck_pddl::{search, Heuristic, SearchOptions};
    let (mut solved, mut unsolvable) = (0, 0);
    for seed in 0..400 {
        let task = random_task(seed, seed % 2 == 1, false);
        let cost = |heuristic| search(&task, &SearchOptions { heuristic, ..SearchOptions::default() }).unwrap().cost;
        let (astar, blind) = (cost(Heuristic::LmCut), cost(Heuristic::Blind));
        assert_eq!(astar, blind, "seed {seed}: A* and breadth-first search disagree");
        let model = PlanningModel::new(task.clone());
        let unsolved = Invariant { text: "unsolved".into(), label: UNSOLVED };
        let run =
            explore_parallel(&model, &options(Checks { invariants: vec![unsolved], ..Checks::default() })).unwrap();
        let plan: Option<Vec<String>> =
            run.violations.first().map(|v| v.trace.as_ref().unwrap().steps.iter().map(|s| s.step.clone()).collect());
        assert_eq!(plan.as_ref().map(|p| p.len() as u64), blind, "seed {seed}: plan length");
        if let Some(plan) = plan {
            let mut state = task.init.clone();
            let mut next = Vec::new();
            for name in &plan {
                let action = task.actions.iter().find(|a| &a.name == name).expect("a step names an action");
                assert!(action.precondition.holds(&state), "seed {seed}: {name} not applicable");
                action.apply(&state, &mut next).unwrap();
                std::mem::swap(&mut state, &mut next);
            }
            assert!(task.goal.holds(&state), "seed {seed}: the plan misses the goal");
            solved += 1;
        } else {
            unsolvable += 1;
        }
    }
    assert!(solved > 50 && unsolvable > 50, "{solved} solved, {unsolvable} unsolvable");
}

/// Random tasks with disjunctive preconditions and goals and conditional effects: the
/// host-compiled C gives the CPU successors on every reachable state.
#[test]
fn on_random_tasks_the_generated_c_gives_the_cpu_successors() {
    let mut states = 0;
    for seed in 0..40 {
        states += host_agrees(&PlanningModel::new(random_task(1000 + seed, true, false)), &format!("random-{seed}"));
    }
    assert!(states > 60, "{states} states compared");
}

/// Random tasks with numeric fluents (compared in preconditions and goals; assigned,
/// increased and decreased, also in conditional effects) and the fuel and cargo
/// examples: the host-compiled C gives the CPU successors on every reachable state.
#[test]
fn on_numeric_tasks_the_generated_c_gives_the_cpu_successors() {
    let mut states = 0;
    for seed in 0..40 {
        states += host_agrees(&PlanningModel::new(random_numeric_task(seed)), &format!("numeric-{seed}"));
    }
    assert!(states > 200, "{states} states compared");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plan");
    for (domain, problem) in [
        ("fuel", "fuel-problem"),
        ("fuel", "fuel-refuel"),
        ("fuel", "fuel-stranded"),
        ("fuel", "fuel-decimal"),
        ("cargo", "cargo-problem"),
        ("cargo", "cargo-empty"),
    ] {
        let domain = examples.join(format!("{domain}-domain.pddl"));
        let (task, _, _) = task(&domain, &examples.join(format!("{problem}.pddl")));
        assert!(!task.numeric.is_empty());
        host_agrees(&PlanningModel::new(task), problem);
    }
}

/// A numeric effect whose value leaves the 32-bit range is an evaluation error of the
/// generated C (one per such step), as of the CPU successors, and no successor.
#[test]
fn a_numeric_value_out_of_range_is_an_evaluation_error_of_the_generated_c() {
    use warpcheck_pddl::numeric::Assign;
    use warpcheck_pddl::task::{Action, Condition, NumExpr, NumericEffect, NumericVar};
    let grow = Action {
        name: "(grow)".into(),
        precondition: Condition::default(),
        add: vec![0],
        delete: Vec::new(),
        conditional: Vec::new(),
        numeric: vec![NumericEffect {
            var: 0,
            word: 1,
            op: Assign::Increase,
            value: NumExpr::Mul(Box::new(NumExpr::Var(1)), Box::new(NumExpr::Const(999))),
        }],
        cost: 1,
    };
    let task = Task {
        facts: vec!["(f0)".into()],
        actions: vec![grow],
        end_phase: 1,
        init: vec![0, 1],
        goal: Condition { positive: vec![0], ..Condition::default() },
        words: 2,
        numeric: vec![NumericVar { name: "(n)".into(), word: 1, init: 1, lower: None, upper: None }],
        scale: 1,
    };
    let model = PlanningModel::new(task);
    let states: Vec<Vec<u32>> = [1u32, 1000, 1_000_000, 1_000_000_000].iter().map(|&n| vec![1, n]).collect();
    let source = model.cuda_source(&[UNSOLVED]).unwrap();
    let dir = std::env::temp_dir().join(format!("wc-plan-host-{}-range", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host = run_on_host(&source, 2, 1, &states, &dir).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut worker = model.successors();
    for (s, h) in states.iter().zip(&host) {
        let (mut next, mut errors) = (Vec::new(), 0);
        let deadlock = worker.successors(s, |_, t| match t {
            Ok(t) => next.push(t.to_vec()),
            Err(_) => errors += 1,
        });
        assert_eq!((&h.successors, h.errors, h.deadlock), (&next, errors, deadlock), "{s:?}");
    }
    assert_eq!(host[3].errors, 1, "999 * 10^9 + 10^9 leaves the range");
    assert_eq!(host[2].successors, vec![vec![1, 1_000_000_000]]);
}

/// On a device (`cargo test -p warpcheck-pddl --test model -- --ignored gpu`): the GPU
/// exploration engine's invariant search has the CPU's optimal costs on random
/// unit-cost tasks, and finds no plan where there is none.
#[test]
#[ignore = "needs a CUDA device"]
fn on_random_tasks_the_gpu_finds_the_optimal_costs() {
    use warpcheck_explore::gpu::{explore_gpu, GpuOptions};
    use warpcheck_pddl::{search, SearchOptions};
    for seed in 0..100 {
        let task = random_task(seed, seed % 2 == 1, false);
        let cost = search(&task, &SearchOptions::default()).unwrap().cost;
        let unsolved = Invariant { text: "unsolved".into(), label: UNSOLVED };
        let checks = Checks { invariants: vec![unsolved], ..Checks::default() };
        let options = GpuOptions { checks, stop_at_first: true, memory: Some(256 << 20), ..GpuOptions::default() };
        let run =
            explore_gpu(&PlanningModel::new(task.clone()), &options).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let length = run.report.violations.first().map(|v| v.trace.as_ref().unwrap().len() as u64);
        assert_eq!(length, cost, "seed {seed}");
    }
}

/// Recording a state graph on the GPU keeps a state's successors in a per-thread
/// array sized by the bound on successors, here the number of actions: a task with
/// more than 65,536 actions is refused as a model the GPU cannot take (so `auto` runs
/// it on the CPU), with or without a device, before anything is allocated.
#[test]
fn the_gpu_refuses_to_record_the_graph_of_a_task_with_too_many_actions() {
    use warpcheck_explore::gpu::engine::{explore_graph, GraphSpec};
    use warpcheck_explore::gpu::{GpuError, GpuOptions};
    use warpcheck_pddl::task::{Action, Condition};
    let action = |a: usize| Action {
        name: format!("(a{a})"),
        precondition: Condition { positive: vec![0], negative: Vec::new(), rest: None },
        add: vec![1],
        delete: vec![0],
        conditional: Vec::new(),
        numeric: Vec::new(),
        cost: 1,
    };
    let actions: Vec<Action> = (0..70_000).map(action).collect();
    let task = Task {
        facts: vec!["(a)".into(), "(b)".into()],
        end_phase: actions.len(),
        actions,
        init: vec![1],
        goal: Condition { positive: vec![1], negative: Vec::new(), rest: None },
        words: 1,
        numeric: Vec::new(),
        scale: 1,
    };
    let spec = GraphSpec { source: "", extra_bytes_per_state: 0.0, edges_per_state: 8.0, prefix_on_full: false };
    match explore_graph(&PlanningModel::new(task), &GpuOptions::default(), &spec) {
        Err(GpuError::Unsupported(e)) => assert!(e.to_string().contains("may have 70000 successors"), "{e}"),
        Err(e) => panic!("expected the model refused, got {e}"),
        Ok(_) => panic!("expected the model refused"),
    }
}
