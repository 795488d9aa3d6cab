//! Every computed row of the five family CSVs of `../shared/games` reproduced exactly:
//! states, largest depth and every layer, by the search `Auto` picks.
//!
//! CI runs the rows of at most [`CI_LIMIT`] states (sliding tile up to 2x5/5x2, Top-Spin
//! up to (11,4), pancake up to 10, Fore-and-Aft). The others (sliding tile 2x6/6x2/3x4/
//! 4x3, pancake 11, peg solitaire, Frogs-and-Toads) run with
//!
//! ```text
//! WARPCHECK_LONG=1 cargo test -p warpcheck-puzzle --release --test reference -- --nocapture
//! ```
//!
//! (minutes on 16 cores; Frogs-and-Toads, 4.8e9 states and 117 levels, dominates).

mod common;

use common::{long, puzzle_of, rows, FAMILIES};
use warpcheck_puzzle::Options;

/// Rows up to this many states run in CI.
const CI_LIMIT: u64 = 20_000_000;

fn check(file: &str) {
    let mut checked = 0;
    for row in rows(file).into_iter().filter(|r| r.computed()) {
        let Some(puzzle) = puzzle_of(file, &row.instance) else { continue };
        if row.total > CI_LIMIT && !long() {
            eprintln!("{file}: {} ({} states) skipped; set WARPCHECK_LONG=1", row.instance, row.total);
            continue;
        }
        let report = puzzle.search(&Options::default()).unwrap_or_else(|e| panic!("{}: {e}", row.instance));
        eprintln!(
            "{file}: {} {} states, depth {:?}, {} in {:.2} s",
            row.instance,
            report.states,
            report.depth,
            report.algorithm.name(),
            report.seconds
        );
        assert!(report.complete, "{}", row.instance);
        assert_eq!(report.states, row.total, "{}: states", row.instance);
        assert_eq!(report.depth, row.depth, "{}: depth", row.instance);
        assert_eq!(report.layers.as_deref(), Some(&row.layers[..]), "{}: layers", row.instance);
        checked += 1;
    }
    assert!(checked > 0, "{file}: no row checked");
}

#[test]
fn sliding_tile() {
    check("sliding_tile.csv");
}

#[test]
fn top_spin() {
    check("topspin.csv");
}

#[test]
fn pancake() {
    check("pancake.csv");
}

#[test]
fn frogs_and_toads_and_fore_and_aft() {
    check("frogs_and_toads.csv");
}

/// The first layers of Frogs-and-Toads in CI (the whole row has 4.8e9 states): 12
/// layers, or `$WARPCHECK_FROGS_DEPTH`. The vectors take 1.8 GB of address space, but
/// zeroed pages cost nothing until touched.
#[test]
fn frogs_and_toads_first_layers() {
    let row = rows("frogs_and_toads.csv").into_iter().find(|r| r.instance.starts_with("Frogs-and-Toads")).unwrap();
    let depth: u32 = std::env::var("WARPCHECK_FROGS_DEPTH").ok().and_then(|d| d.parse().ok()).unwrap_or(12);
    let puzzle = puzzle_of("frogs_and_toads.csv", &row.instance).unwrap();
    let options = Options { max_depth: Some(depth), ..Options::default() };
    let report = puzzle.search(&options).unwrap();
    eprintln!("Frogs-and-Toads to depth {depth}: {} states in {:.2} s", report.states, report.seconds);
    assert!(!report.complete);
    assert_eq!(report.depth, Some(depth));
    assert_eq!(report.layers.as_deref(), Some(&row.layers[..=depth as usize]));
}

#[test]
fn peg_solitaire_all_positions() {
    if !long() {
        eprintln!("peg solitaire (187,636,299 states) skipped; set WARPCHECK_LONG=1");
        return;
    }
    check("peg_solitaire.csv");
}

/// Every row with a total, computed or closed-form or published, whose puzzle this
/// crate has: the closed-form number of reachable states equals the row's total.
#[test]
fn closed_form_totals() {
    let mut checked = 0;
    for file in FAMILIES {
        for row in rows(file) {
            if let Some(total) = puzzle_of(file, &row.instance).and_then(|p| p.closed_form_states()) {
                assert_eq!(total, row.total, "{file}: {}", row.instance);
                checked += 1;
            }
        }
    }
    assert!(checked >= 35, "only {checked} closed-form totals checked");
}

/// Every computed row names an instance this crate can build (the peg-solitaire rows
/// up to symmetry or finishing in the centre are checked in `peg_analysis.rs`).
#[test]
fn every_computed_row_has_a_puzzle() {
    for file in FAMILIES {
        for row in rows(file).into_iter().filter(|r| r.computed()) {
            let analysis = file == "peg_solitaire.csv" && puzzle_of(file, &row.instance).is_none();
            assert!(analysis || puzzle_of(file, &row.instance).is_some(), "{file}: {}", row.instance);
        }
    }
}
