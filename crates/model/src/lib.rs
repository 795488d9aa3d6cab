//! The model interface of warpcheck: what every front end produces and every engine
//! consumes.
//!
//! - [`Layout`]: states are fixed-length `[u32]` vectors of packed, typed bit fields.
//! - [`ir`]: a small typed IR of expressions, assignments and transition groups.
//! - [`Model`]: a lowered model (names, layout, initial state, groups, property
//!   automaton, assertions).
//! - [`Evaluator`]: the CPU executor of the IR; [`Generator`]: the successor function.
//! - [`interface`]: the narrow waist, the traits engines consume ([`interface::Model`],
//!   [`Successors`], [`Describe`]); the IR model implements them.
//! - [`Product`]: any model × a Büchi automaton over its labels, again a model.
//!
//! This crate knows nothing about any source language, threads or GPUs.
//!
//! ```
//! use warpcheck_model::{ir::*, *};
//! // One process with a byte counter x that counts 0, 1, 2 and stops.
//! let model = Model {
//!     layout: Layout::pack(&[SlotType::Range { max: 0 }, SlotType::Byte]),
//!     variables: vec![Variable { name: "x".into(), process: None, first: 1, len: 1, is_array: false }],
//!     processes: vec![Process {
//!         name: "P".into(), control: 0, states: vec!["s".into()],
//!         accepting: vec![false], committed: vec![false],
//!         transitions: vec![Transition { from: 0, to: 0, line: 0 }],
//!     }],
//!     channels: vec![],
//!     initial_values: vec![0, 0],
//!     groups: vec![Group {
//!         kind: GroupKind::Local,
//!         participants: vec![Participant { process: 0, transition: 0 }],
//!         channel: None,
//!         source: vec![(0, 0)],
//!         guards: vec![Expr::binary(BinOp::Lt, Expr::Load(1), Expr::Const(2))],
//!         effect: vec![Stmt::Assign(LValue::Slot(1), Expr::binary(BinOp::Add, Expr::Load(1), Expr::Const(1)))],
//!         committed: false,
//!     }],
//!     mode: SyncMode::Async,
//!     property: None,
//!     assertions: vec![],
//!     temps: 0,
//!     overflow: Overflow::Error,
//!     predicates: vec![],
//! };
//! let mut generator = Generator::new(&model);
//! let mut next = Vec::new();
//! let deadlock = generator.successors(&model.initial_state(), |_, s| next.push(s.unwrap().to_vec()));
//! assert!(!deadlock);
//! assert_eq!(model.layout.decode(&next[0]), vec![0, 1]);
//! ```

pub mod compiled;
pub mod interface;
mod display;
pub mod eval;
pub mod ir;
pub mod layout;
mod model;
pub mod product;
pub mod successors;
mod waist;

pub use eval::{EvalError, Evaluator, Overflow};
pub use layout::{Layout, Slot, SlotId, SlotType};
pub use interface::{Describe, Label, LabelId, LabelKind, Step, Successors};
pub use model::{AssertionFailure, Channel, Model, Predicate, Process, Property, SyncMode, Transition, Variable};
pub use product::{Automaton, AutomatonEdge, Product};
pub use successors::Generator;
