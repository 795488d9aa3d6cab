//! Parallel nested DFS on the fly: CNDFS (Evangelista, Laarman, Petrucci and van de
//! Pol, "Improved Multi-Core Nested Depth-First Search", ATVA 2012, Algorithm 2, with
//! the early cycle detection of the blue search). It is the algorithm LTSmin's
//! `--strategy=cndfs` runs, and the one behind the reference verdicts of the largest
//! BEEM property files.
//!
//! Every worker runs its own nested DFS from the initial state, over one shared,
//! tree-compressed state store ([`TreeStore`]) and one colour word per store id:
//!
//! - bit `i < MAX_WORKERS`: the state is *cyan* for worker `i` (on its blue stack);
//! - `EXPANDED`: some worker's blue search expanded the state (so its steps are counted
//!   once, as nested DFS counts them), and `ACCEPTING`: the state, so expanded, is
//!   accepting (read when an edge closes a cycle on the blue stack);
//! - `BLUE`: some worker's blue search has finished the state (all workers then skip
//!   it in their blue searches);
//! - `RED`: the state lies on no accepting cycle (all workers skip it in their red
//!   searches).
//!
//! A worker's red search from an accepting seed visits the states that are not red,
//! keeping its own set `R` (the paper's pink states); it reports a cycle when it meets
//! a state cyan for itself, which leads back to the seed along its blue stack. After
//! it, the worker waits until every other accepting state of `R` is red (another
//! worker's red search through it is still running) and then colours `R` red. The
//! blue search reports a cycle at once when an edge `s → t` reaches a state cyan for
//! itself with `s` or `t` accepting. Workers differ in the order of successors: worker
//! 0 takes the model's order, the others a random permutation of their own (with
//! [`Options::seed`], every worker one drawn from the seed), so they spread over the
//! state space and meet rarely. The property holds once every worker's
//! blue search is done.
//!
//! Departures from the paper: the searches are iterative (explicit stacks, as in
//! [`crate::ndfs`]); the states of the stacks are kept as store ids and decompressed
//! when expanded.
//!
//! The table starts small and grows in place, with the policy of every engine
//! ([`TablePlan`]): past its load limit, the workers stop the world (`grow`): each
//! parks where it is (before an expansion, at a step of its search loops, or while it
//! waits for red states), the last to park moves the states into a larger store with
//! their colours, and each worker remaps the ids it holds (its stacks and successor
//! buffers, its red search's states) and goes on. No state is explored again, and a
//! state whose successors found no room is expanded again after the growth (its steps
//! counted once). At the largest table, full is an error. Measured on
//! leader_filters.5.prop2 (1.6 M product states, 2 threads, the 2-core development
//! machine): restarting the search with a larger table instead, from the policy's
//! small first table, took 7.1 s (two restarts) against 5.1 s for one search in a
//! table large from the start; growing in place costs its three growths 0.1-0.25 s.
//!
//! Memory: the search gets `Options::memory` bytes (default: three quarters of the
//! available memory). The table takes at most half of it; the workers' stacks (blue
//! and red frames with their successors, and the red search's set) may take half of
//! what the table leaves, so that doubling a stack's buffer stays within the rest.
//! Depth-first stacks can be as deep as the state space is large, one per worker, so a
//! search that outgrows this stops with [`LtlError::StacksFull`], never with the
//! machine out of memory.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashSet;
use warpcheck_explore::Throttle;
use warpcheck_model::interface::{Model, Successors};
use warpcheck_store::{BatchScratch, MemoryBudget, TableFull, TablePlan, TreeCursor, TreeStore, ZeroedSlice};

use crate::ndfs::{cycle_closed_on_stack, Cycle};
use crate::order::Order;
use crate::{LtlError, Options};

/// Workers one search runs at most (one cyan bit each in the colour word).
pub const MAX_WORKERS: usize = 28;
/// The state is accepting (set with `EXPANDED`).
const ACCEPTING: u32 = 1 << 28;
/// Some worker expanded the state in a blue search (its steps are counted).
const EXPANDED: u32 = 1 << 29;
const BLUE: u32 = 1 << 30;
const RED: u32 = 1 << 31;

