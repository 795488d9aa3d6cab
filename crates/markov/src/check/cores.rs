//! [`Cores`], the CPU engine: sweeps on all cores (rayon's current pool).
//!
//! Interval and value iteration run **in place** by default: blocks of unknowns in
//! parallel, from the last block down, each block in decreasing order, every update
//! reading the latest values (Gauss-Seidel within a block, chaotic across blocks). That
//! is sound for interval iteration: each update applies the monotone operator to a
//! vector below the least fixpoint (above the greatest), so it stays there, and it
//! converges in no more sweeps than Jacobi's; but the sweep counts and last bits then
//! depend on the threads' timing. [`Cores::jacobi`] sweeps from one vector into another,
//! as the GPU engine does, with the same bits and sweep counts. Step-bounded sweeps and
//! weighted sums are always Jacobi sweeps.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::engine::{Engine, Probe, Slot, Sweeps, ROUNDING};
use super::property::Opt;
use super::solve::{Settings, System};
use super::CheckError;

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
