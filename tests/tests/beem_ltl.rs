//! LTL verdicts of BEEM's property files (`*.propN.dve`): every accepting-cycle
//! algorithm (nested DFS, sequential and parallel (CNDFS) on 2 threads; OWCTY and MAP,
//! parallel on 2 threads and sequential, on one product graph built on the same 2
//! threads) gives the verdict of
//! `ltl-reference.csv`, and every counterexample is a valid lasso (checked with a fresh
//! `Generator`: real steps from the initial state, a cycle back to its first state
//! through an accepting state).
//!
//! By default: the property files whose instance has at most 200,000 states in
//! `reference.csv`. All 331 files with a reference, and the verdicts of the files
//! without one (ignored by default; minutes on 16 cores, much longer on 2):
//! `cargo test --release -p warpcheck-conformance --test beem_ltl -- --ignored --nocapture`
//! (`WARPCHECK_MIN_STATES` and `WARPCHECK_MAX_STATES` bound the instances' states).
//!
//! For the large products, the ignored tests also take:
//! - `WARPCHECK_LTL_FILES=a.4.prop2,b.5.prop3`: exactly these property files (the size
//!   bounds do not apply);
//! - `WARPCHECK_LTL_THREADS` (default 2): threads of the graph building and of each
//!   parallel algorithm (CNDFS's workers);
//! - `WARPCHECK_LTL_JOBS` (default: one per core): property files checked at once;
//! - `WARPCHECK_LTL_ALGORITHMS=ndfs,owcty`: only these algorithms (default: all six).
//!   A run that leaves one out checks less: say so wherever its result is quoted;
//! - `WARPCHECK_LTL_MEMORY=BYTES`: the memory budget of the product graph's store
//!   and of CNDFS (the table grows in place up to it; a full table is an error);
//! - `WARPCHECK_LTL_CONCURRENT=1`: the OWCTY and MAP variants at once on the shared
//!   product graph (faster on many cores, more memory; their times then overlap);
//! - `WARPCHECK_LTL_INCREMENTAL=N`: the OWCTY and MAP variants on breadth-first
//!   prefixes of the product of N, 8N, 64N, ... states, until they find a cycle or
//!   the prefix is the whole product (lines of a cycle found in a prefix say so);
//! - `WARPCHECK_LTL_SEED=N`: every algorithm in the random successor order of seed N
//!   (OWCTY and MAP on depth-first prefixes, of `WARPCHECK_LTL_INCREMENTAL` expanded
//!   states first, default 1,000,000).

use std::collections::HashMap;

use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
use warpcheck_liveness::{check, check_product_graph, next_prefix, Algorithm, Options, Outcome, ProductBuilder};

/// Threads of each parallel algorithm (`WARPCHECK_LTL_THREADS`, default 2).
fn threads() -> usize {
    env_u64("WARPCHECK_LTL_THREADS").unwrap_or(2).max(1) as usize
}

/// The algorithms to run (`WARPCHECK_LTL_ALGORITHMS`, default all six).
fn algorithms() -> Vec<Algorithm> {
    match std::env::var("WARPCHECK_LTL_ALGORITHMS") {
        Err(_) => Algorithm::ALL.to_vec(),
        Ok(names) => names
            .split(',')
            .map(|n| {
                Algorithm::ALL
                    .into_iter()
                    .find(|a| a.name() == n.trim())
                    .unwrap_or_else(|| panic!("WARPCHECK_LTL_ALGORITHMS: no algorithm `{n}`"))
            })
            .collect(),
    }
}

/// Runs `job` on every item, `WARPCHECK_LTL_JOBS` at once (default: one per core), in
/// order; collects the `Err`s.
fn failures_of<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<(), String> + Sync) -> Vec<String> {
    match env_u64("WARPCHECK_LTL_JOBS") {
        Some(jobs) => parallel_failures_with(jobs as usize, items, job),
        None => parallel_failures(items, job),
    }
}

/// How to check property files: which algorithms, whether in prefixes, in which
/// successor order (`seed`: every algorithm through `check` with `Options::seed`, so
/// OWCTY and MAP on depth-first prefixes), whether to print a line per algorithm.
#[derive(Clone)]
struct Plan {
    algorithms: Vec<Algorithm>,
    incremental: Option<u64>,
    seed: Option<u64>,
    verbose: bool,
}

