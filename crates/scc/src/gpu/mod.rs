//! SCC decomposition on the GPU: Forward-Backward with trimming, Coloring and OBF
//! (Češka's thesis, chapter 6; Wijs, Katoen and Bošnački for FB with trimming), on a
//! [`Graph`] whose forward and backward CSR are uploaded once. The kernels are in
//! `scc.cu` (beside this file), compiled with NVRTC at run time and launched through
//! `warpcheck-cuda`; the host emulator of the conformance tests
//! (`tests/tests/gpu_scc_emulator.cpp`) runs the same kernels on the CPU.
//!
//! Owns: [`SccDevice`] (the kernels loaded on a device, for many graphs), the round
//! loop on the host, [`device_bytes`], and the algorithms' GPU names
//! ([`GpuSccAlgorithm`]). Returns the CPU algorithms' [`Components`].
//!
//! **Subgraphs by labels.** Every live vertex carries a label, a vertex id naming its
//! subgraph; an edge is followed only between vertices of the same label, so one launch
//! serves all subgraphs, and the recursion of the algorithms becomes a loop of rounds,
//! each of which advances every subgraph by one step (the thesis's kernel sharing).
//!
//! **Pivots and names by racing writes.** Keys are a bijection of `u32` (murmur3's
//! finaliser, salted per round), so `atomicMax` of the members' keys into a per-label
//! slot picks a pseudo-random member and the winner is recovered from the slot: that is
//! the pivot selection of the thesis (§6.3), with one slot per vertex id, since labels
//! are vertex ids. The children of a subgraph are named the same way, through three
//! slots per label (thesis approach 2's `3i + k`, but indexed by the parent's name, so
//! no renumbering is ever needed): a child's name is one of its members, unique among
//! live subgraphs. Runs are reproducible (no first-writer-wins race decides anything).
//!
//! **A round** (all subgraphs at once): *trimming* to a fixpoint (degrees within the
//! subgraph, then waves: a vertex without predecessors or successors in its subgraph is
//! a trivial component and lowers its neighbours' degrees; self-loops are ignored), then
//! - FB: pivots; forward and backward BFS from them at once (one kernel per level for
//!   both directions); F ∩ B is the pivot's component, F \ B, B \ F and the rest become
//!   three subgraphs.
//! - Coloring: every vertex takes its key as colour; colours are pushed forward along
//!   edges (a vertex keeps the largest) to a fixpoint; a root (a vertex that kept its
//!   own colour) reaches back within its colour class to its component; the rest of
//!   each class becomes a subgraph named by its root.
//! - OBF: subgraphs are *split tasks* or *ranges* (rooted: all reachable from one
//!   root). A split task's pivot's forward closure becomes a range rooted at it, the
//!   rest stays a split task. In a range, trimming is the O step (OWCTY elimination:
//!   a vertex of a rooted range without predecessors is a seed or a successor of an
//!   eliminated vertex); the B step is the backward closure of the *reached* vertices
//!   (touched by elimination, not eliminated) = the slice, a new split task; the F step
//!   marks the slice's successors left in the range as the next seeds. All ranges and
//!   split tasks advance together in the same BFS launches.
//!
//! Queues are frontiers (each level touches only the vertices queued), double
//! buffered on the device by the parity of a level counter, so the host enqueues many
//! levels at once (8, doubling to 512 per round trip) and reads back one control block.
//!
//! **Departures from the papers and errata fixed.** Backward reachability has its own
//! visited bit (thesis Alg. 22 passes `visited.f` to both, erratum 4); neighbour ranges
//! are half open (erratum 6); colours are pushed forward and the closure that extracts
//! a component runs backward (Alg. 24 pulls from successors, erratum 5); colours are
//! salted keys, not raw ids, so that BFS-ordered state graphs do not always pick the
//! deepest vertex. OBF is not the thesis's single phase-switching kernel with host
//! "interruptions" (Alg. 25/26) but the same O, B and F steps as level-synchronous
//! phases of a round shared by all ranges; its slices are split by new split tasks,
//! and the first slice of a range whose root survives elimination is the root's
//! component (it is then the root's backward closure within its forward closure).
//! Trimming runs at the start of every round, in every algorithm.
//!
//! **FB, then Coloring** (`fb-coloring`, a GPU-only algorithm): FB rounds while each
//! removes at least half of the live vertices (one giant component: FB's best case),
//! then Coloring rounds for the rest (many components, often in long chains: one colour
//! propagation splits every chain at once, where FB peels one component per subgraph
//! per round). The labels of both are vertex ids naming subgraphs, so Coloring simply
//! continues on FB's subgraphs, and the partition is exact whatever the switch point.
//! On graphs where every FB round removes at least half of the live vertices (ER and
//! R-MAT: one giant component, then trimming) it runs exactly FB's launches. On the
//! state graph of brp.3 (run by the host emulator) FB takes 229 rounds, `fb-coloring`
//! 7; on lamport.5's 170 and 11. It is a separate algorithm rather than FB's default so
//! that both stay measurable.
//!
//! **Cost.** A level costs two launches (`scc_advance` and the queue kernel), a few
//! microseconds, whatever its size: graphs of few large components finish in one or two
//! rounds of tens of levels, but high-diameter ones (long chains of components, as in
//! brp.4's state graph, or a plain chain: one trimming level per vertex) are bound by
//! launches (`benches/results/scc-gpu-h100.md`).
//!
//! **Exactness.** Device memory is sized before anything is allocated; too little is an
//! error naming the bytes needed. Every round removes at least one vertex (OBF: every
//! three rounds), and the host stops with an error (never an answer) if rounds fail to.

