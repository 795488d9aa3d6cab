//! The sliding-tile puzzle, R x C (`../shared/games/README.md`, "Sliding-tile puzzle").
//!
//! Cells are numbered row-major `0..N` (N = RC). The start is the blank in cell 0 and
//! tile `t` in cell `t`. A move exchanges the blank with an orthogonal neighbour; the
//! move's name is the direction the *blank* moves (`U`, `D`, `L`, `R`).
//!
//! Index: the thesis's blank buckets (Alg. 14.3). `index = b · H + i`, where `b` is the
//! blank's cell, `H = (N-1)!/2`, and `i` is the Myrvold-Ruskey rank mod `H` of the tile
//! sequence (the tiles read row-major, skipping the blank, tile `t` written as `t-1`).
//! Only one parity of sequence is reachable per bucket: `p_req(b) = (row(b) mod 2)` when
//! C is even (the start's blank is in row 0 and its sequence is the identity), and even
//! when C is odd. Unranking fixes the parity by Theorem 5. The index space is exactly
//! `N!/2`, every index reachable.
//!
//! Moves on the sequence: a horizontal move keeps it (only the bucket changes, no
//! ranking); blank down (b → b+C) moves the tile at sequence index b+C-1 to index b;
//! blank up (b → b-C) moves the tile at index b-C to index b-1.
//!
//! Move alternation: every move changes the blank's checkerboard colour
//! `(row + col) mod 2`, so the buckets of one colour form the alternation classes.

use std::ops::Range;

use crate::rank::permutation::{self, FACTORIAL};
use crate::{Error, Move, Property, Puzzle};

/// Largest number of cells: the tile sequence (N-1 entries) must have a `u64` rank and
/// N!/2 must fit a `u64`.
pub const MAX_CELLS: u32 = 20;

/// An R x C sliding-tile puzzle.
#[derive(Clone, Debug)]
pub struct SlidingTile {
    rows: u32,
    cols: u32,
    /// `(N-1)!/2`, the size of a bucket.
    bucket: u64,
}

const DIRECTIONS: [&str; 4] = ["U", "D", "L", "R"];

impl SlidingTile {
    /// The `rows` x `cols` puzzle: both at least 2, at most 20 cells.
    pub fn new(rows: u32, cols: u32) -> Result<SlidingTile, Error> {
        if rows < 2 || cols < 2 {
            return Err(Error::Instance(format!("sliding-tile {rows}x{cols}: needs at least 2 rows and 2 columns")));
        }
        let n = rows.checked_mul(cols).filter(|&n| n <= MAX_CELLS).ok_or_else(|| {
            Error::Instance(format!(
                "sliding-tile {rows}x{cols}: at most {MAX_CELLS} cells (the index must fit 64 bits)"
            ))
        })?;
        Ok(SlidingTile { rows, cols, bucket: FACTORIAL[n as usize - 1] / 2 })
    }

    /// Rows and columns.
    pub fn dims(&self) -> (u32, u32) {
        (self.rows, self.cols)
    }

    fn cells(&self) -> usize {
        (self.rows * self.cols) as usize
    }

    /// The parity (true = odd) of the tile sequences reachable with the blank in `b`.
    fn required_parity(&self, b: usize) -> bool {
        self.cols.is_multiple_of(2) && (b / self.cols as usize) % 2 == 1
    }

    /// The checkerboard colour of cell `b`.
    fn colour(&self, b: usize) -> usize {
        (b / self.cols as usize + b % self.cols as usize) % 2
    }

    /// Board (cell → tile, 0 = blank) of an index.
    pub fn board(&self, index: u64) -> Vec<u8> {
        let n = self.cells();
        let b = (index / self.bucket) as usize;
        let mut seq = [0u8; 32];
        permutation::unrank_folded(index % self.bucket, self.required_parity(b), &mut seq[..n - 1]);
        let mut board = Vec::with_capacity(n);
        board.extend(seq[..b].iter().map(|t| t + 1));
        board.push(0);
        board.extend(seq[b..n - 1].iter().map(|t| t + 1));
        board
    }

    /// The index of a board (cell → tile, 0 = blank), if it is reachable.
    pub fn index_of(&self, board: &[u8]) -> Result<u64, Error> {
        let n = self.cells();
        if board.len() != n || !permutation::is_permutation(board) {
            return Err(Error::State(format!("expected a permutation of 0..{n} (0 = blank), row-major")));
        }
        let b = board.iter().position(|&t| t == 0).unwrap_or(0);
        let seq: Vec<u8> = board.iter().filter(|&&t| t != 0).map(|t| t - 1).collect();
        if permutation::inversion_parity(&seq) != self.required_parity(b) {
            return Err(Error::State("the tiles' parity makes this board unreachable from the start".into()));
        }
        Ok(b as u64 * self.bucket + permutation::rank_folded(&seq))
    }
}

