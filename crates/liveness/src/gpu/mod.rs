//! LTL model checking on the GPU: the accepting-cycle search of `warpcheck_liveness`
//! (OWCTY or MAP) with the whole product graph on the device.
//!
//! 1. **Generation and graph.** The GPU engine explores the product of the model with
//!    its property automaton (the generated successor function already includes it,
//!    with stuttering) in a graph-recording mode (`WC_GRAPH`, kernel.cu): each thread
//!    keeps its state's successor ids in a local array of the code generator's bound,
//!    and each warp reserves one block of the edge array with one atomic for its 32
//!    states (a prefix sum of their degrees; the expansion loop is warp-uniform in this
//!    mode so that full-mask shuffles are valid). So the adjacency (`first`, `degree`,
//!    `targets`) is built where the states are found: no second pass, no host round
//!    trip (the thesis built it on the CPU, where it dominated its run times).
//! 2. **Finishing** (`graph_seconds`): acceptance per vertex (`wc_accepting` on the
//!    stored states) and the error state. A step that raises an evaluation error is
//!    recorded as an edge to a marker and renumbered to the error state, vertex `N`
//!    after the `N` real states (only when some step raised an error, as in the CPU's
//!    graph), with no successors. (The design drops such steps; keeping them
//!    makes the graph the CPU's state graph up to vertex numbering, so OWCTY leaves a
//!    set of the same size: the error state stays in it when a remaining vertex steps
//!    into it.) The host checks that the edges recorded equal the transitions counted.
//! 3. **Cycle detection** by kernels of `ltl.cu` over vertex-indexed arrays and two
//!    frontier queues, the host enqueueing 16 levels per round trip:
//!    - OWCTY (the thesis's Algorithm 9 with Proposition 4.1.1, as
//!      `warpcheck_liveness::owcty`): reachability from the accepting vertices within S,
//!      then elimination by in-degree counting within S with fronts of in-degree 0,
//!      until an iteration removes nothing. The thesis's GPU default is *reversed*
//!      OWCTY (backward reachability, elimination of vertices without successors); we
//!      run the forward one because its fixpoint is the CPU's, which the tests hold it
//!      to; counting in-degrees also avoids the `elim`/`elimPrep` bits of Algorithm 14
//!      (digest erratum 7: `elimPrep` must start true) altogether.
//!    - MAP (thesis Algorithm 10, as `warpcheck_liveness::map`): rounds of forward
//!      propagation of the largest accepting predecessor with `atomicMax` over fronts
//!      of changed vertices (not the thesis's sweep over all edges), then an accepting
//!      vertex that is its own value proves a cycle, or the values stop being
//!      accepting. Vertex ids are the GPU's discovery order, which is not the CPU's,
//!      so the number of rounds may differ from the CPU's (the verdict cannot).
//! 4. **Counterexample** (violated properties), on the device too: an accepting vertex
//!    `a` on a cycle (MAP's; after OWCTY, MAP run on the accepting vertices of the set
//!    OWCTY left, which holds every accepting cycle), a breadth-first search with
//!    parents from `a` until a front vertex steps back to `a` (a shortest cycle through
//!    `a`), and the exploration's BFS parents from `a` to the initial state (a shortest
//!    stem to `a`). One-thread kernels follow the parents; only the lasso's vertex ids
//!    and states come back for `Lasso::build`. (Copying the graph back for the CPU's
//!    witness search took most of a violated check's time: about 2 of 2.4 s on
//!    lamport.6.prop4, 8 of 8.6 s on anderson.6.prop3.)
//!
//! Vertex ids are the GPU's discovery order (BFS levels, nondeterministic within a
//! level), so the lasso may differ from the CPU's; its stem is still a shortest path.
//! The largest generated code (BEEM's plc: 5.5 MB of CUDA, guards of thousands of
//! terms) takes NVRTC about a minute.
//!
//! Device memory: the store's share per state (see engine.rs) plus 12 bytes of
//! adjacency per state, 17 bytes of cycle-detection arrays per state, and room for
//! [`EDGES_PER_STATE`] edges per state. A graph that needs more edges ends the run
//! with [`GpuError::EdgesFull`] (never a dropped edge).
//!
//! **Past the store's room** (as the CPU's `--incremental`): when the store cannot hold
//! the successors of the next states to expand, the check goes on with the graph of
//! the breadth-first prefix explored so far. The states expanded have all their
//! successors recorded, the others none, so an accepting cycle found there is one of
//! the product: the property is violated, with a lasso, and the outcome is `partial`.
//! With none found, the check ends with [`GpuError::NoCycleInPrefix`] (a resource
//! limit, like a full store): a prefix never proves a property.

