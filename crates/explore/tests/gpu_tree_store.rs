//! The GPU's compressed store (tree.cu and the shape code of `gpu::tree`) compiled for
//! the host with the system C++ compiler and run one insertion after another: packing
//! is canonical (a successor packed against its parent's tree gets the nodes and root
//! of a full packing), roots are equal exactly when states are, unpacking gives the
//! state back, and a full table says so instead of looping or dropping a node.

use std::collections::HashMap;

use libloading::Library;
use warpcheck_explore::gpu::tree::{inner_nodes, tree_source, TABLE_SOURCE};
use warpcheck_explore::gpu::{SetLayout, BUCKET};

/// CUDA's types, qualifiers and loads on the host, before tree.cu (`__ldcg` a plain
/// load, as CUDA's is an asm load the compiler may hoist out of a loop).
const INTRINSICS: &str = r#"
typedef unsigned int u32;
typedef unsigned long long u64;
#define __device__
#define __forceinline__ inline
#define __constant__
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline u32 __ldcg(const u32 *p) { return *p; }
static inline unsigned short __ldcg(const unsigned short *p) { return *p; }
"#;

/// CUDA's atomics for one host thread, after [`INTRINSICS`].
const SHIM: &str = r#"
static inline u64 atomicCAS(u64 *p, u64 e, u64 v) { u64 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicCAS(u32 *p, u32 e, u32 v) { u32 o = *p; if (o == e) *p = v; return o; }
static inline u32 atomicExch(u32 *p, u32 v) { u32 o = *p; *p = v; return o; }
static inline u32 atomicOr(u32 *p, u32 v) { u32 o = *p; *p = o | v; return o; }
"#;

const HARNESS: &str = r#"
template <typename T> inline T wc_claim(T *counter) { return (*counter)++; }
static WcTree tree;
static void wc_test_set(WcSet *set, u32 *table, const u64 *layout, u64 *fill, u64 fill_limit) {
  set->table = table; set->buckets = layout[0]; set->rem_bits = (u32)layout[1];
  set->lo_bytes = (u32)layout[2]; set->inv = layout[3]; set->shifts = (u32)layout[4];
  set->fill = fill; set->fill_limit = fill_limit;
}
// `layout`s: buckets, kept bits, bytes of a lower part, (2^64 - 1) / buckets, the most
// shifts.
extern "C" void wc_test_init(u32 *nodes, const u64 *node_layout, u32 *roots, const u64 *root_layout, u64 *fill,
                             u32 *full, u64 fill_limit) {
  wc_test_set(&tree.nodes, nodes, node_layout, fill, fill_limit);
  wc_test_set(&tree.roots, roots, root_layout, fill + 1, fill_limit);
  tree.full = full;
}
// The index of the node of children `a` and `b`, and the key at a node's index.
extern "C" u32 wc_test_node(u32 a, u32 b) { return wc_node(&tree, a, b); }
extern "C" u64 wc_test_node_key(u32 index) { return wc_node_key(&tree, index); }
"#;

/// A compact set's entries (`u32` words), laid out as `layout` says; zeroed by the
/// allocator, so a large set's untouched pages cost nothing.
struct Set {
    words: Vec<u32>,
    layout: SetLayout,
}

impl Set {
    fn new(layout: SetLayout) -> Set {
        Set { words: vec![0; (layout.buckets * layout.bucket_words()) as usize], layout }
    }

    /// The layout as the harness takes it.
    fn layout(&self) -> [u64; 5] {
        let l = self.layout;
        [l.buckets, l.rem_bits as u64, l.lo_bytes as u64, l.inv(), l.shifts() as u64]
    }

    /// Entries taken in bucket `b`.
    fn taken_in(&self, b: usize) -> usize {
        let words = self.layout.bucket_words() as usize;
        self.words[b * words..b * words + BUCKET as usize].iter().filter(|&&e| e != 0).count()
    }

    /// Entries taken (upper parts not 0).
    fn taken(&self) -> usize {
        (0..self.layout.buckets as usize).map(|b| self.taken_in(b)).sum()
    }
}

type Fns = (
    unsafe extern "C" fn(*const u32, *const u32, *const u32, *mut u32) -> u64,
    unsafe extern "C" fn(u64, *mut u32, *mut u32),
    unsafe extern "C" fn(u64) -> i32,
    unsafe extern "C" fn(u32, u32) -> u32,
    unsafe extern "C" fn(u32) -> u64,
);

struct Store {
    _library: Library,
    nodes: Set,
    roots: Set,
    fill: Box<[u64; 2]>,
    full: Box<u32>,
    fns: Fns,
}

impl Store {
    /// A store of `words`-word states whose sets have at least `capacity` entries.
    fn new(words: usize, capacity: usize, fill_limit: u64) -> Store {
        let layout = SetLayout::at_least(capacity as u64);
        Store::with_sets(words, layout, layout, fill_limit)
    }

    fn with_sets(words: usize, nodes: SetLayout, roots: SetLayout, fill_limit: u64) -> Store {
        let unit = format!(
            "{INTRINSICS}{SHIM}{TABLE_SOURCE}{HARNESS}{}\
             extern \"C\" u64 wc_test_pack(const u32 *t, const u32 *p, const u32 *pidx, u32 *idx) \
             {{ return wc_tree_pack(&tree, t, p, pidx, idx); }}\n\
             extern \"C\" void wc_test_unpack(u64 root, u32 *t, u32 *idx) {{ wc_tree_unpack(&tree, root, t, idx); }}\n\
             // A state's root stored as the engine stores it (wc_insert_root).\n\
             extern \"C\" int wc_test_root(u64 key) {{ return wc_put_root(&tree, key, WC_TREE_INNER > 0); }}\n",
            // The words at the leaves in reverse: packing must not depend on the order.
            tree_source(&(0..words).rev().collect::<Vec<_>>())
        );
        let built = warpcheck_native::compile::build(&unit).expect("the host compiler builds the store");
        // SAFETY: the library is the unit above: loading it runs no initialisers beyond
        // the C++ runtime's, and its functions are called with the signatures given.
        let library = unsafe { Library::new(&built.path) }.unwrap();
        // SAFETY: the symbols are the harness's functions, with these signatures; the
        // buffers given to `wc_test_init` live in the returned store, on the heap, and
        // are neither moved nor freed while the library uses them.
        unsafe {
            let fns: Fns = (
                *library.get(b"wc_test_pack").unwrap(),
                *library.get(b"wc_test_unpack").unwrap(),
                *library.get(b"wc_test_root").unwrap(),
                *library.get(b"wc_test_node").unwrap(),
                *library.get(b"wc_test_node_key").unwrap(),
            );
            type Init = unsafe extern "C" fn(*mut u32, *const u64, *mut u32, *const u64, *mut u64, *mut u32, u64);
            let init: Init = *library.get::<Init>(b"wc_test_init").unwrap();
            let mut store = Store {
                nodes: Set::new(nodes),
                roots: Set::new(roots),
                fill: Box::new([0; 2]),
                full: Box::new(0),
                fns,
                _library: library,
            };
            let (node_layout, root_layout) = (store.nodes.layout(), store.roots.layout());
            init(
                store.nodes.words.as_mut_ptr(),
                node_layout.as_ptr(),
                store.roots.words.as_mut_ptr(),
                root_layout.as_ptr(),
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
        let root = unsafe { (self.fns.0)(t.as_ptr(), p, pidx, idx.as_mut_ptr()) };
        (root, idx)
    }

    fn unpack(&self, root: u64, words: usize) -> (Vec<u32>, Vec<u32>) {
        let (mut t, mut idx) = (vec![0u32; words], vec![0u32; inner_nodes(words)]);
        // SAFETY: as in `pack`.
        unsafe { (self.fns.1)(root, t.as_mut_ptr(), idx.as_mut_ptr()) };
        (t, idx)
    }

    /// Stores a state's root: 1 when the state is new, 0 when it was there, -1 when
    /// the store is full.
    fn put(&mut self, key: u64) -> i32 {
        // SAFETY: as in `pack`.
        unsafe { (self.fns.2)(key) }
    }

    /// The index of the node of children `a` and `b`, storing it if new.
    fn node(&mut self, a: u32, b: u32) -> u32 {
        // SAFETY: as in `pack`.
        unsafe { (self.fns.3)(a, b) }
    }

    /// The key of the node at `index`.
    fn node_key(&self, index: u32) -> u64 {
        // SAFETY: as in `pack`.
        unsafe { (self.fns.4)(index) }
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
    // (1 and 2 words: no inner nodes, the root key is the state; 2 words of all ones
    // make the root key of all ones, stored as any other.)
    for (words, seed) in [(1, 8), (2, 9), (3, 1), (4, 2), (5, 3), (7, 4), (8, 5), (13, 6), (31, 7)] {
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
            // With inner nodes, a root key is never all ones; a 2-word state's is
            // exactly when the state is.
            assert_eq!(root == u64::MAX, words == 2 && t == [u32::MAX; 2], "{words} words: {t:?}");
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
        assert_eq!(store.fill[1] as usize, store.roots.taken(), "{words} words");
        assert_eq!(store.roots.taken(), by_state.len(), "{words} words");
        let nodes = store.nodes.taken();
        assert_eq!(store.fill[0] as usize, nodes, "{words} words");
        if words < 3 {
            assert_eq!(nodes, 0, "{words} words");
        } else {
            assert!(nodes * 4 < by_state.len() * inner_nodes(words) * 3, "{words} words: {nodes} nodes");
        }
    }
}

#[test]
fn a_full_table_is_reported_and_never_loops() {
    let words = 6;
    // The smallest sets (8,192 entries), full past 48: four nodes a state fill the
    // nodes' set first.
    let mut store = Store::new(words, 64, 48);
    assert_eq!(store.nodes.layout.entries(), 8192);
    let mut rng = Rng(42);
    let (mut lost, mut stored) = (0, 0);
    for _ in 0..3000 {
        let t: Vec<u32> = (0..words).map(|_| rng.next() as u32).collect();
        let (root, _) = store.pack(&t, None);
        match store.put(root) {
            -1 => lost += 1,
            1 => stored += 1,
            fresh => panic!("a random state stored twice: {fresh}"),
        }
    }
    assert_eq!(*store.full, 1, "past its fill limit a set is full");
    assert!(lost > 0, "with no room left, an insertion says the store is full");
    // Nodes fill the set until no key finds room within its reach: every entry taken
    // is counted; a root above a lost node is lost too.
    let taken = store.nodes.taken();
    assert_eq!(store.fill[0] as usize, taken);
    assert!(taken > 8192 * 9 / 10, "{taken} of 8,192 entries taken");
    assert_eq!((store.roots.taken(), store.fill[1]), (stored, stored as u64));
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

/// The first mixed key of bucket `home` of `n` (the least p with `p * n >> 64` home).
fn first_of(home: u64, n: u64) -> u64 {
    (((home as u128) << 64).div_ceil(n as u128)) as u64
}

#[test]
fn compact_sets_tell_keys_apart_across_buckets_and_give_them_back() {
    // A card's sets: 2^24 buckets and more (not a power of two) of 6-byte entries, 40
    // bits of a key kept. Their pages are zeroed lazily: the test touches a few hundred
    // buckets.
    let layout = SetLayout::of_buckets((1 << 24) + 12345);
    assert_eq!((layout.rem_bits, layout.entry_bytes(), layout.shifts()), (40, 6, 127));
    let n = layout.buckets;
    // (9 words: a library of its own, as each test's, for the harness's set is global.)
    let mut store = Store::with_sets(9, layout, layout, u64::MAX);
    let mut rng = Rng(7);
    // A key at home in bucket `home`, `offset` into its range (below 2^39 < its length).
    let key = |home: u64, offset: u64| {
        let p = first_of(home, n) + offset;
        assert_eq!(((p as u128 * n as u128) >> 64) as u64, home);
        unmix(p)
    };
    // 33 buckets' worth of keys at home in bucket 77: the last 32 past it. And keys whose
    // upper parts are equal (their kept bits differ in the lower part only), at home in
    // the last bucket, so that they wrap around to bucket 0.
    let offsets: Vec<u64> = (0..33 * BUCKET).map(|_| rng.next() >> 25).collect();
    let mut keys: Vec<u64> = offsets.iter().map(|&o| key(77, o)).collect();
    let last = first_of(n - 1, n) + (1 << 38);
    let same_upper = |low: u64| unmix((last & !0x7FFF) | low);
    keys.extend((0..40).map(|i| same_upper(i * 613)));
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(store.put(k), 1, "key {i} is new");
        assert_eq!(store.put(k), 0, "key {i} is found");
    }
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(store.put(k), 0, "key {i} is found again");
    }
    // Keys never stored, equal to stored ones in the kept bits or the upper part only.
    let twin = first_of(77, n) + offsets[0] + (1 << 40);
    assert!(((twin as u128 * n as u128) >> 64) as u64 > 77);
    assert_eq!(store.put(unmix(twin)), 1);
    assert_eq!(store.put(same_upper(7)), 1);
    assert_eq!(*store.full, 0);
    assert_eq!(store.roots.taken(), keys.len() + 2);
    assert_eq!(store.fill[1] as usize, keys.len() + 2);
    // Each bucket from 77 on is full, then the next took the rest; bucket 0 the wrapped.
    assert!((77..110).all(|b| store.roots.taken_in(b) == BUCKET as usize));
    assert!(store.roots.taken_in(0) >= 8, "{}", store.roots.taken_in(0));
    // The same keys as nodes (two halves each): each node's index gives its key back,
    // across buckets and around the end of the set.
    for &k in &keys {
        let index = store.node((k >> 32) as u32, k as u32);
        assert!((index as u64) < layout.entries(), "{index}");
        assert_eq!(store.node((k >> 32) as u32, k as u32), index);
        assert_eq!(store.node_key(index), k, "node {index}");
    }
    assert_eq!(store.nodes.taken(), keys.len());
    // Keys at the first and last mixed values of their buckets' ranges (where the key's
    // bucket start is found from its kept bits the other way).
    for home in [1000, n / 2 + 3, n - 2] {
        let (lo, hi) = (first_of(home, n), first_of(home + 1, n));
        for p in [lo, lo + 1, hi - 2, hi - 1] {
            let k = unmix(p);
            let index = store.node((k >> 32) as u32, k as u32);
            assert_eq!(store.node_key(index), k, "bucket {home}: node {index}");
        }
    }
    // Keys at home in bucket 500 fill its reach (127 buckets); one more is lost, and
    // says so.
    let mut fresh = 0;
    loop {
        match store.put(key(500, rng.next() >> 25)) {
            1 => fresh += 1,
            -1 => break,
            other => panic!("{other}"),
        }
        assert!(fresh <= 127 * BUCKET, "past the set's reach");
    }
    assert_eq!(fresh, 127 * BUCKET);
    assert_eq!(*store.full, 1);
}

#[test]
fn unmixing_undoes_the_sets_hash() {
    // tree.cu's `wc_unmix` has the multipliers' inverses written out: they are these.
    let mut rng = Rng(99);
    for _ in 0..1000 {
        let k = rng.next();
        assert_eq!(unmix(mix(k)), k);
    }
    let mut store = Store::new(5, 1 << 12, u64::MAX);
    for _ in 0..2000 {
        let (a, b) = (rng.next() as u32, rng.next() as u32);
        let index = store.node(a, b);
        assert_eq!(store.node_key(index), (a as u64) << 32 | b as u64);
    }
    // Keys at the edges of their buckets' ranges, in a set of a power of two buckets
    // (where the top of a range is found from the kept bits the other way).
    let n = store.nodes.layout.buckets;
    assert!(n.is_power_of_two());
    for home in [1, n / 2 + 3, n - 1] {
        let (lo, hi) = (first_of(home, n), first_of(home + 1, n).wrapping_sub(1));
        for p in [lo, lo + 1, hi - 1, hi] {
            let k = unmix(p);
            let index = store.node((k >> 32) as u32, k as u32);
            assert_eq!(store.node_key(index), k, "bucket {home}: node {index}");
        }
    }
}

/// `wc_mix` in tree.cu.
fn mix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[test]
fn a_larger_set_lets_a_key_lie_further_from_home() {
    // 2^25 buckets keep 39 bits of a key: 8 bits of shift, 255 buckets of reach. (Its
    // pages are zeroed lazily; the test touches 256 buckets.)
    let roots = SetLayout::of_buckets(1 << 25);
    assert_eq!((roots.rem_bits, roots.entry_bytes(), roots.shifts()), (39, 6, 255));
    // (10 words: a library of its own, as each test's, for the harness's set is global.)
    let mut store = Store::with_sets(10, SetLayout::at_least(1), roots, u64::MAX);
    let mut rng = Rng(11);
    let mut fresh = 0;
    loop {
        let p = first_of(9, roots.buckets) + (rng.next() >> 26);
        match store.put(unmix(p)) {
            1 => fresh += 1,
            -1 => break,
            other => panic!("{other}"),
        }
        assert!(fresh <= 255 * BUCKET, "past the set's reach");
    }
    assert_eq!(fresh, 255 * BUCKET);
    assert!((9..9 + 255).all(|b| store.roots.taken_in(b) == BUCKET as usize));
}

/// CUDA's atomics for host threads running at once, after [`INTRINSICS`]. The system
/// may preempt a thread between an entry's two writes for milliseconds: the others
/// wait up to 2^31 loads for it (a device's threads, never preempted so, 2^22).
const THREADED_SHIM: &str = r#"
#define WC_WAIT (1u << 31)
#include <thread>
#include <vector>
template <typename T> static inline T atomicCAS(T *p, T e, T v) {
  __atomic_compare_exchange_n(p, &e, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return e;
}
static inline u32 atomicExch(u32 *p, u32 v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline u32 atomicOr(u32 *p, u32 v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <typename T> inline T wc_claim(T *counter) { return __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST); }
"#;

/// `threads` threads insert the same `n` keys as roots and as nodes at once (the odd
/// ones in reverse order), so that they meet on entries whose lower part is not yet
/// written: per thread, the roots it found new, and each key's node index. (It checks
/// the protocol; it did not reproduce the hang an earlier version had on the device.)
const RACE: &str = r#"
static WcTree tree;
extern "C" void wc_race(u32 *nodes, const u64 *node_layout, u32 *roots, const u64 *root_layout, u64 *fill,
                        u32 *full, const u64 *keys, u64 n, u32 threads, u64 *fresh, u32 *index) {
  WcSet *sets[2] = {&tree.nodes, &tree.roots};
  u32 *tables[2] = {nodes, roots};
  const u64 *layouts[2] = {node_layout, root_layout};
  for (int i = 0; i < 2; i++) {
    WcSet *set = sets[i];
    const u64 *l = layouts[i];
    set->table = tables[i]; set->buckets = l[0]; set->rem_bits = (u32)l[1]; set->lo_bytes = (u32)l[2];
    set->inv = l[3]; set->shifts = (u32)l[4]; set->fill = fill + i; set->fill_limit = ~0ull;
  }
  tree.full = full;
  std::vector<std::thread> pool;
  for (u32 t = 0; t < threads; t++) {
    pool.emplace_back([=] {
      for (u64 j = 0; j < n; j++) {
        u64 k = keys[t % 2 ? n - 1 - j : j];
        fresh[t] += wc_put_root(&tree, k, true) == 1;
        index[t * n + (t % 2 ? n - 1 - j : j)] = wc_node(&tree, (u32)(k >> 32), (u32)k);
      }
    });
  }
  for (auto &th : pool) th.join();
}
"#;

#[test]
fn threads_meeting_on_half_written_entries_agree() {
    let unit = format!("{INTRINSICS}{THREADED_SHIM}{TABLE_SOURCE}{RACE}");
    let built = warpcheck_native::compile::build(&unit).expect("the host compiler builds the race");
    // SAFETY: the library is the unit above; loading it runs no initialisers beyond the
    // C++ runtime's.
    // (Kept loaded to the end of the process: threads that never finish still use it.)
    let library: &'static Library = Box::leak(Box::new(unsafe { Library::new(&built.path) }.unwrap()));
    type Race = unsafe extern "C" fn(
        *mut u32,
        *const u64,
        *mut u32,
        *const u64,
        *mut u64,
        *mut u32,
        *const u64,
        u64,
        u32,
        *mut u64,
        *mut u32,
    );
    // SAFETY: the symbol is RACE's function, with this signature.
    let race: Race = unsafe { *library.get::<Race>(b"wc_race").unwrap() };
    let (threads, n) = (8usize, 20_000usize);
    let mut rng = Rng(5);
    let keys: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    // Small sets of 8-byte entries and a card's of 6-byte ones.
    for layout in [SetLayout::at_least(1 << 16), SetLayout::of_buckets(1 << 24)] {
        let keys = keys.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut nodes, mut roots) = (Set::new(layout), Set::new(layout));
            let (node_at, root_at) = (nodes.layout(), roots.layout());
            let (mut fill, mut full) = ([0u64; 2], 0u32);
            let (mut fresh, mut index) = (vec![0u64; threads], vec![0u32; threads * n]);
            // SAFETY: every buffer outlives the call and has the room RACE writes: the
            // sets their layouts' words, `fresh` a word per thread, `index` a word per
            // thread and key.
            unsafe {
                race(
                    nodes.words.as_mut_ptr(),
                    node_at.as_ptr(),
                    roots.words.as_mut_ptr(),
                    root_at.as_ptr(),
                    fill.as_mut_ptr(),
                    &mut full,
                    keys.as_ptr(),
                    n as u64,
                    threads as u32,
                    fresh.as_mut_ptr(),
                    index.as_mut_ptr(),
                )
            };
            let _ = tx.send((nodes, roots, fill, full, fresh, index));
        });
        // A wait for a lower part that never ends would hang the threads: the test
        // fails instead (they spin on until the process ends).
        let (nodes, roots, fill, full, fresh, index) =
            rx.recv_timeout(std::time::Duration::from_secs(120)).expect("the threads finish");
        assert_eq!(full, 0, "{layout:?}");
        // Each root is new to exactly one thread; each key has one node index, for all.
        assert_eq!(fresh.iter().sum::<u64>(), n as u64, "{layout:?}");
        assert_eq!((fill[1], roots.taken()), (n as u64, n), "{layout:?}");
        assert_eq!((fill[0], nodes.taken()), (n as u64, n), "{layout:?}");
        for t in 1..threads {
            assert_eq!(index[t * n..(t + 1) * n], index[..n], "{layout:?}: thread {t}");
        }
    }
}

#[test]
fn an_entry_never_completed_ends_the_run_instead_of_hanging() {
    let mut store = Store::new(3, 1 << 12, u64::MAX);
    let key = 0x1234_5678_9abc_def0u64;
    assert_eq!(store.put(key), 1);
    // The entry's upper part written, its lower part taken back: as if its writer
    // never got to it.
    let words = store.roots.layout.bucket_words() as usize;
    let (b, s) = (0..store.roots.layout.buckets as usize)
        .find_map(|b| (0..BUCKET as usize).find(|&s| store.roots.words[b * words + s] != 0).map(|s| (b, s)))
        .expect("the entry");
    store.roots.words[b * words + BUCKET as usize + s] = 0;
    // Looking the key up waits a bounded time, then says so in `full` (bit 2).
    store.put(key);
    assert_eq!(*store.full & 2, 2);
}
