//! Binomial coefficients and the ranks of sets of cells (boards of indistinguishable
//! pieces), as bit masks over at most 64 cells (cell `i` = bit `i`).
//!
//! - [`rank`]/[`unrank`]: the thesis's Alg. 13.2/13.3 in the 0-based form of digest 003b
//!   §3.2.5 (the printed Alg. 13.2 is 1-based): for cells `i = 0..n`, a set cell
//!   decrements `t`, an empty cell (while `t > 0`) adds `C(n-1-i, t-1)`. This is the
//!   peg-solitaire index of the reference data.
//! - [`colex_rank`]/[`colex_unrank`]: the colexicographic rank `Σ_j C(c_j, j)` of the set
//!   `c_1 < c_2 < ... < c_t` (1-based `j`), the Frogs-and-Toads index.
//!
//! Both are bijections from the `t`-subsets of `n` cells onto `0..C(n, t)`. The
//! coefficients come from a table computed at compile time (the thesis precomputes them
//! too, Ch. 15); every `C(n, k)` with `n <= 64` fits a `u64`.

/// Largest number of cells.
pub const MAX_CELLS: u32 = 64;

static TABLE: [[u64; 65]; 65] = {
    let mut c = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

/// `C(n, k)`, zero when `k > n` (`n <= 64`).
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        TABLE[n as usize][k as usize]
    }
}

/// Alg. 13.2: the rank of the set `mask` among the `popcount(mask)`-subsets of `n` cells.
#[inline]
pub fn rank(mask: u64, n: u32) -> u64 {
    debug_assert!(n <= MAX_CELLS && (n == 64 || mask >> n == 0));
    if mask == 0 {
        return 0;
    }
    // Only the empty cells before the last set cell contribute, each C(n-1-i, t_i - 1)
    // with t_i the set cells at positions >= i: the same sum as the printed loop, taken
    // over the empty cells only (fast for the dense boards of peg solitaire).
    let last = 63 - mask.leading_zeros();
    let mut empty = !mask & ((1u64 << last) - 1);
    let mut r = 0;
    while empty != 0 {
        let i = empty.trailing_zeros();
        let t = (mask >> i).count_ones();
        r += binomial(n - 1 - i, t - 1);
        empty &= empty - 1;
    }
    r
}

/// The printed loop of Alg. 13.2 (0-based), cell by cell: the reference for [`rank`].
pub fn rank_by_cells(mask: u64, n: u32) -> u64 {
    let mut t = mask.count_ones();
    let mut r = 0;
    for i in 0..n {
        if t == 0 {
            break;
        }
        if mask >> i & 1 == 1 {
            t -= 1;
        } else {
            r += binomial(n - 1 - i, t - 1);
        }
    }
    r
}

/// Alg. 13.3: the `t`-subset of `n` cells with rank `r < C(n, t)`.
#[inline]
pub fn unrank(mut r: u64, n: u32, mut t: u32) -> u64 {
    debug_assert!(r < binomial(n, t));
    let mut mask = 0u64;
    for i in 0..n {
        if t == 0 {
            break;
        }
        let c = binomial(n - 1 - i, t - 1);
        if r < c {
            mask |= 1 << i;
            t -= 1;
        } else {
            r -= c;
        }
    }
    mask
}

/// The colex rank of the set `mask`: `Σ_j C(c_j, j)` over its cells `c_1 < ... < c_t`.
#[inline]
pub fn colex_rank(mut mask: u64) -> u64 {
    let mut r = 0;
    let mut j = 1;
    while mask != 0 {
        r += binomial(mask.trailing_zeros(), j);
        j += 1;
        mask &= mask - 1;
    }
    r
}

/// The `t`-subset of `n` cells with colex rank `r < C(n, t)`.
#[inline]
pub fn colex_unrank(mut r: u64, n: u32, t: u32) -> u64 {
    debug_assert!(r < binomial(n, t));
    let mut mask = 0u64;
    let mut c = n;
    for j in (1..=t).rev() {
        // The largest c with C(c, j) <= r; it decreases with j.
        c -= 1;
        while binomial(c, j) > r {
            c -= 1;
        }
        mask |= 1 << c;
        r -= binomial(c, j);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn table_values() {
        assert_eq!(binomial(33, 16), 1_166_803_110);
        assert_eq!(binomial(30, 15), 155_117_520);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!((0..=33).map(|k| binomial(33, k)).sum::<u64>(), 1 << 33);
        assert_eq!(binomial(3, 5), 0);
    }

    #[test]
    fn exhaustive_bijections_up_to_12_cells() {
        for n in 0..=12u32 {
            for t in 0..=n {
                let mut seen = vec![false; binomial(n, t) as usize];
                let mut seen_colex = seen.clone();
                for mask in (0u64..1 << n).filter(|m| m.count_ones() == t) {
                    let r = rank(mask, n);
                    assert_eq!(r, rank_by_cells(mask, n));
                    assert_eq!(unrank(r, n, t), mask);
                    assert!(!std::mem::replace(&mut seen[r as usize], true));
                    let c = colex_rank(mask);
                    assert_eq!(colex_unrank(c, n, t), mask);
                    assert!(!std::mem::replace(&mut seen_colex[c as usize], true));
                }
            }
        }
    }

    proptest! {
        #[test]
        fn round_trips_on_64_cells(n in 1u32..=64, bits in any::<u64>()) {
            let mask = if n == 64 { bits } else { bits & ((1 << n) - 1) };
            let t = mask.count_ones();
            let r = rank(mask, n);
            prop_assert!(r < binomial(n, t));
            prop_assert_eq!(r, rank_by_cells(mask, n));
            prop_assert_eq!(unrank(r, n, t), mask);
            let c = colex_rank(mask);
            prop_assert!(c < binomial(n, t));
            prop_assert_eq!(colex_unrank(c, n, t), mask);
        }
    }
}
