//! Small property models of our own (`tests/models/ltl/`), one LTL rule each: every
//! accepting-cycle algorithm gives the verdict the file's header derives (`Expect:
//! holds` or `Expect: violated`), and every counterexample is a valid lasso.

use std::path::{Path, PathBuf};

use warpcheck_conformance::ltl::validate_lasso;
use warpcheck_conformance::{load_file, load_product};
use warpcheck_model::Model as _;

/// A DVE model with its property process, as the engines check it.
type Model = warpcheck_model::Product<warpcheck_dve::Program>;
use warpcheck_liveness::{check, Algorithm, Options, Outcome};

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ltl").join(name)
}

/// Runs every algorithm on `tests/models/ltl/{name}`, checks the verdict of its header
/// and the lassos; returns the model and the outcome of each algorithm.
fn run(name: &str) -> (Model, Vec<(Algorithm, Outcome)>) {
    let path = path(name);
    let source = std::fs::read_to_string(&path).unwrap();
    let holds = if source.contains("Expect: holds") {
        true
    } else {
        assert!(source.contains("Expect: violated"), "{name}: no `Expect:` in the header");
        false
    };
    let model = load_product(&path);
    let mut outcomes = Vec::new();
    for algorithm in Algorithm::ALL {
        let outcome = check(&model, &Options { algorithm, ..Options::default() }).unwrap();
        assert_eq!(outcome.holds(), holds, "{name} with {}", algorithm.name());
        if let Some(lasso) = &outcome.lasso {
            validate_lasso(&model, lasso).unwrap_or_else(|e| panic!("{name} with {}: {e}", algorithm.name()));
        }
        outcomes.push((algorithm, outcome));
    }
    (model, outcomes)
}

/// The models of `tests/models/ltl/`, sorted.
fn model_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".dve"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    names
}

#[test]
fn every_model_has_its_verdict() {
    for name in model_names() {
        run(&name);
    }
}

#[test]
fn holding_property_explores_the_whole_product() {
    for (algorithm, o) in run("holds_infinitely_often_zero.dve").1 {
        assert_eq!((o.states, o.transitions), (5, 6), "{}", algorithm.name());
    }
}

#[test]
fn violated_property_has_the_lasso_of_the_header() {
    for (algorithm, o) in run("violated_eventually_two.dve").1 {
        let lasso = o.lasso.unwrap();
        assert_eq!((lasso.stem.len(), lasso.cycle.len()), (3, 3), "{}", algorithm.name());
        assert_eq!(lasso.cycle_start(), 3);
    }
}

#[test]
fn stuttering_closes_the_cycle() {
    let (model, outcomes) = run("violated_by_stuttering.dve");
    for (algorithm, o) in outcomes {
        let lasso = o.lasso.unwrap();
        assert_eq!(lasso.cycle.len(), 1, "{}", algorithm.name());
        let step = &lasso.cycle[0];
        assert!(step.changes.is_empty() && step.step == "LTL_property: q1 -> q1 (system stutters)", "{step:?}");
        assert!(model.is_accepting(&step.state));
    }
}

#[test]
fn error_state_lies_on_no_cycle() {
    for (algorithm, o) in run("holds_error_state_not_a_cycle.dve").1 {
        assert_eq!((o.states, o.error_transitions), (4, 2), "{}", algorithm.name());
    }
}

#[test]
fn cycle_in_a_later_branch_is_found() {
    let (model, outcomes) = run("violated_accepting_cycle_off_the_stack.dve");
    let y = model.model.variables.iter().find(|v| v.name == "y").unwrap().first;
    for (algorithm, o) in outcomes {
        let lasso = o.lasso.unwrap();
        assert_eq!(lasso.cycle.len(), 2, "{}", algorithm.name());
        assert!(lasso.cycle.iter().all(|s| model.model.layout.decode(&s.state)[y as usize] != 0));
    }
}

#[test]
fn a_model_without_property_is_an_error() {
    let model = load_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics/assert.dve")).model;
    for algorithm in Algorithm::ALL {
        let e = check(&model, &Options { algorithm, ..Options::default() }).unwrap_err();
        assert!(e.to_string().contains("no property process"), "{e}");
    }
}

