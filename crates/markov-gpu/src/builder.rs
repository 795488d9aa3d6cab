//! Markov models built on the GPU: any [`CudaModel`] whose generated C also has
//! `wc_branches` (the PRISM front end's, `warpcheck_prism::codegen`) becomes the
//! [`SparseModel`] that the CPU builder [`warpcheck_markov::build()`] gives, equal in
//! every state number, entry and value.
//!
//! 1. **Explore**: the GPU exploration engine searches the state space breadth first
//!    and records, per state, the targets of its steps in emission order
//!    (`warpcheck_explore::gpu::engine::explore_graph`, as for state graphs).
//! 2. **Weigh**: `weigh.cu` runs the model's `wc_branches` on every state, in
//!    batches that fit the device memory the store left, and writes each step's
//!    probability or rate and choice tag (compiled without fused multiply-add: the
//!    CPU's rounding). It checks each emitted target against the recorded one.
//! 3. **Assemble** on all CPU cores ([`build_recorded`]): Storm's numbering (a
//!    breadth-first pass over the recorded targets), rows, rewards, labels and
//!    valuations, with the CPU builder's checks.
//!
//! A step that raises an evaluation error ends with [`GpuBuildError::Evaluation`]:
//! the CPU builder then names the state and the step (the caller reruns it there).

use std::time::Instant;

use warpcheck_cuda::cudarc::driver::{CudaSlice, CudaStream};
use warpcheck_cuda::cudarc::nvrtc::Ptx;
use warpcheck_cuda::{device_ptr, grid, nvrtc, KernelArg};
use warpcheck_explore::gpu::engine::{explore_graph, GraphSpec, Session};
use warpcheck_explore::gpu::state_graph::{copy_adjacency, recorded_edges};
use warpcheck_explore::gpu::{GpuError, GpuOptions};
use warpcheck_markov::recorded::{build_recorded, Recorded};
use warpcheck_markov::{Annotations, BuildError, BuildOptions, ModelType, SparseModel};
use warpcheck_model::cuda::{CudaModel, Unsupported};

/// The kernel's source; the model's C goes at its `@@MODEL@@` line.
pub const WEIGH_SOURCE: &str = include_str!("weigh.cu");

/// Edge room the exploration reserves per state the store can hold (the QComp
/// instances have 1-10 steps per state, herman-11 86 on 2048 states).
const EDGES_PER_STATE: f64 = 8.0;

/// The most steps per state (the generator's bound) the builder takes: the exploration
/// keeps a state's successor ids in a per-thread array of this many words, which the
/// device reserves for every resident thread (4 KiB each: about 1 GiB on an H100).
pub const MAX_STEPS: u64 = 1024;

/// Device bytes left to the context when sizing the weigh batches.
const RESERVE: u64 = 256 << 20;

/// Threads per block of the weigh kernel.
const BLOCK: u32 = 128;

/// How to build on the GPU.
#[derive(Clone, Debug, Default)]
pub struct GpuBuildOptions {
    /// CUDA device ordinal.
    pub device: usize,
    /// Device memory for the exploration's store and steps, in bytes (default: the
    /// exploration engine's, 90% of the free memory).
    pub memory: Option<u64>,
    /// The CPU builder's options (state limit, valuations).
    pub build: BuildOptions,
}

/// A model built on the GPU and where the time went.
#[derive(Clone, Debug)]
pub struct GpuBuild {
    pub model: SparseModel,
    pub device_name: String,
    /// NVRTC compilation (or cache lookup) of the exploration and the weigh kernel.
    pub compile_seconds: f64,
    /// Context, store and the breadth-first search with the steps recorded.
    pub explore_seconds: f64,
    /// The weigh batches, with their copies back.
    pub weigh_seconds: f64,
    /// Copying the states and the recorded targets back.
    pub copy_seconds: f64,
    /// Numbering and assembly on the CPU.
    pub assemble_seconds: f64,
}

/// Why a GPU build stopped.
#[derive(Debug, thiserror::Error)]
pub enum GpuBuildError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A step raised an evaluation error (the CPU builder names it).
    #[error("a step raised an evaluation error")]
    Evaluation,
}

fn cuda<E: std::fmt::Debug>(e: E) -> GpuError {
    GpuError::Cuda(format!("{e:?}"))
}