use std::sync::Arc;
use std::time::Instant;

use crate::Outcome;
use warpcheck_cuda::cudarc;
use warpcheck_cuda::driver::{CudaFunction, CudaSlice, LaunchConfig};
use warpcheck_cuda::nvrtc;
use warpcheck_cuda::KernelArg;
use warpcheck_explore::Lasso;
use warpcheck_model::cuda::{CudaModel, CudaSource};

use warpcheck_cuda::driver::{CudaContext, CudaModule, CudaStream};
use warpcheck_explore::gpu::engine::{
    compile_source_for_device, explore_graph, graph_source, ptr, tuned_source, GpuError, GpuOptions, GpuReport,
    GraphSpec, Session, Tuning,
};
use warpcheck_explore::gpu::partitioned::{explore_partitioned_graph, partitioned_source};
use warpcheck_explore::gpu::state_graph::{recorded_edges, EDGES_PER_STATE};

/// Bytes per vertex of the cycle-detection arrays: OWCTY flags or MAP values (4),
/// in-degrees or queued marks (4), acceptance (1), two queues (8).
const CYCLE_BYTES: f64 = 17.0;
/// Frontier levels enqueued per round trip to the host.
const LEVELS_PER_BATCH: usize = 16;

/// The accepting-cycle algorithm on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuAlgorithm {
    Owcty,
    Map,
}

impl GpuAlgorithm {
    pub fn name(self) -> &'static str {
        match self {
            GpuAlgorithm::Owcty => "owcty",
            GpuAlgorithm::Map => "map",
        }
    }
}

/// The result of an LTL check on the GPU: the CPU's [`Outcome`] fields, with where the
/// time went.
#[derive(Clone, Debug)]
pub struct GpuLtl {
    /// `graph_seconds` is generation plus graph building (wall clock), `seconds` the
    /// whole check.
    pub outcome: Outcome,
    pub device_name: String,
    pub compile_seconds: f64,
    /// Exploration with the adjacency recorded (expansion kernels, CUDA events).
    pub generate_seconds: f64,
    /// Finishing the graph: acceptance and the error state (CUDA events).
    pub graph_seconds: f64,
    /// OWCTY or MAP on the device, first launch to last (CUDA events; includes the
    /// host's reads of the frontier counters).
    pub cycle_seconds: f64,
    /// Finding the lasso on the device and building it from its states (violated
    /// properties only).
    pub lasso_seconds: f64,
    /// Edges stored (= transitions, steps into the error state included).
    pub edges: u64,
    /// GPUs and partitions of the product's store (1 and 1 on one GPU).
    pub gpus: u32,
    pub partitions: u32,
}

