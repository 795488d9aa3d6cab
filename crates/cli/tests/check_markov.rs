//! `check MODEL --property ...` on Markov models: exact values of the examples, the JSON
//! keys, `--values`, `--properties` files, and bad properties (exit 2 with the place).

mod common;

use common::{text, warpcheck};
use serde_json::Value;

fn results(args: &[&str]) -> Vec<Value> {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect()
}

fn close(r: &Value, exact: f64) {
    let (v, lo, hi) = (r["value"].as_f64().unwrap(), r["lower"].as_f64().unwrap(), r["upper"].as_f64().unwrap());
    assert!((v - exact).abs() <= 1e-6, "{r}");
    assert!(lo <= exact + 1e-12 && exact - 1e-12 <= hi, "{r}");
}

#[test]
fn die_probability_and_expected_flips() {
    let r = results(&[
        "check",
        "examples/die.pm",
        "--property",
        r#"P=? [F "one"]"#,
        "--property",
        r#"R{"coin_flips"}=? [F "done"]"#,
        "--property",
        r#"P=? [F<=3 "done"]"#,
        "--json",
    ]);
    assert_eq!(r.len(), 3);
    close(&r[0], 1.0 / 6.0);
    close(&r[1], 11.0 / 3.0);
    // Done within 3 flips: 2 flips with 1/2 (s=4, s=5 paths) ... 3/4 in all.
    close(&r[2], 0.75);
    for key in ["property", "value", "lower", "upper", "method", "iterations", "seconds", "backend"] {
        assert!(r[0].get(key).is_some(), "{key} missing in {}", r[0]);
    }
    assert_eq!(r[0]["property"], r#"P=? [F "one"]"#);
}

#[test]
fn gamble_with_constants_and_a_props_file() {
    let dir = std::env::temp_dir().join(format!("warpcheck-pctl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let props = dir.join("gamble.props");
    std::fs::write(
        &props,
        "// the gambler\n\"rich\": Pmax=? [ F \"rich\" ]\nPmin=? [F \"broke\"]\nP>=1 [F \"rich\"]\n",
    )
    .unwrap();
    let values = dir.join("values.txt");
    let out = warpcheck(&[
        "check",
        "examples/gamble.nm",
        "--const",
        "N=3",
        "--properties",
        props.to_str().unwrap(),
        "--values",
        values.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("skipped"), "{}", text(&out.stderr));
    let r: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(r.len(), 2);
    // Betting one coin at a time from 3 of 8 is a fair game: 3/8; the die bet (lose
    // 2 w.p. 5/6, win 5 w.p. 1/6) does no better. Stopping at once never goes broke.
    close(&r[0], 3.0 / 8.0);
    close(&r[1], 0.0);
    let written = std::fs::read_to_string(&values).unwrap();
    assert!(written.starts_with("// \"rich\": Pmax=? [ F \"rich\" ]\n") || written.starts_with("// "), "{written}");
}

#[test]
fn bad_properties_exit_2_with_the_place() {
    let out = warpcheck(&["check", "examples/die.pm", "--property", r#"P=? [F "one" & ]"#]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("column 16") && err.contains('^'), "{err}");
    let out = warpcheck(&["check", "examples/gamble.nm", "--const", "N=3", "--property", r#"P=? [F "rich"]"#]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Pmin=? or Pmax=?"), "{}", text(&out.stderr));
    let out = warpcheck(&["check", "examples/die.pm", "--property", r#"P=? [F "nolabel"]"#]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no label \"nolabel\""));
}

#[test]
fn exact_answers_are_fractions() {
    let r = results(&[
        "check",
        "examples/die.pm",
        "--property",
        r#"P=? [F "one"]"#,
        "--property",
        r#"P=? [F<=4 "one"]"#,
        "--exact",
        "--json",
    ]);
    assert_eq!((r[0]["fraction"].as_str(), r[1]["fraction"].as_str()), (Some("1/6"), Some("1/8")));
    assert_eq!(r[0]["method"], "sparse elimination, exact");
    let r = results(&[
        "check",
        "examples/gamble.nm",
        "--const",
        "N=3",
        "--property",
        r#"Pmax=? [F "rich"]"#,
        "--exact",
        "--json",
    ]);
    assert_eq!((r[0]["fraction"].as_str(), r[0]["value"].as_f64()), (Some("3/8"), Some(0.375)));
    // A CTMC (queue of 3, arrivals at rate 2, services at 3): by hand, the stationary
    // distribution is proportional to (2/3)^k, so P(full) = 8/65 and the mean queue
    // length 66/65; the expected time to fill it from empty is 33/8.
    let r = results(&[
        "check",
        "examples/queue.sm",
        "--property",
        r#"S=? ["full"]"#,
        "--property",
        r#"R{"customers"}=? [S]"#,
        "--property",
        r#"T=? [F "full"]"#,
        "--exact",
        "--json",
    ]);
    let fractions: Vec<&str> = r.iter().map(|p| p["fraction"].as_str().unwrap()).collect();
    assert_eq!(fractions, ["8/65", "66/65", "33/8"]);
    // A DTMC's long-run average: the die ends on "one" with probability 1/6.
    let r = results(&["check", "examples/die.pm", "--property", r#"S=? ["one"]"#, "--exact", "--json"]);
    assert_eq!(r[0]["fraction"].as_str(), Some("1/6"));
    // Without --exact there is no fraction.
    let r = results(&["check", "examples/die.pm", "--property", r#"P=? [F "one"]"#, "--json"]);
    assert!(r[0].get("fraction").is_none(), "{}", r[0]);
    let r =
        results(&["check", "examples/die.pm", "--property", r#"R{"coin_flips"}=? [F "done"]"#, "--exact", "--json"]);
    assert_eq!(r[0]["fraction"].as_str(), Some("11/3"));
    // No coin is flipped once the die is cast: a long-run average of 0 flips per step.
    let r = results(&["check", "examples/die.pm", "--property", r#"R=? [S]"#, "--exact", "--json"]);
    assert_eq!(r[0]["fraction"].as_str(), Some("0"));
    // Time bounds of a CTMC are not fractions.
    let out = warpcheck(&["check", "examples/queue.sm", "--property", r#"P=? [F<=1 "full"]"#, "--exact"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a fraction"), "{}", text(&out.stderr));
}
