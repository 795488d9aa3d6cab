//! End-to-end tests of the `warpcheck` binary: results, JSON output and exit codes.

use std::process::{Command, Output};

fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run warpcheck")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

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
    std::fs::write(&path, "byte x;\nprocess P { state s; init s; trans s -> s { guard y; }; }\nsystem async;\n").unwrap();
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