use std::sync::Arc;
use std::time::Instant;

use warpcheck_cuda::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig};
use warpcheck_cuda::{device_ptr, grid, CudaError, Device, KernelArg, Timer, ONE_THREAD};
use warpcheck_graph::Graph;

use crate::{Algorithm, Components};

/// The kernels' source.
pub const SOURCE: &str = include_str!("scc.cu");

/// How to decompose on the GPU.
#[derive(Clone, Debug, Default)]
pub struct GpuSccOptions {
    /// CUDA device ordinal.
    pub device: usize,
}

/// Where the time of a GPU decomposition went.
#[derive(Clone, Debug, Default)]
pub struct GpuSccReport {
    pub device_name: String,
    /// NVRTC compilation of the kernels (or the cache lookup) and module load.
    pub compile_seconds: f64,
    /// Allocation and upload of the forward and backward CSR and the per-vertex arrays.
    pub upload_seconds: f64,
    /// The decomposition on the device: CUDA events around all rounds (launches and
    /// the host's reads of the control block between them included).
    pub kernel_seconds: f64,
    /// Copying the components back and normalising them on the host.
    pub download_seconds: f64,
    pub rounds: u64,
    /// `fb-coloring`: the first Coloring round, if it handed over.
    pub coloring_from_round: Option<u64>,
    /// Non-empty levels of the queue-driven phases (trimming waves, BFS levels, colour
    /// propagation levels).
    pub levels: u64,
    pub launches: u64,
    /// Device memory the decomposition allocated.
    pub device_bytes: u64,
}

/// A decomposition and its report.
#[derive(Clone, Debug)]
pub struct GpuScc {
    pub components: Components,
    pub report: GpuSccReport,
}

/// What a GPU decomposition runs: FB with trimming, Coloring and OBF as in
/// [the CPU](crate), or FB handing over to Coloring (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuSccAlgorithm {
    Fb,
    Coloring,
    Obf,
    FbColoring,
}

impl GpuSccAlgorithm {
    pub const ALL: [GpuSccAlgorithm; 4] =
        [GpuSccAlgorithm::Fb, GpuSccAlgorithm::Coloring, GpuSccAlgorithm::Obf, GpuSccAlgorithm::FbColoring];

    /// The name used on the command line and in reports (those of [`Algorithm`] for
    /// the three it shares).
    pub fn name(self) -> &'static str {
        match self {
            GpuSccAlgorithm::Fb => Algorithm::FbTrim.name(),
            GpuSccAlgorithm::Coloring => Algorithm::Coloring.name(),
            GpuSccAlgorithm::Obf => Algorithm::Obf.name(),
            GpuSccAlgorithm::FbColoring => "fb-coloring",
        }
    }

    /// Whether it runs Coloring rounds (and needs the colour arrays).
    fn colours(self) -> bool {
        matches!(self, GpuSccAlgorithm::Coloring | GpuSccAlgorithm::FbColoring)
    }
}

