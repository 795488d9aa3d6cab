//! Multi-valued variables from at-most-one invariants: groups of facts of which no
//! reachable state has two true, as Helmert's invariant synthesis finds them (Concise
//! finite-domain representations for PDDL planning tasks, AIJ 2009), here on the
//! ground actions. A candidate group (the facts of one predicate that differ in one
//! argument: `(at p1 ?l)`) holds when the initial state has at most one of its facts
//! and every action adding one of them requires and deletes another (or requires the
//! one it adds), and adds no second one. A candidate that fails on such an action
//! takes in a fact the action requires and deletes (`(in p1 t1)` for an unload) and is
//! checked again: a bounded depth-first search over those choices.
//!
//! The groups then partition the facts, the largest first; each part is a
//! [`Variable`], its value the position of its true fact. Pattern databases over
//! variables count a group of n facts as n + 1 abstract values, not 2^n.

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::task::{has, Action, Task};

/// A variable: facts of which at most one is true in a reachable state. Its value is
/// the position of the true fact, or `facts.len()` ("none") when none is; `exact`
/// when one always is (then "none" is not a value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub facts: Vec<u32>,
    pub exact: bool,
}

impl Variable {
    /// The number of values.
    pub fn radix(&self) -> usize {
        self.facts.len() + usize::from(!self.exact)
    }

    /// The value in `state` (clamped below the radix: a state that breaks the invariant
    /// is unreachable, and reads a value, not past the table).
    pub fn value(&self, state: &[u32]) -> usize {
        let v = self.facts.iter().position(|&f| has(state, f)).unwrap_or(self.facts.len());
        v.min(self.radix() - 1)
    }
}

/// The most facts a group may take in, the most groups tried from one candidate, and
/// the most action checks over all candidates (a bound on the time it takes).
const MAX_GROUP: usize = 512;
const MAX_NODES: usize = 32;
const MAX_CHECKS: usize = 20_000_000;

/// The variables of `task`: a partition of its facts into at-most-one groups (the
/// largest first) and single facts.
pub fn variables(task: &Task) -> Vec<Variable> {
    let synthesis = Synthesis::new(task);
    let groups = synthesis.groups();
    let mut variables = Vec::new();
    let mut covered = vec![false; task.facts.len()];
    // Lazy greedy: a group's key is its count of uncovered facts, refreshed when popped.
    let mut heap: BinaryHeap<(usize, std::cmp::Reverse<usize>)> =
        groups.iter().enumerate().map(|(i, g)| (g.len(), std::cmp::Reverse(i))).collect();
    while let Some((count, std::cmp::Reverse(i))) = heap.pop() {
        let left: Vec<u32> = groups[i].iter().copied().filter(|&f| !covered[f as usize]).collect();
        if left.len() < 2 {
            continue;
        }
        if left.len() < count {
            heap.push((left.len(), std::cmp::Reverse(i)));
            continue;
        }
        for &f in &left {
            covered[f as usize] = true;
        }
        let exact = left.len() == groups[i].len() && synthesis.exactly_one(&left);
        variables.push(Variable { facts: left, exact });
    }
    for f in (0..task.facts.len() as u32).filter(|&f| !covered[f as usize]) {
        variables.push(Variable { facts: vec![f], exact: false });
    }
    variables
}

/// An effect as the checks see it: the facts required for it to happen, those it
/// deletes and those it adds (a conditional effect with the action's unconditional
/// precondition, deletes and adds).
struct Effect<'a> {
    required: [&'a [u32]; 2],
    deletes: [&'a [u32]; 2],
    adds: [&'a [u32]; 2],
}

fn effects(a: &Action) -> impl Iterator<Item = Effect<'_>> {
    let plain = Effect { required: [&a.precondition.positive, &[]], deletes: [&a.delete, &[]], adds: [&a.add, &[]] };
    std::iter::once(plain).chain(a.conditional.iter().map(move |c| Effect {
        required: [&a.precondition.positive, &c.condition.positive],
        deletes: [&a.delete, &c.delete],
        adds: [&a.add, &c.add],
    }))
}

/// Why a group fails: beyond repair, or repaired by taking in one of these facts.
enum Failure {
    Fatal,
    Repair(Vec<u32>),
}

struct Synthesis<'a> {
    task: &'a Task,
    /// For each fact, the actions that add it (conditionally or not).
    adders: Vec<Vec<u32>>,
    /// For each fact, its predicate and arguments (from its name).
    names: Vec<Vec<&'a str>>,
}

