//! Shared helpers of the conformance suites: where the BEEM models are, the reference
//! table, and loading a model file with its diagnostic rendered on failure.

pub mod beem_xml;
pub mod ltl;

use std::path::{Path, PathBuf};

use warpcheck_dve::DveModel;
use warpcheck_explore::{explore, BfsOptions, Stats};

/// The BEEM folder (`../shared/beem` from the repository root), or a panic that says
/// clearly that it is missing and how to point the tests at it.
pub fn beem_dir() -> PathBuf {
    let dir = std::env::var_os("WARPCHECK_BEEM")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/beem"));
    assert!(
        dir.join("reference.csv").is_file(),
        "the BEEM benchmark folder is missing: expected {} (shared/beem beside the repository); \
         set WARPCHECK_BEEM to its path",
        dir.display()
    );
    dir
}

/// The networks-of-LTSs folder (`../shared/lts` from the repository root), or a panic
/// that says clearly that it is missing and how to point the tests at it.
pub fn lts_dir() -> PathBuf {
    let dir = std::env::var_os("WARPCHECK_LTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/lts"));
    assert!(
        dir.join("tiny/README.md").is_file() && dir.join("beem-net/counts.csv").is_file(),
        "the networks-of-LTSs test data is missing: expected {} (shared/lts beside the repository); \
         set WARPCHECK_LTS to its path",
        dir.display()
    );
    dir
}

/// One row of `reference.csv`.
#[derive(Clone, Debug)]
pub struct Reference {
    pub instance: String,
    pub states: u64,
    pub transitions: u64,
    /// Absent for rows computed by LTSmin.
    pub deadlocks: Option<u64>,
    /// `divine-2.4` or `ltsmin-3.1`.
    pub source: String,
}

impl Reference {
    /// The overflow rule of the tool that computed the row: DiVinE 2.4's interpreter
    /// raises an error, LTSmin runs DiVinE's compiled C model, where values wrap.
    pub fn overflow(&self) -> warpcheck_dve::Overflow {
        if self.source.starts_with("ltsmin") {
            warpcheck_dve::Overflow::Wrap
        } else {
            warpcheck_dve::Overflow::Error
        }
    }

    /// Path of the instance's model file.
    pub fn model_path(&self, beem: &Path) -> PathBuf {
        let model = self.instance.rsplit_once('.').map_or(&*self.instance, |(m, _)| m);
        beem.join(model).join(format!("{}.dve", self.instance))
    }
}

/// All rows of `reference.csv`.
pub fn references(beem: &Path) -> Vec<Reference> {
    let text = std::fs::read_to_string(beem.join("reference.csv")).expect("read reference.csv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |s: &str| s.parse::<u64>().unwrap_or_else(|_| panic!("bad number `{s}` in `{line}`"));
            Reference {
                instance: f[0].to_string(),
                states: num(f[1]),
                transitions: num(f[2]),
                deadlocks: (!f[3].is_empty()).then(|| num(f[3])),
                source: f[5].to_string(),
            }
        })
        .collect()
}

/// Loads a DVE model, panicking with the rendered diagnostic if it does not load.
pub fn load_file(path: &Path) -> DveModel {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    load_source(&path.display().to_string(), &source)
}

/// Loads DVE source, panicking with the rendered diagnostic if it does not load.
pub fn load_source(name: &str, source: &str) -> DveModel {
    warpcheck_dve::load(source).unwrap_or_else(|d| panic!("{}", d.render(name, source)))
}

/// Loads a DVE model with a property process: the product the LTL engines check.
pub fn load_product(path: &Path) -> warpcheck_model::Product<warpcheck_dve::Program> {
    let model = load_file(path).model;
    let automaton =
        model.property_automaton().unwrap_or_else(|| panic!("{}: no property process", path.display())).clone();
    warpcheck_model::Product::new(model, automaton)
}

