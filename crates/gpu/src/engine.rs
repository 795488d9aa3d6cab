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

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use warpcheck_explore::{Checks, Progress, Report, Trace, Violation, ViolationKind};
use warpcheck_model::ir::Expr;
use warpcheck_model::{EvalError, Generator, Model};

use crate::codegen::{self, Generated};
use crate::nvrtc;

/// Target load of the hash table: it has `1/LOAD` entries per state the store holds.
const LOAD: f64 = 0.75;
/// Threads per block.
const BLOCK: u32 = 256;

/// How to explore on the GPU.
pub struct GpuOptions<'a> {
    /// CUDA device ordinal.
    pub device: usize,
    /// Device memory to use for the state store, in bytes (default: 90% of the free
    /// memory).
    pub memory: Option<u64>,
    pub checks: Checks,
    pub stop_at_first: bool,
    /// Also time successor generation alone (one extra launch per level).
    pub profile: bool,
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

impl Default for GpuOptions<'_> {
    fn default() -> Self {
        GpuOptions {
            device: 0,
            memory: None,
            checks: Checks::default(),
            stop_at_first: true,
            profile: false,
            progress: None,
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
    /// Device bytes per stored state: the state, its parent and its share of the table.
    pub bytes_per_state: f64,
    /// States the store could hold.
    pub capacity: u64,
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
    Unsupported(#[from] codegen::Unsupported),
    #[error(
        "the GPU state store is full: it holds {capacity} states ({bytes} bytes of device memory) and {states} \
         were found before the last level could be expanded; give more device memory (--memory) or use the CPU"
    )]
    Full { states: u64, capacity: u64, bytes: u64 },
}

fn cuda<E: std::fmt::Debug>(e: E) -> GpuError {
    GpuError::Cuda(format!("{e:?}"))
}

/// Whether a CUDA driver and at least one device are present.
pub fn device_available() -> bool {
    device_count().is_ok_and(|n| n > 0)
}

fn device_count() -> Result<i32, GpuError> {
    // Dynamic loading panics on use when the library is missing: ask first.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(GpuError::NoDevice("the CUDA driver library (libcuda) is not installed".into()));
    }
    cudarc::driver::result::init()
        .map_err(|e| GpuError::NoDevice(format!("the CUDA driver failed to start: {e:?}")))?;
    CudaContext::device_count().map_err(|e| GpuError::NoDevice(format!("{e:?}")))
}

/// The state-store arguments of the kernels (`struct WcTable` in kernel.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct TableArgs {
    states: u64,
    parents: u64,
    table: u64,
    capacity: u64,
    count: u64,
    full: u64,
    limit: u32,
}

unsafe impl DeviceRepr for TableArgs {}

/// Compiles (or finds in the cache) the kernels of `model` with `invariants` for
/// `device`, without exploring: lets a caller compile many models in parallel first.
pub fn compile_for_device(model: &Model, invariants: &[Expr], device: usize) -> Result<nvrtc::Compiled, GpuError> {
    device_count()?;
    let generated = codegen::generate(model, invariants)?;
    let ctx = CudaContext::new(device).map_err(cuda)?;
    let (major, minor) = ctx.compute_capability().map_err(cuda)?;
    nvrtc::compile(&cuda_source(&generated), (major * 10 + minor) as u32).map_err(GpuError::Compile)
}

/// The complete CUDA source for a model: kernels around the generated functions.
pub fn cuda_source(generated: &Generated) -> String {
    let kernel = include_str!("kernel.cu");
    kernel.replacen("// @@MODEL@@", &generated.source, 1)
}

/// Device buffers of one run.
struct Store {
    states: CudaSlice<u32>,
    parents: CudaSlice<u32>,
    _table: CudaSlice<u64>,
    /// The next free state id, then the overflow flag: read together after each launch.
    status: CudaSlice<u32>,
    counters: CudaSlice<u64>,
    viol_first: CudaSlice<u32>,
    viol_count: CudaSlice<u64>,
    args: TableArgs,
}

