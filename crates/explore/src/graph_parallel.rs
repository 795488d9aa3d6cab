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
//! Like the parallel engine, the table starts small and grows in place
//! ([`TablePlan`]): past its load limit the workers leave, the store moves every state
//! into a larger table, the vertex → store id and store id → vertex maps are rebuilt
//! and the store ids not yet translated remapped, and the level goes on where it
//! stopped (vertex ids never change, so the edges so far stay as they are). A batch
//! whose insertion found no room is expanded again after the growth. The largest
//! table is full past its limit: an error ([`StateGraphError::TableFull`]), never a
//! dropped state.
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
use warpcheck_model::interface::{Model, Successors};
use warpcheck_store::{BatchScratch, MemoryBudget, TableFull, TablePlan, TreeCursor, TreeStore, ZeroedSlice};

use crate::graph::{StateGraph, StateGraphError};
use crate::parallel::{ProgressHook, Throttle};

mod grow;

/// How to build the graph.
#[derive(Clone, Copy, Debug)]
pub struct GraphOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// At most this many states (`None`: up to the `u32` id limit).
    pub max_states: Option<u64>,
    /// The sizes of the state table (it grows in place up to the largest, where a full
    /// table is an error); see [`GraphOptions::table_for`].
    pub table: TablePlan,
    /// Stop at the first level boundary with at least this many states discovered
    /// (`None`: build the whole graph); see the module's documentation.
    pub prefix: Option<u64>,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            threads: 1,
            max_states: None,
            table: GraphOptions::table_for(MemoryBudget::default_share()),
            prefix: None,
        }
    }
}

impl GraphOptions {
    /// Bytes the builder keeps per table entry beside it: the two maps between store
    /// ids and vertices, and a bit of acceptance.
    pub const EXTRA_BYTES_PER_ENTRY: f64 = 4.0 + 4.0 + 1.0 / 8.0;

    /// The table sizes that fit `budget`.
    pub fn table_for(budget: MemoryBudget) -> TablePlan {
        TablePlan::for_budget(budget, Self::EXTRA_BYTES_PER_ENTRY)
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
    /// Times the table grew during the build (in place: no state explored again).
    pub growths: u32,
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
pub fn state_graph_parallel<M: Model>(
    model: &M,
    options: &GraphOptions,
) -> Result<ParallelStateGraph, StateGraphError> {
    PrefixBuilder::new(model, options).build(options.prefix)
}

/// One build extended prefix by prefix ([`GraphOptions::prefix`] is ignored; each
/// call names its own).
pub struct PrefixBuilder<'m, M: Model> {
    model: &'m M,
    options: GraphOptions,
    build: Option<Build<'m, M>>,
    progress: Option<Arc<Throttle>>,
}

impl<'m, M: Model> PrefixBuilder<'m, M> {
    pub fn new(model: &'m M, options: &GraphOptions) -> PrefixBuilder<'m, M> {
        PrefixBuilder { model, options: *options, build: None, progress: None }
    }

    /// Reports the states, edges and levels built to `hook` as the build goes.
    pub fn with_progress(self, hook: ProgressHook) -> PrefixBuilder<'m, M> {
        PrefixBuilder { progress: Some(Arc::new(Throttle::new(hook))), ..self }
    }

