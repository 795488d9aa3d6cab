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
//! Parallel on the current rayon pool, level by level, with the same numbering as a
//! sequential search: the states of a level are expanded by chunks on all threads
//! (successors, rewards and checks, targets kept as vectors), then numbered in order
//! on one thread (`StateStore`), then assembled into rows by chunks again
//! ([`assemble`]). The result does not depend on the number of threads; an error is
//! the one of the first failing state in that order.

use std::ops::Range;

use rayon::prelude::*;
use warpcheck_model::{EvalError, Model, Step, Successors};

use crate::assemble::{assemble, fuse_rewards, Emits};
use crate::sparse::{Labelling, ModelType, RewardModel, SparseModel, Valuations};
use crate::state_store::StateStore;

/// The most states a build numbers (`u32` ids; the store's table holds 2^32 slots at
/// most, half full): more is [`BuildError::TooManyStates`].
pub const MAX_STATES: usize = (1 << 31) - 1;

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
    /// A state space explored elsewhere ([`crate::recorded`]) does not hold together.
    #[error("the recorded state space is inconsistent: {what}")]
    Inconsistent {
        /// What is wrong.
        what: String,
    },
}

/// Builds the Markov model of type `model_type` reachable from `model`'s initial
/// states, with the rewards and valuations of `annotations`, on the current rayon
/// pool.
pub fn build<M: Model, A: Annotations + Sync + ?Sized>(
    model: &M,
    model_type: ModelType,
    annotations: &A,
    options: &BuildOptions,
) -> Result<SparseModel, BuildError> {
    let words = model.state_words();
    let mut store = StateStore::new(words);
    let mut out = SparseModel::new(model_type);
    let limit = options.max_states.unwrap_or(usize::MAX).min(MAX_STATES);
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
    let mut collected = Collected::new(rewards.len());
    let expander = Expander { model, model_type, annotations, rewards: &rewards };
    let threads = rayon::current_num_threads();
    let mut level = 0..store.len();
    while !level.is_empty() {
        // Chunks small enough to balance the threads, large enough to amortise.
        let chunk = (level.len() / (threads * 8)).clamp(16, 4096);
        let starts: Vec<usize> = level.clone().step_by(chunk).collect();
        let end = level.end;
        let store_ref = &store;
        let mut chunks: Vec<Result<Chunk, BuildError>> = starts
            .par_iter()
            .map_init(
                || model.successors(),
                |worker, &start| {
                    expander.expand_with(store_ref, start..(start + chunk).min(end), |_, current, chunk| {
                        let mut failure: Option<(Vec<u32>, EvalError)> = None;
                        worker.successors(current, |step: Step<'_>, result| {
                            if failure.is_some() {
                                return;
                            }
                            match result {
                                Err(e) => failure = Some((step.groups.to_vec(), e)),
                                Ok(target) => {
                                    let local = chunk.hashes.len() as u32;
                                    chunk.targets.extend_from_slice(&target[..words]);
                                    chunk.hashes.push(StateStore::hash(&target[..words]));
                                    chunk.emits.push(step.groups, local, step.weight.unwrap_or(1.0));
                                }
                            }
                        });
                        failure
                    })
                },
            )
            .collect();
        // Number the new states in order, as a sequential search would.
        for chunk in &mut chunks {
            let Ok(chunk) = chunk.as_mut() else { break };
            let mut ids = Vec::with_capacity(chunk.hashes.len());
            for (i, &h) in chunk.hashes.iter().enumerate() {
                ids.push(store.insert_hashed(&chunk.targets[i * words..(i + 1) * words], h).0);
                if store.len() > limit {
                    return Err(BuildError::TooManyStates { limit });
                }
            }
            chunk.emits.map_targets(|local| ids[local as usize]);
        }
        collected.add(chunks, model_type, &rewards, &mut out)?;
        level = end..store.len();
    }
    collected.finish(model, &store, annotations, &rewards, options, out)
}

/// The states of a build by id.
pub(crate) trait StateSource: Sync {
    fn len(&self) -> usize;
    fn get(&self, s: u32) -> &[u32];
}

impl StateSource for StateStore {
    fn len(&self) -> usize {
        StateStore::len(self)
    }
    fn get(&self, s: u32) -> &[u32] {
        StateStore::get(self, s)
    }
}

/// What a build collects besides the rows: deadlocks and rewards, in state order.
pub(crate) struct Collected {
    state_rewards: Vec<Vec<f64>>,
    choice_rewards: Vec<Vec<f64>>,
    deadlocks: Vec<u32>,
}

impl Collected {
    pub(crate) fn new(structures: usize) -> Self {
        Collected {
            state_rewards: vec![Vec::new(); structures],
            choice_rewards: vec![Vec::new(); structures],
            deadlocks: Vec::new(),
        }
    }

