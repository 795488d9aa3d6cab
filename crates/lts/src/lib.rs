//! Networks of labelled transition systems (spec: `../shared/docs/lts-networks.md`):
//! Aldebaran `.aut` components ([`aut`]), combined by EXP synchronisation vectors
//! ([`exp`], [`build`]) or read from GPUexplore's `.gpf` ([`gpf`]), explored through
//! warpcheck's model interface ([`model`], [`successors`]) on every engine.
//!
//! - [`aut`]: the labelled `.aut` reader and writer;
//! - [`exp`]: the EXP subset's syntax; [`build`]: its meaning, a flat [`Network`];
//! - [`component`], [`network`]: components and transition groups;
//! - [`successors`], [`model`]: the product as a [`warpcheck_model::Model`];
//! - [`labelled`]: the labelled state graph (for `.aut` output and label counts);
//! - [`error`]: diagnostics with file, line, column and caret.

pub mod aut;
pub mod build;
pub mod codegen;
pub mod component;
pub mod error;
pub mod exp;
pub mod formula;
pub mod from_dve;
pub mod gpf;
pub mod labelled;
pub mod model;
pub mod monitor;
pub mod network;
pub mod successors;
pub mod write_exp;

pub use aut::{AutOptions, Lts, TAU};
pub use build::{load, Options};
pub use error::{Diagnostic, Error};
pub use network::{Counting, Group, Network, Sync};
