//! Uniform-cost search on the GPU: Dijkstra by cost layers, each layer's states
//! expanded by one kernel launch, the store, the open list and the parent links on the
//! device. The kernels are ucs.cu around the task's successor code (plan.c); this
//! module drives them round by round and rebuilds the plan.
//!
//! - [`uniform_cost_gpu`] runs on a CUDA device (module `device`);
//! - [`uniform_cost_emulated`] runs the same kernel text compiled for the host, one work
//!   item after another (module `host`), which is how the tests check the search's logic
//!   (stale entries, lowered costs, zero-cost layers, the rebuild after an overflowing
//!   round, the plan) against the CPU without a GPU.
//!
//! The driver is the same for both: a round of cost m reads the control block, stops at
//! a goal state (the plan's cost is m), an empty open list (unsolvable) or a full store
//! (an error, never a dropped state), rebuilds the open list when a round overflowed
//! it, and goes on with the smallest cost pushed. With `WARPCHECK_UCS_TRACE` set, each
//! round's cost, entry range and list length go to standard error.

mod device;
mod host;

pub use device::cuda_source;

use std::time::Instant;

use crate::search::SearchOutcome;
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
    /// The deadline passed (checked between rounds).
    #[error("time limit reached after {expanded} expansions")]
    TimeLimit { expanded: u64 },
    /// A path's cost reached 2^32 - 1, past the device's cost range.
    #[error("a path costs more than {}, the GPU search's largest cost", u32::MAX - 1)]
    CostOverflow,
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
    pub lo: u32,
    pub hi: u32,
    pub limit: u32,
    pub room: u32,
}

/// Words of the control block (`ctl` in ucs.cu).
const CTL_WORDS: usize = 9;
/// No value (an empty minimum, no goal).
const NONE: u32 = u32::MAX;

/// The control block after a launch (`ctl` in ucs.cu).
#[derive(Clone, Copy, Debug)]
struct Control {
    stored: u32,
    full: bool,
    /// Entries in the open list.
    len: u32,
    overflow: bool,
    /// The smallest g above the round's, and how many such entries, in the range
    /// scanned.
    later_min: u32,
    later: u32,
    goal: Option<u32>,
    cost_overflow: bool,
    /// The smallest g appended.
    pushed_min: u32,
}

impl Control {
    fn of(ctl: &[u32]) -> Control {
        Control {
            stored: ctl[0],
            full: ctl[1] != 0,
            len: ctl[2],
            overflow: ctl[3] != 0,
            later_min: ctl[4],
            goal: (ctl[5] != NONE).then_some(ctl[5]),
            cost_overflow: ctl[6] != 0,
            pushed_min: ctl[7],
            later: ctl[8],
        }
    }
}

/// What runs the kernels: the device, or their host compilation. Each call resets the
/// round's part of the control block (overflow, the minima, the goal, the count of
/// later entries; `rebuild` also empties the list) and returns it after the launch.
trait Kernels {
    /// Stores the initial state and appends it.
    fn start(&mut self, init: &[u32]) -> Result<Control, GpuSearchError>;
    /// The round of cost `m` over the entries `lo..hi` of the open list.
    fn expand(&mut self, m: u32, lo: u32, hi: u32) -> Result<Control, GpuSearchError>;
    /// Empties the open list and appends every stored state not closed.
    fn rebuild(&mut self, stored: u32) -> Result<Control, GpuSearchError>;
    /// `best[id]` (its g and parent) and the state `id`.
    fn link(&mut self, id: u32) -> Result<(u32, u32, State), GpuSearchError>;
    /// States expanded and successors generated.
    fn counters(&mut self) -> Result<(u64, u64), GpuSearchError>;
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
}

/// An optimal plan of `task` by uniform-cost search on a CUDA device.
pub fn uniform_cost_gpu(task: &Task, options: &GpuSearchOptions) -> Result<SearchOutcome, GpuSearchError> {
    let costs = costs(task)?;
    let mut kernels = device::DeviceKernels::new(task, &costs, options)?;
    Ok(drive(task, &mut kernels, COMPACT, options.deadline)?.0)
}

/// The host emulation's settings ([`uniform_cost_emulated`]).
#[derive(Clone, Copy, Debug)]
pub struct Emulation {
    /// States the store holds, and entries the open list holds.
    pub limit: u32,
    /// The list is rebuilt when it holds more than this many entries of which at least
    /// half are dead.
    pub compact: u32,
    /// A round visits its entries in the order `lo + i * stride mod n`.
    pub stride: u32,
    /// When to give up, as on the device.
    pub deadline: Option<Instant>,
}

