// SCC decomposition kernels (see scc.rs for the algorithms and the host loop).
//
// One thread per vertex (grid-stride) for the whole-graph passes, one thread per
// queued vertex for the queue-driven passes (trimming waves, BFS levels, colour
// propagation). Queues are double buffered by the parity of the running level
// counter `ctl[LEVEL]`: a queue kernel reads queue `p = level & 1` and pushes into
// `1 - p`; `scc_advance` (one thread) flips them, so the host can enqueue many levels
// without reading anything back. Seeding kernels push into the next queue.
//
// Every live vertex `v` has a subgraph label `label[v]` (a vertex id naming the
// subgraph); `DONE` once its component `comp[v]` is known. An edge is followed only
// between vertices of the same label, so one launch serves all subgraphs.

#define DONE 0xffffffffu
// flags[v] bits
#define F_ 1u      // reached by the forward search
#define B_ 2u      // reached by the backward search
#define TRIM 4u    // trimmed in this round (a trivial component)
#define TOUCH 8u   // OBF: a seed, or a successor of an eliminated vertex
#define NEXT 16u   // OBF: a seed of the range's next step
#define RANGE 32u  // OBF: the subgraph is a rooted range (else a split task)
#define FIRST 64u  // OBF: first step of a range; its root is the label

// ctl[] words
#define LEVEL 0    // running level counter; its parity picks the current queues
#define CF 1       // CF + p: length of forward queue p
#define CB 3       // CB + p: length of backward queue p
#define IDLE 5     // both current queues empty
#define LEVELS 6   // non-empty levels run (statistics)
#define LIVE 7     // live vertices counted by scc_degrees

typedef unsigned int u32;
typedef unsigned long long u64;

struct Scc {
    const u64* fo; const u32* ft;  // forward CSR
    const u64* bo; const u32* bt;  // backward CSR
    u32* label; u32* flags; u32* comp;
    u32* deg_in; u32* deg_out;
    u32* slot;    // n: per-label pivot slot (atomicMax of keys)
    u32* child;   // 3n: per-(label, class) naming slot of the children
    u32* color;   // n: Coloring's colours (keys)
    u32* mark;    // n: Coloring's queued-at-level stamps
    u32* qf0; u32* qf1; u32* qb0; u32* qb1;
    u32* ctl;
    u32 n;
    u32 salt;
};

// A bijection of u32 (murmur3's finaliser) and its inverse: keys are pseudo-random,
// so atomicMax over them picks a pseudo-random member, and the winner is recovered
// from the key.
__device__ __forceinline__ u32 mix(u32 h) {
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return h;
}
__device__ __forceinline__ u32 unmix(u32 h) {
    h ^= h >> 16; h *= 0x7ed1b41du; h ^= (h >> 13) ^ (h >> 26); h *= 0xa5cb9243u; h ^= h >> 16;
    return h;
}
__device__ __forceinline__ u32 key(const Scc& s, u32 v) { return mix(v ^ s.salt); }
__device__ __forceinline__ u32 unkey(const Scc& s, u32 k) { return unmix(k) ^ s.salt; }

__device__ __forceinline__ u64 first_thread() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 stride() { return (u64)gridDim.x * blockDim.x; }

// Appends v to `queue`, one atomic per group of lanes pushing to the same queue.
__device__ __forceinline__ void push(u32* queue, u32* count, u32 v) {
    u32 mask = __match_any_sync(__activemask(), (u64)count);
    u32 lane = threadIdx.x & 31;
    u32 leader = __ffs(mask) - 1;
    u32 base = 0;
    if (lane == leader) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(mask, base, leader);
    queue[base + __popc(mask & ((1u << lane) - 1))] = v;
}

__device__ __forceinline__ u32* fq(const Scc& s, u32 p) { return p ? s.qf1 : s.qf0; }
__device__ __forceinline__ u32* bq(const Scc& s, u32 p) { return p ? s.qb1 : s.qb0; }
__device__ __forceinline__ u32 next_parity(const Scc& s) { return 1u - (s.ctl[LEVEL] & 1u); }

