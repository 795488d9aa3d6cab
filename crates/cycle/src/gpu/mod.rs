//! Howard's policy iteration for the minimum or maximum cycle mean or cycle ratio on
//! the GPU, for all cyclic SCCs of a [`WeightedGraph`] at once, with an exact answer.
//!
//! Owns: the compact device layout of all components ([`Compact`], `layout.rs`), the
//! round loop on the device (kernels in `howard.cu`, beside this file, compiled and
//! launched through `warpcheck-cuda`), and the exact finish on the host. Returns the
//! same [`Solution`] as the CPU [`crate::solve`](fn@crate::solve).
//!
//! **Algorithm** (Barnat, Bauch, Brim, Češka, PDMC 2011, digest 002, Algorithm 3 with
//! §3.3's concurrent components). The cyclic SCCs come from the CPU pre-decomposition
//! [`crate::components::split`]: vertex 0's SCC by a parallel forward and
//! backward search, then Tarjan on the other vertices (fischer.3, one SCC of 12 M
//! edges: 0.17 s on the H100 machine against Tarjan's 0.72 s; parallel FB with
//! trimming pays for every SCC: lamport.6's 20,060 took it 5.5 s). [`Compact`] lays
//! them out one after another straight from the graph (component id per vertex, edges
//! inside components only, weights negated for a maximum, a reverse CSR by a parallel
//! counting sort) and they are solved together.
//! A round, for every component still improving:
//! 1. *improve* (`hw_improve`): each vertex takes its best out-edge under the current
//!    values and λ of its component, if it beats its current edge by more than a
//!    tolerance; a component with no change is done and skipped from then on;
//! 2. *policy cycles* (`hw_jump*`, `hw_cycles`): pointer jumping, ⌈log₂ size⌉ rounds,
//!    gives every vertex the smallest vertex of the policy cycle it reaches; that
//!    vertex's thread walks its cycle and votes for the best mean of its component by
//!    a 64-bit `atomicMin`, ties to the smallest vertex (`hw_pick`);
//! 3. *rebuild* (`hw_rebuild_init`, `hw_connect_*`): vertices reaching the best cycle
//!    keep their policy, a backward BFS in the graph (frontier queues, one level per
//!    launch, levels enqueued in batches) connects all others to them;
//! 4. *values* (`hw_values_*`): pointer jumping towards the best cycle's smallest
//!    vertex `s` (`val(s) = 0`) sums the reduced weights `w - λ t` along the policy.
//!
//! **Departures from the paper, errata fixed.** Finding the policy cycles, the
//! component of the best one and the values by pointer jumping (O(log n) launches)
//! replaces the trimming (`elimination`), `markMinComponent` and `valuePropagate`
//! fixpoints, whose launches grow with the depth of the policy trees, and whose
//! printed `valuePropagate` never reaches its fixpoint (erratum iii); so the
//! predecessor-record trick (`gPredInfo`, with its 16-bit limits) has nothing left to
//! speed up and is not needed; the BFS of step 3 uses a frontier queue instead of a
//! `propagate` flag over all vertices. Indices are 32-bit (no 16-bit fields: up to
//! 2³² − 2 vertices and edges). One-vertex components with a self-loop are cyclic
//! components like any other (the paper dropped every one-vertex component).
//!
//! **Exactness.** The device computes in `f64`. After the last round the host takes,
//! per component, the device's final policy, best cycle and values and runs the exact
//! [`certify_with`] through a `Component` view of the layout that reads
//! the original integer weights (the cycle's λ = W/T exactly; potentials rounded from
//! the device's values, or if those fail, exact potentials along the policy; every edge
//! checked in `i128`). A certified
//! component is exact by that proof, whatever rounding happened on the device. A
//! component that fails (float ties or rounding, the round limit) is finished by the
//! exact CPU Howard started from the device's policy
//! ([`crate::howard::howard_from`]); [`GpuHowardReport::fallbacks`] counts
//! them. So every answer is exact. Device memory is checked before allocation: a
//! graph that does not fit is an error ([`CudaError::OutOfMemory`]), never a partial
//! answer.
//!
//! **Where the time goes** (H100, `benches/results/cycle-mean-gpu-h100.md`): the
//! kernels take a few per cent; the host's SCC decomposition, layout and certificate
//! the rest (`fischer.3`, one cyclic SCC of 12 M edges: 0.02 s on the device of 0.43 s).
//! So the host parts use every core, also inside one giant component: the layout's
//! edge fill and reverse CSR, and [`finish`], which certifies components in parallel
//! and a big component with parallel checks ([`certify_with`]). What stays sequential:
//! the transpose and Tarjan in the SCC split, the O(n) passes of the layout (component sizes, vertex order,
//! prefix sums) and the certificate's walks along the policy (the exact potentials,
//! only needed when the device's values fail). `examples/howard_host.rs` times these
//! parts without a GPU. Moving them to the device is the next step.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use warpcheck_cuda::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig};
use warpcheck_cuda::{device_ptr, grid, CudaError, Device, KernelArg, Timer};

