//! `--backend cpu|gpu|auto` on every command with a GPU path, with one meaning: `gpu`
//! is an error (exit 2) without a device or for what has no GPU version, `auto` runs
//! on the GPU when it can and otherwise on the CPU (with a note only when a GPU is
//! present). The tests hold on machines with and without a GPU.

mod common;

use common::{text, warpcheck};
use serde_json::Value;

fn gpu() -> bool {
    warpcheck_explore::gpu::device_available()
}

/// Each command with a GPU path, and its exit status on these inputs.
const COMMANDS: [(&[&str], i32); 7] = [
    (&["explore", "examples/peterson.dve"], 0),
    (&["check", "examples/peterson.dve", "--invariant", "entries < 2"], 1),
    (&["check", "tests/models/ltl/violated_eventually_two.dve", "--algorithm", "owcty"], 1),
    (&["scc", "examples/peterson.dve"], 0),
    (&["cycle-mean", "examples/cycle.d"], 0),
    (&["solve", "nine-mens-morris", "--pieces", "3"], 0),
    (&["plan", "examples/plan/ferry-domain.pddl", "examples/plan/ferry-problem.pddl"], 0),
];

fn run(command: &[&str], extra: &[&str]) -> std::process::Output {
    warpcheck(&[command, extra].concat())
}

#[test]
fn gpu_without_a_device_is_bad_usage() {
    if gpu() {
        return;
    }
    for (command, _) in COMMANDS {
        let out = run(command, &["--backend", "gpu", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("error: no CUDA device: "), "{command:?}: {stderr}");
        assert!(stderr.contains("--backend gpu needs one"), "{command:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{command:?}");
    }
}

#[test]
fn auto_runs_on_the_gpu_when_present_else_quietly_on_the_cpu() {
    for (command, code) in COMMANDS {
        let out = run(command, &["--backend", "auto", "--json"]);
        assert_eq!(out.status.code(), Some(code), "{command:?}: {}", text(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["backend"], if gpu() { "gpu" } else { "cpu" }, "{command:?}");
        if !gpu() {
            assert!(out.stderr.is_empty(), "{command:?}: {}", text(&out.stderr));
        }
    }
}

#[test]
fn a_device_that_does_not_exist() {
    for (command, code) in COMMANDS {
        let out = run(command, &["--backend", "gpu", "--device", "99"]);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
        let out = run(command, &["--backend", "auto", "--device", "99", "--json"]);
        assert_eq!(out.status.code(), Some(code), "{command:?}");
        let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["backend"], "cpu");
        if gpu() {
            assert!(text(&out.stderr).contains("note: device 99 requested"), "{}", text(&out.stderr));
        }
    }
}

/// What has no GPU version, and the reason each gives.
const CPU_ONLY: [(&[&str], &str); 7] = [
    (&["explore", "examples/peterson.dve", "--order", "dfs"], "the GPU engine explores breadth first only"),
    (&["explore", "examples/peterson.dve", "--graph-out", "/dev/null/x.wcg"], "--graph-out writes the state graph"),
    (
        &["check", "tests/models/ltl/violated_eventually_two.dve", "--algorithm", "cndfs"],
        "`--algorithm cndfs` runs on the CPU only; the GPU runs owcty or map",
    ),
    (&["scc", "examples/peterson.dve", "-a", "tarjan"], "tarjan does not run on the GPU"),
    (&["cycle-mean", "examples/cycle.d", "-a", "howard,yto"], "yto runs on the CPU only (the GPU runs howard)"),
    (
        &["plan", "examples/plan/delivery-domain.pddl", "examples/plan/delivery-problem.pddl", "--max-states", "99"],
        "--max-states bounds the CPU search only",
    ),
    (
        &["plan", "examples/plan/ferry-domain.pddl", "examples/plan/ferry-problem.pddl", "--heuristic", "lmcut"],
        "A* with lmcut runs on the CPU only (the GPU searches blind or with --heuristic pdb)",
    ),
];

#[test]
fn gpu_refuses_what_has_no_gpu_version() {
    for (command, why) in CPU_ONLY {
        let out = run(command, &["--backend", "gpu"]);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(why) && stderr.contains("use --backend cpu or auto"), "{command:?}: {stderr}");
    }
}

#[test]
fn auto_runs_what_has_no_gpu_version_on_the_cpu_with_a_note() {
    for (command, why) in CPU_ONLY {
        if command.contains(&"--graph-out") {
            continue; // writes a file; covered by the other tests
        }
        let out = run(command, &["--backend", "auto", "--json"]);
        let stderr = text(&out.stderr);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{command:?}: {stderr}");
        let last: Value =
            text(&out.stdout).lines().last().map(|l| serde_json::from_str(l).unwrap()).expect("a JSON report");
        if command[0] == "cycle-mean" {
            // howard on the GPU where there is one, yto on the CPU.
            assert_eq!(last["algorithm"], "yto");
        }
        assert_eq!(last["backend"], "cpu", "{command:?}");
        let noted = stderr.contains(&format!("note: {why}")) && stderr.contains("running on the CPU");
        assert_eq!(noted, gpu(), "{command:?}: {stderr}");
    }
}

#[test]
fn howard_gpu_is_a_deprecated_spelling_of_backend_gpu() {
    let out = warpcheck(&["cycle-mean", "examples/cycle.d", "-a", "howard-gpu", "--max", "--json"]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("warning: `-a howard-gpu` is deprecated: use `--backend gpu -a howard`"), "{stderr}");
    let new = warpcheck(&["cycle-mean", "examples/cycle.d", "--backend", "gpu", "--max", "--json"]);
    assert_eq!(out.status.code(), new.status.code(), "{}", text(&new.stderr));
    assert!(!text(&new.stderr).contains("deprecated"));
    if gpu() {
        for out in [out, new] {
            let r: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
            assert_eq!((r["algorithm"].as_str(), r["backend"].as_str()), (Some("howard-gpu"), Some("gpu")));
            assert_eq!(r["value"], "7/2");
        }
    } else {
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr.contains("no CUDA device"), "{stderr}");
    }
    let out = warpcheck(&["cycle-mean", "examples/cycle.d", "-a", "howard-gpu", "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("choose one"), "{}", text(&out.stderr));
}

#[test]
fn gpus_and_partitions_are_checked_and_explore_alike() {
    for bad in [["--gpus", "0"], ["--gpus", "some"], ["--partitions", "0"], ["--partitions", "257"]] {
        let out = run(&["explore", "examples/peterson.dve"], &bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(text(&out.stderr).contains(&format!("invalid value '{}'", bad[1])), "{}", text(&out.stderr));
    }
    // Several partitions (on the GPU where there is one, else the CPU): the same counts.
    let counts = |extra: &[&str]| {
        let out = run(&["explore", "examples/peterson.dve", "--json"], extra);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", text(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        (r["states"].clone(), r["transitions"].clone(), r["deadlocks"].clone())
    };
    let one = counts(&[]);
    assert_eq!(one.0, 70);
    assert_eq!(counts(&["--gpus", "all", "--partitions", "3"]), one);
    if gpu() {
        let out = run(&["explore", "examples/peterson.dve", "--json"], &["--partitions", "3"]);
        let r: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!((r["partitions"].as_u64(), r["transport"].as_str()), (Some(3), Some("direct")));
        let out = run(&["explore", "examples/peterson.dve"], &["--partitions", "2", "--profile", "--backend", "gpu"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains("profiling times one GPU and one partition"), "{}", text(&out.stderr));
    }
}
