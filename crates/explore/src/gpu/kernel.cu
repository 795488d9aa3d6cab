// The breadth-first exploration kernels of warpcheck's GPU engine. The model's
// generated functions (see codegen.rs) are pasted at the @@MODEL@@ line.
//
// State store: states live back to back in `states` (WC_WORDS words each) in the order
// they were found, so that a BFS level is a contiguous range of ids and needs no queue;
// `parents[id]` is the id of the state that found it. A hash table of 64-bit entries
// (high half: a 32-bit tag from the hash, with its low bit set so that no entry is 0;
// low half: the state id, or BUSY while the inserting thread copies the state) maps
// states to ids, with linear probing from a position given by the hash's high bits.
// An insert claims an empty entry with one compare-and-swap, takes the next id, writes
// the state and publishes the id (release); readers that find BUSY wait for the id
// (acquire). The host guarantees room for every successor of a launch, and an id past
// the end sets `full` (the run then fails; no state is ever silently dropped).
//
// With WC_TREE defined, the store is compressed (tree.cu, tree.rs): `slots[id]` is
// state id's root key, a pair of halves (each a word or an entry of the set of inner
// nodes), and a successor is packed against the tree of the state it came from. The
// sets keep no ids, so an insertion says only whether the state is new. The store
// keeps no parents either: `levels[k]` is the first id of level k (wc_advance notes
// it), and a counterexample is rebuilt backwards, a level at a time, by
// `wc_find_parent`. Its ids (`wc_id`) are 64-bit, so it holds more than 2^32 states:
// the control block, the levels' first ids and the violations' ids are 64-bit words.
//
// With WC_GRAPH defined (LTL, see ltl.cu; state graphs, state_graph.rs), expanding a
// state also records its successors' ids as the graph's adjacency: `first[id]`,
// `degree[id]` and the targets back to back in `targets`, a block per state reserved
// one atomic per warp; a step that raises an evaluation error is an edge to
// WC_ERROR_TARGET (the error state, numbered after exploration). Running out of edge
// room sets the overflow flags (the run fails; no edge is ever dropped).
//
// With WC_PARTITIONED defined (partitioned.rs), the store is one of `parts` partitions,
// perhaps on other GPUs: a state belongs to the partition that bits 16..31 of its hash
// name (the table position takes the high bits, so a partition's states still spread
// over its whole table). A successor of another partition is appended, with its
// parent's id, to the place `out_data[owner]` names, its slot claimed from
// `out_fill[owner]` one atomic per group of lanes with the same owner: always a local
// outbox segment, so that the expansion writes and counts in its own memory only. The
// owner's `wc_receive` reads it there when GPUs reach each other's memory (or share
// one), else from its inbox after the host moved it; `parent_parts[id]` is the partition
// of the parent; `wc_advance_parts` starts the next level of every partition alike.
// With WC_GRAPH as well (LTL over partitions), the search records no edges; after it,
// `wc_part_edges` expands each partition's states again and looks every successor up
// in its owner's table (read only), recording the graph over global ids (a partition's
// ids follow those of the partitions before it) on the GPU that holds it.

typedef unsigned int u32;
typedef unsigned long long u64;
#define WC_FN __device__ __forceinline__
#define WC_NOINLINE __device__ __noinline__
// A model's read-only table: a pointer the engine sets to the table's data (a host
// compilation defines its own, see tests/tests/gpu_kernel_host.rs).
#ifndef WC_TABLE
#define WC_TABLE(name) __device__ const u32 *name;
#endif

#define WC_BUSY 0xFFFFFFFFu
#define WC_LOST 0xFFFFFFFEu
// Why the device-driven search stopped (the control block's [4], see wc_advance).
#define WC_STOP_DONE 1u
#define WC_STOP_ROOM 2u
#define WC_STOP_VIOLATION 3u

// @@TREE@@

// A state id: 64-bit in the compressed store, 32-bit otherwise.
#ifdef WC_TREE
typedef u64 wc_id;
#else
typedef u32 wc_id;
#endif

