//! The n-pancake problem (`../shared/games/README.md`, "n-Pancake").
//!
//! A state is a permutation `p[0..n]` of pancakes `0..n`, `p[0]` on top; a move flips
//! the top `k` pancakes, `k = 2..=n` (the thesis's `k = 1` changes nothing). Start: the
//! identity. Index: the Myrvold-Ruskey rank, `n!` indices, all reachable. Flips of
//! `k` with `floor(k/2)` odd change the parity and the others keep it (the thesis has
//! this backwards), so neither folding nor move alternation applies: the BFS needs two
//! bits per index.

use crate::rank::permutation::{self, FACTORIAL, MAX_N};
use crate::{Error, Move, Puzzle};

/// The n-pancake problem.
#[derive(Clone, Debug)]
pub struct Pancake {
    n: usize,
}

impl Pancake {
    /// `n` pancakes, `1 <= n <= 20`.
    pub fn new(n: u32) -> Result<Pancake, Error> {
        if n == 0 || n as usize > MAX_N {
            return Err(Error::Instance(format!(
                "pancake {n}: needs 1 to {MAX_N} pancakes (n! indices must fit 64 bits)"
            )));
        }
        Ok(Pancake { n: n as usize })
    }

    /// The number of pancakes.
    pub fn pancakes(&self) -> u32 {
        self.n as u32
    }
}

impl Puzzle for Pancake {
    type Scratch = ();

    fn name(&self) -> String {
        format!("pancake {}", self.n)
    }

    fn size(&self) -> u64 {
        FACTORIAL[self.n]
    }

    fn start(&self) -> u64 {
        permutation::rank(&(0..self.n as u8).collect::<Vec<_>>()).0
    }

    fn scratch(&self) {}

    #[inline]
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let mut p = [0u8; 32];
        let p = &mut p[..self.n];
        permutation::unrank(index, p);
        for k in 2..=self.n {
            p[..k].reverse();
            emit(k as Move, permutation::rank(p).0);
            p[..k].reverse();
        }
    }

    fn closed_form_states(&self) -> Option<u64> {
        Some(self.size())
    }

    fn describe_move(&self, mv: Move) -> String {
        format!("flip {mv}")
    }

    fn describe_state(&self, index: u64) -> String {
        let mut p = vec![0u8; self.n];
        permutation::unrank(index, &mut p);
        p.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
    }

    /// The pancakes from the top, `0..n`, separated by spaces or commas.
    fn parse_state(&self, text: &str) -> Result<u64, Error> {
        let p = super::parse_numbers(text)?;
        if p.len() != self.n || !permutation::is_permutation(&p) {
            return Err(Error::State(format!("expected a permutation of 0..{}", self.n)));
        }
        Ok(permutation::rank(&p).0)
    }
}
