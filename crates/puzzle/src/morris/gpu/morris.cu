// Nine Men's Morris on the GPU: the retrograde analysis of the moving and jumping
// phases and the placing phase, one thread per board (see mod.rs for the host loop).
// Every function follows its Rust counterpart in ../index.rs, ../rules.rs, ../retro.rs
// and ../opening.rs; the byte values are ../value.rs's.
//
// This one source compiles for the device (NVRTC) and, with MM_HOST defined, as C++
// for the host (host.rs): the kernels then run on a grid of one thread, the atomics are
// plain updates, and the tests hold the whole solve to the CPU's, byte for byte.

typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char u8;

#ifdef MM_HOST
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__ static thread_local
struct MmDim3 { unsigned x, y, z; };
static const MmDim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static void __syncthreads() {}
static u32 atomicCAS(u32 *a, u32 expect, u32 want) { u32 o = *a; if (o == expect) *a = want; return o; }
static u32 atomicAdd(u32 *a, u32 v) { u32 o = *a; *a = o + v; return o; }
static u64 atomicAdd(u64 *a, u64 v) { u64 o = *a; *a = o + v; return o; }
static u64 atomicMax(u64 *a, u64 v) { u64 o = *a; if (v > o) *a = v; return o; }
#define MM_POPC(x) ((u32)__builtin_popcount(x))
#define MM_CTZ(x) ((u32)__builtin_ctz(x))
#else
#define MM_POPC(x) ((u32)__popc(x))
#define MM_CTZ(x) ((u32)(__ffs((int)(x)) - 1))
#endif

#define MM_FN __device__ __forceinline__

// The bytes of ../value.rs.
#define MM_HOLE 255u
#define MM_CHECKED 253u
#define MM_LAST 252u  // the largest byte of a value (MAX_PLIES + 1)

#define MM_FULL 0xffffffu

// The table words (mod.rs's `tables`, in this order): the canonical class and
// symmetry of every set of points, the symmetries' byte images, C(n, k) for n, k <= 24,
// neighbours, the two mills through each point, the 16 mills, the first class of each
// number of points (0..=10), the representatives, then their stabilisers.
#define MM_IMAGES (1u << 24)
#define MM_BINOM (MM_IMAGES + 16u * 3u * 256u)
#define MM_NB (MM_BINOM + 25u * 25u)
#define MM_MILLS_AT (MM_NB + 24u)
#define MM_MILLS (MM_MILLS_AT + 48u)
#define MM_REP_OFF (MM_MILLS + 16u)
#define MM_REPS (MM_REP_OFF + 11u)

// The arguments of every kernel (`Args` in mod.rs, field for field).
typedef struct {
    u64 tables;    // address of the table words
    u64 counters;  // address of four u64 counters
    u64 values;    // the table the kernel works on: one byte per slot
    u64 captures;  // the retrograde analysis: per slot the byte the best capture gives
    u64 slots;     // slots of `values`
    u32 a, b;      // pieces on the board: of the side to move, of the other
    u32 frontier;  // mm_level: the byte of the boards decided a level ago
    u32 target;    // mm_level, mm_captures: the byte this level decides
    u32 mover_hand, other_hand;  // mm_place: pieces in hand
    u64 db[100];   // per 10 a + b: the table of the boards that lookups reach
} MmArgs;

typedef struct {
    u32 mover, other, mover_hand, other_hand;
} MmPos;

// ---- The index (../index.rs) ----------------------------------------------------

MM_FN u32 mm_binom(const u32 *t, u32 n, u32 k) { return k > n ? 0u : t[MM_BINOM + 25u * n + k]; }

MM_FN u32 mm_image(const u32 *t, u32 s, u32 m) {
    const u32 *im = t + MM_IMAGES + 768u * s;
    return im[m & 255u] | im[256u + ((m >> 8) & 255u)] | im[512u + (m >> 16)];
}

MM_FN u32 mm_compress(u32 other, u32 free_points) {
    u32 out = 0;
    while (other) {
        u32 p = MM_CTZ(other);
        out |= 1u << MM_POPC(free_points & ((1u << p) - 1u));
        other &= other - 1u;
    }
    return out;
}

