//! The DRN writer: Storm's layout, numbers as `%.17g`.

use std::io::Write;

use crate::error::Error;
use crate::number::push_g17;
use crate::sparse::{ModelType, RewardModel, SparseModel};
use crate::writing::{self, itoa, Output, StateLabels};

const FORMAT: &str = "DRN";

/// Writes `model` in Storm's DRN layout to `out`, naming it `file` in errors.
pub fn write<W: Write>(model: &SparseModel, out: W, file: &str) -> Result<(), Error> {
    writing::check(model, file, FORMAT)?;
    let unwritable = |reason: String| Error::Unwritable { file: file.to_string(), format: FORMAT, reason };
    let states = model.states();

    // Labels: `init` from the initial states, the others sorted by name as Storm does.
    let mut labels: Vec<(&str, &[u32])> = vec![("init", &model.initial)];
    labels.extend(model.labelling.labels.iter().filter(|(n, _)| n != "init").map(|(n, s)| (n.as_str(), s.as_slice())));
    labels.sort_by(|a, b| a.0.cmp(b.0));
    for (name, _) in &labels {
        if name.is_empty() || name.contains(['"', '\n']) {
            return Err(unwritable(format!("the label {name:?} (empty or with a quote or line break)")));
        }
    }
    let state_labels = StateLabels::new(&labels, states);

    // Reward models: names, and one action reward per row (transition rewards that are
    // equal within each row are action rewards).
    if model.rewards.len() > 1 && model.rewards.iter().any(|r| r.name.is_empty()) {
        return Err(unwritable("an unnamed reward model beside others (DRN names them on one line)".into()));
    }
    let mut action_rewards: Vec<Option<Vec<f64>>> = Vec::with_capacity(model.rewards.len());
    for r in &model.rewards {
        if r.name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(unwritable(format!("the reward model name {:?} has white space", r.name)));
        }
        action_rewards.push(action_rewards_of(model, r).map_err(&unwritable)?);
    }
    for name in &model.action_names {
        if !name.is_empty()
            && (name.bytes().all(|b| b.is_ascii_digit())
                || name.contains(|c: char| c.is_ascii_whitespace() || c == '['))
        {
            return Err(unwritable(format!("the action name {name:?} (a number, or with white space or `[`)")));
        }
    }

    let mut out = Output::new(out, file);
    let type_name = match model.model_type {
        ModelType::Dtmc => "DTMC",
        ModelType::Ctmc => "CTMC",
        ModelType::Mdp => "MDP",
    };
    let t = &mut out.text;
    t.push_str("// Exported by warpcheck\n// Original model type: ");
    t.push_str(type_name);
    t.push_str("\n@type: ");
    t.push_str(type_name);
    t.push_str("\n@value_type: double\n@parameters\n\n@reward_models\n");
    for r in &model.rewards {
        t.push_str(&r.name);
        t.push(' ');
    }
    t.push_str(&format!("\n@nr_states\n{states}\n@nr_choices\n{}\n@model\n", model.choices()));
    for s in 0..states {
        let t = &mut out.text;
        t.push_str("state ");
        t.push_str(itoa(s as u64, &mut [0; 20]));
        if model.model_type == ModelType::Ctmc {
            t.push_str(" !");
            let rows = model.rows(s as u32);
            let exit = model.values[model.entries(rows.start)].iter().fold(0.0, |sum, v| sum + v);
            push_g17(t, exit);
        }
        push_bracket(t, model.rewards.iter().map(|r| r.state.as_ref().map_or(0.0, |v| v[s])));
        for &l in state_labels.of(s) {
            let name = labels[l].0;
            t.push(' ');
            if name.contains(|c: char| c.is_ascii_whitespace()) || name.starts_with(['!', '[']) {
                t.push('"');
                t.push_str(name);
                t.push('"');
            } else {
                t.push_str(name);
            }
        }
        t.push('\n');
        let rows = model.rows(s as u32);
        for row in rows.clone() {
            let t = &mut out.text;
            t.push_str("\taction ");
            let name = model.row_actions.get(row as usize).map_or("", |&a| model.action_names[a as usize].as_str());
            if name.is_empty() {
                t.push_str(itoa(row - rows.start, &mut [0; 20]));
            } else {
                t.push_str(name);
            }
            push_bracket(t, action_rewards.iter().map(|a| a.as_ref().map_or(0.0, |v| v[row as usize])));
            t.push('\n');
            for (target, value) in model.row(row) {
                t.push_str("\t\t");
                t.push_str(itoa(target as u64, &mut [0; 20]));
                t.push_str(" : ");
                push_g17(t, value);
                t.push('\n');
            }
            out.flush_if_full()?;
        }
    }
    out.finish()
}

/// The action rewards of `r` (its choice rewards plus its transition rewards, which must
/// be equal within each row), or `None` when it has neither.
fn action_rewards_of(model: &SparseModel, r: &RewardModel) -> Result<Option<Vec<f64>>, String> {
    let Some(transition) = &r.transition else {
        return Ok(r.choice.clone());
    };
    let mut rewards = r.choice.clone().unwrap_or_else(|| vec![0.0; model.choices() as usize]);
    for (row, reward) in rewards.iter_mut().enumerate() {
        let entries = &transition[model.entries(row as u64)];
        let first = entries.first().copied().unwrap_or(0.0);
        if entries.iter().any(|&x| x.to_bits() != first.to_bits()) {
            return Err(format!(
                "reward model `{}` has transition rewards that differ within row {row} (DRN has action rewards only)",
                r.name
            ));
        }
        *reward += first;
    }
    Ok(Some(rewards))
}

/// Appends ` [v1, v2, ...]`, or nothing for no values.
fn push_bracket(t: &mut String, values: impl Iterator<Item = f64>) {
    let mut first = true;
    for v in values {
        t.push_str(if first { " [" } else { ", " });
        first = false;
        push_g17(t, v);
    }
    if !first {
        t.push(']');
    }
}
