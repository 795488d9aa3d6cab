//! Howard's policy iteration for the minimum cycle mean and ratio of one strongly
//! connected [`Subgraph`], sequential or with a parallel policy-improvement step.
//!
//! This is Algorithm 2 of Barnat, Bauch, Brim, Češka, *Computing Optimal Cycle Mean
//! in Parallel on CUDA* (PDMC 2011), adopted there from Chaloupka: a policy is one
//! out-edge per vertex; each round (1) improves the policy where a successor is
//! strictly better under the current values, (2) takes the best cycle `c` of the
//! policy graph (λ = its weight over its time), (3) keeps the policy of every vertex
//! whose policy path reaches `c` and connects all other vertices to that part by a
//! backward BFS in the graph (breaking every other cycle), (4) determines the values
//! (`val(s) = 0` at the smallest vertex `s` of `c`, `val(u) = val(pol u) + w - λ t`).
//! It stops when no vertex improves; the values then satisfy Bellman's equations
//! for λ, which is the proof that λ is optimal and `c` critical.
//!
//! **Exactness.** Everything is integer arithmetic: with λ = W/T (T > 0, reduced),
//! values are kept multiplied by T, so an edge's reduced weight is `w·T - W·t` and
//! every comparison is exact (`i128`, checked: an overflow is
//! [`CycleError::Overflow`], never a wrong answer). No ε, no floating point.
//!
//! **Departures from the paper.** The improvement step reads the values of the last
//! value determination only (the paper's second value buffer is written and never
//! read before value determination overwrites it, so we keep one). Steps (3) and (4)
//! are memoised walks along the policy (each vertex visited once) instead of the
//! paper's fixpoint kernels: the paper's `valuePropagate` never reaches its fixpoint
//! as printed (digest 002, §3.7, erratum iii). Ties between cycles of the same value
//! keep the first in vertex order, and `s` is always the smallest vertex of `c`, as
//! the paper requires for termination.
//!
//! Per round: O(m) for the improvement (parallel with rayon over vertices in
//! [`howard`] with `parallel`), O(n + m) for the rest. Rounds: few in practice,
//! exponential in the worst case (Howard's bound is O(nmN), N the number of simple
//! cycles).

use rayon::prelude::*;

use crate::components::Subgraph;
use crate::ratio::{compare, Overflow};
use crate::CycleError;

const NONE: usize = usize::MAX;

/// λ = w / t with t > 0, in lowest terms.
#[derive(Clone, Copy)]
struct Lambda {
    w: i128,
    t: i128,
}

struct Howard<'a> {
    sub: &'a Subgraph,
    /// Source of every local edge.
    sources: Vec<u32>,
    /// Edges entering each vertex: `rev_edges[rev_offsets[v]..rev_offsets[v + 1]]`.
    rev_offsets: Vec<usize>,
    rev_edges: Vec<usize>,
    pol: Vec<usize>,
    /// Values times `lambda.t`.
    val: Vec<i128>,
    lambda: Lambda,
    /// Per-vertex scratch of the walks.
    mark: Vec<u8>,
    stack: Vec<usize>,
}

#[inline]
fn reduced(sub: &Subgraph, e: usize, l: Lambda) -> Result<i128, Overflow> {
    let a = (sub.weights[e] as i128).checked_mul(l.t).ok_or(Overflow)?;
    let b = (sub.times[e] as i128).checked_mul(l.w).ok_or(Overflow)?;
    a.checked_sub(b).ok_or(Overflow)
}

/// The better policy edge of `v`, if some edge is strictly better than `current`.
#[inline]
fn improve(sub: &Subgraph, val: &[i128], l: Lambda, v: usize, current: usize) -> Result<Option<usize>, Overflow> {
    let through = |e: usize| val[sub.targets[e] as usize].checked_add(reduced(sub, e, l)?).ok_or(Overflow);
    let mut best = i128::MAX;
    let mut best_e = NONE;
    for e in sub.out_edges(v) {
        let c = through(e)?;
        if best_e == NONE || c < best {
            (best, best_e) = (c, e);
        }
    }
    if current == NONE || through(current)? > best {
        Ok(Some(best_e))
    } else {
        Ok(None)
    }
}

