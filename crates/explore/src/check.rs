//! What an exploration checks, and the violations it finds.

use warpcheck_model::interface::{LabelId, Model};
use warpcheck_model::EvalError;

use crate::trace::Trace;

/// A state invariant given by the user: a label of the model (added by its front end)
/// that must hold in every reachable state.
#[derive(Clone, Debug)]
pub struct Invariant {
    /// The expression as written, for messages.
    pub text: String,
    pub label: LabelId,
}

/// The properties checked during exploration. Evaluation errors are always checked.
#[derive(Clone, Debug, Default)]
pub struct Checks {
    /// A reachable state without successors is a violation.
    pub deadlock: bool,
    /// A reachable state violating one of the model's assertion labels (DVE `assert`)
    /// is a violation.
    pub assertions: bool,
    /// Each must hold in every reachable state.
    pub invariants: Vec<Invariant>,
}

/// What went wrong in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// The state has no successor.
    Deadlock,
    /// The model's assertion label `assertion` fails (or raises `error`).
    Assertion { assertion: usize, error: Option<EvalError> },
    /// The user's invariant number `invariant` is false (or raises `error`).
    Invariant { invariant: usize, error: Option<EvalError> },
    /// A step from the state raises an evaluation error.
    EvalError(EvalError),
}

impl ViolationKind {
    /// The category a violation is counted under (errors differing only in values
    /// count together).
    pub fn category(&self) -> (u8, usize) {
        match self {
            ViolationKind::Deadlock => (0, 0),
            ViolationKind::Assertion { assertion, .. } => (1, *assertion),
            ViolationKind::Invariant { invariant, .. } => (2, *invariant),
            ViolationKind::EvalError(_) => (3, 0),
        }
    }

    /// A sentence describing the violation.
    pub fn describe<M: Model>(&self, model: &M, checks: &Checks) -> String {
        let error = |e: &Option<EvalError>| match e {
            Some(e) => format!(" (evaluating it raised: {})", model.describe_error(e)),
            None => String::new(),
        };
        match self {
            ViolationKind::Deadlock => "deadlock: a reachable state has no successor".to_string(),
            ViolationKind::Assertion { assertion, error: e } => {
                let name = model.labels().into_iter().nth(*assertion).map_or_else(|| "?".into(), |l| l.name);
                format!("assertion violated: {name}{}", error(e))
            }
            ViolationKind::Invariant { invariant, error: e } => {
                format!("invariant violated: `{}`{}", checks.invariants[*invariant].text, error(e))
            }
            ViolationKind::EvalError(e) => format!("evaluation error: {}", model.describe_error(e)),
        }
    }
}

/// A violated property: how many states (or, for evaluation errors, steps) violate it,
/// and a shortest counterexample to the first one found.
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    pub count: u64,
    pub trace: Option<Trace>,
}
