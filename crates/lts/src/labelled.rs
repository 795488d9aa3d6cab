//! The product's labelled state graph, by a sequential breadth-first exploration:
//! states numbered in BFS order (the initial state is 0), distinct (source, label,
//! target) triples, and the counts of spec §5. It is what `--graph-out x.aut` writes
//! for a network, and the tests' reference for label counts.

use rustc_hash::FxHashMap;
use warpcheck_model::{Model, Successors};

use crate::aut::TAU;
use crate::network::Network;
use crate::successors::Steps;

/// A network's reachable product, explicitly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelledGraph {
    pub states: u32,
    /// Distinct `(source, product label, target)`, sorted.
    pub transitions: Vec<(u32, u32, u32)>,
    /// Steps with multiplicity: one per (group, choice of targets).
    pub multiplicity: u64,
    pub deadlocks: u64,
}

/// Why no labelled graph was built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the product has more than {limit} states")]
pub struct TooLarge {
    pub limit: u64,
}

/// Explores `net` completely, up to `max_states` states.
pub fn explore(net: &Network, max_states: u64) -> Result<LabelledGraph, TooLarge> {
    let words = net.state_words();
    let mut ids: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
    let mut states: Vec<u32> = net.initial_state();
    ids.insert(states.clone().into_boxed_slice(), 0);
    let mut steps = Steps::merging(net, false);
    let mut graph = LabelledGraph::default();
    let mut next = 0usize;
    let mut current = vec![0; words];
    while next * words < states.len() {
        current.copy_from_slice(&states[next * words..(next + 1) * words]);
        let mut full = false;
        let deadlock = steps.successors(&current, |step, target| {
            let Ok(target) = target else { return };
            let label = net.groups[step.groups[0] as usize].label;
            let id = match ids.get(target) {
                Some(&id) => id,
                None => {
                    let id = ids.len() as u32;
                    if ids.len() as u64 >= max_states {
                        full = true;
                        return;
                    }
                    ids.insert(target.into(), id);
                    states.extend_from_slice(target);
                    id
                }
            };
            graph.multiplicity += 1;
            graph.transitions.push((next as u32, label, id));
        });
        if full {
            return Err(TooLarge { limit: max_states });
        }
        graph.deadlocks += deadlock as u64;
        next += 1;
    }
    graph.states = next as u32;
    graph.transitions.sort_unstable();
    graph.transitions.dedup();
    Ok(graph)
}

impl LabelledGraph {
    /// The distinct product labels on transitions (τ included).
    pub fn labels(&self) -> usize {
        let mut l: Vec<u32> = self.transitions.iter().map(|t| t.1).collect();
        l.sort_unstable();
        l.dedup();
        l.len()
    }

    /// The graph as `.aut` text, τ written `tau_name`.
    pub fn to_aut(&self, net: &Network, tau_name: &str) -> String {
        let lines = self.transitions.iter().map(|&(f, l, t)| (f, (l != TAU).then(|| net.label_name(l)), t));
        crate::aut::write(0, self.states, self.transitions.len(), lines, tau_name)
    }
}