struct WcTable {
  u32 *states;
  u32 *parents;
  u64 *table;
  u64 capacity;
  wc_id *count;
  u32 *full;  // the control block's overflow word (its low half when ids are 64-bit)
  u64 limit;
  // Partitioned stores only (WC_PARTITIONED); null or 0 otherwise.
  unsigned char *parent_parts;
  u32 *const *out_data;
  u32 *const *out_fill;
  u32 *out_full;
  u32 room;
  u32 own;
  u32 parts;
  // The compressed store only (WC_TREE): state `id`'s root key is `slots[id]` (in
  // host memory mapped for the device), `levels` holds the levels' first ids (room for
  // `level_room`), and `states` and `parents` are unused.
  u64 *slots;
  WcTree tree;
  wc_id *levels;
  u32 level_room;
};

// The host may define WC_EMIT_FN to inline the insertion (see Tuning in engine.rs).
#ifndef WC_EMIT_FN
#define WC_EMIT_FN __device__ __noinline__
#endif
struct WcSink;
#ifdef WC_GRAPH
#define WC_ERROR_TARGET 0xFFFFFFFDu
struct WcGraph {
  unsigned long long *first;
  u32 *degree;
  u32 *targets;
  unsigned long long *edges;
  unsigned long long capacity;
  u32 *full;
  u32 *edges_full;
};
__device__ WcGraph wc_graph;
#endif
WC_EMIT_FN void wc_emit(WcSink *k, const u32 *t);
__device__ __forceinline__ void wc_emit_error(WcSink *k);

// @@MODEL@@

struct WcSink {
  const WcTable *tab;
  wc_id parent;
  int insert;
  u64 transitions;
  u64 errors;
#ifdef WC_GRAPH
  u32 *succ;
  u32 n;
  // Where the edges go (null while a partitioned search explores).
  const WcGraph *graph;
#endif
#if defined(WC_GRAPH) && defined(WC_PARTITIONED)
  // `wc_part_edges`: every partition's table and first global id (null otherwise).
  const WcTable *tabs;
  const u32 *bases;
#endif
#ifdef WC_TREE
  // The state being expanded and its inner nodes' indices.
  const u32 *pw;
  const u32 *pidx;
  // wc_find_parent: the root key sought, and where the least id reaching it goes
  // (null while exploring).
  u64 target;
  wc_id *found;
#endif
};

#ifdef WC_GRAPH
// Records a successor id of the state being expanded (WC_MAX_SUCC bounds them: the
// code generator's bound; past it the run fails rather than drop an edge).
__device__ __forceinline__ void wc_record(WcSink *k, u32 id) {
#ifdef WC_PARTITIONED
  if (!k->graph) return;  // exploring: the edges come from wc_part_edges
#endif
  if (k->n < WC_MAX_SUCC) {
    k->succ[k->n++] = id;
  } else {
    atomicExch(k->graph->edges_full, 1u);
    atomicExch(k->graph->full, 1u);
  }
}
#endif

__device__ __forceinline__ void wc_emit_error(WcSink *k) {
  k->transitions++;
  k->errors++;
#ifdef WC_GRAPH
  wc_record(k, WC_ERROR_TARGET);
#endif
}

