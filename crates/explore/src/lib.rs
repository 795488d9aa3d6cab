//! Exploration engines of warpcheck over the model interface.
//!
//! - [`store`]: a sequential state store giving states dense ids;
//! - [`bfs`]: the sequential breadth-first explorer (the reference engine);
//! - [`table`] and [`tree`]: the lock-free, tree-compressed state store of the
//!   parallel engine.

pub mod bfs;
pub mod store;
pub mod table;
pub mod tree;

pub use bfs::{explore, BfsOptions, Stats};
