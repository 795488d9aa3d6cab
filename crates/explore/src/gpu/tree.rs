//! The shape of the GPU's compressed store (`WC_TREE` in kernel.cu, the store in
//! tree.cu): a state of `W >= 3` words is the leaves of a balanced binary tree whose
//! inner nodes are pairs (a raw word for a leaf, a table index for a node) stored once
//! each in one hash table, so states sharing halves share their nodes (Laarman, van de
//! Pol and Weber's tree compression, as the CPU's `warpcheck_store::TreeStore`). A
//! state of 2 words is its root key, of 1 word that word and 0: no inner nodes. This
//! module writes the C that packs a state into its root key, storing the
//! nodes above changed words only, and unpacks a root key into the state.

/// The node table's CUDA source (tree.cu): `struct WcTree`, `wc_put`, `wc_node` and
/// `wc_node_key`; it declares `wc_claim`, which its includer defines.
pub const TABLE_SOURCE: &str = include_str!("tree.cu");

/// A child of a node: word `i` of the state, inner node `i` (postorder), or (the
/// root's right child of a 1-word state) the constant 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Child {
    Word(usize),
    Node(usize),
    Zero,
}

/// An inner node: its children and the words `lo..hi` under it.
#[derive(Clone, Copy, Debug)]
struct Node {
    left: Child,
    right: Child,
    lo: usize,
    hi: usize,
}

/// The inner nodes of a `words`-word state in postorder and the root's two children.
/// Ranges split as the CPU's tree splits them (the left half the smaller).
fn shape(words: usize) -> (Vec<Node>, (Child, Child)) {
    fn build(lo: usize, hi: usize, nodes: &mut Vec<Node>) -> Child {
        if hi - lo == 1 {
            return Child::Word(lo);
        }
        let mid = lo + (hi - lo) / 2;
        let left = build(lo, mid, nodes);
        let right = build(mid, hi, nodes);
        nodes.push(Node { left, right, lo, hi });
        Child::Node(nodes.len() - 1)
    }
    let mut nodes = Vec::new();
    if words <= 1 {
        return (nodes, (Child::Word(0), Child::Zero));
    }
    let mid = words / 2;
    let root = (build(0, mid, &mut nodes), build(mid, words, &mut nodes));
    (nodes, root)
}

/// The number of inner nodes below the root of a `words`-word state.
pub fn inner_nodes(words: usize) -> usize {
    words.saturating_sub(2)
}

/// The leaf positions `lo..hi` under each inner node of a `words`-word state, in
/// postorder.
pub(crate) fn inner_ranges(words: usize) -> Vec<(usize, usize)> {
    shape(words).0.iter().map(|n| (n.lo, n.hi)).collect()
}

/// The C value of the root's child `c`, with the words at the leaves in `order`.
fn value(c: Child, order: &[usize]) -> String {
    match c {
        Child::Word(leaf) => format!("t[{}]", order[leaf]),
        Child::Node(n) => format!("idx[{n}]"),
        Child::Zero => "0u".into(),
    }
}

/// The code of a child in `wc_tree_kids`: a word's index (the word at the leaf, by
/// `order`), or the number of words plus a node's.
fn code(c: Child, order: &[usize]) -> usize {
    match c {
        Child::Word(leaf) => order[leaf],
        Child::Node(n) => order.len() + n,
        Child::Zero => unreachable!("only the root of a 1-word state has a constant child"),
    }
}

