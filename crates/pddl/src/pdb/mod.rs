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
//! The patterns are found by hill climbing ([`climb`], as iPDB): from one pattern per
//! variable of the goal, extensions by one variable at a time, each step keeping the one
//! that raises the value on the most states of a random sample.

mod climb;
mod project;
mod table;

use rayon::prelude::*;

use crate::invariant::Variable;
use crate::task::{Formula, Task};
use project::{Context, Grouping};
use table::distances;

/// A table value: no abstract path to the goal.
pub const DEAD: u32 = u32::MAX;

/// The most entries of a first pattern's table (the goal's variables packed together
/// when there are many).
const START_SIZE: usize = 1 << 16;
/// The most patterns (the GPU's `WC_PDB_MAX`; masks of them fit a `u32`).
pub const MAX_PATTERNS: usize = 18;
/// The most conditional effects of one action that may touch a pattern (each
/// operator has up to `2^this` outcomes).
const MAX_TOUCHING: usize = 4;

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
        index(&self.vars, state)
    }

    /// The table's value of `state`.
    pub fn value(&self, state: &[u32]) -> u32 {
        self.table[self.index(state)]
    }
}

/// The index of `state` in the table of the pattern `vars`.
fn index(vars: &[Variable], state: &[u32]) -> usize {
    vars.iter().fold(0, |i, v| i * v.radix() + v.value(state))
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
        let grouping = Grouping::new(task);
        let ctx = grouping.context(task);
        let goals: Vec<u32> = task.goal.positive.iter().chain(&task.goal.negative).copied().collect();
        // Each pattern once, and only those that project (see `Context::project`).
        let mut built: Vec<(Vec<Variable>, Vec<_>)> = Vec::new();
        for facts in goal_patterns(&ctx, &goals) {
            let pattern = ctx.group(&facts);
            if pattern.is_empty() || built.iter().any(|(p, _)| *p == pattern) {
                continue;
            }
            if let Some(ops) = ctx.project(&pattern) {
                built.push((pattern, ops));
            }
        }
        let patterns: Vec<Pattern> =
            built.into_par_iter().map(|(vars, ops)| Pattern { table: distances(task, &vars, &ops), vars }).collect();
        // A table of zeros only (a goal variable that only free actions change) adds
        // nothing after the climb and would cost time at every state.
        let mut patterns = climb::climb(&ctx, patterns);
        patterns.retain(|p| p.table.iter().any(|&t| t != 0));
        let touched: Vec<Vec<u32>> = patterns.iter().map(|p| touched_by(ctx.touching, &p.vars)).collect();
        let additive = additive_sets(&touched.iter().map(Vec::as_slice).collect::<Vec<_>>());
        Pdbs { patterns, additive }
    }

    /// The value of `state`; `None` for a dead end.
    pub fn value(&self, state: &[u32]) -> Option<u64> {
        let mut values = [0u32; MAX_PATTERNS];
        for (v, p) in values.iter_mut().zip(&self.patterns) {
            *v = p.value(state);
        }
        canonical(&values[..self.patterns.len()], &self.additive)
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

/// The facts of the climb's first patterns: the variables of the goal's facts, each in
/// a pattern of its own, or when there are more than half [`MAX_PATTERNS`], runs of them
/// in the goal's order packed into that many (a run split where its table would pass
/// [`START_SIZE`] entries, the patterns past [`MAX_PATTERNS`] left out).
fn goal_patterns(ctx: &Context, goals: &[u32]) -> Vec<Vec<u32>> {
    let mut vars: Vec<u32> = Vec::new();
    for &g in goals {
        if !vars.contains(&ctx.var_of[g as usize]) {
            vars.push(ctx.var_of[g as usize]);
        }
    }
    let per = vars.len().div_ceil(MAX_PATTERNS / 2).max(1);
    let mut out: Vec<Vec<u32>> = Vec::new();
    for run in vars.chunks(per) {
        let (mut facts, mut size) = (Vec::new(), 1usize);
        for &v in run {
            let var = &ctx.vars[v as usize];
            if !facts.is_empty() && size.saturating_mul(var.radix()) > START_SIZE {
                out.push(std::mem::take(&mut facts));
                size = 1;
            }
            facts.extend(&var.facts);
            size = size.saturating_mul(var.radix());
        }
        out.push(facts);
    }
    out.truncate(MAX_PATTERNS);
    out
}

/// The actions that change a fact of `vars`, sorted.
fn touched_by(touching: &[Vec<u32>], vars: &[Variable]) -> Vec<u32> {
    let mut actions: Vec<u32> =
        vars.iter().flat_map(|v| &v.facts).flat_map(|&f| touching[f as usize].iter().copied()).collect();
    actions.sort_unstable();
    actions.dedup();
    actions
}

/// Whether two sorted lists have no element in common.
fn disjoint(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return false,
        }
    }
    true
}

/// The maximal sets of patterns that no action touches two of (the maximal cliques of
/// the graph of additive pairs), from the actions touching each pattern
/// ([`touched_by`]).
fn additive_sets(touched: &[&[u32]]) -> Vec<u32> {
    let n = touched.len();
    // additive[i]: the patterns that add up with pattern i (itself included).
    let mut additive = vec![0u32; n];
    for i in 0..n {
        for j in 0..n {
            if i == j || disjoint(touched[i], touched[j]) {
                additive[i] |= 1 << j;
            }
        }
    }
    let mut cliques = Vec::new();
    maximal_cliques(&additive, 0, (1u64 << n).wrapping_sub(1) as u32, 0, &mut cliques);
    if cliques.is_empty() {
        cliques.push(0);
    }
    cliques
}

/// The canonical heuristic's value from the patterns' values (`None` when one is
/// [`DEAD`]): the largest sum over the additive sets.
fn canonical(values: &[u32], sets: &[u32]) -> Option<u64> {
    if values.contains(&DEAD) {
        return None;
    }
    let sum = |mask: u32| (0..values.len()).filter(|&j| mask >> j & 1 == 1).map(|j| u64::from(values[j])).sum::<u64>();
    Some(sets.iter().map(|&m| sum(m)).max().unwrap_or(0))
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
