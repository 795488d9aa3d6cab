//! A [`Network`] behind warpcheck's model interface: one state word per component
//! (its local state) and one for a monitor, whose error states make its one
//! assertion fail; one transition group per [`crate::network::Group`]; steps are
//! described by their label and the components that moved, changes by the
//! components' local states (numbered as in their files).

use warpcheck_model::{Dependencies, Describe, EvalError, Label, LabelId, LabelKind, Model, Step};

use crate::network::Network;
use crate::successors::Steps;

impl Network {
    /// How the step of group `g` reads: `"label" (P, Q)`.
    pub fn describe_group(&self, g: u32) -> String {
        let group = &self.groups[g as usize];
        let names: Vec<&str> = group.parts.iter().map(|&(c, _)| self.components[c as usize].name.as_str()).collect();
        format!("\"{}\" ({})", self.label_name(group.label), names.join(", "))
    }

    /// State word `c` as `name = local state` (the monitor's word after the
    /// components', then the last action's).
    fn local(&self, c: usize, s: u32) -> String {
        let name = match self.components.get(c) {
            Some(comp) => &comp.name,
            None if Some(c) == self.last_action_word() => "last action",
            None => "monitor",
        };
        format!("{name} = {}", self.value(c, s))
    }

    /// The value of state word `c`: a local state as numbered in its file, a monitor
    /// state, or the last step's label.
    fn value(&self, c: usize, s: u32) -> String {
        match self.components.get(c) {
            Some(comp) => comp.original[s as usize].to_string(),
            None if Some(c) == self.last_action_word() => match s {
                0 => "none".to_string(),
                _ => self.label_name(s - 1).to_string(),
            },
            None => s.to_string(),
        }
    }
}

impl Describe for Network {
    fn describe_step(&self, step: &Step<'_>) -> String {
        step.groups.first().map_or_else(|| "(no step)".to_string(), |&g| self.describe_group(g))
    }

    fn describe_error(&self, error: &EvalError) -> String {
        format!("{error:?}")
    }

    fn describe_changes(&self, before: &[u32], after: &[u32]) -> Vec<String> {
        (0..self.state_words())
            .filter(|&c| before[c] != after[c])
            .map(|c| format!("{} (was {})", self.local(c, after[c]), self.value(c, before[c])))
            .collect()
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        (0..self.state_words()).map(|c| self.local(c, state[c])).collect()
    }
}

impl Model for Network {
    type Successors<'a> = Steps<'a>;

    fn state_words(&self) -> usize {
        self.components.len() + self.monitor.is_some() as usize + !self.actions.is_empty() as usize
    }

    fn initial_state(&self) -> Vec<u32> {
        let mut s = vec![0; self.components.len()];
        s.extend(self.monitor.as_ref().map(|m| m.initial));
        s.extend(self.last_action_word().map(|_| 0));
        s
    }

    fn successors(&self) -> Steps<'_> {
        Steps::new(self)
    }

    /// With a monitor or a property process, one assertion: no error state; then the
    /// action propositions.
    fn labels(&self) -> Vec<Label> {
        let assertion = match (&self.monitor, self.property) {
            (Some(m), _) => Some(format!("the monitor {} reaches no error state", m.name)),
            (None, Some((c, _))) => {
                Some(format!("the property process {} reaches no error state", self.components[c as usize].name))
            }
            (None, None) => None,
        };
        let assertion = assertion.map(|name| Label { name, kind: LabelKind::Assertion });
        let actions = self
            .actions
            .iter()
            .map(|a| Label { name: format!("last action ~ {}", a.text), kind: LabelKind::Predicate });
        assertion.into_iter().chain(actions).collect()
    }

    fn label(&self, state: &[u32], label: LabelId) -> Result<bool, EvalError> {
        match (label.checked_sub(self.assertion_count()), self.last_action_word()) {
            (Some(k), Some(w)) => Ok(self.action_holds(k, state[w])),
            _ => Ok(!self.in_error(state)),
        }
    }

    fn is_accepting(&self, _: &[u32]) -> bool {
        false
    }

    fn property(&self) -> Option<&str> {
        None
    }

    fn dependencies(&self) -> Option<Dependencies> {
        let rows: Vec<Vec<bool>> = self
            .groups
            .iter()
            .map(|g| {
                // The monitor's and the last action's words move with every group.
                let mut row = vec![true; self.state_words()];
                row[..self.components.len()].fill(false);
                for &(c, _) in &g.parts {
                    row[c as usize] = true;
                }
                row
            })
            .collect();
        Some(Dependencies { read: rows.clone(), may_write: rows.clone(), must_write: rows })
    }
}
