//! A PRISM model as C for the GPU kernels: [`PrismModel`] implements
//! [`CudaModel`] (the ABI of [`warpcheck_model::cuda`]).
//!
//! Every expression's stack code ([`Code`]) becomes a C function that runs it with
//! one local per stack depth (the depth at each instruction is known statically)
//! and gotos for the jumps; it returns 0 on an evaluation error (overflow, a
//! modulo by zero, a value out of a variable's range, a non-finite number made an
//! integer), exactly where the CPU evaluator ([`crate::eval`]) fails. Reals are IEEE
//! doubles, as on the CPU.
//!
//! The successor function is generated twice from one description, so that both
//! emit the same steps in the same order as [`crate::PrismSuccessors`] (Storm's
//! choice order, branches of weight 0 skipped, evaluation errors where the CPU
//! raises them):
//!
//! - `wc_successors(s, sink)`: the ABI's, `wc_emit(sink, t)` per branch;
//! - `wc_branches(s, sink)` (only where the includer defines `WC_BRANCHES`, with a
//!   `WcBranchSink` and `wc_branch`, `wc_branch_error`): `wc_branch(sink, t, w, tag)`
//!   per branch, `w` its probability or rate and `tag` the first command of its
//!   choice, with [`NEW_CHOICE`] set on a choice's first branch. The GPU Markov
//!   builder reads weights and choices from it.

use std::fmt::Write;

use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::{LabelId, SlotType};

use crate::eval::{Code, DoubleOp, IntOp, Op, Type};
use crate::model::PrismModel;
use crate::program::Program;

/// The bit of a `wc_branch` tag that marks a choice's first branch: the recorded
/// builder's ([`warpcheck_markov::recorded::NEW_CHOICE`]).
pub use warpcheck_markov::recorded::NEW_CHOICE;

/// Arithmetic with the CPU evaluator's error rules; each returns 0 on an error.
const PRELUDE: &str = r#"
#if !defined(__CUDACC__)
#include <math.h>
#endif
typedef long long wc_i64;
#define WC_I64_MIN (-9223372036854775807ll - 1ll)
WC_FN double wc_d(u64 x) { union { u64 u; double d; } c; c.u = x; return c.d; }
WC_FN u64 wc_b(double x) { union { u64 u; double d; } c; c.d = x; return c.u; }
WC_FN int wc_iadd(u64 *a, u64 b) {
  wc_i64 x = (wc_i64)*a, y = (wc_i64)b, r = (wc_i64)(*a + b);
  if (((x ^ r) & (y ^ r)) < 0) return 0;
  *a = (u64)r; return 1;
}
WC_FN int wc_isub(u64 *a, u64 b) {
  wc_i64 x = (wc_i64)*a, y = (wc_i64)b, r = (wc_i64)(*a - b);
  if (((x ^ y) & (x ^ r)) < 0) return 0;
  *a = (u64)r; return 1;
}
WC_FN int wc_imul(u64 *a, u64 b) {
  wc_i64 x = (wc_i64)*a, y = (wc_i64)b, r = (wc_i64)(*a * b);
  if (x == -1) { if (y == WC_I64_MIN) return 0; }
  else if (x != 0 && r / x != y) return 0;
  *a = (u64)r; return 1;
}
WC_FN int wc_ipow(u64 *a, u64 b) {
  wc_i64 e = (wc_i64)b;
  if (e < 0 || e > 0xFFFFFFFFll) return 0;
  u64 base = *a, acc = 1;
  if (e == 0) { *a = 1; return 1; }
  for (;;) {
    if (e & 1) { if (!wc_imul(&acc, base)) return 0; if (e == 1) { *a = acc; return 1; } }
    e >>= 1;
    if (!wc_imul(&base, base)) return 0;
  }
}
WC_FN int wc_imod(u64 *a, u64 b) {
  wc_i64 x = (wc_i64)*a, y = (wc_i64)b;
  if (y == 0) return 0;
  if (y == -1) { if (x == WC_I64_MIN) return 0; *a = 0; return 1; }
  wc_i64 r = x % y;
  if (r < 0) { if (y == WC_I64_MIN) return 0; r += y < 0 ? -y : y; }
  *a = (u64)r; return 1;
}
WC_FN int wc_nan(double x) { return x != x; }
WC_FN double wc_dmin(double a, double b) { return wc_nan(a) || wc_nan(b) ? a + b : (b < a ? b : a); }
WC_FN double wc_dmax(double a, double b) { return wc_nan(a) || wc_nan(b) ? a + b : (b > a ? b : a); }
WC_FN int wc_toint(double x, u64 *out) {
  if (!(x - x == 0.0) || x < -9223372036854775808.0 || x >= 9223372036854775808.0) return 0;
  *out = (u64)(wc_i64)x; return 1;
}
"#;

