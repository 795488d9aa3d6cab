//! The DVE front end of warpcheck: DVE source text to a [`Program`], which implements
//! the model interface ([`warpcheck_model::Model`]) for every engine.
//!
//! - [`lexer`] and [`parser`] turn text into an [`ast::Module`];
//! - [`lower`] checks it (names, constants, sync arities, ...) and lowers it to the
//!   typed IR ([`ir`], [`Program`]);
//! - [`eval`] and [`compiled`] execute the IR on the CPU, [`successors`] is the
//!   successor function ([`Generator`]) with DVE's semantics;
//! - [`codegen`] writes the same semantics as CUDA C against the kernels' C ABI
//!   ([`warpcheck_model::cuda`]): the CPU executor and the CUDA generator of one
//!   language side by side;
//! - every error is a [`Diagnostic`] with a span, rendered rustc-style; inputs that
//!   DiVinE 2.4 accepts leniently are read its way, each with a warning
//!   ([`DveModel::warnings`], listed in [`lenient`]).
//!
//! ```
//! let source = "byte x; process P { state s; init s; trans s -> s { guard x < 3; effect x = x + 1; }; } system async;";
//! let dve = warpcheck_dve::load(source).unwrap();
//! assert_eq!(dve.model.groups.len(), 1);
//! let err = warpcheck_dve::load("process P { state s; init t; } system async;").unwrap_err();
//! assert_eq!(err.message, "process `P` has no state `t`");
//! ```

pub mod ast;
pub mod codegen;
pub mod compiled;
pub mod dependencies;
use warpcheck_diagnostic as diagnostic;
mod display;
pub mod eval;
pub mod ir;
pub mod lenient;
pub mod lexer;
pub mod lower;
mod names;
pub mod parser;
mod program;
pub mod successors;
mod waist;

pub use diagnostic::{Diagnostic, Severity, Span};
pub use eval::{Evaluator, Overflow};
pub use names::Names;
pub use program::{Channel, Predicate, Process, Program, Property, SyncMode, Transition, Variable};
pub use successors::Generator;

/// A model loaded from DVE, with its names (to compile further expressions in its
/// scope) and the warnings about how lenient inputs were read.
#[derive(Clone, Debug)]
pub struct DveModel {
    pub model: Program,
    pub names: Names,
    /// Warnings ([`Severity::Warning`]) in source order: inputs accepted the way
    /// DiVinE 2.4 reads them (see [`lenient`]). Render them against the source.
    pub warnings: Vec<Diagnostic>,
}

/// How to load a model: the semantic choices DVE leaves open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// What an out-of-range assignment does: an evaluation error (DiVinE 2.4's
    /// interpreter, the default) or a C-style wrap-around (DiVinE's compiled models).
    pub overflow: Overflow,
}

/// Parses, checks and lowers DVE source text with the default [`LoadOptions`].
pub fn load(source: &str) -> Result<DveModel, Diagnostic> {
    load_with(source, &LoadOptions::default())
}

/// Parses, checks and lowers DVE source text with `options`.
///
/// ```
/// use warpcheck_dve::{load_with, LoadOptions, Overflow};
/// let source = "byte x = 255; process P { state s; init s; trans s -> s { effect x = x + 1; }; } system async;";
/// let dve = load_with(source, &LoadOptions { overflow: Overflow::Wrap }).unwrap();
/// assert_eq!(dve.model.overflow, Overflow::Wrap);
/// ```
pub fn load_with(source: &str, options: &LoadOptions) -> Result<DveModel, Diagnostic> {
    let module = parser::parse(source)?;
    let (mut model, mut names) = lower::lower(&module, source)?;
    model.overflow = options.overflow;
    let mut warnings = std::mem::take(&mut names.warnings);
    warnings.extend(lenient::unindexed_arrays(&module, &names));
    warnings.sort_by_key(|d| d.span.start);
    Ok(DveModel { model, names, warnings })
}

impl DveModel {
    /// Compiles a DVE expression over the model's global scope (globals, constants,
    /// `P.state`, `P->local`), e.g. a command-line invariant.
    pub fn expression(&self, source: &str) -> Result<ir::Expr, Diagnostic> {
        let e = parser::parse_expression(source)?;
        self.names.lower_expr(None, &e)
    }

    /// Compiles a DVE expression over the global scope (as [`DveModel::expression`]) to
    /// an integer function of states, e.g. the `--weight` of `cycle-mean`: its value in
    /// a state, or the evaluation error it raises there (with the model's overflow rule).
    ///
    /// ```
    /// let dve = warpcheck_dve::load("byte x = 3; process P { state s; init s; } system async;").unwrap();
    /// let twice = dve.state_function("2 * x").unwrap();
    /// assert_eq!(twice(&dve.model.initial_state()), Ok(6));
    /// let bad = dve.state_function("x / 0").unwrap();
    /// assert!(bad(&dve.model.initial_state()).is_err());
    /// ```
    pub fn state_function(
        &self,
        source: &str,
    ) -> Result<impl Fn(&[u32]) -> Result<i64, warpcheck_model::EvalError> + Sync + '_, Diagnostic> {
        let expr = self.expression(source)?;
        Ok(move |state: &[u32]| self.model.evaluator(&mut []).eval(&expr, state).map(i64::from))
    }

    /// Compiles a DVE expression over the global scope (as [`DveModel::expression`])
    /// and adds it to the model as a state label (a predicate); returns its label id.
    pub fn add_predicate(&mut self, source: &str) -> Result<warpcheck_model::LabelId, Diagnostic> {
        let expr = self.expression(source)?;
        Ok(self.model.add_predicate(source, expr))
    }
}
