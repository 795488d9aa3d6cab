//! Maximal end components (MECs) of an MDP, and the bottom SCCs of a DTMC or CTMC.
//!
//! This module owns the MEC decomposition: the [`Mecs`] result (per state the MEC it
//! belongs to; per MEC its states and the choices that stay inside it) with its
//! [`MecSummary`], a parallel algorithm ([`maximal_end_components`]), a sequential
//! reference ([`maximal_end_components_sequential`]) and [`bottom_sccs`].
//!
//! **Definitions.** An end component is a non-empty set `C` of states such that every
//! state of `C` has at least one choice whose targets all lie in `C` ("stays inside"),
//! and `C` is strongly connected using only such choices. A MEC is an end component not
//! strictly contained in another; MECs are disjoint. A single state is a MEC iff it has
//! a choice that returns to it with probability 1; a state without such a choice and on
//! no larger end component is in no MEC.
//!
//! **Algorithm** (the classic one of de Alfaro and of Chatterjee and Henzinger, as
//! parallelised by Wijs, Katoen and Bošnački for GPUs, here on the rayon pool).
//! Candidates start as the whole state space. Each round, for every candidate at once:
//!
//! 1. decompose it into SCCs along the choices that stay inside the candidate (an
//!    iterative Tarjan per candidate, the candidates in parallel); as Tarjan completes
//!    an SCC, disable its states' choices that leave it and count the choices left;
//! 2. remove the states left without a choice, then, repeatedly, the states whose last
//!    staying choice reached a removed state: the attractor of those states within the
//!    SCC, which no MEC intersects (Lemma 1 of Wijs et al.). The removals run in
//!    parallel waves over all SCCs together, over the predecessor lists (built during
//!    the first round's Tarjan, on the other threads);
//! 3. an SCC where steps 1-2 disabled no choice and removed no state is a MEC; the
//!    survivors of any other SCC form a candidate of the next round.
//!
//! Step 3 is where the paper's pseudo-code needs care (digest §3.16, errata 5 and 6;
//! §3.5's warning): an SCC may be declared a MEC only if the edges that made it
//! strongly connected all come from choices that stay inside it. Storm's
//! `MaximalEndComponentDecomposition` ensures this by declaring a candidate final only
//! when it is one SCC equal to itself with nothing removed (one more round per MEC);
//! the reference [`maximal_end_components_sequential`] does exactly that. The parallel
//! algorithm uses the sharper test above: if no choice of the SCC's states had to be
//! disabled, every edge Tarjan followed inside it stays inside it. A choice leaving to
//! a removed state, to a finished MEC or to another candidate always counts as leaving
//! (erratum 6: the paper's kernel skipped such targets). Disabling at completion time
//! is sound because Tarjan completes SCCs in reverse topological order: the targets of
//! a staying choice are in the SCC or in one completed before, so their labels are
//! final.
//!
//! **Why not `warpcheck-scc`.** Its `decompose` takes a whole `Graph` (a CSR of all
//! vertices and edges): it has no vertex or edge filter, so each round would have to
//! copy every candidate's restricted subgraph into a fresh CSR and transpose it (12
//! bytes per state and 8 per edge, plus FB's 21 bytes of flags per vertex), and on 2
//! cores its FB loses to Tarjan on state graphs (its own benchmark,
//! `benches/results/scc-cpu-2core.md`: 0.14-0.54x). Here an iterative Tarjan reads the
//! model's rows in place through a row filter (module `mec::tarjan`), and the
//! parallelism comes from the many independent candidates and from the attractor waves.
//! The first round has one candidate, the whole model, so its Tarjan is sequential.
//!
//! **Memory.** Besides the model and the [`Predecessors`]: 17 bytes per state (set
//! label, Tarjan index and low link, staying-choice count, one flag), one byte per row,
//! two `u32` lists of the live states of a round, and Tarjan's stacks (at most 28 bytes
//! per state of the deepest search); the result takes 8 bytes per state and one bit
//! per row.

mod tarjan;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::par;
use crate::predecessors::Predecessors;
use crate::SparseModel;
use tarjan::{tarjan, Scratch, UNSEEN};

/// The label of a state known to be in no MEC.
const REMOVED: u32 = u32::MAX;

