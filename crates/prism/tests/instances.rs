//! Every PRISM-language instance of `shared/markov` (QComp models with Storm's
//! exports): built from the source, the extra labels and the constants, then held to
//! `reference.json` / `reference-ctmc-rewards.json` (states, transitions, choices,
//! initial states, label sizes) and, where the instance ships `.sta` + `.tra`, to
//! Storm's matrix state by state through the variable values, with the labels of
//! `.lab` and the reward rates of `.srew`; MDP action rewards are held to `.trew`.
//!
//! The states are numbered as Storm numbers them (checked on every instance with a
//! `.tra`). No instance takes more than 20 s (the test profile is optimised; the
//! largest, `tandem-1023`, builds in about 2 s), so none is gated behind
//! `WARPCHECK_LONG=1`.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use warpcheck_markov::{BuildOptions, SparseModel};

mod common;
use common::markov_dir;

/// The text of `path` or of `path.gz`, if either exists.
fn read_maybe_gz(path: &Path) -> Option<String> {
    if path.is_file() {
        return Some(std::fs::read_to_string(path).expect("read"));
    }
    let gz = PathBuf::from(format!("{}.gz", path.display()));
    if gz.is_file() {
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&gz).expect("open"))
            .read_to_string(&mut text)
            .expect("gunzip");
        return Some(text);
    }
    None
}

fn reference(dir: &Path, id: &str) -> serde_json::Value {
    for file in ["reference.json", "reference-ctmc-rewards.json"] {
        let text = std::fs::read_to_string(dir.join(file)).expect("read reference");
        let json: serde_json::Value = serde_json::from_str(&text).expect("parse reference");
        if let Some(found) = json["instances"].as_array().and_then(|a| a.iter().find(|i| i["id"] == id)) {
            return found.clone();
        }
    }
    panic!("no reference entry for {id}");
}

