//! Guards and effects compiled to closures for the CPU successor function.
//!
//! The same semantics as [`Evaluator`](crate::Evaluator) (which stays the reference,
//! and serves everything off the hot path), without re-dispatching on the IR at every
//! node: each expression becomes a tree of closures that hold their slots' positions
//! and their operator, and the commonest guard shape (a variable against a constant)
//! becomes a single closure.

use warpcheck_model::EvalError;

use crate::eval::{binary, Overflow};
use crate::ir::{ArrayRef, BinOp, Expr, LValue, Stmt, UnOp};
use warpcheck_model::layout::{Layout, Slot, SlotType};

type ExprFn = dyn Fn(&[u32], &[i32]) -> Result<i32, EvalError> + Send + Sync;
type StmtFn = dyn Fn(&mut [u32], &mut [i32]) -> Result<(), EvalError> + Send + Sync;

/// A compiled expression: evaluates on a state and the effect's temporaries.
pub struct CompiledExpr(Box<ExprFn>);

/// A compiled statement: updates a state (and temporaries) in place.
pub struct CompiledStmt(Box<StmtFn>);

impl CompiledExpr {
    #[inline]
    pub fn eval(&self, state: &[u32], temps: &[i32]) -> Result<i32, EvalError> {
        (self.0)(state, temps)
    }
}

impl CompiledStmt {
    #[inline]
    pub fn exec(&self, state: &mut [u32], temps: &mut [i32]) -> Result<(), EvalError> {
        (self.0)(state, temps)
    }
}

fn element_slots(layout: &Layout, array: &ArrayRef) -> Vec<Slot> {
    (array.first..array.first + array.len).map(|s| *layout.slot(s)).collect()
}

fn index_error(array: &ArrayRef, index: i32) -> EvalError {
    EvalError::IndexOutOfBounds { var: array.var, index, len: array.len }
}

/// Compiles an expression.
pub fn compile_expr(e: &Expr, layout: &Layout) -> CompiledExpr {
    CompiledExpr(match e {
        &Expr::Const(c) => Box::new(move |_, _| Ok(c)),
        &Expr::Load(s) => {
            let slot = *layout.slot(s);
            Box::new(move |st, _| Ok(slot.get(st)))
        }
        Expr::LoadIndexed(array, index) => {
            let (array, slots, index) = (*array, element_slots(layout, array), compile_expr(index, layout));
            Box::new(move |st, t| {
                let i = index.eval(st, t)?;
                match slots.get(i as usize) {
                    Some(slot) if i >= 0 => Ok(slot.get(st)),
                    _ => Err(index_error(&array, i)),
                }
            })
        }
        &Expr::Temp(t) => Box::new(move |_, temps| Ok(temps[t as usize])),
        Expr::Unary(op, a) => {
            let a = compile_expr(a, layout);
            match op {
                UnOp::Neg => Box::new(move |st, t| Ok(a.eval(st, t)?.wrapping_neg())),
                UnOp::BitNot => Box::new(move |st, t| Ok(!a.eval(st, t)?)),
                UnOp::Not => Box::new(move |st, t| Ok((a.eval(st, t)? == 0) as i32)),
            }
        }
        Expr::Binary(op, a, b) => compile_binary(*op, a, b, layout),
    })
}

fn compile_binary(op: BinOp, a: &Expr, b: &Expr, layout: &Layout) -> Box<ExprFn> {
    if let (&Expr::Load(s), &Expr::Const(c)) = (a, b) {
        let slot = *layout.slot(s);
        return match op {
            BinOp::Eq => Box::new(move |st, _| Ok((slot.get(st) == c) as i32)),
            BinOp::Ne => Box::new(move |st, _| Ok((slot.get(st) != c) as i32)),
            BinOp::Lt => Box::new(move |st, _| Ok((slot.get(st) < c) as i32)),
            BinOp::Le => Box::new(move |st, _| Ok((slot.get(st) <= c) as i32)),
            BinOp::Gt => Box::new(move |st, _| Ok((slot.get(st) > c) as i32)),
            BinOp::Ge => Box::new(move |st, _| Ok((slot.get(st) >= c) as i32)),
            BinOp::Add => Box::new(move |st, _| Ok(slot.get(st).wrapping_add(c))),
            BinOp::Sub => Box::new(move |st, _| Ok(slot.get(st).wrapping_sub(c))),
            op => Box::new(move |st, _| binary(op, slot.get(st), c)),
        };
    }
    let (a, b) = (compile_expr(a, layout), compile_expr(b, layout));
    match op {
        BinOp::And => Box::new(move |st, t| Ok((a.eval(st, t)? != 0 && b.eval(st, t)? != 0) as i32)),
        BinOp::Or => Box::new(move |st, t| Ok((a.eval(st, t)? != 0 || b.eval(st, t)? != 0) as i32)),
        BinOp::Imply => Box::new(move |st, t| Ok((a.eval(st, t)? == 0 || b.eval(st, t)? != 0) as i32)),
        BinOp::Eq => Box::new(move |st, t| Ok((a.eval(st, t)? == b.eval(st, t)?) as i32)),
        BinOp::Ne => Box::new(move |st, t| Ok((a.eval(st, t)? != b.eval(st, t)?) as i32)),
        BinOp::Add => Box::new(move |st, t| Ok(a.eval(st, t)?.wrapping_add(b.eval(st, t)?))),
        BinOp::Sub => Box::new(move |st, t| Ok(a.eval(st, t)?.wrapping_sub(b.eval(st, t)?))),
        op => Box::new(move |st, t| {
            let x = a.eval(st, t)?;
            binary(op, x, b.eval(st, t)?)
        }),
    }
}

