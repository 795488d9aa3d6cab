//! The multinomial rank of a board with `k1` pieces of colour 1, `k2` of colour 2 and
//! empty cells (colour 0): the thesis's Alg. 13.4/13.5 (Def. 37, Theorem 9), a bijection
//! onto `0..M(n; k1, k2)` with `M(n; k1, k2) = n! / (k1! k2! (n-k1-k2)!)`. Per cell the
//! order is 2 < 1 < 0. The printed algorithms are correct as digest 003b §3.2.6 gives
//! them; the coefficient is computed as `C(n, k1) C(n-k1, k2)` from the binomial table.

use super::binomial::binomial;

/// `M(n; k1, k2)`, zero when `k1 + k2 > n`; `None` if it does not fit a `u64`.
pub fn multinomial(n: u32, k1: u32, k2: u32) -> Option<u64> {
    if k1 + k2 > n {
        return Some(0);
    }
    binomial(n, k1).checked_mul(binomial(n - k1, k2))
}

#[inline]
fn m(n: u32, k1: u32, k2: u32) -> u64 {
    if k1 > n {
        return 0;
    }
    binomial(n, k1) * binomial(n - k1, k2)
}

/// Alg. 13.4: the rank of `board` (cells 0, 1, 2) among the boards of its length with the
/// same numbers of 1s and 2s. The caller keeps `M(n; k1, k2)` within a `u64`.
pub fn rank(board: &[u8]) -> u64 {
    let n = board.len() as u32;
    let mut l1 = board.iter().filter(|&&c| c == 1).count() as u32;
    let mut l2 = board.iter().filter(|&&c| c == 2).count() as u32;
    let mut r = 0;
    for (i, &c) in board.iter().enumerate() {
        let rest = n - 1 - i as u32;
        match c {
            2 => l2 -= 1,
            1 => {
                if l2 > 0 {
                    r += m(rest, l1, l2 - 1);
                }
                l1 -= 1;
            }
            _ => {
                if l2 > 0 {
                    r += m(rest, l1, l2 - 1);
                }
                if l1 > 0 {
                    r += m(rest, l1 - 1, l2);
                }
            }
        }
    }
    r
}

/// Alg. 13.5: writes the board of rank `r < M(n; k1, k2)` into `board` (`n = board.len()`).
pub fn unrank(mut r: u64, mut k1: u32, mut k2: u32, board: &mut [u8]) {
    let n = board.len() as u32;
    debug_assert!(Some(r) < multinomial(n, k1, k2));
    for (i, cell) in board.iter_mut().enumerate() {
        let rest = n - 1 - i as u32;
        let v2 = if k2 > 0 { m(rest, k1, k2 - 1) } else { 0 };
        let v1 = if k1 > 0 { m(rest, k1 - 1, k2) } else { 0 };
        if r < v2 {
            *cell = 2;
            k2 -= 1;
        } else if r < v1 + v2 {
            *cell = 1;
            r -= v2;
            k1 -= 1;
        } else {
            *cell = 0;
            r -= v1 + v2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exhaustive_bijection_up_to_8_cells() {
        for n in 0..=8u32 {
            for k1 in 0..=n {
                for k2 in 0..=n - k1 {
                    let size = multinomial(n, k1, k2).unwrap();
                    let mut seen = vec![false; size as usize];
                    let mut board = vec![0u8; n as usize];
                    for r in 0..size {
                        unrank(r, k1, k2, &mut board);
                        assert_eq!(board.iter().filter(|&&c| c == 1).count() as u32, k1);
                        assert_eq!(board.iter().filter(|&&c| c == 2).count() as u32, k2);
                        let back = rank(&board);
                        assert_eq!(back, r);
                        assert!(!std::mem::replace(&mut seen[r as usize], true));
                    }
                }
            }
        }
        assert_eq!(multinomial(31, 15, 15), Some(4_808_643_120));
        assert_eq!(multinomial(24, 8, 8), Some(9_465_511_770));
    }

    proptest! {
        #[test]
        fn round_trip_on_31_cells(cells in proptest::collection::vec(0u8..3, 31)) {
            let k1 = cells.iter().filter(|&&c| c == 1).count() as u32;
            let k2 = cells.iter().filter(|&&c| c == 2).count() as u32;
            let r = rank(&cells);
            prop_assert!(Some(r) < multinomial(31, k1, k2));
            let mut back = vec![0u8; 31];
            unrank(r, k1, k2, &mut back);
            prop_assert_eq!(back, cells);
        }
    }
}