    /// Assembles consecutive chunks (targets numbered) in parallel and appends their
    /// rows in order; the first failed chunk's error stops the build.
    pub(crate) fn add(
        &mut self,
        chunks: Vec<Result<Chunk, BuildError>>,
        model_type: ModelType,
        rewards: &[RewardInfo],
        out: &mut SparseModel,
    ) -> Result<(), BuildError> {
        let chunks: Vec<Chunk> = chunks.into_iter().collect::<Result<_, _>>()?;
        let assembled: Vec<Rows> = chunks.par_iter().map(|c| c.assemble(model_type, rewards)).collect();
        for (rows, chunk) in assembled.into_iter().zip(&chunks) {
            rows.append_to(out);
            self.deadlocks.extend_from_slice(&rows.deadlocks);
            for (k, values) in rows.choice_rewards.into_iter().enumerate() {
                self.choice_rewards[k].extend(values);
            }
            for (k, values) in chunk.state_rewards.iter().enumerate() {
                self.state_rewards[k].extend_from_slice(values);
            }
        }
        Ok(())
    }

    /// The labels, reward models and valuations of the finished matrix `out`.
    pub(crate) fn finish<M: Model, A: Annotations + Sync + ?Sized, S: StateSource>(
        self,
        model: &M,
        states: &S,
        annotations: &A,
        rewards: &[RewardInfo],
        options: &BuildOptions,
        mut out: SparseModel,
    ) -> Result<SparseModel, BuildError> {
        out.labelling = labelling(model, states, out.initial.clone(), self.deadlocks)?;
        out.rewards = rewards
            .iter()
            .zip(self.state_rewards.into_iter().zip(self.choice_rewards))
            .map(|(info, (state, choice))| RewardModel {
                name: info.name.clone(),
                state: info.state.then_some(state),
                choice: info.action.then_some(choice),
                transition: None,
            })
            .collect();
        if options.valuations {
            out.valuations = valuations(annotations, states);
        }
        Ok(out)
    }
}

/// The labels: `init`, `deadlock`, then the model's, each evaluated on every state in
/// parallel.
fn labelling<M: Model, S: StateSource>(
    model: &M,
    store: &S,
    initial: Vec<u32>,
    deadlocks: Vec<u32>,
) -> Result<Labelling, BuildError> {
    let mut labelling = Labelling::default();
    labelling.set("init", initial);
    labelling.set("deadlock", deadlocks);
    for (id, label) in model.labels().iter().enumerate() {
        let holds: Vec<bool> = (0..store.len() as u32)
            .into_par_iter()
            .map(|s| {
                model.label(store.get(s), id).map_err(|e| BuildError::Label {
                    label: label.name.clone(),
                    state: model.describe_state(store.get(s)).join(", "),
                    error: model.describe_error(&e),
                })
            })
            .collect::<Result<_, _>>()?;
        let states = holds.iter().enumerate().filter(|(_, &h)| h).map(|(s, _)| s as u32).collect();
        labelling.set(&label.name, states);
    }
    Ok(labelling)
}

/// The variable values of every state, if the model names its variables.
fn valuations<A: Annotations + Sync + ?Sized, S: StateSource>(annotations: &A, store: &S) -> Option<Valuations> {
    let vars = annotations.variables();
    if vars.is_empty() {
        return None;
    }
    let per_chunk: Vec<Vec<i64>> = (0..store.len() as u32)
        .into_par_iter()
        .chunks(4096)
        .map(|states| {
            let mut values = Vec::with_capacity(states.len() * vars.len());
            for s in states {
                annotations.valuation(store.get(s), &mut values);
            }
            values
        })
        .collect();
    Some(Valuations {
        names: vars.iter().map(|(n, _)| n.clone()).collect(),
        booleans: vars.iter().map(|&(_, b)| b).collect(),
        values: per_chunk.concat(),
    })
}

/// The expanded states of a chunk: their emits (targets numbered within the chunk,
/// in `targets`, until the chunk is numbered), rewards and choices.
pub(crate) struct Chunk {
    /// Per state: its id and its range of choices in `emits`.
    states: Vec<(u32, Range<usize>)>,
    pub(crate) emits: Emits,
    /// The target vectors, `words` each.
    targets: Vec<u32>,
    /// Their hashes ([`StateStore::hash`]), computed on the chunk's thread.
    hashes: Vec<u64>,
    /// Per reward structure with state rewards: one value per state.
    state_rewards: Vec<Vec<f64>>,
    /// Per reward structure with action rewards: one value per choice of `emits`.
    choice_rewards: Vec<Vec<f64>>,
}

/// Expands states: what every thread shares.
pub(crate) struct Expander<'a, M, A: ?Sized> {
    pub(crate) model: &'a M,
    pub(crate) model_type: ModelType,
    pub(crate) annotations: &'a A,
    pub(crate) rewards: &'a [RewardInfo],
}

