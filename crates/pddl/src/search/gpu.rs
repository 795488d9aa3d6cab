//! Uniform-cost search on the GPU: Dijkstra by cost layers, each round a kernel launch
//! that expands open states of the least cost at once, the store, the open list and
//! the parent links on the device; or A* by layers of f = g + h with pattern databases
//! ([`crate::pdb`], built on the host, looked up on the device). The kernels are ucs.cu around the task's successor
//! code (plan.c); this module drives them and rebuilds the plan.
//!
//! - [`uniform_cost_gpu`] runs on a CUDA device (module `device`);
//! - [`uniform_cost_emulated`] runs the same kernel text compiled for the host, one work
//!   item after another (module `host`), which is how the tests check the search's logic
//!   (stale entries, lowered costs, zero-cost layers, the rebuild after an overflowing
//!   round, the plan) against the CPU without a GPU.
//!
//! The driver is the same for both. The rounds schedule each other in device memory
//! (ucs.cu says how), so the host launches them in batches and reads the control block
//! only between batches: it stops at a goal state (the plan's cost is the round's), an
//! empty open list (unsolvable) or a full store (an error, never a dropped state), and
//! rebuilds the open list from the store when a round overflowed it, when most of it
//! is dead, or to raise the cost threshold below which states enter it (a split). With
//! `WARPCHECK_UCS_TRACE` set, each batch's last round (cost, entry range, list length,
//! threshold) goes to standard error.

mod device;
mod host;

pub use device::cuda_source;

use std::time::{Duration, Instant};

use crate::pdb::Pdbs;
use crate::search::{SearchError, SearchOutcome};
use crate::task::{State, Task};
use warpcheck_model::cuda::{CudaModel, CudaSource};

/// Why the GPU search has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GpuSearchError {
    /// No CUDA driver or device, or the device asked for is not present.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A task this search does not take.
    #[error("{0}")]
    Unsupported(String),
    /// The driver, NVRTC or the host compiler of the emulation failed.
    #[error("{0}")]
    Failed(String),
    #[error(
        "the GPU state store is full: it holds {capacity} states ({bytes} bytes of device memory) and the search \
         needs more; give more device memory (--memory) or use the CPU"
    )]
    Full { capacity: u64, bytes: u64 },
    /// The deadline passed (checked between batches of rounds).
    #[error("time limit reached after {expanded} expansions")]
    TimeLimit { expanded: u64 },
    /// A path's cost reached 2^32 - 1, past the device's cost range.
    #[error("a path costs more than {}, the GPU search's largest cost", u32::MAX - 1)]
    CostOverflow,
    /// A numeric effect's result leaves the `i32` range: the CPU search's error
    /// ([`SearchError::OutOfRange`]).
    #[error(transparent)]
    OutOfRange(SearchError),
}

/// The kernels' argument block (`struct WcUcs` in ucs.cu): device or host addresses.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct UcsArgs {
    pub states: u64,
    pub best: u64,
    pub closed: u64,
    pub table: u64,
    pub capacity: u64,
    pub ctl: u64,
    pub counters: u64,
    pub open: u64,
    pub cost: u64,
    pub pdb: u64,
    pub h: u64,
    pub limit: u32,
    pub room: u32,
    pub compact: u32,
    pub stride: u32,
    pub cap: u32,
    pub pad: u32,
}

/// The control block (`ctl` in ucs.cu, which says what each word holds).
type Ctl = [u32; CTL_WORDS];
const CTL_WORDS: usize = 24;
const STORED: usize = 0;
const FULL: usize = 1;
const LEN: usize = 2;
const OVERFLOW: usize = 3;
const LATER_MIN: usize = 4;
const GOAL: usize = 5;
const COST_OVERFLOW: usize = 6;
const PUSHED_MIN: usize = 7;
const LATER: usize = 8;
const LATER_LO: usize = 9;
const M: usize = 10;
const LO: usize = 11;
const HI: usize = 12;
const CARRIED_MIN: usize = 13;
const CARRIED_LATER: usize = 14;
const CARRIED_LO: usize = 15;
const STOP: usize = 16;
const ROUNDS: usize = 17;
// 18: the blocks of the running round done, the device's alone.
const T: usize = 19;
const FAR_MIN: usize = 20;
const DEFER_LO: usize = 21;
const RANGE: usize = 22;
const RANGE_ACTION: usize = 23;
/// Why the rounds stopped (`ctl[STOP]`; `WC_STOP_*` in ucs.cu).
const RUNNING: u32 = 0;
const STOP_GOAL: u32 = 1;
const STOP_EXHAUSTED: u32 = 2;
const STOP_REBUILD: u32 = 3;
const STOP_SPLIT: u32 = 5;
/// No value (an empty minimum, no goal).
const NONE: u32 = u32::MAX;

