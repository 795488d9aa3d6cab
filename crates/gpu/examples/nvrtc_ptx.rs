fn main() {
    let path = std::env::args().nth(1).unwrap();
    let extra: Vec<String> = std::env::args().skip(2).collect();
    let src = std::fs::read_to_string(path).unwrap();
    let t = std::time::Instant::now();
    let opts = cudarc::nvrtc::CompileOptions { arch: Some("compute_90"), options: extra, ..Default::default() };
    let r = cudarc::nvrtc::compile_ptx_with_opts(&src, opts);
    println!("ptx: ok={} {:.2}s", r.is_ok(), t.elapsed().as_secs_f64());
}
