//! A network as a [`CudaModel`]: CUDA C against the kernels' ABI
//! (`warpcheck_model::cuda`), with each component as tables in device memory (per
//! local state, its `(label, target)` edges sorted by label) and each transition
//! group as straight-line nested loops over its participants' targets. Under
//! [`Counting::Distinct`] the steps of groups that share a label are merged per
//! state in a small local buffer, exactly as the CPU successor function does.

use std::fmt::Write;

use rustc_hash::FxHashMap;

use warpcheck_model::cuda::{CudaModel, CudaSource, Table, Unsupported};
use warpcheck_model::{LabelId, Model};

use crate::network::{Counting, Network};

/// The most words the merge buffer of one thread may take.
const MAX_MERGE_WORDS: u64 = 1 << 12;

impl Network {
    /// The most edges labelled `l` that one local state of component `c` has.
    fn most_edges(&self, c: u32, l: u32) -> u64 {
        let comp = &self.components[c as usize];
        (0..comp.states()).map(|s| comp.with_label(s, l).len() as u64).max().unwrap_or(0)
    }

    /// Upper bounds on the steps of one state, all of them and those that are merged
    /// (`shared`): a state tries only the groups whose first participant offers the
    /// group's label in its local state, so per component the bound is the largest,
    /// over its local states, sum of the groups it starts there; the other
    /// participants count with their most edges of the label. Much tighter than the
    /// sum over all groups, which sizes the kernels' per-thread buffers.
    fn step_bounds(&self, by_first: &[Vec<(u32, Vec<usize>)>], shared: &[bool], fan_out: u64) -> (u64, u64) {
        let rest: Vec<u64> = (self.groups.iter())
            .map(|g| g.parts[1..].iter().fold(fan_out, |acc, &(c, l)| acc.saturating_mul(self.most_edges(c, l))))
            .collect();
        let (mut total, mut merged) = (0u64, 0u64);
        for (c, cases) in by_first.iter().enumerate().filter(|(_, cases)| !cases.is_empty()) {
            // Per label: the bound of the groups it starts, per edge of the first participant.
            let per_edge: FxHashMap<u32, (u64, u64)> = (cases.iter())
                .map(|(l, groups)| {
                    let all = groups.iter().fold(0u64, |a, &g| a.saturating_add(rest[g]));
                    let merged = groups.iter().filter(|&&g| shared[g]).fold(0u64, |a, &g| a.saturating_add(rest[g]));
                    (*l, (all, merged))
                })
                .collect();
            let comp = &self.components[c];
            let (mut most, mut most_merged) = (0u64, 0u64);
            for s in 0..comp.states() {
                let (mut here, mut here_merged) = (0u64, 0u64);
                for &(l, _) in comp.out(s) {
                    if let Some(&(all, merged)) = per_edge.get(&l) {
                        here = here.saturating_add(all);
                        here_merged = here_merged.saturating_add(merged);
                    }
                }
                most = most.max(here);
                most_merged = most_merged.max(here_merged);
            }
            total = total.saturating_add(most);
            merged = merged.saturating_add(most_merged);
        }
        (total.max(1), merged)
    }
}

/// Declares table `name` in the source and keeps its data for the engine to upload
/// (`WC_TABLE`, see `warpcheck_model::cuda`): component tables of millions of
/// entries stay out of the compiled source.
fn table(out: &mut String, tables: &mut Vec<Table>, name: &str, values: impl Iterator<Item = u32>) {
    let mut data: Vec<u32> = values.collect();
    if data.is_empty() {
        data.push(0);
    }
    let _ = writeln!(out, "WC_TABLE({name})");
    tables.push(Table { name: name.to_string(), data });
}

impl Network {
    /// The C of group `g` from state `s` into `t` (restored after): every choice of
    /// its participants' targets is one step; `shared`: merged with the state's other
    /// steps of the same label. The first participant's edges are `[e, f)`, found by
    /// the caller's switch.
    fn group_code(&self, src: &mut String, g: usize, shared: bool, last: Option<usize>) {
        let group = &self.groups[g];
        let _ = writeln!(src, "  {{ /* group {g}: {} */", self.describe_group(g as u32).replace("*/", "* /"));
        src.push_str("    u32 a0 = e, b0 = f;\n");
        for (j, &(c, l)) in group.parts.iter().enumerate().skip(1) {
            let _ = writeln!(src, "    u32 a{j}, b{j}; wc_range(wc_off{c}, wc_lab{c}, s[{c}], {l}, &a{j}, &b{j});");
        }
        let guard: Vec<String> = (0..group.parts.len()).map(|j| format!("a{j} < b{j}")).collect();
        let _ = writeln!(src, "    if ({}) {{", guard.join(" && "));
        for (j, &(c, _)) in group.parts.iter().enumerate() {
            let _ = writeln!(src, "    for (u32 i{j} = a{j}; i{j} < b{j}; i{j}++) {{ t[{c}] = wc_tgt{c}[i{j}];");
        }
        let seen = if shared { "seen" } else { "0" };
        if let Some(w) = last {
            let _ = writeln!(src, "      t[{w}] = {};", group.label + 1);
        }
        let _ = writeln!(src, "      any = 1; wc_step(sink, t, {}, {seen}, &nseen);", group.label);
        src.push_str(&"    }".repeat(group.parts.len()));
        src.push('\n');
        for &(c, _) in &group.parts {
            let _ = write!(src, "    t[{c}] = s[{c}];");
        }
        src.push_str("\n    }\n  }\n");
    }
}

