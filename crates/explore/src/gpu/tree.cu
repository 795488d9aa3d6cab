// The compressed store's tables (WC_TREE, see tree.rs for the shape): a hash set of
// 64-bit pairs, the inner nodes of states' trees, each named by its 32-bit index in the
// set, and a set of the states' roots, each a pair of halves (a word or a node index).
// A state's root key is its name: the store keeps it per state id (`slots`), so the set
// of roots only answers whether a state is new, and may have more than 2^32 entries.
//
// The set of nodes: an entry holds the bitwise complement of its key, so that the set
// starts zeroed and the one key whose complement is 0 (all ones: two raw words of all
// ones) needs no entry: it has the fixed node index WC_NODE_ONES. Linear probing from a
// position given by a hash of the key.
//
// The set of roots is compact (quotienting, as Cleary's tables): a root key is mixed by
// a bijection into p; its home is bucket `p * buckets >> 64` of WC_BUCKET entries, and
// an entry keeps only the low `rem_bits` bits of p (distinct for the p of one bucket:
// a bucket's range of p is shorter than 2^rem_bits) and, above them, 1 + the number of
// buckets it lies past its home (at most WC_SHIFTS - 1). An entry is a 32-bit upper
// part (never 0 in use: it holds that shift) and a lower part of `lo_bytes` (2 or 4)
// whose top bit says it is written; a bucket is its WC_BUCKET upper parts, then its
// lower parts. So an entry takes 6 bytes where rem_bits + 7 <= 47 (2^24 buckets and
// more: a card's worth), else 8. A key is sought from a slot of its home bucket given
// by its low bits, through the bucket (wrapping), then the next buckets.
//
// An entry is written once, by one compare-and-swap (of a node's key; of a root's upper
// part, then its lower part), and never changes: a load that sees a value sees the
// final one (a stale 0 only costs a failed swap; a root's lower part not yet written is
// waited for). Every new entry is counted; past its set's `fill_limit` the store sets
// `full` and the run fails, as does a root with no room within WC_SHIFTS buckets, so a
// state or node is never lost silently.
//
// Past device memory, the set of roots may keep its last `spilled` buckets in host
// memory mapped for the device (`spill`), read and written over the bus. The set of
// nodes never spills: its entries are read by index (`wc_key`).

template <typename T>
__device__ __forceinline__ T wc_claim(T *counter);

#define WC_NODE_ONES 0xFFFFFFFEu
#define WC_NODE_LOST 0xFFFFFFFFu

#define WC_SET_LOST 0xFFFFFFFFFFFFFFFFull

struct WcSet {
  u64 *table;
  u64 capacity;  // entries (at most WC_NODE_ONES)
  u64 *fill;     // entries taken
  u64 fill_limit;
};

#define WC_BUCKET 32
#define WC_SHIFTS 127

struct WcRoots {
  u32 *table;     // buckets 0 .. buckets - spilled
  u64 buckets;
  u64 *fill;      // entries taken
  u64 fill_limit;
  u32 *spill;     // buckets buckets - spilled .. buckets, in host memory
  u64 spilled;
  u32 rem_bits;   // 64 - floor(log2(buckets))
  u32 lo_bytes;   // 2 or 4
};

struct WcTree {
  WcSet nodes;
  WcRoots roots;
  u32 *full;
  u32 find_only;  // look keys up, store none (an absent one is WC_NODE_LOST)
};

