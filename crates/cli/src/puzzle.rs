//! `warpcheck puzzle FAMILY [SIZE]`: the state space of a puzzle by breadth-first search
//! over a perfect hash (one or two bits per state), with its layers, and a shortest
//! solution to a given position on request.

use clap::Args;
use serde::Serialize;
use warpcheck_puzzle::{Algorithm, AnyPuzzle, Error, Options, Progress};

use warpcheck_puzzle::gpu;

use crate::backend::{note, Backend, Placement};
use crate::error::{CliError, Verdict};
use crate::{json, progress};

/// `puzzle`.
#[derive(Args)]
pub struct PuzzleArgs {
    /// The family: `sliding-tile`, `top-spin`, `pancake`, `peg-solitaire`,
    /// `frogs-and-toads` or `fore-and-aft`.
    pub family: String,
    /// The size: `3x4` (sliding tile, rows x columns), `12,4` (Top-Spin n,k), `12`
    /// (pancake); none for the fixed boards.
    pub size: Option<String>,
    /// The search: `auto` (the fastest that fits the memory), `two-bit` (depth mod 3
    /// per state, plus a frontier bit), `two-bit-literal` (the thesis's two bits),
    /// `one-bit-alternation`, `one-bit-layers` (one bit per state, where the puzzle
    /// allows) or `reachability` (one bit, no layers).
    #[arg(long, value_name = "ALGORITHM", default_value = "auto")]
    pub algorithm: String,
    /// A shortest move sequence from the start to this position (as the puzzle
    /// prints its states, e.g. `1 0 2 3 4 5` for a 2x3 sliding tile, blank = 0).
    #[arg(long, value_name = "POSITION")]
    pub solve: Option<String>,
    /// Write the layer profile (states per depth) as an SVG bar chart to this file.
    #[arg(long, value_name = "FILE")]
    pub layers_svg: Option<std::path::PathBuf>,
    /// Stop after this breadth-first depth.
    #[arg(long, value_name = "DEPTH")]
    pub max_depth: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Memory the bit vectors may take, e.g. 8G (default: 3/4 of the available memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory::parse_size)]
    pub memory: Option<u64>,
    /// Where to run: `cpu`, `gpu` or `auto` (the GPU when a device is present and the
    /// search has a GPU path: the two-bit BFS of every puzzle and the sliding tile's
    /// one-bit alternation, without `--solve`).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The `--json` report of `puzzle`.
#[derive(Serialize)]
struct PuzzleReport {
    puzzle: String,
    algorithm: &'static str,
    states: u64,
    /// The largest breadth-first depth; `null` for reachability.
    depth: Option<u32>,
    /// States per depth, depth 0 first; `null` for reachability.
    layers: Option<Vec<u64>>,
    complete: bool,
    index_space: u64,
    bytes: u64,
    expansions: u64,
    seconds: f64,
    backend: &'static str,
    threads: usize,
    /// On the GPU: seconds of the levels on the device (kernels and the per-level
    /// reads); `null` on the CPU.
    gpu_seconds: Option<f64>,
    /// With `--solve`: the moves of a shortest solution.
    solution: Option<Vec<String>>,
}

/// Bad instances and positions are bad input (exit 2); memory is a resource (exit 3).
fn error(e: Error) -> CliError {
    match e {
        Error::Memory { .. } => CliError::Resource(format!("{e} (set --memory or use a one-bit --algorithm)")),
        Error::Gpu(_) => CliError::Resource(e.to_string()),
        _ => CliError::Input(e.to_string()),
    }
}

