//! A search stack of the semi-external search that keeps only its top frames in memory:
//! past a bound, the bottom half of them moves to a file, and comes back when the
//! search pops down to it. A frame holds its state, and its successors with their
//! indices; on disk only the successors not yet tried are kept (the search never looks
//! at the others again).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A frame: its state's index; its successors are those from `start` to `end` of the
/// stack's successors, the next to try is `next`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Frame {
    pub index: u64,
    pub start: usize,
    pub next: usize,
    pub end: usize,
}

/// Bytes a frame takes in memory besides its state and successors.
const FRAME_BYTES: usize = std::mem::size_of::<Frame>();

pub(super) struct Stack {
    words: usize,
    /// The frames in memory, above those on disk; their states (`words` each) and
    /// successors (`words` each, with their indices).
    frames: Vec<Frame>,
    states: Vec<u32>,
    succ: Vec<u32>,
    succ_index: Vec<u64>,
    /// Bytes in memory past which the bottom half of the frames moves to disk.
    limit: usize,
    /// The frames on disk (created at the first spill, in `dir`, removed when
    /// dropped): chunks, each as (offset, frames), bottom first.
    file: Option<File>,
    chunks: Vec<(u64, usize)>,
    on_disk: usize,
    /// The most bytes the file held.
    pub peak_disk_bytes: u64,
}

impl Stack {
    /// An empty stack of states of `words` words, with at most about `limit` bytes
    /// in memory (the top frame stays in memory however large).
    pub fn new(words: usize, limit: usize) -> Stack {
        Stack {
            words,
            frames: Vec::new(),
            states: Vec::new(),
            succ: Vec::new(),
            succ_index: Vec::new(),
            limit,
            file: None,
            chunks: Vec::new(),
            on_disk: 0,
            peak_disk_bytes: 0,
        }
    }

    /// Frames on the stack, on disk and in memory.
    pub fn depth(&self) -> usize {
        self.on_disk + self.frames.len()
    }

    /// The top frame (None when the stack is empty).
    pub fn top(&mut self) -> Option<&mut Frame> {
        self.frames.last_mut()
    }

    /// The top frame's state.
    pub fn top_state(&self) -> &[u32] {
        let n = self.frames.len();
        &self.states[(n - 1) * self.words..n * self.words]
    }

    /// Successor `j` (of a frame in memory) and its index.
    pub fn successor(&self, j: usize) -> (&[u32], u64) {
        (&self.succ[j * self.words..(j + 1) * self.words], self.succ_index[j])
    }

    /// Pushes `state` of index `index`; `successors` appends its successors' words and
    /// their indices. Moves the bottom frames to disk (in `dir`) past the bound.
    pub fn push(
        &mut self,
        state: &[u32],
        index: u64,
        dir: &Path,
        successors: impl FnOnce(&mut Vec<u32>, &mut Vec<u64>),
    ) -> io::Result<()> {
        let start = self.succ_index.len();
        self.states.extend_from_slice(state);
        successors(&mut self.succ, &mut self.succ_index);
        let end = self.succ_index.len();
        self.frames.push(Frame { index, start, next: start, end });
        if self.bytes() > self.limit && self.frames.len() >= 2 {
            self.spill(self.frames.len() / 2, dir)?;
        }
        Ok(())
    }

    /// Pops the top frame; brings the last frames on disk back when none is left in
    /// memory.
    pub fn pop(&mut self) -> io::Result<()> {
        let frame = self.frames.pop().expect("a frame to pop");
        self.states.truncate(self.frames.len() * self.words);
        self.succ.truncate(frame.start * self.words);
        self.succ_index.truncate(frame.start);
        if self.frames.is_empty() && self.on_disk > 0 {
            self.reload()?;
        }
        Ok(())
    }

    /// Empties the stack, on disk too.
    pub fn clear(&mut self) -> io::Result<()> {
        self.frames.clear();
        self.states.clear();
        self.succ.clear();
        self.succ_index.clear();
        if let Some(file) = &mut self.file {
            file.set_len(0)?;
        }
        self.chunks.clear();
        self.on_disk = 0;
        Ok(())
    }

    /// Bytes of the frames in memory.
    fn bytes(&self) -> usize {
        self.frames.len() * FRAME_BYTES + (self.states.len() + self.succ.len()) * 4 + self.succ_index.len() * 8
    }

