//! The host side of the GPU engine: sizes and allocates the device-resident state
//! store, compiles the model's kernels, and drives the breadth-first search one level
//! (or one chunk of a level) per launch. Only counters and the few states of a
//! counterexample come back to the host.
//!
//! Exactness: before each launch the host checks that the state store has room for
//! every successor the launch can produce (the code generator's bound on successors
//! per state times the states expanded). If it has not, the run ends with
//! [`GpuError::Full`]; the device also flags an id past the end, so no state is ever
//! dropped silently.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Instant;

use super::compact::{SetLayout, BUCKET};
use super::host_slots::HostSlots;
use super::plan::{pin_spill, CompressedSizing, Observed, Plan, Spill, MAX_HOST_SLOTS, REPLANS, TREE_FILL};
use crate::leaf_order::{TreeSample, TREE_SAMPLE};
use crate::{Checks, Progress, Report, Trace, Violation, ViolationKind};
use warpcheck_cuda::cudarc;
use warpcheck_cuda::cudarc::nvrtc::Ptx;
use warpcheck_cuda::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig,
};
use warpcheck_cuda::nvrtc;
pub use warpcheck_cuda::ONE_THREAD;
use warpcheck_cuda::{HostArray, KernelArg};
use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::{EvalError, LabelId, Successors};

/// The most successors per state (the code generator's bound) for which a graph is
/// recorded: each thread keeps its state's successor ids in a local array of that many
/// words (`WC_MAX_SUCC`). BEEM's products stay far below; planning tasks with more
/// actions are refused.
const MAX_GRAPH_SUCCESSORS: u64 = 1 << 16;
/// Target load of the hash table: it has `1/LOAD` entries per state the store holds.
pub(crate) const LOAD: f64 = 0.75;
/// The compressed store's room for levels (their first ids, which counterexamples are
/// rebuilt from): a run of more levels still explores, without counterexamples.
pub(crate) const LEVEL_ROOM: u32 = 1 << 22;

/// The GPU's state store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuStore {
    /// The flat store while it holds the state space, else the compressed one (the
    /// search starts again with it when the flat store fills).
    #[default]
    Auto,
    /// Every state whole: its words, its parent and a hash table entry.
    Flat,
    /// Tree-compressed states (tree.cu): a state costs its root's entry and the inner
    /// nodes it does not share on the device, and its root key in host memory.
    Compressed,
}
/// Launch and compilation settings. The defaults are what measured best; the
/// `WARPCHECK_GPU_*` environment variables override them for experiments
/// (`BLOCK` threads per block, `BLOCKS_PER_SM` resident blocks aimed at per
/// multiprocessor, `MAXRREG` registers per thread, `INLINE_EMIT=1` to inline the
/// insertion into every step (with ids taken one atomic per warp it measured 1.0-15x
/// slower than one out-of-line insertion on all ten models of the GPU set;
/// `benches/results/gpu-set.md`), `HOST_SLOTS` the ids of host slots the compressed
/// store pins first (tests make it small, so that the slots grow), `NODES_PER_STATE`
/// the inner nodes per state the compressed store plans for instead of its sample's
/// (a fraction: fewer plan more states, and leave less room for the nodes),
/// `SPILL_SHARE` the share of the set of roots the compressed store keeps in host memory
/// from its first plan on (a fraction; otherwise only a plan past device memory does).
#[derive(Clone, Debug)]
pub struct Tuning {
    pub block: u32,
    pub blocks_per_sm: u32,
    pub max_registers: Option<u32>,
    pub inline_emit: bool,
    pub host_slots: u32,
    pub nodes_per_state: Option<f64>,
    pub spill_share: Option<f64>,
}

impl Tuning {
    pub fn from_env() -> Tuning {
        let var = |name: &str| std::env::var(format!("WARPCHECK_GPU_{name}")).ok().and_then(|v| v.parse::<u32>().ok());
        let fraction =
            |name: &str| std::env::var(format!("WARPCHECK_GPU_{name}")).ok().and_then(|v| v.parse::<f64>().ok());
        Tuning {
            block: var("BLOCK").unwrap_or(256).clamp(32, 1024) / 32 * 32,
            blocks_per_sm: var("BLOCKS_PER_SM").unwrap_or(16).max(1),
            max_registers: var("MAXRREG"),
            inline_emit: var("INLINE_EMIT") == Some(1),
            host_slots: var("HOST_SLOTS").unwrap_or(64 << 20).max(1),
            nodes_per_state: fraction("NODES_PER_STATE"),
            spill_share: fraction("SPILL_SHARE").map(|s| s.clamp(0.0, 1.0)),
        }
    }

    pub fn nvrtc_options(&self) -> Vec<String> {
        self.max_registers.map(|r| format!("--maxrregcount={r}")).into_iter().collect()
    }
}

/// How to explore on the GPU.
pub struct GpuOptions<'a> {
    /// CUDA device ordinal (the first, with several GPUs).
    pub device: usize,
    /// GPUs to explore on: devices `device..device + gpus` (exploration only; graph
    /// recording and LTL use `device` alone).
    pub gpus: usize,
    /// Partitions of the state store, spread round robin over the GPUs (0: one per
    /// GPU); more than one partition on one GPU runs the multi-GPU code there.
    pub partitions: usize,
    /// Device memory to use for the state store, in bytes (default: 90% of the free
    /// memory).
    pub memory: Option<u64>,
    pub checks: Checks,
    pub stop_at_first: bool,
    /// Also time successor generation alone (one extra launch per level).
    pub profile: bool,
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// The state store of a one-GPU exploration (graph recording and several GPUs use
    /// the flat one).
    pub store: GpuStore,
}

impl Default for GpuOptions<'_> {
    fn default() -> Self {
        GpuOptions {
            device: 0,
            gpus: 1,
            partitions: 0,
            memory: None,
            checks: Checks::default(),
            stop_at_first: true,
            profile: false,
            progress: None,
            store: GpuStore::Auto,
        }
    }
}

/// Where the time of a GPU run went, beside the exploration's [`Report`].
#[derive(Clone, Debug, Default)]
pub struct GpuReport {
    pub report: Report,
    pub device_name: String,
    /// NVRTC compilation (or cache lookup) of the generated code.
    pub compile_seconds: f64,
    pub compile_cached: bool,
    /// Context creation, module load, allocation and clearing of the state store.
    pub setup_seconds: f64,
    /// The breadth-first search (launches, synchronisation, counters).
    pub explore_seconds: f64,
    /// Time inside the expansion kernels (CUDA events).
    pub kernel_seconds: f64,
    /// With `profile`: time of the generation-only kernels (no inserts).
    pub generate_seconds: Option<f64>,
    pub launches: u64,
    /// Device bytes per stored state: the state, its parent and its share of the table
    /// at its target load (compressed: the entries it took in the sets, at their fill
    /// limit).
    pub bytes_per_state: f64,
    /// Host bytes per stored state (the compressed store's index of its root; none for
    /// the flat store).
    pub host_bytes_per_state: f64,
    /// Which store held the states: `"flat"` or `"compressed"`.
    pub store: &'static str,
    /// The compressed store: the inner nodes stored besides the states' roots.
    pub tree_nodes: Option<u64>,
    /// The compressed store: entries of its set of roots in host memory (past device
    /// memory; 0 when the device held them all).
    pub host_roots: u64,
    /// `GpuStore::Auto`: the states the flat store held when it filled, before the
    /// search ran again compressed.
    pub flat_full_at: Option<u64>,
    /// The compressed store: the states found by each run that filled, before the
    /// search ran again planned for the share of inner nodes it found, on the device or
    /// with roots in host memory (see [`explore`]).
    pub replanned_at: Vec<u64>,
    /// States the store could hold.
    pub capacity: u64,
    /// Registers per thread and local (stack) bytes per thread of the expansion kernel.
    pub kernel_registers: i32,
    pub kernel_local_bytes: i32,
    /// GPUs and store partitions of the run (1 and 1, or 0 and 0, for one GPU), and how
    /// partitions exchanged states (`"nccl"`, `"copies"`).
    pub gpus: u32,
    pub partitions: u32,
    pub transport: &'static str,
    /// With partitions: the time of the exchanges (moving outboxes, inserting them).
    pub exchange_seconds: f64,
    /// A graph-recording run that filled its store ([`GraphSpec::prefix_on_full`]):
    /// the states expanded (ids `0..prefix`, in breadth-first order), whose successors
    /// the graph holds; the states found after them have none recorded.
    pub prefix: Option<u64>,
}

