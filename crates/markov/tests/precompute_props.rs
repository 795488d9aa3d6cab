//! The graph precomputations against two oracles on random models with random `safe`
//! and `target` masks:
//!
//! - semantics, for MDPs of 1-7 states: every memoryless deterministic scheduler (they
//!   suffice for the extremal probabilities of `safe U target`) is applied, the induced
//!   DTMC solved (graph reachability for P > 0, Gaussian elimination for the value), and
//!   prob0A/prob0E/prob1A/prob1E read off as "for all"/"exists" over the schedulers;
//! - the μ-calculus fixpoints of Storm's `graph.cpp` evaluated naively (whole sweeps
//!   until nothing changes), for models of 1-12 states and, to run the parallel waves,
//!   of up to 20,000 states on 3 threads.

mod random;

use proptest::prelude::*;
use random::{build, next_scheduler, pool, spec, states, Spec};
use warpcheck_markov::precompute::{prob0, prob01, prob01_max, prob01_min, prob0a, prob0e, prob1, prob1a, prob1e};
use warpcheck_markov::{ModelType, Predecessors};

/// A model with masks: (spec, safe, target).
fn with_masks(min_n: usize, max_n: usize, max_choices: usize) -> impl Strategy<Value = (Spec, Vec<bool>, Vec<bool>)> {
    spec(min_n, max_n, max_choices).prop_flat_map(|spec| {
        let n = spec.len();
        // Targets rarer than safe states, as in real properties.
        let safe = prop::collection::vec(prop::bool::weighted(0.8), n);
        let target = prop::collection::vec(prop::bool::weighted(0.15), n);
        (Just(spec), safe, target)
    })
}

