//! The peg-solitaire counts beyond the plain BFS: positions up to the 8 symmetries of the
//! board, and positions from which one peg in the centre can still be reached
//! (`peg_solitaire.csv`); moves and dead ends.
//!
//! - A position is counted up to symmetry if its board mask is the smallest of its 8
//!   images (the reachable set from the symmetric central-vacancy start is closed under
//!   the symmetries, so this counts the orbits).
//! - A position `x` can still be reduced to one peg in the centre iff `complement(x)` is
//!   reachable from the start: playing backwards is playing forwards with pegs and
//!   holes exchanged, and the complement of the single centre peg is the start. The
//!   complement of a board at depth `d` lies at depth `31 - d`.
//!
//! - [`moves`]: the moves of every reachable board and the boards without one, the
//!   transitions and deadlocks a model checker reports for BEEM's peg-solitaire models.
//!
//! All need every layer of the search at once (`2^33` bits, 1 GiB).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::peg_solitaire::{PegSolitaire, Rules, HOLES};
use crate::bits::{for_each_bit, par_words};
use crate::rank::binomial;
use crate::search::one_bit::{self, Layers};
use crate::search::{Clock, Options};
use crate::{Error, Puzzle};

/// Per-depth counts of the four rows of `peg_solitaire.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PegCounts {
    /// All reachable positions.
    pub all: Vec<u64>,
    /// Reachable positions up to the 8 symmetries.
    pub symmetry_classes: Vec<u64>,
    /// Reachable positions that can still finish with one peg in the centre.
    pub centre_finish: Vec<u64>,
    /// The same, up to symmetry.
    pub centre_finish_classes: Vec<u64>,
}

/// Hole permutations of the 8 symmetries of the square, as byte-wise lookup tables:
/// `TABLES[s][b][v]` = image of byte `b` of a mask having value `v`.
fn symmetry_tables() -> Vec<[[u64; 256]; 5]> {
    let cells: Vec<(i32, i32)> = (0..7)
        .flat_map(|r| (0..7).map(move |c| (r, c)))
        .filter(|&(r, c)| (2..5).contains(&r) || (2..5).contains(&c))
        .collect();
    type Map = fn(i32, i32) -> (i32, i32);
    let maps: [Map; 8] = [
        |r, c| (r, c),
        |r, c| (c, 6 - r),
        |r, c| (6 - r, 6 - c),
        |r, c| (6 - c, r),
        |r, c| (r, 6 - c),
        |r, c| (6 - r, c),
        |r, c| (c, r),
        |r, c| (6 - c, 6 - r),
    ];
    maps.iter()
        .map(|f| {
            let image: Vec<u32> =
                cells.iter().map(|&(r, c)| cells.iter().position(|&x| x == f(r, c)).map_or(0, |i| i as u32)).collect();
            let mut t = [[0u64; 256]; 5];
            for (b, table) in t.iter_mut().enumerate() {
                for (v, out) in table.iter_mut().enumerate() {
                    for bit in 0..8 {
                        let hole = 8 * b + bit;
                        if v >> bit & 1 == 1 && hole < HOLES as usize {
                            *out |= 1 << image[hole];
                        }
                    }
                }
            }
            t
        })
        .collect()
}

/// Whether `mask` is the smallest of its images.
#[inline]
fn canonical(mask: u64, tables: &[[[u64; 256]; 5]]) -> bool {
    tables[1..].iter().all(|t| {
        let image = (0..5).fold(0, |acc, b| acc | t[b][(mask >> (8 * b) & 255) as usize]);
        image >= mask
    })
}

