//! Breadth-first searches over a bit vector indexed by a puzzle's perfect hash, on all
//! cores (the current rayon pool), after the thesis's Ch. 14.1:
//!
//! - [`two_bit`]: two-bit BFS (Alg. 14.1, Cooperman and Finkelstein): depth mod 3 per
//!   index; corrected with a one-bit frontier so that each state is expanded once
//!   ([`Algorithm::TwoBit`]), or as printed ([`Algorithm::TwoBitLiteral`], which
//!   re-expands old layers every third level but needs only 2 bits per index);
//! - [`reachability`]: one-bit reachability (Alg. 14.2): the reachable set, no layers;
//! - [`one_bit`]: one-bit BFS with move alternation (Alg. 14.3, sliding tile) or with
//!   layer selection (peg solitaire: one vector per layer).
//!
//! Every search sets bits with atomic `fetch_or` on 64-bit words from all threads and
//! reports the states, the largest depth and the states per depth ([`Report`]); a
//! progress callback hears of every layer (or scan). Vectors that do not fit the memory
//! allowed are an [`Error::Memory`] before anything runs.

pub mod one_bit;
pub mod reachability;
pub mod two_bit;

use std::time::Instant;

use crate::{Error, Property, Puzzle};

/// Which search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The fastest that applies and fits: one-bit with layer selection where the puzzle
    /// has it, else two-bit BFS with its frontier (3 bits per index), else the
    /// one-bit BFS with move alternation, else the literal two-bit BFS (2 bits).
    Auto,
    /// Two-bit BFS (depth mod 3) with a one-bit frontier: each state expanded once.
    TwoBit,
    /// Two-bit BFS exactly as Alg. 14.1 (2 bits per index; re-expands old layers).
    TwoBitLiteral,
    /// One-bit reachability (Alg. 14.2): states, but no depths.
    Reachability,
    /// One-bit BFS with move alternation (Alg. 14.3).
    OneBitAlternation,
    /// One-bit BFS with layer selection: one bit vector per layer.
    OneBitLayers,
}

impl Algorithm {
    /// Every algorithm but `Auto`.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::TwoBit,
        Algorithm::TwoBitLiteral,
        Algorithm::Reachability,
        Algorithm::OneBitAlternation,
        Algorithm::OneBitLayers,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::TwoBit => "two-bit",
            Algorithm::TwoBitLiteral => "two-bit-literal",
            Algorithm::Reachability => "reachability",
            Algorithm::OneBitAlternation => "one-bit-alternation",
            Algorithm::OneBitLayers => "one-bit-layers",
        }
    }

    /// The algorithm of a name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        std::iter::once(Algorithm::Auto).chain(Algorithm::ALL).find(|a| a.name() == name)
    }

    /// Bytes of bit vectors the algorithm needs for `puzzle` (the largest pair of layers
    /// for the layered search), or why it does not apply.
    pub fn bytes_needed<P: Puzzle>(self, puzzle: &P) -> Result<u64, Error> {
        let words = |bits: u64| bits.div_ceil(64).saturating_mul(8);
        let n = puzzle.size();
        match (self, puzzle.property()) {
            (Algorithm::TwoBit, _) => Ok(words(n.saturating_mul(2)).saturating_add(words(n))),
            (Algorithm::TwoBitLiteral, _) => Ok(words(n.saturating_mul(2))),
            (Algorithm::Reachability, _) | (Algorithm::OneBitAlternation, Property::Alternation { .. }) => Ok(words(n)),
            (Algorithm::OneBitLayers, Property::LayerSelection { layers }) => Ok(layers
                .windows(2)
                .map(|w| words(w[0].end - w[0].start) + words(w[1].end - w[1].start))
                .max()
                .unwrap_or(8)),
            (Algorithm::Auto, _) => Err(Error::Unsupported("`auto` is resolved by `Algorithm::choose`".into())),
            (a, _) => Err(Error::Unsupported(format!(
                "{} does not apply to {}: it has no {} property",
                a.name(),
                puzzle.name(),
                if a == Algorithm::OneBitLayers { "layer-selection" } else { "move-alternation" }
            ))),
        }
    }

    /// `self`, or for `Auto` the algorithm it stands for on `puzzle` within `allowed`
    /// bytes.
    pub fn choose<P: Puzzle>(self, puzzle: &P, allowed: u64) -> Algorithm {
        if self != Algorithm::Auto {
            return self;
        }
        let order = match puzzle.property() {
            Property::LayerSelection { .. } => [Algorithm::OneBitLayers, Algorithm::TwoBit, Algorithm::TwoBitLiteral],
            Property::Alternation { .. } => [Algorithm::TwoBit, Algorithm::OneBitAlternation, Algorithm::TwoBitLiteral],
            Property::None => [Algorithm::TwoBit, Algorithm::TwoBitLiteral, Algorithm::TwoBitLiteral],
        };
        order.into_iter().find(|a| a.bytes_needed(puzzle).is_ok_and(|b| b <= allowed)).unwrap_or(order[0])
    }
}

