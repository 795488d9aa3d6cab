//! [`solve`]: SCC pre-decomposition, one algorithm on every cyclic component, the
//! exact value and critical cycle of each component and of the graph.

use std::time::Instant;

use rayon::prelude::*;

use crate::components::{scc, subgraphs, Subgraph};
use crate::graph::WeightedGraph;
use crate::ratio::{Overflow, Ratio};
use crate::{howard, karp, yto, CycleError};

/// Cycle mean (weight per edge) or cycle ratio (weight per unit of transit time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    Mean,
    Ratio,
}

/// Minimum or maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    Min,
    Max,
}

/// The algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Howard's policy iteration, sequential (SCCs by sequential Tarjan).
    Howard,
    /// Howard's policy iteration on the current rayon pool: components in parallel
    /// (found by parallel FB with trimming), each with a parallel improvement step.
    HowardPar,
    /// Young–Tarjan–Orlin parametric shortest paths, sequential.
    Yto,
    /// Karp's algorithm, sequential, cycle means only.
    Karp,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [Algorithm::Howard, Algorithm::HowardPar, Algorithm::Yto, Algorithm::Karp];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Howard => "howard",
            Algorithm::HowardPar => "howard-par",
            Algorithm::Yto => "yto",
            Algorithm::Karp => "karp",
        }
    }

    /// Whether it solves `problem`.
    pub fn supports(self, problem: Problem) -> bool {
        self != Algorithm::Karp || problem == Problem::Mean
    }
}

/// What to compute and how.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub problem: Problem,
    pub sense: Sense,
    pub algorithm: Algorithm,
}

/// A cycle: its vertices in order (starting at the smallest), the edges between them
/// (`edges[i]` leaves `vertices[i]`), and its total weight and transit time (the
/// number of edges for a mean).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticalCycle {
    pub vertices: Vec<u32>,
    pub edges: Vec<usize>,
    pub weight: i128,
    pub time: i128,
}

/// The optimum of one cyclic SCC.
#[derive(Clone, Debug)]
pub struct ComponentResult {
    /// The smallest vertex of the component (its name).
    pub representative: u32,
    pub vertices: usize,
    pub edges: usize,
    pub value: Ratio,
    pub cycle: CriticalCycle,
}

/// The result of [`solve`].
#[derive(Clone, Debug)]
pub struct Solution {
    /// The optimum over all cycles, `None` if the graph has no cycle.
    pub value: Option<Ratio>,
    /// A critical cycle (one of the component achieving the optimum, the one with the
    /// smallest representative on ties).
    pub cycle: Option<CriticalCycle>,
    /// Every cyclic SCC, by representative.
    pub components: Vec<ComponentResult>,
    /// Policy-improvement rounds of Howard, summed over the components (0 otherwise).
    pub rounds: u64,
    /// Seconds of the SCC decomposition and of the algorithm itself.
    pub scc_seconds: f64,
    pub seconds: f64,
}

/// The cycle of the global `edges` (in order), in original weights, rotated to start
/// at its smallest vertex.
fn critical_cycle(graph: &WeightedGraph, edges: &[usize], problem: Problem) -> Result<CriticalCycle, Overflow> {
    let mut pairs: Vec<(u32, usize)> = edges.iter().map(|&e| (graph.source(e), e)).collect();
    let start = (0..pairs.len()).min_by_key(|&i| pairs[i].0).unwrap_or(0);
    pairs.rotate_left(start);
    let (mut weight, mut time) = (0i128, 0i128);
    for &(_, e) in &pairs {
        weight = weight.checked_add(graph.weight(e) as i128).ok_or(Overflow)?;
        time = time.checked_add(if problem == Problem::Mean { 1 } else { graph.time(e) as i128 }).ok_or(Overflow)?;
    }
    Ok(CriticalCycle {
        vertices: pairs.iter().map(|p| p.0).collect(),
        edges: pairs.iter().map(|p| p.1).collect(),
        weight,
        time,
    })
}

/// The result of component `sub` from a cycle (its local edges in order) that an
/// algorithm found: the exact value of the cycle, from the original weights.
pub fn component_result(
    graph: &WeightedGraph,
    sub: &Subgraph,
    edges: &[usize],
    problem: Problem,
) -> Result<ComponentResult, CycleError> {
    let global: Vec<usize> = edges.iter().map(|&e| sub.edge_ids[e]).collect();
    cycle_result(graph, (sub.vertices[0], sub.len(), sub.edges()), &global, problem)
}

