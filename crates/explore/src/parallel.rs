//! The parallel breadth-first engine: all cores expand one BFS level at a time over
//! the lock-free, tree-compressed [`TreeStore`], checking deadlocks, assertions,
//! invariants and evaluation errors as they go.
//!
//! Levels are processed in chunks claimed from an atomic cursor, so both cores stay
//! busy whatever the shape of the level. A state is new exactly once, for the worker
//! whose insertion set its root bit; that worker records the state's parent (when
//! traces are kept), so following parents from any state gives a shortest path, and
//! the first violation found is at the lowest level where any exists.
//!
//! The table starts small and grows in place ([`TablePlan`]): once it is past its load
//! limit the workers stop where they are (between two batches of states) and leave;
//! the store moves every state into a table [`GROWTH`](warpcheck_store::budget::GROWTH)
//! times larger, the ids the engine holds are remapped (the rest of the level, the
//! next level, parent links, the first violating states; in depth-first order each
//! worker's stack and the shared pool), and the workers start again where they
//! stopped. A batch whose insertion runs out of room is expanded again after the
//! growth, its counts undone: no state is dropped, none is expanded twice. At the
//! largest table, past its limit, the run ends with [`ExploreError::TableFull`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, RwLock};
use std::time::Instant;

use warpcheck_model::interface::{LabelId, Model, Successors};
use warpcheck_store::{BatchScratch, MemoryBudget, TableFull, TablePlan, TreeCursor, TreeStore, ZeroedSlice};

use crate::check::{Checks, Violation, ViolationKind};
use crate::trace::Trace;

/// How to explore.
pub struct Options<'a> {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The sizes of the state table: it starts at the plan's first size and grows in
    /// place (every state moved, nothing explored again) up to its largest, where a
    /// full table is an error. See [`Options::table_for`].
    pub table: TablePlan,
    pub checks: Checks,
    /// Stop at the first violation (else explore everything and count violations).
    pub stop_at_first: bool,
    /// Keep a parent link per state to print counterexamples (4 bytes per table entry).
    pub traces: bool,
    /// Called now and then with the progress so far, and once more with the final counts.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Breadth-first (shortest counterexamples) or depth-first.
    pub order: Order,
}

impl Options<'_> {
    /// Bytes the engine keeps per table entry beside it: the parent link, with traces.
    pub fn extra_bytes_per_entry(traces: bool) -> f64 {
        if traces {
            4.0
        } else {
            0.0
        }
    }

    /// The table sizes that fit `budget` (with parent links if `traces`).
    pub fn table_for(budget: MemoryBudget, traces: bool) -> TablePlan {
        TablePlan::for_budget(budget, Self::extra_bytes_per_entry(traces))
    }
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
            table: Options::table_for(MemoryBudget::default_share(), true),
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
    /// The breadth-first level, or with `depth_first` the depth of the search stack.
    pub level: u32,
    pub seconds: f64,
    pub depth_first: bool,
}

/// Where a long search sends its progress, from any thread (a few times a second).
#[derive(Clone)]
pub struct ProgressHook(pub std::sync::Arc<dyn Fn(&Progress) + Send + Sync>);

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressHook")
    }
}

/// Calls a [`ProgressHook`] at most every `interval`: the first call after it passed.
#[derive(Debug)]
pub struct Throttle {
    hook: ProgressHook,
    start: Instant,
    last: std::sync::Mutex<Instant>,
}

impl Throttle {
    /// How often at most a search reports.
    pub const INTERVAL: std::time::Duration = std::time::Duration::from_millis(200);

    pub fn new(hook: ProgressHook) -> Throttle {
        let start = Instant::now();
        Throttle { hook, start, last: std::sync::Mutex::new(start) }
    }

    /// Reports `states`, `transitions` and `level` if the interval passed since the
    /// last report (`seconds` counted from the throttle's start).
    pub fn report(&self, states: u64, transitions: u64, level: u32, depth_first: bool) {
        let Ok(mut last) = self.last.try_lock() else { return };
        if last.elapsed() < Self::INTERVAL {
            return;
        }
        *last = Instant::now();
        let seconds = self.start.elapsed().as_secs_f64();
        (self.hook.0)(&Progress { states, transitions, level, seconds, depth_first });
    }
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
    /// States expanded (each reachable state once, the error state never).
    pub expanded: u64,
    /// Times the state table grew (in place: its states moved, none explored again),
    /// and the seconds the growths took (included in `seconds`).
    pub growths: u32,
    pub growth_seconds: f64,
    pub seconds: f64,
}

