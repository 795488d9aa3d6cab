//! The reports of `cycle-mean`: text, and JSON ([`crate::json::CycleReport`]).
//! Vertices are named as the input numbers them: 1-based in a `.d` file, state ids
//! (0 the initial state) in a model.

use std::path::Path;

use warpcheck_cycle::gpu::GpuHowardReport;
use warpcheck_cycle::{CriticalCycle, Solution, WeightedGraph};

use super::DescribeVertex;
use crate::json::{self, ComponentReport, CycleEdge, CycleGpu, CycleReport};

/// How the solution was computed, for the report.
pub struct Run<'a> {
    pub input: &'a Path,
    pub name: &'static str,
    pub threads: usize,
    pub what: &'a str,
    pub load_seconds: f64,
    pub gpu: Option<&'a GpuHowardReport>,
    pub per_scc: bool,
    /// A model: its states by vertex.
    pub describe: Option<DescribeVertex<'a>>,
}

impl Run<'_> {
    /// Vertex names as the input numbers them.
    fn vertex(&self, v: u32) -> u64 {
        if self.describe.is_some() {
            v as u64
        } else {
            v as u64 + 1
        }
    }

    fn vertices(&self, c: &CriticalCycle) -> Vec<u64> {
        c.vertices.iter().map(|&v| self.vertex(v)).collect()
    }
}

fn cycle_edges(g: &WeightedGraph, c: &CriticalCycle, run: &Run) -> Vec<CycleEdge> {
    c.edges
        .iter()
        .map(|&e| CycleEdge {
            source: run.vertex(g.source(e)),
            target: run.vertex(g.target(e)),
            weight: g.weight(e),
            time: g.time(e),
        })
        .collect()
}

pub fn print_json(g: &WeightedGraph, s: &Solution, run: &Run) {
    let cycle = s.cycle.as_ref();
    json::print(&CycleReport {
        input: run.input.display().to_string(),
        vertices: g.vertices(),
        edges: g.edges(),
        problem: run.what,
        algorithm: run.name,
        backend: if run.gpu.is_some() { "gpu" } else { "cpu" },
        threads: run.threads,
        value: s.value.map(|v| v.to_string()),
        decimal: s.value.map(|v| v.to_f64()),
        cycle: cycle.map(|c| run.vertices(c)),
        cycle_edges: cycle.map(|c| cycle_edges(g, c, run)),
        cyclic_sccs: s.components.len(),
        rounds: s.rounds,
        seconds: s.seconds,
        scc_seconds: s.scc_seconds,
        load_seconds: run.load_seconds,
        gpu: run.gpu.map(|g| CycleGpu {
            device: &g.device_name,
            device_rounds: g.rounds,
            launches: g.launches,
            kernel_seconds: g.kernel_seconds,
            device_seconds: g.device_seconds,
            upload_seconds: g.upload_seconds,
            setup_seconds: g.setup_seconds,
            certify_seconds: g.certify_seconds,
            certificate_fallbacks: g.fallbacks,
            fallback_rounds: g.fallback_rounds,
            device_bytes: g.device_bytes,
        }),
        states: run.describe.zip(cycle).map(|(describe, c)| c.vertices.iter().map(|&v| describe(v)).collect()),
        components: run.per_scc.then(|| {
            s.components
                .iter()
                .map(|c| ComponentReport {
                    representative: run.vertex(c.representative),
                    vertices: c.vertices,
                    edges: c.edges,
                    value: c.value.to_string(),
                    decimal: c.value.to_f64(),
                    cycle: run.vertices(&c.cycle),
                })
                .collect()
        }),
    });
}

pub fn print_text(g: &WeightedGraph, s: &Solution, run: &Run) {
    const SHOWN: usize = 40;
    let name = run.name;
    println!("vertices:     {}", g.vertices());
    println!("edges:        {}", g.edges());
    println!("problem:      {}", run.what);
    println!("algorithm:    {name} ({} thread(s))", run.threads);
    match (&s.value, &s.cycle) {
        (Some(v), Some(c)) => {
            println!("value:        {v} ({})", v.decimal(6));
            let names: Vec<String> = c.vertices.iter().take(SHOWN).map(|&v| run.vertex(v).to_string()).collect();
            let more = if c.vertices.len() > SHOWN { " -> ..." } else { "" };
            let first = run.vertex(c.vertices[0]);
            println!("cycle:        {} -> {first}{more}", names.join(" -> "));
            println!("              {} edge(s), weight {}, time {}", c.edges.len(), c.weight, c.time);
            if let Some(describe) = run.describe {
                for &v in c.vertices.iter().take(SHOWN) {
                    println!("  state {v}: {}", describe(v).join(", "));
                }
            }
        }
        _ => println!("value:        none (the graph has no cycle)"),
    }
    println!("cyclic sccs:  {}", s.components.len());
    if name.starts_with("howard") {
        println!("rounds:       {} (policy improvements, all components)", s.rounds);
    }
    println!("time:         {:.3} s ({name}; SCCs {:.3} s, input {:.3} s)", s.seconds, s.scc_seconds, run.load_seconds);
    if let Some(g) = run.gpu {
        println!(
            "gpu:          {}: {} rounds, kernels {:.3} s, device loop {:.3} s, upload {:.3} s, setup {:.3} s",
            g.device_name, g.rounds, g.kernel_seconds, g.device_seconds, g.upload_seconds, g.setup_seconds
        );
        println!(
            "certificate:  {:.3} s; {} of {} component(s) finished on the CPU ({} rounds)",
            g.certify_seconds,
            g.fallbacks,
            s.components.len(),
            g.fallback_rounds
        );
    }
    if run.per_scc {
        println!("components (representative, vertices, edges, value, decimal):");
        for c in &s.components {
            let r = run.vertex(c.representative);
            println!("  {r:>10} {:>10} {:>10}  {}  {}", c.vertices, c.edges, c.value, c.value.decimal(6));
        }
    }
}
