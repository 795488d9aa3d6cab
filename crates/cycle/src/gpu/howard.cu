// Kernels of the GPU Howard policy iteration (howard.rs drives them; read its module
// comment first). All cyclic SCCs at once: every vertex carries its component id, and
// every kernel skips the vertices of components that have converged (`active[c] == 0`).
// One thread per vertex (per component for hw_activate), grid-stride loops. Vertices,
// edges and policies are 32-bit indices; a policy is a forward edge id.

typedef unsigned int u32;
typedef unsigned long long u64;

#define NONE 0xffffffffu

// The graph of all cyclic components, in compact ids (see howard.rs, `Compact`).
struct HwGraph {
    const u32* off;    // n + 1 forward offsets
    const u32* tgt;    // m targets
    const double* w;   // m weights (to minimise)
    const double* t;   // m transit times, or null for a cycle mean (every time 1)
    const u32* roff;   // n + 1 reverse offsets
    const u32* rsrc;   // m: the source of each reverse edge
    const u32* redge;  // m: its forward edge id
    const u32* comp;   // n: component of each vertex
    const u32* active; // per component: still improving
    u32 n;
};

#define FOR_ACTIVE(g, v)                                                              \
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < (g).n; v += gridDim.x * blockDim.x) \
        if ((g).active[(g).comp[v]])

__device__ __forceinline__ double time_of(const HwGraph& g, u32 e) { return g.t ? g.t[e] : 1.0; }

// Doubles in the order of u64 keys, for atomicMin (no NaN arises: all values are finite).
__device__ __forceinline__ u64 order_key(double x) {
    u64 b = (u64)__double_as_longlong(x);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

// Policy improvement: the best out-edge under the current values; the policy changes
// only if that is better than the current edge by more than the tolerance (ties and
// rounding noise keep it, which Howard's termination needs).
extern "C" __global__ void hw_improve(HwGraph g, const double* lam, const double* val, u32* pol, u32* changed,
                                      u32* any, double rel_tol, double abs_tol) {
    FOR_ACTIVE(g, v) {
        double l = lam[g.comp[v]];
        double best = 0.0;
        u32 best_e = NONE;
        for (u32 e = g.off[v]; e < g.off[v + 1]; e++) {
            double x = val[g.tgt[e]] + g.w[e] - l * time_of(g, e);
            if (best_e == NONE || x < best) {
                best = x;
                best_e = e;
            }
        }
        u32 p = pol[v];
        bool better = p == NONE;
        if (!better) {
            double cur = val[g.tgt[p]] + g.w[p] - l * time_of(g, p);
            better = cur - best > rel_tol * (fabs(cur) + fabs(best)) + abs_tol;
        }
        if (better) {
            pol[v] = best_e;
            u32 c = g.comp[v];
            if (!changed[c]) changed[c] = 1;
            if (!*any) *any = 1;
        }
    }
}

// Components that changed stay active for this round; the others have converged.
extern "C" __global__ void hw_activate(u32 components, u32* changed, u32* active, u64* best_key, u32* best_src) {
    for (u32 c = blockIdx.x * blockDim.x + threadIdx.x; c < components; c += gridDim.x * blockDim.x) {
        u32 a = changed[c];
        active[c] = a;
        changed[c] = 0;
        if (a) {
            best_key[c] = ~0ull;
            best_src[c] = NONE;
        }
    }
}

// Pointer jumping on the policy graph: jump[v] = (smallest vertex of the path, end).
// After k rounds the path is the 2^k vertices v, pol(v), ..., and its end pol^(2^k)(v).
extern "C" __global__ void hw_jump_init(HwGraph g, const u32* pol, u64* jump) {
    FOR_ACTIVE(g, v) { jump[v] = ((u64)v << 32) | g.tgt[pol[v]]; }
}

extern "C" __global__ void hw_jump(HwGraph g, const u64* in, u64* out) {
    FOR_ACTIVE(g, v) {
        u64 a = in[v];
        u64 b = in[(u32)a];
        u64 low = (a >> 32) < (b >> 32) ? (a >> 32) : (b >> 32);
        out[v] = (low << 32) | (b & 0xffffffffull);
    }
}

// With 2^k >= the component's size, the end of v's path lies on the policy cycle that v
// reaches, and the path from there covers that whole cycle: its smallest vertex names
// the cycle (cyc[v]). The thread of that smallest vertex walks the cycle, takes its
// mean in floating point and votes for its component's best cycle.
extern "C" __global__ void hw_cycles(HwGraph g, const u32* pol, const u64* jump, u32* cyc, double* mean,
                                     u64* best_key) {
    FOR_ACTIVE(g, v) {
        u32 end = (u32)jump[v];
        u32 s = (u32)(jump[end] >> 32);
        cyc[v] = s;
        if (s == v) {
            double w = 0.0, t = 0.0;
            u32 x = v;
            do {
                u32 e = pol[x];
                w += g.w[e];
                t += time_of(g, e);
                x = g.tgt[e];
            } while (x != v);
            double m = w / t;
            mean[v] = m;
            atomicMin(&best_key[g.comp[v]], order_key(m));
        }
    }
}

// Among the cycles of the best mean, the one with the smallest vertex (deterministic:
// the same cycle keeps the same source, which Howard's termination needs).
extern "C" __global__ void hw_pick(HwGraph g, const u32* cyc, const double* mean, const u64* best_key,
                                   u32* best_src) {
    FOR_ACTIVE(g, v) {
        u32 c = g.comp[v];
        if (cyc[v] == v && order_key(mean[v]) == best_key[c]) atomicMin(&best_src[c], v);
    }
}

// The vertices whose policy path reaches the best cycle keep their policy (level 0);
// λ of the component is the best cycle's mean.
extern "C" __global__ void hw_rebuild_init(HwGraph g, const u32* cyc, const double* mean, const u32* best_src,
                                           double* lam, u32* level) {
    FOR_ACTIVE(g, v) {
        u32 s = best_src[g.comp[v]];
        level[v] = cyc[v] == s ? 0 : NONE;
        if (v == s) lam[g.comp[v]] = mean[v];
    }
}

// Claims the unreached predecessors of x for BFS level `next`: their policy becomes the
// edge into x, and they join the next frontier.
__device__ __forceinline__ void claim(const HwGraph& g, u32 x, u32 next, u32* level, u32* pol, u32* out,
                                      u32* out_count) {
    for (u32 r = g.roff[x]; r < g.roff[x + 1]; r++) {
        u32 u = g.rsrc[r];
        if (level[u] == NONE && atomicCAS(&level[u], NONE, next) == NONE) {
            pol[u] = g.redge[r];
            out[atomicAdd(out_count, 1u)] = u;
        }
    }
}

// Backward BFS in the graph from level 0 (every level-0 vertex, found by a sweep)...
extern "C" __global__ void hw_connect_sweep(HwGraph g, u32* level, u32* pol, u32* out, u32* out_count) {
    FOR_ACTIVE(g, v) {
        if (level[v] == 0) claim(g, v, 1, level, pol, out, out_count);
    }
}

// ... then one level per launch from a frontier queue. Level L reads queue L % 2 with
// count[L % 3], writes queue (L + 1) % 2 with count[(L + 1) % 3], and clears
// count[(L + 2) % 3] for level L + 1. An empty frontier makes the launch a no-op, so the
// host enqueues levels in batches and checks the count once per batch.
extern "C" __global__ void hw_connect_level(HwGraph g, u32 L, u32* level, u32* pol, u32* q0, u32* q1,
                                            u32* count) {
    const u32* in = (L & 1) ? q1 : q0;
    u32* out = (L & 1) ? q0 : q1;
    u32 size = count[L % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) count[(L + 2) % 3] = 0;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += gridDim.x * blockDim.x)
        claim(g, in[i], L + 1, level, pol, out, &count[(L + 1) % 3]);
}

