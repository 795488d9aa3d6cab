//! Optimal solutions: a shortest move sequence from the start to a given position.
//!
//! The search runs until the target's layer and keeps what tells a state's depth: the
//! two-bit vector (depth mod 3) for reversible puzzles, every layer's bit vector for
//! puzzles with layer selection (peg solitaire). Then it walks back from the target at
//! depth `d`: a predecessor whose depth is `d-1` is one step closer to the start. With
//! reversible moves the depths of neighbours differ by at most one, so depth mod 3
//! singles out `d-1` among `d-1, d, d+1`; with layer selection the depth is exact.
//! The move taken is found among the predecessor's successors, and the finished
//! sequence is replayed from the start ([`Solution::replay`]) before it is returned.

use crate::search::{one_bit, two_bit, Clock, Options};
use crate::{Error, Move, Property, Puzzle};

/// A shortest path from the start to a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The moves, first move first.
    pub moves: Vec<Move>,
    /// The states along the path, the start first and the target last.
    pub path: Vec<u64>,
}

impl Solution {
    /// Replays the moves from the start and checks that they lead through `path` to
    /// its end.
    pub fn replay<P: Puzzle>(&self, puzzle: &P) -> Result<(), Error> {
        let bad = |why: String| Err(Error::Unsupported(format!("the solution does not replay: {why}")));
        if self.path.first() != Some(&puzzle.start()) || self.path.len() != self.moves.len() + 1 {
            return bad("it does not start at the start".into());
        }
        let mut scratch = puzzle.scratch();
        for (step, (&mv, pair)) in self.moves.iter().zip(self.path.windows(2)).enumerate() {
            let mut next = None;
            puzzle.successors(pair[0], &mut scratch, |m, s| {
                if m == mv {
                    next = Some(s);
                }
            });
            if next != Some(pair[1]) {
                return bad(format!(
                    "move {} ({}) does not lead to the next state",
                    step + 1,
                    puzzle.describe_move(mv)
                ));
            }
        }
        Ok(())
    }

    /// The moves by name.
    pub fn describe<P: Puzzle>(&self, puzzle: &P) -> Vec<String> {
        self.moves.iter().map(|&m| puzzle.describe_move(m)).collect()
    }
}

/// A shortest move sequence from the start of `puzzle` to the state of index `target`.
pub fn solve<P: Puzzle>(puzzle: &P, target: u64, options: &Options) -> Result<Solution, Error> {
    if target >= puzzle.size() {
        return Err(Error::State(format!("index {target} is outside 0..{}", puzzle.size())));
    }
    let clock = Clock::silent();
    let allowed = options.allowed();
    let mut scratch = puzzle.scratch();
    // The depth of a reached state (exact, or mod 3), and how to compare it.
    let (depth, known): (u32, Box<dyn Fn(u64, u32) -> bool>) = match puzzle.property() {
        Property::LayerSelection { .. } => {
            let (report, layers) = one_bit::layers(puzzle, allowed, true, Some(target), u32::MAX, &clock)?;
            let Some(d) = layers.contains(target) else { return Err(Error::Unreachable) };
            debug_assert!(report.depth >= Some(d));
            (d, Box::new(move |s, d| layers.contains(s) == Some(d)))
        }
        _ if !puzzle.reversible() => {
            return Err(Error::Unsupported(format!(
                "{}: solutions need reversible moves or a layer-selection property",
                puzzle.name()
            )))
        }
        _ => {
            let (report, cells) = two_bit::run(puzzle, true, allowed, Some(target), u32::MAX, &clock)?;
            if cells.depth_mod3(target).is_none() {
                return Err(Error::Unreachable);
            }
            let d = report.depth.unwrap_or(0);
            (d, Box::new(move |s, d| cells.depth_mod3(s) == Some((d % 3) as u8)))
        }
    };
    let mut path = vec![target];
    let mut moves = Vec::with_capacity(depth as usize);
    let mut cur = target;
    for d in (0..depth).rev() {
        let mut step = None;
        puzzle.predecessors(cur, &mut scratch, |p| {
            if step.is_none() && known(p, d) {
                step = Some(p);
            }
        });
        let Some(p) = step else {
            return Err(Error::Unsupported(format!("{}: no predecessor at depth {d} (a bug)", puzzle.name())));
        };
        let mut mv = None;
        puzzle.successors(p, &mut scratch, |m, s| {
            if s == cur && mv.is_none() {
                mv = Some(m);
            }
        });
        let Some(mv) = mv else {
            return Err(Error::Unsupported(format!("{}: a predecessor without the move (a bug)", puzzle.name())));
        };
        moves.push(mv);
        path.push(p);
        cur = p;
    }
    moves.reverse();
    path.reverse();
    let solution = Solution { moves, path };
    solution.replay(puzzle)?;
    Ok(solution)
}
