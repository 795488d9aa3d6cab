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
//! order, no fused multiply-add). [`Cores`] runs interval and value iteration **in
//! place** by default (blocks of unknowns in parallel, each in decreasing order, every
//! update reading the latest values: Gauss-Seidel within a block, chaotic across
//! blocks). That is sound for interval iteration: each update applies the monotone
//! operator to a vector below the least fixpoint (above the greatest), so it stays
//! there, and it converges in no more sweeps than Jacobi's; but the sweep counts and
//! last bits then depend on the threads' timing. [`Cores::jacobi`] (Jacobi sweeps, as
//! the GPU engine runs them) gives the same bits and sweep counts as the GPU.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

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

/// All CPU cores (rayon's current pool); interval and value iteration in place unless
/// [`Cores::jacobi`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Cores {
    jacobi: bool,
}

impl Cores {
    /// Jacobi sweeps throughout: the GPU engine's bits and sweep counts.
    pub fn jacobi() -> Cores {
        Cores { jacobi: true }
    }
}

impl Engine for Cores {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn open<'a>(&self, sys: &'a System) -> Result<Box<dyn Sweeps + 'a>, CheckError> {
        let (next, other) = (vec![0.0; sys.len()], vec![0.0; sys.len()]);
        Ok(Box::new(HostSweeps { sys, slots: Vec::new(), next, other, in_place: !self.jacobi }))
    }
}

/// [`Cores`]' vectors: slots of host vectors and two scratch vectors.
struct HostSweeps<'a> {
    sys: &'a System,
    slots: Vec<Vec<f64>>,
    next: Vec<f64>,
    other: Vec<f64>,
    in_place: bool,
}

/// Unknowns per block of an in-place sweep.
const BLOCK: usize = 2048;

/// A vector of `f64` shared by the threads of an in-place sweep.
fn shared(v: &mut [f64]) -> &[AtomicU64] {
    const _: () = assert!(
        std::mem::size_of::<AtomicU64>() == std::mem::size_of::<f64>()
            && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<f64>()
    );
    // SAFETY: `AtomicU64` has the size and (asserted above) the alignment of `f64`, and
    // every bit pattern is valid for both; the exclusive borrow of `v` keeps any other
    // access out for as long as the atomics are used.
    unsafe { &*(v as *mut [f64] as *const [AtomicU64]) }
}

fn get(x: &[AtomicU64], i: usize) -> f64 {
    f64::from_bits(x[i].load(Relaxed))
}

fn set(x: &[AtomicU64], i: usize, v: f64) {
    x[i].store(v.to_bits(), Relaxed);
}

/// One in-place pass over blocks of the unknowns in parallel, from the last block
/// down, each block in decreasing order (successors tend to have larger numbers); `update(i)` returns whether unknown `i` is done. Whether all were.
fn in_place(n: usize, update: impl Fn(usize) -> bool + Sync) -> bool {
    (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .rev()
        .map(|b| {
            let mut done = true;
            for i in (b * BLOCK..n.min((b + 1) * BLOCK)).rev() {
                done &= update(i);
            }
            done
        })
        .reduce(|| true, |a, b| a && b)
}

impl HostSweeps<'_> {
    /// Moves slot `a` out (put it back with [`HostSweeps::put`]).
    fn take(&mut self, a: Slot) -> Vec<f64> {
        std::mem::take(&mut self.slots[a.0])
    }

    fn put(&mut self, a: Slot, v: Vec<f64>) {
        self.slots[a.0] = v;
    }
}

fn all(a: &[f64], b: &[f64], test: impl Fn(f64, f64) -> bool + Sync) -> bool {
    a.par_iter().zip(b).with_min_len(4096).all(|(&x, &y)| test(x, y))
}

