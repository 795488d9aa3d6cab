//! The (n,k) Top-Spin puzzle (`../shared/games/README.md`, "(n,k) Top-Spin").
//!
//! Tokens `0..n` lie on a ring of positions `0..n`. Move `i` (`i = 0..n`) reverses the
//! `k` tokens at positions `i, i+1, ..., i+k-1 (mod n)`; the ring is then rotated until
//! token 0 is at position 0 (no separate slide move: rotations are factored out). A
//! state is the normalised ring `(0, x_1, ..., x_{n-1})`; its index is the
//! Myrvold-Ruskey rank of `(x_1 - 1, ..., x_{n-1} - 1)`, `(n-1)!` indices. Start: the
//! identity.
//!
//! Folding: for k = 4 and odd n every reachable state is an even permutation (Theorem 6;
//! the thesis's following sentence says "odd n" where it means even n), so the index is
//! the rank mod `(n-1)!/2` and unranking fixes the parity to even (Theorem 5). Other k
//! and even n use the full `(n-1)!`. Reachable: 2 states for n = 5 (a twist of 4 on a
//! 5-ring reflects the whole ring), `(n-1)!` for even n >= 6, `(n-1)!/2` for odd n >= 7.

use crate::rank::permutation::{self, FACTORIAL, MAX_N};
use crate::{Error, Move, Puzzle};

/// The (n,k) Top-Spin puzzle.
#[derive(Clone, Debug)]
pub struct TopSpin {
    n: usize,
    k: usize,
    /// Index mod (n-1)!/2 with even parity.
    folded: bool,
}

impl TopSpin {
    /// `n` tokens, twists of `k`: `2 <= k < n <= 21`.
    pub fn new(n: u32, k: u32) -> Result<TopSpin, Error> {
        if k < 2 || k >= n || n as usize > MAX_N + 1 {
            return Err(Error::Instance(format!(
                "top-spin {n},{k}: needs 2 <= k < n <= {} ((n-1)! indices must fit 64 bits)",
                MAX_N + 1
            )));
        }
        let (n, k) = (n as usize, k as usize);
        Ok(TopSpin { n, k, folded: k == 4 && n % 2 == 1 })
    }

    /// Tokens and twist length.
    pub fn n_k(&self) -> (u32, u32) {
        (self.n as u32, self.k as u32)
    }

    /// Whether the index space is folded (k = 4, odd n).
    pub fn folded(&self) -> bool {
        self.folded
    }

    fn rank_seq(&self, seq: &[u8]) -> u64 {
        if self.folded {
            permutation::rank_folded(seq)
        } else {
            permutation::rank(seq).0
        }
    }

    fn unrank_seq(&self, index: u64, seq: &mut [u8]) {
        if self.folded {
            permutation::unrank_folded(index, false, seq);
        } else {
            permutation::unrank(index, seq);
        }
    }

    /// The normalised ring of an index.
    pub fn ring(&self, index: u64) -> Vec<u8> {
        let mut seq = vec![0u8; self.n - 1];
        self.unrank_seq(index, &mut seq);
        std::iter::once(0).chain(seq.iter().map(|x| x + 1)).collect()
    }
}

impl Puzzle for TopSpin {
    type Scratch = ();

    fn name(&self) -> String {
        format!("top-spin {},{}", self.n, self.k)
    }

    fn size(&self) -> u64 {
        FACTORIAL[self.n - 1] / if self.folded { 2 } else { 1 }
    }

    fn start(&self) -> u64 {
        // The identity ring; its Myrvold-Ruskey rank is not 0.
        self.rank_seq(&(0..self.n as u8 - 1).collect::<Vec<_>>())
    }

    fn scratch(&self) {}

    #[inline]
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, _: &mut (), mut emit: F) {
        let n = self.n;
        let mut ring = [0u8; 32];
        self.unrank_seq(index, &mut ring[1..n]);
        for x in &mut ring[1..n] {
            *x += 1;
        }
        let mut twisted = [0u8; 32];
        let mut seq = [0u8; 32];
        for i in 0..n {
            twisted[..n].copy_from_slice(&ring[..n]);
            for j in 0..self.k / 2 {
                twisted.swap((i + j) % n, (i + self.k - 1 - j) % n);
            }
            let zero = twisted[..n].iter().position(|&t| t == 0).unwrap_or(0);
            for (j, x) in seq[..n - 1].iter_mut().enumerate() {
                *x = twisted[(zero + 1 + j) % n] - 1;
            }
            emit(i as Move, self.rank_seq(&seq[..n - 1]));
        }
    }

    fn closed_form_states(&self) -> Option<u64> {
        match (self.k, self.n) {
            (4, 5) => Some(2),
            (4, _) => Some(self.size()),
            _ => None,
        }
    }

    fn describe_move(&self, mv: Move) -> String {
        format!("twist at {mv}")
    }

    fn describe_state(&self, index: u64) -> String {
        self.ring(index).iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
    }

    /// The tokens around the ring, `0..n`, from any position (the ring is normalised).
    fn parse_state(&self, text: &str) -> Result<u64, Error> {
        let ring = super::parse_numbers(text)?;
        if ring.len() != self.n || !permutation::is_permutation(&ring) {
            return Err(Error::State(format!("expected a permutation of 0..{}", self.n)));
        }
        let zero = ring.iter().position(|&t| t == 0).unwrap_or(0);
        let seq: Vec<u8> = (1..self.n).map(|j| ring[(zero + j) % self.n] - 1).collect();
        if self.folded && permutation::inversion_parity(&seq) {
            return Err(Error::State("odd permutations are not reachable for k = 4 and odd n".into()));
        }
        Ok(self.rank_seq(&seq))
    }
}
