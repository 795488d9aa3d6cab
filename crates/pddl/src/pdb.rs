//! Pattern databases (Culberson and Schaeffer; Edelkamp, ECP 2001): the task projected
//! onto a few of its facts, the cheapest cost from every abstract state to an abstract
//! goal computed once (Dijkstra backwards), and a state's value read from that table.
//! A lookup reads the pattern's fact bits and one table entry, cheap enough for the
//! GPU's search, where LM-cut is not.
//!
//! A pattern's facts are grouped by the at-most-one invariants ([`crate::invariant`]):
//! the facts of one group form a variable whose value is the position of its true fact
//! (or "none"), so a group of n facts costs n + 1 table entries, not 2^n, and the
//! table holds no state with two of them true. The index is the variables' values as
//! mixed-radix digits.
//!
//! The projection keeps every transition of the task from a reachable state:
//! conditions on facts outside the pattern, disjunctive and numeric conditions and
//! numeric effects are dropped, and a conditional effect that touches the pattern may
//! fire or not. So a value is admissible and consistent, a goal state's is 0, and a
//! state whose abstract goal distance is infinite ([`DEAD`]) is a dead end. Several
//! patterns are combined as the canonical heuristic: the largest sum over sets of
//! patterns that no action touches two of (such sums stay admissible).
//!
//! Patterns are chosen greedily: goal facts first, then the facts that the actions
//! changing a pattern fact are conditioned on, while the table and the work of
//! computing it stay within a budget. Up to [`MAX_PATTERNS`]: wide ones from all the
//! goal facts (those that do not fit start the next); narrow ones from one goal fact
//! each, growing fact by fact, and again growing by whole variables.

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use strength_reduce::StrengthReducedUsize;

use crate::invariant::{variables, Variable};
use crate::task::{Condition, Formula, Task};

/// A table value: no abstract path to the goal.
pub const DEAD: u32 = u32::MAX;

/// The most entries of a pattern's table grown from all the goal facts (`4 << 22`
/// bytes), and of one grown from a single goal fact.
const MAX_SIZE: usize = 1 << 22;
const SINGLE_SIZE: usize = 1 << 16;
/// The most patterns grown from all the goal facts (those left out by the ones before),
/// and the most grown from a single goal fact each.
const MAX_WIDE: usize = 2;
const MAX_SINGLE: usize = 8;
/// The most patterns (the GPU's `WC_PDB_MAX`).
pub const MAX_PATTERNS: usize = MAX_WIDE + 2 * MAX_SINGLE;
/// The most operator checks (abstract states times abstract operators) a wide table may
/// cost to compute, and a single goal's.
const WORK: u64 = 60_000_000;
const SINGLE_WORK: u64 = 10_000_000;
/// The most conditional effects of one action that may touch a pattern (each
/// operator has up to `2^this` outcomes).
const MAX_TOUCHING: usize = 4;
/// The most variables tried in a row that do not fit before a pattern is complete.
const MAX_MISSES: usize = 8;

/// One pattern and its table: `table[i]` is the cheapest abstract cost to the goal
/// (saturated below [`DEAD`]) of the states whose variables' values are the digits of
/// `i` (mixed radix, the first variable the most significant).
#[derive(Clone, Debug)]
pub struct Pattern {
    pub vars: Vec<Variable>,
    pub table: Vec<u32>,
}

impl Pattern {
    /// The table index of `state`.
    pub fn index(&self, state: &[u32]) -> usize {
        self.vars.iter().fold(0, |i, v| i * v.radix() + v.value(state))
    }
}

/// The patterns of a task and the sets of them whose values add up.
#[derive(Clone, Debug)]
pub struct Pdbs {
    pub patterns: Vec<Pattern>,
    /// Masks of patterns that no action touches two of (the maximal such sets).
    pub additive: Vec<u32>,
}

/// What an abstract operator needs of a variable's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Pre {
    Any,
    Is(u32),
    Not(Vec<u32>),
}