MM_FN u32 mm_expand(u32 within, u32 free_points) {
    u32 out = 0, at = 0;
    while (within) {
        u32 p = MM_CTZ(free_points);
        if (within & (1u << at)) {
            out |= 1u << p;
            within &= ~(1u << at);
        }
        free_points &= free_points - 1u;
        at++;
    }
    return out;
}

MM_FN u64 mm_colex_rank(const u32 *t, u32 mask) {
    u64 r = 0;
    u32 j = 1;
    while (mask) {
        r += mm_binom(t, MM_CTZ(mask), j++);
        mask &= mask - 1u;
    }
    return r;
}

MM_FN u32 mm_colex_unrank(const u32 *t, u64 r, u32 n, u32 k) {
    u32 mask = 0, c = n;
    for (u32 j = k; j >= 1; j--) {
        c--;
        while (mm_binom(t, c, j) > r) c--;
        mask |= 1u << c;
        r -= mm_binom(t, c, j);
    }
    return mask;
}

// The mover's representative, the other side's smallest image, the mover's class.
MM_FN u32 mm_canonical(const u32 *t, u32 mover, u32 other, u32 *rep, u32 *cls) {
    u32 a = MM_POPC(mover), e = t[mover];
    u32 c = t[MM_REP_OFF + a] + (e >> 4);
    *cls = e >> 4;
    *rep = t[MM_REPS + c];
    u32 best = mm_image(t, e & 15u, other);
    u32 stab = t[MM_REPS + t[MM_REP_OFF + 10] + c] & ~1u;
    u32 first = best;
    while (stab) {
        u32 im = mm_image(t, MM_CTZ(stab), first);
        if (im < best) best = im;
        stab &= stab - 1u;
    }
    return best;
}

MM_FN u64 mm_rank(const u32 *t, u32 mover, u32 other) {
    u32 rep, cls;
    u32 best = mm_canonical(t, mover, other, &rep, &cls);
    u32 a = MM_POPC(rep);
    return (u64)cls * mm_binom(t, 24u - a, MM_POPC(best)) + mm_colex_rank(t, mm_compress(best, ~rep & MM_FULL));
}

// The board at `slot` of database (a, b) (a hole's board is not canonical).
MM_FN void mm_unrank(const u32 *t, u32 a, u32 b, u64 slot, u32 *mover, u32 *other) {
    u64 per = mm_binom(t, 24u - a, b);
    u32 rep = t[MM_REPS + t[MM_REP_OFF + a] + (u32)(slot / per)];
    *mover = rep;
    *other = mm_expand(mm_colex_unrank(t, slot % per, 24u - a, b), ~rep & MM_FULL);
}

// Whether an unranked board is the canonical one of its slot (not a hole).
MM_FN int mm_is_canonical(const u32 *t, u32 rep, u32 other) {
    u32 r, c;
    return mm_canonical(t, rep, other, &r, &c) == other;
}

// ---- Values and bytes -----------------------------------------------------------

MM_FN int mm_is_win(u32 v) { return v != 0 && v <= MM_LAST && (v & 1u) == 0; }
MM_FN int mm_is_loss(u32 v) { return (v & 1u) == 1 && v <= MM_LAST; }

// The byte of a position without pieces in hand, or of the next ply, by its pieces.
MM_FN u32 mm_byte(const MmArgs *x, const u32 *t, u32 mover, u32 other) {
    const u8 *table = (const u8 *)x->db[10u * MM_POPC(mover) + MM_POPC(other)];
    return table[mm_rank(t, mover, other)];
}

// Sets the byte `i` of `base` from `expect` to `want`; false if it was not `expect`.
MM_FN int mm_cas(u8 *base, u64 i, u32 expect, u32 want) {
    u32 *w = (u32 *)(base + (i & ~3ull));
    u32 shift = 8u * (u32)(i & 3u);
    u32 old = *(volatile u32 *)w;
    for (;;) {
        if (((old >> shift) & 255u) != expect) return 0;
        u32 got = atomicCAS(w, old, (old & ~(255u << shift)) | (want << shift));
        if (got == old) return 1;
        old = got;
    }
}

