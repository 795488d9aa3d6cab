//! `warpcheck puzzle`: layer counts of small instances (OEIS A090034 for the 2x3
//! sliding tile, the pancake numbers), shortest solutions, the JSON keys, and bad
//! instances (exit 2) and memory limits (exit 3).

mod common;

use common::{text, warpcheck};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn layers_of_small_instances() {
    let r = json(&["puzzle", "sliding-tile", "2x3", "--json"]);
    let a090034 = [1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1];
    assert_eq!(r["layers"], serde_json::json!(a090034));
    assert_eq!((r["states"].as_u64(), r["depth"].as_u64()), (Some(360), Some(21)));
    // Pancake numbers (OEIS A058986): 9 flips sort any stack of 8, and 8! stacks.
    for algorithm in ["two-bit", "two-bit-literal"] {
        let r = json(&["puzzle", "pancake", "8", "--algorithm", algorithm, "--json", "--threads", "3"]);
        assert_eq!((r["states"].as_u64(), r["depth"].as_u64()), (Some(40320), Some(9)), "{algorithm}");
    }
    // Reachability has no layers; a stopped search is not complete.
    let r = json(&["puzzle", "top-spin", "8,4", "--algorithm", "reachability", "--json"]);
    assert_eq!((r["states"].as_u64(), r["layers"].is_null()), (Some(5040), true));
    // Peg solitaire with diagonal jumps (BEEM's peg_solitaire.3): 4 first moves, 28 second
    // (the DVE model's levels, `tests/tests/peg_solitaire_dve.rs`).
    let r = json(&["puzzle", "peg-solitaire", "diagonal", "--max-depth", "3", "--backend", "cpu", "--json"]);
    assert_eq!(
        (r["puzzle"].as_str(), r["layers"].clone()),
        (Some("peg-solitaire diagonal"), serde_json::json!([1, 4, 28, 272]))
    );
    let r = json(&["puzzle", "fore-and-aft", "--max-depth", "3", "--json"]);
    assert_eq!((r["complete"].as_bool(), r["states"].as_u64()), (Some(false), Some(1 + 8 + 12 + 14)));
    let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    let mut expected = vec![
        "puzzle",
        "algorithm",
        "states",
        "depth",
        "layers",
        "complete",
        "index_space",
        "bytes",
        "expansions",
        "seconds",
        "backend",
        "threads",
        "gpu_seconds",
        "solution",
    ];
    expected.sort();
    assert_eq!(keys, expected);
}

/// `--layers-svg`: one bar per layer of the 2x3 sliding tile (OEIS A090034), each with
/// its count; none for the reachability search, and an unwritable file is exit 2.
#[test]
fn the_layer_profile_as_svg() {
    let dir = std::env::temp_dir().join(format!("warpcheck-layers-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2x3.svg");
    let r = json(&["puzzle", "sliding-tile", "2x3", "--layers-svg", path.to_str().unwrap(), "--json"]);
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"), "{svg}");
    let layers = r["layers"].as_array().unwrap();
    assert_eq!(svg.matches("<rect x=").count(), layers.len());
    for (depth, count) in layers.iter().enumerate() {
        assert!(svg.contains(&format!("<title>depth {depth}: {count} states</title>")), "depth {depth}");
    }
    let out = warpcheck(&["puzzle", "top-spin", "8,4", "--algorithm", "reachability", "--layers-svg", "x.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--layers-svg needs the layers"), "{}", text(&out.stderr));
    let out = warpcheck(&["puzzle", "sliding-tile", "2x3", "--layers-svg", "/nonexistent-dir/x.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot write `/nonexistent-dir/x.svg`"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shortest_solutions() {
    let r = json(&["puzzle", "sliding-tile", "2x3", "--solve", "1 0 2 3 4 5", "--json"]);
    assert_eq!(r["solution"], serde_json::json!(["blank R"]));
    let r = json(&["puzzle", "pancake", "5", "--solve", "1 0 2 3 4", "--json"]);
    assert_eq!(r["solution"].as_array().map(Vec::len), Some(1));
}

#[test]
fn bad_instances_and_limits() {
    for (args, code, message) in [
        (&["puzzle", "pancake", "40"][..], 2, "needs 1 to 20 pancakes"),
        (&["puzzle", "sliding-tile", "1x1"], 2, "invalid instance"),
        (&["puzzle", "chess"], 2, "invalid instance"),
        (&["puzzle", "peg-solitaire", "french"], 2, "`french` is not a variant; known: diagonal"),
        (&["puzzle", "top-spin", "8,4", "--algorithm", "one-bit-layers"], 2, "no layer-selection property"),
        (&["puzzle", "pancake", "8", "--algorithm", "fastest"], 2, "--algorithm fastest"),
        (&["puzzle", "sliding-tile", "2x3", "--solve", "9 9 9"], 2, "invalid position"),
        (&["puzzle", "pancake", "12", "--memory", "1M"], 3, "more than the 1048576 bytes"),
        (&["puzzle", "peg-solitaire", "--backend", "gpu", "--algorithm", "one-bit-layers"], 2, "two-bit BFS"),
        (&["puzzle", "pancake", "5", "--backend", "gpu", "--solve", "1 0 2 3 4"], 2, "--solve runs on the CPU only"),
        (&["puzzle", "pancake", "5", "--backend", "gpu", "--algorithm", "reachability"], 2, "two-bit BFS"),
    ] {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn the_gpu_backend_runs_on_a_gpu_or_says_there_is_none() {
    let args = ["puzzle", "sliding-tile", "2x3", "--backend", "gpu", "--json"];
    let out = warpcheck(&args);
    if out.status.code() == Some(0) {
        let r: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(
            (r["backend"].as_str(), r["states"].as_u64(), r["depth"].as_u64()),
            (Some("gpu"), Some(360), Some(21))
        );
        assert!(r["gpu_seconds"].as_f64().is_some());
    } else {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("no CUDA device"), "{}", text(&out.stderr));
        // `auto` then runs on the CPU.
        let r = json(&["puzzle", "sliding-tile", "2x3", "--backend", "auto", "--json"]);
        assert_eq!((r["backend"].as_str(), r["states"].as_u64()), (Some("cpu"), Some(360)));
        assert!(r["gpu_seconds"].is_null());
    }
}
