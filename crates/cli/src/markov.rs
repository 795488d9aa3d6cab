//! Markov models on the command line: loading one (a PRISM source built with
//! `--const`, or Storm's and PRISM's explicit files), `explore` of a Markov model
//! (its size, `--export`), and the reports they share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use warpcheck_markov::{BuildOptions, ModelType, SparseModel};

use crate::error::{CliError, Verdict};
use crate::frontend::MarkovFormat;
use crate::json;

/// The options of loading a Markov model.
#[derive(Args, Clone, Debug, Default)]
pub struct MarkovArgs {
    /// PRISM models: the values of the open constants, e.g. `N=16,MAX=2` (repeatable).
    #[arg(long = "const", value_name = "NAME=VALUE,...")]
    pub constants: Vec<String>,
    /// The type of a `.tra` file with a two-number header (`dtmc` unless given; a
    /// three-number header is an MDP). For other inputs, checked.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub model_type: Option<TypeArg>,
}

/// A Markov model type named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    Dtmc,
    Ctmc,
    Mdp,
}

impl From<TypeArg> for ModelType {
    fn from(t: TypeArg) -> ModelType {
        match t {
            TypeArg::Dtmc => ModelType::Dtmc,
            TypeArg::Ctmc => ModelType::Ctmc,
            TypeArg::Mdp => ModelType::Mdp,
        }
    }
}

/// A loaded Markov model and how long loading (building) took.
pub struct LoadedMarkov {
    pub model: SparseModel,
    pub seconds: f64,
}

/// Loads (or builds, on the current rayon pool) the Markov model in `path`.
pub fn load(path: &Path, format: MarkovFormat, args: &MarkovArgs) -> Result<LoadedMarkov, CliError> {
    let start = Instant::now();
    let asked = args.model_type.map(ModelType::from);
    let model = match format {
        MarkovFormat::Prism => build_prism(path, args)?,
        MarkovFormat::Drn | MarkovFormat::Tra => {
            if !args.constants.is_empty() {
                return Err(CliError::Input(format!(
                    "--const: {} is an explicit model, without constants",
                    path.display()
                )));
            }
            warpcheck_markov::load(path, asked).map_err(|e| CliError::Input(e.to_string()))?
        }
    };
    if let Some(asked) = asked.filter(|&t| t != model.model_type) {
        return Err(CliError::Input(format!(
            "{}: the model is a {}, not the {} asked for with --type",
            path.display(),
            model.model_type.name(),
            asked.name()
        )));
    }
    Ok(LoadedMarkov { model, seconds: start.elapsed().as_secs_f64() })
}

/// Parses, checks and builds a PRISM model with the constants of `--const`.
fn build_prism(path: &Path, args: &MarkovArgs) -> Result<SparseModel, CliError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read {file}: {e}")))?;
    let mut constants = Vec::new();
    for list in &args.constants {
        constants.extend(warpcheck_prism::parse_constants(list).map_err(|e| CliError::Input(format!("--const: {e}")))?);
    }
    let model = warpcheck_prism::load(&source, &constants).map_err(|d| CliError::Rendered(d.render(&file, &source)))?;
    model.build(&BuildOptions::default()).map_err(|e| CliError::Input(format!("{file}: {e}")))
}

/// The `--json` report of `explore` on a Markov model.
#[derive(Serialize)]
pub struct MarkovStats {
    pub model: String,
    pub model_type: &'static str,
    pub states: usize,
    pub transitions: u64,
    /// Rows of the matrix: choices of an MDP, one per state otherwise.
    pub choices: u64,
    pub initial_states: usize,
    pub deadlocks: usize,
    /// Label name -> number of states.
    pub labels: BTreeMap<String, usize>,
    pub seconds: f64,
    pub backend: &'static str,
    pub threads: usize,
}

/// `explore` of a Markov model: its size; with `--export FILE`, the model written as
/// DRN (`.drn`) or PRISM's explicit files (`.tra`), gzipped for `.gz`.
pub fn explore(
    path: &Path,
    format: MarkovFormat,
    args: &MarkovArgs,
    export: Option<&PathBuf>,
    threads: usize,
    json_out: bool,
) -> Result<Verdict, CliError> {
    let loaded = crate::thread_pool(threads)?.install(|| load(path, format, args))?;
    let m = &loaded.model;
    if let Some(out) = export {
        warpcheck_markov::save(out, m).map_err(|e| CliError::Input(e.to_string()))?;
    }
    let deadlocks = m.labelling.states("deadlock").map_or(0, |s| s.len());
    let stats = MarkovStats {
        model: path.display().to_string(),
        model_type: m.model_type.name(),
        states: m.states(),
        transitions: m.transitions(),
        choices: m.choices(),
        initial_states: m.initial.len(),
        deadlocks,
        labels: m.labelling.labels.iter().map(|(n, s)| (n.clone(), s.len())).collect(),
        seconds: loaded.seconds,
        backend: "cpu",
        threads,
    };
    if json_out {
        json::print(&stats);
        return Ok(Verdict::Holds);
    }
    println!("model:        {} ({})", stats.model_type, stats.model);
    println!("states:       {}", stats.states);
    if m.model_type == ModelType::Mdp {
        println!("choices:      {}", stats.choices);
    }
    println!("transitions:  {}", stats.transitions);
    println!("initial:      {}", stats.initial_states);
    println!("deadlocks:    {deadlocks} (made absorbing)");
    for (name, states) in m.labelling.labels.iter().filter(|(n, _)| n != "init" && n != "deadlock") {
        let count = states.len();
        println!("label:        \"{name}\" {count} states");
    }
    if let Some(out) = export {
        println!("written:      {}", out.display());
    }
    println!("time:         {:.3} s on {threads} thread(s)", stats.seconds);
    Ok(Verdict::Holds)
}
