//! The plan validator: replays a plan on the lifted semantics of the parsed domain and
//! problem ([`crate::ast`]), independently of the grounder and the grounded task. The
//! state is the set of true atoms, static ones included; each step's action is looked
//! up by name, its arguments by object name and checked against the parameter types,
//! its precondition evaluated (quantifiers over the objects of their types), its
//! effects computed in the old state and applied deletes first; the goal is checked at
//! the end and the cost recomputed from the `increase` effects and `:init`'s function
//! values (or 1 per step without a `total-cost` metric).
//!
//! Numeric fluents are simulated on exact rationals ([`Ratio`]), every function's
//! value (static or not) kept in the state: each numeric effect's new value is computed
//! in the old state. A comparison that reads an undefined value (no value in `:init`, a
//! division by zero, an overflow of `i128` fractions) is false, negated or not; a step
//! whose effect reads or changes an undefined value is invalid.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::{Atom, Domain, Effect, Expr, Formula, Op, Problem, Term, Variable};
use crate::numeric::{Assign, Ratio};

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
    domain: &'a Domain,
    problem: &'a Problem,
    state: FxHashSet<AtomKey>,
    /// Every function's value, by function and objects.
    values: FxHashMap<AtomKey, Ratio>,
}

/// What one step does, computed in the state before it.
#[derive(Default)]
struct Changes {
    adds: Vec<AtomKey>,
    deletes: Vec<AtomKey>,
    values: Vec<(AtomKey, Ratio)>,
    cost: u64,
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
fn replay<'a>(domain: &'a Domain, problem: &'a Problem, plan: &[String]) -> Result<(u64, Replay<'a>), ValidationError> {
    let mut replay = Replay {
        domain,
        problem,
        state: problem.init.iter().cloned().collect(),
        values: problem.function_values.clone(),
    };
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
        let mut changes = Changes::default();
        replay.effects(&action.effects, &mut binding, &mut changes).map_err(bad)?;
        for d in changes.deletes {
            replay.state.remove(&d);
        }
        replay.state.extend(changes.adds);
        replay.values.extend(changes.values);
        cost = cost.saturating_add(problem.step_cost(changes.cost));
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
        self.truth(f, binding, true)
    }

    /// Whether `f` holds (`positive`) or fails (not `positive`): a comparison with an
    /// undefined value does neither.
    fn truth(&self, f: &Formula, binding: &mut Vec<usize>, positive: bool) -> bool {
        match f {
            Formula::Atom(a) => self.state.contains(&Self::key(a, binding)) == positive,
            Formula::Equal(a, b) => (Self::object(binding, a) == Self::object(binding, b)) == positive,
            Formula::Not(inner) => self.truth(inner, binding, !positive),
            Formula::And(parts) | Formula::Or(parts) => {
                if matches!(f, Formula::And(_)) == positive {
                    parts.iter().all(|p| self.truth(p, binding, positive))
                } else {
                    parts.iter().any(|p| self.truth(p, binding, positive))
                }
            }
            Formula::Imply(a, b) if positive => self.truth(a, binding, false) || self.truth(b, binding, true),
            Formula::Imply(a, b) => self.truth(a, binding, true) && self.truth(b, binding, false),
            Formula::Forall(vars, body) | Formula::Exists(vars, body) => {
                if matches!(f, Formula::Forall(..)) == positive {
                    self.every(vars, binding, &mut |b| self.truth(body, b, positive))
                } else {
                    !self.every(vars, binding, &mut |b| !self.truth(body, b, positive))
                }
            }
            Formula::Compare(cmp, a, b) => match (self.value(a, binding), self.value(b, binding)) {
                (Some(x), Some(y)) => x.checked_cmp(y).is_some_and(|order| cmp.holds(order) == positive),
                _ => false,
            },
        }
    }

    /// The value of `e`; `None` when undefined.
    fn value(&self, e: &Expr, binding: &[usize]) -> Option<Ratio> {
        match e {
            Expr::Number(r, _) => Some(*r),
            Expr::Fluent(f, args, _) => {
                self.values.get(&(*f, args.iter().map(|t| Self::object(binding, t)).collect())).copied()
            }
            Expr::Op(op, operands, _) => {
                let a = self.value(&operands[0], binding)?;
                let b = || self.value(&operands[1], binding);
                match op {
                    Op::Neg => a.checked_neg(),
                    Op::Add => a.checked_add(b()?),
                    Op::Sub => a.checked_sub(b()?),
                    Op::Mul => a.checked_mul(b()?),
                    Op::Div => a.checked_div(b()?),
                }
            }
        }
    }

    fn name(&self, f: usize, objects: &[usize]) -> String {
        self.problem.ground_name(&self.domain.functions[f].name, objects)
    }

    fn effects(&self, effects: &[Effect], binding: &mut Vec<usize>, out: &mut Changes) -> Result<(), String> {
        for e in effects {
            match e {
                Effect::Add(a) => out.adds.push(Self::key(a, binding)),
                Effect::Delete(a) => out.deletes.push(Self::key(a, binding)),
                Effect::When(c, body) => {
                    if self.holds(c, binding) {
                        self.effects(body, binding, out)?;
                    }
                }
                Effect::Forall(vars, body) => {
                    let mut result = Ok(());
                    self.every(vars, binding, &mut |b| {
                        result = self.effects(body, b, out);
                        result.is_ok()
                    });
                    result?;
                }
                Effect::Cost(amount) => {
                    let value = self.value(amount, binding).ok_or("has a cost without a value")?;
                    let c = value
                        .to_integer()
                        .and_then(|c| u64::try_from(c).ok())
                        .ok_or(format!("has the cost {value}, not a non-negative integer"))?;
                    out.cost = out.cost.saturating_add(c);
                }
                Effect::Numeric(op, f, args, amount, _) => {
                    let key: AtomKey = (*f, args.iter().map(|t| Self::object(binding, t)).collect());
                    let undefined = || format!("changes `{}` by an undefined value", self.name(*f, &key.1));
                    let amount = self.value(amount, binding).ok_or_else(undefined)?;
                    // After an earlier effect of this step on it (increases and decreases
                    // of one fluent add up).
                    let earlier = out.values.iter().rev().find(|(k, _)| *k == key).map(|&(_, v)| v);
                    let old = earlier.or_else(|| self.values.get(&key).copied());
                    let new = match (op, old) {
                        (Assign::Assign, _) => Some(amount),
                        (Assign::Increase, Some(old)) => old.checked_add(amount),
                        (Assign::Decrease, Some(old)) => old.checked_sub(amount),
                        (Assign::ScaleUp, Some(old)) => old.checked_mul(amount),
                        (_, None) => None,
                    };
                    out.values.push((key.clone(), new.ok_or_else(undefined)?));
                }
            }
        }
        Ok(())
    }
}
