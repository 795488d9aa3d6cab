//! The grounded task: facts numbered `0..facts.len()`, a state is the set of true facts
//! as a bitset of `u32` words followed by one word per numeric fluent (a two's
//! complement `i32`), and each ground action has a precondition, add and delete lists,
//! conditional effects, numeric effects and a cost. PDDL's step semantics: every
//! condition and every numeric effect's value is read in the state before the step,
//! deletes apply before adds (an atom both deleted and added stays true). A numeric
//! effect whose result leaves the `i32` range is an error ([`OutOfRange`]), never a
//! wrapped value.

use crate::numeric::{Assign, Cmp};

/// A state: bit `f` of word `f / 32` is set when fact `f` is true; the numeric fluents'
/// words follow.
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

/// An integer expression over the numeric fluents of a state. The grounder builds
/// only expressions whose [`NumExpr::magnitude`], with every fluent anywhere in the
/// `i32` range, fits an `i64`: evaluation cannot overflow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumExpr {
    /// A constant.
    Const(i64),
    /// The fluent held in state word `w`.
    Var(u32),
    Add(Box<NumExpr>, Box<NumExpr>),
    Sub(Box<NumExpr>, Box<NumExpr>),
    Mul(Box<NumExpr>, Box<NumExpr>),
    Neg(Box<NumExpr>),
}

impl NumExpr {
    /// The value in `state`.
    pub fn eval(&self, state: &[u32]) -> i64 {
        match self {
            NumExpr::Const(c) => *c,
            NumExpr::Var(w) => i64::from(state[*w as usize] as i32),
            NumExpr::Add(a, b) => a.eval(state) + b.eval(state),
            NumExpr::Sub(a, b) => a.eval(state) - b.eval(state),
            NumExpr::Mul(a, b) => a.eval(state) * b.eval(state),
            NumExpr::Neg(a) => -a.eval(state),
        }
    }

    /// A bound on the absolute value whatever the fluents' values in the `i32` range
    /// (saturating).
    pub fn magnitude(&self) -> u128 {
        match self {
            NumExpr::Const(c) => u128::from(c.unsigned_abs()),
            NumExpr::Var(_) => 1 << 31,
            NumExpr::Add(a, b) | NumExpr::Sub(a, b) => a.magnitude().saturating_add(b.magnitude()),
            NumExpr::Mul(a, b) => a.magnitude().saturating_mul(b.magnitude()),
            NumExpr::Neg(a) => a.magnitude(),
        }
    }

    /// Calls `visit` with each word read.
    pub fn each_var(&self, visit: &mut impl FnMut(u32)) {
        match self {
            NumExpr::Const(_) => {}
            NumExpr::Var(w) => visit(*w),
            NumExpr::Add(a, b) | NumExpr::Sub(a, b) | NumExpr::Mul(a, b) => {
                a.each_var(visit);
                b.each_var(visit);
            }
            NumExpr::Neg(a) => a.each_var(visit),
        }
    }
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
    /// A comparison of two integer expressions.
    Compare(Cmp, NumExpr, NumExpr),
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
            Formula::Compare(cmp, a, b) => cmp.holds(a.eval(state).cmp(&b.eval(state))),
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
    /// Numeric effects.
    pub numeric: Vec<NumericEffect>,
}

/// A numeric effect: the fluent in state word `word` (numeric variable `var`) is
/// assigned, increased or decreased by `value`, read in the state before the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumericEffect {
    /// The variable (an index into [`Task::numeric`]).
    pub var: u32,
    /// Its state word.
    pub word: u32,
    pub op: Assign,
    pub value: NumExpr,
}

/// A numeric effect's result outside the `i32` range that a state word holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    /// The variable (an index into [`Task::numeric`]).
    pub var: u32,
    /// The value it would take.
    pub value: i64,
}

/// A numeric fluent of the grounded task: an integer state variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumericVar {
    /// As PDDL writes it: `(fuel-left truck-1)`.
    pub name: String,
    /// Its state word.
    pub word: u32,
    /// Its value in the initial state.
    pub init: i32,
    /// Bounds that hold in every reachable state (`None`: none proven), from
    /// [`crate::bounds`]; the state word holds any `i32` whatever they are.
    pub lower: Option<i64>,
    pub upper: Option<i64>,
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
    /// Numeric effects. A variable that an `assign` changes has no other effect in the
    /// action; several increases and decreases of one variable add up.
    pub numeric: Vec<NumericEffect>,
    /// The cost (1 per action when the problem has no `total-cost` metric).
    pub cost: u64,
}

