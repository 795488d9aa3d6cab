//! Every instance of `shared/markov` (DTMCs, MDPs, CTMCs) through both formats:
//! - the DRN gives the reference counts: states, transitions, choices, initial states,
//!   the size of every label (and its states where the reference lists them), the
//!   reward models;
//! - the `.tra/.lab/.sta` (and `.srew/.trew`) files give the same model: the same matrix
//!   bit for bit, the same initial states and non-empty labels (the `.lab` files declare
//!   `deadlock` also when no state has it; a DRN cannot name an empty label, so empty
//!   labels are not compared), state rewards equal to the DRN's;
//! - writing gives back the shared files byte for byte: the DRN except its first comment
//!   line (which names the exporting tool), and the `.tra`, `.lab` (written from the DRN
//!   model), `.sta`, `.srew` and `.trew` files;
//! - what is written reads back as the same model, for both formats.

mod common;

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use common::{additions, assert_same, markov_dir, references, scratch_dir, Compare, EVERYTHING};
use serde_json::Value;
use warpcheck_markov::explicit::{read_trew, write_lab, write_srew, write_sta, write_tra, write_trew, ExplicitFiles};
use warpcheck_markov::{drn, load, open, save, ModelType, SparseModel};

/// The bytes of `path`, decompressed if it ends in `.gz`.
fn bytes_of(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    open(path).unwrap().read_to_end(&mut bytes).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    bytes
}

/// Panics unless `written` equals `original`, naming the first line that differs.
fn assert_same_text(written: &[u8], original: &[u8], what: &str) {
    if written == original {
        return;
    }
    let (w, o) = (String::from_utf8_lossy(written), String::from_utf8_lossy(original));
    let (line, (a, b)) =
        w.lines().zip(o.lines()).enumerate().find(|(_, (a, b))| a != b).unwrap_or((0, ("(length)", "(length)")));
    panic!(
        "{what}: written text differs at line {}: `{a}` instead of `{b}` ({} bytes vs {})",
        line + 1,
        written.len(),
        original.len()
    );
}

/// Everything after the first line.
fn after_first_line(text: &[u8]) -> &[u8] {
    let at = text.iter().position(|&b| b == b'\n').map_or(text.len(), |i| i + 1);
    &text[at..]
}

fn model_type(reference: &Value) -> ModelType {
    match reference["type"].as_str() {
        Some("dtmc") => ModelType::Dtmc,
        Some("ctmc") => ModelType::Ctmc,
        Some("mdp") => ModelType::Mdp,
        other => panic!("unknown type {other:?}"),
    }
}

fn count(reference: &Value, key: &str) -> u64 {
    reference[key].as_u64().unwrap_or_else(|| panic!("reference has no `{key}`"))
}

