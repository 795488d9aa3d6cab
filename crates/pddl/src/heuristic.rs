//! Admissible heuristics for A* over a grounded [`Task`]: h_max and LM-cut (Helmert
//! and Domshlak, ICAPS 2009), both on the delete relaxation.
//!
//! The relaxation keeps of each action its positive preconditions, its adds and the
//! adds of its conditional effects as if they always fired, and its cost; negative and
//! disjunctive conditions are dropped. Every plan of the task is then a plan of the
//! relaxed task, so both heuristics stay admissible on ADL tasks (only weaker), and a
//! state from which the relaxed goal is unreachable (value `None`) is a true dead end.
//!
//! Facts are numbered as in the task, then two artificial ones: `init` (the
//! precondition of actions without one) and `goal` (added by a zero-cost action whose
//! precondition is the goal's positive facts).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::task::{has, Formula, Task};

/// Which heuristic guides the search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Heuristic {
    /// None: breadth-first search for unit costs, uniform-cost search otherwise.
    Blind,
    /// h_max: the costliest goal fact in the relaxation.
    Hmax,
    /// LM-cut: sums the costs of disjunctive action landmarks found by cuts.
    #[default]
    LmCut,
}

const INF: u64 = u64::MAX;

/// An action of the relaxation.
struct Relaxed {
    pre: Vec<u32>,
    add: Vec<u32>,
    cost: u64,
}

/// The relaxed task and the buffers of one evaluation.
pub struct Evaluator {
    kind: Heuristic,
    facts: usize,
    actions: Vec<Relaxed>,
    /// Actions by precondition fact.
    pre_of: Vec<Vec<u32>>,
    /// Actions by added fact.
    add_of: Vec<Vec<u32>>,
    // Buffers.
    cost: Vec<u64>,
    hmax: Vec<u64>,
    waiting: Vec<u32>,
    pcf: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    goal_zone: Vec<bool>,
    before_cut: Vec<bool>,
    by_pcf: Vec<Vec<u32>>,
    stack: Vec<u32>,
    in_cut: Vec<bool>,
    cut: Vec<u32>,
}

impl Evaluator {
    /// The relaxation of `task` for heuristic `kind` (not [`Heuristic::Blind`]).
    pub fn new(task: &Task, kind: Heuristic) -> Evaluator {
        let facts = task.facts.len() + 2;
        let (init, goal) = (facts as u32 - 2, facts as u32 - 1);
        let mut actions: Vec<Relaxed> = task
            .actions
            .iter()
            .map(|a| {
                let mut pre = a.precondition.positive.clone();
                if pre.is_empty() {
                    pre.push(init);
                }
                let mut add: Vec<u32> = a.add.iter().chain(a.conditional.iter().flat_map(|c| c.add.iter())).copied().collect();
                add.sort_unstable();
                add.dedup();
                Relaxed { pre, add, cost: a.cost }
            })
            .collect();
        // A condition that is false whatever the state (the grounder's `Or([])` for an
        // unreachable goal fact) never holds: such an action adds nothing, and such a
        // goal is never reached.
        let never = |c: &crate::task::Condition| c.rest == Some(Formula::FALSE);
        for (r, a) in actions.iter_mut().zip(&task.actions) {
            if never(&a.precondition) {
                r.add.clear();
            }
        }
        let mut goal_pre = task.goal.positive.clone();
        if goal_pre.is_empty() {
            goal_pre.push(init);
        }
        let goal_add = if never(&task.goal) { vec![] } else { vec![goal] };
        actions.push(Relaxed { pre: goal_pre, add: goal_add, cost: 0 });
        let (mut pre_of, mut add_of) = (vec![Vec::new(); facts], vec![Vec::new(); facts]);
        for (i, a) in actions.iter().enumerate() {
            for &p in &a.pre {
                pre_of[p as usize].push(i as u32);
            }
            for &e in &a.add {
                add_of[e as usize].push(i as u32);
            }
        }
        let n = actions.len();
        Evaluator {
            kind,
            facts,
            actions,
            pre_of,
            add_of,
            cost: vec![0; n],
            hmax: vec![INF; facts],
            waiting: vec![0; n],
            pcf: vec![u32::MAX; n],
            heap: BinaryHeap::new(),
            goal_zone: vec![false; facts],
            before_cut: vec![false; facts],
            by_pcf: vec![Vec::new(); facts],
            stack: Vec::new(),
            in_cut: vec![false; n],
            cut: Vec::new(),
        }
    }

