//! DVE's dependency matrices (`Model::dependencies`) are sound: every step changes only
//! words that the groups it fired may write, on our own models and on the small BEEM
//! instances (plain and, through the Büchi product's matrices, with property
//! processes), over their first reachable states.

use std::collections::{HashSet, VecDeque};

use warpcheck_conformance::{beem_dir, load_file, references};
use warpcheck_model::{Model, Successors};

/// Checks the first `limit` states of `model` breadth first; the first violation found.
fn check(name: &str, model: &impl Model, limit: usize) -> Result<usize, String> {
    let deps = model.dependencies().ok_or(format!("{name}: no dependencies"))?;
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut queue = VecDeque::from([model.initial_state()]);
    let mut steps = model.successors();
    let mut checked = 0;
    while let Some(state) = queue.pop_front() {
        if seen.len() >= limit || !seen.insert(state.clone()) {
            continue;
        }
        let mut failure = None;
        steps.successors(&state, |step, result| {
            let Ok(target) = result else { return };
            checked += 1;
            let changed = (0..state.len()).filter(|&w| state[w] != target[w]);
            for w in changed {
                // Only the automaton moved (stuttering): its word is in every row.
                let allowed = step.groups.is_empty() && deps.may_write.iter().all(|row| row[w])
                    || step.groups.iter().any(|&g| deps.may_write[g as usize][w]);
                if !allowed && failure.is_none() {
                    failure = Some(format!("{name}: groups {:?} changed word {w} outside may-write", step.groups));
                }
            }
            queue.push_back(target.to_vec());
        });
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(checked)
}

#[test]
fn own_models_write_only_what_they_may() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut checked = 0;
    for dir in ["examples", "tests/models/semantics", "tests/models/ltl"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "dve") {
                let dve = load_file(&path);
                let name = path.display().to_string();
                checked += match dve.model.product() {
                    Some(product) => check(&name, &product, 5_000).unwrap(),
                    None => check(&name, &dve.model, 5_000).unwrap(),
                };
            }
        }
    }
    assert!(checked > 1_000, "only {checked} steps checked");
}

#[test]
fn small_beem_instances_write_only_what_they_may() {
    let beem = beem_dir();
    let failures: Vec<String> = references(&beem)
        .iter()
        .filter(|r| r.states <= 20_000)
        .flat_map(|r| {
            let dir = r.model_path(&beem).parent().unwrap().to_path_buf();
            let props = std::fs::read_dir(&dir).unwrap().filter_map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name()?.to_str()?.to_string();
                name.starts_with(&format!("{}.prop", r.instance)).then_some(p)
            });
            std::iter::once(r.model_path(&beem)).chain(props).collect::<Vec<_>>()
        })
        .filter_map(|path| {
            let (name, model) = (path.display().to_string(), load_file(&path).model);
            match model.product() {
                Some(product) => check(&name, &product, 2_000).err(),
                None => check(&name, &model, 2_000).err(),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
