//! Long-run averages of chains (`S=? [φ]` and `R=? [S]` on DTMCs and CTMCs), with sound
//! bounds.
//!
//! A chain ends in one of its bottom SCCs; there the long-run average of `f` (a 0/1
//! value or a reward rate per state) is `g = π f`, `π` the SCC's stationary distribution
//! (`π Q = 0`, `Q` the generator; a DTMC's is `P - I`). Three steps:
//!
//! 1. **`π` estimated** by under-relaxed Gauss-Seidel sweeps on `π Q = 0`, normalised
//!    after each sweep. This is a point estimate, not yet a bound.
//! 2. **Bounds**: for any vector `v`, `π (f + Q v) = π f = g`, so
//!    `min (f + Q v) ≤ g ≤ max (f + Q v)` over the SCC's states (Odoni's bounds, valid
//!    for periodic SCCs too). `v` approximates the bias: Gauss-Seidel on the Poisson
//!    equation `Q v = g₀ - f` pinned at `v(p) = 0`, `p` the state of largest `π`, where
//!    `g₀` starts as `π f` and moves to `π (f + Q v)` while the bounds are too wide.
//!    The bounds do not depend on how good `π` or `v` are, only their width does.
//! 3. **Transient states**: their value is the expectation of the gains of the SCCs they
//!    end in, the absorption values of the embedded chain, by interval iteration; the
//!    gains' half-widths widen the result.

use rayon::prelude::*;

use super::reach::{self, Reduction};
use super::{CheckError, Context, Values};
use crate::mec::bottom_sccs;
use crate::SparseModel;

/// The weight of each Gauss-Seidel update of a stationary distribution (below 1: a
/// virtual self-loop in every state, which makes every bottom SCC aperiodic).
const RELAXATION: f64 = 0.9;

/// The long-run average of `f` (a value or reward rate per state) in every state.
/// `ecx` is the embedded DTMC's context (absorption probabilities).
pub(crate) fn steady(cx: &Context, ecx: &Context, exit: &[f64], f: &[f64]) -> Result<Values, CheckError> {
    let model = cx.model;
    let n = model.states();
    let bsccs = bottom_sccs(model).map_err(|e| CheckError::Unsupported(e.to_string()))?;
    let mut local = vec![u32::MAX; n];
    for states in bsccs.iter() {
        for (i, &s) in states.iter().enumerate() {
            local[s as usize] = i as u32;
        }
    }
    let (precision, relative, max) = (cx.options.precision, cx.options.relative, cx.options.max_iterations);
    let gains = bsccs
        .iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|states| {
            let scc = Bscc::new(model, exit, states, &local);
            let fs: Vec<f64> = states.iter().map(|&s| f[s as usize]).collect();
            scc.gain(&fs, precision, relative, max)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let iterations: u64 = gains.iter().map(|g| g.2).sum();
    let (mut lower, mut upper) = (vec![0.0; n], vec![0.0; n]);
    for (states, g) in bsccs.iter().zip(&gains) {
        for &s in states {
            (lower[s as usize], upper[s as usize]) = (g.0, g.1);
        }
    }
    let maybe: Vec<bool> = (0..n as u32).map(|s| bsccs.of(s).is_none()).collect();
    const METHOD: &str = "steady state (Gauss-Seidel, bias bounds)";
    if !maybe.contains(&true) {
        return Ok(Values { lower, upper, method: METHOD, iterations, sweep: Default::default() });
    }
    // The gains' midpoints, and the widest half-width.
    let known: Vec<f64> = lower.iter().zip(&upper).map(|(l, u)| l + (u - l) / 2.0).collect();
    let half = gains.iter().map(|g| (g.1 - g.0) / 2.0).fold(0.0f64, f64::max);
    let (lo, hi) = gains.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), g| (a.min(g.0), b.max(g.1)));
    let options = super::Options { precision: precision / 2.0, ..cx.options.clone() };
    let acx = ecx.derived_with(ecx.model, &options);
    let reduction = Reduction::new(ecx.model, &maybe, None);
    let sys = reduction.system(ecx.model, &known, None, &|_| true, 0.0);
    let (solution, _) = reach::solve(&acx, &sys, super::Opt::Max, lo, Some(hi))?;
    let (l, u) = reduction.expand(&known, &solution);
    for s in (0..n).filter(|&s| maybe[s]) {
        lower[s] = (l[s] - half).max(lo);
        upper[s] = (u[s] + half).min(hi);
    }
    Ok(Values {
        lower,
        upper,
        method: "steady state (bottom SCCs, bias bounds)",
        iterations: iterations + solution.iterations,
        sweep: Default::default(),
    })
}