/// Checks the property of `model` with `algorithm` on the GPU of `options` (its
/// `device`, `memory` and `progress`; no other checks run).
pub fn check_gpu<M: CudaModel>(
    model: &M,
    algorithm: GpuAlgorithm,
    options: &GpuOptions<'_>,
) -> Result<GpuLtl, GpuError> {
    if model.property().is_none() {
        return Err(GpuError::NoProperty);
    }
    let start = Instant::now();
    let spec = graph_spec();
    let (report, session) = explore_graph(model, options, &spec)?;
    let real = report.report.states - (report.report.error_transitions > 0) as u64;
    let edges = recorded_edges(&session, report.report.transitions)?;
    let device = Device::new(&session.ctx, &session.stream, &session.module)?;
    let graph = session.graph.as_ref().expect("a graph-recording exploration has a graph");
    // The error state, when a step raised an evaluation error, is vertex `real`.
    let n = real as u32 + (report.report.error_transitions > 0) as u32;
    let stream = device.stream();
    let arrays = Arrays::new(&stream, n as usize)?;
    let graph_seconds = device.timed(|| {
        let acc = ptr(&arrays.acc, &stream);
        device.launch(
            "wc_ltl_accepting",
            n as usize,
            &[U64(ptr(&session.store.states, &stream)), U32(real as u32), U32(n), U64(acc)],
        )?;
        if report.report.error_transitions > 0 {
            let targets = ptr(&graph.targets, &stream);
            device.launch("wc_ltl_error_targets", edges as usize, &[U64(targets), U64(edges), U32(real as u32)])?;
        }
        Ok(())
    })?;
    let words = model.state_words();
    let state = |v: u32| session_state(&session, v).map(|s| s[..words].to_vec());
    let on = OnDevice {
        first: ptr(&graph.first, &stream),
        degree: ptr(&graph.degree, &stream),
        targets: ptr(&graph.targets, &stream),
        parents: ptr(&session.store.parents, &stream),
        root: 0,
        state: &state,
    };
    let search = Search { device: &device, graph: on, arrays: &arrays, n };
    let found = search.decide(model, algorithm)?;
    found.result(&report, real, edges, graph_seconds, start)
}

/// Checks the property of `model` with `algorithm` over the partitions and GPUs of
/// `options` (`gpus`, `partitions`, `device`, `memory`, `progress`): the product
/// explored partitioned, its graph gathered on the first GPU (see
/// `warpcheck_explore::gpu::partitioned_graph`), the cycle detection there. A product
/// that does not fit is checked on its breadth-first prefix, as on one GPU.
pub fn check_gpu_partitioned<M: CudaModel>(
    model: &M,
    algorithm: GpuAlgorithm,
    options: &GpuOptions<'_>,
) -> Result<GpuLtl, GpuError> {
    if model.property().is_none() {
        return Err(GpuError::NoProperty);
    }
    let start = Instant::now();
    let (report, graph) = explore_partitioned_graph(model, options, &graph_spec())?;
    let (ctx, stream, module) = graph.first_gpu();
    let device = Device::new(ctx, stream, module)?;
    let n = graph.vertices() as u32;
    let arrays = Arrays::new(stream, n as usize)?;
    // Acceptance, each partition's states on its GPU into the first GPU's array, once
    // its zeroing on the first GPU's stream is done.
    stream.synchronize().map_err(cuda)?;
    let graph_start = Instant::now();
    let acc = ptr(&arrays.acc, stream);
    for part in graph.partitions() {
        let on = Device::on(part.stream, part.module, device.grid);
        let at = acc + part.base as u64;
        on.launch(
            "wc_ltl_accepting",
            part.held as usize,
            &[U64(part.states), U32(part.held), U32(part.held), U64(at)],
        )?;
    }
    graph.synchronize()?;
    if graph.error_state {
        let targets = ptr(&graph.targets, stream);
        let error = graph.real as u32;
        device.launch("wc_ltl_error_targets", graph.edges as usize, &[U64(targets), U64(graph.edges), U32(error)])?;
    }
    let graph_seconds = graph.seconds + graph_start.elapsed().as_secs_f64();
    let state = |v: u32| graph.state(v);
    let on = OnDevice {
        first: ptr(&graph.first, stream),
        degree: ptr(&graph.degree, stream),
        targets: ptr(&graph.targets, stream),
        parents: ptr(&graph.parents, stream),
        root: graph.root,
        state: &state,
    };
    let search = Search { device: &device, graph: on, arrays: &arrays, n };
    let found = search.decide(model, algorithm)?;
    found.result(&report, graph.real, graph.edges, graph_seconds, start)
}

