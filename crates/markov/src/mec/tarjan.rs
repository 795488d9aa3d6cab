//! Tarjan's SCC algorithm restricted to a set of states and a set of rows, iterative.
//!
//! The graph is the model's state graph seen through a row filter: `s → t` is an edge
//! iff some row `r` of `s` with `allowed(r)` has `t` among its targets. The caller
//! guarantees that an allowed row of a state in the set has all its targets in the set
//! (the MEC decomposition allows exactly the rows that stay inside the candidate), so
//! the search never leaves the set and needs no per-edge membership test.
//!
//! The depth-first search keeps its own stack of frames (state, current row, next
//! entry; 24 bytes) instead of recursing, so a chain of 10^8 states needs memory, not
//! thread stack. `index` and `low` are per-state arrays shared by concurrent searches
//! over disjoint sets (each search touches only its own states, hence relaxed atomics).
//! A state is unvisited iff `index == UNSEEN`, on Tarjan's stack iff visited with
//! `low != ASSIGNED`, and assigned to a component iff `low == ASSIGNED`.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::SparseModel;

/// `index` of a state not visited yet.
pub(crate) const UNSEEN: u32 = u32::MAX;
/// `low` of a state whose component has been emitted.
const ASSIGNED: u32 = u32::MAX;

/// A depth-first search frame: state `v` is reading row `row`, whose next entry is
/// `entry` (`entry` is the row's end when the row is exhausted or not allowed).
struct Frame {
    v: u32,
    row: u64,
    entry: u64,
}

/// Reusable buffers of one search (kept per worker thread across candidates).
#[derive(Default)]
pub(crate) struct Scratch {
    frames: Vec<Frame>,
    stack: Vec<u32>,
    component: Vec<u32>,
}

/// The SCCs of the subgraph on `states` (all with `index == UNSEEN`) along the rows
/// `allowed` accepts. `emit` receives each component's states, in the order Tarjan
/// completes them (reverse topological); the component's root, the state on which it
/// was completed, comes last.
pub(crate) fn tarjan(
    model: &SparseModel,
    states: &[u32],
    allowed: impl Fn(u64) -> bool,
    index: &[AtomicU32],
    low: &[AtomicU32],
    scratch: &mut Scratch,
    mut emit: impl FnMut(&[u32]),
) {
    let Scratch { frames, stack, component } = scratch;
    frames.clear();
    stack.clear();
    let (row_groups, row_starts, columns) = (&model.row_groups, &model.row_starts, &model.columns);
    let frame = |v: u32| {
        let row = row_groups[v as usize];
        let entry = if row < row_groups[v as usize + 1] {
            if allowed(row) {
                row_starts[row as usize]
            } else {
                row_starts[row as usize + 1]
            }
        } else {
            0
        };
        Frame { v, row, entry }
    };
    // The next successor of the frame's state, moving on to its next allowed row.
    let next = |f: &mut Frame| -> Option<u32> {
        let row_end = row_groups[f.v as usize + 1];
        while f.row < row_end {
            if f.entry < row_starts[f.row as usize + 1] {
                let w = columns[f.entry as usize];
                f.entry += 1;
                return Some(w);
            }
            f.row += 1;
            if f.row < row_end {
                f.entry = if allowed(f.row) { row_starts[f.row as usize] } else { row_starts[f.row as usize + 1] };
            }
        }
        None
    };
    let mut counter = 0u32;
    for &root in states {
        if index[root as usize].load(Relaxed) != UNSEEN {
            continue;
        }
        index[root as usize].store(counter, Relaxed);
        low[root as usize].store(counter, Relaxed);
        counter += 1;
        stack.push(root);
        frames.push(frame(root));
        while let Some(f) = frames.last_mut() {
            let v = f.v as usize;
            if let Some(w) = next(f) {
                let w = w as usize;
                let iw = index[w].load(Relaxed);
                if iw == UNSEEN {
                    index[w].store(counter, Relaxed);
                    low[w].store(counter, Relaxed);
                    counter += 1;
                    stack.push(w as u32);
                    frames.push(frame(w as u32));
                } else if low[w].load(Relaxed) != ASSIGNED && iw < low[v].load(Relaxed) {
                    low[v].store(iw, Relaxed);
                }
                continue;
            }
            frames.pop();
            let low_v = low[v].load(Relaxed);
            if low_v == index[v].load(Relaxed) {
                component.clear();
                loop {
                    let w = stack.pop().expect("v is on Tarjan's stack");
                    low[w as usize].store(ASSIGNED, Relaxed);
                    component.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                emit(component);
            } else if let Some(parent) = frames.last() {
                let p = parent.v as usize;
                if low_v < low[p].load(Relaxed) {
                    low[p].store(low_v, Relaxed);
                }
            }
        }
    }
}
