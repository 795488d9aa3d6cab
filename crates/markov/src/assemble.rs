//! The emits of states grouped into choices ([`Emits`]), and their assembly into a
//! state's rows ([`assemble`]) and action rewards ([`fuse_rewards`]): what every
//! builder does per state, whatever explores the states.

use std::ops::Range;

use crate::sparse::ModelType;

/// How far the probabilities of a DTMC or MDP choice may sum from 1 (PRISM's check).
pub const SUM_TOLERANCE: f64 = 1e-6;

/// The emits of one or more states, grouped into choices: a state's choices are a
/// range of them (see [`Emits::seal`]).
#[derive(Clone, Debug, Default)]
pub struct Emits {
    /// `(target, weight)` of every emit, in order.
    entries: Vec<(u32, f64)>,
    /// Per choice: its first entry and the range of its groups in `groups`.
    choices: Vec<(usize, usize, usize)>,
    groups: Vec<u32>,
    /// The next emit starts a choice whatever its groups (a new state's).
    sealed: bool,
}

impl Emits {
    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.choices.clear();
        self.groups.clear();
        self.sealed = false;
    }

    /// Ends the current state's choices: the next emit starts a new choice.
    pub fn seal(&mut self) {
        self.sealed = true;
    }

    /// Adds an emit; it starts a new choice unless `groups` equal the last choice's.
    pub fn push(&mut self, groups: &[u32], target: u32, weight: f64) {
        let same = !self.sealed && self.choices.last().is_some_and(|&(_, g0, g1)| self.groups[g0..g1] == *groups);
        self.sealed = false;
        if !same {
            let g0 = self.groups.len();
            self.groups.extend_from_slice(groups);
            self.choices.push((self.entries.len(), g0, self.groups.len()));
        }
        self.entries.push((target, weight));
    }

    /// Replaces every target `t` by `map(t)` (local numbers by state ids).
    pub fn map_targets(&mut self, mut map: impl FnMut(u32) -> u32) {
        for e in &mut self.entries {
            e.0 = map(e.0);
        }
    }

    /// Number of choices.
    pub fn choices(&self) -> usize {
        self.choices.len()
    }

    /// The groups of choice `c`.
    pub fn groups(&self, c: usize) -> &[u32] {
        let (_, g0, g1) = self.choices[c];
        &self.groups[g0..g1]
    }

    /// The entries of choice `c`.
    pub fn entries(&self, c: usize) -> &[(u32, f64)] {
        let start = self.choices[c].0;
        let end = self.choices.get(c + 1).map_or(self.entries.len(), |n| n.0);
        &self.entries[start..end]
    }

    /// The sum of the weights of choice `c`.
    pub fn mass(&self, c: usize) -> f64 {
        self.entries(c).iter().map(|e| e.1).sum()
    }

    /// The first weight among `choices` that is not positive and finite, with its
    /// choice's groups.
    pub fn bad_weight(&self, choices: Range<usize>) -> Option<(&[u32], f64)> {
        choices.into_iter().find_map(|c| {
            self.entries(c).iter().find(|e| !(e.1 > 0.0 && e.1.is_finite())).map(|e| (self.groups(c), e.1))
        })
    }

    /// The first of `choices` whose probabilities do not sum to 1, with the sum.
    pub fn not_stochastic(&self, choices: Range<usize>) -> Option<(&[u32], f64)> {
        choices.map(|c| (self.groups(c), self.mass(c))).find(|(_, m)| (m - 1.0).abs() > SUM_TOLERANCE)
    }
}

/// The rows of one state from its `choices` (at least one): one per choice (MDP) or
/// one fused row (DTMC, CTMC). `scratch` holds the rows' entries.
pub fn assemble<'s>(
    model_type: ModelType,
    emits: &Emits,
    choices: Range<usize>,
    scratch: &'s mut Vec<(u32, f64)>,
) -> Vec<&'s [(u32, f64)]> {
    scratch.clear();
    let mut bounds = Vec::new();
    match model_type {
        ModelType::Mdp => {
            for c in choices {
                let start = scratch.len();
                scratch.extend_from_slice(emits.entries(c));
                merge(scratch, start);
                bounds.push((start, scratch.len()));
            }
        }
        ModelType::Dtmc | ModelType::Ctmc => {
            let n = choices.len() as f64;
            for c in choices.clone() {
                let start = scratch.len();
                scratch.extend_from_slice(emits.entries(c));
                merge(scratch, start);
                if model_type == ModelType::Dtmc && choices.len() > 1 {
                    for e in &mut scratch[start..] {
                        e.1 /= n;
                    }
                }
            }
            merge(scratch, 0);
            bounds.push((0, scratch.len()));
        }
    }
    let scratch: &'s [(u32, f64)] = scratch;
    bounds.into_iter().map(|(a, b)| &scratch[a..b]).collect()
}

