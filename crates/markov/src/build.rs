//! The builder: any [`Model`] whose steps carry weights, explored into a
//! [`SparseModel`] (DTMC, CTMC or MDP).
//!
//! Sequential breadth-first exploration from the initial states, as Storm's explicit
//! builder does: states are numbered in discovery order, the initial states first (in
//! the model's order), then the successors of state 0, of state 1, ... in the order
//! the model emits them. The rows follow the waist's choice convention (see
//! [`warpcheck_model::Step`]): consecutive emits with equal `groups` form one choice,
//! each emit one branch with its probability (or rate) in `weight` (`None` reads as
//! 1). Then:
//!
//! - MDP: one row per choice;
//! - DTMC: all choices of a state fused into one row, each divided by the number of
//!   choices (PRISM and Storm);
//! - CTMC: the rates of all choices summed into one row;
//!
//! entries with the same target summed, columns sorted. A state without any choice
//! (a deadlock) gets a self-loop of probability (rate) 1 and the label `deadlock`;
//! `init` labels the initial states; the model's labels follow. Reward structures and
//! variable valuations come from the model's [`Annotations`]. A step or label that
//! raises an evaluation error stops the build with a [`BuildError`] naming the state
//! (its valuation) and the step: no state is ever dropped.
//!
//! The state store is an open-addressing table of indices into one flat arena of
//! state vectors. A parallel builder and a GPU one can be added beside this one: they
//! need the same per-state assembly ([`assemble`]), which depends on nothing but the
//! emits of one state.

use rustc_hash::FxHasher;
use std::hash::Hasher;

use warpcheck_model::{EvalError, Model, Step, Successors};

use crate::sparse::{Labelling, ModelType, RewardModel, SparseModel, Valuations};

/// What a reward structure holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewardInfo {
    /// Its name (`""` for an unnamed structure).
    pub name: String,
    /// Whether it has state rewards.
    pub state: bool,
    /// Whether it has action (choice) rewards.
    pub action: bool,
}

/// What a Markov model has beyond a [`Model`]: reward structures and the variable
/// values of states. Every method has a default meaning "none".
pub trait Annotations {
    /// The reward structures.
    fn reward_structures(&self) -> Vec<RewardInfo> {
        Vec::new()
    }
    /// The state reward of structure `structure` in `state`.
    fn state_reward(&self, _structure: usize, _state: &[u32]) -> Result<f64, EvalError> {
        Ok(0.0)
    }
    /// The action reward of structure `structure` for the choice made of `groups` in
    /// `state` (the `groups` of the choice's steps).
    fn choice_reward(&self, _structure: usize, _state: &[u32], _groups: &[u32]) -> Result<f64, EvalError> {
        Ok(0.0)
    }
    /// The variables: name and whether it is a Boolean. Empty when unknown.
    fn variables(&self) -> Vec<(String, bool)> {
        Vec::new()
    }
    /// The values of the variables in `state`, appended to `out`.
    fn valuation(&self, _state: &[u32], _out: &mut Vec<i64>) {}
}

/// A model without rewards or valuations.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAnnotations;

impl Annotations for NoAnnotations {}

/// How to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Stop with [`BuildError::TooManyStates`] past this many states.
    pub max_states: Option<usize>,
    /// Record the variable values of every state.
    pub valuations: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { max_states: None, valuations: true }
    }
}

/// Why a build stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// A step raised an evaluation error.
    #[error("{error}, in state ({state}), taking {step}")]
    Step {
        /// The state's variables.
        state: String,
        /// The step, as the model describes it.
        step: String,
        /// The error, as the model describes it.
        error: String,
    },
    /// Evaluating a label raised an error.
    #[error("{error}, evaluating label `{label}` in state ({state})")]
    Label {
        /// The label's name.
        label: String,
        /// The state's variables.
        state: String,
        /// The error.
        error: String,
    },
    /// Evaluating a reward raised an error.
    #[error("{error}, evaluating reward structure \"{structure}\" in state ({state})")]
    Reward {
        /// The structure's name.
        structure: String,
        /// The state's variables.
        state: String,
        /// The error.
        error: String,
    },
    /// A probability or rate that is not positive and finite, or a DTMC/MDP choice
    /// whose probabilities do not sum to 1.
    #[error("{what} in state ({state}), taking {step}")]
    BadWeight {
        /// What is wrong with it.
        what: String,
        /// The state's variables.
        state: String,
        /// The step.
        step: String,
    },
    /// More states than [`BuildOptions::max_states`].
    #[error("the model has more than {limit} states")]
    TooManyStates {
        /// The limit.
        limit: usize,
    },
    /// The model has no initial state.
    #[error("the model has no initial state")]
    NoInitialState,
}

