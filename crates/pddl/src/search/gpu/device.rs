//! The GPU search's kernels on a CUDA device: the store sized to the memory given, one
//! launch per round, the control block read back after each.

use warpcheck_cuda::driver::{CudaFunction, CudaSlice, DeviceRepr};
use warpcheck_cuda::{device_ptr, grid, launch, CudaError, Device, Module, ONE_THREAD};

use super::{kernel_source, reset, Control, GpuSearchError, GpuSearchOptions, Kernels, UcsArgs, CTL_WORDS};
use crate::task::{State, Task};

/// What NVRTC compiles before ucs.cu: the integer types and the model's macros.
const DEVICE_DEFINES: &str = "typedef unsigned int u32;\ntypedef unsigned long long u64;\n\
    #define WC_FN __device__ __forceinline__\n#define WC_NOINLINE __device__ __noinline__\n\
    #define WC_TABLE(name) __device__ const u32 *name;\n";

/// The whole CUDA source of `task`'s search, as NVRTC compiles it.
pub fn cuda_source(task: &Task) -> Result<String, GpuSearchError> {
    Ok(format!("{DEVICE_DEFINES}{}", kernel_source(task)?.source))
}

/// Hash-table entries per stored state.
const ENTRIES_PER_STATE: u64 = 2;
/// Device memory left to the context and the launches.
const RESERVE: u64 = 64 << 20;
/// Threads per block.
const BLOCK: u32 = 256;

// SAFETY: `UcsArgs` is `#[repr(C)]` with the fields of `struct WcUcs` in ucs.cu in
// order (nine 64-bit words, then four `u32`), so the kernel reads it as passed.
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
    expand: CudaFunction,
    rebuild: CudaFunction,
    states: CudaSlice<u32>,
    best: CudaSlice<u64>,
    _closed: CudaSlice<u8>,
    _table: CudaSlice<u64>,
    ctl: CudaSlice<u32>,
    /// The control block as last read back (the cost-overflow flag is kept across
    /// rounds).
    ctl_host: [u32; CTL_WORDS],
    counters: CudaSlice<u64>,
    _open: CudaSlice<u64>,
    _cost: CudaSlice<u32>,
    args: UcsArgs,
    words: usize,
    bytes: u64,
}

