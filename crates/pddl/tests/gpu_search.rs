//! The GPU's uniform-cost search (`search::gpu`): its kernels compiled for the host and
//! run one work item after another (the emulation) against the CPU's searches on random
//! tasks with action costs (zero included), the tiny tasks and IPC tasks; small open
//! lists force the rebuild after an overflowing round, and the visiting order of a
//! round's entries varies. On a device, the same comparisons run on the GPU (ignored
//! tests).

mod common;

use common::{data_dir, larger_random_task, random_numeric_task, random_task};
use warpcheck_pddl::search::gpu::{
    uniform_cost_emulated, uniform_cost_gpu, Emulation, GpuSearchError, GpuSearchOptions, Rebuilds, CAP,
};
use warpcheck_pddl::{
    ground, parse_domain, parse_problem, search, validate, Heuristic, SearchOptions, SearchOutcome, Task,
};

/// The emulation with a store of `limit` states, compacted past `compact` entries,
/// with the device's adaptive threshold.
fn emulated(task: &Task, limit: u32, compact: u32, stride: u32) -> Result<(SearchOutcome, Rebuilds), GpuSearchError> {
    configured(task, limit, compact, stride, None, CAP)
}

/// The emulation with the threshold's width fixed (`Some(u32::MAX)`: no threshold) and
/// rounds of at most `cap` entries.
fn configured(
    task: &Task,
    limit: u32,
    compact: u32,
    stride: u32,
    width: Option<u32>,
    cap: u32,
) -> Result<(SearchOutcome, Rebuilds), GpuSearchError> {
    uniform_cost_emulated(task, &Emulation { limit, compact, stride, deadline: None, width, cap, astar: false })
}

/// The emulation's A* with pattern databases, as [`configured`] sets it up.
fn astar(task: &Task, limit: u32, compact: u32, stride: u32, width: Option<u32>, cap: u32) -> SearchOutcome {
    let emulation = Emulation { limit, compact, stride, deadline: None, width, cap, astar: true };
    uniform_cost_emulated(task, &emulation).unwrap_or_else(|e| panic!("A*: {e}")).0
}

/// The CPU's optimal cost of `task` (blind uniform-cost search).
fn cpu_cost(task: &Task) -> Option<u64> {
    search(task, &SearchOptions { heuristic: Heuristic::Blind, ..SearchOptions::default() }).unwrap().cost
}

/// Replays `plan` on `task`: `Some(cost)` when every step applies and the goal holds.
fn replay(task: &Task, plan: &[usize]) -> Option<u64> {
    let (mut state, mut next) = (task.init.clone(), Vec::new());
    for &a in plan {
        let action = &task.actions[a];
        if !action.precondition.holds(&state) {
            return None;
        }
        action.apply(&state, &mut next).ok()?;
        std::mem::swap(&mut state, &mut next);
    }
    task.goal.holds(&state).then(|| plan.iter().map(|&a| task.actions[a].cost).sum())
}

fn ipc_task(domain: &str, problem: &str) -> (Task, warpcheck_pddl::ast::Domain, warpcheck_pddl::ast::Problem) {
    let dir = data_dir().join("ipc2008-opt").join(domain);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let own = format!("{}-domain.pddl", problem.trim_end_matches(".pddl"));
    let d = parse_domain(&read(if dir.join(&own).exists() { &own } else { "domain.pddl" })).unwrap();
    let p = parse_problem(&read(problem), &d).unwrap();
    (ground(&d, &p).unwrap(), d, p)
}

