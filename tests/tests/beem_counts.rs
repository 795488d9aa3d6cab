//! BEEM conformance: exact states, transitions and deadlocks of DiVinE 2.4
//! (`shared/beem/reference.csv`) for every instance up to one million states, and
//! (ignored by default, see the README) every instance up to `WARPCHECK_MAX_STATES`.

use warpcheck_conformance::*;

fn check_instances_up_to(max_states: u64) -> usize {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= max_states).collect();
    let failures = parallel_failures(&rows, |r| {
        let stats = explore_all(&load_file(&r.model_path(&beem)));
        compare(r, &stats)
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    rows.len()
}

#[test]
fn instances_up_to_one_million_states_match_the_reference() {
    let checked = check_instances_up_to(1_000_000);
    assert_eq!(checked, 146, "reference.csv changed: update the expected number of instances");
}

/// `WARPCHECK_MAX_STATES=15000000 cargo test --release -p warpcheck-conformance --test beem_counts -- --ignored`
#[test]
#[ignore = "explores instances up to WARPCHECK_MAX_STATES (default 15 million) states: minutes"]
fn larger_instances_match_the_reference() {
    let max = std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(15_000_000);
    let checked = check_instances_up_to(max);
    eprintln!("{checked} instances up to {max} states match the reference");
}
