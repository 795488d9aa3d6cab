//! The index of a Nine Men's Morris database: the boards with `a` pieces of the side
//! to move and `b` of the other, up to the 16 symmetries, numbered so that one byte per
//! slot holds a database.
//!
//! The layout is Malom's (`nmm_subspaces.csv`, `malom_hash_slots`): the slot of a board
//! is `class(mover) * C(24 - a, b) + colex(other)`, where `class` numbers the `a`-sets
//! of points up to symmetry (`f(a)` classes) and the other side's pieces are ranked
//! among the points the class's representative leaves free, after the symmetry that
//! takes the mover's set to its representative. When the representative has symmetries
//! of its own, the other side's set is the smallest of its images under them; the slots
//! of the other images are holes (`is_canonical` is false), so a database has
//! `f(a) C(24 - a, b)` slots for about `M(24; a, b) / 16` boards.
//!
//! One table of `2^24` words gives every set its class and a symmetry to the
//! representative (64 MiB, built once on all cores); symmetries are applied with
//! three 256-entry tables each. Nothing allocates per board, so the same steps port to
//! a GPU kernel.

use super::board::{symmetries, FULL, POINTS};
use crate::rank::binomial::{binomial, colex_rank, colex_unrank};
use rayon::prelude::*;
use std::sync::OnceLock;

/// Symmetries of the board.
const SYMMETRIES: usize = 16;

/// The canonical numbering of boards up to symmetry.
pub struct Index {
    /// Per set of points: its class (among the sets of its size) `<< 4`, and a
    /// symmetry that takes it to the class's representative.
    pub(super) canon: Vec<u32>,
    /// Per number of points, the representatives (the smallest set of each class) in
    /// increasing order.
    pub(super) reps: Vec<Vec<u32>>,
    /// Per number of points and class, the symmetries that fix the representative
    /// (bit `s` for symmetry `s`; bit 0, the identity, always).
    pub(super) stabilisers: Vec<Vec<u16>>,
    /// Per symmetry and byte of a set, the image of that byte's points.
    pub(super) images: Box<[[[u32; 256]; 3]; SYMMETRIES]>,
}

impl Index {
    /// The index, built on first use (about a second on two cores).
    pub fn get() -> &'static Index {
        static INDEX: OnceLock<Index> = OnceLock::new();
        INDEX.get_or_init(Index::build)
    }

    fn build() -> Index {
        let group = symmetries();
        let mut images = Box::new([[[0u32; 256]; 3]; SYMMETRIES]);
        for (s, sym) in group.iter().enumerate() {
            for chunk in 0..3 {
                for byte in 0..256u32 {
                    images[s][chunk][byte as usize] = super::board::apply(sym, byte << (8 * chunk));
                }
            }
        }
        let image = |s: usize, m: u32| -> u32 {
            images[s][0][(m & 0xff) as usize]
                | images[s][1][(m >> 8 & 0xff) as usize]
                | images[s][2][(m >> 16) as usize]
        };
        // The first symmetry that gives the smallest image; 0 (the identity) exactly
        // for the representatives.
        let mut canon: Vec<u32> = (0..1u32 << POINTS)
            .into_par_iter()
            .map(|m| (0..SYMMETRIES).min_by_key(|&s| image(s, m)).expect("16 symmetries") as u32)
            .collect();
        let mut reps = vec![Vec::new(); POINTS as usize + 1];
        for (m, &s) in canon.iter().enumerate() {
            if s == 0 {
                reps[m.count_ones() as usize].push(m as u32);
            }
        }
        canon.par_iter_mut().enumerate().for_each(|(m, entry)| {
            let s = *entry as usize;
            let rep = image(s, m as u32);
            let class = reps[rep.count_ones() as usize].binary_search(&rep).expect("a representative");
            *entry = (class as u32) << 4 | s as u32;
        });
        let stabilisers = reps
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&rep| (0..SYMMETRIES).filter(|&s| image(s, rep) == rep).fold(0u16, |acc, s| acc | 1 << s))
                    .collect()
            })
            .collect();
        Index { canon, reps, stabilisers, images }
    }

    /// The image of the set `m` under symmetry `s` (0..16).
    #[inline]
    pub fn image(&self, s: usize, m: u32) -> u32 {
        let t = &self.images[s];
        t[0][(m & 0xff) as usize] | t[1][(m >> 8 & 0xff) as usize] | t[2][(m >> 16) as usize]
    }

    /// The number of classes of `a`-sets of points (`f(a)`).
    pub fn classes(&self, a: u32) -> u64 {
        self.reps[a as usize].len() as u64
    }

    /// The slots of the database with `a` pieces to move and `b` others.
    pub fn slots(&self, a: u32, b: u32) -> u64 {
        self.classes(a) * binomial(POINTS - a, b)
    }

    /// The canonical form of a board: the mover's representative and the smallest
    /// image of the other side's set under the symmetries that take the mover's set
    /// there; also the mover's class.
    #[inline]
    pub fn canonical(&self, mover: u32, other: u32) -> (u32, u32, u64) {
        let a = mover.count_ones() as usize;
        let entry = self.canon[mover as usize];
        let class = (entry >> 4) as usize;
        let rep = self.reps[a][class];
        let mut best = self.image((entry & 15) as usize, other);
        let mut stab = self.stabilisers[a][class] & !1;
        if stab != 0 {
            let first = best;
            while stab != 0 {
                let g = stab.trailing_zeros() as usize;
                best = best.min(self.image(g, first));
                stab &= stab - 1;
            }
        }
        (rep, best, class as u64)
    }

    /// The slot of a board (of any of its symmetric images) in its database.
    #[inline]
    pub fn rank(&self, mover: u32, other: u32) -> u64 {
        let (rep, other, class) = self.canonical(mover, other);
        class * binomial(POINTS - rep.count_ones(), other.count_ones()) + colex_rank(compress(other, !rep & FULL))
    }

    /// The board at `slot` of the database `(a, b)`: the representative of its class
    /// and the other side's set (canonical or a hole).
    #[inline]
    pub fn unrank(&self, a: u32, b: u32, slot: u64) -> (u32, u32) {
        let per_class = binomial(POINTS - a, b);
        let rep = self.reps[a as usize][(slot / per_class) as usize];
        let within = colex_unrank(slot % per_class, POINTS - a, b);
        (rep, expand(within, !rep & FULL))
    }

    /// Whether the board at a slot is the canonical one (not a hole).
    #[inline]
    pub fn is_canonical(&self, rep: u32, other: u32) -> bool {
        self.canonical(rep, other).1 == other
    }
}

