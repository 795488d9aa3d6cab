//! The one-byte value of a Nine Men's Morris position (Gasser's one byte per position):
//! a draw, or a win or loss for the side to move with the number of plies to the end
//! under perfect play (the winner hurrying, the loser delaying).
//!
//! Byte 0 is a draw (and, while a database is solved, "not decided yet"); byte
//! `d + 1` for `d <= 251` is the end in `d` plies, a loss for the side to move when `d`
//! is even (0: it cannot move), a win when `d` is odd; byte 255 marks a hole, a slot of
//! the index that holds no canonical board, and 253 a board the solver has checked in
//! the current level ([`CHECKED`]; odd, so never read as a win).

use std::fmt;

/// A slot that holds no canonical board.
pub const HOLE: u8 = 255;

/// The most plies to the end a byte holds.
pub const MAX_PLIES: u32 = 251;

/// A board checked in the current level of the analysis and not decided (a mark the
/// level clears).
pub const CHECKED: u8 = 253;

/// The value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// It wins in this many plies (odd).
    Win(u32),
    /// It loses in this many plies (even).
    Loss(u32),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// The value of a byte (`None` for a hole).
    #[inline]
    pub fn decode(byte: u8) -> Option<Value> {
        match byte {
            0 => Some(Value::Draw),
            b if u32::from(b) > MAX_PLIES + 1 => None,
            b if (b - 1) % 2 == 0 => Some(Value::Loss(u32::from(b) - 1)),
            b => Some(Value::Win(u32::from(b) - 1)),
        }
    }

    /// The byte of a value whose plies fit ([`MAX_PLIES`]).
    #[inline]
    pub fn encode(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) | Value::Loss(d) if d <= MAX_PLIES => Some(d as u8 + 1),
            _ => None,
        }
    }

    /// The value of the position before, one ply earlier, if the previous player moved here.
    pub fn before(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Win, loss or draw as a word.
    pub fn outcome(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d} plies"),
            Value::Loss(d) => write!(f, "loss in {d} plies"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

/// Whether a byte is a win for the side to move.
#[inline]
pub fn is_win(byte: u8) -> bool {
    byte != 0 && u32::from(byte) <= MAX_PLIES + 1 && byte.is_multiple_of(2)
}

/// Whether a byte is a loss for the side to move.
#[inline]
pub fn is_loss(byte: u8) -> bool {
    byte % 2 == 1 && u32::from(byte) <= MAX_PLIES + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        for byte in 0..=255u8 {
            match Value::decode(byte) {
                None => assert!(byte > 252, "{byte}"),
                Some(v) => {
                    assert_eq!(v.encode(), Some(byte));
                    assert_eq!(is_win(byte), matches!(v, Value::Win(_)));
                    assert_eq!(is_loss(byte), matches!(v, Value::Loss(_)));
                }
            }
        }
        assert_eq!(Value::Loss(0).encode(), Some(1));
        assert_eq!(Value::Win(253).encode(), None);
        assert!(!is_win(CHECKED) && !is_loss(CHECKED) && !is_win(HOLE));
        assert_eq!(Value::Loss(4).before(), Value::Win(5));
    }
}