/// The state of vertex `v` (a real state) of a one-GPU session, read from the device.
fn session_state(session: &Session, v: u32) -> Result<Vec<u32>, GpuError> {
    let words = session.words;
    let mut state = vec![0u32; words];
    let at = v as usize * words;
    session.stream.memcpy_dtoh(&session.store.states.slice(at..at + words), &mut state).map_err(cuda)?;
    Ok(state)
}

/// What the cycle detection decided: a lasso if the product has an accepting cycle,
/// the iterations (OWCTY) or rounds (MAP), the size of the set OWCTY left.
struct Decided {
    lasso: Option<Lasso>,
    iterations: u32,
    remaining: Option<u64>,
    /// GPU seconds of the cycle detection, wall seconds of the lasso.
    cycle_seconds: f64,
    lasso_seconds: f64,
}

impl Decided {
    /// The check's result: `states` real states and `edges` edges explored as
    /// `report` says, the graph finished in `graph_seconds`, all since `start`. On a
    /// breadth-first prefix (the store was full), no accepting cycle decides nothing.
    fn result(
        self,
        report: &GpuReport,
        states: u64,
        edges: u64,
        graph_seconds: f64,
        start: Instant,
    ) -> Result<GpuLtl, GpuError> {
        if let (Some(expanded), None) = (report.prefix, &self.lasso) {
            let (capacity, bytes) = (report.capacity, report.report.reserved_bytes);
            return Err(GpuError::NoCycleInPrefix { expanded, capacity, bytes });
        }
        Ok(GpuLtl {
            outcome: Outcome {
                lasso: self.lasso,
                states,
                transitions: report.report.transitions,
                error_transitions: report.report.error_transitions,
                iterations: Some(self.iterations),
                remaining: self.remaining,
                graph_seconds: Some(report.explore_seconds + report.setup_seconds + graph_seconds),
                seconds: start.elapsed().as_secs_f64(),
                partial: report.prefix.is_some(),
                table_growths: None,
                disk: None,
            },
            device_name: report.device_name.clone(),
            compile_seconds: report.compile_seconds,
            generate_seconds: report.kernel_seconds,
            graph_seconds,
            cycle_seconds: self.cycle_seconds,
            lasso_seconds: self.lasso_seconds,
            edges,
            gpus: report.gpus.max(1),
            partitions: report.partitions.max(1),
        })
    }
}

fn graph_spec() -> GraphSpec {
    GraphSpec {
        source: include_str!("ltl.cu"),
        extra_bytes_per_state: CYCLE_BYTES,
        edges_per_state: EDGES_PER_STATE,
        prefix_on_full: true,
    }
}

/// The complete CUDA source of an LTL check (graph-recording exploration and the
/// cycle-detection kernels), for inspection and compile checks without a GPU.
pub fn cuda_source(generated: &CudaSource, tuning: &Tuning) -> String {
    graph_source(&tuned_source(generated, tuning), generated, &graph_spec())
}

/// The CUDA source of an LTL check over partitions ([`check_gpu_partitioned`]).
pub fn partitioned_cuda_source(generated: &CudaSource, tuning: &Tuning) -> String {
    graph_source(&partitioned_source(generated, tuning), generated, &graph_spec())
}

/// Compiles (or finds in the cache) the kernels of an LTL check of `model` for
/// `device`, without running them: lets a caller compile many models in parallel first.
/// `partitioned`: those of [`check_gpu_partitioned`].
pub fn compile_for_device<M: CudaModel>(
    model: &M,
    device: usize,
    partitioned: bool,
) -> Result<nvrtc::Compiled, GpuError> {
    if partitioned {
        compile_source_for_device(model, &[], device, partitioned_cuda_source)
    } else {
        compile_source_for_device(model, &[], device, cuda_source)
    }
}

/// Launching the cycle-detection kernels of a module on its GPU's stream.
struct Device {
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    grid: u32,
    events: Option<(cudarc::driver::CudaEvent, cudarc::driver::CudaEvent)>,
}

