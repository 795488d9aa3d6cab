//! The state graph of a model built on all cores: a level-synchronous breadth-first
//! exploration over the lock-free, tree-compressed [`TreeStore`] that records every
//! edge, for the graph algorithms that need the whole graph (OWCTY and MAP).
//!
//! Vertex ids are dense and given at discovery: the workers that make states new take
//! their ids from one counter (one atomic per batch). Every state of BFS level `L + 1`
//! is discovered while level `L` is expanded, so each level is a contiguous id range
//! and needs no queue, and the initial state is vertex 0. Workers claim chunks of the
//! level's range and keep, per chunk, the degrees and the successors' store ids. Once
//! the level is expanded every successor has its vertex id: each worker translates its
//! chunks through the store-id → vertex map, and the chunks are appended to the CSR in
//! id order.
//!
//! The graph is [`state_graph`](crate::state_graph)'s up to the numbering of vertices
//! within a level, which depends on thread timing: the same states, one edge per step
//! in the generator's order (duplicates and self-loops kept), the error state last.
//! The states stay in the tree-compressed store ([`ParallelStateGraph::state`]), about
//! 16 bytes per table entry with the maps, instead of 4 bytes per state word.
//!
//! Like the parallel engine, the table starts small and the build restarts with a
//! table 8 times larger when it passes 6/8 load; a table that may not grow is full at
//! 7/8, an error ([`StateGraphError::TableFull`]), never a dropped state.
//!
//! A build may stop early, on purpose only: with [`GraphOptions::prefix`] it stops at
//! the first level boundary with that many states discovered. The graph is then a
//! breadth-first prefix: every state within the expanded levels with all its edges,
//! and the states of the next level without theirs ([`ParallelStateGraph::complete`]
//! is false). Each of its cycles is a cycle of the whole graph, which is what lets
//! OWCTY and MAP find a violation without building all of it. A [`PrefixBuilder`]
//! extends one build prefix by prefix: each larger prefix continues where the last
//! stopped (a copy of the edges so far is handed out each time), so checking growing
//! prefixes costs the whole graph's building once.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier, Mutex};

use warpcheck_graph::{Csr, Graph, MAX_VERTICES};
use warpcheck_model::{Generator, Model};

use crate::graph::{StateGraph, StateGraphError};
use warpcheck_store::{BatchScratch, TableFull, TreeCursor, TreeStore, ZeroedSlice};

/// How to build the graph.
#[derive(Clone, Copy, Debug)]
pub struct GraphOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// At most this many states (`None`: up to the `u32` id limit).
    pub max_states: Option<u64>,
    /// The state table starts with `2^log2_table` entries and grows while it stays
    /// within `2^max_log2_table` (at most 2^32).
    pub log2_table: u32,
    pub max_log2_table: u32,
    /// Stop at the first level boundary with at least this many states discovered
    /// (`None`: build the whole graph); see the module's documentation.
    pub prefix: Option<u64>,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions { threads: 1, max_states: None, log2_table: 22, max_log2_table: 28, prefix: None }
    }
}

impl GraphOptions {
    /// Bytes per table entry: the entry, its root bit, and the two maps between store
    /// ids and vertices.
    pub const BYTES_PER_ENTRY: f64 = 8.0 + 1.0 / 8.0 + 4.0 + 4.0;

    /// The largest `max_log2_table` whose table and maps fit in `budget` bytes.
    pub fn max_log2_for(budget: u64) -> u32 {
        warpcheck_store::table::log2_capacity_within(budget, Self::BYTES_PER_ENTRY)
    }
}

/// A state graph with its states in the store: vertex `v < store_states` is a state,
/// the error state (if any) has none.
pub struct ParallelStateGraph {
    pub graph: StateGraph,
    /// Per vertex, whether the property automaton accepts (the error state does not;
    /// in a prefix, neither do the unexpanded vertices, which are never evaluated);
    /// empty when the model has no property process.
    pub accepting: Vec<bool>,
    /// False for a breadth-first prefix ([`GraphOptions::prefix`]): the states of its
    /// last level are vertices without edges, neither expanded nor deadlocks.
    pub complete: bool,
    stored: Arc<Stored>,
    real: u32,
}

/// The states of a build: the store, and the store id of each vertex's state.
struct Stored {
    store: TreeStore,
    roots: ZeroedSlice<AtomicU32>,
}

