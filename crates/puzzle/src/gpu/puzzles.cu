// Breadth-first search of the permutation puzzles (sliding tile, pancake, Top-Spin), of
// Frogs-and-Toads / Fore-and-Aft and of peg solitaire on the GPU: see mod.rs for the
// layout and the host loop. This one source compiles as
// CUDA (NVRTC, `__CUDACC__` defined) and as plain C (gcc, the host tests: mod.rs's
// `host`), where the atomics are plain ors and the kernels are loops.
//
// A permutation of m <= 16 entries lives in one u64, entry i in bits 4i..4i+3 (a
// "nibble word"): unrank, moves and rank then touch no memory, only registers. Every
// function follows its Rust counterpart line by line (rank/permutation.rs,
// domains/sliding_tile.rs, pancake.rs, top_spin.rs), successors in the same order.

typedef unsigned int u32;
typedef unsigned long long u64;

#ifdef __CUDACC__
#define PZ_FN __device__ __forceinline__
__device__ __forceinline__ void pz_or(u64 *word, u64 bit) { atomicOr(word, bit); }
__device__ __forceinline__ u32 pz_ctz(u64 x) { return (u32)(__ffsll((long long)x) - 1); }
__device__ __forceinline__ u32 pz_clz(u64 x) { return (u32)__clzll((long long)x); }
__device__ __forceinline__ u64 pz_popc(u64 x) { return (u64)__popcll(x); }
#else
#define PZ_FN static inline
static inline void pz_or(u64 *word, u64 bit) { *word |= bit; }
static inline u32 pz_ctz(u64 x) { return (u32)__builtin_ctzll(x); }
static inline u32 pz_clz(u64 x) { return (u32)__builtin_clzll(x); }
static inline u64 pz_popc(u64 x) { return (u64)__builtin_popcountll(x); }
#endif

#define PZ_SLIDING 0u
#define PZ_PANCAKE 1u
#define PZ_TOPSPIN 2u
#define PZ_FROGS 3u
#define PZ_PEG 4u

// The instance (`Params` in mod.rs, field for field).
typedef struct {
    u64 size;    // indices
    u64 bucket;  // sliding tile: indices per blank cell, (N-1)!/2; frogs: per hole
    u64 half;    // m!/2, for folding
    u64 table;   // frogs, peg solitaire: address of their table (0 for the others)
    u32 kind;    // PZ_SLIDING, PZ_PANCAKE, PZ_TOPSPIN, PZ_FROGS, PZ_PEG
    u32 m;       // entries of the ranked permutation (<= 16)
    u32 rows;    // sliding tile
    u32 cols;    // sliding tile
    u32 k;       // Top-Spin: twist length
    u32 folded;  // Top-Spin: index = rank mod m!/2, even parity
    u32 cells;   // frogs: cells of the board (<= 49); peg solitaire: holes (33)
    u32 pieces;  // frogs: pieces of each colour; peg solitaire: the start's pegs
} Pz;

// Where successors go: claimed in the next frontier (the BFS), or recorded (tests).
typedef struct {
    const u64 *seen;
    u64 *next;
    u64 *out;  // non-null: record successors here instead
    u32 count;
} PzSink;

PZ_FN void pz_emit(PzSink *k, u64 s) {
    if (k->out) {
        k->out[k->count++] = s;
        return;
    }
    u64 w = s >> 6, bit = 1ull << (s & 63);
    // Loads first: most successors are old or already claimed. A stale 0 only costs
    // an atomic; bits are never cleared during a level.
    if (!(k->seen[w] & bit) && !(k->next[w] & bit)) pz_or(&k->next[w], bit);
}

// ---- Nibble words ---------------------------------------------------------------