/// One bottom SCC in local numbering: each state's exit rate without its self-loop,
/// and the incoming rates between distinct states (outgoing ones are read from the
/// model through `local`).
struct Bscc<'a> {
    model: &'a SparseModel,
    states: &'a [u32],
    local: &'a [u32],
    out: Vec<f64>,
    /// Incoming `(source, rate)` of local state `j`: `bwd[bwd_at[j]..bwd_at[j + 1]]`.
    bwd_at: Vec<usize>,
    bwd: Vec<(u32, f64)>,
}

impl<'a> Bscc<'a> {
    /// `states` ascending, `local` every bottom-SCC state's index in its SCC (a bottom
    /// SCC's transitions stay inside it).
    fn new(model: &'a SparseModel, exit: &[f64], states: &'a [u32], local: &'a [u32]) -> Bscc<'a> {
        let n = states.len();
        let out = states
            .iter()
            .map(|&s| {
                exit[s as usize]
                    - model.rows(s).flat_map(|r| model.row(r)).filter(|&(t, _)| t == s).map(|(_, r)| r).sum::<f64>()
            })
            .collect();
        let mut scc = Bscc { model, states, local, out, bwd_at: Vec::new(), bwd: Vec::new() };
        let mut at = vec![0usize; n + 1];
        for i in 0..n {
            scc.outgoing(i, |j, _| at[j as usize + 1] += 1);
        }
        for j in 0..n {
            at[j + 1] += at[j];
        }
        let mut fill = at.clone();
        let mut bwd = vec![(0u32, 0.0f64); at[n]];
        for i in 0..n {
            scc.outgoing(i, |j, rate| {
                bwd[fill[j as usize]] = (i as u32, rate);
                fill[j as usize] += 1;
            });
        }
        (scc.bwd_at, scc.bwd) = (at, bwd);
        scc
    }

    /// Calls `each(j, rate)` for the transitions of local state `i` to other states.
    fn outgoing(&self, i: usize, mut each: impl FnMut(u32, f64)) {
        let s = self.states[i];
        for r in self.model.rows(s) {
            for (t, rate) in self.model.row(r) {
                if t != s {
                    each(self.local[t as usize], rate);
                }
            }
        }
    }

    /// `Σ_j R(i, j) v(j)` over the other states `j`.
    fn flow(&self, i: usize, v: &[f64]) -> f64 {
        let mut sum = 0.0;
        self.outgoing(i, |j, r| sum += r * v[j as usize]);
        sum
    }

    fn len(&self) -> usize {
        self.out.len()
    }

    /// Estimates the stationary distribution: Gauss-Seidel sweeps on
    /// `π(j) E'(j) = Σ_{i≠j} π(i) R(i, j)`, under-relaxed, until no entry moves by more
    /// than 1e-13 relative (or `max` sweeps: the estimate only steers the bounds).
    fn stationary(&self, max: u64) -> (Vec<f64>, u64) {
        let n = self.len();
        let mut pi = vec![1.0 / n as f64; n];
        for sweep in 1..=max {
            let mut change = 0.0f64;
            for j in 0..n {
                let inflow: f64 =
                    self.bwd[self.bwd_at[j]..self.bwd_at[j + 1]].iter().map(|&(i, r)| pi[i as usize] * r).sum();
                // Under-relaxed: plain Gauss-Seidel cycles forever on a periodic SCC (a ring).
                let v = pi[j] + RELAXATION * (inflow / self.out[j] - pi[j]);
                change = change.max((v - pi[j]).abs() / v.max(f64::MIN_POSITIVE));
                pi[j] = v;
            }
            let total: f64 = pi.iter().sum();
            pi.iter_mut().for_each(|p| *p /= total);
            if change <= 1e-13 {
                return (pi, sweep);
            }
        }
        (pi, max)
    }

    /// `(f + Q v)(i)` for every state: its minimum, maximum and `π`-weighted mean.
    fn residuals(&self, f: &[f64], v: &[f64], pi: &[f64]) -> (f64, f64, f64) {
        let (mut lo, mut hi, mut mean) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
        for i in 0..self.len() {
            let res = f[i] + self.flow(i, v) - self.out[i] * v[i];
            lo = lo.min(res);
            hi = hi.max(res);
            mean += pi[i] * res;
        }
        (lo, hi, mean)
    }

    /// Sound bounds on the long-run average of `f` (local numbering), no wider than the
    /// precision, and the sweeps taken.
    fn gain(&self, f: &[f64], precision: f64, relative: bool, max: u64) -> Result<(f64, f64, u64), CheckError> {
        let (fmin, fmax) = f.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if fmin == fmax {
            return Ok((fmin, fmax, 0));
        }
        let (pi, sweeps) = self.stationary(max);
        let (lo, hi, more) = self.bounds(f, &pi, precision, relative, max)?;
        Ok((lo, hi, sweeps + more))
    }

    /// Odoni's bounds `min (f + Q v) ≤ g ≤ max (f + Q v)` for a bias estimate `v` from
    /// under-relaxed Gauss-Seidel sweeps on `Q v = g₀ - f`, each followed by `v -= v(p)`.
    /// `pi` (an estimate of the stationary distribution) picks `p` and steers `g₀`.
    fn bounds(
        &self,
        f: &[f64],
        pi: &[f64],
        precision: f64,
        relative: bool,
        max: u64,
    ) -> Result<(f64, f64, u64), CheckError> {
        let n = self.len();
        let mut g: f64 = pi.iter().zip(f).map(|(p, x)| p * x).sum();
        let width = if relative { precision * g.abs() } else { precision };
        let pivot = (0..n).max_by(|&a, &b| pi[a].total_cmp(&pi[b])).expect("a bottom SCC has a state");
        let mut v = vec![0.0f64; n];
        let mut best = (f64::NEG_INFINITY, f64::INFINITY);
        for sweep in 1..=max {
            for i in 0..n {
                let x = (f[i] - g + self.flow(i, &v)) / self.out[i];
                v[i] += RELAXATION * (x - v[i]);
            }
            let base = v[pivot];
            v.iter_mut().for_each(|x| *x -= base);
            // Check often early (small SCCs converge in a few sweeps), then every 16th.
            if sweep.is_power_of_two() || sweep % 16 == 0 {
                let (lo, hi, mean) = self.residuals(f, &v, pi);
                best = (best.0.max(lo), best.1.min(hi));
                if best.1 - best.0 <= width {
                    return Ok((best.0, best.1, sweep));
                }
                g = mean.clamp(lo, hi);
            }
        }
        Err(CheckError::NotConverged { iterations: max })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelType;

    /// A chain of one bottom SCC from `rows[s] = [(target, rate)]`.
    fn chain(rows: &[&[(u32, f64)]]) -> (SparseModel, Vec<f64>) {
        let mut m = SparseModel::new(ModelType::Ctmc);
        for row in rows {
            m.push_row(None);
            for &(t, r) in *row {
                m.push_entry(t, r);
            }
            m.end_state();
        }
        let exit = rows.iter().map(|r| r.iter().map(|e| e.1).sum()).collect();
        (m, exit)
    }

    fn bounds_with(rows: &[&[(u32, f64)]], f: &[f64], pi: Option<&[f64]>) -> (f64, f64) {
        let (m, exit) = chain(rows);
        let states: Vec<u32> = (0..rows.len() as u32).collect();
        let scc = Bscc::new(&m, &exit, &states, &states);
        let pi = pi.map_or_else(|| scc.stationary(1_000_000).0, |p| p.to_vec());
        let (lo, hi, _) = scc.bounds(f, &pi, 1e-9, false, 10_000_000).unwrap();
        assert!(hi - lo <= 1e-9, "[{lo}, {hi}]");
        (lo, hi)
    }

    #[test]
    fn two_states_with_different_exit_rates() {
        // π(0) = b / (a + b) for rates a (0 → 1) and b (1 → 0); a self-loop changes nothing.
        let (lo, hi) = bounds_with(&[&[(1, 3.0), (0, 5.0)], &[(0, 2.0)]], &[1.0, 0.0], None);
        assert!(lo <= 0.4 && 0.4 <= hi, "[{lo}, {hi}]");
    }

    #[test]
    fn a_periodic_ring() {
        let (lo, hi) = bounds_with(&[&[(1, 1.0)], &[(2, 1.0)], &[(0, 1.0)]], &[1.0, 0.0, 0.0], None);
        assert!(lo <= 1.0 / 3.0 && 1.0 / 3.0 <= hi, "[{lo}, {hi}]");
    }

    /// Two clusters joined by rare moves (π of the first is 2/3): the bounds hold even
    /// when the stationary estimate is far off (uniform), only the sweeps grow.
    #[test]
    fn the_bounds_do_not_trust_the_stationary_estimate() {
        let e = 1e-3;
        let rows: [&[(u32, f64)]; 4] = [
            &[(1, 0.5), (0, 0.5 - e), (2, e)],
            &[(0, 0.5), (1, 0.5)],
            &[(3, 0.5), (2, 0.5 - 2.0 * e), (0, 2.0 * e)],
            &[(2, 0.5), (3, 0.5)],
        ];
        let f = [1.0, 1.0, 0.0, 0.0];
        for pi in [None, Some(&[0.25, 0.25, 0.25, 0.25][..]), Some(&[0.1, 0.1, 0.7, 0.1][..])] {
            let (lo, hi) = bounds_with(&rows, &f, pi);
            assert!(lo <= 2.0 / 3.0 && 2.0 / 3.0 <= hi, "{pi:?}: [{lo}, {hi}]");
        }
    }
}
