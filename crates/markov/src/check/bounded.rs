//! Step-bounded properties of DTMCs and MDPs, by a fixed number of sweeps (matrix-vector
//! products, the best row of each state for an MDP) on all cores: `X φ`, `φ U<=k ψ`,
//! `C<=k` (reward of the first k steps) and `I=k` (state reward at step k). The results
//! are exact up to floating-point rounding (lower = upper).

use rayon::prelude::*;

use super::{CheckError, Context, Opt, Values};
use crate::SparseModel;

/// The best of the rows of `s` of `reward[r] + Σ p x[t]`.
#[inline]
fn best(model: &SparseModel, s: u32, opt: Opt, reward: Option<&[f64]>, x: &[f64]) -> f64 {
    let mut result: Option<f64> = None;
    for r in model.rows(s) {
        let mut v = reward.map_or(0.0, |rw| rw[r as usize]);
        for (t, p) in model.row(r) {
            v += p * x[t as usize];
        }
        result = Some(match (result, opt) {
            (None, _) => v,
            (Some(b), Opt::Max) => b.max(v),
            (Some(b), Opt::Min) => b.min(v),
        });
    }
    result.unwrap_or(0.0)
}

/// `k` sweeps from `x`; `fixed(s)` pins a state's value.
fn sweeps(
    model: &SparseModel,
    opt: Opt,
    reward: Option<&[f64]>,
    mut x: Vec<f64>,
    k: u64,
    fixed: &(dyn Fn(usize) -> Option<f64> + Sync),
) -> Vec<f64> {
    let mut next = vec![0.0; x.len()];
    for _ in 0..k {
        next.par_iter_mut().with_min_len(1024).enumerate().for_each(|(s, n)| {
            *n = fixed(s).unwrap_or_else(|| best(model, s as u32, opt, reward, &x));
        });
        std::mem::swap(&mut x, &mut next);
    }
    x
}

/// `P [X phi]`.
pub fn next(cx: &Context, phi: &[bool], opt: Opt) -> Result<Values, CheckError> {
    let x: Vec<f64> = phi.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    Ok(Values::exact(sweeps(cx.model, opt, None, x, 1, &|_| None), "one step", 1))
}

/// `P [left U<=k right]`: at most `k` steps.
pub fn until(cx: &Context, left: &[bool], right: &[bool], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x: Vec<f64> = right.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    let fixed = |s: usize| {
        if right[s] {
            Some(1.0)
        } else if !left[s] {
            Some(0.0)
        } else {
            None
        }
    };
    Ok(Values::exact(sweeps(cx.model, opt, None, x, k, &fixed), "step-bounded iteration", k))
}

/// `R [C<=k]`: the expected reward of the first `k` steps (`rewards` per row).
pub fn cumulative(cx: &Context, rewards: &[f64], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x = vec![0.0; cx.model.states()];
    Ok(Values::exact(sweeps(cx.model, opt, Some(rewards), x, k, &|_| None), "step-bounded iteration", k))
}

/// `R [I=k]`: the expected state reward after `k` steps.
pub fn instant(cx: &Context, state_rewards: &[f64], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x = state_rewards.to_vec();
    Ok(Values::exact(sweeps(cx.model, opt, None, x, k, &|_| None), "step-bounded iteration", k))
}