/// The MEC decomposition of a model (or its bottom SCCs, see [`bottom_sccs`]).
///
/// MECs are numbered by their smallest state, their states listed in ascending order,
/// so two decompositions of the same model are equal iff they are the same partition
/// with the same inside choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mecs {
    /// Per state, the index of its MEC, or `u32::MAX`.
    component: Vec<u32>,
    /// MEC `k` is `states[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    states: Vec<u32>,
    /// One bit per row: the row belongs to a MEC state and all its targets lie in that
    /// state's MEC.
    inside: Vec<u64>,
}

/// The counts that `reference.json` records for a decomposition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MecSummary {
    /// Number of MECs.
    pub count: usize,
    /// Number of states of each MEC, largest first.
    pub sizes_sorted_desc: Vec<usize>,
    /// Number of states in some MEC.
    pub states_in_mecs: u64,
    /// Number of (state, choice) pairs whose choice stays inside the state's MEC.
    pub choices_in_mecs: u64,
}

impl Mecs {
    /// Number of MECs.
    pub fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// The MEC of state `s` (its index), if `s` lies in one.
    pub fn of(&self, s: u32) -> Option<usize> {
        match self.component.get(s as usize) {
            Some(&k) if k != u32::MAX => Some(k as usize),
            _ => None,
        }
    }

    /// The states of MEC `k`, ascending.
    pub fn states(&self, k: usize) -> &[u32] {
        &self.states[self.starts[k]..self.starts[k + 1]]
    }

    /// Every MEC's states, in MEC order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.count()).map(|k| self.states(k))
    }

    /// Whether row `row` (a choice of some state) lies in a MEC: its state is in a MEC
    /// and all its targets lie in that MEC.
    pub fn stays_inside(&self, row: u64) -> bool {
        self.inside.get((row / 64) as usize).is_some_and(|w| w >> (row % 64) & 1 == 1)
    }

    /// The `(state, local choice index)` pairs of MEC `k` whose choice stays inside it,
    /// by state then choice; `model` must be the decomposed model.
    pub fn choices<'a>(&'a self, model: &'a SparseModel, k: usize) -> impl Iterator<Item = (u32, u64)> + 'a {
        self.states(k).iter().flat_map(move |&s| {
            let rows = model.rows(s);
            let first = rows.start;
            rows.filter(move |&r| self.stays_inside(r)).map(move |r| (s, r - first))
        })
    }

    /// The counts of the decomposition.
    pub fn summary(&self) -> MecSummary {
        let mut sizes: Vec<usize> = self.starts.windows(2).map(|w| w[1] - w[0]).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        MecSummary {
            count: self.count(),
            sizes_sorted_desc: sizes,
            states_in_mecs: self.states.len() as u64,
            choices_in_mecs: self.inside.iter().map(|w| w.count_ones() as u64).sum(),
        }
    }

    /// Builds the result from MECs given as `states` grouped by `starts` (any order
    /// within and between groups) and the rows that stay inside (`inside_row` must be
    /// false for the rows of states in no MEC; both algorithms end in that state).
    fn assemble(
        model: &SparseModel,
        mut states: Vec<u32>,
        starts: Vec<usize>,
        inside_row: impl Fn(u64) -> bool + Sync,
    ) -> Mecs {
        let n = model.states();
        let count = starts.len() - 1;
        // Sort each MEC, then order the MECs by their smallest state.
        {
            let mut rest = states.as_mut_slice();
            let mut slices = Vec::with_capacity(count);
            for w in starts.windows(2) {
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
                slices.push(head);
                rest = tail;
            }
            slices.par_iter_mut().for_each(|s| s.sort_unstable());
        }
        let mut order: Vec<usize> = (0..count).collect();
        order.par_sort_unstable_by_key(|&k| states[starts[k]]);
        let mut sorted = Vec::with_capacity(states.len());
        let mut new_starts = Vec::with_capacity(count + 1);
        new_starts.push(0);
        for &k in &order {
            sorted.extend_from_slice(&states[starts[k]..starts[k + 1]]);
            new_starts.push(sorted.len());
        }
        drop(states);
        let component: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(u32::MAX)).collect();
        (0..count).into_par_iter().for_each(|k| {
            for &s in &sorted[new_starts[k]..new_starts[k + 1]] {
                component[s as usize].store(k as u32, Relaxed);
            }
        });
        let component: Vec<u32> = component.into_iter().map(AtomicU32::into_inner).collect();
        let rows = model.choices();
        let inside: Vec<u64> = (0..rows.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                (0..64).filter(|b| w * 64 + b < rows && inside_row(w * 64 + b)).fold(0u64, |word, b| word | 1 << b)
            })
            .collect();
        Mecs { component, starts: new_starts, states: sorted, inside }
    }

    /// The decomposition given by a label per state (`u32::MAX`: in no MEC; the states
    /// of one label form one MEC) and the rows that stay inside (`inside_row` false for
    /// the rows of states in no MEC): a decomposition computed elsewhere (on the GPU)
    /// as a `Mecs`.
    ///
    /// # Panics
    ///
    /// If `label` is not one label per state of `model`.
    pub fn from_labels(model: &SparseModel, label: &[u32], inside_row: impl Fn(u64) -> bool + Sync) -> Mecs {
        assert_eq!(label.len(), model.states(), "one label per state");
        let mut pairs: Vec<(u32, u32)> =
            label.par_iter().enumerate().filter(|&(_, &l)| l != REMOVED).map(|(s, &l)| (l, s as u32)).collect();
        pairs.par_sort_unstable();
        let mut starts = vec![0];
        starts.extend((1..pairs.len()).filter(|&i| pairs[i].0 != pairs[i - 1].0));
        if !pairs.is_empty() {
            starts.push(pairs.len());
        }
        let states = pairs.into_iter().map(|(_, s)| s).collect();
        Mecs::assemble(model, states, starts, inside_row)
    }

    fn empty(model: &SparseModel) -> Mecs {
        Mecs::assemble(model, Vec::new(), vec![0], |_| false)
    }
}

