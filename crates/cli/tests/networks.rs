//! `warpcheck` on networks of LTSs end to end: the front end chosen by extension
//! (`.exp`, `.gpf`, `.aut` as a model for explore/check, as a graph for scc), the
//! semantics options, deadlock traces with labels and local states, `--graph-out`
//! as labelled `.aut`, and malformed input (exit 2, file:line:column and a caret).

mod common;

use common::{text, warpcheck};

/// A file of `../shared/lts/tiny`, checked to exist (the tests say so when the shared
/// data is missing rather than failing obscurely).
fn tiny(file: &str) -> String {
    let path = format!("../shared/lts/tiny/{file}");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    assert!(
        std::path::Path::new(root).join(&path).is_file(),
        "the networks-of-LTSs test data is missing: expected {path} (shared/lts beside the repository)"
    );
    path
}

fn counts(stdout: &str) -> (u64, u64, u64) {
    let field = |name: &str| -> u64 {
        let line = stdout.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} in {stdout}"));
        line[name.len()..].trim().parse().unwrap()
    };
    (field("states:"), field("transitions:"), field("deadlocks:"))
}

#[test]
fn explore_reads_exp_gpf_and_aut_by_extension() {
    let out = warpcheck(&["explore", &tiny("t2-traffic/traffic.exp"), "-q", "--backend", "cpu"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(counts(&text(&out.stdout)), (9, 16, 0));
    let out = warpcheck(&["explore", &tiny("t2-traffic/traffic-gpusem.gpf"), "-q", "--backend", "cpu"]);
    assert_eq!(counts(&text(&out.stdout)), (9, 16, 0));
    let out = warpcheck(&["explore", &tiny("t9-aut-edge/e4-unreachable.aut"), "-q", "--backend", "cpu"]);
    assert_eq!(counts(&text(&out.stdout)), (3, 3, 1)); // start, step, stop from state 2
                                                       // scc reads .aut as an unlabelled graph: all 6 declared states.
    let out = warpcheck(&["scc", &tiny("t9-aut-edge/e4-unreachable.aut")]);
    assert!(text(&out.stdout).contains("vertices:     6"), "{}", text(&out.stdout));
    // ... and a network's state graph.
    let out = warpcheck(&["scc", &tiny("t2-traffic/traffic.exp")]);
    assert!(text(&out.stdout).contains("sccs:         1"), "{}", text(&out.stdout));
}

#[test]
fn semantics_options() {
    let file = tiny("t2-traffic/traffic-gpusem.exp");
    let out = warpcheck(&["explore", &file, "-q", "--backend", "cpu"]);
    assert_eq!(counts(&text(&out.stdout)), (1, 0, 1));
    assert!(text(&out.stderr).contains("--sync=free-unmentioned"), "{}", text(&out.stderr));
    let out = warpcheck(&["explore", &file, "-q", "--backend", "cpu", "--sync", "free-unmentioned"]);
    assert_eq!(counts(&text(&out.stdout)), (9, 16, 0));
    let out = warpcheck(&["explore", &file, "-q", "--backend", "cpu", "--free", "green|yellow|red|arrive|leave"]);
    assert_eq!(counts(&text(&out.stdout)), (9, 16, 0));
    let out = warpcheck(&["explore", &tiny("t7-semantics/relabel.exp"), "--sync", "free-unmentioned"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("relabel.exp:"), "{}", text(&out.stderr));
}

#[test]
fn deadlock_with_the_shortest_trace() {
    let out = warpcheck(&["check", "--deadlock", &tiny("t5-deadlock/deadlock.exp"), "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("counterexample (2 steps)"), "{stdout}");
    assert!(stdout.contains("initial state: p = 0, q = 0, lock1 = 0, lock2 = 0"), "{stdout}");
    assert!(stdout.contains("\"get1\" (p, lock1)") && stdout.contains("p = 1 (was 0), lock1 = 1 (was 0)"), "{stdout}");
    let out = warpcheck(&["check", "--deadlock", &tiny("t2-traffic/traffic.exp"), "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn graph_out_writes_the_labelled_product() {
    let dir = std::env::temp_dir().join(format!("warpcheck-net-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let aut = dir.join("hidden.aut");
    let aut = aut.to_str().unwrap();
    let out = warpcheck(&["explore", &tiny("t8-hide-rename/traffic-hidden.exp"), "--graph-out", aut]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(aut).unwrap();
    assert!(written.starts_with("des (0, 16, 9)\n") && written.contains("\"i\"") && written.contains("\"crossing\""));
    // Read back as a model: the same counts.
    let out = warpcheck(&["explore", aut, "-q", "--backend", "cpu"]);
    assert_eq!(counts(&text(&out.stdout)), (9, 16, 0));
    let out = warpcheck(&["explore", &tiny("t2-traffic/traffic.exp"), "--graph-out", aut, "--internal-out", "tau"]);
    assert!(out.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malformed_input_is_exit_2_with_a_place() {
    for (file, place) in [
        ("t9-aut-edge/x4-unbalanced-quote.aut", "x4-unbalanced-quote.aut:2:5"),
        ("t9-aut-edge/x1-count-mismatch.aut", "x1-count-mismatch.aut:1:"),
    ] {
        let out = warpcheck(&["explore", &tiny(file)]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("error: ") && stderr.contains(place) && stderr.contains('^'), "{stderr}");
    }
    let out = warpcheck(&["check", &tiny("t2-traffic/traffic.exp"), "--invariant", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no state expressions"), "{}", text(&out.stderr));
}

#[test]
fn export_a_channel_only_dve_model() {
    let dve = "../shared/beem/protocols/protocols.1.dve";
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    assert!(std::path::Path::new(root).join(dve).is_file(), "the BEEM models are missing: expected {dve}");
    let dir = std::env::temp_dir().join(format!("warpcheck-export-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let gpf = format!("{d}/p.gpf");
    let out = warpcheck(&["export", dve, "--network", d, "--gpf", &gpf]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // DiVinE's counts: 2,430 states, 6,480 transitions (one per DVE group instance).
    let exp = format!("{d}/protocols.1.exp");
    let out = warpcheck(&["explore", &exp, "-q", "--backend", "cpu", "--transitions", "multiplicity"]);
    assert_eq!(counts(&text(&out.stdout)), (2430, 6480, 0));
    let out = warpcheck(&["explore", &gpf, "-q", "--backend", "cpu"]);
    assert_eq!(counts(&text(&out.stdout)).0, 2430);
    let out = warpcheck(&["export", "../shared/beem/peterson/peterson.1.dve", "--network", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("global variable"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}
