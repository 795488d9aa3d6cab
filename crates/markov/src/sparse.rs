//! The sparse row-grouped matrix of a Markov model, as Storm and PRISM store theirs.
//!
//! Rows are choices; the rows of state `s` are `row_groups[s]..row_groups[s + 1]`
//! (exactly one per state in a DTMC or CTMC); the entries of row `r` are
//! `row_starts[r]..row_starts[r + 1]` of `columns` (target states, ascending within a
//! row) and `values` (probabilities, or rates in a CTMC). Offsets are `u64` so that a
//! model may have more than 2^32 entries; states are `u32`.

use std::ops::Range;

/// Which kind of Markov model a matrix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelType {
    /// Discrete-time Markov chain: one row per state, each a probability distribution.
    Dtmc,
    /// Continuous-time Markov chain: one row per state, of exit rates.
    Ctmc,
    /// Markov decision process: one or more rows per state, each a distribution.
    Mdp,
}

impl ModelType {
    /// The name Storm and PRISM use (`dtmc`, `ctmc`, `mdp`).
    pub fn name(self) -> &'static str {
        match self {
            ModelType::Dtmc => "dtmc",
            ModelType::Ctmc => "ctmc",
            ModelType::Mdp => "mdp",
        }
    }
}

/// Named sets of states. Storm's built-in labels are `init` and `deadlock`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labelling {
    /// Each label with its states, ascending.
    pub labels: Vec<(String, Vec<u32>)>,
}

impl Labelling {
    /// The states of label `name`, if the model has that label.
    pub fn states(&self, name: &str) -> Option<&[u32]> {
        self.labels.iter().find(|(n, _)| n == name).map(|(_, s)| s.as_slice())
    }

    /// The label `name` as one flag per state, if the model has that label.
    pub fn mask(&self, name: &str, states: usize) -> Option<Vec<bool>> {
        let mut mask = vec![false; states];
        for &s in self.states(name)? {
            mask[s as usize] = true;
        }
        Some(mask)
    }

    /// Adds (or replaces) a label; `states` need not be sorted.
    pub fn set(&mut self, name: &str, mut states: Vec<u32>) {
        states.sort_unstable();
        states.dedup();
        match self.labels.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = states,
            None => self.labels.push((name.to_string(), states)),
        }
    }
}

/// A reward structure: any of state rewards, choice (row) rewards and transition
/// (entry) rewards.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RewardModel {
    /// The name (`""` for PRISM's unnamed structure).
    pub name: String,
    /// One reward per state.
    pub state: Option<Vec<f64>>,
    /// One reward per row (choice).
    pub choice: Option<Vec<f64>>,
    /// One reward per matrix entry, aligned with `columns`.
    pub transition: Option<Vec<f64>>,
}

/// The variable values of every state (PRISM's `.sta`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Valuations {
    /// The variable names, in column order.
    pub names: Vec<String>,
    /// Which variables are Booleans (printed `true`/`false`).
    pub booleans: Vec<bool>,
    /// `names.len()` values per state, state after state.
    pub values: Vec<i64>,
}

impl Valuations {
    /// The values of state `s`.
    pub fn of(&self, s: u32) -> &[i64] {
        let n = self.names.len();
        &self.values[s as usize * n..(s as usize + 1) * n]
    }
}

/// A DTMC, CTMC or MDP over states `0..states()`.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseModel {
    pub model_type: ModelType,
    /// `states + 1` offsets into the rows.
    pub row_groups: Vec<u64>,
    /// `rows + 1` offsets into `columns` and `values`.
    pub row_starts: Vec<u64>,
    /// Target state of each entry, ascending within a row.
    pub columns: Vec<u32>,
    /// Probability (rate in a CTMC) of each entry.
    pub values: Vec<f64>,
    /// Action name of each row, as an index into `action_names` (empty when the model
    /// names no actions).
    pub row_actions: Vec<u32>,
    /// The distinct action names (`""` for an unnamed action).
    pub action_names: Vec<String>,
    /// Initial states, ascending.
    pub initial: Vec<u32>,
    pub labelling: Labelling,
    pub rewards: Vec<RewardModel>,
    pub valuations: Option<Valuations>,
}

