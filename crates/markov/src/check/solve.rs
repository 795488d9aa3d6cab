//! The equation systems of unbounded properties and their iterative solvers.
//!
//! A [`System`] is `x[i] = opt over the rows r of i of (b[r] + Σ_j A[r][j] x[j])` over
//! the states still unknown after the graph precomputations (and, where the fixpoint
//! would not be unique, after collapsing end components into one unknown each). Its
//! least fixpoint is the value asked for. Solvers:
//!
//! - [`interval`]: interval iteration (Haddad and Monmege 2014; Baier et al. 2017): a
//!   lower sequence from below the value and an upper one from above, both by Jacobi
//!   sweeps over the groups on all cores, until they are within `2 * precision`; every
//!   iterate is a sound bound (up to floating-point rounding).
//! - [`optimistic`]: optimistic value iteration (Hartmanns and Kaminski 2020), for
//!   rewards, where no upper bound is known beforehand: value iteration until the
//!   iterates settle, then a guessed upper bound that one more sweep must not raise
//!   (`f(u) <= u` proves `u` above the least fixpoint); from there it is interval
//!   iteration.
//! - [`value_iteration`] (Jacobi) and [`gauss_seidel`]: the classic, unsound stopping
//!   rule (successive iterates within the precision).

use rayon::prelude::*;

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

    #[inline]
    fn row_value(&self, r: usize, x: &[f64]) -> f64 {
        let mut sum = self.b[r];
        for e in self.starts[r]..self.starts[r + 1] {
            sum += self.values[e] * x[self.columns[e] as usize];
        }
        sum
    }

    /// The value of unknown `i` under `x`: the best of its rows (0 without rows).
    #[inline]
    pub fn step(&self, i: usize, opt: Opt, x: &[f64]) -> f64 {
        let rows = self.groups[i]..self.groups[i + 1];
        let mut best: Option<f64> = None;
        for r in rows {
            let v = self.row_value(r, x);
            best = Some(match (best, opt) {
                (None, _) => v,
                (Some(b), Opt::Max) => b.max(v),
                (Some(b), Opt::Min) => b.min(v),
            });
        }
        best.unwrap_or(0.0)
    }

    /// One Jacobi sweep `next = f(x)` on all cores.
    fn sweep(&self, opt: Opt, x: &[f64], next: &mut [f64]) {
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
    fn close(&self, a: f64, b: f64) -> bool {
        let d = (a - b).abs();
        if self.relative {
            d <= self.precision * a.abs().min(b.abs()) || d == 0.0
        } else {
            d <= self.precision
        }
    }

    /// Whether `upper - lower` is within twice the precision (the midpoint is then
    /// within the precision of every value between them).
    fn tight(&self, lower: f64, upper: f64) -> bool {
        let d = upper - lower;
        if self.relative {
            d <= 2.0 * self.precision * lower.abs() || d <= 0.0
        } else {
            d <= 2.0 * self.precision
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

/// The relative slack of the inductivity check of [`optimistic`]: floating-point
/// rounding of one sweep.
const ROUNDING: f64 = 1e-14;

fn not_converged(iterations: u64) -> CheckError {
    CheckError::NotConverged { iterations }
}

/// Interval iteration from `lower` (at most the least fixpoint) and `upper` (at least
/// the greatest one; with a unique fixpoint both sequences converge to it).
pub fn interval(
    sys: &System,
    opt: Opt,
    mut lower: Vec<f64>,
    mut upper: Vec<f64>,
    settings: &Settings,
) -> Result<Solution, CheckError> {
    let n = sys.len();
    let mut next_l = vec![0.0; n];
    let mut next_u = vec![0.0; n];
    let mut iterations = 0;
    loop {
        let done = (0..n).into_par_iter().with_min_len(4096).all(|i| settings.tight(lower[i], upper[i]));
        if done {
            return Ok(Solution { lower, upper, iterations });
        }
        if iterations >= settings.max_iterations {
            return Err(not_converged(iterations));
        }
        sys.sweep(opt, &lower, &mut next_l);
        sys.sweep(opt, &upper, &mut next_u);
        // Monotone: a sweep of a sound bound is a sound bound, and so is the better
        // of the two.
        lower.par_iter_mut().zip(&next_l).for_each(|(l, &n)| *l = l.max(n));
        upper.par_iter_mut().zip(&next_u).for_each(|(u, &n)| *u = u.min(n));
        iterations += 1;
    }
}

/// Jacobi value iteration from `x` until successive iterates are within the precision.
pub fn value_iteration(sys: &System, opt: Opt, mut x: Vec<f64>, settings: &Settings) -> Result<Solution, CheckError> {
    let mut next = vec![0.0; sys.len()];
    let mut iterations = 0;
    loop {
        sys.sweep(opt, &x, &mut next);
        iterations += 1;
        let done = x.par_iter().zip(&next).with_min_len(4096).all(|(&a, &b)| settings.close(a, b));
        std::mem::swap(&mut x, &mut next);
        if done {
            return Ok(Solution { lower: x.clone(), upper: x, iterations });
        }
        if iterations >= settings.max_iterations {
            return Err(not_converged(iterations));
        }
    }
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

/// Optimistic value iteration from `lower` (at most the least fixpoint, which is the
/// value): see the module documentation. Sound whatever the system; it terminates when
/// the fixpoint is unique.
pub fn optimistic(sys: &System, opt: Opt, mut lower: Vec<f64>, settings: &Settings) -> Result<Solution, CheckError> {
    let n = sys.len();
    let mut next = vec![0.0; n];
    let mut iterations = 0u64;
    let mut vi_precision = settings.precision;
    loop {
        // Value iteration until the iterates settle within `vi_precision`.
        let vi_start = iterations;
        loop {
            if iterations >= settings.max_iterations {
                return Err(not_converged(iterations));
            }
            sys.sweep(opt, &lower, &mut next);
            iterations += 1;
            let vi = Settings { precision: vi_precision, ..*settings };
            let done = lower.par_iter().zip(&next).with_min_len(4096).all(|(&a, &b)| vi.close(a, b));
            lower.par_iter_mut().zip(&next).for_each(|(l, &n)| *l = l.max(n));
            if done {
                break;
            }
        }
        // Guess an upper bound just above, and verify it for as long as value
        // iteration took (at least a few sweeps).
        let guess = |l: f64| {
            if settings.relative {
                l + l.abs() * settings.precision
            } else {
                l + settings.precision
            }
        };
        let mut upper: Vec<f64> = lower.par_iter().map(|&l| guess(l)).collect();
        let budget = (iterations - vi_start).max(8);
        let mut next_u = vec![0.0; n];
        for _ in 0..budget {
            if iterations >= settings.max_iterations {
                return Err(not_converged(iterations));
            }
            sys.sweep(opt, &upper, &mut next_u);
            sys.sweep(opt, &lower, &mut next);
            iterations += 1;
            lower.par_iter_mut().zip(&next).for_each(|(l, &n)| *l = l.max(n));
            // Up to the rounding of the sweep itself (a few ulps).
            let inductive =
                upper.par_iter().zip(&next_u).with_min_len(4096).all(|(&u, &f)| f <= u + u.abs() * ROUNDING);
            if inductive {
                // `upper` is a sound bound: finish by interval iteration.
                let mut solution = interval(sys, opt, lower, upper, settings)?;
                solution.iterations += iterations;
                return Ok(solution);
            }
            let rising = upper.par_iter().zip(&next_u).with_min_len(4096).all(|(&u, &f)| f >= u);
            if rising {
                break;
            }
            std::mem::swap(&mut upper, &mut next_u);
        }
        vi_precision /= 2.0;
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
