//! Random small models for the property tests: per state 1-3 choices of 1-3 targets
//! each (uniform probabilities), targets either anywhere or next to the state (so that
//! cycles and end components are common).

#![allow(dead_code)]

use proptest::prelude::*;
use warpcheck_markov::{ModelType, SparseModel};

/// Per state, per choice, its targets (sorted, distinct).
pub type Spec = Vec<Vec<Vec<u32>>>;

/// A pool of 3 threads, so that the parallel code paths interleave.
pub fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap())
}

/// Models of `min_n..=max_n` states with `1..=max_choices` choices per state.
pub fn spec(min_n: usize, max_n: usize, max_choices: usize) -> impl Strategy<Value = Spec> {
    (min_n..=max_n).prop_flat_map(move |n| {
        let entry = (any::<bool>(), 0..n as u32, 0..3u32);
        let choice = prop::collection::vec(entry, 1..=3);
        prop::collection::vec(prop::collection::vec(choice, 1..=max_choices), n).prop_map(move |states| {
            states
                .into_iter()
                .enumerate()
                .map(|(s, choices)| {
                    choices
                        .into_iter()
                        .map(|entries| {
                            let mut t: Vec<u32> = entries
                                .into_iter()
                                .map(|(local, any, d)| if local { ((s + n + d as usize - 1) % n) as u32 } else { any })
                                .collect();
                            t.sort_unstable();
                            t.dedup();
                            t
                        })
                        .collect()
                })
                .collect()
        })
    })
}

/// The model of `spec` (uniform probabilities over each choice's targets).
pub fn build(spec: &Spec, model_type: ModelType) -> SparseModel {
    let mut m = SparseModel::new(model_type);
    for choices in spec {
        for targets in choices {
            m.push_row(None);
            for &t in targets {
                m.push_entry(t, 1.0 / targets.len() as f64);
            }
        }
        m.end_state();
    }
    m.initial = vec![0];
    m
}

/// The states of a mask.
pub fn states(mask: &[bool]) -> Vec<u32> {
    (0..mask.len() as u32).filter(|&s| mask[s as usize]).collect()
}

/// Steps `choice` to the next memoryless deterministic scheduler of `spec` (an odometer
/// over the states' choice counts); false after the last one.
pub fn next_scheduler(spec: &Spec, choice: &mut [usize]) -> bool {
    for (s, c) in choice.iter_mut().enumerate() {
        *c += 1;
        if *c < spec[s].len() {
            return true;
        }
        *c = 0;
    }
    false
}
