//! `warpcheck check MODEL --property 'Pmax=? [F "goal"]'` on a Markov model: PRISM
//! properties (PCTL, CSL, rewards) checked by [`warpcheck_markov::check`], the value
//! at the initial state(s) with its sound bounds, as text or JSON, every state's value
//! with `--values FILE`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use warpcheck_markov::check::{self, CheckError, Cores, Engine, Method, Options, Property};
use warpcheck_markov_gpu::GpuEngine;

use crate::backend::Placement;
use crate::error::{CliError, Verdict};
use crate::frontend::MarkovFormat;
use crate::json;
use crate::markov::{self, MarkovArgs};

/// The options of checking Markov properties.
#[derive(Args, Clone, Debug, Default)]
pub struct PctlArgs {
    /// Markov models: a property in PRISM syntax, e.g. `Pmax=? [F "goal"]`,
    /// `R{"time"}min=? [F "done"]`, `S=? ["up"]` (repeatable).
    #[arg(long = "property", value_name = "PROPERTY")]
    pub properties: Vec<String>,
    /// Markov models: a PRISM `.props` file, one property per line (`//` comments,
    /// optional `"name":` prefixes); what is not supported is skipped with a warning.
    #[arg(long = "properties", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Markov models: the distance of the reported value from the exact one
    /// (absolute unless --relative).
    #[arg(long, value_name = "EPS", default_value_t = 1e-6)]
    pub precision: f64,
    /// Markov models: the precision is relative to the value.
    #[arg(long)]
    pub relative: bool,
    /// Markov models: how unbounded properties are solved: `sound` (interval
    /// iteration / optimistic value iteration with guaranteed bounds), `vi` (value
    /// iteration), `gs` (Gauss-Seidel) or `pi` (policy iteration, each policy evaluated
    /// soundly), the last three with unsound stopping rules.
    #[arg(long, value_enum, default_value_t = MethodArg::Sound)]
    pub method: MethodArg,
    /// Markov models: how interval and value iteration sweep: `in-place` (each update
    /// reads the latest values; the CPU's default: far fewer sweeps there) or `jacobi`
    /// (each sweep from the last one's vector: reproducible, the same bits on the CPU
    /// and the GPU; the GPU's default, where in-place sweeps save almost nothing).
    #[arg(long, value_enum)]
    pub sweeps: Option<SweepsArg>,
    /// Markov models: answer `P`, `R` (`F`, `C<=k`, `I=k`) and `T` properties of DTMCs
    /// and MDPs exactly, as fractions
    /// (the model's probabilities read as the simplest fractions within their
    /// rounding: 0.1 is 1/10); for models of thousands of states.
    #[arg(long)]
    pub exact: bool,
    /// Markov models: write every state's value (`state value lower upper`, one per
    /// line; one block per property) to FILE.
    #[arg(long, value_name = "FILE")]
    pub values: Option<PathBuf>,
}

impl PctlArgs {
    /// Whether the check, as asked, runs on the GPU, or why not (for `--backend`).
    pub fn gpu_path(&self) -> Result<(), String> {
        if self.exact {
            return Err("exact answers (--exact) are computed on the CPU only".into());
        }
        if self.method == MethodArg::Gs {
            return Err("Gauss-Seidel (--method gs) runs on the CPU only".into());
        }
        Ok(())
    }

    /// Whether any of these options was given.
    pub fn given(&self) -> bool {
        !self.properties.is_empty()
            || self.file.is_some()
            || self.values.is_some()
            || self.exact
            || self.sweeps.is_some()
    }
}

/// `--method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    #[default]
    Sound,
    Vi,
    Gs,
    Pi,
}

/// `--sweeps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SweepsArg {
    InPlace,
    Jacobi,
}

/// The `--json` report of one property.
#[derive(Serialize)]
pub struct PropertyReport {
    pub model: String,
    pub property: String,
    /// The value at the initial state (the minimum over several initial states).
    pub value: f64,
    /// With `--exact`: the value as a fraction (`7/10`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fraction: Option<String>,
    pub lower: f64,
    pub upper: f64,
    /// With several initial states: the largest value (else equal to `value`).
    pub max_value: f64,
    pub initial_states: usize,
    pub method: &'static str,
    pub iterations: u64,
    pub seconds: f64,
    /// Time in the sweeps (on the GPU: uploads, kernels and downloads).
    pub sweep_seconds: f64,
    /// Matrix entries the sweeps read (an entry once per vector it is applied to).
    pub swept_entries: u64,
    pub backend: &'static str,
}

