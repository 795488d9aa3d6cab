//! weigh.cu (the GPU builder's second pass) compiled for the host with one-thread
//! stand-ins for the CUDA built-ins, run on every PRISM instance of `shared/markov`
//! explored completely within [`CAP`] states, laid out as the device lays them out
//! (states in a scrambled order, each state's recorded targets in a block of its own,
//! blocks in reverse order) and weighed in the batches `plan_batches` makes of small
//! limits: every step's weight (bit for bit) and choice tag equal the CPU's, and no
//! state is marked bad. A recorded target swapped with another of the same state
//! marks exactly that state.

#[path = "../../prism/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{cpu_emits, reachable, Emit};
use warpcheck_markov_gpu::builder::{plan_batches, WEIGH_SOURCE};
use warpcheck_model::cuda::CudaModel;

/// Reachable states per instance.
const CAP: usize = 30_000;

const STAND_INS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
struct WcDim { unsigned x; };
static const WcDim blockIdx = {0}, blockDim = {1}, gridDim = {1}, threadIdx = {0};
static unsigned atomicMin(unsigned *p, unsigned v) { unsigned o = *p; if (v < o) *p = v; return o; }
"#;

const MAIN: &str = r#"
static void *slurp(const char *dir, const char *name, size_t *bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); *bytes = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
  void *p = malloc(*bytes + 8);
  if (fread(p, 1, *bytes, f) != *bytes) exit(2);
  fclose(f);
  return p;
}
static void spill(const char *dir, const char *name, const void *p, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  fwrite(p, 1, bytes, f);
  fclose(f);
}
int main(int argc, char **argv) {
  const char *d = argv[1];
  size_t b;
  const u32 *states = (const u32 *)slurp(d, "states", &b);
  const u64 *first = (const u64 *)slurp(d, "first", &b);
  u64 count = b / 8;
  const u32 *degree = (const u32 *)slurp(d, "degree", &b);
  const u32 *targets = (const u32 *)slurp(d, "targets", &b);
  const u64 *offsets = (const u64 *)slurp(d, "offsets", &b);
  const u64 *batches = (const u64 *)slurp(d, "batches", &b);
  size_t nb = b / 16;
  u64 edges = offsets[count];
  double *weights = (double *)calloc(edges + 1, 8);
  u32 *tags = (u32 *)calloc(edges + 1, 4);
  u32 bad = 0xFFFFFFFFu;
  for (size_t k = 0; k < nb; k++) {
    u64 lo = batches[2 * k], hi = batches[2 * k + 1], m = offsets[hi] - offsets[lo];
    double *bw = (double *)malloc(8 * (m + 1));
    u32 *bt = (u32 *)malloc(4 * (m + 1));
    mk_weigh(states, count, first, degree, targets, offsets + lo, lo, hi, bw, bt, &bad);
    memcpy(weights + offsets[lo], bw, 8 * m);
    memcpy(tags + offsets[lo], bt, 4 * m);
    free(bw);
    free(bt);
  }
  spill(d, "weights", weights, 8 * edges);
  spill(d, "tags", tags, 4 * edges);
  spill(d, "bad", &bad, 4);
  return 0;
}
"#;

/// The little-endian bytes of 32-bit words.
fn bytes32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The little-endian bytes of 64-bit words.
fn bytes64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The device's layout of a recorded exploration and the expected weights and tags.
struct Layout {
    states: Vec<u32>,
    first: Vec<u64>,
    degree: Vec<u32>,
    targets: Vec<u32>,
    offsets: Vec<u64>,
    weights: Vec<f64>,
    tags: Vec<u32>,
}

fn layout(model: &warpcheck_prism::PrismModel, states: &[Vec<u32>]) -> Option<Layout> {
    let n = states.len();
    let (perm, at) = common::scrambled(n);
    let index: std::collections::HashMap<&[u32], usize> =
        states.iter().enumerate().map(|(i, s)| (s.as_slice(), i)).collect();
    let emits: Vec<Vec<Emit>> = states.iter().map(|s| cpu_emits(model, s).0).collect();
    if emits.iter().flatten().any(|e| *e == Emit::Error) {
        return None;
    }
    let mut l = Layout {
        states: Vec::new(),
        first: vec![0; n],
        degree: vec![0; n],
        targets: Vec::new(),
        offsets: vec![0],
        weights: Vec::new(),
        tags: Vec::new(),
    };
    for &i in &at {
        l.states.extend_from_slice(&states[i]);
        for e in &emits[i] {
            let Emit::Branch { weight, tag, .. } = e else { unreachable!() };
            l.weights.push(f64::from_bits(*weight));
            l.tags.push(*tag);
        }
        l.offsets.push(l.weights.len() as u64);
    }
    // Recorded blocks, last id first.
    for id in (0..n).rev() {
        l.first[id] = l.targets.len() as u64;
        l.degree[id] = emits[at[id]].len() as u32;
        for e in &emits[at[id]] {
            let Emit::Branch { target, .. } = e else { unreachable!() };
            l.targets.push(perm[index[target.as_slice()]] as u32);
        }
    }
    Some(l)
}

