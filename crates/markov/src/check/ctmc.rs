//! CSL on CTMCs (the matrix holds rates; a state's exit rate is its row sum, self-loops
//! included).
//!
//! - Unbounded `U`, `F` rewards and `T` on the embedded DTMC (rate / exit rate); a
//!   state reward (a rate) earns `r(s) / E(s)` per visit of `s`.
//! - Time-bounded `U<=t`, `U[t1,t2]`, `C<=t`, `I=t` by uniformisation: the DTMC
//!   `P = I + Q/q` with `q` the largest exit rate, weighted by Poisson(`q t`)
//!   probabilities computed around the mode and truncated where the geometric bound of
//!   the tails falls below 1e-12 ([`poisson`], Fox and Glynn's idea without their
//!   under/overflow scaling, which weights relative to the mode do not need).
//! - Steady state `S [φ]`, `R [S]`: sound bounds on each bottom SCC's long-run
//!   average, then the expectation over the SCCs a state ends in (`steady.rs`).
//!
//! Reward rates: state reward + Σ rate × transition reward + exit rate × choice reward
//! (Storm's DRN gives action rewards of CTMCs per jump).

use super::property::{Bound, PathFormula, Query, RewardPath};
use super::reach;
use super::solve::System;
use super::{bounded, reward, steady, CheckError, Context, Opt, SweepTime, Values};
use crate::{ModelType, SparseModel};

/// Truncation error of the Poisson weights.
const TRUNCATION: f64 = 1e-12;

/// Exit rate of each state.
pub(crate) fn exit_rates(model: &SparseModel) -> Vec<f64> {
    (0..model.states() as u32).map(|s| model.rows(s).flat_map(|r| model.row(r)).map(|(_, v)| v).sum()).collect()
}

/// The embedded DTMC (same states, labels and initial states).
pub(crate) fn embedded(model: &SparseModel, exit: &[f64]) -> SparseModel {
    let mut m = model.clone();
    m.model_type = ModelType::Dtmc;
    for s in 0..model.states() as u32 {
        for r in model.rows(s) {
            for e in model.entries(r) {
                m.values[e] = model.values[e] / exit[s as usize];
            }
        }
    }
    m.rewards.clear();
    m
}

/// The reward rate of every state under structure `name`.
fn reward_rates(model: &SparseModel, name: Option<&str>, exit: &[f64]) -> Result<Vec<f64>, CheckError> {
    // Row rewards count transition rewards weighted by the row's values (rates here).
    let rows = reward::row_rewards(model, name)?;
    let rm = match name {
        Some(n) => model.rewards.iter().find(|r| r.name == n),
        None => model.rewards.first(),
    };
    let choice = rm.and_then(|r| r.choice.as_ref());
    Ok((0..model.states())
        .map(|s| {
            let c = choice.map_or(0.0, |c| c[s]);
            // `rows` added the choice reward once; it is earned per jump.
            rows[s] - c + exit[s] * c
        })
        .collect())
}

/// Poisson(`lambda`) probabilities `left..left + weights.len()` (normalised over the
/// kept ones), and a bound on the mass left out.
pub fn poisson(lambda: f64, epsilon: f64) -> (usize, Vec<f64>, f64) {
    if lambda <= 0.0 {
        return (0, vec![1.0], 0.0);
    }
    let mode = lambda.floor() as usize;
    let mut right = vec![1.0f64];
    let mut total = 1.0;
    // Right side: w[k+1] = w[k] λ / (k+1); the tail after k is below w[k] r / (1 - r)
    // for r = λ / (k + 2) < 1.
    let mut tail_right;
    let mut k = mode;
    loop {
        let w = right.last().copied().unwrap_or(0.0) * lambda / (k + 1) as f64;
        k += 1;
        right.push(w);
        total += w;
        let r = lambda / (k + 1) as f64;
        if r < 1.0 {
            tail_right = w * r / (1.0 - r);
            if tail_right <= epsilon / 2.0 * total {
                break;
            }
        }
    }
    let mut left = Vec::new();
    let mut tail_left = 0.0;
    let mut w = 1.0;
    let mut k = mode;
    while k > 0 {
        w *= k as f64 / lambda;
        k -= 1;
        left.push(w);
        total += w;
        let r = k as f64 / lambda;
        tail_left = if k == 0 { 0.0 } else { w * r / (1.0 - r) };
        if tail_left <= epsilon / 2.0 * total {
            break;
        }
    }
    tail_right /= total;
    tail_left /= total;
    let start = k;
    left.reverse();
    let weights: Vec<f64> = left.into_iter().chain(right).map(|w| w / total).collect();
    (start, weights, tail_left + tail_right)
}

/// The uniformised chain `P = I + Q/q`, absorbing states kept, as a system of one row
/// per state (its value after one more step).
struct Uniformised {
    sys: System,
    q: f64,
}

impl Uniformised {
    fn new(model: &SparseModel, exit: &[f64], absorbing: &[bool]) -> Uniformised {
        let q = (0..model.states()).filter(|&s| !absorbing[s]).map(|s| exit[s]).fold(0.0, f64::max);
        let mut sys = System::new();
        for s in 0..model.states() {
            if absorbing[s] || q == 0.0 {
                sys.push_row(0.0, [(s as u32, 1.0)]);
            } else {
                let stay = (s as u32, 1.0 - exit[s] / q);
                let jumps = model.rows(s as u32).flat_map(|r| model.row(r)).map(|(t, rate)| (t, rate / q));
                sys.push_row(0.0, std::iter::once(stay).chain(jumps));
            }
            sys.end_group();
        }
        Uniformised { sys, q }
    }

