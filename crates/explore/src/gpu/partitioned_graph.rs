//! The product graph of a partitioned search, gathered on the first GPU (LTL over
//! partitions; see partitioned.rs): built after the search by `wc_part_edges`, which
//! expands every partition's states again and finds each successor's id in its
//! owner's table, so that the graph's vertices are global ids (a partition's ids after
//! those of the partitions before it). The cycle detection (`warpcheck_liveness::gpu`)
//! then runs on the first GPU as it does after a search on one. After a search that
//! filled the stores, only the states expanded get their successors: the graph is a
//! breadth-first prefix, as one GPU's.

use std::sync::Arc;

use super::engine::{cuda, ptr, GpuError, GraphArgs, TableArgs};
use super::partitioned::{Gpu, Part};
use cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream};
use warpcheck_cuda::{cudarc, grid, KernelArg};

/// The largest vertex id of the graph: the targets reserve the three ids above it.
const MOST_VERTICES: u64 = 0xFFFF_FFFC;

/// The graph of a partitioned search on the first GPU, and the partitions' stores,
/// which hold the states.
pub struct PartitionedGraph {
    devices: Vec<Gpu>,
    store: Vec<Part>,
    /// Each partition's first global id.
    pub bases: Vec<u32>,
    /// The states of all partitions (error state excluded).
    pub real: u64,
    /// Whether some step raised an evaluation error: vertex `real` is the error state.
    pub error_state: bool,
    /// Edges (= transitions, steps into the error state included).
    pub edges: u64,
    /// The global id of the initial state (the root of the parents).
    pub root: u32,
    /// Per vertex (the error state included): its first edge and degree; the targets;
    /// the parent's global id (`u32::MAX` for the root); on the first GPU.
    pub first: CudaSlice<u64>,
    pub degree: CudaSlice<u32>,
    pub targets: CudaSlice<u32>,
    pub parents: CudaSlice<u32>,
    /// Device seconds of the edge pass.
    pub seconds: f64,
    words: usize,
    model_words: usize,
}

/// A partition's states as a kernel of the LTL checker sees them: the GPU that holds
/// them, its module (every GPU's holds the checker's kernels), the states' address,
/// their number and the first global id.
pub struct PartitionStates<'g> {
    pub stream: &'g Arc<CudaStream>,
    pub module: &'g Arc<CudaModule>,
    pub states: u64,
    pub held: u32,
    pub base: u32,
}

