//! The hand-made networks of `../shared/lts/tiny` (README there): every row of its
//! tables reproduced exactly on the CPU engine, under EXP semantics and GPUexplore's
//! (`--sync=free-unmentioned`), and the `.aut` reader's edge cases (valid files:
//! counts; invalid ones: an error with line and column, never a panic).

use std::path::Path;

use warpcheck_conformance::lts_dir;
use warpcheck_explore::{explore_parallel, Options};
use warpcheck_lts::{aut, build, gpf, labelled, AutOptions, Counting, Error, Lts, Network, Sync};

/// States, distinct transitions, deadlocks, labels.
type Counts = (u64, u64, u64, usize);

fn load(path: &Path, sync: Sync) -> Result<Network, Error> {
    build::load(path, &build::Options { sync, ..build::Options::default() })
}

/// The counts of `net` by the parallel engine (S, T, D) and the labelled graph (L),
/// which must agree with each other.
fn counts(net: &Network) -> Counts {
    let report = explore_parallel(net, &Options { threads: 2, ..Options::default() }).unwrap();
    let graph = labelled::explore(net, 1_000_000).unwrap();
    assert_eq!(
        (graph.states as u64, graph.transitions.len() as u64, graph.deadlocks),
        (report.states, report.transitions, report.deadlocks)
    );
    (report.states, report.transitions, report.deadlocks, graph.labels())
}

/// The table of tiny/README.md: file, EXP counts, GPUexplore counts or the text of
/// the expected rejection.
const NETWORKS: &[(&str, Counts, Result<Counts, &str>)] = &[
    ("t1-sync2/sync2.exp", (4, 5, 0, 3), Ok((4, 5, 0, 3))),
    ("t2-traffic/traffic.exp", (9, 16, 0, 6), Ok((9, 16, 0, 6))),
    ("t2-traffic/traffic-gpusem.exp", (1, 0, 1, 0), Ok((9, 16, 0, 6))),
    ("t3-rendezvous3/rendezvous3.exp", (8, 13, 0, 4), Ok((8, 13, 0, 4))),
    ("t4-cartesian/cartesian.exp", (12, 23, 0, 3), Ok((12, 23, 0, 3))),
    ("t5-deadlock/deadlock.exp", (10, 14, 1, 4), Ok((10, 14, 1, 4))),
    ("t6-mutex/broken.exp", (4, 8, 0, 4), Ok((4, 8, 0, 4))),
    ("t6-mutex/locked.exp", (3, 4, 0, 4), Ok((3, 4, 0, 4))),
    ("t7-semantics/unmentioned.exp", (2, 1, 1, 1), Ok((4, 5, 0, 3))),
    ("t7-semantics/solo-and-sync.exp", (5, 5, 2, 2), Ok((5, 5, 2, 2))),
    ("t7-semantics/relabel.exp", (4, 5, 0, 3), Err("a * ... * a -> a")),
    ("t8-hide-rename/traffic-hidden.exp", (9, 16, 0, 5), Err("a * ... * a -> a")),
    ("t8-hide-rename/traffic-allbut.exp", (9, 16, 0, 2), Ok((9, 16, 0, 2))),
    ("t10-wide/wide.exp", (42, 81, 0, 3), Ok((42, 81, 0, 3))),
];

#[test]
fn every_network_row_under_both_semantics() {
    let dir = lts_dir().join("tiny");
    for (file, exp, gpu) in NETWORKS {
        let path = dir.join(file);
        let net = load(&path, Sync::Exp).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(counts(&net), *exp, "{file} (EXP semantics)");
        match (load(&path, Sync::FreeUnmentioned), gpu) {
            (Ok(net), Ok(expected)) => assert_eq!(counts(&net), *expected, "{file} (free-unmentioned)"),
            (Err(e), Err(text)) => assert!(e.to_string().contains(text), "{file}: {e}"),
            (got, expected) => {
                panic!("{file} (free-unmentioned): got {:?}, expected {expected:?}", got.map(|n| counts(&n)))
            }
        }
        // With multiplicity the counts are the same everywhere in tiny/.
        let multi = build::Options { counting: Counting::Multiplicity, ..build::Options::default() };
        let net = build::load(&path, &multi).unwrap();
        assert_eq!(counts(&net), *exp, "{file} (with multiplicity)");
    }
}

