//! The whole game solved: the moving-phase databases ([`super::retro`]), then the
//! placing phase ([`super::opening`]) back to the empty board; and the value and the
//! moves of a given position.
//!
//! A game of `k` pieces a side (`3 <= k <= 9`; 9 is Nine Men's Morris) has the same
//! rules on the same board with fewer pieces, and needs only the databases up to `k`
//! pieces: the small games solve in seconds and check the same code.

use super::gpu::{self, Machine};
use super::index::Index;
use super::notation::Given;
use super::opening::{self, hands, Ply, PlyStats};
use super::retro::{self, DatabaseStats, Databases, MAX_PIECES};
use super::rules::{for_each_described_move, Move, Position, Step};
use super::value::Value;
use crate::Error;
use std::collections::BTreeMap;
use std::path::Path;

/// What solving reports as it goes.
pub enum Event<'a> {
    /// A moving-phase database is solved.
    Database(&'a DatabaseStats),
    /// A ply of the placing phase is solved.
    Ply(&'a PlyStats),
}

/// A solved game.
pub struct Solution {
    /// Pieces a side.
    pub pieces: u32,
    /// The moving-phase databases.
    pub databases: Databases,
    /// What solving each database found, in the order solved.
    pub database_stats: Vec<DatabaseStats>,
    /// What solving each ply of the placing phase found, ply 0 first.
    pub ply_stats: Vec<PlyStats>,
    /// The plies kept: 0 and 1, and those a position asked for needs.
    plies: BTreeMap<u32, Ply>,
    index: &'static Index,
}

/// Solves the game of `pieces` a side within `memory` bytes on all cores of the current
/// rayon pool, keeping what the values and moves of `position` need; with `dir`,
/// reading the moving-phase databases found there and writing those solved. Without
/// `opening`, only the moving-phase databases.
pub fn solve(
    pieces: u32,
    memory: u64,
    dir: Option<&Path>,
    position: Option<&Given>,
    opening: bool,
    mut progress: impl FnMut(Event),
) -> Result<Solution, Error> {
    let keep = plies_to_keep(pieces, position)?;
    let index = Index::get();
    let (databases, database_stats) = retro::solve(index, pieces, memory / 2, dir, |s| progress(Event::Database(s)))?;
    let (plies, ply_stats) = if opening {
        opening::solve(index, pieces, &databases, memory / 4, &keep, |s| progress(Event::Ply(s)))?
    } else {
        Default::default()
    };
    Ok(Solution { pieces, databases, database_stats, ply_stats, plies, index })
}

/// [`solve`] on a [`Machine`]: a CUDA GPU ([`gpu::device::Gpu`]) or the kernels' host
/// build. `memory` bounds the databases copied back to the host.
pub fn solve_on<M: Machine>(
    machine: &M,
    pieces: u32,
    memory: u64,
    dir: Option<&Path>,
    position: Option<&Given>,
    opening: bool,
    mut progress: impl FnMut(Event),
) -> Result<Solution, Error> {
    let keep = plies_to_keep(pieces, position)?;
    let index = Index::get();
    let s = gpu::solve(machine, pieces, memory / 2, dir, opening, &keep, &mut progress)?;
    Ok(Solution {
        pieces,
        databases: s.databases,
        database_stats: s.database_stats,
        ply_stats: s.ply_stats,
        plies: s.plies,
        index,
    })
}

/// The plies of the placing phase a solve keeps: 0 and 1 (the start and the first
/// moves), and those the values and moves of `position` need.
fn plies_to_keep(pieces: u32, position: Option<&Given>) -> Result<Vec<u32>, Error> {
    if !(3..=MAX_PIECES).contains(&pieces) {
        return Err(Error::Instance(format!("pieces must be 3 to {MAX_PIECES}, not {pieces}")));
    }
    let ply = position.map(|p| ply_of(pieces, p)).transpose()?.flatten();
    let mut keep = vec![0, 1];
    keep.extend(ply.iter().flat_map(|&t| [t, t + 1]));
    Ok(keep)
}

/// The ply of a placing-phase position (`None` in the moving phase), or an error if its
/// pieces do not fit a game of `k` a side.
fn ply_of(k: u32, given: &Given) -> Result<Option<u32>, Error> {
    let p = given.position;
    let (white, black, wh, bh) = if given.white_to_move {
        (p.mover, p.other, p.mover_hand, p.other_hand)
    } else {
        (p.other, p.mover, p.other_hand, p.mover_hand)
    };
    let too_many = |name: &str, n: u32| Error::State(format!("{name} has {n} pieces, more than the game's {k}"));
    if white.count_ones() + wh > k {
        return Err(too_many("white", white.count_ones() + wh));
    }
    if black.count_ones() + bh > k {
        return Err(too_many("black", black.count_ones() + bh));
    }
    if wh + bh == 0 {
        if p.mover.count_ones() < 3 || p.other.count_ones() < 3 {
            return Err(Error::State("a side with fewer than three pieces has already lost".to_string()));
        }
        return Ok(None);
    }
    let (placed_w, placed_b) = (k - wh, k - bh);
    let t = placed_w + placed_b;
    if hands(k, t) != (p.mover_hand, p.other_hand) || given.white_to_move != (t % 2 == 0) {
        return Err(Error::State(format!(
            "white has {wh} and black {bh} pieces in hand: with {} to move that is no ply of the placing phase (white places first)",
            if given.white_to_move { "white" } else { "black" }
        )));
    }
    if p.mover.count_ones() + p.mover_hand < 3 || p.other.count_ones() + p.other_hand < 3 {
        return Err(Error::State("a side with fewer than three pieces has already lost".to_string()));
    }
    Ok(Some(t))
}

impl Solution {
    /// The value of the empty board, white to move (`None` if the placing phase was
    /// not solved).
    pub fn start(&self) -> Option<Value> {
        let k = self.pieces;
        self.value_at(Position { mover: 0, other: 0, mover_hand: k, other_hand: k })
    }

    /// The value of a position of this game for its side to move.
    pub fn value(&self, given: &Given) -> Result<Value, Error> {
        ply_of(self.pieces, given)?;
        self.value_at(given.position).ok_or_else(|| Error::Unsupported("the placing phase was not solved".to_string()))
    }

    /// Every move of a position and its value for the side that makes it, best first
    /// (wins fastest, then draws, then losses slowest).
    pub fn moves(&self, given: &Given) -> Result<Vec<(Move, Value)>, Error> {
        ply_of(self.pieces, given)?;
        let mut out = Vec::new();
        let mut missing = false;
        for_each_described_move(given.position, |m, step| {
            let v = match step {
                Step::Won => Some(Value::Win(1)),
                Step::To(child) => self.value_at(child).map(Value::before),
            };
            match v {
                Some(v) => out.push((m, v)),
                None => missing = true,
            }
        });
        if missing {
            return Err(Error::Unsupported("the placing phase was not solved".to_string()));
        }
        out.sort_by_key(|&(_, v)| match v {
            Value::Win(d) => (0, d as i64),
            Value::Draw => (1, 0),
            Value::Loss(d) => (2, -(d as i64)),
        });
        Ok(out)
    }

    fn value_at(&self, pos: Position) -> Option<Value> {
        if pos.mover_hand + pos.other_hand == 0 {
            return self.databases.value(self.index, pos);
        }
        let t = 2 * self.pieces - pos.mover_hand - pos.other_hand;
        self.plies.get(&t)?.value(self.index, pos)
    }
}
