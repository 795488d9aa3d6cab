//! The inputs warpcheck reads, in one registry: model languages (front ends, each
//! loading a file into a [`warpcheck_model::Model`]) and graph files. The format comes
//! from the file's extension or from `--format`; an unknown one is an error listing
//! the formats the command reads.
//!
//! Commands reach a model only through [`with_model`], which loads it with its front
//! end and hands it to the command's generic code ([`ModelCommand::run`], over any
//! [`Loaded`] model): the next front end (networks of LTSs, PRISM) is one variant of
//! [`FrontEnd`], one row of [`FORMATS`] and one implementation of [`Loaded`]. A model
//! with a property automaton of its own (a DVE property process) reaches the command
//! as its [`Product`] with it ([`WithProperty`]).

mod dve;
pub mod network;
pub mod pddl;

use std::path::Path;

use clap::ValueEnum;
use warpcheck_graph::Format;
use warpcheck_ltl::Definition;
use warpcheck_model::{Automaton, CudaModel, EvalError, LabelId, Product};

use crate::error::CliError;

/// An input format named on the command line (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// A DVE model (`.dve`).
    Dve,
    /// A network of LTSs in the EXP subset (`.exp`).
    Exp,
    /// A GPUexplore network (`.gpf`).
    Gpf,
    /// A labelled Aldebaran LTS as a model (`.aut` for explore and check).
    Lts,
    /// An Aldebaran graph, unlabelled (`.aut` for scc).
    Aut,
    /// A plain text edge list, one `u v` per line (`.edges`, `.txt`).
    Edges,
    /// warpcheck's compact binary CSR graph (`.wcg`).
    #[value(alias = "wcg")]
    Binary,
    /// A weighted graph in Dasdan's DIMACS-like format (`.d`: `p name n m`, `a u v
    /// weight time`).
    #[value(alias = "d")]
    Dimacs,
    /// A PRISM model: `dtmc`, `mdp` or `ctmc` (`.prism`, `.pm`, `.nm`, `.sm`).
    Prism,
    /// Storm's explicit format (`.drn`, `.drn.gz`).
    Drn,
    /// PRISM's explicit files (`.tra` with `.lab`, `.sta`, `.srew`, `.trew` beside it;
    /// gzipped too).
    Tra,
    /// A PDDL planning problem (`.pddl`), with its domain (`--domain`, else found
    /// beside it), as its grounded task.
    Pddl,
}

/// A model language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    Dve,
    /// Networks of LTSs: `.exp`, `.gpf`, a single `.aut`.
    Network,
    /// PDDL planning problems: `.pddl`.
    Pddl,
}

/// What an input file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A model, in the language of a front end.
    Model(FrontEnd),
    /// A graph file (`scc`).
    Graph(Format),
    /// A weighted graph (`cycle-mean`).
    Weighted,
    /// A Markov model (DTMC, CTMC, MDP): a PRISM source or an explicit file.
    Markov(MarkovFormat),
}

/// The inputs of Markov models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkovFormat {
    Prism,
    Drn,
    Tra,
}

/// One known format.
pub struct Known {
    pub format: FormatArg,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub input: Input,
}

/// Every format warpcheck reads.
///
/// An extension may have two rows (`.aut`: a graph for `scc`, a model for `explore`
/// and `check`): the first row the command reads wins.
pub const FORMATS: [Known; 12] = [
    Known { format: FormatArg::Dve, name: "dve", extensions: &["dve"], input: Input::Model(FrontEnd::Dve) },
    Known { format: FormatArg::Exp, name: "exp", extensions: &["exp"], input: Input::Model(FrontEnd::Network) },
    Known { format: FormatArg::Gpf, name: "gpf", extensions: &["gpf"], input: Input::Model(FrontEnd::Network) },
    Known { format: FormatArg::Aut, name: "aut", extensions: &["aut"], input: Input::Graph(Format::Aut) },
    Known { format: FormatArg::Lts, name: "lts", extensions: &["aut"], input: Input::Model(FrontEnd::Network) },
    Known {
        format: FormatArg::Edges,
        name: "edges",
        extensions: &["edges", "txt"],
        input: Input::Graph(Format::Edges),
    },
    Known { format: FormatArg::Binary, name: "binary", extensions: &["wcg"], input: Input::Graph(Format::Binary) },
    Known { format: FormatArg::Dimacs, name: "dimacs", extensions: &["d"], input: Input::Weighted },
    Known {
        format: FormatArg::Prism,
        name: "prism",
        extensions: &["prism", "pm", "nm", "sm"],
        input: Input::Markov(MarkovFormat::Prism),
    },
    Known { format: FormatArg::Drn, name: "drn", extensions: &["drn"], input: Input::Markov(MarkovFormat::Drn) },
    Known { format: FormatArg::Tra, name: "tra", extensions: &["tra"], input: Input::Markov(MarkovFormat::Tra) },
    Known { format: FormatArg::Pddl, name: "pddl", extensions: &["pddl"], input: Input::Model(FrontEnd::Pddl) },
];

