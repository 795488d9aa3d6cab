//! The instances of `shared/markov`, for the tests.

use std::path::{Path, PathBuf};

use std::collections::HashMap;
use std::process::Command;

use warpcheck_model::cuda::host::{host_tables, HOST_DEFINES};
use warpcheck_model::cuda::CudaSource;
use warpcheck_model::{Model, Successors};
use warpcheck_prism::codegen::NEW_CHOICE;
use warpcheck_prism::PrismModel;

#[allow(dead_code)]
/// `shared/markov` beside the repository (or `$WARPCHECK_MARKOV`), or a panic naming
/// the path.
pub fn markov_dir() -> PathBuf {
    let dir = std::env::var_os("WARPCHECK_MARKOV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/markov"));
    assert!(
        dir.join("reference.json").is_file(),
        "the Markov test data is missing: expected {} (shared/markov beside the repository); \
         set WARPCHECK_MARKOV to its path",
        dir.display()
    );
    dir
}

/// The instance folders with a PRISM source, of every model type, sorted.
#[allow(dead_code)]
pub fn prism_instances() -> Vec<PathBuf> {
    let dir = markov_dir();
    let mut out = Vec::new();
    for kind in ["dtmc", "mdp", "ctmc"] {
        let Ok(entries) = std::fs::read_dir(dir.join(kind)) else { continue };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() && source_of(&path).is_some() {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn source_of(folder: &Path) -> Option<PathBuf> {
    std::fs::read_dir(folder).ok()?.map(|e| e.expect("entry").path()).find(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        (name.ends_with(".prism") || name.ends_with(".pm") || name.ends_with(".nm") || name.ends_with(".sm"))
            && name != "extra_labels.prism"
    })
}

#[allow(dead_code)]
/// The instance's model: its PRISM source with the extra labels appended, loaded
/// with the constants of `constants.txt`.
pub fn load_instance(folder: &Path) -> PrismModel {
    let source = source_of(folder).expect("a PRISM source");
    let mut text = std::fs::read_to_string(&source).expect("read source");
    if let Ok(extra) = std::fs::read_to_string(folder.join("extra_labels.prism")) {
        text.push('\n');
        text.push_str(&extra);
    }
    let constants = std::fs::read_to_string(folder.join("constants.txt")).expect("constants.txt");
    let constants: String =
        constants.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(",");
    let constants = warpcheck_prism::parse_constants(&constants).expect("constants");
    warpcheck_prism::load(&text, &constants)
        .unwrap_or_else(|d| panic!("{}", d.render(&source.display().to_string(), &text)))
}

/// One step as the generated code emits it: a branch (target, weight bits, choice tag)
/// or an evaluation error.
#[allow(dead_code)]
#[derive(Clone, Debug, PartialEq)]
pub enum Emit {
    Branch { target: Vec<u32>, weight: u64, tag: u32 },
    Error,
}

#[allow(dead_code)]
/// The first `cap` reachable states in breadth-first order, and whether that is all.
pub fn reachable(model: &PrismModel, cap: usize) -> (Vec<Vec<u32>>, bool) {
    let mut seen: HashMap<Vec<u32>, ()> = HashMap::new();
    let mut order = Vec::new();
    for s in model.initial_states() {
        if seen.insert(s.clone(), ()).is_none() {
            order.push(s);
        }
    }
    let mut worker = model.successors();
    let mut next = 0;
    while next < order.len() && order.len() < cap {
        let s = order[next].clone();
        next += 1;
        worker.successors(&s, |_, result| {
            if let Ok(t) = result {
                if seen.insert(t.to_vec(), ()).is_none() {
                    order.push(t.to_vec());
                }
            }
        });
    }
    let complete = next == order.len();
    order.truncate(cap);
    (order, complete)
}

#[allow(dead_code)]
/// What the CPU emits from `state`, tags as the generated code writes them.
pub fn cpu_emits(model: &PrismModel, state: &[u32]) -> (Vec<Emit>, bool) {
    let mut out = Vec::new();
    let mut last: Option<Vec<u32>> = None;
    let dead = model.successors().successors(state, |step, result| match result {
        Err(_) => out.push(Emit::Error),
        Ok(t) => {
            let fresh = last.as_deref() != Some(step.groups);
            last = Some(step.groups.to_vec());
            let tag = step.groups[0] | if fresh { NEW_CHOICE } else { 0 };
            out.push(Emit::Branch { target: t.to_vec(), weight: step.weight.expect("a weight").to_bits(), tag });
        }
    });
    (out, dead)
}

/// What the host-compiled code says of one state (see [`host_run`]).
#[allow(dead_code)]
#[derive(Clone, Debug, PartialEq)]
pub struct HostState {
    pub emits: Vec<Emit>,
    pub dead: bool,
    pub labels: Vec<i32>,
}

#[allow(dead_code)]
const HARNESS_HEAD: &str = r#"
#include <stdio.h>
#include <stdlib.h>
typedef struct { int unused; } WcSink;
static void wc_emit(WcSink *k, const u32 *t) { (void)k; (void)t; }
static void wc_emit_error(WcSink *k) { (void)k; }
typedef struct { int unused; } WcBranchSink;
static void wc_branch(WcBranchSink *k, const u32 *t, double w, u32 tag);
static void wc_branch_error(WcBranchSink *k) { u32 kind = 2; (void)k; fwrite(&kind, 4, 1, stdout); }
#define WC_BRANCHES
"#;

#[allow(dead_code)]
const HARNESS_MAIN: &str = r#"
static void wc_branch(WcBranchSink *k, const u32 *t, double w, u32 tag) {
  u32 kind = 1; (void)k;
  fwrite(&kind, 4, 1, stdout); fwrite(t, 4, WC_WORDS, stdout); fwrite(&w, 8, 1, stdout); fwrite(&tag, 4, 1, stdout);
}
int main(void) {
  u32 s[WC_WORDS];
  while (fread(s, 4, WC_WORDS, stdin) == WC_WORDS) {
    WcBranchSink k;
    u32 end[2] = { 3u, (u32)wc_branches(s, &k) };
    fwrite(end, 4, 2, stdout);
    for (int i = 0; i < WC_INVARIANTS; i++) { int v = wc_label(i, s); fwrite(&v, 4, 1, stdout); }
  }
  return 0;
}
"#;

/// What the host-compiled generated code says of each state: the emits of
/// `wc_branches`, whether it is a deadlock, and `wc_label` of each label the source was
/// generated for (1, 0, or -1 for an error).
#[allow(dead_code)]
pub fn host_run(
    generated: &CudaSource,
    words: usize,
    labels: usize,
    states: &[Vec<u32>],
    dir: &Path,
) -> Vec<HostState> {
    let (c, exe, input) = (dir.join("branches.cpp"), dir.join("branches"), dir.join("states.bin"));
    let source = format!("{HOST_DEFINES}{}{HARNESS_HEAD}{}{HARNESS_MAIN}", host_tables(generated), generated.source);
    std::fs::write(&c, source).expect("write the harness");
    let out = Command::new("c++")
        .args(["-x", "c++", "-std=c++17", "-O1", "-w", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("run c++");
    assert!(out.status.success(), "c++ failed on {}:\n{}", c.display(), String::from_utf8_lossy(&out.stderr));
    let bytes: Vec<u8> = states.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&input, bytes).expect("write the states");
    let run = Command::new(&exe).stdin(std::fs::File::open(&input).expect("open")).output().expect("run the harness");
    assert!(run.status.success(), "the harness failed");
    let data = run.stdout;
    let mut at = 0;
    let mut word = || {
        let w = u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes"));
        at += 4;
        w
    };
    let mut results = Vec::with_capacity(states.len());
    let mut emits = Vec::new();
    while results.len() < states.len() {
        match word() {
            1 => {
                let target: Vec<u32> = (0..words).map(|_| word()).collect();
                let weight = word() as u64 | (word() as u64) << 32;
                emits.push(Emit::Branch { target, weight, tag: word() });
            }
            2 => emits.push(Emit::Error),
            3 => {
                let dead = word() != 0;
                let labels = (0..labels).map(|_| word() as i32).collect();
                results.push(HostState { emits: std::mem::take(&mut emits), dead, labels });
            }
            kind => panic!("unexpected record {kind}"),
        }
    }
    results
}

/// A scrambled order of `n` states, as another explorer might number them:
/// `(perm, at)` with `perm[i]` the new number of state `i` and `at` its inverse.
#[allow(dead_code)]
pub fn scrambled(n: usize) -> (Vec<usize>, Vec<usize>) {
    // A bijection: 7919 is prime, so it is one unless it divides n.
    let perm: Vec<usize> =
        (0..n).map(|i| if n.is_multiple_of(7919) { n - 1 - i } else { (i * 7919 + 13) % n }).collect();
    let mut at = vec![0; n];
    for (i, &p) in perm.iter().enumerate() {
        at[p] = i;
    }
    (perm, at)
}
