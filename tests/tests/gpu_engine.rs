//! The GPU engine against the reference and the CPU engine. These tests need a CUDA
//! device, so they are ignored in CI (which has none) and run on the device machine:
//!
//! ```text
//! cargo test --release -p warpcheck-conformance --test gpu_engine -- --ignored --nocapture --test-threads 1
//! ```
//!
//! `WARPCHECK_MIN_STATES` and `WARPCHECK_MAX_STATES` bound the instances explored
//! (default: all of them); `WARPCHECK_TEST_GPUS=N` and `WARPCHECK_TEST_PARTITIONS=N`
//! run every test on the partitioned engine (N GPUs; N partitions, also on one GPU);
//! `WARPCHECK_TEST_GPU_STORE=compressed` on the compressed store;
//! `WARPCHECK_GPU_TABLE=FILE` writes the
//! per-instance results table (markdown).

use std::io::Write;
use std::path::{Path, PathBuf};

use warpcheck_conformance::beem_xml::{reach_goals_in, ReachGoal};
use warpcheck_conformance::*;
use warpcheck_explore::gpu::{explore_gpu, GpuOptions, GpuStore};
use warpcheck_explore::{explore_parallel, Checks, Invariant, Options, ViolationKind};
use warpcheck_store::TablePlan;

fn max_states() -> u64 {
    std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(u64::MAX)
}

/// The engine's options of these tests: one GPU, unless `WARPCHECK_TEST_GPUS` or
/// `WARPCHECK_TEST_PARTITIONS` ask for the partitioned engine; the store of
/// `WARPCHECK_TEST_GPU_STORE`, with `WARPCHECK_TEST_GPU_MEMORY` bytes of device memory.
fn gpu_options() -> GpuOptions<'static> {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let store = match std::env::var("WARPCHECK_TEST_GPU_STORE").as_deref() {
        Ok("compressed") => GpuStore::Compressed,
        Ok("flat") => GpuStore::Flat,
        _ => GpuStore::Auto,
    };
    GpuOptions {
        gpus: var("WARPCHECK_TEST_GPUS").unwrap_or(1),
        partitions: var("WARPCHECK_TEST_PARTITIONS").unwrap_or(0),
        store,
        memory: var("WARPCHECK_TEST_GPU_MEMORY").map(|bytes| bytes as u64),
        ..GpuOptions::default()
    }
}