fn ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _sync) = s.device_ptr(stream);
    p
}

/// Explores `model` breadth first on the GPU.
pub fn explore_gpu(model: &Model, options: &GpuOptions<'_>) -> Result<GpuReport, GpuError> {
    let start = Instant::now();
    let count = device_count()?;
    if options.device >= count as usize {
        return Err(GpuError::NoDevice(format!("device {} requested, {count} present", options.device)));
    }
    let invariants: Vec<_> = options.checks.invariants.iter().map(|i| i.expr.clone()).collect();
    let generated = codegen::generate(model, &invariants)?;
    let ctx = CudaContext::new(options.device).map_err(cuda)?;
    // One stream, synchronised by hand: no per-buffer event bookkeeping.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx.compute_capability().map_err(cuda)?;
    let compile_start = Instant::now();
    let compiled = nvrtc::compile(&cuda_source(&generated), (major * 10 + minor) as u32).map_err(GpuError::Compile)?;
    let compile_seconds = compile_start.elapsed().as_secs_f64();
    let setup_start = Instant::now();
    let module = ctx.load_module(Ptx::from_binary(compiled.cubin)).map_err(cuda)?;
    let expand = module.load_function("wc_expand").map_err(cuda)?;
    let seed = module.load_function("wc_seed").map_err(cuda)?;
    let stream = ctx.default_stream();
    let words = model.state_words().max(1);
    let categories = 2 + model.assertions.len() + invariants.len();

    // Size the store: every state costs its words, its parent and 1/LOAD table entries.
    let (free, _) = ctx.mem_get_info().map_err(cuda)?;
    let budget = options.memory.unwrap_or((free as f64 * 0.9) as u64).saturating_sub(64 << 20);
    let per_state = 4.0 * words as f64 + 4.0 + 8.0 / LOAD;
    let capacity = ((budget as f64 / per_state) as u64).min(u32::MAX as u64 - 2);
    let entries = ((capacity as f64 / LOAD) as u64).max(capacity + 1);
    if capacity < 2 {
        return Err(GpuError::Full { states: 0, capacity, bytes: budget });
    }
    let alloc = |n: usize| unsafe { stream.alloc::<u32>(n) }.map_err(cuda);
    let states = alloc(capacity as usize * words)?;
    let parents = alloc(capacity as usize)?;
    let table = stream.alloc_zeros::<u64>(entries as usize).map_err(cuda)?;
    let status = stream.alloc_zeros::<u32>(2).map_err(cuda)?;
    let counters = stream.alloc_zeros::<u64>(4).map_err(cuda)?;
    let viol_first = stream.clone_htod(&vec![u32::MAX; categories]).map_err(cuda)?;
    let viol_count = stream.alloc_zeros::<u64>(categories).map_err(cuda)?;
    let args = TableArgs {
        states: ptr(&states, &stream),
        parents: ptr(&parents, &stream),
        table: ptr(&table, &stream),
        capacity: entries,
        count: ptr(&status, &stream),
        full: ptr(&status, &stream) + 4,
        limit: capacity as u32,
    };
    let store = Store { states, parents, _table: table, status, counters, viol_first, viol_count, args };
    let initial = stream.clone_htod(&model.initial_state()).map_err(cuda)?;
    unsafe { stream.launch_builder(&seed).arg(&store.args).arg(&initial).launch(LaunchConfig::for_num_elems(1)) }
        .map_err(cuda)?;
    stream.synchronize().map_err(cuda)?;
    let setup_seconds = setup_start.elapsed().as_secs_f64();
    let sms = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(cuda)?;

    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let events = (ctx.new_event(timing).map_err(cuda)?, ctx.new_event(timing).map_err(cuda)?);
    let run = Run {
        model,
        options,
        stream: &stream,
        expand: &expand,
        store: &store,
        words,
        sms: sms as u32,
        generated: &generated,
        events,
    };
    let explore_start = Instant::now();
    let mut gpu = run.search(start)?;
    gpu.explore_seconds = explore_start.elapsed().as_secs_f64();
    gpu.device_name = ctx.name().unwrap_or_default();
    gpu.compile_seconds = compile_seconds;
    gpu.compile_cached = compiled.cached;
    gpu.setup_seconds = setup_seconds;
    gpu.capacity = capacity;
    gpu.bytes_per_state = 4.0 * words as f64 + 4.0 + 8.0 * entries as f64 / capacity as f64;
    gpu.report.table_capacity = entries;
    gpu.report.reserved_bytes = capacity * (4 * words as u64 + 4) + entries * 8;
    gpu.report.seconds = start.elapsed().as_secs_f64();
    Ok(gpu)
}

