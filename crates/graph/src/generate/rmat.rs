//! R-MAT digraphs (Chakrabarti, Zhan and Faloutsos, SDM 2004): each edge descends the
//! adjacency matrix by recursive quadrant choices with probabilities `a`, `b`, `c`,
//! `d`, giving the skewed degree distribution of real-world graphs. GTgraph's defaults
//! (0.45, 0.15, 0.15, 0.25). The matrix side is the next power of two at or above the
//! number of vertices; edges landing outside it, and self-loops, are redrawn;
//! duplicates are kept.

use super::SplitMix64;
use crate::Graph;

/// The quadrant probabilities of R-MAT (they must sum to 1).
#[derive(Clone, Debug)]
pub struct RmatParams {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
}

impl Default for RmatParams {
    fn default() -> Self {
        RmatParams { a: 0.45, b: 0.15, c: 0.15, d: 0.25 }
    }
}

/// An R-MAT digraph of `vertices` vertices and average out-degree `degree`.
pub fn rmat(vertices: u32, degree: f64, p: &RmatParams, seed: u64) -> Graph {
    let n = vertices as u64;
    let m = (n as f64 * degree).round() as usize;
    let levels = 64 - n.saturating_sub(1).leading_zeros();
    let (ab, abc) = (p.a + p.b, p.a + p.b + p.c);
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::with_capacity(if n > 1 { m } else { 0 });
    while n > 1 && edges.len() < m {
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..levels {
            let r = rng.unit();
            let (down, right) = if r < p.a {
                (0, 0)
            } else if r < ab {
                (0, 1)
            } else if r < abc {
                (1, 0)
            } else {
                (1, 1)
            };
            u = u << 1 | down;
            v = v << 1 | right;
        }
        if u < n && v < n && u != v {
            edges.push((u as u32, v as u32));
        }
    }
    Graph::from_edges(n, &edges).expect("ids below n")
}
