// Uniform-cost search of a grounded planning task (search/gpu.rs): Dijkstra by cost
// layers, every state of the cheapest layer expanded at once. The same text compiles
// with NVRTC (the kernels under __CUDA_ARCH__) and with the host's C++ compiler (plain
// functions that the emulation in gpu/host.rs calls one work item after another), so
// that the tests run its logic without a GPU. The task's successor code (plan.c with
// its table) is pasted at the @@MODEL@@ line; its WC_PLAN_EMIT hook hands each
// successor here with the action that made it.
//
// Store: states back to back in `states` (WC_WORDS words each) in the order found, and
// `best[id]` = (g << 32) | parent: the cheapest cost known and the state it came from
// (the initial state, id 0, has 0). A hash table of 64-bit entries maps states to ids
// as in the exploration engine (explore/gpu/kernel.cu): high half a tag from the hash
// (low bit set, so no entry is 0), low half the id or BUSY while the inserting thread
// writes the state; `best` is written before the id is published.
//
// Open list: entries (g << 32) | id appended to one list, `open`, whenever a state is
// stored or its `best` lowered (a compare-and-swap that succeeds only for a strictly
// lower g, so the parent links form a tree: a state's parent was closed before it).
// Entries are never moved: a round of cost m scans a range of the list, expands the
// entries at m whose state is still at m and not closed (closed, goal-tested: a goal
// state is the plan's end and the round is the last; successors inserted with
// g + cost and appended), and reports the smallest g above m it saw and how many such
// entries, and the smallest g it appended. The host picks the next round from these
// (see gpu.rs): zero-cost successors are appended at m and scanned alone in the next
// round at the same m. Entries below m are dead; so are stale ones (best below their
// g), found when their g comes up. An append past `room` sets `overflow`, and the host
// then rebuilds the list from the store (every state not closed, at its best g), as it
// does when most of the list is dead; a rebuild always fits (`room` is the store's
// limit). A store past its limit sets `full`; a cost of 2^32 - 1 or more sets
// `cost_overflow`: the run fails, no state is ever dropped.

struct WcUcs {
  u32 *states;
  u64 *best;
  unsigned char *closed;
  u64 *table;
  u64 capacity;
  // [0] states stored, [1] full, [2] entries in `open`, [3] overflow, [4] smallest g
  // above m scanned, [5] smallest goal id found, [6] cost overflow, [7] smallest g
  // appended, [8] entries above m scanned.
  u32 *ctl;
  // [0] states expanded, [1] successors generated.
  u64 *counters;
  u64 *open;
  const u32 *cost;
  u32 lo;
  u32 hi;
  u32 limit;
  u32 room;
};