/// How far the probabilities of a DTMC or MDP choice may sum from 1 (PRISM's check).
pub const SUM_TOLERANCE: f64 = 1e-6;

/// Builds the Markov model of type `model_type` reachable from `model`'s initial
/// states, with the rewards and valuations of `annotations`.
pub fn build<M: Model, A: Annotations + ?Sized>(
    model: &M,
    model_type: ModelType,
    annotations: &A,
    options: &BuildOptions,
) -> Result<SparseModel, BuildError> {
    let words = model.state_words();
    let mut store = StateStore::new(words);
    let mut out = SparseModel::new(model_type);
    let limit = options.max_states.unwrap_or(usize::MAX);
    for s in model.initial_states() {
        let (id, _) = store.insert(&s);
        if store.len() > limit {
            return Err(BuildError::TooManyStates { limit });
        }
        out.initial.push(id);
    }
    if out.initial.is_empty() {
        return Err(BuildError::NoInitialState);
    }
    out.initial.sort_unstable();
    out.initial.dedup();

    let rewards = annotations.reward_structures();
    let mut state_rewards: Vec<Vec<f64>> = vec![Vec::new(); rewards.len()];
    let mut choice_rewards: Vec<Vec<f64>> = vec![Vec::new(); rewards.len()];
    let mut deadlocks = Vec::new();
    let mut worker = model.successors();
    let mut current = vec![0u32; words];
    let mut emits = Emits::default();
    let mut row = Vec::new();
    let describe_state = |s: &[u32]| model.describe_state(s).join(", ");

    let mut next = 0u32;
    while (next as usize) < store.len() {
        let s = next;
        next += 1;
        current.copy_from_slice(store.get(s));
        emits.clear();
        let mut failure: Option<(Vec<u32>, EvalError)> = None;
        let mut too_many = false;
        worker.successors(&current, |step: Step<'_>, result| {
            if failure.is_some() || too_many {
                return;
            }
            match result {
                Err(e) => failure = Some((step.groups.to_vec(), e)),
                Ok(target) => {
                    let (id, _) = store.insert(target);
                    too_many |= store.len() > limit;
                    emits.push(step.groups, id, step.weight.unwrap_or(1.0));
                }
            }
        });
        if too_many {
            return Err(BuildError::TooManyStates { limit });
        }
        if let Some((groups, e)) = failure {
            let step = Step { groups: &groups, property: None, weight: None };
            return Err(BuildError::Step {
                state: describe_state(&current),
                step: model.describe_step(&step),
                error: model.describe_error(&e),
            });
        }
        for (k, info) in rewards.iter().enumerate() {
            if info.state {
                let r = annotations.state_reward(k, &current).map_err(|e| BuildError::Reward {
                    structure: info.name.clone(),
                    state: describe_state(&current),
                    error: model.describe_error(&e),
                })?;
                state_rewards[k].push(r);
            }
        }
        let bad = |what: String, groups: &[u32]| BuildError::BadWeight {
            what,
            state: describe_state(&current),
            step: model.describe_step(&Step { groups, property: None, weight: None }),
        };
        if let Some((groups, w)) = emits.bad_weight() {
            return Err(bad(format!("probability or rate {w} is not positive and finite"), groups));
        }
        if model_type != ModelType::Ctmc {
            if let Some((groups, sum)) = emits.not_stochastic() {
                return Err(bad(format!("probabilities sum to {sum}, not 1"), groups));
            }
        }
        if emits.choices() == 0 {
            deadlocks.push(s);
            out.push_row(None);
            out.push_entry(s, 1.0);
            for (k, info) in rewards.iter().enumerate() {
                if info.action {
                    choice_rewards[k].push(0.0);
                }
            }
        } else {
            let rows = assemble(model_type, &emits, &mut row);
            for r in rows {
                out.push_row(None);
                for &(t, w) in r {
                    out.push_entry(t, w);
                }
            }
            for (k, info) in rewards.iter().enumerate() {
                if info.action {
                    let mut values = Vec::with_capacity(emits.choices());
                    for c in 0..emits.choices() {
                        let r = annotations.choice_reward(k, &current, emits.groups(c)).map_err(|e| {
                            BuildError::Reward {
                                structure: info.name.clone(),
                                state: describe_state(&current),
                                error: model.describe_error(&e),
                            }
                        })?;
                        values.push(r);
                    }
                    fuse_rewards(model_type, &emits, &values, &mut choice_rewards[k]);
                }
            }
        }
        out.end_state();
    }

    let mut labelling = Labelling::default();
    labelling.set("init", out.initial.clone());
    labelling.set("deadlock", deadlocks);
    for (id, label) in model.labels().iter().enumerate() {
        let mut states = Vec::new();
        for s in 0..store.len() as u32 {
            let holds = model.label(store.get(s), id).map_err(|e| BuildError::Label {
                label: label.name.clone(),
                state: describe_state(store.get(s)),
                error: model.describe_error(&e),
            })?;
            if holds {
                states.push(s);
            }
        }
        labelling.set(&label.name, states);
    }
    out.labelling = labelling;
    out.rewards = rewards
        .iter()
        .zip(state_rewards.into_iter().zip(choice_rewards))
        .map(|(info, (state, choice))| RewardModel {
            name: info.name.clone(),
            state: info.state.then_some(state),
            choice: info.action.then_some(choice),
            transition: None,
        })
        .collect();
    if options.valuations {
        let vars = annotations.variables();
        if !vars.is_empty() {
            let mut values = Vec::with_capacity(vars.len() * store.len());
            for s in 0..store.len() as u32 {
                annotations.valuation(store.get(s), &mut values);
            }
            out.valuations = Some(Valuations {
                names: vars.iter().map(|(n, _)| n.clone()).collect(),
                booleans: vars.iter().map(|&(_, b)| b).collect(),
                values,
            });
        }
    }
    Ok(out)
}

