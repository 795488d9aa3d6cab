//! The MEC decomposition against its definition: on thousands of random MDPs of 1-12
//! states, the parallel algorithm (forced on tiny work lists, and with its default
//! thresholds, on 3 threads) and the sequential reference give exactly the MECs found
//! by enumerating every subset of states; on random DTMCs, `bottom_sccs` gives exactly
//! the bottom SCCs found from mutual reachability; on larger random MDPs (up to 3,000
//! states, many candidates and long attractor waves), parallel equals sequential.

mod random;

use proptest::prelude::*;
use random::{build, pool, spec, Spec};
use warpcheck_markov::mec::{
    bottom_sccs, maximal_end_components, maximal_end_components_sequential, maximal_end_components_with, MecOptions,
};
use warpcheck_markov::{Mecs, ModelType, SparseModel};

/// A MEC as its states and its inside (state, local choice) pairs, both sorted.
type Mec = (Vec<u32>, Vec<(u32, u64)>);

fn listed(model: &SparseModel, mecs: &Mecs) -> Vec<Mec> {
    (0..mecs.count()).map(|k| (mecs.states(k).to_vec(), mecs.choices(model, k).collect())).collect()
}

/// Whether `set` (a bit mask) is an end component of `spec`: every state has a choice
/// staying inside, and the states are mutually reachable along those choices.
fn end_component(spec: &Spec, set: u32) -> bool {
    let inside = |s: usize| set >> s & 1 == 1;
    let stays = |targets: &Vec<u32>| targets.iter().all(|&t| inside(t as usize));
    let members: Vec<usize> = (0..spec.len()).filter(|&s| inside(s)).collect();
    if members.iter().any(|&s| !spec[s].iter().any(stays)) {
        return false;
    }
    let edges: Vec<(usize, usize)> = members
        .iter()
        .flat_map(|&s| spec[s].iter().filter(|t| stays(t)).flatten().map(move |&t| (s, t as usize)))
        .collect();
    let reach = |forward: bool| {
        let mut seen = 1u32 << members[0];
        loop {
            let before = seen;
            for &(a, b) in &edges {
                let (from, to) = if forward { (a, b) } else { (b, a) };
                if seen >> from & 1 == 1 {
                    seen |= 1 << to;
                }
            }
            if seen == before {
                return seen;
            }
        }
    };
    reach(true) == set && reach(false) == set
}

/// The MECs by definition: the end components among all subsets that no other end
/// component strictly contains, with every choice that stays inside.
fn oracle(spec: &Spec) -> Vec<Mec> {
    let n = spec.len();
    let ecs: Vec<u32> = (1..1u32 << n).filter(|&set| end_component(spec, set)).collect();
    let mut mecs: Vec<Mec> = ecs
        .iter()
        .filter(|&&e| !ecs.iter().any(|&f| f != e && f & e == e))
        .map(|&set| {
            let states: Vec<u32> = (0..n as u32).filter(|&s| set >> s & 1 == 1).collect();
            let choices = states
                .iter()
                .flat_map(|&s| {
                    spec[s as usize]
                        .iter()
                        .enumerate()
                        .filter(move |(_, t)| t.iter().all(|&x| set >> x & 1 == 1))
                        .map(move |(c, _)| (s, c as u64))
                })
                .collect();
            (states, choices)
        })
        .collect();
    mecs.sort();
    mecs
}

/// Bottom SCCs by definition, for a one-choice-per-state spec.
fn bscc_oracle(spec: &Spec) -> Vec<Mec> {
    let n = spec.len();
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|s| {
            let mut seen = vec![false; n];
            let mut stack = vec![s];
            seen[s] = true;
            while let Some(v) = stack.pop() {
                for &t in &spec[v][0] {
                    if !seen[t as usize] {
                        seen[t as usize] = true;
                        stack.push(t as usize);
                    }
                }
            }
            seen
        })
        .collect();
    let mut out: Vec<Mec> = Vec::new();
    for s in 0..n {
        let scc: Vec<u32> = (0..n).filter(|&t| reach[s][t] && reach[t][s]).map(|t| t as u32).collect();
        let bottom = scc.iter().all(|&u| (0..n).all(|t| !reach[u as usize][t] || scc.contains(&(t as u32))));
        if bottom && scc[0] == s as u32 {
            let choices = scc.iter().map(|&u| (u, 0)).collect();
            out.push((scc, choices));
        }
    }
    out.sort();
    out
}

fn all_variants(model: &SparseModel) -> Vec<(&'static str, Mecs)> {
    pool().install(|| {
        vec![
            ("sequential", maximal_end_components_sequential(model)),
            ("parallel, threshold 1", maximal_end_components_with(model, &MecOptions { parallel_threshold: 1 })),
            ("parallel, threshold 3", maximal_end_components_with(model, &MecOptions { parallel_threshold: 3 })),
            ("default", maximal_end_components(model)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn mecs_are_the_maximal_end_components(spec in spec(1, 12, 3)) {
        let model = build(&spec, ModelType::Mdp);
        prop_assert_eq!(model.validate(), Ok(()));
        let want = oracle(&spec);
        for (name, mecs) in all_variants(&model) {
            prop_assert_eq!(&listed(&model, &mecs), &want, "{}", name);
            let summary = mecs.summary();
            prop_assert_eq!(summary.count, want.len());
            prop_assert_eq!(summary.states_in_mecs as usize, want.iter().map(|m| m.0.len()).sum::<usize>());
            prop_assert_eq!(summary.choices_in_mecs as usize, want.iter().map(|m| m.1.len()).sum::<usize>());
            for (k, (states, _)) in want.iter().enumerate() {
                for &s in states {
                    prop_assert_eq!(mecs.of(s), Some(k));
                }
            }
            let in_mec = want.iter().map(|m| m.0.len()).sum::<usize>();
            prop_assert_eq!((0..spec.len() as u32).filter(|&s| mecs.of(s).is_some()).count(), in_mec);
        }
    }

    #[test]
    fn bottom_sccs_of_chains(spec in spec(1, 12, 1)) {
        let model = build(&spec, ModelType::Dtmc);
        let want = bscc_oracle(&spec);
        let got = pool().install(|| bottom_sccs(&model)).unwrap();
        prop_assert_eq!(&listed(&model, &got), &want);
        for (name, mecs) in all_variants(&model) {
            prop_assert_eq!(&listed(&model, &mecs), &want, "{}", name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn parallel_equals_sequential_on_larger_models(spec in spec(50, 3000, 3)) {
        let model = build(&spec, ModelType::Mdp);
        let mut variants = all_variants(&model).into_iter();
        let (_, reference) = variants.next().unwrap();
        for (name, mecs) in variants {
            prop_assert!(mecs == reference, "{} differs from the sequential reference", name);
        }
        let wide = pool().install(|| maximal_end_components_with(&model, &MecOptions { parallel_threshold: 64 }));
        prop_assert!(wide == reference);
    }
}
