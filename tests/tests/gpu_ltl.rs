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
//! (default: all, with the instances `reference.csv` has no count for): the GPU's
//! verdict with each algorithm is the reference's; product states, transitions and
//! error steps are the CPU's; OWCTY leaves a set of the CPU's size after the CPU's
//! number of iterations; every lasso is valid (checked with a fresh `Generator`).
//! Above `WARPCHECK_CPU_MAX_STATES` instance states the CPU is not run: the two GPU
//! algorithms must then agree on the counts with each other.
//! `WARPCHECK_SKIP=plc` leaves models out;
//! `WARPCHECK_GPU_LTL_ALLOW_FULL=1` lists a product that does not fit in device
//! memory (the engine's `Full` errors) as such instead of failing;
//! `WARPCHECK_GPU_LTL_TABLE=FILE` writes the per-file results (markdown);
//! `WARPCHECK_LTL_FILES=a.6.prop2,...` keeps only these property files;
//! `WARPCHECK_GPU_PARTITIONS=N` (N > 1) checks with the product's store in N
//! partitions of the GPU (`check_gpu_partitioned`, the multi-GPU code on one GPU).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
/// A DVE model with a property automaton, as the engines check it.
type Model = warpcheck_model::Product<warpcheck_dve::Program>;
use warpcheck_explore::gpu::{GpuError, GpuOptions};
use warpcheck_liveness::gpu::{check_gpu, check_gpu_partitioned, compile_for_device, GpuAlgorithm, GpuLtl};
use warpcheck_liveness::{check, Algorithm, Options};

fn max_states() -> u64 {
    env_u64("WARPCHECK_MAX_STATES").unwrap_or(u64::MAX)
}

/// Instances above this many states are checked on the GPU only.
fn cpu_max_states() -> u64 {
    env_u64("WARPCHECK_CPU_MAX_STATES").unwrap_or(u64::MAX)
}

/// Device memory per check: `WARPCHECK_GPU_MEMORY` bytes if set, else 8 GiB for
/// instances up to 2 M states (smaller buffers are set up faster) and all the free
/// memory above.
fn gpu_options(instance_states: u64) -> GpuOptions<'static> {
    let memory = env_u64("WARPCHECK_GPU_MEMORY").or((instance_states <= 2_000_000).then_some(8 << 30));
    GpuOptions { memory, ..GpuOptions::default() }
}

/// `WARPCHECK_GPU_PARTITIONS`: partitions of the product's store (0: one GPU's check).
fn partitions() -> usize {
    env_u64("WARPCHECK_GPU_PARTITIONS").filter(|&p| p > 1).unwrap_or(0) as usize
}

/// The check on one GPU, or over `partitions()` partitions of it.
fn check_on_gpu(model: &Model, algorithm: GpuAlgorithm, instance_states: u64) -> Result<GpuLtl, GpuError> {
    check_with(model, algorithm, gpu_options(instance_states))
}

/// The check with `options`, over `partitions()` partitions if set.
fn check_with(model: &Model, algorithm: GpuAlgorithm, options: GpuOptions<'_>) -> Result<GpuLtl, GpuError> {
    let options = GpuOptions { partitions: partitions(), ..options };
    if options.partitions > 1 {
        check_gpu_partitioned(model, algorithm, &options)
    } else {
        check_gpu(model, algorithm, &options)
    }
}

fn allow_full() -> bool {
    std::env::var_os("WARPCHECK_GPU_LTL_ALLOW_FULL").is_some()
}

/// Models left out (`WARPCHECK_SKIP=plc,...`): e.g. plc, whose 1.9 MB files take
/// NVRTC minutes each.
fn skipped() -> Vec<String> {
    std::env::var("WARPCHECK_SKIP").map_or(Vec::new(), |v| v.split(',').map(str::to_string).collect())
}

/// Whether `property_file` is among `WARPCHECK_LTL_FILES` (unset: all).
fn named(property_file: &str) -> bool {
    named_files().is_none_or(|files| files.iter().any(|f| f == property_file))
}

fn min_states() -> u64 {
    env_u64("WARPCHECK_MIN_STATES").unwrap_or(0)
}