/// The same search with the kernels compiled for the host and run one work item after
/// another, as `emulation` sets it up; also the number of rebuilds (after an overflow
/// or to compact), so that tests know they reached them. Slow; for tests.
pub fn uniform_cost_emulated(task: &Task, emulation: &Emulation) -> Result<(SearchOutcome, u32), GpuSearchError> {
    let costs = costs(task)?;
    let mut kernels = host::HostKernels::new(task, &costs, emulation.limit, emulation.stride)?;
    drive(task, &mut kernels, emulation.compact, emulation.deadline)
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

/// Open lists longer than this are rebuilt when at least half of their entries are dead.
const COMPACT: u32 = 1 << 20;

/// The rounds, then the plan. A round of a new cost scans the whole list; a round at
/// the same cost (after zero-cost successors were appended) only what the last one
/// appended, the smallest later g of the rest carried over.
fn drive(
    task: &Task,
    kernels: &mut impl Kernels,
    compact: u32,
    deadline: Option<Instant>,
) -> Result<(SearchOutcome, u32), GpuSearchError> {
    let seeded = kernels.start(&task.init)?;
    let mut rebuilds = 0;
    let mut c = check(seeded, kernels.room())?;
    let (mut m, mut lo, mut carried) = (0u32, 0u32, NONE);
    let trace = std::env::var_os("WARPCHECK_UCS_TRACE").is_some();
    let (mut rounds, mut scanned, clock) = (0u64, 0u64, Instant::now());
    let goal = loop {
        let hi = c.len;
        let round = kernels.expand(m, lo, hi)?;
        (rounds, scanned) = (rounds + 1, scanned + u64::from(hi - lo));
        if trace {
            let t = clock.elapsed().as_secs_f64();
            eprintln!("ucs: round {rounds} at {t:.4} s: g {m}, entries {lo}..{hi}, list {}", round.len);
        }
        c = check(round, kernels.room())?;
        if c.goal.is_some() {
            break c.goal;
        }
        let later = carried.min(c.later_min);
        let next = if c.overflow {
            None
        } else if c.pushed_min == m {
            // Zero-cost successors: the same cost again, over what was appended.
            (lo, carried) = (hi, later);
            Some(m)
        } else {
            let live = u64::from(c.later) + u64::from(c.len - hi);
            let dead = lo == 0 && c.len > compact && live * 2 < u64::from(c.len);
            (lo, carried) = (0, NONE);
            (!dead).then_some(later.min(c.pushed_min))
        };
        m = match next {
            Some(next) => next,
            None => {
                let rebuilt = kernels.rebuild(c.stored)?;
                rebuilds += 1;
                c = check(rebuilt, kernels.room())?;
                if c.overflow {
                    return Err(GpuSearchError::Failed("internal error: the open list's rebuild overflowed".into()));
                }
                (lo, carried) = (0, NONE);
                c.pushed_min
            }
        };
        if m == NONE {
            break None;
        }
        if deadline.is_some_and(|d| Instant::now() > d) {
            return Err(GpuSearchError::TimeLimit { expanded: kernels.counters()?.0 });
        }
    };
    if trace {
        eprintln!("ucs: {rounds} rounds, {scanned} entries scanned, {rebuilds} rebuilds");
    }
    let stored = c.stored;
    let (expanded, generated) = kernels.counters()?;
    let stored = stored as usize;
    let Some(goal) = goal else {
        return Ok((SearchOutcome { plan: None, cost: None, expanded, generated, stored }, rebuilds));
    };
    let plan = plan_to(task, kernels, goal, stored)?;
    let cost = plan.iter().map(|&a| task.actions[a].cost).sum::<u64>();
    if cost != u64::from(m) {
        return Err(GpuSearchError::Failed(format!(
            "internal error: the plan rebuilt from the device costs {cost}, its layer {m}"
        )));
    }
    Ok((SearchOutcome { plan: Some(plan), cost: Some(cost), expanded, generated, stored }, rebuilds))
}

/// Resets the round's part of the control block `ctl`: overflow, the minima, the goal,
/// the count of later entries, and with `empty` the list's length.
fn reset(ctl: &mut [u32], empty: bool) {
    if empty {
        ctl[2] = 0;
    }
    let cost_overflow = ctl[6];
    ctl[3..9].copy_from_slice(&[0, NONE, NONE, cost_overflow, NONE, 0]);
}

/// `c`, unless the store filled or a cost overflowed in its round.
fn check(c: Control, (capacity, bytes): (u64, u64)) -> Result<Control, GpuSearchError> {
    if c.full {
        return Err(GpuSearchError::Full { capacity, bytes });
    }
    if c.cost_overflow {
        return Err(GpuSearchError::CostOverflow);
    }
    Ok(c)
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
            a.cost == u64::from(g1 - g0) && a.precondition.holds(s0) && {
                a.apply(s0, &mut next);
                next == *s1
            }
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
