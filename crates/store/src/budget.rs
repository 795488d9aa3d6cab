//! One memory budget and one growth policy for the state table of every engine.
//!
//! A [`MemoryBudget`] is a number of bytes: what the user gave (`--memory`) or, by
//! default, a share of the memory the OS reports available. A [`TablePlan`] turns it
//! into the table sizes an engine may use, given what the engine keeps per table
//! entry beside the 8-byte entry and its root bit (parent links, vertex maps,
//! colours):
//!
//! - the first table has 2^[`FIRST_LOG2`] entries (under 1.2 MiB with every engine's
//!   extras), so that small models touch little memory;
//! - a table grows [`GROWTH`] times larger once more than [`GROW_AT_EIGHTHS`]/8 of its
//!   entries are in use (from 2^[`LATE_FROM_LOG2`] entries: [`GROW_LATE_AT_EIGHTHS`]/8),
//!   except that one of 2^[`JUMP_FROM_LOG2`] entries or more (but fewer than
//!   2^[`JUMP_TO_LOG2`]) grows straight to 2^[`JUMP_TO_LOG2`] (the last step, to the
//!   largest table, may be smaller);
//! - the largest table is the largest that fits the budget *while growing into it*
//!   (the table before it and the growth's own maps live until the move is done), and
//!   it counts as full at [`FULL_AT_EIGHTHS`]/8 (linear probes get long beyond): a
//!   full table is an error, never a dropped state.
//!
//! Why 8x at half load: a table's load decides the probes per insert, and the move
//! costs a pass over the states. Measured on the CPU set (`warpcheck-bench cpu-set
//! --threads 2`, 16-core H100 host, old and new binaries interleaved), growing 4x past
//! 6/8 ended at tables 46-60% full after 4-5 moves (0.1-1.4 s of moves) and ran at
//! 0.86x the speed of the former fixed 2^25-entry table; growing 8x past half keeps
//! every table at most half full, ends at that table's size for these models, and
//! moves at most an eighth of the final states in its last step. Still, that step
//! moved 2 M states on these models (7-12 M states): 0.1-0.2 s, 0.92x the fixed
//! table's speed. So a run past a quarter million states jumps to 2^25 entries (the
//! former fixed size, 256 MiB, whose pages are touched only as they fill) and moves
//! at most 262,144 states on the way. The first table stays small (2^16 entries), so
//! small models touch little memory. Tables of 2^28 entries and more grow only past
//! 3/4: such a growth moves hundreds of millions of entries into a table eight times
//! larger that the run may barely use. anderson.3 (`--overflow wrap`, 131.8 M states,
//! 16 threads, H200 host): 5.1 s with four growths (1.6 s of moves, 22.9 GB peak) at
//! half load, 3.9 s with three (0.15 s, 2.9 GB) at 3/4; the rest of the GPU set, whose
//! tables stay below 2^28 entries, ran as before.

use crate::memory::available;

/// Bytes for a state store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    bytes: u64,
}

/// The budget when the OS does not say how much memory is available.
const UNKNOWN_AVAILABLE: u64 = 8 << 30;

impl MemoryBudget {
    /// Exactly `bytes`.
    pub const fn new(bytes: u64) -> MemoryBudget {
        MemoryBudget { bytes }
    }

    /// `numerator / denominator` of the memory the OS reports available (of 8 GiB when
    /// it does not say).
    pub fn share_of_available(numerator: u64, denominator: u64) -> MemoryBudget {
        let available = available().unwrap_or(UNKNOWN_AVAILABLE);
        MemoryBudget::new(available / denominator.max(1) * numerator)
    }

    /// The store's default: half of the available memory (the rest is for the
    /// engines' queues, stacks and graphs, and for everything else on the machine).
    pub fn default_share() -> MemoryBudget {
        MemoryBudget::share_of_available(1, 2)
    }

    /// `bytes` if given, else [`default_share`](Self::default_share).
    pub fn or_default(bytes: Option<u64>) -> MemoryBudget {
        bytes.map_or_else(MemoryBudget::default_share, MemoryBudget::new)
    }

    /// The bytes.
    pub const fn bytes(self) -> u64 {
        self.bytes
    }

    /// `numerator / denominator` of this budget.
    pub const fn part(self, numerator: u64, denominator: u64) -> MemoryBudget {
        MemoryBudget::new(self.bytes / denominator * numerator)
    }
}