/// 600 random tasks with costs 0-4: the emulated GPU search has the CPU's optimal cost,
/// its plan replays to the goal at that cost, and it finds none where the CPU finds
/// none: with the device's adaptive threshold; with a threshold one above the round's
/// cost (a split at every cost) and rounds of at most one or two entries (a dive at
/// every step); and without a threshold (every open state in the list), with a list
/// rebuilt whenever half of what is left to scan is dead, and with one of only as many
/// entries as the task has reachable states (so that it overflows and is rebuilt from
/// the store); its entries visited in other orders. The rounds run in batches that
/// grow, so a stop falls at every point of a batch.
#[test]
fn on_random_tasks_with_costs_the_emulated_gpu_search_is_optimal() {
    let (mut solved, mut unsolvable, mut zero) = (0, 0, 0);
    let (mut compacted, mut overflowed, mut compactions, mut split) = (0, 0, 0, 0);
    for seed in 0..600 {
        let task = random_task(seed, seed % 2 == 1, true);
        let cpu = cpu_cost(&task);
        let reachable = warpcheck_pddl::search::reachable_layers(&task, 1 << 20).unwrap().iter().sum::<u64>() as u32;
        let none = Some(u32::MAX);
        for (limit, compact, stride, width, cap) in [
            (4096, u32::MAX, 1, None, CAP),
            (4096, u32::MAX, 3, Some(1), 1),
            (4096, 2, 7, none, CAP),
            (reachable, u32::MAX, 5, none, 2),
        ] {
            let config = format!("limit {limit}, compact {compact}, stride {stride}, width {width:?}, cap {cap}");
            let (gpu, rebuilds) = configured(&task, limit, compact, stride, width, cap)
                .unwrap_or_else(|e| panic!("seed {seed}, {config}: {e}"));
            assert_eq!(gpu.cost, cpu, "seed {seed}, {config}: cost");
            if let Some(plan) = &gpu.plan {
                assert_eq!(replay(&task, plan), cpu, "seed {seed}: the plan's replayed cost");
            }
            split += rebuilds.splits;
            match (compact, rebuilds.room > 0) {
                (2, true) => {
                    compacted += 1;
                    compactions += rebuilds.room;
                }
                (u32::MAX, true) if limit == reachable => overflowed += 1,
                (u32::MAX, true) => panic!("seed {seed}: a rebuild with room for every state"),
                _ => {}
            }
        }
        match cpu {
            Some(0) => zero += 1,
            Some(_) => solved += 1,
            None => unsolvable += 1,
        }
    }
    assert!(
        solved > 80 && unsolvable > 100 && zero > 100,
        "{solved} solved, {unsolvable} unsolvable, {zero} at cost 0"
    );
    // Compaction is rare on tasks this small: only the entries that may still be open
    // count.
    assert!(
        compacted > 5 && overflowed > 5 && split > 300,
        "{compacted} compacted ({compactions} times), {overflowed} overflowed, {split} split"
    );
}

/// 200 larger random tasks (12-19 facts, 10-49 actions, costs 0-4), where zero-cost
/// rounds follow one another and entries of several costs mix in a round: the
/// emulated GPU search has the CPU's optimal cost, with a roomy list and with one
/// compacted whenever half of what is left to scan is dead and rounds of at most four
/// entries; most raise their threshold (split) at least once.
#[test]
fn on_larger_random_tasks_the_emulated_gpu_search_is_optimal() {
    let (mut solved, mut states, mut splits) = (0, 0, 0);
    for seed in 0..200 {
        let task = larger_random_task(seed, seed % 2 == 1);
        let cpu = search(&task, &SearchOptions { heuristic: Heuristic::Blind, ..SearchOptions::default() }).unwrap();
        for (compact, stride, cap) in [(u32::MAX, 1, CAP), (64, 3, 4)] {
            let (gpu, rebuilds) =
                configured(&task, 1 << 20, compact, stride, None, cap).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            splits += rebuilds.splits;
            assert_eq!(gpu.cost, cpu.cost, "seed {seed}, compact {compact}: cost");
            if let Some(plan) = &gpu.plan {
                assert_eq!(replay(&task, plan), cpu.cost, "seed {seed}: the plan's replayed cost");
            }
        }
        solved += usize::from(cpu.cost.is_some_and(|c| c > 0));
        states += cpu.stored;
    }
    assert!(
        solved > 60 && states > 200 * 500 && splits > 100,
        "{solved} solved at a cost above 0, {states} states in all, {splits} splits"
    );
}

