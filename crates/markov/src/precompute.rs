//! Graph precomputations of probabilistic reachability: the states where the
//! probability of `safe U target` (φ U ψ; `F target` is `all U target`) is exactly 0 or
//! exactly 1, found from the graph alone, before any numerical iteration (Baier and
//! Katoen, *Principles of Model Checking*, §10.1.1 and Algorithms 45-46 for MDPs; Storm's
//! `utility/graph.cpp`). This module owns those fixpoints; the probability
//! computations that follow fix the values of these states and solve for the rest.
//!
//! | function | the states where | Storm |
//! |---|---|---|
//! | [`prob0`] | P = 0 (DTMC, CTMC) | complement of `performProbGreater0` |
//! | [`prob1`] | P = 1 (DTMC, CTMC) | `performProb1` |
//! | [`prob0a`] | P = 0 for all schedulers (Pmax = 0) | `performProb0A` |
//! | [`prob0e`] | P = 0 for some scheduler (Pmin = 0) | `performProb0E` |
//! | [`prob1a`] | P = 1 for all schedulers (Pmin = 1) | `performProb1A` |
//! | [`prob1e`] | P = 1 for some scheduler (Pmax = 1) | `performProb1E` |
//!
//! The fixpoints, with `Pre∃(Y)` = states with an edge into `Y` and rows read as their
//! target sets:
//!
//! - P > 0 for some scheduler: `μY. ψ ∪ (φ ∩ Pre∃(Y))`; `prob0a` is its complement (on
//!   a DTMC: `prob0`).
//! - P > 0 for all schedulers: `μY. ψ ∪ {s ∈ φ | every row of s has a target in Y}`;
//!   `prob0e` is its complement.
//! - `prob1e`: `νX. μY. ψ ∪ {s ∈ φ | some row r of s has r ⊆ X and r ∩ Y ≠ ∅}`.
//! - `prob1a`: the states that cannot reach a `prob0e` state through non-ψ states (the
//!   complement of `μY. prob0e ∪ (¬ψ ∩ Pre∃(Y))`), as Storm's `performProb01Min`
//!   computes it: equal to Storm's `νX. μY. ψ ∪ {s ∈ φ | every row r of s has r ⊆ X and
//!   r ∩ Y ≠ ∅}` and linear instead of quadratic. On a DTMC, `prob1` is the same with
//!   `prob0` for `prob0e`.
//!
//! ψ states are always in the "reached" sets whether or not they are in φ (Storm's
//! convention). Each least fixpoint is a backward search over the
//! [`Predecessors`], in waves that use the rayon pool when they are long; each state
//! and row is handled once per least fixpoint (counters for the "every row" case), so
//! `prob0*`, `prob1`, `prob1a` take O(states + entries) and `prob1e` that times the
//! number of its outer iterations. A row without entries has no target in any set.
//!
//! Masks are `&[bool]` of one flag per state; results are masks too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::par::{self, DEFAULT_THRESHOLD as TH};
use crate::predecessors::Predecessors;
use crate::SparseModel;

fn flags(n: usize, init: impl Fn(usize) -> bool + Sync + Send) -> Vec<AtomicBool> {
    (0..n).into_par_iter().with_min_len(4096).map(|s| AtomicBool::new(init(s))).collect()
}

fn into_mask(v: Vec<AtomicBool>) -> Vec<bool> {
    v.into_iter().map(AtomicBool::into_inner).collect()
}

fn complement(v: Vec<bool>) -> Vec<bool> {
    v.into_iter().map(|b| !b).collect()
}

fn check_masks(model: &SparseModel, pred: &Predecessors, masks: &[&[bool]]) {
    let n = model.states();
    assert_eq!(
        pred.states(),
        n,
        "the predecessor lists are of another model ({} states, the model has {n})",
        pred.states()
    );
    for m in masks {
        assert_eq!(m.len(), n, "a state mask has {} flags, the model has {n} states", m.len());
    }
}

/// The states of `seed`, and those that `phi` accepts with an edge into the set:
/// `μY. seed ∪ (phi ∩ Pre∃(Y))`.
fn reach_exists(pred: &Predecessors, phi: impl Fn(u32) -> bool + Sync, seed: &[bool]) -> Vec<bool> {
    let n = seed.len();
    let inside = flags(n, |s| seed[s]);
    let mut wave: Vec<u32> = par::filter(&(0..n as u32).collect::<Vec<_>>(), TH, |s| seed[s as usize]);
    while !wave.is_empty() {
        wave = par::gather(&wave, TH, |&t, next| {
            for &p in pred.sources(t) {
                if phi(p) && !inside[p as usize].load(Relaxed) && !inside[p as usize].swap(true, Relaxed) {
                    next.push(p);
                }
            }
        });
    }
    into_mask(inside)
}