impl Puzzle for SlidingTile {
    type Scratch = ();

    fn name(&self) -> String {
        format!("sliding-tile {}x{}", self.rows, self.cols)
    }

    fn size(&self) -> u64 {
        self.cells() as u64 * self.bucket
    }

    fn start(&self) -> u64 {
        // Blank in cell 0 (bucket 0), tiles in order: the identity sequence, whose
        // Myrvold-Ruskey rank is not 0.
        permutation::rank_folded(&(0..self.cells() as u8 - 1).collect::<Vec<_>>())
    }

    fn scratch(&self) {}

    #[inline]
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let n = self.cells();
        let c = self.cols as usize;
        let b = (index / self.bucket) as usize;
        let within = index % self.bucket;
        let (row, col) = (b / c, b % c);
        // Horizontal moves: same sequence, neighbouring bucket.
        if col > 0 {
            emit(2, (b as u64 - 1) * self.bucket + within);
        }
        if col + 1 < c {
            emit(3, (b as u64 + 1) * self.bucket + within);
        }
        let mut seq = [0u8; 32];
        let seq = &mut seq[..n - 1];
        permutation::unrank_folded(within, self.required_parity(b), seq);
        if row > 0 {
            // Blank up: the tile at sequence index b-C moves to index b-1.
            let mut s = [0u8; 32];
            let s = &mut s[..n - 1];
            s.copy_from_slice(seq);
            s[b - c..b].rotate_left(1);
            emit(0, (b - c) as u64 * self.bucket + permutation::rank_folded(s));
        }
        if row + 1 < self.rows as usize {
            // Blank down: the tile at sequence index b+C-1 moves to index b.
            seq[b..b + c].rotate_right(1);
            emit(1, (b + c) as u64 * self.bucket + permutation::rank_folded(seq));
        }
    }

    fn property(&self) -> Property {
        let mut colours: [Vec<Range<u64>>; 2] = [Vec::new(), Vec::new()];
        for b in 0..self.cells() {
            colours[self.colour(b)].push(b as u64 * self.bucket..(b as u64 + 1) * self.bucket);
        }
        Property::Alternation { colours }
    }

    fn closed_form_states(&self) -> Option<u64> {
        Some(self.size())
    }

    fn describe_move(&self, mv: Move) -> String {
        format!("blank {}", DIRECTIONS.get(mv as usize).unwrap_or(&"?"))
    }

    fn describe_state(&self, index: u64) -> String {
        let board = self.board(index);
        board
            .chunks(self.cols as usize)
            .map(|row| row.iter().map(u8::to_string).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// Tiles row-major, `0` for the blank, separated by spaces, commas or `/`.
    fn parse_state(&self, text: &str) -> Result<u64, Error> {
        self.index_of(&super::parse_numbers(text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_round_trip_and_moves_are_blank_swaps() {
        for (r, c) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)] {
            let p = SlidingTile::new(r, c).unwrap();
            assert_eq!(p.board(p.start()), (0..(r * c) as u8).collect::<Vec<_>>());
            for index in (0..p.size()).step_by(7) {
                let board = p.board(index);
                assert_eq!(p.index_of(&board), Ok(index));
                let blank = board.iter().position(|&t| t == 0).unwrap();
                let mut count = 0;
                p.successors(index, &mut (), |mv, s| {
                    count += 1;
                    let next = p.board(s);
                    let nb = next.iter().position(|&t| t == 0).unwrap();
                    let want = match mv {
                        0 => blank - c as usize,
                        1 => blank + c as usize,
                        2 => blank - 1,
                        _ => blank + 1,
                    };
                    assert_eq!(nb, want);
                    let mut swapped = board.clone();
                    swapped.swap(blank, nb);
                    assert_eq!(next, swapped);
                });
                let (row, col) = (blank / c as usize, blank % c as usize);
                let degree = usize::from(row > 0)
                    + usize::from(row + 1 < r as usize)
                    + usize::from(col > 0)
                    + usize::from(col + 1 < c as usize);
                assert_eq!(count, degree);
            }
        }
    }

    #[test]
    fn bad_instances_are_errors() {
        assert!(SlidingTile::new(1, 1).is_err());
        assert!(SlidingTile::new(1, 5).is_err());
        assert!(SlidingTile::new(5, 5).is_err());
        assert!(SlidingTile::new(u32::MAX, u32::MAX).is_err());
        assert!(SlidingTile::new(4, 5).is_ok());
        let p = SlidingTile::new(2, 2).unwrap();
        assert!(p.parse_state("0 2 1 3").is_err());
        assert!(p.parse_state("0 1 2").is_err());
        assert_eq!(p.parse_state("0 1 2 3"), Ok(p.start()));
    }
}
