//! The GPU MEC decomposition (mec.rs driving mec.cu) run over mec.cu compiled for the
//! host, held to the CPU's `maximal_end_components` (itself held to brute-force
//! oracles and to Storm): the same `Mecs` (partition, numbering and inside choices) on
//! random MDPs, on random DTMCs (bottom SCCs), and on every DTMC and MDP of the shared
//! reference set up to [`CAP`] states, whose counts must also equal Storm's.
//!
//! Needs a C++ compiler (`$CXX`, else `c++`); `WARPCHECK_MARKOV` points at the shared
//! Markov folder (default `../shared/markov` beside the repository).

#[path = "../../markov/tests/common/mod.rs"]
mod common;
#[path = "../../markov/tests/random/mod.rs"]
mod random;

use std::sync::OnceLock;

use proptest::prelude::*;
use random::{build, spec};
use serde_json::Value;
use warpcheck_markov::mec::maximal_end_components_sequential;
use warpcheck_markov::{bottom_sccs, ModelType, SparseModel};
use warpcheck_markov_gpu::host::Host;
use warpcheck_markov_gpu::mec::maximal_end_components;

/// The largest reference instance decomposed on the host.
const CAP: u64 = 1_100_000;

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| Host::compile().expect("a C++ compiler builds sweeps.cu and mec.cu for the host"))
}

fn on_host(model: &SparseModel) -> warpcheck_markov::Mecs {
    maximal_end_components(host(), model).expect("the host decomposition runs").0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn equal_to_the_cpu_on_random_mdps(spec in spec(1, 40, 3)) {
        let model = build(&spec, ModelType::Mdp);
        prop_assert_eq!(on_host(&model), maximal_end_components_sequential(&model));
    }

    #[test]
    fn bottom_sccs_of_random_dtmcs(spec in spec(1, 40, 1)) {
        let model = build(&spec, ModelType::Dtmc);
        prop_assert_eq!(on_host(&model), bottom_sccs(&model).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]

    #[test]
    fn equal_to_the_cpu_on_larger_mdps(spec in spec(50, 3000, 3)) {
        let model = build(&spec, ModelType::Mdp);
        prop_assert_eq!(on_host(&model), maximal_end_components_sequential(&model));
    }
}

#[test]
fn every_reference_instance_up_to_the_cap() {
    let dir = common::markov_dir();
    let text = std::fs::read_to_string(dir.join("reference.json")).expect("read reference.json");
    let reference: Value = serde_json::from_str(&text).expect("parse reference.json");
    let mut checked = 0;
    for instance in reference["instances"].as_array().expect("instances") {
        let id = instance["id"].as_str().expect("id");
        let kind = instance["type"].as_str().expect("type");
        if (kind != "dtmc" && kind != "mdp") || instance["states"].as_u64().unwrap() > CAP {
            continue;
        }
        let path = dir.join(instance["files"]["drn"]["path"].as_str().expect("drn path"));
        let model = warpcheck_markov::load(&path, None).unwrap_or_else(|e| panic!("{e}"));
        let (gpu, stats) = maximal_end_components(host(), &model).expect("the host decomposition runs");
        let cpu = if kind == "dtmc" {
            bottom_sccs(&model).unwrap()
        } else {
            warpcheck_markov::maximal_end_components(&model)
        };
        eprintln!("{id}: {} states, {} rounds, {} launches", model.states(), stats.rounds, stats.launches);
        let want = if kind == "dtmc" { &instance["bscc"] } else { &instance["mec"] };
        let s = gpu.summary();
        assert_eq!(s.count as u64, want["count"].as_u64().unwrap(), "{id}: count");
        assert_eq!(s.states_in_mecs, want["states_in_mecs"].as_u64().unwrap(), "{id}: states in MECs");
        assert_eq!(s.choices_in_mecs, want["choices_in_mecs"].as_u64().unwrap(), "{id}: choices in MECs");
        assert!(gpu == cpu, "{id}: the GPU decomposition differs from the CPU's");
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} instances checked");
}
