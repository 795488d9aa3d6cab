//! The key sets of every `--json` report, pinned: `warpcheck-bench` and scripts read
//! them, so a key that appears, disappears or is renamed must fail here first. On a
//! machine with a GPU the GPU reports' extra keys are checked too.

mod common;

use std::collections::BTreeSet;

use common::{text, warpcheck};
use serde_json::Value;

/// The one JSON object printed by `args`, which must exit with `code`.
fn report(args: &[&str], code: i32) -> Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stdout)))
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().expect("an object").keys().map(String::as_str).collect()
}

fn set<'a>(lists: &[&[&'a str]]) -> BTreeSet<&'a str> {
    lists.iter().flat_map(|l| l.iter().copied()).collect()
}

const STATS: &[&str] = &[
    "model",
    "states",
    "transitions",
    "deadlocks",
    "levels",
    "accepting",
    "error_transitions",
    "complete",
    "seconds",
    "states_per_second",
    "backend",
    "threads",
    "successors",
    "state_words",
    "bytes_per_state",
    "table_entries",
    "table_capacity",
    "table_growths",
    "table_growth_seconds",
    "peak_memory_bytes",
];
const GPU_STATS: &[&str] = &[
    "device",
    "compile_seconds",
    "compile_cached",
    "setup_seconds",
    "explore_seconds",
    "kernel_seconds",
    "generate_seconds",
    "launches",
    "explore_states_per_second",
    "state_capacity",
    "kernel_registers",
    "kernel_local_bytes",
    "gpus",
    "partitions",
    "transport",
    "exchange_seconds",
];
const CHECK: &[&str] = &["verdict", "violations", "trace_length", "trace"];
const LTL: &[&str] = &[
    "model",
    "property",
    "algorithm",
    "backend",
    "threads",
    "gpu",
    "states",
    "partial",
    "transitions",
    "error_transitions",
    "owcty_iterations",
    "owcty_remaining",
    "map_rounds",
    "table_growths",
    "disk_bytes",
    "memory_bytes",
    "graph_seconds",
    "seconds",
    "verdict",
    "trace_length",
    "stem_length",
    "cycle_length",
    "cycle_start",
    "trace",
];
const SCC: &[&str] = &[
    "input",
    "vertices",
    "edges",
    "algorithm",
    "threads",
    "sccs",
    "trivial",
    "nontrivial",
    "largest",
    "histogram",
    "seconds",
    "backward_seconds",
    "load_seconds",
    "backend",
];
const CYCLE: &[&str] = &[
    "input",
    "vertices",
    "edges",
    "problem",
    "algorithm",
    "backend",
    "threads",
    "value",
    "decimal",
    "cycle",
    "cycle_edges",
    "cyclic_sccs",
    "rounds",
    "seconds",
    "scc_seconds",
    "load_seconds",
];

fn gpu() -> bool {
    warpcheck_explore::gpu::device_available()
}

#[test]
fn explore_keys() {
    let r = report(&["explore", "examples/peterson.dve", "--json", "--backend", "cpu"], 0);
    assert_eq!(keys(&r), set(&[STATS]));
    let r =
        report(&["explore", "examples/peterson.dve", "--json", "--disk", &std::env::temp_dir().to_string_lossy()], 0);
    assert_eq!(keys(&r), set(&[STATS]));
    let r = report(&["explore", "examples/peterson.dve", "--graph-out", &temp("keys.wcg"), "--json"], 0);
    let graph_out = ["model", "states", "transitions", "deadlocks", "error_state", "seconds", "graph_out"];
    assert_eq!(keys(&r), set(&[&graph_out]));
    if gpu() {
        let r = report(&["explore", "examples/peterson.dve", "--json", "--backend", "gpu"], 0);
        assert_eq!(keys(&r), set(&[STATS, GPU_STATS]));
    }
}

