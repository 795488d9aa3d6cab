//! Trimming (McLendon et al., "topological sort elimination"): repeatedly remove from a
//! subgraph the vertices without a predecessor or without a successor in it; each is
//! a trivial SCC. Self-loops are not counted, so a vertex whose only neighbour in the
//! subgraph is itself is removed too (it is a size-1 SCC either way; thesis §6.1.4).
//!
//! Degrees within the subgraph are counted first; then waves of removals, each
//! removed vertex decrementing the degrees of its neighbours in the subgraph, a vertex
//! reaching zero joining the next wave. The compare-and-swap on the label makes each
//! removal happen once even when both degrees reach zero in one wave.

use std::sync::atomic::Ordering::Relaxed;

use super::{gather, Ctx, DONE};

/// Trims subgraph `label` with members `vertices`; returns the members left.
pub(crate) fn trim(ctx: &Ctx, label: u64, vertices: Vec<u32>) -> Vec<u32> {
    let degree = |csr: &warpcheck_graph::Csr, v: u32| {
        csr.successors(v).iter().filter(|&&w| w != v && ctx.label(w) == label).count() as u32
    };
    let mut wave = gather(ctx, &vertices, |v, out| {
        if ctx.label(v) != label {
            return;
        }
        let (din, dout) = (degree(ctx.bwd, v), degree(ctx.fwd, v));
        ctx.deg_in[v as usize].store(din, Relaxed);
        ctx.deg_out[v as usize].store(dout, Relaxed);
        if din == 0 || dout == 0 {
            out.push(v);
        }
    });
    while !wave.is_empty() {
        wave = gather(ctx, &wave, |v, out| {
            if ctx.label[v as usize].compare_exchange(label, DONE, Relaxed, Relaxed).is_err() {
                return;
            }
            ctx.comp[v as usize].store(v, Relaxed);
            for &w in ctx.fwd.successors(v) {
                if w != v && ctx.label(w) == label && ctx.deg_in[w as usize].fetch_sub(1, Relaxed) == 1 {
                    out.push(w);
                }
            }
            for &u in ctx.bwd.successors(v) {
                if u != v && ctx.label(u) == label && ctx.deg_out[u as usize].fetch_sub(1, Relaxed) == 1 {
                    out.push(u);
                }
            }
        });
    }
    ctx.filter(&vertices, |v| ctx.label(v) == label)
}
