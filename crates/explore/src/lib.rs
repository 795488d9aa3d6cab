//! Exploration engines of warpcheck over the model interface.
//!
//! - [`store`]: a sequential state store giving states dense ids;
//! - [`bfs`]: the sequential breadth-first explorer (the reference engine).

pub mod bfs;
pub mod store;

pub use bfs::{explore, BfsOptions, Stats};
