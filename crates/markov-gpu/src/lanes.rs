//! Where `sweeps.cu` and `mec.cu` run: [`Lanes`] is memory and kernel launches,
//! [`Cuda`] a CUDA device (NVRTC-compiled, one stream), [`crate::host::Host`] the host
//! (the source compiled as C++ with one-thread stand-ins, for the tests).

use warpcheck_cuda::driver::{CudaFunction, CudaSlice, DeviceRepr};
use warpcheck_cuda::{device_ptr, grid, Device, KernelArg};

/// The system as the kernels see it (`MkSystem` in sweeps.cu, field for field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MkSystem {
    pub groups: u64,
    pub starts: u64,
    pub columns: u64,
    pub values: u64,
    pub b: u64,
    pub n: u64,
}

/// One launch's vectors and settings (`MkIter` in sweeps.cu, field for field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MkIter {
    pub x: u64,
    pub nx: u64,
    pub y: u64,
    pub ny: u64,
    pub sum: u64,
    pub flags: u64,
    pub precision: f64,
    pub weight: f64,
    pub slot: u32,
    pub max: u32,
    pub relative: u32,
    pub monotone: u32,
    pub guard: u32,
    pub unused: u32,
}

/// The arguments of mec.cu's kernels (`MeArgs`, field for field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MeArgs {
    pub groups: u64,
    pub starts: u64,
    pub columns: u64,
    pub label: u64,
    pub colour: u64,
    pub active: u64,
    pub mark: u64,
    pub live: u64,
    pub poffs: u64,
    pub psrc: u64,
    pub prow: u64,
    pub cursor: u64,
    pub dirty: u64,
    pub flags: u64,
    pub n: u64,
    pub pivot: u64,
    pub slot: u32,
    pub guard: u32,
}

// SAFETY: `#[repr(C)]` with six `u64` fields, as `MkSystem` in sweeps.cu has six 64-bit
// fields (five pointers and a count) in that order: the same 48 bytes, no padding.
unsafe impl DeviceRepr for MkSystem {}
// SAFETY: `#[repr(C)]` with six `u64`, two `f64` and six `u32` fields, in the order and
// of the sizes of `MkIter`'s six pointers, two doubles and six unsigned: 88 bytes, no
// padding in either.
unsafe impl DeviceRepr for MkIter {}
// SAFETY: `#[repr(C)]` with sixteen `u64` and two `u32` fields, in the order and of
// the sizes of `MeArgs`'s fourteen pointers, two 64-bit numbers and two unsigned: 136
// bytes, no padding in either.
unsafe impl DeviceRepr for MeArgs {}

/// The kernels of sweeps.cu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Check,
    Interval,
    Value,
    Probe,
    Guess,
    Sweep,
    Add,
}

impl Kernel {
    pub const ALL: [Kernel; 7] =
        [Kernel::Check, Kernel::Interval, Kernel::Value, Kernel::Probe, Kernel::Guess, Kernel::Sweep, Kernel::Add];

    /// The kernel's name in sweeps.cu.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Check => "mk_check",
            Kernel::Interval => "mk_interval",
            Kernel::Value => "mk_value",
            Kernel::Probe => "mk_probe",
            Kernel::Guess => "mk_guess",
            Kernel::Sweep => "mk_sweep",
            Kernel::Add => "mk_add",
        }
    }
}

/// The kernels of mec.cu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MecKernel {
    Indegree,
    Scatter,
    Disable,
    FbStart,
    FbSplit,
    Start,
    Colour,
    Root,
    Mark,
    Relabel,
}

impl MecKernel {
    pub const ALL: [MecKernel; 10] = [
        MecKernel::Indegree,
        MecKernel::Scatter,
        MecKernel::Disable,
        MecKernel::FbStart,
        MecKernel::FbSplit,
        MecKernel::Start,
        MecKernel::Colour,
        MecKernel::Root,
        MecKernel::Mark,
        MecKernel::Relabel,
    ];

    /// The kernel's name in mec.cu.
    pub fn name(self) -> &'static str {
        match self {
            MecKernel::Indegree => "me_indegree",
            MecKernel::Scatter => "me_scatter",
            MecKernel::Disable => "me_disable",
            MecKernel::FbStart => "me_fb_start",
            MecKernel::FbSplit => "me_fb_split",
            MecKernel::Start => "me_start",
            MecKernel::Colour => "me_colour",
            MecKernel::Root => "me_root",
            MecKernel::Mark => "me_mark",
            MecKernel::Relabel => "me_relabel",
        }
    }
}