impl Pre {
    fn allows(&self, x: u32) -> bool {
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
enum Change {
    Keep,
    Set(u32),
    Clear(Vec<u32>),
}

/// An abstract operator's need and effect on one variable of the pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Part {
    var: u32,
    pre: Pre,
    change: Change,
}

/// A projected action: its parts on the variables it constrains or changes.
type Op = Vec<Part>;

impl Pdbs {
    /// Patterns for `task` and their tables.
    pub fn build(task: &Task) -> Pdbs {
        if task.goal.rest == Some(Formula::FALSE) {
            // A goal that never holds (the grounder's form of an unreachable goal fact):
            // the empty pattern, every state a dead end.
            return Pdbs { patterns: vec![Pattern { vars: Vec::new(), table: vec![DEAD] }], additive: vec![1] };
        }
        let vars = variables(task);
        let mut var_of = vec![0u32; task.facts.len()];
        for (i, v) in vars.iter().enumerate() {
            for &f in &v.facts {
                var_of[f as usize] = i as u32;
            }
        }
        let touching = touching(task);
        let ctx = Context { task, vars: &vars, var_of: &var_of, touching: &touching };
        let all: Vec<u32> = task.goal.positive.iter().chain(&task.goal.negative).copied().collect();
        // The patterns first (each new and not empty), then their tables, on all threads
        // of the pool; a table of zeros only is dropped (it would cost time at every
        // state and add nothing).
        let mut built: Vec<Vec<Variable>> = Vec::new();
        let mut add = |facts: Vec<u32>| {
            let pattern = ctx.group(&facts);
            if pattern.is_empty() || built.contains(&pattern) {
                return false;
            }
            built.push(pattern);
            true
        };
        // Wide patterns: as many goal facts as fit, then the facts they depend on.
        let mut goals = all.clone();
        for _ in 0..MAX_WIDE {
            let facts = ctx.select(&goals, false, MAX_SIZE, WORK);
            goals.retain(|g| !facts.contains(g));
            if !add(facts) || goals.is_empty() {
                break;
            }
        }
        // Narrow ones: a goal fact and what it depends on, deeper (at most one for each
        // goal, in the goal's order).
        for whole in [false, true] {
            let mut single = 0;
            for &g in all.iter().filter(|_| all.len() > 1) {
                if single == MAX_SINGLE {
                    break;
                }
                single += usize::from(add(ctx.select(&[g], whole, SINGLE_SIZE, SINGLE_WORK)));
            }
        }
        let tables: Vec<Vec<u32>> = built
            .par_iter()
            .map(|pattern| distances(task, pattern, &ctx.project(pattern).expect("a selected pattern projects")))
            .collect();
        let patterns: Vec<Pattern> = built
            .into_iter()
            .zip(tables)
            .filter(|(_, table)| table.iter().any(|&t| t != 0))
            .map(|(vars, table)| Pattern { table, vars })
            .collect();
        let additive = additive_sets(&touching, &patterns);
        Pdbs { patterns, additive }
    }

    /// The value of `state`; `None` for a dead end.
    pub fn value(&self, state: &[u32]) -> Option<u64> {
        let mut values = [0u64; MAX_PATTERNS];
        for (v, p) in values.iter_mut().zip(&self.patterns) {
            match p.table[p.index(state)] {
                DEAD => return None,
                t => *v = u64::from(t),
            }
        }
        let sum = |mask: u32| (0..self.patterns.len()).filter(|&j| mask >> j & 1 == 1).map(|j| values[j]).sum::<u64>();
        Some(self.additive.iter().map(|&m| sum(m)).max().unwrap_or(0))
    }

