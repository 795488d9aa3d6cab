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

use warpcheck_graph::{Csr, Graph, MAX_VERTICES};
use warpcheck_model::interface::{Model, Successors};

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
    #[error("{source}: stored {states} states before it filled up; give more memory")]
    TableFull { source: warpcheck_store::TableFull, states: u64 },
}

const ERROR_TARGET: u32 = u32::MAX;

/// Explores `model` completely and returns its state graph; `max_states` (at most
/// `u32::MAX - 1`, the limit of vertex ids) bounds the number of states.
pub fn state_graph<M: Model>(model: &M, max_states: Option<u64>) -> Result<StateGraph, StateGraphError> {
    state_graph_with_states(model, max_states).map(|(graph, _)| graph)
}

/// [`state_graph`] and the states themselves, back to back in vertex order
/// (`model.state_words()` words each; the error state, the last vertex if any, has
/// none): for what is computed from states, such as the weights of `cycle-mean`.
pub fn state_graph_with_states(
    model: &impl Model,
    max_states: Option<u64>,
) -> Result<(StateGraph, Vec<u32>), StateGraphError> {
    let limit = max_states.unwrap_or(MAX_VERTICES - 1).min(MAX_VERTICES - 1);
    let mut store = StateStore::new(model.state_words());
    let mut generator = model.successors();
    store.insert(&model.initial_state());
    let mut offsets = vec![0u64];
    let mut targets: Vec<u32> = Vec::new();
    let mut current = Vec::with_capacity(model.state_words());
    let (mut errors, mut deadlocks) = (0u64, 0u64);
    let mut next: StateId = 0;
    while (next as usize) < store.len() {
        current.clear();
        current.extend_from_slice(store.get(next));
        let deadlock = generator.successors(&current, |_, result| match result {
            Ok(target) => targets.push(store.insert(target).0),
            Err(_) => {
                errors += 1;
                targets.push(ERROR_TARGET);
            }
        });
        deadlocks += deadlock as u64;
        if store.len() as u64 + (errors > 0) as u64 > limit {
            return Err(StateGraphError::TooManyStates { limit });
        }
        offsets.push(targets.len() as u64);
        next += 1;
    }
    let error_state = (errors > 0).then_some(store.len() as u32);
    if let Some(e) = error_state {
        targets.iter_mut().filter(|t| **t == ERROR_TARGET).for_each(|t| *t = e);
        offsets.push(targets.len() as u64);
        deadlocks += 1;
    }
    let csr = Csr::from_parts(offsets, targets).expect("the exploration builds a valid CSR");
    Ok((StateGraph { graph: Graph::new(csr), error_state, deadlocks }, store.into_states()))
}
