//! SCC pre-decomposition: the cyclic strongly connected components of a
//! [`WeightedGraph`] as self-contained [`Subgraph`]s that the algorithms solve one by
//! one (Proposition 2.3 of Barnat et al.: the optimum of a graph is the optimum over
//! its SCCs).
//!
//! A component is *cyclic* if it has more than one vertex or a self-loop; the others
//! have no cycle and are dropped. (The GPU paper drops every one-vertex component and
//! so loses self-loop cycles; the digest lists that error, and here self-loops count.)
//! A subgraph keeps only the edges inside its component, with weights negated for a
//! maximum and times set to 1 for a mean, so the algorithms only ever minimise.

use rayon::prelude::*;
use warpcheck_graph::Graph;
use warpcheck_scc::{decompose, Algorithm as SccAlgorithm, Components};

use crate::graph::WeightedGraph;
use crate::{CycleError, Problem, Sense};

/// One cyclic SCC with its internal edges, in local vertex ids `0..len`.
#[derive(Clone, Debug)]
pub struct Subgraph {
    /// Global vertex of each local vertex, ascending (so local order is global order).
    pub vertices: Vec<u32>,
    /// Local CSR: edges of local vertex `v` are `offsets[v]..offsets[v + 1]`.
    pub offsets: Vec<usize>,
    pub targets: Vec<u32>,
    /// The weights to minimise (negated for a maximum).
    pub weights: Vec<i64>,
    /// Transit times (all 1 for a cycle mean).
    pub times: Vec<i64>,
    /// Global edge id of each local edge.
    pub edge_ids: Vec<usize>,
}

impl Subgraph {
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    #[inline]
    pub fn out_edges(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v]..self.offsets[v + 1]
    }

    /// The source of local edge `e`.
    pub fn source(&self, e: usize) -> usize {
        self.offsets.partition_point(|&o| o <= e) - 1
    }

    /// Predecessor lists: `(offsets, edges)` where `edges[offsets[v]..offsets[v + 1]]`
    /// are the local edges entering `v`.
    pub fn reverse(&self) -> (Vec<usize>, Vec<usize>) {
        let n = self.len();
        let mut offsets = vec![0usize; n + 1];
        for &t in &self.targets {
            offsets[t as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets[..n].to_vec();
        let mut edges = vec![0usize; self.edges()];
        for v in 0..n {
            for e in self.out_edges(v) {
                let slot = &mut next[self.targets[e] as usize];
                edges[*slot] = e;
                *slot += 1;
            }
        }
        (offsets, edges)
    }

    /// A cycle (its local edges in order) among the edges `e` (leaving `v`) that
    /// `keep(v, e)` accepts, or a
    /// topological order of the vertices if they form no cycle. Iterative DFS.
    pub fn cycle_or_order(&self, keep: impl Fn(usize, usize) -> bool) -> Result<Vec<u32>, Vec<usize>> {
        const NEW: u8 = 0;
        const ACTIVE: u8 = 1;
        const DONE: u8 = 2;
        let n = self.len();
        let mut state = vec![NEW; n];
        let mut via = vec![usize::MAX; n]; // the edge a vertex was entered by
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..n {
            if state[root] != NEW {
                continue;
            }
            state[root] = ACTIVE;
            stack.push((root, self.offsets[root]));
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if *next == self.offsets[v + 1] {
                    state[v] = DONE;
                    post.push(v as u32);
                    stack.pop();
                    continue;
                }
                let e = *next;
                *next += 1;
                if !keep(v, e) {
                    continue;
                }
                let t = self.targets[e] as usize;
                match state[t] {
                    NEW => {
                        state[t] = ACTIVE;
                        via[t] = e;
                        stack.push((t, self.offsets[t]));
                    }
                    ACTIVE => {
                        // A back edge v -> t: the cycle is t ... v along `via`, then e.
                        let mut cycle = vec![e];
                        let mut x = v;
                        while x != t {
                            let f = via[x];
                            cycle.push(f);
                            x = self.source(f);
                        }
                        cycle.reverse();
                        return Err(cycle);
                    }
                    _ => {}
                }
            }
        }
        post.reverse();
        Ok(post)
    }
}