/// Why a GPU run gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    #[error("CUDA error: {0}")]
    Cuda(String),
    #[error("{0}")]
    Compile(String),
    #[error("{0}")]
    Unsupported(#[from] Unsupported),
    #[error(
        "the GPU state store is full: it holds {capacity} states ({bytes} bytes of device memory) and {states} \
         were found before the last level could be expanded; give more device memory (--memory) or use the CPU"
    )]
    Full { states: u64, capacity: u64, bytes: u64 },
    #[error(
        "the compressed GPU store's host memory is full: with the device's, it has room for {capacity} states (a \
         root key of 8 bytes each, pinned, and the roots past device memory) and {states} were found before the \
         last level could be expanded; free host memory, or use the CPU"
    )]
    HostFull { states: u64, capacity: u64 },
    #[error(
        "the GPU product graph is full: it has room for {capacity} edges ({bytes} bytes of device memory) and the \
         {states} states found so far need more; give more device memory (--memory) or use the CPU"
    )]
    EdgesFull { states: u64, capacity: u64, bytes: u64 },
    /// An LTL check on the prefix explored until the store filled
    /// ([`GraphSpec::prefix_on_full`]) found no accepting cycle: nothing is decided.
    #[error(
        "the product does not fit in device memory (the GPU store holds {capacity} states, {bytes} bytes), and the \
         {expanded} states expanded before it filled (a breadth-first prefix) lie on no accepting cycle, which \
         decides nothing; give more device memory (--memory) or use the CPU (ndfs, cndfs)"
    )]
    NoCycleInPrefix { expanded: u64, capacity: u64, bytes: u64 },
    /// Options the GPU engine cannot honour as given.
    #[error("{0}")]
    Options(String),
    #[error("the model has no property process (`system ... property P;`): there is no LTL property to check")]
    NoProperty,
}

pub(crate) fn cuda<E: std::fmt::Debug>(e: E) -> GpuError {
    GpuError::Cuda(format!("{e:?}"))
}

/// The number of CUDA devices (`warpcheck_cuda::device_count`), or why there is none.
pub fn device_count() -> Result<i32, GpuError> {
    Ok(warpcheck_cuda::device_count()? as i32)
}

/// The state-store arguments of the kernels (`struct WcTable` in kernel.cu); the
/// fields from `parent_parts` on are a partitioned store's (`partitioned.rs`), zero
/// otherwise.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TableArgs {
    pub states: u64,
    pub parents: u64,
    pub table: u64,
    pub capacity: u64,
    pub count: u64,
    pub full: u64,
    /// The ids below which new states may be numbered.
    pub limit: u64,
    pub parent_parts: u64,
    pub out_data: u64,
    pub out_fill: u64,
    pub out_full: u64,
    pub room: u32,
    pub own: u32,
    pub parts: u32,
    pub slots: u64,
    pub tree: TreeArgs,
    pub levels: u64,
    pub level_room: u32,
}

/// The compressed store's sets (`struct WcTree` in tree.cu); zero for the flat store.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TreeArgs {
    pub nodes: SetArgs,
    pub roots: SetArgs,
    pub full: u64,
    pub find_only: u32,
}

/// One of the compressed store's sets (`struct WcSet` in tree.cu, laid out as
/// [`SetLayout`] says).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct SetArgs {
    pub table: u64,
    pub buckets: u64,
    pub fill: u64,
    pub fill_limit: u64,
    /// The last `spilled` buckets, in host memory mapped for the device (roots only).
    pub spill: u64,
    pub spilled: u64,
    pub inv: u64,
    pub rem_bits: u32,
    pub lo_bytes: u32,
    pub shifts: u32,
    pub unused: u32,
}

impl SetArgs {
    /// The set of `layout` at device address `table`, its fill counted at `fill`.
    fn new(table: u64, layout: SetLayout, fill: u64) -> SetArgs {
        SetArgs {
            table,
            buckets: layout.buckets,
            fill,
            fill_limit: (layout.entries() as f64 * TREE_FILL) as u64,
            spill: 0,
            spilled: 0,
            inv: layout.inv(),
            rem_bits: layout.rem_bits,
            lo_bytes: layout.lo_bytes,
            shifts: layout.shifts(),
            unused: 0,
        }
    }
}

// SAFETY: `#[repr(C)]` with only `u64`, `u32` and `TreeArgs` fields (of `SetArgs`, of
// `u64` and `u32` fields), in the order and of the types of `struct WcTable` in
// kernel.cu and `struct WcTree` and `WcSet` in tree.cu (C pads `parts` and
// `find_only` to 8 bytes as Rust does), so its bytes are the kernels' parameter as it
// is.
unsafe impl DeviceRepr for TableArgs {}

/// Compiles (or finds in the cache) the kernels of `model` with `invariants` for
/// `device`, without exploring: lets a caller compile many models in parallel first.
pub fn compile_for_device<M: CudaModel>(
    model: &M,
    invariants: &[LabelId],
    device: usize,
) -> Result<nvrtc::Compiled, GpuError> {
    compile_source_for_device(model, invariants, device, tuned_source)
}

/// Compiles (or finds in the cache) the CUDA source `source` makes of `model`'s
/// generated code for `device`.
pub fn compile_source_for_device<M: CudaModel>(
    model: &M,
    invariants: &[LabelId],
    device: usize,
    source: impl FnOnce(&CudaSource, &Tuning) -> String,
) -> Result<nvrtc::Compiled, GpuError> {
    device_count()?;
    let generated = model.cuda_source(invariants)?;
    let ctx = CudaContext::new(device).map_err(cuda)?;
    let (major, minor) = ctx.compute_capability().map_err(cuda)?;
    let tuning = Tuning::from_env();
    let source = source(&generated, &tuning);
    nvrtc::compile(&source, (major * 10 + minor) as u32, &tuning.nvrtc_options()).map_err(GpuError::from)
}

/// The CUDA source with the `tuning`'s compile-time choices defined in front.
pub fn tuned_source(generated: &CudaSource, tuning: &Tuning) -> String {
    let mut defines = String::new();
    if tuning.inline_emit {
        defines.push_str("#define WC_EMIT_FN __device__ __forceinline__\n");
    }
    defines + &cuda_source(generated)
}

/// The complete CUDA source for a model: kernels around the generated functions.
pub fn cuda_source(generated: &CudaSource) -> String {
    store_source(generated, None)
}

/// The CUDA source for a model over the flat store, or with `tree` (the tree's leaf
/// order) over the compressed one.
fn store_source(generated: &CudaSource, tree: Option<&[usize]>) -> String {
    let kernel = include_str!("kernel.cu");
    let mut store = super::tree::TABLE_SOURCE.to_string();
    if let Some(order) = tree {
        store = format!("#define WC_TREE\n{store}{}", super::tree::tree_source(order));
    }
    kernel.replacen("// @@TREE@@", &store, 1).replacen("// @@MODEL@@", &generated.source, 1)
}