use crate::certificate::{certify_with, Rejected};
use crate::components::{reject_zero_time_cycles, split};
use crate::{
    combine, component_result, cycle_result, howard, ComponentResult, CycleError, Options, Problem, Solution,
    WeightedGraph,
};

mod layout;
pub use layout::Compact;

/// How to run the GPU Howard.
#[derive(Clone, Debug)]
pub struct GpuHowardOptions {
    /// CUDA device ordinal.
    pub device: usize,
    /// Rounds on the device before the components still improving go to the CPU.
    pub max_rounds: u64,
    /// Improvement tolerance: an edge replaces the policy edge if it is better by more
    /// than `rel_tol · (|a| + |b|) + abs_tol`.
    pub rel_tol: f64,
    pub abs_tol: f64,
}

impl Default for GpuHowardOptions {
    fn default() -> Self {
        GpuHowardOptions { device: 0, max_rounds: 100_000, rel_tol: 1e-12, abs_tol: 1e-9 }
    }
}

/// The solution and where the time went.
#[derive(Clone, Debug)]
pub struct GpuHowardReport {
    pub solution: Solution,
    pub device_name: String,
    /// NVRTC compilation or cache lookup, context and module load.
    pub setup_seconds: f64,
    /// Building the compact and reverse layout on the host and copying it over.
    pub upload_seconds: f64,
    /// The round loop, wall time, and the time inside its kernels (CUDA events).
    pub device_seconds: f64,
    pub kernel_seconds: f64,
    /// Certificates and CPU fallbacks.
    pub certify_seconds: f64,
    /// Rounds on the device (all components together; the slowest one counts).
    pub rounds: u64,
    pub launches: u64,
    /// Components whose device result failed its certificate and were finished on the
    /// CPU, with the CPU rounds that took.
    pub fallbacks: usize,
    pub fallback_rounds: u64,
    /// Device bytes allocated.
    pub device_bytes: u64,
}

/// Why the GPU Howard gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum GpuHowardError {
    /// What the CPU solvers would also refuse (overflow, a cycle of zero time).
    #[error(transparent)]
    Cycle(#[from] CycleError),
    /// The device, the driver or NVRTC.
    #[error(transparent)]
    Cuda(#[from] CudaError),
    /// More vertices or edges in cyclic components than the 32-bit ids of the layout.
    #[error("the graph is too large for the GPU Howard: {0}")]
    TooLarge(String),
}

/// The graph arguments of every kernel (`struct HwGraph` in howard.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct HwGraph {
    off: u64,
    tgt: u64,
    w: u64,
    t: u64,
    roff: u64,
    rsrc: u64,
    redge: u64,
    comp: u64,
    active: u64,
    n: u32,
}

