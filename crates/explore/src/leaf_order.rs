//! Which word of a state each leaf of a tree-compressed store holds (the CPU engine's
//! `TreeStore`, the GPU's compressed store). The tree's shape is fixed by the number
//! of words (balanced, the left half the smaller), but how much its nodes are
//! shared depends on which words meet under a node: words that change together (a
//! process's program counter and its variables, a channel's length and contents) are
//! best kept under one node, so that the nodes above unrelated words take few values.
//! On BEEM's bakery.7 the GPU store keeps 1.01 inner nodes per state in the words' own
//! order, 0.045 in the order found here; leader_filters.7: 0.25 and 0.029
//! (`benches/results/gpu-compressed-h100.md`).
//!
//! The order is found on a breadth-first sample of the model's states by local search:
//! swaps of two leaves, kept when they lower the number of distinct nodes the sample
//! makes, until no swap does or a budget of node counts is spent (so wide states cost
//! a bounded time). It is deterministic: the same model gives the same order, so the
//! generated source (and its compilation cache entry) is the same from run to run.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use warpcheck_model::{Model, Successors};

use crate::gpu::tree::{inner_nodes, inner_ranges};

/// States sampled to size the compressed store and choose its leaf order.
pub const TREE_SAMPLE: usize = 100_000;
/// The first states of the sample the order search counts nodes on.
const ORDER_SAMPLE: usize = 20_000;
/// The most word sets the order search counts distinct values of (each a pass over
/// [`ORDER_SAMPLE`] states).
const ORDER_BUDGET: usize = 1_500;

/// The leaf order of `model`'s stores: [`TreeSample::leaf_order`] on its first
/// [`ORDER_SAMPLE`] states (the search reads no more, so a larger sample, as the GPU
/// engine's of [`TREE_SAMPLE`], gives the same order).
pub fn for_model<M: Model>(model: &M) -> Vec<usize> {
    TreeSample::of(model, ORDER_SAMPLE).leaf_order()
}

/// The first states of a model in breadth-first order, each padded to its words.
pub struct TreeSample {
    words: usize,
    states: Vec<Vec<u32>>,
}

impl TreeSample {
    /// The first `n` states of `model` in breadth-first order.
    pub fn of<M: Model>(model: &M, n: usize) -> TreeSample {
        let words = model.state_words().max(1);
        let mut seen: HashSet<Vec<u32>> = HashSet::default();
        let mut queue: VecDeque<Vec<u32>> = VecDeque::new();
        let mut states = Vec::new();
        let mut successors = model.successors();
        for mut state in model.initial_states() {
            state.resize(words, 0);
            if seen.len() < n && seen.insert(state.clone()) {
                queue.push_back(state);
            }
        }
        while let Some(state) = queue.pop_front() {
            if seen.len() < n {
                successors.successors(&state, |_, next| {
                    if let Ok(next) = next {
                        let mut next = next.to_vec();
                        next.resize(words, 0);
                        if seen.len() < n && seen.insert(next.clone()) {
                            queue.push_back(next);
                        }
                    }
                });
            }
            states.push(state);
        }
        TreeSample { words, states }
    }

    /// Inner nodes per state the store takes on the sample with its leaves in `order`
    /// (distinct halves by size and content, which is how the table shares them): what
    /// the store's table is sized for. Sharing grows with the states, so on the whole
    /// state space the ratio is usually lower.
    pub fn nodes_per_state(&self, order: &[usize]) -> f64 {
        let mut halves: HashSet<(usize, Vec<u32>)> = HashSet::default();
        for state in &self.states {
            for (lo, hi) in inner_ranges(self.words) {
                halves.insert((hi - lo, order[lo..hi].iter().map(|&w| state[w]).collect()));
            }
        }
        halves.len() as f64 / self.states.len().max(1) as f64
    }

    /// The leaf order: `order[leaf]` is the word at that leaf (a permutation of the
    /// words), the identity where no swap of leaves shares more nodes on the sample.
    pub fn leaf_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.words).collect();
        if inner_nodes(self.words) == 0 {
            return order; // no inner nodes (the root key is the state)
        }
        let sample = &self.states[..self.states.len().min(ORDER_SAMPLE)];
        let mut counts: HashMap<Vec<usize>, usize> = HashMap::default();
        let cost = |order: &[usize], counts: &mut HashMap<Vec<usize>, usize>| -> Option<usize> {
            let mut total = 0;
            for (lo, hi) in inner_ranges(self.words) {
                let mut set = order[lo..hi].to_vec();
                set.sort_unstable();
                total += match counts.get(&set) {
                    Some(&n) => n,
                    None if counts.len() >= ORDER_BUDGET => return None,
                    None => {
                        let n = distinct(sample, &set);
                        counts.insert(set, n);
                        n
                    }
                };
            }
            Some(total)
        };
        let Some(mut best) = cost(&order, &mut counts) else { return order };
        loop {
            let mut improved = false;
            for i in 0..self.words {
                for j in i + 1..self.words {
                    order.swap(i, j);
                    match cost(&order, &mut counts) {
                        Some(c) if c < best => (best, improved) = (c, true),
                        Some(_) => order.swap(i, j),
                        None => {
                            order.swap(i, j);
                            return order;
                        }
                    }
                }
            }
            if !improved {
                return order;
            }
        }
    }
}

/// The number of distinct values the words `set` take in `states` (by a 64-bit hash
/// of them: an estimate that only guides the search).
fn distinct(states: &[Vec<u32>], set: &[usize]) -> usize {
    let mut seen: HashSet<u64> = HashSet::default();
    for state in states {
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
        for &w in set {
            h = (h.rotate_left(23) ^ u64::from(state[w])).wrapping_mul(0xff51_afd7_ed55_8ccd);
        }
        seen.insert(h ^ h >> 29);
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample of 4-word states where words 0 and 2 always change together (and 1 and
    /// 3): the words' own order puts unrelated words under each node.
    fn planted() -> TreeSample {
        let mut states = Vec::new();
        for a in 0..100u32 {
            for b in 0..100u32 {
                states.push(vec![a, b, a + 1000, b + 5000]);
            }
        }
        TreeSample { words: 4, states }
    }

    #[test]
    fn the_order_keeps_words_that_change_together_under_one_node() {
        let sample = planted();
        let identity = [0, 1, 2, 3];
        let order = sample.leaf_order();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, identity, "a permutation of the words");
        // Pairs (0, 2) and (1, 3) under the two nodes: 100 values each, 200 nodes for
        // 10,000 states, where the identity's (0, 1) and (2, 3) take 10,000 each.
        assert_eq!(sample.nodes_per_state(&identity), 2.0);
        assert_eq!(sample.nodes_per_state(&order), 0.02);
        let pair = |a: usize, b: usize| (a.min(b), a.max(b));
        assert!([pair(order[0], order[1]), pair(order[2], order[3])].contains(&(0, 2)), "{order:?}");
    }

    #[test]
    fn narrow_states_keep_their_order() {
        for words in 1..3 {
            let sample = TreeSample { words, states: vec![vec![7; words]; 3] };
            assert_eq!(sample.leaf_order(), (0..words).collect::<Vec<_>>());
        }
    }
}
