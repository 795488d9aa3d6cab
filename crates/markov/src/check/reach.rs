//! Unbounded until `P [φ U ψ]` (and `F ψ`) on DTMCs and MDPs, and the reduction of a
//! model to the [`System`] of its unknown states that the reward checks share.
//!
//! 1. Graph precomputation: the states where the value is 0 or 1 (prob0/prob1 on a
//!    DTMC, prob0A/prob1E for `Pmax`, prob0E/prob1A for `Pmin`).
//! 2. The other ("maybe") states are the unknowns. For `Pmax` the maximal end
//!    components among them are collapsed into one unknown each, whose rows are the
//!    rows of its states that leave it: otherwise staying in an end component would be
//!    a fixpoint above the value and the upper sequence would not converge. (For
//!    `Pmin` and DTMCs no end component remains once the 0-states are known.)
//! 3. Interval iteration from 0 and 1 (or the chosen unsound method).

use super::engine;
use super::solve::{self, Settings, Solution, System};
use super::{CheckError, Context, Method, Opt, SweepTime, Values};
use crate::mec::maximal_end_components;
use crate::precompute;
use crate::{ModelType, SparseModel};

/// The unknowns of a reduced model: per state its unknown (`u32::MAX` for states of
/// known value), and per unknown its states.
pub(crate) struct Reduction {
    pub class: Vec<u32>,
    /// Unknown `k` is `members[member_starts[k]..member_starts[k + 1]]`.
    member_starts: Vec<usize>,
    members: Vec<u32>,
    /// Per row: it stays inside a collapsed end component (dropped from the system).
    inside: Vec<bool>,
}

impl Reduction {
    /// One unknown per `maybe` state; with `collapse`, one per maximal end component of
    /// the `maybe` states formed from the rows `collapse` accepts whose targets are all
    /// `maybe` states.
    pub(crate) fn new(model: &SparseModel, maybe: &[bool], collapse: Option<&dyn Fn(u64) -> bool>) -> Reduction {
        let n = model.states();
        let mut class = vec![u32::MAX; n];
        let mut inside = vec![false; model.choices() as usize];
        let mut count = 0u32;
        match collapse {
            None => {
                for s in 0..n {
                    if maybe[s] {
                        class[s] = count;
                        count += 1;
                    }
                }
            }
            Some(accept) => {
                // The sub-MDP of the maybe states; rows that leave it (or that `accept`
                // refuses) go to one extra absorbing state.
                let mut index = vec![u32::MAX; n];
                let mut sub_states = Vec::new();
                for s in 0..n {
                    if maybe[s] {
                        index[s] = sub_states.len() as u32;
                        sub_states.push(s as u32);
                    }
                }
                let out = sub_states.len() as u32;
                let mut sub = SparseModel::new(ModelType::Mdp);
                let mut rows = Vec::new();
                for &s in &sub_states {
                    for r in model.rows(s) {
                        sub.push_row(None);
                        rows.push(r);
                        if accept(r) && model.row(r).all(|(t, _)| maybe[t as usize]) {
                            for (t, p) in model.row(r) {
                                sub.push_entry(index[t as usize], p);
                            }
                        } else {
                            sub.push_entry(out, 1.0);
                        }
                    }
                    sub.end_state();
                }
                sub.push_row(None);
                sub.push_entry(out, 1.0);
                sub.end_state();
                let mecs = maximal_end_components(&sub);
                let mut mec_class = vec![u32::MAX; mecs.count()];
                for (i, &s) in sub_states.iter().enumerate() {
                    class[s as usize] = match mecs.of(i as u32) {
                        Some(k) => {
                            if mec_class[k] == u32::MAX {
                                mec_class[k] = count;
                                count += 1;
                            }
                            mec_class[k]
                        }
                        None => {
                            count += 1;
                            count - 1
                        }
                    };
                }
                for (sub_row, &r) in rows.iter().enumerate() {
                    inside[r as usize] = mecs.stays_inside(sub_row as u64);
                }
            }
        }
        let mut member_starts = vec![0usize; count as usize + 1];
        for &c in &class {
            if c != u32::MAX {
                member_starts[c as usize + 1] += 1;
            }
        }
        for k in 0..count as usize {
            member_starts[k + 1] += member_starts[k];
        }
        let mut fill = member_starts.clone();
        let mut members = vec![0u32; member_starts[count as usize]];
        for (s, &c) in class.iter().enumerate() {
            if c != u32::MAX {
                members[fill[c as usize]] = s as u32;
                fill[c as usize] += 1;
            }
        }
        Reduction { class, member_starts, members, inside }
    }

    /// Number of unknowns.
    pub(crate) fn len(&self) -> usize {
        self.member_starts.len() - 1
    }

