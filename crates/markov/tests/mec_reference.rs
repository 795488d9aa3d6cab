//! The MEC decomposition of every MDP and the bottom SCCs of every DTMC of the shared
//! reference set (`shared/markov` beside the repository, or `$WARPCHECK_MARKOV`), held
//! to Storm's figures in its `reference.json`: `count`, `sizes_sorted_desc`,
//! `states_in_mecs`, `choices_in_mecs`, and for the tiny models `components` (states
//! and local choice indices). The parallel algorithm (default options, and forced onto
//! its parallel code paths) and the sequential reference must both agree.
//!
//! `nand-40-1` (1.0 M states) and `resource-gathering-1300-100-100` (0.96 M states,
//! 3.1 M choices) are included, not gated: with the test profile (optimised, debug
//! assertions on) the whole test takes about 3 s on 2 cores, mostly reading their
//! gzip-compressed DRN (0.4-0.7 s each); the decompositions take 0.2-0.4 s each.
//!
//! `mec_timing` (ignored) times the decomposition of `resource-gathering-1300-100-100`
//! on pools of 1 and 2 threads: `cargo test --release -p warpcheck-markov --test
//! mec_reference -- --ignored --nocapture`.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;
use warpcheck_markov::mec::{maximal_end_components_sequential, maximal_end_components_with, MecOptions};
use warpcheck_markov::{bottom_sccs, maximal_end_components, Mecs, SparseModel};

mod common;

use common::markov_dir;

/// The instance's DRN file, read with the crate's reader.
fn read(path: &Path) -> SparseModel {
    warpcheck_markov::load(path, None).unwrap_or_else(|e| panic!("{e}"))
}

fn as_u64s(v: &Value) -> Vec<u64> {
    v.as_array().expect("an array").iter().map(|x| x.as_u64().expect("a number")).collect()
}

/// Compares one decomposition with the reference fields; returns the differences.
fn compare(model: &SparseModel, mecs: &Mecs, want: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let s = mecs.summary();
    let mut field = |name: &str, got: Value| {
        if want[name] != got {
            diffs.push(format!("{name}: got {got}, reference {}", want[name]));
        }
    };
    field("count", s.count.into());
    field("sizes_sorted_desc", s.sizes_sorted_desc.clone().into());
    field("states_in_mecs", s.states_in_mecs.into());
    field("choices_in_mecs", s.choices_in_mecs.into());
    if let Some(components) = want.get("components").and_then(Value::as_array) {
        // Reference components in our order (by smallest state), as (states, per-state choices).
        let mut want_components: Vec<(Vec<u64>, Vec<Vec<u64>>)> = components
            .iter()
            .map(|c| {
                let states = as_u64s(&c["states"]);
                let choices = states.iter().map(|s| as_u64s(&c["choices"][s.to_string()])).collect();
                (states, choices)
            })
            .collect();
        want_components.sort();
        let got: Vec<(Vec<u64>, Vec<Vec<u64>>)> = (0..mecs.count())
            .map(|k| {
                let states: Vec<u64> = mecs.states(k).iter().map(|&s| s as u64).collect();
                let choices = mecs
                    .states(k)
                    .iter()
                    .map(|&s| mecs.choices(model, k).filter(|&(x, _)| x == s).map(|(_, c)| c).collect())
                    .collect();
                (states, choices)
            })
            .collect();
        if got != want_components {
            diffs.push(format!("components: got {got:?}, reference {want_components:?}"));
        }
    }
    diffs
}

