//! Expected reachability rewards `R [F φ]` (and `T [F φ]`, one per step) of DTMCs and
//! MDPs, and the reward of each row of a reward structure.
//!
//! A row earns its state's reward, its own (choice) reward and the expected transition
//! reward of its entries, each time it is taken. The value is infinite where φ is not
//! reached with probability 1: on a DTMC outside prob1; for `Rmax` where some scheduler
//! misses φ with positive probability (outside prob1A); for `Rmin` where every scheduler
//! does (outside prob1E), and `Rmin` never takes a row that may lead there. For `Rmin`,
//! end components of zero reward are collapsed first (staying in one forever is not a
//! way to earn 0). The rest is solved by optimistic value iteration from 0.

use super::reach::{solve, Reduction};
use super::{CheckError, Context, Opt, SweepTime, Values};
use crate::precompute;
use crate::{ModelType, RewardModel, SparseModel};

/// The reward structure `name` (the first one when `None`).
fn structure<'a>(model: &'a SparseModel, name: Option<&str>) -> Result<&'a RewardModel, CheckError> {
    match name {
        Some(n) => model.rewards.iter().find(|r| r.name == n).ok_or_else(|| {
            let known: Vec<String> = model.rewards.iter().map(|r| format!("\"{}\"", r.name)).collect();
            CheckError::UnknownReward(format!(
                "\"{n}\" (it has: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ))
        }),
        None => model.rewards.first().ok_or_else(|| CheckError::UnknownReward("(it has none)".into())),
    }
}

/// The reward of each row: state reward + choice reward + expected transition reward.
pub fn row_rewards(model: &SparseModel, name: Option<&str>) -> Result<Vec<f64>, CheckError> {
    let rm = structure(model, name)?;
    let mut rewards = vec![0.0; model.choices() as usize];
    for s in 0..model.states() as u32 {
        for r in model.rows(s) {
            let mut v = rm.state.as_ref().map_or(0.0, |x| x[s as usize]);
            v += rm.choice.as_ref().map_or(0.0, |x| x[r as usize]);
            if let Some(t) = &rm.transition {
                v += model.entries(r).map(|e| model.values[e] * t[e]).sum::<f64>();
            }
            rewards[r as usize] = v;
        }
    }
    Ok(rewards)
}

/// The state rewards of a structure (zero without any).
pub fn state_rewards(model: &SparseModel, name: Option<&str>) -> Result<Vec<f64>, CheckError> {
    let rm = structure(model, name)?;
    Ok(rm.state.clone().unwrap_or_else(|| vec![0.0; model.states()]))
}

/// `R [F goal]` with `rewards` per row (non-negative).
pub fn reach(cx: &Context, rewards: &[f64], goal: &[bool], opt: Opt) -> Result<Values, CheckError> {
    let model = cx.model;
    if let Some(bad) = rewards.iter().find(|r| !(**r >= 0.0 && r.is_finite())) {
        return Err(CheckError::Unsupported(format!(
            "rewards must be finite and non-negative for R [F ...] (found {bad})"
        )));
    }
    let pred = cx.pred();
    let all = vec![true; model.states()];
    let finite = match (model.model_type, opt) {
        (ModelType::Mdp, Opt::Max) => precompute::prob1a(model, pred, &all, goal),
        (ModelType::Mdp, Opt::Min) => precompute::prob1e(model, pred, &all, goal),
        _ => precompute::prob1(model, pred, &all, goal),
    };
    let maybe: Vec<bool> = (0..model.states()).map(|s| finite[s] && !goal[s]).collect();
    let known: Vec<f64> = finite.iter().map(|&f| if f { 0.0 } else { f64::INFINITY }).collect();
    if !maybe.contains(&true) {
        return Ok(Values::exact(known, "graph precomputation", 0));
    }
    let min = model.model_type == ModelType::Mdp && opt == Opt::Min;
    // Rows that surely stay among the finite states (for Rmin: the only rows it takes).
    let keep = |r: u64| !min || model.row(r).all(|(t, _)| finite[t as usize]);
    let zero_reward = |r: u64| rewards[r as usize] == 0.0 && keep(r);
    let collapse: Option<&dyn Fn(u64) -> bool> = if min { Some(&zero_reward) } else { None };
    let reduction = Reduction::new(model, &maybe, collapse);
    let sys = reduction.system(model, &known, Some(rewards), &keep, f64::INFINITY);
    let (solution, method) = solve(cx, &sys, opt, 0.0, None)?;
    let (lower, upper) = reduction.expand(&known, &solution);
    Ok(Values { lower, upper, method, iterations: solution.iterations, sweep: SweepTime::default() })
}
