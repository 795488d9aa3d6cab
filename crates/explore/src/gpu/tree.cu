// The compressed store's tables (WC_TREE, see tree.rs for the shape): two hash sets of
// 64-bit keys: the inner nodes of states' trees, each a pair of halves (a raw word or a
// node index) named by its 32-bit position in its set, and the states' roots, pairs of
// halves too. A state's root key is its name: the store keeps it per state id
// (`slots`), so the set of roots only answers whether a state is new, and may have
// more than 2^32 entries.
//
// Both sets are compact (quotienting, as Cleary's tables): a key is mixed by a
// bijection into p; its home is bucket `p * buckets >> 64` of WC_BUCKET entries, and an
// entry keeps only the low `rem_bits` bits of p (distinct for the p of one bucket: a
// bucket's range of p is shorter than 2^rem_bits) and, above them, 1 + the number of
// buckets it lies past its home (at most `shifts` - 1): from its position the key
// comes back (`wc_key`). An entry is a 32-bit upper part (never 0 in use: it holds
// that shift) and a lower part of `lo_bytes` (2 or 4) whose top bit says it is
// written; a bucket is its WC_BUCKET upper parts, then its lower parts. So an entry
// takes 6 bytes where rem_bits + 7 <= 47 (2^24 buckets and more), else 8; the bits
// left above rem_bits bound the shift (`shifts`: 127 to 1,023). A key is
// sought from a slot of its home bucket given by its low bits, through the bucket
// (wrapping), then the next buckets.
//
// An entry is written once (its upper part by a compare-and-swap, then its lower
// part) and never changes: a load that sees a value sees the final one (a stale 0 only
// costs a failed swap; a lower part not yet written is waited for). Every new entry is
// counted; past its set's `fill_limit` the store sets `full` and the run fails, as it
// does for a key with no room within `shifts` buckets, so a state or node is never
// lost silently. The one node key of all ones (two raw words of all ones) is stored
// nowhere: it has the fixed index WC_NODE_ONES (a root key with inner nodes below is
// never all ones: its right half is a node index).
//
// Past device memory, the set of roots may keep its last `spilled` buckets in host
// memory mapped for the device (`spill`), read and written over the bus. The set of
// nodes never spills (it is read far more often).

template <typename T>
__device__ __forceinline__ T wc_claim(T *counter);

#define WC_NODE_ONES 0xFFFFFFFEu
#define WC_NODE_LOST 0xFFFFFFFFu

#define WC_SET_LOST 0xFFFFFFFFFFFFFFFFull
#define WC_BUCKET 32

struct WcSet {
  u32 *table;     // buckets 0 .. buckets - spilled
  u64 buckets;    // (the set of nodes: at most WC_NODE_ONES / WC_BUCKET)
  u64 *fill;      // entries taken
  u64 fill_limit;
  u32 *spill;     // buckets buckets - spilled .. buckets, in host memory
  u64 spilled;
  u64 inv;        // floor((2^64 - 1) / buckets)
  u32 rem_bits;   // 64 - floor(log2(buckets))
  u32 lo_bytes;   // 2 or 4
  u32 shifts;     // the most buckets a key lies past its home, plus 1
  u32 unused;
};

