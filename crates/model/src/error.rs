//! [`EvalError`]: the errors a step or a label can raise. Engines treat them as
//! values (counted, compared, carried to the error state) and ask the model's
//! [`Describe`](crate::Describe) for their text.

use crate::layout::SlotId;

/// An error raised while evaluating a guard, an effect or a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("division by zero")]
    DivisionByZero,
    /// `var` is the front end's variable id.
    #[error("array index {index} out of bounds (length {len})")]
    IndexOutOfBounds { var: u32, index: i32, len: u32 },
    #[error("value {value} out of range for the assigned variable")]
    OutOfRange { slot: SlotId, value: i32 },
    /// An arithmetic result the model cannot use: an integer overflow, a value that is
    /// not a number converted to an integer, a negative exponent of an integer power, a
    /// probability that is negative or not a number, the probabilities of a command that
    /// do not sum to 1.
    #[error("{what}")]
    Arithmetic { what: &'static str },
}