impl Howard<'_> {
    /// Policy improvement; whether some vertex changed its policy.
    fn improve_all(&mut self, parallel: bool) -> Result<bool, Overflow> {
        let (sub, val, l) = (self.sub, &self.val, self.lambda);
        if parallel && sub.edges() >= 1 << 14 {
            self.pol
                .par_iter_mut()
                .enumerate()
                .with_min_len(1 << 12)
                .try_fold(
                    || false,
                    |changed, (v, p)| match improve(sub, val, l, v, *p)? {
                        Some(e) => {
                            *p = e;
                            Ok(true)
                        }
                        None => Ok(changed),
                    },
                )
                .try_reduce(|| false, |a, b| Ok(a || b))
        } else {
            let mut changed = false;
            for v in 0..sub.len() {
                if let Some(e) = improve(sub, val, l, v, self.pol[v])? {
                    self.pol[v] = e;
                    changed = true;
                }
            }
            Ok(changed)
        }
    }

    #[inline]
    fn next(&self, v: usize) -> usize {
        self.sub.targets[self.pol[v]] as usize
    }

    /// The best cycle of the policy graph: its smallest vertex, weight and time.
    fn best_cycle(&mut self) -> Result<(usize, i128, i128), Overflow> {
        let n = self.sub.len();
        let mut stamp = vec![0u32; n];
        let mut best: Option<(usize, i128, i128)> = None;
        for start in 0..n {
            if stamp[start] != 0 {
                continue;
            }
            let id = start as u32 + 1;
            let mut x = start;
            while stamp[x] == 0 {
                stamp[x] = id;
                x = self.next(x);
            }
            if stamp[x] != id {
                continue; // reached an earlier walk
            }
            let (mut w, mut t, mut s, mut y) = (0i128, 0i128, x, x);
            loop {
                let e = self.pol[y];
                w = w.checked_add(self.sub.weights[e] as i128).ok_or(Overflow)?;
                t = t.checked_add(self.sub.times[e] as i128).ok_or(Overflow)?;
                s = s.min(y);
                y = self.next(y);
                if y == x {
                    break;
                }
            }
            // t > 0: zero-time cycles were rejected before.
            if best.is_none_or(|(_, bw, bt)| compare(w, t, bw, bt).is_lt()) {
                best = Some((s, w, t));
            }
        }
        Ok(best.expect("a policy graph always has a cycle"))
    }

    /// Keeps the policy of the vertices whose policy path reaches the cycle through
    /// `s` and connects every other vertex to them by a backward BFS in the graph.
    fn rebuild(&mut self, s: usize) {
        const UNKNOWN: u8 = 0;
        const IN: u8 = 1;
        const OUT: u8 = 2;
        const PATH: u8 = 3;
        self.mark.iter_mut().for_each(|m| *m = UNKNOWN);
        let mut y = s;
        loop {
            self.mark[y] = IN;
            y = self.next(y);
            if y == s {
                break;
            }
        }
        for v in 0..self.sub.len() {
            let mut x = v;
            while self.mark[x] == UNKNOWN {
                self.mark[x] = PATH;
                self.stack.push(x);
                x = self.next(x);
            }
            let result = if self.mark[x] == IN { IN } else { OUT };
            for &y in &self.stack {
                self.mark[y] = result;
            }
            self.stack.clear();
        }
        let mut queue: Vec<usize> = (0..self.sub.len()).filter(|&v| self.mark[v] == IN).collect();
        let mut head = 0;
        while head < queue.len() {
            let x = queue[head];
            head += 1;
            for &e in &self.rev_edges[self.rev_offsets[x]..self.rev_offsets[x + 1]] {
                let u = self.sources[e] as usize;
                if self.mark[u] != IN {
                    self.mark[u] = IN;
                    self.pol[u] = e;
                    queue.push(u);
                }
            }
        }
    }

    /// Values of the (unichain) policy: `val(s) = 0`, `val(u) = val(pol u) + w - λ t`.
    fn determine_values(&mut self, s: usize) -> Result<(), Overflow> {
        self.mark.iter_mut().for_each(|m| *m = 0);
        self.val[s] = 0;
        self.mark[s] = 1;
        for v in 0..self.sub.len() {
            let mut x = v;
            while self.mark[x] == 0 {
                self.stack.push(x);
                x = self.next(x);
            }
            while let Some(y) = self.stack.pop() {
                let e = self.pol[y];
                let r = reduced(self.sub, e, self.lambda)?;
                self.val[y] = self.val[self.sub.targets[e] as usize].checked_add(r).ok_or(Overflow)?;
                self.mark[y] = 1;
            }
        }
        Ok(())
    }
}

/// A minimum-ratio cycle of the strongly connected `sub` (its local edges in order,
/// from its smallest vertex) and the number of policy-improvement rounds.
pub fn howard(sub: &Subgraph, parallel: bool) -> Result<(Vec<usize>, u64), CycleError> {
    run(sub, None, parallel)
}

