//! The exact optimality certificate of a policy: proof, in integers, that a cycle of a
//! strongly connected [`Subgraph`] has the minimum ratio, whatever arithmetic found it.
//!
//! A solver that computes in floating point (the GPU Howard) hands over its final
//! policy (one local out-edge per vertex) and a vertex `s` on the policy cycle it
//! believes optimal. [`certify`] then, with checked `i128` arithmetic only:
//!
//! 1. walks the policy from `s` back to `s`: the cycle `c`, its weight `W` and time `T`
//!    from the original integers (`T > 0`: zero-time cycles were rejected earlier),
//!    λ = W/T reduced;
//! 2. gives every vertex the exact potential `p(v)` = the reduced weight `w·T − W·t`
//!    summed along its policy path to `s` (`p(s) = 0`); a policy path that never
//!    reaches `s` (a second policy cycle) rejects;
//! 3. checks every edge `u → v` of the subgraph: `p(u) ≤ p(v) + w·T − W·t`.
//!
//! If (3) holds, every cycle `C` of the subgraph has `Σ_C (w·T − W·t) ≥ 0` (the
//! potentials telescope away), that is `w(C)/t(C) ≥ W/T`, and `c` attains `W/T`: λ is
//! the minimum and `c` a critical cycle. The check does not trust how the policy or
//! the potentials were found, so a float rounding, a tie broken the wrong way or a bug
//! on the device can only make it reject (the caller then finishes exactly on the
//! CPU), never accept a wrong value. An overflow of `i128` also rejects.
//!
//! **Parallel.** In a component of at least 2¹⁶ vertices and edges together, the
//! checks over all vertices (each policy edge leaves its vertex, the rounding of a
//! hint, step 3) run on the rayon pool, so one giant component (most state graphs) is
//! not certified on one core. Each returns the rejection of the first vertex in order
//! that fails, as the sequential loop does: same verdict, same [`Rejected`]. The walks
//! along the policy (step 1, and step 2 when a hint fails) stay sequential.

use rayon::prelude::*;

use crate::components::Subgraph;

/// What the certificate reads of one strongly connected component: local vertices
/// `0..len`, local edges named by index, the weight to minimise and the transit time
/// (1 for a mean) of each. [`Subgraph`] is one; the GPU reads its own layout through
/// another, without copying the weights.
pub trait Component {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn out_edges(&self, v: usize) -> std::ops::Range<usize>;
    fn target(&self, e: usize) -> usize;
    fn weight(&self, e: usize) -> i128;
    fn time(&self, e: usize) -> i128;
}

impl Component for Subgraph {
    fn len(&self) -> usize {
        self.vertices.len()
    }

    fn out_edges(&self, v: usize) -> std::ops::Range<usize> {
        Subgraph::out_edges(self, v)
    }

    fn target(&self, e: usize) -> usize {
        self.targets[e] as usize
    }

    fn weight(&self, e: usize) -> i128 {
        self.weights[e] as i128
    }

    fn time(&self, e: usize) -> i128 {
        self.times[e] as i128
    }
}

/// A certified optimum: the cycle's local edges in order from `s`, weight and time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certified {
    pub cycle: Vec<usize>,
    pub weight: i128,
    pub time: i128,
}

/// Why a policy was not certified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// The policy has the wrong length, or an edge that does not leave its vertex.
    Malformed,
    /// The policy path from `s` does not come back to `s`.
    NotOnCycle,
    /// The policy path from this vertex ends in a cycle other than the one through `s`.
    SecondCycle(usize),
    /// This edge is shorter than its source's potential allows: a better cycle may exist.
    Improvable(usize),
    /// Exact arithmetic left `i128`.
    Overflow,
}

const UNSEEN: u8 = 0;
const ON_PATH: u8 = 1;
const DONE: u8 = 2;
/// Components with at least this many vertices and edges together are checked in
/// parallel.
const PARALLEL: usize = 1 << 16;

/// Certifies that the policy cycle through `s` has the minimum ratio of `sub`.
pub fn certify<C: Component + Sync>(sub: &C, policy: &[usize], s: usize) -> Result<Certified, Rejected> {
    certify_with(sub, policy, s, None)
}

