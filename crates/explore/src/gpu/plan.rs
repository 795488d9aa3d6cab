//! The compressed store's plans: how a run splits device memory between the set of
//! roots and the set of inner nodes, when the set of roots continues in host memory,
//! and when a full store runs again planned for what it found (see
//! [`super::engine::explore`]).

use std::sync::Arc;

use warpcheck_cuda::driver::CudaContext;
use warpcheck_cuda::HostArray;

use super::compact::{entry_bytes, SetLayout, BUCKET};
use super::engine::{GpuError, LEVEL_ROOM};

/// The share of their entries the compressed store's sets may fill (past it the run
/// fails as a full store).
pub(crate) const TREE_FILL: f64 = 0.9;
/// The most entries of the compressed store's set of inner nodes (whole buckets): their
/// indices are 32 bits, two of them reserved (`WC_NODE_ONES`, `WC_NODE_LOST` in
/// tree.cu). The set of roots has no such bound: a state's id is 64-bit and names its
/// root key.
const TREE_MAX_ENTRIES: u64 = 0xFFFF_FFE0;
/// The most states of the compressed store: the root keys' reserved address range in
/// host memory (8 bytes each, 128 GiB).
pub(crate) const MAX_HOST_SLOTS: u64 = 1 << 34;

/// Runs of the compressed store after the first, planned for what a full one found.
pub(crate) const REPLANS: usize = 3;

/// Entries of the set of roots that holds `states` at [`TREE_FILL`]: whole buckets.
fn roots_for(states: u64) -> u64 {
    SetLayout::at_least((states as f64 / TREE_FILL).ceil() as u64).entries()
}

/// How a run of the compressed store is planned: the inner nodes per state its sets
/// are sized for (`None`: a sample's), and where the set of roots may keep entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plan {
    pub nodes_per_state: Option<f64>,
    pub spill: Spill,
}

/// Where the compressed store's set of roots keeps its entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Spill {
    /// On the device only.
    Never,
    /// As many in host memory (besides the root keys of the states) as it takes to
    /// hold the most states: a share of the roots' lookups then crosses the bus.
    Host,
    /// This share of the device plan's entries in host memory (`WARPCHECK_GPU_SPILL_SHARE`).
    Share(f64),
}

/// A full compressed store: the states and inner nodes it held, for its device budget
/// and the host memory it could use.
pub(crate) struct Observed {
    pub states: u64,
    pub nodes: u64,
    pub budget: u64,
    pub host_bytes: u64,
}

impl Observed {
    /// The inner nodes per state to plan for next: those found, with a tenth more room.
    pub fn next_nodes_per_state(&self) -> f64 {
        1.1 * self.nodes as f64 / self.states.max(1) as f64
    }

    /// The next plan, for the nodes found: the first of the `first` run's spill and a
    /// spill to host memory that holds a twentieth more states than this run found.
    pub fn next_plan(&self, first: Spill) -> Option<Plan> {
        let nodes_per_state = self.next_nodes_per_state();
        [first, Spill::Host].into_iter().map(|spill| Plan { nodes_per_state: Some(nodes_per_state), spill }).find(
            |plan| {
                let next = CompressedSizing::for_budget(self.budget, nodes_per_state, self.host_bytes, plan.spill);
                next.capacity as f64 > 1.05 * self.states as f64
            },
        )
    }
}

/// Pins `bytes` (a multiple of 8) of zeroed host memory mapped for the device: the
/// part of the set of roots past device memory.
pub(crate) fn pin_spill(ctx: &Arc<CudaContext>, bytes: u64) -> Result<HostArray, GpuError> {
    let values = bytes.div_ceil(8) as usize;
    let pinned = HostArray::reserve(ctx, values).and_then(|mut array| {
        array.grow_to(values)?;
        Ok(array)
    });
    match pinned {
        Ok(array) if array.mapped() >= values => Ok(array),
        other => {
            let why = other.err().map_or(String::new(), |e| format!(": {e}"));
            Err(GpuError::Cuda(format!("could not pin {bytes} bytes of host memory for the set of roots{why}")))
        }
    }
}

