//! Breadth-first exploration with the states on disk: delayed duplicate detection
//! (Korf; Sulewski's thesis, part II), so that a state space is bounded by the disk,
//! not by memory.
//!
//! Each level is a sorted file of states without duplicates (sorted by a hash of the
//! state, then the state). A level is expanded a
//! chunk at a time on all threads; its successors collect in a buffer of bounded
//! size, which is sorted, rid of duplicates and written out as a run whenever it is
//! full. The runs are then merged, and each successor looked up in the visited set
//! ([`visited`]: sorted runs with a sparse index in memory): one not in it is new (the
//! next level). The level expanded joins the visited set. Memory holds the buffer, the
//! indexes (the first state of every 1,024) and a block per file.
//!
//! Counting follows the reference engine ([`crate::bfs`]): a step that raises an
//! evaluation error is an edge to one error state, which has no successors.

pub mod records;
mod visited;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use rdst::RadixSort;
use warpcheck_model::interface::{Model, Successors};

pub use records::{KeyedReader, RecordReader, RecordWriter, Records};
use visited::Visited;

use crate::parallel::{ProgressHook, Throttle};

/// Why the disk-based search stopped.
#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error("more than {limit} states")]
    TooManyStates { limit: u64 },
}

impl DiskError {
    pub fn io(path: &Path, error: std::io::Error) -> DiskError {
        DiskError::Io { path: path.to_owned(), error }
    }

    /// Whether the disk (or its quota) is full: a resource limit, not a failure.
    pub fn disk_full(&self) -> bool {
        matches!(self, DiskError::Io { error, .. }
            if matches!(error.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded))
    }
}

/// The successor buffer for a memory budget: half of it, else an eighth of the
/// available memory, at most 4 GiB; at least 64 KiB.
pub fn buffer_for(memory: Option<u64>) -> usize {
    let default = || warpcheck_store::MemoryBudget::share_of_available(1, 8).bytes().min(4 << 30);
    memory.map_or_else(default, |m| m / 2).max(1 << 16) as usize
}

/// How to search.
#[derive(Clone, Debug)]
pub struct DiskOptions {
    /// Where the files go (in a fresh directory inside it, removed at the end).
    pub dir: PathBuf,
    /// Bytes of the successor buffer (at least one chunk's successors are held).
    pub buffer: usize,
    /// Stop with an error past this many states.
    pub max_states: Option<u64>,
    pub progress: Option<ProgressHook>,
}

/// What the search found.
#[derive(Debug)]
pub struct DiskExploration {
    /// Reachable states, the error state included when some step reaches it.
    pub states: u64,
    pub transitions: u64,
    /// States without an enabled step (the error state is one).
    pub deadlocks: u64,
    pub levels: u32,
    /// Steps that raised an evaluation error.
    pub error_transitions: u64,
    /// States where the property automaton accepts.
    pub accepting: u64,
    /// The most bytes the files took at once.
    pub disk_bytes: u64,
    pub seconds: f64,
    /// The reachable states (the error state not among them), sorted, as records of
    /// the model's words (one word 0 for a model of no words); removed with `dir`.
    pub visited: Records,
    /// The fresh directory that holds the files; removed when dropped.
    pub dir: tempfile::TempDir,
}

