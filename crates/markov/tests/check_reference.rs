//! Every property of every shared instance (`reference.json`, and the CTMC and reward
//! properties of `reference-ctmc-rewards.json`) checked with the default, sound method:
//! the value within 1e-6 of the reference (relative for values above 1; 1e-5 relative
//! for Storm's floating-point CTMC values, whose own precision is 1e-6 relative), and the
//! bounds around the exact value where the reference has one.
//!
//! `WARPCHECK_CHECK_ONLY=id,id` restricts the run to some instances.

mod common;

use std::path::Path;
use std::time::Instant;

use serde_json::Value;
use warpcheck_markov::check::{check, parse, Options};
use warpcheck_markov::explicit::read_trew;
use warpcheck_markov::{ModelType, RewardModel, SparseModel};

/// A reference value: the float, and the exact value when known.
fn exact_of(p: &Value, i: usize) -> Option<f64> {
    if p["reference_source"] != "exact" {
        return None;
    }
    match &p["exact"]["fraction"] {
        Value::String(f) => Some(fraction(f)),
        Value::Array(a) => a.get(i).and_then(Value::as_str).map(fraction),
        _ => None,
    }
}

fn fraction(f: &str) -> f64 {
    match f.split_once('/') {
        // Long fractions: the float of the reference (rounded) is close enough.
        Some((a, b)) => a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap(),
        None => f.parse().unwrap(),
    }
}

fn check_instance(
    dir: &Path,
    id: &str,
    model: &SparseModel,
    props: &[Value],
    ctmc_float_tolerance: bool,
) -> Vec<String> {
    let mut failures = Vec::new();
    for p in props {
        let formula = p["formula"].as_str().unwrap();
        let property = parse(formula).unwrap_or_else(|e| panic!("{id}: {e}"));
        let start = Instant::now();
        let values = match check(model, &property, &Options::default()) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{id} {formula}: {e}"));
                continue;
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let refs: Vec<f64> = match &p["value"] {
            Value::Array(a) => a.iter().map(|v| v.as_f64().unwrap()).collect(),
            v => vec![v.as_f64().unwrap()],
        };
        let float_ref = p["reference_source"] != "exact";
        for (i, (&s, &reference)) in model.initial.iter().zip(&refs).enumerate() {
            let value = values.value(s);
            let tol = if ctmc_float_tolerance && float_ref {
                1e-5 * reference.abs().max(1e-300)
            } else {
                1e-6 * reference.abs().max(1.0)
            };
            let ok = (value - reference).abs() <= tol || (value.is_infinite() && value == reference);
            let (lo, hi) = (values.lower[s as usize], values.upper[s as usize]);
            let bounds_ok =
                exact_of(p, i).is_none_or(|x| lo <= x + 1e-12 * x.abs().max(1e-300) && x - 1e-12 * x.abs() <= hi);
            if !ok || !bounds_ok {
                failures.push(format!(
                    "{id} {formula} state {s}: value {value} [{lo}, {hi}], reference {reference} (exact {:?}), {}",
                    exact_of(p, i),
                    values.method
                ));
            }
        }
        eprintln!(
            "{id:32} {formula:60} {:.3e} ({} sweeps, {}, {seconds:.3} s)",
            values.value(model.initial[0]),
            values.iterations,
            values.method
        );
    }
    let _ = dir;
    failures
}

/// The DRN model with the `.trew` files of an addition (for instances shipped as DRN only).
fn with_reward_files(dir: &Path, drn: &str, add: &Value) -> SparseModel {
    let mut model = warpcheck_markov::load(&dir.join(drn), None).unwrap();
    let folder = dir.join(drn).parent().unwrap().to_path_buf();
    for (file, _) in add["reward_files"].as_object().unwrap() {
        let name = file.strip_suffix(".trew").expect("a .trew file");
        let path = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_str().unwrap().ends_with(&format!(".{file}")))
            .unwrap();
        let input = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let rewards = read_trew(input, path.to_str().unwrap(), &model).unwrap();
        model.rewards.push(RewardModel { name: name.into(), transition: Some(rewards), ..RewardModel::default() });
    }
    model
}

