//! Recursive OBF (Barnat and Moravec, "Parallel algorithms for finding SCCs", PDMC
//! 2005; Barnat, Chaloupka and van de Pol, 2009; thesis §6.1.3, Algorithms 19-20), on
//! all cores, with trimming (OBF + TRIM).
//!
//! Two kinds of task alternate:
//! - *split* (RECURSIVE-OBF(V)): trim V; then, while V has members, pick one, `v`,
//!   take its forward closure within V as a new *range* (a subgraph rooted at `v`),
//!   and remove it from V. Ranges are SCC-closed.
//! - *slices* (OBF(seeds, range)): repeat until the range is empty: **O**, OWCTY
//!   elimination from the seeds: a reached vertex without predecessors in the range
//!   is a trivial SCC and is removed, its successors reached in turn; `reached` are
//!   the reached vertices that stay. **B**, the backward closure of `reached` within
//!   the range is a slice: SCC-closed, removed from the range and decomposed by a new
//!   split task (or, if it is the whole original range, it is one SCC). **F**, the
//!   successors of the slice left in the range are the next seeds.
//!
//! The pseudo-code leaves implicit, and this code makes explicit: in-degrees count
//! predecessors *within the current range* only (self-loops ignored), decremented as
//! vertices are eliminated or sliced off; `|B| = originalRange` (line 8 of Algorithm
//! 19) is a sound SCC test only because it can hold in the first iteration alone (B is
//! then the whole rooted range, and everything reaches the root); and when a range is
//! not rooted (it always is here) the loop would find no seeds, so the rest goes to a
//! new split task instead of looping forever. Each slice is strictly smaller than the
//! split that made its range, so the recursion ends.
//!
//! Work O((l + 1) · (n + m)), `l` the length of the longest path of the component graph.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use warpcheck_graph::Graph;

use crate::parallel::{bfs, gather, mix, rounds, trim, Ctx, Task, BWD, DONE, MARK};
use crate::{Components, Options};

enum Job {
    Split(Task),
    Range { label: u64, members: Vec<u32>, root: u32 },
}

/// The SCCs of `graph` by Recursive OBF with trimming.
pub fn obf(graph: &Graph, options: &Options) -> Components {
    let (ctx, first) = Ctx::new(graph, options);
    rounds(vec![Job::Split(first)], |job| match job {
        Job::Split(task) => split(&ctx, task),
        Job::Range { label, members, root } => slices(&ctx, label, members, root),
    });
    ctx.into_components()
}

/// RECURSIVE-OBF(V): cuts the subgraph into rooted ranges.
fn split(ctx: &Ctx, task: Task) -> Vec<Job> {
    let old = task.label;
    let live = trim(ctx, old, task.vertices);
    let mut jobs = Vec::new();
    let start = if live.is_empty() { 0 } else { (mix(old) % live.len() as u64) as usize };
    for &root in live[start..].iter().chain(&live[..start]) {
        if ctx.label(root) != old {
            continue;
        }
        let label = ctx.fresh();
        ctx.set_label(root, label);
        let members = bfs(ctx, ctx.fwd, vec![root], |_, w| {
            ctx.label[w as usize].compare_exchange(old, label, Relaxed, Relaxed).is_ok()
        });
        jobs.push(Job::Range { label, members, root });
    }
    jobs
}