    /// `Σ_k w_k P^k x` over the Poisson(`q t`) weights (`cumulative`: the weights
    /// `(1 - Σ_{j<=k} p_j) / q` of the integral over `[0, t]`), on the options'
    /// engine, and the sweeps taken and the mass of the weights left out.
    fn transient(
        &self,
        cx: &Context,
        x: Vec<f64>,
        t: f64,
        cumulative: bool,
    ) -> Result<(Vec<f64>, u64, f64), CheckError> {
        if self.q == 0.0 || t == 0.0 {
            return Ok((if cumulative { x.iter().map(|v| v * t).collect() } else { x }, 0, 0.0));
        }
        let (left, weights, lost) = poisson(self.q * t, TRUNCATION);
        let right = left + weights.len() - 1;
        let mut below = 0.0; // Σ_{j<=k} p_j
        let w: Vec<f64> = (0..=right)
            .map(|k| {
                let p = if k >= left { weights[k - left] } else { 0.0 };
                below += p;
                if cumulative {
                    (1.0 - below).max(0.0) / self.q
                } else {
                    p
                }
            })
            .collect();
        let mut open = cx.open(&self.sys)?;
        let v = open.vector(&x)?;
        let sum = open.weighted(v, &w)?;
        Ok((open.values(sum)?, right as u64, lost))
    }
}

/// Checks a CSL query on a CTMC.
pub fn check(cx: &Context, query: &Query) -> Result<Values, CheckError> {
    let model = cx.model;
    let exit = exit_rates(model);
    let emb = embedded(model, &exit);
    let ecx = cx.derived(&emb);
    match query {
        Query::Prob { path: PathFormula::Next(phi), .. } => bounded::next(&ecx, &cx.states(phi)?, Opt::Max),
        Query::Prob { path: PathFormula::Until { left, right, bound }, .. } => {
            let (left, right) = (cx.states(left)?, cx.states(right)?);
            match bound {
                Bound::None => reach::until(&ecx, &left, &right, Opt::Max),
                Bound::Upper { t, .. } => bounded_until(cx, &exit, &left, &right, 0.0, cx.number(t)?),
                Bound::Interval(t1, t2) => {
                    let (t1, t2) = (cx.number(t1)?, cx.number(t2)?);
                    if t1 > t2 {
                        return Err(CheckError::Unsupported(format!("the interval [{t1},{t2}] is empty")));
                    }
                    bounded_until(cx, &exit, &left, &right, t1, t2)
                }
            }
        }
        Query::Reward { reward, path, .. } => match path {
            RewardPath::Reach(goal) => {
                let rates = reward_rates(model, reward.as_deref(), &exit)?;
                let per_visit: Vec<f64> = rates.iter().zip(&exit).map(|(r, e)| r / e).collect();
                reward::reach(&ecx, &per_visit, &cx.states(goal)?, Opt::Max)
            }
            RewardPath::Cumulative(t) => {
                let rates = reward_rates(model, reward.as_deref(), &exit)?;
                let none = vec![false; model.states()];
                let u = Uniformised::new(model, &exit, &none);
                let t = cx.number(t)?;
                let max = rates.iter().fold(0.0f64, |a, &b| a.max(b));
                let (v, k, lost) = u.transient(cx, rates, t, true)?;
                let upper = v.iter().map(|x| x + lost * max * (t + 1.0)).collect();
                Ok(Values { lower: v, upper, method: "uniformisation", iterations: k, sweep: SweepTime::default() })
            }
            RewardPath::Instant(t) => {
                let rates = reward::state_rewards(model, reward.as_deref())?;
                let none = vec![false; model.states()];
                let u = Uniformised::new(model, &exit, &none);
                let (v, k, _) = u.transient(cx, rates, cx.number(t)?, false)?;
                Ok(Values::exact(v, "uniformisation", k))
            }
            RewardPath::Steady => {
                let rates = reward_rates(model, reward.as_deref(), &exit)?;
                steady::steady(cx, &ecx, &exit, &rates)
            }
        },
        Query::Time { goal, .. } => {
            let per_visit: Vec<f64> = exit.iter().map(|e| 1.0 / e).collect();
            reward::reach(&ecx, &per_visit, &cx.states(goal)?, Opt::Max)
        }
        Query::Steady(phi) => {
            let f: Vec<f64> = cx.states(phi)?.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
            steady::steady(cx, &ecx, &exit, &f)
        }
    }
}

/// `P [left U[t1,t2] right]` (`t1 = 0` for `U<=t2`).
fn bounded_until(
    cx: &Context,
    exit: &[f64],
    left: &[bool],
    right: &[bool],
    t1: f64,
    t2: f64,
) -> Result<Values, CheckError> {
    let model = cx.model;
    let n = model.states();
    let x: Vec<f64> = right.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    let stop: Vec<bool> = (0..n).map(|s| right[s] || !left[s]).collect();
    let (mut v, mut k, mut lost) = Uniformised::new(model, exit, &stop).transient(cx, x, t2 - t1, false)?;
    if t1 > 0.0 {
        // Before t1 the path must stay in `left`; at t1 it continues with `v`.
        let y: Vec<f64> = (0..n).map(|s| if left[s] { v[s] } else { 0.0 }).collect();
        let outside: Vec<bool> = left.iter().map(|&l| !l).collect();
        let (w, k2, lost2) = Uniformised::new(model, exit, &outside).transient(cx, y, t1, false)?;
        v = w;
        k += k2;
        lost += lost2;
    }
    let lower: Vec<f64> = v.iter().map(|&x| (x * (1.0 - lost)).clamp(0.0, 1.0)).collect();
    let upper: Vec<f64> = v.iter().map(|&x| (x + lost).min(1.0)).collect();
    Ok(Values { lower, upper, method: "uniformisation", iterations: k, sweep: SweepTime::default() })
}
