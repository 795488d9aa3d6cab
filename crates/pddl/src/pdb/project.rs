//! Projecting the task onto a pattern: the task's facts grouped into variables
//! ([`Grouping`]), a pattern's variables from its facts ([`Context::group`]), and the
//! actions projected onto them as abstract operators ([`Context::project`]).

use rustc_hash::FxHashMap;

use super::MAX_TOUCHING;
use crate::invariant::Variable;
use crate::task::{Condition, Formula, Task};

/// What an abstract operator needs of a variable's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Pre {
    Any,
    Is(u32),
    Not(Vec<u32>),
}

impl Pre {
    pub(super) fn allows(&self, x: u32) -> bool {
        match self {
            Pre::Any => true,
            Pre::Is(v) => *v == x,
            Pre::Not(vs) => !vs.contains(&x),
        }
    }
}

/// What it does to the value: keeps it, sets it, or makes it "none" when it is one of
/// the deleted values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Change {
    Keep,
    Set(u32),
    Clear(Vec<u32>),
}

/// An abstract operator's need and effect on one variable of the pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Part {
    pub(super) var: u32,
    pub(super) pre: Pre,
    pub(super) change: Change,
}

/// A projected action: its parts on the variables it constrains or changes.
pub(super) type Op = Vec<Part>;

