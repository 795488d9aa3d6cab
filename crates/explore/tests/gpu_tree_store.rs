//! The GPU's compressed store (tree.cu and the shape code of `gpu::tree`) compiled for
//! the host with the system C++ compiler and run one insertion after another: packing
//! is canonical (a successor packed against its parent's tree gets the nodes and root
//! of a full packing), roots are equal exactly when states are, unpacking gives the
//! state back, and a full table says so instead of looping or dropping a node.

use std::collections::HashMap;

use libloading::{Library, Symbol};
use warpcheck_explore::gpu::tree::{inner_nodes, tree_source, TABLE_SOURCE};

/// CUDA's intrinsics for one host thread, before tree.cu.
const SHIM: &str = r#"
typedef unsigned int u32;
typedef unsigned long long u64;
#define __device__
#define __forceinline__ inline
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline u64 __ldcg(const u64 *p) { return *p; }
static inline u64 atomicCAS(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicExch(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
"#;

const HARNESS: &str = r#"
template <typename T> inline T wc_claim(T *counter) { return (*counter)++; }
static WcTree tree;
extern "C" void wc_test_init(u64 *nodes, u64 *roots, u64 capacity, u64 *fill, u32 *full, u64 fill_limit) {
  tree.nodes.table = nodes; tree.roots.table = roots;
  tree.nodes.capacity = tree.roots.capacity = capacity;
  tree.nodes.fill = fill; tree.roots.fill = fill + 1;
  tree.nodes.fill_limit = tree.roots.fill_limit = fill_limit;
  tree.full = full;
}
// Stores a state's root as the engine does (wc_insert_root): 1 when the state is
// new, 0 when it was there, -1 when the store is full.
extern "C" int wc_test_root(u64 key) { return wc_put_root(&tree, key); }
"#;

struct Store {
    _library: Library,
    nodes: Vec<u64>,
    roots: Vec<u64>,
    fill: Box<[u64; 2]>,
    full: Box<u32>,
    pack: unsafe extern "C" fn(*const u32, *const u32, *const u32, *mut u32) -> u64,
    unpack: unsafe extern "C" fn(u64, *mut u32, *mut u32),
    put: unsafe extern "C" fn(u64) -> i32,
}

impl Store {
    fn new(words: usize, capacity: usize, fill_limit: u64) -> Store {
        let unit = format!(
            "{SHIM}{TABLE_SOURCE}{HARNESS}{}\
             extern \"C\" u64 wc_test_pack(const u32 *t, const u32 *p, const u32 *pidx, u32 *idx) \
             {{ return wc_tree_pack(&tree, t, p, pidx, idx); }}\n\
             extern \"C\" void wc_test_unpack(u64 root, u32 *t, u32 *idx) {{ wc_tree_unpack(&tree, root, t, idx); }}\n",
            tree_source(words)
        );
        let built = warpcheck_native::compile::build(&unit).expect("the host compiler builds the store");
        // SAFETY: the library is the unit above: loading it runs no initialisers beyond
        // the C++ runtime's, and its functions are called with the signatures given.
        let library = unsafe { Library::new(&built.path) }.unwrap();
        // SAFETY: the symbols are the harness's functions, with these signatures; the
        // buffers given to `wc_test_init` live in the returned store, on the heap, and
        // are neither moved nor freed while the library uses them.
        unsafe {
            let pack: Symbol<unsafe extern "C" fn(*const u32, *const u32, *const u32, *mut u32) -> u64> =
                library.get(b"wc_test_pack").unwrap();
            let unpack: Symbol<unsafe extern "C" fn(u64, *mut u32, *mut u32)> = library.get(b"wc_test_unpack").unwrap();
            let put: Symbol<unsafe extern "C" fn(u64) -> i32> = library.get(b"wc_test_root").unwrap();
            let init: Symbol<unsafe extern "C" fn(*mut u64, *mut u64, u64, *mut u64, *mut u32, u64)> =
                library.get(b"wc_test_init").unwrap();
            let (pack, unpack, put, init) = (*pack, *unpack, *put, *init);
            let mut store = Store {
                nodes: vec![0; capacity],
                roots: vec![0; capacity],
                fill: Box::new([0; 2]),
                full: Box::new(0),
                pack,
                unpack,
                put,
                _library: library,
            };
            let (nodes, roots) = (store.nodes.as_mut_ptr(), store.roots.as_mut_ptr());
            init(nodes, roots, capacity as u64, store.fill.as_mut_ptr(), &mut *store.full, fill_limit);
            store
        }
    }

    /// Packs `t` (against `parent`'s words and nodes when given): its root and nodes.
    fn pack(&mut self, t: &[u32], parent: Option<(&[u32], &[u32])>) -> (u64, Vec<u32>) {
        let mut idx = vec![0u32; inner_nodes(t.len())];
        let (p, pidx) = parent.map_or((std::ptr::null(), std::ptr::null()), |(p, i)| (p.as_ptr(), i.as_ptr()));
        // SAFETY: `t` and `p` have the store's words, `pidx` and `idx` its inner nodes;
        // the sets the library points to are `self.nodes` and `self.roots`, alive and
        // not moved.
        let root = unsafe { (self.pack)(t.as_ptr(), p, pidx, idx.as_mut_ptr()) };
        (root, idx)
    }

    fn unpack(&self, root: u64, words: usize) -> (Vec<u32>, Vec<u32>) {
        let (mut t, mut idx) = (vec![0u32; words], vec![0u32; inner_nodes(words)]);
        // SAFETY: as in `pack`.
        unsafe { (self.unpack)(root, t.as_mut_ptr(), idx.as_mut_ptr()) };
        (t, idx)
    }

    /// Stores a state's root: 1 when the state is new, 0 when it was there, -1 when
    /// the store is full.
    fn put(&mut self, key: u64) -> i32 {
        // SAFETY: as in `pack`.
        unsafe { (self.put)(key) }
    }
}

/// A small xorshift generator: the test's states, the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Words drawn from a few values, all ones and zero among them, so that halves repeat.
fn word(rng: &mut Rng) -> u32 {
    [0, 1, 2, 7, 0xFFFF_FFFF, 0xFFFF_FFFE, 0x8000_0000, 12345][rng.below(8)]
}

#[test]
fn packing_is_canonical_and_unpacks_to_the_state() {
    for (words, seed) in [(3, 1), (4, 2), (5, 3), (7, 4), (8, 5), (13, 6), (31, 7)] {
        let mut store = Store::new(words, 1 << 16, (1 << 16) * 9 / 10);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
        let mut stored: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let mut by_root: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut by_state: HashMap<Vec<u32>, u64> = HashMap::new();
        let mut new_roots = 0;
        for step in 0..3000 {
            // A successor of a stored state (one or two words changed), or a fresh state.
            let (t, parent) = if step > 0 && rng.below(4) != 0 {
                let from = rng.below(stored.len());
                let mut t = stored[from].0.clone();
                for _ in 0..1 + rng.below(2) {
                    let w = rng.below(words);
                    t[w] = word(&mut rng);
                }
                (t, Some(from))
            } else {
                ((0..words).map(|_| word(&mut rng)).collect::<Vec<_>>(), None)
            };
            let (root, idx) = match parent {
                Some(from) => {
                    let (p, pidx) = stored[from].clone();
                    store.pack(&t, Some((&p, &pidx)))
                }
                None => store.pack(&t, None),
            };
            assert_eq!(*store.full, 0, "{words} words: the table filled");
            assert_eq!(store.pack(&t, None), (root, idx.clone()), "{words} words: incremental = full packing");
            assert_eq!(store.unpack(root, words), (t.clone(), idx.clone()), "{words} words: unpacking");
            assert_ne!(root, u64::MAX, "a root key is never all ones");
            if let Some(other) = by_root.insert(root, t.clone()) {
                assert_eq!(other, t, "{words} words: two states with one root");
            }
            let seen = by_state.insert(t.clone(), root);
            assert!(seen.is_none_or(|r| r == root), "{words} words: one state with two roots");
            let fresh = store.put(root);
            assert_eq!(fresh, seen.is_none() as i32, "{words} words: a root is new exactly when its state is");
            new_roots += fresh as usize;
            stored.push((t, idx));
        }
        assert_eq!(new_roots, by_state.len());
        // Every entry taken is counted, a root per state, and halves are shared: fewer
        // nodes than states times their nodes.
        let taken = |set: &[u64]| set.iter().filter(|&&e| e != 0).count();
        assert_eq!(store.fill[1] as usize, taken(&store.roots), "{words} words");
        assert_eq!(taken(&store.roots), by_state.len(), "{words} words");
        let nodes = taken(&store.nodes);
        assert_eq!(store.fill[0] as usize, nodes, "{words} words");
        assert!(nodes * 4 < by_state.len() * inner_nodes(words) * 3, "{words} words: {nodes} nodes");
    }
}

#[test]
fn a_full_table_is_reported_and_never_loops() {
    let words = 6;
    let mut store = Store::new(words, 64, 48);
    let mut rng = Rng(42);
    let mut lost = false;
    for _ in 0..500 {
        let t: Vec<u32> = (0..words).map(|_| rng.next() as u32).collect();
        let (root, _) = store.pack(&t, None);
        let fresh = store.put(root);
        assert!((-1..=1).contains(&fresh), "{fresh}");
        lost |= fresh < 0;
    }
    assert_eq!(*store.full, 1, "past its fill limit a set is full");
    assert!(lost, "with every entry taken, an insertion says the store is full");
    // The nodes' set fills first (four nodes a state), with every entry taken and
    // counted; a root above a lost node is lost too.
    assert_eq!(store.nodes.iter().filter(|&&e| e != 0).count(), 64);
    assert_eq!(store.fill[0], 64);
    assert_eq!(store.roots.iter().filter(|&&e| e != 0).count(), store.fill[1] as usize);
}
