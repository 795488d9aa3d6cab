//! Karp's algorithm for the minimum cycle mean of one strongly connected
//! [`Subgraph`] (R. M. Karp, *A characterization of the minimum cycle mean in a
//! digraph*, Discrete Math. 23, 1978): with `D_k(v)` the least weight of a walk of
//! exactly `k` edges from a fixed source to `v`,
//! `μ* = min_v max_{0≤k<n} (D_n(v) − D_k(v)) / (n − k)`.
//!
//! O(nm) time, exact (`i128` sums, exact rational comparison). The textbook version
//! keeps the whole (n+1)×n table; here two passes keep O(n) memory: the first computes
//! `D_n`, the second recomputes `D_0..D_{n-1}` row by row and folds the maximum in.
//!
//! Karp gives the value, not a cycle. The witness comes from [`critical_cycle`]: with
//! μ* = p/q, the integer weights `q·w − p` have no negative cycle; Bellman-Ford
//! potentials make every edge of a critical cycle tight (reduced weight 0 after the
//! potentials), and any cycle of tight edges has mean exactly μ*. Cycle means only:
//! Karp's formula has no transit times.

use std::collections::VecDeque;

use crate::components::Subgraph;
use crate::ratio::{Overflow, Ratio};
use crate::CycleError;

const INF: i128 = i128::MAX;

/// One row of Karp's table from the previous one.
fn step(sub: &Subgraph, prev: &[i128], next: &mut [i128]) {
    next.iter_mut().for_each(|d| *d = INF);
    for u in 0..sub.len() {
        let du = prev[u];
        if du == INF {
            continue;
        }
        for e in sub.out_edges(u) {
            // |D| <= n * 2^63 < 2^96: no overflow.
            let c = du + sub.weights[e] as i128;
            let t = &mut next[sub.targets[e] as usize];
            if c < *t {
                *t = c;
            }
        }
    }
}

/// The minimum cycle mean of the strongly connected `sub` and a cycle achieving it.
pub fn karp(sub: &Subgraph) -> Result<(Ratio, Vec<usize>), CycleError> {
    if sub.times.iter().any(|&t| t != 1) {
        return Err(CycleError::Unsupported("Karp's algorithm computes cycle means only (no transit times)"));
    }
    let n = sub.len();
    let mut a = vec![INF; n];
    let mut b = vec![INF; n];
    a[0] = 0;
    for _ in 0..n {
        step(sub, &a, &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    let dn = a.clone();
    let mut worst: Vec<Option<Ratio>> = vec![None; n];
    a.iter_mut().for_each(|d| *d = INF);
    a[0] = 0;
    for k in 0..n {
        for v in 0..n {
            if dn[v] != INF && a[v] != INF {
                let r = Ratio::new(dn[v] - a[v], (n - k) as i128).ok_or(Overflow)?;
                if worst[v].map_or(true, |w| r > w) {
                    worst[v] = Some(r);
                }
            }
        }
        step(sub, &a, &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    let value = worst.into_iter().flatten().min().expect("a strongly connected subgraph has a cycle");
    let cycle = critical_cycle(sub, value)?;
    Ok((value, cycle))
}

/// A cycle of `sub` of ratio exactly `value`, given that `value` is the minimum cycle
/// ratio: Bellman-Ford (FIFO) potentials for the weights `q·w − p·t`, then a cycle of
/// tight edges.
pub fn critical_cycle(sub: &Subgraph, value: Ratio) -> Result<Vec<usize>, CycleError> {
    let (p, q) = (value.numer(), value.denom());
    let n = sub.len();
    let mut reduced = Vec::with_capacity(sub.edges());
    for e in 0..sub.edges() {
        let a = (sub.weights[e] as i128).checked_mul(q).ok_or(Overflow)?;
        let b = (sub.times[e] as i128).checked_mul(p).ok_or(Overflow)?;
        reduced.push(a.checked_sub(b).ok_or(Overflow)?);
    }
    let mut d = vec![0i128; n];
    let mut queued = vec![true; n];
    let mut queue: VecDeque<usize> = (0..n).collect();
    let mut pops = 0u64;
    let limit = (n as u64 + 1).saturating_mul(n as u64 + 1);
    while let Some(u) = queue.pop_front() {
        queued[u] = false;
        pops += 1;
        if pops > limit {
            return Err(CycleError::Internal("a negative cycle below the claimed minimum".into()));
        }
        for e in sub.out_edges(u) {
            let t = sub.targets[e] as usize;
            let c = d[u].checked_add(reduced[e]).ok_or(Overflow)?;
            if c < d[t] {
                d[t] = c;
                if !queued[t] {
                    queued[t] = true;
                    queue.push_back(t);
                }
            }
        }
    }
    let tight = |u: usize, e: usize| d[u] + reduced[e] == d[sub.targets[e] as usize];
    match sub.cycle_or_order(tight) {
        Err(cycle) => Ok(cycle),
        Ok(_) => Err(CycleError::Internal("no tight cycle at the claimed minimum".into())),
    }
}
