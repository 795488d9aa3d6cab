//! Search on all threads of the current rayon pool. A chunk of stored states is
//! expanded in parallel: each worker finds the applicable actions, applies them,
//! hashes the successors and drops those stored, when the chunk began, with a `g` no
//! larger; one thread then stores the candidates in generation order (a state stored
//! by an earlier parent of the chunk is found again by `insert`).
//!
//! - [`breadth_first`] (unit costs): chunks of ids in breadth-first order, the goal
//!   tested when a state is generated. The store, the counters, the plan and the
//!   limits' errors (a numeric value out of range included) are the sequential
//!   search's exactly.
//! - [`uniform_cost`]: Dijkstra by `g`-buckets. The cheapest bucket is a stack: a
//!   chunk is taken from its top, goal-tested and expanded together; successors over
//!   zero-cost actions are goal-tested when generated and go on top (deepest first,
//!   as the sequential search takes them). The cost is the sequential search's; the
//!   plan may be another optimal one, and the counters count whole chunks. A numeric
//!   value out of range in a chunk ends the search with its error, where the
//!   sequential search might have reached a goal of the same cost first.
//! - [`expand_batch`] and [`evaluate`]: A*'s batch of states of the least f (see
//!   `search::astar`, which stores the candidates), the goal tested for the successors
//!   at that f; then the new states' heuristic values.

use std::collections::BTreeMap;
use std::time::Instant;

use rayon::prelude::*;

use super::{check_time, limit_error, Store, Successors};
use super::{SearchError, SearchOptions, SearchOutcome};
use crate::task::{State, Task};

/// Parents per piece of work handed to one worker.
const PIECE: usize = 256;
/// Pieces per chunk and thread: a chunk's candidates wait in memory until stored.
const PIECES_PER_THREAD: usize = 8;

/// The successors of a piece of parents that may be new, in generation order.
#[derive(Default)]
pub(super) struct Candidates {
    /// Per parent of the piece: its successors (stored ones included).
    pub(super) generated: Vec<u32>,
    /// Per candidate: its parent, its action, its index among the parent's successors,
    /// whether it satisfies the goal (when asked), its hash and its words.
    pub(super) parent: Vec<u32>,
    pub(super) action: Vec<u32>,
    pub(super) index: Vec<u32>,
    pub(super) goal: Vec<bool>,
    pub(super) hash: Vec<u64>,
    pub(super) words: Vec<u32>,
    /// A*'s candidates only (empty otherwise): the g they are reached at.
    pub(super) g: Vec<u64>,
    /// A successor's numeric fluent out of range: the parent whose expansion met it
    /// (the piece stops there, its earlier successors kept) and the error.
    pub(super) out_of_range: Option<(u32, SearchError)>,
}

impl Candidates {
    /// Candidate `k`'s words (`words` per state).
    pub(super) fn state(&self, k: usize, words: usize) -> &[u32] {
        &self.words[k * words..(k + 1) * words]
    }

    /// Counts the piece's expansions and successors into `out`; its value out of range,
    /// if any, as the error.
    pub(super) fn tally(&self, out: &mut SearchOutcome) -> Result<(), SearchError> {
        if let Some((_, e)) = &self.out_of_range {
            return Err(e.clone());
        }
        out.expanded += self.generated.len() as u64;
        out.generated += self.generated.iter().map(|&n| u64::from(n)).sum::<u64>();
        Ok(())
    }
}

/// Which candidates are tested against the goal when generated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Goals {
    All,
    /// Those reached by a zero-cost action (they join the bucket being expanded).
    ZeroCost,
    /// Those reached at a g of at most this (A*'s least f).
    UpTo(u64),
}

/// A heuristic's value of a state, on any thread (`None`: a dead end).
pub(super) type Value<'a> = &'a (dyn Fn(&[u32]) -> Option<u64> + Sync);

/// The candidates of the stored states `parents`.
fn expand(task: &Task, successors: &Successors, store: &Store, parents: &[u32], goals: Goals) -> Candidates {
    let mut c = Candidates::default();
    let (mut applicable, mut next): (Vec<u32>, State) = (Vec::new(), Vec::new());
    for &id in parents {
        let state = store.state(id);
        let g = store.g[id as usize];
        successors.applicable(task, state, &mut applicable);
        c.generated.push(applicable.len() as u32);
        for (k, &a) in applicable.iter().enumerate() {
            let action = &task.actions[a as usize];
            if let Err(e) = action.apply(state, &mut next) {
                c.out_of_range = Some((id, SearchError::out_of_range(task, a, e)));
                return c;
            }
            let hash = super::hash_state(&next);
            let g2 = g.saturating_add(action.cost);
            if store.find(&next, hash).is_some_and(|known| store.g[known as usize] <= g2) {
                continue;
            }
            c.parent.push(id);
            c.action.push(a);
            c.index.push(k as u32);
            let tested = match goals {
                Goals::All => true,
                Goals::ZeroCost => action.cost == 0,
                Goals::UpTo(bound) => g2 <= bound,
            };
            c.goal.push(tested && task.goal.holds(&next));
            if let Goals::UpTo(_) = goals {
                c.g.push(g2);
            }
            c.hash.push(hash);
            c.words.extend_from_slice(&next);
        }
    }
    c
}

/// The candidates of `parents` in pieces on the pool, in order.
fn expand_all(task: &Task, successors: &Successors, store: &Store, parents: &[u32], goals: Goals) -> Vec<Candidates> {
    parents.par_chunks(PIECE).map(|piece| expand(task, successors, store, piece, goals)).collect()
}