/// A CPU algorithm without a GPU version (Tarjan, which is inherently sequential).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {} algorithm does not run on the GPU; use the CPU", .0.name())]
pub struct NoGpuVersion(pub Algorithm);

impl TryFrom<Algorithm> for GpuSccAlgorithm {
    type Error = NoGpuVersion;

    /// All but Tarjan, which is inherently sequential.
    fn try_from(algorithm: Algorithm) -> Result<GpuSccAlgorithm, NoGpuVersion> {
        match algorithm {
            Algorithm::FbTrim => Ok(GpuSccAlgorithm::Fb),
            Algorithm::Coloring => Ok(GpuSccAlgorithm::Coloring),
            Algorithm::Obf => Ok(GpuSccAlgorithm::Obf),
            Algorithm::Tarjan => Err(NoGpuVersion(algorithm)),
        }
    }
}

/// Decomposes `graph` on the GPU (building its backward edges on the host if needed):
/// [`SccDevice::new`] then [`SccDevice::decompose`].
pub fn decompose_gpu(graph: &Graph, algorithm: GpuSccAlgorithm, options: &GpuSccOptions) -> Result<GpuScc, CudaError> {
    SccDevice::new(options.device)?.decompose(graph, algorithm)
}

/// Device bytes a decomposition of `vertices` vertices and `edges` edges allocates.
pub fn device_bytes(vertices: u64, edges: u64, algorithm: GpuSccAlgorithm) -> u64 {
    let n = vertices;
    // Two CSR directions: offsets (n + 1 u64) and targets (m u32) each.
    let graph = 2 * (8 * (n + 1) + 4 * edges.max(1));
    // label, flags, comp, deg_in, deg_out, slot, child (3n), four queues.
    let per_vertex = 4 * (5 + 1 + 3 + 4);
    let coloring = if algorithm.colours() { 8 } else { 0 };
    graph + (per_vertex + coloring) * n + 64
}

/// The argument block of every kernel (`struct Scc` in scc.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct Args {
    fo: u64,
    ft: u64,
    bo: u64,
    bt: u64,
    label: u64,
    flags: u64,
    comp: u64,
    deg_in: u64,
    deg_out: u64,
    slot: u64,
    child: u64,
    color: u64,
    mark: u64,
    qf0: u64,
    qf1: u64,
    qb0: u64,
    qb1: u64,
    ctl: u64,
    n: u32,
    salt: u32,
}

// SAFETY: `#[repr(C)]` with only `u64` and `u32` fields, in the order and of the types
// of `struct Scc` in scc.cu, so its bytes are the kernels' parameter as it is.
unsafe impl DeviceRepr for Args {}

// Control block words and kernel modes (as in scc.cu).
const IDLE: usize = 5;
const LEVELS: usize = 6;
const LIVE: usize = 7;
const PICK_ALL: u32 = 0;
const PICK_SPLIT: u32 = 1;
const PICK_NONE: u32 = 2;
const SEED_FB: u32 = 0;
const SEED_OBF: u32 = 1;
const SEED_COLOR: u32 = 2;

/// A CUDA context with the SCC kernels loaded: reuse it for many graphs.
pub struct SccDevice {
    device: Device,
    kernels: Kernels,
    pub device_name: String,
    pub compile_seconds: f64,
}

struct Kernels {
    advance: CudaFunction,
    degrees: CudaFunction,
    trim_seed: CudaFunction,
    peel: CudaFunction,
    pick: CudaFunction,
    seed: CudaFunction,
    bfs: CudaFunction,
    fb_name: CudaFunction,
    fb_relabel: CudaFunction,
    color_init: CudaFunction,
    color_push: CudaFunction,
    color_update: CudaFunction,
    obf_seeds: CudaFunction,
    obf_name: CudaFunction,
    obf_relabel: CudaFunction,
}

