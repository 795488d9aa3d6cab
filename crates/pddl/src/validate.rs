//! The plan validator: replays a plan on the lifted semantics of the parsed domain and
//! problem ([`crate::ast`]), independently of the grounder and the grounded task. The
//! state is the set of true atoms, static ones included; each step's action is looked
//! up by name, its arguments by object name and checked against the parameter types,
//! its precondition evaluated (quantifiers over the objects of their types), its
//! effects computed in the old state and applied deletes first; the goal is checked at
//! the end and the cost recomputed from the `increase` effects and `:init`'s function
//! values (or 1 per step without a `total-cost` metric).

use rustc_hash::FxHashSet;

use crate::ast::{Atom, CostExpr, Domain, Effect, Formula, Problem, Term, Variable};

/// Why a plan is not a valid plan of the task.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// A step that is not an action of the domain with fitting objects.
    #[error("step {step}: `{text}` {why}")]
    BadStep {
        /// 1-based step number.
        step: usize,
        /// The step as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A step whose precondition does not hold.
    #[error("step {step}: the precondition of `{text}` does not hold")]
    Precondition {
        /// 1-based step number.
        step: usize,
        /// The step as given.
        text: String,
    },
    /// The goal does not hold after the last step.
    #[error("the goal does not hold after the plan's {steps} steps")]
    Goal {
        /// The plan's length.
        steps: usize,
    },
}

type AtomKey = (usize, Vec<usize>);

struct Replay<'a> {
    problem: &'a Problem,
    state: FxHashSet<AtomKey>,
}

/// Replays `plan` (steps like `(move a b)`, case-insensitive) from the initial state of
/// `problem` and returns its cost when every step is applicable and the goal holds.
pub fn validate(domain: &Domain, problem: &Problem, plan: &[String]) -> Result<u64, ValidationError> {
    Ok(replay(domain, problem, plan)?.0)
}

/// [`validate`] for a net-benefit task: the plan's cost and the penalties of the soft
/// goals that do not hold after it; its net benefit is the metric's constant less both.
pub fn validate_net_benefit(
    domain: &Domain,
    problem: &Problem,
    plan: &[String],
) -> Result<(u64, u64), ValidationError> {
    let (cost, replay) = replay(domain, problem, plan)?;
    let mut penalty = 0u64;
    for soft in &problem.soft_goals {
        let mut binding = vec![usize::MAX; problem.goal_slots];
        if !replay.holds(&soft.formula, &mut binding) {
            penalty = penalty.saturating_add(soft.penalty);
        }
    }
    Ok((cost, penalty))
}

/// The replay: the plan's cost and the final state, the goal checked.
fn replay<'a>(domain: &Domain, problem: &'a Problem, plan: &[String]) -> Result<(u64, Replay<'a>), ValidationError> {
    let mut replay = Replay { problem, state: problem.init.iter().cloned().collect() };
    let mut cost = 0u64;
    for (i, text) in plan.iter().enumerate() {
        let step = i + 1;
        let bad = |why: String| ValidationError::BadStep { step, text: text.clone(), why };
        let lower = text.to_lowercase();
        let inner = lower
            .trim()
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .ok_or_else(|| bad("is not of the form `(action objects...)`".into()))?;
        // Words as the reader splits names: at ASCII whitespace (a vertical tab is part
        // of a name there, as everywhere in the reader).
        let mut words = inner.split(|c: char| c.is_ascii_whitespace()).filter(|w| !w.is_empty());
        let name = words.next().ok_or_else(|| bad("names no action".into()))?;
        let action = domain
            .actions
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| bad(format!("names no action of the domain (`{name}`)")))?;
        let mut binding = vec![usize::MAX; action.slots];
        let args: Vec<&str> = words.collect();
        if args.len() != action.parameters.len() {
            return Err(bad(format!("gives {} argument(s), the action takes {}", args.len(), action.parameters.len())));
        }
        for (p, arg) in action.parameters.iter().zip(&args) {
            let o = problem
                .objects
                .iter()
                .position(|o| o.name == *arg)
                .ok_or_else(|| bad(format!("names no object `{arg}`")))?;
            if !problem.objects_fitting(&p.types).contains(&o) {
                return Err(bad(format!("`{arg}` is not of the type of {}", p.name)));
            }
            binding[p.slot] = o;
        }
        if !replay.holds(&action.precondition, &mut binding) {
            return Err(ValidationError::Precondition { step, text: text.clone() });
        }
        let mut adds = Vec::new();
        let mut deletes = Vec::new();
        let mut step_cost = 0u64;
        replay.effects(&action.effects, &mut binding, &mut adds, &mut deletes, &mut step_cost).map_err(bad)?;
        for d in deletes {
            replay.state.remove(&d);
        }
        replay.state.extend(adds);
        cost = cost.saturating_add(problem.step_cost(step_cost));
    }
    let mut binding = vec![usize::MAX; problem.goal_slots];
    if !replay.holds(&problem.goal, &mut binding) {
        return Err(ValidationError::Goal { steps: plan.len() });
    }
    Ok((cost, replay))
}