fn cuda<E: std::fmt::Debug>(e: E) -> GpuError {
    GpuError::Cuda(format!("{e:?}"))
}

/// A counterexample search that contradicts the cycle detection (a bug, never a verdict).
fn bad(what: &str) -> GpuError {
    GpuError::Cuda(format!("the GPU's counterexample: {what}"))
}

const BLOCK: u32 = 256;

/// A kernel argument: a 32-bit number, or a 64-bit number or device pointer.
enum Arg {
    U32(u32),
    U64(u64),
}
use Arg::{U32, U64};

impl Device {
    fn new(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, module: &Arc<CudaModule>) -> Result<Device, GpuError> {
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let events = (ctx.new_event(timing).map_err(cuda)?, ctx.new_event(timing).map_err(cuda)?);
        let sms = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(cuda)? as u32;
        Ok(Device { stream: stream.clone(), module: module.clone(), grid: sms * 8, events: Some(events) })
    }

    /// Launches on another GPU's stream and module (untimed), `grid` blocks at most.
    fn on(stream: &Arc<CudaStream>, module: &Arc<CudaModule>, grid: u32) -> Device {
        Device { stream: stream.clone(), module: module.clone(), grid, events: None }
    }

    fn stream(&self) -> Arc<CudaStream> {
        self.stream.clone()
    }

    fn function(&self, name: &str) -> Result<CudaFunction, GpuError> {
        self.module.load_function(name).map_err(cuda)
    }

    /// Launches kernel `name` over `items` (grid-stride; 0: the full grid, for kernels
    /// whose work the device decides).
    fn launch(&self, name: &str, items: usize, args: &[Arg]) -> Result<(), GpuError> {
        let blocks = if items == 0 { self.grid } else { (items.div_ceil(BLOCK as usize) as u32).clamp(1, self.grid) };
        self.launch_with(
            name,
            LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 },
            args,
        )
    }

    /// Launches kernel `name` on one thread.
    fn launch_one(&self, name: &str, args: &[Arg]) -> Result<(), GpuError> {
        self.launch_with(name, warpcheck_cuda::ONE_THREAD, args)
    }

    fn launch_with(&self, name: &str, cfg: LaunchConfig, args: &[Arg]) -> Result<(), GpuError> {
        let f = self.function(name)?;
        let stream = self.stream();
        let args: Vec<&dyn KernelArg> = args
            .iter()
            .map(|a| match a {
                Arg::U32(x) => x as &dyn KernelArg,
                Arg::U64(x) => x as &dyn KernelArg,
            })
            .collect();
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: every kernel of ltl.cu takes
        // exactly these arguments (`u32` or `u64` numbers and addresses, as the callers
        // pass them), pointers into live buffers of the session and its arrays, which
        // outlive the check; the host reads them only by copies on the same stream.
        unsafe { warpcheck_cuda::launch(&stream, &f, cfg, &args) }.map_err(cuda)?;
        Ok(())
    }

    /// Runs `work` between two timing events; the GPU time in seconds.
    fn timed(&self, work: impl FnOnce() -> Result<(), GpuError>) -> Result<f64, GpuError> {
        let stream = self.stream();
        let events = self.events.as_ref().expect("a timing device");
        events.0.record(&stream).map_err(cuda)?;
        work()?;
        events.1.record(&stream).map_err(cuda)?;
        events.1.synchronize().map_err(cuda)?;
        Ok(events.0.elapsed_ms(&events.1).map_err(cuda)? as f64 / 1000.0)
    }

    fn read<T: cudarc::driver::DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        let mut host = vec![T::default(); s.len()];
        self.stream.memcpy_dtoh(s, &mut host).map_err(cuda)?;
        Ok(host)
    }
}

