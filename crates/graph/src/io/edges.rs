//! Plain edge lists: one `source target` pair per line (blanks or tabs between).
//!
//! `#` starts a comment; blank lines are skipped. Without a directive the graph has
//! `max id + 1` vertices; a comment `# vertices N` (written by [`write()`]) fixes the
//! number, so that isolated vertices at the end survive a round trip.

use std::io::Write;
use std::path::Path;

use super::text::{error, lines, number, vertex};
use crate::{Graph, GraphError};

/// Parses the edge-list text `bytes` read from `path`.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Graph, GraphError> {
    let mut declared: Option<u64> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut max_id = None;
    for (line, text) in lines(bytes) {
        let Some((u, v)) = parse_line(path, line, text, &mut declared)? else { continue };
        let limit = declared.unwrap_or(crate::MAX_VERTICES);
        let (u, v) = (vertex(path, line, u, limit)?, vertex(path, line, v, limit)?);
        max_id = max_id.max(Some(u.max(v)));
        edges.push((u, v));
    }
    let vertices = declared.unwrap_or(max_id.map_or(0, |m| m as u64 + 1));
    if vertices > crate::MAX_VERTICES {
        return Err(GraphError::TooManyVertices { vertices });
    }
    if max_id.is_some_and(|m| m as u64 >= vertices) {
        // `# vertices N` came after an edge naming a larger id: find that line.
        for (line, text) in lines(bytes) {
            if let Some((u, v)) = parse_line(path, line, text, &mut None)? {
                vertex(path, line, u.max(v), vertices)?;
            }
        }
    }
    Graph::from_edges(vertices, &edges)
}

/// One line: `Some((u, v))` for an edge, `None` for a blank or comment line (noting a
/// `# vertices N` directive in `declared`).
fn parse_line(
    path: &Path,
    line: u64,
    text: &[u8],
    declared: &mut Option<u64>,
) -> Result<Option<(u64, u64)>, GraphError> {
    let (body, comment) = match text.iter().position(|&b| b == b'#') {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    if let Some(c) = comment {
        let c = String::from_utf8_lossy(c);
        let mut words = c.split_whitespace();
        if words.next() == Some("vertices") {
            let n = words.next().ok_or_else(|| error(path, line, "`# vertices` needs a number"))?;
            *declared = Some(number(path, line, n.as_bytes(), "the number of vertices")?);
        }
    }
    let mut fields = body.split(|b| b.is_ascii_whitespace()).filter(|f| !f.is_empty());
    let Some(first) = fields.next() else { return Ok(None) };
    let second = fields.next().ok_or_else(|| error(path, line, "expected two vertex ids `u v`"))?;
    if fields.next().is_some() {
        return Err(error(path, line, "expected two vertex ids `u v`, found more fields"));
    }
    Ok(Some((number(path, line, first, "a vertex id")?, number(path, line, second, "a vertex id")?)))
}

/// Writes `graph` as an edge list with a `# vertices N` header.
pub fn write(out: &mut impl Write, graph: &Graph) -> std::io::Result<()> {
    let csr = graph.forward();
    writeln!(out, "# vertices {}", csr.vertices())?;
    writeln!(out, "# edges {}", csr.edges())?;
    for (u, v) in csr.edge_iter() {
        writeln!(out, "{u} {v}")?;
    }
    Ok(())
}
