//! One component of a network: an LTS restricted to the states reachable from its
//! initial state, renumbered in breadth-first order (the initial state is 0), with
//! each state's transitions sorted by label so that the targets of a (state, label)
//! are one slice.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::aut::{Lts, TAU};

/// What a relabelling does with one label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relabel {
    Keep,
    To(String),
    Tau,
    Cut,
}

impl Lts {
    /// The LTS with every non-τ label mapped by `f` (re-interned, duplicates collapsed).
    pub fn relabel(&self, f: impl Fn(&str) -> Relabel) -> Lts {
        let mut out = Lts::new(self.initial, self.states);
        let mut index = FxHashMap::default();
        let map: Vec<Option<u32>> = (0..self.labels.len())
            .map(|l| {
                if l as u32 == TAU {
                    return Some(TAU);
                }
                let name = &self.labels[l];
                match f(name) {
                    Relabel::Keep => Some(out.intern(name, &mut index)),
                    Relabel::To(new) => Some(out.intern(&new, &mut index)),
                    Relabel::Tau => Some(TAU),
                    Relabel::Cut => None,
                }
            })
            .collect();
        out.transitions = self.transitions.iter().filter_map(|&(f, l, t)| map[l as usize].map(|l| (f, l, t))).collect();
        out.transitions.sort_unstable();
        out.transitions.dedup();
        out.duplicates = self.duplicates;
        out
    }
}

/// A component: reachable local states `0..states()`, label 0 is τ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    pub name: String,
    /// Label names by local id (`labels[0]` is τ).
    pub labels: Vec<String>,
    /// Each local state's number in the component's file.
    pub original: Vec<u32>,
    offsets: Vec<u32>,
    /// `(label, target)`, sorted within each state.
    edges: Vec<(u32, u32)>,
}

impl Component {
    /// The reachable part of `lts`.
    pub fn new(name: String, lts: &Lts) -> Component {
        // The file's transitions are sorted by source: one slice per source.
        let mut by_source: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
        let mut i = 0;
        while i < lts.transitions.len() {
            let from = lts.transitions[i].0;
            let start = i;
            while i < lts.transitions.len() && lts.transitions[i].0 == from {
                i += 1;
            }
            by_source.insert(from, (start, i));
        }
        let mut local: FxHashMap<u32, u32> = FxHashMap::default();
        let mut original = vec![lts.initial];
        local.insert(lts.initial, 0);
        let mut queue = VecDeque::from([lts.initial]);
        while let Some(s) = queue.pop_front() {
            if let Some(&(a, b)) = by_source.get(&s) {
                for &(_, _, t) in &lts.transitions[a..b] {
                    if let std::collections::hash_map::Entry::Vacant(e) = local.entry(t) {
                        e.insert(original.len() as u32);
                        original.push(t);
                        queue.push_back(t);
                    }
                }
            }
        }
        let mut offsets = vec![0u32];
        let mut edges = Vec::new();
        for &s in &original {
            if let Some(&(a, b)) = by_source.get(&s) {
                let first = edges.len();
                edges.extend(lts.transitions[a..b].iter().map(|&(_, l, t)| (l, local[&t])));
                edges[first..].sort_unstable();
            }
            offsets.push(edges.len() as u32);
        }
        Component { name, labels: lts.labels.clone(), original, offsets, edges }
    }

    /// Number of (reachable) local states.
    pub fn states(&self) -> u32 {
        self.original.len() as u32
    }

    /// All transitions of local state `s`, as `(label, target)` sorted.
    pub fn out(&self, s: u32) -> &[(u32, u32)] {
        &self.edges[self.offsets[s as usize] as usize..self.offsets[s as usize + 1] as usize]
    }

    /// The transitions of local state `s` labelled `label`.
    pub fn with_label(&self, s: u32, label: u32) -> &[(u32, u32)] {
        let out = self.out(s);
        let a = out.partition_point(|e| e.0 < label);
        let b = a + out[a..].partition_point(|e| e.0 == label);
        &out[a..b]
    }

    /// The offset range of [`Component::with_label`] in the component's edge array.
    pub fn range(&self, s: u32, label: u32) -> (u32, u32) {
        let base = self.offsets[s as usize];
        let out = self.out(s);
        let a = out.partition_point(|e| e.0 < label) as u32;
        let b = a + out[a as usize..].partition_point(|e| e.0 == label) as u32;
        (base + a, base + b)
    }

    /// The target of edge `i` (an index in [`Component::range`]).
    pub fn target(&self, i: u32) -> u32 {
        self.edges[i as usize].1
    }

    /// The number of transitions.
    pub fn transitions(&self) -> usize {
        self.edges.len()
    }

    /// Whether some reachable local state has a transition labelled `label`.
    pub fn uses(&self, label: u32) -> bool {
        self.edges.iter().any(|e| e.0 == label)
    }

    /// The local id of a label name.
    pub fn label_id(&self, name: &str) -> Option<u32> {
        self.labels.iter().position(|l| l == name).map(|i| i as u32)
    }

    /// The component as an [`Lts`] over its local states.
    pub fn to_lts(&self) -> Lts {
        let mut lts = Lts::new(0, self.states());
        lts.labels = self.labels.clone();
        for s in 0..self.states() {
            lts.transitions.extend(self.out(s).iter().map(|&(l, t)| (s, l, t)));
        }
        lts
    }
}