/// [`certify`], trying first the potentials rounded from floating-point values: `hint[v]`
/// approximates the value of `v` (reduced weight `w - λ t` summed along its policy path
/// to `s`), so `p(v) = round(hint[v] · T)`. Any potentials that pass step 3 prove the
/// optimum, however they were found, so a good hint only saves the sequential walk of
/// step 2 (the potentials of a long policy path) and a bad one costs one more check.
pub fn certify_with<C: Component + Sync>(
    sub: &C,
    policy: &[usize],
    s: usize,
    hint: Option<&[f64]>,
) -> Result<Certified, Rejected> {
    certify_from(sub, policy, s, hint, PARALLEL)
}

/// `f(v)` for every vertex, the error of the first `v` in order that fails (what a
/// sequential loop returns), in parallel if `parallel`: first whether all pass (the
/// common case, cheaper than keeping the order), then the first failure if one fails.
fn first_failure<F>(n: usize, parallel: bool, f: F) -> Result<(), Rejected>
where
    F: Fn(usize) -> Result<(), Rejected> + Sync,
{
    let vertices = || (0..n).into_par_iter().with_min_len(1 << 12);
    if parallel {
        if vertices().all(|v| f(v).is_ok()) {
            return Ok(());
        }
        vertices().map(&f).find_first(|r| r.is_err()).unwrap_or(Ok(()))
    } else {
        (0..n).try_for_each(f)
    }
}

