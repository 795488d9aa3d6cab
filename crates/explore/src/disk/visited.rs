//! The disk search's visited set: sorted runs of states on disk, merged like a binary
//! counter (a log-structured merge: a new level is a run; the newest two merge while
//! the older is at most twice the newer), so that each state is rewritten O(log n)
//! times, not once per level. Each run keeps in memory the first state of every block
//! of [`BLOCK`] states: a level's sorted candidates are looked up by binary search in
//! that index and in the one block it names, read from disk only when the candidates
//! reach it. A narrow level of a deep space thus reads a few blocks, not the whole set.

use std::fs::File;
use std::os::unix::fs::FileExt;

use std::cmp::Ordering;

use super::records::{hash, KeyedReader, RecordWriter, Records};
use super::DiskError;

/// States per block of a run (the unit read from disk, and of the index).
const BLOCK: usize = 1024;

/// One sorted run, its file open, its index, and the block last read.
struct Run {
    records: Records,
    file: File,
    /// The first state of each block, `words` each, and its hash.
    index: Vec<u32>,
    index_hashes: Vec<u64>,
    /// The block in `block` (`usize::MAX`: none yet), its states and their hashes.
    loaded: usize,
    block: Vec<u32>,
    block_hashes: Vec<u64>,
}

impl Run {
    fn open(records: Records) -> Result<Run, DiskError> {
        let file = File::open(records.path()).map_err(|e| DiskError::io(records.path(), e))?;
        let (mut index, mut index_hashes) = (Vec::new(), Vec::new());
        let mut reader = records.reader()?;
        let mut i = 0u64;
        while let Some(r) = reader.current() {
            if i.is_multiple_of(BLOCK as u64) {
                index.extend_from_slice(r);
                index_hashes.push(hash(r));
            }
            reader.advance()?;
            i += 1;
        }
        let (block, block_hashes) = (Vec::new(), Vec::new());
        Ok(Run { records, file, index, index_hashes, loaded: usize::MAX, block, block_hashes })
    }

    fn blocks(&self) -> usize {
        (self.records.len() as usize).div_ceil(BLOCK)
    }

    /// Whether `state` (of hash `h`) is in the run.
    fn contains(&mut self, state: &[u32], h: u64) -> Result<bool, DiskError> {
        let w = state.len();
        // The files' order, with the hashes at hand.
        let cmp = |hash: u64, s: &[u32]| (hash, s).cmp(&(h, state));
        // The last block whose first state is at most `state`.
        let first = |b: usize| cmp(self.index_hashes[b], &self.index[b * w..(b + 1) * w]);
        let after = partition_point(self.blocks(), |b| first(b) != Ordering::Greater);
        let Some(b) = after.checked_sub(1) else { return Ok(false) };
        if self.loaded != b {
            let start = b * BLOCK;
            let n = BLOCK.min(self.records.len() as usize - start);
            let mut bytes = vec![0u8; n * w * 4];
            let at = (start * w * 4) as u64;
            self.file.read_exact_at(&mut bytes, at).map_err(|e| DiskError::io(self.records.path(), e))?;
            self.block = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("four bytes"))).collect();
            self.block_hashes = self.block.chunks_exact(w).map(hash).collect();
            self.loaded = b;
        }
        let at = |i: usize| cmp(self.block_hashes[i], &self.block[i * w..(i + 1) * w]);
        let n = self.block_hashes.len();
        let i = partition_point(n, |i| at(i) == Ordering::Less);
        Ok(i < n && at(i) == Ordering::Equal)
    }
}

