//! Exploration over a partitioned state store, on several GPUs of one host or as
//! several partitions of one GPU. Each state is owned by one partition (bits of its
//! hash, `wc_owner` in kernel.cu); partitions are spread round robin over the GPUs.
//! Every partition expands its share of a BFS level, inserting the successors it owns
//! and sending the others, with their parent's id, to their owners, which insert them;
//! a state's parent link also names the parent's partition, so that counterexamples
//! stay shortest.
//!
//! The expansion always appends to local outbox segments, one per owner, so that it
//! writes and counts in its own GPU's memory only. Two ways to deliver them:
//!
//! - **direct** (partitions on one GPU, or GPUs that reach each other's memory): the
//!   owner's receiving kernel reads the senders' outboxes where they are, a tile of
//!   whole lines at a time, and levels run device-driven, 32 per round trip to the
//!   host, the GPUs ordered by events (advance, expand, receive);
//! - **staged** (GPUs without peer access, or `WARPCHECK_GPU_TRANSPORT=nccl|copies`):
//!   the host moves the outboxes into the owners' inboxes after every step
//!   (`transport.rs`: NCCL point-to-point, or device copies).
//!
//! Exactness: a level runs device-driven only if every store can hold every successor
//! of the whole level and every inbox segment every successor of its sender's share
//! (the code generator's bound on successors per state); otherwise the host expands it
//! in chunks that fit. The device flags any overrun besides: no state is dropped.
//!
//! **The product graph** (LTL over partitions, [`explore_partitioned_graph`]): the
//! search records no edges, since a successor another partition owns has no id until
//! its owner inserts it. After the search, `wc_part_edges` expands every partition's
//! states again and looks each successor up in its owner's table (read only, over the
//! GPUs' link where another GPU holds it), writing the adjacency over global ids
//! (a partition's ids follow those of the partitions before it) into one graph on the
//! first GPU, where the cycle detection runs; the parents become global ids there too,
//! so that the stem of a counterexample stays a shortest path.

use std::sync::Arc;
use std::time::Instant;

use super::engine::{
    bind_tables, cuda, device_count, graph_source, ptr, report, tuned_source, violation_kind, GpuError, GpuOptions,
    GpuReport, GraphSpec, TableArgs, Tuning, CHECK_ASSERTIONS, CHECK_DEADLOCK, LEVELS_PER_BATCH, LOAD, STOP_DONE,
    STOP_ROOM, STOP_VIOLATION,
};
use super::partitioned_graph::PartitionedGraph;
use super::transport::{segment, Transport};
use crate::{Progress, Trace, Violation, ViolationKind};
use cudarc::driver::sys::{CUevent_flags, CUresult};
use warpcheck_cuda::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, LaunchConfig,
};
use warpcheck_cuda::{cudarc, grid, nvrtc, KernelArg, ONE_THREAD};
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::LabelId;

/// Share of each partition's memory given to its inbox (and outbox), in percent,
/// unless `WARPCHECK_GPU_EXCHANGE` says otherwise.
const EXCHANGE_PERCENT: u32 = 20;
/// Partitions at most: a parent's partition is one byte.
pub const MAX_PARTITIONS: usize = 256;
/// The control block: [0] states held, [1] store overflow, [2] level start, [3] level
/// end, [4] why the device-driven search stopped, [5] levels, [6] outbox overflow; then
/// one word per other partition: direct, the outbox fills (which the owners read),
/// then the copies of what the others sent it; staged, the inbox fills, then the
/// outbox fills.
const CTL: usize = 8;

/// One GPU of the run: its context, stream, kernels, the model's tables there, and the
/// events that order the GPUs' phases (advance, expand, receive).
pub(crate) struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    expand: CudaFunction,
    receive: CudaFunction,
    gather: CudaFunction,
    advance: CudaFunction,
    seed: CudaFunction,
    pub(crate) blocks: u32,
    pub(crate) block: u32,
    name: String,
    events: [CudaEvent; 3],
    pub(crate) module: Arc<CudaModule>,
    _tables: Vec<CudaSlice<u32>>,
}

/// One partition: its buffers on its GPU and where its level stands on the host.
pub(crate) struct Part {
    pub gpu: usize,
    pub(crate) states: CudaSlice<u32>,
    pub(crate) parents: CudaSlice<u32>,
    pub(crate) parent_parts: CudaSlice<u8>,
    _table: CudaSlice<u64>,
    ctl: CudaSlice<u32>,
    pub(crate) counters: CudaSlice<u64>,
    viol_first: CudaSlice<u32>,
    viol_count: CudaSlice<u64>,
    /// Segments of `room` entries (a state and its parent's id), one per other
    /// partition in partition order; the inbox only when staged.
    pub outbox: CudaSlice<u32>,
    pub inbox: Option<CudaSlice<u32>>,
    /// Device arrays of addresses: where to send to each partition and its fill word;
    /// where to receive from each other partition and its fill word (direct: the
    /// copy `wc_gather_fills` makes of the sender's, at `peer_fill`); every
    /// partition's control block and violation counts (for `wc_advance_parts`).
    out_data: CudaSlice<u64>,
    out_fill: CudaSlice<u64>,
    in_data: CudaSlice<u64>,
    in_fill: CudaSlice<u64>,
    peer_fill: CudaSlice<u64>,
    peer_ctls: CudaSlice<u64>,
    peer_viols: CudaSlice<u64>,
    /// Every partition's count at the last level's start.
    prev: CudaSlice<u32>,
    pub(crate) args: TableArgs,
    /// The level being expanded by the host is ids `at..hi`.
    at: u32,
    hi: u32,
    /// States held, as last read.
    pub(crate) held: u32,
}

/// How the partitions send each other states.
enum Exchange {
    Direct,
    Staged(Transport),
}

/// Explores `model` over `options.partitions` partitions on `options.gpus` GPUs.
pub fn explore_partitioned<M: CudaModel>(model: &M, options: &GpuOptions<'_>) -> Result<GpuReport, GpuError> {
    explore_parts(model, options, None).map(|(report, _)| report)
}

