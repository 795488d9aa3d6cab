//! Retrograde analysis of the moving and jumping phases: the value of every board with
//! `a` pieces of the side to move and `b` of the other (`3 <= a, b <= k`, no pieces in
//! hand), one byte per slot of [`Index`] ([`super::value`]).
//!
//! The databases are solved in order of the pieces on the board. A move without a
//! capture from `(a, b)` leads to `(b, a)`, a capture to `(b - 1, a)`, already solved
//! (or a win when `b = 3`); so `(a, b)` and `(b, a)` are solved together, level by
//! level of plies to the end:
//! - level 0: the boards whose side to move cannot move are lost;
//! - an odd level `n`: a board is won in `n` plies if a move leads to a board lost in
//!   `n - 1`: the parents (by unmoves without capture) of the boards lost at level
//!   `n - 1`, and the boards whose best capture wins in `n` (found once, at the start);
//! - an even level `n`: a parent of a board won at level `n - 1` is lost in `n` plies if
//!   every move leads to a board already won (checked by generating its moves);
//! - it ends when two levels in a row decide nothing and no capture waits for a later
//!   level. The boards still undecided are draws.
//!
//! A level scans the databases for the boards decided one level earlier, so nothing
//! but the values is stored; every step of a level is independent, on all cores here
//! and the same way in a GPU kernel.

use super::files;
use super::index::Index;
use super::rules::{for_each_move, for_each_unmove, Position, Step};
use super::value::{is_loss, is_win, Value, CHECKED, HOLE, MAX_PLIES};
use crate::Error;
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

/// The most pieces a side has.
pub const MAX_PIECES: u32 = 9;

/// The solved databases of the moving and jumping phases.
pub struct Databases {
    /// Per `(a, b)` at `10 a + b`, its values by slot.
    tables: Vec<Option<Vec<u8>>>,
}

/// What solving one database found.
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseStats {
    /// Pieces of the side to move.
    pub mover: u32,
    /// Pieces of the other side.
    pub other: u32,
    /// Slots of the index (holes included).
    pub slots: u64,
    /// Boards up to symmetry (the slots that are not holes).
    pub boards: u64,
    /// Boards won, lost and drawn for the side to move.
    pub wins: u64,
    /// Boards lost for the side to move.
    pub losses: u64,
    /// Boards drawn.
    pub draws: u64,
    /// The longest win or loss, in plies.
    pub longest: u32,
    /// Levels of the analysis of the database's pair (0: read from a file).
    pub levels: u32,
    /// Seconds for the pair (both databases; 0 when read from a file).
    pub seconds: f64,
}

impl Databases {
    /// No database yet.
    pub fn new() -> Databases {
        Databases { tables: vec![None; 100] }
    }

    /// The values of the database `(a, b)`, if solved.
    pub fn table(&self, a: u32, b: u32) -> Option<&[u8]> {
        self.tables.get((10 * a + b) as usize)?.as_deref()
    }

    /// Puts the values of the database `(a, b)`.
    pub fn insert(&mut self, a: u32, b: u32, values: Vec<u8>) {
        self.tables[(10 * a + b) as usize] = Some(values);
    }

    /// The value of a board without pieces in hand, if its database is solved.
    pub fn value(&self, index: &Index, pos: Position) -> Option<Value> {
        let table = self.table(pos.mover.count_ones(), pos.other.count_ones())?;
        Value::decode(table[index.rank(pos.mover, pos.other) as usize])
    }
}

impl Default for Databases {
    fn default() -> Self {
        Databases::new()
    }
}

/// Solves every database with `3..=pieces` pieces a side, in order, on the current
/// rayon pool. `allowed` bounds the bytes of the databases; `progress` hears of each
/// database when it is solved. With a directory, the databases found there are read
/// instead of solved, and those solved are written there.
pub fn solve(
    index: &Index,
    pieces: u32,
    allowed: u64,
    dir: Option<&Path>,
    mut progress: impl FnMut(&DatabaseStats),
) -> Result<(Databases, Vec<DatabaseStats>), Error> {
    if !(3..=MAX_PIECES).contains(&pieces) {
        return Err(Error::Instance(format!("pieces must be 3 to {MAX_PIECES}, not {pieces}")));
    }
    let mut dbs = Databases::new();
    let mut stats = Vec::new();
    let mut used = 0u64;
    for sides in pairs(pieces) {
        if let Some(found) = load_pair(dir, index, &sides)? {
            for (values, &(x, y)) in found.into_iter().zip(&sides) {
                let s = count(&values, x, y, index, 0, 0.0);
                progress(&s);
                stats.push(s);
                used += values.len() as u64;
                dbs.insert(x, y, values);
            }
            continue;
        }
        let start = Instant::now();
        let mut pair = Pair::new(index, &dbs, &sides, allowed.saturating_sub(used))?;
        pair.run()?;
        let seconds = start.elapsed().as_secs_f64();
        let (levels, solved) = (pair.levels, pair.values);
        for (values, &(x, y)) in solved.into_iter().zip(&sides) {
            let values: Vec<u8> = values.into_iter().map(AtomicU8::into_inner).collect();
            if let Some(dir) = dir {
                files::save(dir, x, y, &values)?;
            }
            let s = count(&values, x, y, index, levels, seconds);
            progress(&s);
            stats.push(s);
            used += values.len() as u64;
            dbs.insert(x, y, values);
        }
    }
    Ok((dbs, stats))
}