struct WcTree {
  WcSet nodes;
  WcSet roots;
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

// wc_mix undone (the multipliers' inverses modulo 2^64).
__device__ __forceinline__ u64 wc_unmix(u64 k) {
  k ^= k >> 33;
  k *= 0x9cb4b2f8129337dbull;
  k ^= k >> 33;
  k *= 0x4f74430c22a54005ull;
  k ^= k >> 33;
  return k;
}

// The words of bucket `b` of `set` (its upper parts, then its lower parts); with
// SPILL, of a set that may keep buckets in host memory (the set of roots).
template <bool SPILL>
__device__ __forceinline__ u32 *wc_bucket(const WcSet *set, u64 b) {
  u64 words = WC_BUCKET + WC_BUCKET * set->lo_bytes / 4;
  if (!SPILL) return set->table + b * words;
  u64 split = set->buckets - set->spilled;
  return b < split ? set->table + b * words : set->spill + (b - split) * words;
}

// The lower part of entry `s` of `bucket`, once its writer has written it (volatile
// loads, re-read in the loop). Measured on the H100: this wait, reached only after a
// matching upper part, never ran out; an earlier one spinning on `__ldcg` loads hung
// every run, and a variant that also read the lower part before the swap left threads
// waiting in vain (neither cause established). So the wait is bounded: past WC_WAIT
// loads it sets bit 2 of `full` (the run fails with its own message) and returns 0,
// which matches no lower part. (A host test whose threads the system may preempt for
// milliseconds waits longer.)
#ifndef WC_WAIT
#define WC_WAIT (1u << 22)
#endif
__device__ __forceinline__ u32 wc_lo(const u32 *bucket, u32 s, u32 lo_bytes, u32 *full) {
  const volatile u32 *lo = bucket + WC_BUCKET;
  u32 written = lo_bytes == 4 ? 0x80000000u : 0x8000u;
  for (u32 n = 0; n < WC_WAIT; n++) {
    u32 v = lo_bytes == 4 ? lo[s] : (u32)((const volatile unsigned short *)lo)[s];
    if (v & written) return v;
  }
  atomicOr(full, 2u);
  return 0;
}

// The position of `key` in `set`, storing it if absent (`*fresh` says so);
// WC_SET_LOST when the set is full (or, with `find_only`, when it is absent). SPILL:
// as wc_bucket's.
template <bool SPILL>
__device__ __forceinline__ u64 wc_put(const WcTree *tree, const WcSet *set, u64 key, int *fresh) {
  *fresh = 0;
  u64 p = wc_mix(key);
  u64 b = __umul64hi(p, set->buckets);
  u64 rem = p & ((1ull << set->rem_bits) - 1);
  u32 lo_bits = set->lo_bytes * 8 - 1;
  u32 start = (u32)rem & (WC_BUCKET - 1);
  for (u32 shift = 1; shift <= set->shifts && shift <= set->buckets; shift++) {
    u64 value = ((u64)shift << set->rem_bits) | rem;
    u32 hi = (u32)(value >> lo_bits);
    u32 lo = ((u32)value & ((1u << lo_bits) - 1)) | (1u << lo_bits);
    u32 *bucket = wc_bucket<SPILL>(set, b);
    for (u32 i = 0; i < WC_BUCKET; i++) {
      u32 s = (start + i) & (WC_BUCKET - 1);
      u32 e = __ldcg(bucket + s);
      if (e == 0) {
        if (tree->find_only) return WC_SET_LOST;
        e = atomicCAS(bucket + s, 0u, hi);
        if (e == 0) {
          if (set->lo_bytes == 4) {
            atomicExch(bucket + WC_BUCKET + s, lo);
          } else {
            *(volatile unsigned short *)((unsigned short *)(bucket + WC_BUCKET) + s) = (unsigned short)lo;
          }
          if (wc_claim(set->fill) >= set->fill_limit) atomicOr(tree->full, 1u);
          *fresh = 1;
          return b * WC_BUCKET + s;
        }
      }
      if (e == hi && wc_lo(bucket, s, set->lo_bytes, tree->full) == lo) return b * WC_BUCKET + s;
    }
    if (++b == set->buckets) b = 0;
  }
  atomicOr(tree->full, 1u);
  return WC_SET_LOST;
}

// The key at position `pos` of `set` (never spilled; a lost entry reads as zeros: its
// run fails anyway).
__device__ __forceinline__ u64 wc_key(const WcSet *set, u64 pos, u32 *full) {
  u64 b = pos / WC_BUCKET;
  if (b >= set->buckets) return 0;
  const u32 *bucket = wc_bucket<false>(set, b);
  u32 s = (u32)(pos % WC_BUCKET);
  // Both parts read at once (an entry named by a position is complete but for a writer
  // still finishing it in this launch: then its lower part is waited for).
  u32 hi = __ldcg(bucket + s);
  u32 lo = set->lo_bytes == 4 ? __ldcg(bucket + WC_BUCKET + s)
                              : (u32)__ldcg((const unsigned short *)(bucket + WC_BUCKET) + s);
  if (hi == 0) return 0;
  u32 lo_bits = set->lo_bytes * 8 - 1;
  if (!(lo >> lo_bits)) lo = wc_lo(bucket, s, set->lo_bytes, full);
  u64 value = ((u64)hi << lo_bits) | (lo & ((1u << lo_bits) - 1));
  u64 shift = value >> set->rem_bits;
  u64 mask = (1ull << set->rem_bits) - 1;
  u64 home = b + set->buckets - (shift - 1);
  if (home >= set->buckets) home -= set->buckets;
  // The p of bucket `home` start within `buckets` of home * inv; the one with the kept
  // bits is the first such at or above it, or the next.
  u64 base = home * set->inv;
  u64 p = base + (((value & mask) - base) & mask);
  if (__umul64hi(p, set->buckets) != home) p += mask + 1;
  return wc_unmix(p);
}

// The index of the node of children `a` and `b`.
__device__ __forceinline__ u32 wc_node(const WcTree *tree, u32 a, u32 b) {
  u64 key = ((u64)a << 32) | b;
  if (key == ~0ull) return WC_NODE_ONES;
  int fresh;
  u64 pos = wc_put<false>(tree, &tree->nodes, key, &fresh);
  return pos == WC_SET_LOST ? WC_NODE_LOST : (u32)pos;
}

// The key of the node at `index`.
__device__ __forceinline__ u64 wc_node_key(const WcTree *tree, u32 index) {
  if (index == WC_NODE_ONES) return ~0ull;
  return wc_key(&tree->nodes, index, tree->full);
}

// Stores the root key `key` of a state: 1 when the state is new, 0 when it was there,
// -1 when the store is full. With inner nodes (`has_nodes`), a root key of all ones
// comes only from a set that lost a node (its index is all ones): the store is full;
// a 2-word state of all ones is stored as any other.
__device__ __forceinline__ int wc_put_root(const WcTree *tree, u64 key, bool has_nodes) {
  int fresh = 0;
  if ((has_nodes && key == ~0ull) || wc_put<true>(tree, &tree->roots, key, &fresh) == WC_SET_LOST) {
    atomicOr(tree->full, 1u);
    return -1;
  }
  return fresh;
}
