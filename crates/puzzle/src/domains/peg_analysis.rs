//! The peg-solitaire counts beyond the plain BFS (`peg_solitaire.csv`): positions up to
//! the 8 symmetries of the board, and positions from which one peg in the centre can
//! still be reached.
//!
//! - A position is counted up to symmetry if its board mask is the smallest of its 8
//!   images (the reachable set from the symmetric central-vacancy start is closed under
//!   the symmetries, so this counts the orbits).
//! - A position `x` can still be reduced to one peg in the centre iff `complement(x)` is
//!   reachable from the start: playing backwards is playing forwards with pegs and
//!   holes exchanged, and the complement of the single centre peg is the start. The
//!   complement of a board at depth `d` lies at depth `31 - d`.
//!
//! Both need every layer of the search at once (`2^33` bits, 1 GiB, for the English
//! board).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::peg_solitaire::{PegSolitaire, HOLES};
use crate::bits::{for_each_bit, par_words};
use crate::rank::binomial;
use crate::search::{one_bit, Clock, Options};
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
    let clock = Clock::silent();
    let (report, layers) = one_bit::layers(&p, options.allowed(), true, None, u32::MAX, &clock)?;
    let all = report.layers.unwrap_or_default();
    let tables = symmetry_tables();
    let full = (1u64 << HOLES) - 1;
    let depths = all.len();
    let mut counts = [vec![0; depths], vec![0; depths], vec![0; depths]];
    for d in 0..depths {
        let range = layers.ranges[d].clone();
        let Some(Some(bits)) = layers.bits.get(d) else { continue };
        let pegs = p.board(range.start).count_ones();
        let found = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
        par_words(
            0..range.end - range.start,
            || (),
            |_, w, mask| {
                let word = bits.words()[w].load(Relaxed) & mask;
                let mut local = [0u64; 3];
                for_each_bit(word, w as u64 * 64, |i| {
                    let board = binomial::unrank(i, HOLES, pegs);
                    let sym = canonical(board, &tables);
                    let complement = full & !board;
                    let finish = p.index_of(complement).is_ok_and(|c| layers.contains(c) == Some(HOLES - 2 - d as u32));
                    local[0] += u64::from(sym);
                    local[1] += u64::from(finish);
                    local[2] += u64::from(sym && finish);
                });
                for (f, l) in found.iter().zip(local) {
                    if l > 0 {
                        f.fetch_add(l, Relaxed);
                    }
                }
            },
        );
        for (c, f) in counts.iter_mut().zip(&found) {
            c[d] = f.load(Relaxed);
        }
    }
    let [symmetry_classes, centre_finish, centre_finish_classes] = counts;
    debug_assert_eq!(p.size(), (1 << HOLES) - 1);
    Ok(PegCounts { all, symmetry_classes, centre_finish, centre_finish_classes })
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
