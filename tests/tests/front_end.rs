//! A front end written directly against the model interface (no DVE, no IR) runs
//! through every CPU engine unchanged: exploration (sequential, parallel BFS and DFS),
//! deadlock and invariant checks with counterexamples, the state graph and its SCCs,
//! and LTL through the Büchi product wrapper with every algorithm; and its CUDA C,
//! compiled on the host, gives its CPU successors state for state. All expected
//! values are derived by hand below.

use warpcheck_explore::{explore, explore_parallel, state_graph, BfsOptions, Checks, Invariant, Options, Order};
use warpcheck_liveness::{check, Algorithm};
use warpcheck_ltl::Definition;
use warpcheck_model::cuda::host::run_on_host;
use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::interface::{Describe, Label, LabelId, LabelKind, Model, Step, Successors};
use warpcheck_model::{EvalError, Product};
use warpcheck_scc::{decompose, Algorithm as SccAlgorithm, Options as SccOptions};

/// A token circles `k` positions (group 0); at position 0 a counter may count up to
/// `m` (group 1). With `stop`, the token cannot leave position `k - 1` once the counter
/// is full: that state deadlocks. State: `[token, counter]`.
struct Ring {
    k: u32,
    m: u32,
    stop: bool,
}

struct RingSteps<'a>(&'a Ring, [u32; 2]);

impl Successors for RingSteps<'_> {
    fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, s: &[u32], mut emit: F) -> bool {
        let (ring, next) = (self.0, &mut self.1);
        let mut any = false;
        if !(ring.stop && s[0] == ring.k - 1 && s[1] == ring.m) {
            *next = [(s[0] + 1) % ring.k, s[1]];
            emit(Step::of(&[0]), Ok(next));
            any = true;
        }
        if s[0] == 0 && s[1] < ring.m {
            *next = [s[0], s[1] + 1];
            emit(Step::of(&[1]), Ok(next));
            any = true;
        }
        !any
    }
}

impl Describe for Ring {
    fn describe_step(&self, step: &Step<'_>) -> String {
        ["move token", "count"][step.groups[0] as usize].to_string()
    }
    fn describe_error(&self, _: &EvalError) -> String {
        unreachable!("no step of the ring raises an error")
    }
    fn describe_changes(&self, a: &[u32], b: &[u32]) -> Vec<String> {
        self.describe_state(b).into_iter().zip(self.describe_state(a)).filter(|(x, y)| x != y).map(|p| p.0).collect()
    }
    fn describe_state(&self, s: &[u32]) -> Vec<String> {
        vec![format!("token = {}", s[0]), format!("counter = {}", s[1])]
    }
}

impl Model for Ring {
    type Successors<'a> = RingSteps<'a>;
    fn state_words(&self) -> usize {
        2
    }
    fn initial_state(&self) -> Vec<u32> {
        vec![0, 0]
    }
    fn successors(&self) -> RingSteps<'_> {
        RingSteps(self, [0; 2])
    }
    fn labels(&self) -> Vec<Label> {
        ["at0", "full"].map(|n| Label { name: n.into(), kind: LabelKind::Predicate }).into()
    }
    fn label(&self, s: &[u32], label: LabelId) -> Result<bool, EvalError> {
        Ok([s[0] == 0, s[1] == self.m][label])
    }
    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }
    fn property(&self) -> Option<&str> {
        None
    }
}

/// The same successor function in C against the kernels' ABI (`warpcheck_model::cuda`).
impl CudaModel for Ring {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        let (k, m, stop) = (self.k, self.m, self.stop as u32);
        let cases: String =
            labels.iter().enumerate().map(|(i, l)| format!("case {i}: return wc_ring_label({l}, s);")).collect();
        let source = format!(
            "#define WC_WORDS 2\n#define WC_ASSERTIONS 0\n#define WC_INVARIANTS {n}\n\
             WC_FN int wc_successors(const u32 *s, WcSink *sink) {{ u32 t[2]; int any = 0;\n\
               if (!({stop} && s[0] == {k} - 1 && s[1] == {m})) {{ t[0] = (s[0] + 1) % {k}; t[1] = s[1]; wc_emit(sink, t); any = 1; }}\n\
               if (s[0] == 0 && s[1] < {m}) {{ t[0] = 0; t[1] = s[1] + 1; wc_emit(sink, t); any = 1; }}\n\
               return !any; }}\n\
             WC_FN int wc_ring_label(int l, const u32 *s) {{ return l == 0 ? s[0] == 0 : s[1] == {m}; }}\n\
             WC_FN int wc_label(int k, const u32 *s) {{ switch (k) {{ {cases} }} return -1; }}\n\
             WC_FN int wc_assertion(const u32 *s) {{ return -1; }}\n\
             WC_FN int wc_invariant(int k, const u32 *s) {{ return wc_label(k, s) == 1; }}\n\
             WC_FN int wc_accepting(const u32 *s) {{ return 0; }}\n",
            n = labels.len()
        );
        Ok(CudaSource { source, max_successors: 2, tables: vec![] })
    }
}