impl PartitionedGraph {
    /// The graph of every partition's states, the first `expanded[p]` of partition
    /// `p` with their successors (a breadth-first prefix when fewer than it holds: the
    /// others have none).
    pub(crate) fn build(
        devices: Vec<Gpu>,
        mut store: Vec<Part>,
        expanded: Vec<u32>,
        words: usize,
        model_words: usize,
    ) -> Result<PartitionedGraph, GpuError> {
        let start = std::time::Instant::now();
        let read = |part: &Part, s: &CudaSlice<u64>| -> Result<Vec<u64>, GpuError> {
            let mut host = vec![0u64; s.len()];
            devices[part.gpu].stream.memcpy_dtoh(s, &mut host).map_err(cuda)?;
            Ok(host)
        };
        let (mut bases, mut real, mut edges, mut errors) = (Vec::with_capacity(store.len()), 0u64, 0u64, 0u64);
        for part in &store {
            bases.push(real as u32);
            real += part.held as u64;
            let counters = read(part, &part.counters)?;
            edges += counters[0];
            errors += counters[2];
        }
        let error_state = errors > 0;
        let n = real + error_state as u64;
        if n > MOST_VERTICES {
            return Err(GpuError::Options(format!(
                "the product has {real} states: LTL over partitions numbers them with 32 bits (at most \
                 {MOST_VERTICES}); use the CPU"
            )));
        }
        // The exchange's buffers are done with: their memory goes to the graph.
        for part in &mut store {
            let stream = &devices[part.gpu].stream;
            part.outbox = stream.alloc_zeros::<u32>(1).map_err(cuda)?;
            part.inbox = None;
        }
        let gpu0 = &devices[0];
        let s0 = &gpu0.stream;
        let room = |e: cudarc::driver::DriverError| {
            GpuError::Cuda(format!(
                "the product graph ({n} vertices, {edges} edges) does not fit the first GPU's memory beside its \
                 partitions ({e:?}); give fewer partitions to the first GPU, more device memory, or use the CPU"
            ))
        };
        let first = s0.alloc_zeros::<u64>(n as usize).map_err(room)?;
        let degree = s0.alloc_zeros::<u32>(n as usize).map_err(room)?;
        // SAFETY: uninitialised `u32`s are sound to hold; `wc_part_edges` writes every
        // edge of the `edges` counted (checked below) and no other is read.
        let targets = unsafe { s0.alloc::<u32>(edges.max(1) as usize) }.map_err(room)?;
        // SAFETY: as above: `wc_part_parents` writes every real vertex's parent; the
        // error state's is written here.
        let mut parents = unsafe { s0.alloc::<u32>(n as usize) }.map_err(room)?;
        if error_state {
            s0.memcpy_htod(&[u32::MAX], &mut parents.slice_mut(real as usize..n as usize)).map_err(cuda)?;
        }
        let used = s0.alloc_zeros::<u64>(1).map_err(room)?;
        let flags = s0.alloc_zeros::<u32>(2).map_err(room)?;
        // The other GPUs write these: their zeroing on the first GPU's stream is done.
        s0.synchronize().map_err(cuda)?;
        let graph = GraphArgs {
            first: ptr(&first, s0),
            degree: ptr(&degree, s0),
            targets: ptr(&targets, s0),
            edges: ptr(&used, s0),
            capacity: edges,
            full: ptr(&flags, s0),
            edges_full: ptr(&flags, s0) + 4,
        };
        let tables: Vec<TableArgs> = store.iter().map(|p| p.args).collect();
        let mut on_gpu = Vec::with_capacity(devices.len());
        for gpu in &devices {
            on_gpu.push((gpu.stream.clone_htod(&tables).map_err(cuda)?, gpu.stream.clone_htod(&bases).map_err(cuda)?));
        }
        let parents_at = ptr(&parents, s0);
        for (part, &expanded) in store.iter().zip(&expanded) {
            let gpu = &devices[part.gpu];
            let stream = &gpu.stream;
            let (tabs, bases_at) = (ptr(&on_gpu[part.gpu].0, stream), ptr(&on_gpu[part.gpu].1, stream));
            let function = |name: &str| gpu.module.load_function(name).map_err(cuda);
            let (edges_fn, parents_fn) = (function("wc_part_edges")?, function("wc_part_parents")?);
            let most = edges_fn.max_threads_per_block().map_err(cuda)? as u32;
            let block = gpu.block.min(most / 32 * 32).max(32);
            let held = part.held;
            let args: [&dyn KernelArg; 5] = [&part.args, &tabs, &bases_at, &graph, &expanded];
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_part_edges(WcTable,
            // const WcTable *, const u32 *, WcGraph, u32)` with the partition's live
            // store, every partition's tables and first ids copied to this GPU, and the
            // graph's buffers on the first GPU (peer access is enabled: the search was
            // direct), sized for every edge counted (the device flags more).
            unsafe { warpcheck_cuda::launch(stream, &edges_fn, grid(expanded as u64, block, gpu.blocks), &args) }
                .map_err(cuda)?;
            let args: [&dyn KernelArg; 4] = [&part.args, &bases_at, &held, &parents_at];
            // SAFETY: as above: `wc_part_parents(WcTable, const u32 *, u32, u32 *)`, the
            // global parents on the first GPU with room for every vertex.
            unsafe { warpcheck_cuda::launch(stream, &parents_fn, grid(held as u64, gpu.block, gpu.blocks), &args) }
                .map_err(cuda)?;
        }
        for gpu in &devices {
            gpu.stream.synchronize().map_err(cuda)?;
        }
        let mut flag = [0u32; 2];
        s0.memcpy_dtoh(&flags, &mut flag).map_err(cuda)?;
        let mut recorded = [0u64];
        s0.memcpy_dtoh(&used, &mut recorded).map_err(cuda)?;
        if flag[1] != 0 || recorded[0] != edges {
            return Err(GpuError::Cuda(format!(
                "the partitions' graph has {} edges where the search counted {edges} transitions",
                recorded[0]
            )));
        }
        if flag[0] != 0 {
            return Err(GpuError::Cuda("a successor is missing from its partition's store".into()));
        }
        let root = Self::root(&devices, &store, &bases)?;
        drop(on_gpu);
        Ok(PartitionedGraph {
            devices,
            store,
            bases,
            real,
            error_state,
            edges,
            root,
            first,
            degree,
            targets,
            parents,
            seconds: start.elapsed().as_secs_f64(),
            words,
            model_words,
        })
    }

    /// The global id of the (first) initial state: state 0 of the partition whose
    /// state 0 has no parent.
    fn root(devices: &[Gpu], store: &[Part], bases: &[u32]) -> Result<u32, GpuError> {
        for (part, &base) in store.iter().zip(bases) {
            if part.held == 0 {
                continue;
            }
            let mut parent = [0u32];
            devices[part.gpu].stream.memcpy_dtoh(&part.parents.slice(0..1), &mut parent).map_err(cuda)?;
            if parent[0] == u32::MAX {
                return Ok(base);
            }
        }
        Err(GpuError::Cuda("no partition holds an initial state".into()))
    }

    /// Vertices: the states, and the error state if there is one.
    pub fn vertices(&self) -> u64 {
        self.real + self.error_state as u64
    }

    /// The first GPU (where the graph is): its context, stream, module, multiprocessors.
    pub fn first_gpu(&self) -> (&Arc<CudaContext>, &Arc<CudaStream>, &Arc<CudaModule>) {
        let g = &self.devices[0];
        (&g.ctx, &g.stream, &g.module)
    }

    /// Every partition's states, for kernels that read them (acceptance).
    pub fn partitions(&self) -> Vec<PartitionStates<'_>> {
        self.store
            .iter()
            .zip(&self.bases)
            .map(|(p, &base)| {
                let gpu = &self.devices[p.gpu];
                PartitionStates {
                    stream: &gpu.stream,
                    module: &gpu.module,
                    states: ptr(&p.states, &gpu.stream),
                    held: p.held,
                    base,
                }
            })
            .collect()
    }

    /// Waits for every GPU.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.devices.iter().try_for_each(|g| g.stream.synchronize().map_err(cuda))
    }

    /// The state of real vertex `v`, read from its partition (the model's words).
    pub fn state(&self, v: u32) -> Result<Vec<u32>, GpuError> {
        let p = self.bases.partition_point(|&b| b <= v).saturating_sub(1);
        let part = &self.store[p];
        let at = (v - self.bases[p]) as usize * self.words;
        if v as u64 >= self.real || v - self.bases[p] >= part.held {
            return Err(GpuError::Cuda(format!("vertex {v} is no state of the partitions")));
        }
        let mut state = vec![0u32; self.words];
        self.devices[part.gpu].stream.memcpy_dtoh(&part.states.slice(at..at + self.words), &mut state).map_err(cuda)?;
        state.truncate(self.model_words);
        Ok(state)
    }
}