/// The emits of one state, grouped into choices.
#[derive(Clone, Debug, Default)]
pub struct Emits {
    /// `(target, weight)` of every emit, in order.
    entries: Vec<(u32, f64)>,
    /// Per choice: its first entry and the range of its groups in `groups`.
    choices: Vec<(usize, usize, usize)>,
    groups: Vec<u32>,
}

impl Emits {
    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.choices.clear();
        self.groups.clear();
    }

    /// Adds an emit; it starts a new choice unless `groups` equal the last choice's.
    pub fn push(&mut self, groups: &[u32], target: u32, weight: f64) {
        let same = self.choices.last().is_some_and(|&(_, g0, g1)| self.groups[g0..g1] == *groups);
        if !same {
            let g0 = self.groups.len();
            self.groups.extend_from_slice(groups);
            self.choices.push((self.entries.len(), g0, self.groups.len()));
        }
        self.entries.push((target, weight));
    }

    /// Number of choices.
    pub fn choices(&self) -> usize {
        self.choices.len()
    }

    /// The groups of choice `c`.
    pub fn groups(&self, c: usize) -> &[u32] {
        let (_, g0, g1) = self.choices[c];
        &self.groups[g0..g1]
    }

    /// The entries of choice `c`.
    pub fn entries(&self, c: usize) -> &[(u32, f64)] {
        let start = self.choices[c].0;
        let end = self.choices.get(c + 1).map_or(self.entries.len(), |n| n.0);
        &self.entries[start..end]
    }

    /// The sum of the weights of choice `c`.
    pub fn mass(&self, c: usize) -> f64 {
        self.entries(c).iter().map(|e| e.1).sum()
    }

    fn bad_weight(&self) -> Option<(&[u32], f64)> {
        (0..self.choices()).find_map(|c| {
            self.entries(c).iter().find(|e| !(e.1 > 0.0 && e.1.is_finite())).map(|e| (self.groups(c), e.1))
        })
    }

    fn not_stochastic(&self) -> Option<(&[u32], f64)> {
        (0..self.choices()).map(|c| (self.groups(c), self.mass(c))).find(|(_, m)| (m - 1.0).abs() > SUM_TOLERANCE)
    }
}

/// The rows of one state from its emits (at least one choice): one per choice (MDP)
/// or one fused row (DTMC, CTMC). `scratch` holds the rows' entries.
pub fn assemble<'s>(model_type: ModelType, emits: &Emits, scratch: &'s mut Vec<(u32, f64)>) -> Vec<&'s [(u32, f64)]> {
    scratch.clear();
    let mut bounds = Vec::new();
    match model_type {
        ModelType::Mdp => {
            for c in 0..emits.choices() {
                let start = scratch.len();
                scratch.extend_from_slice(emits.entries(c));
                merge(scratch, start);
                bounds.push((start, scratch.len()));
            }
        }
        ModelType::Dtmc | ModelType::Ctmc => {
            let n = emits.choices() as f64;
            for c in 0..emits.choices() {
                let start = scratch.len();
                scratch.extend_from_slice(emits.entries(c));
                merge(scratch, start);
                if model_type == ModelType::Dtmc && emits.choices() > 1 {
                    for e in &mut scratch[start..] {
                        e.1 /= n;
                    }
                }
            }
            merge(scratch, 0);
            bounds.push((0, scratch.len()));
        }
    }
    let scratch: &'s [(u32, f64)] = scratch;
    bounds.into_iter().map(|(a, b)| &scratch[a..b]).collect()
}