/// What a search reports after each layer (BFS) or scan (reachability).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The depth just completed (BFS), or the scan's number (reachability).
    pub step: u32,
    /// States found by this layer or scan.
    pub new_states: u64,
    /// States found so far.
    pub states: u64,
    /// Seconds since the search began.
    pub seconds: f64,
}

/// How to search.
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    /// The algorithm (default: `Auto`).
    pub algorithm: Option<Algorithm>,
    /// Bytes the bit vectors may take (default: 3/4 of the memory the OS reports
    /// available, 8 GiB if it does not say).
    pub memory: Option<u64>,
    /// Called on the searching thread after every layer or scan.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Stop after this BFS depth (the report is then not `complete`). Reachability has
    /// no depths and refuses it.
    pub max_depth: Option<u32>,
}

impl Options<'_> {
    /// The bytes allowed.
    pub fn allowed(&self) -> u64 {
        self.memory.unwrap_or_else(|| warpcheck_store::memory::available().unwrap_or(8 << 30) / 4 * 3)
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The instance (`sliding-tile 3x4`).
    pub puzzle: String,
    /// The algorithm that ran (never `Auto`).
    pub algorithm: Algorithm,
    /// The size of the index space.
    pub index_space: u64,
    /// Bytes of bit vectors (the largest held at once).
    pub bytes: u64,
    /// States reachable from the start, the start included.
    pub states: u64,
    /// The largest BFS depth (`None` for reachability).
    pub depth: Option<u32>,
    /// States per depth, depth 0 first (`None` for reachability).
    pub layers: Option<Vec<u64>>,
    /// Passes over the bit vector (levels, or reachability scans).
    pub scans: u32,
    /// States expanded, re-expansions included.
    pub expansions: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Whether the search ran to the end; false when it stopped at `max_depth` (the
    /// states and layers then count only depths up to it).
    pub complete: bool,
}

/// Searches `puzzle` from its start.
pub fn search<P: Puzzle>(puzzle: &P, options: &Options) -> Result<Report, Error> {
    let allowed = options.allowed();
    let algorithm = options.algorithm.unwrap_or(Algorithm::Auto).choose(puzzle, allowed);
    let needed = algorithm.bytes_needed(puzzle)?;
    if needed > allowed {
        return Err(Error::Memory { what: format!("{} on {}", algorithm.name(), puzzle.name()), needed, allowed });
    }
    let clock = Clock { start: Instant::now(), progress: options.progress };
    let max_depth = options.max_depth.unwrap_or(u32::MAX);
    match algorithm {
        Algorithm::TwoBit | Algorithm::TwoBitLiteral => {
            two_bit::run(puzzle, algorithm == Algorithm::TwoBit, allowed, None, max_depth, &clock).map(|(r, _)| r)
        }
        Algorithm::Reachability if options.max_depth.is_some() => {
            Err(Error::Unsupported("reachability has no depths: it cannot stop at a depth".into()))
        }
        Algorithm::Reachability => reachability::run(puzzle, allowed, &clock),
        Algorithm::OneBitAlternation => one_bit::alternation(puzzle, allowed, max_depth, &clock),
        Algorithm::OneBitLayers => one_bit::layers(puzzle, allowed, false, None, max_depth, &clock).map(|(r, _)| r),
        Algorithm::Auto => Err(Error::Unsupported("`auto` chose no algorithm".into())),
    }
}

/// The search's clock and progress callback.
pub(crate) struct Clock<'a> {
    start: Instant,
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

impl Clock<'_> {
    pub(crate) fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    pub(crate) fn report(&self, step: u32, new_states: u64, states: u64) {
        if let Some(f) = self.progress {
            f(&Progress { step, new_states, states, seconds: self.seconds() });
        }
    }

    pub(crate) fn silent() -> Clock<'static> {
        Clock { start: Instant::now(), progress: None }
    }
}