/// Tuning of [`maximal_end_components_with`].
#[derive(Clone, Debug)]
pub struct MecOptions {
    /// Models with fewer states use the sequential algorithm; work lists (states of a
    /// round, attractor waves, candidates) shorter than this run sequentially within
    /// the parallel one.
    pub parallel_threshold: usize,
}

impl Default for MecOptions {
    fn default() -> Self {
        MecOptions { parallel_threshold: par::DEFAULT_THRESHOLD }
    }
}

/// The MEC decomposition of `model`, on the current rayon pool (install a pool to
/// choose the number of threads). Small models use the sequential algorithm.
///
/// Any model type is accepted: for a DTMC or CTMC (one row per state) the result is
/// its bottom SCCs (see [`bottom_sccs`]).
///
/// # Panics
///
/// If the model has 2^32 states or more (state `u32::MAX` is used as a marker).
pub fn maximal_end_components(model: &SparseModel) -> Mecs {
    maximal_end_components_with(model, &MecOptions::default())
}

/// [`maximal_end_components`] with explicit options.
///
/// # Panics
///
/// If the model has 2^32 states or more.
pub fn maximal_end_components_with(model: &SparseModel, options: &MecOptions) -> Mecs {
    let n = model.states();
    assert!(n < u32::MAX as usize, "MEC decomposition supports at most 2^32 - 1 states, the model has {n}");
    // Inside-choice counts are `u32`: a state with 2^32 choices or more (never seen in
    // practice) goes to the sequential algorithm, which counts in `u64`.
    let wide_state = || model.row_groups.par_windows(2).any(|w| w[1] - w[0] >= u32::MAX as u64);
    if n < options.parallel_threshold || wide_state() {
        maximal_end_components_sequential(model)
    } else {
        Parallel::new(model, options.parallel_threshold.max(1)).run()
    }
}

/// Whether `r` has entries and all its targets lie in the model.
fn row_is_distribution(model: &SparseModel, r: u64) -> bool {
    let e = model.entries(r);
    !e.is_empty() && model.columns[e].iter().all(|&t| (t as usize) < model.states())
}

