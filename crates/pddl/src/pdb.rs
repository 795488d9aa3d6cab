//! Pattern databases (Culberson and Schaeffer; Edelkamp, ECP 2001): the task projected
//! onto a few of its facts, the cheapest cost from every abstract state to an abstract
//! goal computed once (Dijkstra backwards), and a state's value read from that table
//! at the index its pattern facts make. A lookup is a few bit reads and one load, cheap
//! enough for the GPU's search, where LM-cut is not.
//!
//! The projection keeps every transition of the task: conditions on facts outside the
//! pattern, disjunctive and numeric conditions and numeric effects are dropped, and a
//! conditional effect that touches the pattern may fire or not. So a value is
//! admissible and consistent, a goal state's is 0, and a state whose abstract goal
//! distance is infinite ([`DEAD`]) is a dead end. Several patterns are combined as the
//! canonical heuristic: the largest sum over sets of patterns that no action touches
//! two of (such sums stay admissible).
//!
//! Patterns are chosen greedily: goal facts first, then the facts that the actions
//! changing a pattern fact are conditioned on, while the table and the work of
//! computing it stay within a budget. Up to [`MAX_PATTERNS`]: wide ones from all the
//! goal facts (those that do not fit start the next), narrow ones from one goal fact
//! each.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::task::{has, Condition, Formula, Task};

/// A table value: no abstract path to the goal.
pub const DEAD: u32 = u32::MAX;

/// The most facts of a pattern grown from all the goal facts (a table of `4 << 22`
/// bytes), and of one grown from a single goal fact.
const MAX_BITS: usize = 22;
const SINGLE_BITS: usize = 16;
/// The most patterns grown from all the goal facts (those left out by the ones before),
/// and the most grown from a single goal fact each.
const MAX_WIDE: usize = 2;
const MAX_SINGLE: usize = 8;
/// The most patterns (the GPU's `WC_PDB_MAX`).
pub const MAX_PATTERNS: usize = MAX_WIDE + MAX_SINGLE;
/// The most operator checks (abstract states times abstract operators) a wide table may
/// cost to compute, and a single goal's.
const WORK: u64 = 150_000_000;
const SINGLE_WORK: u64 = 20_000_000;
/// The most conditional effects of one action that may touch a pattern (each
/// operator has up to `2^this` outcomes).
const MAX_TOUCHING: usize = 4;

/// One pattern and its table: `table[i]` is the cheapest abstract cost to the goal
/// (saturated below [`DEAD`]) of the states whose fact `facts[j]` is bit `j` of `i`.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub facts: Vec<u32>,
    pub table: Vec<u32>,
}

impl Pattern {
    /// The table index of `state`.
    pub fn index(&self, state: &[u32]) -> usize {
        self.facts.iter().enumerate().fold(0, |i, (j, &f)| i | usize::from(has(state, f)) << j)
    }
}

/// The patterns of a task and the sets of them whose values add up.
#[derive(Clone, Debug)]
pub struct Pdbs {
    pub patterns: Vec<Pattern>,
    /// Masks of patterns that no action touches two of (the maximal such sets).
    pub additive: Vec<u32>,
}

/// A projected action: applicable where the state's bits under `pre_mask` are
/// `pre_value`; then `del` cleared and `add` set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Op {
    pre_mask: u32,
    pre_value: u32,
    add: u32,
    del: u32,
}

