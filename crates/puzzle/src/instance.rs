//! Instances by name, as the command line gives them (`sliding-tile 3x4`,
//! `top-spin 12,4`, `pancake 12`, `peg-solitaire`, `frogs-and-toads`, `fore-and-aft`),
//! and one enum over the domains so that a caller dispatches once and every search
//! still runs monomorphised on the concrete puzzle.

use crate::domains::frogs::Frogs;
use crate::domains::pancake::Pancake;
use crate::domains::peg_solitaire::{PegSolitaire, Rules};
use crate::domains::sliding_tile::SlidingTile;
use crate::domains::top_spin::TopSpin;
use crate::search::{search, Options, Report};
use crate::solution::{solve, Solution};
use crate::{Error, Puzzle};

/// Any of the puzzles.
#[derive(Clone, Debug)]
pub enum AnyPuzzle {
    SlidingTile(SlidingTile),
    TopSpin(TopSpin),
    Pancake(Pancake),
    PegSolitaire(PegSolitaire),
    Frogs(Frogs),
}

/// The families and the form of their parameter.
pub const FAMILIES: [(&str, &str); 6] = [
    ("sliding-tile", "RxC, e.g. 3x4"),
    ("top-spin", "n,k or n (k = 4), e.g. 12,4"),
    ("pancake", "n, e.g. 12"),
    ("peg-solitaire", "none (English 33-hole board), or `diagonal` (pegs also jump along diagonals)"),
    ("frogs-and-toads", "no parameter (31 cells)"),
    ("fore-and-aft", "no parameter (17 cells)"),
];

/// Runs `$body` with `$p` bound to the concrete puzzle.
macro_rules! dispatch {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            AnyPuzzle::SlidingTile($p) => $body,
            AnyPuzzle::TopSpin($p) => $body,
            AnyPuzzle::Pancake($p) => $body,
            AnyPuzzle::PegSolitaire($p) => $body,
            AnyPuzzle::Frogs($p) => $body,
        }
    };
}

fn number(family: &str, text: &str) -> Result<u32, Error> {
    text.trim().parse().map_err(|_| Error::Instance(format!("{family}: `{text}` is not a number")))
}

impl AnyPuzzle {
    /// The instance of `family` with `parameter` (see [`FAMILIES`]).
    pub fn parse(family: &str, parameter: Option<&str>) -> Result<AnyPuzzle, Error> {
        let needs = |what: &str| Error::Instance(format!("{family}: expected {what}"));
        let none = |p: AnyPuzzle| match parameter {
            None => Ok(p),
            Some(x) => Err(Error::Instance(format!("{family} takes no parameter, got `{x}`"))),
        };
        match family {
            "sliding-tile" => {
                let text = parameter.ok_or_else(|| needs("RxC"))?;
                let (r, c) = text.split_once(['x', 'X']).ok_or_else(|| needs("RxC, e.g. 3x4"))?;
                Ok(AnyPuzzle::SlidingTile(SlidingTile::new(number(family, r)?, number(family, c)?)?))
            }
            "top-spin" => {
                let text = parameter.ok_or_else(|| needs("n,k"))?;
                let (n, k) = text.split_once(',').unwrap_or((text, "4"));
                Ok(AnyPuzzle::TopSpin(TopSpin::new(number(family, n)?, number(family, k)?)?))
            }
            "pancake" => Ok(AnyPuzzle::Pancake(Pancake::new(number(family, parameter.ok_or_else(|| needs("n"))?)?)?)),
            "peg-solitaire" => match parameter.map(str::trim) {
                None => Ok(AnyPuzzle::PegSolitaire(PegSolitaire::english())),
                Some("diagonal") => Ok(AnyPuzzle::PegSolitaire(PegSolitaire::with_rules(Rules::Diagonal))),
                Some(x) => Err(Error::Instance(format!("{family}: `{x}` is not a variant; known: diagonal"))),
            },
            "frogs-and-toads" => none(AnyPuzzle::Frogs(Frogs::frogs_and_toads())),
            "fore-and-aft" => none(AnyPuzzle::Frogs(Frogs::fore_and_aft())),
            _ => Err(Error::Instance(format!(
                "unknown puzzle `{family}`; known: {}",
                FAMILIES.map(|(f, _)| f).join(", ")
            ))),
        }
    }

    /// The instance's name.
    pub fn name(&self) -> String {
        dispatch!(self, p => p.name())
    }

    /// The index of the start state.
    pub fn start(&self) -> u64 {
        dispatch!(self, p => p.start())
    }

    /// The size of the index space.
    pub fn size(&self) -> u64 {
        dispatch!(self, p => p.size())
    }

    /// The number of reachable states, when a closed form is known.
    pub fn closed_form_states(&self) -> Option<u64> {
        dispatch!(self, p => p.closed_form_states())
    }

    /// Searches from the start.
    pub fn search(&self, options: &Options) -> Result<Report, Error> {
        dispatch!(self, p => search(p, options))
    }

    /// A shortest solution from the start to the position written as `target` (each
    /// puzzle's `parse_state` format), with the moves by name.
    pub fn solve(&self, target: &str, options: &Options) -> Result<(Solution, Vec<String>), Error> {
        dispatch!(self, p => {
            let s = solve(p, p.parse_state(target)?, options)?;
            let names = s.describe(p);
            Ok((s, names))
        })
    }

    /// The state of an index as text, or an error for an index outside the space.
    pub fn describe_state(&self, index: u64) -> Result<String, Error> {
        if index >= self.size() {
            return Err(Error::State(format!("index {index} is outside 0..{}", self.size())));
        }
        Ok(dispatch!(self, p => p.describe_state(index)))
    }
}
