//! The CUDA C of networks (`warpcheck_lts::codegen`), compiled on the host, gives the
//! CPU successor function's successors and deadlocks state for state, on every
//! reachable state of the tiny networks and of small beem-net instances, counting
//! distinct steps (merged per state) and with multiplicity.

use std::path::Path;

use warpcheck_conformance::lts_dir;
use warpcheck_lts::{build, Counting, Network, Sync};
use warpcheck_model::cuda::host::run_on_host;
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::{Model, Successors};

/// Every reachable state of `net` (at most `limit`).
fn reachable(net: &Network, limit: usize) -> Vec<Vec<u32>> {
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from([net.initial_state()]);
    seen.insert(net.initial_state());
    let mut out = Vec::new();
    let mut steps = net.successors();
    while let Some(s) = queue.pop_front() {
        if out.len() >= limit {
            break;
        }
        steps.successors(&s, |_, t| {
            let t = t.unwrap().to_vec();
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        });
        out.push(s);
    }
    out
}

fn check(path: &Path, sync: Sync, counting: Counting, limit: usize) {
    let net = build::load(path, &build::Options { sync, counting, ..Default::default() }).unwrap();
    check_net(&net, path, limit);
}

/// `net`'s C against its CPU successors, deadlocks and assertion (the monitor's).
fn check_net(net: &Network, path: &Path, limit: usize) {
    let states = reachable(net, limit);
    let source = net.cuda_source(&[]).unwrap();
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpcheck-lts-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host =
        run_on_host(&source, net.state_words(), 0, &states, &dir).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::fs::remove_dir_all(&dir).ok();
    let mut steps = net.successors();
    for (state, got) in states.iter().zip(host) {
        let mut successors = Vec::new();
        let deadlock = steps.successors(state, |_, t| successors.push(t.unwrap().to_vec()));
        successors.sort();
        assert!(successors.len() as u64 <= source.max_successors);
        assert_eq!(
            (got.successors, got.deadlock, got.errors),
            (successors, deadlock, 0),
            "{} {state:?}",
            path.display()
        );
    }
}

#[test]
fn tiny_networks_on_the_host() {
    let dir = lts_dir().join("tiny");
    for (file, sync) in [
        ("t2-traffic/traffic.exp", Sync::Exp),
        ("t2-traffic/traffic-gpusem.exp", Sync::FreeUnmentioned),
        ("t4-cartesian/cartesian.exp", Sync::Exp),
        ("t5-deadlock/deadlock.exp", Sync::Exp),
        ("t7-semantics/solo-and-sync.exp", Sync::Exp),
        ("t8-hide-rename/traffic-allbut.exp", Sync::Exp),
        ("t10-wide/wide.exp", Sync::Exp),
    ] {
        for counting in [Counting::Distinct, Counting::Multiplicity] {
            check(&dir.join(file), sync, counting, 1000);
        }
    }
}

/// lamport_nonatomic.3 is the network where two groups give the same triple (the
/// merged and the multiplicity counts differ by 26): all its 36,983 states, so that
/// the merging code runs where it matters; the others on their first 3000 states.
#[test]
fn beem_networks_on_the_host() {
    let dir = lts_dir().join("beem-net");
    for (instance, limit) in [("protocols.1", 3000), ("lamport_nonatomic.3", 40_000), ("cambridge.1", 3000)] {
        let path = dir.join(format!("{instance}/{instance}.exp"));
        for counting in [Counting::Distinct, Counting::Multiplicity] {
            check(&path, Sync::Exp, counting, limit);
        }
    }
}

/// t6 with the paper's monitor and with the compiled formula (the monitor's word,
/// its moves and its error states in C), and with a monitor that blocks or stays.
#[test]
fn monitors_on_the_host() {
    use warpcheck_lts::formula;
    use warpcheck_lts::monitor::{Incomplete, Matching, Monitor};
    let dir = lts_dir().join("tiny/t6-mutex");
    let rf = std::fs::read_to_string(dir.join("mutex.rf")).unwrap();
    for file in ["broken.exp", "locked.exp"] {
        let path = dir.join(file);
        for counting in [Counting::Distinct, Counting::Multiplicity] {
            let options = build::Options { counting, ..Default::default() };
            let mut net = build::load(&path, &options).unwrap();
            let aut = dir.join("mutex.monitor.aut");
            for missing in [Incomplete::Refuse, Incomplete::Block, Incomplete::Stay] {
                net.monitor = Some(Monitor::load(&aut, &[1], &net, Matching::Regex, missing).unwrap());
                check_net(&net, &path, 100);
            }
            net.monitor = Some(formula::compile(&rf, "mutex.rf", &net).unwrap());
            check_net(&net, &path, 100);
        }
    }
}

/// GPUexplore's `-p` convention in C: the property process's error state as the
/// assertion.
#[test]
fn gpf_property_on_the_host() {
    use warpcheck_lts::gpf;
    let dir = lts_dir().join("tiny/t6-mutex");
    for file in ["broken+mutex.gpf", "locked+mutex.gpf"] {
        let path = dir.join(file);
        let net = gpf::load(&path, gpf::Dialect::Gpf2016, Counting::Distinct).unwrap();
        check_net(&gpf::with_property(net).unwrap(), &path, 100);
    }
}
