//! The DVE → network exporter (`warpcheck_lts::from_dve`, spec §6.4): BEEM's
//! channel-only models, exported one component per process, give the DVE front
//! end's (and DiVinE's) states, transitions with multiplicity and deadlocks; models
//! outside the fragment are refused with the reason.

use warpcheck_conformance::{beem_dir, load_file, load_source, references};
use warpcheck_explore::{explore_parallel, Options};
use warpcheck_lts::from_dve::{self, FIXPOINT_LIMIT};

/// The small instances of the channel-only models (CI: under 70,000 states).
const INSTANCES: &[&str] = &[
    "cambridge.4",
    "firewire_link.4",
    "protocols.1",
    "protocols.2",
    "protocols.3",
    "cambridge.1",
    "cambridge.2",
    "cambridge.3",
    "cyclic_scheduler.1",
    "cyclic_scheduler.2",
    "firewire_link.1",
    "iprotocol.1",
    "iprotocol.2",
    "lamport_nonatomic.1",
    "lamport_nonatomic.2",
    "lamport_nonatomic.3",
    "lann.1",
    "lann.2",
    "pouring.1",
    "pouring.2",
    "public_subscribe.1",
];

#[test]
fn exported_networks_give_the_dve_counts() {
    check(INSTANCES, FIXPOINT_LIMIT);
}

/// The same networks projected from the reachable states (what the exporter does
/// when the fixpoint grows past its limit).
#[test]
fn projected_networks_give_the_dve_counts() {
    check(INSTANCES, 0);
}

/// cambridge.5 (698,912 states): its channel processes unfold to millions of local
/// states in the fixpoint, so the exporter projects.
#[test]
fn cambridge_5_is_projected() {
    check(&["cambridge.5"], FIXPOINT_LIMIT);
}

/// The instances from 0.2 to 1.9 million states (a minute or two on 2 cores).
#[test]
#[ignore = "0.2 to 1.9 M states each: a minute or two on 2 cores"]
fn the_large_instances() {
    check(
        &[
            "cyclic_scheduler.3",
            "cyclic_scheduler.4",
            "firewire_link.7",
            "iprotocol.3",
            "lamport_nonatomic.4",
            "lann.3",
            "lann.4",
            "lann.5",
            "protocols.4",
            "protocols.5",
            "public_subscribe.2",
        ],
        FIXPOINT_LIMIT,
    );
}

/// A model outside the fragment is refused with the reason.
#[test]
fn models_with_shared_variables_are_refused() {
    let dve = load_file(&beem_dir().join("peterson/peterson.1.dve"));
    let e = from_dve::network(&dve.model).unwrap_err().to_string();
    assert!(e.contains("global variable"), "{e}");
    let committed = "process P { state a, b; init a; commit b; trans a -> b {}, b -> a {}; } system async;";
    let e = from_dve::network(&load_source("committed", committed).model).unwrap_err().to_string();
    assert!(e.contains("committed states"), "{e}");
}

fn check(instances: &[&str], limit: usize) {
    let beem = beem_dir();
    let refs = references(&beem);
    let mut failures = Vec::new();
    for &instance in instances {
        let reference = refs.iter().find(|r| r.instance == instance).unwrap();
        let dve = load_file(&reference.model_path(&beem));
        let net = match from_dve::network_within(&dve.model, limit) {
            Ok(net) => net,
            Err(e) => {
                failures.push(format!("{instance}: {e}"));
                continue;
            }
        };
        let r = explore_parallel(&net, &Options::default()).unwrap();
        let got = (r.states, r.transitions, r.deadlocks);
        let expected = (reference.states, reference.transitions, reference.deadlocks.unwrap_or(0));
        if got != expected {
            failures.push(format!("{instance}: network {got:?}, DVE {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
