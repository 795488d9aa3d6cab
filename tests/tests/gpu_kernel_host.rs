//! The GPU engine's kernels (kernel.cu, over the flat and the compressed store)
//! compiled for the host with the system C++ compiler and run one thread after another,
//! level by level as the engine launches them (`wc_seed`, then `wc_advance` and
//! `wc_expand` until the search stops): the counts equal BEEM's reference and the CPU
//! engine's. CI has no GPU; this runs the kernels' logic there. Each emulated warp has
//! one thread, so the warp-wide steps (id claims, sums) are exercised at their edge.

use libloading::{Library, Symbol};
use warpcheck_conformance::*;
use warpcheck_explore::gpu::engine::{compressed_source, cuda_source, graph_source, GraphSpec, Tuning, CHECK_DEADLOCK};
use warpcheck_explore::gpu::partitioned::partitioned_source;
use warpcheck_explore::gpu::SetLayout;
use warpcheck_explore::leaf_order::{self, TreeSample};
use warpcheck_explore::{explore_parallel, Checks, Options, ViolationKind};
use warpcheck_model::cuda::{host::host_tables, CudaModel};
use warpcheck_model::Successors;

/// CUDA's built-ins for one host thread at a time, each block one thread (lane 0).
const SHIM: &str = r#"
#include <stdlib.h>
#include <string.h>
typedef unsigned int u32;
typedef unsigned long long u64;
#define __device__
#define __global__
#define __forceinline__ inline
#define __constant__
#define __noinline__ __attribute__((noinline))
#define WC_TABLE(name)
struct WcDim { u32 x, y, z; };
static WcDim threadIdx, blockIdx, blockDim, gridDim;
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline u32 __ldcg(const u32 *p) { return *p; }
static inline u64 __ldcg(const u64 *p) { return *p; }
static inline unsigned short __ldcg(const unsigned short *p) { return *p; }
static inline u64 atomicCAS(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicCAS(u32 *p, u32 e, u32 v) { u32 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicExch(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
static inline u64 atomicExch(u64 *p, u64 v) { u64 o = *p; *p = v; return o; }
static inline u32 atomicAdd(u32 *p, u32 v) { u32 o = *p; *p = o + v; return o; }
static inline u64 atomicAdd(u64 *p, u64 v) { u64 o = *p; *p = o + v; return o; }
static inline u32 atomicMin(u32 *p, u32 v) { u32 o = *p; if (v < o) *p = v; return o; }
static inline u64 atomicMin(u64 *p, u64 v) { u64 o = *p; if (v < o) *p = v; return o; }
static inline u32 atomicOr(u32 *p, u32 v) { u32 o = *p; *p = o | v; return o; }
static inline void __threadfence() {}
static inline void __syncwarp() {}
static inline u32 __activemask() { return 1u << (threadIdx.x & 31); }
static inline int __ffs(u32 x) { return __builtin_ffs(x); }
static inline int __popc(u32 x) { return __builtin_popcount(x); }
template <typename T> static inline T __shfl_sync(u32, T v, int) { return v; }
template <typename T> static inline T __shfl_down_sync(u32, T, int) { return 0; }
template <typename T> static inline T __shfl_up_sync(u32, T v, int) { return v; }
#define WC_LAST_LANE 0
static inline u32 __match_any_sync(u32, u32) { return 1u << (threadIdx.x & 31); }
static inline void __syncthreads() {}
#define __shared__ static
"#;

/// The partitioned search over `parts` partitions of host buffers, wired as
/// partitioned.rs connects them. Direct (peer access): the device-driven loop, per
/// level every partition's `wc_advance_parts`, then `wc_expand`, then
/// `wc_gather_fills` and `wc_receive` reading the senders' outboxes. Staged: levels
/// from the host, each partition's `wc_expand` over its level, then the outbox segments
/// copied into the owners' inboxes as transport.rs copies them (the senders' fills in
/// the second half of their fill words, the owners' in the first), then `wc_receive`
/// from the inboxes. `out`: states held in all, transitions, deadlocks, error steps,
/// why it stopped, levels, a full store or outbox.
const PARTITIONED_DRIVER: &str = r#"
#define WC_CTL 8
// With WC_GRAPH, where the graph of a finished search goes (room for `vertices` and
// `edges`): as partitioned_graph.rs builds it, every partition's `wc_part_edges` and
// `wc_part_parents` into one graph of global ids, and the states in that order. With
// `prefix`, a direct search that stopped for room gives the graph of the states it
// expanded (each partition's below its level's start, `expanded[p]`, from `base[p]`).
struct WcHostGraph {
  u64 *first;
  u32 *degree, *targets, *parents, *states;
  u64 vertices, edges, used;
  u32 flags[2];
  u32 prefix, *expanded, *base;
};
extern "C" void wc_host_explore_parts(const u32 *initial, u32 initials, u64 bound, u32 capacity, u32 room,
                                      u32 parts, u32 flags, u32 staged, u64 *out, WcHostGraph *graph) {
  u32 senders = parts - 1, categories = 2 + WC_ASSERTIONS + WC_INVARIANTS;
  u64 entries = 2 * (u64)capacity + 1;
  WcTable *tab = (WcTable *)calloc(parts, sizeof(WcTable));
  u32 **ctl = (u32 **)calloc(parts, sizeof(u32 *));
  u32 **outbox = (u32 **)calloc(parts, sizeof(u32 *)), **inbox = (u32 **)calloc(parts, sizeof(u32 *));
  u64 **counters = (u64 **)calloc(parts, sizeof(u64 *)), **viol = (u64 **)calloc(parts, sizeof(u64 *));
  u32 **first = (u32 **)calloc(parts, sizeof(u32 *)), **prev = (u32 **)calloc(parts, sizeof(u32 *));
  u32 ***out_data = (u32 ***)calloc(parts, sizeof(u32 **)), ***out_fill = (u32 ***)calloc(parts, sizeof(u32 **));
  const u32 ***in_data = (const u32 ***)calloc(parts, sizeof(u32 **));
  const u32 ***in_fill = (const u32 ***)calloc(parts, sizeof(u32 **));
  const u32 ***peer_fill = (const u32 ***)calloc(parts, sizeof(u32 **));
  u64 seg = (u64)room * (WC_WORDS + 1);
  for (u32 p = 0; p < parts; p++) {
    ctl[p] = (u32 *)calloc(WC_CTL + 2 * senders, 4);
    outbox[p] = (u32 *)calloc(senders * seg + 1, 4);
    inbox[p] = (u32 *)calloc(senders * seg + 1, 4);
    counters[p] = (u64 *)calloc(4, 8);
    viol[p] = (u64 *)calloc(categories, 8);
    first[p] = (u32 *)malloc(4 * categories);
    memset(first[p], 0xFF, 4 * categories);
    prev[p] = (u32 *)calloc(parts, 4);
    tab[p].states = (u32 *)calloc((size_t)capacity * WC_WORDS, 4);
    tab[p].parents = (u32 *)calloc(capacity, 4);
    tab[p].table = (u64 *)calloc(entries, 8);
    tab[p].capacity = entries;
    tab[p].count = ctl[p];
    tab[p].full = ctl[p] + 1;
    tab[p].limit = capacity;
    tab[p].parent_parts = (unsigned char *)calloc(capacity, 1);
    tab[p].out_full = ctl[p] + 6;
    tab[p].room = room;
    tab[p].own = p;
    tab[p].parts = parts;
  }
  for (u32 p = 0; p < parts; p++) {
    out_data[p] = (u32 **)calloc(parts, sizeof(u32 *));
    out_fill[p] = (u32 **)calloc(parts, sizeof(u32 *));
    in_data[p] = (const u32 **)calloc(parts, sizeof(u32 *));
    in_fill[p] = (const u32 **)calloc(parts, sizeof(u32 *));
    peer_fill[p] = (const u32 **)calloc(parts, sizeof(u32 *));
    for (u32 q = 0; q < parts; q++) {
      if (q == p) continue;
      u32 s = q - (q > p), back = p - (p > q);  // q's segment in p's outbox, p's in q's
      out_data[p][q] = outbox[p] + s * seg;
      if (staged) {
        out_fill[p][q] = ctl[p] + WC_CTL + senders + s;
        in_data[p][s] = inbox[p] + s * seg;
        in_fill[p][s] = ctl[p] + WC_CTL + s;
      } else {
        out_fill[p][q] = ctl[p] + WC_CTL + s;
        in_data[p][s] = outbox[q] + back * seg;
        in_fill[p][s] = ctl[p] + WC_CTL + senders + s;
        peer_fill[p][s] = ctl[q] + WC_CTL + back;
      }
    }
    tab[p].out_data = out_data[p];
    tab[p].out_fill = out_fill[p];
  }
  gridDim.x = 1; blockDim.x = 1; blockIdx.x = 0; threadIdx.x = 0;
  for (u32 p = 0; p < parts; p++)
    for (u32 i = 0; i < initials; i++) wc_seed(tab[p], initial + (u64)i * WC_WORDS);
  u32 *at = (u32 *)calloc(parts, 4), *hi = (u32 *)calloc(parts, 4), levels = 0, why = 0;
  // A bound on levels, so that a search that never stops fails instead of hanging.
  for (u32 level = 0; staged && level < 1000000; level++) {
    // The next level of each partition starts where the last ended; it must fit the
    // outbox segments and every store (the host's chunks, in one here).
    u64 total = 0;
    for (u32 p = 0; p < parts; p++) { at[p] = hi[p]; hi[p] = ctl[p][0]; total += hi[p] - at[p]; }
    if (total == 0) { why = 1; break; }
    for (u32 p = 0; p < parts; p++)
      if ((u64)(hi[p] - at[p]) * bound > room || ctl[p][0] >= capacity || total * bound > capacity - ctl[p][0])
        why = 2;
    if (why) break;
    levels++;
    gridDim.x = 4;
    for (u32 p = 0; p < parts; p++)
      for (u32 b = 0; b < gridDim.x; b++) {
        blockIdx.x = b;
        wc_expand(tab[p], at[p], hi[p], 0, counters[p], first[p], viol[p], flags);
      }
    // The transport: each sender's segment for an owner into the owner's inbox segment
    // for that sender, and its count into the owner's fill.
    for (u32 to = 0; to < parts; to++)
      for (u32 from = 0; from < parts; from++) {
        if (from == to) continue;
        u32 s = to - (to > from), back = from - (from > to);
        u32 n = ctl[from][WC_CTL + senders + s];
        memcpy(inbox[to] + back * seg, outbox[from] + s * seg, (size_t)n * (WC_WORDS + 1) * 4);
        ctl[to][WC_CTL + back] = n;
      }
    gridDim.x = 3;
    for (u32 p = 0; p < parts; p++)
      for (u32 b = 0; b < gridDim.x; b++) {
        blockIdx.x = b;
        wc_receive(tab[p], 0, in_data[p], in_fill[p]);
      }
    for (u32 p = 0; p < parts; p++) memset(ctl[p] + WC_CTL, 0, 8 * senders);
  }
  for (u32 level = 0; !staged && level < 1000000; level++) {
    for (u32 p = 0; p < parts; p++) wc_advance_parts(tab[p], ctl[p], ctl, (const u64 *const *)viol, categories, 0, prev[p], bound);
    int stopped = 1;
    for (u32 p = 0; p < parts; p++) stopped &= ctl[p][4] != 0;
    if (stopped) break;
    gridDim.x = 4;
    for (u32 p = 0; p < parts; p++)
      for (u32 b = 0; b < gridDim.x; b++) {
        blockIdx.x = b;
        wc_expand(tab[p], 0, 0, ctl[p], counters[p], first[p], viol[p], flags);
      }
    for (u32 p = 0; p < parts; p++) {
      gridDim.x = 1; blockIdx.x = 0;
      for (u32 t = 0; t < senders; t++) {
        threadIdx.x = t;
        wc_gather_fills(ctl[p], ctl[p] + WC_CTL + senders, peer_fill[p], senders);
      }
      threadIdx.x = 0;
      gridDim.x = 3;
      for (u32 b = 0; b < gridDim.x; b++) {
        blockIdx.x = b;
        wc_receive(tab[p], ctl[p], in_data[p], in_fill[p]);
      }
    }
  }
  for (u32 i = 0; i < 7; i++) out[i] = 0;
  for (u32 p = 0; p < parts; p++) {
    out[0] += ctl[p][0]; out[1] += counters[p][0]; out[2] += counters[p][1]; out[3] += counters[p][2];
    out[6] |= ctl[p][1] | ctl[p][6];
  }
  out[4] = staged ? why : ctl[0][4]; out[5] = staged ? levels : ctl[0][5];
#ifdef WC_GRAPH
  int prefix = graph && graph->prefix && !staged && out[4] == 2;
  if (graph && (out[4] == 1 || prefix) && out[0] <= graph->vertices && out[1] <= graph->edges) {
    u32 *bases = (u32 *)calloc(parts, 4), total = 0;
    for (u32 p = 0; p < parts; p++) { bases[p] = total; total += ctl[p][0]; }
    for (u32 p = 0; p < parts; p++) {
      graph->expanded[p] = prefix ? prev[p][p] : ctl[p][0];
      graph->base[p] = bases[p];
    }
    WcGraph g = {graph->first, graph->degree, graph->targets, &graph->used, graph->edges, graph->flags,
                 graph->flags + 1};
    gridDim.x = 3;
    for (u32 p = 0; p < parts; p++)
      for (u32 b = 0; b < gridDim.x; b++) {
        blockIdx.x = b;
        wc_part_edges(tab[p], tab, bases, g, graph->expanded[p]);
        wc_part_parents(tab[p], bases, ctl[p][0], graph->parents);
      }
    for (u32 p = 0; p < parts; p++)
      memcpy(graph->states + (u64)bases[p] * WC_WORDS, tab[p].states, (size_t)ctl[p][0] * WC_WORDS * 4);
    free(bases);
  }
#endif
  for (u32 p = 0; p < parts; p++) {
    free(tab[p].states); free(tab[p].parents); free(tab[p].table); free(tab[p].parent_parts);
    free(ctl[p]); free(outbox[p]); free(inbox[p]); free(counters[p]); free(viol[p]); free(first[p]); free(prev[p]);
    free(out_data[p]); free(out_fill[p]); free(in_data[p]); free(in_fill[p]); free(peer_fill[p]);
  }
  free(at); free(hi); free(inbox);
  free(tab); free(ctl); free(outbox); free(counters); free(viol); free(first); free(prev);
  free(out_data); free(out_fill); free(in_data); free(in_fill); free(peer_fill);
}
"#;

/// The engine's level loop over host buffers; `out`: states found, transitions,
/// deadlocks, error steps, accepting states, why it stopped, levels, the full flag,
/// entries taken in the sets (compressed), the first deadlock's id. Then `wc_host_path`
/// rebuilds the path to that deadlock as the engine's host does (the parents, or the
/// compressed store's levels and `wc_find_parent`) and unpacks its states.
const DRIVER: &str = r#"
static u32 *states, *parents;
static wc_id *levels, ctl[8];
static u64 *table, *slots, fill[2];
static u32 *roots, *spill, *nodes;
static WcTable tab;
// The first id: the compressed store's ids are 64-bit, and start just below 2^32 here,
// so that a 32-bit truncation anywhere in the kernels shows in the counts and paths.
#ifdef WC_TREE
static const u64 id_base = 0xFFFFFFFDull;
#else
static const u64 id_base = 0;
#endif
static void wc_host_free() {
  free(states); free(parents); free(table); free(nodes); free(levels); free(slots); free(roots); free(spill);
  states = parents = 0; levels = 0; table = slots = 0; roots = spill = nodes = 0;
}
// The compressed store's sets laid out as `roots_at` and `nodes_at` say (SetLayout:
// buckets, kept bits, bytes of a lower part, (2^64 - 1) / buckets, words of a bucket,
// the most shifts);
// the flat store ignores them.
static void wc_host_set(WcSet *set, u32 *table, const u64 *layout) {
  set->table = table; set->buckets = layout[0]; set->rem_bits = (u32)layout[1];
  set->lo_bytes = (u32)layout[2]; set->inv = layout[3]; set->shifts = (u32)layout[5];
  set->fill_limit = layout[0] * 32 * 9 / 10;
}
extern "C" void wc_host_explore(const u32 *initial, u32 initials, u64 bound, u32 capacity, u32 flags, u64 *out,
                                const u64 *roots_at, const u64 *nodes_at) {
  wc_host_free();
  u64 entries = 2 * (u64)capacity + 1;
  states = (u32 *)calloc((size_t)capacity * WC_WORDS, 4);
  parents = (u32 *)calloc(capacity, 4);
  // The compressed store keeps the last third of its set of roots' buckets apart, as in
  // host memory past the device's. (Zeroed by the allocator: a large set's untouched
  // pages cost nothing.)
  u64 spilled = roots_at[0] / 3;
  table = (u64 *)calloc(entries, 8);
  roots = (u32 *)calloc((roots_at[0] - spilled) * roots_at[4], 4);
  spill = (u32 *)calloc(spilled * roots_at[4] + 1, 4);
  nodes = (u32 *)calloc(nodes_at[0] * nodes_at[4], 4);
  levels = (wc_id *)calloc(capacity + 1, sizeof(wc_id));
  slots = (u64 *)calloc(capacity, 8);
  u32 categories = 2 + WC_ASSERTIONS + WC_INVARIANTS;
  memset(ctl, 0, sizeof ctl);
  ctl[0] = ctl[3] = (wc_id)id_base;
  fill[0] = fill[1] = 0;
  u64 counters[4] = {0}, viol_count[64] = {0};
  wc_id viol_first[64];
  memset(viol_first, 0xFF, sizeof viol_first);
  memset(&tab, 0, sizeof tab);
  tab.count = &ctl[0];
  tab.full = (u32 *)&ctl[1];  // the low half of a 64-bit word (little-endian)
  tab.limit = id_base + capacity;
#ifdef WC_TREE
  tab.slots = (u64 *)((unsigned long)slots - id_base * 8);  // slots[id_base] is slots[0]
  wc_host_set(&tab.tree.roots, roots, roots_at);
  wc_host_set(&tab.tree.nodes, nodes, nodes_at);
  tab.tree.roots.spill = spill;
  tab.tree.roots.spilled = spilled;
  tab.tree.nodes.fill = &fill[0];
  tab.tree.roots.fill = &fill[1];
  tab.tree.full = (u32 *)&ctl[1];
  tab.levels = levels;
  tab.level_room = capacity + 1;
#else
  tab.states = states;
  tab.table = table;
  tab.capacity = entries;
#endif
  tab.parents = parents;
  gridDim.x = 1; blockDim.x = 1; blockIdx.x = 0; threadIdx.x = 0;
  for (u32 i = 0; i < initials; i++) wc_seed(tab, initial + (u64)i * WC_WORDS);
  gridDim.x = 5;
  // A bound on levels, so that a search that never stops fails instead of hanging.
  for (u32 level = 0; level < 1000000; level++) {
    wc_advance(ctl, bound, (wc_id)(id_base + capacity), viol_count, categories, 0, tab.levels, tab.level_room);
    if (ctl[4]) break;
    for (u32 b = 0; b < gridDim.x; b++) {
      blockIdx.x = b;
      wc_expand(tab, 0, 0, ctl, counters, viol_first, viol_count, flags);
    }
  }
  out[0] = ctl[0] - id_base; out[1] = counters[0]; out[2] = counters[1]; out[3] = counters[2]; out[4] = counters[3];
  out[5] = ctl[4]; out[6] = ctl[5]; out[7] = ctl[1]; out[8] = fill[0] + fill[1];
  out[9] = viol_first[0] == ~(wc_id)0 ? ~0ull : viol_first[0];
}
// The states of the path to state `id` into `out` (room for `room` states): its length.
extern "C" u32 wc_host_path(u64 id, u32 *out, u32 room) {
  wc_id ids[4096];
  u32 n = 0;
  ids[n++] = id;
#ifdef WC_TREE
  u32 started = (u32)ctl[5], level = 0;
  while (level + 1 < started && levels[level + 1] <= id) level++;
  WcTable find = tab;
  find.tree.find_only = 1;
  gridDim.x = 3;
  for (u32 k = level; k-- > 0;) {
    wc_id found = ~(wc_id)0;
    u64 target = tab.slots[ids[n - 1]];
    for (u32 b = 0; b < gridDim.x; b++) {
      blockIdx.x = b;
      wc_find_parent(find, levels[k], levels[k + 1], target, &found);
    }
    if (found == ~(wc_id)0 || n == 4096) return 0;
    ids[n++] = found;
  }
#else
  while (parents[ids[n - 1]] != 0xFFFFFFFFu && n < 4096) { ids[n] = parents[ids[n - 1]]; n++; }
#endif
  if (n > room) return 0;
  for (u32 i = 0; i < n; i++) {
    u32 *s = out + (u64)i * WC_WORDS;
#ifdef WC_TREE
    u32 idx[WC_TREE_INNER];
    wc_unpack(&tab, ids[n - 1 - i], s, idx);
#else
    memcpy(s, states + (u64)ids[n - 1 - i] * WC_WORDS, 4 * WC_WORDS);
#endif
  }
  return n;
}
"#;

/// Counts of one emulated run: states (the error state included), transitions,
/// deadlocks.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    states: u64,
    transitions: u64,
    deadlocks: u64,
}

/// Which store an emulated run explores with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Store {
    Flat,
    /// The compressed store, its sets sized with the store (8-byte entries).
    Compressed,
    /// The compressed store with a card's sets (2^24 buckets and more, 6-byte entries),
    /// mostly untouched.
    Compact,
}

impl Store {
    /// The stores a model is run with: the flat one, and the compressed one (every other
    /// model with a card's compact sets).
    fn for_model(nth: usize) -> &'static [Store] {
        match nth % 2 {
            0 => &[Store::Flat, Store::Compressed],
            _ => &[Store::Flat, Store::Compact],
        }
    }
}

