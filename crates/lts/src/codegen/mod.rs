//! A network as a [`CudaModel`]: CUDA C against the kernels' ABI
//! (`warpcheck_model::cuda`) that is **table-driven**: one fixed C body
//! (`network.c`) interprets the network's tables (`tables.rs`), which the engine
//! uploads to device memory (`WC_TABLE`). The components' edges (per local state,
//! `(label, target)` sorted by label), an index of the transition groups by their
//! first participant and label, and each group's participants and product label are
//! data; a state runs, per component that starts groups, over the runs of equal
//! labels of its local state's edges, looks the groups up, finds the other
//! participants' edges of their labels, and enumerates the choices of targets with an
//! odometer over a fixed-size array (`WC_NET_MAX_PARTS`). Under
//! [`Counting::Distinct`] the steps of groups that share a label are merged per state
//! in a small local buffer, exactly as the CPU successor function does.
//!
//! The source is the body behind a dozen `#define`s of the network's shape (state
//! words, components, most participants, merge buffer, monitor, property, last-action
//! word, labels asked for): a few KB whatever the network, so that NVRTC compiles it
//! in about a second, and the compilation cache (keyed by the source text) serves
//! every network of the same shape.
//!
//! # Why no generated code any more
//!
//! The first generator wrote, per component, a `switch` over the labels of the local
//! state's edges and, per group, straight-line nested loops over its participants;
//! its source grew with the groups. Measured on the networks exported from BEEM
//! (`examples/net_source.rs` on the host; `warpcheck explore --backend gpu` on one
//! H200, compilation cache empty, then warm):
//!
//! | network | source | `gcc -O2` | NVRTC | GPU search |
//! | --- | --- | --- | --- | --- |
//! | firewire_link.5 (13 comp., 979 vectors) | 392 KB → 6.6 KB | 70 s → 0.3 s | > 150 s → 0.49 s | – → 0.19 s |
//! | iprotocol.6 (6 comp., 148 vectors) | 61 KB → 6.6 KB | 6.7 s → 0.2 s | 9 s (reported) → not measured | |
//! | lamport_nonatomic.4 | | | 4.4 s → 0.47 s | 23 → 16 ms |
//! | iprotocol.3 | | | 3.1 s → 0.46 s | 42 → 36 ms |
//! | protocols.5 | | | 1.1 s → 0.06 s | 13 → 13 ms |
//! | cyclic_scheduler.4 | | | 2.6 s → 0.41 s | 24 → 17 ms |
//! | cambridge.4 | | | 1.6 s → 0.30 s | 22 → 15 ms |
//!
//! On the host, the table-driven code expands the first 10,000 BFS states of
//! firewire_link.5 and iprotocol.6 faster than the generated code (about 430 → 370
//! and 445 → 320 ns per state), where the large generated function misses the
//! instruction cache; on small networks (beem-net's lamport_nonatomic.3, iprotocol.1,
//! cyclic_scheduler.2, ...) it is 1.0 to 1.8 times slower there, the cost of reading
//! the group descriptions. On the GPU, where a thread expands a state and inserting
//! successors into the hash table dominates, it was as fast or faster on every
//! network measured, small ones included, and it compiles 5 to 20 times faster. No
//! network was found where the old generator pays, so it was replaced rather than
//! kept as an option: one generator is also simpler to keep equal to the CPU.

mod tables;

use std::fmt::Write;

use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::{LabelId, Model};

use crate::network::{Counting, Network};

/// The fixed C body: the ABI's functions over the tables.
const BODY: &str = include_str!("network.c");

/// The most words the merge buffer of one thread may take.
const MAX_MERGE_WORDS: u64 = 1 << 12;

impl Network {
    /// Per component and local label, the most edges of the label that one local
    /// state has (one pass over the edges).
    fn most_edges(&self) -> Vec<Vec<u64>> {
        (self.components.iter())
            .map(|comp| {
                let mut most = vec![0u64; comp.labels.len()];
                for s in 0..comp.states() {
                    let out = comp.out(s);
                    let mut i = 0;
                    while i < out.len() {
                        let j = i + out[i..].iter().take_while(|e| e.0 == out[i].0).count();
                        let m = &mut most[out[i].0 as usize];
                        *m = (*m).max((j - i) as u64);
                        i = j;
                    }
                }
                most
            })
            .collect()
    }