/// What runs the kernels: the device, or their host compilation. The control block
/// lives with them; `write` replaces it, and each launch returns it as the launch left
/// it.
trait Kernels {
    /// Replaces the control block.
    fn write(&mut self, ctl: &Ctl) -> Result<(), GpuSearchError>;
    /// Stores the initial state and appends it.
    fn start(&mut self, init: &[u32]) -> Result<Ctl, GpuSearchError>;
    /// Runs `n` rounds, each scheduled by the one before (those after a stop do
    /// nothing).
    fn rounds(&mut self, n: u32) -> Result<Ctl, GpuSearchError>;
    /// Appends every stored state below `stored` not closed.
    fn rebuild(&mut self, stored: u32) -> Result<Ctl, GpuSearchError>;
    /// `best[id]` (its g and parent) and the state `id`.
    fn link(&mut self, id: u32) -> Result<(u32, u32, State), GpuSearchError>;
    /// States expanded, successors generated and list entries scanned.
    fn counters(&mut self) -> Result<[u64; 3], GpuSearchError>;
    /// The store's room in states and its bytes.
    fn room(&self) -> (u64, u64);
}

/// Options of the GPU search.
#[derive(Clone, Debug, Default)]
pub struct GpuSearchOptions {
    /// The CUDA device.
    pub device: usize,
    /// Device memory to use in bytes; `None` for 90% of the free memory.
    pub memory: Option<u64>,
    /// When to give up; `None` for no time limit.
    pub deadline: Option<Instant>,
    /// A* with pattern databases instead of Dijkstra.
    pub astar: bool,
}

/// An optimal plan of `task` by uniform-cost search on a CUDA device.
pub fn uniform_cost_gpu(task: &Task, options: &GpuSearchOptions) -> Result<SearchOutcome, GpuSearchError> {
    let started = Instant::now();
    let costs = costs(task)?;
    // The pattern databases are built on another thread while this one opens the
    // device and compiles the kernels (each can take seconds).
    let (pdb, compiled) = std::thread::scope(|s| {
        let pdb = s.spawn(|| {
            let built = Instant::now();
            options.astar.then(|| (Pdbs::build(task).flatten(), built.elapsed()))
        });
        let compiled = device::Compiled::new(task, options);
        (pdb.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), compiled)
    });
    let (pdb, heuristic) = pdb.map_or((None, Duration::ZERO), |(p, t)| (Some(p), t));
    let mut kernels = device::DeviceKernels::new(compiled?, task, &costs, pdb.as_deref(), COMPACT, options)?;
    let setup = started.elapsed();
    let outcome = drive(task, &mut kernels, options.deadline, None)?.0;
    Ok(SearchOutcome { setup, heuristic, ..outcome })
}

/// The host emulation's settings ([`uniform_cost_emulated`]).
#[derive(Clone, Copy, Debug)]
pub struct Emulation {
    /// States the store holds, and entries the open list holds.
    pub limit: u32,
    /// The list is rebuilt when more than this many of its entries are left to scan
    /// and at least half of those are dead.
    pub compact: u32,
    /// A round visits its entries in the order `lo + i * stride mod n`.
    pub stride: u32,
    /// When to give up, as on the device.
    pub deadline: Option<Instant>,
    /// The threshold's width, fixed (`u32::MAX`: no state is ever left out of the
    /// list); `None` for the device's adaptive width.
    pub width: Option<u32>,
    /// The most entries a round scans, but a sweep (the device's: [`CAP`]).
    pub cap: u32,
    /// A* with pattern databases instead of Dijkstra.
    pub astar: bool,
}

