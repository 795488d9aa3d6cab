// The SCC kernels of crates/scc/src/gpu/scc.cu run on the host, one thread, with the CUDA built-ins
// they use replaced by sequential equivalents, and driven by the same loop as the
// host code of crates/scc/src/gpu/mod.rs (`Run::rounds`). It checks the algorithms' logic (labels,
// pivots, naming, trimming, the OBF steps) without a GPU, not the races of real
// parallel execution. Reads graphs from stdin (`n m` then m lines `u v`), repeatedly,
// and writes per graph and algorithm (FB, Coloring, OBF, FB then Coloring) one line of n
// component ids; at the end, on stderr, how many times FB handed over to Coloring.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Dim { unsigned x; };
static Dim threadIdx{0}, blockIdx{0}, blockDim{1}, gridDim{1};
#define __device__
#define __global__
#define __forceinline__ inline
static unsigned __activemask() { return 1; }
static unsigned __match_any_sync(unsigned, unsigned long long) { return 1; }
static unsigned __ballot_sync(unsigned, bool p) { return p ? 1 : 0; }
template <class T> T __shfl_sync(unsigned, T v, int) { return v; }
static int __ffs(unsigned x) { return __builtin_ffs(x); }
static int __popc(unsigned x) { return __builtin_popcount(x); }
static unsigned atomicAdd(unsigned* a, unsigned v) { unsigned o = *a; *a += v; return o; }
static unsigned atomicSub(unsigned* a, unsigned v) { unsigned o = *a; *a -= v; return o; }
static unsigned atomicOr(unsigned* a, unsigned v) { unsigned o = *a; *a |= v; return o; }
static unsigned atomicMax(unsigned* a, unsigned v) { unsigned o = *a; *a = std::max(o, v); return o; }
static unsigned atomicExch(unsigned* a, unsigned v) { unsigned o = *a; *a = v; return o; }
#include "../../crates/scc/src/gpu/scc.cu"

typedef std::vector<u32> Vec;

static unsigned long long hand_overs = 0;

static u32 salt(u64 round) {
    u64 z = (round + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (u32)(z ^ (z >> 31));
}

template <class F> static void drain(Vec& ctl, F kernel) {
    for (;;) {
        scc_advance(ctl.data());
        kernel();
        if (ctl[IDLE]) return;
    }
}

// Algorithm 0 FB, 1 Coloring, 2 OBF, 3 FB handing over to Coloring; mirrors Run::rounds.
static Vec decompose(u32 n, std::vector<u64>& fo, Vec& ft, std::vector<u64>& bo, Vec& bt, int algorithm) {
    Vec label(n, 0), flags(n, 0), comp(n, 0), din(n), dout(n), slot(n), child(3 * (size_t)n), color(n), mark(n, 0);
    Vec q0(n), q1(n), q2(n), q3(n), ctl(8, 0);
    Scc s{fo.data(), ft.data(), bo.data(), bt.data(), label.data(), flags.data(), comp.data(), din.data(),
          dout.data(), slot.data(), child.data(), color.data(), mark.data(), q0.data(), q1.data(), q2.data(),
          q3.data(), ctl.data(), n, 0};
    u64 round = 0, fewest = ~0ull, previous_live = ~0ull;
    int stalled = 0, step = algorithm;
    for (;;) {
        s.salt = salt(round);
        ctl[LIVE] = 0;
        scc_degrees(s);
        scc_trim_seed(s);
        drain(ctl, [&] { scc_peel(s); });
        u64 live = ctl[LIVE];
        if (!live) break;
        if (live < fewest) fewest = live, stalled = 0;
        else if (++stalled > 4) { fprintf(stderr, "no progress\n"); exit(1); }
        if (step == 3 && round > 0 && 2 * live > previous_live) step = 1, hand_overs++;  // hand_over
        previous_live = live;
        round++;
        if (step == 0 || step == 3) {
            std::fill(slot.begin(), slot.end(), 0);
            scc_pick(s, PICK_ALL);
            scc_seed(s, SEED_FB);
            drain(ctl, [&] { scc_bfs(s, 0); });
            std::fill(child.begin(), child.end(), 0);
            scc_fb_name(s);
            scc_fb_relabel(s);
        } else if (step == 1) {
            scc_pick(s, PICK_NONE);
            scc_color_init(s);
            drain(ctl, [&] { scc_color_push(s); });
            scc_seed(s, SEED_COLOR);
            drain(ctl, [&] { scc_bfs(s, 1); });
            scc_color_update(s);
        } else {
            std::fill(slot.begin(), slot.end(), 0);
            scc_pick(s, PICK_SPLIT);
            scc_seed(s, SEED_OBF);
            drain(ctl, [&] { scc_bfs(s, 0); });
            scc_obf_seeds(s);
            std::fill(child.begin(), child.end(), 0);
            scc_obf_name(s);
            scc_obf_relabel(s);
        }
    }
    return comp;
}

int main() {
    unsigned long long n64, m;
    while (scanf("%llu %llu", &n64, &m) == 2) {
        u32 n = (u32)n64;
        std::vector<std::pair<u32, u32>> edges(m);
        for (auto& e : edges)
            if (scanf("%u %u", &e.first, &e.second) != 2) return 2;
        std::vector<u64> fo(n + 1, 0), bo(n + 1, 0);
        for (auto& e : edges) fo[e.first + 1]++, bo[e.second + 1]++;
        for (u32 i = 0; i < n; i++) fo[i + 1] += fo[i], bo[i + 1] += bo[i];
        Vec ft(m), bt(m);
        std::vector<u64> fa(fo.begin(), fo.end() - 1), ba(bo.begin(), bo.end() - 1);
        for (auto& e : edges) ft[fa[e.first]++] = e.second, bt[ba[e.second]++] = e.first;
        for (int a = 0; a < 4; a++) {
            Vec comp = decompose(n, fo, ft, bo, bt, a);
            for (u32 v = 0; v < n; v++) printf("%u ", comp[v]);
            printf("\n");
        }
    }
    fprintf(stderr, "hand-overs %llu\n", hand_overs);
    return 0;
}
