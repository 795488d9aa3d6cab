//! Tree compression of state vectors over one [`NodeTable`] (Laarman, van de Pol and
//! Weber, "Parallel Recursive State Compression for Free", SPIN 2011).
//!
//! A state of `k` words is the leaves of a balanced binary tree; every internal node is
//! the pair of its children (a raw word for a leaf, a table index for a node) stored
//! as one 64-bit table entry. Subtrees shared between states are stored once, so a
//! state usually costs one or two new 8-byte entries. A state is identified by the
//! index of its root entry; a bitmap marks which entries are roots, which decides
//! whether a state is new (an entry may exist as an inner node of another state first).
//!
//! Successors are inserted against the tree of the state they came from
//! ([`TreeCursor`]): only the nodes above changed words are looked up again, and the
//! lookups of a whole batch of successors are made height by height, each round
//! prefetched first, so that their cache misses overlap.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::table::{NodeTable, TableFull};
use crate::zeroed::ZeroedSlice;

mod grow;
pub use grow::{Grown, Remap};

/// A child of a tree node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Child {
    /// Word `i` of the state.
    Word(usize),
    /// Node `i` of the shape (postorder).
    Node(usize),
    /// A constant zero (the right child of the root of a one-word state).
    Zero,
}

#[derive(Clone, Copy, Debug)]
struct NodeShape {
    left: Child,
    right: Child,
    /// The node above, `None` for the root.
    parent: Option<usize>,
    /// 0 for nodes over words only, else one more than the higher child.
    height: usize,
    /// The words under the node. The shape of a subtree depends only on this (halves
    /// of a range are split the same way wherever the range lies), so nodes with the
    /// same count hold the same kind of subtree.
    words: u32,
}

/// The fixed tree shape of `order.len()`-word states with word `order[leaf]` at each
/// leaf, nodes in postorder (root last), and for each word the node directly above it.
fn shape(order: &[usize]) -> (Vec<NodeShape>, Vec<usize>) {
    fn build(order: &[usize], start: usize, end: usize, nodes: &mut Vec<NodeShape>) -> (Child, usize) {
        if end - start == 1 {
            return (Child::Word(order[start]), 0);
        }
        let mid = start + (end - start) / 2;
        let (left, lh) = build(order, start, mid, nodes);
        let (right, rh) = build(order, mid, end, nodes);
        let height = match (left, right) {
            (Child::Word(_), Child::Word(_)) => 0,
            _ => lh.max(rh) + 1,
        };
        nodes.push(NodeShape { left, right, parent: None, height, words: (end - start) as u32 });
        (Child::Node(nodes.len() - 1), height)
    }
    let words = order.len();
    let mut nodes = Vec::new();
    match words {
        0 => nodes.push(NodeShape { left: Child::Zero, right: Child::Zero, parent: None, height: 0, words: 0 }),
        1 => nodes.push(NodeShape { left: Child::Word(0), right: Child::Zero, parent: None, height: 0, words: 1 }),
        k => {
            build(order, 0, k, &mut nodes);
        }
    }
    let mut above = vec![0; words];
    for i in 0..nodes.len() {
        for c in [nodes[i].left, nodes[i].right] {
            match c {
                Child::Node(n) => nodes[n].parent = Some(i),
                Child::Word(w) => above[w] = i,
                Child::Zero => {}
            }
        }
    }
    (nodes, above)
}

/// A state decompressed or inserted by one worker: its words and its tree's node
/// indices, reused to insert the state's successors incrementally.
#[derive(Clone, Debug, Default)]
pub struct TreeCursor {
    pub words: Vec<u32>,
    refs: Vec<u32>,
    valid: bool,
}

/// Reusable buffers of [`TreeStore::insert_batch`].
#[derive(Default)]
pub struct BatchScratch {
    /// Node indices of each successor's tree (`nodes` per successor).
    refs: Vec<u32>,
    /// Whether a successor's node must be looked up (`nodes` per successor).
    dirty: Vec<bool>,
    /// Per height, the (successor, node) lookups of that round.
    rounds: Vec<Vec<(u32, u32)>>,
    values: Vec<u64>,
}