/// Device buffers of one run.
pub struct Store {
    /// The states' words (flat store; one unused word for the compressed store).
    pub states: CudaSlice<u32>,
    pub parents: CudaSlice<u32>,
    _table: CudaSlice<u32>,
    /// The compressed store's set of inner nodes (see tree.cu; `_table` is its set of
    /// roots); one entry otherwise.
    _nodes: CudaSlice<u32>,
    /// The compressed store: the entries its sets hold (`[0]` nodes, `[1]` roots), and
    /// the first id of each level (64-bit, as two words each); unused otherwise.
    fill: CudaSlice<u64>,
    levels: CudaSlice<u32>,
    /// The compressed store: for each id its root key, in host memory mapped for the
    /// device, pinned as the search grows (`args.limit` ids).
    slots: Option<RefCell<HostSlots>>,
    /// The compressed store: the entries of the set of roots past device memory, in
    /// host memory mapped for the device (`args.tree.roots.spilled` of them).
    _spill: Option<HostArray>,
    /// States the store was sized for, and whether host memory (for the slots) bounded
    /// them rather than the device's.
    capacity: u64,
    host_bound: bool,
    /// Device bytes of the states, parents and table (compressed: of the sets).
    reserved: u64,
    /// The control block (see kernel.cu): states found, overflow flag, the level being
    /// expanded, why the device-driven search stopped, levels, \[6\] edge overflow flag;
    /// 8 words of `wc_id` (16 `u32`s, the last 8 unused when ids are 32-bit). Read
    /// after each batch.
    pub ctl: CudaSlice<u32>,
    counters: CudaSlice<u64>,
    viol_first: CudaSlice<u32>,
    viol_count: CudaSlice<u64>,
    /// The kernels' view of the store; its `limit` grows with `slots`.
    args: Cell<TableArgs>,
}

impl Store {
    /// Whether the kernels' ids (`wc_id`) are 64-bit: the compressed store's. Then the
    /// control block, the levels' first ids and the violations' first ids are 64-bit
    /// words, each two `u32`s here, low half first.
    fn wide(&self) -> bool {
        self.slots.is_some()
    }

    /// The compressed store: buckets of the set of roots in host memory.
    fn spilled(&self) -> u64 {
        self.args.get().tree.roots.spilled
    }
}

pub fn ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _sync) = s.device_ptr(stream);
    p
}

/// Explores `model` breadth first on the GPU, or with more than one GPU or partition
/// in `options`, over a partitioned store ([`crate::gpu::partitioned`]). With
/// [`GpuStore::Auto`], a flat store that fills hands the search to the compressed one
/// on the first GPU.
pub fn explore_gpu<M: CudaModel>(model: &M, options: &GpuOptions<'_>) -> Result<GpuReport, GpuError> {
    let partitioned = options.gpus > 1 || options.partitions > 1;
    if partitioned && options.store == GpuStore::Compressed {
        return Err(GpuError::Options("the compressed GPU store explores on one GPU only".into()));
    }
    let start = Instant::now();
    let first = match partitioned {
        true => super::partitioned::explore_partitioned(model, options),
        false => explore(model, options, None).map(|(report, _)| report),
    };
    match first {
        Err(GpuError::Full { states, .. }) if options.store == GpuStore::Auto => {
            let compressed =
                GpuOptions { store: GpuStore::Compressed, gpus: 1, partitions: 0, ..options.clone_settings() };
            let (mut report, _) = explore(model, &compressed, None)?;
            report.flat_full_at = Some(states);
            // The whole run, the flat attempt included.
            report.report.seconds = start.elapsed().as_secs_f64();
            Ok(report)
        }
        result => result,
    }
}

impl GpuOptions<'_> {
    /// The same options (the checks cloned).
    pub(crate) fn clone_settings(&self) -> Self {
        GpuOptions { checks: self.checks.clone(), ..*self }
    }
}

/// An exploration that also records the (product) graph on the device (`WC_GRAPH` in
/// kernel.cu), for the LTL checker (`warpcheck_liveness::gpu`) and for state graphs
/// ([`crate::state_graph`]).
pub struct GraphSpec {
    /// CUDA source appended to the kernels (the cycle-detection kernels).
    pub source: &'static str,
    /// Device bytes per state the caller needs after exploration, beyond the store.
    pub extra_bytes_per_state: f64,
    /// Edge room reserved per state the store can hold.
    pub edges_per_state: f64,
    /// When the store fills, end with the graph explored so far (a breadth-first
    /// prefix: [`GpuReport::prefix`]) instead of [`GpuError::Full`].
    pub prefix_on_full: bool,
}

/// The product graph on the device: per state its first edge and degree (one more
/// entry than states, for the error state), the targets.
pub struct GraphStore {
    pub first: CudaSlice<u64>,
    pub degree: CudaSlice<u32>,
    pub targets: CudaSlice<u32>,
    /// \[0\]: edges used.
    pub edges: CudaSlice<u64>,
}

/// The graph's arguments of the kernels (`struct WcGraph` in kernel.cu).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct GraphArgs {
    pub(crate) first: u64,
    pub(crate) degree: u64,
    pub(crate) targets: u64,
    pub(crate) edges: u64,
    pub(crate) capacity: u64,
    pub(crate) full: u64,
    pub(crate) edges_full: u64,
}

// SAFETY: `#[repr(C)]` with only `u64` fields, in the order and of the types of
// `struct WcGraph` in kernel.cu, so its bytes are the kernels' parameter as it is.
unsafe impl DeviceRepr for GraphArgs {}

/// What stays on the device after a search, for a caller that goes on there.
pub struct Session {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub module: Arc<CudaModule>,
    pub store: Store,
    pub graph: Option<GraphStore>,
    pub sms: u32,
    pub words: usize,
    /// The device copies of the model's tables, which its kernels read.
    pub tables: Vec<CudaSlice<u32>>,
}

/// Copies the model's tables ([`CudaSource::tables`]) to the device and sets the
/// module's `WC_TABLE` pointers to them; the copies must outlive the module's use.
pub(crate) fn bind_tables(
    module: &Arc<CudaModule>,
    stream: &Arc<CudaStream>,
    tables: &[warpcheck_model::Table],
) -> Result<Vec<CudaSlice<u32>>, GpuError> {
    tables.iter().map(|t| warpcheck_cuda::device::bind_table(module, stream, &t.name, &t.data).map_err(cuda)).collect()
}

/// Explores `model` recording its graph with `spec`, on the device, memory and
/// progress of `options` and with no checks (the graph's users check it themselves).
pub fn explore_graph<M: CudaModel>(
    model: &M,
    options: &GpuOptions<'_>,
    spec: &GraphSpec,
) -> Result<(GpuReport, Session), GpuError> {
    let graph_only = GpuOptions {
        device: options.device,
        gpus: 1,
        partitions: 0,
        memory: options.memory,
        checks: Checks { deadlock: false, assertions: false, invariants: vec![] },
        stop_at_first: false,
        profile: false,
        progress: options.progress,
        store: GpuStore::Flat,
    };
    explore(model, &graph_only, Some(spec))
}

/// Explores `model`; with `graph`, also records the product graph on the device.
///
/// The compressed store plans its two sets for the inner nodes per state of a sample,
/// which may be far from the whole space's, on the device alone. When it fills, the
/// search runs again (at most `REPLANS` times) planned for the share of nodes it
/// found, if that plan holds clearly more states: on the device alone if it can, else
/// with part of the set of roots in host memory (`Spill::Host`, see `plan.rs`).
pub fn explore<M: CudaModel>(
    model: &M,
    options: &GpuOptions<'_>,
    graph: Option<&GraphSpec>,
) -> Result<(GpuReport, Session), GpuError> {
    let start = Instant::now();
    let tuning = Tuning::from_env();
    let first = tuning.spill_share.map_or(Spill::Never, Spill::Share);
    let mut plan = Plan { nodes_per_state: tuning.nodes_per_state, spill: first };
    let mut replanned_at = Vec::new();
    loop {
        match explore_planned(model, options, graph, &tuning, plan, start) {
            Ok((mut report, session)) => {
                report.replanned_at = replanned_at;
                return Ok((report, session));
            }
            Err(Failure { error, observed: Some(o) }) if replanned_at.len() < REPLANS => match o.next_plan(first) {
                Some(next) => {
                    replanned_at.push(o.states);
                    plan = next;
                }
                None => return Err(error),
            },
            Err(failure) => return Err(failure.error),
        }
    }
}