/// The per-vertex arrays of cycle detection (`n` vertices: the real states and the
/// error state).
struct Arrays {
    acc: CudaSlice<u8>,
    /// OWCTY: set flags; MAP: values.
    a: CudaSlice<u32>,
    /// OWCTY: in-degrees; MAP: queued marks.
    b: CudaSlice<u32>,
    queues: [CudaSlice<u32>; 2],
    /// The frontier control block (see ltl.cu).
    control: CudaSlice<u64>,
    /// MAP: the vertex found on a cycle, whether a round removed an acceptance.
    result: CudaSlice<u32>,
}

impl Arrays {
    fn new(s: &Arc<CudaStream>, n: usize) -> Result<Arrays, GpuError> {
        // Out of memory here means the budget's share for these arrays was too small.
        let full =
            |e: cudarc::driver::DriverError| GpuError::Cuda(format!("allocating the cycle-detection arrays: {e:?}"));
        Ok(Arrays {
            acc: s.alloc_zeros::<u8>(n).map_err(full)?,
            a: s.alloc_zeros::<u32>(n).map_err(full)?,
            b: s.alloc_zeros::<u32>(n).map_err(full)?,
            queues: [s.alloc_zeros::<u32>(n).map_err(full)?, s.alloc_zeros::<u32>(n).map_err(full)?],
            control: s.alloc_zeros::<u64>(8).map_err(full)?,
            result: s.alloc_zeros::<u32>(2).map_err(full)?,
        })
    }
}

/// The graph the cycle detection runs on: device addresses of its adjacency and of
/// the exploration's parents (global ids, `u32::MAX` at the roots), the vertex the
/// stems end at, and how to read a vertex's state (the model's words).
struct OnDevice<'g> {
    first: u64,
    degree: u64,
    targets: u64,
    parents: u64,
    root: u32,
    state: &'g dyn Fn(u32) -> Result<Vec<u32>, GpuError>,
}

struct Search<'a> {
    device: &'a Device,
    graph: OnDevice<'a>,
    arrays: &'a Arrays,
    /// Vertices: the real states, then the error state if a step raised an error.
    n: u32,
}

/// Device pointers of the graph and the arrays, for kernel arguments.
struct Ptrs {
    first: u64,
    degree: u64,
    targets: u64,
    acc: u64,
    a: u64,
    b: u64,
    q0: u64,
    q1: u64,
    c: u64,
    result: u64,
}

