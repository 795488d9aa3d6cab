//! CNDFS against nested DFS and itself, across growths of its table.

use super::*;

/// A DVE model with its property process, as the engines check it.
type Checked = warpcheck_model::Product<warpcheck_dve::Program>;

fn product(source: &str) -> Checked {
    let model = warpcheck_dve::load(source).unwrap().model;
    let automaton = model.property_automaton().expect("a property process").clone();
    warpcheck_model::Product::new(model, automaton)
}

fn model(name: &str) -> Checked {
    let path = format!("{}/../../tests/models/ltl/{name}", env!("CARGO_MANIFEST_DIR"));
    product(&std::fs::read_to_string(path).unwrap())
}

/// From a table of 16 entries, the table grows 8x larger in place until the
/// product fits: the result is that of one search with a large table.
#[test]
fn growing_from_16_entries_gives_the_same_result() {
    let options = Options::default();
    let chain = model("holds_deep_chain.dve");
    let from_16_entries = TablePlan::new(4, 28);
    for workers in [1, 4] {
        let found = cndfs_with(&chain, &options, workers, from_16_entries).unwrap();
        assert!(found.lasso.is_none());
        assert_eq!(found.states, 30_001);
        // 2^4, 2^7, 2^10, 2^13 are too small; 2^16 entries (half of them 32,768) hold
        // the chain's 30,001 roots and their inner nodes.
        assert_eq!((found.growths, found.table_entries), (4, 1 << 16), "{workers} workers");
        let once = cndfs_with(&chain, &options, workers, TablePlan::fixed(20)).unwrap();
        assert_eq!((once.states, once.transitions, once.growths), (30_001, found.transitions, 0));
    }
    let off_the_stack = model("violated_accepting_cycle_off_the_stack.dve");
    let found = cndfs_with(&off_the_stack, &options, 2, from_16_entries).unwrap();
    let (stem, cycle) = found.lasso.expect("violated");
    assert_eq!((cycle.len(), stem.last()), (3, cycle.first()));
}

/// Four counters of 12 values each: A (the one the property reads) and B wrap
/// around, C and D count up and stop. 41,472 product states.
const COUNTERS: &str = "
    byte a, b, c, d;
    process A { state s; init s; trans s -> s { effect a = (a + 1) % 12; }; }
    process B { state s; init s; trans s -> s { effect b = (b + 5) % 12; }; }
    process C { state s; init s; trans s -> s { guard c < 11; effect c = c + 1; }; }
    process D { state s; init s; trans s -> s { guard d < 11; effect d = d + 1; }; }";

/// Violated: once `a == 1`, `b != 4` may hold forever (A alone moves).
const VIOLATED: &str = "
    process LTL_property { state q0, q1; init q0; accept q1;
      trans q0 -> q0 {}, q0 -> q1 { guard a == 1; }, q1 -> q1 { guard b != 4; }; }
    system async property LTL_property;";

/// Holds: every state with `a == 1` is accepting, but only for one step; the red
/// searches from them cover the rest of the product.
const HOLDS: &str = "
    process LTL_property { state q0, q1, q2; init q0; accept q1;
      trans q0 -> q0 {}, q0 -> q1 { guard a == 1; }, q1 -> q2 {}, q2 -> q2 {}; }
    system async property LTL_property;";

/// The counters run on one of two sides chosen first. On the left, a state is
/// accepting for one step, then the search stays left: a red search over the
/// left side's 20,736 states runs while workers on the right still discover
/// states (and grow the table). Holds.
const TWO_SIDES: &str = "
    byte a, b, c, d;
    process X { state s0, l, r; init s0; trans s0 -> l {}, s0 -> r {}; }
    process A { state s; init s; trans s -> s { guard not X.s0; effect a = (a + 1) % 12; }; }
    process B { state s; init s; trans s -> s { guard not X.s0; effect b = (b + 5) % 12; }; }
    process C { state s; init s; trans s -> s { guard not X.s0 and c < 11; effect c = c + 1; }; }
    process D { state s; init s; trans s -> s { guard not X.s0 and d < 11; effect d = d + 1; }; }
    process LTL_property { state q0, q1, q2; init q0; accept q1;
      trans q0 -> q0 {}, q0 -> q1 { guard X.l; }, q1 -> q2 {}, q2 -> q2 { guard X.l; }; }
    system async property LTL_property;";

/// Checks a lasso of states: real steps from the initial state, a cycle back to its
/// first state through an accepting state.
fn valid(model: &Checked, (stem, cycle): &StateLasso) -> bool {
    let mut generator = model.successors();
    let mut step = |from: &[u32], to: &[u32]| {
        let mut found = false;
        generator.successors(from, |_, r| found |= r.is_ok_and(|s| s == to));
        found
    };
    stem[0] == model.initial_state()
        && stem.windows(2).all(|p| step(&p[0], &p[1]))
        && stem.last() == cycle.first()
        && cycle.len() > 1
        && cycle.last() == cycle.first()
        && cycle.windows(2).all(|p| step(&p[0], &p[1]))
        && cycle.iter().any(|s| model.is_accepting(s))
}

/// Many workers, red searches and cycles found across growths from 16 entries: the
/// verdict of nested DFS, valid lassos, and (when the property holds) every state
/// and step counted once.
#[test]
fn growing_under_many_workers_keeps_verdicts_and_counts() {
    let load = |text: String| product(&text);
    let mut models = vec![
        ("violated counters", load(format!("{COUNTERS}{VIOLATED}"))),
        ("holding counters", load(format!("{COUNTERS}{HOLDS}"))),
        ("two sides of counters", load(TWO_SIDES.to_string())),
    ];
    for name in ["violated_accepting_cycle_off_the_stack.dve", "violated_early_cycle.dve", "holds_deep_chain.dve"] {
        models.push((name, model(name)));
    }
    let options = Options::default();
    for (name, model) in &models {
        let ndfs = crate::check(model, &Options { algorithm: crate::Algorithm::Ndfs, ..Options::default() }).unwrap();
        for workers in [1, 2, 4, 8] {
            for _ in 0..3 {
                let found = cndfs_with(model, &options, workers, TablePlan::new(4, 24)).unwrap();
                assert!(found.growths >= 1 || !name.contains("counters"), "{name}: no growth");
                match &found.lasso {
                    None => {
                        assert!(ndfs.holds(), "{name}: {workers} workers found no cycle");
                        assert_eq!((found.states, found.transitions), (ndfs.states, ndfs.transitions), "{name}");
                    }
                    Some(lasso) => {
                        assert!(!ndfs.holds(), "{name}: {workers} workers found a cycle");
                        assert!(valid(model, lasso), "{name}: {workers} workers, an invalid lasso");
                    }
                }
            }
        }
    }
}