impl CudaModel for PrismModel {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        Ok(Generator::new(self).source(labels))
    }
}

/// What the generator writes: expression functions are numbered as they are
/// needed.
struct Generator<'a> {
    model: &'a PrismModel,
    p: &'a Program,
    out: String,
    functions: usize,
}

/// Names of the expression functions of one command.
struct CommandCode {
    guard: usize,
    weights: Vec<usize>,
    /// Per branch: (variable, function) per assignment.
    assignments: Vec<Vec<(u32, usize)>>,
}

impl<'a> Generator<'a> {
    fn new(model: &'a PrismModel) -> Self {
        Generator { model, p: &model.program, out: String::new(), functions: 0 }
    }

    fn source(mut self, labels: &[LabelId]) -> CudaSource {
        let words = self.p.layout.words();
        writeln!(self.out, "#define WC_WORDS {words}\n#define WC_ASSERTIONS 0\n#define WC_INVARIANTS {}", labels.len())
            .unwrap();
        self.out.push_str(PRELUDE);
        let commands: Vec<CommandCode> = (0..self.p.commands.len()).map(|c| self.command(c)).collect();
        self.apply_function(&commands);
        self.weights_function(&commands);
        let label_fns: Vec<Option<usize>> =
            labels.iter().map(|&l| self.p.labels.get(l).map(|(_, code)| self.expression(code))).collect();
        let body = |emit: &str, error: &str| self.successor_body(&commands, emit, error);
        let successors = body("wc_emit(sink, t)", "wc_emit_error(sink)");
        let branches = body("wc_branch(sink, t, w, tag)", "wc_branch_error(sink)");
        let mut out = self.out;
        writeln!(out, "WC_FN int wc_successors(const u32 *s, WcSink *sink) {{\n{successors}}}").unwrap();
        writeln!(
            out,
            "#ifdef WC_BRANCHES\nWC_FN int wc_branches(const u32 *s, WcBranchSink *sink) {{\n{branches}}}\n#endif"
        )
        .unwrap();
        out.push_str("WC_FN int wc_label(int k, const u32 *s) {\n  u64 v = 0;\n  switch (k) {\n");
        for (k, f) in label_fns.iter().enumerate() {
            match f {
                Some(f) => writeln!(out, "  case {k}: return wc_e{f}(s, &v) ? (v != 0) : -1;").unwrap(),
                None => writeln!(out, "  case {k}: return 0;").unwrap(),
            }
        }
        out.push_str("  }\n  (void)v; (void)s;\n  return 0;\n}\n");
        out.push_str("WC_FN int wc_invariant(int k, const u32 *s) { return wc_label(k, s) == 1; }\n");
        out.push_str("WC_FN int wc_assertion(const u32 *s) { (void)s; return -1; }\n");
        out.push_str("WC_FN int wc_accepting(const u32 *s) { (void)s; return 0; }\n");
        CudaSource { source: out, max_successors: self.model.successor_bound(), tables: Vec::new() }
    }

    fn command(&mut self, c: usize) -> CommandCode {
        let cmd = &self.p.commands[c];
        let guard = self.expression(&cmd.guard);
        let weights = cmd.branches.iter().map(|b| self.expression(&b.weight)).collect();
        let assignments = cmd
            .branches
            .iter()
            .map(|b| b.assignments.iter().map(|(v, code)| (*v, self.expression(code))).collect())
            .collect();
        CommandCode { guard, weights, assignments }
    }

