//! Property tests: every algorithm against a brute-force oracle that enumerates the
//! simple cycles of small random graphs (no cycle, self-loops, parallel edges,
//! negative and zero weights, zero transit times, many SCCs), per SCC and overall.

mod common;

use proptest::prelude::*;
use warpcheck_cycle::{solve, Algorithm, Arc, CycleError, Options, Problem, Ratio, Sense, WeightedGraph};

/// Every simple cycle as (smallest vertex, weight, time), by DFS from each vertex
/// through larger vertices only.
fn simple_cycles(g: &WeightedGraph, problem: Problem) -> Vec<(u32, i128, i128)> {
    fn dfs(
        g: &WeightedGraph,
        problem: Problem,
        start: u32,
        v: u32,
        on: &mut Vec<bool>,
        (w, t): (i128, i128),
        out: &mut Vec<(u32, i128, i128)>,
    ) {
        for e in g.out_edges(v) {
            let x = g.target(e);
            let (w2, t2) = (w + g.weight(e) as i128, t + if problem == Problem::Mean { 1 } else { g.time(e) as i128 });
            if x == start {
                out.push((start, w2, t2));
            } else if x > start && !on[x as usize] {
                on[x as usize] = true;
                dfs(g, problem, start, x, on, (w2, t2), out);
                on[x as usize] = false;
            }
        }
    }
    let mut out = Vec::new();
    let mut on = vec![false; g.vertices()];
    for s in 0..g.vertices() as u32 {
        dfs(g, problem, s, s, &mut on, (0, 0), &mut out);
    }
    out
}

/// The SCC label (smallest vertex) of every vertex, by mutual reachability.
fn scc_labels(g: &WeightedGraph) -> Vec<u32> {
    let n = g.vertices();
    let mut reach = vec![vec![false; n]; n];
    for (s, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![s as u32];
        row[s] = true;
        while let Some(v) = stack.pop() {
            for e in g.out_edges(v) {
                let t = g.target(e) as usize;
                if !row[t] {
                    row[t] = true;
                    stack.push(t as u32);
                }
            }
        }
    }
    (0..n).map(|v| (0..n).find(|&u| reach[u][v] && reach[v][u]).unwrap() as u32).collect()
}

fn check(g: &WeightedGraph, problem: Problem) {
    let cycles = simple_cycles(g, problem);
    let labels = scc_labels(g);
    let zero_time = cycles.iter().any(|c| c.2 == 0);
    for sense in [Sense::Min, Sense::Max] {
        let better = |a: Ratio, b: Ratio| if sense == Sense::Min { a < b } else { a > b };
        // Oracle: best per SCC label.
        let mut best: Vec<Option<Ratio>> = vec![None; g.vertices()];
        if !zero_time {
            for &(s, w, t) in &cycles {
                let r = Ratio::new(w, t).unwrap();
                let slot = &mut best[labels[s as usize] as usize];
                if slot.is_none_or(|b| better(r, b)) {
                    *slot = Some(r);
                }
            }
        }
        let overall = best.iter().flatten().copied().reduce(|a, b| if better(b, a) { b } else { a });
        for algorithm in Algorithm::ALL {
            if !algorithm.supports(problem) {
                continue;
            }
            let options = Options { problem, sense, algorithm };
            match solve(g, &options) {
                Err(CycleError::ZeroTimeCycle { vertices }) => {
                    assert!(zero_time, "{algorithm:?}: spurious zero-time cycle {vertices:?}");
                }
                Err(e) => panic!("{algorithm:?} {sense:?}: {e}"),
                Ok(s) => {
                    assert!(!zero_time, "{algorithm:?}: zero-time cycle not reported");
                    assert_eq!(s.value, overall, "{algorithm:?} {sense:?} {problem:?}");
                    if let (Some(v), Some(c)) = (s.value, &s.cycle) {
                        common::check_cycle(g, c, v, problem);
                    }
                    let expected: Vec<(u32, Ratio)> =
                        best.iter().enumerate().filter_map(|(v, b)| b.map(|b| (v as u32, b))).collect();
                    let got: Vec<(u32, Ratio)> = s.components.iter().map(|c| (c.representative, c.value)).collect();
                    assert_eq!(got, expected, "{algorithm:?} {sense:?} per SCC");
                    for c in &s.components {
                        common::check_cycle(g, &c.cycle, c.value, problem);
                    }
                }
            }
        }
    }
}

fn graph(n: u32, arcs: Vec<(u32, u32, i64, i64)>) -> WeightedGraph {
    let arcs: Vec<Arc> =
        arcs.into_iter().map(|(u, v, weight, time)| Arc { source: u % n, target: v % n, weight, time }).collect();
    WeightedGraph::from_arcs(n as u64, &arcs).unwrap()
}

fn arbitrary() -> impl Strategy<Value = WeightedGraph> {
    (1u32..8).prop_flat_map(|n| {
        prop::collection::vec((0..n, 0..n, -20i64..20, 0i64..4), 0..16).prop_map(move |a| graph(n, a))
    })
}

