//! The Nine Men's Morris board (`../shared/games/README.md`, "Nine Men's Morris"): its
//! 24 points, adjacency and 16 mills, its 16 symmetries, and the sizes of the
//! piece-count subspaces the retrograde analysis works on.
//!
//! Points lie on three concentric squares, ring 0 outer to ring 2 inner; on each ring
//! points 0..7 run around it with the corners at even positions: point `8r + i`. A set
//! of points is a `u32` mask. The symmetry group is built by closure from a quarter
//! turn, a reflection and the swap of the inner and outer ring (16 elements, as Gasser
//! and Malom use); every element maps adjacent points to adjacent points and mills to
//! mills (checked by the tests).

use crate::rank::binomial::binomial;

/// Points on the board.
pub const POINTS: u32 = 24;

/// The point at position `i` (0..8) of ring `r` (0..3).
pub const fn point(r: u32, i: u32) -> u32 {
    8 * r + i % 8
}

/// All 24 points.
pub const FULL: u32 = (1 << POINTS) - 1;

/// Per point, the mask of its neighbours.
pub const NEIGHBOURS: [u32; POINTS as usize] = {
    let mut n = [0u32; POINTS as usize];
    let mut r = 0;
    while r < 3 {
        let mut i = 0;
        while i < 8 {
            let p = point(r, i) as usize;
            n[p] |= 1 << point(r, i + 1) | 1 << point(r, i + 7);
            if i % 2 == 1 {
                if r > 0 {
                    n[p] |= 1 << point(r - 1, i);
                }
                if r < 2 {
                    n[p] |= 1 << point(r + 1, i);
                }
            }
            i += 1;
        }
        r += 1;
    }
    n
};

/// The 16 mills as masks of three points: each side of each ring, then the four
/// lines across the rings.
pub const MILLS: [u32; 16] = {
    let mut m = [0u32; 16];
    let mut r = 0;
    while r < 3 {
        let mut j = 0;
        while j < 4 {
            m[(4 * r + j) as usize] = 1 << point(r, 2 * j) | 1 << point(r, 2 * j + 1) | 1 << point(r, 2 * j + 2);
            j += 1;
        }
        r += 1;
    }
    let mut j = 0;
    while j < 4 {
        m[(12 + j) as usize] = 1 << point(0, 2 * j + 1) | 1 << point(1, 2 * j + 1) | 1 << point(2, 2 * j + 1);
        j += 1;
    }
    m
};

/// Per point, the two mills through it.
pub const MILLS_AT: [[u32; 2]; POINTS as usize] = {
    let mut at = [[0u32; 2]; POINTS as usize];
    let mut seen = [0usize; POINTS as usize];
    let mut k = 0;
    while k < 16 {
        let mut p = 0;
        while p < POINTS as usize {
            if MILLS[k] >> p & 1 == 1 {
                at[p][seen[p]] = MILLS[k];
                seen[p] += 1;
            }
            p += 1;
        }
        k += 1;
    }
    at
};

/// A symmetry: the image of each point.
pub type Symmetry = [u8; POINTS as usize];

/// The 16 symmetries of the board, the identity first.
pub fn symmetries() -> Vec<Symmetry> {
    let map = |f: &dyn Fn(u32, u32) -> u32| -> Symmetry {
        let mut s = [0u8; POINTS as usize];
        for r in 0..3 {
            for i in 0..8 {
                s[point(r, i) as usize] = f(r, i) as u8;
            }
        }
        s
    };
    let generators = [
        map(&|r, i| point(r, i + 2)),  // a quarter turn
        map(&|r, i| point(r, 10 - i)), // the reflection in the vertical axis
        map(&|r, i| point(2 - r, i)),  // inner and outer ring swapped
    ];
    let mut group = vec![map(&point)];
    let mut at = 0;
    while at < group.len() {
        for g in &generators {
            let mut composed = [0u8; POINTS as usize];
            for p in 0..POINTS as usize {
                composed[p] = g[group[at][p] as usize];
            }
            if !group.contains(&composed) {
                group.push(composed);
            }
        }
        at += 1;
    }
    group
}

/// The image of the point set `mask` under `s`.
pub fn apply(s: &Symmetry, mut mask: u32) -> u32 {
    let mut image = 0;
    while mask != 0 {
        image |= 1 << s[mask.trailing_zeros() as usize];
        mask &= mask - 1;
    }
    image
}