const AT0: LabelId = 0;
const FULL: LabelId = 1;

/// The automaton of the negated `formula` over the ring's labels `at0` and `full`.
fn automaton(formula: &str) -> warpcheck_model::Automaton {
    let definition = |name: &str| Definition { name: name.into(), expression: name.into(), origin: "test".into() };
    let definitions = [definition("at0"), definition("full")];
    let label = |name: &str| Ok::<_, String>(if name == "at0" { AT0 } else { FULL });
    warpcheck_ltl::formula_automaton(formula, &definitions, label).unwrap().automaton
}

fn ring(stop: bool) -> Ring {
    Ring { k: 5, m: 3, stop }
}

#[test]
fn explores_to_the_hand_derived_counts() {
    // k (m + 1) states; every state moves the token except the deadlock, and m states
    // count: 20 states, 20 + 3 transitions (one fewer with the deadlock).
    for (stop, transitions, deadlocks) in [(false, 23, 0), (true, 22, 1)] {
        let model = ring(stop);
        let seq = explore(&model, &BfsOptions::default());
        assert_eq!((seq.states, seq.transitions, seq.deadlocks), (20, transitions, deadlocks));
        for order in [Order::Bfs, Order::Dfs] {
            for threads in [1, 2, 3] {
                let report = explore_parallel(&model, &Options { threads, order, ..Options::default() }).unwrap();
                assert_eq!((report.states, report.transitions, report.deadlocks), (20, transitions, deadlocks));
            }
        }
    }
}

#[test]
fn deadlocks_and_invariants_give_shortest_counterexamples() {
    let checks = Checks {
        deadlock: true,
        invariants: vec![Invariant { text: "full".into(), label: FULL }],
        ..Checks::default()
    };
    let options = Options { threads: 2, checks, stop_at_first: false, ..Options::default() };
    let report = explore_parallel(&ring(true), &options).unwrap();
    // The invariant `full` (counter 3) is false in the 15 other states, the first
    // being the initial state.
    let kinds: Vec<_> =
        report.violations.iter().map(|v| (v.kind.describe(&ring(true), &options.checks), v.count)).collect();
    assert_eq!(
        kinds,
        [
            ("deadlock: a reachable state has no successor".to_string(), 1),
            ("invariant violated: `full`".to_string(), 15)
        ]
    );
    // The deadlock (token 4, counter 3): three counts at position 0, then four moves.
    let trace = report.violations[0].trace.as_ref().unwrap();
    assert_eq!(trace.len(), 7);
    assert_eq!(trace.steps.iter().filter(|s| s.step == "count").count(), 3);
    assert_eq!(trace.steps.last().unwrap().state, vec![4, 3]);
    assert_eq!(trace.steps[0].changes, ["counter = 1"]);
}

#[test]
fn state_graph_sccs_are_the_rings() {
    // The counter never decreases: one SCC per counter value, the ring of its k states
    // (with the deadlock, the last ring is cut into k singletons).
    for (stop, expected) in [(false, 4), (true, 3 + 5)] {
        let graph = state_graph(&ring(stop), None).unwrap();
        assert_eq!((graph.graph.vertices(), graph.graph.edges()), (20, 23 - stop as u64));
        for algorithm in SccAlgorithm::ALL {
            let components = decompose(&graph.graph, algorithm, &SccOptions::default());
            let mut labels = components.of.clone();
            labels.sort_unstable();
            labels.dedup();
            assert_eq!(labels.len(), expected, "{algorithm:?}");
        }
    }
}

#[test]
fn ltl_through_the_product_wrapper() {
    // The token always comes back: `GF at0` holds. A run that never counts never
    // fills the counter: `F full` is violated, with a lasso around the ring.
    for (formula, holds) in [("G F at0", true), ("F full", false), ("G (full -> G F at0)", true)] {
        let product = Product::new(ring(false), automaton(formula));
        for algorithm in Algorithm::ALL {
            let options = warpcheck_liveness::Options { algorithm, ..warpcheck_liveness::Options::default() };
            let outcome = check(&product, &options).unwrap();
            assert_eq!(outcome.lasso.is_none(), holds, "{formula} with {algorithm:?}");
            if let Some(lasso) = outcome.lasso {
                assert!(lasso.cycle.iter().all(|s| s.step.starts_with("move token")), "{formula}: {lasso:?}");
            }
        }
    }
    // With the deadlock, `G !full` is violated by filling the counter and moving the
    // token to the deadlock, where the automaton moves alone: the cycle stutters.
    let product = Product::new(ring(true), automaton("G !full"));
    for algorithm in Algorithm::ALL {
        let options = warpcheck_liveness::Options { algorithm, ..warpcheck_liveness::Options::default() };
        let lasso = check(&product, &options).unwrap().lasso.expect("violated");
        let last = lasso.cycle.last().unwrap();
        assert!(last.step.ends_with("(system stutters)") && last.state[..2] == [4, 3], "{algorithm:?}: {lasso:?}");
    }
}

