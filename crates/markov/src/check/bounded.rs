//! Step-bounded properties of DTMCs and MDPs, by a fixed number of sweeps (matrix-vector
//! products, the best row of each state for an MDP) on the options' engine: `X φ`, `φ U<=k ψ`,
//! `C<=k` (reward of the first k steps) and `I=k` (state reward at step k). The results
//! are exact up to floating-point rounding (lower = upper).

use super::solve::System;
use super::{CheckError, Context, Opt, Values};
use crate::SparseModel;

/// The system of every state: per row `reward[r] + Σ p x[t]`; a state `pinned` gives
/// a value keeps it (one row of that constant).
fn whole(model: &SparseModel, reward: Option<&[f64]>, pinned: &dyn Fn(usize) -> Option<f64>) -> System {
    let mut sys = System::new();
    for s in 0..model.states() {
        match pinned(s) {
            Some(v) => sys.push_row(v, []),
            None => {
                for r in model.rows(s as u32) {
                    sys.push_row(reward.map_or(0.0, |rw| rw[r as usize]), model.row(r));
                }
            }
        }
        sys.end_group();
    }
    sys
}

/// `k` sweeps from `x` on the options' engine; `pinned(s)` fixes a state's value.
fn sweeps(
    cx: &Context,
    opt: Opt,
    reward: Option<&[f64]>,
    x: Vec<f64>,
    k: u64,
    pinned: &dyn Fn(usize) -> Option<f64>,
) -> Result<Vec<f64>, CheckError> {
    let sys = whole(cx.model, reward, pinned);
    let mut open = cx.open(&sys)?;
    let v = open.vector(&x)?;
    open.sweeps(opt, v, k)?;
    open.values(v)
}

/// `P [X phi]`.
pub fn next(cx: &Context, phi: &[bool], opt: Opt) -> Result<Values, CheckError> {
    let x: Vec<f64> = phi.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    Ok(Values::exact(sweeps(cx, opt, None, x, 1, &|_| None)?, "one step", 1))
}

/// `P [left U<=k right]`: at most `k` steps.
pub fn until(cx: &Context, left: &[bool], right: &[bool], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x: Vec<f64> = right.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
    let pinned = |s: usize| {
        if right[s] {
            Some(1.0)
        } else if !left[s] {
            Some(0.0)
        } else {
            None
        }
    };
    Ok(Values::exact(sweeps(cx, opt, None, x, k, &pinned)?, "step-bounded iteration", k))
}

/// `R [C<=k]`: the expected reward of the first `k` steps (`rewards` per row).
pub fn cumulative(cx: &Context, rewards: &[f64], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x = vec![0.0; cx.model.states()];
    Ok(Values::exact(sweeps(cx, opt, Some(rewards), x, k, &|_| None)?, "step-bounded iteration", k))
}

/// `R [I=k]`: the expected state reward after `k` steps.
pub fn instant(cx: &Context, state_rewards: &[f64], k: u64, opt: Opt) -> Result<Values, CheckError> {
    let x = state_rewards.to_vec();
    Ok(Values::exact(sweeps(cx, opt, None, x, k, &|_| None)?, "step-bounded iteration", k))
}