// SAFETY: `#[repr(C)]` with only `u64` and `u32` fields, in the order and of the types
// of `struct HwGraph` in howard.cu, so its bytes are the kernels' parameter as it is.
unsafe impl DeviceRepr for HwGraph {}

fn ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    device_ptr(s, stream)
}

struct Kernels {
    improve: CudaFunction,
    activate: CudaFunction,
    jump_init: CudaFunction,
    jump: CudaFunction,
    cycles: CudaFunction,
    pick: CudaFunction,
    rebuild_init: CudaFunction,
    connect_sweep: CudaFunction,
    connect_level: CudaFunction,
    values_init: CudaFunction,
    values_jump: CudaFunction,
    values_finish: CudaFunction,
}

/// Device buffers: the graph, then the per-vertex and per-component state.
struct Buffers {
    _graph: Vec<CudaSlice<u32>>,
    _weights: Vec<CudaSlice<f64>>,
    pol: CudaSlice<u32>,
    val: CudaSlice<f64>,
    cyc: CudaSlice<u32>,
    mean: CudaSlice<f64>,
    level: CudaSlice<u32>,
    queues: [CudaSlice<u32>; 2],
    /// Two jump buffers of n u64 (cycles) or two of n 16-byte records (values).
    scratch: CudaSlice<u64>,
    changed: CudaSlice<u32>,
    active: CudaSlice<u32>,
    best_key: CudaSlice<u64>,
    best_src: CudaSlice<u32>,
    lam: CudaSlice<f64>,
    /// [0] any vertex improved, [1] a value pointer moved, [2..5] BFS level counts.
    flags: CudaSlice<u32>,
}

/// A CUDA context with the Howard kernels loaded, for any number of solves.
pub struct GpuHoward {
    device: Device,
    kernels: Kernels,
    pub device_name: String,
    /// NVRTC compilation (or cache lookup), context creation and module load.
    pub setup_seconds: f64,
}

/// The optimal cycle mean or ratio of `graph` with Howard's algorithm on the GPU
/// (`options.algorithm` is not read): [`GpuHoward::new`] then [`GpuHoward::solve`].
pub fn solve_gpu(
    graph: &WeightedGraph,
    options: &Options,
    gpu: &GpuHowardOptions,
) -> Result<GpuHowardReport, GpuHowardError> {
    GpuHoward::new(gpu.device)?.solve(graph, options, gpu)
}

impl GpuHoward {
    /// Compiles (or finds in the cache) and loads the kernels on `device`.
    pub fn new(device: usize) -> Result<GpuHoward, CudaError> {
        let setup_start = Instant::now();
        let device = Device::open(device)?;
        let module = device.load(cuda_source(), &[])?;
        let f = |name: &str| module.function(name);
        let kernels = Kernels {
            improve: f("hw_improve")?,
            activate: f("hw_activate")?,
            jump_init: f("hw_jump_init")?,
            jump: f("hw_jump")?,
            cycles: f("hw_cycles")?,
            pick: f("hw_pick")?,
            rebuild_init: f("hw_rebuild_init")?,
            connect_sweep: f("hw_connect_sweep")?,
            connect_level: f("hw_connect_level")?,
            values_init: f("hw_values_init")?,
            values_jump: f("hw_values_jump")?,
            values_finish: f("hw_values_finish")?,
        };
        Ok(GpuHoward {
            device_name: device.name().to_string(),
            device,
            kernels,
            setup_seconds: setup_start.elapsed().as_secs_f64(),
        })
    }

