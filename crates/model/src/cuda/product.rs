//! The C of a [`Product`]: the model's generated functions, renamed, inside the
//! product's own `wc_successors` and `wc_accepting`, with the semantics of the CPU
//! [`Product`] (guards on the source state, stuttering, erroring guards as error
//! steps).
//!
//! The model's source is included between macros that rename its `wc_successors`
//! and `wc_accepting` and redirect its `wc_emit` / `wc_emit_error` to a sink of the
//! product, which pairs each system step with the automaton edges enabled in the
//! source state. Its `wc_assertion`, `wc_invariant` and `wc_label` serve the
//! product as they are: they read only the model's words and bits. A product of a
//! product has no C (the renamed names would clash).

use std::fmt::Write;

use super::{CudaModel, CudaSource, Unsupported};
use crate::interface::{LabelId, Model};
use crate::product::Product;

/// The most automaton edges the generated code handles (a 64-bit mask).
const MAX_EDGES: usize = 64;

impl<M: CudaModel> CudaModel for Product<M> {
    fn cuda_source(&self, invariants: &[LabelId]) -> Result<CudaSource, Unsupported> {
        let edges = &self.automaton.edges;
        if edges.len() > MAX_EDGES {
            return Err(Unsupported::Model(format!(
                "the property automaton has {} edges; the GPU code supports at most {MAX_EDGES}",
                edges.len()
            )));
        }
        // The model compiles the invariants, then every label a guard reads.
        let mut labels = invariants.to_vec();
        for literal in edges.iter().flat_map(|e| e.guard.iter().flatten()) {
            if !labels[invariants.len()..].contains(&literal.0) {
                labels.push(literal.0);
            }
        }
        let index =
            |label: LabelId| invariants.len() + labels[invariants.len()..].iter().position(|&l| l == label).unwrap();
        let inner = self.model.cuda_source(&labels)?;

        let (place, appended) = self.automaton_place();
        let (words, system_words) = (self.state_words(), self.model.state_words());
        let (w, sh, mask) = (place.word, place.shift, place.mask());
        let get = format!("((s[{w}] >> {sh}) & {mask}u)");
        let set = |to: u32| format!("n[{w}] = (n[{w}] & ~({mask}u << {sh})) | ({to}u << {sh});");
        let mut c = String::new();
        let out = &mut c;
        writeln!(out, "/* The product with the Büchi automaton {} (warpcheck_model::Product). */", self.automaton.name)
            .unwrap();
        writeln!(out, "typedef struct {{ WcSink *outer; u64 edges; int steps; }} WcProductSink;").unwrap();
        writeln!(out, "WC_FN void wc_product_emit(WcProductSink *p, const u32 *t) {{").unwrap();
        writeln!(out, "  u32 n[{words}];").unwrap();
        writeln!(out, "  p->steps++;").unwrap();
        writeln!(out, "  for (int k = 0; k < {system_words}; k++) n[k] = t[k];").unwrap();
        if appended {
            writeln!(out, "  n[{w}] = 0;").unwrap();
        }
        for (e, edge) in edges.iter().enumerate() {
            writeln!(out, "  if ((p->edges >> {e}) & 1ull) {{ {} wc_emit(p->outer, n); }}", set(edge.to)).unwrap();
        }
        writeln!(out, "}}").unwrap();
        writeln!(out, "WC_FN void wc_product_emit_error(WcProductSink *p) {{ p->steps++; wc_emit_error(p->outer); }}")
            .unwrap();
        for (from, to) in RENAMES {
            writeln!(out, "#define {from} {to}").unwrap();
        }
        out.push_str(&inner.source);
        for (from, _) in RENAMES {
            writeln!(out, "#undef {from}").unwrap();
        }
        writeln!(out, "#undef WC_WORDS\n#define WC_WORDS {words}").unwrap();
        writeln!(out, "#undef WC_INVARIANTS\n#define WC_INVARIANTS {}", invariants.len()).unwrap();

        writeln!(out, "WC_FN int wc_accepting(const u32 *s) {{").unwrap();
        writeln!(out, "  switch ({get}) {{").unwrap();
        for (q, _) in self.automaton.accepting.iter().enumerate().filter(|(_, &a)| a) {
            writeln!(out, "  case {q}: return 1;").unwrap();
        }
        writeln!(out, "  default: return 0;\n  }}\n}}").unwrap();

        writeln!(out, "WC_FN int wc_successors(const u32 *s, WcSink *sink) {{").unwrap();
        writeln!(out, "  u32 q = {get};").unwrap();
        writeln!(out, "  WcProductSink p; p.outer = sink; p.edges = 0; p.steps = 0;").unwrap();
        writeln!(out, "  int moves = 0;").unwrap();
        for (e, edge) in edges.iter().enumerate() {
            // Cubes in order, literals in order with short-circuit, as the CPU does.
            writeln!(out, "  if (q == {}u) {{", edge.from).unwrap();
            for (k, cube) in edge.guard.iter().enumerate() {
                writeln!(out, "    {{").unwrap();
                for &(label, positive) in cube {
                    let want = positive as u32;
                    let k_label = index(label);
                    writeln!(
                        out,
                        "      {{ int r = wc_label({k_label}, s); if (r < 0) goto e{e}_err; if (r != {want}) goto e{e}_c{k}; }}"
                    )
                    .unwrap();
                }
                writeln!(out, "      goto e{e}_yes;\n    }}\n    e{e}_c{k}: ;").unwrap();
            }
            writeln!(out, "    goto e{e}_no;").unwrap();
            writeln!(out, "    e{e}_yes: p.edges |= 1ull << {e}; moves = 1; goto e{e}_no;").unwrap();
            writeln!(out, "    e{e}_err: wc_emit_error(sink); moves = 1;").unwrap();
            writeln!(out, "    e{e}_no: ;\n  }}").unwrap();
        }
        writeln!(out, "  (void)wc_system_successors(s, &p);").unwrap();
        writeln!(out, "  if (p.steps > 0) return 0;").unwrap();
        writeln!(out, "  /* The system cannot move: the automaton moves alone. */").unwrap();
        writeln!(out, "  p.steps = 0; wc_product_emit(&p, s);").unwrap();
        writeln!(out, "  return !moves;\n}}").unwrap();

        let most = (0..self.automaton.accepting.len() as u32)
            .map(|q| edges.iter().filter(|e| e.from == q).count() as u64)
            .max()
            .unwrap_or(0);
        let max_successors = inner.max_successors.saturating_mul(most.max(1)).saturating_add(most).max(1);
        Ok(CudaSource { source: c, max_successors, tables: inner.tables })
    }
}

/// What the model's source is compiled under, so that the product's functions keep
/// the ABI's names.
const RENAMES: [(&str, &str); 5] = [
    ("WcSink", "WcProductSink"),
    ("wc_emit", "wc_product_emit"),
    ("wc_emit_error", "wc_product_emit_error"),
    ("wc_successors", "wc_system_successors"),
    ("wc_accepting", "wc_system_accepting"),
];