/// Boards with `white` white and `black` black pieces: `M(24; white, black)`.
pub fn boards(white: u32, black: u32) -> u64 {
    if white + black > POINTS {
        return 0;
    }
    binomial(POINTS, white) * binomial(POINTS - white, black)
}

/// Boards with `white` and `black` pieces up to the 16 symmetries, by Burnside's lemma:
/// the mean over the symmetries of the boards each one fixes (those whose colour is
/// constant on every cycle of the symmetry's permutation).
pub fn boards_up_to_symmetry(white: u32, black: u32) -> u64 {
    let group = symmetries();
    let (w, b) = (white as usize, black as usize);
    let fixed: u64 = group
        .iter()
        .map(|s| {
            // count[x][y]: colourings of the cycles so far with x white and y black points.
            let mut count = vec![vec![0u64; b + 1]; w + 1];
            count[0][0] = 1;
            let mut seen = 0u32;
            for p in 0..POINTS {
                if seen >> p & 1 == 1 {
                    continue;
                }
                let mut len = 0;
                let mut q = p;
                while seen >> q & 1 == 0 {
                    seen |= 1 << q;
                    len += 1;
                    q = u32::from(s[q as usize]);
                }
                let mut next = count.clone();
                for x in 0..=w {
                    for y in 0..=b {
                        if x >= len {
                            next[x][y] += count[x - len][y];
                        }
                        if y >= len {
                            next[x][y] += count[x][y - len];
                        }
                    }
                }
                count = next;
            }
            count[w][b]
        })
        .sum();
    fixed / group.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_has_32_edges_and_16_mills_of_three_points() {
        let n = NEIGHBOURS;
        let degrees: u32 = n.iter().map(|m| m.count_ones()).sum();
        assert_eq!(degrees, 64);
        assert!((0..POINTS).all(|p| n[p as usize] >> p & 1 == 0));
        assert!((0..POINTS).all(|p| (0..POINTS).all(|q| (n[p as usize] >> q & 1) == (n[q as usize] >> p & 1))));
        let m = MILLS;
        assert_eq!(m.len(), 16);
        assert!(m.iter().all(|x| x.count_ones() == 3));
        // Every point lies on exactly two mills.
        assert!((0..POINTS).all(|p| m.iter().filter(|&&x| x >> p & 1 == 1).count() == 2));
    }

    #[test]
    fn sixteen_symmetries_keep_adjacency_and_mills() {
        let group = symmetries();
        assert_eq!(group.len(), 16);
        assert_eq!(group[0], std::array::from_fn(|p| p as u8));
        let (n, m) = (NEIGHBOURS, MILLS.to_vec());
        for s in &group {
            for p in 0..POINTS {
                assert_eq!(apply(s, n[p as usize]), n[s[p as usize] as usize]);
            }
            let mut images: Vec<u32> = m.iter().map(|&x| apply(s, x)).collect();
            images.sort_unstable();
            let mut sorted = m.clone();
            sorted.sort_unstable();
            assert_eq!(images, sorted);
        }
    }

    /// The `k`-subsets of the 24 points in increasing order (Gosper's hack).
    fn subsets(k: u32) -> impl Iterator<Item = u32> {
        let first = if k == 0 { 0 } else { (1u32 << k) - 1 };
        std::iter::successors(Some(first), move |&x| {
            if x == 0 {
                return None;
            }
            let c = x & x.wrapping_neg();
            let r = x + c;
            let next = (((r ^ x) >> 2) / c) | r;
            (next < 1 << POINTS).then_some(next)
        })
    }

    /// Burnside against brute force: the boards that are the smallest of their orbit.
    #[test]
    fn burnside_counts_the_orbits() {
        let group = symmetries();
        for (white, black) in [(3, 0), (2, 2), (3, 2), (3, 3), (4, 1)] {
            let mut orbits = 0u64;
            let mut all = 0u64;
            for w in subsets(white) {
                for b in subsets(black).filter(|b| b & w == 0) {
                    all += 1;
                    if group.iter().all(|s| (apply(s, w), apply(s, b)) >= (w, b)) {
                        orbits += 1;
                    }
                }
            }
            assert_eq!(all, boards(white, black), "({white}, {black})");
            assert_eq!(orbits, boards_up_to_symmetry(white, black), "({white}, {black})");
        }
    }
}