    /// Moves the bottom `n` frames in memory to the end of the file, as one chunk.
    fn spill(&mut self, n: usize, dir: &Path) -> io::Result<()> {
        let w = self.words;
        let mut bytes = Vec::new();
        for (k, f) in self.frames[..n].iter().enumerate() {
            bytes.extend_from_slice(&f.index.to_le_bytes());
            words_to(&mut bytes, &self.states[k * w..(k + 1) * w]);
            bytes.extend_from_slice(&((f.end - f.next) as u64).to_le_bytes());
            for j in f.next..f.end {
                words_to(&mut bytes, &self.succ[j * w..(j + 1) * w]);
                bytes.extend_from_slice(&self.succ_index[j].to_le_bytes());
            }
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile_in(dir)?),
        };
        let offset = file.seek(SeekFrom::End(0))?;
        file.write_all(&bytes)?;
        self.peak_disk_bytes = self.peak_disk_bytes.max(offset + bytes.len() as u64);
        self.chunks.push((offset, n));
        self.on_disk += n;
        // The frames left, their successors moved down.
        let first = self.frames[n].start;
        self.frames.drain(..n);
        for f in &mut self.frames {
            f.start -= first;
            f.next -= first;
            f.end -= first;
        }
        self.states.drain(..n * w);
        self.succ.drain(..first * w);
        self.succ_index.drain(..first);
        Ok(())
    }

    /// Brings the last chunk on disk back into memory (which holds no frame).
    fn reload(&mut self) -> io::Result<()> {
        let bytes = self.read_chunk(self.chunks.len() - 1)?;
        let (offset, n) = self.chunks.pop().expect("a chunk on disk");
        self.file.as_mut().expect("a file").set_len(offset)?;
        self.on_disk -= n;
        for frame in Chunk::new(&bytes, self.words) {
            let start = self.succ_index.len();
            self.states.extend_from_slice(&frame.state);
            for (t, index) in frame.successors {
                self.succ.extend_from_slice(&t);
                self.succ_index.push(index);
            }
            let end = self.succ_index.len();
            self.frames.push(Frame { index: frame.index, start, next: start, end });
        }
        Ok(())
    }

    /// The bytes of chunk `i` (to the next chunk or the end of the file).
    fn read_chunk(&self, i: usize) -> io::Result<Vec<u8>> {
        let mut file = self.file.as_ref().expect("a file");
        let offset = self.chunks[i].0;
        let end = match self.chunks.get(i + 1) {
            Some(&(next, _)) => next,
            None => file.seek(SeekFrom::End(0))?,
        };
        let mut bytes = vec![0u8; (end - offset) as usize];
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    /// The states and indices of the frames from depth `from` to the top, bottom first
    /// (those on disk read back).
    pub fn frames_from(&self, from: usize) -> io::Result<Vec<(u64, Vec<u32>)>> {
        let mut all = Vec::new();
        let mut depth = 0;
        for (i, &(_, n)) in self.chunks.iter().enumerate() {
            if depth + n > from {
                let bytes = self.read_chunk(i)?;
                for (k, frame) in Chunk::new(&bytes, self.words).enumerate() {
                    if depth + k >= from {
                        all.push((frame.index, frame.state));
                    }
                }
            }
            depth += n;
        }
        let w = self.words;
        for (k, f) in self.frames.iter().enumerate() {
            if self.on_disk + k >= from {
                all.push((f.index, self.states[k * w..(k + 1) * w].to_vec()));
            }
        }
        Ok(all)
    }

    /// The depth of the topmost frame of state index `index`, if any.
    pub fn position(&self, index: u64) -> io::Result<Option<usize>> {
        if let Some(k) = self.frames.iter().rposition(|f| f.index == index) {
            return Ok(Some(self.on_disk + k));
        }
        Ok(self.frames_from(0)?.iter().take(self.on_disk).rposition(|(i, _)| *i == index))
    }
}

fn words_to(bytes: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
}

/// A frame read back from disk: its index, state and untried successors.
struct DiskFrame {
    index: u64,
    state: Vec<u32>,
    successors: Vec<(Vec<u32>, u64)>,
}

