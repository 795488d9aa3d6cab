//! The GPU search's kernels on a CUDA device: the store sized to the memory given, one
//! launch per round, the control block read back after each batch of rounds.

use warpcheck_cuda::driver::{CudaFunction, CudaSlice, DeviceRepr};
use warpcheck_cuda::{device_ptr, grid, launch, CudaError, Device, Module, ONE_THREAD};

use super::{kernel_source, Ctl, GpuSearchError, GpuSearchOptions, Kernels, UcsArgs, CTL_WORDS};
use crate::task::{State, Task};

/// What NVRTC compiles before ucs.cu: the integer types and the model's macros.
const DEVICE_DEFINES: &str = "typedef unsigned int u32;\ntypedef unsigned long long u64;\n\
    #define WC_FN __device__ __forceinline__\n#define WC_NOINLINE __device__ __noinline__\n\
    #define WC_TABLE(name) __device__ const u32 *name;\n";

/// The whole CUDA source of `task`'s search, as NVRTC compiles it.
pub fn cuda_source(task: &Task) -> Result<String, GpuSearchError> {
    Ok(format!("{DEVICE_DEFINES}{}", kernel_source(task)?.source))
}

/// Launch settings, which the exploration engine's `WARPCHECK_GPU_*` variables override
/// for experiments here too: `BLOCK` threads per block (256), `BLOCKS_PER_SM` blocks per
/// multiprocessor a launch has (by default as many as one multiprocessor holds at once:
/// a round is one wave of blocks that loop over its entries, so that a round of few
/// entries is not several waves of blocks that find nothing to do; on an H200 a round
/// of parcprinter p13 took about 80 us with 16 per multiprocessor, about five waves,
/// and about 65 us with one wave and the cost threshold), `MAXRREG` registers per
/// thread (NVRTC's choice).
struct Launch {
    block: u32,
    blocks_per_sm: Option<u32>,
    max_registers: Option<u32>,
}

impl Launch {
    fn from_env() -> Launch {
        let var = |name: &str| std::env::var(format!("WARPCHECK_GPU_{name}")).ok().and_then(|v| v.parse::<u32>().ok());
        Launch {
            block: var("BLOCK").unwrap_or(256).clamp(32, 1024) / 32 * 32,
            blocks_per_sm: var("BLOCKS_PER_SM").map(|b| b.max(1)),
            max_registers: var("MAXRREG"),
        }
    }
}

/// Hash-table entries per stored state.
const ENTRIES_PER_STATE: u64 = 2;
/// Device memory left to the context and the launches.
const RESERVE: u64 = 64 << 20;

// SAFETY: `UcsArgs` is `#[repr(C)]` with the fields of `struct WcUcs` in ucs.cu in
// order (eleven 64-bit words, then six `u32`), so the kernel reads it as passed.
unsafe impl DeviceRepr for UcsArgs {}

fn cuda(e: impl Into<CudaError>) -> GpuSearchError {
    match e.into() {
        CudaError::NoDevice(m) => GpuSearchError::NoDevice(m),
        e => GpuSearchError::Failed(e.to_string()),
    }
}

/// The device, its buffers (held until the search ends) and kernels.
pub(super) struct DeviceKernels {
    device: Device,
    _module: Module,
    _tables: Vec<CudaSlice<u32>>,
    start: CudaFunction,
    round: CudaFunction,
    rebuild: CudaFunction,
    states: CudaSlice<u32>,
    best: CudaSlice<u64>,
    _closed: CudaSlice<u8>,
    _table: CudaSlice<u64>,
    ctl: CudaSlice<u32>,
    counters: CudaSlice<u64>,
    _open: CudaSlice<u64>,
    _cost: CudaSlice<u32>,
    _pdb: Option<CudaSlice<u32>>,
    _h: Option<CudaSlice<u32>>,
    args: UcsArgs,
    /// Threads per block, and blocks per launch (grid-stride beyond).
    block: u32,
    blocks: u32,
    words: usize,
    bytes: u64,
}

/// The device opened and the search's kernels compiled and loaded: what does not
/// depend on the heuristic's tables, so that the host builds those meanwhile.
pub(super) struct Compiled {
    device: Device,
    module: Module,
    tables: Vec<CudaSlice<u32>>,
    launch: Launch,
}

