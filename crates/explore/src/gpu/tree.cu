// The compressed store's tables (WC_TREE, see tree.rs for the shape): two hash sets
// of 64-bit pairs: the inner nodes of states' trees, each named by its 32-bit index in
// its set, and the states' roots, each a pair of halves (a word or a node index). A
// state's root key is its name: the store keeps it per state id (`slots`), so the set
// of roots only answers whether a state is new, and may have more than 2^32 entries.
// An entry holds the bitwise complement of its key, so that a set starts zeroed and
// the one key whose complement is 0 (all ones: two raw words of all ones) needs no
// entry: it has the fixed node index WC_NODE_ONES (a root key is never all ones: its
// right half is a node index). An entry is written once, by one compare-and-swap, and
// never changes: a load that sees a value sees the final one (a stale 0 only costs a
// failed swap). Linear probing from a position given by a hash of the key. Every new
// entry is counted; past its set's `fill_limit` the store sets `full` and the run
// fails, so a node is never lost silently.
//
// Past device memory, the set of roots may keep its last `spilled` entries in host
// memory mapped for the device (`spill`): one probing sequence runs over both parts,
// and a position past the device's part is read and written over the bus. The set of
// nodes never spills (`spilled` 0): its entries are read by index (`wc_key`).

template <typename T>
__device__ __forceinline__ T wc_claim(T *counter);

#define WC_NODE_ONES 0xFFFFFFFEu
#define WC_NODE_LOST 0xFFFFFFFFu

#define WC_SET_LOST 0xFFFFFFFFFFFFFFFFull

struct WcSet {
  u64 *table;
  u64 capacity;  // entries (the set of nodes: at most WC_NODE_ONES)
  u64 *fill;     // entries taken
  u64 fill_limit;
  u64 *spill;   // entries capacity - spilled .. capacity, in host memory
  u64 spilled;
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

// The entry at position `pos` of `set`; with SPILL, of a set that may keep entries in
// host memory (the set of roots; the set of nodes, looked up far more often, never does).
template <bool SPILL>
__device__ __forceinline__ u64 *wc_entry(const WcSet *set, u64 pos) {
  if (!SPILL) return set->table + pos;
  u64 split = set->capacity - set->spilled;
  return pos < split ? set->table + pos : set->spill + (pos - split);
}

// The position of `key` (not all ones) in `set`, storing it if absent (`*fresh` says
// so); WC_SET_LOST when the set is full. SPILL: as wc_entry's.
template <bool SPILL>
__device__ __forceinline__ u64 wc_put(const WcTree *tree, const WcSet *set, u64 key, int *fresh) {
  *fresh = 0;
  u64 stored = ~key;
  u64 pos = __umul64hi(wc_mix(key), set->capacity);
  for (u64 n = 0; n < set->capacity; n++) {
    u64 *at = wc_entry<SPILL>(set, pos);
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
  u64 pos = wc_put<false>(tree, &tree->nodes, key, &fresh);
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

// Stores the root key `key` of a state: 1 when the state is new, 0 when it was there,
// -1 when the store is full. (Only a set that lost a node can make a root key of all
// ones.)
__device__ __forceinline__ int wc_put_root(const WcTree *tree, u64 key) {
  int fresh = 0;
  if (key == ~0ull || wc_put<true>(tree, &tree->roots, key, &fresh) == WC_SET_LOST) {
    atomicExch(tree->full, 1u);
    return -1;
  }
  return fresh;
}
