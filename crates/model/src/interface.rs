//! The narrow waist of warpcheck, after LTSmin's PINS: the traits every front end
//! implements and every engine consumes.
//!
//! - [`Model`]: state layout facts (fixed-length vectors of `u32` words), the initial
//!   state, a per-thread successor worker ([`Successors`]), state labels (named
//!   predicates: the model's assertions, user invariants, atomic propositions),
//!   acceptance (for products with a Büchi automaton) and, optionally, transition
//!   groups with their dependency matrices ([`Dependencies`]).
//! - [`Describe`]: states, steps, labels and errors as text, for traces and messages.
//! - [`Step`]: what produced a successor (the transition groups that moved, an
//!   automaton edge, an optional weight: a probability or a rate, which
//!   nondeterministic engines ignore).
//!
//! Engines are generic over `M: Model` and monomorphised: there is no `dyn` on the
//! successor or store path. A step that raises an evaluation error is reported as an
//! [`EvalError`], never dropped: engines count it as an edge to the error state.

use crate::error::EvalError;

/// The step that produced a successor.
///
/// Probabilistic front ends (PRISM) emit one successor per (choice, branch): `weight`
/// is the branch's probability (or rate, in a CTMC) and `groups` the ids of the
/// commands that form the choice (one command, or one per module of a
/// synchronisation). Consecutive emits with equal `groups` belong to one choice, and
/// two different choices of a state never have equal `groups`; a builder of Markov
/// models (`warpcheck_markov::build`) rests on this convention.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step<'a> {
    /// The transition groups that moved: one in an interleaving system, one per
    /// process in a synchronous one, none when only a property automaton moved.
    pub groups: &'a [u32],
    /// The property automaton's edge, in a product with one.
    pub property: Option<u32>,
    /// A probability or rate, for probabilistic front ends; `None` otherwise.
    pub weight: Option<f64>,
}

impl<'a> Step<'a> {
    /// A step of the given groups, without automaton edge or weight.
    pub fn of(groups: &'a [u32]) -> Step<'a> {
        Step { groups, property: None, weight: None }
    }
}

/// Index of a state label in [`Model::labels`].
pub type LabelId = usize;

/// What a state label means to the engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// One of the model's own assertions: checked with `--assert` (false or an error
    /// is a violation).
    Assertion,
    /// Any other predicate: a user invariant, an atomic proposition.
    Predicate,
}

/// A named state predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// How it reads in messages, e.g. `` `x < 3` in process P state s``.
    pub name: String,
    pub kind: LabelKind,
}

/// Transition groups and their dependencies on the state vector's words, as PINS
/// defines them: a group reads the words marked in `read`, may write those in
/// `may_write`, and always writes those in `must_write`. Rows are groups, columns
/// state words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependencies {
    pub read: Vec<Vec<bool>>,
    pub may_write: Vec<Vec<bool>>,
    pub must_write: Vec<Vec<bool>>,
}

/// A field of `width` bits at bit `shift` of word `word` of a state vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    pub word: u32,
    pub shift: u32,
    pub width: u32,
}

impl BitField {
    /// The `width` low bits set.
    pub fn mask(self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }

    /// The field's value in `state`.
    #[inline]
    pub fn get(self, state: &[u32]) -> u32 {
        (state[self.word as usize] >> self.shift) & self.mask()
    }

    /// Sets the field to `value` (which must fit).
    #[inline]
    pub fn set(self, state: &mut [u32], value: u32) {
        let mask = self.mask() << self.shift;
        let word = &mut state[self.word as usize];
        *word = (*word & !mask) | ((value << self.shift) & mask);
    }
}

/// A per-thread successor worker: holds the buffers one thread reuses.
pub trait Successors {
    /// Calls `emit` for every step enabled in `state`, with the successor state or the
    /// evaluation error the step raised. Returns whether `state` is a deadlock: no
    /// step is enabled (a step that raises an error counts as enabled).
    fn successors<F>(&mut self, state: &[u32], emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>);
}

