//! Prints the complete CUDA source warpcheck generates for a DVE model, or with
//! `--compile` compiles it with NVRTC for sm_90 (no GPU needed, only libnvrtc) and
//! prints the time: `cargo run -p warpcheck-liveness --example gen_cuda -- model.dve [--compile]`;
//! `--resources` prints ptxas's report of each kernel's registers and stack frame.
//! With `--ltl`, the source of an LTL check (graph recording, OWCTY and MAP kernels);
//! with `--graph`, that of a state-graph exploration (graph recording alone); with
//! `--compressed`, that of an exploration with the compressed store.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("usage: gen_cuda MODEL.dve [--compile]");
    let source = std::fs::read_to_string(path).expect("read the model");
    let dve = warpcheck_dve::load(&source).unwrap_or_else(|d| panic!("{}", d.render(path, &source)));
    let generated = warpcheck_dve::codegen::generate(&dve.model, &[]).expect("generate");
    let tuning = warpcheck_explore::gpu::engine::Tuning::from_env();
    let cuda = if args.iter().any(|a| a == "--ltl") {
        warpcheck_liveness::gpu::cuda_source(&generated, &tuning)
    } else if args.iter().any(|a| a == "--compressed") {
        let order = warpcheck_explore::leaf_order::for_model(&dve.model);
        warpcheck_explore::gpu::engine::compressed_source(&generated, &tuning, &order)
    } else if args.iter().any(|a| a == "--graph") {
        warpcheck_explore::gpu::state_graph::cuda_source(&generated, &tuning)
    } else {
        warpcheck_explore::gpu::engine::tuned_source(&generated, &tuning)
    };
    if args.iter().any(|a| a == "--resources") {
        match warpcheck_cuda::nvrtc::resource_report(&cuda, 90, &tuning.nvrtc_options()) {
            Ok(log) => print!("{log}"),
            Err(e) => println!("{path}: {e}"),
        }
    } else if args.iter().any(|a| a == "--compile") {
        // Uncached (a true compile time), unless WARPCHECK_CACHE names where the cubin goes.
        if std::env::var_os("WARPCHECK_CACHE").is_none() {
            std::env::set_var("WARPCHECK_CACHE", "/nonexistent/warpcheck-no-cache");
        }
        match warpcheck_cuda::nvrtc::compile(&cuda, 90, &[]) {
            Ok(c) => println!("{path}: {} bytes of cubin in {:.2} s", c.cubin.len(), c.seconds),
            Err(e) => println!("{path}: {e}"),
        }
    } else {
        print!("{cuda}");
    }
}
