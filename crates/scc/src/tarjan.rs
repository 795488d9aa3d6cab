//! Tarjan's SCC algorithm (SIAM J. Comput. 1972), iterative: the depth-first search
//! keeps its own stack of `(vertex, next edge)` frames instead of recursing, so its
//! depth is bounded by memory, not by the thread's stack (petgraph's recursive
//! `tarjan_scc` overflows on long chains of states).
//!
//! O(n + m) time; 12 bytes per vertex plus the two stacks. A vertex that is visited
//! but not yet assigned a component is exactly one on Tarjan's stack, so no separate
//! on-stack bit is kept.

use warpcheck_graph::Csr;

use crate::Components;

const NONE: u32 = u32::MAX;

/// The SCCs of the graph whose successor lists are `csr`.
pub fn tarjan(csr: &Csr) -> Components {
    let n = csr.vertices();
    let (offsets, targets) = (csr.offsets(), csr.targets());
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, u64)> = Vec::new();
    let mut counter = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        frames.push((root, offsets[root as usize]));
        while let Some(frame) = frames.last_mut() {
            let v = frame.0 as usize;
            if frame.1 < offsets[v + 1] {
                let w = targets[frame.1 as usize] as usize;
                frame.1 += 1;
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    frames.push((w as u32, offsets[w]));
                } else if comp[w] == NONE {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if low[v] == index[v] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    comp[w as usize] = v as u32;
                    if w as usize == v {
                        break;
                    }
                }
            }
            if let Some(&(parent, _)) = frames.last() {
                let p = parent as usize;
                low[p] = low[p].min(low[v]);
            }
        }
    }
    Components::from_labels(comp)
}
