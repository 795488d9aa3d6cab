//! The sweeps of warpcheck's probabilistic solvers on a CUDA GPU (Sulewski's GPU
//! value iteration, digest 003b part V, for today's devices): interval iteration,
//! optimistic and plain value iteration, step-bounded sweeps and uniformisation, as a
//! [`warpcheck_markov::check::Engine`].
//!
//! [`GpuEngine::open`] uploads a system once (the row-grouped matrix: group and row
//! offsets as `u64`, columns `u32`, values and row constants `f64`); the vectors stay on
//! the device. A sweep is one kernel over the unknowns (sweeps.cu). Iterations that
//! stop on convergence run in batches of [`BATCH`] kernels per round trip: each sweep
//! raises a flag of its own when some unknown has not converged, and a sweep whose
//! predecessor's flag is clear returns at once; the host reads the batch's flags and
//! takes the vectors of the first converged sweep (double buffers, by parity). With
//! rows computed in the CPU's order without fused multiply-add, the values and sweep
//! counts are `Cores::jacobi`'s, bit for bit. [`GpuEngine::in_place`] updates interval
//! and value iteration's vectors in place instead (sound; timing-dependent).
//!
//! The same engine runs over [`host::Host`] (sweeps.cu compiled for the host), which is
//! how the tests check it without a GPU.
//!
//! [`builder`]: the models themselves built on the GPU (explored by the exploration
//! engine, weighed by weigh.cu, assembled on the CPU cores), equal to the CPU
//! builder's.

pub mod builder;
pub mod host;
pub mod lanes;
pub mod mec;

use std::sync::Arc;

use lanes::{Kernel, Lanes, MkIter, MkSystem};
use warpcheck_markov::check::engine::{Engine, Probe, Slot, Sweeps};
use warpcheck_markov::check::property::Opt;
use warpcheck_markov::check::solve::{Settings, System};
use warpcheck_markov::check::CheckError;

pub use builder::{build_gpu, GpuBuild, GpuBuildError, GpuBuildOptions};
pub use lanes::Cuda;

/// Sweeps enqueued per round trip when iterating to convergence.
pub const BATCH: u32 = 64;

/// Device memory left to the context and the module beyond a system's buffers.
const RESERVE: u64 = 256 << 20;

/// The engine over some [`Lanes`]: [`GpuEngine::cuda`] for a device.
pub struct GpuEngine<L: Lanes> {
    lanes: Arc<L>,
    batch: u32,
    in_place: bool,
}

impl<L: Lanes> std::fmt::Debug for GpuEngine<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuEngine({}, batch {}, in place {})", self.lanes.name(), self.batch, self.in_place)
    }
}

impl GpuEngine<Cuda> {
    /// The engine on CUDA device `ordinal`.
    pub fn cuda(ordinal: usize) -> Result<GpuEngine<Cuda>, String> {
        Ok(GpuEngine::new(Cuda::open(ordinal)?))
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        self.lanes.device_name()
    }
}

impl<L: Lanes> GpuEngine<L> {
    /// Jacobi sweeps throughout (the default): the same bits and sweep counts as
    /// `warpcheck_markov::check::Cores::jacobi`.
    pub fn new(lanes: L) -> GpuEngine<L> {
        GpuEngine { lanes: Arc::new(lanes), batch: BATCH, in_place: false }
    }

    /// Interval and value iteration in place: sound, but the sweep counts and last
    /// bits depend on the threads' timing (and on an H100 they save under 5% of the
    /// sweeps: threads read few values written in the same sweep).
    pub fn in_place(mut self) -> GpuEngine<L> {
        self.in_place = true;
        self
    }

    /// Sweeps per round trip (at least 1), for tests of the batch boundaries.
    pub fn with_batch(mut self, batch: u32) -> GpuEngine<L> {
        self.batch = batch.max(1);
        self
    }
}

impl<L: Lanes + Send + Sync + 'static> Engine for GpuEngine<L>
where
    L::Buf: 'static,
{
    fn name(&self) -> &'static str {
        self.lanes.name()
    }

    fn open<'a>(&self, sys: &'a System) -> Result<Box<dyn Sweeps + 'a>, CheckError> {
        let sweeps = DeviceSweeps::new(self.lanes.clone(), sys, self.batch, self.in_place);
        Ok(Box::new(sweeps.map_err(CheckError::Device)?))
    }
}