#[test]
fn mec_and_bscc_of_every_reference_instance() {
    let dir = markov_dir();
    let text = std::fs::read_to_string(dir.join("reference.json")).expect("read reference.json");
    let reference: Value = serde_json::from_str(&text).expect("parse reference.json");
    let mut failures = Vec::new();
    let mut checked = 0;
    for instance in reference["instances"].as_array().expect("instances") {
        let id = instance["id"].as_str().expect("id");
        let kind = instance["type"].as_str().expect("type");
        if kind != "dtmc" && kind != "mdp" {
            continue;
        }
        let path = dir.join(instance["files"]["drn"]["path"].as_str().expect("drn path"));
        let start = Instant::now();
        let model = read(&path);
        let read = start.elapsed();
        assert_eq!(model.validate(), Ok(()), "{id}: the test reader built an invalid model");
        assert_eq!(model.states() as u64, instance["states"].as_u64().unwrap(), "{id}: states");
        assert_eq!(model.transitions(), instance["transitions"].as_u64().unwrap(), "{id}: transitions");
        let start = Instant::now();
        let (mecs, want) = if kind == "dtmc" {
            (bottom_sccs(&model).expect("a DTMC has one row per state"), &instance["bscc"])
        } else {
            (maximal_end_components(&model), &instance["mec"])
        };
        let took = start.elapsed();
        let sequential = maximal_end_components_sequential(&model);
        let forced = maximal_end_components_with(&model, &MecOptions { parallel_threshold: 1 });
        eprintln!(
            "{id}: {} states, read {:.2} s, decomposition {:.3} s, {} components",
            model.states(),
            read.as_secs_f64(),
            took.as_secs_f64(),
            mecs.count()
        );
        for d in compare(&model, &mecs, want) {
            failures.push(format!("{id}: {d}"));
        }
        if sequential != mecs {
            failures.push(format!("{id}: the sequential reference differs from the parallel algorithm"));
        }
        if forced != mecs {
            failures.push(format!("{id}: the parallel algorithm with threshold 1 differs"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 10, "only {checked} instances checked");
}

/// Times the parallel decomposition (and the sequential reference) of the largest MDP
/// (or `$WARPCHECK_MEC_INSTANCE`) on pools of 1 and 2 threads (and 4, 8, ... up to the
/// machine's cores).
#[test]
#[ignore = "a timing, not a check: run with --release --ignored --nocapture"]
fn mec_timing() {
    let dir = markov_dir();
    let id = std::env::var("WARPCHECK_MEC_INSTANCE").unwrap_or_else(|_| "resource-gathering-1300-100-100".into());
    let kind = if id.starts_with("nand") || id.starts_with("herman") || id.starts_with("brp") { "dtmc" } else { "mdp" };
    let folder = dir.join(kind).join(&id);
    let file =
        ["drn.gz", "drn"].iter().map(|e| folder.join(format!("{id}.{e}"))).find(|p| p.is_file()).expect("drn file");
    let model = read(&file);
    // (fastest, median) of 9 runs after a warm-up run: on a shared machine the fastest
    // run is the best estimate of the uncontended time.
    let measure = |f: &dyn Fn() -> Mecs| {
        f();
        let mut times: Vec<f64> = (0..9)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(f());
                start.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        (times[0], times[4])
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut threads = vec![1, 2];
    threads.extend([4, 8, 16, 32].into_iter().filter(|&t| t <= cores));
    println!(
        "{id}: {} states, {} choices, {} transitions; {cores} cores",
        model.states(),
        model.choices(),
        model.transitions()
    );
    if std::env::var_os("MEC_TRACE").is_some() {
        for t in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
            eprintln!("trace {t} threads");
            let start = Instant::now();
            pool.install(|| maximal_end_components(&model));
            eprintln!("total {:.4}", start.elapsed().as_secs_f64());
            let start = Instant::now();
            pool.install(|| warpcheck_markov::Predecessors::new(&model));
            eprintln!("preds alone {:.4}", start.elapsed().as_secs_f64());
        }
        return;
    }
    for t in threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
        let (p_min, p_med) = pool.install(|| measure(&|| maximal_end_components(&model)));
        let (s_min, s_med) = pool.install(|| measure(&|| maximal_end_components_sequential(&model)));
        println!(
            "{t:>2} threads: parallel {p_min:.3} s (median {p_med:.3}), sequential reference {s_min:.3} s (median {s_med:.3})"
        );
    }
}
