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
// Open list: entries (g << 32) | id in `in`, read by one round, and `out`, written by
// it. An entry is pushed when a state is stored or its `best` lowered (a compare-and-
// swap that succeeds only for a strictly lower g, so the parent links form a tree: a
// state's parent was closed before it). Round m (the smallest g of `in`) drops stale
// entries (best no longer their g), keeps those above m and expands those at m: closed,
// goal-tested (a goal state is the plan's end; the round is the last), successors
// inserted with g + cost. Zero-cost successors land in `out` at m and are expanded in
// the next round at the same m. A push past `push_room` sets `overflow`; the host then
// rebuilds `out` from the store (every state not closed, at its best g), which always
// fits (`out_room` is the store's limit). A store past its limit sets `full`; a cost
// past 2^32 sets `cost_overflow`: the run fails, no state is ever dropped.

struct WcUcs {
  u32 *states;
  u64 *best;
  unsigned char *closed;
  u64 *table;
  u64 capacity;
  // [0] states stored, [1] full, [2] entries pushed, [3] overflow, [4] smallest g
  // pushed, [5] smallest goal id found, [6] cost overflow.
  u32 *ctl;
  // [0] states expanded, [1] successors generated.
  u64 *counters;
  const u64 *in;
  u64 *out;
  const u32 *cost;
  u32 in_len;
  u32 limit;
  u32 push_room;
  u32 out_room;
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
#endif

// The expansion of one state: where its successors go.
struct WcSink {
  const WcUcs *u;
  u32 parent;
  u32 g;
  u64 generated;
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
// the store is full); `fresh` says whether this call stored it.
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
        u32 id = WC_ADD32(&u->ctl[0], 1u);
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

// Appends entry (g, id) to `out` if there is room below `room` (else `overflow`).
WC_FN void wc_ucs_push(const WcUcs *u, u32 g, u32 id, u32 room) {
  u32 slot = WC_ADD32(&u->ctl[2], 1u);
  if (slot < room) {
    u->out[slot] = ((u64)g << 32) | id;
    WC_MIN32(&u->ctl[4], g);
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
  if (g < k->g) {
    WC_EXCH32(&u->ctl[6], 1u);
    return;
  }
  u64 link = ((u64)g << 32) | k->parent;
  int fresh;
  u32 id = wc_ucs_insert(u, t, link, &fresh);
  if (id == WC_LOST) return;
  if (fresh || wc_ucs_improve(u, id, link)) wc_ucs_push(u, g, id, u->push_room);
}

// Entry `i` of `in` in the round of cost m.
WC_FN void wc_ucs_entry(const WcUcs *u, u32 i, u32 m) {
  u64 e = u->in[i];
  u32 g = (u32)(e >> 32), id = (u32)e;
  if ((u32)(wc_load64(u->best + id) >> 32) != g) return;
  if (g != m) {
    wc_ucs_push(u, g, id, u->push_room);
    return;
  }
  if (u->closed[id]) return;
  u->closed[id] = 1;
  WC_ADD64(&u->counters[0], 1ull);
  u32 s[WC_WORDS];
  const u32 *stored = u->states + (u64)id * WC_WORDS;
  for (int w = 0; w < WC_WORDS; w++) s[w] = stored[w];
  if (!wc_plan_unsolved(s)) {
    WC_MIN32(&u->ctl[5], id);
    return;
  }
  WcSink k = {u, id, m, 0};
  wc_successors(s, &k);
  WC_ADD64(&u->counters[1], k.generated);
}

// Stored state `id` back into `out` if it is open (the rebuild after an overflow).
WC_FN void wc_ucs_reopen(const WcUcs *u, u32 id) {
  if (!u->closed[id]) wc_ucs_push(u, (u32)(u->best[id] >> 32), id, u->out_room);
}

// The initial state: id 0, g 0, its own parent, the one entry of `out`.
WC_FN void wc_ucs_seed(const WcUcs *u, const u32 *init) {
  int fresh;
  u32 id = wc_ucs_insert(u, init, 0ull, &fresh);
  if (id != WC_LOST) wc_ucs_push(u, 0u, id, u->out_room);
}

#if defined(__CUDA_ARCH__)
extern "C" __global__ void wc_ucs_expand(WcUcs u, u32 m) {
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < u.in_len; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_entry(&u, (u32)i, m);
}

extern "C" __global__ void wc_ucs_rebuild(WcUcs u, u32 stored) {
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < stored; i += (u64)gridDim.x * blockDim.x)
    wc_ucs_reopen(&u, (u32)i);
}

extern "C" __global__ void wc_ucs_start(WcUcs u, const u32 *init) { wc_ucs_seed(&u, init); }
#else
// The entries in the order `(i * stride) mod in_len` (stride coprime to in_len), so
// that the tests vary the order in which a round meets its states.
extern "C" void wc_ucs_expand_host(const WcUcs *u, u32 m, u32 stride) {
  for (u64 i = 0; i < u->in_len; i++) wc_ucs_entry(u, (u32)(i * stride % u->in_len), m);
}

extern "C" void wc_ucs_rebuild_host(const WcUcs *u, u32 stored) {
  for (u32 i = 0; i < stored; i++) wc_ucs_reopen(u, i);
}

extern "C" void wc_ucs_start_host(const WcUcs *u, const u32 *init) { wc_ucs_seed(u, init); }
#endif
