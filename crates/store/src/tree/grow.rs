//! Growth in place: every state of a [`TreeStore`] moved into a larger one, with the
//! old id → new id map that lets an engine remap the ids it holds (queues, stacks,
//! parent links, vertex maps) and go on where it was, exploring nothing twice.
//!
//! The states are the entries marked in the root bitmap; entries that are no state's
//! node (left by an insertion that failed halfway) are not moved. A state is moved
//! by moving its tree bottom up: a node's new entry is the pair of its children's new
//! entries (words stay as they are). Subtrees are shared between states, so each
//! moved subtree is remembered, per old entry, with the number of words under it:
//! the shape of a subtree depends only on that number, while the same entry may
//! stand for subtrees of different sizes (equal pairs of different meaning), in which
//! case the first size stays remembered and the others are moved again each time.
//! Most states then cost one new entry (their root) and two lookups of the memo. The
//! states of a batch are moved together, node by node of the shape, with prefetches,
//! so that their cache misses overlap.
//!
//! Workers claim ranges of the root bitmap; they agree on every entry because
//! insertion is insert-or-find, and the memo is only a shortcut.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use super::{pair, Child, TreeStore};
use crate::table::{prefetch, TableFull};
use crate::zeroed::ZeroedSlice;

/// A store grown from another ([`TreeStore::grown`]).
pub struct Grown {
    pub store: TreeStore,
    /// The new id of each state of the old store.
    pub remap: Remap,
    /// States moved, and table entries they use in the new store.
    pub states: u64,
    pub entries: u64,
}

/// The new id of each state of a store that grew.
pub struct Remap {
    ids: ZeroedSlice<AtomicU32>,
}

impl Remap {
    /// The new id of the state whose id was `old` (meaningless for other ids).
    #[inline]
    pub fn get(&self, old: u32) -> u32 {
        self.ids[old as usize].load(Relaxed)
    }

    /// Replaces each old state id of `ids` by its new id.
    pub fn apply(&self, ids: &mut [u32]) {
        for id in ids.iter_mut() {
            *id = self.get(*id);
        }
    }
}

/// Bitmap words claimed at once (64 entries each).
const CLAIM: usize = 256;
/// Roots moved together, so that their memory accesses overlap.
const BATCH: usize = 32;

/// What the workers of one growth share.
struct Move<'a> {
    old: &'a TreeStore,
    new: &'a TreeStore,
    /// Per old entry: `words << 32 | new entry` of the subtree moved from it, 0 if none.
    memo: ZeroedSlice<AtomicU64>,
    remap: Remap,
    claimed: AtomicUsize,
}

impl TreeStore {
    /// Moves every state into a new store of `2^log2_capacity` entries on `threads`
    /// threads; the new store is independent of this one, which may be dropped after.
    /// Fails only if the new table has no room for them all.
    pub fn grown(&self, log2_capacity: u32, threads: usize) -> Result<Grown, TableFull> {
        let new = TreeStore::with_order(self.order.clone(), log2_capacity);
        let capacity = self.table.capacity() as usize;
        let job = Move {
            old: self,
            new: &new,
            // States of one node (up to two words) share no subtrees: no memo.
            memo: ZeroedSlice::new(if self.shape.len() > 1 { capacity } else { 0 }),
            remap: Remap { ids: ZeroedSlice::new(capacity) },
            claimed: AtomicUsize::new(0),
        };
        let totals: Vec<Result<(u64, u64), TableFull>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(|| job.work())).collect();
            handles.into_iter().map(|h| h.join().expect("a growth worker panicked")).collect()
        });
        let (mut states, mut entries) = (0, 0);
        for total in totals {
            let (s, e) = total?;
            states += s;
            entries += e;
        }
        let remap = job.remap;
        Ok(Grown { store: new, remap, states, entries })
    }
}