/// C source of `wc_tree_pack` and `wc_tree_unpack` for states of `order.len()` words
/// with word `order[leaf]` at each leaf (see `leaf_order`), over tree.cu's `wc_node`
/// and `wc_node_key` (which it must follow). The inner nodes are
/// visited by one loop over a table of their children (`wc_tree_kids`, in constant
/// memory: every lane reads the same entry), so the kernel holds one copy of the
/// lookup, not one per node: unrolled, the lookups of a wide state made the expansion
/// kernel several times larger.
pub fn tree_source(order: &[usize]) -> String {
    let words = order.len();
    let (nodes, (left, right)) = shape(words);
    // (WC_TREE_ROOM: the room of an array of the indices, never empty.)
    let mut s = format!("#define WC_TREE_INNER {}\n#define WC_TREE_ROOM {}\n", nodes.len(), nodes.len().max(1));
    let kids: Vec<String> =
        nodes.iter().flat_map(|n| [code(n.left, order), code(n.right, order)]).map(|c| c.to_string()).collect();
    let kids = if kids.is_empty() { "0, 0".to_string() } else { kids.join(", ") };
    s += &format!(
        "// The inner nodes' children in postorder, left and right: below {words} a word of the\n\
         // state, from {words} on the node (code - {words}).\n\
         __constant__ unsigned short wc_tree_kids[2 * WC_TREE_ROOM] = {{{kids}}};\n\
         __device__ __forceinline__ u32 wc_tree_child(u32 code, const u32 *t, const u32 *idx) {{\n  \
         return code < {words} ? t[code] : idx[code - {words}];\n}}\n"
    );
    s += "// Packs state t into its root key and its inner nodes' indices `idx`. With `p` (the\n\
          // parent's words) and `pidx` (its indices), a node whose children are the parent's\n\
          // keeps the parent's index (equal keys have one index); without (null), all are\n\
          // stored.\n\
          __device__ __forceinline__ u64 wc_tree_pack(const WcTree *tree, const u32 *t, const u32 *p, \
          const u32 *pidx, u32 *idx) {\n\
          #pragma unroll 1\n  \
          for (int i = 0; i < WC_TREE_INNER; i++) {\n    \
          u32 kl = wc_tree_kids[2 * i], kr = wc_tree_kids[2 * i + 1];\n    \
          u32 a = wc_tree_child(kl, t, idx), b = wc_tree_child(kr, t, idx);\n    \
          int same = p && a == wc_tree_child(kl, p, pidx) && b == wc_tree_child(kr, p, pidx);\n    \
          idx[i] = same ? pidx[i] : wc_node(tree, a, b);\n  }\n";
    s += &format!("  return ((u64){} << 32) | {};\n}}\n", value(left, order), value(right, order));
    s += "// Unpacks root key `root` into the state t and its inner nodes' indices `idx`.\n\
          __device__ __forceinline__ void wc_tree_unpack(const WcTree *tree, u64 root, u32 *t, u32 *idx) {\n";
    s += &format!("  {} = (u32)(root >> 32);\n", value(left, order));
    if right != Child::Zero {
        s += &format!("  {} = (u32)root;\n", value(right, order));
    }
    s += &format!(
        "#pragma unroll 1\n  \
         for (int i = WC_TREE_INNER - 1; i >= 0; i--) {{\n    \
         u64 e = wc_node_key(tree, idx[i]);\n    \
         u32 kl = wc_tree_kids[2 * i], kr = wc_tree_kids[2 * i + 1];\n    \
         if (kl < {words}) t[kl] = (u32)(e >> 32); else idx[kl - {words}] = (u32)(e >> 32);\n    \
         if (kr < {words}) t[kr] = (u32)e; else idx[kr - {words}] = (u32)e;\n  }}\n}}\n"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_a_leaf_once_and_children_come_first() {
        for words in 1..70 {
            let (nodes, (l, r)) = shape(words);
            assert_eq!(nodes.len(), inner_nodes(words));
            let mut leaves = vec![0; words];
            let mut used = vec![0; nodes.len()];
            for (i, &Node { left: a, right: b, lo, hi }) in nodes.iter().enumerate() {
                assert!(hi - lo >= 2);
                for c in [a, b] {
                    match c {
                        Child::Word(w) => leaves[w] += 1,
                        Child::Node(n) => {
                            assert!(n < i, "postorder");
                            used[n] += 1;
                        }
                        Child::Zero => panic!("{words}: a constant below the root"),
                    }
                }
            }
            for c in [l, r] {
                match c {
                    Child::Word(w) => leaves[w] += 1,
                    Child::Node(n) => used[n] += 1,
                    Child::Zero => assert_eq!(words, 1),
                }
            }
            assert!(leaves.iter().all(|&n| n == 1), "{words}: {leaves:?}");
            assert!(used.iter().all(|&n| n == 1), "{words}: {used:?}");
            // With 3 words or more a root key is never all ones: its right half is a
            // node index. With 2, the two words; with 1, the word and 0.
            match words {
                1 => assert_eq!((l, r), (Child::Word(0), Child::Zero)),
                2 => assert_eq!((l, r), (Child::Word(0), Child::Word(1))),
                _ => assert!(matches!(r, Child::Node(_))),
            }
        }
    }
}