impl Sweeps for HostSweeps<'_> {
    fn len(&self) -> usize {
        self.sys.len()
    }

    fn vector(&mut self, values: &[f64]) -> Result<Slot, CheckError> {
        self.slots.push(values.to_vec());
        Ok(Slot(self.slots.len() - 1))
    }

    fn values(&mut self, v: Slot) -> Result<Vec<f64>, CheckError> {
        Ok(self.slots[v.0].clone())
    }

    fn interval_sweeps(
        &mut self,
        opt: Opt,
        lower: Slot,
        upper: Slot,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        let (mut l, mut u) = (self.take(lower), self.take(upper));
        let mut sweeps = 0;
        let tight = loop {
            if all(&l, &u, |a, b| settings.tight(a, b)) {
                break true;
            }
            if sweeps >= max {
                break false;
            }
            if self.in_place {
                let (sys, ls, us) = (self.sys, shared(&mut l), shared(&mut u));
                let tight = in_place(sys.len(), |i| {
                    let lo = get(ls, i).max(sys.step_with(i, opt, |j| get(ls, j)));
                    let hi = get(us, i).min(sys.step_with(i, opt, |j| get(us, j)));
                    set(ls, i, lo);
                    set(us, i, hi);
                    settings.tight(lo, hi)
                });
                sweeps += 1;
                if tight {
                    break true;
                }
                continue;
            }
            self.sys.sweep(opt, &l, &mut self.next);
            self.sys.sweep(opt, &u, &mut self.other);
            // Monotone: a sweep of a sound bound is a sound bound, and so is the better
            // of the two.
            l.par_iter_mut().zip(&self.next).for_each(|(l, &n)| *l = l.max(n));
            u.par_iter_mut().zip(&self.other).for_each(|(u, &n)| *u = u.min(n));
            sweeps += 1;
        };
        self.put(lower, l);
        self.put(upper, u);
        Ok((sweeps, tight))
    }

    fn vi_sweeps(
        &mut self,
        opt: Opt,
        x: Slot,
        monotone: bool,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        let mut v = self.take(x);
        let mut sweeps = 0;
        let settled = loop {
            if self.in_place {
                let (sys, xs) = (self.sys, shared(&mut v));
                let done = in_place(sys.len(), |i| {
                    let (old, f) = (get(xs, i), sys.step_with(i, opt, |j| get(xs, j)));
                    set(xs, i, if monotone { old.max(f) } else { f });
                    settings.close(old, f)
                });
                sweeps += 1;
                if done || sweeps >= max {
                    break done;
                }
                continue;
            }
            self.sys.sweep(opt, &v, &mut self.next);
            sweeps += 1;
            let done = all(&v, &self.next, |a, b| settings.close(a, b));
            if monotone {
                v.par_iter_mut().zip(&self.next).for_each(|(x, &n)| *x = x.max(n));
            } else {
                std::mem::swap(&mut v, &mut self.next);
            }
            if done || sweeps >= max {
                break done;
            }
        };
        self.put(x, v);
        Ok((sweeps, settled))
    }

    fn probe(&mut self, opt: Opt, lower: Slot, upper: Slot) -> Result<Probe, CheckError> {
        let (mut l, mut u) = (self.take(lower), self.take(upper));
        self.sys.sweep(opt, &u, &mut self.other);
        self.sys.sweep(opt, &l, &mut self.next);
        l.par_iter_mut().zip(&self.next).for_each(|(l, &n)| *l = l.max(n));
        // Up to the rounding of the sweep itself (a few ulps).
        let inductive = all(&u, &self.other, |u, f| f <= u + u.abs() * ROUNDING);
        let rising = all(&u, &self.other, |u, f| f >= u);
        if !inductive {
            std::mem::swap(&mut u, &mut self.other);
        }
        self.put(lower, l);
        self.put(upper, u);
        Ok(Probe { inductive, rising })
    }

    fn guess(&mut self, lower: Slot, upper: Slot, settings: &Settings) -> Result<(), CheckError> {
        let guessed: Vec<f64> = self.slots[lower.0].par_iter().map(|&l| settings.guess(l)).collect();
        self.put(upper, guessed);
        Ok(())
    }

    fn sweeps(&mut self, opt: Opt, x: Slot, k: u64) -> Result<(), CheckError> {
        let mut v = self.take(x);
        for _ in 0..k {
            self.sys.sweep(opt, &v, &mut self.next);
            std::mem::swap(&mut v, &mut self.next);
        }
        self.put(x, v);
        Ok(())
    }

    fn weighted(&mut self, x: Slot, weights: &[f64]) -> Result<Slot, CheckError> {
        let mut v = self.take(x);
        let mut sum = vec![0.0; v.len()];
        for (k, &w) in weights.iter().enumerate() {
            if w > 0.0 {
                sum.par_iter_mut().zip(&v).with_min_len(4096).for_each(|(s, &x)| *s += w * x);
            }
            if k + 1 < weights.len() {
                self.sys.sweep(Opt::Max, &v, &mut self.next);
                std::mem::swap(&mut v, &mut self.next);
            }
        }
        self.put(x, v);
        self.vector(&sum)
    }
}

fn not_converged(iterations: u64) -> CheckError {
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