__device__ __forceinline__ u64 wc_hash(const u32 *t) {
  u64 h = 0x9E3779B97F4A7C15ull ^ (u64)WC_WORDS;
  for (int i = 0; i < WC_WORDS; i++) {
    h ^= t[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

__device__ __forceinline__ u64 wc_load_acquire(const u64 *p) {
  u64 v;
#if defined(__CUDA_ARCH__)
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#else
  v = *p;  // the host emulation: one thread at a time
#endif
  return v;
}

// Takes the next value of `counter` (and increments it), one atomic per converged group
// of threads: new state ids (the counter is the one address every insertion would
// otherwise contend for) and queue slots (ltl.cu).
template <typename T>
__device__ __forceinline__ T wc_claim(T *counter) {
  u32 mask = __activemask();
  u32 lane = threadIdx.x & 31;
  int leader = __ffs(mask) - 1;
  T base = 0;
  if (lane == (u32)leader) base = atomicAdd(counter, (T)__popc(mask));
  base = __shfl_sync(mask, base, leader);
  return base + (T)__popc(mask & ((1u << lane) - 1u));
}

// Inserts state `t` of hash `h`, found from `parent` (of partition `parent_part` when
// partitioned), unless the table holds it already; returns its id (WC_LOST when the
// store is full).
__device__ __forceinline__ u32 wc_insert_hashed(const WcTable *tab, const u32 *t, u64 h, u32 parent,
                                                u32 parent_part) {
  u64 tag = (h & 0xFFFFFFFFull) | 1ull;
  u64 pos = __umul64hi(h, tab->capacity);
  for (;;) {
    u64 *slot = tab->table + pos;
    u64 e = wc_load_acquire(slot);
    if (e == 0) {
      u64 old = atomicCAS(slot, 0ull, (tag << 32) | WC_BUSY);
      if (old == 0) {
        u32 id = wc_claim(tab->count);
        if (id >= tab->limit) {
          atomicExch(tab->full, 1u);
          atomicExch(slot, (tag << 32) | WC_LOST);
          return WC_LOST;
        }
        u32 *dst = tab->states + (u64)id * WC_WORDS;
        for (int i = 0; i < WC_WORDS; i++) dst[i] = t[i];
        tab->parents[id] = parent;
#ifdef WC_PARTITIONED
        tab->parent_parts[id] = (unsigned char)parent_part;
#endif
        __threadfence();
        atomicExch(slot, (tag << 32) | id);
        return id;
      }
      e = old;
    }
    if ((e >> 32) == tag) {
      u32 id = (u32)e;
      while (id == WC_BUSY) {
        e = wc_load_acquire(slot);
        id = (u32)e;
      }
      if (id != WC_LOST) {
        const u32 *o = tab->states + (u64)id * WC_WORDS;
        int same = 1;
        for (int i = 0; i < WC_WORDS; i++) same &= (__ldcg(o + i) == t[i]);
        if (same) return id;
      }
    }
    if (++pos == tab->capacity) pos = 0;
  }
}

#ifdef WC_TREE
// Inserts the state of root key `root` unless the store holds it already, under the
// next id: 1 when it is new, 0 when it was there, -1 when the store is full.
__device__ __forceinline__ int wc_insert_root(const WcTable *tab, u64 root) {
  int fresh = wc_put_root(&tab->tree, root, WC_TREE_INNER > 0);
  if (fresh <= 0) return fresh;
  wc_id id = wc_claim(tab->count);
  if (id >= tab->limit) {
    atomicOr(tab->full, 1u);
    return -1;
  }
  tab->slots[id] = root;
  return 1;
}

// Unpacks state `id` into `t` and its inner nodes' indices into `idx`.
__device__ __forceinline__ void wc_unpack(const WcTable *tab, u64 id, u32 *t, u32 *idx) {
  wc_tree_unpack(&tab->tree, tab->slots[id], t, idx);
}
#endif

__device__ __forceinline__ u32 wc_insert(const WcTable *tab, const u32 *t, u32 parent) {
  return wc_insert_hashed(tab, t, wc_hash(t), parent, tab->own);
}

#ifdef WC_PARTITIONED
// The partition that owns a state of hash `h`.
__device__ __forceinline__ u32 wc_owner(u64 h, u32 parts) { return (u32)((((h >> 16) & 0xFFFFull) * parts) >> 16); }

// Appends state `t`, found from `parent`, to the place for partition `owner`. The
// lanes sending to one owner claim their slots with one atomic.
__device__ __forceinline__ void wc_send(const WcTable *tab, u32 owner, const u32 *t, u32 parent) {
  u32 mask = __activemask();
  u32 peers = __match_any_sync(mask, owner);
  u32 lane = threadIdx.x & 31;
  int leader = __ffs(peers) - 1;
  u32 base = 0;
  if (lane == (u32)leader) base = atomicAdd(tab->out_fill[owner], (u32)__popc(peers));
  base = __shfl_sync(peers, base, leader);
  u32 slot = base + __popc(peers & ((1u << lane) - 1u));
  if (slot >= tab->room) {
    atomicExch(tab->out_full, 1u);
    return;
  }
  u32 *dst = tab->out_data[owner] + (u64)slot * (WC_WORDS + 1);
  for (int i = 0; i < WC_WORDS; i++) dst[i] = t[i];
  dst[WC_WORDS] = parent;
}

// Copies what each sender counted for this partition (`*remote[s]`, in the sender's
// control block) into `local[s]`, one thread per sender, before `wc_receive`: its
// blocks then read their fills locally, instead of each asking over the link.
// With `ctl` (device-driven levels), nothing once the search has stopped.
extern "C" __global__ void wc_gather_fills(const u32 *ctl, u32 *local, const u32 *const *remote, u32 senders) {
  if (ctl && ctl[4]) return;
  u32 s = threadIdx.x;
  if (s < senders) local[s] = __ldcg(remote[s]);
}

// Entries of the tile in which `wc_receive` reads what a sender wrote: at most 12 KiB
// of shared memory per block, at most 256 entries.
#define WC_TILE (3072 / (WC_WORDS + 1) < 256 ? 3072 / (WC_WORDS + 1) : 256)

// Inserts what the other partitions sent: `segs[s]` holds `*fills[s]` states with their
// parents' ids from partition s (s + 1 from s on the own number), in the sender's
// outbox (read over the GPUs' link when it is another's) or in the own inbox. Each
// block reads a tile of entries with consecutive loads into shared memory, then
// inserts them: the link carries whole lines, not a word per lane.
// With `ctl` (device-driven levels), nothing once the search has stopped.
extern "C" __global__ void wc_receive(WcTable tab, const u32 *ctl, const u32 *const *segs,
                                      const u32 *const *fills) {
  if (ctl && ctl[4]) return;
  __shared__ u32 tile[WC_TILE * (WC_WORDS + 1)];
  for (u32 s = 0; s + 1 < tab.parts; s++) {
    u64 n = __ldcg(fills[s]);
    u32 source = s + (s >= tab.own);
    const u32 *segment = segs[s];
    // Block-uniform: every thread of a block steps through the same tiles.
    for (u64 base = (u64)blockIdx.x * WC_TILE; base < n; base += (u64)gridDim.x * WC_TILE) {
      u32 count = (u32)(n - base < WC_TILE ? n - base : WC_TILE);
      const u32 *from = segment + base * (WC_WORDS + 1);
      for (u32 w = threadIdx.x; w < count * (WC_WORDS + 1); w += blockDim.x) tile[w] = __ldcg(from + w);
      __syncthreads();
      for (u32 i = threadIdx.x; i < count; i += blockDim.x) {
        const u32 *e = tile + i * (WC_WORDS + 1);
        u32 t[WC_WORDS];
        for (int w = 0; w < WC_WORDS; w++) t[w] = e[w];
        wc_insert_hashed(&tab, t, wc_hash(t), e[WC_WORDS], source);
      }
      __syncthreads();
    }
  }
}

// Starts the next level of this partition (one thread), as wc_advance does for one
// store, deciding from every partition's count (`ctls[q][0]`) and violations alike in
// every partition: the counts are those after the last receive, and `prev` holds them
// as they were at the last level's start; clears the inbox fills. Stops when no partition found a state, at
// a violation when asked, or when a store or an inbox segment might not hold every
// successor of the level (the host then expands it in chunks).
extern "C" __global__ void wc_advance_parts(WcTable tab, u32 *ctl, u32 *const *ctls, const u64 *const *viols,
                                            u32 categories, u32 stop_at_violation, u32 *prev, u64 bound) {
  if (ctl[4]) return;
  // Every receive is done: clear the outbox fills for the next level.
  for (u32 s = 0; s + 1 < tab.parts; s++) ctl[8 + s] = 0;
  if (stop_at_violation)
    for (u32 q = 0; q < tab.parts; q++)
      for (u32 c = 0; c < categories; c++)
        if (viols[q][c]) {
          ctl[4] = WC_STOP_VIOLATION;
          return;
        }
  u64 level = 0;
  int fits = 1;
  for (u32 q = 0; q < tab.parts; q++) {
    u32 found = ctls[q][0] - prev[q];
    level += found;
    if ((u64)found * bound > tab.room) fits = 0;
  }
  if (level == 0) {
    ctl[4] = WC_STOP_DONE;
    return;
  }
  for (u32 q = 0; q < tab.parts; q++) {
    u32 held = ctls[q][0];
    if (held >= tab.limit || level * bound > (u64)(tab.limit - held)) fits = 0;
  }
  if (!fits) {
    ctl[4] = WC_STOP_ROOM;
    return;
  }
  ctl[2] = prev[tab.own];
  ctl[3] = ctls[tab.own][0];
  ctl[5]++;
  for (u32 q = 0; q < tab.parts; q++) prev[q] = ctls[q][0];
}

#ifdef WC_GRAPH
// The global id of state `t` (see wc_part_edges): its id in its owner's table, found
// without inserting, after the ids of the partitions before the owner; WC_LOST (and
// the graph flagged broken by the caller) if no partition holds it.
__device__ __forceinline__ u32 wc_find_global(const WcTable *tabs, const u32 *bases, u32 parts, const u32 *t) {
  u64 h = wc_hash(t);
  u32 owner = wc_owner(h, parts);
  const WcTable *tab = tabs + owner;
  u64 tag = (h & 0xFFFFFFFFull) | 1ull;
  u64 pos = __umul64hi(h, tab->capacity);
  for (u64 probes = 0; probes < tab->capacity; probes++) {
    u64 e = __ldcg(tab->table + pos);
    if (e == 0) break;
    u32 id = (u32)e;
    if ((e >> 32) == tag && id != WC_LOST && id != WC_BUSY) {
      const u32 *o = tab->states + (u64)id * WC_WORDS;
      int same = 1;
      for (int i = 0; i < WC_WORDS; i++) same &= (__ldcg(o + i) == t[i]);
      if (same) return bases[owner] + id;
    }
    if (++pos == tab->capacity) pos = 0;
  }
  return WC_LOST;
}

#endif
#endif

WC_EMIT_FN void wc_emit(WcSink *k, const u32 *t) {
  k->transitions++;
  if (!k->insert) {
    // Profiling: generation and hashing only.
    if (wc_hash(t) == 0) atomicAdd(k->tab->full, 0u);
    return;
  }
#if defined(WC_GRAPH) && defined(WC_PARTITIONED)
  if (k->tabs) {
    wc_record(k, wc_find_global(k->tabs, k->bases, k->tab->parts, t));
    return;
  }
#endif
#if defined(WC_GRAPH) && !defined(WC_PARTITIONED)
  wc_record(k, wc_insert(k->tab, t, k->parent));
#elif defined(WC_TREE)
  u32 idx[WC_TREE_ROOM];
  u64 root = wc_tree_pack(&k->tab->tree, t, k->pw, k->pidx, idx);
  if (k->found) {
    // Looked up only (the table's find_only): a half not stored means no stored state.
    int stored = 1;
    for (int i = 0; i < WC_TREE_INNER; i++) stored &= idx[i] != WC_NODE_LOST;
    if (stored && root == k->target) atomicMin(k->found, k->parent);
  } else {
    wc_insert_root(k->tab, root);
  }
#elif defined(WC_PARTITIONED)
  u64 h = wc_hash(t);
  u32 owner = wc_owner(h, k->tab->parts);
  if (owner == k->tab->own)
    wc_insert_hashed(k->tab, t, h, k->parent, owner);
  else
    wc_send(k->tab, owner, t, k->parent);
#else
  wc_insert(k->tab, t, k->parent);
#endif
}

// Violation categories: 0 deadlock, 1 evaluation error, 2.. assertions, then invariants.
__device__ __forceinline__ void wc_violation(wc_id *first, u64 *count, int category, wc_id id, u64 n) {
  atomicMin(first + category, id);
  atomicAdd(count + category, n);
}

__device__ __forceinline__ u64 wc_warp_sum(u64 v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  return v;
}

#define WC_CHECK_DEADLOCK 1u
#define WC_CHECK_ASSERTIONS 2u
#define WC_PROFILE_GENERATE_ONLY 4u

// The control block `ctl` shared by the host and the level kernels, of `wc_id` words:
// [0] next free id (= states found), [1] overflow flag, [2] first id of the level being
// expanded, [3] end of that level, [4] why the device-driven search stopped, [5] levels.

// Starts the next level on the device (one thread), so that the host can enqueue many
// levels without waiting: the new level is the states found since the last one began.
// Stops when there is none, when the store might not hold all successors of the level
// (the host then expands it in chunks), or at a violation when asked to.
extern "C" __global__ void wc_advance(wc_id *ctl, u64 bound, wc_id limit, const u64 *viol_count, u32 categories,
                                      u32 stop_at_violation, wc_id *levels, u32 level_room) {
  if (ctl[4]) return;
  // The compressed store: the next level starts at ctl[3] (noted also when the host
  // expands it in chunks, or as the end after the last).
  if (levels && ctl[5] < level_room) levels[ctl[5]] = ctl[3];
  // A full store (the compressed one fills its table, not only its ids) ends the run.
  if (ctl[1]) {
    ctl[4] = WC_STOP_ROOM;
    return;
  }
  if (stop_at_violation)
    for (u32 c = 0; c < categories; c++)
      if (viol_count[c]) {
        ctl[4] = WC_STOP_VIOLATION;
        return;
      }
  wc_id lo = ctl[3], hi = ctl[0];
  if (lo == hi) {
    ctl[4] = WC_STOP_DONE;
    return;
  }
  if (hi >= limit || (u64)(hi - lo) * bound > (u64)limit - hi) {
    ctl[4] = WC_STOP_ROOM;
    return;
  }
  ctl[2] = lo;
  ctl[3] = hi;
  ctl[5]++;
}

// What one thread of the expansion kernel counts.
struct WcTally {
  u64 transitions, errors, deadlocks, accepting;
};

// Expands state `id`: checks it, generates its successors and inserts them.
__device__ __forceinline__ void wc_visit(WcSink *k, const WcTable *tab, u64 id, wc_id *viol_first, u64 *viol_count,
                                         u32 flags, WcTally *n) {
  u32 s[WC_WORDS];
#ifdef WC_TREE
  u32 idx[WC_TREE_ROOM];
  wc_unpack(tab, id, s, idx);
  k->pw = s;
  k->pidx = idx;
#else
  const u32 *src = tab->states + id * WC_WORDS;
  for (int i = 0; i < WC_WORDS; i++) s[i] = src[i];
#endif
  k->parent = (wc_id)id;
  k->transitions = 0;
  k->errors = 0;
  if (k->insert) {
    if (flags & WC_CHECK_ASSERTIONS) {
      int a = wc_assertion(s);
      if (a >= 0) wc_violation(viol_first, viol_count, 2 + a, (wc_id)id, 1);
    }
    for (int i = 0; i < WC_INVARIANTS; i++)
      if (!wc_invariant(i, s)) wc_violation(viol_first, viol_count, 2 + WC_ASSERTIONS + i, (wc_id)id, 1);
    n->accepting += wc_accepting(s);
  }
  int dead = wc_successors(s, k);
  n->transitions += k->transitions;
  n->errors += k->errors;
  if (k->insert && k->errors) wc_violation(viol_first, viol_count, 1, (wc_id)id, k->errors);
  if (dead) {
    n->deadlocks++;
    if (k->insert && (flags & WC_CHECK_DEADLOCK)) wc_violation(viol_first, viol_count, 0, (wc_id)id, 1);
  }
}

#ifdef WC_GRAPH
// The lane that reserves a warp's edges (the host emulation, one lane a warp, says 0).
#ifndef WC_LAST_LANE
#define WC_LAST_LANE 31
#endif
// Writes the adjacency of state `id` (`live`: this lane expanded one): every lane of
// the warp calls it together (the loop around it is warp-uniform), so full-mask
// shuffles are valid; a prefix sum of the degrees gives each lane its place in one
// block reserved by one atomic.
__device__ __forceinline__ void wc_graph_commit(const WcGraph *g, u64 id, int live, const u32 *succ, u32 n) {
  const u32 all = 0xffffffffu;
  u32 lane = threadIdx.x & 31;
  u32 degree = live ? n : 0;
  u32 end = degree;
  for (int d = 1; d < 32; d <<= 1) {
    u32 t = __shfl_up_sync(all, end, d);
    if (lane >= (u32)d) end += t;
  }
  u32 total = __shfl_sync(all, end, WC_LAST_LANE);
  u64 base = 0;
  if (lane == WC_LAST_LANE && total) base = atomicAdd(g->edges, (u64)total);
  base = __shfl_sync(all, base, WC_LAST_LANE);
  if (!live) return;
  u64 at = base + end - degree;
  if (at + degree > g->capacity) {
    atomicExch(g->edges_full, 1u);
    atomicExch(g->full, 1u);
    at = 0;
    degree = 0;
  }
  g->first[id] = at;
  g->degree[id] = degree;
  for (u32 i = 0; i < degree; i++) g->targets[at + i] = succ[i];
}
#endif

// Expands the states with ids lo..hi (or, with `ctl`, the level it names, unless the
// device-driven search has stopped): checks each, generates its successors and
// inserts them. Counters: transitions, deadlocks, error steps, accepting states.
extern "C" __global__ void wc_expand(WcTable tab, wc_id lo, wc_id hi, const wc_id *ctl, u64 *counters,
                                     wc_id *viol_first, u64 *viol_count, u32 flags) {
  if (ctl) {
    if (ctl[4]) return;
    lo = ctl[2];
    hi = ctl[3];
  }
  WcSink k;
  k.tab = &tab;
  k.insert = !(flags & WC_PROFILE_GENERATE_ONLY);
#ifdef WC_TREE
  k.found = 0;
#endif
  WcTally n = {0, 0, 0, 0};
  u64 stride = (u64)gridDim.x * blockDim.x;
#if defined(WC_GRAPH) && !defined(WC_PARTITIONED)
  // Warp-uniform: whole warps step through the range, so that they commit together.
  u32 succ[WC_MAX_SUCC];
  k.succ = succ;
  k.graph = &wc_graph;
  for (u64 base = lo + (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < hi; base += stride) {
    u64 id = base + (threadIdx.x & 31);
    k.n = 0;
    if (id < hi) wc_visit(&k, &tab, id, viol_first, viol_count, flags, &n);
    __syncwarp();
    wc_graph_commit(&wc_graph, id, id < hi, succ, k.n);
  }
#else
#ifdef WC_GRAPH
  k.graph = 0;  // partitioned: the edges come from wc_part_edges
  k.tabs = 0;
#endif
  for (u64 id = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; id < hi; id += stride)
    wc_visit(&k, &tab, id, viol_first, viol_count, flags, &n);
#endif
  // Profiling launches leave the counters alone (uniform across the warp).
  if (!k.insert) return;
  __syncwarp();
  u64 transitions = wc_warp_sum(n.transitions);
  u64 errors = wc_warp_sum(n.errors);
  u64 deadlocks = wc_warp_sum(n.deadlocks);
  u64 accepting = wc_warp_sum(n.accepting);
  if ((threadIdx.x & 31) == 0) {
    if (transitions) atomicAdd(counters + 0, transitions);
    if (deadlocks) atomicAdd(counters + 1, deadlocks);
    if (errors) atomicAdd(counters + 2, errors);
    if (accepting) atomicAdd(counters + 3, accepting);
  }
}

#ifdef WC_GRAPH
// Points the expansion kernel at the graph's buffers (one thread, before the search).
extern "C" __global__ void wc_graph_init(WcGraph g) { wc_graph = g; }
#endif

#if defined(WC_GRAPH) && defined(WC_PARTITIONED)
// The graph of a partitioned search, after it (LTL over partitions): expands the
// states 0..`held` of partition `tab` again and records each one's successors as
// global ids, found in their owners' tables (`tabs`, read over the GPUs' link when
// another GPU holds one), into `g` at vertex `bases[own] + id` (`g` on the GPU of the
// cycle detection). Warp-uniform, as the graph-recording expansion. A successor that
// no partition holds sets `g.full` (a broken store: the run fails).
extern "C" __global__ void wc_part_edges(WcTable tab, const WcTable *tabs, const u32 *bases, WcGraph g, u32 held) {
  WcSink k;
  k.tab = &tab;
  k.insert = 1;
  k.tabs = tabs;
  k.bases = bases;
  k.graph = &g;
  u32 succ[WC_MAX_SUCC];
  k.succ = succ;
  u64 first = bases[tab.own];
  u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 base = (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < held; base += stride) {
    u64 id = base + (threadIdx.x & 31);
    k.n = 0;
    if (id < held) {
      u32 s[WC_WORDS];
      for (int i = 0; i < WC_WORDS; i++) s[i] = tab.states[id * WC_WORDS + i];
      k.parent = (wc_id)id;
      k.transitions = 0;
      k.errors = 0;
      wc_successors(s, &k);
      for (u32 i = 0; i < k.n; i++)
        if (succ[i] == WC_LOST) atomicExch(g.full, 1u);
    }
    __syncwarp();
    wc_graph_commit(&g, first + id, id < held, succ, k.n);
  }
}

// Global parents (for counterexamples' stems): vertex `bases[own] + id` of the graph
// gets its parent's global id (WC_BUSY for an initial state).
extern "C" __global__ void wc_part_parents(WcTable tab, const u32 *bases, u32 held, u32 *global) {
  u32 first = bases[tab.own];
  for (u64 id = (u64)blockIdx.x * blockDim.x + threadIdx.x; id < held; id += (u64)gridDim.x * blockDim.x) {
    u32 p = tab.parents[id];
    global[first + id] = p == WC_BUSY ? WC_BUSY : bases[tab.parent_parts[id]] + p;
  }
}
#endif

// Inserts the initial state (one thread), when partitioned only into its owner.
extern "C" __global__ void wc_seed(WcTable tab, const u32 *initial) {
  u32 s[WC_WORDS];
  for (int i = 0; i < WC_WORDS; i++) s[i] = initial[i];
#ifdef WC_PARTITIONED
  if (wc_owner(wc_hash(s), tab.parts) != tab.own) return;
#endif
#ifdef WC_TREE
  u32 idx[WC_TREE_ROOM];
  wc_insert_root(&tab, wc_tree_pack(&tab.tree, s, 0, 0, idx));
#else
  wc_insert(&tab, s, WC_BUSY);
#endif
}

#ifdef WC_TREE
// Finds the least id among lo..hi (a breadth-first level) with a successor of root
// key `target`, into `*found` (atomicMin: left as it is when there is none). The
// host passes the table with `find_only` set, so that nothing is stored.
extern "C" __global__ void wc_find_parent(WcTable tab, wc_id lo, wc_id hi, u64 target, wc_id *found) {
  WcSink k;
  k.tab = &tab;
  k.insert = 1;
  k.target = target;
  k.found = found;
  for (u64 id = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; id < hi; id += (u64)gridDim.x * blockDim.x) {
    u32 s[WC_WORDS];
    u32 idx[WC_TREE_ROOM];
    wc_unpack(&tab, id, s, idx);
    k.parent = id;
    k.pw = s;
    k.pidx = idx;
    k.transitions = 0;
    k.errors = 0;
    wc_successors(s, &k);
  }
}

// Unpacks the states `ids[0..n]` into `out` (WC_WORDS words each): a counterexample's.
extern "C" __global__ void wc_unpack_ids(WcTable tab, const wc_id *ids, u32 n, u32 *out) {
  u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  u32 idx[WC_TREE_ROOM];
  wc_unpack(&tab, ids[i], out + (u64)i * WC_WORDS, idx);
}
#endif