/// The first `i` in `0..n` where `below(i)` is false (`below` true then false).
fn partition_point(n: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The set of states visited so far.
pub struct Visited {
    runs: Vec<Run>,
    len: u64,
}

impl Visited {
    pub fn new() -> Visited {
        Visited { runs: Vec::new(), len: 0 }
    }

    /// States in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Bytes of its files on disk.
    pub fn bytes(&self) -> u64 {
        self.runs.iter().map(|r| r.records.bytes()).sum()
    }

    /// Whether `state` is in the set (states looked up in ascending order read each
    /// block at most once per run).
    #[cfg(test)]
    pub fn contains(&mut self, state: &[u32]) -> Result<bool, DiskError> {
        self.contains_hashed(state, hash(state))
    }

    /// [`Self::contains`] for a state whose [`hash`] is at hand.
    pub fn contains_hashed(&mut self, state: &[u32], h: u64) -> Result<bool, DiskError> {
        for run in &mut self.runs {
            if run.contains(state, h)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Adds `level` (sorted, without duplicates, none in the set); merges runs with
    /// `create` giving new files.
    pub fn add(
        &mut self,
        level: Records,
        mut create: impl FnMut() -> Result<RecordWriter, DiskError>,
    ) -> Result<(), DiskError> {
        self.len += level.len();
        self.runs.push(Run::open(level)?);
        while let [.., older, newer] = &self.runs[..] {
            if older.records.len() > 2 * newer.records.len() {
                break;
            }
            let newer = self.runs.pop().expect("two runs").records;
            let older = self.runs.pop().expect("two runs").records;
            let merged = merge(&older, &newer, create()?)?;
            self.runs.push(Run::open(merged)?);
        }
        Ok(())
    }

    /// The whole set in one sorted file.
    pub fn into_records(
        mut self,
        mut create: impl FnMut() -> Result<RecordWriter, DiskError>,
    ) -> Result<Records, DiskError> {
        while self.runs.len() > 1 {
            let newer = self.runs.pop().expect("two runs").records;
            let older = self.runs.pop().expect("two runs").records;
            self.runs.push(Run::open(merge(&older, &newer, create()?)?)?);
        }
        match self.runs.pop() {
            Some(run) => Ok(run.records),
            None => create()?.finish(),
        }
    }
}

/// Two sorted runs without common states merged into `out`.
fn merge(a: &Records, b: &Records, mut out: RecordWriter) -> Result<Records, DiskError> {
    let (mut a, mut b) = (KeyedReader::new(a.reader()?), KeyedReader::new(b.reader()?));
    loop {
        let take_a = match (a.key(), b.key()) {
            (Some(x), Some(y)) => x < y,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let from = if take_a { &mut a } else { &mut b };
        out.push(from.key().expect("a record").1)?;
        from.advance()?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::records::order;
    use super::*;

    /// Levels of 1 to 5,000 states of 2 words added one by one (runs merge, blocks
    /// span many states): exactly the added states are found, looked up in ascending
    /// order as the search does, and the whole set comes out sorted.
    #[test]
    fn the_set_holds_exactly_the_levels_added() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = 0;
        let mut create = || {
            files += 1;
            RecordWriter::create(dir.path().join(files.to_string()), 2)
        };
        let key = |i: u32| [i.wrapping_mul(2654435761) >> 4, i % 7];
        let mut visited = Visited::new();
        let mut added: Vec<[u32; 2]> = Vec::new();
        let mut next = 0u32;
        for size in [1u32, 3, 5000, 2, 1024, 1025, 7, 300, 2048, 1] {
            let mut level: Vec<[u32; 2]> = (next..next + size).map(key).collect();
            next += size;
            level.sort_by(|a, b| order(a, b));
            let mut w = create().unwrap();
            for s in &level {
                w.push(s).unwrap();
            }
            visited.add(w.finish().unwrap(), &mut create).unwrap();
            added.extend(level);
            // Every third state ever added, and as many never added, in order.
            let mut queries: Vec<([u32; 2], bool)> =
                (0..next + 50).step_by(3).map(|i| (key(i), i < next)).chain([([u32::MAX; 2], false)]).collect();
            queries.sort_by(|a, b| order(&a.0, &b.0));
            for (q, present) in queries {
                assert_eq!(visited.contains(&q).unwrap(), present, "{q:?} after {next} states");
            }
            assert!(visited.runs.len() <= 1 + (next as f64).log2() as usize, "{} runs", visited.runs.len());
        }
        assert_eq!(visited.len(), added.len() as u64);
        let all = visited.into_records(&mut create).unwrap();
        added.sort_by(|a, b| order(a, b));
        let mut r = all.reader().unwrap();
        for s in &added {
            assert_eq!(r.current(), Some(&s[..]));
            r.advance().unwrap();
        }
        assert_eq!(r.current(), None);
    }
}
