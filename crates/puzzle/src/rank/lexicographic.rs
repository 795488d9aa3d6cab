//! The lexicographic rank of a permutation (thesis Def. 36): `rank = Σ d_i (n-1-i)!`,
//! where `d_i` counts the later entries smaller than entry `i`. Quadratic time; the
//! engines use Myrvold-Ruskey's order ([`super::permutation`]). This order is kept as an
//! independent index for tests (the reference data's frontier BFS used it).

use super::permutation::{FACTORIAL, MAX_N};

/// The lexicographic rank of `perm`, a permutation of `0..n` with `n <= MAX_N`.
pub fn rank(perm: &[u8]) -> u64 {
    let n = perm.len();
    debug_assert!(n <= MAX_N);
    let mut r = 0;
    for i in 0..n {
        let smaller_later = perm[i + 1..].iter().filter(|&&v| v < perm[i]).count() as u64;
        r += smaller_later * FACTORIAL[n - 1 - i];
    }
    r
}

/// Writes the permutation of lexicographic rank `r < n!` into `perm` (`n = perm.len()`).
pub fn unrank(mut r: u64, perm: &mut [u8]) {
    let n = perm.len();
    debug_assert!(n <= MAX_N && r < FACTORIAL[n]);
    let mut unused: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    for (i, slot) in perm.iter_mut().enumerate() {
        let f = FACTORIAL[n - 1 - i];
        let mut d = r / f;
        r %= f;
        // The d-th smallest unused value.
        let mut rest = unused;
        while d > 0 {
            rest &= rest - 1;
            d -= 1;
        }
        let v = rest.trailing_zeros();
        unused &= !(1 << v);
        *slot = v as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexicographic_order_and_round_trip() {
        for (n, &count) in FACTORIAL.iter().enumerate().take(8) {
            let mut prev: Option<Vec<u8>> = None;
            let mut p = vec![0u8; n];
            for r in 0..count {
                unrank(r, &mut p);
                assert_eq!(rank(&p), r);
                if let Some(q) = &prev {
                    assert!(*q < p, "not increasing at rank {r}");
                }
                prev = Some(p.clone());
            }
        }
    }
}
