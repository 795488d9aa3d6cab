//! Maximal Accepting Predecessors (Brim, Černá, Moravec, Šimša, "Accepting
//! predecessors are better than back edges in distributed LTL model-checking", FMCAD
//! 2004; the thesis, Algorithm 10) on an explicit graph, sequential and parallel.
//!
//! With the vertices ordered by id, `map(v)` is the largest accepting vertex `u` with
//! a path of at least one edge from `u` to `v`, or none. If an accepting `v` has
//! `map(v) = v`, then `v` lies on a cycle: an accepting cycle. Otherwise no vertex
//! that is some vertex's `map` value lies on any cycle (if `u = map(v)` lay on one,
//! `map(u) ≥ u`; `map(u) = u` was excluded, and `map(u) = w > u` would give
//! `map(v) ≥ w`), so those vertices stop counting as accepting and the values are
//! computed again. Each round removes at least one accepting vertex (the largest one
//! with a successor), so the loop ends, with a cycle or with no `map` value left.
//!
//! A round propagates values forward to a fixpoint: sequentially with a work list, in
//! parallel front by front with atomic maxima on the current rayon pool. The
//! fixpoint is unique, so both forms compute the same values and take the same rounds.
//! The thesis's GPU form propagates over all edges until nothing changes; the work
//! list touches only vertices whose value changed.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use warpcheck_graph::Csr;

/// What MAP found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    /// The smallest accepting vertex that is its own maximal accepting predecessor in
    /// the last round: it lies on an accepting cycle. `None`: there is no accepting cycle.
    pub on_cycle: Option<u32>,
    /// Rounds of propagation (each with a fixpoint).
    pub rounds: u32,
}

/// `map` values are stored as vertex + 1, with 0 for none.
const NONE: u32 = 0;

/// Sequential MAP on `graph` with the accepting vertices `accepting`.
pub fn map(graph: &Csr, accepting: &[bool]) -> Map {
    let n = graph.vertices();
    let mut accepting = accepting.to_vec();
    let mut value = vec![NONE; n];
    let mut queued = vec![false; n];
    let mut queue = std::collections::VecDeque::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        value.iter_mut().for_each(|m| *m = NONE);
        queue.extend((0..n as u32).filter(|&v| accepting[v as usize]));
        queue.iter().for_each(|&v| queued[v as usize] = true);
        while let Some(u) = queue.pop_front() {
            queued[u as usize] = false;
            let passed = outgoing(value[u as usize], u, &accepting);
            for &v in graph.successors(u) {
                if value[v as usize] < passed {
                    value[v as usize] = passed;
                    if !queued[v as usize] {
                        queued[v as usize] = true;
                        queue.push_back(v);
                    }
                }
            }
        }
        if let Some(result) = verdict(&value, &mut accepting, rounds) {
            return result;
        }
    }
}

/// Parallel MAP on the current rayon pool; the same result as [`map`].
pub fn map_parallel(graph: &Csr, accepting: &[bool]) -> Map {
    let n = graph.vertices();
    let mut accepting = accepting.to_vec();
    let value: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(NONE)).collect();
    let queued: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let mut rounds = 0;
    loop {
        rounds += 1;
        value.par_iter().for_each(|m| m.store(NONE, Relaxed));
        let (value, queued, acc) = (&value, &queued, &accepting);
        let mut front: Vec<u32> = (0..n as u32).into_par_iter().filter(|&v| acc[v as usize]).collect();
        while !front.is_empty() {
            // Values only grow, so reading a newer one than the front started with is
            // fine: the fixpoint is the same.
            front.par_iter().for_each(|&u| queued[u as usize].store(false, Relaxed));
            front = front
                .par_iter()
                .flat_map_iter(|&u| {
                    let passed = outgoing(value[u as usize].load(Relaxed), u, acc);
                    graph.successors(u).iter().copied().filter(move |&v| {
                        value[v as usize].fetch_max(passed, Relaxed) < passed && !queued[v as usize].swap(true, Relaxed)
                    })
                })
                .collect();
        }
        let plain: Vec<u32> = value.par_iter().map(|m| m.load(Relaxed)).collect();
        if let Some(result) = verdict(&plain, &mut accepting, rounds) {
            return result;
        }
    }
}

/// The value `u` passes to its successors: its own, or itself if accepting and larger.
fn outgoing(value: u32, u: u32, accepting: &[bool]) -> u32 {
    if accepting[u as usize] {
        value.max(u + 1)
    } else {
        value
    }
}

/// After a round's fixpoint: a cycle, no cycle, or (`None`) another round with the
/// `map` values no longer accepting.
fn verdict(value: &[u32], accepting: &mut [bool], rounds: u32) -> Option<Map> {
    if let Some(v) = (0..value.len()).find(|&v| accepting[v] && value[v] == v as u32 + 1) {
        return Some(Map { on_cycle: Some(v as u32), rounds });
    }
    let mut removed = false;
    for &m in value.iter().filter(|&&m| m != NONE) {
        removed |= std::mem::replace(&mut accepting[m as usize - 1], false);
    }
    (!removed).then_some(Map { on_cycle: None, rounds })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_graph::Graph;

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        Graph::from_edges(n as u64, edges).unwrap()
    }

    #[test]
    fn finds_the_cycle_behind_a_larger_acceptance_outside_it() {
        // 2 (accepting, no cycle) feeds the accepting cycle 0 <-> 1: round 1 gives
        // map = 2 everywhere, round 2 (2 removed) finds 1 on its own cycle.
        let g = graph(3, &[(2, 0), (0, 1), (1, 0)]);
        let accepting = [false, true, true];
        for m in [map(g.forward(), &accepting), map_parallel(g.forward(), &accepting)] {
            assert_eq!(m, Map { on_cycle: Some(1), rounds: 2 });
        }
    }

    #[test]
    fn a_cycle_without_acceptance_is_no_accepting_cycle() {
        let g = graph(4, &[(0, 1), (1, 2), (2, 1), (2, 3)]);
        let accepting = [true, false, false, true];
        for m in [map(g.forward(), &accepting), map_parallel(g.forward(), &accepting)] {
            assert_eq!(m.on_cycle, None);
        }
    }
}