/// Searches the English board from the central vacancy, keeping every layer, and counts
/// the four rows.
pub fn analyse(options: &Options) -> Result<PegCounts, Error> {
    let p = PegSolitaire::english();
    let (all, layers) = search_keeping_layers(&p, options)?;
    let tables = symmetry_tables();
    let full = (1u64 << HOLES) - 1;
    let counts = per_board(&p, &layers, all.len(), |board, d| {
        let sym = canonical(board, &tables);
        let complement = full & !board;
        let finish = p.index_of(complement).is_ok_and(|c| layers.contains(c) == Some(HOLES - 2 - d));
        [u64::from(sym), u64::from(finish), u64::from(sym && finish)]
    });
    let column = |k: usize| counts.iter().map(|c| c[k]).collect();
    debug_assert_eq!(p.size(), (1 << HOLES) - 1);
    Ok(PegCounts { symmetry_classes: column(0), centre_finish: column(1), centre_finish_classes: column(2), all })
}

/// The state graph of a peg-solitaire game from the central vacancy, as a model
/// checker counts it: per depth, the reachable boards, their moves (transitions) and
/// the boards without a move (deadlocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveCounts {
    pub states: Vec<u64>,
    pub moves: Vec<u64>,
    pub dead_ends: Vec<u64>,
}

/// Searches the board under `rules` from the central vacancy, keeping every layer, and
/// counts each reachable board's moves.
pub fn moves(rules: Rules, options: &Options) -> Result<MoveCounts, Error> {
    let p = PegSolitaire::with_rules(rules);
    let (states, layers) = search_keeping_layers(&p, options)?;
    let counts = per_board(&p, &layers, states.len(), |board, _| {
        let moves = p.moves_of(board);
        [moves, u64::from(moves == 0)]
    });
    let column = |k: usize| counts.iter().map(|c| c[k]).collect();
    Ok(MoveCounts { moves: column(0), dead_ends: column(1), states })
}

/// The one-bit layered search of `p` with every layer kept: states per depth, layers.
fn search_keeping_layers(p: &PegSolitaire, options: &Options) -> Result<(Vec<u64>, Layers), Error> {
    let clock = Clock::silent();
    let (report, layers) = one_bit::layers(p, options.allowed(), true, None, u32::MAX, &clock)?;
    Ok((report.layers.unwrap_or_default(), layers))
}

/// Sums `count(board, depth)` over the reachable boards of each of the first `depths`
/// layers, on all threads.
fn per_board<const N: usize>(
    p: &PegSolitaire,
    layers: &Layers,
    depths: usize,
    count: impl Fn(u64, u32) -> [u64; N] + Sync,
) -> Vec<[u64; N]> {
    (0..depths)
        .map(|d| {
            let range = layers.ranges[d].clone();
            let Some(Some(bits)) = layers.bits.get(d) else { return [0; N] };
            let pegs = p.board(range.start).count_ones();
            let found: [AtomicU64; N] = std::array::from_fn(|_| AtomicU64::new(0));
            par_words(
                0..range.end - range.start,
                || (),
                |_, w, mask| {
                    let word = bits.words()[w].load(Relaxed) & mask;
                    let mut local = [0u64; N];
                    for_each_bit(word, w as u64 * 64, |i| {
                        let c = count(binomial::unrank(i, HOLES, pegs), d as u32);
                        local.iter_mut().zip(c).for_each(|(l, c)| *l += c);
                    });
                    for (f, l) in found.iter().zip(local) {
                        if l > 0 {
                            f.fetch_add(l, Relaxed);
                        }
                    }
                },
            );
            found.map(|f| f.into_inner())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_preserve_the_board_and_the_start() {
        let tables = symmetry_tables();
        let start = ((1u64 << HOLES) - 1) & !(1 << 16);
        for t in &tables {
            let image = (0..5).fold(0, |acc, b| acc | t[b][(start >> (8 * b) & 255) as usize]);
            assert_eq!(image, start);
        }
        assert!(canonical(start, &tables));
        // Of the 4 first moves, one is canonical.
        let p = PegSolitaire::english();
        let mut n = 0;
        p.successors(p.start(), &mut (), |_, s| n += usize::from(canonical(p.board(s), &tables)));
        assert_eq!(n, 1);
    }
}
