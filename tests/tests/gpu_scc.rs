//! SCC decomposition on the GPU (`crates/scc/src/gpu/`) against Tarjan.
//!
//! - Without a GPU (CI): the kernels of `scc.cu` run on the host, sequentially, under
//!   the emulator `gpu_scc_emulator.cpp` (compiled with `c++`), which drives them with
//!   the host loop of `warpcheck_scc::gpu`: every algorithm gives Tarjan's partition
//!   on thousands of seeded random graphs of every family below.
//! - With a GPU (ignored in CI; on the device machine):
//!
//! ```text
//! cargo test --release -p warpcheck-conformance --test gpu_scc -- --ignored --nocapture --test-threads 1
//! ```
//!
//! the same graphs on the device, and the state graphs of every BEEM instance of
//! `reference.csv` up to `WARPCHECK_MAX_STATES` (default 200,000) states; and the
//! state graphs the GPU engine builds (`warpcheck_explore::gpu::state_graph`) against the CPU's,
//! up to `WARPCHECK_MAX_STATES` (default 2,000,000) states, leaving out the models
//! named in `WARPCHECK_SKIP` (e.g. `plc`, whose NVRTC compilation takes minutes).

use std::io::Write;
use std::process::{Command, Stdio};

use warpcheck_conformance::*;
use warpcheck_explore::gpu::state_graph::{compile_for_device, state_graph_gpu};
use warpcheck_explore::gpu::GpuOptions;
use warpcheck_graph::generate::{erdos_renyi, rmat, ssca2, RmatParams, SplitMix64, Ssca2Params};
use warpcheck_graph::Graph;
use warpcheck_scc::gpu::{GpuSccAlgorithm, SccDevice};
use warpcheck_scc::{tarjan::tarjan, Components, Summary};

const GPU_ALGORITHMS: [GpuSccAlgorithm; 4] = GpuSccAlgorithm::ALL;

