//! The parallel breadth-first engine: all cores expand one BFS level at a time over
//! the lock-free, tree-compressed [`TreeStore`], checking deadlocks, assertions,
//! invariants and evaluation errors as they go.
//!
//! Levels are processed in chunks claimed from an atomic cursor, so both cores stay
//! busy whatever the shape of the level. A state is new exactly once, for the worker
//! whose insertion set its root bit; that worker records the state's parent (when
//! traces are kept), so following parents from any state gives a shortest path, and
//! the first violation found is at the lowest level where any exists.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, RwLock};
use std::time::Instant;

use warpcheck_model::{Generator, Model};

use crate::check::{Checks, Violation, ViolationKind};
use crate::trace::Trace;
use warpcheck_store::{BatchScratch, TableFull, TreeCursor, TreeStore, ZeroedSlice};

/// How to explore.
pub struct Options<'a> {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The state table starts with `2^log2_table` 8-byte entries...
    pub log2_table: u32,
    /// ...and grows (by restarting the exploration with a table 8 times larger) while
    /// it stays within `2^max_log2_table` entries.
    pub max_log2_table: u32,
    pub checks: Checks,
    /// Stop at the first violation (else explore everything and count violations).
    pub stop_at_first: bool,
    /// Keep a parent link per state to print counterexamples (4 bytes per table entry).
    pub traces: bool,
    /// Called now and then with the progress so far.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Breadth-first (shortest counterexamples) or depth-first.
    pub order: Order,
}

/// The order in which states are expanded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Level by level: counterexamples are shortest.
    #[default]
    Bfs,
    /// Each worker depth first from its own stack, sharing work when another is idle;
    /// counterexamples are valid but not shortest, and there are no levels.
    Dfs,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            threads: 1,
            log2_table: 24,
            max_log2_table: 28,
            checks: Checks::default(),
            stop_at_first: true,
            traces: true,
            progress: None,
            order: Order::Bfs,
        }
    }
}

/// Progress of a running exploration.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub states: u64,
    pub transitions: u64,
    pub level: u32,
    pub seconds: f64,
}

/// The result of an exploration.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Reachable states, including the error state when some step raises an error.
    pub states: u64,
    /// Edges, one per enabled step, including steps into the error state.
    pub transitions: u64,
    /// States without successors (the error state is one).
    pub deadlocks: u64,
    /// BFS levels explored (the initial state is level 0).
    pub levels: u32,
    /// States where the property automaton accepts.
    pub accepting: u64,
    /// Steps raising an evaluation error.
    pub error_transitions: u64,
    /// Whether the whole state space was explored (not stopped at a violation).
    pub complete: bool,
    /// Violations found, one entry per property, in the order found.
    pub violations: Vec<Violation>,
    /// Entries of the state table in use, and its capacity.
    pub table_entries: u64,
    pub table_capacity: u64,
    /// Bytes reserved for the state table, root bitmap and parent links.
    pub reserved_bytes: u64,
    pub seconds: f64,
}

impl Report {
    /// Bytes of the state table in use per state (8 per entry).
    pub fn bytes_per_state(&self) -> f64 {
        self.table_entries as f64 * 8.0 / self.states.max(1) as f64
    }
}

mod dfs;

/// Exploration ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    #[error("{source}: explored {states} states before it filled up; give more memory (--memory)")]
    TableFull { source: TableFull, states: u64 },
}

/// Why one attempt with a given table size stopped early.
enum Attempt {
    Done(Report),
    /// The table is too full: try again with a larger one.
    Grow,
    Failed(ExploreError),
}

/// Load factor (in eighths) at which a table that may still grow is abandoned, and at
/// which a table that may not is declared full.
const GROW_AT_EIGHTHS: u64 = 6;
const FULL_AT_EIGHTHS: u64 = 7;

/// Counters of one worker, summed at the end.
#[derive(Default)]
struct Counts {
    states: u64,
    transitions: u64,
    deadlocks: u64,
    accepting: u64,
    error_transitions: u64,
    entries: u64,
}

impl Counts {
    /// States, transitions and table entries so far.
    fn snapshot(&self) -> (u64, u64, u64) {
        (self.states, self.transitions, self.entries)
    }

    fn add(&mut self, o: &Counts) {
        self.states += o.states;
        self.transitions += o.transitions;
        self.deadlocks += o.deadlocks;
        self.accepting += o.accepting;
        self.error_transitions += o.error_transitions;
        self.entries += o.entries;
    }
}