/// The set `other` (inside `free`) as a set of positions among the points of `free`.
#[inline]
fn compress(mut other: u32, free: u32) -> u64 {
    let mut out = 0u64;
    while other != 0 {
        let p = other.trailing_zeros();
        out |= 1 << (free & ((1 << p) - 1)).count_ones();
        other &= other - 1;
    }
    out
}

/// The inverse of [`compress`]: positions among the points of `free` as points.
#[inline]
fn expand(mut within: u64, mut free: u32) -> u32 {
    let mut out = 0;
    let mut at = 0;
    while within != 0 {
        let p = free.trailing_zeros();
        if within & 1 << at != 0 {
            out |= 1 << p;
            within &= !(1 << at);
        }
        free &= free - 1;
        at += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::morris::board::{apply, boards_up_to_symmetry};

    #[test]
    fn classes_are_the_sets_up_to_symmetry() {
        let index = Index::get();
        for a in 0..=12 {
            assert_eq!(index.classes(a), boards_up_to_symmetry(a, 0), "{a}");
        }
    }

    /// Every slot of a small database unranks to a board whose rank is the slot; the
    /// canonical slots are the boards up to symmetry, and every image of a board has
    /// the board's rank.
    #[test]
    fn slots_round_trip_and_count_the_boards_up_to_symmetry() {
        let index = Index::get();
        let group = symmetries();
        for (a, b) in [(3, 3), (4, 2), (2, 5), (4, 4), (6, 2), (9, 1)] {
            let mut canonical = 0;
            for slot in 0..index.slots(a, b) {
                let (m, o) = index.unrank(a, b, slot);
                assert_eq!((m.count_ones(), o.count_ones(), m & o), (a, b, 0));
                if !index.is_canonical(m, o) {
                    continue;
                }
                canonical += 1;
                assert_eq!(index.rank(m, o), slot);
                if slot % 97 == 0 {
                    for s in &group {
                        assert_eq!(index.rank(apply(s, m), apply(s, o)), slot, "({a}, {b}) slot {slot}");
                    }
                }
            }
            assert_eq!(canonical, boards_up_to_symmetry(a, b), "({a}, {b})");
        }
    }

    #[test]
    fn compress_and_expand_are_inverse() {
        let free = 0b1011_0110_1101u32;
        for within in 0..1u64 << free.count_ones() {
            let set = expand(within, free);
            assert_eq!(set & !free, 0);
            assert_eq!(compress(set, free), within);
        }
    }
}
