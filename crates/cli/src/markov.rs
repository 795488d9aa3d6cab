//! Markov models on the command line: loading one (a PRISM source built with
//! `--const`, or Storm's and PRISM's explicit files), `explore` of a Markov model
//! (its size, `--export`), and the reports they share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use warpcheck_explore::gpu::GpuError;
use warpcheck_markov::{BuildError, BuildOptions, ModelType, SparseModel};
use warpcheck_markov_gpu::{build_gpu, GpuBuildError, GpuBuildOptions};

use crate::backend::Placement;
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

/// Where a PRISM model is built: on the current rayon pool, or on a GPU (explored
/// and weighed there, assembled on the pool).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builder {
    Cpu,
    Gpu { device: usize },
}

impl Builder {
    /// The builder of a placement: the GPU only for PRISM sources (explicit files are
    /// read on the CPU).
    pub fn of(placement: Placement, device: usize, format: MarkovFormat) -> Builder {
        match (placement, format) {
            (Placement::Gpu, MarkovFormat::Prism) => Builder::Gpu { device },
            _ => Builder::Cpu,
        }
    }

    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Builder::Cpu => "cpu",
            Builder::Gpu { .. } => "gpu",
        }
    }
}

/// Where a GPU build's time went (`--json`'s `gpu_build`).
#[derive(Clone, Debug, Serialize)]
pub struct GpuPhases {
    pub device: String,
    pub compile_seconds: f64,
    pub explore_seconds: f64,
    pub weigh_seconds: f64,
    pub copy_seconds: f64,
    pub assemble_seconds: f64,
}

/// A loaded Markov model and how long loading (building) took.
pub struct LoadedMarkov {
    pub model: SparseModel,
    pub seconds: f64,
    /// The phases of a GPU build.
    pub gpu: Option<GpuPhases>,
}

/// Loads (or builds, with `builder`) the Markov model in `path`.
pub fn load(path: &Path, format: MarkovFormat, args: &MarkovArgs, builder: Builder) -> Result<LoadedMarkov, CliError> {
    let start = Instant::now();
    let asked = args.model_type.map(ModelType::from);
    let mut gpu = None;
    let model = match format {
        MarkovFormat::Prism => {
            let (model, phases) = build_prism(path, args, builder)?;
            gpu = phases;
            model
        }
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
    Ok(LoadedMarkov { model, seconds: start.elapsed().as_secs_f64(), gpu })
}

/// Parses, checks and builds a PRISM model with the constants of `--const`. On the
/// GPU, a step that raises an evaluation error sends the build to the CPU, whose
/// error names the state and the step.
fn build_prism(path: &Path, args: &MarkovArgs, builder: Builder) -> Result<(SparseModel, Option<GpuPhases>), CliError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read {file}: {e}")))?;
    let mut constants = Vec::new();
    for list in &args.constants {
        constants.extend(warpcheck_prism::parse_constants(list).map_err(|e| CliError::Input(format!("--const: {e}")))?);
    }
    let model = warpcheck_prism::load(&source, &constants).map_err(|d| CliError::Rendered(d.render(&file, &source)))?;
    // A model too large to number is a resource limit (exit 3); the others are the
    // model's errors.
    let build_error = |e: BuildError| match e {
        BuildError::TooManyStates { .. } => CliError::Resource(format!("{file}: {e}")),
        e => CliError::Input(format!("{file}: {e}")),
    };
    if let Builder::Gpu { device } = builder {
        let options = GpuBuildOptions { device, ..GpuBuildOptions::default() };
        match build_gpu(&model, model.model_type(), &options) {
            Ok(built) => {
                let phases = GpuPhases {
                    device: built.device_name,
                    compile_seconds: built.compile_seconds,
                    explore_seconds: built.explore_seconds,
                    weigh_seconds: built.weigh_seconds,
                    copy_seconds: built.copy_seconds,
                    assemble_seconds: built.assemble_seconds,
                };
                return Ok((built.model, Some(phases)));
            }
            Err(GpuBuildError::Evaluation) => {}
            Err(GpuBuildError::Build(e)) => return Err(build_error(e)),
            Err(GpuBuildError::Gpu(e @ GpuError::Unsupported(_))) => {
                return Err(CliError::Input(format!("{file}: --backend gpu: {e}")));
            }
            Err(GpuBuildError::Gpu(e)) => {
                return Err(CliError::Resource(format!("{file}: building on the GPU: {e}")));
            }
        }
    }
    Ok((model.build(&BuildOptions::default()).map_err(build_error)?, None))
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
    /// A GPU build's phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_build: Option<GpuPhases>,
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
    builder: Builder,
) -> Result<Verdict, CliError> {
    let loaded = crate::thread_pool(threads)?.install(|| load(path, format, args, builder))?;
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
        backend: builder.name(),
        threads,
        gpu_build: loaded.gpu.clone(),
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
    match &loaded.gpu {
        Some(g) => println!(
            "time:         {:.3} s on {} (explore {:.3} s, weigh {:.3} s, assemble {:.3} s on {threads} thread(s))",
            stats.seconds, g.device, g.explore_seconds, g.weigh_seconds, g.assemble_seconds
        ),
        None => println!("time:         {:.3} s on {threads} thread(s)", stats.seconds),
    }
    Ok(Verdict::Holds)
}