#[test]
fn exp_semantics_warn_about_dead_labels() {
    let net = load(&lts_dir().join("tiny/t7-semantics/unmentioned.exp"), Sync::Exp).unwrap();
    assert!(net.warnings.iter().any(|w| w.contains("\"b\"") && w.contains("free-unmentioned")), "{:?}", net.warnings);
}

/// Valid `.aut` files: declared states, distinct transitions, τ triples, reachable
/// states and deadlocks among them (README's table), as a one-component network.
#[test]
fn aut_edge_cases_read_as_the_readme_says() {
    let dir = lts_dir().join("tiny/t9-aut-edge");
    let rows: &[(&str, u32, usize, usize, u64, u64)] = &[
        ("e1-quoting.aut", 4, 6, 1, 4, 0),
        ("e2-inner-quote.aut", 3, 3, 0, 3, 0),
        ("e3-crlf.aut", 3, 3, 0, 3, 0),
        ("e4-unreachable.aut", 6, 5, 0, 3, 1),
        ("e5-dups.aut", 2, 2, 1, 2, 0),
    ];
    for &(file, declared, distinct, taus, reachable, deadlocks) in rows {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let lts = aut::parse(&text, file, &AutOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lts.states, declared, "{file}");
        assert_eq!(lts.transitions.len(), distinct, "{file}");
        assert_eq!(lts.transitions.iter().filter(|t| t.1 == warpcheck_lts::TAU).count(), taus, "{file}");
        let net = load(&path, Sync::Exp).unwrap();
        let (s, _, d, _) = counts(&net);
        assert_eq!((s, d), (reachable, deadlocks), "{file}");
        // The writer's output reads back to the same LTS.
        let again = aut::parse(&lts.to_aut("i"), "again", &AutOptions::default()).unwrap();
        assert_eq!((again.initial, again.states), (lts.initial, lts.states), "{file}");
        assert_eq!(named(&again), named(&lts), "{file}");
    }
    let text = std::fs::read_to_string(dir.join("e2-inner-quote.aut")).unwrap();
    let lts = aut::parse(&text, "e2", &AutOptions::default()).unwrap();
    for label in ["G !\"hello\"", "a, b", "  spaced  label "] {
        assert!(lts.labels.iter().any(|l| l == label), "{label:?} not in {:?}", lts.labels);
    }
    let text = std::fs::read_to_string(dir.join("e5-dups.aut")).unwrap();
    let only_i = AutOptions { internal: vec!["i".into()] };
    assert_eq!(aut::parse(&text, "e5", &only_i).unwrap().transitions.len(), 3);
}

/// An LTS's transitions with label names (ids depend on the order of first use).
fn named(lts: &Lts) -> std::collections::BTreeSet<(u32, String, u32)> {
    lts.transitions.iter().map(|&(f, l, t)| (f, lts.labels[l as usize].clone(), t)).collect()
}

#[test]
fn invalid_aut_files_are_errors_with_a_place() {
    let dir = lts_dir().join("tiny/t9-aut-edge");
    let rows = [
        ("x1-count-mismatch.aut", "declares 3 transitions but the file has 2"),
        ("x2-state-range.aut", "state 2 is not below the 2 declared states"),
        ("x3-bad-header.aut", "expected `des"),
        ("x4-unbalanced-quote.aut", "unbalanced"),
        ("x5-probabilistic.aut", "probabilistic"),
        ("x6-initial-range.aut", "initial state 3 is not below the 2"),
        ("x7-no-states.aut", "0 states"),
    ];
    for (file, text) in rows {
        let source = std::fs::read_to_string(dir.join(file)).unwrap();
        let e = aut::parse(&source, file, &AutOptions::default()).unwrap_err();
        let Error::Syntax(d) = &e else { panic!("{file}: {e:?}") };
        assert!(d.message.contains(text), "{file}: {}", d.message);
        let shown = e.to_string();
        assert!(shown.contains(&format!("{file}:{}:{}", d.line, d.column)) && shown.contains('^'), "{shown}");
    }
}