/// A* with pattern databases on the emulated GPU: on 300 random tasks (costs 0-4) and
/// 100 larger ones, the CPU's optimal cost and a plan that replays to it, with the
/// device's settings, with a split at every key and rounds of one entry, and with a
/// list compacted whenever half of it is dead; fewer expansions than Dijkstra in all;
/// and on IPC tasks of four domains (one with conditional effects), the known optimum
/// with a plan the lifted validator accepts.
#[test]
fn the_emulated_gpu_astar_is_optimal() {
    let (mut solved, mut expanded, mut dijkstra) = (0, 0, 0);
    let tasks =
        (0..300).map(|s| random_task(s, s % 2 == 1, true)).chain((0..100).map(|s| larger_random_task(s, s % 2 == 0)));
    for (i, task) in tasks.enumerate() {
        let cpu = cpu_cost(&task);
        for (compact, stride, width, cap) in [(u32::MAX, 1, None, CAP), (u32::MAX, 3, Some(1), 1), (2, 7, None, CAP)] {
            let gpu = astar(&task, 1 << 20, compact, stride, width, cap);
            assert_eq!(gpu.cost, cpu, "task {i}, compact {compact}, width {width:?}, cap {cap}: cost");
            if let Some(plan) = &gpu.plan {
                assert_eq!(replay(&task, plan), cpu, "task {i}: the plan's replayed cost");
            }
            if cap == CAP && compact == u32::MAX {
                expanded += gpu.expanded;
                dijkstra += emulated(&task, 1 << 20, u32::MAX, 1).unwrap().0.expanded;
            }
        }
        solved += usize::from(cpu.is_some_and(|c| c > 0));
    }
    assert!(solved > 60, "{solved} solved at a cost above 0");
    assert!(expanded < dijkstra, "A* expanded {expanded}, Dijkstra {dijkstra}");
    let optimal = common::csv(&data_dir().join("results/ipc2008-opt.csv"));
    for (domain, problem) in [
        ("pegsol-08-strips", "p01.pddl"),
        ("elevators-opt08-strips", "p01.pddl"),
        ("sokoban-opt08-strips", "p01.pddl"),
        ("openstacks-opt08-adl", "p02.pddl"),
    ] {
        let (task, d, p) = ipc_task(domain, problem);
        let known = optimal.iter().find(|r| r["domain"] == domain && r["problem"] == problem).unwrap();
        let out = astar(&task, 1 << 21, u32::MAX, 1, None, CAP);
        assert_eq!(out.cost.unwrap().to_string(), known["optimal_cost"], "{domain} {problem}");
        assert_eq!(validate(&d, &p, &task.plan_names(&out.plan.unwrap())), Ok(out.cost.unwrap()));
    }
}

/// The tiny tasks with action costs, and two IPC tasks: the known optimal costs, and
/// plans that the lifted validator accepts at that cost.
#[test]
fn the_emulated_gpu_search_finds_the_known_optimal_costs() {
    let dir = data_dir();
    let mut checked = 0;
    for row in common::csv(&dir.join("results/tiny-expected.csv")) {
        let name = &row["problem"];
        let read = |f: &str| std::fs::read_to_string(dir.join("tiny").join(f)).unwrap();
        let d = parse_domain(&read(&row["domain_file"])).unwrap();
        let p = parse_problem(&read(name), &d).unwrap();
        if p.net_benefit.is_some() {
            continue; // Its cost counts the missed soft goals: checked by the CLI's tests.
        }
        let task = ground(&d, &p).unwrap();
        let (out, _) = emulated(&task, 1 << 16, u32::MAX, 1).unwrap();
        match out.plan {
            None => assert_eq!(row["solvable"], "False", "{name}"),
            Some(plan) => {
                assert_eq!(out.cost.unwrap().to_string(), row["expected_optimal_cost"], "{name}");
                let names = task.plan_names(&plan);
                assert_eq!(validate(&d, &p, &names).map(|c| c.to_string()), Ok(row["expected_optimal_cost"].clone()));
            }
        }
        checked += 1;
    }
    assert!(checked >= 8, "{checked} tiny tasks");
    let optimal = common::csv(&dir.join("results/ipc2008-opt.csv"));
    for (domain, problem) in [("pegsol-08-strips", "p01.pddl"), ("elevators-opt08-strips", "p01.pddl")] {
        let (task, d, p) = ipc_task(domain, problem);
        let known = optimal.iter().find(|r| r["domain"] == domain && r["problem"] == problem).unwrap();
        let (out, _) = emulated(&task, 1 << 21, u32::MAX, 1).unwrap();
        assert_eq!(out.cost.unwrap().to_string(), known["optimal_cost"], "{domain} {problem}");
        assert_eq!(validate(&d, &p, &task.plan_names(&out.plan.unwrap())), Ok(out.cost.unwrap()));
    }
}

/// A store too small for the reachable states ends with `Full`, never with a wrong
/// answer: an unsolvable task (no goal to stop at) must store all its states.
#[test]
fn a_full_store_is_an_error() {
    let blind = SearchOptions { heuristic: Heuristic::Blind, ..SearchOptions::default() };
    let (task, states) = (0..)
        .map(|s| random_task(9000 + s, false, true))
        .map(|t| {
            let out = search(&t, &blind).unwrap();
            (t, out.plan.is_none().then_some(out.stored as u32))
        })
        .find_map(|(t, unsolvable)| unsolvable.filter(|&n| n >= 8).map(|n| (t, n)))
        .unwrap();
    let err = emulated(&task, states - 1, u32::MAX, 1).unwrap_err();
    assert!(matches!(err, GpuSearchError::Full { capacity, .. } if capacity == u64::from(states - 1)), "{err}");
    assert!(err.to_string().contains("GPU state store is full"), "{err}");
    assert_eq!(emulated(&task, states, u32::MAX, 1).unwrap().0.stored, states as usize);
}

