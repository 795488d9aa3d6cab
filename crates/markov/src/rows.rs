//! Assembling a model's rows from the entries of a file, with the place of each entry
//! for errors: a row's targets come out sorted (a file may list them in any order), a
//! target listed twice is an error, and a row of a DTMC or MDP must sum to 1.

use crate::error::{Error, Problem};
use crate::sparse::{ModelType, SparseModel, STOCHASTIC_TOLERANCE};
use crate::text::{capacity, error_at, Pos};

/// A model being filled row by row.
pub(crate) struct Rows {
    /// The rows finished so far.
    pub model: SparseModel,
    /// The open row's entries: target, weight, place.
    entries: Vec<(u32, f64, Pos)>,
    /// The open row's action and place (its first line), if a row is open.
    open: Option<(Option<u32>, Pos)>,
}

impl Rows {
    /// An empty model of `model_type`, with room for about `choices` rows and
    /// `transitions` entries (as announced by a header; capped).
    pub fn new(model_type: ModelType, states: u64, choices: u64, transitions: u64) -> Rows {
        let mut model = SparseModel::new(model_type);
        model.row_groups.reserve(capacity(states));
        model.row_starts.reserve(capacity(choices));
        model.columns.reserve(capacity(transitions));
        model.values.reserve(capacity(transitions));
        Rows { model, entries: Vec::new(), open: None }
    }

    /// Whether a row is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Opens a row with `action` (an index into the names the reader keeps), placed at
    /// `pos` for errors about the row as a whole.
    pub fn start_row(&mut self, action: Option<u32>, pos: Pos) {
        self.open = Some((action, pos));
        self.entries.clear();
    }

    /// Adds an entry to the open row.
    pub fn entry(&mut self, target: u32, value: f64, pos: Pos) {
        self.entries.push((target, value, pos));
    }

    /// Closes the open row (if any): sorts it by target, rejects a target listed
    /// twice, checks the sum of a DTMC or MDP row, and appends it to the model.
    pub fn end_row(&mut self, file: &str) -> Result<(), Error> {
        let Some((action, pos)) = self.open.take() else {
            return Ok(());
        };
        if self.entries.is_empty() {
            return Err(error_at(file, pos, Problem::Misplaced("a choice without transitions")));
        }
        if !self.entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: of two equal targets, the one listed later stays second.
            self.entries.sort_by_key(|e| e.0);
            if let Some(w) = self.entries.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(error_at(file, w[1].2, Problem::DuplicateTarget(w[1].0)));
            }
        }
        if self.model.model_type != ModelType::Ctmc {
            let sum: f64 = self.entries.iter().map(|e| e.1).sum();
            if (sum - 1.0).abs() > STOCHASTIC_TOLERANCE {
                return Err(error_at(file, pos, Problem::NotStochastic(sum)));
            }
        }
        self.model.push_row(action);
        for &(target, value, _) in &self.entries {
            self.model.push_entry(target, value);
        }
        Ok(())
    }

    /// The sum of the last row's weights, in target order (a CTMC state's exit rate).
    pub fn last_row_sum(&self) -> f64 {
        let from = self.model.row_starts.len().saturating_sub(2);
        let start = self.model.row_starts.get(from).copied().unwrap_or(0) as usize;
        self.model.values.get(start..).unwrap_or(&[]).iter().fold(0.0, |sum, v| sum + v)
    }

    /// Ends the current state: the rows since the last call are its choices.
    pub fn end_state(&mut self) {
        self.model.end_state();
    }
}