/// The sequential reference: Storm's scheme (a candidate is a MEC only when its SCC
/// decomposition gives back the whole candidate and no state is removed), one candidate
/// at a time from a work list, with the same iterative Tarjan and a queue-based attractor. Also the
/// algorithm for small models.
///
/// # Panics
///
/// If the model has 2^32 states or more.
pub fn maximal_end_components_sequential(model: &SparseModel) -> Mecs {
    let n = model.states();
    assert!(n < u32::MAX as usize, "MEC decomposition supports at most 2^32 - 1 states, the model has {n}");
    if n == 0 {
        return Mecs::empty(model);
    }
    let preds = Predecessors::new(model);
    let mut set = vec![0u32; n];
    let index: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNSEEN)).collect();
    let low: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let mut inside = vec![false; model.choices() as usize];
    let mut count = vec![0u64; n];
    let mut scratch = Scratch::default();
    let mut work: Vec<Vec<u32>> = vec![(0..n as u32).collect()];
    let (mut mec_states, mut mec_starts) = (Vec::new(), vec![0]);
    let stays = |set: &[u32], r: u64, d: u32| model.columns[model.entries(r)].iter().all(|&t| set[t as usize] == d);
    while let Some(candidate) = work.pop() {
        let name = set[candidate[0] as usize];
        for &s in &candidate {
            index[s as usize].store(UNSEEN, Relaxed);
            for r in model.rows(s) {
                inside[r as usize] = row_is_distribution(model, r) && stays(&set, r, name);
            }
        }
        let mut sccs: Vec<Vec<u32>> = Vec::new();
        tarjan(model, &candidate, |r| inside[r as usize], &index, &low, &mut scratch, |c| sccs.push(c.to_vec()));
        let whole = sccs.len() == 1;
        for scc in &sccs {
            let root = scc[scc.len() - 1];
            scc.iter().for_each(|&s| set[s as usize] = root);
        }
        for scc in sccs {
            let d = scc[scc.len() - 1];
            let mut queue = Vec::new();
            for &s in &scc {
                let mut c = 0;
                for r in model.rows(s) {
                    if inside[r as usize] {
                        if stays(&set, r, d) {
                            c += 1;
                        } else {
                            inside[r as usize] = false;
                        }
                    }
                }
                count[s as usize] = c;
                if c == 0 {
                    queue.push(s);
                }
            }
            let removed_any = !queue.is_empty();
            while let Some(s) = queue.pop() {
                set[s as usize] = REMOVED;
                for (p, r) in preds.of(s) {
                    if set[p as usize] == d && inside[r as usize] {
                        inside[r as usize] = false;
                        count[p as usize] -= 1;
                        if count[p as usize] == 0 {
                            queue.push(p);
                        }
                    }
                }
            }
            let survivors: Vec<u32> = scc.into_iter().filter(|&s| set[s as usize] == d).collect();
            if survivors.is_empty() {
                continue;
            }
            if whole && !removed_any {
                mec_states.extend_from_slice(&survivors);
                mec_starts.push(mec_states.len());
            } else {
                work.push(survivors);
            }
        }
    }
    Mecs::assemble(model, mec_states, mec_starts, |r| inside[r as usize])
}

/// What [`bottom_sccs`] refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("state {state} has {rows} rows; bottom SCCs are defined here for models with one row per state")]
pub struct NotOneRowPerState {
    /// The first state with a number of rows other than one.
    pub state: u32,
    /// Its number of rows.
    pub rows: u64,
}

/// The bottom strongly connected components (BSCCs) of a DTMC or CTMC (any model with
/// exactly one row per state), in the [`Mecs`] form: the inside choice of every BSCC
/// state is its only row.
///
/// This is the MEC decomposition itself: with one choice per state, a choice stays
/// inside a set iff no edge of the state leaves it, so an end component is a strongly
/// connected set that no edge leaves, and the maximal ones are exactly the bottom SCCs
/// (a bottom SCC is an end component and lies in no larger strongly connected set; a
/// non-bottom SCC has a state with an edge out of it, which the attractor step removes,
/// and then all of it). This is how `reference.json` obtains its `bscc` fields (Storm's
/// MEC decomposition of the chain read as an MDP). Self-loops count: an absorbing state
/// is a BSCC of size 1.
///
/// # Panics
///
/// If the model has 2^32 states or more.
pub fn bottom_sccs(model: &SparseModel) -> Result<Mecs, NotOneRowPerState> {
    one_row_per_state(model)?;
    Ok(maximal_end_components(model))
}

