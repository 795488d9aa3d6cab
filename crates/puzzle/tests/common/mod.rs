//! What the integration tests share: where the reference data is, its rows, and the
//! switch for the long runs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use warpcheck_puzzle::domains::frogs::Frogs;
use warpcheck_puzzle::domains::peg_solitaire::PegSolitaire;
use warpcheck_puzzle::AnyPuzzle;

/// The reference folder (`../shared/games` beside the repository, or `$WARPCHECK_GAMES`),
/// or a panic that says clearly that it is missing and how to point the tests at it.
pub fn games_dir() -> PathBuf {
    let dir = std::env::var_os("WARPCHECK_GAMES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games"));
    assert!(
        dir.join("README.md").is_file() && dir.join("sliding_tile.csv").is_file(),
        "the puzzle reference data is missing: expected {} (shared/games beside the repository); \
         set WARPCHECK_GAMES to its path",
        dir.display()
    );
    dir
}

/// Whether the long runs are asked for (`WARPCHECK_LONG=1`).
pub fn long() -> bool {
    std::env::var("WARPCHECK_LONG").is_ok_and(|v| v == "1")
}

/// One row of a family CSV.
#[derive(Clone, Debug)]
pub struct Row {
    pub instance: String,
    pub total: u64,
    pub depth: Option<u32>,
    pub layers: Vec<u64>,
    pub source: String,
}

impl Row {
    /// Whether the row was computed (complete layers), not quoted or extrapolated.
    pub fn computed(&self) -> bool {
        self.source.starts_with("computed-here")
    }
}

/// Splits a CSV line with double-quoted fields.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().unwrap().push(ch),
        }
    }
    out
}

/// The rows of a family CSV (`instance,total_states,max_depth,layer_sizes,source`).
pub fn rows(file: &str) -> Vec<Row> {
    let path = games_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f = fields(line);
            assert_eq!(f.len(), 5, "{file}: bad row `{line}`");
            let num = |s: &str| s.parse::<u64>().unwrap_or_else(|_| panic!("{file}: bad number `{s}`"));
            Row {
                instance: f[0].clone(),
                total: num(&f[1]),
                depth: (!f[2].is_empty()).then(|| num(&f[2]) as u32),
                layers: f[3].split_whitespace().map(num).collect(),
                source: f[4].clone(),
            }
        })
        .collect()
}

/// The puzzle of a row of `file`, if this crate has it.
pub fn puzzle_of(file: &str, instance: &str) -> Option<AnyPuzzle> {
    let parse = |family: &str, p: &str| AnyPuzzle::parse(family, Some(p)).ok();
    match file {
        "sliding_tile.csv" => parse("sliding-tile", instance),
        "topspin.csv" => parse("top-spin", instance.trim_matches(|c| c == '(' || c == ')')),
        "pancake.csv" => parse("pancake", instance),
        "frogs_and_toads.csv" if instance.starts_with("Fore-and-Aft") => Some(AnyPuzzle::Frogs(Frogs::fore_and_aft())),
        "frogs_and_toads.csv" if instance.starts_with("Frogs-and-Toads") => {
            Some(AnyPuzzle::Frogs(Frogs::frogs_and_toads()))
        }
        "peg_solitaire.csv" if instance.ends_with("(all positions)") && instance.contains("centre vacant (all") => {
            Some(AnyPuzzle::PegSolitaire(PegSolitaire::english()))
        }
        _ => None,
    }
}

/// The five family CSVs.
pub const FAMILIES: [&str; 5] =
    ["sliding_tile.csv", "topspin.csv", "pancake.csv", "peg_solitaire.csv", "frogs_and_toads.csv"];
