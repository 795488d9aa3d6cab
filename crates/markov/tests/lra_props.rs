//! Long-run average rewards of MDPs (`Rmin=? [S]`, `Rmax=? [S]`) against an oracle:
//! memoryless deterministic schedulers suffice for both optima (Puterman, Thm. 9.1.8),
//! so on random MDPs of 1-7 states with 1-3 choices each, every such scheduler is
//! applied and its induced DTMC's `R=? [S]` computed by the DTMC solver (bottom SCCs
//! and their stationary distributions); the minimum and maximum per state must lie in
//! the MDP solver's bounds, which must be within twice the precision. State and choice
//! rewards are both used. `--exact`: the induced DTMCs' exact values, and the MDP's
//! exact optimum must equal their minimum and maximum as fractions.

mod random;

use num_rational::BigRational;
use proptest::prelude::*;
use random::{build, next_scheduler, spec, Spec};
use warpcheck_markov::check::{check, check_exact, parse, Options};
use warpcheck_markov::{ModelType, RewardModel, SparseModel};

/// The model of `spec` with state rewards `state` and choice rewards from `seed`.
fn rewarded(spec: &Spec, model_type: ModelType, state: &[u32], choice: &[u32]) -> SparseModel {
    let mut m = build(spec, model_type);
    let rows = m.choices() as usize;
    m.rewards = vec![RewardModel {
        name: "r".into(),
        state: Some(state.iter().map(|&x| f64::from(x)).collect()),
        choice: Some((0..rows).map(|r| f64::from(choice[r % choice.len()])).collect()),
        transition: None,
    }];
    m
}

/// The induced DTMC of the scheduler `pick` (a choice per state).
fn induced(spec: &Spec, pick: &[usize]) -> Spec {
    spec.iter().zip(pick).map(|(choices, &c)| vec![choices[c].clone()]).collect()
}

fn value_bounds(model: &SparseModel, text: &str) -> Vec<(f64, f64)> {
    let property = parse(text).unwrap();
    let options = Options { precision: 1e-9, ..Options::default() };
    let v = check(model, &property, &options).unwrap();
    v.lower.into_iter().zip(v.upper).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mdp_long_run_averages_are_the_best_schedulers(
        spec in spec(1, 7, 3),
        state in prop::collection::vec(0u32..5, 7),
        choice in prop::collection::vec(0u32..5, 1..4),
    ) {
        let n = spec.len();
        let mdp = rewarded(&spec, ModelType::Mdp, &state[..n], &choice);
        let mut best = vec![(f64::INFINITY, f64::NEG_INFINITY); n];
        let mut exact: Vec<Option<(BigRational, BigRational)>> = vec![None; n];
        let mut pick = vec![0usize; n];
        loop {
            // The choice rewards of the induced DTMC: those of the picked rows.
            let rows: Vec<u32> = (0..n).map(|s| choice[(mdp.row_groups[s] as usize + pick[s]) % choice.len()]).collect();
            let mut dtmc = rewarded(&induced(&spec, &pick), ModelType::Dtmc, &state[..n], &[0]);
            dtmc.rewards[0].choice = Some(rows.iter().map(|&x| f64::from(x)).collect());
            for (s, (l, u)) in value_bounds(&dtmc, "R{\"r\"}=? [S]").into_iter().enumerate() {
                prop_assert!(u - l < 1e-6);
                let v = (l + u) / 2.0;
                best[s] = (best[s].0.min(v), best[s].1.max(v));
            }
            let x = check_exact(&dtmc, &parse("R{\"r\"}=? [S]").unwrap(), &Options::default()).unwrap();
            for (s, v) in x.values.into_iter().enumerate() {
                exact[s] = Some(match exact[s].take() {
                    None => (v.clone(), v),
                    Some((lo, hi)) => (lo.min(v.clone()), hi.max(v)),
                });
            }
            if !next_scheduler(&spec, &mut pick) {
                break;
            }
        }
        let precision = 1e-6;
        for (query, idx) in [("R{\"r\"}min=? [S]", 0), ("R{\"r\"}max=? [S]", 1)] {
            let property = parse(query).unwrap();
            let v = check(&mdp, &property, &Options { precision, ..Options::default() }).unwrap();
            for (s, &(min, max)) in best.iter().enumerate() {
                let want = if idx == 0 { min } else { max };
                let (l, u) = (v.lower[s], v.upper[s]);
                prop_assert!(l - 1e-7 <= want && want <= u + 1e-7, "{query} state {s}: {want} not in [{l}, {u}]");
                prop_assert!(u - l <= 2.0 * precision + 1e-9, "{query} state {s}: [{l}, {u}] too wide");
            }
            let x = check_exact(&mdp, &property, &Options::default()).unwrap();
            for (s, range) in exact.iter().enumerate() {
                let (min, max) = range.as_ref().unwrap();
                let want = if idx == 0 { min } else { max };
                prop_assert_eq!(&x.values[s], want, "{} state {}", query, s);
            }
        }
    }
}
