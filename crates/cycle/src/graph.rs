//! [`WeightedGraph`]: a directed graph in CSR form whose edges carry an integer weight
//! and an integer transit time (`i64`).
//!
//! Edges keep their multiplicity and their input order among the edges of one source
//! (a stable counting sort), and are named by their index in the CSR arrays (an *edge
//! id*, as a critical cycle reports them). The topology converts to a
//! [`warpcheck_graph::Csr`] for the SCC decomposition. Transit times are
//! non-negative (checked on construction); the cycle mean ignores them.

use warpcheck_graph::{Csr, MAX_VERTICES};

use crate::CycleError;

/// One arc `source -> target` with its weight and transit time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    pub source: u32,
    pub target: u32,
    pub weight: i64,
    pub time: i64,
}

/// A weighted directed graph in CSR form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedGraph {
    csr: Csr,
    weights: Vec<i64>,
    times: Vec<i64>,
}

impl WeightedGraph {
    /// Builds the graph of `vertices` vertices and the given arcs. Fails on a vertex
    /// out of range, too many vertices, or a negative transit time.
    pub fn from_arcs(vertices: u64, arcs: &[Arc]) -> Result<WeightedGraph, CycleError> {
        if vertices >= MAX_VERTICES {
            return Err(CycleError::Graph(format!("{vertices} vertices: at most {} are supported", MAX_VERTICES - 1)));
        }
        let n = vertices as usize;
        let mut offsets = vec![0u64; n + 1];
        for a in arcs {
            if a.source as u64 >= vertices || a.target as u64 >= vertices {
                return Err(CycleError::Graph(format!(
                    "arc ({}, {}) names a vertex outside 0..{vertices}",
                    a.source, a.target
                )));
            }
            if a.time < 0 {
                return Err(CycleError::Graph(format!(
                    "arc ({}, {}) has a negative transit time {}",
                    a.source, a.target, a.time
                )));
            }
            offsets[a.source as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let m = arcs.len();
        let mut next: Vec<u64> = offsets[..n].to_vec();
        let (mut targets, mut weights, mut times) = (vec![0u32; m], vec![0i64; m], vec![0i64; m]);
        for a in arcs {
            let slot = &mut next[a.source as usize];
            let e = *slot as usize;
            *slot += 1;
            (targets[e], weights[e], times[e]) = (a.target, a.weight, a.time);
        }
        let csr = Csr::from_parts(offsets, targets).map_err(CycleError::Graph)?;
        Ok(WeightedGraph { csr, weights, times })
    }

    /// Weights and times on the edges of an existing topology (in its edge order).
    pub fn from_csr(csr: &Csr, weights: Vec<i64>, times: Vec<i64>) -> Result<WeightedGraph, CycleError> {
        let m = csr.targets().len();
        if weights.len() != m || times.len() != m {
            return Err(CycleError::Graph(format!(
                "{m} edges but {} weights and {} times",
                weights.len(),
                times.len()
            )));
        }
        if let Some(e) = times.iter().position(|&t| t < 0) {
            return Err(CycleError::Graph(format!("edge {e} has a negative transit time {}", times[e])));
        }
        Ok(WeightedGraph { csr: csr.clone(), weights, times })
    }

    /// Weights and times given per vertex, each edge taking those of its *target*: the
    /// weighting of a state graph by a function of states (every transition into a
    /// state costs the same, since a transition's effect shows in its target). `times`
    /// `None` is 1 on every edge.
    pub fn by_target(csr: &Csr, weights: &[i64], times: Option<&[i64]>) -> Result<WeightedGraph, CycleError> {
        let n = csr.vertices();
        if weights.len() != n || times.is_some_and(|t| t.len() != n) {
            return Err(CycleError::Graph(format!("{n} vertices but {} weights", weights.len())));
        }
        let w = csr.targets().iter().map(|&t| weights[t as usize]).collect();
        let t = match times {
            Some(times) => csr.targets().iter().map(|&t| times[t as usize]).collect(),
            None => vec![1; csr.targets().len()],
        };
        WeightedGraph::from_csr(csr, w, t)
    }

    pub fn vertices(&self) -> usize {
        self.csr.vertices()
    }

    pub fn edges(&self) -> usize {
        self.csr.targets().len()
    }

    /// The edge ids leaving `v`.
    #[inline]
    pub fn out_edges(&self, v: u32) -> std::ops::Range<usize> {
        let offsets = self.csr.offsets();
        offsets[v as usize] as usize..offsets[v as usize + 1] as usize
    }

    #[inline]
    pub fn target(&self, e: usize) -> u32 {
        self.csr.targets()[e]
    }

    #[inline]
    pub fn weight(&self, e: usize) -> i64 {
        self.weights[e]
    }

    #[inline]
    pub fn time(&self, e: usize) -> i64 {
        self.times[e]
    }

    /// The source of edge `e` (a binary search over the offsets).
    pub fn source(&self, e: usize) -> u32 {
        (self.csr.offsets().partition_point(|&o| o <= e as u64) - 1) as u32
    }

    /// The topology alone, for the SCC decomposition.
    pub fn csr(&self) -> &Csr {
        &self.csr
    }

    /// All arcs, in edge-id order.
    pub fn arcs(&self) -> impl Iterator<Item = Arc> + '_ {
        (0..self.vertices() as u32).flat_map(move |v| {
            self.out_edges(v).map(move |e| Arc {
                source: v,
                target: self.csr.targets()[e],
                weight: self.weights[e],
                time: self.times[e],
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc(source: u32, target: u32, weight: i64, time: i64) -> Arc {
        Arc { source, target, weight, time }
    }

    #[test]
    fn sorts_by_source_stably() {
        let g = WeightedGraph::from_arcs(3, &[arc(2, 0, 5, 1), arc(0, 1, 1, 1), arc(0, 2, 2, 3), arc(2, 2, -1, 0)])
            .unwrap();
        assert_eq!(g.out_edges(0), 0..2);
        assert_eq!((g.target(1), g.weight(1), g.time(1)), (2, 2, 3));
        assert_eq!(g.out_edges(1), 2..2);
        assert_eq!(g.source(3), 2);
        assert_eq!(g.source(0), 0);
        assert_eq!(g.arcs().collect::<Vec<_>>()[2], arc(2, 0, 5, 1));
        assert_eq!(g.csr().successors(2), &[0, 2]);
    }

    #[test]
    fn weights_by_target() {
        let g =
            WeightedGraph::from_arcs(3, &[arc(0, 1, 0, 1), arc(1, 2, 0, 1), arc(2, 0, 0, 1), arc(2, 2, 0, 1)]).unwrap();
        let w = WeightedGraph::by_target(g.csr(), &[10, 20, 30], None).unwrap();
        assert_eq!((0..4).map(|e| w.weight(e)).collect::<Vec<_>>(), [20, 30, 10, 30]);
        assert_eq!((0..4).map(|e| w.time(e)).collect::<Vec<_>>(), [1; 4]);
        let t = WeightedGraph::by_target(g.csr(), &[0; 3], Some(&[1, 2, 3])).unwrap();
        assert_eq!((0..4).map(|e| t.time(e)).collect::<Vec<_>>(), [2, 3, 1, 3]);
        assert!(WeightedGraph::by_target(g.csr(), &[0; 3], Some(&[1, -2, 3])).is_err());
        assert!(WeightedGraph::by_target(g.csr(), &[0; 2], None).is_err());
    }

    #[test]
    fn rejects_bad_arcs() {
        assert!(WeightedGraph::from_arcs(2, &[arc(0, 2, 1, 1)]).is_err());
        assert!(WeightedGraph::from_arcs(2, &[arc(0, 1, 1, -1)]).is_err());
    }
}