impl Replay<'_> {
    fn object(binding: &[usize], t: &Term) -> usize {
        match t {
            Term::Var(v) => binding[*v],
            Term::Object(o) => *o,
        }
    }

    fn key(atom: &Atom, binding: &[usize]) -> AtomKey {
        (atom.predicate, atom.args.iter().map(|t| Self::object(binding, t)).collect())
    }

    /// Calls `visit` for each assignment of `vars` until it returns false; whether
    /// it never did.
    fn every(
        &self,
        vars: &[Variable],
        binding: &mut Vec<usize>,
        visit: &mut dyn FnMut(&mut Vec<usize>) -> bool,
    ) -> bool {
        let Some((v, rest)) = vars.split_first() else {
            return visit(binding);
        };
        for o in self.problem.objects_fitting(&v.types) {
            binding[v.slot] = o;
            if !self.every(rest, binding, visit) {
                return false;
            }
        }
        true
    }

    fn holds(&self, f: &Formula, binding: &mut Vec<usize>) -> bool {
        match f {
            Formula::Atom(a) => self.state.contains(&Self::key(a, binding)),
            Formula::Equal(a, b) => Self::object(binding, a) == Self::object(binding, b),
            Formula::Not(inner) => !self.holds(inner, binding),
            Formula::And(parts) => parts.iter().all(|p| self.holds(p, binding)),
            Formula::Or(parts) => parts.iter().any(|p| self.holds(p, binding)),
            Formula::Imply(a, b) => !self.holds(a, binding) || self.holds(b, binding),
            Formula::Forall(vars, body) => self.every(vars, binding, &mut |b| self.holds(body, b)),
            Formula::Exists(vars, body) => !self.every(vars, binding, &mut |b| !self.holds(body, b)),
        }
    }

    fn effects(
        &self,
        effects: &[Effect],
        binding: &mut Vec<usize>,
        adds: &mut Vec<AtomKey>,
        deletes: &mut Vec<AtomKey>,
        cost: &mut u64,
    ) -> Result<(), String> {
        for e in effects {
            match e {
                Effect::Add(a) => adds.push(Self::key(a, binding)),
                Effect::Delete(a) => deletes.push(Self::key(a, binding)),
                Effect::When(c, body) => {
                    if self.holds(c, binding) {
                        self.effects(body, binding, adds, deletes, cost)?;
                    }
                }
                Effect::Forall(vars, body) => {
                    let mut result = Ok(());
                    self.every(vars, binding, &mut |b| {
                        result = self.effects(body, b, adds, deletes, cost);
                        result.is_ok()
                    });
                    result?;
                }
                Effect::Cost(CostExpr::Number(n)) => *cost = cost.saturating_add(*n),
                Effect::Cost(CostExpr::Function(f, args, _)) => {
                    let objects: Vec<usize> = args.iter().map(|t| Self::object(binding, t)).collect();
                    let value = self
                        .problem
                        .function_values
                        .get(&(*f, objects))
                        .ok_or_else(|| "has a cost without a value in `:init`".to_string())?;
                    *cost = cost.saturating_add(*value);
                }
            }
        }
        Ok(())
    }
}
