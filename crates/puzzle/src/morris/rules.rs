//! The moves of Nine Men's Morris by Gasser's rules (`../shared/games/README.md`), on
//! bit masks of the 24 points, always from the view of the side to move.
//!
//! - Placing: a piece from the hand goes to any empty point.
//! - Moving: a piece slides to an adjacent empty point; a side with exactly three pieces
//!   (and none in hand) jumps to any empty point instead.
//! - A move that closes a mill (the piece's new point completes one of its two mills)
//!   removes one opposing piece that is in no mill, or any opposing piece if all are in
//!   mills; closing two mills at once still removes one. With no opposing piece on the
//!   board, nothing is removed.
//! - A side left with fewer than three pieces (on the board and in hand) has lost; so has
//!   a side to move that cannot move.
//!
//! A step gives the next position with the sides exchanged: the opponent is to move.

use super::board::{FULL, MILLS_AT, NEIGHBOURS};

/// A position from the view of the side to move: its pieces on the board, the other
/// side's, and the pieces each still has in hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The points of the side to move.
    pub mover: u32,
    /// The points of the other side.
    pub other: u32,
    /// Pieces the side to move has in hand.
    pub mover_hand: u32,
    /// Pieces the other side has in hand.
    pub other_hand: u32,
}

impl Position {
    /// A position with no pieces in hand (the moving and jumping phases).
    pub const fn on_board(mover: u32, other: u32) -> Position {
        Position { mover, other, mover_hand: 0, other_hand: 0 }
    }

    /// The position with the sides exchanged.
    const fn swapped(self) -> Position {
        Position { mover: self.other, other: self.mover, mover_hand: self.other_hand, other_hand: self.mover_hand }
    }
}

/// What a move leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The next position, the opponent to move.
    To(Position),
    /// The opponent is left with fewer than three pieces: the mover has won.
    Won,
}

/// Whether `set`, holding point `q`, has a closed mill through `q`.
#[inline]
pub fn closes_mill(set: u32, q: u32) -> bool {
    let [x, y] = MILLS_AT[q as usize];
    set & x == x || set & y == y
}

/// The points of `set` that lie in a closed mill of `set`.
#[inline]
pub fn in_mills(set: u32) -> u32 {
    super::board::MILLS.iter().filter(|&&m| set & m == m).fold(0, |acc, &m| acc | m)
}

/// The opposing pieces a mill may remove.
#[inline]
pub fn removable(other: u32) -> u32 {
    let free = other & !in_mills(other);
    if free != 0 {
        free
    } else {
        other
    }
}

/// A move: the point a piece leaves (none when placing), the point it goes to, and the
/// opposing piece a mill removes (none when no mill closes, or when the mill wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The point left, when moving or jumping.
    pub from: Option<u32>,
    /// The point reached.
    pub to: u32,
    /// The opposing piece removed.
    pub removed: Option<u32>,
}

/// The mover's piece goes to `q` (from `from`, empty when placing); a mill closed at
/// `q` removes each removable opposing piece in turn.
#[inline]
fn land(pos: Position, from: Option<u32>, q: u32, f: &mut impl FnMut(Move, Step)) {
    let left = from.map_or(0, |p| 1 << p);
    let mover = pos.mover & !left | 1 << q;
    let next = Position { mover, ..pos };
    let m = Move { from, to: q, removed: None };
    if pos.other == 0 || !closes_mill(mover, q) {
        return f(m, Step::To(next.swapped()));
    }
    if pos.other.count_ones() + pos.other_hand <= 3 {
        return f(m, Step::Won);
    }
    let mut victims = removable(pos.other);
    while victims != 0 {
        let r = victims.trailing_zeros();
        f(Move { removed: Some(r), ..m }, Step::To(Position { other: pos.other & !(1 << r), ..next }.swapped()));
        victims &= victims - 1;
    }
}

/// Every move of the side to move (none: it has lost). With pieces in hand the side
/// places; without, it moves or, with three pieces, jumps.
#[inline]
pub fn for_each_move(pos: Position, mut f: impl FnMut(Step)) {
    for_each_described_move(pos, |_, step| f(step));
}

/// [`for_each_move`] with each move's points.
pub fn for_each_described_move(pos: Position, mut f: impl FnMut(Move, Step)) {
    let empty = !(pos.mover | pos.other) & FULL;
    if pos.mover_hand > 0 {
        let placed = Position { mover_hand: pos.mover_hand - 1, ..pos };
        let mut targets = empty;
        while targets != 0 {
            let q = targets.trailing_zeros();
            land(placed, None, q, &mut f);
            targets &= targets - 1;
        }
        return;
    }
    let jumps = pos.mover.count_ones() == 3;
    let mut pieces = pos.mover;
    while pieces != 0 {
        let p = pieces.trailing_zeros();
        let mut targets = if jumps { empty } else { NEIGHBOURS[p as usize] & empty };
        while targets != 0 {
            let q = targets.trailing_zeros();
            land(pos, Some(p), q, &mut f);
            targets &= targets - 1;
        }
        pieces &= pieces - 1;
    }
}

