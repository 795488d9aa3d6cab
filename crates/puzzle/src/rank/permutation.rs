//! Myrvold and Ruskey's permutation rank (`rank1`/`unrank1`, W. Myrvold and F. Ruskey,
//! "Ranking and unranking permutations in linear time", IPL 79(6), 2001), as the thesis
//! uses it (Sulewski 2011, Alg. 13.1, Theorems 4 and 5).
//!
//! The order is not lexicographic: `unrank(r)` starts from the identity and, for
//! `len = n, n-1, ..., 1`, swaps entries `len - 1` and `r mod len`, then divides `r` by
//! `len`. Departures from the printed Alg. 13.1: the division happens on *every*
//! iteration (the printed indentation puts it inside the `if`), and `rank` (not printed
//! in the thesis) is the iterative form of `rank1` with the inverse permutation.
//!
//! Parity (Theorem 4): every swap of two distinct positions is an odd number of
//! adjacent transpositions, so counting the non-trivial swaps gives the inversion parity
//! of the result for free, in `unrank` and in `rank` alike.
//!
//! Folding (Theorem 5): `unrank(r)` and `unrank(r + n!/2)` differ exactly by the swap of
//! entries 0 and 1 (the last step swaps positions 1 and `r_{n-1} mod 2`). When only one
//! parity is reachable, index `r mod n!/2` suffices: [`rank_folded`] and
//! [`unrank_folded`], which swaps entries 0 and 1 when the parity is the wrong one.

/// The largest permutation length with a `u64` rank: 20! < 2^64 < 21!.
pub const MAX_N: usize = 20;

/// `FACTORIAL[n] = n!` for `n <= 20`.
pub const FACTORIAL: [u64; MAX_N + 1] = {
    let mut f = [1u64; MAX_N + 1];
    let mut i = 1;
    while i <= MAX_N {
        f[i] = f[i - 1] * i as u64;
        i += 1;
    }
    f
};

/// Writes the permutation of rank `r` (`r < n!`, `n = perm.len() <= MAX_N`) into `perm`
/// and returns its parity (`true` = odd number of inversions).
#[inline]
pub fn unrank(r: u64, perm: &mut [u8]) -> bool {
    debug_assert!(perm.len() <= MAX_N && r < FACTORIAL[perm.len()]);
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i as u8;
    }
    let mut r = r;
    let mut odd = false;
    let mut len = perm.len();
    // 64-bit divisions while the rank needs them, 32-bit ones after.
    while len > 0 && r > u64::from(u32::MAX) {
        let j = (r % len as u64) as usize;
        if j != len - 1 {
            odd = !odd;
            perm.swap(len - 1, j);
        }
        r /= len as u64;
        len -= 1;
    }
    let mut r = r as u32;
    while len > 0 {
        let j = (r % len as u32) as usize;
        if j != len - 1 {
            odd = !odd;
            perm.swap(len - 1, j);
        }
        r /= len as u32;
        len -= 1;
    }
    odd
}

/// The rank of `perm` (a permutation of `0..n`, `n <= MAX_N`) and its parity (`true` =
/// odd). Linear time; `perm` is not changed (the swaps happen on copies).
#[inline]
pub fn rank(perm: &[u8]) -> (u64, bool) {
    if perm.len() <= 16 {
        rank_nibbles(perm)
    } else {
        rank_bytes(perm)
    }
}

/// [`rank`] for `n <= 16`, with the permutation and its inverse as 4-bit fields of two
/// registers: the loop's swaps then go through no memory, whose store-to-load
/// forwarding otherwise bounds its speed. A trivial swap (`s = len-1`) writes what is
/// there already, so the loop has no branch.
#[inline]
fn rank_nibbles(perm: &[u8]) -> (u64, bool) {
    let (mut p, mut inv) = (0u64, 0u64);
    for (i, &v) in perm.iter().enumerate() {
        p |= u64::from(v) << (4 * i);
        inv |= (i as u64) << (4 * v);
    }
    let (mut r, mut mult, mut odd) = (0u64, 1u64, false);
    for len in (2..perm.len() as u64 + 1).rev() {
        let s = p >> (4 * (len - 1)) & 15;
        let j = inv >> (4 * (len - 1)) & 15;
        odd ^= s != len - 1;
        // p[j] = s and inv[s] = j; entries len-1 are not read again.
        p = p & !(15 << (4 * j)) | s << (4 * j);
        inv = inv & !(15 << (4 * s)) | j << (4 * s);
        r += s * mult;
        mult *= len;
    }
    (r, odd)
}

