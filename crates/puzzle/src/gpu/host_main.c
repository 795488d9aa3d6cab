// The host harness of puzzles.cu (appended to it and compiled with gcc by host.rs):
// reads queries on standard input, one per line, and answers each on one line.
//
//   S <Pz fields> count i_1 .. i_count  ->  per index: "n s_1 .. s_n" (successors in
//                                           emission order)
//   B <Pz fields> start                 ->  "layer_0 layer_1 .." (the BFS level loop:
//                                           the kernels' phases for a warp of 32 lanes,
//                                           phase by phase; compiled as CUDA: the
//                                           kernels themselves on one thread)
//   A <Pz fields> start                 ->  "expansions layer_0 layer_1 .." (the one-bit
//                                           BFS with move alternation, likewise)
//
// <Pz fields>: size bucket half kind m rows cols k folded cells pieces, then the length
// of the table and its words (frogs; 0 and nothing for the others).
#include <stdio.h>
#include <stdlib.h>

// The frogs' table of the last query (replaced by the next one's).
static u64 *table;

static int read_pz(Pz *z) {
    u64 len;
    if (scanf("%llu %llu %llu %u %u %u %u %u %u %u %u %llu", &z->size, &z->bucket, &z->half, &z->kind, &z->m,
              &z->rows, &z->cols, &z->k, &z->folded, &z->cells, &z->pieces, &len) != 12)
        return 0;
    free(table);
    table = (u64 *)calloc(len + 1, 8);
    if (!table) return 0;
    for (u64 i = 0; i < len; i++)
        if (scanf("%llu", &table[i]) != 1) return 0;
    z->table = (u64)table;
    return 1;
}

static int bfs(const Pz *z, u64 start) {
    u64 words = (z->size + 63) / 64;
    u64 *seen = (u64 *)calloc(words, 8), *cur = (u64 *)calloc(words, 8), *next = (u64 *)calloc(words, 8);
    if (!seen || !cur || !next) return 0;
    seen[start >> 6] |= 1ull << (start & 63);
    cur[start >> 6] |= 1ull << (start & 63);
    printf("1");
    for (;;) {
        u64 found = 0;
#ifdef __CUDACC__
        // The kernels themselves, on a grid of one thread (host.rs's CUDA stand-ins).
        pz_expand(*z, seen, cur, next, words);
        pz_merge(seen, cur, next, words, &found);
#else
        // A warp of 32 lanes, phase by phase.
        for (u64 base = 0; base < words; base += 32) {
            PzRound r;
            for (u32 lane = 0; lane < 32; lane++) pz_gather(&r, cur, words, base, lane, 32);
            pz_number(&r);
            for (u32 lane = 0; lane < 32; lane++) pz_expand_round(z, &r, seen, next, base, lane, 32);
        }
        for (u64 w = 0; w < words; w++) found += pz_merge_word(seen, cur, next, w);
#endif
        if (found == 0) break;
        printf(" %llu", found);
        u64 *t = cur;
        cur = next;
        next = t;
    }
    printf("\n");
    free(seen);
    free(cur);
    free(next);
    return 1;
}

static int alternation(const Pz *z, u64 start) {
    u64 words = (z->size + 63) / 64;
    u64 *open = (u64 *)calloc(words, 8);
    if (!open) return 0;
    open[start >> 6] |= 1ull << (start & 63);
    u32 first = pz_colour(z, start / z->bucket);
    u64 count[2] = {0, 0}, expansions = 0, layers[4096], n = 1;
    count[first] = 1;
    layers[0] = 1;
    for (u64 depth = 0; n < 4096; depth++) {
        u32 scanned = (u32)((first + depth) % 2), other = 1 - scanned;
        expansions += count[scanned];
        u64 now = 0;
#ifdef __CUDACC__
        pz_expand_colour(*z, open, words, scanned);
        pz_count_colour(*z, open, words, other, &now);
#else
        for (u64 base = 0; base < words; base += 32) {
            PzRound r;
            for (u32 lane = 0; lane < 32; lane++) pz_gather_colour(&r, z, open, words, base, scanned, lane, 32);
            pz_number(&r);
            for (u32 lane = 0; lane < 32; lane++) pz_expand_round(z, &r, open, open, base, lane, 32);
        }
        for (u64 w = 0; w < words; w++) now += pz_count_colour_word(z, open, w, other);
#endif
        u64 fresh = now - count[other];
        count[other] = now;
        if (fresh == 0) break;
        layers[n++] = fresh;
    }
    printf("%llu", expansions);
    for (u64 i = 0; i < n; i++) printf(" %llu", layers[i]);
    printf("\n");
    free(open);
    return 1;
}

int main(void) {
    char op[2];
    Pz z;
    while (scanf("%1s", op) == 1) {
        if (!read_pz(&z)) return 2;
        if (op[0] == 'B' || op[0] == 'A') {
            u64 start;
            if (scanf("%llu", &start) != 1) return 3;
            if (!(op[0] == 'B' ? bfs(&z, start) : alternation(&z, start))) return 3;
        } else {
            u64 count, out[136]; // every move of any puzzle (peg solitaire: at most 136 jumps)
            if (scanf("%llu", &count) != 1) return 4;
            for (u64 c = 0; c < count; c++) {
                u64 index;
                if (scanf("%llu", &index) != 1 || index >= z.size) return 5;
                PzSink k = {0, 0, out, 0};
                pz_successors(&z, index, &k);
                printf("%u", k.count);
                for (u32 j = 0; j < k.count; j++) printf(" %llu", out[j]);
                printf("\n");
            }
        }
    }
    return 0;
}
