//! The networks-of-LTSs front end behind [`Loaded`] (`warpcheck_lts`): `.exp` networks,
//! GPUexplore `.gpf` files and single labelled `.aut` files, with the options of their
//! semantics ([`NetworkArgs`]). A network has no state expressions: `--invariant` and
//! `--weight` are refused with a message; `--ltl` propositions are regular
//! expressions over action labels (LTL over actions).

use std::path::Path;

use clap::{Args, ValueEnum};
use warpcheck_ltl::{formula_automaton, Definition, FormulaError};
use warpcheck_lts::monitor::{Incomplete, Matching, Monitor};
use warpcheck_lts::{build, gpf, labelled, AutOptions, Counting, Network, Sync};
use warpcheck_model::{Automaton, LabelId};

use super::{Loaded, StateFunction, WithFormula};
use crate::error::CliError;

/// `--sync`: which component labels fire alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SyncArg {
    /// EXP semantics: only vectors move (and τ, which interleaves).
    #[default]
    Vectors,
    /// GPUexplore's: a label at position k of no vector fires alone in component k.
    FreeUnmentioned,
}

/// `--transitions`: what a transition is when counting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CountingArg {
    /// Distinct (source, label, target) triples.
    #[default]
    Distinct,
    /// One per vector and choice of participant targets (DiVinE's count).
    Multiplicity,
}

/// `--monitor-labels`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum MatchingArg {
    #[default]
    Regex,
    Literal,
}

/// `--monitor-incomplete`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum IncompleteArg {
    #[default]
    Refuse,
    Block,
    Stay,
}

/// The options of networks of LTSs (`.exp`, `.gpf`, `.aut` models).
#[derive(Args, Clone, Debug, Default)]
pub struct NetworkArgs {
    /// Networks: `vectors` (EXP semantics, the default) or `free-unmentioned`
    /// (GPUexplore's: labels in no vector at a component's position fire alone).
    #[arg(long, value_enum, default_value_t = SyncArg::Vectors, value_name = "MODE")]
    pub sync: SyncArg,
    /// Networks: component labels matching REGEX (whole label) always fire alone, e.g.
    /// 'rate .*'.
    #[arg(long, value_name = "REGEX")]
    pub free: Option<String>,
    /// Networks: the labels of `hide`, `cut` and `rename` in `.exp` files are regular
    /// expressions, each matched against the whole label, and a `rename` target may
    /// name the pattern's groups by a backslash and a digit (CADP's reading; default:
    /// literal strings).
    #[arg(long)]
    pub exp_regex: bool,
    /// Networks: the label names read as the internal action τ (default: i,tau).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub internal: Option<Vec<String>>,
    /// Networks: count transitions as `distinct` (source, label, target) triples or
    /// with `multiplicity` (one per vector and choice of targets, as DiVinE counts).
    #[arg(long = "transitions", value_enum, default_value_t = CountingArg::Distinct, value_name = "HOW")]
    pub counting: CountingArg,
    /// Networks: how `--graph-out x.aut` writes τ (`i`, CADP's, or `tau`, mCRL2's).
    #[arg(long, value_name = "NAME", default_value = "i")]
    pub internal_out: String,
    /// Networks: a safety monitor, an `.aut` whose labels are regular expressions over
    /// the product's labels (whole label); `check` reports a reachable error state with
    /// the shortest trace.
    #[arg(long, value_name = "FILE", requires = "error")]
    pub monitor: Option<std::path::PathBuf>,
    /// The monitor's error states (comma-separated).
    #[arg(long, value_name = "STATES", value_delimiter = ',')]
    pub error: Vec<u32>,
    /// The monitor's labels: `regex` (anchored) or `literal`.
    #[arg(long, value_enum, default_value_t = MatchingArg::Regex, value_name = "HOW")]
    pub monitor_labels: MatchingArg,
    /// A monitor state without a move for an observed label: `refuse` the monitor,
    /// `block` the system's step (GPUexplore), or `stay`.
    #[arg(long, value_enum, default_value_t = IncompleteArg::Refuse, value_name = "HOW")]
    pub monitor_incomplete: IncompleteArg,
    /// Networks: a regular safety formula `[R] false` (MCL/mCRL2 style: `"label"`,
    /// `'regex'`, `true`, `not`, `and`, `or`, `.`, `|`, `*`, `+`), compiled to a monitor.
    #[arg(long, value_name = "FORMULA", conflicts_with_all = ["monitor", "formula_file"])]
    pub formula: Option<String>,
    /// Networks: the `[R] false` formula from a file (`.rf`).
    #[arg(long, value_name = "FILE", conflicts_with = "monitor")]
    pub formula_file: Option<std::path::PathBuf>,
    /// `.gpf` files: GPUexplore's `-p`, the last process is the property LTS and its
    /// state 1 the error state (`check` reports reaching it).
    #[arg(long)]
    pub gpf_property: bool,
    /// `.gpf` files: the dialect, 2016 (with the liveness line) or 2015.
    #[arg(long, value_name = "YEAR", default_value_t = 2016)]
    pub gpf_dialect: u32,
}

