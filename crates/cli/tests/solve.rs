//! `warpcheck solve nine-mens-morris`: the small games solved whole (values of the start
//! and of given positions, database counts up to symmetry), databases kept on disk, and
//! bad input (exit 2) and memory limits (exit 3).

mod common;

use common::{text, warpcheck};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn the_small_games_have_their_values() {
    // Three pieces a side: the first player wins; four: a draw, every first move too.
    let r = json(&["solve", "nine-mens-morris", "--pieces", "3", "--json", "--threads", "2"]);
    assert_eq!((r["start"]["value"].as_str(), r["start"]["plies"].as_u64()), (Some("win"), Some(23)));
    assert_eq!(r["first_moves"][0]["plies"], 23);
    // 3-3 boards up to the 16 symmetries (nmm_subspaces.csv).
    assert_eq!(r["databases"][0]["pieces"], serde_json::json!([3, 3]));
    assert_eq!(r["databases"][0]["boards"], 169_626);
    assert_eq!(r["plies"].as_array().map(Vec::len), Some(6));
    let r = json(&["solve", "nine-mens-morris", "--pieces", "4", "--json"]);
    assert_eq!(r["start"]["value"], "draw");
    let firsts = r["first_moves"].as_array().expect("first moves");
    assert_eq!(firsts.len(), 4, "a corner and a middle point of the outer and the middle ring");
    assert!(firsts.iter().all(|m| m["value"] == "draw"));
}

#[test]
fn a_position_has_its_value_and_moves() {
    // White (a7, d7, c5) jumps c5-g7, closes a mill and leaves black two pieces.
    let position = "WW...... ........ W.B.B.B. w";
    let r = json(&["solve", "nine-mens-morris", "--pieces", "3", "--position", position, "--json"]);
    let p = &r["position"];
    assert_eq!((p["value"].as_str(), p["plies"].as_u64()), (Some("win"), Some(1)));
    assert_eq!((p["moves"][0]["move"].as_str(), p["moves"][0]["plies"].as_u64()), (Some("c5-g7"), Some(1)));
    assert_eq!(p["position"], position);
    // In the placing phase: black to move after three placements, with its pieces in hand.
    let r = json(&[
        "solve",
        "nine-mens-morris",
        "--pieces",
        "4",
        "--position",
        "W.W..... ........ ......B. b 2 3",
        "--json",
    ]);
    assert!(r["position"]["moves"].as_array().is_some_and(|m| m.len() == 21));
}

#[test]
fn databases_on_disk_are_read_again() {
    let dir = std::env::temp_dir().join(format!("warpcheck-solve-test-{}", std::process::id()));
    let d = dir.to_str().expect("a UTF-8 path");
    let first = json(&["solve", "nine-mens-morris", "--pieces", "4", "--databases", d, "--json"]);
    let again = json(&["solve", "nine-mens-morris", "--pieces", "4", "--databases", d, "--json"]);
    assert_eq!(first["databases"].as_array().map(Vec::len), Some(4));
    for (x, y) in first["databases"].as_array().unwrap().iter().zip(again["databases"].as_array().unwrap()) {
        assert_eq!((&x["wins"], &x["losses"], &x["draws"]), (&y["wins"], &y["losses"], &y["draws"]));
        assert_eq!(y["seconds"], 0.0);
    }
    let counts = |r: &Value| -> Vec<Vec<Value>> {
        let plies = r["plies"].as_array().expect("plies");
        plies.iter().map(|p| ["positions", "wins", "losses", "draws"].iter().map(|k| p[*k].clone()).collect()).collect()
    };
    assert_eq!(counts(&first), counts(&again));
    let file = dir.join("nmm-4-4.db");
    let mut bytes = std::fs::read(&file).expect("the 4-4 database");
    bytes.truncate(bytes.len() - 1);
    std::fs::write(&file, bytes).expect("written");
    let out = warpcheck(&["solve", "nine-mens-morris", "--pieces", "4", "--databases", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nmm-4-4.db: truncated or damaged"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).expect("removed");
}

#[test]
fn bad_input_and_limits() {
    for (args, code, message) in [
        (&["solve", "chess"][..], 2, "unknown game 'chess'"),
        (&["solve", "nine-mens-morris", "--pieces", "10"], 2, "pieces must be 3 to 9"),
        (&["solve", "nine-mens-morris", "--pieces", "3", "--position", "W..B w"], 2, "invalid position: 4 cells"),
        (
            &["solve", "nine-mens-morris", "--pieces", "3", "--position", "WWWW.... ........ ........ w"],
            2,
            "more than the game's 3",
        ),
        (
            &["solve", "nine-mens-morris", "--pieces", "3", "--position", "WW...... ........ ........ w 1 3"],
            2,
            "no ply of the placing phase",
        ),
        (&["solve", "nine-mens-morris", "--pieces", "4", "--memory", "1M"], 3, "more than the"),
    ] {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
}