/// Explores `model` from its initial states breadth first, on the threads of the
/// current rayon pool, the states on disk.
pub fn explore_on_disk<M: Model>(model: &M, options: &DiskOptions) -> Result<DiskExploration, DiskError> {
    let start = Instant::now();
    let dir = tempfile::Builder::new()
        .prefix("warpcheck-")
        .tempdir_in(&options.dir)
        .map_err(|e| DiskError::io(&options.dir, e))?;
    let words = model.state_words();
    // A record holds a state, or one word 0 for the one state of a model of no words.
    let width = words.max(1);
    let pad = usize::from(words == 0);
    let mut search = Search { dir: dir.path(), words: width, files: 0, disk_bytes: 0 };
    let mut initial: Vec<u32> = Vec::new();
    for state in model.initial_states() {
        initial.extend_from_slice(&state);
        initial.resize(initial.len() + pad, 0);
    }
    let mut level = search.write_run(&mut initial)?;
    let mut visited = Visited::new();
    let (mut transitions, mut deadlocks, mut errors, mut accepting, mut levels) = (0u64, 0, 0, 0, 0u32);
    let record_bytes = width * 4;
    // Frontier states per chunk: a sixteenth of the buffer, for about that many
    // successors each.
    let chunk = (options.buffer / record_bytes / 16).max(1);
    let throttle = options.progress.clone().map(Throttle::new);
    // A successor generator per thread (making one may compile the model's code).
    let mut workers: Vec<_> = (0..rayon::current_num_threads()).map(|_| model.successors()).collect();
    while !level.is_empty() {
        levels += 1;
        let mut runs = Vec::new();
        let mut buffer: Vec<u32> = Vec::new();
        let mut reader = level.reader()?;
        let mut states: Vec<u32> = Vec::new();
        loop {
            states.clear();
            if reader.take(chunk, &mut states)? == 0 {
                break;
            }
            // The chunk in one block per worker (each with its generator, made once).
            let per = (states.len() / width).div_ceil(workers.len()).max(1) * width;
            let expanded: Vec<(Vec<u32>, [u64; 4])> = workers
                .par_iter_mut()
                .zip(states.par_chunks(per))
                .map(|(generator, block)| {
                    let mut out = Vec::new();
                    let [mut steps, mut dead, mut bad, mut accepting] = [0u64; 4];
                    for state in block.chunks(width) {
                        let state = &state[..words];
                        let none = generator.successors(state, |_, result| {
                            steps += 1;
                            match result {
                                Ok(target) => {
                                    out.extend_from_slice(target);
                                    out.resize(out.len() + pad, 0);
                                }
                                Err(_) => bad += 1,
                            }
                        });
                        dead += u64::from(none);
                        accepting += u64::from(model.is_accepting(state));
                    }
                    (out, [steps, dead, bad, accepting])
                })
                .collect();
            for (out, [steps, dead, bad, accept]) in expanded {
                buffer.extend_from_slice(&out);
                transitions += steps;
                deadlocks += dead;
                errors += bad;
                accepting += accept;
            }
            if buffer.len() * 4 >= options.buffer {
                runs.push(search.write_run(&mut buffer)?);
            }
            if let Some(t) = &throttle {
                t.report(visited.len() + level.len(), transitions, levels, false);
            }
        }
        if !buffer.is_empty() {
            runs.push(search.write_run(&mut buffer)?);
        }
        drop(reader);
        visited.add(level, || search.create())?;
        let on_disk = visited.bytes() + runs.iter().map(Records::bytes).sum::<u64>();
        level = search.new_states(&runs, &mut visited, options.buffer)?;
        search.disk_bytes = search.disk_bytes.max(on_disk + level.bytes());
        drop(runs);
        if let Some(limit) = options.max_states.filter(|&m| visited.len() + level.len() > m) {
            return Err(DiskError::TooManyStates { limit });
        }
    }
    let visited = visited.into_records(|| search.create())?;
    let error_state = errors > 0;
    Ok(DiskExploration {
        states: visited.len() + u64::from(error_state),
        transitions,
        deadlocks: deadlocks + u64::from(error_state),
        levels: levels.max(1),
        error_transitions: errors,
        accepting,
        disk_bytes: search.disk_bytes,
        seconds: start.elapsed().as_secs_f64(),
        visited,
        dir,
    })
}

/// A buffered state's index beside its hash, radix-sorted by the hash.
#[derive(Clone, Copy)]
struct Keyed(u64, u32);

impl rdst::RadixKey for Keyed {
    const LEVELS: usize = 8;

    fn get_level(&self, level: usize) -> u8 {
        (self.0 >> (level * 8)) as u8
    }
}

/// The files of one search.
struct Search<'a> {
    dir: &'a Path,
    words: usize,
    /// Files created so far (for fresh names).
    files: u64,
    disk_bytes: u64,
}

impl Search<'_> {
    fn create(&mut self) -> Result<RecordWriter, DiskError> {
        self.files += 1;
        RecordWriter::create(self.dir.join(format!("{}.states", self.files)), self.words)
    }

    /// Sorts the records of `buffer`, drops duplicates, writes them to a new file and
    /// empties the buffer.
    fn write_run(&mut self, buffer: &mut Vec<u32>) -> Result<Records, DiskError> {
        let w = self.words;
        let mut writer = self.create()?;
        let record = |i: u32| &buffer[i as usize * w..(i as usize + 1) * w];
        // In the files' order: each index beside its state's hash, radix-sorted by the
        // hash (`rdst`), then each run of equal hashes by the states.
        let mut order: Vec<Keyed> =
            (0..(buffer.len() / w) as u32).into_par_iter().map(|i| Keyed(records::hash(record(i)), i)).collect();
        order.radix_sort_unstable();
        // Equal hashes are almost always one state generated several times: sorted
        // only when they are not.
        order.par_chunk_by_mut(|a, b| a.0 == b.0).for_each(|ties| {
            if ties[1..].iter().any(|t| record(t.1) != record(ties[0].1)) {
                ties.sort_unstable_by(|a, b| record(a.1).cmp(record(b.1)));
            }
        });
        order.dedup_by(|a, b| a.0 == b.0 && record(a.1) == record(b.1));
        for &Keyed(_, i) in &order {
            writer.push(record(i))?;
        }
        buffer.clear();
        writer.finish()
    }

    /// The records of `runs` not in `visited`, sorted, once each; the runs' readers
    /// share `buffer` bytes (4 KiB to 1 MiB each).
    fn new_states(&mut self, runs: &[Records], visited: &mut Visited, buffer: usize) -> Result<Records, DiskError> {
        let each = (buffer / runs.len().max(1)).clamp(4 << 10, 1 << 20);
        let mut readers =
            runs.iter().map(|r| r.reader_with(each).map(KeyedReader::new)).collect::<Result<Vec<_>, _>>()?;
        let mut new = self.create()?;
        let mut least: Vec<u32> = Vec::with_capacity(self.words);
        while let Some((h, min)) = readers.iter().filter_map(KeyedReader::key).min() {
            least.clear();
            least.extend_from_slice(min);
            if !visited.contains_hashed(&least, h)? {
                new.push(&least)?;
            }
            for r in &mut readers {
                if r.key() == Some((h, &least[..])) {
                    r.advance()?;
                }
            }
        }
        new.finish()
    }
}
