//! Name resolution for DVE: the global and per-process scopes, and the lowering of
//! DVE expressions to IR expressions with static checks (undefined names, arrays used
//! as scalars, constant expressions).

use std::collections::HashMap;

use crate::ir::{ArrayRef, BinOp, Expr as IrExpr, LValue, UnOp, VarId};
use warpcheck_model::SlotId;

use crate::eval;

use crate::ast::{BinaryOp, Expr, ExprKind, Ident, UnaryOp, VarType};
use crate::diagnostic::{Diagnostic, Span};

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    Const(i32),
    Var(VarId),
}

/// A variable as the checker sees it.
#[derive(Clone, Debug)]
pub struct VarInfo {
    pub ty: VarType,
    pub first: SlotId,
    pub len: u32,
    pub is_array: bool,
}

/// A process's names.
#[derive(Clone, Debug, Default)]
pub struct ProcessNames {
    pub name: String,
    pub span: Span,
    pub locals: HashMap<String, (Symbol, Span)>,
    pub states: HashMap<String, u32>,
    pub control: SlotId,
}

/// Every name of a model: globals, processes with their locals and states, channels.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub globals: HashMap<String, (Symbol, Span)>,
    pub processes: Vec<ProcessNames>,
    pub process_index: HashMap<String, u32>,
    pub channels: HashMap<String, (u32, Span)>,
    pub vars: Vec<VarInfo>,
    /// Warnings raised while lowering (DiVinE 2.4's leniencies), handed to
    /// [`crate::DveModel::warnings`].
    pub(crate) warnings: Vec<Diagnostic>,
}

pub(crate) fn binary_op(op: BinaryOp) -> BinOp {
    match op {
        BinaryOp::Imply => BinOp::Imply,
        BinaryOp::Or => BinOp::Or,
        BinaryOp::And => BinOp::And,
        BinaryOp::BitOr => BinOp::BitOr,
        BinaryOp::BitAnd => BinOp::BitAnd,
        BinaryOp::BitXor => BinOp::BitXor,
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::Ne => BinOp::Ne,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::Le => BinOp::Le,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::Ge => BinOp::Ge,
        BinaryOp::Shl => BinOp::Shl,
        BinaryOp::Shr => BinOp::Shr,
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Rem => BinOp::Rem,
    }
}

/// Folds a constant unary or binary expression, unless it would raise an evaluation
/// error (left for run time, where the step that reaches it reports it).
fn fold(e: IrExpr) -> IrExpr {
    match &e {
        IrExpr::Unary(op, a) => {
            if let IrExpr::Const(a) = **a {
                return IrExpr::Const(match op {
                    UnOp::Neg => a.wrapping_neg(),
                    UnOp::BitNot => !a,
                    UnOp::Not => (a == 0) as i32,
                });
            }
        }
        IrExpr::Binary(op, a, b) => {
            if let (IrExpr::Const(a), IrExpr::Const(b)) = (&**a, &**b) {
                if let Ok(v) = eval::binary(*op, *a, *b) {
                    return IrExpr::Const(v);
                }
            }
        }
        _ => {}
    }
    e
}

/// Reads `array[index]`: a plain slot read when the index is a constant in bounds (a
/// constant out of bounds stays a checked read, raising its error when evaluated).
fn element(array: ArrayRef, index: IrExpr) -> IrExpr {
    match index {
        IrExpr::Const(i) if i >= 0 && (i as u32) < array.len => IrExpr::Load(array.first + i as u32),
        index => IrExpr::LoadIndexed(array, Box::new(index)),
    }
}

impl Names {
    /// Looks a name up in a process scope (locals shadow globals) or the global scope.
    pub fn lookup(&self, process: Option<u32>, name: &str) -> Option<Symbol> {
        process
            .and_then(|p| self.processes[p as usize].locals.get(name))
            .or_else(|| self.globals.get(name))
            .map(|(s, _)| *s)
    }

    fn process(&self, ident: &Ident) -> Result<u32, Diagnostic> {
        self.process_index.get(&ident.name).copied().ok_or_else(|| {
            Diagnostic::new(format!("undefined process `{}`", ident.name), ident.span).label("no process of this name")
        })
    }

    fn undefined(&self, ident: &Ident) -> Diagnostic {
        let mut d = Diagnostic::new(format!("undefined name `{}`", ident.name), ident.span).label("not declared");
        if self.process_index.contains_key(&ident.name) {
            d = d.note(format!("`{0}` is a process: write `{0}.state` or `{0}->variable`", ident.name));
        } else if self.channels.contains_key(&ident.name) {
            d = d.note(format!("`{}` is a channel, which has no value", ident.name));
        }
        d
    }

    fn array(&self, var: VarId, ident: &Ident) -> Result<ArrayRef, Diagnostic> {
        let info = &self.vars[var as usize];
        if !info.is_array {
            return Err(Diagnostic::new(format!("`{}` is not an array", ident.name), ident.span)
                .label("indexed here but declared as a scalar"));
        }
        Ok(ArrayRef { var, first: info.first, len: info.len })
    }

    /// The slot a variable named without an index reads or writes: a scalar's slot,
    /// or (DiVinE 2.4's leniency, warned about by [`crate::lenient`]) an array's first
    /// element.
    fn scalar(&self, var: VarId) -> SlotId {
        self.vars[var as usize].first
    }

