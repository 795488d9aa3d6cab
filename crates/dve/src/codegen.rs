//! The CUDA C code generator: turns a [`Program`]'s IR into straight-line C functions
//! (the successor function, the state checks) with every guard and effect inlined.
//!
//! The generated text is plain C99 as well as CUDA C: functions are declared with the
//! `WC_FN` macro, which the includer defines (`__device__ __forceinline__` for NVRTC,
//! `static inline` for a host C compiler). That lets the host-side tests compile the
//! very same code with `cc` and hold it to the CPU `Generator`
//! state for state, without a GPU.
//!
//! The includer also provides, before the generated text: `u32`, `u64`, a type
//! `WcSink` and the functions `wc_emit(WcSink *, const u32 *target)` (one successor)
//! and `wc_emit_error(WcSink *)` (one step raising an evaluation error). Generated:
//!
//! - `int wc_successors(const u32 *s, WcSink *sink)`: emits every step enabled in `s`,
//!   in any order, and returns whether `s` is a deadlock (the same rules as the CPU
//!   successor function; the property process is the product wrapper's);
//! - `int wc_assertion(const u32 *s)`: the index of the first DVE `assert` violated in
//!   `s` (false or raising an error), or -1;
//! - `int wc_label(int k, const u32 *s)`: predicate `k` of those asked for: 1, 0, or
//!   -1 when it raises an error; `int wc_invariant(int k, const u32 *s)`: whether it
//!   holds;
//! - `int wc_accepting(const u32 *s)`: 0 (the system alone accepts nothing);
//! - macros `WC_WORDS`, `WC_ASSERTIONS`, `WC_INVARIANTS`.

use std::collections::BTreeSet;
use std::fmt::Write;

use warpcheck_model::cuda::{CudaModel, CudaSource, Unsupported};
use warpcheck_model::layout::{Slot, SlotId, SlotType};
use warpcheck_model::LabelId;

use crate::ir::{ArrayRef, BinOp, Expr, LValue, Stmt, UnOp};
use crate::{Overflow, Program, SyncMode};