/// How much larger a table grows at once (a power of two).
pub const GROWTH: u64 = 8;
/// log2 of [`GROWTH`].
pub const GROWTH_LOG2: u32 = GROWTH.trailing_zeros();
/// A table that may still grow grows once more than this many eighths of it are used.
pub const GROW_AT_EIGHTHS: u64 = 4;
/// Tables from 2^`LATE_FROM_LOG2` entries grow only past [`GROW_LATE_AT_EIGHTHS`]/8.
pub const LATE_FROM_LOG2: u32 = 28;
/// See [`LATE_FROM_LOG2`].
pub const GROW_LATE_AT_EIGHTHS: u64 = 6;
/// The largest table is full once more than this many eighths of it are used.
pub const FULL_AT_EIGHTHS: u64 = 7;
/// Tables from 2^`JUMP_FROM_LOG2` entries up grow straight to 2^[`JUMP_TO_LOG2`].
pub const JUMP_FROM_LOG2: u32 = 19;
/// See [`JUMP_FROM_LOG2`].
pub const JUMP_TO_LOG2: u32 = 25;
/// log2 of the first table's entries (unless the budget allows less).
pub const FIRST_LOG2: u32 = 16;
/// Table sizes, log2 of entries: 2^4 (the smallest table) to 2^32 (ids are `u32`).
pub const MIN_LOG2: u32 = 4;
pub const MAX_LOG2: u32 = 32;

/// Bytes per entry of every table: the entry and its root bit.
pub const TABLE_BYTES_PER_ENTRY: f64 = 8.0 + 1.0 / 8.0;
/// Bytes per entry of the table grown *from*, while it grows: the growth's map of
/// moved subtrees (8) and its old-id → new-id map (4).
pub const GROWTH_BYTES_PER_OLD_ENTRY: f64 = 12.0;

/// The table sizes an engine may use: from `2^first_log2` entries, growing
/// [`GROWTH`]-fold to `2^max_log2` (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablePlan {
    first_log2: u32,
    max_log2: u32,
}

impl TablePlan {
    /// Tables from `2^first_log2` to `2^max_log2` entries (each clamped to 2^4..=2^32,
    /// the first at most the largest): for tests and for callers that know the sizes.
    pub fn new(first_log2: u32, max_log2: u32) -> TablePlan {
        let max_log2 = max_log2.clamp(MIN_LOG2, MAX_LOG2);
        TablePlan { first_log2: first_log2.clamp(MIN_LOG2, max_log2), max_log2 }
    }

    /// One table of `2^log2` entries that never grows.
    pub fn fixed(log2: u32) -> TablePlan {
        TablePlan::new(log2, log2)
    }

    /// The plan for `budget`, for an engine that keeps `extra_per_entry` bytes per
    /// table entry beside the entry and its root bit: from 2^[`FIRST_LOG2`] entries to
    /// the largest table whose bytes, with those of the table before it and of the
    /// growth from it, fit the budget.
    pub fn for_budget(budget: MemoryBudget, extra_per_entry: f64) -> TablePlan {
        let steady = TABLE_BYTES_PER_ENTRY + extra_per_entry;
        let old = steady + GROWTH_BYTES_PER_OLD_ENTRY;
        let peak = |max_log2: u32| {
            let plan = TablePlan::new(FIRST_LOG2, max_log2);
            let before = plan.before(max_log2).map_or(0.0, |b| (1u64 << b) as f64 * old);
            (1u64 << max_log2) as f64 * steady + before
        };
        let max_log2 = (MIN_LOG2..=MAX_LOG2).rev().find(|&l| peak(l) <= budget.bytes() as f64).unwrap_or(MIN_LOG2);
        TablePlan::new(FIRST_LOG2, max_log2)
    }

    /// The table before one of `2^log2` entries, if it is not the first.
    fn before(&self, log2: u32) -> Option<u32> {
        let mut at = self.first_log2;
        let mut before = None;
        while at < log2 {
            before = Some(at);
            at = self.next(at)?;
        }
        before
    }

    /// log2 of the first table's entries.
    pub fn first_log2(&self) -> u32 {
        self.first_log2
    }

    /// log2 of the largest table's entries.
    pub fn max_log2(&self) -> u32 {
        self.max_log2
    }

    /// The table after one of `2^log2` entries, `None` at the largest.
    pub fn next(&self, log2: u32) -> Option<u32> {
        let jump = (JUMP_FROM_LOG2..JUMP_TO_LOG2 - GROWTH_LOG2).contains(&log2);
        let to = if jump { JUMP_TO_LOG2 } else { log2 + GROWTH_LOG2 };
        (log2 < self.max_log2).then(|| to.min(self.max_log2))
    }