    /// Upper bounds on the steps of one state, all of them and those that are merged
    /// (`shared`): a state tries only the groups whose first participant offers the
    /// group's label in its local state, so per component the bound is the largest,
    /// over its local states, sum of the groups it starts there; the other
    /// participants count with their most edges of the label. Much tighter than the
    /// sum over all groups, which sizes the kernels' per-thread buffers.
    fn step_bounds(&self, by_first: &[Vec<Vec<u32>>], shared: &[bool], fan_out: u64) -> (u64, u64) {
        let most = self.most_edges();
        let rest: Vec<u64> = (self.groups.iter())
            .map(|g| g.parts[1..].iter().fold(fan_out, |acc, &(c, l)| acc.saturating_mul(most[c as usize][l as usize])))
            .collect();
        let (mut total, mut merged) = (0u64, 0u64);
        for (c, labels) in by_first.iter().enumerate() {
            if labels.iter().all(Vec::is_empty) {
                continue;
            }
            // Per label: the bound of the groups it starts, per edge of the first participant.
            let per_edge: Vec<(u64, u64)> = (labels.iter())
                .map(|groups| {
                    let all = groups.iter().fold(0u64, |a, &g| a.saturating_add(rest[g as usize]));
                    let merged = (groups.iter().filter(|&&g| shared[g as usize]))
                        .fold(0u64, |a, &g| a.saturating_add(rest[g as usize]));
                    (all, merged)
                })
                .collect();
            let comp = &self.components[c];
            let (mut most, mut most_merged) = (0u64, 0u64);
            for s in 0..comp.states() {
                let (mut here, mut here_merged) = (0u64, 0u64);
                for &(l, _) in comp.out(s) {
                    let (all, merged) = per_edge[l as usize];
                    here = here.saturating_add(all);
                    here_merged = here_merged.saturating_add(merged);
                }
                most = most.max(here);
                most_merged = most_merged.max(here_merged);
            }
            total = total.saturating_add(most);
            merged = merged.saturating_add(most_merged);
        }
        (total.max(1), merged)
    }

    /// Per group, whether its steps are merged with the state's other steps of its
    /// label: under [`Counting::Distinct`], when another group has the same label.
    fn shared_groups(&self) -> Vec<bool> {
        let mut count = vec![0u32; self.labels.len()];
        for g in &self.groups {
            count[g.label as usize] += 1;
        }
        (self.groups.iter()).map(|g| self.counting == Counting::Distinct && count[g.label as usize] > 1).collect()
    }

    /// Per label asked for, 0 for the assertion (no error state) or the action
    /// proposition's index + 1.
    fn asked(&self, labels: &[LabelId]) -> Result<Vec<u32>, Unsupported> {
        (labels.iter())
            .map(|&label| match label.checked_sub(self.assertion_count()) {
                None => Ok(0),
                Some(a) if a < self.actions.len() => Ok(a as u32 + 1),
                Some(_) => Err(Unsupported::Model(format!("label {label} is not a label of the network"))),
            })
            .collect()
    }
}

impl CudaModel for Network {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        let fan_out = self.monitor.as_ref().map_or(1, |m| m.fan_out());
        let shared = self.shared_groups();
        let by_first = tables::by_first(self);
        let (max_successors, merged) = self.step_bounds(&by_first, &shared, fan_out);
        let words = self.state_words();
        if merged.saturating_mul(words as u64 + 1) > MAX_MERGE_WORDS {
            return Err(Unsupported::Model(format!(
                "merging equal steps would need {merged} buffered successors per state on the GPU; \
                 use --transitions multiplicity"
            )));
        }
        let asked = self.asked(labels)?;
        let tables = tables::tables(self, &by_first, &shared, &asked)?;
        let mut src = String::new();
        let shape = [
            ("WC_WORDS", words as i64),
            ("WC_ASSERTIONS", self.assertion_count() as i64),
            ("WC_INVARIANTS", labels.len() as i64),
            ("WC_NET_COMPONENTS", self.components.len() as i64),
            ("WC_NET_MAX_PARTS", self.groups.iter().map(|g| g.parts.len()).max().unwrap_or(1) as i64),
            ("WC_NET_MERGE", merged as i64),
            ("WC_NET_MONITOR", self.monitor.is_some() as i64),
            ("WC_NET_PROPERTY", self.property.is_some() as i64),
            ("WC_NET_LAST", self.last_action_word().map_or(-1, |w| w as i64)),
            ("WC_NET_ASKED", labels.len() as i64),
        ];
        for (name, value) in shape {
            let _ = writeln!(src, "#define {name} {value}");
        }
        for t in &tables {
            let _ = writeln!(src, "WC_TABLE({})", t.name);
        }
        src.push_str(BODY);
        Ok(CudaSource { source: src, max_successors, tables })
    }
}