/// A round that finds many more new states than the store holds ends with `Full`: the
/// states past the limit take no place in the hash table, which would otherwise fill
/// and leave an insertion probing forever (the search runs on a thread, given a minute).
#[test]
fn a_round_past_the_full_store_ends() {
    use warpcheck_pddl::task::{Action, Condition};
    let fact = |f: u32| Condition { positive: vec![f], negative: Vec::new(), rest: None };
    // From {f0}, 39 actions each add one more fact: one round, 39 new states.
    let actions = (1..40)
        .map(|f| Action {
            name: format!("(add f{f})"),
            precondition: fact(0),
            add: vec![f],
            delete: Vec::new(),
            conditional: Vec::new(),
            numeric: Vec::new(),
            cost: 1,
        })
        .collect::<Vec<_>>();
    let task = Task {
        facts: (0..40).map(|f| format!("(f{f})")).collect(),
        end_phase: actions.len(),
        actions,
        init: vec![1, 0],
        goal: Condition { positive: vec![38, 39], negative: Vec::new(), rest: None },
        words: 2,
        numeric: Vec::new(),
        scale: 1,
    };
    let (sender, receiver) = std::sync::mpsc::channel();
    let solver = task.clone();
    std::thread::spawn(move || sender.send(emulated(&solver, 4, u32::MAX, 1).map(|(o, _)| o.cost)));
    let outcome = receiver.recv_timeout(std::time::Duration::from_secs(60)).expect("the search did not end");
    assert!(matches!(outcome, Err(GpuSearchError::Full { capacity: 4, .. })), "{outcome:?}");
    assert_eq!(emulated(&task, 1 << 16, u32::MAX, 1).unwrap().0.cost, Some(2));
}

/// Costs the device cannot hold: an action past `u32::MAX` is refused before the
/// search, and a path reaching 2^32 - 1 (the control block's "none") ends it with
/// `CostOverflow`, never with a wrong "unsolvable".
#[test]
fn costs_past_the_device_range_are_errors() {
    use warpcheck_pddl::task::{Action, Condition};
    let step = |from: u32, to: u32, cost: u64| Action {
        name: format!("(go f{from} f{to})"),
        precondition: Condition { positive: vec![from], negative: Vec::new(), rest: None },
        add: vec![to],
        delete: vec![from],
        conditional: Vec::new(),
        numeric: Vec::new(),
        cost,
    };
    let task = |costs: [u64; 2]| Task {
        facts: (0..3).map(|f| format!("(f{f})")).collect(),
        actions: vec![step(0, 1, costs[0]), step(1, 2, costs[1])],
        end_phase: 2,
        init: vec![1],
        goal: Condition { positive: vec![2], negative: Vec::new(), rest: None },
        words: 1,
        numeric: Vec::new(),
        scale: 1,
    };
    assert_eq!(emulated(&task([1, 2]), 16, u32::MAX, 1).unwrap().0.cost, Some(3));
    let half = u64::from(u32::MAX / 2 + 1);
    assert_eq!(emulated(&task([half, half - 1]), 16, u32::MAX, 1).unwrap_err(), GpuSearchError::CostOverflow);
    assert_eq!(emulated(&task([half, half - 2]), 16, u32::MAX, 1).unwrap().0.cost, Some(2 * half - 2));
    let e = emulated(&task([1, u64::from(u32::MAX) + 1]), 16, u32::MAX, 1).unwrap_err();
    assert!(matches!(e, GpuSearchError::Unsupported(_)), "{e}");
}