/// Whether every state of `model` has exactly one row (a chain, whose MECs are its
/// bottom SCCs), else the first state that has not.
pub fn one_row_per_state(model: &SparseModel) -> Result<(), NotOneRowPerState> {
    match (0..model.states()).find(|&s| model.row_groups[s + 1] - model.row_groups[s] != 1) {
        Some(s) => Err(NotOneRowPerState { state: s as u32, rows: model.row_groups[s + 1] - model.row_groups[s] }),
        None => Ok(()),
    }
}

/// The parallel algorithm's shared per-state and per-row arrays.
struct Parallel<'m> {
    model: &'m SparseModel,
    threshold: usize,
    /// The name of the state's live set (a candidate, then an SCC): one of the set's
    /// states at the time it was created, so live sets never share a name; `REMOVED`
    /// for states in no MEC. MEC states keep their SCC's name.
    label: Vec<AtomicU32>,
    /// Tarjan's index and low link.
    index: Vec<AtomicU32>,
    low: Vec<AtomicU32>,
    /// Choices of the state still staying inside its SCC (during the attractor).
    count: Vec<AtomicU32>,
    /// Indexed by an SCC's name: a choice of it was disabled or a state removed.
    changed: Vec<AtomicBool>,
    /// Per row: all targets lie in the row's state's live set (its candidate before the
    /// SCC decomposition, its SCC after). Only rows of live and MEC states are kept
    /// up to date; at the end it is true exactly for the rows inside MECs.
    inside: Vec<AtomicBool>,
}

