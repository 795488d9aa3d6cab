//! `--exact` against an independent exact oracle on random models of 1-6 states with
//! 1-3 choices per state: every memoryless deterministic scheduler (they suffice for
//! the extremal probabilities of `safe U target`) is applied, the induced DTMC solved by
//! dense Gaussian elimination over the rationals (after the graph search for P > 0),
//! and the minimum and maximum over the schedulers taken per state. The sound
//! floating-point solver's bounds must contain the exact values, and step-bounded
//! properties must agree with the floating-point sweeps. Expected rewards of random
//! DTMCs: the sound solver's bounds contain the exact value, infinite where it is; of
//! random MDPs: `--exact`'s `Rmin`/`Rmax` equal the optimum over every memoryless
//! deterministic scheduler of the expected reward of its induced DTMC (infinite where
//! that DTMC misses the target with positive probability), within the sound bounds.

mod random;

use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use random::{build, next_scheduler, spec, states, Spec};
use warpcheck_markov::check::{check, check_exact, parse, Method, Options};
use warpcheck_markov::{ModelType, RewardModel, SparseModel};

fn labelled(spec: &Spec, model_type: ModelType, safe: &[bool], target: &[bool]) -> SparseModel {
    let mut m = build(spec, model_type);
    m.labelling.labels = vec![("safe".into(), states(safe)), ("target".into(), states(target))];
    m
}

/// Gauss-Jordan elimination of a regular system `a` of `k` rows and `k + 1` columns
/// (the last one the constants): afterwards `x[i] = a[i][k] / a[i][i]`.
fn eliminate(a: &mut [Vec<BigRational>]) {
    let k = a.len();
    for c in 0..k {
        let pivot = (c..k).find(|&r| !a[r][c].is_zero()).expect("the system is regular");
        a.swap(c, pivot);
        let pivot_row = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c && !row[c].is_zero() {
                let f = &row[c] / &pivot_row[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot_row[c..]) {
                    *x -= &f * p;
                }
            }
        }
    }
}

/// The exact probability of `safe U target` per state in the DTMC that takes
/// `choice[s]` in each state (uniform over a choice's targets).
fn oracle(spec: &Spec, choice: &[usize], safe: &[bool], target: &[bool]) -> Vec<BigRational> {
    let n = spec.len();
    let row = |s: usize| &spec[s][choice[s]];
    let mut positive = target.to_vec();
    loop {
        let before = positive.clone();
        for s in 0..n {
            if !positive[s] && safe[s] && row(s).iter().any(|&t| positive[t as usize]) {
                positive[s] = true;
            }
        }
        if positive == before {
            break;
        }
    }
    let unknown: Vec<usize> = (0..n).filter(|&s| positive[s] && !target[s]).collect();
    let k = unknown.len();
    let mut a = vec![vec![BigRational::zero(); k + 1]; k];
    for (i, &s) in unknown.iter().enumerate() {
        a[i][i] += BigRational::one();
        let p = BigRational::new(1.into(), (row(s).len() as i64).into());
        for &t in row(s) {
            if target[t as usize] {
                a[i][k] += &p;
            } else if let Some(j) = unknown.iter().position(|&u| u == t as usize) {
                a[i][j] -= &p;
            }
        }
    }
    eliminate(&mut a);
    let mut x: Vec<BigRational> =
        (0..n).map(|s| if target[s] { BigRational::one() } else { BigRational::zero() }).collect();
    for (i, &s) in unknown.iter().enumerate() {
        x[s] = &a[i][k] / &a[i][i];
    }
    x
}

/// Per state, the minimum and maximum of the oracle over all schedulers.
fn extremes(spec: &Spec, safe: &[bool], target: &[bool]) -> (Vec<BigRational>, Vec<BigRational>) {
    let n = spec.len();
    let mut choice = vec![0usize; n];
    let (mut lo, mut hi): (Option<Vec<BigRational>>, Option<Vec<BigRational>>) = (None, None);
    loop {
        let x = oracle(spec, &choice, safe, target);
        lo = Some(match lo {
            None => x.clone(),
            Some(l) => l.into_iter().zip(&x).map(|(a, b)| if b < &a { b.clone() } else { a }).collect(),
        });
        hi = Some(match hi {
            None => x,
            Some(h) => h.into_iter().zip(x).map(|(a, b)| if b > a { b } else { a }).collect(),
        });
        if !next_scheduler(spec, &mut choice) {
            return (lo.unwrap(), hi.unwrap());
        }
    }
}