/// The `.gpf` table of tiny/README.md (GPUexplore's Def. 3 semantics).
const GPF: &[(&str, (u64, u64, u64))] = &[
    ("t1-sync2/sync2.gpf", (4, 5, 0)),
    ("t2-traffic/traffic-gpusem.gpf", (9, 16, 0)),
    ("t3-rendezvous3/rendezvous3.gpf", (8, 13, 0)),
    ("t4-cartesian/cartesian.gpf", (12, 23, 0)),
    ("t5-deadlock/deadlock.gpf", (10, 14, 1)),
    ("t6-mutex/broken+mutex.gpf", (7, 14, 0)),
    ("t6-mutex/locked+mutex.gpf", (3, 4, 0)),
    ("t7-semantics/solo-and-sync.gpf", (5, 5, 2)),
    ("t10-wide/wide.gpf", (42, 81, 0)),
];

#[test]
fn gpf_files_decode_to_the_readme_counts_and_round_trip() {
    let dir = lts_dir().join("tiny");
    for &(file, expected) in GPF {
        let net = gpf::load(&dir.join(file), gpf::Dialect::Gpf2016, Counting::Distinct)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let (s, t, d, _) = counts(&net);
        assert_eq!((s, t, d), expected, "{file}");
        // The other dialect reads it as nonsense and says so, or gives other counts.
        if let Ok(other) = gpf::load(&dir.join(file), gpf::Dialect::Gpf2015, Counting::Distinct) {
            assert_ne!(counts(&other).0, 0);
        }
        // The monitored files with GPUexplore's -p (last process, state 1): the README's
        // last column.
        if file.contains("+mutex") {
            let monitored = gpf::with_property(net.clone()).unwrap();
            let checks = warpcheck_explore::Checks { deadlock: false, assertions: true, invariants: vec![] };
            let report = explore_parallel(&monitored, &Options { threads: 2, checks, ..Options::default() }).unwrap();
            let violated = file.contains("broken+mutex");
            assert_eq!(report.violations.len(), violated as usize, "{file} with -p");
        }
        if file.contains("solo-and-sync") {
            // A label both alone and synchronising cannot be written for GPUexplore.
            assert!(gpf::write(&net).unwrap_err().to_string().contains("both fires alone and synchronises"));
            continue;
        }
        let (text, labels) = gpf::write(&net).unwrap();
        let again = gpf::parse(&text, Some(&labels), gpf::Dialect::Gpf2016, Counting::Distinct).unwrap();
        assert_eq!(counts(&again), counts(&net), "{file} written and read back");
        // The same text, except in the monitored files, whose monitor keeps GPUexplore's
        // numbering (error state 1) where the reader renumbers in breadth-first order.
        if !file.contains("+mutex") {
            let original = std::fs::read_to_string(dir.join(file)).unwrap();
            assert_eq!(text, original, "{file}: the writer follows the rules the tiny files were made by");
        }
    }
}

/// The `.exp` networks in GPUexplore form, read with `--sync=free-unmentioned` and
/// written as `.gpf`, give the same product (and the tiny folder's very files).
#[test]
fn exp_networks_written_as_gpf() {
    let dir = lts_dir().join("tiny");
    let pairs = [
        ("t1-sync2/sync2.exp", "t1-sync2/sync2.gpf"),
        ("t2-traffic/traffic-gpusem.exp", "t2-traffic/traffic-gpusem.gpf"),
        ("t3-rendezvous3/rendezvous3.exp", "t3-rendezvous3/rendezvous3.gpf"),
        ("t4-cartesian/cartesian.exp", "t4-cartesian/cartesian.gpf"),
        ("t5-deadlock/deadlock.exp", "t5-deadlock/deadlock.gpf"),
        ("t10-wide/wide.exp", "t10-wide/wide.gpf"),
    ];
    for (exp, file) in pairs {
        let net = load(&dir.join(exp), Sync::FreeUnmentioned).unwrap();
        let (text, labels) = gpf::write(&net).unwrap_or_else(|e| panic!("{exp}: {e}"));
        let again = gpf::parse(&text, Some(&labels), gpf::Dialect::Gpf2016, Counting::Distinct).unwrap();
        assert_eq!(counts(&again), counts(&net), "{exp}");
        assert_eq!(text, std::fs::read_to_string(dir.join(file)).unwrap(), "{exp} as {file}");
        assert_eq!(labels, std::fs::read_to_string(dir.join(format!("{file}.labels"))).unwrap(), "{exp}");
    }
    // Not in GPUexplore form: a relabelling vector.
    let net = load(&dir.join("t7-semantics/relabel.exp"), Sync::Exp).unwrap();
    assert!(gpf::write(&net).unwrap_err().to_string().contains("relabels"));
}