/// The result of the component `(representative, vertices, edges)` from a cycle of it
/// given by its global edge ids in order: the exact value of the cycle.
pub fn cycle_result(
    graph: &WeightedGraph,
    (representative, vertices, edges): (u32, usize, usize),
    cycle: &[usize],
    problem: Problem,
) -> Result<ComponentResult, CycleError> {
    let cycle = critical_cycle(graph, cycle, problem)?;
    let value = Ratio::new(cycle.weight, cycle.time).ok_or(Overflow)?;
    Ok(ComponentResult { representative, vertices, edges, value, cycle })
}

/// One component: the algorithm, then the exact value of its cycle.
fn component(graph: &WeightedGraph, sub: &Subgraph, options: &Options) -> Result<(ComponentResult, u64), CycleError> {
    let (edges, rounds, claimed) = match options.algorithm {
        Algorithm::Howard => {
            let (c, r) = howard::howard(sub, false)?;
            (c, r, None)
        }
        Algorithm::HowardPar => {
            let (c, r) = howard::howard(sub, true)?;
            (c, r, None)
        }
        Algorithm::Yto => (yto::yto(sub)?, 0, None),
        Algorithm::Karp => {
            let (value, c) = karp::karp(sub)?;
            (c, 0, Some(value))
        }
    };
    let result = component_result(graph, sub, &edges, options.problem)?;
    if let Some(v) = claimed {
        let v = if options.sense == Sense::Max { v.checked_neg()? } else { v };
        if v != result.value {
            return Err(CycleError::Internal(format!("Karp's value {v} differs from its cycle's {}", result.value)));
        }
    }
    Ok((result, rounds))
}

/// The optimal cycle mean or ratio of `graph`, per cyclic SCC and overall. Runs on
/// the current rayon pool for [`Algorithm::HowardPar`], sequentially otherwise.
///
/// Errors: a cycle of total transit time 0 for a ratio
/// ([`CycleError::ZeroTimeCycle`]), Karp for a ratio, or numbers beyond `i128`.
pub fn solve(graph: &WeightedGraph, options: &Options) -> Result<Solution, CycleError> {
    if !options.algorithm.supports(options.problem) {
        return Err(CycleError::Unsupported("Karp's algorithm computes cycle means only (no transit times)"));
    }
    let parallel = options.algorithm == Algorithm::HowardPar;
    let start = Instant::now();
    let comps = scc(graph, parallel);
    let subs = subgraphs(graph, &comps, options.problem, options.sense, parallel)?;
    let scc_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let results: Vec<(ComponentResult, u64)> = if parallel {
        // Large components first, so that they do not start last.
        let mut order: Vec<usize> = (0..subs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(subs[i].edges()));
        let mut out: Vec<_> = order
            .into_par_iter()
            .map(|i| component(graph, &subs[i], options).map(|r| (i, r)))
            .collect::<Result<Vec<_>, _>>()?;
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, r)| r).collect()
    } else {
        subs.iter().map(|s| component(graph, s, options)).collect::<Result<_, _>>()?
    };
    let seconds = start.elapsed().as_secs_f64();
    let rounds = results.iter().map(|r| r.1).sum();
    let components: Vec<ComponentResult> = results.into_iter().map(|r| r.0).collect();
    Ok(combine(components, options.sense, rounds, scc_seconds, seconds))
}

/// The [`Solution`] of the per-component results (ordered by representative): the
/// optimum over them, the first on ties.
pub fn combine(
    components: Vec<ComponentResult>,
    sense: Sense,
    rounds: u64,
    scc_seconds: f64,
    seconds: f64,
) -> Solution {
    let best = components.iter().reduce(|x, y| {
        let better = match sense {
            Sense::Min => y.value < x.value,
            Sense::Max => y.value > x.value,
        };
        if better {
            y
        } else {
            x
        }
    });
    Solution {
        value: best.map(|b| b.value),
        cycle: best.map(|b| b.cycle.clone()),
        components,
        rounds,
        scc_seconds,
        seconds,
    }
}
