//! Reports of `explore` and `check` (deadlocks, assertions, invariants): the text
//! report, its JSON ([`crate::json`]), and counterexample traces as text.

use warpcheck_explore::gpu::GpuReport;
use warpcheck_explore::{Checks, Report, Trace, TraceStep};
use warpcheck_model::Model;

use crate::json::{self, CheckReport, GpuStats, Stats, TraceEntry, ViolationReport};

/// Which engine ran: CPU threads, or the GPU with its timings.
pub struct Engine<'a> {
    pub threads: usize,
    pub gpu: Option<&'a GpuReport>,
    /// CPU: the successors came from the model's compiled C (`--successors`).
    pub native: bool,
}

impl Engine<'_> {
    fn bytes_per_state(&self, r: &Report) -> f64 {
        self.gpu.map_or_else(|| r.bytes_per_state(), |g| g.bytes_per_state)
    }
}

/// The statistics common to `explore` and `check`, for JSON.
pub fn stats<'a>(model_path: String, model: &impl Model, r: &Report, engine: &Engine<'a>) -> Stats<'a> {
    Stats {
        model: model_path,
        states: r.states,
        transitions: r.transitions,
        deadlocks: r.deadlocks,
        levels: (r.levels > 0).then_some(r.levels),
        accepting: r.accepting,
        error_transitions: r.error_transitions,
        complete: r.complete,
        seconds: r.seconds,
        states_per_second: r.states as f64 / r.seconds.max(1e-9),
        backend: if engine.gpu.is_some() { "gpu" } else { "cpu" },
        threads: engine.gpu.is_none().then_some(engine.threads),
        successors: engine.gpu.is_none().then_some(if engine.native { "native" } else { "closures" }),
        state_words: model.state_words(),
        bytes_per_state: engine.bytes_per_state(r),
        table_entries: r.table_entries,
        table_capacity: r.table_capacity,
        table_growths: r.growths,
        table_growth_seconds: r.growth_seconds,
        peak_memory_bytes: crate::memory::peak_resident(),
        gpu: engine.gpu.map(|g| GpuStats {
            device: &g.device_name,
            compile_seconds: g.compile_seconds,
            compile_cached: g.compile_cached,
            setup_seconds: g.setup_seconds,
            explore_seconds: g.explore_seconds,
            kernel_seconds: g.kernel_seconds,
            generate_seconds: g.generate_seconds,
            launches: g.launches,
            explore_states_per_second: r.states as f64 / g.explore_seconds.max(1e-9),
            state_capacity: g.capacity,
            kernel_registers: g.kernel_registers,
            kernel_local_bytes: g.kernel_local_bytes,
            gpus: g.gpus.max(1),
            partitions: g.partitions.max(1),
            transport: (g.partitions > 1).then_some(g.transport),
            exchange_seconds: (g.partitions > 1).then_some(g.exchange_seconds),
            gpu_store: g.store,
            tree_nodes: g.tree_nodes,
            host_bytes_per_state: g.host_bytes_per_state,
        }),
    }
}

/// The result of `check` as JSON.
pub fn check_json<'a>(model: &impl Model, checks: &Checks, r: &'a Report, stats: Stats<'a>) -> CheckReport<'a> {
    let violations = r
        .violations
        .iter()
        .map(|v| ViolationReport {
            message: v.kind.describe(model, checks),
            count: v.count,
            trace_length: v.trace.as_ref().map(Trace::len),
            trace: v.trace.as_ref().map(|t| TraceEntry::trace(model, t)),
        })
        .collect();
    let first = r.violations.first().and_then(|v| v.trace.as_ref());
    CheckReport {
        stats,
        verdict: if r.violations.is_empty() { "holds" } else { "violated" },
        violations,
        trace_length: first.map(Trace::len),
        trace: first.map(|t| TraceEntry::trace(model, t)),
    }
}

