//! LTL verdicts of BEEM's property files (`*.propN.dve`): every accepting-cycle
//! algorithm (nested DFS, parallel OWCTY on 2 threads, sequential OWCTY) gives the
//! verdict of `ltl-reference.csv`, and every counterexample is a valid lasso (checked
//! with a fresh `Generator`: real steps from the initial state, a cycle back to its
//! first state through an accepting state).
//!
//! By default: the property files whose instance has at most 200,000 states in
//! `reference.csv`. All 331 files with a reference, and the verdicts of the files
//! without one (ignored by default; minutes on 16 cores, much longer on 2):
//! `cargo test --release -p warpcheck-conformance --test beem_ltl -- --ignored --nocapture`
//! (`WARPCHECK_MIN_STATES` and `WARPCHECK_MAX_STATES` bound the instances' states).

use std::collections::HashMap;
use std::time::Instant;

use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
use warpcheck_ltl::{check, Algorithm, Options};

/// Runs every algorithm on one property file; the verdict (`true`: holds) if they
/// agree and every counterexample is valid.
fn verdict_of(beem: &std::path::Path, file: &str, verbose: bool) -> Result<bool, String> {
    let model = load_file(&property_path(beem, file)).model;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut verdicts = Vec::new();
    for algorithm in Algorithm::ALL {
        let options = Options { algorithm, ..Options::default() };
        let start = Instant::now();
        let outcome = pool.install(|| check(&model, &options)).map_err(|e| format!("{file}: {e}"))?;
        if let Some(lasso) = &outcome.lasso {
            validate_lasso(&model, lasso).map_err(|e| format!("{file} ({}): bad lasso: {e}", algorithm.name()))?;
        }
        if verbose {
            eprintln!(
                "{file} {}: {} ({} states, {:.2} s{})",
                algorithm.name(),
                if outcome.holds() { "holds" } else { "violated" },
                outcome.states,
                start.elapsed().as_secs_f64(),
                outcome.lasso.as_ref().map_or(String::new(), |l| format!(", lasso {}+{}", l.stem.len(), l.cycle.len())),
            );
        }
        verdicts.push((algorithm, outcome.holds()));
    }
    if verdicts.iter().any(|&(_, v)| v != verdicts[0].1) {
        return Err(format!("{file}: the algorithms disagree: {verdicts:?}"));
    }
    Ok(verdicts[0].1)
}

/// Checks the referenced property files whose instance has at least `min_states` and
/// at most `max_states` states (`None`: all, listed in `reference.csv` or not);
/// returns how many.
fn check_references(min_states: u64, max_states: Option<u64>, verbose: bool) -> usize {
    let beem = beem_dir();
    let sizes: HashMap<String, u64> = references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let rows: Vec<LtlReference> = ltl_references(&beem)
        .into_iter()
        .filter(|r| max_states.is_none_or(|m| sizes.get(r.instance()).is_some_and(|&s| s <= m)))
        .filter(|r| min_states == 0 || sizes.get(r.instance()).is_some_and(|&s| s >= min_states))
        .collect();
    let failures = parallel_failures(&rows, |r| {
        let holds = verdict_of(&beem, &r.property_file, verbose)?;
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
    assert_eq!(check_references(0, Some(200_000), false), 158, "ltl-reference.csv changed: update the expected number");
}

#[test]
#[ignore = "every referenced property file, up to tens of millions of product states: long"]
fn all_property_files_give_the_reference_verdicts() {
    let bound = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let checked = check_references(bound("WARPCHECK_MIN_STATES").unwrap_or(0), bound("WARPCHECK_MAX_STATES"), true);
    eprintln!("{checked} property files: every algorithm gives the reference verdict");
}

#[test]
#[ignore = "the property files without a reference verdict are large: long"]
fn property_files_without_a_reference_agree() {
    let beem = beem_dir();
    let known: Vec<String> = ltl_references(&beem).into_iter().map(|r| r.property_file).collect();
    let files: Vec<String> = all_property_files(&beem).into_iter().filter(|f| !known.contains(f)).collect();
    let failures = parallel_failures(&files, |f| {
        let holds = verdict_of(&beem, f, true)?;
        eprintln!("NEW VERDICT {f}: {}", if holds { "holds" } else { "violated" });
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} property files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}