/// Explores `model` with the kernels on the host over `store`, with a store of
/// `capacity` states doubled until the search is done; also the states of the path to
/// the first deadlock found, if any.
fn emulate(model: &impl CudaModel, store: Store) -> (Counts, u64, Option<Vec<Vec<u32>>>) {
    let compressed = store != Store::Flat;
    let generated = model.cuda_source(&[]).expect("generated code");
    let words = model.state_words().max(1);
    let kernels = if compressed {
        compressed_source(&generated, &Tuning::from_env(), &leaf_order::for_model(model))
    } else {
        cuda_source(&generated)
    };
    let library = load(&generated, &kernels, DRIVER);
    let (initial, initials) = initial_states(model, words);
    let mut capacity = 1024u32;
    loop {
        let mut out = [0u64; 10];
        // Sized with the store, or a card's (not a power of two buckets).
        let layout = match store {
            Store::Compact => SetLayout::of_buckets((1 << 24) + 777),
            _ => SetLayout::at_least(2 * capacity as u64 + 1),
        };
        assert_eq!(layout.entry_bytes() == 6, store == Store::Compact);
        let l = layout;
        let at = [l.buckets, l.rem_bits as u64, l.lo_bytes as u64, l.inv(), l.bucket_words(), l.shifts() as u64];
        // SAFETY: `wc_host_explore` has this signature in DRIVER; `initial` holds
        // `initials` states of `WC_WORDS` words and `out` the ten values it writes.
        unsafe {
            type Explore = unsafe extern "C" fn(*const u32, u32, u64, u32, u32, *mut u64, *const u64, *const u64);
            let run: Symbol<Explore> = library.get(b"wc_host_explore").expect("the driver");
            let bound = generated.max_successors;
            run(
                initial.as_ptr(),
                initials,
                bound,
                capacity,
                CHECK_DEADLOCK,
                out.as_mut_ptr(),
                at.as_ptr(),
                at.as_ptr(),
            );
        }
        // Stopped for room (2, as the engine's STOP_ROOM), or a full table: a larger store.
        if out[5] == 2 {
            capacity = capacity.checked_mul(2).expect("a store of fewer than 2^32 states");
            continue;
        }
        assert_eq!((out[5], out[7]), (1, 0), "the search ends done, with no overflow");
        let error_state = (out[3] > 0) as u64;
        let counts = Counts { states: out[0] + error_state, transitions: out[1], deadlocks: out[2] + error_state };
        let path = (out[9] != u64::MAX).then(|| {
            let mut states = vec![0u32; 4096 * words];
            // SAFETY: as above; `states` has room for the 4,096 states the driver may write.
            let n = unsafe {
                let path: Symbol<unsafe extern "C" fn(u64, *mut u32, u32) -> u32> =
                    library.get(b"wc_host_path").expect("the path");
                path(out[9], states.as_mut_ptr(), 4096)
            };
            assert!(n > 0, "the path to the deadlock was rebuilt");
            states.chunks(words).take(n as usize).map(|s| s[..model.state_words()].to_vec()).collect()
        });
        return (counts, out[8], path);
    }
}

