//! BEEM conformance: exact states, transitions and deadlocks of DiVinE 2.4
//! (`shared/beem/reference.csv`) for every instance up to one million states, with the
//! sequential reference engine and with the parallel engine on 1 and 2 threads; and
//! (ignored by default, see the README) every instance up to `WARPCHECK_MAX_STATES`.
//! Rows computed by LTSmin are checked with the overflow rule of its compiled models
//! (values wrap); the others with DiVinE 2.4's (an evaluation error).

use warpcheck_conformance::*;
use warpcheck_explore::Order;

/// Which engine explores.
#[derive(Clone, Copy, Debug)]
enum Engine {
    Sequential,
    Parallel(usize),
    /// The parallel engine in depth-first order on this many threads.
    DepthFirst(usize),
}

fn check_instances_up_to(max_states: u64, engine: Engine) -> usize {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= max_states).collect();
    let failures = parallel_failures(&rows, |r| {
        let mut model = load_file(&r.model_path(&beem));
        model.model.overflow = r.overflow();
        let stats = match engine {
            Engine::Sequential => explore_all(&model),
            Engine::Parallel(threads) => explore_with_threads(&model, threads, Order::Bfs),
            Engine::DepthFirst(threads) => explore_with_threads(&model, threads, Order::Dfs),
        };
        compare(r, &stats).map_err(|e| format!("{engine:?}: {e}"))
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    rows.len()
}

#[test]
fn sequential_engine_matches_the_reference_up_to_one_million_states() {
    let checked = check_instances_up_to(1_000_000, Engine::Sequential);
    assert_eq!(checked, 146, "reference.csv changed: update the expected number of instances");
}

#[test]
fn parallel_engine_on_one_thread_matches_the_reference_up_to_one_million_states() {
    assert_eq!(check_instances_up_to(1_000_000, Engine::Parallel(1)), 146);
}

#[test]
fn parallel_engine_on_two_threads_matches_the_reference_up_to_one_million_states() {
    assert_eq!(check_instances_up_to(1_000_000, Engine::Parallel(2)), 146);
}

#[test]
fn depth_first_order_on_two_threads_matches_the_reference_up_to_200_000_states() {
    assert_eq!(check_instances_up_to(200_000, Engine::DepthFirst(2)), 109);
}

/// `WARPCHECK_MAX_STATES=15000000 cargo test --release -p warpcheck-conformance --test beem_counts -- --ignored --nocapture`
#[test]
#[ignore = "explores instances up to WARPCHECK_MAX_STATES (default 15 million) states: minutes"]
fn larger_instances_match_the_reference() {
    let max = std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(15_000_000);
    for engine in [Engine::Sequential, Engine::Parallel(1), Engine::Parallel(2)] {
        let checked = check_instances_up_to(max, engine);
        eprintln!("{engine:?}: {checked} instances up to {max} states match the reference");
    }
}
