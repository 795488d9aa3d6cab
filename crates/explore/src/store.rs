//! A sequential state store: states packed back to back in one arena, indexed by a
//! hash table of arena positions. States get dense ids in insertion order, so a
//! breadth-first search's queue is simply the id range not yet expanded.

use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::Hasher;

/// Dense id of a stored state.
pub type StateId = u32;

/// Stores distinct fixed-length states and gives each a dense id.
pub struct StateStore {
    words: usize,
    arena: Vec<u32>,
    table: HashTable<StateId>,
}

fn hash(state: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    for &w in state {
        h.write_u32(w);
    }
    h.finish()
}

impl StateStore {
    pub fn new(words: usize) -> Self {
        StateStore { words, arena: Vec::new(), table: HashTable::new() }
    }

    /// Number of stored states.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The state with id `id`.
    pub fn get(&self, id: StateId) -> &[u32] {
        let start = id as usize * self.words;
        &self.arena[start..start + self.words]
    }

    /// Inserts `state` if new. Returns its id and whether it was new.
    pub fn insert(&mut self, state: &[u32]) -> (StateId, bool) {
        debug_assert_eq!(state.len(), self.words);
        let h = hash(state);
        let (arena, words) = (&self.arena, self.words);
        let slice = |id: StateId| &arena[id as usize * words..(id as usize + 1) * words];
        if let Some(&id) = self.table.find(h, |&id| slice(id) == state) {
            return (id, false);
        }
        let id = self.table.len() as StateId;
        self.arena.extend_from_slice(state);
        let (arena, words) = (&self.arena, self.words);
        self.table.insert_unique(h, id, |&id| hash(&arena[id as usize * words..(id as usize + 1) * words]));
        (id, true)
    }

    /// The states back to back in id order (`words` words each).
    pub fn into_states(self) -> Vec<u32> {
        self.arena
    }

    /// Bytes used by the arena and the table.
    pub fn bytes(&self) -> usize {
        self.arena.capacity() * 4 + self.table.capacity() * (std::mem::size_of::<StateId>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_ids_in_insertion_order() {
        let mut s = StateStore::new(2);
        assert_eq!(s.insert(&[1, 2]), (0, true));
        assert_eq!(s.insert(&[2, 1]), (1, true));
        assert_eq!(s.insert(&[1, 2]), (0, false));
        assert_eq!(s.get(1), &[2, 1]);
        assert_eq!(s.len(), 2);
        for i in 0..10_000u32 {
            s.insert(&[i, i * 7]);
        }
        assert_eq!(s.len(), 10_002);
        assert_eq!(s.insert(&[9_999, 69_993]), (10_001, false));
    }
}
