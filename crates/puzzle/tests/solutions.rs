//! Shortest solutions: their length is the target's BFS depth, they replay, and bad
//! requests are errors.

use warpcheck_puzzle::domains::frogs::Frogs;
use warpcheck_puzzle::domains::pancake::Pancake;
use warpcheck_puzzle::domains::peg_solitaire::PegSolitaire;
use warpcheck_puzzle::domains::sliding_tile::SlidingTile;
use warpcheck_puzzle::domains::top_spin::TopSpin;
use warpcheck_puzzle::{solve, AnyPuzzle, Error, Options, Puzzle};

/// Plays `moves` moves from the start, each the `pick`-th successor (mod the number).
fn walk<P: Puzzle>(p: &P, moves: usize, pick: usize) -> u64 {
    let mut s = p.start();
    let mut scratch = p.scratch();
    for i in 0..moves {
        let mut succ = Vec::new();
        p.successors(s, &mut scratch, |_, t| succ.push(t));
        s = succ[(pick * (i + 1)) % succ.len()];
    }
    s
}

#[test]
fn fore_and_aft_goal_is_dudeneys_46_moves() {
    let f = Frogs::fore_and_aft();
    let s = solve(&f, f.goal(), &Options::default()).unwrap();
    assert_eq!(s.moves.len(), 46);
    assert_eq!(s.path.last(), Some(&f.goal()));
    s.replay(&f).unwrap();
}

/// The states of the last BFS layer, by a hash-set BFS.
fn deepest<P: Puzzle>(p: &P) -> (usize, Vec<u64>) {
    let mut scratch = p.scratch();
    let mut seen = std::collections::HashSet::from([p.start()]);
    let (mut layer, mut depth) = (vec![p.start()], 0);
    loop {
        let mut next = Vec::new();
        for &s in &layer {
            p.successors(s, &mut scratch, |_, t| {
                if seen.insert(t) {
                    next.push(t);
                }
            });
        }
        if next.is_empty() {
            return (depth, layer);
        }
        (layer, depth) = (next, depth + 1);
    }
}

#[test]
fn sliding_tile_deepest_states() {
    // The two 3x3 boards at depth 31 (OEIS A089473), by name and by index.
    let p = SlidingTile::new(3, 3).unwrap();
    let (depth, last) = deepest(&p);
    assert_eq!((depth, last.len()), (31, 2));
    let any = AnyPuzzle::parse("sliding-tile", Some("3x3")).unwrap();
    for &t in &last {
        let (s, names) = any.solve(&p.describe_state(t), &Options::default()).unwrap();
        assert_eq!(s.moves.len(), 31);
        assert_eq!(s.path.last(), Some(&t));
        assert!(names.iter().all(|n| n.starts_with("blank ")));
    }
    let p = SlidingTile::new(2, 4).unwrap();
    assert_eq!(solve(&p, p.start(), &Options::default()).unwrap().moves, vec![]);
}

#[test]
fn permutation_puzzles() {
    let p = Pancake::new(8).unwrap();
    let reversed = p.parse_state("7 6 5 4 3 2 1 0").unwrap();
    assert_eq!(solve(&p, reversed, &Options::default()).unwrap().moves, vec![8]);
    let t = walk(&p, 6, 3);
    let s = solve(&p, t, &Options::default()).unwrap();
    assert!(s.moves.len() <= 6);
    let p = TopSpin::new(9, 4).unwrap();
    let t = walk(&p, 5, 2);
    let s = solve(&p, t, &Options::default()).unwrap();
    assert!(s.moves.len() <= 5);
    s.replay(&p).unwrap();
}

#[test]
fn peg_solitaire_solution_by_layers() {
    let p = PegSolitaire::english();
    let t = walk(&p, 7, 5);
    let s = solve(&p, t, &Options::default()).unwrap();
    // Every jump removes a peg: the depth is exactly the number of jumps.
    assert_eq!(s.moves.len(), 7);
    assert!(p.describe_move(s.moves[0]).starts_with("jump "));
}

#[test]
fn errors_not_panics() {
    let bad = |family: &str, p: Option<&str>| matches!(AnyPuzzle::parse(family, p), Err(Error::Instance(_)));
    assert!(bad("sliding-tile", Some("1x1")));
    assert!(bad("sliding-tile", Some("3")));
    assert!(bad("sliding-tile", Some("axb")));
    assert!(bad("sliding-tile", Some("5x5")));
    assert!(bad("sliding-tile", None));
    assert!(bad("pancake", Some("40")));
    assert!(bad("pancake", Some("0")));
    assert!(bad("top-spin", Some("4,4")));
    assert!(bad("top-spin", Some("30,4")));
    assert!(bad("peg-solitaire", Some("7")));
    assert!(bad("chess", None));
    let p = AnyPuzzle::parse("top-spin", Some("7")).unwrap();
    assert_eq!(p.name(), "top-spin 7,4");
    // An odd permutation is not reachable in the folded (7,4) Top-Spin.
    assert!(matches!(p.solve("0 2 1 3 4 5 6", &Options::default()), Err(Error::State(_))));
    // Too little memory.
    let p = AnyPuzzle::parse("sliding-tile", Some("3x3")).unwrap();
    assert!(matches!(p.search(&Options { memory: Some(1000), ..Options::default() }), Err(Error::Memory { .. })));
    // An algorithm that does not apply.
    let p = AnyPuzzle::parse("pancake", Some("5")).unwrap();
    let one_bit = Options { algorithm: Some(warpcheck_puzzle::Algorithm::OneBitAlternation), ..Options::default() };
    assert!(matches!(p.search(&one_bit), Err(Error::Unsupported(_))));
    let pe = PegSolitaire::english();
    assert!(matches!(solve(&pe, pe.size(), &Options::default()), Err(Error::State(_))));
    // A board with more pegs than the start's is outside the index space.
    assert!(matches!(pe.index_of((1 << 33) - 1), Err(Error::State(_))));
}

mod no_panics {
    use proptest::prelude::*;
    use warpcheck_puzzle::AnyPuzzle;

    fn puzzles() -> Vec<AnyPuzzle> {
        [
            ("sliding-tile", Some("3x3")),
            ("sliding-tile", Some("2x4")),
            ("top-spin", Some("7,4")),
            ("top-spin", Some("8,3")),
            ("pancake", Some("6")),
            ("peg-solitaire", None),
            ("fore-and-aft", None),
        ]
        .into_iter()
        .map(|(f, p)| AnyPuzzle::parse(f, p).unwrap())
        .collect()
    }

    proptest! {
        #[test]
        fn parsing_arbitrary_text_is_an_answer(text in "[0-9 ,/x.obw]{0,40}", family in 0usize..7, param in "[0-9x,]{0,6}") {
            let _ = AnyPuzzle::parse(["sliding-tile", "top-spin", "pancake", "peg-solitaire", "fore-and-aft", "frogs-and-toads", "x"][family], Some(&param));
            for p in puzzles() {
                let options = warpcheck_puzzle::Options { memory: Some(1 << 16), ..Default::default() };
                let _ = p.solve(&text, &options);
                let _ = p.describe_state(u64::MAX);
            }
        }
    }
}