#[test]
fn too_many_states_is_an_error() {
    let model = load_product(&path("violated_eventually_two.dve"));
    for algorithm in [Algorithm::Ndfs, Algorithm::Cndfs, Algorithm::Owcty] {
        let e = check(&model, &Options { algorithm, max_states: Some(3), ..Options::default() }).unwrap_err();
        assert!(e.to_string().contains("more than 3 states"), "{e}");
    }
}

#[test]
fn incremental_checks_stop_at_the_first_prefix_with_a_cycle() {
    let model = load_product(&path("violated_early_cycle.dve"));
    let graph_algorithms = [Algorithm::Owcty, Algorithm::OwctySequential, Algorithm::Map, Algorithm::MapSequential];
    for algorithm in graph_algorithms {
        let whole = check(&model, &Options { algorithm, ..Options::default() }).unwrap();
        assert_eq!((whole.states, whole.partial), (201, false), "{}", algorithm.name());
        // Prefixes of 1, then 8 states: the first is the initial state alone (no
        // edge), the second the first 8 levels of the chain, with Q's idle loops.
        let o = check(&model, &Options { algorithm, incremental: Some(1), ..Options::default() }).unwrap();
        assert_eq!((o.states, o.transitions, o.partial), (8, 14, true), "{}", algorithm.name());
        validate_lasso(&model, o.lasso.as_ref().expect("violated")).unwrap();
        // A first prefix larger than the product: the whole product, in one round.
        let o = check(&model, &Options { algorithm, incremental: Some(1_000), ..Options::default() }).unwrap();
        assert_eq!((o.states, o.partial), (201, false), "{}", algorithm.name());
    }
    // A property that holds is decided on the whole product, after the prefixes.
    let model = load_product(&path("holds_infinitely_often_zero.dve"));
    for algorithm in graph_algorithms {
        let o = check(&model, &Options { algorithm, incremental: Some(1), ..Options::default() }).unwrap();
        assert_eq!((o.states, o.transitions, o.partial, o.holds()), (5, 6, false, true), "{}", algorithm.name());
    }
}

/// CNDFS with 1 to 16 workers (more workers than cores: they interleave) gives every
/// model's verdict with a valid lasso, each run on a fresh pool.
#[test]
fn cndfs_gives_every_verdict_with_any_number_of_workers() {
    for name in model_names() {
        let holds = std::fs::read_to_string(path(&name)).unwrap().contains("Expect: holds");
        let model = load_product(&path(&name));
        for workers in [1, 3, 16] {
            for _ in 0..4 {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(workers).build().unwrap();
                let options = Options { algorithm: Algorithm::Cndfs, ..Options::default() };
                let o = pool.install(|| check(&model, &options)).unwrap();
                assert_eq!(o.holds(), holds, "{name} with {workers} workers");
                if let Some(lasso) = &o.lasso {
                    validate_lasso(&model, lasso).unwrap_or_else(|e| panic!("{name} with {workers} workers: {e}"));
                }
            }
        }
    }
}

/// A search whose depth-first stacks outgrow `--memory` stops with an error that says
/// so (the chain's 30,001 states are all on the stack at once), and passes with more.
/// One worker: with several, whether their stacks are deep at the same time depends
/// on the scheduling (one may finish the chain before another starts).
#[test]
fn cndfs_stacks_beyond_the_memory_are_an_error() {
    let model = load_product(&path("holds_deep_chain.dve"));
    let options = |memory| Options { algorithm: Algorithm::Cndfs, memory: Some(memory), ..Options::default() };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let check = |o: &Options| one.install(|| check(&model, o));
    let e = check(&options(MEMORY)).unwrap_err();
    assert!(matches!(e, warpcheck_liveness::LtlError::StacksFull { .. }), "{e}");
    assert!(e.to_string().contains("depth-first stacks need more than"), "{e}");
    let o = check(&options(64_000_000)).unwrap();
    assert!(o.holds());
    assert_eq!(o.states, 30_001);
}

/// The `--memory` under which one worker's stacks for the 30,001-state chain do not fit.
const MEMORY: u64 = 2_000_000;
