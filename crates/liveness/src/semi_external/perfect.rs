//! A minimal perfect hash of a set of states (PtrHash, Groot Koerkamp, SEA 2025, from
//! the `ptr_hash` crate): a bijection from the states of a file onto `0..n`, in about
//! three bits per state, whatever the states' size. The semi-external search indexes
//! its colours with it.
//!
//! The states are read from their file through a memory map, so the operating system
//! pages them in and out; each is hashed to 128 bits (XXH3), and the construction goes
//! a shard of hashes at a time. The result is checked: every state of the file gets a
//! distinct index.

use std::fs::File;

use ptr_hash::bucket_fn::Linear;
use ptr_hash::hash::Xxh3_128;
use ptr_hash::{PtrHash, PtrHashParams, Sharding};
use rayon::prelude::*;
use warpcheck_explore::disk::{DiskError, Records};

use crate::LtlError;

/// The hash in one part (sets whose hashes fit in memory at once), or in parts built a
/// shard at a time (larger sets; the crate builds small sets unreliably this way).
enum Mphf {
    Whole(PtrHash<[u8], Linear, Vec<u32>, Xxh3_128, Vec<u8>, true>),
    Sharded(PtrHash<[u8], Linear, Vec<u32>, Xxh3_128, Vec<u8>, false>),
}

impl Mphf {
    fn index(&self, key: &[u8]) -> usize {
        match self {
            Mphf::Whole(h) => h.index(key),
            Mphf::Sharded(h) => h.index(key),
        }
    }

    /// Bits per state of the pilots and of the remap table.
    fn bits_per_element(&self) -> (f64, f64) {
        match self {
            Mphf::Whole(h) => h.bits_per_element(),
            Mphf::Sharded(h) => h.bits_per_element(),
        }
    }
}

/// The fewest hashes of a shard (16 MiB of them): with 2^16, the construction failed on
/// a product of about 100,000 states split in two.
const MIN_SHARD: usize = 1 << 20;

/// The perfect hash of the states of a file.
pub struct PerfectHash {
    mphf: Mphf,
    states: u64,
    /// A state's bytes, for hashing.
    bytes: Vec<u8>,
}

impl PerfectHash {
    /// The hash of the states in `records` (distinct), built on the current rayon pool
    /// with shards of at most `shard_keys` hashes in memory (16 bytes each; at least
    /// [`MIN_SHARD`]).
    pub fn build(records: &Records, shard_keys: usize) -> Result<PerfectHash, LtlError> {
        let n = records.len() as usize;
        let record = records.words() * 4;
        let disk_error = |e| LtlError::Disk(DiskError::io(records.path(), e));
        let file = File::open(records.path()).map_err(disk_error)?;
        // SAFETY: the file is private to this search (in its own fresh directory) and
        // no longer written, so the mapped bytes do not change while they are read.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(disk_error)?;
        let keys = &map[..n * record];
        let mut params = PtrHashParams::default();
        let chunks = keys.par_chunks(record.max(1));
        // Shards of fewer keys than MIN_SHARD fail too often.
        let shard_keys = shard_keys.max(MIN_SHARD);
        let mphf = if n <= shard_keys {
            Mphf::Whole(PtrHash::new_from_par_iter(n, chunks, params))
        } else {
            params.sharding = Sharding::Memory;
            params.keys_per_shard = shard_keys;
            Mphf::Sharded(PtrHash::new_from_par_iter(n, chunks, params))
        };
        // A construction that failed leaves no pilots (and must not be queried).
        if n > 0 && mphf.bits_per_element().0 == 0.0 {
            return Err(LtlError::PerfectHash);
        }
        // Checked, a chunk of indices at a time: a bijection onto 0..n.
        let mut seen = vec![0u64; n.div_ceil(64)];
        for chunk in keys.chunks(record.max(1) << 16) {
            let indices: Vec<usize> = chunk.par_chunks(record.max(1)).map(|k| mphf.index(k)).collect();
            for i in indices {
                if i >= n || seen[i / 64] >> (i % 64) & 1 == 1 {
                    return Err(LtlError::PerfectHash);
                }
                seen[i / 64] |= 1 << (i % 64);
            }
        }
        Ok(PerfectHash { mphf, states: n as u64, bytes: Vec::new() })
    }

    /// The index of `state`, one of the set's (any index below [`Self::states`] for
    /// other states).
    pub fn index(&mut self, state: &[u32]) -> u64 {
        self.bytes.clear();
        self.bytes.extend(state.iter().flat_map(|w| w.to_le_bytes()));
        self.mphf.index(&self.bytes[..]) as u64
    }

    /// States in the set.
    pub fn states(&self) -> u64 {
        self.states
    }

    /// Bytes of the hash function.
    pub fn bytes(&self) -> u64 {
        let (pilots, remap) = self.mphf.bits_per_element();
        ((pilots + remap) * self.states as f64 / 8.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_explore::disk::RecordWriter;

    /// Sets of 1 to 3,000 states of 1 to 5 words, and one of 3,500,000 built in four
    /// shards: every state gets its own index.
    #[test]
    fn every_state_of_a_set_gets_its_own_index() {
        let dir = tempfile::tempdir().unwrap();
        for (n, words) in [(1, 1), (2, 3), (3, 1), (17, 2), (64, 5), (1000, 1), (3000, 4), (3_500_000, 1)] {
            let mut w = RecordWriter::create(dir.path().join(format!("{n}")), words).unwrap();
            let states: Vec<Vec<u32>> =
                (0..n as u32).map(|i| (0..words as u32).map(|k| i.wrapping_mul(2654435761) ^ k).collect()).collect();
            for s in &states {
                w.push(s).unwrap();
            }
            let records = w.finish().unwrap();
            let mut hash = PerfectHash::build(&records, 1 << 20).unwrap();
            let mut seen = vec![false; n];
            for s in &states {
                let i = hash.index(s) as usize;
                assert!(i < n && !seen[i], "{n} states of {words} words: index {i} twice or out of range");
                seen[i] = true;
            }
        }
    }
}
