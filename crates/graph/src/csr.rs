//! Compressed sparse row adjacency ([`Csr`]) and the two-directional [`Graph`].
//!
//! `offsets` has one entry per vertex plus one, `offsets[0] == 0` and
//! `offsets[n] == targets.len()`; the successors of `v` are
//! `targets[offsets[v]..offsets[v + 1]]` (half open). Offsets are `u64` so that graphs
//! with more than 4 G edges fit; vertex ids are `u32`.

use std::sync::OnceLock;

use crate::GraphError;

/// The largest number of vertices: ids are `u32`, and `u32::MAX` is kept free as a
/// marker for the algorithms.
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// One direction of a graph's adjacency, in CSR form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl Csr {
    /// Builds the adjacency of `edges` over `vertices` vertices; each vertex's
    /// successors keep the order of `edges` (a stable counting sort).
    pub fn from_edges(vertices: u64, edges: &[(u32, u32)]) -> Result<Csr, GraphError> {
        if vertices > MAX_VERTICES {
            return Err(GraphError::TooManyVertices { vertices });
        }
        let n = vertices as usize;
        // A header may announce far more vertices than memory holds: an error, not an abort.
        let mut offsets = Vec::new();
        offsets.try_reserve_exact(n + 1).map_err(|_| GraphError::OutOfMemory { vertices })?;
        offsets.resize(n + 1, 0u64);
        for &(u, v) in edges {
            if u as u64 >= vertices || v as u64 >= vertices {
                return Err(GraphError::VertexOutOfRange { source_vertex: u as u64, target: v as u64, vertices });
            }
            offsets[u as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next: Vec<u64> = offsets[..n].to_vec();
        let mut targets = vec![0u32; edges.len()];
        for &(u, v) in edges {
            let slot = &mut next[u as usize];
            targets[*slot as usize] = v;
            *slot += 1;
        }
        Ok(Csr { offsets, targets })
    }

    /// Wraps CSR arrays, checking every invariant of the module doc.
    pub fn from_parts(offsets: Vec<u64>, targets: Vec<u32>) -> Result<Csr, String> {
        let Some(&last) = offsets.last() else { return Err("no offsets (need vertices + 1)".into()) };
        let n = offsets.len() as u64 - 1;
        if n > MAX_VERTICES {
            return Err(format!("{n} vertices: at most {MAX_VERTICES} are supported"));
        }
        if offsets[0] != 0 || last != targets.len() as u64 {
            return Err(format!("offsets run from {} to {last}, expected 0 to {}", offsets[0], targets.len()));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(format!("offsets decrease at vertex {i}"));
        }
        if let Some(i) = targets.iter().position(|&t| t as u64 >= n) {
            return Err(format!("edge {i} targets vertex {} outside 0..{n}", targets[i]));
        }
        Ok(Csr { offsets, targets })
    }

    /// The offsets and the targets, moved out.
    pub fn into_parts(self) -> (Vec<u64>, Vec<u32>) {
        (self.offsets, self.targets)
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of edges (with multiplicity).
    pub fn edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The successors of `v` (with multiplicity, self-loops included).
    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The offsets array (`vertices() + 1` entries).
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The targets array (`edges()` entries).
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Every edge `(source, target)` in CSR order.
    pub fn edge_iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.vertices() as u32).flat_map(move |u| self.successors(u).iter().map(move |&v| (u, v)))
    }

    /// The reversed adjacency: `u` is a successor of `v` in the result iff `v` is one of
    /// `u` here (with the same multiplicity). Predecessors come out in increasing order.
    pub fn transpose(&self) -> Csr {
        let n = self.vertices();
        let mut offsets = vec![0u64; n + 1];
        for &t in &self.targets {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next: Vec<u64> = offsets[..n].to_vec();
        let mut targets = vec![0u32; self.targets.len()];
        for u in 0..n as u32 {
            for &v in self.successors(u) {
                let slot = &mut next[v as usize];
                targets[*slot as usize] = u;
                *slot += 1;
            }
        }
        Csr { offsets, targets }
    }
}

/// A directed graph: forward adjacency, and backward adjacency built on first use.
#[derive(Debug, Default)]
pub struct Graph {
    forward: Csr,
    backward: OnceLock<Csr>,
}

impl Graph {
    /// A graph with the given forward adjacency.
    pub fn new(forward: Csr) -> Graph {
        Graph { forward, backward: OnceLock::new() }
    }

    /// A graph of `vertices` vertices and the given edges.
    pub fn from_edges(vertices: u64, edges: &[(u32, u32)]) -> Result<Graph, GraphError> {
        Ok(Graph::new(Csr::from_edges(vertices, edges)?))
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.forward.vertices()
    }

    /// Number of edges (with multiplicity).
    pub fn edges(&self) -> u64 {
        self.forward.edges()
    }

    /// Successor lists.
    pub fn forward(&self) -> &Csr {
        &self.forward
    }

    /// Predecessor lists (built by [`Csr::transpose`] on the first call).
    pub fn backward(&self) -> &Csr {
        self.backward.get_or_init(|| self.forward.transpose())
    }

    /// Whether the backward adjacency has been built.
    pub fn has_backward(&self) -> bool {
        self.backward.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_transposes() {
        let g = Graph::from_edges(4, &[(0, 1), (0, 1), (1, 1), (2, 0), (1, 3)]).unwrap();
        assert_eq!(g.vertices(), 4);
        assert_eq!(g.edges(), 5);
        assert_eq!(g.forward().successors(0), &[1, 1]);
        assert_eq!(g.forward().successors(1), &[1, 3]);
        assert_eq!(g.forward().successors(3), &[] as &[u32]);
        assert_eq!(g.backward().successors(1), &[0, 0, 1]);
        assert_eq!(g.backward().successors(0), &[2]);
        assert_eq!(g.backward().transpose(), *g.forward());
    }

    #[test]
    fn rejects_out_of_range_and_bad_parts() {
        assert!(matches!(Csr::from_edges(2, &[(0, 2)]), Err(GraphError::VertexOutOfRange { .. })));
        assert!(Csr::from_parts(vec![], vec![]).is_err());
        assert!(Csr::from_parts(vec![0, 2, 1], vec![0]).is_err());
        assert!(Csr::from_parts(vec![0, 1], vec![1]).is_err());
        assert_eq!(Csr::from_parts(vec![0], vec![]).unwrap().vertices(), 0);
    }
}
