//! The builder's state store: state vectors in one flat arena, numbered in insertion
//! order, found through an open-addressing table of their numbers.

use rustc_hash::FxHasher;
use std::hash::Hasher;

/// States as indices into a flat arena, found by an open-addressing table.
pub struct StateStore {
    words: usize,
    arena: Vec<u32>,
    /// Per slot: the low 32 bits of the state's hash (high half) and its index + 1
    /// (low half; 0 is empty). A power-of-two length of at most 2^32, so the stored
    /// hash bits place a state when the table grows, and compare before the arena is
    /// touched.
    table: Vec<u64>,
    len: usize,
}

impl StateStore {
    /// An empty store of states of `words` words.
    pub fn new(words: usize) -> StateStore {
        StateStore { words, arena: Vec::new(), table: vec![0; 1024], len: 0 }
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.len
    }

    /// State `s`.
    pub fn get(&self, s: u32) -> &[u32] {
        &self.arena[s as usize * self.words..(s as usize + 1) * self.words]
    }

    /// The hash [`StateStore::insert_hashed`] takes (any thread may compute it).
    pub fn hash(state: &[u32]) -> u64 {
        let mut h = FxHasher::default();
        for &w in state {
            h.write_u32(w);
        }
        // Spread the high bits down: the table uses the low ones.
        let x = h.finish();
        x ^ (x >> 29) ^ (x >> 43)
    }

    /// The id of `state`, inserted if new (then `true`).
    pub fn insert(&mut self, state: &[u32]) -> (u32, bool) {
        self.insert_hashed(state, Self::hash(state))
    }

    /// [`StateStore::insert`] with the state's [`StateStore::hash`] already known.
    pub fn insert_hashed(&mut self, state: &[u32], hash: u64) -> (u32, bool) {
        if (self.len + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let tag = hash & 0xffff_ffff;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.table[at];
            if slot == 0 {
                let id = self.len as u32;
                self.table[at] = (tag << 32) | (id as u64 + 1);
                self.arena.extend_from_slice(state);
                self.len += 1;
                return (id, true);
            }
            if slot >> 32 == tag {
                let id = (slot as u32) - 1;
                if same(self.get(id), state) {
                    return (id, false);
                }
            }
            at = (at + 1) & mask;
        }
    }

    fn grow(&mut self) {
        assert!(self.table.len() < 1 << 32, "the builder's state store holds at most 2^31 states");
        let mut table = vec![0u64; self.table.len() * 2];
        let mask = table.len() - 1;
        for &slot in self.table.iter().filter(|&&s| s != 0) {
            let mut at = (slot >> 32) as usize & mask;
            while table[at] != 0 {
                at = (at + 1) & mask;
            }
            table[at] = slot;
        }
        self.table = table;
    }
}

/// Word-by-word equality (states are a few words: cheaper than a `memcmp` call).
#[inline]
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_numbers_in_insertion_order_and_grows() {
        let mut store = StateStore::new(2);
        for i in 0..5000u32 {
            assert_eq!(store.insert(&[i, i ^ 7]), (i, true));
        }
        for i in 0..5000u32 {
            assert_eq!(store.insert(&[i, i ^ 7]), (i, false));
            assert_eq!(store.get(i), [i, i ^ 7]);
        }
    }
}
