//! Explicit directed graphs for warpcheck's graph algorithms.
//!
//! - [`Csr`]: one direction of adjacency in compressed sparse row form (`u64` offsets,
//!   `u32` targets), built from an edge list by a counting sort, and transposed;
//! - [`Graph`]: a graph's forward edges and its backward edges, the latter built on
//!   first use and kept;
//! - [`io`]: readers and writers for Aldebaran `.aut`, plain edge lists and our compact
//!   binary CSR (`.wcg`), chosen by [`Format`];
//! - [`generate`]: seeded generators of the synthetic families of the SCC papers
//!   (Erdős–Rényi, R-MAT, SSCA#2).
//!
//! ```
//! use warpcheck_graph::Graph;
//! let g = Graph::from_edges(3, &[(0, 1), (1, 2), (2, 0)]).unwrap();
//! assert_eq!(g.forward().successors(1), &[2]);
//! assert_eq!(g.backward().successors(0), &[2]); // predecessors of 0
//! ```
//!
//! Invariants: vertex ids are dense `u32` below [`MAX_VERTICES`]; edges keep their
//! multiplicity (a state graph has one edge per transition, duplicates and self-loops
//! included); nothing here panics on bad input files: every failure is a [`GraphError`].

pub mod csr;
pub mod error;
pub mod generate;
pub mod io;

pub use csr::{Csr, Graph, MAX_VERTICES};
pub use error::GraphError;
pub use io::Format;
