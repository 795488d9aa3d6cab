//! The synchronous product of any [`Model`] with a Büchi automaton over its labels:
//! [`Product`], itself a [`Model`], so that LTL reaches every front end without an
//! engine knowing.
//!
//! The semantics are those of DVE's property processes (BEEM): the automaton's guards
//! read the source state of a step; each system step pairs with each enabled edge;
//! when the system has no step at all, the automaton moves alone (the system
//! stutters); evaluating a guard that raises an error is a step into the error state.
//! The automaton state lives in the model's spare bits ([`Model::spare_bits`]) when
//! they are wide enough, else in one word appended to the model's state.

use crate::error::EvalError;
use crate::interface::{BitField, Dependencies, Describe, Label, LabelId, Model, Step, Successors};

/// A guard: a disjunction of conjunctions of label literals `(label, must hold)`.
/// No cube is `false`; an empty cube is `true`.
pub type Guard = Vec<Vec<(LabelId, bool)>>;

/// An edge of a Büchi automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutomatonEdge {
    pub from: u32,
    pub to: u32,
    pub guard: Guard,
}

/// A Büchi automaton over the labels of a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Automaton {
    /// A name for traces, e.g. `LTL_property`.
    pub name: String,
    /// The states' names, for traces.
    pub states: Vec<String>,
    pub initial: u32,
    /// Per state, whether it is accepting.
    pub accepting: Vec<bool>,
    pub edges: Vec<AutomatonEdge>,
}

impl Automaton {
    /// An automaton with states `q0`, `q1`, ... and initial state `q0`.
    pub fn new(name: &str, accepting: Vec<bool>, edges: Vec<AutomatonEdge>) -> Automaton {
        let states = (0..accepting.len()).map(|q| format!("q{q}")).collect();
        Automaton { name: name.to_string(), states, initial: 0, accepting, edges }
    }

    /// Bits needed to hold a state number.
    fn bits(&self) -> u32 {
        (32 - (self.accepting.len().max(2) as u32 - 1).leading_zeros()).max(1)
    }
}

/// `model` × `automaton`.
#[derive(Clone, Debug)]
pub struct Product<M> {
    pub model: M,
    pub automaton: Automaton,
    /// Where a product state keeps the automaton state.
    place: BitField,
    /// Whether that is a word appended to the model's state.
    appended: bool,
}

impl<M: Model> Product<M> {
    pub fn new(model: M, automaton: Automaton) -> Product<M> {
        let bits = automaton.bits();
        let (place, appended) = match model.spare_bits() {
            Some(spare) if spare.width >= bits => (BitField { width: bits, ..spare }, false),
            _ => (BitField { word: model.state_words() as u32, shift: 0, width: 32 }, true),
        };
        Product { model, automaton, place, appended }
    }

    /// Where a product state keeps the automaton state: spare bits of the model's
    /// state or (`true`) a word of its own after it.
    pub fn automaton_place(&self) -> (BitField, bool) {
        (self.place, self.appended)
    }

    /// The automaton state of a product state.
    #[inline]
    pub fn automaton_state(&self, state: &[u32]) -> u32 {
        self.place.get(state)
    }

    /// Whether `guard` holds in the model state `state`; literals are evaluated in
    /// order with short-circuit, as `&&` and `||` do.
    fn guard_holds(&self, guard: &Guard, state: &[u32]) -> Result<bool, EvalError> {
        for cube in guard {
            let mut holds = true;
            for &(label, positive) in cube {
                if self.model.label(state, label)? != positive {
                    holds = false;
                    break;
                }
            }
            if holds {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The successor worker of a [`Product`].
pub struct ProductSuccessors<'a, M: Model + 'a> {
    product: &'a Product<M>,
    inner: M::Successors<'a>,
    /// The system's steps from the current state: targets back to back, their groups,
    /// and per step the end of its groups and its error.
    targets: Vec<u32>,
    groups: Vec<u32>,
    ends: Vec<(usize, Option<EvalError>)>,
    enabled: Vec<u32>,
    next: Vec<u32>,
}

impl<M: Model> Successors for ProductSuccessors<'_, M> {
    fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        let words = self.product.model.state_words();
        let place = self.product.place;
        let (system, at) = (&state[..words], place.get(state));
        let product_words = state.len();
        let (targets, groups, ends) = (&mut self.targets, &mut self.groups, &mut self.ends);
        targets.clear();
        groups.clear();
        ends.clear();
        self.inner.successors(system, |step, result| {
            groups.extend_from_slice(step.groups);
            match result {
                Ok(target) => {
                    targets.extend_from_slice(target);
                    ends.push((groups.len(), None));
                }
                Err(e) => {
                    targets.resize(targets.len() + words, 0);
                    ends.push((groups.len(), Some(e)));
                }
            }
        });
        self.enabled.clear();
        let mut moves = false;
        for (e, edge) in (0u32..).zip(&self.product.automaton.edges) {
            if edge.from != at {
                continue;
            }
            match self.product.guard_holds(&edge.guard, system) {
                Ok(true) => self.enabled.push(e),
                Ok(false) => {}
                Err(error) => {
                    moves = true;
                    emit(Step { groups: &[], property: Some(e), weight: None }, Err(error));
                }
            }
        }
        moves |= !self.enabled.is_empty();
        let edges = &self.product.automaton.edges;
        self.next.resize(product_words, 0);
        if self.ends.is_empty() {
            // The system cannot move: the automaton moves alone.
            for &e in &self.enabled {
                self.next[..words].copy_from_slice(system);
                place.set(&mut self.next, edges[e as usize].to);
                emit(Step { groups: &[], property: Some(e), weight: None }, Ok(&self.next));
            }
            return !moves;
        }
        let mut first = 0;
        for (i, &(end, error)) in self.ends.iter().enumerate() {
            let step_groups = &self.groups[first..end];
            first = end;
            if let Some(error) = error {
                emit(Step::of(step_groups), Err(error));
                continue;
            }
            for &e in &self.enabled {
                self.next[..words].copy_from_slice(&self.targets[i * words..(i + 1) * words]);
                place.set(&mut self.next, edges[e as usize].to);
                emit(Step { groups: step_groups, property: Some(e), weight: None }, Ok(&self.next));
            }
        }
        false
    }
}

impl<M: Model> Describe for Product<M> {
    fn describe_step(&self, step: &Step<'_>) -> String {
        let Some(e) = step.property else { return self.model.describe_step(step) };
        let edge = &self.automaton.edges[e as usize];
        let names = &self.automaton.states;
        let automaton =
            format!("{}: {} -> {}", self.automaton.name, names[edge.from as usize], names[edge.to as usize]);
        if step.groups.is_empty() {
            format!("{automaton} (system stutters)")
        } else {
            format!("{}; {automaton}", self.model.describe_step(&Step::of(step.groups)))
        }
    }

    fn describe_error(&self, error: &EvalError) -> String {
        self.model.describe_error(error)
    }

    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        let words = self.model.state_words();
        self.model.describe_changes(&before[..words], &after[..words])
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        let words = self.model.state_words();
        let mut lines = self.model.describe_state(&state[..words]);
        let at = self.automaton_state(state) as usize;
        lines.push(format!("{}: {}", self.automaton.name, self.automaton.states[at]));
        lines
    }
}

impl<M: Model> Model for Product<M> {
    type Successors<'a>
        = ProductSuccessors<'a, M>
    where
        Self: 'a;

