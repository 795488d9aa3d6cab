//! The depth-first order of the parallel engine: each worker expands states from its
//! own stack; a worker whose stack runs dry takes states from a shared pool, which busy
//! workers fill with half of their stack while some worker is waiting. The run ends
//! when every worker waits and the pool is empty.

use std::sync::atomic::Ordering;

use warpcheck_model::interface::Model;

use super::Shared;

/// States shared between workers, and how many wait for them.
#[derive(Default)]
pub(super) struct Pool {
    stack: Vec<u32>,
    idle: usize,
    done: bool,
}

/// States handed over at once.
const SHARE: usize = 64;

impl<M: Model> Shared<'_, M> {
    /// One depth-first worker (see the module documentation).
    pub(super) fn work_dfs(&self, worker: usize) {
        let mut w = self.worker();
        if worker == 0 {
            // The initial state, placed in `next` by the caller.
            w.next.append(&mut self.next.lock().unwrap());
        }
        let mut last_report = std::time::Instant::now();
        'run: loop {
            let mut before = w.counts.snapshot();
            let mut expanded = 0u32;
            while let Some(id) = w.next.pop() {
                if self.stop.load(Ordering::Relaxed) {
                    break 'run;
                }
                if let Err(full) = self.expand(&[id], &mut w) {
                    *self.full.lock().unwrap() = Some(full);
                    self.stop.store(true, Ordering::Relaxed);
                    break 'run;
                }
                expanded += 1;
                if expanded.is_multiple_of(256) {
                    self.account(before, &w.counts);
                    before = w.counts.snapshot();
                    self.merge_found(&mut w.found);
                    if worker == 0 && last_report.elapsed().as_millis() >= 250 {
                        last_report = std::time::Instant::now();
                        self.report_progress(0);
                    }
                }
                if w.next.len() >= 2 * SHARE && self.hungry.load(Ordering::Relaxed) > 0 {
                    let mut pool = self.pool.lock().unwrap();
                    let half = w.next.len() / 2;
                    pool.stack.extend(w.next.drain(..half));
                    self.pool_ready.notify_all();
                }
            }
            self.account(before, &w.counts);
            self.merge_found(&mut w.found);
            // The stack is empty: wait for shared work or for the end.
            let mut pool = self.pool.lock().unwrap();
            loop {
                if pool.done || self.stop.load(Ordering::Relaxed) {
                    break 'run;
                }
                if !pool.stack.is_empty() {
                    let take = pool.stack.len().min(SHARE);
                    let from = pool.stack.len() - take;
                    w.next.extend(pool.stack.drain(from..));
                    break;
                }
                pool.idle += 1;
                if pool.idle == self.options.threads.max(1) {
                    pool.done = true;
                    self.pool_ready.notify_all();
                    break 'run;
                }
                self.hungry.fetch_add(1, Ordering::Relaxed);
                pool = self.pool_ready.wait(pool).unwrap();
                self.hungry.fetch_sub(1, Ordering::Relaxed);
                pool.idle -= 1;
            }
        }
        {
            // Wake the others: on a stop they must notice, on the end they are done.
            let mut pool = self.pool.lock().unwrap();
            if self.stop.load(Ordering::Relaxed) {
                pool.done = true;
            }
            self.pool_ready.notify_all();
        }
        self.merge_found(&mut w.found);
        self.counts.lock().unwrap().add(&std::mem::take(&mut w.counts));
    }
}
