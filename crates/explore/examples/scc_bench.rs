//! SCC benchmark of one machine: per graph, Tarjan, the parallel CPU algorithms and the
//! GPU algorithms on the same in-memory graph, every answer checked against Tarjan's.
//! Prints one JSON line per graph and per algorithm as soon as it is measured (so a
//! run cut short keeps what it measured). `warpcheck-bench scc` (crates/bench) measures the same
//! algorithms through the `warpcheck` binary and makes the tables.
//!
//! ```text
//! cargo run --release -p warpcheck-explore --example scc_bench -- [--runs 3] [--cpu-runs 1] [--threads 16] \
//!     [--skip cpu-coloring,gpu-fb-coloring,...] [--overflow wrap] GRAPH...
//! ```
//!
//! A GRAPH is `MODEL.dve` (its state graph, built by the GPU engine on the device and
//! copied back), `cpu:MODEL.dve` (built by the CPU's sequential `state_graph`), or
//! `er:N`, `rmat:N`, `ssca2:N` (N vertices, average degree 12, seed 1, as `warpcheck
//! generate`). `--overflow wrap` explores models with wrapping assignments (the rule
//! of LTSmin's rows of the reference, anderson.3's among them).
//! Times are medians of `runs` GPU runs after a first, uncounted one (compilation,
//! warm-up) and of `cpu-runs` runs of Tarjan and the CPU algorithms.

use std::time::Instant;

use warpcheck_dve::Overflow;
use warpcheck_explore::gpu::state_graph::state_graph_gpu;
use warpcheck_explore::gpu::GpuOptions;
use warpcheck_graph::generate::{erdos_renyi, rmat, ssca2, RmatParams, Ssca2Params};
use warpcheck_graph::Graph;
use warpcheck_scc::gpu::{GpuSccAlgorithm, GpuSccReport, SccDevice};
use warpcheck_scc::{decompose, tarjan::tarjan, Algorithm, Components, Options, Summary};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str| -> Option<String> {
        let i = args.iter().position(|a| a == flag)?;
        let value = args.get(i + 1).cloned();
        args.drain(i..(i + 2).min(args.len()));
        value
    };
    let runs: usize = take("--runs").map_or(3, |v| v.parse().expect("--runs N"));
    let cpu_runs: usize = take("--cpu-runs").map_or(1, |v| v.parse().expect("--cpu-runs N"));
    let threads: usize = take("--threads")
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |v| v.parse().unwrap());
    let skip: Vec<String> = take("--skip").map_or_else(Vec::new, |v| v.split(',').map(String::from).collect());
    let overflow = match take("--overflow").as_deref() {
        None | Some("error") => Overflow::Error,
        Some("wrap") => Overflow::Wrap,
        Some(other) => panic!("--overflow error|wrap, not {other}"),
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let device = SccDevice::new(0).unwrap_or_else(|e| panic!("{e}"));
    for spec in &args {
        let start = Instant::now();
        let (graph, built) = load(spec, overflow);
        let build = start.elapsed().as_secs_f64();
        let start = Instant::now();
        graph.backward();
        let backward = start.elapsed().as_secs_f64();
        println!(
            "{{\"graph\":\"{spec}\",\"vertices\":{},\"edges\":{},\"build_seconds\":{build:.3}{built},\"backward_seconds\":{backward:.3}}}",
            graph.vertices(),
            graph.edges()
        );
        let (want, seconds) = timed(cpu_runs, || tarjan(graph.forward()));
        print_line(spec, "tarjan", "cpu", seconds, &want, &want, None);
        // Coloring last: the slowest on some graphs, so a timeout loses least.
        let order = [GpuSccAlgorithm::Fb, GpuSccAlgorithm::FbColoring, GpuSccAlgorithm::Obf, GpuSccAlgorithm::Coloring];
        for a in order {
            if !skip.contains(&format!("gpu-{}", a.name())) {
                let _warm = device.decompose(&graph, a).unwrap_or_else(|e| panic!("{spec}: {e}"));
                let mut reports: Vec<(GpuSccReport, Components)> = (0..runs)
                    .map(|_| {
                        let r = device.decompose(&graph, a).unwrap_or_else(|e| panic!("{spec}: {e}"));
                        (r.report, r.components)
                    })
                    .collect();
                reports.sort_by(|x, y| x.0.kernel_seconds.total_cmp(&y.0.kernel_seconds));
                let (report, got) = reports.swap_remove(runs / 2);
                print_line(spec, a.name(), "gpu", report.kernel_seconds, &got, &want, Some(&report));
            }
        }
        for a in [Algorithm::FbTrim, Algorithm::Obf, Algorithm::Coloring] {
            if !skip.contains(&format!("cpu-{}", a.name())) {
                let (got, seconds) = timed(cpu_runs, || pool.install(|| decompose(&graph, a, &Options::default())));
                print_line(spec, a.name(), "cpu", seconds, &got, &want, None);
            }
        }
    }
}

