//! Peg solitaire on the English 33-hole board (`../shared/games/README.md`, "Peg
//! solitaire").
//!
//! The board is a 7x7 grid without its four 2x2 corners; holes are numbered row-major
//! `0..33`, the centre is hole 16. A move (one of the board's 76 jumps `(a, b, c)`) takes
//! a peg from `a` over a peg in `b` into the empty hole `c` and removes the peg in `b`.
//! [`Rules::Diagonal`] adds the 60 jumps along diagonals (136 in all), as BEEM's
//! `peg_solitaire.3` plays. The start has pegs everywhere except the centre (or, for
//! tests and for solving from other positions, any given board).
//!
//! Every move removes one peg, so the BFS depth of a board is the start's pegs minus
//! its pegs: the layer-selection property (thesis Def. 32). The index follows it: layer
//! `d` (boards of `p = p_0 - d` pegs, `p_0` the start's) is the range
//! `offset(d) .. offset(d) + C(33, p)`, and inside it a board's index is its binomial
//! rank (Alg. 13.2/13.3, 0-based, [`crate::rank::binomial`]). So the one-bit BFS keeps
//! one vector of `C(33, p)` bits per peg count, as the thesis does; from the central
//! vacancy the index space is `2^33 - 1` (every board but the full one).
//!
//! Moves are not reversible; [`Puzzle::predecessors`] plays the jumps backwards.

use std::ops::Range;

use crate::rank::binomial;
use crate::{Error, Move, Property, Puzzle};

/// Holes on the board.
pub const HOLES: u32 = 33;
/// The centre hole.
pub const CENTRE: u32 = 16;

/// The (row, column) of every hole on the 7x7 grid.
fn coordinates() -> Vec<(i32, i32)> {
    (0..7)
        .flat_map(|r| (0..7).map(move |c| (r, c)))
        .filter(|&(r, c)| (2..5).contains(&r) || (2..5).contains(&c))
        .collect()
}

/// Which way pegs jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Along rows and columns: the classic game.
    Orthogonal,
    /// Along rows, columns and diagonals.
    Diagonal,
}

impl Rules {
    /// The directions of a jump, orthogonal ones first.
    fn directions(self) -> &'static [(i32, i32)] {
        const ALL: [(i32, i32); 8] = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)];
        match self {
            Rules::Orthogonal => &ALL[..4],
            Rules::Diagonal => &ALL,
        }
    }
}

/// The jumps `(from, over, to)` of the board under `rules` (76 orthogonal, 136 with
/// the diagonals).
pub fn jumps(rules: Rules) -> Vec<(u32, u32, u32)> {
    let cells = coordinates();
    let hole = |r: i32, c: i32| cells.iter().position(|&x| x == (r, c)).map(|i| i as u32);
    let mut jumps = Vec::new();
    for (a, &(r, c)) in cells.iter().enumerate() {
        for &(dr, dc) in rules.directions() {
            if let (Some(b), Some(to)) = (hole(r + dr, c + dc), hole(r + 2 * dr, c + 2 * dc)) {
                jumps.push((a as u32, b, to));
            }
        }
    }
    jumps
}

/// English peg solitaire from a start board.
#[derive(Clone, Debug)]
pub struct PegSolitaire {
    rules: Rules,
    start: u64,
    start_pegs: u32,
    /// `offsets[d]` = first index of layer d; one more entry than layers.
    offsets: Vec<u64>,
    /// (mask of from|over|to, from|over, to) per jump.
    jumps: Vec<(u64, u64, u64)>,
}

impl PegSolitaire {
    /// The classic start: every hole but the centre.
    pub fn english() -> PegSolitaire {
        PegSolitaire::with_rules(Rules::Orthogonal)
    }

    /// The classic start under `rules`.
    pub fn with_rules(rules: Rules) -> PegSolitaire {
        PegSolitaire::from_board_with(((1u64 << HOLES) - 1) & !(1 << CENTRE), rules)
            .expect("the classic board is valid")
    }

    /// Start from the board `mask` (bit `i` = peg in hole `i`), which needs an empty hole.
    pub fn from_board(mask: u64) -> Result<PegSolitaire, Error> {
        PegSolitaire::from_board_with(mask, Rules::Orthogonal)
    }

    /// Start from the board `mask` under `rules`.
    pub fn from_board_with(mask: u64, rules: Rules) -> Result<PegSolitaire, Error> {
        if mask >> HOLES != 0 || mask.count_ones() == HOLES {
            return Err(Error::Instance("peg solitaire: the start needs 33 holes and at least one empty".into()));
        }
        let start_pegs = mask.count_ones();
        let mut offsets = vec![0u64];
        for d in 0..=start_pegs {
            offsets.push(offsets[d as usize] + binomial::binomial(HOLES, start_pegs - d));
        }
        let jumps = jumps(rules)
            .into_iter()
            .map(|(a, b, c)| ((1 << a) | (1 << b) | (1 << c), (1 << a) | (1 << b), 1 << c))
            .collect();
        let mut p = PegSolitaire { rules, start: 0, start_pegs, offsets, jumps };
        p.start = p.index_of(mask)?;
        Ok(p)
    }

    /// How pegs jump.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The pegs of the start board.
    pub fn start_pegs(&self) -> u32 {
        self.start_pegs
    }