    /// The optimal cycle mean or ratio of `graph` (`options.algorithm` is not read).
    /// Runs the host parts (SCC decomposition, certificates, fallbacks) on the current
    /// rayon pool.
    pub fn solve(
        &self,
        graph: &WeightedGraph,
        options: &Options,
        gpu: &GpuHowardOptions,
    ) -> Result<GpuHowardReport, GpuHowardError> {
        let start = Instant::now();
        if options.problem == Problem::Ratio {
            reject_zero_time_cycles(graph)?;
        }
        let comps = split(graph);
        let scc_seconds = start.elapsed().as_secs_f64();
        let solve_start = Instant::now();
        let compact = Compact::new(graph, &comps, options.problem, options.sense)?;
        drop(comps);
        let device_bytes = compact.device_bytes();
        let what = format!("the GPU Howard of {} vertices and {} edges", compact.vertices(), compact.edges());
        // 64 MiB for the context's own allocations.
        self.device.ensure_free(&what, device_bytes, 64 << 20)?;
        let mut report = GpuHowardReport {
            solution: combine(Vec::new(), options.sense, 0, scc_seconds, 0.0),
            device_name: self.device_name.clone(),
            setup_seconds: self.setup_seconds,
            upload_seconds: 0.0,
            device_seconds: 0.0,
            kernel_seconds: 0.0,
            certify_seconds: 0.0,
            rounds: 0,
            launches: 0,
            fallbacks: 0,
            fallback_rounds: 0,
            device_bytes,
        };
        let (policy, sources, values) = if compact.vertices() == 0 {
            (Vec::new(), Vec::new(), Vec::new())
        } else {
            let run = Run::new(&self.device, &self.kernels, &compact)?;
            report.upload_seconds = solve_start.elapsed().as_secs_f64();
            let device_start = Instant::now();
            run.rounds(gpu, &mut report)?;
            let out = run.results()?;
            report.device_seconds = device_start.elapsed().as_secs_f64();
            out
        };

        let certify_start = Instant::now();
        let finished = finish(graph, &compact, options.problem, &policy, &sources, &values)?;
        report.certify_seconds = certify_start.elapsed().as_secs_f64();
        report.fallbacks = finished.iter().filter(|f| f.1.is_some()).count();
        report.fallback_rounds = finished.iter().filter_map(|f| f.1).sum();
        let components = finished.into_iter().map(|f| f.0).collect();
        let seconds = solve_start.elapsed().as_secs_f64();
        report.solution =
            combine(components, options.sense, report.rounds + report.fallback_rounds, scc_seconds, seconds);
        Ok(report)
    }
}

/// The exact finish of a run: per component of `compact` (in parallel), the
/// certificate of the device's final `policy` (compact edge ids) with the cycle through
/// `sources[c]` (a compact vertex) and `values` as the hint; where it fails, the CPU
/// Howard started from that policy. Each component's result, with the CPU rounds of a
/// fallback.
pub fn finish(
    graph: &WeightedGraph,
    compact: &Compact,
    problem: Problem,
    policy: &[u32],
    sources: &[u32],
    values: &[f64],
) -> Result<Vec<(ComponentResult, Option<u64>)>, CycleError> {
    (0..compact.components())
        .into_par_iter()
        .map(|i| {
            let view = compact.view(graph, i);
            let local: Vec<usize> = policy[view.vb..view.vb + view.len]
                .par_iter()
                .with_min_len(1 << 14)
                .map(|&e| (e as usize).wrapping_sub(view.eb))
                .collect();
            let s = (sources[i] as usize).wrapping_sub(view.vb);
            let name = (compact.verts[view.vb], view.len, compact.ebase[i + 1] - view.eb);
            let hint = &values[view.vb..view.vb + view.len];
            match certify_with(&view, &local, s, Some(hint)) {
                Ok(c) => {
                    let cycle: Vec<usize> = c.cycle.iter().map(|&e| compact.orig[view.eb + e] as usize).collect();
                    Ok((cycle_result(graph, name, &cycle, problem)?, None))
                }
                Err(rejected) => {
                    let sub = view.subgraph()?;
                    let (cycle, rounds) = match rejected {
                        Rejected::Malformed => howard::howard(&sub, true)?,
                        _ => howard::howard_from(&sub, &local, true)?,
                    };
                    Ok((component_result(graph, &sub, &cycle, problem)?, Some(rounds)))
                }
            }
        })
        .collect()
}