/// Builds `model` (of type `model_type`) on the GPU: the same [`SparseModel`] as
/// `warpcheck_markov::build(model, model_type, model, &options.build)`.
pub fn build_gpu<M: CudaModel + Annotations + Sync>(
    model: &M,
    model_type: ModelType,
    options: &GpuBuildOptions,
) -> Result<GpuBuild, GpuBuildError> {
    let generated = model.cuda_source(&[]).map_err(GpuError::from)?;
    let unsupported = |why: String| GpuBuildError::Gpu(GpuError::Unsupported(Unsupported::Model(why)));
    if !generated.tables.is_empty() {
        return Err(unsupported("the GPU Markov builder does not bind model tables".into()));
    }
    if generated.max_successors > MAX_STEPS {
        return Err(unsupported(format!(
            "a state of this model may have up to {} steps (the product of its synchronising commands' \
             branches); the GPU builder takes at most {MAX_STEPS}: build it on the CPU",
            generated.max_successors
        )));
    }
    let start = Instant::now();
    let explore_options = GpuOptions { device: options.device, memory: options.memory, ..GpuOptions::default() };
    let spec =
        GraphSpec { source: "", extra_bytes_per_state: 0.0, edges_per_state: EDGES_PER_STATE, prefix_on_full: false };
    let (report, session) = explore_graph(model, &explore_options, &spec)?;
    let explore_seconds = start.elapsed().as_secs_f64() - report.compile_seconds;
    let r = &report.report;
    if r.error_transitions > 0 {
        return Err(GpuBuildError::Evaluation);
    }
    if let Some(limit) = options.build.max_states {
        if r.states as usize > limit {
            return Err(BuildError::TooManyStates { limit }.into());
        }
    }
    let n = r.states as usize;
    let words = session.words;

    let copy_start = Instant::now();
    let edges = recorded_edges(&session, r.transitions)?;
    let (offsets, targets) = copy_adjacency(&session, n, n, edges)?.into_parts();
    let mut states = vec![0u32; n * words];
    if n > 0 {
        session.stream.memcpy_dtoh(&session.store.states.slice(..n * words), &mut states).map_err(cuda)?;
    }
    let copy_seconds = copy_start.elapsed().as_secs_f64();

    let compile_start = Instant::now();
    let source = WEIGH_SOURCE.replace("// @@MODEL@@", &generated.source);
    let (major, minor) = session.ctx.compute_capability().map_err(cuda)?;
    let compiled =
        nvrtc::compile(&source, (major * 10 + minor) as u32, &["--fmad=false".to_string()]).map_err(GpuError::from)?;
    let module = session.ctx.load_module(Ptx::from_binary(compiled.cubin)).map_err(cuda)?;
    let weigh = module.load_function("mk_weigh").map_err(cuda)?;
    let compile_seconds = report.compile_seconds + compile_start.elapsed().as_secs_f64();

    let weigh_start = Instant::now();
    let (weights, tags) = weigh_all(&session, &weigh, &offsets, n)?;
    let weigh_seconds = weigh_start.elapsed().as_secs_f64();
    drop(module);
    drop(session);

    let assemble_start = Instant::now();
    // The distinct initial states, in the model's order (`init ... endinit` may list
    // many).
    let mut seen = std::collections::HashSet::new();
    let initial: Vec<Vec<u32>> = model.initial_states().into_iter().filter(|s| seen.insert(s.clone())).collect();
    let recorded =
        Recorded { words, states, initial: (0..initial.len() as u32).collect(), offsets, targets, weights, tags };
    // The engine seeds the initial states first, in the model's order.
    if let Some(i) = (0..initial.len()).find(|&i| recorded.state(i as u32) != initial[i].as_slice()) {
        return Err(BuildError::Inconsistent { what: format!("the GPU's state {i} is not initial state {i}") }.into());
    }
    let built = build_recorded(&recorded, model, model_type, model, &options.build)?;
    Ok(GpuBuild {
        model: built,
        device_name: report.device_name.clone(),
        compile_seconds,
        explore_seconds,
        weigh_seconds,
        copy_seconds,
        assemble_seconds: assemble_start.elapsed().as_secs_f64(),
    })
}

