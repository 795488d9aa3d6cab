//! warpcheck's compact binary CSR (`.wcg`), little endian throughout:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `WCGRAPH\0` |
//! | 4 | version (1) |
//! | 4 | flags (0; reserved) |
//! | 8 | vertex count `n` |
//! | 8 | edge count `m` |
//! | 8 (n+1) | offsets, `offsets[0] = 0`, non-decreasing, `offsets[n] = m` |
//! | 4 m | targets, each `< n` |
//!
//! The reader checks the magic, the version, that the file has exactly this length,
//! and every CSR invariant, so a truncated or corrupted file is an error, never a
//! panic or a graph with dangling edges.

use std::io::Write;
use std::path::Path;

use crate::{Csr, Graph, GraphError};

/// The first eight bytes of every `.wcg` file.
pub const MAGIC: &[u8; 8] = b"WCGRAPH\0";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
const HEADER: usize = 32;

/// Writes `csr` in the binary format.
pub fn write(out: &mut impl Write, csr: &Csr) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(&(csr.vertices() as u64).to_le_bytes())?;
    out.write_all(&csr.edges().to_le_bytes())?;
    for &o in csr.offsets() {
        out.write_all(&o.to_le_bytes())?;
    }
    for &t in csr.targets() {
        out.write_all(&t.to_le_bytes())?;
    }
    Ok(())
}

/// Decodes the binary file `bytes` read from `path`.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<Graph, GraphError> {
    let bad = |message: String| GraphError::Binary { path: path.into(), message };
    if bytes.len() < HEADER {
        return Err(bad(format!("truncated: {} bytes, a header needs {HEADER}", bytes.len())));
    }
    if &bytes[..8] != MAGIC {
        return Err(bad("not a warpcheck binary graph (bad magic)".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
    let (version, flags) = (u32_at(8), u32_at(12));
    if version != VERSION {
        return Err(bad(format!("format version {version}; this warpcheck reads version {VERSION}")));
    }
    if flags != 0 {
        return Err(bad(format!("unknown flags {flags:#x}")));
    }
    let (n, m) = (u64_at(16), u64_at(24));
    if n > crate::MAX_VERTICES {
        return Err(GraphError::TooManyVertices { vertices: n });
    }
    let expected = (n as u128 + 1) * 8 + m as u128 * 4 + HEADER as u128;
    if bytes.len() as u128 != expected {
        let what = if (bytes.len() as u128) < expected { "truncated" } else { "trailing bytes" };
        return Err(bad(format!("{what}: {} bytes, {n} vertices and {m} edges need {expected}", bytes.len())));
    }
    let offsets_end = HEADER + (n as usize + 1) * 8;
    let offsets =
        bytes[HEADER..offsets_end].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let targets = bytes[offsets_end..].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    Csr::from_parts(offsets, targets).map(Graph::new).map_err(|e| bad(format!("inconsistent CSR: {e}")))
}
