//! The GPU exploration engine, beside the CPU engines of this crate: a [`CudaModel`](warpcheck_model::CudaModel) hands its
//! successor function as C source (DVE's generator: `warpcheck_dve::codegen`), which is
//! compiled at run time with NVRTC and explored breadth first entirely on the device.
//!
//! - [`engine`]: the device-resident state store and the breadth-first search (optionally
//!   recording the product graph);
//! - [`partitioned`]: the same search over a store partitioned by a hash of the state,
//!   on several GPUs or as several partitions of one, with the transport seam
//!   (`transport.rs`: NCCL or device copies) between them;
//! - [`partitioned_graph`]: the product graph of a partitioned search, gathered on the
//!   first GPU for LTL;
//! - `host_slots`: the compressed store's index of states, in pinned host memory;
//! - `plan`: the compressed store's plans (device and host memory, runs again);
//!   `compact`: the layout of its compact hash sets;
//! - [`state_graph`]: a model's state graph recorded by the engine on the device and
//!   copied back as a CSR;
//!
//! The GPU twin of the accepting-cycle engines (OWCTY, MAP on the product graph this
//! engine records) is `warpcheck_liveness::gpu`, which builds on [`engine`].
//!
//! The CUDA runtime (devices, NVRTC and its cache, launches, [`CudaError`]) is
//! `warpcheck-cuda`; the GPU graph algorithms sit beside their CPU versions
//! (`warpcheck_scc::gpu`, `warpcheck_cycle::gpu`).

mod compact;
pub mod engine;
mod host_slots;
pub mod partitioned;
pub mod partitioned_graph;
mod plan;
pub mod state_graph;
mod transport;
pub mod tree;

pub use compact::{SetLayout, BUCKET};
pub use engine::{device_count, explore_gpu, GpuError, GpuOptions, GpuReport, GpuStore};
pub use warpcheck_cuda::{device_available, CudaError};

impl From<CudaError> for GpuError {
    /// The runtime's errors as the engine's: a missing device stays one, NVRTC's
    /// messages stay compilation errors, everything else is a CUDA error.
    fn from(e: CudaError) -> GpuError {
        match e {
            CudaError::NoDevice(why) => GpuError::NoDevice(why),
            CudaError::Compile(log) => GpuError::Compile(log),
            CudaError::Driver(e) => GpuError::Cuda(format!("{e:?}")),
            e @ (CudaError::OutOfMemory { .. } | CudaError::Internal(_)) => GpuError::Cuda(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_errors_keep_their_kind() {
        let e = GpuError::from(CudaError::NoDevice("the CUDA driver reports no device".into()));
        assert!(matches!(e, GpuError::NoDevice(_)), "{e}");
        assert_eq!(e.to_string(), "no CUDA device: the CUDA driver reports no device");
        assert!(matches!(GpuError::from(CudaError::Compile("log".into())), GpuError::Compile(s) if s == "log"));
        let e = GpuError::from(CudaError::OutOfMemory { what: "x".into(), need: 2, free: 1 });
        assert_eq!(e.to_string(), "CUDA error: out of device memory: x needs 2 bytes of device memory, 1 are free");
    }
}
