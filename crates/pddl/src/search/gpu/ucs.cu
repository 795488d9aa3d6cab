// Uniform-cost search of a grounded planning task (search/gpu.rs): Dijkstra by cost
// layers, every state of the cheapest layer expanded at once; or A* with pattern
// databases (see "A*" below), by layers of f = g + h. The same text compiles
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
// Entries are never moved: a round of cost m scans a range lo..hi of the list, expands
// the entries at m whose state is still at m and not closed (closed, goal-tested: a
// goal state is the plan's end and the round is the last; successors inserted with
// g + cost and appended), and notes the smallest g above m it saw, how many such
// entries and the first of them, and the smallest g it appended.
//
// Rounds run back to back without the host: after each, one thread (wc_ucs_advance,
// the last block of the round on the device) picks the next from these notes. When
// zero-cost successors were appended at m, the next round is at m again over only
// what was appended, the rest's notes carried over; otherwise it is at the smallest g
// noted, from the first entry that may still be open (every entry before it is known
// to be dead: expanded, at a g below the round's, or stale) to the list's end. The
// host launches rounds in batches and reads the control block between batches; a
// round that cannot go on sets `stop` and the rounds after it do nothing: a goal, an
// empty list, a full store or an overflowing cost (errors: no state is ever dropped),
// or a rebuild.
//
// Within a cost, the rounds dive: a round scans at most the `cap` newest entries of its
// range and leaves the older ones to a sweep, so that the zero-cost successors of the
// newest states are expanded first, depth first in wide steps, and a goal deep in a
// zero-cost layer is met before the whole layer is expanded. When a round at m appends
// nothing at m, one round at m sweeps from the first entry left (entries already
// expanded are skipped there); only after that does the cost change. Any order of the
// states at m is optimal: they all cost m, the least open cost.
//
// Only states below a threshold T go into the list: a state reached at a g of T or
// more is stored with its best as any other but not appended, and `far_min` notes the
// smallest such g. When the list holds no open state below T but states were left out,
// the round stops for a split: the host raises T (far_min plus a width it adapts) and
// rebuilds the list from the store. Rounds then scan only the states of the cheapest
// band of costs, not every open state (tasks with thousands of distinct costs).
//
// An append past `room` sets `overflow`, and the host then rebuilds the
// list from the store (every state not closed, at its best g), as it does when more
// than `compact` entries are left to scan and most are dead; a rebuild always fits
// (`room` is the store's limit). A store past its limit sets `full`; a cost of
// 2^32 - 1 or more sets `cost_overflow`; a numeric effect whose result leaves the
// 32-bit range notes the state and the action in `range` (the first to claim it).
//
// A*: with pattern databases (`pdb`, as pdb.rs flattens them), each state's h is
// computed once, when it is stored, into `h[id]`, and every "g" of the list, the
// rounds and the threshold above is the key f = g + h instead (a state's entry is
// live while best's g plus its h is the entry's key). The databases are consistent,
// so a state is expanded at its least f with its least g, as in Dijkstra, and a goal
// state's h is 0: the round's key is the plan's cost. A state whose h is DEAD (no
// abstract path to the goal) is stored but never appended. A key past 2^32 - 2 sets
// `cost_overflow`. Without databases `pdb` and `h` are null and h is 0.

// The control block `ctl` (the indices are gpu.rs's too).
#define WC_STORED 0          // states stored
#define WC_FULL 1            // the store is full
#define WC_LEN 2             // entries in `open`
#define WC_OVERFLOW 3        // an append found no room (this round)
#define WC_LATER_MIN 4       // the smallest g above m scanned (this round)
#define WC_GOAL 5            // the smallest goal id found
#define WC_COST_OVERFLOW 6   // a path's cost reached 2^32 - 1
#define WC_PUSHED_MIN 7      // the smallest g appended (this round)
#define WC_LATER 8           // entries above m scanned (this round)
#define WC_LATER_LO 9        // the first entry above m scanned (this round)
#define WC_M 10              // the round's cost
#define WC_LO 11             // the round's entries lo..hi
#define WC_HI 12
#define WC_CARRIED_MIN 13    // the notes of the earlier rounds at m
#define WC_CARRIED_LATER 14
#define WC_CARRIED_LO 15
#define WC_STOP 16           // why the rounds stopped (WC_STOP_*), 0 while they go on
#define WC_ROUNDS 17         // rounds run
#define WC_DONE 18           // blocks of the running round done (the device's)
#define WC_T 19              // the threshold: states at a g from it on are left out
#define WC_FAR_MIN 20        // the smallest g of a state left out (since the last rebuild)
#define WC_DEFER_LO 21       // the first entry a round at m left to the sweep
#define WC_RANGE 22          // a state with a numeric effect out of range (WC_NONE: none)
#define WC_RANGE_ACTION 23   // that effect's action
#define WC_NONE 0xFFFFFFFFu  // no value: an empty minimum, no goal

