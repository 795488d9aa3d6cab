//! Markov models for warpcheck: what every probabilistic front end produces and every
//! probabilistic algorithm consumes.
//!
//! - [`SparseModel`]: a DTMC, CTMC or MDP as a sparse row-grouped matrix (rows are
//!   choices, a state's group of rows its choices; a DTMC or CTMC has one row per
//!   state), with initial states, state labels, reward structures and, when known,
//!   the variable values of every state.
//! - [`build()`](build::build): any [`warpcheck_model::Model`] whose steps carry
//!   probabilities or rates, explored breadth-first into a [`SparseModel`], with the
//!   rewards and valuations of its [`Annotations`]; [`build_recorded`] does the same
//!   for a state space explored elsewhere (the GPU builder's [`Recorded`] arrays).
//! - Files: [`drn`] (Storm's DRN) and [`explicit`] (PRISM's `.tra/.lab/.sta/.srew/.trew`),
//!   read and written, plain or gzip-compressed; [`load`] and [`save`] pick the format
//!   from the file name. Every reader reports a malformed file as an [`Error`] naming
//!   the file, line and column.
//! - [`predecessors`]: the transposed state graph with the row of every edge, for
//!   backward searches.
//! - [`mec`]: maximal end components of MDPs and bottom SCCs of DTMCs/CTMCs, on all
//!   cores, with a sequential reference.
//! - [`precompute`]: the graph precomputations of probabilistic reachability (prob0 and
//!   prob1 of DTMCs, prob0A/prob0E/prob1A/prob1E of MDPs).
//!
//! This crate knows no source language: the PRISM front end builds a [`SparseModel`],
//! the explicit readers load one.

mod assemble;
pub mod build;
pub mod check;
pub mod drn;
pub mod error;
pub mod explicit;
mod files;
pub mod mec;
mod number;
mod par;
pub mod precompute;
pub mod predecessors;
pub mod recorded;
mod rows;
pub mod sparse;
mod state_store;
mod text;
mod writing;

pub use assemble::{assemble, Emits, SUM_TOLERANCE};
pub use build::{build, Annotations, BuildError, BuildOptions, NoAnnotations, RewardInfo};

pub use error::{Error, Problem};
pub use explicit::ExplicitFiles;
pub use files::{is_gzip, load, open, save, Format};
pub use mec::{bottom_sccs, maximal_end_components, MecSummary, Mecs};
pub use predecessors::Predecessors;
pub use recorded::{build_recorded, Recorded};
pub use sparse::{Labelling, ModelType, RewardModel, SparseModel, Valuations};
