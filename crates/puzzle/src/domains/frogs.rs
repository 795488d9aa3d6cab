//! Frogs-and-Toads (the thesis's 31-cell board) and Fore-and-Aft (17 cells)
//! (`../shared/games/README.md`, "Frogs-and-Toads (thesis variant) and Fore-and-Aft").
//!
//! The board of side `s` is a `(2s-1) x (2s-1)` grid restricted to two `s x s`
//! sub-arrays in opposite corners, overlapping in the centre cell: `2s² - 1` cells,
//! numbered row-major. Frogs-and-Toads is `s = 4`, Fore-and-Aft `s = 3`. The start has
//! `s² - 1` black pieces on the top-left sub-array and as many white ones on the
//! bottom-right, the centre empty; the goal exchanges the colours. A move brings a piece
//! into the hole: a slide from an orthogonal neighbour or a jump from two cells away
//! over the (always occupied) middle cell, either colour, any direction. Every move can
//! be undone.
//!
//! Index ([`FrogIndex`]): by default the hole `h` times the colex rank of the black set
//! among the other `n-1` cells (`n · C(n-1, k)` indices); or the thesis's multinomial
//! rank (Alg. 13.4/13.5, black = 1, white = 2). Both are bijections onto
//! `0..M(n; k, k)`, and every index is reachable.

use crate::rank::{binomial, multinomial};
use crate::{Error, Move, Puzzle};

/// The index function of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrogIndex {
    /// Hole × colex rank of the black set (the reference's method A).
    HoleColex,
    /// Multinomial rank of the board (the thesis's Alg. 13.4/13.5, method B).
    Multinomial,
}

/// Frogs-and-Toads on two `s x s` sub-arrays.
#[derive(Clone, Debug)]
pub struct Frogs {
    side: u32,
    cells: u32,
    pieces: u32,
    index: FrogIndex,
    /// Grid coordinates of every cell.
    coords: Vec<(i32, i32)>,
    /// Per hole: (move, source cell) of every move into it.
    moves: Vec<Vec<(Move, u32)>>,
    /// `C(n-1, k)`.
    per_hole: u64,
    start: u64,
}

/// Directions of a piece's move, as named in solutions.
const DIRECTIONS: [(i32, i32, &str); 4] = [(-1, 0, "up"), (1, 0, "down"), (0, -1, "left"), (0, 1, "right")];

impl Frogs {
    /// The thesis's Frogs-and-Toads (two 4x4 on 7x7, 31 cells, 15 + 15 pieces).
    pub fn frogs_and_toads() -> Frogs {
        Frogs::new(4, FrogIndex::HoleColex).expect("side 4 is valid")
    }

    /// Fore-and-Aft (two 3x3 on 5x5, 17 cells, 8 + 8 pieces).
    pub fn fore_and_aft() -> Frogs {
        Frogs::new(3, FrogIndex::HoleColex).expect("side 3 is valid")
    }

    /// Two `side x side` sub-arrays, `2 <= side <= 5` (at most 49 cells, 64-bit masks).
    pub fn new(side: u32, index: FrogIndex) -> Result<Frogs, Error> {
        if !(2..=5).contains(&side) {
            return Err(Error::Instance(format!("frogs: sub-array side {side} must be 2 to 5")));
        }
        let s = side as i32;
        let coords: Vec<(i32, i32)> = (0..2 * s - 1)
            .flat_map(|r| (0..2 * s - 1).map(move |c| (r, c)))
            .filter(|&(r, c)| (r < s && c < s) || (r >= s - 1 && c >= s - 1))
            .collect();
        let cell = |r: i32, c: i32| coords.iter().position(|&x| x == (r, c)).map(|i| i as u32);
        let moves = coords
            .iter()
            .map(|&(r, c)| {
                let mut m = Vec::new();
                for (d, &(dr, dc, _)) in DIRECTIONS.iter().enumerate() {
                    // The piece comes from the opposite side and moves in direction d.
                    if let Some(src) = cell(r - dr, c - dc) {
                        m.push((2 * d as Move, src));
                    }
                    if let (Some(_), Some(src)) = (cell(r - dr, c - dc), cell(r - 2 * dr, c - 2 * dc)) {
                        m.push((2 * d as Move + 1, src));
                    }
                }
                m
            })
            .collect();
        let centre = cell(s - 1, s - 1).unwrap_or(0);
        let cells = coords.len() as u32;
        let pieces = side * side - 1;
        let mut f = Frogs {
            side,
            cells,
            pieces,
            index,
            coords,
            moves,
            per_hole: binomial::binomial(cells - 1, pieces),
            start: 0,
        };
        let black = (0..cells).filter(|&i| f.coords[i as usize].0 < s && f.coords[i as usize].1 < s && i != centre);
        f.start = f.index_of(centre, black.fold(0, |m, i| m | 1 << i));
        Ok(f)
    }

    /// Cells of the board.
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// Pieces of each colour.
    pub fn pieces(&self) -> u32 {
        self.pieces
    }

    /// Indices per hole, `C(cells - 1, pieces)` (the hole-colex index).
    pub fn per_hole(&self) -> u64 {
        self.per_hole
    }

