//! The table's growth in the middle of a search: a stop-the-world point for workers
//! that run asynchronously and hold store ids everywhere.
//!
//! A worker that finds the table past its load limit (or without room for a state's
//! successors) sets [`Search::grow`]. Every worker checks it before each expansion,
//! at each step of its search loops and while it waits for red states, and parks at
//! the [`Gate`]. The last to park (or, if the others are all parked, the last worker
//! to finish its search) moves the store into a table [`GROWTH`] times larger and
//! copies each state's colour word to its new id; then every parked worker remaps
//! the ids it holds ([`Worker::remap`]) and goes on where it was. Workers take the
//! new store when they leave the gate; the old one is freed when the last lets go.
//! A stopped search does not grow: the parked workers are let go and see the stop.
//!
//! [`GROWTH`]: warpcheck_store::budget::GROWTH

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use warpcheck_model::interface::Model;

use warpcheck_store::{Remap, TableFull, ZeroedSlice};

use super::{Search, Stop, Stored, Worker};
use crate::LtlError;

/// Where workers wait while the table grows.
pub(super) struct Gate {
    state: Mutex<GateState>,
    opened: Condvar,
}

struct GateState {
    /// Workers still searching, and those parked for the growth under way.
    active: usize,
    parked: usize,
    /// Growths done (or given up, when the search stopped): a parked worker waits
    /// for it to change.
    generation: u64,
    /// The last growth's old id → new id map, until every worker parked for it has
    /// remapped its ids.
    remap: Option<Arc<Remap>>,
    pending: usize,
}

impl Gate {
    pub(super) fn new(workers: usize) -> Gate {
        let state = GateState { active: workers, parked: 0, generation: 0, remap: None, pending: 0 };
        Gate { state: Mutex::new(state), opened: Condvar::new() }
    }
}

/// Colour words copied at once by one thread.
const COLOURS_AT_ONCE: usize = 1 << 16;

impl<M: Model> Search<'_, M> {
    /// The table has no room: asks for it to grow, or at the largest table stops the
    /// search with the error.
    pub(super) fn out_of_room(&self, full: TableFull) -> Result<(), Stop> {
        let log2 = self.stored.lock().unwrap().store.log2_capacity();
        if self.plan.next(log2).is_some() {
            self.grow.store(true, Relaxed);
            Ok(())
        } else {
            Err(Stop::Error(LtlError::TableFull(full)))
        }
    }

    /// A worker's search is over: it no longer counts at the gate, and if every other
    /// worker is parked there, it opens the gate for them.
    pub(super) fn leave(&self) {
        let mut gate = self.gate.state.lock().unwrap();
        gate.active -= 1;
        if gate.parked > 0 && gate.parked == gate.active {
            self.open(&mut gate);
        }
    }

    /// Run by the worker that completes the gate: grows the table (unless the search
    /// stopped) and lets the parked workers go.
    fn open(&self, gate: &mut MutexGuard<'_, GateState>) {
        gate.remap = None;
        if !self.stopped() {
            match self.grow_table() {
                Ok(remap) => {
                    gate.remap = Some(Arc::new(remap));
                    gate.pending = gate.parked;
                }
                Err(full) => self.halt(Stop::Error(LtlError::TableFull(full))),
            }
        }
        self.grow.store(false, Relaxed);
        gate.parked = 0;
        gate.generation += 1;
        self.gate.opened.notify_all();
    }

    /// Moves the states into the plan's next table with their colours and makes it
    /// the current store.
    fn grow_table(&self) -> Result<Remap, TableFull> {
        let old = self.stored();
        let capacity = old.store.capacity();
        let log2 = self.plan.next(old.store.log2_capacity()).ok_or(TableFull { capacity })?;
        let grown = old.store.grown(log2, self.workers)?;
        let new = Stored::new(grown.store);
        let (remap, claimed) = (&grown.remap, AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..self.workers {
                s.spawn(|| loop {
                    let begin = claimed.fetch_add(COLOURS_AT_ONCE, Relaxed);
                    if begin >= old.colours.len() {
                        break;
                    }
                    let end = (begin + COLOURS_AT_ONCE).min(old.colours.len());
                    copy_colours(&old.colours[begin..end], begin, remap, &new.colours);
                });
            }
        });
        self.entries.store(grown.entries, Relaxed);
        self.load_limit.store(self.plan.load_limit(log2), Relaxed);
        self.growths.fetch_add(1, Relaxed);
        *self.stored.lock().unwrap() = Arc::new(new);
        Ok(grown.remap)
    }
}

/// Copies the colour words `old` (of ids `first..`) to the new ids. Only states have
/// colours, and a state's colour is never 0 once it was reached by a search; states
/// still uncoloured need no copy.
fn copy_colours(old: &[std::sync::atomic::AtomicU32], first: usize, remap: &Remap, new: &ZeroedSlice<AtomicU32>) {
    for (i, colour) in old.iter().enumerate() {
        let c = colour.load(Relaxed);
        if c != 0 {
            new[remap.get((first + i) as u32) as usize].store(c, Relaxed);
        }
    }
}

impl<M: Model> Worker<'_, '_, M> {
    /// Parks until the table has grown (see the module documentation), then remaps
    /// this worker's ids and `held` (ids it keeps in local variables) and takes the
    /// new store. Returns whether the search was stopped.
    pub(super) fn park(&mut self, held: &mut [u32]) -> bool {
        let search = self.search;
        let mut gate = search.gate.state.lock().unwrap();
        gate.parked += 1;
        let generation = gate.generation;
        if gate.parked == gate.active {
            search.open(&mut gate);
        } else {
            while gate.generation == generation {
                gate = search.gate.opened.wait(gate).unwrap();
            }
        }
        let remap = gate.remap.clone();
        if remap.is_some() {
            gate.pending -= 1;
            if gate.pending == 0 {
                gate.remap = None;
            }
        }
        drop(gate);
        if let Some(remap) = remap {
            self.remap(&remap, held);
        }
        self.stored = search.stored();
        search.stopped()
    }

    /// Replaces every store id this worker holds by its id in the grown store.
    fn remap(&mut self, remap: &Remap, held: &mut [u32]) {
        for frame in self.blue.iter_mut().chain(self.red.iter_mut()) {
            frame.v = remap.get(frame.v);
        }
        remap.apply(&mut self.blue_succ);
        remap.apply(&mut self.red_succ);
        for (w, _) in self.pink_list.iter_mut() {
            *w = remap.get(*w);
        }
        self.pink = self.pink.drain().map(|w| remap.get(w)).collect();
        remap.apply(held);
    }
}