/// The probability of `safe U target` in the DTMC that picks `choice[s]` in each state.
fn solve(spec: &Spec, choice: &[usize], safe: &[bool], target: &[bool]) -> Vec<f64> {
    let n = spec.len();
    let row = |s: usize| &spec[s][choice[s]];
    // P > 0: a path through safe states reaches the target.
    let mut positive = target.to_vec();
    loop {
        let mut changed = false;
        for s in 0..n {
            if !positive[s] && safe[s] && row(s).iter().any(|&t| positive[t as usize]) {
                positive[s] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // x = A x + b over the unknowns (P > 0, not target).
    let unknown: Vec<usize> = (0..n).filter(|&s| positive[s] && !target[s]).collect();
    let at = |s: usize| unknown.iter().position(|&u| u == s);
    let k = unknown.len();
    let mut a = vec![vec![0.0f64; k + 1]; k];
    for (i, &s) in unknown.iter().enumerate() {
        a[i][i] += 1.0;
        let p = 1.0 / row(s).len() as f64;
        for &t in row(s) {
            let t = t as usize;
            if target[t] {
                a[i][k] += p;
            } else if let Some(j) = at(t) {
                a[i][j] -= p;
            }
        }
    }
    for c in 0..k {
        let pivot = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs())).unwrap();
        a.swap(c, pivot);
        let pivot_row = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot_row[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot_row[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x: Vec<f64> = (0..n).map(|s| if target[s] { 1.0 } else { 0.0 }).collect();
    for (i, &s) in unknown.iter().enumerate() {
        x[s] = a[i][k] / a[i][i];
    }
    x
}

/// prob0A, prob0E, prob1A, prob1E by enumerating the memoryless deterministic schedulers.
fn by_schedulers(spec: &Spec, safe: &[bool], target: &[bool]) -> [Vec<bool>; 4] {
    let n = spec.len();
    let mut all0 = vec![true; n];
    let mut some0 = vec![false; n];
    let mut all1 = vec![true; n];
    let mut some1 = vec![false; n];
    let mut choice = vec![0usize; n];
    loop {
        let x = solve(spec, &choice, safe, target);
        for s in 0..n {
            let zero = x[s] == 0.0;
            let one = (x[s] - 1.0).abs() < 1e-9;
            all0[s] &= zero;
            some0[s] |= zero;
            all1[s] &= one;
            some1[s] |= one;
        }
        if !next_scheduler(spec, &mut choice) {
            return [all0, some0, all1, some1];
        }
    }
}

/// `μY. seed ∪ {s ∈ phi | join(s, Y)}` by whole sweeps.
fn lfp(seed: &[bool], phi: impl Fn(usize) -> bool, join: impl Fn(usize, &[bool]) -> bool) -> Vec<bool> {
    let mut y = seed.to_vec();
    loop {
        let before = y.clone();
        for (s, ys) in y.iter_mut().enumerate() {
            if !*ys && phi(s) && join(s, &before) {
                *ys = true;
            }
        }
        if y == before {
            return y;
        }
    }
}

/// Storm's fixpoints, naively: [prob0A, prob0E, prob1A, prob1E] and the DTMC prob1.
fn naive(spec: &Spec, safe: &[bool], target: &[bool]) -> ([Vec<bool>; 4], Vec<bool>) {
    let n = spec.len();
    let has = |r: &Vec<u32>, y: &[bool]| r.iter().any(|&t| y[t as usize]);
    let within = |r: &Vec<u32>, x: &[bool]| r.iter().all(|&t| x[t as usize]);
    let not = |v: Vec<bool>| v.into_iter().map(|b| !b).collect::<Vec<_>>();
    let greater0e = lfp(target, |s| safe[s], |s, y| spec[s].iter().any(|r| has(r, y)));
    let greater0a = lfp(target, |s| safe[s], |s, y| spec[s].iter().all(|r| has(r, y)));
    let nested = |every: bool| {
        let mut x = vec![true; n];
        loop {
            let y = lfp(
                target,
                |s| safe[s],
                |s, y| {
                    let ok = |r: &Vec<u32>| within(r, &x) && has(r, y);
                    if every {
                        spec[s].iter().all(ok)
                    } else {
                        spec[s].iter().any(ok)
                    }
                },
            );
            if y == x {
                return x;
            }
            x = y;
        }
    };
    let prob0 = not(greater0e.clone());
    let dtmc_prob1 = not(lfp(&prob0, |s| !target[s], |s, y| spec[s].iter().any(|r| has(r, y))));
    ([prob0, not(greater0a), nested(true), nested(false)], dtmc_prob1)
}

fn computed(spec: &Spec, safe: &[bool], target: &[bool]) -> ([Vec<bool>; 4], Vec<bool>, Vec<bool>) {
    let model = build(spec, ModelType::Mdp);
    pool().install(|| {
        let pred = Predecessors::new(&model);
        let mdp = [
            prob0a(&model, &pred, safe, target),
            prob0e(&model, &pred, safe, target),
            prob1a(&model, &pred, safe, target),
            prob1e(&model, &pred, safe, target),
        ];
        assert_eq!(prob01_max(&model, &pred, safe, target), (mdp[0].clone(), mdp[3].clone()));
        assert_eq!(prob01_min(&model, &pred, safe, target), (mdp[1].clone(), mdp[2].clone()));
        let (zero, one) = prob01(&model, &pred, safe, target);
        assert_eq!(zero, prob0(&model, &pred, safe, target));
        assert_eq!(one, prob1(&model, &pred, safe, target));
        (mdp, zero, one)
    })
}

const NAMES: [&str; 4] = ["prob0A", "prob0E", "prob1A", "prob1E"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn mdp_precomputations_match_the_schedulers((spec, safe, target) in with_masks(1, 7, 3)) {
        let want = by_schedulers(&spec, &safe, &target);
        let (got, _, _) = computed(&spec, &safe, &target);
        for i in 0..4 {
            prop_assert_eq!(states(&got[i]), states(&want[i]), "{}", NAMES[i]);
        }
    }

    #[test]
    fn dtmc_precomputations_match_the_chain((spec, safe, target) in with_masks(1, 12, 1)) {
        let x = solve(&spec, &vec![0; spec.len()], &safe, &target);
        let (mdp, zero, one) = computed(&spec, &safe, &target);
        prop_assert_eq!(states(&zero), states(&x.iter().map(|&v| v == 0.0).collect::<Vec<_>>()));
        prop_assert_eq!(states(&one), states(&x.iter().map(|&v| (v - 1.0).abs() < 1e-9).collect::<Vec<_>>()));
        // With one choice per state, every MDP variant is the DTMC one.
        prop_assert_eq!(&mdp[0], &zero);
        prop_assert_eq!(&mdp[1], &zero);
        prop_assert_eq!(&mdp[2], &one);
        prop_assert_eq!(&mdp[3], &one);
    }

    #[test]
    fn precomputations_are_storms_fixpoints((spec, safe, target) in with_masks(1, 12, 3)) {
        let (want, want_dtmc) = naive(&spec, &safe, &target);
        let (got, _, one) = computed(&spec, &safe, &target);
        for i in 0..4 {
            prop_assert_eq!(states(&got[i]), states(&want[i]), "{}", NAMES[i]);
        }
        prop_assert_eq!(states(&one), states(&want_dtmc), "prob1 (union of the rows)");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn parallel_waves_on_larger_models((spec, safe, target) in with_masks(5000, 20000, 3)) {
        let (want, want_dtmc) = naive(&spec, &safe, &target);
        let (got, _, one) = computed(&spec, &safe, &target);
        for i in 0..4 {
            prop_assert!(got[i] == want[i], "{}", NAMES[i]);
        }
        prop_assert!(one == want_dtmc);
    }
}