/// The graph of `spec`, and for a state graph the JSON fields of how it was built.
fn load(spec: &str, overflow: Overflow) -> (Graph, String) {
    let size = |s: &str| -> u32 { s.parse().unwrap_or_else(|_| panic!("bad size in {spec}")) };
    let model = |path: &str| {
        let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut dve = warpcheck_dve::load(&source).unwrap_or_else(|d| panic!("{}", d.render(path, &source)));
        dve.model.overflow = overflow;
        dve.model
    };
    match spec.split_once(':') {
        Some(("er", n)) => (erdos_renyi(size(n), 12.0, 1), String::new()),
        Some(("rmat", n)) => (rmat(size(n), 12.0, &RmatParams::default(), 1), String::new()),
        Some(("ssca2", n)) => (ssca2(size(n), &Ssca2Params::default(), 1), String::new()),
        Some(("cpu", path)) => {
            let sg = warpcheck_explore::state_graph(&model(path), None).unwrap_or_else(|e| panic!("{spec}: {e}"));
            (sg.graph, ",\"built_by\":\"cpu\"".into())
        }
        _ => {
            let g = state_graph_gpu(&model(spec), &GpuOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
            let r = &g.report;
            let fields = format!(
                ",\"built_by\":\"gpu\",\"compile_seconds\":{:.3},\"explore_seconds\":{:.3},\"copy_seconds\":{:.3}",
                r.compile_seconds,
                r.setup_seconds + r.explore_seconds,
                g.copy_seconds
            );
            (g.state_graph.graph, fields)
        }
    }
}

/// The result of the first run and the median time of `runs`.
fn timed(runs: usize, mut f: impl FnMut() -> Components) -> (Components, f64) {
    let mut first = None;
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let c = f();
        times.push(start.elapsed().as_secs_f64());
        first.get_or_insert(c);
    }
    times.sort_by(f64::total_cmp);
    (first.unwrap(), times[times.len() / 2])
}

fn print_line(
    spec: &str,
    algorithm: &str,
    backend: &str,
    seconds: f64,
    got: &Components,
    want: &Components,
    gpu: Option<&GpuSccReport>,
) {
    let s = Summary::of(got);
    let mut line = format!(
        "{{\"graph\":\"{spec}\",\"algorithm\":\"{algorithm}\",\"backend\":\"{backend}\",\"seconds\":{seconds:.6},\
         \"agrees\":{},\"sccs\":{},\"nontrivial\":{},\"largest\":{}",
        got == want,
        s.sccs,
        s.nontrivial,
        s.largest
    );
    if let Some(g) = gpu {
        line += &format!(
            ",\"upload_seconds\":{:.6},\"download_seconds\":{:.6},\"rounds\":{},\"levels\":{},\"launches\":{},\"device\":\"{}\"",
            g.upload_seconds, g.download_seconds, g.rounds, g.levels, g.launches, g.device_name
        );
        if let Some(round) = g.coloring_from_round {
            line += &format!(",\"coloring_from_round\":{round}");
        }
    }
    println!("{line}}}");
}
