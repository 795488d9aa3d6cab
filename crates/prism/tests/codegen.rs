//! The generated C of every PRISM instance of `shared/markov`, compiled for the host,
//! against the CPU successor function on its reachable states (the first
//! [`CAP`] in breadth-first order):
//!
//! - `wc_branches` emits what `PrismSuccessors` emits, in the same order: the same
//!   targets, weights bit for bit, choice tags (the first command, [`NEW_CHOICE`] on
//!   each choice's first branch) and evaluation errors, and the same deadlocks;
//! - `wc_successors` and `wc_label` agree with the CPU ([`run_on_host`]);
//! - for the instances explored completely, the recorded builder fed with these
//!   emits (the states in a scrambled order) gives exactly the CPU
//!   builder's model: the GPU builder's host half, checked without a GPU.

use std::collections::HashMap;
use std::path::Path;

use warpcheck_markov::{build_recorded, BuildOptions, Recorded};
use warpcheck_model::cuda::host::run_on_host;
use warpcheck_model::cuda::{CudaModel, CudaSource};
use warpcheck_model::{Describe, Model, Successors};
use warpcheck_prism::PrismModel;

mod common;
use common::{cpu_emits, reachable, Emit};

/// Reachable states compared per instance.
const CAP: usize = 30_000;

/// A fresh directory for one test's compilations.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-prism-codegen-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// The emits and deadlock flags of the host-compiled code, generated for `labels`
/// labels.
fn host_emits(
    generated: &CudaSource,
    words: usize,
    labels: usize,
    states: &[Vec<u32>],
    dir: &Path,
) -> Vec<(Vec<Emit>, bool)> {
    common::host_run(generated, words, labels, states, dir).into_iter().map(|h| (h.emits, h.dead)).collect()
}

/// A recorded exploration of `states` (all reachable) from their emits, the states
/// in a scrambled order.
fn recorded(model: &PrismModel, states: &[Vec<u32>], emits: &[(Vec<Emit>, bool)]) -> Recorded {
    let n = states.len();
    let (perm, at) = common::scrambled(n);
    let words = model.state_words();
    let index: HashMap<&[u32], usize> = states.iter().enumerate().map(|(i, s)| (s.as_slice(), i)).collect();
    let mut r = Recorded {
        words,
        initial: model.initial_states().iter().map(|s| perm[index[s.as_slice()]] as u32).collect(),
        offsets: vec![0],
        ..Recorded::default()
    };
    for &i in &at {
        r.states.extend_from_slice(&states[i]);
        for e in &emits[i].0 {
            let Emit::Branch { target, weight, tag } = e else { panic!("an error emit in a recorded state") };
            r.targets.push(perm[index[target.as_slice()]] as u32);
            r.weights.push(f64::from_bits(*weight));
            r.tags.push(*tag);
        }
        r.offsets.push(r.targets.len() as u64);
    }
    r
}

#[test]
fn generated_code_emits_what_the_cpu_emits_and_rebuilds_the_cpu_model() {
    let dir = scratch("instances");
    let mut rebuilt = 0;
    let instances = common::prism_instances();
    assert!(instances.len() >= 20, "expected the PRISM instances of shared/markov, found {}", instances.len());
    for folder in &instances {
        let name = folder.file_name().and_then(|n| n.to_str()).expect("name").to_string();
        let model = common::load_instance(folder);
        let labels: Vec<usize> = (0..model.labels().len()).collect();
        let generated = model.cuda_source(&labels).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (states, complete) = reachable(&model, CAP);
        let words = model.state_words();
        let host = host_emits(&generated, words, labels.len(), &states, &dir);
        for (s, got) in states.iter().zip(&host) {
            assert_eq!(*got, cpu_emits(&model, s), "{name}: the emits of state {:?}", model.describe_state(s));
        }
        let results = run_on_host(&generated, words, labels.len(), &states, &dir).expect("run_on_host");
        for (s, r) in states.iter().zip(&results) {
            let mut cpu: Vec<Vec<u32>> = Vec::new();
            let mut errors = 0;
            let dead = model.successors().successors(s, |_, t| match t {
                Ok(t) => cpu.push(t.to_vec()),
                Err(_) => errors += 1,
            });
            cpu.sort();
            assert_eq!((&r.successors, r.errors, r.deadlock), (&cpu, errors, dead), "{name}: wc_successors");
            let holds: Vec<bool> = labels.iter().map(|&l| model.label(s, l) == Ok(true)).collect();
            assert_eq!(r.invariants, holds, "{name}: wc_label");
        }
        let errors = host.iter().any(|(e, _)| e.contains(&Emit::Error));
        if complete && !errors {
            let options = BuildOptions::default();
            let cpu = model.build(&options).expect("the CPU build");
            let rec = recorded(&model, &states, &host);
            let got = build_recorded(&rec, &model, model.model_type(), &model, &options).expect("the recorded build");
            assert!(got == cpu, "{name}: the recorded build differs from the CPU build");
            rebuilt += 1;
        }
    }
    assert!(rebuilt >= 15, "only {rebuilt} instances were rebuilt from recorded emits");
}