fn min_states() -> u64 {
    std::env::var("WARPCHECK_MIN_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Every instance of the reference table: states, transitions and deadlocks exact.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_engine_matches_the_reference_on_every_instance() {
    let beem = beem_dir();
    let mut rows: Vec<Reference> =
        references(&beem).into_iter().filter(|r| (min_states()..=max_states()).contains(&r.states)).collect();
    rows.sort_by_key(|r| r.states);
    let mut table = String::from(
        "| instance | states | transitions | deadlocks | reference | compile s | search s | states/s | bytes/state |\n\
         |---|---:|---:|---:|---|---:|---:|---:|---:|\n",
    );
    // Compile every model first, in parallel (NVRTC takes up to seconds per model).
    let compile_failures = parallel_failures(&rows, |r| {
        let mut dve = load_file(&r.model_path(&beem));
        dve.model.overflow = r.overflow();
        let options = gpu_options();
        let partitioned = options.gpus > 1 || options.partitions > 1;
        let order = warpcheck_explore::leaf_order::for_model(&dve.model);
        let source = |g: &warpcheck_model::cuda::CudaSource, t: &warpcheck_explore::gpu::engine::Tuning| {
            if partitioned {
                warpcheck_explore::gpu::partitioned::partitioned_source(g, t)
            } else if options.store == GpuStore::Compressed {
                warpcheck_explore::gpu::engine::compressed_source(g, t, &order)
            } else {
                warpcheck_explore::gpu::engine::tuned_source(g, t)
            }
        };
        warpcheck_explore::gpu::engine::compile_source_for_device(&dve.model, &[], 0, source)
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", r.instance))
    });
    assert!(compile_failures.is_empty(), "compilation failed:\n{}", compile_failures.join("\n"));
    let mut failures = Vec::new();
    for r in &rows {
        let mut dve = load_file(&r.model_path(&beem));
        dve.model.overflow = r.overflow();
        let options = GpuOptions { stop_at_first: false, ..gpu_options() };
        let line = match explore_gpu(&dve.model, &options) {
            Ok(g) => {
                let rep = &g.report;
                let got = (rep.states, rep.transitions, rep.deadlocks);
                let want = (r.states, r.transitions, r.deadlocks.unwrap_or(rep.deadlocks));
                let verdict = if got == want { "exact" } else { "DIFFERS" };
                if got != want {
                    failures.push(format!("{}: GPU {got:?}, reference {want:?}", r.instance));
                }
                format!(
                    "| {} | {} | {} | {} | {verdict} | {:.2} | {:.3} | {:.0} | {:.1} |",
                    r.instance,
                    rep.states,
                    rep.transitions,
                    rep.deadlocks,
                    g.compile_seconds,
                    g.explore_seconds,
                    rep.states as f64 / g.explore_seconds.max(1e-9),
                    g.bytes_per_state
                )
            }
            Err(e) => {
                failures.push(format!("{}: {e}", r.instance));
                format!("| {} | error: {e} | | | FAILED | | | | |", r.instance)
            }
        };
        println!("{line}");
        table.push_str(&line);
        table.push('\n');
    }
    if let Some(path) = std::env::var_os("WARPCHECK_GPU_TABLE") {
        std::fs::File::create(path).and_then(|mut f| f.write_all(table.as_bytes())).expect("write the table");
    }
    assert!(failures.is_empty(), "{} of {} instances failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

/// BEEM's reachability goals, checked as invariants on the GPU: the verdicts and the
/// counterexample lengths equal the CPU engine's (both search breadth first).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_engine_reproduces_the_invariant_verdicts_of_the_cpu_engine() {
    let beem = beem_dir();
    let goals = reach_goals_in(&beem, min_states()..=max_states());
    let sizes: std::collections::HashMap<String, u64> =
        references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    // Small instances in parallel (the CPU engine on one thread each, the GPU engine
    // with a small store each: the GPU runs several explorations at once); large ones
    // one at a time with all cores and the whole GPU.
    let (small, large): (Vec<ReachGoal>, Vec<ReachGoal>) =
        goals.iter().cloned().partition(|g| sizes[&g.instance] <= 5_000_000);
    let mut failures = parallel_failures(&small, |goal| check_goal(&beem, goal, 1, Some(3 << 30)));
    for goal in &large {
        if let Err(e) = check_goal(&beem, goal, std::thread::available_parallelism().map_or(1, |n| n.get()), None) {
            failures.push(e);
        }
    }
    assert!(!goals.is_empty(), "expected BEEM reachability goals, found none");
    assert!(failures.is_empty(), "{} of {} goals differ:\n{}", failures.len(), goals.len(), failures.join("\n"));
}

/// Checks one goal on the CPU engine (`threads`) and on the GPU engine (`memory`):
/// same violations, counts and counterexample lengths, and BEEM's answer.
fn check_goal(beem: &Path, goal: &ReachGoal, threads: usize, memory: Option<u64>) -> Result<(), String> {
    let model_name = goal.instance.rsplit_once('.').unwrap().0;
    let mut dve = load_file(&beem.join(model_name).join(format!("{}.dve", goal.instance)));
    let label = dve.add_predicate(&goal.invariant).expect("BEEM goal compiles");
    let checks = Checks { invariants: vec![Invariant { text: goal.invariant.clone(), label }], ..Checks::default() };
    let cpu = explore_parallel(
        &dve.model,
        &Options {
            threads,
            checks: checks.clone(),
            stop_at_first: false,
            table: TablePlan::new(16, 31),
            ..Options::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let options = GpuOptions { checks, stop_at_first: false, memory, ..gpu_options() };
    let gpu = explore_gpu(&dve.model, &options).map_err(|e| format!("{}: {e}", goal.instance))?.report;
    let summary = |r: &warpcheck_explore::Report| {
        r.violations.iter().map(|v| (v.kind.category(), v.count, v.trace.as_ref().map(|t| t.len()))).collect::<Vec<_>>()
    };
    let (c, g) = (summary(&cpu), summary(&gpu));
    let reached = gpu.violations.iter().any(|v| matches!(v.kind, ViolationKind::Invariant { .. }));
    let name = format!("{} property {}", goal.instance, goal.property);
    println!("{name}: reached = {reached}, violations {g:?}");
    if c != g {
        Err(format!("{name}: GPU {g:?}, CPU {c:?}"))
    } else if goal.reachable.is_some_and(|b| b != reached) {
        Err(format!("{name}: GPU says reached = {reached}, BEEM {:?}", goal.reachable))
    } else {
        Ok(())
    }
}

fn semantics_dir() -> PathBuf {
    let compiled = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics");
    if compiled.is_dir() {
        compiled
    } else {
        PathBuf::from("tests/models/semantics")
    }
}

/// The semantic-rule models with every check on: same counts, same violations with
/// the same counts and counterexample lengths, same step names as the CPU engine.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_engine_agrees_with_the_cpu_engine_on_the_semantic_rule_models() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(semantics_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 30, "semantic-rule models not found");
    let mut failures = Vec::new();
    for path in &files {
        for stop_at_first in [true, false] {
            let dve = load_file(path);
            let checks = Checks { deadlock: true, assertions: true, invariants: vec![] };
            let cpu = explore_parallel(
                &dve.model,
                &Options { threads: 2, checks: checks.clone(), stop_at_first, ..Options::default() },
            )
            .unwrap();
            let options = GpuOptions { checks, stop_at_first, ..gpu_options() };
            let gpu = explore_gpu(&dve.model, &options).unwrap().report;
            let summary = |r: &warpcheck_explore::Report| {
                let v: Vec<_> = r
                    .violations
                    .iter()
                    .map(|v| (v.kind.category(), v.count, v.trace.as_ref().map(|t| t.len())))
                    .collect();
                (r.complete, v)
            };
            let counts = |r: &warpcheck_explore::Report| (r.states, r.transitions, r.deadlocks, r.accepting);
            let name = path.file_name().unwrap().to_string_lossy();
            if !stop_at_first && counts(&cpu) != counts(&gpu) {
                failures.push(format!("{name}: GPU counts {:?}, CPU {:?}", counts(&gpu), counts(&cpu)));
            }
            if summary(&cpu) != summary(&gpu) {
                failures.push(format!(
                    "{name} (stop {stop_at_first}): GPU {:?}\n  CPU {:?}",
                    summary(&gpu),
                    summary(&cpu)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}

/// The kernels of both engines, one store (flat and compressed) and partitioned, and
/// of the LTL checks (one GPU, partitioned), compile with NVRTC for the
/// H100's architecture (sm_90) on a BEEM model with a long state: no device needed,
/// only the library. Run: `LD_LIBRARY_PATH=DIR_OF_LIBNVRTC cargo test -p
/// warpcheck-conformance --test gpu_engine -- --ignored nvrtc`.
#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn both_engines_kernels_compile_with_nvrtc() {
    use warpcheck_explore::gpu::engine::{compressed_source, tuned_source, Tuning};
    use warpcheck_explore::gpu::partitioned::partitioned_source;
    use warpcheck_model::cuda::CudaModel;
    assert!(warpcheck_cuda::nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    let beem = beem_dir();
    let tuning = Tuning::from_env();
    for instance in ["anderson.3", "public_subscribe.5"] {
        let family = instance.split('.').next().expect("a name");
        let model = load_file(&beem.join(family).join(format!("{instance}.dve"))).model;
        let generated = model.cuda_source(&[]).unwrap_or_else(|e| panic!("{instance}: {e}"));
        let order = warpcheck_explore::leaf_order::for_model(&model);
        let sources = [
            tuned_source(&generated, &tuning),
            partitioned_source(&generated, &tuning),
            compressed_source(&generated, &tuning, &order),
            warpcheck_liveness::gpu::cuda_source(&generated, &tuning),
            warpcheck_liveness::gpu::partitioned_cuda_source(&generated, &tuning),
        ];
        for source in sources {
            warpcheck_cuda::nvrtc::compile(&source, 90, &tuning.nvrtc_options())
                .unwrap_or_else(|e| panic!("{instance}: {e}"));
        }
    }
}