impl Plan {
    /// The plan of the ignored tests: `WARPCHECK_LTL_ALGORITHMS`,
    /// `WARPCHECK_LTL_INCREMENTAL`, verbose.
    fn from_env() -> Plan {
        Plan {
            algorithms: algorithms(),
            incremental: env_u64("WARPCHECK_LTL_INCREMENTAL"),
            seed: env_u64("WARPCHECK_LTL_SEED"),
            verbose: true,
        }
    }
}

/// Runs every algorithm on one property file; the verdict (`true`: holds) if they
/// agree and every counterexample is valid. The product graph is built once (on the
/// pool of `WARPCHECK_LTL_THREADS`) and every OWCTY and MAP variant runs on it, one
/// after the other or, with `WARPCHECK_LTL_CONCURRENT=1`, all at once (the sequential
/// ones on threads of their own); each line's time is the graph's plus the
/// algorithm's own. With `incremental`, the graph is built in breadth-first prefixes
/// (`Options::incremental`, each continuing the last), all variants on each, until
/// they find a cycle or the prefix is the whole product; times then add up the rounds.
fn verdict_of(beem: &std::path::Path, file: &str, plan: &Plan) -> Result<bool, String> {
    let verbose = plan.verbose;
    let model = load_product(&property_path(beem, file));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads()).build().unwrap();
    let (graph_algorithms, others): (Vec<Algorithm>, Vec<Algorithm>) =
        plan.algorithms.iter().partition(|&&a| !a.on_the_fly() && plan.seed.is_none());
    let mut verdicts = Vec::new();
    for algorithm in others {
        let options = Options { algorithm, seed: plan.seed, incremental: plan.incremental, ..Options::default() };
        let outcome = pool.install(|| check(&model, &options)).map_err(|e| format!("{file}: {e}"))?;
        verdicts.push(report(&model, file, algorithm, &outcome, verbose)?);
    }
    let options = Options { memory: env_u64("WARPCHECK_LTL_MEMORY"), ..Options::default() };
    let mut prefix = plan.incremental.map(|p| p.max(1));
    let mut spent = vec![0.0; graph_algorithms.len()];
    let mut graph_spent = 0.0;
    let mut builder = pool.install(|| ProductBuilder::new(&model, &options)).map_err(|e| format!("{file}: {e}"))?;
    while !graph_algorithms.is_empty() {
        let graph = builder.next(prefix).map_err(|e| format!("{file}: {e}"))?;
        let run = |algorithm: Algorithm| {
            if algorithm.parallel() {
                pool.install(|| check_product_graph(&model, &graph, algorithm))
            } else {
                check_product_graph(&model, &graph, algorithm)
            }
        };
        let mut outcomes: Vec<Outcome> = if env_u64("WARPCHECK_LTL_CONCURRENT") == Some(1) {
            std::thread::scope(|s| {
                let handles: Vec<_> = graph_algorithms.iter().map(|&a| s.spawn(move || run(a))).collect();
                handles.into_iter().map(|h| h.join().expect("an algorithm panicked")).collect()
            })
        } else {
            graph_algorithms.iter().map(|&a| run(a)).collect()
        };
        graph_spent += graph.seconds;
        for (outcome, spent) in outcomes.iter_mut().zip(&mut spent) {
            *spent += outcome.seconds;
            outcome.seconds = *spent;
            outcome.graph_seconds = Some(graph_spent);
        }
        if graph.built.complete || outcomes.iter().any(|o| !o.holds()) {
            for (&algorithm, outcome) in graph_algorithms.iter().zip(&outcomes) {
                verdicts.push(report(&model, file, algorithm, outcome, verbose)?);
            }
            break;
        }
        prefix = prefix.map(|p| next_prefix(p, graph.built.states() as u64));
    }
    if verdicts.iter().any(|&(_, v)| v != verdicts[0].1) {
        return Err(format!("{file}: the algorithms disagree: {verdicts:?}"));
    }
    Ok(verdicts[0].1)
}

/// Replays the lasso of `outcome` (if any) and prints its line; the algorithm and
/// whether the property holds.
fn report(
    model: &impl warpcheck_model::Model,
    file: &str,
    algorithm: Algorithm,
    outcome: &Outcome,
    verbose: bool,
) -> Result<(Algorithm, bool), String> {
    if let Some(lasso) = &outcome.lasso {
        validate_lasso(model, lasso).map_err(|e| format!("{file} ({}): bad lasso: {e}", algorithm.name()))?;
    }
    if verbose {
        eprintln!(
            "{file} {}: {} ({} states, {:.2} s{}{}{})",
            algorithm.name(),
            if outcome.holds() { "holds" } else { "violated" },
            outcome.states,
            outcome.seconds,
            outcome.graph_seconds.map_or(String::new(), |g| format!(", graph {g:.2} s")),
            outcome.lasso.as_ref().map_or(String::new(), |l| format!(", lasso {}+{}", l.stem.len(), l.cycle.len())),
            if outcome.partial { ", in a prefix" } else { "" },
        );
    }
    Ok((algorithm, outcome.holds()))
}

