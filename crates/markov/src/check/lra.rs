//! Long-run average rewards of MDPs (`Rmax=? [S]`, `Rmin=? [S]`), sound.
//!
//! Under any scheduler an MDP ends in an end component, so the optimal long-run average
//! is the best expected gain of the maximal end component (MEC) the process ends in,
//! each MEC worth its own optimal gain (Puterman, ch. 9; de Alfaro's reduction, as in
//! Storm). Two steps:
//!
//! 1. **The gain of each MEC**, on its inside choices: relative value iteration on the
//!    aperiodic transform (`P' = ½P + ½I`, the same gains), `v ← T v - (T v)[0]`. For any
//!    `v`, `min (T v - v) ≤ g ≤ max (T v - v)` (Odoni's bounds, valid in a communicating
//!    MDP for the maximum and the minimum alike), so the iteration stops with sound
//!    bounds once they are within twice the precision.
//! 2. **The best final MEC**: a copy of the model where every MEC state gets one more
//!    choice, a lottery that ends in `win` with probability `g / G` (`G` the largest
//!    gain) and else in `lose`; then the value is `G · Pmax [F win]` (interval iteration
//!    with MEC collapsing). The minimum is `G - G · Pmax [F win]` with the lottery's
//!    odds `(G - g) / G`, the regret of the minimal gains. A scheduler that never takes
//!    a lottery wins nothing, which neither optimum prefers. The gains' midpoints are
//!    used; their half-widths widen the final bounds (the value is an expectation of
//!    gains). The reported method is the second step's.

use rayon::prelude::*;

use super::property::Opt;
use super::{reach, CheckError, Context, Values};
use crate::mec::maximal_end_components;
use crate::sparse::{ModelType, SparseModel};

/// Bounds on the optimal gain of each MEC (`opt` over its inside choices).
fn gains(
    model: &SparseModel,
    mecs: &crate::Mecs,
    rewards: &[f64],
    opt: Opt,
    precision: f64,
    max: u64,
) -> Result<Vec<(f64, f64, u64)>, CheckError> {
    let mut local = vec![u32::MAX; model.states()];
    for k in 0..mecs.count() {
        for (i, &s) in mecs.states(k).iter().enumerate() {
            local[s as usize] = i as u32;
        }
    }
    (0..mecs.count())
        .into_par_iter()
        .map(|k| {
            let states = mecs.states(k);
            let mut v = vec![0.0f64; states.len()];
            let mut w = vec![0.0f64; states.len()];
            for sweep in 1..=max {
                for (i, &s) in states.iter().enumerate() {
                    let mut best: Option<f64> = None;
                    for r in model.rows(s).filter(|&r| mecs.stays_inside(r)) {
                        let next: f64 = model
                            .entries(r)
                            .map(|e| model.values[e] * v[local[model.columns[e] as usize] as usize])
                            .sum();
                        let q = rewards[r as usize] + 0.5 * next + 0.5 * v[i];
                        best = Some(match (best, opt) {
                            (None, _) => q,
                            (Some(b), Opt::Max) => b.max(q),
                            (Some(b), Opt::Min) => b.min(q),
                        });
                    }
                    w[i] = best.expect("a MEC state has an inside choice");
                }
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                for (a, b) in w.iter().zip(&v) {
                    lo = lo.min(a - b);
                    hi = hi.max(a - b);
                }
                if hi - lo <= 2.0 * precision {
                    return Ok((lo, hi, sweep));
                }
                let base = w[0];
                for (x, y) in v.iter_mut().zip(&w) {
                    *x = y - base;
                }
            }
            Err(CheckError::Unsupported(format!(
                "the long-run average of a maximal end component of {} states did not converge in {max} sweeps",
                states.len()
            )))
        })
        .collect()
}

/// `R{..}min=? [S]` / `Rmax=? [S]` of an MDP with the per-row `rewards`.
pub(crate) fn long_run(cx: &Context, rewards: &[f64], opt: Opt) -> Result<Values, CheckError> {
    let model = cx.model;
    if let Some(r) = rewards.iter().find(|r| !(r.is_finite() && **r >= 0.0)) {
        return Err(CheckError::Unsupported(format!("long-run averages need rewards of at least 0, not {r}")));
    }
    let n = model.states();
    let mecs = maximal_end_components(model);
    let precision = cx.options.precision;
    let gains = gains(model, &mecs, rewards, opt, precision / 2.0, cx.options.max_iterations)?;
    let sweeps: u64 = gains.iter().map(|g| g.2).sum();
    let top = gains.iter().map(|g| g.1).fold(0.0f64, f64::max);
    if top == 0.0 {
        return Ok(Values::exact(vec![0.0; n], "MEC gains (relative value iteration)", sweeps));
    }
    let half = gains.iter().map(|g| (g.1 - g.0) / 2.0).fold(0.0f64, f64::max);
    // The augmented model: states `n` (win) and `n + 1` (lose) absorbing.
    let (win, lose) = (n as u32, n as u32 + 1);
    let mut aug = SparseModel::new(ModelType::Mdp);
    for s in 0..n as u32 {
        for r in model.rows(s) {
            aug.push_row(None);
            for e in model.entries(r) {
                aug.push_entry(model.columns[e], model.values[e]);
            }
        }
        if let Some(k) = mecs.of(s) {
            let mid = (gains[k].0 + gains[k].1) / 2.0;
            let odds = match opt {
                Opt::Max => mid / top,
                Opt::Min => (top - mid) / top,
            }
            .clamp(0.0, 1.0);
            aug.push_row(None);
            if odds > 0.0 {
                aug.push_entry(win, odds);
            }
            if odds < 1.0 {
                aug.push_entry(lose, 1.0 - odds);
            }
        }
        aug.end_state();
    }
    for sink in [win, lose] {
        aug.push_row(None);
        aug.push_entry(sink, 1.0);
        aug.end_state();
    }
    aug.initial = model.initial.clone();
    let left = vec![true; n + 2];
    let mut right = vec![false; n + 2];
    right[win as usize] = true;
    // Probabilities to within the precision over the largest gain.
    let options = super::Options { precision: precision / 2.0 / top, relative: false, ..cx.options.clone() };
    let p = reach::until(&cx.derived_with(&aug, &options), &left, &right, Opt::Max)?;
    let (mut lower, mut upper) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for s in 0..n {
        let (l, u) = match opt {
            Opt::Max => (top * p.lower[s], top * p.upper[s]),
            Opt::Min => (top - top * p.upper[s], top - top * p.lower[s]),
        };
        lower.push((l - half).max(0.0));
        upper.push((u + half).min(top + half));
    }
    Ok(Values { lower, upper, method: p.method, iterations: sweeps + p.iterations, sweep: p.sweep })
}
