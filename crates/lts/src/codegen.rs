//! A network as a [`CudaModel`]: CUDA C against the kernels' ABI
//! (`warpcheck_model::cuda`), with each component as tables in device memory (per
//! local state, its `(label, target)` edges sorted by label) and each transition
//! group as straight-line nested loops over its participants' targets. Under
//! [`Counting::Distinct`] the steps of groups that share a label are merged per
//! state in a small local buffer, exactly as the CPU successor function does.

use std::fmt::Write;

use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::LabelId;

use crate::network::{Counting, Network};

/// The most words the merge buffer of one thread may take.
const MAX_MERGE_WORDS: u64 = 1 << 12;

impl Network {
    /// An upper bound on the steps of group `g` from one state.
    fn group_bound(&self, g: usize) -> u64 {
        self.groups[g].parts.iter().fold(1u64, |acc, &(c, l)| {
            let comp = &self.components[c as usize];
            let most = (0..comp.states()).map(|s| comp.with_label(s, l).len() as u64).max().unwrap_or(0);
            acc.saturating_mul(most)
        })
    }
}

fn table(out: &mut String, name: &str, values: impl Iterator<Item = u32>) {
    let _ = write!(out, "WC_TABLE u32 {name}[] = {{");
    let mut any = false;
    for (i, v) in values.enumerate() {
        any = true;
        if i % 16 == 0 {
            out.push('\n');
        }
        let _ = write!(out, "{v},");
    }
    if !any {
        out.push('0');
    }
    out.push_str("};\n");
}

impl CudaModel for Network {
    fn cuda_source(&self, invariants: &[LabelId]) -> Result<CudaSource, Unsupported> {
        if self.monitor.is_some() {
            return Err(Unsupported::Model("safety monitors of networks run on the CPU only, for now".into()));
        }
        if !invariants.is_empty() {
            return Err(Unsupported::Model("networks of LTSs have no state invariants".into()));
        }
        let n = self.components.len();
        let bounds: Vec<u64> = (0..self.groups.len()).map(|g| self.group_bound(g)).collect();
        let max_successors = bounds.iter().fold(0u64, |a, &b| a.saturating_add(b)).max(1);
        let mut shared = vec![false; self.groups.len()];
        if self.counting == Counting::Distinct {
            for (i, g) in self.groups.iter().enumerate() {
                shared[i] = self.groups.iter().enumerate().any(|(j, h)| j != i && h.label == g.label);
            }
        }
        let merged: u64 = bounds.iter().zip(&shared).filter(|(_, &s)| s).map(|(b, _)| *b).sum();
        if merged.saturating_mul(n as u64 + 1) > MAX_MERGE_WORDS {
            return Err(Unsupported::Model(format!(
                "merging equal steps would need {merged} buffered successors per state on the GPU; \
                 use --transitions multiplicity"
            )));
        }
        let mut src = String::new();
        src.push_str(
            "#if defined(__CUDACC__) || defined(__CUDACC_RTC__)\n#define WC_TABLE __device__ const\n#else\n\
             #define WC_TABLE static const\n#endif\n",
        );
        let _ = writeln!(src, "#define WC_WORDS {n}\n#define WC_ASSERTIONS 0\n#define WC_INVARIANTS 0");
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
            table(&mut src, &format!("wc_off{c}"), offsets.into_iter());
            table(&mut src, &format!("wc_lab{c}"), labels.into_iter());
            table(&mut src, &format!("wc_tgt{c}"), targets.into_iter());
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
        let buffer = merged > 0;
        src.push_str("WC_FN int wc_successors(const u32 *s, WcSink *sink) {\n  int any = 0;\n  u32 t[WC_WORDS];\n");
        src.push_str("  for (int w = 0; w < WC_WORDS; w++) t[w] = s[w];\n");
        if buffer {
            let _ = writeln!(src, "  u32 seen[{}]; u32 nseen = 0;", merged * (n as u64 + 1));
        }
        for (g, group) in self.groups.iter().enumerate() {
            let _ = writeln!(src, "  {{ /* group {g}: {} */", self.describe_group(g as u32).replace("*/", "* /"));
            for (j, &(c, l)) in group.parts.iter().enumerate() {
                let _ = writeln!(src, "    u32 a{j}, b{j}; wc_range(wc_off{c}, wc_lab{c}, s[{c}], {l}, &a{j}, &b{j});");
            }
            let guard: Vec<String> = (0..group.parts.len()).map(|j| format!("a{j} < b{j}")).collect();
            let _ = writeln!(src, "    if ({}) {{", guard.join(" && "));
            for (j, &(c, _)) in group.parts.iter().enumerate() {
                let _ = writeln!(src, "    for (u32 i{j} = a{j}; i{j} < b{j}; i{j}++) {{ t[{c}] = wc_tgt{c}[i{j}];");
            }
            if shared[g] {
                let _ = writeln!(
                    src,
                    "      int dup = 0;\n      for (u32 k = 0; k < nseen && !dup; k++) {{\n\
                     \x20       const u32 *r = seen + k * (WC_WORDS + 1);\n\
                     \x20       if (r[0] != {label}) continue;\n\
                     \x20       int same = 1; for (int w = 0; w < WC_WORDS; w++) same &= r[w + 1] == t[w];\n\
                     \x20       dup = same;\n      }}\n\
                     \x20     if (!dup) {{\n\
                     \x20       u32 *r = seen + nseen * (WC_WORDS + 1); nseen++;\n\
                     \x20       r[0] = {label}; for (int w = 0; w < WC_WORDS; w++) r[w + 1] = t[w];\n\
                     \x20       wc_emit(sink, t); any = 1;\n      }}",
                    label = group.label
                );
            } else {
                src.push_str("      wc_emit(sink, t); any = 1;\n");
            }
            src.push_str(&"    }".repeat(group.parts.len()));
            src.push('\n');
            for &(c, _) in &group.parts {
                let _ = write!(src, "    t[{c}] = s[{c}];");
            }
            src.push_str("\n    }\n  }\n");
        }
        src.push_str("  return !any;\n}\n");
        src.push_str(
            "WC_FN int wc_assertion(const u32 *s) { return -1; }\n\
             WC_FN int wc_invariant(int k, const u32 *s) { return 0; }\n\
             WC_FN int wc_accepting(const u32 *s) { return 0; }\n",
        );
        Ok(CudaSource { source: src, max_successors })
    }
}
