//! The grounded task: facts numbered `0..facts.len()`, a state is the set of true facts
//! as a bitset of `u32` words, and each ground action has a precondition, add and
//! delete lists, conditional effects and a cost. PDDL's step semantics: every
//! condition is read in the state before the step, deletes apply before adds (an atom
//! both deleted and added stays true).

/// A state: bit `f` of word `f / 32` is set when fact `f` is true.
pub type State = Vec<u32>;

/// Whether fact `f` is true in `state`.
#[inline]
pub fn has(state: &[u32], f: u32) -> bool {
    state[(f / 32) as usize] >> (f % 32) & 1 == 1
}

#[inline]
fn set(state: &mut [u32], f: u32) {
    state[(f / 32) as usize] |= 1 << (f % 32);
}

#[inline]
fn clear(state: &mut [u32], f: u32) {
    state[(f / 32) as usize] &= !(1 << (f % 32));
}

/// A ground condition in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// The fact is true.
    Fact(u32),
    /// The fact is false.
    NotFact(u32),
    /// All hold; `And([])` is true.
    And(Vec<Formula>),
    /// One holds; `Or([])` is false.
    Or(Vec<Formula>),
}

impl Formula {
    /// The formula that always holds.
    pub const TRUE: Formula = Formula::And(Vec::new());
    /// The formula that never holds.
    pub const FALSE: Formula = Formula::Or(Vec::new());

    /// Whether it holds in `state`.
    pub fn holds(&self, state: &[u32]) -> bool {
        match self {
            Formula::Fact(f) => has(state, *f),
            Formula::NotFact(f) => !has(state, *f),
            Formula::And(parts) => parts.iter().all(|p| p.holds(state)),
            Formula::Or(parts) => parts.iter().any(|p| p.holds(state)),
        }
    }
}

/// A condition split for speed: facts that must be true, facts that must be false, and
/// what remains of a disjunctive or quantified condition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Condition {
    /// Facts that must be true.
    pub positive: Vec<u32>,
    /// Facts that must be false.
    pub negative: Vec<u32>,
    /// The rest, when not a conjunction of literals.
    pub rest: Option<Formula>,
}

impl Condition {
    /// Splits a simplified formula: the literals of its top-level conjunction, the rest.
    pub fn from_formula(f: Formula) -> Condition {
        let parts = match f {
            Formula::And(parts) => parts,
            other => vec![other],
        };
        let mut c = Condition::default();
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Formula::Fact(f) => c.positive.push(f),
                Formula::NotFact(f) => c.negative.push(f),
                other => rest.push(other),
            }
        }
        c.positive.sort_unstable();
        c.positive.dedup();
        c.negative.sort_unstable();
        c.negative.dedup();
        if !rest.is_empty() {
            c.rest = Some(if rest.len() == 1 { rest.remove(0) } else { Formula::And(rest) });
        }
        c
    }

    /// Whether it holds in `state`.
    pub fn holds(&self, state: &[u32]) -> bool {
        self.positive.iter().all(|&f| has(state, f))
            && self.negative.iter().all(|&f| !has(state, f))
            && self.rest.as_ref().is_none_or(|r| r.holds(state))
    }
}

/// Effects that happen when their condition holds before the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionalEffect {
    /// The condition.
    pub condition: Condition,
    /// Facts made true.
    pub add: Vec<u32>,
    /// Facts made false.
    pub delete: Vec<u32>,
}

/// A ground action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// As planners print it: `(move a b)`.
    pub name: String,
    /// The precondition.
    pub precondition: Condition,
    /// Facts made true.
    pub add: Vec<u32>,
    /// Facts made false.
    pub delete: Vec<u32>,
    /// Conditional effects.
    pub conditional: Vec<ConditionalEffect>,
    /// The cost (1 per action when the problem has no `total-cost` metric).
    pub cost: u64,
}

impl Action {
    /// The successor of `state` by this action (applicable or not) into `out`.
    pub fn apply(&self, state: &[u32], out: &mut State) {
        out.clear();
        out.extend_from_slice(state);
        let fired: Vec<&ConditionalEffect> = self.conditional.iter().filter(|c| c.condition.holds(state)).collect();
        for &f in self.delete.iter().chain(fired.iter().flat_map(|c| c.delete.iter())) {
            clear(out, f);
        }
        for &f in self.add.iter().chain(fired.iter().flat_map(|c| c.add.iter())) {
            set(out, f);
        }
    }
}

/// A grounded planning task.
#[derive(Clone, Debug)]
pub struct Task {
    /// The facts' names, `(at a)`, by number.
    pub facts: Vec<String>,
    /// The ground actions.
    pub actions: Vec<Action>,
    /// The initial state.
    pub init: State,
    /// The goal.
    pub goal: Condition,
    /// Words per state: `ceil(facts / 32)`, at least 1.
    pub words: usize,
    /// The actions from `end_phase` on are a net-benefit task's end phase (see
    /// `ground`), not actions of the domain: `actions.len()` for other tasks.
    pub end_phase: usize,
}

impl Task {
    /// The steps of `plan` (action indices) that are actions of the domain, by name:
    /// a net-benefit task's end phase left out.
    pub fn plan_names(&self, plan: &[usize]) -> Vec<String> {
        plan.iter().filter(|&&a| a < self.end_phase).map(|&a| self.actions[a].name.clone()).collect()
    }

    /// Whether every action costs 1 (breadth-first search is then optimal).
    pub fn unit_cost(&self) -> bool {
        self.actions.iter().all(|a| a.cost == 1)
    }

    /// The facts true in `state`, by name.
    pub fn describe(&self, state: &[u32]) -> Vec<&str> {
        (0..self.facts.len() as u32).filter(|&f| has(state, f)).map(|f| self.facts[f as usize].as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletes_apply_before_adds_and_conditions_read_the_old_state() {
        let a = Action {
            name: "(a)".into(),
            precondition: Condition::default(),
            add: vec![0],
            delete: vec![0, 1],
            conditional: vec![ConditionalEffect {
                condition: Condition { positive: vec![1], ..Condition::default() },
                add: vec![33],
                delete: vec![],
            }],
            cost: 1,
        };
        let mut out = Vec::new();
        a.apply(&[0b11, 0], &mut out);
        assert_eq!(out, vec![0b01, 0b10]);
        a.apply(&[0b01, 0], &mut out);
        assert_eq!(out, vec![0b01, 0]);
    }
}
