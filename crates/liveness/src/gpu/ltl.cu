// Accepting-cycle detection on the product graph the expansion kernel recorded
// (WC_GRAPH, kernel.cu): OWCTY and MAP over (first, degree, targets), appended to the
// kernels of a graph-recording exploration. See ltl.rs for the algorithms.
//
// Frontier loops: two queues of vertex ids and a control block `c` of u64:
// [0], [1] the lengths of queue 0 and 1, [2] which queue is current, [3] vertices taken
// from current queues so far, [4] non-empty levels. A step kernel takes the current
// queue and appends to the other (one atomic per converged group of threads); the
// one-thread flip kernel then makes the other queue current. The host enqueues many
// (step, flip) pairs per round trip: once the current queue is empty they do nothing.

#define WC_IN_SET 1u
#define WC_REACHED 2u

__device__ __forceinline__ void wc_push(u32 *queue, u64 *len, u32 v) { queue[wc_claim(len)] = v; }

#define WC_GRID_STRIDE(i, n) for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)gridDim.x * blockDim.x)

extern "C" __global__ void wc_front_reset(u64 *c) {
  for (int i = 0; i < 5; i++) c[i] = 0;
}

extern "C" __global__ void wc_front_flip(u64 *c) {
  u64 cur = c[2];
  if (c[cur]) c[4]++;
  c[3] += c[cur];
  c[cur] = 0;
  c[2] = cur ^ 1;
}

// Acceptance of every vertex (the error state, `real` if there is one, accepts
// nothing), and the error state's number for the steps that raised an evaluation error.
extern "C" __global__ void wc_ltl_accepting(const u32 *states, u32 real, u32 n, unsigned char *acc) {
  WC_GRID_STRIDE(v, n) {
    int a = 0;
    if (v < real) {
      u32 s[WC_WORDS];
      for (int i = 0; i < WC_WORDS; i++) s[i] = states[v * WC_WORDS + i];
      a = wc_accepting(s);
    }
    acc[v] = (unsigned char)(a != 0);
  }
}

extern "C" __global__ void wc_ltl_error_targets(u32 *targets, u64 edges, u32 error_state) {
  WC_GRID_STRIDE(e, edges) {
    if (targets[e] == WC_ERROR_TARGET) targets[e] = error_state;
  }
}

// ---- OWCTY ----

extern "C" __global__ void wc_owcty_init(u32 n, u32 *flags) {
  WC_GRID_STRIDE(v, n) flags[v] = WC_IN_SET;
}

// Reachability starts from the accepting vertices of S (marked reached).
extern "C" __global__ void wc_reach_seed(u32 n, u32 *flags, const unsigned char *acc, u32 *q0, u32 *q1, u64 *c) {
  u64 cur = c[2];
  u32 *q = cur ? q1 : q0;
  WC_GRID_STRIDE(v, n) {
    u32 f = flags[v] & WC_IN_SET;
    if (f && acc[v]) {
      flags[v] = WC_IN_SET | WC_REACHED;
      wc_push(q, c + cur, (u32)v);
    } else {
      flags[v] = f;
    }
  }
}

extern "C" __global__ void wc_reach_step(const u64 *first, const u32 *degree, const u32 *targets, u32 *flags,
                                         u32 *q0, u32 *q1, u64 *c) {
  u64 cur = c[2];
  const u32 *in = cur ? q1 : q0;
  u32 *out = cur ? q0 : q1;
  WC_GRID_STRIDE(i, c[cur]) {
    u32 u = in[i];
    u64 e = first[u], end = e + degree[u];
    for (; e < end; e++) {
      u32 v = targets[e];
      u32 f = flags[v];
      if ((f & WC_IN_SET) && !(f & WC_REACHED) && !(atomicOr(flags + v, WC_REACHED) & WC_REACHED))
        wc_push(out, c + (cur ^ 1), v);
    }
  }
}

// S becomes the reached vertices; in-degrees within S are counted next.
extern "C" __global__ void wc_owcty_restrict(u32 n, u32 *flags, u32 *indegree) {
  WC_GRID_STRIDE(v, n) {
    flags[v] = (flags[v] & WC_REACHED) ? WC_IN_SET : 0u;
    indegree[v] = 0;
  }
}

extern "C" __global__ void wc_owcty_indegree(u32 n, const u64 *first, const u32 *degree, const u32 *targets,
                                             const u32 *flags, u32 *indegree) {
  WC_GRID_STRIDE(u, n) {
    if (!(flags[u] & WC_IN_SET)) continue;
    u64 e = first[u], end = e + degree[u];
    for (; e < end; e++) {
      u32 v = targets[e];
      if (flags[v] & WC_IN_SET) atomicAdd(indegree + v, 1u);
    }
  }
}

extern "C" __global__ void wc_elim_seed(u32 n, const u32 *flags, const u32 *indegree, u32 *q0, u32 *q1, u64 *c) {
  u64 cur = c[2];
  u32 *q = cur ? q1 : q0;
  WC_GRID_STRIDE(v, n) {
    if ((flags[v] & WC_IN_SET) && indegree[v] == 0) wc_push(q, c + cur, (u32)v);
  }
}

// Removes the front (in-degree 0 within S); successors whose in-degree drops to 0
// form the next front (each exactly once: the thread that takes it from 1 to 0).
extern "C" __global__ void wc_elim_step(const u64 *first, const u32 *degree, const u32 *targets, u32 *flags,
                                        u32 *indegree, u32 *q0, u32 *q1, u64 *c) {
  u64 cur = c[2];
  const u32 *in = cur ? q1 : q0;
  u32 *out = cur ? q0 : q1;
  WC_GRID_STRIDE(i, c[cur]) {
    u32 u = in[i];
    flags[u] = 0;
    u64 e = first[u], end = e + degree[u];
    for (; e < end; e++) {
      u32 v = targets[e];
      if ((flags[v] & WC_IN_SET) && atomicSub(indegree + v, 1u) == 1u) wc_push(out, c + (cur ^ 1), v);
    }
  }
}