/// States, steps, labels and errors as text.
pub trait Describe {
    /// The step that led from some state: processes, transitions, channels.
    fn describe_step(&self, step: &Step<'_>) -> String;
    /// An evaluation error, with the model's names.
    fn describe_error(&self, error: &EvalError) -> String;
    /// What changed between two states, as `name = new (was old)` lines.
    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String>;
    /// Every variable of a state, as `name = value` lines.
    fn describe_state(&self, state: &[u32]) -> Vec<String>;
}

/// A model: what every engine needs and nothing of the source language.
pub trait Model: Describe + Sync {
    /// The successor worker of one thread (made on one thread, it may be sent to
    /// another).
    type Successors<'a>: Successors + Send
    where
        Self: 'a;

    /// Number of 32-bit words per state vector.
    fn state_words(&self) -> usize;
    /// The initial state (the first of [`Model::initial_states`]).
    fn initial_state(&self) -> Vec<u32>;
    /// All initial states, in the order a builder numbers them (PRISM's
    /// `init ... endinit` gives several). Defaults to [`Model::initial_state`] alone.
    fn initial_states(&self) -> Vec<Vec<u32>> {
        vec![self.initial_state()]
    }
    /// A successor worker (make one per thread).
    fn successors(&self) -> Self::Successors<'_>;
    /// The state labels.
    fn labels(&self) -> Vec<Label>;
    /// Whether label `label` holds in `state` (an error if evaluating it raises one).
    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError>;
    /// Whether `state` is accepting: a Büchi acceptance state of a product with a
    /// property automaton; false in a model without one.
    fn is_accepting(&self, state: &[u32]) -> bool;
    /// The name of the property automaton, when the model is a product with one.
    fn property(&self) -> Option<&str>;
    /// Transition groups with their dependency matrices, when the front end knows them.
    fn dependencies(&self) -> Option<Dependencies> {
        None
    }
    /// Bits of every state that the model never reads and that its successors (CPU
    /// and generated C) copy unchanged from the source state: room for a wrapper's
    /// own data, such as the automaton state of a [`Product`](crate::Product), which
    /// then needs no word of its own. `None` when there are none.
    fn spare_bits(&self) -> Option<BitField> {
        None
    }

    /// The labels of kind [`LabelKind::Assertion`].
    fn assertion_labels(&self) -> Vec<LabelId> {
        self.labels().iter().enumerate().filter(|(_, l)| l.kind == LabelKind::Assertion).map(|(i, _)| i).collect()
    }

    /// The first of `assertions` that does not hold in `state` (or raises an error).
    fn violated_assertion(&self, state: &[u32], assertions: &[LabelId]) -> Option<(LabelId, Option<EvalError>)> {
        assertions.iter().find_map(|&a| match self.label(state, a) {
            Ok(true) => None,
            Ok(false) => Some((a, None)),
            Err(e) => Some((a, Some(e))),
        })
    }
}

impl<D: Describe + ?Sized> Describe for &D {
    fn describe_step(&self, step: &Step<'_>) -> String {
        (**self).describe_step(step)
    }
    fn describe_error(&self, error: &EvalError) -> String {
        (**self).describe_error(error)
    }
    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        (**self).describe_changes(before, after)
    }
    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        (**self).describe_state(state)
    }
}

/// A model by reference is a model: wrappers such as the Büchi product can borrow it.
impl<M: Model> Model for &M {
    type Successors<'a>
        = M::Successors<'a>
    where
        Self: 'a;

    fn state_words(&self) -> usize {
        (**self).state_words()
    }
    fn initial_state(&self) -> Vec<u32> {
        (**self).initial_state()
    }
    fn initial_states(&self) -> Vec<Vec<u32>> {
        (**self).initial_states()
    }
    fn successors(&self) -> M::Successors<'_> {
        (**self).successors()
    }
    fn labels(&self) -> Vec<Label> {
        (**self).labels()
    }
    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        (**self).label(state, label)
    }
    fn is_accepting(&self, state: &[u32]) -> bool {
        (**self).is_accepting(state)
    }
    fn property(&self) -> Option<&str> {
        (**self).property()
    }
    fn dependencies(&self) -> Option<Dependencies> {
        (**self).dependencies()
    }
    fn spare_bits(&self) -> Option<BitField> {
        (**self).spare_bits()
    }
    fn assertion_labels(&self) -> Vec<LabelId> {
        (**self).assertion_labels()
    }
}
