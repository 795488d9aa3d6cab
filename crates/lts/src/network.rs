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
    /// Action propositions (for LTL over actions): each holds in a state reached by
    /// a step whose product label it matches. With any, the state has one more word,
    /// the last step's label + 1 (0 in the initial state), after the monitor's.
    pub actions: Vec<Action>,
}

/// An action proposition: a regular expression over the product's labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub text: String,
    /// Per product label id, whether it matches.
    pub matches: Vec<bool>,
}

impl Network {
    /// Whether `state` is an error state of the monitor or of the property component.
    pub fn in_error(&self, state: &[u32]) -> bool {
        let monitor = self.monitor.as_ref().is_some_and(|m| m.error[state[self.components.len()] as usize]);
        monitor || self.property.is_some_and(|(c, s)| state[c as usize] == s)
    }
}

impl Network {
    /// The state word holding the last step's label + 1, with action propositions.
    pub fn last_action_word(&self) -> Option<usize> {
        (!self.actions.is_empty()).then(|| self.components.len() + self.monitor.is_some() as usize)
    }

    /// Labels of the model before the action propositions: the monitor's (or the
    /// property component's) assertion, if any.
    pub fn assertion_count(&self) -> usize {
        (self.monitor.is_some() || self.property.is_some()) as usize
    }

    /// Adds the action proposition `pattern` (a regular expression matched against
    /// whole product labels; τ is `i`); its label id. An error if it matches no label
    /// that a step can produce.
    pub fn add_action(&mut self, pattern: &str) -> Result<usize, String> {
        let re = regex::Regex::new(&format!("^(?:{pattern})$")).map_err(|e| e.to_string())?;
        let matches: Vec<bool> = (0..self.labels.len() as u32).map(|l| re.is_match(self.label_name(l))).collect();
        if !self.used_labels().iter().any(|&l| matches[l as usize]) {
            return Err(format!("`{pattern}` matches no action of the network"));
        }
        self.actions.push(Action { text: pattern.to_string(), matches });
        Ok(self.assertion_count() + self.actions.len() - 1)
    }

    /// Whether a state whose last-action word is `word` satisfies action proposition `k`.
    pub fn action_holds(&self, k: usize, word: u32) -> bool {
        word > 0 && self.actions[k].matches[word as usize - 1]
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