// ---- MAP ----  (values are vertex + 1, 0 for none)

extern "C" __global__ void wc_map_seed(u32 n, const unsigned char *acc, u32 *value, u32 *queued, u32 *q0, u32 *q1,
                                       u64 *c) {
  u64 cur = c[2];
  u32 *q = cur ? q1 : q0;
  WC_GRID_STRIDE(v, n) {
    value[v] = 0;
    queued[v] = acc[v];
    if (acc[v]) wc_push(q, c + cur, (u32)v);
  }
}

extern "C" __global__ void wc_map_unqueue(u32 *queued, const u32 *q0, const u32 *q1, const u64 *c) {
  u64 cur = c[2];
  const u32 *in = cur ? q1 : q0;
  WC_GRID_STRIDE(i, c[cur]) queued[in[i]] = 0;
}

// Passes each front vertex's value (or itself, if accepting and larger) on; a
// successor whose value grew joins the next front once.
extern "C" __global__ void wc_map_step(const u64 *first, const u32 *degree, const u32 *targets,
                                       const unsigned char *acc, u32 *value, u32 *queued, u32 *q0, u32 *q1, u64 *c) {
  u64 cur = c[2];
  const u32 *in = cur ? q1 : q0;
  u32 *out = cur ? q0 : q1;
  WC_GRID_STRIDE(i, c[cur]) {
    u32 u = in[i];
    u32 passed = *(volatile u32 *)(value + u);
    if (acc[u] && passed < u + 1) passed = u + 1;
    if (!passed) continue;
    u64 e = first[u], end = e + degree[u];
    for (; e < end; e++) {
      u32 v = targets[e];
      if (atomicMax(value + v, passed) < passed && !atomicExch(queued + v, 1u)) wc_push(out, c + (cur ^ 1), v);
    }
  }
}

extern "C" __global__ void wc_map_reset(u32 *result) {
  result[0] = 0xFFFFFFFFu;
  result[1] = 0;
}

// After a round's fixpoint: the smallest accepting vertex that is its own value.
extern "C" __global__ void wc_map_cycle(u32 n, const unsigned char *acc, const u32 *value, u32 *found) {
  WC_GRID_STRIDE(v, n) {
    if (acc[v] && value[v] == (u32)v + 1) atomicMin(found, (u32)v);
  }
}

// Otherwise every value stops being accepting; `removed` says whether one was.
extern "C" __global__ void wc_map_unmark(u32 n, unsigned char *acc, const u32 *value, u32 *removed) {
  WC_GRID_STRIDE(v, n) {
    u32 m = value[v];
    if (m && acc[m - 1]) {
      acc[m - 1] = 0;
      *removed = 1;
    }
  }
}

// ---- Counterexample ----  (an accepting vertex `a` on a cycle is known)

#define WC_NONE 0xFFFFFFFFu

// OWCTY's set holds every accepting cycle: MAP, run next for a vertex on one, looks
// only at the accepting vertices in it.
extern "C" __global__ void wc_ltl_keep_set(u32 n, const u32 *flags, unsigned char *acc) {
  WC_GRID_STRIDE(v, n) {
    if (!(flags[v] & WC_IN_SET)) acc[v] = 0;
  }
}

extern "C" __global__ void wc_cycle_init(u32 n, u32 *parent) {
  WC_GRID_STRIDE(v, n) parent[v] = WC_NONE;
}

// One thread: the search starts at `a`; result[0]: the predecessor of `a` found.
extern "C" __global__ void wc_cycle_seed(u32 a, u32 *parent, u32 *q0, u32 *q1, u64 *c, u32 *result) {
  u64 cur = c[2];
  u32 *q = cur ? q1 : q0;
  q[c[cur]++] = a;
  parent[a] = a;
  result[0] = WC_NONE;
}

// Breadth-first search from `a` with parents, until a front vertex steps back to `a`
// (the first level that does: a shortest cycle through `a`).
extern "C" __global__ void wc_cycle_step(const u64 *first, const u32 *degree, const u32 *targets, u32 a, u32 *parent,
                                         u32 *q0, u32 *q1, u64 *c, u32 *result) {
  if (*(volatile u32 *)result != WC_NONE) return;
  u64 cur = c[2];
  const u32 *in = cur ? q1 : q0;
  u32 *out = cur ? q0 : q1;
  WC_GRID_STRIDE(i, c[cur]) {
    u32 u = in[i];
    u64 e = first[u], end = e + degree[u];
    for (; e < end; e++) {
      u32 v = targets[e];
      if (v == a) {
        atomicCAS(result, WC_NONE, u);
      } else if (parent[v] == WC_NONE && atomicCAS(parent + v, WC_NONE, u) == WC_NONE) {
        wc_push(out, c + (cur ^ 1), v);
      }
    }
  }
}

// One thread: follows `parent` from `from` to `stop` (both written), into `out`;
// *len is the path's length, or 0 if the chain leaves the `n` vertices or is longer.
extern "C" __global__ void wc_chain(const u32 *parent, u32 from, u32 stop, u32 n, u32 *out, u64 *len) {
  u32 v = from;
  for (u64 k = 0; k < n && v < n; k++) {
    out[k] = v;
    if (v == stop) {
      *len = k + 1;
      return;
    }
    v = parent[v];
  }
  *len = 0;
}