/// Memory and launches of one place where the kernels run. Buffers are bytes; a
/// buffer's [`Lanes::addr`] goes into [`MkSystem`] and [`MkIter`]. Work is ordered as
/// it is enqueued; [`Lanes::download`] waits for it.
pub trait Lanes {
    type Buf;
    /// A short name of the place (`"gpu"`).
    fn name(&self) -> &'static str;
    /// Free memory in bytes, where it is limited.
    fn free_memory(&self) -> Option<u64> {
        None
    }
    fn upload(&self, bytes: &[u8]) -> Result<Self::Buf, String>;
    fn zeros(&self, bytes: usize) -> Result<Self::Buf, String>;
    /// Copies the whole buffer into `out` (of its length), after all enqueued work.
    fn download(&self, buf: &Self::Buf, out: &mut [u8]) -> Result<(), String>;
    /// Overwrites `bytes.len()` bytes at `offset`.
    fn write(&self, buf: &mut Self::Buf, offset: usize, bytes: &[u8]) -> Result<(), String>;
    fn addr(&self, buf: &Self::Buf) -> u64;
    /// Enqueues `kernel` over `n` unknowns.
    ///
    /// # Safety
    /// Every address in `sys` and `it` is of a live buffer of these lanes, large
    /// enough for what `kernel` reads and writes there (sweeps.cu: `n` unknowns, the
    /// system's rows and entries, the flags up to `slot`), and no buffer written by
    /// the kernel is one it reads as another vector.
    unsafe fn launch(&self, kernel: Kernel, n: u64, sys: &MkSystem, it: &MkIter) -> Result<(), String>;
    /// Enqueues mec.cu's `kernel` over `args.n` states.
    ///
    /// # Safety
    /// Every address in `args` is of a live buffer of these lanes, large enough for
    /// what the kernel reads and writes there (mec.cu: `n` states, their rows and
    /// entries, the flags up to `slot`).
    unsafe fn launch_mec(&self, kernel: MecKernel, args: &MeArgs) -> Result<(), String>;
}

/// The kernels' source: the sweeps, then the MEC decomposition's kernels.
pub const SOURCE: &str = concat!(include_str!("sweeps.cu"), include_str!("mec.cu"));

/// Threads per block.
const BLOCK: u32 = 256;

/// A CUDA device with sweeps.cu loaded.
pub struct Cuda {
    device: Device,
    kernels: Vec<CudaFunction>,
    mec_kernels: Vec<CudaFunction>,
    max_blocks: u32,
}

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Cuda {
    /// Opens device `ordinal` and loads the kernels (compiled without fused
    /// multiply-add: the CPU's rounding).
    pub fn open(ordinal: usize) -> Result<Cuda, String> {
        let device = Device::open(ordinal).map_err(text)?;
        let module = device.load(SOURCE, &["--fmad=false".to_string()]).map_err(text)?;
        let kernels = Kernel::ALL.iter().map(|k| module.function(k.name()).map_err(text)).collect::<Result<_, _>>()?;
        let mec_kernels =
            MecKernel::ALL.iter().map(|k| module.function(k.name()).map_err(text)).collect::<Result<_, _>>()?;
        let max_blocks = device.multiprocessors() * 8;
        Ok(Cuda { device, kernels, mec_kernels, max_blocks })
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        self.device.name()
    }
}

impl Lanes for Cuda {
    type Buf = CudaSlice<u8>;

    fn name(&self) -> &'static str {
        "gpu"
    }

    fn free_memory(&self) -> Option<u64> {
        self.device.free_memory().ok()
    }

    fn upload(&self, bytes: &[u8]) -> Result<CudaSlice<u8>, String> {
        if bytes.is_empty() {
            return self.zeros(0);
        }
        self.device.stream().clone_htod(bytes).map_err(text)
    }

    fn zeros(&self, bytes: usize) -> Result<CudaSlice<u8>, String> {
        self.device.stream().alloc_zeros::<u8>(bytes.max(8)).map_err(text)
    }

    fn download(&self, buf: &CudaSlice<u8>, out: &mut [u8]) -> Result<(), String> {
        let stream = self.device.stream();
        if !out.is_empty() {
            stream.memcpy_dtoh(&buf.slice(0..out.len()), out).map_err(text)?;
        }
        stream.synchronize().map_err(text)
    }

    fn write(&self, buf: &mut CudaSlice<u8>, offset: usize, bytes: &[u8]) -> Result<(), String> {
        let mut view = buf.slice_mut(offset..offset + bytes.len());
        self.device.stream().memcpy_htod(bytes, &mut view).map_err(text)
    }

    fn addr(&self, buf: &CudaSlice<u8>) -> u64 {
        device_ptr(buf, self.device.stream())
    }

    unsafe fn launch(&self, kernel: Kernel, n: u64, sys: &MkSystem, it: &MkIter) -> Result<(), String> {
        let cfg = grid(n, BLOCK, self.max_blocks);
        let args: [&dyn KernelArg; 2] = [sys, it];
        let function = &self.kernels[kernel as usize];
        // SAFETY: `warpcheck_cuda::launch`'s contract: (1) every kernel of sweeps.cu
        // takes `(MkSystem, MkIter)` by value, whose layouts the `DeviceRepr` impls
        // above match; (2, 3) the caller guarantees that the addresses are of live
        // buffers of this device large enough for the kernel (this function's
        // contract), and the kernels stay below `n` unknowns (grid-stride) and the
        // system's offsets; (4) the host touches the buffers only by copies on the
        // same stream.
        unsafe { warpcheck_cuda::launch(self.device.stream(), function, cfg, &args) }.map_err(text)
    }

    unsafe fn launch_mec(&self, kernel: MecKernel, args: &MeArgs) -> Result<(), String> {
        let cfg = grid(args.n, BLOCK, self.max_blocks);
        let function = &self.mec_kernels[kernel as usize];
        // SAFETY: `warpcheck_cuda::launch`'s contract: (1) every kernel of mec.cu takes
        // one `MeArgs` by value, whose layout the `DeviceRepr` impl above matches; (2,
        // 3) the caller guarantees that the addresses are of live buffers of this
        // device large enough for the kernel (this function's contract), and the
        // kernels stay below `n` states (grid-stride) and the model's offsets; (4) the
        // host touches the buffers only by copies on the same stream.
        unsafe { warpcheck_cuda::launch(self.device.stream(), function, cfg, &[args as &dyn KernelArg]) }.map_err(text)
    }
}
