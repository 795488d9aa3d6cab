//! `warpcheck scc INPUT`: SCC decomposition of a model's state graph or of a graph
//! file, with counts, a size histogram (text, SVG), the component of every vertex, and
//! a JSON report ([`crate::json::SccReport`]); on the CPU or, with `--backend gpu`, on
//! a CUDA GPU.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use warpcheck_scc::gpu::{GpuSccAlgorithm, SccDevice};
use warpcheck_scc::{decompose, Algorithm, Components, Options, Summary};

use crate::backend::{Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::frontend::network::NetworkArgs;
use crate::frontend::{self, FormatArg, Input, LoadOptions, OverflowArg};
use crate::graphs::{read_graph, ModelGraph};
use crate::json::{self, Bucket, SccGpu, SccReport};

#[derive(Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// Iterative Tarjan (sequential; CPU only).
    Tarjan,
    /// Forward-Backward with trimming (parallel).
    Fb,
    /// Coloring (parallel).
    Coloring,
    /// Recursive OBF with trimming (parallel).
    Obf,
    /// FB, handing over to Coloring once a round removes less than half (GPU only).
    FbColoring,
}

/// Arguments of `scc`.
#[derive(Args)]
pub struct SccArgs {
    /// A model (`.dve`, explored first) or a graph file (`.aut`, `.edges`/`.txt`,
    /// `.wcg`).
    input: PathBuf,
    /// The decomposition algorithm.
    #[arg(long, short = 'a', value_enum, default_value_t = AlgorithmArg::Fb)]
    algorithm: AlgorithmArg,
    /// Worker threads of the parallel algorithms (default: all cores).
    #[arg(long, short = 't')]
    threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Write `vertex component` lines (a component is named by its smallest vertex).
    #[arg(long, value_name = "FILE")]
    components: Option<PathBuf>,
    /// Write the size histogram as an SVG bar chart.
    #[arg(long, value_name = "FILE")]
    histogram_svg: Option<PathBuf>,
    /// The input's format, instead of its extension's.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Where to decompose: `cpu`, `gpu` (fb, coloring, obf, fb-coloring; a model's
    /// state graph is built by the GPU engine too; an error without a CUDA device) or
    /// `auto` (the GPU when one is present and the algorithm runs there). The default
    /// is the CPU even when a GPU is present: the answer is the same, and the GPU pays
    /// only on large graphs.
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// Out-of-range assignments in a model: `error` or `wrap` (as for `explore`).
    #[arg(long, value_enum, default_value_t = OverflowArg::Error)]
    overflow: OverflowArg,
    #[command(flatten)]
    network: NetworkArgs,
}

fn write_file(
    path: &PathBuf,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let result = std::fs::File::create(path).and_then(|f| {
        let mut out = BufWriter::with_capacity(1 << 20, f);
        write(&mut out)?;
        out.flush()
    });
    result.map_err(|e| CliError::Input(format!("cannot write `{}`: {e}", path.display())))
}

/// The decomposition to run: the CPU's algorithm or the GPU's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    Cpu(Algorithm),
    Gpu(GpuSccAlgorithm),
}

impl Choice {
    /// The GPU's version of `arg`, or why there is none.
    fn gpu(arg: AlgorithmArg) -> Result<GpuSccAlgorithm, String> {
        match arg {
            AlgorithmArg::Tarjan => {
                Err("tarjan does not run on the GPU (it runs fb, coloring, obf and fb-coloring)".into())
            }
            AlgorithmArg::Fb => Ok(GpuSccAlgorithm::Fb),
            AlgorithmArg::Coloring => Ok(GpuSccAlgorithm::Coloring),
            AlgorithmArg::Obf => Ok(GpuSccAlgorithm::Obf),
            AlgorithmArg::FbColoring => Ok(GpuSccAlgorithm::FbColoring),
        }
    }

    /// The CPU's version of `arg`, or why there is none.
    fn cpu(arg: AlgorithmArg) -> Result<Algorithm, String> {
        match arg {
            AlgorithmArg::Tarjan => Ok(Algorithm::Tarjan),
            AlgorithmArg::Fb => Ok(Algorithm::FbTrim),
            AlgorithmArg::Coloring => Ok(Algorithm::Coloring),
            AlgorithmArg::Obf => Ok(Algorithm::Obf),
            AlgorithmArg::FbColoring => Err("fb-coloring runs on the GPU only (--backend gpu)".into()),
        }
    }

    /// The choice of `arg` on `placement`.
    fn of(arg: AlgorithmArg, placement: Placement) -> Result<Choice, CliError> {
        match placement {
            Placement::Gpu => Choice::gpu(arg).map(Choice::Gpu),
            Placement::Cpu => Choice::cpu(arg).map(Choice::Cpu),
        }
        .map_err(CliError::Input)
    }