// One thread: the consumed queues become empty, the next ones current.
extern "C" __global__ void scc_advance(u32* ctl) {
    u32 p = ctl[LEVEL] & 1u;
    ctl[CF + p] = 0;
    ctl[CB + p] = 0;
    ctl[LEVEL] += 1;
    u32 q = 1u - p;
    u32 idle = (ctl[CF + q] | ctl[CB + q]) == 0;
    ctl[IDLE] = idle;
    if (!idle) ctl[LEVELS] += 1;
}

// Degrees within the subgraph (self-loops and other subgraphs' vertices not counted),
// and the number of live vertices.
extern "C" __global__ void scc_degrees(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        bool live = L != DONE;
        if (live) {
            u32 out = 0, in = 0;
            for (u64 e = s.fo[v]; e < s.fo[v + 1]; e++) {
                u32 w = s.ft[e];
                out += w != v && s.label[w] == L;
            }
            for (u64 e = s.bo[v]; e < s.bo[v + 1]; e++) {
                u32 u = s.bt[e];
                in += u != v && s.label[u] == L;
            }
            s.deg_out[v] = out;
            s.deg_in[v] = in;
        }
        u32 mask = __activemask();
        u32 votes = __ballot_sync(mask, live);
        if ((threadIdx.x & 31) == __ffs(mask) - 1 && votes) atomicAdd(&s.ctl[LIVE], __popc(votes));
    }
}

// Trimming starts from the live vertices without predecessors or successors.
extern "C" __global__ void scc_trim_seed(Scc s) {
    u32 q = next_parity(s);
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i;
        if (s.label[v] != DONE && (s.deg_in[v] == 0 || s.deg_out[v] == 0)) {
            s.flags[v] |= TRIM;
            push(fq(s, q), &s.ctl[CF + q], v);
        }
    }
}

__device__ __forceinline__ void claim(const Scc& s, u32 w, u32 q) {
    if (!(atomicOr(&s.flags[w], TRIM) & TRIM)) push(fq(s, q), &s.ctl[CF + q], w);
}

// One trimming wave: each trimmed vertex lowers its neighbours' degrees; a neighbour
// left without predecessors or successors is trimmed next. Successors of a trimmed
// vertex are TOUCHed (OBF's "reached").
extern "C" __global__ void scc_peel(Scc s) {
    u32 p = s.ctl[LEVEL] & 1u, q = 1u - p;
    u32 count = s.ctl[CF + p];
    const u32* queue = fq(s, p);
    for (u64 i = first_thread(); i < count; i += stride()) {
        u32 v = queue[i], L = s.label[v];
        for (u64 e = s.fo[v]; e < s.fo[v + 1]; e++) {
            u32 w = s.ft[e];
            if (w == v || s.label[w] != L) continue;
            u32 f = s.flags[w];
            if (f & TRIM) continue;
            if (!(f & TOUCH)) atomicOr(&s.flags[w], TOUCH);
            if (atomicSub(&s.deg_in[w], 1u) == 1u) claim(s, w, q);
        }
        for (u64 e = s.bo[v]; e < s.bo[v + 1]; e++) {
            u32 u = s.bt[e];
            if (u == v || s.label[u] != L || (s.flags[u] & TRIM)) continue;
            if (atomicSub(&s.deg_out[u], 1u) == 1u) claim(s, u, q);
        }
    }
}

// Pivot selection modes of scc_pick and seeding modes of scc_seed.
#define PICK_ALL 0    // FB: every subgraph
#define PICK_SPLIT 1  // OBF: split tasks only
#define PICK_NONE 2   // Coloring

