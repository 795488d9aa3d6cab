//! Counterexample traces: the states from the initial state to a violation, each step
//! named (process, transition, channel) with the variables it changed; and lassos, the
//! counterexamples of LTL properties (a stem from the initial state, then a cycle).

use warpcheck_model::interface::{Model, Successors};
use warpcheck_model::EvalError;

/// One step of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// The step taken: `P: s -> t`, or a rendezvous of two processes.
    pub step: String,
    /// The variables and control states it changed: `x = 3 (was 2)`.
    pub changes: Vec<String>,
    /// The state reached.
    pub state: Vec<u32>,
}

/// A path from the initial state, optionally ending in a step that raises an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub initial: Vec<u32>,
    pub steps: Vec<TraceStep>,
    /// The final step that raised an evaluation error, and the error, if any.
    pub error_step: Option<(String, String)>,
}

impl Trace {
    /// Number of steps, counting a final erroring step.
    pub fn len(&self) -> usize {
        self.steps.len() + self.error_step.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The states it passes through, the initial state first.
    pub fn states(&self) -> Vec<Vec<u32>> {
        std::iter::once(self.initial.clone()).chain(self.steps.iter().map(|s| s.state.clone())).collect()
    }

    /// The same trace with its steps named by `model` (the states are kept); `error`
    /// is the evaluation error of its erroring last step, if it has one.
    pub fn rebuilt<M: Model>(&self, model: &M, error: Option<EvalError>) -> Trace {
        Trace::build(model, &self.states(), error)
    }

    /// Builds the trace through `states` (initial first), naming each step by finding
    /// it among the successors of its source; with `error`, appends the step of the
    /// last state that raises it.
    pub fn build<M: Model>(model: &M, states: &[Vec<u32>], error: Option<EvalError>) -> Trace {
        let mut generator = model.successors();
        let mut steps = Vec::new();
        for pair in states.windows(2) {
            let (from, to) = (&pair[0], &pair[1]);
            let mut name = None;
            generator.successors(from, |step, result| {
                if name.is_none() && result.is_ok_and(|s| s == &to[..]) {
                    name = Some(model.describe_step(&step));
                }
            });
            steps.push(TraceStep {
                step: name.unwrap_or_else(|| "(step not found: the state store is inconsistent)".into()),
                changes: model.describe_changes(from, to),
                state: to.clone(),
            });
        }
        let error_step = error.map(|e| {
            let last = states.last().expect("a trace has an initial state");
            let mut name = None;
            generator.successors(last, |step, result| {
                if name.is_none() && result == Err(e) {
                    name = Some(model.describe_step(&step));
                }
            });
            (name.unwrap_or_default(), model.describe_error(&e))
        });
        Trace { initial: states[0].clone(), steps, error_step }
    }
}

/// An infinite counterexample of an LTL property: a path from the initial state to a
/// state on a cycle (the stem), then the cycle back to that state, which passes
/// through an accepting state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    /// From the initial state to the first state of the cycle (possibly no steps).
    pub stem: Trace,
    /// The steps of the cycle: the last one returns to the stem's last state.
    pub cycle: Vec<TraceStep>,
}

impl Lasso {
    /// Number of steps, stem and cycle.
    pub fn len(&self) -> usize {
        self.stem.len() + self.cycle.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of the first step of the cycle (the number of stem steps).
    pub fn cycle_start(&self) -> usize {
        self.stem.len()
    }

    /// Builds the lasso through `stem` (initial state first, the cycle's first state
    /// last) and `cycle` (that state first and last), naming each step.
    pub fn build<M: Model>(model: &M, stem: &[Vec<u32>], cycle: &[Vec<u32>]) -> Lasso {
        debug_assert_eq!(stem.last(), cycle.first());
        debug_assert_eq!(cycle.first(), cycle.last());
        Lasso { stem: Trace::build(model, stem, None), cycle: Trace::build(model, cycle, None).steps }
    }

    /// The same lasso with its steps named by `model` (the states are kept).
    pub fn rebuilt<M: Model>(&self, model: &M) -> Lasso {
        let stem = self.stem.states();
        let start = stem.last().expect("a stem has an initial state").clone();
        let cycle: Vec<Vec<u32>> = std::iter::once(start).chain(self.cycle.iter().map(|s| s.state.clone())).collect();
        Lasso::build(model, &stem, &cycle)
    }
}