/// [`rank`] for any `n <= MAX_N`, on byte arrays.
fn rank_bytes(perm: &[u8]) -> (u64, bool) {
    let n = perm.len();
    debug_assert!(n <= MAX_N);
    let mut p = [0u8; 32];
    let mut inv = [0u8; 32];
    for (i, &v) in perm.iter().enumerate() {
        p[i] = v;
        inv[v as usize] = i as u8;
    }
    let mut r = 0u64;
    let mut mult = 1u64;
    let mut odd = false;
    for len in (2..=n).rev() {
        let s = p[len - 1] as usize;
        let j = inv[len - 1] as usize;
        if s != len - 1 {
            odd = !odd;
            p.swap(len - 1, j);
            inv.swap(s, len - 1);
        }
        r += s as u64 * mult;
        mult *= len as u64;
    }
    (r, odd)
}

/// The folded rank of `perm`: its rank mod n!/2 (`n >= 2`).
#[inline]
pub fn rank_folded(perm: &[u8]) -> u64 {
    rank(perm).0 % (FACTORIAL[perm.len()] / 2)
}

/// The permutation of folded index `i < n!/2` with parity `odd`: the unranked
/// permutation, with entries 0 and 1 swapped if its parity is not `odd` (`n >= 2`).
#[inline]
pub fn unrank_folded(i: u64, odd: bool, perm: &mut [u8]) {
    if unrank(i, perm) != odd {
        perm.swap(0, 1);
    }
}

/// The inversion parity of `perm` by counting inversions (O(n²)): the reference for the
/// tests and for checking a state a user typed.
pub fn inversion_parity(perm: &[u8]) -> bool {
    let mut odd = false;
    for i in 0..perm.len() {
        for j in i + 1..perm.len() {
            odd ^= perm[i] > perm[j];
        }
    }
    odd
}

/// Whether `perm` is a permutation of `0..perm.len()`.
pub fn is_permutation(perm: &[u8]) -> bool {
    let mut seen = 0u64;
    perm.len() <= 64
        && perm.iter().all(|&v| {
            let fresh = (v as usize) < perm.len() && seen & (1 << v) == 0;
            seen |= 1 << (v & 63);
            fresh
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn both_rank_loops_agree() {
        let mut p = vec![0u8; 16];
        for r in (0..FACTORIAL[16]).step_by(FACTORIAL[16] as usize / 9973) {
            unrank(r, &mut p);
            assert_eq!(rank_nibbles(&p), rank_bytes(&p));
            assert_eq!(rank_nibbles(&p), (r, inversion_parity(&p)));
        }
    }

    #[test]
    fn exhaustive_round_trips_parity_and_folding_up_to_8() {
        for (n, &count) in FACTORIAL.iter().enumerate().take(9) {
            let mut seen = vec![false; count as usize];
            let mut p = vec![0u8; n];
            let mut q = vec![0u8; n];
            for r in 0..count {
                let odd = unrank(r, &mut p);
                assert!(is_permutation(&p));
                assert_eq!(odd, inversion_parity(&p), "n {n} r {r}");
                assert_eq!(rank(&p), (r, odd));
                assert!(!std::mem::replace(&mut seen[r as usize], true));
                if n >= 2 && r < count / 2 {
                    // Theorem 5.
                    unrank(r + count / 2, &mut q);
                    q.swap(0, 1);
                    assert_eq!(p, q);
                    for want in [false, true] {
                        unrank_folded(r, want, &mut q);
                        assert_eq!(inversion_parity(&q), want);
                        assert_eq!(rank_folded(&q), r);
                    }
                }
            }
        }
    }

    fn perm_of(n: usize) -> impl Strategy<Value = Vec<u8>> {
        Just((0..n as u8).collect::<Vec<u8>>()).prop_shuffle()
    }

    proptest! {
        #[test]
        fn round_trip_rank_unrank(n in 2usize..=MAX_N, seed in any::<u64>()) {
            let r = seed % FACTORIAL[n];
            let mut p = vec![0u8; n];
            let odd = unrank(r, &mut p);
            prop_assert!(is_permutation(&p));
            prop_assert_eq!(odd, inversion_parity(&p));
            prop_assert_eq!(rank(&p), (r, odd));
        }

        #[test]
        fn round_trip_unrank_rank(p in (1usize..=12).prop_flat_map(perm_of)) {
            let (r, odd) = rank(&p);
            prop_assert_eq!(odd, inversion_parity(&p));
            let mut q = vec![0u8; p.len()];
            prop_assert_eq!(unrank(r, &mut q), odd);
            prop_assert_eq!(q, p);
        }

        #[test]
        fn folding(p in (2usize..=12).prop_flat_map(perm_of)) {
            let n = p.len();
            let i = rank_folded(&p);
            prop_assert!(i < FACTORIAL[n] / 2);
            let mut q = vec![0u8; n];
            unrank_folded(i, inversion_parity(&p), &mut q);
            prop_assert_eq!(&q, &p);
            // The other parity's member of the fold is p with entries 0 and 1 swapped.
            unrank_folded(i, !inversion_parity(&p), &mut q);
            q.swap(0, 1);
            prop_assert_eq!(q, p);
        }
    }
}
