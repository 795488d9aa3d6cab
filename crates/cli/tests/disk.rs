//! `--disk DIR`: `explore` with the states on disk, and LTL with `--algorithm
//! semi-external`, end to end: the same counts and verdicts as in memory, no files
//! left behind, and clear errors.

mod common;

use common::{text, warpcheck};

fn json(args: &[&str]) -> serde_json::Value {
    let out = warpcheck(args);
    assert!(out.status.success() || out.status.code() == Some(1), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn explore_on_disk_counts_as_in_memory_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for model in ["examples/peterson.dve", "tests/models/ltl/violated_eventually_two.dve"] {
        let memory = json(&["explore", model, "--json"]);
        let disk = json(&["explore", model, "--json", "--disk", d, "--memory", "1M"]);
        for key in ["states", "transitions", "deadlocks", "levels", "accepting", "error_transitions"] {
            assert_eq!(disk[key], memory[key], "{model}: {key}");
        }
    }
    let out = warpcheck(&["explore", "examples/peterson.dve", "--disk", d]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("states:       70\n") && stdout.contains("disk:         "), "{stdout}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "files left in --disk");
}

#[test]
fn semi_external_ltl_gives_the_verdicts_and_a_lasso() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for (model, verdict) in [
        ("tests/models/ltl/violated_eventually_two.dve", "violated"),
        ("tests/models/ltl/violated_accepting_cycle_off_the_stack.dve", "violated"),
        ("tests/models/ltl/holds_infinitely_often_zero.dve", "holds"),
        ("tests/models/ltl/holds_error_state_not_a_cycle.dve", "holds"),
    ] {
        let r = json(&["check", model, "--algorithm", "semi-external", "--disk", d, "--json"]);
        let ndfs = json(&["check", model, "--algorithm", "owcty", "--json"]);
        assert_eq!((r["verdict"].as_str(), r["algorithm"].as_str()), (Some(verdict), Some("semi-external")), "{model}");
        assert_eq!((&r["states"], &r["transitions"]), (&ndfs["states"], &ndfs["transitions"]), "{model}");
        assert!(r["disk_bytes"].as_u64().unwrap() > 0 && r["memory_bytes"].as_u64().unwrap() > 0, "{model}");
        assert_eq!(r["cycle_length"].is_null(), verdict == "holds", "{model}");
    }
    let out = warpcheck(&["check", "tests/models/ltl/violated_eventually_two.dve", "--algorithm", "semi-external"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("counterexample (") && stdout.contains("bits per state"), "{stdout}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "files left in --disk");
}

#[test]
fn disk_usage_errors() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["check", "tests/models/ltl/holds_deep_chain.dve", "--algorithm", "semi-external", "--seed", "3"],
            "takes none",
        ),
        (&["explore", "examples/peterson.dve", "--disk", "no/such/dir"], "no such directory"),
        (&["check", "examples/peterson.dve", "--deadlock", "--disk", "."], "checked in memory"),
        (&["check", "tests/models/ltl/violated_eventually_two.dve", "--disk", "."], "--algorithm semi-external"),
        (&["explore", "examples/peterson.dve", "--disk", ".", "--order", "dfs"], "breadth first on the CPU"),
        (&["explore", "examples/die.pm", "--disk", "."], "not with --graph-out or a Markov model"),
    ];
    for (args, message) in cases {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
}