/// The host compilation of `kernels` (with the model's tables) and `driver`, loaded.
fn load(generated: &warpcheck_model::cuda::CudaSource, kernels: &str, driver: &str) -> Library {
    let unit = format!("{SHIM}{}{kernels}{driver}", host_tables(generated));
    let built = warpcheck_native::compile::build(&unit).unwrap_or_else(|e| panic!("host compilation: {e}"));
    // SAFETY: the library is the unit above; loading it runs no initialisers beyond the
    // C++ runtime's.
    let library = unsafe { Library::new(&built.path) }.expect("load the host kernels");
    if built.temporary {
        let _ = std::fs::remove_file(&built.path);
    }
    library
}

/// BEEM's reference rows of DiVinE 2.4's counts up to `states` states, smallest first.
fn divine_references_up_to(beem: &std::path::Path, states: u64) -> Vec<Reference> {
    let mut rows: Vec<Reference> =
        references(beem).into_iter().filter(|r| r.states <= states && r.source == "divine-2.4").collect();
    rows.sort_by_key(|r| r.states);
    rows
}

/// The model's initial states back to back, each padded to `words`, and their number.
fn initial_states(model: &impl CudaModel, words: usize) -> (Vec<u32>, u32) {
    let mut initial = Vec::new();
    for mut state in model.initial_states() {
        state.resize(words, 0);
        initial.extend(state);
    }
    let n = (initial.len() / words) as u32;
    (initial, n)
}

