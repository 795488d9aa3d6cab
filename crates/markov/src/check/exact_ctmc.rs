//! Exact answers (`--exact`) on CTMCs, and the long-run averages of DTMCs (a DTMC's
//! are those of the CTMC whose rates are its probabilities: exit rates 1). Rates are
//! read as fractions (as probabilities are, [`fraction`]); a state's exit rate is
//! their exact sum.
//!
//! - `P [X φ]`, unbounded `P [φ U ψ]` and `P [F ψ]`, `R [F φ]` and `T [F φ]` on the
//!   embedded DTMC (rate over exit rate), a reward rate earning `r(s) / E(s)` per visit
//!   of `s`, as the floating-point checker does.
//! - Steady state `S [φ]` and `R [S]`: the stationary distribution of each bottom SCC
//!   solved exactly (`π Q = 0` with one state's value fixed, then normalised), and for
//!   the other states the exact probabilities of ending in each bottom SCC.
//!
//! Time bounds need `e^{-qt}`, which is not rational: they are refused.

use num_rational::BigRational;
use num_traits::{One, Zero};
use rustc_hash::FxHashMap;

use super::exact::{fraction, reward_reach, solve, solve_unknowns, until, Exact};
use super::property::{Bound, PathFormula, RewardPath};
use super::{ctmc, CheckError, Context, Opt, Options, Property, Query};
use crate::mec::bottom_sccs;
use crate::SparseModel;

/// The rates, exit rates and embedded probabilities of a CTMC, exactly.
struct Rates {
    rates: Vec<BigRational>,
    exit: Vec<BigRational>,
    probs: Vec<BigRational>,
}

impl Rates {
    fn new(model: &SparseModel) -> Result<Rates, CheckError> {
        let rates: Vec<BigRational> = model.values.iter().map(|&v| fraction(v)).collect();
        let mut exit = Vec::with_capacity(model.states());
        let mut probs = vec![BigRational::zero(); rates.len()];
        for s in 0..model.states() as u32 {
            let range = entry_range(model, s);
            let e: BigRational = rates[range.clone()].iter().sum();
            if e <= BigRational::zero() {
                return Err(CheckError::Unsupported(format!("--exact: state {s} has no positive exit rate")));
            }
            for i in range {
                probs[i] = &rates[i] / &e;
            }
            exit.push(e);
        }
        Ok(Rates { rates, exit, probs })
    }

    /// The reward rate of every state under structure `name`: the state reward, plus
    /// rate × transition reward over the entries, plus exit rate × action reward (earned
    /// per jump).
    fn reward_rates(&self, model: &SparseModel, name: Option<&str>) -> Result<Vec<BigRational>, CheckError> {
        let rm = match name {
            Some(n) => model.rewards.iter().find(|r| r.name == n),
            None => model.rewards.first(),
        }
        .ok_or_else(|| CheckError::Unsupported(format!("no reward structure {}", name.unwrap_or("(unnamed)"))))?;
        Ok((0..model.states())
            .map(|s| {
                let mut r = rm.state.as_ref().map_or_else(BigRational::zero, |v| fraction(v[s]));
                if let Some(t) = &rm.transition {
                    for i in entry_range(model, s as u32) {
                        r += &self.rates[i] * fraction(t[i]);
                    }
                }
                if let Some(c) = &rm.choice {
                    r += &self.exit[s] * fraction(c[model.rows(s as u32).start as usize]);
                }
                r
            })
            .collect())
    }
}

/// The entries of state `s`'s one row.
fn entry_range(model: &SparseModel, s: u32) -> std::ops::Range<usize> {
    let rows = model.rows(s);
    model.row_starts[rows.start as usize] as usize..model.row_starts[rows.end as usize] as usize
}