/// The inputs a command reads, for choosing and for messages.
pub struct Reads {
    pub command: &'static str,
    /// What the command's input is called in messages ("model", "graph", "input").
    pub noun: &'static str,
    pub models: bool,
    pub graphs: bool,
    pub weighted: bool,
    pub markov: bool,
}

/// `explore`: models, Markov models included.
pub const EXPLORE: Reads =
    Reads { command: "explore", noun: "model", models: true, graphs: false, weighted: false, markov: true };
/// `check`: models.
pub const CHECK: Reads = Reads { command: "check", markov: false, ..EXPLORE };
/// `scc`: models (their state graphs) and graph files.
pub const SCC: Reads =
    Reads { command: "scc", noun: "graph", models: true, graphs: true, weighted: false, markov: false };
/// `cycle-mean`: models (weighted by expressions) and weighted graphs.
pub const CYCLE_MEAN: Reads =
    Reads { command: "cycle-mean", noun: "input", models: true, graphs: false, weighted: true, markov: false };
/// `mec`: Markov models.
pub const MEC: Reads =
    Reads { command: "mec", noun: "Markov model", models: false, graphs: false, weighted: false, markov: true };

impl Reads {
    fn accepts(&self, input: Input) -> bool {
        match input {
            Input::Model(_) => self.models,
            Input::Graph(_) => self.graphs,
            Input::Weighted => self.weighted,
            Input::Markov(_) => self.markov,
        }
    }

    /// The formats read, as `dve (.dve), aut (.aut), ...`.
    fn list(&self) -> String {
        let formats = FORMATS.iter().filter(|k| self.accepts(k.input));
        let named: Vec<String> = formats
            .map(|k| {
                let extensions: Vec<String> = k.extensions.iter().map(|e| format!(".{e}")).collect();
                format!("{} ({})", k.name, extensions.join(", "))
            })
            .collect();
        named.join(", ")
    }
}

/// The input in `path`: the format named by `format`, or else its extension's.
pub fn resolve(path: &Path, format: Option<FormatArg>, reads: &Reads) -> Result<Input, CliError> {
    let (command, list) = (reads.command, reads.list());
    if let Some(f) = format {
        let known = FORMATS.iter().find(|k| k.format == f).expect("every --format value is registered");
        if !reads.accepts(known.input) {
            return Err(CliError::Input(format!("--format {}: {command} reads {list}", known.name)));
        }
        return Ok(known.input);
    }
    let extension = extension(path);
    let matching = || FORMATS.iter().filter(|k| extension.is_some_and(|e| k.extensions.contains(&e)));
    if let Some(k) = matching().find(|k| reads.accepts(k.input)) {
        return Ok(k.input);
    }
    match matching().next() {
        Some(k) => Err(CliError::Input(format!(
            "{}: a file of format {}, which {command} does not read ({command} reads {list}; or name the format \
             with --format)",
            path.display(),
            k.name
        ))),
        None => Err(CliError::Input(format!(
            "{}: unknown {} format ({command} reads {list}; or name the format with --format)",
            path.display(),
            reads.noun
        ))),
    }
}

/// The extension of `path`, the one before `.gz` for a compressed file (`m.drn.gz`:
/// `drn`).
pub fn extension(path: &Path) -> Option<&str> {
    let e = path.extension().and_then(|e| e.to_str())?;
    match e {
        "gz" => Path::new(path.file_stem()?).extension().and_then(|e| e.to_str()),
        _ => Some(e),
    }
}