fn bytes_of_f64(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_of_u64(v: impl IntoIterator<Item = usize>) -> Vec<u8> {
    v.into_iter().flat_map(|x| (x as u64).to_le_bytes()).collect()
}

fn bytes_of_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A system on the lanes: the matrix, the vectors (slots) and two scratch vectors.
struct DeviceSweeps<L: Lanes> {
    lanes: Arc<L>,
    n: usize,
    sys: MkSystem,
    _matrix: Vec<L::Buf>,
    slots: Vec<L::Buf>,
    scratch: [L::Buf; 2],
    /// One flag per sweep of a batch, and the one before it.
    flags: L::Buf,
    batch: u32,
    /// Interval and value iteration update their vectors in place.
    in_place: bool,
}

impl<L: Lanes> DeviceSweeps<L> {
    fn new(lanes: Arc<L>, sys: &System, batch: u32, in_place: bool) -> Result<DeviceSweeps<L>, String> {
        let n = sys.len();
        // The matrix, two scratch vectors and, for the solvers, up to four vectors.
        let (rows, entries) = (sys.b.len() as u64, sys.columns.len() as u64);
        let need = 8 * (n as u64 + 1) + 16 * (rows + 1) + 12 * entries + 48 * n as u64 + RESERVE;
        if let Some(free) = lanes.free_memory() {
            if need > free {
                return Err(format!(
                    "the system of {n} unknowns and {entries} matrix entries needs about {need} bytes of device \
                     memory, {free} are free (use --backend cpu)"
                ));
            }
        }
        let matrix = vec![
            lanes.upload(&bytes_of_u64(sys.groups.iter().copied()))?,
            lanes.upload(&bytes_of_u64(sys.starts.iter().copied()))?,
            lanes.upload(&bytes_of_u32(&sys.columns))?,
            lanes.upload(&bytes_of_f64(&sys.values))?,
            lanes.upload(&bytes_of_f64(&sys.b))?,
        ];
        let mk = MkSystem {
            groups: lanes.addr(&matrix[0]),
            starts: lanes.addr(&matrix[1]),
            columns: lanes.addr(&matrix[2]),
            values: lanes.addr(&matrix[3]),
            b: lanes.addr(&matrix[4]),
            n: n as u64,
        };
        let scratch = [lanes.zeros(8 * n)?, lanes.zeros(8 * n)?];
        let flags = lanes.zeros(4 * (batch as usize + 1))?;
        Ok(DeviceSweeps { lanes, n, sys: mk, _matrix: matrix, slots: Vec::new(), scratch, flags, batch, in_place })
    }

    fn addr(&self, v: Slot) -> u64 {
        self.lanes.addr(&self.slots[v.0])
    }

    fn scratch(&self, k: usize) -> u64 {
        self.lanes.addr(&self.scratch[k])
    }

    /// The addresses of `a` (and `b`) at parity `p`: the slots at 0, the scratch at 1.
    fn at(&self, p: u64, a: Slot, b: Option<Slot>) -> (u64, u64) {
        if p.is_multiple_of(2) {
            (self.addr(a), b.map_or(0, |b| self.addr(b)))
        } else {
            (self.scratch(0), if b.is_some() { self.scratch(1) } else { 0 })
        }
    }

    /// After an odd number of sweeps the vectors are in the scratch: swap them in.
    fn settle(&mut self, sweeps: u64, a: Slot, b: Option<Slot>) {
        if sweeps % 2 == 1 {
            std::mem::swap(&mut self.slots[a.0], &mut self.scratch[0]);
            if let Some(b) = b {
                std::mem::swap(&mut self.slots[b.0], &mut self.scratch[1]);
            }
        }
    }

    fn iter(&self) -> MkIter {
        MkIter { flags: self.lanes.addr(&self.flags), ..MkIter::default() }
    }

    fn launch(&self, kernel: Kernel, it: &MkIter) -> Result<(), CheckError> {
        // SAFETY: every address in `self.sys` is of the matrix buffers this value
        // owns, sized by the system; the vectors in `it` are slots or scratch vectors
        // of `n` doubles (or the flags, `batch + 1` words, and a guarded sweep's slot
        // is at most `batch`), all alive in `self`; `at` gives a kernel's reads and its
        // writes different parities, so no buffer is both.
        unsafe { self.lanes.launch(kernel, self.n as u64, &self.sys, it) }.map_err(CheckError::Device)
    }

    fn set_flags(&mut self, first: u32) -> Result<(), CheckError> {
        let mut words = vec![0u32; self.batch as usize + 1];
        words[0] = first;
        self.lanes.write(&mut self.flags, 0, &bytes_of_u32(&words)).map_err(CheckError::Device)
    }

    fn read_flags(&self, count: usize) -> Result<Vec<u32>, CheckError> {
        let mut bytes = vec![0u8; 4 * count];
        self.lanes.download(&self.flags, &mut bytes).map_err(CheckError::Device)?;
        Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    /// Runs batches of `kernel` (interval or value iteration, over `a` and maybe `b`)
    /// until a sweep's flag is clear or `max` sweeps were taken, after `flags[0]`
    /// was set for the state before the first. The sweeps taken and whether the last
    /// converged.
    fn converge(
        &mut self,
        kernel: Kernel,
        template: MkIter,
        a: Slot,
        b: Option<Slot>,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        let mut done = 0u64;
        loop {
            let batch = (max - done).min(self.batch as u64);
            for j in 1..=batch {
                // In place, every sweep reads and writes the slots themselves.
                let (x, y) = self.at(if self.in_place { 0 } else { j - 1 }, a, b);
                let (nx, ny) = if self.in_place { (x, y) } else { self.at(j, a, b) };
                let it = MkIter { x, y, nx, ny, slot: j as u32, guard: 1, ..template };
                self.launch(kernel, &it)?;
            }
            let flags = self.read_flags(batch as usize + 1)?;
            if let Some(j) = flags.iter().position(|&f| f == 0) {
                if !self.in_place {
                    self.settle(j as u64, a, b);
                }
                return Ok((done + j as u64, true));
            }
            done += batch;
            if !self.in_place {
                self.settle(batch, a, b);
            }
            if done >= max {
                return Ok((done, false));
            }
            self.set_flags(1)?;
        }
    }
}

fn opt_max(opt: Opt) -> u32 {
    u32::from(opt == Opt::Max)
}

impl<L: Lanes> Sweeps for DeviceSweeps<L> {
    fn len(&self) -> usize {
        self.n
    }

    fn vector(&mut self, values: &[f64]) -> Result<Slot, CheckError> {
        let buf = self.lanes.upload(&bytes_of_f64(values)).map_err(CheckError::Device)?;
        self.slots.push(buf);
        Ok(Slot(self.slots.len() - 1))
    }

    fn values(&mut self, v: Slot) -> Result<Vec<f64>, CheckError> {
        let mut bytes = vec![0u8; 8 * self.n];
        self.lanes.download(&self.slots[v.0], &mut bytes).map_err(CheckError::Device)?;
        Ok(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
    }

    fn interval_sweeps(
        &mut self,
        opt: Opt,
        lower: Slot,
        upper: Slot,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        self.set_flags(0)?;
        let template = MkIter {
            precision: settings.precision,
            relative: u32::from(settings.relative),
            max: opt_max(opt),
            ..self.iter()
        };
        let check = MkIter { x: self.addr(lower), y: self.addr(upper), slot: 0, ..template };
        self.launch(Kernel::Check, &check)?;
        if max == 0 {
            return Ok((0, self.read_flags(1)?[0] == 0));
        }
        self.converge(Kernel::Interval, template, lower, Some(upper), max)
    }

    fn vi_sweeps(
        &mut self,
        opt: Opt,
        x: Slot,
        monotone: bool,
        settings: &Settings,
        max: u64,
    ) -> Result<(u64, bool), CheckError> {
        self.set_flags(1)?;
        let template = MkIter {
            precision: settings.precision,
            relative: u32::from(settings.relative),
            max: opt_max(opt),
            monotone: u32::from(monotone),
            ..self.iter()
        };
        self.converge(Kernel::Value, template, x, None, max.max(1))
    }

    fn probe(&mut self, opt: Opt, lower: Slot, upper: Slot) -> Result<Probe, CheckError> {
        self.set_flags(0)?;
        let it = MkIter {
            x: self.addr(lower),
            nx: self.scratch(0),
            y: self.addr(upper),
            ny: self.scratch(1),
            max: opt_max(opt),
            ..self.iter()
        };
        self.launch(Kernel::Probe, &it)?;
        let flags = self.read_flags(2)?;
        let probe = Probe { inductive: flags[0] == 0, rising: flags[1] == 0 };
        std::mem::swap(&mut self.slots[lower.0], &mut self.scratch[0]);
        if !probe.inductive {
            std::mem::swap(&mut self.slots[upper.0], &mut self.scratch[1]);
        }
        Ok(probe)
    }

    fn guess(&mut self, lower: Slot, upper: Slot, settings: &Settings) -> Result<(), CheckError> {
        let it = MkIter {
            x: self.addr(lower),
            nx: self.addr(upper),
            precision: settings.precision,
            relative: u32::from(settings.relative),
            ..self.iter()
        };
        self.launch(Kernel::Guess, &it)
    }

    fn sweeps(&mut self, opt: Opt, x: Slot, k: u64) -> Result<(), CheckError> {
        for j in 1..=k {
            let (from, _) = self.at(j - 1, x, None);
            let (to, _) = self.at(j, x, None);
            self.launch(Kernel::Sweep, &MkIter { x: from, nx: to, max: opt_max(opt), ..self.iter() })?;
        }
        self.settle(k, x, None);
        Ok(())
    }

    fn weighted(&mut self, x: Slot, weights: &[f64]) -> Result<Slot, CheckError> {
        let sum = self.vector(&vec![0.0; self.n])?;
        let sum_addr = self.addr(sum);
        let last = weights.len().saturating_sub(1) as u64;
        for (k, &w) in weights.iter().enumerate() {
            let k = k as u64;
            let (from, _) = self.at(k, x, None);
            if k < last {
                let (to, _) = self.at(k + 1, x, None);
                let it = MkIter { x: from, nx: to, sum: sum_addr, weight: w, max: 1, ..self.iter() };
                self.launch(Kernel::Sweep, &it)?;
            } else if w > 0.0 {
                self.launch(Kernel::Add, &MkIter { x: from, sum: sum_addr, weight: w, ..self.iter() })?;
            }
        }
        self.settle(last, x, None);
        Ok(sum)
    }
}
