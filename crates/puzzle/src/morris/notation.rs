//! Positions and moves as text, in the usual coordinates of the board (files `a`-`g`,
//! ranks `1`-`7`; `a7`, `d7`, `g7` along the top of the outer square).
//!
//! A position is 24 cells, `W` white, `B` black, `.` empty, in the order
//! `a7 d7 g7 g4 g1 d1 a1 a4` (outer square, clockwise from the top left),
//! `b6 d6 f6 f4 f2 d2 b2 b4` (middle), `c5 d5 e5 e4 e3 d3 c3 c4` (inner); then the side to
//! move, `w` or `b`; then, in the placing phase, the pieces white and black still have
//! in hand (both 0 when left out). Spaces inside the cells are ignored, so
//! `"W..B.... ........ ........ w"` is a position.

use super::board::POINTS;
use super::rules::{Move, Position};
use crate::Error;

/// The name of each point, in point order.
pub const NAMES: [&str; POINTS as usize] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", //
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", //
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4",
];

/// A position as given: the board and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Given {
    /// The position from the side to move's view.
    pub position: Position,
    /// Whether white is to move.
    pub white_to_move: bool,
}

/// Parses a position (see the module's documentation).
pub fn parse(text: &str) -> Result<Given, Error> {
    let bad = |why: String| {
        Error::State(format!("{why} (expected 24 cells of W, B or . then w or b, then optionally the pieces in hand of white and black, e.g. \"W.......B............... w 8 8\")"))
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let board_words = words.iter().take_while(|w| w.chars().all(|c| matches!(c, 'W' | 'B' | '.'))).count();
    let cells: Vec<char> = words[..board_words].iter().flat_map(|w| w.chars()).collect();
    let rest = &words[board_words..];
    if cells.len() != POINTS as usize {
        return Err(bad(format!("{} cells", cells.len())));
    }
    let white_to_move = match rest.first() {
        Some(&"w") => true,
        Some(&"b") => false,
        Some(other) => return Err(bad(format!("'{other}' is not the side to move"))),
        None => return Err(bad("no side to move".to_string())),
    };
    let hand = |i: usize| -> Result<u32, Error> {
        match rest.get(i) {
            None => Ok(0),
            Some(w) => w
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= 9)
                .ok_or_else(|| bad(format!("'{w}' is not a number of pieces in hand (0 to 9)"))),
        }
    };
    let (white_hand, black_hand) = (hand(1)?, hand(2)?);
    if rest.len() == 2 || rest.len() > 3 {
        return Err(bad("give both hands or neither".to_string()));
    }
    let mask = |c: char| cells.iter().enumerate().filter(|(_, &x)| x == c).fold(0u32, |acc, (p, _)| acc | 1 << p);
    let (white, black) = (mask('W'), mask('B'));
    for (name, on_board, hand) in [("white", white.count_ones(), white_hand), ("black", black.count_ones(), black_hand)]
    {
        if on_board + hand > 9 {
            return Err(bad(format!("{name} has {on_board} pieces on the board and {hand} in hand, more than 9")));
        }
    }
    let position = if white_to_move {
        Position { mover: white, other: black, mover_hand: white_hand, other_hand: black_hand }
    } else {
        Position { mover: black, other: white, mover_hand: black_hand, other_hand: white_hand }
    };
    Ok(Given { position, white_to_move })
}

/// Formats a position (the inverse of [`parse`]).
pub fn format(given: &Given) -> String {
    let p = given.position;
    let (white, black, wh, bh) = if given.white_to_move {
        (p.mover, p.other, p.mover_hand, p.other_hand)
    } else {
        (p.other, p.mover, p.other_hand, p.mover_hand)
    };
    let mut s = String::new();
    for q in 0..POINTS {
        if q > 0 && q % 8 == 0 {
            s.push(' ');
        }
        s.push(if white >> q & 1 == 1 {
            'W'
        } else if black >> q & 1 == 1 {
            'B'
        } else {
            '.'
        });
    }
    s.push_str(if given.white_to_move { " w" } else { " b" });
    if wh + bh > 0 {
        s.push_str(&format!(" {wh} {bh}"));
    }
    s
}

/// The text of a move: `d7` (placing), `a7-d7` (moving or jumping), with `xg1` for
/// the piece removed.
pub fn move_text(m: &Move) -> String {
    let mut s = match m.from {
        Some(p) => format!("{}-{}", NAMES[p as usize], NAMES[m.to as usize]),
        None => NAMES[m.to as usize].to_string(),
    };
    if let Some(r) = m.removed {
        s.push_str(&format!("x{}", NAMES[r as usize]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_an_error_or_round_trips(text in "[WB. wb0-9x]{0,40}") {
            if let Ok(given) = parse(&text) {
                prop_assert_eq!(parse(&format(&given)), Ok(given));
            }
        }

        #[test]
        fn boards_round_trip(
            w in proptest::collection::btree_set(0u32..24, 0..=9),
            b in proptest::collection::btree_set(0u32..24, 0..=9),
            to_move: bool,
        ) {
            let white = w.iter().fold(0u32, |acc, &p| acc | 1 << p);
            let black = b.iter().fold(0u32, |acc, &p| acc | 1 << p) & !white;
            let (mover, other) = if to_move { (white, black) } else { (black, white) };
            let given = Given { position: Position::on_board(mover, other), white_to_move: to_move };
            prop_assert_eq!(parse(&format(&given)), Ok(given));
        }
    }

    #[test]
    fn positions_round_trip() {
        for text in ["W..B.... ........ ........ w", "........ ....W... .B...... b 8 7", "WWW..... BBB..... ........ b"]
        {
            assert_eq!(format(&parse(text).unwrap()), text);
        }
    }

    #[test]
    fn bad_positions_are_errors() {
        for text in [
            "W..B w",
            "X....... ........ ........ w",
            "........ ........ ........ x",
            "........ ........ ........ w 10 0",
            "........ ........ ........ w 3",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