/// Sorts `v[start..]` by target and sums the weights of equal targets (in emit order).
fn merge(v: &mut Vec<(u32, f64)>, start: usize) {
    v[start..].sort_by_key(|e| e.0);
    let mut w = start;
    for r in start..v.len() {
        if w > start && v[w - 1].0 == v[r].0 {
            v[w - 1].1 += v[r].1;
        } else {
            v[w] = v[r];
            w += 1;
        }
    }
    v.truncate(w);
}

/// The action rewards of a state's rows: one per choice (MDP); for a fused row the
/// mean over the choices weighted by their mass, divided by the number of choices
/// (DTMC) or by the exit rate (CTMC), as Storm does.
fn fuse_rewards(model_type: ModelType, emits: &Emits, values: &[f64], out: &mut Vec<f64>) {
    if model_type == ModelType::Mdp {
        out.extend_from_slice(values);
        return;
    }
    if values.len() == 1 {
        out.push(values[0]);
        return;
    }
    let mut total = 0.0;
    let mut sum = 0.0;
    for (c, r) in values.iter().enumerate() {
        let mass = emits.mass(c);
        sum += r * mass;
        total += if model_type == ModelType::Dtmc { 1.0 } else { mass };
    }
    out.push(sum / total);
}

/// States as indices into a flat arena, found by an open-addressing table.
struct StateStore {
    words: usize,
    arena: Vec<u32>,
    /// Indices + 1 (0 is empty); a power-of-two length.
    table: Vec<u32>,
    len: usize,
}

impl StateStore {
    fn new(words: usize) -> StateStore {
        StateStore { words, arena: Vec::new(), table: vec![0; 1024], len: 0 }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, s: u32) -> &[u32] {
        &self.arena[s as usize * self.words..(s as usize + 1) * self.words]
    }

    fn hash(state: &[u32]) -> u64 {
        let mut h = FxHasher::default();
        for &w in state {
            h.write_u32(w);
        }
        // Spread the high bits down: the table uses the low ones.
        let x = h.finish();
        x ^ (x >> 29) ^ (x >> 43)
    }

    /// The id of `state`, inserted if new (then `true`).
    fn insert(&mut self, state: &[u32]) -> (u32, bool) {
        if (self.len + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut at = Self::hash(state) as usize & mask;
        loop {
            match self.table[at] {
                0 => {
                    let id = self.len as u32;
                    self.table[at] = id + 1;
                    self.arena.extend_from_slice(state);
                    self.len += 1;
                    return (id, true);
                }
                slot => {
                    if self.get(slot - 1) == state {
                        return (slot - 1, false);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let mut table = vec![0u32; self.table.len() * 2];
        let mask = table.len() - 1;
        for id in 0..self.len as u32 {
            let mut at = Self::hash(self.get(id)) as usize & mask;
            while table[at] != 0 {
                at = (at + 1) & mask;
            }
            table[at] = id + 1;
        }
        self.table = table;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emits(list: &[(&[u32], u32, f64)]) -> Emits {
        let mut e = Emits::default();
        for &(g, t, w) in list {
            e.push(g, t, w);
        }
        e
    }

    #[test]
    fn dtmc_fuses_choices_uniformly() {
        // Two choices: {1: 0.5, 2: 0.5} and {2: 1}: the row is {1: 0.25, 2: 0.75}.
        let e = emits(&[(&[0], 1, 0.5), (&[0], 2, 0.5), (&[1], 2, 1.0)]);
        assert_eq!(e.choices(), 2);
        let mut s = Vec::new();
        let rows = assemble(ModelType::Dtmc, &e, &mut s);
        assert_eq!(rows, vec![&[(1, 0.25), (2, 0.75)][..]]);
    }

    #[test]
    fn mdp_keeps_choices_and_ctmc_sums_rates() {
        let e = emits(&[(&[3], 5, 0.5), (&[3], 4, 0.25), (&[3], 5, 0.25), (&[1, 2], 4, 1.0)]);
        let mut s = Vec::new();
        let rows = assemble(ModelType::Mdp, &e, &mut s);
        assert_eq!(rows, vec![&[(4, 0.25), (5, 0.75)][..], &[(4, 1.0)][..]]);
        let rows = assemble(ModelType::Ctmc, &e, &mut s);
        assert_eq!(rows, vec![&[(4, 1.25), (5, 0.75)][..]]);
    }

    #[test]
    fn store_numbers_in_insertion_order_and_grows() {
        let mut store = StateStore::new(2);
        for i in 0..5000u32 {
            assert_eq!(store.insert(&[i, i ^ 7]), (i, true));
        }
        for i in 0..5000u32 {
            assert_eq!(store.insert(&[i, i ^ 7]), (i, false));
            assert_eq!(store.get(i), [i, i ^ 7]);
        }
    }
}
