//! DiVinE 2.4's leniencies: inputs the reference implementation accepts although the
//! DVE grammar suggests otherwise. warpcheck accepts each one the way DiVinE reads it
//! and says so with a warning [`Diagnostic`] (file, line, column):
//!
//! - an array named without an index (`e`, `P->e`) means its first element `e[0]`, in
//!   guards, effects (as a target too), sent and received values and assertions
//!   (DiVinE's parser resolves a bare name to the variable's first cell whatever its
//!   size); found here, after lowering, by walking the syntax tree;
//! - a variable read in an initial value (`byte b = a + 1;`) stands for its initial
//!   value (DiVinE evaluates initialisers in declaration order over the initial
//!   values); found by the lowering itself (`lower::Lowerer::initial_value`).

use crate::ast::{Expr, ExprKind, Ident, Module, SyncDir};
use crate::diagnostic::Diagnostic;
use crate::names::{Names, Symbol};

/// The warning for the array `name` used without an index at `ident`; `remote` is the
/// `P->` prefix of a remote read.
fn unindexed(ident: &Ident, remote: &str, write: bool) -> Diagnostic {
    let name = &ident.name;
    let how = if write { "writes" } else { "reads" };
    Diagnostic::warning(
        format!("array `{remote}{name}` used without an index: taken as `{remote}{name}[0]`, its first element"),
        ident.span,
    )
    .label(format!("{how} `{remote}{name}[0]`"))
    .note(format!("DiVinE 2.4 reads an unindexed array as its first element; write `{remote}{name}[0]` to say so"))
}

struct Walker<'a> {
    names: &'a Names,
    process: Option<u32>,
    out: Vec<Diagnostic>,
}

impl Walker<'_> {
    fn is_array(&self, process: Option<u32>, name: &str) -> bool {
        matches!(self.names.lookup(process, name), Some(Symbol::Var(v)) if self.names.vars[v as usize].is_array)
    }

    /// Visits an expression; `write` when it is an assignment or receive target.
    fn expr(&mut self, e: &Expr, write: bool) {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::InState(..) => {}
            ExprKind::Name(id) => {
                if self.is_array(self.process, &id.name) {
                    self.out.push(unindexed(id, "", write));
                }
            }
            ExprKind::Index(_, index) => self.expr(index, false),
            ExprKind::Remote(p, var, index) => match index {
                Some(i) => self.expr(i, false),
                None => {
                    let local = self
                        .names
                        .process_index
                        .get(&p.name)
                        .and_then(|&pi| self.names.processes[pi as usize].locals.get(&var.name).map(|(s, _)| *s));
                    if matches!(local, Some(Symbol::Var(v)) if self.names.vars[v as usize].is_array) {
                        self.out.push(unindexed(var, &format!("{}->", p.name), write));
                    }
                }
            },
            ExprKind::Unary(_, a) => self.expr(a, false),
            ExprKind::Binary(_, a, b) => {
                self.expr(a, false);
                self.expr(b, false);
            }
        }
    }
}

/// The warnings for every array used without an index in `module`'s processes, in
/// source order. `names` are the module's names after lowering.
pub(crate) fn unindexed_arrays(module: &Module, names: &Names) -> Vec<Diagnostic> {
    let mut w = Walker { names, process: None, out: vec![] };
    for (pi, process) in module.processes.iter().enumerate() {
        w.process = Some(pi as u32);
        for (_, e) in &process.asserts {
            w.expr(e, false);
        }
        for t in &process.transitions {
            if let Some(g) = &t.guard {
                w.expr(g, false);
            }
            if let Some(s) = &t.sync {
                for v in &s.values {
                    w.expr(v, s.dir == SyncDir::Receive);
                }
            }
            for a in &t.effects {
                w.expr(&a.target, true);
                w.expr(&a.value, false);
            }
        }
    }
    w.out.sort_by_key(|d| d.span.start);
    w.out
}
