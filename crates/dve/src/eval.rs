//! The CPU executor of the IR: evaluates expressions and runs effects on a state
//! vector, reporting evaluation errors instead of wrapping or panicking.
//!
//! Arithmetic is 32-bit signed and wrapping (as in the C code DiVinE evaluates);
//! division and remainder truncate towards zero; shift amounts are taken modulo 32.
//! Logical operators short-circuit (`and`, `or`, `imply` skip their right operand
//! when the left decides), as DiVinE 2.4 does: BEEM models rely on it to guard array
//! accesses (`j < 3 && s[j] == 0`).

use warpcheck_model::layout::{Layout, SlotId, SlotType};
pub use warpcheck_model::EvalError;

use crate::ir::{ArrayRef, BinOp, Expr, LValue, Stmt, UnOp};

/// What assigning a value outside a variable's range does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overflow {
    /// An evaluation error (the DiVinE 2.4 interpreter's semantics; the default).
    #[default]
    Error,
    /// The value wraps around to the variable's width, as in C: `byte` keeps the low 8
    /// bits, `int` the low 16 bits, sign-extended (the semantics of DiVinE's compiled
    /// models, which LTSmin runs). Other evaluation errors stay errors.
    Wrap,
}

/// Evaluation context: the layout to read slots with, the temporaries of the effect
/// being run, and the overflow rule.
pub struct Evaluator<'a> {
    pub layout: &'a Layout,
    pub temps: &'a mut [i32],
    pub overflow: Overflow,
}

#[inline]
fn index(array: &ArrayRef, i: i32) -> Result<SlotId, EvalError> {
    if i < 0 || i as u32 >= array.len {
        return Err(EvalError::IndexOutOfBounds { var: array.var, index: i, len: array.len });
    }
    Ok(array.first + i as u32)
}

impl Evaluator<'_> {
    /// Evaluates an expression on a state.
    pub fn eval(&self, expr: &Expr, state: &[u32]) -> Result<i32, EvalError> {
        Ok(match expr {
            Expr::Const(c) => *c,
            Expr::Load(slot) => self.layout.slot(*slot).get(state),
            Expr::LoadIndexed(array, i) => {
                let slot = index(array, self.eval(i, state)?)?;
                self.layout.slot(slot).get(state)
            }
            Expr::Temp(t) => self.temps[*t as usize],
            Expr::Unary(op, a) => {
                let a = self.eval(a, state)?;
                match op {
                    UnOp::Neg => a.wrapping_neg(),
                    UnOp::BitNot => !a,
                    UnOp::Not => (a == 0) as i32,
                }
            }
            Expr::Binary(BinOp::And, a, b) => (self.holds(a, state)? && self.holds(b, state)?) as i32,
            Expr::Binary(BinOp::Or, a, b) => (self.holds(a, state)? || self.holds(b, state)?) as i32,
            Expr::Binary(BinOp::Imply, a, b) => (!self.holds(a, state)? || self.holds(b, state)?) as i32,
            Expr::Binary(op, a, b) => {
                // Fast path for the commonest guard shape: a variable against a constant.
                if let (Expr::Load(slot), Expr::Const(c)) = (&**a, &**b) {
                    return binary(*op, self.layout.slot(*slot).get(state), *c);
                }
                let a = self.eval(a, state)?;
                let b = self.eval(b, state)?;
                binary(*op, a, b)?
            }
        })
    }

    /// Evaluates a guard: true when non-zero.
    #[inline]
    pub fn holds(&self, expr: &Expr, state: &[u32]) -> Result<bool, EvalError> {
        Ok(self.eval(expr, state)? != 0)
    }

    /// Runs one statement, updating `state` in place.
    pub fn exec(&mut self, stmt: &Stmt, state: &mut [u32]) -> Result<(), EvalError> {
        match stmt {
            Stmt::SetTemp(t, e) => {
                self.temps[*t as usize] = self.eval(e, state)?;
            }
            &Stmt::ShiftDown { first, len, by } => {
                // Slots of one buffer have equal types cell for cell, so moved values fit.
                for i in first..first + len {
                    let value = if i + by < first + len { self.layout.slot(i + by).get(state) } else { 0 };
                    self.layout.slot(i).set(state, value);
                }
            }
            Stmt::Assign(target, e) => {
                let value = self.eval(e, state)?;
                let slot = match target {
                    LValue::Slot(s) => *s,
                    LValue::Indexed(array, i) => index(array, self.eval(i, state)?)?,
                };
                let s = self.layout.slot(slot);
                let value = match (s.holds(value), self.overflow, s.ty) {
                    (true, _, _) => value,
                    (false, Overflow::Wrap, SlotType::Byte) => value & 0xff,
                    (false, Overflow::Wrap, SlotType::Int) => value as i16 as i32,
                    _ => return Err(EvalError::OutOfRange { slot, value }),
                };
                s.set(state, value);
            }
        }
        Ok(())
    }
}

