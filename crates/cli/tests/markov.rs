//! Markov models on the command line: PRISM sources with `--const`, Storm's DRN and
//! PRISM's explicit files, `--export` round trips, the JSON keys, and bad input
//! (exit 2 with the place).

mod common;

use common::{text, warpcheck};
use serde_json::Value;

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("warpcheck-markov-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}

fn json(args: &[&str]) -> Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn fails(args: &[&str], message: &str) {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
}

/// The size of a report: type, states, choices, transitions, initial states, deadlocks.
fn size(r: &Value) -> (String, u64, u64, u64, u64, u64) {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    (
        r["model_type"].as_str().unwrap().to_string(),
        n("states"),
        n("choices"),
        n("transitions"),
        n("initial_states"),
        n("deadlocks"),
    )
}

#[test]
fn prism_models_build_with_their_constants() {
    // Knuth and Yao's die: 13 states and 20 transitions, as PRISM reports.
    let r = json(&["explore", "examples/die.pm", "--json"]);
    assert_eq!(size(&r), ("dtmc".into(), 13, 13, 20, 1, 0));
    assert_eq!(r["labels"]["done"], 6);
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = vec![
        "model",
        "model_type",
        "states",
        "transitions",
        "choices",
        "initial_states",
        "deadlocks",
        "labels",
        "seconds",
        "backend",
        "threads",
    ];
    expected.sort();
    let mut keys = keys;
    keys.sort();
    assert_eq!(keys, expected);
    // The gambler: coins 0..8 while playing, plus the states where she stopped.
    let r = json(&["explore", "examples/gamble.nm", "--const", "N=3", "--json"]);
    assert_eq!(size(&r), ("mdp".into(), 17, 30, 43, 1, 9));
    let r = json(&["explore", "examples/gamble.nm", "--const", "N=1", "--json", "--threads", "1"]);
    let one = size(&r);
    let r = json(&["explore", "examples/gamble.nm", "--const", "N=1", "--json", "--threads", "3"]);
    assert_eq!(size(&r), one);
}

#[test]
fn export_writes_what_reads_back_the_same() {
    for out in ["gamble.drn", "gamble.tra", "zipped.drn.gz", "zipped.tra.gz"] {
        let path = temp(out);
        let built = json(&["explore", "examples/gamble.nm", "--const", "N=3", "--export", &path, "--json"]);
        let read = json(&["explore", &path, "--json"]);
        assert_eq!(size(&read), size(&built), "{out}");
        assert_eq!(read["labels"]["rich"], built["labels"]["rich"], "{out}");
        assert_eq!(read["labels"]["broke"], built["labels"]["broke"], "{out}");
    }
    // A DTMC's .tra read as a CTMC with --type.
    let path = temp("die.tra");
    json(&["explore", "examples/die.pm", "--export", &path, "--json"]);
    assert_eq!(json(&["explore", &path, "--type", "ctmc", "--json"])["model_type"], "ctmc");
}

#[test]
fn bad_input_is_an_error_with_the_place() {
    fails(&["explore", "examples/gamble.nm"], "constant `N` has no value");
    fails(&["explore", "examples/gamble.nm", "--const", "N"], "is not `NAME=VALUE`");
    fails(&["explore", "examples/gamble.nm", "--const", "N=3", "--type", "dtmc"], "the model is a mdp, not the dtmc");
    if !warpcheck_explore::gpu::device_available() {
        fails(&["explore", "examples/gamble.nm", "--const", "N=3", "--backend", "gpu"], "no CUDA device");
    }
    let drn = temp("gamble-gpu.drn");
    json(&["explore", "examples/gamble.nm", "--const", "N=3", "--export", &drn, "--json"]);
    fails(&["explore", &drn, "--backend", "gpu"], "explicit Markov files are read on the CPU");
    fails(&["explore", "examples/gamble.nm", "--const", "N=3", "--graph-out", &temp("g.aut")], "--export FILE");
    fails(&["explore", "examples/peterson.dve", "--const", "N=3"], "are for Markov models");
    let path = temp("bad.drn");
    std::fs::write(&path, "@type: DTMC\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n").unwrap();
    fails(&["explore", &path], "bad.drn:");
    fails(&["explore", &path, "--const", "N=3"], "an explicit model, without constants");
}

#[test]
fn mec_decomposes_mdps_and_finds_the_bottom_sccs_of_chains() {
    // The gambler's absorbing states (the 8 where she stopped and the rich one) are
    // its only end components; the die's six outcomes are its bottom SCCs.
    let r = json(&["mec", "examples/gamble.nm", "--const", "N=3", "--json"]);
    assert_eq!((r["kind"].as_str(), r["mecs"].as_u64(), r["states_in_mecs"].as_u64()), (Some("mec"), Some(9), Some(9)));
    assert_eq!(r["choices_in_mecs"], 9);
    let path = temp("die.components");
    let r = json(&["mec", "examples/die.pm", "--components", &path, "--json", "--threads", "1"]);
    assert_eq!((r["kind"].as_str(), r["mecs"].as_u64()), (Some("bscc"), Some(6)));
    assert_eq!(r["mec_sizes"], serde_json::json!([1, 1, 1, 1, 1, 1]));
    let lines: Vec<Value> =
        std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["choices"], serde_json::json!([[lines[0]["states"][0].clone(), 0]]));
    let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    let mut expected = vec![
        "model",
        "model_type",
        "kind",
        "states",
        "choices",
        "mecs",
        "mec_sizes",
        "states_in_mecs",
        "choices_in_mecs",
        "build_seconds",
        "mec_seconds",
        "backend",
        "threads",
    ];
    expected.sort();
    assert_eq!(keys, expected);
    fails(&["mec", "examples/peterson.dve"], "a file of format dve, which mec does not read");
    if !warpcheck_explore::gpu::device_available() {
        fails(&["mec", "examples/die.pm", "--backend", "gpu"], "no CUDA device");
    }
}