/// [`howard`] started from `policy` (one local out-edge per vertex, for example the
/// final policy of a floating-point run that failed its exact certificate) instead
/// of the cheapest out-edges: its best cycle, values and rebuilt policy come first,
/// then the rounds go on exactly as in [`howard`]. Policy iteration converges from
/// any policy; a good start only saves rounds. Fails on a policy of the wrong length
/// or an edge that does not leave its vertex.
pub fn howard_from(sub: &Subgraph, policy: &[usize], parallel: bool) -> Result<(Vec<usize>, u64), CycleError> {
    if policy.len() != sub.len() {
        return Err(CycleError::Graph(format!("a policy of {} edges for {} vertices", policy.len(), sub.len())));
    }
    if let Some(v) = (0..sub.len()).find(|&v| !sub.out_edges(v).contains(&policy[v])) {
        return Err(CycleError::Graph(format!("policy edge {} does not leave vertex {v}", policy[v])));
    }
    run(sub, Some(policy), parallel)
}

fn run(sub: &Subgraph, initial: Option<&[usize]>, parallel: bool) -> Result<(Vec<usize>, u64), CycleError> {
    let n = sub.len();
    let mut sources = vec![0u32; sub.edges()];
    for v in 0..n {
        sources[sub.out_edges(v)].iter_mut().for_each(|s| *s = v as u32);
    }
    let (rev_offsets, rev_edges) = sub.reverse();
    let mut h = Howard {
        sub,
        sources,
        rev_offsets,
        rev_edges,
        pol: vec![NONE; n],
        val: vec![0; n],
        lambda: Lambda { w: 0, t: 1 },
        mark: vec![0; n],
        stack: Vec::new(),
    };
    let mut s = NONE;
    let mut rounds = 0u64;
    let evaluate = |h: &mut Howard| -> Result<usize, CycleError> {
        let (src, w, t) = h.best_cycle()?;
        let g = crate::ratio::gcd(w.unsigned_abs(), t.unsigned_abs()) as i128;
        h.lambda = Lambda { w: w / g, t: t / g };
        h.rebuild(src);
        h.determine_values(src)?;
        Ok(src)
    };
    if let Some(policy) = initial {
        h.pol.copy_from_slice(policy);
        s = evaluate(&mut h)?;
    }
    while h.improve_all(parallel)? {
        rounds += 1;
        s = evaluate(&mut h)?;
    }
    let mut cycle = Vec::new();
    let mut y = s;
    loop {
        cycle.push(h.pol[y]);
        y = h.next(y);
        if y == s {
            break;
        }
    }
    Ok((cycle, rounds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{scc, subgraphs};
    use crate::{Arc, Problem, Sense, WeightedGraph};

    fn ratio(sub: &Subgraph, cycle: &[usize]) -> (i128, i128) {
        cycle.iter().fold((0, 0), |(w, t), &e| (w + sub.weights[e] as i128, t + sub.times[e] as i128))
    }

    #[test]
    fn a_warm_start_reaches_the_same_optimum() {
        // A ring of 30 vertices with chords and a few negative weights.
        let mut arcs = Vec::new();
        for v in 0..30u32 {
            arcs.push(Arc { source: v, target: (v + 1) % 30, weight: (v as i64 * 5) % 7 - 1, time: 1 });
            arcs.push(Arc { source: v, target: (v * 7 + 3) % 30, weight: (v as i64 * 3) % 11 - 4, time: 2 });
        }
        let g = WeightedGraph::from_arcs(30, &arcs).unwrap();
        let sub = subgraphs(&g, &scc(&g, false), Problem::Ratio, Sense::Min, false).unwrap().remove(0);
        let (cold, _) = howard(&sub, false).unwrap();
        let (cw, ct) = ratio(&sub, &cold);
        for pick in 0..2 {
            let start: Vec<usize> = (0..sub.len()).map(|v| sub.out_edges(v).start + pick).collect();
            let (warm, _) = howard_from(&sub, &start, false).unwrap();
            let (ww, wt) = ratio(&sub, &warm);
            assert_eq!(cw * wt, ww * ct);
        }
        // The optimum's own policy needs no improvement round.
        let mut best: Vec<usize> = (0..sub.len()).map(|v| sub.out_edges(v).start).collect();
        for &e in &cold {
            best[sub.source(e)] = e;
        }
        assert!(howard_from(&sub, &best, false).is_ok());
        assert!(howard_from(&sub, &best[1..], false).is_err());
        best[0] = sub.out_edges(1).start;
        assert!(howard_from(&sub, &best, false).is_err());
    }
}
