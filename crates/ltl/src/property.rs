//! A Büchi automaton made the property process of a model: [`with_property`] returns
//! the model with one more process, exactly as the DVE front end lowers a BEEM
//! `.propN.dve` file (`process LTL_property { state ...; init q0; accept ...; trans
//! q -> q' { guard ...; }, ...; }` and `system ... property LTL_property;`):
//!
//! - a control slot appended to the layout (packing is first fit in order, so every
//!   existing slot keeps its place and the states of the model keep their encoding);
//! - a [`Process`] with the automaton's states (`q0` initial), accepting and no
//!   committed states, one transition per edge;
//! - a [`PropertyEdge`] per edge whose guard is the edge's label over the atomic
//!   propositions' expressions (`(p && !q) || r`, `None` for `true`).
//!
//! The product is then the one every engine already runs on property files: guards
//! read the model's state before the step, and the automaton moves alone when the
//! system has no step (stuttering on deadlock), so deadlocked runs count as infinite.

use warpcheck_model::ir::{BinOp, Expr, PropertyEdge, UnOp};
use warpcheck_model::{Layout, Model, Process, Property, SlotType, Transition};

use crate::buchi::{Buchi, Cube, Label};

/// Why an automaton cannot be attached.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PropertyError {
    #[error("the model already has a property process (`{0}`); an LTL formula cannot be checked on top of it (use the model without its property)")]
    AlreadyHasProperty(String),
}

/// `model` with `automaton` as its property process; `propositions[i]` is the
/// expression of atomic proposition `i`.
pub fn with_property(model: &Model, automaton: &Buchi, propositions: &[Expr]) -> Result<Model, PropertyError> {
    if let Some(p) = &model.property {
        return Err(PropertyError::AlreadyHasProperty(model.processes[p.process as usize].name.clone()));
    }
    let states = automaton.states();
    let mut types: Vec<SlotType> = model.layout.slots().iter().map(|s| s.ty).collect();
    let control = types.len() as u32;
    types.push(SlotType::Range { max: states as u32 - 1 });
    let layout = Layout::pack(&types);
    debug_assert!(model.layout.slots().iter().zip(layout.slots()).all(|(a, b)| a == b));

    let mut name = "LTL_property".to_string();
    while model.processes.iter().any(|p| p.name == name) {
        name.push('_');
    }
    let process = Process {
        name,
        control,
        states: (0..states).map(|q| format!("q{q}")).collect(),
        accepting: automaton.accepting.clone(),
        committed: vec![false; states],
        transitions: automaton.edges.iter().map(|e| Transition { from: e.from, to: e.to, line: 0 }).collect(),
    };
    let edges = (0u32..)
        .zip(&automaton.edges)
        .map(|(transition, e)| PropertyEdge {
            transition,
            from: e.from as i32,
            to: e.to as i32,
            guard: guard(&e.label, propositions),
        })
        .collect();
    let mut result = model.clone();
    result.layout = layout;
    result.initial_values.push(0);
    result.property = Some(Property { process: result.processes.len() as u32, edges });
    result.processes.push(process);
    Ok(result)
}

/// The expression of a label (`None` when it is `true`).
fn guard(label: &Label, propositions: &[Expr]) -> Option<Expr> {
    if label.is_true() {
        return None;
    }
    let cube = |c: &Cube| {
        let literals = (0..64u32).filter_map(|ap| {
            let bit = 1u64 << ap;
            let p = || propositions[ap as usize].clone();
            if c.pos & bit != 0 {
                Some(p())
            } else if c.neg & bit != 0 {
                Some(Expr::Unary(UnOp::Not, Box::new(p())))
            } else {
                None
            }
        });
        literals.reduce(|a, b| Expr::binary(BinOp::And, a, b)).unwrap_or(Expr::Const(1))
    };
    Some(label.0.iter().map(cube).reduce(|a, b| Expr::binary(BinOp::Or, a, b)).unwrap_or(Expr::Const(0)))
}
