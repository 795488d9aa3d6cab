//! The `--json` reports, one `#[derive(Serialize)]` type per command: `explore`
//! ([`Stats`]), `explore --graph-out` ([`GraphOut`]), `check` ([`CheckReport`]), `check`
//! of an LTL property ([`LtlReport`]), `scc` ([`SccReport`]) and `cycle-mean`
//! ([`CycleReport`]), with the counterexample traces they share ([`TraceEntry`]).
//!
//! The keys are an interface: `warpcheck-bench` and the tests of `crates/cli/tests`
//! read them, and `tests/json_keys.rs` pins every key set. Optional values are
//! `null`, never left out, except where a key set grows with the run (the GPU's
//! timings, `--per-scc`, `--ltl`, the states of a model's critical cycle): those are
//! flattened in or skipped whole.

use serde::Serialize;
use warpcheck_explore::{Lasso, Trace, TraceStep};
use warpcheck_model::Describe;

/// Prints a report as one line of JSON on standard output.
pub fn print<T: Serialize>(report: &T) {
    println!("{}", serde_json::to_string(report).expect("reports have string keys and serialize"));
}

/// One entry of a trace: the initial state, a step, or a final step raising an error.
#[derive(Serialize)]
#[serde(untagged)]
pub enum TraceEntry<'a> {
    Initial { step: &'static str, state: Vec<String> },
    Step { step: &'a str, changes: &'a [String] },
    Error { step: &'a str, error: &'a str },
}

impl<'a> TraceEntry<'a> {
    fn step(s: &'a TraceStep) -> TraceEntry<'a> {
        TraceEntry::Step { step: &s.step, changes: &s.changes }
    }

    /// A trace: the initial state, then one entry per step.
    pub fn trace(model: &impl Describe, t: &'a Trace) -> Vec<TraceEntry<'a>> {
        let mut entries = vec![TraceEntry::Initial { step: "initial state", state: model.describe_state(&t.initial) }];
        entries.extend(t.steps.iter().map(TraceEntry::step));
        if let Some((step, error)) = &t.error_step {
            entries.push(TraceEntry::Error { step, error });
        }
        entries
    }

    /// A lasso: its stem as a trace, then the cycle's steps.
    pub fn lasso(model: &impl Describe, l: &'a Lasso) -> Vec<TraceEntry<'a>> {
        let mut entries = TraceEntry::trace(model, &l.stem);
        entries.extend(l.cycle.iter().map(TraceEntry::step));
        entries
    }
}

/// `explore` (and the statistics part of `check`).
#[derive(Serialize)]
pub struct Stats<'a> {
    pub model: String,
    pub states: u64,
    pub transitions: u64,
    pub deadlocks: u64,
    /// `null` in depth-first order.
    pub levels: Option<u32>,
    pub accepting: u64,
    pub error_transitions: u64,
    pub complete: bool,
    pub seconds: f64,
    pub states_per_second: f64,
    pub backend: &'static str,
    /// `null` on the GPU.
    pub threads: Option<usize>,
    /// The CPU's successor code, `"native"` or `"closures"` (`--successors`); `null`
    /// on the GPU.
    pub successors: Option<&'static str>,
    pub state_words: usize,
    pub bytes_per_state: f64,
    pub table_entries: u64,
    pub table_capacity: u64,
    /// How often the table grew (in place), and the seconds the moves took.
    pub table_growths: u32,
    pub table_growth_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
    #[serde(flatten)]
    pub gpu: Option<GpuStats<'a>>,
}

/// The GPU engine's part of [`Stats`].
#[derive(Serialize)]
pub struct GpuStats<'a> {
    pub device: &'a str,
    pub compile_seconds: f64,
    pub compile_cached: bool,
    pub setup_seconds: f64,
    pub explore_seconds: f64,
    pub kernel_seconds: f64,
    /// `null` without `--profile`.
    pub generate_seconds: Option<f64>,
    pub launches: u64,
    pub explore_states_per_second: f64,
    pub state_capacity: u64,
    pub kernel_registers: i32,
    pub kernel_local_bytes: i32,
    /// GPUs and partitions of the state store, and the exchange between partitions
    /// (`"nccl"`, `"copies"`; `null` with one partition).
    pub gpus: u32,
    pub partitions: u32,
    pub transport: Option<&'a str>,
    pub exchange_seconds: Option<f64>,
    /// The state store: `"flat"` or `"compressed"`, and the compressed store's inner
    /// nodes besides the states' roots (`null` for the flat one).
    pub gpu_store: &'a str,
    pub tree_nodes: Option<u64>,
    /// Host memory per state the store keeps (the compressed store's index of each
    /// state's root, mapped for the device; 0 for the flat store).
    pub host_bytes_per_state: f64,
}

/// `check` of deadlocks, assertions and invariants.
#[derive(Serialize)]
pub struct CheckReport<'a> {
    #[serde(flatten)]
    pub stats: Stats<'a>,
    /// `"holds"` or `"violated"`.
    pub verdict: &'static str,
    pub violations: Vec<ViolationReport<'a>>,
    /// The first violation's trace.
    pub trace_length: Option<usize>,
    pub trace: Option<Vec<TraceEntry<'a>>>,
}

/// One violated property of [`CheckReport`].
#[derive(Serialize)]
pub struct ViolationReport<'a> {
    pub message: String,
    pub count: u64,
    pub trace_length: Option<usize>,
    pub trace: Option<Vec<TraceEntry<'a>>>,
}

/// `explore --graph-out FILE`.
#[derive(Serialize)]
pub struct GraphOut {
    pub model: String,
    pub states: usize,
    pub transitions: u64,
    pub deadlocks: u64,
    pub error_state: Option<u32>,
    pub seconds: f64,
    pub graph_out: String,
}

