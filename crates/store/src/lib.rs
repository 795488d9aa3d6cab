//! The state store of warpcheck's parallel engines.
//!
//! - [`zeroed`]: zeroed, lazily mapped arrays on transparent huge pages;
//! - [`table`]: [`NodeTable`], the lock-free set of `u64` with stable indices;
//! - [`tree`]: [`TreeStore`], tree compression of state vectors over one table, and
//!   its growth in place ([`TreeStore::grown`]: every state moved into a larger
//!   store, with the old id → new id map);
//! - [`budget`]: [`MemoryBudget`] and [`TablePlan`], the one growth policy of every
//!   engine's table (first size, growth factor, load thresholds, largest size);
//! - [`memory`]: the memory the OS reports available.

pub mod budget;
pub mod memory;
pub mod table;
pub mod tree;
pub mod zeroed;

pub use budget::{MemoryBudget, TablePlan};
pub use table::{NodeTable, TableFull};
pub use tree::{BatchScratch, Grown, Remap, TreeCursor, TreeStore};
pub use zeroed::ZeroedSlice;
