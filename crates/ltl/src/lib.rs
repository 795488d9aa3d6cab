//! LTL formulas to Büchi automata (`warpcheck check MODEL --ltl FORMULA`). The
//! accepting-cycle engines that check the product are in `warpcheck-liveness`.
//!
//!
//! - [`formula`]: the syntax tree and parser of LTL formulas;
//! - [`propositions`]: named atomic propositions (`--ap`, files, BEEM's `model.xml`);
//! - [`nnf`]: negation normal form with simplifications;
//! - [`tableau`]: the GPVW tableau, a generalized Büchi automaton;
//! - [`buchi`]: Büchi automata with guarded edges, degeneralisation and reductions,
//!   and [`buchi::translate`], the whole translation;
//! - [`simulation`]: the reduction by direct simulation.
//!
//! [`formula_automaton`] chains them: formula text to the Büchi automaton of its
//! negation over the model's labels, for `warpcheck_model::Product`, which checks it
//! on any front end.
//!
//! ```
//! use warpcheck_model::Product;
//! let source = "byte x; process P { state s; init s; trans s -> s { effect x = (x + 1) % 3; }; } system async;";
//! let mut dve = warpcheck_dve::load(source).unwrap();
//! let ready = warpcheck_ltl::formula_automaton("G !\"x == 2\"", &[], |e| dve.add_predicate(e)).unwrap();
//! let product = Product::new(&dve.model, ready.automaton);
//! let outcome = warpcheck_liveness::check(&product, &Default::default()).unwrap();
//! assert!(!outcome.holds());
//! ```

pub mod buchi;
pub mod formula;
pub mod nnf;
pub mod propositions;
pub mod simulation;
pub mod tableau;

pub use buchi::{Buchi, TranslateError};
pub use formula::{Formula, ParseError};
pub use propositions::{Definition, PropositionError, Resolved};

/// Why a formula cannot be checked on a model; `E` is the error of compiling a
/// proposition's expression.
#[derive(Debug, thiserror::Error)]
pub enum FormulaError<E: std::fmt::Display> {
    #[error("{0}")]
    Parse(ParseError),
    #[error(transparent)]
    Proposition(#[from] PropositionError),
    #[error("atomic proposition {} ({}): {error}", proposition.written, proposition.origin)]
    Compile { proposition: Resolved, error: E },
    #[error(transparent)]
    Translate(#[from] TranslateError),
}

/// A formula translated for any front end: the Büchi automaton of its negation over
/// the model's labels, ready for [`warpcheck_model::Product`].
#[derive(Clone, Debug)]
pub struct FormulaAutomaton {
    pub formula: Formula,
    pub propositions: Vec<Resolved>,
    /// The Büchi automaton of the negated formula, over proposition indices...
    pub buchi: Buchi,
    /// ...and over the model's labels.
    pub automaton: warpcheck_model::Automaton,
}

/// Parses `text`, resolves its propositions by `definitions`, turns each into a label
/// of the model with `label` (the front end compiles and adds it) and translates the
/// negated formula: `Product::new(model, result.automaton)` is then checked by the
/// engines of `warpcheck-liveness`.
pub fn formula_automaton<E: std::fmt::Display>(
    text: &str,
    definitions: &[Definition],
    mut label: impl FnMut(&str) -> Result<warpcheck_model::LabelId, E>,
) -> Result<FormulaAutomaton, FormulaError<E>> {
    let (formula, propositions, labels, buchi) = translate_formula(text, definitions, &mut label)?;
    let automaton = buchi.over_labels("LTL_property", &labels);
    Ok(FormulaAutomaton { formula, propositions, buchi, automaton })
}

/// Parses, resolves the propositions, compiles each with `compile`, translates.
type Translated<T> = (Formula, Vec<Resolved>, Vec<T>, Buchi);
fn translate_formula<T, E: std::fmt::Display>(
    text: &str,
    definitions: &[Definition],
    compile: &mut impl FnMut(&str) -> Result<T, E>,
) -> Result<Translated<T>, FormulaError<E>> {
    let formula = formula::parse(text).map_err(FormulaError::Parse)?;
    let propositions = propositions::resolve(&formula, definitions)?;
    let mut compiled = Vec::with_capacity(propositions.len());
    for p in &propositions {
        match compile(&p.expression) {
            Ok(e) => compiled.push(e),
            Err(error) => return Err(FormulaError::Compile { proposition: p.clone(), error }),
        }
    }
    let automaton = buchi::translate(&formula.ltl, true, propositions.len())?;
    Ok((formula, propositions, compiled, automaton))
}
