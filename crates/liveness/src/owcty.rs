//! One-Way-Catch-Them-Young (Černá and Pelánek, "Distributed explicit fair cycle
//! detection", SPIN 2003; the thesis, Algorithm 9 with the termination condition of
//! Proposition 4.1.1) on an explicit graph, sequential and parallel, and the
//! extraction of an accepting cycle from what it leaves.
//!
//! A set `S` of vertices that may lie on an accepting cycle starts as every vertex and
//! shrinks: keep only the vertices reachable from an accepting vertex of `S` (within
//! `S`, the accepting vertices themselves included), then repeatedly remove the
//! vertices without a predecessor in `S`; stop when an iteration removes nothing. `S`
//! is then empty iff the graph has no accepting cycle (a non-empty fixpoint gives an
//! infinite backward chain of accepting vertices, which must repeat). The elimination
//! counts in-degrees within `S` over forward edges, so no backward edges are needed.
//! O(h · (|V| + |E|)) for h the height of the SCC quotient graph; one iteration on
//! weak properties.
//!
//! The thesis's GPU form (Algorithm 14) needs `elimPrep` to start true (digest erratum
//! 7); counting in-degrees, as here, has no such flag. The parallel form runs
//! level-synchronous reachability and elimination on the current rayon pool with
//! atomic marks and counters; both forms compute the same set, the unique result of
//! the same deterministic set operations.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;
use warpcheck_graph::Csr;

use crate::ndfs::{Cycle, Ndfs};
use crate::product::Explicit;

/// What OWCTY leaves: the vertices that may lie on an accepting cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owcty {
    /// Per vertex, whether it is in the final set.
    pub remaining: Vec<bool>,
    /// Its size: non-zero iff there is an accepting cycle.
    pub size: usize,
    /// Iterations of reachability and elimination, the last one changing nothing.
    pub iterations: u32,
}

/// Sequential OWCTY on `graph` with the accepting vertices `accepting`.
pub fn owcty(graph: &Csr, accepting: &[bool]) -> Owcty {
    let n = graph.vertices();
    let mut in_set = vec![true; n];
    let mut size = n;
    let mut iterations = 0;
    let mut queue: Vec<u32> = Vec::new();
    let mut indegree = vec![0u32; n];
    loop {
        iterations += 1;
        let old = size;
        // Reachability from the accepting vertices of S, within S.
        let mut reached = vec![false; n];
        queue.clear();
        queue.extend((0..n as u32).filter(|&v| in_set[v as usize] && accepting[v as usize]));
        queue.iter().for_each(|&v| reached[v as usize] = true);
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head];
            head += 1;
            for &v in graph.successors(u) {
                if in_set[v as usize] && !reached[v as usize] {
                    reached[v as usize] = true;
                    queue.push(v);
                }
            }
        }
        in_set = reached;
        size = queue.len();
        // Elimination of vertices without predecessors in S.
        indegree.iter_mut().for_each(|d| *d = 0);
        for u in (0..n as u32).filter(|&u| in_set[u as usize]) {
            for &v in graph.successors(u) {
                indegree[v as usize] += in_set[v as usize] as u32;
            }
        }
        queue.clear();
        queue.extend((0..n as u32).filter(|&v| in_set[v as usize] && indegree[v as usize] == 0));
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head];
            head += 1;
            in_set[u as usize] = false;
            size -= 1;
            for &v in graph.successors(u) {
                if in_set[v as usize] {
                    indegree[v as usize] -= 1;
                    if indegree[v as usize] == 0 {
                        queue.push(v);
                    }
                }
            }
        }
        if size == old {
            return Owcty { remaining: in_set, size, iterations };
        }
    }
}

/// Parallel OWCTY on the current rayon pool; the same result as [`owcty`].
pub fn owcty_parallel(graph: &Csr, accepting: &[bool]) -> Owcty {
    let n = graph.vertices();
    let in_set: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(true)).collect();
    let indegree: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let reached: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let live = |v: u32| in_set[v as usize].load(Relaxed);
    let mut size = n;
    let mut iterations = 0;
    loop {
        iterations += 1;
        let old = size;
        // Reachability, level by level; `reached` marks are claimed by a swap.
        reached.par_iter().for_each(|r| r.store(false, Relaxed));
        let mut frontier: Vec<u32> = (0..n as u32)
            .into_par_iter()
            .filter(|&v| live(v) && accepting[v as usize] && !reached[v as usize].swap(true, Relaxed))
            .collect();
        size = 0;
        while !frontier.is_empty() {
            size += frontier.len();
            frontier = frontier
                .par_iter()
                .flat_map_iter(|&u| graph.successors(u).iter().copied())
                .filter(|&v| live(v) && !reached[v as usize].swap(true, Relaxed))
                .collect();
        }
        (0..n).into_par_iter().for_each(|v| in_set[v].store(reached[v].load(Relaxed), Relaxed));
        // Elimination, front by front of vertices whose in-degree in S dropped to 0.
        indegree.par_iter().for_each(|d| d.store(0, Relaxed));
        (0..n as u32).into_par_iter().filter(|&u| live(u)).for_each(|u| {
            for &v in graph.successors(u) {
                if live(v) {
                    indegree[v as usize].fetch_add(1, Relaxed);
                }
            }
        });
        let mut front: Vec<u32> =
            (0..n as u32).into_par_iter().filter(|&v| live(v) && indegree[v as usize].load(Relaxed) == 0).collect();
        while !front.is_empty() {
            size -= front.len();
            front.par_iter().for_each(|&v| in_set[v as usize].store(false, Relaxed));
            front = front
                .par_iter()
                .flat_map_iter(|&u| graph.successors(u).iter().copied())
                .filter(|&v| live(v) && indegree[v as usize].fetch_sub(1, Relaxed) == 1)
                .collect();
        }
        if size == old {
            let remaining = in_set.into_iter().map(AtomicBool::into_inner).collect();
            return Owcty { remaining, size, iterations };
        }
    }
}

/// An accepting cycle in the set OWCTY left, reachable from vertex 0, with a shortest
/// stem from 0: a breadth-first search from 0 (parents), then a nested DFS within the
/// set from its accepting vertices that 0 reaches (each vertex visited once in all,
/// so linear). `None` iff the set holds no accepting cycle reachable from 0 (never in
/// a state graph, where 0 reaches everything, when OWCTY left the set non-empty).
pub fn witness(graph: &Csr, accepting: &[bool], set: &[bool]) -> Option<Cycle> {
    const NONE: u32 = u32::MAX;
    let mut parent = vec![NONE; graph.vertices()];
    let mut queue = vec![0u32];
    parent[0] = 0;
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for &v in graph.successors(u) {
            if parent[v as usize] == NONE {
                parent[v as usize] = u;
                queue.push(v);
            }
        }
    }
    let mut restricted = Explicit { graph, accepting, within: Some(set) };
    let mut ndfs = Ndfs::new();
    let found = (0..graph.vertices() as u32)
        .filter(|&v| set[v as usize] && accepting[v as usize] && parent[v as usize] != NONE)
        .find_map(|root| ndfs.search(&mut restricted, root).ok().flatten())?;
    let mut stem = vec![found.cycle[0]];
    while *stem.last().unwrap() != 0 {
        stem.push(parent[*stem.last().unwrap() as usize]);
    }
    stem.reverse();
    Some(Cycle { stem, cycle: found.cycle })
}