__device__ __forceinline__ u64 wc_mix(u64 k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

// The position of `key` (not all ones) in `set`, storing it if absent (`*fresh` says
// so); WC_SET_LOST when the set is full.
__device__ __forceinline__ u64 wc_put(const WcTree *tree, const WcSet *set, u64 key, int *fresh) {
  *fresh = 0;
  u64 stored = ~key;
  u64 pos = __umul64hi(wc_mix(key), set->capacity);
  for (u64 n = 0; n < set->capacity; n++) {
    u64 *at = set->table + pos;
    u64 e = __ldcg(at);
    if (e == stored) return pos;
    if (e == 0) {
      if (tree->find_only) return WC_SET_LOST;
      u64 old = atomicCAS(at, 0ull, stored);
      if (old == 0) {
        if (wc_claim(set->fill) >= set->fill_limit) atomicExch(tree->full, 1u);
        *fresh = 1;
        return pos;
      }
      if (old == stored) return pos;
    }
    if (++pos == set->capacity) pos = 0;
  }
  atomicExch(tree->full, 1u);
  return WC_SET_LOST;
}

// The index of the node of children `a` and `b`.
__device__ __forceinline__ u32 wc_node(const WcTree *tree, u32 a, u32 b) {
  u64 key = ((u64)a << 32) | b;
  if (key == ~0ull) return WC_NODE_ONES;
  int fresh;
  u64 pos = wc_put(tree, &tree->nodes, key, &fresh);
  return pos == WC_SET_LOST ? WC_NODE_LOST : (u32)pos;
}

// The key at `index` of `set` (a lost entry reads as zeros: its run fails anyway).
__device__ __forceinline__ u64 wc_key(const WcSet *set, u32 index) {
  if ((u64)index >= set->capacity) return 0;
  return ~set->table[index];
}

// The key of the node at `index`.
__device__ __forceinline__ u64 wc_node_key(const WcTree *tree, u32 index) {
  if (index == WC_NODE_ONES) return ~0ull;
  return wc_key(&tree->nodes, index);
}

// The words of bucket `b` of the set of roots (its upper parts, then its lower parts).
__device__ __forceinline__ u32 *wc_bucket(const WcRoots *roots, u64 b) {
  u64 words = WC_BUCKET + WC_BUCKET * roots->lo_bytes / 4;
  u64 split = roots->buckets - roots->spilled;
  return b < split ? roots->table + b * words : roots->spill + (b - split) * words;
}

// The lower part of entry `s` of `bucket`, once its writer has written it.
__device__ __forceinline__ u32 wc_root_lo(const u32 *bucket, u32 s, u32 lo_bytes) {
  const u32 *lo = bucket + WC_BUCKET;
  u32 written = lo_bytes == 4 ? 0x80000000u : 0x8000u;
  for (;;) {
    u32 v = lo_bytes == 4 ? __ldcg(lo + s) : (u32)__ldcg((const unsigned short *)lo + s);
    if (v & written) return v;
  }
}

// Stores the root key `key` of a state: 1 when the state is new, 0 when it was there,
// -1 when the store is full. (Only a set that lost a node can make a root key of all
// ones.)
__device__ __forceinline__ int wc_put_root(const WcTree *tree, u64 key) {
  const WcRoots *roots = &tree->roots;
  if (key != ~0ull) {
    u64 p = wc_mix(key);
    u64 b = __umul64hi(p, roots->buckets);
    u64 rem = p & ((1ull << roots->rem_bits) - 1);
    u32 lo_bits = roots->lo_bytes * 8 - 1;
    u32 start = (u32)rem & (WC_BUCKET - 1);
    for (u32 shift = 1; shift <= WC_SHIFTS && shift <= roots->buckets; shift++) {
      u64 value = ((u64)shift << roots->rem_bits) | rem;
      u32 hi = (u32)(value >> lo_bits);
      u32 lo = ((u32)value & ((1u << lo_bits) - 1)) | (1u << lo_bits);
      u32 *bucket = wc_bucket(roots, b);
      for (u32 i = 0; i < WC_BUCKET; i++) {
        u32 s = (start + i) & (WC_BUCKET - 1);
        u32 e = __ldcg(bucket + s);
        if (e == 0) {
          if (tree->find_only) return -1;
          e = atomicCAS(bucket + s, 0u, hi);
          if (e == 0) {
            if (roots->lo_bytes == 4) {
              atomicExch(bucket + WC_BUCKET + s, lo);
            } else {
              *(volatile unsigned short *)((unsigned short *)(bucket + WC_BUCKET) + s) = (unsigned short)lo;
            }
            if (wc_claim(roots->fill) >= roots->fill_limit) atomicExch(tree->full, 1u);
            return 1;
          }
        }
        if (e == hi && wc_root_lo(bucket, s, roots->lo_bytes) == lo) return 0;
      }
      if (++b == roots->buckets) b = 0;
    }
  }
  atomicExch(tree->full, 1u);
  return -1;
}
