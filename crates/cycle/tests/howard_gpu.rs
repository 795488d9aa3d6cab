//! The GPU Howard against the CPU algorithms: exact values, per component, on every
//! graph of Dasdan's set and on thousands of seeded random graphs. These tests need a
//! CUDA device (the first, `kernels_compile_for_sm90`, needs only libnvrtc), so they
//! are ignored in CI and run on the device machine:
//!
//! ```text
//! cargo test --release -p warpcheck-cycle --test howard_gpu -- --ignored --nocapture --test-threads 1
//! ```
//!
//! `WARPCHECK_CYCLE_MEAN`: the folder of Dasdan's graphs (default `shared/cycle-mean`
//! beside the repository); `WARPCHECK_RANDOM_GRAPHS`: how many random graphs (default
//! 1000, each solved four ways, plus as many again in unions of 100 graphs).

use std::path::{Path, PathBuf};

use warpcheck_cycle::gpu::{cuda_source, GpuHoward, GpuHowardError, GpuHowardOptions};
use warpcheck_cycle::{dimacs, solve, Algorithm, Arc, CycleError, Options, Problem, Sense, Solution, WeightedGraph};

#[test]
#[ignore = "needs libnvrtc (LD_LIBRARY_PATH)"]
fn kernels_compile_for_sm90() {
    // A fresh, empty cache: the source is really compiled.
    let cache = std::env::temp_dir().join(format!("warpcheck-howard-nvrtc-{}", std::process::id()));
    std::env::set_var("WARPCHECK_CACHE", &cache);
    let c = warpcheck_cuda::nvrtc::compile(cuda_source(), 90, &[]).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&cache);
    assert!(!c.cubin.is_empty() && !c.cached);
}

fn cycle_mean_dir() -> PathBuf {
    std::env::var_os("WARPCHECK_CYCLE_MEAN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/cycle-mean"))
}

/// Counts over a test.
#[derive(Default)]
struct Stats {
    solves: usize,
    components: usize,
    fallbacks: usize,
    rounds: u64,
}

/// The cycle's weight and time recomputed from the graph, after checking it is a cycle.
fn cycle_ratio(g: &WeightedGraph, c: &warpcheck_cycle::CriticalCycle, problem: Problem) -> (i128, i128) {
    let k = c.edges.len();
    assert!(k > 0 && c.vertices.len() == k);
    let (mut w, mut t) = (0i128, 0i128);
    for i in 0..k {
        let e = c.edges[i];
        assert_eq!(g.source(e), c.vertices[i], "edge {e} leaves its vertex");
        assert_eq!(g.target(e), c.vertices[(i + 1) % k], "edge {e} enters the next vertex");
        w += g.weight(e) as i128;
        t += if problem == Problem::Mean { 1 } else { g.time(e) as i128 };
    }
    (w, t)
}

/// GPU against CPU Howard (and Karp for means on graphs where O(nm) is quick): the same values, overall and per
/// component, and every GPU cycle a real cycle of that value.
fn compare(name: &str, g: &WeightedGraph, gpu: &GpuHoward, problem: Problem, sense: Sense, stats: &mut Stats) {
    let options = Options { problem, sense, algorithm: Algorithm::Howard };
    let cpu = solve(g, &options);
    let got = gpu.solve(g, &options, &GpuHowardOptions::default());
    let what = format!("{name} {problem:?} {sense:?}");
    let (cpu, got): (Solution, _) = match (cpu, got) {
        (Ok(c), Ok(r)) => (c, r),
        (Err(CycleError::ZeroTimeCycle { .. }), Err(GpuHowardError::Cycle(CycleError::ZeroTimeCycle { .. }))) => return,
        (c, r) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|s| s.value), r.map(|r| r.solution.value)),
    };
    let s = &got.solution;
    assert_eq!(s.value, cpu.value, "{what}: the optimum");
    assert_eq!(s.components.len(), cpu.components.len(), "{what}: cyclic components");
    for (a, b) in s.components.iter().zip(&cpu.components) {
        assert_eq!((a.representative, a.value), (b.representative, b.value), "{what}: component {}", b.representative);
        let (w, t) = cycle_ratio(g, &a.cycle, problem);
        assert_eq!((w, t), (a.cycle.weight, a.cycle.time), "{what}: the GPU cycle's weight and time");
        assert_eq!(warpcheck_cycle::Ratio::new(w, t), Some(a.value), "{what}: the GPU cycle's value");
    }
    if problem == Problem::Mean && g.vertices() as u64 * g.edges() as u64 <= 100_000_000 {
        let karp = solve(g, &Options { algorithm: Algorithm::Karp, ..options }).unwrap();
        assert_eq!(karp.value, s.value, "{what}: Karp");
    }
    stats.solves += 1;
    stats.components += s.components.len();
    stats.fallbacks += got.fallbacks;
    stats.rounds += got.rounds;
}

const WAYS: [(Problem, Sense); 4] = [
    (Problem::Mean, Sense::Min),
    (Problem::Mean, Sense::Max),
    (Problem::Ratio, Sense::Min),
    (Problem::Ratio, Sense::Max),
];

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_howard_equals_cpu_on_every_dasdan_graph() {
    let dir = cycle_mean_dir();
    let gpu = GpuHoward::new(0).unwrap_or_else(|e| panic!("{e}"));
    let mut stats = Stats::default();
    let mut graphs = 0;
    for folder in ["core", "core-bad", "core-big", "iscas", "iscas-small", "tests"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
            .unwrap_or_else(|e| panic!("{}: {e} (set WARPCHECK_CYCLE_MEAN)", dir.join(folder).display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "d"))
            .collect();
        files.sort();
        for f in files {
            let name = format!("{folder}/{}", f.file_name().unwrap().to_string_lossy());
            let g = match dimacs::read(&f) {
                Ok(d) => d.graph,
                Err(e) => panic!("{name}: {e}"),
            };
            for (problem, sense) in WAYS {
                compare(&name, &g, &gpu, problem, sense, &mut stats);
            }
            graphs += 1;
        }
    }
    assert!(graphs > 50, "only {graphs} graphs found in {}", dir.display());
    println!(
        "Dasdan: {graphs} graphs, {} solves, {} components, {} certificate fallbacks, {} device rounds ({})",
        stats.solves, stats.components, stats.fallbacks, stats.rounds, gpu.device_name
    );
}

