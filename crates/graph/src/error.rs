//! The one error type of the graph crate: what went wrong, and where in which file.

use std::path::PathBuf;

/// A graph that cannot be built, read or written.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The file could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A text file has a malformed line (`line` counts from 1).
    #[error("{}:{line}: {message}", path.display())]
    Parse { path: PathBuf, line: u64, message: String },
    /// A binary file is malformed (bad magic, truncated, inconsistent).
    #[error("{}: {message}", path.display())]
    Binary { path: PathBuf, message: String },
    /// An edge names a vertex outside `0..vertices`.
    #[error("edge ({source_vertex}, {target}) names a vertex outside 0..{vertices}")]
    VertexOutOfRange { source_vertex: u64, target: u64, vertices: u64 },
    /// More vertices than `u32` ids allow.
    #[error("{vertices} vertices: at most {} are supported", crate::MAX_VERTICES)]
    TooManyVertices { vertices: u64 },
    /// Not enough memory for the vertex array of this many vertices.
    #[error("not enough memory for a graph of {vertices} vertices")]
    OutOfMemory { vertices: u64 },
    /// The file name says nothing about the format and none was given.
    #[error("{}: unknown graph format (use .aut, .edges, .txt or .wcg, or --format)", path.display())]
    UnknownFormat { path: PathBuf },
}