impl NetworkArgs {
    fn options(&self) -> Result<build::Options, CliError> {
        let free = match &self.free {
            Some(p) => Some(build::Options::free_regex(p).map_err(|e| CliError::Input(e.to_string()))?),
            None => None,
        };
        Ok(build::Options {
            aut: self.internal.clone().map_or_else(AutOptions::default, |internal| AutOptions { internal }),
            sync: match self.sync {
                SyncArg::Vectors => Sync::Exp,
                SyncArg::FreeUnmentioned => Sync::FreeUnmentioned,
            },
            free,
            exp_regex: self.exp_regex,
            counting: match self.counting {
                CountingArg::Distinct => Counting::Distinct,
                CountingArg::Multiplicity => Counting::Multiplicity,
            },
        })
    }
}

fn error(e: warpcheck_lts::Error) -> CliError {
    match e {
        warpcheck_lts::Error::Syntax(d) => CliError::Rendered(format!("{d}\n")),
        e => CliError::Input(e.to_string()),
    }
}

/// Reads the network in `path` (`.gpf` by extension, else `.exp` or `.aut`); prints its
/// warnings on standard error.
pub fn load(path: &Path, args: &NetworkArgs) -> Result<Network, CliError> {
    let options = args.options()?;
    let net = if path.extension().is_some_and(|e| e == "gpf") {
        let dialect = match args.gpf_dialect {
            2015 => gpf::Dialect::Gpf2015,
            2016 => gpf::Dialect::Gpf2016,
            y => return Err(CliError::Input(format!("--gpf-dialect {y}: 2015 or 2016"))),
        };
        let net = gpf::load(path, dialect, options.counting).map_err(error)?;
        if args.gpf_property {
            gpf::with_property(net).map_err(error)?
        } else {
            net
        }
    } else if args.gpf_property {
        return Err(CliError::Input("--gpf-property applies to .gpf files".into()));
    } else {
        build::load(path, &options).map_err(error)?
    };
    let mut net = net;
    if let Some(path) = &args.monitor {
        let matching = match args.monitor_labels {
            MatchingArg::Regex => Matching::Regex,
            MatchingArg::Literal => Matching::Literal,
        };
        let missing = match args.monitor_incomplete {
            IncompleteArg::Refuse => Incomplete::Refuse,
            IncompleteArg::Block => Incomplete::Block,
            IncompleteArg::Stay => Incomplete::Stay,
        };
        net.monitor = Some(Monitor::load(path, &args.error, &net, matching, missing).map_err(error)?);
    }
    let formula = match (&args.formula, &args.formula_file) {
        (Some(f), _) => Some((f.clone(), "--formula".to_string())),
        (None, Some(path)) => Some((build::read(path).map_err(error)?, path.display().to_string())),
        (None, None) => None,
    };
    if let Some((text, name)) = formula {
        net.monitor = Some(warpcheck_lts::formula::compile(&text, &name, &net).map_err(error)?);
    }
    const SHOWN: usize = 10;
    for w in net.warnings.iter().take(SHOWN) {
        eprintln!("warning: {w}");
    }
    if net.warnings.len() > SHOWN {
        eprintln!("warning: ... and {} more", net.warnings.len() - SHOWN);
    }
    Ok(net)
}

const NO_EXPRESSIONS: &str = "networks of LTSs have no state expressions";

impl Loaded for Network {
    type Model = Network;

    fn model(&self) -> &Network {
        self
    }

    fn add_invariant(&mut self, _: &str) -> Result<LabelId, CliError> {
        Err(CliError::Input(format!("--invariant: {NO_EXPRESSIONS}; use check --deadlock")))
    }

    fn state_function(&self, _: &str, option: &str) -> Result<StateFunction<'_>, CliError> {
        Err(CliError::Input(format!("{option}: {NO_EXPRESSIONS}")))
    }

    fn property(&self) -> Option<&Automaton> {
        None
    }

    /// LTL over actions: a proposition is a regular expression over the product's
    /// labels (whole label, τ is `i`) and holds in a state reached by a step with a
    /// matching label (the network then keeps the last step's label in its state).
    fn formula(&mut self, text: &str, definitions: &[Definition]) -> Result<WithFormula, CliError> {
        let ready = formula_automaton(text, definitions, |e| self.add_action(e)).map_err(|e| match &e {
            FormulaError::Parse(p) => CliError::Rendered(p.render(text).replacen("error: ", "error: in --ltl: ", 1)),
            FormulaError::Compile { proposition: p, error } => CliError::Input(format!(
                "atomic proposition {} ({}): {error} (a proposition of a network is a regular expression over its \
                 action labels)",
                p.written, p.origin
            )),
            e => CliError::Input(format!("--ltl: {e}")),
        })?;
        Ok(ready.into())
    }

    fn labelled_aut(&self, tau: &str) -> Option<Result<(String, u64, u64, u64), CliError>> {
        Some(
            labelled::explore(self, u32::MAX as u64 - 1)
                .map(|g| (g.to_aut(self, tau), g.states as u64, g.transitions.len() as u64, g.deadlocks))
                .map_err(|e| CliError::Resource(e.to_string())),
        )
    }
}
