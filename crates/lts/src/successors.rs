//! The product's successor function (spec §2.3): for each group whose participants
//! all offer their label in the current state, every combination of their targets is
//! one step. Under [`Counting::Distinct`] the steps of one state are merged by
//! (label, target) when two groups share a label.

use warpcheck_model::{EvalError, Step, Successors};

use crate::network::{Counting, Network};

/// The successor worker of one thread.
pub struct Steps<'a> {
    net: &'a Network,
    merge: bool,
    target: Vec<u32>,
    /// Per participant: the current edge, and its range's start and end.
    choice: Vec<(u32, u32, u32)>,
    /// Merged mode: `(label, group)` then the target, per step found.
    found: Vec<u32>,
    order: Vec<usize>,
    /// Per component and local label, the groups whose first participant it is: a
    /// state only tries the groups whose first participant offers its label there.
    by_first: Vec<Vec<Vec<u32>>>,
    /// The groups tried in the current state, in group order.
    candidates: Vec<u32>,
}

impl<'a> Steps<'a> {
    pub fn new(net: &'a Network) -> Steps<'a> {
        Steps::merging(net, net.counting == Counting::Distinct && net.may_repeat())
    }

    /// A worker that merges equal (label, target) steps of a state or not.
    pub fn merging(net: &'a Network, merge: bool) -> Steps<'a> {
        let words = warpcheck_model::Model::state_words(net);
        let mut by_first: Vec<Vec<Vec<u32>>> = net.components.iter().map(|c| vec![vec![]; c.labels.len()]).collect();
        for (g, group) in net.groups.iter().enumerate() {
            let (c, l) = group.parts[0];
            by_first[c as usize][l as usize].push(g as u32);
        }
        let candidates = Vec::new();
        Steps { net, merge, target: vec![0; words], choice: vec![], found: vec![], order: vec![], by_first, candidates }
    }

    /// Calls `f(group, target)` for every step of `state`, with multiplicity (with a
    /// monitor, one per monitor move); returns whether the system (without the
    /// monitor) has a step.
    fn each_step(&mut self, state: &[u32], mut f: impl FnMut(u32, &[u32])) -> bool {
        let net = self.net;
        let n = net.components.len();
        let last = net.last_action_word();
        let mut any = false;
        // The groups whose first participant offers its label, in group order (the
        // order of the steps does not depend on the index).
        self.candidates.clear();
        for (c, comp) in net.components.iter().enumerate() {
            let mut last = u32::MAX;
            for &(l, _) in comp.out(state[c]) {
                if l != last {
                    self.candidates.extend_from_slice(&self.by_first[c][l as usize]);
                    last = l;
                }
            }
        }
        self.candidates.sort_unstable();
        'groups: for i in 0..self.candidates.len() {
            let g = self.candidates[i] as usize;
            let group = &net.groups[g];
            self.choice.clear();
            for &(c, l) in &group.parts {
                let (a, b) = net.components[c as usize].range(state[c as usize], l);
                if a == b {
                    continue 'groups;
                }
                self.choice.push((a, a, b));
            }
            self.target.copy_from_slice(state);
            loop {
                for (&(c, _), &(i, _, _)) in group.parts.iter().zip(&self.choice) {
                    self.target[c as usize] = net.components[c as usize].target(i);
                }
                any = true;
                if let Some(w) = last {
                    self.target[w] = group.label + 1;
                }
                match &net.monitor {
                    None => f(g as u32, &self.target),
                    Some(m) => {
                        let q = state[n];
                        if !m.observed[group.label as usize] {
                            f(g as u32, &self.target);
                        }
                        for &to in m.moves(q, group.label) {
                            self.target[n] = to;
                            f(g as u32, &self.target);
                        }
                        self.target[n] = q;
                    }
                }
                // The next combination, last participant fastest.
                let mut k = self.choice.len();
                loop {
                    if k == 0 {
                        continue 'groups;
                    }
                    k -= 1;
                    let (i, a, b) = &mut self.choice[k];
                    *i += 1;
                    if *i < *b {
                        break;
                    }
                    *i = *a;
                }
            }
        }
        any
    }
}

impl Successors for Steps<'_> {
    fn successors<F>(&mut self, state: &[u32], mut emit: F) -> bool
    where
        F: FnMut(Step<'_>, Result<&[u32], EvalError>),
    {
        if !self.merge {
            return !self.each_step(state, |g, t| emit(Step::of(&[g]), Ok(t)));
        }
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let net = self.net;
        let any = self.each_step(state, |g, t| {
            found.extend([net.groups[g as usize].label, g]);
            found.extend_from_slice(t);
        });
        let width = 2 + state.len();
        let key = |i: usize| {
            let r = &found[i * width..(i + 1) * width];
            (r[0], &r[2..])
        };
        self.order.clear();
        self.order.extend(0..found.len() / width);
        self.order.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)));
        self.order.dedup_by(|a, b| key(*a) == key(*b));
        for &i in &self.order {
            let r = &found[i * width..(i + 1) * width];
            emit(Step::of(&[r[1]]), Ok(&r[2..]));
        }
        self.found = found;
        !any
    }
}
