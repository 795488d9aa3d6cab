//! The host parts of the GPU Howard, timed without a GPU: the SCC split, the layout
//! ([`Compact::new`]) and the exact finish ([`finish`]: certificates, fallbacks) of the
//! weighted state graph of a DVE model, with an optimal policy from the CPU standing in
//! for the device's final one.
//!
//! ```text
//! cargo run --release -p warpcheck-cycle --example howard_host -- MODEL.dve --weight EXPR [--max] \
//!     [--threads N] [--runs 3]
//! ```
//!
//! The graph is built as `warpcheck cycle-mean MODEL --weight EXPR` builds it (the
//! weight of a transition evaluated on its target state, mean, not ratio). The stand-in
//! policy: the CPU Howard's critical cycle, then shortest reduced paths to it
//! (label-correcting, exact; no negative cycle since λ is optimal), the hint its values
//! as `f64`. `finish` runs twice per run: with that hint, and with a useless one (NaN),
//! which times the exact walk along the policy. Prints the fastest of `runs` (the
//! least disturbed by other load on the machine).

use std::collections::VecDeque;
use std::time::Instant;

use warpcheck_cycle::components::{split, subgraphs, Subgraph};
use warpcheck_cycle::gpu::{finish, Compact};
use warpcheck_cycle::{howard, Problem, Sense, WeightedGraph};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str| -> Option<String> {
        let i = args.iter().position(|a| a == flag)?;
        let value = args.get(i + 1).cloned();
        args.drain(i..(i + 2).min(args.len()));
        value
    };
    let weight = take("--weight").expect("--weight EXPR");
    let runs: usize = take("--runs").map_or(3, |v| v.parse().expect("--runs N"));
    let threads: usize = take("--threads")
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |v| v.parse().unwrap());
    let sense = match args.iter().position(|a| a == "--max") {
        Some(i) => {
            args.remove(i);
            Sense::Max
        }
        None => Sense::Min,
    };
    let [path] = &args[..] else { panic!("one MODEL.dve") };
    let start = Instant::now();
    let graph = load(path, &weight);
    println!("{path}: {} vertices, {} edges, loaded in {:.2} s", graph.vertices(), graph.edges(), secs(start));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let best = |f: &mut dyn FnMut() -> f64| (0..runs.max(1)).map(|_| f()).fold(f64::INFINITY, f64::min);
        let comps = split(&graph);
        let split = best(&mut || {
            let start = Instant::now();
            drop(split(&graph));
            secs(start)
        });
        let tarjan = best(&mut || {
            let start = Instant::now();
            drop(warpcheck_scc::tarjan::tarjan(graph.csr()));
            secs(start)
        });
        let layout = best(&mut || {
            let start = Instant::now();
            drop(Compact::new(&graph, &comps, Problem::Mean, sense).unwrap());
            secs(start)
        });
        let compact = Compact::new(&graph, &comps, Problem::Mean, sense).unwrap();
        let start = Instant::now();
        let (policy, sources, values) = stand_in(&graph, &comps, &compact, sense);
        println!("{} cyclic components; stand-in policy in {:.2} s", compact.components(), secs(start));
        let nan = vec![f64::NAN; values.len()];
        let certify = |hint: &[f64]| {
            best(&mut || {
                let start = Instant::now();
                let done = finish(&graph, &compact, Problem::Mean, &policy, &sources, hint).unwrap();
                assert!(done.iter().all(|d| d.1.is_none()), "an optimal policy failed its certificate");
                secs(start)
            })
        };
        let (hinted, walked) = (certify(&values), certify(&nan));
        println!(
            "threads {threads}: SCC split {split:.3} s (Tarjan alone {tarjan:.3} s), layout {layout:.3} s, \
             finish {hinted:.3} s (hint), {walked:.3} s (walk)"
        );
    });
}

fn secs(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// The weighted state graph of the model at `path`, as `warpcheck cycle-mean` builds it.
fn load(path: &str, weight: &str) -> WeightedGraph {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let dve = warpcheck_dve::load(&source).unwrap_or_else(|d| panic!("{}", d.render(path, &source)));
    let expr = dve.expression(weight).unwrap_or_else(|d| panic!("{}", d.render("--weight", weight)));
    let (sg, states) = warpcheck_explore::state_graph_with_states(&dve.model, None).unwrap();
    let words = dve.model.state_words().max(1);
    let ev = dve.model.evaluator(&mut []);
    let mut of: Vec<i64> = states.chunks(words).map(|s| ev.eval(&expr, s).unwrap() as i64).collect();
    of.resize(sg.graph.vertices(), 0); // the error state
    let csr = sg.graph.forward();
    let weights = csr.targets().iter().map(|&t| of[t as usize]).collect();
    let times = vec![1; csr.targets().len()];
    WeightedGraph::from_csr(csr, weights, times).unwrap()
}

/// An optimal policy of every component in compact ids, its cycle's vertex, its values.
fn stand_in(
    graph: &WeightedGraph,
    comps: &warpcheck_scc::Components,
    compact: &Compact,
    sense: Sense,
) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
    let subs = subgraphs(graph, comps, Problem::Mean, sense, true).unwrap();
    let (mut policy, mut sources, mut values) = (Vec::new(), Vec::new(), Vec::new());
    for (i, sub) in subs.iter().enumerate() {
        let (cycle, _) = howard::howard(sub, true).unwrap();
        let (pol, s, val) = shortest_to(sub, &cycle);
        policy.extend(pol.iter().map(|&e| (compact.ebase[i] + e) as u32));
        sources.push((compact.vbase[i] + s) as u32);
        values.extend(val);
    }
    (policy, sources, values)
}

/// The policy of shortest reduced paths (`w·T − W·t`, λ = W/T the cycle's ratio) to
/// the start `s` of `cycle`, `s` on the cycle, and the values `distance / T`.
fn shortest_to(sub: &Subgraph, cycle: &[usize]) -> (Vec<usize>, usize, Vec<f64>) {
    let n = sub.len();
    let (w, t) = cycle.iter().fold((0i128, 0i128), |(w, t), &e| (w + sub.weights[e] as i128, t + sub.times[e] as i128));
    let (mut a, mut b) = (w.abs(), t);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let (w, t) = (w / a, t / a);
    let reduced = |e: usize| sub.weights[e] as i128 * t - sub.times[e] as i128 * w;
    let mut source = vec![0usize; sub.edges()];
    for v in 0..n {
        source[sub.out_edges(v)].fill(v);
    }
    let (rev_off, rev) = sub.reverse();
    let s = source[cycle[0]];
    let (mut d, mut pol, mut queued) = (vec![i128::MAX; n], vec![usize::MAX; n], vec![false; n]);
    (d[s], pol[s]) = (0, cycle[0]);
    let mut queue = VecDeque::from([s]);
    while let Some(v) = queue.pop_front() {
        queued[v] = false;
        for &e in &rev[rev_off[v]..rev_off[v + 1]] {
            let u = source[e];
            if u != s && d[v] + reduced(e) < d[u] {
                (d[u], pol[u]) = (d[v] + reduced(e), e);
                if !queued[u] {
                    queued[u] = true;
                    queue.push_back(u);
                }
            }
        }
    }
    (pol, s, d.iter().map(|&x| x as f64 / t as f64).collect())
}