/// t6 with the paper's monitor (error state 1): the broken system has 7 monitored
/// states and 14 transitions and violates mutual exclusion by `CSin1 CSin2`; the
/// locked one holds with 3 and 4. A monitor with a move removed is refused, unless
/// told to block or stay.
#[test]
fn t6_monitor_verdicts_and_trace() {
    use warpcheck_explore::Checks;
    use warpcheck_lts::monitor::{Incomplete, Matching, Monitor};
    let dir = lts_dir().join("tiny/t6-mutex");
    let monitor = dir.join("mutex.monitor.aut");
    for (file, expected, violated) in [("broken.exp", (7, 14, 0, 4), true), ("locked.exp", (3, 4, 0, 4), false)] {
        for sync in [Sync::Exp, Sync::FreeUnmentioned] {
            let mut net = load(&dir.join(file), sync).unwrap();
            net.monitor = Some(Monitor::load(&monitor, &[1], &net, Matching::Regex, Incomplete::Refuse).unwrap());
            assert_eq!(counts(&net), expected, "{file}");
            let checks = Checks { deadlock: true, assertions: true, invariants: vec![] };
            let report = explore_parallel(&net, &Options { threads: 2, checks, ..Options::default() }).unwrap();
            assert_eq!(report.violations.len(), violated as usize, "{file}");
            if violated {
                let trace = report.violations[0].trace.as_ref().unwrap();
                let steps: Vec<&str> = trace.steps.iter().map(|s| s.step.as_str()).collect();
                assert_eq!(steps, ["\"CSin1\" (user1)", "\"CSin2\" (user2)"], "{file}");
            }
        }
    }
    // The monitor without (2, "CSout1", 0): state 2 cannot follow CSout1.
    let text = std::fs::read_to_string(&monitor).unwrap();
    let cut: String = text.lines().filter(|l| !l.starts_with("(2, \"CSout1\"")).map(|l| format!("{l}\n")).collect();
    let cut = cut.replacen("des (0, 7, 4)", "des (0, 6, 4)", 1);
    let lts = aut::parse(&cut, "cut.aut", &AutOptions { internal: vec![] }).unwrap();
    let net = load(&dir.join("broken.exp"), Sync::Exp).unwrap();
    let e = Monitor::new("cut".into(), &lts, &[1], &net, Matching::Regex, Incomplete::Refuse).unwrap_err();
    assert!(e.to_string().contains("state 2 has no move for the observed label \"CSout1\""), "{e}");
    for missing in [Incomplete::Block, Incomplete::Stay] {
        let mut net = load(&dir.join("broken.exp"), Sync::Exp).unwrap();
        net.monitor = Some(Monitor::new("cut".into(), &lts, &[1], &net, Matching::Regex, missing).unwrap());
        // Deadlocks are the system's: a blocked move makes none.
        assert_eq!(counts(&net).2, 0, "{missing:?}");
    }
}