/// The pairs of databases in the order they are solved: by pieces on the board, each
/// database with its mirror (`a-b` and `b-a`; `a-a` alone), the side with fewer pieces
/// to move first.
pub(super) fn pairs(pieces: u32) -> impl Iterator<Item = Vec<(u32, u32)>> {
    (6..=2 * pieces).flat_map(move |total| {
        (3..=pieces).filter_map(move |a| {
            let b = total.checked_sub(a)?;
            (a <= b && b <= pieces).then(|| if a == b { vec![(a, a)] } else { vec![(a, b), (b, a)] })
        })
    })
}

/// Both databases of a pair from `dir`, if both files are there.
pub(super) fn load_pair(
    dir: Option<&Path>,
    index: &Index,
    sides: &[(u32, u32)],
) -> Result<Option<Vec<Vec<u8>>>, Error> {
    let Some(dir) = dir else { return Ok(None) };
    let mut found = Vec::new();
    for &(a, b) in sides {
        match files::load(dir, a, b, index.slots(a, b))? {
            Some(values) => found.push(values),
            None => return Ok(None),
        }
    }
    Ok(Some(found))
}

pub(super) fn count(values: &[u8], mover: u32, other: u32, index: &Index, levels: u32, seconds: f64) -> DatabaseStats {
    let (wins, losses, draws, longest) = values
        .par_iter()
        .fold(
            || (0u64, 0u64, 0u64, 0u32),
            |(w, l, d, m), &v| match Value::decode(v) {
                Some(Value::Win(n)) => (w + 1, l, d, m.max(n)),
                Some(Value::Loss(n)) => (w, l + 1, d, m.max(n)),
                Some(Value::Draw) => (w, l, d + 1, m),
                None => (w, l, d, m),
            },
        )
        .reduce(|| (0, 0, 0, 0), |x, y| (x.0 + y.0, x.1 + y.1, x.2 + y.2, x.3.max(y.3)));
    DatabaseStats {
        mover,
        other,
        slots: index.slots(mover, other),
        boards: wins + losses + draws,
        wins,
        losses,
        draws,
        longest,
        levels,
        seconds,
    }
}

/// One or two databases solved together.
struct Pair<'a> {
    index: &'a Index,
    lower: &'a Databases,
    sides: Vec<(u32, u32)>,
    values: Vec<Vec<AtomicU8>>,
    /// Per side and slot, the byte the best capture gives (0: none wins).
    captures: Vec<Vec<u8>>,
    /// Boards checked in the current level of losses (decided or marked).
    checked: AtomicU64,
    levels: u32,
}

