//! Aldebaran `.aut` files (CADP's textual LTS format).
//!
//! ```text
//! des (0, 3, 2)
//! (0, "send", 1)
//! (1, i, 0)
//! (1, "a, b", 1)
//! ```
//!
//! The header gives the initial state, the number of transitions and the number of
//! states; each following line is one transition. Labels (quoted or not, commas
//! allowed inside) are checked for shape and **dropped**: warpcheck's graphs are
//! unlabelled, since its graph algorithms (SCC, reachability) do not read labels.
//! The writer labels every edge `"i"` and names state 0 as the initial state, which
//! is where explorations put it (a graph without vertices is written with one state,
//! since `.aut` needs an initial state). Blank lines are allowed; the numbers of transitions
//! and states must match the header.

use std::io::Write;
use std::path::Path;

use super::text::{error, lines, number, vertex};
use crate::{Graph, GraphError};

/// Parses the `.aut` text `bytes` read from `path`.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Graph, GraphError> {
    let mut it = lines(bytes).filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
    let Some((hline, header)) = it.next() else { return Err(error(path, 1, "empty file: expected `des (...)`")) };
    let (initial, transitions, states) = parse_header(path, hline, header)?;
    if states == 0 || initial >= states {
        return Err(error(path, hline, format!("initial state {initial} is not one of the {states} states")));
    }
    if states > crate::MAX_VERTICES {
        return Err(GraphError::TooManyVertices { vertices: states });
    }
    let mut edges = Vec::with_capacity(transitions.min(1 << 28) as usize);
    let mut last_line = hline;
    for (line, text) in it {
        last_line = line;
        let (src, dst) = parse_transition(path, line, text)?;
        edges.push((vertex(path, line, src, states)?, vertex(path, line, dst, states)?));
    }
    if edges.len() as u64 != transitions {
        let message = format!("the header announces {transitions} transitions, the file has {}", edges.len());
        return Err(error(path, last_line, message));
    }
    Graph::from_edges(states, &edges)
}

/// `des (initial, transitions, states)`.
fn parse_header(path: &Path, line: u64, text: &[u8]) -> Result<(u64, u64, u64), GraphError> {
    let t = String::from_utf8_lossy(text);
    let inner = t
        .trim()
        .strip_prefix("des")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| error(path, line, "expected the header `des (initial, transitions, states)`"))?;
    let fields: Vec<&str> = inner.split(',').collect();
    if fields.len() != 3 {
        return Err(error(path, line, "expected the header `des (initial, transitions, states)`"));
    }
    let n = |i: usize, what| number(path, line, fields[i].as_bytes(), what);
    Ok((n(0, "the initial state")?, n(1, "the number of transitions")?, n(2, "the number of states")?))
}

/// `(src, label, dst)`: the label is everything between the first and the last comma.
fn parse_transition(path: &Path, line: u64, text: &[u8]) -> Result<(u64, u64), GraphError> {
    let t = text.trim_ascii();
    let bad = || error(path, line, "expected a transition `(source, \"label\", target)`");
    let inner = t.strip_prefix(b"(").and_then(|r| r.strip_suffix(b")")).ok_or_else(bad)?;
    let first = inner.iter().position(|&b| b == b',').ok_or_else(bad)?;
    let last = inner.iter().rposition(|&b| b == b',').ok_or_else(bad)?;
    if first == last {
        return Err(bad());
    }
    let label = inner[first + 1..last].trim_ascii();
    let quoted = label.len() >= 2 && label[0] == b'"' && label[label.len() - 1] == b'"';
    if label.is_empty() || (label.contains(&b'"') && !quoted) {
        return Err(error(path, line, "malformed label: expected `\"text\"` or a word"));
    }
    Ok((
        number(path, line, &inner[..first], "a source state")?,
        number(path, line, &inner[last + 1..], "a target state")?,
    ))
}

/// Writes `graph` as `.aut` (initial state 0, every label `"i"`).
pub fn write(out: &mut impl Write, graph: &Graph) -> std::io::Result<()> {
    let csr = graph.forward();
    writeln!(out, "des (0, {}, {})", csr.edges(), csr.vertices().max(1))?;
    for (u, v) in csr.edge_iter() {
        writeln!(out, "({u}, \"i\", {v})")?;
    }
    Ok(())
}
