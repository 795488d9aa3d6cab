//! Safety monitors (spec §4.2–4.3): an `.aut` whose labels are action regular
//! expressions (or literal labels), with error states given apart, unfolded against
//! the product's labels into a table `(monitor state, product label) → targets`.
//! The monitored product moves the monitor with every observed label (a label some
//! monitor transition matches) and leaves it alone on the others; error states are
//! absorbing. A monitor must be complete in its reachable non-error states unless
//! told what to do with a missing move.

use regex::Regex;

use crate::aut::Lts;
use crate::error::{Error, Result};
use crate::network::Network;

/// How monitor labels match product labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Matching {
    /// Rust regular expressions, anchored at both ends.
    #[default]
    Regex,
    /// Plain strings.
    Literal,
}

/// What a missing monitor move does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Incomplete {
    /// Refuse the monitor, naming a missing move.
    #[default]
    Refuse,
    /// Block the system's step (GPUexplore's behaviour).
    Block,
    /// The monitor stays where it is.
    Stay,
}

/// A monitor label: what product labels it matches.
#[derive(Clone, Debug)]
pub enum Pattern {
    Literal(String),
    Regex(Regex),
}

impl Pattern {
    pub fn matches(&self, label: &str) -> bool {
        match self {
            Pattern::Literal(p) => p == label,
            Pattern::Regex(r) => r.is_match(label),
        }
    }
}

/// A monitor unfolded against a network's labels.
#[derive(Clone, Debug)]
pub struct Monitor {
    pub name: String,
    pub initial: u32,
    pub states: u32,
    pub error: Vec<bool>,
    /// Per product label: whether the monitor observes it.
    pub observed: Vec<bool>,
    /// `offsets[q * labels + l] .. offsets[q * labels + l + 1]` in `targets`.
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Monitor {
    /// Reads the monitor `.aut` in `path` (its labels are patterns: no label is τ) and
    /// unfolds it against `net`.
    pub fn load(
        path: &std::path::Path,
        error: &[u32],
        net: &Network,
        matching: Matching,
        missing: Incomplete,
    ) -> Result<Monitor> {
        let text = crate::build::read(path)?;
        let lts = crate::aut::parse(&text, &path.display().to_string(), &crate::aut::AutOptions { internal: vec![] })?;
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Monitor::new(name, &lts, error, net, matching, missing)
    }

    /// Unfolds `lts` against `net`'s product labels.
    pub fn new(
        name: String,
        lts: &Lts,
        error: &[u32],
        net: &Network,
        matching: Matching,
        missing: Incomplete,
    ) -> Result<Monitor> {
        let states = lts.states;
        if let Some(e) = error.iter().find(|&&e| e >= states) {
            return Err(Error::Invalid(format!("monitor {name}: error state {e} is not below its {states} states")));
        }
        let patterns: Vec<Pattern> = lts
            .labels
            .iter()
            .map(|p| match matching {
                Matching::Literal => Ok(Pattern::Literal(p.clone())),
                Matching::Regex => Regex::new(&format!("^(?:{p})$"))
                    .map(Pattern::Regex)
                    .map_err(|e| Error::Invalid(format!("monitor {name}: label \"{p}\": {e}"))),
            })
            .collect::<Result<_>>()?;
        let used: Vec<u32> = {
            let mut u: Vec<u32> = lts.transitions.iter().map(|t| t.1).collect();
            u.sort_unstable();
            u.dedup();
            u
        };
        let labels = net.labels.len();
        let names: Vec<&str> = (0..labels as u32).map(|l| net.label_name(l)).collect();
        let observed: Vec<bool> = names.iter().map(|n| used.iter().any(|&p| patterns[p as usize].matches(n))).collect();
        let mut is_error = vec![false; states as usize];
        for &e in error {
            is_error[e as usize] = true;
        }
        let mut offsets = vec![0u32];
        let mut targets = Vec::new();
        for q in 0..states {
            for (l, name) in names.iter().enumerate() {
                if observed[l] {
                    if is_error[q as usize] {
                        targets.push(q);
                    } else {
                        let mut to: Vec<u32> = lts
                            .transitions
                            .iter()
                            .filter(|t| t.0 == q && patterns[t.1 as usize].matches(name))
                            .map(|t| t.2)
                            .collect();
                        to.sort_unstable();
                        to.dedup();
                        targets.extend(to);
                    }
                }
                offsets.push(targets.len() as u32);
            }
        }
        let monitor = Monitor { name, initial: lts.initial, states, error: is_error, observed, offsets, targets };
        if missing == Incomplete::Refuse {
            monitor.check_complete(&names)?;
        }
        Ok(monitor.with_missing(missing))
    }

    fn with_missing(mut self, missing: Incomplete) -> Monitor {
        if missing == Incomplete::Stay {
            // A missing move becomes a self-loop.
            let labels = self.observed.len();
            let mut offsets = vec![0u32];
            let mut targets = Vec::new();
            for q in 0..self.states {
                for l in 0..labels {
                    let to = self.moves(q, l as u32);
                    if self.observed[l] && to.is_empty() {
                        targets.push(q);
                    } else {
                        targets.extend_from_slice(to);
                    }
                    offsets.push(targets.len() as u32);
                }
            }
            self.offsets = offsets;
            self.targets = targets;
        }
        self
    }

    /// Every observed label has a move from every non-error state reachable in the
    /// unfolded monitor.
    fn check_complete(&self, names: &[&str]) -> Result<()> {
        let mut seen = vec![false; self.states as usize];
        let mut stack = vec![self.initial];
        seen[self.initial as usize] = true;
        while let Some(q) = stack.pop() {
            for (l, name) in names.iter().enumerate() {
                let to = self.moves(q, l as u32);
                if self.observed[l] && to.is_empty() {
                    return Err(Error::Invalid(format!(
                        "monitor {}: state {q} has no move for the observed label \"{}\" (complete it, or choose \
                         --monitor-incomplete block or stay)",
                        self.name, name
                    )));
                }
                for &t in to {
                    if !seen[t as usize] {
                        seen[t as usize] = true;
                        stack.push(t);
                    }
                }
            }
        }
        Ok(())
    }

    /// A complete deterministic monitor: `table[q][l]` is the target of state `q` on
    /// product label `l`; every label is observed; error states are made absorbing.
    pub fn from_dfa(name: String, table: Vec<Vec<u32>>, error: Vec<bool>) -> Monitor {
        let labels = table.first().map_or(0, Vec::len);
        let mut offsets = vec![0u32];
        let mut targets = Vec::new();
        for (q, row) in table.iter().enumerate() {
            for &t in row {
                targets.push(if error[q] { q as u32 } else { t });
                offsets.push(targets.len() as u32);
            }
        }
        Monitor { name, initial: 0, states: table.len() as u32, error, observed: vec![true; labels], offsets, targets }
    }

    /// The move table: `offsets[q * labels + l] .. offsets[q * labels + l + 1]` index
    /// `targets` (for the generated C).
    pub fn table(&self) -> (&[u32], &[u32]) {
        (&self.offsets, &self.targets)
    }

    /// The most targets of one move (at least 1: an unobserved label keeps the state).
    pub fn fan_out(&self) -> u64 {
        self.offsets.windows(2).map(|w| (w[1] - w[0]) as u64).max().unwrap_or(0).max(1)
    }

    /// The monitor's targets from `q` on product label `l` (empty for an unobserved
    /// label: the caller keeps `q`).
    pub fn moves(&self, q: u32, l: u32) -> &[u32] {
        let i = q as usize * self.observed.len() + l as usize;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}
