//! `warpcheck scc INPUT`: SCC decomposition of a model's state graph or of a graph
//! file, with counts, a size histogram (text, SVG), the component of every vertex, and
//! a JSON report; on the CPU or, with `--backend gpu`, on a CUDA GPU.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::json;
use warpcheck_scc::gpu::{GpuSccAlgorithm, SccDevice};
use warpcheck_scc::{decompose, Algorithm, Components, Options, Summary};

use crate::graphs::{load_input, FormatArg};
use crate::{cuda_error, exit, OverflowArg};

#[derive(Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// Iterative Tarjan (sequential).
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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SccBackend {
    /// The CPU: Tarjan sequential, the others on all threads.
    Cpu,
    /// A CUDA GPU (FB, Coloring, OBF, FB then Coloring; not Tarjan); a model's state
    /// graph is built by the GPU engine too.
    Gpu,
}

/// Arguments of `scc`.
#[derive(Args)]
pub struct SccArgs {
    /// A DVE model (`.dve`, explored first) or a graph file (`.aut`, `.edges`/`.txt`,
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
    /// Format of a graph file, instead of its extension's.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Where to decompose. The default is the CPU even when a GPU is present: the
    /// answer is the same, and the GPU pays only on large graphs.
    #[arg(long, value_enum, default_value_t = SccBackend::Cpu)]
    backend: SccBackend,
    /// The CUDA device to use with `--backend gpu`.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Out-of-range assignments in a model: `error` or `wrap` (as for `explore`).
    #[arg(long, value_enum, default_value_t = OverflowArg::Error)]
    overflow: OverflowArg,
}

fn write_file(
    path: &PathBuf,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), ExitCode> {
    let result = std::fs::File::create(path).and_then(|f| {
        let mut out = BufWriter::with_capacity(1 << 20, f);
        write(&mut out)?;
        out.flush()
    });
    result.map_err(|e| {
        eprintln!("error: cannot write `{}`: {e}", path.display());
        ExitCode::from(exit::BAD_INPUT)
    })
}

/// The decomposition to run: the CPU's algorithm or the GPU's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    Cpu(Algorithm),
    Gpu(GpuSccAlgorithm),
}

impl Choice {
    /// The choice of `arg` on `backend`, or the message why there is none.
    fn of(arg: AlgorithmArg, backend: SccBackend) -> Result<Choice, String> {
        let cpu = match arg {
            AlgorithmArg::Tarjan => Algorithm::Tarjan,
            AlgorithmArg::Fb => Algorithm::FbTrim,
            AlgorithmArg::Coloring => Algorithm::Coloring,
            AlgorithmArg::Obf => Algorithm::Obf,
            AlgorithmArg::FbColoring if backend == SccBackend::Gpu => {
                return Ok(Choice::Gpu(GpuSccAlgorithm::FbColoring))
            }
            AlgorithmArg::FbColoring => return Err("fb-coloring runs on the GPU only (--backend gpu)".into()),
        };
        match backend {
            SccBackend::Cpu => Ok(Choice::Cpu(cpu)),
            SccBackend::Gpu => GpuSccAlgorithm::try_from(cpu).map(Choice::Gpu).map_err(|_| {
                format!(
                    "{} does not run on the GPU; choose fb, coloring, obf or fb-coloring, or --backend cpu",
                    cpu.name()
                )
            }),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Choice::Cpu(a) => a.name(),
            Choice::Gpu(a) => a.name(),
        }
    }
}

/// Runs `scc`.
pub fn run(args: SccArgs) -> Result<ExitCode, ExitCode> {
    let choice = Choice::of(args.algorithm, args.backend).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(exit::BAD_INPUT)
    })?;
    let gpu = args.backend == SccBackend::Gpu;
    // Open the device before loading the input: no GPU is a quick, clear error.
    let device = if gpu { Some(SccDevice::new(args.device).map_err(cuda_error)?) } else { None };
    let threads = crate::thread_count(args.threads);
    let pool = crate::thread_pool(threads)?;
    let start = Instant::now();
    let graph = load_input(&args.input, args.format, args.overflow.into(), gpu.then_some(args.device))?;
    let load_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    if choice != Choice::Cpu(Algorithm::Tarjan) {
        graph.backward();
    }
    let backward_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (components, gpu_report) = match (choice, &device) {
        (Choice::Gpu(a), Some(d)) => {
            let r = d.decompose(&graph, a).map_err(cuda_error)?;
            (r.components, Some(r.report))
        }
        (Choice::Cpu(a), _) => (pool.install(|| decompose(&graph, a, &Options::default())), None),
        (Choice::Gpu(_), None) => unreachable!("a GPU choice opens the device"),
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
        let histogram: Vec<_> = summary
            .histogram
            .iter()
            .map(|&(low, high, count)| json!({"low": low, "high": high, "count": count}))
            .collect();
        let mut report = json!({
            "input": args.input.display().to_string(),
            "vertices": graph.vertices(),
            "edges": graph.edges(),
            "algorithm": name,
            "threads": threads_used,
            "sccs": summary.sccs,
            "trivial": summary.trivial,
            "nontrivial": summary.nontrivial,
            "largest": summary.largest,
            "histogram": histogram,
            "seconds": seconds,
            "backward_seconds": backward_seconds,
            "load_seconds": load_seconds,
            "backend": if gpu { "gpu" } else { "cpu" },
        });
        if let Some(g) = &gpu_report {
            let extra = json!({
                "device": g.device_name,
                "kernel_seconds": g.kernel_seconds,
                "upload_seconds": g.upload_seconds,
                "download_seconds": g.download_seconds,
                "compile_seconds": g.compile_seconds,
                "rounds": g.rounds,
                "levels": g.levels,
                "launches": g.launches,
                "device_bytes": g.device_bytes,
            });
            report.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        }
        println!("{report}");
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
    Ok(ExitCode::from(exit::HOLDS))
}

fn write_components(out: &mut impl Write, components: &Components) -> std::io::Result<()> {
    writeln!(out, "# vertex component (each component is named by its smallest vertex)")?;
    for (v, c) in components.of.iter().enumerate() {
        writeln!(out, "{v} {c}")?;
    }
    Ok(())
}