/// Prints the JSON of `explore`.
pub fn print_stats_json(model_path: String, model: &impl Model, r: &Report, engine: &Engine<'_>) {
    json::print(&stats(model_path, model, r, engine));
}

/// The counts as text lines: states, transitions, deadlocks, levels, accepting states,
/// error steps, and whether the search stopped early.
pub fn print_counts(model: &impl Model, r: &Report) {
    println!("states:       {}", r.states);
    println!("transitions:  {}", r.transitions);
    println!("deadlocks:    {}", r.deadlocks);
    if r.levels > 0 {
        println!("levels:       {}", r.levels);
    } else {
        println!("levels:       - (depth-first order)");
    }
    if model.property().is_some() {
        println!("accepting:    {}", r.accepting);
    }
    if r.error_transitions > 0 {
        println!("error steps:  {} (edges to the error state, counted above)", r.error_transitions);
    }
    if !r.complete {
        println!("incomplete:   stopped at the first violation");
    }
}

/// Statistics as text lines.
pub fn print_stats(model: &impl Model, r: &Report, engine: &Engine<'_>) {
    print_counts(model, r);
    let rate = r.states as f64 / r.seconds.max(1e-9);
    match engine.gpu {
        None => {
            let code = if engine.native { "native" } else { "built-in" };
            println!(
                "time:         {:.3} s, {:.0} states/s on {} thread(s), {code} successor code",
                r.seconds, rate, engine.threads
            );
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
            if g.partitions > 1 {
                println!(
                    "gpu:          {} x {}, {} store partitions exchanging by {}, {} kernel launches",
                    g.gpus, g.device_name, g.partitions, g.transport, g.launches
                );
            } else {
                println!("gpu:          {}, {} kernel launches", g.device_name, g.launches);
            }
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
            if g.partitions > 1 {
                println!("exchange:     {:.3} s moving and inserting other partitions' states", g.exchange_seconds);
            }
            if let Some(states) = g.flat_full_at {
                println!("note:         the flat store filled at {states} states; explored again compressed");
            }
            for states in &g.replanned_at {
                println!(
                    "note:         the compressed store filled at {states} states; explored again, planned for the \
                     inner nodes it found"
                );
            }
            if g.host_roots > 0 {
                println!(
                    "note:         {:.0}% of the set of roots ({} entries) in host memory, past the device's",
                    100.0 * g.host_roots as f64 / r.table_capacity.max(1) as f64,
                    g.host_roots
                );
            }
            match g.tree_nodes {
                Some(nodes) => println!(
                    "memory:       {:.1} device bytes/state, compressed (root and {:.2} inner nodes per state), \
                     and {:.1} host bytes/state ({}); room for {} states",
                    g.bytes_per_state,
                    nodes as f64 / r.states.max(1) as f64,
                    g.host_bytes_per_state,
                    if g.host_roots > 0 {
                        "its root key and its share of the roots past the device"
                    } else {
                        "its root key"
                    },
                    g.capacity
                ),
                None => println!(
                    "memory:       {:.1} device bytes/state (state, parent, table share); room for {} states",
                    g.bytes_per_state, g.capacity
                ),
            }
        }
    }
}

/// Prints steps numbered from `first`, each with the changes it made.
pub fn print_steps(steps: &[TraceStep], first: usize) {
    for (i, s) in steps.iter().enumerate() {
        println!("  {:>3}. {}", first + i, s.step);
        if !s.changes.is_empty() {
            println!("       {}", s.changes.join(", "));
        }
    }
}

/// Prints a trace step by step.
pub fn print_trace(model: &impl Model, t: &Trace) {
    println!("counterexample ({} steps):", t.len());
    println!("  initial state: {}", model.describe_state(&t.initial).join(", "));
    print_steps(&t.steps, 1);
    if let Some((step, error)) = &t.error_step {
        println!("  {:>3}. {}", t.steps.len() + 1, step);
        println!("       raises: {error}");
    }
}