/// What [`SparseModel::validate`] found wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Invalid {
    #[error("state {state} has no choice")]
    NoChoice { state: u32 },
    #[error("row {row} of state {state} is empty")]
    EmptyRow { state: u32, row: u64 },
    #[error("row {row} of state {state} goes to state {target}, but the model has {states} states")]
    TargetOutOfRange { state: u32, row: u64, target: u32, states: usize },
    #[error("row {row} of state {state} lists target {target} twice or out of order")]
    Unsorted { state: u32, row: u64, target: u32 },
    #[error("row {row} of state {state} has a weight {value} that is not positive and finite")]
    BadWeight { state: u32, row: u64, value: f64 },
    #[error("the probabilities of row {row} of state {state} sum to {sum}, not 1")]
    NotStochastic { state: u32, row: u64, sum: f64 },
    #[error("a {kind} has {rows} rows for {states} states; it must have exactly one per state")]
    NotOneRowPerState { kind: &'static str, rows: u64, states: usize },
    #[error("initial state {0} does not exist")]
    BadInitial(u32),
    #[error("the model has no initial state")]
    NoInitial,
}

/// How far a row's probabilities may sum from 1 (PRISM's and Storm's default check).
pub const STOCHASTIC_TOLERANCE: f64 = 1e-6;

impl SparseModel {
    /// An empty model of the given type, to be filled state by state: for each state
    /// [`SparseModel::push_row`] and [`SparseModel::push_entry`] for each choice, then
    /// [`SparseModel::end_state`].
    pub fn new(model_type: ModelType) -> SparseModel {
        SparseModel {
            model_type,
            row_groups: vec![0],
            row_starts: vec![0],
            columns: Vec::new(),
            values: Vec::new(),
            row_actions: Vec::new(),
            action_names: Vec::new(),
            initial: Vec::new(),
            labelling: Labelling::default(),
            rewards: Vec::new(),
            valuations: None,
        }
    }

    /// Number of states.
    pub fn states(&self) -> usize {
        self.row_groups.len() - 1
    }

    /// Number of rows (choices; one per state in a DTMC or CTMC).
    pub fn choices(&self) -> u64 {
        (self.row_starts.len() - 1) as u64
    }

    /// Number of non-zero entries ("transitions" in Storm's and PRISM's counts).
    pub fn transitions(&self) -> u64 {
        self.columns.len() as u64
    }

    /// The rows of state `s`.
    #[inline]
    pub fn rows(&self, s: u32) -> Range<u64> {
        self.row_groups[s as usize]..self.row_groups[s as usize + 1]
    }

    /// The entry range of row `r`.
    #[inline]
    pub fn entries(&self, r: u64) -> Range<usize> {
        self.row_starts[r as usize] as usize..self.row_starts[r as usize + 1] as usize
    }

