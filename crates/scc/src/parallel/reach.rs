//! Reachability restricted to a subgraph: level-synchronous BFS whose levels are
//! processed by [`gather`](super::gather), so large levels use the whole pool.

use warpcheck_graph::Csr;

use super::{gather, Ctx};

/// Visits, level by level, every vertex reachable from `start` along `csr` through
/// edges `(v, w)` for which `claim(v, w)` returns true. `claim` must return true at
/// most once per vertex (it marks the vertex, atomically); the caller marks the start
/// vertices itself. Returns the start vertices and every claimed vertex.
pub(crate) fn bfs(ctx: &Ctx, csr: &Csr, start: Vec<u32>, claim: impl Fn(u32, u32) -> bool + Sync) -> Vec<u32> {
    let mut all = start.clone();
    let mut frontier = start;
    while !frontier.is_empty() {
        frontier = gather(ctx, &frontier, |v, out| {
            for &w in csr.successors(v) {
                if claim(v, w) {
                    out.push(w);
                }
            }
        });
        all.extend_from_slice(&frontier);
    }
    all
}
