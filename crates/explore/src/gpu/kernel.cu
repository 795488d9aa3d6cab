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
// With WC_GRAPH defined (LTL, see ltl.cu; state graphs, state_graph.rs), expanding a
// state also records its successors' ids as the graph's adjacency: `first[id]`,
// `degree[id]` and the targets back to back in `targets`, a block per state reserved
// one atomic per warp; a step that raises an evaluation error is an edge to
// WC_ERROR_TARGET (the error state, numbered after exploration). Running out of edge
// room sets the overflow flags (the run fails; no edge is ever dropped).

typedef unsigned int u32;
typedef unsigned long long u64;
#define WC_FN __device__ __forceinline__
#define WC_NOINLINE __device__ __noinline__
// A model's read-only table: a pointer the engine sets to the table's data.
#define WC_TABLE(name) __device__ const u32 *name;

#define WC_BUSY 0xFFFFFFFFu
#define WC_LOST 0xFFFFFFFEu

struct WcTable {
  u32 *states;
  u32 *parents;
  u64 *table;
  u64 capacity;
  u32 *count;
  u32 *full;
  u32 limit;
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
  u32 parent;
  int insert;
  u64 transitions;
  u64 errors;
#ifdef WC_GRAPH
  u32 *succ;
  u32 n;
#endif
};

