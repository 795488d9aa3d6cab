//! Graph files: [`Format`] chosen by extension or by name, and [`read`] / [`write()`].
//!
//! | format | extensions | content |
//! |---|---|---|
//! | [`Format::Aut`] | `.aut` | Aldebaran: `des (initial, transitions, states)`, then `(src, "label", dst)` lines |
//! | [`Format::Edges`] | `.edges`, `.txt` | one `u v` pair per line, `#` comments, optional `# vertices N` |
//! | [`Format::Binary`] | `.wcg` | our compact little-endian CSR (see [`binary`]) |
//!
//! Text readers report the file and line of the first bad line; no reader panics on
//! bad input.

pub mod aut;
pub mod binary;
pub mod edges;
mod text;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{Graph, GraphError};

/// A graph file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Aut,
    Edges,
    Binary,
}

impl Format {
    /// The format a file name's extension implies, if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "aut" => Some(Format::Aut),
            "edges" | "txt" => Some(Format::Edges),
            "wcg" => Some(Format::Binary),
            _ => None,
        }
    }

    /// The format called `name` (`aut`, `edges`, `binary`/`wcg`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "aut" => Some(Format::Aut),
            "edges" | "txt" => Some(Format::Edges),
            "binary" | "wcg" => Some(Format::Binary),
            _ => None,
        }
    }

    /// `format`, or else the one the extension of `path` implies.
    pub fn resolve(path: &Path, format: Option<Format>) -> Result<Format, GraphError> {
        format.or_else(|| Format::from_path(path)).ok_or_else(|| GraphError::UnknownFormat { path: path.into() })
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> GraphError + '_ {
    move |source| GraphError::Io { path: path.into(), source }
}

/// Reads the graph in `path` (format from the extension unless given).
pub fn read(path: &Path, format: Option<Format>) -> Result<Graph, GraphError> {
    let format = Format::resolve(path, format)?;
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    match format {
        Format::Aut => aut::parse(path, &bytes),
        Format::Edges => edges::parse(path, &bytes),
        Format::Binary => binary::decode(path, &bytes),
    }
}

/// Writes `graph` to `path` (format from the extension unless given).
pub fn write(path: &Path, graph: &Graph, format: Option<Format>) -> Result<(), GraphError> {
    let format = Format::resolve(path, format)?;
    let file = File::create(path).map_err(io_error(path))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    match format {
        Format::Aut => aut::write(&mut out, graph),
        Format::Edges => edges::write(&mut out, graph),
        Format::Binary => binary::write(&mut out, graph.forward()),
    }
    .and_then(|()| out.flush())
    .map_err(io_error(path))
}