/// BEEM instances up to 60,000 states, in both stores (the compressed one on models of
/// 1 and 2 words too, whose root key is the state): BEEM's counts, and paths to the
/// first deadlock of the length the flat store's parents give, each step a step of the
/// model.
#[test]
fn kernels_on_the_host_reproduce_beem_counts_with_both_stores() {
    let beem = beem_dir();
    let rows = divine_references_up_to(&beem, 60_000);
    let (mut compressed_runs, mut compact_runs, mut traces, mut narrow) = (0, 0, 0, 0);
    let (mut all_nodes, mut unshared) = (0.0, 0.0);
    let mut failures = Vec::new();
    for (nth, r) in rows.iter().step_by(3).enumerate() {
        let model = load_file(&r.model_path(&beem)).model;
        let want = Counts { states: r.states, transitions: r.transitions, deadlocks: r.deadlocks.unwrap_or(0) };
        let mut flat_trace = None;
        for &store in Store::for_model(nth) {
            let compressed = store != Store::Flat;
            compact_runs += (store == Store::Compact) as usize;
            let (got, taken, trace) = emulate(&model, store);
            let steps = trace.as_ref().map(|t| t.len() - 1);
            if !compressed {
                flat_trace = steps;
            } else if let Err(e) = check_trace(&model, trace.as_deref(), flat_trace) {
                failures.push(format!("{} ({store:?}): {e}", r.instance));
            }
            traces += (compressed && trace.is_some()) as usize;
            if got != want {
                failures.push(format!("{} ({store:?}): {got:?}, reference {want:?}", r.instance));
            }
            if compressed {
                compressed_runs += 1;
                narrow += (model.state_words() < 3) as usize;
                // The sets hold a root per state and each distinct half once, which is
                // what the sample that sizes the store counts (here the whole space).
                let whole = TreeSample::of(&model, usize::MAX);
                let halves = whole.nodes_per_state(&leaf_order::for_model(&model)) * got.states as f64;
                let (roots, nodes) = (got.states as f64, taken as f64 - got.states as f64);
                assert!(
                    nodes <= halves + 0.5 && nodes >= 0.9 * halves,
                    "{}: {nodes} nodes, {halves} halves",
                    r.instance
                );
                // Without sharing, every state would take all its inner nodes.
                (all_nodes, unshared) =
                    (all_nodes + nodes, unshared + roots * model.state_words().saturating_sub(2) as f64);
            }
        }
    }
    assert!(compressed_runs >= 10, "only {compressed_runs} instances ran compressed");
    assert!(compact_runs >= 5, "only {compact_runs} instances ran with compact sets");
    assert!(narrow >= 3, "only {narrow} instances of 1 or 2 words ran compressed");
    assert!(all_nodes < 0.5 * unshared, "{all_nodes} inner nodes where {unshared} would share none");
    assert!(traces >= 5, "only {traces} compressed paths to deadlocks");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A rebuilt path to a deadlock: from an initial state, each state a successor of the
/// one before, the last without successors, as long as the CPU engine's (shortest).
fn check_trace(model: &impl CudaModel, path: Option<&[Vec<u32>]>, cpu: Option<usize>) -> Result<(), String> {
    let Some(path) = path else {
        return if cpu.is_none() { Ok(()) } else { Err("no path, the CPU found a deadlock".into()) };
    };
    if !model.initial_states().contains(&path[0]) {
        return Err(format!("the path starts at {:?}, not an initial state", path[0]));
    }
    let mut successors = model.successors();
    for pair in path.windows(2) {
        let mut found = false;
        successors.successors(&pair[0], |_, next| found |= next.is_ok_and(|n| n == pair[1].as_slice()));
        if !found {
            return Err(format!("no step from {:?} to {:?}", pair[0], pair[1]));
        }
    }
    if !successors.successors(path.last().unwrap(), |_, _| {}) {
        return Err("the path ends at a state with successors".into());
    }
    // A trace's length counts its steps: one fewer than the path's states.
    match cpu {
        Some(n) if n + 1 == path.len() => Ok(()),
        n => Err(format!("a path of {} states, the CPU's trace {n:?}", path.len())),
    }
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
    let mut traces = 0;
    for (nth, path) in files.iter().enumerate() {
        let model = load_file(path).model;
        let checks = Checks { deadlock: true, ..Checks::default() };
        let options = Options { threads: 1, checks, stop_at_first: false, ..Options::default() };
        let cpu = explore_parallel(&model, &options).expect("the CPU engine explores it");
        let cpu_deadlock = cpu.violations.iter().find(|v| matches!(v.kind, ViolationKind::Deadlock));
        let cpu_trace = cpu_deadlock.and_then(|v| v.trace.as_ref()).map(|t| t.len());
        let want = Counts { states: cpu.states, transitions: cpu.transitions, deadlocks: cpu.deadlocks };
        for &store in Store::for_model(nth) {
            let (got, _, trace) = emulate(&model, store);
            let name = path.file_name().unwrap().to_string_lossy();
            if got != want {
                failures.push(format!("{name} ({store:?}): {got:?}, CPU {want:?}"));
            }
            if let Err(e) = check_trace(&model, trace.as_deref(), cpu_trace) {
                failures.push(format!("{name} ({store:?}): {e}"));
            }
            traces += trace.is_some() as usize;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(traces >= 10, "only {traces} paths to deadlocks rebuilt");
}

/// `wc_host_explore_parts` of PARTITIONED_DRIVER.
type ExploreParts = unsafe extern "C" fn(*const u32, u32, u64, u32, u32, u32, u32, u32, *mut u64, *mut HostGraph);

/// `struct WcHostGraph` of PARTITIONED_DRIVER.
#[repr(C)]
struct HostGraph {
    first: *mut u64,
    degree: *mut u32,
    targets: *mut u32,
    parents: *mut u32,
    states: *mut u32,
    vertices: u64,
    edges: u64,
    used: u64,
    flags: [u32; 2],
    prefix: u32,
    expanded: *mut u32,
    base: *mut u32,
}

/// The graph of a partitioned search as `wc_part_edges` and `wc_part_parents` build it
/// on the host: per global vertex its state, successors, parent and whether it was
/// expanded.
struct PartGraph {
    states: Vec<Vec<u32>>,
    successors: Vec<Vec<u32>>,
    parents: Vec<u32>,
    expanded: Vec<bool>,
    transitions: u64,
}

/// Explores `model` in `parts` partitions (direct exchange) with the graph-recording
/// partitioned kernels on the host, then builds its graph; with `prefix`, stores of
/// that many states each, and the graph of the states expanded when they fill.
fn emulate_partitioned_graph(model: &impl CudaModel, parts: u32, prefix: Option<u32>) -> PartGraph {
    let generated = model.cuda_source(&[]).expect("generated code");
    let words = model.state_words().max(1);
    let spec = GraphSpec { source: "", extra_bytes_per_state: 0.0, edges_per_state: 0.0, prefix_on_full: false };
    let kernels = graph_source(&partitioned_source(&generated, &Tuning::from_env()), &generated, &spec);
    let library = load(&generated, &kernels, PARTITIONED_DRIVER);
    let (initial, initials) = initial_states(model, words);
    // A prefix's level fills the store, not an outbox segment: room for a whole store's
    // successors.
    let (mut capacity, mut room) = match prefix {
        Some(states) => (states, states.saturating_mul(generated.max_successors as u32)),
        None => (1024u32, 256u32),
    };
    loop {
        let (vertices, edges) = (capacity as usize * parts as usize, capacity as usize * parts as usize * 64);
        let (mut expanded, mut base) = (vec![0u32; parts as usize], vec![0u32; parts as usize]);
        let (mut first, mut degree) = (vec![0u64; vertices], vec![0u32; vertices]);
        let (mut targets, mut parents) = (vec![0u32; edges], vec![0u32; vertices]);
        let mut states = vec![0u32; vertices * words];
        let mut graph = HostGraph {
            first: first.as_mut_ptr(),
            degree: degree.as_mut_ptr(),
            targets: targets.as_mut_ptr(),
            parents: parents.as_mut_ptr(),
            states: states.as_mut_ptr(),
            vertices: vertices as u64,
            edges: edges as u64,
            used: 0,
            flags: [0; 2],
            prefix: prefix.is_some() as u32,
            expanded: expanded.as_mut_ptr(),
            base: base.as_mut_ptr(),
        };
        let mut out = [0u64; 7];
        // SAFETY: as in `emulate_partitioned`; `graph` names buffers of the sizes it says.
        unsafe {
            let run: Symbol<ExploreParts> = library.get(b"wc_host_explore_parts").expect("the driver");
            let bound = generated.max_successors;
            run(initial.as_ptr(), initials, bound, capacity, room, parts, 0, 0, out.as_mut_ptr(), &mut graph);
        }
        if out[4] == 2 && prefix.is_none() {
            capacity = capacity.checked_mul(2).expect("a store of fewer than 2^32 states");
            room = room.saturating_mul(2);
            continue;
        }
        let want = if prefix.is_some() { 2 } else { 1 };
        assert_eq!((out[4], out[6]), (want, 0), "the search ends done (or, for a prefix, full), with no overflow");
        assert!(out[1] <= edges as u64, "room for the {} edges", out[1]);
        assert_eq!(graph.flags, [0, 0], "every successor found in its owner's table, within the room");
        assert_eq!(graph.used, out[1], "one edge per transition");
        let n = out[0] as usize;
        let successors =
            (0..n).map(|v| targets[first[v] as usize..first[v] as usize + degree[v] as usize].to_vec()).collect();
        let mut is_expanded = vec![false; n];
        for (&b, &e) in base.iter().zip(&expanded) {
            is_expanded[b as usize..(b + e) as usize].iter_mut().for_each(|x| *x = true);
        }
        return PartGraph {
            states: states.chunks(words).take(n).map(|s| s[..model.state_words()].to_vec()).collect(),
            successors,
            parents: parents[..n].to_vec(),
            expanded: is_expanded,
            transitions: out[1],
        };
    }
}

/// Explores `model` with the partitioned kernels on the host, in `parts` partitions,
/// with the direct or the `staged` exchange, with stores and outbox segments doubled
/// until the search is done.
fn emulate_partitioned(model: &impl CudaModel, parts: u32, staged: bool) -> Counts {
    let generated = model.cuda_source(&[]).expect("generated code");
    let words = model.state_words().max(1);
    let kernels = partitioned_source(&generated, &Tuning::from_env());
    let library = load(&generated, &kernels, PARTITIONED_DRIVER);
    let (initial, initials) = initial_states(model, words);
    let (mut capacity, mut room) = (1024u32, 256u32);
    loop {
        let mut out = [0u64; 7];
        // SAFETY: `wc_host_explore_parts` has this signature in PARTITIONED_DRIVER;
        // `initial` holds `initials` states and `out` the seven values it writes; no
        // graph is asked for.
        unsafe {
            let run: Symbol<ExploreParts> = library.get(b"wc_host_explore_parts").expect("the driver");
            run(
                initial.as_ptr(),
                initials,
                generated.max_successors,
                capacity,
                room,
                parts,
                CHECK_DEADLOCK,
                staged as u32,
                out.as_mut_ptr(),
                std::ptr::null_mut(),
            );
        }
        // Stopped for room (a store or a segment too small for a level): larger ones.
        if out[4] == 2 {
            capacity = capacity.checked_mul(2).expect("a store of fewer than 2^32 states");
            room = room.saturating_mul(2);
            continue;
        }
        assert_eq!((out[4], out[6]), (1, 0), "the search ends done, with no overflow");
        let error_state = (out[3] > 0) as u64;
        return Counts { states: out[0] + error_state, transitions: out[1], deadlocks: out[2] + error_state };
    }
}

/// The partitioned search (several GPUs, or partitions of one) on the host, in two and
/// three partitions, each owner reading the senders' outboxes (direct) or its inbox
/// after the host copied them (staged): BEEM's counts.
#[test]
fn partitioned_kernels_on_the_host_reproduce_beem_counts() {
    let beem = beem_dir();
    let rows = divine_references_up_to(&beem, 30_000);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, r) in rows.iter().enumerate().step_by(4) {
        let model = load_file(&r.model_path(&beem)).model;
        let want = Counts { states: r.states, transitions: r.transitions, deadlocks: r.deadlocks.unwrap_or(0) };
        let parts = 2 + (i % 2) as u32;
        for staged in [false, true] {
            let got = emulate_partitioned(&model, parts, staged);
            runs += 1;
            if got != want {
                failures
                    .push(format!("{} ({parts} partitions, staged {staged}): {got:?}, reference {want:?}", r.instance));
            }
        }
    }
    assert!(runs >= 20, "only {runs} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The product graph of a partitioned search (LTL over partitions), built on the host
/// by `wc_part_edges` and `wc_part_parents` in two and three partitions: each vertex's
/// successors are the model's successors of its state (as a multiset), every state is
/// one vertex, and the parents form a breadth-first tree of the graph (a counterexample's
/// stem stays shortest). With BEEM instances of up to 20,000 states and the LTL models'
/// products.
#[test]
fn partitioned_graph_on_the_host_is_the_models_graph() {
    let beem = beem_dir();
    let rows = divine_references_up_to(&beem, 20_000);
    let mut checked = 0;
    for (i, r) in rows.iter().enumerate().step_by(5) {
        let model = load_file(&r.model_path(&beem)).model;
        let parts = 2 + (i % 2) as u32;
        let graph = emulate_partitioned_graph(&model, parts, None);
        assert_eq!(
            (graph.states.len() as u64, graph.transitions),
            (r.states, r.transitions),
            "{} in {parts} partitions",
            r.instance
        );
        check_graph(&model, &graph).unwrap_or_else(|e| panic!("{} in {parts} partitions: {e}", r.instance));
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} instances");
}

/// `graph` against the model: successors, one vertex per state, a breadth-first tree.
fn check_graph(model: &impl CudaModel, graph: &PartGraph) -> Result<(), String> {
    let index: std::collections::HashMap<&[u32], u32> =
        graph.states.iter().enumerate().map(|(v, s)| (s.as_slice(), v as u32)).collect();
    if index.len() != graph.states.len() {
        return Err("a state is two vertices".into());
    }
    let mut generator = model.successors();
    for (v, state) in graph.states.iter().enumerate() {
        if !graph.expanded[v] {
            if !graph.successors[v].is_empty() {
                return Err(format!("vertex {v} was not expanded but has successors"));
            }
            continue;
        }
        let mut want = Vec::new();
        generator.successors(state, |_, next| want.push(next.map(|s| s.to_vec())));
        let mut want: Vec<u32> = want
            .into_iter()
            .map(|next| match next {
                Ok(s) => index.get(s.as_slice()).copied().ok_or("a successor is no vertex"),
                Err(_) => Ok(0xFFFF_FFFD),
            })
            .collect::<Result<_, _>>()?;
        let mut got = graph.successors[v].clone();
        want.sort_unstable();
        got.sort_unstable();
        if got != want {
            return Err(format!("vertex {v}: successors {got:?}, the model's {want:?}"));
        }
    }
    // Depths by breadth-first search over the graph from the root.
    let root = graph.parents.iter().position(|&p| p == u32::MAX).ok_or("no root")?;
    let mut depth = vec![u32::MAX; graph.states.len()];
    depth[root] = 0;
    let mut queue = std::collections::VecDeque::from([root]);
    let n = depth.len();
    while let Some(u) = queue.pop_front() {
        for &w in graph.successors[u].iter().filter(|&&w| (w as usize) < n) {
            if depth[w as usize] == u32::MAX {
                depth[w as usize] = depth[u] + 1;
                queue.push_back(w as usize);
            }
        }
    }
    for (v, &p) in graph.parents.iter().enumerate().filter(|&(v, _)| v != root) {
        let parent = p as usize;
        if parent >= depth.len() || !graph.successors[parent].contains(&(v as u32)) || depth[parent] + 1 != depth[v] {
            return Err(format!("vertex {v} (depth {}): parent {p} is not one level up", depth[v]));
        }
    }
    // A prefix holds whole levels: every vertex expanded lies above every other.
    let depths = |expanded: bool| (0..depth.len()).filter(move |&v| graph.expanded[v] == expanded).map(|v| depth[v]);
    if let (Some(deepest), Some(shallowest)) = (depths(true).max(), depths(false).min()) {
        if deepest >= shallowest {
            return Err(format!("expanded states reach depth {deepest}, unexpanded ones start at {shallowest}"));
        }
    }
    Ok(())
}

/// Stores that fill: the graph of the states expanded before (a breadth-first prefix,
/// as the LTL check takes it), in two and three partitions: the model's successors for
/// those states, none for the others, whole levels.
#[test]
fn partitioned_prefix_graph_on_the_host_is_a_prefix_of_the_models_graph() {
    let beem = beem_dir();
    let rows = divine_references_up_to(&beem, 20_000);
    let mut prefixes = 0;
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.states >= 2_000).step_by(3) {
        let model = load_file(&r.model_path(&beem)).model;
        let parts = 2 + (i % 2) as u32;
        let graph = emulate_partitioned_graph(&model, parts, Some((r.states / 4 / parts as u64) as u32));
        let expanded = graph.expanded.iter().filter(|&&e| e).count();
        assert!(expanded > 0 && (graph.states.len() as u64) < r.states, "{}: a prefix", r.instance);
        check_graph(&model, &graph).unwrap_or_else(|e| panic!("{} in {parts} partitions: {e}", r.instance));
        prefixes += 1;
    }
    assert!(prefixes >= 5, "only {prefixes} instances");
}
