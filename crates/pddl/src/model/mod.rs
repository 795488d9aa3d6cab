//! A grounded [`Task`] behind the model waist ([`warpcheck_model`]), so that the
//! exploration engines, on the CPU and the GPU, search planning tasks unchanged:
//!
//! - [`PlanningModel`] is a [`Model`]: a state is the task's bitset of facts, one
//!   transition group per ground action (in index order), and one label, `unsolved`,
//!   true where the goal does not hold: checked as an invariant, its first violation
//!   in breadth-first order is a goal state at the fewest steps, so a shortest
//!   counterexample is a plan of fewest actions (an optimal one when every action costs
//!   1);
//! - it is a [`CudaModel`] by one fixed C body, plan.c, reading the actions from a
//!   table (table.rs): the source stays small whatever the number of actions, and the
//!   same text compiles on the host, which is how the tests hold it to the CPU
//!   successors without a GPU.

mod table;

use std::sync::Arc;

use crate::search::Successors as Applicable;
use crate::task::{has, State, Task};
use warpcheck_model::cuda::{CudaModel, CudaSource, Table, Unsupported};
use warpcheck_model::interface::{Describe, Label, LabelId, LabelKind, Model, Step, Successors};
use warpcheck_model::EvalError;

/// The C body of every task (see the module documentation).
const BODY: &str = include_str!("plan.c");

/// The label that holds where the goal does not: the invariant a plan violates.
pub const UNSOLVED: LabelId = 0;

/// A grounded task as a model (cheap to clone: the task and its index are shared).
#[derive(Clone)]
pub struct PlanningModel {
    task: Arc<Task>,
    applicable: Arc<Applicable>,
}

impl PlanningModel {
    pub fn new(task: impl Into<Arc<Task>>) -> PlanningModel {
        let task = task.into();
        let applicable = Arc::new(Applicable::new(&task));
        PlanningModel { task, applicable }
    }

    /// The task.
    pub fn task(&self) -> &Task {
        &self.task
    }
}

/// The successor worker: the applicable actions and the successor being built.
pub struct PlanSteps<'m> {
    model: &'m PlanningModel,
    applicable: Vec<u32>,
    next: State,
}

impl Successors for PlanSteps<'_> {
    fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, state: &[u32], mut emit: F) -> bool {
        let task = &*self.model.task;
        self.model.applicable.applicable(task, state, &mut self.applicable);
        for &a in &self.applicable {
            let step = Step::of(std::slice::from_ref(&a));
            match task.actions[a as usize].apply(state, &mut self.next) {
                Ok(()) => emit(step, Ok(&self.next)),
                Err(_) => emit(step, Err(EvalError::Arithmetic { what: "a numeric fluent leaves the range of i32" })),
            }
        }
        self.applicable.is_empty()
    }
}

impl Describe for PlanningModel {
    fn describe_step(&self, step: &Step<'_>) -> String {
        step.groups.first().map_or_else(String::new, |&a| self.task.actions[a as usize].name.clone())
    }

    fn describe_error(&self, error: &EvalError) -> String {
        // No step of a planning task raises one.
        format!("{error:?}")
    }

    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        let facts = 0..self.task.facts.len() as u32;
        let name = |f: u32| &self.task.facts[f as usize];
        let removed = facts.clone().filter(|&f| has(before, f) && !has(after, f)).map(|f| format!("- {}", name(f)));
        let added = facts.filter(|&f| !has(before, f) && has(after, f)).map(|f| format!("+ {}", name(f)));
        let changed = self.task.numeric.iter().filter(|v| before[v.word as usize] != after[v.word as usize]);
        let numeric =
            changed.map(|v| format!("{} = {}", v.name, self.task.value(i64::from(after[v.word as usize] as i32))));
        removed.chain(added).chain(numeric).collect()
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        let facts = self.task.describe(state).into_iter().map(str::to_string);
        facts.chain(self.task.describe_numeric(state)).collect()
    }
}

impl Model for PlanningModel {
    type Successors<'a>
        = PlanSteps<'a>
    where
        Self: 'a;

    fn state_words(&self) -> usize {
        self.task.words
    }

    fn initial_state(&self) -> Vec<u32> {
        self.task.init.clone()
    }

    fn successors(&self) -> PlanSteps<'_> {
        PlanSteps { model: self, applicable: Vec::new(), next: Vec::new() }
    }

    fn labels(&self) -> Vec<Label> {
        vec![Label { name: "unsolved".into(), kind: LabelKind::Predicate }]
    }

    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        debug_assert_eq!(label, UNSOLVED);
        Ok(!self.task.goal.holds(state))
    }

    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }

    fn property(&self) -> Option<&str> {
        None
    }
}

/// States of at most this many words are kept in registers by the successor code
/// (`WC_PLAN_SELECT` in plan.c); `WARPCHECK_PLAN_SELECT=0|1` overrides it for
/// experiments.
const SELECT_WORDS: usize = 8;

fn select_words(words: usize) -> bool {
    match std::env::var("WARPCHECK_PLAN_SELECT") {
        Ok(v) => v == "1",
        Err(_) => words <= SELECT_WORDS,
    }
}

impl CudaModel for PlanningModel {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        if labels.iter().any(|&l| l != UNSOLVED) {
            return Err(Unsupported::Model(format!("a planning task has one label, asked for {labels:?}")));
        }
        let (data, depths) = table::build(&self.task, &self.applicable).map_err(|e| Unsupported::Model(e.0))?;
        // Rounded up, so that tasks alike share one source (and one compilation).
        let depth = depths.conditions.div_ceil(8) * 8;
        let values = depths.values.div_ceil(8) * 8;
        // Every label asked for is `unsolved`.
        let source = format!(
            "#define WC_WORDS {words}\n#define WC_ASSERTIONS 0\n#define WC_INVARIANTS {n}\n\
             #define WC_PLAN_STACK {depth}\n#define WC_PLAN_VALUES {values}\n{select}{BODY}\n\
             WC_FN int wc_label(int k, const u32 *s) {{ return k < {n} ? wc_plan_unsolved(s) : -1; }}\n\
             WC_FN int wc_invariant(int k, const u32 *s) {{ return wc_label(k, s) == 1; }}\n",
            words = self.task.words,
            n = labels.len(),
            select = if select_words(self.task.words) { "#define WC_PLAN_SELECT\n" } else { "" },
        );
        Ok(CudaSource {
            source,
            // Each action emits at most one successor.
            max_successors: self.task.actions.len().max(1) as u64,
            tables: vec![Table { name: "wc_plan".into(), data }],
        })
    }
}