    /// `wc_apply(c, b, s, t)`: branch `b` of command `c`, read on `s`, written to `t`.
    fn apply_function(&mut self, commands: &[CommandCode]) {
        let mut f = String::from(
            "WC_FN int wc_apply(int c, int b, const u32 *s, u32 *t) {\n  u64 v = 0;\n  wc_i64 x;\n  switch (c) {\n",
        );
        for (c, code) in commands.iter().enumerate() {
            writeln!(f, "  case {c}:\n    switch (b) {{").unwrap();
            for (b, assignments) in code.assignments.iter().enumerate() {
                writeln!(f, "    case {b}:").unwrap();
                for &(var, e) in assignments {
                    let v = &self.p.vars[var as usize];
                    let slot = &self.p.slots[var as usize].slot;
                    let mask = if slot.width == 32 { u32::MAX } else { (1u32 << slot.width) - 1 };
                    let (w, sh) = (slot.word, slot.shift);
                    writeln!(
                        f,
                        "      if (!wc_e{e}(s, &v)) return 0;\n      x = (wc_i64)v;\n      if (x < {}ll || x > {}ll) return 0;\n      t[{w}] = (t[{w}] & ~({mask}u << {sh})) | (((u32)(x - ({}ll)) & {mask}u) << {sh});",
                        v.lo, v.hi, v.lo
                    )
                    .unwrap();
                }
                f.push_str("      return 1;\n");
            }
            f.push_str("    }\n    return 0;\n");
        }
        f.push_str("  }\n  (void)v; (void)x; (void)s; (void)t; (void)b;\n  return 0;\n}\n");
        self.out.push_str(&f);
    }

    /// `wc_weights(c, s, w)`: the branch weights of command `c` into `w`; their number,
    /// or -1 when one raises an error (the ones before it are written).
    fn weights_function(&mut self, commands: &[CommandCode]) {
        let mut f =
            String::from("WC_FN int wc_weights(int c, const u32 *s, double *w) {\n  u64 v = 0;\n  switch (c) {\n");
        for (c, code) in commands.iter().enumerate() {
            writeln!(f, "  case {c}:").unwrap();
            for (b, &e) in code.weights.iter().enumerate() {
                let real = real_of(self.p.commands[c].branches[b].weight.ty);
                writeln!(f, "    if (!wc_e{e}(s, &v)) return -1;\n    w[{b}] = {real};").unwrap();
            }
            writeln!(f, "    return {};", code.weights.len()).unwrap();
        }
        f.push_str("  }\n  (void)v; (void)s; (void)w;\n  return 0;\n}\n");
        self.out.push_str(&f);
    }

    /// The body of a successor function: `emit` (with `t`, `w`, `tag` in scope) per
    /// branch, `error` per evaluation error; returns whether nothing was emitted.
    fn successor_body(&self, commands: &[CommandCode], emit: &str, error: &str) -> String {
        let mut b = String::from(
            "  int emitted = 0;\n  u64 v = 0;\n  u32 t[WC_WORDS];\n  double w;\n  u32 tag;\n  (void)w; (void)tag;\n",
        );
        let copy = "for (int i = 0; i < WC_WORDS; i++) t[i] = s[i];";
        for &c in self.model.alone() {
            let code = &commands[c as usize];
            writeln!(
                b,
                "  if (!wc_e{}(s, &v)) {{ {error}; emitted = 1; }} else if (v) {{\n    u32 fresh = {NEW_CHOICE}u;",
                code.guard
            )
            .unwrap();
            for (k, &e) in code.weights.iter().enumerate() {
                let real = real_of(self.p.commands[c as usize].branches[k].weight.ty);
                writeln!(
                    b,
                    "    if (!wc_e{e}(s, &v)) {{ {error}; emitted = 1; }} else {{\n      w = {real};\n      if (w != 0.0) {{\n        emitted = 1;\n        {copy}\n        tag = {c}u | fresh;\n        if (wc_apply({c}, {k}, s, t)) {{ {emit}; fresh = 0; }} else {error};\n      }}\n    }}"
                )
                .unwrap();
            }
            b.push_str("    (void)fresh;\n  }\n");
        }
        for per_module in self.model.synchronisations() {
            let n = per_module.len();
            b.push_str("  {\n");
            for (m, cmds) in per_module.iter().enumerate() {
                writeln!(b, "    int n{m} = 0, e{m}[{}];", cmds.len().max(1)).unwrap();
                for &c in cmds {
                    writeln!(
                        b,
                        "    if (!wc_e{}(s, &v)) {{ {error}; emitted = 1; }} else if (v) e{m}[n{m}++] = {c};",
                        commands[c as usize].guard
                    )
                    .unwrap();
                }
            }
            let all: Vec<String> = (0..n).map(|m| format!("n{m}")).collect();
            writeln!(b, "    if ({}) {{", all.join(" && ")).unwrap();
            for m in 0..n {
                writeln!(b, "    for (int i{m} = 0; i{m} < n{m}; i{m}++)").unwrap();
            }
            b.push_str("    {\n      int failed = 0;\n");
            for (m, cmds) in per_module.iter().enumerate() {
                let most = cmds.iter().map(|&c| commands[c as usize].weights.len()).max().unwrap_or(0).max(1);
                writeln!(
                    b,
                    "      double w{m}[{most}];\n      int nb{m} = wc_weights(e{m}[i{m}], s, w{m});\n      if (nb{m} < 0) {{ {error}; emitted = 1; failed = 1; }}"
                )
                .unwrap();
            }
            b.push_str("      if (!failed) {\n        u32 fresh = ");
            writeln!(b, "{NEW_CHOICE}u;").unwrap();
            for m in 0..n {
                writeln!(b, "        for (int b{m} = 0; b{m} < nb{m}; b{m}++)").unwrap();
            }
            let product: Vec<String> = (0..n).map(|m| format!("w{m}[b{m}]")).collect();
            let applies: Vec<String> = (0..n).map(|m| format!("wc_apply(e{m}[i{m}], b{m}, s, t)")).collect();
            writeln!(
                b,
                "        {{\n          w = {};\n          if (w != 0.0) {{\n            emitted = 1;\n            {copy}\n            tag = (u32)e0[i0] | fresh;\n            if ({}) {{ {emit}; fresh = 0; }} else {error};\n          }}\n        }}\n        (void)fresh;\n      }}\n    }}\n    }}\n  }}",
                product.join(" * "),
                applies.join(" && ")
            )
            .unwrap();
        }
        b.push_str("  (void)v;\n  return !emitted;\n");
        b
    }

