//! Exploration engines of warpcheck over the model interface; the parallel ones
//! store states in `warpcheck_store`.
//!
//! - [`store`]: a sequential state store giving states dense ids;
//! - [`bfs`]: the sequential breadth-first explorer (the reference engine);
//! - [`graph`]: the explicit state graph (CSR) by a sequential breadth-first search;
//! - [`graph_parallel`]: the same graph built on all cores over the parallel store;
//! - [`valued`]: the state graph with integer values of its states (weights);
//! - [`parallel`]: the parallel breadth-first engine with property checks;
//! - [`disk`]: breadth-first exploration with the states on disk (delayed duplicate
//!   detection);
//! - [`check`] and [`trace`]: the properties checked and the counterexamples;
//! - [`gpu`]: the GPU engine (exploration, checks, state graphs) over any
//!   `CudaModel`, the CUDA twin of [`parallel`].

pub mod bfs;
pub mod check;
pub mod disk;
pub mod gpu;
pub mod graph;
pub mod graph_parallel;
pub mod leaf_order;
pub mod parallel;
pub mod store;
pub mod trace;
pub mod valued;

pub use bfs::{explore, BfsOptions, Stats};
pub use check::{Checks, Invariant, Violation, ViolationKind};
pub use graph::{state_graph, state_graph_with_states, StateGraph, StateGraphError};
pub use graph_parallel::{state_graph_parallel, GraphOptions, ParallelStateGraph, PrefixBuilder};
pub use parallel::{explore_parallel, ExploreError, Options, Order, Progress, ProgressHook, Report, Throttle};
pub use trace::{Lasso, Trace, TraceStep};
pub use valued::{state_graph_valued, StateFunction, ValuedGraphError, ValuedStateGraph};
