//! The PRISM language front end of warpcheck: discrete-time Markov chains (`dtmc`),
//! Markov decision processes (`mdp`) and continuous-time Markov chains (`ctmc`), with
//! the semantics of PRISM and Storm.
//!
//! - [`load`]: source text and the values of open constants to a [`PrismModel`], or a
//!   [`Diagnostic`] (file, line, column, caret) for any bad input;
//! - [`parse_constants`]: `N=16,MAX=2` (the `--const` option) to name/value pairs;
//! - [`PrismModel`]: a [`warpcheck_model::Model`] (packed states, one emitted successor
//!   per choice and branch with its probability or rate, PRISM labels) and the
//!   Markov builder's [`warpcheck_markov::Annotations`] (rewards, valuations), so that
//!   [`PrismModel::build`] gives the [`warpcheck_markov::SparseModel`].
//!
//! Modules: [`lexer`], [`parser`] and [`ast`] (syntax), [`check`] and [`resolve`] (names, types,
//! constants, formulas, renaming) into [`program`] (the checked program), [`eval`]
//! (typed stack code and its evaluator), [`model`] (the successor generator behind the
//! waist), [`codegen`] (the model as C for the GPU kernels), [`diagnostic`].
//!
//! ```
//! let source = "dtmc
//! module coin
//!   x : [0..2] init 0;
//!   [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=2);
//! endmodule
//! label \"heads\" = x=1;";
//! let model = warpcheck_prism::load(source, &[]).unwrap();
//! let built = model.build(&Default::default()).unwrap();
//! assert_eq!((built.states(), built.transitions()), (3, 4));
//! assert_eq!(built.labelling.states("heads"), Some(&[1][..]));
//! assert_eq!(built.labelling.states("deadlock"), Some(&[1, 2][..]));
//! ```

#![warn(missing_docs)]

pub mod ast;
pub mod check;
pub mod codegen;
pub use warpcheck_diagnostic as diagnostic;
pub mod eval;
pub mod lexer;
pub mod model;
pub mod parser;
pub mod program;
pub mod resolve;

pub use diagnostic::{Diagnostic, Severity, Span};
pub use model::{PrismModel, PrismSuccessors};

/// Parses, checks and instantiates a PRISM model with the values of its open
/// constants (`name`, `value` pairs, e.g. from [`parse_constants`]).
pub fn load(source: &str, constants: &[(String, String)]) -> Result<PrismModel, Diagnostic> {
    let file = parser::parse(source)?;
    let program = check::check(&file, source, constants)?;
    let init_span = file.init.as_ref().map_or(Span::default(), |e| e.span);
    PrismModel::new(program, init_span)
}

/// A malformed `--const` list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad constant list `{text}`: {why}")]
pub struct ConstantsError {
    /// The list.
    pub text: String,
    /// What is wrong.
    pub why: String,
}

/// Splits a constant list `N=16,MAX=2` into `("N", "16"), ("MAX", "2")`. Names must be
/// identifiers and appear once; the values are read when the model's types are known
/// (by [`load`]). An empty list is no constant.
pub fn parse_constants(text: &str) -> Result<Vec<(String, String)>, ConstantsError> {
    let err = |why: String| ConstantsError { text: text.to_string(), why };
    let mut out: Vec<(String, String)> = Vec::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    for part in text.split(',') {
        let Some((name, value)) = part.split_once('=') else {
            return Err(err(format!("`{}` is not `NAME=VALUE`", part.trim())));
        };
        let (name, value) = (name.trim(), value.trim());
        let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(err(format!("`{name}` is not a constant name")));
        }
        if value.is_empty() {
            return Err(err(format!("`{name}` has no value")));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(err(format!("`{name}` is given twice")));
        }
        out.push((name.to_string(), value.to_string()));
    }
    Ok(out)
}
