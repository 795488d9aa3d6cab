//! Helpers of the cycle tests: checking a critical cycle against its graph.

use warpcheck_cycle::{CriticalCycle, Problem, Ratio, WeightedGraph};

/// Panics unless `cycle` is a cycle of `g` whose edges sum to its weight and time
/// and whose ratio is `value`.
pub fn check_cycle(g: &WeightedGraph, cycle: &CriticalCycle, value: Ratio, problem: Problem) {
    let k = cycle.vertices.len();
    assert!(k > 0 && cycle.edges.len() == k, "{cycle:?}");
    let (mut w, mut t) = (0i128, 0i128);
    for i in 0..k {
        let e = cycle.edges[i];
        assert_eq!(g.source(e), cycle.vertices[i], "edge {e} of {cycle:?}");
        assert_eq!(g.target(e), cycle.vertices[(i + 1) % k], "edge {e} of {cycle:?}");
        w += g.weight(e) as i128;
        t += if problem == Problem::Mean { 1 } else { g.time(e) as i128 };
    }
    assert_eq!((w, t), (cycle.weight, cycle.time));
    assert_eq!(Ratio::new(w, t).unwrap(), value, "{cycle:?}");
    assert_eq!(cycle.vertices[0], *cycle.vertices.iter().min().unwrap());
}
