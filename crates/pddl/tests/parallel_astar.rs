//! Parallel A* (`SearchOptions::threads` > 1: a batch of states of the least f expanded
//! at once, with pattern databases on the pool's threads, and their new states
//! evaluated together there) against the blind uniform-cost search on random tasks
//! with action costs, zero included, and with numeric fluents: the same optimal cost,
//! and a plan that reaches the goal at it.
//! Batches of 2 states per thread (`WARPCHECK_ASTAR_BATCH`), so that the small tasks'
//! narrow f-layers are still shared among the threads.

mod common;

use common::{larger_random_task, random_numeric_task, random_task};
use warpcheck_pddl::{search, Heuristic, SearchOptions, Task};

/// The cost of replaying `plan` from the initial state, if it reaches the goal.
fn replay(task: &Task, plan: &[usize]) -> Option<u64> {
    let (mut state, mut next) = (task.init.clone(), Vec::new());
    let mut cost = 0;
    for &a in plan {
        let action = &task.actions[a];
        assert!(action.precondition.holds(&state), "{} is not applicable", action.name);
        action.apply(&state, &mut next).unwrap();
        std::mem::swap(&mut state, &mut next);
        cost += action.cost;
    }
    task.goal.holds(&state).then_some(cost)
}

#[test]
fn on_random_tasks_parallel_astar_has_the_optimal_cost() {
    // The only test of this binary, so no other reads the variable meanwhile.
    std::env::set_var("WARPCHECK_ASTAR_BATCH", "2");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let (mut solved, mut unsolvable) = (0, 0);
    for seed in 0..400 {
        let task = match seed % 4 {
            0 => larger_random_task(seed, seed % 8 == 4),
            3 => random_numeric_task(seed),
            _ => random_task(seed, seed % 2 == 1, true),
        };
        let blind = search(&task, &SearchOptions { heuristic: Heuristic::Blind, ..Default::default() }).unwrap().cost;
        for heuristic in [Heuristic::LmCut, Heuristic::Hmax, Heuristic::Pdb, Heuristic::Max] {
            let options = SearchOptions { heuristic, threads: 3, ..Default::default() };
            let out = pool.install(|| search(&task, &options)).unwrap();
            assert_eq!(out.cost, blind, "seed {seed} {heuristic:?}");
            if let Some(plan) = &out.plan {
                assert_eq!(replay(&task, plan), blind, "seed {seed} {heuristic:?}: the plan's cost");
            }
        }
        match blind {
            Some(_) => solved += 1,
            None => unsolvable += 1,
        }
    }
    assert!(solved > 100 && unsolvable > 100, "{solved} solved, {unsolvable} unsolvable");
}