impl Move<'_> {
    /// One worker: claims ranges of the root bitmap and moves their states. Returns the
    /// states moved and the entries created.
    fn work(&self) -> Result<(u64, u64), TableFull> {
        let bitmap = &self.old.roots;
        let (mut states, mut entries) = (0u64, 0u64);
        let mut roots = Vec::with_capacity(BATCH);
        let mut scratch = Scratch::default();
        loop {
            let begin = self.claimed.fetch_add(CLAIM, Relaxed);
            if begin >= bitmap.len() {
                break;
            }
            for (i, word) in bitmap[begin..(begin + CLAIM).min(bitmap.len())].iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    roots.push(((begin + i) * 64) as u32 + bits.trailing_zeros());
                    bits &= bits - 1;
                    if roots.len() == BATCH {
                        entries += self.move_roots(&roots, &mut scratch)?;
                        states += BATCH as u64;
                        roots.clear();
                    }
                }
            }
        }
        entries += self.move_roots(&roots, &mut scratch)?;
        states += roots.len() as u64;
        Ok((states, entries))
    }

    /// Moves the states `roots` together, one node of the shape at a time across the
    /// batch (each round prefetched first, so that the cache misses of the batch
    /// overlap): top down, each node's subtree is found in the memo or read from the
    /// old table; bottom up, the nodes to move get their new entries. Returns the
    /// entries created.
    fn move_roots(&self, roots: &[u32], scratch: &mut Scratch) -> Result<u64, TableFull> {
        let (old, new, shape) = (self.old, self.new, &self.old.shape);
        let (nodes, n) = (shape.len(), roots.len());
        let root = nodes - 1;
        let Scratch { entry, value, moved, todo } = scratch;
        for v in [&mut *entry, &mut *moved] {
            v.clear();
            v.resize(n * nodes, 0);
        }
        value.clear();
        value.resize(n * nodes, 0);
        todo.clear();
        todo.resize(n * nodes, Todo::Skip);
        for (s, &r) in roots.iter().enumerate() {
            entry[s * nodes + root] = r;
            todo[s * nodes + root] = Todo::Move;
        }
        // Top down (in postorder a node comes after its children).
        for k in (0..nodes).rev() {
            let tag = (shape[k].words as u64) << 32;
            for s in 0..n {
                if todo[s * nodes + k] == Todo::Move {
                    let x = entry[s * nodes + k];
                    if k != root {
                        prefetch(&self.memo[x as usize]);
                    }
                    old.table.prefetch_index(x);
                }
            }
            for s in 0..n {
                let i = s * nodes + k;
                if todo[i] != Todo::Move {
                    continue;
                }
                let x = entry[i];
                let known = if k == root { 0 } else { self.memo[x as usize].load(Relaxed) };
                if known != 0 && known & !0xffff_ffff == tag {
                    (todo[i], moved[i]) = (Todo::Known, known as u32);
                    continue;
                }
                value[i] = old.table.get(x);
                for (half, child) in halves(value[i], shape[k].left, shape[k].right) {
                    if let Child::Node(c) = child {
                        (entry[s * nodes + c], todo[s * nodes + c]) = (half, Todo::Move);
                    }
                }
            }
        }
        // Bottom up: children before their parents.
        let mut created = 0;
        for (k, &node) in shape.iter().enumerate() {
            for s in 0..n {
                let i = s * nodes + k;
                if todo[i] == Todo::Move {
                    let new_half = |(half, child): (u32, Child)| match child {
                        Child::Node(c) => moved[s * nodes + c],
                        Child::Word(_) | Child::Zero => half,
                    };
                    let [l, r] = halves(value[i], node.left, node.right);
                    value[i] = pair(new_half(l), new_half(r));
                    new.table.prefetch(value[i]);
                }
            }
            let tag = (node.words as u64) << 32;
            for s in 0..n {
                let i = s * nodes + k;
                if todo[i] == Todo::Move {
                    let (id, fresh) = new.table.find_or_insert(value[i])?;
                    created += fresh as u64;
                    moved[i] = id;
                    if k != root {
                        // Another worker may have moved it meanwhile: to the same entry,
                        // or as a subtree of another size (then this one is not kept).
                        let _ = self.memo[entry[i] as usize].compare_exchange(0, tag | id as u64, Relaxed, Relaxed);
                    }
                }
            }
        }
        for s in 0..n {
            prefetch(&new.roots[moved[s * nodes + root] as usize / 64]);
        }
        for (s, &r) in roots.iter().enumerate() {
            let id = moved[s * nodes + root];
            new.roots[id as usize / 64].fetch_or(1 << (id % 64), Relaxed);
            self.remap.ids[r as usize].store(id, Relaxed);
        }
        Ok(created)
    }
}

