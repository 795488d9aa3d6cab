//! The searches agree with each other and with a plain hash-set BFS over the same
//! successor function, wherever they apply; every index function of a domain gives the
//! same layers.

use std::collections::HashSet;

use warpcheck_puzzle::domains::frogs::{FrogIndex, Frogs};
use warpcheck_puzzle::domains::pancake::Pancake;
use warpcheck_puzzle::domains::peg_solitaire::PegSolitaire;
use warpcheck_puzzle::domains::sliding_tile::SlidingTile;
use warpcheck_puzzle::domains::top_spin::TopSpin;
use warpcheck_puzzle::{search, Algorithm, Options, Progress, Puzzle, Report};

/// Layers of a BFS over a `HashSet`: the reference that shares nothing with the bit
/// vectors.
fn hash_set_layers<P: Puzzle>(p: &P) -> Vec<u64> {
    let mut scratch = p.scratch();
    let mut seen = HashSet::from([p.start()]);
    let mut layer = vec![p.start()];
    let mut layers = vec![1];
    loop {
        let mut next = Vec::new();
        for &s in &layer {
            p.successors(s, &mut scratch, |_, t| {
                assert!(t < p.size());
                if seen.insert(t) {
                    next.push(t);
                }
            });
        }
        if next.is_empty() {
            return layers;
        }
        layers.push(next.len() as u64);
        layer = next;
    }
}

fn run<P: Puzzle>(p: &P, a: Algorithm) -> Report {
    search(p, &Options { algorithm: Some(a), ..Options::default() }).unwrap_or_else(|e| panic!("{}: {e}", p.name()))
}

/// Every algorithm that applies to `p` agrees with the hash-set BFS.
fn agree<P: Puzzle>(p: &P, algorithms: &[Algorithm]) {
    let want = hash_set_layers(p);
    let states: u64 = want.iter().sum();
    for &a in algorithms {
        let r = run(p, a);
        assert_eq!(r.algorithm, a);
        assert_eq!(r.states, states, "{} {}", p.name(), a.name());
        if a == Algorithm::Reachability {
            assert_eq!(r.layers, None);
            assert!(r.scans as usize <= want.len() + 1, "Theorem 10: scans bounded by the radius");
        } else {
            assert_eq!(r.layers.as_deref(), Some(&want[..]), "{} {}", p.name(), a.name());
            assert_eq!(r.depth, Some(want.len() as u32 - 1));
        }
        if matches!(a, Algorithm::TwoBit | Algorithm::OneBitLayers) {
            assert_eq!(r.expansions, states, "{} {}: each state expanded once", p.name(), a.name());
        }
    }
}

const TWO_BIT: [Algorithm; 3] = [Algorithm::TwoBit, Algorithm::TwoBitLiteral, Algorithm::Reachability];

#[test]
fn sliding_tile_two_bit_and_one_bit_with_alternation() {
    for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)] {
        let p = SlidingTile::new(r, c).unwrap();
        agree(&p, &[TWO_BIT[0], TWO_BIT[1], TWO_BIT[2], Algorithm::OneBitAlternation]);
    }
}

#[test]
fn permutation_puzzles_two_bit() {
    for n in [5, 6, 7, 8, 9] {
        agree(&TopSpin::new(n, 4).unwrap(), &TWO_BIT);
    }
    // Other twist lengths are unfolded; the searches still agree.
    agree(&TopSpin::new(7, 3).unwrap(), &TWO_BIT);
    agree(&TopSpin::new(8, 2).unwrap(), &TWO_BIT);
    for n in 1..=8 {
        agree(&Pancake::new(n).unwrap(), &TWO_BIT);
    }
}

#[test]
fn fore_and_aft_both_index_functions() {
    let colex = Frogs::new(3, FrogIndex::HoleColex).unwrap();
    let multinomial = Frogs::new(3, FrogIndex::Multinomial).unwrap();
    agree(&colex, &TWO_BIT);
    let a = run(&colex, Algorithm::TwoBit);
    let b = run(&multinomial, Algorithm::TwoBit);
    assert_eq!(a.layers, b.layers);
    assert_eq!(a.states, 218_790);
    agree(&Frogs::new(2, FrogIndex::Multinomial).unwrap(), &TWO_BIT);
}

#[test]
fn peg_solitaire_layer_selection_from_small_boards() {
    // A 3x4 block of pegs around the centre, and a cross of 9.
    let block = [9, 10, 11, 15, 16, 17, 21, 22, 23, 27, 28, 29].iter().fold(0u64, |m, &h| m | 1 << h);
    let cross = [4, 9, 10, 11, 15, 16, 17, 22, 27].iter().fold(0u64, |m, &h| m | 1 << h);
    for board in [block, cross] {
        let p = PegSolitaire::from_board(board).unwrap();
        agree(&p, &[Algorithm::OneBitLayers, Algorithm::TwoBit, Algorithm::TwoBitLiteral, Algorithm::Reachability]);
        assert_eq!(Algorithm::Auto.choose(&p, u64::MAX), Algorithm::OneBitLayers);
    }
    // The first layers of the English board (the whole run is in reference.rs).
    let p = PegSolitaire::english();
    let want = [1, 4, 12, 60, 296, 1338];
    let mut layer = HashSet::from([p.start()]);
    for &count in &want[1..] {
        let mut next = HashSet::new();
        for &s in &layer {
            p.successors(s, &mut (), |_, t| {
                next.insert(t);
            });
        }
        assert_eq!(next.len() as u64, count);
        layer = next;
    }
}

#[test]
fn max_depth_stops_early_and_says_so() {
    let p = SlidingTile::new(3, 3).unwrap();
    let full = run(&p, Algorithm::TwoBit).layers.unwrap();
    for a in [Algorithm::TwoBit, Algorithm::TwoBitLiteral, Algorithm::OneBitAlternation] {
        let r = search(&p, &Options { algorithm: Some(a), max_depth: Some(10), ..Options::default() }).unwrap();
        assert!(!r.complete);
        assert_eq!(r.layers.as_deref(), Some(&full[..=10]));
        assert_eq!(r.states, full[..=10].iter().sum::<u64>());
    }
    let deep = search(&p, &Options { max_depth: Some(40), ..Options::default() }).unwrap();
    assert!(deep.complete);
    assert_eq!(deep.layers.unwrap(), full);
    let peg = PegSolitaire::english();
    let r = search(&peg, &Options { max_depth: Some(4), ..Options::default() }).unwrap();
    assert_eq!((r.layers.unwrap(), r.complete), (vec![1, 4, 12, 60, 296], false));
    let reach = Options { algorithm: Some(Algorithm::Reachability), max_depth: Some(3), ..Options::default() };
    assert!(search(&p, &reach).is_err());
}

#[test]
fn progress_is_reported_per_layer() {
    let p = SlidingTile::new(3, 3).unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let progress = |g: &Progress| seen.lock().unwrap().push((g.step, g.new_states, g.states));
    for a in [Algorithm::TwoBit, Algorithm::OneBitAlternation] {
        seen.lock().unwrap().clear();
        let r = search(&p, &Options { algorithm: Some(a), progress: Some(&progress), ..Options::default() }).unwrap();
        let seen = seen.lock().unwrap();
        let layers = r.layers.unwrap();
        assert_eq!(seen.len(), layers.len());
        for (d, &(step, new, total)) in seen.iter().enumerate() {
            assert_eq!((step as usize, new), (d, layers[d]));
            assert_eq!(total, layers[..=d].iter().sum::<u64>());
        }
    }
}
