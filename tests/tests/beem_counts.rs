//! BEEM conformance: exact states, transitions and deadlocks of DiVinE 2.4
//! (`shared/beem/reference.csv`) for every instance up to one million states, with the
//! sequential reference engine and with the parallel engine on 1 and 2 threads; and
//! (ignored by default; the command is below) every instance up to `WARPCHECK_MAX_STATES`,
//! and the instances without a reference row against `tests/data/beem-unknown-counts.csv`.
//! Rows computed by LTSmin are checked with the overflow rule of its compiled models
//! (values wrap); the others with DiVinE 2.4's (an evaluation error).

use warpcheck_conformance::*;
use warpcheck_explore::{explore_parallel, Options, Order, Stats};
use warpcheck_store::TablePlan;

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

/// A table of 16 entries grown in place (four times larger each time, up to 2^26
/// entries, interrupting levels) gives the reference's counts, the sequential engine's
/// levels, and expands every state exactly once, in both orders on 2 threads.
#[test]
fn growing_from_a_table_of_16_entries_matches_the_reference() {
    let beem = beem_dir();
    let names = ["at.1", "firewire_tree.3", "leader_filters.3", "bakery.4", "elevator2.2", "anderson.1"];
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| names.contains(&&*r.instance)).collect();
    assert_eq!(rows.len(), names.len());
    let failures = parallel_failures(&rows, |r| {
        let mut model = load_file(&r.model_path(&beem));
        model.model.overflow = r.overflow();
        let levels = explore_all(&model).levels;
        for order in [Order::Bfs, Order::Dfs] {
            let options = Options {
                threads: 2,
                table: TablePlan::new(4, 26),
                traces: order == Order::Bfs,
                stop_at_first: false,
                order,
                ..Options::default()
            };
            let report = explore_parallel(&model.model, &options).map_err(|e| e.to_string())?;
            let stats = Stats {
                states: report.states,
                transitions: report.transitions,
                deadlocks: report.deadlocks,
                ..Stats::default()
            };
            compare(r, &stats).map_err(|e| format!("{order:?}: {e}"))?;
            let error_state = (report.error_transitions > 0) as u64;
            let expected_levels = if order == Order::Bfs { levels } else { 0 };
            if report.levels != expected_levels || report.expanded != report.states - error_state || report.growths < 4
            {
                return Err(format!(
                    "{} {order:?}: {} levels (sequential {levels}), {} expansions of {} states, {} growths",
                    r.instance, report.levels, report.expanded, report.states, report.growths
                ));
            }
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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

/// The instances without a reference row, against the counts the GPU and CPU engines
/// agreed on (`tests/data/beem-unknown-counts.csv`, DiVinE 2.4's overflow rule), up to
/// `WARPCHECK_MAX_STATES` (default 15 million) states, on all cores:
/// `cargo test --release -p warpcheck-conformance --test beem_counts -- --ignored unknown`
#[test]
#[ignore = "explores instances of 7 million states and more: minutes"]
fn instances_without_a_reference_row_match_the_recorded_counts() {
    let max = env_u64("WARPCHECK_MAX_STATES").unwrap_or(15_000_000);
    let beem = beem_dir();
    let text = include_str!("../data/beem-unknown-counts.csv");
    let rows: Vec<Reference> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Reference {
                instance: f[0].to_string(),
                states: f[1].parse().unwrap(),
                transitions: f[2].parse().unwrap(),
                deadlocks: Some(f[3].parse().unwrap()),
                source: "divine-2.4".to_string(),
            }
        })
        .filter(|r| r.states <= max)
        .collect();
    assert!(references(&beem).iter().all(|r| rows.iter().all(|u| u.instance != r.instance)));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let failures = parallel_failures_with(1, &rows, |r| {
        let model = load_file(&r.model_path(&beem));
        compare(r, &explore_with_threads(&model, threads, Order::Bfs))
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    eprintln!("{} instances up to {max} states match the recorded counts", rows.len());
}