struct Run<'a> {
    model: &'a Model,
    options: &'a GpuOptions<'a>,
    stream: &'a Arc<CudaStream>,
    expand: &'a CudaFunction,
    store: &'a Store,
    words: usize,
    sms: u32,
    generated: &'a Generated,
    /// Timing events around each launch.
    events: (CudaEvent, CudaEvent),
}

const CHECK_DEADLOCK: u32 = 1;
const CHECK_ASSERTIONS: u32 = 2;
const GENERATE_ONLY: u32 = 4;

impl Run<'_> {
    fn read<T: DeviceRepr + Default + Clone>(&self, s: &CudaSlice<T>) -> Result<Vec<T>, GpuError> {
        let mut host = vec![T::default(); s.len()];
        self.stream.memcpy_dtoh(s, &mut host).map_err(cuda)?;
        Ok(host)
    }

    fn read_one(&self, s: &CudaSlice<u32>, index: usize) -> Result<u32, GpuError> {
        let mut host = [0u32];
        self.stream.memcpy_dtoh(&s.slice(index..index + 1), &mut host).map_err(cuda)?;
        Ok(host[0])
    }

    /// One launch of the expansion kernel over ids `lo..hi`; returns its kernel time.
    fn launch(&self, lo: u32, hi: u32, flags: u32) -> Result<f64, GpuError> {
        let n = hi - lo;
        let blocks = n.div_ceil(BLOCK).clamp(1, self.sms * 16);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let (begin, end) = &self.events;
        begin.record(self.stream).map_err(cuda)?;
        let s = self.store;
        let (counters, viol_first, viol_count) =
            (ptr(&s.counters, self.stream), ptr(&s.viol_first, self.stream), ptr(&s.viol_count, self.stream));
        unsafe {
            self.stream
                .launch_builder(self.expand)
                .arg(&s.args)
                .arg(&lo)
                .arg(&hi)
                .arg(&counters)
                .arg(&viol_first)
                .arg(&viol_count)
                .arg(&flags)
                .launch(cfg)
        }
        .map_err(cuda)?;
        end.record(self.stream).map_err(cuda)?;
        end.synchronize().map_err(cuda)?;
        Ok(begin.elapsed_ms(end).map_err(cuda)? as f64 / 1000.0)
    }

    fn search(&self, start: Instant) -> Result<GpuReport, GpuError> {
        let checks = &self.options.checks;
        let flags =
            if checks.deadlock { CHECK_DEADLOCK } else { 0 } | if checks.assertions { CHECK_ASSERTIONS } else { 0 };
        let bound = self.generated.max_successors;
        let limit = self.store.args.limit as u64;
        let mut gpu = GpuReport { generate_seconds: self.options.profile.then_some(0.0), ..GpuReport::default() };
        let (mut lo, mut hi) = (0u32, 1u32);
        let mut found = 1u64;
        let mut levels = 0;
        let mut stopped = false;
        let mut last_progress = Instant::now();
        while lo < hi {
            levels += 1;
            if let Some(g) = gpu.generate_seconds.as_mut() {
                *g += self.launch(lo, hi, flags | GENERATE_ONLY)?;
                gpu.launches += 1;
            }
            let mut at = lo;
            while at < hi {
                // Room for every successor of the chunk, whatever the table holds.
                let room = limit.saturating_sub(found) / bound;
                if room == 0 {
                    return Err(self.full(found));
                }
                let end = (at as u64 + room).min(hi as u64) as u32;
                gpu.kernel_seconds += self.launch(at, end, flags)?;
                gpu.launches += 1;
                at = end;
                let status = self.read(&self.store.status)?;
                found = status[0] as u64;
                if status[1] != 0 {
                    return Err(self.full(found));
                }
            }
            if let Some(progress) = self.options.progress {
                if last_progress.elapsed().as_millis() >= 250 {
                    last_progress = Instant::now();
                    let counters = self.read(&self.store.counters)?;
                    progress(&Progress {
                        states: found,
                        transitions: counters[0],
                        level: levels - 1,
                        seconds: start.elapsed().as_secs_f64(),
                    });
                }
            }
            if self.options.stop_at_first && self.read(&self.store.viol_count)?.iter().any(|&c| c > 0) {
                stopped = true;
                break;
            }
            (lo, hi) = (hi, found as u32);
        }
        let states = found;
        let counters = self.read(&self.store.counters)?;
        let error_state = counters[2] > 0;
        gpu.report = Report {
            states: states + error_state as u64,
            transitions: counters[0],
            deadlocks: counters[1] + error_state as u64,
            levels,
            accepting: counters[3],
            error_transitions: counters[2],
            complete: !stopped,
            violations: self.violations()?,
            table_entries: states,
            ..Report::default()
        };
        Ok(gpu)
    }

    fn full(&self, states: u64) -> GpuError {
        let a = &self.store.args;
        GpuError::Full {
            states,
            capacity: a.limit as u64,
            bytes: a.limit as u64 * (4 * self.words as u64 + 4) + a.capacity * 8,
        }
    }

    /// The violations found, with a shortest counterexample each.
    fn violations(&self) -> Result<Vec<Violation>, GpuError> {
        let first = self.read(&self.store.viol_first)?;
        let counts = self.read(&self.store.viol_count)?;
        let model = self.model;
        let assertions = model.assertions.len();
        let mut found = Vec::new();
        for (category, (&id, &count)) in first.iter().zip(&counts).enumerate() {
            if count == 0 {
                continue;
            }
            let path = self.path_to(id)?;
            let state = path.last().expect("a path has the initial state");
            // The device names the category; the CPU executor gives the details.
            let kind = match category {
                0 => ViolationKind::Deadlock,
                1 => ViolationKind::EvalError(first_error(model, state).ok_or_else(|| {
                    GpuError::Cuda("the GPU reported an evaluation error the CPU does not reproduce".into())
                })?),
                c if c < 2 + assertions => {
                    let error = model.violated_assertion(state).and_then(|f| f.error);
                    ViolationKind::Assertion { assertion: c - 2, error }
                }
                c => {
                    let invariant = c - 2 - assertions;
                    let expr = &self.options.checks.invariants[invariant].expr;
                    let error = model.evaluator(&mut []).holds(expr, state).err();
                    ViolationKind::Invariant { invariant, error }
                }
            };
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

    /// The states from the initial state to state `id`, through the parent links.
    fn path_to(&self, id: u32) -> Result<Vec<Vec<u32>>, GpuError> {
        let mut ids = vec![id];
        loop {
            let parent = self.read_one(&self.store.parents, *ids.last().unwrap() as usize)?;
            if parent == u32::MAX {
                break;
            }
            ids.push(parent);
        }
        let mut states = Vec::with_capacity(ids.len());
        for &i in ids.iter().rev() {
            let mut state = vec![0u32; self.words];
            let at = i as usize * self.words;
            self.stream.memcpy_dtoh(&self.store.states.slice(at..at + self.words), &mut state).map_err(cuda)?;
            state.truncate(self.model.state_words());
            states.push(state);
        }
        Ok(states)
    }
}

/// The first evaluation error a step from `state` raises.
fn first_error(model: &Model, state: &[u32]) -> Option<EvalError> {
    let mut error = None;
    Generator::new(model).successors(state, |_, r| {
        if let (None, Err(e)) = (&error, r) {
            error = Some(e);
        }
    });
    error
}
