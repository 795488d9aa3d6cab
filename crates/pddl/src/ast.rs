//! The parsed, name-resolved PDDL task: [`Domain`] and [`Problem`]. Names are resolved
//! to indices (types, predicates, functions, objects); variables are numbered slots of
//! their action (parameters first, then quantified variables in order of binding) or
//! of the goal. This is the lifted task that the grounder and the validator both read.

use rustc_hash::FxHashMap;

use crate::diagnostic::Span;
use crate::numeric::{Assign, Cmp, Ratio};

/// A set of types (one, or several from `(either ...)`): an object fits when it has
/// any of them.
pub type TypeSet = Vec<usize>;

/// The built-in root type `object` is type 0.
pub const OBJECT: usize = 0;

/// A declared type.
#[derive(Clone, Debug)]
pub struct Type {
    /// The name.
    pub name: String,
    /// Direct supertypes (none for `object`).
    pub parents: Vec<usize>,
}

/// A constant of the domain or an object of the problem.
#[derive(Clone, Debug)]
pub struct Object {
    /// The name.
    pub name: String,
    /// Its declared types.
    pub types: TypeSet,
}

/// A predicate: its name and parameter types.
#[derive(Clone, Debug)]
pub struct Predicate {
    /// The name.
    pub name: String,
    /// One type set per parameter.
    pub params: Vec<TypeSet>,
}

/// A numeric function: static (no action changes it: its values come from `:init`),
/// a numeric fluent (some action's `increase`, `decrease` or `assign` changes it), or
/// `total-cost`.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name.
    pub name: String,
    /// The number of arguments.
    pub arity: usize,
    /// Some action's effect changes it (`total-cost` excepted).
    pub fluent: bool,
}

/// A variable slot (of an action or the goal) or an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A variable: its slot.
    Var(usize),
    /// A constant or object: its index.
    Object(usize),
}

/// `(p t1 ... tn)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The predicate.
    pub predicate: usize,
    /// The arguments.
    pub args: Vec<Term>,
}

/// A variable bound by a parameter list or a quantifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The name, with its `?`.
    pub name: String,
    /// Its slot.
    pub slot: usize,
    /// The objects it ranges over: those of any of these types.
    pub types: TypeSet,
}

/// A condition (precondition or goal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// An atom.
    Atom(Atom),
    /// `(= t1 t2)`: the same object.
    Equal(Term, Term),
    /// `(not f)`.
    Not(Box<Formula>),
    /// `(and ...)`; `(and)` is true.
    And(Vec<Formula>),
    /// `(or ...)`; `(or)` is false.
    Or(Vec<Formula>),
    /// `(imply a b)`.
    Imply(Box<Formula>, Box<Formula>),
    /// `(forall (vars) f)`.
    Forall(Vec<Variable>, Box<Formula>),
    /// `(exists (vars) f)`.
    Exists(Vec<Variable>, Box<Formula>),
    /// `(< e1 e2)` and the like: a comparison of numeric expressions.
    Compare(Cmp, Expr, Expr),
}

/// An arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    /// Unary minus.
    Neg,
}

/// A numeric expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A number as written (exact), and where.
    Number(Ratio, Span),
    /// `(f t1 ... tn)`: a function's value.
    Fluent(usize, Vec<Term>, Span),
    /// An operator over its operands (two, or one for `Neg`), and where it is written.
    Op(Op, Vec<Expr>, Span),
}

impl Expr {
    /// Where it is written.
    pub fn span(&self) -> Span {
        match self {
            Expr::Number(_, span) | Expr::Fluent(_, _, span) | Expr::Op(_, _, span) => *span,
        }
    }
}

/// An effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The atom becomes true.
    Add(Atom),
    /// The atom becomes false (unless the same step adds it).
    Delete(Atom),
    /// `(forall (vars) effects)`.
    Forall(Vec<Variable>, Vec<Effect>),
    /// `(when condition effects)`: the effects happen when the condition holds before
    /// the step.
    When(Formula, Vec<Effect>),
    /// `(increase (total-cost) amount)`: the amount reads static functions only.
    Cost(Expr),
    /// `(increase (f ...) e)`, `(decrease ...)`, `(assign ...)` of a numeric fluent,
    /// and where the effect is written.
    Numeric(Assign, usize, Vec<Term>, Expr, Span),
}