impl Compiled {
    pub(super) fn new(task: &Task, options: &GpuSearchOptions) -> Result<Compiled, GpuSearchError> {
        let generated = kernel_source(task)?;
        let device = Device::open(options.device).map_err(cuda)?;
        let launch = Launch::from_env();
        let options_nvrtc: Vec<String> =
            launch.max_registers.map(|r| format!("--maxrregcount={r}")).into_iter().collect();
        let module = device.load(&cuda_source(task)?, &options_nvrtc).map_err(cuda)?;
        let stream = device.stream().clone();
        let mut tables = Vec::new();
        for t in &generated.tables {
            tables.push(module.bind_table(&stream, &t.name, &t.data).map_err(cuda)?);
        }
        Ok(Compiled { device, module, tables, launch })
    }
}

impl DeviceKernels {
    pub(super) fn new(
        compiled: Compiled,
        task: &Task,
        costs: &[u32],
        pdb: Option<&[u32]>,
        compact: u32,
        options: &GpuSearchOptions,
    ) -> Result<DeviceKernels, GpuSearchError> {
        let Compiled { device, module, tables, launch } = compiled;
        let stream = device.stream().clone();
        let words = task.words.max(1);
        let free = device.free_memory().map_err(cuda)?;
        let budget = options.memory.unwrap_or(free / 10 * 9).min(free).saturating_sub(RESERVE);
        // A state's words, its best link, its closed flag, its table entries, a place
        // in the open list, and with A* its h (the databases' tables first).
        let pdb_bytes = pdb.map_or(0, |p| 4 * p.len() as u64);
        let budget = budget.saturating_sub(pdb_bytes);
        let per_state = 4 * words as u64 + 8 + 1 + 8 * ENTRIES_PER_STATE + 8 + if pdb.is_some() { 4 } else { 0 };
        let limit = (budget / per_state).min(u64::from(u32::MAX - 4));
        if limit < 2 {
            return Err(GpuSearchError::Full { capacity: limit, bytes: budget });
        }
        let n = limit as usize;
        // Uninitialised device memory is sound to hold for these integer types; the
        // kernels write a state and its link before any id that reads them is published,
        // and list entries before the count that covers them is read.
        let alloc32 = |n: usize| {
            // SAFETY: as said above.
            unsafe { stream.alloc::<u32>(n) }.map_err(cuda)
        };
        let alloc64 = |n: usize| {
            // SAFETY: as said above.
            unsafe { stream.alloc::<u64>(n) }.map_err(cuda)
        };
        let (states, best, open) = (alloc32(n * words)?, alloc64(n)?, alloc64(n)?);
        let closed = stream.alloc_zeros::<u8>(n).map_err(cuda)?;
        let table = stream.alloc_zeros::<u64>(n * ENTRIES_PER_STATE as usize + 1).map_err(cuda)?;
        let ctl = stream.alloc_zeros::<u32>(CTL_WORDS).map_err(cuda)?;
        let counters = stream.alloc_zeros::<u64>(3).map_err(cuda)?;
        let cost = stream.clone_htod(costs).map_err(cuda)?;
        let pdb = pdb.map(|p| stream.clone_htod(p)).transpose().map_err(cuda)?;
        let h = if pdb.is_some() { Some(alloc32(n)?) } else { None };
        let args = UcsArgs {
            states: device_ptr(&states, &stream),
            best: device_ptr(&best, &stream),
            closed: device_ptr(&closed, &stream),
            table: device_ptr(&table, &stream),
            capacity: n as u64 * ENTRIES_PER_STATE + 1,
            ctl: device_ptr(&ctl, &stream),
            counters: device_ptr(&counters, &stream),
            open: device_ptr(&open, &stream),
            cost: device_ptr(&cost, &stream),
            pdb: pdb.as_ref().map_or(0, |p| device_ptr(p, &stream)),
            h: h.as_ref().map_or(0, |h| device_ptr(h, &stream)),
            limit: limit as u32,
            room: limit as u32,
            compact,
            stride: 0,
            cap: std::env::var("WARPCHECK_UCS_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(super::CAP).max(1),
            pad: 0,
        };
        let function = |name: &str| module.function(name).map_err(cuda);
        let (start, round, rebuild) =
            (function("wc_ucs_start")?, function("wc_ucs_round")?, function("wc_ucs_rebuild")?);
        // A block never asks for more registers than a multiprocessor has.
        let most = round.max_threads_per_block().map_err(cuda)?.min(rebuild.max_threads_per_block().map_err(cuda)?);
        let block = launch.block.min(most as u32 / 32 * 32).max(32);
        let per_sm = match launch.blocks_per_sm {
            Some(b) => b,
            None => round.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(cuda)?.max(1),
        };
        Ok(DeviceKernels {
            start,
            round,
            rebuild,
            _module: module,
            _tables: tables,
            states,
            best,
            _closed: closed,
            _table: table,
            ctl,
            counters,
            _open: open,
            _cost: cost,
            _pdb: pdb,
            _h: h,
            args,
            block,
            blocks: device.multiprocessors() * per_sm,
            words,
            bytes: limit * per_state + pdb_bytes,
            device,
        })
    }

    /// Launches `kernel` over `items` work items (`times` launches, one after another)
    /// with `word` after the argument block, and reads the control block back.
    fn launch(&mut self, kernel: Kernel, items: u64, times: u32, word: u64) -> Result<Ctl, GpuSearchError> {
        let stream = self.device.stream().clone();
        let cfg = grid(items, self.block, self.blocks);
        for _ in 0..times {
            // SAFETY: `wc_ucs_start(WcUcs, const u32 *)`, `wc_ucs_round(WcUcs)` and
            // `wc_ucs_rebuild(WcUcs, u32)` take the argument block and, but for the
            // round, one word (a device address, 64 bits, for the first); every address
            // in the block is a buffer of `self`, and the initial state's copy outlives
            // the read below, which synchronises the stream; the kernels index within the
            // sizes the block gives (the store's `limit`, the table's `capacity`, the
            // list's `room` = `limit`, one cost per action, an h per stored state, the
            // entries below the list's length <= `room`, the ids below `stored` <=
            // `limit`, the control block's CTL_WORDS words, the three counters) and the
            // pattern databases within the offsets they hold, grid-stride.
            unsafe {
                match kernel {
                    Kernel::Start => launch(&stream, &self.start, ONE_THREAD, &[&self.args, &word]),
                    Kernel::Round => launch(&stream, &self.round, cfg, &[&self.args]),
                    Kernel::Rebuild => launch(&stream, &self.rebuild, cfg, &[&self.args, &(word as u32)]),
                }
            }
            .map_err(cuda)?;
        }
        let mut ctl = [0; CTL_WORDS];
        stream.memcpy_dtoh(&self.ctl, &mut ctl).map_err(cuda)?;
        Ok(ctl)
    }
}

/// The three kernels of ucs.cu.
#[derive(Clone, Copy)]
enum Kernel {
    Start,
    Round,
    Rebuild,
}

impl Kernels for DeviceKernels {
    fn write(&mut self, ctl: &Ctl) -> Result<(), GpuSearchError> {
        self.device.stream().memcpy_htod(ctl, &mut self.ctl).map_err(cuda)
    }

