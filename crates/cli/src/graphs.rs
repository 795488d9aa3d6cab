//! Graph inputs and outputs of the command line: `explore --graph-out FILE`,
//! `generate`, and the input of `scc` (a model, explored into its state graph, or a
//! graph file).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::json;
use warpcheck_dve::Overflow;
use warpcheck_explore::{state_graph, StateGraph, StateGraphError};
use warpcheck_graph::generate::{erdos_renyi, rmat, ssca2, RmatParams, Ssca2Params};
use warpcheck_graph::{io, Format, Graph};

use crate::{exit, OverflowArg};

impl From<OverflowArg> for Overflow {
    fn from(o: OverflowArg) -> Overflow {
        match o {
            OverflowArg::Error => Overflow::Error,
            OverflowArg::Wrap => Overflow::Wrap,
        }
    }
}

/// A graph file format named on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Aldebaran `.aut`.
    Aut,
    /// Plain text edge list, one `u v` per line.
    Edges,
    /// warpcheck's compact binary CSR (`.wcg`).
    Binary,
}

impl FormatArg {
    pub fn format(self) -> Format {
        match self {
            FormatArg::Aut => Format::Aut,
            FormatArg::Edges => Format::Edges,
            FormatArg::Binary => Format::Binary,
        }
    }
}

/// Prints a graph error and returns the bad-input exit code.
fn bad_input(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::from(exit::BAD_INPUT)
}

/// Explores the model in `path` into its state graph.
pub fn explore_graph(path: &Path, overflow: Overflow) -> Result<StateGraph, ExitCode> {
    let mut dve = crate::read_model(path)?;
    dve.model.overflow = overflow;
    state_graph(&dve.model, None).map_err(|e: StateGraphError| {
        eprintln!("error: {e}");
        ExitCode::from(exit::RESOURCE)
    })
}

/// Explores the model in `path` into its state graph with the GPU engine of `device`.
fn explore_graph_gpu(path: &Path, overflow: Overflow, device: usize) -> Result<StateGraph, ExitCode> {
    let mut dve = crate::read_model(path)?;
    dve.model.overflow = overflow;
    let options = warpcheck_explore::gpu::GpuOptions { device, ..Default::default() };
    warpcheck_explore::gpu::state_graph::state_graph_gpu(&dve.model, &options)
        .map(|g| g.state_graph)
        .map_err(crate::gpu_error)
}

/// Reads `path`: a `.dve` model is explored (by the GPU engine of `gpu`'s device if
/// given), anything else read as a graph file.
pub fn load_input(
    path: &Path,
    format: Option<FormatArg>,
    overflow: Overflow,
    gpu: Option<usize>,
) -> Result<Graph, ExitCode> {
    let is_model = format.is_none() && path.extension().is_some_and(|e| e == "dve");
    if is_model {
        let sg = match gpu {
            Some(device) => explore_graph_gpu(path, overflow, device)?,
            None => explore_graph(path, overflow)?,
        };
        return Ok(sg.graph);
    }
    io::read(path, format.map(FormatArg::format)).map_err(|e| match e {
        warpcheck_graph::GraphError::OutOfMemory { .. } => {
            eprintln!("error: {e}");
            ExitCode::from(exit::RESOURCE)
        }
        e => bad_input(e),
    })
}

/// `explore MODEL --graph-out FILE`: builds and writes the state graph and reports
/// its size (states, transitions and deadlocks, as `explore` counts them).
pub fn explore_to_file(model: &Path, overflow: Overflow, out: &Path, json: bool) -> Result<ExitCode, ExitCode> {
    let format = Format::resolve(out, None).map_err(bad_input)?;
    let start = Instant::now();
    let sg = explore_graph(model, overflow)?;
    let seconds = start.elapsed().as_secs_f64();
    io::write(out, &sg.graph, Some(format)).map_err(bad_input)?;
    let g = &sg.graph;
    if json {
        let report = json!({
            "model": model.display().to_string(),
            "states": g.vertices(),
            "transitions": g.edges(),
            "deadlocks": sg.deadlocks,
            "error_state": sg.error_state,
            "seconds": seconds,
            "graph_out": out.display().to_string(),
        });
        println!("{report}");
    } else {
        println!("states:       {}", g.vertices());
        println!("transitions:  {}", g.edges());
        println!("deadlocks:    {}", sg.deadlocks);
        if let Some(e) = sg.error_state {
            println!("error state:  vertex {e}");
        }
        println!("time:         {seconds:.2} s (sequential graph-building exploration)");
        println!("graph:        {}", out.display());
    }
    Ok(ExitCode::from(exit::HOLDS))
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
    format: Option<FormatArg>,
}

/// `generate`: writes a synthetic graph.
pub fn generate(args: GenerateArgs) -> Result<ExitCode, ExitCode> {
    if !(args.degree >= 0.0 && args.degree <= 1e6) {
        return Err(bad_input(format!("--degree {} must be between 0 and 1000000", args.degree)));
    }
    let format = Format::resolve(&args.out, args.format.map(FormatArg::format)).map_err(bad_input)?;
    let g = match args.family {
        Family::Er => erdos_renyi(args.vertices, args.degree, args.seed),
        Family::Rmat => rmat(args.vertices, args.degree, &RmatParams::default(), args.seed),
        Family::Ssca2 => {
            let p = Ssca2Params { max_clique_size: args.max_clique.max(1), ..Ssca2Params::default() };
            ssca2(args.vertices, &p, args.seed)
        }
    };
    io::write(&args.out, &g, Some(format)).map_err(bad_input)?;
    println!("{} vertices, {} edges written to {}", g.vertices(), g.edges(), args.out.display());
    Ok(ExitCode::from(exit::HOLDS))
}