    /// The heuristic value of `state`; `None` for a dead end.
    pub fn value(&mut self, state: &[u32]) -> Option<u64> {
        for (c, a) in self.cost.iter_mut().zip(&self.actions) {
            *c = a.cost;
        }
        let goal = self.facts - 1;
        self.h_max(state);
        if self.hmax[goal] == INF {
            return None;
        }
        if self.kind == Heuristic::Hmax {
            return Some(self.hmax[goal]);
        }
        let mut h = 0u64;
        while self.hmax[goal] > 0 {
            h = h.saturating_add(self.cut_once(state));
            self.h_max(state);
        }
        Some(h)
    }

    /// h_max of every fact under the current costs (`INF`: unreachable), by Dijkstra
    /// over facts; each reached action's precondition choice (`pcf`) is its
    /// precondition reached last, one of maximal h_max.
    fn h_max(&mut self, state: &[u32]) {
        let init = self.facts - 2;
        self.hmax.fill(INF);
        for (w, a) in self.waiting.iter_mut().zip(&self.actions) {
            *w = a.pre.len() as u32;
        }
        self.pcf.fill(u32::MAX);
        self.heap.clear();
        for f in (0..self.facts - 2).filter(|&f| has(state, f as u32)).chain([init]) {
            self.hmax[f] = 0;
            self.heap.push(Reverse((0, f as u32)));
        }
        while let Some(Reverse((value, f))) = self.heap.pop() {
            if value > self.hmax[f as usize] {
                continue;
            }
            for &a in &self.pre_of[f as usize] {
                let w = &mut self.waiting[a as usize];
                *w -= 1;
                if *w > 0 {
                    continue;
                }
                self.pcf[a as usize] = f;
                let reached = value.saturating_add(self.cost[a as usize]);
                for &e in &self.actions[a as usize].add {
                    if reached < self.hmax[e as usize] {
                        self.hmax[e as usize] = reached;
                        self.heap.push(Reverse((reached, e)));
                    }
                }
            }
        }
    }

    /// One landmark: the cut between the facts reachable from the state and the goal
    /// zone in the justification graph; lowers the costs of its actions by the
    /// cheapest one's and returns that cost.
    fn cut_once(&mut self, state: &[u32]) -> u64 {
        let (init, goal) = (self.facts - 2, self.facts - 1);
        // The goal zone: facts with a zero-cost path to the goal through choices.
        self.goal_zone.fill(false);
        self.goal_zone[goal] = true;
        self.stack.clear();
        self.stack.push(goal as u32);
        while let Some(f) = self.stack.pop() {
            for &a in &self.add_of[f as usize] {
                let p = self.pcf[a as usize];
                if p != u32::MAX && self.cost[a as usize] == 0 && !self.goal_zone[p as usize] {
                    self.goal_zone[p as usize] = true;
                    self.stack.push(p);
                }
            }
        }
        // Facts reachable from the state without entering the zone; the actions that
        // enter it from there form the cut.
        for list in &mut self.by_pcf {
            list.clear();
        }
        for (a, &p) in self.pcf.iter().enumerate() {
            if p != u32::MAX {
                self.by_pcf[p as usize].push(a as u32);
            }
        }
        self.before_cut.fill(false);
        self.stack.clear();
        for f in (0..self.facts - 2).filter(|&f| has(state, f as u32)).chain([init]) {
            self.before_cut[f] = true;
            self.stack.push(f as u32);
        }
        self.cut.clear();
        while let Some(f) = self.stack.pop() {
            for &a in &self.by_pcf[f as usize] {
                for &e in &self.actions[a as usize].add {
                    if self.goal_zone[e as usize] {
                        if !self.in_cut[a as usize] {
                            self.in_cut[a as usize] = true;
                            self.cut.push(a);
                        }
                    } else if !self.before_cut[e as usize] {
                        self.before_cut[e as usize] = true;
                        self.stack.push(e);
                    }
                }
            }
        }
        let m = self.cut.iter().map(|&a| self.cost[a as usize]).min().expect("h_max(goal) > 0 gives a cut");
        for &a in &self.cut {
            self.cost[a as usize] -= m;
            self.in_cut[a as usize] = false;
        }
        m
    }
}