/// `mec --backend auto` decomposes on a GPU from this many transitions: there the
/// device beat 16 CPU threads on every model measured (1.2-12.5x from 13 M transitions;
/// below 3 M it lost by its fixed 0.2 s).
const AUTO_GPU_TRANSITIONS: u64 = 10_000_000;

/// `mec`: maximal end components of an MDP, bottom SCCs of a DTMC or CTMC.
#[derive(Args)]
pub struct MecArgs {
    /// A Markov model: PRISM (`.prism`, `.pm`, `.nm`, `.sm`), Storm's `.drn` or PRISM's
    /// explicit `.tra` (gzipped too).
    pub model: PathBuf,
    /// The model's format, instead of its extension's.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<crate::frontend::FormatArg>,
    #[command(flatten)]
    pub markov: MarkovArgs,
    /// Worker threads (default: all cores).
    #[arg(long, short = 't')]
    pub threads: Option<usize>,
    /// Where to run: `cpu`, `gpu` (a PRISM source built and decomposed on the GPU)
    /// or `auto` (built on the CPU, decomposed on a GPU from 10 M transitions).
    #[arg(long, value_enum, default_value_t = crate::backend::Backend::Auto)]
    pub backend: crate::backend::Backend,
    /// The CUDA device to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
    /// Write every component to FILE, one JSON object per line: `{"mec": K, "states":
    /// [...], "choices": [[state, local choice], ...]}`.
    #[arg(long, value_name = "FILE")]
    pub components: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` report of `mec`.
#[derive(Serialize)]
pub struct MecReport {
    pub model: String,
    pub model_type: &'static str,
    /// `mec` for an MDP, `bscc` (bottom SCCs) for a DTMC or CTMC.
    pub kind: &'static str,
    pub states: usize,
    pub choices: u64,
    pub mecs: usize,
    /// States per component, largest first.
    pub mec_sizes: Vec<usize>,
    pub states_in_mecs: u64,
    /// (state, choice) pairs whose choice stays inside the state's component.
    pub choices_in_mecs: u64,
    pub build_seconds: f64,
    pub mec_seconds: f64,
    pub backend: &'static str,
    pub threads: usize,
    /// Where the GPU build's time went, after `--backend gpu` on a PRISM source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_build: Option<GpuPhases>,
    /// Where the GPU decomposition's time went, after `--backend gpu`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_mec: Option<GpuMecPhases>,
}

/// Where a GPU MEC decomposition's time went (`--json`'s `gpu_mec`).
#[derive(Clone, Debug, Serialize)]
pub struct GpuMecPhases {
    pub device: String,
    /// Rounds of disabling, colouring, marking and relabelling.
    pub rounds: u32,
    /// Kernel launches that ran.
    pub launches: u64,
    pub upload_seconds: f64,
    pub device_seconds: f64,
    pub assemble_seconds: f64,
}

/// One line of `--components`.
#[derive(Serialize)]
struct Component<'a> {
    mec: usize,
    states: &'a [u32],
    choices: Vec<(u32, u64)>,
}

/// Runs `mec`.
pub fn mec(args: MecArgs) -> Result<Verdict, CliError> {
    let crate::frontend::Input::Markov(format) =
        crate::frontend::resolve(&args.model, args.format, &crate::frontend::MEC)?
    else {
        return Err(CliError::Input("mec reads Markov models only".into()));
    };
    // `auto` stays on the CPU; `gpu` builds (a PRISM source) and decomposes there.
    // `gpu` builds (a PRISM source) and decomposes on the device; `auto` builds on the
    // CPU and decomposes on a GPU, if there is one, from AUTO_GPU_TRANSITIONS on.
    let asked_gpu = args.backend == crate::backend::Backend::Gpu;
    let gpu_present = args.backend.place(args.device, Ok(()))? == Placement::Gpu;
    let threads = crate::thread_count(args.threads);
    let pool = crate::thread_pool(threads)?;
    let builder = Builder::of(if asked_gpu { Placement::Gpu } else { Placement::Cpu }, args.device, format);
    let loaded = pool.install(|| load(&args.model, format, &args.markov, builder))?;
    let m = &loaded.model;
    if m.model_type != ModelType::Mdp {
        if let Err(e) = warpcheck_markov::mec::one_row_per_state(m) {
            return Err(CliError::Input(e.to_string()));
        }
    }
    let kind = if m.model_type == ModelType::Mdp { "mec" } else { "bscc" };
    let start = Instant::now();
    let placement = if gpu_present && (asked_gpu || m.transitions() >= AUTO_GPU_TRANSITIONS) {
        Placement::Gpu
    } else {
        Placement::Cpu
    };
    let (mecs, gpu_mec) = match placement {
        Placement::Gpu => {
            let lanes = warpcheck_markov_gpu::Cuda::open(args.device).map_err(CliError::Resource)?;
            let (mecs, stats) = pool
                .install(|| warpcheck_markov_gpu::mec::maximal_end_components(&lanes, m))
                .map_err(|e| CliError::Resource(format!("the MEC decomposition on the GPU: {e}")))?;
            let phases = GpuMecPhases {
                device: lanes.device_name().to_string(),
                rounds: stats.rounds,
                launches: stats.launches,
                upload_seconds: stats.upload_seconds,
                device_seconds: stats.device_seconds,
                assemble_seconds: stats.assemble_seconds,
            };
            (mecs, Some(phases))
        }
        Placement::Cpu => (pool.install(|| warpcheck_markov::maximal_end_components(m)), None),
    };
    let mec_seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.components {
        write_components(path, m, &mecs)?;
    }
    let summary = mecs.summary();
    let report = MecReport {
        model: args.model.display().to_string(),
        model_type: m.model_type.name(),
        kind,
        states: m.states(),
        choices: m.choices(),
        mecs: summary.count,
        mec_sizes: summary.sizes_sorted_desc,
        states_in_mecs: summary.states_in_mecs,
        choices_in_mecs: summary.choices_in_mecs,
        build_seconds: loaded.seconds,
        mec_seconds,
        backend: if gpu_mec.is_some() { "gpu" } else { "cpu" },
        threads,
        gpu_build: loaded.gpu.clone(),
        gpu_mec,
    };
    if args.json {
        json::print(&report);
        return Ok(Verdict::Holds);
    }
    let what = if kind == "mec" { "maximal end components" } else { "bottom SCCs" };
    println!("model:        {} ({})", report.model_type, report.model);
    println!("states:       {}", report.states);
    println!("components:   {} {what}", report.mecs);
    let shown: Vec<String> = report.mec_sizes.iter().take(10).map(|s| s.to_string()).collect();
    let more = if report.mec_sizes.len() > 10 { ", ..." } else { "" };
    println!("sizes:        {}{more}", shown.join(", "));
    println!("in them:      {} states, {} choices", report.states_in_mecs, report.choices_in_mecs);
    if let Some(path) = &args.components {
        println!("written:      {}", path.display());
    }
    match &report.gpu_mec {
        Some(g) => println!(
            "time:         {:.3} s to load, {:.3} s to decompose on {} ({} rounds)",
            report.build_seconds, mec_seconds, g.device, g.rounds
        ),
        None => println!(
            "time:         {:.3} s to load, {:.3} s to decompose on {threads} thread(s)",
            report.build_seconds, mec_seconds
        ),
    }
    Ok(Verdict::Holds)
}

/// Writes the components, one JSON object per line.
fn write_components(path: &Path, m: &SparseModel, mecs: &warpcheck_markov::Mecs) -> Result<(), CliError> {
    use std::io::Write;
    let fail = |e: std::io::Error| CliError::Input(format!("cannot write {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(fail)?;
    let mut out = std::io::BufWriter::new(file);
    for k in 0..mecs.count() {
        let line = Component { mec: k, states: mecs.states(k), choices: mecs.choices(m, k).collect() };
        let text = serde_json::to_string(&line).expect("components serialize");
        writeln!(out, "{text}").map_err(fail)?;
    }
    out.flush().map_err(fail)
}