impl ParallelStateGraph {
    /// The state of vertex `v` (`v` below the number of real states).
    pub fn state(&self, v: u32) -> Vec<u32> {
        assert!(v < self.real, "vertex {v} has no state");
        let Stored { store, roots } = &*self.stored;
        let mut cursor = store.cursor();
        store.load(roots[v as usize].load(Relaxed), &mut cursor);
        cursor.words
    }

    /// Vertices that are states (all but the error state).
    pub fn states(&self) -> u32 {
        self.real
    }
}

/// Builds the state graph of `model` on `options.threads` threads (or, with
/// `options.prefix`, a breadth-first prefix of it).
pub fn state_graph_parallel(model: &Model, options: &GraphOptions) -> Result<ParallelStateGraph, StateGraphError> {
    PrefixBuilder::new(model, options).build(options.prefix)
}

/// One build extended prefix by prefix ([`GraphOptions::prefix`] is ignored; each
/// call names its own).
pub struct PrefixBuilder<'m> {
    model: &'m Model,
    options: GraphOptions,
    log2: u32,
    build: Option<Build<'m>>,
}

impl<'m> PrefixBuilder<'m> {
    pub fn new(model: &'m Model, options: &GraphOptions) -> PrefixBuilder<'m> {
        let max_log2 = options.max_log2_table.clamp(4, 32);
        let log2 = options.log2_table.clamp(4, max_log2);
        PrefixBuilder { model, options: GraphOptions { max_log2_table: max_log2, ..*options }, log2, build: None }
    }

    /// Extends the build to the first level boundary with at least `prefix` states
    /// (`None`: to the end) and returns the graph so far: a copy while it is a prefix,
    /// the build itself once complete (a later call then starts afresh). A table that
    /// must grow restarts the build, 8 times larger, up to the same point.
    pub fn build(&mut self, prefix: Option<u64>) -> Result<ParallelStateGraph, StateGraphError> {
        loop {
            let may_grow = self.log2 < self.options.max_log2_table;
            let started = match self.build.take() {
                Some(build) => Ok(build),
                None => Build::new(self.model, &self.options, self.log2, may_grow),
            };
            match started.and_then(|mut build| build.run(prefix.unwrap_or(u64::MAX)).map(|()| build)) {
                Ok(build) if build.cut.load(Relaxed) => {
                    let graph = build.snapshot();
                    self.build = Some(build);
                    return Ok(graph);
                }
                Ok(build) => return Ok(build.finish()),
                Err(Stop::Grow) => self.log2 = (self.log2 + 3).min(self.options.max_log2_table),
                Err(Stop::Failed(e)) => return Err(e),
            }
        }
    }
}

/// Why a run stopped short.
enum Stop {
    /// The table passed its load limit and may grow.
    Grow,
    Failed(StateGraphError),
}

/// A worker's output for one level: chunks of consecutive vertices with their degrees
/// and targets (store ids, then vertex ids once translated).
#[derive(Default)]
struct LevelOut {
    /// (first vertex, vertices, start in `degrees`, start in `targets`).
    chunks: Vec<(u32, u32, usize, usize)>,
    degrees: Vec<u32>,
    targets: Vec<u32>,
    /// Positions in `targets` of steps into the error state.
    errors: Vec<usize>,
    /// States expanded without successors.
    deadlocks: u64,
}

/// The buffers of one worker.
struct Worker<'m> {
    generator: Generator<'m>,
    cursors: Vec<TreeCursor>,
    successors: Vec<u32>,
    base_of: Vec<u32>,
    /// Per step of the batch: the index of its successor, or `ERROR_STEP`.
    steps: Vec<u32>,
    degrees: Vec<u32>,
    batch: BatchScratch,
    inserted: Vec<(u32, bool)>,
}

const ERROR_STEP: u32 = u32::MAX;
/// The target of a step into the error state until the error state has its id.
const ERROR_TARGET: u32 = u32::MAX;
/// Vertices expanded together, so that their memory accesses overlap.
const BATCH: usize = 8;
const GROW_AT_EIGHTHS: u64 = 6;
const FULL_AT_EIGHTHS: u64 = 7;

