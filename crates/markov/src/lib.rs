//! Markov models for warpcheck: what every probabilistic front end produces and every
//! probabilistic algorithm consumes.
//!
//! - [`SparseModel`]: a DTMC, CTMC or MDP as a sparse row-grouped matrix (rows are
//!   choices, a state's group of rows its choices; a DTMC or CTMC has one row per
//!   state), with initial states, state labels, reward structures and, when known,
//!   the variable values of every state.
//! - [`predecessors`]: the transposed state graph with the row of every edge, for
//!   backward searches.
//! - [`mec`]: maximal end components of MDPs and bottom SCCs of DTMCs/CTMCs, on all
//!   cores, with a sequential reference.
//! - [`precompute`]: the graph precomputations of probabilistic reachability (prob0 and
//!   prob1 of DTMCs, prob0A/prob0E/prob1A/prob1E of MDPs).
//!
//! This crate knows no source language: the PRISM front end builds a [`SparseModel`],
//! the explicit readers load one.

pub mod mec;
pub mod precompute;
pub mod predecessors;
pub mod sparse;

mod par;

pub use mec::{bottom_sccs, maximal_end_components, MecSummary, Mecs};
pub use predecessors::Predecessors;
pub use sparse::{Labelling, ModelType, RewardModel, SparseModel, Valuations};