impl Action {
    /// The successor of `state` by this action (applicable or not) into `out`; `Err`
    /// when a numeric effect's result leaves the `i32` range (`out` is then not a state).
    /// Every condition and amount reads `state`; the numeric effects apply one after
    /// another (those of the conditional effects that fire first, in order, then the
    /// others), each result checked, as the C successor code (`model/plan.c`) does.
    pub fn apply(&self, state: &[u32], out: &mut State) -> Result<(), OutOfRange> {
        out.clear();
        out.extend_from_slice(state);
        let fired: Vec<&ConditionalEffect> = self.conditional.iter().filter(|c| c.condition.holds(state)).collect();
        for &f in self.delete.iter().chain(fired.iter().flat_map(|c| c.delete.iter())) {
            clear(out, f);
        }
        for &f in self.add.iter().chain(fired.iter().flat_map(|c| c.add.iter())) {
            set(out, f);
        }
        for e in fired.iter().flat_map(|c| c.numeric.iter()).chain(&self.numeric) {
            let old = i64::from(out[e.word as usize] as i32);
            let value = e.value.eval(state);
            // No overflow: the grounder bounds `value`'s magnitude far below `i64`'s.
            let new = match e.op {
                Assign::Assign => value,
                Assign::Increase => old + value,
                Assign::Decrease => old - value,
                Assign::ScaleUp => old * value,
            };
            let new = i32::try_from(new).map_err(|_| OutOfRange { var: e.var, value: new })?;
            out[e.word as usize] = new as u32;
        }
        Ok(())
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
    /// Words per state: `ceil(facts / 32)`, at least 1, then one per numeric fluent.
    pub words: usize,
    /// The numeric fluents, in the order of their state words.
    pub numeric: Vec<NumericVar>,
    /// A numeric fluent's state word holds its value times `scale` (1 when every value
    /// met is an integer; else the least common denominator of the constants that meet
    /// the fluents): `init`, `lower`, `upper` and the expressions are in these units.
    pub scale: i64,
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

    /// The words of the facts, before the numeric fluents' words.
    pub fn fact_words(&self) -> usize {
        self.words - self.numeric.len()
    }

    /// The numeric fluents' values in `state`, as `(name) = value`.
    pub fn describe_numeric(&self, state: &[u32]) -> Vec<String> {
        self.numeric
            .iter()
            .map(|v| format!("{} = {}", v.name, self.value(i64::from(state[v.word as usize] as i32))))
            .collect()
    }

    /// A numeric fluent's value held as `scaled` (in units of 1 / [`Task::scale`]),
    /// as a decimal number (or a fraction when it has no decimal form).
    pub fn value(&self, scaled: i64) -> String {
        crate::numeric::Ratio::new(scaled.into(), self.scale.max(1).into())
            .map_or(scaled.to_string(), |r| r.to_decimal())
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
                numeric: vec![],
            }],
            numeric: vec![],
            cost: 1,
        };
        let mut out = Vec::new();
        a.apply(&[0b11, 0], &mut out).unwrap();
        assert_eq!(out, vec![0b01, 0b10]);
        a.apply(&[0b01, 0], &mut out).unwrap();
        assert_eq!(out, vec![0b01, 0]);
    }

    #[test]
    fn numeric_effects_read_the_old_state_and_refuse_to_wrap() {
        // Word 1 := word 1 + word 2, word 2 := word 1 (the old value).
        let var = |w: u32| NumExpr::Var(w);
        let effect = |v: u32, op, value| NumericEffect { var: v, word: v + 1, op, value };
        let a = Action {
            name: "(a)".into(),
            precondition: Condition::default(),
            add: vec![],
            delete: vec![],
            conditional: vec![],
            numeric: vec![effect(0, Assign::Increase, var(2)), effect(1, Assign::Assign, var(1))],
            cost: 1,
        };
        let mut out = Vec::new();
        a.apply(&[0, 5, (-3i32) as u32], &mut out).unwrap();
        assert_eq!(out, vec![0, 2, 5]);
        assert_eq!(a.apply(&[0, i32::MAX as u32, 1], &mut out), Err(OutOfRange { var: 0, value: 1 << 31 }));
        let down = Action { numeric: vec![effect(0, Assign::Decrease, var(2))], ..a };
        let min = i64::from(i32::MIN) - 1;
        assert_eq!(down.apply(&[0, i32::MIN as u32, 1], &mut out), Err(OutOfRange { var: 0, value: min }));
        let cmp = Formula::Compare(Cmp::Less, var(1), NumExpr::Mul(Box::new(var(2)), Box::new(NumExpr::Const(2))));
        assert!(cmp.holds(&[0, (-7i32) as u32, (-3i32) as u32]));
        assert!(!cmp.holds(&[0, (-6i32) as u32, (-3i32) as u32]));
    }
}