/// How often the search rebuilt its open list, so that tests know they reached each
/// kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rebuilds {
    /// After a round overflowed the list, or to compact a mostly dead list.
    pub room: u32,
    /// To raise the threshold (every open state below it was expanded).
    pub splits: u32,
}

/// The same search with the kernels compiled for the host and run one work item after
/// another, as `emulation` sets it up; also how often it rebuilt its open list. Slow;
/// for tests.
pub fn uniform_cost_emulated(task: &Task, emulation: &Emulation) -> Result<(SearchOutcome, Rebuilds), GpuSearchError> {
    let costs = costs(task)?;
    let pdb = emulation.astar.then(|| Pdbs::build(task).flatten());
    let mut kernels = host::HostKernels::new(task, &costs, pdb.as_deref(), emulation)?;
    drive(task, &mut kernels, emulation.deadline, emulation.width)
}

/// The actions' costs as the device holds them.
fn costs(task: &Task) -> Result<Vec<u32>, GpuSearchError> {
    task.actions
        .iter()
        .map(|a| {
            u32::try_from(a.cost).map_err(|_| {
                GpuSearchError::Unsupported(format!(
                    "action {} costs {}, more than the GPU search's {}",
                    a.name,
                    a.cost,
                    u32::MAX
                ))
            })
        })
        .collect()
}

/// The most entries a round scans, but a sweep (ucs.cu's dive): about a million, which
/// still fills a device; `WARPCHECK_UCS_CAP` overrides it for experiments.
pub const CAP: u32 = 1 << 20;

/// A rebuild compacts the open list when more than this many entries are left to scan
/// and at least half of them are dead.
const COMPACT: u32 = 1 << 20;

/// Rounds per batch at most, and a batch's time at which the next is made shorter (so
/// that the time limit is looked at often enough).
const MAX_BATCH: u32 = 1024;
const BATCH_SECONDS: f64 = 0.05;

