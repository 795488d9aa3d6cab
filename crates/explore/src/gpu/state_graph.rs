//! A model's state graph built by the GPU engine: the exploration records the
//! adjacency on the device (`WC_GRAPH` in kernel.cu, as for LTL) and it is copied back
//! as a forward CSR.
//!
//! The graph is [`crate::state_graph`]'s up to vertex numbering: the real
//! states (vertex 0 the initial state, the others in the GPU's discovery order: BFS
//! levels, nondeterministic within a level), then, when some step raised an evaluation
//! error, one error state without successors, the last vertex. Edges are the steps,
//! one per enabled step, duplicates and self-loops kept, steps into the error state
//! included. So vertices and edges equal the CPU's (and the reference's states and
//! transitions), as do the deadlocks (the error state is one); the SCC summary is the
//! same because the graphs are isomorphic.
//!
//! Device memory: the store's share per state (see engine.rs), 12 bytes of adjacency
//! per state and room for [`EDGES_PER_STATE`] edges per state the store can hold. A
//! graph that needs more ends with [`GpuError::Full`] or [`GpuError::EdgesFull`], never
//! a dropped state or edge.

use std::time::Instant;

use crate::StateGraph;
use warpcheck_cuda::cudarc;
use warpcheck_cuda::driver::CudaSlice;
use warpcheck_cuda::nvrtc;
use warpcheck_graph::{Csr, Graph};
use warpcheck_model::cuda::{CudaModel, CudaSource};

use super::engine::{
    compile_source_for_device, explore_graph, graph_source, tuned_source, GpuError, GpuOptions, GpuReport, GraphSpec,
    Session, Tuning,
};

/// Edge room reserved per state the store can hold (BEEM's state graphs and LTL
/// products have 1.5-9 successors per state, most of them 2-4).
pub const EDGES_PER_STATE: f64 = 8.0;

/// The error-step marker of the recorded targets (`WC_ERROR_TARGET` in kernel.cu).
const ERROR_TARGET: u32 = 0xFFFF_FFFD;

/// Graph recording alone: no kernels or per-state bytes beyond the adjacency.
const SPEC: GraphSpec =
    GraphSpec { source: "", extra_bytes_per_state: 0.0, edges_per_state: EDGES_PER_STATE, prefix_on_full: false };

/// The complete CUDA source of a state-graph exploration, for inspection and compile
/// checks without a GPU.
pub fn cuda_source(generated: &CudaSource, tuning: &Tuning) -> String {
    graph_source(&tuned_source(generated, tuning), generated, &SPEC)
}

/// Compiles (or finds in the cache) the kernels of a state-graph exploration of
/// `model` for `device`, without running them: lets a caller compile many models in
/// parallel first.
pub fn compile_for_device<M: CudaModel>(model: &M, device: usize) -> Result<nvrtc::Compiled, GpuError> {
    compile_source_for_device(model, &[], device, cuda_source)
}

/// A state graph from the GPU and where the time went.
pub struct GpuStateGraph {
    pub state_graph: StateGraph,
    /// The exploration (its `explore_seconds`: the search with the adjacency recorded).
    pub report: GpuReport,
    /// Copying the adjacency back and laying it out as a CSR on the host.
    pub copy_seconds: f64,
}

/// Explores `model` on the GPU of `options` (its `device`, `memory` and `progress`; no
/// checks run) and returns its state graph.
pub fn state_graph_gpu<M: CudaModel>(model: &M, options: &GpuOptions<'_>) -> Result<GpuStateGraph, GpuError> {
    let (report, session) = explore_graph(model, options, &SPEC)?;
    let start = Instant::now();
    let r = &report.report;
    let errors = r.error_transitions > 0;
    let real = (r.states - errors as u64) as usize;
    let edges = recorded_edges(&session, r.transitions)?;
    let csr = copy_adjacency(&session, real, real + errors as usize, edges)?;
    drop(session);
    let copy_seconds = start.elapsed().as_secs_f64();
    let state_graph =
        StateGraph { graph: Graph::new(csr), error_state: errors.then_some(real as u32), deadlocks: r.deadlocks };
    Ok(GpuStateGraph { state_graph, report, copy_seconds })
}

