// The GPU Markov builder's second pass (builder.rs). The exploration recorded every
// state and, per state, the targets of its steps in the order the model emits them;
// this kernel runs the model's `wc_branches` (pasted at the @@MODEL@@ line) on each
// state of a batch and writes, per step, its probability or rate and its choice tag
// into the batch's compact arrays, at the state's offset less the batch's first.
// Each emitted target is compared with the recorded one: any difference, an
// evaluation error or a different number of steps marks the state in `bad` (the
// smallest such state id), and the build fails rather than guess.

typedef unsigned int u32;
typedef unsigned long long u64;
#define WC_FN __device__ __forceinline__
#define WC_NOINLINE __device__ __noinline__
#define WC_TABLE(name) __device__ const u32 *name;
#define WC_BRANCHES

struct WcSink {
  int unused;
};
__device__ __forceinline__ void wc_emit(WcSink *k, const u32 *t) {
  (void)k;
  (void)t;
}
__device__ __forceinline__ void wc_emit_error(WcSink *k) { (void)k; }

struct WcBranchSink {
  const u32 *states;   // every recorded state, WC_WORDS words each
  u64 count;           // how many
  const u32 *recorded; // this state's recorded targets
  double *weights;     // this state's slots in the batch's arrays
  u32 *tags;
  u32 n;               // steps emitted so far
  u32 degree;          // steps recorded
  int bad;
};
__device__ __forceinline__ void wc_branch(WcBranchSink *k, const u32 *t, double w, u32 tag);
__device__ __forceinline__ void wc_branch_error(WcBranchSink *k) {
  k->bad = 1;
  k->n++;
}

// @@MODEL@@

__device__ __forceinline__ void wc_branch(WcBranchSink *k, const u32 *t, double w, u32 tag) {
  if (k->n < k->degree) {
    u32 id = k->recorded[k->n];
    if ((u64)id < k->count) {
      const u32 *o = k->states + (u64)id * WC_WORDS;
      for (int i = 0; i < WC_WORDS; i++) k->bad |= (o[i] != t[i]);
    } else {
      k->bad = 1;
    }
    k->weights[k->n] = w;
    k->tags[k->n] = tag;
  } else {
    k->bad = 1;
  }
  k->n++;
}

// States lo..hi: state i's recorded targets are targets[first[i]..+degree[i]], its
// slots in the batch offsets[i - lo] - offsets[0] on.
extern "C" __global__ void mk_weigh(const u32 *states, u64 count, const u64 *first, const u32 *degree,
                                    const u32 *targets, const u64 *offsets, u64 lo, u64 hi, double *weights,
                                    u32 *tags, u32 *bad) {
  u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += stride) {
    u64 at = offsets[i - lo] - offsets[0];
    WcBranchSink k = {states, count, targets + first[i], weights + at, tags + at, 0u, degree[i], 0};
    wc_branches(states + i * WC_WORDS, &k);
    if (k.bad || k.n != k.degree) atomicMin(bad, (u32)i);
  }
}