/// Checks the referenced property files whose instance has at least `min_states` and
/// at most `max_states` states (`None`: all, listed in `reference.csv` or not);
/// returns how many.
fn check_references(min_states: u64, max_states: Option<u64>, plan: &Plan) -> usize {
    let beem = beem_dir();
    let sizes: HashMap<String, u64> = references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let rows: Vec<LtlReference> = ltl_references(&beem)
        .into_iter()
        .filter(|r| max_states.is_none_or(|m| sizes.get(r.instance()).is_some_and(|&s| s <= m)))
        .filter(|r| min_states == 0 || sizes.get(r.instance()).is_some_and(|&s| s >= min_states))
        .collect();
    check_rows(&beem, &rows, plan)
}

/// Checks the referenced property files of `files`, in that order; every name must
/// have a reference. Returns how many.
fn check_named_references(files: &[String]) -> usize {
    let beem = beem_dir();
    let references = ltl_references(&beem);
    let row = |f: &String| references.iter().find(|r| &r.property_file == f).cloned();
    let rows: Vec<LtlReference> = files
        .iter()
        .map(|f| row(f).unwrap_or_else(|| panic!("WARPCHECK_LTL_FILES: `{f}` has no reference verdict")))
        .collect();
    check_rows(&beem, &rows, &Plan::from_env())
}

