//! One-bit breadth-first searches, which need a property that tells the layers apart
//! (thesis Def. 31-33, Alg. 14.3).
//!
//! `alternation`: move alternation. Every move changes the colour of the index (the
//! sliding tile's blank colour), so scan `l` expands every set bit of the colour of
//! depth `l` (depths `l, l-2, ...`: the thesis's re-expansions) and sets only bits of
//! the other colour, which nobody reads during the scan. A bit is first set in its own
//! layer, so layer `l+1` = popcount of its colour after scan `l` minus the popcount
//! after scan `l-1`. The search ends when a layer is empty. Corrections to the printed
//! Alg. 14.3 (digest 003b §6.5): the scanned colour follows the start's colour, the
//! colour is the checkerboard colour for even widths, and the bucket loop is `< nm`.
//! The horizontal moves' bucket OR of the thesis is not taken: every move goes through
//! [`Puzzle::successors`], where a horizontal move costs no ranking anyway.
//!
//! `layers`: layer selection. The depth of an index is known from its range, so
//! layer `d` has its own bit vector and is expanded exactly once into the vector of
//! layer `d+1`; only two layers are held at once unless the caller keeps them all.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Algorithm, Clock, Report};
use crate::bits::{for_each_bit, par_words, BitVec};
use crate::{Error, Property, Puzzle};

/// One-bit BFS with move alternation.
pub(crate) fn alternation<P: Puzzle>(puzzle: &P, allowed: u64, max_depth: u32, clock: &Clock) -> Result<Report, Error> {
    let Property::Alternation { colours } = puzzle.property() else {
        return Err(Error::Unsupported(format!("{} has no move-alternation property", puzzle.name())));
    };
    let n = puzzle.size();
    let open = BitVec::new(n, "the bit vector", allowed)?;
    let start = puzzle.start();
    open.set(start);
    let start_colour = usize::from(colours[1].iter().any(|r| r.contains(&start)));
    // Popcount per colour after the previous scan.
    let mut count = [0u64; 2];
    count[start_colour] = 1;
    let mut layers = vec![1u64];
    let mut expansions = 0;
    clock.report(0, 1, 1);
    let mut complete = false;
    while (layers.len() as u32) <= max_depth {
        let depth = layers.len() - 1;
        let scanned = (start_colour + depth) % 2;
        let expanded = AtomicU64::new(0);
        for range in &colours[scanned] {
            par_words(
                range.clone(),
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
                    for &s in succ.iter() {
                        open.set(s);
                    }
                    if bits != 0 {
                        expanded.fetch_add(u64::from(bits.count_ones()), Relaxed);
                    }
                },
            );
        }
        expansions += expanded.into_inner();
        let other = 1 - scanned;
        let now: u64 = colours[other].iter().map(|r| open.count_ones_in(r.clone())).sum();
        let new = now - count[other];
        count[other] = now;
        if new == 0 {
            complete = true;
            break;
        }
        layers.push(new);
        clock.report(depth as u32 + 1, new, count[0] + count[1]);
    }
    Ok(Report {
        puzzle: puzzle.name(),
        algorithm: Algorithm::OneBitAlternation,
        index_space: n,
        bytes: open.bytes(),
        states: count[0] + count[1],
        depth: Some(layers.len() as u32 - 1),
        scans: layers.len() as u32,
        layers: Some(layers),
        expansions,
        seconds: clock.seconds(),
        complete,
    })
}

/// The layers' bit vectors of a layered search, layer `d` covering `ranges[d]`.
pub(crate) struct Layers {
    pub(crate) ranges: Vec<std::ops::Range<u64>>,
    /// `Some` for the layers kept (all of them if asked, else the last).
    pub(crate) bits: Vec<Option<BitVec>>,
}

impl Layers {
    /// Whether index `i` was reached (in a kept layer).
    pub(crate) fn contains(&self, i: u64) -> Option<u32> {
        let d = self.ranges.iter().position(|r| r.contains(&i))?;
        let v = self.bits.get(d)?.as_ref()?;
        v.get(i - self.ranges[d].start).then_some(d as u32)
    }
}

/// One-bit BFS with layer selection. Keeps every layer's vector if `keep`; stops after
/// the layer of `stop_at`, if given, or after depth `max_depth`.
pub(crate) fn layers<P: Puzzle>(
    puzzle: &P,
    allowed: u64,
    keep: bool,
    stop_at: Option<u64>,
    max_depth: u32,
    clock: &Clock,
) -> Result<(Report, Layers), Error> {
    let Property::LayerSelection { layers: ranges } = puzzle.property() else {
        return Err(Error::Unsupported(format!("{} has no layer-selection property", puzzle.name())));
    };
    let start = puzzle.start();
    let first = ranges.first().filter(|r| r.contains(&start)).ok_or_else(|| {
        Error::Unsupported(format!("{}: the start is not in layer 0 of its layer-selection property", puzzle.name()))
    })?;
    let mut held = 0u64;
    let alloc = |range: &std::ops::Range<u64>, held: &mut u64| {
        let v = BitVec::new(range.end - range.start, "a layer's bit vector", allowed.saturating_sub(*held))?;
        *held += v.bytes();
        Ok::<_, Error>(v)
    };
    let mut bits: Vec<Option<BitVec>> = vec![Some(alloc(first, &mut held)?)];
    if let Some(v) = &bits[0] {
        v.set(start - first.start);
    }
    let mut most = held;
    let mut layers = vec![1u64];
    let mut expansions = 0;
    clock.report(0, 1, 1);
    let target_depth = stop_at.and_then(|t| ranges.iter().position(|r| r.contains(&t)));
    let mut complete = layers.len() == ranges.len();
    while !complete && target_depth.is_none_or(|d| layers.len() <= d) && (layers.len() as u32) <= max_depth {
        let d = layers.len() - 1;
        let (here, there) = (ranges[d].clone(), ranges[d + 1].clone());
        let next = alloc(&there, &mut held)?;
        most = most.max(held);
        let cur = bits[d].as_ref().expect("the current layer is kept");
        expansions += layers[d];
        par_words(
            0..here.end - here.start,
            || (puzzle.scratch(), Vec::new()),
            |(scratch, succ), w, mask| {
                let word = cur.words()[w].load(Relaxed) & mask;
                succ.clear();
                for_each_bit(word, here.start + w as u64 * 64, |i| {
                    puzzle.successors(i, scratch, |_, s| {
                        debug_assert!(there.contains(&s), "a successor outside the next layer");
                        next.prefetch(s - there.start);
                        succ.push(s - there.start);
                    });
                });
                for &s in succ.iter() {
                    next.set(s);
                }
            },
        );
        let new = next.count_ones();
        if !keep {
            if let Some(old) = bits[d].take() {
                held -= old.bytes();
            }
        }
        bits.push(Some(next));
        if new == 0 {
            complete = true;
            break;
        }
        layers.push(new);
        complete = layers.len() == ranges.len();
        clock.report(d as u32 + 1, new, layers.iter().sum());
    }
    let report = Report {
        puzzle: puzzle.name(),
        algorithm: Algorithm::OneBitLayers,
        index_space: puzzle.size(),
        bytes: most,
        states: layers.iter().sum(),
        depth: Some(layers.len() as u32 - 1),
        scans: layers.len() as u32,
        layers: Some(layers),
        expansions,
        seconds: clock.seconds(),
        complete,
    };
    Ok((report, Layers { ranges, bits }))
}