/// Tree-compressed concurrent set of fixed-length states.
pub struct TreeStore {
    table: NodeTable,
    roots: ZeroedSlice<AtomicU64>,
    shape: Vec<NodeShape>,
    /// For each word, the node directly above it.
    above: Vec<usize>,
    words: usize,
    /// The word at each leaf of the tree.
    order: Vec<usize>,
}

#[inline]
fn pair(left: u32, right: u32) -> u64 {
    (left as u64) << 32 | right as u64
}

impl TreeStore {
    /// A store for `words`-word states with a table of `2^log2_capacity` entries, the
    /// words at the tree's leaves in their own order.
    pub fn new(words: usize, log2_capacity: u32) -> Self {
        Self::with_order((0..words).collect(), log2_capacity)
    }

    /// A store for states of `order.len()` words with word `order[leaf]` at each leaf
    /// of the tree (a permutation of the words: which words meet under a node decides
    /// how much the nodes are shared; see `warpcheck_explore::leaf_order`).
    pub fn with_order(order: Vec<usize>, log2_capacity: u32) -> Self {
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().enumerate().all(|(i, &w)| i == w), "a leaf order is a permutation of the words");
        let table = NodeTable::new(log2_capacity);
        let roots = ZeroedSlice::new(table.capacity().div_ceil(64) as usize);
        let (shape, above) = shape(&order);
        TreeStore { table, roots, shape, above, words: order.len(), order }
    }

    /// The word at each leaf of the tree.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Bytes reserved by the table and the root bitmap.
    pub fn reserved_bytes(&self) -> u64 {
        self.table.bytes() + self.roots.len() as u64 * 8
    }

    /// Entries the table can hold.
    pub fn capacity(&self) -> u64 {
        self.table.capacity()
    }

    /// log2 of [`capacity`](Self::capacity).
    pub fn log2_capacity(&self) -> u32 {
        self.table.capacity().trailing_zeros()
    }

    /// The ids of the stored states, in increasing order (a scan of the root bitmap).
    pub fn states(&self) -> impl Iterator<Item = u32> + '_ {
        self.roots.iter().enumerate().flat_map(|(i, word)| {
            let mut bits = word.load(Ordering::Relaxed);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let id = (i * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    id
                })
            })
        })
    }

    /// A cursor for this store's states.
    pub fn cursor(&self) -> TreeCursor {
        TreeCursor { words: vec![0; self.words], refs: vec![0; self.shape.len()], valid: false }
    }

    /// Inserts a batch of `states` (`words` each), state `s` a successor of
    /// `bases[base_of[s]]` (or of nothing, if that cursor holds no state): for each, the
    /// nodes above words that differ from its base are looked up or inserted, height by
    /// height across the batch, each round prefetched first. Pushes `(id, new)` per
    /// state to `out` and returns the number of table entries created.
    pub fn insert_batch(
        &self,
        states: &[u32],
        bases: &[TreeCursor],
        base_of: &[u32],
        batch: &mut BatchScratch,
        out: &mut Vec<(u32, bool)>,
    ) -> Result<u64, TableFull> {
        let words = self.words.max(1);
        let n = states.len() / words;
        let nodes = self.shape.len();
        let BatchScratch { refs, dirty, rounds, values } = batch;
        refs.clear();
        dirty.clear();
        dirty.resize(n * nodes, false);
        for round in rounds.iter_mut() {
            round.clear();
        }
        let height = self.shape[nodes - 1].height;
        rounds.resize_with(height + 1, Vec::new);
        for s in 0..n {
            let state = &states[s * self.words..(s + 1) * self.words];
            let base = &bases[base_of[s] as usize];
            if base.valid {
                refs.extend_from_slice(&base.refs);
                let dirty = &mut dirty[s * nodes..(s + 1) * nodes];
                for (w, (a, b)) in state.iter().zip(&base.words).enumerate() {
                    if a == b {
                        continue;
                    }
                    let mut node = Some(self.above[w]);
                    while let Some(k) = node {
                        if dirty[k] {
                            break;
                        }
                        dirty[k] = true;
                        rounds[self.shape[k].height].push((s as u32, k as u32));
                        node = self.shape[k].parent;
                    }
                }
            } else {
                refs.resize(refs.len() + nodes, 0);
                for (k, node) in self.shape.iter().enumerate() {
                    rounds[node.height].push((s as u32, k as u32));
                }
            }
        }
        let mut created = 0;
        for round in rounds.iter() {
            values.clear();
            for &(s, k) in round {
                let (s, k) = (s as usize, k as usize);
                let state = &states[s * self.words..(s + 1) * self.words];
                let child = |c: Child| match c {
                    Child::Word(w) => state[w],
                    Child::Node(m) => refs[s * nodes + m],
                    Child::Zero => 0,
                };
                let value = pair(child(self.shape[k].left), child(self.shape[k].right));
                self.table.prefetch(value);
                values.push(value);
            }
            for (&(s, k), &value) in round.iter().zip(values.iter()) {
                let (index, new) = self.table.find_or_insert(value)?;
                created += new as u64;
                refs[s as usize * nodes + k as usize] = index;
            }
        }
        let root_of = |s: usize| refs[s * nodes + nodes - 1];
        for s in 0..n {
            crate::table::prefetch(&self.roots[root_of(s) as usize / 64]);
        }
        for s in 0..n {
            let root = root_of(s);
            let bit = 1u64 << (root % 64);
            let was = self.roots[root as usize / 64].fetch_or(bit, Ordering::AcqRel);
            out.push((root, was & bit == 0));
        }
        Ok(created)
    }

    /// Inserts one state with no base (the initial state). Returns its id, whether it
    /// is new and the number of table entries created.
    pub fn insert_fresh(&self, state: &[u32]) -> Result<(u32, bool, u64), TableFull> {
        let mut out = Vec::with_capacity(1);
        let none = [TreeCursor::default()];
        let created = self.insert_batch(state, &none, &[0], &mut BatchScratch::default(), &mut out)?;
        Ok((out[0].0, out[0].1, created))
    }

    /// Decompresses the states `ids` into `cursors`, node by node across the batch so
    /// that the reads of different states overlap.
    pub fn load_batch(&self, ids: &[u32], cursors: &mut [TreeCursor]) {
        let last = self.shape.len() - 1;
        for (c, &id) in cursors.iter_mut().zip(ids) {
            c.refs[last] = id;
            c.valid = true;
        }
        for i in (0..self.shape.len()).rev() {
            let node = self.shape[i];
            for c in cursors[..ids.len()].iter_mut() {
                let value = self.table.get(c.refs[i]);
                for (child, half) in [(node.left, (value >> 32) as u32), (node.right, value as u32)] {
                    match child {
                        Child::Word(w) => c.words[w] = half,
                        Child::Node(n) => c.refs[n] = half,
                        Child::Zero => {}
                    }
                }
            }
        }
    }

    /// Decompresses the state with id `root` into `cursor`.
    pub fn load(&self, root: u32, cursor: &mut TreeCursor) {
        self.load_batch(std::slice::from_ref(&root), std::slice::from_mut(cursor));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts one successor of `base`.
    fn insert(store: &TreeStore, state: &[u32], base: &TreeCursor) -> (u32, bool) {
        let mut out = Vec::new();
        store.insert_batch(state, std::slice::from_ref(base), &[0], &mut BatchScratch::default(), &mut out).unwrap();
        out[0]
    }

    #[test]
    fn shapes_are_balanced_postorder() {
        let identity = |n: usize| (0..n).collect::<Vec<_>>();
        assert_eq!(shape(&identity(1)).0.len(), 1);
        assert_eq!(shape(&identity(2)).0.len(), 1);
        assert_eq!(shape(&identity(5)).0.len(), 4);
        let (nodes, above) = shape(&identity(49));
        assert_eq!(nodes.len(), 48);
        assert!(above
            .iter()
            .enumerate()
            .all(|(w, &k)| nodes[k].left == Child::Word(w) || nodes[k].right == Child::Word(w)));
        assert_eq!(nodes[47].height, 5);
        assert!(nodes.iter().enumerate().all(|(i, n)| n.parent.is_none_or(|p| p > i)), "postorder");
    }

    /// The words of a `words`-word state in a scrambled order (odd positions first, in
    /// reverse, then the even ones).
    fn scrambled(words: usize) -> Vec<usize> {
        (0..words).rev().filter(|w| w % 2 == 1).chain((0..words).filter(|w| w % 2 == 0)).collect()
    }

    #[test]
    fn round_trips_and_detects_duplicates() {
        for (words, scramble) in [1usize, 2, 3, 5, 8, 13].into_iter().flat_map(|w| [(w, false), (w, true)]) {
            let order = if scramble { scrambled(words) } else { (0..words).collect() };
            let store = TreeStore::with_order(order, 16);
            let mut cursor = store.cursor();
            let init: Vec<u32> = (0..words as u32).collect();
            let (root, new, _) = store.insert_fresh(&init).unwrap();
            assert!(new);
            store.load(root, &mut cursor);
            assert_eq!(cursor.words, init);
            let mut ids = std::collections::HashMap::new();
            ids.insert(init.clone(), root);
            // Successors differing in one or two words, inserted incrementally.
            for i in 0..words {
                for v in [7u32, u32::MAX, 0] {
                    let mut s = init.clone();
                    s[i] = v;
                    s[(i * 3) % words] ^= 1;
                    let (id, new) = insert(&store, &s, &cursor);
                    match ids.get(&s) {
                        Some(&known) => assert!(!new && known == id, "{s:?}"),
                        None => {
                            assert!(new, "{s:?} reported as seen");
                            ids.insert(s.clone(), id);
                        }
                    }
                    let mut back = store.cursor();
                    store.load(id, &mut back);
                    assert_eq!(back.words, s);
                }
            }
        }
    }

    #[test]
    fn a_root_first_seen_as_an_inner_node_is_a_new_state() {
        let store = TreeStore::new(4, 12);
        let mut c = store.cursor();
        let (p, _, _) = store.insert_fresh(&[5, 6, 5, 6]).unwrap();
        store.load(p, &mut c);
        let a = c.refs[0]; // the inner node (5, 6)
        let (q, _, _) = store.insert_fresh(&[7, 8, 7, 8]).unwrap();
        store.load(q, &mut c);
        let b = c.refs[0]; // the inner node (7, 8)
                           // R's inner node (a, b) is the entry that S's root will be.
        let (_, new, created) = store.insert_fresh(&[a, b, 0, 0]).unwrap();
        assert!(new);
        assert_eq!(created, 3);
        let (s, new, created) = store.insert_fresh(&[5, 6, 7, 8]).unwrap();
        assert_eq!(created, 0, "every node of S exists already");
        assert!(new, "S was never inserted as a state");
        assert_eq!(store.insert_fresh(&[5, 6, 7, 8]).unwrap(), (s, false, 0));
    }

    #[test]
    fn batch_insert_agrees_with_single_inserts() {
        for words in [1usize, 2, 3, 7] {
            // Stores with different leaf orders agree on which states are new.
            let single = TreeStore::new(words, 14);
            let batched = TreeStore::with_order(scrambled(words), 14);
            let init: Vec<u32> = (0..words as u32).map(|w| w * 3).collect();
            let (a, _, _) = single.insert_fresh(&init).unwrap();
            let (b, _, _) = batched.insert_fresh(&init).unwrap();
            let (mut ca, mut cb) = (single.cursor(), batched.cursor());
            single.load(a, &mut ca);
            batched.load(b, &mut cb);
            // Successors with duplicates inside the batch and of the base itself.
            let mut states = Vec::new();
            for k in 0..40u32 {
                let mut s = init.clone();
                s[(k as usize * 5) % words] = k % 13;
                states.extend_from_slice(&s);
            }
            states.extend_from_slice(&init);
            let mut out = Vec::new();
            let base_of = vec![0; states.len() / words];
            batched
                .insert_batch(&states, std::slice::from_ref(&cb), &base_of, &mut BatchScratch::default(), &mut out)
                .unwrap();
            let mut ids = std::collections::HashMap::new();
            for (s, &(id, new)) in states.chunks(words).zip(&out) {
                let (_, single_new) = insert(&single, s, &ca);
                assert_eq!(new, single_new, "{s:?}");
                assert_eq!(*ids.entry(s.to_vec()).or_insert(id), id, "one id per state");
                let mut back = batched.cursor();
                batched.load(id, &mut back);
                assert_eq!(back.words, s);
            }
        }
    }
}
