//! The interface between a puzzle (a domain) and the searches: a perfect hash of its
//! states onto `0..size` and a successor function on indices.
//!
//! The searches never see a board: they hand an index to [`Puzzle::successors`], which
//! unranks it, applies the moves and ranks the results (the thesis's "unrank, expand,
//! rank" step, the same on the GPU later). An index need not be a reachable state: the
//! index space may be larger than the reachable set (Top-Spin (5,4), peg solitaire), and
//! the searches count what they reach.

use std::ops::Range;

use crate::Error;

/// A move's number inside its puzzle (a direction, a twist offset, a flip length, a
/// jump): [`Puzzle::describe_move`] names it.
pub type Move = u32;

/// A property of the index space that lets a one-bit BFS tell the layers apart
/// (thesis Def. 31-33).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// Neither: the BFS needs two bits per index (or one-bit reachability, no layers).
    None,
    /// Move alternation (Def. 31): `colours[c]` lists the index ranges of colour `c`, and
    /// every move changes the colour (sliding tile: the blank's checkerboard colour).
    Alternation { colours: [Vec<Range<u64>>; 2] },
    /// Layer selection (Def. 32): the BFS depth of every index in `layers[d]` is `d`, if
    /// it is reachable (peg solitaire: depth = 32 - pegs), and the ranges are consecutive.
    LayerSelection { layers: Vec<Range<u64>> },
}

/// A puzzle with a perfect hash: the domain side of every search.
///
/// `Sync` because the searches call it from every thread; all per-thread state lives
/// in [`Puzzle::Scratch`], created once per worker and reused for every index.
pub trait Puzzle: Sync {
    /// Per-thread working memory of [`Puzzle::successors`].
    type Scratch: Send;

    /// The instance, as the command line names it (`sliding-tile 3x4`).
    fn name(&self) -> String;
    /// The size of the index space.
    fn size(&self) -> u64;
    /// The index of the start state.
    fn start(&self) -> u64;
    /// Fresh per-thread scratch.
    fn scratch(&self) -> Self::Scratch;
    /// Calls `emit(move, successor index)` for every move applicable in the state of
    /// `index` (`index < size`). Successors may repeat; every one is `< size`.
    fn successors<F: FnMut(Move, u64)>(&self, index: u64, scratch: &mut Self::Scratch, emit: F);
    /// Whether every move can be undone by a move: then the successors are also the
    /// predecessors, and BFS depths differ by at most one along a move.
    fn reversible(&self) -> bool {
        true
    }
    /// Calls `emit` with (at least) every predecessor of `index`; a superset is fine (the
    /// solution walk checks each candidate among its successors). The default, for
    /// reversible puzzles, is the successors.
    fn predecessors<F: FnMut(u64)>(&self, index: u64, scratch: &mut Self::Scratch, mut emit: F) {
        self.successors(index, scratch, |_, s| emit(s));
    }
    /// The partition property a one-bit BFS can use.
    fn property(&self) -> Property {
        Property::None
    }
    /// The number of reachable states when a closed form is known (`(RC)!/2` for the
    /// sliding-tile puzzle), for checks.
    fn closed_form_states(&self) -> Option<u64> {
        None
    }
    /// A move's name, for solutions.
    fn describe_move(&self, mv: Move) -> String;
    /// The state of `index` (`index < size`) as text (the format
    /// [`Puzzle::parse_state`] reads).
    fn describe_state(&self, index: u64) -> String;
    /// The index of a state given as text, or why it is not one.
    fn parse_state(&self, text: &str) -> Result<u64, Error>;
}
