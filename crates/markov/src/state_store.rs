//! The builder's state store: state vectors in one flat arena, numbered in insertion
//! order, found through an open-addressing table of their numbers.

use rustc_hash::FxHasher;
use std::hash::Hasher;

/// States as indices into a flat arena, found by an open-addressing table.
pub struct StateStore {
    words: usize,
    arena: Vec<u32>,
    /// Indices + 1 (0 is empty); a power-of-two length.
    table: Vec<u32>,
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

    fn hash(state: &[u32]) -> u64 {
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
        if (self.len + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut at = Self::hash(state) as usize & mask;
        loop {
            match self.table[at] {
                0 => {
                    let id = self.len as u32;
                    self.table[at] = id + 1;
                    self.arena.extend_from_slice(state);
                    self.len += 1;
                    return (id, true);
                }
                slot => {
                    if self.get(slot - 1) == state {
                        return (slot - 1, false);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let mut table = vec![0u32; self.table.len() * 2];
        let mask = table.len() - 1;
        for id in 0..self.len as u32 {
            let mut at = Self::hash(self.get(id)) as usize & mask;
            while table[at] != 0 {
                at = (at + 1) & mask;
            }
            table[at] = id + 1;
        }
        self.table = table;
    }
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
