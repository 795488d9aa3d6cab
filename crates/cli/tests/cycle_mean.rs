//! End-to-end tests of `warpcheck cycle-mean`: exact values, critical cycles, JSON,
//! models weighted by DVE expressions, and exit codes.

mod common;

use common::{text, warpcheck};

fn json(args: &[&str]) -> serde_json::Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn every_algorithm_gives_the_exact_optimum_and_its_cycle() {
    // examples/cycle.d documents its cycles: 1-2-1 (-7 over time 3), 3-3 (-3, 1), 3-4-3 (7, 2).
    let cases: [(&[&str], &str, f64, &[u64]); 4] = [
        (&[], "-7/2", -3.5, &[1, 2]),
        (&["--ratio"], "-3", -3.0, &[3]),
        (&["--max"], "7/2", 3.5, &[3, 4]),
        (&["--max", "--ratio"], "7/2", 3.5, &[3, 4]),
    ];
    for (flags, value, decimal, cycle) in cases {
        for algorithm in ["howard", "howard-par", "yto", "karp"] {
            if algorithm == "karp" && flags.contains(&"--ratio") {
                continue;
            }
            let mut args = vec!["cycle-mean", "examples/cycle.d", "--json", "--threads", "2", "-a", algorithm];
            args.extend_from_slice(flags);
            let r = json(&args);
            assert_eq!(r["value"], value, "{args:?}");
            assert_eq!(r["decimal"], decimal, "{args:?}");
            assert_eq!(r["cycle"], serde_json::json!(cycle), "{args:?}");
            assert_eq!(r["algorithm"], algorithm);
            assert!(r["seconds"].is_number());
        }
    }
}

#[test]
fn text_output_and_per_scc() {
    let out = warpcheck(&["cycle-mean", "examples/cycle.d", "--ratio", "--per-scc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("value:        -3 (-3.000000)"), "{stdout}");
    assert!(stdout.contains("cycle:        3 -> 3"), "{stdout}");
    assert!(stdout.contains("-7/3  -2.333333"), "{stdout}");
    let r = json(&["cycle-mean", "examples/cycle.d", "--per-scc", "--json", "--max"]);
    let comps = r["components"].as_array().unwrap();
    assert_eq!(comps.len(), 2);
    assert_eq!(comps[0]["value"], "-7/2");
    assert_eq!(comps[1]["value"], "7/2");
}

#[test]
fn a_model_weighted_by_an_expression() {
    // Peterson: in the worst case, the two processes take turns in the critical
    // section; P1's turns weigh twice as much.
    let r = json(&["cycle-mean", "examples/peterson.dve", "--weight", "P0.cs + 2*P1.cs", "--max", "--json"]);
    assert_eq!(r["value"], "9/8");
    assert_eq!(r["cycle"].as_array().unwrap().len(), 8);
    assert_eq!(r["states"].as_array().unwrap().len(), 8);
    // At best one process loops alone: P0's four steps, one of them into `cs`.
    let r = json(&["cycle-mean", "examples/peterson.dve", "--weight", "P0.cs + 2*P1.cs", "--json"]);
    assert_eq!(r["value"], "1/4");
    // A ratio (the time of a step being 1 + flag[0]): the algorithms agree, and the
    // value is the weight over the time of the cycle's edges.
    let mut values = Vec::new();
    for a in ["howard", "howard-par", "yto"] {
        let r = json(&[
            "cycle-mean",
            "examples/peterson.dve",
            "--weight",
            "P0.cs + 2*P1.cs",
            "--time",
            "1 + flag[0]",
            "--ratio",
            "--max",
            "--json",
            "-a",
            a,
        ]);
        let edges = r["cycle_edges"].as_array().unwrap();
        let w: i64 = edges.iter().map(|e| e["weight"].as_i64().unwrap()).sum();
        let t: i64 = edges.iter().map(|e| e["time"].as_i64().unwrap()).sum();
        let value = r["value"].as_str().unwrap().to_string();
        let (p, q): (i64, i64) = match value.split_once('/') {
            Some((p, q)) => (p.parse().unwrap(), q.parse().unwrap()),
            None => (value.parse().unwrap(), 1),
        };
        assert_eq!(p * t, q * w, "{a}: {value} vs {w}/{t}");
        values.push(value);
    }
    assert!(values.iter().all(|v| *v == values[0]), "{values:?}");
}

#[test]
fn bad_input_is_exit_2_with_a_message() {
    let cases: [&[&str]; 6] = [
        &["cycle-mean", "missing.d"],
        &["cycle-mean", "examples/peterson.dve"],
        &["cycle-mean", "examples/peterson.dve", "--weight", "P0.cs +"],
        &["cycle-mean", "examples/cycle.d", "--weight", "1"],
        &["cycle-mean", "examples/cycle.d", "--ratio", "-a", "karp"],
        &["cycle-mean", "examples/peterson.dve", "--weight", "1", "--time", "0", "--ratio"],
    ];
    for args in cases {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("error"), "{args:?}: {}", text(&out.stderr));
    }
    let dir = std::env::temp_dir().join(format!("warpcheck-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.d");
    std::fs::write(&bad, "p x 2 1\na 1 3 5 1\n").unwrap();
    let out = warpcheck(&["cycle-mean", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.d:2: vertex 3 is out of range"), "{}", text(&out.stderr));
}

#[test]
fn a_graph_without_cycles_says_so() {
    let dir = std::env::temp_dir().join(format!("warpcheck-acyclic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dag.d");
    std::fs::write(&path, "p dag 3 2\na 1 2 5 1\na 2 3 -1 1\n").unwrap();
    let out = warpcheck(&["cycle-mean", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("none (the graph has no cycle)"));
    let r = json(&["cycle-mean", path.to_str().unwrap(), "--json"]);
    assert!(r["value"].is_null() && r["cycle"].is_null());
}

#[test]
fn howard_gpu_solves_exactly_or_says_there_is_no_gpu() {
    // With a device (the device machine): the exact optimum; without (CI): exit 2.
    let out = warpcheck(&["cycle-mean", "examples/cycle.d", "--json", "-a", "howard-gpu", "--max"]);
    match out.status.code() {
        Some(0) => {
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
            assert_eq!(r["value"], "7/2");
            assert_eq!(r["cycle"], serde_json::json!([3, 4]));
            assert_eq!((r["algorithm"].as_str(), r["backend"].as_str()), (Some("howard-gpu"), Some("gpu")));
            assert!(r["kernel_seconds"].is_number() && r["device"].is_string());
        }
        Some(2) => {
            assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
            assert!(out.stdout.is_empty());
        }
        other => panic!("exit {other:?}: {}", text(&out.stderr)),
    }
    // A device number that does not exist is an error either way.
    let out = warpcheck(&["cycle-mean", "examples/cycle.d", "-a", "howard-gpu", "--device", "99"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no CUDA device") || text(&out.stderr).contains("device 99"));
}