/// Compiles `model`'s C with `labels` as invariants on the host (in `dir`) and holds it
/// to the CPU in each of `states`: successors, deadlock, errors, acceptance and the
/// labels; the successors within the source's bound.
pub fn host_c_agrees<M: warpcheck_model::CudaModel>(
    model: &M,
    labels: &[warpcheck_model::LabelId],
    states: &[Vec<u32>],
    dir: &Path,
) -> Result<(), String> {
    use warpcheck_model::Successors;
    let source = model.cuda_source(labels).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let host = warpcheck_model::cuda::host::run_on_host(&source, model.state_words(), labels.len(), states, dir);
    std::fs::remove_dir_all(dir).ok();
    let mut steps = model.successors();
    for (state, got) in states.iter().zip(host?) {
        let (mut successors, mut errors) = (Vec::new(), 0);
        let deadlock = steps.successors(state, |_, r| match r {
            Ok(t) => successors.push(t.to_vec()),
            Err(_) => errors += 1,
        });
        successors.sort();
        let want: Vec<bool> = labels.iter().map(|&l| model.label(state, l).unwrap_or(false)).collect();
        let cpu = (&successors, deadlock, errors, model.is_accepting(state), &want);
        if (&got.successors, got.deadlock, got.errors, got.accepting, &got.invariants) != cpu {
            return Err(format!("state {state:?}: generated {got:?}, CPU {cpu:?}"));
        }
        if successors.len() as u64 + errors as u64 > source.max_successors {
            return Err(format!("state {state:?}: more steps than the bound {}", source.max_successors));
        }
    }
    Ok(())
}

/// Explores a model completely (with its property process: the product, as
/// `warpcheck explore` does).
pub fn explore_all(model: &DveModel) -> Stats {
    match model.model.product() {
        Some(product) => explore(&product, &BfsOptions::default()),
        None => explore(&model.model, &BfsOptions::default()),
    }
}

/// Compares an exploration with a reference row; `Err` describes the difference.
pub fn compare(reference: &Reference, stats: &Stats) -> Result<(), String> {
    let got = (stats.states, stats.transitions, stats.deadlocks);
    let want = (reference.states, reference.transitions, reference.deadlocks.unwrap_or(stats.deadlocks));
    if got == want {
        Ok(())
    } else {
        Err(format!("{}: states/transitions/deadlocks {:?}, reference {:?}", reference.instance, got, want))
    }
}

/// The number in environment variable `name`, if it is set to one.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Runs `job` on every item with one worker per core, collecting the `Err`s.
pub fn parallel_failures<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<(), String> + Sync) -> Vec<String> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    parallel_failures_with(workers, items, job)
}

/// Runs `job` on every item, `workers` at once (items taken in order), collecting the
/// `Err`s, sorted.
pub fn parallel_failures_with<T: Sync>(
    workers: usize,
    items: &[T],
    job: impl Fn(&T) -> Result<(), String> + Sync,
) -> Vec<String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = job(item) {
                        failures.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    f
}

/// Explores a model with the parallel engine on `threads` threads in `order` (no
/// checks); in depth-first order `levels` is 0.
pub fn explore_with_threads(model: &DveModel, threads: usize, order: warpcheck_explore::Order) -> Stats {
    let options =
        warpcheck_explore::Options { threads, traces: false, stop_at_first: false, order, ..Default::default() };
    let r = match model.model.product() {
        Some(product) => warpcheck_explore::explore_parallel(&product, &options),
        None => warpcheck_explore::explore_parallel(&model.model, &options),
    }
    .expect("state table large enough");
    assert!(r.complete, "exploration stopped early");
    Stats {
        states: r.states,
        transitions: r.transitions,
        deadlocks: r.deadlocks,
        levels: r.levels,
        accepting: r.accepting,
        error_transitions: r.error_transitions,
        error_state: r.error_transitions > 0,
        ..Stats::default()
    }
}
