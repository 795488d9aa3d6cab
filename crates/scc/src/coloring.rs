//! Coloring (Orzan, PhD thesis 2004; "Coloring heads off", Barnat et al. IPDPS 2011),
//! on all cores, with trimming of every subgraph first.
//!
//! Per subgraph: every vertex starts with its own id as colour; colours flow forward
//! along edges, each vertex keeping the largest it sees (its "maximal preceding
//! colour"), until nothing changes. A vertex `k` that keeps its own colour is a root:
//! every vertex of colour `k` is reachable from `k`, and `k`'s SCC is the set of
//! vertices of colour `k` that reach `k`, found by one backward BFS from all roots at
//! once, restricted to each root's colour. What is left of each colour class is a new
//! subgraph (thesis Algorithm 18 / 23-24).
//!
//! Departures from the pseudo-code: Algorithm 24 as printed *pulls* the maximum from
//! successors, which makes a colour the largest id reachable *from* a vertex, while
//! the text (and the backward closure that follows) needs the largest id reaching it
//! (erratum 5 of the thesis digest); here colours are pushed to successors, and the
//! closure is backward, consistently. Propagation is a work list of vertices whose
//! colour grew, not a sweep of all vertices per iteration. Trimming each subgraph
//! first (not in the thesis's plain COLORING) removes trivial components cheaply.
//!
//! Work O(n · (n + m)) per round in the worst case; it shines on graphs of many small
//! components and suffers on large ones.

use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

use rayon::prelude::*;
use warpcheck_graph::Graph;

use crate::parallel::{bfs, gather, rounds, trim, Ctx, Task, BWD, MARK};
use crate::{Components, Options};

/// The SCCs of `graph` by Coloring.
pub fn coloring(graph: &Graph, options: &Options) -> Components {
    let (ctx, first) = Ctx::new(graph, options);
    let color: Vec<AtomicU32> = (0..graph.vertices() as u32).into_par_iter().map(AtomicU32::new).collect();
    rounds(vec![first], |task| step(&ctx, &color, task));
    ctx.into_components()
}

fn step(ctx: &Ctx, color: &[AtomicU32], task: Task) -> Vec<Task> {
    let label = task.label;
    let live = trim(ctx, label, task.vertices);
    if live.is_empty() {
        return Vec::new();
    }
    let col = |v: u32| color[v as usize].load(SeqCst);
    ctx.for_each(&live, |v| {
        color[v as usize].store(v, SeqCst);
        ctx.flags[v as usize].fetch_or(MARK, SeqCst);
    });
    // Propagate: MARK means "queued"; a vertex is unmarked before its colour is read,
    // so a raise after that read queues it again.
    let mut queue = live.clone();
    while !queue.is_empty() {
        queue = gather(ctx, &queue, |v, out| {
            ctx.flags[v as usize].fetch_and(!MARK, SeqCst);
            let c = col(v);
            for &w in ctx.fwd.successors(v) {
                if ctx.label(w) == label
                    && col(w) < c
                    && color[w as usize].fetch_max(c, SeqCst) < c
                    && ctx.flags[w as usize].fetch_or(MARK, SeqCst) & MARK == 0
                {
                    out.push(w);
                }
            }
        });
    }
    // Each root's SCC: the vertices of its colour that reach it.
    let roots = ctx.filter(&live, |v| col(v) == v);
    ctx.for_each(&roots, |r| {
        ctx.flags[r as usize].fetch_or(BWD, SeqCst);
    });
    let found = bfs(ctx, ctx.bwd, roots, |v, w| {
        ctx.label(w) == label && col(w) == col(v) && ctx.flags[w as usize].fetch_or(BWD, SeqCst) & BWD == 0
    });
    ctx.for_each(&found, |v| {
        ctx.flags[v as usize].store(0, SeqCst);
        ctx.finish(v, col(v));
    });
    // The rest of each colour class is a new subgraph.
    let mut rest: Vec<(u32, u32)> = gather(ctx, &live, |v, out| {
        if ctx.label(v) == label {
            out.push((col(v), v))
        }
    });
    if rest.len() < ctx.threshold {
        rest.sort_unstable();
    } else {
        rest.par_sort_unstable();
    }
    rest.chunk_by(|a, b| a.0 == b.0).map(|class| ctx.new_task(class.iter().map(|&(_, v)| v).collect())).collect()
}