/// The expected state reward until `target` in the DTMC that takes `choice[s]` in
/// each state: `None` (infinite) where the target is missed with positive probability.
fn reward_oracle(spec: &Spec, choice: &[usize], target: &[bool], rewards: &[u32]) -> Vec<Option<BigRational>> {
    let n = spec.len();
    let row = |s: usize| &spec[s][choice[s]];
    let closure = |mut set: Vec<bool>, grow: &dyn Fn(usize, &[bool]) -> bool| loop {
        let before = set.clone();
        for s in 0..n {
            if !set[s] && grow(s, &set) {
                set[s] = true;
            }
        }
        if set == before {
            return set;
        }
    };
    // States that can reach the target; those that can reach one that cannot miss it
    // with positive probability.
    let reach = closure(target.to_vec(), &|s, set| row(s).iter().any(|&t| set[t as usize]));
    let dead: Vec<bool> = reach.iter().map(|&r| !r).collect();
    let missing = closure(dead, &|s, set| !target[s] && row(s).iter().any(|&t| set[t as usize]));
    let unknown: Vec<usize> = (0..n).filter(|&s| !missing[s] && !target[s]).collect();
    let k = unknown.len();
    let mut a = vec![vec![BigRational::zero(); k + 1]; k];
    for (i, &s) in unknown.iter().enumerate() {
        a[i][i] += BigRational::one();
        a[i][k] += BigRational::from_integer(rewards[s].into());
        let p = BigRational::new(1.into(), (row(s).len() as i64).into());
        for &t in row(s) {
            if let Some(j) = unknown.iter().position(|&u| u == t as usize) {
                a[i][j] -= &p;
            }
        }
    }
    eliminate(&mut a);
    let mut x: Vec<Option<BigRational>> =
        (0..n).map(|s| if missing[s] { None } else { Some(BigRational::zero()) }).collect();
    for (i, &s) in unknown.iter().enumerate() {
        x[s] = Some(&a[i][k] / &a[i][i]);
    }
    x
}

/// Per state, the minimum and maximum expected reward over all schedulers (`None`:
/// infinite).
#[allow(clippy::type_complexity)]
fn reward_extremes(
    spec: &Spec,
    target: &[bool],
    rewards: &[u32],
) -> (Vec<Option<BigRational>>, Vec<Option<BigRational>>) {
    let n = spec.len();
    let mut choice = vec![0usize; n];
    let mut lo: Vec<Option<BigRational>> = vec![None; n];
    let mut hi: Vec<Option<BigRational>> = vec![Some(BigRational::zero()); n];
    loop {
        for (s, v) in reward_oracle(spec, &choice, target, rewards).into_iter().enumerate() {
            // None is infinity: the largest value.
            if let Some(v) = &v {
                if lo[s].as_ref().is_none_or(|l| v < l) {
                    lo[s] = Some(v.clone());
                }
            }
            hi[s] = match (hi[s].take(), v) {
                (None, _) | (_, None) => None,
                (Some(h), Some(v)) => Some(if v > h { v } else { h }),
            };
        }
        if !next_scheduler(spec, &mut choice) {
            return (lo, hi);
        }
    }
}

fn masks(max_n: usize, max_choices: usize) -> impl Strategy<Value = (Spec, Vec<bool>, Vec<bool>)> {
    spec(1, max_n, max_choices).prop_flat_map(|spec| {
        let n = spec.len();
        (
            Just(spec),
            prop::collection::vec(prop::bool::weighted(0.8), n),
            prop::collection::vec(prop::bool::weighted(0.2), n),
        )
    })
}