    /// The index of a board with at most the start's pegs.
    pub fn index_of(&self, mask: u64) -> Result<u64, Error> {
        let pegs = mask.count_ones();
        if mask >> HOLES != 0 || pegs > self.start_pegs {
            return Err(Error::State(format!("a board of {HOLES} holes with at most {} pegs", self.start_pegs)));
        }
        Ok(self.offsets[(self.start_pegs - pegs) as usize] + binomial::rank(mask, HOLES))
    }

    /// The board (bit `i` = peg in hole `i`) of an index.
    pub fn board(&self, index: u64) -> u64 {
        let d = self.offsets.partition_point(|&o| o <= index) - 1;
        binomial::unrank(index - self.offsets[d], HOLES, self.start_pegs - d as u32)
    }

    /// The jumps that can be played on `board`.
    pub fn moves_of(&self, board: u64) -> u64 {
        self.jumps.iter().filter(|&&(all, pegs, _)| board & all == pegs).count() as u64
    }

    /// The index range of BFS depth `d`.
    pub fn layer(&self, d: u32) -> Range<u64> {
        self.offsets[d as usize]..self.offsets[d as usize + 1]
    }

    /// The layer (BFS depth) of an index.
    pub fn depth_of(&self, index: u64) -> u32 {
        (self.offsets.partition_point(|&o| o <= index) - 1) as u32
    }
}

impl Puzzle for PegSolitaire {
    type Scratch = ();

    fn name(&self) -> String {
        match self.rules {
            Rules::Orthogonal => "peg-solitaire".into(),
            Rules::Diagonal => "peg-solitaire diagonal".into(),
        }
    }

    fn size(&self) -> u64 {
        *self.offsets.last().unwrap_or(&0)
    }

    fn start(&self) -> u64 {
        self.start
    }

    fn scratch(&self) {}

    #[inline]
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let d = self.offsets.partition_point(|&o| o <= index) - 1;
        let pegs = self.start_pegs - d as u32;
        if pegs < 2 {
            return;
        }
        let mask = binomial::unrank(index - self.offsets[d], HOLES, pegs);
        let base = self.offsets[d + 1];
        for (j, &(all, pegs_needed, _)) in self.jumps.iter().enumerate() {
            if mask & all == pegs_needed {
                emit(j as Move, base + binomial::rank(mask ^ all, HOLES));
            }
        }
    }

    fn reversible(&self) -> bool {
        false
    }

    fn predecessors<F: FnMut(u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let d = self.offsets.partition_point(|&o| o <= index) - 1;
        if d == 0 {
            return;
        }
        let mask = binomial::unrank(index - self.offsets[d], HOLES, self.start_pegs - d as u32);
        let base = self.offsets[d - 1];
        for &(all, _, to) in &self.jumps {
            if mask & all == to {
                emit(base + binomial::rank(mask ^ all, HOLES));
            }
        }
    }

    fn property(&self) -> Property {
        Property::LayerSelection { layers: (0..=self.start_pegs).map(|d| self.layer(d)).collect() }
    }

    fn describe_move(&self, mv: Move) -> String {
        match jumps(self.rules).get(mv as usize) {
            Some((a, b, c)) => format!("jump {a} over {b} to {c}"),
            None => format!("jump {mv}?"),
        }
    }

    fn describe_state(&self, index: u64) -> String {
        let mask = self.board(index);
        let cells = coordinates();
        (0..7)
            .map(|r| {
                (0..7)
                    .map(|c| match cells.iter().position(|&x| x == (r, c)) {
                        Some(i) if mask >> i & 1 == 1 => 'o',
                        Some(_) => '.',
                        None => ' ',
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// 33 symbols row-major, `o` (or `x`, `1`) for a peg and `.` (or `0`) for a hole;
    /// spaces and `/` are ignored.
    fn parse_state(&self, text: &str) -> Result<u64, Error> {
        let mut mask = 0u64;
        let mut n = 0;
        for ch in text.chars().filter(|c| !c.is_whitespace() && *c != '/') {
            match ch {
                'o' | 'x' | '1' => mask |= 1 << n.min(63),
                '.' | '0' => {}
                _ => return Err(Error::State(format!("`{ch}`: use `o` for a peg and `.` for a hole"))),
            }
            n += 1;
        }
        if n != HOLES {
            return Err(Error::State(format!("expected {HOLES} holes, found {n}")));
        }
        self.index_of(mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_has_76_jumps_and_the_index_covers_every_board() {
        assert_eq!(coordinates().len(), 33);
        assert_eq!(coordinates()[16], (3, 3));
        assert_eq!(jumps(Rules::Orthogonal).len(), 76);
        assert_eq!(jumps(Rules::Diagonal).len(), 136);
        let p = PegSolitaire::english();
        assert_eq!(p.size(), (1 << 33) - 1);
        assert_eq!(p.layer(0), 0..33);
        assert_eq!(p.board(p.start()), ((1u64 << 33) - 1) & !(1 << 16));
        let mut n = 0;
        p.successors(p.start(), &mut (), |_, s| {
            n += 1;
            assert_eq!(p.depth_of(s), 1);
            let mut back = Vec::new();
            p.predecessors(s, &mut (), |q| back.push(q));
            assert!(back.contains(&p.start()));
        });
        assert_eq!(n, 4);
        let text = p.describe_state(p.start());
        assert_eq!(p.parse_state(&text), Ok(p.start()));
        assert!(p.parse_state("ooo").is_err());
        assert!(PegSolitaire::from_board((1 << 33) - 1).is_err());
    }
}