#[test]
fn evaluation_errors_and_integer_arithmetic_follow_the_cpu() {
    // Overflow, modulo by zero, out-of-range assignments and an erroring guard, each
    // reachable; plus the integer functions whose edge cases the C must get right.
    let source = "mdp
const int BIG = 9223372036854775807;
module m
  x : [0..6] init 0;
  y : [-3..3] init -3;
  [] x=0 -> 0.5 : (x'=1) + 0.5 : (x'=2);
  [] x=1 -> (x'=mod(7, y+3));
  [] x=2 & BIG + y + 3 > 0 -> (x'=3);
  [] x=2 -> (y'=y-1);
  [] x=3 -> (x'=pow(2, 3) - 5) & (y'=mod(-7, 3));
  [] x=3 & y=-3 -> 1/3 : (x'=4) + 2/3 : (y'=floor(-1.5) + 1);
  [] x=4 -> (x'=max(min(x+1, 9), 5)) & (y'=round(-1.5));
  [a] x=5 -> 0.25 : (x'=6) + 0.75 : true;
endmodule
module n
  z : bool init false;
  [a] !z -> (z'=true);
  [a] x=5 -> 0.5 : (z'=false) + 0.5 : true;
endmodule
label \"six\" = x=6 & pow(y, 40) > 0;
";
    let model = warpcheck_prism::load(source, &[]).expect("load");
    let generated = model.cuda_source(&[0]).expect("source");
    let (states, complete) = reachable(&model, 1000);
    assert!(complete);
    let dir = scratch("errors");
    let host = host_emits(&generated, model.state_words(), 1, &states, &dir);
    let mut errors = 0;
    for (s, got) in states.iter().zip(&host) {
        let cpu = cpu_emits(&model, s);
        errors += cpu.0.iter().filter(|e| **e == Emit::Error).count();
        assert_eq!(*got, cpu, "the emits of {:?}", model.describe_state(s));
    }
    assert!(errors >= 2, "the model should raise evaluation errors ({errors})");
    let results = run_on_host(&generated, model.state_words(), 1, &states, &dir).expect("run_on_host");
    for (s, r) in states.iter().zip(&results) {
        let label = model.label(s, 0);
        assert_eq!(r.invariants, vec![label == Ok(true)], "label in {:?}", model.describe_state(s));
    }
}

#[test]
fn choices_that_share_their_first_command_stay_apart() {
    // Action `a` synchronises one command of `p` with either of two of `q`: two choices
    // whose first command is the same, told apart only by the NEW_CHOICE tags.
    let source = "mdp
module p
  x : [0..2] init 0;
  [a] x<2 -> 0.5 : (x'=x+1) + 0.5 : true;
endmodule
module q
  y : [0..3] init 0;
  [a] y<3 -> (y'=y+1);
  [a] y<2 -> 0.25 : (y'=0) + 0.75 : (y'=2);
  [] y=3 -> (y'=0);
endmodule
";
    let model = warpcheck_prism::load(source, &[]).expect("load");
    let generated = model.cuda_source(&[]).expect("source");
    let (states, complete) = reachable(&model, 1000);
    assert!(complete);
    let host = host_emits(&generated, model.state_words(), 0, &states, &scratch("shared-first"));
    for (s, got) in states.iter().zip(&host) {
        assert_eq!(*got, cpu_emits(&model, s), "the emits of {:?}", model.describe_state(s));
    }
    let options = BuildOptions::default();
    let cpu = model.build(&options).expect("the CPU build");
    assert!(cpu.choices() > cpu.states() as u64 + 2, "the model has states with two synchronised choices");
    let got = build_recorded(&recorded(&model, &states, &host), &model, model.model_type(), &model, &options)
        .expect("the recorded build");
    assert!(got == cpu, "the recorded build differs from the CPU build");
}
