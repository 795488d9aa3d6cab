//! The breadth-first order of the parallel engine: one level at a time, its states
//! claimed in chunks from an atomic cursor, the new states gathered for the next level.
//! A level that the table's growth interrupts goes on after it: the frontier then
//! holds the states of the level not yet expanded (see [`super::grow`]).

use std::sync::atomic::Ordering;
use std::sync::Barrier;
use std::time::Instant;
use warpcheck_model::interface::Model;

use super::{Shared, BATCH};

impl<M: Model> Shared<'_, M> {
    /// One worker: a level at a time, claim chunks of the frontier and expand them;
    /// leave when the exploration is over or the table must grow.
    pub(super) fn work(&self, worker: usize, barrier: &Barrier) {
        let mut w = self.worker();
        let mut last_report = Instant::now();
        loop {
            if barrier.wait().is_leader() {
                self.next_level();
            }
            barrier.wait();
            if self.done.load(Ordering::Relaxed) {
                break;
            }
            {
                let frontier = self.frontier.read().unwrap();
                let chunk = (frontier.len() / (self.options.threads * 16)).clamp(1, 512);
                let level = self.levels.load(Ordering::Relaxed) - 1;
                while !self.halted() {
                    let begin = self.cursor.fetch_add(chunk, Ordering::Relaxed);
                    if begin >= frontier.len() {
                        break;
                    }
                    let ids = &frontier[begin..(begin + chunk).min(frontier.len())];
                    for (b, batch) in ids.chunks(BATCH).enumerate() {
                        if let Err(full) = self.expand(batch, &mut w) {
                            // This batch and the rest of the chunk wait for a larger table.
                            self.retry.lock().unwrap().extend_from_slice(&ids[b * BATCH..]);
                            self.out_of_room(full);
                            break;
                        }
                    }
                    self.account(&mut w);
                    if worker == 0 && last_report.elapsed().as_millis() >= 250 {
                        last_report = Instant::now();
                        self.report_progress(level);
                    }
                }
            }
            self.next.lock().unwrap().append(&mut w.next);
            self.retire(&mut w);
        }
    }

    /// Run by one worker between levels: ends this run of the workers when the table
    /// must grow; goes on with the current level if it was interrupted (some of it is
    /// left); else starts the next level with the states found in this one, or ends
    /// the exploration when there are none (or it was stopped).
    fn next_level(&self) {
        if self.grow.load(Ordering::Relaxed) {
            self.done.store(true, Ordering::Relaxed);
            return;
        }
        let mut frontier = self.frontier.write().unwrap();
        let stop = self.stop.load(Ordering::Relaxed);
        if self.cursor.load(Ordering::Relaxed) >= frontier.len() {
            let mut next = self.next.lock().unwrap();
            std::mem::swap(&mut *frontier, &mut *next);
            next.clear();
            self.cursor.store(0, Ordering::Relaxed);
            if !frontier.is_empty() && !stop {
                self.levels.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.done.store(frontier.is_empty() || stop, Ordering::Relaxed);
    }
}