impl SccDevice {
    /// Opens `device` and compiles (or finds in the cache) and loads the kernels.
    pub fn new(device: usize) -> Result<SccDevice, CudaError> {
        let start = Instant::now();
        let device = Device::open(device)?;
        let module = device.load(SOURCE, &[])?;
        let f = |name: &str| module.function(name);
        let kernels = Kernels {
            advance: f("scc_advance")?,
            degrees: f("scc_degrees")?,
            trim_seed: f("scc_trim_seed")?,
            peel: f("scc_peel")?,
            pick: f("scc_pick")?,
            seed: f("scc_seed")?,
            bfs: f("scc_bfs")?,
            fb_name: f("scc_fb_name")?,
            fb_relabel: f("scc_fb_relabel")?,
            color_init: f("scc_color_init")?,
            color_push: f("scc_color_push")?,
            color_update: f("scc_color_update")?,
            obf_seeds: f("scc_obf_seeds")?,
            obf_name: f("scc_obf_name")?,
            obf_relabel: f("scc_obf_relabel")?,
        };
        Ok(SccDevice {
            device_name: device.name().to_string(),
            device,
            kernels,
            compile_seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Decomposes `graph` with `algorithm`.
    pub fn decompose(&self, graph: &Graph, algorithm: GpuSccAlgorithm) -> Result<GpuScc, CudaError> {
        let n = graph.vertices();
        let mut report = GpuSccReport {
            device_name: self.device_name.clone(),
            compile_seconds: self.compile_seconds,
            ..GpuSccReport::default()
        };
        if n == 0 {
            return Ok(GpuScc { components: Components { of: Vec::new() }, report });
        }
        let start = Instant::now();
        let buffers = self.upload(graph, algorithm)?;
        report.upload_seconds = start.elapsed().as_secs_f64();
        report.device_bytes = device_bytes(n as u64, graph.edges(), algorithm);
        let mut run = Run { device: self, b: &buffers, n: n as u32, report: &mut report };
        run.rounds(algorithm)?;
        let start = Instant::now();
        let mut comp = vec![0u32; n];
        self.device.stream().memcpy_dtoh(&buffers.comp, &mut comp)?;
        let components = Components::from_labels(comp);
        report.download_seconds = start.elapsed().as_secs_f64();
        Ok(GpuScc { components, report })
    }

    fn upload(&self, graph: &Graph, algorithm: GpuSccAlgorithm) -> Result<Buffers, CudaError> {
        let (n, m) = (graph.vertices(), graph.edges());
        let free = self.device.free_memory()?;
        let need = device_bytes(n as u64, m, algorithm);
        // Keep a margin for the context's own allocations.
        if need as f64 > free as f64 * 0.97 {
            let what = format!("the SCC decomposition of {n} vertices and {m} edges");
            return Err(CudaError::OutOfMemory { what, need, free });
        }
        let s = self.device.stream();
        let csr = |c: &warpcheck_graph::Csr| -> Result<(CudaSlice<u64>, CudaSlice<u32>), CudaError> {
            let offsets = s.clone_htod(c.offsets())?;
            // An empty target array still gets one word: a zero-length allocation is refused.
            let targets = if c.targets().is_empty() { s.alloc_zeros(1) } else { s.clone_htod(c.targets()) };
            Ok((offsets, targets?))
        };
        let (fo, ft) = csr(graph.forward())?;
        let (bo, bt) = csr(graph.backward())?;
        let zeros = |len: usize| s.alloc_zeros::<u32>(len);
        let colour_len = if algorithm.colours() { n } else { 1 };
        let b = Buffers {
            fo,
            ft,
            bo,
            bt,
            label: zeros(n)?,
            flags: zeros(n)?,
            comp: zeros(n)?,
            deg_in: zeros(n)?,
            deg_out: zeros(n)?,
            slot: zeros(n)?,
            child: zeros(3 * n)?,
            color: zeros(colour_len)?,
            mark: zeros(colour_len)?,
            queues: [zeros(n)?, zeros(n)?, zeros(n)?, zeros(n)?],
            ctl: zeros(8)?,
        };
        s.synchronize()?;
        Ok(b)
    }
}

/// Device buffers of one decomposition.
struct Buffers {
    fo: CudaSlice<u64>,
    ft: CudaSlice<u32>,
    bo: CudaSlice<u64>,
    bt: CudaSlice<u32>,
    label: CudaSlice<u32>,
    flags: CudaSlice<u32>,
    comp: CudaSlice<u32>,
    deg_in: CudaSlice<u32>,
    deg_out: CudaSlice<u32>,
    slot: CudaSlice<u32>,
    child: CudaSlice<u32>,
    color: CudaSlice<u32>,
    mark: CudaSlice<u32>,
    queues: [CudaSlice<u32>; 4],
    ctl: CudaSlice<u32>,
}

/// One decomposition's launches.
struct Run<'a> {
    device: &'a SccDevice,
    b: &'a Buffers,
    n: u32,
    report: &'a mut GpuSccReport,
}

/// `fb-coloring` hands over to Coloring after an FB round (trimming included) that
/// removed less than half of the live vertices.
fn hand_over(live_before: u64, live_after: u64) -> bool {
    2 * live_after > live_before
}

/// Levels enqueued per round trip to the host: from the first to the last, doubling.
const FIRST_BATCH: u32 = 8;
const LAST_BATCH: u32 = 512;

impl Run<'_> {
    fn stream(&self) -> &Arc<CudaStream> {
        self.device.device.stream()
    }

    fn ptr<T>(&self, s: &CudaSlice<T>) -> u64 {
        device_ptr(s, self.stream())
    }

    fn args(&self, salt: u32) -> Args {
        let b = self.b;
        Args {
            fo: self.ptr(&b.fo),
            ft: self.ptr(&b.ft),
            bo: self.ptr(&b.bo),
            bt: self.ptr(&b.bt),
            label: self.ptr(&b.label),
            flags: self.ptr(&b.flags),
            comp: self.ptr(&b.comp),
            deg_in: self.ptr(&b.deg_in),
            deg_out: self.ptr(&b.deg_out),
            slot: self.ptr(&b.slot),
            child: self.ptr(&b.child),
            color: self.ptr(&b.color),
            mark: self.ptr(&b.mark),
            qf0: self.ptr(&b.queues[0]),
            qf1: self.ptr(&b.queues[1]),
            qb0: self.ptr(&b.queues[2]),
            qb1: self.ptr(&b.queues[3]),
            ctl: self.ptr(&b.ctl),
            n: self.n,
            salt,
        }
    }

    /// Grid for `items` threads' worth of work (grid-stride beyond).
    fn grid(&self, items: u64) -> LaunchConfig {
        grid(items, 256, self.device.device.multiprocessors() * 16)
    }

    /// Launches a per-vertex kernel with the argument block and an optional mode.
    fn each_vertex(&mut self, f: &CudaFunction, args: &Args, mode: Option<u32>) -> Result<(), CudaError> {
        let cfg = self.grid(self.n as u64);
        match &mode {
            None => self.launch(f, cfg, &[args]),
            Some(m) => self.launch(f, cfg, &[args, m]),
        }
    }

    /// The one place the SCC kernels are launched.
    fn launch(&mut self, f: &CudaFunction, cfg: LaunchConfig, args: &[&dyn KernelArg]) -> Result<(), CudaError> {
        // SAFETY: `warpcheck_cuda::launch`'s contract holds: every kernel of scc.cu takes
        // the argument block (`struct Scc`, mirrored by `Args`) and, for those with a mode,
        // one `unsigned`, except `scc_advance`, which takes the control block's address
        // (`u64`); that is what the callers pass. The addresses are of `self.b`, which
        // outlives the run, and the stream is synchronised before it is dropped (the timing
        // event and the copy of the components). The kernels bound every index by `n`
        // (grid-stride loops) and the queues and slots by their sizes (`device_bytes`); the
        // host reads the buffers only by copies on the stream.
        unsafe { warpcheck_cuda::launch(self.stream(), f, cfg, args) }?;
        self.report.launches += 1;
        Ok(())
    }

    fn advance(&mut self) -> Result<(), CudaError> {
        let ctl = self.ptr(&self.b.ctl);
        let kernels = &self.device.kernels;
        self.launch(&kernels.advance, ONE_THREAD, &[&ctl])
    }

    fn read_ctl(&self) -> Result<Vec<u32>, CudaError> {
        let mut ctl = vec![0u32; 8];
        self.stream().memcpy_dtoh(&self.b.ctl, &mut ctl)?;
        Ok(ctl)
    }

    /// Runs the queue kernel `f` level after level from the queued seeds until no
    /// queue has work; returns the control block read last.
    fn drain(&mut self, f: &CudaFunction, args: &Args, mode: Option<u32>) -> Result<Vec<u32>, CudaError> {
        // A level's queues hold at most n vertices each way.
        let cfg = self.grid(2 * self.n as u64);
        let mut batch = FIRST_BATCH;
        loop {
            for _ in 0..batch {
                self.advance()?;
                match &mode {
                    None => self.launch(f, cfg, &[args])?,
                    Some(m) => self.launch(f, cfg, &[args, m])?,
                }
            }
            let ctl = self.read_ctl()?;
            if ctl[IDLE] != 0 {
                return Ok(ctl);
            }
            batch = (batch * 2).min(LAST_BATCH);
        }
    }

    /// Zeroes `slice` in stream order.
    fn zero(&self, slice: &CudaSlice<u32>) -> Result<(), CudaError> {
        self.zero_at(self.ptr(slice), slice.len() * 4)
    }

    fn zero_at(&self, at: u64, bytes: usize) -> Result<(), CudaError> {
        // SAFETY: callers pass `at..at + bytes` inside one buffer of this run (a whole
        // slice, or one word of the control block), which outlives the call; the memset
        // is enqueued on the run's one stream, so it is ordered with the kernels.
        unsafe { warpcheck_cuda::driver::result::memset_d8_async(at, 0, bytes, self.stream().cu_stream()) }?;
        Ok(())
    }

    fn rounds(&mut self, algorithm: GpuSccAlgorithm) -> Result<(), CudaError> {
        let timer = Timer::new(self.stream())?;
        timer.start(self.stream())?;
        let k = &self.device.kernels;
        let b = self.b;
        let mut round = 0u64;
        // The fewest live vertices seen, and the rounds since that number fell: every
        // round removes a vertex, except OBF's, where a split task may first become a
        // range (no vertex removed) that its next round then reduces.
        let (mut fewest, mut stalled) = (u64::MAX, 0);
        let mut step = algorithm;
        let mut previous_live = u64::MAX;
        let mut ctl;
        loop {
            let args = self.args(salt(round));
            // Trimming, and the live vertices before it.
            self.zero_at(self.ptr(&b.ctl) + 4 * LIVE as u64, 4)?;
            self.each_vertex(&k.degrees, &args, None)?;
            self.each_vertex(&k.trim_seed, &args, None)?;
            ctl = self.drain(&k.peel, &args, None)?;
            let live = ctl[LIVE] as u64;
            if live == 0 {
                break;
            }
            if live < fewest {
                (fewest, stalled) = (live, 0);
            } else {
                stalled += 1;
                if stalled > 4 {
                    return Err(CudaError::Internal(format!(
                        "SCC rounds stopped removing vertices ({live} live after round {round}); no answer given"
                    )));
                }
            }
            if step == GpuSccAlgorithm::FbColoring && round > 0 && hand_over(previous_live, live) {
                step = GpuSccAlgorithm::Coloring;
                self.report.coloring_from_round = Some(round + 1);
            }
            previous_live = live;
            round += 1;
            match step {
                GpuSccAlgorithm::Fb | GpuSccAlgorithm::FbColoring => {
                    self.zero(&b.slot)?;
                    self.each_vertex(&k.pick, &args, Some(PICK_ALL))?;
                    self.each_vertex(&k.seed, &args, Some(SEED_FB))?;
                    self.drain(&k.bfs, &args, Some(0))?;
                    self.zero(&b.child)?;
                    self.each_vertex(&k.fb_name, &args, None)?;
                    self.each_vertex(&k.fb_relabel, &args, None)?;
                }
                GpuSccAlgorithm::Coloring => {
                    self.each_vertex(&k.pick, &args, Some(PICK_NONE))?;
                    self.each_vertex(&k.color_init, &args, None)?;
                    self.drain(&k.color_push, &args, None)?;
                    self.each_vertex(&k.seed, &args, Some(SEED_COLOR))?;
                    self.drain(&k.bfs, &args, Some(1))?;
                    self.each_vertex(&k.color_update, &args, None)?;
                }
                GpuSccAlgorithm::Obf => {
                    self.zero(&b.slot)?;
                    self.each_vertex(&k.pick, &args, Some(PICK_SPLIT))?;
                    self.each_vertex(&k.seed, &args, Some(SEED_OBF))?;
                    self.drain(&k.bfs, &args, Some(0))?;
                    self.each_vertex(&k.obf_seeds, &args, None)?;
                    self.zero(&b.child)?;
                    self.each_vertex(&k.obf_name, &args, None)?;
                    self.each_vertex(&k.obf_relabel, &args, None)?;
                }
            }
        }
        self.report.kernel_seconds = timer.stop(self.stream())?;
        self.report.rounds = round;
        self.report.levels = ctl[LEVELS] as u64;
        Ok(())
    }
}

/// The key salt of a round (SplitMix64's finaliser of the round number).
fn salt(round: u64) -> u32 {
    let mut z = round.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host twins of the kernels' key functions (scc.cu `mix` and `unmix`).
    fn mix(mut h: u32) -> u32 {
        h ^= h >> 16;
        h = h.wrapping_mul(0x85eb_ca6b);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^ (h >> 16)
    }

    fn unmix(mut h: u32) -> u32 {
        h ^= h >> 16;
        h = h.wrapping_mul(0x7ed1_b41d);
        h ^= (h >> 13) ^ (h >> 26);
        h = h.wrapping_mul(0xa5cb_9243);
        h ^ (h >> 16)
    }

    #[test]
    fn keys_are_a_bijection_the_kernels_can_invert() {
        // The constants must be the kernels' own.
        for c in ["0x85ebca6bu", "0xc2b2ae35u", "0x7ed1b41du", "0xa5cb9243u", "(h >> 13) ^ (h >> 26)"] {
            assert!(SOURCE.contains(c), "scc.cu lacks {c}");
        }
        let mut x = 0x1234_5678u32;
        for i in 0..1_000_000u32 {
            x = x.wrapping_mul(0x0019_660d).wrapping_add(0x3c6e_f35f);
            for v in [i, x, u32::MAX - i] {
                assert_eq!(unmix(mix(v)), v);
            }
        }
        assert_eq!(unmix(mix(0)), 0);
    }

    #[test]
    fn tarjan_has_no_gpu_version() {
        let e = GpuSccAlgorithm::try_from(Algorithm::Tarjan).unwrap_err();
        assert_eq!(e, NoGpuVersion(Algorithm::Tarjan));
        assert_eq!(e.to_string(), "the tarjan algorithm does not run on the GPU; use the CPU");
        assert_eq!(GpuSccAlgorithm::try_from(Algorithm::Obf), Ok(GpuSccAlgorithm::Obf));
        for a in GpuSccAlgorithm::ALL {
            assert!(a == GpuSccAlgorithm::FbColoring || Algorithm::ALL.iter().any(|c| c.name() == a.name()));
        }
    }

    #[test]
    fn fb_hands_over_only_after_a_round_that_removed_less_than_half() {
        assert!(!hand_over(1000, 10));
        assert!(!hand_over(1000, 500));
        assert!(hand_over(1000, 501));
        assert!(hand_over(1000, 1000));
    }

    #[test]
    fn memory_needs_grow_with_the_graph() {
        let small = device_bytes(1000, 12_000, GpuSccAlgorithm::Fb);
        assert!(small > 1000 * 52 + 2 * 12_000 * 4);
        assert!(device_bytes(1000, 12_000, GpuSccAlgorithm::Coloring) > small);
        assert_eq!(
            device_bytes(1000, 12_000, GpuSccAlgorithm::FbColoring),
            device_bytes(1000, 12_000, GpuSccAlgorithm::Coloring)
        );
        assert!(device_bytes(2000, 12_000, GpuSccAlgorithm::Fb) > small);
    }

    #[test]
    fn without_a_device_the_error_says_so() {
        if warpcheck_cuda::device_available() {
            return;
        }
        let g = Graph::from_edges(2, &[(0, 1)]).unwrap();
        for a in GpuSccAlgorithm::ALL {
            let e = decompose_gpu(&g, a, &GpuSccOptions::default()).unwrap_err();
            assert!(matches!(e, CudaError::NoDevice(_)), "{e}");
        }
    }

    /// The kernels compile for sm_90 (needs libnvrtc, not a GPU:
    /// `LD_LIBRARY_PATH=/path/to/nvrtc/lib cargo test -p warpcheck-scc gpu -- --ignored`).
    #[test]
    #[ignore = "needs libnvrtc"]
    fn kernels_compile_for_sm_90() {
        std::env::set_var("WARPCHECK_CACHE", "/nonexistent/warpcheck-no-cache");
        let compiled = warpcheck_cuda::nvrtc::compile(SOURCE, 90, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(compiled.cubin.len() > 1000);
    }
}