    /// The system: per unknown, the rows of its states (not those inside a collapsed end
    /// component, nor those `keep` refuses), with the constant `reward[r]` plus the
    /// known values `known` of the targets outside the unknowns. An unknown left without
    /// rows gets the value `empty`.
    pub(crate) fn system(
        &self,
        model: &SparseModel,
        known: &[f64],
        reward: Option<&[f64]>,
        keep: &dyn Fn(u64) -> bool,
        empty: f64,
    ) -> System {
        let mut sys = System::new();
        for k in 0..self.len() {
            let before = sys.b.len();
            for &s in &self.members[self.member_starts[k]..self.member_starts[k + 1]] {
                for r in model.rows(s) {
                    if self.inside[r as usize] || !keep(r) {
                        continue;
                    }
                    let mut b = reward.map_or(0.0, |rw| rw[r as usize]);
                    let mut entries = Vec::new();
                    for (t, p) in model.row(r) {
                        match self.class[t as usize] {
                            u32::MAX => b += p * known[t as usize],
                            c => entries.push((c, p)),
                        }
                    }
                    sys.push_row(b, entries);
                }
            }
            if sys.b.len() == before {
                sys.push_row(empty, []);
            }
            sys.end_group();
        }
        sys
    }

    /// Every state's bounds: `known` outside the unknowns, the solution's inside.
    pub(crate) fn expand(&self, known: &[f64], solution: &Solution) -> (Vec<f64>, Vec<f64>) {
        let pick = |v: &[f64]| -> Vec<f64> {
            self.class.iter().zip(known).map(|(&c, &k)| if c == u32::MAX { k } else { v[c as usize] }).collect()
        };
        (pick(&solution.lower), pick(&solution.upper))
    }
}

/// The solver settings of the options.
pub(crate) fn settings(cx: &Context) -> Settings {
    Settings {
        precision: cx.options.precision,
        relative: cx.options.relative,
        max_iterations: cx.options.max_iterations,
    }
}

/// Solves `sys` from `lower` (below the value) and, for interval iteration, `upper`
/// (above it; `None`: optimistic value iteration), by the method of the options.
pub(crate) fn solve(
    cx: &Context,
    sys: &System,
    opt: Opt,
    lower: f64,
    upper: Option<f64>,
) -> Result<(Solution, &'static str), CheckError> {
    if cx.options.method == Method::PolicyIteration {
        return super::policy::iterate(cx, sys, opt, lower, upper);
    }
    let set = settings(cx);
    let n = sys.len();
    if cx.options.method == Method::Sound {
        // Small systems of one row per unknown: solved directly, then verified.
        if let Some(x) = solve::dense(sys) {
            let ceiling = upper.unwrap_or(f64::INFINITY);
            if let Some(s) = solve::verify(sys, opt, &x, lower, ceiling, &set) {
                return Ok((s, "gaussian elimination, verified"));
            }
            if let Some(s) = solve::residual_bound(sys, &x, lower, ceiling, &set) {
                return Ok((s, "gaussian elimination, residual bound"));
            }
        }
    }
    if cx.options.method == Method::GaussSeidel {
        return Ok((solve::gauss_seidel(sys, opt, vec![lower; n], &set)?, "gauss-seidel"));
    }
    let mut sweeps = cx.open(sys)?;
    let s = &mut *sweeps;
    let from = vec![lower; n];
    Ok(match (cx.options.method, upper) {
        (Method::Sound, Some(u)) => (engine::interval(s, opt, &from, &vec![u; n], &set)?, "interval iteration"),
        (Method::Sound, None) => (engine::optimistic(s, opt, &from, &set)?, "optimistic value iteration"),
        (_, _) => (engine::value_iteration(s, opt, &from, &set)?, "value iteration"),
    })
}

/// `P [left U right]` for every state (`opt` ignored on DTMCs).
/// The states where `P [left U right]` is 0 and where it is 1 (for the extremum `opt`
/// of an MDP), by graph precomputation.
pub(crate) fn zero_one(cx: &Context, left: &[bool], right: &[bool], opt: Opt) -> (Vec<bool>, Vec<bool>) {
    let (model, pred) = (cx.model, cx.pred());
    match (model.model_type == ModelType::Mdp, opt) {
        (false, _) => precompute::prob01(model, pred, left, right),
        (true, Opt::Max) => precompute::prob01_max(model, pred, left, right),
        (true, Opt::Min) => precompute::prob01_min(model, pred, left, right),
    }
}

pub fn until(cx: &Context, left: &[bool], right: &[bool], opt: Opt) -> Result<Values, CheckError> {
    let model = cx.model;
    let mdp = model.model_type == ModelType::Mdp;
    let (zero, one) = zero_one(cx, left, right, opt);
    let maybe: Vec<bool> = zero.iter().zip(&one).map(|(&z, &o)| !z && !o).collect();
    let known: Vec<f64> = one.iter().map(|&o| if o { 1.0 } else { 0.0 }).collect();
    if !maybe.contains(&true) {
        return Ok(Values::exact(known, "graph precomputation", 0));
    }
    let all = |_: u64| true;
    let collapse: Option<&dyn Fn(u64) -> bool> = if mdp && opt == Opt::Max { Some(&all) } else { None };
    let reduction = Reduction::new(model, &maybe, collapse);
    let sys = reduction.system(model, &known, None, &all, 0.0);
    let (solution, method) = solve(cx, &sys, opt, 0.0, Some(1.0))?;
    let (lower, upper) = reduction.expand(&known, &solution);
    Ok(Values { lower, upper, method, iterations: solution.iterations, sweep: SweepTime::default() })
}
