//! Kernel launches: [`launch`], the one wrapper over cudarc's launch builder that the
//! GPU modules use, with its safety contract written once; launch shapes ([`grid`],
//! [`ONE_THREAD`]); device addresses for argument blocks ([`device_ptr`]); and
//! [`Timer`], CUDA events around enqueued work.

use cudarc::driver::{CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchArgs, LaunchConfig};

use crate::CudaError;

/// The launch of a kernel meant for one thread. (cudarc's `for_num_elems(1)` starts a
/// block of 1024 threads: a race in kernels written for one thread, and a launch that
/// fails with "too many resources" once the kernel needs more than 64 registers, as
/// the engine's `wc_seed` does for leader_election.6.)
pub const ONE_THREAD: LaunchConfig = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };

/// Blocks of `block` threads for `items` work items, at least one block and at most
/// `max_blocks` (kernels loop grid-stride over what one grid does not cover).
pub fn grid(items: u64, block: u32, max_blocks: u32) -> LaunchConfig {
    let blocks = items.div_ceil(block as u64).clamp(1, max_blocks.max(1) as u64) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

/// The device address of `slice`, for argument blocks and pointer arguments (`u64`).
/// With event tracking off (see [`crate::Device`]) this records nothing.
pub fn device_ptr<T>(slice: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (ptr, _record) = slice.device_ptr(stream);
    ptr
}

/// One kernel argument: any [`DeviceRepr`] value, passed by value to the kernel
/// (numbers, device addresses as `u64`, `#[repr(C)]` argument blocks).
pub trait KernelArg {
    /// Appends `self` to the launch's arguments.
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>);
}

impl<T: DeviceRepr> KernelArg for T {
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        cudarc::driver::PushKernelArg::arg(args, self);
    }
}

/// Enqueues `kernel` on `stream` with `cfg` and `args`.
///
/// # Safety
///
/// This is the safety contract of every kernel launch of warpcheck (cudarc's
/// `LaunchArgs::launch`, made concrete for our kernels). The caller guarantees:
/// 1. **Signature.** `args` are exactly the kernel's parameters, in order: as many,
///    and each of the C parameter's size and layout (`u32` for `unsigned`/`int`, `u64`
///    for pointers and 64-bit integers, `f64` for `double`, a `#[repr(C)]` struct with
///    the C struct's fields in order, with an `unsafe impl DeviceRepr`).
/// 2. **Live memory.** Every device address passed, directly or in an argument block,
///    points into an allocation of `stream`'s context that is not freed before the
///    kernel has finished (buffers are freed on the same stream, after the launch).
/// 3. **Bounds.** Given those arguments and `cfg`, the kernel reads and writes only
///    inside those allocations (the kernels check their indices against the sizes
///    passed, and loop grid-stride, so any grid is correct).
/// 4. **No host race.** No host code reads or writes those allocations until the
///    stream is synchronised past the launch (all our copies go on the same stream).
///
/// The module that owns a `.cu` file is the one place that launches its kernels, and
/// states in its one `// SAFETY:` note why these hold there.
pub unsafe fn launch(
    stream: &CudaStream,
    kernel: &CudaFunction,
    cfg: LaunchConfig,
    args: &[&dyn KernelArg],
) -> Result<(), CudaError> {
    let mut builder = stream.launch_builder(kernel);
    for arg in args {
        arg.push(&mut builder);
    }
    // SAFETY: the caller upholds this function's contract above, which is cudarc's
    // (argument types and order, live memory, bounds, no concurrent host access).
    unsafe { builder.launch(cfg) }?;
    Ok(())
}

/// Two CUDA events that time the work enqueued between [`Timer::start`] and
/// [`Timer::stop`] on one stream.
pub struct Timer {
    begin: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    /// Timing events on `stream`'s context.
    pub fn new(stream: &CudaStream) -> Result<Timer, CudaError> {
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let ctx = stream.context();
        Ok(Timer { begin: ctx.new_event(timing)?, end: ctx.new_event(timing)? })
    }

    /// Records the start on `stream`.
    pub fn start(&self, stream: &CudaStream) -> Result<(), CudaError> {
        Ok(self.begin.record(stream)?)
    }

    /// Records the end on `stream`, waits for it, and returns the seconds between the
    /// two events.
    pub fn stop(&self, stream: &CudaStream) -> Result<f64, CudaError> {
        self.end.record(stream)?;
        self.end.synchronize()?;
        Ok(self.begin.elapsed_ms(&self.end)? as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_the_items_within_the_bounds() {
        let g = grid(1000, 256, 64);
        assert_eq!((g.grid_dim, g.block_dim, g.shared_mem_bytes), ((4, 1, 1), (256, 1, 1), 0));
        assert_eq!(grid(1024, 256, 64).grid_dim.0, 4);
        assert_eq!(grid(1025, 256, 64).grid_dim.0, 5);
        // Never an empty grid, never more than the bound (the kernels loop grid-stride).
        assert_eq!(grid(0, 256, 64).grid_dim.0, 1);
        assert_eq!(grid(u64::MAX, 256, 64).grid_dim.0, 64);
        assert_eq!(grid(10, 256, 0).grid_dim.0, 1);
    }

    #[test]
    fn one_thread_is_one_thread() {
        assert_eq!((ONE_THREAD.grid_dim, ONE_THREAD.block_dim), ((1, 1, 1), (1, 1, 1)));
    }

    #[test]
    fn every_device_repr_value_is_an_argument() {
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Block {
            a: u64,
            n: u32,
        }
        // SAFETY: `#[repr(C)]` of plain integers, like the kernels' argument blocks.
        unsafe impl DeviceRepr for Block {}
        fn takes(_: &[&dyn KernelArg]) {}
        takes(&[&1u32, &2u64, &0.5f64, &Block { a: 1, n: 2 }]);
    }
}
