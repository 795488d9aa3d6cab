//! The state table grows in place: explorations and state graphs that start from a
//! table of 16 entries and grow many times give exactly what one large table gives
//! (states, transitions, deadlocks, levels, violations and the lengths of their
//! shortest counterexamples), expand every state exactly once, and a budget too small
//! for the model ends in the typed error, never in lost states.

use warpcheck_dve::DveModel;
use warpcheck_explore::{
    explore_parallel, state_graph_parallel, Checks, ExploreError, GraphOptions, Invariant, Options, Order, Report,
    StateGraphError,
};
use warpcheck_store::{MemoryBudget, TablePlan};

fn load(path: &str) -> DveModel {
    let path = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    warpcheck_dve::load(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Four processes counting to 12 each in any interleaving, P then moving to `t`:
/// 14 * 13^3 = 30,758 states in 50 wide levels, several state words, an assertion
/// violated in many states (the nearest 16 steps away) and a deadlock at the end.
const COUNTERS: &str = "
int a, b, c, d;
process P { state s, t; init s; assert t: b != 3;
  trans s -> s { guard a < 12; effect a = a + 1; }, s -> t { guard a == 12; }; }
process Q { state s; init s; trans s -> s { guard b < 12; effect b = b + 1; }; }
process R { state s; init s; trans s -> s { guard c < 12; effect c = c + 1; }; }
process S { state s; init s; trans s -> s { guard d < 12; effect d = d + 1; }; }
system async;";

/// A byte counting up until it overflows: 256 states and the error state.
const BYTE_COUNTER: &str = "byte x; process P { state s; init s; trans s -> s { effect x = x + 1; }; } system async;";

/// The models: ours, the examples and the deep chain of the LTL tests (30,001 levels).
fn models() -> Vec<(&'static str, DveModel)> {
    let models = vec![
        ("counters", warpcheck_dve::load(COUNTERS).unwrap()),
        ("peterson", load("examples/peterson.dve")),
        ("buffered_pipeline", load("examples/buffered_pipeline.dve")),
        ("deep chain", load("tests/models/ltl/holds_deep_chain.dve")),
        ("byte counter", warpcheck_dve::load(BYTE_COUNTER).unwrap()),
    ];
    // The invariant, where the model has the names it reads, as a predicate label.
    models
        .into_iter()
        .map(|(name, mut dve)| {
            let _ = dve.add_predicate(INVARIANT);
            (name, dve)
        })
        .collect()
}

const INVARIANT: &str = "P.s or c < 5";

/// Deadlocks, assertions, evaluation errors and an invariant, every violation counted.
fn checks(dve: &DveModel) -> Checks {
    let invariants = match dve.model.predicates.first() {
        Some(_) => vec![Invariant { text: INVARIANT.to_string(), label: dve.model.assertions.len() }],
        None => vec![],
    };
    Checks { deadlock: true, assertions: true, invariants }
}

fn explore(dve: &DveModel, threads: usize, order: Order, table: TablePlan) -> Report {
    let options = Options {
        threads,
        table,
        checks: checks(dve),
        stop_at_first: false,
        traces: true,
        order,
        ..Options::default()
    };
    explore_parallel(&dve.model, &options).unwrap()
}

/// States, transitions, deadlocks, levels, accepting states, error steps, and per
/// violated property its count and (breadth first) its shortest counterexample's length.
type Summary = (u64, u64, u64, u32, u64, u64, Vec<(u64, Option<usize>)>);

/// What must not depend on the table.
fn summary(r: &Report, order: Order) -> Summary {
    let violations = r
        .violations
        .iter()
        .map(|v| (v.count, (order == Order::Bfs).then(|| v.trace.as_ref().map_or(0, |t| t.steps.len()))))
        .collect();
    (r.states, r.transitions, r.deadlocks, r.levels, r.accepting, r.error_transitions, violations)
}

#[test]
fn growing_from_16_entries_gives_what_one_large_table_gives() {
    for (name, dve) in models() {
        for order in [Order::Bfs, Order::Dfs] {
            for threads in [1, 2, 3] {
                let large = explore(&dve, threads, order, TablePlan::fixed(22));
                let grown = explore(&dve, threads, order, TablePlan::new(4, 22));
                assert_eq!(large.growths, 0);
                assert!(grown.growths >= 1, "{name}: the table of 16 entries grew");
                let plan = TablePlan::new(4, 22);
                let sizes: Vec<u32> = std::iter::successors(Some(4), |&l| plan.next(l)).collect();
                let log2 = sizes[grown.growths as usize];
                assert_eq!(grown.table_capacity, 1 << log2, "{name}: the plan's size after {} growths", grown.growths);
                assert!(grown.complete && large.complete);
                assert_eq!(summary(&grown, order), summary(&large, order), "{name} {order:?} {threads} threads");
                // Every state expanded exactly once: all are expanded (complete) and
                // there are as many expansions as states (the error state has none).
                let error_state = (grown.error_transitions > 0) as u64;
                assert_eq!(grown.expanded, grown.states - error_state, "{name} {order:?}: a state expanded twice");
                // The traces are paths of the model from its initial state.
                for v in &grown.violations {
                    let trace = v.trace.as_ref().expect("traces kept");
                    assert_eq!(trace.initial, dve.model.initial_state());
                    assert!(trace.steps.iter().all(|s| !s.step.contains("not found")), "{name}: {trace:?}");
                }
            }
        }
    }
}

#[test]
fn stopping_at_the_first_violation_across_growth_gives_a_shortest_trace() {
    let dve = warpcheck_dve::load(COUNTERS).unwrap();
    let checks = Checks { assertions: true, ..Checks::default() };
    for threads in [1, 2] {
        let run = |table| {
            let options = Options { threads, table, checks: checks.clone(), ..Options::default() };
            explore_parallel(&dve.model, &options).unwrap()
        };
        let (large, grown) = (run(TablePlan::fixed(20)), run(TablePlan::new(4, 20)));
        assert!(grown.growths >= 2 && !grown.complete);
        let length = |r: &Report| r.violations[0].trace.as_ref().unwrap().steps.len();
        // P counts to 12 and moves to t (13 steps), Q counts to 3 (3 steps).
        assert_eq!((length(&grown), length(&large)), (16, 16));
    }
}

#[test]
fn a_budget_too_small_is_the_typed_error() {
    let dve = warpcheck_dve::load(COUNTERS).unwrap();
    for order in [Order::Bfs, Order::Dfs] {
        for table in [TablePlan::new(4, 12), Options::table_for(MemoryBudget::new(64 << 10), true)] {
            let options = Options { threads: 2, table, order, ..Options::default() };
            match explore_parallel(&dve.model, &options) {
                Err(ExploreError::TableFull { source, states }) => {
                    assert_eq!(source.capacity, 1 << 12);
                    assert!(states > 0 && states < 30_758, "{states}");
                }
                Ok(r) => panic!("{order:?}: {} states in a table of 4096 entries", r.states),
            }
        }
    }
    let options = GraphOptions { threads: 2, table: TablePlan::new(4, 12), ..GraphOptions::default() };
    assert!(matches!(state_graph_parallel(&dve.model, &options), Err(StateGraphError::TableFull { .. })));
}

#[test]
fn state_graphs_grown_from_16_entries_are_the_same() {
    for (name, dve) in models() {
        for threads in [1, 2, 3] {
            let build = |table| {
                let options = GraphOptions { threads, table, ..GraphOptions::default() };
                state_graph_parallel(&dve.model, &options).unwrap()
            };
            let (large, grown) = (build(TablePlan::fixed(22)), build(TablePlan::new(4, 22)));
            assert!(grown.growths >= 1 && large.growths == 0, "{name}");
            let (l, g) = (large.graph.graph.forward(), grown.graph.graph.forward());
            assert_eq!(
                (g.vertices(), g.edges(), grown.graph.deadlocks, grown.graph.error_state),
                (l.vertices(), l.edges(), large.graph.deadlocks, large.graph.error_state),
                "{name}"
            );
            // Vertex v is the same state in both up to the order within a level: the
            // same multiset of (state, successor states) pairs.
            let edges = |p: &warpcheck_explore::ParallelStateGraph| {
                let f = p.graph.graph.forward();
                let state = |v: u32| if v < p.states() { p.state(v) } else { vec![u32::MAX] };
                let mut all: Vec<(Vec<u32>, Vec<Vec<u32>>)> = (0..f.vertices() as u32)
                    .map(|v| (state(v), f.successors(v).iter().map(|&t| state(t)).collect()))
                    .collect();
                all.sort();
                all
            };
            assert_eq!(edges(&grown), edges(&large), "{name}");
        }
    }
}
