//! A state graph whose vertices carry integer values computed from their states: the
//! input of quantitative analyses such as the optimal cycle mean of `cycle-mean`,
//! where a transition weighs what a function of its target state says.
//!
//! [`state_graph_valued`] is [`state_graph_with_states`]
//! followed by one pass per function over the states in vertex order. The functions
//! are plain closures over state vectors, so any front end supplies them (the DVE
//! front end compiles an expression into one: `warpcheck_dve::DveModel::state_function`)
//! and nothing here knows a source language. A function that raises an evaluation
//! error on some state ends the build with that state, never with a made-up value.

use warpcheck_model::interface::Model;
use warpcheck_model::EvalError;

use crate::graph::{state_graph_with_states, StateGraph, StateGraphError};

/// An integer function of states, as front ends compile them.
pub type StateFunction<'a> = &'a (dyn Fn(&[u32]) -> Result<i64, EvalError> + Sync);

/// A state graph with its states and the values of each function on every vertex.
pub struct ValuedStateGraph {
    pub graph: StateGraph,
    /// The states, back to back in vertex order (`state_words` each); the error state,
    /// the last vertex if any, has none.
    pub states: Vec<u32>,
    /// `values[f][v]`: function `f` on vertex `v`; 0 on the error state.
    pub values: Vec<Vec<i64>>,
}

impl ValuedStateGraph {
    /// The state of vertex `v`, or `None` for the error state.
    pub fn state(&self, v: u32, words: usize) -> Option<&[u32]> {
        self.states.get(v as usize * words..(v as usize + 1) * words)
    }
}

/// Why no valued state graph was built.
#[derive(Debug, thiserror::Error)]
pub enum ValuedGraphError {
    #[error(transparent)]
    Graph(#[from] StateGraphError),
    /// Function `function` raised `error` on the state of vertex `vertex`.
    #[error("state {vertex}: {error}")]
    Eval { function: usize, vertex: u32, state: Vec<u32>, error: EvalError },
}

/// Explores `model` into its state graph (as [`state_graph_with_states`], at most
/// `max_states` states) and evaluates each of `functions` on every state.
pub fn state_graph_valued<M: Model>(
    model: &M,
    max_states: Option<u64>,
    functions: &[StateFunction<'_>],
) -> Result<ValuedStateGraph, ValuedGraphError> {
    let (graph, states) = state_graph_with_states(model, max_states)?;
    let words = model.state_words();
    let vertices = graph.graph.vertices();
    let real = vertices - graph.error_state.is_some() as usize;
    let mut values = Vec::with_capacity(functions.len());
    for (f, function) in functions.iter().enumerate() {
        let mut out = Vec::with_capacity(vertices);
        for v in 0..real {
            let state = &states[v * words..(v + 1) * words];
            let x = function(state).map_err(|error| ValuedGraphError::Eval {
                function: f,
                vertex: v as u32,
                state: state.to_vec(),
                error,
            })?;
            out.push(x);
        }
        out.resize(vertices, 0);
        values.push(out);
    }
    Ok(ValuedStateGraph { graph, states, values })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_model::interface::{Describe, Label, LabelId, Step, Successors};

    /// x counts 0..=3 and wraps around to 0.
    struct Ring;
    struct Steps([u32; 1]);
    impl Successors for Steps {
        fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, s: &[u32], mut emit: F) -> bool {
            self.0 = [(s[0] + 1) % 4];
            emit(Step::of(&[0]), Ok(&self.0));
            false
        }
    }
    impl Describe for Ring {
        fn describe_step(&self, _: &Step<'_>) -> String {
            "tick".into()
        }
        fn describe_error(&self, e: &EvalError) -> String {
            e.to_string()
        }
        fn describe_changes(&self, _: &[u32], _: &[u32]) -> Vec<String> {
            vec![]
        }
        fn describe_state(&self, s: &[u32]) -> Vec<String> {
            vec![format!("x = {}", s[0])]
        }
    }
    impl Model for Ring {
        type Successors<'a> = Steps;
        fn state_words(&self) -> usize {
            1
        }
        fn initial_state(&self) -> Vec<u32> {
            vec![0]
        }
        fn successors(&self) -> Steps {
            Steps([0])
        }
        fn labels(&self) -> Vec<Label> {
            vec![]
        }
        fn label(&self, _: &[u32], _: LabelId) -> Result<bool, EvalError> {
            Ok(false)
        }
        fn is_accepting(&self, _: &[u32]) -> bool {
            false
        }
        fn property(&self) -> Option<&str> {
            None
        }
    }

    #[test]
    fn values_follow_the_vertices() {
        let square = |s: &[u32]| Ok(i64::from(s[0]) * i64::from(s[0]));
        let one = |_: &[u32]| Ok(1);
        let g = state_graph_valued(&Ring, None, &[&square, &one]).unwrap();
        assert_eq!(g.graph.graph.vertices(), 4);
        assert_eq!(g.values, vec![vec![0, 1, 4, 9], vec![1; 4]]);
        assert_eq!(g.state(2, 1), Some(&[2u32][..]));
        assert_eq!(g.state(4, 1), None);
    }

    #[test]
    fn an_error_names_the_state() {
        let inverse = |s: &[u32]| if s[0] == 3 { Err(EvalError::DivisionByZero) } else { Ok(1) };
        match state_graph_valued(&Ring, None, &[&inverse]) {
            Err(ValuedGraphError::Eval { function: 0, vertex: 3, state, .. }) => assert_eq!(state, [3]),
            other => panic!("{:?}", other.err()),
        }
    }
}
