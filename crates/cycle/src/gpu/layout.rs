//! The layout of the GPU Howard: all cyclic components of a [`WeightedGraph`] back to
//! back in 32-bit ids ([`Compact`]: forward and reverse CSR of the edges inside
//! components, `f64` weights for the device, the original vertex and edge of each
//! compact one), built straight from the graph and its SCC labelling in parallel, and
//! a [`Component`] view of one component that reads the exact integer weights of the
//! graph, for the certificate and the CPU fallback.

use rayon::prelude::*;
use warpcheck_scc::Components;

use super::GpuHowardError;
use crate::certificate::Component;
use crate::components::Subgraph;
use crate::{CycleError, Problem, Sense, WeightedGraph};

/// All cyclic components one after another: component `c` owns vertices
/// `vbase[c]..vbase[c + 1]` and edges `ebase[c]..ebase[c + 1]`; components by smallest
/// vertex, vertices ascending within one, only the edges inside a component.
pub struct Compact {
    pub off: Vec<u32>,
    pub tgt: Vec<u32>,
    /// The weights to minimise (negated for a maximum), as `f64` for the device.
    pub w: Vec<f64>,
    /// Transit times; empty for a cycle mean (every time 1).
    pub t: Vec<f64>,
    pub roff: Vec<u32>,
    pub rsrc: Vec<u32>,
    pub redge: Vec<u32>,
    pub comp: Vec<u32>,
    /// The graph's vertex of each compact vertex, its edge of each compact edge.
    pub verts: Vec<u32>,
    pub orig: Vec<u32>,
    pub vbase: Vec<usize>,
    pub ebase: Vec<usize>,
    /// Vertices of the largest component.
    pub largest: usize,
    pub negate: bool,
}

/// Most vertices or edges of the compact layout (32-bit ids, `u32::MAX` is "none").
const MAX_IDS: usize = u32::MAX as usize - 1;

/// A pointer that rayon tasks may share to write disjoint ranges of one buffer.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: a `Shared` is only a buffer's address handed to the rayon tasks of one
// parallel loop, each of which writes its own disjoint range (see the one use in
// `Compact::new`); the buffer outlives the loop and nothing else touches it meanwhile.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as for `Send`: shared only to write disjoint ranges.
unsafe impl<T> Sync for Shared<T> {}

