//! A [`Network`] behind warpcheck's model interface: one state word per component
//! (its local state), one transition group per [`crate::network::Group`]; steps are
//! described by their label and the components that moved, changes by the
//! components' local states (numbered as in their files).

use warpcheck_model::{Dependencies, Describe, EvalError, Label, LabelId, Model, Step};

use crate::network::Network;
use crate::successors::Steps;

impl Network {
    /// How the step of group `g` reads: `"label" (P, Q)`.
    pub fn describe_group(&self, g: u32) -> String {
        let group = &self.groups[g as usize];
        let names: Vec<&str> = group.parts.iter().map(|&(c, _)| self.components[c as usize].name.as_str()).collect();
        format!("\"{}\" ({})", self.label_name(group.label), names.join(", "))
    }

    fn local(&self, c: usize, s: u32) -> String {
        format!("{} = {}", self.components[c].name, self.components[c].original[s as usize])
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
        (0..self.components.len())
            .filter(|&c| before[c] != after[c])
            .map(|c| format!("{} (was {})", self.local(c, after[c]), self.components[c].original[before[c] as usize]))
            .collect()
    }

    fn describe_state(&self, state: &[u32]) -> Vec<String> {
        (0..self.components.len()).map(|c| self.local(c, state[c])).collect()
    }
}

impl Model for Network {
    type Successors<'a> = Steps<'a>;

    fn state_words(&self) -> usize {
        self.components.len()
    }

    fn initial_state(&self) -> Vec<u32> {
        vec![0; self.components.len()]
    }

    fn successors(&self) -> Steps<'_> {
        Steps::new(self)
    }

    fn labels(&self) -> Vec<Label> {
        Vec::new()
    }

    /// A network has no state labels: no engine asks.
    fn label(&self, _: &[u32], _: LabelId) -> Result<bool, EvalError> {
        Ok(false)
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
                let mut row = vec![false; self.components.len()];
                for &(c, _) in &g.parts {
                    row[c as usize] = true;
                }
                row
            })
            .collect();
        Some(Dependencies { read: rows.clone(), may_write: rows.clone(), must_write: rows })
    }
}
