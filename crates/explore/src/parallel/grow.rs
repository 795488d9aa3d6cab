//! The table's growth between two runs of the workers: the store moves every state
//! into a larger table ([`TreeStore::grown`](warpcheck_store::TreeStore::grown)) and
//! every id the engine holds is remapped, so the exploration goes on where it stopped.
//!
//! The ids held: the part of the current level not yet expanded (the states of the
//! batches that found no room first, then the frontier past its cursor: the expanded
//! part is dropped), the next level, the first violating state of each property, the
//! parent links (moved to the new ids), and in depth-first order the pool and each
//! worker's stack.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use warpcheck_model::interface::Model;

use warpcheck_store::{Remap, TableFull, ZeroedSlice};

use super::Shared;

/// Parent links moved at once by one thread.
const LINKS_AT_ONCE: usize = 1 << 16;

impl<M: Model> Shared<'_, M> {
    /// Grows the table to the plan's next size and remaps every id held. Fails only if
    /// the new table cannot hold the states (or the plan has no larger table).
    pub(super) fn grow_table(&mut self) -> Result<(), TableFull> {
        let started = std::time::Instant::now();
        let threads = self.options.threads.max(1);
        let capacity = self.store.capacity();
        let log2 = self.options.table.next(self.store.log2_capacity()).ok_or(TableFull { capacity })?;
        let grown = self.store.grown(log2, threads)?;
        let remap = &grown.remap;
        let frontier = self.frontier.get_mut().unwrap();
        let cursor = self.cursor.get_mut();
        let mut left = std::mem::take(self.retry.get_mut().unwrap());
        left.extend_from_slice(&frontier[(*cursor).min(frontier.len())..]);
        remap.apply(&mut left);
        *frontier = left;
        *cursor = 0;
        remap.apply(self.next.get_mut().unwrap());
        let pool = self.pool.get_mut().unwrap();
        remap.apply(&mut pool.stack);
        pool.parked.iter_mut().for_each(|stack| remap.apply(stack));
        for (_, state, _) in self.found.get_mut().unwrap().values_mut() {
            *state = remap.get(*state);
        }
        if !self.parents.is_empty() {
            self.parents = moved_links(&self.parents, remap, grown.store.capacity() as usize, threads);
        }
        self.store = grown.store;
        *self.entries.get_mut() = grown.entries;
        self.limit = self.options.table.load_limit(log2);
        *self.grow.get_mut() = false;
        self.growths += 1;
        self.growth_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Links indexed by state id whose values are a state id + 1 (0: none), moved to the
/// new ids: `new[remap(s)] = remap(old[s] - 1) + 1`.
fn moved_links(old: &ZeroedSlice<AtomicU32>, remap: &Remap, capacity: usize, threads: usize) -> ZeroedSlice<AtomicU32> {
    let new: ZeroedSlice<AtomicU32> = ZeroedSlice::new(capacity);
    let claimed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let begin = claimed.fetch_add(LINKS_AT_ONCE, Relaxed);
                if begin >= old.len() {
                    break;
                }
                for (s, link) in old[begin..(begin + LINKS_AT_ONCE).min(old.len())].iter().enumerate() {
                    let parent = link.load(Relaxed);
                    if parent != 0 {
                        new[remap.get((begin + s) as u32) as usize].store(remap.get(parent - 1) + 1, Relaxed);
                    }
                }
            });
        }
    });
    new
}