/// The DRN model against the reference counts.
fn check_counts(id: &str, m: &SparseModel, reference: &Value) {
    assert_eq!(m.model_type, model_type(reference), "{id}: type");
    assert_eq!(m.states() as u64, count(reference, "states"), "{id}: states");
    assert_eq!(m.transitions(), count(reference, "transitions"), "{id}: transitions");
    let choices = if m.model_type == ModelType::Mdp { count(reference, "choices") } else { m.states() as u64 };
    assert_eq!(m.choices(), choices, "{id}: choices");
    let initial: Vec<u32> =
        reference["initial_states"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    assert_eq!(m.initial, initial, "{id}: initial states");
    let labels = reference["labels"].as_object().unwrap();
    for (name, n) in labels {
        let have = m.labelling.states(name).map_or(0, |s| s.len() as u64);
        assert_eq!(have, n.as_u64().unwrap(), "{id}: states of label {name}");
    }
    for (name, _) in &m.labelling.labels {
        assert!(labels.contains_key(name), "{id}: label {name} is not in the reference");
    }
    if let Some(label_states) = reference.get("label_states").and_then(Value::as_object) {
        for (name, states) in label_states {
            let want: Vec<u32> = states.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
            assert_eq!(m.labelling.states(name).unwrap_or(&[]), &want[..], "{id}: states of label {name}");
        }
    }
    // The reference lists the names sorted; the DRN in the order of its `@reward_models`.
    let reward_names: Vec<&str> =
        reference["reward_models_in_drn"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let mut names: Vec<&str> = m.rewards.iter().map(|r| r.name.as_str()).collect();
    names.sort();
    assert_eq!(names, reward_names, "{id}: reward models");
}

/// The state rewards of the `.srew` files against the DRN's reward models: equal for
/// state rewards; for a CTMC's action rewards, the `.srew` holds the reward rate state
/// reward + exit rate x action reward (computed by the exporter in floating point). A
/// reward structure that the DRN lacks must be one of the reference's additions.
fn check_state_rewards(id: &str, drn: &SparseModel, explicit: &SparseModel) {
    for r in &explicit.rewards {
        let Some(srew) = &r.state else { continue };
        let Some(theirs) = drn.rewards.iter().find(|d| d.name == r.name) else {
            let added = additions(&markov_dir())[id]["reward_models"].get(&r.name).is_some();
            assert!(added, "{id}: reward structure {} is in neither the DRN nor the additions", r.name);
            continue;
        };
        for s in 0..drn.states() {
            let state = theirs.state.as_ref().map_or(0.0, |v| v[s]);
            let want = match &theirs.choice {
                None => state,
                Some(choice) => {
                    assert_eq!(drn.model_type, ModelType::Ctmc, "{id}: action rewards outside a CTMC");
                    let exit: f64 = drn.row(s as u64).map(|(_, v)| v).sum();
                    state + exit * choice[s]
                }
            };
            let close = (srew[s] - want).abs() <= 1e-12 * want.abs();
            assert!(close, "{id}: reward {} of state {s}: .srew {} against {want} from the DRN", r.name, srew[s]);
            if theirs.choice.is_none() {
                assert_eq!(srew[s].to_bits(), want.to_bits(), "{id}: reward {} of state {s}", r.name);
            }
        }
    }
}

/// A `.trew` file read onto `model`: its rewards are action rewards (equal on every
/// transition of a choice), and written back they give the file again.
fn check_transition_rewards(id: &str, model: &SparseModel, trew: &Path) {
    let read = |file: &Path| read_trew(open(file).unwrap(), &file.display().to_string(), model).unwrap();
    let rewards = read(trew);
    assert!(rewards.iter().any(|&r| r != 0.0), "{id}: {} has no reward", trew.display());
    for row in 0..model.choices() {
        let entries = &rewards[model.entries(row)];
        assert!(entries.iter().all(|&r| r == entries[0]), "{id}: row {row} has different transition rewards");
    }
    let mut written = Vec::new();
    write_trew(model, &rewards, &mut written, "written.trew").unwrap();
    assert_same_text(&written, &bytes_of(trew), &format!("{id}: {}", trew.display()));
}

fn check_instance(id: &str) {
    let dir = markov_dir();
    let all = references(&dir);
    let reference = all.get(id).unwrap_or_else(|| panic!("{id} is not in the reference tables"));
    let files = reference["files"].as_object().unwrap();
    if files.is_empty() {
        // tandem-1023: source only.
        assert!(reference.get("files_not_shipped").is_some(), "{id}: no files and no reason");
        return;
    }
    let path = |key: &str| files.get(key).map(|f| dir.join(f["path"].as_str().unwrap()));

    // DRN: the reference counts, the writer, the round trip.
    let drn_path = path("drn").unwrap();
    let start = Instant::now();
    let model = load(&drn_path, None).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{id}: DRN loaded in {:.2} s", start.elapsed().as_secs_f64());
    check_counts(id, &model, reference);
    assert_eq!(model.valuations, None);
    let mut written = Vec::new();
    drn::write(&model, &mut written, "written.drn").unwrap();
    let original = bytes_of(&drn_path);
    assert!(original.starts_with(b"// Exported by storm\n"), "{id}: the DRN does not start as Storm's do");
    assert!(written.starts_with(b"// Exported by warpcheck\n"));
    assert_same_text(after_first_line(&written), after_first_line(&original), &format!("{id}: DRN"));
    let back = drn::read(&written[..], "written.drn").unwrap();
    assert_same(&model, &back, &format!("{id}: DRN round trip"), EVERYTHING);

    let Some(tra) = path("tra") else {
        // resource-gathering-1300-100-100: DRN and `.trew` only.
        let trew = drn_path.with_file_name(format!("{id}.rew_gold.trew"));
        assert!(trew.is_file(), "{id}: no .tra and no .trew");
        check_transition_rewards(id, &model, &trew);
        return;
    };

    // Explicit files: the same model as the DRN, the writers, the round trip.
    let found = ExplicitFiles::find(&tra).unwrap();
    assert_eq!(found.lab, path("lab"), "{id}: .lab");
    assert_eq!(found.sta, path("sta"), "{id}: .sta");
    let hint = (model.model_type == ModelType::Ctmc).then_some(ModelType::Ctmc);
    let start = Instant::now();
    let explicit = load(&tra, hint).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{id}: explicit files loaded in {:.2} s", start.elapsed().as_secs_f64());
    let matrix_and_labels = Compare { rewards: false, actions: true, valuations: false };
    assert_same(&model, &explicit, &format!("{id}: DRN against .tra/.lab"), matrix_and_labels);
    assert_eq!(
        explicit.labelling.states("deadlock").map(<[u32]>::len),
        Some(model.labelling.states("deadlock").map_or(0, <[u32]>::len)),
        "{id}: the .lab declares deadlock"
    );
    check_state_rewards(id, &model, &explicit);
    for (_, trew) in &found.transition_rewards {
        check_transition_rewards(id, &model, trew);
    }

    let mut written = Vec::new();
    write_tra(&explicit, &mut written, "written.tra").unwrap();
    assert_same_text(&written, &bytes_of(&tra), &format!("{id}: .tra"));
    let mut written = Vec::new();
    write_lab(&model, &mut written, "written.lab").unwrap();
    assert_same_text(&written, &bytes_of(found.lab.as_ref().unwrap()), &format!("{id}: .lab from the DRN"));
    if let Some(sta) = &found.sta {
        let mut written = Vec::new();
        write_sta(explicit.valuations.as_ref().unwrap(), explicit.states(), &mut written, "written.sta").unwrap();
        assert_same_text(&written, &bytes_of(sta), &format!("{id}: .sta"));
    }
    for (name, srew) in &found.state_rewards {
        let rewards = explicit.rewards.iter().find(|r| &r.name == name).unwrap().state.as_ref().unwrap();
        let mut written = Vec::new();
        write_srew(rewards, &mut written, "written.srew").unwrap();
        assert_same_text(&written, &bytes_of(srew), &format!("{id}: {}", srew.display()));
    }

    // Round trip through files, compressed as the shared ones are.
    let scratch = scratch_dir(id);
    let gz = if tra.extension().is_some_and(|e| e == "gz") { ".gz" } else { "" };
    let saved = scratch.join(format!("{id}.tra{gz}"));
    save(&saved, &explicit).unwrap();
    let back = load(&saved, hint).unwrap();
    assert_same(&explicit, &back, &format!("{id}: explicit round trip"), EVERYTHING);
    let saved = scratch.join(format!("{id}.drn{gz}"));
    save(&saved, &model).unwrap();
    assert_same(&model, &load(&saved, None).unwrap(), &format!("{id}: DRN file round trip"), EVERYTHING);
    std::fs::remove_dir_all(&scratch).ok();
}

macro_rules! instances {
    ($($test:ident => $id:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check_instance($id);
            }
        )*
        /// The instances with a test above.
        const TESTED: &[&str] = &[$($id),*];
    };
}

instances! {
    haddad_monmege_20 => "haddad-monmege-20",
    herman_3 => "herman-3",
    brp_16_2 => "brp-16-2",
    brp_64_5 => "brp-64-5",
    herman_11 => "herman-11",
    nand_20_1 => "nand-20-1",
    nand_40_1 => "nand-40-1",
    ij_3 => "ij-3",
    consensus_2_2 => "consensus-2-2",
    firewire_abst_3 => "firewire_abst-3",
    philosophers_mdp_3 => "philosophers-mdp-3",
    rabin_3 => "rabin-3",
    ij_10 => "ij-10",
    pnueli_zuck_3 => "pnueli-zuck-3",
    csma_2_4 => "csma-2-4",
    consensus_4_2 => "consensus-4-2",
    wlan_1_2 => "wlan-1-2",
    zeroconf_20_2_false => "zeroconf-20-2-false",
    rectangle_tireworld_5 => "rectangle-tireworld-5",
    cdrive_10 => "cdrive-10",
    resource_gathering_200_15_15 => "resource-gathering-200-15-15",
    resource_gathering_1300_100_100 => "resource-gathering-1300-100-100",
    tandem_5 => "tandem-5",
    cluster_2 => "cluster-2",
    embedded_2 => "embedded-2",
    kanban_3 => "kanban-3",
    cluster_64 => "cluster-64",
    tandem_1023 => "tandem-1023",
}

/// Every instance of the reference tables, and every instance folder, has a test above.
#[test]
fn every_instance_is_tested() {
    let dir = markov_dir();
    let mut listed: Vec<String> = references(&dir).into_keys().collect();
    let mut tested: Vec<String> = TESTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    tested.sort();
    assert_eq!(listed, tested);
    let mut folders = Vec::new();
    for kind in ["dtmc", "mdp", "ctmc"] {
        for entry in std::fs::read_dir(dir.join(kind)).unwrap() {
            folders.push(entry.unwrap().file_name().into_string().unwrap());
        }
    }
    folders.sort();
    assert_eq!(folders, tested);
}