/// Components in a chain: small cycles (or lone vertices) joined by forward edges.
fn many_sccs() -> impl Strategy<Value = WeightedGraph> {
    prop::collection::vec((1u32..4, -9i64..9, -9i64..9, 1i64..4, any::<bool>()), 1..6).prop_map(|blocks| {
        let mut arcs = Vec::new();
        let mut base = 0u32;
        for (i, &(size, w1, w2, t, closed)) in blocks.iter().enumerate() {
            for k in 0..size - 1 {
                arcs.push((base + k, base + k + 1, w1, t));
            }
            if closed {
                arcs.push((base + size - 1, base, w2, t));
            }
            if i + 1 < blocks.len() {
                arcs.push((base, base + size, w1 + w2, t));
            }
            base += size;
        }
        graph(base, arcs)
    })
}

/// Acyclic: every edge goes from a smaller to a larger vertex.
fn acyclic() -> impl Strategy<Value = WeightedGraph> {
    (2u32..8).prop_flat_map(|n| {
        prop::collection::vec((0..n, 0..n, -5i64..5), 0..14).prop_map(move |a| {
            let arcs = a.into_iter().filter(|(u, v, _)| u != v).map(|(u, v, w)| (u.min(v), u.max(v), w, 1)).collect();
            graph(n, arcs)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_graphs_agree_with_the_oracle(g in arbitrary()) {
        check(&g, Problem::Mean);
        check(&g, Problem::Ratio);
    }

    #[test]
    fn zero_weights_agree_with_the_oracle(n in 1u32..7, a in prop::collection::vec((0u32..7, 0u32..7, 0i64..2, 1i64..3), 0..14)) {
        let g = graph(n, a);
        check(&g, Problem::Mean);
        check(&g, Problem::Ratio);
    }

    #[test]
    fn chains_of_components_agree_with_the_oracle(g in many_sccs()) {
        check(&g, Problem::Mean);
        check(&g, Problem::Ratio);
    }

    #[test]
    fn acyclic_graphs_have_no_cycle(g in acyclic()) {
        for algorithm in Algorithm::ALL {
            let s = solve(&g, &Options { problem: Problem::Mean, sense: Sense::Min, algorithm }).unwrap();
            prop_assert!(s.value.is_none() && s.cycle.is_none() && s.components.is_empty());
        }
    }
}

#[test]
fn the_empty_graph_has_no_cycle() {
    let g = WeightedGraph::from_arcs(0, &[]).unwrap();
    let s = solve(&g, &Options { problem: Problem::Ratio, sense: Sense::Max, algorithm: Algorithm::Yto }).unwrap();
    assert!(s.value.is_none());
}

#[test]
fn a_zero_time_cycle_is_an_error_for_ratios_only() {
    let g = graph(3, vec![(0, 1, 5, 0), (1, 0, 2, 0), (1, 2, 1, 1), (2, 1, 1, 1)]);
    for algorithm in [Algorithm::Howard, Algorithm::HowardPar, Algorithm::Yto] {
        let e = solve(&g, &Options { problem: Problem::Ratio, sense: Sense::Min, algorithm }).unwrap_err();
        assert!(matches!(&e, CycleError::ZeroTimeCycle { vertices } if vertices.len() == 2), "{e}");
        let s = solve(&g, &Options { problem: Problem::Mean, sense: Sense::Min, algorithm }).unwrap();
        assert_eq!(s.value, Ratio::new(1, 1));
    }
}

#[test]
fn karp_refuses_ratios() {
    let g = graph(1, vec![(0, 0, 1, 2)]);
    let e = solve(&g, &Options { problem: Problem::Ratio, sense: Sense::Min, algorithm: Algorithm::Karp });
    assert!(matches!(e, Err(CycleError::Unsupported(_))));
}

#[test]
fn huge_weights_overflow_cleanly_or_are_exact() {
    let big = i64::MAX;
    let g = graph(2, vec![(0, 1, big, 1), (1, 0, big, 1), (0, 0, big - 1, 1)]);
    for algorithm in Algorithm::ALL {
        for sense in [Sense::Min, Sense::Max] {
            match solve(&g, &Options { problem: Problem::Mean, sense, algorithm }) {
                Ok(s) => {
                    let expected = if sense == Sense::Min { big as i128 - 1 } else { big as i128 };
                    assert_eq!(s.value, Some(Ratio::integer(expected)), "{algorithm:?}");
                }
                Err(e) => assert!(matches!(e, CycleError::Overflow), "{algorithm:?}: {e}"),
            }
        }
    }
    let g = graph(1, vec![(0, 0, i64::MIN, 1)]);
    let e = solve(&g, &Options { problem: Problem::Mean, sense: Sense::Max, algorithm: Algorithm::Howard });
    assert!(matches!(e, Err(CycleError::Overflow)));
}