// ---- Moves (../rules.rs) --------------------------------------------------------

#define MM_START 0  // count the moves; the best capture
#define MM_LOSE 1   // whether every move leads to a board won for the opponent
#define MM_BEST 2   // the value from the children's (../opening.rs's `best`)

typedef struct {
    int mode;
    int stop;
    u32 moves;     // MM_START
    u32 b;         // MM_START: the other side's pieces (a capture leaves fewer)
    u32 best;      // MM_START: the smallest byte a capture gives (255: none)
    int lost;      // MM_LOSE
    u32 win;       // MM_BEST: the fastest win's byte (255: none)
    int draw;      // MM_BEST
    u32 loss;      // MM_BEST: the slowest loss's byte (0: none)
} MmVisit;

// One move: won (the opponent is left with two pieces) or to `child`.
MM_FN void mm_visit(const MmArgs *x, const u32 *t, MmVisit *v, int won, MmPos child) {
    if (v->mode == MM_START) {
        v->moves++;
        u32 c;
        if (won)
            c = 1;
        else if (MM_POPC(child.mover) < v->b)
            c = mm_byte(x, t, child.mover, child.other);
        else
            return;
        if (mm_is_loss(c) && c + 1 < v->best) v->best = c + 1;
    } else if (v->mode == MM_LOSE) {
        if (won || !mm_is_win(mm_byte(x, t, child.mover, child.other))) {
            v->lost = 0;
            v->stop = 1;
        }
    } else {
        u32 c = won ? 1u : mm_byte(x, t, child.mover, child.other);
        if (c == 0) {
            v->draw = 1;
        } else if (c & 1u) {
            if (c + 1 < v->win) v->win = c + 1;
        } else if (c + 1 > v->loss) {
            v->loss = c + 1;
        }
    }
}

MM_FN int mm_closes_mill(const u32 *t, u32 set, u32 q) {
    u32 x = t[MM_MILLS_AT + 2u * q], y = t[MM_MILLS_AT + 2u * q + 1u];
    return (set & x) == x || (set & y) == y;
}

MM_FN u32 mm_removable(const u32 *t, u32 other) {
    u32 in_mills = 0;
    for (u32 k = 0; k < 16u; k++) {
        u32 m = t[MM_MILLS + k];
        if ((other & m) == m) in_mills |= m;
    }
    u32 free_pieces = other & ~in_mills;
    return free_pieces ? free_pieces : other;
}

// The mover's piece goes to q (leaving `left`, 0 when placing); a mill closed at q
// removes each removable opposing piece in turn.
MM_FN void mm_land(const MmArgs *x, const u32 *t, MmVisit *v, MmPos pos, u32 left, u32 q) {
    u32 mover = (pos.mover & ~left) | (1u << q);
    MmPos child = {pos.other, mover, pos.other_hand, pos.mover_hand};
    if (pos.other == 0 || !mm_closes_mill(t, mover, q)) {
        mm_visit(x, t, v, 0, child);
        return;
    }
    if (MM_POPC(pos.other) + pos.other_hand <= 3u) {
        mm_visit(x, t, v, 1, child);
        return;
    }
    u32 victims = mm_removable(t, pos.other);
    while (victims && !v->stop) {
        child.mover = pos.other & ~(1u << MM_CTZ(victims));
        mm_visit(x, t, v, 0, child);
        victims &= victims - 1u;
    }
}