/// `property` on the CTMC `model`, exactly.
pub(crate) fn check_ctmc(model: &SparseModel, property: &Property, options: &Options) -> Result<Exact, CheckError> {
    let unsupported = || {
        CheckError::Unsupported(
            "--exact on a CTMC answers P=? of X, F and U without time bounds, R=? of F and S, T=? of F and S=? \
             (time bounds need e^-qt, which is not a fraction)"
                .into(),
        )
    };
    let cx = Context::new(model, options);
    let r = Rates::new(model)?;
    let emb = ctmc::embedded(model, &ctmc::exit_rates(model));
    let ecx = cx.derived(&emb);
    let per_visit =
        |rates: Vec<BigRational>| -> Vec<BigRational> { rates.iter().zip(&r.exit).map(|(x, e)| x / e).collect() };
    match &property.query {
        Query::Prob { path: PathFormula::Next(phi), .. } => {
            let phi = cx.states(phi)?;
            let values = (0..model.states() as u32)
                .map(|s| entry_range(model, s).filter(|&i| phi[model.columns[i] as usize]).map(|i| &r.probs[i]).sum())
                .collect();
            Ok(Exact::new(values, "one step, exact", 1))
        }
        Query::Prob { path: PathFormula::Until { left, right, bound: Bound::None }, .. } => {
            until(&ecx, &r.probs, &cx.states(left)?, &cx.states(right)?, Opt::Max)
        }
        Query::Reward { reward, path: RewardPath::Reach(goal), .. } => {
            let rewards = per_visit(r.reward_rates(model, reward.as_deref())?);
            reward_reach(&ecx, &r.probs, &rewards, &cx.states(goal)?)
        }
        Query::Time { goal, .. } => {
            let ones = vec![BigRational::one(); model.states()];
            reward_reach(&ecx, &r.probs, &per_visit(ones), &cx.states(goal)?)
        }
        Query::Reward { reward, path: RewardPath::Steady, .. } => {
            let rates = r.reward_rates(model, reward.as_deref())?;
            steady(&ecx, &r, &rates)
        }
        Query::Steady(phi) => {
            let f: Vec<BigRational> =
                cx.states(phi)?.iter().map(|&b| if b { BigRational::one() } else { BigRational::zero() }).collect();
            steady(&ecx, &r, &f)
        }
        _ => Err(unsupported()),
    }
}

/// The long-run average of `f` (a value or reward rate per state), exactly.
fn steady(ecx: &Context, r: &Rates, f: &[BigRational]) -> Result<Exact, CheckError> {
    let model = ecx.model;
    let bsccs = bottom_sccs(model).map_err(|e| CheckError::Unsupported(e.to_string()))?;
    let n = model.states();
    let mut known: Vec<Option<BigRational>> = vec![None; n];
    for states in bsccs.iter() {
        let pi = stationary(model, r, states);
        let v: BigRational = states.iter().zip(&pi).map(|(&s, p)| p * &f[s as usize]).sum();
        for &s in states {
            known[s as usize] = Some(v.clone());
        }
    }
    // Every other state: the BSCC values weighted by the probabilities of ending in
    // each, `x = P x` over them with the BSCC states' values fixed.
    let unknowns: Vec<u32> = (0..n as u32).filter(|&s| known[s as usize].is_none()).collect();
    let mut values: Vec<BigRational> = known.into_iter().map(|v| v.unwrap_or_else(BigRational::zero)).collect();
    solve_unknowns(model, &r.probs, &unknowns, |s| model.rows(s).start, |_| BigRational::zero(), &mut values);
    Ok(Exact::new(values, "steady state (bottom SCCs), exact", 1))
}

/// The stationary distribution of a bottom SCC (`states` ascending): `π(j) E'(j) =
/// Σ_{i≠j} π(i) R(i, j)` (E' the exit rate without the self-loop) with `π` of the first
/// state fixed to 1, solved for the others, then normalised.
fn stationary(model: &SparseModel, r: &Rates, states: &[u32]) -> Vec<BigRational> {
    let n = states.len();
    if n == 1 {
        return vec![BigRational::one()];
    }
    let local = |s: u32| states.binary_search(&s).ok();
    // Incoming rates per state, and exit rates without self-loops.
    let mut incoming: Vec<Vec<(usize, BigRational)>> = vec![Vec::new(); n];
    let mut out: Vec<BigRational> = Vec::with_capacity(n);
    for (i, &s) in states.iter().enumerate() {
        let mut e = r.exit[s as usize].clone();
        for k in entry_range(model, s) {
            let t = model.columns[k];
            if t == s {
                e -= &r.rates[k];
            } else if let Some(j) = local(t) {
                incoming[j].push((i, r.rates[k].clone()));
            }
        }
        out.push(e);
    }
    // Unknowns: states 1..n (local index j - 1); state 0's π is 1.
    let mut rows = Vec::with_capacity(n - 1);
    let mut b = Vec::with_capacity(n - 1);
    for j in 1..n {
        let mut row: FxHashMap<u32, BigRational> = FxHashMap::default();
        let mut constant = BigRational::zero();
        for (i, rate) in &incoming[j] {
            let c = rate / &out[j];
            if *i == 0 {
                constant += c;
            } else {
                *row.entry(*i as u32 - 1).or_insert_with(BigRational::zero) += c;
            }
        }
        rows.push(row);
        b.push(constant);
    }
    let mut pi = vec![BigRational::one()];
    pi.extend(solve(rows, b));
    let total: BigRational = pi.iter().sum();
    pi.iter().map(|p| p / &total).collect()
}
