//! The one error type of the cycle crate.

use std::path::PathBuf;

/// Why a cycle mean or ratio could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum CycleError {
    /// The input file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A malformed line of a DIMACS-like file (`line` counts from 1).
    #[error("{}:{line}: {message}", path.display())]
    Parse { path: PathBuf, line: u64, message: String },
    /// A graph that cannot be built (sizes, vertex ids, negative transit times).
    #[error("{0}")]
    Graph(String),
    /// A cycle whose transit times sum to zero: its ratio is undefined.
    #[error("the cycle through vertices {vertices:?} has total transit time 0: its cycle ratio is undefined")]
    ZeroTimeCycle { vertices: Vec<u32> },
    /// An intermediate value left the range of exact 128-bit integers.
    #[error("exact arithmetic overflowed 128-bit integers (weights or times too large)")]
    Overflow,
    /// A result failed its own check (a bug: please report it).
    #[error("internal error: {0}")]
    Internal(String),
    /// The algorithm does not solve this problem.
    #[error("{0}")]
    Unsupported(&'static str),
}

impl From<crate::ratio::Overflow> for CycleError {
    fn from(_: crate::ratio::Overflow) -> CycleError {
        CycleError::Overflow
    }
}