PZ_FN u64 pz_mask(u32 bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
PZ_FN u64 pz_nib(u64 p, u32 i) { return (p >> (4 * i)) & 15u; }
PZ_FN u64 pz_set(u64 p, u32 i, u64 v) { return (p & ~(15ull << (4 * i))) | (v << (4 * i)); }
// Swaps entries a and b (a == b: no change).
PZ_FN u64 pz_swap(u64 p, u32 a, u32 b) {
    u64 x = pz_nib(p, a) ^ pz_nib(p, b);
    return p ^ (x << (4 * a)) ^ (x << (4 * b));
}

// ---- Myrvold-Ruskey rank with parity and folding (rank/permutation.rs) ----------

// The permutation of rank r < m! into *perm; returns its parity (1 = odd).
PZ_FN u32 pz_unrank(u64 r, u32 m, u64 *perm) {
    u64 p = 0xFEDCBA9876543210ull & pz_mask(4 * m);
    u32 odd = 0, len = m;
    // 64-bit divisions while the rank needs them, 32-bit ones after.
    while (len > 0 && r > 0xFFFFFFFFull) {
        u32 j = (u32)(r % len);
        odd ^= (u32)(j != len - 1);
        p = pz_swap(p, len - 1, j);
        r /= len;
        len--;
    }
    u32 r32 = (u32)r;
    while (len > 0) {
        u32 j = r32 % len;
        odd ^= (u32)(j != len - 1);
        p = pz_swap(p, len - 1, j);
        r32 /= len;
        len--;
    }
    *perm = p;
    return odd;
}

// The rank of the permutation p of m entries; its parity into *odd (rank_nibbles).
PZ_FN u64 pz_rank(u64 p, u32 m, u32 *odd) {
    u64 inv = 0;
    for (u32 i = 0; i < m; i++) inv |= (u64)i << (4 * pz_nib(p, i));
    u64 r = 0, mult = 1;
    u32 o = 0;
    for (u32 len = m; len >= 2; len--) {
        u64 s = pz_nib(p, len - 1), j = pz_nib(inv, len - 1);
        o ^= (u32)(s != len - 1);
        p = pz_set(p, (u32)j, s);
        inv = pz_set(inv, (u32)s, j);
        r += s * mult;
        mult *= len;
    }
    *odd = o;
    return r;
}

PZ_FN u64 pz_rank_folded(u64 p, u32 m, u64 half) {
    u32 odd;
    u64 r = pz_rank(p, m, &odd);
    return r >= half ? r - half : r;
}

PZ_FN u64 pz_unrank_folded(u64 i, u32 m, u32 odd, u64 *perm) {
    if (pz_unrank(i, m, perm) != odd) *perm = pz_swap(*perm, 0, 1);
    return *perm;
}

// ---- Sliding tile (domains/sliding_tile.rs) -------------------------------------

PZ_FN void pz_sliding(const Pz *z, u64 index, PzSink *k) {
    u32 c = z->cols, m = z->m;
    u32 b = (u32)(index / z->bucket);
    u64 within = index - (u64)b * z->bucket;
    u32 row = b / c, col = b % c;
    if (col > 0) pz_emit(k, (u64)(b - 1) * z->bucket + within);
    if (col + 1 < c) pz_emit(k, (u64)(b + 1) * z->bucket + within);
    u64 seq;
    pz_unrank_folded(within, m, (c % 2 == 0) && (row % 2 == 1), &seq);
    u64 seg_mask = pz_mask(4 * c);
    if (row > 0) {
        // Blank up: rotate seq[b-c..b] left by one.
        u32 at = 4 * (b - c);
        u64 seg = (seq >> at) & seg_mask;
        seg = (seg >> 4) | ((seg & 15) << (4 * (c - 1)));
        u64 s = (seq & ~(seg_mask << at)) | (seg << at);
        pz_emit(k, (u64)(b - c) * z->bucket + pz_rank_folded(s, m, z->half));
    }
    if (row + 1 < z->rows) {
        // Blank down: rotate seq[b..b+c] right by one.
        u32 at = 4 * b;
        u64 seg = (seq >> at) & seg_mask;
        seg = ((seg << 4) & seg_mask) | (seg >> (4 * (c - 1)));
        u64 s = (seq & ~(seg_mask << at)) | (seg << at);
        pz_emit(k, (u64)(b + c) * z->bucket + pz_rank_folded(s, m, z->half));
    }
}

// ---- Pancake (domains/pancake.rs) -----------------------------------------------

PZ_FN void pz_pancake(const Pz *z, u64 index, PzSink *k) {
    u32 m = z->m, odd;
    u64 p;
    pz_unrank(index, m, &p);
    // rev = the first kk entries reversed, grown one entry per flip.
    u64 rev = pz_nib(p, 0);
    for (u32 kk = 2; kk <= m; kk++) {
        rev = (rev << 4) | pz_nib(p, kk - 1);
        pz_emit(k, pz_rank(rev | (p & ~pz_mask(4 * kk)), m, &odd));
    }
}

// ---- Top-Spin (domains/top_spin.rs) ---------------------------------------------

PZ_FN void pz_topspin(const Pz *z, u64 index, PzSink *k) {
    u32 n = z->m + 1, m = z->m, tw = z->k, odd;
    u64 seq;
    if (z->folded) pz_unrank_folded(index, m, 0, &seq);
    else pz_unrank(index, m, &seq);
    u64 ones = 0x1111111111111111ull & pz_mask(4 * m);
    u64 ring = (seq + ones) << 4;  // token 0 at position 0, x_j + 1 after it
    for (u32 i = 0; i < n; i++) {
        u64 t = ring;
        for (u32 j = 0; j < tw / 2; j++) t = pz_swap(t, (i + j) % n, (i + tw - 1 - j) % n);
        // Token 0 moved only if position 0 lies in the twisted window.
        u32 d = (n - i) % n;
        u32 zero = d < tw ? (i + tw - 1 - d) % n : 0;
        u64 r = zero == 0 ? t : ((t >> (4 * zero)) | (t << (4 * (n - zero)))) & pz_mask(4 * n);
        u64 s = (r >> 4) - ones;
        pz_emit(k, z->folded ? pz_rank_folded(s, m, z->half) : pz_rank(s, m, &odd));
    }
}

// ---- Frogs-and-Toads and Fore-and-Aft (domains/frogs.rs) ------------------------
//
// Index: hole * C(cells-1, pieces) + the colex rank of the black set among the other
// cells. The table (mod.rs's `table`): C(c, j) at c * (pieces + 1) + j for c < cells,
// then per hole 8 words, the source cells of the moves into it plus one (0: no more),
// in frogs.rs's order.

PZ_FN u64 pz_frog_index(const Pz *z, const u64 *binom, u32 hole, u64 black) {
    u64 set = (black & ((1ull << hole) - 1)) | (black >> (hole + 1) << hole), r = 0;
    u32 stride = z->pieces + 1;
    for (u32 j = 1; set; j++) {
        r += binom[pz_ctz(set) * stride + j];
        set &= set - 1;
    }
    return (u64)hole * z->bucket + r;
}

PZ_FN void pz_frogs(const Pz *z, u64 index, PzSink *k) {
    const u64 *binom = (const u64 *)z->table;
    u32 stride = z->pieces + 1, hole = (u32)(index / z->bucket), c = z->cells - 1;
    u64 r = index - (u64)hole * z->bucket, set = 0;
    // Colex unrank: per j from the top, the largest c with C(c, j) <= r.
    for (u32 j = z->pieces; j >= 1; j--) {
        c--;
        while (binom[c * stride + j] > r) c--;
        set |= 1ull << c;
        r -= binom[c * stride + j];
    }
    u64 black = (set & ((1ull << hole) - 1)) | (set >> hole << (hole + 1));
    const u64 *moves = binom + (u64)z->cells * stride + 8 * hole;
    for (u32 i = 0; i < 8 && moves[i] != 0; i++) {
        u32 src = (u32)moves[i] - 1;
        u64 b = (black >> src & 1) ? black ^ (1ull << src) ^ (1ull << hole) : black;
        pz_emit(k, pz_frog_index(z, binom, src, b));
    }
}

// ---- Peg solitaire (domains/peg_solitaire.rs) ----------------------------------
//
// Layer d (the boards of pieces - d pegs) is the index range offsets[d]..offsets[d+1],
// inside it a board's binomial rank (rank/binomial.rs). The table (mod.rs's `table`):
// C(n, k) at n * (cells + 1) + k for n, k <= cells, then the offsets (pieces + 2
// words), then per jump two words: its three holes, and its two holes that need a peg.

PZ_FN u64 pz_peg_rank(const u64 *binom, u32 stride, u64 mask, u32 n) {
    if (!mask) return 0;
    // The empty cells before the last set one, each C(n - 1 - i, t_i - 1).
    u64 empty = ~mask & ((1ull << (63 - pz_clz(mask))) - 1), r = 0;
    while (empty) {
        u32 i = pz_ctz(empty);
        r += binom[(n - 1 - i) * stride + (u32)pz_popc(mask >> i) - 1];
        empty &= empty - 1;
    }
    return r;
}

PZ_FN void pz_peg(const Pz *z, u64 index, PzSink *k) {
    const u64 *binom = (const u64 *)z->table;
    u32 n = z->cells, stride = n + 1;
    const u64 *offsets = binom + (u64)stride * stride;
    const u64 *jumps = offsets + z->pieces + 2;
    u32 d = 0;
    while (offsets[d + 1] <= index) d++;
    u32 t = z->pieces - d;
    if (t < 2) return;
    u64 r = index - offsets[d], mask = 0;
    for (u32 i = 0; i < n && t > 0; i++) {
        u64 c = binom[(n - 1 - i) * stride + t - 1];
        if (r < c) {
            mask |= 1ull << i;
            t--;
        } else {
            r -= c;
        }
    }
    for (u32 j = 0; j < z->m; j++) {
        u64 all = jumps[2 * j];
        if ((mask & all) == jumps[2 * j + 1]) pz_emit(k, offsets[d + 1] + pz_peg_rank(binom, stride, mask ^ all, n));
    }
}

PZ_FN void pz_successors(const Pz *z, u64 index, PzSink *k) {
    if (z->kind == PZ_SLIDING) pz_sliding(z, index, k);
    else if (z->kind == PZ_PANCAKE) pz_pancake(z, index, k);
    else if (z->kind == PZ_TOPSPIN) pz_topspin(z, index, k);
    else if (z->kind == PZ_FROGS) pz_frogs(z, index, k);
    else pz_peg(z, index, k);
}

// ---- One BFS level --------------------------------------------------------------
//
// A warp takes 32 frontier words at a time (a "round"): its lanes load them, one lane
// numbers their set bits, and the lanes then take bits lane, lane + 32, ... of the
// round, so every lane expands a state however the frontier's bits fall (one thread
// per word would leave the lanes of sparse words idle beside a dense one). The three
// phases are separate functions so that the host tests run them for 32 lanes one
// phase after the other (host_main.c), exactly what `__syncwarp` orders on the device.

typedef struct {
    u64 word[32];
    u32 first[33];  // first[l]: set bits in words 0..l-1 of the round; first[32]: all
} PzRound;

// The position of the j-th set bit of x (j < popcount(x)).
PZ_FN u32 pz_select(u64 x, u32 j) {
    u32 pos = 0;
    for (u32 width = 32; width > 0; width >>= 1) {
        u64 low = x & ((1ull << width) - 1);
        u32 c = (u32)pz_popc(low);
        if (j >= c) {
            j -= c;
            x >>= width;
            pos += width;
        } else {
            x = low;
        }
    }
    return pos;
}

// Phase 1, lane `lane` of `lanes`: loads its words of the round of words base..base+32.
PZ_FN void pz_gather(PzRound *r, const u64 *cur, u64 words, u64 base, u32 lane, u32 lanes) {
    for (u32 l = lane; l < 32; l += lanes) r->word[l] = base + l < words ? cur[base + l] : 0;
}

// Phase 2, one lane: numbers the round's set bits.
PZ_FN void pz_number(PzRound *r) {
    u32 n = 0;
    for (u32 l = 0; l < 32; l++) {
        r->first[l] = n;
        n += (u32)pz_popc(r->word[l]);
    }
    r->first[32] = n;
}

// Phase 3, lane `lane` of `lanes`: expands the round's set bits lane, lane + lanes, ...;
// every successor not seen and not yet in `next` is set there.
PZ_FN void pz_expand_round(const Pz *z, const PzRound *r, const u64 *seen, u64 *next, u64 base, u32 lane,
                           u32 lanes) {
    PzSink k = {seen, next, 0, 0};
    for (u32 j = lane; j < r->first[32]; j += lanes) {
        // The word holding bit j: the last l with first[l] <= j (first[0] = 0).
        u32 l = 0;
        for (u32 step = 16; step > 0; step >>= 1)
            if (r->first[l + step] <= j) l += step;
        pz_successors(z, (base + l) * 64 + pz_select(r->word[l], j - r->first[l]), &k);
    }
}

// After a level: the new states join `seen`, the old frontier is cleared (it becomes
// the next level's `next`); returns the new states of word w.
PZ_FN u64 pz_merge_word(u64 *seen, u64 *cur, const u64 *next, u64 w) {
    u64 x = next[w];
    seen[w] |= x;
    cur[w] = 0;
    return pz_popc(x);
}

// ---- One-bit BFS with move alternation (sliding tile; search/one_bit.rs) ---------
//
// One bit vector `open`. Every move changes the colour of the blank's cell (a
// checkerboard), so scan l expands the set bits of the colour of depth l and sets only
// bits of the other colour, which no lane of the scan reads: layer l + 1 is that
// colour's popcount after the scan less its popcount before.

// The colour of blank cell b.
PZ_FN u32 pz_colour(const Pz *z, u64 b) { return (u32)((b / z->cols + b % z->cols) % 2); }

// The bits of word w whose indices lie in cells of colour c (bits past the index space
// are never set, whatever the mask says).
PZ_FN u64 pz_colour_mask(const Pz *z, u64 w, u32 c) {
    u64 lo = w * 64, b0 = lo / z->bucket, b1 = (lo + 63) / z->bucket;
    if (b0 == b1) return pz_colour(z, b0) == c ? ~0ull : 0;
    u64 m = 0;
    for (u64 b = b0; b <= b1; b++) {
        if (pz_colour(z, b) != c) continue;
        u64 from = b * z->bucket > lo ? b * z->bucket - lo : 0, to = (b + 1) * z->bucket - lo;
        m |= pz_mask((u32)(to > 64 ? 64 : to)) & ~pz_mask((u32)from);
    }
    return m;
}

// Phase 1 of a scan, lane `lane` of `lanes`: the round's words of `open`, colour c only.
PZ_FN void pz_gather_colour(PzRound *r, const Pz *z, const u64 *open, u64 words, u64 base, u32 c, u32 lane,
                            u32 lanes) {
    for (u32 l = lane; l < 32; l += lanes)
        r->word[l] = base + l < words ? open[base + l] & pz_colour_mask(z, base + l, c) : 0;
}

// The set bits of word w of colour c.
PZ_FN u64 pz_count_colour_word(const Pz *z, const u64 *open, u64 w, u32 c) {
    return pz_popc(open[w] & pz_colour_mask(z, w, c));
}

#ifdef __CUDACC__
// The largest block pz_expand takes (one round in shared memory per warp); blocks are
// whole warps.
#define PZ_BLOCK 256

// The rounds of this thread's warp, grid-stride: words of `from` (colour c only when
// c < 2: the one-bit search), their bits expanded into `next` unless in `seen`.
__device__ __forceinline__ void pz_rounds(const Pz *z, PzRound *r, const u64 *from, const u64 *seen, u64 *next,
                                          u64 words, u32 c) {
    u32 warp = threadIdx.x / 32, lane = threadIdx.x % 32, per_block = (blockDim.x + 31) / 32;
    u32 lanes = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32;
    u64 stride = (u64)gridDim.x * per_block * 32;
    for (u64 base = ((u64)blockIdx.x * per_block + warp) * 32; base < words; base += stride) {
        if (c < 2) pz_gather_colour(r, z, from, words, base, c, lane, lanes);
        else pz_gather(r, from, words, base, lane, lanes);
        __syncwarp();
        if (lane == 0) pz_number(r);
        __syncwarp();
        pz_expand_round(z, r, seen, next, base, lane, lanes);
        __syncwarp();  // the round is read to the end before the next gather
    }
}

// A round per warp, grid-stride over the rounds.
extern "C" __global__ void pz_expand(Pz z, const u64 *seen, const u64 *cur, u64 *next, u64 words) {
    __shared__ PzRound rounds[PZ_BLOCK / 32];
    pz_rounds(&z, &rounds[threadIdx.x / 32], cur, seen, next, words, 2);
}

// One thread per word, grid-stride; the popcounts summed per warp, then one atomicAdd.
extern "C" __global__ void pz_merge(u64 *seen, u64 *cur, const u64 *next, u64 words, u64 *count) {
    u64 stride = (u64)gridDim.x * blockDim.x, c = 0;
    for (u64 w = (u64)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride)
        c += pz_merge_word(seen, cur, next, w);
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

// One scan of the one-bit search: pz_expand's rounds over `open`, colour c; the
// successors go into `open` itself (other colour).
extern "C" __global__ void pz_expand_colour(Pz z, u64 *open, u64 words, u32 c) {
    __shared__ PzRound rounds[PZ_BLOCK / 32];
    pz_rounds(&z, &rounds[threadIdx.x / 32], open, open, open, words, c);
}

// The set bits of colour c, as pz_merge sums them.
extern "C" __global__ void pz_count_colour(Pz z, const u64 *open, u64 words, u32 c, u64 *count) {
    u64 stride = (u64)gridDim.x * blockDim.x, n = 0;
    for (u64 w = (u64)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride)
        n += pz_count_colour_word(&z, open, w, c);
    for (int o = 16; o > 0; o >>= 1) n += __shfl_down_sync(0xffffffffu, n, o);
    if ((threadIdx.x & 31) == 0 && n) atomicAdd(count, n);
}
#endif
