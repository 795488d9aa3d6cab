//! End-to-end tests of `warpcheck check MODEL --ltl FORMULA` (with `--ap`, `--ap-file`):
//! verdicts, lassos, JSON, and the errors of bad formulas and propositions.

mod common;

use common::{text, warpcheck};

/// Writes `source` to a fresh file in the temporary directory and returns its path
/// (one file per call: the tests run in parallel).
fn temp_file(name: &str, source: &str) -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpcheck-ltl-formula-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    path.display().to_string()
}

/// `x` counts 0, 1, 2, 0, ... forever.
fn counter() -> String {
    temp_file(
        "counter.dve",
        "byte x; process P { state s; init s; trans s -> s { effect x = (x + 1) % 3; }; } system async;",
    )
}

/// `x` becomes 1 and the system deadlocks.
fn stops() -> String {
    temp_file(
        "stops.dve",
        "byte x; process P { state s, done; init s; trans s -> done { effect x = 1; }; } system async;",
    )
}

#[test]
fn a_formula_that_holds() {
    let model = counter();
    for algorithm in ["ndfs", "owcty", "owcty-seq"] {
        let out = warpcheck(&["check", &model, "--ltl", "G F \"x == 0\"", "--algorithm", algorithm]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.contains("formula:      G F \"x == 0\"\n"), "{stdout}");
        assert!(
            stdout.contains("property:     the negated formula (Büchi automaton: 2 states, 1 accepting, 3 edges)"),
            "{stdout}"
        );
        assert!(stdout.contains("verdict:      holds\n"), "{stdout}");
    }
    let out = warpcheck(&["check", &model, "--ltl", "G (two -> X zero)", "--ap", "two=x == 2", "--ap", "zero=x==0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("  two = x == 2\n  zero = x==0\n"), "{}", text(&out.stdout));
}

#[test]
fn a_violated_formula_has_a_lasso() {
    let model = counter();
    let out = warpcheck(&["check", &model, "--ltl", "G \"x < 2\""]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("verdict:      violated\n"), "{stdout}");
    assert!(stdout.contains("  cycle (back to the state after step"), "{stdout}");
    assert!(stdout.contains("P: s -> s; LTL_property: q0 -> q1"), "{stdout}");
    for algorithm in ["ndfs", "owcty"] {
        let out = warpcheck(&["check", &model, "--ltl", "G \"x < 2\"", "--json", "--algorithm", algorithm]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["verdict"], "violated");
        assert_eq!(report["formula"], "G \"x < 2\"");
        let trace = report["trace"].as_array().unwrap();
        assert_eq!(report["trace_length"].as_u64().unwrap() as usize, trace.len() - 1);
        assert!(report["cycle_length"].as_u64().unwrap() >= 1);
        assert_eq!(trace[0]["step"], "initial state");
        // x reaches 2 within the stem and the cycle.
        assert!(trace.iter().any(|s| s["changes"].to_string().contains("x = 2")), "{trace:?}");
    }
    // Stuttering on deadlock: x = 1 forever is a run, so `G F x == 0` fails.
    let out = warpcheck(&["check", &stops(), "--ltl", "GF \"x == 0\"", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let trace = report["trace"].as_array().unwrap();
    assert!(trace.last().unwrap()["step"].as_str().unwrap().ends_with("(system stutters)"), "{trace:?}");
}

#[test]
fn parse_errors_point_into_the_formula() {
    let out = warpcheck(&["check", &counter(), "--ltl", "G (\"x == 0\" -> F \"x == 1\""]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("error: in --ltl: expected `)` to close the `(` at column 3, found the end of the formula"),
        "{stderr}"
    );
    assert!(stderr.contains("  | G (\"x == 0\" -> F \"x == 1\"\n  |                          ^\n"), "{stderr}");
    let out = warpcheck(&["check", &counter(), "--ltl", "G (a Y b)"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown operator `Y`"), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("  |      ^\n"), "{}", text(&out.stderr));
}

#[test]
fn unknown_and_bad_propositions_are_bad_input() {
    let model = counter();
    let out = warpcheck(&["check", &model, "--ltl", "G (zero -> F two)", "--ap", "zero=x == 0"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error: unknown atomic proposition `two`"), "{stderr}");
    assert!(stderr.contains("  | G (zero -> F two)\n  |              ^^^\n"), "{stderr}");
    let out = warpcheck(&["check", &model, "--ltl", "G \"y == 0\""]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("atomic proposition \"y == 0\" (formula) is not a valid DVE expression"), "{stderr}");
    assert!(stderr.contains("y == 0\n"), "{stderr}");
    let out = warpcheck(&["check", &model, "--ltl", "G a", "--ap", "A=x == 0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`A` cannot name an atomic proposition"), "{}", text(&out.stderr));
}

#[test]
fn proposition_files() {
    let model = counter();
    let lines = temp_file("aps.txt", "# the counter\nzero = x == 0\ntwo = x == 2\n");
    let out = warpcheck(&["check", &model, "--ltl", "G (two -> X zero)", "--ap-file", &lines]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = temp_file(
        "model.xml",
        "<?xml version=\"1.0\"?>\n<model>\n  <ap><ap-name>zero</ap-name><ap-expression>x == 0</ap-expression></ap>\n  \
         <ap><ap-name>one</ap-name><ap-expression>x == 1</ap-expression></ap>\n</model>\n",
    );
    let out = warpcheck(&["check", &model, "--ltl", "G (zero -> X one)", "--ap-file", &xml]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // --ap wins over the file.
    let out = warpcheck(&["check", &model, "--ltl", "G (zero -> X one)", "--ap-file", &xml, "--ap", "one=x == 2"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let bad = temp_file("bad.txt", "zero = x == 0\nnonsense\n");
    let out = warpcheck(&["check", &model, "--ltl", "G zero", "--ap-file", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.txt:2: expected NAME = EXPR, found `nonsense`"), "{}", text(&out.stderr));
}

#[test]
fn usage_errors() {
    let out = warpcheck(&["check", "tests/models/ltl/violated_eventually_two.dve", "--ltl", "G \"x < 5\""]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("already has a property process (`LTL_property`)"), "{}", text(&out.stderr));
    let model = counter();
    let out = warpcheck(&["check", &model, "--ltl", "G \"x < 5\"", "--deadlock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be combined"), "{}", text(&out.stderr));
    let out = warpcheck(&["check", &model, "--ap", "zero=x == 0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--ltl, which is missing"), "{}", text(&out.stderr));
}
