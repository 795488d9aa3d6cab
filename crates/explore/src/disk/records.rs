//! Files of fixed-size state records (little-endian `u32` words): written once in
//! order, read back in order, deleted when dropped. The disk-based search keeps its
//! levels and its visited set in them, each sorted and without duplicates.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::DiskError;

/// The order of the records in every file: by a 64-bit hash of the state, then by the
/// state. Hashes spread states evenly, so a sort rarely compares two whole states
/// (in lexicographic order, states that share long prefixes are compared word by
/// word).
pub fn order(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    (hash(a), a).cmp(&(hash(b), b))
}

/// The 64-bit hash of [`order`].
pub fn hash(state: &[u32]) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for &w in state {
        h = (h.rotate_left(23) ^ u64::from(w)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    }
    h ^ h >> 29
}

/// Buffer size of every reader and writer.
const BUFFER: usize = 1 << 20;

/// A finished file of records of `words` words each.
#[derive(Debug)]
pub struct Records {
    path: PathBuf,
    words: usize,
    len: u64,
}

impl Records {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records in the file.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Words per record.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Bytes on disk.
    pub fn bytes(&self) -> u64 {
        self.len * self.words as u64 * 4
    }

    /// A reader from the first record, with a buffer of 1 MiB.
    pub fn reader(&self) -> Result<RecordReader, DiskError> {
        self.reader_with(BUFFER)
    }

    /// A reader from the first record, with a buffer of `bytes`.
    pub fn reader_with(&self, bytes: usize) -> Result<RecordReader, DiskError> {
        let file = File::open(&self.path).map_err(|e| DiskError::io(&self.path, e))?;
        let mut reader = RecordReader {
            input: BufReader::with_capacity(bytes, file),
            path: self.path.clone(),
            bytes: vec![0; self.words * 4],
            current: vec![0; self.words],
            left: self.len,
            done: false,
        };
        reader.advance()?;
        Ok(reader)
    }
}

impl Drop for Records {
    fn drop(&mut self) {
        // A file that is already gone (its directory removed) is no error here.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes records in order.
pub struct RecordWriter {
    out: BufWriter<File>,
    path: PathBuf,
    words: usize,
    len: u64,
    bytes: Vec<u8>,
}

impl RecordWriter {
    pub fn create(path: PathBuf, words: usize) -> Result<RecordWriter, DiskError> {
        let file = File::create(&path).map_err(|e| DiskError::io(&path, e))?;
        Ok(RecordWriter { out: BufWriter::with_capacity(BUFFER, file), path, words, len: 0, bytes: Vec::new() })
    }

    pub fn push(&mut self, record: &[u32]) -> Result<(), DiskError> {
        debug_assert_eq!(record.len(), self.words);
        self.bytes.clear();
        self.bytes.extend(record.iter().flat_map(|w| w.to_le_bytes()));
        self.out.write_all(&self.bytes).map_err(|e| DiskError::io(&self.path, e))?;
        self.len += 1;
        Ok(())
    }

    /// Flushes and closes the file.
    pub fn finish(self) -> Result<Records, DiskError> {
        let RecordWriter { out, path, words, len, .. } = self;
        out.into_inner().map_err(|e| DiskError::io(&path, e.into_error()))?;
        Ok(Records { path, words, len })
    }
}

/// Reads records in order: [`RecordReader::current`] is the record at hand until
/// [`RecordReader::advance`].
pub struct RecordReader {
    input: BufReader<File>,
    path: PathBuf,
    bytes: Vec<u8>,
    current: Vec<u32>,
    left: u64,
    done: bool,
}

impl RecordReader {
    /// The record at hand; `None` past the last.
    pub fn current(&self) -> Option<&[u32]> {
        (!self.done).then_some(&self.current[..])
    }

    /// Moves to the next record.
    pub fn advance(&mut self) -> Result<(), DiskError> {
        if self.left == 0 {
            self.done = true;
            return Ok(());
        }
        self.input.read_exact(&mut self.bytes).map_err(|e| DiskError::io(&self.path, e))?;
        for (w, b) in self.current.iter_mut().zip(self.bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes(b.try_into().expect("four bytes"));
        }
        self.left -= 1;
        Ok(())
    }

    /// Up to `n` records appended to `out` (fewer at the end of the file).
    pub fn take(&mut self, n: usize, out: &mut Vec<u32>) -> Result<usize, DiskError> {
        let mut taken = 0;
        while taken < n {
            let Some(record) = self.current() else { break };
            out.extend_from_slice(record);
            self.advance()?;
            taken += 1;
        }
        Ok(taken)
    }
}

/// A reader with the [`hash`] of its record at hand, computed once per record: what
/// merges compare in the files' order.
pub struct KeyedReader {
    reader: RecordReader,
    hash: u64,
}

impl KeyedReader {
    pub fn new(reader: RecordReader) -> KeyedReader {
        let hash = reader.current().map_or(0, hash);
        KeyedReader { reader, hash }
    }

    /// The record at hand with its hash (tuples compare in the files' order); `None`
    /// past the last.
    pub fn key(&self) -> Option<(u64, &[u32])> {
        self.reader.current().map(|r| (self.hash, r))
    }

    /// Moves to the next record.
    pub fn advance(&mut self) -> Result<(), DiskError> {
        self.reader.advance()?;
        self.hash = self.reader.current().map_or(0, hash);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_in_order_and_files_go_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r");
        let mut w = RecordWriter::create(path.clone(), 3).unwrap();
        for i in 0..1000u32 {
            w.push(&[i, u32::MAX - i, i * 7]).unwrap();
        }
        let records = w.finish().unwrap();
        assert_eq!((records.len(), records.bytes()), (1000, 12_000));
        let mut r = records.reader().unwrap();
        let mut out = Vec::new();
        assert_eq!(r.take(10, &mut out).unwrap(), 10);
        assert_eq!(&out[27..30], &[9, u32::MAX - 9, 63]);
        for i in 10..1000u32 {
            assert_eq!(r.current(), Some(&[i, u32::MAX - i, i * 7][..]));
            r.advance().unwrap();
        }
        assert_eq!(r.current(), None);
        drop(r);
        drop(records);
        assert!(!path.exists());
    }
}
