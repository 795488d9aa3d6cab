//! The CUDA runtime of warpcheck's GPU code, and nothing else: the GPU algorithms live
//! beside their CPU versions (`warpcheck_scc::gpu`, `warpcheck_cycle::gpu`, the GPU
//! engine in `warpcheck_explore::gpu`, GPU LTL in `warpcheck_liveness::gpu`) and share this.
//!
//! - [`device`]: [`device_available`], [`device_count`], [`Device`] (open device N: a
//!   context and its one stream; [`CudaError::NoDevice`] says why there is none) and
//!   [`Module`] (a source compiled and loaded);
//! - [`nvrtc`]: CUDA C to a cubin for the device's architecture, cached on disk;
//! - [`launch`](mod@launch): [`launch()`], the one kernel-launch helper and its safety
//!   contract, launch shapes, device addresses, [`Timer`];
//! - [`error`]: [`CudaError`], the one error type, which the GPU modules return or wrap;
//! - [`host_array`]: [`HostArray`], a growing array in host memory that kernels use in
//!   place.
//!
//! cudarc loads `libcuda` and `libnvrtc` at run time, so everything here builds and runs
//! without CUDA installed: [`device_available`] is then false and every call that needs
//! the driver or NVRTC returns an error saying which is missing (never a panic). The
//! cudarc types the GPU modules need are re-exported ([`driver`]).

pub mod device;
pub mod error;
pub mod host_array;
pub mod launch;
pub mod nvrtc;

pub use device::{device_available, device_count, Device, Module};
pub use error::CudaError;
pub use host_array::HostArray;
pub use launch::{device_ptr, grid, launch, KernelArg, Timer, ONE_THREAD};

/// cudarc itself, with the features this crate selects, so that no other crate names
/// its own version or features of it.
pub use cudarc;
/// The cudarc driver API, for device buffers (`CudaSlice`), argument blocks
/// (`DeviceRepr`) and launch shapes (`LaunchConfig`).
pub use cudarc::driver;
