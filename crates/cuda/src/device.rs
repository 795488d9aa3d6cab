//! Device discovery and the open device: [`device_available`], [`device_count`],
//! [`Device`] (a context, its one stream, what the launch sizing needs) and [`Module`]
//! (kernels compiled by [`crate::nvrtc`] and loaded).
//!
//! The driver is loaded dynamically, so a binary that uses this crate builds and runs
//! on machines without CUDA: there, [`device_available`] is false and [`Device::open`]
//! is [`CudaError::NoDevice`] saying why.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::{nvrtc, CudaError};

/// Whether the CUDA driver library can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: this only tries to open the shared library by its candidate names
    // (`libloading`), which runs no code of ours and touches no shared state.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The number of CUDA devices, or why there is none to ask.
pub fn device_count() -> Result<usize, CudaError> {
    // Dynamic loading panics on first use when the library is missing: ask first.
    if !driver_present() {
        return Err(no_driver());
    }
    cudarc::driver::result::init()
        .map_err(|e| CudaError::NoDevice(format!("the CUDA driver failed to start: {e:?}")))?;
    let count = CudaContext::device_count().map_err(|e| CudaError::NoDevice(format!("{e:?}")))?;
    Ok(count.max(0) as usize)
}

fn no_driver() -> CudaError {
    CudaError::NoDevice("the CUDA driver library (libcuda) is not installed".into())
}

/// Whether a CUDA driver and at least one device are present.
pub fn device_available() -> bool {
    device_count().is_ok_and(|n| n > 0)
}

/// Checks that device `ordinal` exists among `count`.
fn check_ordinal(ordinal: usize, count: usize) -> Result<(), CudaError> {
    match count {
        0 => Err(CudaError::NoDevice("the CUDA driver reports no device".into())),
        n if ordinal >= n => Err(CudaError::NoDevice(format!("device {ordinal} requested, {n} present"))),
        _ => Ok(()),
    }
}

/// An open device: its context and the one stream all of this crate's users enqueue
/// their work on.
///
/// **One stream.** The context's cudarc event tracking (per-buffer events that order
/// uses across streams) is off: every copy, launch and free of a [`Device`]'s buffers
/// goes on [`Device::stream`], whose order alone orders them. Code that makes a second
/// stream on [`Device::context`] must synchronise with this one by hand.
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: u32,
    multiprocessors: u32,
}

impl Device {
    /// Opens device `ordinal` (0 for the first).
    pub fn open(ordinal: usize) -> Result<Device, CudaError> {
        check_ordinal(ordinal, device_count()?)?;
        let ctx = CudaContext::new(ordinal)?;
        // SAFETY: all work of this context goes on its default stream (the type's
        // documented contract), so no buffer is used, written or freed by two streams
        // and stream order synchronises every use; the tracking events are not needed.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx.compute_capability()?;
        let multiprocessors = ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        Ok(Device {
            stream: ctx.default_stream(),
            name: ctx.name().unwrap_or_default(),
            arch: (major * 10 + minor) as u32,
            multiprocessors: multiprocessors.max(1) as u32,
            ctx,
        })
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream all work on this device goes on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device's name as the driver reports it ("NVIDIA H100 80GB HBM3").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compute capability as NVRTC's `sm_XY` number (90 for 9.0).
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// Streaming multiprocessors, for sizing grids.
    pub fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<u64, CudaError> {
        let (free, _total) = self.ctx.mem_get_info()?;
        Ok(free as u64)
    }

    /// Fails with [`CudaError::OutOfMemory`] unless `need` bytes for `what` fit in the
    /// free memory less `reserve` bytes (the context's own allocations).
    pub fn ensure_free(&self, what: &str, need: u64, reserve: u64) -> Result<(), CudaError> {
        fits(what, need, self.free_memory()?, reserve)
    }

    /// Compiles `source` with NVRTC options `options` for this device (or finds it in
    /// the cache) and loads it.
    pub fn load(&self, source: &str, options: &[String]) -> Result<Module, CudaError> {
        let start = Instant::now();
        let compiled = nvrtc::compile(source, self.arch, options)?;
        let module = self.ctx.load_module(Ptx::from_binary(compiled.cubin))?;
        Ok(Module { module, cached: compiled.cached, seconds: start.elapsed().as_secs_f64() })
    }
}

/// [`Device::ensure_free`]'s rule.
fn fits(what: &str, need: u64, free: u64, reserve: u64) -> Result<(), CudaError> {
    if need.saturating_add(reserve) > free {
        return Err(CudaError::OutOfMemory { what: what.to_string(), need, free });
    }
    Ok(())
}

/// A loaded module: the kernels of one CUDA source.
pub struct Module {
    module: Arc<CudaModule>,
    /// Taken from the compilation cache.
    pub cached: bool,
    /// Compilation (or cache lookup) and load.
    pub seconds: f64,
}

impl Module {
    /// The kernel `name` (an `extern "C" __global__` function of the source).
    pub fn function(&self, name: &str) -> Result<CudaFunction, CudaError> {
        Ok(self.module.load_function(name)?)
    }

