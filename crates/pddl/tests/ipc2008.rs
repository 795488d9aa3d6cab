//! IPC-2008 sequential-optimal problems (`shared/planning/ipc2008-opt`) against the
//! known optimal costs of `results/ipc2008-opt.csv`: a set of small problems of every
//! domain (the ADL openstacks too) in every run, each plan validated on the lifted
//! semantics with the same cost. `every_blind_solvable_problem` (ignored: minutes) runs
//! every problem with a known optimum that a blind search solved within 5 s, and prints
//! a table: `cargo test --release -p warpcheck-pddl --test ipc2008 -- --ignored --nocapture`.
//! `coverage_of_known_optima` (ignored) gives every problem with a known optimum
//! `$WARPCHECK_PLAN_SECONDS` (default 10) seconds and counts those solved per domain;
//! every solved one must have its known optimal cost. `grounded_sizes_equal_fast_downwards`
//! holds the grounder to Fast Downward's task sizes on all 243 problems.

mod common;

use std::collections::HashMap;

fn optima() -> HashMap<(String, String), (String, u64)> {
    let dir = common::data_dir();
    common::csv(&dir.join("results/ipc2008-opt.csv"))
        .into_iter()
        .filter(|r| !r["optimal_cost"].is_empty())
        .map(|r| {
            (
                (r["domain"].clone(), r["problem"].clone()),
                (r["domain_file"].clone(), r["optimal_cost"].parse().unwrap()),
            )
        })
        .collect()
}

fn check(domain: &str, problem: &str, optima: &HashMap<(String, String), (String, u64)>) -> common::Solved {
    let dir = common::data_dir().join("ipc2008-opt").join(domain);
    let (domain_file, cost) = &optima[&(domain.to_string(), problem.to_string())];
    let solved = common::solve(&dir.join(domain_file), &dir.join(problem));
    assert_eq!(solved.cost, Some(*cost), "{domain} {problem}: optimal cost");
    assert_eq!(solved.validated_cost, Some(*cost), "{domain} {problem}: validated cost");
    solved
}

#[test]
fn small_problems_of_every_domain_have_their_known_optima() {
    let optima = optima();
    let problems = [
        ("elevators-opt08-strips", "p01.pddl"),
        ("openstacks-opt08-strips", "p01.pddl"),
        ("openstacks-opt08-strips", "p02.pddl"),
        ("openstacks-opt08-adl", "p01.pddl"),
        ("parcprinter-08-strips", "p01.pddl"),
        ("parcprinter-08-strips", "p02.pddl"),
        ("pegsol-08-strips", "p01.pddl"),
        ("pegsol-08-strips", "p02.pddl"),
        ("pegsol-08-strips", "p03.pddl"),
        ("scanalyzer-08-strips", "p22.pddl"),
        ("sokoban-opt08-strips", "p01.pddl"),
        ("sokoban-opt08-strips", "p20.pddl"),
        ("transport-opt08-strips", "p01.pddl"),
        ("woodworking-opt08-strips", "p21.pddl"),
    ];
    for (domain, problem) in problems {
        let s = check(domain, problem, &optima);
        eprintln!("{domain} {problem}: cost {:?}, {} expanded, {:.3} s", s.cost, s.expanded, s.seconds);
    }
}

/// Parallel A* (a batch of states of the least f expanded at once, their new states
/// evaluated on two threads) finds the sequential search's optimal cost with LM-cut and
/// h_max, with a plan that reaches the goal at that cost.
#[test]
fn parallel_astar_finds_the_same_optimal_cost() {
    use warpcheck_pddl::{ground, parse_domain, parse_problem, search, Heuristic, SearchOptions};
    let dir = common::data_dir().join("ipc2008-opt");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (domain, problem) in [
        ("elevators-opt08-strips", "p01.pddl"),
        ("sokoban-opt08-strips", "p01.pddl"),
        ("parcprinter-08-strips", "p02.pddl"),
        ("openstacks-opt08-adl", "p02.pddl"),
    ] {
        let folder = dir.join(domain);
        let shared = folder.join("domain.pddl");
        let own = folder.join(format!("{}-domain.pddl", problem.trim_end_matches(".pddl")));
        let d = parse_domain(&std::fs::read_to_string(if shared.exists() { shared } else { own }).unwrap()).unwrap();
        let p = parse_problem(&std::fs::read_to_string(folder.join(problem)).unwrap(), &d).unwrap();
        let task = ground(&d, &p).unwrap();
        for heuristic in [Heuristic::LmCut, Heuristic::Hmax] {
            let one = search(&task, &SearchOptions { heuristic, threads: 1, ..Default::default() }).unwrap();
            let two = pool.install(|| search(&task, &SearchOptions { heuristic, threads: 2, ..Default::default() }));
            let two = two.unwrap();
            assert_eq!(two.cost, one.cost, "{domain} {problem} {heuristic:?}");
            let plan = task.plan_names(&two.plan.unwrap());
            assert_eq!(warpcheck_pddl::validate(&d, &p, &plan), Ok(one.cost.unwrap()), "{domain} {problem}");
            assert!(one.expanded > 1, "{domain} {problem}: a search that expands");
        }
    }
}