impl Report {
    /// Bytes of the state table in use per state (8 per entry).
    pub fn bytes_per_state(&self) -> f64 {
        self.table_entries as f64 * 8.0 / self.states.max(1) as f64
    }
}

mod bfs;
mod dfs;
mod grow;

/// Exploration ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    #[error("{source}: explored {states} states before it filled up; give more memory (--memory)")]
    TableFull { source: TableFull, states: u64 },
}

/// Counters of one worker, summed at the end.
#[derive(Clone, Copy, Default)]
struct Counts {
    states: u64,
    transitions: u64,
    deadlocks: u64,
    accepting: u64,
    error_transitions: u64,
    expanded: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.states += o.states;
        self.transitions += o.transitions;
        self.deadlocks += o.deadlocks;
        self.accepting += o.accepting;
        self.error_transitions += o.error_transitions;
        self.expanded += o.expanded;
    }
}

/// States expanded together, so that the memory accesses of their loads and of their
/// successors' inserts overlap.
const BATCH: usize = 8;
/// Table entries a worker creates before it adds them to the shared count (which
/// decides when the table grows).
const ENTRIES_AT_ONCE: u64 = 1024;

/// The buffers of one worker thread.
struct Worker<'m, M: Model + 'm> {
    generator: M::Successors<'m>,
    /// The states being expanded, with their trees.
    cursors: Vec<TreeCursor>,
    /// Their successor states, back to back, and which of them each came from.
    successors: Vec<u32>,
    base_of: Vec<u32>,
    batch: BatchScratch,
    inserted: Vec<(u32, bool)>,
    /// New states found for the next level (depth first: the stack).
    next: Vec<u32>,
    /// Violations of the batch being expanded, kept once its successors are stored.
    violations: Vec<(ViolationKind, u32)>,
    found: Found,
    counts: Counts,
    /// Counts already published as progress, and entries not yet added to the shared
    /// count.
    published: Counts,
    entries: u64,
}

/// First occurrence (state id) and count of each violated property.
type Found = HashMap<(u8, usize), (ViolationKind, u32, u64)>;

struct Shared<'m, M: Model> {
    model: &'m M,
    /// The model's assertion labels, checked with `Checks::assertions`.
    assertions: Vec<LabelId>,
    options: &'m Options<'m>,
    store: TreeStore,
    /// Parent id + 1 of each state (0: none), indexed by state id; empty without traces.
    parents: ZeroedSlice<AtomicU32>,
    frontier: RwLock<Vec<u32>>,
    cursor: AtomicUsize,
    next: Mutex<Vec<u32>>,
    /// States of the level whose expansion ran out of room: expanded after the growth.
    retry: Mutex<Vec<u32>>,
    stop: AtomicBool,
    done: AtomicBool,
    full: Mutex<Option<TableFull>>,
    counts: Mutex<Counts>,
    found: Mutex<Found>,
    progress_states: AtomicU64,
    progress_transitions: AtomicU64,
    /// Table entries in use (as the workers last added them), and the load beyond
    /// which the table grows, or, the largest, is full.
    entries: AtomicU64,
    limit: u64,
    /// Set when the table must grow: the workers stop and leave.
    grow: AtomicBool,
    growths: u32,
    growth_seconds: f64,
    /// Shared work of the depth-first order.
    pool: Mutex<dfs::Pool>,
    pool_ready: std::sync::Condvar,
    hungry: AtomicUsize,
    /// Levels started; the one being expanded is `levels - 1`.
    levels: AtomicU32,
    start: Instant,
}

/// Explores the state space of `model` on `options.threads` threads, breadth first
/// (or depth first, as `options.order` says).
pub fn explore_parallel<M: Model>(model: &M, options: &Options<'_>) -> Result<Report, ExploreError> {
    let mut shared = Shared::new(model, options)?;
    loop {
        shared.run_workers();
        if !shared.grow.load(Ordering::Relaxed) || shared.stop.load(Ordering::Relaxed) {
            break;
        }
        shared.grow_table().map_err(|source| shared.full_error(source))?;
    }
    if let Some(source) = *shared.full.lock().unwrap() {
        return Err(shared.full_error(source));
    }
    // The final counts, so that every run reports progress at least once.
    shared.report_progress(shared.levels.load(Ordering::Relaxed).saturating_sub(1));
    Ok(shared.report())
}