/// Stores `value` in `slot` under the overflow rule.
#[inline]
fn store(slot: &Slot, id: u32, value: i32, overflow: Overflow, state: &mut [u32]) -> Result<(), EvalError> {
    let value = match (slot.holds(value), overflow, slot.ty) {
        (true, _, _) => value,
        (false, Overflow::Wrap, SlotType::Byte) => value & 0xff,
        (false, Overflow::Wrap, SlotType::Int) => value as i16 as i32,
        _ => return Err(EvalError::OutOfRange { slot: id, value }),
    };
    slot.set(state, value);
    Ok(())
}

/// Compiles a statement.
pub fn compile_stmt(s: &Stmt, layout: &Layout, overflow: Overflow) -> CompiledStmt {
    CompiledStmt(match s {
        Stmt::SetTemp(t, e) => {
            let (t, e) = (*t as usize, compile_expr(e, layout));
            Box::new(move |st, temps| {
                temps[t] = e.eval(st, temps)?;
                Ok(())
            })
        }
        Stmt::Assign(LValue::Slot(id), e) => {
            let (id, slot, e) = (*id, *layout.slot(*id), compile_expr(e, layout));
            Box::new(move |st, temps| {
                let v = e.eval(st, temps)?;
                store(&slot, id, v, overflow, st)
            })
        }
        Stmt::Assign(LValue::Indexed(array, index), e) => {
            let (array, slots) = (*array, element_slots(layout, array));
            let (index, e) = (compile_expr(index, layout), compile_expr(e, layout));
            Box::new(move |st, temps| {
                let v = e.eval(st, temps)?;
                let i = index.eval(st, temps)?;
                match slots.get(i as usize) {
                    Some(slot) if i >= 0 => store(slot, array.first + i as u32, v, overflow, st),
                    _ => Err(index_error(&array, i)),
                }
            })
        }
        &Stmt::ShiftDown { first, len, by } => {
            let slots: Vec<Slot> = (first..first + len).map(|s| *layout.slot(s)).collect();
            let by = by as usize;
            Box::new(move |st, _| {
                for i in 0..slots.len() {
                    let value = slots.get(i + by).map_or(0, |s| s.get(st));
                    slots[i].set(st, value);
                }
                Ok(())
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;

    /// A small deterministic pseudo-random generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    const OPS: [BinOp; 19] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::And,
        BinOp::Or,
        BinOp::Imply,
    ];

    fn random_expr(r: &mut Rng, depth: u32) -> Expr {
        let array = ArrayRef { var: 0, first: 0, len: 3 };
        match if depth == 0 { r.next(3) } else { r.next(7) } {
            0 => Expr::Const(r.next(7) as i32 - 3),
            1 => Expr::Load(r.next(5) as u32),
            2 => Expr::Temp(r.next(2) as u32),
            3 => Expr::LoadIndexed(array, Box::new(random_expr(r, depth - 1))),
            4 => Expr::Unary(
                [UnOp::Neg, UnOp::BitNot, UnOp::Not][r.next(3) as usize],
                Box::new(random_expr(r, depth - 1)),
            ),
            5 => {
                Expr::binary(OPS[r.next(19) as usize], Expr::Load(r.next(5) as u32), Expr::Const(r.next(5) as i32 - 1))
            }
            _ => Expr::binary(OPS[r.next(19) as usize], random_expr(r, depth - 1), random_expr(r, depth - 1)),
        }
    }

    /// The compiled closures agree with the reference evaluator, values and errors.
    #[test]
    fn compiled_code_agrees_with_the_evaluator() {
        let layout =
            Layout::pack(&[SlotType::Byte, SlotType::Byte, SlotType::Byte, SlotType::Int, SlotType::Range { max: 3 }]);
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let values =
                [r.next(4) as i32, r.next(256) as i32, r.next(3) as i32, r.next(11) as i32 - 5, r.next(4) as i32];
            let state = layout.encode(&values);
            let temps = [r.next(5) as i32 - 2, r.next(3) as i32];
            let e = random_expr(&mut r, 4);
            let want =
                Evaluator { layout: &layout, temps: &mut temps.clone(), overflow: Overflow::Error }.eval(&e, &state);
            assert_eq!(compile_expr(&e, &layout).eval(&state, &temps), want, "{e:?} on {values:?}");
            for overflow in [Overflow::Error, Overflow::Wrap] {
                let target = if r.next(2) == 0 {
                    LValue::Slot(r.next(5) as u32)
                } else {
                    LValue::Indexed(ArrayRef { var: 0, first: 0, len: 3 }, random_expr(&mut r, 1))
                };
                let s = Stmt::Assign(target, e.clone());
                let (mut a, mut b) = (state.clone(), state.clone());
                let (mut ta, mut tb) = (temps, temps);
                let want = Evaluator { layout: &layout, temps: &mut ta, overflow }.exec(&s, &mut a);
                let got = compile_stmt(&s, &layout, overflow).exec(&mut b, &mut tb);
                assert_eq!(got, want, "{s:?} on {values:?}");
                if want.is_ok() {
                    assert_eq!(a, b, "{s:?} on {values:?}");
                }
            }
        }
    }
}
