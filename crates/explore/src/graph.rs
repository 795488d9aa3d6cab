//! The state graph of a model, explicitly: a breadth-first exploration over the
//! sequential [`StateStore`] that records every edge in CSR form as it goes.
//!
//! Vertices are the reachable states with their dense store ids (so BFS order, the
//! initial state is 0), plus, when some step raises an evaluation error, one error
//! state (the last vertex, without successors). Edges are the steps, one per enabled
//! step, duplicates and self-loops kept, steps into the error state included. So the
//! graph's vertices and edges are exactly the states and transitions that
//! [`explore`](crate::explore) counts and `reference.csv` lists.
//!
//! Because states are expanded in id order, each state's successors are appended to
//! the target array in turn and the forward CSR needs no sorting; edges to the error
//! state are patched once its id is known.
//!
//! In a rayon pool of more than one thread, the successors of the next chunk of
//! discovered states are generated in parallel, and then inserted into the store in id
//! order by one thread. Every state of a chunk is already stored and new states get
//! ids past the chunk, so the insertions happen in exactly the sequential order: the
//! graph and its numbering are the same for every number of threads.

use rayon::prelude::*;
use warpcheck_graph::{Csr, Graph, MAX_VERTICES};
use warpcheck_model::{Generator, Model};

use crate::store::{StateId, StateStore};

/// A model's state graph and what is known about its vertices.
pub struct StateGraph {
    pub graph: Graph,
    /// The error state's vertex, if some step raised an evaluation error.
    pub error_state: Option<u32>,
    /// Vertices without successors (the error state is one).
    pub deadlocks: u64,
}

/// Why no state graph was built.
#[derive(Debug, thiserror::Error)]
pub enum StateGraphError {
    #[error("the state graph has more than {limit} states")]
    TooManyStates { limit: u64 },
}

const ERROR_TARGET: u32 = u32::MAX;

/// Explores `model` completely and returns its state graph; `max_states` (at most
/// `u32::MAX - 1`, the limit of vertex ids) bounds the number of states.
pub fn state_graph(model: &Model, max_states: Option<u64>) -> Result<StateGraph, StateGraphError> {
    state_graph_with_states(model, max_states).map(|(graph, _)| graph)
}

/// [`state_graph`] and the states themselves, back to back in vertex order
/// (`model.state_words()` words each; the error state, the last vertex if any, has
/// none): for what is computed from states, such as the weights of `cycle-mean`.
pub fn state_graph_with_states(
    model: &Model,
    max_states: Option<u64>,
) -> Result<(StateGraph, Vec<u32>), StateGraphError> {
    let limit = max_states.unwrap_or(MAX_VERTICES - 1).min(MAX_VERTICES - 1);
    let mut store = StateStore::new(model.state_words());
    store.insert(&model.initial_state());
    let mut edges = Edges { offsets: vec![0u64], targets: Vec::new(), errors: 0, deadlocks: 0 };
    if rayon::current_num_threads() > 1 && model.state_words() > 0 {
        explore_in_chunks(model, &mut store, &mut edges, limit)?;
    } else {
        let mut generator = Generator::new(model);
        let mut current = Vec::with_capacity(model.state_words());
        let mut next: StateId = 0;
        while (next as usize) < store.len() {
            current.clear();
            current.extend_from_slice(store.get(next));
            let deadlock = generator.successors(&current, |_, result| match result {
                Ok(target) => edges.targets.push(store.insert(target).0),
                Err(_) => {
                    edges.errors += 1;
                    edges.targets.push(ERROR_TARGET);
                }
            });
            edges.end_vertex(deadlock, store.len(), limit)?;
            next += 1;
        }
    }
    let Edges { mut offsets, mut targets, errors, mut deadlocks } = edges;
    let error_state = (errors > 0).then_some(store.len() as u32);
    if let Some(e) = error_state {
        targets.iter_mut().filter(|t| **t == ERROR_TARGET).for_each(|t| *t = e);
        offsets.push(targets.len() as u64);
        deadlocks += 1;
    }
    let csr = Csr::from_parts(offsets, targets).expect("the exploration builds a valid CSR");
    Ok((StateGraph { graph: Graph::new(csr), error_state, deadlocks }, store.into_states()))
}

/// The CSR under construction.
struct Edges {
    offsets: Vec<u64>,
    targets: Vec<u32>,
    errors: u64,
    deadlocks: u64,
}

impl Edges {
    /// Closes the current vertex's edge list; fails past `limit` states.
    fn end_vertex(&mut self, deadlock: bool, stored: usize, limit: u64) -> Result<(), StateGraphError> {
        self.deadlocks += deadlock as u64;
        if stored as u64 + (self.errors > 0) as u64 > limit {
            return Err(StateGraphError::TooManyStates { limit });
        }
        self.offsets.push(self.targets.len() as u64);
        Ok(())
    }
}

/// States expanded per parallel round, and per task within a round.
const CHUNK: usize = 1 << 15;
const TASK: usize = 64;

/// The successors of some states, generated by one task: per state, its successors in
/// order (`None`: an evaluation error) and whether it is a deadlock.
#[derive(Default)]
struct Expanded {
    words: Vec<u32>,
    steps: Vec<bool>,
    per_state: Vec<(u32, bool)>,
}

/// The exploration loop with parallel successor generation (see the module doc).
fn explore_in_chunks(
    model: &Model,
    store: &mut StateStore,
    edges: &mut Edges,
    limit: u64,
) -> Result<(), StateGraphError> {
    let words = model.state_words();
    let mut next = 0usize;
    let mut chunk: Vec<u32> = Vec::new();
    while next < store.len() {
        let end = store.len().min(next + CHUNK);
        chunk.clear();
        for id in next..end {
            chunk.extend_from_slice(store.get(id as StateId));
        }
        let expanded: Vec<Expanded> = chunk
            .par_chunks(TASK * words)
            .map_init(
                || Generator::new(model),
                |generator, states| {
                    let mut out = Expanded::default();
                    for state in states.chunks(words) {
                        let before = out.steps.len();
                        let deadlock = generator.successors(state, |_, result| match result {
                            Ok(target) => {
                                out.words.extend_from_slice(target);
                                out.steps.push(true);
                            }
                            Err(_) => out.steps.push(false),
                        });
                        out.per_state.push(((out.steps.len() - before) as u32, deadlock));
                    }
                    out
                },
            )
            .collect();
        for task in &expanded {
            let (mut step, mut word) = (0usize, 0usize);
            for &(count, deadlock) in &task.per_state {
                for &ok in &task.steps[step..step + count as usize] {
                    if ok {
                        edges.targets.push(store.insert(&task.words[word..word + words]).0);
                        word += words;
                    } else {
                        edges.errors += 1;
                        edges.targets.push(ERROR_TARGET);
                    }
                }
                step += count as usize;
                edges.end_vertex(deadlock, store.len(), limit)?;
            }
        }
        next = end;
    }
    Ok(())
}