/// States expanded together, so that the memory accesses of their loads and of their
/// successors' inserts overlap.
const BATCH: usize = 8;

/// The buffers of one worker thread.
struct Worker<'m> {
    generator: Generator<'m>,
    /// The states being expanded, with their trees.
    cursors: Vec<TreeCursor>,
    /// Their successor states, back to back, and which of them each came from.
    successors: Vec<u32>,
    base_of: Vec<u32>,
    batch: BatchScratch,
    inserted: Vec<(u32, bool)>,
    /// New states found for the next level.
    next: Vec<u32>,
    found: Found,
    counts: Counts,
}

/// First occurrence (state id) and count of each violated property.
type Found = HashMap<(u8, usize), (ViolationKind, u32, u64)>;

struct Shared<'m> {
    model: &'m Model,
    options: &'m Options<'m>,
    store: TreeStore,
    /// Parent id + 1 of each state (0: none), indexed by state id; empty without traces.
    parents: ZeroedSlice<AtomicU32>,
    frontier: RwLock<Vec<u32>>,
    cursor: AtomicUsize,
    next: Mutex<Vec<u32>>,
    stop: AtomicBool,
    done: AtomicBool,
    full: Mutex<Option<TableFull>>,
    counts: Mutex<Counts>,
    found: Mutex<Found>,
    progress_states: AtomicU64,
    progress_transitions: AtomicU64,
    /// Table entries in use (updated per chunk) and the load at which to stop.
    entries: AtomicU64,
    limit: u64,
    grow: AtomicBool,
    /// Shared work of the depth-first order.
    pool: Mutex<dfs::Pool>,
    pool_ready: std::sync::Condvar,
    hungry: AtomicUsize,
    /// Levels started; the one being expanded is `levels - 1`.
    levels: AtomicU32,
    start: Instant,
}

/// Explores the state space of `model` breadth first on `options.threads` threads.
pub fn explore_parallel(model: &Model, options: &Options<'_>) -> Result<Report, ExploreError> {
    let start = Instant::now();
    let mut log2 = options.log2_table.min(options.max_log2_table);
    loop {
        match attempt(model, options, log2, start) {
            Attempt::Done(report) => return Ok(report),
            Attempt::Failed(e) => return Err(e),
            Attempt::Grow => log2 = (log2 + 3).min(options.max_log2_table),
        }
    }
}

/// Explores with a table of `2^log2` entries.
fn attempt(model: &Model, options: &Options<'_>, log2: u32, start: Instant) -> Attempt {
    let store = TreeStore::new(model.state_words(), log2);
    let may_grow = log2 < options.max_log2_table;
    let limit = store.capacity() / 8 * if may_grow { GROW_AT_EIGHTHS } else { FULL_AT_EIGHTHS };
    let parents = if options.traces { ZeroedSlice::new(store.capacity() as usize) } else { ZeroedSlice::new(0) };
    let (root, _, entries) = match store.insert_fresh(&model.initial_state()) {
        Ok(r) => r,
        Err(source) => return Attempt::Failed(ExploreError::TableFull { source, states: 0 }),
    };
    let shared = Shared {
        model,
        options,
        store,
        parents,
        frontier: RwLock::new(Vec::new()),
        cursor: AtomicUsize::new(0),
        next: Mutex::new(vec![root]),
        stop: AtomicBool::new(false),
        done: AtomicBool::new(false),
        full: Mutex::new(None),
        counts: Mutex::new(Counts { states: 1, entries, ..Counts::default() }),
        found: Mutex::new(HashMap::new()),
        progress_states: AtomicU64::new(1),
        progress_transitions: AtomicU64::new(0),
        entries: AtomicU64::new(entries),
        limit,
        grow: AtomicBool::new(false),
        pool: Mutex::new(dfs::Pool::default()),
        pool_ready: std::sync::Condvar::new(),
        hungry: AtomicUsize::new(0),
        levels: AtomicU32::new(0),
        start,
    };
    let threads = options.threads.max(1);
    let barrier = Barrier::new(threads);
    std::thread::scope(|s| {
        for worker in 0..threads {
            let (shared, barrier) = (&shared, &barrier);
            match options.order {
                Order::Bfs => s.spawn(move || shared.work(worker, barrier)),
                Order::Dfs => s.spawn(move || shared.work_dfs(worker)),
            };
        }
    });
    if shared.grow.load(Ordering::Relaxed) {
        return if may_grow { Attempt::Grow } else { Attempt::Failed(shared.full_error()) };
    }
    if shared.full.lock().unwrap().is_some() {
        return Attempt::Failed(shared.full_error());
    }
    Attempt::Done(shared.report())
}