/// Numeric fluents on the GPU: on 300 random tasks with two fluents compared in
/// preconditions and goals and changed by assign, increase and decrease, the emulated
/// search has the CPU's optimal cost, with a roomy list and with one rebuilt often.
#[test]
fn on_random_numeric_tasks_the_emulated_gpu_search_is_optimal() {
    let (mut solved, mut unsolvable, mut changed) = (0, 0, 0);
    for seed in 0..300 {
        let task = random_numeric_task(seed);
        let cpu = cpu_cost(&task);
        for (limit, compact, stride, width, cap) in [(1 << 14, u32::MAX, 1, None, CAP), (1 << 14, 2, 7, Some(1), 2)] {
            let (gpu, _) = configured(&task, limit, compact, stride, width, cap)
                .unwrap_or_else(|e| panic!("seed {seed}, limit {limit}, compact {compact}: {e}"));
            assert_eq!(gpu.cost, cpu, "seed {seed}, compact {compact}: cost");
            if let Some(plan) = &gpu.plan {
                assert_eq!(replay(&task, plan), cpu, "seed {seed}: the plan's replayed cost");
                changed += plan.iter().any(|&a| !task.actions[a].numeric.is_empty()) as u32;
            }
        }
        match cpu {
            Some(_) => solved += 1,
            None => unsolvable += 1,
        }
    }
    assert!(
        solved > 60 && unsolvable > 30 && changed > 60,
        "{solved} solved, {unsolvable} unsolvable, {changed} plans change a fluent"
    );
}

/// The hand-checked fuel tasks (`examples/plan/fuel-*`: a guard that changes the
/// optimum, assign, an unsolvable one, a numeric soft goal), the cargo tasks (a
/// conditional numeric effect beside another on the same fluent) and the first numeric
/// elevator and openstacks net-benefit tasks: the emulated GPU search has the CPU's
/// costs.
#[test]
fn the_emulated_gpu_search_solves_numeric_tasks_as_the_cpu() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/plan");
    let read = |path: std::path::PathBuf| std::fs::read_to_string(path).unwrap();
    let mut tasks = Vec::new();
    let domain = parse_domain(&read(examples.join("fuel-domain.pddl"))).unwrap();
    for problem in ["fuel-problem", "fuel-low", "fuel-refuel", "fuel-stranded", "fuel-netbenefit", "fuel-decimal"] {
        let problem_ast = parse_problem(&read(examples.join(format!("{problem}.pddl"))), &domain).unwrap();
        tasks.push((problem.to_string(), ground(&domain, &problem_ast).unwrap()));
    }
    let domain = parse_domain(&read(examples.join("cargo-domain.pddl"))).unwrap();
    for problem in ["cargo-problem", "cargo-empty"] {
        let problem_ast = parse_problem(&read(examples.join(format!("{problem}.pddl"))), &domain).unwrap();
        tasks.push((problem.to_string(), ground(&domain, &problem_ast).unwrap()));
    }
    let sets = data_dir().join("ipc2008-netbenefit-opt");
    for set in ["elevator-net-benefit-optimal-numeric-fluents", "openstacks-net-benefit-optimal-adl-numeric-fluents"] {
        let domain = parse_domain(&read(sets.join(set).join("domain.pddl"))).unwrap();
        let problem = parse_problem(&read(sets.join(set).join("instance-1.pddl")), &domain).unwrap();
        tasks.push((format!("{set} 1"), ground(&domain, &problem).unwrap()));
    }
    assert!(tasks.iter().all(|(_, t)| !t.numeric.is_empty()));
    for (name, task) in &tasks {
        let cpu = cpu_cost(task);
        let (gpu, _) = emulated(task, 1 << 20, u32::MAX, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(gpu.cost, cpu, "{name}");
        if let Some(plan) = &gpu.plan {
            assert_eq!(replay(task, plan), cpu, "{name}: the plan's replayed cost");
        }
    }
}

/// A numeric effect past the 32-bit range ends the GPU search with the CPU's error:
/// the fluent, its value and the action.
#[test]
fn a_numeric_value_out_of_range_is_the_cpu_error() {
    use warpcheck_pddl::numeric::{Assign, Cmp};
    use warpcheck_pddl::task::{Action, Condition, Formula, NumExpr, NumericEffect, NumericVar};
    // (double): n := n * 1000, from 1; the goal n = 7 is never reached.
    let grow = Action {
        name: "(grow)".into(),
        precondition: Condition::default(),
        add: Vec::new(),
        delete: Vec::new(),
        conditional: Vec::new(),
        numeric: vec![NumericEffect {
            var: 0,
            word: 1,
            op: Assign::Assign,
            value: NumExpr::Mul(Box::new(NumExpr::Var(1)), Box::new(NumExpr::Const(1000))),
        }],
        cost: 2,
    };
    let task = Task {
        facts: vec!["(f0)".into()],
        actions: vec![grow],
        end_phase: 1,
        init: vec![0, 1],
        goal: Condition {
            rest: Some(Formula::Compare(Cmp::Equal, NumExpr::Var(1), NumExpr::Const(7))),
            ..Condition::default()
        },
        words: 2,
        numeric: vec![NumericVar { name: "(n)".into(), word: 1, init: 1, lower: None, upper: None }],
        scale: 1,
    };
    let cpu = search(&task, &SearchOptions { heuristic: Heuristic::Blind, ..SearchOptions::default() }).unwrap_err();
    let gpu = emulated(&task, 64, u32::MAX, 1).unwrap_err();
    assert_eq!(gpu.to_string(), cpu.to_string());
    assert!(gpu.to_string().contains("`(n)` would take the value 1000000000000 after `(grow)`"), "{gpu}");
}