impl<'m> Parallel<'m> {
    fn new(model: &'m SparseModel, threshold: usize) -> Parallel<'m> {
        let n = model.states();
        let atomics = |v: u32| (0..n).into_par_iter().map(|_| AtomicU32::new(v)).collect::<Vec<_>>();
        Parallel {
            model,
            threshold,
            label: atomics(0),
            index: atomics(UNSEEN),
            low: atomics(0),
            count: atomics(0),
            changed: (0..n).into_par_iter().map(|_| AtomicBool::new(false)).collect(),
            // The first candidate is every state: a row stays inside iff it is a
            // distribution over the model's states.
            inside: (0..model.choices())
                .into_par_iter()
                .map(|r| AtomicBool::new(row_is_distribution(model, r)))
                .collect(),
        }
    }

    #[inline]
    fn label(&self, s: u32) -> u32 {
        self.label[s as usize].load(Relaxed)
    }

    fn run(self) -> Mecs {
        let model = self.model;
        let n = model.states();
        let th = self.threshold;
        let mut live: Vec<u32> = (0..n as u32).into_par_iter().collect();
        let mut preds: Option<Predecessors> = None;
        let mut mec_states: Vec<u32> = Vec::new();
        while !live.is_empty() {
            // 1. The SCCs of every candidate along its inside rows, into `scc_order`
            //    (each SCC contiguous, labelled with its root); as each SCC completes,
            //    its rows that leave it are disabled, and its states left without an
            //    inside row start the attractor. In the first round the predecessor
            //    lists are built meanwhile, on the other threads.
            let mut scc_order = vec![0u32; live.len()];
            let mut wave = if preds.is_some() {
                self.decompose(&live, &mut scc_order)
            } else {
                let (p, wave) = rayon::join(|| Predecessors::new(model), || self.decompose(&live, &mut scc_order));
                preds = Some(p);
                wave
            };
            drop(live);
            let preds = preds.as_ref().expect("built in the first round");
            // 2. The attractor, in waves: a removed state disables the inside rows of
            //    its predecessors in the same SCC; a predecessor losing its last one
            //    joins the next wave (exactly once: one decrement reaches zero).
            while !wave.is_empty() {
                wave = par::gather(&wave, th, |&s, next| {
                    let d = self.label[s as usize].swap(REMOVED, Relaxed);
                    if d == REMOVED {
                        return;
                    }
                    self.changed[d as usize].store(true, Relaxed);
                    for (p, r) in preds.of(s) {
                        if self.label(p) == d
                            && self.inside[r as usize].load(Relaxed)
                            && self.inside[r as usize].swap(false, Relaxed)
                            && self.count[p as usize].fetch_sub(1, Relaxed) == 1
                        {
                            next.push(p);
                        }
                    }
                });
            }
            // 3. Unchanged SCCs are MECs; the survivors of the others are the next
            //    round's candidates (still contiguous, still named by their SCC).
            let keep = |s: u32, changed: bool| {
                let d = self.label(s);
                d != REMOVED && self.changed[d as usize].load(Relaxed) == changed
            };
            mec_states.extend(par::filter(&scc_order, th, |s| keep(s, false)));
            live = par::filter(&scc_order, th, |s| keep(s, true));
        }
        let starts = self.groups(&mec_states);
        let inside = &self.inside;
        Mecs::assemble(model, mec_states, starts, |r| inside[r as usize].load(Relaxed))
    }

    /// The boundaries of the runs of equal labels in `states` (0, ..., len).
    fn groups(&self, states: &[u32]) -> Vec<usize> {
        let mut starts = vec![0];
        if states.len() < self.threshold {
            starts.extend((1..states.len()).filter(|&i| self.label(states[i]) != self.label(states[i - 1])));
        } else {
            let inner: Vec<usize> = (1..states.len())
                .into_par_iter()
                .with_min_len(512)
                .filter(|&i| self.label(states[i]) != self.label(states[i - 1]))
                .collect();
            starts.extend(inner);
        }
        if !states.is_empty() {
            starts.push(states.len());
        }
        starts
    }

    /// Tarjan on every candidate of `live` (runs of equal labels), in parallel: each
    /// candidate's SCCs go to the same positions of `out`, relabelled with their roots.
    /// Returns the states left without an inside row (see [`Parallel::complete`]).
    fn decompose(&self, live: &[u32], out: &mut [u32]) -> Vec<u32> {
        par::for_each(live, self.threshold, |&s| self.index[s as usize].store(UNSEEN, Relaxed));
        let starts = self.groups(live);
        let mut jobs: Vec<(&[u32], &mut [u32])> = Vec::with_capacity(starts.len());
        let mut rest = out;
        for w in starts.windows(2) {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
            jobs.push((&live[w[0]..w[1]], head));
            rest = tail;
        }
        let one = |scratch: &mut Scratch, (input, output): (&[u32], &mut [u32])| {
            let mut at = 0;
            let mut stranded = Vec::new();
            let allowed = |r: u64| self.inside[r as usize].load(Relaxed);
            tarjan(self.model, input, allowed, &self.index, &self.low, scratch, |component| {
                self.complete(component, &mut stranded);
                output[at..at + component.len()].copy_from_slice(component);
                at += component.len();
            });
            stranded
        };
        if jobs.len() == 1 || live.len() < self.threshold {
            let mut scratch = Scratch::default();
            jobs.into_iter().flat_map(|job| one(&mut scratch, job)).collect()
        } else {
            jobs.into_par_iter().map_init(Scratch::default, one).flatten_iter().collect()
        }
    }

    /// Called by Tarjan on each SCC as it completes: labels its states with its root,
    /// disables their inside rows that leave it (and then marks it changed), counts the
    /// rows left per state and pushes the states left with none onto `stranded`.
    ///
    /// The labels this reads are final: an inside row's targets are reachable from the
    /// SCC, so they lie in it or in an SCC that Tarjan completed before (reverse
    /// topological order); targets in other candidates are never on an inside row.
    fn complete(&self, component: &[u32], stranded: &mut Vec<u32>) {
        let model = self.model;
        let root = component[component.len() - 1];
        for &s in component {
            self.label[s as usize].store(root, Relaxed);
        }
        let mut disabled = false;
        for &s in component {
            let mut inside = 0u32;
            for r in model.rows(s) {
                if self.inside[r as usize].load(Relaxed) {
                    if model.columns[model.entries(r)].iter().all(|&t| self.label(t) == root) {
                        inside += 1;
                    } else {
                        self.inside[r as usize].store(false, Relaxed);
                        disabled = true;
                    }
                }
            }
            self.count[s as usize].store(inside, Relaxed);
            if inside == 0 {
                stranded.push(s);
            }
        }
        self.changed[root as usize].store(disabled, Relaxed);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ModelType;

    /// An MDP from per-state lists of choices, each a list of targets (uniform).
    pub(crate) fn mdp(states: &[&[&[u32]]]) -> SparseModel {
        let mut m = SparseModel::new(ModelType::Mdp);
        for choices in states {
            for targets in *choices {
                m.push_row(None);
                let mut t = targets.to_vec();
                t.sort_unstable();
                for &x in &t {
                    m.push_entry(x, 1.0 / t.len() as f64);
                }
            }
            m.end_state();
        }
        m.initial = vec![0];
        m
    }

    /// MECs as sorted lists of (state, local choices).
    fn mecs_of(m: &SparseModel, mecs: &Mecs) -> Vec<Vec<(u32, Vec<u64>)>> {
        (0..mecs.count())
            .map(|k| {
                mecs.states(k)
                    .iter()
                    .map(|&s| (s, mecs.choices(m, k).filter(|&(x, _)| x == s).map(|(_, c)| c).collect()))
                    .collect()
            })
            .collect()
    }

    /// All three algorithm variants agree, and give `want`.
    fn check(m: &SparseModel, want: &[&[(u32, &[u64])]]) {
        let want: Vec<Vec<(u32, Vec<u64>)>> =
            want.iter().map(|mec| mec.iter().map(|&(s, c)| (s, c.to_vec())).collect()).collect();
        let seq = maximal_end_components_sequential(m);
        assert_eq!(mecs_of(m, &seq), want, "sequential");
        let par = maximal_end_components_with(m, &MecOptions { parallel_threshold: 1 });
        assert_eq!(par, seq, "parallel (forced) differs from sequential");
        assert_eq!(maximal_end_components(m), seq);
        for (k, mec) in want.iter().enumerate() {
            for (s, _) in mec {
                assert_eq!(seq.of(*s), Some(k));
            }
        }
    }

    #[test]
    fn self_loop_or_not() {
        // 0: a -> 0 (self-loop with probability 1), b -> 1; 1: a -> {0, 1}; 2: a -> 0
        let m = mdp(&[&[&[0], &[1]], &[&[0, 1]], &[&[0]]]);
        // {0, 1} is an end component (0 via b, 1 via a); 2 is in none.
        check(&m, &[&[(0, &[0, 1]), (1, &[0])]]);
        // A single state with a self-loop of probability < 1 only is not a MEC.
        let m = mdp(&[&[&[0, 1]], &[&[1]]]);
        check(&m, &[&[(1, &[0])]]);
        // No self-loop at all: no MEC.
        let m = mdp(&[&[&[1]], &[&[0, 1]]]);
        check(&m, &[&[(0, &[0]), (1, &[0])]]);
        let m = mdp(&[&[&[1]], &[&[2]], &[&[3]], &[&[3]]]);
        check(&m, &[&[(3, &[0])]]);
    }

    #[test]
    fn two_mecs_linked_by_a_leaving_choice() {
        // {0, 1} and {2, 3} are end components; 1 has a choice into {2, 3}, which leaves
        // {0, 1} and is not one of its inside choices.
        let m = mdp(&[&[&[1]], &[&[0], &[2]], &[&[3]], &[&[2]]]);
        check(&m, &[&[(0, &[0]), (1, &[0])], &[(2, &[0]), (3, &[0])]]);
    }

    #[test]
    fn small_leaving_probability_removes_a_state() {
        // 0 -> 1 surely; 1 -> 0 with 0.999 and to the sink 2 with 0.001 (its only
        // choice): 1 is removed, then 0 (its only choice reaches 1), leaving the sink.
        let mut m = SparseModel::new(ModelType::Mdp);
        m.push_row(None);
        m.push_entry(1, 1.0);
        m.end_state();
        m.push_row(None);
        m.push_entry(0, 0.999);
        m.push_entry(2, 0.001);
        m.end_state();
        m.push_row(None);
        m.push_entry(2, 1.0);
        m.end_state();
        check(&m, &[&[(2, &[0])]]);
    }

    #[test]
    fn nested_removal_needs_several_rounds() {
        // A cycle 0 -> 1 -> 2 -> 3 -> 0 where 3 also has a self-loop and 0 a second
        // choice {0, 4}; 4 -> 5 -> 4 is a separate end component. In the SCC {0, 1, 2, 3}
        // 0's choice {0, 4} leaves, and 2's only choice {3, 5} leaves: 2 is removed, then
        // 1 (its only choice reaches 2), then 0 (its last inside choice reaches 1); 3
        // keeps its self-loop. {3} is a new candidate, and a MEC in the next round.
        let m = mdp(&[&[&[1], &[0, 4]], &[&[2]], &[&[3, 5]], &[&[0], &[3]], &[&[5]], &[&[4]]]);
        check(&m, &[&[(3, &[1])], &[(4, &[0]), (5, &[0])]]);
    }

    #[test]
    fn tarjan_edges_from_leaving_choices_do_not_make_a_mec() {
        // Candidate {0, 1, 2}: 0 -> {1, 2} (0.5 each) and 0 -> 0; 1 -> 0; 2 -> 2.
        // {0, 1} is an SCC (0 -> 1 via the first choice, which also leaves to 2), both
        // states keep a choice inside {0, 1}, yet {0, 1} is no end component: without
        // the first choice, 0 cannot reach 1. MECs: {0} (self-loop) and {2}.
        let m = mdp(&[&[&[1, 2], &[0]], &[&[0]], &[&[2]]]);
        check(&m, &[&[(0, &[1])], &[(2, &[0])]]);
    }

    #[test]
    fn paper_running_example() {
        // The digest's completion of Fig. 1 of Wijs et al. (s0..s7): MECs {s2}, {s3},
        // {s4, s5, s6}; s0, s1, s7 in none.
        let m = mdp(&[
            &[&[1], &[2, 4]],
            &[&[1, 2, 3], &[2, 3]],
            &[&[2]],
            &[&[3]],
            &[&[5, 6]],
            &[&[4, 6], &[2, 7]],
            &[&[5, 6], &[4]],
            &[&[2], &[3]],
        ]);
        check(&m, &[&[(2, &[0])], &[(3, &[0])], &[(4, &[0]), (5, &[0]), (6, &[0, 1])]]);
        let s = maximal_end_components(&m).summary();
        assert_eq!(s, MecSummary { count: 3, sizes_sorted_desc: vec![3, 1, 1], states_in_mecs: 5, choices_in_mecs: 6 });
    }

    #[test]
    fn empty_and_degenerate_models() {
        let m = SparseModel::new(ModelType::Mdp);
        assert_eq!(maximal_end_components(&m).count(), 0);
        assert_eq!(maximal_end_components_with(&m, &MecOptions { parallel_threshold: 1 }).count(), 0);
        // Invalid but must not panic: a state without rows, an empty row, a target
        // outside the model (each counts as leaving).
        let mut m = SparseModel::new(ModelType::Mdp);
        m.push_row(None);
        m.push_entry(0, 1.0);
        m.end_state();
        m.end_state();
        m.push_row(None);
        m.end_state();
        m.push_row(None);
        m.push_entry(7, 1.0);
        m.end_state();
        assert_eq!((m.states(), m.choices()), (4, 3));
        for mecs in [
            maximal_end_components_sequential(&m),
            maximal_end_components_with(&m, &MecOptions { parallel_threshold: 1 }),
        ] {
            assert_eq!(mecs.iter().collect::<Vec<_>>(), vec![&[0u32][..]]);
        }
    }

    #[test]
    fn bottom_sccs_of_a_chain() {
        // DTMC: 0 -> {1, 2}; 1 -> {1}; 2 -> {3}; 3 -> {2}; 4 -> {0, 4}.
        let mut m = SparseModel::new(ModelType::Dtmc);
        for targets in [&[1u32, 2][..], &[1], &[3], &[2], &[0, 4]] {
            m.push_row(None);
            for &t in targets {
                m.push_entry(t, 1.0 / targets.len() as f64);
            }
            m.end_state();
        }
        let b = bottom_sccs(&m).unwrap();
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![&[1u32][..], &[2, 3]]);
        assert_eq!(b.summary().choices_in_mecs, 3);
        let mdp = mdp(&[&[&[0], &[0]]]);
        assert_eq!(bottom_sccs(&mdp), Err(NotOneRowPerState { state: 0, rows: 2 }));
    }
}
