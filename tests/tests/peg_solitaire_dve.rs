//! BEEM's peg solitaire models against the puzzle's perfect-hash search: the DVE model
//! explored level by level (a generic engine over the model's 49-cell array) and the
//! puzzle's bit-vector BFS over board indices (hand-written jumps) must agree on every
//! layer and on the moves, so that the puzzle's count of a whole space stands for the
//! model's. `peg_solitaire.2` is the classic game, `peg_solitaire.3` adds diagonal jumps.

use std::collections::HashSet;
use std::hash::Hash;

use warpcheck_conformance::{beem_dir, load_file};
use warpcheck_model::Model;
use warpcheck_puzzle::domains::peg_analysis::moves;
use warpcheck_puzzle::domains::peg_solitaire::{PegSolitaire, Rules};
use warpcheck_puzzle::search::{search, Options};
use warpcheck_puzzle::Puzzle;

/// Breadth first from `start` down to `depth`: the states of each layer, the steps of
/// the states above `depth` and those of them without a step. `successors(s, emit)`
/// emits each step's target.
fn layers<S: Clone + Eq + Hash>(
    start: S,
    depth: usize,
    mut successors: impl FnMut(&S, &mut dyn FnMut(S)),
) -> (Vec<u64>, u64, u64) {
    let mut seen: HashSet<S> = HashSet::from([start.clone()]);
    let mut level = vec![start];
    let (mut layers, mut steps, mut dead) = (vec![1u64], 0u64, 0u64);
    for _ in 0..depth {
        let mut next = Vec::new();
        for state in &level {
            let before = steps;
            successors(state, &mut |t| {
                steps += 1;
                if seen.insert(t.clone()) {
                    next.push(t);
                }
            });
            dead += u64::from(steps == before);
        }
        layers.push(next.len() as u64);
        level = next;
    }
    (layers, steps, dead)
}

/// The DVE model's [`layers`].
fn dve_layers(instance: &str, depth: usize) -> (Vec<u64>, u64, u64) {
    let program = load_file(&beem_dir().join("peg_solitaire").join(format!("{instance}.dve"))).model;
    let mut generator = program.successors();
    layers(program.initial_state(), depth, |state, emit| {
        generator.successors(state, |_, s| emit(s.expect("peg solitaire raises no evaluation error").to_vec()));
    })
}

/// The puzzle's [`layers`] over board indices; the layers are also the bit-vector
/// search's.
fn puzzle_layers(rules: Rules, depth: u32) -> (Vec<u64>, u64, u64) {
    let puzzle = PegSolitaire::with_rules(rules);
    let walked = layers(puzzle.start(), depth as usize, |&s, emit| puzzle.successors(s, &mut (), |_, t| emit(t)));
    let report = search(&puzzle, &Options { max_depth: Some(depth), ..Options::default() }).unwrap();
    assert_eq!(report.layers.as_ref(), Some(&walked.0), "the bit-vector search's layers and the walk's");
    walked
}

/// Holes of the 7x7 grid: the cross of 33 (row-major), as the puzzle numbers them.
fn holes() -> Vec<usize> {
    (0..49).filter(|&i| (2..5).contains(&(i / 7)) || (2..5).contains(&(i % 7))).collect()
}

/// The DVE model's successors of random boards against the puzzle's jumps: on
/// 3,000 boards (every peg count) the two give the same boards, so every one of the
/// model's jumps is one of the puzzle's and the other way round.
#[test]
fn the_puzzle_has_the_models_jumps() {
    for (instance, rules) in [("peg_solitaire.2", Rules::Orthogonal), ("peg_solitaire.3", Rules::Diagonal)] {
        let program = load_file(&beem_dir().join("peg_solitaire").join(format!("{instance}.dve"))).model;
        let slot = |name: &str, index: u32| {
            let v = program.variables.iter().find(|v| v.name == name && v.process.is_none()).unwrap();
            v.first + index
        };
        let holes = holes();
        let puzzle = PegSolitaire::with_rules(rules);
        let mut successors = program.successors();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut jumps = 0u64;
        for k in 0..3000u64 {
            // A board where each hole has a peg with probability (k mod 34) / 34.
            let board = (0..33).filter(|_| random() % 34 < k % 34).fold(0u64, |b, h| b | 1 << h);
            let mut values = program.initial_values.clone();
            for (h, &cell) in holes.iter().enumerate() {
                values[slot("a", cell as u32) as usize] = (board >> h & 1) as i32;
            }
            values[slot("peg_count", 0) as usize] = board.count_ones() as i32;
            let state = program.layout.encode(&values);
            let mut from_model = Vec::new();
            successors.successors(&state, |_, next| {
                let values = program.layout.decode(next.expect("no evaluation error"));
                let pegs = holes.iter().enumerate().filter(|&(_, &c)| values[slot("a", c as u32) as usize] == 1);
                from_model.push(pegs.fold(0u64, |b, (h, _)| b | 1 << h));
            });
            let mut from_puzzle = Vec::new();
            if (2..=32).contains(&board.count_ones()) {
                let index = puzzle.index_of(board).unwrap();
                puzzle.successors(index, &mut (), |_, t| from_puzzle.push(puzzle.board(t)));
            }
            from_model.sort_unstable();
            from_puzzle.sort_unstable();
            assert_eq!(from_model, from_puzzle, "{instance}: successors of board {board:#035b}");
            jumps += from_puzzle.len() as u64;
        }
        assert!(jumps > 3 * 3000, "{instance}: the boards allow few jumps ({jumps})");
    }
}

#[test]
fn the_puzzle_plays_beems_peg_solitaire_models() {
    for (instance, rules) in [("peg_solitaire.2", Rules::Orthogonal), ("peg_solitaire.3", Rules::Diagonal)] {
        let depth = 6;
        let dve = dve_layers(instance, depth);
        let puzzle = puzzle_layers(rules, depth as u32);
        assert_eq!(dve, puzzle, "{instance}: (layers, transitions, states without a move) to depth {depth}");
    }
}

/// The whole spaces by the puzzle's search (the English board: 187,636,299 boards;
/// with diagonals: billions, and 1 GiB of layers) against the engines' counts of the
/// DVE models in `tests/data/beem-unknown-counts.csv`: states, transitions, deadlocks.
#[test]
#[ignore = "minutes on 16 cores: `cargo test --release -p warpcheck-conformance --test peg_solitaire_dve -- --ignored --nocapture`"]
fn whole_spaces_match_the_engines_counts() {
    let counts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/beem-unknown-counts.csv")).unwrap();
    for (instance, rules) in [("peg_solitaire.2", Rules::Orthogonal), ("peg_solitaire.3", Rules::Diagonal)] {
        let started = std::time::Instant::now();
        let c = moves(rules, &Options::default()).unwrap();
        let got = [c.states.iter().sum::<u64>(), c.moves.iter().sum(), c.dead_ends.iter().sum()];
        eprintln!("{instance}: {got:?} (states, transitions, deadlocks), {:.1} s", started.elapsed().as_secs_f64());
        let row = counts
            .lines()
            .find(|l| l.starts_with(&format!("{instance},")))
            .unwrap_or_else(|| panic!("{instance}: no row in beem-unknown-counts.csv"));
        let want: Vec<u64> = row.split(',').skip(1).take(3).map(|x| x.parse().unwrap()).collect();
        assert_eq!(got.to_vec(), want, "{instance}: (states, transitions, deadlocks)");
    }
}