    /// The patterns as the GPU search reads them: `[patterns, sets, then each pattern's
    /// variable count, table offset (into this array) and variables (each its radix,
    /// fact count and facts), then the sets' masks]`, the tables after.
    pub fn flatten(&self) -> Vec<u32> {
        let var_words = |p: &Pattern| p.vars.iter().map(|v| 2 + v.facts.len()).sum::<usize>();
        let head = 2 + self.patterns.iter().map(|p| 2 + var_words(p)).sum::<usize>() + self.additive.len();
        let mut out = vec![self.patterns.len() as u32, self.additive.len() as u32];
        let mut offset = head;
        for p in &self.patterns {
            out.extend([p.vars.len() as u32, offset as u32]);
            for v in &p.vars {
                out.extend([v.radix() as u32, v.facts.len() as u32]);
                out.extend(&v.facts);
            }
            offset += p.table.len();
        }
        out.extend(&self.additive);
        for p in &self.patterns {
            out.extend(&p.table);
        }
        out
    }
}

/// For each fact, the actions whose effects (conditional ones included) change it.
fn touching(task: &Task) -> Vec<Vec<u32>> {
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

/// The task with its variables, for choosing and projecting patterns.
struct Context<'a> {
    task: &'a Task,
    vars: &'a [Variable],
    /// The variable of each fact.
    var_of: &'a [u32],
    touching: &'a [Vec<u32>],
}

/// Each pattern fact's variable and position.
fn slots(pattern: &[Variable]) -> FxHashMap<u32, (u32, u32)> {
    let by_var = pattern
        .iter()
        .enumerate()
        .map(|(v, var)| var.facts.iter().enumerate().map(move |(x, &f)| (f, (v as u32, x as u32))));
    by_var.flatten().collect()
}

/// The variables' values that `c`'s literals need (`slot[f]`: fact `f`'s pattern
/// variable and position, or none), into `pre`; false when `c` cannot hold.
fn constrain(c: &Condition, slot: &FxHashMap<u32, (u32, u32)>, pre: &mut [Pre]) -> bool {
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
    /// The facts of a pattern grown from the facts `goals` (see the module
    /// documentation); empty when not even one fits.
    fn select(&self, goals: &[u32], whole: bool, max_size: usize, work: u64) -> Vec<u32> {
        let mut facts: Vec<u32> = Vec::new();
        let mut queue: Vec<u32> = goals.to_vec();
        let mut seen = vec![false; self.task.facts.len()];
        for &g in goals {
            seen[g as usize] = true;
        }
        let (mut next, mut misses) = (0, 0);
        while next < queue.len() && misses < MAX_MISSES {
            let f = queue[next];
            next += 1;
            let mut tried = facts.clone();
            if whole {
                let var = &self.vars[self.var_of[f as usize] as usize];
                tried.extend(var.facts.iter().filter(|g| !facts.contains(g)));
            } else {
                tried.push(f);
            }
            if tried.len() == facts.len() {
                continue;
            }
            let pattern = self.group(&tried);
            let size = pattern.iter().fold(1usize, |n, v| n.saturating_mul(v.radix()));
            let fits = size <= max_size
                && self
                    .project(&pattern)
                    .is_some_and(|ops| (ops.len() as u64).max(1).saturating_mul(size as u64) <= work);
            if !fits {
                misses += 1;
                continue;
            }
            let added = tried[facts.len()..].to_vec();
            (facts, misses) = (tried, 0);
            // The facts that the actions changing the new ones are conditioned on.
            for &a in added.iter().flat_map(|&f| &self.touching[f as usize]) {
                let a = &self.task.actions[a as usize];
                let conditions = std::iter::once(&a.precondition).chain(a.conditional.iter().map(|c| &c.condition));
                for c in conditions {
                    for &p in c.positive.iter().chain(&c.negative) {
                        if !seen[p as usize] && !self.touching[p as usize].is_empty() {
                            seen[p as usize] = true;
                            queue.push(p);
                        }
                    }
                }
            }
        }
        facts
    }

    /// The pattern's variables for `facts`: those of one invariant group together (in
    /// the group's order, the groups in the order of their first fact), exact when the
    /// whole of an exact group.
    fn group(&self, facts: &[u32]) -> Vec<Variable> {
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
    fn project(&self, pattern: &[Variable]) -> Option<Vec<(Op, u64)>> {
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

/// Every abstract state's cheapest cost to an abstract goal: Dijkstra from the goal
/// states over the operators reversed.
fn distances(task: &Task, pattern: &[Variable], ops: &[(Op, u64)]) -> Vec<u32> {
    let k = pattern.len();
    let radix: Vec<usize> = pattern.iter().map(Variable::radix).collect();
    let mut stride = vec![1usize; k];
    for v in (0..k.saturating_sub(1)).rev() {
        stride[v] = stride[v + 1] * radix[v + 1];
    }
    let size: usize = radix.iter().product();
    let mut dist = vec![u64::MAX; size];
    // Dijkstra's queue: the states by distance (few distinct distances, often).
    let mut queue: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    // The goal's values of each variable, then every combination.
    let slot = slots(pattern);
    let mut goal = vec![Pre::Any; k];
    if constrain(&task.goal, &slot, &mut goal) {
        let lists: Vec<Vec<u32>> =
            (0..k).map(|v| (0..radix[v] as u32).filter(|&x| goal[v].allows(x)).collect()).collect();
        each_combination(&lists, &stride, 0, &mut Vec::new(), |i| {
            dist[i] = 0;
            queue.entry(0).or_default().push(i as u32);
        });
    }
    // The operators by the value their first `Set` part gives (`by_value[start[v] + x]`:
    // those setting variable `v` to `x`): a state is a result of those matching its
    // values only. The operators without one (only `Clear`s) are tried at every state.
    let mut start = vec![0usize; k + 1];
    for v in 0..k {
        start[v + 1] = start[v] + radix[v];
    }
    let mut by_value: Vec<Vec<u32>> = vec![Vec::new(); start[k]];
    let mut always: Vec<u32> = Vec::new();
    for (i, (op, _)) in ops.iter().enumerate() {
        let set =
            op.iter()
                .find_map(|p| if let Change::Set(x) = p.change { Some((p.var as usize, x as usize)) } else { None });
        match set {
            Some((v, x)) if x < radix[v] => by_value[start[v] + x].push(i as u32),
            // "None" set on a variable without that value: never a result.
            Some(_) => {}
            None => always.push(i as u32),
        }
    }
    // Decoding a state's digits divides by the radixes: by multiplications.
    let fast_radix: Vec<StrengthReducedUsize> = radix.iter().map(|&r| StrengthReducedUsize::new(r)).collect();
    let mut digits = vec![0u32; k];
    let mut combination = Vec::new();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); k];
    let mut strides: Vec<usize> = Vec::new();
    while let Some((d, states)) = queue.pop_first() {
        for s in states {
            let s = s as usize;
            if d > dist[s] {
                continue;
            }
            let mut rest = s;
            for v in (0..k).rev() {
                let (q, r) = StrengthReducedUsize::div_rem(rest, fast_radix[v]);
                (digits[v], rest) = (r as u32, q);
            }
            let candidates = (0..k).flat_map(|v| &by_value[start[v] + digits[v] as usize]).chain(&always);
            'op: for &(ref op, cost) in candidates.map(|&i| &ops[i as usize]) {
                // The predecessors' values of each variable the operator names.
                let mut base = s;
                for (j, part) in op.iter().enumerate() {
                    let (v, y) = (part.var as usize, digits[part.var as usize]);
                    let list = &mut lists[j];
                    list.clear();
                    match &part.change {
                        Change::Keep => {
                            if !part.pre.allows(y) {
                                continue 'op;
                            }
                            list.push(y);
                        }
                        Change::Set(x) => {
                            if *x != y {
                                continue 'op;
                            }
                            list.extend((0..radix[v] as u32).filter(|&x| part.pre.allows(x)));
                        }
                        Change::Clear(xs) => {
                            let none = pattern[v].facts.len() as u32;
                            if y == none {
                                list.extend(
                                    std::iter::once(none).chain(xs.iter().copied()).filter(|&x| part.pre.allows(x)),
                                );
                            } else if !xs.contains(&y) && part.pre.allows(y) {
                                list.push(y);
                            }
                        }
                    }
                    if list.is_empty() {
                        continue 'op;
                    }
                    base -= y as usize * stride[v];
                }
                strides.clear();
                strides.extend(op.iter().map(|p| stride[p.var as usize]));
                let reached = d.saturating_add(cost);
                each_combination(&lists[..op.len()], &strides, base, &mut combination, |p| {
                    if reached < dist[p] {
                        dist[p] = reached;
                        queue.entry(reached).or_default().push(p as u32);
                    }
                });
            }
        }
    }
    dist.into_iter().map(|d| if d == u64::MAX { DEAD } else { d.min(u64::from(DEAD) - 1) as u32 }).collect()
}

/// Calls `visit` with `base` plus `lists[j][c_j] * strides[j]` summed, for every choice
/// `c` of one value from each list (`at`: scratch space).
fn each_combination(
    lists: &[Vec<u32>],
    strides: &[usize],
    base: usize,
    at: &mut Vec<usize>,
    mut visit: impl FnMut(usize),
) {
    if lists.iter().any(Vec::is_empty) {
        return;
    }
    at.clear();
    at.resize(lists.len(), 0);
    loop {
        visit(base + lists.iter().zip(at.iter()).zip(strides).map(|((l, &c), &s)| l[c] as usize * s).sum::<usize>());
        let mut j = lists.len();
        loop {
            if j == 0 {
                return;
            }
            j -= 1;
            at[j] += 1;
            if at[j] < lists[j].len() {
                break;
            }
            at[j] = 0;
        }
    }
}

/// The maximal sets of patterns that no action touches two of (the maximal cliques of
/// the graph of additive pairs).
fn additive_sets(touching: &[Vec<u32>], patterns: &[Pattern]) -> Vec<u32> {
    let n = patterns.len();
    let mut by_action: FxHashMap<u32, u32> = FxHashMap::default();
    for (j, p) in patterns.iter().enumerate() {
        for &f in p.vars.iter().flat_map(|v| &v.facts) {
            for &a in &touching[f as usize] {
                *by_action.entry(a).or_default() |= 1 << j;
            }
        }
    }
    // additive[i]: the patterns that add up with pattern i.
    let mut additive = vec![(1u32 << n) - 1; n];
    for m in by_action.into_values().filter(|m| m.count_ones() > 1) {
        for (i, a) in additive.iter_mut().enumerate() {
            if m >> i & 1 == 1 {
                *a &= !m;
            }
        }
    }
    let mut cliques = Vec::new();
    maximal_cliques(&additive, 0, (1u32 << n) - 1, 0, &mut cliques);
    if cliques.is_empty() {
        cliques.push(0);
    }
    cliques
}

/// Bron-Kerbosch: the maximal cliques that extend `clique` by vertices of `candidates`
/// and none of `excluded` (`neighbours[i]`: the vertices adjacent to `i`).
fn maximal_cliques(neighbours: &[u32], clique: u32, candidates: u32, excluded: u32, out: &mut Vec<u32>) {
    if candidates == 0 {
        if excluded == 0 && clique != 0 {
            out.push(clique);
        }
        return;
    }
    let (mut candidates, mut excluded) = (candidates, excluded);
    while candidates != 0 {
        let v = candidates.trailing_zeros();
        let adjacent = neighbours[v as usize] & !(1 << v);
        maximal_cliques(neighbours, clique | 1 << v, candidates & adjacent, excluded & adjacent, out);
        candidates &= !(1 << v);
        excluded |= 1 << v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The distances found forwards: each operator applied to every abstract state, then
    /// Dijkstra from the goal states over the edges reversed (an oracle for `distances`).
    fn forward(task: &Task, pattern: &[Variable], ops: &[(Op, u64)]) -> Vec<u32> {
        let k = pattern.len();
        let radix: Vec<usize> = pattern.iter().map(Variable::radix).collect();
        let size: usize = radix.iter().product();
        let digits = |mut i: usize| {
            let mut d = vec![0u32; k];
            for v in (0..k).rev() {
                d[v] = (i % radix[v]) as u32;
                i /= radix[v];
            }
            d
        };
        let index = |d: &[u32]| d.iter().zip(&radix).fold(0usize, |i, (&x, &r)| i * r + x as usize);
        let mut edges: Vec<Vec<(usize, u64)>> = vec![Vec::new(); size];
        for s in 0..size {
            let d = digits(s);
            'op: for (op, cost) in ops {
                let mut t = d.clone();
                for p in op {
                    let y = d[p.var as usize];
                    if !p.pre.allows(y) {
                        continue 'op;
                    }
                    match &p.change {
                        Change::Keep => {}
                        Change::Set(x) => t[p.var as usize] = *x,
                        Change::Clear(xs) => {
                            if xs.contains(&y) {
                                t[p.var as usize] = pattern[p.var as usize].facts.len() as u32
                            }
                        }
                    }
                }
                if t.iter().zip(&radix).any(|(&x, &r)| x as usize >= r) {
                    continue;
                }
                edges[index(&t)].push((s, *cost));
            }
        }
        let slot = slots(pattern);
        let mut goal = vec![Pre::Any; k];
        let mut dist = vec![u64::MAX; size];
        let mut heap = BinaryHeap::new();
        if constrain(&task.goal, &slot, &mut goal) {
            for (s, d) in dist.iter_mut().enumerate() {
                if digits(s).iter().enumerate().all(|(v, &x)| goal[v].allows(x)) {
                    *d = 0;
                    heap.push(Reverse((0u64, s)));
                }
            }
        }
        while let Some(Reverse((d, s))) = heap.pop() {
            if d > dist[s] {
                continue;
            }
            for &(p, c) in &edges[s] {
                if d + c < dist[p] {
                    dist[p] = d + c;
                    heap.push(Reverse((d + c, p)));
                }
            }
        }
        dist.into_iter().map(|d| if d == u64::MAX { DEAD } else { d as u32 }).collect()
    }

    /// The tables equal the distances found forwards (each operator applied to every
    /// abstract state), on tasks with exact and inexact groups, negative and
    /// conditional conditions, conditional deletes and action costs.
    #[test]
    fn backward_tables_equal_forward_distances() {
        let d = "(define (domain d) (:requirements :adl :action-costs)
          (:predicates (at ?p ?l) (in ?p) (lit ?l) (road ?a ?b) (broken))
          (:functions (total-cost))
          (:action load :parameters (?p ?l) :precondition (and (at ?p ?l) (not (broken)))
            :effect (and (not (at ?p ?l)) (in ?p) (increase (total-cost) 2)))
          (:action drop :parameters (?p ?l) :precondition (and (in ?p) (lit ?l))
            :effect (and (not (in ?p)) (at ?p ?l) (when (at ?p ?l) (broken)) (increase (total-cost) 1)))
          (:action burn :parameters (?p) :precondition (in ?p) :effect (and (not (in ?p)) (broken)))
          (:action light :parameters (?a ?b) :precondition (and (lit ?a) (road ?a ?b))
            :effect (and (lit ?b) (when (broken) (not (lit ?a))) (increase (total-cost) 1)))
          (:action fix :parameters () :precondition (broken) :effect (not (broken)))
          (:action kick :parameters () :effect (and (broken) (increase (total-cost) 3))))";
        let p = "(define (problem p) (:domain d) (:objects a b c x y)
          (:init (at x a) (at y b) (lit a) (road a b) (road b c) (road c a))
          (:goal (and (at x c) (at y a) (not (broken)) (not (lit b))))
          (:metric minimize (total-cost)))";
        let dom = crate::parse_domain(d).unwrap();
        let task = crate::ground(&dom, &crate::parse_problem(p, &dom).unwrap()).unwrap();
        let vars = variables(&task);
        assert!(vars.iter().any(|v| v.facts.len() > 2), "a package's group");
        let mut var_of = vec![0u32; task.facts.len()];
        for (i, v) in vars.iter().enumerate() {
            for &f in &v.facts {
                var_of[f as usize] = i as u32;
            }
        }
        let touching = touching(&task);
        let ctx = Context { task: &task, vars: &vars, var_of: &var_of, touching: &touching };
        // Every pattern of up to three variables.
        let n = vars.len() as u32;
        let mut checked = 0;
        for mask in 1u32..1 << n {
            if mask.count_ones() > 3 {
                continue;
            }
            let pattern: Vec<Variable> =
                (0..n).filter(|&v| mask >> v & 1 == 1).map(|v| vars[v as usize].clone()).collect();
            let ops = ctx.project(&pattern).unwrap();
            assert_eq!(distances(&task, &pattern, &ops), forward(&task, &pattern, &ops), "{pattern:?}");
            checked += 1;
        }
        assert!(checked >= 10, "{checked} patterns");
        let pdbs = Pdbs::build(&task);
        let h = pdbs.value(&task.init);
        let optimum = crate::search(&task, &crate::SearchOptions::default()).unwrap().cost;
        assert!(h.is_some_and(|h| h > 0 && Some(h) <= optimum), "h {h:?}, optimum {optimum:?}");
    }

    #[test]
    fn every_combination_is_visited_once() {
        let mut seen = Vec::new();
        each_combination(&[vec![0, 2], vec![1, 3, 4]], &[10, 1], 100, &mut Vec::new(), |i| seen.push(i));
        assert_eq!(seen, [101, 103, 104, 121, 123, 124]);
        let mut none = Vec::new();
        each_combination(&[vec![1], vec![]], &[2, 1], 0, &mut Vec::new(), |i| none.push(i));
        assert!(none.is_empty());
        let mut empty = Vec::new();
        each_combination(&[], &[], 7, &mut Vec::new(), |i| empty.push(i));
        assert_eq!(empty, [7]);
    }

    #[test]
    fn maximal_cliques_of_a_path_and_a_triangle() {
        // 0-1, 1-2 (a path), and 3-4-5 (a triangle); each vertex adjacent to itself.
        let neighbours = [0b000011, 0b000111, 0b000110, 0b111000, 0b111000, 0b111000];
        let mut out = Vec::new();
        maximal_cliques(&neighbours, 0, 0b111111, 0, &mut out);
        out.sort_unstable();
        assert_eq!(out, [0b000011, 0b000110, 0b111000]);
    }
}
