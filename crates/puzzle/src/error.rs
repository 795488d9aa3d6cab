//! The one error type of the crate: bad instances and states, memory, and searches that
//! do not apply to a puzzle. Nothing here panics on bad input.

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The instance's parameters are out of range (`sliding-tile 1x1`, `pancake 40`).
    #[error("invalid instance: {0}")]
    Instance(String),
    /// A position given as text is not a state of the puzzle.
    #[error("invalid position: {0}")]
    State(String),
    /// A bit vector does not fit the memory allowed (or the allocation failed).
    #[error("{what} needs {needed} bytes, more than the {allowed} bytes of memory allowed")]
    Memory { what: String, needed: u64, allowed: u64 },
    /// The algorithm does not apply to this puzzle (one-bit BFS without a
    /// move-alternation or layer-selection property, for example).
    #[error("{0}")]
    Unsupported(String),
    /// The GPU could not run the search: no device, no driver or NVRTC, or a CUDA call
    /// that failed.
    #[error("GPU: {0}")]
    Gpu(String),
    /// A file could not be read or written, or holds no valid database.
    #[error("{0}")]
    Io(String),
    /// The position asked for is not reachable from the start.
    #[error("the position is not reachable from the start")]
    Unreachable,
}
