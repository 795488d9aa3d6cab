//! The equation systems of unbounded properties, and their direct solvers.
//!
//! A [`System`] is `x[i] = opt over the rows r of i of (b[r] + Σ_j A[r][j] x[j])` over
//! the states still unknown after the graph precomputations (and, where the fixpoint
//! would not be unique, after collapsing end components into one unknown each). Its
//! least fixpoint is the value asked for. The iterative solvers (interval iteration,
//! optimistic and plain value iteration) are in [`super::engine`], over the engine
//! that runs their sweeps; here are the direct ones:
//!
//! - [`dense`] Gaussian elimination of small systems, with [`verify`] and
//!   [`residual_bound`] turning its answer into sound bounds;
//! - [`gauss_seidel`]: in-place value iteration on one core, with the classic, unsound
//!   stopping rule (successive iterates within the precision).

use rayon::prelude::*;

use super::engine::{not_converged, ROUNDING};
use super::property::Opt;
use super::CheckError;

/// `x = opt_r (b[r] + A[r] x)`, row-grouped like a [`crate::SparseModel`].
#[derive(Clone, Debug, Default)]
pub struct System {
    /// `unknowns + 1` offsets into the rows.
    pub groups: Vec<usize>,
    /// `rows + 1` offsets into `columns` / `values`.
    pub starts: Vec<usize>,
    pub columns: Vec<u32>,
    pub values: Vec<f64>,
    /// The constant of each row.
    pub b: Vec<f64>,
}

impl System {
    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.groups.len() - 1
    }

    /// Whether the system has no unknown.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a row (to the group being filled; close it with [`System::end_group`]).
    pub fn push_row(&mut self, b: f64, entries: impl IntoIterator<Item = (u32, f64)>) {
        for (c, v) in entries {
            self.columns.push(c);
            self.values.push(v);
        }
        self.starts.push(self.columns.len());
        self.b.push(b);
    }

    /// Ends the current unknown's group of rows.
    pub fn end_group(&mut self) {
        self.groups.push(self.b.len());
    }

    /// An empty system.
    pub fn new() -> System {
        System { groups: vec![0], starts: vec![0], ..System::default() }
    }

    /// The value of row `r` at `x`: its constant plus its entries times `x`.
    #[inline]
    pub(crate) fn row_value(&self, r: usize, x: &[f64]) -> f64 {
        self.row_value_with(r, |j| x[j])
    }

    #[inline]
    fn row_value_with(&self, r: usize, x: impl Fn(usize) -> f64) -> f64 {
        let mut sum = self.b[r];
        for e in self.starts[r]..self.starts[r + 1] {
            sum += self.values[e] * x(self.columns[e] as usize);
        }
        sum
    }

    /// The value of unknown `i` under `x`: the best of its rows (0 without rows).
    #[inline]
    pub fn step(&self, i: usize, opt: Opt, x: &[f64]) -> f64 {
        self.step_with(i, opt, |j| x[j])
    }

    /// [`System::step`] reading the vector through `x`.
    #[inline]
    pub fn step_with(&self, i: usize, opt: Opt, x: impl Fn(usize) -> f64 + Copy) -> f64 {
        let rows = self.groups[i]..self.groups[i + 1];
        let mut best: Option<f64> = None;
        for r in rows {
            let v = self.row_value_with(r, x);
            best = Some(match (best, opt) {
                (None, _) => v,
                (Some(b), Opt::Max) => b.max(v),
                (Some(b), Opt::Min) => b.min(v),
            });
        }
        best.unwrap_or(0.0)
    }

    /// One Jacobi sweep `next = f(x)` on all cores.
    pub fn sweep(&self, opt: Opt, x: &[f64], next: &mut [f64]) {
        next.par_iter_mut().with_min_len(1024).enumerate().for_each(|(i, n)| *n = self.step(i, opt, x));
    }
}

/// Settings of a solver run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub precision: f64,
    /// Precision relative to the value (else absolute).
    pub relative: bool,
    pub max_iterations: u64,
}

impl Settings {
    /// Whether two successive iterates are within the precision.
    pub fn close(&self, a: f64, b: f64) -> bool {
        let d = (a - b).abs();
        if self.relative {
            d <= self.precision * a.abs().min(b.abs()) || d == 0.0
        } else {
            d <= self.precision
        }
    }

    /// Whether `upper - lower` is within twice the precision (the midpoint is then
    /// within the precision of every value between them).
    pub fn tight(&self, lower: f64, upper: f64) -> bool {
        let d = upper - lower;
        if self.relative {
            d <= 2.0 * self.precision * lower.abs() || d <= 0.0
        } else {
            d <= 2.0 * self.precision
        }
    }

    /// An upper bound guessed just above `lower` (optimistic value iteration).
    pub fn guess(&self, lower: f64) -> f64 {
        if self.relative {
            lower + lower.abs() * self.precision
        } else {
            lower + self.precision
        }
    }
}

