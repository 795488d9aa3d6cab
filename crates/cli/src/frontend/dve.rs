//! The DVE front end behind [`Loaded`]: reading and loading a `.dve` file (its
//! diagnostics rendered rustc-style against the file), and DVE expressions compiled
//! in the model's global scope for `--invariant`, `--ltl` propositions and
//! `--weight`/`--time`.

use std::path::Path;

use warpcheck_dve::{DveModel, LoadOptions as DveOptions, Overflow, Program};
use warpcheck_ltl::formula::render_at;
use warpcheck_ltl::{formula_automaton, Definition, FormulaError, PropositionError};
use warpcheck_model::{Automaton, LabelId};

use super::{LoadOptions, Loaded, OverflowArg, StateFunction, WithFormula};
use crate::error::CliError;

/// Reads and loads the DVE model in `path`; prints its warnings (inputs read the way
/// DiVinE 2.4 reads them) to standard error.
pub fn load(path: &Path, options: &LoadOptions) -> Result<DveModel, CliError> {
    let source =
        std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read `{}`: {e}", path.display())))?;
    let overflow = match options.overflow {
        OverflowArg::Error => Overflow::Error,
        OverflowArg::Wrap => Overflow::Wrap,
    };
    let file = path.display().to_string();
    let dve = warpcheck_dve::load_with(&source, &DveOptions { overflow })
        .map_err(|d| CliError::Rendered(d.render(&file, &source)))?;
    for warning in &dve.warnings {
        eprint!("{}", warning.render(&file, &source));
    }
    Ok(dve)
}

impl Loaded for DveModel {
    type Model = Program;

    fn model(&self) -> &Program {
        &self.model
    }

    fn add_invariant(&mut self, text: &str) -> Result<LabelId, CliError> {
        self.add_predicate(text).map_err(|d| CliError::Rendered(d.render("--invariant", text)))
    }

    fn state_function(&self, text: &str, option: &str) -> Result<StateFunction<'_>, CliError> {
        let f = DveModel::state_function(self, text).map_err(|d| CliError::Rendered(d.render(option, text)))?;
        Ok(Box::new(f))
    }

    fn property(&self) -> Option<&Automaton> {
        self.model.property_automaton()
    }

    fn formula(&mut self, text: &str, definitions: &[Definition]) -> Result<WithFormula, CliError> {
        let ready = formula_automaton(text, definitions, |e| self.add_predicate(e)).map_err(|e| {
            CliError::Rendered(match &e {
                FormulaError::Parse(p) => p.render(text).replacen("error: ", "error: in --ltl: ", 1),
                FormulaError::Proposition(PropositionError::Unknown { span, .. }) => {
                    render_at(text, span.clone(), &e.to_string())
                }
                FormulaError::Compile { proposition: p, error } => {
                    let mut out = format!(
                        "error: atomic proposition {} ({}) is not a valid DVE expression\n",
                        p.written, p.origin
                    );
                    out += &error.render(&format!("proposition {}", p.written), &p.expression);
                    if p.expression.contains("myloop(") {
                        out += "note: `myloop` is one of BEEM's m4 macros, expanded per instance by BEEM's tools; \
                                define this proposition with --ap for the instance\n";
                    }
                    out
                }
                _ => format!("error: {e}\n"),
            })
        })?;
        Ok(ready.into())
    }
}