/// Runs the weigh kernel over all `n` states in batches that fit the free device
/// memory; returns the weights and tags in the compact order of `offsets`.
fn weigh_all(
    session: &Session,
    weigh: &warpcheck_cuda::driver::CudaFunction,
    offsets: &[u64],
    n: usize,
) -> Result<(Vec<f64>, Vec<u32>), GpuError> {
    let stream: &std::sync::Arc<CudaStream> = &session.stream;
    let edges = offsets[n] as usize;
    let mut weights = vec![0f64; edges];
    let mut tags = vec![0u32; edges];
    if n == 0 {
        return Ok((weights, tags));
    }
    let graph = session.graph.as_ref().expect("a graph-recording exploration has a graph");
    let (free, _) = session.ctx.mem_get_info().map_err(cuda)?;
    let budget = (free as u64).saturating_sub(RESERVE);
    // Per batch: 12 bytes per step (weight and tag) and 8 per state (offsets).
    let most_edges = (budget / 2 / 12).min(edges as u64).max(1);
    let most_states = (budget / 2 / 8).clamp(1, n as u64 + 1) as usize;
    let batches = plan_batches(offsets, most_edges, most_states).map_err(|s| {
        GpuError::Cuda(format!(
            "state {s} has {} steps: more than fit the {free} free bytes of device memory",
            offsets[s + 1] - offsets[s]
        ))
    })?;
    let batch_weights: CudaSlice<f64> = stream.alloc_zeros(most_edges as usize).map_err(cuda)?;
    let batch_tags: CudaSlice<u32> = stream.alloc_zeros(most_edges as usize).map_err(cuda)?;
    let bad: CudaSlice<u32> = stream.clone_htod(&[u32::MAX]).map_err(cuda)?;
    let sms = session.sms;
    for (lo, hi) in batches {
        let batch_offsets = stream.clone_htod(&offsets[lo..=hi]).map_err(cuda)?;
        let ptr = |s: &CudaSlice<u32>| device_ptr(s, stream);
        let args: [&dyn KernelArg; 11] = [
            &ptr(&session.store.states),
            &(n as u64),
            &device_ptr(&graph.first, stream),
            &ptr(&graph.degree),
            &ptr(&graph.targets),
            &device_ptr(&batch_offsets, stream),
            &(lo as u64),
            &(hi as u64),
            &device_ptr(&batch_weights, stream),
            &ptr(&batch_tags),
            &ptr(&bad),
        ];
        let cfg = grid((hi - lo) as u64, BLOCK, sms.max(1) * 16);
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `mk_weigh`'s eleven
        // parameters are the pointers and counts above, in order; `states` holds `n`
        // recorded states, `first`, `degree` and `targets` the exploration's adjacency
        // of those states, `batch_offsets` the `hi - lo + 1` compact offsets of the
        // batch, whose steps (at most `most_edges`) fit `batch_weights` and
        // `batch_tags`; all live until the copies below, on the same stream.
        unsafe { warpcheck_cuda::launch(stream, weigh, cfg, &args) }.map_err(cuda)?;
        let (from, to) = (offsets[lo] as usize, offsets[hi] as usize);
        if to > from {
            stream.memcpy_dtoh(&batch_weights.slice(..to - from), &mut weights[from..to]).map_err(cuda)?;
            stream.memcpy_dtoh(&batch_tags.slice(..to - from), &mut tags[from..to]).map_err(cuda)?;
        }
    }
    let mut first_bad = [0u32];
    stream.memcpy_dtoh(&bad, &mut first_bad).map_err(cuda)?;
    stream.synchronize().map_err(cuda)?;
    if first_bad[0] != u32::MAX {
        return Err(GpuError::Cuda(format!(
            "state {} of the GPU exploration emits other steps in the weigh pass than were recorded",
            first_bad[0]
        )));
    }
    Ok((weights, tags))
}

/// Splits the states `0..offsets.len() - 1` into consecutive batches `(lo, hi)` of at
/// most `most_states` states whose steps (`offsets[hi] - offsets[lo]`) number at most
/// `most_edges`, each as large as these allow. A state with more steps than
/// `most_edges` is an error: its number.
pub fn plan_batches(offsets: &[u64], most_edges: u64, most_states: usize) -> Result<Vec<(usize, usize)>, usize> {
    let n = offsets.len().saturating_sub(1);
    let mut batches = Vec::new();
    let mut lo = 0;
    while lo < n {
        // The largest `hi` in lo + 1..=limit whose steps fit (offsets only grow).
        let limit = (lo + most_states.max(1)).min(n);
        let fits = |hi: usize| offsets[hi] - offsets[lo] <= most_edges;
        if !fits(lo + 1) {
            return Err(lo);
        }
        let (mut a, mut b) = (lo + 1, limit);
        while a < b {
            let mid = (a + b).div_ceil(2);
            if fits(mid) {
                a = mid;
            } else {
                b = mid - 1;
            }
        }
        batches.push((lo, a));
        lo = a;
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::plan_batches;

    #[test]
    fn batches_cover_every_state_once_within_both_limits() {
        // Steps per state: 3, 0, 5, 1, 1, 4.
        let offsets = [0, 3, 3, 8, 9, 10, 14];
        assert_eq!(plan_batches(&offsets, 5, 10), Ok(vec![(0, 2), (2, 3), (3, 5), (5, 6)]));
        assert_eq!(plan_batches(&offsets, 100, 2), Ok(vec![(0, 2), (2, 4), (4, 6)]));
        assert_eq!(plan_batches(&offsets, 100, 100), Ok(vec![(0, 6)]));
        assert_eq!(plan_batches(&offsets, 4, 10), Err(2));
        assert_eq!(plan_batches(&[0], 4, 10), Ok(vec![]));
        // Zero-step states ride along; a batch never exceeds the limits.
        let offsets: Vec<u64> = (0..1000u64).map(|i| i / 3 * 2).collect();
        let batches = plan_batches(&offsets, 7, 5).unwrap();
        assert_eq!((batches[0].0, batches.last().unwrap().1), (0, 999));
        assert!(batches.windows(2).all(|w| w[0].1 == w[1].0));
        assert!(batches.iter().all(|&(lo, hi)| hi > lo && hi - lo <= 5 && offsets[hi] - offsets[lo] <= 7));
    }
}