impl Compact {
    /// The cyclic components of `graph` under the SCC labelling `comps` (labels are
    /// smallest vertices), laid out for the device. Fails on too many ids, or on a
    /// weight that cannot be negated for a maximum (as the CPU solvers do).
    pub fn new(
        graph: &WeightedGraph,
        comps: &Components,
        problem: Problem,
        sense: Sense,
    ) -> Result<Compact, GpuHowardError> {
        let n = graph.vertices();
        let of = &comps.of;
        let mut size = vec![0u32; n];
        for &c in of {
            size[c as usize] += 1;
        }
        let mut cyclic = vec![false; n];
        for (v, &c) in of.iter().enumerate() {
            let c = c as usize;
            if !cyclic[c] && (size[c] > 1 || graph.out_edges(v as u32).any(|e| graph.target(e) == v as u32)) {
                cyclic[c] = true;
            }
        }
        let mut index = vec![u32::MAX; n];
        let mut vbase = vec![0usize];
        for c in 0..n {
            if cyclic[c] {
                index[c] = vbase.len() as u32 - 1;
                vbase.push(vbase.last().unwrap() + size[c] as usize);
            }
        }
        let total = *vbase.last().unwrap();
        if total > MAX_IDS {
            return Err(GpuHowardError::TooLarge(format!("{total} vertices in cyclic components, at most {MAX_IDS}")));
        }
        let mut fill = vbase[..vbase.len() - 1].to_vec();
        let (mut pos, mut verts, mut comp) = (vec![u32::MAX; n], vec![0u32; total], vec![0u32; total]);
        for v in 0..n {
            let i = index[of[v] as usize];
            if i != u32::MAX {
                let at = &mut fill[i as usize];
                (pos[v], verts[*at], comp[*at]) = (*at as u32, v as u32, i);
                *at += 1;
            }
        }
        // Forward edges: internal degrees, offsets, then a parallel fill of disjoint ranges.
        // The compact target of edge e of compact vertex i if it stays in i's component:
        // one random read (pos is u32::MAX outside cyclic components).
        let inside = |i: usize, e: usize| {
            let (c, x) = (comp[i] as usize, pos[graph.target(e) as usize] as usize);
            (vbase[c]..vbase[c + 1]).contains(&x).then_some(x as u32)
        };
        let degree: Vec<u32> = (0..total)
            .into_par_iter()
            .map(|i| graph.out_edges(verts[i]).filter(|&e| inside(i, e).is_some()).count() as u32)
            .collect();
        let mut off = Vec::with_capacity(total + 1);
        off.push(0u64);
        for &d in &degree {
            off.push(off.last().unwrap() + d as u64);
        }
        let m = *off.last().unwrap() as usize;
        if m > MAX_IDS {
            return Err(GpuHowardError::TooLarge(format!("{m} edges in cyclic components, at most {MAX_IDS}")));
        }
        let (negate, unit) = (sense == Sense::Max, problem == Problem::Mean);
        let (mut tgt, mut w, mut orig) = (vec![0u32; m], vec![0f64; m], vec![0u32; m]);
        let mut t = if unit { Vec::new() } else { vec![0f64; m] };
        let ptrs =
            (Shared(tgt.as_mut_ptr()), Shared(w.as_mut_ptr()), Shared(orig.as_mut_ptr()), Shared(t.as_mut_ptr()));
        let overflow = (0..total).into_par_iter().with_min_len(1 << 10).any(|i| {
            let p = ptrs;
            let mut bad = false;
            let kept = graph.out_edges(verts[i]).filter_map(|e| Some((e, inside(i, e)?)));
            for (at, (e, x)) in (off[i] as usize..).zip(kept) {
                let weight = graph.weight(e);
                bad |= negate && weight == i64::MIN;
                // SAFETY: vertex i alone writes its range off[i]..off[i + 1] of each
                // buffer: `off` is the prefix sum of the degrees counted with the same
                // `inside`, so the ranges are disjoint and end by `m`, the length of
                // `tgt`, `w`, `orig` (and of `t`, which is written only when not empty).
                // The buffers are live locals that nothing else touches during the loop.
                unsafe {
                    *p.0 .0.add(at) = x;
                    *p.1 .0.add(at) = if negate { -(weight as f64) } else { weight as f64 };
                    *p.2 .0.add(at) = e as u32;
                    if !unit {
                        *p.3 .0.add(at) = graph.time(e) as f64;
                    }
                }
            }
            bad
        });
        if overflow {
            return Err(CycleError::Overflow.into());
        }
        let (roff, rsrc, redge) = reverse(&off, &tgt);
        let ebase = vbase.iter().map(|&v| off[v] as usize).collect();
        let largest = vbase.windows(2).map(|p| p[1] - p[0]).max().unwrap_or(0);
        let off = off.into_iter().map(|o| o as u32).collect();
        Ok(Compact { off, tgt, w, t, roff, rsrc, redge, comp, verts, orig, vbase, ebase, largest, negate })
    }

    pub fn components(&self) -> usize {
        self.vbase.len() - 1
    }

    /// Component `i` in local ids, with the exact weights of `graph`.
    pub(super) fn view<'a>(&'a self, graph: &'a WeightedGraph, i: usize) -> View<'a> {
        View { c: self, graph, vb: self.vbase[i], eb: self.ebase[i], len: self.vbase[i + 1] - self.vbase[i] }
    }

    pub fn vertices(&self) -> usize {
        self.comp.len()
    }

    pub fn edges(&self) -> usize {
        self.tgt.len()
    }

    /// Device bytes the run allocates (graph, per-vertex and per-component arrays).
    pub fn device_bytes(&self) -> u64 {
        let (n, m, c) = (self.vertices() as u64, self.edges() as u64, self.vbase.len() as u64 - 1);
        let graph = 8 * (n + 1) + m * (4 + 8 + 4 + 4) + 8 * self.t.len() as u64 + 4 * n;
        // pol, val, cyc, mean, level, two queues, and the jump scratch (2 × 16 bytes).
        let vertex = n * (4 + 8 + 4 + 8 + 4 + 8 + 32);
        let component = c * (4 + 4 + 8 + 4 + 8);
        graph + vertex + component + 64
    }
}