impl CudaModel for Network {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        let n = self.components.len();
        let last = self.last_action_word();
        let fan_out = self.monitor.as_ref().map_or(1, |m| m.fan_out());
        let mut shared = vec![false; self.groups.len()];
        if self.counting == Counting::Distinct {
            for (i, g) in self.groups.iter().enumerate() {
                shared[i] = self.groups.iter().enumerate().any(|(j, h)| j != i && h.label == g.label);
            }
        }
        // The groups by their first participant and its label, for the bounds and for
        // the switches of `wc_successors`.
        let mut by_first: Vec<Vec<(u32, Vec<usize>)>> = vec![Vec::new(); n];
        for (g, group) in self.groups.iter().enumerate() {
            let (c, l) = group.parts[0];
            let cases = &mut by_first[c as usize];
            match cases.iter_mut().find(|(label, _)| *label == l) {
                Some((_, groups)) => groups.push(g),
                None => cases.push((l, vec![g])),
            }
        }
        let (max_successors, merged) = self.step_bounds(&by_first, &shared, fan_out);
        let words = self.state_words();
        if merged.saturating_mul(words as u64 + 1) > MAX_MERGE_WORDS {
            return Err(Unsupported::Model(format!(
                "merging equal steps would need {merged} buffered successors per state on the GPU; \
                 use --transitions multiplicity"
            )));
        }
        let mut src = String::new();
        let mut tables = Vec::new();
        let assertions = (self.monitor.is_some() || self.property.is_some()) as u32;
        let _ = writeln!(
            src,
            "#define WC_WORDS {words}\n#define WC_ASSERTIONS {assertions}\n#define WC_INVARIANTS {}",
            labels.len()
        );
        for (c, comp) in self.components.iter().enumerate() {
            let mut offsets = vec![0u32];
            let mut labels = Vec::new();
            let mut targets = Vec::new();
            for s in 0..comp.states() {
                for &(l, t) in comp.out(s) {
                    labels.push(l);
                    targets.push(t);
                }
                offsets.push(labels.len() as u32);
            }
            table(&mut src, &mut tables, &format!("wc_off{c}"), offsets.into_iter());
            table(&mut src, &mut tables, &format!("wc_lab{c}"), labels.into_iter());
            table(&mut src, &mut tables, &format!("wc_tgt{c}"), targets.into_iter());
        }
        src.push_str(
            "/* The edges of a local state with one label: [*a, *b) (edges are sorted by label). */\n\
             WC_FN void wc_range(const u32 *off, const u32 *lab, u32 s, u32 l, u32 *a, u32 *b) {\n\
             \x20 u32 i = off[s], e = off[s + 1];\n\
             \x20 while (i < e && lab[i] < l) i++;\n\
             \x20 *a = i;\n\
             \x20 while (i < e && lab[i] == l) i++;\n\
             \x20 *b = i;\n}\n",
        );
        if let Some(m) = &self.monitor {
            let (offsets, targets) = m.table();
            table(&mut src, &mut tables, "wc_mon_obs", m.observed.iter().map(|&o| o as u32));
            table(&mut src, &mut tables, "wc_mon_err", m.error.iter().map(|&e| e as u32));
            table(&mut src, &mut tables, "wc_mon_off", offsets.iter().copied());
            table(&mut src, &mut tables, "wc_mon_tgt", targets.iter().copied());
        }
        // One step out: merged with the earlier steps of the state (when `seen`), or not.
        src.push_str(
            "WC_FN void wc_out(WcSink *sink, const u32 *t, u32 label, u32 *seen, u32 *nseen) {\n\
             \x20 if (seen) {\n\
             \x20   for (u32 k = 0; k < *nseen; k++) {\n\
             \x20     const u32 *r = seen + k * (WC_WORDS + 1);\n\
             \x20     if (r[0] != label) continue;\n\
             \x20     int same = 1; for (int w = 0; w < WC_WORDS; w++) same &= r[w + 1] == t[w];\n\
             \x20     if (same) return;\n\
             \x20   }\n\
             \x20   u32 *r = seen + *nseen * (WC_WORDS + 1); (*nseen)++;\n\
             \x20   r[0] = label; for (int w = 0; w < WC_WORDS; w++) r[w + 1] = t[w];\n\
             \x20 }\n\
             \x20 wc_emit(sink, t);\n}\n",
        );
        if self.monitor.is_some() {
            let labels = self.labels.len();
            let _ = writeln!(
                src,
                "/* A system step with the monitor's moves: it stays on an unobserved label. */\n\
                 WC_FN void wc_step(WcSink *sink, u32 *t, u32 label, u32 *seen, u32 *nseen) {{\n\
                 \x20 u32 q = t[{n}], m = q * {labels} + label;\n\
                 \x20 if (!wc_mon_obs[label]) wc_out(sink, t, label, seen, nseen);\n\
                 \x20 for (u32 i = wc_mon_off[m]; i < wc_mon_off[m + 1]; i++) {{ t[{n}] = wc_mon_tgt[i]; wc_out(sink, t, label, seen, nseen); }}\n\
                 \x20 t[{n}] = q;\n}}"
            );
        } else {
            src.push_str(
                "WC_FN void wc_step(WcSink *sink, u32 *t, u32 label, u32 *seen, u32 *nseen) { wc_out(sink, t, label, seen, nseen); }\n",
            );
        }
        src.push_str("WC_FN int wc_successors(const u32 *s, WcSink *sink) {\n  int any = 0;\n  u32 t[WC_WORDS];\n");
        src.push_str("  for (int w = 0; w < WC_WORDS; w++) t[w] = s[w];\n");
        if merged > 0 {
            let _ = writeln!(src, "  u32 seen[{}]; u32 nseen = 0;", merged * (words as u64 + 1));
        } else {
            src.push_str("  u32 *seen = 0; u32 nseen = 0;\n");
        }
        // A state tries only the groups whose first participant offers its label: per
        // component, a switch over the distinct labels of its local state's edges.
        for (c, cases) in by_first.iter().enumerate().filter(|(_, cases)| !cases.is_empty()) {
            let _ = writeln!(src, "  for (u32 e = wc_off{c}[s[{c}]], end = wc_off{c}[s[{c}] + 1]; e < end;) {{");
            let _ = writeln!(src, "    u32 l = wc_lab{c}[e], f = e;\n    while (f < end && wc_lab{c}[f] == l) f++;");
            src.push_str("    switch (l) {\n");
            for (l, groups) in cases {
                let _ = writeln!(src, "    case {l}u: {{");
                for &g in groups {
                    self.group_code(&mut src, g, shared[g], last);
                }
                src.push_str("    break; }\n");
            }
            src.push_str("    default: break;\n    }\n    e = f;\n  }\n");
        }
        src.push_str("  return !any;\n}\n");
        let monitor = if self.monitor.is_some() { format!("wc_mon_err[s[{n}]]") } else { "0".into() };
        let property = self.property.map_or_else(|| "0".into(), |(c, l)| format!("s[{c}] == {l}"));
        let _ = writeln!(src, "WC_FN int wc_mon_error(const u32 *s) {{ return {monitor} || {property}; }}");
        src.push_str("WC_FN int wc_assertion(const u32 *s) { return WC_ASSERTIONS && wc_mon_error(s) ? 0 : -1; }\n");
        // Labels: the assertion (no error state), then action propositions, which read
        // the last action's word.
        src.push_str("WC_FN int wc_label(int k, const u32 *s) {\n  switch (k) {\n");
        for (k, &label) in labels.iter().enumerate() {
            match (label.checked_sub(self.assertion_count()), last) {
                (Some(a), Some(w)) if a < self.actions.len() => {
                    let words: Vec<String> = (0..self.labels.len() as u32)
                        .filter(|&l| self.action_holds(a, l + 1))
                        .map(|l| format!("case {}u:", l + 1))
                        .collect();
                    let _ = writeln!(
                        src,
                        "  case {k}: switch (s[{w}]) {{ {} return 1; default: return 0; }}",
                        words.join(" ")
                    );
                }
                (None, _) => {
                    let _ = writeln!(src, "  case {k}: return !wc_mon_error(s);");
                }
                _ => return Err(Unsupported::Model(format!("label {label} is not a label of the network"))),
            }
        }
        src.push_str("  default: return -1;\n  }\n}\n");
        src.push_str(
            "WC_FN int wc_invariant(int k, const u32 *s) { return wc_label(k, s) == 1; }\n\
             WC_FN int wc_accepting(const u32 *s) { return 0; }\n",
        );
        Ok(CudaSource { source: src, max_successors, tables })
    }
}
