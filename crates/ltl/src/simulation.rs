//! Reduction of a Büchi automaton by direct simulation (Somenzi and Bloem, "Efficient
//! Büchi automata from LTL formulae", CAV 2000).
//!
//! `r'` directly simulates `r` when `r'` is accepting if `r` is, and every edge of `r`
//! reading a letter is matched by an edge of `r'` reading that letter into a state
//! that simulates the target; the relation is the greatest fixpoint of that rule,
//! computed over explicit letters. Then: an edge `q -σ-> r` is dropped for the letters
//! `σ` that `q` also reads into a strict simulator `r'` of `r` (a run through `r` can go
//! through `r'` instead), and states that simulate each other are merged. Both keep the
//! language.
//!
//! Letters are enumerated, so this runs only on automata over at most
//! [`MAX_PROPOSITIONS`] propositions and [`MAX_STATES`] states; larger ones are
//! returned unchanged.

use crate::buchi::{Buchi, Cube, Edge, Label};

pub const MAX_PROPOSITIONS: u32 = 8;
pub const MAX_STATES: usize = 256;

/// A set of states as bits.
type Bits = Vec<u64>;

fn bit(set: &Bits, i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}

/// The automaton reduced by direct simulation (see the module documentation).
pub fn reduce(b: Buchi) -> Buchi {
    let used = b.edges.iter().flat_map(|e| &e.label.0).fold(0u64, |u, c| u | c.pos | c.neg);
    let m = used.count_ones();
    let n = b.states();
    if m > MAX_PROPOSITIONS || !(2..=MAX_STATES).contains(&n) {
        return b;
    }
    // Letter i sets proposition positions[j] when bit j of i is set.
    let positions: Vec<u32> = (0..64).filter(|&p| used >> p & 1 == 1).collect();
    let letters: Vec<u64> = (0..1usize << m)
        .map(|i| (0..m as usize).filter(|&j| i >> j & 1 == 1).fold(0, |l, j| l | 1 << positions[j]))
        .collect();
    let words = n.div_ceil(64);
    // successors[q][σ]: the states q reaches reading letter σ.
    let mut successors = vec![vec![vec![0u64; words]; letters.len()]; n];
    for e in &b.edges {
        for (s, &letter) in letters.iter().enumerate() {
            if e.label.holds(letter) {
                successors[e.from as usize][s][e.to as usize / 64] |= 1 << (e.to % 64);
            }
        }
    }
    // simulators[r]: the states r' that simulate r; start from acceptance, refine.
    let mut simulators: Vec<Bits> = (0..n)
        .map(|r| {
            let mut set = vec![0u64; words];
            for r2 in (0..n).filter(|&r2| !b.accepting[r] || b.accepting[r2]) {
                set[r2 / 64] |= 1 << (r2 % 64);
            }
            set
        })
        .collect();
    // targets[q][σ]: the same as a list.
    let targets: Vec<Vec<Vec<usize>>> = successors
        .iter()
        .map(|per| per.iter().map(|set| (0..n).filter(|&r| bit(set, r)).collect()).collect())
        .collect();
    let matched = |targets: &[usize], simulators: &[Bits], answers: &Bits| {
        targets.iter().all(|&r| simulators[r].iter().zip(answers).any(|(a, b)| a & b != 0))
    };
    loop {
        let mut changed = false;
        for q in 0..n {
            for q2 in 0..n {
                if q == q2 || !bit(&simulators[q], q2) {
                    continue;
                }
                let ok = (0..letters.len()).all(|s| matched(&targets[q][s], &simulators, &successors[q2][s]));
                if !ok {
                    simulators[q][q2 / 64] &= !(1 << (q2 % 64));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let simulates = |r2: usize, r: usize| bit(&simulators[r], r2);
    // Representative of each class of mutually simulating states: its smallest member.
    let class: Vec<usize> = (0..n).map(|q| (0..n).find(|&p| simulates(p, q) && simulates(q, p)).unwrap()).collect();
    // Per edge, its letters minus those read into a strict simulator of its target.
    let mut edges = Vec::new();
    for e in &b.edges {
        let (q, r) = (e.from as usize, e.to as usize);
        let keep: Vec<bool> = letters
            .iter()
            .enumerate()
            .map(|(s, &letter)| {
                e.label.holds(letter)
                    && !(0..n).any(|r2| bit(&successors[q][s], r2) && simulates(r2, r) && !simulates(r, r2))
            })
            .collect();
        let cubes = cover(&keep, &positions);
        if !cubes.is_empty() {
            edges.push(Edge { from: class[q] as u32, to: class[r] as u32, label: Label::new(cubes) });
        }
    }
    // Renumber the representatives densely, the initial state's first.
    let mut number = vec![u32::MAX; n];
    let mut accepting = Vec::new();
    for q in 0..n {
        if class[q] == q {
            number[q] = accepting.len() as u32;
            accepting.push(b.accepting[q]);
        }
    }
    debug_assert_eq!(number[class[0]], 0);
    for e in &mut edges {
        e.from = number[e.from as usize];
        e.to = number[e.to as usize];
    }
    crate::buchi::normalize(Buchi { accepting, edges })
}

/// Cubes covering exactly the letters `set` (indexed as in [`reduce`]), by Shannon
/// expansion on the propositions in order.
fn cover(set: &[bool], positions: &[u32]) -> Vec<Cube> {
    fn go(set: &[bool], positions: &[u32], var: usize, prefix: usize, cube: Cube, out: &mut Vec<Cube>) {
        // The letters agreeing with `prefix` on variables below `var`.
        let stride = 1usize << var;
        let members = (0..set.len() / stride).map(|k| set[k * stride + prefix]);
        let (mut all, mut any) = (true, false);
        for x in members {
            all &= x;
            any |= x;
        }
        if all {
            out.push(cube);
        } else if any {
            go(set, positions, var + 1, prefix, cube.with(positions[var], false), out);
            go(set, positions, var + 1, prefix | stride, cube.with(positions[var], true), out);
        }
    }
    let mut out = Vec::new();
    go(set, positions, 0, 0, Cube::TRUE, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: u32, to: u32, cubes: &[Cube]) -> Edge {
        Edge { from, to, label: Label::new(cubes.iter().copied()) }
    }

    #[test]
    fn little_brothers_lose_their_edges_and_equivalent_states_merge() {
        let p = Cube::TRUE.with(0, true);
        // 1 (accepting, loops) strictly simulates 2 (loops, may move to 1): 0's edge to
        // 2 reading p is dropped, the one reading !p kept.
        let b = Buchi {
            accepting: vec![false, true, false],
            edges: vec![
                edge(0, 1, &[Cube::TRUE]),
                edge(0, 2, &[Cube::TRUE]),
                edge(1, 1, &[Cube::TRUE]),
                edge(2, 1, &[p]),
                edge(2, 2, &[Cube::TRUE]),
            ],
        };
        let r = reduce(b);
        assert_eq!(r.accepting, [false, true, false]);
        assert!(r.edges.contains(&edge(0, 1, &[Cube::TRUE])));
        assert!(!r.edges.iter().any(|e| e.from == 0 && e.to == 2), "{r:?}");
        // Two accepting states looping on true simulate each other: one state.
        let b = Buchi {
            accepting: vec![false, true, true],
            edges: vec![
                edge(0, 1, &[p]),
                edge(0, 2, &[Cube::TRUE.with(0, false)]),
                edge(1, 1, &[Cube::TRUE]),
                edge(2, 2, &[Cube::TRUE]),
            ],
        };
        let r = reduce(b);
        assert_eq!(r.accepting, [false, true]);
        assert_eq!(r.edges, [edge(0, 1, &[Cube::TRUE]), edge(1, 1, &[Cube::TRUE])]);
    }

    #[test]
    fn cover_is_exact() {
        let positions = [0, 3, 5];
        for set in 0u32..256 {
            let letters: Vec<bool> = (0..8).map(|i| set >> i & 1 == 1).collect();
            let cubes = cover(&letters, &positions);
            for (i, &member) in letters.iter().enumerate() {
                let letter = (0..3).filter(|&j| i >> j & 1 == 1).fold(0u64, |l, j| l | 1 << positions[j]);
                assert_eq!(cubes.iter().any(|c| c.holds(letter)), member, "set {set:08b}, letter {i}");
            }
        }
    }
}
