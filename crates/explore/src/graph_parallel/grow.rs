//! The table's growth between two runs of the builder's workers: the store moves every
//! state into a larger table ([`TreeStore::grown`](warpcheck_store::TreeStore::grown)),
//! the maps between vertices and store ids are rebuilt for the new ids, the
//! acceptance bits copied into room for more vertices, and the successors of the
//! interrupted level, still store ids, remapped. Vertex ids do not change, so the
//! edges appended so far and the ranges left to expand stay as they are.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use warpcheck_model::interface::Model;

use warpcheck_store::{TableFull, ZeroedSlice};

use super::{Build, Stored};

/// Vertices remapped at once by one thread.
const VERTICES_AT_ONCE: usize = 1 << 16;

impl<M: Model> Build<'_, M> {
    /// Grows the table to the plan's next size and remaps every store id held; the
    /// interrupted level then goes on. Fails only if the new table cannot hold the
    /// states (or the plan has no larger table).
    pub(super) fn grow_table(&mut self) -> Result<(), TableFull> {
        let capacity = self.store().capacity();
        let log2 = self.plan.next(self.store().log2_capacity()).ok_or(TableFull { capacity })?;
        let grown = self.store().grown(log2, self.threads)?;
        let capacity = grown.store.capacity() as usize;
        let vertices = self.next_id.load(Relaxed) as usize;
        let roots: ZeroedSlice<AtomicU32> = ZeroedSlice::new(capacity);
        let vertex_of: ZeroedSlice<AtomicU32> = ZeroedSlice::new(capacity);
        let (old_roots, threads) = (&self.stored.roots, self.threads);
        std::thread::scope(|s| {
            for t in 0..threads {
                let (roots, vertex_of, remap) = (&roots, &vertex_of, &grown.remap);
                s.spawn(move || {
                    for begin in (t * VERTICES_AT_ONCE..vertices).step_by(threads * VERTICES_AT_ONCE) {
                        for v in begin..(begin + VERTICES_AT_ONCE).min(vertices) {
                            let id = remap.get(old_roots[v].load(Relaxed));
                            roots[v].store(id, Relaxed);
                            vertex_of[id as usize].store(v as u32, Relaxed);
                        }
                    }
                });
            }
        });
        if !self.accepting.is_empty() {
            let accepting: ZeroedSlice<AtomicU64> = ZeroedSlice::new(capacity.div_ceil(64));
            for (new, old) in accepting.iter().zip(self.accepting.iter()) {
                new.store(old.load(Relaxed), Relaxed);
            }
            self.accepting = accepting;
        }
        for out in &self.outs {
            let out = &mut *out.lock().unwrap();
            grown.remap.apply(&mut out.targets);
            for &e in &out.errors {
                out.targets[e] = 0;
            }
        }
        self.stored = Arc::new(Stored { store: grown.store, roots });
        self.vertex_of = vertex_of;
        *self.entries.get_mut() = grown.entries;
        self.entry_limit = self.plan.load_limit(log2);
        *self.grow.get_mut() = false;
        *self.resume.get_mut() = true;
        self.growths += 1;
        Ok(())
    }
}
