//! A pattern's table: every abstract state's cheapest cost to an abstract goal.

use std::collections::BTreeMap;

use strength_reduce::StrengthReducedUsize;

use super::project::{constrain, slots, Change, Op, Pre};
use super::DEAD;
use crate::invariant::Variable;
use crate::task::Task;

/// Every abstract state's cheapest cost to an abstract goal: Dijkstra from the goal
/// states over the operators reversed.
pub(super) fn distances(task: &Task, pattern: &[Variable], ops: &[(Op, u64)]) -> Vec<u32> {
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

#[cfg(test)]
mod tests {
    use super::super::project::Grouping;
    use super::super::Pdbs;
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
        let grouping = Grouping::new(&task);
        let ctx = grouping.context(&task);
        let vars = ctx.vars;
        assert!(vars.iter().any(|v| v.facts.len() > 2), "a package's group");
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
}
