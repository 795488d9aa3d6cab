//! Line splitting and number parsing shared by the text formats, with the file and
//! line number in every error.

use std::path::Path;

use crate::GraphError;

/// The lines of `bytes` numbered from 1, without their `\n` / `\r\n`.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    body.split(|&b| b == b'\n')
        .filter(move |_| !bytes.is_empty())
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

/// A parse error at `line` of `path`.
pub fn error(path: &Path, line: u64, message: impl Into<String>) -> GraphError {
    GraphError::Parse { path: path.into(), line, message: message.into() }
}

/// `field` (surrounding blanks allowed) as a decimal number.
pub fn number(path: &Path, line: u64, field: &[u8], what: &str) -> Result<u64, GraphError> {
    let text = String::from_utf8_lossy(field);
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(path, line, format!("expected {what} (a non-negative integer), found `{t}`")));
    }
    t.parse().map_err(|_| error(path, line, format!("{what} `{t}` is too large")))
}

/// `id` as a vertex id of a graph with `vertices` vertices.
pub fn vertex(path: &Path, line: u64, id: u64, vertices: u64) -> Result<u32, GraphError> {
    if id >= vertices {
        return Err(error(path, line, format!("vertex {id} is out of range (the graph has {vertices} vertices)")));
    }
    Ok(id as u32)
}
