//! Random small networks (2–4 components of ≤ 5 states over the labels a, b, c and τ,
//! random vectors), written as `.aut` and `.exp` files, read by the front end and
//! explored by the parallel engine, against a deliberately naive enumerator: every
//! tuple of the Cartesian product of the components' declared states, transitions by
//! brute force from the definitions of spec §2.3–2.4, then reachability. Under both
//! semantics, counting distinct triples and with multiplicity.

use std::collections::{BTreeSet, HashSet, VecDeque};

use proptest::prelude::*;
use warpcheck_explore::{explore_parallel, Options};
use warpcheck_lts::{build, Counting, Sync};

const LABELS: [&str; 4] = ["i", "a", "b", "c"];

/// A component: initial state, states, `(from, label index in LABELS, to)`.
#[derive(Clone, Debug)]
struct Comp {
    initial: usize,
    states: usize,
    edges: BTreeSet<(usize, usize, usize)>,
}

/// A vector: per component a label index or `None` for `_`; the result label.
#[derive(Clone, Debug)]
struct Vector {
    elements: Vec<Option<usize>>,
    result: usize,
}

/// A tiny pseudo-random generator (the seed comes from proptest).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn generate(seed: u64, gpu_form: bool) -> (Vec<Comp>, Vec<Vector>) {
    let mut r = Rng(seed | 1);
    let n = 2 + r.below(3);
    let comps: Vec<Comp> = (0..n)
        .map(|_| {
            let states = 1 + r.below(5);
            let count = r.below(2 * states + 2);
            let edges = (0..count).map(|_| (r.below(states), r.below(4), r.below(states))).collect();
            Comp { initial: r.below(states), states, edges }
        })
        .collect();
    let vectors = (0..r.below(5))
        .map(|_| {
            let label = 1 + r.below(3);
            let mut elements: Vec<Option<usize>> =
                (0..n).map(|_| (r.below(2) == 0).then(|| if gpu_form { label } else { r.below(4) })).collect();
            if elements.iter().all(Option::is_none) {
                elements[r.below(n)] = Some(label);
            }
            Vector { elements, result: if gpu_form { label } else { 1 + r.below(3) } }
        })
        .collect();
    (comps, vectors)
}

/// States, distinct triples, transitions with multiplicity, deadlocks: by brute force.
fn naive(comps: &[Comp], vectors: &[Vector], sync: Sync) -> (u64, u64, u64, u64) {
    let n = comps.len();
    let mut tuples: Vec<Vec<usize>> = vec![vec![]];
    for c in comps {
        tuples = tuples.iter().flat_map(|t| (0..c.states).map(move |s| [t.clone(), vec![s]].concat())).collect();
    }
    let has = |k: usize, from: usize, l: usize, to: usize| comps[k].edges.contains(&(from, l, to));
    // Vectors of one element that is τ add nothing; each distinct vector counts once.
    let vectors: BTreeSet<(Vec<Option<usize>>, usize)> = vectors
        .iter()
        .filter(|v| !(sync == Sync::Exp && v.elements.iter().flatten().any(|&l| l == 0)))
        .map(|v| (v.elements.clone(), v.result))
        .collect();
    let alone = |k: usize, l: usize| match sync {
        Sync::Exp => l == 0,
        Sync::FreeUnmentioned => !vectors.iter().any(|(e, _)| e[k] == Some(l)),
    };
    // Steps of one tuple: (label, target) with multiplicity.
    let steps = |s: &Vec<usize>| -> Vec<(usize, Vec<usize>)> {
        let mut out = Vec::new();
        for t in &tuples {
            for (e, result) in &vectors {
                if (0..n).all(|k| match e[k] {
                    None => t[k] == s[k],
                    Some(l) => has(k, s[k], l, t[k]),
                }) {
                    out.push((*result, t.clone()));
                }
            }
            for k in 0..n {
                if (0..n).all(|j| j == k || t[j] == s[j]) {
                    for l in 0..LABELS.len() {
                        if alone(k, l) && has(k, s[k], l, t[k]) {
                            out.push((l, t.clone()));
                        }
                    }
                }
            }
        }
        out
    };
    let initial: Vec<usize> = comps.iter().map(|c| c.initial).collect();
    let mut seen = HashSet::from([initial.clone()]);
    let mut queue = VecDeque::from([initial]);
    let (mut triples, mut multiplicity, mut deadlocks) = (0, 0, 0);
    while let Some(s) = queue.pop_front() {
        let out = steps(&s);
        multiplicity += out.len() as u64;
        deadlocks += out.is_empty() as u64;
        triples += out.iter().collect::<HashSet<_>>().len() as u64;
        for (_, t) in out {
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        }
    }
    (seen.len() as u64, triples, multiplicity, deadlocks)
}

/// The network as files, read by the front end and explored by the engine (or the
/// front end's error).
fn engine(
    comps: &[Comp],
    vectors: &[Vector],
    sync: Sync,
    dir: &std::path::Path,
) -> Result<(u64, u64, u64, u64), String> {
    let q = |l: usize| format!("\"{}\"", LABELS[l]);
    for (k, c) in comps.iter().enumerate() {
        let mut text = format!("des ({}, {}, {})\n", c.initial, c.edges.len(), c.states);
        for &(f, l, t) in &c.edges {
            text += &format!("({f}, {}, {t})\n", q(l));
        }
        std::fs::write(dir.join(format!("c{k}.aut")), text).unwrap();
    }
    let vs: Vec<String> = vectors
        .iter()
        .map(|v| {
            let e: Vec<String> = v.elements.iter().map(|e| e.map_or("_".to_string(), q)).collect();
            format!("{} -> {}", e.join(" * "), q(v.result))
        })
        .collect();
    let files: Vec<String> = (0..comps.len()).map(|k| format!("\"c{k}.aut\"")).collect();
    let exp = format!("par using\n  {}\nin\n  {}\nend par\n", vs.join(",\n  "), files.join(" || "));
    let path = dir.join("net.exp");
    std::fs::write(&path, &exp).unwrap();
    let mut counts = [0u64; 2];
    let mut rest = (0, 0);
    for (i, counting) in [Counting::Distinct, Counting::Multiplicity].into_iter().enumerate() {
        let net =
            build::load(&path, &build::Options { sync, counting, ..Default::default() }).map_err(|e| e.to_string())?;
        let r = explore_parallel(&net, &Options { threads: 2, ..Options::default() }).unwrap();
        counts[i] = r.transitions;
        rest = (r.states, r.deadlocks);
    }
    Ok((rest.0, counts[0], counts[1], rest.1))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn engine_equals_the_naive_enumerator(seed in any::<u64>(), gpu in any::<bool>()) {
        let (comps, vectors) = generate(seed, gpu);
        let sync = if gpu { Sync::FreeUnmentioned } else { Sync::Exp };
        // τ in a vector with others is an error under EXP semantics: the front end must
        // refuse it, and the naive reading does not apply.
        let tau_sync = vectors.iter().any(|v| v.elements.iter().flatten().any(|&l| l == 0) && v.elements.iter().flatten().count() > 1);
        let dir = std::env::temp_dir().join(format!("warpcheck-lts-random-{}-{seed}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let got = engine(&comps, &vectors, sync, &dir);
        if tau_sync && !gpu {
            prop_assert!(got.unwrap_err().contains("τ never synchronises"));
        } else {
            prop_assert_eq!(got, Ok(naive(&comps, &vectors, sync)), "{:?} {:?} {:?}", sync, comps, vectors);
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