/// Fails with [`CycleError::ZeroTimeCycle`] if some cycle of `graph` has only edges of
/// transit time 0 (its ratio is undefined), as [`subgraphs`] does per component, for
/// solvers that lay out the components themselves.
pub fn reject_zero_time_cycles(graph: &WeightedGraph) -> Result<(), CycleError> {
    let zero: Vec<usize> = (0..graph.edges()).filter(|&e| graph.time(e) == 0).collect();
    if zero.is_empty() {
        return Ok(());
    }
    // The zero-time edges alone, over all vertices, as one subgraph.
    let n = graph.vertices();
    let mut offsets = vec![0usize; n + 1];
    for &e in &zero {
        offsets[graph.source(e) as usize + 1] += 1;
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let sub = Subgraph {
        vertices: (0..n as u32).collect(),
        offsets,
        targets: zero.iter().map(|&e| graph.target(e)).collect(),
        weights: vec![0; zero.len()],
        times: vec![0; zero.len()],
        edge_ids: zero,
    };
    match sub.cycle_or_order(|_, _| true) {
        Ok(_) => Ok(()),
        Err(cycle) => {
            Err(CycleError::ZeroTimeCycle { vertices: cycle.iter().map(|&e| sub.source(e) as u32).collect() })
        }
    }
}

/// The SCC labelling of `graph` (sequential Tarjan, or parallel FB with trimming).
pub fn scc(graph: &WeightedGraph, parallel: bool) -> Components {
    if parallel {
        decompose(&Graph::new(graph.csr().clone()), SccAlgorithm::FbTrim, &Default::default())
    } else {
        warpcheck_scc::tarjan::tarjan(graph.csr())
    }
}

/// Graphs with at least this many edges are split by [`split`]'s pivot search.
const PIVOT_EDGES: u64 = 1 << 20;

/// The SCC decomposition for the GPU Howard: on large graphs, the SCC of vertex 0 (a
/// state graph's initial state, usually in its giant SCC) by a parallel forward and
/// backward search, then Tarjan on the other vertices only; Tarjan alone on small
/// graphs, or when vertex 0's SCC is not most of the graph (then the search is lost
/// time, bounded by two traversals and a transpose). Parallel FB with trimming, the
/// alternative, pays for every SCC (lamport.6's 20,060: 5.5 s on 16 threads, Tarjan
/// 1.7 s); Tarjan alone is sequential (0.72 s on fischer.3's one SCC of 12 M edges).
pub fn split(graph: &WeightedGraph) -> Components {
    split_above(graph, PIVOT_EDGES)
}

fn split_above(graph: &WeightedGraph, pivot_edges: u64) -> Components {
    let csr = graph.csr();
    let n = csr.vertices();
    if csr.edges() < pivot_edges || n == 0 {
        return warpcheck_scc::tarjan::tarjan(csr);
    }
    let forward = reach(csr, 0);
    let backward = reach(&csr.transpose(), 0);
    let pivot: Vec<bool> = forward.par_iter().zip(&backward).map(|(&f, &b)| f && b).collect();
    drop((forward, backward));
    let rest: Vec<u32> = (0..n as u32).filter(|&v| !pivot[v as usize]).collect();
    if rest.len() * 2 > n {
        return warpcheck_scc::tarjan::tarjan(csr);
    }
    // Tarjan on the subgraph the other vertices induce (ascending local ids, so the
    // smallest local vertex of a component is its smallest global one).
    let mut local = vec![u32::MAX; n];
    for (i, &v) in rest.iter().enumerate() {
        local[v as usize] = i as u32;
    }
    let mut offsets = Vec::with_capacity(rest.len() + 1);
    let mut targets = Vec::new();
    offsets.push(0u64);
    for &v in &rest {
        targets.extend(csr.successors(v).iter().filter(|&&t| !pivot[t as usize]).map(|&t| local[t as usize]));
        offsets.push(targets.len() as u64);
    }
    let sub = warpcheck_graph::Csr::from_parts(offsets, targets).expect("an induced subgraph is a valid CSR");
    let inner = warpcheck_scc::tarjan::tarjan(&sub);
    let of = (0..n).map(|v| if pivot[v] { 0 } else { rest[inner.of[local[v] as usize] as usize] }).collect();
    Components { of }
}

/// The vertices `from` reaches in `csr`, by a level-synchronous parallel search.
fn reach(csr: &warpcheck_graph::Csr, from: u32) -> Vec<bool> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let seen: Vec<AtomicBool> = (0..csr.vertices()).map(|_| AtomicBool::new(false)).collect();
    seen[from as usize].store(true, Relaxed);
    let mut front = vec![from];
    while !front.is_empty() {
        let seen = &seen;
        front = front
            .par_iter()
            .flat_map_iter(|&u| {
                csr.successors(u)
                    .iter()
                    .copied()
                    .filter(move |&v| !seen[v as usize].load(Relaxed) && !seen[v as usize].swap(true, Relaxed))
            })
            .collect();
    }
    seen.into_iter().map(AtomicBool::into_inner).collect()
}

