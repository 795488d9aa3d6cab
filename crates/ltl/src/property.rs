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

use warpcheck_dve::ir::{BinOp, Expr, PropertyEdge, UnOp};
use warpcheck_dve::{Process, Program as Model, Property, Transition};
use warpcheck_model::{Layout, SlotType};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula_model;
    use warpcheck_liveness::{check, Options};

    const COUNTER: &str = "byte x; int y = -3; byte a[3]; process P { state s, t; init s; trans s -> t { effect x = (x + 1) % 3; }, t -> s {}; } system async;";

    fn ready(formula: &str) -> crate::FormulaModel {
        let dve = warpcheck_dve::load(COUNTER).unwrap();
        formula_model(&dve.model, formula, &[], |e| dve.expression(e)).unwrap()
    }

    #[test]
    fn the_layout_grows_by_one_slot_and_keeps_the_others() {
        let dve = warpcheck_dve::load(COUNTER).unwrap();
        let r = ready("G F \"x == 0\"");
        let (old, new) = (dve.model.layout.slots(), r.model.layout.slots());
        assert_eq!(new.len(), old.len() + 1);
        assert_eq!(&new[..old.len()], old);
        let property = r.model.property.as_ref().unwrap();
        let process = &r.model.processes[property.process as usize];
        assert_eq!(process.name, "LTL_property");
        assert_eq!(process.control, old.len() as u32);
        assert_eq!(process.states, ["q0", "q1"]);
        assert_eq!(process.accepting, [false, true]);
        assert_eq!(property.edges.len(), 3);
        // The initial state is the model's, with the automaton in q0.
        let initial = r.model.initial_state();
        assert_eq!(
            &r.model.describe_state(&initial)[..dve.model.describe_state(&dve.model.initial_state()).len()],
            &dve.model.describe_state(&dve.model.initial_state())[..]
        );
        assert_eq!(r.model.control_state_name(property.process, &initial), "q0");
        // `true` guards are `None`, others read the propositions.
        assert!(property.edges.iter().any(|e| e.guard.is_none()));
        assert!(property.edges.iter().any(|e| e.guard.is_some()));
    }

    #[test]
    fn constant_formulas() {
        // `true` holds: the negation's automaton has no edge.
        let r = ready("true");
        assert_eq!((r.automaton.states(), r.automaton.edges.len()), (1, 0));
        assert!(check(&r.model, &Options::default()).unwrap().holds());
        // `false` is violated by every infinite run.
        let r = ready("false");
        assert!(!check(&r.model, &Options::default()).unwrap().holds());
        assert!(!ready("G \"x < 3\"").automaton.edges.is_empty());
        assert!(check(&ready("G \"x < 3\"").model, &Options::default()).unwrap().holds());
        assert!(!check(&ready("G \"x < 2\"").model, &Options::default()).unwrap().holds());
    }

    #[test]
    fn a_model_with_a_property_or_too_many_propositions_is_refused() {
        let r = ready("G F \"x == 0\"");
        let again = formula_model(&r.model, "true", &[], |_| Ok::<_, String>(Expr::Const(1)));
        assert!(matches!(again, Err(crate::FormulaError::Property(PropertyError::AlreadyHasProperty(_)))));
        let dve = warpcheck_dve::load(COUNTER).unwrap();
        let many: Vec<String> = (0..65).map(|i| format!("\"x == {i}\"")).collect();
        let e = formula_model(&dve.model, &many.join(" || "), &[], |e| dve.expression(e)).unwrap_err();
        assert_eq!(e.to_string(), "the formula has 65 atomic propositions; at most 64 are supported");
    }
}
