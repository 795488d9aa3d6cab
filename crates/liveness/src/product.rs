//! The graphs the accepting-cycle searches run on: the [`Successors`] interface (dense
//! vertex ids, successors, acceptance) and its on-the-fly implementation over a model's
//! product with its property automaton, [`Product`]; and an explicit graph,
//! [`Explicit`].
//!
//! Evaluation errors: a step that raises one leads to the error state, which has no
//! successors and is not accepting, so it lies on no cycle and no infinite run goes
//! through it. The searches therefore drop such steps (they only count them).

use warpcheck_explore::store::{StateId, StateStore};
use warpcheck_graph::Csr;
use warpcheck_model::interface::{Model, Successors as _};

use crate::LtlError;

/// A directed graph with accepting vertices, explored by id. Ids are dense: every id
/// handed out is below [`Successors::vertices`], which may grow as successors are
/// generated.
pub trait Successors {
    /// Appends the ids of `v`'s successors to `out` (duplicates allowed).
    fn successors(&mut self, v: u32, out: &mut Vec<u32>) -> Result<(), LtlError>;
    /// Whether `v` is accepting.
    fn is_accepting(&self, v: u32) -> bool;
    /// The number of vertices known so far (an upper bound of every id seen).
    fn vertices(&self) -> usize;
}

/// The product of a model with its property automaton, generated on the fly: states
/// get dense ids in the sequential [`StateStore`] (the initial state is 0) as they are
/// first generated.
pub struct Product<'m, M: Model> {
    model: &'m M,
    generator: M::Successors<'m>,
    store: StateStore,
    current: Vec<u32>,
    max_states: u64,
    /// Per state (a bit), whether its steps were counted: the red search of nested DFS
    /// generates successors again.
    counted: Vec<u64>,
    /// Steps of the states expanded so far, each counted once, and those among them
    /// that raised an evaluation error.
    pub transitions: u64,
    pub error_transitions: u64,
}

impl<'m, M: Model> Product<'m, M> {
    /// The product of `model`; more than `max_states` states (at most `u32::MAX`) is an
    /// error.
    pub fn new(model: &'m M, max_states: Option<u64>) -> Product<'m, M> {
        let mut store = StateStore::new(model.state_words());
        store.insert(&model.initial_state());
        Product {
            model,
            generator: model.successors(),
            store,
            current: Vec::with_capacity(model.state_words()),
            max_states: max_states.unwrap_or(u64::MAX).min(u32::MAX as u64),
            counted: Vec::new(),
            transitions: 0,
            error_transitions: 0,
        }
    }

    /// The state with id `id`.
    pub fn state(&self, id: u32) -> &[u32] {
        self.store.get(id)
    }

    /// Bytes held by the state store.
    pub fn store_bytes(&self) -> usize {
        self.store.bytes()
    }
}

impl<M: Model> Successors for Product<'_, M> {
    fn successors(&mut self, v: u32, out: &mut Vec<u32>) -> Result<(), LtlError> {
        self.current.clear();
        self.current.extend_from_slice(self.store.get(v as StateId));
        let (word, bit) = (v as usize / 64, 1u64 << (v % 64));
        if self.counted.len() <= word {
            self.counted.resize(word + 1, 0);
        }
        let first = self.counted[word] & bit == 0;
        self.counted[word] |= bit;
        let (mut steps, mut errors) = (0, 0);
        let store = &mut self.store;
        self.generator.successors(&self.current, |_, result| {
            steps += 1;
            match result {
                Ok(target) => out.push(store.insert(target).0),
                Err(_) => errors += 1,
            }
        });
        if first {
            self.transitions += steps;
            self.error_transitions += errors;
        }
        if self.store.len() as u64 > self.max_states {
            return Err(LtlError::TooManyStates { limit: self.max_states });
        }
        Ok(())
    }

    fn is_accepting(&self, v: u32) -> bool {
        self.model.is_accepting(self.store.get(v))
    }

    fn vertices(&self) -> usize {
        self.store.len()
    }
}

/// An explicit graph with accepting vertices, optionally restricted to a set of
/// vertices (edges leaving the set are dropped).
pub struct Explicit<'a> {
    pub graph: &'a Csr,
    pub accepting: &'a [bool],
    pub within: Option<&'a [bool]>,
}

impl Successors for Explicit<'_> {
    fn successors(&mut self, v: u32, out: &mut Vec<u32>) -> Result<(), LtlError> {
        let targets = self.graph.successors(v).iter().copied();
        match self.within {
            Some(set) => out.extend(targets.filter(|&w| set[w as usize])),
            None => out.extend(targets),
        }
        Ok(())
    }

    fn is_accepting(&self, v: u32) -> bool {
        self.accepting[v as usize]
    }

    fn vertices(&self) -> usize {
        self.graph.vertices()
    }
}