#[test]
fn its_cuda_source_gives_the_cpu_successors_on_the_host() {
    for stop in [false, true] {
        let model = ring(stop);
        let states: Vec<Vec<u32>> = (0..5).flat_map(|t| (0..4).map(move |c| vec![t, c])).collect();
        let dir = std::env::temp_dir().join(format!("warpcheck-front-end-{}-{stop}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = model.cuda_source(&[FULL, AT0]).unwrap();
        let host = run_on_host(&source, 2, 2, &states, &dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let mut steps = model.successors();
        for (state, got) in states.iter().zip(host) {
            let mut successors = Vec::new();
            let deadlock = steps.successors(state, |_, r| successors.push(r.unwrap().to_vec()));
            successors.sort();
            assert_eq!((got.successors, got.deadlock, got.errors), (successors, deadlock, 0), "{state:?}");
            let labels = [FULL, AT0].map(|l| model.label(state, l).unwrap());
            assert_eq!(got.invariants, labels, "{state:?}");
            assert_eq!((got.assertion, got.accepting), (None, false));
        }
    }
}

/// The C of the Büchi product over the front end's C (`Product`'s `CudaModel`), on the
/// host: the CPU product's successors, deadlocks and acceptance, state for state, in
/// every reachable product state (the automaton state in a word of its own: the ring
/// has no spare bits).
#[test]
fn the_product_cuda_source_gives_the_cpu_product_on_the_host() {
    for (formula, stop) in [("F full", false), ("G (full -> G F at0)", true), ("F G !at0", true)] {
        let product = Product::new(ring(stop), automaton(formula));
        let (graph, states) = warpcheck_explore::state_graph_with_states(&product, None).unwrap();
        let states: Vec<Vec<u32>> = states.chunks(3).map(<[u32]>::to_vec).collect();
        assert_eq!(states.len(), graph.graph.vertices() - graph.error_state.is_some() as usize);
        let dir = std::env::temp_dir().join(format!("warpcheck-front-end-product-{}-{stop}", std::process::id()));
        warpcheck_conformance::host_c_agrees(&product, &[FULL], &states, &dir)
            .unwrap_or_else(|e| panic!("{formula}: {e}"));
    }
}

/// The GPU engine runs the front end's C source unchanged: the same counts, the same
/// violations with counterexamples of the same length as the CPU engine.
/// `cargo test --release -p warpcheck-conformance --test front_end -- --ignored`
#[test]
#[ignore = "needs a CUDA device"]
fn the_gpu_engine_runs_it() {
    let checks = Checks {
        deadlock: true,
        invariants: vec![Invariant { text: "full".into(), label: FULL }],
        ..Checks::default()
    };
    for stop in [false, true] {
        let options = warpcheck_explore::gpu::GpuOptions {
            checks: checks.clone(),
            stop_at_first: false,
            ..warpcheck_explore::gpu::GpuOptions::default()
        };
        let gpu = warpcheck_explore::gpu::explore_gpu(&ring(stop), &options).unwrap().report;
        let cpu = explore_parallel(
            &ring(stop),
            &Options { checks: checks.clone(), stop_at_first: false, ..Options::default() },
        )
        .unwrap();
        assert_eq!((gpu.states, gpu.transitions, gpu.deadlocks), (20, 23 - stop as u64, stop as u64));
        let summary = |r: &warpcheck_explore::Report| -> Vec<_> {
            r.violations.iter().map(|v| (v.kind, v.count, v.trace.as_ref().map(|t| t.len()))).collect()
        };
        assert_eq!(summary(&gpu), summary(&cpu));
    }
}

/// GPU LTL (OWCTY and MAP on the product graph built on the device) runs the product's
/// C around the front end's C: the CPU's verdicts and product sizes.
/// `cargo test --release -p warpcheck-conformance --test front_end -- --ignored`
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_runs_its_product() {
    use warpcheck_liveness::gpu::{check_gpu, GpuAlgorithm};
    // Without the deadlock the verdicts derived above; with it, the token stops at
    // position 4: `G F at0` is violated there, and `G !full` by the stuttering cycle.
    let cases =
        [("G F at0", false, true), ("F full", false, false), ("G F at0", true, false), ("G !full", true, false)];
    for (formula, stop, holds) in cases {
        let product = Product::new(ring(stop), automaton(formula));
        let cpu = check(&product, &warpcheck_liveness::Options::default()).unwrap();
        assert_eq!(cpu.holds(), holds, "{formula} on the CPU");
        for algorithm in [GpuAlgorithm::Owcty, GpuAlgorithm::Map] {
            let gpu = check_gpu(&product, algorithm, &Default::default()).unwrap().outcome;
            assert_eq!(gpu.holds(), holds, "{formula} with {algorithm:?}");
            if holds {
                assert_eq!((gpu.states, gpu.transitions), (cpu.states, cpu.transitions), "{formula}");
            }
        }
    }
}
