//! Helpers of the integration tests: where the shared Markov data is, its reference
//! tables, and comparing two models up to what a format cannot tell apart.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use warpcheck_markov::explicit::entry_rewards;
use warpcheck_markov::SparseModel;

/// The Markov folder (`../shared/markov` from the repository root), or a panic that
/// says clearly that it is missing and how to point the tests at it.
pub fn markov_dir() -> PathBuf {
    let dir = std::env::var_os("WARPCHECK_MARKOV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/markov"));
    assert!(
        dir.join("reference.json").is_file() && dir.join("reference-ctmc-rewards.json").is_file(),
        "the Markov test data is missing: expected {} (shared/markov beside the repository, with \
         reference.json and reference-ctmc-rewards.json); set WARPCHECK_MARKOV to its path",
        dir.display()
    );
    dir
}

/// Every instance of both reference tables (DTMC/MDP and CTMC), by id.
pub fn references(dir: &Path) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    for file in ["reference.json", "reference-ctmc-rewards.json"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"));
        let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {file}: {e}"));
        for instance in json["instances"].as_array().unwrap_or_else(|| panic!("{file}: no `instances` list")) {
            let id = instance["id"].as_str().expect("instance id").to_string();
            assert!(all.insert(id.clone(), instance.clone()).is_none(), "{id} listed twice");
        }
    }
    all
}

/// The reward structures added to DTMC/MDP instances (`additions` of
/// `reference-ctmc-rewards.json`), by instance id.
pub fn additions(dir: &Path) -> Value {
    let text =
        std::fs::read_to_string(dir.join("reference-ctmc-rewards.json")).expect("read reference-ctmc-rewards.json");
    let json: Value = serde_json::from_str(&text).expect("parse reference-ctmc-rewards.json");
    json["additions"].clone()
}

/// What two models must agree on.
#[derive(Clone, Copy)]
pub struct Compare {
    /// Reward structures (as state rewards and per-entry rewards, choice rewards added
    /// to their transitions).
    pub rewards: bool,
    /// Action names of the rows.
    pub actions: bool,
    /// Variable values.
    pub valuations: bool,
}

pub const EVERYTHING: Compare = Compare { rewards: true, actions: true, valuations: true };

/// Labels with at least one state, with `init` as the initial states.
fn labels(m: &SparseModel) -> BTreeMap<String, Vec<u32>> {
    let mut labels: BTreeMap<String, Vec<u32>> =
        m.labelling.labels.iter().filter(|(_, s)| !s.is_empty()).map(|(n, s)| (n.clone(), s.clone())).collect();
    labels.insert("init".into(), m.initial.clone());
    labels
}

/// Reward structures that are not all zero, as (state rewards, entry rewards).
fn rewards(m: &SparseModel) -> BTreeMap<String, (Vec<f64>, Vec<f64>)> {
    m.rewards
        .iter()
        .map(|r| {
            let state = r.state.clone().unwrap_or_else(|| vec![0.0; m.states()]);
            (r.name.clone(), (state, entry_rewards(m, r)))
        })
        .filter(|(_, (s, e))| s.iter().chain(e).any(|&x| x != 0.0))
        .collect()
}

/// The action name of every row (`""` for none).
fn actions(m: &SparseModel) -> Vec<&str> {
    (0..m.choices() as usize)
        .map(|r| m.row_actions.get(r).map_or("", |&a| m.action_names[a as usize].as_str()))
        .collect()
}

/// Panics unless `a` and `b` have the same type, matrix (values bitwise), initial
/// states and non-empty labels, and what `compare` asks for.
pub fn assert_same(a: &SparseModel, b: &SparseModel, what: &str, compare: Compare) {
    assert_eq!(a.model_type, b.model_type, "{what}: model type");
    assert_eq!(a.row_groups, b.row_groups, "{what}: row groups");
    assert_eq!(a.row_starts, b.row_starts, "{what}: row starts");
    assert_eq!(a.columns, b.columns, "{what}: columns");
    if let Some(e) = (0..a.values.len()).find(|&e| a.values[e].to_bits() != b.values[e].to_bits()) {
        panic!("{what}: entry {e} has value {:e} against {:e}", a.values[e], b.values[e]);
    }
    assert_eq!(a.initial, b.initial, "{what}: initial states");
    assert_eq!(labels(a), labels(b), "{what}: labels");
    if compare.rewards {
        assert_eq!(rewards(a), rewards(b), "{what}: rewards");
    }
    if compare.actions {
        assert_eq!(actions(a), actions(b), "{what}: actions");
    }
    if compare.valuations {
        assert_eq!(a.valuations, b.valuations, "{what}: valuations");
    }
}

/// A fresh empty folder for one test's files (removed first if a run left it).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-markov-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    dir
}