/// The frames of a chunk's bytes, in order.
struct Chunk<'a> {
    bytes: &'a [u8],
    words: usize,
}

impl<'a> Chunk<'a> {
    fn new(bytes: &'a [u8], words: usize) -> Self {
        Chunk { bytes, words }
    }

    fn u64(&mut self) -> u64 {
        let (head, rest) = self.bytes.split_at(8);
        self.bytes = rest;
        u64::from_le_bytes(head.try_into().expect("8 bytes"))
    }

    fn state(&mut self) -> Vec<u32> {
        let (head, rest) = self.bytes.split_at(4 * self.words);
        self.bytes = rest;
        head.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))).collect()
    }
}

impl Iterator for Chunk<'_> {
    type Item = DiskFrame;

    fn next(&mut self) -> Option<DiskFrame> {
        if self.bytes.is_empty() {
            return None;
        }
        let index = self.u64();
        let state = self.state();
        let n = self.u64();
        let successors = (0..n)
            .map(|_| {
                let t = self.state();
                (t, self.u64())
            })
            .collect();
        Some(DiskFrame { index, state, successors })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of the oracle: index, state, successors with their indices, the next
    /// to try.
    type PlainFrame = (u64, Vec<u32>, Vec<(Vec<u32>, u64)>, usize);

    /// A stack that keeps everything in memory: the oracle.
    #[derive(Default)]
    struct Plain {
        frames: Vec<PlainFrame>,
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn frames_moved_to_disk_come_back_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let words = 3;
        for limit in [0, 200, 1000, 1 << 20] {
            let mut rng = Rng(limit as u64 + 1);
            let mut stack = Stack::new(words, limit);
            let mut plain = Plain::default();
            for step in 0..20_000u64 {
                let depth = plain.frames.len();
                // Mostly deeper, then back down: depths of several hundred frames.
                let grow = depth == 0 || (rng.next() % 100) < if step % 4000 < 2500 { 60 } else { 40 };
                if grow {
                    let state: Vec<u32> = (0..words).map(|_| rng.next() as u32).collect();
                    let succ: Vec<(Vec<u32>, u64)> = (0..rng.next() % 4)
                        .map(|_| ((0..words).map(|_| rng.next() as u32).collect(), rng.next()))
                        .collect();
                    let index = rng.next() % 1000;
                    stack
                        .push(&state, index, dir.path(), |s, i| {
                            for (t, x) in &succ {
                                s.extend_from_slice(t);
                                i.push(*x);
                            }
                        })
                        .unwrap();
                    plain.frames.push((index, state, succ, 0));
                } else if rng.next().is_multiple_of(2) {
                    // Try the top's next successor, if any.
                    let (_, _, succ, next) = plain.frames.last_mut().unwrap();
                    let top = stack.top().unwrap();
                    assert_eq!(top.end - top.next, succ.len() - *next, "step {step}");
                    if top.next < top.end {
                        let j = top.next;
                        top.next += 1;
                        let (t, x) = stack.successor(j);
                        assert_eq!((t, x), (&succ[*next].0[..], succ[*next].1), "step {step}");
                        *next += 1;
                    }
                } else {
                    stack.pop().unwrap();
                    plain.frames.pop();
                }
                assert_eq!(stack.depth(), plain.frames.len(), "step {step}");
                if let Some((index, state, _, _)) = plain.frames.last() {
                    assert_eq!((stack.top().unwrap().index, stack.top_state()), (*index, &state[..]), "step {step}");
                }
                if step % 997 == 0 {
                    let all = stack.frames_from(0).unwrap();
                    let want: Vec<(u64, Vec<u32>)> = plain.frames.iter().map(|(i, s, _, _)| (*i, s.clone())).collect();
                    assert_eq!(all, want, "step {step}");
                    let from = want.len() / 3;
                    assert_eq!(stack.frames_from(from).unwrap(), want[from..], "step {step}");
                    let probe = rng.next() % 1000;
                    let at = want.iter().rposition(|(i, _)| *i == probe);
                    assert_eq!(stack.position(probe).unwrap(), at, "step {step}");
                }
            }
            assert_eq!(stack.peak_disk_bytes > 0, limit < 1 << 20, "limit {limit}");
            stack.clear().unwrap();
            assert_eq!(stack.depth(), 0);
        }
    }
}