/// The reverse CSR of the forward one (`off`, `tgt`): per vertex, the edges entering it
/// in edge order and their sources. A counting sort on targets in parallel: the targets
/// are cut into one block per thread, each block scans all edges and keeps those into
/// it, so the blocks fill disjoint ranges, in the order of the sequential sort.
fn reverse(off: &[u64], tgt: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = off.len() - 1;
    let blocks = rayon::current_num_threads().clamp(1, n.max(1));
    let bounds: Vec<usize> = (0..=blocks).map(|b| b * n / blocks).collect();
    let mut roff = vec![0u32; n + 1];
    split(&mut roff[1..], &bounds).into_par_iter().zip(bounds.par_windows(2)).for_each(|(count, b)| {
        for &x in tgt {
            if let Some(c) = count.get_mut((x as usize).wrapping_sub(b[0])) {
                *c += 1;
            }
        }
    });
    for v in 0..n {
        roff[v + 1] += roff[v];
    }
    let (mut rsrc, mut redge) = (vec![0u32; tgt.len()], vec![0u32; tgt.len()]);
    let slots: Vec<usize> = bounds.iter().map(|&v| roff[v] as usize).collect();
    let parts = split(&mut rsrc, &slots).into_par_iter().zip(split(&mut redge, &slots));
    parts.zip(bounds.par_windows(2)).for_each(|((src, edge), b)| {
        let mut next = roff[b[0]..b[1]].to_vec();
        let base = roff[b[0]];
        for v in 0..n {
            for e in off[v] as u32..off[v + 1] as u32 {
                if let Some(slot) = next.get_mut((tgt[e as usize] as usize).wrapping_sub(b[0])) {
                    let at = (*slot - base) as usize;
                    (src[at], edge[at]) = (v as u32, e);
                    *slot += 1;
                }
            }
        }
    });
    (roff, rsrc, redge)
}

/// `data` cut into `bounds.len() - 1` slices at the ascending offsets `bounds` (the
/// first 0, the last at most `data.len()`).
fn split<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(bounds.len());
    for b in bounds.windows(2) {
        let (part, rest) = std::mem::take(&mut data).split_at_mut(b[1] - b[0]);
        parts.push(part);
        data = rest;
    }
    parts
}

/// One component of a [`Compact`] in local ids, with the exact weights of the graph.
pub(super) struct View<'a> {
    c: &'a Compact,
    graph: &'a WeightedGraph,
    /// First compact vertex and edge, vertices.
    pub(super) vb: usize,
    pub(super) eb: usize,
    pub(super) len: usize,
}

impl Component for View<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn out_edges(&self, v: usize) -> std::ops::Range<usize> {
        self.c.off[self.vb + v] as usize - self.eb..self.c.off[self.vb + v + 1] as usize - self.eb
    }

    fn target(&self, e: usize) -> usize {
        self.c.tgt[self.eb + e] as usize - self.vb
    }

    fn weight(&self, e: usize) -> i128 {
        let w = self.graph.weight(self.c.orig[self.eb + e] as usize) as i128;
        if self.c.negate {
            -w
        } else {
            w
        }
    }

    fn time(&self, e: usize) -> i128 {
        if self.c.t.is_empty() {
            1
        } else {
            self.graph.time(self.c.orig[self.eb + e] as usize) as i128
        }
    }
}