/// For each fact, the actions whose effects (conditional ones included) change it.
pub(super) fn touching(task: &Task) -> Vec<Vec<u32>> {
    let mut by_fact = vec![Vec::new(); task.facts.len()];
    for (i, a) in task.actions.iter().enumerate() {
        let effects = a.add.iter().chain(&a.delete);
        let conditional = a.conditional.iter().flat_map(|c| c.add.iter().chain(&c.delete));
        for &f in effects.chain(conditional) {
            let list: &mut Vec<u32> = &mut by_fact[f as usize];
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    by_fact
}

/// What [`Context`] borrows: the task's variables, each fact's variable, and for each
/// fact the actions that change it.
pub(super) struct Grouping {
    vars: Vec<Variable>,
    var_of: Vec<u32>,
    touching: Vec<Vec<u32>>,
}

impl Grouping {
    pub(super) fn new(task: &Task) -> Grouping {
        let vars = crate::invariant::variables(task);
        let mut var_of = vec![0u32; task.facts.len()];
        for (i, v) in vars.iter().enumerate() {
            for &f in &v.facts {
                var_of[f as usize] = i as u32;
            }
        }
        Grouping { vars, var_of, touching: touching(task) }
    }

    pub(super) fn context<'a>(&'a self, task: &'a Task) -> Context<'a> {
        Context { task, vars: &self.vars, var_of: &self.var_of, touching: &self.touching }
    }
}

/// The task with its variables, for choosing and projecting patterns.
pub(super) struct Context<'a> {
    pub(super) task: &'a Task,
    pub(super) vars: &'a [Variable],
    /// The variable of each fact.
    pub(super) var_of: &'a [u32],
    pub(super) touching: &'a [Vec<u32>],
}

/// Each pattern fact's variable and position.
pub(super) fn slots(pattern: &[Variable]) -> FxHashMap<u32, (u32, u32)> {
    let by_var = pattern
        .iter()
        .enumerate()
        .map(|(v, var)| var.facts.iter().enumerate().map(move |(x, &f)| (f, (v as u32, x as u32))));
    by_var.flatten().collect()
}

/// The variables' values that `c`'s literals need (`slot[f]`: fact `f`'s pattern
/// variable and position, or none), into `pre`; false when `c` cannot hold.
pub(super) fn constrain(c: &Condition, slot: &FxHashMap<u32, (u32, u32)>, pre: &mut [Pre]) -> bool {
    if c.rest == Some(Formula::FALSE) {
        return false;
    }
    for &f in &c.positive {
        if let Some(&(v, x)) = slot.get(&f) {
            let p = &mut pre[v as usize];
            if !p.allows(x) {
                return false;
            }
            *p = Pre::Is(x);
        }
    }
    for &f in &c.negative {
        if let Some(&(v, x)) = slot.get(&f) {
            match &mut pre[v as usize] {
                Pre::Is(y) if *y == x => return false,
                Pre::Is(_) => {}
                p @ Pre::Any => *p = Pre::Not(vec![x]),
                Pre::Not(xs) => {
                    if !xs.contains(&x) {
                        xs.push(x);
                        xs.sort_unstable();
                    }
                }
            }
        }
    }
    true
}

impl Context<'_> {
    /// The pattern's variables for `facts`: those of one invariant group together (in
    /// the group's order, the groups in the order of their first fact), exact when the
    /// whole of an exact group.
    pub(super) fn group(&self, facts: &[u32]) -> Vec<Variable> {
        let mut order: Vec<u32> = Vec::new();
        for &f in facts {
            if !order.contains(&self.var_of[f as usize]) {
                order.push(self.var_of[f as usize]);
            }
        }
        order
            .into_iter()
            .map(|v| {
                let var = &self.vars[v as usize];
                let subset: Vec<u32> = var.facts.iter().copied().filter(|f| facts.contains(f)).collect();
                Variable { exact: var.exact && subset.len() == var.facts.len(), facts: subset }
            })
            .collect()
    }

    /// The projection of the actions onto `pattern`, each distinct operator with its
    /// least cost; `None` when an action has more than [`MAX_TOUCHING`] conditional
    /// effects on it.
    pub(super) fn project(&self, pattern: &[Variable]) -> Option<Vec<(Op, u64)>> {
        let slot = slots(pattern);
        let facts = pattern.iter().flat_map(|v| &v.facts);
        let mut actions: Vec<u32> = facts.flat_map(|&f| self.touching[f as usize].iter().copied()).collect();
        actions.sort_unstable();
        actions.dedup();
        let k = pattern.len();
        let hits = |facts: &[u32]| facts.iter().any(|f| slot.contains_key(f));
        let mut ops: FxHashMap<Op, u64> = FxHashMap::default();
        for a in actions {
            let a = &self.task.actions[a as usize];
            let mut base = vec![Pre::Any; k];
            if !constrain(&a.precondition, &slot, &mut base) {
                continue;
            }
            let effects: Vec<_> = a.conditional.iter().filter(|c| hits(&c.add) || hits(&c.delete)).collect();
            if effects.len() > MAX_TOUCHING {
                return None;
            }
            // Each set of the touching conditional effects that may fire together.
            'outcome: for fired in 0..1u32 << effects.len() {
                let mut pre = base.clone();
                let (mut adds, mut deletes): (Vec<&u32>, Vec<&u32>) =
                    (a.add.iter().collect(), a.delete.iter().collect());
                for (_, c) in effects.iter().enumerate().filter(|&(i, _)| fired >> i & 1 == 1) {
                    if !constrain(&c.condition, &slot, &mut pre) {
                        continue 'outcome;
                    }
                    adds.extend(&c.add);
                    deletes.extend(&c.delete);
                }
                let mut change = vec![Change::Keep; k];
                for f in deletes {
                    if let Some(&(v, x)) = slot.get(f) {
                        match &mut change[v as usize] {
                            c @ Change::Keep => *c = Change::Clear(vec![x]),
                            Change::Clear(xs) => xs.push(x),
                            Change::Set(_) => {}
                        }
                    }
                }
                // Deletes apply before adds; the invariants allow one add per variable.
                for f in adds {
                    if let Some(&(v, x)) = slot.get(f) {
                        change[v as usize] = Change::Set(x);
                    }
                }
                let mut op: Op = Vec::new();
                for (v, (pre, change)) in pre.into_iter().zip(change).enumerate() {
                    let none = pattern[v].facts.len() as u32;
                    let change = match (&pre, change) {
                        (Pre::Is(x), Change::Set(y)) if *x == y => Change::Keep,
                        (Pre::Is(x), Change::Clear(xs)) if xs.contains(x) => Change::Set(none),
                        (Pre::Is(_), Change::Clear(_)) => Change::Keep,
                        // Values the condition rules out are not cleared.
                        (pre, Change::Clear(mut xs)) => {
                            xs.retain(|&x| pre.allows(x));
                            xs.sort_unstable();
                            xs.dedup();
                            if xs.is_empty() {
                                Change::Keep
                            } else {
                                Change::Clear(xs)
                            }
                        }
                        (_, change) => change,
                    };
                    if pre != Pre::Any || change != Change::Keep {
                        op.push(Part { var: v as u32, pre, change });
                    }
                }
                if op.iter().all(|p| p.change == Change::Keep) {
                    continue;
                }
                // Changes first: they rule out most states soonest in the regression.
                op.sort_by_key(|p| (p.change == Change::Keep, p.var));
                let cost = ops.entry(op).or_insert(a.cost);
                *cost = (*cost).min(a.cost);
            }
        }
        let mut ops: Vec<(Op, u64)> = ops.into_iter().collect();
        ops.sort_unstable();
        Some(ops)
    }
}