/// Bytes kept per table entry beside it: the colour word.
pub const EXTRA_BYTES_PER_ENTRY: f64 = 4.0;
/// How often (in steps of a search loop) a worker checks for a stop and accounts its
/// stacks.
const CHECK_EVERY: u32 = 1024;

mod grow;

/// States from the initial state to the cycle's first state, and the cycle (its first
/// state again at the end).
pub type StateLasso = (Vec<Vec<u32>>, Vec<Vec<u32>>);

/// The result of a search.
pub struct Found {
    /// The accepting cycle, with its states (`None`: the property holds).
    pub lasso: Option<StateLasso>,
    /// Distinct states stored (all reachable ones if the property holds), steps of the
    /// states the blue searches expanded, each state counted once, and those among
    /// them that raised an evaluation error.
    pub states: u64,
    pub transitions: u64,
    pub error_transitions: u64,
    /// Times the table grew (in place: the search went on, nothing explored again).
    pub growths: u32,
    /// Entries of the table at the end.
    pub table_entries: u64,
}

/// The search's budget: `options.memory`, or three quarters of the available memory.
fn budget(options: &Options) -> MemoryBudget {
    options.memory.map_or_else(|| MemoryBudget::share_of_available(3, 4), MemoryBudget::new)
}

/// The table sizes of a search: within half of its budget.
fn table_plan(budget: MemoryBudget) -> TablePlan {
    TablePlan::for_budget(budget.part(1, 2), EXTRA_BYTES_PER_ENTRY)
}

/// Runs CNDFS on `model` (with its property process) with `workers` workers (at most
/// [`MAX_WORKERS`]); `options.memory` bounds the store and the stacks (see the module
/// documentation) and `options.max_states` the states.
pub fn cndfs<M: Model>(model: &M, options: &Options, workers: usize) -> Result<Found, LtlError> {
    cndfs_with(model, options, workers, table_plan(budget(options)))
}

/// [`cndfs`] with the table sizes of `plan`.
fn cndfs_with<M: Model>(model: &M, options: &Options, workers: usize, plan: TablePlan) -> Result<Found, LtlError> {
    let workers = workers.clamp(1, MAX_WORKERS);
    // The stacks may take half of what the largest table leaves.
    let stack_limit = budget(options).bytes().saturating_sub(plan.max_bytes(EXTRA_BYTES_PER_ENTRY)) / 2;
    Search::new(model, options, plan, workers, stack_limit)?.run()
}

/// Why the workers stopped early.
enum Stop {
    Cycle(Cycle),
    Error(LtlError),
    /// Another worker stopped the search (and said why).
    Stopped,
}

/// The store and the colour word of each of its entries, replaced together when the
/// table grows.
struct Stored {
    store: TreeStore,
    colours: ZeroedSlice<AtomicU32>,
}

impl Stored {
    fn new(store: TreeStore) -> Stored {
        let colours = ZeroedSlice::new(store.capacity() as usize);
        Stored { store, colours }
    }
}

/// One search: the shared store and colours.
struct Search<'m, M: Model> {
    model: &'m M,
    plan: TablePlan,
    workers: usize,
    /// The current store (the workers hold it too, and take the new one when the table
    /// grows), and the initial state's id in it before any growth.
    stored: Mutex<Arc<Stored>>,
    initial: u32,
    /// Set when a worker stops the search (`stop_reason` says why).
    stop: AtomicBool,
    stop_reason: Mutex<Option<Stop>>,
    states: AtomicU64,
    entries: AtomicU64,
    transitions: AtomicU64,
    error_transitions: AtomicU64,
    max_states: u64,
    /// [`Options::seed`].
    seed: Option<u64>,
    /// Entries of the current table beyond which it grows (or, the largest, is full).
    load_limit: AtomicU64,
    /// Set when the table must grow: the workers park ([`grow`]).
    grow: AtomicBool,
    gate: grow::Gate,
    growths: AtomicU32,
    /// Bytes the workers' stacks may hold together, and hold now (as last accounted).
    stack_limit: u64,
    stack_bytes: AtomicU64,
    /// Where worker 0 reports (states, transitions, its blue stack's depth).
    progress: Option<Throttle>,
}