    fn start(&mut self, init: &[u32]) -> Result<Ctl, GpuSearchError> {
        let stream = self.device.stream().clone();
        let init = stream.clone_htod(init).map_err(cuda)?;
        let c = self.launch(Kernel::Start, 1, 1, device_ptr(&init, &stream));
        drop(init);
        c
    }

    fn rounds(&mut self, n: u32) -> Result<Ctl, GpuSearchError> {
        // As many threads as the device holds: a round's entries are not known here.
        self.launch(Kernel::Round, u64::MAX, n, 0)
    }

    fn rebuild(&mut self, stored: u32) -> Result<Ctl, GpuSearchError> {
        self.launch(Kernel::Rebuild, u64::from(stored), 1, u64::from(stored))
    }

    fn link(&mut self, id: u32) -> Result<(u32, u32, State), GpuSearchError> {
        let stream = self.device.stream();
        let (i, w) = (id as usize, self.words);
        let best = stream.clone_dtoh(&self.best.slice(i..i + 1)).map_err(cuda)?[0];
        let state = stream.clone_dtoh(&self.states.slice(i * w..(i + 1) * w)).map_err(cuda)?;
        Ok(((best >> 32) as u32, best as u32, state))
    }

    fn counters(&mut self) -> Result<[u64; 3], GpuSearchError> {
        let c = self.device.stream().clone_dtoh(&self.counters).map_err(cuda)?;
        Ok([c[0], c[1], c[2]])
    }

    fn room(&self) -> (u64, u64) {
        (u64::from(self.args.limit), self.bytes)
    }
}
