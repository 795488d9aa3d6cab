//! Sequential breadth-first exploration: counts states, transitions, deadlocks and
//! BFS levels, and notes evaluation errors, assertion violations and accepting states.
//!
//! Counting follows the reference (DiVinE 2.4): every step that raises an evaluation
//! error is an edge to one special error state, which has no successors; so the error
//! state adds one state and one deadlock, and each such step one transition.
//!
//! This is the simple reference engine over the model interface; the parallel engine
//! must agree with it.

use warpcheck_model::interface::{Model, Successors};
use warpcheck_model::EvalError;

use crate::store::{StateId, StateStore};

/// What a breadth-first exploration found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct reachable states, including the error state if some step reaches it.
    pub states: u64,
    /// Edges, one per enabled step, including the steps into the error state.
    pub transitions: u64,
    /// States with no enabled step (the error state is one).
    pub deadlocks: u64,
    /// Number of BFS levels (the initial state is level 0).
    pub levels: u32,
    /// States in which the property automaton accepts.
    pub accepting: u64,
    /// Steps that raised an evaluation error (edges to the error state).
    pub error_transitions: u64,
    /// Whether the error state is reachable (some step raised an evaluation error).
    pub error_state: bool,
    /// The first evaluation error found: the state it was raised in and the error.
    pub first_error: Option<(StateId, EvalError)>,
    /// States violating some DVE `assert`.
    pub assertion_violations: u64,
    /// Whether exploration stopped at the state limit before finishing.
    pub truncated: bool,
    /// Bytes held by the state store at the end.
    pub store_bytes: usize,
}

/// Options of a breadth-first exploration.
#[derive(Clone, Debug, Default)]
pub struct BfsOptions {
    /// Stop after this many states (`None`: no limit).
    pub max_states: Option<u64>,
}

/// Explores the state space of `model` breadth first from its initial state.
pub fn explore<M: Model>(model: &M, options: &BfsOptions) -> Stats {
    let mut store = StateStore::new(model.state_words());
    let mut generator = model.successors();
    let mut stats = Stats::default();
    let assertions = model.assertion_labels();
    store.insert(&model.initial_state());
    let mut next: StateId = 0;
    let mut level_end: StateId = 1;
    let mut current = Vec::with_capacity(model.state_words());
    while (next as usize) < store.len() {
        if next == level_end {
            stats.levels += 1;
            level_end = store.len() as StateId;
        }
        if options.max_states.is_some_and(|m| store.len() as u64 >= m) {
            stats.truncated = true;
            break;
        }
        current.clear();
        current.extend_from_slice(store.get(next));
        let deadlock = generator.successors(&current, |_, result| match result {
            Ok(target) => {
                stats.transitions += 1;
                store.insert(target);
            }
            Err(e) => {
                stats.transitions += 1;
                stats.error_transitions += 1;
                stats.first_error.get_or_insert((next, e));
            }
        });
        stats.deadlocks += deadlock as u64;
        stats.accepting += model.is_accepting(&current) as u64;
        stats.assertion_violations += model.violated_assertion(&current, &assertions).is_some() as u64;
        next += 1;
    }
    stats.levels += 1;
    stats.error_state = stats.error_transitions > 0;
    stats.states = store.len() as u64 + stats.error_state as u64;
    stats.deadlocks += stats.error_state as u64;
    stats.store_bytes = store.bytes();
    stats
}
