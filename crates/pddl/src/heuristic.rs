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
use std::sync::Arc;

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
    /// Pattern databases ([`crate::pdb`]): a table lookup per state, computed once.
    Pdb,
    /// The larger of the pattern databases and LM-cut (a dead end by either is one):
    /// LM-cut's cost per state, for the stronger of the two values.
    Max,
}

const INF: u64 = u64::MAX;

/// An action of the relaxation.
#[derive(Clone)]
struct Relaxed {
    pre: Vec<u32>,
    add: Vec<u32>,
    cost: u64,
}

/// The relaxed task and the buffers of one evaluation (a clone per thread).
#[derive(Clone)]
pub struct Evaluator {
    kind: Heuristic,
    facts: usize,
    // The relaxed task, shared by the clones.
    actions: Arc<Vec<Relaxed>>,
    /// Actions by precondition fact.
    pre_of: Arc<Vec<Vec<u32>>>,
    /// Actions by added fact.
    add_of: Arc<Vec<Vec<u32>>>,
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
    /// The relaxation of `task` for heuristic `kind` ([`Heuristic::Hmax`] or
    /// [`Heuristic::LmCut`]).
    pub fn new(task: &Task, kind: Heuristic) -> Evaluator {
        let facts = task.facts.len() + 2;
        let (init, goal) = (facts as u32 - 2, facts as u32 - 1);
        // A condition that is false whatever the state (the grounder's `Or([])` for an
        // unreachable goal fact) never holds: such an action adds nothing, and such a
        // goal is never reached.
        let never = |c: &crate::task::Condition| c.rest == Some(Formula::FALSE);
        let mut actions: Vec<Relaxed> = task
            .actions
            .iter()
            .map(|a| {
                let mut pre = a.precondition.positive.clone();
                if pre.is_empty() {
                    pre.push(init);
                }
                let mut add: Vec<u32> = if never(&a.precondition) {
                    Vec::new()
                } else {
                    a.add.iter().chain(a.conditional.iter().flat_map(|c| c.add.iter())).copied().collect()
                };
                add.sort_unstable();
                add.dedup();
                Relaxed { pre, add, cost: a.cost }
            })
            .collect();
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
            actions: Arc::new(actions),
            pre_of: Arc::new(pre_of),
            add_of: Arc::new(add_of),
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
        for (c, a) in self.cost.iter_mut().zip(self.actions.iter()) {
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
            self.lower_h_max();
        }
        Some(h)
    }

    /// h_max of every fact under the current costs (`INF`: unreachable), by Dijkstra
    /// over facts; each reached action's precondition choice (`pcf`) is its
    /// precondition reached last, one of maximal h_max.
    fn h_max(&mut self, state: &[u32]) {
        let init = self.facts - 2;
        self.hmax.fill(INF);
        for (w, a) in self.waiting.iter_mut().zip(self.actions.iter()) {
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

    /// h_max after the cut actions' costs were lowered: values only fall, so they are
    /// propagated from those actions' adds (an action's choice and value are recomputed
    /// when its chosen precondition falls; a fall of another one leaves its maximum).
    /// The reachable facts and actions stay the same.
    fn lower_h_max(&mut self) {
        self.heap.clear();
        for i in 0..self.cut.len() {
            let a = self.cut[i] as usize;
            self.offer(a);
        }
        while let Some(Reverse((value, f))) = self.heap.pop() {
            if value > self.hmax[f as usize] {
                continue;
            }
            for i in 0..self.pre_of[f as usize].len() {
                let b = self.pre_of[f as usize][i] as usize;
                if self.pcf[b] == f {
                    self.offer(b);
                }
            }
        }
    }

    /// Chooses the reached action `a`'s precondition again (values may have fallen since)
    /// and lowers its adds to its value, queueing those that fall.
    fn offer(&mut self, a: usize) {
        let choice = *self.actions[a].pre.iter().max_by_key(|&&p| self.hmax[p as usize]).expect("a precondition");
        self.pcf[a] = choice;
        let value = self.hmax[choice as usize].saturating_add(self.cost[a]);
        for &e in &self.actions[a].add {
            if value < self.hmax[e as usize] {
                self.hmax[e as usize] = value;
                self.heap.push(Reverse((value, e)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{Action, Condition};

    /// A random STRIPS task over `facts` facts (a small linear congruential generator).
    fn random_task(seed: u64, facts: u32, actions: usize) -> Task {
        let mut x = seed;
        let mut next = move |n: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % n as u64) as u32
        };
        let pick = |k: u32, next: &mut dyn FnMut(u32) -> u32| {
            let mut v: Vec<u32> = (0..k).map(|_| next(facts)).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let actions: Vec<Action> = (0..actions)
            .map(|i| Action {
                name: format!("(a{i})"),
                precondition: Condition { positive: pick(2, &mut next), ..Condition::default() },
                add: pick(2, &mut next),
                delete: pick(1, &mut next),
                conditional: vec![],
                numeric: vec![],
                cost: u64::from(next(4)),
            })
            .collect();
        Task {
            facts: (0..facts).map(|f| format!("(f{f})")).collect(),
            end_phase: actions.len(),
            actions,
            init: vec![0b11],
            goal: Condition { positive: pick(3, &mut next), ..Condition::default() },
            words: 1,
            numeric: vec![],
            scale: 1,
        }
    }

    impl Evaluator {
        /// Runs LM-cut on `state`, holding the incremental h_max after every cut to the
        /// recomputed one (the precondition choices may differ among equal maxima, so
        /// the search goes on with the recomputed ones); returns the cuts checked.
        fn check_incremental(&mut self, state: &[u32]) -> usize {
            for (c, a) in self.cost.iter_mut().zip(self.actions.iter()) {
                *c = a.cost;
            }
            let goal = self.facts - 1;
            self.h_max(state);
            let mut cuts = 0;
            while self.hmax[goal] != INF && self.hmax[goal] > 0 {
                self.cut_once(state);
                self.lower_h_max();
                let incremental = self.hmax.clone();
                self.h_max(state);
                assert_eq!(incremental, self.hmax, "state {state:?}, cut {cuts}");
                cuts += 1;
            }
            cuts
        }
    }

    #[test]
    fn incremental_h_max_equals_recomputed_h_max_after_every_cut() {
        let mut cuts = 0;
        for seed in 0..200 {
            let task = random_task(seed, 12, 20);
            let mut e = Evaluator::new(&task, Heuristic::LmCut);
            for state in (0u32..(1 << 12)).step_by(7) {
                cuts += e.check_incremental(&[state]);
            }
        }
        assert!(cuts > 1000, "{cuts} cuts");
    }
}
