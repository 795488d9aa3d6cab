//! Predecessor lists: the transpose of a model's state graph, each backward edge with
//! the choice (row) it belongs to. This module is the one place that builds them; every
//! backward search of the crate (the attractors of the MEC decomposition, the prob0 /
//! prob1 precomputations) reads them.
//!
//! Memory: `u64` offsets per state, and per matrix entry a `u32` source plus the row
//! (nothing for models with one row per state, where the row is the source; a `u32` when
//! the model has fewer than 2^32 rows; a `u64` otherwise).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::SparseModel;

/// Models with fewer entries than this are transposed sequentially.
const PARALLEL_ENTRIES: usize = 1 << 16;

/// The predecessors of every state of a [`SparseModel`], with the rows that lead to it.
///
/// An entry `(s, r)` in the list of `t` means: row `r` (a choice of state `s`) has `t`
/// among its targets. A row that reaches `t` is listed once per entry, so exactly once
/// (targets are unique within a row). Targets outside the model (an invalid matrix) are
/// left out. The order within one list is unspecified (the parallel construction
/// scatters with atomic cursors); no algorithm of this crate depends on it.
#[derive(Clone, Debug)]
pub struct Predecessors {
    offsets: Vec<u64>,
    sources: Vec<u32>,
    rows: Rows,
}

