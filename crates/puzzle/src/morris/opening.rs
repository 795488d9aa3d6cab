//! The placing phase: the value of every position of the first `2k` plies of a game
//! with `k` pieces a side, from the last ply back to the empty board.
//!
//! Ply `t` (placements made so far) fixes the pieces in hand: white places at even
//! plies, so after `t` plies white has placed `ceil(t/2)` pieces and black
//! `floor(t/2)` ([`hands`]). A position of ply `t` is a board with `a`
//! pieces of the side to move and `b` of the other, numbered by the same [`Index`] as
//! the moving phase, one byte per slot ([`super::value`]). The placing phase has no
//! cycles: a position's value is the best of its children's, those of ply `t + 1` or,
//! after the last placement, of the moving-phase databases ([`super::retro`]). Only two
//! plies are held at a time.

use super::index::Index;
use super::retro::Databases;
use super::rules::{for_each_move, Position, Step};
use super::value::{Value, HOLE};
use crate::Error;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::Instant;

/// The values of one ply, by `(a, b)` pieces on the board.
pub struct Ply {
    /// Placements made.
    pub ply: u32,
    /// Pieces in hand of the side to move and of the other.
    pub hands: (u32, u32),
    tables: BTreeMap<(u32, u32), Vec<u8>>,
}

/// What one ply's analysis found.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyStats {
    /// Placements made.
    pub ply: u32,
    /// Positions up to symmetry (boards with the pieces in hand this ply allows).
    pub positions: u64,
    /// Positions won for the side to move.
    pub wins: u64,
    /// Positions lost for the side to move.
    pub losses: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Seconds.
    pub seconds: f64,
}

/// The pieces in hand `(side to move, other)` at ply `t` of a game of `k` pieces a side.
pub fn hands(k: u32, t: u32) -> (u32, u32) {
    let (white, black) = (k - t.div_ceil(2), k - t / 2);
    if t.is_multiple_of(2) {
        (white, black)
    } else {
        (black, white)
    }
}

impl Ply {
    /// A ply's tables, by `(a, b)` pieces on the board.
    pub(super) fn new(ply: u32, hands: (u32, u32), tables: BTreeMap<(u32, u32), Vec<u8>>) -> Ply {
        Ply { ply, hands, tables }
    }

    /// The value of a position of this ply (its hands must be this ply's).
    pub fn value(&self, index: &Index, pos: Position) -> Option<Value> {
        let table = self.tables.get(&(pos.mover.count_ones(), pos.other.count_ones()))?;
        Value::decode(table[index.rank(pos.mover, pos.other) as usize])
    }
}

/// Solves the placing phase of a game of `k` pieces a side, given the solved
/// moving-phase databases, from the last ply back; `progress` hears of every ply. The
/// plies named in `keep` are returned.
pub fn solve(
    index: &Index,
    k: u32,
    dbs: &Databases,
    allowed: u64,
    keep: &[u32],
    mut progress: impl FnMut(&PlyStats),
) -> Result<(BTreeMap<u32, Ply>, Vec<PlyStats>), Error> {
    let mut next: Option<Ply> = None;
    let mut kept = BTreeMap::new();
    let mut stats = Vec::new();
    for t in (0..2 * k).rev() {
        let start = Instant::now();
        let ply = solve_ply(index, k, t, dbs, next.as_ref(), allowed)?;
        let s = count(&ply, start.elapsed().as_secs_f64());
        progress(&s);
        stats.push(s);
        if let Some(done) = next.replace(ply) {
            if keep.contains(&done.ply) {
                kept.insert(done.ply, done);
            }
        }
    }
    if let Some(first) = next.filter(|p| keep.contains(&p.ply)) {
        kept.insert(first.ply, first);
    }
    stats.reverse();
    Ok((kept, stats))
}

fn solve_ply(index: &Index, k: u32, t: u32, dbs: &Databases, next: Option<&Ply>, allowed: u64) -> Result<Ply, Error> {
    let (mover_hand, other_hand) = hands(k, t);
    let (mover_placed, other_placed) = (k - mover_hand, k - other_hand);
    let mut tables = BTreeMap::new();
    let mut used = 0u64;
    for a in 0..=mover_placed {
        for b in 0..=other_placed {
            if a + mover_hand < 3 || b + other_hand < 3 {
                continue;
            }
            let n = index.slots(a, b);
            used += n;
            if used > allowed {
                let what = format!("the placing phase's ply {t}");
                return Err(Error::Memory { what, needed: used, allowed });
            }
            let values = (0..n)
                .into_par_iter()
                .map(|slot| {
                    let (m, o) = index.unrank(a, b, slot);
                    if !index.is_canonical(m, o) {
                        return Some(HOLE);
                    }
                    let pos = Position { mover: m, other: o, mover_hand, other_hand };
                    best(pos, |child| match next {
                        Some(ply) => ply.value(index, child),
                        None => dbs.value(index, child),
                    })
                    .encode()
                })
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| {
                    Error::Unsupported(format!(
                        "a placing-phase value at ply {t} is longer than the one-byte values hold"
                    ))
                })?;
            tables.insert((a, b), values);
        }
    }
    Ok(Ply { ply: t, hands: (mover_hand, other_hand), tables })
}

/// The value of a position from its children's values (`child` gives the value of a
/// position one ply on, from its side to move's view). A position with no move is lost.
pub fn best(pos: Position, mut child: impl FnMut(Position) -> Option<Value>) -> Value {
    let (mut win, mut draw, mut loss) = (None::<u32>, false, None::<u32>);
    for_each_move(pos, |step| {
        let v = match step {
            Step::Won => Value::Loss(0),
            Step::To(c) => child(c).expect("every child's value is known"),
        };
        match v.before() {
            Value::Win(d) => win = Some(win.map_or(d, |w| w.min(d))),
            Value::Loss(d) => loss = Some(loss.map_or(d, |l| l.max(d))),
            Value::Draw => draw = true,
        }
    });
    match (win, draw, loss) {
        (Some(d), _, _) => Value::Win(d),
        (None, true, _) => Value::Draw,
        (None, false, Some(d)) => Value::Loss(d),
        (None, false, None) => Value::Loss(0),
    }
}

fn count(ply: &Ply, seconds: f64) -> PlyStats {
    let mut s = PlyStats { ply: ply.ply, positions: 0, wins: 0, losses: 0, draws: 0, seconds };
    for values in ply.tables.values() {
        let (w, l, d) = values
            .par_iter()
            .fold(
                || (0u64, 0u64, 0u64),
                |(w, l, d), &v| match Value::decode(v) {
                    Some(Value::Win(_)) => (w + 1, l, d),
                    Some(Value::Loss(_)) => (w, l + 1, d),
                    Some(Value::Draw) => (w, l, d + 1),
                    None => (w, l, d),
                },
            )
            .reduce(|| (0, 0, 0), |x, y| (x.0 + y.0, x.1 + y.1, x.2 + y.2));
        s.wins += w;
        s.losses += l;
        s.draws += d;
    }
    s.positions = s.wins + s.losses + s.draws;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_follow_the_plies() {
        assert_eq!(hands(9, 0), (9, 9));
        assert_eq!(hands(9, 1), (9, 8));
        assert_eq!(hands(9, 2), (8, 8));
        assert_eq!(hands(9, 17), (1, 0));
    }
}
