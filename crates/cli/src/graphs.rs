//! Graph inputs and outputs of the command line: `explore --graph-out FILE`,
//! `generate`, and the input of `scc` (a model, explored into its state graph on the
//! CPU or the GPU, or a graph file).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use warpcheck_explore::state_graph;
use warpcheck_graph::generate::{erdos_renyi, rmat, ssca2, RmatParams, Ssca2Params};
use warpcheck_graph::{io, Format, Graph};

use crate::error::{CliError, Verdict};
use crate::explore::RunArgs;
use crate::frontend::{Loaded, ModelCommand};
use crate::json;

/// A graph file format to write (`generate --format`).
#[derive(Clone, Copy, ValueEnum)]
pub enum GraphFormatArg {
    /// Aldebaran `.aut`.
    Aut,
    /// Plain text edge list, one `u v` per line.
    Edges,
    /// warpcheck's compact binary CSR (`.wcg`).
    #[value(alias = "wcg")]
    Binary,
}

impl GraphFormatArg {
    pub fn format(self) -> Format {
        match self {
            GraphFormatArg::Aut => Format::Aut,
            GraphFormatArg::Edges => Format::Edges,
            GraphFormatArg::Binary => Format::Binary,
        }
    }
}

/// A model's state graph, for `scc`: by the sequential CPU exploration, or by the GPU
/// engine of `device`.
pub struct ModelGraph {
    pub device: Option<usize>,
}

impl ModelCommand for ModelGraph {
    type Output = Graph;
    fn run<L: Loaded>(self, loaded: L) -> Result<Graph, CliError> {
        let sg = match self.device {
            Some(device) => {
                let options = warpcheck_explore::gpu::GpuOptions { device, ..Default::default() };
                warpcheck_explore::gpu::state_graph::state_graph_gpu(loaded.model(), &options)?.state_graph
            }
            None => state_graph(loaded.model(), None)?,
        };
        Ok(sg.graph)
    }
}

/// Reads a graph file (format from its extension unless given).
pub fn read_graph(path: &Path, format: Format) -> Result<Graph, CliError> {
    Ok(io::read(path, Some(format))?)
}

/// `explore MODEL --graph-out FILE`: builds and writes the state graph and reports
/// its size (states, transitions and deadlocks, as `explore` counts them). The CPU's
/// sequential exploration builds it: its vertex numbers are the breadth-first order,
/// the same on every run.
pub struct GraphOut<'a> {
    pub run: &'a RunArgs,
    pub out: &'a Path,
}

impl ModelCommand for GraphOut<'_> {
    type Output = Verdict;
    fn run<L: Loaded>(self, loaded: L) -> Result<Verdict, CliError> {
        let (args, out) = (self.run, self.out);
        // No GPU path: `gpu` is an error, `auto` a note where a GPU is present.
        let why = "--graph-out writes the state graph of the CPU's sequential exploration";
        let _cpu = args.backend.place(args.device, Err(why.into()))?;
        let format = Format::resolve(out, None)?;
        let start = Instant::now();
        if format == Format::Aut {
            if let Some(labelled) = loaded.labelled_aut(&args.network.internal_out) {
                let (text, states, transitions, deadlocks) = labelled?;
                let seconds = start.elapsed().as_secs_f64();
                std::fs::write(out, text)
                    .map_err(|e| CliError::Input(format!("cannot write `{}`: {e}", out.display())))?;
                return Ok(print_graph_out(args, out, (states as usize, transitions, deadlocks, None), seconds));
            }
        }
        let sg = state_graph(loaded.model(), None)?;
        let seconds = start.elapsed().as_secs_f64();
        io::write(out, &sg.graph, Some(format))?;
        let g = &sg.graph;
        Ok(print_graph_out(args, out, (g.vertices(), g.edges(), sg.deadlocks, sg.error_state), seconds))
    }
}

/// Reports what `--graph-out` wrote: states, transitions, deadlocks, error state.
fn print_graph_out(args: &RunArgs, out: &Path, counts: (usize, u64, u64, Option<u32>), seconds: f64) -> Verdict {
    let (states, transitions, deadlocks, error_state) = counts;
    if args.json {
        json::print(&json::GraphOut {
            model: args.path(),
            states,
            transitions,
            deadlocks,
            error_state,
            seconds,
            graph_out: out.display().to_string(),
        });
    } else {
        println!("states:       {states}");
        println!("transitions:  {transitions}");
        println!("deadlocks:    {deadlocks}");
        if let Some(e) = error_state {
            println!("error state:  vertex {e}");
        }
        println!("time:         {seconds:.2} s (sequential graph-building exploration)");
        println!("graph:        {}", out.display());
    }
    Verdict::Holds
}

/// The synthetic families of the SCC papers.
#[derive(Clone, Copy, ValueEnum)]
pub enum Family {
    /// Erdős–Rényi G(n, m).
    Er,
    /// R-MAT (a, b, c, d = 0.45, 0.15, 0.15, 0.25).
    Rmat,
    /// SSCA#2 (cliques with inter-clique edges; degree about 12).
    Ssca2,
}

/// Arguments of `generate`.
#[derive(Args)]
pub struct GenerateArgs {
    /// The graph family.
    #[arg(value_enum)]
    family: Family,
    /// The output file (format by extension: .aut, .edges/.txt, .wcg).
    out: PathBuf,
    /// Number of vertices.
    #[arg(long, short = 'n')]
    vertices: u32,
    /// Average out-degree (ER and R-MAT; SSCA#2's follows from its clique sizes).
    #[arg(long, default_value_t = 12.0)]
    degree: f64,
    /// Largest clique of SSCA#2.
    #[arg(long, default_value_t = 13)]
    max_clique: u32,
    /// Seed of the pseudo-random generator (same seed, same graph).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format, instead of the extension's.
    #[arg(long, value_enum)]
    format: Option<GraphFormatArg>,
}

/// `generate`: writes a synthetic graph.
pub fn generate(args: GenerateArgs) -> Result<Verdict, CliError> {
    if !(args.degree >= 0.0 && args.degree <= 1e6) {
        return Err(CliError::Input(format!("--degree {} must be between 0 and 1000000", args.degree)));
    }
    let format = Format::resolve(&args.out, args.format.map(GraphFormatArg::format))?;
    let g = match args.family {
        Family::Er => erdos_renyi(args.vertices, args.degree, args.seed),
        Family::Rmat => rmat(args.vertices, args.degree, &RmatParams::default(), args.seed),
        Family::Ssca2 => {
            let p = Ssca2Params { max_clique_size: args.max_clique.max(1), ..Ssca2Params::default() };
            ssca2(args.vertices, &p, args.seed)
        }
    };
    io::write(&args.out, &g, Some(format))?;
    println!("{} vertices, {} edges written to {}", g.vertices(), g.edges(), args.out.display());
    Ok(Verdict::Holds)
}
