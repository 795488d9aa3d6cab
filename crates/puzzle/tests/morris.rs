//! The Nine Men's Morris subspaces against `../shared/games/nmm_subspaces.csv`: for
//! every piece count (k1 white, k2 black, 0 to 9 each) the boards `M(24; k1, k2)`, the
//! boards up to the 16 symmetries (Burnside's lemma here; the reference computed them by
//! Burnside and by brute force) and Malom's hash slots `f(k1) C(24 - k1, k2)`, `f` the
//! white sets up to symmetry.

mod common;

use warpcheck_puzzle::morris::{boards, boards_up_to_symmetry};
use warpcheck_puzzle::rank::binomial::binomial;

#[test]
fn subspace_sizes_equal_the_reference() {
    let path = common::games_dir().join("nmm_subspaces.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (k1, k2, raw, sym, malom) = (
        col("k1_white"),
        col("k2_black"),
        col("boards_M24"),
        col("boards_up_to_16_symmetries"),
        col("malom_hash_slots"),
    );
    let mut rows = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| -> u64 { f[i].parse().unwrap_or_else(|_| panic!("{line}: column {i}")) };
        let (w, b) = (n(k1) as u32, n(k2) as u32);
        assert_eq!(boards(w, b), n(raw), "({w}, {b}) boards");
        assert_eq!(boards_up_to_symmetry(w, b), n(sym), "({w}, {b}) up to symmetry");
        assert_eq!(boards_up_to_symmetry(w, 0) * binomial(24 - w, b), n(malom), "({w}, {b}) Malom's slots");
        rows += 1;
    }
    assert_eq!(rows, 100);
}