#[test]
fn check_keys() {
    let args = ["check", "examples/peterson.dve", "--invariant", "entries < 2", "--json", "--backend", "cpu"];
    let r = report(&args, 1);
    assert_eq!(keys(&r), set(&[STATS, CHECK]));
    let violation = &r["violations"][0];
    assert_eq!(keys(violation), set(&[&["message", "count", "trace_length", "trace"]]));
    let trace = r["trace"].as_array().unwrap();
    assert_eq!(keys(&trace[0]), set(&[&["step", "state"]]));
    assert_eq!(keys(&trace[1]), set(&[&["step", "changes"]]));
    // A trace ending in an evaluation error.
    let r = report(&["check", "tests/models/semantics/byte_overflow.dve", "--json", "--backend", "cpu"], 1);
    let last = r["trace"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(keys(&last), set(&[&["step", "error"]]), "{r}");
    if gpu() {
        let r = report(&["check", "examples/peterson.dve", "--json", "--backend", "gpu"], 0);
        assert_eq!(keys(&r), set(&[STATS, GPU_STATS, CHECK]));
    }
}

#[test]
fn ltl_keys() {
    let model = "tests/models/ltl/violated_eventually_two.dve";
    for algorithm in ["ndfs", "owcty", "map", "semi-external"] {
        let r = report(&["check", model, "--json", "--backend", "cpu", "--algorithm", algorithm], 1);
        assert_eq!(keys(&r), set(&[LTL]), "{algorithm}");
        assert!(r["gpu"].is_null());
    }
    let formula = ["check", "examples/peterson.dve", "--ltl", "G \"entries < 2\"", "--json", "--backend", "cpu"];
    let r = report(&formula, 1);
    assert_eq!(keys(&r), set(&[LTL, &["formula", "automaton_states", "automaton_edges"]]));
    if gpu() {
        let r = report(&["check", model, "--json", "--backend", "gpu"], 1);
        assert_eq!(keys(&r), set(&[LTL]));
        let gpu = ["device", "compile_seconds", "generate_seconds", "graph_seconds", "cycle_seconds", "lasso_seconds"];
        assert_eq!(keys(&r["gpu"]), set(&[&gpu, &["edges", "gpus", "partitions"]]));
    }
}

#[test]
fn scc_keys() {
    let r = report(&["scc", "examples/peterson.dve", "--json"], 0);
    assert_eq!(keys(&r), set(&[SCC]));
    assert_eq!(keys(&r["histogram"][0]), set(&[&["low", "high", "count"]]));
    if gpu() {
        let r = report(&["scc", "examples/peterson.dve", "--json", "--backend", "gpu"], 0);
        let extra = ["device", "kernel_seconds", "upload_seconds", "download_seconds", "compile_seconds", "rounds"];
        assert_eq!(keys(&r), set(&[SCC, &extra, &["levels", "launches", "device_bytes"]]));
    }
}

#[test]
fn cycle_mean_keys() {
    let r = report(&["cycle-mean", "examples/cycle.d", "--json"], 0);
    assert_eq!(keys(&r), set(&[CYCLE]));
    assert_eq!(keys(&r["cycle_edges"][0]), set(&[&["source", "target", "weight", "time"]]));
    let r = report(&["cycle-mean", "examples/cycle.d", "--json", "--per-scc"], 0);
    assert_eq!(keys(&r), set(&[CYCLE, &["components"]]));
    let component = ["representative", "vertices", "edges", "value", "decimal", "cycle"];
    assert_eq!(keys(&r["components"][0]), set(&[&component]));
    // A model: the states of the critical cycle too.
    let r = report(&["cycle-mean", "examples/peterson.dve", "--weight", "P0.cs", "--json"], 0);
    assert_eq!(keys(&r), set(&[CYCLE, &["states"]]));
    if gpu() {
        let r = report(&["cycle-mean", "examples/cycle.d", "--json", "--backend", "gpu"], 0);
        let extra = ["device", "device_rounds", "launches", "kernel_seconds", "device_seconds", "upload_seconds"];
        let more = ["setup_seconds", "certify_seconds", "certificate_fallbacks", "fallback_rounds", "device_bytes"];
        assert_eq!(keys(&r), set(&[CYCLE, &extra, &more]));
    }
}

#[test]
fn plan_keys() {
    let plan = ["solvable", "plan", "cost", "length", "penalty", "net_benefit", "expanded", "generated", "states"];
    let plan = [&plan[..], &["facts", "actions", "numeric", "numeric_scale"]].concat();
    let domain = "examples/plan/delivery-domain.pddl";
    let r = report(&["plan", domain, "examples/plan/delivery-problem.pddl", "--json"], 0);
    assert_eq!(
        keys(&r),
        set(&[
            &plan,
            &[
                "search",
                "heuristic",
                "backend",
                "device",
                "seconds",
                "search_seconds",
                "setup_seconds",
                "heuristic_seconds"
            ]
        ])
    );
}

#[test]
fn solve_keys() {
    let top = [
        "game",
        "pieces",
        "start",
        "first_moves",
        "databases",
        "plies",
        "position",
        "seconds",
        "backend",
        "device",
        "threads",
    ];
    let position = "WW...... ........ W.B.B.B. w";
    let r = report(&["solve", "nine-mens-morris", "--pieces", "3", "--position", position, "--json"], 0);
    assert_eq!(keys(&r), set(&[&top]));
    assert_eq!(keys(&r["start"]), set(&[&["value", "plies"]]));
    assert_eq!(keys(&r["first_moves"][0]), set(&[&["move", "value", "plies"]]));
    let db = ["pieces", "boards", "wins", "losses", "draws", "longest", "seconds"];
    assert_eq!(keys(&r["databases"][0]), set(&[&db]));
    assert_eq!(keys(&r["plies"][0]), set(&[&["ply", "positions", "wins", "losses", "draws", "seconds"]]));
    assert_eq!(keys(&r["position"]), set(&[&["position", "value", "plies", "moves"]]));
}

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpcheck-json-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}