/// A deadline that has passed ends the search after its first round with
/// `TimeLimit`, which counts the expansions done; without one the same task is solved.
#[test]
fn a_passed_deadline_ends_the_search() {
    let (task, _, _) = ipc_task("elevators-opt08-strips", "p01.pddl");
    let past = Some(std::time::Instant::now());
    let e = uniform_cost_emulated(
        &task,
        &Emulation {
            limit: 1 << 21,
            compact: u32::MAX,
            stride: 1,
            deadline: past,
            width: None,
            cap: CAP,
            astar: false,
        },
    );
    assert_eq!(e.unwrap_err(), GpuSearchError::TimeLimit { expanded: 1 });
    assert_eq!(emulated(&task, 1 << 21, u32::MAX, 1).unwrap().0.cost, Some(42));
}

/// On a device (`cargo test -p warpcheck-pddl --test gpu_search -- --ignored`): the GPU
/// search, Dijkstra and A* with pattern databases, has the CPU's optimal costs on random
/// tasks with costs (half of them with numeric fluents) and on IPC tasks.
#[test]
#[ignore = "needs a CUDA device"]
fn on_a_device_the_gpu_search_has_the_cpu_costs() {
    for astar in [false, true] {
        let options = GpuSearchOptions { device: 0, memory: Some(256 << 20), deadline: None, astar };
        for seed in 0..200 {
            // Half of them with numeric fluents.
            let task = if seed < 100 { random_task(seed, seed % 2 == 1, true) } else { random_numeric_task(seed) };
            let gpu = uniform_cost_gpu(&task, &options).unwrap_or_else(|e| panic!("seed {seed}, A* {astar}: {e}"));
            assert_eq!(gpu.cost, cpu_cost(&task), "seed {seed}, A* {astar}");
            if let Some(plan) = &gpu.plan {
                assert_eq!(replay(&task, plan), gpu.cost, "seed {seed}, A* {astar}");
            }
        }
        let optimal = common::csv(&data_dir().join("results/ipc2008-opt.csv"));
        let options = GpuSearchOptions { device: 0, memory: None, deadline: None, astar };
        for (domain, problem) in [
            ("pegsol-08-strips", "p05.pddl"),
            ("elevators-opt08-strips", "p01.pddl"),
            ("openstacks-opt08-strips", "p03.pddl"),
            ("woodworking-opt08-strips", "p01.pddl"),
            ("sokoban-opt08-strips", "p05.pddl"),
        ] {
            let (task, d, p) = ipc_task(domain, problem);
            let known = optimal.iter().find(|r| r["domain"] == domain && r["problem"] == problem).unwrap();
            let out = uniform_cost_gpu(&task, &options).unwrap_or_else(|e| panic!("{domain} {problem}: {e}"));
            assert_eq!(out.cost.unwrap().to_string(), known["optimal_cost"], "{domain} {problem}, A* {astar}");
            assert_eq!(validate(&d, &p, &task.plan_names(&out.plan.unwrap())), Ok(out.cost.unwrap()));
        }
    }
}

/// The search's CUDA source compiles with NVRTC for sm_90 (no device needed):
/// `LD_LIBRARY_PATH=DIR_OF_LIBNVRTC cargo test -p warpcheck-pddl --test gpu_search --
/// --ignored nvrtc`; a task with numeric fluents too.
#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn the_search_compiles_with_nvrtc() {
    assert!(warpcheck_cuda::nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    let (task, _, _) = ipc_task("elevators-opt08-strips", "p01.pddl");
    for task in [task, random_numeric_task(7)] {
        let source = warpcheck_pddl::search::gpu::cuda_source(&task).unwrap();
        warpcheck_cuda::nvrtc::compile(&source, 90, &[]).unwrap_or_else(|e| panic!("{e}"));
    }
}
