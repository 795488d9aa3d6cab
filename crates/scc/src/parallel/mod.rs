//! What the parallel SCC algorithms share.
//!
//! **Subgraph labels.** Each algorithm splits the graph into SCC-closed subgraphs (every
//! SCC lies wholly inside one) and decomposes them independently. A subgraph is a
//! `Task`: a `u64` label and the list of its vertices; `label[v]` says which live
//! subgraph `v` belongs to, or `DONE` once its component is known. An edge is
//! followed only between vertices of the same label (`u ∼ v` in the thesis), so one
//! pass can serve all subgraphs, as the thesis's kernel sharing does on the GPU. Labels
//! are fresh numbers from a counter, never reused, so concurrently live subgraphs never
//! share one.
//!
//! **Work queue, not recursion.** `rounds` runs all tasks of a round in parallel
//! and collects their children into the next round, until none is left; nothing
//! recurses on the stack.
//!
//! **Within a task**, work lists (BFS levels, trimming waves) are processed by
//! `gather`: sequentially when short, split across the pool when long.

mod reach;
mod trim;

pub(crate) use reach::bfs;
pub(crate) use trim::trim;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;
use warpcheck_graph::{Csr, Graph};

use crate::{Components, Options};

/// The label of a vertex whose component is known.
pub(crate) const DONE: u64 = u64::MAX;

/// Flag bits of `Ctx::flags`, each owned by one phase of one task.
pub(crate) const FWD: u8 = 1;
pub(crate) const BWD: u8 = 2;
pub(crate) const MARK: u8 = 4;

/// A live subgraph: its label and its vertices (some may be `DONE` already).
pub(crate) struct Task {
    pub label: u64,
    pub vertices: Vec<u32>,
}

/// Shared per-vertex state of a parallel decomposition.
pub(crate) struct Ctx<'g> {
    pub fwd: &'g Csr,
    pub bwd: &'g Csr,
    pub label: Vec<AtomicU64>,
    /// The component of each `DONE` vertex (a vertex id of it).
    pub comp: Vec<AtomicU32>,
    pub flags: Vec<AtomicU8>,
    /// Degrees within the subgraph, for trimming and OWCTY elimination.
    pub deg_in: Vec<AtomicU32>,
    pub deg_out: Vec<AtomicU32>,
    next_label: AtomicU64,
    pub threshold: usize,
}

fn atomics<T: Send>(n: usize, make: impl Fn() -> T + Sync + Send) -> Vec<T> {
    (0..n).into_par_iter().map(|_| make()).collect()
}

impl<'g> Ctx<'g> {
    /// Every vertex in subgraph 0; the first task is returned beside.
    pub fn new(graph: &'g Graph, options: &Options) -> (Ctx<'g>, Task) {
        let n = graph.vertices();
        let ctx = Ctx {
            fwd: graph.forward(),
            bwd: graph.backward(),
            label: atomics(n, || AtomicU64::new(0)),
            comp: atomics(n, || AtomicU32::new(u32::MAX)),
            flags: atomics(n, || AtomicU8::new(0)),
            deg_in: atomics(n, || AtomicU32::new(0)),
            deg_out: atomics(n, || AtomicU32::new(0)),
            next_label: AtomicU64::new(1),
            threshold: options.parallel_threshold.max(1),
        };
        let all = (0..n as u32).into_par_iter().collect();
        (ctx, Task { label: 0, vertices: all })
    }

    /// A label no subgraph has had.
    pub fn fresh(&self) -> u64 {
        self.next_label.fetch_add(1, Relaxed)
    }

    #[inline]
    pub fn label(&self, v: u32) -> u64 {
        self.label[v as usize].load(Relaxed)
    }

    #[inline]
    pub fn set_label(&self, v: u32, label: u64) {
        self.label[v as usize].store(label, Relaxed)
    }

    /// Records `v` as a member of the component named `comp`.
    #[inline]
    pub fn finish(&self, v: u32, comp: u32) {
        self.comp[v as usize].store(comp, Relaxed);
        self.label[v as usize].store(DONE, Relaxed);
    }

    /// Moves `vertices` into a new subgraph and returns it as a task.
    pub fn new_task(&self, vertices: Vec<u32>) -> Task {
        let label = self.fresh();
        self.for_each(&vertices, |v| self.set_label(v, label));
        Task { label, vertices }
    }

    /// Calls `f` on every item, in parallel when there are many.
    pub fn for_each(&self, items: &[u32], f: impl Fn(u32) + Sync) {
        if items.len() < self.threshold {
            items.iter().for_each(|&v| f(v));
        } else {
            items.par_iter().for_each(|&v| f(v));
        }
    }

    /// The items `keep` accepts, in parallel when there are many.
    pub fn filter(&self, items: &[u32], keep: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
        gather(self, items, |v, out| {
            if keep(v) {
                out.push(v)
            }
        })
    }

    /// The decomposition, once every vertex is `DONE`.
    pub fn into_components(self) -> Components {
        debug_assert!(self.label.iter().all(|l| l.load(Relaxed) == DONE));
        Components::from_labels(self.comp.into_iter().map(AtomicU32::into_inner).collect())
    }
}

/// Everything `f` pushes for each item, sequentially for short lists, in parallel
/// chunks for long ones.
pub(crate) fn gather<T: Send>(ctx: &Ctx, items: &[u32], f: impl Fn(u32, &mut Vec<T>) + Sync) -> Vec<T> {
    let run = |chunk: &[u32]| {
        let mut out = Vec::new();
        chunk.iter().for_each(|&v| f(v, &mut out));
        out
    };
    if items.len() < ctx.threshold {
        run(items)
    } else {
        items.par_chunks(256).flat_map_iter(run).collect()
    }
}

/// Runs `step` on every task, all tasks of a round in parallel, the children of a
/// round forming the next, until no task is left.
pub(crate) fn rounds<T: Send>(first: Vec<T>, step: impl Fn(T) -> Vec<T> + Sync) {
    let mut tasks = first;
    while !tasks.is_empty() {
        tasks = tasks.into_par_iter().flat_map_iter(&step).collect();
    }
}

/// A well-mixed hash of a label, to pick pivots spread over a subgraph: always taking
/// its first vertex makes FB quadratic on chains of components.
pub(crate) fn mix(label: u64) -> u64 {
    let mut z = label.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
