//! End-to-end tests of the `warpcheck` binary: results, JSON output and exit codes.

mod common;

use common::{text, warpcheck};

#[test]
fn explores_the_bundled_example() {
    let out = warpcheck(&["explore", "examples/peterson.dve"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("states:       70\n"), "{stdout}");
    assert!(stdout.contains("transitions:  118\n"), "{stdout}");
    assert!(stdout.contains("deadlocks:    0\n"), "{stdout}");
}

#[test]
fn json_report_has_the_counts() {
    let out = warpcheck(&["explore", "examples/buffered_pipeline.dve", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["states"], 51);
    assert_eq!(report["transitions"], 88);
    assert_eq!(report["deadlocks"], 0);
    assert_eq!(report["complete"], true);
    assert!(report["seconds"].is_number());
}

#[test]
fn missing_file_is_bad_input() {
    let out = warpcheck(&["explore", "no/such/model.dve"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `no/such/model.dve`"), "{}", text(&out.stderr));
}

#[test]
fn parse_error_points_into_the_source() {
    let dir = std::env::temp_dir().join(format!("warpcheck-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.dve");
    std::fs::write(&path, "byte x;\nprocess P { state s; init s; trans s -> s { guard y; }; }\nsystem async;\n")
        .unwrap();
    let out = warpcheck(&["explore", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error: undefined name `y`"), "{stderr}");
    assert!(stderr.contains("bad.dve:2:51"), "{stderr}");
    assert!(stderr.contains("^ not declared"), "{stderr}");
}

#[test]
fn unknown_option_is_a_usage_error() {
    let out = warpcheck(&["explore", "examples/peterson.dve", "--no-such-option"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--no-such-option"));
}

/// Writes a model to a fresh temporary file and returns its path.
fn model_file(name: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpcheck-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.dve"));
    std::fs::write(&path, source).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn check_holds_on_the_example() {
    let out = warpcheck(&["check", "examples/peterson.dve"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("checked:      deadlock, 2 assertion(s), evaluation errors"), "{stdout}");
    assert!(stdout.contains("verdict:      holds"), "{stdout}");
}

#[test]
fn violated_invariant_gives_a_shortest_trace() {
    let out = warpcheck(&["check", "examples/peterson.dve", "--invariant", "entries < 2", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(r["verdict"], "violated");
    // Two critical sections of one process: idle, want, wait, cs, idle, want, wait, cs.
    assert_eq!(r["trace_length"], 7);
    let trace = r["trace"].as_array().unwrap();
    assert_eq!(trace.len(), 8, "the initial state and 7 steps");
    assert_eq!(trace[0]["step"], "initial state");
    assert_eq!(trace[7]["changes"][0], "entries = 2 (was 1)");
    assert!(r["violations"][0]["message"].as_str().unwrap().contains("entries < 2"));
}

#[test]
fn text_trace_names_processes_transitions_and_changes() {
    let out = warpcheck(&["check", "examples/peterson.dve", "--invariant", "entries == 0"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("violated: invariant violated: `entries == 0`"), "{stdout}");
    assert!(stdout.contains("counterexample (3 steps):"), "{stdout}");
    assert!(stdout.contains("1. P0: idle -> want") || stdout.contains("1. P1: idle -> want"), "{stdout}");
    assert!(stdout.contains("entries = 1 (was 0)"), "{stdout}");
}

#[test]
fn deadlock_and_assertion_and_error_are_violations() {
    let deadlock = model_file(
        "deadlock",
        "byte x; process P { state a, b; init a; trans a -> b { effect x = 1; }; } system async;",
    );
    let out = warpcheck(&["check", &deadlock, "--deadlock", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["trace_length"], 1);
    assert!(r["violations"][0]["message"].as_str().unwrap().starts_with("deadlock"));

    let assertion = model_file(
        "assertion",
        "byte x; process P { state a, b; init a; assert b: x == 0; trans a -> b { effect x = 1; }, b -> a {}; } system async;",
    );
    let out = warpcheck(&["check", &assertion, "--assert"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("assertion violated: `x == 0` in process P state b"), "{}", text(&out.stdout));

    let error = model_file(
        "error",
        "byte a[2]; byte i; process P { state s; init s; trans s -> s { effect a[i] = 1, i = i + 1; }; } system async;",
    );
    let out = warpcheck(&["check", &error, "--deadlock"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("evaluation error: array index 2 out of bounds for `a[2]`"), "{stdout}");
    assert!(stdout.contains("raises: array index 2 out of bounds"), "{stdout}");
}

#[test]
fn all_counts_every_violation() {
    let out = warpcheck(&["check", "examples/peterson.dve", "--invariant", "entries < 3", "--all", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["complete"], true);
    assert_eq!(r["states"], 70);
    let counted = r["violations"][0]["count"].as_u64().unwrap();
    // Every state with entries == 3: fewer than all 70, more than one.
    assert!(counted > 1 && counted < 70, "{counted}");
}

#[test]
fn bad_invariant_is_bad_input() {
    let out = warpcheck(&["check", "examples/peterson.dve", "--invariant", "entries <"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error: expected an expression, found end of file"), "{stderr}");
    assert!(stderr.contains("--invariant:1:10"), "{stderr}");
    let out = warpcheck(&["check", "examples/peterson.dve", "--invariant", "nosuch == 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("undefined name `nosuch`"));
}

#[test]
fn full_state_table_is_a_resource_error() {
    let counter = model_file(
        "counter",
        "int x; process P { state s; init s; trans s -> s { guard x < 30000; effect x = x + 1; }; } system async;",
    );
    let out = warpcheck(&["explore", &counter, "--memory", "64K"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("the state table is full"), "{}", text(&out.stderr));
}

#[test]
fn depth_first_order_counts_the_same() {
    for threads in ["1", "2"] {
        let out =
            warpcheck(&["explore", "examples/buffered_pipeline.dve", "--order", "dfs", "--threads", threads, "--json"]);
        assert_eq!(out.status.code(), Some(0));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((r["states"].as_u64(), r["transitions"].as_u64()), (Some(51), Some(88)));
        assert!(r["levels"].is_null());
    }
}

#[test]
fn overflow_rule_is_selectable() {
    let counter = model_file(
        "wrap",
        "byte x = 254; process P { state s; init s; trans s -> s { effect x = x + 1; }; } system async;",
    );
    let out = warpcheck(&["explore", &counter, "--json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["states"].as_u64(), r["error_transitions"].as_u64()), (Some(3), Some(1)));
    let out = warpcheck(&["explore", &counter, "--overflow", "wrap", "--json"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["states"].as_u64(), r["error_transitions"].as_u64()), (Some(256), Some(0)));
}

#[test]
fn gpu_backend_explores_or_says_there_is_no_gpu() {
    let out = warpcheck(&["explore", "examples/peterson.dve", "--backend", "gpu", "--json"]);
    match out.status.code() {
        // A machine with a GPU: the same counts as the CPU engine.
        Some(0) => {
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
            assert_eq!((report["states"].as_u64(), report["transitions"].as_u64()), (Some(70), Some(118)));
            assert_eq!(report["backend"], "gpu");
        }
        // Without one (CI): a clear message and exit status 2.
        code => {
            assert_eq!(code, Some(2), "{}", text(&out.stderr));
            assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
        }
    }
}

#[test]
fn auto_backend_counts_like_the_cpu() {
    let auto = warpcheck(&["explore", "examples/buffered_pipeline.dve", "--json"]);
    let cpu = warpcheck(&["explore", "examples/buffered_pipeline.dve", "--json", "--backend", "cpu"]);
    let (a, c): (serde_json::Value, serde_json::Value) =
        (serde_json::from_slice(&auto.stdout).unwrap(), serde_json::from_slice(&cpu.stdout).unwrap());
    assert_eq!(c["backend"], "cpu");
    for key in ["states", "transitions", "deadlocks", "levels"] {
        assert_eq!(a[key], c[key], "{key}");
    }
}

#[test]
fn gpu_backend_rejects_depth_first_order() {
    let out = warpcheck(&["explore", "examples/peterson.dve", "--backend", "gpu", "--order", "dfs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("breadth first only"), "{}", text(&out.stderr));
}

fn temp_path(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpcheck-cli-{}-graphs", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

fn scc_json(args: &[&str]) -> serde_json::Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn scc_of_a_model_is_the_same_with_every_algorithm() {
    for algorithm in ["tarjan", "fb", "coloring", "obf"] {
        let r = scc_json(&["scc", "examples/peterson.dve", "--algorithm", algorithm, "--threads", "2", "--json"]);
        assert_eq!((r["vertices"].as_u64(), r["edges"].as_u64()), (Some(70), Some(118)), "{algorithm}");
        assert_eq!(r["sccs"], 51, "{algorithm}");
        assert_eq!(r["trivial"], 50, "{algorithm}");
        assert_eq!(r["nontrivial"], 1, "{algorithm}");
        assert_eq!(r["largest"], 20, "{algorithm}");
        assert!(r["seconds"].is_number());
    }
}

#[test]
fn explore_writes_the_state_graph_and_scc_reads_it() {
    for ext in ["aut", "edges", "wcg"] {
        let graph = temp_path(&format!("peterson.{ext}"));
        let out = warpcheck(&["explore", "examples/peterson.dve", "--graph-out", &graph]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("transitions:  118\n"), "{}", text(&out.stdout));
        let components = temp_path(&format!("components-{ext}.txt"));
        let svg = temp_path(&format!("sizes-{ext}.svg"));
        let r = scc_json(&["scc", &graph, "--json", "--components", &components, "--histogram-svg", &svg]);
        assert_eq!((r["vertices"].as_u64(), r["sccs"].as_u64(), r["largest"].as_u64()), (Some(70), Some(51), Some(20)));
        let lines = std::fs::read_to_string(&components).unwrap();
        assert_eq!(lines.lines().filter(|l| !l.starts_with('#')).count(), 70);
        assert!(lines.contains("\n0 0\n"), "the initial state names its own component");
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    }
}

#[test]
fn explore_graph_out_counts_the_error_state() {
    // x reaches 255, then `x = x + 1` is an error: 256 states plus the error state.
    let model = model_file(
        "overflow",
        "byte x; process P { state a; init a; trans a -> a { effect x = x + 1; }; } system async;",
    );
    let graph = temp_path("overflow.edges");
    let out = warpcheck(&["explore", &model, "--graph-out", &graph, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (r["states"].as_u64(), r["transitions"].as_u64(), r["deadlocks"].as_u64()),
        (Some(257), Some(256), Some(1))
    );
    assert_eq!(r["error_state"], 256);
    let r = scc_json(&["scc", &graph, "--json", "--algorithm", "obf"]);
    assert_eq!((r["sccs"].as_u64(), r["nontrivial"].as_u64()), (Some(257), Some(0)));
}

#[test]
fn bad_graph_files_are_bad_input_with_file_and_line() {
    let path = temp_path("bad.edges");
    std::fs::write(&path, "0 1\n1 x\n").unwrap();
    let out = warpcheck(&["scc", &path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.edges:2: expected a vertex id"), "{}", text(&out.stderr));
    let unknown = temp_path("graph.xyz");
    std::fs::write(&unknown, "").unwrap();
    let out = warpcheck(&["scc", &unknown]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown graph format"), "{}", text(&out.stderr));
    let out = warpcheck(&["scc", &path, "--algorithm", "dijkstra"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn generated_graphs_decompose_alike() {
    let graph = temp_path("rmat.wcg");
    let out = warpcheck(&["generate", "rmat", &graph, "--vertices", "5000", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let want = scc_json(&["scc", &graph, "--json", "--algorithm", "tarjan"]);
    assert_eq!(want["edges"], 60000);
    for algorithm in ["fb", "coloring", "obf"] {
        let r = scc_json(&["scc", &graph, "--json", "--algorithm", algorithm]);
        for key in ["sccs", "trivial", "nontrivial", "largest", "histogram"] {
            assert_eq!(r[key], want[key], "{algorithm}: {key}");
        }
    }
}

#[test]
fn scc_on_the_gpu_agrees_or_says_there_is_no_gpu() {
    let want = scc_json(&["scc", "examples/peterson.dve", "--json", "--algorithm", "tarjan"]);
    assert_eq!(want["backend"], "cpu");
    for algorithm in ["fb", "coloring", "obf", "fb-coloring"] {
        let out = warpcheck(&["scc", "examples/peterson.dve", "--backend", "gpu", "--algorithm", algorithm, "--json"]);
        match out.status.code() {
            // A machine with a GPU: the same components as Tarjan, and the GPU's timings.
            Some(0) => {
                let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
                // The state graph is the GPU engine's: the CPU's up to vertex numbering.
                for key in ["vertices", "edges", "sccs", "trivial", "nontrivial", "largest", "histogram"] {
                    assert_eq!(r[key], want[key], "{algorithm}: {key}");
                }
                assert_eq!((&r["backend"], &r["algorithm"]), (&"gpu".into(), &algorithm.into()));
                assert!(r["kernel_seconds"].is_number() && r["upload_seconds"].is_number());
                assert!(r["device"].is_string());
            }
            // Without one (CI): a clear message and exit status 2.
            code => {
                assert_eq!(code, Some(2), "{}", text(&out.stderr));
                assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
            }
        }
    }
}

#[test]
fn scc_with_tarjan_on_the_gpu_is_refused() {
    let out = warpcheck(&["scc", "examples/peterson.dve", "--backend", "gpu", "--algorithm", "tarjan"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("tarjan does not run on the GPU"), "{}", text(&out.stderr));
}

#[test]
fn scc_with_fb_coloring_on_the_cpu_is_refused() {
    let out = warpcheck(&["scc", "examples/peterson.dve", "--algorithm", "fb-coloring"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("fb-coloring runs on the GPU only"), "{}", text(&out.stderr));
}

#[test]
fn ltl_property_holds_with_every_algorithm() {
    for algorithm in ["ndfs", "cndfs", "owcty", "owcty-seq", "map", "map-seq"] {
        // The CPU's algorithms (`auto` would take owcty and map to a GPU where there is one).
        let model = "tests/models/ltl/holds_infinitely_often_zero.dve";
        let out = warpcheck(&["check", model, "--algorithm", algorithm, "--backend", "cpu"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.contains("verdict:      holds\n"), "{stdout}");
        assert!(stdout.contains("states:       5 "), "{stdout}");
        assert!(stdout.contains(&format!("algorithm:    {algorithm} ")), "{stdout}");
    }
}

#[test]
fn ltl_violation_prints_the_stem_and_the_cycle() {
    let out = warpcheck(&["check", "tests/models/ltl/violated_eventually_two.dve", "--threads", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("algorithm:    ndfs (1 thread(s))"), "{stdout}");
    assert!(stdout.contains("verdict:      violated\n"), "{stdout}");
    assert!(stdout.contains("counterexample (6 steps: stem 3, cycle 3):"), "{stdout}");
    assert!(stdout.contains("    3. P: s -> s; LTL_property: q0 -> q1\n       x = 0 (was 2)"), "{stdout}");
    assert!(stdout.contains("  cycle (back to the state after step 3, forever):\n    4. P: s -> s"), "{stdout}");
}

#[test]
fn ltl_default_is_cndfs_on_several_threads_and_ndfs_on_one() {
    let model = "tests/models/ltl/violated_eventually_two.dve";
    for (threads, expected) in [("1", "ndfs (1 thread(s))"), ("3", "cndfs (3 thread(s))")] {
        let out = warpcheck(&["check", model, "--threads", threads]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains(&format!("algorithm:    {expected}\n")), "{}", text(&out.stdout));
    }
    let out = warpcheck(&["check", model, "--threads", "64", "--algorithm", "cndfs"]);
    assert!(text(&out.stdout).contains("algorithm:    cndfs (28 thread(s))\n"), "{}", text(&out.stdout));
}

#[test]
fn ltl_json_has_the_verdict_and_the_lasso() {
    for algorithm in ["ndfs", "cndfs", "owcty", "map"] {
        let model = "tests/models/ltl/violated_by_stuttering.dve";
        let out = warpcheck(&["check", model, "--json", "--algorithm", algorithm, "--backend", "cpu"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["verdict"], "violated");
        assert_eq!(report["algorithm"], algorithm);
        let trace = report["trace"].as_array().unwrap();
        assert_eq!(report["trace_length"].as_u64().unwrap() as usize, trace.len() - 1);
        assert_eq!(report["cycle_length"], 1);
        let start = report["cycle_start"].as_u64().unwrap() as usize;
        assert_eq!(start, trace.len() - 1);
        assert_eq!(trace[start]["step"], "LTL_property: q1 -> q1 (system stutters)");
        assert_eq!(trace[0]["step"], "initial state");
        assert_eq!(report["map_rounds"].is_u64(), algorithm == "map", "{algorithm}");
        // The stores of CNDFS and of the product graph grow in place when they fill
        // up: never on 3 states. Nested DFS's store is not a table.
        assert_eq!(report["table_growths"].as_u64(), (algorithm != "ndfs").then_some(0), "{algorithm}");
    }
    let out = warpcheck(&["check", "tests/models/ltl/holds_error_state_not_a_cycle.dve", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["verdict"], "holds");
    assert_eq!(report["trace"], serde_json::Value::Null);
    assert_eq!(report["error_transitions"], 2);
}

#[test]
fn ltl_on_the_gpu_checks_or_says_there_is_no_gpu() {
    let model = "tests/models/ltl/violated_eventually_two.dve";
    for algorithm in ["owcty", "map"] {
        let out = warpcheck(&["check", model, "--backend", "gpu", "--algorithm", algorithm, "--json"]);
        match out.status.code() {
            // A machine with a GPU: the CPU's verdict, a lasso, the GPU's timings.
            Some(1) => {
                let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
                assert_eq!((report["backend"].as_str(), report["verdict"].as_str()), (Some("gpu"), Some("violated")));
                assert_eq!(report["algorithm"], algorithm);
                assert!(report["gpu"]["cycle_seconds"].is_f64(), "{report}");
                assert!(report["trace_length"].as_u64().unwrap() > 0);
            }
            // Without one (CI): a clear message and exit status 2.
            code => {
                assert_eq!(code, Some(2), "{}", text(&out.stderr));
                assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
            }
        }
    }
}

#[test]
fn ltl_usage_errors_and_limits() {
    let out = warpcheck(&["check", "examples/peterson.dve", "--algorithm", "owcty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("needs a model with a property process"), "{}", text(&out.stderr));
    let model = "tests/models/ltl/violated_eventually_two.dve";
    let out = warpcheck(&["check", model, "--backend", "gpu", "--algorithm", "ndfs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("runs on the CPU only"), "{}", text(&out.stderr));
    let out = warpcheck(&["check", model, "--memory", "40", "--algorithm", "ndfs"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("more than"), "{}", text(&out.stderr));
    // CNDFS's table: 16 entries, full long before the product of a property that holds
    // is all in.
    let out = warpcheck(&[
        "check",
        "examples/peterson.dve",
        "--ltl",
        "G \"entries >= 0\"",
        "--memory",
        "40",
        "--algorithm",
        "cndfs",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("the state table is full (16 entries)"), "{}", text(&out.stderr));
    // Naming a reachability check on a property model checks that instead.
    let out = warpcheck(&["check", model, "--deadlock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("checked:      deadlock"), "{}", text(&out.stdout));
}

#[test]
fn ltl_seed_orders_every_depth_first_search() {
    let violated = "tests/models/ltl/violated_early_cycle.dve";
    for algorithm in ["ndfs", "cndfs", "owcty", "map"] {
        let out = warpcheck(&["check", violated, "--algorithm", algorithm, "--seed", "3", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{algorithm}: {}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["verdict"], "violated", "{algorithm}");
    }
    // OWCTY and MAP decide a property that holds once the depth-first search has
    // expanded every state (not a prefix).
    let holds = "tests/models/ltl/holds_deep_chain.dve";
    for algorithm in ["owcty", "map-seq"] {
        let out = warpcheck(&["check", holds, "--algorithm", algorithm, "--seed", "3", "--incremental=4", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{algorithm}: {}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!((report["verdict"].as_str(), report["partial"].as_bool()), (Some("holds"), Some(false)));
    }
    // A prefix past the memory given: exit 3 with the reason, not an abort.
    let out = warpcheck(&["check", violated, "--algorithm", "owcty", "--seed", "3", "--memory", "1000"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("need more than 1000 bytes"), "{}", text(&out.stderr));
    let out = warpcheck(&["check", violated, "--backend", "gpu", "--algorithm", "owcty", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--seed orders depth-first searches"), "{}", text(&out.stderr));
    let out = warpcheck(&["check", "examples/peterson.dve", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("needs a model with a property process"), "{}", text(&out.stderr));
}

#[test]
fn ltl_incremental_finds_the_cycle_in_a_prefix() {
    let model = "tests/models/ltl/violated_early_cycle.dve";
    let out = warpcheck(&["check", model, "--algorithm", "owcty", "--incremental=8", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((report["verdict"].as_str(), report["partial"].as_bool()), (Some("violated"), Some(true)));
    assert_eq!(report["states"], 8);
    let out = warpcheck(&["check", model, "--algorithm", "map", "--incremental"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("states:       201 (product states stored)"), "{}", text(&out.stdout));
    for bad in [
        &["--incremental"][..],
        &["--algorithm", "ndfs", "--incremental=8"],
        &["--backend", "gpu", "--algorithm", "owcty", "--incremental"],
    ] {
        let out = warpcheck(&[&["check", model][..], bad].concat());
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(text(&out.stderr).contains("--incremental grows the product graph"), "{}", text(&out.stderr));
    }
    // A count of at least 1, given with `=`.
    for bad in ["--incremental=0", "--incremental=many"] {
        let out = warpcheck(&["check", model, "--algorithm", "owcty", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(text(&out.stderr).contains("--incremental"), "{}", text(&out.stderr));
    }
    let out = warpcheck(&["check", "--algorithm", "owcty", "--incremental", "8", model]);
    assert_eq!(out.status.code(), Some(2));
    let out = warpcheck(&["check", "examples/peterson.dve", "--incremental"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("needs a model with a property process"), "{}", text(&out.stderr));
}

/// A model of `side` x `side` states (two counters) in a fresh folder, with `property`
/// (a property process and its `system` line, or just `system async;`); the folder and
/// the model's path.
fn grid_model(name: &str, side: u32, property: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("warpcheck-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("grid.dve");
    let bound = side - 1;
    let text = format!(
        "int a = 0; int b = 0;\nprocess P {{ state s; init s; trans\n  s -> s {{ guard a < {bound}; effect a = a + 1; \
         }},\n  s -> s {{ guard b < {bound}; effect b = b + 1; }}; }}\n{property}\n"
    );
    std::fs::write(&path, text).unwrap();
    (dir, path.to_str().unwrap().to_string())
}

/// `--progress-every`: plain progress lines on standard error (not a terminal here),
/// beside the JSON report: the engine's reports every 250 ms, then the final counts.
#[test]
fn progress_lines_for_logs() {
    let (dir, model) = grid_model("progress", 1000, "system async;");
    let model = model.as_str();
    let out = warpcheck(&["explore", model, "--json", "--threads", "2", "--progress-every", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["states"], 1_000_000);
    let lines: Vec<String> = text(&out.stderr).lines().map(str::to_string).collect();
    assert!(
        !lines.is_empty()
            && lines.iter().all(|l| l.contains(" s: ") && l.contains(" states, ") && l.contains(", level ")),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().contains(" 1000000 states, "), "the last line has the final count: {lines:?}");
    // Without the option, nothing on standard error when it is not a terminal.
    let out = warpcheck(&["explore", "examples/peterson.dve", "--json"]);
    assert_eq!(text(&out.stderr), "");
    let out = warpcheck(&["explore", model, "--progress-every", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected a number of seconds"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

/// LTL checks on the CPU report too: nested DFS the depth of its stack, OWCTY the
/// levels of the product graph's build (4 million product states, no accepting cycle).
#[test]
fn ltl_progress_lines_for_logs() {
    let property = "process LTL_property { state q0, q1; init q0; accept q1; trans q0 -> q0 {}, \
                    q0 -> q1 { guard a < 0; }, q1 -> q1 {}; }\nsystem async property LTL_property;";
    let (dir, model) = grid_model("ltl-progress", 2000, property);
    let model = model.as_str();
    for (args, place) in
        [(&["--threads", "1"][..], ", depth "), (&["--algorithm", "owcty", "--threads", "2"][..], ", level ")]
    {
        let mut all = vec!["check", model, "--json", "--progress-every", "0"];
        all.extend_from_slice(args);
        let out = warpcheck(&all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["states"], 4_000_000, "{args:?}");
        let lines: Vec<String> = text(&out.stderr).lines().map(str::to_string).collect();
        assert!(
            !lines.is_empty()
                && lines.iter().all(|l| l.contains(" s: ") && l.contains(" states, ") && l.contains(place)),
            "{args:?}: {lines:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The semi-external search reports its enumeration on disk (levels), then its nested
/// search (the depth of its stack), 1 million product states.
#[test]
fn semi_external_progress_lines_for_logs() {
    let property = "process LTL_property { state q0, q1; init q0; accept q1; trans q0 -> q0 {}, \
                    q0 -> q1 { guard a < 0; }, q1 -> q1 {}; }\nsystem async property LTL_property;";
    let (dir, model) = grid_model("semi-external-progress", 1000, property);
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let args = ["check", &model, "--json", "--progress-every", "0", "--algorithm", "semi-external"];
    let out = warpcheck(&[&args[..], &["--disk", files.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((report["states"].as_u64(), report["verdict"].as_str()), (Some(1_000_000), Some("holds")));
    let lines: Vec<String> = text(&out.stderr).lines().map(str::to_string).collect();
    assert!(lines.iter().all(|l| l.contains(" s: ") && l.contains(" states, ")), "{lines:?}");
    let first_depth = lines.iter().position(|l| l.contains(", depth ")).expect("a line of the nested search");
    assert!(lines[..first_depth].iter().any(|l| l.contains(", level ")), "the enumeration first: {lines:?}");
    std::fs::remove_dir_all(&dir).ok();
}