/// The CUDA source of the kernels.
pub fn cuda_source() -> &'static str {
    include_str!("howard.cu")
}

/// What comes back from the device: policy, best-cycle vertices, values.
type Final = (Vec<u32>, Vec<u32>, Vec<f64>);

/// One run on the device.
struct Run<'a> {
    stream: &'a Arc<CudaStream>,
    k: &'a Kernels,
    b: Buffers,
    g: HwGraph,
    n: u32,
    components: u32,
    /// Pointer-jumping rounds that cover the largest component.
    jumps: u32,
    sms: u32,
    timer: Timer,
}

const BLOCK: u32 = 256;

impl<'a> Run<'a> {
    fn new(device: &'a Device, k: &'a Kernels, c: &Compact) -> Result<Run<'a>, CudaError> {
        let stream = device.stream();
        let n = c.vertices();
        let components = c.vbase.len() - 1;
        let up = |v: &[u32]| stream.clone_htod(v);
        let upf = |v: &[f64]| stream.clone_htod(v);
        let graph = vec![up(&c.off)?, up(&c.tgt)?, up(&c.roff)?, up(&c.rsrc)?, up(&c.redge)?, up(&c.comp)?];
        let mut weights = vec![upf(&c.w)?];
        if !c.t.is_empty() {
            weights.push(upf(&c.t)?);
        }
        let zeros_u32 = |len: usize| stream.alloc_zeros::<u32>(len.max(1));
        let zeros_f64 = |len: usize| stream.alloc_zeros::<f64>(len.max(1));
        let b = Buffers {
            pol: up(&vec![u32::MAX; n])?,
            val: zeros_f64(n)?,
            cyc: zeros_u32(n)?,
            mean: zeros_f64(n)?,
            level: zeros_u32(n)?,
            queues: [zeros_u32(n)?, zeros_u32(n)?],
            scratch: stream.alloc_zeros::<u64>(4 * n)?,
            changed: zeros_u32(components)?,
            active: up(&vec![1u32; components])?,
            best_key: stream.alloc_zeros::<u64>(components)?,
            best_src: zeros_u32(components)?,
            lam: zeros_f64(components)?,
            flags: zeros_u32(8)?,
            _graph: graph,
            _weights: weights,
        };
        let g = HwGraph {
            off: ptr(&b._graph[0], stream),
            tgt: ptr(&b._graph[1], stream),
            w: ptr(&b._weights[0], stream),
            t: b._weights.get(1).map_or(0, |t| ptr(t, stream)),
            roff: ptr(&b._graph[2], stream),
            rsrc: ptr(&b._graph[3], stream),
            redge: ptr(&b._graph[4], stream),
            comp: ptr(&b._graph[5], stream),
            active: ptr(&b.active, stream),
            n: n as u32,
        };
        stream.synchronize()?;
        let timer = Timer::new(stream)?;
        let jumps = (usize::BITS - c.largest.saturating_sub(1).leading_zeros()).max(1);
        let sms = device.multiprocessors();
        Ok(Run { stream, k, b, g, n: n as u32, components: components as u32, jumps, sms, timer })
    }

    fn grid(&self, items: u32) -> LaunchConfig {
        grid(items as u64, BLOCK, self.sms * 32)
    }

    fn p<T>(&self, s: &CudaSlice<T>) -> u64 {
        ptr(s, self.stream)
    }

    /// The one place the Howard kernels are launched.
    fn launch(&self, f: &CudaFunction, cfg: LaunchConfig, args: &[&dyn KernelArg]) -> Result<(), CudaError> {
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: every caller passes, in order,
        // the parameters of its kernel in howard.cu (`HwGraph` mirrors `struct HwGraph`,
        // `u64` for pointers and 64-bit keys, `u32` for counts and levels, `f64` for the
        // tolerances). The addresses are of `self.b`, allocated in `Run::new` with the
        // sizes the kernels index by (`n` vertices, `components`, `flags[8]`, the scratch
        // of 4n words for two jump buffers of n 16-byte records), and `self.b` lives until
        // the results are copied back on the same stream. The kernels bound every index by
        // `n` or `components` (grid-stride loops); the host reads the buffers only by
        // copies on the stream.
        unsafe { warpcheck_cuda::launch(self.stream, f, cfg, args) }
    }

    /// Runs `enqueue` between two timing events and waits; adds the GPU time.
    fn timed(
        &self,
        report: &mut GpuHowardReport,
        enqueue: impl FnOnce() -> Result<u64, CudaError>,
    ) -> Result<(), CudaError> {
        self.timer.start(self.stream)?;
        report.launches += enqueue()?;
        report.kernel_seconds += self.timer.stop(self.stream)?;
        Ok(())
    }

    fn flag(&self, i: usize) -> Result<u32, CudaError> {
        let mut host = [0u32];
        self.stream.memcpy_dtoh(&self.b.flags.slice(i..i + 1), &mut host)?;
        Ok(host[0])
    }

    fn clear_flags(&self) -> Result<(), CudaError> {
        self.stream.synchronize()?;
        // SAFETY: `flags` is an 8-word device buffer of this run, the 8 words come from a
        // live host array, and the stream is idle (synchronised above), so no kernel
        // touches `flags` during the copy.
        unsafe { warpcheck_cuda::driver::result::memcpy_htod_sync(self.p(&self.b.flags), &[0u32; 8]) }?;
        Ok(())
    }

    /// The round loop: until no component improves or the round limit.
    fn rounds(&self, gpu: &GpuHowardOptions, report: &mut GpuHowardReport) -> Result<(), CudaError> {
        let (g, b, k, all) = (self.g, &self.b, self.k, self.grid(self.n));
        let flags = self.p(&b.flags);
        loop {
            self.clear_flags()?;
            let (pol, val, lam, changed) = (self.p(&b.pol), self.p(&b.val), self.p(&b.lam), self.p(&b.changed));
            let (rel, abs) = (gpu.rel_tol, gpu.abs_tol);
            self.timed(report, || {
                self.launch(&k.improve, all, &[&g, &lam, &val, &pol, &changed, &flags, &rel, &abs])?;
                Ok(1)
            })?;
            if self.flag(0)? == 0 {
                return Ok(());
            }
            report.rounds += 1;
            if report.rounds > gpu.max_rounds {
                return Ok(()); // the components still improving finish on the CPU
            }
            self.timed(report, || self.policy_cycles())?;
            self.timed(report, || self.rebuild_start())?;
            self.connect(report)?;
            self.values(report)?;
        }
    }

    /// Activation, the policy cycles, the best cycle per component.
    fn policy_cycles(&self) -> Result<u64, CudaError> {
        let (g, b, k, all) = (self.g, &self.b, self.k, self.grid(self.n));
        let (pol, cyc, mean, key, src) =
            (self.p(&b.pol), self.p(&b.cyc), self.p(&b.mean), self.p(&b.best_key), self.p(&b.best_src));
        let (changed, active) = (self.p(&b.changed), self.p(&b.active));
        let jump = [self.p(&b.scratch), self.p(&b.scratch) + 8 * self.n as u64];
        let comps = self.components;
        self.launch(&k.activate, self.grid(comps), &[&comps, &changed, &active, &key, &src])?;
        self.launch(&k.jump_init, all, &[&g, &pol, &jump[0]])?;
        for r in 0..self.jumps as usize {
            self.launch(&k.jump, all, &[&g, &jump[r % 2], &jump[(r + 1) % 2]])?;
        }
        let last = jump[self.jumps as usize % 2];
        self.launch(&k.cycles, all, &[&g, &pol, &last, &cyc, &mean, &key])?;
        self.launch(&k.pick, all, &[&g, &cyc, &mean, &key, &src])?;
        Ok(5 + self.jumps as u64)
    }

    /// Level 0 of the rebuild (vertices reaching the best cycle), λ, and the sweep that
    /// finds level 1.
    fn rebuild_start(&self) -> Result<u64, CudaError> {
        let (g, b, k, all) = (self.g, &self.b, self.k, self.grid(self.n));
        let (pol, cyc, mean, src, lam, level) =
            (self.p(&b.pol), self.p(&b.cyc), self.p(&b.mean), self.p(&b.best_src), self.p(&b.lam), self.p(&b.level));
        let (q1, count1) = (self.p(&b.queues[1]), self.p(&b.flags) + 4 * 3);
        self.launch(&k.rebuild_init, all, &[&g, &cyc, &mean, &src, &lam, &level])?;
        self.launch(&k.connect_sweep, all, &[&g, &level, &pol, &q1, &count1])?;
        Ok(2)
    }

    /// The backward BFS from level 1 on, in batches of levels (empty levels are no-ops).
    fn connect(&self, report: &mut GpuHowardReport) -> Result<(), CudaError> {
        let (g, b, k) = (self.g, &self.b, self.k);
        let (level, pol, q0, q1) = (self.p(&b.level), self.p(&b.pol), self.p(&b.queues[0]), self.p(&b.queues[1]));
        let counts = self.p(&b.flags) + 4 * 2; // count[i] is flags[2 + i]
        let cfg = LaunchConfig { grid_dim: (self.sms * 8, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let mut at = 1u32;
        let mut batch = 4u32;
        loop {
            self.timed(report, || {
                for l in at..at + batch {
                    self.launch(&k.connect_level, cfg, &[&g, &l, &level, &pol, &q0, &q1, &counts])?;
                }
                Ok(batch as u64)
            })?;
            at += batch;
            if self.flag(2 + (at % 3) as usize)? == 0 {
                return Ok(());
            }
            if at as usize > self.n as usize + 64 {
                // Every level claims a vertex: more levels than vertices is a bug.
                return Err(CudaError::Internal("the rebuild BFS did not finish".into()));
            }
            batch = (batch * 2).min(64);
        }
    }

    /// Value determination by pointer jumping, in batches of rounds until no pointer
    /// moves (extra rounds after that change nothing).
    fn values(&self, report: &mut GpuHowardReport) -> Result<(), CudaError> {
        let (g, b, k, all) = (self.g, &self.b, self.k, self.grid(self.n));
        let (pol, src, lam, val) = (self.p(&b.pol), self.p(&b.best_src), self.p(&b.lam), self.p(&b.val));
        let vj = [self.p(&b.scratch), self.p(&b.scratch) + 16 * self.n as u64];
        let moved = self.p(&b.flags) + 4;
        self.timed(report, || {
            self.launch(&k.values_init, all, &[&g, &pol, &src, &lam, &vj[0]])?;
            Ok(1)
        })?;
        let mut r = 0usize;
        loop {
            self.clear_flags()?;
            self.timed(report, || {
                for _ in 0..4 {
                    self.launch(&k.values_jump, all, &[&g, &vj[r % 2], &vj[(r + 1) % 2], &moved])?;
                    r += 1;
                }
                Ok(4)
            })?;
            if self.flag(1)? == 0 {
                break;
            }
            if r > 4 * 64 {
                // Pointer jumping halves every distance per round: 64 rounds reach 2^64.
                return Err(CudaError::Internal("value determination did not finish".into()));
            }
        }
        self.timed(report, || {
            self.launch(&k.values_finish, all, &[&g, &vj[r % 2], &val])?;
            Ok(1)
        })
    }

    /// The final policy (compact edge ids), each component's best-cycle vertex, and
    /// the values (the certificate's hint).
    fn results(&self) -> Result<Final, CudaError> {
        let pol = self.stream.clone_dtoh(&self.b.pol)?;
        let src = self.stream.clone_dtoh(&self.b.best_src)?;
        let val = self.stream.clone_dtoh(&self.b.val)?;
        Ok((pol, src, val))
    }
}