/// A store of the plan's first size holding the initial state (or of the first size
/// that can hold it), with the state's id and the entries it took; its tree's leaf
/// order is the model's ([`crate::leaf_order::for_model`]).
pub fn store_initial<M: Model>(model: &M, plan: TablePlan) -> Result<(TreeStore, u32, u64), TableFull> {
    let mut log2 = plan.first_log2();
    let order = crate::leaf_order::for_model(model);
    loop {
        let store = TreeStore::with_order(order.clone(), log2);
        match store.insert_fresh(&model.initial_state()) {
            Ok((root, _, entries)) => return Ok((store, root, entries)),
            Err(full) => log2 = plan.next(log2).ok_or(full)?,
        }
    }
}

impl<'m, M: Model> Shared<'m, M> {
    /// The shared state of a run: the initial state stored, nothing expanded.
    fn new(model: &'m M, options: &'m Options<'m>) -> Result<Shared<'m, M>, ExploreError> {
        let start = Instant::now();
        let (store, root, entries) =
            store_initial(model, options.table).map_err(|source| ExploreError::TableFull { source, states: 0 })?;
        let parents = if options.traces { ZeroedSlice::new(store.capacity() as usize) } else { ZeroedSlice::new(0) };
        let threads = options.threads.max(1);
        let mut pool = dfs::Pool::new(threads);
        let mut next = vec![root];
        if options.order == Order::Dfs {
            // Worker 0 starts from the initial state.
            std::mem::swap(&mut pool.parked[0], &mut next);
        }
        Ok(Shared {
            assertions: model.assertion_labels(),
            model,
            options,
            limit: options.table.load_limit(store.log2_capacity()),
            store,
            parents,
            frontier: RwLock::new(Vec::new()),
            cursor: AtomicUsize::new(0),
            next: Mutex::new(next),
            retry: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
            full: Mutex::new(None),
            counts: Mutex::new(Counts { states: 1, ..Counts::default() }),
            found: Mutex::new(HashMap::new()),
            progress_states: AtomicU64::new(1),
            progress_transitions: AtomicU64::new(0),
            entries: AtomicU64::new(entries),
            grow: AtomicBool::new(false),
            growths: 0,
            growth_seconds: 0.0,
            pool: Mutex::new(pool),
            pool_ready: std::sync::Condvar::new(),
            hungry: AtomicUsize::new(0),
            levels: AtomicU32::new(0),
            start,
        })
    }

    /// Runs the workers until the exploration ends or the table must grow.
    fn run_workers(&self) {
        let threads = self.options.threads.max(1);
        let barrier = Barrier::new(threads);
        std::thread::scope(|s| {
            for worker in 0..threads {
                let (shared, barrier) = (self, &barrier);
                match self.options.order {
                    Order::Bfs => s.spawn(move || shared.work(worker, barrier)),
                    Order::Dfs => s.spawn(move || shared.work_dfs(worker)),
                };
            }
        });
    }

    fn worker(&self) -> Worker<'_, M> {
        Worker {
            generator: self.model.successors(),
            cursors: (0..BATCH).map(|_| self.store.cursor()).collect(),
            successors: Vec::new(),
            base_of: Vec::new(),
            batch: BatchScratch::default(),
            inserted: Vec::new(),
            next: Vec::new(),
            violations: Vec::new(),
            found: Found::new(),
            counts: Counts::default(),
            published: Counts::default(),
            entries: 0,
        }
    }

    /// Publishes a worker's progress and its table entries.
    fn account(&self, w: &mut Worker<'_, M>) {
        let (now, before) = (&w.counts, &mut w.published);
        self.progress_states.fetch_add(now.states - before.states, Ordering::Relaxed);
        self.progress_transitions.fetch_add(now.transitions - before.transitions, Ordering::Relaxed);
        *before = *now;
        self.add_entries(w);
    }

    /// Adds a worker's new table entries to the shared count; past the limit, asks
    /// for the table to grow, or at the largest table stops the run as full.
    fn add_entries(&self, w: &mut Worker<'_, M>) {
        let added = std::mem::take(&mut w.entries);
        if added > 0 && self.entries.fetch_add(added, Ordering::Relaxed) + added > self.limit {
            self.out_of_room(TableFull { capacity: self.store.capacity() });
        }
    }