/// Why a run failed, and when it was the compressed store filling, what it had found.
struct Failure {
    error: GpuError,
    observed: Option<Observed>,
}

impl From<GpuError> for Failure {
    fn from(error: GpuError) -> Failure {
        Failure { error, observed: None }
    }
}

/// One run of [`explore`], the compressed store planned by `plan`.
fn explore_planned<M: CudaModel>(
    model: &M,
    options: &GpuOptions<'_>,
    graph: Option<&GraphSpec>,
    tuning: &Tuning,
    plan: Plan,
    start: Instant,
) -> Result<(GpuReport, Session), Failure> {
    let invariants: Vec<LabelId> = options.checks.invariants.iter().map(|i| i.label).collect();
    let generated = model.cuda_source(&invariants).map_err(GpuError::from)?;
    if graph.is_some() && generated.max_successors > MAX_GRAPH_SUCCESSORS {
        return Err(GpuError::Unsupported(Unsupported::Model(format!(
            "a state of this model may have {} successors; recording the state graph on the GPU keeps a state's \
             successors in a per-thread array of at most {MAX_GRAPH_SUCCESSORS}",
            generated.max_successors
        )))
        .into());
    }
    let words = model.state_words().max(1);
    let compressed = options.store == GpuStore::Compressed;
    if compressed && graph.is_some() {
        return Err(GpuError::Options("the compressed GPU store does not record state graphs".into()).into());
    }
    let count = device_count()?;
    if options.device >= count as usize {
        return Err(GpuError::NoDevice(format!("device {} requested, {count} present", options.device)).into());
    }
    let ctx = CudaContext::new(options.device).map_err(cuda)?;
    // One stream, synchronised by hand: no per-buffer event bookkeeping.
    // SAFETY: every buffer of the run is allocated, used and freed on the context's
    // default stream only (the `Session` keeps that one stream for its users), so
    // stream order synchronises all uses without cudarc's events.
    unsafe { ctx.disable_event_tracking() };
    // The compressed store's host slots: the first chunk pinned while the kernels compile
    // and the store is sized.
    // A state's root key is in host memory, and spilled roots: three quarters of it.
    let host_bytes = warpcheck_store::memory::available().unwrap_or(u64::MAX) / 4 * 3;
    let host_ids = (host_bytes / 8).min(MAX_HOST_SLOTS);
    let pinning = compressed.then(|| HostSlots::start(&ctx, host_ids, tuning.host_slots as usize));
    let (major, minor) = ctx.compute_capability().map_err(cuda)?;
    let compile_start = Instant::now();
    // The compressed store's sample of states: its tree's leaf order and the inner nodes
    // per state its first plan is sized for.
    let sample = compressed.then(|| TreeSample::of(model, TREE_SAMPLE));
    let order = sample.as_ref().map(TreeSample::leaf_order);
    let mut source = match &order {
        Some(order) => compressed_source(&generated, tuning, order),
        None => tuned_source(&generated, tuning),
    };
    if let Some(spec) = graph {
        source = graph_source(&source, &generated, spec);
    }
    let compiled =
        nvrtc::compile(&source, (major * 10 + minor) as u32, &tuning.nvrtc_options()).map_err(GpuError::from)?;
    let compile_seconds = compile_start.elapsed().as_secs_f64();
    let setup_start = Instant::now();
    let module = ctx.load_module(Ptx::from_binary(compiled.cubin)).map_err(cuda)?;
    let expand = module.load_function("wc_expand").map_err(cuda)?;
    let advance = module.load_function("wc_advance").map_err(cuda)?;
    let seed = module.load_function("wc_seed").map_err(cuda)?;
    // A block never asks for more registers than a multiprocessor has (only a
    // `WARPCHECK_GPU_BLOCK` over 256 can).
    let most_threads = expand.max_threads_per_block().map_err(cuda)? as u32;
    let tuning = Tuning { block: tuning.block.min(most_threads / 32 * 32).max(32), ..tuning.clone() };
    let stream = ctx.default_stream();
    let tables = bind_tables(&module, &stream, &generated.tables)?;
    let categories = 2 + model.assertion_labels().len() + invariants.len();

    // Size the store: every state costs its words, its parent and 1/LOAD table entries.
    let (free, _) = ctx.mem_get_info().map_err(cuda)?;
    let budget = options.memory.unwrap_or((free as f64 * 0.9) as u64).saturating_sub(64 << 20);
    let mut spilled = 0;
    let (mut layout, mut node_layout) = (SetLayout::at_least(1), SetLayout::at_least(1));
    let (capacity, entries, host_bound) = if compressed {
        let (sample, order) = (sample.as_ref().expect("sampled"), order.as_ref().expect("ordered"));
        let nodes_per_state = plan.nodes_per_state.unwrap_or_else(|| sample.nodes_per_state(order));
        let sets = CompressedSizing::for_budget(budget, nodes_per_state, host_bytes, plan.spill);
        spilled = sets.spilled;
        (layout, node_layout) = (SetLayout::at_least(sets.roots), SetLayout::at_least(sets.nodes));
        (sets.capacity, sets.roots, sets.host_bound)
    } else {
        let per_state = 4.0 * words as f64 + 4.0 + 8.0 / LOAD;
        // With the graph: first edge and degree, the caller's arrays and the edge room too.
        let graph_per_state = graph.map_or(0.0, |g| 12.0 + g.extra_bytes_per_state + 4.0 * g.edges_per_state);
        let capacity = ((budget as f64 / (per_state + graph_per_state)) as u64).min(u32::MAX as u64 - 4);
        (capacity, ((capacity as f64 / LOAD) as u64).max(capacity + 1), false)
    };
    if capacity < 2 {
        return Err(GpuError::Full { states: 0, capacity, bytes: budget }.into());
    }
    // SAFETY: uninitialised device memory is sound to hold (`u32` has no invalid bit
    // patterns), and the kernels write a state and its parent before reading them
    // (`wc_seed`, `wc_insert`); only ids below the published count are read back.
    let alloc = |n: usize| unsafe { stream.alloc::<u32>(n) }.map_err(cuda);
    let states = alloc(if compressed { 1 } else { capacity as usize * words })?;
    let parents = alloc(if compressed { 1 } else { capacity as usize })?;
    // The flat store's table, or the compressed store's set of roots (whole buckets).
    let table_words = if compressed { (entries - spilled) / BUCKET * layout.bucket_words() } else { 2 * entries };
    let table = stream.alloc_zeros::<u32>(table_words.max(2) as usize).map_err(cuda)?;
    // The roots past device memory, zeroed (fresh pages) and pinned before the search.
    let spill = match spilled {
        0 => None,
        n => Some(pin_spill(&ctx, n * layout.entry_bytes())?),
    };
    let nodes =
        stream.alloc_zeros::<u32>(if compressed { node_layout.bytes() as usize / 4 } else { 1 }).map_err(cuda)?;
    let fill = stream.alloc_zeros::<u64>(2).map_err(cuda)?;
    let levels = stream.alloc_zeros::<u32>(if compressed { 2 * LEVEL_ROOM as usize } else { 1 }).map_err(cuda)?;
    let ctl = stream.alloc_zeros::<u32>(16).map_err(cuda)?;
    let counters = stream.alloc_zeros::<u64>(4).map_err(cuda)?;
    let id_words = if compressed { 2 } else { 1 };
    let viol_first = stream.clone_htod(&vec![u32::MAX; categories * id_words]).map_err(cuda)?;
    let viol_count = stream.alloc_zeros::<u64>(categories).map_err(cuda)?;
    let args = TableArgs {
        states: ptr(&states, &stream),
        parents: ptr(&parents, &stream),
        table: ptr(&table, &stream),
        capacity: entries,
        count: ptr(&ctl, &stream),
        // The overflow word, ctl[1] (its low half when ids are 64-bit).
        full: ptr(&ctl, &stream) + 4 * id_words as u64,
        limit: capacity,
        ..TableArgs::default()
    };
    let mut slots = None;
    let args = if let Some(pinning) = pinning {
        let host = HostSlots::new(pinning, capacity)?;
        let (limit, slots_address) = (host.limit(), host.address());
        slots = Some(RefCell::new(host));
        let fill = ptr(&fill, &stream);
        let tree = TreeArgs {
            nodes: SetArgs::new(ptr(&nodes, &stream), node_layout, fill),
            roots: SetArgs {
                spill: spill.as_ref().map_or(0, HostArray::address),
                spilled: spilled / BUCKET,
                ..SetArgs::new(args.table, layout, fill + 8)
            },
            full: args.full,
            find_only: 0,
        };
        let levels = ptr(&levels, &stream);
        TableArgs {
            states: 0,
            parents: 0,
            table: 0,
            capacity: 0,
            limit,
            slots: slots_address,
            tree,
            levels,
            level_room: LEVEL_ROOM,
            ..args
        }
    } else {
        args
    };
    let reserved = if compressed {
        (entries - spilled) * layout.entry_bytes() + node_layout.bytes() + LEVEL_ROOM as u64 * 8
    } else {
        capacity * (4 * words as u64 + 4) + entries * 8
    };
    let graph_store = match graph {
        None => None,
        Some(spec) => {
            let edge_capacity = (capacity as f64 * spec.edges_per_state) as u64;
            let g = GraphStore {
                first: stream.alloc_zeros::<u64>(capacity as usize + 1).map_err(cuda)?,
                degree: stream.alloc_zeros::<u32>(capacity as usize + 1).map_err(cuda)?,
                // SAFETY: as for the store above: `u32` has no invalid bit patterns, and
                // only the targets the expansion wrote (below `edges`) are read.
                targets: unsafe { stream.alloc::<u32>(edge_capacity.max(1) as usize) }.map_err(cuda)?,
                edges: stream.alloc_zeros::<u64>(1).map_err(cuda)?,
            };
            let g_args = GraphArgs {
                first: ptr(&g.first, &stream),
                degree: ptr(&g.degree, &stream),
                targets: ptr(&g.targets, &stream),
                edges: ptr(&g.edges, &stream),
                capacity: edge_capacity,
                full: ptr(&ctl, &stream) + 4,
                edges_full: ptr(&ctl, &stream) + 24,
            };
            let init = module.load_function("wc_graph_init").map_err(cuda)?;
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_graph_init(WcGraph)`,
            // whose fields `GraphArgs` mirrors, points into the live buffers above.
            unsafe { warpcheck_cuda::launch(&stream, &init, ONE_THREAD, &[&g_args]) }.map_err(cuda)?;
            Some(g)
        }
    };
    let store = Store {
        states,
        parents,
        _table: table,
        _nodes: nodes,
        fill,
        levels,
        slots,
        _spill: spill,
        capacity,
        host_bound,
        reserved,
        ctl,
        counters,
        viol_first,
        viol_count,
        args: Cell::new(args),
    };
    // Every initial state, in the model's order: together they are the first level.
    for state in model.initial_states() {
        let initial = stream.clone_htod(&state).map_err(cuda)?;
        let initial_ptr = ptr(&initial, &stream);
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_seed(WcTable, const u32 *)`,
        // the table's live buffers and the initial state's `WC_WORDS` words, alive until
        // the synchronisation below.
        unsafe { warpcheck_cuda::launch(&stream, &seed, ONE_THREAD, &[&store.args.get(), &initial_ptr]) }
            .map_err(cuda)?;
        stream.synchronize().map_err(cuda)?;
    }
    let setup_seconds = setup_start.elapsed().as_secs_f64();
    let sms = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(cuda)?;

    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let events = (ctx.new_event(timing).map_err(cuda)?, ctx.new_event(timing).map_err(cuda)?);
    let tree = match compressed {
        true => Some(TreeKernels {
            unpack: module.load_function("wc_unpack_ids").map_err(cuda)?,
            find_parent: module.load_function("wc_find_parent").map_err(cuda)?,
        }),
        false => None,
    };
    let run = Run {
        model,
        options,
        stream: &stream,
        expand: &expand,
        advance: &advance,
        store: &store,
        words,
        sms: sms as u32,
        generated: &generated,
        events,
        tuning: tuning.clone(),
        edge_bytes: graph_store.as_ref().map(|g| g.targets.len() as u64 * 4),
        prefix_on_full: graph.is_some_and(|g| g.prefix_on_full),
        tree,
    };
    let explore_start = Instant::now();
    let mut gpu = match run.search(start) {
        Ok(gpu) => gpu,
        Err(error @ (GpuError::Full { states, .. } | GpuError::HostFull { states, .. })) if compressed => {
            let mut taken = [0u64; 2];
            stream.memcpy_dtoh(&store.fill, &mut taken).map_err(cuda)?;
            return Err(Failure { error, observed: Some(Observed { states, nodes: taken[0], budget, host_bytes }) });
        }
        Err(error) => return Err(error.into()),
    };
    drop(run);
    gpu.explore_seconds = explore_start.elapsed().as_secs_f64();
    gpu.device_name = ctx.name().unwrap_or_default();
    gpu.compile_seconds = compile_seconds;
    gpu.compile_cached = compiled.cached;
    gpu.setup_seconds = setup_seconds;
    gpu.capacity = capacity;
    gpu.kernel_registers = expand.num_regs().unwrap_or(-1);
    gpu.kernel_local_bytes = expand.local_size_bytes().unwrap_or(-1);
    if compressed {
        let mut taken = [0u64; 2];
        stream.memcpy_dtoh(&store.fill, &mut taken).map_err(cuda)?;
        let states = gpu.report.table_entries.max(1);
        gpu.store = "compressed";
        gpu.tree_nodes = Some(taken[0]);
        // Hashing spreads the roots evenly: the spilled share of the entries holds that
        // share of them.
        let host_share = spilled as f64 / entries as f64;
        let device_roots = taken[1] as f64 * (1.0 - host_share);
        let root_bytes = layout.entry_bytes() as f64;
        let node_bytes = node_layout.entry_bytes() as f64;
        gpu.bytes_per_state = (node_bytes * taken[0] as f64 + root_bytes * device_roots) / TREE_FILL / states as f64;
        gpu.host_bytes_per_state = 8.0 + root_bytes * taken[1] as f64 * host_share / TREE_FILL / states as f64;
        gpu.host_roots = spilled;
    } else {
        gpu.store = "flat";
        gpu.bytes_per_state = 4.0 * words as f64 + 4.0 + 8.0 * entries as f64 / capacity as f64;
    }
    gpu.report.table_capacity = entries;
    gpu.report.reserved_bytes = reserved;
    gpu.report.seconds = start.elapsed().as_secs_f64();
    let session = Session { ctx, stream, module, store, graph: graph_store, sms: sms as u32, words, tables };
    Ok((gpu, session))
}

/// The CUDA source over the compressed store for states of `order.len()` words (the
/// source's `WC_WORDS`) with word `order[leaf]` at each leaf of the tree
/// ([`crate::leaf_order`]), with the `tuning`'s choices.
pub fn compressed_source(generated: &CudaSource, tuning: &Tuning, order: &[usize]) -> String {
    let defines = if tuning.inline_emit { "#define WC_EMIT_FN __device__ __forceinline__\n" } else { "" };
    format!("{defines}{}", store_source(generated, Some(order)))
}

/// The source of a graph-recording exploration: `WC_GRAPH`, the successor bound
/// (each thread keeps its state's successor ids in a local array of that size), the
/// caller's kernels appended.
pub fn graph_source(source: &str, generated: &CudaSource, spec: &GraphSpec) -> String {
    format!("#define WC_GRAPH\n#define WC_MAX_SUCC {}\n{source}\n{}", generated.max_successors, spec.source)
}

struct Run<'a, M> {
    model: &'a M,
    options: &'a GpuOptions<'a>,
    stream: &'a Arc<CudaStream>,
    expand: &'a CudaFunction,
    advance: &'a CudaFunction,
    store: &'a Store,
    words: usize,
    sms: u32,
    generated: &'a CudaSource,
    /// Timing events around each launch.
    events: (CudaEvent, CudaEvent),
    tuning: Tuning,
    /// With the graph: the bytes of its edge room.
    edge_bytes: Option<u64>,
    /// See [`GraphSpec::prefix_on_full`].
    prefix_on_full: bool,
    /// The compressed store's kernels for counterexamples.
    tree: Option<TreeKernels>,
}

