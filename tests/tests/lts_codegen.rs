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

/// A network written here for the table-driven C: vectors of 3 and 4 participants
/// whose participants have several edges of their label from one local state (the
/// initial state's `x` steps are 2 × 3 × 2 choices), two groups with one label that
/// give the same steps (`y` by `b` and by `c`: merged under distinct counting), τ, and
/// a label that fires alone under GPUexplore's semantics.
const WIDE: [(&str, &str); 5] = [
    (
        "wide.exp",
        "par using\n\
         \"a\" * \"a\" * \"a\" * _ -> \"x\",\n\
         \"a\" * _ * \"a\" * \"d\" -> \"x\",\n\
         \"a\" * \"a\" * \"a\" * \"d\" -> \"z\",\n\
         \"b\" * _ * _ * _ -> \"y\",\n\
         \"c\" * _ * _ * _ -> \"y\",\n\
         _ * \"e\" * _ * \"f\" -> \"e\",\n\
         _ * _ * \"d\" * \"d\" -> \"y\"\n\
         in \"p.aut\" || \"q.aut\" || \"r.aut\" || \"s.aut\" end par\n",
    ),
    (
        "p.aut",
        "des (0, 8, 3)\n(0, \"a\", 1)\n(0, \"a\", 2)\n(1, \"b\", 0)\n(1, \"c\", 0)\n(2, \"a\", 0)\n(2, \"a\", 1)\n\
         (2, \"i\", 0)\n(2, \"g\", 1)\n",
    ),
    (
        "q.aut",
        "des (0, 7, 3)\n(0, \"a\", 0)\n(0, \"a\", 1)\n(0, \"a\", 2)\n(1, \"a\", 2)\n(1, \"e\", 0)\n(2, \"i\", 0)\n\
         (2, \"a\", 1)\n",
    ),
    ("r.aut", "des (0, 5, 2)\n(0, \"a\", 1)\n(0, \"a\", 0)\n(1, \"a\", 0)\n(1, \"d\", 0)\n(1, \"a\", 1)\n"),
    ("s.aut", "des (0, 4, 2)\n(0, \"d\", 1)\n(0, \"d\", 0)\n(1, \"d\", 0)\n(1, \"f\", 0)\n"),
];

/// `WIDE` in a fresh folder; its `.exp`.
fn wide_network(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-lts-wide-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in WIDE {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir.join("wide.exp")
}

/// The odometer enumerates real products (up to 4 participants, several targets
/// each) and the merge buffer merges, with and without a free label (`g`, which then
/// fires alone), counting distinct steps and with multiplicity. From
/// the initial state: `x` by `a a a _` gives 2 × 3 × 2 = 12 steps and by `a _ a d`
/// 2 × 2 × 2 = 8, of which the 4 with Q and S in 0 are the same; `z` by `a a a d`
/// gives 2 × 3 × 2 × 2 = 24: 40 distinct steps, 44 with multiplicity.
#[test]
fn vectors_of_several_participants_on_the_host() {
    let path = wide_network("vectors");
    for free in [None, Some("g")] {
        let free = free.map(|f| build::Options::free_regex(f).unwrap());
        let mut sizes = Vec::new();
        for counting in [Counting::Distinct, Counting::Multiplicity] {
            let net =
                build::load(&path, &build::Options { free: free.clone(), counting, ..Default::default() }).unwrap();
            assert_eq!(net.groups.iter().map(|g| g.parts.len()).max(), Some(4));
            check_net(&net, &path, 1000);
            let mut n = 0;
            net.successors().successors(&net.initial_state(), |_, _| n += 1);
            sizes.push((reachable(&net, 1000).len(), n));
        }
        assert_eq!((sizes[0].1, sizes[1].1), (40, 44), "{free:?}");
        assert_eq!(sizes[0].0, sizes[1].0, "{free:?}");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// `WIDE` with a nondeterministic monitor (two moves on `x` from its initial state,
/// `e` unobserved), blocking or staying where it has no move, and with action
/// propositions: the monitor's word and moves, the assertion and the last-action word
/// in C, the assertion and the propositions as invariants.
#[test]
fn several_participants_with_monitors_on_the_host() {
    use warpcheck_lts::monitor::{Incomplete, Matching, Monitor};
    let path = wide_network("monitors");
    let dir = path.parent().unwrap().to_path_buf();
    let aut = dir.join("watch.aut");
    std::fs::write(
        &aut,
        "des (0, 5, 3)\n(0, \"x\", 0)\n(0, \"x\", 1)\n(0, \"z\", 2)\n(1, \"y\", 0)\n(1, \"x|z\", 2)\n",
    )
    .unwrap();
    for counting in [Counting::Distinct, Counting::Multiplicity] {
        let options = build::Options { counting, ..Default::default() };
        for missing in [Incomplete::Block, Incomplete::Stay] {
            let mut net = build::load(&path, &options).unwrap();
            net.monitor = Some(Monitor::load(&aut, &[2], &net, Matching::Regex, missing).unwrap());
            check_net(&net, &path, 1000);
            let y = net.add_action("y|e").unwrap();
            let z = net.add_action("z").unwrap();
            let states = reachable(&net, 1000);
            let scratch = dir.join(format!("host-{counting:?}-{missing:?}"));
            warpcheck_conformance::host_c_agrees(&net, &[0, y, z], &states, &scratch)
                .unwrap_or_else(|e| panic!("{counting:?} {missing:?}: {e}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