/// A shuffled order of `0..n`.
fn shuffled(n: usize, rng: &mut SplitMix64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// One graph of family `seed % 9`, seeded: arbitrary (self-loops, duplicates, the
/// empty graph), one big SCC, chains (of vertices or of 2-cycles), planted many small
/// SCCs, DAGs, and small Erdős-Rényi, R-MAT and SSCA#2 instances.
fn graph(seed: u64) -> (String, Graph) {
    let mut rng = SplitMix64::new(seed);
    let family = seed % 9;
    let n = if seed.is_multiple_of(50) { 2000 } else { rng.below(80) as usize };
    let mut edges = Vec::new();
    let name = match family {
        0 => {
            for _ in 0..rng.below(4 * n as u64 + 8) {
                if n > 0 {
                    edges.push((rng.below(n as u64) as u32, rng.below(n as u64) as u32));
                }
            }
            "arbitrary"
        }
        1 => {
            let order = shuffled(n, &mut rng);
            edges.extend(order.windows(2).map(|w| (w[0], w[1])));
            if n > 1 {
                edges.push((order[n - 1], order[0]));
            }
            for _ in 0..n / 2 {
                edges.push((rng.below(n as u64) as u32, rng.below(n as u64) as u32));
            }
            "one big SCC"
        }
        2 | 3 => {
            let order = shuffled(n, &mut rng);
            edges.extend(order.windows(2).map(|w| (w[0], w[1])));
            if family == 3 {
                edges.extend(order.windows(2).step_by(2).map(|w| (w[1], w[0])));
            }
            if family == 2 {
                "chain"
            } else {
                "chain of 2-cycles"
            }
        }
        4 => {
            // Groups of 1-6 vertices, each a cycle (a single vertex with or without a
            // self-loop), plus edges from lower to higher groups only.
            let order = shuffled(n, &mut rng);
            let mut group = vec![0usize; n];
            let (mut start, mut g) = (0, 0);
            while start < n {
                let size = (1 + rng.below(6) as usize).min(n - start);
                let members = &order[start..start + size];
                for (i, &v) in members.iter().enumerate() {
                    group[v as usize] = g;
                    if size > 1 || rng.below(2) == 0 {
                        edges.push((v, members[(i + 1) % size]));
                    }
                }
                start += size;
                g += 1;
            }
            for _ in 0..2 * n {
                let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                if group[a as usize] < group[b as usize] {
                    edges.push((a, b));
                }
            }
            "many small SCCs"
        }
        5 => {
            for _ in 0..2 * n {
                let (a, b) = (rng.below((n as u64).max(1)) as u32, rng.below((n as u64).max(1)) as u32);
                if a < b {
                    edges.push((a, b));
                }
            }
            "DAG"
        }
        6 => return ("Erdős-Rényi".into(), erdos_renyi(n as u32, 1.0 + rng.below(4) as f64, seed)),
        7 => return ("R-MAT".into(), rmat(n.max(1) as u32, 4.0, &RmatParams::default(), seed)),
        _ => return ("SSCA#2".into(), ssca2(n.max(1) as u32, &Ssca2Params::default(), seed)),
    };
    (name.into(), Graph::from_edges(n as u64, &edges).unwrap())
}

const GRAPHS: u64 = 3000;

/// Builds the emulator once per test process.
fn emulator() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-scc-emulator-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("emulator");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu_scc_emulator.cpp");
    let out = Command::new("c++")
        .args(["-x", "c++", "-std=c++17", "-O2", "-w", "-o"])
        .arg(&exe)
        .arg(&source)
        .output()
        .expect("cannot run the C++ compiler `c++`");
    assert!(out.status.success(), "c++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

#[test]
fn emulated_kernels_match_tarjan_on_thousands_of_random_graphs() {
    let graphs: Vec<(String, Graph)> = (0..GRAPHS).map(graph).collect();
    let mut input = String::new();
    for (_, g) in &graphs {
        input += &format!("{} {}\n", g.vertices(), g.edges());
        for (u, v) in g.forward().edge_iter() {
            input += &format!("{u} {v}\n");
        }
    }
    let mut child =
        Command::new(emulator()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the emulator failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let mut failures = Vec::new();
    for (seed, (name, g)) in graphs.iter().enumerate() {
        let want = tarjan(g.forward());
        for a in GPU_ALGORITHMS {
            let line = lines.next().expect("the emulator wrote too few lines");
            let labels: Vec<u32> = line.split_whitespace().map(|w| w.parse().unwrap()).collect();
            assert_eq!(labels.len(), g.vertices(), "graph {seed}");
            if Components::from_labels(labels) != want {
                failures.push(format!("graph {seed} ({name}, {} vertices): {} differs", g.vertices(), a.name()));
            }
        }
    }
    assert!(lines.next().is_none(), "the emulator wrote too many lines");
    // fb-coloring must have run both kinds of rounds on many graphs.
    let stderr = String::from_utf8(out.stderr).unwrap();
    let hand_overs: u64 = stderr.trim().strip_prefix("hand-overs ").and_then(|n| n.parse().ok()).unwrap();
    assert!(hand_overs > GRAPHS / 10, "fb-coloring handed over to Coloring on only {hand_overs} graphs");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_families_cover_what_the_issue_asks() {
    let names: std::collections::BTreeSet<String> = (0..100).map(|s| graph(s).0).collect();
    assert_eq!(names.len(), 9, "{names:?}");
    assert!((0..GRAPHS).any(|s| graph(s).1.vertices() == 0), "no empty graph");
    assert!((0..GRAPHS).any(|s| graph(s).1.vertices() >= 2000), "no larger graph");
    let g = graph(1).1;
    assert!(tarjan(g.forward()).of.iter().all(|&c| c == 0), "family 1 is one SCC");
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_matches_tarjan_on_thousands_of_random_graphs() {
    let device = SccDevice::new(0).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for seed in 0..GRAPHS {
        let (name, g) = graph(seed);
        let want = tarjan(g.forward());
        for a in GPU_ALGORITHMS {
            match device.decompose(&g, a) {
                Ok(got) if got.components == want => {}
                Ok(_) => failures.push(format!("graph {seed} ({name}): {} differs", a.name())),
                Err(e) => failures.push(format!("graph {seed} ({name}): {}: {e}", a.name())),
            }
        }
    }
    eprintln!("{} graphs x {} algorithms on {}", GRAPHS, GPU_ALGORITHMS.len(), device.device_name);
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_matches_tarjan_on_larger_synthetic_graphs() {
    let device = SccDevice::new(0).unwrap_or_else(|e| panic!("{e}"));
    let graphs = [
        ("er 200k", erdos_renyi(200_000, 12.0, 7)),
        ("er 200k degree 1.5", erdos_renyi(200_000, 1.5, 7)),
        ("rmat 200k", rmat(200_000, 12.0, &RmatParams::default(), 7)),
        ("ssca2 200k", ssca2(200_000, &Ssca2Params::default(), 7)),
        ("chain 1M", Graph::from_edges(1_000_000, &(0..999_999).map(|v| (v, v + 1)).collect::<Vec<_>>()).unwrap()),
    ];
    let mut failures = Vec::new();
    for (name, g) in &graphs {
        let want = tarjan(g.forward());
        for a in GPU_ALGORITHMS {
            match device.decompose(g, a) {
                Ok(got) if got.components == want => {
                    eprintln!(
                        "{name}: {} ok, {} rounds, {:.4} s",
                        a.name(),
                        got.report.rounds,
                        got.report.kernel_seconds
                    )
                }
                Ok(_) => failures.push(format!("{name}: {} differs", a.name())),
                Err(e) => failures.push(format!("{name}: {}: {e}", a.name())),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_matches_tarjan_on_beem_state_graphs() {
    let max = max_states(200_000);
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= max).collect();
    let device = SccDevice::new(0).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for r in &rows {
        let mut model = load_file(&r.model_path(&beem));
        model.model.overflow = r.overflow();
        let sg = match warpcheck_explore::state_graph(&model.model, None) {
            Ok(sg) => sg,
            Err(e) => {
                failures.push(format!("{}: {e}", r.instance));
                continue;
            }
        };
        let g = &sg.graph;
        let want = tarjan(g.forward());
        for a in GPU_ALGORITHMS {
            match device.decompose(g, a) {
                Ok(got) if got.components == want => {}
                Ok(_) => failures.push(format!("{}: {} differs from Tarjan", r.instance, a.name())),
                Err(e) => failures.push(format!("{}: {}: {e}", r.instance, a.name())),
            }
        }
    }
    eprintln!("{} BEEM instances up to {max} states, {} algorithms", rows.len(), GPU_ALGORITHMS.len());
    assert!(failures.is_empty(), "{} of {} instances fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

fn max_states(default: u64) -> u64 {
    std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The GPU engine's state graphs: the CPU's vertices, edges, deadlocks and error state,
/// the same SCC summary (Tarjan on both), and fb-coloring equal to Tarjan on them.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_state_graphs_are_the_cpus() {
    let max = max_states(2_000_000);
    let skip: Vec<String> =
        std::env::var("WARPCHECK_SKIP").map_or(Vec::new(), |v| v.split(',').map(String::from).collect());
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem)
        .into_iter()
        .filter(|r| r.states <= max && !skip.iter().any(|m| r.instance.split('.').next() == Some(m.as_str())))
        .collect();
    let model = |r: &Reference| {
        let mut dve = load_file(&r.model_path(&beem));
        dve.model.overflow = r.overflow();
        dve.model
    };
    // Compile every model first, in parallel (NVRTC takes up to seconds per model).
    let compile_failures = parallel_failures(&rows, |r| {
        compile_for_device(&model(r), 0).map(|_| ()).map_err(|e| format!("{}: {e}", r.instance))
    });
    assert!(compile_failures.is_empty(), "compilation failed:\n{}", compile_failures.join("\n"));
    let device = SccDevice::new(0).unwrap_or_else(|e| panic!("{e}"));
    // 8 GiB: the instances tested fit, and smaller buffers are set up faster.
    let options = GpuOptions { memory: Some(8 << 30), ..GpuOptions::default() };
    let mut failures = Vec::new();
    let (mut cpu_seconds, mut gpu_seconds) = (0.0, 0.0);
    for r in &rows {
        let m = model(r);
        let start = std::time::Instant::now();
        let cpu = warpcheck_explore::state_graph(&m, None).unwrap_or_else(|e| panic!("{}: {e}", r.instance));
        cpu_seconds += start.elapsed().as_secs_f64();
        let start = std::time::Instant::now();
        let gpu = match state_graph_gpu(&m, &options) {
            Ok(g) => {
                gpu_seconds += start.elapsed().as_secs_f64();
                g.state_graph
            }
            Err(e) => {
                failures.push(format!("{}: {e}", r.instance));
                continue;
            }
        };
        let shape = |sg: &warpcheck_explore::StateGraph| {
            (sg.graph.vertices() as u64, sg.graph.edges(), sg.deadlocks, sg.error_state)
        };
        if shape(&gpu) != shape(&cpu) {
            failures.push(format!("{}: GPU {:?}, CPU {:?}", r.instance, shape(&gpu), shape(&cpu)));
            continue;
        }
        // Counts and the size histogram: equal for isomorphic graphs.
        let want = Summary::of(&tarjan(cpu.graph.forward()));
        let components = tarjan(gpu.graph.forward());
        if Summary::of(&components) != want {
            failures.push(format!("{}: SCCs of the GPU's graph differ from the CPU's", r.instance));
        }
        match device.decompose(&gpu.graph, GpuSccAlgorithm::FbColoring) {
            Ok(d) if d.components == components => {}
            Ok(_) => failures.push(format!("{}: fb-coloring differs from Tarjan on the GPU's graph", r.instance)),
            Err(e) => failures.push(format!("{}: fb-coloring: {e}", r.instance)),
        }
    }
    eprintln!(
        "{} BEEM instances up to {max} states: state graphs built in {cpu_seconds:.1} s on the CPU (sequential), \
         {gpu_seconds:.1} s by the GPU engine (compiled kernels cached)",
        rows.len()
    );
    assert!(failures.is_empty(), "{} of {} instances fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
}