    /// The (target, weight) pairs of row `r`.
    pub fn row(&self, r: u64) -> impl Iterator<Item = (u32, f64)> + '_ {
        let e = self.entries(r);
        self.columns[e.clone()].iter().copied().zip(self.values[e].iter().copied())
    }

    /// Ends the current state's group of rows: the rows pushed since the last call
    /// are its choices.
    pub fn end_state(&mut self) {
        let rows = self.choices();
        self.row_groups.push(rows);
    }

    /// Starts a row (choice) of the current state, with its action if the model names
    /// actions.
    pub fn push_row(&mut self, action: Option<u32>) {
        let at = self.columns.len() as u64;
        // `row_starts` always ends with the offset past the last row; a new row
        // begins there and the closing offset moves with every entry.
        self.row_starts.push(at);
        if let Some(a) = action {
            self.row_actions.push(a);
        }
    }

    /// Adds an entry to the row pushed last.
    pub fn push_entry(&mut self, target: u32, value: f64) {
        self.columns.push(target);
        self.values.push(value);
        *self.row_starts.last_mut().expect("a row was pushed") = self.columns.len() as u64;
    }

    /// Checks the structure: every state has a row, every row entries with sorted,
    /// existing targets and positive finite weights, probabilities summing to 1 within
    /// [`STOCHASTIC_TOLERANCE`] (not for CTMCs), one row per state in a DTMC or CTMC,
    /// and existing initial states.
    pub fn validate(&self) -> Result<(), Invalid> {
        let states = self.states();
        if self.model_type != ModelType::Mdp && self.choices() != states as u64 {
            return Err(Invalid::NotOneRowPerState { kind: self.model_type.name(), rows: self.choices(), states });
        }
        for s in 0..states as u32 {
            let rows = self.rows(s);
            if rows.is_empty() {
                return Err(Invalid::NoChoice { state: s });
            }
            for row in rows {
                let entries = self.entries(row);
                if entries.is_empty() {
                    return Err(Invalid::EmptyRow { state: s, row });
                }
                let mut previous: Option<u32> = None;
                let mut sum = 0.0;
                for (target, value) in self.row(row) {
                    if target as usize >= states {
                        return Err(Invalid::TargetOutOfRange { state: s, row, target, states });
                    }
                    if previous.is_some_and(|p| p >= target) {
                        return Err(Invalid::Unsorted { state: s, row, target });
                    }
                    previous = Some(target);
                    if !(value > 0.0 && value.is_finite()) {
                        return Err(Invalid::BadWeight { state: s, row, value });
                    }
                    sum += value;
                }
                if self.model_type != ModelType::Ctmc && (sum - 1.0).abs() > STOCHASTIC_TOLERANCE {
                    return Err(Invalid::NotStochastic { state: s, row, sum });
                }
            }
        }
        if self.initial.is_empty() {
            return Err(Invalid::NoInitial);
        }
        if let Some(&bad) = self.initial.iter().find(|&&s| s as usize >= states) {
            return Err(Invalid::BadInitial(bad));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MDP of Storm's DRN example: state 0 with two choices.
    fn small() -> SparseModel {
        let mut m = SparseModel::new(ModelType::Mdp);
        m.push_row(None);
        m.push_entry(1, 1.0);
        m.push_row(None);
        m.push_entry(0, 0.5);
        m.push_entry(1, 0.5);
        m.end_state();
        m.push_row(None);
        m.push_entry(1, 1.0);
        m.end_state();
        m.initial = vec![0];
        m
    }

    #[test]
    fn counts_and_rows() {
        let m = small();
        assert_eq!((m.states(), m.choices(), m.transitions()), (2, 3, 4));
        assert_eq!(m.rows(0), 0..2);
        assert_eq!(m.row(1).collect::<Vec<_>>(), [(0, 0.5), (1, 0.5)]);
        assert_eq!(m.validate(), Ok(()));
    }

    #[test]
    fn validate_finds_each_defect() {
        let mut m = small();
        m.values[1] = 0.4;
        assert!(matches!(m.validate(), Err(Invalid::NotStochastic { state: 0, row: 1, .. })));
        let mut m = small();
        m.columns[1] = 1;
        assert!(matches!(m.validate(), Err(Invalid::Unsorted { state: 0, row: 1, target: 1 })));
        let mut m = small();
        m.columns[0] = 7;
        assert!(matches!(m.validate(), Err(Invalid::TargetOutOfRange { target: 7, .. })));
        let mut m = small();
        m.model_type = ModelType::Dtmc;
        assert!(matches!(m.validate(), Err(Invalid::NotOneRowPerState { rows: 3, .. })));
        let mut m = small();
        m.initial = vec![];
        assert_eq!(m.validate(), Err(Invalid::NoInitial));
    }
}
