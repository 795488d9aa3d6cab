//! Property: a random small valid model (DTMC, CTMC or MDP, with labels, rewards, action
//! names and, for the explicit files, variable values) written and read back is the
//! same model, in both formats. "The same" is [`common::assert_same`]: the matrix bit
//! for bit, initial states, non-empty labels, rewards (choice rewards counted on their
//! transitions, as the `.trew` files hold them), action names, and valuations where the
//! format has them (DRN has none).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{assert_same, scratch_dir, Compare, EVERYTHING};
use proptest::prelude::*;
use warpcheck_markov::{drn, load, save, ModelType, RewardModel, SparseModel, Valuations};

/// SplitMix64: the parts of one model from one seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    /// A positive double with a random mantissa and a decimal exponent of about -90..90.
    fn wide(&mut self) -> f64 {
        let exponent = self.below(601) as i64 - 300;
        f64::from_bits((((1023 + exponent) as u64) << 52) | (self.next() >> 12))
    }

    /// A reward: often zero, else a wide double of either sign or a small fraction.
    fn reward(&mut self) -> f64 {
        match self.below(4) {
            0 => 0.0,
            1 => self.wide() * if self.coin() { 1.0 } else { -1.0 },
            _ => self.below(1000) as f64 / 8.0,
        }
    }

    fn subset(&mut self, n: usize) -> Vec<u32> {
        (0..n as u32).filter(|_| self.below(3) == 0).collect()
    }
}

/// Which format a model is made for: DRN holds choice rewards but no transition rewards
/// and no valuations.
#[derive(Clone, Copy, PartialEq)]
enum For {
    Drn,
    Explicit,
}

fn random_model(model_type: ModelType, states: usize, seed: u64, target: For) -> SparseModel {
    let mut rng = Rng(seed);
    let mut m = SparseModel::new(model_type);
    let named = model_type == ModelType::Mdp && rng.coin();
    if named {
        m.action_names = vec!["a".into(), "go_on".into(), String::new()];
    }
    for _ in 0..states {
        let rows = if model_type == ModelType::Mdp { 1 + rng.below(3) } else { 1 };
        for _ in 0..rows {
            m.push_row(named.then(|| rng.below(3) as u32));
            let mut targets = rng.subset(states);
            if targets.is_empty() {
                targets.push(rng.below(states as u64) as u32);
            }
            let weights: Vec<f64> = targets
                .iter()
                .map(|_| if model_type == ModelType::Ctmc { rng.wide() } else { 1.0 + rng.below(1000) as f64 })
                .collect();
            let sum: f64 = weights.iter().sum();
            for (&t, &w) in targets.iter().zip(&weights) {
                m.push_entry(t, if model_type == ModelType::Ctmc { w } else { w / sum });
            }
        }
        m.end_state();
    }
    m.initial = rng.subset(states);
    if m.initial.is_empty() {
        m.initial.push(0);
    }
    if rng.coin() {
        m.labelling.set("init", m.initial.clone());
    }
    for name in ["goal", "two words", "deadlock", "x_1", "!bang"] {
        if rng.coin() {
            let members = rng.subset(states);
            m.labelling.set(name, members);
        }
    }
    let names: Vec<&str> = match rng.below(4) {
        0 => vec![],
        1 => vec![""],
        2 => vec!["steps"],
        _ => vec!["r", "time"],
    };
    for name in names {
        let mut r = RewardModel { name: name.into(), ..RewardModel::default() };
        if rng.coin() {
            r.state = Some((0..states).map(|_| rng.reward()).collect());
        }
        if rng.coin() {
            r.choice = Some((0..m.choices()).map(|_| rng.reward()).collect());
        }
        if target == For::Explicit && rng.coin() {
            r.transition = Some((0..m.transitions()).map(|_| rng.reward()).collect());
        }
        m.rewards.push(r);
    }
    if target == For::Explicit && rng.coin() {
        let variables = rng.below(4) as usize;
        let booleans: Vec<bool> = (0..variables).map(|_| rng.coin()).collect();
        let mut values = Vec::new();
        for _ in 0..states {
            for &b in &booleans {
                values.push(if b { rng.below(2) as i64 } else { rng.below(2001) as i64 - 1000 });
            }
        }
        let names = ["x", "flag", "_loc_aut"].iter().take(variables).map(|s| s.to_string()).collect();
        m.valuations = Some(Valuations { names, booleans, values });
    }
    m
}

fn model_type(kind: u8) -> ModelType {
    [ModelType::Dtmc, ModelType::Ctmc, ModelType::Mdp][kind as usize % 3]
}

static CASE: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn drn_round_trip(kind in 0u8..3, states in 1usize..7, seed in any::<u64>()) {
        let m = random_model(model_type(kind), states, seed, For::Drn);
        prop_assert_eq!(m.validate(), Ok(()));
        let mut bytes = Vec::new();
        drn::write(&m, &mut bytes, "p.drn").unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let back = drn::read(&bytes[..], "p.drn").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_same(&m, &back, &format!("DRN round trip of\n{text}"), Compare { valuations: false, ..EVERYTHING });
        prop_assert!(back.valuations.is_none());
        let mut again = Vec::new();
        drn::write(&back, &mut again, "p.drn").unwrap();
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn explicit_round_trip(kind in 0u8..3, states in 1usize..7, seed in any::<u64>(), gz in any::<bool>()) {
        let m = random_model(model_type(kind), states, seed, For::Explicit);
        prop_assert_eq!(m.validate(), Ok(()));
        let dir = scratch_dir(&format!("roundtrip-{}", CASE.fetch_add(1, Ordering::Relaxed)));
        let path = dir.join(if gz { "m.tra.gz" } else { "m.tra" });
        save(&path, &m).unwrap();
        let hint = (m.model_type == ModelType::Ctmc).then_some(ModelType::Ctmc);
        let back = load(&path, hint).unwrap_or_else(|e| panic!("{e}"));
        assert_same(&m, &back, "explicit round trip", EVERYTHING);
        std::fs::remove_dir_all(&dir).ok();
    }
}