impl<'m, M: Model> Search<'m, M> {
    /// A search with the initial state stored (in the plan's first table that holds it).
    fn new(
        model: &'m M,
        options: &Options,
        plan: TablePlan,
        workers: usize,
        stack_limit: u64,
    ) -> Result<Search<'m, M>, LtlError> {
        let (store, initial, created) =
            warpcheck_explore::parallel::store_initial(model, plan).map_err(LtlError::TableFull)?;
        Ok(Search {
            model,
            plan,
            workers,
            load_limit: AtomicU64::new(plan.load_limit(store.log2_capacity())),
            stored: Mutex::new(Arc::new(Stored::new(store))),
            initial,
            stop: AtomicBool::new(false),
            stop_reason: Mutex::new(None),
            states: AtomicU64::new(1),
            entries: AtomicU64::new(created),
            transitions: AtomicU64::new(0),
            error_transitions: AtomicU64::new(0),
            max_states: options.max_states.unwrap_or(u64::MAX).min(u32::MAX as u64),
            seed: options.seed,
            grow: AtomicBool::new(false),
            gate: grow::Gate::new(workers),
            growths: AtomicU32::new(0),
            stack_limit,
            stack_bytes: AtomicU64::new(0),
            progress: options.progress.clone().map(Throttle::new),
        })
    }

    /// Stops all workers for `reason` (the first reason given wins).
    fn halt(&self, reason: Stop) {
        let mut slot = self.stop_reason.lock().unwrap();
        if slot.is_none() && !matches!(reason, Stop::Stopped) {
            *slot = Some(reason);
        }
        self.stop.store(true, Ordering::Release);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The current store.
    fn stored(&self) -> Arc<Stored> {
        Arc::clone(&self.stored.lock().unwrap())
    }

    /// Runs the workers to the end of the search.
    fn run(self) -> Result<Found, LtlError> {
        // Every worker starts from the store of the initial id: a growth waits for all.
        let workers: Vec<Worker<M>> = (0..self.workers).map(|i| Worker::new(&self, i)).collect();
        std::thread::scope(|s| {
            for worker in workers {
                s.spawn(move || worker.run());
            }
        });
        let reason = self.stop_reason.lock().unwrap().take();
        let cycle = match reason {
            None | Some(Stop::Stopped) => None,
            Some(Stop::Error(e)) => return Err(e),
            Some(Stop::Cycle(c)) => Some(c),
        };
        let stored = self.stored();
        let mut cursor = stored.store.cursor();
        let mut state = |id: u32| {
            stored.store.load(id, &mut cursor);
            cursor.words.clone()
        };
        let lasso = cycle.map(|c| {
            let stem = c.stem.iter().map(|&v| state(v)).collect();
            let cycle = c.cycle.iter().map(|&v| state(v)).collect();
            (stem, cycle)
        });
        Ok(Found {
            lasso,
            states: self.states.load(Ordering::Relaxed),
            transitions: self.transitions.load(Ordering::Relaxed),
            error_transitions: self.error_transitions.load(Ordering::Relaxed),
            growths: self.growths.load(Ordering::Relaxed),
            table_entries: stored.store.capacity(),
        })
    }
}

/// A state on a stack: its successors are `buffer[start..start + len]`, the next to
/// try is `buffer[start + next]`. 24 bytes: the stacks can hold millions of frames.
struct Frame {
    start: usize,
    v: u32,
    next: u32,
    len: u32,
    accepting: bool,
}

impl Frame {
    /// The buffer index of the next successor to try, if any is left.
    fn next_index(&self) -> Option<usize> {
        (self.next < self.len).then(|| self.start + self.next as usize)
    }
}

struct Worker<'s, 'm, M: Model> {
    search: &'s Search<'m, M>,
    /// The store this worker's ids belong to.
    stored: Arc<Stored>,
    cyan: u32,
    order: Order,
    generator: M::Successors<'m>,
    cursor: TreeCursor,
    batch: BatchScratch,
    targets: Vec<u32>,
    base_of: Vec<u32>,
    inserted: Vec<(u32, bool)>,
    blue: Vec<Frame>,
    blue_succ: Vec<u32>,
    red: Vec<Frame>,
    red_succ: Vec<u32>,
    /// The states of the current red search (the paper's `R`), as a set, and in order
    /// with whether each is accepting.
    pink: FxHashSet<u32>,
    pink_list: Vec<(u32, bool)>,
    /// Steps of the search loops, and the stack bytes last added to the shared total.
    ticks: u32,
    accounted: u64,
}

