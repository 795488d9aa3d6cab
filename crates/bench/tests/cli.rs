//! Runs `warpcheck-bench small` and `explore` against the warpcheck binary of this
//! build (built here when missing or stale) and checks the tables' rows and counts.
//! Nothing about times is asserted: performance is measured, not tested.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (`crates/bench/../..`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

/// The warpcheck binary beside this test's `warpcheck-bench`, built (or brought up to
/// date) with the same profile; `None`, with the reason printed, when that fails.
fn warpcheck() -> Option<PathBuf> {
    let bench = Path::new(env!("CARGO_BIN_EXE_warpcheck-bench"));
    let dir = bench.parent().expect("the profile folder");
    let binary = dir.join("warpcheck");
    let target = dir.parent().expect("the target folder");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(&cargo);
    build.current_dir(root()).args(["build", "-p", "warpcheck"]).env("CARGO_TARGET_DIR", target);
    if dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    match build.status() {
        Ok(s) if s.success() => {}
        Ok(s) if binary.is_file() => {
            eprintln!("note: `cargo build -p warpcheck` failed ({s}); using the existing binary")
        }
        Ok(s) => {
            eprintln!("SKIPPED: `cargo build -p warpcheck` failed ({s}) and {} does not exist", binary.display());
            return None;
        }
        Err(e) if binary.is_file() => eprintln!("note: cannot run {cargo} ({e}); using the existing binary"),
        Err(e) => {
            eprintln!("SKIPPED: cannot run {cargo} ({e}) and {} does not exist", binary.display());
            return None;
        }
    }
    Some(binary)
}

/// Runs warpcheck-bench from the workspace root; its exit code and stdout.
fn bench(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck-bench"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpcheck-bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), stdout)
}

/// The cells of the table rows (lines starting with `| ` after the header and alignment rows).
fn rows(table: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
    lines.iter().skip(2).map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()).collect()
}

/// The header cells of the table.
fn header(table: &str) -> Vec<String> {
    let line = table.lines().find(|l| l.starts_with('|')).expect("a table");
    line.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect()
}

#[test]
fn small_and_explore_on_peterson() {
    let Some(warpcheck) = warpcheck() else { return };
    let binary = format!("warpcheck={}", warpcheck.display());
    let out_file = std::env::temp_dir().join(format!("warpcheck-bench-test-{}.md", std::process::id()));
    let _ = std::fs::remove_file(&out_file);

    let (code, table) = bench(&["small", "--runs", "2", "--binary", &binary, "--out", out_file.to_str().unwrap()]);
    assert_eq!(code, 0, "{table}");
    for line in ["## Start-up cost: examples/peterson.dve", "- Date: ", "- Machine: ", "- Commit: ", "- Command: `"] {
        assert!(table.contains(line), "no `{line}` in\n{table}");
    }
    let h = header(&table);
    let r = rows(&table);
    assert_eq!(r.len(), 1, "{table}");
    assert_eq!(r[0].len(), h.len(), "{table}");
    let cell =
        |name: &str| r[0][h.iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"))].clone();
    assert_eq!(cell("binary"), "warpcheck");
    assert_eq!(cell("states"), "70");
    assert_eq!(cell("transitions"), "118");
    assert!(cell("default/tiny (median)").ends_with('x'), "{table}");
    let written = std::fs::read_to_string(&out_file).expect("--out was written");
    assert!(written.contains(&table.trim_end().to_string()), "--out holds the table");

    let (code, table) = bench(&["explore", "examples/peterson.dve", "--runs", "1", "--binary", &binary]);
    assert_eq!(code, 0, "{table}");
    let h = header(&table);
    let r = rows(&table);
    assert_eq!(r.len(), 1, "{table}");
    let cell =
        |name: &str| r[0][h.iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"))].clone();
    assert_eq!(cell("model"), "peterson");
    assert_eq!(cell("states"), "70");
    assert_eq!(cell("transitions"), "118");
    assert_eq!(cell("reference"), "-");
    let _ = std::fs::remove_file(&out_file);
}

#[test]
fn bad_input_is_a_clear_error() {
    let (code, _) = bench(&["explore", "no/such/model.dve", "--binary", "x=/nonexistent/warpcheck"]);
    assert_eq!(code, 2);
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck-bench"))
        .current_dir(root())
        .args(["cpu-set", "--binary", "new=/nonexistent/warpcheck"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/warpcheck` does not exist"), "{err}");
}
