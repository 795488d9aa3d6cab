//! Perfect hash functions: bijections between the states of a puzzle and `0..size`.
//!
//! - [`permutation`]: Myrvold and Ruskey's linear-time rank and unrank of permutations,
//!   with the parity computed on the fly (the thesis's Alg. 13.1 and Theorem 4) and the
//!   folding of Theorem 5 (index mod n!/2, parity fixed by swapping the first two
//!   entries);
//! - [`lexicographic`]: the lexicographic rank (O(n²)), an independent order for tests;
//! - [`binomial`]: a table of binomial coefficients, the thesis's binomial rank and
//!   unrank (Alg. 13.2/13.3 in their 0-based form) and the colex rank of a set;
//! - [`multinomial`]: the rank of a board of two colours and empty cells (Alg. 13.4/13.5).
//!
//! All ranks are `u64`. Permutations have at most [`permutation::MAX_N`] = 20 entries
//! (20! < 2^64); binomial boards at most 64 cells. Digest 003b, §3.2.3-3.2.6, lists the
//! errors of the printed pseudo-code; the functions here follow its corrected forms.

pub mod binomial;
pub mod lexicographic;
pub mod multinomial;
pub mod permutation;