/// States expanded per parallel step.
fn chunk_size() -> usize {
    PIECE * PIECES_PER_THREAD * rayon::current_num_threads()
}

/// Breadth-first search for unit-cost tasks whose initial state is not a goal, with
/// `store` holding the initial state alone.
pub(super) fn breadth_first(
    task: &Task,
    options: &SearchOptions,
    mut store: Store,
    limit: usize,
) -> Result<SearchOutcome, SearchError> {
    let mut out = SearchOutcome::default();
    let successors = Successors::new(task);
    let chunk = chunk_size();
    let mut first = 0usize;
    while first < store.len() {
        let end = store.len().min(first + chunk);
        let parents: Vec<u32> = (first as u32..end as u32).collect();
        let pieces = expand_all(task, &successors, &store, &parents, Goals::All);
        let mut id = first as u32;
        for c in &pieces {
            let mut k = 0;
            for &generated in &c.generated {
                out.expanded += 1;
                check_time(options, out.expanded)?;
                let g = store.g[id as usize] + 1;
                while k < c.parent.len() && c.parent[k] == id {
                    let words = c.state(k, task.words);
                    let (s, new) = store
                        .insert_hashed(words, c.hash[k], id, c.action[k], g)
                        .map_err(|_| limit_error(limit, out.expanded))?;
                    if new && c.goal[k] {
                        out.generated += u64::from(c.index[k]) + 1;
                        return Ok(found(&store, s, g, out));
                    }
                    k += 1;
                }
                // The sequential search meets the value out of range here, after the
                // parent's earlier successors.
                if let Some((parent, e)) = &c.out_of_range {
                    if *parent == id {
                        return Err(e.clone());
                    }
                }
                out.generated += u64::from(generated);
                id += 1;
            }
        }
        first = end;
    }
    out.stored = store.len();
    Ok(out)
}

/// A*'s batch on the pool: the candidates of `parents` (stored states of g `store.g`,
/// the least f `least`) in order, with their g; the goal tested for those reached at a
/// g of at most `least`. Two pieces per thread balance the work.
pub(super) fn expand_batch(
    task: &Task,
    successors: &Successors,
    store: &Store,
    parents: &[u32],
    least: u64,
) -> Vec<Candidates> {
    let piece = parents.len().div_ceil(2 * rayon::current_num_threads()).max(1);
    parents.par_chunks(piece).map(|p| expand(task, successors, store, p, Goals::UpTo(least))).collect()
}

/// The heuristic values of the stored states `ids` into `out`, on the pool.
pub(super) fn evaluate(store: &Store, ids: &[u32], value: Value, out: &mut Vec<Option<u64>>) {
    ids.par_iter().map(|&id| value(store.state(id))).collect_into_vec(out);
}

/// The outcome with the plan to `goal`, of cost `g`.
pub(super) fn found(store: &Store, goal: u32, g: u64, mut out: SearchOutcome) -> SearchOutcome {
    out.plan = Some(store.plan(goal));
    out.cost = Some(g);
    out.stored = store.len();
    out
}

/// Uniform-cost search (blind, action costs) by `g`-buckets from the initial state (id
/// 0 of `store`).
pub(super) fn uniform_cost(
    task: &Task,
    options: &SearchOptions,
    mut store: Store,
    limit: usize,
) -> Result<SearchOutcome, SearchError> {
    let mut out = SearchOutcome::default();
    let successors = Successors::new(task);
    let chunk = chunk_size();
    // Per state: the g it was expanded with.
    let mut expanded_at: Vec<u64> = vec![u64::MAX];
    let mut buckets: BTreeMap<u64, Vec<u32>> = BTreeMap::from([(0, vec![0])]);
    while let Some((g, mut stack)) = buckets.pop_first() {
        // The bucket's states, newest on top: chunks are taken from the top, and the
        // successors over zero-cost actions go on top (deepest first, as the
        // sequential search takes them).
        while !stack.is_empty() {
            let mut parents = stack.split_off(stack.len().saturating_sub(chunk));
            // The live states, each once; the first goal ends the search.
            parents.retain(|&id| {
                let fresh = store.g[id as usize] == g && expanded_at[id as usize] != g;
                if fresh {
                    expanded_at[id as usize] = g;
                }
                fresh
            });
            if let Some(&goal) = parents.iter().find(|&&id| task.goal.holds(store.state(id))) {
                return Ok(found(&store, goal, g, out));
            }
            if options.deadline.is_some_and(|d| Instant::now() > d) {
                return Err(SearchError::TimeLimit { expanded: out.expanded });
            }
            for c in expand_all(task, &successors, &store, &parents, Goals::ZeroCost) {
                c.tally(&mut out)?;
                for k in 0..c.parent.len() {
                    let words = c.state(k, task.words);
                    let (parent, action) = (c.parent[k], c.action[k]);
                    let g2 = g.saturating_add(task.actions[action as usize].cost);
                    let (s, new) = store
                        .insert_hashed(words, c.hash[k], parent, action, g2)
                        .map_err(|_| limit_error(limit, out.expanded))?;
                    if new {
                        expanded_at.push(u64::MAX);
                    } else if g2 < store.g[s as usize] {
                        store.g[s as usize] = g2;
                        store.parent[s as usize] = parent;
                        store.action[s as usize] = action;
                    } else {
                        continue;
                    }
                    if g2 == g {
                        // No goal is cheaper than the cheapest bucket's states.
                        if c.goal[k] {
                            return Ok(found(&store, s, g, out));
                        }
                        stack.push(s);
                    } else {
                        buckets.entry(g2).or_default().push(s);
                    }
                }
            }
        }
    }
    out.stored = store.len();
    Ok(out)
}