impl Pdbs {
    /// Patterns for `task` and their tables.
    pub fn build(task: &Task) -> Pdbs {
        if task.goal.rest == Some(Formula::FALSE) {
            // A goal that never holds (the grounder's form of an unreachable goal fact):
            // the empty pattern, every state a dead end.
            return Pdbs { patterns: vec![Pattern { facts: Vec::new(), table: vec![DEAD] }], additive: vec![1] };
        }
        let touching = touching(task);
        let mut patterns: Vec<Pattern> = Vec::new();
        let all: Vec<u32> = task.goal.positive.iter().chain(&task.goal.negative).copied().collect();
        let add = |facts: Vec<u32>, patterns: &mut Vec<Pattern>| {
            if facts.is_empty() || patterns.iter().any(|p| p.facts == facts) {
                return false;
            }
            let ops = project(task, &touching, &facts).expect("a selected pattern projects");
            patterns.push(Pattern { table: distances(task, &facts, &ops), facts });
            true
        };
        // Wide patterns: as many goal facts as fit, then the facts they depend on.
        let mut goals = all.clone();
        for _ in 0..MAX_WIDE {
            let facts = select(task, &touching, &goals, MAX_BITS, WORK);
            goals.retain(|g| !facts.contains(g));
            if !add(facts, &mut patterns) || goals.is_empty() {
                break;
            }
        }
        // Narrow ones: a goal fact and what it depends on, deeper (at most one for
        // each goal, in the goal's order).
        let mut single = 0;
        for &g in all.iter().filter(|_| all.len() > 1) {
            if single == MAX_SINGLE {
                break;
            }
            single += usize::from(add(select(task, &touching, &[g], SINGLE_BITS, SINGLE_WORK), &mut patterns));
        }
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
    /// fact count, table offset (into this array) and facts, then the sets' masks]`,
    /// the tables after.
    pub fn flatten(&self) -> Vec<u32> {
        let head = 2 + self.patterns.iter().map(|p| 2 + p.facts.len()).sum::<usize>() + self.additive.len();
        let mut out = vec![self.patterns.len() as u32, self.additive.len() as u32];
        let mut offset = head;
        for p in &self.patterns {
            out.extend([p.facts.len() as u32, offset as u32]);
            out.extend(&p.facts);
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

/// A pattern grown from `goals` (see the module documentation); empty when not even
/// one fact fits.
fn select(task: &Task, touching: &[Vec<u32>], goals: &[u32], max_bits: usize, work: u64) -> Vec<u32> {
    let mut facts: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = goals.to_vec();
    let mut seen = vec![false; task.facts.len()];
    for &g in goals {
        seen[g as usize] = true;
    }
    let mut next = 0;
    while next < queue.len() && facts.len() < max_bits {
        let f = queue[next];
        next += 1;
        let mut tried = facts.clone();
        tried.push(f);
        let Some(ops) = project(task, touching, &tried) else { continue };
        if (ops.len() as u64).max(1) << tried.len() > work {
            break;
        }
        facts = tried;
        // The facts that the actions changing `f` are conditioned on.
        for &a in &touching[f as usize] {
            let a = &task.actions[a as usize];
            let conditions = std::iter::once(&a.precondition).chain(a.conditional.iter().map(|c| &c.condition));
            for c in conditions {
                for &p in c.positive.iter().chain(&c.negative) {
                    if !seen[p as usize] && !touching[p as usize].is_empty() {
                        seen[p as usize] = true;
                        queue.push(p);
                    }
                }
            }
        }
    }
    facts
}

/// The literals of `c` on the pattern (`bit[f]`: fact `f`'s bit, or none) as a mask
/// and values; `None` when `c` cannot hold.
fn literals(c: &Condition, bit: &FxHashMap<u32, u32>) -> Option<(u32, u32)> {
    if c.rest == Some(Formula::FALSE) {
        return None;
    }
    let (mut mask, mut value) = (0u32, 0u32);
    for (facts, v) in [(&c.positive, 1u32), (&c.negative, 0)] {
        for f in facts {
            if let Some(&b) = bit.get(f) {
                if mask >> b & 1 == 1 && value >> b & 1 != v {
                    return None;
                }
                mask |= 1 << b;
                value |= v << b;
            }
        }
    }
    Some((mask, value))
}

/// The mask of `facts`' bits.
fn bits(facts: &[u32], bit: &FxHashMap<u32, u32>) -> u32 {
    facts.iter().filter_map(|f| bit.get(f)).fold(0, |m, &b| m | 1 << b)
}

/// The projection of the actions onto `pattern`, each distinct operator with its least
/// cost; `None` when an action has more than [`MAX_TOUCHING`] conditional effects on it.
fn project(task: &Task, touching: &[Vec<u32>], pattern: &[u32]) -> Option<Vec<(Op, u64)>> {
    let bit: FxHashMap<u32, u32> = pattern.iter().enumerate().map(|(j, &f)| (f, j as u32)).collect();
    let mut actions: Vec<u32> = pattern.iter().flat_map(|&f| touching[f as usize].iter().copied()).collect();
    actions.sort_unstable();
    actions.dedup();
    let mut ops: FxHashMap<Op, u64> = FxHashMap::default();
    for a in actions {
        let a = &task.actions[a as usize];
        let Some((pre_mask, pre_value)) = literals(&a.precondition, &bit) else { continue };
        let effects: Vec<(u32, u32, u32, u32)> = a
            .conditional
            .iter()
            .filter_map(|c| {
                let (add, del) = (bits(&c.add, &bit), bits(&c.delete, &bit));
                let (m, v) = literals(&c.condition, &bit)?;
                (add | del != 0).then_some((m, v, add, del))
            })
            .collect();
        if effects.len() > MAX_TOUCHING {
            return None;
        }
        // Each set of the touching conditional effects that may fire together.
        'outcome: for fired in 0..1u32 << effects.len() {
            let (mut m, mut v) = (pre_mask, pre_value);
            let (mut add, mut del) = (bits(&a.add, &bit), bits(&a.delete, &bit));
            for (i, &(cm, cv, cadd, cdel)) in effects.iter().enumerate() {
                if fired >> i & 1 == 1 {
                    if m & cm & (v ^ cv) != 0 {
                        continue 'outcome;
                    }
                    (m, v, add, del) = (m | cm, v | cv, add | cadd, del | cdel);
                }
            }
            // Bits whose value the precondition fixes and the effect keeps are no change.
            let after = (v & !del) | add;
            let kept = m & !(after ^ v);
            let (add, del) = (add & !kept, del & !kept);
            if add | del == 0 {
                continue;
            }
            let op = Op { pre_mask: m, pre_value: v, add, del };
            let cost = ops.entry(op).or_insert(a.cost);
            *cost = (*cost).min(a.cost);
        }
    }
    let mut ops: Vec<(Op, u64)> = ops.into_iter().collect();
    ops.sort_unstable_by_key(|&(op, cost)| (op.pre_mask, op.pre_value, op.add, op.del, cost));
    Some(ops)
}

/// Every abstract state's cheapest cost to an abstract goal: Dijkstra from the goal
/// states over the operators reversed.
fn distances(task: &Task, pattern: &[u32], ops: &[(Op, u64)]) -> Vec<u32> {
    let bit: FxHashMap<u32, u32> = pattern.iter().enumerate().map(|(j, &f)| (f, j as u32)).collect();
    let size = 1usize << pattern.len();
    let mut dist = vec![u64::MAX; size];
    let mut heap = BinaryHeap::new();
    if let Some((gm, gv)) = literals(&task.goal, &bit) {
        let free = (size as u32 - 1) & !gm;
        each_subset(free, |sub| {
            dist[(gv | sub) as usize] = 0;
            heap.push(Reverse((0u64, gv | sub)));
        });
    }
    while let Some(Reverse((d, s))) = heap.pop() {
        if d > dist[s as usize] {
            continue;
        }
        for &(op, cost) in ops {
            // `s` is a result of `op` only with its adds set and its other deletes clear.
            let changed = op.add | op.del;
            if s & op.add != op.add || s & (op.del & !op.add) != 0 {
                continue;
            }
            // Outside the changed bits a predecessor equals `s` and meets the
            // precondition; changed bits the precondition fixes are fixed, the rest free.
            let outside = op.pre_mask & !changed;
            if s & outside != op.pre_value & outside {
                continue;
            }
            let base = (s & !changed) | (op.pre_value & op.pre_mask & changed);
            let reached = d.saturating_add(cost);
            each_subset(changed & !op.pre_mask, |sub| {
                let p = (base | sub) as usize;
                if reached < dist[p] {
                    dist[p] = reached;
                    heap.push(Reverse((reached, p as u32)));
                }
            });
        }
    }
    dist.into_iter().map(|d| if d == u64::MAX { DEAD } else { d.min(u64::from(DEAD) - 1) as u32 }).collect()
}

/// Calls `visit` with every subset of `mask`.
fn each_subset(mask: u32, mut visit: impl FnMut(u32)) {
    let mut sub = 0u32;
    loop {
        visit(sub);
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            return;
        }
    }
}

/// The maximal sets of patterns that no action touches two of (the maximal cliques of
/// the graph of additive pairs).
fn additive_sets(touching: &[Vec<u32>], patterns: &[Pattern]) -> Vec<u32> {
    let n = patterns.len();
    let mut by_action: FxHashMap<u32, u32> = FxHashMap::default();
    for (j, p) in patterns.iter().enumerate() {
        for &f in &p.facts {
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

    #[test]
    fn every_subset_is_visited_once() {
        let mut seen = Vec::new();
        each_subset(0b1010, |s| seen.push(s));
        seen.sort_unstable();
        assert_eq!(seen, [0b0000, 0b0010, 0b1000, 0b1010]);
        let mut zero = Vec::new();
        each_subset(0, |s| zero.push(s));
        assert_eq!(zero, [0]);
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
