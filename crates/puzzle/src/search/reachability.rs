//! One-bit reachability (thesis Alg. 14.2): one bit per index, no open/closed
//! distinction. Each scan expands every set bit; a successor ahead of the scan is
//! expanded in the same scan, one behind in the next. The search ends after a scan that
//! sets no new bit; Theorem 10 bounds the scans by the BFS radius (plus that last one).
//! The result is the reachable set's size; depths are not known.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Algorithm, Clock, Report};
use crate::bits::{for_each_bit, par_words, BitVec};
use crate::{Error, Puzzle};

/// Runs the search.
pub(crate) fn run<P: Puzzle>(puzzle: &P, allowed: u64, clock: &Clock) -> Result<Report, Error> {
    let n = puzzle.size();
    let open = BitVec::new(n, "the bit vector", allowed)?;
    open.set(puzzle.start());
    let mut states = 1u64;
    let mut scans = 0;
    let mut expansions = 0;
    clock.report(0, 1, 1);
    loop {
        scans += 1;
        let found = AtomicU64::new(0);
        let expanded = AtomicU64::new(0);
        par_words(
            0..n,
            || (puzzle.scratch(), Vec::new()),
            |(scratch, succ), w, mask| {
                let bits = open.words()[w].load(Relaxed) & mask;
                succ.clear();
                for_each_bit(bits, w as u64 * 64, |i| {
                    puzzle.successors(i, scratch, |_, s| {
                        open.prefetch(s);
                        succ.push(s);
                    });
                });
                let new: u64 = succ.iter().map(|&s| u64::from(open.set(s))).sum();
                if bits != 0 {
                    found.fetch_add(new, Relaxed);
                    expanded.fetch_add(u64::from(bits.count_ones()), Relaxed);
                }
            },
        );
        expansions += expanded.into_inner();
        let new = found.into_inner();
        states += new;
        clock.report(scans, new, states);
        if new == 0 {
            break;
        }
    }
    debug_assert_eq!(states, open.count_ones());
    Ok(Report {
        puzzle: puzzle.name(),
        algorithm: Algorithm::Reachability,
        index_space: n,
        bytes: open.bytes(),
        states,
        depth: None,
        layers: None,
        scans,
        expansions,
        seconds: clock.seconds(),
        complete: true,
    })
}
