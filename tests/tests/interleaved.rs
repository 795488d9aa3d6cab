//! Interleavings of two BEEM instances (`benches/models/`, written by
//! `benches/scripts/interleave-dve.py`): their counts follow from the parts' DiVinE 2.4
//! rows (states nA·nB, transitions tA·nB + nA·tB, deadlocks dA·dB), which is how the
//! 10^10-state model there gets an exact reference. Here the small one is explored to
//! the end on two threads, and the large one's parts are checked to be the instances
//! its reference is computed from.

use warpcheck_conformance::*;
use warpcheck_explore::Order;

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/models")
}

/// The product's (states, transitions, deadlocks) from the parts' reference rows.
fn expected(a: &str, b: &str) -> (u64, u64, u64) {
    let rows = references(&beem_dir());
    let row = |name: &str| rows.iter().find(|r| r.instance == name).unwrap_or_else(|| panic!("{name}: no row")).clone();
    let (a, b) = (row(a), row(b));
    let dead = |r: &Reference| r.deadlocks.expect("a DiVinE row");
    (a.states * b.states, a.transitions * b.states + a.states * b.transitions, dead(&a) * dead(&b))
}

#[test]
fn an_interleaving_has_the_product_of_its_parts_counts() {
    let model = load_file(&models().join("lamport.2+phils.1.dve"));
    let stats = explore_with_threads(&model, 2, Order::Bfs);
    assert_eq!((stats.states, stats.transitions, stats.deadlocks), expected("lamport.2", "phils.1"));
    assert_eq!(stats.error_transitions, 0, "a part with evaluation errors has no product count");
}

/// `text` with `prefix` removed where it starts an identifier.
fn unprefixed(text: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let starts = rest[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        out.push_str(&rest[..i]);
        if !starts {
            out.push_str(prefix);
        }
        rest = &rest[i + prefix.len()..];
    }
    out + rest
}

/// The `process ... }` blocks of a DVE text, each without blank lines.
fn processes(text: &str) -> Vec<String> {
    let squeeze = |s: &str| s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
    text.split("process ").skip(1).map(|block| squeeze(&block[..=block.rfind('}').expect("a closing brace")])).collect()
}

#[test]
fn the_ten_billion_state_interleaving_is_made_of_lamport_2_and_leader_filters_3() {
    assert_eq!(expected("lamport.2", "leader_filters.3"), (10_104_035_560, 52_450_323_994, 18_240));
    let text = std::fs::read_to_string(models().join("lamport.2+leader_filters.3.dve")).expect("read the model");
    let blocks = processes(&text);
    let beem = beem_dir();
    let mut at = 0;
    for (part, prefix) in [("lamport/lamport.2.dve", "a_"), ("leader_filters/leader_filters.3.dve", "b_")] {
        let original = processes(&std::fs::read_to_string(beem.join(part)).expect("read the part"));
        // Its processes, in order, equal to the part's once the prefix is taken off ...
        for block in &original {
            assert!(blocks[at].starts_with(prefix), "{part}: process {at} is not renamed");
            assert_eq!(unprefixed(&blocks[at], prefix), *block, "{part}: process {at} differs");
            at += 1;
        }
    }
    assert_eq!(at, blocks.len(), "processes beyond the two parts'");
    // ... and the product starts where both parts start: their successors side by side.
    let model = load_file(&models().join("lamport.2+leader_filters.3.dve"));
    let parts = ["lamport/lamport.2.dve", "leader_filters/leader_filters.3.dve"].map(|p| load_file(&beem.join(p)));
    let first_level = |m: &warpcheck_dve::DveModel| {
        let mut n = 0;
        let mut successors = warpcheck_model::Model::successors(&m.model);
        for s in warpcheck_model::Model::initial_states(&m.model) {
            warpcheck_model::Successors::successors(&mut successors, &s, |_, _| n += 1);
        }
        n
    };
    assert_eq!(first_level(&model), first_level(&parts[0]) + first_level(&parts[1]));
}
