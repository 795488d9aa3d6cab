//! Young–Tarjan–Orlin: parametric shortest paths for the minimum cycle ratio (and
//! mean) of one strongly connected [`Subgraph`] (N. E. Young, R. E. Tarjan,
//! J. B. Orlin, *Faster parametric shortest path and minimum-balance algorithms*,
//! Networks 21, 1991).
//!
//! A virtual root reaches every vertex by an edge of weight 0 and time 0. For a
//! parameter λ, `d(v) = a(v) − λ·b(v)` is the distance in the shortest-path tree
//! under the weights `w − λ·t`, with `a` and `b` the weight and time of the tree path.
//! λ starts at −∞, where the tree is the star from the root, refined by the edges of
//! time 0 (they form a DAG: a zero-time cycle is rejected before; its shortest paths
//! are found in topological order). Raising λ, a non-tree edge `(u, v)` becomes tight
//! at `λ = (a(u) + w − a(v)) / (b(u) + t − b(v))` when the denominator is positive;
//! the heap gives the smallest such λ. If `v` is an ancestor of `u`, the tree path
//! `v → u` and the edge close a cycle of ratio λ: the minimum. Otherwise `v`'s subtree
//! moves under `u` (its `a` and `b` shift) and the keys of the edges entering or
//! leaving the subtree change.
//!
//! Exact: `a`, `b` and the keys are `i128`; keys compare as exact fractions.
//! The heap holds edges (the Karp–Orlin arrangement, O(nm log n)); YTO's refinement
//! of one heap entry per vertex (O(nm + n² log n)) is not implemented. Subtrees are
//! walked with an explicit stack.

use crate::components::Subgraph;
use crate::heap::EdgeHeap;
use crate::ratio::Overflow;
use crate::CycleError;

const NONE: u32 = u32::MAX;

struct Tree {
    /// Parent vertex (`n` is the virtual root) and the tree edge into each vertex.
    parent: Vec<u32>,
    parent_edge: Vec<usize>,
    first_child: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl Tree {
    fn unlink(&mut self, v: usize) {
        let (p, n, pr) = (self.parent[v] as usize, self.next[v], self.prev[v]);
        if pr == NONE {
            self.first_child[p] = n;
        } else {
            self.next[pr as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = pr;
        }
    }

    fn link(&mut self, v: usize, p: usize) {
        self.parent[v] = p as u32;
        let f = self.first_child[p];
        self.next[v] = f;
        self.prev[v] = NONE;
        if f != NONE {
            self.prev[f as usize] = v as u32;
        }
        self.first_child[p] = v as u32;
    }
}

/// A minimum-ratio cycle of the strongly connected `sub`: its local edges in order.
pub fn yto(sub: &Subgraph) -> Result<Vec<usize>, CycleError> {
    let n = sub.len();
    let m = sub.edges();
    let mut sources = vec![0u32; m];
    for v in 0..n {
        sources[sub.out_edges(v)].iter_mut().for_each(|s| *s = v as u32);
    }
    let (rev_offsets, rev_edges) = sub.reverse();
    let mut a = vec![0i128; n];
    let mut b = vec![0i128; n];
    let mut tree = Tree {
        parent: vec![n as u32; n],
        parent_edge: vec![usize::MAX; n],
        first_child: vec![NONE; n + 1],
        next: vec![NONE; n],
        prev: vec![NONE; n],
    };
    // λ = −∞: shortest paths of time 0 (a DAG), in topological order.
    let order = sub
        .cycle_or_order(|_, e| sub.times[e] == 0)
        .map_err(|_| CycleError::Internal("a zero-time cycle reached Young-Tarjan-Orlin".into()))?;
    for &v in &order {
        let v = v as usize;
        for e in sub.out_edges(v) {
            let t = sub.targets[e] as usize;
            if sub.times[e] == 0 {
                let c = a[v].checked_add(sub.weights[e] as i128).ok_or(Overflow)?;
                if c < a[t] {
                    a[t] = c;
                    tree.parent[t] = v as u32;
                    tree.parent_edge[t] = e;
                }
            }
        }
    }
    for v in 0..n {
        let p = tree.parent[v] as usize;
        tree.link(v, p);
    }
    let key = |a: &[i128], b: &[i128], e: usize| -> Result<Option<(i128, i128)>, Overflow> {
        let (u, v) = (sources[e] as usize, sub.targets[e] as usize);
        let db = b[u].checked_add(sub.times[e] as i128).and_then(|x| x.checked_sub(b[v])).ok_or(Overflow)?;
        if db <= 0 {
            return Ok(None);
        }
        let da = a[u].checked_add(sub.weights[e] as i128).and_then(|x| x.checked_sub(a[v])).ok_or(Overflow)?;
        Ok(Some((da, db)))
    };
    let mut heap = EdgeHeap::new(m);
    for e in 0..m {
        heap.set(e, key(&a, &b, e)?);
    }
    let mut stamp = vec![0u32; n];
    let mut generation = 0u32;
    let mut subtree: Vec<usize> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    while let Some(e) = heap.pop() {
        let (u, v) = (sources[e] as usize, sub.targets[e] as usize);
        let (da, db) = heap.key(e);
        generation += 1;
        subtree.clear();
        stack.push(v);
        while let Some(x) = stack.pop() {
            stamp[x] = generation;
            subtree.push(x);
            let mut c = tree.first_child[x];
            while c != NONE {
                stack.push(c as usize);
                c = tree.next[c as usize];
            }
        }
        if stamp[u] == generation {
            // v is an ancestor of u (or u itself): the tree path v -> u, then e.
            let mut cycle = vec![e];
            let mut x = u;
            while x != v {
                let f = tree.parent_edge[x];
                cycle.push(f);
                x = tree.parent[x] as usize;
            }
            cycle.reverse();
            return Ok(cycle);
        }
        for &x in &subtree {
            a[x] = a[x].checked_add(da).ok_or(Overflow)?;
            b[x] = b[x].checked_add(db).ok_or(Overflow)?;
        }
        tree.unlink(v);
        tree.link(v, u);
        tree.parent_edge[v] = e;
        for &x in &subtree {
            for f in sub.out_edges(x) {
                if stamp[sub.targets[f] as usize] != generation {
                    heap.set(f, key(&a, &b, f)?);
                }
            }
            for &f in &rev_edges[rev_offsets[x]..rev_offsets[x + 1]] {
                if stamp[sources[f] as usize] != generation {
                    heap.set(f, key(&a, &b, f)?);
                }
            }
        }
    }
    Err(CycleError::Internal("Young-Tarjan-Orlin found no cycle in a cyclic component".into()))
}