impl CudaModel for Program {
    fn cuda_source(&self, labels: &[LabelId]) -> Result<CudaSource, Unsupported> {
        let exprs = labels
            .iter()
            .map(|&l| {
                self.predicate(l).map(|p| p.expr.clone()).ok_or_else(|| {
                    Unsupported::Model(format!("label {l} is not a predicate of the model: no invariant code"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        generate(self, &exprs)
    }
}

/// Generates the C functions of `model`, with `labels` as `wc_label` 0, 1, ...
pub fn generate(model: &Program, labels: &[Expr]) -> Result<CudaSource, Unsupported> {
    let mut g = Gen { model, out: String::new(), fresh: 0, depth: 1 };
    let words = model.state_words().max(1);
    writeln!(g.out, "#define WC_WORDS {words}").unwrap();
    writeln!(g.out, "#define WC_ASSERTIONS {}", model.assertions.len()).unwrap();
    writeln!(g.out, "#define WC_INVARIANTS {}", labels.len()).unwrap();
    writeln!(g.out, "#define WC_TEMPS {}", model.temps.max(1)).unwrap();
    g.out.push_str(HELPERS);
    g.arrays();
    g.checks(labels);
    if model.mode == SyncMode::Sync {
        g.apply_function();
    }
    let parts = if model.mode == SyncMode::Async { g.async_parts() } else { Vec::new() };
    g.successor_function(&parts);
    Ok(CudaSource { source: g.out, max_successors: max_successors(model), tables: vec![] })
}

/// Whether evaluating `e` can raise no error (no array index, no division): such an
/// expression compiles to a C expression with no statements.
fn infallible(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Load(_) | Expr::Temp(_) => true,
        Expr::LoadIndexed(..) => false,
        Expr::Unary(_, a) => infallible(a),
        Expr::Binary(BinOp::Div | BinOp::Rem, ..) => false,
        Expr::Binary(_, a, b) => infallible(a) && infallible(b),
    }
}

/// Models with at most this many groups have their step functions inlined.
const INLINE_GROUPS: usize = 64;
/// Groups per out-of-line step function.
const PART_GROUPS: usize = 8;

/// Small helpers shared by all generated code: wrapping arithmetic as in the CPU
/// executor (`wrapping_*` on i32; shifts modulo 32; division truncating).
const HELPERS: &str = r#"
WC_FN int wc_add(int a, int b) { return (int)((u32)a + (u32)b); }
WC_FN int wc_sub(int a, int b) { return (int)((u32)a - (u32)b); }
WC_FN int wc_mul(int a, int b) { return (int)((u32)a * (u32)b); }
WC_FN int wc_neg(int a) { return (int)(0u - (u32)a); }
WC_FN int wc_div(int a, int b) { return b == -1 ? wc_neg(a) : a / b; }
WC_FN int wc_rem(int a, int b) { return b == -1 ? 0 : a % b; }
WC_FN int wc_shl(int a, int b) { return (int)((u32)a << ((u32)b & 31u)); }
WC_FN int wc_shr(int a, int b) { return a >> ((u32)b & 31u); }
"#;

struct Gen<'m> {
    model: &'m Program,
    out: String,
    fresh: u32,
    depth: usize,
}

/// A C literal for an `i32`.
fn lit(c: i32) -> String {
    if c == i32::MIN {
        "(-2147483647-1)".to_string()
    } else if c < 0 {
        format!("({c})")
    } else {
        c.to_string()
    }
}

fn mask(slot: &Slot) -> u32 {
    if slot.width == 32 {
        u32::MAX
    } else {
        (1u32 << slot.width) - 1
    }
}

/// C expression reading `slot` from the state array `s`.
fn get(slot: &Slot, s: &str) -> String {
    if matches!(slot.ty, SlotType::Int) {
        let up = 32 - slot.shift - slot.width;
        format!("(((int)({s}[{}] << {up})) >> {})", slot.word, 32 - slot.width)
    } else {
        format!("((int)(({s}[{}] >> {}) & {}u))", slot.word, slot.shift, mask(slot))
    }
}

/// C statement writing `value` (already in range) to `slot` of `t`.
fn set(slot: &Slot, t: &str, value: &str) -> String {
    let m = mask(slot);
    format!(
        "{t}[{w}] = ({t}[{w}] & ~({m}u << {sh})) | (((u32)({value}) & {m}u) << {sh});",
        w = slot.word,
        sh = slot.shift
    )
}

/// C statements bringing `v` into the domain of `ty` (wrapping) or returning 0 when it
/// is outside (an evaluation error), as the overflow rule says.
fn fitted(ty: SlotType, overflow: Overflow) -> String {
    match (overflow, ty) {
        (Overflow::Wrap, SlotType::Byte) => "v &= 255;".to_string(),
        (Overflow::Wrap, SlotType::Int) => "v = (int)(short)v;".to_string(),
        _ => format!("if (v < {} || v > {}) return 0;", lit(ty.min()), lit(ty.max())),
    }
}

/// If the elements of `array` lie at regular positions (every element the same type,
/// packed first-fit), the word and shift of element `i` as C expressions.
fn regular_position(slots: &[Slot]) -> Option<(String, String)> {
    let first = slots[0];
    let width = first.width;
    if slots.iter().any(|s| s.ty != first.ty) {
        return None;
    }
    let in_first = (32 - first.shift) / width;
    let per = 32 / width;
    let expected = |i: u32| {
        if i < in_first {
            (first.word, first.shift + i * width)
        } else {
            let j = i - in_first;
            (first.word + 1 + j / per, (j % per) * width)
        }
    };
    if !(0..slots.len() as u32).all(|i| expected(i) == (slots[i as usize].word, slots[i as usize].shift)) {
        return None;
    }
    if in_first as usize >= slots.len() {
        return Some((format!("{}", first.word), format!("({} + (u32)i * {width}u)", first.shift)));
    }
    let word = format!(
        "((u32)i < {in_first}u ? {w}u : {w1}u + ((u32)i - {in_first}u) / {per}u)",
        w = first.word,
        w1 = first.word + 1
    );
    let shift = format!(
        "((u32)i < {in_first}u ? {sh}u + (u32)i * {width}u : (((u32)i - {in_first}u) % {per}u) * {width}u)",
        sh = first.shift
    );
    Some((word, shift))
}

impl Gen<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn var(&mut self) -> String {
        self.fresh += 1;
        format!("v{}", self.fresh)
    }

    fn slot(&self, id: SlotId) -> Slot {
        *self.model.layout.slot(id)
    }

    fn array_slots(&self, a: &ArrayRef) -> Vec<Slot> {
        (a.first..a.first + a.len).map(|s| self.slot(s)).collect()
    }

    /// One getter and one checked setter per array variable (`wc_get_<first slot>`,
    /// `wc_store_<first slot>`, 0 when the value does not fit); the caller has checked
    /// the index.
    fn arrays(&mut self) {
        let mut arrays = Vec::new();
        let mut collect = |e: &Expr| collect_arrays(e, &mut arrays);
        for group in &self.model.groups {
            group.guards.iter().for_each(&mut collect);
            for stmt in &group.effect {
                match stmt {
                    Stmt::Assign(lv, e) => {
                        collect(e);
                        if let LValue::Indexed(a, i) = lv {
                            collect(i);
                            collect(&Expr::LoadIndexed(*a, Box::new(Expr::Const(0))));
                        }
                    }
                    Stmt::SetTemp(_, e) => collect(e),
                    Stmt::ShiftDown { .. } => {}
                }
            }
        }
        self.model.assertions.iter().for_each(|a| collect(&a.expr));
        // One accessor per first slot, covering the longest array starting there.
        arrays.sort_by_key(|a: &ArrayRef| (a.first, std::cmp::Reverse(a.len)));
        arrays.dedup_by_key(|a| a.first);
        // Invariants are compiled in the same scope; make every array available.
        for v in &self.model.variables {
            if v.is_array && !arrays.iter().any(|a| a.first == v.first) {
                arrays.push(ArrayRef { var: 0, first: v.first, len: v.len });
            }
        }
        for a in arrays {
            let slots = self.array_slots(&a);
            let f = a.first;
            let overflow = self.model.overflow;
            let out = &mut self.out;
            match regular_position(&slots) {
                Some((word, shift)) => {
                    let m = mask(&slots[0]);
                    let raw = format!("((s[{word}] >> {shift}) & {m}u)");
                    if matches!(slots[0].ty, SlotType::Int) {
                        let w = slots[0].width;
                        writeln!(
                            out,
                            "WC_FN int wc_get_{f}(const u32 *s, int i) {{ return ((int)({raw} << {})) >> {}; }}",
                            32 - w,
                            32 - w
                        )
                        .unwrap();
                    } else {
                        writeln!(out, "WC_FN int wc_get_{f}(const u32 *s, int i) {{ return (int){raw}; }}").unwrap();
                    }
                    let value = fitted(slots[0].ty, overflow);
                    writeln!(out, "WC_FN int wc_store_{f}(u32 *s, int i, int v) {{ {value} u32 w = {word}, sh = {shift}; s[w] = (s[w] & ~({m}u << sh)) | (((u32)v & {m}u) << sh); return 1; }}").unwrap();
                }
                None => {
                    writeln!(out, "WC_FN int wc_get_{f}(const u32 *s, int i) {{ switch (i) {{").unwrap();
                    for (i, slot) in slots.iter().enumerate() {
                        writeln!(out, "  case {i}: return {};", get(slot, "s")).unwrap();
                    }
                    writeln!(out, "  default: return 0; }} }}").unwrap();
                    writeln!(out, "WC_FN int wc_store_{f}(u32 *s, int i, int v) {{ switch (i) {{").unwrap();
                    for (i, slot) in slots.iter().enumerate() {
                        writeln!(
                            out,
                            "  case {i}: {{ {} {} return 1; }}",
                            fitted(slot.ty, overflow),
                            set(slot, "s", "v")
                        )
                        .unwrap();
                    }
                    writeln!(out, "  default: return 0; }} }}").unwrap();
                }
            }
        }
    }

    /// Emits statements computing `e` on state array `s`; returns a C expression of
    /// its value. An evaluation error jumps to `err`.
    fn expr(&mut self, e: &Expr, s: &str, err: &str) -> String {
        match e {
            &Expr::Const(c) => lit(c),
            &Expr::Load(slot) => get(&self.slot(slot), s),
            Expr::LoadIndexed(a, i) => {
                let i = self.expr(i, s, err);
                let v = self.var();
                self.line(&format!("int {v}_i = {i};"));
                self.line(&format!("if ((u32){v}_i >= {}u) goto {err};", a.len));
                self.line(&format!("int {v} = wc_get_{}({s}, {v}_i);", a.first));
                v
            }
            &Expr::Temp(t) => format!("tmp[{t}]"),
            Expr::Unary(op, a) => {
                let a = self.expr(a, s, err);
                match op {
                    UnOp::Neg => format!("wc_neg({a})"),
                    UnOp::BitNot => format!("(~({a}))"),
                    UnOp::Not => format!("(({a}) == 0)"),
                }
            }
            Expr::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Imply), a, b) if infallible(b) => {
                // C's `&&` and `||` skip the right operand too; it cannot fail, so no
                // statements are needed (huge guards stay one expression: BEEM's plc).
                let a = self.expr(a, s, err);
                let b = self.expr(b, s, err);
                match op {
                    BinOp::And => format!("(({a}) != 0 && ({b}) != 0)"),
                    BinOp::Or => format!("(({a}) != 0 || ({b}) != 0)"),
                    _ => format!("(({a}) == 0 || ({b}) != 0)"),
                }
            }
            Expr::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Imply), a, b) => {
                let v = self.var();
                let a = self.expr(a, s, err);
                // The right operand runs only when the left does not decide.
                let (init, test) = match op {
                    BinOp::And => ("0", format!("({a}) != 0")),
                    BinOp::Or => ("1", format!("({a}) == 0")),
                    _ => ("1", format!("({a}) != 0")),
                };
                self.line(&format!("int {v} = {init};"));
                self.line(&format!("if ({test}) {{"));
                self.depth += 1;
                let b = self.expr(b, s, err);
                self.line(&format!("{v} = ({b}) != 0;"));
                self.depth -= 1;
                self.line("}");
                v
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a, s, err);
                let b = self.expr(b, s, err);
                let call = |f: &str| format!("{f}({a}, {b})");
                match op {
                    BinOp::Add => call("wc_add"),
                    BinOp::Sub => call("wc_sub"),
                    BinOp::Mul => call("wc_mul"),
                    BinOp::Div | BinOp::Rem => {
                        let v = self.var();
                        self.line(&format!("int {v}_b = {b};"));
                        self.line(&format!("if ({v}_b == 0) goto {err};"));
                        let f = if *op == BinOp::Div { "wc_div" } else { "wc_rem" };
                        self.line(&format!("int {v} = {f}({a}, {v}_b);"));
                        v
                    }
                    BinOp::Shl => call("wc_shl"),
                    BinOp::Shr => call("wc_shr"),
                    BinOp::Lt => format!("(({a}) < ({b}))"),
                    BinOp::Le => format!("(({a}) <= ({b}))"),
                    BinOp::Gt => format!("(({a}) > ({b}))"),
                    BinOp::Ge => format!("(({a}) >= ({b}))"),
                    BinOp::Eq => format!("(({a}) == ({b}))"),
                    BinOp::Ne => format!("(({a}) != ({b}))"),
                    BinOp::BitAnd => format!("(({a}) & ({b}))"),
                    BinOp::BitOr => format!("(({a}) | ({b}))"),
                    BinOp::BitXor => format!("(({a}) ^ ({b}))"),
                    BinOp::And | BinOp::Or | BinOp::Imply => unreachable!("handled above"),
                }
            }
        }
    }

    /// A value assigned to a slot of type `ty`: range-checked (jumping to `err`) or
    /// wrapped, as the model's overflow rule says. Returns the C expression to store.
    fn checked(&mut self, ty: SlotType, value: String, err: &str) -> String {
        let v = self.var();
        self.line(&format!("int {v} = {value};"));
        match (self.model.overflow, ty) {
            (Overflow::Wrap, SlotType::Byte) => format!("({v} & 255)"),
            (Overflow::Wrap, SlotType::Int) => format!("((int)(short){v})"),
            _ => {
                self.line(&format!("if ({v} < {} || {v} > {}) goto {err};", lit(ty.min()), lit(ty.max())));
                v
            }
        }
    }

    /// Emits the statements of an effect on state array `t`.
    fn stmt(&mut self, stmt: &Stmt, t: &str, err: &str) {
        match stmt {
            Stmt::SetTemp(k, e) => {
                let v = self.expr(e, t, err);
                self.line(&format!("tmp[{k}] = {v};"));
            }
            &Stmt::ShiftDown { first, len, by } => {
                for i in first..first + len {
                    let value = if i + by < first + len { get(&self.slot(i + by), t) } else { "0".into() };
                    let line = set(&self.slot(i), t, &value);
                    self.line(&line);
                }
            }
            Stmt::Assign(LValue::Slot(slot), e) => {
                let value = self.expr(e, t, err);
                let slot = self.slot(*slot);
                let value = self.checked(slot.ty, value, err);
                let line = set(&slot, t, &value);
                self.line(&line);
            }
            Stmt::Assign(LValue::Indexed(a, i), e) => {
                // The value first, then the index, as the CPU executor does.
                let value = self.expr(e, t, err);
                let v = self.var();
                self.line(&format!("int {v} = {value};"));
                let i = self.expr(i, t, err);
                self.line(&format!("int {v}_i = {i};"));
                self.line(&format!("if ((u32){v}_i >= {}u) goto {err};", a.len));
                self.line(&format!("if (!wc_store_{}({t}, {v}_i, {v})) goto {err};", a.first));
            }
        }
    }

    /// Emits code evaluating `guard` on `s`; jumps to `no` when false, `err` on error.
    fn guard(&mut self, guard: &Expr, s: &str, no: &str, err: &str) {
        let v = self.expr(guard, s, err);
        self.line(&format!("if (!({v})) goto {no};"));
    }

    fn checks(&mut self, labels: &[Expr]) {
        let model = self.model;
        self.out.push_str("WC_FN int wc_assertion(const u32 *s) {\n");
        for (k, a) in model.assertions.iter().enumerate() {
            let control = self.slot(model.processes[a.process as usize].control);
            self.line(&format!("if ({} == {}) {{", get(&control, "s"), a.state));
            self.depth += 1;
            // False and raising an error both violate the assertion.
            let no = format!("a{k}_no");
            self.line("{");
            self.depth += 1;
            self.guard(&a.expr, "s", &no, &no);
            self.depth -= 1;
            self.line("}");
            self.line(&format!("goto a{k}_ok;"));
            self.line(&format!("{no}: return {k};"));
            self.line(&format!("a{k}_ok: ;"));
            self.depth -= 1;
            self.line("}");
        }
        self.out.push_str("  return -1;\n}\n");
        self.out.push_str("WC_FN int wc_label(int k, const u32 *s) {\n");
        for (k, label) in labels.iter().enumerate() {
            self.line(&format!("if (k == {k}) {{"));
            self.depth += 1;
            self.line("{");
            self.depth += 1;
            self.guard(label, "s", &format!("l{k}_no"), &format!("l{k}_err"));
            self.depth -= 1;
            self.line("}");
            self.line("return 1;");
            self.line(&format!("l{k}_no: return 0;"));
            self.line(&format!("l{k}_err: return -1;"));
            self.depth -= 1;
            self.line("}");
        }
        self.out.push_str("  (void)s; (void)k; return -1;\n}\n");
        self.out.push_str("WC_FN int wc_invariant(int k, const u32 *s) { return wc_label(k, s) == 1; }\n");

        self.out.push_str("WC_FN int wc_accepting(const u32 *s) {\n  (void)s;\n");
        self.out.push_str("  return 0;\n}\n");
    }

    /// Sync mode: `wc_apply(g, t, tmp)` runs group `g`'s effect on `t`; 0 on error.
    fn apply_function(&mut self) {
        self.out.push_str("WC_FN int wc_apply(int g, u32 *t, int *tmp) {\n  switch (g) {\n");
        for (g, group) in self.model.groups.iter().enumerate() {
            self.line(&format!("case {g}: {{"));
            self.depth += 1;
            for stmt in &group.effect {
                self.stmt(stmt, "t", "fail");
            }
            self.line("return 1;");
            self.depth -= 1;
            self.line("}");
        }
        self.out.push_str("  }\nfail:\n  return 0;\n}\n");
    }

    fn successor_function(&mut self, parts: &[Vec<Vec<usize>>]) {
        let model = self.model;
        self.out.push_str("WC_FN int wc_successors(const u32 *s, WcSink *sink) {\n");
        self.line("int tmp[WC_TEMPS]; (void)tmp;");
        self.line("u32 t[WC_WORDS];");
        self.line("int steps = 0;");
        match model.mode {
            SyncMode::Async => self.async_steps(parts),
            SyncMode::Sync => self.sync_steps(),
        }
        self.line("sys_end:");
        self.line("return steps == 0;");
        self.out.push_str("}\n");
    }

    /// The committed-state test and, per process and control state, the groups whose
    /// first participant leaves that state.
    fn groups_by_state(&self) -> Vec<Vec<Vec<usize>>> {
        let model = self.model;
        let mut by: Vec<Vec<Vec<usize>>> = model.processes.iter().map(|p| vec![Vec::new(); p.states.len()]).collect();
        for (g, group) in model.groups.iter().enumerate() {
            let first = group.participants[0];
            let from = model.processes[first.process as usize].transitions[first.transition as usize].from;
            by[first.process as usize][from as usize].push(g);
        }
        by
    }

    fn committed_test(&mut self) {
        let model = self.model;
        self.line("int committed = 0;");
        for (_, p) in model.system_processes() {
            if !p.committed.iter().any(|&c| c) {
                continue;
            }
            let control = get(&self.slot(p.control), "s");
            let states: Vec<String> =
                (0..p.committed.len()).filter(|&i| p.committed[i]).map(|i| format!("{control} == {i}")).collect();
            self.line(&format!("if ({}) committed = 1;", states.join(" || ")));
        }
    }

    /// The enabling test of group `g` (other participants' sources, guards), with the
    /// labels `g{g}_no` (disabled) and `g{g}_err` (a guard raised an error).
    fn enabling(&mut self, g: usize) {
        let group = &self.model.groups[g];
        for &(slot, value) in &group.source[1..] {
            let read = get(&self.slot(slot), "s");
            self.line(&format!("if ({read} != {}) goto g{g}_no;", lit(value)));
        }
        for guard in &group.guards {
            self.guard(guard, "s", &format!("g{g}_no"), &format!("g{g}_err"));
        }
    }

    /// Asynchronous systems: the groups leaving each control state of each process,
    /// as functions of at most [`PART_GROUPS`] groups (`wc_part_<n>`, returning the
    /// steps taken). Large models get them out of line, which keeps NVRTC's time
    /// linear in the model's size; `parts[p][state]` lists their numbers.
    fn async_parts(&mut self) -> Vec<Vec<Vec<usize>>> {
        let model = self.model;
        let inline = model.groups.len() <= INLINE_GROUPS;
        writeln!(self.out, "#define WC_PART {}", if inline { "WC_FN" } else { "WC_NOINLINE" }).unwrap();
        let by = self.groups_by_state();
        let any_committed = model.processes.iter().any(|p| p.committed.iter().any(|&c| c));
        let mut parts = vec![Vec::new(); model.processes.len()];
        let mut next = 0;
        for (p, _) in model.system_processes() {
            for groups in &by[p as usize] {
                let mut numbers = Vec::new();
                for chunk in groups.chunks(PART_GROUPS) {
                    numbers.push(next);
                    self.out.push_str(&format!(
                        "WC_PART int wc_part_{next}(const u32 *__restrict__ s, u32 *__restrict__ t, WcSink *sink, int committed) {{\n"
                    ));
                    self.line("int tmp[WC_TEMPS]; (void)tmp; (void)committed;");
                    self.line("int steps = 0;");
                    for &g in chunk {
                        self.async_group(g, any_committed);
                    }
                    self.line("return steps;");
                    self.out.push_str("}\n");
                    next += 1;
                }
                parts[p as usize].push(numbers);
            }
        }
        parts
    }

    /// One group of an asynchronous system: enabling test, effect, step. The successor
    /// `t` equals `s` before each group; a step (or an error) restores it, word by word
    /// where the effect may write, and a disabled group leaves it alone. Copying the
    /// whole state per group made wide models' kernels slow to compile (firewire_tree.5:
    /// 95 words, 1,280 groups, 110 s of NVRTC against 12 s).
    fn async_group(&mut self, g: usize, any_committed: bool) {
        let group = &self.model.groups[g];
        if any_committed && !group.committed {
            self.line(&format!("if (committed) goto g{g}_no;"));
        }
        self.line("{");
        self.depth += 1;
        self.enabling(g);
        for stmt in &group.effect {
            self.stmt(stmt, "t", &format!("g{g}_err"));
        }
        self.line("steps++;");
        self.line("wc_emit(sink, t);");
        self.depth -= 1;
        self.line("}");
        self.line(&format!("goto g{g}_undo;"));
        self.line(&format!("g{g}_err: steps++; wc_emit_error(sink);"));
        let restore: String = self.written_words(&group.effect).iter().map(|w| format!(" t[{w}] = s[{w}];")).collect();
        self.line(&format!("g{g}_undo:{restore}"));
        self.line(&format!("g{g}_no: ;"));
    }

    /// The state words that `effect` may write (in order, once each).
    fn written_words(&self, effect: &[Stmt]) -> BTreeSet<u32> {
        let mut words = BTreeSet::new();
        for stmt in effect {
            let slots = match stmt {
                Stmt::SetTemp(..) => 0..0,
                Stmt::Assign(LValue::Slot(slot), _) => *slot..*slot + 1,
                Stmt::Assign(LValue::Indexed(a, _), _) => a.first..a.first + a.len,
                &Stmt::ShiftDown { first, len, .. } => first..first + len,
            };
            words.extend(slots.map(|s| self.slot(s).word));
        }
        words
    }

    /// The asynchronous step dispatch: per process, the parts of its control state.
    fn async_steps(&mut self, parts: &[Vec<Vec<usize>>]) {
        let model = self.model;
        let any_committed = model.processes.iter().any(|p| p.committed.iter().any(|&c| c));
        // The successor of every group starts as a copy of `s` (each group restores it).
        self.line("for (int k = 0; k < WC_WORDS; k++) t[k] = s[k];");
        if any_committed {
            self.committed_test();
        } else {
            self.line("int committed = 0;");
        }
        for (p, process) in model.system_processes() {
            let control = get(&self.slot(process.control), "s");
            self.line(&format!("switch ({control}) {{"));
            for (state, numbers) in parts[p as usize].iter().enumerate() {
                if numbers.is_empty() {
                    continue;
                }
                let calls: Vec<String> =
                    numbers.iter().map(|n| format!("steps += wc_part_{n}(s, t, sink, committed);")).collect();
                self.line(&format!("case {state}: {} break;", calls.join(" ")));
            }
            self.line("default: break;");
            self.line("}");
        }
    }

    fn sync_steps(&mut self) {
        let model = self.model;
        let by = self.groups_by_state();
        let procs: Vec<u32> = model.system_processes().map(|(p, _)| p).collect();
        for &p in &procs {
            let most = by[p as usize].iter().map(Vec::len).max().unwrap_or(0).max(1);
            self.line(&format!("int n{p} = 0; int c{p}[{most}];"));
        }
        for &p in &procs {
            let control = get(&self.slot(model.processes[p as usize].control), "s");
            self.line(&format!("switch ({control}) {{"));
            for (state, groups) in by[p as usize].iter().enumerate() {
                if groups.is_empty() {
                    continue;
                }
                self.line(&format!("case {state}: {{"));
                self.depth += 1;
                for &g in groups {
                    self.line("{");
                    self.depth += 1;
                    self.enabling(g);
                    self.line(&format!("c{p}[n{p}++] = {g};"));
                    self.depth -= 1;
                    self.line("}");
                    self.line(&format!("goto g{g}_no;"));
                    self.line(&format!("g{g}_err: steps++; wc_emit_error(sink);"));
                    self.line(&format!("g{g}_no: ;"));
                }
                self.line("break;");
                self.depth -= 1;
                self.line("}");
            }
            self.line("default: break;");
            self.line("}");
            // Some process cannot move: the whole system is stuck (errors aside).
            self.line(&format!("if (n{p} == 0) goto sys_end;"));
        }
        // Every combination of one enabled group per process, effects in process order.
        for &p in &procs {
            self.line(&format!("for (int k{p} = 0; k{p} < n{p}; k{p}++) {{"));
            self.depth += 1;
        }
        self.line("for (int k = 0; k < WC_WORDS; k++) t[k] = s[k];");
        self.line("steps++;");
        let applies: Vec<String> = procs.iter().map(|p| format!("wc_apply(c{p}[k{p}], t, tmp)")).collect();
        if applies.is_empty() {
            self.line("wc_emit(sink, t);");
        } else {
            self.line(&format!("if ({}) wc_emit(sink, t); else wc_emit_error(sink);", applies.join(" && ")));
        }
        for _ in &procs {
            self.depth -= 1;
            self.line("}");
        }
    }
}