/// Lower and upper bounds of the solution, per unknown, and the sweeps taken.
#[derive(Clone, Debug)]
pub struct Solution {
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub iterations: u64,
}

/// Gauss-Seidel value iteration (in place, one core) until a sweep changes no value by
/// more than the precision.
pub fn gauss_seidel(sys: &System, opt: Opt, mut x: Vec<f64>, settings: &Settings) -> Result<Solution, CheckError> {
    let mut iterations = 0;
    loop {
        let mut done = true;
        for i in 0..sys.len() {
            let v = sys.step(i, opt, &x);
            done &= settings.close(v, x[i]);
            x[i] = v;
        }
        iterations += 1;
        if done {
            return Ok(Solution { lower: x.clone(), upper: x, iterations });
        }
        if iterations >= settings.max_iterations {
            return Err(not_converged(iterations));
        }
    }
}

/// Largest system [`dense`] solves (one row per unknown).
pub const DENSE_LIMIT: usize = 1500;

/// The solution of a system of one row per unknown (`x = b + A x`) by Gaussian
/// elimination with partial pivoting, if it has at most [`DENSE_LIMIT`] unknowns and the
/// matrix `I - A` is not singular.
pub fn dense(sys: &System) -> Option<Vec<f64>> {
    let n = sys.len();
    if n > DENSE_LIMIT || sys.b.len() != n {
        return None;
    }
    let mut m = vec![0.0; n * (n + 1)];
    let w = n + 1;
    for i in 0..n {
        m[i * w + i] = 1.0;
        for e in sys.starts[i]..sys.starts[i + 1] {
            m[i * w + sys.columns[e] as usize] -= sys.values[e];
        }
        m[i * w + n] = sys.b[i];
    }
    for c in 0..n {
        let pivot = (c..n).max_by(|&a, &b| m[a * w + c].abs().total_cmp(&m[b * w + c].abs()))?;
        if m[pivot * w + c].abs() < 1e-300 {
            return None;
        }
        if pivot != c {
            for k in 0..w {
                m.swap(pivot * w + k, c * w + k);
            }
        }
        let (top, rest) = m.split_at_mut((c + 1) * w);
        let row_c = &top[c * w..];
        rest.par_chunks_mut(w).for_each(|row| {
            let f = row[c] / row_c[c];
            if f != 0.0 {
                for k in c..w {
                    row[k] -= f * row_c[k];
                }
            }
        });
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut v = m[i * w + n];
        for k in i + 1..n {
            v -= m[i * w + k] * x[k];
        }
        x[i] = v / m[i * w + i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Sound bounds around a guess, for a system with a unique fixpoint: `l = guess - δ`
/// and `u = guess + δ` (clamped to `[floor, ceiling]`) are bounds when one sweep raises
/// no `l` and lowers no `u` (up to rounding): then the iterates from `l` rise to the
/// fixpoint and those from `u` fall to it. Each sweep must clear its bound by a margin
/// for rounding (1e-14 relative). δ is tried from 1e-13 of the guess upwards,
/// up to the precision.
pub fn verify(
    sys: &System,
    opt: Opt,
    guess: &[f64],
    floor: f64,
    ceiling: f64,
    settings: &Settings,
) -> Option<Solution> {
    let mut f = vec![0.0; sys.len()];
    let mut tries = 0;
    for factor in [1e-13, 1e-11, 1e-9, 1e-7, f64::INFINITY] {
        let delta = |g: f64| {
            let most = if settings.relative { g.abs() * settings.precision } else { settings.precision };
            (g.abs() * factor).min(most)
        };
        let lower: Vec<f64> = guess.iter().map(|&g| (g - delta(g)).max(floor)).collect();
        let upper: Vec<f64> = guess.iter().map(|&g| (g + delta(g)).min(ceiling)).collect();
        tries += 2;
        sys.sweep(opt, &lower, &mut f);
        // With a margin for the rounding of the sweep: where the system contracts
        // weakly, a bound that holds only up to rounding may be wrong.
        if !lower.iter().zip(&f).all(|(&l, &f)| f - f.abs() * ROUNDING >= l) {
            continue;
        }
        sys.sweep(opt, &upper, &mut f);
        if upper.iter().zip(&f).all(|(&u, &f)| f + f.abs() * ROUNDING <= u) {
            return Some(Solution { lower, upper, iterations: tries });
        }
    }
    None
}

/// Bounds on the solution of a system of one row per unknown (`x = b + A x`, unique
/// solution) around its dense solution `x`, from the residual `r = b + A x - x`:
/// `x* - x = (I - A)^-1 r`, and `(I - A)^-1 1 = y`, the expected number of steps
/// before leaving the unknowns (itself solved densely, then doubled as a margin for its
/// own error), so `|x* - x| <= 2 y max|r|`. For weakly contracting systems where a
/// sweep cannot tell a bound from rounding ([`verify`]). `None` when the bound is not
/// within the precision.
pub fn residual_bound(sys: &System, x: &[f64], floor: f64, ceiling: f64, settings: &Settings) -> Option<Solution> {
    let mut ones = sys.clone();
    ones.b.iter_mut().for_each(|b| *b = 1.0);
    let y = dense(&ones)?;
    let scale = x.iter().fold(1.0f64, |a, v| a.max(v.abs()));
    let r = (0..sys.len()).map(|i| (sys.row_value(i, x) - x[i]).abs()).fold(0.0f64, f64::max) + scale * 1e-15;
    let mut lower = Vec::with_capacity(x.len());
    let mut upper = Vec::with_capacity(x.len());
    for (i, &g) in x.iter().enumerate() {
        let d = 2.0 * y[i].abs() * r;
        let ok = if settings.relative { d <= g.abs() * settings.precision } else { d <= settings.precision };
        if !ok || !d.is_finite() {
            return None;
        }
        lower.push((g - d).max(floor));
        upper.push((g + d).min(ceiling));
    }
    Some(Solution { lower, upper, iterations: 1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::engine::{self, Cores, Engine};

    fn interval(s: &System, opt: Opt, l: Vec<f64>, u: Vec<f64>, set: &Settings) -> Result<Solution, CheckError> {
        engine::interval(&mut *Cores::default().open(s)?, opt, &l, &u, set)
    }

    fn optimistic(s: &System, opt: Opt, l: Vec<f64>, set: &Settings) -> Result<Solution, CheckError> {
        engine::optimistic(&mut *Cores::default().open(s)?, opt, &l, set)
    }

    fn value_iteration(s: &System, opt: Opt, x: Vec<f64>, set: &Settings) -> Result<Solution, CheckError> {
        engine::value_iteration(&mut *Cores::default().open(s)?, opt, &x, set)
    }

    /// x0 = 0.5 x0 + 0.5 x1, x1 = 0.5 + 0.25 x0: x0 = x1 = 2/3.
    fn small() -> System {
        let mut s = System::new();
        s.push_row(0.0, [(0, 0.5), (1, 0.5)]);
        s.end_group();
        s.push_row(0.5, [(0, 0.25)]);
        s.push_row(0.1, []);
        s.end_group();
        s
    }

    #[test]
    fn solvers_agree() {
        let s = small();
        let set = Settings { precision: 1e-9, relative: false, max_iterations: 100_000 };
        let ii = interval(&s, Opt::Max, vec![0.0; 2], vec![1.0; 2], &set).unwrap();
        for i in 0..2 {
            assert!(ii.lower[i] <= 2.0 / 3.0 && 2.0 / 3.0 <= ii.upper[i] && ii.upper[i] - ii.lower[i] <= 2e-9);
        }
        let ovi = optimistic(&s, Opt::Max, vec![0.0; 2], &set).unwrap();
        assert!(ovi.lower[0] <= 2.0 / 3.0 && 2.0 / 3.0 <= ovi.upper[0] + 1e-15);
        let vi = value_iteration(&s, Opt::Max, vec![0.0; 2], &set).unwrap();
        assert!((vi.lower[1] - 2.0 / 3.0).abs() < 1e-7);
        let mut one = System::new();
        one.push_row(0.0, [(0, 0.5), (1, 0.5)]);
        one.end_group();
        one.push_row(0.5, [(0, 0.25)]);
        one.end_group();
        let x = dense(&one).unwrap();
        assert!((x[0] - 2.0 / 3.0).abs() < 1e-15);
        // Row 0 has no exit of its own (x0 = (x0 + x1) / 2): a sweep cannot clear the
        // rounding margin there, so `verify` declines and the residual bound serves.
        assert!(verify(&one, Opt::Max, &x, 0.0, 1.0, &set).is_none());
        let v = residual_bound(&one, &x, 0.0, 1.0, &set).unwrap();
        assert!(v.lower[0] <= 2.0 / 3.0 && 2.0 / 3.0 <= v.upper[0] && v.upper[0] - v.lower[0] <= 2e-9);
        assert!(verify(&one, Opt::Max, &[0.5, 0.5], 0.0, 1.0, &set).is_none());
        assert!(residual_bound(&one, &[0.5, 0.5], 0.0, 1.0, &set).is_none());
        // A contracting system (every row leaves with probability 1/2) is verified.
        let mut two = System::new();
        two.push_row(0.25, [(1, 0.5)]);
        two.end_group();
        two.push_row(0.5, [(0, 0.5)]);
        two.end_group();
        let x = dense(&two).unwrap();
        let v = verify(&two, Opt::Max, &x, 0.0, 1.0, &set).unwrap();
        assert!(v.lower[0] <= x[0] && x[0] <= v.upper[0]);
        let gs = gauss_seidel(&s, Opt::Max, vec![0.0; 2], &set).unwrap();
        assert!((gs.lower[1] - 2.0 / 3.0).abs() < 1e-7);
        // Min: x1 = 0.1 and x0 = 0.1.
        let ii = interval(&s, Opt::Min, vec![0.0; 2], vec![1.0; 2], &set).unwrap();
        assert!((ii.lower[0] - 0.1).abs() < 1e-8);
    }
}
