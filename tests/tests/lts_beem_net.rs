//! BEEM models converted to networks of LTSs (`../shared/lts/beem-net`, README there):
//! every instance's states (BEEM's published count), distinct transitions,
//! transitions with multiplicity (BEEM's edges where published) and deadlocks, on the
//! parallel CPU engine, under both semantics (the conversion makes them agree), and
//! with native successor code (the generated C compiled for the host) under EXP's.
//!
//! CI runs the instances up to [`CI_STATES`] states; the six larger ones
//! (cyclic_scheduler.3/.4, iprotocol.3, lamport_nonatomic.4, protocols.4/.5: 0.23 to
//! 1.26 M states, four explorations each) run in `the_large_instances`, ignored
//! because they take about 20 s on a 2-core CI machine:
//! `cargo test -p warpcheck-conformance --test lts_beem_net -- --ignored`.

use warpcheck_conformance::lts_dir;
use warpcheck_explore::{explore_parallel, Options};
use warpcheck_lts::{build, gpf, Counting, Sync};

const CI_STATES: u64 = 200_000;

struct Row {
    instance: String,
    states: u64,
    distinct: u64,
    multiplicity: u64,
    deadlocks: u64,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(lts_dir().join("beem-net/counts.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (i, s, b, d, m, e, dl) = (
        col("instance"),
        col("states"),
        col("beem_states"),
        col("transitions_distinct"),
        col("transitions_with_multiplicity"),
        col("beem_edges"),
        col("deadlocks"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let n = |k: usize| f[k].parse::<u64>().unwrap_or_else(|_| panic!("{l}: column {k}"));
            assert_eq!(n(s), n(b), "{l}: the table's states are BEEM's");
            if let Ok(edges) = f[e].parse::<u64>() {
                assert_eq!(edges, n(m), "{l}: BEEM's edges are the transitions with multiplicity");
            }
            Row { instance: f[i].to_string(), states: n(s), distinct: n(d), multiplicity: n(m), deadlocks: n(dl) }
        })
        .collect()
}

fn check(row: &Row) {
    let path = lts_dir().join(format!("beem-net/{0}/{0}.exp", row.instance));
    for sync in [Sync::Exp, Sync::FreeUnmentioned] {
        for (counting, transitions) in [(Counting::Distinct, row.distinct), (Counting::Multiplicity, row.multiplicity)]
        {
            let net = build::load(&path, &build::Options { sync, counting, ..build::Options::default() })
                .unwrap_or_else(|e| panic!("{}: {e}", row.instance));
            // Unusable component transitions were cut in the conversion: no dead labels
            // (firewire_link.1 keeps vectors that never fire, which is harmless).
            assert!(!net.warnings.iter().any(|w| w.contains("in no vector")), "{}: {:?}", row.instance, net.warnings);
            let r = explore_parallel(&net, &Options::default()).unwrap();
            assert_eq!(
                (r.states, r.transitions, r.deadlocks),
                (row.states, transitions, row.deadlocks),
                "{} {sync:?} {counting:?}",
                row.instance
            );
            if sync == Sync::Exp {
                // The network's generated C compiled for the host gives the same counts.
                let native = warpcheck_native::Native::new(&net).unwrap_or_else(|e| panic!("{}: {e}", row.instance));
                let n = explore_parallel(&native, &Options::default()).unwrap();
                assert_eq!((n.states, n.transitions, n.deadlocks), (r.states, r.transitions, r.deadlocks), "native");
                let limited = warpcheck_native::Native::new_within(&net, 0);
                assert!(matches!(limited, Err(warpcheck_native::NativeError::LargeTables(w)) if w > 0), "table bound");
            }
        }
    }
}

#[test]
fn the_small_instances() {
    let rows = rows();
    assert_eq!(rows.len(), 21, "beem-net/counts.csv lists 21 instances");
    for row in rows.iter().filter(|r| r.states <= CI_STATES) {
        check(row);
    }
}

#[test]
#[ignore = "about 20 s on 2 cores: the six instances above CI_STATES"]
fn the_large_instances() {
    for row in rows().iter().filter(|r| r.states > CI_STATES) {
        check(row);
    }
}

/// The three `.gpf` files decode to the table's counts, and the `.exp` networks
/// written as `.gpf` read back to the same product.
#[test]
fn the_gpf_files() {
    let rows = rows();
    for instance in ["protocols.2", "cambridge.1", "iprotocol.1"] {
        let row = rows.iter().find(|r| r.instance == instance).unwrap();
        let dir = lts_dir().join(format!("beem-net/{instance}"));
        let path = dir.join(format!("{instance}.gpf"));
        let net = gpf::load(&path, gpf::Dialect::Gpf2016, Counting::Distinct).unwrap();
        let r = explore_parallel(&net, &Options::default()).unwrap();
        assert_eq!((r.states, r.transitions, r.deadlocks), (row.states, row.distinct, row.deadlocks), "{instance}");
        let exp = build::load(&dir.join(format!("{instance}.exp")), &build::Options::default()).unwrap();
        let (text, labels) = gpf::write(&exp).unwrap();
        let again = gpf::parse(&text, Some(&labels), gpf::Dialect::Gpf2016, Counting::Distinct).unwrap();
        let r = explore_parallel(&again, &Options::default()).unwrap();
        assert_eq!((r.states, r.transitions, r.deadlocks), (row.states, row.distinct, row.deadlocks), "{instance}");
    }
}
