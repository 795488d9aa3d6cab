//! Every algorithm gives exactly Tarjan's partition, and Tarjan gives the partition of
//! mutual reachability, on thousands of random graphs: arbitrary small graphs (with
//! self-loops, duplicate edges, the empty graph), graphs with a planted component
//! structure, chains and single cycles; with the parallel code paths forced on tiny
//! work lists and with the default threshold, on a pool of 3 threads.

use std::collections::VecDeque;

use proptest::prelude::*;
use warpcheck_graph::Graph;
use warpcheck_scc::{decompose, tarjan::tarjan, Algorithm, Components, Options};

fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap())
}

/// Checks every parallel algorithm against Tarjan, with tiny and default thresholds.
fn all_agree(g: &Graph) -> Result<(), TestCaseError> {
    let want = tarjan(g.forward());
    for threshold in [1, Options::default().parallel_threshold] {
        let options = Options { parallel_threshold: threshold };
        for a in Algorithm::ALL {
            let got = pool().install(|| decompose(g, a, &options));
            prop_assert_eq!(&got, &want, "{} (threshold {}) differs from Tarjan", a.name(), threshold);
        }
    }
    Ok(())
}

/// Mutual reachability by a BFS from every vertex: the definition of SCCs.
fn oracle(n: usize, edges: &[(u32, u32)]) -> Components {
    let g = Graph::from_edges(n as u64, edges).unwrap();
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut seen = vec![false; n];
            let mut queue = VecDeque::from([s as u32]);
            seen[s] = true;
            while let Some(v) = queue.pop_front() {
                for &w in g.forward().successors(v) {
                    if !std::mem::replace(&mut seen[w as usize], true) {
                        queue.push_back(w);
                    }
                }
            }
            seen
        })
        .collect();
    Components { of: (0..n).map(|v| (0..n).find(|&u| reach[u][v] && reach[v][u]).unwrap() as u32).collect() }
}

fn arbitrary() -> impl Strategy<Value = (usize, Vec<(u32, u32)>)> {
    (0usize..48).prop_flat_map(|n| {
        let edges = if n == 0 {
            Just(vec![]).boxed()
        } else {
            prop::collection::vec((0..n as u32, 0..n as u32), 0..4 * n + 8).boxed()
        };
        (Just(n), edges)
    })
}

/// Planted structure: vertices shuffled into groups, each group a cycle (a group of
/// one with or without a self-loop), plus random edges from lower to higher groups
/// only; so the groups are exactly the components.
fn planted() -> impl Strategy<Value = (usize, Vec<(u32, u32)>, Vec<usize>)> {
    (1usize..200, any::<u64>(), 0usize..400, 1usize..12).prop_map(|(n, seed, extra, max_group)| {
        let mut rng = warpcheck_graph::generate::SplitMix64::new(seed);
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut group = vec![0usize; n];
        let mut edges = Vec::new();
        let (mut start, mut g) = (0, 0);
        while start < n {
            let size = (1 + rng.below(max_group as u64) as usize).min(n - start);
            let members = &perm[start..start + size];
            for (i, &v) in members.iter().enumerate() {
                group[v as usize] = g;
                if size > 1 || rng.below(2) == 0 {
                    edges.push((v, members[(i + 1) % size]));
                }
            }
            // Chords inside the group keep it one component.
            for _ in 0..size / 2 {
                edges.push((members[rng.below(size as u64) as usize], members[rng.below(size as u64) as usize]));
            }
            start += size;
            g += 1;
        }
        for _ in 0..extra {
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            let (a, b) = if group[a as usize] <= group[b as usize] { (a, b) } else { (b, a) };
            if group[a as usize] < group[b as usize] {
                edges.push((a, b));
            }
        }
        (n, edges, group)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn tarjan_is_mutual_reachability((n, edges) in arbitrary()) {
        let g = Graph::from_edges(n as u64, &edges).unwrap();
        prop_assert_eq!(tarjan(g.forward()), oracle(n, &edges));
    }

    #[test]
    fn all_algorithms_agree_on_arbitrary_graphs((n, edges) in arbitrary()) {
        all_agree(&Graph::from_edges(n as u64, &edges).unwrap())?;
    }

    #[test]
    fn all_algorithms_find_planted_components((n, edges, group) in planted()) {
        let g = Graph::from_edges(n as u64, &edges).unwrap();
        let mut first = std::collections::HashMap::new();
        let want: Vec<u32> = (0..n).map(|v| *first.entry(group[v]).or_insert(v as u32)).collect();
        prop_assert_eq!(&tarjan(g.forward()).of, &want);
        all_agree(&g)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Chains `0 → 1 → ... → n-1` in a shuffled order, optionally closed into one
    /// cycle, optionally with 2-cycles between neighbours (a chain of components).
    #[test]
    fn chains_and_cycles(n in 1usize..3000, seed: u64, closed: bool, pairs: bool) {
        let mut rng = warpcheck_graph::generate::SplitMix64::new(seed);
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut edges: Vec<(u32, u32)> = order.windows(2).map(|w| (w[0], w[1])).collect();
        if pairs {
            edges.extend(order.windows(2).step_by(2).map(|w| (w[1], w[0])));
        }
        if closed && n > 1 {
            edges.push((order[n - 1], order[0]));
        }
        let g = Graph::from_edges(n as u64, &edges).unwrap();
        let c = tarjan(g.forward());
        let sccs = c.of.iter().enumerate().filter(|&(v, &r)| v as u32 == r).count();
        let expected = if closed && n > 1 { 1 } else if pairs { n.div_ceil(2) } else { n };
        prop_assert_eq!(sccs, expected);
        all_agree(&g)?;
    }
}

#[test]
fn tarjan_survives_a_ten_million_vertex_chain_and_cycle() {
    let n = 10_000_000u32;
    let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|v| (v, v + 1)).collect();
    let chain = Graph::from_edges(n as u64, &edges).unwrap();
    let c = tarjan(chain.forward());
    assert!(c.of.iter().enumerate().all(|(v, &r)| v as u32 == r));
    drop(chain);
    edges.push((n - 1, 0));
    let cycle = Graph::from_edges(n as u64, &edges).unwrap();
    assert!(tarjan(cycle.forward()).of.iter().all(|&r| r == 0));
}

#[test]
fn parallel_algorithms_handle_a_long_chain_of_components() {
    // 400,000 two-vertex components in a chain whose ids run against the edges.
    let n = 800_000u32;
    let mut edges = Vec::new();
    for k in 0..n / 2 {
        let (a, b) = (n - 1 - 2 * k, n - 2 - 2 * k);
        edges.push((a, b));
        edges.push((b, a));
        if b > 0 {
            edges.push((b, b - 1));
        }
    }
    let g = Graph::from_edges(n as u64, &edges).unwrap();
    let want = tarjan(g.forward());
    for a in [Algorithm::FbTrim, Algorithm::Obf] {
        assert_eq!(pool().install(|| decompose(&g, a, &Options::default())), want, "{}", a.name());
    }
}