impl Search<'_> {
    /// OWCTY or MAP, then the lasso if there is an accepting cycle.
    fn decide<M: CudaModel>(&self, model: &M, algorithm: GpuAlgorithm) -> Result<Decided, GpuError> {
        let (found, on_cycle, iterations, remaining, cycle_seconds) = match algorithm {
            GpuAlgorithm::Owcty => {
                let (size, iterations, seconds) = self.owcty()?;
                (size > 0, None, iterations, Some(size), seconds)
            }
            GpuAlgorithm::Map => {
                let (on_cycle, rounds, seconds) = self.map()?;
                (on_cycle.is_some(), on_cycle, rounds, None, seconds)
            }
        };
        let lasso_start = Instant::now();
        let lasso = if found { Some(self.lasso(model, on_cycle)?) } else { None };
        let lasso_seconds = lasso_start.elapsed().as_secs_f64();
        Ok(Decided { lasso, iterations, remaining, cycle_seconds, lasso_seconds })
    }

    fn ptrs(&self) -> Ptrs {
        let s = &self.device.stream;
        let g = &self.graph;
        let a = self.arrays;
        Ptrs {
            first: g.first,
            degree: g.degree,
            targets: g.targets,
            acc: ptr(&a.acc, s),
            a: ptr(&a.a, s),
            b: ptr(&a.b, s),
            q0: ptr(&a.queues[0], s),
            q1: ptr(&a.queues[1], s),
            c: ptr(&a.control, s),
            result: ptr(&a.result, s),
        }
    }

    /// Clears the frontier control block (before a seed kernel fills the first queue).
    fn reset_front(&self) -> Result<(), GpuError> {
        let c = self.ptrs().c;
        self.device.launch_one("wc_front_reset", &[U64(c)])
    }

    /// Runs `level` (which enqueues one level's kernels) and the flip until the
    /// current queue is empty; returns the vertices taken from the queues.
    fn frontier(&self, level: impl Fn() -> Result<(), GpuError>) -> Result<u64, GpuError> {
        let p = self.ptrs();
        loop {
            for _ in 0..LEVELS_PER_BATCH {
                level()?;
                self.device.launch_one("wc_front_flip", &[U64(p.c)])?;
            }
            let c = self.device.read(&self.arrays.control)?;
            if c[c[2] as usize] == 0 {
                return Ok(c[3]);
            }
        }
    }

    /// OWCTY: the size of the set it leaves, the iterations, the GPU seconds.
    fn owcty(&self) -> Result<(u64, u32, f64), GpuError> {
        let (p, n, d) = (self.ptrs(), self.n, self.device);
        let (mut size, mut iterations) = (n as u64, 0u32);
        let seconds = d.timed(|| {
            d.launch("wc_owcty_init", n as usize, &[U32(n), U64(p.a)])?;
            loop {
                iterations += 1;
                let old = size;
                self.reset_front()?;
                d.launch("wc_reach_seed", n as usize, &[U32(n), U64(p.a), U64(p.acc), U64(p.q0), U64(p.q1), U64(p.c)])?;
                let reached = self.frontier(|| {
                    d.launch(
                        "wc_reach_step",
                        0,
                        &[U64(p.first), U64(p.degree), U64(p.targets), U64(p.a), U64(p.q0), U64(p.q1), U64(p.c)],
                    )
                })?;
                d.launch("wc_owcty_restrict", n as usize, &[U32(n), U64(p.a), U64(p.b)])?;
                d.launch(
                    "wc_owcty_indegree",
                    n as usize,
                    &[U32(n), U64(p.first), U64(p.degree), U64(p.targets), U64(p.a), U64(p.b)],
                )?;
                self.reset_front()?;
                d.launch("wc_elim_seed", n as usize, &[U32(n), U64(p.a), U64(p.b), U64(p.q0), U64(p.q1), U64(p.c)])?;
                let removed = self.frontier(|| {
                    d.launch(
                        "wc_elim_step",
                        0,
                        &[
                            U64(p.first),
                            U64(p.degree),
                            U64(p.targets),
                            U64(p.a),
                            U64(p.b),
                            U64(p.q0),
                            U64(p.q1),
                            U64(p.c),
                        ],
                    )
                })?;
                size = reached - removed;
                if size == old {
                    return Ok(());
                }
            }
        })?;
        Ok((size, iterations, seconds))
    }

    /// MAP: a vertex on an accepting cycle, the rounds, the GPU seconds.
    fn map(&self) -> Result<(Option<u32>, u32, f64), GpuError> {
        let (p, n, d) = (self.ptrs(), self.n, self.device);
        let (mut on_cycle, mut rounds) = (None, 0u32);
        let seconds = d.timed(|| loop {
            rounds += 1;
            self.reset_front()?;
            d.launch(
                "wc_map_seed",
                n as usize,
                &[U32(n), U64(p.acc), U64(p.a), U64(p.b), U64(p.q0), U64(p.q1), U64(p.c)],
            )?;
            self.frontier(|| {
                d.launch("wc_map_unqueue", 0, &[U64(p.b), U64(p.q0), U64(p.q1), U64(p.c)])?;
                d.launch(
                    "wc_map_step",
                    0,
                    &[
                        U64(p.first),
                        U64(p.degree),
                        U64(p.targets),
                        U64(p.acc),
                        U64(p.a),
                        U64(p.b),
                        U64(p.q0),
                        U64(p.q1),
                        U64(p.c),
                    ],
                )
            })?;
            d.launch_one("wc_map_reset", &[U64(p.result)])?;
            d.launch("wc_map_cycle", n as usize, &[U32(n), U64(p.acc), U64(p.a), U64(p.result)])?;
            let found = d.read(&self.arrays.result)?[0];
            if found != u32::MAX {
                on_cycle = Some(found);
                return Ok(());
            }
            d.launch("wc_map_unmark", n as usize, &[U32(n), U64(p.acc), U64(p.a), U64(p.result + 4)])?;
            if d.read(&self.arrays.result)?[1] == 0 {
                return Ok(());
            }
        })?;
        Ok((on_cycle, rounds, seconds))
    }

    /// The counterexample, found on the device: an accepting vertex `a` on a cycle
    /// (MAP's, or for OWCTY, MAP's run on the accepting vertices of the set it left),
    /// a breadth-first search from `a` back to `a` (a shortest cycle through it), and
    /// the exploration's parents from `a` to the initial state (a shortest stem). Only
    /// the lasso's vertex ids and states come back to the host.
    fn lasso<M: CudaModel>(&self, model: &M, on_cycle: Option<u32>) -> Result<Lasso, GpuError> {
        let (p, n, d) = (self.ptrs(), self.n, self.device);
        let a = match on_cycle {
            Some(a) => a,
            None => {
                d.launch("wc_ltl_keep_set", n as usize, &[U32(n), U64(p.a), U64(p.acc)])?;
                self.map()?.0.ok_or_else(|| bad("OWCTY left a set in which MAP finds no accepting cycle"))?
            }
        };
        // The cycle: parents of the search from `a` in `b`.
        d.launch("wc_cycle_init", n as usize, &[U32(n), U64(p.b)])?;
        self.reset_front()?;
        d.launch_one("wc_cycle_seed", &[U32(a), U64(p.b), U64(p.q0), U64(p.q1), U64(p.c), U64(p.result)])?;
        self.frontier(|| {
            d.launch(
                "wc_cycle_step",
                0,
                &[
                    U64(p.first),
                    U64(p.degree),
                    U64(p.targets),
                    U32(a),
                    U64(p.b),
                    U64(p.q0),
                    U64(p.q1),
                    U64(p.c),
                    U64(p.result),
                ],
            )
        })?;
        let last = d.read(&self.arrays.result)?[0];
        if last == u32::MAX {
            return Err(bad(&format!("vertex {a} was found on an accepting cycle but does not reach itself")));
        }
        let mut cycle = self.chain(p.b, last, a)?;
        cycle.reverse();
        cycle.push(a);
        let mut stem = self.chain(self.graph.parents, a, self.graph.root)?;
        stem.reverse();
        let states = |ids: &[u32]| ids.iter().map(|&v| (self.graph.state)(v)).collect::<Result<Vec<_>, GpuError>>();
        Ok(Lasso::build(model, &states(&stem)?, &states(&cycle)?))
    }

    /// The path `from`, `parent[from]`, ... up to `stop`, followed on the device.
    fn chain(&self, parent: u64, from: u32, stop: u32) -> Result<Vec<u32>, GpuError> {
        let (p, d) = (self.ptrs(), self.device);
        d.launch_one("wc_chain", &[U64(parent), U32(from), U32(stop), U32(self.n), U64(p.q1), U64(p.c + 5 * 8)])?;
        let len = d.read(&self.arrays.control)?[5] as usize;
        if len == 0 {
            return Err(bad(&format!("the parents of vertex {from} do not lead to vertex {stop}")));
        }
        let mut path = vec![0u32; len];
        self.device.stream.memcpy_dtoh(&self.arrays.queues[1].slice(..len), &mut path).map_err(cuda)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kernel_launched_is_defined() {
        let cuda = format!("{}{}", include_str!("../../../explore/src/gpu/kernel.cu"), include_str!("ltl.cu"));
        let rust = include_str!("mod.rs");
        let code = &rust[..rust.find("#[cfg(test)]").unwrap()];
        let mut launched = 0;
        for piece in code.split("\"wc_").skip(1) {
            let name = format!("wc_{}", &piece[..piece.find('"').unwrap()]);
            launched += 1;
            assert!(cuda.contains(&format!("__global__ void {name}(")), "kernel {name} is launched but not defined");
        }
        assert!(launched >= 15, "{launched}");
    }
}