    /// The source cells of the moves into `hole`, in the order of the successors.
    pub fn sources(&self, hole: u32) -> impl Iterator<Item = u32> + '_ {
        self.moves[hole as usize].iter().map(|&(_, src)| src)
    }

    /// Whether indices are hole × colex rank (the GPU's index).
    pub fn hole_colex(&self) -> bool {
        self.index == FrogIndex::HoleColex
    }

    /// The goal: the start's colours exchanged.
    pub fn goal(&self) -> u64 {
        let (hole, black) = self.position(self.start);
        let white = self.all() & !black & !(1 << hole);
        self.index_of(hole, white)
    }

    fn all(&self) -> u64 {
        (1u64 << self.cells) - 1
    }

    /// The index of the position with the hole in `hole` and black pieces on `black`.
    pub fn index_of(&self, hole: u32, black: u64) -> u64 {
        match self.index {
            FrogIndex::HoleColex => {
                let low = black & ((1 << hole) - 1);
                let high = black >> (hole + 1) << hole;
                u64::from(hole) * self.per_hole + binomial::colex_rank(low | high)
            }
            FrogIndex::Multinomial => {
                let mut board = [0u8; 64];
                let board = &mut board[..self.cells as usize];
                for (i, cell) in board.iter_mut().enumerate() {
                    *cell = if i as u32 == hole {
                        0
                    } else if black >> i & 1 == 1 {
                        1
                    } else {
                        2
                    };
                }
                multinomial::rank(board)
            }
        }
    }

    /// The hole and the black set of an index.
    pub fn position(&self, index: u64) -> (u32, u64) {
        match self.index {
            FrogIndex::HoleColex => {
                let hole = (index / self.per_hole) as u32;
                let set = binomial::colex_unrank(index % self.per_hole, self.cells - 1, self.pieces);
                let low = set & ((1 << hole) - 1);
                let high = set >> hole << (hole + 1);
                (hole, low | high)
            }
            FrogIndex::Multinomial => {
                let mut board = [0u8; 64];
                let board = &mut board[..self.cells as usize];
                multinomial::unrank(index, self.pieces, self.pieces, board);
                let hole = board.iter().position(|&c| c == 0).unwrap_or(0) as u32;
                let black = board.iter().enumerate().filter(|(_, &c)| c == 1).fold(0, |m, (i, _)| m | 1 << i);
                (hole, black)
            }
        }
    }
}

impl Puzzle for Frogs {
    type Scratch = ();

    fn name(&self) -> String {
        match self.side {
            4 => "frogs-and-toads".into(),
            3 => "fore-and-aft".into(),
            s => format!("frogs {s}"),
        }
    }

    fn size(&self) -> u64 {
        u64::from(self.cells) * self.per_hole
    }

    fn start(&self) -> u64 {
        self.start
    }

    fn scratch(&self) {}

    #[inline]
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let (hole, black) = self.position(index);
        for &(mv, src) in &self.moves[hole as usize] {
            let black = if black >> src & 1 == 1 { black ^ (1 << src) ^ (1 << hole) } else { black };
            emit(mv, self.index_of(src, black));
        }
    }

    fn closed_form_states(&self) -> Option<u64> {
        Some(self.size())
    }

    fn describe_move(&self, mv: Move) -> String {
        let (_, _, dir) = DIRECTIONS[(mv / 2) as usize % 4];
        format!("{} {dir}", if mv.is_multiple_of(2) { "slide" } else { "jump" })
    }

    fn describe_state(&self, index: u64) -> String {
        let (hole, black) = self.position(index);
        let g = 2 * self.side as i32 - 1;
        (0..g)
            .map(|r| {
                (0..g)
                    .map(|c| match self.coords.iter().position(|&x| x == (r, c)) {
                        Some(i) if i as u32 == hole => '.',
                        Some(i) if black >> i & 1 == 1 => 'b',
                        Some(_) => 'w',
                        None => ' ',
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// One symbol per cell row-major: `b` black, `w` white, `.` the hole; spaces and `/`
    /// are ignored.
    fn parse_state(&self, text: &str) -> Result<u64, Error> {
        let symbols: Vec<char> = text.chars().filter(|c| !c.is_whitespace() && *c != '/').collect();
        let count = |ch| symbols.iter().filter(|&&c| c == ch).count() as u32;
        if symbols.len() as u32 != self.cells
            || count('.') != 1
            || count('b') != self.pieces
            || count('w') != self.pieces
        {
            return Err(Error::State(format!(
                "expected {} cells: {} `b`, {} `w` and one `.`",
                self.cells, self.pieces, self.pieces
            )));
        }
        let hole = symbols.iter().position(|&c| c == '.').unwrap_or(0) as u32;
        let black = symbols.iter().enumerate().filter(|(_, &c)| c == 'b').fold(0, |m, (i, _)| m | 1 << i);
        Ok(self.index_of(hole, black))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_and_indices() {
        for index in [FrogIndex::HoleColex, FrogIndex::Multinomial] {
            let f = Frogs::new(3, index).unwrap();
            assert_eq!(f.cells, 17);
            assert_eq!(f.size(), 218_790);
            for i in (0..f.size()).step_by(97) {
                let (h, b) = f.position(i);
                assert_eq!(b >> h & 1, 0);
                assert_eq!(b.count_ones(), 8);
                assert_eq!(f.index_of(h, b), i);
                assert_eq!(f.parse_state(&f.describe_state(i)), Ok(i));
                f.successors(i, &mut (), |_, s| {
                    let mut back = false;
                    f.successors(s, &mut (), |_, t| back |= t == i);
                    assert!(back, "moves are reversible");
                });
            }
            assert_eq!(f.describe_state(f.start()), "bbb  /bbb  /bb.ww/  www/  www");
            assert_eq!(f.describe_state(f.goal()), "www  /www  /ww.bb/  bbb/  bbb");
        }
        let f = Frogs::frogs_and_toads();
        assert_eq!(f.cells, 31);
        assert_eq!(f.size(), 4_808_643_120);
        assert!(Frogs::new(6, FrogIndex::HoleColex).is_err());
    }
}
