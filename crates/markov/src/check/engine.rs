//! Where the sweeps of the iterative solvers run, and the solvers written once over it.
//!
//! A sweep is one application of a [`System`]'s operator `f(x)_i = opt_r (b[r] + A[r] x)`
//! to a vector. An [`Engine`] opens a system as [`Sweeps`]: vectors held where the
//! engine computes (named by [`Slot`]s) and the fused operations the solvers need,
//! each possibly many sweeps long, so that a device can run them without a round trip
//! per sweep. [`Cores`] runs them on all CPU cores; `warpcheck-markov-gpu` on a CUDA
//! GPU. The solvers are written once, over `dyn Sweeps`:
//!
//! - [`interval`]: interval iteration (Haddad and Monmege 2014; Baier et al. 2017): a
//!   lower sequence from below the value and an upper one from above, by Jacobi
//!   sweeps, until they are within `2 * precision`; every iterate is a sound bound (up
//!   to floating-point rounding).
//! - [`optimistic`]: optimistic value iteration (Hartmanns and Kaminski 2020), for
//!   rewards, where no upper bound is known beforehand: value iteration until the
//!   iterates settle, then a guessed upper bound that one more sweep must not raise
//!   (`f(u) <= u` proves `u` above the least fixpoint); from there it is interval
//!   iteration.
//! - [`value_iteration`] (Jacobi): the classic, unsound stopping rule (successive
//!   iterates within the precision).
//!
//! A sweep's row values are computed in one order everywhere (rows in order, entries in
//! order, no fused multiply-add), so engines sweeping alike give the same bits
//! ([`Cores`]' in-place and Jacobi sweeps: `cores.rs`).

pub use super::cores::Cores;
use super::property::Opt;
use super::solve::{Settings, Solution, System};
use super::CheckError;

/// A vector held by a [`Sweeps`] (one value per unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot(pub usize);

/// The outcome of [`Sweeps::probe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// `f(u) <= u` everywhere (up to [`ROUNDING`]): `u` is above the least fixpoint.
    pub inductive: bool,
    /// `f(u) >= u` everywhere: the guess is below the fixpoint, or at it.
    pub rising: bool,
}

/// The relative slack of the inductivity check of [`optimistic`]: floating-point
/// rounding of one sweep.
pub const ROUNDING: f64 = 1e-14;