/// `check` of an LTL property (a property process or `--ltl`).
#[derive(Serialize)]
pub struct LtlReport<'a> {
    pub model: String,
    /// Always `"ltl"`.
    pub property: &'static str,
    pub algorithm: &'static str,
    pub backend: &'static str,
    pub threads: Option<usize>,
    /// `null` on the CPU.
    pub gpu: Option<LtlGpu<'a>>,
    pub states: u64,
    pub partial: bool,
    pub transitions: u64,
    pub error_transitions: u64,
    pub owcty_iterations: Option<u32>,
    pub owcty_remaining: Option<u64>,
    pub map_rounds: Option<u32>,
    pub table_growths: Option<u32>,
    /// `semi-external`: the most bytes of state files on disk at once, and the bytes
    /// of the perfect hash and colours in memory.
    pub disk_bytes: Option<u64>,
    pub memory_bytes: Option<u64>,
    pub graph_seconds: Option<f64>,
    pub seconds: f64,
    pub verdict: &'static str,
    pub trace_length: Option<usize>,
    pub stem_length: Option<usize>,
    pub cycle_length: Option<usize>,
    /// `trace[0]` is the initial state, `trace[i]` step i: the cycle is
    /// `trace[cycle_start..]`, and returns to the state after `trace[cycle_start - 1]`.
    pub cycle_start: Option<usize>,
    pub trace: Option<Vec<TraceEntry<'a>>>,
    #[serde(flatten)]
    pub formula: Option<FormulaKeys<'a>>,
}

/// The GPU's timings of an LTL check.
#[derive(Serialize)]
pub struct LtlGpu<'a> {
    pub device: &'a str,
    pub compile_seconds: f64,
    pub generate_seconds: f64,
    pub graph_seconds: f64,
    pub cycle_seconds: f64,
    pub lasso_seconds: f64,
    pub edges: u64,
    /// GPUs and partitions of the product's store (the graph on the first GPU).
    pub gpus: u32,
    pub partitions: u32,
}

/// With `--ltl`: the formula and the size of its automaton.
#[derive(Serialize)]
pub struct FormulaKeys<'a> {
    pub formula: &'a str,
    pub automaton_states: usize,
    pub automaton_edges: usize,
}

/// `scc`.
#[derive(Serialize)]
pub struct SccReport<'a> {
    pub input: String,
    pub vertices: usize,
    pub edges: u64,
    pub algorithm: &'static str,
    pub threads: usize,
    pub sccs: u64,
    pub trivial: u64,
    pub nontrivial: u64,
    pub largest: u64,
    pub histogram: Vec<Bucket>,
    pub seconds: f64,
    pub backward_seconds: f64,
    pub load_seconds: f64,
    pub backend: &'static str,
    #[serde(flatten)]
    pub gpu: Option<SccGpu<'a>>,
}

/// `count` components of `low` to `high` vertices.
#[derive(Serialize)]
pub struct Bucket {
    pub low: u64,
    pub high: u64,
    pub count: u64,
}

/// The GPU's part of [`SccReport`].
#[derive(Serialize)]
pub struct SccGpu<'a> {
    pub device: &'a str,
    pub kernel_seconds: f64,
    pub upload_seconds: f64,
    pub download_seconds: f64,
    pub compile_seconds: f64,
    pub rounds: u64,
    pub levels: u64,
    pub launches: u64,
    pub device_bytes: u64,
}

/// `cycle-mean`, one per algorithm run.
#[derive(Serialize)]
pub struct CycleReport<'a> {
    pub input: String,
    pub vertices: usize,
    pub edges: usize,
    /// E.g. `"minimum cycle mean"`.
    pub problem: &'a str,
    pub algorithm: &'static str,
    pub backend: &'static str,
    pub threads: usize,
    /// The exact optimum (`"-7/2"`) and its decimal; `null` without a cycle.
    pub value: Option<String>,
    pub decimal: Option<f64>,
    /// The critical cycle's vertices and edges, as the input numbers vertices.
    pub cycle: Option<Vec<u64>>,
    pub cycle_edges: Option<Vec<CycleEdge>>,
    pub cyclic_sccs: usize,
    pub rounds: u64,
    pub seconds: f64,
    pub scc_seconds: f64,
    pub load_seconds: f64,
    #[serde(flatten)]
    pub gpu: Option<CycleGpu<'a>>,
    /// A model: the critical cycle's states, described.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<Vec<Vec<String>>>,
    /// With `--per-scc`: the optimum of every cyclic component.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<ComponentReport>>,
}

/// An edge of a critical cycle.
#[derive(Serialize)]
pub struct CycleEdge {
    pub source: u64,
    pub target: u64,
    pub weight: i64,
    pub time: i64,
}

/// The GPU Howard's part of [`CycleReport`].
#[derive(Serialize)]
pub struct CycleGpu<'a> {
    pub device: &'a str,
    pub device_rounds: u64,
    pub launches: u64,
    pub kernel_seconds: f64,
    pub device_seconds: f64,
    pub upload_seconds: f64,
    pub setup_seconds: f64,
    pub certify_seconds: f64,
    pub certificate_fallbacks: usize,
    pub fallback_rounds: u64,
    pub device_bytes: u64,
}

/// One cyclic component with `--per-scc`.
#[derive(Serialize)]
pub struct ComponentReport {
    pub representative: u64,
    pub vertices: usize,
    pub edges: usize,
    pub value: String,
    pub decimal: f64,
    pub cycle: Vec<u64>,
}
