//! Forward-Backward with trimming (FB: Fleischer, Hendrickson and Pinar, IRREGULAR
//! 2000; trimming: McLendon et al., JPDC 2005), on all cores.
//!
//! Per subgraph: trim it; pick a pivot; its forward closure F and backward closure B
//! within the subgraph (two BFS, run side by side) meet in the pivot's SCC, F ∩ B; the
//! other SCCs lie wholly in F \ B, B \ F or the rest, which become three new subgraphs
//! of the next round (thesis Algorithm 17 / 22; Wijs et al. Algorithm 1).
//!
//! Departures from the pseudo-code: Algorithm 22 of the thesis passes `visited.f` to
//! both reachabilities; the backward one needs its own set (`visited.b`, as its text
//! says): here the `FWD` and `BWD` flag bits. Neighbour ranges are half open
//! (`[A_i[v], A_i[v+1])`, erratum 6 of the thesis digest). The pivot is not raced for
//! (a GPU device): it is the member at a position given by a hash of the subgraph's
//! label, so that chains of components split evenly on average, like a random pivot,
//! yet runs are reproducible.
//!
//! Work O(n · (n + m)) in the worst case, O(n + m) per component found.

use std::sync::atomic::Ordering::Relaxed;

use warpcheck_graph::Graph;

use crate::parallel::{bfs, mix, rounds, trim, Ctx, Task, BWD, DONE, FWD};
use crate::{Components, Options};

/// The SCCs of `graph` by FB with trimming.
pub fn fb_trim(graph: &Graph, options: &Options) -> Components {
    let (ctx, first) = Ctx::new(graph, options);
    rounds(vec![first], |task| step(&ctx, task));
    ctx.into_components()
}

fn step(ctx: &Ctx, task: Task) -> Vec<Task> {
    let label = task.label;
    let live = trim(ctx, label, task.vertices);
    if live.is_empty() {
        return Vec::new();
    }
    let pivot = live[(mix(label) % live.len() as u64) as usize];
    ctx.flags[pivot as usize].store(FWD | BWD, Relaxed);
    let closure = |csr, bit: u8| {
        bfs(ctx, csr, vec![pivot], |_, w| {
            ctx.label(w) == label && ctx.flags[w as usize].fetch_or(bit, Relaxed) & bit == 0
        })
    };
    rayon::join(|| closure(ctx.fwd, FWD), || closure(ctx.bwd, BWD));
    // Split the members by their flags (and clear them): F ∩ B is the pivot's SCC.
    let classes: Vec<u8> = if live.len() < ctx.threshold {
        live.iter().map(|&v| ctx.flags[v as usize].swap(0, Relaxed)).collect()
    } else {
        use rayon::prelude::*;
        live.par_iter().map(|&v| ctx.flags[v as usize].swap(0, Relaxed)).collect()
    };
    let class_of = |i: usize| classes[i];
    let mut children = Vec::with_capacity(3);
    for class in [FWD, BWD, 0] {
        let members = select(ctx, &live, |i| class_of(i) == class);
        if !members.is_empty() {
            children.push(ctx.new_task(members));
        }
    }
    let scc = select(ctx, &live, |i| class_of(i) == FWD | BWD);
    ctx.for_each(&scc, |v| ctx.finish(v, pivot));
    debug_assert!(scc.iter().all(|&v| ctx.label(v) == DONE));
    children
}

/// The members at the positions `keep` accepts, in order.
fn select(ctx: &Ctx, live: &[u32], keep: impl Fn(usize) -> bool + Sync) -> Vec<u32> {
    if live.len() < ctx.threshold {
        live.iter().enumerate().filter(|&(i, _)| keep(i)).map(|(_, &v)| v).collect()
    } else {
        use rayon::prelude::*;
        live.par_iter().enumerate().filter(|&(i, _)| keep(i)).map(|(_, &v)| v).collect()
    }
}