impl<'a> Pair<'a> {
    fn new(index: &'a Index, lower: &'a Databases, sides: &[(u32, u32)], allowed: u64) -> Result<Pair<'a>, Error> {
        let mut pair = Pair {
            index,
            lower,
            sides: sides.to_vec(),
            values: Vec::new(),
            captures: Vec::new(),
            checked: AtomicU64::new(0),
            levels: 0,
        };
        let mut left = allowed;
        for &(a, b) in sides {
            let n = index.slots(a, b);
            // A byte of value and a byte of best capture per slot while solving.
            let what = format!("the Nine Men's Morris database {a}-{b}");
            if 2 * n > left {
                return Err(Error::Memory { what, needed: 2 * n, allowed: left });
            }
            left -= 2 * n;
            let values = crate::bits::bytes(n, &what, u64::MAX)?;
            let captures: Vec<u8> = (0..n)
                .into_par_iter()
                .map(|slot| {
                    let (m, o) = index.unrank(a, b, slot);
                    if !index.is_canonical(m, o) {
                        values[slot as usize].store(HOLE, Relaxed);
                        return 0;
                    }
                    pair.start(&values[slot as usize], Position::on_board(m, o))
                })
                .collect();
            pair.values.push(values);
            pair.captures.push(captures);
        }
        Ok(pair)
    }

    /// Level 0 for one board (lost if it cannot move), and the byte its best capture
    /// gives.
    fn start(&self, value: &AtomicU8, pos: Position) -> u8 {
        let b = pos.other.count_ones();
        let mut moves = 0;
        let mut best = u8::MAX;
        for_each_move(pos, |step| {
            moves += 1;
            let child = match step {
                Step::Won => 1,
                Step::To(child) if child.mover.count_ones() < b => self.byte(child),
                Step::To(_) => return,
            };
            if is_loss(child) {
                best = best.min(child + 1);
            }
        });
        if moves == 0 {
            value.store(1, Relaxed);
        }
        if best == u8::MAX {
            0
        } else {
            best
        }
    }

    /// The side of the pair that holds a board's database.
    fn side(&self, pos: Position) -> Option<usize> {
        let key = (pos.mover.count_ones(), pos.other.count_ones());
        self.sides.iter().position(|&s| s == key)
    }

    /// The byte of a board of this pair or of a solved database.
    fn byte(&self, pos: Position) -> u8 {
        let slot = self.index.rank(pos.mover, pos.other) as usize;
        match self.side(pos) {
            Some(s) => self.values[s][slot].load(Relaxed),
            None => {
                let (a, b) = (pos.mover.count_ones(), pos.other.count_ones());
                self.lower.table(a, b).expect("the databases with fewer pieces are solved first")[slot]
            }
        }
    }

    /// Whether every move of `pos` leads to a board won for the opponent.
    fn all_moves_lose(&self, pos: Position) -> bool {
        let mut lost = true;
        for_each_move(pos, |step| {
            lost &= match step {
                Step::Won => false,
                Step::To(child) => lost && is_win(self.byte(child)),
            }
        });
        lost
    }

    fn run(&mut self) -> Result<(), Error> {
        let last_capture = self.captures.iter().flat_map(|c| c.iter()).copied().max().unwrap_or(0);
        let mut quiet = 0;
        let mut n = 1u32;
        loop {
            if n > MAX_PLIES {
                return Err(Error::Unsupported(format!(
                    "a win of more than {MAX_PLIES} plies in the databases {:?} does not fit the one-byte values",
                    self.sides
                )));
            }
            let target = n as u8 + 1;
            let decided: u64 = (0..self.sides.len()).map(|s| self.level(s, n as u8, target)).sum();
            if target % 2 == 1 && decided < self.checked.swap(0, Relaxed) {
                // The marks of a level of losses, on both sides.
                for side in &self.values {
                    side.par_iter().for_each(|v| {
                        let _ = v.compare_exchange(CHECKED, 0, Relaxed, Relaxed);
                    });
                }
            }
            quiet = if decided == 0 { quiet + 1 } else { 0 };
            self.levels = n;
            if quiet >= 2 && u32::from(last_capture) <= target.into() {
                return Ok(());
            }
            n += 1;
        }
    }

    /// Level `target - 1` on one side: from the boards of byte `frontier`, and for a
    /// level of wins from the captures. The boards it decides.
    fn level(&self, side: usize, frontier: u8, target: u8) -> u64 {
        let (a, b) = self.sides[side];
        let wins = target.is_multiple_of(2);
        let values = &self.values[side];
        let from_parents: u64 = values
            .par_iter()
            .enumerate()
            .map(|(slot, v)| {
                if v.load(Relaxed) != frontier {
                    return 0;
                }
                let (m, o) = self.index.unrank(a, b, slot as u64);
                let mut decided = 0;
                for_each_unmove(Position::on_board(m, o), |parent| {
                    let s = self.side(parent).expect("an unmove without capture stays in the pair");
                    let cell = &self.values[s][self.index.rank(parent.mover, parent.other) as usize];
                    if cell.load(Relaxed) != 0 {
                        return;
                    }
                    if wins {
                        decided += u64::from(cell.compare_exchange(0, target, Relaxed, Relaxed).is_ok());
                    } else if cell.compare_exchange(0, CHECKED, Relaxed, Relaxed).is_ok() {
                        // Checked once a level: the wins it depends on do not change
                        // within a level of losses.
                        let lost = self.all_moves_lose(parent);
                        cell.store(if lost { target } else { CHECKED }, Relaxed);
                        self.checked.fetch_add(1, Relaxed);
                        decided += u64::from(lost);
                    }
                });
                decided
            })
            .sum();
        let from_captures: u64 = if wins {
            values
                .par_iter()
                .zip(&self.captures[side])
                .filter(|(v, &c)| c == target && v.compare_exchange(0, target, Relaxed, Relaxed).is_ok())
                .count() as u64
        } else {
            0
        };
        from_parents + from_captures
    }
}