// Trimmed vertices become components of their own; the others race for their
// subgraph's pivot slot (the largest key wins).
extern "C" __global__ void scc_pick(Scc s, u32 mode) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) continue;
        u32 f = s.flags[v];
        if (f & TRIM) {
            s.comp[v] = v;
            s.label[v] = DONE;
            s.flags[v] = 0;
        } else if (mode == PICK_ALL || (mode == PICK_SPLIT && !(f & RANGE))) {
            atomicMax(&s.slot[L], key(s, v));
        }
    }
}

#define SEED_FB 0
#define SEED_OBF 1
#define SEED_COLOR 2

// Seeds the searches: FB: each pivot, both ways; OBF: each split task's pivot
// forward, each range's reached (touched, not trimmed) vertices backward; Coloring:
// each root (a vertex that kept its own colour) backward.
extern "C" __global__ void scc_seed(Scc s, u32 mode) {
    u32 q = next_parity(s);
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) continue;
        u32 f = s.flags[v];
        bool fwd = false, bwd = false;
        if (mode == SEED_FB) {
            fwd = bwd = unkey(s, s.slot[L]) == v;
        } else if (mode == SEED_OBF) {
            if (f & RANGE) bwd = (f & TOUCH) != 0;
            else fwd = unkey(s, s.slot[L]) == v;
        } else {
            bwd = s.color[v] == key(s, v);
        }
        if (!fwd && !bwd) continue;
        s.flags[v] = f | (fwd ? F_ : 0) | (bwd ? B_ : 0);
        if (fwd) push(fq(s, q), &s.ctl[CF + q], v);
        if (bwd) push(bq(s, q), &s.ctl[CB + q], v);
    }
}

// One level of the forward and the backward search at once, within subgraphs (and,
// with `by_color`, within colour classes).
extern "C" __global__ void scc_bfs(Scc s, u32 by_color) {
    u32 p = s.ctl[LEVEL] & 1u, q = 1u - p;
    u32 nf = s.ctl[CF + p], nb = s.ctl[CB + p];
    for (u64 i = first_thread(); i < (u64)nf + nb; i += stride()) {
        bool fwd = i < nf;
        u32 v = fwd ? fq(s, p)[i] : bq(s, p)[i - nf];
        u32 L = s.label[v];
        u32 c = by_color ? s.color[v] : 0;
        const u64* off = fwd ? s.fo : s.bo;
        const u32* tgt = fwd ? s.ft : s.bt;
        u32 bit = fwd ? F_ : B_;
        for (u64 e = off[v]; e < off[v + 1]; e++) {
            u32 w = tgt[e];
            if (s.label[w] != L || (s.flags[w] & bit) || (by_color && s.color[w] != c)) continue;
            if (atomicOr(&s.flags[w], bit) & bit) continue;
            if (fwd) push(fq(s, q), &s.ctl[CF + q], w);
            else push(bq(s, q), &s.ctl[CB + q], w);
        }
    }
}

// The child class of a vertex after an FB search: 0 rest, 1 F \ B, 2 B \ F.
__device__ __forceinline__ u32 fb_class(u32 f) { return (f & F_) ? 1u : ((f & B_) ? 2u : 0u); }
__device__ __forceinline__ u32* child(const Scc& s, u32 L, u32 c) { return &s.child[3ull * L + c]; }

// FB: F ∩ B is the pivot's component; the other classes race to name their child.
extern "C" __global__ void scc_fb_name(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) continue;
        u32 f = s.flags[v];
        if ((f & (F_ | B_)) == (F_ | B_)) {
            s.comp[v] = unkey(s, s.slot[L]);
            s.label[v] = DONE;
            s.flags[v] = 0;
        } else {
            atomicMax(child(s, L, fb_class(f)), key(s, v));
        }
    }
}

extern "C" __global__ void scc_fb_relabel(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) continue;
        s.label[v] = unkey(s, *child(s, L, fb_class(s.flags[v])));
        s.flags[v] = 0;
    }
}