impl DeviceKernels {
    pub(super) fn new(task: &Task, costs: &[u32], options: &GpuSearchOptions) -> Result<DeviceKernels, GpuSearchError> {
        let generated = kernel_source(task)?;
        let device = Device::open(options.device).map_err(cuda)?;
        let module = device.load(&cuda_source(task)?, &[]).map_err(cuda)?;
        let stream = device.stream().clone();
        let mut tables = Vec::new();
        for t in &generated.tables {
            tables.push(module.bind_table(&stream, &t.name, &t.data).map_err(cuda)?);
        }
        let words = task.words.max(1);
        let free = device.free_memory().map_err(cuda)?;
        let budget = options.memory.unwrap_or(free / 10 * 9).min(free).saturating_sub(RESERVE);
        // A state's words, its best link, its closed flag, its table entries and a place
        // in the open list.
        let per_state = 4 * words as u64 + 8 + 1 + 8 * ENTRIES_PER_STATE + 8;
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
        let counters = stream.alloc_zeros::<u64>(2).map_err(cuda)?;
        let cost = stream.clone_htod(costs).map_err(cuda)?;
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
            lo: 0,
            hi: 0,
            limit: limit as u32,
            room: limit as u32,
        };
        let function = |name: &str| module.function(name).map_err(cuda);
        Ok(DeviceKernels {
            start: function("wc_ucs_start")?,
            expand: function("wc_ucs_expand")?,
            rebuild: function("wc_ucs_rebuild")?,
            _module: module,
            _tables: tables,
            states,
            best,
            _closed: closed,
            _table: table,
            ctl,
            ctl_host: [0; CTL_WORDS],
            counters,
            _open: open,
            _cost: cost,
            args,
            words,
            bytes: limit * per_state,
            device,
        })
    }

    /// Resets the round's part of the control block (and with `empty` the list), runs
    /// `kernel` over `items` work items with the argument block of entries `lo..hi`
    /// and `word`, and reads the control block back.
    fn round(
        &mut self,
        kernel: Kernel,
        items: u64,
        (lo, hi, empty): (u32, u32, bool),
        word: u64,
    ) -> Result<Control, GpuSearchError> {
        let stream = self.device.stream().clone();
        let mut fresh = self.ctl_host;
        reset(&mut fresh, empty);
        stream.memcpy_htod(&fresh[2..], &mut self.ctl.slice_mut(2..)).map_err(cuda)?;
        let args = UcsArgs { lo, hi, ..self.args };
        let cfg = grid(items, BLOCK, self.device.multiprocessors() * 16);
        let small = word as u32;
        // SAFETY: `wc_ucs_start(WcUcs, const u32 *)`, `wc_ucs_expand(WcUcs, u32)` and
        // `wc_ucs_rebuild(WcUcs, u32)` take the argument block and one word (a device
        // address, 64 bits, for the first); every address in the block is a buffer of
        // `self`, and the initial state's copy outlives the read below, which
        // synchronises the stream; the kernels index within the sizes the block gives
        // (the store's `limit`, the table's `capacity`, the lists' `out_room` = `limit`,
        // one cost per action, the entries below `in_len`, the ids below `stored` <=
        // `limit`), grid-stride.
        unsafe {
            match kernel {
                Kernel::Start => launch(&stream, &self.start, ONE_THREAD, &[&args, &word]),
                Kernel::Expand => launch(&stream, &self.expand, cfg, &[&args, &small]),
                Kernel::Rebuild => launch(&stream, &self.rebuild, cfg, &[&args, &small]),
            }
        }
        .map_err(cuda)?;
        stream.memcpy_dtoh(&self.ctl, &mut self.ctl_host).map_err(cuda)?;
        Ok(Control::of(&self.ctl_host))
    }
}

/// The three kernels of ucs.cu.
#[derive(Clone, Copy)]
enum Kernel {
    Start,
    Expand,
    Rebuild,
}

impl Kernels for DeviceKernels {
    fn start(&mut self, init: &[u32]) -> Result<Control, GpuSearchError> {
        let stream = self.device.stream().clone();
        let init = stream.clone_htod(init).map_err(cuda)?;
        let c = self.round(Kernel::Start, 1, (0, 0, true), device_ptr(&init, &stream));
        drop(init);
        c
    }

    fn expand(&mut self, m: u32, lo: u32, hi: u32) -> Result<Control, GpuSearchError> {
        self.round(Kernel::Expand, u64::from(hi - lo), (lo, hi, false), u64::from(m))
    }

    fn rebuild(&mut self, stored: u32) -> Result<Control, GpuSearchError> {
        self.round(Kernel::Rebuild, u64::from(stored), (0, 0, true), u64::from(stored))
    }

    fn link(&mut self, id: u32) -> Result<(u32, u32, State), GpuSearchError> {
        let stream = self.device.stream();
        let (i, w) = (id as usize, self.words);
        let best = stream.clone_dtoh(&self.best.slice(i..i + 1)).map_err(cuda)?[0];
        let state = stream.clone_dtoh(&self.states.slice(i * w..(i + 1) * w)).map_err(cuda)?;
        Ok(((best >> 32) as u32, best as u32, state))
    }

    fn counters(&mut self) -> Result<(u64, u64), GpuSearchError> {
        let c = self.device.stream().clone_dtoh(&self.counters).map_err(cuda)?;
        Ok((c[0], c[1]))
    }

    fn room(&self) -> (u64, u64) {
        (u64::from(self.args.limit), self.bytes)
    }
}