#if defined(__CUDA_ARCH__)
#define WC_CAS64(p, e, v) atomicCAS((p), (e), (v))
#define WC_EXCH64(p, v) atomicExch((p), (v))
#define WC_EXCH32(p, v) atomicExch((p), (v))
#define WC_ADD32(p, v) atomicAdd((p), (v))
#define WC_ADD64(p, v) atomicAdd((p), (v))
#define WC_MIN32(p, v) atomicMin((p), (v))
#define WC_FENCE() __threadfence()
#define WC_MULHI(a, b) __umul64hi((a), (b))
#define WC_LOAD_CG(p) __ldcg(p)
// The next value of `counter`, one atomic per converged group of threads.
__device__ __forceinline__ u32 wc_claim(u32 *counter) {
  u32 mask = __activemask();
  u32 lane = threadIdx.x & 31;
  int leader = __ffs(mask) - 1;
  u32 base = 0;
  if (lane == (u32)leader) base = atomicAdd(counter, (u32)__popc(mask));
  base = __shfl_sync(mask, base, leader);
  return base + (u32)__popc(mask & ((1u << lane) - 1u));
}
// A warp's smallest and total values (every lane calls them, at the kernel's end).
#define WC_WARP_MIN(v) __reduce_min_sync(0xFFFFFFFFu, (v))
#define WC_WARP_ADD(v) __reduce_add_sync(0xFFFFFFFFu, (v))
#define WC_WARP_LEADER() ((threadIdx.x & 31) == 0)
__device__ __forceinline__ u64 wc_load64(const u64 *p) {
  u64 v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
#else
// One work item at a time: the atomics are plain reads and writes.
static inline u64 WC_CAS64(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u64 WC_EXCH64(u64 *p, u64 v) { u64 o = *p; *p = v; return o; }
static inline u32 WC_EXCH32(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
static inline u32 WC_ADD32(u32 *p, u32 v) { u32 o = *p; *p = o + v; return o; }
static inline u64 WC_ADD64(u64 *p, u64 v) { u64 o = *p; *p = o + v; return o; }
static inline u32 WC_MIN32(u32 *p, u32 v) { u32 o = *p; if (v < o) *p = v; return o; }
#define WC_FENCE()
#define WC_MULHI(a, b) ((u64)(((unsigned __int128)(a) * (b)) >> 64))
#define WC_LOAD_CG(p) (*(p))
static inline u64 wc_load64(const u64 *p) { return *p; }
static inline u32 wc_claim(u32 *counter) { return (*counter)++; }
#define WC_WARP_MIN(v) (v)
#define WC_WARP_ADD(v) (v)
#define WC_WARP_LEADER() 1
#endif

// The expansion of one state: where its successors go.
struct WcSink {
  const WcUcs *u;
  u32 parent;
  u32 g;
  // Successors generated, and the smallest g appended, over this thread's entries.
  u32 generated;
  u32 pushed_min;
};
WC_FN void wc_ucs_emit(WcSink *k, u32 action, const u32 *t);
#define WC_PLAN_EMIT(k, a, t) wc_ucs_emit((k), (a), (t))

// @@MODEL@@

#define WC_BUSY 0xFFFFFFFFu
#define WC_LOST 0xFFFFFFFEu

WC_FN u64 wc_ucs_hash(const u32 *t) {
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

// Stores `t` with best `link` unless the table holds it: returns its id (WC_LOST when
// the store is full); `fresh` says whether this call stored it. The exploration
// engine's insertion (explore/gpu/kernel.cu) with a link for the parent and without
// its partitions, kept apart so that neither store's layout constrains the other.
WC_FN u32 wc_ucs_insert(const WcUcs *u, const u32 *t, u64 link, int *fresh) {
  u64 h = wc_ucs_hash(t);
  u64 tag = (h & 0xFFFFFFFFull) | 1ull;
  u64 pos = WC_MULHI(h, u->capacity);
  *fresh = 0;
  for (;;) {
    u64 *slot = u->table + pos;
    u64 e = wc_load64(slot);
    if (e == 0) {
      u64 old = WC_CAS64(slot, 0ull, (tag << 32) | WC_BUSY);
      if (old == 0) {
        // Once full, no more claims: the counter stays far from wrapping around.
        u32 id = *(volatile u32 *)&u->ctl[1] ? WC_LOST : wc_claim(&u->ctl[0]);
        if (id >= u->limit) {
          WC_EXCH32(&u->ctl[1], 1u);
          WC_EXCH64(slot, (tag << 32) | WC_LOST);
          return WC_LOST;
        }
        u32 *dst = u->states + (u64)id * WC_WORDS;
        for (int i = 0; i < WC_WORDS; i++) dst[i] = t[i];
        u->best[id] = link;
        WC_FENCE();
        WC_EXCH64(slot, (tag << 32) | id);
        *fresh = 1;
        return id;
      }
      e = old;
    }
    if ((e >> 32) == tag) {
      u32 id = (u32)e;
      while (id == WC_BUSY) {
        e = wc_load64(slot);
        id = (u32)e;
      }
      if (id != WC_LOST) {
        const u32 *o = u->states + (u64)id * WC_WORDS;
        int same = 1;
        for (int i = 0; i < WC_WORDS; i++) same &= (WC_LOAD_CG(o + i) == t[i]);
        if (same) return id;
      }
    }
    if (++pos == u->capacity) pos = 0;
  }
}

// Appends entry (g, id) to `open` if there is room (else `overflow`).
WC_FN void wc_ucs_push(WcSink *k, u32 g, u32 id) {
  const WcUcs *u = k->u;
  u32 slot = wc_claim(&u->ctl[2]);
  if (slot < u->room) {
    u->open[slot] = ((u64)g << 32) | id;
    if (g < k->pushed_min) k->pushed_min = g;
  } else {
    WC_EXCH32(&u->ctl[3], 1u);
  }
}

// Lowers the best of `id` to `link` if its g is strictly lower; says whether it did.
WC_FN int wc_ucs_improve(const WcUcs *u, u32 id, u64 link) {
  u64 old = wc_load64(u->best + id);
  while ((old >> 32) > (link >> 32)) {
    u64 prev = WC_CAS64(u->best + id, old, link);
    if (prev == old) return 1;
    old = prev;
  }
  return 0;
}

WC_FN void wc_ucs_emit(WcSink *k, u32 action, const u32 *t) {
  const WcUcs *u = k->u;
  k->generated++;
  u32 g = k->g + u->cost[action];
  // 2^32 - 1 means "none" in the control block's minima: a cost overflows before it.
  if (g < k->g || g == 0xFFFFFFFFu) {
    WC_EXCH32(&u->ctl[6], 1u);
    return;
  }
  u64 link = ((u64)g << 32) | k->parent;
  int fresh;
  u32 id = wc_ucs_insert(u, t, link, &fresh);
  if (id == WC_LOST) return;
  if (fresh || wc_ucs_improve(u, id, link)) wc_ucs_push(k, g, id);
}

// What one thread saw in a round: the smallest g above m and how many such entries.
struct WcSeen {
  u32 later_min;
  u32 later;
  u32 expanded;
};

// Entry `i` of `open` in the round of cost m.
WC_FN void wc_ucs_entry(WcSink *k, WcSeen *seen, u32 i, u32 m) {
  const WcUcs *u = k->u;
  u64 e = u->open[i];
  u32 g = (u32)(e >> 32), id = (u32)e;
  if (g > m) {
    if (g < seen->later_min) seen->later_min = g;
    seen->later++;
    return;
  }
  if (g < m || (u32)(wc_load64(u->best + id) >> 32) != m || u->closed[id]) return;
  u->closed[id] = 1;
  seen->expanded++;
  u32 s[WC_WORDS];
  const u32 *stored = u->states + (u64)id * WC_WORDS;
  for (int w = 0; w < WC_WORDS; w++) s[w] = stored[w];
  if (!wc_plan_unsolved(s)) {
    WC_MIN32(&u->ctl[5], id);
    return;
  }
  k->parent = id;
  wc_successors(s, k);
}

// Stored state `id` back into `open` if it is open (the rebuild).
WC_FN void wc_ucs_reopen(WcSink *k, u32 id) {
  const WcUcs *u = k->u;
  if (!u->closed[id]) wc_ucs_push(k, (u32)(u->best[id] >> 32), id);
}

// One thread's totals into the control block and counters, one atomic per warp.
WC_FN void wc_ucs_report(const WcUcs *u, const WcSink *k, const WcSeen *seen) {
  u32 pushed_min = WC_WARP_MIN(k->pushed_min), later_min = WC_WARP_MIN(seen->later_min);
  u32 later = WC_WARP_ADD(seen->later), expanded = WC_WARP_ADD(seen->expanded);
  u32 generated = WC_WARP_ADD(k->generated);
  if (WC_WARP_LEADER()) {
    if (pushed_min != 0xFFFFFFFFu) WC_MIN32(&u->ctl[7], pushed_min);
    if (later_min != 0xFFFFFFFFu) WC_MIN32(&u->ctl[4], later_min);
    if (later) WC_ADD32(&u->ctl[8], later);
    if (expanded) WC_ADD64(&u->counters[0], (u64)expanded);
    if (generated) WC_ADD64(&u->counters[1], (u64)generated);
  }
}

// The initial state: id 0, g 0, its own parent, the list's one entry.
WC_FN void wc_ucs_seed(const WcUcs *u, const u32 *init) {
  WcSink k = {u, 0u, 0u, 0u, 0xFFFFFFFFu};
  int fresh;
  u32 id = wc_ucs_insert(u, init, 0ull, &fresh);
  if (id != WC_LOST) wc_ucs_push(&k, 0u, id);
  WC_MIN32(&u->ctl[7], k.pushed_min);
}

#if defined(__CUDA_ARCH__)
// The round of cost m over entries lo..hi of `open`.
extern "C" __global__ void wc_ucs_expand(WcUcs u, u32 m) {
  WcSink k = {&u, 0u, m, 0u, 0xFFFFFFFFu};
  WcSeen seen = {0xFFFFFFFFu, 0u, 0u};
  for (u64 i = u.lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < u.hi; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_entry(&k, &seen, (u32)i, m);
  wc_ucs_report(&u, &k, &seen);
}

// Every stored state below `stored` that is not closed, appended to `open`.
extern "C" __global__ void wc_ucs_rebuild(WcUcs u, u32 stored) {
  WcSink k = {&u, 0u, 0u, 0u, 0xFFFFFFFFu};
  WcSeen seen = {0xFFFFFFFFu, 0u, 0u};
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < stored; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_reopen(&k, (u32)i);
  wc_ucs_report(&u, &k, &seen);
}

extern "C" __global__ void wc_ucs_start(WcUcs u, const u32 *init) { wc_ucs_seed(&u, init); }
#else
// The entries lo..hi in the order lo + (i * stride) mod n (stride coprime to n), so
// that the tests vary the order in which a round meets its states.
extern "C" void wc_ucs_expand_host(const WcUcs *u, u32 m, u32 stride) {
  WcSink k = {u, 0u, m, 0u, 0xFFFFFFFFu};
  WcSeen seen = {0xFFFFFFFFu, 0u, 0u};
  u64 n = u->hi - u->lo;
  for (u64 i = 0; i < n; i++) wc_ucs_entry(&k, &seen, u->lo + (u32)(i * stride % n), m);
  wc_ucs_report(u, &k, &seen);
}

extern "C" void wc_ucs_rebuild_host(const WcUcs *u, u32 stored) {
  WcSink k = {u, 0u, 0u, 0u, 0xFFFFFFFFu};
  WcSeen seen = {0xFFFFFFFFu, 0u, 0u};
  for (u32 i = 0; i < stored; i++) wc_ucs_reopen(&k, i);
  wc_ucs_report(u, &k, &seen);
}

extern "C" void wc_ucs_start_host(const WcUcs *u, const u32 *init) { wc_ucs_seed(u, init); }
#endif