fn collect_arrays(e: &Expr, out: &mut Vec<ArrayRef>) {
    match e {
        Expr::LoadIndexed(a, i) => {
            out.push(*a);
            collect_arrays(i, out);
        }
        Expr::Unary(_, a) => collect_arrays(a, out),
        Expr::Binary(_, a, b) => {
            collect_arrays(a, out);
            collect_arrays(b, out);
        }
        Expr::Const(_) | Expr::Load(_) | Expr::Temp(_) => {}
    }
}

/// An upper bound on the steps enabled in one state: per process the most groups
/// leaving one control state (summed in an asynchronous system, multiplied in a
/// synchronous one, where each process may also raise errors).
pub fn max_successors(model: &Program) -> u64 {
    let mut most: Vec<Vec<u64>> = model.processes.iter().map(|p| vec![0; p.states.len()]).collect();
    for group in &model.groups {
        let first = group.participants[0];
        let from = model.processes[first.process as usize].transitions[first.transition as usize].from;
        most[first.process as usize][from as usize] += 1;
    }
    let per_process = model.system_processes().map(|(p, _)| most[p as usize].iter().copied().max().unwrap_or(0));
    let system = match model.mode {
        SyncMode::Async => per_process.sum::<u64>(),
        SyncMode::Sync => {
            let (mut product, mut errors) = (1u64, 0u64);
            for n in per_process {
                product = product.saturating_mul(n);
                errors += n;
            }
            product.saturating_add(errors)
        }
    };
    system.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_model::layout::Layout;

    #[test]
    fn regular_arrays_get_computed_positions_that_match_the_layout() {
        // A 6-bit counter, then a byte array of 7 that starts mid-word and spills over.
        let mut types = vec![SlotType::Range { max: 40 }];
        types.extend([SlotType::Byte; 7]);
        let layout = Layout::pack(&types);
        let slots: Vec<Slot> = (1..8).map(|s| *layout.slot(s)).collect();
        let (word, shift) = regular_position(&slots).expect("regular");
        // Evaluate the C expressions for every index with a tiny interpreter of their shape.
        for (i, slot) in slots.iter().enumerate() {
            let i = i as u32;
            let (in_first, per) = ((32 - slots[0].shift) / 8, 4);
            let w = if i < in_first { slots[0].word } else { slots[0].word + 1 + (i - in_first) / per };
            let sh = if i < in_first { slots[0].shift + i * 8 } else { ((i - in_first) % per) * 8 };
            assert_eq!((w, sh), (slot.word, slot.shift), "element {i}");
        }
        assert!(word.contains("3u") && shift.contains("* 8u"), "{word} / {shift}");
    }

    #[test]
    fn mixed_arrays_fall_back_to_a_switch() {
        let layout = Layout::pack(&[SlotType::Byte, SlotType::Int, SlotType::Byte, SlotType::Int]);
        let slots: Vec<Slot> = layout.slots().to_vec();
        assert!(regular_position(&slots).is_none());
    }

    #[test]
    fn literals_are_valid_c() {
        assert_eq!(lit(i32::MIN), "(-2147483647-1)");
        assert_eq!(lit(-5), "(-5)");
        assert_eq!(lit(7), "7");
    }
}
