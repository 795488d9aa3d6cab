//! Puzzles with perfect hashing, after Part IV of D. Sulewski's thesis (TU Dortmund,
//! 2011, Ch. 12-14): every state of a puzzle has an index in `0..size`, computed by a
//! rank function and inverted by an unrank function, so a breadth-first search needs
//! only one or two bits per index and no hash table.
//!
//! - [`rank`]: the perfect hash functions (Myrvold-Ruskey with parity and folding,
//!   lexicographic, binomial, colex, multinomial);
//! - [`Puzzle`] ([`puzzle`]): what a domain provides: the index space, the start, and
//!   successors by unrank → moves → rank;
//! - [`domains`]: sliding tile, Top-Spin, pancake, peg solitaire, Frogs-and-Toads and
//!   Fore-and-Aft, defined as in `../shared/games/README.md`;
//! - [`bits`]: atomic bit vectors with fallible allocation;
//! - [`mod@search`]: two-bit BFS, one-bit reachability, one-bit BFS with move alternation or
//!   layer selection, on all cores;
//! - [`mod@solution`]: shortest move sequences, checked by replaying them;
//! - [`plot`]: the layer profile as an SVG bar chart;
//! - [`AnyPuzzle`] ([`instance`]): instances by name, for the command line;
//! - [`gpu`]: the BFS of every puzzle on a CUDA GPU (CUDA C that the tests also compile
//!   and run on the host with gcc);
//! - [`morris`]: Nine Men's Morris: the board and its symmetries, the databases of
//!   positions up to symmetry, and their retrograde analysis.
//!
//! ```
//! use warpcheck_puzzle::{search, AnyPuzzle, Options, Puzzle};
//! use warpcheck_puzzle::domains::sliding_tile::SlidingTile;
//!
//! let puzzle = SlidingTile::new(2, 3).unwrap();
//! let report = search(&puzzle, &Options::default()).unwrap();
//! assert_eq!(report.states, 360);
//! assert_eq!(report.depth, Some(21));
//! assert_eq!(report.layers.unwrap()[..5], [1, 2, 3, 5, 6]);
//!
//! // By name, with a shortest solution to a given board.
//! let p = AnyPuzzle::parse("sliding-tile", Some("2x3")).unwrap();
//! let (solution, moves) = p.solve("1 0 2 3 4 5", &Options::default()).unwrap();
//! assert_eq!(moves, ["blank R"]);
//! assert_eq!(solution.path.len(), 2);
//! ```
//!
//! The searches run on the current rayon pool; install one to choose the number of
//! threads. Nothing panics on bad input: instances out of range, positions that are not
//! states and vectors beyond the memory allowed are [`Error`]s.
//!
//! # Design for the GPU and for vectors beyond memory
//!
//! - A bit vector is plain `u64` words in index order ([`bits::BitVec::words`],
//!   [`bits::TwoBitVec::words`]): a device copy is a memcpy, and a kernel sets bits with
//!   `atomicOr` on the same words, as the CPU does with `fetch_or`. Layer sizes are
//!   popcounts or counted claims, the same on both. [`gpu`] keeps one-bit `seen`,
//!   frontier and next vectors instead of two-bit cells (its module says why).
//! - A successor function is unrank → moves → rank on fixed arrays of at most 32 bytes
//!   and one 33 KiB binomial table, with no allocation and no recursion: each domain
//!   ports to CUDA C line by line, with the Rust as the reference to hold it to.
//! - Every pass over a vector goes through [`bits::par_words`] over a range of indices,
//!   and the properties name contiguous ranges (blank buckets, peg-count layers), so a
//!   vector split into partitions on host memory or disk fits under the same searches.
//!
//! # Departures from the thesis
//!
//! Digest 003b and `../shared/games/README.md` list the errors of the printed
//! pseudo-code; the modules that implement each algorithm say which corrected form they
//! use. Beyond those: the two-bit BFS keeps a frontier bit so that no state is expanded
//! twice (3 bits per index; the printed form is [`Algorithm::TwoBitLiteral`]), the
//! one-bit BFS with move alternation does not OR whole buckets for horizontal moves
//! (they cost no ranking here anyway), and "not seen" is coded 0, not 3.

pub mod bits;
pub mod domains;
mod error;
pub mod gpu;
pub mod instance;
pub mod morris;
pub mod plot;
pub mod puzzle;
pub mod rank;
pub mod search;
pub mod solution;

pub use error::Error;
pub use instance::AnyPuzzle;
pub use puzzle::{Move, Property, Puzzle};
pub use search::{search, Algorithm, Options, Progress, Report};
pub use solution::{solve, Solution};