    /// Extends the build to the first level boundary with at least `prefix` states
    /// (`None`: to the end) and returns the graph so far: a copy while it is a prefix,
    /// the build itself once complete (a later call then starts afresh).
    pub fn build(&mut self, prefix: Option<u64>) -> Result<ParallelStateGraph, StateGraphError> {
        let mut build = match self.build.take() {
            Some(build) => build,
            None => Build::new(self.model, &self.options)?,
        };
        build.progress = self.progress.clone();
        build.run(prefix.unwrap_or(u64::MAX))?;
        if build.cut.load(Relaxed) {
            let graph = build.snapshot();
            self.build = Some(build);
            Ok(graph)
        } else {
            Ok(build.finish())
        }
    }
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
struct Worker<'m, M: Model + 'm> {
    generator: M::Successors<'m>,
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

struct Build<'m, M: Model> {
    model: &'m M,
    plan: TablePlan,
    threads: usize,
    /// The store, with the vertex → store id map; and the store id → vertex map.
    stored: Arc<Stored>,
    vertex_of: ZeroedSlice<AtomicU32>,
    /// Accepting vertices, one bit each.
    accepting: ZeroedSlice<AtomicU64>,
    /// Vertices given so far; the current level is `level.0..level.1`.
    next_id: AtomicU64,
    level: Mutex<(u32, u32)>,
    cursor: AtomicU64,
    /// Table entries in use, and the load beyond which the table grows (or, the
    /// largest, is full).
    entries: AtomicU64,
    entry_limit: u64,
    /// Set when the table must grow: the workers leave.
    grow: AtomicBool,
    /// Set after a growth: the interrupted level goes on.
    resume: AtomicBool,
    /// Vertex ranges of the level whose expansion found no room: expanded after the
    /// growth.
    retry: Mutex<Vec<(u32, u32)>>,
    growths: u32,
    state_limit: u64,
    /// The current run stops at this many states, and sets `cut` when it does.
    prefix: u64,
    cut: AtomicBool,
    stop: AtomicBool,
    done: AtomicBool,
    failure: Mutex<Option<StateGraphError>>,
    outs: Vec<Mutex<LevelOut>>,
    csr: Mutex<CsrParts>,
    /// Where the leader reports each level's start, and the levels started.
    progress: Option<Arc<Throttle>>,
    levels: AtomicU32,
}

#[derive(Clone, Default)]
struct CsrParts {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    deadlocks: u64,
    errors: u64,
}

impl<'m, M: Model> Build<'m, M> {
    /// A build holding the initial state as vertex 0, nothing expanded.
    fn new(model: &'m M, options: &GraphOptions) -> Result<Build<'m, M>, StateGraphError> {
        let plan = options.table;
        let (store, root, created) = crate::parallel::store_initial(model, plan)
            .map_err(|source| StateGraphError::TableFull { source, states: 0 })?;
        let capacity = store.capacity() as usize;
        let entry_limit = plan.load_limit(store.log2_capacity());
        let threads = options.threads.max(1);
        let state_limit = options.max_states.unwrap_or(MAX_VERTICES - 1).min(MAX_VERTICES - 1);
        let build = Build {
            model,
            plan,
            threads,
            stored: Arc::new(Stored { store, roots: ZeroedSlice::new(capacity) }),
            vertex_of: ZeroedSlice::new(capacity),
            accepting: ZeroedSlice::new(if model.property().is_some() { capacity.div_ceil(64) } else { 0 }),
            next_id: AtomicU64::new(1),
            level: Mutex::new((0, 0)),
            cursor: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            entry_limit,
            grow: AtomicBool::new(false),
            resume: AtomicBool::new(false),
            retry: Mutex::new(Vec::new()),
            growths: 0,
            state_limit,
            prefix: u64::MAX,
            cut: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
            failure: Mutex::new(None),
            outs: (0..threads).map(|_| Mutex::new(LevelOut::default())).collect(),
            csr: Mutex::new(CsrParts { offsets: vec![0], ..CsrParts::default() }),
            progress: None,
            levels: AtomicU32::new(0),
        };
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
    /// states (then `cut` is set), growing the table when it must.
    fn run(&mut self, prefix: u64) -> Result<(), StateGraphError> {
        self.prefix = prefix;
        self.cut.store(false, Relaxed);
        loop {
            self.done.store(false, Relaxed);
            let barrier = Barrier::new(self.threads);
            let build = &*self;
            std::thread::scope(|s| {
                for worker in 0..build.threads {
                    let barrier = &barrier;
                    s.spawn(move || build.work(worker, barrier));
                }
            });
            if let Some(e) = self.failure.lock().unwrap().take() {
                return Err(e);
            }
            if !self.grow.load(Relaxed) {
                break;
            }
            self.grow_table()
                .map_err(|source| StateGraphError::TableFull { source, states: self.next_id.load(Relaxed) })?;
        }
        let errors = self.csr.lock().unwrap().errors;
        if self.next_id.load(Relaxed) + (errors > 0) as u64 > self.state_limit {
            return Err(StateGraphError::TooManyStates { limit: self.state_limit });
        }
        Ok(())
    }

    /// The table has no room (past its limit, or an insertion found none): it grows,
    /// or at the largest table the build fails.
    fn out_of_room(&self, source: TableFull) {
        if self.plan.next(self.store().log2_capacity()).is_some() {
            self.grow.store(true, Relaxed);
        } else {
            self.fail(StateGraphError::TableFull { source, states: self.next_id.load(Relaxed) });
        }
    }

    /// Whether the workers must stop where they are (the build fails or grows).
    fn halted(&self) -> bool {
        self.stop.load(Relaxed) || self.grow.load(Relaxed)
    }

    /// Records why the build stops (the first reason wins) and stops it.
    fn fail(&self, error: StateGraphError) {
        self.failure.lock().unwrap().get_or_insert(error);
        self.stop.store(true, Relaxed);
    }

    /// One worker: per level, expand chunks of the level, then translate its targets;
    /// the barrier's leader also starts each level and appends the chunks to the CSR.
    fn work(&self, worker: usize, barrier: &Barrier) {
        let mut w = Worker {
            generator: self.model.successors(),
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
            while !self.halted() {
                let retried = self.retry.lock().unwrap().pop();
                let (first, last) = match retried {
                    Some(range) => range,
                    None => {
                        let first = self.cursor.fetch_add(chunk, Relaxed);
                        if first >= end as u64 {
                            break;
                        }
                        (first as u32, (first + chunk).min(end as u64) as u32)
                    }
                };
                self.expand_chunk(first, last, &mut w, &mut out);
            }
            drop(out);
            barrier.wait();
            if self.grow.load(Relaxed) {
                // The level is not done: the table grows first (the next barrier's
                // leader ends this run of the workers).
                continue;
            }
            // Every successor found in this level now has its vertex id.
            self.translate(&mut self.outs[worker].lock().unwrap());
            if barrier.wait().is_leader() {
                self.append_level();
            }
        }
    }

    /// Starts the next level: the vertices given since the last one began; or ends the
    /// build, when there are none, when it failed, or at the prefix's size.
    /// The level stays where it was at a cut, so that the next run expands it, and
    /// when the table must grow or has just grown (the level goes on after it).
    fn start_level(&self) {
        if self.grow.load(Relaxed) {
            self.done.store(true, Relaxed);
            return;
        }
        if self.resume.swap(false, Relaxed) {
            self.done.store(self.stop.load(Relaxed), Relaxed);
            return;
        }
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
        let levels = self.levels.fetch_add(1, Relaxed);
        if let Some(progress) = &self.progress {
            let edges = self.csr.lock().unwrap().targets.len() as u64;
            progress.report(given as u64, edges, levels, false);
        }
        self.done.store(level.0 == level.1 || self.stop.load(Relaxed), Relaxed);
    }

    /// Expands vertices `first..last` into `out`, a batch at a time. A batch that
    /// finds no room in the table ends the chunk: it and the rest wait for the growth.
    fn expand_chunk(&self, first: u32, last: u32, w: &mut Worker<'_, M>, out: &mut LevelOut) {
        let chunk = out.chunks.len();
        out.chunks.push((first, 0, out.degrees.len(), out.targets.len()));
        let mut ids = [0u32; BATCH];
        for start in (first..last).step_by(BATCH) {
            let n = (last - start).min(BATCH as u32) as usize;
            for (k, id) in ids[..n].iter_mut().enumerate() {
                *id = self.roots()[start as usize + k].load(Relaxed);
            }
            match self.expand_batch(start, &ids[..n], w, out) {
                Ok(()) => out.chunks[chunk].1 += n as u32,
                Err(full) => {
                    self.retry.lock().unwrap().push((start, last));
                    self.out_of_room(full);
                    return;
                }
            }
        }
    }

    /// Expands the vertices `start..` with store ids `roots`: records acceptance and
    /// degrees, inserts all their successors together and gives the new ones ids.
    fn expand_batch(
        &self,
        start: u32,
        roots: &[u32],
        w: &mut Worker<'_, M>,
        out: &mut LevelOut,
    ) -> Result<(), TableFull> {
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
        if created > 0 && self.entries.fetch_add(created, Relaxed) + created > self.entry_limit {
            self.out_of_room(TableFull { capacity: self.store().capacity() });
        }
        let new = w.inserted.iter().filter(|(_, new)| *new).count() as u64;
        let first = self.next_id.fetch_add(new, Relaxed);
        if first + new > self.state_limit {
            self.fail(StateGraphError::TooManyStates { limit: self.state_limit });
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
            growths: self.growths,
            stored: Arc::clone(&self.stored),
            real,
        }
    }
}
