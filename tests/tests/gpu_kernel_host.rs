//! The GPU engine's kernels (kernel.cu, over the flat and the compressed store)
//! compiled for the host with the system C++ compiler and run one thread after another,
//! level by level as the engine launches them (`wc_seed`, then `wc_advance` and
//! `wc_expand` until the search stops): the counts equal BEEM's reference and the CPU
//! engine's. CI has no GPU; this runs the kernels' logic there. Each emulated warp has
//! one thread, so the warp-wide steps (id claims, sums) are exercised at their edge.

use libloading::{Library, Symbol};
use warpcheck_conformance::*;
use warpcheck_explore::gpu::engine::{compressed_source, cuda_source, Tuning, CHECK_DEADLOCK};
use warpcheck_explore::gpu::tree::sampled_nodes_per_state;
use warpcheck_explore::{explore_parallel, Checks, Options};
use warpcheck_model::cuda::{host::host_tables, CudaModel};

/// CUDA's built-ins for one host thread at a time, each block one thread (lane 0).
const SHIM: &str = r#"
#include <stdlib.h>
#include <string.h>
typedef unsigned int u32;
typedef unsigned long long u64;
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define WC_TABLE(name)
struct WcDim { u32 x, y, z; };
static WcDim threadIdx, blockIdx, blockDim, gridDim;
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline u32 __ldcg(const u32 *p) { return *p; }
static inline u64 __ldcg(const u64 *p) { return *p; }
static inline u64 atomicCAS(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicExch(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
static inline u64 atomicExch(u64 *p, u64 v) { u64 o = *p; *p = v; return o; }
static inline u32 atomicAdd(u32 *p, u32 v) { u32 o = *p; *p = o + v; return o; }
static inline u64 atomicAdd(u64 *p, u64 v) { u64 o = *p; *p = o + v; return o; }
static inline u32 atomicMin(u32 *p, u32 v) { u32 o = *p; if (v < o) *p = v; return o; }
static inline u32 atomicOr(u32 *p, u32 v) { u32 o = *p; *p = o | v; return o; }
static inline void __threadfence() {}
static inline void __syncwarp() {}
static inline u32 __activemask() { return 1u << (threadIdx.x & 31); }
static inline int __ffs(u32 x) { return __builtin_ffs(x); }
static inline int __popc(u32 x) { return __builtin_popcount(x); }
template <typename T> static inline T __shfl_sync(u32, T v, int) { return v; }
template <typename T> static inline T __shfl_down_sync(u32, T, int) { return 0; }
"#;

/// The engine's level loop over host buffers; `out`: states found, transitions,
/// deadlocks, error steps, accepting states, why it stopped, levels, the full flag,
/// table entries taken (compressed).
const DRIVER: &str = r#"
extern "C" void wc_host_explore(const u32 *initial, u32 initials, u64 bound, u32 capacity, u32 flags, u64 *out) {
  u64 entries = 2 * (u64)capacity + 1;
  u32 *states = (u32 *)calloc((size_t)capacity * WC_WORDS, 4);
  u32 *parents = (u32 *)calloc(capacity, 4);
  u64 *table = (u64 *)calloc(entries, 8);
  u32 *roots = (u32 *)calloc(entries / 32 + 1, 4);
  u32 ctl[8] = {0}, fill = 0, categories = 2 + WC_ASSERTIONS + WC_INVARIANTS;
  u64 counters[4] = {0}, viol_count[64] = {0};
  u32 viol_first[64];
  memset(viol_first, 0xFF, sizeof viol_first);
  WcTable tab;
  memset(&tab, 0, sizeof tab);
  tab.count = &ctl[0];
  tab.full = &ctl[1];
  tab.limit = capacity;
#ifdef WC_TREE
  tab.slots = states;
  tab.tree.table = table;
  tab.tree.capacity = entries;
  tab.tree.fill = &fill;
  tab.tree.full = &ctl[1];
  tab.tree.roots = roots;
  tab.tree.fill_limit = (u32)(entries * 9 / 10);
#else
  tab.states = states;
  tab.table = table;
  tab.capacity = entries;
#endif
  tab.parents = parents;
  gridDim.x = 1; blockDim.x = 1; blockIdx.x = 0; threadIdx.x = 0;
  for (u32 i = 0; i < initials; i++) wc_seed(tab, initial + (u64)i * WC_WORDS);
  gridDim.x = 5;
  for (;;) {
    wc_advance(ctl, bound, capacity, viol_count, categories, 0);
    if (ctl[4]) break;
    for (u32 b = 0; b < gridDim.x; b++) {
      blockIdx.x = b;
      wc_expand(tab, 0, 0, ctl, counters, viol_first, viol_count, flags);
    }
  }
  out[0] = ctl[0]; out[1] = counters[0]; out[2] = counters[1]; out[3] = counters[2]; out[4] = counters[3];
  out[5] = ctl[4]; out[6] = ctl[5]; out[7] = ctl[1]; out[8] = fill;
  free(states); free(parents); free(table); free(roots);
}
"#;

/// Counts of one emulated run: states (the error state included), transitions,
/// deadlocks, and the compressed store's table entries.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    states: u64,
    transitions: u64,
    deadlocks: u64,
}

/// Explores `model` with the kernels on the host, over the compressed store when
/// `compressed`, with a store of `capacity` states doubled until the search is done.
fn emulate(model: &impl CudaModel, compressed: bool) -> (Counts, u64) {
    let generated = model.cuda_source(&[]).expect("generated code");
    let words = model.state_words().max(1);
    let kernels =
        if compressed { compressed_source(&generated, &Tuning::from_env(), words) } else { cuda_source(&generated) };
    let unit = format!("{SHIM}{}{kernels}{DRIVER}", host_tables(&generated));
    let built = warpcheck_native::compile::build(&unit).unwrap_or_else(|e| panic!("host compilation: {e}"));
    // SAFETY: the library is the unit above; loading it runs no initialisers beyond the
    // C++ runtime's, and `wc_host_explore` is called with the signature DRIVER gives it.
    let library = unsafe { Library::new(&built.path) }.expect("load the host kernels");
    if built.temporary {
        let _ = std::fs::remove_file(&built.path);
    }
    let initial: Vec<u32> = model.initial_states().into_iter().flat_map(|s| pad(s, words)).collect();
    let initials = (initial.len() / words) as u32;
    let mut capacity = 1024u32;
    loop {
        let mut out = [0u64; 9];
        // SAFETY: as above; `initial` holds `initials` states of `WC_WORDS` words and
        // `out` the nine values the driver writes.
        unsafe {
            let run: Symbol<unsafe extern "C" fn(*const u32, u32, u64, u32, u32, *mut u64)> =
                library.get(b"wc_host_explore").expect("the driver");
            run(initial.as_ptr(), initials, generated.max_successors, capacity, CHECK_DEADLOCK, out.as_mut_ptr());
        }
        // Stopped for room (2, as the engine's STOP_ROOM), or a full table: a larger store.
        if out[5] == 2 {
            capacity = capacity.checked_mul(2).expect("a store of fewer than 2^32 states");
            continue;
        }
        assert_eq!((out[5], out[7]), (1, 0), "the search ends done, with no overflow");
        let error_state = (out[3] > 0) as u64;
        let counts = Counts { states: out[0] + error_state, transitions: out[1], deadlocks: out[2] + error_state };
        return (counts, out[8]);
    }
}

fn pad(mut state: Vec<u32>, words: usize) -> Vec<u32> {
    state.resize(words, 0);
    state
}

/// BEEM instances of 3 words or more, up to 60,000 states, in both stores: BEEM's counts.
#[test]
fn kernels_on_the_host_reproduce_beem_counts_with_both_stores() {
    let beem = beem_dir();
    let mut rows: Vec<Reference> =
        references(&beem).into_iter().filter(|r| r.states <= 60_000 && r.source == "divine-2.4").collect();
    rows.sort_by_key(|r| r.states);
    let mut compressed_runs = 0;
    let mut failures = Vec::new();
    for r in rows.iter().step_by(3) {
        let model = load_file(&r.model_path(&beem)).model;
        let want = Counts { states: r.states, transitions: r.transitions, deadlocks: r.deadlocks.unwrap_or(0) };
        let stores: &[bool] = if model.state_words() >= 3 { &[false, true] } else { &[false] };
        for &compressed in stores {
            let (got, taken) = emulate(&model, compressed);
            if got != want {
                failures.push(format!("{} (compressed {compressed}): {got:?}, reference {want:?}", r.instance));
            }
            if compressed {
                compressed_runs += 1;
                // The table holds a root per state and each distinct half once, which is
                // what the sample that sizes the store counts (here the whole space).
                let halves = sampled_nodes_per_state(&model, usize::MAX) * got.states as f64;
                let (roots, nodes) = (got.states as f64, taken as f64 - got.states as f64);
                assert!(
                    nodes <= halves + 0.5 && nodes >= 0.9 * halves,
                    "{}: {nodes} nodes, {halves} halves",
                    r.instance
                );
                assert!(roots + nodes < roots * (model.state_words() as f64 - 1.0), "{}: no sharing", r.instance);
            }
        }
    }
    assert!(compressed_runs >= 10, "only {compressed_runs} instances ran compressed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The semantic-rule models (evaluation errors, committed steps, rendezvous, buffered
/// channels): the CPU engine's counts, with both stores where the states are wide enough.
#[test]
fn kernels_on_the_host_agree_with_the_cpu_engine_on_the_semantic_rule_models() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("tests/models/semantics").map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 30, "semantic-rule models not found in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let model = load_file(path).model;
        let options = Options { threads: 1, checks: Checks::default(), stop_at_first: false, ..Options::default() };
        let cpu = explore_parallel(&model, &options).expect("the CPU engine explores it");
        let want = Counts { states: cpu.states, transitions: cpu.transitions, deadlocks: cpu.deadlocks };
        let stores: &[bool] = if model.state_words() >= 3 { &[false, true] } else { &[false] };
        for &compressed in stores {
            let (got, _) = emulate(&model, compressed);
            if got != want {
                let name = path.file_name().unwrap().to_string_lossy();
                failures.push(format!("{name} (compressed {compressed}): {got:?}, CPU {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