#[derive(Clone, Debug)]
enum Rows {
    /// One row per state: the row of an edge is its source.
    Source,
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Predecessors {
    /// Builds the predecessor lists of `model` (a counting sort over the targets; on
    /// the rayon pool for large models).
    pub fn new(model: &SparseModel) -> Predecessors {
        let n = model.states();
        let one_row_per_state = model.row_groups.iter().enumerate().all(|(i, &g)| g == i as u64);
        let narrow = model.choices() <= u32::MAX as u64;
        if model.columns.len() < PARALLEL_ENTRIES || rayon::current_num_threads() == 1 {
            sequential(model, n, one_row_per_state, narrow)
        } else {
            parallel(model, n, one_row_per_state, narrow)
        }
    }

    /// Number of states.
    pub fn states(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of backward edges (the model's entries with a target inside the model).
    pub fn edges(&self) -> u64 {
        self.sources.len() as u64
    }

    #[inline]
    fn range(&self, t: u32) -> std::ops::Range<usize> {
        self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize
    }

    /// The states with a row that reaches `t` (a state appears once per such row).
    #[inline]
    pub fn sources(&self, t: u32) -> &[u32] {
        &self.sources[self.range(t)]
    }

    /// The `(source state, row)` pairs of the rows that reach `t`.
    #[inline]
    pub fn of(&self, t: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.range(t).map(move |i| {
            let s = self.sources[i];
            let r = match &self.rows {
                Rows::Source => s as u64,
                Rows::Narrow(rows) => rows[i] as u64,
                Rows::Wide(rows) => rows[i],
            };
            (s, r)
        })
    }
}

/// The `(source, row, target)` triples of the entries of states `states`, targets
/// inside the model only.
fn for_entries(model: &SparseModel, states: std::ops::Range<usize>, mut f: impl FnMut(u32, u64, u32)) {
    let n = model.states();
    for s in states {
        for r in model.rows(s as u32) {
            for &t in &model.columns[model.entries(r)] {
                if (t as usize) < n {
                    f(s as u32, r, t);
                }
            }
        }
    }
}

fn sequential(model: &SparseModel, n: usize, one_row_per_state: bool, narrow: bool) -> Predecessors {
    let mut offsets = vec![0u64; n + 1];
    for_entries(model, 0..n, |_, _, t| offsets[t as usize + 1] += 1);
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let m = offsets[n] as usize;
    let mut next: Vec<u64> = offsets[..n].to_vec();
    let mut sources = vec![0u32; m];
    let mut rows = match (one_row_per_state, narrow) {
        (true, _) => Rows::Source,
        (false, true) => Rows::Narrow(vec![0; m]),
        (false, false) => Rows::Wide(vec![0; m]),
    };
    for_entries(model, 0..n, |s, r, t| {
        let slot = &mut next[t as usize];
        let i = *slot as usize;
        *slot += 1;
        sources[i] = s;
        match &mut rows {
            Rows::Source => {}
            Rows::Narrow(v) => v[i] = r as u32,
            Rows::Wide(v) => v[i] = r,
        }
    });
    Predecessors { offsets, sources, rows }
}

/// States per rayon job of the parallel construction.
const STATES_PER_JOB: usize = 4096;

fn parallel(model: &SparseModel, n: usize, one_row_per_state: bool, narrow: bool) -> Predecessors {
    let jobs = n.div_ceil(STATES_PER_JOB);
    let span = |j: usize| j * STATES_PER_JOB..((j + 1) * STATES_PER_JOB).min(n);
    let counts: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    (0..jobs).into_par_iter().for_each(|j| {
        for_entries(model, span(j), |_, _, t| {
            counts[t as usize].fetch_add(1, Relaxed);
        })
    });
    let mut offsets = Vec::with_capacity(n + 1);
    let mut total = 0u64;
    offsets.push(0);
    for c in &counts {
        total += c.load(Relaxed);
        offsets.push(total);
    }
    // The counts become the cursors: the next free slot of each target's list.
    counts.par_iter().zip(&offsets[..n]).for_each(|(c, &o)| c.store(o, Relaxed));
    let m = total as usize;
    let sources: Vec<AtomicU32> = (0..m).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let rows = if one_row_per_state {
        (0..jobs).into_par_iter().for_each(|j| {
            for_entries(model, span(j), |s, _, t| {
                let i = counts[t as usize].fetch_add(1, Relaxed) as usize;
                sources[i].store(s, Relaxed);
            })
        });
        Rows::Source
    } else if narrow {
        let rows: Vec<AtomicU32> = (0..m).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        (0..jobs).into_par_iter().for_each(|j| {
            for_entries(model, span(j), |s, r, t| {
                let i = counts[t as usize].fetch_add(1, Relaxed) as usize;
                sources[i].store(s, Relaxed);
                rows[i].store(r as u32, Relaxed);
            })
        });
        Rows::Narrow(rows.into_iter().map(AtomicU32::into_inner).collect())
    } else {
        let rows: Vec<AtomicU64> = (0..m).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        (0..jobs).into_par_iter().for_each(|j| {
            for_entries(model, span(j), |s, r, t| {
                let i = counts[t as usize].fetch_add(1, Relaxed) as usize;
                sources[i].store(s, Relaxed);
                rows[i].store(r, Relaxed);
            })
        });
        Rows::Wide(rows.into_iter().map(AtomicU64::into_inner).collect())
    };
    Predecessors { offsets, sources: sources.into_iter().map(AtomicU32::into_inner).collect(), rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelType;

    fn mdp() -> SparseModel {
        // 0: a -> {0, 1}, b -> {2}; 1: a -> {1}; 2: a -> {0, 2}
        let mut m = SparseModel::new(ModelType::Mdp);
        m.push_row(None);
        m.push_entry(0, 0.5);
        m.push_entry(1, 0.5);
        m.push_row(None);
        m.push_entry(2, 1.0);
        m.end_state();
        m.push_row(None);
        m.push_entry(1, 1.0);
        m.end_state();
        m.push_row(None);
        m.push_entry(0, 0.5);
        m.push_entry(2, 0.5);
        m.end_state();
        m.initial = vec![0];
        m
    }

    fn sorted(p: &Predecessors, t: u32) -> Vec<(u32, u64)> {
        let mut v: Vec<_> = p.of(t).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn transposes_with_rows() {
        let p = Predecessors::new(&mdp());
        assert_eq!(p.states(), 3);
        assert_eq!(p.edges(), 6);
        assert_eq!(sorted(&p, 0), [(0, 0), (2, 3)]);
        assert_eq!(sorted(&p, 1), [(0, 0), (1, 2)]);
        assert_eq!(sorted(&p, 2), [(0, 1), (2, 3)]);
    }

    #[test]
    fn parallel_equals_sequential_up_to_order() {
        // A ring of 40,000 states, each with two rows (one to the next state, one to itself
        // and the one after next): enough entries for the parallel construction.
        let n = 40_000u32;
        let mut m = SparseModel::new(ModelType::Mdp);
        for s in 0..n {
            m.push_row(None);
            m.push_entry((s + 1) % n, 1.0);
            m.push_row(None);
            let mut t = [s, (s + 2) % n];
            t.sort_unstable();
            m.push_entry(t[0], 0.5);
            m.push_entry(t[1], 0.5);
            m.end_state();
        }
        let seq = sequential(&m, n as usize, false, true);
        let par = parallel(&m, n as usize, false, true);
        assert_eq!(seq.offsets, par.offsets);
        for t in 0..n {
            assert_eq!(sorted(&seq, t), sorted(&par, t));
        }
        let wide = parallel(&m, n as usize, false, false);
        for t in (0..n).step_by(997) {
            assert_eq!(sorted(&seq, t), sorted(&wide, t));
        }
    }

    #[test]
    fn one_row_per_state_reads_rows_from_sources() {
        let mut m = SparseModel::new(ModelType::Dtmc);
        m.push_row(None);
        m.push_entry(1, 1.0);
        m.end_state();
        m.push_row(None);
        m.push_entry(0, 0.5);
        m.push_entry(1, 0.5);
        m.end_state();
        let p = Predecessors::new(&m);
        assert!(matches!(p.rows, Rows::Source));
        assert_eq!(sorted(&p, 1), [(0, 0), (1, 1)]);
    }

    #[test]
    fn skips_targets_outside_the_model() {
        let mut m = mdp();
        m.columns[2] = 9;
        let p = Predecessors::new(&m);
        assert_eq!(p.edges(), 5);
        assert_eq!(sorted(&p, 2), [(2, 3)]);
    }
}
