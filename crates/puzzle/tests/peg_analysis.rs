//! The four peg-solitaire rows of `../shared/games/peg_solitaire.csv`: all positions,
//! positions up to the 8 symmetries (OEIS A112737), and positions that can still finish
//! with one peg in the centre (all, and up to symmetry: OEIS A112738). The search has
//! 187,636,299 states and holds 1 GiB of layers, so it runs only with
//!
//! ```text
//! WARPCHECK_LONG=1 cargo test -p warpcheck-puzzle --release --test peg_analysis -- --nocapture
//! ```

mod common;

use common::{long, rows};
use warpcheck_puzzle::domains::peg_analysis::analyse;
use warpcheck_puzzle::Options;

#[test]
fn peg_solitaire_rows() {
    let rows = rows("peg_solitaire.csv");
    assert_eq!(rows.len(), 4, "peg_solitaire.csv: expected four rows");
    if !long() {
        eprintln!("peg solitaire analysis (187,636,299 states) skipped; set WARPCHECK_LONG=1");
        return;
    }
    let counts = analyse(&Options::default()).unwrap();
    let find = |words: &[&str]| {
        rows.iter()
            .find(|r| words.iter().all(|w| r.instance.contains(w)))
            .unwrap_or_else(|| panic!("no row with {words:?}"))
    };
    let want = [
        (find(&["centre vacant (all positions)"]), &counts.all),
        (find(&["up to the 8 board symmetries"]), &counts.symmetry_classes),
        (find(&["one peg in the centre (all positions)"]), &counts.centre_finish),
        (find(&["one peg in the centre (up to symmetry)"]), &counts.centre_finish_classes),
    ];
    for (row, got) in want {
        assert_eq!(got, &row.layers, "{}", row.instance);
        assert_eq!(got.iter().sum::<u64>(), row.total, "{}", row.instance);
        assert_eq!(got.len() as u32 - 1, row.depth.unwrap(), "{}", row.instance);
    }
}