/// `--method pi` with a precision of 1e-9.
fn policy_iteration() -> Options {
    Options { method: Method::PolicyIteration, precision: 1e-9, ..Options::default() }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn exact_until_is_the_optimum_over_all_schedulers((spec, safe, target) in masks(6, 3)) {
        let mdp = spec.iter().any(|c| c.len() > 1);
        let model_type = if mdp { ModelType::Mdp } else { ModelType::Dtmc };
        let model = labelled(&spec, model_type, &safe, &target);
        let (lo, hi) = extremes(&spec, &safe, &target);
        let queries: &[(&str, &Vec<BigRational>)] =
            if mdp { &[("Pmin", &lo), ("Pmax", &hi)] } else { &[("P", &hi)] };
        for (op, want) in queries {
            let property = parse(&format!("{op}=? [\"safe\" U \"target\"]")).unwrap();
            let exact = check_exact(&model, &property, &Options::default()).unwrap();
            prop_assert_eq!(&exact.values, *want, "{}", op);
            let sound = check(&model, &property, &Options::default()).unwrap();
            let pi = check(&model, &property, &policy_iteration()).unwrap();
            for (s, x) in want.iter().enumerate() {
                let x = x.to_f64().unwrap();
                prop_assert!(sound.lower[s] <= x + 1e-12 && x - 1e-12 <= sound.upper[s],
                    "{} state {}: exact {} outside [{}, {}]", op, s, x, sound.lower[s], sound.upper[s]);
                prop_assert!((pi.value(s as u32) - x).abs() <= 1e-6, "{} state {}: exact {}, policy iteration {}", op, s, x, pi.value(s as u32));
            }
        }
    }

    #[test]
    fn exact_bounded_until_agrees_with_the_sweeps((spec, safe, target) in masks(6, 3), k in 0u64..6) {
        let mdp = spec.iter().any(|c| c.len() > 1);
        let model = labelled(&spec, if mdp { ModelType::Mdp } else { ModelType::Dtmc }, &safe, &target);
        for op in if mdp { &["Pmin", "Pmax"][..] } else { &["P"][..] } {
            let property = parse(&format!("{op}=? [\"safe\" U<={k} \"target\"]")).unwrap();
            let exact = check_exact(&model, &property, &Options::default()).unwrap();
            let float = check(&model, &property, &Options::default()).unwrap();
            for s in 0..model.states() {
                let x = exact.values[s].to_f64().unwrap();
                prop_assert!((x - float.value(s as u32)).abs() <= 1e-12, "{} state {}: {} vs {}", op, s, x, float.value(s as u32));
            }
        }
    }

    #[test]
    fn exact_expected_rewards_lie_in_the_sound_bounds(
        (spec, _, target) in masks(7, 1),
        rewards in prop::collection::vec(0u32..4, 7),
    ) {
        let mut model = labelled(&spec, ModelType::Dtmc, &vec![true; spec.len()], &target);
        let state: Vec<f64> = (0..spec.len()).map(|s| f64::from(rewards[s])).collect();
        model.rewards.push(RewardModel { name: "r".into(), state: Some(state), ..RewardModel::default() });
        let property = parse(r#"R{"r"}=? [F "target"]"#).unwrap();
        let exact = check_exact(&model, &property, &Options::default()).unwrap();
        let sound = check(&model, &property, &Options::default()).unwrap();
        for s in 0..model.states() as u32 {
            let x = exact.float(s);
            if x.is_infinite() {
                prop_assert!(sound.value(s).is_infinite(), "state {}: exact inf, sound {}", s, sound.value(s));
            } else {
                let (lo, hi) = (sound.lower[s as usize], sound.upper[s as usize]);
                let slack = 1e-9 * x.abs().max(1.0);
                prop_assert!(lo <= x + slack && x - slack <= hi, "state {}: exact {} outside [{}, {}]", s, exact.fraction(s), lo, hi);
            }
        }
    }

    #[test]
    fn mdp_expected_rewards_are_the_optimum_over_all_schedulers(
        (spec, _, target) in masks(6, 3),
        rewards in prop::collection::vec(0u32..4, 6),
    ) {
        let mut model = labelled(&spec, ModelType::Mdp, &vec![true; spec.len()], &target);
        let state: Vec<f64> = (0..spec.len()).map(|s| f64::from(rewards[s])).collect();
        model.rewards.push(RewardModel { name: "r".into(), state: Some(state), ..RewardModel::default() });
        let (lo, hi) = reward_extremes(&spec, &target, &rewards);
        // Expected steps: a reward of 1 in every state.
        let (steps_lo, steps_hi) = reward_extremes(&spec, &target, &[1; 6]);
        for (formula, want) in [
            (r#"R{"r"}min=? [F "target"]"#, &lo),
            (r#"R{"r"}max=? [F "target"]"#, &hi),
            (r#"Tmin=? [F "target"]"#, &steps_lo),
            (r#"Tmax=? [F "target"]"#, &steps_hi),
        ] {
            let sound = check(&model, &parse(formula).unwrap(), &Options::default()).unwrap();
            let pi = check(&model, &parse(formula).unwrap(), &policy_iteration()).unwrap();
            let exact = check_exact(&model, &parse(formula).unwrap(), &Options::default()).unwrap();
            for (s, want) in want.iter().enumerate() {
                match want {
                    None => prop_assert_eq!(exact.fraction(s as u32), "inf", "{} state {}", formula, s),
                    Some(x) => prop_assert_eq!(&exact.values[s], x, "{} state {}", formula, s),
                }
                match want {
                    None => prop_assert!(sound.value(s as u32).is_infinite() && pi.value(s as u32).is_infinite(),
                        "{} state {}: exact inf, sound {}, policy iteration {}", formula, s, sound.value(s as u32), pi.value(s as u32)),
                    Some(x) => {
                        let x = x.to_f64().unwrap();
                        prop_assert!((pi.value(s as u32) - x).abs() <= 1e-6 * x.abs().max(1.0),
                            "{} state {}: exact {}, policy iteration {}", formula, s, x, pi.value(s as u32));
                        let (l, h) = (sound.lower[s], sound.upper[s]);
                        let slack = 1e-9 * x.abs().max(1.0);
                        prop_assert!(l <= x + slack && x - slack <= h, "{} state {}: exact {} outside [{}, {}]", formula, s, x, l, h);
                    }
                }
            }
        }
    }

    #[test]
    fn exact_step_bounded_rewards_agree_with_the_sweeps(
        (spec, _, target) in masks(6, 3),
        rewards in prop::collection::vec(0u32..4, 6),
        k in 0u64..6,
    ) {
        let mut model = labelled(&spec, ModelType::Mdp, &vec![true; spec.len()], &target);
        let state: Vec<f64> = (0..spec.len()).map(|s| f64::from(rewards[s]) / 3.0).collect();
        model.rewards.push(RewardModel { name: "r".into(), state: Some(state), ..RewardModel::default() });
        for formula in [format!(r#"R{{"r"}}max=? [C<={k}]"#), format!(r#"R{{"r"}}min=? [I={k}]"#)] {
            let property = parse(&formula).unwrap();
            let exact = check_exact(&model, &property, &Options::default()).unwrap();
            let float = check(&model, &property, &Options::default()).unwrap();
            for s in 0..model.states() as u32 {
                let (x, y) = (exact.float(s), float.value(s));
                prop_assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{} state {}: exact {} float {}", formula, s, exact.fraction(s), y);
            }
        }
    }
}

/// `--exact`'s value of `formula` in every state lies in the floating-point checker's
/// bounds (within 1e-9, relative above 1; infinite where they are), which are no wider
/// than twice the default precision (1e-6).
fn exact_within_float_bounds(model: &SparseModel, formula: &str) -> Result<(), TestCaseError> {
    exact_within_bounds(model, formula, 1e-9)
}

/// The same for long-run averages, whose bounds are sound up to rounding (1e-12).
fn exact_within_steady_bounds(model: &SparseModel, formula: &str) -> Result<(), TestCaseError> {
    exact_within_bounds(model, formula, 1e-12)
}

fn exact_within_bounds(model: &SparseModel, formula: &str, slack: f64) -> Result<(), TestCaseError> {
    let property = parse(formula).unwrap();
    let exact = check_exact(model, &property, &Options::default()).unwrap();
    let float = check(model, &property, &Options::default()).unwrap();
    for s in 0..model.states() as u32 {
        let (x, (lo, hi)) = (exact.float(s), (float.lower[s as usize], float.upper[s as usize]));
        let slack = slack * x.abs().max(1.0);
        let inside = if x.is_infinite() { hi.is_infinite() } else { lo - slack <= x && x <= hi + slack };
        prop_assert!(inside, "{} state {}: exact {} ({}) outside [{}, {}]", formula, s, x, exact.fraction(s), lo, hi);
        prop_assert!(
            hi - lo <= 2.000001e-6 * x.abs().max(1.0) || x.is_infinite(),
            "{} state {}: bounds [{}, {}] too wide",
            formula,
            s,
            lo,
            hi
        );
    }
    Ok(())
}

/// The exact steady-state probabilities of "target" and of its negation sum to 1.
fn steady_states_sum_to_one(model: &SparseModel) -> Result<(), TestCaseError> {
    let yes = check_exact(model, &parse(r#"S=? ["target"]"#).unwrap(), &Options::default()).unwrap();
    let no = check_exact(model, &parse(r#"S=? [!"target"]"#).unwrap(), &Options::default()).unwrap();
    for s in 0..model.states() {
        prop_assert!((&yes.values[s] + &no.values[s]).is_one(), "state {}", s);
    }
    Ok(())
}

/// A random CTMC: the spec's single choices, state `s`'s rates scaled by `s + 1` (so
/// that exit rates differ), labels and a state reward `s mod 3`.
fn random_ctmc(spec: &Spec, safe: &[bool], target: &[bool]) -> SparseModel {
    let mut m = labelled(spec, ModelType::Ctmc, safe, target);
    for s in 0..m.states() as u32 {
        for r in m.rows(s) {
            for e in m.entries(r) {
                m.values[e] *= (s + 1) as f64;
            }
        }
    }
    let state = (0..m.states()).map(|s| (s % 3) as f64).collect();
    m.rewards.push(RewardModel { name: "r".into(), state: Some(state), ..RewardModel::default() });
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// CTMCs: `--exact`'s unbounded probabilities, expected rewards and times, steady
    /// states and long-run rewards lie in the floating-point checker's bounds (sound
    /// iteration on the embedded chain, bias bounds on the bottom SCCs; within 1e-9,
    /// 1e-12 for the long-run averages),
    /// and the steady-state probabilities of φ and ¬φ sum to exactly 1. (This test found
    /// that plain Gauss-Seidel never converges on a periodic bottom SCC.)
    #[test]
    fn exact_ctmc_answers_agree_with_the_float_checker((spec, safe, target) in masks(6, 1)) {
        let model = random_ctmc(&spec, &safe, &target);
        for formula in [
            r#"P=? ["safe" U "target"]"#,
            r#"R{"r"}=? [F "target"]"#,
            r#"T=? [F "target"]"#,
        ] {
            exact_within_float_bounds(&model, formula)?;
        }
        for formula in [r#"S=? ["target"]"#, r#"R{"r"}=? [S]"#] {
            exact_within_steady_bounds(&model, formula)?;
        }
        steady_states_sum_to_one(&model)?;
    }

    /// DTMCs' long-run averages (`S`, `R [S]`, periodic chains included): `--exact`
    /// within the floating-point checker's bounds, `S [φ] + S [¬φ] = 1` exactly.
    #[test]
    fn exact_dtmc_long_run_averages_agree_with_the_float_checker((spec, safe, target) in masks(6, 1)) {
        let mut model = labelled(&spec, ModelType::Dtmc, &safe, &target);
        let state = (0..model.states()).map(|s| (s % 3) as f64).collect();
        model.rewards.push(RewardModel { name: "r".into(), state: Some(state), ..RewardModel::default() });
        for formula in [r#"S=? ["target"]"#, r#"R{"r"}=? [S]"#] {
            exact_within_steady_bounds(&model, formula)?;
        }
        steady_states_sum_to_one(&model)?;
    }
}

#[test]
fn a_periodic_dtmc_spends_half_its_time_in_each_state() {
    // 0 -> 1 -> 0: no limit distribution, but a long-run average of 1/2 each.
    let spec: Spec = vec![vec![vec![1]], vec![vec![0]]];
    let model = labelled(&spec, ModelType::Dtmc, &[true, true], &[true, false]);
    let property = parse(r#"S=? ["target"]"#).unwrap();
    let exact = check_exact(&model, &property, &Options::default()).unwrap();
    assert_eq!((exact.fraction(0), exact.fraction(1)), ("1/2".to_string(), "1/2".to_string()));
    let float = check(&model, &property, &Options::default()).unwrap();
    assert!((float.value(0) - 0.5).abs() < 1e-12 && (float.value(1) - 0.5).abs() < 1e-12);
}