/// The cyclic components of `graph` as subgraphs, ordered by their smallest vertex.
pub fn subgraphs(
    graph: &WeightedGraph,
    comps: &Components,
    problem: Problem,
    sense: Sense,
    parallel: bool,
) -> Result<Vec<Subgraph>, CycleError> {
    let n = graph.vertices();
    let of = &comps.of;
    // Dense index of each cyclic component, by its smallest vertex (its label).
    let mut size = vec![0u32; n];
    for &c in of {
        size[c as usize] += 1;
    }
    let mut cyclic = vec![false; n];
    for v in 0..n as u32 {
        if size[of[v as usize] as usize] > 1 || graph.out_edges(v).any(|e| graph.target(e) == v) {
            cyclic[of[v as usize] as usize] = true;
        }
    }
    let mut index = vec![u32::MAX; n];
    let mut count = 0u32;
    for c in 0..n {
        if cyclic[c] {
            index[c] = count;
            count += 1;
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    let mut local = vec![u32::MAX; n];
    for v in 0..n as u32 {
        let i = index[of[v as usize] as usize];
        if i != u32::MAX {
            let list = &mut members[i as usize];
            local[v as usize] = list.len() as u32;
            list.push(v);
        }
    }
    let build = |vertices: Vec<u32>| {
        let comp = of[vertices[0] as usize];
        let mut sub = Subgraph {
            offsets: Vec::with_capacity(vertices.len() + 1),
            targets: Vec::new(),
            weights: Vec::new(),
            times: Vec::new(),
            edge_ids: Vec::new(),
            vertices,
        };
        sub.offsets.push(0);
        for &v in &sub.vertices {
            for e in graph.out_edges(v) {
                let t = graph.target(e);
                if of[t as usize] != comp {
                    continue;
                }
                sub.targets.push(local[t as usize]);
                let w = graph.weight(e);
                sub.weights.push(match sense {
                    Sense::Min => w,
                    Sense::Max => w.checked_neg().ok_or(CycleError::Overflow)?,
                });
                sub.times.push(match problem {
                    Problem::Mean => 1,
                    Problem::Ratio => graph.time(e),
                });
                sub.edge_ids.push(e);
            }
            sub.offsets.push(sub.targets.len());
        }
        if problem == Problem::Ratio {
            if let Err(cycle) = sub.cycle_or_order(|_, e| sub.times[e] == 0) {
                let vertices = cycle.iter().map(|&e| sub.vertices[sub.source(e)]).collect();
                return Err(CycleError::ZeroTimeCycle { vertices });
            }
        }
        Ok(sub)
    };
    if parallel {
        members.into_par_iter().map(build).collect()
    } else {
        members.into_iter().map(build).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arc;

    #[test]
    fn the_pivot_split_is_tarjans_partition() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as u32
        };
        let mut pivoted = 0;
        for round in 0..400 {
            let n = 1 + next(60);
            let mut arcs = Vec::new();
            // A cycle through 0 over some vertices (a giant SCC in most rounds), then
            // random edges, chains and self-loops.
            let ring = if round % 4 == 0 { 1 } else { 1 + next(n) };
            for v in 0..ring {
                arcs.push(Arc { source: v, target: (v + 1) % ring, weight: 1, time: 1 });
            }
            for _ in 0..next(3 * n) {
                arcs.push(Arc { source: next(n), target: next(n), weight: 1, time: 1 });
            }
            let g = WeightedGraph::from_arcs(n as u64, &arcs).unwrap();
            let want = warpcheck_scc::tarjan::tarjan(g.csr());
            assert_eq!(split_above(&g, 0), want, "round {round}: {arcs:?}");
            pivoted += (want.of.iter().filter(|&&c| c == 0).count() * 2 >= n as usize) as u32;
        }
        assert!(pivoted > 100, "{pivoted}");
    }

    #[test]
    fn zero_time_cycles_are_found_anywhere() {
        let arc = |source, target, time| Arc { source, target, weight: 1, time };
        // 0 -> 1 -> 2 -> 0 with one positive time; 2 -> 3 -> 2 all zero.
        let g = WeightedGraph::from_arcs(4, &[arc(0, 1, 0), arc(1, 2, 1), arc(2, 0, 0), arc(2, 3, 0), arc(3, 2, 0)])
            .unwrap();
        match reject_zero_time_cycles(&g) {
            Err(CycleError::ZeroTimeCycle { mut vertices }) => {
                vertices.sort();
                assert_eq!(vertices, vec![2, 3]);
            }
            other => panic!("{other:?}"),
        }
        let g = WeightedGraph::from_arcs(3, &[arc(0, 1, 0), arc(1, 2, 0), arc(2, 0, 2)]).unwrap();
        assert!(reject_zero_time_cycles(&g).is_ok());
    }
}