MM_FN void mm_moves(const MmArgs *x, const u32 *t, MmVisit *v, MmPos pos) {
    u32 empty = ~(pos.mover | pos.other) & MM_FULL;
    if (pos.mover_hand > 0) {
        pos.mover_hand--;
        for (u32 targets = empty; targets && !v->stop; targets &= targets - 1u) mm_land(x, t, v, pos, 0, MM_CTZ(targets));
        return;
    }
    int jumps = MM_POPC(pos.mover) == 3u;
    for (u32 pieces = pos.mover; pieces && !v->stop; pieces &= pieces - 1u) {
        u32 p = MM_CTZ(pieces);
        u32 targets = jumps ? empty : t[MM_NB + p] & empty;
        for (; targets && !v->stop; targets &= targets - 1u) mm_land(x, t, v, pos, 1u << p, MM_CTZ(targets));
    }
}

// ---- The retrograde analysis (../retro.rs) --------------------------------------

// Level 0 and the best capture of every slot; holes marked. counters[2]: the largest
// capture byte.
extern "C" __global__ void mm_start(MmArgs x) {
    const u32 *t = (const u32 *)x.tables;
    u8 *values = (u8 *)x.values, *captures = (u8 *)x.captures;
    u64 stride = (u64)gridDim.x * blockDim.x, last = 0;
    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < x.slots; s += stride) {
        u32 m, o;
        mm_unrank(t, x.a, x.b, s, &m, &o);
        if (!mm_is_canonical(t, m, o)) {
            values[s] = MM_HOLE;
            captures[s] = 0;
            continue;
        }
        MmVisit v = {MM_START, 0, 0, x.b, 255u, 0, 0, 0, 0};
        MmPos pos = {m, o, 0, 0};
        mm_moves(&x, t, &v, pos);
        if (v.moves == 0) values[s] = 1;
        u32 c = v.best == 255u ? 0u : v.best;
        captures[s] = (u8)c;
        if (c > last) last = c;
    }
    if (last) atomicMax((u64 *)x.counters + 2, last);
}

// Boards whose byte is `frontier`, collected per block before they are expanded, so
// that the threads of a block share the work whatever the frontier's density.
#define MM_CHUNK 4096u

// One level from the boards of byte `frontier` of (a, b) to their parents in (b, a):
// a level of wins (target even) claims every undecided parent; a level of losses marks
// it checked and decides it lost if all its moves lead to wins. counters[0]: boards
// decided; counters[1]: boards checked.
extern "C" __global__ void mm_level(MmArgs x) {
    __shared__ u32 queue[MM_CHUNK];
    __shared__ u32 queued;
    const u32 *t = (const u32 *)x.tables;
    const u8 *values = (const u8 *)x.values;
    u8 *parents = (u8 *)x.db[10u * x.b + x.a];
    int wins = (x.target & 1u) == 0;
    u64 decided = 0, checked = 0;
    for (u64 base = (u64)blockIdx.x * MM_CHUNK; base < x.slots; base += (u64)gridDim.x * MM_CHUNK) {
        if (threadIdx.x == 0) queued = 0;
        __syncthreads();
        for (u32 i = threadIdx.x; i < MM_CHUNK / 4u; i += blockDim.x) {
            u64 s = base + 4u * i;
            if (s >= x.slots) break;
            // Four bytes at once: the allocations are whole words.
            u32 w = *(const u32 *)(values + s);
            for (u32 k = 0; k < 4u; k++)
                if (((w >> (8u * k)) & 255u) == x.frontier && s + k < x.slots) queue[atomicAdd(&queued, 1u)] = 4u * i + k;
        }
        __syncthreads();
        for (u32 i = threadIdx.x; i < queued; i += blockDim.x) {
            u32 m, o;
            // A frontier board is decided, so canonical: no hole has its byte.
            mm_unrank(t, x.a, x.b, base + queue[i], &m, &o);
            // The unmoves of ../rules.rs: the other side's last piece came to q, closing
            // no mill, from an adjacent empty point (any, with three pieces).
            u32 empty = ~(m | o) & MM_FULL;
            int jumps = MM_POPC(o) == 3u;
            for (u32 pieces = o; pieces; pieces &= pieces - 1u) {
                u32 q = MM_CTZ(pieces);
                if (mm_closes_mill(t, o, q)) continue;
                u32 sources = jumps ? empty : t[MM_NB + q] & empty;
                for (; sources; sources &= sources - 1u) {
                    u32 pm = (o & ~(1u << q)) | (1u << MM_CTZ(sources));
                    u64 ps = mm_rank(t, pm, m);
                    if (*(volatile u8 *)(parents + ps) != 0) continue;
                    if (wins) {
                        decided += (u64)mm_cas(parents, ps, 0, x.target);
                    } else if (mm_cas(parents, ps, 0, MM_CHECKED)) {
                        MmVisit v = {MM_LOSE, 0, 0, 0, 0, 1, 0, 0, 0};
                        MmPos parent = {pm, m, 0, 0};
                        mm_moves(&x, t, &v, parent);
                        // Only this thread writes a checked byte; the others' CAS from 0 fail.
                        if (v.lost) *(volatile u8 *)(parents + ps) = (u8)x.target;
                        decided += (u64)v.lost;
                        checked++;
                    }
                }
            }
        }
        __syncthreads();
    }
    if (decided) atomicAdd((u64 *)x.counters, decided);
    if (checked) atomicAdd((u64 *)x.counters + 1, checked);
}