/// Blind search on two threads: uniform-cost by buckets finds the known optimum with a
/// plan the validator accepts; on the same tasks with every cost set to 1, the parallel
/// breadth-first search gives the sequential one's plan and counts exactly.
#[test]
fn parallel_blind_search_finds_the_optima() {
    use warpcheck_pddl::{ground, parse_domain, parse_problem, search, validate, Heuristic, SearchOptions};
    let optima = optima();
    let dir = common::data_dir().join("ipc2008-opt");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (domain, problem) in [
        ("elevators-opt08-strips", "p01.pddl"),
        ("openstacks-opt08-adl", "p01.pddl"),
        ("parcprinter-08-strips", "p02.pddl"),
        ("pegsol-08-strips", "p03.pddl"),
        ("sokoban-opt08-strips", "p01.pddl"),
        ("transport-opt08-strips", "p01.pddl"),
    ] {
        let (domain_file, cost) = &optima[&(domain.to_string(), problem.to_string())];
        let folder = dir.join(domain);
        let d = parse_domain(&std::fs::read_to_string(folder.join(domain_file)).unwrap()).unwrap();
        let p = parse_problem(&std::fs::read_to_string(folder.join(problem)).unwrap(), &d).unwrap();
        let mut task = ground(&d, &p).unwrap();
        let options = |threads| SearchOptions { heuristic: Heuristic::Blind, threads, ..Default::default() };
        let two = pool.install(|| search(&task, &options(2))).unwrap();
        assert_eq!(two.cost, Some(*cost), "{domain} {problem}: cost on two threads");
        let plan: Vec<String> = two.plan.unwrap().iter().map(|&a| task.actions[a].name.clone()).collect();
        assert_eq!(validate(&d, &p, &plan).unwrap(), *cost, "{domain} {problem}: validated cost");
        assert!(two.expanded > 1, "{domain} {problem}: a search that expands");
        for action in &mut task.actions {
            action.cost = 1;
        }
        let one = search(&task, &options(1)).unwrap();
        let two = pool.install(|| search(&task, &options(2))).unwrap();
        assert_eq!(two, one, "{domain} {problem}: breadth-first on two threads");
    }
}

#[test]
#[ignore = "minutes: every blind-solvable problem"]
fn every_blind_solvable_problem() {
    let dir = common::data_dir();
    let optima = optima();
    let only = std::env::var("WARPCHECK_PLAN_DOMAIN").ok();
    for r in common::csv(&dir.join("results/ipc2008-opt.csv")) {
        if r["blind_result"] != "solved" || only.as_ref().is_some_and(|d| !r["domain"].contains(d.as_str())) {
            continue;
        }
        let s = check(&r["domain"], &r["problem"], &optima);
        println!(
            "{:<26} {:<9} cost {:>8}  facts {:>4}  actions {:>5}  expanded {:>9}  {:>7.2} s",
            r["domain"],
            r["problem"],
            s.cost.unwrap(),
            s.facts,
            s.actions,
            s.expanded,
            s.seconds
        );
    }
}

#[test]
#[ignore = "minutes: every problem with a known optimum, under a time limit each"]
fn coverage_of_known_optima() {
    let dir = common::data_dir();
    let seconds: f64 = std::env::var("WARPCHECK_PLAN_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let mut per_domain: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for r in common::csv(&dir.join("results/ipc2008-opt.csv")) {
        if r["optimal_cost"].is_empty() {
            continue;
        }
        let entry = per_domain.entry(r["domain"].clone()).or_default();
        entry.1 += 1;
        let folder = dir.join("ipc2008-opt").join(&r["domain"]);
        let cost: u64 = r["optimal_cost"].parse().unwrap();
        match common::solve_within(&folder.join(&r["domain_file"]), &folder.join(&r["problem"]), Some(seconds)) {
            Some(s) => {
                assert_eq!((s.cost, s.validated_cost), (Some(cost), Some(cost)), "{} {}", r["domain"], r["problem"]);
                entry.0 += 1;
                println!(
                    "{:<26} {:<9} solved  cost {:>8}  expanded {:>9}  {:>7.2} s",
                    r["domain"], r["problem"], cost, s.expanded, s.seconds
                );
            }
            None => println!("{:<26} {:<9} time or state limit", r["domain"], r["problem"]),
        }
    }
    let solved: usize = per_domain.values().map(|v| v.0).sum();
    let total: usize = per_domain.values().map(|v| v.1).sum();
    for (domain, (s, t)) in &per_domain {
        println!("{domain:<26} {s:>3} / {t:>3}");
    }
    println!("solved {solved} of {total} problems with a known optimum, {seconds} s each");
}

/// The grounder against Fast Downward's (`strips_fluent_atoms`,
/// `strips_ground_actions`): on every problem of the eight STRIPS domains the same
/// numbers of facts and actions (relaxed reachability, static facts folded away), up to
/// scanalyzer p28's 373,248 actions. On the ADL openstacks the same actions; Fast
/// Downward's atoms also count the derived atoms it compiles quantified preconditions
/// into, so ours are fewer there. About 5 s for all 243 problems.
#[test]
fn grounded_sizes_equal_fast_downwards() {
    let dir = common::data_dir();
    let mut checked = 0;
    for r in common::csv(&dir.join("results/ipc2008-opt.csv")) {
        let folder = dir.join("ipc2008-opt").join(&r["domain"]);
        let d =
            warpcheck_pddl::parse_domain(&std::fs::read_to_string(folder.join(&r["domain_file"])).unwrap()).unwrap();
        let p =
            warpcheck_pddl::parse_problem(&std::fs::read_to_string(folder.join(&r["problem"])).unwrap(), &d).unwrap();
        let task = warpcheck_pddl::ground(&d, &p).unwrap();
        let name = format!("{} {}", r["domain"], r["problem"]);
        assert_eq!(task.actions.len().to_string(), r["strips_ground_actions"], "{name}: ground actions");
        if r["domain"].ends_with("-adl") {
            assert!(task.facts.len() < r["strips_fluent_atoms"].parse::<usize>().unwrap(), "{name}: facts");
        } else {
            assert_eq!(task.facts.len().to_string(), r["strips_fluent_atoms"], "{name}: facts");
        }
        checked += 1;
    }
    assert_eq!(checked, 243);
}
