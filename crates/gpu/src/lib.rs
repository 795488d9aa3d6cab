//! The GPU engine of warpcheck: a [`CudaModel`](warpcheck_model::CudaModel) hands its
//! successor function as C source (DVE's generator: `warpcheck_dve::codegen`), which is
//! compiled at run time with NVRTC and explored breadth first entirely on the device.
//!
//! - [`nvrtc`]: run-time compilation to a cubin, cached on disk;
//! - [`engine`]: the device-resident state store and the breadth-first search (optionally
//!   recording the product graph);
//! - [`state_graph`]: a model's state graph recorded by the engine on the device and
//!   copied back as a CSR;
//! - [`scc`]: SCC decomposition of explicit graphs (FB with trimming, Coloring, OBF);
//! - [`howard`]: Howard's policy iteration for the optimal cycle mean and ratio, all
//!   SCCs at once, exact by a host-side certificate;
//! - [`ltl`]: LTL accepting-cycle detection (OWCTY, MAP) on the product graph the
//!   engine records, on the device.

pub mod engine;
pub mod howard;
pub mod ltl;
pub mod nvrtc;
pub mod scc;
pub mod state_graph;

pub use engine::{device_available, device_count, explore_gpu, GpuError, GpuOptions, GpuReport};