/// What a row is compared with: the CPU's OWCTY, or (on the GPU only) the counts of
/// the first GPU algorithm that answered.
struct Expected {
    counts: Option<(u64, u64, u64)>,
    owcty: Option<(Option<u64>, Option<u32>)>,
    from_cpu: bool,
}

/// Checks `model` on the GPU with both algorithms against the expected verdict (if
/// known; else the two must agree) and the CPU's OWCTY (instances up to
/// `WARPCHECK_CPU_MAX_STATES`); one table row. Products that do not fit count in
/// `full` when that is allowed.
fn compare(
    name: &str,
    model: &Model,
    holds: Option<bool>,
    instance_states: u64,
    failures: &mut Vec<String>,
    full: &mut Vec<String>,
) -> String {
    let mut expected = Expected { counts: None, owcty: None, from_cpu: false };
    let mut cells = vec![name.to_string()];
    if instance_states <= cpu_max_states() {
        let cpu = check(model, &Options { algorithm: Algorithm::Owcty, ..Options::default() }).expect("CPU OWCTY");
        expected = Expected {
            counts: Some((cpu.states, cpu.transitions, cpu.error_transitions)),
            owcty: Some((cpu.remaining, cpu.iterations)),
            from_cpu: true,
        };
    }
    let mut verdicts = Vec::new();
    for algorithm in [GpuAlgorithm::Owcty, GpuAlgorithm::Map] {
        let what = format!("{name} ({} on the GPU)", algorithm.name());
        match check_on_gpu(model, algorithm, instance_states) {
            Err(e @ (GpuError::Full { .. } | GpuError::EdgesFull { .. } | GpuError::NoCycleInPrefix { .. }))
                if allow_full() =>
            {
                full.push(format!("{what}: {e}"));
                cells.push("does not fit in device memory".into());
            }
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                cells.push(format!("error: {e}"));
            }
            Ok(g) if g.outcome.partial => {
                // The product did not fit: decided on a breadth-first prefix.
                let o = &g.outcome;
                let mut problems = Vec::new();
                if o.holds() || holds == Some(true) {
                    problems.push(format!("verdict {} on a prefix, expected {holds:?}", o.holds()));
                }
                if let Some(Err(e)) = o.lasso.as_ref().map(|l| validate_lasso(model, l)) {
                    problems.push(format!("bad lasso: {e}"));
                }
                if !problems.is_empty() {
                    failures.push(format!("{what}: {}", problems.join("; ")));
                }
                verdicts.push(o.holds());
                cells.push(format!(
                    "violated on a prefix of {} states (gen {:.3} + graph {:.3} + cycle {:.3} s){}",
                    o.states,
                    g.generate_seconds,
                    g.graph_seconds,
                    g.cycle_seconds,
                    if problems.is_empty() { "" } else { " **WRONG**" }
                ));
            }
            Ok(g) => {
                let o = &g.outcome;
                let mut problems = Vec::new();
                if holds.is_some_and(|h| o.holds() != h) {
                    problems.push(format!("verdict {}, expected {holds:?}", o.holds()));
                }
                verdicts.push(o.holds());
                let counts = (o.states, o.transitions, o.error_transitions);
                let want = *expected.counts.get_or_insert(counts);
                if counts != want {
                    let by = if expected.from_cpu { "CPU" } else { "GPU OWCTY" };
                    problems.push(format!("states, transitions, error steps {counts:?}, {by} {want:?}"));
                }
                if algorithm == GpuAlgorithm::Owcty {
                    if let Some(cpu) = expected.owcty.filter(|&cpu| cpu != (o.remaining, o.iterations)) {
                        problems.push(format!(
                            "OWCTY left {:?} after {:?} iterations, CPU {:?} after {:?}",
                            o.remaining, o.iterations, cpu.0, cpu.1
                        ));
                    }
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
    if verdicts.windows(2).any(|w| w[0] != w[1]) {
        failures.push(format!("{name}: GPU OWCTY and MAP disagree on the verdict"));
    }
    let (states, transitions) =
        expected.counts.map_or(("-".into(), "-".into()), |c| (c.0.to_string(), c.1.to_string()));
    cells.insert(1, states);
    cells.insert(2, transitions);
    cells.insert(3, if expected.from_cpu { "CPU and GPU" } else { "GPU" }.into());
    let row = format!("| {} |", cells.join(" | "));
    println!("{row}");
    row
}

/// A property file to check: its name, its instance's states (`u64::MAX` if unknown)
/// and the expected verdict, if any.
struct File {
    name: String,
    instance_states: u64,
    holds: Option<bool>,
}

/// Compiles the `files`' models (in parallel, largest source first: NVRTC takes up to
/// seconds per model, a minute for plc's), then [`compare`]s each; writes the table
/// to `WARPCHECK_GPU_LTL_TABLE`. Returns the failures and the checks that did not fit.
fn check_files(beem: &Path, files: &[File]) -> (Vec<String>, Vec<String>) {
    let models: Vec<Model> = files.iter().map(|f| load_product(&property_path(beem, &f.name))).collect();
    let mut indices: Vec<usize> = (0..models.len()).collect();
    let bytes = |i: usize| std::fs::metadata(property_path(beem, &files[i].name)).map_or(0, |m| m.len());
    indices.sort_by_key(|&i| std::cmp::Reverse(bytes(i)));
    compile_all(&indices.iter().map(|&i| (files[i].name.clone(), &models[i])).collect::<Vec<_>>());
    eprintln!("{} property files compiled", models.len());
    let mut table = String::from(
        "| property file | product states | transitions | counts checked by | GPU OWCTY | GPU MAP |\n\
         |---|---:|---:|---|---|---|\n",
    );
    let (mut failures, mut full) = (Vec::new(), Vec::new());
    for (f, model) in files.iter().zip(&models) {
        table += &compare(&f.name, model, f.holds, f.instance_states, &mut failures, &mut full);
        table.push('\n');
    }
    report(&table, &full);
    (failures, full)
}

/// Compiles every model for device 0, in parallel, in the order given (NVRTC takes up
/// to seconds per model: the kernels are cached for the checks that follow).
fn compile_all(models: &[(String, &Model)]) {
    let failures = parallel_failures(models, |(name, m)| {
        compile_for_device(m, 0, partitions() > 1).map(|_| ()).map_err(|e| format!("{name}: {e}"))
    });
    assert!(failures.is_empty(), "compilation failed:\n{}", failures.join("\n"));
}

/// Writes `table` to `WARPCHECK_GPU_LTL_TABLE` (if set) and lists the checks that did
/// not fit.
fn report(table: &str, full: &[String]) {
    if let Some(path) = std::env::var_os("WARPCHECK_GPU_LTL_TABLE") {
        std::fs::File::create(path).and_then(|mut f| f.write_all(table.as_bytes())).expect("write the table");
    }
    if !full.is_empty() {
        eprintln!("{} checks did not fit in device memory:\n{}", full.len(), full.join("\n"));
    }
}

/// The states of each instance in `reference.csv`.
fn instance_sizes(beem: &Path) -> HashMap<String, u64> {
    references(beem).into_iter().map(|r| (r.instance, r.states)).collect()
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_gives_the_reference_verdicts_and_the_cpu_counts() {
    let beem = beem_dir();
    let sizes = instance_sizes(&beem);
    // Instances without a reference count are larger than any with one.
    let mut files: Vec<File> = ltl_references(&beem)
        .into_iter()
        .map(|r| File {
            instance_states: sizes.get(r.instance()).copied().unwrap_or(u64::MAX),
            name: r.property_file,
            holds: Some(r.holds),
        })
        .filter(|f| (min_states()..=max_states()).contains(&f.instance_states))
        .filter(|f| !skipped().iter().any(|m| f.name.split('.').next() == Some(m.as_str())))
        .filter(|f| named(&f.name))
        .collect();
    files.sort_by(|a, b| (a.instance_states, &a.name).cmp(&(b.instance_states, &b.name)));
    let (failures, full) = check_files(&beem, &files);
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
    eprintln!(
        "{} property files ({} checks did not fit): the GPU's verdicts and counts are right",
        files.len(),
        full.len()
    );
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
        compare(&name, &load_product(&entry.path()), Some(holds), 0, &mut failures, &mut Vec::new());
    }
    assert!(count >= 5, "expected the models of {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The property files without a reference verdict (all of large instances): the GPU's
/// OWCTY and MAP must agree on the verdict and the counts, every lasso valid; the
/// table (`WARPCHECK_GPU_LTL_TABLE`) lists the new verdicts. No CPU run
/// (`WARPCHECK_CPU_MAX_STATES` applies as above).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_on_the_files_without_a_reference() {
    let beem = beem_dir();
    let sizes = instance_sizes(&beem);
    let known: Vec<String> = ltl_references(&beem).into_iter().map(|r| r.property_file).collect();
    let files: Vec<File> = all_property_files(&beem)
        .into_iter()
        .filter(|f| !known.contains(f) && named(f))
        .map(|name| {
            let instance = name.rsplit_once('.').map_or(name.as_str(), |(i, _)| i);
            File { instance_states: sizes.get(instance).copied().unwrap_or(u64::MAX), name, holds: None }
        })
        .collect();
    assert!(!files.is_empty(), "expected property files without a reference in {}", beem.display());
    let (failures, full) = check_files(&beem, &files);
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
    eprintln!(
        "{} property files without a reference ({} checks did not fit): OWCTY and MAP agree",
        files.len(),
        full.len()
    );
}

/// BEEM's formulas through our translation, on the GPU: for every LTL formula of a
/// `model.xml` whose instance has between `WARPCHECK_MIN_STATES` and
/// `WARPCHECK_MAX_STATES` states (unknown counts as larger than any), GPU OWCTY on
/// the instance with our automaton gives the verdict of GPU OWCTY on the property
/// file, and the reference's where there is one; every lasso is valid.
/// `WARPCHECK_LTL_FILES=a.6.prop2,...` keeps only those property files' formulas.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_formulas_agree_with_their_property_files() {
    let beem = beem_dir();
    let references: HashMap<String, bool> =
        ltl_references(&beem).into_iter().map(|r| (r.property_file, r.holds)).collect();
    let chosen: Vec<_> = beem_formulas(&beem)
        .into_iter()
        .filter(|(_, size)| (min_states()..=max_states()).contains(&size.unwrap_or(u64::MAX)))
        .filter(|(f, _)| named(&f.property_file()))
        .collect();
    assert!(!chosen.is_empty(), "no BEEM formula in the bounds");
    // Both models of every pair, compiled in parallel first (NVRTC takes seconds each).
    let models: Vec<(Model, Model)> = chosen
        .iter()
        .map(|(f, _)| {
            let (instance, automaton) = formula_labels(&beem, f).unwrap_or_else(|e| panic!("{e}"));
            (Model::new(instance.model, automaton), load_product(&property_path(&beem, &f.property_file())))
        })
        .collect();
    let all: Vec<(String, &Model)> = chosen
        .iter()
        .zip(&models)
        .flat_map(|((f, _), (r, p))| [(format!("{} (formula)", f.property_file()), r), (f.property_file(), p)])
        .collect();
    compile_all(&all);
    let mut table = String::from(
        "| property file | formula | our automaton | product (ours) | verdict (ours) | product (file) | verdict (file) | reference |\n\
         |---|---|---:|---:|---|---:|---|---|\n",
    );
    let (mut failures, mut full) = (Vec::new(), Vec::new());
    let word = |h: bool| if h { "holds" } else { "violated" };
    for ((f, size), (ready, property_model)) in chosen.iter().zip(&models) {
        let file = f.property_file();
        let options = gpu_options(size.unwrap_or(u64::MAX));
        let mut cells = vec![file.clone(), format!("`{}`", f.formula), ready.automaton.accepting.len().to_string()];
        let mut verdicts = Vec::new();
        for (what, model) in [("formula", ready), ("property file", property_model)] {
            match check_gpu(model, GpuAlgorithm::Owcty, &options) {
                Err(e @ (GpuError::Full { .. } | GpuError::EdgesFull { .. } | GpuError::NoCycleInPrefix { .. }))
                    if allow_full() =>
                {
                    full.push(format!("{file} ({what}): {e}"));
                    cells.extend(["-".to_string(), "does not fit".to_string()]);
                }
                Err(e) => {
                    failures.push(format!("{file} ({what}): {e}"));
                    cells.extend(["-".to_string(), format!("error: {e}")]);
                }
                Ok(g) => {
                    if let Some(Err(e)) = g.outcome.lasso.as_ref().map(|l| validate_lasso(model, l)) {
                        failures.push(format!("{file} ({what}): bad lasso: {e}"));
                    }
                    verdicts.push(g.outcome.holds());
                    cells.extend([g.outcome.states.to_string(), word(g.outcome.holds()).to_string()]);
                }
            }
        }
        let reference = references.get(&file).copied();
        if verdicts.len() == 2 && verdicts[0] != verdicts[1] {
            failures.push(format!(
                "{file} `{}`: {} by our translation, {} by the property file",
                f.formula,
                word(verdicts[0]),
                word(verdicts[1])
            ));
        }
        if let Some(r) = reference.filter(|&r| verdicts.iter().any(|&v| v != r)) {
            failures.push(format!("{file} `{}`: verdicts {verdicts:?}, reference {}", f.formula, word(r)));
        }
        cells.push(reference.map_or("-", word).to_string());
        let row = format!("| {} |", cells.join(" | "));
        println!("{row}");
        table += &row;
        table.push('\n');
    }
    report(&table, &full);
    assert!(failures.is_empty(), "{} of {} formulas fail:\n{}", failures.len(), chosen.len(), failures.join("\n"));
    eprintln!("{} BEEM formulas ({} checks did not fit): our translation agrees on the GPU", chosen.len(), full.len());
}

/// Past the store's room: with device memory for only part of the product (88 MiB,
/// or `WARPCHECK_GPU_MEMORY`), a check decides a violated property on the breadth-first
/// prefix it explored (a valid lasso, `partial`) or ends with `NoCycleInPrefix`; a
/// holding one always ends so (a prefix never proves a property), or holds with the
/// whole product explored. A product whose edges fill their room before the states fill
/// theirs ends with `EdgesFull`, as before (no prefix is taken then). Property files of the instances with 100,000 to 1,000,000
/// states (or `WARPCHECK_MIN_STATES` to `WARPCHECK_MAX_STATES`).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_ltl_decides_violations_on_a_prefix_when_the_product_does_not_fit() {
    let beem = beem_dir();
    let sizes = instance_sizes(&beem);
    let range =
        env_u64("WARPCHECK_MIN_STATES").unwrap_or(100_000)..=env_u64("WARPCHECK_MAX_STATES").unwrap_or(1_000_000);
    let files: Vec<(String, bool)> = ltl_references(&beem)
        .into_iter()
        .filter(|r| sizes.get(r.instance()).is_some_and(|n| range.contains(n)))
        .map(|r| (r.property_file, r.holds))
        .collect();
    let models: Vec<Model> = files.iter().map(|(name, _)| load_product(&property_path(&beem, name))).collect();
    compile_all(&files.iter().map(|(n, _)| n.clone()).zip(models.iter()).collect::<Vec<_>>());
    let memory = env_u64("WARPCHECK_GPU_MEMORY").unwrap_or(88 << 20);
    let (mut failures, mut on_prefix, mut full, mut fit) = (Vec::new(), 0, 0, 0);
    for ((name, holds), model) in files.iter().zip(&models) {
        for algorithm in [GpuAlgorithm::Owcty, GpuAlgorithm::Map] {
            let what = format!("{name} ({})", algorithm.name());
            match check_with(model, algorithm, GpuOptions { memory: Some(memory), ..GpuOptions::default() }) {
                Err(GpuError::Full { .. } | GpuError::EdgesFull { .. } | GpuError::NoCycleInPrefix { .. }) => full += 1,
                Err(e) => failures.push(format!("{what}: {e}")),
                Ok(g) => {
                    let o = &g.outcome;
                    if o.holds() != *holds {
                        failures.push(format!(
                            "{what}: verdict {}, expected {holds} (partial: {})",
                            o.holds(),
                            o.partial
                        ));
                    }
                    if let Some(Err(e)) = o.lasso.as_ref().map(|l| validate_lasso(model, l)) {
                        failures.push(format!("{what}: bad lasso: {e}"));
                    }
                    if o.partial {
                        on_prefix += 1;
                    } else {
                        fit += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{} property files, two algorithms: {on_prefix} checks decided on a prefix, {full} full, {fit} fit whole",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(on_prefix > 0, "no violation was decided on a prefix");
}
