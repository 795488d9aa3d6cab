//! The puzzles, each defined exactly as in `../shared/games/README.md`, each with the
//! index function its module documents.
//!
//! | module | instances | index | size | property |
//! |---|---|---|---|---|
//! | [`sliding_tile`] | R x C, RC <= 20 | blank bucket x Myrvold-Ruskey rank mod (N-1)!/2 | (RC)!/2 | alternation |
//! | [`top_spin`] | (n,k), n <= 21 | Myrvold-Ruskey rank of the normalised ring, folded for odd n, k = 4 | (n-1)! or (n-1)!/2 | none |
//! | [`pancake`] | n <= 20 | Myrvold-Ruskey rank | n! | none |
//! | [`peg_solitaire`] | English 33 holes | per peg count, binomial rank (Alg. 13.2) | 2^33 - 1 | layer selection |
//! | [`peg_analysis`] | the English board's counts up to symmetry and towards one centre peg | | | |
//! | [`frogs`] | Frogs-and-Toads (31 cells), Fore-and-Aft (17 cells) | hole x colex rank of the black set, or multinomial rank | M(n; k, k) | none |

pub mod frogs;
pub mod pancake;
pub mod peg_analysis;
pub mod peg_solitaire;
pub mod sliding_tile;
pub mod top_spin;

use crate::Error;

/// Numbers separated by spaces, commas or `/` (a permutation typed by a user).
pub(crate) fn parse_numbers(text: &str) -> Result<Vec<u8>, Error> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u8>().map_err(|_| Error::State(format!("`{s}` is not a small number"))))
        .collect()
}