/// [`certify_with`], with the parallel checks from `parallel_from` vertices and edges
/// on (the tests move it; the verdict is the same either way).
fn certify_from<C: Component + Sync>(
    sub: &C,
    policy: &[usize],
    s: usize,
    hint: Option<&[f64]>,
    parallel_from: usize,
) -> Result<Certified, Rejected> {
    let n = sub.len();
    if policy.len() != n || s >= n {
        return Err(Rejected::Malformed);
    }
    let parallel = n + (sub.out_edges(n - 1).end - sub.out_edges(0).start) >= parallel_from;
    let leaves = |v: usize| if sub.out_edges(v).contains(&policy[v]) { Ok(()) } else { Err(Rejected::Malformed) };
    first_failure(n, parallel, leaves)?;
    let next = |v: usize| sub.target(policy[v]);
    // 1. The cycle through s.
    let (mut cycle, mut weight, mut time) = (Vec::new(), 0i128, 0i128);
    let mut x = s;
    loop {
        let e = policy[x];
        cycle.push(e);
        weight = weight.checked_add(sub.weight(e)).ok_or(Rejected::Overflow)?;
        time = time.checked_add(sub.time(e)).ok_or(Rejected::Overflow)?;
        x = next(x);
        if x == s {
            break;
        }
        if cycle.len() > n {
            return Err(Rejected::NotOnCycle);
        }
    }
    if time <= 0 {
        return Err(Rejected::NotOnCycle); // a zero-time cycle has no ratio
    }
    let g = crate::ratio::gcd(weight.unsigned_abs(), time.unsigned_abs()) as i128;
    let (lw, lt) = (weight / g, time / g);
    let reduced =
        |e: usize| -> Option<i128> { sub.weight(e).checked_mul(lt)?.checked_sub(sub.time(e).checked_mul(lw)?) };
    // 3. No edge improves any potential: the first vertex with an edge that does (or
    // overflows), in vertex order.
    let check = |p: &[i128]| -> Result<(), Rejected> {
        first_failure(n, parallel, |u| {
            for e in sub.out_edges(u) {
                let through =
                    p[sub.target(e)].checked_add(reduced(e).ok_or(Rejected::Overflow)?).ok_or(Rejected::Overflow)?;
                if through < p[u] {
                    return Err(Rejected::Improvable(e));
                }
            }
            Ok(())
        })
    };
    let certified = Certified { cycle, weight, time };
    if let Some(hint) = hint.filter(|h| h.len() == n) {
        let scale = lt as f64;
        let round = |&h: &f64| {
            let x = (h * scale).round();
            (x.is_finite() && x.abs() < 1e36).then_some(x as i128)
        };
        let guess: Option<Vec<i128>> = if parallel {
            hint.par_iter().with_min_len(1 << 12).map(round).collect()
        } else {
            hint.iter().map(round).collect()
        };
        if guess.is_some_and(|p| check(&p).is_ok()) {
            return Ok(certified);
        }
    }
    // 2. Potentials along the policy, memoised walks towards s.
    let mut p = vec![0i128; n];
    let mut state = vec![UNSEEN; n];
    state[s] = DONE;
    let mut path = Vec::new();
    for v in 0..n {
        let mut x = v;
        while state[x] == UNSEEN {
            state[x] = ON_PATH;
            path.push(x);
            x = next(x);
        }
        if state[x] == ON_PATH {
            return Err(Rejected::SecondCycle(v));
        }
        while let Some(y) = path.pop() {
            let e = policy[y];
            p[y] = p[next(y)].checked_add(reduced(e).ok_or(Rejected::Overflow)?).ok_or(Rejected::Overflow)?;
            state[y] = DONE;
        }
    }
    check(&p)?;
    Ok(certified)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{scc, subgraphs};
    use crate::{howard, Arc, Problem, Sense, WeightedGraph};

    fn sub(arcs: &[(u32, u32, i64, i64)], problem: Problem) -> Subgraph {
        let n = arcs.iter().map(|a| a.0.max(a.1)).max().unwrap() as u64 + 1;
        let arcs: Vec<Arc> =
            arcs.iter().map(|&(source, target, weight, time)| Arc { source, target, weight, time }).collect();
        let g = WeightedGraph::from_arcs(n, &arcs).unwrap();
        let subs = subgraphs(&g, &scc(&g, false), problem, Sense::Min, false).unwrap();
        assert_eq!(subs.len(), 1);
        subs.into_iter().next().unwrap()
    }

    /// 0 -> 1 -> 0 (weights 1, 1), 1 -> 2 -> 1 (weights 0, 1), 2 -> 2 (weight 5).
    /// Local edges: 0: 0->1 (e0); 1: 1->0 (e1), 1->2 (e2); 2: 2->1 (e3), 2->2 (e4).
    fn three() -> Subgraph {
        sub(&[(0, 1, 1, 1), (1, 0, 1, 1), (1, 2, 0, 1), (2, 1, 1, 1), (2, 2, 5, 1)], Problem::Mean)
    }

    #[test]
    fn accepts_the_optimal_policy() {
        let s = three();
        // Cycle 1 -> 2 -> 1 (mean 1/2); 0 goes to 1.
        let c = certify(&s, &[0, 2, 3], 1).unwrap();
        assert_eq!((c.weight, c.time), (1, 2));
        assert_eq!(c.cycle, vec![2, 3]);
        // Any vertex of the cycle will do as s.
        assert_eq!(certify(&s, &[0, 2, 3], 2).unwrap().cycle, vec![3, 2]);
    }

    #[test]
    fn hints_save_the_walk_and_cannot_fool_the_check() {
        let s = three();
        // The exact values of the optimal policy (λ = 1/2): p = (1, 0, 1) over T = 2.
        let exact = [0.5, 0.0, 0.5];
        let garbage = [9.0, -3.0, 1e300];
        for hint in [&exact, &garbage] {
            let c = certify_with(&s, &[0, 2, 3], 1, Some(hint)).unwrap();
            assert_eq!((c.weight, c.time), (1, 2));
            // A worse cycle is rejected whatever the hint.
            assert_eq!(certify_with(&s, &[0, 1, 3], 0, Some(hint)), Err(Rejected::Improvable(2)));
        }
        // A hint that fails the check falls back to the exact walk.
        assert!(certify_with(&s, &[0, 2, 3], 1, Some(&[0.5, 0.0, 0.0])).is_ok());
        assert!(certify_with(&s, &[0, 2, 3], 1, Some(&[0.5])).is_ok()); // wrong length: ignored
    }

    #[test]
    fn rejects_a_worse_cycle() {
        let s = three();
        // Cycle 0 -> 1 -> 0 (mean 1): the edge 1 -> 2 improves vertex 1.
        assert_eq!(certify(&s, &[0, 1, 3], 0), Err(Rejected::Improvable(2)));
        // The self-loop 2 -> 2 (mean 5).
        assert!(matches!(certify(&s, &[0, 2, 4], 2), Err(Rejected::Improvable(_))));
    }

    #[test]
    fn rejects_second_cycles_and_vertices_off_the_cycle() {
        let s = three();
        // Two policy cycles: 0 <-> 1 and 2 -> 2.
        assert_eq!(certify(&s, &[0, 1, 4], 0), Err(Rejected::SecondCycle(2)));
        // Vertex 0 is on no policy cycle.
        assert_eq!(certify(&s, &[0, 2, 3], 0), Err(Rejected::NotOnCycle));
        // Edge 1 does not leave vertex 0; wrong length.
        assert_eq!(certify(&s, &[1, 2, 3], 1), Err(Rejected::Malformed));
        assert_eq!(certify(&s, &[0, 2], 1), Err(Rejected::Malformed));
    }

    #[test]
    fn uses_transit_times() {
        // Ratio: 0 <-> 1 weight 4 time 2 (ratio 2) against 1 -> 1 weight 3 time 1 (ratio 3).
        let s = sub(&[(0, 1, 2, 1), (1, 0, 2, 1), (1, 1, 3, 1)], Problem::Ratio);
        assert_eq!(certify(&s, &[0, 1], 0).map(|c| (c.weight, c.time)), Ok((4, 2)));
        assert!(matches!(certify(&s, &[0, 2], 1), Err(Rejected::Improvable(_))));
        // With times 1 on the two-cycle and 10 on the loop, the loop wins (ratio 3/10).
        let s = sub(&[(0, 1, 2, 1), (1, 0, 2, 1), (1, 1, 3, 10)], Problem::Ratio);
        assert!(matches!(certify(&s, &[0, 1], 0), Err(Rejected::Improvable(2))));
        assert_eq!(certify(&s, &[0, 2], 1).map(|c| (c.weight, c.time)), Ok((3, 10)));
    }

    #[test]
    fn overflow_rejects() {
        // λ = 1/(2^63 - 1) from the loop at 0; the zero-time chain 1 -> 2 -> 3 -> 0 of
        // weight 2^63 - 1 per edge gives potentials of about 2^126 per edge: p(1) leaves i128.
        let m = i64::MAX;
        let s = sub(&[(0, 0, 1, m), (0, 1, 0, 1), (1, 2, m, 0), (2, 3, m, 0), (3, 0, m, 0)], Problem::Ratio);
        assert_eq!(certify(&s, &[0, 2, 3, 4], 0), Err(Rejected::Overflow));
    }

    /// The optimal policy for the cycle through `s` with ratio `w/t`, and the potentials:
    /// every other vertex takes an edge of a shortest reduced path to `s` (exact
    /// label-correcting; no negative cycle when `w/t` is optimal).
    fn optimal_policy(s: &Subgraph, cycle: &[usize], w: i128, t: i128) -> (Vec<usize>, Vec<i128>) {
        let n = s.len();
        let r = |e: usize| s.weights[e] as i128 * t - s.times[e] as i128 * w;
        let (rev_off, rev) = s.reverse();
        let (mut policy, mut d, mut queued) = (vec![usize::MAX; n], vec![i128::MAX; n], vec![false; n]);
        let start = s.source(cycle[0]);
        (d[start], policy[start]) = (0, cycle[0]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            queued[v] = false;
            for &e in &rev[rev_off[v]..rev_off[v + 1]] {
                let u = s.source(e);
                if u != start && d[v] + r(e) < d[u] {
                    (d[u], policy[u]) = (d[v] + r(e), e);
                    if !queued[u] {
                        queued[u] = true;
                        queue.push_back(u);
                    }
                }
            }
        }
        (policy, d)
    }

    /// The parallel checks give the sequential verdict, rejection included, on random
    /// rings with chords (up to 30,000 vertices, so the parallel path really splits) and
    /// policies that pass, improve, leave their vertex, or close a second cycle, with
    /// exact, perturbed and useless hints.
    #[test]
    fn parallel_checks_agree_with_sequential() {
        let mut seed = 11u64;
        let mut next = |k: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % k
        };
        let (mut accepted, mut rejected) = (0, 0);
        for round in 0..60 {
            let n = if round % 10 == 0 { 20_000 + next(10_000) as u32 } else { 2 + next(60) as u32 };
            let mut arcs = Vec::new();
            for v in 0..n {
                arcs.push(Arc {
                    source: v,
                    target: (v + 1) % n,
                    weight: next(19) as i64 - 9,
                    time: 1 + next(3) as i64,
                });
                for _ in 0..next(3) {
                    let target = next(n as u64) as u32;
                    arcs.push(Arc { source: v, target, weight: next(19) as i64 - 9, time: next(3) as i64 });
                }
            }
            let problem = if round % 2 == 0 { Problem::Mean } else { Problem::Ratio };
            let g = WeightedGraph::from_arcs(n as u64, &arcs).unwrap();
            let Ok(subs) = subgraphs(&g, &scc(&g, false), problem, Sense::Min, false) else {
                continue; // a zero-time cycle
            };
            let s = &subs[0];
            let (cycle, _) = howard::howard(s, false).unwrap();
            let (w, t) =
                cycle.iter().fold((0i128, 0i128), |(w, t), &e| (w + s.weights[e] as i128, t + s.times[e] as i128));
            let g = crate::ratio::gcd(w.unsigned_abs(), t as u128) as i128;
            let (optimal, d) = optimal_policy(s, &cycle, w / g, t / g);
            let exact: Vec<f64> = d.iter().map(|&p| p as f64 / (t / g) as f64).collect();
            let mut perturbed = exact.clone();
            perturbed[next(n as u64) as usize] += 1.0;
            let useless = vec![f64::NAN; s.len()];
            let mut policies = vec![optimal.clone(), (0..s.len()).map(|v| s.out_edges(v).start).collect()];
            let random: Vec<usize> =
                (0..s.len()).map(|v| s.out_edges(v).start + next(s.out_edges(v).len() as u64) as usize).collect();
            policies.push(random);
            let mut changed = optimal.clone();
            let v = next(n as u64) as usize;
            changed[v] = s.out_edges(v).start + next(s.out_edges(v).len() as u64) as usize;
            policies.push(changed);
            let mut malformed = optimal.clone();
            malformed[next(n as u64) as usize] = next(s.edges() as u64) as usize;
            policies.push(malformed);
            for policy in &policies {
                for at in [s.source(cycle[0]), next(n as u64) as usize] {
                    for hint in [Some(&exact[..]), Some(&perturbed[..]), Some(&useless[..]), None] {
                        let sequential = certify_from(s, policy, at, hint, usize::MAX);
                        assert_eq!(certify_from(s, policy, at, hint, 0), sequential, "round {round}");
                        if sequential.is_ok() {
                            accepted += 1;
                        } else {
                            rejected += 1;
                        }
                    }
                }
            }
        }
        assert!(accepted > 20 && rejected > 100, "{accepted} accepted, {rejected} rejected");
    }

    #[test]
    fn agrees_with_howard_on_rings_with_chords() {
        for seed in 0..20i64 {
            let mut arcs = Vec::new();
            for v in 0..40u32 {
                arcs.push((v, (v + 1) % 40, (v as i64 * 7 + seed) % 9 - 2, 1 + (v as i64 + seed) % 3));
                if (v as i64 + seed) % 5 == 3 {
                    arcs.push((v, (v * 3 + seed as u32) % 40, (v as i64 * seed) % 7 - 3, 1));
                }
            }
            for problem in [Problem::Mean, Problem::Ratio] {
                let s = sub(&arcs, problem);
                let (cycle, _) = howard::howard(&s, false).unwrap();
                let (w, t) =
                    cycle.iter().fold((0i128, 0i128), |(w, t), &e| (w + s.weights[e] as i128, t + s.times[e] as i128));
                let g = crate::ratio::gcd(w.unsigned_abs(), t as u128) as i128;
                let (policy, _) = optimal_policy(&s, &cycle, w / g, t / g);
                let c = certify(&s, &policy, s.source(cycle[0])).unwrap();
                assert_eq!(c.weight * t, w * c.time, "seed {seed}: an optimal cycle");
                // The plain ring is a policy too; unless its cycle is optimal, it fails.
                let ring: Vec<usize> = (0..s.len()).map(|v| s.out_edges(v).start).collect();
                let (rw, rt) =
                    ring.iter().fold((0i128, 0i128), |(a, b), &e| (a + s.weights[e] as i128, b + s.times[e] as i128));
                if rw * t != w * rt {
                    assert!(matches!(certify(&s, &ring, 0), Err(Rejected::Improvable(_))), "seed {seed}");
                }
            }
        }
    }
}