    /// Entries in use beyond which a table of `2^log2` entries must grow (or, the
    /// largest, is full).
    pub fn load_limit(&self, log2: u32) -> u64 {
        let eighths = match self.next(log2) {
            Some(_) if log2 >= LATE_FROM_LOG2 => GROW_LATE_AT_EIGHTHS,
            Some(_) => GROW_AT_EIGHTHS,
            None => FULL_AT_EIGHTHS,
        };
        (1u64 << log2) / 8 * eighths
    }

    /// Whether `entries` in use in a table of `2^log2` entries are beyond its limit.
    pub fn over(&self, log2: u32, entries: u64) -> bool {
        entries > self.load_limit(log2)
    }

    /// Bytes of the largest table with `extra_per_entry` bytes beside each entry.
    pub fn max_bytes(&self, extra_per_entry: f64) -> u64 {
        ((1u64 << self.max_log2) as f64 * (TABLE_BYTES_PER_ENTRY + extra_per_entry)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_fits_the_budget_while_growing() {
        for (budget, extra) in [(16u64 << 20, 4.0), (1 << 30, 0.0), (1 << 30, 4.0), (8 << 30, 8.0), (100 << 30, 4.0)] {
            let plan = TablePlan::for_budget(MemoryBudget::new(budget), extra);
            let steady = |l: u32| (1u64 << l) as f64 * (TABLE_BYTES_PER_ENTRY + extra);
            // Every growth on the way: the new table beside the old with its maps.
            let mut log2 = plan.first_log2;
            while let Some(next) = plan.next(log2) {
                let peak = steady(next) + steady(log2) + (1u64 << log2) as f64 * 12.0;
                assert!(peak <= budget as f64, "{budget} {extra}: {plan:?} at 2^{next}");
                log2 = next;
            }
            assert_eq!(log2, plan.max_log2);
            assert!(3.0 * steady(plan.max_log2) > budget as f64 * 0.7, "{budget} {extra}: {plan:?} wastes the budget");
            assert_eq!(plan.first_log2, FIRST_LOG2);
        }
    }

    #[test]
    fn sizes_for_the_cli_defaults() {
        // 16 MiB with parent links: 2^19 entries (6.4 MB) grown into from 2^16 (1.6 MB
        // with the growth's maps); 2^20 (12.7 MB) from 2^19 (12.6 MB) would need 25 MB.
        let plan = TablePlan::for_budget(MemoryBudget::new(16 << 20), 4.0);
        assert_eq!((plan.first_log2(), plan.max_log2()), (16, 19));
        assert_eq!((plan.next(16), plan.next(19)), (Some(19), None));
        // 1 GiB without: 2^25 entries (273 MB) grown into from 2^22 (84 MB); 2^26
        // (545 MB) from 2^25 (675 MB) would not fit.
        let plan = TablePlan::for_budget(MemoryBudget::new(1 << 30), 0.0);
        assert_eq!((plan.first_log2(), plan.max_log2()), (16, 25));
        // A budget too small for 2^16 entries: one table.
        let plan = TablePlan::for_budget(MemoryBudget::new(100_000), 0.0);
        assert_eq!((plan.first_log2(), plan.max_log2()), (13, 13));
        assert_eq!(TablePlan::for_budget(MemoryBudget::new(1), 0.0), TablePlan::fixed(4));
    }

    #[test]
    fn limits() {
        let plan = TablePlan::new(4, 12);
        assert_eq!(plan.next(4), Some(7));
        let large = TablePlan::new(16, 32);
        let sizes: Vec<u32> = std::iter::successors(Some(16), |&l| large.next(l)).collect();
        assert_eq!(sizes, [16, 19, 25, 28, 31, 32]);
        assert_eq!(TablePlan::new(20, 24).next(20), Some(24));
        assert_eq!(plan.next(11), Some(12));
        assert_eq!(plan.load_limit(4), 8);
        assert_eq!(plan.load_limit(12), 3584);
        // Half load below 2^28 entries, 3/4 from there, 7/8 for the largest.
        assert_eq!(large.load_limit(25), 1 << 24);
        assert_eq!(large.load_limit(28), 3 << 26);
        assert_eq!(large.load_limit(31), 3 << 29);
        assert_eq!(large.load_limit(32), 7 << 29);
        assert!(plan.over(4, 9) && !plan.over(4, 8));
        assert_eq!(TablePlan::new(20, 8), TablePlan::fixed(8));
    }
}