    /// Writes the function of one expression, `int wc_eN(const u32 *s, u64 *out)`
    /// (0 on an evaluation error), and returns `N`.
    fn expression(&mut self, code: &Code) -> usize {
        let n = self.functions;
        self.functions += 1;
        let mut depth_at: Vec<Option<usize>> = vec![None; code.ops.len() + 1];
        let mut body = String::new();
        let mut d = 0usize;
        let mut most = 1usize;
        for (pc, op) in code.ops.iter().enumerate() {
            if let Some(at) = depth_at[pc] {
                writeln!(body, "L{pc}:;").unwrap();
                d = at;
            }
            let (a, top) = (d.saturating_sub(2), d.saturating_sub(1));
            match *op {
                Op::Const(raw) => {
                    writeln!(body, "  t{d} = {raw}ull;").unwrap();
                    d += 1;
                }
                Op::Var(v) => {
                    writeln!(body, "  t{d} = (u64)({});", self.read(v)).unwrap();
                    d += 1;
                }
                Op::NegI => {
                    writeln!(body, "  if (t{top} == (u64)WC_I64_MIN) return 0;\n  t{top} = (u64)(-(wc_i64)t{top});")
                        .unwrap()
                }
                Op::NegD => writeln!(body, "  t{top} = wc_b(-wc_d(t{top}));").unwrap(),
                Op::Not => writeln!(body, "  t{top} = (t{top} == 0);").unwrap(),
                Op::ToDouble => writeln!(body, "  t{top} = wc_b((double)(wc_i64)t{top});").unwrap(),
                Op::Int(op) => {
                    let line = match op {
                        IntOp::Add => format!("if (!wc_iadd(&t{a}, t{top})) return 0;"),
                        IntOp::Sub => format!("if (!wc_isub(&t{a}, t{top})) return 0;"),
                        IntOp::Mul => format!("if (!wc_imul(&t{a}, t{top})) return 0;"),
                        IntOp::Pow => format!("if (!wc_ipow(&t{a}, t{top})) return 0;"),
                        IntOp::Mod => format!("if (!wc_imod(&t{a}, t{top})) return 0;"),
                        IntOp::Min => format!("if ((wc_i64)t{top} < (wc_i64)t{a}) t{a} = t{top};"),
                        IntOp::Max => format!("if ((wc_i64)t{top} > (wc_i64)t{a}) t{a} = t{top};"),
                        cmp => format!("t{a} = ((wc_i64)t{a} {} (wc_i64)t{top});", comparison_int(cmp)),
                    };
                    writeln!(body, "  {line}").unwrap();
                    d -= 1;
                }
                Op::Double(op @ (DoubleOp::Floor | DoubleOp::Ceil | DoubleOp::Round)) => {
                    let x = match op {
                        DoubleOp::Floor => format!("floor(wc_d(t{top}))"),
                        DoubleOp::Ceil => format!("ceil(wc_d(t{top}))"),
                        _ => format!("floor(wc_d(t{top}) + 0.5)"),
                    };
                    writeln!(body, "  if (!wc_toint({x}, &t{top})) return 0;").unwrap();
                }
                Op::Double(op) => {
                    let (x, y) = (format!("wc_d(t{a})"), format!("wc_d(t{top})"));
                    let value = match op {
                        DoubleOp::Add => format!("wc_b({x} + {y})"),
                        DoubleOp::Sub => format!("wc_b({x} - {y})"),
                        DoubleOp::Mul => format!("wc_b({x} * {y})"),
                        DoubleOp::Div => format!("wc_b({x} / {y})"),
                        DoubleOp::Min => format!("wc_b(wc_dmin({x}, {y}))"),
                        DoubleOp::Max => format!("wc_b(wc_dmax({x}, {y}))"),
                        DoubleOp::Pow => format!("wc_b(pow({x}, {y}))"),
                        DoubleOp::Log => format!("wc_b(log({x}) / log({y}))"),
                        DoubleOp::Eq => format!("(u64)({x} == {y})"),
                        DoubleOp::Ne => format!("(u64)({x} != {y})"),
                        DoubleOp::Lt => format!("(u64)({x} < {y})"),
                        DoubleOp::Le => format!("(u64)({x} <= {y})"),
                        DoubleOp::Gt => format!("(u64)({x} > {y})"),
                        DoubleOp::Ge => format!("(u64)({x} >= {y})"),
                        DoubleOp::Floor | DoubleOp::Ceil | DoubleOp::Round => unreachable!("unary, above"),
                    };
                    writeln!(body, "  t{a} = {value};").unwrap();
                    d -= 1;
                }
                Op::JumpIfFalse(to) => {
                    d -= 1;
                    depth_at[to as usize] = Some(d);
                    writeln!(body, "  if (t{d} == 0) goto L{to};").unwrap();
                }
                Op::Jump(to) => {
                    depth_at[to as usize] = Some(d);
                    writeln!(body, "  goto L{to};").unwrap();
                }
                Op::AndJump(to) | Op::OrJump(to) => {
                    depth_at[to as usize] = Some(d);
                    let test = if matches!(op, Op::AndJump(_)) { "==" } else { "!=" };
                    writeln!(body, "  if (t{top} {test} 0) goto L{to};").unwrap();
                    d -= 1;
                }
            }
            most = most.max(d);
        }
        if let Some(at) = depth_at[code.ops.len()] {
            writeln!(body, "L{}:;", code.ops.len()).unwrap();
            d = at;
        }
        debug_assert_eq!(d, 1, "well-formed code leaves one value");
        let locals: Vec<String> = (0..most).map(|k| format!("t{k} = 0")).collect();
        writeln!(
            self.out,
            "WC_FN int wc_e{n}(const u32 *s, u64 *out) {{\n  u64 {};\n  (void)s;\n{body}  *out = t0;\n  return 1;\n}}",
            locals.join(", ")
        )
        .unwrap();
        n
    }

    /// The C expression of variable `v`'s value (an `i64`).
    fn read(&self, v: u32) -> String {
        let Some(var) = self.p.slots.get(v as usize) else { return "0".into() };
        let slot = &var.slot;
        let mask = if slot.width == 32 { u32::MAX } else { (1u32 << slot.width) - 1 };
        let raw = format!("((s[{}] >> {}) & {mask}u)", slot.word, slot.shift);
        let value = if slot.ty == SlotType::Int {
            format!("((wc_i64)(((int)({raw} << {})) >> {}))", 32 - slot.width, 32 - slot.width)
        } else {
            format!("((wc_i64){raw})")
        };
        format!("{value} + ({}ll)", var.lo)
    }
}

/// The C comparison of an integer comparison.
fn comparison_int(op: IntOp) -> &'static str {
    match op {
        IntOp::Eq => "==",
        IntOp::Ne => "!=",
        IntOp::Lt => "<",
        IntOp::Le => "<=",
        IntOp::Gt => ">",
        _ => ">=",
    }
}

/// The C expression of a weight `v` of type `ty` as a double.
fn real_of(ty: Type) -> &'static str {
    match ty {
        Type::Double => "wc_d(v)",
        _ => "(double)(wc_i64)v",
    }
}