/// A system opened by an [`Engine`]: its vectors and the sweeps over them.
pub trait Sweeps {
    /// Unknowns of the system.
    fn len(&self) -> usize;
    /// Whether the system has no unknown.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A new vector holding `values` (one per unknown).
    fn vector(&mut self, values: &[f64]) -> Result<Slot, CheckError>;
    /// The values of a vector.
    fn values(&mut self, v: Slot) -> Result<Vec<f64>, CheckError>;
    /// Interval iteration: while some unknown has `lower` and `upper` not within twice
    /// the precision ([`Settings::tight`]) and fewer than `max` sweeps were taken,
    /// `lower = max(lower, f(lower))` and `upper = min(upper, f(upper))`. The sweeps
    /// taken, and whether the bounds are tight.
    fn interval_sweeps(
        &mut self,
        opt: Opt,
        lower: Slot,
        upper: Slot,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError>;
    /// Value iteration: `x = f(x)` (`monotone`: `max(x, f(x))`) until a sweep moves no
    /// unknown by more than the precision ([`Settings::close`], between `x` and `f(x)`)
    /// or `max` sweeps (at least one) were taken. The sweeps taken, and whether the
    /// last moved nothing.
    fn vi_sweeps(
        &mut self,
        opt: Opt,
        x: Slot,
        monotone: bool,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError>;
    /// One sweep of each: `lower = max(lower, f(lower))`, and `f(upper)` compared with
    /// `upper`; `upper` becomes `f(upper)` unless it is inductive.
    fn probe(&mut self, opt: Opt, lower: Slot, upper: Slot) -> Result<Probe, CheckError>;
    /// `upper = lower` plus the precision (relative or absolute).
    fn guess(&mut self, lower: Slot, upper: Slot, settings: &Settings) -> Result<(), CheckError>;
    /// `k` sweeps `x = f(x)`.
    fn sweeps(&mut self, opt: Opt, x: Slot, k: u64) -> Result<(), CheckError>;
    /// `Σ_k weights[k] f^k(x)`, `k = 0..weights.len()` (`x` is consumed; the sum is a
    /// new vector). `opt` is irrelevant: for systems of one row per unknown.
    fn weighted(&mut self, x: Slot, weights: &[f64]) -> Result<Slot, CheckError>;
}

/// Where the solvers' sweeps run.
pub trait Engine: Send + Sync + std::fmt::Debug {
    /// `"cpu"`, `"gpu"`.
    fn name(&self) -> &'static str;
    /// Opens `sys` for sweeps (a device uploads it).
    fn open<'a>(&self, sys: &'a System) -> Result<Box<dyn Sweeps + 'a>, CheckError>;
}

pub(super) fn not_converged(iterations: u64) -> CheckError {
    CheckError::NotConverged { iterations }
}

/// Interval iteration from `lower` (at most the least fixpoint) and `upper` (at least
/// the greatest one; with a unique fixpoint both sequences converge to it).
pub fn interval(
    s: &mut dyn Sweeps,
    opt: Opt,
    lower: &[f64],
    upper: &[f64],
    settings: &Settings,
) -> Result<Solution, CheckError> {
    let (l, u) = (s.vector(lower)?, s.vector(upper)?);
    interval_from(s, opt, l, u, settings)
}

fn interval_from(
    s: &mut dyn Sweeps,
    opt: Opt,
    lower: Slot,
    upper: Slot,
    settings: &Settings,
) -> Result<Solution, CheckError> {
    let (iterations, tight) = s.interval_sweeps(opt, lower, upper, settings, settings.max_iterations)?;
    if !tight {
        return Err(not_converged(iterations));
    }
    Ok(Solution { lower: s.values(lower)?, upper: s.values(upper)?, iterations })
}

/// Jacobi value iteration from `x` until successive iterates are within the precision.
pub fn value_iteration(s: &mut dyn Sweeps, opt: Opt, x: &[f64], settings: &Settings) -> Result<Solution, CheckError> {
    let v = s.vector(x)?;
    let (iterations, settled) = s.vi_sweeps(opt, v, false, settings, settings.max_iterations.max(1))?;
    if !settled {
        return Err(not_converged(iterations));
    }
    let x = s.values(v)?;
    Ok(Solution { lower: x.clone(), upper: x, iterations })
}

/// Optimistic value iteration from `lower` (at most the least fixpoint, which is the
/// value): see the module documentation. Sound whatever the system; it terminates when
/// the fixpoint is unique.
pub fn optimistic(s: &mut dyn Sweeps, opt: Opt, lower: &[f64], settings: &Settings) -> Result<Solution, CheckError> {
    let max = settings.max_iterations;
    let l = s.vector(lower)?;
    let u = s.vector(lower)?;
    let mut iterations = 0u64;
    let mut vi_precision = settings.precision;
    loop {
        // Value iteration until the iterates settle within `vi_precision`.
        if iterations >= max {
            return Err(not_converged(iterations));
        }
        let vi = Settings { precision: vi_precision, ..*settings };
        let (taken, settled) = s.vi_sweeps(opt, l, true, &vi, max - iterations)?;
        iterations += taken;
        if !settled {
            return Err(not_converged(iterations));
        }
        // Guess an upper bound just above, and verify it for as long as value
        // iteration took (at least a few sweeps).
        s.guess(l, u, settings)?;
        for _ in 0..taken.max(8) {
            if iterations >= max {
                return Err(not_converged(iterations));
            }
            let probe = s.probe(opt, l, u)?;
            iterations += 1;
            if probe.inductive {
                // `u` is a sound bound: finish by interval iteration.
                let mut solution = interval_from(s, opt, l, u, settings)?;
                solution.iterations += iterations;
                return Ok(solution);
            }
            if probe.rising {
                break;
            }
        }
        vi_precision /= 2.0;
    }
}

/// A [`Sweeps`] that adds its time and swept entries to a total.
pub(crate) struct Timed<'a> {
    pub inner: Box<dyn Sweeps + 'a>,
    pub total: &'a std::sync::Mutex<super::SweepTime>,
    /// Entries of the system's matrix.
    pub entries: u64,
}

impl Timed<'_> {
    /// Runs `f` on the inner sweeps, adding its time and `vectors(result)` times the
    /// matrix's entries to the total.
    fn time<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Sweeps) -> Result<T, CheckError>,
        vectors: impl FnOnce(&T) -> u64,
    ) -> Result<T, CheckError> {
        let start = std::time::Instant::now();
        let out = f(&mut *self.inner)?;
        let mut total = self.total.lock().expect("not poisoned");
        total.seconds += start.elapsed().as_secs_f64();
        total.entries += vectors(&out) * self.entries;
        Ok(out)
    }
}

impl Sweeps for Timed<'_> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn vector(&mut self, values: &[f64]) -> Result<Slot, CheckError> {
        self.time(|s| s.vector(values), |_| 0)
    }

    fn values(&mut self, v: Slot) -> Result<Vec<f64>, CheckError> {
        self.time(|s| s.values(v), |_| 0)
    }

    fn interval_sweeps(
        &mut self,
        opt: Opt,
        lower: Slot,
        upper: Slot,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        self.time(|s| s.interval_sweeps(opt, lower, upper, settings, max), |out| 2 * out.0)
    }

    fn vi_sweeps(
        &mut self,
        opt: Opt,
        x: Slot,
        monotone: bool,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        self.time(|s| s.vi_sweeps(opt, x, monotone, settings, max), |out| out.0)
    }

    fn probe(&mut self, opt: Opt, lower: Slot, upper: Slot) -> Result<Probe, CheckError> {
        self.time(|s| s.probe(opt, lower, upper), |_| 2)
    }

    fn guess(&mut self, lower: Slot, upper: Slot, settings: &Settings) -> Result<(), CheckError> {
        self.time(|s| s.guess(lower, upper, settings), |_| 0)
    }

    fn sweeps(&mut self, opt: Opt, x: Slot, k: u64) -> Result<(), CheckError> {
        self.time(|s| s.sweeps(opt, x, k), |_| k)
    }

    fn weighted(&mut self, x: Slot, weights: &[f64]) -> Result<Slot, CheckError> {
        self.time(|s| s.weighted(x, weights), |_| weights.len().saturating_sub(1) as u64)
    }
}