// Coloring: every live vertex starts with its key as colour and is queued.
extern "C" __global__ void scc_color_init(Scc s) {
    u32 q = next_parity(s);
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i;
        if (s.label[v] == DONE) continue;
        s.color[v] = key(s, v);
        push(fq(s, q), &s.ctl[CF + q], v);
    }
}

// One level of colour propagation: a successor whose colour grows is queued (once
// per level, by the level stamp).
extern "C" __global__ void scc_color_push(Scc s) {
    u32 p = s.ctl[LEVEL] & 1u, q = 1u - p;
    u32 count = s.ctl[CF + p], stamp = s.ctl[LEVEL] + 1u;
    const u32* queue = fq(s, p);
    for (u64 i = first_thread(); i < count; i += stride()) {
        u32 v = queue[i], L = s.label[v], c = s.color[v];
        for (u64 e = s.fo[v]; e < s.fo[v + 1]; e++) {
            u32 w = s.ft[e];
            if (s.label[w] != L || s.color[w] >= c) continue;
            if (atomicMax(&s.color[w], c) < c && atomicExch(&s.mark[w], stamp) != stamp)
                push(fq(s, q), &s.ctl[CF + q], w);
        }
    }
}

// Coloring: the vertices a root reached backward within its colour are its
// component; each colour class's rest becomes a subgraph named by its root.
extern "C" __global__ void scc_color_update(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i;
        if (s.label[v] == DONE) continue;
        u32 root = unkey(s, s.color[v]);
        if (s.flags[v] & B_) {
            s.comp[v] = root;
            s.label[v] = DONE;
        } else {
            s.label[v] = root;
        }
        s.flags[v] = 0;
    }
}

// OBF: the successors of a range's slice left in the range seed its next step.
extern "C" __global__ void scc_obf_seeds(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE || (s.flags[v] & (RANGE | B_)) != (RANGE | B_)) continue;
        for (u64 e = s.fo[v]; e < s.fo[v + 1]; e++) {
            u32 w = s.ft[e];
            if (s.label[w] == L && !(s.flags[w] & (B_ | NEXT))) atomicOr(&s.flags[w], NEXT);
        }
    }
}

// OBF: a split task's forward closure becomes a range rooted at its pivot (named by
// it), the rest a split task (child 0); a range's slice is a component if it is the
// first step and the root was reached (the slice is then the root's backward closure
// within its forward closure), else a split task (child 1); the range's rest stays a
// range (child 2).
extern "C" __global__ void scc_obf_name(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) continue;
        u32 f = s.flags[v];
        if (!(f & RANGE)) {
            if (!(f & F_)) atomicMax(child(s, L, 0), key(s, v));
        } else if (f & B_) {
            if ((f & FIRST) && (s.flags[L] & B_)) {
                s.comp[v] = L;
                s.label[v] = DONE;
            } else {
                atomicMax(child(s, L, 1), key(s, v));
            }
        } else {
            atomicMax(child(s, L, 2), key(s, v));
        }
    }
}

extern "C" __global__ void scc_obf_relabel(Scc s) {
    for (u64 i = first_thread(); i < s.n; i += stride()) {
        u32 v = (u32)i, L = s.label[v];
        if (L == DONE) {
            continue;
        }
        u32 f = s.flags[v];
        if (!(f & RANGE)) {
            if (f & F_) {
                u32 root = unkey(s, s.slot[L]);
                s.label[v] = root;
                s.flags[v] = RANGE | FIRST | (v == root ? TOUCH : 0);
            } else {
                s.label[v] = unkey(s, *child(s, L, 0));
                s.flags[v] = 0;
            }
        } else if (f & B_) {
            s.label[v] = unkey(s, *child(s, L, 1));
            s.flags[v] = 0;
        } else {
            s.label[v] = unkey(s, *child(s, L, 2));
            s.flags[v] = RANGE | ((f & NEXT) ? TOUCH : 0);
        }
    }
}