/// A property's answer: sound bounds, or exact fractions.
enum Answer {
    Bounds(check::Values),
    Exact(check::Exact),
}

impl Answer {
    fn value(&self, s: u32) -> f64 {
        match self {
            Answer::Bounds(v) => v.value(s),
            Answer::Exact(e) => e.float(s),
        }
    }

    fn bounds(&self, s: u32) -> (f64, f64) {
        match self {
            Answer::Bounds(v) => (v.lower[s as usize], v.upper[s as usize]),
            Answer::Exact(e) => (e.float(s), e.float(s)),
        }
    }

    fn fraction(&self, s: u32) -> Option<String> {
        match self {
            Answer::Bounds(_) => None,
            Answer::Exact(e) => Some(e.fraction(s)),
        }
    }

    fn method(&self) -> &'static str {
        match self {
            Answer::Bounds(v) => v.method,
            Answer::Exact(e) => e.method,
        }
    }

    fn sweep(&self) -> check::SweepTime {
        match self {
            Answer::Bounds(v) => v.sweep,
            Answer::Exact(_) => check::SweepTime::default(),
        }
    }

    fn iterations(&self) -> u64 {
        match self {
            Answer::Bounds(v) => v.iterations,
            Answer::Exact(e) => e.iterations,
        }
    }
}

/// The properties of `--property` and `--properties`.
fn properties(args: &PctlArgs) -> Result<Vec<Property>, CliError> {
    let mut out = Vec::new();
    for text in &args.properties {
        out.push(check::parse(text).map_err(|e| CliError::Input(format!("--property: {e}")))?);
    }
    if let Some(file) = &args.file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::Input(format!("cannot read {}: {e}", file.display())))?;
        for (i, line) in text.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("").trim();
            if line.is_empty() || line.starts_with("const ") || line.starts_with("label ") {
                continue;
            }
            match check::parse(line) {
                Ok(p) => out.push(p),
                Err(e) => eprintln!("warning: {}:{}: skipped: {e}", file.display(), i + 1),
            }
        }
    }
    if out.is_empty() {
        return Err(CliError::input("no property to check: give --property or --properties FILE"));
    }
    Ok(out)
}

/// Models of fewer transitions are checked on the CPU under `--backend auto`: there,
/// starting the GPU costs more than it saves.
pub const AUTO_GPU_TRANSITIONS: u64 = 100_000;

/// Where the sweeps run, as asked: the placement, whether `auto` chose it, the device
/// and `--sweeps`.
pub struct Where {
    pub placement: Placement,
    pub auto: bool,
    pub device: usize,
    pub sweeps: Option<SweepsArg>,
}

/// The engine of the sweeps: all CPU cores, or GPU `device` (its kernels loaded).
pub fn engine(placement: Placement, device: usize, sweeps: Option<SweepsArg>) -> Result<Arc<dyn Engine>, CliError> {
    Ok(match placement {
        Placement::Cpu if sweeps == Some(SweepsArg::Jacobi) => Arc::new(Cores::jacobi()),
        Placement::Cpu => Arc::new(Cores::default()),
        Placement::Gpu => {
            let gpu =
                GpuEngine::cuda(device).map_err(|e| CliError::Resource(format!("the GPU cannot be used: {e}")))?;
            Arc::new(if sweeps == Some(SweepsArg::InPlace) { gpu.in_place() } else { gpu })
        }
    })
}