/// xorshift64*: a small seeded generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random graph of one of several families: uniform (self-loops and parallel edges
/// arise), blocks in a chain (many SCCs, edges between blocks only forward), a ring
/// with chords (one deep SCC), or a DAG (no cycle). Weights from a random range
/// (negative too), times 0..3 (zero-time cycles arise; both sides must reject them).
fn random_arcs(rng: &mut Rng, offset: u32) -> (u32, Vec<Arc>) {
    let family = rng.below(4);
    let n = 1 + rng.below(if family == 2 { 400 } else { 60 }) as u32;
    let range = [1i64, 10, 1000, 1_000_000_000][rng.below(4) as usize];
    let arc = |rng: &mut Rng, s: u32, t: u32| Arc {
        source: s + offset,
        target: t + offset,
        weight: rng.below(2 * range as u64 + 1) as i64 - range,
        time: rng.below(4) as i64,
    };
    let mut arcs = Vec::new();
    match family {
        0 => {
            for _ in 0..rng.below(4 * n as u64 + 1) {
                let (s, t) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                arcs.push(arc(rng, s, t));
            }
        }
        1 => {
            let block = 1 + rng.below(6) as u32;
            for _ in 0..3 * n {
                let s = rng.below(n as u64) as u32;
                let t = if rng.below(4) == 0 {
                    (s + rng.below(n as u64) as u32).min(n - 1)
                } else {
                    (s / block * block + rng.below(block as u64) as u32).min(n - 1)
                };
                arcs.push(arc(rng, s, t));
            }
        }
        2 => {
            for v in 0..n {
                arcs.push(arc(rng, v, (v + 1) % n));
                if rng.below(3) == 0 {
                    let t = rng.below(n as u64) as u32;
                    arcs.push(arc(rng, v, t));
                }
            }
        }
        _ => {
            for _ in 0..2 * n {
                let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                if a < b {
                    arcs.push(arc(rng, a, b));
                }
            }
        }
    }
    // Times all positive on a quarter of the graphs, so ratios get solved, not rejected.
    if rng.below(4) == 0 {
        arcs.iter_mut().for_each(|a| a.time += 1);
    }
    (n, arcs)
}

fn random_graphs() -> u64 {
    std::env::var("WARPCHECK_RANDOM_GRAPHS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_howard_equals_cpu_on_random_graphs() {
    let gpu = GpuHoward::new(0).unwrap_or_else(|e| panic!("{e}"));
    let mut stats = Stats::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..random_graphs() {
        let (n, arcs) = random_arcs(&mut rng, 0);
        let g = WeightedGraph::from_arcs(n as u64, &arcs).unwrap();
        for (problem, sense) in WAYS {
            compare(&format!("random graph {i}"), &g, &gpu, problem, sense, &mut stats);
        }
    }
    // Unions of 100 graphs: many components in one solve.
    for i in 0..random_graphs().div_ceil(100) {
        let (mut n, mut arcs) = (0u32, Vec::new());
        for _ in 0..100 {
            let (k, more) = random_arcs(&mut rng, n);
            n += k;
            arcs.extend(more);
        }
        // Keep ratios solvable: no zero times in unions (one bad part rejects all).
        arcs.iter_mut().for_each(|a| a.time = a.time.max(1));
        let g = WeightedGraph::from_arcs(n as u64, &arcs).unwrap();
        for (problem, sense) in WAYS {
            compare(&format!("union {i}"), &g, &gpu, problem, sense, &mut stats);
        }
    }
    println!(
        "random: {} solves, {} components, {} certificate fallbacks, {} device rounds",
        stats.solves, stats.components, stats.fallbacks, stats.rounds
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_howard_equals_cpu_on_large_rings() {
    // Deep components: long BFS levels and pointer-jumping chains.
    let gpu = GpuHoward::new(0).unwrap_or_else(|e| panic!("{e}"));
    let mut stats = Stats::default();
    let mut rng = Rng(42);
    for &n in &[10_000u32, 200_000, 1_000_000] {
        let mut arcs = Vec::new();
        for v in 0..n {
            let w = rng.below(2001) as i64 - 1000;
            arcs.push(Arc { source: v, target: (v + 1) % n, weight: w, time: 1 + rng.below(3) as i64 });
            if rng.below(8) == 0 {
                let t = rng.below(n as u64) as u32;
                let w = rng.below(2001) as i64 - 1000;
                arcs.push(Arc { source: v, target: t, weight: w, time: 1 + rng.below(3) as i64 });
            }
        }
        let g = WeightedGraph::from_arcs(n as u64, &arcs).unwrap();
        for (problem, sense) in WAYS {
            compare(&format!("ring {n}"), &g, &gpu, problem, sense, &mut stats);
        }
    }
    println!(
        "rings: {} solves, {} certificate fallbacks, {} device rounds",
        stats.solves, stats.fallbacks, stats.rounds
    );
}