/// The compressed store's sizes for a device budget and host memory.
#[derive(Debug, PartialEq)]
pub(crate) struct CompressedSizing {
    /// States it holds (the set of roots' fill limit), and whether host memory (for
    /// their root keys and spilled roots) bounded them rather than the device's.
    pub capacity: u64,
    pub host_bound: bool,
    /// Entries of the set of roots (the last `spilled` of them in host memory) and of
    /// the set of inner nodes: whole buckets (see [`SetLayout`]).
    pub roots: u64,
    pub spilled: u64,
    pub nodes: u64,
}

impl CompressedSizing {
    /// Sizes for `budget` bytes of device memory, `nodes_per_state` inner nodes per
    /// state planned (the sample's), and `host_bytes` of host memory for the states'
    /// root keys (8 bytes each) and the spilled roots' entries.
    ///
    /// On the device alone: the levels' first ids come off the budget; a root and the
    /// planned nodes per state, their sets filled up to TREE_FILL, set the states; the
    /// set of roots holds them, the set of inner nodes takes the rest of the budget
    /// (room for more nodes than planned, should the sample share less). With
    /// [`Spill::Host`], the device holds the planned nodes and as many roots as fit,
    /// host memory the root keys and the other roots, sized for the most states both
    /// memories hold (no spill when that is no more than the device alone holds).
    pub fn for_budget(budget: u64, nodes_per_state: f64, host_bytes: u64, spill: Spill) -> CompressedSizing {
        let budget = budget.saturating_sub(LEVEL_ROOM as u64 * 4);
        let nodes_per_state = nodes_per_state.clamp(0.02, 8.0);
        let host_ids = (host_bytes / 8).min(MAX_HOST_SLOTS);
        let planned_nodes = |states: u64| {
            let entries = (states as f64 * nodes_per_state / TREE_FILL).ceil() as u64;
            SetLayout::at_least(entries).entries().min(TREE_MAX_ENTRIES)
        };
        // States for `bytes` of memory at `extra` bytes each beside their entries (at
        // most `most`), with the entries' sizes that sets of their sizes have: 6 bytes
        // first, 8 where a set is too small for that (a smaller plan only keeps it so).
        let states_for = |bytes: u64, extra: f64, most: f64| {
            let (mut root, mut node) = (6, 6);
            loop {
                let per_state = extra + (root as f64 + node as f64 * nodes_per_state) / TREE_FILL;
                let states = (bytes as f64 / per_state).min(most) as u64;
                let sizes = (entry_bytes(roots_for(states)), entry_bytes(planned_nodes(states)));
                if sizes == (root, node) {
                    return states;
                }
                (root, node) = (sizes.0.max(root), sizes.1.max(node));
            }
        };
        let capacity = states_for(budget, 0.0, f64::MAX);
        let host_bound = host_ids < capacity;
        let capacity = capacity.min(host_ids);
        let roots = roots_for(capacity);
        let alone = CompressedSizing { capacity, host_bound, roots, spilled: 0, nodes: 0 };
        // The set of nodes takes the rest of the budget: room for more nodes than
        // planned, should the sample share less.
        let alone = CompressedSizing { nodes: nodes_within(budget.saturating_sub(alone.device_root_bytes())), ..alone };
        let whole = |entries: u64| entries / BUCKET * BUCKET;
        match spill {
            Spill::Never => alone,
            Spill::Share(share) => {
                let spilled = whole((roots as f64 * share.clamp(0.0, 1.0)) as u64);
                let capacity = capacity.min(host_bytes.saturating_sub(spilled * entry_bytes(roots)) / 8);
                CompressedSizing { capacity, host_bound: host_bound || capacity < alone.capacity, spilled, ..alone }
            }
            Spill::Host => {
                // Per state: its root key, its root's entry and its planned nodes' entries.
                let most_by_nodes = TREE_MAX_ENTRIES as f64 * TREE_FILL / nodes_per_state;
                let capacity = states_for(host_bytes + budget, 8.0, most_by_nodes).min(host_ids);
                if capacity <= alone.capacity {
                    return alone;
                }
                let nodes = planned_nodes(capacity);
                let roots = roots_for(capacity);
                let on_device = budget.saturating_sub(nodes * entry_bytes(nodes)) / entry_bytes(roots);
                let spilled = roots - whole(on_device.min(roots));
                CompressedSizing { capacity, host_bound: true, roots, spilled, nodes }
            }
        }
    }

