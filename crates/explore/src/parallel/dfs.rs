//! The depth-first order of the parallel engine: each worker expands states from its
//! own stack; a worker whose stack runs dry takes states from a shared pool, which busy
//! workers fill with half of their stack while some worker is waiting. The run ends
//! when every worker waits and the pool is empty.
//!
//! When the table must grow, every worker leaves: busy ones after the state they are
//! expanding (a state whose successors found no room goes back on the stack), waiting
//! ones when woken. Each parks its stack in the pool ([`Pool::parked`]); the growth
//! remaps the parked stacks and the pool, and each worker takes its own back.

use std::sync::atomic::Ordering;

use warpcheck_model::interface::Model;

use super::Shared;

/// States shared between workers, and how many wait for them.
pub(super) struct Pool {
    pub(super) stack: Vec<u32>,
    idle: usize,
    done: bool,
    /// Each worker's stack while the workers are away (between runs of the workers).
    pub(super) parked: Vec<Vec<u32>>,
}

impl Pool {
    pub(super) fn new(threads: usize) -> Pool {
        Pool { stack: Vec::new(), idle: 0, done: false, parked: vec![Vec::new(); threads] }
    }
}

/// States handed over at once.
const SHARE: usize = 64;

impl<M: Model> Shared<'_, M> {
    /// One depth-first worker (see the module documentation).
    pub(super) fn work_dfs(&self, worker: usize) {
        let mut w = self.worker();
        w.next = std::mem::take(&mut self.pool.lock().unwrap().parked[worker]);
        let mut last_report = std::time::Instant::now();
        'run: loop {
            let mut expanded = 0u32;
            while let Some(id) = w.next.pop() {
                if self.halted() {
                    w.next.push(id);
                    break 'run;
                }
                if let Err(full) = self.expand(&[id], &mut w) {
                    w.next.push(id);
                    self.out_of_room(full);
                    break 'run;
                }
                expanded += 1;
                if expanded.is_multiple_of(256) {
                    self.account(&mut w);
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
            self.account(&mut w);
            self.merge_found(&mut w.found);
            // The stack is empty: wait for shared work, for the end, or for a growth.
            let mut pool = self.pool.lock().unwrap();
            loop {
                if pool.done || self.halted() {
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
            // Wake the others: on a stop or a growth they must leave, on the end they
            // are done. The stack waits here for the next run.
            let mut pool = self.pool.lock().unwrap();
            if self.stop.load(Ordering::Relaxed) {
                pool.done = true;
            }
            pool.parked[worker] = std::mem::take(&mut w.next);
            self.pool_ready.notify_all();
        }
        self.retire(&mut w);
    }
}
