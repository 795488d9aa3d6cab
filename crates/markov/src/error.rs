//! The error of every reader and writer of model files: which file, and for a malformed
//! file the line and column (both 1-based) with what is wrong there.

use crate::sparse::Invalid;

/// Why a model file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened, read, decompressed or written.
    #[error("{file}: {source}")]
    Io {
        /// The file's name as given.
        file: String,
        /// What the operating system (or the gzip decoder) said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a well-formed file of its format, or disagrees with itself.
    #[error("{file}:{line}:{column}: {problem}")]
    Malformed {
        /// The file's name as given.
        file: String,
        /// 1-based line (one past the last line for a problem found at the end).
        line: u64,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong there.
        problem: Problem,
    },
    /// The file is well formed but the model it describes is not a valid DTMC, CTMC or
    /// MDP (found by [`crate::SparseModel::validate`] after reading).
    #[error("{file}: {source}")]
    Invalid {
        /// The file's name as given.
        file: String,
        /// The defect.
        #[source]
        source: Invalid,
    },
    /// The model has something the format cannot hold (a label with a quote in DRN,
    /// transition rewards that differ within a row in DRN, ...).
    #[error("{file}: cannot be written as {format}: {reason}")]
    Unwritable {
        /// The file's name as given.
        file: String,
        /// `DRN` or `PRISM explicit`.
        format: &'static str,
        /// What cannot be written.
        reason: String,
    },
    /// The file name does not say which format to use, or the files of an explicit
    /// model are missing or ambiguous.
    #[error("{file}: {reason}")]
    Files {
        /// The file's name as given.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

/// What is wrong at one place of a malformed file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Problem {
    /// Something else stands where the grammar wants `expected`.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar wants, in words.
        expected: &'static str,
        /// What is there (quoted), or `end of line` / `end of file`.
        found: String,
    },
    /// Not a non-negative integer in range.
    #[error("`{0}` is not a valid index or count")]
    BadInteger(String),
    /// Not a floating-point number.
    #[error("`{0}` is not a number")]
    BadNumber(String),
    /// A probability or rate that is zero, negative, infinite or NaN.
    #[error("{0} is not a positive finite probability or rate")]
    BadWeight(f64),
    /// A reward that is infinite or NaN.
    #[error("{0} is not a finite reward")]
    BadReward(f64),
    /// `@type` names no model type.
    #[error("unknown model type `{0}` (expected DTMC, CTMC or MDP)")]
    UnknownType(String),
    /// A feature of the format that warpcheck does not read.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A state, target or choice index beyond the model.
    #[error("{what} {index} is out of range: the model has {bound}")]
    OutOfRange {
        /// `target state`, `state`, `choice`, `label`.
        what: &'static str,
        /// The index found.
        index: u64,
        /// The number of valid indices, in words (`5 states`).
        bound: String,
    },
    /// A state listed twice or out of order.
    #[error(
        "state {found} where state {expected} was expected (states must be listed once each, in increasing order)"
    )]
    StateOutOfOrder {
        /// The state that should come here.
        expected: u64,
        /// The state found.
        found: u64,
    },
    /// A state listed twice or out of order in a file that may skip states.
    #[error("state {found} listed after state {previous} (states must be listed once each, in increasing order)")]
    StateRepeated {
        /// The state listed before.
        previous: u64,
        /// The state found.
        found: u64,
    },
    /// A state without any transition (the formats have no deadlocks: Storm and PRISM
    /// give deadlock states a self-loop).
    #[error("state {0} has no transitions")]
    NoTransitions(u64),
    /// A choice numbered out of sequence (choices are 0, 1, ... within each state).
    #[error("choice {found} where choice {expected} was expected (choices are numbered 0, 1, ... within each state)")]
    ChoiceOutOfOrder {
        /// The choice that should come here.
        expected: u64,
        /// The choice found.
        found: u64,
    },
    /// A row (choice) lists the same target twice.
    #[error("target {0} is listed twice in one row")]
    DuplicateTarget(u32),
    /// An entry listed twice (in a reward file).
    #[error("{0} is listed twice")]
    Duplicate(String),
    /// A count in the header disagrees with the body.
    #[error("the header says {header} {what}, but the file has {found}")]
    CountMismatch {
        /// `states`, `choices`, `transitions`, `entries`.
        what: &'static str,
        /// The header's count.
        header: u64,
        /// What the body has.
        found: u64,
    },
    /// A file of the explicit set does not fit the model of the `.tra` file.
    #[error("the file is for {found} {what}, but the model has {model}")]
    ModelMismatch {
        /// `states`, `choices`.
        what: &'static str,
        /// The file's count.
        found: u64,
        /// The model's count.
        model: u64,
    },
    /// The probabilities of a row of a DTMC or MDP do not sum to 1.
    #[error("the probabilities of this row sum to {0}, not 1")]
    NotStochastic(f64),
    /// A CTMC state's exit rate (`!rate`) is not the sum of its rates.
    #[error("the exit rate {stated} is not the sum {sum} of the state's rates")]
    ExitRate {
        /// The rate after `!`.
        stated: f64,
        /// The sum of the row.
        sum: f64,
    },
    /// A bracketed reward list has the wrong length.
    #[error("{found} rewards where `@reward_models` names {expected}")]
    RewardCount {
        /// The number of reward models.
        expected: usize,
        /// The number of values in the brackets.
        found: usize,
    },
    /// A transition reward for a transition the model does not have.
    #[error("the model has no transition from state {state} (choice {choice}) to state {target}")]
    NoSuchTransition {
        /// Source state.
        state: u64,
        /// Local choice index.
        choice: u64,
        /// Target state.
        target: u64,
    },
    /// A model type other than the one asked for.
    #[error("the file holds {found}, but {expected} was asked for")]
    TypeMismatch {
        /// The type asked for (`a DTMC`, ...).
        expected: &'static str,
        /// What the file holds.
        found: &'static str,
    },
    /// Something that is out of place here.
    #[error("{0}")]
    Misplaced(&'static str),
    /// A line that is not UTF-8.
    #[error("the line is not valid UTF-8")]
    NotUtf8,
    /// A value of a `.sta` file that is neither an integer nor `true`/`false`, or that
    /// changes type between states.
    #[error("`{found}` is not {expected}")]
    BadValue {
        /// `an integer or true/false`, `an integer (as in the first state)`, ...
        expected: &'static str,
        /// The value found.
        found: String,
    },
}
