//! Two-bit breadth-first search (thesis Alg. 14.1, after Cooperman and Finkelstein 1992).
//!
//! Each index holds 0 (not seen) or `1 + d mod 3` (seen at depth `d`); the thesis codes
//! "not seen" as 3, zero here so that the vector starts zeroed. Level `L` expands the
//! states of depth `L-1` and marks each unseen successor with `L mod 3`. Every writer of
//! a level writes the same value, so a `fetch_or` on the word claims a cell and its old
//! value says who was first: the layer sizes are counted exactly, without a popcount.
//!
//! Correction (`../shared/games/README.md`, "Erratum ... Alg. 14.1 re-expands old
//! layers"): as printed, level `L` expands every cell of value `(L-1) mod 3`, which
//! includes the depths `L-4, L-7, ...`: the counts stay right but the work grows with
//! the depth. With `frontier = true` a second bit vector holds the states still to
//! expand. A level scans it instead of the cells, expands a set bit only if its cell says
//! depth `L-1` (a bit set during this level has the value `L mod 3` and waits for the
//! next), and clears exactly the bits it expanded. Each state is expanded once, at 3
//! bits per index; the depth mod 3 stays available for walking back a shortest path.
//! `frontier = false` is the printed algorithm at 2 bits per index.
//!
//! The successors of the states of one 64-bit word are generated first (each one's
//! word prefetched) and claimed after, so that the cache misses of random successors
//! overlap (pancake 11: 19.1 s of CPU instead of 22.8 s).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Algorithm, Clock, Report};
use crate::bits::{for_each_bit, par_words, BitVec, TwoBitVec};
use crate::{Error, Puzzle};

/// Runs the search; stops early after the level that reaches `stop_at`, if given, or
/// after depth `max_depth`. Returns the report and the cells (for walking back).
pub(crate) fn run<P: Puzzle>(
    puzzle: &P,
    frontier: bool,
    allowed: u64,
    stop_at: Option<u64>,
    max_depth: u32,
    clock: &Clock,
) -> Result<(Report, TwoBitVec), Error> {
    let n = puzzle.size();
    let cells = TwoBitVec::new(n, "the two-bit vector", allowed)?;
    let front = match frontier {
        true => Some(BitVec::new(n, "the frontier bit vector", allowed.saturating_sub(cells.bytes()))?),
        false => None,
    };
    let start = puzzle.start();
    cells.claim(start, 0);
    if let Some(f) = &front {
        f.set(start);
    }
    let mut layers = vec![1u64];
    let mut expansions = 0;
    clock.report(0, 1, 1);
    let mut complete = false;
    while stop_at.is_none_or(|t| cells.depth_mod3(t).is_none()) && (layers.len() as u32) <= max_depth {
        let level = layers.len() as u32;
        let (prev, next) = (((level - 1) % 3) as u8, (level % 3) as u8);
        let found = AtomicU64::new(0);
        let expanded = AtomicU64::new(0);
        let flush = |new: u64, done: u64| {
            if done > 0 {
                found.fetch_add(new, Relaxed);
                expanded.fetch_add(done, Relaxed);
            }
        };
        match &front {
            Some(front) => par_words(
                0..n,
                || (puzzle.scratch(), Vec::new()),
                |(scratch, succ), w, mask| {
                    let bits = front.words()[w].load(Relaxed) & mask;
                    if bits == 0 {
                        return;
                    }
                    let (mut done, mut new) = (0u64, 0u64);
                    succ.clear();
                    for_each_bit(bits, w as u64 * 64, |i| {
                        if cells.depth_mod3(i) == Some(prev) {
                            done |= 1 << (i % 64);
                            puzzle.successors(i, scratch, |_, s| {
                                cells.prefetch(s);
                                succ.push(s);
                            });
                        }
                    });
                    for &s in succ.iter() {
                        if cells.claim(s, next) {
                            front.set(s);
                            new += 1;
                        }
                    }
                    if done != 0 {
                        front.words()[w].fetch_and(!done, Relaxed);
                        flush(new, u64::from(done.count_ones()));
                    }
                },
            ),
            None => par_words(
                0..n.div_ceil(32) * 64,
                || (puzzle.scratch(), Vec::new()),
                |(scratch, succ), w, _| {
                    let at = cells.cells_at(w, prev);
                    let done = u64::from(at.count_ones());
                    succ.clear();
                    for_each_bit(at, 0, |b| {
                        puzzle.successors(w as u64 * 32 + b / 2, scratch, |_, s| {
                            cells.prefetch(s);
                            succ.push(s);
                        });
                    });
                    let new = succ.iter().map(|&s| u64::from(cells.claim(s, next))).sum();
                    flush(new, done);
                },
            ),
        }
        expansions += expanded.into_inner();
        let new = found.into_inner();
        if new == 0 {
            complete = true;
            break;
        }
        layers.push(new);
        clock.report(level, new, layers.iter().sum());
    }
    let report = Report {
        puzzle: puzzle.name(),
        algorithm: if frontier { Algorithm::TwoBit } else { Algorithm::TwoBitLiteral },
        index_space: n,
        bytes: cells.bytes() + front.as_ref().map_or(0, BitVec::bytes),
        states: layers.iter().sum(),
        depth: Some(layers.len() as u32 - 1),
        scans: layers.len() as u32,
        layers: Some(layers),
        expansions,
        seconds: clock.seconds(),
        complete,
    };
    Ok((report, cells))
}