#define WC_STOP_GOAL 1
#define WC_STOP_EXHAUSTED 2
#define WC_STOP_REBUILD 3
#define WC_STOP_ERROR 4
#define WC_STOP_SPLIT 5

struct WcUcs {
  u32 *states;
  u64 *best;
  unsigned char *closed;
  u64 *table;
  u64 capacity;
  u32 *ctl;
  // [0] states expanded, [1] successors generated, [2] entries scanned.
  u64 *counters;
  u64 *open;
  const u32 *cost;
  // A*'s pattern databases and each state's h; null for Dijkstra.
  const u32 *pdb;
  u32 *h;
  u32 limit;
  u32 room;
  u32 compact;
  // The host emulation visits a round's entries in the order lo + (i * stride) mod n.
  u32 stride;
  // The most entries a round scans, but a sweep (the dive, see the top).
  u32 cap;
  u32 pad;
};

#if defined(__CUDA_ARCH__)
#define WC_CAS64(p, e, v) atomicCAS((p), (e), (v))
#define WC_CAS32(p, e, v) atomicCAS((p), (e), (v))
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
__device__ __forceinline__ u64 wc_load64(const u64 *p) {
  u64 v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
#else
// One work item at a time: the atomics are plain reads and writes.
static inline u64 WC_CAS64(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 WC_CAS32(u32 *p, u32 e, u32 v) { u32 o = *p; if (o == e) *p = v; return o; }
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
#endif

// The expansion of one state: where its successors go.
struct WcSink {
  const WcUcs *u;
  u32 parent;
  // The g of the state being expanded.
  u32 g;
  // Successors generated, the smallest g appended and the smallest g left out, over
  // this thread's entries.
  u32 generated;
  u32 pushed_min;
  u32 far_min;
  // The threshold (ctl[WC_T]) of the launch.
  u32 t;
};
WC_FN void wc_ucs_emit(WcSink *k, u32 action, const u32 *t);
WC_FN void wc_ucs_range(WcSink *k, u32 action);
#define WC_PLAN_EMIT(k, a, t) wc_ucs_emit((k), (a), (t))
#define WC_PLAN_RANGE(k, a) wc_ucs_range((k), (a))

// @@MODEL@@

#define WC_BUSY 0xFFFFFFFFu
#define WC_LOST 0xFFFFFFFEu
#define WC_PDB_MAX 18  // pdb.rs's MAX_PATTERNS

// h of state `t`: the canonical combination of the pattern databases (the largest sum
// over the sets of patterns whose values add up), WC_NONE for a dead end, at most
// WC_NONE - 1; 0 without databases.
WC_FN u32 wc_ucs_heuristic(const WcUcs *u, const u32 *t) {
  const u32 *p = u->pdb;
  if (!p) return 0;
  u32 n = p[0], sets = p[1];
  u32 v[WC_PDB_MAX];
  const u32 *q = p + 2;
  for (u32 i = 0; i < n && i < WC_PDB_MAX; i++) {
    // The index: the variables' values as mixed-radix digits, the first the most
    // significant; a value is the position of the variable's true fact, else "none"
    // (clamped below the radix, as pdb.rs's Variable::value).
    u32 k = q[0], index = 0;
    const u32 *r = q + 2;
    for (u32 j = 0; j < k; j++) {
      u32 radix = r[0], m = r[1], value = m;
      for (u32 x = 0; x < m; x++) {
        u32 f = r[2 + x];
        if ((wc_plan_word(t, f >> 5) >> (f & 31)) & 1u) {
          value = x;
          break;
        }
      }
      index = index * radix + (value < radix ? value : radix - 1);
      r += 2 + m;
    }
    v[i] = p[q[1] + index];
    if (v[i] == WC_NONE) return WC_NONE;
    q = r;
  }
  u64 best = 0;
  for (u32 i = 0; i < sets; i++) {
    u64 sum = 0;
    // The set's patterns, one bit each (pdb.rs names none past `n`).
    for (u32 m = q[i] & ((1u << WC_PDB_MAX) - 1u); m; m &= m - 1u) sum += v[WC_PLAN_CTZ(m)];
    if (sum > best) best = sum;
  }
  return best >= WC_NONE ? WC_NONE - 1 : (u32)best;
}

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
      // Once the store is full (the run fails), a new state takes no table entry: the
      // rest of the round could otherwise fill the table, and a probe would never end.
      if (*(volatile u32 *)&u->ctl[WC_FULL]) return WC_LOST;
      u64 old = WC_CAS64(slot, 0ull, (tag << 32) | WC_BUSY);
      if (old == 0) {
        // Once full, no more claims: the counter stays far from wrapping around.
        u32 id = *(volatile u32 *)&u->ctl[WC_FULL] ? WC_LOST : wc_claim(&u->ctl[WC_STORED]);
        if (id >= u->limit) {
          WC_EXCH32(&u->ctl[WC_FULL], 1u);
          WC_EXCH64(slot, (tag << 32) | WC_LOST);
          return WC_LOST;
        }
        u32 *dst = u->states + (u64)id * WC_WORDS;
        for (int i = 0; i < WC_WORDS; i++) dst[i] = t[i];
        u->best[id] = link;
        if (u->h) u->h[id] = wc_ucs_heuristic(u, t);
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

// Appends entry (g, id) to `open` if there is room (else `overflow`), unless g is at or
// above the threshold (then notes it in `far_min`).
WC_FN void wc_ucs_push(WcSink *k, u32 g, u32 id) {
  const WcUcs *u = k->u;
  if (g >= k->t) {
    if (g < k->far_min) k->far_min = g;
    return;
  }
  u32 slot = wc_claim(&u->ctl[WC_LEN]);
  if (slot < u->room) {
    u->open[slot] = ((u64)g << 32) | id;
    if (g < k->pushed_min) k->pushed_min = g;
  } else {
    WC_EXCH32(&u->ctl[WC_OVERFLOW], 1u);
  }
}

// The key of stored state `id` at cost `g`: g + h (WC_NONE for a dead end, and for a
// key past the cost range, which also sets `cost_overflow`).
WC_FN u32 wc_ucs_key(const WcUcs *u, u32 id, u32 g) {
  if (!u->h) return g;
  u32 h = u->h[id];
  if (h == WC_NONE) return WC_NONE;
  u64 f = (u64)g + h;
  if (f >= WC_NONE) {
    WC_EXCH32(&u->ctl[WC_COST_OVERFLOW], 1u);
    return WC_NONE;
  }
  return (u32)f;
}

// Appends state `id` at cost `g` with its key, unless it is a dead end.
WC_FN void wc_ucs_offer(WcSink *k, u32 g, u32 id) {
  u32 key = wc_ucs_key(k->u, id, g);
  if (key != WC_NONE) wc_ucs_push(k, key, id);
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
  if (g < k->g || g == WC_NONE) {
    WC_EXCH32(&u->ctl[WC_COST_OVERFLOW], 1u);
    return;
  }
  u64 link = ((u64)g << 32) | k->parent;
  int fresh;
  u32 id = wc_ucs_insert(u, t, link, &fresh);
  if (id == WC_LOST) return;
  if (fresh || wc_ucs_improve(u, id, link)) wc_ucs_offer(k, g, id);
}

// Notes that `action` takes the state being expanded out of the numeric range (the
// first such note stays; the round then stops the search with an error).
WC_FN void wc_ucs_range(WcSink *k, u32 action) {
  const WcUcs *u = k->u;
  if (WC_CAS32(&u->ctl[WC_RANGE], WC_NONE, k->parent) == WC_NONE) WC_EXCH32(&u->ctl[WC_RANGE_ACTION], action);
}

// What one thread saw in a round: the smallest g above m, how many such entries and
// the first of them, and the states it expanded.
struct WcSeen {
  u32 later_min;
  u32 later;
  u32 later_lo;
  u32 expanded;
};

// Entry `i` of `open` in the round of cost m.
WC_FN void wc_ucs_entry(WcSink *k, WcSeen *seen, u32 i, u32 m) {
  const WcUcs *u = k->u;
  u64 e = u->open[i];
  u32 g = (u32)(e >> 32), id = (u32)e;
  if (g > m) {
    if (g < seen->later_min) seen->later_min = g;
    if (i < seen->later_lo) seen->later_lo = i;
    seen->later++;
    return;
  }
  u32 best = (u32)(wc_load64(u->best + id) >> 32);
  if (g < m || wc_ucs_key(u, id, best) != m || u->closed[id]) return;
  u->closed[id] = 1;
  seen->expanded++;
  u32 s[WC_WORDS];
  const u32 *stored = u->states + (u64)id * WC_WORDS;
  for (int w = 0; w < WC_WORDS; w++) s[w] = stored[w];
  if (!wc_plan_unsolved(s)) {
    WC_MIN32(&u->ctl[WC_GOAL], id);
    return;
  }
  k->parent = id;
  k->g = best;
  wc_successors(s, k);
}

// Stored state `id` back into `open` if it is open (the rebuild).
WC_FN void wc_ucs_reopen(WcSink *k, u32 id) {
  const WcUcs *u = k->u;
  if (!u->closed[id]) wc_ucs_offer(k, (u32)(u->best[id] >> 32), id);
}

// The values a round reports: minima (the smallest g appended, the smallest g above m
// and the first entry with one, the smallest g left out), then sums (entries above m,
// states expanded, successors generated).
#define WC_REPORT_MINS 4
#define WC_REPORT_SUMS 3

// A thread's values to report, in that order.
WC_FN void wc_ucs_values(const WcSink *k, const WcSeen *seen, u64 *v) {
  u64 all[WC_REPORT_MINS + WC_REPORT_SUMS] = {k->pushed_min, seen->later_min, seen->later_lo, k->far_min,
                                              seen->later,     seen->expanded,  k->generated};
  for (int i = 0; i < WC_REPORT_MINS + WC_REPORT_SUMS; i++) v[i] = all[i];
}

// Adds the values `v` (WC_REPORT_MINS minima, then the sums) to the control block and
// counters.
WC_FN void wc_ucs_publish(const WcUcs *u, const u64 *v) {
  if (v[0] != WC_NONE) WC_MIN32(&u->ctl[WC_PUSHED_MIN], (u32)v[0]);
  if (v[1] != WC_NONE) WC_MIN32(&u->ctl[WC_LATER_MIN], (u32)v[1]);
  if (v[2] != WC_NONE) WC_MIN32(&u->ctl[WC_LATER_LO], (u32)v[2]);
  if (v[3] != WC_NONE) WC_MIN32(&u->ctl[WC_FAR_MIN], (u32)v[3]);
  if (v[4]) WC_ADD32(&u->ctl[WC_LATER], (u32)v[4]);
  if (v[5]) WC_ADD64(&u->counters[0], v[5]);
  if (v[6]) WC_ADD64(&u->counters[1], v[6]);
}

#if defined(__CUDA_ARCH__)
// A block's totals, reduced through shared memory, then one atomic per block and value:
// every block of a round reports to the same few words, and atomics on one word are
// serialised.
// Every thread of the block calls it, at the kernel's end.
__device__ __forceinline__ void wc_ucs_warp_reduce(u64 *v) {
  for (int i = 0; i < WC_REPORT_MINS + WC_REPORT_SUMS; i++)
    for (int d = 16; d > 0; d >>= 1) {
      u64 o = __shfl_down_sync(0xFFFFFFFFu, v[i], d);
      v[i] = i < WC_REPORT_MINS ? (o < v[i] ? o : v[i]) : v[i] + o;
    }
}

__device__ void wc_ucs_report(const WcUcs *u, const WcSink *k, const WcSeen *seen) {
  __shared__ u64 part[WC_REPORT_MINS + WC_REPORT_SUMS][32];
  u64 v[WC_REPORT_MINS + WC_REPORT_SUMS];
  wc_ucs_values(k, seen, v);
  u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  wc_ucs_warp_reduce(v);
  if (lane == 0)
    for (int i = 0; i < WC_REPORT_MINS + WC_REPORT_SUMS; i++) part[i][warp] = v[i];
  __syncthreads();
  if (warp == 0) {
    for (int i = 0; i < WC_REPORT_MINS + WC_REPORT_SUMS; i++)
      v[i] = lane < warps ? part[i][lane] : (i < WC_REPORT_MINS ? (u64)WC_NONE : 0);
    wc_ucs_warp_reduce(v);
    if (lane == 0) wc_ucs_publish(u, v);
  }
}
#else
// One work item's totals.
static inline void wc_ucs_report(const WcUcs *u, const WcSink *k, const WcSeen *seen) {
  u64 v[WC_REPORT_MINS + WC_REPORT_SUMS];
  wc_ucs_values(k, seen, v);
  wc_ucs_publish(u, v);
}
#endif

WC_FN u32 wc_ucs_min(u32 a, u32 b) { return a < b ? a : b; }

// After a round (one thread, every other thread of the round done): the next round
// from the round's notes (see the top), or why there is none. Reads through `volatile`,
// past any cached copy of the block.
WC_FN void wc_ucs_advance(const WcUcs *u) {
  volatile u32 *c = u->ctl;
  if (c[WC_STOP]) return;
  u32 m = c[WC_M], lo = c[WC_LO], hi = c[WC_HI], len = c[WC_LEN], pushed_min = c[WC_PUSHED_MIN];
  c[WC_ROUNDS] = c[WC_ROUNDS] + 1;
  ((volatile u64 *)u->counters)[2] = ((volatile u64 *)u->counters)[2] + (hi - lo);
  if (c[WC_FULL] || c[WC_COST_OVERFLOW] || c[WC_RANGE] != WC_NONE) {
    c[WC_STOP] = WC_STOP_ERROR;
    return;
  }
  if (c[WC_GOAL] != WC_NONE) {
    c[WC_STOP] = WC_STOP_GOAL;
    return;
  }
  if (c[WC_OVERFLOW]) {
    c[WC_STOP] = WC_STOP_REBUILD;
    return;
  }
  u32 later_min = wc_ucs_min(c[WC_CARRIED_MIN], c[WC_LATER_MIN]);
  // A count for the compaction's estimate only (a sweep counts again what the dive
  // scanned): held below 2^32.
  u64 later_sum = (u64)c[WC_CARRIED_LATER] + c[WC_LATER];
  u32 later = later_sum > WC_NONE ? WC_NONE : (u32)later_sum;
  u32 later_lo = wc_ucs_min(c[WC_CARRIED_LO], c[WC_LATER_LO]);
  if (pushed_min == m || c[WC_DEFER_LO] != WC_NONE) {
    if (pushed_min == m) {
      // Zero-cost successors: the same cost again, over the newest of what was appended.
      u32 from = hi;
      if (len - hi > u->cap) {
        c[WC_DEFER_LO] = wc_ucs_min(c[WC_DEFER_LO], hi);
        from = len - u->cap;
      }
      c[WC_LO] = from;
    } else {
      // The dive ended: the sweep of what it left, at the same cost.
      c[WC_LO] = c[WC_DEFER_LO];
      c[WC_DEFER_LO] = WC_NONE;
    }
    c[WC_CARRIED_MIN] = later_min;
    c[WC_CARRIED_LATER] = later;
    c[WC_CARRIED_LO] = later_lo;
  } else {
    u32 next_lo = wc_ucs_min(later_lo, hi), next = wc_ucs_min(later_min, pushed_min);
    if (next == WC_NONE) {
      // Nothing open below the threshold: a split if states were left out.
      c[WC_STOP] = c[WC_FAR_MIN] == WC_NONE ? WC_STOP_EXHAUSTED : WC_STOP_SPLIT;
      return;
    }
    u64 live = (u64)later + (len - hi), span = len - next_lo;
    if (span > u->compact && 2 * live < span) {
      c[WC_STOP] = WC_STOP_REBUILD;
      return;
    }
    c[WC_M] = next;
    c[WC_LO] = next_lo;
    if (len - next_lo > u->cap) {
      c[WC_DEFER_LO] = next_lo;
      c[WC_LO] = len - u->cap;
    }
    c[WC_CARRIED_MIN] = WC_NONE;
    c[WC_CARRIED_LATER] = 0;
    c[WC_CARRIED_LO] = WC_NONE;
  }
  c[WC_HI] = len;
  c[WC_OVERFLOW] = 0;
  c[WC_LATER_MIN] = WC_NONE;
  c[WC_PUSHED_MIN] = WC_NONE;
  c[WC_LATER] = 0;
  c[WC_LATER_LO] = WC_NONE;
}

// A sink for the entries of a launch at cost m.
WC_FN WcSink wc_ucs_sink(const WcUcs *u, u32 m) {
  WcSink k = {u, 0u, m, 0u, WC_NONE, WC_NONE, ((volatile u32 *)u->ctl)[WC_T]};
  return k;
}

// The initial state: id 0, g 0, its own parent, the list's one entry.
WC_FN void wc_ucs_seed(const WcUcs *u, const u32 *init) {
  WcSink k = wc_ucs_sink(u, 0u);
  int fresh;
  u32 id = wc_ucs_insert(u, init, 0ull, &fresh);
  if (id != WC_LOST) wc_ucs_offer(&k, 0u, id);
  WC_MIN32(&u->ctl[WC_PUSHED_MIN], k.pushed_min);
  WC_MIN32(&u->ctl[WC_FAR_MIN], k.far_min);
}

#if defined(__CUDA_ARCH__)
// The scheduled round (nothing once the rounds stopped); its last block to finish
// picks the next.
extern "C" __global__ void wc_ucs_round(WcUcs u) {
  volatile u32 *c = u.ctl;
  // Uniform over the grid: only the last block's advance, after every block read it,
  // changes it.
  if (c[WC_STOP]) return;
  u32 m = c[WC_M], lo = c[WC_LO], hi = c[WC_HI];
  WcSink k = wc_ucs_sink(&u, m);
  WcSeen seen = {WC_NONE, 0u, WC_NONE, 0u};
  for (u64 i = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_entry(&k, &seen, (u32)i, m);
  wc_ucs_report(&u, &k, &seen);
  // Every thread's writes visible before its block counts itself done.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&u.ctl[WC_DONE], 1u) == gridDim.x - 1) {
    __threadfence();
    wc_ucs_advance(&u);
    c[WC_DONE] = 0;
  }
}

// Every stored state below `stored` that is not closed, appended to `open`.
extern "C" __global__ void wc_ucs_rebuild(WcUcs u, u32 stored) {
  WcSink k = wc_ucs_sink(&u, 0u);
  WcSeen seen = {WC_NONE, 0u, WC_NONE, 0u};
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < stored; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_reopen(&k, (u32)i);
  wc_ucs_report(&u, &k, &seen);
}

extern "C" __global__ void wc_ucs_start(WcUcs u, const u32 *init) { wc_ucs_seed(&u, init); }
#else
static u32 wc_ucs_gcd(u32 a, u32 b) { return b ? wc_ucs_gcd(b, a % b) : a; }

// The scheduled round, its entries lo..hi in the order lo + (i * stride) mod n (the
// stride made coprime to n), so that the tests vary the order in which a round meets
// its states; then the next round picked.
extern "C" void wc_ucs_round_host(const WcUcs *u) {
  if (u->ctl[WC_STOP]) return;
  u32 m = u->ctl[WC_M], lo = u->ctl[WC_LO], hi = u->ctl[WC_HI];
  WcSink k = wc_ucs_sink(u, m);
  WcSeen seen = {WC_NONE, 0u, WC_NONE, 0u};
  u64 n = hi - lo;
  u32 stride = u->stride ? u->stride : 1;
  while (n > 1 && wc_ucs_gcd(stride, (u32)n) != 1) stride++;
  for (u64 i = 0; i < n; i++) wc_ucs_entry(&k, &seen, lo + (u32)(i * stride % n), m);
  wc_ucs_report(u, &k, &seen);
  wc_ucs_advance(u);
}

extern "C" void wc_ucs_rebuild_host(const WcUcs *u, u32 stored) {
  WcSink k = wc_ucs_sink(u, 0u);
  WcSeen seen = {WC_NONE, 0u, WC_NONE, 0u};
  for (u32 i = 0; i < stored; i++) wc_ucs_reopen(&k, i);
  wc_ucs_report(u, &k, &seen);
}

extern "C" void wc_ucs_start_host(const WcUcs *u, const u32 *init) { wc_ucs_seed(u, init); }
#endif