/// The states of `seed`, and those that `phi` accepts all of whose rows have a target in
/// the set: `μY. seed ∪ {s ∈ phi | every row of s has a target in Y}`. A state joins when
/// the last of its rows gets a target in the set (a counter per state, a flag per row).
fn reach_forall(
    model: &SparseModel,
    pred: &Predecessors,
    phi: impl Fn(u32) -> bool + Sync,
    seed: &[bool],
) -> Vec<bool> {
    let n = seed.len();
    let inside = flags(n, |s| seed[s]);
    let waiting: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|s| AtomicU64::new(model.row_groups[s + 1] - model.row_groups[s]))
        .collect();
    let hit = flags(model.choices() as usize, |_| false);
    let mut wave: Vec<u32> = par::filter(&(0..n as u32).collect::<Vec<_>>(), TH, |s| seed[s as usize]);
    while !wave.is_empty() {
        wave = par::gather(&wave, TH, |&t, next| {
            for (p, r) in pred.of(t) {
                let p_ = p as usize;
                if phi(p)
                    && !inside[p_].load(Relaxed)
                    && !hit[r as usize].swap(true, Relaxed)
                    && waiting[p_].fetch_sub(1, Relaxed) == 1
                    && !inside[p_].swap(true, Relaxed)
                {
                    next.push(p);
                }
            }
        });
    }
    into_mask(inside)
}

/// DTMC/CTMC: the states from which `safe U target` has probability 0 (no path through
/// `safe` states reaches `target`). Rows are not told apart, so on an MDP this is
/// [`prob0a`].
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob0(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    check_masks(model, pred, &[safe, target]);
    complement(reach_exists(pred, |s| safe[s as usize], target))
}

/// DTMC/CTMC: the states from which `safe U target` has probability 1: those that
/// cannot reach a [`prob0`] state through non-target states. On an MDP the union of a
/// state's rows is read as one distribution (the uniformly random scheduler).
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob1(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    prob01(model, pred, safe, target).1
}

/// DTMC/CTMC: [`prob0`] and [`prob1`] together (the second reuses the first).
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob01(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let zero = prob0(model, pred, safe, target);
    let not_one = reach_exists(pred, |s| !target[s as usize], &zero);
    (zero, complement(not_one))
}

/// MDP: the states from which `safe U target` has probability 0 under every scheduler
/// (Pmax = 0): no path through `safe` states, by any choices, reaches `target`.
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob0a(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    prob0(model, pred, safe, target)
}

/// MDP: the states from which `safe U target` has probability 0 under some scheduler
/// (Pmin = 0): the complement of the states in `target`, or in `safe` with a target
/// state reached with positive probability whatever the scheduler does.
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob0e(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    check_masks(model, pred, &[safe, target]);
    complement(reach_forall(model, pred, |s| safe[s as usize], target))
}

/// MDP: the states from which `safe U target` has probability 1 under every scheduler
/// (Pmin = 1): those that cannot reach a [`prob0e`] state through non-target states.
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob1a(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    prob01_min(model, pred, safe, target).1
}

