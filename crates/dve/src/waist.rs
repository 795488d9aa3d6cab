//! The IR model behind the waist: [`Program`] implements [`interface::Model`] with the
//! [`Generator`] as its successor worker; its labels are the assertions, then the
//! predicates added with [`Program::add_predicate`].

use warpcheck_model::interface::{self, BitField, Describe, Label, LabelId, LabelKind, Step, Successors};
use warpcheck_model::EvalError;

use crate::{Generator, Program};

impl Successors for Generator<'_> {
    #[inline]
    fn successors<F>(&mut self, state: &[u32], emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        Generator::successors(self, state, emit)
    }
}

impl Describe for Program {
    fn describe_step(&self, step: &Step<'_>) -> String {
        Program::describe_step(self, step)
    }

    fn describe_error(&self, error: &EvalError) -> String {
        Program::describe_error(self, error)
    }

    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        Program::describe_changes(self, before, after)
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        Program::describe_state(self, state)
    }
}

impl interface::Model for Program {
    type Successors<'a> = Generator<'a>;

    fn state_words(&self) -> usize {
        Program::state_words(self)
    }

    fn initial_state(&self) -> Vec<u32> {
        Program::initial_state(self)
    }

    fn successors(&self) -> Generator<'_> {
        Generator::new(self)
    }

    fn labels(&self) -> Vec<Label> {
        let assertions = self.assertions.iter().map(|a| {
            let p = &self.processes[a.process as usize];
            let name = format!("`{}` in process {} state {}", a.text, p.name, p.states[a.state as usize]);
            Label { name, kind: LabelKind::Assertion }
        });
        let predicates = self.predicates.iter().map(|p| Label { name: p.text.clone(), kind: LabelKind::Predicate });
        assertions.chain(predicates).collect()
    }

    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        let ev = self.evaluator(&mut []);
        match self.assertions.get(label) {
            Some(a) => {
                let control = self.processes[a.process as usize].control;
                if self.layout.slot(control).get(state) != a.state {
                    return Ok(true);
                }
                ev.holds(&a.expr, state)
            }
            None => ev.holds(&self.predicate(label).expect("a label of this model").expr, state),
        }
    }

    fn assertion_labels(&self) -> Vec<LabelId> {
        (0..self.assertions.len()).collect()
    }

    /// The system alone accepts nothing: the property process is an automaton for
    /// the product ([`Program::property`]).
    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }

    fn dependencies(&self) -> Option<warpcheck_model::Dependencies> {
        Some(crate::dependencies::dependencies(self))
    }

    fn property(&self) -> Option<&str> {
        None
    }

    /// The property process's control slot, which the system never reads or writes;
    /// else the widest unused tail of a word.
    fn spare_bits(&self) -> Option<BitField> {
        if let Some(p) = &self.property {
            let slot = self.layout.slot(self.processes[p.process as usize].control);
            return Some(BitField { word: slot.word, shift: slot.shift, width: slot.width });
        }
        self.layout.spare()
    }
}