/// The rounds, launched in batches that grow from one, then the plan. Between batches
/// the host reads the control block and acts on a stop: the goal, an empty list, a
/// rebuild of the list, or a split (a rebuild with a higher threshold). The threshold
/// starts at 1 and rises at each split by a width that follows what a rebuild costs
/// beside the rounds it spares ([`adapted`]).
fn drive(
    task: &Task,
    kernels: &mut impl Kernels,
    deadline: Option<Instant>,
    fixed_width: Option<u32>,
) -> Result<(SearchOutcome, Rebuilds), GpuSearchError> {
    let mut width = fixed_width.map_or(1, u64::from);
    let mut ctl = [0; CTL_WORDS];
    clear(&mut ctl, true);
    (ctl[GOAL], ctl[T], ctl[FAR_MIN], ctl[DEFER_LO], ctl[RANGE]) = (NONE, threshold(0, width), NONE, NONE, NONE);
    kernels.write(&ctl)?;
    let mut ctl = check(kernels.start(&task.init)?, kernels.room())?;
    let mut rebuilds = Rebuilds::default();
    // A*'s initial state may be left out of the list (its key at or above the first
    // threshold) or be a dead end.
    if ctl[PUSHED_MIN] == NONE {
        rebuilds.splits += 1;
        ctl[T] = threshold(ctl[FAR_MIN], width);
        if ctl[FAR_MIN] == NONE || !rebuild(kernels, &mut ctl, width, &mut rebuilds)? {
            let stored = ctl[STORED] as usize;
            return Ok((SearchOutcome { stored, ..SearchOutcome::default() }, rebuilds));
        }
    }
    schedule(&mut ctl);
    kernels.write(&ctl)?;
    let trace = std::env::var_os("WARPCHECK_UCS_TRACE").is_some();
    let (mut batch, mut scanned_at_split, clock) = (1, 0, Instant::now());
    let goal = loop {
        let launched = Instant::now();
        ctl = check(kernels.rounds(batch)?, kernels.room())?;
        if ctl[RANGE] != NONE {
            return Err(out_of_range(task, kernels, ctl[RANGE], ctl[RANGE_ACTION]));
        }
        if trace {
            let t = clock.elapsed().as_secs_f64();
            let (rounds, m, lo, hi, len) = (ctl[ROUNDS], ctl[M], ctl[LO], ctl[HI], ctl[LEN]);
            eprintln!(
                "ucs: {rounds} rounds at {t:.4} s: g {m}, entries {lo}..{hi}, list {len}, below {}, stop {}",
                ctl[T], ctl[STOP]
            );
        }
        let stop = ctl[STOP];
        match stop {
            RUNNING if launched.elapsed().as_secs_f64() > BATCH_SECONDS => batch = (batch / 2).max(1),
            RUNNING => batch = (batch * 2).min(MAX_BATCH),
            STOP_GOAL => break Some(ctl[GOAL]),
            STOP_EXHAUSTED => break None,
            STOP_REBUILD => rebuilds.room += 1,
            STOP_SPLIT => {
                rebuilds.splits += 1;
                let scanned = kernels.counters()?[2];
                if fixed_width.is_none() {
                    width = adapted(width, scanned - scanned_at_split, u64::from(ctl[STORED]));
                }
                scanned_at_split = scanned;
                ctl[T] = threshold(ctl[FAR_MIN], width);
            }
            stop => {
                return Err(GpuSearchError::Failed(format!("internal error: the rounds stopped for reason {stop}")))
            }
        }
        if matches!(stop, STOP_REBUILD | STOP_SPLIT) {
            if !rebuild(kernels, &mut ctl, width, &mut rebuilds)? {
                break None;
            }
            schedule(&mut ctl);
            kernels.write(&ctl)?;
        }
        if deadline.is_some_and(|d| Instant::now() > d) {
            return Err(GpuSearchError::TimeLimit { expanded: kernels.counters()?[0] });
        }
    };
    let [expanded, generated, scanned] = kernels.counters()?;
    if trace {
        eprintln!("ucs: {} rounds, {scanned} entries scanned, {rebuilds:?}", ctl[ROUNDS]);
    }
    let stored = ctl[STORED] as usize;
    let Some(goal) = goal else {
        return Ok((SearchOutcome { expanded, generated, stored, ..SearchOutcome::default() }, rebuilds));
    };
    let plan = plan_to(task, kernels, goal, stored)?;
    let cost = plan.iter().map(|&a| task.actions[a].cost).sum::<u64>();
    if cost != u64::from(ctl[M]) {
        return Err(GpuSearchError::Failed(format!(
            "internal error: the plan rebuilt from the device costs {cost}, its layer {}",
            ctl[M]
        )));
    }
    Ok((
        SearchOutcome { plan: Some(plan), cost: Some(cost), expanded, generated, stored, ..SearchOutcome::default() },
        rebuilds,
    ))
}

/// Rebuilds the open list from the store below the threshold `ctl[T]`; says whether it
/// holds an open state. A split's threshold may leave nothing open below it (the
/// smallest g left out is noted when a state is, and the state may have been reached
/// more cheaply since): the rebuild notes the true one, and the next threshold, `width`
/// above it, is tried.
fn rebuild(
    kernels: &mut impl Kernels,
    ctl: &mut Ctl,
    width: u64,
    rebuilds: &mut Rebuilds,
) -> Result<bool, GpuSearchError> {
    loop {
        clear(ctl, true);
        ctl[FAR_MIN] = NONE;
        kernels.write(ctl)?;
        *ctl = check(kernels.rebuild(ctl[STORED])?, kernels.room())?;
        if ctl[OVERFLOW] != 0 {
            return Err(GpuSearchError::Failed("internal error: the open list's rebuild overflowed".into()));
        }
        if ctl[PUSHED_MIN] != NONE || ctl[FAR_MIN] == NONE {
            return Ok(ctl[PUSHED_MIN] != NONE);
        }
        rebuilds.splits += 1;
        ctl[T] = threshold(ctl[FAR_MIN], width);
    }
}

/// The next split's width: doubled when the rounds since the last split scanned fewer
/// entries than the store holds states, halved (to 1 at least) when more than four
/// times as many.
fn adapted(width: u64, scanned: u64, stored: u64) -> u64 {
    if scanned < stored {
        width.saturating_mul(2)
    } else if scanned > 4 * stored {
        (width / 2).max(1)
    } else {
        width
    }
}

/// The threshold `width` above `g`: at most NONE (then no state is left out, as no g
/// reaches NONE).
fn threshold(g: u32, width: u64) -> u32 {
    (u64::from(g) + width).min(u64::from(NONE)) as u32
}

