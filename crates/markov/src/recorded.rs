//! The builder's second half for a state space explored elsewhere (the GPU builder):
//! a [`Recorded`] exploration, its states in any order with every state's emits in
//! the model's order, numbered as [`build()`](crate::build()) numbers them (Storm's
//! breadth-first order) and assembled on all cores with the same checks, rewards,
//! labels and valuations. The result equals `build()`'s for the same model.

use std::ops::Range;

use rayon::prelude::*;
use warpcheck_model::Model;

use crate::build::{Annotations, BuildError, BuildOptions, Chunk, Collected, Expander, StateSource};
use crate::sparse::{ModelType, SparseModel};

/// The bit of a recorded tag that starts a new choice.
pub const NEW_CHOICE: u32 = 1 << 31;

/// A state space explored elsewhere, in compressed-row form. State `i` of the
/// explorer is `states[i * words..]`; its emits are `offsets[i]..offsets[i + 1]` of
/// `targets` (explorer ids), `weights` (probabilities or rates) and `tags` (the first
/// of the choice's `groups`, with [`NEW_CHOICE`] on the first emit of each choice), in
/// the order the model's successor function emits them.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    pub words: usize,
    pub states: Vec<u32>,
    /// The explorer's ids of the initial states, in the model's order.
    pub initial: Vec<u32>,
    /// One more than the states: `offsets[0] = 0`, the last the number of emits.
    pub offsets: Vec<u64>,
    pub targets: Vec<u32>,
    pub weights: Vec<f64>,
    pub tags: Vec<u32>,
}

impl Recorded {
    /// The number of states.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there is no state.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// State `i` (an explorer id).
    pub fn state(&self, i: u32) -> &[u32] {
        &self.states[i as usize * self.words..(i as usize + 1) * self.words]
    }

    fn emits(&self, i: u32) -> Range<usize> {
        self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize
    }

    /// Checks the arrays against each other: sizes, offsets and targets in range.
    fn validate(&self) -> Result<(), BuildError> {
        let bad = |what: String| Err(BuildError::Inconsistent { what });
        let n = self.len();
        let e = self.targets.len();
        if self.states.len() != n * self.words {
            return bad(format!("{n} states in {} words of {}", self.states.len(), self.words));
        }
        if self.weights.len() != e || self.tags.len() != e {
            return bad(format!("{e} targets with {} weights and {} tags", self.weights.len(), self.tags.len()));
        }
        if self.offsets.first() != Some(&0) || self.offsets.last() != Some(&(e as u64)) {
            return bad(format!("offsets that do not run from 0 to the {e} emits"));
        }
        if let Some(i) = self.offsets.windows(2).position(|w| w[0] > w[1]) {
            return bad(format!("offsets that decrease at state {i}"));
        }
        if let Some(t) = self.targets.iter().find(|&&t| t as usize >= n) {
            return bad(format!("a target {t} outside the {n} states"));
        }
        if let Some(s) = self.initial.iter().find(|&&s| s as usize >= n) {
            return bad(format!("an initial state {s} outside the {n} states"));
        }
        Ok(())
    }

    /// The breadth-first numbering from the initial states, successors in emit order:
    /// `order[new] = old`. Every recorded state must be reached.
    fn storm_order(&self) -> Result<Vec<u32>, BuildError> {
        let n = self.len();
        let mut new_id = vec![u32::MAX; n];
        let mut order = Vec::with_capacity(n);
        for &s in &self.initial {
            if new_id[s as usize] == u32::MAX {
                new_id[s as usize] = order.len() as u32;
                order.push(s);
            }
        }
        let mut next = 0;
        while next < order.len() {
            let s = order[next];
            next += 1;
            for &t in &self.targets[self.emits(s)] {
                if new_id[t as usize] == u32::MAX {
                    new_id[t as usize] = order.len() as u32;
                    order.push(t);
                }
            }
        }
        if order.len() != n {
            return Err(BuildError::Inconsistent {
                what: format!("{} of the {n} recorded states are not reachable", n - order.len()),
            });
        }
        Ok(order)
    }
}

/// The recorded states in the new numbering.
struct Ordered<'a> {
    recorded: &'a Recorded,
    order: &'a [u32],
}

impl StateSource for Ordered<'_> {
    fn len(&self) -> usize {
        self.order.len()
    }
    fn get(&self, s: u32) -> &[u32] {
        self.recorded.state(self.order[s as usize])
    }
}

/// States per chunk of the parallel assembly, and chunks per batch (the rows of a
/// batch are appended before the next batch starts, which bounds the memory).
const CHUNK: usize = 4096;
const BATCH: usize = 256;

/// Builds the Markov model of type `model_type` that `recorded` explored from
/// `model`, with the rewards and valuations of `annotations`: the same
/// [`SparseModel`] as [`build()`](crate::build()) gives, on the current rayon pool.
/// An inconsistent recording is a [`BuildError::Inconsistent`].
pub fn build_recorded<M: Model, A: Annotations + Sync + ?Sized>(
    recorded: &Recorded,
    model: &M,
    model_type: ModelType,
    annotations: &A,
    options: &BuildOptions,
) -> Result<SparseModel, BuildError> {
    if recorded.initial.is_empty() {
        return Err(BuildError::NoInitialState);
    }
    if recorded.words != model.state_words() {
        return Err(BuildError::Inconsistent {
            what: format!("states of {} words for a model of {}", recorded.words, model.state_words()),
        });
    }
    recorded.validate()?;
    let limit = options.max_states.unwrap_or(usize::MAX).min(crate::build::MAX_STATES);
    if recorded.len() > limit {
        return Err(BuildError::TooManyStates { limit });
    }
    let order = recorded.storm_order()?;
    let mut new_id = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old as usize] = new as u32;
    }
    let states = Ordered { recorded, order: &order };
    let rewards = annotations.reward_structures();
    let expander = Expander { model, model_type, annotations, rewards: &rewards };
    let mut initial: Vec<u32> = recorded.initial.iter().map(|&s| new_id[s as usize]).collect();
    initial.sort_unstable();
    initial.dedup();
    let mut out = SparseModel::new(model_type);
    out.initial = initial;
    let mut collected = Collected::new(rewards.len());
    let starts: Vec<usize> = (0..order.len()).step_by(CHUNK).collect();
    for batch in starts.chunks(BATCH) {
        let chunks: Vec<Result<Chunk, BuildError>> = batch
            .par_iter()
            .map(|&start| {
                let ids = start..(start + CHUNK).min(order.len());
                expander.expand_with(&states, ids, |s, _, chunk| {
                    for k in recorded.emits(order[s as usize]) {
                        let tag = recorded.tags[k];
                        if tag & NEW_CHOICE != 0 {
                            chunk.emits.seal();
                        }
                        let target = new_id[recorded.targets[k] as usize];
                        chunk.emits.push(&[tag & !NEW_CHOICE], target, recorded.weights[k]);
                    }
                    None
                })
            })
            .collect();
        collected.add(chunks, model_type, &rewards, &mut out)?;
    }
    collected.finish(model, &states, annotations, &rewards, options, out)
}