// A level of wins: the undecided boards whose best capture gives `target`.
// counters[0]: boards decided.
extern "C" __global__ void mm_captures(MmArgs x) {
    u8 *values = (u8 *)x.values;
    const u8 *captures = (const u8 *)x.captures;
    u64 stride = (u64)gridDim.x * blockDim.x, decided = 0;
    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < x.slots; s += stride)
        if (captures[s] == x.target && values[s] == 0) {
            values[s] = (u8)x.target;
            decided++;
        }
    if (decided) atomicAdd((u64 *)x.counters, decided);
}

// The marks of a level of losses cleared.
extern "C" __global__ void mm_clear(MmArgs x) {
    u8 *values = (u8 *)x.values;
    u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < x.slots; s += stride)
        if (values[s] == MM_CHECKED) values[s] = 0;
}

// ---- The placing phase (../opening.rs) ------------------------------------------

// Every slot of (a, b) at a ply with these pieces in hand: the best of its children's
// values (db[]: the next ply's tables, or the databases after the last placement).
// counters[3]: set when a value does not fit a byte.
extern "C" __global__ void mm_place(MmArgs x) {
    const u32 *t = (const u32 *)x.tables;
    u8 *values = (u8 *)x.values;
    u64 stride = (u64)gridDim.x * blockDim.x;
    int overflow = 0;
    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < x.slots; s += stride) {
        u32 m, o;
        mm_unrank(t, x.a, x.b, s, &m, &o);
        if (!mm_is_canonical(t, m, o)) {
            values[s] = MM_HOLE;
            continue;
        }
        MmVisit v = {MM_BEST, 0, 0, 0, 0, 0, 255u, 0, 0};
        MmPos pos = {m, o, x.mover_hand, x.other_hand};
        mm_moves(&x, t, &v, pos);
        u32 value = v.win != 255u ? v.win : v.draw ? 0u : v.loss ? v.loss : 1u;
        if (value > MM_LAST) overflow = 1;
        values[s] = (u8)value;
    }
    if (overflow) atomicMax((u64 *)x.counters + 3, 1ull);
}

// ---- Counts ---------------------------------------------------------------------

// counters[0..4]: wins, losses, draws, the longest win or loss in plies.
extern "C" __global__ void mm_count(MmArgs x) {
    const u8 *values = (const u8 *)x.values;
    u64 stride = (u64)gridDim.x * blockDim.x, w = 0, l = 0, d = 0, longest = 0;
    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < x.slots; s += stride) {
        u32 v = values[s];
        if (v == 0) {
            d++;
        } else if (v <= MM_LAST) {
            if (v & 1u) l++; else w++;
            if (v - 1u > longest) longest = v - 1u;
        }
    }
    u64 *c = (u64 *)x.counters;
    if (w) atomicAdd(c, w);
    if (l) atomicAdd(c + 1, l);
    if (d) atomicAdd(c + 2, d);
    if (longest) atomicMax(c + 3, longest);
}