impl Shared<'_> {
    /// One worker: a level at a time, claim chunks of the frontier and expand them.
    fn work(&self, worker: usize, barrier: &Barrier) {
        let mut w = self.worker();
        let mut last_report = Instant::now();
        loop {
            if barrier.wait().is_leader() {
                // Start the next level with the states found in this one.
                let mut frontier = self.frontier.write().unwrap();
                let mut next = self.next.lock().unwrap();
                std::mem::swap(&mut *frontier, &mut *next);
                next.clear();
                self.cursor.store(0, Ordering::Relaxed);
                let stop = self.stop.load(Ordering::Relaxed);
                self.done.store(frontier.is_empty() || stop, Ordering::Relaxed);
                if !frontier.is_empty() && !stop {
                    self.levels.fetch_add(1, Ordering::Relaxed);
                }
            }
            barrier.wait();
            if self.done.load(Ordering::Relaxed) {
                break;
            }
            {
                let frontier = self.frontier.read().unwrap();
                let chunk = (frontier.len() / (self.options.threads * 16)).clamp(1, 512);
                let level = self.levels.load(Ordering::Relaxed) - 1;
                while !self.stop.load(Ordering::Relaxed) {
                    let begin = self.cursor.fetch_add(chunk, Ordering::Relaxed);
                    if begin >= frontier.len() {
                        break;
                    }
                    let ids = &frontier[begin..(begin + chunk).min(frontier.len())];
                    let before = w.counts.snapshot();
                    for batch in ids.chunks(BATCH) {
                        if let Err(full) = self.expand(batch, &mut w) {
                            *self.full.lock().unwrap() = Some(full);
                            self.stop.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    self.account(before, &w.counts);
                    if worker == 0 && last_report.elapsed().as_millis() >= 250 {
                        last_report = Instant::now();
                        self.report_progress(level);
                    }
                }
            }
            self.next.lock().unwrap().append(&mut w.next);
            self.merge_found(&mut w.found);
            self.counts.lock().unwrap().add(&std::mem::take(&mut w.counts));
        }
    }

    fn worker(&self) -> Worker<'_> {
        Worker {
            generator: Generator::new(self.model),
            cursors: (0..BATCH).map(|_| self.store.cursor()).collect(),
            successors: Vec::new(),
            base_of: Vec::new(),
            batch: BatchScratch::default(),
            inserted: Vec::new(),
            next: Vec::new(),
            found: Found::new(),
            counts: Counts::default(),
        }
    }

    /// Publishes a worker's progress since `before` and stops the run (to grow the
    /// table, or as full) when the table passes its load limit.
    fn account(&self, before: (u64, u64, u64), counts: &Counts) {
        self.progress_states.fetch_add(counts.states - before.0, Ordering::Relaxed);
        self.progress_transitions.fetch_add(counts.transitions - before.1, Ordering::Relaxed);
        let added = counts.entries - before.2;
        if self.entries.fetch_add(added, Ordering::Relaxed) + added > self.limit {
            self.grow.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn full_error(&self) -> ExploreError {
        let capacity = self.store.capacity();
        let source = self.full.lock().unwrap().unwrap_or(TableFull { capacity });
        ExploreError::TableFull { source, states: self.progress_states.load(Ordering::Relaxed) }
    }

    fn report_progress(&self, level: u32) {
        if let Some(progress) = self.options.progress {
            progress(&Progress {
                states: self.progress_states.load(Ordering::Relaxed),
                transitions: self.progress_transitions.load(Ordering::Relaxed),
                level,
                seconds: self.start.elapsed().as_secs_f64(),
            });
        }
    }

    fn merge_found(&self, local: &mut Found) {
        if local.is_empty() {
            return;
        }
        let mut found = self.found.lock().unwrap();
        for (key, (kind, state, count)) in local.drain() {
            found.entry(key).and_modify(|e| e.2 += count).or_insert((kind, state, count));
        }
        if self.options.stop_at_first {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Expands the states `ids`: checks each, generates their successors and stores
    /// the new ones (all successors of the batch are inserted together).
    fn expand(&self, ids: &[u32], w: &mut Worker<'_>) -> Result<(), TableFull> {
        let model = self.model;
        let checks = &self.options.checks;
        self.store.load_batch(ids, &mut w.cursors);
        w.successors.clear();
        w.base_of.clear();
        for (j, &id) in ids.iter().enumerate() {
            let state = &w.cursors[j].words;
            let found = &mut w.found;
            let mut violation = |kind: ViolationKind| {
                found.entry(kind.category()).and_modify(|e| e.2 += 1).or_insert((kind, id, 1));
            };
            for (i, inv) in checks.invariants.iter().enumerate() {
                let ev = model.evaluator(&mut []);
                match ev.holds(&inv.expr, state) {
                    Ok(true) => {}
                    Ok(false) => violation(ViolationKind::Invariant { invariant: i, error: None }),
                    Err(e) => violation(ViolationKind::Invariant { invariant: i, error: Some(e) }),
                }
            }
            if checks.assertions {
                if let Some(f) = model.violated_assertion(state) {
                    violation(ViolationKind::Assertion { assertion: f.assertion, error: f.error });
                }
            }
            let counts = &mut w.counts;
            counts.accepting += model.is_accepting(state) as u64;
            let (successors, base_of) = (&mut w.successors, &mut w.base_of);
            let deadlock = w.generator.successors(state, |_, result| {
                counts.transitions += 1;
                match result {
                    Ok(target) => {
                        successors.extend_from_slice(target);
                        base_of.push(j as u32);
                    }
                    Err(e) => {
                        counts.error_transitions += 1;
                        violation(ViolationKind::EvalError(e));
                    }
                }
            });
            if deadlock {
                counts.deadlocks += 1;
                if checks.deadlock {
                    violation(ViolationKind::Deadlock);
                }
            }
        }
        w.inserted.clear();
        w.counts.entries +=
            self.store.insert_batch(&w.successors, &w.cursors, &w.base_of, &mut w.batch, &mut w.inserted)?;
        for (&(child, new), &j) in w.inserted.iter().zip(&w.base_of) {
            if new {
                w.counts.states += 1;
                w.next.push(child);
                if let Some(p) = self.parents.get(child as usize) {
                    p.store(ids[j as usize] + 1, Ordering::Relaxed);
                }
            }
        }
        Ok(())
    }

    fn report(&self) -> Report {
        let counts = std::mem::take(&mut *self.counts.lock().unwrap());
        let error_state = counts.error_transitions > 0;
        let mut found: Vec<_> = self.found.lock().unwrap().drain().map(|(_, v)| v).collect();
        found.sort_by_key(|(kind, _, _)| kind.category());
        let stopped = self.stop.load(Ordering::Relaxed);
        let mut report = Report {
            states: counts.states + error_state as u64,
            transitions: counts.transitions,
            deadlocks: counts.deadlocks + error_state as u64,
            levels: self.levels.load(Ordering::Relaxed),
            accepting: counts.accepting,
            error_transitions: counts.error_transitions,
            complete: !stopped,
            violations: Vec::new(),
            table_entries: counts.entries,
            table_capacity: self.store.capacity(),
            reserved_bytes: self.store.reserved_bytes() + self.parents.len() as u64 * 4,
            seconds: self.start.elapsed().as_secs_f64(),
        };
        for (kind, state, count) in found {
            let trace = (!self.parents.is_empty()).then(|| self.trace(state, kind));
            report.violations.push(Violation { kind, count, trace });
        }
        report
    }

    /// The shortest trace to state `id` (through parent links), ending with the
    /// erroring step for an evaluation error.
    fn trace(&self, id: u32, kind: ViolationKind) -> Trace {
        let mut ids = vec![id];
        loop {
            let parent = self.parents[*ids.last().unwrap() as usize].load(Ordering::Relaxed);
            if parent == 0 {
                break;
            }
            ids.push(parent - 1);
        }
        let mut cursor = self.store.cursor();
        let states: Vec<Vec<u32>> = ids
            .iter()
            .rev()
            .map(|&i| {
                self.store.load(i, &mut cursor);
                cursor.words.clone()
            })
            .collect();
        let error = match kind {
            ViolationKind::EvalError(e) => Some(e),
            _ => None,
        };
        Trace::build(self.model, &states, error)
    }
}
