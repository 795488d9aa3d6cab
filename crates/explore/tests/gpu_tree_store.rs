//! The GPU's compressed store (tree.cu and the shape code of `gpu::tree`) compiled for
//! the host with the system C++ compiler and run one insertion after another: packing
//! is canonical (a successor packed against its parent's tree gets the nodes and root
//! of a full packing), roots are equal exactly when states are, unpacking gives the
//! state back, and a full table says so instead of looping or dropping a node.

use std::collections::HashMap;

use libloading::{Library, Symbol};
use warpcheck_explore::gpu::tree::{inner_nodes, tree_source, TABLE_SOURCE};
use warpcheck_explore::gpu::{RootLayout, ROOT_BUCKET};

/// CUDA's intrinsics for one host thread, before tree.cu.
const SHIM: &str = r#"
typedef unsigned int u32;
typedef unsigned long long u64;
#define __device__
#define __forceinline__ inline
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline u64 __ldcg(const u64 *p) { return *p; }
static inline u32 __ldcg(const u32 *p) { return *p; }
static inline unsigned short __ldcg(const unsigned short *p) { return *p; }
static inline u64 atomicCAS(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicCAS(u32 *p, u32 e, u32 v) { u32 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicExch(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
"#;

const HARNESS: &str = r#"
template <typename T> inline T wc_claim(T *counter) { return (*counter)++; }
static WcTree tree;
extern "C" void wc_test_init(u64 *nodes, u64 capacity, u32 *roots, u64 buckets, u32 rem_bits, u32 lo_bytes,
                             u64 *fill, u32 *full, u64 fill_limit) {
  tree.nodes.table = nodes; tree.roots.table = roots;
  tree.nodes.capacity = capacity;
  tree.roots.buckets = buckets; tree.roots.rem_bits = rem_bits; tree.roots.lo_bytes = lo_bytes;
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
    /// The set of roots, laid out as `layout` says.
    roots: Vec<u32>,
    layout: RootLayout,
    fill: Box<[u64; 2]>,
    full: Box<u32>,
    pack: unsafe extern "C" fn(*const u32, *const u32, *const u32, *mut u32) -> u64,
    unpack: unsafe extern "C" fn(u64, *mut u32, *mut u32),
    put: unsafe extern "C" fn(u64) -> i32,
}

impl Store {
    /// A store of `words`-word states whose set of nodes has `capacity` entries and
    /// set of roots at least as many.
    fn new(words: usize, capacity: usize, fill_limit: u64) -> Store {
        Store::with_roots(words, capacity, RootLayout::for_entries(capacity as u64), fill_limit)
    }

    fn with_roots(words: usize, capacity: usize, layout: RootLayout, fill_limit: u64) -> Store {
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
            type Init = unsafe extern "C" fn(*mut u64, u64, *mut u32, u64, u32, u32, *mut u64, *mut u32, u64);
            let init: Symbol<Init> = library.get(b"wc_test_init").unwrap();
            let (pack, unpack, put, init) = (*pack, *unpack, *put, *init);
            let mut store = Store {
                nodes: vec![0; capacity],
                // Zeroed by the allocator: a large set's untouched pages cost nothing.
                roots: vec![0; (layout.buckets * layout.bucket_words()) as usize],
                layout,
                fill: Box::new([0; 2]),
                full: Box::new(0),
                pack,
                unpack,
                put,
                _library: library,
            };
            let (nodes, roots) = (store.nodes.as_mut_ptr(), store.roots.as_mut_ptr());
            let l = layout;
            init(
                nodes,
                capacity as u64,
                roots,
                l.buckets,
                l.rem_bits,
                l.lo_bytes,
                store.fill.as_mut_ptr(),
                &mut *store.full,
                fill_limit,
            );
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

    /// Entries of the set of roots taken (upper parts not 0).
    fn roots_taken(&self) -> usize {
        let words = self.layout.bucket_words() as usize;
        self.roots.chunks(words).map(|b| b[..ROOT_BUCKET as usize].iter().filter(|&&e| e != 0).count()).sum()
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
        assert_eq!(store.fill[1] as usize, store.roots_taken(), "{words} words");
        assert_eq!(store.roots_taken(), by_state.len(), "{words} words");
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
    assert_eq!(store.roots_taken(), store.fill[1] as usize);
}

/// The set of roots' hash (`wc_mix` in tree.cu, a bijection) undone: the root key that
/// mixes to `p`, so that a test can choose keys by their home bucket and kept bits.
fn unmix(mut p: u64) -> u64 {
    fn inverse(c: u64) -> u64 {
        let mut x = c;
        for _ in 0..6 {
            x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
        }
        x
    }
    p ^= p >> 33;
    p = p.wrapping_mul(inverse(0xc4ce_b9fe_1a85_ec53));
    p ^= p >> 33;
    p = p.wrapping_mul(inverse(0xff51_afd7_ed55_8ccd));
    p ^ (p >> 33)
}

#[test]
fn compact_roots_tell_keys_apart_across_buckets_and_fail_past_their_reach() {
    // A card's set: 2^24 buckets of 6-byte entries (40 bits of a key kept). Its pages
    // are zeroed lazily: the test touches a few hundred buckets.
    let layout = RootLayout::for_entries(ROOT_BUCKET << 24);
    assert_eq!((layout.buckets, layout.rem_bits, layout.entry_bytes()), (1 << 24, 40, 6));
    // (9 words: a library of its own, as each test's, for the harness's set is global.)
    let mut store = Store::with_roots(9, 1 << 10, layout, u64::MAX);
    let key = |bucket: u64, kept: u64| unmix(bucket << 40 | kept);
    let mut rng = Rng(7);
    // 33 buckets' worth of keys at home in bucket 77: the last 32 past it. And keys whose
    // upper parts are equal (their kept bits differ in the lower part only), at home in
    // the last bucket, so that they wrap around to bucket 0.
    let kept: Vec<u64> = (0..33 * ROOT_BUCKET).map(|_| rng.next() >> 24).collect();
    let mut keys: Vec<u64> = kept.iter().map(|&r| key(77, r)).collect();
    let upper = (rng.next() >> 24) & !0x7FFF;
    keys.extend((0..40).map(|i| key(layout.buckets - 1, upper | (i * 613))));
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(store.put(k), 1, "key {i} is new");
        assert_eq!(store.put(k), 0, "key {i} is found");
    }
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(store.put(k), 0, "key {i} is found again");
    }
    // Keys never stored, equal to stored ones in the kept bits or the upper part only.
    assert_eq!(store.put(key(78, kept[0])), 1);
    assert_eq!(store.put(key(layout.buckets - 1, upper | 7)), 1);
    assert_eq!(*store.full, 0);
    assert_eq!(store.roots_taken(), keys.len() + 2);
    assert_eq!(store.fill[1] as usize, keys.len() + 2);
    // Each bucket from 77 on is full, then the next took the rest; bucket 0 the wrapped.
    let taken = |b: usize| {
        let words = layout.bucket_words() as usize;
        store.roots[b * words..b * words + ROOT_BUCKET as usize].iter().filter(|&&e| e != 0).count()
    };
    assert!((77..110).all(|b| taken(b) == ROOT_BUCKET as usize));
    assert!(taken(0) >= 8, "{}", taken(0));
    // Keys at home in bucket 500 fill its reach (127 buckets); one more is lost, and
    // says so.
    let mut fresh = 0;
    loop {
        match store.put(key(500, rng.next() >> 24)) {
            1 => fresh += 1,
            -1 => break,
            other => panic!("{other}"),
        }
        assert!(fresh <= 127 * ROOT_BUCKET, "past the set's reach");
    }
    assert_eq!(fresh, 127 * ROOT_BUCKET);
    assert_eq!(*store.full, 1);
}