impl<'a> Synthesis<'a> {
    fn new(task: &'a Task) -> Synthesis<'a> {
        let mut adders = vec![Vec::new(); task.facts.len()];
        for (i, a) in task.actions.iter().enumerate() {
            for &f in a.add.iter().chain(a.conditional.iter().flat_map(|c| &c.add)) {
                let list: &mut Vec<u32> = &mut adders[f as usize];
                if list.last() != Some(&(i as u32)) {
                    list.push(i as u32);
                }
            }
        }
        let names = task
            .facts
            .iter()
            .map(|n| n.trim_start_matches('(').trim_end_matches(')').split_whitespace().collect())
            .collect();
        Synthesis { task, adders, names }
    }

    /// The at-most-one groups (each at least two facts, sorted, distinct), from the
    /// candidates of every predicate and argument, the larger candidates first.
    fn groups(&self) -> Vec<Vec<u32>> {
        let mut candidates: FxHashMap<(&str, usize, Vec<&str>), Vec<u32>> = FxHashMap::default();
        for (f, name) in self.names.iter().enumerate() {
            for i in 1..name.len() {
                let rest: Vec<&str> =
                    name[1..].iter().enumerate().filter(|&(j, _)| j + 1 != i).map(|(_, a)| *a).collect();
                candidates.entry((name[0], i, rest)).or_default().push(f as u32);
            }
        }
        // Single facts too: `(on a)` grows into `(on a)`, `(off a)`.
        let mut candidates: Vec<Vec<u32>> = candidates.into_values().collect();
        candidates.extend((0..self.task.facts.len() as u32).map(|f| vec![f]));
        candidates.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let mut found: Vec<Vec<u32>> = Vec::new();
        let mut in_group = vec![false; self.task.facts.len()];
        let mut checks = 0usize;
        for candidate in candidates {
            // A candidate inside a group found already adds nothing.
            if candidate.iter().all(|&f| in_group[f as usize]) || checks > MAX_CHECKS {
                continue;
            }
            if let Some(mut group) = self.refine(candidate, &mut checks) {
                group.sort_unstable();
                if group.len() > 1 && !found.contains(&group) {
                    for &f in &group {
                        in_group[f as usize] = true;
                    }
                    found.push(group);
                }
            }
        }
        found
    }

    /// A group that holds, grown from `seed`: depth-first over the repairs, the facts
    /// that share more arguments with the one added first.
    fn refine(&self, seed: Vec<u32>, checks: &mut usize) -> Option<Vec<u32>> {
        if self.initially_true(&seed) > 1 {
            return None;
        }
        // A node: the group and the first of its facts whose adders are not checked.
        let mut stack = vec![(seed, 0usize)];
        let mut nodes = 0;
        while let Some((group, mut next)) = stack.pop() {
            nodes += 1;
            if nodes > MAX_NODES || group.len() > MAX_GROUP {
                return None;
            }
            let set: FxHashSet<u32> = group.iter().copied().collect();
            let failure = loop {
                let Some(&g) = group.get(next) else { return Some(group) };
                *checks += self.adders[g as usize].len();
                match self.adders_of(g, &set) {
                    Ok(()) => next += 1,
                    Err(failure) => break failure,
                }
            };
            let Failure::Repair(mut choices) = failure else { continue };
            let args = |f: u32| self.names[f as usize].get(1..).unwrap_or_default();
            let shared = |d: u32| args(d).iter().filter(|a| args(group[next]).contains(a)).count();
            choices.sort_unstable_by_key(|&d| (shared(d), std::cmp::Reverse(d)));
            for d in choices {
                let mut bigger = group.clone();
                bigger.push(d);
                if self.initially_true(&bigger) <= 1 {
                    // `g` again: its other adders are not checked yet.
                    stack.push((bigger, next));
                }
            }
        }
        None
    }

    fn initially_true(&self, group: &[u32]) -> usize {
        group.iter().filter(|&&f| has(&self.task.init, f)).count()
    }

    /// Whether every action adding `g` keeps `group` at most one: it adds no other fact
    /// of the group, and each effect adding `g` requires `g` or requires and deletes
    /// another fact of the group.
    fn adders_of(&self, g: u32, group: &FxHashSet<u32>) -> Result<(), Failure> {
        for &a in &self.adders[g as usize] {
            let a = &self.task.actions[a as usize];
            let all_adds = a.add.iter().chain(a.conditional.iter().flat_map(|c| &c.add));
            if all_adds.filter(|f| group.contains(f)).any(|&f| f != g) {
                return Err(Failure::Fatal);
            }
            for e in effects(a).filter(|e| e.adds.iter().any(|l| l.contains(&g))) {
                let deleted = |d: &u32| e.deletes.iter().any(|l| l.contains(d));
                let required = e.required.iter().flat_map(|l| l.iter());
                if required.clone().any(|d| group.contains(d) && (*d == g || deleted(d))) {
                    continue;
                }
                let mut choices: Vec<u32> = required.filter(|d| deleted(d)).copied().collect();
                choices.sort_unstable();
                choices.dedup();
                return Err(if choices.is_empty() { Failure::Fatal } else { Failure::Repair(choices) });
            }
        }
        Ok(())
    }

    /// Whether exactly one fact of the (at-most-one) `group` is true in every reachable
    /// state: one initially, and every effect deleting one adds one.
    fn exactly_one(&self, group: &[u32]) -> bool {
        if self.initially_true(group) != 1 {
            return false;
        }
        let set: FxHashSet<u32> = group.iter().copied().collect();
        let hits = |lists: &[&[u32]; 2]| lists.iter().any(|l| l.iter().any(|f| set.contains(f)));
        self.task.actions.iter().all(|a| effects(a).all(|e| !hits(&e.deletes) || hits(&e.adds)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ground, parse_domain, parse_problem};

    fn task(domain: &str, problem: &str) -> Task {
        let d = parse_domain(domain).unwrap();
        ground(&d, &parse_problem(problem, &d).unwrap()).unwrap()
    }

    fn named(task: &Task, v: &Variable) -> Vec<String> {
        let mut names: Vec<String> = v.facts.iter().map(|&f| task.facts[f as usize].clone()).collect();
        names.sort();
        names
    }

    const LOGISTICS: &str = "(define (domain l) (:requirements :typing)
      (:types pkg truck loc)
      (:predicates (at ?p - pkg ?l - loc) (in ?p - pkg ?t - truck) (tat ?t - truck ?l - loc))
      (:action load :parameters (?p - pkg ?t - truck ?l - loc)
        :precondition (and (at ?p ?l) (tat ?t ?l)) :effect (and (not (at ?p ?l)) (in ?p ?t)))
      (:action unload :parameters (?p - pkg ?t - truck ?l - loc)
        :precondition (and (in ?p ?t) (tat ?t ?l)) :effect (and (not (in ?p ?t)) (at ?p ?l)))
      (:action drive :parameters (?t - truck ?a ?b - loc)
        :precondition (tat ?t ?a) :effect (and (not (tat ?t ?a)) (tat ?t ?b))))";

    #[test]
    fn a_package_is_in_one_place_and_a_truck_at_one_location() {
        let t = task(
            LOGISTICS,
            "(define (problem p) (:domain l) (:objects p1 p2 - pkg t1 t2 - truck a b c - loc)
              (:init (at p1 a) (at p2 b) (tat t1 a) (tat t2 c)) (:goal (and (at p1 c) (at p2 a))))",
        );
        let vars = variables(&t);
        let mut groups: Vec<(Vec<String>, bool)> = vars.iter().map(|v| (named(&t, v), v.exact)).collect();
        groups.sort();
        let want = |s: &str| s.split(',').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            groups,
            [
                (want("(at p1 a),(at p1 b),(at p1 c),(in p1 t1),(in p1 t2)"), true),
                (want("(at p2 a),(at p2 b),(at p2 c),(in p2 t1),(in p2 t2)"), true),
                (want("(tat t1 a),(tat t1 b),(tat t1 c)"), true),
                (want("(tat t2 a),(tat t2 b),(tat t2 c)"), true),
            ]
        );
    }

