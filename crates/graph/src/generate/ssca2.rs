//! SSCA#2 digraphs (HPCS Scalable Synthetic Compact Applications #2, v1.1), made as
//! GTgraph's `SSCA2` generator (Bader and Madduri), which the thesis used, makes them:
//! - vertices are cut into cliques of sizes uniform in `1..=max_clique_size`;
//! - within a clique, for each pair `j < i`: with probability `1 - prob_unidirectional`
//!   edges both ways, otherwise only `j → i`;
//! - each vertex `i` gets, for `t = 1 .. floor(log2 n) - 1`, edges to
//!   `j = (i + 2^t + r) mod n` with `r` uniform in `[0, 2^(t-1))`, unless `j` is in
//!   `i`'s clique, each of the parallel edges with probability `prob_interclique / 2^(t-1)`;
//! - a connection carries `1 + floor((max_parallel_edges - 1) · U)` parallel edges,
//!   that is 1 to `max_parallel_edges - 1` (GTgraph's truncation, kept);
//! - finally vertex ids are shuffled to remove locality.
//!
//! GTgraph's defaults are kept except `max_clique_size`: its default `2^(SCALE/3)`
//! gives average degrees near 50 at a million vertices, while the thesis's Table 6.1
//! used average degree 12, which a maximum clique size of 13 gives (measured by the
//! test of `generate`).

use super::SplitMix64;
use crate::Graph;

/// Parameters of SSCA#2.
#[derive(Clone, Debug)]
pub struct Ssca2Params {
    pub max_clique_size: u32,
    pub prob_unidirectional: f64,
    pub prob_interclique: f64,
    pub max_parallel_edges: u32,
}

impl Default for Ssca2Params {
    fn default() -> Self {
        Ssca2Params { max_clique_size: 13, prob_unidirectional: 0.2, prob_interclique: 0.5, max_parallel_edges: 3 }
    }
}

/// An SSCA#2 digraph of `vertices` vertices.
pub fn ssca2(vertices: u32, p: &Ssca2Params, seed: u64) -> Graph {
    let n = vertices as u64;
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::new();
    let parallel = |rng: &mut SplitMix64| 1 + rng.below(p.max_parallel_edges.max(2) as u64 - 1) as usize;
    // Cliques: clique_start[v] is the first vertex of v's clique.
    let mut clique_start = vec![0u32; n as usize];
    let mut start = 0u64;
    while start < n {
        let size = (1 + rng.below(p.max_clique_size.max(1) as u64)).min(n - start);
        for i in start..start + size {
            clique_start[i as usize] = start as u32;
            for j in start..i {
                let (i, j) = (i as u32, j as u32);
                if rng.unit() >= p.prob_unidirectional {
                    (0..parallel(&mut rng)).for_each(|_| edges.push((i, j)));
                }
                (0..parallel(&mut rng)).for_each(|_| edges.push((j, i)));
            }
        }
        start += size;
    }
    let levels = 63 - n.max(1).leading_zeros() as u64; // floor(log2 n)
    for i in 0..n {
        let mut prob = p.prob_interclique;
        for t in 1..levels {
            let j = (i + (1 << t) + rng.below(1 << (t - 1))) % n;
            if clique_start[j as usize] != clique_start[i as usize] {
                for _ in 0..parallel(&mut rng) {
                    if rng.unit() < prob {
                        edges.push((i as u32, j as u32));
                    }
                }
            }
            prob /= 2.0;
        }
    }
    // Shuffle the ids (Fisher–Yates) so that cliques are not runs of consecutive ids.
    let mut perm: Vec<u32> = (0..vertices).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for e in &mut edges {
        *e = (perm[e.0 as usize], perm[e.1 as usize]);
    }
    Graph::from_edges(n, &edges).expect("ids below n")
}