/// Applies a binary operator with the reference semantics.
#[inline]
pub fn binary(op: BinOp, a: i32, b: i32) -> Result<i32, EvalError> {
    Ok(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => {
            if b == 0 {
                return Err(EvalError::DivisionByZero);
            }
            a.wrapping_div(b)
        }
        BinOp::Rem => {
            if b == 0 {
                return Err(EvalError::DivisionByZero);
            }
            a.wrapping_rem(b)
        }
        BinOp::Shl => a.wrapping_shl(b as u32),
        BinOp::Shr => a.wrapping_shr(b as u32),
        BinOp::Lt => (a < b) as i32,
        BinOp::Le => (a <= b) as i32,
        BinOp::Gt => (a > b) as i32,
        BinOp::Ge => (a >= b) as i32,
        BinOp::Eq => (a == b) as i32,
        BinOp::Ne => (a != b) as i32,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::And => (a != 0 && b != 0) as i32,
        BinOp::Or => (a != 0 || b != 0) as i32,
        BinOp::Imply => (a == 0 || b != 0) as i32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_model::layout::SlotType;

    #[test]
    fn arithmetic_follows_c() {
        assert_eq!(binary(BinOp::Div, -7, 2), Ok(-3));
        assert_eq!(binary(BinOp::Rem, -7, 2), Ok(-1));
        assert_eq!(binary(BinOp::Div, 1, 0), Err(EvalError::DivisionByZero));
        assert_eq!(binary(BinOp::Rem, 1, 0), Err(EvalError::DivisionByZero));
        assert_eq!(binary(BinOp::Div, i32::MIN, -1), Ok(i32::MIN));
        assert_eq!(binary(BinOp::Imply, 0, 0), Ok(1));
        assert_eq!(binary(BinOp::Imply, 3, 0), Ok(0));
        assert_eq!(binary(BinOp::And, 2, 5), Ok(1));
        assert_eq!(binary(BinOp::Shl, 1, 4), Ok(16));
        assert_eq!(binary(BinOp::Shr, -16, 2), Ok(-4));
    }

    #[test]
    fn errors_are_reported_not_wrapped() {
        let layout = Layout::pack(&[SlotType::Byte, SlotType::Byte, SlotType::Int]);
        let arr = ArrayRef { var: 0, first: 0, len: 2 };
        let mut temps = [];
        let mut ev = Evaluator { layout: &layout, temps: &mut temps, overflow: Overflow::Error };
        let mut state = layout.encode(&[1, 2, -5]);
        let read = Expr::LoadIndexed(arr, Box::new(Expr::Const(2)));
        assert_eq!(ev.eval(&read, &state), Err(EvalError::IndexOutOfBounds { var: 0, index: 2, len: 2 }));
        let write = Stmt::Assign(LValue::Slot(1), Expr::Const(256));
        assert_eq!(ev.exec(&write, &mut state), Err(EvalError::OutOfRange { slot: 1, value: 256 }));
        let write = Stmt::Assign(LValue::Slot(2), Expr::Const(-32768));
        assert_eq!(ev.exec(&write, &mut state), Ok(()));
        assert_eq!(layout.decode(&state), vec![1, 2, -32768]);
        let mut ev = Evaluator { layout: &layout, temps: &mut [], overflow: Overflow::Wrap };
        ev.exec(&Stmt::Assign(LValue::Slot(1), Expr::Const(257)), &mut state).unwrap();
        ev.exec(&Stmt::Assign(LValue::Slot(2), Expr::Const(32768)), &mut state).unwrap();
        assert_eq!(layout.decode(&state), vec![1, 1, -32768]);
        ev.exec(&Stmt::Assign(LValue::Slot(0), Expr::Const(-1)), &mut state).unwrap();
        assert_eq!(layout.decode(&state), vec![255, 1, -32768]);
        let read = Expr::LoadIndexed(arr, Box::new(Expr::Const(2)));
        assert!(ev.eval(&read, &state).is_err(), "index errors stay errors");
    }
}
