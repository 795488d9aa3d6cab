//! A flat network of LTSs as the successor function sees it (spec §2.7): components,
//! and transition groups, each a set of participants `(component, local label)` that
//! move together and the product label they produce. A synchronisation vector is one
//! group; so is each component's τ and each label that fires alone (a `--free` label,
//! or an unmentioned one under GPUexplore's semantics).

use crate::aut::TAU;
use crate::component::Component;
use crate::monitor::Monitor;

/// Which labels fire alone (spec §2.3, §2.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sync {
    /// EXP semantics: only vectors (and τ) move.
    #[default]
    Exp,
    /// GPUexplore's: a label of component k at position k of no vector fires alone.
    FreeUnmentioned,
}

/// What the successor function emits, hence what the engines count as transitions
/// (spec §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// One step per distinct (label, target) of a state: distinct triples.
    #[default]
    Distinct,
    /// One step per (group, choice of participant targets): what DiVinE counts.
    Multiplicity,
}

/// A transition group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// `(component, local label)`, by component.
    pub parts: Vec<(u32, u32)>,
    /// The product label (an index in [`Network::labels`]; [`TAU`] is τ).
    pub label: u32,
}

/// A network ready to explore.
#[derive(Clone, Debug)]
pub struct Network {
    pub components: Vec<Component>,
    pub groups: Vec<Group>,
    /// Product label names by id (`labels[0]` is τ, written `i`).
    pub labels: Vec<String>,
    pub counting: Counting,
    /// What the build noticed (vectors that never fire, dead labels, duplicates).
    pub warnings: Vec<String>,
    /// A safety monitor: one more state word, after the components'.
    pub monitor: Option<Monitor>,
    /// GPUexplore's property convention (`-p`): reaching this (component, local
    /// state) is a violation.
    pub property: Option<(u32, u32)>,
}

impl Network {
    /// Whether `state` is an error state of the monitor or of the property component.
    pub fn in_error(&self, state: &[u32]) -> bool {
        let monitor = self.monitor.as_ref().is_some_and(|m| m.error[state[self.components.len()] as usize]);
        monitor || self.property.is_some_and(|(c, s)| state[c as usize] == s)
    }
}

impl Network {
    /// Whether two groups produce the same label, so that two steps of one state may
    /// be the same triple (and [`Counting::Distinct`] must merge them).
    pub fn may_repeat(&self) -> bool {
        let mut labels: Vec<u32> = self.groups.iter().map(|g| g.label).collect();
        labels.sort_unstable();
        labels.windows(2).any(|w| w[0] == w[1])
    }

    /// The name of product label `id` (τ as `i`).
    pub fn label_name(&self, id: u32) -> &str {
        if id == TAU {
            "i"
        } else {
            &self.labels[id as usize]
        }
    }

    /// The product's labels that some group produces.
    pub fn used_labels(&self) -> Vec<u32> {
        let mut l: Vec<u32> = self.groups.iter().map(|g| g.label).collect();
        l.sort_unstable();
        l.dedup();
        l
    }
}