    /// Copies `data` to the device and points the source's `__device__ const u32 *name`
    /// (a model's `WC_TABLE(name)`) at the copy (see [`bind_table`]).
    pub fn bind_table(&self, stream: &Arc<CudaStream>, name: &str, data: &[u32]) -> Result<CudaSlice<u32>, CudaError> {
        bind_table(&self.module, stream, name, data)
    }
}

/// Copies `data` to the device and points `module`'s `__device__ const u32 *name` (a
/// model's `WC_TABLE(name)`) at the copy, which the caller keeps as long as the
/// kernels run.
pub fn bind_table(
    module: &Arc<CudaModule>,
    stream: &Arc<CudaStream>,
    name: &str,
    data: &[u32],
) -> Result<CudaSlice<u32>, CudaError> {
    let copy = stream.clone_htod(data)?;
    let address = crate::device_ptr(&copy, stream);
    let mut symbol = module.get_global(name, stream)?;
    // SAFETY: `name` is declared `__device__ const u32 *name`: 8 bytes, one device
    // address, which a `u64` views exactly (`transmute_mut` checks the size).
    let mut pointer = unsafe { symbol.transmute_mut::<u64>(1) }
        .ok_or_else(|| CudaError::Internal(format!("table `{name}`: not a pointer in the module")))?;
    stream.memcpy_htod(&[address], &mut pointer)?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_is_named() {
        let e = check_ordinal(0, 0).unwrap_err();
        assert_eq!(e.to_string(), "no CUDA device: the CUDA driver reports no device");
        let e = check_ordinal(2, 2).unwrap_err();
        assert_eq!(e.to_string(), "no CUDA device: device 2 requested, 2 present");
        assert!(check_ordinal(1, 2).is_ok());
    }

    #[test]
    fn memory_is_checked_with_the_reserve() {
        assert!(fits("x", 100, 200, 100).is_ok());
        let e = fits("the test", 101, 200, 100).unwrap_err();
        assert!(matches!(e, CudaError::OutOfMemory { need: 101, free: 200, .. }), "{e}");
        assert!(fits("x", u64::MAX, 200, 1).is_err());
    }

    #[test]
    fn without_a_driver_opening_a_device_says_so() {
        if driver_present() {
            return;
        }
        assert!(!device_available());
        for e in [device_count().unwrap_err(), Device::open(0).err().expect("no driver, no device")] {
            assert!(e.is_no_device(), "{e}");
            assert_eq!(e.to_string(), "no CUDA device: the CUDA driver library (libcuda) is not installed");
        }
    }

    #[test]
    fn without_a_device_there_is_none_available() {
        match device_count() {
            Ok(n) => assert_eq!(device_available(), n > 0),
            Err(e) => {
                assert!(e.is_no_device(), "{e}");
                assert!(!device_available());
            }
        }
    }
}
