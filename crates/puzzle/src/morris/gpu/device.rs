//! [`Gpu`]: the kernels of morris.cu compiled by NVRTC and run on a CUDA device, every
//! buffer in device memory, one launch at a time on the device's stream.

use super::{Args, Kernel, Machine, SOURCE};
use crate::Error;
use std::sync::{Arc, Mutex};
use warpcheck_cuda::driver::{CudaFunction, CudaSlice, CudaStream};
use warpcheck_cuda::{device_ptr, grid, CudaError, Device};

/// Device memory left to the context and the module beyond the buffers.
const RESERVE: u64 = 512 << 20;

/// Boards `mm_level` collects per block before expanding them (`MM_CHUNK`).
const CHUNK: u64 = 4096;

/// A CUDA device with morris.cu loaded.
pub struct Gpu {
    device: Device,
    functions: Vec<CudaFunction>,
    /// The kernels' four counters (one launch at a time holds them).
    counters: Mutex<CudaSlice<u64>>,
    /// Seconds to compile (or find in the cache) and load the module.
    pub compile_seconds: f64,
}

fn cuda(e: CudaError) -> Error {
    Error::Gpu(e.to_string())
}

fn driver(e: warpcheck_cuda::driver::DriverError) -> Error {
    cuda(e.into())
}

impl Gpu {
    /// Opens device `ordinal` and loads the kernels.
    pub fn open(ordinal: usize) -> Result<Gpu, Error> {
        let device = Device::open(ordinal).map_err(cuda)?;
        let module = device.load(SOURCE, &[]).map_err(cuda)?;
        let functions =
            Kernel::ALL.iter().map(|k| module.function(k.name()).map_err(cuda)).collect::<Result<_, _>>()?;
        let counters = device.stream().alloc_zeros(4).map_err(driver)?;
        Ok(Gpu { functions, counters: Mutex::new(counters), compile_seconds: module.seconds, device })
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.device.stream()
    }
}

impl Machine for Gpu {
    type Buf = CudaSlice<u8>;

    fn name(&self) -> String {
        self.device.name().to_string()
    }

    fn alloc(&self, bytes: u64, what: &str) -> Result<CudaSlice<u8>, Error> {
        let needed = bytes.div_ceil(4) * 4;
        let allowed = self.device.free_memory().map_err(cuda)?.saturating_sub(RESERVE);
        if needed > allowed {
            return Err(Error::Memory { what: format!("{what} in device memory"), needed, allowed });
        }
        let len = usize::try_from(needed).map_err(|_| Error::Gpu("a buffer beyond usize".into()))?;
        self.stream().alloc_zeros(len).map_err(driver)
    }

    fn address(&self, buf: &CudaSlice<u8>) -> u64 {
        device_ptr(buf, self.stream())
    }

    fn upload(&self, buf: &mut CudaSlice<u8>, data: &[u8]) -> Result<(), Error> {
        self.stream().memcpy_htod(data, &mut buf.slice_mut(0..data.len())).map_err(driver)
    }

    fn download(&self, buf: &CudaSlice<u8>, len: u64) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; len as usize];
        self.stream().memcpy_dtoh(&buf.slice(0..len as usize), &mut out).map_err(driver)?;
        self.stream().synchronize().map_err(driver)?;
        Ok(out)
    }

    fn run(&self, kernel: Kernel, args: &Args) -> Result<[u64; 4], Error> {
        let s = self.stream();
        let mut args = *args;
        let mut counters = self.counters.lock().map_err(|_| Error::Gpu("a launch panicked".into()))?;
        args.counters = device_ptr(&*counters, s);
        s.memcpy_htod(&[0u64; 4], &mut *counters).map_err(driver)?;
        let blocks = self.device.multiprocessors() * 32;
        let cfg = match kernel {
            Kernel::Level => grid(args.slots.div_ceil(CHUNK) * 256, 256, blocks),
            _ => grid(args.slots, 256, blocks),
        };
        let f = &self.functions[Kernel::ALL.iter().position(|&k| k == kernel).expect("a kernel")];
        // SAFETY: `warpcheck_cuda::launch`'s contract holds. (1) Every kernel of
        // morris.cu takes one `MmArgs`, which `Args` is (see its `DeviceRepr`). (2) The
        // addresses in it are of the index tables, the counters and the databases and
        // plies the host loop holds until after the launch has finished (`run` reads the
        // counters back, which synchronises). (3) The kernels touch slots `< slots` of
        // `values` and `captures` (allocated with at least `slots` bytes, whole words, so
        // `mm_level`'s word reads stay inside), ranks of boards of the tables `db[]`
        // names (each of its database's or ply's size), the table words (fixed layout,
        // built by `tables`) and four counters. (4) The host reads buffers only by copies
        // on the same stream.
        unsafe { warpcheck_cuda::launch(s, f, cfg, &[&args]) }.map_err(cuda)?;
        let mut out = [0u64; 4];
        s.memcpy_dtoh(&*counters, &mut out).map_err(driver)?;
        s.synchronize().map_err(driver)?;
        Ok(out)
    }
}