/// How `--overflow` loads a model: what an out-of-range assignment does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OverflowArg {
    /// An evaluation error, as in DiVinE 2.4.
    #[default]
    Error,
    /// Wrap around as in C, as DiVinE's compiled models run by LTSmin do.
    Wrap,
}

/// The options of loading a model (a front end ignores those its language lacks).
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub overflow: OverflowArg,
    pub network: network::NetworkArgs,
    /// A PDDL problem's domain (`--domain`).
    pub domain: Option<std::path::PathBuf>,
}

/// A state function compiled from text (`--weight`, `--time`).
pub type StateFunction<'a> = Box<dyn Fn(&[u32]) -> Result<i64, EvalError> + Sync + 'a>;

/// The Büchi automaton of a negated LTL formula (`--ltl`) over labels of the model.
pub struct WithFormula {
    pub automaton: Automaton,
    /// The propositions defined by name (`--ap`, `--ap-file`), as `NAME = EXPR`.
    pub definitions: Vec<String>,
}

impl From<warpcheck_ltl::FormulaAutomaton> for WithFormula {
    /// The automaton, and the propositions defined by name.
    fn from(ready: warpcheck_ltl::FormulaAutomaton) -> WithFormula {
        let definitions = ready
            .propositions
            .iter()
            .filter(|p| p.origin != "formula")
            .map(|p| format!("{} = {}", p.written, p.expression))
            .collect();
        WithFormula { automaton: ready.automaton, definitions }
    }
}

/// A property automaton in words: name and size.
pub fn summary(automaton: &Automaton, name: &str) -> String {
    let accepting = automaton.accepting.iter().filter(|&&a| a).count();
    format!(
        "{name} (Büchi automaton: {} states, {accepting} accepting, {} edges)",
        automaton.accepting.len(),
        automaton.edges.len()
    )
}

/// A model loaded by a front end: the engines' view of it, and what the commands
/// compile in its language (invariants, propositions, weights).
pub trait Loaded {
    type Model: CudaModel + Clone;
    fn model(&self) -> &Self::Model;
    /// `--invariant TEXT`: compiles a state predicate and adds it as a label.
    fn add_invariant(&mut self, text: &str) -> Result<LabelId, CliError>;
    /// `--weight`, `--time`: compiles an integer function of states (`option` names
    /// it in messages).
    fn state_function(&self, text: &str, option: &str) -> Result<StateFunction<'_>, CliError>;
    /// The model's own property automaton (a DVE property process), if it has one.
    fn property(&self) -> Option<&Automaton>;
    /// `--ltl`: the automaton of the negated formula, its propositions added to the
    /// model as labels.
    fn formula(&mut self, text: &str, definitions: &[Definition]) -> Result<WithFormula, CliError>;
    /// The labelled state graph as `.aut` text (τ written `tau`) with its states,
    /// transitions and deadlocks, for front ends whose steps have action labels.
    fn labelled_aut(&self, _tau: &str) -> Option<Result<(String, u64, u64, u64), CliError>> {
        None
    }
}

/// A loaded model with its own property automaton: the engines see the product.
pub struct WithProperty<L: Loaded> {
    loaded: L,
    product: Product<L::Model>,
}

impl<L: Loaded> Loaded for WithProperty<L> {
    type Model = Product<L::Model>;

    fn model(&self) -> &Product<L::Model> {
        &self.product
    }

    fn add_invariant(&mut self, text: &str) -> Result<LabelId, CliError> {
        let label = self.loaded.add_invariant(text)?;
        self.product = Product::new(self.loaded.model().clone(), self.product.automaton.clone());
        Ok(label)
    }

    fn state_function(&self, text: &str, option: &str) -> Result<StateFunction<'_>, CliError> {
        self.loaded.state_function(text, option)
    }

    fn property(&self) -> Option<&Automaton> {
        Some(&self.product.automaton)
    }

    fn formula(&mut self, _: &str, _: &[Definition]) -> Result<WithFormula, CliError> {
        Err(CliError::Input(format!(
            "the model already has a property process (`{}`); an LTL formula cannot be checked on top of it (use \
             the model without its property)",
            self.product.automaton.name
        )))
    }
}