/// Every position of the moving or jumping phase (no pieces in hand) from which a move
/// without a capture leads to `pos`, with that position's side to move as `mover`.
/// The side that just moved is `pos.other`; its last piece moved to a point `q` where
/// it closed no mill, from an adjacent empty point, or from any empty point if it has
/// three pieces.
pub fn for_each_unmove(pos: Position, mut f: impl FnMut(Position)) {
    debug_assert!(pos.mover_hand == 0 && pos.other_hand == 0);
    let empty = !(pos.mover | pos.other) & FULL;
    let jumps = pos.other.count_ones() == 3;
    let mut pieces = pos.other;
    while pieces != 0 {
        let q = pieces.trailing_zeros();
        pieces &= pieces - 1;
        if closes_mill(pos.other, q) {
            continue;
        }
        let mut sources = if jumps { empty } else { NEIGHBOURS[q as usize] & empty };
        while sources != 0 {
            let p = sources.trailing_zeros();
            f(Position::on_board(pos.other & !(1 << q) | 1 << p, pos.mover));
            sources &= sources - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::morris::board::point;

    fn points(list: &[(u32, u32)]) -> u32 {
        list.iter().fold(0, |acc, &(r, i)| acc | 1 << point(r, i))
    }

    #[test]
    fn a_closed_mill_removes_a_piece_outside_mills() {
        // White (to move) slides (0,3) -> (0,2) and closes the outer top side 0-1-2.
        let white = points(&[(0, 0), (0, 1), (0, 3), (2, 5)]);
        // Black's outer-left mill 6-7-0 cannot close (white holds 0); black has a
        // closed mill on ring 1 side 0-1-2 and one loose piece.
        let black = points(&[(1, 0), (1, 1), (1, 2), (2, 3)]);
        let mut captures = Vec::new();
        for_each_move(Position::on_board(white, black), |s| {
            if let Step::To(next) = s {
                if next.mover != black {
                    captures.push(next.mover);
                }
            }
        });
        assert_eq!(captures, vec![black & !points(&[(2, 3)])]);
    }

    #[test]
    fn all_pieces_in_mills_may_be_removed() {
        let white = points(&[(0, 0), (0, 1), (0, 3), (2, 5)]);
        let black = points(&[(1, 0), (1, 1), (1, 2), (2, 2), (2, 3), (2, 4)]);
        let mut removed = 0;
        for_each_move(Position::on_board(white, black), |s| {
            if let Step::To(next) = s {
                if next.mover != black {
                    removed += 1;
                }
            }
        });
        assert_eq!(removed, 6);
    }

    #[test]
    fn a_mill_against_three_pieces_wins_and_a_blocked_side_has_no_move() {
        let white = points(&[(0, 0), (0, 1), (0, 3)]);
        let black = points(&[(1, 0), (1, 1), (2, 5)]);
        let mut won = false;
        for_each_move(Position::on_board(white, black), |s| won |= s == Step::Won);
        assert!(won);
        // Four black pieces in the outer corners 0, 2 with neighbours all taken.
        let black = points(&[(0, 0), (0, 2), (0, 4), (0, 6)]);
        let white = points(&[(0, 1), (0, 3), (0, 5), (0, 7)]);
        let mut moves = 0;
        for_each_move(Position::on_board(black, white), |_| moves += 1);
        assert_eq!(moves, 0);
    }

    /// Every move without a capture is undone by an unmove, and every unmove is undone
    /// by a move, on random boards of the moving and jumping phases.
    #[test]
    fn unmoves_invert_the_moves_without_capture() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let (a, b) = (3 + next() % 7, 3 + next() % 7);
            let (mut mover, mut other) = (0u32, 0u32);
            while mover.count_ones() < a as u32 {
                mover |= 1 << (next() % 24);
            }
            while other.count_ones() < b as u32 {
                other |= 1 << (next() % 24) & !mover;
            }
            let pos = Position::on_board(mover, other);
            for_each_move(pos, |s| {
                if let Step::To(child) = s {
                    if child.mover.count_ones() == b as u32 {
                        let mut found = false;
                        for_each_unmove(child, |p| found |= p == pos);
                        assert!(found, "{pos:?} -> {child:?}");
                    }
                }
            });
            for_each_unmove(pos, |parent| {
                let mut found = false;
                for_each_move(parent, |s| found |= s == Step::To(pos));
                assert!(found, "{parent:?} -> {pos:?}");
            });
        }
    }

    #[test]
    fn placing_fills_any_empty_point() {
        let pos = Position { mover: 0, other: 1, mover_hand: 9, other_hand: 8 };
        let mut n = 0;
        for_each_move(pos, |s| {
            let Step::To(next) = s else { panic!("no win") };
            assert_eq!((next.mover, next.mover_hand, next.other_hand, next.other.count_ones()), (1, 8, 8, 1));
            n += 1;
        });
        assert_eq!(n, 23);
    }
}
