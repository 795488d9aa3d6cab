//! The GPU builder's CUDA sources compiled by NVRTC for an H100 (`sm_90`), without a
//! device: for every PRISM instance of `shared/markov`, the exploration kernels with
//! the model's C (plain and recording the state graph, as the builder runs them) and
//! weigh.cu with the model's `wc_branches`; and the solvers' sweeps with the MEC
//! decomposition's kernels (sweeps.cu, mec.cu). Catches what a host C++ compiler accepts
//! and NVRTC does not.
//!
//! Needs NVRTC (`libnvrtc.so.13` on the library path, e.g. from the PyPI package
//! `nvidia-cuda-nvrtc`): ignored otherwise. Run with
//! `LD_LIBRARY_PATH=DIR cargo test -p warpcheck-markov-gpu --test nvrtc -- --ignored`.

#[path = "../../prism/tests/common/mod.rs"]
mod common;

use warpcheck_cuda::nvrtc;
use warpcheck_explore::gpu::engine::{cuda_source, Tuning};
use warpcheck_explore::gpu::state_graph;
use warpcheck_markov_gpu::builder::WEIGH_SOURCE;
use warpcheck_markov_gpu::lanes::SOURCE;
use warpcheck_model::cuda::CudaModel;

#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn every_instance_compiles_with_nvrtc() {
    assert!(nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    let tuning = Tuning::from_env();
    let mut compiled = 0;
    for folder in common::prism_instances() {
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        let model = common::load_instance(&folder);
        let generated = model.cuda_source(&[]).unwrap();
        let weigh = WEIGH_SOURCE.replace("// @@MODEL@@", &generated.source);
        for (what, source, options) in [
            ("exploration", cuda_source(&generated), tuning.nvrtc_options()),
            ("state graph", state_graph::cuda_source(&generated, &tuning), tuning.nvrtc_options()),
            ("weigh", weigh, vec!["--fmad=false".to_string()]),
        ] {
            nvrtc::compile(&source, 90, &options).unwrap_or_else(|e| panic!("{name}, {what}: {e}"));
        }
        compiled += 1;
    }
    assert!(compiled >= 20, "only {compiled} instances");
}

#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn sweeps_and_mec_kernels_compile_with_nvrtc() {
    assert!(nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    nvrtc::compile(SOURCE, 90, &["--fmad=false".to_string()]).unwrap_or_else(|e| panic!("sweeps.cu + mec.cu: {e}"));
}