/// t6's regular formula `mutex.rf`, compiled to a monitor: broken is violated with a
/// shortest trace of two steps (entering both critical sections), locked holds; a
/// malformed formula is an error with its place.
#[test]
fn t6_formula_verdicts() {
    use warpcheck_explore::Checks;
    use warpcheck_lts::formula;
    let dir = lts_dir().join("tiny/t6-mutex");
    let text = std::fs::read_to_string(dir.join("mutex.rf")).unwrap();
    for (file, violated) in [("broken.exp", true), ("locked.exp", false)] {
        let mut net = load(&dir.join(file), Sync::Exp).unwrap();
        net.monitor = Some(formula::compile(&text, "mutex.rf", &net).unwrap());
        let checks = Checks { deadlock: true, assertions: true, invariants: vec![] };
        let report = explore_parallel(&net, &Options { threads: 2, checks, ..Options::default() }).unwrap();
        assert_eq!(report.violations.len(), violated as usize, "{file}");
        if violated {
            let trace = report.violations[0].trace.as_ref().unwrap();
            let mut steps: Vec<&str> = trace.steps.iter().map(|s| s.step.as_str()).collect();
            steps.sort();
            assert_eq!(steps, ["\"CSin1\" (user1)", "\"CSin2\" (user2)"], "{file}");
        }
        // The formula monitor is complete: the system's deadlocks and states are kept
        // (the locked system's 3 states, each with one or more monitor states).
        assert_eq!(counts(&net).2, 0);
    }
    let net = load(&dir.join("locked.exp"), Sync::Exp).unwrap();
    for (bad, column) in [("[ true* . ] false", 11), ("< true > true", 1), ("[ \"a\" ] true", 9)] {
        let Err(Error::Syntax(d)) = formula::compile(bad, "f", &net) else { panic!("{bad}") };
        assert_eq!(d.column, column, "{bad}: {}", d.message);
    }
    // Precedence: `not` before `and` before `or`, postfix before `.` before `|`.
    let f = formula::compile("[ (not \"CSin1\") and 'CS.*' . \"CSin1\" | \"CSout2\"+ ] false", "f", &net);
    assert!(f.is_ok(), "{:?}", f.err());
}

/// Every tiny network written back as `.exp` + `.aut` (`write_exp`) reads to the same
/// product under the default semantics, whatever semantics it was read with.
#[test]
fn networks_written_as_exp_read_back_the_same() {
    let dir = lts_dir().join("tiny");
    let out = std::env::temp_dir().join(format!("warpcheck-lts-write-{}", std::process::id()));
    for (file, _, gpu) in NETWORKS {
        for sync in [Sync::Exp, Sync::FreeUnmentioned] {
            if sync == Sync::FreeUnmentioned && gpu.is_err() {
                continue;
            }
            let net = load(&dir.join(file), sync).unwrap();
            let target = out.join(format!("{}-{sync:?}", file.replace('/', "-")));
            std::fs::create_dir_all(&target).unwrap();
            let files = warpcheck_lts::write_exp::files(&net, "net").unwrap();
            for (name, text) in &files {
                std::fs::write(target.join(name), text).unwrap();
            }
            let again = load(&target.join("net.exp"), Sync::Exp).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(counts(&again), counts(&net), "{file} {sync:?}");
        }
    }
    std::fs::remove_dir_all(&out).ok();
}

/// `--exp-regex`: `hide` and `rename` labels as anchored regular expressions, a
/// rename's target naming a group (`tests/models/networks/traffic-regex.exp`, the
/// regular-expression spelling of t8). Read literally the patterns match nothing.
#[test]
fn exp_regex_reads_labels_as_patterns() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/networks/traffic-regex.exp");
    let regex = build::Options { exp_regex: true, ..build::Options::default() };
    let net = build::load(&path, &regex).unwrap();
    assert_eq!(counts(&net), (9, 16, 0, 5));
    let mut labels: Vec<&str> = net.labels.iter().map(String::as_str).collect();
    labels.sort_unstable();
    assert_eq!(labels, ["crossing", "green", "i", "red", "yellow"]);
    // Literally, "arrive|leave" hides nothing and "(cross)ing" renames nothing: the
    // pedestrian's "crossing" meets no vector.
    let literal = load(&path, Sync::Exp).unwrap();
    assert!(literal.labels.iter().any(|l| l == "arrive"));
    assert_ne!(counts(&literal), (9, 16, 0, 5));
    // A malformed pattern is an error, not a panic.
    let bad = std::env::temp_dir().join(format!("warpcheck-bad-regex-{}.exp", std::process::id()));
    std::fs::write(&bad, std::fs::read_to_string(&path).unwrap().replace("arrive|leave", "arrive(")).unwrap();
    std::fs::copy(path.with_file_name("light.aut"), bad.with_file_name("light.aut")).unwrap();
    std::fs::copy(path.with_file_name("pedestrian.aut"), bad.with_file_name("pedestrian.aut")).unwrap();
    let Err(e) = build::load(&bad, &regex) else { panic!("a bad pattern is refused") };
    let e = e.to_string();
    assert!(e.contains("\"arrive(\" is not a regular expression"), "{e}");
    for f in [bad.clone(), bad.with_file_name("light.aut"), bad.with_file_name("pedestrian.aut")] {
        let _ = std::fs::remove_file(f);
    }
}