/// What a node of a state of the batch needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Todo {
    /// Nothing: it lies under a subtree already moved.
    Skip,
    /// Its subtree was moved before (the memo said where).
    Known,
    /// It must be moved.
    Move,
}

/// The per-worker buffers of [`Move::move_roots`]: per (state of the batch, node of
/// the shape), the old entry, its value (then the new value), the new entry, and what
/// it needs.
#[derive(Default)]
struct Scratch {
    entry: Vec<u32>,
    value: Vec<u64>,
    moved: Vec<u32>,
    todo: Vec<Todo>,
}

/// The two halves of a node's `value` with the kinds of its children.
#[inline]
fn halves(value: u64, left: Child, right: Child) -> [(u32, Child); 2] {
    [((value >> 32) as u32, left), (value as u32, right)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts `count` pseudo-random states of `words` words, some sharing subtrees,
    /// into a store with the words at its leaves in reverse when `reversed`.
    fn filled_with(words: usize, log2: u32, count: u32, reversed: bool) -> (TreeStore, Vec<(Vec<u32>, u32)>) {
        let order = if reversed { (0..words).rev().collect() } else { (0..words).collect() };
        let store = TreeStore::with_order(order, log2);
        let mut states = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..count {
            let state: Vec<u32> = (0..words)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 5) as u32
                })
                .collect();
            let (id, new, _) = store.insert_fresh(&state).unwrap();
            if new {
                states.push((state, id));
            }
        }
        (store, states)
    }

    fn filled(words: usize, log2: u32, count: u32) -> (TreeStore, Vec<(Vec<u32>, u32)>) {
        filled_with(words, log2, count, false)
    }

    #[test]
    fn growth_moves_every_state_and_nothing_else() {
        for words in [1usize, 2, 3, 5, 8, 13] {
            for (threads, reversed) in [(1, false), (3, false), (2, true)] {
                let (old, states) = filled_with(words, 14, 3000, reversed);
                // A half-done insertion: nodes of no state, which are not moved.
                let stray = pair(u32::MAX - 3, u32::MAX - 4);
                old.table.find_or_insert(stray).unwrap();
                let grown = old.grown(17, threads).unwrap();
                assert_eq!(grown.states, states.len() as u64, "{words} words");
                let mut cursor = grown.store.cursor();
                for (state, id) in &states {
                    let moved = grown.remap.get(*id);
                    grown.store.load(moved, &mut cursor);
                    assert_eq!(&cursor.words, state);
                    let (again, new, created) = grown.store.insert_fresh(state).unwrap();
                    assert_eq!((again, new, created), (moved, false, 0), "{words} words: {state:?}");
                }
                assert_eq!(grown.entries, grown.store.table.occupied(), "entries counted");
                assert_eq!(grown.store.table.find(stray), None, "the stray node stays behind");
            }
        }
    }

    #[test]
    fn an_entry_standing_for_subtrees_of_two_sizes_moves_right() {
        // In A the entry L = (i, j) is the node over words 0..4, its halves the entries
        // i = (1, 2) and j = (3, 4); B's words 0 and 1 are i and j, so L is also B's
        // node over words 0..2: the same entry, moved differently in each.
        let old = TreeStore::new(8, 10);
        let (a, _, _) = old.insert_fresh(&[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let mut c = old.cursor();
        old.load(a, &mut c);
        let (i, j, l) = (c.refs[0], c.refs[1], c.refs[2]);
        let b_state = [i, j, 0, 0, 0, 0, 0, 0];
        let (b, _, _) = old.insert_fresh(&b_state).unwrap();
        old.load(b, &mut c);
        assert_eq!(c.refs[0], l, "the shared entry");
        for threads in [1, 2] {
            let grown = old.grown(13, threads).unwrap();
            let mut cursor = grown.store.cursor();
            grown.store.load(grown.remap.get(a), &mut cursor);
            assert_eq!(cursor.words, [1, 2, 3, 4, 5, 6, 7, 8]);
            grown.store.load(grown.remap.get(b), &mut cursor);
            assert_eq!(cursor.words, b_state);
        }
    }

    #[test]
    fn a_new_table_too_small_is_an_error() {
        let (old, _) = filled(3, 14, 3000);
        assert!(old.grown(6, 2).is_err());
    }
}