impl View<'_> {
    /// The component as a [`Subgraph`], for the CPU Howard.
    pub(super) fn subgraph(&self) -> Result<Subgraph, CycleError> {
        let edges = self.out_edges(0).start..self.out_edges(self.len - 1).end;
        Ok(Subgraph {
            vertices: self.c.verts[self.vb..self.vb + self.len].to_vec(),
            offsets: (0..=self.len).map(|v| self.c.off[self.vb + v] as usize - self.eb).collect(),
            targets: edges.clone().map(|e| self.target(e) as u32).collect(),
            weights: edges
                .clone()
                .map(|e| i64::try_from(self.weight(e)).map_err(|_| CycleError::Overflow))
                .collect::<Result<_, _>>()?,
            times: edges.clone().map(|e| self.time(e) as i64).collect(),
            edge_ids: edges.map(|e| self.c.orig[self.eb + e] as usize).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certificate::certify;
    use crate::components::{scc, subgraphs};
    use crate::howard;
    use crate::Arc as Edge;

    fn graph(n: u64, arcs: &[(u32, u32, i64, i64)]) -> WeightedGraph {
        let arcs: Vec<Edge> =
            arcs.iter().map(|&(source, target, weight, time)| Edge { source, target, weight, time }).collect();
        WeightedGraph::from_arcs(n, &arcs).unwrap()
    }

    #[test]
    fn the_compact_layout_keeps_components_apart_and_reverses_every_edge() {
        // Components {0, 1} (a 2-cycle with a parallel edge), {3} (a self-loop); 2 has no cycle.
        let g = graph(4, &[(0, 1, 5, 1), (1, 0, -2, 2), (0, 1, 7, 3), (1, 2, 1, 1), (3, 3, 4, 1), (2, 3, 0, 1)]);
        let c = Compact::new(&g, &scc(&g, false), Problem::Ratio, Sense::Max).unwrap();
        assert_eq!((c.vertices(), c.edges(), c.largest, c.components()), (3, 4, 2, 2));
        assert_eq!((c.comp.clone(), c.verts.clone()), (vec![0, 0, 1], vec![0, 1, 3]));
        assert_eq!((c.vbase.clone(), c.ebase.clone()), (vec![0, 2, 3], vec![0, 3, 4]));
        assert_eq!(c.off, vec![0, 2, 3, 4]);
        assert_eq!(c.tgt, vec![1, 1, 0, 2]);
        assert_eq!(c.w, vec![-5.0, -7.0, 2.0, -4.0]); // negated for the maximum
        assert_eq!(c.t, vec![1.0, 3.0, 2.0, 1.0]);
        assert_eq!(c.orig, vec![0, 1, 2, 5]);
        assert_eq!((c.roff.clone(), c.rsrc.clone(), c.redge.clone()), sequential_reverse(&c));
        assert_eq!(c.roff, vec![0, 1, 3, 4]);
        assert!(Compact::new(&g, &scc(&g, false), Problem::Mean, Sense::Min).unwrap().t.is_empty());
        assert!(c.device_bytes() > 0);
        let min = graph(1, &[(0, 0, i64::MIN, 1)]);
        assert!(matches!(
            Compact::new(&min, &scc(&min, false), Problem::Mean, Sense::Max),
            Err(GpuHowardError::Cycle(CycleError::Overflow))
        ));
    }

    /// The reverse CSR by a sequential counting sort: the edges into each vertex, in
    /// edge order, with their sources.
    fn sequential_reverse(c: &Compact) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut into = vec![Vec::new(); c.vertices()];
        for v in 0..c.vertices() {
            for e in c.off[v]..c.off[v + 1] {
                into[c.tgt[e as usize] as usize].push((v as u32, e));
            }
        }
        let mut roff = vec![0u32];
        roff.extend(into.iter().scan(0, |sum, list| {
            *sum += list.len() as u32;
            Some(*sum)
        }));
        let (rsrc, redge) = into.into_iter().flatten().unzip();
        (roff, rsrc, redge)
    }

    /// The views of the compact layout are the CPU's subgraphs, component by
    /// component, and certify what the CPU certifies.
    #[test]
    fn views_are_the_cpu_subgraphs() {
        let mut seed = 7u64;
        let mut next = |k: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % k
        };
        for round in 0..200 {
            let n = 1 + next(30);
            let arcs: Vec<(u32, u32, i64, i64)> = (0..next(3 * n + 1))
                .map(|_| (next(n) as u32, next(n) as u32, next(21) as i64 - 10, 1 + next(3) as i64))
                .collect();
            let g = graph(n, &arcs);
            for (problem, sense) in [(Problem::Mean, Sense::Min), (Problem::Ratio, Sense::Max)] {
                let comps = scc(&g, false);
                let subs = subgraphs(&g, &comps, problem, sense, false).unwrap();
                let c = Compact::new(&g, &comps, problem, sense).unwrap();
                assert_eq!(c.components(), subs.len(), "round {round}");
                let off: Vec<u64> = c.off.iter().map(|&o| o as u64).collect();
                let blocks = 1 + round % 5;
                let pool = rayon::ThreadPoolBuilder::new().num_threads(blocks).build().unwrap();
                assert_eq!(pool.install(|| reverse(&off, &c.tgt)), sequential_reverse(&c), "round {round}");
                for (i, sub) in subs.iter().enumerate() {
                    let view = c.view(&g, i);
                    let copy = view.subgraph().unwrap();
                    assert_eq!(copy.vertices, sub.vertices);
                    assert_eq!(copy.offsets, sub.offsets);
                    assert_eq!(copy.targets, sub.targets);
                    assert_eq!(copy.weights, sub.weights);
                    assert_eq!(copy.times, sub.times);
                    assert_eq!(copy.edge_ids, sub.edge_ids);
                    // Howard's cycle with every other vertex on its first edge: both
                    // layouts must give the same verdict.
                    let (cycle, _) = howard::howard(sub, false).unwrap();
                    let mut policy: Vec<usize> = (0..sub.len()).map(|v| sub.out_edges(v).start).collect();
                    for &e in &cycle {
                        policy[sub.source(e)] = e;
                    }
                    let s = sub.source(cycle[0]);
                    assert_eq!(certify(&view, &policy, s), certify(sub, &policy, s), "round {round}");
                }
            }
        }
    }
}
