// The compressed store's node table (WC_TREE, see tree.rs for the shape): a hash set
// of 64-bit pairs, each named by its index in the table. An entry holds the bitwise
// complement of its key, so that the table starts zeroed and the one key whose
// complement is 0 (all ones: two raw words of all ones) needs no entry: it has the
// fixed index WC_NODE_ONES. An entry is written once, by one compare-and-swap, and
// never changes: a load that sees a value sees the final one (a stale 0 only costs a
// failed swap). Linear probing from a position given by a hash of the key. Every new
// entry is counted; past `fill_limit` the store sets `full` and the run fails, so a
// node is never lost silently. A bitmap marks the entries that are states' roots: an
// entry may be stored first as an inner node of another state, so that only its mark
// says whether a state is new.

template <typename T>
__device__ __forceinline__ T wc_claim(T *counter);

#define WC_NODE_ONES 0xFFFFFFFEu
#define WC_NODE_LOST 0xFFFFFFFFu

struct WcTree {
  u64 *table;
  u64 capacity;  // entries, at most WC_NODE_ONES
  u32 *fill;     // entries taken
  u32 *full;
  u32 *roots;    // a bit per entry: a state's root
  u32 fill_limit;
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

// The index of `key` in the table, storing it if absent (`*fresh` says so);
// WC_NODE_LOST when the table is full.
__device__ __forceinline__ u32 wc_put(const WcTree *tree, u64 key, int *fresh) {
  *fresh = 0;
  if (key == ~0ull) return WC_NODE_ONES;
  u64 stored = ~key;
  u64 pos = __umul64hi(wc_mix(key), tree->capacity);
  for (u64 n = 0; n < tree->capacity; n++) {
    u64 e = __ldcg(tree->table + pos);
    if (e == stored) return (u32)pos;
    if (e == 0) {
      if (tree->find_only) return WC_NODE_LOST;
      u64 old = atomicCAS(tree->table + pos, 0ull, stored);
      if (old == 0) {
        if (wc_claim(tree->fill) >= tree->fill_limit) atomicExch(tree->full, 1u);
        *fresh = 1;
        return (u32)pos;
      }
      if (old == stored) return (u32)pos;
    }
    if (++pos == tree->capacity) pos = 0;
  }
  atomicExch(tree->full, 1u);
  return WC_NODE_LOST;
}

// The index of the node of children `a` and `b`.
__device__ __forceinline__ u32 wc_node(const WcTree *tree, u32 a, u32 b) {
  int fresh;
  return wc_put(tree, ((u64)a << 32) | b, &fresh);
}

// The key of the node at `index` (a lost node reads as zeros: its run fails anyway).
__device__ __forceinline__ u64 wc_node_key(const WcTree *tree, u32 index) {
  if (index == WC_NODE_ONES) return ~0ull;
  if ((u64)index >= tree->capacity) return 0;
  return ~tree->table[index];
}

// Marks entry `index` as a state's root: whether it was not one before.
__device__ __forceinline__ int wc_mark_root(const WcTree *tree, u32 index) {
  u32 bit = 1u << (index & 31);
  u32 *word = tree->roots + (index >> 5);
  if (__ldcg(word) & bit) return 0;
  return !(atomicOr(word, bit) & bit);
}

// Stores the root key `key` of a state, its entry in `*index`: 1 when the state is
// new, 0 when it was there, -1 when the table is full. (Only a table that lost a node
// can make a root key of all ones.)
__device__ __forceinline__ int wc_put_root(const WcTree *tree, u64 key, u32 *index) {
  int fresh;
  u32 i = wc_put(tree, key, &fresh);
  *index = i;
  if ((u64)i >= tree->capacity) {
    atomicExch(tree->full, 1u);
    return -1;
  }
  return wc_mark_root(tree, i);
}