/// Explores `model` over the partitions and GPUs of `options` (with no checks: the
/// graph's user checks it) and gathers its graph on the first GPU, with `spec`'s
/// kernels (which every GPU's module holds) and room for `spec.extra_bytes_per_state`
/// there. With `spec.prefix_on_full`, stores that fill end the search with the graph of
/// the states expanded ([`GpuReport::prefix`]), else with [`GpuError::Full`].
pub fn explore_partitioned_graph<M: CudaModel>(
    model: &M,
    options: &GpuOptions<'_>,
    spec: &GraphSpec,
) -> Result<(GpuReport, PartitionedGraph), GpuError> {
    let graph_only = GpuOptions {
        checks: crate::Checks { deadlock: false, assertions: false, invariants: vec![] },
        stop_at_first: false,
        ..options.clone_settings()
    };
    let (report, graph) = explore_parts(model, &graph_only, Some(spec))?;
    Ok((report, graph.expect("a graph was asked for")))
}

fn explore_parts<M: CudaModel>(
    model: &M,
    options: &GpuOptions<'_>,
    spec: Option<&GraphSpec>,
) -> Result<(GpuReport, Option<PartitionedGraph>), GpuError> {
    let start = Instant::now();
    let present = device_count()? as usize;
    let gpus = options.gpus.max(1);
    if options.device + gpus > present {
        return Err(GpuError::NoDevice(format!(
            "devices {}..{} requested, {present} present",
            options.device,
            options.device + gpus
        )));
    }
    let parts = if options.partitions == 0 { gpus } else { options.partitions };
    if parts > MAX_PARTITIONS {
        return Err(GpuError::Options(format!("at most {MAX_PARTITIONS} partitions, {parts} asked")));
    }
    if options.profile {
        return Err(GpuError::Options("profiling times one GPU and one partition: use --gpus 1".into()));
    }
    let invariants: Vec<LabelId> = options.checks.invariants.iter().map(|i| i.label).collect();
    let generated = model.cuda_source(&invariants)?;
    let tuning = Tuning::from_env();
    let source = match spec {
        Some(spec) => graph_source(&partitioned_source(&generated, &tuning), &generated, spec),
        None => partitioned_source(&generated, &tuning),
    };

    let compile_start = Instant::now();
    let mut devices = Vec::with_capacity(gpus);
    let mut cached = true;
    for g in 0..gpus {
        let (gpu, was_cached) = open_gpu(options.device + g, &source, &generated.tables, &tuning)?;
        cached &= was_cached;
        devices.push(gpu);
    }
    let compile_seconds = compile_start.elapsed().as_secs_f64();

    let setup_start = Instant::now();
    let asked = std::env::var("WARPCHECK_GPU_TRANSPORT").ok();
    let direct = !matches!(asked.as_deref(), Some("nccl" | "copies")) && enable_peer_access(&devices)?;
    let words = model.state_words().max(1);
    let categories = 2 + model.assertion_labels().len() + invariants.len();
    if spec.is_some() && !direct {
        return Err(GpuError::Options(
            "LTL over several GPUs needs them to reach each other's memory (peer access); use --gpus 1".into(),
        ));
    }
    let graph_bytes = spec.map_or(0.0, graph_bytes_per_state);
    let sizing = Sizing::new(&devices, options, parts, words, direct, graph_bytes)?;
    let mut store = Vec::with_capacity(parts);
    for p in 0..parts {
        store.push(Part::alloc(&devices[p % gpus], p % gpus, p, parts, &sizing, categories, direct)?);
    }
    connect(&devices, &mut store, &sizing, direct)?;
    for initial in model.initial_states() {
        for part in &store {
            let gpu = &devices[part.gpu];
            let init = gpu.stream.clone_htod(&initial).map_err(cuda)?;
            let init_ptr = ptr(&init, &gpu.stream);
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_seed(WcTable, const u32 *)`
            // with the partition's live buffers and the initial state's `WC_WORDS` words,
            // alive until the synchronisation below.
            unsafe { warpcheck_cuda::launch(&gpu.stream, &gpu.seed, ONE_THREAD, &[&part.args, &init_ptr]) }
                .map_err(cuda)?;
            gpu.stream.synchronize().map_err(cuda)?;
        }
    }
    let exchange = if direct { Exchange::Direct } else { Exchange::Staged(Transport::new(&devices, &store)?) };
    let setup_seconds = setup_start.elapsed().as_secs_f64();

    let bound = generated.max_successors.max(1);
    let prefix_on_full = spec.is_some_and(|s| s.prefix_on_full);
    let run =
        Run { model, options, devices: &devices, exchange: &exchange, sizing: &sizing, words, bound, prefix_on_full };
    let explore_start = Instant::now();
    let mut gpu = run.search(&mut store, start)?;
    gpu.explore_seconds = explore_start.elapsed().as_secs_f64();
    gpu.device_name = devices[0].name.clone();
    gpu.compile_seconds = compile_seconds;
    gpu.compile_cached = cached;
    gpu.setup_seconds = setup_seconds;
    gpu.capacity = sizing.capacity * parts as u64;
    gpu.kernel_registers = devices[0].expand.num_regs().unwrap_or(-1);
    gpu.kernel_local_bytes = devices[0].expand.local_size_bytes().unwrap_or(-1);
    gpu.bytes_per_state = sizing.bytes as f64 / sizing.capacity as f64;
    gpu.store = "flat";
    gpu.gpus = gpus as u32;
    gpu.partitions = parts as u32;
    gpu.transport = match &exchange {
        Exchange::Direct => "direct",
        Exchange::Staged(t) => t.name(),
    };
    gpu.report.table_capacity = sizing.entries * parts as u64;
    gpu.report.reserved_bytes = sizing.bytes * parts as u64;
    let graph = match spec {
        Some(_) => {
            // A prefix: the states below each partition's `at`; else all.
            let expanded = store.iter().map(|p| if gpu.prefix.is_some() { p.at } else { p.held }).collect();
            Some(PartitionedGraph::build(devices, store, expanded, words, model.state_words())?)
        }
        None => None,
    };
    gpu.report.seconds = start.elapsed().as_secs_f64();
    Ok((gpu, graph))
}

/// The CUDA source of the partitioned search for a model's generated code (for
/// [`super::engine::compile_source_for_device`]).
pub fn partitioned_source(generated: &warpcheck_model::cuda::CudaSource, tuning: &Tuning) -> String {
    format!("#define WC_PARTITIONED\n{}", tuned_source(generated, tuning))
}

/// Creates a context on `device`, compiles (or finds in the cache) and loads the
/// kernels, and uploads the model's tables.
fn open_gpu(
    device: usize,
    source: &str,
    tables: &[warpcheck_model::Table],
    tuning: &Tuning,
) -> Result<(Gpu, bool), GpuError> {
    let ctx = CudaContext::new(device).map_err(cuda)?;
    // SAFETY: every buffer of the run on this GPU is allocated, used and freed on the
    // context's default stream only; the GPUs are ordered by the run's own events and
    // host synchronisations, so no per-buffer event bookkeeping is needed.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx.compute_capability().map_err(cuda)?;
    let compiled = nvrtc::compile(source, (major * 10 + minor) as u32, &tuning.nvrtc_options())?;
    let module = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(compiled.cubin)).map_err(cuda)?;
    let function = |name: &str| module.load_function(name).map_err(cuda);
    let (expand, receive, advance, seed) =
        (function("wc_expand")?, function("wc_receive")?, function("wc_advance_parts")?, function("wc_seed")?);
    let gather = function("wc_gather_fills")?;
    let most_threads = expand.max_threads_per_block().map_err(cuda)? as u32;
    let block = tuning.block.min(most_threads / 32 * 32).max(32);
    let stream = ctx.default_stream();
    let tables = bind_tables(&module, &stream, tables)?;
    let sms = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(cuda)? as u32;
    let event = || ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(cuda);
    let events = [event()?, event()?, event()?];
    let name = ctx.name().unwrap_or_default();
    let gpu = Gpu {
        ctx,
        stream,
        expand,
        receive,
        gather,
        advance,
        seed,
        blocks: sms * tuning.blocks_per_sm,
        block,
        name,
        events,
        module,
        _tables: tables,
    };
    Ok((gpu, compiled.cached))
}

/// Lets every GPU of the run address every other's memory (contexts, and the memory
/// pools the buffers come from); false (and nothing enabled) when some pair cannot.
fn enable_peer_access(devices: &[Gpu]) -> Result<bool, GpuError> {
    use cudarc::driver::sys::{
        cuCtxEnablePeerAccess, cuDeviceCanAccessPeer, cuDeviceGetMemPool, cuMemPoolSetAccess, CUmemAccessDesc,
        CUmemAccess_flags, CUmemLocation, CUmemLocationType, CUmemoryPool,
    };
    let driver = |r: CUresult| r.result().map_err(cuda);
    let others = |a: &Gpu| devices.iter().filter(|b| b.ctx.ordinal() != a.ctx.ordinal()).collect::<Vec<_>>();
    for a in devices {
        for b in others(a) {
            let mut can = 0;
            // SAFETY: both are valid device handles of live contexts; `can` is written.
            driver(unsafe { cuDeviceCanAccessPeer(&mut can, a.ctx.cu_device(), b.ctx.cu_device()) })?;
            if can == 0 {
                return Ok(false);
            }
        }
    }
    for a in devices {
        a.ctx.bind_to_thread().map_err(cuda)?;
        let peers = others(a);
        for b in &peers {
            // SAFETY: `a`'s context is current and `b`'s is live; enabling twice is
            // reported and harmless.
            match unsafe { cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) } {
                CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                e => return Err(cuda(e)),
            }
        }
        if peers.is_empty() {
            continue;
        }
        // The stream-ordered allocations come from the device's memory pool, whose
        // mappings the peers get separately.
        let mut pool: CUmemoryPool = std::ptr::null_mut();
        // SAFETY: a valid device handle; `pool` is written.
        driver(unsafe { cuDeviceGetMemPool(&mut pool, a.ctx.cu_device()) })?;
        let access: Vec<CUmemAccessDesc> = peers
            .iter()
            .map(|b| CUmemAccessDesc {
                location: CUmemLocation {
                    type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: b.ctx.cu_device(),
                },
                flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            })
            .collect();
        // SAFETY: `pool` is the device's live pool and `access` holds `len` descriptors.
        driver(unsafe { cuMemPoolSetAccess(pool, access.as_ptr(), access.len()) })?;
    }
    Ok(true)
}

/// The size of every partition (all alike, sized for the GPU that holds the most).
pub(crate) struct Sizing {
    /// States a partition holds.
    capacity: u64,
    /// Hash table entries of a partition.
    entries: u64,
    /// Entries of an inbox (and outbox) segment.
    pub room: u64,
    /// Words of an entry: the state and its parent's id.
    pub entry_words: usize,
    /// Device bytes of a partition.
    bytes: u64,
}

/// Device bytes per state of a partition: its words, its parent's id and partition,
/// its share of the table.
fn store_bytes_per_state(words: usize) -> f64 {
    4.0 * words as f64 + 4.0 + 1.0 + 8.0 / LOAD
}

/// A partition's budget on the first GPU, which holds `most_parts` partitions of
/// `parts` and, once the search is done and the exchange's share is free again, the
/// graph of every partition's states (`graph_bytes` each) in `b` bytes.
fn beside_graph(b: u64, most_parts: u64, parts: usize, words: usize, graph_bytes: f64, share: f64) -> u64 {
    let per_state = store_bytes_per_state(words);
    let whole = most_parts as f64 * per_state + parts as f64 * graph_bytes;
    (b as f64 * per_state / whole / (1.0 - share)) as u64
}

/// Device bytes per state of the graph on the first GPU: first edge and degree (12),
/// the global parent (4), room for the edges, and what the caller needs besides.
fn graph_bytes_per_state(spec: &GraphSpec) -> f64 {
    12.0 + 4.0 + 4.0 * spec.edges_per_state + spec.extra_bytes_per_state
}

impl Sizing {
    fn new(
        devices: &[Gpu],
        options: &GpuOptions<'_>,
        parts: usize,
        words: usize,
        direct: bool,
        graph_bytes: f64,
    ) -> Result<Sizing, GpuError> {
        let most_parts = parts.div_ceil(devices.len()) as u64;
        let share = std::env::var("WARPCHECK_GPU_EXCHANGE")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(EXCHANGE_PERCENT)
            .clamp(1, 90) as f64
            / 100.0;
        let mut budget = u64::MAX;
        for (g, gpu) in devices.iter().enumerate() {
            let (free, _) = gpu.ctx.mem_get_info().map_err(cuda)?;
            let b = options.memory.unwrap_or((free as f64 * 0.9) as u64).saturating_sub(64 << 20);
            budget = budget.min(b / most_parts);
            if g == 0 && graph_bytes > 0.0 {
                budget = budget.min(beside_graph(b, most_parts, parts, words, graph_bytes, share));
            }
        }
        Sizing::for_budget(budget, parts, words, direct, share)
    }

    /// The partition of `budget` bytes: `share` of it for the inbox (and, staged, the
    /// outbox) segments, the rest for states, parents' ids and partitions, and the table.
    fn for_budget(budget: u64, parts: usize, words: usize, direct: bool, share: f64) -> Result<Sizing, GpuError> {
        let entry_words = words + 1;
        let segments = (parts as u64 - 1) * if direct { 1 } else { 2 };
        let exchange = (budget as f64 * share) as u64;
        let room = (exchange / (segments.max(1) * 4 * entry_words as u64)).min(u32::MAX as u64);
        let per_state = store_bytes_per_state(words);
        let capacity = ((budget.saturating_sub(exchange) as f64 / per_state) as u64).min(u32::MAX as u64 - 4);
        let entries = ((capacity as f64 / LOAD) as u64).max(capacity + 1);
        if capacity < 2 || room == 0 {
            return Err(GpuError::Full { states: 0, capacity, bytes: budget });
        }
        let bytes = capacity * (4 * words as u64 + 5) + entries * 8 + segments * room * 4 * entry_words as u64;
        Ok(Sizing { capacity, entries, room, entry_words, bytes })
    }

    fn segment_words(&self) -> usize {
        self.room as usize * self.entry_words
    }
}

impl Part {
    fn alloc(
        gpu: &Gpu,
        gpu_index: usize,
        own: usize,
        parts: usize,
        sizing: &Sizing,
        categories: usize,
        direct: bool,
    ) -> Result<Part, GpuError> {
        let stream = &gpu.stream;
        let words = sizing.entry_words - 1;
        let segments = (parts - 1) * sizing.segment_words();
        // SAFETY: uninitialised device memory is sound to hold (`u32` and `u8` have no
        // invalid bit patterns); the kernels write a state, its parent and the parent's
        // partition before any is read, and only the entries below a fill are read.
        let alloc32 = |n: usize| unsafe { stream.alloc::<u32>(n.max(1)) }.map_err(cuda);
        let states = alloc32(sizing.capacity as usize * words)?;
        let parents = alloc32(sizing.capacity as usize)?;
        // SAFETY: as above.
        let parent_parts = unsafe { stream.alloc::<u8>(sizing.capacity as usize) }.map_err(cuda)?;
        let outbox = alloc32(segments)?;
        let inbox = if direct { None } else { Some(alloc32(segments)?) };
        let table = stream.alloc_zeros::<u64>(sizing.entries as usize).map_err(cuda)?;
        let ctl = stream.alloc_zeros::<u32>(CTL + 2 * (parts - 1)).map_err(cuda)?;
        let zeros64 = |n: usize| stream.alloc_zeros::<u64>(n).map_err(cuda);
        let control = ptr(&ctl, stream);
        let args = TableArgs {
            states: ptr(&states, stream),
            parents: ptr(&parents, stream),
            table: ptr(&table, stream),
            capacity: sizing.entries,
            count: control,
            full: control + 4,
            limit: sizing.capacity,
            parent_parts: ptr(&parent_parts, stream),
            out_full: control + 4 * 6,
            room: sizing.room as u32,
            own: own as u32,
            parts: parts as u32,
            ..TableArgs::default()
        };
        Ok(Part {
            gpu: gpu_index,
            states,
            parents,
            parent_parts,
            _table: table,
            ctl,
            counters: zeros64(4)?,
            viol_first: stream.clone_htod(&vec![u32::MAX; categories]).map_err(cuda)?,
            viol_count: zeros64(categories)?,
            outbox,
            inbox,
            out_data: zeros64(parts)?,
            out_fill: zeros64(parts)?,
            in_data: zeros64(parts)?,
            in_fill: zeros64(parts)?,
            peer_fill: zeros64(parts)?,
            peer_ctls: zeros64(parts)?,
            peer_viols: zeros64(parts)?,
            prev: stream.alloc_zeros::<u32>(parts).map_err(cuda)?,
            args,
            at: 0,
            hi: 0,
            held: 0,
        })
    }
}

/// Fills every partition's address arrays. A partition sends into its own outbox
/// segment for the owner and counts in its own control block (direct: the first fill
/// words; staged: the second half). It receives from each other partition `from`
/// (segment `s`): direct, `from`'s outbox segment, and the copy of `from`'s fill word
/// for it in its own control block; staged, its own inbox segment `s` and inbox fill
/// `s`, which the host wrote.
fn connect(devices: &[Gpu], store: &mut [Part], sizing: &Sizing, direct: bool) -> Result<(), GpuError> {
    let parts = store.len();
    let addr = |p: &Part, s: &CudaSlice<u32>| ptr(s, &devices[p.gpu].stream);
    let seg_bytes = 4 * sizing.segment_words() as u64;
    let ctls: Vec<u64> = store.iter().map(|p| addr(p, &p.ctl)).collect();
    let viols: Vec<u64> = store.iter().map(|p| ptr(&p.viol_count, &devices[p.gpu].stream)).collect();
    let outboxes: Vec<u64> = store.iter().map(|p| addr(p, &p.outbox)).collect();
    let out_fills = if direct { 0 } else { parts - 1 };
    for p in 0..parts {
        let mut data = vec![0u64; parts];
        let mut fill = vec![0u64; parts];
        for q in (0..parts).filter(|&q| q != p) {
            data[q] = outboxes[p] + segment(p, q) as u64 * seg_bytes;
            fill[q] = ctls[p] + 4 * (CTL + out_fills + segment(p, q)) as u64;
        }
        let mut in_data = vec![0u64; parts];
        let mut in_fill = vec![0u64; parts];
        let mut peer_fill = vec![0u64; parts];
        for from in (0..parts).filter(|&f| f != p) {
            let s = segment(p, from);
            if direct {
                in_data[s] = outboxes[from] + segment(from, p) as u64 * seg_bytes;
                in_fill[s] = ctls[p] + 4 * (CTL + parts - 1 + s) as u64;
                peer_fill[s] = ctls[from] + 4 * (CTL + segment(from, p)) as u64;
            } else {
                let inbox = store[p].inbox.as_ref().expect("staged partitions have inboxes");
                in_data[s] = addr(&store[p], inbox) + s as u64 * seg_bytes;
                in_fill[s] = ctls[p] + 4 * (CTL + s) as u64;
            }
        }
        let part = &mut store[p];
        let stream = &devices[part.gpu].stream;
        stream.memcpy_htod(&data, &mut part.out_data).map_err(cuda)?;
        stream.memcpy_htod(&fill, &mut part.out_fill).map_err(cuda)?;
        stream.memcpy_htod(&in_data, &mut part.in_data).map_err(cuda)?;
        stream.memcpy_htod(&in_fill, &mut part.in_fill).map_err(cuda)?;
        stream.memcpy_htod(&peer_fill, &mut part.peer_fill).map_err(cuda)?;
        stream.memcpy_htod(&ctls, &mut part.peer_ctls).map_err(cuda)?;
        stream.memcpy_htod(&viols, &mut part.peer_viols).map_err(cuda)?;
        part.args.out_data = ptr(&part.out_data, stream);
        part.args.out_fill = ptr(&part.out_fill, stream);
    }
    Ok(())
}

/// States per partition that one host step may expand, given every store's free room
/// (`free`), the bound on successors per state and the room of an inbox segment: all
/// chunks' successors together fit every store, one chunk's fit a segment.
fn chunk(free: &[u64], bound: u64, room: u64) -> u64 {
    let least = free.iter().copied().min().unwrap_or(0);
    (least / (free.len() as u64 * bound)).min(room / bound)
}

struct Run<'a, M> {
    model: &'a M,
    options: &'a GpuOptions<'a>,
    devices: &'a [Gpu],
    exchange: &'a Exchange,
    sizing: &'a Sizing,
    words: usize,
    /// The code generator's bound on successors per state.
    bound: u64,
    /// When the stores fill, end with the states expanded so far ([`GraphSpec::prefix_on_full`]).
    prefix_on_full: bool,
}

impl<M: CudaModel> Run<'_, M> {
    fn stream(&self, part: &Part) -> &Arc<CudaStream> {
        &self.devices[part.gpu].stream
    }

    fn read<T: DeviceRepr + Default + Clone>(&self, part: &Part, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        let mut host = vec![T::default(); s.len()];
        self.stream(part).memcpy_dtoh(s, &mut host).map_err(cuda)?;
        Ok(host)
    }

    fn read_one<T: DeviceRepr + Default + Clone>(
        &self,
        part: &Part,
        s: &CudaSlice<T>,
        at: usize,
    ) -> Result<T, GpuError> {
        let mut host = [T::default()];
        self.stream(part).memcpy_dtoh(&s.slice(at..at + 1), &mut host).map_err(cuda)?;
        Ok(host[0].clone())
    }

    fn synchronize(&self) -> Result<(), GpuError> {
        self.devices.iter().try_for_each(|g| g.stream.synchronize().map_err(cuda))
    }

    /// Reads every partition's control block (after a synchronisation): updates the
    /// states held and fails on an overflow. Returns the control blocks.
    fn read_control(&self, store: &mut [Part]) -> Result<Vec<Vec<u32>>, GpuError> {
        let mut ctls = Vec::with_capacity(store.len());
        let mut full = false;
        for part in store.iter_mut() {
            let ctl = self.read(part, &part.ctl)?;
            part.held = ctl[0].min(part.args.limit as u32);
            full |= ctl[1] != 0;
            if ctl[6] != 0 {
                return Err(GpuError::Cuda("a partition's inbox overflowed despite the host's bound".into()));
            }
            ctls.push(ctl);
        }
        if full {
            return Err(self.full(store));
        }
        Ok(ctls)
    }

    fn full(&self, store: &[Part]) -> GpuError {
        let parts = store.len() as u64;
        GpuError::Full {
            states: store.iter().map(|p| p.held as u64).sum(),
            capacity: self.sizing.capacity * parts,
            bytes: self.sizing.bytes * parts,
        }
    }

    /// States per partition that one host step may expand: all their successors fit
    /// every inbox segment and every store (0 when not even one state's do).
    fn chunk(&self, store: &[Part]) -> u64 {
        let free: Vec<u64> = store.iter().map(|p| p.args.limit - p.held as u64).collect();
        chunk(&free, self.bound, self.sizing.room)
    }

    fn flags(&self) -> u32 {
        let checks = &self.options.checks;
        (if checks.deadlock { CHECK_DEADLOCK } else { 0 }) | if checks.assertions { CHECK_ASSERTIONS } else { 0 }
    }

    /// Enqueues the expansion of ids `lo..hi` of `part`, or with `device_range` of
    /// the level its control block names.
    fn enqueue_expand(&self, part: &Part, lo: u32, hi: u32, device_range: bool) -> Result<(), GpuError> {
        let gpu = &self.devices[part.gpu];
        let stream = &gpu.stream;
        let cfg = if device_range {
            grid(u64::MAX, gpu.block, gpu.blocks)
        } else {
            grid((hi - lo) as u64, gpu.block, gpu.blocks)
        };
        let ctl = if device_range { ptr(&part.ctl, stream) } else { 0 };
        let (counters, viol_first, viol_count) =
            (ptr(&part.counters, stream), ptr(&part.viol_first, stream), ptr(&part.viol_count, stream));
        let flags = self.flags();
        let args: [&dyn KernelArg; 8] = [&part.args, &lo, &hi, &ctl, &counters, &viol_first, &viol_count, &flags];
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_expand`'s parameters in
        // kernel.cu's order and types, addresses of the partitions' live buffers; every
        // store and inbox has room for every successor (`wc_advance_parts` or `chunk`
        // checked), and the device flags an overrun otherwise.
        unsafe { warpcheck_cuda::launch(stream, &gpu.expand, cfg, &args) }.map_err(cuda)?;
        Ok(())
    }

    /// Enqueues the insertion of what the other partitions sent `part` (`items`
    /// entries; `None`: as many as the device says, device-driven).
    fn enqueue_receive(&self, part: &Part, items: Option<u64>) -> Result<(), GpuError> {
        let gpu = &self.devices[part.gpu];
        let stream = &gpu.stream;
        let ctl = if items.is_none() { ptr(&part.ctl, stream) } else { 0 };
        let senders = part.args.parts - 1;
        if let Exchange::Direct = self.exchange {
            let (local, remote) =
                (ptr(&part.ctl, stream) + 4 * (CTL as u64 + senders as u64), ptr(&part.peer_fill, stream));
            let args: [&dyn KernelArg; 4] = [&ctl, &local, &remote, &senders];
            let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (senders, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_gather_fills(const
            // u32 *, u32 *, const u32 *const *, u32)`; `local` is the second half of the
            // partition's live control block, `remote` names the senders' fill words,
            // readable from this GPU; one thread per sender.
            unsafe { warpcheck_cuda::launch(stream, &gpu.gather, cfg, &args) }.map_err(cuda)?;
        }
        let (data, fill) = (ptr(&part.in_data, stream), ptr(&part.in_fill, stream));
        let args: [&dyn KernelArg; 4] = [&part.args, &ctl, &data, &fill];
        let cfg = grid(items.unwrap_or(u64::MAX), gpu.block, gpu.blocks);
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_receive(WcTable, const
        // u32 *, const u32 *const *, const u32 *const *)`; the address arrays name live
        // segments and fill words of every sender, readable from this GPU (one GPU, peer
        // access enabled, or the own inbox); the fills count entries written below
        // `room` (the device flags more).
        unsafe { warpcheck_cuda::launch(stream, &gpu.receive, cfg, &args) }.map_err(cuda)?;
        Ok(())
    }

    /// Makes every GPU's stream wait for event `which` of every other GPU.
    fn barrier(&self, which: usize) -> Result<(), GpuError> {
        if self.devices.len() < 2 {
            return Ok(());
        }
        for gpu in self.devices {
            gpu.events[which].record(&gpu.stream).map_err(cuda)?;
        }
        for (g, gpu) in self.devices.iter().enumerate() {
            for (_, other) in self.devices.iter().enumerate().filter(|(h, _)| *h != g) {
                gpu.stream.wait(&other.events[which]).map_err(cuda)?;
            }
        }
        Ok(())
    }

    /// Enqueues `levels` device-driven levels: advance, expand and receive in every
    /// partition, each phase after the previous one on every GPU.
    fn enqueue_levels(&self, store: &mut [Part], levels: u32) -> Result<(), GpuError> {
        let categories = store[0].viol_count.len() as u32;
        let stop = self.options.stop_at_first as u32;
        for _ in 0..levels {
            for part in store.iter() {
                let gpu = &self.devices[part.gpu];
                let s = &gpu.stream;
                let (ctl, ctls, viols, prev) =
                    (ptr(&part.ctl, s), ptr(&part.peer_ctls, s), ptr(&part.peer_viols, s), ptr(&part.prev, s));
                let args: [&dyn KernelArg; 8] =
                    [&part.args, &ctl, &ctls, &viols, &categories, &stop, &prev, &self.bound];
                // SAFETY: `warpcheck_cuda::launch`'s contract holds: `wc_advance_parts`'s
                // parameters in kernel.cu's order and types; the address arrays name
                // live buffers of every partition, readable from this GPU (one GPU, or
                // peer access enabled).
                unsafe { warpcheck_cuda::launch(s, &gpu.advance, ONE_THREAD, &args) }.map_err(cuda)?;
            }
            self.barrier(0)?;
            for part in store.iter() {
                self.enqueue_expand(part, 0, 0, true)?;
            }
            self.barrier(1)?;
            for part in store.iter() {
                self.enqueue_receive(part, None)?;
            }
            self.barrier(2)?;
        }
        Ok(())
    }

    fn search(&self, store: &mut [Part], start: Instant) -> Result<GpuReport, GpuError> {
        let mut gpu = GpuReport::default();
        self.read_control(store)?;
        let mut levels = 0u32;
        let mut stopped = false;
        let mut last_progress = Instant::now();
        loop {
            if matches!(self.exchange, Exchange::Direct) {
                let batch = Instant::now();
                self.enqueue_levels(store, LEVELS_PER_BATCH)?;
                self.synchronize()?;
                gpu.launches += 3 * LEVELS_PER_BATCH as u64 * store.len() as u64;
                gpu.kernel_seconds += batch.elapsed().as_secs_f64();
                let ctls = self.read_control(store)?;
                levels = ctls[0][5];
                self.report_progress(store, &mut last_progress, start, levels)?;
                match ctls[0][4] {
                    STOP_DONE => break,
                    STOP_VIOLATION => {
                        stopped = true;
                        break;
                    }
                    STOP_ROOM => {
                        let prev = self.read(&store[0], &store[0].prev)?;
                        for (part, &p) in store.iter_mut().zip(&prev) {
                            part.at = p;
                            part.hi = part.held;
                        }
                    }
                    _ => continue,
                }
            } else {
                // Staged: every level from the host, its start where the last ended.
                for part in store.iter_mut() {
                    part.at = part.hi;
                    part.hi = part.held;
                }
                if store.iter().all(|p| p.at == p.hi) {
                    break;
                }
                if self.options.stop_at_first && self.any_violation(store)? {
                    stopped = true;
                    break;
                }
            }
            if !self.host_level(store, &mut gpu)? {
                if !self.prefix_on_full {
                    return Err(self.full(store));
                }
                // Every partition's states below `at` are expanded, their successors
                // all stored: the graph's breadth-first prefix.
                gpu.prefix = Some(store.iter().map(|p| p.at as u64).sum());
                break;
            }
            levels += 1;
            self.report_progress(store, &mut last_progress, start, levels)?;
            if let Exchange::Direct = self.exchange {
                // Hand the search back to the device: the level just done starts its next.
                let prev: Vec<u32> = store.iter().map(|p| p.hi).collect();
                for part in store.iter_mut() {
                    let stream = &self.devices[part.gpu].stream;
                    stream.memcpy_htod(&prev, &mut part.prev).map_err(cuda)?;
                    stream.memcpy_htod(&[0, levels], &mut part.ctl.slice_mut(4..6)).map_err(cuda)?;
                }
                self.synchronize()?;
            }
        }
        let mut counters = [0u64; 4];
        for part in store.iter() {
            for (sum, c) in counters.iter_mut().zip(self.read(part, &part.counters)?) {
                *sum += c;
            }
        }
        let states: u64 = store.iter().map(|p| p.held as u64).sum();
        let complete = !stopped && gpu.prefix.is_none();
        gpu.report = report(&counters, states, levels, complete, self.violations(store)?);
        Ok(gpu)
    }

    /// Expands the level `at..hi` of every partition from the host, in chunks whose
    /// successors fit; staged, moving the outboxes after each. False when the stores
    /// have no room for the next chunk's successors (every state below `at` is then
    /// expanded, with all its successors stored).
    fn host_level(&self, store: &mut [Part], gpu: &mut GpuReport) -> Result<bool, GpuError> {
        let parts = store.len();
        while store.iter().any(|p| p.at < p.hi) {
            let chunk = self.chunk(store);
            if chunk == 0 {
                return Ok(false);
            }
            let expand_start = Instant::now();
            for part in store.iter_mut() {
                if part.at < part.hi {
                    let end = (part.at as u64 + chunk).min(part.hi as u64) as u32;
                    self.enqueue_expand(part, part.at, end, false)?;
                    gpu.launches += 1;
                    part.at = end;
                }
            }
            self.synchronize()?;
            let ctls = self.read_control(store)?;
            gpu.kernel_seconds += expand_start.elapsed().as_secs_f64();
            let exchange_start = Instant::now();
            // Entries each partition received, from the fills (direct) or the outbox
            // fills (staged, after the transport moved them).
            let mut received = vec![0u64; parts];
            if let Exchange::Staged(transport) = self.exchange {
                let sent: Vec<Vec<u32>> =
                    ctls.iter().map(|c| c[CTL + parts - 1..CTL + 2 * (parts - 1)].to_vec()).collect();
                transport.exchange(self.devices, store, &sent, self.sizing)?;
                for (to, part) in store.iter_mut().enumerate() {
                    let fills: Vec<u32> =
                        (0..parts).filter(|&f| f != to).map(|from| sent[from][segment(from, to)]).collect();
                    received[to] = fills.iter().map(|&n| n as u64).sum();
                    let stream = &self.devices[part.gpu].stream;
                    stream.memcpy_htod(&fills, &mut part.ctl.slice_mut(CTL..CTL + parts - 1)).map_err(cuda)?;
                }
            } else {
                for (to, r) in received.iter_mut().enumerate() {
                    *r = (0..parts).filter(|&f| f != to).map(|f| ctls[f][CTL + segment(f, to)] as u64).sum();
                }
            }
            for (part, &n) in store.iter().zip(&received) {
                if n > 0 {
                    self.enqueue_receive(part, Some(n))?;
                    gpu.launches += 1;
                }
            }
            self.synchronize()?;
            self.read_control(store)?;
            // Every receive is done: clear the fills for the next step.
            for part in store.iter_mut() {
                let stream = &self.devices[part.gpu].stream;
                stream.memset_zeros(&mut part.ctl.slice_mut(CTL..CTL + 2 * (parts - 1))).map_err(cuda)?;
            }
            gpu.exchange_seconds += exchange_start.elapsed().as_secs_f64();
        }
        Ok(true)
    }

    fn any_violation(&self, store: &[Part]) -> Result<bool, GpuError> {
        for part in store {
            if self.read(part, &part.viol_count)?.iter().any(|&c| c > 0) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn report_progress(&self, store: &[Part], last: &mut Instant, start: Instant, levels: u32) -> Result<(), GpuError> {
        let Some(progress) = self.options.progress else { return Ok(()) };
        if last.elapsed().as_millis() < 250 {
            return Ok(());
        }
        *last = Instant::now();
        let mut transitions = 0;
        for part in store {
            transitions += self.read_one(part, &part.counters, 0)?;
        }
        progress(&Progress {
            states: store.iter().map(|p| p.held as u64).sum(),
            transitions,
            level: levels.saturating_sub(1),
            seconds: start.elapsed().as_secs_f64(),
            depth_first: false,
        });
        Ok(())
    }

    /// The violations found, each with a shortest counterexample: per category, the
    /// shortest of the partitions' first violating states.
    fn violations(&self, store: &[Part]) -> Result<Vec<Violation>, GpuError> {
        let mut firsts = Vec::with_capacity(store.len());
        for part in store {
            firsts.push((self.read(part, &part.viol_first)?, self.read(part, &part.viol_count)?));
        }
        let categories = firsts.first().map_or(0, |(f, _)| f.len());
        let mut found = Vec::new();
        for category in 0..categories {
            let count: u64 = firsts.iter().map(|(_, c)| c[category]).sum();
            if count == 0 {
                continue;
            }
            let mut shortest: Option<Vec<Vec<u32>>> = None;
            for (p, (first, counts)) in firsts.iter().enumerate() {
                if counts[category] > 0 {
                    let path = self.path_to(store, p, first[category])?;
                    if shortest.as_ref().is_none_or(|s| path.len() < s.len()) {
                        shortest = Some(path);
                    }
                }
            }
            let path = shortest.expect("a category with a count has a first state");
            let state = path.last().expect("a path has the initial state");
            let kind = violation_kind(self.model, &self.options.checks, category, state)?;
            let error = match kind {
                ViolationKind::EvalError(e) => Some(e),
                _ => None,
            };
            found.push(Violation { kind, count, trace: Some(Trace::build(self.model, &path, error)) });
        }
        found.sort_by_key(|v| v.kind.category());
        Ok(found)
    }

    /// The states from the initial state to state `id` of partition `part`, through
    /// the parent links across partitions.
    fn path_to(&self, store: &[Part], part: usize, id: u32) -> Result<Vec<Vec<u32>>, GpuError> {
        let states_held: u64 = store.iter().map(|p| p.held as u64).sum();
        let mut ids = vec![(part, id)];
        loop {
            let (p, i) = *ids.last().expect("not empty");
            let parent = self.read_one(&store[p], &store[p].parents, i as usize)?;
            if parent == u32::MAX {
                break;
            }
            let parent_part = self.read_one(&store[p], &store[p].parent_parts, i as usize)? as usize;
            if parent_part >= store.len() || ids.len() as u64 > states_held {
                return Err(GpuError::Cuda("a broken parent link in the partitioned store".into()));
            }
            ids.push((parent_part, parent));
        }
        let mut states = Vec::with_capacity(ids.len());
        for &(p, i) in ids.iter().rev() {
            let mut state = vec![0u32; self.words];
            let at = i as usize * self.words;
            let part = &store[p];
            self.stream(part).memcpy_dtoh(&part.states.slice(at..at + self.words), &mut state).map_err(cuda)?;
            state.truncate(self.model.state_words());
            states.push(state);
        }
        Ok(states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_fits_its_budget_and_the_exchange_its_share() {
        for (budget, parts, words, direct) in
            [(80u64 << 30, 4, 5, true), (80 << 30, 4, 5, false), (1 << 30, 2, 1, true), (20 << 30, 8, 17, true)]
        {
            let s = Sizing::for_budget(budget, parts, words, direct, 0.2).unwrap();
            assert!(s.bytes <= budget, "{budget} {parts} {words}: {} bytes", s.bytes);
            let segments = (parts as u64 - 1) * if direct { 1 } else { 2 };
            let exchange = segments * s.room * 4 * s.entry_words as u64;
            assert!(exchange <= budget / 5 && exchange > budget / 5 - segments * 4 * s.entry_words as u64);
            assert!(s.entries > s.capacity && s.capacity as f64 >= 0.74 * s.entries as f64);
        }
        // Direct partitions need no outbox: twice the room per segment.
        let direct = Sizing::for_budget(8 << 30, 3, 4, true, 0.2).unwrap();
        let staged = Sizing::for_budget(8 << 30, 3, 4, false, 0.2).unwrap();
        assert_eq!(direct.room / 2, staged.room);
        assert!(matches!(Sizing::for_budget(50, 2, 4, true, 0.2), Err(GpuError::Full { .. })));
    }

    /// The first GPU's partitions and the graph of all partitions' states fit its
    /// memory together (after the search: the exchange's share freed).
    #[test]
    fn the_first_gpu_holds_its_partitions_and_the_graph() {
        let graph = 12.0 + 4.0 + 4.0 * 4.0 + 17.0;
        for (b, most, parts, words) in [(80u64 << 30, 3u64, 3, 5), (80 << 30, 1, 4, 17), (1 << 30, 2, 8, 1)] {
            let budget = beside_graph(b, most, parts, words, graph, 0.2);
            let s = Sizing::for_budget(budget, parts, words, true, 0.2).unwrap();
            let stores = most as f64 * s.capacity as f64 * store_bytes_per_state(words);
            let graphs = (parts as u64 * s.capacity) as f64 * graph;
            assert!(stores + graphs <= b as f64, "{b} {most} {parts} {words}: {stores} + {graphs}");
            assert!(stores + graphs >= 0.95 * b as f64, "{b} {most} {parts} {words}: most of it used");
            assert!(s.bytes * most <= b, "during the search too");
        }
    }

    #[test]
    fn chunks_are_the_largest_whose_successors_fit() {
        for (free, bound, room) in
            [(vec![1000u64, 5000, 700], 7u64, 10_000u64), (vec![1 << 40; 4], 3, 500), (vec![10, 10], 20, 100)]
        {
            let c = chunk(&free, bound, room);
            let parts = free.len() as u64;
            let fits = |c: u64| parts * c * bound <= *free.iter().min().unwrap() && c * bound <= room;
            assert!(fits(c) && !fits(c + 1), "{free:?} {bound} {room}: {c}");
        }
    }
}