/// Checks the properties of `args` on the Markov model `path`, the sweeps where `place`
/// says (under `auto`, small models stay on the CPU).
pub fn run(
    path: &Path,
    format: MarkovFormat,
    margs: &MarkovArgs,
    args: &PctlArgs,
    threads: usize,
    json_out: bool,
    place: Where,
) -> Result<Verdict, CliError> {
    let props = properties(args)?;
    let pool = crate::thread_pool(threads)?;
    let loaded = pool.install(|| markov::load(path, format, margs, markov::Builder::Cpu))?;
    let model = &loaded.model;
    let placement = match place.placement {
        Placement::Gpu if place.auto && model.transitions() < AUTO_GPU_TRANSITIONS => Placement::Cpu,
        p => p,
    };
    let engine = engine(placement, place.device, place.sweeps)?;
    let mut constants = std::collections::BTreeMap::new();
    for list in &margs.constants {
        for item in list.split(',').filter(|s| !s.trim().is_empty()) {
            if let Some((name, value)) = item.split_once('=') {
                if let Ok(v) = value.trim().parse::<f64>() {
                    constants.insert(name.trim().to_string(), v);
                }
            }
        }
    }
    let options = Options {
        precision: args.precision,
        relative: args.relative,
        method: match args.method {
            MethodArg::Sound => Method::Sound,
            MethodArg::Vi => Method::ValueIteration,
            MethodArg::Gs => Method::GaussSeidel,
            MethodArg::Pi => Method::PolicyIteration,
        },
        constants,
        engine,
        ..Options::default()
    };
    let backend = options.engine.name();
    let failed = |prop: &Property, e: CheckError| match e {
        CheckError::Device(_) => CliError::Resource(format!("{}: {e}", prop.text)),
        e => CliError::Input(format!("{}: {e}", prop.text)),
    };
    let mut values_out = match &args.values {
        Some(f) => Some(std::io::BufWriter::new(
            std::fs::File::create(f).map_err(|e| CliError::Input(format!("cannot write {}: {e}", f.display())))?,
        )),
        None => None,
    };
    if !json_out {
        println!("model:        {} ({}), {} states", model.model_type.name(), path.display(), model.states());
    }
    for prop in &props {
        let start = Instant::now();
        let values = if args.exact {
            let exact = pool
                .install(|| check::check_exact(model, prop, &options))
                .map_err(|e| CliError::Input(format!("{}: {e}", prop.text)))?;
            Answer::Exact(exact)
        } else {
            let values = pool.install(|| check::check(model, prop, &options)).map_err(|e| failed(prop, e))?;
            Answer::Bounds(values)
        };
        let seconds = start.elapsed().as_secs_f64();
        let init = &model.initial;
        let at = |s: u32| values.value(s);
        let min_state = *init.iter().min_by(|&&a, &&b| at(a).total_cmp(&at(b))).expect("a model has an initial state");
        let max_value = init.iter().map(|&s| at(s)).fold(f64::NEG_INFINITY, f64::max);
        let (lower, upper) = values.bounds(min_state);
        let report = PropertyReport {
            model: path.display().to_string(),
            property: prop.text.clone(),
            value: at(min_state),
            fraction: values.fraction(min_state),
            lower,
            upper,
            max_value,
            initial_states: init.len(),
            method: values.method(),
            iterations: values.iterations(),
            seconds,
            sweep_seconds: values.sweep().seconds,
            swept_entries: values.sweep().entries,
            backend,
        };
        if let Some(out) = values_out.as_mut() {
            let io = |e: std::io::Error| CliError::Input(format!("cannot write the values: {e}"));
            writeln!(out, "// {}", prop.text).map_err(io)?;
            for s in 0..model.states() as u32 {
                let (lower, upper) = values.bounds(s);
                match values.fraction(s) {
                    Some(f) => writeln!(out, "{s} {f} {}", values.value(s)).map_err(io)?,
                    None => writeln!(out, "{s} {} {lower} {upper}", values.value(s)).map_err(io)?,
                }
            }
        }
        if json_out {
            json::print(&report);
            continue;
        }
        println!("property:     {}", prop.text);
        let shown = match &report.fraction {
            Some(f) => format!("{f} ({})", report.value),
            None => report.value.to_string(),
        };
        if init.len() > 1 {
            println!("value:        {shown} .. {} (min .. max over {} initial states)", max_value, init.len());
        } else {
            println!("value:        {shown}");
        }
        if report.fraction.is_none() {
            println!("bounds:       [{}, {}]", report.lower, report.upper);
        }
        let steps = if report.fraction.is_some() { "iteration(s)" } else { "sweeps" };
        let place = if backend == "gpu" { " on the GPU" } else { "" };
        println!("method:       {}, {} {steps}{place}, {seconds:.3} s", report.method, report.iterations);
    }
    if let Some(mut out) = values_out {
        out.flush().map_err(|e| CliError::Input(format!("cannot write the values: {e}")))?;
    }
    Ok(Verdict::Holds)
}
