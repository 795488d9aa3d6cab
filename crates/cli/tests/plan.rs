//! `warpcheck plan`: the example task's optimal plan, text and JSON; an unsolvable task
//! (exit 1); diagnostics with file, line and column (exit 2); state, memory and time
//! bounds (exit 3).

mod common;

use common::{text, warpcheck};
use serde_json::Value;

const DOMAIN: &str = "examples/plan/delivery-domain.pddl";
const PROBLEM: &str = "examples/plan/delivery-problem.pddl";

/// A file under the system's temporary directory with `contents`.
fn temp(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpcheck-plan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

#[test]
fn example_has_its_optimal_plan() {
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Through the mill (3 + 4) beats the direct road (9); 4 loads and unloads.
    assert_eq!(r["cost"], 11);
    assert_eq!(r["length"], 6);
    assert_eq!(r["solvable"], true);
    assert_eq!((r["search"].as_str(), r["heuristic"].as_str()), (Some("astar"), Some("lmcut")));
    let blind = warpcheck(&["plan", DOMAIN, PROBLEM, "--json", "--heuristic", "blind"]);
    let blind: Value = serde_json::from_slice(&blind.stdout).unwrap();
    for (heuristic, search) in [("hmax", "astar"), ("pdb", "astar"), ("blind", "uniform-cost")] {
        let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--json", "--heuristic", heuristic]);
        let h: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((&h["cost"], h["search"].as_str()), (&r["cost"], Some(search)), "{heuristic}");
        assert_eq!(h["heuristic"].as_str(), Some(heuristic));
        assert!(h["expanded"].as_u64() >= r["expanded"].as_u64(), "{heuristic} expands no fewer than LM-cut");
        assert!(h["expanded"].as_u64() <= blind["expanded"].as_u64(), "{heuristic} expands no more than blind");
        // The setting up is a part of the search; the blind search has none.
        let (setup, search) = (h["setup_seconds"].as_f64().unwrap(), h["search_seconds"].as_f64().unwrap());
        assert!(setup <= search && setup <= h["seconds"].as_f64().unwrap(), "{heuristic}: {setup} {search}");
        assert_eq!(setup == 0.0, heuristic == "blind", "{heuristic}: {setup}");
        // On the CPU the setting up is the heuristic's tables.
        assert_eq!(h["heuristic_seconds"].as_f64(), Some(setup), "{heuristic}");
    }
    // The larger of the two is no weaker than either.
    let expanded = |heuristic: &str| {
        let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--json", "--heuristic", heuristic]);
        let h: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((&h["cost"], h["heuristic"].as_str()), (&r["cost"], Some(heuristic)));
        h["expanded"].as_u64().unwrap()
    };
    let max = expanded("max");
    assert!(max <= expanded("lmcut") && max <= expanded("pdb"), "max expands {max}");
    let plan: Vec<&str> = r["plan"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert!(plan.contains(&"(drive van depot mill)") && plan.contains(&"(drive van mill farm)"), "{plan:?}");
    let out = warpcheck(&["plan", DOMAIN, PROBLEM]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with('('), "{stdout}");
    assert!(stdout.contains("\ncost:      11\nlength:    6\n"), "{stdout}");
}

/// Soft goals: the flour alone (cost 5, the seeds' 5 forgone) beats both deliveries
/// (cost 11) and none (15 forgone).
#[test]
fn net_benefit_is_maximised() {
    let out =
        warpcheck(&["plan", "examples/plan/delivery-domain.pddl", "examples/plan/delivery-netbenefit.pddl", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["plan"],
        serde_json::json!(["(load flour van depot)", "(drive van depot mill)", "(unload flour van mill)"])
    );
    assert_eq!((r["cost"].as_u64(), r["penalty"].as_u64(), r["net_benefit"].as_i64()), (Some(5), Some(5), Some(5)));
    // A cost-optimal task has no penalty and no net benefit.
    let out =
        warpcheck(&["plan", "examples/plan/delivery-domain.pddl", "examples/plan/delivery-problem.pddl", "--json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["penalty"].is_null() && r["net_benefit"].is_null());
}

/// A one-way corridor whose goal lies behind the start: two reachable states, no plan.
fn oneway() -> (String, String) {
    let domain = temp(
        "oneway-domain.pddl",
        "(define (domain oneway) (:predicates (at ?x) (link ?x ?y))
           (:action go :parameters (?x ?y) :precondition (and (at ?x) (link ?x ?y))
            :effect (and (not (at ?x)) (at ?y))))",
    );
    let problem = temp(
        "oneway-problem.pddl",
        "(define (problem p) (:domain oneway) (:objects a b c)
           (:init (at b) (link a b) (link b c)) (:goal (at a)))",
    );
    (domain, problem)
}

#[test]
fn unsolvable_task_exits_1() {
    let (domain, problem) = oneway();
    // Blind search exhausts the two reachable states; LM-cut and the pattern databases
    // see the dead end at once.
    for (heuristic, states) in [("blind", 2), ("lmcut", 1), ("pdb", 1), ("max", 1)] {
        let out = warpcheck(&["plan", &domain, &problem, "--json", "--heuristic", heuristic]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got = (r["solvable"].as_bool(), r["plan"].is_null(), r["states"].as_u64());
        assert_eq!(got, (Some(false), true, Some(states)), "{heuristic}");
    }
}

#[test]
fn bad_input_is_a_diagnostic_with_line_and_column() {
    let problem =
        temp("p.pddl", "(define (problem p) (:domain d)\n  (:objects a)\n  (:init (at a a))\n  (:goal (at a)))");
    let cases = [
        ("(define (domain d)\n  (:predicates (at ?x))", "unbalanced `(`", ":1:1"),
        ("(define (domain d)\n  (:predicates (at ?x)))\n)", "unbalanced `)`", ":3:1"),
        ("(define (domain d) (:predicates (at ?x))\n  (:action a :parameters (?x)\n   :precondition (on ?x) :effect (at ?x)))", "unknown predicate `on`", ":3:19"),
        ("(define (domain d) (:predicates (at ?x))\n (:action a :parameters (?x)\n  :effect (at ?x ?x)))", "wrong number of arguments: `at` takes 1, given 2", ":3:11"),
        ("(define (domain d) (:predicates (at ?x - place)))", "undefined type `place`", ":1:42"),
        ("(define (domain d) (:requirements :durative-actions) (:predicates (at ?x)))", "requirement `:durative-actions` is not supported yet", ":1:35"),
    ];
    for (source, message, at) in cases {
        let domain = temp("d.pddl", source);
        let out = warpcheck(&["plan", &domain, &problem]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{source}: {stderr}");
        assert!(stderr.contains(&format!("error: {message}")), "{source}: {stderr}");
        assert!(stderr.contains(&format!("d.pddl{at}")), "{source}: {stderr}");
        assert!(stderr.contains('^'), "{source}: {stderr}");
    }
    // The problem's own errors point into the problem file: `at` takes one argument.
    let domain = temp("d2.pddl", "(define (domain d) (:predicates (at ?x)))");
    let out = warpcheck(&["plan", &domain, &problem]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("wrong number of arguments") && stderr.contains("p.pddl:3:10"), "{stderr}");
    let out = warpcheck(&["plan", "examples/plan/missing.pddl", PROBLEM]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn state_bound_exits_3() {
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--max-states", "5"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("state limit of 5 states"), "{}", text(&out.stderr));
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--memory", "1K"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--time-limit", "0"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("time limit reached"), "{}", text(&out.stderr));
}

/// On a device (`cargo test -p warpcheck --test plan -- --ignored`): the GPU's
/// breadth-first search finds the ferry's optimal plan of 6 steps (validated before it
/// is printed), and exhausts an unsolvable task's two states (exit 1); its cost-layered
/// search finds the delivery's plan of cost 11 and the net-benefit task's optimum.
#[test]
#[ignore = "needs a CUDA device"]
fn the_gpu_plans_unit_cost_tasks_breadth_first() {
    let ferry = ["plan", "examples/plan/ferry-domain.pddl", "examples/plan/ferry-problem.pddl"];
    let out = warpcheck(&[&ferry[..], &["--backend", "gpu", "--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["cost"].as_u64(), r["length"].as_u64()), (Some(6), Some(6)), "{r}");
    assert_eq!((r["backend"].as_str(), r["heuristic"].as_str()), (Some("gpu"), Some("blind")), "{r}");
    let (domain, problem) = oneway();
    let out = warpcheck(&["plan", &domain, &problem, "--backend", "gpu", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["solvable"].as_bool(), r["states"].as_u64()), (Some(false), Some(2)), "{r}");
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--backend", "gpu", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["cost"].as_u64(), r["search"].as_str()), (Some(11), Some("uniform-cost")), "{r}");
    assert!(r["expanded"].as_u64().is_some_and(|e| e > 0), "{r}");
    // A* with pattern databases: the same optima, at unit costs too, and the dead end.
    for (domain, problem, code, cost) in
        [(ferry[1], ferry[2], 0, Some(6)), (DOMAIN, PROBLEM, 0, Some(11)), (&domain, &problem, 1, None)]
    {
        let out = warpcheck(&["plan", domain, problem, "--backend", "gpu", "--heuristic", "pdb", "--json"]);
        assert_eq!(out.status.code(), Some(code), "{problem}: {}", text(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((r["cost"].as_u64(), r["search"].as_str()), (cost, Some("astar")), "{r}");
        assert_eq!((r["backend"].as_str(), r["heuristic"].as_str()), (Some("gpu"), Some("pdb")), "{r}");
    }
    let netbenefit = "examples/plan/delivery-netbenefit.pddl";
    let out = warpcheck(&["plan", DOMAIN, netbenefit, "--backend", "gpu", "--json"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["cost"].as_u64(), r["penalty"].as_u64(), r["net_benefit"].as_i64()), (Some(5), Some(5), Some(5)));
    // Numeric fluents: the CPU's optima, exit 1 when stranded.
    for (problem, code, cost) in [
        ("fuel-problem", 0, Some(3)),
        ("fuel-low", 0, Some(5)),
        ("fuel-refuel", 0, Some(7)),
        ("fuel-stranded", 1, None),
    ] {
        let problem = format!("examples/plan/{problem}.pddl");
        let out = warpcheck(&["plan", "examples/plan/fuel-domain.pddl", &problem, "--backend", "gpu", "--json"]);
        assert_eq!(out.status.code(), Some(code), "{problem}: {}", text(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["cost"].as_u64(), cost, "{problem}");
    }
    // A value past 32 bits: the CPU's message, exit 3, breadth first (unit costs) and
    // by cost layers.
    for cost in [false, true] {
        let effect = if cost { " (increase (total-cost) 2)" } else { "" };
        let functions = if cost { "(x) (total-cost)" } else { "(x)" };
        let grow = temp(
            "grow-gpu.pddl",
            &format!(
                "(define (domain grow) (:predicates (done)) (:functions {functions})
                   (:action grow :parameters () :effect (and (increase (x) 1500000000){effect}))
                   (:action finish :parameters () :precondition (= (x) 7) :effect (done)))"
            ),
        );
        let init = if cost { " (= (total-cost) 0)" } else { "" };
        let metric = if cost { " (:metric minimize (total-cost))" } else { "" };
        let problem = temp(
            "grow-gpu-p.pddl",
            &format!("(define (problem p) (:domain grow) (:init (= (x) 0){init}) (:goal (done)){metric})"),
        );
        let out = warpcheck(&["plan", &grow, &problem, "--backend", "gpu"]);
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("`(x)` would take the value 3000000000 after `(grow)`"), "{stderr}");
    }
}

/// `--time-limit` bounds the GPU's cost-layered search, not its breadth-first one.
#[test]
fn the_gpu_takes_a_time_limit_only_by_cost_layers() {
    let ferry = ["plan", "examples/plan/ferry-domain.pddl", "examples/plan/ferry-problem.pddl"];
    let out = warpcheck(&[&ferry[..], &["--backend", "gpu", "--time-limit", "5"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--time-limit bounds the GPU's cost-layered search"), "{}", text(&out.stderr));
    let out = warpcheck(&["plan", DOMAIN, PROBLEM, "--backend", "gpu", "--device", "99", "--time-limit", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
}

/// A problem file is a model for `explore` and `check` (the PDDL front end): the
/// ferry has 3 ports × 54 placements of the cars (27 with one aboard, 27 with none),
/// each with 3 steps (two sails, and a debark or as many boards as cars in port).
#[test]
fn explore_counts_a_planning_tasks_states() {
    let out = warpcheck(&[
        "explore",
        "examples/plan/ferry-problem.pddl",
        "--domain",
        "examples/plan/ferry-domain.pddl",
        "--json",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (r["states"].as_u64(), r["transitions"].as_u64(), r["deadlocks"].as_u64()),
        (Some(162), Some(486), Some(0))
    );
    // The domain is found beside the problem under the IPC's names.
    let dir = std::env::temp_dir().join(format!("warpcheck-pddl-domain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let example = |name: &str| format!("{}/../../examples/plan/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(example("ferry-domain.pddl"), dir.join("p01-domain.pddl")).unwrap();
    std::fs::copy(example("ferry-problem.pddl"), dir.join("p01.pddl")).unwrap();
    let problem = dir.join("p01.pddl").display().to_string();
    let out = warpcheck(&["explore", &problem, "--json", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Without one: a clear error; and planning tasks have no invariant expressions.
    let out = warpcheck(&["explore", "examples/plan/ferry-problem.pddl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no domain file beside it"), "{}", text(&out.stderr));
    let domain = "examples/plan/ferry-domain.pddl";
    let out = warpcheck(&["check", "examples/plan/ferry-problem.pddl", "--domain", domain, "--invariant", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--invariant: a planning task has no expression language"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Numeric fluents (`examples/plan/fuel-*`): the optima their comments derive, the
/// fluent and its proven range in the report, exit 1 when the truck is stranded, exit
/// 3 when a value would leave the 32-bit range; `--backend gpu` takes them (here, with
/// no device, only as far as the device).
#[test]
fn numeric_fluents_are_planned_on_the_cpu() {
    let domain = "examples/plan/fuel-domain.pddl";
    let cases = [
        ("fuel-problem", 0, Some(3), 3),
        ("fuel-low", 0, Some(5), 2),
        ("fuel-refuel", 0, Some(7), 3),
        ("fuel-stranded", 1, None, 2),
    ];
    // The fuel never exceeds the initial value or, with a station, the capacity.
    for (problem, code, cost, most) in cases {
        let problem = format!("examples/plan/{problem}.pddl");
        let out = warpcheck(&["plan", domain, &problem, "--json"]);
        assert_eq!(out.status.code(), Some(code), "{problem}: {}", text(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["cost"].as_u64(), cost, "{problem}");
        assert_eq!(r["numeric"], serde_json::json!([{"name": "(fuel t)", "lower": 0, "upper": most}]), "{problem}");
    }
    let out = warpcheck(&["plan", domain, "examples/plan/fuel-netbenefit.pddl"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("(drive t a d)\ncost:      5\n"), "{stdout}");
    assert!(
        stdout.contains("\nbenefit:   15 ") && stdout.contains("\nnumeric:   (fuel t) in [0, 3] (32-bit integers)\n"),
        "{stdout}"
    );
    let out = warpcheck(&["plan", domain, "examples/plan/fuel-low.pddl", "--backend", "gpu", "--device", "99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
    let grow = temp(
        "grow.pddl",
        "(define (domain grow) (:predicates (done)) (:functions (x))
           (:action grow :parameters () :effect (increase (x) 1500000000))
           (:action finish :parameters () :precondition (= (x) 7) :effect (done)))",
    );
    let problem = temp("grow-p.pddl", "(define (problem p) (:domain grow) (:init (= (x) 0)) (:goal (done)))");
    let out = warpcheck(&["plan", &grow, &problem]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("`(x)` would take the value 3000000000 after `(grow)`"),
        "{}",
        text(&out.stderr)
    );
}