/// The edges a graph-recording session recorded, checked to be the `transitions` the
/// exploration counted.
pub fn recorded_edges(session: &Session, transitions: u64) -> Result<u64, GpuError> {
    let g = session.graph.as_ref().expect("a graph-recording exploration has a graph");
    let mut edges = [0u64];
    session.stream.memcpy_dtoh(&g.edges, &mut edges).map_err(|e| GpuError::Cuda(format!("{e:?}")))?;
    if edges[0] != transitions {
        return Err(GpuError::Cuda(format!("the GPU recorded {} edges for {transitions} transitions", edges[0])));
    }
    Ok(edges[0])
}

/// Copies a graph-recording session's adjacency (`edges` of them) back as a CSR of `n`
/// vertices: the `real` states, then (if `n > real`) the error state, which
/// error-step markers become.
pub fn copy_adjacency(session: &Session, real: usize, n: usize, edges: u64) -> Result<Csr, GpuError> {
    let g = session.graph.as_ref().expect("a graph-recording exploration has a graph");
    let read = |what: &str, e| GpuError::Cuda(format!("copying the GPU's {what} back: {e:?}"));
    // Only the entries in use: the buffers are sized for the store's capacity.
    fn prefix<T: cudarc::driver::DeviceRepr + Default + Clone>(
        session: &Session,
        s: &CudaSlice<T>,
        len: usize,
    ) -> Result<Vec<T>, cudarc::driver::DriverError> {
        let mut host = vec![T::default(); len];
        if len > 0 {
            session.stream.memcpy_dtoh(&s.slice(..len), &mut host)?;
        }
        Ok(host)
    }
    let first = prefix(session, &g.first, real).map_err(|e| read("first edges", e))?;
    let degree = prefix(session, &g.degree, real).map_err(|e| read("degrees", e))?;
    let targets = prefix(session, &g.targets, edges as usize).map_err(|e| read("edges", e))?;
    adjacency_csr(&first, &degree, &targets, real, n)
}

/// The device's adjacency (a block of `targets` per vertex, blocks in any order) as a
/// CSR of `n` vertices, those from `real` on (the error state) without successors; an
/// error-step marker becomes an edge to vertex `real`.
fn adjacency_csr(first: &[u64], degree: &[u32], targets: &[u32], real: usize, n: usize) -> Result<Csr, GpuError> {
    let bad = |what: String| GpuError::Cuda(format!("the GPU's graph: {what}"));
    let mut offsets = Vec::with_capacity(n + 1);
    let mut out = Vec::with_capacity(targets.len());
    offsets.push(0u64);
    for v in 0..real {
        let (at, k) = (first[v] as usize, degree[v] as usize);
        let block = targets.get(at..at + k).ok_or_else(|| bad(format!("vertex {v}'s edges lie outside")))?;
        out.extend(block.iter().map(|&t| if t == ERROR_TARGET { real as u32 } else { t }));
        offsets.push(out.len() as u64);
    }
    offsets.resize(n + 1, out.len() as u64);
    Csr::from_parts(offsets, out).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_blocks_in_any_order_become_a_csr_with_the_error_state_last() {
        // Vertex 0 -> 1, 2 (block at 3), vertex 1 -> 1 (block at 0), vertex 2 -> the
        // error state (block at 1, a marker, with a stale entry after it), vertex 3: the
        // error state.
        let first = [3, 0, 1, 0];
        let degree = [2, 1, 1, 0];
        let targets = [1, ERROR_TARGET, 9, 1, 2];
        let csr = adjacency_csr(&first, &degree, &targets, 3, 4).unwrap();
        assert_eq!(csr.vertices(), 4);
        let lists: Vec<&[u32]> = (0..4).map(|v| csr.successors(v)).collect();
        assert_eq!(lists, [&[1, 2][..], &[1], &[3], &[]]);
    }

    #[test]
    fn a_block_outside_the_edges_or_a_target_outside_the_vertices_is_an_error() {
        assert!(adjacency_csr(&[4, 0], &[2, 0], &[1, 1, 1, 1], 1, 2).is_err());
        assert!(adjacency_csr(&[0, 0], &[1, 0], &[7], 2, 2).is_err());
        // A marker without an error state.
        assert!(adjacency_csr(&[0], &[1], &[ERROR_TARGET], 1, 1).is_err());
    }

    #[test]
    fn the_marker_is_the_kernels() {
        assert!(include_str!("kernel.cu").contains("#define WC_ERROR_TARGET 0xFFFFFFFDu"));
    }
}