    #[test]
    fn two_true_facts_or_an_unbalanced_add_make_no_group() {
        // Two lamps on at first: "at most one on" fails; switching on deletes nothing.
        let d = "(define (domain d) (:predicates (on ?x) (off ?x))
          (:action up :parameters (?x) :precondition (off ?x) :effect (and (not (off ?x)) (on ?x)))
          (:action down :parameters (?x) :precondition (on ?x) :effect (and (not (on ?x)) (off ?x))))";
        let t = task(
            d,
            "(define (problem p) (:domain d) (:objects a b) (:init (on a) (on b)) (:goal (and (off a) (off b))))",
        );
        let vars = variables(&t);
        let mut groups: Vec<Vec<String>> = vars.iter().filter(|v| v.facts.len() > 1).map(|v| named(&t, v)).collect();
        groups.sort();
        // Each lamp is on or off: the per-object groups hold, "at most one lamp on" does not.
        assert_eq!(groups, [vec!["(off a)", "(on a)"], vec!["(off b)", "(on b)"]]);
        assert!(vars.iter().all(|v| v.exact));
    }

    #[test]
    fn single_facts_grow_into_groups_and_none_is_a_value_where_a_delete_adds_nothing() {
        let d = "(define (domain d) (:predicates (at ?x) (gone) (lit ?x))
          (:action go :parameters (?x ?y) :precondition (at ?x) :effect (and (not (at ?x)) (at ?y)))
          (:action vanish :parameters (?x) :precondition (at ?x) :effect (and (not (at ?x)) (gone)))
          (:action light :parameters (?x) :precondition (at ?x) :effect (lit ?x))
          (:action dark :parameters (?x) :precondition (lit ?x) :effect (not (lit ?x))))";
        let t = task(d, "(define (problem p) (:domain d) (:objects a b) (:init (at a)) (:goal (and (gone) (lit b))))");
        let vars = variables(&t);
        let mut groups: Vec<(Vec<String>, bool)> = vars.iter().map(|v| (named(&t, v), v.exact)).collect();
        groups.sort();
        // `(gone)` grows into the `at` group (vanish moves the one true fact there);
        // a light is on or not: single facts, "none" a value.
        let want = |s: &str| s.split(',').map(String::from).collect::<Vec<_>>();
        assert_eq!(groups, [(want("(at a),(at b),(gone)"), true), (want("(lit a)"), false), (want("(lit b)"), false)]);
        let lit = vars.iter().find(|v| t.facts[v.facts[0] as usize] == "(lit a)").unwrap();
        assert_eq!(lit.radix(), 2);
        assert_eq!(lit.value(&t.init), 1, "none");
        let at = vars.iter().find(|v| v.facts.len() == 3).unwrap();
        assert_eq!(at.radix(), 3);
        let mut s = t.init.clone();
        s.iter_mut().for_each(|w| *w = 0);
        assert_eq!(at.value(&s), 2, "clamped below the radix");
    }
}