/// MDP: the states from which `safe U target` has probability 1 under some scheduler
/// (Pmax = 1): `νX. μY. target ∪ {s ∈ safe | some row r of s has all targets in X and
/// one in Y}`, Storm's `performProb1E`. Each outer iteration is one backward search;
/// it stops when the set no longer shrinks.
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob1e(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> Vec<bool> {
    check_masks(model, pred, &[safe, target]);
    let n = model.states();
    let mut current = vec![true; n];
    let mut size = n;
    loop {
        // Rows whose targets all lie in the current set (and that have targets).
        let within = flags(model.choices() as usize, |r| {
            let e = model.entries(r as u64);
            !e.is_empty() && model.columns[e].iter().all(|&t| current.get(t as usize).copied().unwrap_or(false))
        });
        let next = flags(n, |s| target[s]);
        let mut wave: Vec<u32> = par::filter(&(0..n as u32).collect::<Vec<_>>(), TH, |s| target[s as usize]);
        while !wave.is_empty() {
            wave = par::gather(&wave, TH, |&t, out| {
                for (p, r) in pred.of(t) {
                    if safe[p as usize]
                        && within[r as usize].load(Relaxed)
                        && !next[p as usize].load(Relaxed)
                        && !next[p as usize].swap(true, Relaxed)
                    {
                        out.push(p);
                    }
                }
            });
        }
        let next = into_mask(next);
        let next_size = next.par_iter().filter(|&&b| b).count();
        if next_size == size {
            return next;
        }
        current = next;
        size = next_size;
    }
}

/// MDP: [`prob0a`] and [`prob1e`] together (Storm's `performProb01Max`).
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob01_max(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> (Vec<bool>, Vec<bool>) {
    (prob0a(model, pred, safe, target), prob1e(model, pred, safe, target))
}

/// MDP: [`prob0e`] and [`prob1a`] together (Storm's `performProb01Min`; the second
/// reuses the first).
///
/// # Panics
///
/// If a mask or `pred` does not have one entry per state of `model`.
pub fn prob01_min(model: &SparseModel, pred: &Predecessors, safe: &[bool], target: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let zero = prob0e(model, pred, safe, target);
    let not_one = reach_exists(pred, |s| !target[s as usize], &zero);
    (zero, complement(not_one))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mec::tests::mdp;

    fn mask(n: usize, states: &[u32]) -> Vec<bool> {
        let mut m = vec![false; n];
        states.iter().for_each(|&s| m[s as usize] = true);
        m
    }

    fn states(m: &[bool]) -> Vec<u32> {
        (0..m.len() as u32).filter(|&s| m[s as usize]).collect()
    }

    #[test]
    fn hand_derived_mdp() {
        // 0: a -> {1}, b -> {0, 2}; 1: a -> {1} (trap); 2: a -> {3}, b -> {2, 4};
        // 3: target; 4: a -> {4} (avoids the target forever), b -> {3}
        let m = mdp(&[&[&[1], &[0, 2]], &[&[1]], &[&[3], &[2, 4]], &[&[3]], &[&[4], &[3]]]);
        let p = Predecessors::new(&m);
        let all = vec![true; 5];
        let target = mask(5, &[3]);
        assert_eq!(states(&prob0a(&m, &p, &all, &target)), [1]);
        // Pmin = 0: 0 (go to the trap), 1, 2 (via b to 4, then stay), 4 (stay).
        assert_eq!(states(&prob0e(&m, &p, &all, &target)), [0, 1, 2, 4]);
        // Pmax = 1: 2 (a), 3, 4 (b); 0 can only get there with probability 1/2 each try
        // but repeating b forever reaches 2 surely: Pmax(0) = 1.
        assert_eq!(states(&prob1e(&m, &p, &all, &target)), [0, 2, 3, 4]);
        assert_eq!(states(&prob1a(&m, &p, &all, &target)), [3]);
        // With 2 unsafe: 0 and 2 can no longer pass through 2.
        let safe = mask(5, &[0, 1, 4]);
        assert_eq!(states(&prob0a(&m, &p, &safe, &target)), [0, 1, 2]);
        assert_eq!(states(&prob1e(&m, &p, &safe, &target)), [3, 4]);
    }

    #[test]
    fn hand_derived_dtmc() {
        // 0 -> {1, 2}; 1 -> {1}; 2 -> {3}; 3 -> {3}; 4 -> {3, 4}
        let mut m = SparseModel::new(crate::ModelType::Dtmc);
        for t in [&[1u32, 2][..], &[1], &[3], &[3], &[3, 4]] {
            m.push_row(None);
            t.iter().for_each(|&x| m.push_entry(x, 1.0 / t.len() as f64));
            m.end_state();
        }
        let p = Predecessors::new(&m);
        let all = vec![true; 5];
        let target = mask(5, &[3]);
        let (zero, one) = prob01(&m, &p, &all, &target);
        assert_eq!(states(&zero), [1]);
        assert_eq!(states(&one), [2, 3, 4]);
        assert_eq!(prob1(&m, &p, &all, &target), one);
        // On a DTMC the MDP variants agree with the DTMC ones.
        assert_eq!(prob0e(&m, &p, &all, &target), zero);
        assert_eq!(prob1a(&m, &p, &all, &target), one);
        assert_eq!(prob1e(&m, &p, &all, &target), one);
    }
}