    fn state_words(&self) -> usize {
        self.model.state_words() + self.appended as usize
    }

    fn initial_state(&self) -> Vec<u32> {
        let mut state = self.model.initial_state();
        state.resize(self.state_words(), 0);
        self.place.set(&mut state, self.automaton.initial);
        state
    }

    /// Each initial state of the model with the automaton's initial state.
    fn initial_states(&self) -> Vec<Vec<u32>> {
        let words = self.state_words();
        self.model
            .initial_states()
            .into_iter()
            .map(|mut state| {
                state.resize(words, 0);
                self.place.set(&mut state, self.automaton.initial);
                state
            })
            .collect()
    }

    fn successors(&self) -> ProductSuccessors<'_, M> {
        ProductSuccessors {
            product: self,
            inner: self.model.successors(),
            targets: Vec::new(),
            groups: Vec::new(),
            ends: Vec::new(),
            enabled: Vec::new(),
            next: Vec::new(),
        }
    }

    fn labels(&self) -> Vec<Label> {
        self.model.labels()
    }

    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        self.model.label(&state[..self.model.state_words()], label)
    }

    fn is_accepting(&self, state: &[u32]) -> bool {
        self.automaton.accepting[self.automaton_state(state) as usize]
    }

    fn property(&self) -> Option<&str> {
        Some(&self.automaton.name)
    }

    /// The model's matrices with the automaton's word read and maybe written by
    /// every group (its guards read the model's labels, so every row also reads
    /// every word: labels have no dependency information).
    fn dependencies(&self) -> Option<Dependencies> {
        let mut d = self.model.dependencies()?;
        let word = self.place.word as usize;
        for matrix in [&mut d.read, &mut d.may_write, &mut d.must_write] {
            for row in matrix.iter_mut() {
                row.resize(self.state_words(), false);
            }
        }
        for row in d.read.iter_mut() {
            row.iter_mut().for_each(|r| *r = true);
        }
        d.may_write.iter_mut().for_each(|row| row[word] = true);
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two initial states, no step, one label (`x = 1`).
    struct Two;
    struct NoSteps;
    impl Successors for NoSteps {
        fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, _: &[u32], _: F) -> bool {
            true
        }
    }
    impl Describe for Two {
        fn describe_step(&self, _: &Step<'_>) -> String {
            String::new()
        }
        fn describe_error(&self, e: &EvalError) -> String {
            e.to_string()
        }
        fn describe_changes(&self, _: &[u32], _: &[u32]) -> Vec<String> {
            Vec::new()
        }
        fn describe_state(&self, s: &[u32]) -> Vec<String> {
            vec![format!("x = {}", s[0])]
        }
    }
    impl Model for Two {
        type Successors<'a> = NoSteps;
        fn state_words(&self) -> usize {
            1
        }
        fn initial_state(&self) -> Vec<u32> {
            vec![0]
        }
        fn initial_states(&self) -> Vec<Vec<u32>> {
            vec![vec![0], vec![1]]
        }
        fn successors(&self) -> NoSteps {
            NoSteps
        }
        fn labels(&self) -> Vec<Label> {
            vec![]
        }
        fn label(&self, s: &[u32], _: LabelId) -> Result<bool, EvalError> {
            Ok(s[0] == 1)
        }
        fn is_accepting(&self, _: &[u32]) -> bool {
            false
        }
        fn property(&self) -> Option<&str> {
            None
        }
    }

    #[test]
    fn every_initial_state_of_the_model_starts_the_product() {
        let automaton = Automaton { initial: 1, ..Automaton::new("a", vec![false, true], vec![]) };
        let product = Product::new(Two, automaton);
        let init = product.initial_states();
        assert_eq!(init.len(), 2);
        assert_eq!(init[0], product.initial_state());
        for (s, expect) in init.iter().zip([0, 1]) {
            assert_eq!(s[0], expect);
            assert_eq!(product.automaton_state(s), 1);
        }
        // A model by reference forwards them too.
        assert_eq!(Model::initial_states(&&Two), [vec![0], vec![1]]);
    }
}