fn wanted(id: &str) -> bool {
    std::env::var("WARPCHECK_CHECK_ONLY").map_or(true, |only| only.split(',').any(|o| o == id))
}

#[test]
fn every_reference_property() {
    let dir = common::markov_dir();
    let refs = common::references(&dir);
    let additions = common::additions(&dir);
    let mut failures = Vec::new();
    for (id, instance) in &refs {
        if !wanted(id) {
            continue;
        }
        let files = &instance["files"];
        let ctmc = instance["type"].as_str() == Some("ctmc");
        let Some(drn) = files["drn"]["path"].as_str() else {
            eprintln!("{id}: no export (source only), skipped");
            continue;
        };
        let model = warpcheck_markov::load(&dir.join(drn), None).unwrap_or_else(|e| panic!("{id}: {e}"));
        failures.extend(check_instance(&dir, id, &model, instance["properties"].as_array().unwrap(), ctmc));
        if let Some(add) = additions.get(id.as_str()) {
            // The reward structures are PRISM explicit files beside the `.tra`.
            let model = match files["tra"]["path"].as_str() {
                Some(tra) => {
                    let t = if ctmc { Some(ModelType::Ctmc) } else { None };
                    warpcheck_markov::load(&dir.join(tra), t).unwrap_or_else(|e| panic!("{id}: {e}"))
                }
                None => with_reward_files(&dir, drn, add),
            };
            failures.extend(check_instance(&dir, id, &model, add["properties"].as_array().unwrap(), ctmc));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// haddad-monmege-20 (exact value 7/10): the classic stopping rule of value iteration
/// stops far from the value, the default method's bounds hold 7/10.
#[test]
fn haddad_monmege_is_sound() {
    let dir = common::markov_dir();
    let model = warpcheck_markov::load(&dir.join("dtmc/haddad-monmege-20/haddad-monmege-20.drn"), None).unwrap();
    let p = parse(r#"P=? [F "Target"]"#).unwrap();
    let s = model.initial[0] as usize;
    let sound = check(&model, &p, &Options::default()).unwrap();
    assert!(sound.lower[s] <= 0.7 && 0.7 <= sound.upper[s] && (sound.value(s as u32) - 0.7).abs() <= 1e-6);
    let vi = Options { method: warpcheck_markov::check::Method::ValueIteration, ..Options::default() };
    let unsound = check(&model, &p, &vi).unwrap();
    assert!((unsound.value(s as u32) - 0.7).abs() > 1e-3, "value iteration: {}", unsound.value(s as u32));
}

/// Checks reference property `p` of instance `id` with `--exact` against the reference:
/// its fractions (for the initial states, or for every state) or, where it gives only
/// the fraction's length, that length and the float within 1e-15. Adds what differs to
/// `failures`; returns whether the property has an exact reference (and was checked).
fn exact_fractions_match(id: &str, model: &SparseModel, p: &Value, failures: &mut Vec<String>) -> bool {
    use num_rational::BigRational;
    let number = |v: &Value| v.as_str().map(str::to_string).or_else(|| v.as_f64().map(|x| x.to_string()));
    let wanted: Vec<(u32, &str)> = match &p["exact"]["fraction"] {
        Value::String(f) => model.initial.iter().map(|&s| (s, f.as_str())).collect(),
        Value::Array(a) => a.iter().enumerate().map(|(s, f)| (s as u32, f.as_str().unwrap())).collect(),
        _ => Vec::new(),
    };
    let digits = number(&p["exact"]["fraction_digits"]);
    if wanted.is_empty() && digits.is_none() {
        return false;
    }
    let formula = p["formula"].as_str().unwrap();
    let start = Instant::now();
    let exact = match warpcheck_markov::check::check_exact(model, &parse(formula).unwrap(), &Options::default()) {
        Ok(e) => e,
        Err(e) => {
            failures.push(format!("{id} {formula}: {e}"));
            return false;
        }
    };
    for (s, f) in wanted {
        let want: BigRational = f.parse().unwrap_or_else(|e| panic!("{id}: fraction {f}: {e:?}"));
        if exact.values[s as usize] != want {
            failures.push(format!("{id} {formula} state {s}: {} instead of {f}", exact.fraction(s)));
        }
    }
    let s = model.initial[0];
    if let Some(digits) = digits {
        let want: f64 = number(&p["exact"]["float"]).unwrap().parse().unwrap();
        let got = exact.fraction(s);
        if got.len().to_string() != digits || (exact.float(s) - want).abs() > 1e-15 * want.abs() {
            failures.push(format!("{id} {formula}: {} digits, {} (want {digits}, {want})", got.len(), exact.float(s)));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let shown = exact.fraction(s);
    let shown = if shown.len() > 80 { format!("{} digits, {}", shown.len(), exact.float(s)) } else { shown };
    eprintln!("{id} {formula}: {shown} ({}, {seconds:.3} s)", exact.method);
    true
}

/// `--exact`: every probability property the reference solved exactly, on the
/// instances of at most `WARPCHECK_EXACT_STATES` states (default 30,000), gives the
/// reference's fraction at every initial state (all states where it lists them).
#[test]
fn exact_fractions_equal_the_reference() {
    let limit: u64 = std::env::var("WARPCHECK_EXACT_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(30_000);
    let checked = check_exact_instances(|states, ctmc| states <= limit && !ctmc);
    assert!(checked >= 20, "only {checked} exact properties checked");
}

/// Runs [`exact_fractions_match`] on every property of the reference instances with a
/// DRN export that `keep(states, is a CTMC)` selects; fails on any difference, else
/// returns how many properties had an exact reference.
fn check_exact_instances(keep: impl Fn(u64, bool) -> bool) -> usize {
    let dir = common::markov_dir();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (id, instance) in &common::references(&dir) {
        let (Some(drn), Some(states)) = (instance["files"]["drn"]["path"].as_str(), instance["states"].as_u64()) else {
            continue;
        };
        if !wanted(id) || !keep(states, instance["type"] == "ctmc") {
            continue;
        }
        let model = warpcheck_markov::load(&dir.join(drn), None).unwrap_or_else(|e| panic!("{id}: {e}"));
        for p in instance["properties"].as_array().unwrap() {
            checked += usize::from(exact_fractions_match(id, &model, p, &mut failures));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    checked
}

/// `--exact` on the reward properties the reference adds to DTMC and MDP instances of at
/// most 10,000 states (`reference-ctmc-rewards.json`'s additions: `R [F]` of DTMCs and
/// MDPs, `R [C<=k]`, `T [F]`): the reference's fraction at every state it lists.
/// (resource-gathering-200-15-15's `C<=200`, 24,064 states, also matches, in about 5
/// minutes: its 78-digit fractions.)
#[test]
fn exact_reward_fractions_equal_the_reference() {
    let dir = common::markov_dir();
    let refs = common::references(&dir);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (id, add) in common::additions(&dir).as_object().unwrap() {
        let instance = &refs[id];
        if !wanted(id) || instance["states"].as_u64().unwrap_or(u64::MAX) > 10_000 {
            continue;
        }
        let files = &instance["files"];
        let model = match files["tra"]["path"].as_str() {
            Some(tra) => warpcheck_markov::load(&dir.join(tra), None).unwrap_or_else(|e| panic!("{id}: {e}")),
            None => with_reward_files(&dir, files["drn"]["path"].as_str().unwrap(), add),
        };
        for p in add["properties"].as_array().unwrap() {
            checked += usize::from(exact_fractions_match(id, &model, p, &mut failures));
        }
    }
    assert!(checked >= 8, "only {checked} exact reward properties checked");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// `--exact` on the CTMC instances of at most 5,000 states: the reference's fraction
/// where it lists one (tandem-5: `R [S]`, `P [U]`, `R [F]`); where it lists only the
/// fraction's length (embedded-2's `P [U]` and `R [F]`, 1,100-1,500 digits, and
/// cluster-2's steady state, 825 digits in about 15 s), the same number of digits and
/// its float within 1e-15.
#[test]
fn exact_ctmc_answers_equal_the_reference() {
    let checked = check_exact_instances(|states, ctmc| states <= 5_000 && ctmc);
    assert!(checked >= 9, "only {checked} exact CTMC properties checked");
}
