//! PDDL planning tasks behind [`Loaded`]: a problem file and its domain, parsed and
//! grounded into a [`PlanningModel`], whose states `explore`, `check --deadlock` and
//! `scc` take like any model's (the plans themselves are `warpcheck plan`'s).

use std::path::{Path, PathBuf};

use warpcheck_ltl::Definition;
use warpcheck_model::{Automaton, LabelId};
use warpcheck_pddl::model::PlanningModel;
use warpcheck_pddl::{ast, Diagnostic, FileKind, Task};

use super::{Loaded, StateFunction, WithFormula};
use crate::error::CliError;

/// A grounded planning task.
pub struct Pddl {
    model: PlanningModel,
}

/// The domain of problem `problem`: `named` (`--domain`), else the first file beside
/// it of `<problem>-domain.pddl`, `domain_<problem>.pddl` and `domain.pddl` (the IPC's
/// layouts).
pub fn domain_of(problem: &Path, named: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(d) = named {
        return Ok(d.to_path_buf());
    }
    let dir = problem.parent().unwrap_or(Path::new("."));
    let stem = problem.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let candidates = [format!("{stem}-domain.pddl"), format!("domain_{stem}.pddl"), "domain.pddl".into()];
    candidates.iter().map(|c| dir.join(c)).find(|p| p.is_file()).ok_or_else(|| {
        CliError::Input(format!(
            "{}: no domain file beside it ({}); name it with --domain",
            problem.display(),
            candidates.join(", ")
        ))
    })
}

/// Reads, parses and grounds `problem` with `domain`: the lifted domain and problem
/// (for the validator) and the grounded task; a diagnostic renders against its file.
pub fn read_task(domain: &Path, problem: &Path) -> Result<(ast::Domain, ast::Problem, Task), CliError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| CliError::Input(format!("cannot read `{}`: {e}", p.display())))
    };
    let (domain_text, problem_text) = (read(domain)?, read(problem)?);
    let rendered = |d: Diagnostic| {
        let (file, text) = match d.file {
            FileKind::Domain => (domain, &domain_text),
            FileKind::Problem => (problem, &problem_text),
        };
        CliError::Rendered(d.render(&file.display().to_string(), text))
    };
    let d = warpcheck_pddl::parse_domain(&domain_text).map_err(rendered)?;
    let p = warpcheck_pddl::parse_problem(&problem_text, &d).map_err(rendered)?;
    let task = warpcheck_pddl::ground(&d, &p).map_err(rendered)?;
    Ok((d, p, task))
}

/// Reads, parses and grounds the problem in `path` with its domain (see [`domain_of`]).
pub fn load(path: &Path, domain: Option<&Path>) -> Result<Pddl, CliError> {
    let (_, _, task) = read_task(&domain_of(path, domain)?, path)?;
    Ok(Pddl { model: PlanningModel::new(task) })
}

const NO_EXPRESSIONS: &str = "a planning task has no expression language here (its goal is the label \
                              `unsolved`; plans come from `warpcheck plan`)";

impl Loaded for Pddl {
    type Model = PlanningModel;

    fn model(&self) -> &PlanningModel {
        &self.model
    }

    fn add_invariant(&mut self, _: &str) -> Result<LabelId, CliError> {
        Err(CliError::Input(format!("--invariant: {NO_EXPRESSIONS}")))
    }

    fn state_function(&self, _: &str, option: &str) -> Result<StateFunction<'_>, CliError> {
        Err(CliError::Input(format!("{option}: {NO_EXPRESSIONS}")))
    }

    fn property(&self) -> Option<&Automaton> {
        None
    }

    fn formula(&mut self, _: &str, _: &[Definition]) -> Result<WithFormula, CliError> {
        Err(CliError::Input(format!("--ltl: {NO_EXPRESSIONS}")))
    }
}