/// The compressed store's kernels that rebuild a counterexample: `wc_find_parent`
/// finds a state's parent in the level before its own, `wc_unpack_ids` unpacks the
/// path's states.
struct TreeKernels {
    unpack: CudaFunction,
    find_parent: CudaFunction,
}

/// The expansion kernel's flags (kernel.cu).
pub const CHECK_DEADLOCK: u32 = 1;
pub(crate) const CHECK_ASSERTIONS: u32 = 2;
const GENERATE_ONLY: u32 = 4;
/// Why the device-driven search stopped (`ctl[4]`, see kernel.cu).
pub(crate) const STOP_DONE: u32 = 1;
pub(crate) const STOP_ROOM: u32 = 2;
pub(crate) const STOP_VIOLATION: u32 = 3;
/// Levels enqueued per round trip to the host.
pub(crate) const LEVELS_PER_BATCH: u32 = 32;

impl<M: CudaModel> Run<'_, M> {
    fn read<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        let mut host = vec![T::default(); s.len()];
        self.stream.memcpy_dtoh(s, &mut host).map_err(cuda)?;
        Ok(host)
    }

    /// Ids as the device wrote them (`words`: a `u32` each, or two, low half first,
    /// when they are 64-bit).
    fn ids_of(&self, words: &[u32]) -> Vec<u64> {
        match self.store.wide() {
            true => words.chunks_exact(2).map(|w| w[0] as u64 | (w[1] as u64) << 32).collect(),
            false => words.iter().map(|&w| w as u64).collect(),
        }
    }

    /// The control block's 8 words.
    fn read_ctl(&self) -> Result<Vec<u64>, GpuError> {
        let mut ids = self.ids_of(&self.read(&self.store.ctl)?);
        ids.truncate(8);
        Ok(ids)
    }

    fn read_one(&self, s: &CudaSlice<u32>, index: usize) -> Result<u32, GpuError> {
        let mut host = [0u32];
        self.stream.memcpy_dtoh(&s.slice(index..index + 1), &mut host).map_err(cuda)?;
        Ok(host[0])
    }

    /// Enqueues the expansion kernel over ids `lo..hi`, or with `device_range` over the
    /// level the control block names (with a grid sized for the whole GPU).
    fn enqueue_expand(&self, lo: u64, hi: u64, device_range: bool, flags: u32) -> Result<(), GpuError> {
        let block = self.tuning.block;
        let most = self.sms * self.tuning.blocks_per_sm;
        let blocks = if device_range { most } else { (hi - lo).div_ceil(block as u64).clamp(1, most as u64) as u32 };
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
        let s = self.store;
        let stream = self.stream;
        let (counters, viol_first, viol_count) =
            (ptr(&s.counters, stream), ptr(&s.viol_first, stream), ptr(&s.viol_count, stream));
        let ctl = if device_range { ptr(&s.ctl, stream) } else { 0u64 };
        let table = s.args.get();
        let (lo32, hi32) = (lo as u32, hi as u32);
        let (lo, hi): (&dyn KernelArg, &dyn KernelArg) = if s.wide() { (&lo, &hi) } else { (&lo32, &hi32) };
        let args: [&dyn KernelArg; 8] = [&table, lo, hi, &ctl, &counters, &viol_first, &viol_count, &flags];
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_expand`'s parameters in
        // kernel.cu's order and types; the addresses are of the run's `Store`, which
        // outlives the search; ids stay below the store's limit (checked room, and the
        // overflow flag otherwise).
        unsafe { warpcheck_cuda::launch(stream, self.expand, cfg, &args) }.map_err(cuda)?;
        Ok(())
    }

    /// Runs `enqueue` between two timing events and waits; returns the GPU time.
    fn timed(&self, enqueue: impl FnOnce() -> Result<(), GpuError>) -> Result<f64, GpuError> {
        let (begin, end) = &self.events;
        begin.record(self.stream).map_err(cuda)?;
        enqueue()?;
        end.record(self.stream).map_err(cuda)?;
        end.synchronize().map_err(cuda)?;
        Ok(begin.elapsed_ms(end).map_err(cuda)? as f64 / 1000.0)
    }

    /// Enqueues `levels` device-driven levels (advance, expand) back to back.
    fn enqueue_levels(&self, levels: u32, flags: u32) -> Result<(), GpuError> {
        let s = self.store;
        let stream = self.stream;
        let (ctl, viol_count) = (ptr(&s.ctl, stream), ptr(&s.viol_count, stream));
        let bound = self.generated.max_successors;
        let categories = s.viol_count.len() as u32;
        let stop = self.options.stop_at_first as u32;
        let table = s.args.get();
        let limit32 = table.limit as u32;
        let limit: &dyn KernelArg = if s.wide() { &table.limit } else { &limit32 };
        for _ in 0..levels {
            let (levels, room) = (table.levels, table.level_room);
            let args: [&dyn KernelArg; 8] = [&ctl, &bound, limit, &viol_count, &categories, &stop, &levels, &room];
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_advance`'s parameters
            // in kernel.cu's order and types, addresses of the run's live `Store`.
            unsafe { warpcheck_cuda::launch(stream, self.advance, ONE_THREAD, &args) }.map_err(cuda)?;
            self.enqueue_expand(0, 0, true, flags)?;
        }
        Ok(())
    }

    fn search(&self, start: Instant) -> Result<GpuReport, GpuError> {
        let checks = &self.options.checks;
        let flags =
            if checks.deadlock { CHECK_DEADLOCK } else { 0 } | if checks.assertions { CHECK_ASSERTIONS } else { 0 };
        let bound = self.generated.max_successors;
        let mut gpu = GpuReport { generate_seconds: self.options.profile.then_some(0.0), ..GpuReport::default() };
        let mut ctl = self.read_ctl()?;
        let mut stopped = false;
        let mut last_progress = Instant::now();
        'levels: loop {
            // Device-driven levels, many per round trip; the host takes over a level only
            // to profile it or to expand it in chunks when the store's room demands it.
            if !self.options.profile {
                gpu.kernel_seconds += self.timed(|| self.enqueue_levels(LEVELS_PER_BATCH, flags))?;
                gpu.launches += 2 * LEVELS_PER_BATCH as u64;
                ctl = self.read_ctl()?;
                if ctl[1] != 0 {
                    return Err(self.overflow(&ctl));
                }
                self.grow_slots_ahead(ctl[0]);
                self.report_progress(&mut last_progress, start, &ctl)?;
                match ctl[4] as u32 {
                    STOP_DONE => break,
                    STOP_VIOLATION => {
                        stopped = true;
                        break;
                    }
                    STOP_ROOM => {
                        // Host slots pinned for the level's successors (at most twice as
                        // many as before): on the device again; else in chunks, below.
                        let (lo, hi) = (ctl[3], ctl[0]);
                        let need = hi + (hi - lo) * bound + 1;
                        if self.grow_slots(need)? >= need {
                            ctl[4] = 0;
                            self.write_ctl(&ctl)?;
                            continue;
                        }
                    }
                    _ => continue,
                }
            } else if self.options.stop_at_first && ctl[5] > 0 && self.any_violation()? {
                stopped = true;
                break;
            }
            let (lo, hi) = (ctl[3], ctl[0]);
            if lo == hi {
                break;
            }
            // The compressed store: the level's first id, as wc_advance notes it.
            if self.tree.is_some() && ctl[5] < LEVEL_ROOM as u64 {
                let at = ptr(&self.store.levels, self.stream) + 8 * ctl[5];
                self.stream.synchronize().map_err(cuda)?;
                // SAFETY: `at` is inside the levels buffer (`LEVEL_ROOM` 64-bit ids) and
                // no kernel is running.
                unsafe { cudarc::driver::result::memcpy_htod_sync(at, &[lo]) }.map_err(cuda)?;
            }
            if let Some(g) = gpu.generate_seconds.as_mut() {
                *g += self.timed(|| self.enqueue_expand(lo, hi, false, flags | GENERATE_ONLY))?;
                gpu.launches += 1;
            }
            let mut found = hi;
            let mut at = lo;
            while at < hi {
                // Room for every successor of the chunk, whatever the table holds.
                let mut limit = self.grow_slots(found + (hi - at) * bound + 1)?;
                // The compressed store: at least one state's successors, pinning more
                // as long as more can be pinned.
                while limit < found + bound + 1 {
                    let grown = self.grow_slots(found + bound + 1)?;
                    if grown == limit {
                        break;
                    }
                    limit = grown;
                }
                let room = limit.saturating_sub(found) / bound;
                if room == 0 && self.prefix_on_full {
                    // States `0..at` are expanded, their successors recorded.
                    gpu.prefix = Some(at);
                    ctl[0] = found;
                    stopped = true;
                    break 'levels;
                }
                if room == 0 {
                    return Err(self.full(found));
                }
                let end = (at + room).min(hi);
                gpu.kernel_seconds += self.timed(|| self.enqueue_expand(at, end, false, flags))?;
                gpu.launches += 1;
                at = end;
                let now = self.read_ctl()?;
                found = now[0];
                if now[1] != 0 {
                    return Err(self.overflow(&now));
                }
            }
            // The level is done: hand the search back to the device.
            ctl = vec![found, 0, lo, hi, 0, ctl[5] + 1, 0, 0];
            self.write_ctl(&ctl)?;
            self.report_progress(&mut last_progress, start, &ctl)?;
        }
        let counters = self.read(&self.store.counters)?;
        gpu.report = report(&counters, ctl[0], ctl[5] as u32, !stopped, self.violations()?);
        Ok(gpu)
    }

    /// Writes the control block (8 words) when no kernel runs.
    fn write_ctl(&self, ctl: &[u64]) -> Result<(), GpuError> {
        let words: Vec<u32> = match self.store.wide() {
            true => ctl[..8].iter().flat_map(|&w| [w as u32, (w >> 32) as u32]).collect(),
            false => ctl[..8].iter().map(|&w| w as u32).collect(),
        };
        self.stream.synchronize().map_err(cuda)?;
        // SAFETY: `ctl` is a 16-word device buffer, `words` at most 16 words, and no
        // kernel is running.
        unsafe { cudarc::driver::result::memcpy_htod_sync(ptr(&self.store.ctl, self.stream), &words) }.map_err(cuda)?;
        Ok(())
    }

    /// The compressed store: pins host slots towards `need` ids, at most twice as many
    /// as are pinned (a bound on successors far above what a level finds must not pin
    /// the whole capacity), and raises the store's limit to them. Returns the limit,
    /// which for the flat store is fixed.
    fn grow_slots(&self, need: u64) -> Result<u64, GpuError> {
        let limit = self.store.args.get().limit;
        let Some(slots) = &self.store.slots else { return Ok(limit) };
        if need <= limit {
            return Ok(limit);
        }
        self.stream.synchronize().map_err(cuda)?;
        let limit = slots.borrow_mut().grow(need.min(2 * limit.max(1)));
        self.store.args.set(TableArgs { limit, ..self.store.args.get() });
        Ok(limit)
    }

    /// The compressed store, between batches of levels: takes slots pinned in the
    /// background, and starts pinning more when half are used.
    fn grow_slots_ahead(&self, found: u64) {
        if let Some(slots) = &self.store.slots {
            let mut slots = slots.borrow_mut();
            slots.grow_ahead(found);
            self.store.args.set(TableArgs { limit: slots.limit(), ..self.store.args.get() });
        }
    }

    fn any_violation(&self) -> Result<bool, GpuError> {
        Ok(self.read(&self.store.viol_count)?.iter().any(|&c| c > 0))
    }

    fn report_progress(&self, last: &mut Instant, start: Instant, ctl: &[u64]) -> Result<(), GpuError> {
        let Some(progress) = self.options.progress else { return Ok(()) };
        if last.elapsed().as_millis() < 250 {
            return Ok(());
        }
        *last = Instant::now();
        let counters = self.read(&self.store.counters)?;
        progress(&Progress {
            states: ctl[0],
            transitions: counters[0],
            level: (ctl[5] as u32).saturating_sub(1),
            seconds: start.elapsed().as_secs_f64(),
            depth_first: false,
        });
        Ok(())
    }

    /// The error for a set overflow flag (`ctl[1]`): edges (`ctl[6]`) or states.
    fn overflow(&self, ctl: &[u64]) -> GpuError {
        let states = ctl[0];
        // Bit 2: a wait for a compressed-store entry another thread was writing ran out
        // (tree.cu's `wc_lo`).
        if ctl[1] & 2 != 0 {
            return GpuError::Cuda(format!(
                "after {states} states, the compressed GPU store waited in vain for an entry another thread \
                 was writing (an internal error of the store; the flat store is not affected)"
            ));
        }
        match self.edge_bytes {
            Some(bytes) if ctl[6] != 0 => GpuError::EdgesFull { states, capacity: bytes / 4, bytes },
            // The compressed store's sets filled before its ids ran out: device memory.
            _ if states < self.store.args.get().limit => self.device_full(states),
            _ => self.full(states),
        }
    }

    /// The error of a store with no room for the successors of the next states: its
    /// host slots (pinned short of the planned states, or bounded by the host's
    /// memory), or its device memory.
    fn full(&self, states: u64) -> GpuError {
        let (store, limit) = (self.store, self.store.args.get().limit);
        if store.slots.is_some() && (limit < store.capacity || store.host_bound || store.spilled() > 0) {
            return GpuError::HostFull { states, capacity: limit };
        }
        self.device_full(states)
    }

    fn device_full(&self, states: u64) -> GpuError {
        if self.store.spilled() > 0 {
            return GpuError::HostFull { states, capacity: self.store.capacity };
        }
        GpuError::Full { states, capacity: self.store.capacity, bytes: self.store.reserved }
    }

    /// The violations found, with a shortest counterexample each.
    fn violations(&self) -> Result<Vec<Violation>, GpuError> {
        let first = self.ids_of(&self.read(&self.store.viol_first)?);
        let counts = self.read(&self.store.viol_count)?;
        let model = self.model;
        let mut found = Vec::new();
        for (category, (&id, &count)) in first.iter().zip(&counts).enumerate() {
            if count == 0 {
                continue;
            }
            let path = self.path_to(id)?;
            let state = path.last().expect("a path has the initial state");
            let kind = violation_kind(self.model, &self.options.checks, category, state)?;
            let error = match kind {
                ViolationKind::EvalError(e) => Some(e),
                _ => None,
            };
            found.push(Violation { kind, count, trace: Some(Trace::build(model, &path, error)) });
        }
        // In the CPU engine's order: deadlock, assertions, invariants, evaluation errors.
        found.sort_by_key(|v| v.kind.category());
        Ok(found)
    }

    /// The compressed store: the ids of a shortest path from an initial state to `id`,
    /// each state's parent the least id of the level before with a step to it.
    fn found_path(&self, tree: &TreeKernels, id: u64) -> Result<Vec<u64>, GpuError> {
        let stream = self.stream;
        let ctl = self.read_ctl()?;
        let started = ctl[5] as usize;
        if started >= LEVEL_ROOM as usize {
            return Err(GpuError::Options(format!(
                "the compressed GPU store rebuilds counterexamples of at most {LEVEL_ROOM} levels; this search has \
                 {started}: use --gpu-store flat or the CPU"
            )));
        }
        // levels[k]: the first id of level k; the last level ends at the states found.
        let mut words = vec![0u32; 2 * started];
        stream.memcpy_dtoh(&self.store.levels.slice(..2 * started), &mut words).map_err(cuda)?;
        let mut starts = self.ids_of(&words);
        starts.push(ctl[0]);
        let level = level_of(&starts, id);
        let mut ids = vec![id];
        let mut found = stream.alloc_zeros::<u64>(1).map_err(cuda)?;
        let found_ptr = ptr(&found, stream);
        let table = self.store.args.get();
        let args = TableArgs { tree: TreeArgs { find_only: 1, ..table.tree }, ..table };
        for k in (0..level).rev() {
            let target = self.root_key(*ids.last().unwrap())?;
            let (lo, hi) = (starts[k], starts[k + 1]);
            stream.memcpy_htod(&[u64::MAX], &mut found).map_err(cuda)?;
            let most = tree.find_parent.max_threads_per_block().map_err(cuda)? as u32;
            let block = self.tuning.block.min(most / 32 * 32).max(32);
            let blocks =
                (hi - lo).div_ceil(block as u64).clamp(1, (self.sms * self.tuning.blocks_per_sm) as u64) as u32;
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_find_parent(WcTable,
            // wc_id, wc_id, u64, wc_id *)` (64-bit ids) with the run's live store (lookups
            // only: `find_only`) and a one-id result buffer.
            unsafe { warpcheck_cuda::launch(stream, &tree.find_parent, cfg, &[&args, &lo, &hi, &target, &found_ptr]) }
                .map_err(cuda)?;
            let mut parent = [0u64];
            stream.memcpy_dtoh(&found, &mut parent).map_err(cuda)?;
            if parent[0] == u64::MAX {
                return Err(GpuError::Cuda(format!("no parent of state {} in level {k}", ids.last().unwrap())));
            }
            ids.push(parent[0]);
        }
        ids.reverse();
        Ok(ids)
    }

    /// The compressed store: the root key of state `id`.
    fn root_key(&self, id: u64) -> Result<u64, GpuError> {
        // No kernel writes the slots while they are read.
        self.stream.synchronize().map_err(cuda)?;
        Ok(self.store.slots.as_ref().expect("the compressed store has slots").borrow_mut().get(id))
    }

    /// The compressed store's states `ids`, unpacked on the device.
    fn unpacked(&self, unpack: &CudaFunction, ids: &[u64]) -> Result<Vec<Vec<u32>>, GpuError> {
        let stream = self.stream;
        let n = ids.len() as u32;
        let on_device = stream.clone_htod(ids).map_err(cuda)?;
        let out = stream.alloc_zeros::<u32>(ids.len() * self.words).map_err(cuda)?;
        let (ids_ptr, out_ptr) = (ptr(&on_device, stream), ptr(&out, stream));
        let cfg = LaunchConfig { grid_dim: (n.div_ceil(128), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_unpack_ids(WcTable,
        // const wc_id *, u32, u32 *)` (64-bit ids) with the run's live store, `n` ids
        // below its count and room for `n` states of `WC_WORDS` words.
        unsafe { warpcheck_cuda::launch(stream, unpack, cfg, &[&self.store.args.get(), &ids_ptr, &n, &out_ptr]) }
            .map_err(cuda)?;
        let mut words = vec![0u32; ids.len() * self.words];
        stream.memcpy_dtoh(&out, &mut words).map_err(cuda)?;
        Ok(words.chunks(self.words).map(|s| s[..self.model.state_words()].to_vec()).collect())
    }

    /// The states from the initial state to state `id`, through the parent links (the
    /// compressed store: found level by level).
    fn path_to(&self, id: u64) -> Result<Vec<Vec<u32>>, GpuError> {
        if let Some(tree) = &self.tree {
            let ids = self.found_path(tree, id)?;
            return self.unpacked(&tree.unpack, &ids);
        }
        let mut ids = vec![id as u32];
        loop {
            let parent = self.read_one(&self.store.parents, *ids.last().unwrap() as usize)?;
            if parent == u32::MAX {
                break;
            }
            ids.push(parent);
        }
        ids.reverse();
        let mut states = Vec::with_capacity(ids.len());
        for &i in &ids {
            let mut state = vec![0u32; self.words];
            let at = i as usize * self.words;
            self.stream.memcpy_dtoh(&self.store.states.slice(at..at + self.words), &mut state).map_err(cuda)?;
            state.truncate(self.model.state_words());
            states.push(state);
        }
        Ok(states)
    }
}

/// The breadth-first level of state `id`, given each level's first id (`starts`, in
/// order, with the end of the last level after them): the last level starting at or
/// before `id`.
fn level_of(starts: &[u64], id: u64) -> usize {
    starts.partition_point(|&first| first <= id).saturating_sub(1)
}

/// The report of a search that stored `states` in `levels` levels, from the kernels'
/// counters (transitions, deadlocks, error steps, accepting states): the steps that
/// raised an evaluation error lead to one more state, the error state, a deadlock.
pub(crate) fn report(counters: &[u64], states: u64, levels: u32, complete: bool, violations: Vec<Violation>) -> Report {
    let error_state = counters[2] > 0;
    Report {
        states: states + error_state as u64,
        transitions: counters[0],
        deadlocks: counters[1] + error_state as u64,
        levels,
        accepting: counters[3],
        error_transitions: counters[2],
        complete,
        violations,
        table_entries: states,
        ..Report::default()
    }
}

/// The violation of `category` (see kernel.cu) at `state`: the device names the
/// category, the CPU executor gives the details.
pub(crate) fn violation_kind<M: CudaModel>(
    model: &M,
    checks: &Checks,
    category: usize,
    state: &[u32],
) -> Result<ViolationKind, GpuError> {
    let assertion_labels = model.assertion_labels();
    let assertions = assertion_labels.len();
    Ok(match category {
        0 => ViolationKind::Deadlock,
        1 => {
            ViolationKind::EvalError(first_error(model, state).ok_or_else(|| {
                GpuError::Cuda("the GPU reported an evaluation error the CPU does not reproduce".into())
            })?)
        }
        c if c < 2 + assertions => {
            let label = assertion_labels[c - 2];
            let error = model.label(state, label).err();
            ViolationKind::Assertion { assertion: label, error }
        }
        c => {
            let invariant = c - 2 - assertions;
            let label = checks.invariants[invariant].label;
            let error = model.label(state, label).err();
            ViolationKind::Invariant { invariant, error }
        }
    })
}

/// The first evaluation error a step from `state` raises.
fn first_error<M: CudaModel>(model: &M, state: &[u32]) -> Option<EvalError> {
    let mut error = None;
    model.successors().successors(state, |_, r| {
        if let (None, Err(e)) = (&error, r) {
            error = Some(e);
        }
    });
    error
}

#[cfg(test)]
mod tests {
    use super::{level_of, GpuError};

    #[test]
    fn a_full_store_says_which_memory_ran_out() {
        let host = GpuError::HostFull { states: 10, capacity: 8 }.to_string();
        assert!(host.contains("host memory is full: with the device's, it has room for 8 states"), "{host}");
        assert!(host.contains("10 were found"), "{host}");
        let device = GpuError::Full { states: 10, capacity: 8, bytes: 64 }.to_string();
        assert!(device.contains("(64 bytes of device memory)"), "{device}");
        assert!(device.contains("--memory"), "{device}");
    }

    #[test]
    fn a_state_is_in_the_last_level_starting_at_or_before_it() {
        // Levels 0..1 (the initial state), 1..5, 5..9; 9 ends the last.
        let starts = [0, 1, 5, 9];
        let levels: Vec<usize> = (0..9).map(|id| level_of(&starts, id)).collect();
        assert_eq!(levels, [0, 1, 1, 1, 1, 2, 2, 2, 2]);
        // Two initial states in level 0.
        assert_eq!(level_of(&[0, 2, 3], 1), 0);
        assert_eq!(level_of(&[0, 2, 3], 2), 1);
    }
}
