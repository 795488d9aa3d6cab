//! Input formats: chosen by extension or by `--format`; an unknown extension, or a
//! format the command does not read, is bad input (exit 2) naming the formats it reads.

mod common;

use common::{text, warpcheck};

/// A copy of `from` (relative to the repository root) named `name` in a fresh directory.
fn copy(from: &str, name: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let dir = std::env::temp_dir().join(format!("warpcheck-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::copy(format!("{root}/{from}"), &path).unwrap();
    path.display().to_string()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = warpcheck(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn format_names_the_language_of_any_file() {
    let model = copy("examples/peterson.dve", "peterson.model");
    let r = json(&["explore", &model, "--format", "dve", "--json"]);
    assert_eq!((r["states"].as_u64(), r["transitions"].as_u64()), (Some(70), Some(118)));
    let r = json(&["scc", &model, "--format", "dve", "--json"]);
    assert_eq!(r["sccs"], 51);
    let weighted = copy("examples/cycle.d", "cycle.txt");
    let r = json(&["cycle-mean", &weighted, "--format", "dimacs", "--json"]);
    assert_eq!(r["value"], "-7/2");
    let r = json(&["cycle-mean", &weighted, "--format", "d", "--json"]);
    assert_eq!(r["value"], "-7/2");
}

#[test]
fn graph_formats_by_name_and_alias() {
    let model = copy("examples/peterson.dve", "for-graph.dve");
    let wcg = model.replace(".dve", ".wcg");
    let out = warpcheck(&["explore", &model, "--graph-out", &wcg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let binary = wcg.replace(".wcg", ".bin");
    std::fs::copy(&wcg, &binary).unwrap();
    for name in ["binary", "wcg"] {
        let r = json(&["scc", &binary, "--format", name, "--json"]);
        assert_eq!((r["vertices"].as_u64(), r["sccs"].as_u64()), (Some(70), Some(51)), "{name}");
    }
}

#[test]
fn unknown_extensions_list_the_formats() {
    let model = copy("examples/peterson.dve", "peterson.xyz");
    let cases: [(&[&str], &str); 4] = [
        (
            &["explore", &model],
            "unknown model format (explore reads dve (.dve), exp (.exp), gpf (.gpf), lts (.aut), prism (.prism, .pm, \
             .nm, .sm), drn (.drn), tra (.tra), pddl (.pddl); or name the format with --format)",
        ),
        (&["check", &model], "unknown model format (check reads dve (.dve), exp (.exp), gpf (.gpf), lts (.aut)"),
        (
            &["scc", &model],
            "unknown graph format (scc reads dve (.dve), exp (.exp), gpf (.gpf), aut (.aut), lts (.aut), edges \
             (.edges, .txt), binary (.wcg)",
        ),
        (
            &["cycle-mean", &model],
            "unknown input format (cycle-mean reads dve (.dve), exp (.exp), gpf (.gpf), lts (.aut), dimacs (.d)",
        ),
    ];
    for (args, message) in cases {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn formats_a_command_does_not_read() {
    let cases: [(&[&str], &str); 5] = [
        (&["explore", "examples/cycle.d"], "a file of format dimacs, which explore does not read"),
        (&["explore", "examples/peterson.dve", "--format", "aut"], "--format aut: explore reads dve (.dve)"),
        (&["scc", "examples/cycle.d"], "a file of format dimacs, which scc does not read"),
        (&["scc", "examples/die.pm"], "a file of format prism, which scc does not read"),
        (&["cycle-mean", "examples/peterson.dve", "--format", "edges"], "--format edges: cycle-mean reads"),
    ];
    for (args, message) in cases {
        let out = warpcheck(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
    let out = warpcheck(&["explore", "examples/peterson.dve", "--format", "pnml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("possible values"), "{}", text(&out.stderr));
}
