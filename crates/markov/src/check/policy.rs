//! Policy iteration in floating point (`--method pi`) on the [`System`] of an
//! unbounded property's unknowns.
//!
//! 1. **A proper first policy**: backwards from the rows that leave the unknowns (mass
//!    to states of known value), each unknown takes a row into the unknowns reached
//!    before it; then every unknown leaves with probability 1. The systems have no end
//!    component that all policies keep (collapsed for `Pmax` and `Rmin`, absent once the
//!    0-states or the infinite states are known), so such a row always exists.
//! 2. **Evaluation**: the policy's system (one row per unknown) by the sound default,
//!    with its bounds.
//! 3. **Improvement**: an unknown switches to a row better than its own by more than
//!    the precision at the evaluation's midpoints. With none left, the last policy's
//!    bounds are reported. Improving a proper policy keeps it proper (an improper one
//!    earns an infinite reward or no probability), so every evaluation is finite.
//!
//! The stopping rule trusts the midpoints: like value iteration's, it is not sound (a
//! switch worth less than the precision is not made).

use super::reach::solve;
use super::solve::{Solution, System};
use super::{CheckError, Context, Method, Opt, Options};

/// Policy improvements at most (a guard; each strictly improves the policy).
const MAX_IMPROVEMENTS: u64 = 10_000;

/// A row per unknown whose chain leaves the unknowns with probability 1.
fn proper_policy(sys: &System) -> Vec<usize> {
    let n = sys.len();
    let mut policy: Vec<usize> = (0..n).map(|i| sys.groups[i]).collect();
    let mut reached = vec![false; n];
    // Rows with mass outside the unknowns leave directly.
    for (i, row) in policy.iter_mut().enumerate() {
        let leaving = (sys.groups[i]..sys.groups[i + 1])
            .find(|&r| (sys.starts[r]..sys.starts[r + 1]).map(|e| sys.values[e]).sum::<f64>() < 1.0 - 1e-12);
        if let Some(r) = leaving {
            *row = r;
            reached[i] = true;
        }
    }
    loop {
        let mut next = Vec::new();
        for i in (0..n).filter(|&i| !reached[i]) {
            let into = (sys.groups[i]..sys.groups[i + 1])
                .find(|&r| (sys.starts[r]..sys.starts[r + 1]).any(|e| reached[sys.columns[e] as usize]));
            if let Some(r) = into {
                policy[i] = r;
                next.push(i);
            }
        }
        if next.is_empty() {
            return policy;
        }
        next.iter().for_each(|&i| reached[i] = true);
    }
}

/// The system of `policy`'s rows.
fn restricted(sys: &System, policy: &[usize]) -> System {
    let mut chain = System::new();
    for &r in policy {
        chain.push_row(sys.b[r], (sys.starts[r]..sys.starts[r + 1]).map(|e| (sys.columns[e], sys.values[e])));
        chain.end_group();
    }
    chain
}

/// Policy iteration on `sys` (`lower`, `upper`: bounds on every value, as for
/// [`solve`]).
pub(crate) fn iterate(
    cx: &Context,
    sys: &System,
    opt: Opt,
    lower: f64,
    upper: Option<f64>,
) -> Result<(Solution, &'static str), CheckError> {
    let sound = Options { method: Method::Sound, ..cx.options.clone() };
    let ecx = cx.derived_with(cx.model, &sound);
    let mut policy = proper_policy(sys);
    let mut iterations = 0;
    for _ in 0..MAX_IMPROVEMENTS {
        let (solution, _) = solve(&ecx, &restricted(sys, &policy), opt, lower, upper)?;
        iterations += solution.iterations;
        let x: Vec<f64> = solution.lower.iter().zip(&solution.upper).map(|(l, u)| l + (u - l) / 2.0).collect();
        let mut improved = false;
        for (i, row) in policy.iter_mut().enumerate() {
            let own = sys.row_value(*row, &x);
            let margin = if cx.options.relative { cx.options.precision * own.abs() } else { cx.options.precision };
            let mut best = own;
            for r in sys.groups[i]..sys.groups[i + 1] {
                let q = sys.row_value(r, &x);
                let better = match opt {
                    Opt::Max => q > best && q > own + margin,
                    Opt::Min => q < best && q < own - margin,
                };
                if better {
                    best = q;
                    *row = r;
                    improved = true;
                }
            }
        }
        if !improved {
            return Ok((Solution { iterations, ..solution }, "policy iteration"));
        }
    }
    Err(CheckError::NotConverged { iterations })
}