/// An action schema.
#[derive(Clone, Debug)]
pub struct Action {
    /// The name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Its parameters, slots `0..parameters.len()`.
    pub parameters: Vec<Variable>,
    /// The number of variable slots (parameters and quantified variables).
    pub slots: usize,
    /// The precondition (`(and)` when absent).
    pub precondition: Formula,
    /// The effects, a conjunction.
    pub effects: Vec<Effect>,
}

/// A PDDL domain.
#[derive(Clone, Debug)]
pub struct Domain {
    /// The name.
    pub name: String,
    /// The types; type 0 is `object`.
    pub types: Vec<Type>,
    /// The constants, objects `0..constants.len()` of every problem.
    pub constants: Vec<Object>,
    /// The predicates.
    pub predicates: Vec<Predicate>,
    /// The functions.
    pub functions: Vec<Function>,
    /// The index of `total-cost` among the functions, when declared.
    pub total_cost: Option<usize>,
    /// The action schemas.
    pub actions: Vec<Action>,
}

/// A ground atom of the initial state: predicate and objects.
pub type GroundAtom = (usize, Vec<usize>);

/// A PDDL problem, resolved against its domain.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The name.
    pub name: String,
    /// Every object: the domain's constants first, then the problem's objects.
    pub objects: Vec<Object>,
    /// The objects of each type (subtypes included), by type index.
    pub objects_of_type: Vec<Vec<usize>>,
    /// The atoms true initially.
    pub init: Vec<GroundAtom>,
    /// The functions' values in `:init` (static functions and the numeric fluents'
    /// initial values): function and arguments.
    pub function_values: FxHashMap<(usize, Vec<usize>), Ratio>,
    /// The goal (its quantified variables use slots `0..goal_slots`).
    pub goal: Formula,
    /// The number of variable slots of the goal.
    pub goal_slots: usize,
    /// `(total-cost)` is in the metric: actions cost their `increase`; without a
    /// metric every action costs 1 (the plan length is minimised), with a net-benefit
    /// metric that leaves it out, 0.
    pub minimize_total_cost: bool,
    /// The goal's preferences (PDDL3 soft goals), in the order written.
    pub soft_goals: Vec<SoftGoal>,
    /// `(:metric maximize (- C (+ (total-cost) (* (is-violated p) w) ...)))`: the net
    /// benefit to maximise, C less the plan's cost and the weights of the soft goals it
    /// misses.
    pub net_benefit: Option<NetBenefit>,
}

/// A goal preference: a condition the plan should reach, at a penalty if it does not.
#[derive(Clone, Debug)]
pub struct SoftGoal {
    /// Its name in `(preference NAME ...)`.
    pub name: String,
    /// The condition (its quantified variables use the goal's slots).
    pub formula: Formula,
    /// The penalty when it does not hold at the end (its weight in the metric).
    pub penalty: u64,
}

/// A net-benefit metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetBenefit {
    /// The constant `C` the costs and penalties are taken from.
    pub constant: i64,
}

impl Problem {
    /// What one step costs when its `increase` effects add up to `increase`.
    pub fn step_cost(&self, increase: u64) -> u64 {
        match (self.minimize_total_cost, self.net_benefit) {
            (true, _) => increase,
            (false, Some(_)) => 0,
            (false, None) => 1,
        }
    }
}

impl Problem {
    /// A ground atom or function as PDDL writes it: `(name o1 o2)`.
    pub fn ground_name(&self, name: &str, objects: &[usize]) -> String {
        let mut text = format!("({name}");
        for &o in objects {
            text.push(' ');
            text.push_str(&self.objects[o].name);
        }
        text + ")"
    }

    /// The objects that fit a type set.
    pub fn objects_fitting(&self, types: &TypeSet) -> Vec<usize> {
        match types.as_slice() {
            [t] => self.objects_of_type[*t].clone(),
            _ => {
                let mut all: Vec<usize> = types.iter().flat_map(|t| self.objects_of_type[*t].iter().copied()).collect();
                all.sort_unstable();
                all.dedup();
                all
            }
        }
    }
}