#ifdef WC_GRAPH
// Records a successor id of the state being expanded (WC_MAX_SUCC bounds them: the
// code generator's bound; past it the run fails rather than drop an edge).
__device__ __forceinline__ void wc_record(WcSink *k, u32 id) {
  if (k->n < WC_MAX_SUCC) {
    k->succ[k->n++] = id;
  } else {
    atomicExch(wc_graph.edges_full, 1u);
    atomicExch(wc_graph.full, 1u);
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
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
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

// Inserts state `t`, found from `parent`, unless the table holds it already; returns
// its id (WC_LOST when the store is full).
__device__ __forceinline__ u32 wc_insert(const WcTable *tab, const u32 *t, u32 parent) {
  u64 h = wc_hash(t);
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

WC_EMIT_FN void wc_emit(WcSink *k, const u32 *t) {
  k->transitions++;
  if (!k->insert) {
    // Profiling: generation and hashing only.
    if (wc_hash(t) == 0) atomicAdd(k->tab->full, 0u);
    return;
  }
#ifdef WC_GRAPH
  wc_record(k, wc_insert(k->tab, t, k->parent));
#else
  wc_insert(k->tab, t, k->parent);
#endif
}

// Violation categories: 0 deadlock, 1 evaluation error, 2.. assertions, then invariants.
__device__ __forceinline__ void wc_violation(u32 *first, u64 *count, int category, u32 id, u64 n) {
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

// The control block `ctl` shared by the host and the level kernels:
// [0] next free id (= states found), [1] overflow flag, [2] first id of the level being
// expanded, [3] end of that level, [4] why the device-driven search stopped, [5] levels.
#define WC_STOP_DONE 1u
#define WC_STOP_ROOM 2u
#define WC_STOP_VIOLATION 3u

// Starts the next level on the device (one thread), so that the host can enqueue many
// levels without waiting: the new level is the states found since the last one began.
// Stops when there is none, when the store might not hold all successors of the level
// (the host then expands it in chunks), or at a violation when asked to.
extern "C" __global__ void wc_advance(u32 *ctl, u64 bound, u32 limit, const u64 *viol_count, u32 categories,
                                      u32 stop_at_violation) {
  if (ctl[4]) return;
  if (stop_at_violation)
    for (u32 c = 0; c < categories; c++)
      if (viol_count[c]) {
        ctl[4] = WC_STOP_VIOLATION;
        return;
      }
  u32 lo = ctl[3], hi = ctl[0];
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
__device__ __forceinline__ void wc_visit(WcSink *k, const WcTable *tab, u64 id, u32 *viol_first, u64 *viol_count,
                                         u32 flags, WcTally *n) {
  u32 s[WC_WORDS];
  const u32 *src = tab->states + id * WC_WORDS;
  for (int i = 0; i < WC_WORDS; i++) s[i] = src[i];
  k->parent = (u32)id;
  k->transitions = 0;
  k->errors = 0;
  if (k->insert) {
    if (flags & WC_CHECK_ASSERTIONS) {
      int a = wc_assertion(s);
      if (a >= 0) wc_violation(viol_first, viol_count, 2 + a, (u32)id, 1);
    }
    for (int i = 0; i < WC_INVARIANTS; i++)
      if (!wc_invariant(i, s)) wc_violation(viol_first, viol_count, 2 + WC_ASSERTIONS + i, (u32)id, 1);
    n->accepting += wc_accepting(s);
  }
  int dead = wc_successors(s, k);
  n->transitions += k->transitions;
  n->errors += k->errors;
  if (k->insert && k->errors) wc_violation(viol_first, viol_count, 1, (u32)id, k->errors);
  if (dead) {
    n->deadlocks++;
    if (k->insert && (flags & WC_CHECK_DEADLOCK)) wc_violation(viol_first, viol_count, 0, (u32)id, 1);
  }
}

#ifdef WC_GRAPH
// Writes the adjacency of state `id` (`live`: this lane expanded one): every lane of
// the warp calls it together (the loop around it is warp-uniform), so full-mask
// shuffles are valid; a prefix sum of the degrees gives each lane its place in one
// block reserved by one atomic.
__device__ __forceinline__ void wc_graph_commit(u64 id, int live, const u32 *succ, u32 n) {
  const u32 all = 0xffffffffu;
  u32 lane = threadIdx.x & 31;
  u32 degree = live ? n : 0;
  u32 end = degree;
  for (int d = 1; d < 32; d <<= 1) {
    u32 t = __shfl_up_sync(all, end, d);
    if (lane >= (u32)d) end += t;
  }
  u32 total = __shfl_sync(all, end, 31);
  u64 base = 0;
  if (lane == 31 && total) base = atomicAdd(wc_graph.edges, (u64)total);
  base = __shfl_sync(all, base, 31);
  if (!live) return;
  u64 at = base + end - degree;
  if (at + degree > wc_graph.capacity) {
    atomicExch(wc_graph.edges_full, 1u);
    atomicExch(wc_graph.full, 1u);
    at = 0;
    degree = 0;
  }
  wc_graph.first[id] = at;
  wc_graph.degree[id] = degree;
  for (u32 i = 0; i < degree; i++) wc_graph.targets[at + i] = succ[i];
}
#endif

// Expands the states with ids lo..hi (or, with `ctl`, the level it names, unless the
// device-driven search has stopped): checks each, generates its successors and
// inserts them. Counters: transitions, deadlocks, error steps, accepting states.
extern "C" __global__ void wc_expand(WcTable tab, u32 lo, u32 hi, const u32 *ctl, u64 *counters, u32 *viol_first,
                                     u64 *viol_count, u32 flags) {
  if (ctl) {
    if (ctl[4]) return;
    lo = ctl[2];
    hi = ctl[3];
  }
  WcSink k;
  k.tab = &tab;
  k.insert = !(flags & WC_PROFILE_GENERATE_ONLY);
  WcTally n = {0, 0, 0, 0};
  u64 stride = (u64)gridDim.x * blockDim.x;
#ifdef WC_GRAPH
  // Warp-uniform: whole warps step through the range, so that they commit together.
  u32 succ[WC_MAX_SUCC];
  k.succ = succ;
  for (u64 base = lo + (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < hi; base += stride) {
    u64 id = base + (threadIdx.x & 31);
    k.n = 0;
    if (id < hi) wc_visit(&k, &tab, id, viol_first, viol_count, flags, &n);
    __syncwarp();
    wc_graph_commit(id, id < hi, succ, k.n);
  }
#else
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

// Inserts the initial state (one thread).
extern "C" __global__ void wc_seed(WcTable tab, const u32 *initial) {
  u32 s[WC_WORDS];
  for (int i = 0; i < WC_WORDS; i++) s[i] = initial[i];
  wc_insert(&tab, s, WC_BUSY);
}