// Value determination by pointer jumping towards the source s of the best cycle:
// val(s) = 0, val(v) = val(pol v) + w - λ t. The policy graph is now one cycle with
// in-trees; cutting it at s (s points to itself with 0) makes a forest, and jumping
// sums each vertex's reduced path weight in O(log depth) rounds. This replaces the
// paper's valuePropagate fixpoint, which as printed never stops (digest 002, §3.7).
struct __align__(16) ValueJump {
    double acc;
    u32 next;
    u32 pad;
};

extern "C" __global__ void hw_values_init(HwGraph g, const u32* pol, const u32* best_src, const double* lam,
                                          ValueJump* vj) {
    FOR_ACTIVE(g, v) {
        u32 c = g.comp[v];
        ValueJump j;
        j.pad = 0;
        if (v == best_src[c]) {
            j.acc = 0.0;
            j.next = v;
        } else {
            u32 e = pol[v];
            j.acc = g.w[e] - lam[c] * time_of(g, e);
            j.next = g.tgt[e];
        }
        vj[v] = j;
    }
}

extern "C" __global__ void hw_values_jump(HwGraph g, const ValueJump* in, ValueJump* out, u32* moved) {
    FOR_ACTIVE(g, v) {
        ValueJump a = in[v];
        ValueJump b = in[a.next];
        if (b.next != a.next && !*moved) *moved = 1;
        a.acc += b.acc;
        a.next = b.next;
        out[v] = a;
    }
}

extern "C" __global__ void hw_values_finish(HwGraph g, const ValueJump* vj, double* val) {
    FOR_ACTIVE(g, v) { val[v] = vj[v].acc; }
}
