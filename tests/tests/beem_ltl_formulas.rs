//! BEEM's LTL formulas through our own translation: for every LTL property of every
//! `model.xml` and every instance with its property file (`model.i.propN.dve`, BEEM's
//! automaton of the same formula), the formula checked on the plain instance
//! (`model.i.dve`, propositions expanded for the instance as labels, the negated
//! formula's automaton wrapped around it by `warpcheck_model::Product`) gives the
//! property file's
//! verdict, and the reference verdict of `ltl-reference.csv` where it has one; every
//! counterexample is a valid lasso.
//!
//! By default: the instances with at most 200,000 states in `reference.csv` (the limit
//! of `beem_ltl.rs`). Every instance, with the files' verdicts too (long; with
//! `WARPCHECK_MAX_STATES=N`, instances of at most N states), and the formulas violated
//! by the reference on instances above `WARPCHECK_MAX_STATES` or of unknown size, each
//! check bounded by `WARPCHECK_MAX_PRODUCT` product states (default 30 M; beyond, the
//! formula counts as undecided):
//! `cargo test --release -p warpcheck-conformance --test beem_ltl_formulas -- --ignored --nocapture`
//!
//! The checks run nested DFS; the bounded ones (the last two tests) run CNDFS instead
//! with `WARPCHECK_LTL_ALGORITHM=cndfs`, on `WARPCHECK_LTL_THREADS` workers (default 2).

use std::collections::HashMap;
use std::path::Path;

use warpcheck_conformance::beem_xml::LtlFormula;
use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
use warpcheck_liveness::{check, Algorithm, LtlError, Options};
use warpcheck_ltl::formula::parse;
use warpcheck_model::Product;

fn word(holds: bool) -> &'static str {
    if holds {
        "holds"
    } else {
        "violated"
    }
}

/// The algorithm of the bounded checks: nested DFS, or CNDFS with
/// `WARPCHECK_LTL_ALGORITHM=cndfs`.
fn bounded_algorithm() -> Algorithm {
    match std::env::var("WARPCHECK_LTL_ALGORITHM").as_deref() {
        Err(_) | Ok("ndfs") => Algorithm::Ndfs,
        Ok("cndfs") => Algorithm::Cndfs,
        Ok(other) => panic!("WARPCHECK_LTL_ALGORITHM: `{other}` is not ndfs or cndfs"),
    }
}

/// The verdict of `f` through our translation, checked against the property file's
/// (both with `algorithm`, nested DFS or CNDFS, the latter on a pool of
/// `WARPCHECK_LTL_THREADS` threads) and `reference`. With `limit`, a product of more
/// states leaves the formula undecided: `Ok(false)`.
fn compare(
    beem: &Path,
    f: &LtlFormula,
    reference: Option<bool>,
    limit: Option<u64>,
    algorithm: Algorithm,
    verbose: bool,
) -> Result<bool, String> {
    let file = f.property_file();
    let options = Options { algorithm, max_states: limit, ..Options::default() };
    let threads = env_u64("WARPCHECK_LTL_THREADS").unwrap_or(2).max(1) as usize;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let undecided = |e: &LtlError| limit.is_some() && matches!(e, LtlError::TooManyStates { .. });
    let (instance, automaton) = formula_labels(beem, f)?;
    let automaton_states = automaton.accepting.len();
    let product = Product::new(&instance.model, automaton);
    let ours = match pool.install(|| check(&product, &options)) {
        Err(e) if undecided(&e) => return Ok(false),
        result => result.map_err(|e| format!("{file} (formula): {e}"))?,
    };
    if let Some(lasso) = &ours.lasso {
        validate_lasso(&product, lasso).map_err(|e| format!("{file} (formula): bad lasso: {e}"))?;
    }
    let property_model = load_product(&property_path(beem, &file));
    let theirs = match pool.install(|| check(&property_model, &options)) {
        Err(e) if undecided(&e) => return Ok(false),
        result => result.map_err(|e| format!("{file}: {e}"))?,
    };
    if let Some(lasso) = &theirs.lasso {
        validate_lasso(&property_model, lasso).map_err(|e| format!("{file}: bad lasso: {e}"))?;
    }
    if verbose {
        eprintln!(
            "{file} `{}`: {} by {} (automaton {} states, {} product states; property file {} product states)",
            f.formula,
            word(ours.holds()),
            algorithm.name(),
            automaton_states,
            ours.states,
            theirs.states
        );
    }
    if ours.holds() != theirs.holds() {
        return Err(format!(
            "{file} `{}`: {} by our translation, {} by the property file",
            f.formula,
            word(ours.holds()),
            word(theirs.holds())
        ));
    }
    if let Some(r) = reference.filter(|&r| r != ours.holds()) {
        return Err(format!("{file} `{}`: {}, reference {}", f.formula, word(ours.holds()), word(r)));
    }
    Ok(true)
}