/// OBF(seeds, range): slices a rooted range.
fn slices(ctx: &Ctx, label: u64, members: Vec<u32>, root: u32) -> Vec<Job> {
    let original = members.len();
    ctx.for_each(&members, |v| {
        let d = ctx.bwd.successors(v).iter().filter(|&&u| u != v && ctx.label(u) == label).count();
        ctx.deg_in[v as usize].store(d as u32, Relaxed);
    });
    let mut left = original;
    let mut seeds = vec![root];
    let mut jobs = Vec::new();
    while left > 0 {
        let (eliminated, reached) = owcty(ctx, label, &seeds);
        left -= eliminated;
        if left == 0 {
            break;
        }
        if reached.is_empty() {
            // Unreachable for a rooted range; kept so that a broken invariant cannot loop.
            let rest = ctx.filter(&members, |v| ctx.label(v) == label);
            jobs.push(Job::Split(ctx.new_task(rest)));
            break;
        }
        ctx.for_each(&reached, |v| {
            ctx.flags[v as usize].fetch_or(BWD, Relaxed);
        });
        let slice = bfs(ctx, ctx.bwd, reached, |_, u| {
            ctx.label(u) == label && ctx.flags[u as usize].fetch_or(BWD, Relaxed) & BWD == 0
        });
        left -= slice.len();
        ctx.for_each(&slice, |v| ctx.flags[v as usize].store(0, Relaxed));
        if slice.len() == original {
            ctx.for_each(&slice, |v| ctx.finish(v, root));
            break;
        }
        let task = ctx.new_task(slice);
        // F: the successors of the slice left in the range seed the next round.
        seeds = gather(ctx, &task.vertices, |v, out| {
            for &w in ctx.fwd.successors(v) {
                if ctx.label(w) == label {
                    ctx.deg_in[w as usize].fetch_sub(1, Relaxed);
                    if ctx.flags[w as usize].fetch_or(MARK, Relaxed) & MARK == 0 {
                        out.push(w);
                    }
                }
            }
        });
        ctx.for_each(&seeds, |v| {
            ctx.flags[v as usize].fetch_and(!MARK, Relaxed);
        });
        jobs.push(Job::Split(task));
    }
    jobs
}

/// OWCTY elimination from `seeds` within range `label`: returns how many vertices it
/// eliminated (each a trivial SCC) and the reached vertices that stay.
fn owcty(ctx: &Ctx, label: u64, seeds: &[u32]) -> (usize, Vec<u32>) {
    const TOUCHED: u64 = 1 << 32;
    let eliminated = AtomicUsize::new(0);
    // Output words: the vertex, plus TOUCHED if it stays reached (for now), not
    // eliminated next.
    let sort = |w: u32, out: &mut Vec<u64>| {
        if ctx.deg_in[w as usize].load(Relaxed) == 0 {
            out.push(w as u64);
        } else if ctx.flags[w as usize].fetch_or(MARK, Relaxed) & MARK == 0 {
            out.push(w as u64 | TOUCHED);
        }
    };
    let first = gather(ctx, seeds, |v, out| sort(v, out));
    let mut touched: Vec<u32> = Vec::new();
    let mut wave = split_words(first, &mut touched);
    while !wave.is_empty() {
        let next = gather(ctx, &wave, |v, out: &mut Vec<u64>| {
            if ctx.label[v as usize].compare_exchange(label, DONE, Relaxed, Relaxed).is_err() {
                return;
            }
            ctx.comp[v as usize].store(v, Relaxed);
            eliminated.fetch_add(1, Relaxed);
            for &w in ctx.fwd.successors(v) {
                if w != v && ctx.label(w) == label {
                    if ctx.deg_in[w as usize].fetch_sub(1, Relaxed) == 1 {
                        out.push(w as u64);
                    } else if ctx.flags[w as usize].fetch_or(MARK, Relaxed) & MARK == 0 {
                        out.push(w as u64 | TOUCHED);
                    }
                }
            }
        });
        wave = split_words(next, &mut touched);
    }
    ctx.for_each(&touched, |v| {
        ctx.flags[v as usize].fetch_and(!MARK, Relaxed);
    });
    let reached = ctx.filter(&touched, |v| ctx.label(v) == label);
    (eliminated.into_inner(), reached)
}

/// Splits output words into the next wave (returned) and touched vertices.
fn split_words(words: Vec<u64>, touched: &mut Vec<u32>) -> Vec<u32> {
    let mut wave = Vec::new();
    for w in words {
        if w >> 32 == 0 {
            wave.push(w as u32);
        } else {
            touched.push(w as u32);
        }
    }
    wave
}
