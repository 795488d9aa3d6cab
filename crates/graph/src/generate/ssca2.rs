//! SSCA#2 digraphs (HPCS Scalable Synthetic Compact Applications #2, v1.1, as made by
//! GTgraph's `SSCA2` generator): vertices are cut into cliques of sizes uniform in
//! `1..=max_clique_size`; within a clique every ordered pair is connected, except that
//! with probability `prob_unidirectional` a pair gets only one direction (chosen at
//! random); then each vertex `i` gets inter-clique edges to `i + d` (mod n) with `d`
//! uniform in `[2^(t-1), 2^t)` for `t = 1, 2, ...` while `2^t < n`, with probability
//! `prob_interclique / 2^(t-1)` (skipped when it falls into the same clique); every
//! connection carries `1..=max_parallel_edges` parallel edges. Finally vertex ids are
//! shuffled to remove locality, as GTgraph does.
//!
//! GTgraph's defaults are kept except `max_clique_size`: its default `2^(SCALE/3)`
//! gives average degrees near 60 at a million vertices, while the thesis's Table 6.1
//! used average degree 12; a maximum clique size of 10 gives 12 (measured by the test
//! of `generate`).

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
        Ssca2Params { max_clique_size: 10, prob_unidirectional: 0.2, prob_interclique: 0.5, max_parallel_edges: 3 }
    }
}

/// An SSCA#2 digraph of `vertices` vertices.
pub fn ssca2(vertices: u32, p: &Ssca2Params, seed: u64) -> Graph {
    let n = vertices as u64;
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::new();
    let parallel = |rng: &mut SplitMix64| 1 + rng.below(p.max_parallel_edges.max(1) as u64) as usize;
    // Cliques: clique_start[v] is the first vertex of v's clique.
    let mut clique_start = vec![0u32; n as usize];
    let mut start = 0u64;
    while start < n {
        let size = (1 + rng.below(p.max_clique_size.max(1) as u64)).min(n - start);
        for i in start..start + size {
            clique_start[i as usize] = start as u32;
            for j in start..i {
                let (i, j) = (i as u32, j as u32);
                let both = rng.unit() >= p.prob_unidirectional;
                let forward = both || rng.below(2) == 0;
                let backward = both || !forward;
                if forward {
                    (0..parallel(&mut rng)).for_each(|_| edges.push((j, i)));
                }
                if backward {
                    (0..parallel(&mut rng)).for_each(|_| edges.push((i, j)));
                }
            }
        }
        start += size;
    }
    for i in 0..n {
        let mut prob = p.prob_interclique;
        let mut t = 1;
        while (1u64 << t) < n {
            let low = 1u64 << (t - 1);
            let j = (i + low + rng.below(low)) % n;
            if clique_start[j as usize] != clique_start[i as usize] && rng.unit() < prob {
                (0..parallel(&mut rng)).for_each(|_| edges.push((i as u32, j as u32)));
            }
            prob /= 2.0;
            t += 1;
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
