//! Nine Men's Morris solved by retrograde analysis over perfect-hash databases
//! (Sulewski's thesis Ch. 14.2 and 15.2, after Gasser 1996).
//!
//! - [`board`]: the 24 points, adjacency, the 16 mills and the 16 symmetries; the sizes
//!   of the piece-count subspaces;
//! - [`index`]: boards up to symmetry numbered for one byte per slot (Malom's layout);
//! - [`rules`]: placing, moving, jumping and captures by Gasser's rules, forwards and
//!   (without captures) backwards;
//! - [`notation`]: positions and moves as text;
//! - [`files`]: solved databases on disk;
//! - [`value`]: the one-byte value of a position (win or loss in `d` plies, draw);
//! - [`retro`]: the databases of the moving and jumping phases, solved level by level;
//! - [`opening`]: the placing phase, ply by ply back to the empty board;
//! - [`gpu`]: the databases and the placing phase on a CUDA GPU (and its host build
//!   for the tests);
//! - [`mod@solve`]: the whole game, and the value and moves of a position.

pub mod board;
pub mod files;
pub mod gpu;
pub mod index;
pub mod notation;
pub mod opening;
pub mod retro;
pub mod rules;
pub mod solve;
pub mod value;

pub use board::{boards, boards_up_to_symmetry};
pub use solve::{solve, solve_on, Event, Solution};
pub use value::Value;