/// Compiles weigh.cu with `model_source` for the host.
fn compile(model_source: &str, dir: &Path) -> PathBuf {
    let (c, exe) = (dir.join("weigh.cpp"), dir.join("weigh"));
    let source = WEIGH_SOURCE.replace("// @@MODEL@@", model_source);
    std::fs::write(&c, format!("{STAND_INS}{source}{MAIN}")).unwrap();
    let out = Command::new("c++")
        .args(["-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("run c++");
    assert!(out.status.success(), "c++ failed on {}:\n{}", c.display(), String::from_utf8_lossy(&out.stderr));
    exe
}

/// Runs the weigh pass over `l` with `targets` as recorded: weights, tags and the
/// first bad state.
fn weigh(exe: &Path, dir: &Path, l: &Layout, targets: &[u32], batches: &[(usize, usize)]) -> (Vec<f64>, Vec<u32>, u32) {
    let flat: Vec<u64> = batches.iter().flat_map(|&(lo, hi)| [lo as u64, hi as u64]).collect();
    for (name, data) in [
        ("states", bytes32(&l.states)),
        ("first", bytes64(&l.first)),
        ("degree", bytes32(&l.degree)),
        ("targets", bytes32(targets)),
        ("offsets", bytes64(&l.offsets)),
        ("batches", bytes64(&flat)),
    ] {
        std::fs::write(dir.join(name), data).unwrap();
    }
    let run = Command::new(exe).arg(dir).output().expect("run the weigh harness");
    assert!(run.status.success(), "the weigh harness failed: {}", String::from_utf8_lossy(&run.stderr));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let weights = read("weights").chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    let tags = read("tags").chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let bad = u32::from_le_bytes(read("bad")[..4].try_into().unwrap());
    (weights, tags, bad)
}

#[test]
fn the_weigh_pass_gives_the_cpu_weights_and_tags_in_batches() {
    let dir = std::env::temp_dir().join(format!("warpcheck-weigh-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut weighed = 0;
    let mut mutated = 0;
    for folder in common::prism_instances() {
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        let model = common::load_instance(&folder);
        let (states, complete) = reachable(&model, CAP);
        if !complete {
            continue;
        }
        let Some(l) = layout(&model, &states) else { continue };
        let generated = model.cuda_source(&[]).unwrap();
        let exe = compile(&generated.source, &dir);
        let n = states.len();
        let most_degree = l.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let batches = plan_batches(&l.offsets, most_degree.max(l.weights.len() as u64 / 7), n / 5 + 1).unwrap();
        assert!(batches.len() >= 3 || n < 10, "{name}: {} batches", batches.len());
        let (weights, tags, bad) = weigh(&exe, &dir, &l, &l.targets, &batches);
        assert_eq!(bad, u32::MAX, "{name}: state {bad} marked bad");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&weights) == bits(&l.weights), "{name}: weights");
        assert_eq!(tags, l.tags, "{name}: tags");
        weighed += 1;
        // Two different recorded targets of one state swapped: that state is bad.
        let swap = (0..n).find_map(|id| {
            let block = l.first[id] as usize..l.first[id] as usize + l.degree[id] as usize;
            let t = &l.targets[block.clone()];
            (1..t.len()).find(|&k| t[k] != t[0]).map(|k| (id, block.start, block.start + k))
        });
        if let Some((id, a, b)) = swap {
            let mut targets = l.targets.clone();
            targets.swap(a, b);
            let (_, _, bad) = weigh(&exe, &dir, &l, &targets, &batches);
            assert_eq!(bad as usize, id, "{name}: the swapped targets of state {id}");
            mutated += 1;
        }
    }
    assert!(weighed >= 15 && mutated >= 10, "weighed {weighed}, mutated {mutated}");
}

#[test]
fn models_with_too_many_steps_per_state_are_refused_before_the_gpu_is_touched() {
    let folder = common::markov_dir().join("dtmc/herman-11");
    let model = common::load_instance(&folder);
    assert!(model.successor_bound() > warpcheck_markov_gpu::builder::MAX_STEPS);
    let options = warpcheck_markov_gpu::GpuBuildOptions::default();
    match warpcheck_markov_gpu::build_gpu(&model, model.model_type(), &options) {
        Err(warpcheck_markov_gpu::GpuBuildError::Gpu(e)) => {
            assert!(e.to_string().contains("the GPU builder takes at most 1024"), "{e}")
        }
        other => panic!("expected a refusal, got {:?}", other.map(|b| b.model.states())),
    }
}
