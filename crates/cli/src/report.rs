//! Printing results: the text report, the JSON report, and counterexample traces.

use serde_json::{json, Value};
use warpcheck_explore::{Checks, Report, Trace};
use warpcheck_gpu::GpuReport;
use warpcheck_model::Model;

/// Which engine ran: CPU threads, or the GPU with its timings.
pub struct Engine<'a> {
    pub threads: usize,
    pub gpu: Option<&'a GpuReport>,
}

impl Engine<'_> {
    fn bytes_per_state(&self, r: &Report) -> f64 {
        self.gpu.map_or_else(|| r.bytes_per_state(), |g| g.bytes_per_state)
    }
}

/// Statistics common to `explore` and `check`, as JSON.
pub fn stats_json(model_path: &str, model: &Model, r: &Report, engine: &Engine<'_>) -> Value {
    let mut stats = json!({
        "model": model_path,
        "states": r.states,
        "transitions": r.transitions,
        "deadlocks": r.deadlocks,
        "levels": (r.levels > 0).then_some(r.levels),
        "accepting": r.accepting,
        "error_transitions": r.error_transitions,
        "complete": r.complete,
        "seconds": r.seconds,
        "states_per_second": r.states as f64 / r.seconds.max(1e-9),
        "backend": if engine.gpu.is_some() { "gpu" } else { "cpu" },
        "threads": engine.gpu.is_none().then_some(engine.threads),
        "state_words": model.state_words(),
        "bytes_per_state": engine.bytes_per_state(r),
        "table_entries": r.table_entries,
        "table_capacity": r.table_capacity,
        "table_growths": r.growths,
        "table_growth_seconds": r.growth_seconds,
        "peak_memory_bytes": crate::memory::peak_resident(),
    });
    if let Some(g) = engine.gpu {
        stats["device"] = json!(g.device_name);
        stats["compile_seconds"] = json!(g.compile_seconds);
        stats["compile_cached"] = json!(g.compile_cached);
        stats["setup_seconds"] = json!(g.setup_seconds);
        stats["explore_seconds"] = json!(g.explore_seconds);
        stats["kernel_seconds"] = json!(g.kernel_seconds);
        stats["generate_seconds"] = json!(g.generate_seconds);
        stats["launches"] = json!(g.launches);
        stats["explore_states_per_second"] = json!(r.states as f64 / g.explore_seconds.max(1e-9));
        stats["state_capacity"] = json!(g.capacity);
        stats["kernel_registers"] = json!(g.kernel_registers);
        stats["kernel_local_bytes"] = json!(g.kernel_local_bytes);
    }
    stats
}

/// Statistics as text lines.
pub fn print_stats(model: &Model, r: &Report, engine: &Engine<'_>) {
    println!("states:       {}", r.states);
    println!("transitions:  {}", r.transitions);
    println!("deadlocks:    {}", r.deadlocks);
    if r.levels > 0 {
        println!("levels:       {}", r.levels);
    } else {
        println!("levels:       - (depth-first order)");
    }
    if model.property.is_some() {
        println!("accepting:    {}", r.accepting);
    }
    if r.error_transitions > 0 {
        println!("error steps:  {} (edges to the error state, counted above)", r.error_transitions);
    }
    if !r.complete {
        println!("incomplete:   stopped at the first violation");
    }
    let rate = r.states as f64 / r.seconds.max(1e-9);
    match engine.gpu {
        None => {
            println!("time:         {:.3} s, {:.0} states/s on {} thread(s)", r.seconds, rate, engine.threads);
            let peak =
                crate::memory::peak_resident().map_or(String::new(), |b| format!(", peak memory {} MiB", b >> 20));
            println!("memory:       {:.1} bytes/state in the state table{peak}", r.bytes_per_state());
            if r.growths > 0 {
                println!(
                    "table:        grew {} time(s) to {} entries, in place ({:.3} s)",
                    r.growths, r.table_capacity, r.growth_seconds
                );
            }
        }
        Some(g) => {
            let explore_rate = r.states as f64 / g.explore_seconds.max(1e-9);
            println!("time:         {:.3} s in all, {:.0} states/s", r.seconds, rate);
            println!("gpu:          {}, {} kernel launches", g.device_name, g.launches);
            println!(
                "gpu time:     compile {:.3} s{}, setup {:.3} s, search {:.3} s ({:.0} states/s; kernels {:.3} s{})",
                g.compile_seconds,
                if g.compile_cached { " (cached)" } else { "" },
                g.setup_seconds,
                g.explore_seconds,
                explore_rate,
                g.kernel_seconds,
                g.generate_seconds.map_or(String::new(), |s| format!(", of which generation alone {s:.3} s")),
            );
            println!(
                "memory:       {:.1} device bytes/state (state, parent, table share); room for {} states",
                g.bytes_per_state, g.capacity
            );
        }
    }
}

/// A trace as JSON: the initial state, then one object per step.
pub fn trace_json(model: &Model, t: &Trace) -> Value {
    let mut steps = vec![json!({ "step": "initial state", "state": model.describe_state(&t.initial) })];
    for s in &t.steps {
        steps.push(json!({ "step": s.step, "changes": s.changes }));
    }
    if let Some((step, error)) = &t.error_step {
        steps.push(json!({ "step": step, "error": error }));
    }
    Value::Array(steps)
}

/// Prints a trace step by step.
pub fn print_trace(model: &Model, t: &Trace) {
    println!("counterexample ({} steps):", t.len());
    println!("  initial state: {}", model.describe_state(&t.initial).join(", "));
    for (i, s) in t.steps.iter().enumerate() {
        println!("  {:>3}. {}", i + 1, s.step);
        if !s.changes.is_empty() {
            println!("       {}", s.changes.join(", "));
        }
    }
    if let Some((step, error)) = &t.error_step {
        println!("  {:>3}. {}", t.steps.len() + 1, step);
        println!("       raises: {error}");
    }
}

/// The result of `check` as JSON.
pub fn check_json(model: &Model, checks: &Checks, r: &Report, mut stats: Value) -> Value {
    let violations: Vec<Value> = r
        .violations
        .iter()
        .map(|v| {
            json!({
                "message": v.kind.describe(model, checks),
                "count": v.count,
                "trace_length": v.trace.as_ref().map(|t| t.len()),
                "trace": v.trace.as_ref().map(|t| trace_json(model, t)),
            })
        })
        .collect();
    let first = r.violations.first();
    stats["verdict"] = json!(if r.violations.is_empty() { "holds" } else { "violated" });
    stats["violations"] = Value::Array(violations);
    stats["trace_length"] = json!(first.and_then(|v| v.trace.as_ref()).map(|t| t.len()));
    stats["trace"] = first.and_then(|v| v.trace.as_ref()).map_or(Value::Null, |t| trace_json(model, t));
    stats
}
