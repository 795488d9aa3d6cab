//! Nested DFS, OWCTY and MAP (sequential and parallel) on random graphs with random
//! accepting vertices, against a simple oracle: some accepting vertex reachable from 0
//! reaches itself in one step or more. Every cycle reported is checked edge by edge.

use proptest::prelude::*;
use warpcheck_graph::Csr;
use warpcheck_liveness::map::{map, map_parallel};
use warpcheck_liveness::owcty::{owcty, owcty_parallel, witness};
use warpcheck_liveness::{Cycle, Explicit, Ndfs};

fn reachable(g: &Csr, from: u32, at_least_one_step: bool) -> Vec<bool> {
    let mut seen = vec![false; g.vertices()];
    let mut stack: Vec<u32> = if at_least_one_step { g.successors(from).to_vec() } else { vec![from] };
    while let Some(u) = stack.pop() {
        if !std::mem::replace(&mut seen[u as usize], true) {
            stack.extend_from_slice(g.successors(u));
        }
    }
    seen
}

/// Whether an accepting cycle is reachable from vertex 0.
fn oracle(g: &Csr, accepting: &[bool]) -> bool {
    let from_root = reachable(g, 0, false);
    (0..g.vertices() as u32)
        .any(|a| from_root[a as usize] && accepting[a as usize] && reachable(g, a, true)[a as usize])
}

/// Panics unless `c` is a path from 0 and a cycle through an accepting vertex.
fn check_lasso(g: &Csr, accepting: &[bool], c: &Cycle) {
    assert_eq!(c.stem[0], 0, "the stem starts at the root");
    assert_eq!(c.stem.last(), c.cycle.first(), "the stem ends where the cycle starts");
    assert_eq!(c.cycle.first(), c.cycle.last(), "the cycle is closed");
    assert!(c.cycle.len() >= 2, "the cycle has a step");
    for path in [&c.stem, &c.cycle] {
        for w in path.windows(2) {
            assert!(g.successors(w[0]).contains(&w[1]), "{} -> {} is no edge", w[0], w[1]);
        }
    }
    assert!(c.cycle.iter().any(|&v| accepting[v as usize]), "the cycle has an accepting vertex");
}

fn graphs() -> impl Strategy<Value = (Csr, Vec<bool>)> {
    (1u32..40).prop_flat_map(|n| {
        let edges = proptest::collection::vec((0..n, 0..n), 0..(3 * n as usize));
        let accepting = proptest::collection::vec(proptest::bool::weighted(0.2), n as usize);
        (edges, accepting).prop_map(move |(edges, accepting)| (Csr::from_edges(n as u64, &edges).unwrap(), accepting))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn all_algorithms_agree_with_the_oracle((g, accepting) in graphs(), seed in any::<u64>()) {
        let expected = oracle(&g, &accepting);
        let mut explicit = Explicit { graph: &g, accepting: &accepting, within: None };
        let found = Ndfs::new().search(&mut explicit, 0).unwrap();
        prop_assert_eq!(found.is_some(), expected);
        if let Some(c) = &found {
            check_lasso(&g, &accepting, c);
        }
        // In a random successor order too.
        let seeded = Ndfs::new().seeded(seed).search(&mut explicit, 0).unwrap();
        prop_assert_eq!(seeded.is_some(), expected);
        if let Some(c) = &seeded {
            check_lasso(&g, &accepting, c);
        }
        let sequential = owcty(&g, &accepting);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let parallel = pool.install(|| owcty_parallel(&g, &accepting));
        prop_assert_eq!(&sequential, &parallel);
        // Every vertex of the graph is in OWCTY's universe, reachable from 0 or not:
        // compare with the oracle on the whole graph.
        let any_cycle = (0..g.vertices() as u32).any(|a| accepting[a as usize] && reachable(&g, a, true)[a as usize]);
        prop_assert_eq!(sequential.size > 0, any_cycle);
        let maps = (map(&g, &accepting), pool.install(|| map_parallel(&g, &accepting)));
        prop_assert_eq!(&maps.0, &maps.1);
        prop_assert_eq!(maps.0.on_cycle.is_some(), any_cycle);
        if let Some(v) = maps.0.on_cycle {
            prop_assert!(accepting[v as usize] && reachable(&g, v, true)[v as usize], "MAP's vertex {} is on no accepting cycle", v);
        }
        if sequential.size > 0 && expected {
            let c = witness(&g, &accepting, &sequential.remaining).expect("a witness in a non-empty fixpoint");
            check_lasso(&g, &accepting, &c);
        }
    }
}

#[test]
fn a_long_chain_into_a_cycle_needs_no_recursion() {
    let n = 2_000_000u32;
    let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|v| (v, v + 1)).collect();
    edges.push((n - 1, n - 1000));
    let g = Csr::from_edges(n as u64, &edges).unwrap();
    let mut accepting = vec![false; n as usize];
    accepting[(n - 500) as usize] = true;
    let c = Ndfs::new().search(&mut Explicit { graph: &g, accepting: &accepting, within: None }, 0).unwrap().unwrap();
    check_lasso(&g, &accepting, &c);
    assert_eq!(c.cycle.len(), 1001);
    let o = owcty(&g, &accepting);
    assert_eq!(o.size, 1000);
    accepting[(n - 500) as usize] = false;
    accepting[(n - 1001) as usize] = true;
    assert_eq!(Ndfs::new().search(&mut Explicit { graph: &g, accepting: &accepting, within: None }, 0).unwrap(), None);
    assert_eq!(owcty(&g, &accepting).size, 0);
}
