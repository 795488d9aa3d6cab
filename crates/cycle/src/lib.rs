//! Optimal cycle mean and cycle ratio of weighted directed graphs, exactly, with a
//! critical cycle as the witness.
//!
//! - [`WeightedGraph`] (`graph`): CSR with an `i64` weight and a non-negative `i64`
//!   transit time per edge; [`dimacs`]: the reader of Dasdan's `.d` format;
//! - [`Ratio`] (`ratio`): exact rationals over `i128` with checked arithmetic;
//! - [`components`]: SCC pre-decomposition into one [`components::Subgraph`] per
//!   cyclic component (self-loops included);
//! - the algorithms, each on one strongly connected subgraph: [`howard`] (policy
//!   iteration, sequential or with a parallel improvement step), [`yto`]
//!   (Young–Tarjan–Orlin parametric shortest paths) and [`karp`] (cycle means only);
//! - [`solve`]: all of it together, per component and overall;
//! - [`certificate`]: the exact check that a policy found in floating point (the GPU
//!   Howard) is optimal;
//! - [`gpu`]: Howard's policy iteration on a CUDA device, all cyclic components at
//!   once, kernels in `gpu/howard.cu`, exact by the certificate (needs a device at run
//!   time, not to build).
//!
//! The mean of a cycle is its weight over its number of edges, the ratio its weight
//! over its transit time. A maximum is the minimum of the negated weights. Every
//! answer is exact: the value of a component is the ratio of the cycle the algorithm
//! returns, recomputed from the original weights, and Karp's independent value is
//! checked against it.
//!
//! ```
//! use warpcheck_cycle::{solve, Algorithm, Arc, Options, Problem, Sense, WeightedGraph};
//! let arc = |source, target, weight| Arc { source, target, weight, time: 1 };
//! let g = WeightedGraph::from_arcs(3, &[arc(0, 1, 1), arc(1, 0, -8), arc(1, 2, 0), arc(2, 2, -3)]).unwrap();
//! let options = Options { problem: Problem::Mean, sense: Sense::Min, algorithm: Algorithm::Howard };
//! let s = solve(&g, &options).unwrap();
//! assert_eq!(s.value.unwrap().to_string(), "-7/2");
//! assert_eq!(s.cycle.unwrap().vertices, vec![0, 1]);
//! ```

pub mod certificate;
pub mod components;
pub mod dimacs;
pub mod error;
pub mod gpu;
pub mod graph;
mod heap;
pub mod howard;
pub mod karp;
pub mod ratio;
mod solve;
pub mod yto;

pub use error::CycleError;
pub use graph::{Arc, WeightedGraph};
pub use ratio::Ratio;
pub use solve::{
    combine, component_result, cycle_result, solve, Algorithm, ComponentResult, CriticalCycle, Options, Problem, Sense,
    Solution,
};
