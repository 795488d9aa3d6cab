//! The state store of warpcheck's parallel engines.
//!
//! - [`zeroed`]: zeroed, lazily mapped arrays on transparent huge pages;
//! - [`table`]: [`NodeTable`], the lock-free set of `u64` with stable indices;
//! - [`tree`]: [`TreeStore`], tree compression of state vectors over one table;
//! - [`memory`]: the memory the OS reports available.

pub mod memory;
pub mod table;
pub mod tree;
pub mod zeroed;

pub use table::{NodeTable, TableFull};
pub use tree::{BatchScratch, TreeCursor, TreeStore};
pub use zeroed::ZeroedSlice;