impl<'s, 'm, M: Model> Worker<'s, 'm, M> {
    fn new(search: &'s Search<'m, M>, i: usize) -> Self {
        let stored = search.stored();
        Worker {
            search,
            cursor: stored.store.cursor(),
            stored,
            cyan: 1 << i,
            order: match search.seed {
                Some(seed) => Order::seeded(seed.wrapping_add(i as u64)),
                None if i == 0 => Order::model(),
                None => Order::raw(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1) | 1),
            },
            generator: search.model.successors(),
            batch: BatchScratch::default(),
            targets: Vec::new(),
            base_of: Vec::new(),
            inserted: Vec::new(),
            blue: Vec::new(),
            blue_succ: Vec::new(),
            red: Vec::new(),
            red_succ: Vec::new(),
            pink: FxHashSet::default(),
            pink_list: Vec::new(),
            ticks: 0,
            accounted: 0,
        }
    }

    /// Parks the worker while the table grows, if it must; every [`CHECK_EVERY`]
    /// steps accounts this worker's stacks in the shared total (an error once the
    /// total is over the limit) and says whether the search was stopped.
    fn checkpoint(&mut self) -> Result<bool, Stop> {
        if self.search.grow.load(Ordering::Relaxed) {
            self.park(&mut []);
        }
        self.ticks = self.ticks.wrapping_add(1);
        if !self.ticks.is_multiple_of(CHECK_EVERY) {
            return Ok(false);
        }
        use std::mem::size_of;
        let bytes = ((self.blue.capacity() + self.red.capacity()) * size_of::<Frame>()
            + (self.blue_succ.capacity() + self.red_succ.capacity()) * size_of::<u32>()
            + self.pink_list.capacity() * size_of::<(u32, bool)>()
            + (self.pink.capacity() * 8 / 7 + 1).next_power_of_two() * (size_of::<u32>() + 1))
            as u64;
        let total = if bytes >= self.accounted {
            self.search.stack_bytes.fetch_add(bytes - self.accounted, Ordering::Relaxed) + (bytes - self.accounted)
        } else {
            self.search.stack_bytes.fetch_sub(self.accounted - bytes, Ordering::Relaxed) - (self.accounted - bytes)
        };
        self.accounted = bytes;
        if total > self.search.stack_limit {
            return Err(Stop::Error(LtlError::StacksFull { limit: self.search.stack_limit }));
        }
        if let (Some(p), 1) = (&self.search.progress, self.cyan) {
            let s = self.search;
            let (states, transitions) = (s.states.load(Ordering::Relaxed), s.transitions.load(Ordering::Relaxed));
            p.report(states, transitions, self.blue.len() as u32, true);
        }
        Ok(self.search.stopped())
    }

    fn colour(&self, v: u32) -> u32 {
        self.stored.colours[v as usize].load(Ordering::Acquire)
    }

    fn paint(&self, v: u32, bits: u32) -> u32 {
        self.stored.colours[v as usize].fetch_or(bits, Ordering::AcqRel)
    }

    fn run(mut self) {
        /// Stops the other workers if this one panics: they might wait for it forever.
        struct StopOnPanic<'a>(&'a AtomicBool);
        impl Drop for StopOnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Release);
                }
            }
        }
        let _guard = StopOnPanic(&self.search.stop);
        let root = self.search.initial;
        let result = self.blue_search(root);
        // A finished worker's stacks no longer count.
        self.search.stack_bytes.fetch_sub(self.accounted, Ordering::Relaxed);
        match result {
            Ok(None) => {}
            Ok(Some(cycle)) => self.search.halt(Stop::Cycle(cycle)),
            Err(stop) => self.search.halt(stop),
        }
        // After the stop (if any): a growth waiting for this worker happens without it.
        self.search.leave();
    }

    /// Generates the successors of `v` into `out` (in this worker's order), inserting
    /// them into the store; returns `v`'s id (new if the table grew meanwhile), the
    /// steps, the erroneous ones and whether `v` is accepting. When the table has no
    /// room for the successors, the worker parks until it has grown and expands `v`
    /// again.
    fn expand(&mut self, mut v: u32, red: bool) -> Result<(u32, u32, u32, bool), Stop> {
        let search = self.search;
        let (steps, errors, created) = loop {
            if search.grow.load(Ordering::Relaxed) {
                let mut held = [v];
                if self.park(&mut held) {
                    return Err(Stop::Stopped);
                }
                v = held[0];
            }
            self.stored.store.load(v, &mut self.cursor);
            self.targets.clear();
            let (mut steps, mut errors) = (0u32, 0u32);
            let targets = &mut self.targets;
            self.generator.successors(&self.cursor.words, |_, result| {
                steps += 1;
                match result {
                    Ok(t) => targets.extend_from_slice(t),
                    Err(_) => errors += 1,
                }
            });
            let words = search.model.state_words().max(1);
            let n = self.targets.len() / words;
            self.base_of.resize(n, 0);
            self.inserted.clear();
            let inserted = self.stored.store.insert_batch(
                &self.targets,
                std::slice::from_ref(&self.cursor),
                &self.base_of[..n],
                &mut self.batch,
                &mut self.inserted,
            );
            match inserted {
                Ok(created) => break (steps, errors, created),
                // Nothing of `v`'s successors is kept: expand it again after the growth.
                Err(full) => search.out_of_room(full)?,
            }
        };
        let new = self.inserted.iter().filter(|&&(_, new)| new).count() as u64;
        if new > 0 && search.states.fetch_add(new, Ordering::Relaxed) + new > search.max_states {
            return Err(Stop::Error(LtlError::TooManyStates { limit: search.max_states }));
        }
        if created > 0 {
            let entries = search.entries.fetch_add(created, Ordering::Relaxed) + created;
            if entries > search.load_limit.load(Ordering::Relaxed) {
                search.out_of_room(TableFull { capacity: self.stored.store.capacity() })?;
            }
        }
        let out = if red { &mut self.red_succ } else { &mut self.blue_succ };
        let start = out.len();
        out.extend(self.inserted.iter().map(|&(id, _)| id));
        self.order.arrange(&mut out[start..]);
        Ok((v, steps, errors, search.model.is_accepting(&self.cursor.words)))
    }

    fn push_blue(&mut self, v: u32) -> Result<(), Stop> {
        let start = self.blue_succ.len();
        let (v, steps, errors, accepting) = self.expand(v, false)?;
        let bits = self.cyan | EXPANDED | if accepting { ACCEPTING } else { 0 };
        if self.paint(v, bits) & EXPANDED == 0 {
            self.search.transitions.fetch_add(steps as u64, Ordering::Relaxed);
            self.search.error_transitions.fetch_add(errors as u64, Ordering::Relaxed);
        }
        let len = (self.blue_succ.len() - start) as u32;
        self.blue.push(Frame { start, v, next: 0, len, accepting });
        Ok(())
    }

    /// Pushes `v` on the red stack; its id (new if the table grew meanwhile) and
    /// whether it is accepting.
    fn push_red(&mut self, v: u32) -> Result<(u32, bool), Stop> {
        let start = self.red_succ.len();
        let (v, _, _, accepting) = self.expand(v, true)?;
        let len = (self.red_succ.len() - start) as u32;
        self.red.push(Frame { start, v, next: 0, len, accepting });
        Ok((v, accepting))
    }

    /// The blue search from the initial state; a cycle, or `None` when done.
    fn blue_search(&mut self, root: u32) -> Result<Option<Cycle>, Stop> {
        self.push_blue(root)?;
        while !self.blue.is_empty() {
            if self.checkpoint()? {
                return Ok(None);
            }
            let top = self.blue.last_mut().expect("the loop holds a frame");
            if let Some(i) = top.next_index() {
                top.next += 1;
                let (s, s_accepting) = (top.v, top.accepting);
                let t = self.blue_succ[i];
                let colour = self.colour(t);
                if colour & self.cyan != 0 {
                    // t is on this worker's stack: it was expanded, its ACCEPTING bit set.
                    let t_accepting = colour & ACCEPTING != 0;
                    if s_accepting || t_accepting {
                        return Ok(Some(self.blue_cycle(s, t, t_accepting)));
                    }
                } else if colour & BLUE == 0 {
                    self.push_blue(t)?;
                }
                continue;
            }
            let (v, accepting) = (top.v, top.accepting);
            self.paint(v, BLUE);
            if accepting {
                if let Some(cycle) = self.red_search(v)? {
                    return Ok(Some(cycle));
                }
                if self.search.stopped() {
                    // The red search may have stopped halfway: its states are not red.
                    return Ok(None);
                }
                if !self.await_red() {
                    return Ok(None);
                }
                for &(w, _) in &self.pink_list {
                    self.paint(w, RED);
                }
            }
            // The top's id, remapped if the table grew during the red search.
            let v = self.blue.last().expect("the loop holds a frame").v;
            self.stored.colours[v as usize].fetch_and(!self.cyan, Ordering::AcqRel);
            let frame = self.blue.pop().expect("the loop holds a frame");
            self.blue_succ.truncate(frame.start);
        }
        Ok(None)
    }

    /// The red search from `seed`, the top of the blue stack: a cycle, or `None` with
    /// the states it visited in `pink_list`.
    fn red_search(&mut self, seed: u32) -> Result<Option<Cycle>, Stop> {
        if self.pink.capacity() > 1 << 16 {
            // Clearing costs the set's capacity: after a large red search, start afresh.
            self.pink = FxHashSet::default();
        } else {
            self.pink.clear();
        }
        self.pink_list.clear();
        self.pink.insert(seed);
        self.pink_list.push((seed, true));
        // (The sets hold the seed before it is pushed: a growth meanwhile remaps it.)
        self.push_red(seed)?;
        while !self.red.is_empty() {
            if self.checkpoint()? {
                self.red.clear();
                self.red_succ.clear();
                return Ok(None);
            }
            let top = self.red.last_mut().expect("the loop holds a frame");
            if let Some(i) = top.next_index() {
                top.next += 1;
                let t = self.red_succ[i];
                let colour = self.colour(t);
                if colour & self.cyan != 0 {
                    // seed →(red path)→ t →(blue stack)→ seed.
                    let mut cycle: Vec<u32> = self.red.iter().map(|f| f.v).collect();
                    cycle.push(t);
                    cycle.extend(self.blue_after(t));
                    let stem = self.blue.iter().map(|f| f.v).collect();
                    self.red.clear();
                    self.red_succ.clear();
                    return Ok(Some(Cycle { stem, cycle }));
                }
                if colour & RED == 0 && self.pink.insert(t) {
                    let (t, accepting) = self.push_red(t)?;
                    self.pink_list.push((t, accepting));
                }
            } else {
                let frame = self.red.pop().expect("the loop holds a frame");
                self.red_succ.truncate(frame.start);
            }
        }
        Ok(None)
    }

    /// Waits until every accepting state of the last red search but its seed (the
    /// first) is red (another worker's red search through it is still running),
    /// parking while the table grows. `false` if the search was stopped meanwhile.
    fn await_red(&mut self) -> bool {
        for i in 1..self.pink_list.len() {
            if !self.pink_list[i].1 {
                continue;
            }
            let mut spins = 0u32;
            // (Read again each time: a growth remaps the list.)
            while self.colour(self.pink_list[i].0) & RED == 0 {
                if self.search.stopped() {
                    return false;
                }
                if self.search.grow.load(Ordering::Relaxed) && self.park(&mut []) {
                    return false;
                }
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        true
    }

    /// The blue stack's vertices after `t` (cyan for this worker), up to the top.
    fn blue_after(&self, t: u32) -> impl Iterator<Item = u32> + '_ {
        let at = self.blue.iter().rposition(|f| f.v == t).expect("a cyan state is on the blue stack");
        self.blue[at + 1..].iter().map(|f| f.v)
    }

    /// The cycle closed by the blue edge `s → t` (`s` on top of the stack, `t` cyan,
    /// one of them accepting).
    fn blue_cycle(&self, s: u32, t: u32, t_accepting: bool) -> Cycle {
        cycle_closed_on_stack(self.blue.iter().map(|f| f.v).collect(), s, t, t_accepting)
    }
}

#[cfg(test)]
mod tests;