struct Build<'m> {
    model: &'m Model,
    /// The store, with the vertex → store id map; and the store id → vertex map.
    stored: Arc<Stored>,
    vertex_of: ZeroedSlice<AtomicU32>,
    /// Accepting vertices, one bit each.
    accepting: ZeroedSlice<AtomicU64>,
    /// Vertices given so far; the current level is `level.0..level.1`.
    next_id: AtomicU64,
    level: Mutex<(u32, u32)>,
    cursor: AtomicU64,
    /// Table entries in use, and the load at which to stop.
    entries: AtomicU64,
    entry_limit: u64,
    may_grow: bool,
    state_limit: u64,
    /// The current run stops at this many states, and sets `cut` when it does.
    prefix: u64,
    cut: AtomicBool,
    stop: AtomicBool,
    done: AtomicBool,
    failure: Mutex<Option<Stop>>,
    outs: Vec<Mutex<LevelOut>>,
    csr: Mutex<CsrParts>,
}

#[derive(Clone, Default)]
struct CsrParts {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    deadlocks: u64,
    errors: u64,
}

impl<'m> Build<'m> {
    /// A build holding the initial state as vertex 0, nothing expanded.
    fn new(model: &'m Model, options: &GraphOptions, log2: u32, may_grow: bool) -> Result<Build<'m>, Stop> {
        let store = TreeStore::new(model.state_words(), log2);
        let capacity = store.capacity() as usize;
        let entry_limit = store.capacity() / 8 * if may_grow { GROW_AT_EIGHTHS } else { FULL_AT_EIGHTHS };
        let threads = options.threads.max(1);
        let state_limit = options.max_states.unwrap_or(MAX_VERTICES - 1).min(MAX_VERTICES - 1);
        let build = Build {
            model,
            stored: Arc::new(Stored { store, roots: ZeroedSlice::new(capacity) }),
            vertex_of: ZeroedSlice::new(capacity),
            accepting: ZeroedSlice::new(if model.property.is_some() { capacity.div_ceil(64) } else { 0 }),
            next_id: AtomicU64::new(1),
            level: Mutex::new((0, 0)),
            cursor: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            entry_limit,
            may_grow,
            state_limit,
            prefix: u64::MAX,
            cut: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
            failure: Mutex::new(None),
            outs: (0..threads).map(|_| Mutex::new(LevelOut::default())).collect(),
            csr: Mutex::new(CsrParts { offsets: vec![0], ..CsrParts::default() }),
        };
        let (root, _, created) = build.store().insert_fresh(&model.initial_state()).map_err(|e| build.full(e))?;
        build.entries.store(created, Relaxed);
        build.stored.roots[0].store(root, Relaxed);
        build.vertex_of[root as usize].store(0, Relaxed);
        Ok(build)
    }

    fn store(&self) -> &TreeStore {
        &self.stored.store
    }

    fn roots(&self) -> &ZeroedSlice<AtomicU32> {
        &self.stored.roots
    }

    /// Expands levels until there are none left or the level boundary at `prefix`
    /// states (then `cut` is set).
    fn run(&mut self, prefix: u64) -> Result<(), Stop> {
        self.prefix = prefix;
        self.cut.store(false, Relaxed);
        self.done.store(false, Relaxed);
        let threads = self.outs.len();
        let barrier = Barrier::new(threads);
        let build = &*self;
        std::thread::scope(|s| {
            for worker in 0..threads {
                let barrier = &barrier;
                s.spawn(move || build.work(worker, barrier));
            }
        });
        if let Some(stop) = self.failure.lock().unwrap().take() {
            return Err(stop);
        }
        let errors = self.csr.lock().unwrap().errors;
        if self.next_id.load(Relaxed) + (errors > 0) as u64 > self.state_limit {
            return Err(Stop::Failed(StateGraphError::TooManyStates { limit: self.state_limit }));
        }
        Ok(())
    }

    fn full(&self, source: TableFull) -> Stop {
        if self.may_grow {
            Stop::Grow
        } else {
            Stop::Failed(StateGraphError::TableFull { source, states: self.next_id.load(Relaxed) })
        }
    }

    /// Records why the build stops (the first reason wins) and stops it.
    fn fail(&self, stop: Stop) {
        self.failure.lock().unwrap().get_or_insert(stop);
        self.stop.store(true, Relaxed);
    }

    /// One worker: per level, expand chunks of the level, then translate its targets;
    /// the barrier's leader also starts each level and appends the chunks to the CSR.
    fn work(&self, worker: usize, barrier: &Barrier) {
        let mut w = Worker {
            generator: Generator::new(self.model),
            cursors: (0..BATCH).map(|_| self.store().cursor()).collect(),
            successors: Vec::new(),
            base_of: Vec::new(),
            steps: Vec::new(),
            degrees: Vec::new(),
            batch: BatchScratch::default(),
            inserted: Vec::new(),
        };
        loop {
            if barrier.wait().is_leader() {
                self.start_level();
            }
            barrier.wait();
            if self.done.load(Relaxed) {
                break;
            }
            let (begin, end) = *self.level.lock().unwrap();
            let chunk = ((end - begin) as u64 / (self.outs.len() as u64 * 16)).clamp(1, 512);
            let mut out = self.outs[worker].lock().unwrap();
            while !self.stop.load(Relaxed) {
                let first = self.cursor.fetch_add(chunk, Relaxed);
                if first >= end as u64 {
                    break;
                }
                let last = (first + chunk).min(end as u64) as u32;
                self.expand_chunk(first as u32, last, &mut w, &mut out);
            }
            drop(out);
            // Every successor found in this level now has its vertex id.
            barrier.wait();
            self.translate(&mut self.outs[worker].lock().unwrap());
            if barrier.wait().is_leader() {
                self.append_level();
            }
        }
    }

    /// Starts the next level: the vertices given since the last one began; or ends the
    /// build, when there are none, when it failed, or at the prefix's size.
    /// The level stays where it was at a cut, so that the next run expands it.
    fn start_level(&self) {
        let mut level = self.level.lock().unwrap();
        let given = self.next_id.load(Relaxed) as u32;
        let cut = level.1 < given && given as u64 >= self.prefix;
        if cut {
            self.cut.store(true, Relaxed);
            self.done.store(true, Relaxed);
            return;
        }
        *level = (level.1, given);
        self.cursor.store(level.0 as u64, Relaxed);
        self.done.store(level.0 == level.1 || self.stop.load(Relaxed), Relaxed);
    }

    /// Expands vertices `first..last` into `out`, a batch at a time.
    fn expand_chunk(&self, first: u32, last: u32, w: &mut Worker<'_>, out: &mut LevelOut) {
        out.chunks.push((first, last - first, out.degrees.len(), out.targets.len()));
        let mut ids = [0u32; BATCH];
        for start in (first..last).step_by(BATCH) {
            let n = (last - start).min(BATCH as u32) as usize;
            for (k, id) in ids[..n].iter_mut().enumerate() {
                *id = self.roots()[start as usize + k].load(Relaxed);
            }
            if let Err(e) = self.expand_batch(start, &ids[..n], w, out) {
                self.fail(self.full(e));
                return;
            }
        }
    }

    /// Expands the vertices `start..` with store ids `roots`: records acceptance and
    /// degrees, inserts all their successors together and gives the new ones ids.
    fn expand_batch(&self, start: u32, roots: &[u32], w: &mut Worker<'_>, out: &mut LevelOut) -> Result<(), TableFull> {
        self.store().load_batch(roots, &mut w.cursors);
        w.successors.clear();
        w.base_of.clear();
        w.steps.clear();
        w.degrees.clear();
        let mut deadlocks = 0;
        for j in 0..roots.len() {
            let state = &w.cursors[j].words;
            if !self.accepting.is_empty() && self.model.is_accepting(state) {
                let v = start as usize + j;
                self.accepting[v / 64].fetch_or(1 << (v % 64), Relaxed);
            }
            let before = w.steps.len();
            let (successors, base_of, steps) = (&mut w.successors, &mut w.base_of, &mut w.steps);
            let deadlock = w.generator.successors(state, |_, result| match result {
                Ok(target) => {
                    steps.push(base_of.len() as u32);
                    successors.extend_from_slice(target);
                    base_of.push(j as u32);
                }
                Err(_) => steps.push(ERROR_STEP),
            });
            deadlocks += deadlock as u64;
            w.degrees.push((w.steps.len() - before) as u32);
        }
        w.inserted.clear();
        let created =
            self.store().insert_batch(&w.successors, &w.cursors, &w.base_of, &mut w.batch, &mut w.inserted)?;
        if self.entries.fetch_add(created, Relaxed) + created > self.entry_limit {
            return Err(TableFull { capacity: self.store().capacity() });
        }
        let new = w.inserted.iter().filter(|(_, new)| *new).count() as u64;
        let first = self.next_id.fetch_add(new, Relaxed);
        if first + new > self.state_limit {
            self.fail(Stop::Failed(StateGraphError::TooManyStates { limit: self.state_limit }));
            return Ok(());
        }
        for (id, &(root, _)) in (first..).zip(w.inserted.iter().filter(|(_, new)| *new)) {
            self.roots()[id as usize].store(root, Relaxed);
            self.vertex_of[root as usize].store(id as u32, Relaxed);
        }
        out.degrees.extend_from_slice(&w.degrees);
        out.deadlocks += deadlocks;
        for &step in &w.steps {
            if step == ERROR_STEP {
                out.errors.push(out.targets.len());
                out.targets.push(0);
            } else {
                out.targets.push(w.inserted[step as usize].0);
            }
        }
        Ok(())
    }

    /// Replaces the store ids in `out`'s targets by vertex ids.
    fn translate(&self, out: &mut LevelOut) {
        for t in out.targets.iter_mut() {
            *t = self.vertex_of[*t as usize].load(Relaxed);
        }
        for &e in &out.errors {
            out.targets[e] = ERROR_TARGET;
        }
    }

    /// Appends every worker's chunks of the level to the CSR, in vertex order (none
    /// once the build stopped: its chunks may be incomplete, and it fails anyway).
    fn append_level(&self) {
        let mut outs: Vec<_> = self.outs.iter().map(|o| o.lock().unwrap()).collect();
        if self.stop.load(Relaxed) {
            outs.iter_mut().for_each(|out| **out = LevelOut::default());
            return;
        }
        let mut order: Vec<(u32, usize, usize)> = Vec::new();
        for (w, out) in outs.iter().enumerate() {
            order.extend(out.chunks.iter().enumerate().map(|(c, chunk)| (chunk.0, w, c)));
        }
        order.sort_unstable();
        let mut csr = self.csr.lock().unwrap();
        let CsrParts { offsets, targets, deadlocks, errors } = &mut *csr;
        for out in &outs {
            *deadlocks += out.deadlocks;
            *errors += out.errors.len() as u64;
        }
        for (_, w, c) in order {
            let out = &outs[w];
            let (_, n, degree_start, target_start) = out.chunks[c];
            let start = *offsets.last().unwrap();
            let mut end = start;
            for &d in &out.degrees[degree_start..degree_start + n as usize] {
                end += d as u64;
                offsets.push(end);
            }
            let count = (end - start) as usize;
            targets.extend_from_slice(&out.targets[target_start..target_start + count]);
        }
        for out in outs.iter_mut() {
            out.chunks.clear();
            out.degrees.clear();
            out.targets.clear();
            out.errors.clear();
            out.deadlocks = 0;
        }
    }

    /// The complete graph, the build's own arrays moved into it.
    fn finish(self) -> ParallelStateGraph {
        let parts = std::mem::take(&mut *self.csr.lock().unwrap());
        self.graph(parts)
    }

    /// The prefix built so far, its arrays copied: the build may go on.
    fn snapshot(&self) -> ParallelStateGraph {
        let parts = self.csr.lock().unwrap().clone();
        self.graph(parts)
    }

    fn graph(&self, parts: CsrParts) -> ParallelStateGraph {
        let real = self.next_id.load(Relaxed) as u32;
        let CsrParts { mut offsets, mut targets, mut deadlocks, errors } = parts;
        // A prefix's last level: vertices without edges.
        offsets.resize(real as usize + 1, *offsets.last().unwrap());
        let error_state = (errors > 0).then_some(real);
        if let Some(e) = error_state {
            targets.iter_mut().filter(|t| **t == ERROR_TARGET).for_each(|t| *t = e);
            offsets.push(targets.len() as u64);
            deadlocks += 1;
        }
        let vertices = offsets.len() - 1;
        let accepting = if self.accepting.is_empty() {
            Vec::new()
        } else {
            (0..vertices)
                .map(|v| v < real as usize && self.accepting[v / 64].load(Relaxed) >> (v % 64) & 1 == 1)
                .collect()
        };
        let csr = Csr::from_parts(offsets, targets).expect("the exploration builds a valid CSR");
        ParallelStateGraph {
            graph: StateGraph { graph: Graph::new(csr), error_state, deadlocks },
            accepting,
            complete: !self.cut.load(Relaxed),
            stored: Arc::clone(&self.stored),
            real,
        }
    }
}