/// Checks the formulas whose instance has at most `max_states` states (`None`: all);
/// returns how many were checked and how many had a reference verdict.
fn check_formulas(max_states: Option<u64>, verbose: bool) -> (usize, usize) {
    let beem = beem_dir();
    let references: HashMap<String, bool> =
        ltl_references(&beem).into_iter().map(|r| (r.property_file, r.holds)).collect();
    let chosen: Vec<LtlFormula> = beem_formulas(&beem)
        .into_iter()
        .filter(|(_, size)| max_states.is_none_or(|m| size.is_some_and(|s| s <= m)))
        .map(|(f, _)| f)
        .collect();
    let failures = parallel_failures(&chosen, |f| {
        compare(&beem, f, references.get(&f.property_file()).copied(), None, Algorithm::Ndfs, verbose).map(|_| ())
    });
    assert!(failures.is_empty(), "{} of {} formulas fail:\n{}", failures.len(), chosen.len(), failures.join("\n"));
    let referenced = chosen.iter().filter(|f| references.contains_key(&f.property_file())).count();
    (chosen.len(), referenced)
}

/// Every formula parses, and its automaton is no larger than BEEM's (the property
/// process of the corresponding file, made by LTL2BA).
#[test]
fn every_beem_formula_translates_to_an_automaton_no_larger_than_beems() {
    let beem = beem_dir();
    let all = beem_formulas(&beem);
    assert_eq!(all.len(), 375, "every property file has its formula in model.xml");
    let failures = parallel_failures(&all, |(f, _)| {
        let parsed = parse(&f.formula).map_err(|e| e.render(&f.formula))?;
        let ours = warpcheck_ltl::buchi::translate(&parsed.ltl, true, parsed.atoms.len()).map_err(|e| e.to_string())?;
        let model = load_file(&property_path(&beem, &f.property_file())).model;
        let theirs = model.property_automaton().ok_or("no property process")?.states.len();
        if ours.states() > theirs {
            return Err(format!("{} `{}`: {} states, BEEM's {theirs}", f.property_file(), f.formula, ours.states()));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} automata are larger:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn small_instances_agree_with_their_property_files() {
    let (checked, referenced) = check_formulas(Some(200_000), false);
    eprintln!("{checked} formulas on small instances ({referenced} with a reference verdict) agree");
    assert_eq!((checked, referenced), (158, 158), "the BEEM folder changed: update the expected numbers");
}

#[test]
#[ignore = "every instance with a property file, up to tens of millions of product states: long"]
fn all_instances_agree_with_their_property_files() {
    let max = env_u64("WARPCHECK_MAX_STATES");
    let (checked, referenced) = check_formulas(max, true);
    eprintln!("{checked} formulas ({referenced} with a reference verdict) agree with their property files");
}

#[test]
#[ignore = "violated formulas on large instances: long"]
fn violated_formulas_on_large_instances_agree_with_their_property_files() {
    let beem = beem_dir();
    let max = env_u64("WARPCHECK_MAX_STATES").unwrap_or(200_000);
    let violated: HashMap<String, bool> =
        ltl_references(&beem).into_iter().filter(|r| !r.holds).map(|r| (r.property_file, r.holds)).collect();
    let chosen: Vec<(LtlFormula, Option<bool>)> = beem_formulas(&beem)
        .into_iter()
        .filter(|(f, size)| violated.contains_key(&f.property_file()) && size.is_none_or(|s| s > max))
        .map(|(f, _)| (f, Some(false)))
        .collect();
    check_bounded(&beem, &chosen);
}

/// The formulas of the property files named in `WARPCHECK_LTL_FILES` (any size, with
/// a reference or not), each check bounded like the test above.
#[test]
#[ignore = "named formulas, of any size: long"]
fn named_formulas_agree_with_their_property_files() {
    let beem = beem_dir();
    let names = named_files().expect("set WARPCHECK_LTL_FILES=model.i.propN,...");
    let references: HashMap<String, bool> =
        ltl_references(&beem).into_iter().map(|r| (r.property_file, r.holds)).collect();
    let chosen: Vec<(LtlFormula, Option<bool>)> = beem_formulas(&beem)
        .into_iter()
        .filter(|(f, _)| names.contains(&f.property_file()))
        .map(|(f, _)| {
            let reference = references.get(&f.property_file()).copied();
            (f, reference)
        })
        .collect();
    assert!(!chosen.is_empty(), "no BEEM formula for {names:?}");
    check_bounded(&beem, &chosen);
}

/// Compares each formula with its property file (and its reference, if any), every
/// check bounded by `WARPCHECK_MAX_PRODUCT` product states (default 30 M; beyond, the
/// formula is undecided and listed).
fn check_bounded(beem: &Path, chosen: &[(LtlFormula, Option<bool>)]) {
    let limit = env_u64("WARPCHECK_MAX_PRODUCT").unwrap_or(30_000_000);
    let decided = std::sync::atomic::AtomicUsize::new(0);
    let failures = parallel_failures(chosen, |(f, reference)| {
        let done = compare(beem, f, *reference, Some(limit), bounded_algorithm(), true)?;
        if done {
            decided.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else {
            eprintln!("UNDECIDED {} (more than {limit} product states)", f.property_file());
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} formulas fail:\n{}", failures.len(), chosen.len(), failures.join("\n"));
    eprintln!("{} of {} formulas agree; the others undecided", decided.into_inner(), chosen.len());
}