    /// Bytes of the set of roots on the device.
    pub fn device_root_bytes(&self) -> u64 {
        (self.roots - self.spilled) * entry_bytes(self.roots)
    }

    /// Bytes of the set of roots in host memory.
    #[cfg(test)]
    pub fn host_root_bytes(&self) -> u64 {
        self.spilled * entry_bytes(self.roots)
    }

    /// Bytes of the set of nodes.
    #[cfg(test)]
    pub fn node_bytes(&self) -> u64 {
        self.nodes * entry_bytes(self.nodes)
    }
}

/// Entries of the largest set of nodes that `bytes` hold (whole buckets, at most
/// [`TREE_MAX_ENTRIES`]).
fn nodes_within(bytes: u64) -> u64 {
    let compact = SetLayout::at_most(bytes / 6);
    let layout = if compact.entry_bytes() == 6 { compact } else { SetLayout::at_most(bytes / 8) };
    layout.entries().min(TREE_MAX_ENTRIES)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_HOST_BOUND: u64 = u64::MAX / 2;

    #[test]
    fn the_compressed_sets_take_the_budget_and_plan_the_sampled_nodes() {
        let room = LEVEL_ROOM as u64 * 4;
        for (budget, nodes_per_state) in [(200u64 << 20, 0.027), (1 << 30, 1.0), (78 << 30, 0.1), (20 << 20, 0.5)] {
            let s = CompressedSizing::for_budget(budget, nodes_per_state, NO_HOST_BOUND, Spill::Never);
            assert!(s.device_root_bytes() + s.node_bytes() + room <= budget, "{budget}: {s:?}");
            assert!((s.roots as f64 * TREE_FILL) as u64 >= s.capacity, "{budget}: {s:?}");
            // The set of nodes has room for the planned nodes of every state.
            let planned = s.capacity as f64 * nodes_per_state.max(0.02) / TREE_FILL;
            assert!(s.nodes as f64 >= planned.min(TREE_MAX_ENTRIES as f64) * 0.999, "{budget}: {s:?}");
            assert!(!s.host_bound && s.capacity > 1000, "{budget}: {s:?}");
        }
        // A full card: more than 2^32 states (64-bit ids, roots named by their keys),
        // the nodes' indices still 32-bit.
        let s = CompressedSizing::for_budget(78 << 30, 0.1, NO_HOST_BOUND, Spill::Never);
        assert!(s.capacity > 8_000_000_000 && s.roots > u32::MAX as u64, "{s:?}");
        assert!(s.nodes <= TREE_MAX_ENTRIES, "{s:?}");
        // Nodes past their indices' room: the set of nodes is as large as they allow.
        let s = CompressedSizing::for_budget(78 << 30, 1.5, NO_HOST_BOUND, Spill::Never);
        assert_eq!(s.nodes, TREE_MAX_ENTRIES, "{s:?}");
        assert!(s.device_root_bytes() + s.node_bytes() + room <= 78 << 30, "{s:?}");
        // A card's sets have compact (6-byte) entries; small ones 8-byte entries.
        assert_eq!((entry_bytes(s.roots), entry_bytes(s.nodes)), (6, 6), "{s:?}");
        assert_eq!(entry_bytes(CompressedSizing::for_budget(1 << 30, 0.1, NO_HOST_BOUND, Spill::Never).roots), 8);
        // Host memory for the indices binds.
        let s = CompressedSizing::for_budget(78 << 30, 0.1, 8_000_000, Spill::Never);
        assert_eq!((s.capacity, s.host_bound), (1_000_000, true));
    }

    #[test]
    fn a_full_compressed_store_runs_again_only_when_a_new_plan_holds_more() {
        let budget = 70 << 30;
        let never = |n: f64| CompressedSizing::for_budget(budget, n, NO_HOST_BOUND, Spill::Never).capacity;
        let observed = |states: u64, nodes: u64, host_bytes: u64| Observed { states, nodes, budget, host_bytes };
        // Planned for 0.6 inner nodes per state, the set of roots filled with 0.1 found:
        // planned for 0.11 on the device alone, the store holds two fifths more states.
        let planned = never(0.6);
        let full = observed(planned, planned / 10, NO_HOST_BOUND);
        assert!((full.next_nodes_per_state() - 0.11).abs() < 1e-6);
        let next = full.next_plan(Spill::Never).unwrap();
        assert_eq!(next.spill, Spill::Never);
        assert!(never(next.nodes_per_state.unwrap()) > planned * 7 / 5);
        // Filled as planned: no better plan on the device; one with roots in host memory.
        let planned = never(0.2);
        let as_planned = observed(planned, planned / 5, 128 << 30);
        let next = as_planned.next_plan(Spill::Never).unwrap();
        assert_eq!(next.spill, Spill::Host);
        // ... but not without host memory to spare beside the root keys.
        let no_room = observed(planned, planned / 5, planned * 8 + (1 << 30));
        assert_eq!(no_room.next_plan(Spill::Never), None);
        // The set of nodes filled first, at a third of the planned states: planned for
        // the share found, the store holds more than were found.
        let planned = never(0.1);
        let nodes_first = observed(planned / 3, planned / 3 * 3 / 10, NO_HOST_BOUND);
        let next = nodes_first.next_plan(Spill::Never).unwrap();
        assert_eq!(next.spill, Spill::Never);
        assert!((next.nodes_per_state.unwrap() - 0.33).abs() < 1e-6, "{next:?}");
        // Host memory bounds the states: no plan holds more.
        let host_bound = observed(1000, 10, 8000);
        assert_eq!(host_bound.next_plan(Spill::Never), None);
    }

    #[test]
    fn roots_past_device_memory_fill_host_memory_beside_the_root_keys() {
        let (budget, host) = (75u64 << 30, 94u64 << 30);
        let alone = CompressedSizing::for_budget(budget, 0.15, host, Spill::Never);
        let s = CompressedSizing::for_budget(budget, 0.15, host, Spill::Host);
        assert_eq!(alone.spilled, 0);
        assert!(s.capacity > alone.capacity * 11 / 10, "{alone:?} {s:?}");
        assert!(s.host_bound && s.spilled > 0 && s.spilled < s.roots, "{s:?}");
        // Device: the planned nodes and the roots that are not spilled.
        let room = LEVEL_ROOM as u64 * 4;
        assert!(s.device_root_bytes() + s.node_bytes() + room <= budget, "{s:?}");
        assert!(s.nodes as f64 >= s.capacity as f64 * 0.15 / TREE_FILL, "{s:?}");
        assert!((s.roots as f64 * TREE_FILL) as u64 >= s.capacity, "{s:?}");
        // Host: a root key per state and the spilled roots (within rounding to buckets).
        assert!(s.capacity * 8 + s.host_root_bytes() <= host + 16 * BUCKET, "{s:?}");
        assert!(s.capacity * 8 + s.host_root_bytes() > host - (host >> 10), "host memory used up: {s:?}");
        // Little host memory: nothing to gain, the device alone.
        let small = CompressedSizing::for_budget(budget, 0.15, 16 << 30, Spill::Host);
        assert_eq!(small, CompressedSizing::for_budget(budget, 0.15, 16 << 30, Spill::Never));
        // A share: the device plan's states, that share of its roots in host memory.
        let alone = CompressedSizing::for_budget(budget, 0.15, NO_HOST_BOUND, Spill::Never);
        let half = CompressedSizing::for_budget(budget, 0.15, NO_HOST_BOUND, Spill::Share(0.5));
        assert_eq!((half.capacity, half.roots, half.nodes), (alone.capacity, alone.roots, alone.nodes));
        assert_eq!(half.spilled, alone.roots / 2 / BUCKET * BUCKET);
    }
}
