//! The intermediate representation of a model: typed expressions over state slots,
//! assignments, and transition groups.
//!
//! A front end lowers its language to a [`Program`](crate::Program) made of these pieces;
//! engines and back ends (the CPU executor in [`crate::eval`], later a CUDA C code
//! generator) never see the source language. Everything is flat and explicit: array
//! reads carry their bounds, assignments carry their target slot's domain through the
//! layout, and process control states are ordinary slots.

use warpcheck_model::layout::SlotId;

/// Index of a named variable in [`Program::variables`](crate::Program::variables).
pub type VarId = u32;

/// Unary operators (32-bit signed arithmetic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Arithmetic negation `-a`.
    Neg,
    /// Bitwise complement `~a`.
    BitNot,
    /// Logical negation `not a` (1 if `a` is 0, else 0).
    Not,
}

/// Binary operators. Logical operators short-circuit and yield 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Division truncating towards zero; division by zero is an evaluation error.
    Div,
    /// Remainder with the sign of the dividend; by zero is an evaluation error.
    Rem,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Imply,
}

/// A contiguous run of slots forming a 1-D array variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayRef {
    /// The array variable, for error messages.
    pub var: VarId,
    /// Slot of element 0; element `i` is slot `first + i`.
    pub first: SlotId,
    /// Number of elements.
    pub len: u32,
}

/// An expression evaluated to an `i32` on a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i32),
    /// The value of a scalar slot.
    Load(SlotId),
    /// An array element; an index outside `0..len` is an evaluation error.
    LoadIndexed(ArrayRef, Box<Expr>),
    /// A temporary set earlier in the same effect by [`Stmt::SetTemp`].
    Temp(u32),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `a op b`.
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LValue {
    Slot(SlotId),
    Indexed(ArrayRef, Expr),
}

/// One statement of an effect. Statements run in order, each seeing the previous.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Assigns a value; a value outside the target slot's domain is an evaluation error.
    Assign(LValue, Expr),
    /// Stores a value in a temporary (used to evaluate all values of a multi-value
    /// synchronisation before any is assigned).
    SetTemp(u32, Expr),
    /// Moves slots `first + by .. first + len` down by `by` and sets the last `by` to 0
    /// (dequeuing the oldest item of a buffered channel of `by`-slot items).
    ShiftDown { first: SlotId, len: u32, by: u32 },
}

/// Which kind of step a group performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// A transition of one process without communication.
    Local,
    /// A sender and a receiver meeting on a rendezvous channel.
    Rendezvous,
    /// A send into a buffered channel (enabled while the channel is not full).
    BufferedSend,
    /// A receive from a buffered channel (enabled while it is not empty).
    BufferedReceive,
}

/// One process transition taking part in a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Participant {
    pub process: u32,
    /// Index into that process's [`Process::transitions`](crate::Process::transitions).
    pub transition: u32,
}

/// A transition group: a guarded, atomic update of the state, as in LTSmin's PINS.
///
/// A group is enabled in a state when every `(slot, value)` of `source` holds, the
/// committed-state rule allows it, and every guard evaluates to non-zero (in order;
/// the first false one disables the group). Its effect then runs on a copy of the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub kind: GroupKind,
    /// The processes and transitions that move together (one, or sender then receiver).
    pub participants: Vec<Participant>,
    /// The channel used, if any (index into [`Program::channels`](crate::Program::channels)).
    pub channel: Option<u32>,
    /// Control-state preconditions: slot must equal value.
    pub source: Vec<(SlotId, i32)>,
    /// Guards, all of which must hold.
    pub guards: Vec<Expr>,
    /// The effect, including the moves of the control states.
    pub effect: Vec<Stmt>,
    /// Every participant leaves a committed state, so the group may run while some
    /// process is committed.
    pub committed: bool,
}

/// A state invariant attached to a process control state (DVE `assert`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assertion {
    pub process: u32,
    pub state: i32,
    pub expr: Expr,
    /// The assertion as written in the source, for messages.
    pub text: String,
}