/// The instance's model: source + extra labels, with its constants.
fn build(folder: &Path) -> SparseModel {
    let model = common::load_instance(folder);
    model.build(&BuildOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// Holds the built model to Storm's explicit export, read by `warpcheck_markov::load`:
/// state by state through the variable values of `.sta`, or by index where the
/// instance ships no `.sta` (then the state numbering must be Storm's). Returns whether
/// the numbering is Storm's, `None` without a `.tra`.
fn compare_with_export(folder: &Path, id: &str, m: &SparseModel) -> Option<bool> {
    let tra = ["tra", "tra.gz"].iter().map(|e| folder.join(format!("{id}.{e}"))).find(|p| p.exists())?;
    let theirs = warpcheck_markov::load(&tra, Some(m.model_type)).unwrap_or_else(|e| panic!("{id}: {e}"));
    assert_eq!(theirs.states(), m.states(), "{id}: state count");
    let map: Vec<u32> = match &theirs.valuations {
        Some(sta) => {
            let val = m.valuations.as_ref().expect("valuations");
            assert_eq!(val.names, sta.names, "{id}: variable order differs from the .sta");
            let by_values: HashMap<&[i64], u32> = (0..theirs.states() as u32).map(|s| (sta.of(s), s)).collect();
            (0..m.states() as u32)
                .map(|s| {
                    *by_values
                        .get(val.of(s))
                        .unwrap_or_else(|| panic!("{id}: state {s} {:?} is not in the .sta", val.of(s)))
                })
                .collect()
        }
        None => (0..m.states() as u32).collect(),
    };
    for s in 0..m.states() as u32 {
        let r = map[s as usize];
        let storm: Vec<Vec<(u32, f64)>> = theirs.rows(r).map(|row| theirs.row(row).collect()).collect();
        let mut unmatched: Vec<Option<&Vec<(u32, f64)>>> = storm.iter().map(Some).collect();
        assert_eq!(m.rows(s).count(), unmatched.len(), "{id}: choices of state {s} (Storm's {r})");
        for row in m.rows(s) {
            let mut mine: Vec<(u32, f64)> = m.row(row).map(|(t, v)| (map[t as usize], v)).collect();
            mine.sort_by_key(|e| e.0);
            let matching = unmatched.iter_mut().find(|t| {
                t.is_some_and(|t| {
                    t.len() == mine.len() && t.iter().zip(&mine).all(|(a, b)| a.0 == b.0 && close(a.1, b.1))
                })
            });
            match matching {
                Some(slot) => *slot = None,
                None => panic!("{id}: row {mine:?} of state {s} (Storm's {r}) is not among Storm's {storm:?}"),
            }
        }
    }
    let labels_per_state = |model: &SparseModel| {
        let mut per_state = vec![Vec::new(); model.states()];
        for (name, states) in &model.labelling.labels {
            for &s in states {
                per_state[s as usize].push(name.clone());
            }
        }
        per_state.iter_mut().for_each(|names| names.sort());
        per_state
    };
    if !theirs.labelling.labels.is_empty() {
        let (mine, storm) = (labels_per_state(m), labels_per_state(&theirs));
        for s in 0..m.states() {
            assert_eq!(mine[s], storm[map[s] as usize], "{id}: labels of state {s}");
        }
    }
    // Reward rates (`.srew`): state reward, plus the exit rate times the action reward
    // in a CTMC.
    for reward in &m.rewards {
        let Some(storm) = theirs.rewards.iter().find(|r| r.name == reward.name).and_then(|r| r.state.as_ref()) else {
            continue;
        };
        for s in 0..m.states() as u32 {
            let mut rate = reward.state.as_ref().map_or(0.0, |r| r[s as usize]);
            if let Some(choice) = &reward.choice {
                let row = m.rows(s).start;
                let exit: f64 = m.row(row).map(|e| e.1).sum();
                rate += exit * choice[row as usize];
            }
            let want = storm[map[s as usize] as usize];
            assert!(
                (rate - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{id}: reward {} of state {s}: {rate} vs {want}",
                reward.name
            );
        }
    }
    if let Some(s) = (0..map.len()).find(|&s| map[s] != s as u32) {
        eprintln!("{id}: state {s} is Storm's state {}", map[s]);
    }
    Some(map.iter().enumerate().all(|(s, &r)| s as u32 == r))
}

/// Action rewards of an MDP (`.trew`: `<from> <choice> <to> <reward>` for every entry
/// of a rewarded choice), by Storm's state and choice numbers, which must be ours.
fn compare_transition_rewards(folder: &Path, id: &str, m: &SparseModel) -> usize {
    let mut compared = 0;
    for reward in &m.rewards {
        let Some(text) = read_maybe_gz(&folder.join(format!("{id}.{}.trew", reward.name))) else { continue };
        let choice = reward.choice.as_ref().expect("action rewards");
        let mut theirs = vec![0.0; choice.len()];
        for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (s, c): (u32, u64) = (f[0].parse().unwrap(), f[1].parse().unwrap());
            theirs[(m.rows(s).start + c) as usize] = f[3].parse().unwrap();
        }
        for (row, (a, b)) in choice.iter().zip(&theirs).enumerate() {
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{id}: reward {} of row {row}: {a} vs {b}", reward.name);
        }
        compared += 1;
    }
    compared
}

fn check_instance(kind: &str, id: &str) {
    let dir = markov_dir();
    let folder = dir.join(kind).join(id);
    let started = std::time::Instant::now();
    let m = build(&folder);
    let built = started.elapsed();
    let r = reference(&dir, id);
    assert_eq!(m.states() as u64, r["states"].as_u64().unwrap(), "{id}: states");
    assert_eq!(m.transitions(), r["transitions"].as_u64().unwrap(), "{id}: transitions");
    if kind == "mdp" {
        assert_eq!(m.choices(), r["choices"].as_u64().unwrap(), "{id}: choices");
    }
    let initial: Vec<u32> =
        r["initial_states"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    assert_eq!(m.initial.len(), initial.len(), "{id}: initial states");
    for (label, count) in r["labels"].as_object().unwrap() {
        let mine = m.labelling.states(label).unwrap_or_else(|| panic!("{id}: no label {label}"));
        assert_eq!(mine.len() as u64, count.as_u64().unwrap(), "{id}: label {label}");
    }
    // Storm's exploration order is reproduced exactly: same state numbers.
    let storm_order = compare_with_export(&folder, id, &m);
    assert_ne!(storm_order, Some(false), "{id}: the states are not numbered as Storm numbers them");
    assert_eq!(m.initial, initial, "{id}: initial states");
    let trew = compare_transition_rewards(&folder, id, &m);
    eprintln!(
        "{id}: {} states, {} transitions, built in {:.2?}; {trew} .trew compared; Storm's state order: {}",
        m.states(),
        m.transitions(),
        built,
        match storm_order {
            Some(true) => "yes",
            Some(false) => "no",
            None => "not checked (no .tra)",
        }
    );
}

macro_rules! instances {
    ($($name:ident: $kind:literal $id:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check_instance($kind, $id);
            }
        )*
    };
}

instances! {
    haddad_monmege_20: "dtmc" "haddad-monmege-20";
    herman_3: "dtmc" "herman-3";
    herman_11: "dtmc" "herman-11";
    brp_16_2: "dtmc" "brp-16-2";
    brp_64_5: "dtmc" "brp-64-5";
    nand_20_1: "dtmc" "nand-20-1";
    nand_40_1: "dtmc" "nand-40-1";
    ij_3: "mdp" "ij-3";
    ij_10: "mdp" "ij-10";
    consensus_2_2: "mdp" "consensus-2-2";
    consensus_4_2: "mdp" "consensus-4-2";
    firewire_abst_3: "mdp" "firewire_abst-3";
    philosophers_mdp_3: "mdp" "philosophers-mdp-3";
    pnueli_zuck_3: "mdp" "pnueli-zuck-3";
    rabin_3: "mdp" "rabin-3";
    csma_2_4: "mdp" "csma-2-4";
    wlan_1_2: "mdp" "wlan-1-2";
    zeroconf_20_2_false: "mdp" "zeroconf-20-2-false";
    resource_gathering_200_15_15: "mdp" "resource-gathering-200-15-15";
    resource_gathering_1300_100_100: "mdp" "resource-gathering-1300-100-100";
    tandem_5: "ctmc" "tandem-5";
    tandem_1023: "ctmc" "tandem-1023";
    cluster_2: "ctmc" "cluster-2";
    cluster_64: "ctmc" "cluster-64";
    embedded_2: "ctmc" "embedded-2";
    kanban_3: "ctmc" "kanban-3";
}

/// Every instance folder with a PRISM source is listed above (and the JANI ones are
/// not).
#[test]
fn every_prism_instance_is_tested() {
    let dir = markov_dir();
    let listed = [
        "haddad-monmege-20",
        "herman-3",
        "herman-11",
        "brp-16-2",
        "brp-64-5",
        "nand-20-1",
        "nand-40-1",
        "ij-3",
        "ij-10",
        "consensus-2-2",
        "consensus-4-2",
        "firewire_abst-3",
        "philosophers-mdp-3",
        "pnueli-zuck-3",
        "rabin-3",
        "csma-2-4",
        "wlan-1-2",
        "zeroconf-20-2-false",
        "resource-gathering-200-15-15",
        "resource-gathering-1300-100-100",
        "tandem-5",
        "tandem-1023",
        "cluster-2",
        "cluster-64",
        "embedded-2",
        "kanban-3",
    ];
    let mut found = Vec::new();
    for kind in ["dtmc", "mdp", "ctmc"] {
        for entry in std::fs::read_dir(dir.join(kind)).expect("list") {
            let path = entry.expect("entry").path();
            let has_prism = std::fs::read_dir(&path).expect("list").any(|f| {
                let name = f.expect("entry").file_name().to_string_lossy().to_string();
                (name.ends_with(".prism") || name.ends_with(".pm")) && name != "extra_labels.prism"
            });
            if has_prism {
                found.push(path.file_name().unwrap().to_string_lossy().to_string());
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

/// The parallel builder numbers states as a sequential search does: the model does
/// not depend on the number of threads (an MDP with rewards, a CTMC, a DTMC with
/// several initial states).
#[test]
fn the_model_does_not_depend_on_the_number_of_threads() {
    let dir = markov_dir();
    for (kind, id) in [("mdp", "consensus-2-2"), ("ctmc", "kanban-3"), ("dtmc", "herman-11"), ("mdp", "csma-2-4")] {
        let folder = dir.join(kind).join(id);
        let with = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            pool.install(|| build(&folder))
        };
        let one = with(1);
        assert_eq!(one, with(3), "{id}: 1 thread vs 3");
        assert_eq!(one, with(8), "{id}: 1 thread vs 8");
    }
}