/// Clears the round's notes in `ctl` (and with `empty` the list).
fn clear(ctl: &mut Ctl, empty: bool) {
    if empty {
        ctl[LEN] = 0;
    }
    ctl[OVERFLOW] = 0;
    ctl[LATER_MIN] = NONE;
    ctl[PUSHED_MIN] = NONE;
    ctl[LATER] = 0;
    ctl[LATER_LO] = NONE;
}

/// Schedules the first round over a list just built: the whole list at its smallest
/// cost.
fn schedule(ctl: &mut Ctl) {
    (ctl[M], ctl[LO], ctl[HI]) = (ctl[PUSHED_MIN], 0, ctl[LEN]);
    (ctl[CARRIED_MIN], ctl[CARRIED_LATER], ctl[CARRIED_LO], ctl[DEFER_LO]) = (NONE, 0, NONE, NONE);
    ctl[STOP] = RUNNING;
    clear(ctl, false);
}

/// `ctl`, unless the store filled or a cost overflowed.
fn check(ctl: Ctl, (capacity, bytes): (u64, u64)) -> Result<Ctl, GpuSearchError> {
    if ctl[FULL] != 0 {
        return Err(GpuSearchError::Full { capacity, bytes });
    }
    if ctl[COST_OVERFLOW] != 0 {
        return Err(GpuSearchError::CostOverflow);
    }
    Ok(ctl)
}

/// The error of the numeric effect of `action` out of range in stored state `id`, as
/// the CPU computes it again.
fn out_of_range(task: &Task, kernels: &mut impl Kernels, id: u32, action: u32) -> GpuSearchError {
    let state = match kernels.link(id) {
        Ok((_, _, state)) => state,
        Err(e) => return e,
    };
    let Some(a) = task.actions.get(action as usize) else {
        return GpuSearchError::Failed(format!("internal error: the device noted action {action}, of no task"));
    };
    match a.apply(&state, &mut Vec::new()) {
        Err(e) => GpuSearchError::OutOfRange(SearchError::out_of_range(task, action, e)),
        Ok(()) => GpuSearchError::Failed(format!(
            "internal error: the device found {} out of range where the CPU does not",
            a.name
        )),
    }
}

/// The actions from the initial state to stored state `goal`: the parent links read
/// back, each step's action the first applicable in the parent that makes the child at
/// the difference of their costs.
fn plan_to(task: &Task, kernels: &mut impl Kernels, goal: u32, stored: usize) -> Result<Vec<usize>, GpuSearchError> {
    let mut path = Vec::new();
    let mut id = goal;
    loop {
        let (g, parent, state) = kernels.link(id)?;
        path.push((g, state));
        if id == 0 {
            break;
        }
        if path.len() > stored {
            return Err(GpuSearchError::Failed("internal error: the device's parent links form a cycle".into()));
        }
        id = parent;
    }
    path.reverse();
    // A plan's few steps: every action is tried (no index to build for them).
    let mut next = Vec::new();
    let mut plan = Vec::with_capacity(path.len() - 1);
    for pair in path.windows(2) {
        let ((g0, s0), (g1, s1)) = (&pair[0], &pair[1]);
        let step = task.actions.iter().position(|a| {
            a.cost == u64::from(g1 - g0) && a.precondition.holds(s0) && a.apply(s0, &mut next).is_ok() && next == *s1
        });
        let step = step.ok_or_else(|| {
            GpuSearchError::Failed(format!(
                "internal error: no action leads from a stored state to its child at cost {}",
                g1 - g0
            ))
        })?;
        plan.push(step);
    }
    Ok(plan)
}

/// ucs.cu around the task's successor code (plan.c, whose table the caller places),
/// without the defines of the compiler it goes to.
fn kernel_source(task: &Task) -> Result<CudaSource, GpuSearchError> {
    let model = crate::model::PlanningModel::new(task.clone());
    let generated =
        model.cuda_source(&[crate::model::UNSOLVED]).map_err(|e| GpuSearchError::Unsupported(e.to_string()))?;
    let source = include_str!("gpu/ucs.cu").replacen("// @@MODEL@@", &generated.source, 1);
    Ok(CudaSource { source, ..generated })
}
