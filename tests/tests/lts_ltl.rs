//! LTL over actions on networks of LTSs: a proposition is a regular expression over
//! the product's labels that holds in a state reached by a matching step (the network
//! keeps the last step's label in one more word), and the Büchi product wrapper checks
//! the formula with every algorithm, on the CPU and (host-compiled) in the product's C.
//!
//! The LTS `abc`: `0 -a-> 1`, `1 -b-> 0`, `1 -c-> 2`, and 2 deadlocks. With the last
//! action: (0, none), (1, a), (0, b), (2, c). Derived by hand below.

use warpcheck_liveness::{check, Algorithm, Options};
use warpcheck_ltl::Definition;
use warpcheck_lts::{build, Network};
use warpcheck_model::{Model, Product};

const ABC: &str = "des (0, 3, 3)\n(0, \"a\", 1)\n(1, \"b\", 0)\n(1, \"c\", 2)\n";

/// A fresh directory for `name`: one per call, since tests run in parallel threads of
/// one process and each removes its own.
fn scratch(name: &str) -> std::path::PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpcheck-lts-ltl-{}-{call}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `abc` with the automaton of the negated `formula` over action propositions.
fn product(formula: &str) -> Product<Network> {
    let dir = scratch("abc");
    let path = dir.join("abc.aut");
    std::fs::write(&path, ABC).unwrap();
    let mut net = build::load(&path, &build::Options::default()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let none: [Definition; 0] = [];
    let ready = warpcheck_ltl::formula_automaton(formula, &none, |e| net.add_action(e)).unwrap();
    Product::new(net, ready.automaton)
}

#[test]
fn verdicts_and_product_sizes_derived_by_hand() {
    // `G F a`: violated by `a c` and the deadlock, where the last action stays `c`.
    // Its negation `F G !a`: q0 (true loop), q0 -> q1 and q1 -> q1 on `!a`, q1
    // accepting. Product: (0,none,q0) -> (1,a,q0), (1,a,q1); (1,a,q0) -> (0,b,q0),
    // (2,c,q0); (1,a,q1): none (`!a` is false there); (0,b,q0) -> (1,a,q0), (1,a,q1);
    // (2,c,q0) stutters to (2,c,q0), (2,c,q1); (2,c,q1) -> (2,c,q1): 6 states, 9
    // transitions.
    // `G (a -> F (b | c))`: after `a` the system is in 1, which always moves by `b` or
    // `c`: holds. `G F a|b` (a regular expression): violated by the same deadlock.
    for (formula, holds, size) in [
        ("G F \"a\"", false, Some((6, 9))),
        ("G (\"a\" -> F (\"b\" | \"c\"))", true, None),
        ("G F \"a|b\"", false, None),
    ] {
        let product = product(formula);
        for algorithm in Algorithm::ALL {
            let outcome = check(&product, &Options { algorithm, ..Options::default() }).unwrap();
            assert_eq!(outcome.holds(), holds, "{formula} with {algorithm:?}");
            if let (Some(size), false) = (size, algorithm.on_the_fly()) {
                assert_eq!((outcome.states, outcome.transitions), size, "{formula} with {algorithm:?}");
            }
            if let Some(lasso) = &outcome.lasso {
                let last = lasso.cycle.last().unwrap();
                assert!(last.step.ends_with("(system stutters)"), "{formula}: {lasso:?}");
            }
        }
    }
}

#[test]
fn a_proposition_matching_no_action_is_an_error() {
    let dir = scratch("none");
    let path = dir.join("abc.aut");
    std::fs::write(&path, ABC).unwrap();
    let mut net = build::load(&path, &build::Options::default()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(net.add_action("d").unwrap_err().contains("matches no action"));
    assert!(net.add_action("(").is_err());
    assert_eq!(net.state_words(), 1, "no proposition added, no word added");
}

/// The product's C around the network's C, on the host: the CPU product's successors,
/// deadlocks, acceptance and the propositions (as invariants), in every reachable
/// product state.
#[test]
fn the_product_c_gives_the_cpu_product_on_the_host() {
    for formula in ["G F \"a\"", "G (\"a\" -> F (\"b\" | \"c\"))", "F G \"b|c\""] {
        let product = product(formula);
        let (graph, states) = warpcheck_explore::state_graph_with_states(&product, None).unwrap();
        let words = product.state_words();
        let states: Vec<Vec<u32>> = states.chunks(words).map(<[u32]>::to_vec).collect();
        assert_eq!(states.len(), graph.graph.vertices());
        let labels: Vec<usize> = (0..product.model.actions.len()).collect();
        let dir = std::env::temp_dir().join(format!("warpcheck-lts-ltl-{}-host", std::process::id()));
        warpcheck_conformance::host_c_agrees(&product, &labels, &states, &dir)
            .unwrap_or_else(|e| panic!("{formula}: {e}"));
    }
}