/// Sorts `v[start..]` by target and sums the weights of equal targets (in emit order).
fn merge(v: &mut Vec<(u32, f64)>, start: usize) {
    v[start..].sort_by_key(|e| e.0);
    let mut w = start;
    for r in start..v.len() {
        if w > start && v[w - 1].0 == v[r].0 {
            v[w - 1].1 += v[r].1;
        } else {
            v[w] = v[r];
            w += 1;
        }
    }
    v.truncate(w);
}

/// The action rewards of a state's rows: one per choice (MDP); for a fused row the
/// mean over the choices weighted by their mass, divided by the number of choices
/// (DTMC) or by the exit rate (CTMC), as Storm does.
/// `values` holds one reward per choice of `choices`.
pub fn fuse_rewards(model_type: ModelType, emits: &Emits, choices: Range<usize>, values: &[f64], out: &mut Vec<f64>) {
    if model_type == ModelType::Mdp {
        out.extend_from_slice(values);
        return;
    }
    if values.len() == 1 {
        out.push(values[0]);
        return;
    }
    let mut total = 0.0;
    let mut sum = 0.0;
    for (c, r) in choices.zip(values) {
        let mass = emits.mass(c);
        sum += r * mass;
        total += if model_type == ModelType::Dtmc { 1.0 } else { mass };
    }
    out.push(sum / total);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emits(list: &[(&[u32], u32, f64)]) -> Emits {
        let mut e = Emits::default();
        for &(g, t, w) in list {
            e.push(g, t, w);
        }
        e
    }

    #[test]
    fn dtmc_fuses_choices_uniformly() {
        // Two choices: {1: 0.5, 2: 0.5} and {2: 1}: the row is {1: 0.25, 2: 0.75}.
        let e = emits(&[(&[0], 1, 0.5), (&[0], 2, 0.5), (&[1], 2, 1.0)]);
        assert_eq!(e.choices(), 2);
        let mut s = Vec::new();
        let rows = assemble(ModelType::Dtmc, &e, 0..e.choices(), &mut s);
        assert_eq!(rows, vec![&[(1, 0.25), (2, 0.75)][..]]);
    }

    #[test]
    fn mdp_keeps_choices_and_ctmc_sums_rates() {
        let e = emits(&[(&[3], 5, 0.5), (&[3], 4, 0.25), (&[3], 5, 0.25), (&[1, 2], 4, 1.0)]);
        let mut s = Vec::new();
        let rows = assemble(ModelType::Mdp, &e, 0..e.choices(), &mut s);
        assert_eq!(rows, vec![&[(4, 0.25), (5, 0.75)][..], &[(4, 1.0)][..]]);
        let rows = assemble(ModelType::Ctmc, &e, 0..e.choices(), &mut s);
        assert_eq!(rows, vec![&[(4, 1.25), (5, 0.75)][..]]);
    }

    #[test]
    fn a_sealed_state_starts_its_own_choices() {
        // Two states whose single choices have the same groups stay two choices.
        let mut e = emits(&[(&[2], 1, 1.0)]);
        e.seal();
        e.push(&[2], 0, 1.0);
        assert_eq!(e.choices(), 2);
        let mut s = Vec::new();
        assert_eq!(assemble(ModelType::Dtmc, &e, 1..2, &mut s), vec![&[(0, 1.0)][..]]);
        // Without the seal, the second emit joins the first choice.
        let e = emits(&[(&[2], 1, 1.0), (&[2], 0, 1.0)]);
        assert_eq!(e.choices(), 1);
    }
}