    fn name(self) -> &'static str {
        match self {
            Choice::Cpu(a) => a.name(),
            Choice::Gpu(a) => a.name(),
        }
    }
}

/// Runs `scc`.
pub fn run(args: SccArgs) -> Result<Verdict, CliError> {
    let input = frontend::resolve(&args.input, args.format, &frontend::SCC)?;
    let placement = args.backend.place(args.device, Choice::gpu(args.algorithm).map(|_| ()))?;
    let choice = Choice::of(args.algorithm, placement)?;
    let gpu = placement == Placement::Gpu;
    // Open the device before loading the input: a device that fails fails quickly.
    let device = match choice {
        Choice::Gpu(a) => Some((a, SccDevice::new(args.device)?)),
        Choice::Cpu(_) => None,
    };
    let threads = crate::thread_count(args.threads);
    let pool = crate::thread_pool(threads)?;
    let start = Instant::now();
    let graph = match input {
        Input::Model(front_end) => {
            let command = ModelGraph { device: gpu.then_some(args.device) };
            frontend::with_model(
                front_end,
                &args.input,
                LoadOptions { overflow: args.overflow, network: args.network.clone(), domain: None },
                command,
            )?
        }
        Input::Graph(format) => read_graph(&args.input, format)?,
        Input::Weighted | Input::Markov(_) => return Err(CliError::input("scc reads no weighted graphs")),
    };
    let load_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    if choice != Choice::Cpu(Algorithm::Tarjan) {
        graph.backward();
    }
    let backward_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (components, gpu_report) = match (choice, &device) {
        (_, Some((a, d))) => {
            let r = d.decompose(&graph, *a)?;
            (r.components, Some(r.report))
        }
        (Choice::Cpu(a), None) => (pool.install(|| decompose(&graph, a, &Options::default())), None),
        (Choice::Gpu(_), None) => return Err(CliError::Resource("the GPU was not opened".into())),
    };
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary::of(&components);
    if let Some(path) = &args.components {
        write_file(path, |out| write_components(out, &components))?;
    }
    if let Some(path) = &args.histogram_svg {
        let title = format!("SCC sizes of {}", args.input.display());
        write_file(path, |out| out.write_all(summary.histogram_svg(&title).as_bytes()))?;
    }
    let threads_used = if choice == Choice::Cpu(Algorithm::Tarjan) || gpu { 1 } else { threads };
    let name = choice.name();
    if args.json {
        json::print(&SccReport {
            input: args.input.display().to_string(),
            vertices: graph.vertices(),
            edges: graph.edges(),
            algorithm: name,
            threads: threads_used,
            sccs: summary.sccs,
            trivial: summary.trivial,
            nontrivial: summary.nontrivial,
            largest: summary.largest,
            histogram: summary.histogram.iter().map(|&(low, high, count)| Bucket { low, high, count }).collect(),
            seconds,
            backward_seconds,
            load_seconds,
            backend: placement.name(),
            gpu: gpu_report.as_ref().map(|g| SccGpu {
                device: &g.device_name,
                kernel_seconds: g.kernel_seconds,
                upload_seconds: g.upload_seconds,
                download_seconds: g.download_seconds,
                compile_seconds: g.compile_seconds,
                rounds: g.rounds,
                levels: g.levels,
                launches: g.launches,
                device_bytes: g.device_bytes,
            }),
        });
    } else {
        println!("vertices:     {}", graph.vertices());
        println!("edges:        {}", graph.edges());
        match &gpu_report {
            None => println!("algorithm:    {name} ({threads_used} thread(s))"),
            Some(g) => println!("algorithm:    {} (GPU: {})", name, g.device_name),
        }
        println!("sccs:         {}", summary.sccs);
        println!("trivial:      {} (one vertex, self-loop or not)", summary.trivial);
        println!("nontrivial:   {}", summary.nontrivial);
        println!("largest:      {}", summary.largest);
        println!("time:         {seconds:.3} s (decomposition; backward edges {backward_seconds:.3} s, input {load_seconds:.3} s)");
        if let Some(g) = &gpu_report {
            println!(
                "gpu:          {:.3} s on the device ({} rounds, {} levels), upload {:.3} s, download {:.3} s",
                g.kernel_seconds, g.rounds, g.levels, g.upload_seconds, g.download_seconds
            );
        }
        println!("sizes:");
        for &(low, high, count) in &summary.histogram {
            let range = if low == high { format!("{low}") } else { format!("{low}-{high}") };
            println!("  {range:>21}  {count}");
        }
    }
    Ok(Verdict::Holds)
}

fn write_components(out: &mut impl Write, components: &Components) -> std::io::Result<()> {
    writeln!(out, "# vertex component (each component is named by its smallest vertex)")?;
    for (v, c) in components.of.iter().enumerate() {
        writeln!(out, "{v} {c}")?;
    }
    Ok(())
}
