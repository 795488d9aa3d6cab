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

mod climb;
mod project;
mod table;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::invariant::{variables, Variable};
use crate::task::{Formula, Task};
use project::{touching, Context};
use table::distances;

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