/// Every algorithm on every row gives the row's verdict; returns how many rows.
fn check_rows(beem: &std::path::Path, rows: &[LtlReference], plan: &Plan) -> usize {
    let failures = failures_of(rows, |r| {
        let holds = verdict_of(beem, &r.property_file, plan)?;
        if holds != r.holds {
            let word = |h: bool| if h { "holds" } else { "violated" };
            return Err(format!("{}: {}, reference ({}): {}", r.property_file, word(holds), r.source, word(r.holds)));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    rows.len()
}

#[test]
fn small_property_files_give_the_reference_verdicts() {
    let plan = Plan { algorithms: Algorithm::ALL.to_vec(), incremental: None, seed: None, verbose: false };
    assert_eq!(check_references(0, Some(200_000), &plan), 158, "ltl-reference.csv changed: update the expected number");
}

/// OWCTY and MAP on breadth-first prefixes of 64, 512, ... product states: the same
/// verdicts, the violations found in a prefix (a valid lasso) and the properties that
/// hold decided on the whole product.
#[test]
fn small_property_files_give_the_reference_verdicts_in_prefixes() {
    let graph_algorithms = Algorithm::ALL.into_iter().filter(|&a| !a.on_the_fly()).collect();
    let plan = Plan { algorithms: graph_algorithms, incremental: Some(64), seed: None, verbose: false };
    assert_eq!(check_references(0, Some(200_000), &plan), 158, "ltl-reference.csv changed: update the expected number");
}

/// In a seeded random successor order: nested DFS and CNDFS, and OWCTY and MAP on
/// depth-first prefixes of 64, 512, ... expanded states: the same verdicts, the
/// violations found in a prefix (a valid lasso) and the properties that hold decided
/// when the depth-first search expanded every state. (The semi-external search
/// takes no seed.)
#[test]
fn small_property_files_give_the_reference_verdicts_with_a_seed() {
    let algorithms = Algorithm::ALL.into_iter().filter(|&a| a != Algorithm::SemiExternal).collect();
    let plan = Plan { algorithms, incremental: Some(64), seed: Some(11), verbose: false };
    assert_eq!(check_references(0, Some(200_000), &plan), 158, "ltl-reference.csv changed: update the expected number");
}

/// OWCTY and MAP decide anderson.7.prop4 on a depth-first prefix in a seed's order: its
/// product has more than 3.4 billion states, and its breadth-first prefixes of 800
/// million states hold no accepting cycle.
#[test]
fn graph_algorithms_decide_a_deep_violation_on_a_depth_first_prefix() {
    let beem = beem_dir();
    let model = load_product(&property_path(&beem, "anderson.7.prop4"));
    for algorithm in Algorithm::ALL.into_iter().filter(|a| !a.on_the_fly()) {
        let options = Options { algorithm, seed: Some(1), incremental: Some(100_000), ..Options::default() };
        let outcome = check(&model, &options).unwrap_or_else(|e| panic!("{}: {e}", algorithm.name()));
        assert!(!outcome.holds() && outcome.partial, "{}: violated on a prefix", algorithm.name());
        assert!(outcome.states < 1_000_000, "{}: {} states", algorithm.name(), outcome.states);
        validate_lasso(&model, outcome.lasso.as_ref().expect("a lasso")).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
#[ignore = "every referenced property file, up to tens of millions of product states: long"]
fn all_property_files_give_the_reference_verdicts() {
    let checked = match named_files() {
        Some(files) => check_named_references(&files),
        None => check_references(
            env_u64("WARPCHECK_MIN_STATES").unwrap_or(0),
            env_u64("WARPCHECK_MAX_STATES"),
            &Plan::from_env(),
        ),
    };
    let names: Vec<&str> = algorithms().iter().map(|a| a.name()).collect();
    eprintln!("{checked} property files: {} give the reference verdict", names.join(", "));
}

#[test]
#[ignore = "the property files without a reference verdict are large: long"]
fn property_files_without_a_reference_agree() {
    let beem = beem_dir();
    let known: Vec<String> = ltl_references(&beem).into_iter().map(|r| r.property_file).collect();
    let files: Vec<String> = all_property_files(&beem)
        .into_iter()
        .filter(|f| !known.contains(f))
        .filter(|f| named_files().is_none_or(|named| named.contains(f)))
        .collect();
    let failures = failures_of(&files, |f| {
        let holds = verdict_of(&beem, f, &Plan::from_env())?;
        eprintln!("NEW VERDICT {f}: {}", if holds { "holds" } else { "violated" });
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// anderson.7.prop4 (violated; its product has more than 3.4 billion states): nested
/// DFS in the model's order finds no cycle among its first 2 million states, while in
/// the random orders of seeds 1 to 5 it finds one after fewer than 200,000, a valid
/// lasso each time.
#[test]
fn a_seeded_nested_dfs_finds_the_cycle_the_model_order_misses() {
    let beem = beem_dir();
    let model = load_product(&property_path(&beem, "anderson.7.prop4"));
    let bounded = |seed: Option<u64>| {
        let options = Options { algorithm: Algorithm::Ndfs, max_states: Some(2_000_000), seed, ..Options::default() };
        check(&model, &options)
    };
    assert!(
        matches!(bounded(None), Err(warpcheck_liveness::LtlError::TooManyStates { .. })),
        "the model's order finds a cycle within 2 million states: this test no longer shows what a seed does"
    );
    for seed in 1..=5 {
        let outcome = bounded(Some(seed)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(!outcome.holds(), "seed {seed}: violated in the reference");
        assert!(outcome.states < 200_000, "seed {seed}: {} states", outcome.states);
        let lasso = outcome.lasso.as_ref().expect("a violation has a lasso");
        validate_lasso(&model, lasso).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// The semi-external search with 128 KiB of memory: a 64 KiB successor buffer and at
/// most 16 KiB of each search stack in memory, the rest of it on disk. The reference
/// verdicts and valid lassos on the property files of instances up to 200,000 states;
/// on many of them the stacks did move frames to disk.
#[test]
fn semi_external_stacks_on_disk_give_the_reference_verdicts() {
    let beem = beem_dir();
    let sizes: HashMap<String, u64> = references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let rows: Vec<LtlReference> =
        ltl_references(&beem).into_iter().filter(|r| sizes.get(r.instance()).is_some_and(|&s| s <= 200_000)).collect();
    let on_disk = std::sync::atomic::AtomicUsize::new(0);
    let options = Options { algorithm: Algorithm::SemiExternal, memory: Some(128 << 10), ..Options::default() };
    let failures = failures_of(&rows, |r| {
        let model = load_product(&property_path(&beem, &r.property_file));
        let outcome = check(&model, &options).map_err(|e| format!("{}: {e}", r.property_file))?;
        let (_, holds) = report(&model, &r.property_file, Algorithm::SemiExternal, &outcome, false)?;
        if holds != r.holds {
            return Err(format!("{}: holds {holds}, reference ({}) {}", r.property_file, r.source, r.holds));
        }
        let disk = outcome.disk.as_ref().expect("the semi-external search's disk use");
        on_disk.fetch_add((disk.stack_disk_bytes > 0) as usize, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    let on_disk = on_disk.into_inner();
    eprintln!("{} property files, {on_disk} with stack frames on disk", rows.len());
    assert!(rows.len() >= 100 && on_disk >= rows.len() / 4, "{} files, {on_disk} with frames on disk", rows.len());
}
