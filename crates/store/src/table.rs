//! A lock-free, fixed-capacity hash set of 64-bit values: the memory of the parallel
//! state store.
//!
//! Open addressing with linear probing over `AtomicU64` entries; a value is inserted
//! with one compare-and-swap, so no reader ever sees half an entry. An entry's position
//! never changes, so it is a stable 32-bit index ([`NodeTable::get`] reads it back).
//! The table is allocated zeroed (lazily mapped by the OS); 0 marks an empty entry, so
//! values are stored plus one and the value `u64::MAX` lives in the reserved entry 0.
//!
//! Hand-written because it is the heart of the state store: no crate offers a
//! concurrent set with stable indices and insert-or-find in one CAS.
//! A full table is an error ([`TableFull`]), never a silently dropped value.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::zeroed::ZeroedSlice;

/// The table has no room left for a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the state table is full ({capacity} entries)")]
pub struct TableFull {
    pub capacity: u64,
}

/// How far a probe may run before the table is declared full.
const MAX_PROBE: usize = 1 << 12;

/// A concurrent insert-or-find set of `u64` values with stable indices.
pub struct NodeTable {
    entries: ZeroedSlice<AtomicU64>,
    mask: usize,
}

#[inline]
fn mix(v: u64) -> u64 {
    // The finaliser of MurmurHash3 / SplitMix64: every input bit affects every output bit.
    let mut x = v ^ (v >> 33);
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl NodeTable {
    /// A table of `2^log2_capacity` entries (at least 2^4, at most 2^32).
    pub fn new(log2_capacity: u32) -> Self {
        let log2 = log2_capacity.clamp(4, 32);
        let capacity = 1usize << log2;
        // A zeroed allocation: the OS maps pages only when they are first written.
        let entries = ZeroedSlice::new(capacity);
        NodeTable { entries, mask: capacity - 1 }
    }

    /// Number of entries.
    pub fn capacity(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Bytes reserved by the table.
    pub fn bytes(&self) -> u64 {
        self.capacity() * 8
    }

    /// Asks the CPU to start loading the entry where a lookup of `value` begins, so
    /// that lookups of several values can wait for memory at the same time.
    #[inline]
    pub fn prefetch(&self, value: u64) {
        let i = (mix(value) as usize) & self.mask;
        prefetch(&self.entries[i]);
    }

    /// Asks the CPU to start loading the entry at `index`.
    #[inline]
    pub fn prefetch_index(&self, index: u32) {
        prefetch(&self.entries[index as usize & self.mask]);
    }

    /// Finds `value` or inserts it. Returns its index and whether this call inserted it.
    #[inline]
    pub fn find_or_insert(&self, value: u64) -> Result<(u32, bool), TableFull> {
        let stored = value.wrapping_add(1);
        if stored == 0 {
            let was = self.entries[0].swap(1, Ordering::AcqRel);
            return Ok((0, was == 0));
        }
        let mut i = (mix(value) as usize) & self.mask;
        for _ in 0..MAX_PROBE {
            if i != 0 {
                let entry = &self.entries[i];
                let current = entry.load(Ordering::Acquire);
                if current == stored {
                    return Ok((i as u32, false));
                }
                if current == 0 {
                    match entry.compare_exchange(0, stored, Ordering::AcqRel, Ordering::Acquire) {
                        Ok(_) => return Ok((i as u32, true)),
                        Err(now) if now == stored => return Ok((i as u32, false)),
                        Err(_) => {}
                    }
                }
            }
            i = (i + 1) & self.mask;
        }
        Err(TableFull { capacity: self.capacity() })
    }

    /// The index of `value`, if it is in the table (for tests and statistics).
    pub fn find(&self, value: u64) -> Option<u32> {
        let stored = value.wrapping_add(1);
        if stored == 0 {
            return (self.entries[0].load(Ordering::Acquire) != 0).then_some(0);
        }
        let mut i = (mix(value) as usize) & self.mask;
        for _ in 0..MAX_PROBE.min(self.entries.len()) {
            match self.entries[i].load(Ordering::Acquire) {
                0 if i != 0 => return None,
                current if current == stored && i != 0 => return Some(i as u32),
                _ => i = (i + 1) & self.mask,
            }
        }
        None
    }

    /// The value at `index`, which must come from [`find_or_insert`](Self::find_or_insert).
    #[inline]
    pub fn get(&self, index: u32) -> u64 {
        if index == 0 {
            return u64::MAX;
        }
        self.entries[index as usize].load(Ordering::Acquire).wrapping_sub(1)
    }

    /// Counts the occupied entries (a full scan: for statistics, not hot paths).
    pub fn occupied(&self) -> u64 {
        self.entries.iter().filter(|e| e.load(Ordering::Relaxed) != 0).count() as u64
    }
}

/// Starts loading the cache line holding `item`.
#[inline]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint and never faults; the pointer is valid anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch(item as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_inserted() {
        let t = NodeTable::new(10);
        let (a, new) = t.find_or_insert(42).unwrap();
        assert!(new);
        assert_eq!(t.find_or_insert(42).unwrap(), (a, false));
        assert_eq!(t.get(a), 42);
        for special in [0, u64::MAX, u64::MAX - 1] {
            let (i, new) = t.find_or_insert(special).unwrap();
            assert!(new);
            assert_eq!(t.get(i), special);
            assert_eq!(t.find_or_insert(special).unwrap(), (i, false));
        }
        assert_eq!(t.occupied(), 4);
        assert_eq!(t.find(42), Some(a));
        assert_eq!(t.find(u64::MAX), Some(0));
        assert_eq!(t.find(43), None);
    }

    #[test]
    fn full_table_is_an_error_not_a_loss() {
        let t = NodeTable::new(4);
        let mut inserted = 0;
        let mut full = false;
        for v in 0..100u64 {
            match t.find_or_insert(v * 7919) {
                Ok((_, true)) => inserted += 1,
                Ok((_, false)) => panic!("distinct values reported as duplicates"),
                Err(TableFull { capacity }) => {
                    assert_eq!(capacity, 16);
                    full = true;
                    break;
                }
            }
        }
        assert!(full);
        assert_eq!(inserted, 15, "every entry but the reserved one is used before giving up");
    }

    #[test]
    fn concurrent_inserts_agree() {
        let t = NodeTable::new(16);
        let results: Vec<Vec<(u32, bool)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..20_000u64).map(|v| t.find_or_insert(v * 31).unwrap()).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for v in 0..20_000usize {
            let index = results[0][v].0;
            assert!(results.iter().all(|r| r[v].0 == index), "one index per value");
            assert_eq!(results.iter().filter(|r| r[v].1).count(), 1, "exactly one inserter");
        }
    }
}
