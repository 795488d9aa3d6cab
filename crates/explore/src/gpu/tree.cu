// The compressed store's tables (WC_TREE, see tree.rs for the shape): two hash sets
// of 64-bit pairs, each pair named by its index in its set: the inner nodes of states'
// trees, and the states' roots (so that each set has 32-bit indices of its own, and
// a root is stored exactly when its state is). An entry holds the bitwise complement
// of its key, so that a set starts zeroed and the one key whose complement is 0 (all
// ones: two raw words of all ones) needs no entry: it has the fixed node index
// WC_NODE_ONES (a root key is never all ones: its right half is a node index). An
// entry is written once, by one compare-and-swap, and never changes: a load that sees
// a value sees the final one (a stale 0 only costs a failed swap). Linear probing from
// a position given by a hash of the key. Every new entry is counted; past its set's
// `fill_limit` the store sets `full` and the run fails, so a node is never lost
// silently.

template <typename T>
__device__ __forceinline__ T wc_claim(T *counter);

#define WC_NODE_ONES 0xFFFFFFFEu
#define WC_NODE_LOST 0xFFFFFFFFu

struct WcSet {
  u64 *table;
  u64 capacity;  // entries, at most WC_NODE_ONES
  u32 *fill;     // entries taken
  u32 fill_limit;
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

// The index of `key` (not all ones) in `set`, storing it if absent (`*fresh` says so);
// WC_NODE_LOST when the set is full.
__device__ __forceinline__ u32 wc_put(const WcTree *tree, const WcSet *set, u64 key, int *fresh) {
  *fresh = 0;
  u64 stored = ~key;
  u64 pos = __umul64hi(wc_mix(key), set->capacity);
  for (u64 n = 0; n < set->capacity; n++) {
    u64 e = __ldcg(set->table + pos);
    if (e == stored) return (u32)pos;
    if (e == 0) {
      if (tree->find_only) return WC_NODE_LOST;
      u64 old = atomicCAS(set->table + pos, 0ull, stored);
      if (old == 0) {
        if (wc_claim(set->fill) >= set->fill_limit) atomicExch(tree->full, 1u);
        *fresh = 1;
        return (u32)pos;
      }
      if (old == stored) return (u32)pos;
    }
    if (++pos == set->capacity) pos = 0;
  }
  atomicExch(tree->full, 1u);
  return WC_NODE_LOST;
}

// The index of the node of children `a` and `b`.
__device__ __forceinline__ u32 wc_node(const WcTree *tree, u32 a, u32 b) {
  u64 key = ((u64)a << 32) | b;
  if (key == ~0ull) return WC_NODE_ONES;
  int fresh;
  return wc_put(tree, &tree->nodes, key, &fresh);
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

// Stores the root key `key` of a state, its index in `*index`: 1 when the state is
// new, 0 when it was there, -1 when the store is full. (Only a set that lost a node
// can make a root key of all ones.)
__device__ __forceinline__ int wc_put_root(const WcTree *tree, u64 key, u32 *index) {
  int fresh = 0;
  u32 i = key == ~0ull ? WC_NODE_LOST : wc_put(tree, &tree->roots, key, &fresh);
  *index = i;
  if ((u64)i >= tree->roots.capacity) {
    atomicExch(tree->full, 1u);
    return -1;
  }
  return fresh;
}
