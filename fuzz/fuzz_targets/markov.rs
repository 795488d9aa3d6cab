//! Fuzz target for the Markov model files (`crates/markov`): each input is read as a DRN
//! file, as a `.tra` file (two-number headers as DTMC and as CTMC; three-number ones are
//! MDPs), and as the `.lab`, `.sta`, `.srew` and `.trew` files of a small fixed MDP. A
//! DRN or `.tra` file that loads is written back and must read back as the same matrix.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_markov::{drn, explicit, ModelType, SparseModel};

/// The MDP the `.lab`, `.sta`, `.srew` and `.trew` readers read onto: 3 states, state 0
/// with two choices.
fn small_mdp() -> SparseModel {
    let mut m = SparseModel::new(ModelType::Mdp);
    m.push_row(None);
    m.push_entry(1, 1.0);
    m.push_row(None);
    m.push_entry(0, 0.5);
    m.push_entry(2, 0.5);
    m.end_state();
    for s in [1, 2] {
        m.push_row(None);
        m.push_entry(s, 1.0);
        m.end_state();
    }
    m.initial = vec![0];
    m
}

/// Panics unless `a` and `b` have the same matrix (values bitwise) and actions.
fn assert_same_matrix(a: &SparseModel, b: &SparseModel) {
    assert_eq!(a.model_type, b.model_type);
    assert_eq!(a.row_groups, b.row_groups);
    assert_eq!(a.row_starts, b.row_starts);
    assert_eq!(a.columns, b.columns);
    let bits = |m: &SparseModel| m.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b));
    assert_eq!(a.row_actions.len(), b.row_actions.len());
}

fuzz_target!(|data: &[u8]| {
    match drn::read(data, "fuzz.drn") {
        Ok(model) => {
            let mut out = Vec::new();
            drn::write(&model, &mut out, "fuzz.drn").expect("a model read from DRN writes as DRN");
            let back = drn::read(&out[..], "fuzz.drn").expect("written DRN reads back");
            assert_same_matrix(&model, &back);
            assert_eq!(model.initial, back.initial);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    for hint in [None, Some(ModelType::Ctmc)] {
        match explicit::read_tra(data, "fuzz.tra", hint) {
            // A `.tra` names no initial state (the `.lab` does); state 0 stands in, and
            // a file of no states is complete but has none to give.
            Ok(model) if model.states() == 0 => {}
            Ok(mut model) => {
                model.initial = vec![0];
                let mut out = Vec::new();
                explicit::write_tra(&model, &mut out, "fuzz.tra").expect("a model read from .tra writes as .tra");
                let back = explicit::read_tra(&out[..], "fuzz.tra", hint).expect("written .tra reads back");
                assert_same_matrix(&model, &back);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let mdp = small_mdp();
    if let Err(e) = explicit::read_lab(data, "fuzz.lab", mdp.states()) {
        let _ = e.to_string();
    }
    if let Err(e) = explicit::read_sta(data, "fuzz.sta", mdp.states()) {
        let _ = e.to_string();
    }
    if let Err(e) = explicit::read_srew(data, "fuzz.srew", mdp.states()) {
        let _ = e.to_string();
    }
    if let Err(e) = explicit::read_trew(data, "fuzz.trew", &mdp) {
        let _ = e.to_string();
    }
});