    fn local_var(&self, process: u32, ident: &Ident) -> Result<VarId, Diagnostic> {
        let p = &self.processes[process as usize];
        match p.locals.get(&ident.name) {
            Some((Symbol::Var(v), _)) => Ok(*v),
            Some((Symbol::Const(_), _)) => Err(Diagnostic::new(
                format!("`{}` is a constant of process `{}`, not a variable", ident.name, p.name),
                ident.span,
            )),
            None => {
                Err(Diagnostic::new(format!("process `{}` has no local variable `{}`", p.name, ident.name), ident.span)
                    .label("not declared in that process"))
            }
        }
    }

    /// Lowers an expression in the scope of `process` (or the global scope).
    pub fn lower_expr(&self, process: Option<u32>, e: &Expr) -> Result<IrExpr, Diagnostic> {
        Ok(match &e.kind {
            ExprKind::Number(n) => IrExpr::Const(*n as i32),
            ExprKind::Bool(b) => IrExpr::Const(*b as i32),
            ExprKind::Name(id) => match self.lookup(process, &id.name) {
                Some(Symbol::Const(c)) => IrExpr::Const(c),
                Some(Symbol::Var(v)) => IrExpr::Load(self.scalar(v)),
                None => return Err(self.undefined(id)),
            },
            ExprKind::Index(id, index) => match self.lookup(process, &id.name) {
                Some(Symbol::Var(v)) => element(self.array(v, id)?, self.lower_expr(process, index)?),
                Some(Symbol::Const(_)) => {
                    return Err(Diagnostic::new(format!("constant `{}` is not an array", id.name), id.span))
                }
                None => return Err(self.undefined(id)),
            },
            ExprKind::InState(p, s) => {
                let pi = self.process(p)?;
                let names = &self.processes[pi as usize];
                let Some(&si) = names.states.get(&s.name) else {
                    return Err(Diagnostic::new(format!("process `{}` has no state `{}`", p.name, s.name), s.span)
                        .label("not in its `state` list"));
                };
                IrExpr::binary(BinOp::Eq, IrExpr::Load(names.control), IrExpr::Const(si as i32))
            }
            ExprKind::Remote(p, var, index) => {
                let pi = self.process(p)?;
                let v = self.local_var(pi, var)?;
                match index {
                    Some(i) => element(self.array(v, var)?, self.lower_expr(process, i)?),
                    None => IrExpr::Load(self.scalar(v)),
                }
            }
            ExprKind::Unary(op, a) => {
                let op = match op {
                    UnaryOp::Neg => UnOp::Neg,
                    UnaryOp::BitNot => UnOp::BitNot,
                    UnaryOp::Not => UnOp::Not,
                };
                fold(IrExpr::Unary(op, Box::new(self.lower_expr(process, a)?)))
            }
            ExprKind::Binary(op, a, b) => {
                fold(IrExpr::binary(binary_op(*op), self.lower_expr(process, a)?, self.lower_expr(process, b)?))
            }
        })
    }

    /// Evaluates a constant expression (literals and constants only).
    pub fn constant(&self, process: Option<u32>, e: &Expr, what: &str) -> Result<i32, Diagnostic> {
        let not_constant = || {
            Diagnostic::new(format!("{what} must be a constant expression"), e.span)
                .label("depends on the state")
                .note("only numbers, `true`/`false`, constants and operators on them are allowed here")
        };
        match self.lower_expr(process, e) {
            Ok(IrExpr::Const(c)) => Ok(c),
            Ok(IrExpr::Binary(BinOp::Div | BinOp::Rem, _, b)) if *b == IrExpr::Const(0) => {
                Err(Diagnostic::new(format!("division by zero in {what}"), e.span))
            }
            Ok(_) => Err(not_constant()),
            Err(d) if d.message.starts_with("undefined name") => Err(d),
            Err(_) => Err(not_constant()),
        }
    }

    /// Lowers an assignment target in the scope of `process`.
    pub fn lower_lvalue(&self, process: Option<u32>, e: &Expr) -> Result<LValue, Diagnostic> {
        let constant = |id: &Ident| {
            Diagnostic::new(format!("cannot assign to constant `{}`", id.name), id.span).label("declared `const`")
        };
        match &e.kind {
            ExprKind::Name(id) => match self.lookup(process, &id.name) {
                Some(Symbol::Var(v)) => Ok(LValue::Slot(self.scalar(v))),
                Some(Symbol::Const(_)) => Err(constant(id)),
                None => Err(self.undefined(id)),
            },
            ExprKind::Index(id, index) => match self.lookup(process, &id.name) {
                Some(Symbol::Var(v)) => {
                    let array = self.array(v, id)?;
                    Ok(match self.lower_expr(process, index)? {
                        IrExpr::Const(i) if i >= 0 && (i as u32) < array.len => LValue::Slot(array.first + i as u32),
                        index => LValue::Indexed(array, index),
                    })
                }
                Some(Symbol::Const(_)) => Err(constant(id)),
                None => Err(self.undefined(id)),
            },
            _ => Err(Diagnostic::new("cannot assign to this expression", e.span)
                .label("not a variable")
                .note("only variables `x` and array elements `a[i]` of the process or global scope can be assigned")),
        }
    }
}
