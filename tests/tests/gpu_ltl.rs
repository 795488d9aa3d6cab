//! LTL on the GPU (OWCTY and MAP with the product graph built on the device) against
//! BEEM's verdicts and the CPU. These tests need a CUDA device, so they are ignored in
//! CI (which has none) and run on the device machine:
//!
//! ```text
//! cargo test --release -p warpcheck-conformance --test gpu_ltl -- --ignored --nocapture --test-threads 1
//! ```
//!
//! Every property file of `ltl-reference.csv` whose instance has between
//! `WARPCHECK_MIN_STATES` and `WARPCHECK_MAX_STATES` states in `reference.csv`
//! (default: all): the GPU's verdict
//! with each algorithm is the reference's; product states, transitions and error steps
//! are the CPU's; OWCTY leaves a set of the CPU's size after the CPU's number of
//! iterations; every lasso is valid (checked with a fresh `Generator`).
//! `WARPCHECK_SKIP=plc` leaves models out;
//! `WARPCHECK_GPU_LTL_TABLE=FILE` writes the per-file results (markdown).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
use warpcheck_gpu::ltl::{check_gpu, compile_for_device, GpuAlgorithm};
use warpcheck_gpu::GpuOptions;
use warpcheck_ltl::{check, Algorithm, Options};
use warpcheck_model::Model;

fn max_states() -> u64 {
    std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(u64::MAX)
}

/// Device memory per check (`WARPCHECK_GPU_MEMORY` bytes, default 8 GiB: the instances
/// tested fit, and smaller buffers are set up faster).
fn gpu_options() -> GpuOptions<'static> {
    let memory = std::env::var("WARPCHECK_GPU_MEMORY").ok().and_then(|v| v.parse().ok()).unwrap_or(8 << 30);
    GpuOptions { memory: Some(memory), ..GpuOptions::default() }
}

/// Models left out (`WARPCHECK_SKIP=plc,...`): e.g. plc, whose 1.9 MB files take
/// NVRTC minutes each.
fn skipped() -> Vec<String> {
    std::env::var("WARPCHECK_SKIP").map_or(Vec::new(), |v| v.split(',').map(str::to_string).collect())
}

fn min_states() -> u64 {
    std::env::var("WARPCHECK_MIN_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Checks `model` on the GPU with both algorithms against the CPU's OWCTY and the
/// expected verdict; one table row.
fn compare(name: &str, model: &Model, holds: bool, failures: &mut Vec<String>) -> String {
    let cpu = check(model, &Options { algorithm: Algorithm::Owcty, ..Options::default() }).expect("CPU OWCTY");
    let mut cells = vec![name.to_string(), cpu.states.to_string(), cpu.transitions.to_string()];
    for algorithm in [GpuAlgorithm::Owcty, GpuAlgorithm::Map] {
        let what = format!("{name} ({} on the GPU)", algorithm.name());
        match check_gpu(model, algorithm, &gpu_options()) {
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                cells.push(format!("error: {e}"));
            }
            Ok(g) => {
                let o = &g.outcome;
                let mut problems = Vec::new();
                if o.holds() != holds {
                    problems.push(format!("verdict {}, expected {}", o.holds(), holds));
                }
                let counts = (o.states, o.transitions, o.error_transitions);
                if counts != (cpu.states, cpu.transitions, cpu.error_transitions) {
                    problems.push(format!(
                        "states, transitions, error steps {counts:?}, CPU {:?}",
                        (cpu.states, cpu.transitions, cpu.error_transitions)
                    ));
                }
                if algorithm == GpuAlgorithm::Owcty && (o.remaining, o.iterations) != (cpu.remaining, cpu.iterations) {
                    problems.push(format!(
                        "OWCTY left {:?} after {:?} iterations, CPU {:?} after {:?}",
                        o.remaining, o.iterations, cpu.remaining, cpu.iterations
                    ));
                }
                if let Some(lasso) = &o.lasso {
                    if let Err(e) = validate_lasso(model, lasso) {
                        problems.push(format!("bad lasso: {e}"));
                    }
                }
                if !problems.is_empty() {
                    failures.push(format!("{what}: {}", problems.join("; ")));
                }
                let detail = match algorithm {
                    GpuAlgorithm::Owcty => {
                        format!("{} it., {} left", o.iterations.unwrap_or(0), o.remaining.unwrap_or(0))
                    }
                    GpuAlgorithm::Map => format!("{} rounds", o.iterations.unwrap_or(0)),
                };
                cells.push(format!(
                    "{} ({detail}; gen {:.3} + graph {:.3} + cycle {:.3} s){}",
                    if o.holds() { "holds" } else { "violated" },
                    g.generate_seconds,
                    g.graph_seconds,
                    g.cycle_seconds,
                    if problems.is_empty() { "" } else { " **WRONG**" }
                ));
            }
        }
    }
    let row = format!("| {} |", cells.join(" | "));
    println!("{row}");
    row
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_gives_the_reference_verdicts_and_the_cpu_counts() {
    let beem = beem_dir();
    let sizes: HashMap<String, u64> = references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let mut rows: Vec<(u64, LtlReference)> = ltl_references(&beem)
        .into_iter()
        .filter_map(|r| sizes.get(r.instance()).map(|&s| (s, r)))
        .filter(|&(s, _)| (min_states()..=max_states()).contains(&s))
        .filter(|(_, r)| !skipped().iter().any(|m| r.property_file.split('.').next() == Some(m.as_str())))
        .collect();
    rows.sort_by_key(|(s, r)| (*s, r.property_file.clone()));
    let models: Vec<Model> =
        rows.iter().map(|(_, r)| load_file(&property_path(&beem, &r.property_file)).model).collect();
    // Compile every model first, in parallel (NVRTC takes up to seconds per model).
    let indices: Vec<usize> = (0..models.len()).collect();
    let compile_failures = parallel_failures(&indices, |&i| {
        compile_for_device(&models[i], 0).map(|_| ()).map_err(|e| format!("{}: {e}", rows[i].1.property_file))
    });
    assert!(compile_failures.is_empty(), "compilation failed:\n{}", compile_failures.join("\n"));
    eprintln!("{} property files compiled", models.len());
    let mut table = String::from(
        "| property file | product states | transitions | GPU OWCTY | GPU MAP |\n|---|---:|---:|---|---|\n",
    );
    let mut failures = Vec::new();
    for ((_, r), model) in rows.iter().zip(&models) {
        table += &compare(&r.property_file, model, r.holds, &mut failures);
        table.push('\n');
    }
    if let Some(path) = std::env::var_os("WARPCHECK_GPU_LTL_TABLE") {
        std::fs::File::create(path).and_then(|mut f| f.write_all(table.as_bytes())).expect("write the table");
    }
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    eprintln!("{} property files: the GPU's verdicts and counts are right", rows.len());
}

/// Our own property models (`tests/models/ltl/`): the verdict their name says.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_on_the_rule_models() {
    let dir = std::env::var_os("WARPCHECK_LTL_MODELS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ltl"));
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("the LTL model folder").flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(holds) =
            (if name.starts_with("holds_") { Some(true) } else { name.starts_with("violated_").then_some(false) })
        else {
            continue;
        };
        count += 1;
        compare(&name, &load_file(&entry.path()).model, holds, &mut failures);
    }
    assert!(count >= 5, "expected the models of {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