impl<M: Model, A: Annotations + ?Sized> Expander<'_, M, A> {
    /// Expands the states `ids` of `states`: `fill(id, state, chunk)` pushes the
    /// state's emits to `chunk.emits` (and may keep targets in the chunk) and returns
    /// the step that failed, if one did; then come the checks and the rewards.
    pub(crate) fn expand_with<S: StateSource>(
        &self,
        states: &S,
        ids: Range<usize>,
        mut fill: impl FnMut(u32, &[u32], &mut Chunk) -> Option<(Vec<u32>, EvalError)>,
    ) -> Result<Chunk, BuildError> {
        let model = self.model;
        let structures = self.rewards.len();
        let mut chunk = Chunk {
            states: Vec::with_capacity(ids.len()),
            emits: Emits::default(),
            targets: Vec::new(),
            hashes: Vec::new(),
            state_rewards: vec![Vec::new(); structures],
            choice_rewards: vec![Vec::new(); structures],
        };
        for id in ids {
            let current = states.get(id as u32);
            let first = chunk.emits.choices();
            chunk.emits.seal();
            let failure = fill(id as u32, current, &mut chunk);
            let choices = first..chunk.emits.choices();
            let emits = &chunk.emits;
            let describe_state = || model.describe_state(current).join(", ");
            let describe_step = |groups: &[u32]| model.describe_step(&Step { groups, property: None, weight: None });
            if let Some((groups, e)) = failure {
                return Err(BuildError::Step {
                    state: describe_state(),
                    step: describe_step(&groups),
                    error: model.describe_error(&e),
                });
            }
            let bad = |what: String, groups: &[u32]| BuildError::BadWeight {
                what,
                state: describe_state(),
                step: describe_step(groups),
            };
            if let Some((groups, w)) = emits.bad_weight(choices.clone()) {
                return Err(bad(format!("probability or rate {w} is not positive and finite"), groups));
            }
            if self.model_type != ModelType::Ctmc {
                if let Some((groups, sum)) = emits.not_stochastic(choices.clone()) {
                    return Err(bad(format!("probabilities sum to {sum}, not 1"), groups));
                }
            }
            let reward_error = |info: &RewardInfo, e: EvalError| BuildError::Reward {
                structure: info.name.clone(),
                state: describe_state(),
                error: model.describe_error(&e),
            };
            for (k, info) in self.rewards.iter().enumerate() {
                if info.state {
                    let r = self.annotations.state_reward(k, current).map_err(|e| reward_error(info, e))?;
                    chunk.state_rewards[k].push(r);
                }
                if info.action {
                    for c in choices.clone() {
                        let r = self.annotations.choice_reward(k, current, emits.groups(c));
                        chunk.choice_rewards[k].push(r.map_err(|e| reward_error(info, e))?);
                    }
                }
            }
            chunk.states.push((id as u32, choices));
        }
        Ok(chunk)
    }
}

/// The rows of a chunk's states, ready to append to the matrix.
pub(crate) struct Rows {
    /// Per state, its number of rows.
    per_state: Vec<u32>,
    /// Per row, its number of entries.
    lengths: Vec<u32>,
    entries: Vec<(u32, f64)>,
    deadlocks: Vec<u32>,
    /// Per reward structure: the action reward of each row (none for a structure
    /// without).
    choice_rewards: Vec<Vec<f64>>,
}

impl Chunk {
    /// The rows of the chunk's states (targets numbered): a deadlock's self-loop, or
    /// the assembled choices.
    fn assemble(&self, model_type: ModelType, rewards: &[RewardInfo]) -> Rows {
        let mut rows = Rows {
            per_state: Vec::with_capacity(self.states.len()),
            lengths: Vec::new(),
            entries: Vec::new(),
            deadlocks: Vec::new(),
            choice_rewards: vec![Vec::new(); rewards.len()],
        };
        let mut scratch = Vec::new();
        for (id, choices) in &self.states {
            if choices.is_empty() {
                rows.deadlocks.push(*id);
                rows.per_state.push(1);
                rows.lengths.push(1);
                rows.entries.push((*id, 1.0));
                for (values, info) in rows.choice_rewards.iter_mut().zip(rewards) {
                    if info.action {
                        values.push(0.0);
                    }
                }
                continue;
            }
            let assembled = assemble(model_type, &self.emits, choices.clone(), &mut scratch);
            rows.per_state.push(assembled.len() as u32);
            for r in assembled {
                rows.lengths.push(r.len() as u32);
                rows.entries.extend_from_slice(r);
            }
            for (k, _) in rewards.iter().enumerate().filter(|(_, info)| info.action) {
                let values = &self.choice_rewards[k][choices.clone()];
                fuse_rewards(model_type, &self.emits, choices.clone(), values, &mut rows.choice_rewards[k]);
            }
        }
        rows
    }
}

impl Rows {
    fn append_to(&self, out: &mut SparseModel) {
        let mut lengths = self.lengths.iter();
        let mut entries = self.entries.iter();
        for &n in &self.per_state {
            for _ in 0..n {
                out.push_row(None);
                let len = *lengths.next().expect("one length per row");
                for &(t, w) in entries.by_ref().take(len as usize) {
                    out.push_entry(t, w);
                }
            }
            out.end_state();
        }
    }
}