/// Runs `command` on `loaded`, or on its product with its own property automaton.
fn run_loaded<L: Loaded, C: ModelCommand>(loaded: L, command: C) -> Result<C::Output, CliError> {
    match loaded.property().cloned() {
        None => command.run(loaded),
        Some(automaton) => {
            let product = Product::new(loaded.model().clone(), automaton);
            command.run(WithProperty { loaded, product })
        }
    }
}

/// What a command does with a model, whatever its language.
pub trait ModelCommand {
    type Output;
    fn run<L: Loaded>(self, model: L) -> Result<Self::Output, CliError>;
}

/// Reads and loads a DVE model (for `export`).
pub fn load_dve(path: &Path, options: &LoadOptions) -> Result<warpcheck_dve::DveModel, CliError> {
    dve::load(path, options)
}

/// Loads the model in `path` with `front_end` and runs `command` on it.
pub fn with_model<C: ModelCommand>(
    front_end: FrontEnd,
    path: &Path,
    options: LoadOptions,
    command: C,
) -> Result<C::Output, CliError> {
    match front_end {
        FrontEnd::Dve => run_loaded(dve::load(path, &options)?, command),
        FrontEnd::Network => run_loaded(network::load(path, &options.network)?, command),
        FrontEnd::Pddl => run_loaded(pddl::load(path, options.domain.as_deref())?, command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension_and_by_name() {
        let p = Path::new;
        assert_eq!(resolve(p("a.prop2.dve"), None, &CHECK).unwrap(), Input::Model(FrontEnd::Dve));
        assert_eq!(resolve(p("g.txt"), None, &SCC).unwrap(), Input::Graph(Format::Edges));
        assert_eq!(resolve(p("g.d"), None, &CYCLE_MEAN).unwrap(), Input::Weighted);
        assert_eq!(resolve(p("model"), Some(FormatArg::Dve), &EXPLORE).unwrap(), Input::Model(FrontEnd::Dve));
        let e = resolve(p("g.xyz"), None, &SCC).unwrap_err().to_string();
        assert!(e.contains("unknown graph format") && e.contains("binary (.wcg)"), "{e}");
        assert_eq!(resolve(p("g.aut"), None, &EXPLORE).unwrap(), Input::Model(FrontEnd::Network));
        assert_eq!(resolve(p("g.aut"), None, &SCC).unwrap(), Input::Graph(Format::Aut));
        assert_eq!(resolve(p("n.exp"), None, &CHECK).unwrap(), Input::Model(FrontEnd::Network));
        assert_eq!(resolve(p("g.aut"), Some(FormatArg::Lts), &SCC).unwrap(), Input::Model(FrontEnd::Network));
        let e = resolve(p("g.wcg"), None, &EXPLORE).unwrap_err().to_string();
        assert!(e.contains("explore reads dve (.dve), exp (.exp)"), "{e}");
        assert!(resolve(p("g.dve"), Some(FormatArg::Aut), &CYCLE_MEAN).is_err());
        assert_eq!(resolve(p("m.nm"), None, &EXPLORE).unwrap(), Input::Markov(MarkovFormat::Prism));
        assert_eq!(resolve(p("m.drn.gz"), None, &MEC).unwrap(), Input::Markov(MarkovFormat::Drn));
        assert_eq!(resolve(p("dir.v2/m.tra"), None, &MEC).unwrap(), Input::Markov(MarkovFormat::Tra));
        let e = resolve(p("m.prism"), None, &CHECK).unwrap_err().to_string();
        assert!(e.contains("format prism, which check does not read"), "{e}");
        assert!(resolve(p("m.dve"), None, &MEC).is_err());
        assert_eq!(resolve(p("ipc/p01.pddl"), None, &EXPLORE).unwrap(), Input::Model(FrontEnd::Pddl));
    }

    #[test]
    fn every_format_value_is_registered() {
        for f in FormatArg::value_variants() {
            assert!(FORMATS.iter().any(|k| k.format == *f));
        }
    }
}
