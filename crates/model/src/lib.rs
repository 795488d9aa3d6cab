//! The model interface of warpcheck, its narrow waist: what every front end produces
//! and every engine consumes.
//!
//! - [`interface`]: the traits ([`Model`], [`Successors`], [`Describe`]), state labels
//!   and [`Step`];
//! - [`Layout`]: states are fixed-length `[u32]` vectors of packed, typed bit fields
//!   (a layout a front end may use to pack its variables);
//! - [`EvalError`]: the errors a step or a label can raise;
//! - [`Product`]: any model × a Büchi automaton over its labels, again a model (LTL
//!   for every front end);
//! - [`cuda`]: the C ABI of the GPU kernels, which a front end's generated CUDA C
//!   implements ([`CudaModel`]).
//!
//! This crate knows nothing about any source language, threads or the CUDA runtime.
//!
//! ```
//! use warpcheck_model::*;
//! /// A counter that counts 0, 1, 2 and stops.
//! struct Counter;
//! struct Steps([u32; 1]);
//! impl Successors for Steps {
//!     fn successors<F: FnMut(Step<'_>, Result<&[u32], EvalError>)>(&mut self, s: &[u32], mut emit: F) -> bool {
//!         if s[0] < 2 {
//!             self.0 = [s[0] + 1];
//!             emit(Step::of(&[0]), Ok(&self.0));
//!         }
//!         s[0] >= 2
//!     }
//! }
//! impl Describe for Counter {
//!     fn describe_step(&self, _: &Step<'_>) -> String { "count".into() }
//!     fn describe_error(&self, e: &EvalError) -> String { e.to_string() }
//!     fn describe_changes(&self, _: &[u32], b: &[u32]) -> Vec<String> { vec![format!("x = {}", b[0])] }
//!     fn describe_state(&self, s: &[u32]) -> Vec<String> { vec![format!("x = {}", s[0])] }
//! }
//! impl Model for Counter {
//!     type Successors<'a> = Steps;
//!     fn state_words(&self) -> usize { 1 }
//!     fn initial_state(&self) -> Vec<u32> { vec![0] }
//!     fn successors(&self) -> Steps { Steps([0]) }
//!     fn labels(&self) -> Vec<Label> { vec![] }
//!     fn label(&self, _: &[u32], _: LabelId) -> Result<bool, EvalError> { Ok(false) }
//!     fn is_accepting(&self, _: &[u32]) -> bool { false }
//!     fn property(&self) -> Option<&str> { None }
//! }
//! let mut steps = Counter.successors();
//! let mut next = Vec::new();
//! let deadlock = steps.successors(&[0], |_, s| next.push(s.unwrap().to_vec()));
//! assert!(!deadlock);
//! assert_eq!(next, [vec![1]]);
//! ```

pub mod cuda;
mod error;
pub mod interface;
pub mod layout;
pub mod product;

pub use cuda::{CudaModel, CudaSource, Table};
pub use error::EvalError;
pub use interface::{BitField, Dependencies, Describe, Label, LabelId, LabelKind, Model, Step, Successors};
pub use layout::{Layout, Slot, SlotId, SlotType};
pub use product::{Automaton, AutomatonEdge, Product};
