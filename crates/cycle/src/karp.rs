//! Karp's algorithm for the minimum cycle mean of one strongly connected
//! [`Subgraph`] (R. M. Karp, *A characterization of the minimum cycle mean in a
//! digraph*, Discrete Math. 23, 1978): with `D_k(v)` the least weight of a walk of
//! exactly `k` edges from a fixed source to `v`,
//! `μ* = min_v max_{0≤k<n} (D_n(v) − D_k(v)) / (n − k)`.
//!
//! O(nm) time, exact (`i64` or `i128` sums as the weights need, exact rational
//! comparison). The textbook version
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
use crate::ratio::{compare, Overflow, Ratio};
use crate::CycleError;

/// The integer type of Karp's table: `i64` when `n · max |w|` fits (twice as fast),
/// else `i128`. `MAX` stands for "no walk".
trait Dist: Copy + Ord + Into<i128> {
    const MAX: Self;
    fn from_i64(w: i64) -> Self;
    fn plus(self, w: Self) -> Self;
}

impl Dist for i64 {
    const MAX: i64 = i64::MAX;
    fn from_i64(w: i64) -> i64 {
        w
    }
    #[inline]
    fn plus(self, w: i64) -> i64 {
        self + w
    }
}

impl Dist for i128 {
    const MAX: i128 = i128::MAX;
    fn from_i64(w: i64) -> i128 {
        w as i128
    }
    #[inline]
    fn plus(self, w: i128) -> i128 {
        self + w
    }
}

/// One row of Karp's table from the previous one. No overflow: |D| <= n · max |w|,
/// which the caller checked fits `T` with room to spare.
fn step<T: Dist>(sub: &Subgraph, weights: &[T], prev: &[T], next: &mut [T]) {
    next.iter_mut().for_each(|d| *d = T::MAX);
    for (u, &du) in prev.iter().enumerate() {
        if du == T::MAX {
            continue;
        }
        for e in sub.out_edges(u) {
            let c = du.plus(weights[e]);
            let t = &mut next[sub.targets[e] as usize];
            if c < *t {
                *t = c;
            }
        }
    }
}

/// Karp's formula: the minimum mean as an unreduced fraction.
fn karp_value<T: Dist>(sub: &Subgraph) -> (i128, i128) {
    let n = sub.len();
    let weights: Vec<T> = sub.weights.iter().map(|&w| T::from_i64(w)).collect();
    let mut a = vec![T::MAX; n];
    let mut b = vec![T::MAX; n];
    a[0] = T::from_i64(0);
    for _ in 0..n {
        step(sub, &weights, &a, &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    let dn = a.clone();
    // worst[v] = max_k (D_n(v) - D_k(v)) / (n - k), as an unreduced fraction.
    let mut worst: Vec<Option<(i128, i128)>> = vec![None; n];
    a.iter_mut().for_each(|d| *d = T::MAX);
    a[0] = T::from_i64(0);
    for k in 0..n {
        let len = (n - k) as i128;
        for v in 0..n {
            if dn[v] != T::MAX && a[v] != T::MAX {
                let num = dn[v].into() - a[v].into();
                if worst[v].is_none_or(|(wn, wd)| compare(num, len, wn, wd).is_gt()) {
                    worst[v] = Some((num, len));
                }
            }
        }
        step(sub, &weights, &a, &mut b);
        std::mem::swap(&mut a, &mut b);
    }
    worst
        .into_iter()
        .flatten()
        .min_by(|x, y| compare(x.0, x.1, y.0, y.1))
        .expect("a strongly connected subgraph has a cycle")
}

/// The minimum cycle mean of the strongly connected `sub` and a cycle achieving it.
pub fn karp(sub: &Subgraph) -> Result<(Ratio, Vec<usize>), CycleError> {
    if sub.times.iter().any(|&t| t != 1) {
        return Err(CycleError::Unsupported("Karp's algorithm computes cycle means only (no transit times)"));
    }
    let bound = sub.weights.iter().map(|w| w.unsigned_abs() as u128).max().unwrap_or(0) * (sub.len() as u128 + 1);
    let (num, den) = if bound < (1u128 << 61) { karp_value::<i64>(sub) } else { karp_value::<i128>(sub) };
    let value = Ratio::new(num, den).ok_or(Overflow)?;
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
