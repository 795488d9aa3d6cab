//! Erdős–Rényi random digraphs G(n, m): `m = round(n · degree)` edges, each with a
//! source and a target drawn uniformly and independently, self-loops redrawn
//! (GTgraph's `random` generator in its G(n, m) mode; duplicates are kept).

use super::SplitMix64;
use crate::Graph;

/// A random digraph of `vertices` vertices and average out-degree `degree`.
pub fn erdos_renyi(vertices: u32, degree: f64, seed: u64) -> Graph {
    let n = vertices as u64;
    let m = (n as f64 * degree).round() as usize;
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::with_capacity(if n > 1 { m } else { 0 });
    while n > 1 && edges.len() < m {
        let (u, v) = (rng.below(n) as u32, rng.below(n) as u32);
        if u != v {
            edges.push((u, v));
        }
    }
    Graph::from_edges(n, &edges).expect("ids below n")
}