/// Runs `puzzle`.
pub fn run(args: PuzzleArgs) -> Result<Verdict, CliError> {
    let algorithm = Algorithm::from_name(&args.algorithm).ok_or_else(|| {
        let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
        CliError::Input(format!("--algorithm {}: expected auto or one of {}", args.algorithm, names.join(", ")))
    })?;
    let puzzle = AnyPuzzle::parse(&args.family, args.size.as_deref()).map_err(error)?;
    if args.layers_svg.is_some() && algorithm == Algorithm::Reachability {
        return Err(CliError::Input("--layers-svg needs the layers; the reachability search counts none".into()));
    }
    let gpu_path = match &args.solve {
        Some(_) => Err("--solve runs on the CPU only".to_string()),
        None => gpu::gpu_path(&puzzle, algorithm),
    };
    let mut placement = args.backend.place(args.device, gpu_path)?;
    let threads = crate::thread_count(args.threads);
    let line = progress::ProgressLine::new(args.quiet, None);
    let show = |p: &Progress| {
        line.message(format!("depth {}: {} new, {} states, {:.1} s", p.step, p.new_states, p.states, p.seconds))
    };
    let options =
        Options { algorithm: Some(algorithm), memory: args.memory, progress: Some(&show), max_depth: args.max_depth };
    let pool = crate::thread_pool(threads)?;
    let mut on_gpu = None;
    if placement == Placement::Gpu {
        match gpu::search(&puzzle, &options, args.device) {
            Ok(g) => on_gpu = Some(g),
            // Under `auto`, a GPU that cannot run at all (no NVRTC, a failed start)
            // leaves the search to the CPU; out of device memory is an error.
            Err(Error::Gpu(why)) if args.backend == Backend::Auto => {
                note(format!("GPU: {why}; running on the CPU"));
                placement = Placement::Cpu;
            }
            Err(e @ Error::Memory { .. }) => {
                return Err(CliError::Resource(format!("{e} (use --backend cpu)")));
            }
            Err(e) => return Err(error(e)),
        }
    }
    let (report, gpu_seconds, device) = match on_gpu {
        Some(g) => (g.report, Some(g.gpu_seconds), Some(g.device)),
        None => (pool.install(|| puzzle.search(&options)).map_err(error)?, None, None),
    };
    let solution = match &args.solve {
        Some(target) => Some(pool.install(|| puzzle.solve(target, &options)).map_err(error)?.1),
        None => None,
    };
    line.finish();
    if let (Some(path), Some(layers)) = (&args.layers_svg, &report.layers) {
        let title = format!("{}: states per depth", report.puzzle);
        std::fs::write(path, warpcheck_puzzle::plot::layers_svg(&title, layers))
            .map_err(|e| CliError::Input(format!("cannot write `{}`: {e}", path.display())))?;
    }
    let out = PuzzleReport {
        puzzle: report.puzzle,
        algorithm: report.algorithm.name(),
        states: report.states,
        depth: report.depth,
        layers: report.layers,
        complete: report.complete,
        index_space: report.index_space,
        bytes: report.bytes,
        expansions: report.expansions,
        seconds: report.seconds,
        backend: placement.name(),
        threads,
        gpu_seconds,
        solution,
    };
    if args.json {
        json::print(&out);
        return Ok(Verdict::Holds);
    }
    println!("puzzle:       {} ({})", out.puzzle, out.algorithm);
    println!("states:       {}{}", out.states, if out.complete { "" } else { " (stopped at --max-depth)" });
    if let (Some(depth), Some(layers)) = (out.depth, &out.layers) {
        println!("depth:        {depth}");
        let text: Vec<String> = layers.iter().map(u64::to_string).collect();
        println!("layers:       {}", text.join(" "));
    }
    println!("memory:       {} bytes of bit vectors for {} indices", out.bytes, out.index_space);
    match (&device, out.gpu_seconds) {
        (Some(device), Some(g)) => {
            println!("time:         {:.3} s on {device}, {g:.3} s of it in the levels", out.seconds)
        }
        _ => println!("time:         {:.3} s on {threads} thread(s)", out.seconds),
    }
    if let Some(moves) = &out.solution {
        println!("solution:     {} moves: {}", moves.len(), moves.join(", "));
    }
    Ok(Verdict::Holds)
}
