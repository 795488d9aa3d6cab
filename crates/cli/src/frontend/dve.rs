//! The DVE front end behind [`Loaded`]: reading and loading a `.dve` file (its
//! diagnostics rendered rustc-style against the file), and DVE expressions compiled
//! in the model's global scope for `--invariant`, `--ltl` propositions and
//! `--weight`/`--time`.

use std::path::Path;

use warpcheck_dve::{DveModel, LoadOptions as DveOptions, Overflow, Program};
use warpcheck_ltl::formula::render_at;
use warpcheck_ltl::{formula_model, Definition, FormulaError, PropositionError};
use warpcheck_model::LabelId;

use super::{LoadOptions, Loaded, OverflowArg, StateFunction, WithFormula};
use crate::error::CliError;

/// Reads and loads the DVE model in `path`.
pub fn load(path: &Path, options: &LoadOptions) -> Result<DveModel, CliError> {
    let source =
        std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read `{}`: {e}", path.display())))?;
    let overflow = match options.overflow {
        OverflowArg::Error => Overflow::Error,
        OverflowArg::Wrap => Overflow::Wrap,
    };
    warpcheck_dve::load_with(&source, &DveOptions { overflow })
        .map_err(|d| CliError::Rendered(d.render(&path.display().to_string(), &source)))
}

/// The property automaton of `model` in words; `name` replaces its process's name.
fn summary(model: &Program, name: Option<&str>) -> Option<String> {
    let property = model.property.as_ref()?;
    let process = &model.processes[property.process as usize];
    let accepting = process.accepting.iter().filter(|&&a| a).count();
    Some(format!(
        "{} (Büchi automaton: {} states, {accepting} accepting, {} edges)",
        name.unwrap_or(&process.name),
        process.states.len(),
        property.edges.len()
    ))
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

    fn property_summary(&self) -> Option<String> {
        summary(&self.model, None)
    }

    fn with_formula(&self, text: &str, definitions: &[Definition]) -> Result<WithFormula<Program>, CliError> {
        let ready = formula_model(&self.model, text, definitions, |e| self.expression(e)).map_err(|e| {
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
        let definitions = ready
            .propositions
            .iter()
            .filter(|p| p.origin != "formula")
            .map(|p| format!("{} = {}", p.written, p.expression))
            .collect();
        Ok(WithFormula {
            summary: summary(&ready.model, Some("the negated formula")).unwrap_or_default(),
            automaton_states: ready.automaton.states(),
            automaton_edges: ready.automaton.edges.len(),
            definitions,
            model: ready.model,
        })
    }
}