    /// The table has no room (past its limit, or an insertion found none): it grows,
    /// or at the largest table the run stops with `full`.
    fn out_of_room(&self, full: TableFull) {
        if self.options.table.next(self.store.log2_capacity()).is_some() {
            self.grow.store(true, Ordering::Relaxed);
            // Wake the depth-first workers waiting for work: they must leave too.
            let _pool = self.pool.lock().unwrap();
            self.pool_ready.notify_all();
        } else {
            self.full.lock().unwrap().get_or_insert(full);
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the workers must stop where they are (the run stops or the table grows).
    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.grow.load(Ordering::Relaxed)
    }

    fn full_error(&self, source: TableFull) -> ExploreError {
        ExploreError::TableFull { source, states: self.progress_states.load(Ordering::Relaxed) }
    }

    fn report_progress(&self, level: u32) {
        if let Some(progress) = self.options.progress {
            progress(&Progress {
                states: self.progress_states.load(Ordering::Relaxed),
                transitions: self.progress_transitions.load(Ordering::Relaxed),
                level,
                seconds: self.start.elapsed().as_secs_f64(),
                depth_first: false,
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
    /// the new ones (all successors of the batch are inserted together). When the
    /// table has no room for them, nothing of the batch is kept (its counts are
    /// undone) and it must be expanded again once the table has grown.
    fn expand(&self, ids: &[u32], w: &mut Worker<'_, M>) -> Result<(), TableFull> {
        let model = self.model;
        let checks = &self.options.checks;
        let before = w.counts;
        self.store.load_batch(ids, &mut w.cursors);
        w.successors.clear();
        w.base_of.clear();
        w.violations.clear();
        for (j, &id) in ids.iter().enumerate() {
            let state = &w.cursors[j].words;
            let violations = &mut w.violations;
            for (i, inv) in checks.invariants.iter().enumerate() {
                match model.label(state, inv.label) {
                    Ok(true) => {}
                    Ok(false) => violations.push((ViolationKind::Invariant { invariant: i, error: None }, id)),
                    Err(e) => violations.push((ViolationKind::Invariant { invariant: i, error: Some(e) }, id)),
                }
            }
            if checks.assertions {
                if let Some((assertion, error)) = model.violated_assertion(state, &self.assertions) {
                    violations.push((ViolationKind::Assertion { assertion, error }, id));
                }
            }
            let counts = &mut w.counts;
            counts.expanded += 1;
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
                        violations.push((ViolationKind::EvalError(e), id));
                    }
                }
            });
            if deadlock {
                counts.deadlocks += 1;
                if checks.deadlock {
                    violations.push((ViolationKind::Deadlock, id));
                }
            }
        }
        w.inserted.clear();
        match self.store.insert_batch(&w.successors, &w.cursors, &w.base_of, &mut w.batch, &mut w.inserted) {
            Ok(created) => w.entries += created,
            Err(full) => {
                w.counts = before;
                return Err(full);
            }
        }
        for (&(child, new), &j) in w.inserted.iter().zip(&w.base_of) {
            if new {
                w.counts.states += 1;
                w.next.push(child);
                if let Some(p) = self.parents.get(child as usize) {
                    p.store(ids[j as usize] + 1, Ordering::Relaxed);
                }
            }
        }
        for &(kind, id) in &w.violations {
            w.found.entry(kind.category()).and_modify(|e| e.2 += 1).or_insert((kind, id, 1));
        }
        if w.entries >= ENTRIES_AT_ONCE {
            self.add_entries(w);
        }
        Ok(())
    }

    /// Ends a worker's part of the run: its counts, violations and new states shared.
    fn retire(&self, w: &mut Worker<'_, M>) {
        self.account(w);
        self.merge_found(&mut w.found);
        self.counts.lock().unwrap().add(&std::mem::take(&mut w.counts));
        w.published = Counts::default();
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
            table_entries: self.entries.load(Ordering::Relaxed),
            table_capacity: self.store.capacity(),
            reserved_bytes: self.store.reserved_bytes() + self.parents.len() as u64 * 4,
            expanded: counts.expanded,
            growths: self.growths,
            growth_seconds: self.growth_seconds,
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
