//! Reader of the DIMACS-like weighted graph format of Dasdan's cycle-mean benchmarks
//! (`shared/cycle-mean`):
//!
//! ```text
//! c a comment (also `#`), blank lines allowed
//! p <name> <n> <m>          n vertices numbered 1..n, m arcs (exactly m `a` lines)
//! a <u> <v> <weight> <time> an arc u -> v; weight and time integers (time >= 0,
//!                           1 if omitted)
//! ```
//!
//! Vertices are 1-based in the file and 0-based in the [`WeightedGraph`]. Every
//! malformed line is a [`CycleError::Parse`] with the file and line; nothing panics.

use std::path::Path;

use crate::graph::{Arc, WeightedGraph};
use crate::CycleError;

/// A graph read from a `.d` file, with the name on its `p` line.
#[derive(Clone, Debug)]
pub struct Dimacs {
    pub name: String,
    pub graph: WeightedGraph,
}

/// Reads and parses the file at `path`.
pub fn read(path: &Path) -> Result<Dimacs, CycleError> {
    let text = std::fs::read(path).map_err(|source| CycleError::Io { path: path.into(), source })?;
    parse(path, &text)
}

/// Parses `text` (the contents of `path`, named in errors).
pub fn parse(path: &Path, text: &[u8]) -> Result<Dimacs, CycleError> {
    let err = |line: u64, message: String| CycleError::Parse { path: path.into(), line, message };
    let mut header: Option<(String, u64, u64)> = None;
    let mut arcs = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line = i as u64 + 1;
        let Ok(s) = std::str::from_utf8(raw) else { return Err(err(line, "not UTF-8 text".into())) };
        let fields: Vec<&str> = s.split_whitespace().collect();
        match fields.first().copied() {
            None | Some("c") => {}
            Some(f) if f.starts_with('#') => {}
            Some("p") => {
                if header.is_some() {
                    return Err(err(line, "a second `p` line".into()));
                }
                if fields.len() != 4 {
                    return Err(err(line, format!("expected `p <name> <n> <m>`, found `{}`", s.trim())));
                }
                let n = count(fields[2], "the number of vertices").map_err(|m| err(line, m))?;
                let m = count(fields[3], "the number of arcs").map_err(|m| err(line, m))?;
                if n >= warpcheck_graph::MAX_VERTICES {
                    return Err(err(
                        line,
                        format!("{n} vertices: at most {} are supported", warpcheck_graph::MAX_VERTICES - 1),
                    ));
                }
                arcs.try_reserve(m.min(1 << 28) as usize).map_err(|_| err(line, format!("no memory for {m} arcs")))?;
                header = Some((fields[1].to_string(), n, m));
            }
            Some("a") => {
                let Some((_, n, m)) = header else { return Err(err(line, "an arc before the `p` line".into())) };
                if fields.len() != 4 && fields.len() != 5 {
                    return Err(err(line, format!("expected `a <u> <v> <weight> <time>`, found `{}`", s.trim())));
                }
                if arcs.len() as u64 == m {
                    return Err(err(line, format!("more than the {m} arcs of the `p` line")));
                }
                let u = vertex(fields[1], n).map_err(|m| err(line, m))?;
                let v = vertex(fields[2], n).map_err(|m| err(line, m))?;
                let weight = integer(fields[3], "weight").map_err(|m| err(line, m))?;
                let time = if fields.len() == 5 { integer(fields[4], "time").map_err(|m| err(line, m))? } else { 1 };
                if time < 0 {
                    return Err(err(line, format!("negative transit time {time}")));
                }
                arcs.push(Arc { source: u, target: v, weight, time });
            }
            Some(other) => {
                return Err(err(line, format!("unknown line type `{other}` (expected `p`, `a` or `c`)")));
            }
        }
    }
    let last = text.split(|&b| b == b'\n').count() as u64;
    let Some((name, n, m)) = header else { return Err(err(last.max(1), "no `p <name> <n> <m>` line".into())) };
    if arcs.len() as u64 != m {
        return Err(err(last, format!("the `p` line announces {m} arcs, the file has {}", arcs.len())));
    }
    let graph = WeightedGraph::from_arcs(n, &arcs)?;
    Ok(Dimacs { name, graph })
}

fn count(field: &str, what: &str) -> Result<u64, String> {
    field.parse::<u64>().map_err(|_| format!("expected {what} (a non-negative integer), found `{field}`"))
}

fn integer(field: &str, what: &str) -> Result<i64, String> {
    field.parse::<i64>().map_err(|_| format!("expected the {what} (a 64-bit integer), found `{field}`"))
}

fn vertex(field: &str, n: u64) -> Result<u32, String> {
    let v = count(field, "a vertex")?;
    if v == 0 || v > n {
        return Err(format!("vertex {v} is out of range (vertices are 1..{n})"));
    }
    Ok((v - 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Dimacs, CycleError> {
        parse(Path::new("g.d"), s.as_bytes())
    }

    #[test]
    fn reads_arcs_one_based() {
        let d = parse_str("c hello\np ex 3 3\na 1 2 -5 2\r\na 2 3 7 1\n\na 3 1 0\n").unwrap();
        assert_eq!(d.name, "ex");
        let arcs: Vec<_> = d.graph.arcs().collect();
        assert_eq!(arcs[0], Arc { source: 0, target: 1, weight: -5, time: 2 });
        assert_eq!(arcs[2], Arc { source: 2, target: 0, weight: 0, time: 1 });
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases = [
            ("p ex 2 1\na 1 3 1 1\n", "g.d:2: vertex 3 is out of range"),
            ("p ex 2 1\na 0 1 1 1\n", "g.d:2: vertex 0 is out of range"),
            ("a 1 2 1 1\n", "g.d:1: an arc before"),
            ("p ex 2 1\na 1 2 x 1\n", "g.d:2: expected the weight"),
            ("p ex 2 1\na 1 2 1 -1\n", "g.d:2: negative transit time"),
            ("p ex 2 2\na 1 2 1 1\n", "announces 2 arcs, the file has 1"),
            ("p ex 2 1\na 1 2 1 1\na 2 1 1 1\n", "g.d:3: more than the 1 arcs"),
            ("p ex 2\n", "g.d:1: expected `p <name> <n> <m>`"),
            ("x\n", "g.d:1: unknown line type `x`"),
            ("", "no `p <name> <n> <m>` line"),
            ("p ex 2 1\na 1 2 99999999999999999999 1\n", "g.d:2: expected the weight"),
            ("p ex 99999999999 0\n", "at most"),
        ];
        for (input, expected) in cases {
            let e = parse_str(input).unwrap_err().to_string();
            assert!(e.contains(expected), "{input:?}: {e}");
        }
    }
}
